"""Exact cosine polynomials ``sum c_n cos(n theta)`` (the trig basis of wang2013)."""

from __future__ import annotations

from typing import Any

from flint import fmpq, fmpq_poly

from ..errors import DomainError, InvalidParameterError, ParameterTypeError
from ..numbers import IntLike, fmpq_str
from ._core import Point, cheb_to_poly, cosine_sum, fmpq_sum, poly_to_cheb
from .base import ExactPoly
from .bernstein import BernsteinPoly
from .chebyshev import ChebyshevPoly, add_coefficient_lists
from .monomial import MonomialPoly

__all__ = ["CosinePoly"]

_STD = (fmpq(-1), fmpq(1))


class CosinePoly(ExactPoly):
    """Exact cosine polynomial ``p(theta) = sum_n c_n cos(n theta)`` (no domain).

    Coefficient convention: ``(1, 2, 3)`` means ``1 + 2 cos(theta) + 3 cos(2 theta)``;
    trailing zeros are stripped; :attr:`degree` is the highest ``n`` with ``c_n != 0``.

    Identity: ``cos(n theta) = T_n(cos theta)`` (Mason & Handscomb 2003, Ch. 1), so
    ``p(theta) = q(cos theta)`` with ``q = sum c_n T_n`` the :class:`ChebyshevPoly` on
    ``(-1, 1)`` with the **same** coefficients.  :meth:`to_chebyshev`,
    :meth:`to_monomial` and :meth:`to_bernstein` are therefore a **change of variable
    x = cos(theta)**: the result is a polynomial in ``x``, not in ``theta``.  Products
    use ``cos(m t) cos(n t) = (cos((m+n) t) + cos((m-n) t))/2`` (same as ``T_m T_n``).

    Evaluation: at an ``arb``/``arb_series`` ``theta`` each ``cos(n theta)`` is enclosed
    by Arb and the terms are summed directly, so a wide ball costs at most
    ``sum |c_n|``.  An exact evaluation is only possible at ``theta = 0``
    (``p(0) = sum c_n``); at another rational ``theta`` the value is irrational in
    general and :class:`~dpverify.errors.DomainError` is raised.

    Guarantee
    ---------
    Exact (``fmpq``) coefficients, conversions, arithmetic and ``p(0)``; for an ``arb``
    input the result encloses ``p`` over the whole input ball.
    """

    basis = "cosine"
    __slots__ = ()

    def __init__(self, coeffs: Any) -> None:
        self._init(coeffs, None)

    # -------------------------------------------------------------- evaluation

    def _eval(self, x: Point) -> Any:
        if isinstance(x, fmpq):
            if x != 0:
                raise DomainError(
                    f"x = {fmpq_str(x)}: cos of a non-zero rational is irrational, so a"
                    " cosine polynomial has no exact value there; evaluate at an arb ball"
                    " or use p.to_chebyshev() at x = cos(theta)"
                )
            return fmpq_sum(self._coeffs)
        return cosine_sum(self._coeffs, x)

    # -------------------------------------------------------------- conversions

    def _monomial_poly(self) -> fmpq_poly:
        """``q(x)`` with ``p(theta) = q(cos theta)`` (change of variable)."""
        return cheb_to_poly(self._coeffs)

    @classmethod
    def _from_monomial(cls, p: fmpq_poly, domain: tuple[fmpq, fmpq] | None = None,
                       k: int | None = None) -> CosinePoly:
        # theta -> p(cos theta): the Chebyshev coefficients of p on (-1, 1)
        return cls._make(poly_to_cheb(p), None)

    def to_chebyshev(self, domain: Any = None) -> ChebyshevPoly:
        """Change of variable ``x = cos(theta)``: the :class:`ChebyshevPoly` ``q`` on
        ``(-1, 1)`` with the same coefficients (``q(cos theta) = p(theta)``); re-expanded
        exactly on ``domain`` if another domain is given."""
        q = ChebyshevPoly._make(list(self._coeffs), _STD)
        return q if domain is None else q.to_chebyshev(domain)

    def to_monomial(self) -> MonomialPoly:
        """Change of variable ``x = cos(theta)``: ``q`` in the monomial basis with
        ``q(cos theta) = p(theta)``."""
        return MonomialPoly.from_fmpq_poly(self._cached_monomial())

    def to_bernstein(self, k: IntLike | None = None, domain: Any = None) -> BernsteinPoly:
        """Change of variable ``x = cos(theta)``, then Bernstein form of ``q`` of order
        ``k`` on ``domain`` (default ``(0, 1)``)."""
        result = super().to_bernstein(k=k, domain=domain)
        assert isinstance(result, BernsteinPoly)  # BASES["bernstein"] is that class
        return result

    def to_cosine(self) -> CosinePoly:
        """Itself."""
        return self

    @classmethod
    def from_chebyshev(cls, p: ExactPoly) -> CosinePoly:
        """Change of variable ``x = cos(theta)``: ``theta -> p(cos theta)``.

        Raises
        ------
        ParameterTypeError
            If ``p`` is not a :class:`ChebyshevPoly`.
        DomainError
            If the domain of ``p`` is not ``(-1, 1)`` (convert with
            ``p.to_chebyshev(domain=(-1, 1))`` first).
        """
        if not isinstance(p, ChebyshevPoly):
            raise ParameterTypeError(f"p must be a ChebyshevPoly, got {type(p).__name__}")
        dom = p.domain
        if dom != _STD:
            got = "None" if dom is None else f"({fmpq_str(dom[0])}, {fmpq_str(dom[1])})"
            raise DomainError(
                f"p must be on the domain (-1, 1) to substitute x = cos(theta), got {got};"
                " use p.to_chebyshev(domain=(-1, 1)) first"
            )
        return cls._make(list(p.coeffs), None)

    # -------------------------------------------------------------- arithmetic

    def _add(self, other: ExactPoly) -> CosinePoly:
        return CosinePoly._make(add_coefficient_lists(self._coeffs, other._coeffs), None)

    def _add_scalar(self, q: fmpq) -> CosinePoly:
        cs = list(self._coeffs)
        cs[0] += q
        return CosinePoly._make(cs, None)

    def _mul(self, other: ExactPoly) -> CosinePoly:
        prod = cheb_to_poly(self._coeffs) * cheb_to_poly(other._coeffs)
        return CosinePoly._make(poly_to_cheb(prod), None)

    def derivative(self) -> ExactPoly:
        """Not available: ``d/dtheta cos(n theta) = -n sin(n theta)`` is not a cosine
        polynomial.

        Raises
        ------
        InvalidParameterError
            Always; use ``p.to_chebyshev().derivative()`` for ``dq/dx``.
        """
        raise InvalidParameterError(
            "the derivative of a cosine polynomial in theta is a sine series, which the"
            " cosine basis cannot represent; use p.to_chebyshev().derivative() for d/dx"
            " with x = cos(theta)"
        )
