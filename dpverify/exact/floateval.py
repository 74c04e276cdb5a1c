"""Rounded views of exact polynomials: vectorised float64 evaluation, mpmath and sympy.

These are the only places in :mod:`dpverify.exact` (with
:func:`~dpverify.exact.to_numpy`) where an exact polynomial is turned into something
inexact or foreign; each function says what is rounded and how.

* :func:`evaluate_float` -- float64 values at many points (numpy), by the same algorithms
  and in the same operation order as the fast path :mod:`dpverify.fast` (Horner as
  ``numpy.polynomial.polynomial.polyval``, Clenshaw as :func:`dpverify.fast.clenshaw`, de
  Casteljau as :func:`dpverify.fast.de_casteljau`), so the values agree bit for bit.  The
  kernels are restated here because :mod:`dpverify.fast` sits *above* :mod:`dpverify.exact`
  in the layers (docs/architecture.md) and cannot be imported from it; a test checks the
  agreement.
* :func:`to_mpmath` -- an :class:`MpmathPoly` with coefficients rounded to nearest at a
  stated binary precision, evaluated in mpmath at that precision.
* :func:`to_sympy` -- the same function as an exact SymPy expression (rational
  coefficients; nothing rounded).

Guarantee
---------
None for :func:`evaluate_float` and :class:`MpmathPoly` (floating point: the coefficients
are rounded to nearest, then every operation rounds; the error is unbounded outside the
domain).  For certified values evaluate the exact polynomial at ``fmpq`` points or ``arb``
balls, or bound the float64 error with ``dpverify.evalbound``.  :func:`to_sympy` is exact.
"""

from __future__ import annotations

from typing import Any, Protocol

import numpy as np
from flint import fmpq

from ..errors import InvalidParameterError, ParameterTypeError
from ..numbers import check_int, fmpq_str


class PolyData(Protocol):
    """What these functions read of a polynomial: its basis name, exact coefficients and
    domain, the per-object cache, and its exact monomial form.  A protocol rather than
    :class:`~dpverify.exact.ExactPoly` itself, so that the base class can build on this
    module without a circular import."""

    _cache: dict[str, Any]

    @property
    def basis(self) -> str: ...

    @property
    def coeffs(self) -> tuple[fmpq, ...]: ...

    @property
    def domain(self) -> tuple[fmpq, fmpq] | None: ...

    def to_monomial(self) -> Any: ...

    def to_chebyshev(self) -> Any: ...

__all__ = ["evaluate_float", "float_coefficients", "to_mpmath", "to_sympy", "MpmathPoly",
           "round_float64", "PolyData"]


def round_float64(q: fmpq, name: str = "value") -> float:
    """``q`` rounded to the nearest float64 (ties to even): true division of Python ints
    is correctly rounded.

    Raises
    ------
    InvalidParameterError
        If ``|q|`` is too large for float64.
    """
    try:
        return int(q.p) / int(q.q)
    except OverflowError:
        raise InvalidParameterError(f"{name} = {fmpq_str(q)[:40]} overflows float64") from None


def float_coefficients(poly: PolyData) -> np.ndarray:
    """The coefficients rounded to the nearest float64 (cached on the polynomial)."""
    key = "float64_coeffs"
    c: np.ndarray | None = poly._cache.get(key)
    if c is None:
        c = np.array([round_float64(q, f"coeffs[{i}]") for i, q in enumerate(poly.coeffs)],
                     dtype=np.float64)
        c.setflags(write=False)
        poly._cache[key] = c
    return c


def _points(xs: Any) -> np.ndarray:
    try:
        arr = np.asarray(xs, dtype=np.float64)
    except (TypeError, ValueError):
        raise ParameterTypeError(
            f"xs must be numbers or an array of numbers, got {type(xs).__name__}") from None
    if not np.all(np.isfinite(arr)):
        raise InvalidParameterError("xs must be finite")
    return arr


def _horner(c: np.ndarray, x: np.ndarray) -> Any:
    # numpy.polynomial.polynomial.polyval's order of operations
    acc = c[-1] + x * 0
    for i in range(2, len(c) + 1):
        acc = c[-i] + acc * x
    return acc


def _clenshaw(c: np.ndarray, u: np.ndarray) -> Any:
    # dpverify.fast.chebyshev.clenshaw's order of operations
    if c.shape[0] == 1:
        return np.broadcast_to(c[0], u.shape).copy()
    two_u = 2.0 * u
    b1 = np.zeros(u.shape) + c[-1]
    b2 = np.zeros_like(b1)
    for cn in c[-2:0:-1]:
        b1, b2 = two_u * b1 - b2 + cn, b1
    return u * b1 - b2 + c[0]


def _de_casteljau(c: np.ndarray, s: np.ndarray) -> Any:
    # dpverify.fast.bernstein.de_casteljau's order of operations
    t = 1.0 - s
    arr = np.repeat(c[:, None], s.size, axis=1)
    ss, tt = s[None, :], t[None, :]
    for r in range(c.shape[0] - 1, 0, -1):
        arr = tt * arr[:r] + ss * arr[1 : r + 1]
    return arr[0]


def evaluate_float(poly: PolyData, xs: Any) -> np.ndarray:
    """float64 values of ``poly`` at the points ``xs`` (any shape; the result has it too).

    Monomial: Horner; Chebyshev on ``(a, b)``: ``u = (2x - a - b)/(b - a)`` then
    Clenshaw; Bernstein on ``(a, b)``: ``s = (x - a)/(b - a)`` then de Casteljau; cosine:
    ``xs`` are angles ``theta`` and Clenshaw runs at ``u = cos(theta)``.  Coefficients and
    domain ends are first rounded to the nearest float64.  Vectorised over the points (one
    numpy operation per coefficient, or per level for de Casteljau).

    Guarantee
    ---------
    None (float64): the values agree bit for bit with :mod:`dpverify.fast` on the rounded
    coefficients.  Use exact or ball evaluation for certified values.

    >>> from dpverify.exact import ChebyshevPoly
    >>> ChebyshevPoly([1, 2, 3], domain=(0, 1)).evaluate_float([0.0, 0.5, 1.0]).tolist()
    [2.0, -2.0, 6.0]
    """
    x = _points(xs)
    shape = x.shape
    flat = x.reshape(-1)
    c = float_coefficients(poly)
    basis = poly.basis
    if basis == "monomial":
        out = _horner(c, flat)
    elif basis == "cosine":
        out = _clenshaw(c, np.cos(flat))
    else:
        assert poly.domain is not None
        a = round_float64(poly.domain[0], "domain[0]")
        b = round_float64(poly.domain[1], "domain[1]")
        if basis == "chebyshev":
            out = _clenshaw(c, (2.0 * flat - (a + b)) / (b - a))
        else:
            out = _de_casteljau(c, (flat - a) / (b - a))
    return np.asarray(out, dtype=np.float64).reshape(shape)


class MpmathPoly:
    """A polynomial with mpmath coefficients, evaluated in mpmath at a fixed precision.

    Attributes: ``basis``, ``coeffs`` (tuple of ``mpmath.mpf``, each the exact
    coefficient rounded to nearest at ``prec`` bits), ``domain`` (pair of ``mpf`` or
    ``None``), ``prec`` (bits).  Calling it at ``x`` (anything ``mpmath.mpf`` accepts)
    evaluates with the basis' algorithm (Horner, Clenshaw, de Casteljau, cosine sum by
    Clenshaw at ``cos theta``) under ``mpmath.workprec(prec)``.

    Guarantee
    ---------
    None (floating point at ``prec`` bits); for cross-checks and quadrature.
    """

    __slots__ = ("basis", "coeffs", "domain", "prec")

    def __init__(self, basis: str, coeffs: tuple[Any, ...], domain: tuple[Any, Any] | None,
                 prec: int) -> None:
        self.basis, self.coeffs, self.domain, self.prec = basis, coeffs, domain, prec

    def __call__(self, x: Any) -> Any:
        import mpmath  # imported on use (start-up cost of dpverify.exact)

        with mpmath.workprec(self.prec):
            t = mpmath.mpf(x)
            cs = self.coeffs
            if self.basis == "monomial":
                acc = cs[-1]
                for c in reversed(cs[:-1]):
                    acc = acc * t + c
                return +acc
            if self.basis == "cosine":
                u = mpmath.cos(t)
            else:
                assert self.domain is not None
                a, b = self.domain
                if self.basis == "bernstein":
                    s = (t - a) / (b - a)
                    arr = list(cs)
                    for r in range(len(arr) - 1, 0, -1):
                        for i in range(r):
                            arr[i] = (1 - s) * arr[i] + s * arr[i + 1]
                    return +arr[0]
                u = (2 * t - a - b) / (b - a)
            if len(cs) == 1:
                return +cs[0]
            b1, b2 = cs[-1], mpmath.mpf(0)
            for c in reversed(cs[1:-1]):
                b1, b2 = 2 * u * b1 - b2 + c, b1
            return u * b1 - b2 + cs[0]

    def __repr__(self) -> str:
        return (f"MpmathPoly(basis={self.basis!r}, degree<={len(self.coeffs) - 1}, "
                f"prec={self.prec})")


def _mpf(q: fmpq, prec: int) -> Any:
    import mpmath  # see MpmathPoly.__call__

    # correctly rounded p/q (one rounding, unlike mpf(p) / q)
    lib = mpmath.libmp
    with mpmath.workprec(prec):  # mpf() re-rounds to the working precision
        return mpmath.mpf(lib.from_rational(int(q.p), int(q.q), prec, lib.round_nearest))


def to_mpmath(poly: PolyData, prec: Any = 53) -> MpmathPoly:
    """``poly`` as an :class:`MpmathPoly` at ``prec`` bits (coefficients and domain ends
    rounded to nearest at ``prec`` bits; default 53, float64's precision).

    Guarantee
    ---------
    None: rounded coefficients, floating-point evaluation (see :class:`MpmathPoly`).

    >>> from dpverify.exact import MonomialPoly
    >>> import mpmath
    >>> q = MonomialPoly(["1/3", 1]).to_mpmath(prec=100)
    >>> mpmath.nstr(q(2), 25)
    '2.333333333333333333333333'
    """
    p = check_int(prec, "prec", minimum=2, maximum=1 << 24)
    cs = tuple(_mpf(c, p) for c in poly.coeffs)
    dom = None if poly.domain is None else (_mpf(poly.domain[0], p), _mpf(poly.domain[1], p))
    return MpmathPoly(poly.basis, cs, dom, p)


def to_sympy(poly: PolyData, var: Any = None) -> Any:
    """The same function as an exact SymPy expression.

    Monomial, Chebyshev and Bernstein polynomials become their exact expansion in the
    monomial basis of ``var`` (default ``Symbol("x")``), with ``sympy.Rational``
    coefficients; a cosine polynomial becomes ``sum c_n cos(n theta)`` in ``var``
    (default ``Symbol("theta")``).  ``var`` may be a name or a SymPy symbol.

    Guarantee
    ---------
    Exact (rational coefficients; no rounding).

    >>> from dpverify.exact import ChebyshevPoly
    >>> ChebyshevPoly([0, 0, 1]).to_sympy()
    2*x**2 - 1
    """
    import sympy  # imported on use: sympy costs about a second at start-up

    default = "theta" if poly.basis == "cosine" else "x"
    if var is None:
        var = default
    if isinstance(var, str):
        var = sympy.Symbol(var)
    if not isinstance(var, sympy.Symbol):
        raise ParameterTypeError(f"var must be a name or a sympy Symbol, got {type(var).__name__}")

    def rat(q: fmpq) -> Any:
        return sympy.Rational(int(q.p), int(q.q))

    if poly.basis == "cosine":
        terms: list[Any] = [rat(c) * sympy.cos(n * var) for n, c in enumerate(poly.coeffs)]
    else:
        mono = poly.to_monomial()
        terms = [rat(c) * var**i for i, c in enumerate(mono.coeffs)]
    return sympy.Add(*terms)

