"""Least-degree minimax polynomials on the integers ``{0..k}``, with optimality certificates.

Problem.  Given a target ``f`` on ``X = {0, ..., k}`` and ``gamma``, find the least ``n``
such that some polynomial ``p`` of degree ``<= n`` has ``max_{x in X} |f(x) - p(x)| <= gamma``
-- optionally *pinned*: ``p(z) = v`` exactly (``fix_zero`` is ``z = 0, v = 0``, the
``g(0) = 0`` of thaler2012 Fact 4.2 item 3; AND uses ``z = k, v = 1``).

Reduction.  Pinned polynomials are ``p = v + (x - z) q`` with ``deg q <= n - 1``; on
``C = X \\ {z}``, ``f - p = (x - z) (h - q)`` with ``h = (f - v)/(x - z)``, so the problem is
the *weighted* discrete minimax problem ``min_q max_{x in C} w(x) |h(x) - q(x)|`` with
``w = |x - z| > 0`` (and ``|f(z) - p(z)| = |f(z) - v|`` is fixed).  Unpinned: ``h = f``,
``w = 1``, ``C = X``.  Polynomials of degree ``<= m - 1`` form a Haar space on any ``m``
distinct points, so the discrete alternation theorem holds.

Discrete Remez exchange, exact.  For a reference ``x_0 < ... < x_m`` of ``m + 1`` points of
``C`` the divided-difference weights ``lam_i = 1/prod_{l != i}(x_i - x_l)`` annihilate
polynomials of degree ``<= m - 1`` and alternate in sign, so the levelled equations
``w_i (h_i - q(x_i)) = (-1)^i E`` give ``E = sum lam_i h_i / sum lam_i (-1)^i / w_i``
exactly, and ``q`` interpolates ``h_i - (-1)^i E / w_i`` at ``x_0..x_{m-1}``.  The exchange
keeps the points of ``C`` with ``|r| >= |E|`` (``r = w (h - q)``), one per run of
constant sign (the largest), then trims to ``m + 1`` points keeping alternation and the
global maximum; the new ``|E|`` is a positive weighted mean of those ``|r|``, so it strictly
increases until ``max |r| = |E|`` -- finitely many references, hence termination, and at
termination ``|E|`` *is* the minimax error (exact fmpq throughout; no floats).

Least degree.  Search on the degree using the exact minimax errors (which decrease with
the degree).

Float search, exact decision.  The same exchange run in float64 (barycentric formulas,
weights in log scale; :func:`_float_remez`) is cheap, so it is used to *propose*, for each
degree, a reference and, by bisection, the least degree whose float minimax error is
``<= gamma``.  Nothing is decided in floats: the exact exchange above is started from the
proposed reference (when that reference is optimal, one exact levelling and one exact
residual pass confirm it; otherwise the exact exchange continues from it, and it stops only
at the exact optimum, wherever it started), and the least degree is settled by exact
minimax errors: an exact gallop from the proposed degree brackets it (feasible at ``n``,
infeasible at ``n - 1``) and exact bisection closes the bracket.  The result is the same
polynomial as without the float search (the discrete minimax polynomial is unique: Haar
space), only found with a few exact exchange steps instead of dozens.

Optimality certificate (de la Vallee Poussin / duality).  Let ``D = n - 1`` and ``x_i`` the
optimal reference at degree ``D``.  Weights ``w_i`` (``lam_i`` unpinned; ``lam_i/(x_i - z)``
pinned) satisfy exactly

* unpinned: ``sum_i w_i x_i^j = 0`` for ``j = 0..D``;
* pinned:   ``sum_i w_i (x_i - z) x_i^j = 0`` for ``j = 0..D-1`` (the pin point itself is
  never a reference point: its error ``|f(z) - v|`` is fixed and cannot help the bound).

Then every allowed ``p`` of degree ``<= D`` (``p = v + (x - z) q`` when pinned, ``v = 0``
unpinned) has ``sum_i w_i (f(x_i) - p(x_i)) = sum_i w_i (f(x_i) - v)``, hence
``max_X |f - p| >= bound := |sum_i w_i (f(x_i) - v)| / sum_i |w_i|``, and ``bound > gamma``
proves that degree ``D`` is impossible.  Here ``bound`` equals the exact minimax error at
degree ``D``, the best lower bound there is.  ``dpverify.certify.optimality.check`` re-checks
this object from the certificate alone.
"""

from __future__ import annotations

import math
from typing import Any, TypeVar

import numpy as np
from flint import fmpq, fmpq_poly, fmpz, fmpz_poly

from ..approximation import Approximation
from ..errors import CertificationFailed, InvalidParameterError, ParameterTypeError
from ..exact import MonomialPoly, fmpq_sum
from ..numbers import check_int, check_open_unit, fmpq_str, to_fmpq
from ..progress import ProgressCallback, report

__all__ = ["MAX_MINIMAX_K", "minimax_least_degree", "remez_discrete"]

#: Largest k accepted by the exact minimax search (cost grows like k * n^2 * bits).
MAX_MINIMAX_K = 2048
#: Safety cap on exchange steps per degree (the exchange provably terminates).
MAX_REMEZ_ITERATIONS = 1000


# ---------------------------------------------------------------------------- inputs


def _target_values(target: Any, k: int) -> list[fmpq]:
    if not isinstance(target, dict):
        raise ParameterTypeError(f"target must be a dict, got {type(target).__name__}")
    kind = target.get("kind")
    if kind == "threshold":
        r = to_fmpq(target.get("r"), "target.r")
        return [fmpq(1) if x >= r else fmpq(0) for x in range(k + 1)]
    if kind == "indicator":
        l_ = to_fmpq(target.get("l"), "target.l")
        return [fmpq(1) if x == l_ else fmpq(0) for x in range(k + 1)]
    if kind == "values":
        vals = target.get("values")
        if not isinstance(vals, list) or len(vals) != k + 1:
            raise InvalidParameterError(f"target.values must list k + 1 = {k + 1} values")
        return [to_fmpq(v, f"target.values[{i}]") for i, v in enumerate(vals)]
    raise InvalidParameterError(
        f"target.kind must be 'threshold', 'indicator' or 'values' for minimax, got {kind!r}"
    )


class _Problem:
    """Weighted discrete minimax data: points ``xs`` (ints), ``h``, weights ``om`` (ints)."""

    def __init__(self, f: list[fmpq], pin: tuple[int, fmpq] | None) -> None:
        self.f = f
        self.pin = pin
        if pin is None:
            self.xs = list(range(len(f)))
            self.h = list(f)
            self.om = [1] * len(f)
        else:
            z, v = pin
            self.xs = [x for x in range(len(f)) if x != z]
            self.h = [(f[x] - v) / (x - z) for x in self.xs]
            self.om = [abs(x - z) for x in self.xs]


# ---------------------------------------------------------------------------- Remez


def _dd_denominators(xr: list[int]) -> list[int]:
    """``D_i = prod_{l != i} (x_i - x_l)`` (exact ints)."""
    out = []
    for i, xi in enumerate(xr):
        d = 1
        for l, xl in enumerate(xr):
            if l != i:
                d *= xi - xl
        out.append(d)
    return out


def _interpolate(xr: list[int], ys: list[fmpq]) -> fmpq_poly:
    """Exact Lagrange interpolant of degree ``<= len(xr) - 1`` (O(m^2) in C).

    ``sum_j c_j M(x)/(x - x_j)`` with ``c_j = y_j / M'(x_j)``, accumulated in ``fmpz_poly``
    over the common denominator of the ``c_j`` (one division at the end instead of an
    ``fmpq_poly`` addition, with its content and denominator bookkeeping, per node).
    """
    if not xr:
        return fmpq_poly([0])
    M = fmpz_poly([1])
    for x in xr:
        M *= fmpz_poly([-x, 1])
    Mp = M.derivative()
    cs = [(x, y / fmpq(Mp(fmpz(x)))) for x, y in zip(xr, ys, strict=True) if y != 0]
    if not cs:
        return fmpq_poly([0])
    den = 1
    for _, c in cs:
        den = math.lcm(den, int(c.q))
    acc = fmpz_poly([0])
    for x, c in cs:
        acc += (M // fmpz_poly([-x, 1])) * (int(c.p) * (den // int(c.q)))
    return fmpq_poly(acc, den)


def _levelled(prob: _Problem, ref: list[int]) -> tuple[fmpq, fmpq_poly]:
    """Levelled error ``E`` and polynomial ``q`` on the reference (indices into ``xs``)."""
    xr = [prob.xs[i] for i in ref]
    D = _dd_denominators(xr)
    num = fmpq(0)
    den = fmpq(0)
    for j, i in enumerate(ref):
        num += prob.h[i] / D[j]
        den += fmpq((-1) ** j, D[j] * prob.om[i])
    E = num / den
    m = len(ref) - 1
    ys = [prob.h[i] - fmpq((-1) ** j, prob.om[i]) * E for j, i in enumerate(ref[:m])]
    return E, _interpolate(xr[:m], ys)


def _residuals(prob: _Problem, q: fmpq_poly) -> list[fmpq]:
    # q = N/den with N in Z[x]: FLINT's fmpz Horner at the integer points, one rational
    # division per point (rather than rational Horner steps)
    N, den = q.numer(), q.denom()
    return [w * (h - fmpq(N(x), den)) for x, h, w in zip(prob.xs, prob.h, prob.om, strict=True)]


def _sign(v: fmpq | float) -> int:
    return (v > 0) - (v < 0)


#: the exchange runs on exact residuals (deciding) and on float ones (the float search)
_Num = TypeVar("_Num", fmpq, float)


def _exchange(r: list[_Num], E: _Num, ref: list[int], m: int) -> list[int]:
    """Multi-point exchange (see module docstring); returns a new reference of m+1 indices."""
    absE = abs(E)
    if absE == 0:
        # h is a polynomial of degree <= m-1 on the reference: swap in the worst point;
        # the new divided difference of h - q is then non-zero, so E != 0 next time.
        jmax = max(range(len(r)), key=lambda j: abs(r[j]))
        drop = ref[0] if jmax > ref[0] else ref[-1]
        return sorted([i for i in ref if i != drop] + [jmax])
    cand: list[int] = []
    for j, rj in enumerate(r):
        if abs(rj) < absE or rj == 0:
            continue
        if cand and _sign(r[cand[-1]]) == _sign(rj):
            if abs(rj) > abs(r[cand[-1]]):
                cand[-1] = j
        else:
            cand.append(j)
    while len(cand) > m + 1:
        jmin = min(range(len(cand)), key=lambda t: abs(r[cand[t]]))
        if jmin == 0 or jmin == len(cand) - 1:
            del cand[jmin]
        elif len(cand) - (m + 1) == 1:
            # one too many and the smallest is interior: drop the smaller end point
            del cand[0 if abs(r[cand[0]]) <= abs(r[cand[-1]]) else -1]
        else:
            # drop the smallest and merge its (now adjacent, same-sign) neighbours
            left, right = cand[jmin - 1], cand[jmin + 1]
            keep = left if abs(r[left]) >= abs(r[right]) else right
            cand[jmin - 1 : jmin + 2] = [keep]
    if len(cand) < m + 1:  # cannot happen (the old reference qualifies); keep it safe
        raise CertificationFailed("Remez exchange lost alternation (internal error)")
    return cand


def _initial_reference(npts: int, m: int) -> list[int]:
    """``m + 1`` distinct indices at Chebyshev-extrema positions of ``0..npts-1``."""
    if m == 0:
        return [npts // 2]
    idx = [round((npts - 1) * (1 - math.cos(math.pi * i / m)) / 2) for i in range(m + 1)]
    for i in range(1, m + 1):
        idx[i] = max(idx[i], idx[i - 1] + 1)
    idx[m] = min(idx[m], npts - 1)
    for i in range(m - 1, -1, -1):
        idx[i] = min(idx[i], idx[i + 1] - 1)
    return idx


# ---------------------------------------------------------------------------- float search


#: Float exchange steps per degree; the float search only proposes, so a cap that is hit
#: just hands a non-optimal reference to the exact exchange.
_FLOAT_ITERATIONS = 60
#: ... and it stops after this many steps without a relative gain of 1e-9 in ``|E|``.
_FLOAT_STALE = 4


class _FloatProblem:
    """``_Problem`` in float64 (search only: proposes references and degrees)."""

    def __init__(self, prob: _Problem) -> None:
        self.x = np.array([float(x) for x in prob.xs])
        self.h = np.array([_to_float(v) for v in prob.h])
        self.om = np.array([float(w) for w in prob.om])


def _to_float(v: fmpq) -> float:
    try:
        return float(v)
    except OverflowError:  # beyond binary64: no useful proposal; the exact search decides
        return math.inf if v > 0 else -math.inf


def _bary_weights(x: np.ndarray) -> np.ndarray:
    """Barycentric weights ``1/prod_{l != i}(x_i - x_l)``, scaled by a common positive
    factor (log scale: the raw products over- and underflow)."""
    d = x[:, None] - x[None, :]
    np.fill_diagonal(d, 1.0)
    logw = -np.log(np.abs(d)).sum(axis=1)
    sign = np.where(np.count_nonzero(d < 0, axis=1) % 2 == 1, -1.0, 1.0)
    return sign * np.exp(logw - logw.max())


def _float_levelled(fp: _FloatProblem, ref: list[int]) -> tuple[float, np.ndarray]:
    """Float levelled error ``E`` and the residuals ``w (h - q)`` at every point."""
    ref_a = np.asarray(ref)
    m = len(ref) - 1
    lam = _bary_weights(fp.x[ref_a])
    alt = np.where(np.arange(m + 1) % 2 == 0, 1.0, -1.0)
    E = float((lam @ fp.h[ref_a]) / ((lam * alt) @ (1.0 / fp.om[ref_a])))
    if m == 0:
        return E, fp.om * fp.h
    nodes = ref_a[:m]
    xn = fp.x[nodes]
    ys = fp.h[nodes] - alt[:m] / fp.om[nodes] * E
    b = _bary_weights(xn)
    # barycentric formula (second form); exact node hits (x - x_j = 0) are patched
    # afterwards (the caller silences the floating-point warnings)
    c = b[None, :] / (fp.x[:, None] - xn[None, :])
    q = (c @ ys) / c.sum(axis=1)
    q[nodes] = ys
    r = fp.om * (fp.h - q)
    # levelled by construction: (-1)^j E on the reference (rounding would otherwise
    # shut the old reference out of the exchange)
    r[ref_a] = alt * E
    return E, r


def _float_remez(fp: _FloatProblem, m: int) -> tuple[float, list[int]]:
    """Float discrete Remez with ``m`` free coefficients: ``(|E|, reference)`` of the best
    reference met (the largest levelled error; search only, never decides)."""
    ref = _initial_reference(len(fp.x), m)
    with np.errstate(all="ignore"):  # non-finite values end the search (checked below)
        return _float_remez_loop(fp, m, ref)


def _float_remez_loop(fp: _FloatProblem, m: int, ref: list[int]) -> tuple[float, list[int]]:
    best = (-1.0, ref)
    seen: set[tuple[int, ...]] = set()
    stale = 0
    for _ in range(_FLOAT_ITERATIONS):
        key = tuple(ref)
        if key in seen or stale >= _FLOAT_STALE:
            # cycling or no progress: rounding level reached, the proposal is as good
            # as floats make it
            break
        seen.add(key)
        E, r = _float_levelled(fp, ref)
        if not np.isfinite(E) or not np.all(np.isfinite(r)):
            break
        stale = 0 if abs(E) > best[0] * (1 + 1e-9) else stale + 1
        if abs(E) > best[0]:
            best = (abs(E), ref)
        if float(np.max(np.abs(r))) <= abs(E) * (1 + 1e-9):
            break
        try:
            new = _exchange(r.tolist(), E, ref, m)
        except CertificationFailed:
            break
        ref = new
    if best[0] < 0:  # no finite levelled error (e.g. values beyond float range): no proposal
        return math.inf, ref
    return best


class _RemezResult:
    __slots__ = ("m", "E", "ref", "q", "iterations")

    def __init__(self, m: int, E: fmpq, ref: list[int], q: fmpq_poly, iterations: int) -> None:
        self.m, self.E, self.ref, self.q, self.iterations = m, E, ref, q, iterations


def _remez(prob: _Problem, m: int, ref0: list[int] | None = None) -> _RemezResult:
    """Exact weighted discrete minimax with ``m`` free coefficients (degree of q <= m-1),
    started from the reference ``ref0`` (``m + 1`` increasing indices) if given."""
    npts = len(prob.xs)
    if m >= npts:  # interpolation is exact
        return _RemezResult(m, fmpq(0), [], _interpolate(prob.xs, prob.h), 0)
    ref = _initial_reference(npts, m) if ref0 is None else list(ref0)
    for it in range(1, MAX_REMEZ_ITERATIONS + 1):
        E, q = _levelled(prob, ref)
        r = _residuals(prob, q)
        if max(abs(v) for v in r) <= abs(E):
            return _RemezResult(m, abs(E), ref, q, it)
        ref = _exchange(r, E, ref, m)
    raise CertificationFailed(
        f"discrete Remez exchange did not converge in {MAX_REMEZ_ITERATIONS} steps (m={m})"
    )


def remez_discrete(
    target: dict[str, Any], k: Any, degree: Any, fix_zero: bool = False
) -> tuple[fmpq, MonomialPoly]:
    """Exact best approximation of a given ``degree`` on ``{0..k}``.

    Returns ``(E, p)``: the exact minimax error ``min max_{0..k} |f - p|`` over polynomials
    of degree ``<= degree`` (with ``p(0) = 0`` if ``fix_zero``) and an optimal ``p``.

    Guarantee
    ---------
    Exact (fmpq): discrete Remez exchange in rationals (module docstring), which stops only
    at the exact optimum; raises ``CertificationFailed`` if the step cap is hit.
    """
    k = check_int(k, "k", minimum=1, maximum=MAX_MINIMAX_K)
    degree = check_int(degree, "degree", minimum=0, maximum=k)
    prob = _Problem(_target_values(target, k), (0, fmpq(0)) if fix_zero else None)
    m = degree if fix_zero else degree + 1
    res = _remez(prob, m)
    p = _assemble(prob, res.q)
    E = res.E
    if fix_zero:
        E = max(E, abs(prob.f[0]))
    return E, MonomialPoly.from_fmpq_poly(p)


def _assemble(prob: _Problem, q: fmpq_poly) -> fmpq_poly:
    if prob.pin is None:
        return q
    z, v = prob.pin
    return fmpq_poly([v]) + fmpq_poly([-z, 1]) * q


# ---------------------------------------------------------------------------- search


def _optimality(prob: _Problem, res: _RemezResult | None, degree_impossible: int) -> dict:
    pin = prob.pin
    obj: dict[str, Any] = {
        "kind": "annihilating_weights",
        "degree_impossible": degree_impossible,
        "fix_zero": pin is not None and pin[0] == 0 and pin[1] == 0,
        "pin": None if pin is None else {"x": fmpq_str(pin[0]), "value": fmpq_str(pin[1])},
        "points": [],
        "weights": [],
        "bound": "0",
    }
    if res is None:
        return obj
    xr = [prob.xs[i] for i in res.ref]
    D = _dd_denominators(xr)
    if pin is None:
        ws = [fmpq(1, d) for d in D]
    else:
        ws = [fmpq(1, d * (x - pin[0])) for d, x in zip(D, xr, strict=True)]
    # scale to coprime integers (the bound is scale invariant)
    lcm = 1
    for w in ws:
        lcm = math.lcm(lcm, int(w.q))
    ints = [int(w.p) * (lcm // int(w.q)) for w in ws]
    g = 0
    for a in ints:
        g = math.gcd(g, a)
    ints = [a // g for a in ints]
    v = fmpq(0) if pin is None else pin[1]
    num = fmpq_sum([a * (prob.f[x] - v) for a, x in zip(ints, xr, strict=True)])
    bound = abs(num) / sum(abs(a) for a in ints)
    # exact numbers are strings in certificates (schema "number"), points included
    obj["points"] = [str(x) for x in xr]
    obj["weights"] = [str(a) for a in ints]
    obj["bound"] = fmpq_str(bound)
    return obj


def minimax_least_degree(
    target: dict[str, Any],
    k: Any,
    gamma: Any,
    fix_zero: bool = False,
    *,
    pin: tuple[Any, Any] | None = None,
    degree_hint: int | None = None,
    progress: ProgressCallback | None = None,
) -> Approximation:
    """Least-degree polynomial meeting ``gamma`` on ``{0..k}``, with an optimality proof.

    Parameters
    ----------
    target : dict
        ``{"kind": "threshold", "r": r}``, ``{"kind": "indicator", "l": l}`` or
        ``{"kind": "values", "values": [k + 1 exact numbers]}`` on the integers ``0..k``.
    k : int
        ``1 <= k <= MAX_MINIMAX_K``.
    gamma : exact number in (0, 1)
    fix_zero : bool
        Require ``p(0) = 0`` exactly (thaler2012 Fact 4.2 item 3).
    pin : (z, v), optional
        General pin ``p(z) = v`` with ``z`` an integer in ``0..k`` (``fix_zero`` is
        ``pin=(0, 0)``; AND uses ``(k, 1)``).
    degree_hint : int, optional
        A degree believed feasible (e.g. the Chebyshev degree); only speeds up the search.
    progress : callable, optional
        ``progress(stage, done, None)`` (:mod:`dpverify.progress`) before each float
        search and each exact Remez solve (counts only).

    Returns
    -------
    Approximation
        Construction ``"minimax"``, monomial basis in ``x`` (exact), claim
        ``max_error <= gamma``, ``extra["optimality"]`` (annihilating weights proving that
        degree ``n - 1`` is impossible; module docstring) and ``extra["minimax"]`` (exact
        minimax errors at degrees ``n`` and ``n - 1``, reference points, Remez steps).

    Guarantee
    ---------
    Everything is exact (fmpq).  The returned degree is the least feasible one *if* the
    certificate checks (``dpverify.certify.optimality.check``) and ``certify`` proves the
    error claim; neither is assumed here.  Raises ``InvalidParameterError`` when the pin
    itself violates ``gamma`` or inputs are invalid, ``CertificationFailed`` if the exchange
    hits its step cap.
    """
    k = check_int(k, "k", minimum=1, maximum=MAX_MINIMAX_K)
    gamma = check_open_unit(gamma, "gamma")
    if not isinstance(fix_zero, bool):
        raise ParameterTypeError(f"fix_zero must be a bool, got {fix_zero!r}")
    f = _target_values(target, k)
    pin_q: tuple[int, fmpq] | None = None
    if pin is not None:
        if not isinstance(pin, (tuple, list)) or len(pin) != 2:
            raise ParameterTypeError(f"pin must be a pair (z, v), got {pin!r}")
        z = check_int(pin[0], "pin.z", minimum=0, maximum=k)
        pin_q = (z, to_fmpq(pin[1], "pin.v"))
        if fix_zero and pin_q != (0, fmpq(0)):
            raise InvalidParameterError(f"fix_zero=True contradicts pin={pin!r}")
    elif fix_zero:
        pin_q = (0, fmpq(0))
    if pin_q is not None and abs(f[pin_q[0]] - pin_q[1]) > gamma:
        raise InvalidParameterError(
            f"pin p({pin_q[0]}) = {fmpq_str(pin_q[1])} already misses gamma="
            f"{fmpq_str(gamma)} at that point"
        )
    prob = _Problem(f, pin_q)
    npts = len(prob.xs)
    fprob = _FloatProblem(prob)
    fcache: dict[int, tuple[float, list[int]]] = {}
    cache: dict[int, _RemezResult] = {}

    def fsolve(m: int) -> tuple[float, list[int]]:  # float proposal (search only)
        if m not in fcache:
            report(progress, "least degree: float searches", len(fcache), None)
            fcache[m] = _float_remez(fprob, m)
        return fcache[m]

    def solve(m: int) -> _RemezResult:  # exact, warm-started from the float reference
        if m not in cache:
            report(progress, "least degree: exact Remez solves", len(cache), None)
            cache[m] = _remez(prob, m, fsolve(m)[1] if 0 <= m < npts else None)
        return cache[m]

    def feasible(m: int) -> bool:  # exact decision
        return m >= 0 and solve(m).E <= gamma

    # m = number of free coefficients; degree n = m - 1 (unpinned) or m (pinned).
    shift = 0 if pin_q is not None else 1
    # float bisection for the least m with float error <= gamma (a proposal only)
    hi = npts if degree_hint is None else min(npts, max(0, int(degree_hint) + shift))
    flo, fhi = -1, hi
    while fhi - flo > 1:
        mid = (flo + fhi) // 2
        if mid < npts and fsolve(mid)[0] <= float(gamma):
            fhi = mid
        else:
            flo = mid
    # Is the proposal worth galloping from?  Yes if floats found a feasible degree, or if
    # they say "only interpolation works" with a levelled error far above float rounding
    # (relative 1e-11) one step below; otherwise gamma is below what float64 resolves.
    scale = float(np.max(np.abs(fprob.om * fprob.h))) if npts else 0.0
    if fhi < npts:
        proposed = fsolve(fhi)[0] <= float(gamma)
    else:
        proposed = npts == 1 or fsolve(npts - 1)[0] > 1e-11 * scale
    lo = -1  # m = -1 is a sentinel "infeasible"
    if proposed:
        # exact gallop from the proposal to a bracket lo < hi (lo infeasible, hi
        # feasible); usually two exact solves
        hi, step = fhi, 1
        if feasible(hi):
            lo = hi - 1
            while feasible(lo):
                hi, lo = lo, max(-1, lo - step)
                step *= 2
        else:
            lo, hi = hi, min(npts, hi + 1)
            while not feasible(hi):
                lo, hi = hi, min(npts, hi + 2 * step)
                step *= 2
    else:
        # gamma below what float64 resolves (or nothing feasible in floats): exact
        # bisection from the hint, as without the float search
        while not feasible(hi):
            lo, hi = hi, min(npts, 2 * hi + 1)
    while hi - lo > 1:  # exact bisection (usually nothing left to do)
        mid = (lo + hi) // 2
        if feasible(mid):
            hi = mid
        else:
            lo = mid
    best = solve(hi)
    poly = MonomialPoly.from_fmpq_poly(_assemble(prob, best.q))
    n = poly.degree
    lower = solve(hi - 1) if hi >= 1 else None
    if pin_q is not None and hi == 0:
        lower = None  # p = v is feasible: nothing lower to rule out
    opt = _optimality(prob, lower, n - 1)
    params = {
        "target": target,
        "k": k,
        "gamma": fmpq_str(gamma),
        "fix_zero": fix_zero or (pin_q == (0, fmpq(0))),
        "pin": opt["pin"],
    }
    return Approximation(
        construction="minimax",
        params=params,
        poly=poly,
        target=dict(target),
        domain={"kind": "integers", "lo": 0, "hi": k},
        claims={"max_error": fmpq_str(gamma)},
        extra={
            "optimality": opt,
            "minimax": {
                "degree": n,
                "minimax_error": fmpq_str(
                    best.E if pin_q is None else max(best.E, abs(f[pin_q[0]] - pin_q[1]))
                ),
                "minimax_error_lower_degree": None if lower is None else fmpq_str(lower.E),
                "reference": [prob.xs[i] for i in best.ref],
                "remez_iterations": sum(r.iterations for r in cache.values()),
                "degrees_solved": sorted(m - shift for m in cache),
            },
        },
    )
