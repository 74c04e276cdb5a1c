"""Kind ``supnorm-finite``: every domain point evaluated, the witness, ``least_degree``.

``max |f - p| <= upper`` is decided point by point: exactly for threshold / indicator /
values targets and for expression values that are rational; otherwise with arb balls at
64 .. 65536 bits (undecided beyond).  ``least_degree`` is the annihilating-weights argument
of docs/certificates.md: with ``sum_i w_i (x_i - z) q'(x_i) = 0`` for every allowed ``q``,
``max_i |f(x_i) - q(x_i)| >= |sum_i w_i (f(x_i) - v)| / sum_i |w_i|``.
"""

from __future__ import annotations

from typing import TypedDict

from flint import arb, fmpq, fmpq_poly

from .constructions import check_construction
from .expr import Indeterminate, Undefined
from .multipoint import enclose_at
from .numbers import decide, expect_keys, floor_log10, read_exact, read_list, show, working
from .poly import evaluate, monomial_form
from .report import Checks, Malformed
from .supnorm import MAX_POINTS, Sup, common_checks, read_sup, words

__all__ = ["MAX_FINITE_WORK", "finite_work", "verify_finite"]

#: cap on coefficients x (sum over the domain points of their size in bits): the work of
#: evaluating p exactly at every point.  It is that of the largest OR/AND certificate the
#: certifier makes (``dpverify or``: k <= 10^6, so 10^6 + 1 points of 20 bits, degree
#: <= 5000, i.e. 5001 coefficients); a larger statement is refused as malformed.
MAX_FINITE_WORK = 5001 * (10**6 + 1) * 20


class _LeastDegreeEvidence(TypedDict):
    points: list[fmpq]
    weights: list[fmpq]
    bound: fmpq | None


def _index(s: Sup, x: fmpq) -> int | None:
    """Position of ``x`` in the domain, None if it is not a domain point."""
    dom = s.domain
    if dom["kind"] == "integers":
        return int(x.p) - dom["lo"] if x.q == 1 and dom["lo"] <= x <= dom["hi"] else None
    where = dom.get("where")
    if where is None:
        where = dom["where"] = {p: i for i, p in enumerate(dom["points"])}
    return where.get(x)


def _compare(s: Sup, x: fmpq, i: int, px: fmpq, bound: fmpq, le: bool) -> bool | None:
    """Decide ``|f(x) - p(x)| <= bound`` (le) or ``>= bound`` (not le); raises Undefined."""
    def pred() -> bool | None:
        try:
            f = s.f_at([x], i)
        except Indeterminate:
            return None
        if isinstance(f, fmpq):
            e = abs(f - px)
            return e <= bound if le else e >= bound
        eb, b = abs(f.b - arb(px)), arb(bound)
        return (True if eb <= b else False if eb > b else None) if le else \
            (True if eb >= b else False if eb < b else None)
    return decide(pred)


#: the screen may leave this many points (or 1 %) for exact evaluation before it retries
#: at the next accuracy (after the last, whatever it kept is evaluated exactly)
SCREEN_KEEP = 64
#: screen accuracies tried (bits below the claimed upper bound) before evaluating exactly
SCREEN_BITS = (32, 96)


def _screen(s: Sup, P: fmpq_poly, pts: list[fmpq], fs: list[fmpq],
            ck: Checks) -> list[int] | None:
    """Indices that may attain ``max |f - p|`` over the points, in increasing order: every
    other point has ``|f - p|`` provably below ``|f - p|`` at some point (rigorous arb
    balls from :func:`multipoint.enclose_at`).  None when the balls are not finite."""
    scale = 0 if s.upper == 0 else -floor_log10(s.upper) * 10 // 3
    keep = max(SCREEN_KEEP, len(pts) // 100)
    top = max(max((abs(f) for f in fs), default=fmpq(0)), fmpq(1))
    for extra in SCREEN_BITS:
        bits = max(0, scale + extra)
        vals = enclose_at(P, pts, bits, ck.tick)
        with working(bits + 64 + floor_log10(top) * 10 // 3):  # f rounded well below 2^-bits
            errs = [abs(arb(f) - v) for f, v in zip(fs, vals)]
        if not all(e.is_finite() for e in errs):
            continue
        floor = max(e.lower() for e in errs)  # some point has |f - p| >= floor
        cand = [i for i, e in enumerate(errs) if not e < floor]
        if len(cand) <= keep or extra == SCREEN_BITS[-1]:  # the last try: ties are real
            return cand
    return None


def _max_check(s: Sup, ck: Checks) -> tuple[bool | None, str]:
    P = monomial_form(s.poly, ck.tick)
    n = s.size()
    if s.target["kind"] != "expr":  # exact targets: the exact maximum and its first argument
        pts = list(s.points())
        fs = [s.f_exact(x, i) for i, x in enumerate(pts)]
        cand = _screen(s, P, pts, fs, ck) if P.degree() > 8 and n > SCREEN_KEEP else None
        worst, arg = fmpq(-1), fmpq(0)
        extremes: list[tuple[fmpq, fmpq]] = []  # (x, f(x) - p(x)) where |f - p| = worst
        for j, i in enumerate(range(n) if cand is None else cand):
            if j % 1024 == 0:
                ck.tick()
            e = fs[i] - P(pts[i])
            if abs(e) > worst:
                worst, arg, extremes = abs(e), pts[i], []
            if abs(e) == worst:
                extremes.append((pts[i], e))
        s.worst, s.extremes = worst, extremes  # every point attaining the maximum
        return worst <= s.upper, f"max |f - p| = {show(worst)} at x = {show(arg)} over {n} points"
    unknown = []
    for i, x in enumerate(s.points()):
        if i % 1024 == 0:
            ck.tick()
        px = P(x)
        try:
            ok = _compare(s, x, i, px, s.upper, True)
        except Undefined:
            return False, f"target undefined at x = {show(x)}"
        if ok is False:
            return False, f"|f - p| > upper at x = {show(x)}"
        if ok is None:
            unknown.append(x)
    if unknown:
        return None, f"undecided at 65536 bits at x = {show(unknown[0])} ({len(unknown)} points)"
    return True, f"|f - p| <= upper at all {n} points"


def _witness(s: Sup, w: fmpq) -> tuple[bool | None, str]:
    i = _index(s, w)
    if i is None:
        return False, f"witness {show(w)} is not a domain point"
    try:
        ok = _compare(s, w, i, evaluate(s.poly, [w]), s.lower, False)
    except Undefined:
        return False, f"target undefined at the witness {show(w)}"
    return ok, f"|f - p| >= lower at x = {show(w)}: {ok}"


def _least_degree(s: Sup, ev: _LeastDegreeEvidence | None,
                  ck: Checks) -> tuple[bool | None, str]:
    if s.max_error is None:
        return False, "least_degree needs max_error"
    if ev is None or s.least_degree is None:
        return False, "evidence.least_degree is missing"
    pin = s.least_degree["pin"]
    D = s.degree - 1
    z, v = pin if pin is not None else (fmpq(0), fmpq(0))  # z is unused without a pin
    if pin is not None and evaluate(s.poly, [z]) != v:
        return False, f"p({show(z)}) != {show(v)}"
    pts, ws, bound = ev["points"], ev["weights"], ev["bound"]
    if D < -1 or (D == -1 and pin is not None and v != 0):
        return (not pts and bound is None), "vacuous: no polynomial of smaller degree is allowed" \
            " (evidence must carry no points and a null bound)"
    if not pts or bound is None:
        return False, "evidence needs points, weights and a bound"
    idx = [_index(s, x) for x in pts]
    if None in idx or len(set(pts)) != len(pts):
        return False, "the points must be distinct domain points"
    cur = [w * (x - z) for w, x in zip(ws, pts)] if pin is not None else list(ws)
    for j in range(D + (0 if pin is not None else 1)):
        ck.tick()
        if sum(cur, fmpq(0)) != 0:
            return False, f"moment {j} of the weights is not 0"
        cur = [c * x for c, x in zip(cur, pts)]
    W = sum((abs(w) for w in ws), fmpq(0))
    if W == 0:
        return False, "all weights are 0"
    if not bound > s.max_error:
        return False, f"bound {show(bound)} is not > max_error {show(s.max_error)}"
    try:
        try:
            fs = [s.f_at([x], i) for x, i in zip(pts, idx)]
        except Indeterminate:
            fs = []
        exact = [f for f in fs if isinstance(f, fmpq)]
        if fs and len(exact) == len(fs):
            true = abs(sum((w * (f - v) for w, f in zip(ws, exact)), fmpq(0))) / W
            return true == bound, f"bound recomputed: {show(true)}, stated {show(bound)}"

        def pred() -> bool | None:
            try:
                fb = [s.f_at([x], i) for x, i in zip(pts, idx)]
            except Indeterminate:
                return None
            tot = sum((arb(w) * (f.b if not isinstance(f, fmpq) else arb(f)) - arb(w * v)
                       for w, f in zip(ws, fb)), arb(0))
            q = abs(tot) / arb(W)
            return True if q >= arb(bound) else False if q < arb(bound) else None
        ok = decide(pred)
        return ok, f"stated bound {show(bound)} <= recomputed bound: {ok}"
    except Undefined:
        return False, "target undefined at a point of the evidence"


def finite_work(s: Sup) -> int:
    """Coefficients of p x the total size in bits of the domain points."""
    dom = s.domain
    if dom["kind"] == "integers":
        bits = s.size() * max(abs(dom["lo"]).bit_length(), abs(dom["hi"]).bit_length(), 1)
    else:
        bits = sum(int(abs(x.p).bit_length() + x.q.bit_length()) for x in dom["points"])
    return len(s.poly.coeffs) * bits


def verify_finite(st: object, evidence: object, ck: Checks, out: list[str]) -> None:
    s = read_sup(st, "supnorm-finite")
    work = finite_work(s)
    if work > MAX_FINITE_WORK:
        raise Malformed(f"statement: coefficients x bits of the domain points = {work} is over "
                        f"the verifier's cap {MAX_FINITE_WORK} (the largest finite certificate "
                        "the certifier makes)")
    ev = expect_keys(evidence, "evidence", ("witness",), ("least_degree",))
    w = read_exact(ev["witness"], "evidence.witness")
    ld_raw = ev.get("least_degree")
    ld: _LeastDegreeEvidence | None = None
    if ld_raw is not None:
        if s.least_degree is None:
            raise Malformed("evidence.least_degree without statement.least_degree")
        expect_keys(ld_raw, "evidence.least_degree", ("points", "weights", "bound"))
        pts = [read_exact(x, "evidence.least_degree.points")
               for x in read_list(ld_raw["points"], "evidence.least_degree.points", 0,
                                  MAX_POINTS)]
        ws = [read_exact(x, "evidence.least_degree.weights")
              for x in read_list(ld_raw["weights"], "evidence.least_degree.weights", len(pts),
                                 len(pts))]
        b = None if ld_raw["bound"] is None else read_exact(ld_raw["bound"],
                                                            "evidence.least_degree.bound")
        ld = {"points": pts, "weights": ws, "bound": b}
    out.extend(words(s))
    common_checks(s, ck)
    ck.run("sup |f - p| <= upper", lambda: _max_check(s, ck))
    ck.run("witness: |f - p| >= lower", lambda: _witness(s, w))
    if s.least_degree is not None:
        ck.run("least degree", lambda: _least_degree(s, ld, ck))
    if s.construction is not None:
        check_construction(s, ck)
