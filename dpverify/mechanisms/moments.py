"""Chebyshev moment sums of rows in ``[-1, 1]^d``: the statistic of wang2013 Algorithm 1.

``S[m_1, ..., m_d] = sum_x prod_i T_{m_i}(x_i)`` for ``m_i < t`` (``T_m(x) = cos(m arccos
x)``, DESIGN.md).  ``T_0..T_{t-1}`` come from the three-term recurrence ``T_{m+1} = 2 x T_m -
T_{m-1}``, computed element by element on contiguous table rows; the tensor is a sum over
rows of products ``P Q``: ``P`` the Khatri-Rao product of the tables of axes ``1..d-1``
(element by element), ``Q`` the table of axis ``d`` (d = 1: ``P = 1``).

Exact and order-free: every per-row factor is computed from its own row only, in a fixed
order of IEEE operations, then put on the fixed-point grid ``2^-36`` and the sums over rows
are exact integer GEMMs (:mod:`dpverify.mechanisms.fixed_point`).  The sums are therefore
a function of the multiset of rows: any split into blocks, files, partitions, any chunk
size, BLAS kernel or thread count, and the dask reduction tree give the same integers
(``tests/test_release_invariance.py``).  The per-row rounding is an accuracy error,
bounded by :func:`moment_error_bound`.

Streaming: :class:`MomentAccumulator` takes the rows in pieces of any length (chunks of a
bounded number of rows for memory only).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import numpy as np
from flint import fmpq

from ..errors import InvalidParameterError
from ..numbers import IntLike, check_int
from .backend import Reduction, stream_rows
from .data import CUBE, DataSource, DataValueError, as_source, is_parquet
from .fixed_point import EXACT_ROWS, FACTOR_BITS, SCALE_BITS, ExactProductSums, ExactSums

__all__ = [
    "CHUNK_BYTES",
    "MAX_CHUNK_ROWS",
    "MAX_MOMENTS",
    "MomentAccumulator",
    "SCALE_BITS",
    "as_float_sums",
    "chebyshev_moments",
    "chebyshev_table",
    "check_data",
    "checked_moment_sums",
    "chunk_rows",
    "discretise",
    "exact_moment_sums",
    "grid_points",
    "moment_error_bound",
    "moment_sums",
    "snap",
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
#: blocks ``(t^(d-1), rows)`` (and ``(t^(d-2), rows)`` for d = 4); the fixed-point limbs
#: of the exact GEMM take about as much again (sub-chunks sized to the same budget).  The
#: peak memory of a release is twice this plus the data block and the ``t^d``
#: accumulators, for any n.
CHUNK_BYTES = 2**23


def _table_rows(x: np.ndarray, rows: list[np.ndarray], x2: np.ndarray) -> None:
    """``rows[m][i] = T_m(x_i)`` for ``m >= 1`` (``rows``: the ``t`` contiguous rows of a
    ``(t, r)`` table whose row 0 already holds ones: the recurrence streams along memory
    instead of striding down the columns).  ``x`` may be a strided column of the data (read
    once, into ``rows[1]``); ``x2`` is an ``(r,)`` buffer for ``2 x`` (exact).  In place:
    no temporary.  Every entry is ``fl(fl(2x T_{m-1}) - T_{m-2})`` of its own row: the
    same bits whatever the other rows of the chunk."""
    mul, sub = np.multiply, np.subtract
    if len(rows) > 1:
        rows[1][...] = x
        mul(rows[1], 2.0, x2)
    for m in range(2, len(rows)):
        mul(x2, rows[m - 1], rows[m])
        sub(rows[m], rows[m - 2], rows[m])


#: Longest table row (rows per chunk) by default: the recurrence keeps three rows of this
#: length in the per-core L2 cache.
MAX_CHUNK_ROWS = 16384


def chunk_rows(t: int, d: int, chunk_bytes: int = CHUNK_BYTES) -> int:
    """Rows per chunk so that the working memory of :func:`moment_sums` -- the ``d``
    tables ``(t, rows)``, the ``2 x`` buffer and the Khatri-Rao blocks -- takes at most
    ``chunk_bytes`` (at least 64 rows, at most :data:`MAX_CHUNK_ROWS`).  Memory only: the
    sums do not depend on it."""
    per_row = 8 * (d * t + 1 + (t ** (d - 1) if d > 2 else 0)
                   + (t ** (d - 2) if d > 3 else 0))
    return max(64, min(MAX_CHUNK_ROWS, int(chunk_bytes) // per_row))


def moment_error_bound(t: int, d: int) -> fmpq:
    """A priori bound ``E`` on ``|fixed-point moment of a row - exact moment|`` (hence on
    the error of every moment *mean*, whatever ``n``): ``E = 4 d t^2 2^-53 + 2^-36``.

    Guarantee (IEEE binary64, round to nearest; rows in ``[-1, 1]``, ``t <= 2 10^5``)
    -------------------------------------------------------------------------------
    1. Recurrence.  ``T^_{k+1} = fl(fl(2x T^_k) - T^_{k-1})`` (``2x`` is exact) gives
       ``T^_{k+1} = 2x T^_k - T^_{k-1} + r_k`` with ``|r_k| <= 5 u (1+u) M_k``,
       ``M_k = max(|T^_k|, |T^_{k-1}|)``, ``u = 2^-53``.  The errors ``e_k = T^_k - T_k``
       satisfy the same recurrence driven by ``r_k`` with ``e_0 = e_1 = 0``, so
       ``e_m = sum_{k=1}^{m-1} U_{m-1-k}(x) r_k`` and ``|U_j(x)| <= j + 1`` on ``[-1, 1]``:
       ``|e_m| <= 2.5 m^2 u (1+u) max_k M_k``.  Since ``2.5 t^2 u <= 1.2e-5`` for
       ``t <= 2*10^5``, induction gives ``M_k <= 1 + 1.2e-5`` and ``|e_m| <= 3 m^2 u``.
    2. The Khatri-Rao factor ``P^`` is a product of ``d - 1`` table entries with ``d - 2``
       roundings: ``|P^ - P| <= (3 (d-1) t^2 + d - 2) u (1 + 2e-5)``; the last axis
       ``|Q^ - Q| <= 3 t^2 u``.
    3. Fixed point: ``V = clamp(rint(v 2^36))`` is within ``2^-37`` of ``v``, and the
       clamp to ``[-1, 1]`` only moves ``V`` towards the exact value (which lies in
       ``[-1, 1]``), so ``|P_fix - P| <= |P^ - P| + 2^-37`` and likewise for ``Q``
       (d = 1: ``P = 1`` exactly).
    4. ``|P_fix Q_fix - P Q| <= |P_fix - P| |Q_fix| + |P| |Q_fix - Q|`` with ``|Q_fix|,
       |P| <= 1``: ``<= (3 d t^2 + d - 2) u (1 + 2e-5) + 2^-36 <= E``.
    The sums over rows are exact (:mod:`dpverify.mechanisms.fixed_point`), so the mean of
    ``n`` rows is within ``E`` of the exact mean.  This bounds **accuracy** only: the
    privacy of a release rests on ``|P_fix|, |Q_fix| <= 1`` (the clamp), not on ``E``.
    ``tests/test_wang_moments_bound.py`` checks it against exact rational moments.
    """
    return 4 * d * t * t * fmpq(1, 2**53) + fmpq(1, 2**FACTOR_BITS)


class MomentAccumulator:
    """:func:`exact_moment_sums` of rows given in pieces: ``add`` any number of ``(r, d)``
    float64 pieces (already checked to lie in ``[-1, 1]``), then ``result()``.

    The result is exact (:mod:`dpverify.mechanisms.fixed_point`), so it does not depend
    on the pieces, the chunk length or the order of the rows.  Memory: the chunk buffers
    (:func:`chunk_rows`) and the ``t^d`` accumulators.  ``progress``: ``(stage, rows
    done, total or None)`` once per chunk."""

    def __init__(self, t: int, d: int, rows: int | None = None, *, total: int | None = None,
                 progress: Any = None, chunk_bytes: int = CHUNK_BYTES) -> None:
        if t**d > MAX_MOMENTS:
            raise InvalidParameterError(f"t^d = {t**d} moments exceed {MAX_MOMENTS}")
        self.t, self.d = t, d
        self.R = chunk_rows(t, d, chunk_bytes) if rows is None else rows
        self.n = 0
        self._total, self._progress = total, progress
        self._shape_r = -1  # chunk length the table views were made for
        self._x2_buf = np.empty(self.R)
        p = t ** (d - 1)
        # the exact GEMM's limb buffers and temporaries (about 24 (p + t) bytes per row)
        # within the same budget; d = 1 is a plain exact sum of the table (P = 1)
        self._acc: ExactProductSums | ExactSums = ExactSums(t) if d == 1 else \
            ExactProductSums(p, t, max(64, min(EXACT_ROWS, chunk_bytes // (24 * (p + t)))))
        self._tab_buf = np.empty(d * t * self.R)
        # Khatri-Rao buffers: the last product (t^(d-1) rows) and, for d = 4, the one
        # before
        self._kr_bufs = [np.empty(t ** (d - 1 - i) * self.R) for i in range(d - 2)]

    def add(self, X: np.ndarray) -> None:
        """Feed rows (an ``(r, d)`` float64 array; a view is fine)."""
        for i in range(0, X.shape[0], self.R):
            self._chunk(X[i:i + self.R])

    def result(self) -> np.ndarray:
        """The exact moment sums of every row fed: an object array of Python ints of
        shape ``(t,) * d``, at scale ``2^SCALE_BITS``."""
        J = self._acc.result()
        if self.d == 1:  # P = 1 is 2^FACTOR_BITS in fixed point
            J = J * (1 << FACTOR_BITS)
        return J.reshape((self.t,) * self.d)

    def _views(self, r: int) -> None:
        """Table views for a chunk of ``r`` rows (made for the first chunk and the short
        last one: Python overhead)."""
        if r == self._shape_r:
            return
        tb = self._tab_buf[:self.d * self.t * r].reshape(self.d, self.t, r)
        tb[:, 0] = 1.0  # T_0; nothing else writes these rows
        self._rows = [list(tb[j]) for j in range(self.d)]
        self._tb = tb
        self._x2 = self._x2_buf[:r]
        self._shape_r = r

    def _chunk(self, X: np.ndarray) -> None:
        d, t, r = self.d, self.t, X.shape[0]
        self._views(r)
        tb = self._tb
        for j in range(d):
            _table_rows(X[:, j], self._rows[j], self._x2)
        if isinstance(self._acc, ExactSums):  # d = 1: the table itself (P = 1)
            self._acc.add(tb[0])
        else:
            # Khatri-Rao block of axes 1..d-1: cur[(a, b), i] = prev[a, i] T_b(x_{i,j});
            # two buffers so that no product reads the array it writes
            cur, width = tb[0], t
            for j in range(1, d - 1):
                dst = self._kr_bufs[(d - 2 - j) % 2][:width * t * r].reshape(width, t, r)
                np.multiply(cur[:, None, :], tb[j][None, :, :], out=dst)
                width *= t
                cur = dst.reshape(width, r)
            self._acc.add(cur, tb[d - 1])
        self.n += r
        if self._progress is not None:
            self._progress("moments (rows)", self.n, self._total)


def exact_moment_sums(data: Any, t: IntLike, *, chunk: int | None = None,
                      chunk_bytes: int = CHUNK_BYTES, progress: Any = None) -> np.ndarray:
    """Exact fixed-point moment sums ``J[m] = sum_x P_fix(x) Q_fix(x)`` (module
    docstring): an object array of Python ints of shape ``(t,) * d`` at scale
    ``2^SCALE_BITS``, the statistic every backend sums over rows (wang2013 Algorithm 1).
    ``J[0] = n 2^SCALE_BITS`` exactly.

    ``chunk`` / ``chunk_bytes`` bound the working memory only (:func:`chunk_rows`); the
    result does not depend on them.  ``progress``: optional ``(stage, done, total)``.

    Guarantee
    ---------
    Exact integers, a function of the multiset of rows only; ``|J[m] 2^-SCALE_BITS / n -
    b_m| <= moment_error_bound(t, d)`` for the exact moment ``b_m`` of the float64 rows.
    """
    X = check_data(data)
    t = check_int(t, "t", minimum=1)
    R = check_int(chunk, "chunk", minimum=1) if chunk is not None else None
    chunk_bytes = check_int(chunk_bytes, "chunk_bytes", minimum=1)
    return checked_moment_sums(X, t, R, chunk_bytes, progress)


def as_float_sums(J: np.ndarray) -> np.ndarray:
    """Exact fixed-point sums as float64 values (each correctly rounded once)."""
    den = 1 << SCALE_BITS
    return np.array([int(v) / den for v in J.ravel()], dtype=np.float64).reshape(J.shape)


def moment_sums(data: Any, t: IntLike, *, chunk: int | None = None,
                chunk_bytes: int = CHUNK_BYTES, progress: Any = None) -> np.ndarray:
    """Un-normalised moment tensor ``S[m_1, ..., m_d] = sum_x prod_i T_{m_i}(x_i)``
    (float64): :func:`exact_moment_sums` scaled to values and rounded to float64 once.

    Error: within ``n moment_error_bound(t, d)`` of the exact sum over the same float64
    data plus the final rounding, for every chunking (the sums are exact).
    """
    return as_float_sums(exact_moment_sums(data, t, chunk=chunk, chunk_bytes=chunk_bytes,
                                           progress=progress))


def checked_moment_sums(X: np.ndarray, t: int, chunk: int | None = None,
                        chunk_bytes: int = CHUNK_BYTES, progress: Any = None) -> np.ndarray:
    """:func:`exact_moment_sums` on data already checked by :func:`check_data`."""
    n, d = X.shape
    R = max(1, min(chunk if chunk is not None else chunk_rows(t, d, chunk_bytes), n))
    acc = MomentAccumulator(t, d, R, total=n, progress=progress, chunk_bytes=chunk_bytes)
    acc.add(X)
    return acc.result()


def chebyshev_moments(data: Any, t: IntLike, *, chunk: int | None = None,
                      chunk_bytes: int = CHUNK_BYTES, progress: Any = None) -> np.ndarray:
    """Moment tensor ``b[m_1, ..., m_d] = (1/n) sum_x prod_i T_{m_i}(x_i)`` (float64):
    :func:`moment_sums` divided by ``n``; within :func:`moment_error_bound` (plus two
    final roundings) of the exact moments.  wang2013 Algorithm 1.
    """
    X = check_data(data)
    return moment_sums(X, t, chunk=chunk, chunk_bytes=chunk_bytes,
                       progress=progress) / len(X)


def grid_points(N: int) -> np.ndarray:
    """``a_k = (2k + 1 - N)/N``, k = 0..N-1 (jin Algorithm 1, Notations)."""
    return (2 * np.arange(N) + 1 - N) / N


def snap(X: np.ndarray, N: int) -> np.ndarray:
    """Each coordinate replaced by its nearest grid point ``a_k`` (jin Algorithm 1 step 4)."""
    return grid_points(N)[discretise(X, N)]


def discretise(X: np.ndarray, N: int) -> np.ndarray:
    """Nearest grid point per coordinate (index form; a value midway between two grid
    points goes to the higher index: ``0.5`` to ``a_3 = 0.75`` for ``N = 4``; ``1`` is in
    the last cell).

    Examples
    --------
    >>> discretise(np.array([[0.5], [0.0], [-1.0], [1.0]]), 4).ravel().tolist()
    [3, 2, 0, 3]
    """
    idx = np.floor((X + 1) * N / 2).astype(np.int64)  # cell of width 2/N around a_k
    return np.clip(idx, 0, N - 1)


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
    takes the other core.  The limit is
    process-wide for the duration of the call, and only set when threadpoolctl is
    installed.  The sums are exact integers, so the thread count does not change them."""
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
    """:func:`exact_moment_sums` of the rows of a data source (file, directory, glob or
    ``-``) read block by block in this process (domain ``[-1, 1]``, d <= 4), with memory
    bounded by a few blocks whatever its size; ``transform`` maps each block's rows first
    (a row-wise map such as jin's grid snapping).  The next block is parsed in a
    background thread while this one is summed
    (:func:`~dpverify.mechanisms.backend.stream_rows`); the sums are exact, hence those of
    one :func:`exact_moment_sums` call on all the rows."""
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
