"""Backends of a check: the tasks in this process, or spread over a Dask cluster.

Both run :func:`dpverify.testing.run.run_task` on the same tasks and merge the same
:class:`~dpverify.testing.run.Tally` objects (the merge is commutative and associative: it
keeps the largest errors, ties broken by the input, and sums counts), so the report does
not depend on the backend nor on the order in which tasks finish.  A long run records each
merged task (``on_done``: the state file of :mod:`dpverify.testing.state`) and resumes by
skipping the tasks done.  ``backend="dask"`` needs the ``dask`` extra (``pip install
"dpverify[dask]"``); without ``scheduler`` it starts an embedded ``LocalCluster`` sized to
the machine, with an address it connects to that cluster, and with a
``distributed.Client`` it uses the caller's client.  The implementation and the reference
are pickled (cloudpickle: lambdas and closures travel) with the tasks.
"""

from __future__ import annotations

import multiprocessing
import os
from collections.abc import Callable
from typing import Any

from ..budget import checkpoint
from .points import Task
from .run import Setup, Tally, run_task

__all__ = ["check_backend", "run_tasks", "default_workers"]


def default_workers() -> int:
    """The cores this process may use (the local backend of an exhaustive check)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:   # pragma: no cover - not Linux
        return max(1, os.cpu_count() or 1)


def _can_fork() -> bool:
    return "fork" in multiprocessing.get_all_start_methods()


#: the setup of the running forked check: inherited by the forked workers (no pickling of
#: the implementation, which may be a lambda or a ctypes function)
_FORKED: list[Any] = []


def _forked_task(args: tuple[int, Task]) -> tuple[int, Tally]:
    k, task = args
    return k, run_task(task, _FORKED[0])


def _forked(tasks: list[Task], todo: list[int], setup: Setup, workers: int, total: Tally,
            done: int, progress: Progress | None, stage: str,
            on_done: Callable[[int, Tally], None] | None) -> Tally:
    """The tasks in ``workers`` processes forked from this one (Linux): each inherits the
    setup, runs tasks and returns their tallies, merged here as they come (any order: the
    merge does not depend on it)."""
    _FORKED[:] = [setup]
    ctx = multiprocessing.get_context("fork")
    try:
        with ctx.Pool(min(workers, len(todo))) as pool:
            for k, tally in pool.imap_unordered(_forked_task,
                                                [(k, tasks[k]) for k in todo]):
                total, done = _merged(total, tally, k, done, len(tasks), on_done, progress,
                                      stage)
    finally:
        _FORKED.clear()
    return total

def check_backend(backend: Any, scheduler: Any) -> str:
    """Validate ``backend`` (``"local"`` or ``"dask"``) and ``scheduler`` (an address
    string or a ``distributed.Client``, only with ``"dask"``): the release backends'
    rule (:func:`dpverify.mechanisms.backend.check_backend`)."""
    if backend == "local" and scheduler is None:
        return "local"
    # deferred: the mechanisms package costs ~0.2 s to import, the local default skips it
    from ..mechanisms.backend import check_backend as check

    return str(check(backend, scheduler))


Progress = Callable[[str, int, int], None]


def run_tasks(tasks: list[Task], setup: Setup, backend: str, scheduler: Any,
              progress: Progress | None, stage: str, *, start: Tally | None = None,
              skip: set[int] | None = None,
              on_done: Callable[[int, Tally], None] | None = None,
              workers: int = 1) -> Tally:
    """Run ``tasks`` and merge their tallies (module docstring).  ``start`` is the tally of
    the tasks in ``skip`` (done before: a resumed run); ``on_done(k, total)`` is called
    after task ``k`` is merged (a state file records it).  ``workers > 1`` runs the local
    backend in that many forked processes (:func:`_forked`)."""
    __tracebackhide__ = True   # pytest: a failure is the caller's, not ours
    total = start if start is not None else Tally(first_n=setup.first)
    skip = skip or set()
    todo = [k for k in range(len(tasks)) if k not in skip]
    done = len(tasks) - len(todo)
    if not todo:
        return total
    if backend == "local" and workers > 1 and len(todo) > 1 and _can_fork():
        return _forked(tasks, todo, setup, workers, total, done, progress, stage, on_done)
    if backend == "local":
        for k in todo:
            total, done = _merged(total, run_task(tasks[k], setup), k, done, len(tasks),
                                  on_done, progress, stage)
        return total
    # deferred: the dask extra is optional and loads ~1 s of modules
    from ..mechanisms.backend import dask_client

    with dask_client(scheduler) as (client, _desc):
        # the setup (implementation, reference) travels with the tasks: a scattered copy
        # can be lost with its worker, and it is small
        futures = client.map(run_task, [tasks[k] for k in todo], setup=setup, pure=False)
        from distributed import as_completed  # deferred with dask_client (optional extra)

        order = {fut.key: k for k, fut in zip(todo, futures)}
        for fut in as_completed(futures):
            # tallies merge in any order to the same result (Tally.merge sorts by input)
            total, done = _merged(total, fut.result(), order[fut.key], done, len(tasks),
                                  on_done, progress, stage)
    return total


def _merged(total: Tally, tally: Tally, k: int, done: int, n: int,
            on_done: Callable[[int, Tally], None] | None, progress: Progress | None,
            stage: str) -> tuple[Tally, int]:
    """Merge task ``k``'s tally, record it (``on_done``), report progress."""
    total = total.merge(tally)
    if on_done is not None:
        on_done(k, total)
    # also the deadline of a budget.limits() around the check
    checkpoint(stage)
    if progress is not None:
        progress(stage, done + 1, n)
    return total, done + 1
