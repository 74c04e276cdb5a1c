"""Processes started by dpverify never outlive the work they were started for, and share
its memory budget.

The ``dpverify`` program computes in a child process (killed at the deadline), ``dpverify
verify`` checks in a grandchild (killed at its own deadline), and long exact work runs in
forked worker processes.  Whatever ends the caller -- ``kill -9``, SIGTERM, Ctrl-C, the
deadline -- every process below it ends too (nothing computes on for nobody), and the
workers together allocate no more than the budget left when they start.

Processes are identified by the pid files they write; a process counts as gone when it
no longer exists or is a zombie waiting to be reaped.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time

import pytest

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"),
                                reason="forked workers and PR_SET_PDEATHSIG: Linux only")

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as fh:
            return fh.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def _gone(pids: list[int], within: float = 5.0) -> bool:
    end = time.monotonic() + within
    while time.monotonic() < end:
        if not any(_alive(p) for p in pids):
            return True
        time.sleep(0.05)
    return False


def _pids(folder, n: int, within: float = 20.0) -> list[int]:
    """The pids written to ``folder/*.pid`` once ``n`` are there."""
    end = time.monotonic() + within
    while time.monotonic() < end:
        names = [f for f in os.listdir(folder) if f.endswith(".pid")]
        if len(names) >= n:
            time.sleep(0.05)  # the writes are complete
            return [int((folder / f).read_text()) for f in names]
        time.sleep(0.05)
    raise AssertionError(f"fewer than {n} processes started")


def _script(tmp_path, head: str, body: str) -> subprocess.Popen:
    env = dict(os.environ, PYTHONPATH=ROOT, DPVERIFY_WORKERS="2", PIDS=str(tmp_path))
    code = textwrap.dedent(head) + textwrap.dedent(body)
    return subprocess.Popen([sys.executable, "-c", code], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


_WRITE_PID_AND_WAIT = """
import os, time
def wait_here(*args):
    with open(os.path.join(os.environ["PIDS"], f"{os.getpid()}.pid"), "w") as fh:
        fh.write(str(os.getpid()))
    time.sleep(120)
    return []
"""


@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGTERM])
def test_workers_die_with_the_process_that_started_them(tmp_path, sig):
    proc = _script(tmp_path, _WRITE_PID_AND_WAIT, """
        from dpverify.exact import forked
        forked.PARALLEL_BITS = 0
        forked.in_spans(wait_here, 256, 1, None, "waiting")
    """)
    try:
        workers = _pids(tmp_path, 2)
        assert proc.pid not in workers
        proc.send_signal(sig)
        proc.wait(10)
        assert _gone(workers), "a worker outlived its process"
    finally:
        proc.kill()
        proc.wait()


def test_a_time_limit_kills_running_workers_at_once(tmp_path):
    """The budget's deadline ends the work: the workers are killed, not waited for (their
    task takes two minutes)."""
    proc = _script(tmp_path, _WRITE_PID_AND_WAIT, """
        import time
        from dpverify import budget
        from dpverify.errors import TimeLimitExceeded
        from dpverify.exact import forked
        from dpverify.progress import report
        forked.PARALLEL_BITS = 0
        t0 = time.monotonic()
        with budget.limits(timeout=2):
            try:
                forked.in_spans(wait_here, 256, 1, lambda *a: report(None, *a), "waiting")
            except TimeLimitExceeded:
                print("stopped after", round(time.monotonic() - t0, 1))
        time.sleep(30)  # the process lives on: its workers must not
    """)
    try:
        workers = _pids(tmp_path, 2)
        assert _gone(workers, 10), "workers ran on after the time limit"
        assert proc.poll() is None
    finally:
        proc.kill()
        out = proc.communicate()[0]
    assert "stopped after" in out


def test_a_background_result_never_asked_for_kills_its_worker(tmp_path):
    proc = _script(tmp_path, _WRITE_PID_AND_WAIT, """
        import gc, time
        from dpverify.exact import forked
        forked.PARALLEL_BITS = 0
        result, started = forked.in_background(wait_here, 1)
        assert started
        while not [f for f in os.listdir(os.environ["PIDS"]) if f.endswith(".pid")]:
            time.sleep(0.05)
        del result  # the caller stopped (an exception) before asking for the result
        gc.collect()
        print("dropped", flush=True)
        time.sleep(30)  # the process lives on: its worker must not
    """)
    try:
        worker = _pids(tmp_path, 1)
        assert proc.stdout is not None and proc.stdout.readline() == "dropped\n"
        assert _gone(worker), "the worker ran on"
    finally:
        proc.kill()
        proc.wait()


def test_workers_share_the_memory_budget(tmp_path):
    """Each worker may allocate (M - P) / N beyond its inherited data (RLIMIT_DATA); with
    less than MIN_SHARE each no worker starts; a worker out of its share (MemoryError)
    leaves its work to this process."""
    proc = _script(tmp_path, "", """
        import os, resource
        from dpverify import budget
        from dpverify.exact import forked
        forked.PARALLEL_BITS = 0
        PARENT = os.getpid()
        def limit(a, b):
            return [(resource.getrlimit(resource.RLIMIT_DATA)[0], forked._data_size(),
                     os.getpid())]
        def no_memory_in_a_worker(a, b):
            if os.getpid() != PARENT:
                raise MemoryError
            return list(range(a, b))
        here = forked._data_size()
        room = 600 * 2**20
        with budget.limits(max_memory=here + room):
            seen = forked.in_spans(limit, 2, 1, None, "x")
        assert all(pid != PARENT for _, _, pid in seen), seen
        for soft, size, _ in seen:
            # the data size at the start + room / 2 (a little more may be mapped since)
            assert size <= soft <= size + room // 2 + 2**20, (soft, size, room)
        with budget.limits(max_memory=here + forked.MIN_SHARE):  # too little for two
            assert forked.executor(2) is None
            assert forked.in_spans(limit, 1, 1, None, "x")[0][2] == PARENT
        assert forked.in_spans(no_memory_in_a_worker, 300, 1, None, "x") == list(range(300))
        print("ok")
    """)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 0 and out == "ok\n", err


_STALLING_VERIFY = """
import os, signal, sys, time
from dpverify.verify import check
def stall(st, ev, ck, out):
    with open(os.path.join(os.environ["PIDS"], f"{os.getpid()}.pid"), "w") as fh:
        fh.write(str(os.getpid()))
    time.sleep(120)  # one long computation: no deadline test runs
check.KINDS["supnorm-finite"] = stall
from dpverify.certify import certify
from dpverify.constructions.chebyshev import or_polynomial
cert = os.path.join(os.environ["PIDS"], "or.json")
with open(cert, "w") as fh:
    fh.write(certify(or_polynomial(5, "1/10")).to_json())
"""


@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGTERM, signal.SIGINT])
def test_the_program_leaves_no_process_behind(tmp_path, sig):
    """``dpverify verify`` as the program runs it (a child per command, a grandchild for
    the check): a signal to the program ends all three; Ctrl-C says so in one line,
    exit 130."""
    proc = _script(tmp_path, _STALLING_VERIFY, """
        from dpverify.cli import main
        sys.exit(main(["verify", cert, "--timeout", "100", "--no-progress"], isolate=True))
    """)
    try:
        checker = _pids(tmp_path, 1)
        assert proc.pid not in checker
        proc.send_signal(sig)
        out, err = proc.communicate(timeout=10)
        assert _gone(checker), "the check ran on after the program ended"
    finally:
        proc.kill()
        proc.wait()
    if sig == signal.SIGINT:
        assert proc.returncode == 130 and err == "dpverify verify: interrupted\n"
    else:
        assert proc.returncode == -sig and out == ""


def test_the_verify_deadline_names_the_users_timeout(tmp_path):
    """The check gets a share of --timeout (the rest prints the report); the report of a
    check stopped in one long computation names --timeout as given, not the share."""
    proc = _script(tmp_path, _STALLING_VERIFY, """
        from dpverify.cli import main
        sys.exit(main(["verify", cert, "--timeout", "2", "--no-progress"], isolate=True))
    """)
    t0 = time.monotonic()
    out, err = proc.communicate(timeout=30)
    elapsed = time.monotonic() - t0
    assert proc.returncode == 1, err
    assert "the time limit of 2 s was reached during one computation; the checking " \
        "process was stopped (raise --timeout)" in out
    assert "UNDECIDED: time limit" in out and err == ""
    assert elapsed < 2 * 1.05 + 1 + 5  # 5 s: two interpreter start-ups, a loaded machine
