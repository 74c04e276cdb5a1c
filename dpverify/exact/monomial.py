"""Exact polynomials in the monomial basis ``1, x, x^2, ...``."""

from __future__ import annotations

from typing import Any

from flint import fmpq, fmpq_poly

from ..errors import ParameterTypeError
from ..numbers import ExactLike, IntLike
from ..progress import ProgressCallback, report
from ._core import Point, compose_affine_poly, exact_number, horner
from .base import ExactPoly
from .sizes import poly_of

__all__ = ["MonomialPoly"]


class MonomialPoly(ExactPoly):
    """Exact polynomial ``p(x) = sum_i c_i x^i`` (no domain).

    Coefficient convention: lowest degree first, ``(1, 2, 3)`` means ``1 + 2 x + 3 x^2``.
    Trailing zeros are stripped (down to length 1).

    Parameters
    ----------
    coeffs : iterable of exact numbers
        Read exactly (``exact_number`` in :mod:`dpverify.exact._core`): int, fmpz,
        fmpq, Fraction, text (``"3/7"``, ``"1e-3"``), float64 / numpy floats and mpmath
        ``mpf`` (their exact binary values), exact ``arb``; a numpy array is read entry by
        entry.

    Notes
    -----
    Evaluation uses Horner's rule ``p(x) = c_0 + x (c_1 + x (c_2 + ...))``.  On a wide
    ``arb`` ball Horner's rule is rigorous but overestimates (the dependency problem);
    callers bounding ``p`` over a wide interval should subdivide or use a Taylor form
    (:meth:`taylor_shift`).

    Guarantee
    ---------
    Exact (``fmpq``) for rational inputs, conversions and arithmetic; for an ``arb``
    input the result encloses ``p`` over the whole input ball.
    """

    basis = "monomial"
    __slots__ = ()

    def __init__(self, coeffs: Any) -> None:
        self._init(coeffs, None)

    # -------------------------------------------------------------- fmpq_poly bridge

    @classmethod
    def from_fmpq_poly(cls, p: fmpq_poly, *,
                       progress: ProgressCallback | None = None) -> MonomialPoly:
        """Build from a :class:`flint.fmpq_poly` (exact).

        ``progress(stage, done, total)``, optional: the coefficients reduced so far (each
        is reduced to lowest terms, a gcd with the common denominator: seconds for
        polynomials of degree in the thousands with 10^4-bit denominators)."""
        if not isinstance(p, fmpq_poly):
            raise ParameterTypeError(f"p must be an fmpq_poly, got {type(p).__name__}")
        # one coefficient at a time, not p.coeffs(): the gcds take seconds at degree 4000
        # and a single call could not be stopped at a deadline (report() checks it)
        n = p.degree() + 1
        cs = []
        for i in range(n):
            if not i & 15:
                report(progress, "coefficients in lowest terms", i, n)
            cs.append(p[i])
        report(progress, "coefficients in lowest terms", n, n)
        cs = cs or [fmpq(0)]
        obj = cls._make(cs, None)
        obj._cache["mono"] = p
        return obj

    def _monomial_poly(self) -> fmpq_poly:
        return poly_of(self._coeffs)

    @classmethod
    def _from_monomial(cls, p: fmpq_poly, domain: tuple[fmpq, fmpq] | None = None,
                       k: int | None = None) -> MonomialPoly:
        return cls.from_fmpq_poly(p)

    def to_monomial(self) -> MonomialPoly:
        """Itself (already monomial)."""
        return self

    # -------------------------------------------------------------- evaluation

    def _eval(self, x: Point) -> Any:
        if isinstance(x, fmpq):
            return self._cached_monomial()(x)
        return horner(self._coeffs, x)

    # -------------------------------------------------------------- substitutions

    def compose_affine(self, alpha: ExactLike, beta: ExactLike) -> MonomialPoly:
        """Exact ``p(alpha*x + beta)``."""
        a = exact_number(alpha, "alpha")
        b = exact_number(beta, "beta")
        return MonomialPoly.from_fmpq_poly(compose_affine_poly(self._cached_monomial(), a, b))

    def taylor_shift(self, m: IntLike) -> MonomialPoly:
        """Exact Taylor expansion at ``m``: the polynomial ``t -> p(m + t)``, whose
        coefficient ``j`` is ``p^{(j)}(m)/j!`` (fmpq_poly composition with ``m + t``)."""
        mm = exact_number(m, "m")
        return self.compose_affine(1, mm)

    # -------------------------------------------------------------- arithmetic

    def _add(self, other: ExactPoly) -> MonomialPoly:
        return MonomialPoly.from_fmpq_poly(self._cached_monomial() + other._cached_monomial())

    def _add_scalar(self, q: fmpq) -> MonomialPoly:
        return MonomialPoly.from_fmpq_poly(self._cached_monomial() + q)

    def _mul(self, other: ExactPoly) -> MonomialPoly:
        return MonomialPoly.from_fmpq_poly(self._cached_monomial() * other._cached_monomial())

    def derivative(self) -> MonomialPoly:
        """Exact derivative ``sum i c_i x^(i-1)``."""
        return MonomialPoly.from_fmpq_poly(self._cached_monomial().derivative())
