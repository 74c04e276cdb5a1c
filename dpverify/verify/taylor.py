"""Rigorous bounds of ``sup |f - p|`` over one box, by Taylor models with Lagrange remainder.

For a piece with centre ``m`` and half-widths ``r`` and order ``N >= 1``:

    f(m + h) = sum_{|al| < N} f_al(m) h^al + sum_{|al| = N} f_al(xi) h^al   (xi in the piece)

where ``f_al = D^al f / al!``.  The ``f_al(m)`` are enclosed by evaluating ``f`` on jets
(truncated Taylor series) whose constant terms are balls containing ``m``; the remainder
coefficients by the same evaluation with constant terms the whole piece (a ball for each
variable containing ``[a_i, b_i]``).  ``p(m + h)`` is the exact Taylor shift of ``p``.  Then

    sup |f - p| <= sum_al |e_al| r^al,   e = (f-jet) - (exact shift of p)

(every ``|al| > N`` term is ``-p_al``).  One variable uses ``arb_series``; two and three
use :class:`JetAlg` (dicts of arb over monomials of total degree <= N, the elementary
functions composed as ``g(c + h) = sum_j g^(j)(c)/j! h^j`` with the coefficients from
``arb_series``).  Where the series do not exist (not analytic on the piece) the order-0
form is used: the interval enclosure of ``f`` over the piece (no clipping to a domain)
minus the Taylor-form enclosure of ``p``.  ``undefined`` is set only when ``f`` is provably
undefined at a point of the piece.  In one variable the same jets also enclose ``e'`` on
the piece (``f'`` has the Taylor form ``sum_j j f_j(m) h^(j-1)`` with remainder coefficient
``N f_N(xi)``); when that range excludes 0, ``monotone`` is set and :func:`endpoints`
gives the sup of ``|e|`` from the two ends.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from itertools import product

from flint import arb, arb_series, fmpq

from .chebyshev_local import HEAD_LIMIT, ChebyshevLocal, local_of
from .expr import (
    Code,
    Indeterminate,
    Iv,
    IvAlg,
    SerAlg,
    Undefined,
    coeffs,
    constant,
    interval,
    ipow,
    nonzero,
    point,
    run,
    series_call,
)
from .numbers import working
from .poly import Poly, evaluate, shifted
from .report import afford

__all__ = ["LOCAL_MAX_PREC", "space", "Jet", "JetAlg", "PieceBound", "endpoints", "bound_piece"]

#: the largest precision of a local expansion (prec + the bits lost to cancellation)
LOCAL_MAX_PREC = 4 * 65536

#: a truncated multivariate Taylor series: {index of the monomial in ``space``: coefficient}
Jet = dict[int, arb]


@lru_cache(maxsize=32)
def space(d: int, n: int) -> tuple[list[tuple[int, ...]], list[dict[int, int]]]:
    """Monomials of total degree <= n in d variables and their truncated product table."""
    monos = sorted((al for al in product(range(n + 1), repeat=d) if sum(al) <= n),
                   key=lambda al: (sum(al), al))
    index = {al: i for i, al in enumerate(monos)}
    table = [{j: index[tuple(x + y for x, y in zip(al, bl))] for j, bl in enumerate(monos)
              if sum(al) + sum(bl) <= n} for al in monos]
    return monos, table


class JetAlg:
    """Truncated multivariate Taylor series: values are dicts {monomial index: arb}."""

    def __init__(self, d: int, n: int) -> None:
        self.d, self.n = d, n
        self.monos, self.table = space(d, n)

    def var(self, i: int, c: arb) -> Jet:
        if self.n == 0:
            return {0: c}
        return {0: c, self.monos.index(tuple(int(j == i) for j in range(self.d))): arb(1)}

    def num(self, q: fmpq) -> Jet:
        return {0: arb(q)}

    def const(self, name: str) -> Jet:
        return {0: constant(name)}

    def neg(self, a: Jet) -> Jet:
        return {k: -v for k, v in a.items()}

    def add(self, a: Jet, b: Jet, sign: int = 1) -> Jet:
        r = dict(a)
        for k, v in b.items():
            v = v if sign > 0 else -v
            r[k] = r[k] + v if k in r else v
        return r

    def mul(self, a: Jet, b: Jet) -> Jet:
        r: Jet = {}
        for i, x in a.items():
            row = self.table[i]
            for j, y in b.items():
                k = row.get(j)
                if k is not None:
                    t = x * y
                    r[k] = r[k] + t if k in r else t
        return r

    def compose(self, g: list[arb], a: Jet) -> Jet:
        """``sum_j g_j (a - a_0)^j`` (truncated)."""
        h = {k: v for k, v in a.items() if k != 0}
        r = {0: g[self.n]}
        for j in range(self.n - 1, -1, -1):
            r = self.mul(r, h)
            r[0] = r[0] + g[j] if 0 in r else g[j]
        return r

    def series(self, a: Jet) -> arb_series:
        return arb_series([a.get(0, arb(0)), 1], prec=self.n + 1)

    def call(self, name: str, a: Jet) -> Jet:
        return self.compose(coeffs(series_call(name, self.series(a)), self.n + 1), a)

    def binop(self, op: str, a: Jet, b: Jet) -> Jet:
        if op == "+" or op == "-":
            return self.add(a, b, 1 if op == "+" else -1)
        if op == "*":
            return self.mul(a, b)
        nonzero(b.get(0, arb(0)))
        return self.mul(a, self.compose(coeffs(self.series(b) ** -1, self.n + 1), b))

    def powi(self, a: Jet, n: int) -> Jet:
        if n < 0:
            a = self.binop("/", {0: arb(1)}, a)
            n = -n
        result, base = {0: arb(1)}, a
        while n:
            if n & 1:
                result = self.mul(result, base)
            n >>= 1
            if n:
                base = self.mul(base, base)
        return result

    def pow(self, u: Jet, v: Jet, vconst: bool) -> Jet:
        c = u.get(0, arb(0))
        if c > 0:
            return self.call("exp", self.mul(v, self.call("log", u)))
        if c < 0 or (c.is_zero() and (not vconst or v.get(0, arb(0)) <= 0)):
            raise Undefined()
        raise Indeterminate()


@dataclass
class PieceBound:
    bound: arb | None  # sup over the piece of |f - p| <= bound (None: no finite bound)
    centre: arb | None  # encloses f(m) - p(m) at the centre (None: unknown)
    undefined: bool = False  # f is undefined at some point of the piece
    exact: fmpq | None = None  # the exact sup of |f - p| over the piece, when known
    monotone: bool = False  # d = 1 and f - p is monotone on the piece


def endpoints(code: Code, p: Poly, box: list[tuple[fmpq, fmpq]], centre: arb) -> PieceBound:
    """``max(|e(a)|, |e(b)|)``: the sup of ``|e|`` over ``[a, b]`` when ``e`` is monotone."""
    ends: list[fmpq | arb] = []
    for x in box[0]:
        f, px = run(code, IvAlg(), [point(x)]), evaluate(p, [x])
        fx = f.value
        ends.append(abs(f.b - arb(px)) if fx is None else abs(fx - px))
    exact = [e for e in ends if isinstance(e, fmpq)]
    if len(exact) == len(ends):
        return PieceBound(arb(max(exact)), centre, exact=max(exact))
    a, b = (arb(e) if isinstance(e, fmpq) else e for e in ends)
    return PieceBound(a.max(b), centre)


def _jets(code: Code, d: int, n: int, cs: list[arb]) -> dict[tuple[int, ...], arb]:
    """Taylor coefficients (total degree <= n) of f at the balls ``cs``."""
    out: dict[tuple[int, ...], arb]
    if d == 1:
        s = run(code, SerAlg(n + 1), [arb_series([cs[0], 1], prec=n + 1)])
        out = {(j,): c for j, c in enumerate(coeffs(s, n + 1))}
    else:
        alg = JetAlg(d, n)
        jet = run(code, alg, [alg.var(i, c) for i, c in enumerate(cs)])
        out = {alg.monos[k]: c for k, c in jet.items()}
    if not all(c.is_finite() for c in out.values()):
        raise Indeterminate()
    return out


def bound_piece(code: Code, p: Poly, box: list[tuple[fmpq, fmpq]], order: int,
                prec: int, goal: fmpq | None = None) -> PieceBound:
    """A bound of ``sup |f - p|`` on the piece ``box`` (module docstring).  A univariate
    chebyshev-basis ``p`` is expanded locally (:mod:`.chebyshev_local`); ``goal`` (the
    bound wanted, e.g. the claimed upper) tells that expansion whether more of its head
    is worth computing."""
    d = len(box)
    if d == 1 and p.basis == "chebyshev" and p.domains[0] is not None:
        return _bound_local(code, p, box[0], order, prec, goal)
    with working(prec, order + 2):
        m = [(a + b) / 2 for a, b in box]
        radii = [arb((b - a) / 2) for a, b in box]
        balls = [arb(a).union(arb(b)) for a, b in box]
        pc = shifted(p, m)

        def rpow(al: tuple[int, ...]) -> arb:
            out = arb(1)
            for r, e in zip(radii, al):
                out *= ipow(r, e)
            return out

        terms: dict[tuple[int, ...], arb] | None = None
        if order >= 1:
            try:
                fc = _jets(code, d, order - 1, [arb(x) for x in m])
                fx = _jets(code, d, order, balls)
                terms = {al: c for al, c in fc.items() if sum(al) < order}
                terms.update((al, c) for al, c in fx.items() if sum(al) == order)
            except Undefined:
                return PieceBound(None, None, True)
            except Indeterminate:
                terms = None
        if terms is not None:
            for al, q in pc:
                terms[al] = terms[al] - arb(q) if al in terms else -arb(q)
            total = sum((t.abs_upper() * rpow(al) for al, t in terms.items()), arb(0))
            centre = terms.get((0,) * d, arb(0))
            slope = arb(0)
            if d == 1:  # the range of e' on the piece, from the same jets
                rr = arb(0, (box[0][1] - box[0][0]) / 2)
                slope = sum((j * t * ipow(rr, j - 1) for (j,), t in terms.items() if j), arb(0))
            return PieceBound(total, centre, monotone=bool(slope > 0 or slope < 0))
        p0 = next((q for al, q in pc if not any(al)), fmpq(0))
        rest = sum((abs(arb(q)) * rpow(al) for al, q in pc if any(al)), arb(0))
        centre_at: arb | None
        try:
            centre_at = run(code, IvAlg(), [point(x) for x in m]).b - arb(p0)
        except Undefined:
            return PieceBound(None, None, True)
        except Indeterminate:
            centre_at = None
        try:
            f = run(code, IvAlg(), [interval(a, b) for a, b in box])
        except Undefined:
            return PieceBound(None, centre_at, True)
        except Indeterminate:
            return PieceBound(None, centre_at)
        rng = f.range
        if rng is not None:  # f - p lies in [lo - p0 - rest, hi - p0 + rest] exactly
            return PieceBound(arb(max(abs(rng[0] - p0), abs(rng[1] - p0))) + rest, centre_at)
        return PieceBound((f.b - arb(p0)).abs_upper() + rest, centre_at)


def _local_precision(loc: ChebyshevLocal, s0: fmpq, s1: fmpq, prec: int,
                     goal: fmpq | None) -> int:
    """``prec`` plus the bits lost to cancellation in the monomial form near ``s0``
    (relative to ``goal``), a multiple of 64 (few distinct precisions: cached derivatives)."""
    scale = goal if goal is not None and goal > 0 else fmpq(1)
    extra = loc.cancellation_bits(abs(s0) + s1, scale) + loc.degree.bit_length() + 8
    return min(-(-(prec + extra) // 64) * 64, LOCAL_MAX_PREC)


def _bound_local(code: Code, p: Poly, ab: tuple[fmpq, fmpq], order: int, prec: int,
                 goal: fmpq | None) -> PieceBound:
    """:func:`bound_piece` in one variable for a chebyshev-basis ``p``, in the units of
    ``t`` (``x = m + r t``, ``|t| <= 1``): ``e_j = F_j r^j - q_j`` with ``F_j`` the Taylor
    coefficients of ``f`` at ``m`` (``j < K``) and the Lagrange coefficient over the piece
    (``j = K``), ``e_j = -q_j`` above, and the tail of the local expansion of ``p``
    added as it is (``sum |q_j|``) and, for the monotonicity test, as a ball
    ``+-sum j |q_j|`` around ``e'``.  Order 0 (no Taylor series of ``f`` on the piece):
    ``|f(I) - q_0| + sum_{j>=1} |q_j|`` by interval evaluation.  The head is doubled
    while only the tail keeps the bound above ``goal``."""
    lo, hi = ab
    loc = local_of(p)
    N = loc.degree
    m, r = (lo + hi) / 2, (hi - lo) / 2
    s0, s1 = loc.u_of(m), 2 * r / (loc.b - loc.a)
    pe = _local_precision(loc, s0, s1, prec, goal)
    with working(prec, order + 2):
        scaled: list[arb] | None = None
        if order >= 1:
            try:
                fc = _jets(code, 1, order - 1, [arb(m)])
                fx = _jets(code, 1, order, [arb(lo).union(arb(hi))])
                rr = arb(r)
                scaled = [fc[(j,)] * ipow(rr, j) for j in range(order)]
                scaled.append(fx[(order,)] * ipow(rr, order))
            except Undefined:
                return PieceBound(None, None, True)
            except Indeterminate:
                scaled = None
        f_range: Iv | None = None
        f_centre: Iv | None = None
        if scaled is None:
            try:
                f_centre = run(code, IvAlg(), [point(m)])
            except Undefined:
                return PieceBound(None, None, True)
            except Indeterminate:
                f_centre = None
            try:
                f_range = run(code, IvAlg(), [interval(lo, hi)])
            except Undefined:
                return PieceBound(None, None, True)
            except Indeterminate:
                f_range = None
        J = max(order + 2, 4)
        while True:
            afford(f"local expansions of degree {N} at {pe} bits",
                   N * pe * min(J, N + 1))
            lt = loc.taylor(m, r, J, pe)
            q = lt.head
            tail = lt.tail
            if scaled is not None:
                K = len(scaled) - 1
                e = [scaled[j] - q[j] if j < len(q) else scaled[j] for j in range(K + 1)]
                e += [-v for v in q[K + 1:]]
                head = sum((v.abs_upper() for v in e), arb(0))
                total: arb | None = head + tail
                centre: arb | None = e[0]
                unit = arb(0, 1)
                slope_head = e[1] + sum((j * e[j] * unit for j in range(2, len(e))), arb(0))
                slope = slope_head + arb(0, 1) * lt.slope_tail
                monotone = bool(slope > 0 or slope < 0)
                tail_matters = bool((slope_head > 0 or slope_head < 0) and not monotone)
            else:
                rest = sum((v.abs_upper() for v in q[1:]), arb(0))
                head, monotone, tail_matters = rest, False, False
                centre = None if f_centre is None else f_centre.b - q[0]
                total = None
                if f_range is not None:
                    rng = f_range.range
                    if rng is not None:
                        total = (arb(rng[0]) - q[0]).abs_upper().max(
                            (arb(rng[1]) - q[0]).abs_upper()) + rest + tail
                    else:
                        total = (f_range.b - q[0]).abs_upper() + rest + tail
                    head = total - tail
            if goal is None or (total is not None and total <= arb(goal)) or monotone:
                break
            tail_matters = tail_matters or bool(tail > 0 and head <= arb(goal))
            if not tail_matters or len(q) > N:
                break
            J = 2 * J if 2 * J <= min(N, HEAD_LIMIT) else N + 1
    if not (total is None or total.is_finite()):
        total = None
    return PieceBound(total, centre, monotone=monotone and total is not None)
