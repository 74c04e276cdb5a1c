"""Exact sums over rows of per-row float values: fixed point, integer limbs, exact GEMM.

A release must not depend on how its rows are cut into blocks, files or partitions, nor
on which BLAS kernel sums them.  Float sums depend on both (a different order rounds
differently).  This module makes every sum over rows **exact**, so its value is a
function of the multiset of per-row values only:

1. Each per-row value ``v`` (a float64 computed element by element, in a fixed order
   that involves that row alone) is put on the fixed-point grid ``2^-B``
   (:data:`FACTOR_BITS`): ``V = clamp(rint(v 2^B), -2^B, 2^B)`` -- an integer held exactly
   in a float64 (``|V| <= 2^36``).  ``rint`` and the scaling by ``2^B`` are exact IEEE
   operations, so ``V`` depends on ``v`` alone; the clamp makes ``|V| <= 2^B`` whatever
   the float error of ``v`` (``v`` approximates a value in ``[-1, 1]``).
2. ``V`` is split into two limbs ``V = H 2^L + R`` (:data:`LIMB_BITS`, ``H = rint(V /
   2^L)``, ``|H| <= 2^(B-L)``, ``|R| <= 2^(L-1)``), both exact.
3. Sums of products ``sum_i P_i Q_i`` (the moment GEMM: ``P`` a Khatri-Rao row, ``Q`` a
   Chebyshev table row; a plain sum has ``P = 1``) are four limb products summed over a
   chunk of at most :data:`EXACT_ROWS` rows by one float64 GEMM.  **Exactness lemma:**
   every limb product is an integer of modulus ``<= 2^(2(B-L))`` and every partial sum
   any classical GEMM forms (blocking, threads, FMA, any order) is a sum of a subset of
   at most ``R`` of them, an integer of modulus ``<= R 2^(2(B-L)) = 2^47 < 2^53``; an IEEE
   operation whose exact result is representable returns it, so no rounding occurs and
   the chunk result is the exact integer.
4. Chunk results are added as int64 (``<= 2^47`` each, flushed into Python integers every
   ``2^15`` chunks) and combined ``H_P H_Q 2^2L + (H_P R_Q + R_P H_Q) 2^L + R_P R_Q``
   as Python integers.

So :class:`ExactProductSums` returns ``sum_i P_i Q_i`` over the fixed-point values
exactly, for any split of the rows into pieces, in any order (integer addition is
associative), on every backend.  The per-row rounding ``|V 2^-B - v| <= 2^-(B+1)`` is
an *accuracy* error; privacy rests only on ``|V| <= 2^B`` (the clamp).

Guarantee
---------
Exact integer results (Python ``int``); a function of the multiset of per-row fixed-point
values only.  The lemma assumes an IEEE-754 binary64 classical GEMM (every BLAS in use:
OpenBLAS, MKL, BLIS, Accelerate).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import numpy as np

from ..errors import InvalidParameterError

__all__ = [
    "FACTOR_BITS",
    "LIMB_BITS",
    "EXACT_ROWS",
    "SCALE_BITS",
    "ExactProductSums",
    "ExactSums",
    "exact_column_sums",
    "fixed_point",
    "one_blas_thread",
]

#: Bits of the fixed-point grid of one factor (``V = rint(v 2^B)``).
FACTOR_BITS = 36
#: Bits of the low limb (``V = H 2^L + R``).
LIMB_BITS = 18
#: Rows per exact GEMM: ``EXACT_ROWS * 2^(2(B - L)) = 2^47 < 2^53``.
EXACT_ROWS = 2048
#: Scale of a product sum: ``sum_i P_i Q_i`` of two factors is ``2^SCALE_BITS`` times
#: the sum of the products of the values.
SCALE_BITS = 2 * FACTOR_BITS
_ONE = float(2**FACTOR_BITS)
#: int64 chunk results (each ``<= 2^47``) added before a flush into Python integers.
_FLUSH = 1 << 15


_CONTROLLER: Any = None


@contextmanager
def one_blas_thread() -> Iterator[None]:
    """The exact GEMMs are small (``2p x 2048`` times ``2048 x 2q``): on one BLAS thread
    they run at full speed, while a multi-threaded BLAS on a busy machine spends most of
    the time synchronising (measured on 2 loaded cores: 0.4 s against 8-50 s per 10^6
    rows at t = 32, d = 2).  Only set when threadpoolctl is installed (a speed-up: the
    sums are exact whatever the threads)."""
    global _CONTROLLER
    if _CONTROLLER is None:
        try:
            # optional: only a speed-up (no type stubs)
            from threadpoolctl import (  # type: ignore[import-untyped, unused-ignore]
                ThreadpoolController,
            )
        except ImportError:
            _CONTROLLER = False
        else:
            _CONTROLLER = ThreadpoolController()
    if _CONTROLLER is False:
        yield
        return
    with _CONTROLLER.limit(limits=1, user_api="blas"):
        yield


def fixed_point(v: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
    """``clamp(rint(v 2^B), -2^B, 2^B)`` as float64 integers (``B`` = :data:`FACTOR_BITS`;
    NaN, never produced by a checked computation, becomes ``-2^B``).  Element by element:
    each output depends on its own input only."""
    w = np.multiply(v, _ONE, out=out)  # exact scaling by a power of two
    np.rint(w, out=w)
    np.fmax(w, -_ONE, out=w)
    np.fmin(w, _ONE, out=w)
    return w


def _split(v: np.ndarray, hi: np.ndarray, lo: np.ndarray) -> None:
    """``hi 2^L + lo = fixed_point(v)`` with ``hi = rint(fixed_point(v) 2^-L)`` (exact:
    integers of at most ``B + 1`` bits); written into the two buffers."""
    fixed_point(v, out=lo)
    np.multiply(lo, 1.0 / 2**LIMB_BITS, out=hi)
    np.rint(hi, out=hi)
    lo -= hi * float(2**LIMB_BITS)


class ExactProductSums:
    """``S[a, b] = sum_i P[a, i] Q[b, i]`` over fixed-point factors, exactly.

    ``add(P, Q)``: ``P`` (``p``, rows) and ``Q`` (``q``, rows) float64 arrays of per-row
    values, put on the fixed-point grid by :func:`fixed_point`; rows may come in pieces
    of any length.  ``result()`` returns
    the ``(p, q)`` object array of Python ints (scale ``2^SCALE_BITS``).  ``rows`` (at
    most :data:`EXACT_ROWS`) is the length of one exact GEMM: memory only (the limb
    buffers take ``16 (p + q) rows`` bytes), never the result.
    """

    def __init__(self, p: int, q: int, rows: int = EXACT_ROWS) -> None:
        if p < 1 or q < 1:
            raise InvalidParameterError(f"shape must be positive, got ({p}, {q})")
        if not 1 <= rows <= EXACT_ROWS:
            raise InvalidParameterError(f"rows must be in [1, {EXACT_ROWS}], got {rows}")
        self.p, self.q, self.rows = p, q, rows
        self._hh = np.zeros((p, q), dtype=np.int64)
        self._mid = np.zeros((p, q), dtype=np.int64)
        self._ll = np.zeros((p, q), dtype=np.int64)
        self._big: list[np.ndarray] | None = None
        self._chunks = 0
        self._bufs: tuple[np.ndarray, np.ndarray] | None = None

    def add(self, P: np.ndarray, Q: np.ndarray) -> None:
        """Add the rows of ``P`` (``p``, rows) and ``Q`` (``q``, rows), per-row float
        values put on the fixed-point grid here (:func:`fixed_point`)."""
        if P.shape[0] != self.p or Q.shape[0] != self.q or P.shape[1] != Q.shape[1]:
            raise InvalidParameterError(
                f"factor shapes {P.shape}, {Q.shape} do not match ({self.p}, {self.q})")
        R = self.rows
        if self._bufs is None:
            self._bufs = (np.empty((2 * self.p, R)), np.empty((2 * self.q, R)))
        with one_blas_thread():
            for i0 in range(0, P.shape[1], R):
                self._chunk(P[:, i0:i0 + R], Q[:, i0:i0 + R])

    def _chunk(self, P: np.ndarray, Q: np.ndarray) -> None:
        p, q, r = self.p, self.q, P.shape[1]
        assert self._bufs is not None
        PL, QL = (b[:, :r] for b in self._bufs)
        _split(P, PL[:p], PL[p:])
        _split(Q, QL[:q], QL[q:])
        G = PL @ QL.T  # exact (lemma): [[HH, HR], [RH, RR]]
        Gi = G.astype(np.int64)
        self._hh += Gi[:p, :q]
        self._mid += Gi[:p, q:]
        self._mid += Gi[p:, :q]
        self._ll += Gi[p:, q:]
        self._chunks += 1
        if self._chunks >= _FLUSH:
            self._flush()

    def _flush(self) -> None:
        parts = [a.astype(object) for a in (self._hh, self._mid, self._ll)]
        self._big = parts if self._big is None else [x + y for x, y in
                                                     zip(self._big, parts, strict=True)]
        for a in (self._hh, self._mid, self._ll):
            a[...] = 0
        self._chunks = 0

    def result(self) -> np.ndarray:
        """The exact sums (object array of Python ints), scale ``2^SCALE_BITS``."""
        self._flush()
        assert self._big is not None
        hh, mid, ll = self._big
        L = LIMB_BITS
        out: np.ndarray = hh * (1 << 2 * L) + mid * (1 << L) + ll
        return out


class ExactSums:
    """``S[j] = sum_i fixed_point(V[j, i])`` exactly (a plain sum: ``P = 1``), for ``k``
    coordinates: ``add(V)`` with ``V`` of shape (``k``, rows); ``result()`` gives Python
    ints at scale ``2^FACTOR_BITS``.  int64 column sums of at most ``2^10`` rows (each
    ``<= 2^46``; small temporaries), added into int64 accumulators flushed into Python
    ints before they can reach ``2^62``: exact, any split of the rows, any order."""

    _ROWS = 1 << 10

    def __init__(self, k: int) -> None:
        if k < 1:
            raise InvalidParameterError(f"k must be >= 1, got {k}")
        self.k = k
        self._acc = np.zeros(k, dtype=np.int64)
        self._big = np.zeros(k, dtype=object)
        self._bound = 0  # an upper bound of max |self._acc|

    def add(self, V: np.ndarray) -> None:
        if V.shape[0] != self.k:
            raise InvalidParameterError(f"V must have {self.k} rows, got {V.shape[0]}")
        for i0 in range(0, V.shape[1], self._ROWS):
            part = V[:, i0:i0 + self._ROWS]
            F = fixed_point(part)
            if self._bound + part.shape[1] * (1 << FACTOR_BITS) >= 1 << 62:
                self._big = self._big + self._acc.astype(object)
                self._acc[...] = 0
                self._bound = 0
            self._acc += F.astype(np.int64).sum(axis=1)
            self._bound += part.shape[1] * (1 << FACTOR_BITS)

    def result(self) -> np.ndarray:
        """The exact sums (object array of Python ints), scale ``2^FACTOR_BITS``."""
        out: np.ndarray = self._big + self._acc.astype(object)
        return out


def exact_column_sums(V: Any) -> np.ndarray:
    """``sum_i fixed_point(V[i, j])`` for every column ``j`` of a ``(rows, k)`` float64
    array of per-row values: exact Python ints at scale ``2^FACTOR_BITS`` (an
    :class:`ExactSums`).

    Examples
    --------
    >>> import numpy as np
    >>> s = exact_column_sums(np.array([[0.5, -1.0], [0.25, 2.0]]))   # 2.0 is clamped to 1
    >>> [int(x) / 2**FACTOR_BITS for x in s]
    [0.75, 0.0]
    """
    A = np.asarray(V, dtype=np.float64)
    if A.ndim != 2:
        raise InvalidParameterError(f"V must be a 2-D array, got shape {A.shape}")
    acc = ExactSums(A.shape[1])
    acc.add(A.T)
    return acc.result()
