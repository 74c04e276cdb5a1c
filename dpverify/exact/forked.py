"""Forked worker processes for long exact computations (decimal strings of huge integers,
the two halves of Sherstov's construction).

A computation is spread over processes only when it is long (``work_bits`` above
:data:`PARALLEL_BITS`), on Linux, from a process without other threads: workers are
*forked*, so they inherit their inputs (module-level state of the caller) instead of
receiving them pickled, and the caller's main module is never imported again.  The
number of workers is one per core the process may run on; the environment variable
``DPVERIFY_WORKERS`` (a positive integer) sets it, ``1`` turns workers off.  Whatever
happens to a worker -- it cannot be started, or it dies (out of memory) -- the work is
done in this process instead, so results never depend on the workers.

Guarantee
---------
None of its own: results are those of the functions run, in this process or a worker.
"""

from __future__ import annotations

import multiprocessing
import os
import sys
import threading
from collections.abc import Callable
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any, TypeVar

from ..errors import InvalidParameterError
from ..progress import ProgressCallback, report

__all__ = ["PARALLEL_BITS", "worker_count", "executor", "in_spans", "in_background"]

#: Work (in bits of the numbers handled) below which everything stays in this process.
PARALLEL_BITS = 1 << 27
#: Items per task of :func:`in_spans`.
_TASK = 64
#: True in a worker: its own work stays in it (no pools of pools)
_IN_WORKER = False
#: what can go wrong in starting or running a worker: the work is done here instead
_POOL_ERRORS = (BrokenProcessPool, OSError, AssertionError)

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
    """A pool of ``workers`` forked processes, or ``None`` where none can be started.
    Close it with ``shutdown(wait=False, cancel_futures=True)`` (an interrupt then drops
    what is queued)."""
    try:
        return ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("fork"),
                                   initializer=_mark_worker)
    except (OSError, ValueError):
        return None


def _mark_worker() -> None:
    global _IN_WORKER
    _IN_WORKER = True


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
            for part in pool.map(fn, [a for a, _ in spans], [b for _, b in spans]):
                out.extend(part)
                report(progress, stage, len(out), total)
        except _POOL_ERRORS:  # no worker, or one died: everything again, here
            out = []
            pool.shutdown(wait=False, cancel_futures=True)
        except BaseException:  # an interrupt or time limit drops the queued spans at once
            pool.shutdown(wait=False, cancel_futures=True)
            raise
        else:
            # idle workers: joined at once (a pool's threads left running would keep the
            # next long computation in this process)
            pool.shutdown(wait=True)
            return out
    for a, b in spans:
        out.extend(fn(a, b))
        report(progress, stage, len(out), total)
    return out


def in_background(fn: Callable[[], _T], work_bits: int) -> tuple[Callable[[], _T], bool]:
    """Start ``fn()`` in a worker when the work is long.  Returns ``(result, started)``:
    ``result()`` gives ``fn()``'s value (computed here, then, if no worker took it or the
    worker died); ``started`` says whether a worker took it (``fn`` may then report no
    progress of its own)."""
    pool = executor(1) if worker_count(work_bits) > 1 else None
    fut: Future[_T] | None = None
    if pool is not None:
        try:
            fut = pool.submit(fn)
        except _POOL_ERRORS:
            pool.shutdown(wait=False, cancel_futures=True)
            pool, fut = None, None

    def result() -> _T:
        if fut is None or pool is None:
            return fn()
        try:
            value = fut.result()
        except _POOL_ERRORS:
            pool.shutdown(wait=False, cancel_futures=True)
            return fn()
        except BaseException:
            pool.shutdown(wait=False, cancel_futures=True)
            raise
        pool.shutdown(wait=True)
        return value

    return result, fut is not None
