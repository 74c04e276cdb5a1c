"""Backends of the release mechanisms: ``local`` (one process) and ``dask``.

Every statistic the mechanisms release is a **sum over rows**: wang2013 / jin Chebyshev
moment sums, thaler2012 support counts, alda2017 lattice sums.  Both backends read a data
source (:class:`~dpverify.mechanisms.data.DataSource`: a file, a directory, a glob; ``-``
for the local one) in blocks of rows, so a worker holds a few blocks whatever the size of
the data.

``local`` (:func:`stream_rows`): the blocks of every file in order; the next blocks are read
and parsed by a background thread (:func:`prefetched`) while this one is checked and summed,
so parsing a CSV overlaps the arithmetic.

``dask`` is a map-reduce:

1. the client lists the partitions (:meth:`~dpverify.mechanisms.data.DataSource.partitions`:
   one per CSV file, one per Parquet row group) and reads the width of the first one;
2. a task reads its partition block by block with the one data reader
   (:func:`~dpverify.mechanisms.data.partition_tables`), validates each block (width,
   domain, the query's own check -- errors name the file and the line or row) and sums its
   statistic with the same fast code as the local backend;
3. the per-partition results are combined by a tree of ``combine`` tasks (fan-in
   ``split_every``, depth ``ceil(log_split_every P)``), which also adds the row counts and
   the number of partitions covered;
4. the client checks that every partition was covered exactly once and returns the total.
   Noise is drawn afterwards, once, on the client, by the mechanism (exact samplers of
   :mod:`dpverify.noise`), exactly as the local backend does.

Failures: a bad partition raises :class:`~dpverify.errors.InvalidParameterError` in its
task; Dask re-raises it on the client and nothing is released.  A worker lost mid-run has
its tasks recomputed by the scheduler (every task is a pure function of its file, so the
result is the same); if a task kills workers repeatedly (``distributed``'s
``allowed-failures``) the run fails with :class:`~dpverify.errors.DPVerifyError`.  Partial
sums are never returned: the coverage check of step 4 refuses them.

Exactness: every statistic is an exact integer (support counts, clamped lattice sums, the
fixed-point moment sums of :mod:`dpverify.mechanisms.fixed_point`), so the total is the
same for any partitioning and any reduction tree -- the dask and local releases are
identical with the same seed.

Guarantee
---------
The returned total is the combination of the statistics of ALL partitions (each exactly
once), and ``n`` is the total number of rows; any validation error aborts the run.
"""

from __future__ import annotations

import logging
import os
import queue
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, TypeVar

import numpy as np

from ..errors import DPVerifyError, InvalidParameterError, MissingExtraError, ParameterTypeError
from .data import (
    DataSource,
    DataTable,
    DataValueError,
    Domain,
    Partition,
    as_source,
    partition_tables,
)
from .data_csv import check_rows

__all__ = [
    "BACKENDS",
    "Reduction",
    "add_statistics",
    "check_backend",
    "check_table",
    "dask_client",
    "first_bad_row",
    "prefetched",
    "reduce_rows",
    "stream_rows",
]

BACKENDS = ("local", "dask")
#: Default fan-in of the reduction tree.
SPLIT_EVERY = 8


def check_backend(backend: Any, scheduler: Any = None) -> str:
    """Validate ``backend`` (``"local"`` or ``"dask"``) and ``scheduler`` (``None``, an
    address string or a ``distributed.Client``; only with ``"dask"``)."""
    if backend not in BACKENDS:
        raise InvalidParameterError(f"backend must be one of {BACKENDS}, got {backend!r}")
    if scheduler is not None and backend != "dask":
        raise InvalidParameterError("scheduler applies only to backend 'dask'")
    if scheduler is not None and not isinstance(scheduler, str) \
            and type(scheduler).__name__ != "Client":
        raise ParameterTypeError(
            f"scheduler must be an address string or a distributed.Client, got "
            f"{type(scheduler).__name__}")
    return backend


@dataclass(frozen=True)
class Reduction:
    """The result of :func:`reduce_rows`: the total statistic, the number of rows ``n``,
    the data width, and how it was computed (for the release's certificate)."""

    value: Any
    n: int
    columns: int
    partitions: int
    files: int
    depth: int
    scheduler: str

    def info(self) -> dict[str, Any]:
        if self.scheduler == "local":
            return {"backend": "local", "files": self.files, "read": "streamed in blocks"}
        return {"backend": "dask", "partitions": self.partitions, "files": self.files,
                "reduction_fan_in": SPLIT_EVERY, "reduction_depth": self.depth,
                "scheduler": self.scheduler}


def add_statistics(a: Any, b: Any) -> Any:
    """Sum of two partition statistics: arrays and numbers add, lists add elementwise
    (Python ints stay exact), dicts add by key (support counts)."""
    if isinstance(a, dict):
        out = dict(a)
        for key, v in b.items():
            out[key] = out.get(key, 0) + v
        return out
    if isinstance(a, list):
        if len(a) != len(b):
            raise DPVerifyError("internal: partition statistics of different lengths")
        return [x + y for x, y in zip(a, b, strict=True)]
    return a + b


def first_bad_row(validate: Callable[[np.ndarray], None], X: np.ndarray) -> int:
    """First row ``i`` such that ``validate(X[:i + 1])`` fails (bisection on prefixes; a
    row-wise check fails on a prefix exactly when the prefix holds a bad row)."""
    lo, hi = 0, len(X)  # validate(X[:lo]) passes, validate(X[:hi]) fails
    while hi - lo > 1:
        mid = (lo + hi) // 2
        try:
            validate(X[:mid])
        except (InvalidParameterError, ParameterTypeError):
            hi = mid
        else:
            lo = mid
    return lo


def check_table(tab: DataTable, domain: Domain | None,
                validate: Callable[[np.ndarray], None] | None) -> None:
    """The domain check and the query's own row-wise check of one block of rows; an error
    names the file and the line or row (the failing row is found by bisection)."""
    if domain is not None:
        domain.check(tab)
    if validate is not None and tab.n_rows:
        try:
            validate(tab.values)
        except (InvalidParameterError, ParameterTypeError) as exc:
            i = first_bad_row(validate, tab.values)
            raise DataValueError(f"{tab.where(i)}: {exc}") from None


def _partition_statistic(part: Partition, columns: int, domain: Domain | None,
                         validate: Callable[[np.ndarray], None] | None,
                         statistic: Callable[[np.ndarray], Any]) -> tuple[Any, int, int]:
    """Map step: (statistic, rows, partitions covered = 1) of one partition, read block by
    block (a worker holds a few blocks, whatever the size of the file)."""
    value, rows = None, 0
    for tab in partition_tables(part):
        if tab.width != columns:
            raise DataValueError(
                f"{part.path!r}: {tab.width} columns, expected {columns} (as in the first "
                "partition)")
        check_table(tab, domain, validate)
        if tab.n_rows:
            v = statistic(tab.values)
            value = v if value is None else add_statistics(value, v)
            rows += tab.n_rows
    return value, rows, 1


def _combine(*parts: tuple[Any, int, int]) -> tuple[Any, int, int]:
    """Reduce step: add statistics, rows and partition counts (empty partitions skipped)."""
    value, rows, count = None, 0, 0
    for v, r, c in parts:
        if v is not None:
            value = v if value is None else add_statistics(value, v)
        rows += r
        count += c
    return value, rows, count


_T = TypeVar("_T")


def prefetched(items: Iterator[_T], depth: int = 2) -> Iterator[_T]:
    """``items`` produced by a background thread up to ``depth`` items ahead, so that
    reading and parsing the next block (file reads and pyarrow release the GIL) overlaps
    the work on this one.  Errors arrive in order; closing the result (or an exception in
    the consumer, e.g. a time limit) stops the thread, which closes ``items``."""
    q: queue.Queue[tuple[int, Any]] = queue.Queue(maxsize=depth)
    stop = threading.Event()

    def put(kind: int, item: Any) -> bool:
        while not stop.is_set():
            try:
                q.put((kind, item), timeout=0.05)
                return True
            except queue.Full:
                continue
        return False

    def run() -> None:
        try:
            for item in items:
                if not put(0, item):
                    return
            put(1, None)
        except BaseException as exc:  # handed to the consumer, raised there
            put(2, exc)
        finally:
            close = getattr(items, "close", None)
            if close is not None:
                close()

    th = threading.Thread(target=run, name="dpverify-read", daemon=True)
    th.start()
    try:
        while True:
            kind, item = q.get()
            if kind == 1:
                return
            if kind == 2:
                raise item
            yield item
    finally:
        stop.set()
        # the thread stops after the block it is reading (a file block: milliseconds); a
        # stream that sends nothing (standard input) is not waited for
        th.join(timeout=2.0)


def stream_rows(source: str | DataSource, *, domain: Domain | None = None,
                validate: Callable[[np.ndarray], None] | None = None,
                min_columns: int = 1, max_columns: int | None = None,
                prefetch: bool = True, progress: Any = None,
                stage: str = "reading rows") -> Iterator[DataTable]:
    """The rows of ``source`` block by block in this process (the local backend), each
    block checked (:func:`check_table`); the width of the data is checked first.  Memory:
    a few blocks (``prefetch``: the next ones are parsed by a background thread).
    ``progress``: ``(stage + " (bytes)", bytes read, total or None)`` after each block."""
    src = as_source(source)
    c = src.width
    if c < min_columns or (max_columns is not None and c > max_columns):
        hi = "" if max_columns is None else f" and at most {max_columns}"
        first = src.name if src.is_stdin else src.files[0]
        raise DataValueError(
            f"{first!r} has {c} columns; the data need at least {min_columns}{hi}")
    blocks = src.tables()
    for tab in prefetched(blocks) if prefetch else blocks:
        check_table(tab, domain, validate)
        yield tab
        if progress is not None:
            progress(f"{stage} (bytes)", src.bytes_done, src.total_bytes)


def _client(scheduler: Any) -> tuple[Any, Any, str]:
    """(client, cluster-or-None, description); an embedded LocalCluster without address."""
    try:
        from distributed import Client, LocalCluster  # optional extra: dask backend only
    except ImportError:
        raise MissingExtraError(
            'backend "dask" needs dask: pip install "dpverify[dask]"') from None
    if scheduler is not None and not isinstance(scheduler, str):
        return scheduler, None, "distributed.Client (caller's)"
    if scheduler is None:
        workers = max(1, min(os.cpu_count() or 1, 8))
        try:
            cluster = LocalCluster(n_workers=workers, threads_per_worker=1,
                                   dashboard_address=":0", silence_logs=logging.CRITICAL)
        except (RuntimeError, OSError) as exc:
            # e.g. worker processes cannot be spawned from an interactive __main__
            raise DPVerifyError(
                f"could not start an embedded Dask LocalCluster ({exc}); start a cluster "
                "and pass its address (scheduler) or a distributed.Client") from None
        return Client(cluster), cluster, f"embedded LocalCluster ({workers} workers)"
    try:
        client = Client(scheduler, timeout="20s")
    except (OSError, TimeoutError) as exc:
        raise InvalidParameterError(
            f"scheduler: cannot connect to {scheduler!r}: {exc}") from None
    return client, None, f"scheduler {scheduler}"


@contextmanager
def dask_client(scheduler: Any = None) -> Iterator[tuple[Any, str]]:
    """``(client, description)``: the caller's ``distributed.Client`` (``scheduler`` a
    Client; left open), one connected to ``scheduler`` (an address), or one on an embedded
    ``LocalCluster`` sized to the machine (``None``); the last two are closed on exit.
    ``MissingExtraError`` without the ``[dask]`` extra."""
    client, cluster, desc = _client(scheduler)
    try:
        yield client, desc
    finally:
        if cluster is not None:
            client.close()
            cluster.close()
        elif isinstance(scheduler, str):
            client.close()


def reduce_rows(
    source: str | DataSource,
    statistic: Callable[[np.ndarray], Any],
    *,
    domain: Domain | None = None,
    validate: Callable[[np.ndarray], None] | None = None,
    min_columns: int = 1,
    max_columns: int | None = None,
    scheduler: Any = None,
    split_every: int = SPLIT_EVERY,
    backend: str = "dask",
    progress: Any = None,
) -> Reduction:
    """Sum ``statistic`` over the rows of ``source`` (module docstring).

    Parameters
    ----------
    source : str or DataSource
        A CSV/Parquet file, a directory of them, or a glob pattern (``-``, standard input:
        local backend only), read under the source's size cap.
    statistic : callable ``(rows (r, c) float64) -> value``
        Statistic of a block of rows; values are combined by :func:`add_statistics`.  Must
        be picklable (a module-level function or a ``functools.partial`` of one) for a
        multi-process cluster.
    domain : Domain, optional -- value domain, checked per block (error names the row).
    validate : callable, optional -- a further row-wise check raising
        ``InvalidParameterError`` (the failing row is located by bisection and named).
    min_columns, max_columns : int -- accepted data width.
    scheduler : None, address string or ``distributed.Client`` (dask only)
        ``None`` starts an embedded ``LocalCluster`` sized to the machine.
    split_every : int -- fan-in of the reduction tree (>= 2).
    backend : ``"dask"`` (default) or ``"local"``: the blocks are read and summed in this
        process (:func:`stream_rows`), with the next block parsed in the background.
    progress : callable, optional (local) -- bytes read after each block.

    Guarantee
    ---------
    The result covers every partition (every block) exactly once (checked) or an error is
    raised; no partial result is ever returned.
    """
    if not callable(statistic):
        raise ParameterTypeError("statistic must be callable")
    if not isinstance(split_every, int) or split_every < 2:
        raise InvalidParameterError(f"split_every must be an integer >= 2, got {split_every!r}")
    backend = check_backend(backend, scheduler)
    src = as_source(source)
    if backend == "local":
        value, n = None, 0
        for tab in stream_rows(src, domain=domain, validate=validate,
                               min_columns=min_columns, max_columns=max_columns,
                               progress=progress):
            v = statistic(tab.values)
            value = v if value is None else add_statistics(value, v)
            n += tab.n_rows
        if n < 1 or value is None:
            raise DataValueError(f"{src.name!r} has no data rows")
        return Reduction(value, n, src.width, len(src.files), len(src.files), 0, "local")
    parts = src.partitions()
    c = src.width
    if c < min_columns or (max_columns is not None and c > max_columns):
        hi = "" if max_columns is None else f" and at most {max_columns}"
        raise DataValueError(
            f"{parts[0].path!r} has {c} columns; the data need at least {min_columns}{hi}")
    try:
        # optional dependency (the [dask] extra): imported when the dask backend runs
        import dask
    except ImportError:
        raise MissingExtraError(
            'backend "dask" needs dask: pip install "dpverify[dask]"') from None
    stat = dask.delayed(_partition_statistic, pure=True)
    level = [stat(p, c, domain, validate, statistic) for p in parts]
    depth = 0
    comb = dask.delayed(_combine, pure=True)
    while len(level) > 1:
        level = [comb(*level[i:i + split_every]) for i in range(0, len(level), split_every)]
        depth += 1
    with dask_client(scheduler) as (client, desc):
        # optional dependency (the [dask] extra): imported when the dask backend runs
        from distributed import KilledWorker

        try:
            value, n, count = client.compute(level[0]).result()
        except KilledWorker as exc:
            raise DPVerifyError(
                f"the Dask run failed: a task was lost with its worker too often ({exc}); "
                "nothing was released") from None
    if count != len(parts):
        raise DPVerifyError(
            f"internal: the reduction covered {count} of {len(parts)} partitions; nothing "
            "was released")
    if n < 1 or value is None:
        raise DataValueError(f"{src.name!r} has no data rows")
    # the size cap in rows over the whole source (each partition was capped alone)
    check_rows(int(n), c, src.max_bytes, src.name)
    files = len({p.path for p in parts})
    return Reduction(value, int(n), c, len(parts), files,
                     max(depth, 0) if len(parts) > 1 else 0, desc)
