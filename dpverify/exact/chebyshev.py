"""Exact polynomials in the Chebyshev basis ``T_0, T_1, ...`` on an interval."""

from __future__ import annotations

from typing import Any

from flint import fmpq, fmpq_poly, fmpz_poly

from ..numbers import MAX_DEGREE, IntLike, check_int
from ._core import (
    Point,
    affine_map,
    cheb_to_poly,
    clenshaw,
    compose_affine_poly,
    map_point,
    poly_to_cheb,
)
from .base import ExactPoly
from .monomial import MonomialPoly

__all__ = ["ChebyshevPoly", "chebyshev_t"]

_STD = (fmpq(-1), fmpq(1))


class ChebyshevPoly(ExactPoly):
    """Exact polynomial ``p(x) = sum_n c_n T_n(u)``, ``u = (2x - a - b)/(b - a)``.

    Coefficient convention: ``(1, 2, 3)`` means ``1*T_0(u) + 2*T_1(u) + 3*T_2(u)`` (no
    halving of ``c_0``); trailing zeros are stripped.  ``T_n(cos t) = cos(n t)``,
    ``T_0 = 1``, ``T_1 = u``, ``T_{n+1} = 2u T_n - T_{n-1}``.

    Parameters
    ----------
    coeffs : iterable of exact numbers
        Chebyshev coefficients, lowest index first.
    domain : pair of exact numbers, default (-1, 1)
        ``(a, b)`` with ``a < b``; mapped affinely onto ``[-1, 1]``.

    Notes
    -----
    Evaluation uses Clenshaw's recurrence (Clenshaw 1955; Mason & Handscomb,
    *Chebyshev Polynomials*, 2003, Ch. 2).  In exact arithmetic it is exact.  For
    ``arb`` input it is rigorous and tight for point (narrow) balls, but on *wide* balls
    the recurrence ``b_n = c_n + 2u b_{n+1} - b_{n+2}`` amplifies the input radius
    (roughly by a factor growing with the degree): wide-ball callers should subdivide or
    use a Taylor form (``to_monomial().taylor_shift(m)``).  Conversions to and from the
    monomial basis are exact (Clenshaw run on ``fmpq_poly``; Horner in the Chebyshev
    basis with ``u T_n = (T_{n+1} + T_{|n-1|})/2``).

    Guarantee
    ---------
    Exact (``fmpq``) for rational inputs, conversions and arithmetic; for an ``arb``
    input the result encloses ``p`` over the whole input ball.
    """

    basis = "chebyshev"
    __slots__ = ()

    def __init__(self, coeffs: Any, domain: Any = (-1, 1)) -> None:
        self._init(coeffs, domain)

    @classmethod
    def _default_domain(cls) -> tuple[fmpq, fmpq]:
        return _STD

    def _u_map(self) -> tuple[fmpq, fmpq]:
        """``(alpha, beta)`` with ``u = alpha*x + beta``."""
        assert self._domain is not None
        return affine_map(self._domain, _STD)

    # -------------------------------------------------------------- evaluation

    def _eval(self, x: Point) -> Any:
        alpha, beta = self._u_map()
        return clenshaw(self._coeffs, map_point(x, alpha, beta))

    # -------------------------------------------------------------- conversions

    def _monomial_poly(self) -> fmpq_poly:
        alpha, beta = self._u_map()
        return compose_affine_poly(cheb_to_poly(self._coeffs), alpha, beta)

    @classmethod
    def _from_monomial(cls, p: fmpq_poly, domain: tuple[fmpq, fmpq] | None,
                       k: int | None = None) -> ChebyshevPoly:
        assert domain is not None  # a Chebyshev polynomial always has its interval
        # x = gamma*u + delta maps [-1, 1] onto the domain
        gamma, delta = affine_map(_STD, domain)
        q = compose_affine_poly(p, gamma, delta)
        obj = cls._make(poly_to_cheb(q), domain)
        obj._cache["mono"] = p
        return obj

    def to_chebyshev(self, domain: Any = None) -> ChebyshevPoly:
        """Exact re-expansion on ``domain`` (itself when the domain is unchanged)."""
        dom = self._target_domain(domain, (-1, 1))
        if dom == self._domain:
            return self
        return ChebyshevPoly._from_monomial(self._cached_monomial(), dom)

    def to_cosine(self) -> ExactPoly:
        """Change of variable ``x = cos(theta)`` (see :class:`CosinePoly`); on a domain
        other than ``(-1, 1)`` the polynomial is first re-expanded on ``(-1, 1)``."""
        return super().to_cosine()

    # -------------------------------------------------------------- arithmetic

    def _add(self, other: ExactPoly) -> ChebyshevPoly:
        return ChebyshevPoly._make(add_coefficient_lists(self._coeffs, other._coeffs), self._domain)

    def _add_scalar(self, q: fmpq) -> ChebyshevPoly:
        cs = list(self._coeffs)
        cs[0] += q
        return ChebyshevPoly._make(cs, self._domain)

    def _mul(self, other: ExactPoly) -> ChebyshevPoly:
        prod = cheb_to_poly(self._coeffs) * cheb_to_poly(other._coeffs)
        return ChebyshevPoly._make(poly_to_cheb(prod), self._domain)

    def derivative(self) -> ChebyshevPoly:
        """Exact ``dp/dx`` in the Chebyshev basis on the same domain, by
        ``c'_{n-1} = c'_{n+1} + 2n c_n`` (halving ``c'_0``) times ``du/dx = 2/(b-a)``
        (Mason & Handscomb 2003, Ch. 2; numpy ``chebder``)."""
        cs = self._coeffs
        n = len(cs) - 1
        if n == 0:
            return ChebyshevPoly._make([fmpq(0)], self._domain)
        der = [fmpq(0)] * (n + 2)
        for j in range(n, 0, -1):
            der[j - 1] = der[j + 1] + 2 * j * cs[j]
        der[0] = der[0] / 2
        alpha, _ = self._u_map()
        return ChebyshevPoly._make([d * alpha for d in der[:n]], self._domain)


def add_coefficient_lists(a: tuple[fmpq, ...], b: tuple[fmpq, ...]) -> list[fmpq]:
    n = max(len(a), len(b))
    out = [fmpq(0)] * n
    for i, c in enumerate(a):
        out[i] += c
    for i, c in enumerate(b):
        out[i] += c
    return out


def chebyshev_t(n: IntLike) -> MonomialPoly:
    """The Chebyshev polynomial ``T_n(x)`` in the monomial basis (exact integers).

    ``T_n(cos t) = cos(n t)``; computed by FLINT's ``fmpz_poly.chebyshev_t``.
    """
    n = check_int(n, "n", minimum=0, maximum=MAX_DEGREE)
    return MonomialPoly.from_fmpq_poly(fmpq_poly(fmpz_poly.chebyshev_t(n)))
