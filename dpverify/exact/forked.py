"""Forked worker processes for long exact computations (decimal strings of huge integers,
the two halves of Sherstov's construction).

A computation is spread over processes only when it is long (``work_bits`` above
:data:`PARALLEL_BITS`), on Linux, from a process without other threads: workers are
*forked*, so they inherit their inputs (module-level state of the caller) instead of
receiving them pickled, and the caller's main module is never imported again.  The
number of workers is one per core the process may run on; the environment variable
``DPVERIFY_WORKERS`` (a positive integer) sets it, ``1`` turns workers off.  Whatever
happens to a worker -- it cannot be started, it dies, or it runs out of its share of
memory -- the work is done in this process instead, so results never depend on the
workers.

Budgets (:mod:`dpverify.budget`).  Workers share the memory budget in force instead of
each inheriting all of it: a worker may allocate ``(M - P) / N`` bytes beyond what it
shares with this process (``RLIMIT_DATA``), ``M`` being the budget (or this process's own
data limit, when lower), ``P`` the data size of this process when the workers start and
``N`` their number; with less than :data:`MIN_SHARE` each, no worker is started.  So the
workers together allocate at most what this process alone could still have allocated.
A worker dies with this process (Linux ``PR_SET_PDEATHSIG``: a process killed at its
deadline, by ``kill -9`` or the kernel leaves no worker behind), and a time limit or an
interrupt in this process kills the workers at once (a running task is not waited for).

Guarantee
---------
None of its own: results are those of the functions run, in this process or a worker.
"""

from __future__ import annotations

import os
import signal
import sys
import threading
import weakref
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

from ..budget import checkpoint, die_with_parent, remaining
from ..budget import current as current_budget
from ..errors import InvalidParameterError
from ..progress import ProgressCallback, report

if TYPE_CHECKING:  # annotations only: a pool (multiprocessing, concurrent.futures: ~10 ms
    # at start-up) is imported only when one is started
    from concurrent.futures import Future, ProcessPoolExecutor

__all__ = ["PARALLEL_BITS", "MIN_SHARE", "worker_count", "executor", "in_spans",
           "in_background"]

#: Work (in bits of the numbers handled) below which everything stays in this process.
PARALLEL_BITS = 1 << 27
#: Items per task of :func:`in_spans`.
_TASK = 64
#: True in a worker: its own work stays in it (no pools of pools)
_IN_WORKER = False
#: Least memory (bytes) a worker may allocate; with less left in the budget, no workers.
MIN_SHARE = 1 << 26


def _pool_errors() -> tuple[type[BaseException], ...]:
    """What can go wrong in starting or running a worker (MemoryError: its share of the
    budget was too small): the work is then done here instead."""
    from concurrent.futures.process import BrokenProcessPool  # deferred: as executor()

    return (BrokenProcessPool, OSError, AssertionError, MemoryError)


_T = TypeVar("_T")


def worker_count(work_bits: int) -> int:
    """How many processes to use for ``work_bits`` of work (1: this one only).

    Raises ``InvalidParameterError`` for a ``DPVERIFY_WORKERS`` that is not a positive
    integer."""
    env = os.environ.get("DPVERIFY_WORKERS", "").strip()
    if env:
        if not env.isdigit() or int(env) < 1:
            raise InvalidParameterError(
                f"DPVERIFY_WORKERS must be a positive integer, got {env!r}")
        wanted = int(env)
    else:
        wanted = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else 1
    # fork only (inputs inherited, no re-import of the main module); forking a process
    # that runs other threads can deadlock the child
    if (wanted < 2 or work_bits < PARALLEL_BITS or sys.platform != "linux"
            or threading.active_count() > 1 or _IN_WORKER):
        return 1
    return min(wanted, 16)


def executor(workers: int) -> ProcessPoolExecutor | None:
    """A pool of ``workers`` forked processes sharing the memory budget (module
    docstring), or ``None`` where none can be started or the budget leaves less than
    :data:`MIN_SHARE` to each.  Close it with :func:`_close` (or, after an error,
    :func:`_stop`)."""
    share = _memory_share(workers)
    if share is None:
        return None
    # deferred: only a long computation starts a pool (start-up time of every command)
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    try:
        return ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("fork"),
                                   initializer=_start_worker, initargs=(os.getpid(), share))
    except (OSError, ValueError):
        return None


def _data_size() -> int | None:
    """``VmData`` of this process in bytes (what ``RLIMIT_DATA`` limits), or None."""
    try:
        with open("/proc/self/status", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("VmData:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return None


def _data_limit() -> int | None:
    """The soft ``RLIMIT_DATA`` of this process (None: none)."""
    try:
        import resource  # deferred: POSIX only; forked workers run on Linux only

        soft = resource.getrlimit(resource.RLIMIT_DATA)[0]
    except (ImportError, OSError, ValueError, AttributeError):
        return None
    return None if soft == resource.RLIM_INFINITY else int(soft)


def _memory_share(workers: int) -> int | None:
    """Bytes each of ``workers`` may allocate: ``(M - P) / workers`` (module docstring);
    None when that is below :data:`MIN_SHARE` or the data size is unknown."""
    size = _data_size()
    if size is None:
        return None
    budget = current_budget().max_memory
    hard = _data_limit()
    if hard is not None:
        budget = min(budget, hard)
    share = (budget - size) // workers
    return share if share >= MIN_SHARE else None


def _start_worker(parent: int, share: int) -> None:
    """A worker's first steps: no pools of pools, die with ``parent`` (a worker outliving
    a process killed at its deadline would compute on for nobody), allocate at most
    ``share`` bytes beyond its inherited data."""
    global _IN_WORKER
    _IN_WORKER = True
    die_with_parent(parent)
    size = _data_size()
    if size is None:
        return
    try:
        import resource  # deferred: as above

        soft, hard = resource.getrlimit(resource.RLIMIT_DATA)
        limit = size + share
        if soft != resource.RLIM_INFINITY:
            limit = min(limit, soft)
        resource.setrlimit(resource.RLIMIT_DATA, (limit, hard))
    except (ImportError, OSError, ValueError, AttributeError):
        pass


def _close(pool: ProcessPoolExecutor) -> None:
    """Shut an idle pool down and join its workers (a pool's threads left running would
    keep the next long computation in this process)."""
    pool.shutdown(wait=True)


def _stop(pool: ProcessPoolExecutor) -> None:
    """End a pool at once: queued tasks dropped, running workers killed (an interrupt or
    a time limit must not wait for a task of minutes)."""
    procs = list(getattr(pool, "_processes", None) or {})
    pool.shutdown(wait=False, cancel_futures=True)
    for pid in procs:
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass


def _wait(fut: Future[_T], what: str) -> _T:
    """``fut.result()``, testing the deadline of the budget in force meanwhile (a task of
    minutes must not hold the caller past its ``timeout``: no progress report comes while
    it runs)."""
    from concurrent.futures import TimeoutError as FuturesTimeout  # deferred: as executor()

    while True:
        left = remaining()
        try:
            return fut.result(timeout=None if left is None else max(left, 0.0) + 0.01)
        except FuturesTimeout:
            checkpoint(what)


def in_spans(fn: Callable[[int, int], list[Any]], total: int, work_bits: int,
             progress: ProgressCallback | None, stage: str) -> list[Any]:
    """``fn(a, b)`` over consecutive spans ``[a, b)`` of ``range(total)``, concatenated in
    order; in workers when the work is long.  ``fn`` is a module-level function reading
    its inputs from module state set by the caller.  ``progress(stage, done, total)``
    counts the items done."""
    spans = [(i, min(i + _TASK, total)) for i in range(0, total, _TASK)]
    out: list[Any] = []
    report(progress, stage, 0, total)
    workers = worker_count(work_bits) if total else 1
    pool = executor(workers) if workers > 1 else None
    if pool is not None:
        try:
            futures: list[Future[list[Any]]] = [pool.submit(fn, a, b) for a, b in spans]
            for fut in futures:
                part: list[Any] = _wait(fut, stage)
                out.extend(part)
                report(progress, stage, len(out), total)
        except _pool_errors():  # no worker, or one died: everything again, here
            out = []
            _stop(pool)
        except BaseException:  # an interrupt or time limit ends the workers at once
            _stop(pool)
            raise
        else:
            _close(pool)
            return out
    for a, b in spans:
        out.extend(fn(a, b))
        report(progress, stage, len(out), total)
    return out


def in_background(fn: Callable[[], _T], work_bits: int) -> tuple[Callable[[], _T], bool]:
    """Start ``fn()`` in a worker when the work is long.  Returns ``(result, started)``:
    ``result()`` gives ``fn()``'s value (computed here, then, if no worker took it or the
    worker died); ``started`` says whether a worker took it (``fn`` may then report no
    progress of its own).  A ``result`` dropped without being called (the caller stopped
    at a time limit) kills its worker."""
    pool = executor(1) if worker_count(work_bits) > 1 else None
    fut: Future[_T] | None = None
    if pool is not None:
        try:
            fut = pool.submit(fn)
        except _pool_errors():
            _stop(pool)
            pool, fut = None, None

    def result() -> _T:
        if fut is None or pool is None:
            return fn()
        dropped.detach()
        try:
            value = _wait(fut, "work in a worker process")
        except _pool_errors():
            _stop(pool)
            return fn()
        except BaseException:
            _stop(pool)
            raise
        _close(pool)
        return value

    dropped = weakref.finalize(result, _stop, pool) if pool is not None else \
        weakref.finalize(result, lambda: None)
    return result, fut is not None
