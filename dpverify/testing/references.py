"""The reference of :func:`dpverify.testing.check_implementation`.

Whatever the user passes as the reference becomes one :class:`Reference` and a domain (the
integers ``lo..hi`` or an interval):

* an expression (``"erfc(x)"``, an :class:`~dpverify.expr.Expr`, or ``("expr", {"f": ...,
  "variable": "x"})``): :class:`ExprReference`, enclosed in arb ball arithmetic at any
  precision, with piecewise Taylor models for the screen -- rigorous;
* a dpverify or numpy polynomial, a list of monomial coefficients, an
  :class:`~dpverify.approximation.Approximation` or a construction named like its command
  with any parameters: :class:`PolyReference`, exact rational values and exact Taylor
  shifts -- rigorous;
* a duck-typed object or a callable returning *exact* numbers (``fmpq``, ``int``,
  ``Fraction``) at an ``fmpq`` point: :class:`CallableReference`, exact at each point, no
  model (every point is decided by a Python call) -- rigorous;
* a callable returning floats (``math.exp``, ``scipy.special.erfc``, your own float code):
  :class:`FloatReference`, its binary value taken as the reference -- *not rigorous*: the
  check then compares two float functions and says so.
"""

from __future__ import annotations

import inspect
import math
from collections.abc import Callable
from fractions import Fraction
from functools import partial
from typing import TYPE_CHECKING, Any

import numpy as np
from flint import arb, ctx, fmpq, fmpq_poly, fmpz

from ..errors import DomainError, InvalidParameterError, ParameterTypeError
from ..numbers import arb_to_fmpq_bounds, to_fmpq

if TYPE_CHECKING:  # annotations only: the expression package loads on first use
    from ..expr import Expr
    from .formats import BinaryFormat
    from .models import ModelBuilder

__all__ = ["DEFAULT_DEGREE", "Reference", "ExprReference", "PolyReference",
           "CallableReference", "FloatReference", "as_reference", "resolve_reference",
           "call_vectorized", "is_vectorized", "OVERFLOW", "overflowed"]


def _bernstein_approx(f: Any, k: Any, h: Any, dim: Any = 1) -> Any:
    # lazy, as in _builders
    from ..constructions.bernstein import bernstein_approx

    return bernstein_approx(f, k, h, dim)


def _builders() -> dict[str, Callable[..., Any]]:
    # lazy: the constructions cost ~50 ms to import; only the (name, params) form needs them
    from ..constructions.chebyshev import and_polynomial, or_polynomial
    from ..constructions.decision_lists import h_polynomial
    from ..constructions.jackson import jackson_approx
    from ..constructions.remez import remez
    from ..constructions.sherstov import rofk_polynomial

    return {
        "or": or_polynomial, "and": and_polynomial, "rofk": rofk_polynomial,
        "dlist": h_polynomial, "jackson-approx": jackson_approx,
        "bernstein-approx": _bernstein_approx, "minimax": remez,
        # the table aliases of dpverify.tables
        "or-chebyshev": or_polynomial,
        "or-minimax": partial(or_polynomial, method="minimax"),
        "dlist-h": h_polynomial,
    }


def _construction(name: str, params: dict[str, Any]) -> Any:
    """The Approximation of a construction named like its command, with any parameters
    (keywords of the construction function; validated by it)."""
    builders = _builders()
    if name not in builders:
        raise InvalidParameterError(
            f"reference construction must be one of {', '.join(builders)}, got {name!r}")
    if not isinstance(params, dict):
        raise ParameterTypeError(f"reference parameters must be a dict, got "
                                 f"{type(params).__name__}")
    fn = builders[name]
    try:
        inspect.signature(fn).bind(**params)
    except TypeError as exc:
        raise InvalidParameterError(f"reference parameters of {name!r}: {exc}") from None
    return fn(**params)


class Reference:
    """The function under test's reference: enclosures at exact points, and (optionally)
    piece models for the screen or float values.  ``rigorous`` is False only for a float
    reference; ``degree`` (a polynomial's, else None) places Chebyshev points; ``domain``
    is the reference's own, if it has one."""

    what: str = "reference"
    rigorous: bool = True
    degree: int | None = None
    domain: tuple[fmpq, fmpq] | None = None
    #: every point costs a Python call (no models, no vectorised values)
    per_point: bool = False
    #: "sin" or "cos" when the reference is exactly that function of its variable
    trig: str | None = None

    def enclose(self, x: fmpq, prec: int) -> tuple[fmpq | None, fmpq | None] | None:
        """``(lo, hi)`` with ``lo <= f(x) <= hi`` at about ``prec`` bits (``lo == hi``
        when exact; one end None, unbounded, only beyond ``2^(2^16)``, which rounds to
        +-inf in every format); None where ``f`` is undefined."""
        raise NotImplementedError

    def models(self, fmt: BinaryFormat) -> ModelBuilder | None:
        return None

    def values(self, xs: np.ndarray) -> np.ndarray | None:
        return None

    def bounds(self, vals: np.ndarray) -> np.ndarray:
        """``|f - v|`` is at most this at each of :meth:`values`."""
        return np.zeros(vals.shape)


class ExprReference(Reference):
    """A one-variable expression, evaluated in arb (rigorous at every precision)."""

    def __init__(self, expr: Expr):
        self.expr = expr
        self.what = expr.text
        # sin(x) and cos(x) in binary32: reduced exactly (dpverify.testing.trig)
        self.trig = expr.canonical[:3] if expr.canonical in ("sin(x)", "cos(x)") and \
            expr.variables == ("x",) else None

    def enclose(self, x: fmpq, prec: int) -> tuple[fmpq | None, fmpq | None] | None:
        args = [x] * len(self.expr.variables)
        try:
            exact = self.expr.eval_exact(*args)
            if exact is not None:
                return exact, exact
            with ctx.workprec(prec):
                v = self.expr.eval_arb(*[arb(a) for a in args])
        except DomainError:
            return None
        if not isinstance(v, arb) or not v.is_finite():
            # a ball across a pole, or too little precision: undefined only at high precision
            return None if prec >= 1024 else (fmpq(-(2 ** 2000)), fmpq(2 ** 2000))
        try:
            return arb_to_fmpq_bounds(v)
        except InvalidParameterError:
            # beyond 2^(2^17): far past every format; one end is enough to round and fail
            huge = arb(2) ** (1 << 16)
            if v.lower() > huge:
                return fmpq(2) ** (1 << 16), None
            if v.upper() < -huge:
                return None, -fmpq(2) ** (1 << 16)
            return (fmpq(-(2 ** 2000)), fmpq(2 ** 2000))

    def models(self, fmt: BinaryFormat) -> ModelBuilder | None:
        from .models import ExprModels  # lazy: loads the expression package's series code

        return ExprModels(self.expr, fmt)


class PolyReference(Reference):
    """A rational polynomial (monomial form): exact values, exact Taylor shifts."""

    def __init__(self, coeffs: list[fmpq], degree: int | None, domain: tuple[fmpq, fmpq] | None,
                 what: str):
        self.coeffs = coeffs
        self.degree = len(coeffs) - 1 if degree is None else degree
        self.domain = domain
        self.what = what
        self._poly: fmpq_poly | None = None

    @property
    def poly(self) -> fmpq_poly:
        if self._poly is None:
            self._poly = fmpq_poly(self.coeffs) if self.coeffs else fmpq_poly([0])
        return self._poly

    def __getstate__(self) -> dict[str, Any]:
        # python-flint polynomials do not pickle (the Dask backend ships references)
        return {**self.__dict__, "_poly": None}

    def enclose(self, x: fmpq, prec: int) -> tuple[fmpq, fmpq] | None:
        v = self.poly(x)
        return v, v

    def models(self, fmt: BinaryFormat) -> ModelBuilder | None:
        from .models import PolyModels  # lazy, as in ExprReference.models

        return PolyModels(self.poly, fmt)

    def evaluate(self, x: fmpq) -> fmpq:
        return self.poly(x)


class CallableReference(Reference):
    """A Python callable (or ``evaluate`` method) returning exact numbers at exact points."""

    per_point = True

    def __init__(self, fn: Callable[[fmpq], Any], what: str, degree: int | None = None,
                 domain: tuple[fmpq, fmpq] | None = None):
        self.fn = fn
        self.what = what
        self.degree = degree
        self.domain = domain

    def enclose(self, x: fmpq, prec: int) -> tuple[fmpq, fmpq] | None:
        v = _exact_result(self.fn(x), self.what)
        return v, v


class FloatReference(Reference):
    """A callable returning floats: its value is taken as exact (not rigorous), or, with a
    declared error ``ref_ulps`` (in ulps of its own binary64 result), as an enclosure
    ``|f - v| <= ref_ulps ulp(v)`` that the screen and the exact decisions carry into every
    error bound (rigorous *given* the declaration, which is trusted, not checked)."""

    rigorous = False

    def __init__(self, fn: Callable[..., Any], what: str, vectorized: bool,
                 domain: tuple[fmpq, fmpq] | None = None, ref_ulps: fmpq | None = None):
        self.fn = fn
        self.what = what
        self.vectorized = vectorized
        self.domain = domain
        self.per_point = False
        self.ref_ulps = ref_ulps
        #: the enclosure does not improve with precision (decide.py: an undecided
        #: rounding is resolved by the ulp alone when every candidate shares it)
        self.fixed = True

    def values(self, xs: np.ndarray) -> np.ndarray:
        return call_vectorized(self.fn, xs, self.vectorized, "reference")

    def bounds(self, vals: np.ndarray) -> np.ndarray:
        """``|f - v| <=`` this at each value ``v`` (0 without a declared error)."""
        if self.ref_ulps is None:
            return np.zeros(vals.shape)
        k = float(self.ref_ulps) * (1 + 2.0 ** -50)
        with np.errstate(all="ignore"):
            return np.where(np.isfinite(vals), np.spacing(np.abs(vals)) * k, np.inf)

    def enclose(self, x: fmpq, prec: int) -> tuple[fmpq, fmpq] | None:
        v = float(self.values(np.array([int(x.p) / int(x.q)]))[0])
        if not math.isfinite(v):
            return None
        q = fmpq(*v.as_integer_ratio())
        if self.ref_ulps is None:
            return q, q
        w = self.ref_ulps * fmpq(*math.ulp(v).as_integer_ratio())
        return q - w, q + w


def call_vectorized(fn: Callable[..., Any], xs: np.ndarray, vectorized: bool,
                    what: str) -> np.ndarray:
    """``fn`` at every point of ``xs`` as a float64 array: one call on the array, or one
    call per point (a scalar function such as ``math.erfc``).  What ``fn`` raises
    propagates unchanged; outputs that are not real numbers, or not one per input, raise
    ``AssertionError`` naming ``what``."""
    __tracebackhide__ = True   # pytest: a failure is the caller's, not ours
    # the inputs include points where the function overflows or is undefined: the
    # outputs are judged here, numpy's warnings about them are noise
    with np.errstate(all="ignore"):
        if vectorized:
            raw = fn(xs.copy())
        else:
            raw = np.frompyfunc(_errno(fn), 1, 1)(xs) if xs.size else np.zeros(0)
    out = _real_outputs(raw, what)
    if out.shape != xs.shape:
        raise AssertionError(f"{what} returned shape {out.shape} for {xs.shape[0]} inputs")
    return out


#: the output a scalar function's OverflowError stands for (a NaN with a payload of its own):
#: the check replaces it by the infinity the reference rounds to (:func:`overflowed`)
OVERFLOW = np.array([0x7FF8_0000_0F10_F10F], dtype=np.int64).view(np.float64)[0]


def _errno(fn: Callable[..., Any]) -> Callable[[Any], Any]:
    """A scalar function whose domain and range errors become values, as C's ``errno``
    does: ``ValueError`` (``math.gamma(-2)``: "math domain error"; mpmath's "gamma function
    pole") is NaN; ``OverflowError`` (``math.gamma(200)``: "math range error") is an
    infinity, of the reference's sign (:data:`OVERFLOW`, resolved by :func:`overflowed`)."""
    def call(x: Any) -> Any:
        try:
            return fn(x)
        except ValueError:
            return math.nan
        except OverflowError:
            return float(OVERFLOW)
    return call


def overflowed(ref: Reference, xs: np.ndarray, ys: np.ndarray, p: int) -> None:
    """Replace the :data:`OVERFLOW` outputs in ``ys`` (in place) by ``+-inf`` with the sign
    of the reference at the input (enclosed at ``p`` bits; NaN where it is undefined or its
    sign is not decided)."""
    bits = ys.view(np.int64)
    for i in np.flatnonzero(bits == OVERFLOW.view(np.int64)).tolist():
        x = float(xs[i])
        enc = ref.enclose(fmpq(*x.as_integer_ratio()), p)
        sign = math.nan
        if enc is not None:
            lo, hi = enc
            if lo is None or (hi is not None and hi < 0):
                sign = -1.0
            elif hi is None or lo > 0:
                sign = 1.0
        ys[i] = sign * math.inf


def _real_outputs(raw: Any, what: str) -> np.ndarray:
    """``raw`` as float64 numbers; AssertionError for None, text, booleans, complex
    numbers with an imaginary part, or anything else that is not a real number."""
    __tracebackhide__ = True   # pytest: as call_vectorized
    if raw is None:
        raise AssertionError(f"{what} returned None (a missing return statement?)")
    try:
        arr = np.asarray(raw)
    except ValueError as exc:   # ragged nested sequences
        raise AssertionError(f"{what} returned values that are not numbers ({exc})") \
            from None
    if arr.dtype == object:
        if any(v is None for v in arr.ravel().tolist()):
            raise AssertionError(f"{what} returned None for some inputs (a missing return "
                                 "statement?)")
        if any(isinstance(v, (bool, np.bool_, complex, np.complexfloating))
               for v in arr.ravel().tolist()):
            raise AssertionError(f"{what} returned values that are not real numbers")
    elif arr.dtype.kind == "c":
        if np.any(arr.imag != 0):
            raise AssertionError(f"{what} returned complex numbers with a nonzero imaginary "
                                 "part")
        arr = arr.real
    elif arr.dtype.kind not in "iuf":
        raise AssertionError(f"{what} returned values that are not numbers (numpy dtype "
                             f"{arr.dtype})")
    try:
        return arr.astype(np.float64)
    except (TypeError, ValueError, OverflowError) as exc:
        raise AssertionError(f"{what} returned values that are not numbers ({exc})") \
            from None


def is_vectorized(fn: Callable[..., Any], probe: np.ndarray) -> bool:
    """Whether ``fn`` takes an array: a scalar function (``math.erfc``: TypeError on
    arrays, or a 0-d result) is called point by point; an array of the wrong shape is the
    implementation's error, reported by :func:`call_vectorized`."""
    __tracebackhide__ = True   # pytest: an exception raised by fn is the caller's
    try:
        with np.errstate(all="ignore"):   # as in call_vectorized
            out = fn(probe.copy())
    except (TypeError, ValueError):
        return False
    return np.ndim(out) >= 1


#: Degree assumed for placing Chebyshev points when a duck-typed reference has none.
DEFAULT_DEGREE = 16
def _exact_result(v: Any, what: str) -> fmpq:
    if isinstance(v, (float, np.floating)) or not isinstance(
            v, (fmpq, fmpz, int, Fraction, np.integer)) or isinstance(v, bool):
        raise ParameterTypeError(
            f"reference: {what} must return exact numbers (fmpq, int, Fraction), got "
            f"{type(v).__name__}; a float reference cannot decide an error in ulps")
    return to_fmpq(int(v) if isinstance(v, np.integer) else v, "reference value")


def _float_name(fn: Any) -> str:
    name = getattr(fn, "__name__", None) or type(fn).__name__
    mod = getattr(fn, "__module__", None) or ""
    mod = {"builtins": "", "numpy": "numpy", "math": "math"}.get(mod, mod)
    if isinstance(fn, np.ufunc) and not mod:
        mod = "numpy" if hasattr(np, name) else ""
    return f"{mod}.{name}" if mod else name


def _classify(fn: Callable[..., Any], probe: fmpq | None, what: str, degree: int | None,
              dom: tuple[fmpq, fmpq] | None, ref_ulps: fmpq | None = None) -> Reference:
    """An exact callable or a float one, by what it returns at the probe point."""
    if probe is None:
        raise InvalidParameterError("domain is required for a reference without one")
    try:
        v = fn(probe)
    except (TypeError, ValueError):
        # numpy ufuncs and scipy.special refuse fmpq: a float function of arrays
        xs = np.array([int(probe.p) / int(probe.q)])
        if not is_vectorized(fn, xs):
            raise ParameterTypeError(
                f"reference: {what} accepts neither an exact point (fmpq) nor a float "
                "array") from None
        return FloatReference(fn, _float_name(fn), True, dom, ref_ulps)
    if isinstance(v, (float, np.floating)) or (
            isinstance(v, np.ndarray) and v.size == 1 and v.dtype.kind == "f"):
        # a float function, scalar or numpy-wrapped (a 0-d array at a scalar)
        xs = np.array([int(probe.p) / int(probe.q)] * 2)
        return FloatReference(fn, _float_name(fn), is_vectorized(fn, xs), dom, ref_ulps)
    _exact_result(v, what)
    return CallableReference(fn, what, DEFAULT_DEGREE if degree is None else degree, dom)


def _expression(obj: Any) -> Expr:
    """An Expr of at most one variable from a string, an Expr or ``("expr", params)``."""
    from ..expr import Expr, parse  # lazy, as in as_reference

    if isinstance(obj, tuple):
        params = obj[1]
        if not isinstance(params, dict):
            raise ParameterTypeError(f"reference parameters must be a dict, got "
                                     f"{type(params).__name__}")
        unknown = set(params) - {"f", "variable"}
        if unknown or "f" not in params:
            raise InvalidParameterError(
                "reference ('expr', params) takes f (the expression) and optionally "
                f"variable, got {sorted(params)}")
        var = params.get("variable", "x")
        e = parse(params["f"], variables=(var,), name="reference f")
    elif isinstance(obj, Expr):
        e = obj
    else:
        e = parse(obj, name="reference")
    if len(e.variables) > 1:
        raise InvalidParameterError(
            f"reference must be a function of one variable, {e.text!r} uses "
            f"{', '.join(e.variables)}")
    if not e.variables:
        e = parse(e.text, variables=("x",), name="reference")
    return e


def as_reference(obj: Any, probe: fmpq | None = None, ref_ulps: fmpq | None = None
                 ) -> Reference:
    """A univariate reference (module docstring).  ``probe``, a point of the domain, tells
    an exact callable from a float one."""
    # lazy: `import dpverify.testing` loads no polynomial code (266 modules instead of 294)
    from ..exact import ExactPoly, TensorPoly, as_poly
    from ..exact.numpy_interop import is_numpy_polynomial
    from ..expr import Expr

    if isinstance(obj, (str, Expr)) or (isinstance(obj, tuple) and obj and obj[0] == "expr"):
        if ref_ulps is not None:
            raise InvalidParameterError("ref_ulps declares the error of a float reference; "
                                        "an expression is evaluated rigorously")
        return ExprReference(_expression(obj))
    dom_attr: Any = getattr(obj, "domain", None)
    what = type(obj).__name__
    if is_numpy_polynomial(obj) or isinstance(obj, (list, np.ndarray)):
        obj = as_poly(obj)
    if isinstance(obj, TensorPoly):
        raise InvalidParameterError("reference must be univariate, got a tensor-product "
                                    "polynomial")
    try:
        dom = None if dom_attr is None else (to_fmpq(dom_attr[0], "domain"),
                                             to_fmpq(dom_attr[1], "domain"))
    except (TypeError, IndexError, KeyError, InvalidParameterError, ParameterTypeError):
        dom = None
    deg = getattr(obj, "degree", None)
    deg = deg if isinstance(deg, int) and not isinstance(deg, bool) and deg >= 0 else None
    mono = None
    if isinstance(obj, ExactPoly):
        mono = obj.to_monomial().as_fmpq_poly()
    elif callable(getattr(obj, "as_fmpq_poly", None)):
        mono = obj.as_fmpq_poly()
    elif callable(getattr(obj, "to_monomial", None)):
        m = obj.to_monomial()
        if callable(getattr(m, "as_fmpq_poly", None)):
            mono = m.as_fmpq_poly()
    if mono is not None:
        if not isinstance(mono, fmpq_poly):
            raise ParameterTypeError(f"reference: as_fmpq_poly() must return an fmpq_poly, "
                                     f"got {type(mono).__name__}")
        return PolyReference(list(mono.coeffs()), deg, dom, what)
    ev = getattr(obj, "evaluate", None)
    name = f"{type(obj).__name__}.evaluate"
    if not callable(ev):
        ev, name = obj, getattr(obj, "__name__", type(obj).__name__)
    if not callable(ev):
        raise ParameterTypeError(
            "reference must be an expression (\"erfc(x)\"), a univariate dpverify "
            "polynomial, a numpy polynomial, an Approximation, a (construction name, "
            "params) pair, or a function (exact, or returning floats), got "
            f"{type(obj).__name__}")
    ref = _classify(ev, probe if probe is not None else (None if dom is None else
                                                         (dom[0] + dom[1]) / 2),
                    name, deg, dom, ref_ulps)
    if ref_ulps is not None and not isinstance(ref, FloatReference):
        raise InvalidParameterError("ref_ulps declares the error of a float reference; "
                                    f"{name} returns exact numbers")
    return ref


def resolve_reference(reference: Any, domain: Any, fallback: tuple[float, float] | None = None,
                      ref_ulps: Any = None) -> tuple[Reference, tuple[str, fmpq, fmpq]]:
    """(univariate reference, ("integers" | "interval", lo, hi)); the domain is ``domain``,
    else the reference's own, else ``fallback`` (the span of given inputs)."""
    from ..approximation import Approximation  # lazy, as in as_reference

    if isinstance(reference, tuple) and len(reference) == 2 and isinstance(reference[0], str) \
            and reference[0] != "expr":
        reference = _construction(*reference)
    dom: Any = None
    if isinstance(reference, Approximation):
        d = reference.domain
        if d.get("kind") == "integers":
            dom = ("integers", fmpq(int(d["lo"])), fmpq(int(d["hi"])))
        elif d.get("kind") == "box" and len(d["intervals"]) == 1:
            lo, hi = d["intervals"][0]
            dom = ("interval", to_fmpq(lo, "domain"), to_fmpq(hi, "domain"))
        else:
            raise InvalidParameterError(
                f"reference: the Approximation's domain must be integers or one interval "
                f"(univariate), got kind {d.get('kind')!r} with {len(d.get('intervals', []))} "
                "intervals")
        reference = reference.poly
    if domain is not None:
        if isinstance(domain, str) or not hasattr(domain, "__len__") or len(domain) != 2:
            raise InvalidParameterError(f"domain must be a pair (lo, hi), got {domain!r}")
        lo, hi = to_fmpq(domain[0], "domain[0]"), to_fmpq(domain[1], "domain[1]")
        dom = ("interval", lo, hi)
    if dom is None and fallback is not None and getattr(reference, "domain", None) is None:
        dom = ("interval", to_fmpq(fallback[0], "points"), to_fmpq(fallback[1], "points"))
    probe = None if dom is None else (dom[1] + dom[2]) / 2
    if dom is not None and dom[0] == "integers":
        probe = dom[1]
    declared = None if ref_ulps is None else to_fmpq(ref_ulps, "ref_ulps")
    if declared is not None and declared < 0:
        raise InvalidParameterError(f"ref_ulps must be >= 0, got {declared}")
    ref = as_reference(reference, probe, declared)
    if dom is None:
        if ref.domain is None:
            raise InvalidParameterError("domain is required for a reference without one")
        dom = ("interval", *ref.domain)
    if not dom[1] <= dom[2]:
        raise InvalidParameterError(f"domain must have lo <= hi, got [{dom[1]}, {dom[2]}]")
    return ref, dom
