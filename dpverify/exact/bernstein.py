"""Exact polynomials in the Bernstein basis of order ``k`` on an interval."""

from __future__ import annotations

from typing import Any

from flint import fmpq, fmpq_poly

from ..numbers import MAX_DEGREE, IntLike, check_int
from ._core import (
    Point,
    affine_map,
    bern_to_spoly,
    binomials,
    compose_affine_poly,
    de_casteljau,
    map_point,
    spoly_to_bern,
)
from .base import ExactPoly
from .monomial import MonomialPoly
from .sizes import poly_of

__all__ = ["BernsteinPoly", "bernstein_basis_poly"]

_UNIT = (fmpq(0), fmpq(1))


class BernsteinPoly(ExactPoly):
    """Exact polynomial ``p(x) = sum_{nu=0}^{k} c_nu b_{nu,k}(s)``,
    ``b_{nu,k}(s) = C(k,nu) s^nu (1-s)^(k-nu)``, ``s = (x - a)/(b - a)``.

    Coefficient convention: ``(1, 2, 3)`` means ``1*b_{0,2} + 2*b_{1,2} + 3*b_{2,2}``
    (the binomial factor is part of the basis, as in alda2017 Def. 6).  Trailing zeros
    are **kept**: the length fixes the order ``k = len(coeffs) - 1`` (attribute ``k``);
    the :attr:`degree` is the algebraic degree (``<= k``).

    Parameters
    ----------
    coeffs : iterable of exact numbers
        Bernstein coefficients ``c_0, ..., c_k``.
    domain : pair of exact numbers, default (0, 1)
        ``(a, b)`` with ``a < b``; mapped affinely onto ``[0, 1]``.

    Notes
    -----
    Evaluation uses de Casteljau's algorithm, ``c_i <- (1-s) c_i + s c_{i+1}`` repeated
    ``k`` times (Farin, *Curves and Surfaces for CAGD*).  For ``s`` in
    ``[0, 1]`` every step is a convex combination, so no cancellation occurs and ball
    radii grow only additively (by about ``rad(s) * 2 max|c|`` per step) instead of
    being amplified; the result always lies in ``[min c, max c]`` for exact ``s`` in
    ``[0, 1]`` (convex hull property).  Conversions with the monomial basis are exact
    (``a_j = C(k,j) Delta^j c_0``, done by ``fmpq_poly`` compositions).  Degree elevation
    (:meth:`elevate`) uses the same exact route.  ``+``/``-`` of two Bernstein
    polynomials of different orders on the same domain elevate the lower order first
    (same basis, no change of representation); ``*`` multiplies orders
    (``k1 + k2``) by the exact product rule
    ``c_i = sum_j C(k1,j) C(k2,i-j) / C(k1+k2,i) a_j b_{i-j}``.

    Guarantee
    ---------
    Exact (``fmpq``) for rational inputs, conversions and arithmetic; for an ``arb``
    input the result encloses ``p`` over the whole input ball.
    """

    basis = "bernstein"
    __slots__ = ()

    def __init__(self, coeffs: Any, domain: Any = (0, 1)) -> None:
        self._init(coeffs, domain)

    @classmethod
    def _strips(cls) -> bool:
        return False

    @classmethod
    def _default_domain(cls) -> tuple[fmpq, fmpq]:
        return _UNIT

    @property
    def k(self) -> int:
        """The order ``k = len(coeffs) - 1``."""
        return len(self._coeffs) - 1

    def _s_map(self) -> tuple[fmpq, fmpq]:
        """``(alpha, beta)`` with ``s = alpha*x + beta``."""
        assert self._domain is not None
        return affine_map(self._domain, _UNIT)

    def _spoly(self) -> fmpq_poly:
        p = self._cache.get("spoly")
        if p is None:
            p = bern_to_spoly(self._coeffs)
            self._cache["spoly"] = p
        return p

    @property
    def degree(self) -> int:
        """Exact algebraic degree (``<= k``); ``-1`` for the zero polynomial."""
        return self._spoly().degree()

    # -------------------------------------------------------------- evaluation

    def _eval(self, x: Point) -> Any:
        alpha, beta = self._s_map()
        return de_casteljau(self._coeffs, map_point(x, alpha, beta))

    # -------------------------------------------------------------- conversions

    def _monomial_poly(self) -> fmpq_poly:
        alpha, beta = self._s_map()
        return compose_affine_poly(self._spoly(), alpha, beta)

    @classmethod
    def _from_monomial(cls, p: fmpq_poly, domain: tuple[fmpq, fmpq] | None,
                       k: int | None = None) -> BernsteinPoly:
        assert domain is not None  # a Bernstein polynomial always has its interval
        if k is None:
            k = max(p.degree(), 0)
        gamma, delta = affine_map(_UNIT, domain)  # x = gamma*s + delta
        q = compose_affine_poly(p, gamma, delta)
        obj = cls._make(spoly_to_bern(q, k), domain)
        obj._cache["mono"] = p
        obj._cache["spoly"] = q
        return obj

    def to_bernstein(self, k: IntLike | None = None, domain: Any = None) -> BernsteinPoly:
        """Exact conversion to order ``k`` (default: the algebraic degree, ``0`` for the
        zero polynomial, as for every basis -- so this may *reduce* the order; pass
        ``k=p.k`` to keep it) on ``domain`` (default: the same domain)."""
        if domain is None or self._target_domain(domain, (0, 1)) == self._domain:
            return self.elevate(max(self.degree, 0) if k is None else k)
        result = super().to_bernstein(k=k, domain=domain)
        assert isinstance(result, BernsteinPoly)  # BASES["bernstein"] is this class
        return result

    def elevate(self, k: IntLike) -> BernsteinPoly:
        """Exact degree elevation (or reduction, when possible) to order ``k``.

        Raises
        ------
        InvalidParameterError
            If ``k`` is below the algebraic degree or above ``MAX_DEGREE``.
        """
        kk = check_int(k, "k", minimum=max(self.degree, 0), maximum=MAX_DEGREE)
        if kk == self.k:
            return self
        obj = BernsteinPoly._make(spoly_to_bern(self._spoly(), kk), self._domain)
        obj._cache["spoly"] = self._spoly()
        return obj

    # -------------------------------------------------------------- arithmetic

    def _add(self, other: ExactPoly) -> BernsteinPoly:
        assert isinstance(other, BernsteinPoly)
        k = max(self.k, other.k)
        a = self.elevate(k)._coeffs
        b = other.elevate(k)._coeffs
        return BernsteinPoly._make([x + y for x, y in zip(a, b, strict=True)], self._domain)

    def _add_scalar(self, q: fmpq) -> BernsteinPoly:
        # partition of unity: sum_nu b_{nu,k} = 1
        return BernsteinPoly._make([c + q for c in self._coeffs], self._domain)

    def _mul(self, other: ExactPoly) -> BernsteinPoly:
        assert isinstance(other, BernsteinPoly)
        k1, k2 = self.k, other.k
        # homogeneous form: sum C(k,j) c_j X^j Y^(k-j); products of forms convolve.
        d = poly_of([c * b for c, b in zip(self._coeffs, binomials(k1), strict=True)])
        e = poly_of([c * b for c, b in zip(other._coeffs, binomials(k2), strict=True)])
        prod = (d * e).coeffs()
        prod += [fmpq(0)] * (k1 + k2 + 1 - len(prod))
        cs = [c / b for c, b in zip(prod, binomials(k1 + k2), strict=True)]
        return BernsteinPoly._make(cs, self._domain)

    def _canonical(self) -> tuple[fmpq, ...]:
        # equal polynomials of different orders compare equal (elevation invariance)
        return tuple(self._spoly().coeffs())

    def derivative(self) -> BernsteinPoly:
        """Exact ``dp/dx`` of order ``k - 1`` (order 0 for ``k = 0``):
        ``k/(b-a) * (c_{nu+1} - c_nu)`` (Farin, *Curves and Surfaces for CAGD*)."""
        cs = self._coeffs
        k = self.k
        if k == 0:
            return BernsteinPoly._make([fmpq(0)], self._domain)
        alpha, _ = self._s_map()
        f = alpha * k
        return BernsteinPoly._make(
            [f * (cs[i + 1] - cs[i]) for i in range(k)], self._domain
        )


def bernstein_basis_poly(nu: Any, k: IntLike) -> MonomialPoly:
    """``b_{nu,k}(x) = C(k,nu) x^nu (1-x)^(k-nu)`` in the monomial basis (exact), the
    Bernstein basis polynomial on ``[0, 1]``."""
    k = check_int(k, "k", minimum=0, maximum=MAX_DEGREE)
    nu = check_int(nu, "nu", minimum=0, maximum=k)
    p = fmpq_poly([0, 1]) ** nu * fmpq_poly([1, -1]) ** (k - nu) * binomials(k)[nu]
    return MonomialPoly.from_fmpq_poly(p)
