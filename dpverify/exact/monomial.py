"""Exact polynomials in the monomial basis ``1, x, x^2, ...``."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from flint import fmpq, fmpq_poly, fmpz

from ..errors import ParameterTypeError
from ..numbers import ExactLike, IntLike
from ..progress import ProgressCallback, report
from ._core import Point, check_length, compose_affine_poly, exact_number, horner
from .base import ExactPoly
from .lowest_terms import coefficient_strings
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
        """Build from a :class:`flint.fmpq_poly` (exact), keeping its common-denominator form.

        Reducing the coefficients to lowest terms one by one costs a gcd with the common
        denominator each (minutes for degrees in the tens of thousands with 10^5-bit
        denominators), so it is deferred until a coefficient is first read as an ``fmpq``
        (``coeffs``, equality, hashing, pickling, ...).  ``degree``, ``is_zero``,
        ``coefficient_norm``, ``max_abs_coefficient``, exact evaluation, arithmetic and
        :meth:`to_json` (batched reduction, :mod:`dpverify.exact.lowest_terms`) work on the
        common-denominator form and never need it.

        ``progress(stage, done, total)``, optional: reduce the coefficients now, reporting
        the count reduced so far."""
        if not isinstance(p, fmpq_poly):
            raise ParameterTypeError(f"p must be an fmpq_poly, got {type(p).__name__}")
        check_length(max(p.length(), 1), "coeffs")
        obj = cls.__new__(cls)
        object.__setattr__(obj, "_domain", None)
        object.__setattr__(obj, "_cache", {"mono": p, "lazy": True})
        if progress is not None:
            obj._reduce(progress)
        return obj

    def _reduce(self, progress: ProgressCallback | None = None) -> tuple[fmpq, ...]:
        """Set the reduced ``fmpq`` coefficients from the common-denominator form."""
        p = self._cache["mono"]
        n = p.degree() + 1
        cs = []
        for i in range(n):
            # one coefficient at a time, not p.coeffs(): report() also checks the deadline,
            # and the gcds of a single call could not be stopped at it
            if not i & 127:
                report(progress, "coefficients in lowest terms", i, n)
            cs.append(p[i])
        report(progress, "coefficients in lowest terms", n, n)
        coeffs = tuple(cs or [fmpq(0)])
        object.__setattr__(self, "_coeffs", coeffs)
        self._cache.pop("lazy", None)
        return coeffs

    if not TYPE_CHECKING:  # at run time only: type checkers keep seeing the declared slot

        def __getattr__(self, name: str) -> Any:
            # an unset slot ends here: the coefficients of a lazily built polynomial
            if name == "_coeffs" and "lazy" in self._cache:
                return self._reduce()
            raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    def _lazy(self) -> bool:
        return "lazy" in self._cache

    @property
    def degree(self) -> int:
        """Exact algebraic degree (leading coefficient non-zero); ``-1`` for zero."""
        if self._lazy():
            return int(self._cache["mono"].degree())
        return super().degree

    def is_zero(self) -> bool:
        """True iff this is the zero polynomial."""
        if self._lazy():
            return bool(self._cache["mono"].is_zero())
        return super().is_zero()

    def coefficient_norm(self) -> fmpq:
        """Exact ``sum |c_i|`` (from the common-denominator form when the coefficients were
        not reduced yet: ``sum |n_i| / den``, the same rational)."""
        if self._lazy():
            p = self._cache["mono"]
            return fmpq(sum((abs(c) for c in p.numer().coeffs()), fmpz(0)), p.denom())
        return super().coefficient_norm()

    def max_abs_coefficient(self) -> fmpq:
        """Exact ``max |c_i|``."""
        if self._lazy():
            p = self._cache["mono"]
            return fmpq(max((abs(c) for c in p.numer().coeffs()), default=fmpz(0)), p.denom())
        return super().max_abs_coefficient()

    def to_json(self, *, progress: ProgressCallback | None = None) -> dict[str, Any]:
        """``{"basis": "monomial", "domain": None, "coefficients": ["p/q", ...]}`` (exact
        strings in lowest terms, as :meth:`ExactPoly.to_json`); for a polynomial built by
        :meth:`from_fmpq_poly` they are computed from the common-denominator form in one
        batched pass
        (:func:`~dpverify.exact.lowest_terms.coefficient_strings`; ``progress`` reports
        it) and kept."""
        if not self._lazy() and "strings" not in self._cache:
            return super().to_json()
        strings = self._cache.get("strings")
        if strings is None:
            strings = coefficient_strings(self._cached_monomial(), progress=progress)
            self._cache["strings"] = strings
        return {"basis": self.basis, "domain": None, "coefficients": list(strings)}

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
