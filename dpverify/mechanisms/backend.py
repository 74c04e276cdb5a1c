"""Backends of the release mechanisms: ``local`` (numpy, one process) and ``dask``.

Every statistic the mechanisms release is a **sum over rows**: wang2013 / jin Chebyshev
moment sums, thaler2012 support counts, alda2017 lattice sums.  The ``dask`` backend is a
map-reduce:

1. the client lists the partitions (:func:`dpverify.mechanisms.data.list_partitions`: one
   per CSV file, one per Parquet row group; a file, a directory or a glob) and reads the
   width of the first one;
2. each partition is a partition of a ``dask.dataframe`` (``dd.from_map``) read by the one
   data reader :mod:`dpverify.mechanisms.data` (pyarrow); a task validates it (width,
   domain, the query's own check -- errors name the file and the line or row) and computes
   its statistic with the same fast code as the local backend;
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

Exactness: integer statistics (support counts, clamped lattice sums) are exact for any tree;
the float moment sums have the a-priori error bound of
:func:`dpverify.mechanisms.wang_summary.summary_grid`, which holds for any summation order
and hence for any reduction tree.

Guarantee
---------
The returned total is the combination of the statistics of ALL partitions (each exactly
once), and ``n`` is the total number of rows; any validation error aborts the run.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from functools import partial
from typing import Any

import numpy as np

from ..errors import DPVerifyError, InvalidParameterError, MissingExtraError, ParameterTypeError
from .data import (
    DataTable,
    Domain,
    Partition,
    list_partitions,
    read_partition,
    source_width,
)

__all__ = [
    "BACKENDS",
    "Reduction",
    "add_statistics",
    "check_backend",
    "dask_client",
    "first_bad_row",
    "reduce_rows",
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


def _frame(part: Partition, columns: int) -> Any:
    """Partition -> pandas DataFrame (dask.dataframe's unit); reads with the data reader
    and checks the width, so the error names this partition's file."""
    # dask.dataframe's partition type (installed with the dask extra; stubs optional)
    import pandas as pd  # type: ignore[import-untyped, unused-ignore]

    tab = read_partition(part)
    if tab.values.shape[1] != columns:
        raise InvalidParameterError(
            f"{part.path!r}: {tab.values.shape[1]} columns, expected {columns} (as in the "
            "first partition)")
    df = pd.DataFrame(tab.values, columns=[f"c{j}" for j in range(columns)], copy=False)
    df.attrs["table"] = (tab.path, tab.kind, tab.first_line, tab.lines, tab.row_offset,
                         tab.header)
    return df


def _statistic(df: Any, part: Partition, domain: Domain | None,
               validate: Callable[[np.ndarray], None] | None,
               statistic: Callable[[np.ndarray], Any]) -> tuple[Any, int, int]:
    """Map step: (statistic, rows, partitions covered = 1) of one partition."""
    path, kind, first_line, lines, row_offset, header = df.attrs["table"]
    X = np.ascontiguousarray(df.to_numpy(dtype=np.float64))
    tab = DataTable(X, path, header, kind, first_line=first_line, lines=lines,
                    row_offset=row_offset)
    if domain is not None:
        domain.check(tab)
    if validate is not None and len(X):
        try:
            validate(X)
        except (InvalidParameterError, ParameterTypeError) as exc:
            i = first_bad_row(validate, X)
            raise InvalidParameterError(f"{tab.where(i)}: {exc}") from None
    if not len(X):
        return None, 0, 1
    return statistic(X), len(X), 1


def _combine(*parts: tuple[Any, int, int]) -> tuple[Any, int, int]:
    """Reduce step: add statistics, rows and partition counts (empty partitions skipped)."""
    value, rows, count = None, 0, 0
    for v, r, c in parts:
        if v is not None:
            value = v if value is None else add_statistics(value, v)
        rows += r
        count += c
    return value, rows, count


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
    source: str,
    statistic: Callable[[np.ndarray], Any],
    *,
    domain: Domain | None = None,
    validate: Callable[[np.ndarray], None] | None = None,
    min_columns: int = 1,
    max_columns: int | None = None,
    scheduler: Any = None,
    split_every: int = SPLIT_EVERY,
) -> Reduction:
    """Sum ``statistic`` over the partitions of ``source`` on Dask (module docstring).

    Parameters
    ----------
    source : str
        A CSV/Parquet file, a directory of them, or a glob pattern.
    statistic : callable ``(rows (r, c) float64) -> value``
        Per-partition statistic; values are combined by :func:`add_statistics`.  Must be
        picklable (a module-level function or a ``functools.partial`` of one) for a
        multi-process cluster.
    domain : Domain, optional -- value domain, checked per partition (error names the row).
    validate : callable, optional -- a further row-wise check raising
        ``InvalidParameterError`` (the failing row is located by bisection and named).
    min_columns, max_columns : int -- accepted data width.
    scheduler : None, address string or ``distributed.Client``
        ``None`` starts an embedded ``LocalCluster`` sized to the machine.
    split_every : int -- fan-in of the reduction tree (>= 2).

    Guarantee
    ---------
    The result covers every partition exactly once (checked) or an error is raised; no
    partial result is ever returned.
    """
    if not callable(statistic):
        raise ParameterTypeError("statistic must be callable")
    if not isinstance(split_every, int) or split_every < 2:
        raise InvalidParameterError(f"split_every must be an integer >= 2, got {split_every!r}")
    parts = list_partitions(source)
    c = source_width(source)
    if c < min_columns or (max_columns is not None and c > max_columns):
        hi = "" if max_columns is None else f" and at most {max_columns}"
        raise InvalidParameterError(
            f"{parts[0].path!r} has {c} columns; the data need at least {min_columns}{hi}")
    try:
        # optional dependency (the [dask] extra): imported when the dask backend runs
        import dask
        import dask.dataframe as dd  # optional extra: dask backend only
        import pandas as pd
    except ImportError:
        raise MissingExtraError(
            'backend "dask" needs dask: pip install "dpverify[dask]"') from None
    meta = pd.DataFrame({f"c{j}": pd.Series(dtype="float64") for j in range(c)})
    ddf = dd.from_map(partial(_frame, columns=c), parts, meta=meta, enforce_metadata=False,
                      label="dpverify-read")
    frames = ddf.to_delayed(optimize_graph=False)
    if len(frames) != len(parts):
        raise DPVerifyError("internal: dask.dataframe changed the partitioning")
    stat = dask.delayed(_statistic, pure=True)
    level = [stat(f, p, domain, validate, statistic) for f, p in zip(frames, parts,
                                                                        strict=True)]
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
        raise InvalidParameterError(f"{source!r} has no data rows")
    files = len({p.path for p in parts})
    return Reduction(value, int(n), c, len(parts), files,
                     max(depth, 0) if len(parts) > 1 else 0, desc)

