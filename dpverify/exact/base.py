"""The abstract base :class:`ExactPoly`: one interface for every univariate basis.

Modelled on ``numpy.polynomial._polybase.ABCPolyBase``: a thin immutable class binds
pure functions on coefficient lists (:mod:`dpverify.exact._core`).  Mixing bases or
domains is an error (:class:`~dpverify.errors.BasisMismatchError`), never a silent
conversion; conversions are explicit (``to_monomial``, ``to_chebyshev``,
``to_bernstein``, ``to_cosine``, ``convert``).
"""

from __future__ import annotations

import html
from abc import ABC, abstractmethod
from collections.abc import Callable
from fractions import Fraction
from typing import Any, ClassVar, TypeVar

from flint import fmpq, fmpq_poly, fmpz

from ..errors import BasisMismatchError, InvalidParameterError, ParameterTypeError
from ..numbers import MAX_DEGREE, IntLike, check_int, fmpq_str, to_fmpq
from ._core import (
    Point,
    check_domain,
    check_length,
    fmpq_abs_sum,
    lift,
    point_kind,
    read_coeffs,
    read_point,
    strip,
)

__all__ = ["ExactPoly", "BASES"]

#: a concrete basis class (``_make`` returns an instance of the class it is called on)
_P = TypeVar("_P", bound="ExactPoly")

#: basis name -> class; filled by the subclasses.
BASES: dict[str, type[ExactPoly]] = {}

_SCALARS = (int, fmpz, fmpq, Fraction)


def _scalar(other: Any) -> fmpq | None:
    """``other`` as fmpq if it is an exact scalar (int, fmpz, fmpq, Fraction), else None."""
    if isinstance(other, bool) or not isinstance(other, _SCALARS):
        return None
    return to_fmpq(other, "scalar")


class ExactPoly(ABC):
    """Abstract immutable univariate polynomial with exact ``fmpq`` coefficients.

    Subclasses fix the basis (class attribute ``basis``).  Attributes ``coeffs``
    (tuple of ``fmpq``, lowest index first) and ``domain`` (``(a, b)`` of ``fmpq`` or
    ``None``).

    Guarantee
    ---------
    Exact inputs give exact outputs: conversions, arithmetic, ``degree``,
    ``coefficient_norm`` and evaluation at a rational are exact (``fmpq``).  Evaluation at
    an ``arb`` ball returns a ball that contains ``p(x)`` for every ``x`` in the input
    ball; evaluation at an ``arb_series`` runs the same algorithm on truncated series, so
    coefficient ``j`` of the result encloses ``p^{(j)}(x0)/j!`` for every ``x0`` in the
    constant-term ball (when the input is ``x0 + t``).
    """

    basis: ClassVar[str] = ""
    __slots__ = ("_coeffs", "_domain", "_cache")

    _coeffs: tuple[fmpq, ...]
    _domain: tuple[fmpq, fmpq] | None
    _cache: dict[str, Any]

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if cls.basis:
            BASES[cls.basis] = cls

    # ------------------------------------------------------------------ construction

    @classmethod
    def _strips(cls) -> bool:
        """Whether trailing zero coefficients are dropped (all bases but Bernstein)."""
        return True

    @classmethod
    def _default_domain(cls) -> tuple[fmpq, fmpq] | None:
        return None

    def _init(self, coeffs: Any, domain: Any) -> None:
        if type(coeffs).__module__.startswith("numpy.polynomial"):
            # deferred: numpy (about 60 ms at start-up) only for numpy input
            from .numpy_convert import read_numpy

            # never drop numpy's domain/window silently: convert exactly, or refuse
            basis, ncs, ndom = read_numpy(coeffs)
            if basis != self.basis:
                raise ParameterTypeError(
                    f"a numpy {type(coeffs).__name__} is a {basis} polynomial; use "
                    f"dpverify.exact.as_poly (or {BASES[basis].__name__}) instead of "
                    f"{type(self).__name__}")
            if domain is not None and self._read_domain(domain) not in (
                    ndom, self._default_domain()):
                raise InvalidParameterError(
                    f"domain {domain!r} contradicts the numpy polynomial's own domain/window")
            self._set(ncs, ndom)
            return
        cs = read_coeffs(coeffs, "coeffs")
        dom = self._read_domain(domain)
        self._set(cs, dom)

    @classmethod
    def _read_domain(cls, domain: Any) -> tuple[fmpq, fmpq] | None:
        if cls._default_domain() is None:
            if domain is not None:
                raise InvalidParameterError(
                    f"the {cls.basis} basis has no domain; got domain={domain!r}"
                )
            return None
        if domain is None:
            return cls._default_domain()
        return check_domain(domain, "domain")

    def _set(self, cs: list[fmpq], dom: tuple[fmpq, fmpq] | None) -> None:
        if self._strips():
            cs = strip(cs)
        check_length(len(cs), "coeffs")
        object.__setattr__(self, "_coeffs", tuple(cs))
        object.__setattr__(self, "_domain", dom)
        object.__setattr__(self, "_cache", {})

    @classmethod
    def _make(cls: type[_P], cs: list[fmpq], dom: tuple[fmpq, fmpq] | None) -> _P:
        """Build from already exact coefficients and a validated domain (no re-reading)."""
        obj = cls.__new__(cls)
        obj._set(list(cs), dom)
        return obj

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"{type(self).__name__} is immutable")

    def __reduce__(self) -> tuple[Any, ...]:
        return (_rebuild, (self.basis, self._coeffs, self._domain))

    # ------------------------------------------------------------------ attributes

    @property
    def coeffs(self) -> tuple[fmpq, ...]:
        """Exact coefficients, lowest index first."""
        return self._coeffs

    @property
    def domain(self) -> tuple[fmpq, fmpq] | None:
        """``(a, b)`` with ``a < b`` (exact), or ``None`` for bases without a domain."""
        return self._domain

    @property
    def degree(self) -> int:
        """Exact algebraic degree (leading coefficient non-zero); ``-1`` for zero."""
        if all(c == 0 for c in self._coeffs):
            return -1
        return len(self._coeffs) - 1

    def is_zero(self) -> bool:
        """True iff this is the zero polynomial."""
        return all(c == 0 for c in self._coeffs)

    def coefficient_norm(self) -> fmpq:
        """Exact ``sum |c_i|`` of the coefficients in *this* basis (common-denominator
        summation, :func:`~dpverify.exact.fmpq_abs_sum`)."""
        return fmpq_abs_sum(self._coeffs)

    def max_abs_coefficient(self) -> fmpq:
        """Exact ``max |c_i|`` in this basis."""
        return max(abs(c) for c in self._coeffs)

    # ------------------------------------------------------------------ evaluation

    def __call__(self, x: Any) -> Any:
        """Evaluate at ``x``.

        Parameters
        ----------
        x : int, fmpq, Fraction, str, arb or arb_series
            Exact numbers (read with :func:`dpverify.numbers.to_fmpq`) give an exact
            ``fmpq``; an ``arb`` gives a ball enclosing ``p`` over the whole input ball;
            an ``arb_series`` gives an ``arb_series`` (Taylor coefficients when
            ``x = x0 + t``).
        """
        pt = read_point(x, "x")
        kind = point_kind([pt])
        return lift(self._eval(pt), kind, [pt])

    @abstractmethod
    def _eval(self, x: Point) -> Any:
        """The evaluation algorithm on an exact, ball or series point."""

    def evaluate_float(self, xs: Any) -> Any:
        """float64 values at the points ``xs`` (numpy array-like of any shape), vectorised:
        Horner / Clenshaw / de Casteljau with the coefficients rounded to the nearest
        float64, bit for bit as :mod:`dpverify.fast` (see
        :func:`dpverify.exact.floateval.evaluate_float`).

        Guarantee
        ---------
        None (float64).  ``p(x)`` at a float gives the exact value at its binary value;
        ``p(arb)`` a rigorous ball.
        """
        # deferred: the float outputs load numpy (about 60 ms), which exact work never needs
        from .floateval import evaluate_float

        return evaluate_float(self, xs)

    # ------------------------------------------------------------------ conversions

    def to_numpy(self) -> Any:
        """A numpy polynomial for fast float evaluation (:func:`dpverify.exact.to_numpy`):
        monomial -> ``Polynomial``, Chebyshev -> ``Chebyshev`` on the same domain, Bernstein
        -> ``Chebyshev`` on its domain (exact re-expansion first).

        Guarantee
        ---------
        None beyond rounding: coefficients and domain ends are rounded to the nearest
        float64.
        """
        from .numpy_convert import to_numpy  # deferred: as evaluate_float

        return to_numpy(self)

    def to_mpmath(self, prec: Any = 53) -> Any:
        """An :class:`~dpverify.exact.floateval.MpmathPoly`: coefficients rounded to nearest
        at ``prec`` bits, evaluated in mpmath at ``prec`` bits.  Guarantee: none."""
        from .floateval import to_mpmath  # deferred: as evaluate_float

        return to_mpmath(self, prec)

    def to_sympy(self, var: Any = None) -> Any:
        """The same function as an exact SymPy expression (rational coefficients): see
        :func:`dpverify.exact.floateval.to_sympy`."""
        from .floateval import to_sympy  # deferred: as evaluate_float

        return to_sympy(self, var)

    @classmethod
    @abstractmethod
    def _from_monomial(cls, p: fmpq_poly, domain: tuple[fmpq, fmpq] | None,
                       k: int | None = None) -> ExactPoly:
        """The polynomial ``p`` (monomial basis, variable ``x``) in this basis on
        ``domain`` (order ``k`` for Bernstein; ignored elsewhere), exactly.  The base class
        converts through this classmethod of the target class, found by basis name in
        :data:`BASES` -- as numpy's ``ABCPolyBase.convert`` goes through its ``kind``
        argument -- so it never imports its subclasses."""

    @abstractmethod
    def _monomial_poly(self) -> fmpq_poly:
        """The same polynomial as an ``fmpq_poly`` in the variable ``x`` (exact)."""

    def _cached_monomial(self) -> fmpq_poly:
        p = self._cache.get("mono")
        if p is None:
            p = self._monomial_poly()
            self._cache["mono"] = p
        return p

    def as_fmpq_poly(self) -> fmpq_poly:
        """The same polynomial in the variable ``x`` as a :class:`flint.fmpq_poly`
        (exact; the domain map is applied)."""
        return self._cached_monomial()

    def to_monomial(self) -> ExactPoly:
        """Exact conversion to :class:`MonomialPoly` in the same variable ``x``
        (the domain map is applied, so the result is a polynomial in ``x``, not in ``u``
        or ``s``)."""
        return BASES["monomial"]._from_monomial(self._cached_monomial(), None)

    def _target_domain(self, domain: Any, default: tuple[int, int]) -> tuple[fmpq, fmpq]:
        if domain is not None:
            return check_domain(domain, "domain")
        if self._domain is not None:
            return self._domain
        return (fmpq(default[0]), fmpq(default[1]))

    def to_chebyshev(self, domain: Any = None) -> ExactPoly:
        """Exact conversion to :class:`ChebyshevPoly` on ``domain`` (default: this
        polynomial's domain, or ``(-1, 1)`` when it has none)."""
        dom = self._target_domain(domain, (-1, 1))
        return BASES["chebyshev"]._from_monomial(self._cached_monomial(), dom)

    def to_bernstein(self, k: IntLike | None = None, domain: Any = None) -> ExactPoly:
        """Exact conversion to :class:`BernsteinPoly` of order ``k`` on ``domain``.

        ``k`` defaults to the degree (``0`` for the zero polynomial); ``k > degree`` is
        degree elevation.  ``domain`` defaults to this polynomial's domain, or ``(0, 1)``.

        Raises
        ------
        InvalidParameterError
            If ``k`` is below the degree or above ``MAX_DEGREE``.
        """
        dom = self._target_domain(domain, (0, 1))
        deg = max(self.degree, 0)
        kk = deg if k is None else check_int(k, "k", minimum=deg, maximum=MAX_DEGREE)
        return BASES["bernstein"]._from_monomial(self._cached_monomial(), dom, kk)

    def to_cosine(self) -> ExactPoly:
        """Change of variable ``x = cos(theta)``: the :class:`CosinePoly`
        ``p(theta) = q(cos theta)`` whose coefficients are the Chebyshev coefficients of
        this polynomial ``q`` on ``(-1, 1)``."""
        cheb = self.to_chebyshev(domain=(-1, 1))
        return BASES["cosine"]._make(list(cheb.coeffs), None)

    def convert(self, basis: str, **kw: Any) -> ExactPoly:
        """``self.to_<basis>(**kw)`` for ``basis`` in monomial, chebyshev, bernstein, cosine."""
        converters: dict[str, Callable[..., ExactPoly]] = {
            "monomial": self.to_monomial, "chebyshev": self.to_chebyshev,
            "bernstein": self.to_bernstein, "cosine": self.to_cosine}
        if basis not in converters:
            raise InvalidParameterError(
                f"basis must be one of {sorted(converters)}, got {basis!r}"
            )
        return converters[basis](**kw)

    # ------------------------------------------------------------------ arithmetic

    def _check_same(self, other: ExactPoly) -> None:
        if other.basis != self.basis:
            raise BasisMismatchError(
                f"cannot combine a {self.basis} polynomial with a {other.basis} polynomial;"
                f" convert one explicitly, e.g. q.convert({self.basis!r})"
            )
        if other._domain != self._domain:
            raise BasisMismatchError(
                f"cannot combine {self.basis} polynomials on different domains "
                f"{_dom_str(self._domain)} and {_dom_str(other._domain)}; convert explicitly"
            )

    @abstractmethod
    def _add(self, other: ExactPoly) -> ExactPoly: ...

    @abstractmethod
    def _add_scalar(self, q: fmpq) -> ExactPoly: ...

    @abstractmethod
    def _mul(self, other: ExactPoly) -> ExactPoly: ...

    def _scale(self, q: fmpq) -> ExactPoly:
        return type(self)._make([c * q for c in self._coeffs], self._domain)

    def __add__(self, other: Any) -> ExactPoly:
        if isinstance(other, ExactPoly):
            self._check_same(other)
            return self._add(other)
        q = _scalar(other)
        if q is None:
            return NotImplemented
        return self._add_scalar(q)

    __radd__ = __add__

    def __neg__(self) -> ExactPoly:
        return self._scale(fmpq(-1))

    def __pos__(self) -> ExactPoly:
        return self

    def __sub__(self, other: Any) -> ExactPoly:
        if isinstance(other, ExactPoly):
            self._check_same(other)
            return self._add(-other)
        q = _scalar(other)
        if q is None:
            return NotImplemented
        return self._add_scalar(-q)

    def __rsub__(self, other: Any) -> ExactPoly:
        q = _scalar(other)
        if q is None:
            return NotImplemented
        return (-self)._add_scalar(q)

    def __mul__(self, other: Any) -> ExactPoly:
        if isinstance(other, ExactPoly):
            self._check_same(other)
            return self._mul(other)
        q = _scalar(other)
        if q is None:
            return NotImplemented
        return self._scale(q)

    __rmul__ = __mul__

    def __pow__(self, n: Any) -> ExactPoly:
        n = check_int(n, "n", minimum=0)
        result = type(self)._make([fmpq(1)], self._domain)  # [1] is 1 in every basis
        base = self
        while n:
            if n & 1:
                result = result._mul(base)
            n >>= 1
            if n:
                base = base._mul(base)
        return result

    # ------------------------------------------------------------------ comparison

    def _canonical(self) -> tuple[fmpq, ...]:
        """A representation equal for equal polynomials of this class and domain."""
        return self._coeffs

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, ExactPoly):
            return NotImplemented
        if other.basis != self.basis or other._domain != self._domain:
            return False
        return self._canonical() == other._canonical()

    def __ne__(self, other: object) -> bool:
        eq = self.__eq__(other)
        return eq if eq is NotImplemented else not eq

    def __hash__(self) -> int:
        key = tuple(fmpq_str(c) for c in self._canonical())
        return hash((self.basis, _dom_key(self._domain), key))

    # ------------------------------------------------------------------ calculus

    @abstractmethod
    def derivative(self) -> ExactPoly:
        """Exact derivative ``dp/dx``, in the same basis and on the same domain."""

    # ------------------------------------------------------------------ I/O

    def to_json(self) -> dict[str, Any]:
        """``{"basis", "domain": ["a", "b"] or None, "coefficients": ["p/q", ...]}``
        (exact strings; read back with :func:`poly_from_json`)."""
        return {
            "basis": self.basis,
            "domain": None if self._domain is None else [fmpq_str(e) for e in self._domain],
            "coefficients": [fmpq_str(c) for c in self._coeffs],
        }

    def __str__(self) -> str:
        """The exact full form, which evaluates back to an equal polynomial, e.g.
        ``ChebyshevPoly(['1/3', '2'], domain=('0', '1'))`` (every coefficient, however
        long; ``to_json()`` is the machine-readable equivalent)."""
        cs = ", ".join(repr(fmpq_str(c)) for c in self._coeffs)
        if self._domain is None:
            return f"{type(self).__name__}([{cs}])"
        a, b = (fmpq_str(e) for e in self._domain)
        return f"{type(self).__name__}([{cs}], domain=({a!r}, {b!r}))"

    def __repr__(self) -> str:
        """The exact form (``str``) when it is at most 100 characters, else a summary
        under 200 characters: basis, degree, domain and the first coefficients in decimal
        (rounded, marked ``~``) then ``...``."""
        full = str(self)
        if len(full) <= _SHORT:
            return full
        head = f"{type(self).__name__}(degree={self.degree}"
        if self.basis == "bernstein":
            head += f", k={len(self._coeffs) - 1}"
        if self._domain is not None:
            head += f", domain=({_short_num(self._domain[0])}, {_short_num(self._domain[1])})"
        shown: list[str] = []
        for c in self._coeffs[:_FEW]:
            if len(head) + len(", ".join(shown + [_short_num(c)])) + 40 > _LONG:
                break
            shown.append(_short_num(c))
        more = len(self._coeffs) - len(shown)
        tail = f", ... ({more} more)" if more else ""
        return f"{head}, coeffs~[{', '.join(shown)}{tail}])"

    def _repr_html_(self) -> str:
        """Jupyter display: basis, degree, domain and the first terms of the expansion
        (coefficients rounded for display; ``str(p)`` is exact)."""
        names = {"monomial": "x<sup>{n}</sup>", "chebyshev": "T<sub>{n}</sub>(u)",
                 "bernstein": "b<sub>{n},{k}</sub>(s)", "cosine": "cos({n}&theta;)"}
        k = len(self._coeffs) - 1
        terms = []
        for n, c in enumerate(self._coeffs[:8]):
            if c != 0 or self.basis == "bernstein" or k == 0:
                terms.append(f"{html.escape(_short_num(c))}&middot;"
                             + names[self.basis].format(n=n, k=k))
        body = " + ".join(terms) + (" + &hellip;" if k >= 8 else "")
        where = ""
        if self._domain is not None:
            a, b = (html.escape(_short_num(e)) for e in self._domain)
            var = "u = (2x &minus; a &minus; b)/(b &minus; a)" if self.basis == "chebyshev" \
                else "s = (x &minus; a)/(b &minus; a)"
            where = f", domain [{a}, {b}], {var}"
        return (f"<div><b>{type(self).__name__}</b> of degree {self.degree}{where}<br>"
                f"p = {body}<br><small>coefficients rounded for display; str(p) is exact"
                "</small></div>")


#: longest exact repr kept as the repr; bound on the summary repr; coefficients it shows
_SHORT = 100
_LONG = 200
_FEW = 4


def _short_num(q: fmpq) -> str:
    """A short display form of ``q``: exact when short, else ``~`` 4 significant digits."""
    text = fmpq_str(q)
    if len(text) <= 8:
        return text
    try:
        f = int(q.p) / int(q.q)
    except OverflowError:
        f = float("inf") if q > 0 else float("-inf")
    return f"~{f:.4g}"


def _dom_str(dom: tuple[fmpq, fmpq] | None) -> str:
    return "None" if dom is None else f"({fmpq_str(dom[0])}, {fmpq_str(dom[1])})"


def _dom_key(dom: tuple[fmpq, fmpq] | None) -> tuple[str, str] | None:
    return None if dom is None else (fmpq_str(dom[0]), fmpq_str(dom[1]))


def _rebuild(basis: str, coeffs: tuple[fmpq, ...], domain: Any) -> ExactPoly:
    return BASES[basis]._make(list(coeffs), domain)
