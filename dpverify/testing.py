"""Helpers for users who regression-test their own (fast) implementations against dpverify.

* :func:`check_implementation` -- any float64 *function* (a callable on numpy arrays)
  against an exact reference (a dpverify polynomial, a numpy polynomial, an
  :class:`~dpverify.Approximation`, a construction by command name with any parameters, or
  any object with exact evaluation), at adversarial inputs, compared exactly in ulps or
  absolutely.  Also the pytest fixture ``dpverify_check`` (:mod:`dpverify.pytest_plugin`).
* :func:`reference` -- the exact reference values of a table entry (``fmpq``, nested lists),
  for any parameters of any table of :mod:`dpverify.tables`.
* :func:`assert_matches_reference` -- compare your float outputs with them, *exactly*: each
  of your numbers is converted to the rational it denotes (no rounding on our side), so a
  pass/fail is never an artefact of the comparison.  Raises ``AssertionError`` with the
  worst index, the expected and actual values and a hint (length off by one -- with the
  first wrong value of the common index range --, float32-sized error, constant factor) --
  usable directly in pytest.
* hypothesis strategies for valid parameters: :func:`or_params`, :func:`gammas`,
  :func:`rofk_params`, :func:`bernstein_params`, :func:`jackson_kernel_params`,
  :func:`jackson_multiplier_params` (``hypothesis`` is imported lazily; it is only needed
  for the strategies).

Tables and quantities (:mod:`dpverify.tables`; named like the commands, any parameters;
the old names ``or-chebyshev``, ``or-minimax``, ``dlist-h``, ``jackson-kernel``,
``jackson-multipliers``, ``bernstein-iterated`` are aliases)::

    "or"          monomial (default) | values | chebyshev*  | error_exact*   k, gamma[, method]
    "and"         monomial (default) | values | chebyshev*  | error_exact*   k, gamma[, method]
    "rofk"        values (default) | chebyshev_0_k | monomial          r, k, gamma[, method]
    "dlist"       monomial (default) | values                           k, gamma[, method]
    "jackson"     two_pi_a (with r) | w (with K)                        t, r | t, K
    "bernstein"   basis (basis[nu][mu])                                 k, h

``*`` only with ``method="chebyshev"`` (the default).  ``values`` are the polynomial's values
at the integers ``0..k``.

Guarantee
---------
The reference values are exact (the exact constructions); the comparison is exact.  The
tolerance semantics: ``|v_i - e_i| <= atol + rtol * s`` for every entry, with
``s = max_j |e_j|`` (``norm="normwise"``, default) or ``s = |e_i|`` (``norm="entrywise"``).
:func:`check_implementation`: ``|impl(x) - p(x)| <= ulps * ulp(p(x))`` or ``<= atol`` at
every checked input, decided in exact rational arithmetic (floats only choose the inputs).
"""

from __future__ import annotations

import inspect
import math
import sys
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from functools import partial
from typing import Any

import numpy as np
from flint import fmpq, fmpq_poly, fmpz

from .errors import InvalidParameterError, ParameterTypeError
from .numbers import check_int, fmpq_str, to_fmpq

__all__ = [
    "check_implementation",
    "ImplementationCheck",
    "ulp_of",
    "reference",
    "assert_matches_reference",
    "gammas",
    "or_params",
    "rofk_params",
    "bernstein_params",
    "jackson_kernel_params",
    "jackson_multiplier_params",
]

def _default_quantity(table: str, data: dict[str, Any]) -> str:
    from .tables import CONSTRUCTIONS, TABLES

    q = CONSTRUCTIONS[TABLES[table].construction].default_quantity
    if q in data:
        return q
    return next(k for k in data if k != "degree")  # jackson with K: "w"


def reference(table: str = "or", quantity: str | None = None, **params: Any) -> list[Any]:
    """Exact reference values (``fmpq``; nested lists for matrices) of one table entry.

    ``table`` is a table of :mod:`dpverify.tables`, named like the commands (``or``,
    ``and``, ``rofk``, ``dlist``, ``jackson``, ``bernstein``, or an alias such as
    ``or-chebyshev``), with any parameters of that construction, e.g.
    ``reference("or", k=25, gamma="1e-3")`` or ``reference("or", k=100, gamma="1e-6",
    method="minimax")``; ``gamma`` is read exactly (``1e-3`` = 1/1000).  ``quantity`` is
    one of the table's quantities (default: the module docstring's first one).
    """
    return _reference(table, quantity, params)[1]


def _reference(table: str, quantity: str | None, params: dict[str, Any]) -> tuple[str, list]:
    from .tables import TABLES, table_names, table_values

    if not isinstance(table, str) or table not in TABLES:
        raise InvalidParameterError(
            f"table must be one of {', '.join(table_names())}, got {table!r}")
    data = table_values(table, params, more=True)
    qty = quantity if quantity is not None else _default_quantity(table, data)
    if qty not in data or qty == "degree":
        raise InvalidParameterError(
            f"quantity {qty!r} is not available for table {table!r} with these parameters "
            f"(available: {', '.join(k for k in data if k != 'degree')})")
    val = data[qty]
    return qty, (list(val) if isinstance(val, (list, tuple)) else [val])


def _shape(obj: Any) -> tuple[int, ...]:
    if isinstance(obj, list):
        return (len(obj),) + (_shape(obj[0]) if obj and isinstance(obj[0], list) else ())
    return ()


def _flatten(obj: Any) -> list[Any]:
    if isinstance(obj, list):
        return [y for x in obj for y in _flatten(x)]
    return [obj]


def _exact_of(v: Any, i: int) -> fmpq:
    if isinstance(v, fmpq):
        return v
    if isinstance(v, (int, np.integer)) and not isinstance(v, bool):
        return fmpq(int(v))
    if isinstance(v, str):
        return to_fmpq(v, f"values[{i}]")
    f = float(v)  # float, np.float32/64: the exact binary value, no decimal rounding
    if not np.isfinite(f):
        raise AssertionError(f"values[{i}] is not finite: {v!r}")
    p, q = f.as_integer_ratio()
    return fmpq(p, q)


def _bound(at: fmpq, rt: fmpq, smax: fmpq, e: fmpq, norm: str) -> fmpq:
    return at + rt * (smax if norm == "normwise" else abs(e))


def _first_wrong(arr: np.ndarray, ref: list[Any], got_shape: tuple[int, ...],
                 want_shape: tuple[int, ...], rt: fmpq, at: fmpq, norm: str) -> str:
    """For a shape mismatch: the first entry (C order) of the common index range that is
    out of tolerance, so a wrong value is reported together with the wrong length."""
    if len(got_shape) != len(want_shape):
        return ""
    exp = np.empty(want_shape, dtype=object)
    for i, e in enumerate(_flatten(ref)):
        exp.reshape(-1)[i] = e
    smax = max((abs(e) for e in _flatten(ref)), default=fmpq(0))
    common = tuple(min(a, b) for a, b in zip(got_shape, want_shape, strict=True))
    for idx in np.ndindex(*common):
        e = exp[idx]
        g = _exact_of(arr[idx], 0)
        if abs(g - e) > _bound(at, rt, smax, e, norm):
            where = tuple(int(j) for j in idx)
            return (f"; first wrong value: entry {where} = {float(g)!r} but the exact "
                    f"reference is {fmpq_str(e)} (~{float(e)!r})")
    n = int(np.prod(common)) if common else 0
    return f"; the {n} entries of the common index range match"


def assert_matches_reference(
    values: Any,
    table: str = "or",
    *,
    quantity: str | None = None,
    rtol: Any = "1e-12",
    atol: Any = 0,
    norm: str = "normwise",
    **params: Any,
) -> None:
    """Assert that ``values`` match the exact reference of ``table`` within tolerance.

    Parameters
    ----------
    values : array-like
        Your implementation's output (floats of any precision, ints, fmpq or exact strings);
        shape must equal the reference shape (e.g. ``degree + 1`` coefficients).
    table, quantity, **params :
        Which reference (module docstring); e.g. ``table="or", k=25, gamma="1e-3"``.
    rtol, atol : exact numbers
        ``|v_i - e_i| <= atol + rtol * s`` (``s`` per ``norm``); read exactly.
    norm : {"normwise", "entrywise"}

    Raises
    ------
    AssertionError
        On a shape mismatch or any entry out of tolerance (message: worst index, expected,
        got, deviation, a hint).

    Guarantee
    ---------
    Exact comparison (rationals); the reference is exact.  See the module docstring.
    """
    if norm not in ("normwise", "entrywise"):
        raise InvalidParameterError(f"norm must be 'normwise' or 'entrywise', got {norm!r}")
    rt = to_fmpq(rtol, "rtol")
    at = to_fmpq(atol, "atol")
    if rt < 0 or at < 0:
        raise InvalidParameterError("rtol and atol must be >= 0")
    qty, ref = _reference(table, quantity, params)
    dtype = getattr(values, "dtype", None)
    arr = np.asarray(values, dtype=object) if dtype is None else np.asarray(values)
    got_shape = tuple(arr.shape)
    want_shape = _shape(ref)
    what = f"{table} ({qty}, {params})"
    if got_shape != want_shape:
        hint = ""
        if len(got_shape) == len(want_shape) == 1 and abs(got_shape[0] - want_shape[0]) == 1:
            hint = " (off by one: degree or index range?)"
        raise AssertionError(
            f"{what}: shape {got_shape} does not match the reference shape {want_shape}{hint}"
            + _first_wrong(arr, ref, got_shape, want_shape, rt, at, norm))
    exp = _flatten(ref)
    got = [_exact_of(v, i) for i, v in enumerate(arr.reshape(-1).tolist())]
    smax = max((abs(e) for e in exp), default=fmpq(0))
    worst_i, worst_excess, worst_dev = -1, fmpq(0), fmpq(0)
    for i, (g, e) in enumerate(zip(got, exp, strict=True)):
        dev = abs(g - e)
        bound = _bound(at, rt, smax, e, norm)
        if dev > bound and (worst_i < 0 or dev - bound > worst_excess):
            worst_i, worst_excess, worst_dev = i, dev - bound, dev
    if worst_i < 0:
        return
    e, g = exp[worst_i], got[worst_i]
    rel = worst_dev / smax if smax != 0 else worst_dev
    hints = []
    if e != 0 and g != 0:
        ratio = g / e
        if abs(ratio - 1) > fmpq(1, 1000):
            hints.append(f"value/reference = {float(ratio):.6g} (normalisation?)")
    if fmpq(1, 10**10) < rel < fmpq(1, 10**5):
        hints.append("size of the deviation suggests float32 arithmetic somewhere")
    idx = np.unravel_index(worst_i, want_shape) if len(want_shape) > 1 else (worst_i,)
    raise AssertionError(
        f"{what}: entry {tuple(int(j) for j in idx)} = {float(g)!r} but the exact reference "
        f"is {fmpq_str(e)} (~{float(e)!r}); deviation {float(worst_dev):.3e} "
        f"(normwise relative {float(rel):.3e}) exceeds atol={fmpq_str(at)} + "
        f"rtol={fmpq_str(rt)} ({norm})"
        + (f" [dtype {dtype}]" if dtype is not None and dtype != np.float64 else "")
        + ("; " + "; ".join(hints) if hints else "")
    )


# ----------------------------------------------------------------------------- strategies


def _st():
    try:
        from hypothesis import strategies as st
    except ImportError as exc:  # pragma: no cover - hypothesis is a test dependency
        from .errors import MissingExtraError

        raise MissingExtraError(
            'the strategies need hypothesis: pip install hypothesis'
        ) from exc
    return st


def gammas(min_exponent: int = 1, max_exponent: int = 12):
    """Exact gamma strings in (0, 1): ``"1e-e"`` and ``"p/q"`` with ``1/10^max <= p/q <=
    1/10^min``-ish (always valid for :func:`dpverify.numbers.check_open_unit`)."""
    st = _st()
    decimal = st.integers(min_exponent, max_exponent).map(lambda e: f"1e-{e}")
    frac = st.tuples(st.integers(1, 9), st.integers(min_exponent, max_exponent)).map(
        lambda pe: f"{pe[0]}/{10 ** pe[1] + 1}"
    )
    return st.one_of(decimal, frac)


def or_params(max_k: int = 200, max_exponent: int = 12):
    """``{"k": k, "gamma": g}`` valid for the OR/AND/h_k tables (degree stays small)."""
    st = _st()
    return st.fixed_dictionaries(
        {"k": st.integers(1, max_k), "gamma": gammas(1, max_exponent)}
    )


def rofk_params(max_k: int = 24, max_r: int = 2, max_degree: int = 1200):
    """``{"r", "k", "gamma"}`` for which the printed Sherstov construction is defined
    (``k - l - Delta > 0``) and its predicted degree is at most ``max_degree``."""
    st = _st()
    from .constructions.sherstov import sherstov_parameters
    from .errors import DomainError

    def ok(p: dict[str, Any]) -> bool:
        if p["r"] > p["k"]:
            return False
        try:
            prm = sherstov_parameters(p["r"], p["k"], p["gamma"])
        except DomainError:
            return False
        return max(prm.degree.values()) <= max_degree

    return st.fixed_dictionaries(
        {"r": st.integers(1, max_r), "k": st.integers(4, max_k),
         "gamma": st.sampled_from(["1e-1", "1e-2", "1/20"])}
    ).filter(ok)


def bernstein_params(max_k: int = 20, max_h: int = 6):
    """``{"k", "h"}`` for the iterated Bernstein basis."""
    st = _st()
    return st.fixed_dictionaries({"k": st.integers(1, max_k), "h": st.integers(1, max_h)})


def jackson_kernel_params(max_t: int = 64, max_r: int = 6):
    """``{"t", "r"}`` for the Jackson kernel table."""
    st = _st()
    return st.fixed_dictionaries({"t": st.integers(1, max_t), "r": st.integers(1, max_r)})


def jackson_multiplier_params(max_t: int = 64, max_K: int = 8):
    """``{"t", "K"}`` for the Jackson multipliers table."""
    st = _st()
    return st.fixed_dictionaries({"t": st.integers(1, max_t), "K": st.integers(0, max_K)})


# --------------------------------------------------------------- any implementation

#: Largest integer domain checked point by point (larger ones are sampled).
ALL_INTEGERS_MAX = 100_000
#: Largest number of points a check evaluates exactly.
MAX_POINTS = 1_000_000


@dataclass(frozen=True)
class ImplementationCheck:
    """What :func:`check_implementation` compared (returned when every point passes).

    ``worst_input`` is the binary64 input with the largest error in ulps,
    ``reference_value`` the exact value of the reference there, ``worst_ulps`` the error in
    ulps of that value (exact ratio), ``worst_abs_error`` the exact absolute error."""

    points: int
    worst_input: float
    reference_value: fmpq
    actual: float
    worst_abs_error: fmpq
    worst_ulps: fmpq
    ulps: fmpq | None
    atol: fmpq | None

    def __repr__(self) -> str:
        return (f"ImplementationCheck(points={self.points}, worst_input={self.worst_input!r}, "
                f"worst_ulps~{float(self.worst_ulps):.3g})")


def _nearest(q: fmpq) -> float:
    """The float64 nearest to ``q`` (Python rounds int / int correctly); +-inf beyond."""
    try:
        return int(q.p) / int(q.q)
    except OverflowError:
        return math.copysign(math.inf, int(q.p))


def ulp_of(value: Any) -> fmpq:
    """The ulp of the binary64 number nearest to the exact ``value`` (``math.ulp`` of the
    correctly rounded value; ``2^-1074`` at zero), as an exact rational.

    >>> ulp_of(1), ulp_of(fmpq(3, 2)) == fmpq(1, 2**52)
    (1/4503599627370496, True)
    """
    q = to_fmpq(value, "value")
    f = float(Fraction(int(q.p), int(q.q)))  # Python rounds Fraction -> float correctly
    if math.isinf(f):
        f = math.copysign(sys.float_info.max, f)
    return to_fmpq(math.ulp(f), "ulp")


def _bernstein_approx(f: Any, k: Any, h: Any, dim: Any = 1) -> Any:
    from .constructions.bernstein import bernstein_approx

    return bernstein_approx(f, k, h, dim)


def _construction_builders() -> dict[str, Callable[..., Any]]:
    from .constructions.chebyshev import and_polynomial, or_polynomial
    from .constructions.decision_lists import h_polynomial
    from .constructions.jackson import jackson_approx
    from .constructions.remez import remez
    from .constructions.sherstov import rofk_polynomial

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
    builders = _construction_builders()
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


@dataclass(frozen=True)
class _Reference:
    """The exact function under test: exact evaluation at an exact point, a degree (only
    to place Chebyshev points) and a domain, if known."""

    evaluate: Callable[[fmpq], fmpq]
    degree: int
    domain: tuple[fmpq, fmpq] | None
    what: str


#: Degree assumed for placing Chebyshev points when a duck-typed reference has none.
DEFAULT_DEGREE = 16


def _exact_result(v: Any, what: str) -> fmpq:
    if isinstance(v, (float, np.floating)) or not isinstance(
            v, (fmpq, fmpz, int, Fraction, np.integer)) or isinstance(v, bool):
        raise ParameterTypeError(
            f"reference: {what} must return exact numbers (fmpq, int, Fraction), got "
            f"{type(v).__name__}; a float reference cannot decide an error in ulps")
    return to_fmpq(int(v) if isinstance(v, np.integer) else v, "reference value")


def _as_reference(obj: Any) -> _Reference:
    """A univariate exact reference from a dpverify polynomial, a numpy polynomial (read
    exactly), a list of monomial coefficients, or a duck-typed object (module docstring)."""
    from .exact import ExactPoly, TensorPoly, as_poly
    from .exact.numpy_interop import is_numpy_polynomial

    if is_numpy_polynomial(obj) or isinstance(obj, (list, np.ndarray)):
        obj = as_poly(obj)
    if isinstance(obj, TensorPoly):
        raise InvalidParameterError("reference must be univariate, got a tensor-product "
                                    "polynomial")
    dom = getattr(obj, "domain", None)
    try:
        dom = None if dom is None else (to_fmpq(dom[0], "domain"), to_fmpq(dom[1], "domain"))
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
        return _Reference(mono, mono.degree() if deg is None else deg, dom,
                          type(obj).__name__)
    ev = getattr(obj, "evaluate", None)
    name = f"{type(obj).__name__}.evaluate"
    if not callable(ev):
        ev, name = obj, type(obj).__name__
    if not callable(ev):
        raise ParameterTypeError(
            "reference must be a univariate dpverify polynomial, a numpy polynomial, an "
            "Approximation, a (construction name, params) pair, or an object with exact "
            f"evaluation (evaluate(x) or as_fmpq_poly()), got {type(obj).__name__}")
    return _Reference(lambda q, ev=ev, name=name: _exact_result(ev(q), name),
                      DEFAULT_DEGREE if deg is None else deg, dom, type(obj).__name__)


def _resolve(reference: Any, domain: Any) -> tuple[_Reference, tuple[str, fmpq, fmpq]]:
    """(exact univariate reference, ("integers" | "interval", lo, hi))."""
    from .approximation import Approximation

    if isinstance(reference, tuple) and len(reference) == 2 and isinstance(reference[0], str):
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
    ref = _as_reference(reference)
    if domain is not None:
        if isinstance(domain, str) or len(domain) != 2:
            raise InvalidParameterError(f"domain must be a pair (lo, hi), got {domain!r}")
        lo, hi = to_fmpq(domain[0], "domain[0]"), to_fmpq(domain[1], "domain[1]")
        dom = ("interval", lo, hi)
    elif dom is None:
        if ref.domain is None:
            raise InvalidParameterError("domain is required for a reference without one")
        dom = ("interval", *ref.domain)
    if not dom[1] <= dom[2]:
        raise InvalidParameterError(f"domain must have lo <= hi, got [{dom[1]}, {dom[2]}]")
    return ref, dom


def _inside(x: float, lo: fmpq, hi: fmpq) -> float | None:
    """``x`` moved inside [lo, hi] by at most a few ulps, or None if it cannot be."""
    for _ in range(4):
        q = to_fmpq(x, "x")
        if q < lo:
            x = float(np.nextafter(x, np.inf))
        elif q > hi:
            x = float(np.nextafter(x, -np.inf))
        else:
            return x
    return None


def _error_search(error_at: Any, flo: float, fhi: float, top: int = 8) -> list[float]:
    """A float search (it only chooses points): the ``top`` maxima of the error in ulps and
    of the absolute error on a 2049-point grid, each refined on a 65-point grid spanning
    its two neighbouring cells."""
    dense = np.linspace(flo, fhi, 2049)
    h = dense[1] - dense[0]
    found: list[float] = []
    for measure in (0, 1):  # 0: ulps, 1: absolute
        err = error_at(dense)[measure]
        for x0 in dense[np.argsort(err, kind="stable")[-top:]]:
            fine = np.clip(np.linspace(x0 - h, x0 + h, 65), flo, fhi)
            fe = error_at(fine)[measure]
            found += [float(x0), float(fine[int(np.argmax(fe))])]
    return found


def _points(kind: str, lo: fmpq, hi: fmpq, degree: int, error_at: Any, n_random: int,
            seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)  # test inputs, public; not privacy noise
    if kind == "integers":
        a, b = int(lo), int(hi)
        if b - a + 1 <= ALL_INTEGERS_MAX:
            return np.arange(a, b + 1, dtype=np.float64)
        xs = {a, b, *rng.integers(a, b + 1, size=n_random * 10).tolist()}
        return np.array(sorted(xs), dtype=np.float64)
    flo, fhi = float(lo), float(hi)
    cands: list[float] = [flo, fhi]
    n = max(degree, 1)
    j = np.arange(n + 1)
    mid, rad = (flo + fhi) / 2, (fhi - flo) / 2
    cands += (mid + rad * np.cos(np.pi * j / n)).tolist()                      # extrema
    cands += (mid + rad * np.cos(np.pi * (2 * j + 1) / (2 * n + 2))).tolist()  # nodes
    cands += rng.uniform(flo, fhi, size=n_random).tolist()
    if error_at is not None and fhi > flo:
        cands += _error_search(error_at, flo, fhi)
    base = np.array(cands, dtype=np.float64)
    near = [base, np.nextafter(base, np.inf), np.nextafter(base, -np.inf)]
    out = []
    for x in np.unique(np.concatenate(near)):
        y = _inside(float(x), lo, hi)
        if y is not None:
            out.append(y)
    return np.unique(np.array(out, dtype=np.float64))


def check_implementation(
    impl: Callable[[np.ndarray], Any],
    reference: Any,
    points: Any = None,
    ulps: Any = None,
    atol: Any = None,
    *,
    domain: Any = None,
    n_random: int = 256,
    seed: int = 0,
) -> ImplementationCheck:
    """Check a float64 implementation ``impl`` of a polynomial against its exact reference.

    Parameters
    ----------
    impl : callable
        Takes a 1-D float64 numpy array of inputs, returns an array of the same shape
        (anything ``numpy.asarray(..., dtype=float64)`` accepts).
    reference : polynomial, Approximation, (name, params) or exact callable
        The exact function (univariate):

        * a :mod:`dpverify.exact` polynomial, or a ``numpy.polynomial`` ``Polynomial`` /
          ``Chebyshev`` or a list of monomial coefficients (read exactly,
          :func:`dpverify.exact.as_poly`);
        * an :class:`~dpverify.Approximation` (its polynomial and its domain: integers or
          one interval);
        * a construction by command name with any parameters (keywords of the construction
          function, validated by it): ``("or", {"k": 100, "gamma": "1e-6"})``, ``"and"``
          (``k, gamma[, method]``), ``"rofk"`` (``r, k, gamma[, method, reading]``),
          ``"dlist"`` (the univariate ``h_k``: ``k, gamma[, method]``),
          ``"jackson-approx"`` (``f, t, K``), ``"bernstein-approx"`` (``f, k, h``),
          ``"minimax"`` (``f, degree, interval``: the polynomial dpverify's Remez search
          returns), and the table aliases ``"or-chebyshev"``, ``"or-minimax"``,
          ``"dlist-h"``;
        * duck-typed: an object with ``as_fmpq_poly()`` (or ``to_monomial().as_fmpq_poly()``)
          returning a python-flint ``fmpq_poly``, or else with ``evaluate(x)``, or else
          callable, returning an *exact* number (``fmpq``, ``int``, ``Fraction``) at an
          ``fmpq`` point -- a float result is refused.  Its ``domain`` (a pair) and
          ``degree`` (an int; else :data:`DEFAULT_DEGREE`, used only to place Chebyshev
          points) are read when present.
    points : array-like of float64, optional
        The inputs to check.  Default: an adversarial set -- every integer of an integer
        domain (sampled beyond :data:`ALL_INTEGERS_MAX`); on an interval the endpoints, the
        Chebyshev extrema and nodes of the degree, ``n_random`` seeded uniform points, the
        points of largest error (in ulps, and absolute) found by a float search (8 maxima of
        each on a 2049-point grid, each refined on a 65-point grid around it), and the
        neighbouring floats (``numpy.nextafter``) of all of these.
    ulps, atol : exact numbers, optional
        A point passes when ``|impl(x) - p(x)| <= ulps * ulp(p(x))`` or
        ``|impl(x) - p(x)| <= atol`` (either one given suffices).  With neither given,
        ``ulps = 1``.  ``ulp(v)`` (:func:`ulp_of`) is ``math.ulp`` of the binary64 number
        nearest to the exact ``v``: ``2^(e-52)`` when ``2^e <= |fl(v)| < 2^(e+1)``,
        ``2^-1074`` at zero and among subnormals.  A correctly rounded implementation errs by
        at most ``1/2`` ulp; ``ulps=0`` demands the exact value (possible only where it is a
        binary64 number, e.g. integer values).
    domain : (lo, hi), optional
        Overrides the reference's domain (required for a polynomial without one).

    Returns
    -------
    ImplementationCheck
        The worst point and its error, when every point passes.

    Raises
    ------
    AssertionError
        Some point fails (or ``impl`` returns the wrong shape or non-finite values): the
        message names the worst input (decimal and hex), the exact reference value there,
        the value returned and the error in ulps.
    InvalidParameterError, ParameterTypeError
        Bad arguments.

    Guarantee
    ---------
    Every comparison is exact: inputs and outputs are read as their exact binary64 values
    and the reference is evaluated exactly (fmpq).  Floats only choose the points.
    """
    if not callable(impl):
        raise ParameterTypeError(f"impl must be callable, got {type(impl).__name__}")
    u = None if ulps is None else to_fmpq(ulps, "ulps")
    a = None if atol is None else to_fmpq(atol, "atol")
    if u is not None and u < 0:
        raise InvalidParameterError(f"ulps must be >= 0, got {fmpq_str(u)}")
    if a is not None and a < 0:
        raise InvalidParameterError(f"atol must be >= 0, got {fmpq_str(a)}")
    poly, (kind, lo, hi) = _resolve(reference, domain)
    if u is None and a is None:
        u = fmpq(1)
    n_random = check_int(n_random, "n_random", minimum=0, maximum=MAX_POINTS)
    exact_at = poly.evaluate
    if points is None:
        def error_at(xs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
            # floats only choose points: error in ulps of the rounded reference, and absolute
            ys = np.asarray(impl(xs.copy()), dtype=np.float64)
            ref = np.array([_nearest(exact_at(to_fmpq(float(x), "x"))) for x in xs])
            if ys.shape != ref.shape:
                raise AssertionError(f"implementation returned shape {ys.shape} for "
                                     f"{xs.shape[0]} inputs")
            with np.errstate(invalid="ignore"):
                err = np.nan_to_num(np.abs(ys - ref), nan=np.inf)
            return err / np.spacing(np.abs(ref)), err
        xs = _points(kind, lo, hi, poly.degree, error_at, n_random, seed)
    else:
        xs = np.asarray(points, dtype=np.float64).ravel()
        if xs.size > MAX_POINTS:
            raise InvalidParameterError(f"points must have at most {MAX_POINTS} entries, "
                                        f"got {xs.size}")
        if not np.all(np.isfinite(xs)):
            raise InvalidParameterError("points must be finite")
    ys = np.asarray(impl(xs.copy()), dtype=np.float64)
    if ys.shape != xs.shape:
        raise AssertionError(f"implementation returned shape {ys.shape} for {xs.shape[0]} "
                             "inputs")
    worst: tuple[fmpq, int, fmpq, fmpq] | None = None      # largest error in ulps
    worst_bad: tuple[fmpq, int, fmpq, fmpq, fmpq] | None = None  # worst failing point
    failures = 0
    for i, (x, y) in enumerate(zip(xs.tolist(), ys.tolist())):
        ref = exact_at(to_fmpq(x, "x"))
        if not math.isfinite(y):
            raise AssertionError(
                f"implementation returned {y!r} at x = {x!r} ({x.hex()}); exact reference "
                f"{fmpq_str(ref)} (~{_nearest(ref):.17g})")
        err = abs(to_fmpq(y, "y") - ref)
        in_ulps = err / ulp_of(ref)
        ok = (u is not None and in_ulps <= u) or (a is not None and err <= a)
        if not ok:
            failures += 1
            # rank failures by the limit that was given (ulps first), so the point named
            # is the one that misses it by most
            key = in_ulps if u is not None else err
            if worst_bad is None or key > worst_bad[0]:
                worst_bad = (key, i, ref, err, in_ulps)
        if worst is None or in_ulps > worst[0]:
            worst = (in_ulps, i, ref, err)
    if worst is None:
        raise InvalidParameterError("points must not be empty")
    if worst_bad is not None:
        _, i, ref, err, in_ulps = worst_bad
        x, y = float(xs[i]), float(ys[i])
        limit = " or ".join(t for t in (
            None if u is None else f"{fmpq_str(u)} ulps",
            None if a is None else f"atol {fmpq_str(a)}") if t)
        raise AssertionError(
            f"implementation is off by {float(in_ulps):.4g} ulps (limit {limit}) "
            f"at x = {x!r} ({x.hex()}): got {y!r} ({y.hex()}), exact reference "
            f"{fmpq_str(ref)} (~{_nearest(ref):.17g}), |error| = {float(err):.4g}; "
            f"{failures} of {xs.size} points fail")
    in_ulps, i, ref, err = worst
    x, y = float(xs[i]), float(ys[i])
    return ImplementationCheck(points=int(xs.size), worst_input=x, reference_value=ref,
                               actual=y, worst_abs_error=err, worst_ulps=in_ulps, ulps=u,
                               atol=a)
