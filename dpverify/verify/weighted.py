"""Weighted errors ``w (f - p)`` and families of polynomials, for the kinds ``minimax`` and
``supnorm-box`` (one variable).

*Weight* (statement field ``weight``): ``{"kind": "relative"}`` means ``w = 1/f`` (the
relative error ``(f - p)/f``), ``{"kind": "expr", "expr": ..., "variables": [x]}`` a
weight expression of the target's variable.  Absent: ``w = 1``.  The claims bound
``sup |w (f - p)|``; nothing here needs the sign of ``w``.

*Piece bound* (:class:`WeightedBounds`), on ``[m - r, m + r]`` with ``h = x - m``: the Taylor
coefficients at ``m`` of ``f`` and ``w`` (jets, order ``K - 1``) and over the piece
(order ``K``, constant terms the whole piece), and the exact Taylor shift ``p(m + h) =
sum c_j h^j``, whose coefficients over the piece (``p(m + u + h)``, ``|u| <= r``) are
enclosed by Horner's rule on series at the ball ``[-r, r]``.  With ``D = f - p``, the
product ``w D`` has the Taylor form of order ``K`` with Lagrange remainder::

    w D (m + h) = sum_(j<K) E_j h^j + E_K(xi) h^K,   E_j = sum_(i<=j) W_i D_(j-i),

``E_j`` from the coefficients at ``m`` and ``E_K(xi)`` enclosed from those over the piece
(the product of two series enclosed for every point of the piece encloses the product's
coefficient there).  So ``sup |w D| <= sum |E_j| r^j + |E_K| r^K``; when ``sum j E_j
[-r, r]^(j-1)`` excludes 0, ``w D`` is monotone and its sup is at an end
(:meth:`WeightedBounds.ends`).  Order 0 (no series): ``|w(I)| (|f(I) - c_0| + sum_(j>=1)
|c_j| r^j)``.

*Lower bounds*: :func:`check_weighted_alternation` (the dense family: ``f - p``
alternates in sign at ``N + 2`` points and ``|w (f - p)| >= lower`` there: the weighted
de la Vallee Poussin theorem, which needs ``w != 0`` at the points only) and
:func:`check_annihilator` (any family ``p_fix + span{x^k : k in free}``: exact weights
``lam`` with ``sum lam_i x_i^k = 0`` for every free ``k``, ``lam_i (f - p)(x_i)`` of one
strict sign and ``|w (f - p)(x_i)| >= lower`` where ``lam_i != 0``; then every ``q`` of the
family has ``max_i |w (f - q)(x_i)| >= lower``, because ``sum lam_i (f - q)(x_i) = sum
lam_i (f - p)(x_i)``).
"""

from __future__ import annotations

from dataclasses import dataclass

from flint import arb, arb_series, fmpq, fmpq_poly

from .expr import (
    CONSTANTS,
    FUNCTIONS,
    IDENT,
    Code,
    Indeterminate,
    Iv,
    IvAlg,
    SerAlg,
    Undefined,
    coeffs,
    interval,
    ipow,
    parse,
    point,
    run,
)
from .numbers import MAX_PREC, expect_keys, read_exact, read_int, read_list, show, working
from .poly import Poly, evaluate, shifted
from .report import Checks, Malformed
from .taylor import PieceBound

__all__ = ["MAX_POWER", "Weight", "Family", "read_weight", "read_family", "weight_words",
           "WeightedBounds", "sign_at", "check_weighted_alternation", "check_annihilator",
           "check_family_member"]

#: largest power of a family in a certificate
MAX_POWER = 200_000


@dataclass
class Weight:
    """A weight as read: ``relative`` (``w = 1/f``) or an expression; ``code`` evaluates
    ``w``."""

    kind: str
    text: str
    code: Code


@dataclass
class Family:
    """``p_fix + span{x^k : k in free}`` as read (``fixed``: power -> exact value)."""

    free: list[int]
    fixed: dict[int, fmpq]


def read_weight(obj: object, target_text: str, variables: list[str]) -> Weight | None:
    """The statement's ``weight`` (None when absent or null)."""
    if obj is None:
        return None
    kind = expect_keys(obj, "statement.weight", ("kind",), ("expr", "variables"))["kind"]
    if kind == "relative":
        expect_keys(obj, "statement.weight", ("kind",))
        return Weight("relative", "1/f", parse(f"1/({target_text})", variables,
                                               "statement.weight (1/target)"))
    if kind != "expr":
        raise Malformed("statement.weight.kind: relative or expr")
    v = expect_keys(obj, "statement.weight", ("kind", "expr", "variables"))
    names = read_list(v["variables"], "statement.weight.variables", 1, 1)
    if names != variables or not (isinstance(names[0], str) and IDENT.fullmatch(names[0])
                                  and names[0] not in FUNCTIONS
                                  and names[0] not in CONSTANTS):
        raise Malformed("statement.weight.variables: the target's variable")
    if not isinstance(v["expr"], str):
        raise Malformed("statement.weight.expr: expected a string")
    return Weight("expr", v["expr"], parse(v["expr"], names, "statement.weight.expr"))


def read_family(st: dict[str, object], degree: int) -> Family | None:
    """``monomials`` and ``fixed`` of a statement (None when both are absent)."""
    if st.get("monomials") is None and st.get("fixed") is None:
        return None
    fixed: dict[int, fmpq] = {}
    for i, item in enumerate(read_list(st.get("fixed") or [], "statement.fixed", 0,
                                       MAX_POWER + 1)):
        pv = expect_keys(item, f"statement.fixed[{i}]", ("power", "value"))
        k = read_int(pv["power"], f"statement.fixed[{i}].power", 0, MAX_POWER)
        if k in fixed:
            raise Malformed(f"statement.fixed: power {k} twice")
        fixed[k] = read_exact(pv["value"], f"statement.fixed[{i}].value")
    if st.get("monomials") is None:
        free = [k for k in range(degree + 1) if k not in fixed]
    else:
        free = [read_int(k, "statement.monomials", 0, MAX_POWER)
                for k in read_list(st["monomials"], "statement.monomials", 1, MAX_POWER + 1)]
    if len(set(free)) != len(free) or sorted(free) != free:
        raise Malformed("statement.monomials: distinct powers in increasing order")
    if set(free) & set(fixed):
        raise Malformed("statement.monomials: a power both free and fixed")
    if not free:
        raise Malformed("statement.monomials: no free power")
    if max(free + list(fixed)) != degree:
        raise Malformed("statement.degree: the largest power of the family")
    return Family(free, fixed)


def weight_words(w: Weight | None, name: str = "p") -> str:
    """``w (f - p)`` in words (``name`` for ``p``)."""
    if w is None:
        return f"f - {name}"
    return f"(f - {name})/f" if w.kind == "relative" else \
        f"w (f - {name}) with w = {w.text[:80]}"


def check_family_member(mono: fmpq_poly, fam: Family, name: str = "p") -> tuple[bool, str]:
    """Is the polynomial ``mono`` in the family?"""
    cs = [fmpq(c) for c in mono.coeffs()]
    free = set(fam.free)
    for k, c in enumerate(cs):
        if k in fam.fixed:
            if c != fam.fixed[k]:
                return False, f"coefficient of x^{k} of {name} is {show(c)}, fixed to " \
                              f"{show(fam.fixed[k])}"
        elif k not in free and c != 0:
            return False, f"{name} has a term x^{k} outside the family"
    for k, v in fam.fixed.items():
        if k >= len(cs) and v != 0:
            return False, f"coefficient of x^{k} of {name} is 0, fixed to {show(v)}"
    return True, f"{name} is in the family ({len(fam.free)} free powers, " \
                 f"{len(fam.fixed)} fixed)"


def _jets(code: Code, n: int, c: arb) -> list[arb]:
    """``n + 1`` Taylor coefficients at the ball ``c`` (in powers of ``h``)."""
    s = run(code, SerAlg(n + 1), [arb_series([c, 1], prec=n + 1)])
    out = coeffs(s, n + 1)
    if not all(v.is_finite() for v in out):
        raise Indeterminate()
    return out


def _at_ball(cs: list[fmpq], u: arb, n: int) -> list[arb]:
    """The first ``n`` coefficients of ``P(u + h)`` in ``h`` (``P = sum cs_j h^j``, ``u`` a
    ball): Horner on series."""
    s = arb_series([u, 1], prec=n)
    acc = arb_series([0], prec=n)
    for c in reversed(cs):
        acc = acc * s + arb(c)
    return coeffs(acc, n)


def _value(code: Code, x: fmpq) -> fmpq | arb:
    iv = run(code, IvAlg(), [point(x)])
    v = iv.value
    return iv.b if v is None else v


class WeightedBounds:
    """Piece bounds of ``|w (f - p)|`` in one variable (module docstring), with the
    signatures of :func:`.taylor.bound_piece` and :func:`.taylor.endpoints`."""

    def __init__(self, w: Code) -> None:
        self.w = w

    def bound(self, code: Code, p: Poly, box: list[tuple[fmpq, fmpq]], order: int,
              prec: int, goal: fmpq | None = None) -> PieceBound:
        lo, hi = box[0]
        m, r = (lo + hi) / 2, (hi - lo) / 2
        with working(prec, order + 2):
            pcs = [fmpq(0)] * (1 + max([al[0] for al, _ in shifted(p, [m])] + [0]))
            for al, c in shifted(p, [m]):
                pcs[al[0]] = c
            K = order
            if K >= 1:
                try:
                    ball = arb(lo).union(arb(hi))
                    fc, fx = _jets(code, K - 1, arb(m)), _jets(code, K, ball)
                    wc, wx = _jets(self.w, K - 1, arb(m)), _jets(self.w, K, ball)
                except Undefined:
                    return PieceBound(None, None, True)
                except Indeterminate:
                    K = 0
            if K >= 1:
                pI = _at_ball(pcs, arb(0, r), K + 1)
                d0 = [fc[j] - (pcs[j] if j < len(pcs) else 0) for j in range(K)]
                dI = [fx[k] - pI[k] for k in range(K + 1)]
                e = [sum((wc[i] * d0[j - i] for i in range(j + 1)), arb(0)) for j in range(K)]
                e.append(sum((wx[i] * dI[K - i] for i in range(K + 1)), arb(0)))
                rr = arb(r)
                total = sum((v.abs_upper() * ipow(rr, j) for j, v in enumerate(e)), arb(0))
                unit = arb(0, r)
                slope = sum((j * v * ipow(unit, j - 1) for j, v in enumerate(e) if j), arb(0))
                if not total.is_finite():
                    return PieceBound(None, e[0])
                return PieceBound(total, e[0], monotone=bool(slope > 0 or slope < 0))
            return self._order0(code, p, pcs, lo, hi, m, r)

    def _order0(self, code: Code, p: Poly, pcs: list[fmpq], lo: fmpq, hi: fmpq, m: fmpq,
                r: fmpq) -> PieceBound:
        rest = sum((abs(arb(c)) * ipow(arb(r), j) for j, c in enumerate(pcs) if j), arb(0))
        centre: arb | None
        try:
            fm, wm = _value(code, m), _value(self.w, m)
            centre = arb(wm) * (arb(fm) - arb(pcs[0]))
        except Undefined:
            return PieceBound(None, None, True)
        except Indeterminate:
            centre = None
        try:
            f: Iv = run(code, IvAlg(), [interval(lo, hi)])
            w: Iv = run(self.w, IvAlg(), [interval(lo, hi)])
        except Undefined:
            return PieceBound(None, centre, True)
        except Indeterminate:
            return PieceBound(None, centre)
        bound = abs(w.b) * ((f.b - arb(pcs[0])).abs_upper() + rest)
        return PieceBound(bound if bound.is_finite() else None, centre)

    def ends(self, code: Code, p: Poly, box: list[tuple[fmpq, fmpq]],
             centre: arb) -> PieceBound:
        """``max |w (f - p)|`` at the two ends (the sup when monotone)."""
        vals: list[fmpq | arb] = []
        for x in box[0]:
            fx, wx, px = _value(code, x), _value(self.w, x), evaluate(p, [x])
            if isinstance(fx, fmpq) and isinstance(wx, fmpq):
                vals.append(abs(wx * (fx - px)))
            else:
                vals.append(abs(arb(wx) * (arb(fx) - arb(px))))
        exact = [v for v in vals if isinstance(v, fmpq)]
        if len(exact) == len(vals):
            return PieceBound(arb(max(exact)), centre, exact=max(exact))
        a, b = (arb(v) if isinstance(v, fmpq) else v for v in vals)
        return PieceBound(a.max(b), centre)


def sign_at(code: Code, w: Code | None, mono: fmpq_poly, x: fmpq,
            bound: fmpq) -> tuple[int | None, bool | None]:
    """(sign of ``f(x) - p(x)``, whether ``|w(x) (f(x) - p(x))| >= bound``); None where
    undecided at 65536 bits."""
    px = mono(x)
    prec = 64
    while prec <= MAX_PREC:
        with working(prec):
            try:
                fx, wx = _value(code, x), (fmpq(1) if w is None else _value(w, x))
            except Indeterminate:
                prec *= 2
                continue
            if isinstance(fx, fmpq) and isinstance(wx, fmpq):
                e = fx - px
                return (1 if e > 0 else -1 if e < 0 else 0), abs(wx * e) >= bound
            eb = arb(fx) - arb(px)
            s = 1 if eb > 0 else -1 if eb < 0 else None
            ae, bb = abs(arb(wx) * eb), arb(bound)
            ge = True if ae >= bb else False if ae < bb else None
            if s is not None and ge is not None:
                return s, ge
        prec *= 2
    return None, None


def _points_ok(pts: list[fmpq], ab: tuple[fmpq, fmpq]) -> str | None:
    a, b = ab
    if not all(a <= x <= b for x in pts):
        return "a point is outside the interval"
    if any(x >= y for x, y in zip(pts, pts[1:])):
        return "the points are not strictly increasing"
    return None


def _point_checks(code: Code, w: Code | None, mono: fmpq_poly, pts: list[fmpq],
                  lower: fmpq, ck: Checks, name: str) -> tuple[list[int] | None, str]:
    """The sign of ``f - name`` at each point with ``|w (f - name)| >= lower`` there, or
    (None, why not)."""
    err = f"f - {name}" if w is None else f"w (f - {name})"
    signs = []
    for x in pts:
        ck.tick()
        try:
            s, ge = sign_at(code, w, mono, x, lower)
        except Undefined:
            return None, f"target or weight undefined at x = {show(x)}"
        if s == 0:
            return None, f"f - {name} vanishes at x = {show(x)}"
        if ge is False:
            return None, f"|{err}| < lower at x = {show(x)}"
        if s is None:
            return None, f"sign undecided at 65536 bits at x = {show(x)}"
        signs.append(s)
    return signs, ""


def check_weighted_alternation(code: Code, w: Code | None, mono: fmpq_poly, pts: list[fmpq],
                               ab: tuple[fmpq, fmpq], lower: fmpq, ck: Checks,
                               name: str = "p") -> tuple[bool | None, str]:
    """Do the signs of ``f - name`` alternate at ``pts`` with ``|w (f - name)| >= lower``
    (``w`` None: 1)?"""
    bad = _points_ok(pts, ab)
    if bad is not None:
        return False, bad
    signs, why = _point_checks(code, w, mono, pts, lower, ck, name)
    if signs is None:
        return (None if why.startswith("sign undecided") else False), why
    if any(s == t for s, t in zip(signs, signs[1:])):
        return False, f"the signs of f - {name} do not alternate"
    err = f"f - {name}" if w is None else f"w (f - {name})"
    return True, f"f - {name} alternates at {len(pts)} points with |{err}| >= {show(lower)}"


def check_annihilator(code: Code, w: Code | None, mono: fmpq_poly, pts: list[fmpq],
                      lam: list[fmpq], free: list[int], ab: tuple[fmpq, fmpq], lower: fmpq,
                      ck: Checks, name: str = "p") -> tuple[bool | None, str]:
    """The annihilating-weights lower bound (module docstring)."""
    bad = _points_ok(pts, ab)
    if bad is not None:
        return False, bad
    if len(lam) != len(pts):
        return False, "one annihilating weight per point is needed"
    if all(v == 0 for v in lam):
        return False, "the annihilating weights are all 0"
    powers = [fmpq(1)] * len(pts)
    k = 0
    for target in free:
        while k < target:
            ck.tick()
            powers = [u * x for u, x in zip(powers, pts)]
            k += 1
        if sum((v * u for v, u in zip(lam, powers)), fmpq(0)) != 0:
            return False, f"the weights do not annihilate x^{target} at the points"
    used = [(x, v) for x, v in zip(pts, lam) if v != 0]
    signs, why = _point_checks(code, w, mono, [x for x, _ in used], lower, ck, name)
    if signs is None:
        return (None if why.startswith("sign undecided") else False), why
    ts = [s if v > 0 else -s for s, (_, v) in zip(signs, used)]
    if any(t != ts[0] for t in ts):
        bad_x = next(x for t, (x, _) in zip(ts, used) if t != ts[0])
        return False, f"lam_i (f - {name})(x_i) changes sign (at x = {show(bad_x)})"
    return True, (f"{len(pts)} points, weights annihilating {len(free)} powers, "
                  f"|w (f - {name})| >= {show(lower)} where lam_i != 0")
