"""Chebyshev moment sums of rows in ``[-1, 1]^d``: the statistic of wang2013 Algorithm 1.

``S[m_1, ..., m_d] = sum_x prod_i T_{m_i}(x_i)`` for ``m_i < t`` (``T_m(x) = cos(m arccos
x)``, DESIGN.md).  ``T_0..T_{t-1}`` come from the three-term recurrence ``T_{m+1} = 2 x T_m -
T_{m-1}``, computed in place on contiguous table rows; the tensor is one GEMM per chunk of
rows: the Khatri-Rao product of the tables of axes ``1..d-1`` times the table of axis ``d``
(d = 1: products of half the table, :meth:`MomentAccumulator._chunk_1d`).

Streaming: :class:`MomentAccumulator` takes the rows in pieces of any length and processes
them in chunks of a fixed number of rows, in order, so the result does not depend on how
the rows were cut -- a file read block by block (:func:`source_moment_sums`) gives the very
floats of one :func:`moment_sums` call on all its rows.  The float error of the sums is
proven in :func:`dpverify.mechanisms.wang_summary.summary_grid` (any summation order).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import numpy as np

from ..errors import InvalidParameterError
from ..numbers import IntLike, check_int
from .backend import Reduction, stream_rows
from .data import CUBE, DataSource, DataValueError, as_source, is_parquet

__all__ = [
    "CHUNK_BYTES",
    "MAX_CHUNK_ROWS",
    "MAX_MOMENTS",
    "MomentAccumulator",
    "chebyshev_moments",
    "chebyshev_table",
    "check_data",
    "checked_moment_sums",
    "chunk_rows",
    "moment_sums",
    "source_moment_sums",
]

#: Largest number of moments t^d released.
MAX_MOMENTS = 200_000


def chebyshev_table(x: Any, t: int) -> np.ndarray:
    """``T[i, m] = T_m(x_i)`` for ``m < t`` by the three-term recurrence (float64)."""
    x = np.asarray(x, dtype=np.float64)
    T = np.empty((x.size, t))
    T[:, 0] = 1.0
    if t > 1:
        T[:, 1] = x
    for m in range(2, t):
        T[:, m] = 2.0 * x * T[:, m - 1] - T[:, m - 2]
    return T


#: Default bound (bytes) on the working memory of one chunk of rows in
#: :func:`moment_sums`: the ``d`` tables ``(t, rows)``, a ``2 x`` row and the Khatri-Rao
#: blocks ``(t^(d-1), rows)`` (and ``(t^(d-2), rows)`` for d = 4).  8 MiB keeps a chunk in
#: the last-level cache (measured fastest); the peak memory of a release is this plus the
#: data block and ``t^d`` accumulators, for any n.
CHUNK_BYTES = 2**23


def _table_rows(x: np.ndarray, rows: list[np.ndarray], x2: np.ndarray) -> None:
    """``rows[m][i] = T_m(x_i)`` for ``m >= 1`` (``rows``: the ``t`` contiguous rows of a
    ``(t, r)`` table whose row 0 already holds ones: the recurrence streams along memory
    instead of striding down the columns).  ``x`` may be a strided column of the data (read
    once, into ``rows[1]``); ``x2`` is an ``(r,)`` buffer for ``2 x`` (exact).  In place:
    no temporary; the row views are made once per chunk shape (Python overhead)."""
    mul, sub = np.multiply, np.subtract
    if len(rows) > 1:
        rows[1][...] = x
        mul(rows[1], 2.0, x2)
    for m in range(2, len(rows)):
        mul(x2, rows[m - 1], rows[m])
        sub(rows[m], rows[m - 2], rows[m])


#: Longest table row (rows per chunk) by default: the recurrence keeps three rows of this
#: length in the per-core L2 cache (measured: d = 1 is ~10% faster than with 32768).
MAX_CHUNK_ROWS = 16384

#: d = 1: at most 8192 rows per chunk, so that each ``numpy.dot`` stays below OpenBLAS's
#: 10,000-element threshold for a multi-threaded ``ddot`` (measured on 2 cores: 16384 rows,
#: thread start-up on every dot, is 2.7x slower).
_MAX_CHUNK_ROWS_1D = 8192


def _half(t: int) -> int:
    """Highest table row of the d = 1 product form: ``T_0 .. T_h`` reach every ``k < t``
    as ``k = 2m`` or ``2m + 1`` with ``m + 1 <= h`` (``h = ceil((t - 1) / 2)``)."""
    return t // 2


def chunk_rows(t: int, d: int, chunk_bytes: int = CHUNK_BYTES) -> int:
    """Rows per chunk so that the working memory of :func:`moment_sums` -- the ``d``
    tables ``(t, rows)``, the ``2 x`` buffer and the Khatri-Rao blocks; for d = 1 the
    table ``T_0 .. T_{t // 2}`` and the ``2 x`` buffer -- takes at most ``chunk_bytes`` (at
    least 64 rows, at most :data:`MAX_CHUNK_ROWS`; 8192 for d = 1)."""
    if d == 1:
        per_row = 8 * (_half(t) + 2)
        return max(64, min(_MAX_CHUNK_ROWS_1D, int(chunk_bytes) // per_row))
    per_row = 8 * (d * t + 1 + (t ** (d - 1) if d > 2 else 0)
                   + (t ** (d - 2) if d > 3 else 0))
    return max(64, min(MAX_CHUNK_ROWS, int(chunk_bytes) // per_row))


class MomentAccumulator:
    """:func:`moment_sums` of rows given in pieces: ``add`` any number of ``(r, d)`` float64
    pieces (already checked to lie in ``[-1, 1]``), then ``result()``.

    The rows are processed in chunks of exactly ``rows`` rows in order (the last chunk
    shorter; rows left over from a piece wait in a carry buffer), so the result is the
    same float64 tensor whatever the pieces -- in particular that of one call on all the
    rows.  Memory: the chunk buffers (:func:`chunk_rows`), the carry and two ``t^d``
    arrays.  ``progress``: ``(stage, rows done, total or None)`` once per chunk."""

    def __init__(self, t: int, d: int, rows: int, *, total: int | None = None,
                 progress: Any = None) -> None:
        if t**d > MAX_MOMENTS:
            raise InvalidParameterError(f"t^d = {t**d} moments exceed {MAX_MOMENTS}")
        self.t, self.d, self.R = t, d, rows
        self.n = 0
        self._total, self._progress = total, progress
        self._carry = np.empty((rows, d))
        self._k = 0  # rows waiting in the carry
        self._shape_r = -1  # chunk length the table views were made for
        self._x2_buf = np.empty(rows)
        if d == 1:
            h = _half(t)
            self._sq = np.zeros(h + 1)  # sq[m] = sum T_m^2
            self._cr = np.zeros(h)  # cr[m] = sum T_m T_{m+1}; cr[0] = sum x
            self._tab_buf = np.empty((h + 1) * rows)
        else:
            self._acc = np.zeros((t ** (d - 1), t))
            self._tab_buf = np.empty(d * t * rows)
            # Khatri-Rao buffers: the last product (t^(d-1) rows) and, for d = 4, the one
            # before
            self._kr_bufs = [np.empty(t ** (d - 1 - i) * rows) for i in range(d - 2)]

    def add(self, X: np.ndarray) -> None:
        """Feed rows (an ``(r, d)`` float64 array; a view is fine)."""
        R, r, i = self.R, X.shape[0], 0
        if self._k:
            take = min(R - self._k, r)
            self._carry[self._k:self._k + take] = X[:take]
            self._k += take
            i = take
            if self._k == R:
                self._chunk(self._carry)
                self._k = 0
        while r - i >= R:
            self._chunk(X[i:i + R])
            i += R
        if i < r:
            self._carry[:r - i] = X[i:]
            self._k = r - i

    def result(self) -> np.ndarray:
        """The moment sums of every row fed (the shape ``(t,) * d``)."""
        if self._k:
            self._chunk(self._carry[:self._k])
            self._k = 0
        t, n = self.t, self.n
        if self.d > 1:
            return self._acc.reshape((t,) * self.d).copy()
        sq, cr = self._sq, self._cr
        S = np.empty(t)
        S[0] = n
        if t > 1:
            S[1] = cr[0]
        for k in range(2, t):
            m = k // 2
            S[k] = 2.0 * sq[m] - n if k % 2 == 0 else 2.0 * cr[m] - cr[0]
        return S

    def _views(self, r: int) -> None:
        """Table views for a chunk of ``r`` rows (made for the first chunk and the short
        last one: Python overhead)."""
        if r == self._shape_r:
            return
        tb: np.ndarray
        if self.d == 1:
            tb = self._tab_buf[:(_half(self.t) + 1) * r].reshape(-1, r)
            tb[0] = 1.0
            self._rows = [list(tb)]
        else:
            tb = self._tab_buf[:self.d * self.t * r].reshape(self.d, self.t, r)
            tb[:, 0] = 1.0  # T_0; nothing else writes these rows
            self._rows = [list(tb[j]) for j in range(self.d)]
        self._tb = tb
        self._x2 = self._x2_buf[:r]
        self._shape_r = r

    def _chunk(self, X: np.ndarray) -> None:
        r = X.shape[0]
        self._views(r)
        if self.d == 1:
            self._chunk_1d(X[:, 0])
        else:
            self._chunk_nd(X)
        self.n += r
        if self._progress is not None:
            self._progress("moments (rows)", self.n, self._total)

    def _chunk_1d(self, x: np.ndarray) -> None:
        """d = 1: ``S_k = sum_x T_k(x)`` from half the table, by the product formula
        ``2 T_a T_b = T_{a+b} + T_{|a-b|}``:

        ``S_{2m} = 2 sum_x T_m(x)^2 - n``  and  ``S_{2m+1} = 2 sum_x T_m(x) T_{m+1}(x) - S_1``
        (``m >= 1``; ``S_0 = n`` exactly, ``S_1 = sum_x x``).

        Only ``T_0 .. T_h`` (``h = t // 2``) are computed by the recurrence and every sum
        is a ``numpy.dot`` of two rows: about 2/3 of the elementwise passes of the whole
        table plus a sum per row (measured ~1.25x faster at t = 32).  The float error stays
        within the bound of ``summary_grid``; step 4 of its proof covers this form."""
        rows = self._rows[0]
        _table_rows(x, rows, self._x2)
        dot, sq, cr = np.dot, self._sq, self._cr
        h = len(rows) - 1
        for m in range(1, h + 1):
            sq[m] += dot(rows[m], rows[m])
        for m in range(h):
            cr[m] += dot(rows[m], rows[m + 1])

    def _chunk_nd(self, X: np.ndarray) -> None:
        d, t, r, tb = self.d, self.t, X.shape[0], self._tb
        for j in range(d):
            _table_rows(X[:, j], self._rows[j], self._x2)
        if d == 2:
            self._acc += tb[0] @ tb[1].T
            return
        # Khatri-Rao block of axes 1..d-1: cur[(a, b), i] = prev[a, i] T_b(x_{i,j}); two
        # buffers so that no product reads the array it writes
        cur, width = tb[0], t
        for j in range(1, d - 1):
            # the last product (j = d - 2) goes to buffer 0, earlier ones alternate
            dst = self._kr_bufs[(d - 2 - j) % 2][:width * t * r].reshape(width, t, r)
            np.multiply(cur[:, None, :], tb[j][None, :, :], out=dst)
            width *= t
            cur = dst.reshape(width, r)
        self._acc += cur @ tb[d - 1].T


def moment_sums(data: Any, t: IntLike, *, chunk: int | None = None,
                chunk_bytes: int = CHUNK_BYTES, progress: Any = None) -> np.ndarray:
    """Un-normalised moment tensor ``S[m_1, ..., m_d] = sum_x prod_i T_{m_i}(x_i)``
    (float64), the statistic every backend sums over rows (wang2013 Algorithm 1).

    GEMM-shaped: for each chunk of rows, ``(t^{d-1}, rows) @ (rows, t)`` -- the Khatri-Rao
    (row-wise Kronecker) product of the tables of axes ``1..d-1`` times the table of axis
    ``d`` (d = 1: products of half the table; ``S_0 = n`` exactly).  One pass over the data
    (each chunk's columns are read once, straight into the tables: no transposed copy of
    the data).

    Memory: the working memory of a chunk is at most ``chunk_bytes`` (default
    :data:`CHUNK_BYTES`; :func:`chunk_rows`; ``chunk`` overrides the row count, and a
    chunk of 64 rows is the least), so the peak memory of the call beyond the data is
    ``chunk_bytes`` plus two ``t^d`` float64 arrays (the accumulator and one GEMM
    product) and numpy's internal ufunc buffers (``np.getbufsize()`` elements each),
    whatever ``n`` (``benchmarks/summary_release.py`` measures it).

    Error: each sum is within ``(4 (d t^2 + n) 2^-53) n`` of the exact sum over the same
    float64 data, for ANY summation order -- chunks, BLAS blocking, or a
    distributed reduction tree (proof in ``wang_summary.summary_grid``).
    ``progress``: optional ``(stage, done, total)`` callback, once per chunk.
    """
    X = check_data(data)
    t = check_int(t, "t", minimum=1)
    R = check_int(chunk, "chunk", minimum=1) if chunk is not None else None
    chunk_bytes = check_int(chunk_bytes, "chunk_bytes", minimum=1)
    return checked_moment_sums(X, t, R, chunk_bytes, progress)


def checked_moment_sums(X: np.ndarray, t: int, chunk: int | None = None,
                        chunk_bytes: int = CHUNK_BYTES, progress: Any = None) -> np.ndarray:
    """:func:`moment_sums` on data already checked by :func:`check_data`."""
    n, d = X.shape
    R = min(chunk if chunk is not None else chunk_rows(t, d, chunk_bytes), n)
    acc = MomentAccumulator(t, d, R, total=n, progress=progress)
    acc.add(X)
    return acc.result()


def chebyshev_moments(data: Any, t: IntLike, *, chunk: int | None = None,
                      chunk_bytes: int = CHUNK_BYTES, progress: Any = None) -> np.ndarray:
    """Moment tensor ``b[m_1, ..., m_d] = (1/n) sum_x prod_i T_{m_i}(x_i)`` (float64):
    :func:`moment_sums` divided by ``n``.  Proven a-priori error below
    ``4 (d t^2 + n) 2^-53`` per moment for any summation order (``summary_grid``).
    wang2013 Algorithm 1.
    """
    X = check_data(data)
    t = check_int(t, "t", minimum=1)
    R = check_int(chunk, "chunk", minimum=1) if chunk is not None else None
    chunk_bytes = check_int(chunk_bytes, "chunk_bytes", minimum=1)
    return checked_moment_sums(X, t, R, chunk_bytes, progress) / len(X)


def check_data(data: Any) -> np.ndarray:
    """``data`` as a float64 ``(n, d)`` array (1-D: one column), ``n >= 1``, ``d <= 4``,
    every value in ``[-1, 1]`` (two reductions over the data: ``nan`` fails both
    comparisons, ``inf`` the bounds)."""
    try:
        X = np.asarray(data, dtype=np.float64)
    except (TypeError, ValueError):
        raise InvalidParameterError("data must be a numeric (n, d) array") from None
    if X.ndim == 1:
        X = X.reshape(-1, 1)
    if X.ndim != 2 or X.shape[0] < 1:
        raise InvalidParameterError("data must be a non-empty (n, d) array")
    if not 1 <= X.shape[1] <= 4:
        raise InvalidParameterError(f"data dimension d must be 1..4, got {X.shape[1]}")
    lo, hi = X.min(), X.max()
    if not (lo >= -1.0 and hi <= 1.0):  # also False for nan
        raise InvalidParameterError("data values must lie in [-1, 1]")
    return X


@contextmanager
def _one_blas_thread(parsing: bool) -> Iterator[None]:
    """While a CSV is parsed in the background, the GEMMs use one BLAS thread: the parser
    takes the other core (measured on 2 cores: a CSV release at n = 10^6 takes 0.15 s this
    way, 0.25 s with two BLAS threads competing with the parser).  The limit is
    process-wide for the duration of the call, and only set when threadpoolctl is
    installed.  The chunks are the same; OpenBLAS splits a GEMM among threads by blocks of
    the output, each summed in the same order, so the sums are unchanged (checked against
    the in-memory release by ``tests/test_data_commands.py``), and any summation order is
    within the bound of ``summary_grid``."""
    if not parsing:
        yield
        return
    try:
        # optional: only a speed-up (no type stubs)
        from threadpoolctl import threadpool_limits  # type: ignore[import-untyped, unused-ignore]
    except ImportError:
        yield
        return
    with threadpool_limits(1, user_api="blas"):
        yield


def source_moment_sums(source: str | DataSource, t: IntLike, *,
                       transform: Callable[[np.ndarray], np.ndarray] | None = None,
                       progress: Any = None) -> Reduction:
    """:func:`moment_sums` of the rows of a data source (file, directory, glob or ``-``)
    read block by block in this process (domain ``[-1, 1]``, d <= 4), with memory bounded
    by a few blocks whatever its size; ``transform`` maps each block's rows first (a
    row-wise map such as jin's grid snapping).

    The next block is parsed in a background thread while this one is summed
    (:func:`~dpverify.mechanisms.backend.stream_rows`), and the sums are those of one
    :func:`moment_sums` call on all the rows with the same BLAS threads, bit for bit
    (:class:`MomentAccumulator`; a CSV is summed on one BLAS thread, see
    :func:`_one_blas_thread`)."""
    t = check_int(t, "t", minimum=1)
    src = as_source(source)
    d = src.width
    if 1 <= d <= 4 and t**d > MAX_MOMENTS:
        raise InvalidParameterError(f"t^d = {t**d} moments exceed {MAX_MOMENTS}")
    acc: MomentAccumulator | None = None
    with _one_blas_thread(any(not is_parquet(f) for f in src.files)):
        for tab in stream_rows(src, domain=CUBE, min_columns=1, max_columns=4,
                               progress=progress, stage="moments"):
            if acc is None:
                acc = MomentAccumulator(t, d, chunk_rows(t, d))
            acc.add(tab.values if transform is None else transform(tab.values))
    if acc is None:
        raise DataValueError(f"{src.name!r} has no data rows")
    S = acc.result()
    return Reduction(S, acc.n, d, len(src.files), len(src.files), 0, "local")
