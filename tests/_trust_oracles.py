"""Truth oracles for the statements of the generated forgeries that the first oracles
(``tests/test_trust_mutation.py``) do not read: weighted, relative and family ``minimax``;
``supnorm-box`` with a ``weight`` or a ``domain.requested``; kind ``roundoff``; the tree
form of ``float-error``; ``evalbound`` in binary32.

Each decides whether a statement is true **without dpverify.verify**:

* *true* when the certifier's side (``dpverify.certify``: the weighted graded supremum
  ``sup_error``, the interval certifier ``supnorm``, ``program_bound``,
  ``scheme_error_bound``, ``evalbound``), run on the edited statement itself, proves a
  bound at or below the stated one (the unrounded largest bound of its pieces), or when a
  lower bound is shown here in 2000-bit balls (de la Vallee Poussin at the genuine
  evidence points: the signs of ``f - p`` alternate and ``|w (f - p)| >= lower``; for a
  family, annihilating weights solved here exactly, ``sum lam_i x_i^k = 0`` for every
  free power ``k``, with ``lam_i (f - p)(x_i)`` of one sign);
* *false* when the same enclosures put the claim outside them, or when the float code
  run **exactly** (each operation rounded to nearest even in rationals by the certifier's
  :class:`~dpverify.certify.fpformat.Format`, a called function correctly rounded, which
  every accuracy model of at least half an ulp allows) at sampled inputs has an error
  above the bound;
* *undecided* (None) otherwise, and for every statement the certifier refuses to read.

Monotonicity arguments used: a bound at or above a proven one is true; a supremum over a
smaller box is at most the one over the larger (a requested interval inside the stated
one); a lower bound shown on a rational box inside the requested one holds on it.
"""

from __future__ import annotations

import re
from typing import Any

from flint import arb, ctx, fmpq, fmpq_mat, fmpq_poly

from dpverify.certify.evalbound import evalbound
from dpverify.certify.fpformat import BINARY32, BINARY64, Format
from dpverify.certify.graded_supnorm import sup_error
from dpverify.certify.interval import supnorm
from dpverify.certify.roundoff import program_bound
from dpverify.certify.scheme_error import scheme_error_bound
from dpverify.certify.schemes import scheme_program
from dpverify.exact import poly_from_json
from dpverify.expr import parse
from dpverify.expr.fpcore import read_fpcore
from dpverify.numbers import fmpq_to_decimal, parse_exact

__all__ = ["weighted_minimax", "box", "roundoff", "total_error", "evalbound_format"]

FORMATS = {"binary64": BINARY64, "binary32": BINARY32}
_BITS = 2000
_SAMPLES = 64


class Unknown(Exception):
    """The statement is outside what these oracles read: undecided."""


# ------------------------------------------------------------------ common pieces


def _exact(v: Any) -> fmpq:
    if not isinstance(v, str):
        raise Unknown("not a number")
    return parse_exact(v)


def _poly(pj: dict[str, Any]) -> Any:
    return poly_from_json({k: pj[k] for k in ("basis", "coefficients", "domain", "shape",
                                              "domains") if k in pj})


def _mono(poly: Any) -> fmpq_poly:
    return poly.to_monomial().as_fmpq_poly()


def _interval(pair: Any) -> tuple[fmpq, fmpq]:
    if not (isinstance(pair, list) and len(pair) == 2):
        raise Unknown("not an interval")
    a, b = _exact(pair[0]), _exact(pair[1])
    if a >= b:
        raise Unknown("empty interval")
    return a, b


def _target(st: dict[str, Any]) -> tuple[Any, str, list[str]]:
    t = st["target"]
    if t.get("kind") != "expr" or set(t) != {"kind", "expr", "variables"}:
        raise Unknown("target")
    return parse(t["expr"], variables=t["variables"]), t["expr"], t["variables"]


def _weight(st: dict[str, Any], text: str, variables: list[str]) -> Any:
    """The weight expression (None: 1); relative means ``1/f``."""
    w = st.get("weight")
    if w is None:
        return None
    if w == {"kind": "relative"}:
        return parse(f"1/({text})", variables=variables)
    if w.get("kind") == "expr" and set(w) == {"kind", "expr", "variables"} and \
            w["variables"] == variables:
        return parse(w["expr"], variables=variables)
    raise Unknown("weight")


def _family(st: dict[str, Any], degree: int) -> tuple[list[int], dict[int, fmpq]] | None:
    """(free powers, fixed values) of a family statement (docs/certificates.md, kind
    ``minimax``: ``monomials`` absent means every power up to the degree not fixed)."""
    if st.get("monomials") is None and st.get("fixed") is None:
        return None
    fixed: dict[int, fmpq] = {}
    for item in st.get("fixed") or []:
        if set(item) != {"power", "value"} or item["power"] in fixed:
            raise Unknown("fixed")
        fixed[item["power"]] = _exact(item["value"])
    free = st["monomials"] if st.get("monomials") is not None else \
        [k for k in range(degree + 1) if k not in fixed]
    if sorted(set(free)) != free or set(free) & set(fixed) or not free or \
            max(free + list(fixed)) != degree:
        raise Unknown("family")
    return list(free), fixed


def _in_family(p: fmpq_poly, free: list[int], fixed: dict[int, fmpq]) -> bool:
    cs = [fmpq(c) for c in p.coeffs()]
    top = max(len(cs) - 1, max(free + list(fixed)))
    cs += [fmpq(0)] * (top + 1 - len(cs))
    return all(cs[k] == fixed[k] if k in fixed else k in free or cs[k] == 0
               for k in range(top + 1))


def _annihilator(pts: list[fmpq], free: list[int]) -> list[fmpq] | None:
    """Weights ``lam`` (not all 0) with ``sum lam_i x_i^k = 0`` for every free ``k``,
    solved exactly (the null space of the ``len(free) x len(pts)`` power matrix)."""
    m = fmpq_mat(len(free), len(pts), [x ** k for k in free for x in pts])
    r, rank = m.rref()
    pivots = [next(j for j in range(len(pts)) if r[i, j] != 0) for i in range(rank)]
    loose = [j for j in range(len(pts)) if j not in pivots]
    if len(loose) != 1:
        return None
    lam = [fmpq(0)] * len(pts)
    lam[loose[0]] = fmpq(1)
    for i, j in enumerate(pivots):
        lam[j] = -fmpq(r[i, loose[0]])
    return lam


def _error_at(f: Any, w: Any, p: fmpq_poly, x: fmpq) -> tuple[arb, arb]:
    """``(f - p)(x)`` and ``|w (f - p)|(x)`` at 2000 bits."""
    e = f.eval_arb(arb(x)) - arb(p(x))
    return e, abs(e * (arb(1) if w is None else w.eval_arb(arb(x))))


def _lower_holds(f: Any, w: Any, p: fmpq_poly, pts: list[fmpq], lo: fmpq,
                 free: list[int] | None, ab: tuple[fmpq, fmpq]) -> bool:
    """``lo <= min over the class of max |w (f - q)|`` shown at ``pts`` (module docstring):
    alternation for the dense class (``free`` None), annihilating weights for a family."""
    if any(x >= y for x, y in zip(pts, pts[1:])) or not all(ab[0] <= x <= ab[1] for x in pts):
        return False
    lam = [fmpq(1)] * len(pts) if free is None else _annihilator(pts, free)
    if lam is None:
        return False
    with ctx.workprec(_BITS):
        signs = []
        for x, v in zip(pts, lam):
            if v == 0:
                continue
            e, we = _error_at(f, w, p, x)
            if not ((e > 0 or e < 0) and we >= arb(lo)):
                return False
            signs.append((e > 0) == (v > 0))
    if free is None:  # alternating signs
        return all(s != t for s, t in zip(signs, signs[1:]))
    return all(s == signs[0] for s in signs)


def _sup(f: Any, w: Any, poly: Any, box: list[tuple[fmpq, fmpq]], guess: fmpq
         ) -> tuple[fmpq, fmpq]:
    """An enclosure of ``sup |w (f - p)|`` over ``box`` by the certifier (the weighted
    graded supremum in one variable, the interval certifier otherwise)."""
    if w is not None:
        if len(box) != 1:
            raise Unknown("a weight in several variables")
        res = sup_error(f, poly, box[0], lower=guess if guess > 0 else fmpq(1, 10**30),
                        rtol="1e-40", weight=w)
        return res.lower, res.upper
    res = supnorm(f, poly, box, rtol="1e-40", timeout=60)
    return res.lower, res.upper


def _upper_truth(f: Any, w: Any, poly: Any, box: list[tuple[fmpq, fmpq]], up: fmpq
                 ) -> tuple[bool | None, tuple[fmpq, fmpq]]:
    """``sup <= up``: True, False or None, and an enclosure of the sup."""
    if w is None:  # the claim mode decides exactly the stated bound
        res = supnorm(f, poly, box, rtol="1e-12", claim=up, timeout=60)
        status = {"claim refuted": False, "claim proven": True}.get(res.status)
        return status, (res.lower, res.upper)
    lo, hi = _sup(f, w, poly, box, up)
    return (True if hi <= up else False if lo > up else None), (lo, hi)


def _claims(st: dict[str, Any], sup: tuple[fmpq, fmpq], up: fmpq) -> bool | None:
    """``max_error`` and ``upper_decimal`` given ``sup[0] <= sup <= min(sup[1], up)``."""
    dec = st["error"].get("upper_decimal")
    if dec is not None:
        d = _exact(dec)
        digits = len(dec.split("e")[0].replace("-", "").replace(".", "").lstrip("0"))
        if d != up and (digits == 0 or fmpq_to_decimal(up, digits, "up") != dec):
            return None if d >= up else False
    me = st.get("max_error")
    if me is not None and _exact(me) < min(up, sup[1]):
        return False if _exact(me) < sup[0] else None
    return True


# ------------------------------------------------------------------ minimax


def weighted_minimax(st: dict[str, Any], ev: dict[str, Any], l1_ok: Any) -> bool | None:
    """``lower <= E(f) <= sup |w (f - p)| <= upper`` over the statement's class (degree
    ``<= N`` or the family), with ``max_error`` and ``least_degree``."""
    try:
        return _weighted_minimax(st, ev, l1_ok)
    except Unknown:
        return None


def _weighted_minimax(st: dict[str, Any], ev: dict[str, Any], l1_ok: Any) -> bool | None:
    poly = _poly(st["polynomial"])
    ok = l1_ok(st["polynomial"], poly)
    if ok is not True:
        return ok
    f, text, names = _target(st)
    w = _weight(st, text, names)
    dom, n = st["domain"], st["degree"]
    if dom.get("kind") != "box" or set(dom) != {"kind", "intervals"} or \
            len(dom["intervals"]) != 1 or not isinstance(n, int) or n < 0:
        return None
    ab = _interval(dom["intervals"][0])
    fam = _family(st, n)
    p = _mono(poly)
    if (p.degree() > n) if fam is None else not _in_family(p, *fam):
        return False  # p is not of the class the statement is about
    lo, up = _exact(st["error"]["lower"]), _exact(st["error"]["upper"])
    if lo < 0 or lo > up:
        return False
    upper, sup = _upper_truth(f, w, poly, [ab], up)
    if upper is not True:
        return upper
    claims = _claims(st, sup, up)
    if claims is not True:
        return claims
    free = None if fam is None else fam[0]
    pts = [_exact(x) for x in ev["alternation"]]
    if len(pts) != (n + 2 if fam is None else len(free or []) + 1) or \
            not _lower_holds(f, w, p, pts, lo, free, ab):
        return None  # E(f) >= lower may still hold: not decided here
    ld = st.get("least_degree")
    if ld is None:
        return True
    me = st.get("max_error")
    if me is None or _exact(ld["lower"]) <= _exact(me):
        return False
    lev = ev.get("least_degree") or {}
    q = _mono(_poly(lev["polynomial"]))
    qpts = [_exact(x) for x in lev["alternation"]]
    if fam is None:
        good = q.degree() <= n - 1 and len(qpts) == n + 1
        low_free = None
    else:
        low_free = fam[0][:-1]
        good = bool(low_free) and _in_family(q, low_free, fam[1]) and \
            len(qpts) == len(low_free) + 1
    if not good or not _lower_holds(f, w, q, qpts, _exact(ld["lower"]), low_free, ab):
        return None
    return True


# ------------------------------------------------------------------ box


def box(st: dict[str, Any], l1_ok: Any) -> bool | None:
    """A ``supnorm-box`` statement with a ``weight`` or a ``domain.requested``:
    ``lower <= sup |w (f - p)| <= upper`` over the requested box (or the stated one), the
    stated box containing the requested one."""
    try:
        return _box(st, l1_ok)
    except Unknown:
        return None


def _constant(text: Any) -> arb:
    if not isinstance(text, str):
        raise Unknown("requested end")
    with ctx.workprec(_BITS):
        return parse(text, variables=[]).eval_arb()


def _box(st: dict[str, Any], l1_ok: Any) -> bool | None:
    poly = _poly(st["polynomial"])
    ok = l1_ok(st["polynomial"], poly)
    if ok is not True:
        return ok
    if st.get("construction") is not None:
        return False  # every named construction is on the integers 0..k
    f, text, names = _target(st)
    w = _weight(st, text, names)
    dom = st["domain"]
    if dom.get("kind") != "box" or not set(dom) <= {"kind", "intervals", "requested",
                                                     "rounding"}:
        return None
    stated = [_interval(iv) for iv in dom["intervals"]]
    dim = len(poly.shape) if hasattr(poly, "shape") else 1
    if len(stated) != dim or len(names) != dim:
        return None
    inner = stated
    if "requested" in dom or "rounding" in dom:
        req = dom.get("requested")
        if dom.get("rounding") != "outward" or not isinstance(req, list) or \
                len(req) != dim:
            return None
        inner = []
        with ctx.workprec(_BITS):
            for (a, b), pair in zip(stated, req):
                if not (isinstance(pair, list) and len(pair) == 2):
                    return None
                ra, rb = _constant(pair[0]), _constant(pair[1])
                if ra < arb(a) or rb > arb(b):
                    return False  # the stated interval does not contain the requested one
                if not (ra >= arb(a) and rb <= arb(b)):
                    return None
                # a rational interval inside the requested one (its ends' enclosures)
                lo_in, hi_in = fmpq_of(ra.upper()), fmpq_of(rb.lower())
                if not lo_in < hi_in:
                    return None
                inner.append((lo_in, hi_in))
    lo, up = _exact(st["error"]["lower"]), _exact(st["error"]["upper"])
    if lo < 0 or lo > up:
        return False
    upper, sup = _upper_truth(f, w, poly, stated, up)
    if upper is not True:
        return upper
    claims = _claims(st, sup, up)
    if claims is not True:
        return claims
    if inner is stated and lo <= sup[0]:
        return True
    low, high = _sup(f, w, poly, inner, lo)
    return True if lo <= low else False if lo > high and inner is stated else None


def fmpq_of(x: arb) -> fmpq:
    """The exact value of a ball's end (``arb.upper()`` / ``lower()``: radius 0)."""
    m, e = x.mid().man_exp()
    return fmpq(int(m)) * (fmpq(2) ** int(e) if e >= 0 else fmpq(1, 2 ** int(-e)))


# ------------------------------------------------------------------ float code, exactly


def _run(prog: Any, fmt: Format, x: list[fmpq], rounded: bool) -> tuple[fmpq, arb] | None:
    """``(fl(P)(x), P(x))``: the float program with every operation rounded to nearest
    even exactly (a called function correctly rounded) and a 400-bit ball of the exact
    value; None on overflow, a domain error or a rounding too close to call."""
    fl: list[fmpq] = []
    ex: list[arb] = []
    with ctx.workprec(400):
        for op in prog.ops:
            k = op.kind
            a = [fl[j] for j in op.args]
            e = [ex[j] for j in op.args]
            if k == "var":
                v = x[prog.variables.index(op.name)]
                r: fmpq | None = fmt.nearest(v) if rounded else v
                er = arb(v)
            elif k == "const":
                r, er = fmt.nearest(op.value), arb(op.value)
            elif k == "neg":
                r, er = -a[0], -e[0]
            elif k == "abs":
                r, er = abs(a[0]), abs(e[0])
            elif k in ("add", "sub"):
                s = 1 if k == "add" else -1
                r, er = fmt.nearest(a[0] + s * a[1]), e[0] + s * e[1]
            elif k == "mul":
                r, er = fmt.nearest(a[0] * a[1]), e[0] * e[1]
            elif k == "fma":
                r, er = fmt.nearest(a[0] * a[1] + a[2]), e[0] * e[1] + e[2]
            elif k == "div":
                if a[1] == 0 or not (e[1] > 0 or e[1] < 0):
                    return None
                r, er = fmt.nearest(a[0] / a[1]), e[0] / e[1]
            elif k in ("sqrt", "call"):
                name = "sqrt" if k == "sqrt" else op.name
                try:
                    val = getattr(arb(a[0]), name)()
                except (ValueError, AttributeError):
                    return None
                lo_r, hi_r = fmt.nearest(fmpq_of(val.lower())), fmt.nearest(fmpq_of(val.upper()))
                if lo_r is None or lo_r != hi_r or not val.is_finite():
                    return None
                r, er = lo_r, getattr(e[0], name)()
            else:
                return None
            if r is None or not er.is_finite():
                return None
            fl.append(r)
            ex.append(er)
    return fl[prog.output], ex[prog.output]


def _exceeds(fmt: Format, error: str, got: fmpq, exact: arb, bound: fmpq) -> bool:
    """Is ``|got - exact|`` certainly above ``bound`` in the statement's unit?"""
    diff = abs(arb(got) - exact)
    if error == "absolute":
        return bool(diff > arb(bound))
    if not (exact > 0 or exact < 0):
        return False
    if error == "relative":
        return bool(diff > arb(bound) * abs(exact))
    # ulps: ulp is monotone in |y|, so the ulp of the ball's largest magnitude is an
    # upper bound of ulp(P(x))
    return bool(diff > arb(bound * fmt.ulp(fmpq_of(abs(exact).upper()))))


def _samples(box: list[tuple[fmpq, fmpq]], fmt: Format, rounded: bool) -> list[list[fmpq]]:
    """Inputs of the box: corners, centre and a fixed pseudo-random grid (floats of the
    format, or reals for rounded inputs)."""
    out = []
    for i in range(_SAMPLES):
        x = []
        for j, (lo, hi) in enumerate(box):
            t = fmpq((i * (2 * j + 7919) * 104729) % 1021, 1020) if i > 1 else fmpq(i)
            v = lo + (hi - lo) * t
            if not rounded:
                v = min(max(fmt.nearest(v) or lo, fmt.ceil(lo)), fmt.floor(hi))
            x.append(v)
        out.append(x)
    return out


def _refuted(prog: Any, fmt: Format, box: list[tuple[fmpq, fmpq]], rounded: bool,
             error: str, bound: fmpq, exact: Any = None) -> bool:
    """Some sampled input has an error above ``bound`` (``exact``: the target function
    instead of the program's exact value)."""
    for x in _samples(box, fmt, rounded):
        got = _run(prog, fmt, x, rounded)
        if got is None:
            continue
        value = got[1]
        if exact is not None:
            with ctx.workprec(400):
                value = exact.eval_arb(*[arb(v) for v in x])
        if _exceeds(fmt, error, got[0], value, bound):
            return True
    return False


# ------------------------------------------------------------------ roundoff


_ERRORS = {"absolute": "abs", "relative": "rel", "ulps": "ulps"}


def roundoff(st: dict[str, Any]) -> bool | None:
    """``|fl(P)(x) - P(x)| <= bound`` (in the unit of ``error``) for every input."""
    try:
        return _roundoff(st)
    except Unknown:
        return None


def _with_pre(text: str, names: list[str], box: list[tuple[fmpq, fmpq]]) -> str:
    pre = " ".join(f"(<= {_lit(a)} {v} {_lit(b)})" for v, (a, b) in zip(names, box))
    m = re.match(r"\s*\(FPCore\s*\(([^()]*)\)", text)
    if m is None:
        raise Unknown("program")
    return text[:m.end()] + f" :pre (and {pre})" + text[m.end():]


def _lit(q: fmpq) -> str:
    return str(q.p) if q.q == 1 else f"{q.p}/{q.q}"


def _roundoff(st: dict[str, Any]) -> bool | None:
    text = st["program"]
    m = re.match(r"\s*\(FPCore\s*\(([^()]*)\)", text) if isinstance(text, str) else None
    if m is None or st.get("rounding") != "nearest-even" or st["format"] not in FORMATS or \
            st["error"] not in _ERRORS or st["inputs"] not in ("floats", "rounded-reals"):
        return None
    names = m.group(1).split()
    raw = st["box"]
    if not isinstance(raw, list) or len(raw) != len(names):
        return None
    box_ = []
    for pair in raw:
        if not (isinstance(pair, list) and len(pair) == 2):
            return None
        a, b = _exact(pair[0]), _exact(pair[1])
        if a > b:
            return None
        box_.append((a, b))
    fmt, rounded = FORMATS[st["format"]], st["inputs"] == "rounded-reals"
    if not rounded and any(fmt.ceil(a) > fmt.floor(b) for a, b in box_):
        return True  # no input: nothing is claimed
    bound = _exact(st["bound"])
    funcs = st["functions"]
    if not isinstance(funcs, dict):
        return None
    try:
        full = _with_pre(text, names, box_)
        prog = read_fpcore(full).program
    except Exception:  # noqa: BLE001 - a program the certifier cannot read: undecided
        return None
    if set(funcs) != set(prog.calls):
        return None
    try:
        r = program_bound(full, format=fmt, round_inputs=rounded, functions=funcs,
                          error=_ERRORS[st["error"]], rtol="1e-3", max_boxes=400, timeout=60)
        if max(leaf.bound for leaf in r.leaves) <= bound:
            return True
    except Exception:  # noqa: BLE001 - the certifier gives no bound: try to refute
        pass
    # a called function correctly rounded is within every model (>= 1/2 ulp) the
    # statement may state; a model below 1/2 ulp: no refutation by this emulation
    if any(v != "correctly-rounded" and _exact(v) < fmpq(1, 2) for v in funcs.values()):
        return None
    return False if _refuted(prog, fmt, box_, rounded, st["error"], bound) else None


# ------------------------------------------------------------------ float-error (tree)


def total_error(st: dict[str, Any]) -> bool | None:
    """``|f(x) - fl(p)(x)| <= bound`` (unit of ``error``) for the floats of ``[A, B]``,
    ``fl(p)`` the scheme (docs/certificates.md, float-error with a tree)."""
    try:
        return _total_error(st)
    except Unknown:
        return None


def _total_error(st: dict[str, Any]) -> bool | None:
    fmt = FORMATS.get(st["format"])
    pj = st["polynomial"]
    if fmt is None or pj.get("basis") != "monomial" or pj.get("domain") is not None or \
            st["error"] not in _ERRORS or st["scheme"] not in (
                "horner", "horner-fma", "estrin", "estrin-fma") or \
            st["parity"] not in (None, "even", "odd"):
        return None
    want = f"{fmt.name}, round to nearest even, " + (
        "fused multiply-add" if st["scheme"].endswith("-fma") else "no FMA")
    if st["arithmetic"] != want:
        return None
    cs = [_exact(c) for c in pj["coefficients"]]
    if not cs or any(not fmt.is_member(c) for c in cs) or (len(cs) > 1 and cs[-1] == 0):
        return None
    f, text, names = _target(st)
    if names != ["x"]:
        return None
    a, b = _exact(st["interval"][0]), _exact(st["interval"][1])
    if fmt.ceil(a) > fmt.floor(b):
        return True  # no float input: nothing is claimed
    bound = _exact(st["bound"])
    try:
        prog = scheme_program(cs, st["scheme"], st["parity"])
    except Exception:  # noqa: BLE001 - coefficients not of the stated parity: undecided
        return None
    try:
        r = scheme_error_bound(text, cs, (a, b), scheme=st["scheme"], parity=st["parity"],
                               format=fmt.name, error=_ERRORS[st["error"]], rtol="1e-4",
                               max_pieces=1000, timeout=60)
        if max(leaf.bound for leaf in r.leaves) <= bound:
            return True
    except Exception:  # noqa: BLE001 - the certifier gives no bound: try to refute
        pass
    return False if _refuted(prog, fmt, [(a, b)], False, st["error"], bound, f) else None


# ------------------------------------------------------------------ evalbound (format)


def evalbound_format(st: dict[str, Any], decimal_ok: Any) -> bool | None:
    """``|fl(p(x)) - p(x)| <= bound`` for the floats of the stated format in ``[A, B]``."""
    try:
        return _evalbound_format(st, decimal_ok)
    except Unknown:
        return None


def _evalbound_format(st: dict[str, Any], decimal_ok: Any) -> bool | None:
    fmt = FORMATS.get(st.get("format", "binary64"))
    scheme = st["scheme"]
    basis = {"horner": "monomial", "horner-fma": "monomial", "clenshaw": "chebyshev"}.get(
        scheme)
    pj = st["polynomial"]
    if fmt is None or basis is None or pj["basis"] != basis:
        return None
    want = f"{fmt.name}, round to nearest even, " + (
        "fused multiply-add" if scheme == "horner-fma" else "no FMA")
    if st["arithmetic"] != want:
        return None
    bound = _exact(st["bound"])
    main = _evaluation(st, fmt, scheme, basis, bound)
    return main if main is not True else decimal_ok(st, bound)


def _evaluation(st: dict[str, Any], fmt: Format, scheme: str, basis: str, bound: fmpq
                ) -> bool | None:
    pj = st["polynomial"]
    cs = [_exact(c) for c in pj["coefficients"]]
    if any(not fmt.is_member(c) for c in cs):
        return None
    a, b = _exact(st["interval"][0]), _exact(st["interval"][1])
    if a > b:
        return None
    if fmt.ceil(a) > fmt.floor(b):
        return True
    dom = None if pj["domain"] is None else _interval(pj["domain"])
    try:
        ev = evalbound(cs, (a, b), basis=basis, domain=dom, format=fmt.name,
                       fma=scheme == "horner-fma")
        if ev.coefficients == 0 and ev.evaluation <= bound:
            return True
    except Exception:  # noqa: BLE001 - the certifier gives no bound: try to refute
        pass
    if basis != "monomial":
        return None
    prog = scheme_program(cs, scheme)
    return False if _refuted(prog, fmt, [(a, b)], False, "absolute", bound) else None
