"""Cross-check of the fast float64 path (:mod:`dpverify.fast`) against the exact reference.

For every construction a :class:`Check` names a grid of parameters (``quick`` and
``full``), computes the fast float64 outputs and the exact reference values, and measures

* ``max_abs`` = ``max_i |fast_i - exact_i|`` and
* ``max_rel`` = ``max_abs / scale`` (normwise relative deviation; ``scale`` is stated per
  check: ``max_i |exact_i|`` by default, ``sum |c|`` for evaluators, where the float error
  is naturally measured against the coefficient norm).

The measurement is rigorous: each float64 is converted *exactly* to an ``fmpq``
(``float.as_integer_ratio``), the exact side is an ``fmpq`` (all references here are
rational), so every difference is an exact rational -- a zero-radius ball -- and the
reported numbers are decimal strings rounded *up*.  The exact side is the truth.  Each check
declares the tolerance the fast path promises (``max_rel <= tolerance``, or ``max_abs`` for
``kind="abs"``); the cross-check fails when a measured deviation exceeds it, or when the
fast path disagrees on a structural integer (degree / length).  Tolerances were set from
the full grid with a margin (see docs/benchmarks.md, "Fast path vs exact reference").

Guarantee
---------
The reported deviations are exact upper bounds (rounded up to 6 significant digits) of the
deviation of the float64 outputs from the exact values for the listed parameters; nothing is
claimed for other parameters.
"""

from __future__ import annotations

import importlib
import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from flint import fmpq
from numpy.typing import ArrayLike

from ._version import __version__
from .constructions.bernstein import iterated_basis_matrix
from .constructions.chebyshev import chebyshev_t_value, or_chebyshev_form, or_degree
from .constructions.decision_lists import h_polynomial
from .constructions.jackson import jackson_approx, jackson_coefficients_2pi, jackson_multipliers
from .constructions.sherstov import rofk_polynomial
from .errors import InvalidParameterError
from .exact import BernsteinPoly, ChebyshevPoly, TensorPoly
from .fast import (
    and_values,
    bernstein_eval,
    chebyshev_coeffs_from_values,
    chebyshev_points,
    clenshaw,
    damped_chebyshev_coeffs,
    de_casteljau,
    h_values,
    or_chebyshev_coeffs,
    or_degree_float,
    or_values,
    rofk_chebyshev_coeffs,
    rofk_values,
    tensor_eval,
)
from .fast import iterated_basis_matrix as fast_M
from .fast import jackson_coefficients_2pi as fast_j
from .fast import jackson_multipliers as fast_w
from .numbers import ExactLike, check_int, fmpq_to_decimal, to_fmpq
from .progress import ProgressCallback, report

__all__ = ["Check", "CHECKS", "float_to_fmpq", "deviation", "run_check", "crosscheck",
           "CERTIFY_DEGREE"]

#: the largest degree whose certified rounding bound the cross-check states by default
CERTIFY_DEGREE = 12

#: Chebyshev / OR / AND / h_k use the exact least degree from the reference, so that the
#: comparison is of coefficients, not of the float degree search; the float degree search
#: is checked separately ("or-degree").


def float_to_fmpq(x: float) -> fmpq:
    """The exact rational value of a float64 (refuses inf/nan)."""
    p, q = float(x).as_integer_ratio()
    return fmpq(p, q)


@dataclass
class Measured:
    """Exact deviation of one case."""

    n: int
    max_abs: fmpq
    scale: fmpq
    structural: str | None = None

    @property
    def max_rel(self) -> fmpq:
        return self.max_abs / self.scale if self.scale != 0 else self.max_abs


def deviation(fast: ArrayLike, exact: Sequence[Any], scale: ExactLike | None = None) -> Measured:
    """Exact ``max |fast_i - exact_i|`` and the scale (``max |exact_i|`` by default).

    ``fast``: array-like of float64 (any shape; flattened row-major); ``exact``: flat
    sequence of exact numbers of the same length; ``scale``: an exact number or ``None``
    (exact numbers: anything :func:`~dpverify.numbers.to_fmpq` accepts).  A length
    mismatch is reported as a structural failure (not raised).
    """
    f = np.asarray(fast, dtype=np.float64).reshape(-1)
    ex = [to_fmpq(e, "exact") if not isinstance(e, fmpq) else e for e in exact]
    if f.size != len(ex):
        return Measured(
            max(f.size, len(ex)), fmpq(0), fmpq(1),
            structural=f"length {f.size} (fast) != {len(ex)} (exact)",
        )
    if not np.all(np.isfinite(f)):
        return Measured(f.size, fmpq(0), fmpq(1), structural="fast output is not finite")
    worst = fmpq(0)
    for a, b in zip(f.tolist(), ex, strict=True):
        d = abs(float_to_fmpq(a) - b)
        if d > worst:
            worst = d
    if scale is None:
        scale = max((abs(b) for b in ex), default=fmpq(0))
    return Measured(f.size, worst, to_fmpq(scale, "scale"))


# ----------------------------------------------------------------------------- checks


@dataclass(frozen=True)
class Check:
    """One construction's cross-check.

    ``run(params) -> (fast, exact, scale)``; ``tolerance`` is the promised bound on
    ``max_rel`` (``kind="rel"``) or ``max_abs`` (``kind="abs"``), as an exact string.
    """

    name: str
    description: str
    kind: str
    tolerance: str
    quick: tuple[dict[str, Any], ...]
    full: tuple[dict[str, Any], ...]
    run: Callable[[dict[str, Any]], tuple[ArrayLike, Sequence[Any], Any]]
    requires: str | None = None
    scale_note: str = "max |exact|"
    notes: tuple[str, ...] = field(default_factory=tuple)
    #: the evaluator of dpverify.fast.rounding whose certified bound is stated next to the
    #: measurement (coefficients from ``coefficients(params)``), if any
    certified: str | None = None
    coefficients: Callable[[dict[str, Any]], list[float]] | None = None


def _ints(k: int) -> np.ndarray:
    return np.arange(k + 1, dtype=np.float64)


def _or_coeffs(p: dict[str, Any]):
    ex = or_chebyshev_form(p["k"], p["gamma"])
    t = or_degree(p["k"], p["gamma"])[0] if p["k"] > 1 else None
    c, _ = or_chebyshev_coeffs(p["k"], p["gamma"], t=t)
    return c, list(ex.coeffs), None


def _or_degree(p: dict[str, Any]):
    t = or_degree(p["k"], p["gamma"])[0]
    tf = or_degree_float(p["k"], p["gamma"])[0]
    return np.array([float(tf)]), [fmpq(t)], 1


def _g_exact(k: int, gamma: Any, kind: str) -> list[fmpq]:
    """Exact OR/AND values at 0..k through ``T_t`` by doubling (independent of the
    monomial and Chebyshev-form code paths)."""

    if k == 1:
        return [fmpq(0), fmpq(1)]
    t, tv = or_degree(k, gamma)
    if kind == "or":  # g = 1 - T_t(u)/T_t(a), u = (k+1-2x)/(k-1)
        return [1 - chebyshev_t_value(t, fmpq(k + 1 - 2 * x, k - 1)) / tv for x in range(k + 1)]
    # AND(x) = T_t(w)/T_t(a), w = (2x-k+1)/(k-1)
    return [chebyshev_t_value(t, fmpq(2 * x - k + 1, k - 1)) / tv for x in range(k + 1)]


def _or_values(p: dict[str, Any]):
    k = p["k"]
    t = or_degree(k, p["gamma"])[0] if k > 1 else None
    return or_values(k, p["gamma"], _ints(k), t=t), _g_exact(k, p["gamma"], "or"), 1


def _and_values(p: dict[str, Any]):
    k = p["k"]
    t = or_degree(k, p["gamma"])[0] if k > 1 else None
    return and_values(k, p["gamma"], _ints(k), t=t), _g_exact(k, p["gamma"], "and"), 1


def _h_values(p: dict[str, Any]):
    k = p["k"]
    P = h_polynomial(k, p["gamma"]).poly.as_fmpq_poly()
    return h_values(k, p["gamma"], _ints(k)), [P(fmpq(z)) for z in range(k + 1)], 1


def _rng(p: dict[str, Any]) -> random.Random:
    return random.Random(p.get("seed", 0))


def _random_floats(rng: random.Random, n: int, lo: float = -1.0, hi: float = 1.0) -> list[float]:
    return [rng.uniform(lo, hi) for _ in range(n)]


def _clenshaw_coeffs(p: dict[str, Any]) -> list[float]:
    return _random_floats(_rng(p), p["n"] + 1)


def _de_casteljau_coeffs(p: dict[str, Any]) -> list[float]:
    return _random_floats(_rng(p), p["k"] + 1)


def _clenshaw(p: dict[str, Any]):
    rng = _rng(p)
    c = _random_floats(rng, p["n"] + 1)
    x = _random_floats(rng, p["points"]) + [-1.0, 1.0]
    P = ChebyshevPoly([float_to_fmpq(v) for v in c])
    ex = [P(float_to_fmpq(v)) for v in x]
    return clenshaw(c, x), ex, sum((abs(float_to_fmpq(v)) for v in c), fmpq(0))


def _dct(p: dict[str, Any]):
    rng = _rng(p)
    n = p["n"]
    c = [float_to_fmpq(v) for v in _random_floats(rng, n)]
    P = ChebyshevPoly(c)
    # values of P at the float Chebyshev points, rounded to float64 (exact Clenshaw)
    vals = [float(P(float_to_fmpq(x))) for x in chebyshev_points(n)]
    return chebyshev_coeffs_from_values(vals), c, sum((abs(v) for v in c), fmpq(0))


def _rofk_values(p: dict[str, Any]):
    A = rofk_polynomial(p["r"], p["k"], p["gamma"], intermediates="summary")
    P = A.poly.as_fmpq_poly()
    k = p["k"]
    return rofk_values(p["r"], k, p["gamma"], _ints(k)), [P(fmpq(x)) for x in range(k + 1)], 1


def _rofk_cheb(p: dict[str, Any]):
    A = rofk_polynomial(p["r"], p["k"], p["gamma"], intermediates="summary")
    C = A.poly.to_chebyshev(domain=(0, p["k"]))
    fc, _ = rofk_chebyshev_coeffs(p["r"], p["k"], p["gamma"])
    ex = list(C.coeffs) + [fmpq(0)] * max(0, len(fc) - len(C.coeffs))
    return fc, ex, None


def _bern_basis(p: dict[str, Any]):
    k, h = p["k"], p["h"]
    M = iterated_basis_matrix(k, h)
    ex = [M[i, j] for i in range(k + 1) for j in range(k + 1)]
    return fast_M(k, h), ex, None


def _de_casteljau(p: dict[str, Any], which: str = "de_casteljau"):
    rng = _rng(p)
    c = _random_floats(rng, p["k"] + 1)
    s = _random_floats(rng, p["points"], 0.0, 1.0) + [0.0, 1.0]
    P = BernsteinPoly([float_to_fmpq(v) for v in c])
    ex = [P(float_to_fmpq(v)) for v in s]
    fn = de_casteljau if which == "de_casteljau" else bernstein_eval
    return fn(c, s), ex, sum((abs(float_to_fmpq(v)) for v in c), fmpq(0))


def _tensor(p: dict[str, Any]):
    rng = _rng(p)
    shape = tuple(p["shape"])
    d = len(shape)
    size = int(np.prod(shape))
    c = np.array(_random_floats(rng, size)).reshape(shape)
    basis = p["basis"]
    lo = 0.0 if basis == "bernstein" else -1.0
    pts = np.array(_random_floats(rng, p["points"] * d, lo, 1.0)).reshape(-1, d)
    T = TensorPoly.from_flat([float_to_fmpq(v) for v in c.reshape(-1)], shape, basis=basis)
    ex = [T(*[float_to_fmpq(v) for v in row]) for row in pts.tolist()]
    return tensor_eval(c, pts, basis=basis), ex, sum(
        (abs(float_to_fmpq(v)) for v in c.reshape(-1)), fmpq(0)
    )


def _jackson_coeffs(p: dict[str, Any]):
    return fast_j(p["t"], p["r"]), list(jackson_coefficients_2pi(p["t"], p["r"])), None


def _jackson_mult(p: dict[str, Any]):
    return fast_w(p["t"], p["K"]), list(jackson_multipliers(p["t"], p["K"])), 1


def _jackson_approx(p: dict[str, Any]):
    t, dim = p["t"], p["dim"]
    A = jackson_approx(p["f"], t, p["K"], dim)
    poly = A.poly
    shape = tuple(getattr(poly, "shape", (len(poly.coeffs),)))
    flat = list(poly.coeffs)
    ex = np.zeros((t + 1,) * dim, dtype=object)
    ex[...] = fmpq(0)
    src = np.empty(len(flat), dtype=object)
    src[:] = flat
    src = src.reshape(shape)
    ex[tuple(slice(0, n) for n in shape)] = src
    fast = damped_chebyshev_coeffs(p["f"], t, p["K"], dim)
    return fast, list(ex.reshape(-1)), None


_G = ("1e-1", "1e-3", "1e-6", "1e-12")


def _grid(ks: Sequence[int], gammas: Sequence[str]) -> tuple[dict[str, Any], ...]:
    return tuple({"k": k, "gamma": g} for k in ks for g in gammas)


CHECKS: tuple[Check, ...] = (
    Check(
        "or-degree", "float degree search t = ceil(acosh(1/gamma)/acosh(a)) vs exact least t",
        "abs", "0", _grid((2, 25, 1000), ("1e-3", "1e-12")),
        _grid((2, 3, 10, 25, 100, 1000, 10**4, 10**5), _G), _or_degree,
        scale_note="exact integer",
    ),
    Check(
        "or-chebyshev-coeffs", "Chebyshev OR form on (1, k): c_0 = 1, c_t = -(-1)^t/T_t(a)",
        "rel", "1e-13", _grid((2, 25, 1000), ("1e-3", "1e-12")),
        _grid((2, 3, 10, 25, 100, 1000, 10**4, 10**5), _G), _or_coeffs,
    ),
    Check(
        "or-values", "OR g(x) at x = 0..k (closed-form T_t via cos/cosh)",
        "abs", "1e-13", _grid((1, 2, 25, 200), ("1e-3", "1e-12")),
        _grid((1, 2, 3, 10, 25, 100, 1000, 10**4), _G), _or_values, scale_note="1",
    ),
    Check(
        "and-values", "AND(x) = T_t(w)/T_t(a) at x = 0..k", "abs", "1e-13",
        _grid((1, 2, 25, 200), ("1e-3", "1e-12")),
        _grid((1, 2, 3, 10, 25, 100, 1000, 10**4), _G), _and_values, scale_note="1",
    ),
    Check(
        "dlist-h-values", "decision-list h_k(z) = 1 - g_k(k - z), gamma/k, at z = 0..k",
        "abs", "1e-13", _grid((1, 5, 20), ("1e-3",)), _grid((1, 2, 5, 20, 50), _G),
        _h_values, scale_note="1",
    ),
    Check(
        "clenshaw", "Clenshaw on random float coefficients at random points of [-1, 1]",
        "rel", "1e-12", ({"n": 10, "points": 50}, {"n": 200, "points": 20}),
        ({"n": 10, "points": 200}, {"n": 200, "points": 100}, {"n": 1000, "points": 30},
         {"n": 5000, "points": 5}),
        _clenshaw, scale_note="sum |c_n|", certified="clenshaw",
        coefficients=_clenshaw_coeffs,
    ),
    Check(
        "dct", "Chebyshev coefficients by FFT-DCT of values at Chebyshev points",
        "rel", "1e-13", ({"n": 16}, {"n": 100}), ({"n": 16}, {"n": 100}, {"n": 500}),
        _dct, scale_note="sum |c_n|",
    ),
    Check(
        "rofk-values", "Sherstov r-of-k p(x) at x = 0..k (thaler2012 App. B, composed floats)",
        "abs", "1e-13", ({"r": 2, "k": 20, "gamma": "1e-2"},),
        ({"r": 1, "k": 20, "gamma": "1e-2"}, {"r": 2, "k": 20, "gamma": "1e-2"},
         {"r": 3, "k": 40, "gamma": "1e-3"}),
        _rofk_values, requires="dpverify.constructions.sherstov", scale_note="1",
    ),
    Check(
        "rofk-chebyshev", "r-of-k Chebyshev coefficients on (0, k) by DCT (degree+1 points)",
        "rel", "1e-13", ({"r": 2, "k": 20, "gamma": "1e-2"},),
        ({"r": 1, "k": 20, "gamma": "1e-2"}, {"r": 2, "k": 20, "gamma": "1e-2"},
         {"r": 3, "k": 40, "gamma": "1e-3"}),
        _rofk_cheb, requires="dpverify.constructions.sherstov",
    ),
    Check(
        "bernstein-basis", "iterated Bernstein basis M = sum_{j<h} (I - A)^j (Bernstein coords)",
        "rel", "1e-12", ({"k": 10, "h": 3}, {"k": 30, "h": 6}),
        ({"k": 1, "h": 1}, {"k": 10, "h": 1}, {"k": 10, "h": 3}, {"k": 30, "h": 6},
         {"k": 60, "h": 6}, {"k": 100, "h": 6}, {"k": 200, "h": 6}),
        _bern_basis, scale_note="max |M|",
    ),
    Check(
        "de-casteljau", "de Casteljau on random float Bernstein coefficients in [0, 1]",
        "rel", "1e-13", ({"k": 5, "points": 40}, {"k": 50, "points": 10}),
        ({"k": 5, "points": 200}, {"k": 50, "points": 40}, {"k": 200, "points": 10}),
        _de_casteljau, scale_note="sum |c_nu|", certified="de-casteljau",
        coefficients=_de_casteljau_coeffs,
    ),
    Check(
        "bernstein-eval", "Bernstein evaluation via basis values (binomial pmf) @ coefficients",
        "rel", "1e-13", ({"k": 5, "points": 40}, {"k": 50, "points": 10}),
        ({"k": 5, "points": 200}, {"k": 50, "points": 40}, {"k": 200, "points": 10}),
        lambda p: _de_casteljau(p, "matrix"), scale_note="sum |c_nu|",
    ),
    Check(
        "tensor-eval", "d-variate tensor evaluation at random points",
        "rel", "1e-13",
        ({"shape": [6, 5], "basis": "chebyshev", "points": 20},
         {"shape": [4, 3, 5], "basis": "bernstein", "points": 10}),
        ({"shape": [6, 5], "basis": "chebyshev", "points": 50},
         {"shape": [33, 33], "basis": "chebyshev", "points": 10},
         {"shape": [4, 3, 5], "basis": "bernstein", "points": 20},
         {"shape": [5, 5], "basis": "monomial", "points": 20},
         {"shape": [9, 9, 9], "basis": "chebyshev", "points": 5}),
        _tensor, scale_note="sum |c|",
    ),
    Check(
        "jackson-coefficients", "2*pi*a_l of H_{t,r} (wang2013 Def. 4.1)", "rel", "1e-13",
        ({"t": 8, "r": 2}, {"t": 16, "r": 3}),
        ({"t": 1, "r": 1}, {"t": 8, "r": 2}, {"t": 16, "r": 3}, {"t": 64, "r": 3},
         {"t": 64, "r": 5}),
        _jackson_coeffs, requires="dpverify.constructions.jackson",
    ),
    Check(
        "jackson-multipliers", "w_n of I_{t,K} on cos(n .) (wang2013 eq. (2))", "abs", "1e-12",
        ({"t": 8, "K": 1}, {"t": 16, "K": 3}),
        ({"t": 8, "K": 1}, {"t": 16, "K": 3}, {"t": 64, "K": 3}, {"t": 64, "K": 6}),
        _jackson_mult, requires="dpverify.constructions.jackson", scale_note="1",
    ),
    Check(
        "jackson-approx", "damped Chebyshev coefficients of I^d_{t,K} g_f: FFT-DCT of samples "
        "(n = 2t+2 per axis) vs the rigorous reference", "rel", "1e-13",
        ({"f": "exp(x)", "t": 8, "K": 2, "dim": 1},),
        ({"f": "exp(x)", "t": 8, "K": 2, "dim": 1}, {"f": "cos(3*x)", "t": 32, "K": 3, "dim": 1},
         {"f": "exp(x*y)", "t": 8, "K": 2, "dim": 2}),
        _jackson_approx, requires="dpverify.constructions.jackson",
        notes=("the reference coefficients are rounded to 2^-80 (jackson_approx)",),
    ),
)


def _available(module: str | None) -> str | None:
    """``None`` if the module imports, else the reason it is skipped."""
    if module is None:
        return None
    try:
        importlib.import_module(module)
    except ImportError as exc:
        return f"{module} not available ({exc})"
    return None


def _fmt(q: fmpq) -> str:
    return fmpq_to_decimal(q, 6, "up")


def run_check(check: Check, grid: str = "quick",
              progress: ProgressCallback | None = None,
              certify_degree: int = CERTIFY_DEGREE) -> dict[str, Any]:
    """Run one check over its grid; returns the JSON-able report (see :func:`crosscheck`).
    ``progress``: a :mod:`dpverify.progress` callback, called as ``(check.name, done,
    cases)`` after each case.  For the evaluators of :mod:`dpverify.fast.rounding`, each
    case of degree ``<= certify_degree`` also states the certified rounding bound of its
    coefficients over the whole domain (``certified``); a measured ``max_abs`` above it
    fails the case."""
    if grid not in ("quick", "full"):
        raise InvalidParameterError(f"grid must be 'quick' or 'full', got {grid!r}")
    tol = to_fmpq(check.tolerance, "tolerance")
    out: dict[str, Any] = {
        "name": check.name,
        "description": check.description,
        "tolerance": {"kind": check.kind, "value": check.tolerance, "scale": check.scale_note},
    }
    reason = _available(check.requires)
    if reason is not None:
        out.update(status="skipped", reason=reason, passed=True, cases=[])
        return out
    cases = []
    worst_abs = fmpq(0)
    worst_rel = fmpq(0)
    ok = True
    t0 = time.perf_counter()
    grid_params = check.full if grid == "full" else check.quick
    for i, params in enumerate(grid_params):
        report(progress, check.name, i, len(grid_params))
        fast, exact, scale = check.run(dict(params))
        m = deviation(fast, exact, scale)
        value = m.max_abs if check.kind == "abs" else m.max_rel
        passed = m.structural is None and value <= tol
        ok = ok and passed
        worst_abs = max(worst_abs, m.max_abs)
        worst_rel = max(worst_rel, m.max_rel)
        case = {
            "params": dict(params),
            "n": m.n,
            "max_abs": _fmt(m.max_abs),
            "max_rel": _fmt(m.max_rel),
            "scale": _fmt(m.scale),
            "passed": passed,
        }
        if m.structural:
            case["structural"] = m.structural
        if check.certified is not None and check.coefficients is not None:
            cert = _certified(check, params, certify_degree)
            case["certified"] = cert
            if "bound" in cert and m.max_abs > to_fmpq(cert["bound"]):
                case["passed"] = ok = False  # the measurement contradicts a proof: a bug
        cases.append(case)
    report(progress, check.name, len(grid_params), len(grid_params))
    out.update(
        status="passed" if ok else "failed",
        passed=ok,
        max_abs=_fmt(worst_abs),
        max_rel=_fmt(worst_rel),
        seconds=round(time.perf_counter() - t0, 2),
        cases=cases,
    )
    return out


def _certified(check: Check, params: dict[str, Any], degree: int) -> dict[str, Any]:
    """The certified rounding bound of the case's coefficients (dpverify.fast.rounding)."""
    # function-level: the certifiers are only needed for these two checks
    from .fast.rounding import EVALUATORS

    assert check.coefficients is not None and check.certified is not None
    c = check.coefficients(dict(params))
    if len(c) - 1 > degree:
        return {"note": f"not certified: degree {len(c) - 1} > {degree} (certify_degree)"}
    fn, domain = EVALUATORS[check.certified]
    r = fn(c)
    return {"bound": fmpq_to_decimal(r.bound, 6, "up"), "over": domain,
            "kind": r.certificate().data["kind"]}


def crosscheck(grid: str = "quick", only: Sequence[str] | None = None, *,
               progress: ProgressCallback | None = None,
               certify_degree: int = CERTIFY_DEGREE) -> dict[str, Any]:
    """Run every check (or those named in ``only``) on the ``quick`` or ``full`` grid.

    The evaluators' cases (``clenshaw``, ``de-casteljau``) of degree ``<= certify_degree``
    (default 12; the certificates of degree 200 take about a minute) also carry
    ``certified``: the certified rounding bound of their coefficients at every point of the
    evaluator's domain (:mod:`dpverify.fast.rounding`), next to the measured ``max_abs``.

    ``progress``: a :mod:`dpverify.progress` callback, called as ``("NAME [j/N]", done,
    cases)`` for the ``j``-th of the ``N`` selected checks, before each of its cases and at
    its end (cases differ in cost by orders of magnitude, so each check has its own count).

    Returns
    -------
    dict
        ``{"grid", "passed", "dpverify_version", "checks": [...]}``; each check has
        ``name, description, tolerance{kind, value, scale}, status`` (``passed``/``failed``
        /``skipped``), ``max_abs``, ``max_rel`` and per-case figures (decimal strings rounded
        up; ``seconds`` is wall time and is the only non-reproducible field).

    Guarantee
    ---------
    Deviations are exact (rational) upper bounds; ``passed`` is decided exactly against the
    declared tolerances.  Skipped checks (reference module missing) do not fail the run.
    """
    names = {c.name for c in CHECKS}
    if only:
        for n in only:
            if n not in names:
                raise InvalidParameterError(
                    f"unknown check {n!r}; known: {', '.join(sorted(names))}"
                )
    if grid not in ("quick", "full"):
        raise InvalidParameterError(f"grid must be 'quick' or 'full', got {grid!r}")
    selected = [c for c in CHECKS if not only or c.name in only]
    count = len(selected)
    reports = []
    for j, c in enumerate(selected, 1):
        def step(stage: str, done: int, total: int | None, tag: str = f"[{j}/{count}]") -> None:
            report(progress, f"{stage} {tag}", done, total)

        reports.append(run_check(c, grid, step if progress is not None else None,
                                 check_int(certify_degree, "certify_degree", 0, 10**6)))
    return {
        "grid": grid,
        "passed": all(r["passed"] for r in reports),
        "dpverify_version": __version__,
        "checks": reports,
    }
