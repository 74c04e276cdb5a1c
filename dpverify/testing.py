"""Helpers for users who regression-test their own (fast) implementations against dpverify.

* :func:`reference` -- the exact reference values of a table entry (``fmpq``, nested lists).
* :func:`assert_matches_reference` -- compare your float outputs with them, *exactly*: each
  of your numbers is converted to the rational it denotes (no rounding on our side), so a
  pass/fail is never an artefact of the comparison.  Raises ``AssertionError`` with the
  worst index, the expected and actual values and a hint (length off by one, float32-sized
  error, constant factor) -- usable directly in pytest.
* hypothesis strategies for valid parameters: :func:`or_params`, :func:`gammas`,
  :func:`rofk_params`, :func:`bernstein_params`, :func:`jackson_kernel_params`,
  :func:`jackson_multiplier_params` (``hypothesis`` is imported lazily; it is only needed
  for the strategies).

Tables and quantities (conventions as in :mod:`dpverify.tables`)::

    "or"  / "or-chebyshev"   monomial (default) | chebyshev | values        params k, gamma
    "or-minimax"             monomial (default) | values                     k, gamma
    "and"                    monomial (default) | values                     k, gamma
    "rofk"                   values (default) | chebyshev_0_k | monomial     r, k, gamma
    "dlist-h"                monomial (default) | values                     k, gamma
    "jackson-kernel"         two_pi_a                                        t, r
    "jackson-multipliers"    w                                               t, K
    "bernstein-iterated"     basis (basis[nu][mu])                           k, h

``values`` are the polynomial's values at the integers ``0..k``.

Guarantee
---------
The reference values are exact (the exact constructions); the comparison is exact.  The
tolerance semantics: ``|v_i - e_i| <= atol + rtol * s`` for every entry, with
``s = max_j |e_j|`` (``norm="normwise"``, default) or ``s = |e_i|`` (``norm="entrywise"``).
"""

from __future__ import annotations

import math
import sys
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np
from flint import fmpq

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

_DEFAULT_QUANTITY = {
    "or": "monomial",
    "or-chebyshev": "monomial",
    "or-minimax": "monomial",
    "and": "monomial",
    "rofk": "values",
    "dlist-h": "monomial",
    "jackson-kernel": "two_pi_a",
    "jackson-multipliers": "w",
    "bernstein-iterated": "basis",
}


def _values_at_ints(poly: Any, k: int) -> list[fmpq]:
    P = poly.to_monomial().as_fmpq_poly()
    return [P(fmpq(x)) for x in range(k + 1)]


def reference(table: str = "or", quantity: str | None = None, **params: Any) -> list[Any]:
    """Exact reference values (``fmpq``; nested lists for matrices) of one table entry.

    Parameters are those of the table (see the module docstring), e.g.
    ``reference("or", k=25, gamma="1e-3")``; ``gamma`` is read exactly (``1e-3`` = 1/1000).
    """
    if table not in _DEFAULT_QUANTITY:
        raise InvalidParameterError(
            f"table must be one of {', '.join(_DEFAULT_QUANTITY)}, got {table!r}"
        )
    qty = quantity or _DEFAULT_QUANTITY[table]
    if table in ("or", "or-chebyshev", "or-minimax", "and", "dlist-h"):
        need = ("k", "gamma")
    elif table == "rofk":
        need = ("r", "k", "gamma")
    elif table == "jackson-kernel":
        need = ("t", "r")
    elif table == "jackson-multipliers":
        need = ("t", "K")
    else:
        need = ("k", "h")
    missing = [n for n in need if n not in params]
    extra = sorted(set(params) - set(need))
    if missing or extra:
        raise InvalidParameterError(
            f"table {table!r} takes parameters {', '.join(need)}"
            + (f"; missing {', '.join(missing)}" if missing else "")
            + (f"; unknown {', '.join(extra)}" if extra else "")
        )

    def bad() -> InvalidParameterError:
        return InvalidParameterError(f"quantity {qty!r} is not available for table {table!r}")

    if table in ("or", "or-chebyshev", "or-minimax", "and"):
        from .constructions.chebyshev import and_polynomial, or_polynomial

        method = "minimax" if table == "or-minimax" else "chebyshev"
        fn = and_polynomial if table == "and" else or_polynomial
        a = fn(params["k"], params["gamma"], method=method)
        if qty == "monomial":
            return list(a.poly.coeffs)
        if qty == "values":
            return _values_at_ints(a.poly, int(params["k"]))
        if qty == "chebyshev" and method == "chebyshev":
            return [to_fmpq(c, "c") for c in a.extra["chebyshev"]["form"]["coefficients"]]
        raise bad()
    if table == "rofk":
        from .constructions.sherstov import rofk_polynomial

        a = rofk_polynomial(params["r"], params["k"], params["gamma"], intermediates="summary")
        if qty == "values":
            return _values_at_ints(a.poly, int(params["k"]))
        if qty == "chebyshev_0_k":
            return list(a.poly.to_chebyshev(domain=(0, int(params["k"]))).coeffs)
        if qty == "monomial":
            return list(a.poly.coeffs)
        raise bad()
    if table == "dlist-h":
        from .constructions.decision_lists import h_polynomial

        a = h_polynomial(params["k"], params["gamma"])
        if qty == "monomial":
            return list(a.poly.coeffs)
        if qty == "values":
            return _values_at_ints(a.poly, int(params["k"]))
        raise bad()
    if table == "jackson-kernel":
        from .constructions.jackson import jackson_coefficients_2pi

        if qty != "two_pi_a":
            raise bad()
        return list(jackson_coefficients_2pi(params["t"], params["r"]))
    if table == "jackson-multipliers":
        from .constructions.jackson import jackson_multipliers

        if qty != "w":
            raise bad()
        return list(jackson_multipliers(params["t"], params["K"]))
    from .constructions.bernstein import iterated_bernstein_basis

    if qty != "basis":
        raise bad()
    return iterated_bernstein_basis(params["k"], params["h"]).basis


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
    ref = reference(table, quantity, **params)
    dtype = getattr(values, "dtype", None)
    arr = np.asarray(values, dtype=object) if dtype is None else np.asarray(values)
    got_shape = tuple(arr.shape)
    want_shape = _shape(ref)
    what = f"{table} ({quantity or _DEFAULT_QUANTITY[table]}, {params})"
    if got_shape != want_shape:
        hint = ""
        if len(got_shape) == len(want_shape) == 1 and abs(got_shape[0] - want_shape[0]) == 1:
            hint = " (off by one: degree or index range?)"
        raise AssertionError(
            f"{what}: shape {got_shape} does not match the reference shape {want_shape}{hint}"
        )
    exp = _flatten(ref)
    got = [_exact_of(v, i) for i, v in enumerate(arr.reshape(-1).tolist())]
    smax = max((abs(e) for e in exp), default=fmpq(0))
    worst_i, worst_excess, worst_dev = -1, fmpq(0), fmpq(0)
    for i, (g, e) in enumerate(zip(got, exp, strict=True)):
        dev = abs(g - e)
        bound = at + rt * (smax if norm == "normwise" else abs(e))
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


def _construction(name: str, params: dict[str, Any]) -> Any:
    from .constructions.chebyshev import and_polynomial, or_polynomial
    from .constructions.decision_lists import h_polynomial
    from .constructions.sherstov import rofk_polynomial

    builders: dict[str, Any] = {
        "or": or_polynomial, "and": and_polynomial, "rofk": rofk_polynomial,
        "dlist": h_polynomial,
    }
    if name not in builders:
        raise InvalidParameterError(
            f"reference construction must be one of {', '.join(builders)}, got {name!r}")
    if not isinstance(params, dict):
        raise ParameterTypeError(f"reference parameters must be a dict, got "
                                 f"{type(params).__name__}")
    return builders[name](**params)


def _resolve(reference: Any, domain: Any) -> tuple[Any, tuple[str, fmpq, fmpq]]:
    """(exact univariate polynomial, ("integers" | "interval", lo, hi))."""
    from .approximation import Approximation
    from .exact.base import ExactPoly

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
        reference = reference.poly
    if not isinstance(reference, ExactPoly):
        raise ParameterTypeError(
            "reference must be a univariate dpverify polynomial, an Approximation or a "
            f"(construction name, params) pair, got {type(reference).__name__}")
    if domain is not None:
        if isinstance(domain, str) or len(domain) != 2:
            raise InvalidParameterError(f"domain must be a pair (lo, hi), got {domain!r}")
        lo, hi = to_fmpq(domain[0], "domain[0]"), to_fmpq(domain[1], "domain[1]")
        dom = ("interval", lo, hi)
    elif dom is None:
        if reference.domain is None:
            raise InvalidParameterError("domain is required for a polynomial without one")
        dom = ("interval", *reference.domain)
    if not dom[1] <= dom[2]:
        raise InvalidParameterError(f"domain must have lo <= hi, got [{dom[1]}, {dom[2]}]")
    return reference, dom


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
    dense = np.linspace(flo, fhi, 2049)
    if error_at is not None:  # the float search: where the implementation errs most
        err = error_at(dense)
        top = dense[np.argsort(err)[-8:]]
        cands += top.tolist()
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
    reference : polynomial, Approximation or (name, params)
        A univariate :mod:`dpverify.exact` polynomial, an :class:`~dpverify.Approximation`
        (its polynomial and domain), or a construction by command name with its
        parameters: ``("or", {"k": 100, "gamma": "1e-6"})``, ``"and"``, ``"rofk"``
        (``r, k, gamma``), ``"dlist"`` (the univariate ``h_k``: ``k, gamma``).
    points : array-like of float64, optional
        The inputs to check.  Default: an adversarial set -- every integer of an integer
        domain (sampled beyond :data:`ALL_INTEGERS_MAX`); on an interval the endpoints, the
        Chebyshev extrema and nodes of the degree, the 8 points of largest error on a
        2049-point grid (a float search), ``n_random`` seeded uniform points, and the
        neighbouring floats of all of these.
    ulps, atol : exact numbers, optional
        A point passes when ``|impl(x) - p(x)| <= ulps * ulp(p(x))`` or
        ``|impl(x) - p(x)| <= atol`` (either one given suffices).  With neither given,
        ``ulps = 1`` (faithful rounding).  ``ulp(v)`` is :func:`ulp_of`.
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
    poly, (kind, lo, hi) = _resolve(reference, domain)
    u = None if ulps is None else to_fmpq(ulps, "ulps")
    a = None if atol is None else to_fmpq(atol, "atol")
    if u is not None and u < 0:
        raise InvalidParameterError(f"ulps must be >= 0, got {fmpq_str(u)}")
    if a is not None and a < 0:
        raise InvalidParameterError(f"atol must be >= 0, got {fmpq_str(a)}")
    if u is None and a is None:
        u = fmpq(1)
    n_random = check_int(n_random, "n_random", minimum=0, maximum=MAX_POINTS)
    P = poly.to_monomial()
    exact_at = P.as_fmpq_poly()
    if points is None:
        def error_at(xs: np.ndarray) -> np.ndarray:
            ys = np.asarray(impl(xs), dtype=np.float64)
            ref = np.array([float(exact_at(to_fmpq(float(x), "x"))) for x in xs])
            return np.abs(ys - ref)
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
    worst: tuple[fmpq, int, fmpq, fmpq] | None = None
    failures = 0
    first_fail: int | None = None
    for i, (x, y) in enumerate(zip(xs.tolist(), ys.tolist())):
        ref = exact_at(to_fmpq(x, "x"))
        if not math.isfinite(y):
            raise AssertionError(
                f"implementation returned {y!r} at x = {x!r} ({x.hex()}); exact reference "
                f"{fmpq_str(ref)} (~{float(ref):.17g})")
        err = abs(to_fmpq(y, "y") - ref)
        in_ulps = err / ulp_of(ref)
        ok = (u is not None and in_ulps <= u) or (a is not None and err <= a)
        if not ok:
            failures += 1
            if first_fail is None:
                first_fail = i
        if worst is None or in_ulps > worst[0]:
            worst = (in_ulps, i, ref, err)
    assert worst is not None or xs.size == 0
    if worst is None:
        raise InvalidParameterError("no points to check")
    in_ulps, i, ref, err = worst
    x, y = float(xs[i]), float(ys[i])
    if failures:
        limit = " or ".join(s for s in (
            None if u is None else f"{float(u):g} ulps",
            None if a is None else f"atol {float(a):g}") if s)
        raise AssertionError(
            f"implementation is off by {float(in_ulps):.4g} ulps (limit {limit}) "
            f"at x = {x!r} ({x.hex()}): got {y!r} ({y.hex()}), exact reference "
            f"{fmpq_str(ref)} (~{float(ref):.17g}), |error| = {float(err):.4g}; "
            f"{failures} of {xs.size} points fail")
    return ImplementationCheck(points=int(xs.size), worst_input=x, reference_value=ref,
                               actual=y, worst_abs_error=err, worst_ulps=in_ulps, ulps=u,
                               atol=a)
