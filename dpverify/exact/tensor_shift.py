"""Exact Taylor shifts of d-variate tensor polynomials in integer arithmetic.

For a monomial tensor polynomial ``p(x) = sum_alpha c_alpha x^alpha`` (flat row-major
coefficients of ``shape = (n_1, ..., n_d)``, exact rationals) and a point ``m`` this module
computes the coefficients of ``p(m + h) = sum_alpha p_alpha h^alpha`` without rational
arithmetic on the inner loops:

* write ``m_i = U_i / V_i`` (lowest terms) and clear the denominator ``D'`` of the
  coefficients (``c_alpha = n_alpha / D'``, integers ``n_alpha``);
* ``r(x) = prod_i V_i^(n_i - 1) p(x / V) D'`` has integer coefficients
  ``n_alpha prod_i V_i^(n_i - 1 - alpha_i)``;
* ``p(m + h) = r(U + z) / (D' prod_i V_i^(n_i - 1))`` with ``z = V h``, and ``r(U + z)`` is
  one integer Taylor shift ``x -> U_i + x`` per fibre and axis (FLINT ``fmpz_poly``
  composition with a linear polynomial).

So ``p_alpha = g_alpha prod_i V_i^alpha_i / D`` with integers ``g`` and ``D``
(:meth:`IntegerTaylorShift.scaled`).  The branch and bound over a box
(:mod:`dpverify.certify.interval`) shifts ``p`` to the centre of every piece; the centres
of a bisection share their leading coordinates, so the shifts of the leading axes are
cached per ``(V, m_1..m_i)``.

:func:`abs_tail_sum` is the exact weighted tail ``sum_{|alpha| > N} |n_alpha / D| r^alpha``
(an integer tensor contraction), the part of a Taylor-model bound that involves ``p`` alone.

Guarantee
---------
Exact: every result is an exact integer or rational (``fmpz`` / ``fmpq``); no floats and
no balls are used.  :meth:`IntegerTaylorShift.coefficients` equals the coefficients of
``p(m + h)`` exactly (the same as :meth:`TensorPoly.taylor_shift
<dpverify.exact.TensorPoly.taylor_shift>`, which uses it).
"""

from __future__ import annotations

import itertools
import math
from collections import OrderedDict
from collections.abc import Callable, Sequence
from functools import lru_cache
from operator import itemgetter
from typing import Any

from flint import fmpq, fmpq_mat, fmpz, fmpz_mat, fmpz_poly

from ..errors import InvalidParameterError

__all__ = ["IntegerTaylorShift", "shift_axis_int", "abs_tail_sum", "low_order_positions"]

#: cached shifts of leading axes, least recently used dropped first (each a tensor of
#: integers, up to a few MB for degree 63 in two variables)
_SHIFT_CACHE_SIZE = 128
#: cached rescalings ``r`` of ``p`` per denominator vector ``V``
_SCALED_CACHE_SIZE = 64


def shift_axis_int(flat: list[fmpz], shape: tuple[int, ...], axis: int, u: fmpz) -> list[fmpz]:
    """``x_axis -> u + x_axis`` on the integer tensor ``flat`` (row-major ``shape``).

    Each fibre along ``axis`` (a polynomial in ``x_axis`` with integer coefficients, lowest
    degree first) is composed with ``u + x`` by FLINT (``fmpz_poly``) and padded back to
    ``shape[axis]`` entries.  Returns ``flat`` itself when ``u == 0``, else a new list.

    Guarantee
    ---------
    Exact (integer arithmetic).
    """
    if not 0 <= axis < len(shape) or len(flat) != math.prod(shape):
        raise InvalidParameterError(
            f"flat (length {len(flat)}) and axis ({axis}) must fit shape {shape}")
    if u == 0:
        return flat
    out = list(flat)
    n = shape[axis]
    stride = math.prod(shape[axis + 1:])
    block = n * stride
    lin = fmpz_poly([u, 1])
    pad = [fmpz(0)] * n
    for base in range(0, len(out), block):
        for inner in range(stride):
            sl = slice(base + inner, base + block, stride)
            c = fmpz_poly(out[sl])(lin).coeffs()
            out[sl] = c + pad[len(c):] if len(c) < n else c
    return out


class IntegerTaylorShift:
    """Exact coefficients of ``p(m + h)`` for a fixed monomial tensor polynomial ``p`` at
    many points ``m`` (see the module docstring for the method).

    Parameters
    ----------
    coeffs : sequence of fmpq
        Monomial coefficients of ``p``, flat row-major in ``shape`` (as
        :attr:`TensorPoly.coeffs <dpverify.exact.TensorPoly.coeffs>` of a monomial
        ``TensorPoly``).
    shape : tuple of int
        ``(n_1, ..., n_d)``, ``d >= 1``.

    Guarantee
    ---------
    Exact.  The caches only reuse exact results computed earlier for the same key.
    """

    def __init__(self, coeffs: Sequence[Any], shape: Sequence[int]) -> None:
        self.shape = tuple(int(n) for n in shape)
        if not self.shape or any(n < 1 for n in self.shape):
            raise InvalidParameterError(f"shape must be non-empty with entries >= 1, got {shape!r}")
        if len(coeffs) != math.prod(self.shape):
            raise InvalidParameterError(
                f"coeffs has {len(coeffs)} entries but shape {self.shape} needs "
                f"{math.prod(self.shape)}")
        self.d = len(self.shape)
        flat = fmpq_mat(1, len(coeffs), [fmpq(c) for c in coeffs])
        nums, self.den = flat.numer_denom()
        #: integer numerators ``n_alpha`` of the coefficients over the common ``den``
        self.nums: list[fmpz] = list(nums.entries())
        self._scaled_cache: dict[tuple[fmpz, ...], tuple[list[fmpz], fmpz]] = {}
        self._shift_cache: OrderedDict[tuple[Any, ...], list[fmpz]] = OrderedDict()

    def scaled(self, m: Sequence[fmpq]) -> tuple[list[fmpz], fmpz, tuple[fmpz, ...]]:
        """``(g, D, V)``: the coefficient of ``h^alpha`` in ``p(m + h)`` is
        ``g[alpha] prod_i V_i^alpha_i / D`` exactly (``g`` flat row-major in ``shape``,
        ``V_i`` the denominator of ``m_i``).

        Guarantee
        ---------
        Exact (integers).
        """
        m = tuple(fmpq(x) for x in m)
        if len(m) != self.d:
            raise InvalidParameterError(f"m must have {self.d} entries, got {len(m)}")
        V = tuple(fmpz(x.q) for x in m)
        flat, den = self._prescaled(V)
        for i in range(self.d - 1):  # a piece's own centre recurs only as a corner
            key = (V, m[: i + 1])
            hit = self._shift_cache.get(key)
            if hit is None:
                hit = shift_axis_int(flat, self.shape, i, fmpz(m[i].p))
                if len(self._shift_cache) >= _SHIFT_CACHE_SIZE:
                    self._shift_cache.popitem(last=False)
                self._shift_cache[key] = hit
            else:
                self._shift_cache.move_to_end(key)
            flat = hit
        flat = shift_axis_int(flat, self.shape, self.d - 1, fmpz(m[-1].p))
        return flat, den, V

    def coefficients(self, m: Sequence[fmpq]) -> list[fmpq]:
        """Exact coefficients of ``p(m + h)`` (monomial in ``h``), flat row-major in
        ``shape``.

        Guarantee
        ---------
        Exact (``fmpq``).
        """
        g, den, V = self.scaled(m)
        out = []
        for c, alpha in zip(g, itertools.product(*map(range, self.shape))):
            num = c
            for v, a in zip(V, alpha):
                num *= v**a
            out.append(fmpq(num, den))
        return out

    def value(self, m: Sequence[fmpq]) -> fmpq:
        """``p(m)`` exactly (the constant coefficient of the shift)."""
        g, den, _ = self.scaled(m)
        return fmpq(g[0], den)

    def _prescaled(self, V: tuple[fmpz, ...]) -> tuple[list[fmpz], fmpz]:
        """The integer coefficients of ``r`` for the denominators ``V``, and ``D``."""
        hit = self._scaled_cache.get(V)
        if hit is None:
            out = list(self.nums)
            den = self.den
            stride = 1
            for i in range(self.d - 1, -1, -1):
                n, v = self.shape[i], V[i]
                den *= v ** (n - 1)
                if v != 1:
                    pw = [v ** (n - 1 - a) for a in range(n)]
                    for idx in range(len(out)):
                        out[idx] *= pw[(idx // stride) % n]
                stride *= n
            hit = (out, den)
            if len(self._scaled_cache) >= _SCALED_CACHE_SIZE:
                self._scaled_cache.clear()
            self._scaled_cache[V] = hit
        return hit


@lru_cache(maxsize=16)
def low_order_positions(N: int, shape: tuple[int, ...]) -> tuple[int, ...]:
    """Flat row-major positions of the multi-indices with ``|alpha| <= N`` in ``shape``."""
    return tuple(i for i, a in enumerate(itertools.product(*map(range, shape))) if sum(a) <= N)


@lru_cache(maxsize=16)
def _high_order_getter(N: int, shape: tuple[int, ...]) -> Callable[[Sequence[fmpz]], list[fmpz]]:
    """A function picking the entries with ``|alpha| > N`` out of a flat tensor."""
    low = set(low_order_positions(N, shape))
    pos = [i for i in range(math.prod(shape)) if i not in low]
    if not pos:
        return lambda flat: []
    get = itemgetter(*pos)
    if len(pos) == 1:
        return lambda flat: [get(flat)]
    return lambda flat: list(get(flat))


def abs_tail_sum(nums: Sequence[fmpz], den: fmpz, r: Sequence[fmpq], shape: tuple[int, ...],
                 N: int) -> fmpq:
    """Exactly ``sum_{|alpha| > N} |n_alpha / den| r^alpha`` (flat row-major ``nums`` of
    ``shape``, ``r_i >= 0``).

    The masked absolute values are contracted with the integer vectors
    ``(s_i^a t_i^(n_i-1-a))_a`` of ``r_i = s_i / t_i``, last axis first (``fmpz_mat``
    products), and divided once by ``den prod_i t_i^(n_i - 1)``.

    Guarantee
    ---------
    Exact (``fmpq``).
    """
    if (not shape or len(r) != len(shape) or len(nums) != math.prod(shape)
            or any(x < 0 for x in r)):
        raise InvalidParameterError(
            f"nums (length {len(nums)}) and r (length {len(r)}, entries >= 0) must fit "
            f"the non-empty shape {shape}")
    if all(x == 1 for x in r):
        # unit half-widths (a piece of a dyadic bisection, scaled by its centre's
        # denominators): the weights are all 1
        high = _high_order_getter(N, shape)
        return fmpq(sum(map(abs, high(nums)), fmpz(0)), den)
    absn = [abs(c) for c in nums]
    for fi in low_order_positions(N, shape):
        absn[fi] = fmpz(0)
    size = len(absn)
    scale = den
    rows = size
    M = None
    for i in range(len(shape) - 1, -1, -1):
        n = shape[i]
        s, t = fmpz(r[i].p), fmpz(r[i].q)
        sp, tp = [fmpz(1)], [fmpz(1)]
        for _ in range(1, n):
            sp.append(sp[-1] * s)
            tp.append(tp[-1] * t)
        v = fmpz_mat(n, 1, [sp[a] * tp[n - 1 - a] for a in range(n)])
        scale *= tp[n - 1]
        rows //= n
        M = fmpz_mat(rows, n, absn if M is None else M.entries()) * v
    assert M is not None  # the shape is non-empty (checked above)
    return fmpq(M[0, 0], scale)
