"""thaler2012 Appendix B: the readings of the undefined symbols that fail, one claim each.

Appendix B prints ``Delta = ceil(log(k/gamma)/log n)`` and a ``d`` in step 3, neither
defined in the univariate lemma, and step 1 says ``0 < l < r`` while step 8 sums over
``{0..r-1}`` ("thaler2012/Appendix B (symbols)").  ``dpverify.constructions.sherstov``
builds the construction under each reading (``reading=`` keys); that code is an untrusted
input here: its polynomial is re-evaluated exactly (``fmpq``) on ``{0..k}``, and its
parameters are recomputed from the printed formulas.  The working reading
(``Delta = ceil(log(k/gamma)/log k)``, ``d = z``) is checked in "thaler2012/Lemma 4.5" and
"thaler2012/Appendix B step 7".

The standing assumptions of Appendix B (``k >= 2``, ``r < k/log^2 k``,
``log(1/gamma) <= k/log k``; the log base is not printed) are decided rigorously in both
bases (arb; exact when the logarithms are rational).
"""

from __future__ import annotations

import math

from flint import arb, ctx, fmpq, fmpq_poly

from ._result import q, result
from .exact_math import ceil_ln
from .thaler_degrees import exact_error, threshold_values


# ------------------------------------------------------------------ standing assumptions
def _log(x: fmpq, base: str):
    """log of a rational > 0: exact fmpq when base 2 and x is a power of 2, else arb."""
    if base == "2":
        p, d = int(x.p), int(x.q)
        if p & (p - 1) == 0 and d & (d - 1) == 0:
            return fmpq(p.bit_length() - d.bit_length())
        return arb(x).log() / arb(2).log()
    return arb(x).log()


def _less(a, b, strict: bool) -> bool:
    if isinstance(a, fmpq) and isinstance(b, fmpq):
        return a < b if strict else a <= b
    a, b = arb(a), arb(b)
    if a < b:
        return True
    if a > b:
        return False
    if not strict and a == b:  # both exact and equal
        return True
    raise ValueError(f"undecided comparison {a} vs {b}")


def standing(r: int, k: int, gamma: fmpq, base: str) -> bool:
    """k >= 2, r log^2 k < k and log(1/gamma) log k <= k (thaler2012 Appendix B)."""
    if k < 2:
        return False
    old = ctx.prec
    ctx.prec = 200
    try:
        lk = _log(fmpq(k), base)
        return (_less(fmpq(r) * lk * lk if isinstance(lk, fmpq) else r * lk * lk, fmpq(k),
                      True)
                and _less(_log(1 / gamma, base) * lk, fmpq(k), False))
    finally:
        ctx.prec = old


def _both(r: int, k: int, g: fmpq) -> dict:
    return {"ln": standing(r, k, g, "e"), "log2": standing(r, k, g, "2")}


# ------------------------------------------------------------------ printed parameters
def _least_power(base: int, target: fmpq) -> int:
    e = 0
    while fmpq(base) ** e < target:
        e += 1
    return e


def delta_of(k: int, gamma: fmpq, reading: str) -> int:
    """Delta = ceil(log(k/gamma)/log k) ("log_k") or ceil(log2(k/gamma)) ("log_2"), exact."""
    return _least_power(k if reading == "log_k" else 2, fmpq(k) / gamma)


def _build(r: int, k: int, g: fmpq, reading: dict | None):
    from dpverify.constructions.sherstov import rofk_polynomial

    a = rofk_polynomial(r, k, g, reading=reading, intermediates="summary")
    return fmpq_poly([fmpq(c) for c in a.poly.coeffs]), a.extra["sherstov"]


def _err_fields(err: fmpq) -> dict:
    """Exact error when short, else its decimal exponent (log10 rounded down)."""
    if len(str(err.p)) + len(str(err.q)) < 160:
        return {"error": q(err)}
    e10 = int(math.floor(float(arb(err).log() / arb(10).log())))
    return {"error_log10_floor": e10}


def _err_text(err: fmpq) -> str:
    if len(str(err.p)) + len(str(err.q)) < 160:
        return f"{q(err)} (~{float(err):.5g})"
    e10 = float(arb(err).log() / arb(10).log())
    approx = f"~{float(err):.5g}" if abs(e10) < 300 else f"~10^{e10:.2f}"
    return f"{approx} (exact rational, {len(str(err.p))}-digit numerator)"


def _reading_result(rid: str, reading_text: str, reading: dict, cex: tuple, *,
                    params: dict, extra_cases: list[tuple], note: str,
                    correction: str) -> dict:
    r, k, g = cex
    p, sh = _build(r, k, g, reading)
    f = threshold_values(r, k)
    err, t = exact_error(p, f)
    mismatch = [key for key, val in params.items() if sh.get(key) != val]
    extra_txt = []
    extra_rows = []
    for r2, k2, g2 in extra_cases:
        p2, _ = _build(r2, k2, g2, reading)
        e2, t2 = exact_error(p2, threshold_values(r2, k2))
        extra_txt.append(f"(r={r2}, k={k2}, gamma={q(g2)}): degree {p2.degree()}, error "
                         f"{_err_text(e2)} at t = {t2}, standing assumptions "
                         f"{_both(r2, k2, g2)}")
        extra_rows.append([r2, k2, q(g2), p2.degree(), t2, _err_fields(e2)])
    fails = err > g
    assumptions = _both(r, k, g)
    ev = (f"r = {r}, k = {k}, gamma = {q(g)} ({', '.join(f'{a} = {b}' for a, b in params.items())}"
          f"): the steps are defined, the polynomial has degree {p.degree()} and exact error "
          f"{_err_text(err)} > gamma at t = {t}. Standing assumptions (ln / log2): "
          f"{assumptions['ln']} / {assumptions['log2']}. {note}"
          + (" Further: " + "; ".join(extra_txt) + "." if extra_txt else "")
          + (f" Parameter mismatch with dpverify: {mismatch}" if mismatch else ""))
    return result(
        rid,
        f"Appendix B construction read with {reading_text} (otherwise the working reading: "
        "Delta = ceil(log(k/gamma)/log k), d = z, l in {0..r-1}) gamma-approximates "
        "1[t >= r] on {0..k} wherever its steps are defined",
        "DISCREPANCY" if fails and not mismatch else "OPEN",
        ev,
        "dpverify.constructions.sherstov (untrusted) re-evaluated exactly (fmpq) at every "
        "t in {0..k}; parameters recomputed from the printed formulas",
        counterexample={"r": r, "k": k, "gamma": q(g), "reading": reading, **params,
                        "degree": p.degree(), "t": t, **_err_fields(err),
                        "standing_assumptions": assumptions},
        correction=correction,
        data={"further": extra_rows} if extra_rows else None,
    )


def check_reading_delta_log2(quick: bool) -> dict:
    r, k, g = 2, 16, fmpq(1, 1000)
    delta = delta_of(k, g, "log_2")
    # the same point under the working reading, for comparison
    p0, _ = _build(r, k, g, None)
    e0, _ = exact_error(p0, threshold_values(r, k))
    note = (f"Cause: Delta = {delta} leaves k - l - Delta = {k - (r - 1) - delta} at "
            f"l = {r - 1}, so D = 1, p1(s) = s and p2 leaves [0, 2 + eta], where T_N explodes. "
            f"The working reading (Delta = {delta_of(k, g, 'log_k')}) meets gamma at the same "
            f"point: degree {p0.degree()}, error {float(e0):.3e}. The point violates the "
            "standing assumption log(1/gamma) <= k/log k (either base); inside the assumptions "
            "the reading is undefined e.g. at (r, k, gamma) = (1, 4, 1/10): Delta = "
            f"{delta_of(4, fmpq(1, 10), 'log_2')} > k (standing assumptions ln / log2: "
            f"{standing(1, 4, fmpq(1, 10), 'e')} / {standing(1, 4, fmpq(1, 10), '2')}). "
            "So 'valid where defined' is false for this reading.")
    return _reading_result(
        "thaler2012/Appendix B (reading Delta = ceil(log2(k/gamma)))",
        "log n read as log 2, i.e. Delta = ceil(log2(k/gamma))", {"delta": "log_2"},
        (r, k, g), params={"Delta": delta}, extra_cases=[], note=note,
        correction="read n := k (Sherstov's number of variables): Delta = "
        "ceil(log(k/gamma)/log k), the least Delta with k^Delta >= k/gamma.")


def check_reading_d_delta(quick: bool) -> dict:
    r, k, g = 1, 3, fmpq(1, 2)
    delta = delta_of(k, g, "log_k")
    return _reading_result(
        "thaler2012/Appendix B (reading d = Delta)",
        "the undefined d of step 3 read as d = Delta", {"d": "Delta"}, (r, k, g),
        params={"Delta": delta, "d": delta},
        extra_cases=[(1, 4, fmpq(1, 10)), (1, 17, fmpq(1, 2))],
        note="Too few Chebyshev steps: N ~ 8(d+1)/sqrt(2) does not beat the growth of "
        "q1(s)/q1(k-l) ~ k^(2 Delta - 2).",
        correction="d = z = 3 Delta ceil(log k) (the otherwise unused parameter of Appendix "
        "B), checked in thaler2012/Lemma 4.5 and Appendix B step 7.")


def check_reading_d_log(quick: bool) -> dict:
    r, k, g = 1, 17, fmpq(1, 2)
    delta = delta_of(k, g, "log_k")
    d = ceil_ln(fmpq(k) / g)
    return _reading_result(
        "thaler2012/Appendix B (reading d = ceil(ln(k/gamma)))",
        "the undefined d of step 3 read as d = ceil(ln(k/gamma))",
        {"d": "log_k_over_gamma"}, (r, k, g), params={"Delta": delta, "d": d},
        extra_cases=[(2, 8, fmpq(1, 10))] + ([] if quick else [(1, 5, fmpq(1, 10))]),
        note=f"d = {d} is again too small next to the growth of q1 (k^(2 Delta - 2)).",
        correction="d = z = 3 Delta ceil(log k).")


def check_reading_ell(quick: bool) -> dict:
    r, k, g = 1, 3, fmpq(1, 2)
    return _reading_result(
        "thaler2012/Appendix B (reading 0 < l < r)",
        "the l-range of step 1 ('for any fixed integer 0 < l < r') used in step 8",
        {"ell_range": "1..r-1"}, (r, k, g), params={"Delta": delta_of(k, g, "log_k")},
        extra_cases=[(2, 8, fmpq(1, 10))],
        note="For r = 1 the sum of step 8 is empty, so p = 1 and the error at t = 0 is 1; for "
        "r >= 2 the missing term q_{3,0} (EXACT_0) leaves p(0) ~ 1.",
        correction="l ranges over {0..r-1} in step 1 as in step 8.")


# ------------------------------------------------------------------ undefined region
def check_undefined_region(quick: bool) -> dict:
    K = 64 if quick else 256
    gammas = (fmpq(1, 2), fmpq(1, 10), fmpq(1, 1000), fmpq(1, 10**6))
    counts = {}
    for rd in ("log_k", "log_2"):
        for base in ("e", "2"):
            n_in, n_undef, worst = 0, 0, None
            for k in range(2, K + 1):
                for g in gammas:
                    delta = delta_of(k, g, rd)
                    for r in range(1, k + 1):
                        if not standing(r, k, g, base):
                            break  # r log^2 k < k fails for all larger r too
                        n_in += 1
                        if k - (r - 1) - delta <= 0:
                            n_undef += 1
                            worst = (r, k, q(g), delta)
            counts[f"{rd}/{base}"] = {"in_assumptions": n_in, "undefined": n_undef,
                                      "largest_k_undefined": worst}
    r, k, g = 1, 2, fmpq(1, 2)
    delta = delta_of(k, g, "log_k")
    both = _both(r, k, g)
    # dpverify must refuse it too (it raises DomainError where the steps are undefined)
    from dpverify.errors import DomainError

    try:
        _build(r, k, g, None)
        refused = False
    except DomainError:
        refused = True
    ok = delta >= k - (r - 1) and both["ln"] and both["log2"]
    return result(
        "thaler2012/Appendix B (undefined region)",
        "Appendix B: assuming k >= 2, r < k/log^2 k and log(1/gamma) <= k/log k, steps 1-8 "
        "define g_{r,k} (step 1 divides by k - l - Delta for every l in {0..r-1})",
        "DISCREPANCY" if ok else "OPEN",
        f"r = {r}, k = {k}, gamma = {q(g)} satisfies the standing assumptions in both log bases "
        f"({both}), but Delta = ceil(log(k/gamma)/log k) = {delta} (least D with 2^D >= 4), so "
        f"k - l - Delta = {k - delta} at l = 0 and step 1 divides by zero (dpverify refuses it: "
        f"{refused}). Grid k = 2..{K}, gamma in {{1/2, 1/10, 1/1000, 1e-6}}, every r meeting "
        f"the assumptions: undefined cases per reading/log base {counts}. The paper's remark "
        "that the excluded cases are trivial (exact interpolation of degree <= k) does not "
        "cover these.",
        "exact integer parameters; assumptions decided in arb (exact for powers of 2)",
        counterexample={"r": r, "k": k, "gamma": q(g), "Delta": delta, "k_minus_l_minus_Delta":
                        k - delta, "l": 0, "standing_assumptions": both},
        correction="add k - r + 1 > Delta to the assumptions (otherwise use the exact "
        "interpolant of degree <= k, which is then at most Delta + r - 1).",
        data={"counts": counts},
    )


CHECKS = [check_reading_delta_log2, check_reading_d_delta, check_reading_d_log,
          check_reading_ell, check_undefined_region]
