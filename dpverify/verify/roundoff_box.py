"""The checker's bound of a straight-line program's round-off on one box (kind
``roundoff``, docs/certificates.md): values and gradients on dual numbers in ball
arithmetic narrowed by mean-value forms and exact rational ranges, forward bounds of the
accumulated errors and of their part of order two, the rounding of each operation by
half an ulp of its binade (0 when exact by the FIX argument, a zero operand or a
power-of-two literal), and the first-order coefficients from a reverse sweep on dual
numbers (seeded with ``1/P`` for relative errors); the literals' known errors summed with
their signs.  Its own implementation: it shares no code with the certifier.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import product

from flint import arb, ctx, fmpq

from .fpmodel import ZERO, Fmt, clog2, fix, flog2, pow2, pow2_abs
from .program import Code, Instr

__all__ = ["PREC", "Model", "BoxBound", "Open", "box_bound", "q_hi", "q_lo"]

PREC = 96


@dataclass
class Model:
    """What a statement says about the float code: the program, the format, whether the
    inputs are rounded reals, each function's accuracy (None: correctly rounded) and the
    error kind."""

    code: Code
    fmt: Fmt
    rounded: bool
    funcs: dict[str, fmpq | None]
    error: str
    hats: dict[int, fmpq]


def q_hi(x: arb) -> fmpq:
    """The exact upper end of the finite ball ``x``."""
    m, e = x.mid().man_exp()
    r, f = x.rad().man_exp()
    return fmpq(int(m)) * pow2(int(e)) + fmpq(int(r)) * pow2(int(f))


def q_lo(x: arb) -> fmpq:
    m, e = x.mid().man_exp()
    r, f = x.rad().man_exp()
    return fmpq(int(m)) * pow2(int(e)) - fmpq(int(r)) * pow2(int(f))


def _mag(x: arb) -> fmpq:
    """An upper bound of ``|t|`` over the ball (refused when not finite)."""
    if not x.is_finite():
        raise Open("a value has no finite enclosure")
    return max(q_hi(x), -q_lo(x))


def _mig(x: arb) -> fmpq:
    """A lower bound of ``|t|`` over the ball (0 when it may vanish)."""
    if not x.is_finite():
        return fmpq(0)
    lo, hi = q_lo(x), q_hi(x)
    return lo if lo > 0 else -hi if hi < 0 else fmpq(0)


class Open(Exception):
    """No finite bound on this box."""


class _D:
    """A value ball and its gradient balls over the box."""

    __slots__ = ("v", "g")

    def __init__(self, v: arb, g: list[arb]) -> None:
        self.v, self.g = v, g

    def add(self, o: _D, sign: int = 1) -> _D:
        return _D(self.v + sign * o.v, [a + sign * b for a, b in zip(self.g, o.g)])

    def mul(self, o: _D) -> _D:
        return _D(self.v * o.v, [self.v * b + o.v * a for a, b in zip(self.g, o.g)])

    def sq(self) -> _D:
        lo, hi = self.v.lower(), self.v.upper()
        s = (lo * lo).union(hi * hi)
        if self.v.contains(0):
            s = s.union(arb(0))
        return _D(s, [2 * self.v * a for a in self.g])

    def div(self, o: _D) -> _D:
        z = self.v / o.v
        return _D(z, [(a - z * b) / o.v for a, b in zip(self.g, o.g)])

    def times(self, c: arb) -> _D:
        return _D(self.v * c, [a * c for a in self.g])

    def then(self, value: arb, slope: arb) -> _D:
        return _D(value, [slope * a for a in self.g])


def _fn(name: str, x: arb) -> tuple[arb, arb, arb]:
    """(f, f', f'') of a called function on a ball."""
    one = arb(1)
    table = {
        "exp": lambda: (x.exp(), x.exp(), x.exp()),
        "expm1": lambda: (x.expm1(), x.exp(), x.exp()),
        "log": lambda: (x.log(), one / x, -one / (x * x)),
        "log1p": lambda: (x.log1p(), one / (one + x), -one / ((one + x) * (one + x))),
        "sin": lambda: (x.sin(), x.cos(), -x.sin()),
        "cos": lambda: (x.cos(), -x.sin(), -x.cos()),
        "tan": lambda: (x.tan(), one + x.tan() * x.tan(),
                        2 * x.tan() * (one + x.tan() * x.tan())),
        "atan": lambda: (x.atan(), one / (one + x * x), -2 * x / ((one + x * x) ** 2)),
        "asin": lambda: (x.asin(), one / (one - x * x).sqrt(),
                         x / ((one - x * x) * (one - x * x).sqrt())),
        "acos": lambda: (x.acos(), -one / (one - x * x).sqrt(),
                         -x / ((one - x * x) * (one - x * x).sqrt())),
        "sinh": lambda: (x.sinh(), x.cosh(), x.sinh()),
        "cosh": lambda: (x.cosh(), x.sinh(), x.cosh()),
        "tanh": lambda: (x.tanh(), one - x.tanh() * x.tanh(),
                         -2 * x.tanh() * (one - x.tanh() * x.tanh())),
    }
    return table[name]()


def _meanvalue(centre: arb, dv: _D, rad: list[arb]) -> arb:
    """``dv.v`` narrowed by ``centre + grad . [-r, r]``."""
    if not dv.g:
        return dv.v
    mv = centre
    for g, r in zip(dv.g, rad):
        mv += g * r
    if not mv.is_finite():
        return dv.v
    if not dv.v.is_finite():
        return mv
    try:
        return dv.v.intersection(mv)
    except ValueError:
        return dv.v


@dataclass
class BoxBound:
    absolute: fmpq
    bound: fmpq
    lower: fmpq | None


Approx = object  # a callable box -> an upper bound of sup |f - P| on it, or None


def box_bound(m: Model, box: list[tuple[fmpq, fmpq]], approx: object = None) -> BoxBound:
    """The bound of one box (module docstring), in the statement's unit; raises Open."""
    with ctx.workprec(PREC):
        return _box(m, box, approx)


def _rnd(fmt: Fmt, mag: fmpq, fv: int | None, low: int | None, exact: bool,
         ulps: fmpq | None) -> tuple[fmpq, int]:
    if mag == 0:
        return fmpq(0), ZERO
    e = clog2(mag)
    if e > fmt.emax:
        raise Open(f"possible overflow (2^{e})")
    if ulps is not None:
        top = e if mag == pow2(e) else e - 1
        return ulps * pow2(max(top, fmt.emin) - fmt.p + 1), fmt.after(fmt.lowest, low)
    f = fmt.lowest if fv is None else fv
    if exact or (fv is not None and fmt.exact(f, e)):
        return fmpq(0), fmt.after(f, low)
    return fmt.half_ulp(e), fmt.after(f, low)


def _box(m: Model, box: list[tuple[fmpq, fmpq]], approx: object) -> BoxBound:
    code, fmt = m.code, m.fmt
    ins = code.instrs
    d = len(code.variables)
    cen = [(a + b) / 2 for a, b in box]
    rad = [arb(0, (b - a) / 2) for a, b in box]
    n = len(ins)
    live = [False] * n
    live[code.out] = True
    for k in range(code.out, -1, -1):
        if live[k]:
            for j in ins[k].args:
                live[j] = True
    pt: list[arb] = [arb(0)] * n
    bx: list[_D] = [_D(arb(0), [])] * n
    val: list[arb] = [arb(0)] * n
    err: list[arb] = [arb(0)] * n
    res: list[arb] = [arb(0)] * n
    hh: dict[int, fmpq] = {}
    fx: list[int] = [ZERO] * n
    ex: list[tuple[fmpq, fmpq] | None] = [None] * n
    cv: list[tuple[fmpq, fmpq] | None] = [None] * n  # ranges of the computed floats
    zg = [arb(0)] * d
    for k, it in enumerate(ins):
        if live[k]:
            iv = _exact_iv(m, it, box, ex)
            if iv is not None and any(int(q.p).bit_length() > 256 or
                                      int(q.q).bit_length() > 256 for q in iv):
                iv = None  # (the certifier drops them too: they grow with the depth)
            ex[k] = iv
            w = _computed_iv(m, k, it, box, cv)
            _step(m, k, it, box, cen, rad, pt, bx, val, err, res, hh, fx, zg, ex[k], w, cv)
            # rounding is monotone: the float lies between the roundings of w's ends
            if w is None or it.op == "call" or (it.op not in ("var", "const", "neg", "abs")
                                                 and hh.get(k) is None):
                cv[k] = None
            elif it.op in ("var", "const", "neg", "abs"):
                cv[k] = w
            else:
                a, b = m.fmt.nearest(w[0]), m.fmt.nearest(w[1])
                cv[k] = None if a is None or b is None else (a, b)
                if a is not None and a != b:
                    pair = _pairs(m, it, box, cv)
                    if pair is not None:
                        cv[k] = pair[1]
    out = code.out
    eo = ex[out]
    if eo is not None:  # the exact range may exclude 0 where the balls do not
        ball = arb(eo[0]).union(arb(eo[1]))
        try:
            val[out] = val[out].intersection(ball)
            bx[out] = _D(bx[out].v.intersection(ball), bx[out].g)
        except ValueError:
            val[out] = bx[out].v = ball
    second = _mag(res[out])
    rel_first: fmpq | None = None
    if m.error == "absolute" or approx is not None:
        first = _first(m, hh, pt, bx, val, rad, zg)
    else:
        if not (val[out] > 0 or val[out] < 0):
            raise Open("the exact value may vanish")
        rel_first = _first(m, hh, pt, bx, val, rad, zg,
                           (1 / pt[out], _D(arb(1), list(zg)).div(bx[out])))
        first = rel_first
        if m.error == "ulps":
            first = _first(m, hh, pt, bx, val, rad, zg)
    ap = fmpq(0)
    if approx is not None:
        got = approx(tuple(box))  # type: ignore[operator]
        if got is None:
            raise Open("sup |f - p| not bounded")
        ap = got
    if m.error == "absolute":
        absolute = first + second + ap
        return BoxBound(absolute, absolute, None)
    rng = ex[out]
    exact_low = fmpq(0) if rng is None or rng[0] <= 0 <= rng[1] else \
        min(abs(rng[0]), abs(rng[1]))
    lower = max(_mig(val[out]), exact_low) - ap  # |f| >= |p| - |f - p|
    if lower <= 0:
        raise Open("the exact value may vanish")
    if rel_first is None:
        absolute = first + second + ap
        unit = lower if m.error == "relative" else fmt.ulp(lower)
        return BoxBound(absolute, absolute / unit, lower)
    rel = rel_first + second / lower
    if m.error == "relative":
        return BoxBound(rel, rel, lower)
    absolute = first + second
    return BoxBound(absolute, min(absolute / fmt.ulp(lower), rel * 2**fmt.p), lower)


def _step(m: Model, k: int, it: Instr, box: list[tuple[fmpq, fmpq]], cen: list[fmpq],
          rad: list[arb], pt: list[arb], bx: list[_D], val: list[arb], err: list[arb],
          res: list[arb], hh: dict[int, fmpq], fx: list[int], zg: list[arb],
          rng: tuple[fmpq, fmpq] | None, wr: tuple[fmpq, fmpq] | None,
          cv: list[tuple[fmpq, fmpq] | None] | None = None) -> None:
    fmt = m.fmt
    d = len(cen)
    if it.op == "var":
        i = m.code.variables.index(it.name)
        lo, hi = box[i]
        ball = arb(lo).union(arb(hi))
        pt[k], val[k] = arb(cen[i]), ball
        bx[k] = _D(ball, [arb(1) if j == i else arb(0) for j in range(d)])
        if m.rounded:
            rl, rh = fmt.nearest(lo), fmt.nearest(hi)
            if rl is None or rh is None:
                raise Open("an input overflows")
            fx[k] = fmt.fix_range(rl, rh)
            h = fmpq(0) if lo == hi and fmt.is_member(lo) else \
                _rnd(fmt, max(abs(lo), abs(hi)), None, None, False, None)[0]
            hh[k] = h
            err[k] = arb(h)
        else:
            fl, fh = fmt.ceil(lo), fmt.floor(hi)
            fx[k] = fmt.fix_range(fl, fh) if fl <= fh else fmt.lowest
        return
    if it.op == "const":
        assert it.value is not None
        c = arb(it.value)
        pt[k], val[k], bx[k] = c, c, _D(c, list(zg))
        hh[k] = abs(m.hats[k] - it.value)
        err[k] = arb(hh[k])
        fx[k] = fix(m.hats[k])
        return
    a = it.args
    op = it.op
    if op == "neg":
        j = a[0]
        pt[k], bx[k], val[k] = -pt[j], bx[j].times(arb(-1)), -val[j]
        err[k], res[k], fx[k] = err[j], res[j], fx[j]
        return
    if op == "abs":
        j = a[0]
        pos, neg = bool(val[j] > 0), bool(val[j] < 0)
        pt[k], val[k] = abs(pt[j]), abs(val[j])
        bx[k] = bx[j].then(abs(bx[j].v), arb(1) if pos else arb(-1) if neg else arb(0, 1))
        err[k], fx[k] = err[j], fx[j]
        res[k] = res[j] if pos or neg else err[j]
        return
    ea = [err[j] for j in a]
    ra = [res[j] for j in a]
    fv: int | None = None
    scaled = False
    ulps: fmpq | None = None
    if op in ("add", "sub"):
        s = 1 if op == "add" else -1
        pt[k] = pt[a[0]] + s * pt[a[1]]
        bx[k] = bx[a[0]].add(bx[a[1]], s)
        e_in, res[k] = ea[0] + ea[1], ra[0] + ra[1]
        fv = min(fx[a[0]], fx[a[1]])
    elif op in ("mul", "fma"):
        x, y = a[0], a[1]
        pt[k] = pt[x] * pt[y]
        bx[k] = bx[x].sq() if x == y else bx[x].mul(bx[y])
        A, B = abs(val[x]), abs(val[y])
        e_in = A * ea[1] + B * ea[0] + ea[0] * ea[1]
        res[k] = A * ra[1] + B * ra[0] + ea[0] * ea[1]
        fv = ZERO if ZERO in (fx[x], fx[y]) else fx[x] + fx[y]
        if op == "fma":
            pt[k] = pt[k] + pt[a[2]]
            bx[k] = bx[k].add(bx[a[2]])
            e_in, res[k] = e_in + ea[2], res[k] + ra[2]
            fv = min(fv, fx[a[2]])
        else:
            scaled = any(_pow2_literal(m, j) for j in a)
    elif op == "div":
        x, y = a
        yhat = val[y] + arb(0, _mag(ea[1]))
        if not (val[y] > 0 or val[y] < 0) or not (yhat > 0 or yhat < 0):
            raise Open("a divisor may vanish")
        pt[k] = pt[x] / pt[y]
        bx[k] = bx[x].div(bx[y])
        Z = abs(bx[k].v)
        lb, lbh = arb(_mig(val[y])), arb(_mig(yhat))
        e_in = (ea[0] + Z * ea[1]) / lbh
        res[k] = (ra[0] + Z * ra[1]) / lb + (ea[0] + Z * ea[1]) * ea[1] / (lb * lbh)
        if _pow2_literal(m, y) and fx[x] != ZERO:
            fv, scaled = fx[x] - flog2(abs(m.hats[y])), True
    elif op == "sqrt":
        x = a[0]
        xh = val[x] + arb(0, _mag(ea[0]))
        if not (val[x].is_finite() and xh.is_finite()) or q_lo(val[x]) < 0 or \
                q_lo(xh) < 0:
            raise Open("sqrt of a value that may be negative")
        pt[k] = pt[x].sqrt()
        root = bx[x].v.sqrt()
        bx[k] = bx[x].then(root, 1 / (2 * root))
        if _mag(ea[0]) == 0 and _mag(ra[0]) == 0:
            e_in, res[k] = arb(0), arb(0)
        else:
            lo_x, lo_h = q_lo(val[x]), q_lo(xh)
            if lo_x == 0:
                raise Open("sqrt near 0 of an inexact value")
            sa, sh = arb(lo_x).sqrt(), arb(lo_h).sqrt()
            e_in = ea[0] / (sa + sh)
            res[k] = ra[0] / (2 * sa) + ea[0] * ea[0] / (2 * sa * (sa + sh) * (sa + sh))
    else:  # call
        x = a[0]
        pt[k] = _fn(it.name, pt[x])[0]
        f0, f1, _ = _fn(it.name, bx[x].v)
        bx[k] = bx[x].then(f0, f1)
        _, h1, h2 = _fn(it.name, val[x] + arb(0, _mag(ea[0])))
        if not (h1.is_finite() and h2.is_finite() and f1.is_finite()):
            raise Open(f"{it.name}: no finite derivative enclosure")
        e_in = abs(h1) * ea[0]
        res[k] = abs(f1) * ra[0] + abs(h2) * ea[0] * ea[0] / 2
        ulps = m.funcs[it.name]
    val[k] = _meanvalue(pt[k], bx[k], rad)
    if not val[k].is_finite():
        raise Open("a value has no finite enclosure")
    mag = _mag(abs(val[k]) + e_in)
    if rng is not None:
        mag = min(mag, max(-rng[0], rng[1]) + _mag(e_in))
    lo_v, up_e = _mig(val[k]), _mag(e_in)
    low = flog2(lo_v - up_e) if lo_v > up_e else None
    if wr is not None:
        mag = min(mag, max(-wr[0], wr[1]))
        if wr[0] > 0 or wr[1] < 0:
            wl = flog2(min(abs(wr[0]), abs(wr[1])))
            low = wl if low is None else max(low, wl)
    exact = scaled and fv is not None and fv >= fmt.lowest
    zeros = [j for j in a if m.code.instrs[j].op == "const" and m.hats[j] == 0]
    if zeros and (op in ("add", "sub", "mul") or (op == "fma" and a[2] not in zeros)):
        exact = True
    h, fx[k] = _rnd(fmt, mag, fv, low, exact, ulps)
    if wr is not None and ulps is None:
        one = fmt.nearest(wr[0])
        if one is not None and one == fmt.nearest(wr[1]):
            h = min(h, max(one - wr[0], wr[1] - one))  # all of w rounds to one float
        elif cv is not None:
            pair = _pairs(m, it, box, cv)
            if pair is not None:
                h = min(h, pair[0])
    hh[k] = h
    err[k] = e_in + arb(h)


def _exact_iv(m: Model, it: Instr, box: list[tuple[fmpq, fmpq]],
              ex: list[tuple[fmpq, fmpq] | None]) -> tuple[fmpq, fmpq] | None:
    """The exact value's range by rational interval arithmetic (None where not cheap)."""
    if it.op == "var":
        return box[m.code.variables.index(it.name)]
    if it.op == "const":
        assert it.value is not None
        return it.value, it.value
    ivs = [ex[j] for j in it.args]
    if it.op in ("sqrt", "call") or any(v is None for v in ivs):
        return None
    a = [v for v in ivs if v is not None]
    if it.op == "neg":
        return -a[0][1], -a[0][0]
    if it.op == "abs":
        lo, hi = a[0]
        return (fmpq(0) if lo <= 0 <= hi else min(abs(lo), abs(hi))), max(abs(lo), abs(hi))
    if it.op == "add":
        return a[0][0] + a[1][0], a[0][1] + a[1][1]
    if it.op == "sub":
        return a[0][0] - a[1][1], a[0][1] - a[1][0]
    if it.op == "div":
        if a[1][0] <= 0 <= a[1][1]:
            return None
        qs = [u / v for u in a[0] for v in a[1]]
        return min(qs), max(qs)
    if it.args[0] == it.args[1]:
        lo, hi = a[0]
        sq = (fmpq(0) if lo <= 0 <= hi else min(lo * lo, hi * hi), max(lo * lo, hi * hi))
    else:
        ps = [u * v for u in a[0] for v in a[1]]
        sq = (min(ps), max(ps))
    if it.op == "fma":
        return sq[0] + a[2][0], sq[1] + a[2][1]
    return sq


def _computed_iv(m: Model, k: int, it: Instr, box: list[tuple[fmpq, fmpq]],
                 cv: list[tuple[fmpq, fmpq] | None]) -> tuple[fmpq, fmpq] | None:
    """The range of the computed value of an input, literal, ``-`` or ``fabs``; of the exact
    result on the computed operands of any other operation (None where unknown)."""
    fmt = m.fmt
    if it.op == "var":
        lo, hi = box[m.code.variables.index(it.name)]
        if m.rounded:
            a, b = fmt.nearest(lo), fmt.nearest(hi)
            return None if a is None or b is None else (a, b)
        a, b = fmt.ceil(lo), fmt.floor(hi)
        return (a, b) if a <= b else None
    if it.op == "const":
        return m.hats[k], m.hats[k]
    iv = _exact_iv(m, it, box, cv)
    if iv is not None and any(int(q.p).bit_length() > 256 or int(q.q).bit_length() > 256
                              for q in iv):
        return None
    return iv


def _pairs(m: Model, it: Instr, box: list[tuple[fmpq, fmpq]],
           cv: list[tuple[fmpq, fmpq] | None]) -> tuple[fmpq, tuple[fmpq, fmpq]] | None:
    """Operands computed as one of two adjacent floats: each choice's exact result must
    round to one float; then (largest distance, range of those floats)."""
    if it.op not in ("add", "sub", "mul", "div", "fma"):
        return None
    fmt = m.fmt
    opts: list[list[tuple[fmpq, fmpq] | None]] = []
    for j in it.args:
        c = cv[j]
        if c is not None and c[0] != c[1] and fmt.succ(c[0]) == c[1]:
            opts.append([(c[0], c[0]), (c[1], c[1])])
        else:
            opts.append([c])
    if all(len(o) == 1 for o in opts):
        return None
    worst, got = fmpq(0), []
    for pick in product(*opts):
        tmp = list(cv)
        for j, r in zip(it.args, pick):
            tmp[j] = r
        w = _exact_iv(m, it, box, tmp)
        if w is None or any(int(q.p).bit_length() > 256 or int(q.q).bit_length() > 256
                            for q in w):
            return None
        f = fmt.nearest(w[0])
        if f is None or f != fmt.nearest(w[1]):
            return None
        worst = max(worst, f - w[0], w[1] - f)
        got.append(f)
    return worst, (min(got), max(got))


def _pow2_literal(m: Model, j: int) -> bool:
    return m.code.instrs[j].op == "const" and pow2_abs(m.hats[j])


def _partials(m: Model, k: int, pt: list[arb], bx: list[_D], val: list[arb],
              zg: list[arb]) -> list[tuple[arb, _D]]:
    it = m.code.instrs[k]
    a = it.args

    def c(v: int) -> tuple[arb, _D]:
        return arb(v), _D(arb(v), list(zg))

    if it.op == "neg":
        return [c(-1)]
    if it.op == "abs":
        v = val[a[0]]
        return [c(1 if v > 0 else -1 if v < 0 else 0)]
    if it.op in ("add", "sub"):
        return [c(1), c(1 if it.op == "add" else -1)]
    if it.op in ("mul", "fma"):
        out = [(pt[a[1]], bx[a[1]]), (pt[a[0]], bx[a[0]])]
        return out + [c(1)] if it.op == "fma" else out
    if it.op == "div":
        one = _D(arb(1), list(zg))
        return [(1 / pt[a[1]], one.div(bx[a[1]])),
                (-pt[k] / pt[a[1]], bx[k].div(bx[a[1]]).times(arb(-1)))]
    if it.op == "sqrt":
        one = _D(arb(1), list(zg))
        return [(1 / (2 * pt[k]), one.div(bx[k].times(arb(2))))]
    x = a[0]
    _, g1p, _ = _fn(it.name, pt[x])
    _, g1, g2 = _fn(it.name, bx[x].v)
    return [(g1p, bx[x].then(g1, g2))]


def _first(m: Model, hh: dict[int, fmpq], pt: list[arb], bx: list[_D], val: list[arb],
           rad: list[arb], zg: list[arb], seed: tuple[arb, _D] | None = None) -> fmpq:
    """``|sum_literals a_c (c^ - c)| + sum_others sup|a_k| H_k`` over the box (with
    ``seed = (1/P(m), 1/P)``: the same for ``a_k / P``)."""
    ins = m.code.instrs
    n = len(ins)
    ap: list[arb | None] = [None] * n
    ab: list[_D | None] = [None] * n
    ap[m.code.out], ab[m.code.out] = (arb(1), _D(arb(1), list(zg))) if seed is None else seed
    for k in range(m.code.out, -1, -1):
        pk, bk = ap[k], ab[k]
        if pk is None or bk is None or not ins[k].args:
            continue
        for j, (pp, pb) in zip(ins[k].args, _partials(m, k, pt, bx, val, zg)):
            q, b = pk * pp, bk.mul(pb)
            old_p, old_b = ap[j], ab[j]
            ap[j] = q if old_p is None else old_p + q
            ab[j] = b if old_b is None else old_b.add(b)
    lit_p, lit_b = arb(0), _D(arb(0), list(zg))
    total = arb(0)
    for k, h in hh.items():
        pk, bk = ap[k], ab[k]
        if h == 0 or pk is None or bk is None:
            continue
        value = ins[k].value
        if ins[k].op == "const" and value is not None:
            dc = arb(m.hats[k] - value)
            lit_p, lit_b = lit_p + pk * dc, lit_b.add(bk.times(dc))
            continue
        coef = _meanvalue(pk, bk, rad)
        if not coef.is_finite():
            raise Open("an error coefficient is not bounded")
        total += abs(coef) * arb(h)
    lit = _meanvalue(lit_p, lit_b, rad)
    if not lit.is_finite():
        raise Open("an error coefficient is not bounded")
    return _mag(total + abs(lit))
