"""Range of a polynomial with ball coefficients over a box, from its Bernstein coefficients.

The box branch and bound (:mod:`.piece_bounds`) writes ``f - p`` on a piece with centre
``m`` and half-widths ``r`` as a Taylor model ``sum_alpha c_alpha h^alpha`` (``|h_i| <=
r_i``) plus a remainder.  Bounding the polynomial part term by term (``sum |c_alpha|
r^alpha``) over-estimates it badly where it oscillates or peaks inside the piece.  Here the
range is enclosed by its Bernstein coefficients instead:

* substitute ``h_i = r_i (2 u_i - 1)``, ``u`` in ``[0, 1]^d``;
* write the result in the tensor Bernstein basis of degree ``n`` per axis,
  ``sum_j b_j prod_i C(n, j_i) u_i^j_i (1 - u_i)^(n - j_i)``.  Those basis polynomials are
  non-negative and sum to 1 on the cube, so every value lies in ``[min_j b_j, max_j b_j]``
  (the Bernstein enclosure; Farouki and Rajan 1987, Garloff 1986);
* along one axis, the Bernstein coefficient ``j`` of ``h^a`` is ``beta_n[j][a] r^a`` with
  ``beta_n[j][a] = sum_k C(a, k) 2^k (-1)^(a - k) C(j, k) / C(n, k)`` (the coefficient of
  ``u^k`` in ``(2u - 1)^a``, times the Bernstein coefficient ``C(j, k) / C(n, k)`` of
  ``u^k``; exact rationals, :func:`bernstein_matrix`).

The transform is linear and separable: one ``(n+1) x (n+1)`` matrix per axis, applied with
``arb_mat`` products (the tensor is rotated between axes, so every product has the axis
being transformed as its rows).  The enclosure over-estimates the range by ``O(|r|^2)``
(like the triangle bound at a peak) but, unlike the triangle bound, it is nearly exact for
polynomials that oscillate over the box.

Guarantee
---------
:func:`bernstein_range` returns balls ``lo``, ``hi`` with ``lo <= sum_alpha c_alpha h^alpha
<= hi`` for every ``h`` in the closed box and every choice of the coefficients in their
balls (the coefficients may even depend on ``h``, as Lagrange remainder coefficients do:
the bound holds for each ``h`` with that ``h``'s coefficients).  Ball arithmetic only.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from math import comb

from flint import arb, arb_mat, ctx, fmpq

from ..errors import InvalidParameterError

__all__ = ["bernstein_matrix", "bernstein_range"]

#: cached arb matrices: one per (degree, half-width, precision)
_MATRIX_CACHE = 256


@lru_cache(maxsize=16)
def bernstein_matrix(n: int) -> tuple[tuple[fmpq, ...], ...]:
    """``beta_n[j][a]``: the Bernstein coefficient ``j`` (degree ``n`` on ``[0, 1]``) of
    ``(2u - 1)^a``, for ``0 <= j, a <= n`` (exact).

    ``(2u - 1)^1 = -B_0 + B_1`` in degree 1:

    >>> [[str(x) for x in row] for row in bernstein_matrix(1)]
    [['1', '-1'], ['1', '1']]
    """
    if n < 0:
        raise InvalidParameterError(f"n must be >= 0, got {n}")
    return tuple(
        tuple(sum((fmpq(comb(a, k) * 2**k * (-1) ** (a - k) * comb(j, k), comb(n, k))
                   for k in range(min(a, j) + 1)), fmpq(0))
              for a in range(n + 1))
        for j in range(n + 1))


@lru_cache(maxsize=_MATRIX_CACHE)
def _axis_matrix(n: int, r: fmpq, prec: int) -> arb_mat:
    """``beta_n[j][a] r^a`` as an arb matrix at ``prec`` bits (rows ``j``, columns ``a``)."""
    beta = bernstein_matrix(n)
    with ctx.workprec(prec):
        return arb_mat(n + 1, n + 1, [arb(beta[j][a] * r**a)
                                      for j in range(n + 1) for a in range(n + 1)])


def bernstein_range(terms: Sequence[tuple[tuple[int, ...], arb]], n: int,
                    r: Sequence[fmpq]) -> tuple[arb, arb]:
    """``(lo, hi)`` enclosing ``sum c_alpha h^alpha`` over ``|h_i| <= r_i`` (see the module
    docstring) at the current working precision.

    Parameters
    ----------
    terms : sequence of (alpha, c)
        Multi-indices with every entry ``<= n`` and ball coefficients (repeated indices
        add up).
    n : int
        Bernstein degree per axis (at least the largest exponent of any variable).
    r : sequence of fmpq
        Half-widths ``r_i >= 0``, one per variable.
    """
    d = len(r)
    if d < 1 or n < 0 or any(x < 0 for x in r):
        raise InvalidParameterError(f"need d >= 1 half-widths >= 0 and n >= 0, got {r}, {n}")
    size = (n + 1) ** d
    T = [arb(0)] * size
    for alpha, c in terms:
        if len(alpha) != d or any(not 0 <= a <= n for a in alpha):
            raise InvalidParameterError(f"multi-index {alpha} does not fit d = {d}, n = {n}")
        pos = 0
        for a in alpha:
            pos = pos * (n + 1) + a
        T[pos] = T[pos] + c
    cur = T
    rows, cols = n + 1, size // (n + 1)
    for i in range(d):
        # cur holds the tensor with axis i first: transform it, then rotate it to the end
        A = _axis_matrix(n, fmpq(r[i]), ctx.prec)
        cur = (A * arb_mat(rows, cols, cur)).transpose().entries()
    lo = hi = cur[0]
    for v in cur[1:]:
        lo = lo.min(v)
        hi = hi.max(v)
    return lo, hi
