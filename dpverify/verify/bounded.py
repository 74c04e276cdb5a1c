"""One verification under a hard deadline and memory budget: a forked child process.

Python cannot interrupt a FLINT call (a signal handler runs between bytecodes), so the
cooperative deadline of :meth:`report.Checks.tick` cannot stop one long product, Taylor
shift or composition; and an allocation FLINT cannot satisfy aborts the whole process.
When a deadline is given and ``os.fork`` exists, :func:`run_bounded` therefore runs the
verification in a forked child:

* the child limits its address space (``RLIMIT_AS``) to its size at the fork plus the
  memory budget, runs the job and sends back every check as it is made, the progress
  reports (throttled) and the final :class:`~report.Report` -- pickled, length-prefixed
  frames on a pipe (parent and child are the same program);
* the parent forwards the progress reports to its own callback and waits until the
  deadline plus a grace of 5 % + 0.5 s; then it kills the child (SIGKILL) and reports
  "undecided: time limit" with the statement and the checks received so far;
* a child that dies (SIGABRT from FLINT's failed allocation, SIGKILL from the kernel's
  out-of-memory killer) gives "undecided" naming the memory budget; ``Malformed`` raised
  in the child is raised again in the parent.

So a call with ``deadline_seconds = T`` returns within ``1.05 T + 0.5`` seconds plus the
time to fork and reap a process, whatever the certificate holds.  Without ``os.fork``
(Windows) the job runs in the calling process, with the cooperative deadline and the
budget estimates of :meth:`report.Checks.afford` only.
"""

from __future__ import annotations

import os
import pickle
import select
import signal
import struct
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

from .report import (
    Malformed,
    Progress,
    Report,
    Said,
    one_line,
    progress_callback,
    reporting,
    streaming,
)

__all__ = ["GRACE_FRACTION", "GRACE_SECONDS", "available", "hard_limit", "deadline_within",
           "run_bounded", "limit_named"]

GRACE_FRACTION = 0.05
GRACE_SECONDS = 0.5
#: seconds between two progress reports forwarded by the child (stage changes and final
#: reports always go through)
_PROGRESS_INTERVAL = 0.1
_HEADER = struct.Struct(">Q")


#: how the caller's time limit is named in the report of a stopped child: (the limit as
#: the user gave it, the option that sets it); None: ``deadline_seconds`` itself
_LIMIT: ContextVar[tuple[str, str] | None] = ContextVar("dpverify_verify_limit", default=None)


@contextmanager
def limit_named(seconds: str, option: str) -> Iterator[None]:
    """Within the block, a child stopped at its deadline is reported as reaching the time
    limit ``seconds`` set by ``option`` (e.g. ``"30"``, ``"--timeout"``): a command line
    gives the check a share of its ``--timeout`` (the rest prints the report), and the
    user should read the limit they set, not the share."""
    token = _LIMIT.set((seconds, option))
    try:
        yield
    finally:
        _LIMIT.reset(token)


def _stopped(deadline_seconds: float) -> str:
    named = _LIMIT.get()
    if named is None:
        return (f"the deadline of {deadline_seconds:.6g} s passed during one computation; "
                "the checking process was stopped (raise with deadline_seconds)")
    return (f"the time limit of {named[0]} s was reached during one computation; the "
            f"checking process was stopped (raise {named[1]})")


def available() -> bool:
    """Whether verifications can run in a child process here (``os.fork`` exists)."""
    return hasattr(os, "fork")


def hard_limit(deadline_seconds: float) -> float:
    """Seconds after the start at which the parent kills the child."""
    return deadline_seconds * (1 + GRACE_FRACTION) + GRACE_SECONDS


def deadline_within(total_seconds: float) -> float:
    """The ``deadline_seconds`` whose hard limit is ``total_seconds`` (0 if none is)."""
    return max(0.0, (total_seconds - GRACE_SECONDS) / (1 + GRACE_FRACTION))


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


def _limit_memory(budget: int) -> None:
    """RLIMIT_AS := the current address-space size + ``budget`` (where the platform has it)."""
    try:
        import resource  # deferred: POSIX only, and only the child needs it

        with open("/proc/self/statm", encoding="ascii") as fh:
            size = int(fh.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
        limit = size + budget
        _, hard = resource.getrlimit(resource.RLIMIT_AS)
        if hard != resource.RLIM_INFINITY:
            limit = min(limit, hard)
        resource.setrlimit(resource.RLIMIT_AS, (limit, hard))
    except (ImportError, OSError, ValueError, OverflowError, AttributeError):
        pass  # no /proc or no RLIMIT_AS: the budget estimates still apply


def _die_with(parent: int) -> None:
    """Linux: the kernel kills this child when ``parent`` dies (``PR_SET_PDEATHSIG``), so
    that a caller killed by a signal -- ``kill -9``, the ``dpverify`` program's own
    deadline, Ctrl-C -- leaves no check running for nobody.  (The same few lines as the
    command line's isolation: the verifier imports nothing else of dpverify.)"""
    if not sys.platform.startswith("linux"):
        return
    try:
        import ctypes  # deferred: only the child needs it

        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)
    except (OSError, AttributeError):
        return
    if os.getppid() != parent:  # the parent died before prctl took effect
        os._exit(1)


def _quiet() -> None:
    """The child says everything through the pipe: its stderr goes to /dev/null, so that
    FLINT's message before an abort, or a fault handler's dump, never reaches the user
    (the parent reports a dead child in one line)."""
    import faulthandler  # deferred: only the child needs it

    faulthandler.disable()
    try:
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, 2)
        os.close(null)
    except OSError:
        pass


class _Child:
    """The child's side of the pipe: frames out, progress throttled."""

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self.last: tuple[str, float] | None = None

    def send(self, msg: tuple[Any, ...]) -> None:
        data = pickle.dumps(msg, protocol=pickle.HIGHEST_PROTOCOL)
        _write_all(self.fd, _HEADER.pack(len(data)) + data)

    def check(self, kind: str, lines: list[str], item: tuple[str, bool | None, str] | None
              ) -> None:
        self.send(("check", kind, [Said(s, getattr(s, "short", None)) for s in lines], item))

    def progress(self, stage: str, done: int, total: int | None) -> None:
        now = time.monotonic()
        if self.last is not None and self.last[0] == stage and now - self.last[1] < \
                _PROGRESS_INTERVAL and not (total is not None and done >= total):
            return
        self.last = (stage, now)
        self.send(("progress", stage, done, total))


def _run_child(fd: int, job: Callable[[], Report], max_memory: int,
               forward_progress: bool, parent: int) -> None:
    child = _Child(fd)
    try:
        _die_with(parent)
        _quiet()
        _limit_memory(max_memory)
        with streaming(child.check), reporting(child.progress if forward_progress else None):
            rep = job()
        child.send(("done", rep))
    except Malformed as exc:
        child.send(("malformed", str(exc)))
    except KeyboardInterrupt:
        pass
    except MemoryError:
        child.send(("died", "out of memory"))
    except BaseException as exc:  # the parent reports it; never a traceback
        child.send(("error", one_line(f"{type(exc).__name__}: {exc}")))


class _Parent:
    """What the parent received so far."""

    def __init__(self, progress: Progress | None) -> None:
        self.progress = progress
        self.kind: str | None = None
        self.lines: list[str] = []
        self.checks: list[tuple[str, bool | None, str]] = []
        self.final: tuple[Any, ...] | None = None
        self.buf = bytearray()

    def feed(self, chunk: bytes) -> None:
        self.buf += chunk
        while len(self.buf) >= _HEADER.size:
            (n,) = _HEADER.unpack_from(self.buf)
            if len(self.buf) < _HEADER.size + n:
                return
            msg = pickle.loads(bytes(self.buf[_HEADER.size:_HEADER.size + n]))
            del self.buf[:_HEADER.size + n]
            if msg[0] == "check":
                self.kind = msg[1]
                self.lines += msg[2]
                if msg[3] is not None:
                    self.checks.append(msg[3])
            elif msg[0] == "progress":
                if self.progress is not None:
                    self.progress(msg[1], msg[2], msg[3])
            else:
                self.final = msg

    def partial(self, kind: str, name: str, detail: str) -> Report:
        """The report made of what the child said before it stopped, and ``name``."""
        return Report("fails" if any(c[1] is False for c in self.checks) else "undecided",
                      self.kind or kind, self.lines, self.checks + [(name, None, detail)], [])


def run_bounded(job: Callable[[], Report], deadline_seconds: float, max_memory: int,
                kind: str = "?") -> Report:
    """``job()`` in a forked child, killed ``hard_limit(deadline_seconds)`` seconds from now
    (module docstring); ``kind`` names the certificate's kind in a report made without the
    child's help.  Raises Malformed when the job does."""
    progress = progress_callback()
    start = time.monotonic()
    rfd, wfd = os.pipe()
    parent = os.getpid()
    pid = os.fork()
    if pid == 0:  # the child: never returns into the caller's code
        try:
            os.close(rfd)
            _run_child(wfd, job, max_memory, progress is not None, parent)
        finally:
            os._exit(0)
    os.close(wfd)
    got = _Parent(progress)
    alive = True
    try:
        stop = start + hard_limit(deadline_seconds)
        while True:
            left = stop - time.monotonic()
            if left <= 0 or not select.select([rfd], [], [], min(left, 1e6))[0]:
                if time.monotonic() < stop:
                    continue
                os.kill(pid, signal.SIGKILL)
                os.waitpid(pid, 0)
                alive = False
                return got.partial(kind, "time limit", _stopped(deadline_seconds))
            chunk = os.read(rfd, 1 << 20)
            if not chunk:
                break
            got.feed(chunk)
        _, status = os.waitpid(pid, 0)
        alive = False
    finally:
        if alive:  # interrupted (Ctrl-C, the CLI's alarm): the child must not outlive us
            try:
                os.kill(pid, signal.SIGKILL)
                os.waitpid(pid, 0)
            except OSError:
                pass
        os.close(rfd)
    final = got.final
    if final is not None and final[0] == "done":
        rep: Report = final[1]
        return rep
    if final is not None and final[0] == "malformed":
        raise Malformed(final[1])
    if final is not None and final[0] == "error":
        return got.partial(kind, "internal error", final[1])
    sig = os.WTERMSIG(status) if os.WIFSIGNALED(status) else None
    if final is not None or sig in (signal.SIGABRT, signal.SIGKILL):
        # MemoryError in Python; SIGABRT: FLINT's failed allocation; SIGKILL: the kernel
        how = "MemoryError" if final is not None or sig is None else signal.Signals(sig).name
        return got.partial(kind, "memory budget", (
            f"the checking process ran out of memory ({how}; budget "
            f"{max_memory / 2**30:.3g} GiB; raise with --max-memory or max_memory)"))
    how = f"signal {signal.Signals(sig).name}" if sig is not None else \
        f"exit status {os.WEXITSTATUS(status)}"
    return got.partial(kind, "internal error", f"the checking process died ({how})")
