"""Rigorous ball evaluation of :mod:`dpverify.expr` trees: ``arb`` (interval
enclosures) and ``arb_series`` (Taylor series; :class:`.tree.NotAnalytic` at
non-analytic points), with the tight monotone enclosures of powers, roots, ``erfc`` and
``min``/``max``.  :class:`RingEval` is the arithmetic shared with :mod:`.complex_eval`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from flint import arb, arb_series, fmpz

from .special import hypot_ball, special_ball, special_order_ball
from .tree import SPECIAL_FUNCTIONS, Node, NotAnalytic, Undefined, is_int, is_nonneg

__all__ = ["ArbEval", "RingEval", "arb_pow_point", "series_prec"]


# --------------------------------------------------------------------------- arb evaluation


def _c0(v: Any) -> arb:
    """Constant term of an arb_series (the value itself for an arb)."""
    if isinstance(v, arb_series):
        cs = v.coeffs()
        return cs[0] if cs else arb(0)
    return v


def _zero_to(hi: arb) -> arb:
    """A ball [0, h] with h >= the upper bound of ``hi`` and lower bound exactly 0.

    A union with 0 would leave a tiny negative lower bound (arb radii carry 30
    bits); here h is rounded up to 26 bits so that midpoint = radius = h/2 exactly.
    """
    if not hi.is_finite():
        return arb.nan()
    top = hi.upper()
    if not top > 0:
        return arb(0)
    mf, ef = top.man_exp()
    m, e = int(mf), int(ef)
    extra = m.bit_length() - 26
    if extra > 0:
        m = -((-m) >> extra)  # round the mantissa up
        e += extra
    return arb((fmpz(m), e - 1), (fmpz(m), e - 1))


def arb_pow_point(p: Any, n: int, one: Any = None) -> Any:
    """p**n for n >= 0 by binary exponentiation (p an exact point or any ball; any ring
    element with ``*`` when ``one`` is given, e.g. a Taylor jet)."""
    result = arb(1) if one is None else one
    base = p
    while n:
        if n & 1:
            result = result * base
        n >>= 1
        if n:
            base = base * base
    return result


def _arb_ipow(v: arb, n: int) -> arb:
    """Tight rigorous enclosure of {t**n : t in v} for an integer n."""
    if n == 0:
        return arb(1) if v.is_finite() else arb.nan()  # undefined ** 0 stays undefined
    if n < 0:
        return arb(1) / _arb_ipow(v, -n)  # non-finite if v contains 0
    if not v.is_finite():
        return v if n == 1 else arb.nan()
    if n % 2 == 0:
        lo, hi = v.abs_lower(), v.abs_upper()
        if lo.is_zero():
            return _zero_to(arb_pow_point(hi, n))
    else:
        lo, hi = v.lower(), v.upper()
    # lo, hi are exact arbs; t -> t**n is monotone on [lo, hi]
    return arb_pow_point(lo, n).union(arb_pow_point(hi, n))


def series_prec(args: Sequence[Any]) -> int | None:
    precs = [a.prec for a in args if isinstance(a, arb_series)]
    return min(precs) if precs else None


class RingEval:
    """The arithmetic shared by the ball (arb, arb_series) and complex-box (acb)
    evaluators: leaves, sums, products and negation; ``lift`` makes a number of the
    evaluator's kind, ``div`` divides (raising where the quotient is not defined), and
    each subclass evaluates powers and function calls."""

    env: dict[str, Any]

    def lift(self, x: arb) -> Any:
        return x

    def div(self, a: Any, b: Any) -> Any:
        raise NotImplementedError

    def power(self, node: Node) -> Any:
        raise NotImplementedError

    def apply(self, node: Node) -> Any:
        raise NotImplementedError

    def ev(self, node: Node) -> Any:
        k = node.kind
        if k == "num":
            return self.lift(arb(node.args[0]))
        if k == "const":
            return self.lift(arb.pi() if node.args[0] == "pi" else arb.const_e())
        if k == "var":
            return self.env[node.args[0]]
        if k == "sum":
            acc = None
            for s, t in node.args:
                v = self.ev(t)
                if acc is None:
                    acc = v if s > 0 else -v
                else:
                    acc = acc + v if s > 0 else acc - v
            return acc
        if k == "prod":
            acc = None
            for p, f in node.args:
                v = self.ev(f)
                if p > 0:
                    acc = v if acc is None else acc * v
                else:
                    acc = self.div(self.lift(arb(1)) if acc is None else acc, v)
            return acc
        if k == "neg":
            return -self.ev(node.args[0])
        if k == "pow":
            return self.power(node)
        return self.apply(node)


class ArbEval(RingEval):
    def __init__(self, env: dict[str, Any], clip: bool = False):
        self.clip = clip
        self.env = env

    def div(self, a: Any, b: Any) -> Any:
        return _div(a, b)

    def apply(self, node: Node) -> Any:
        if node.kind == "minmax":
            return _minmax(node.args[0], [self.ev(a) for a in node.args[1]])
        if node.kind == "callp":
            fname, order, arg = node.args
            return special_order_ball(fname, order, self.ev(arg))
        if node.kind == "call2":
            a, b = node.args[1]
            return hypot_ball(self.ev(a), self.ev(b))
        return self.call(node.args[0], node.args[1])

    def power(self, node: Node) -> Any:
        base_node, ex_node = node.args
        b = self.ev(base_node)
        if ex_node.kind == "num" and is_int(ex_node.args[0]):
            n = int(ex_node.args[0].p)
            if isinstance(b, arb_series):
                if n >= 0:
                    return b**n
                return _div(arb(1), b ** (-n))
            return _arb_ipow(b, n)
        if ex_node.constant:
            a = self.ev(ex_node)
            return _const_pow(b, a, self.clip or is_nonneg(base_node))
        # a^b = exp(b*log(a))
        a = self.ev(ex_node)
        try:
            lb = _log(b)
        except Undefined:  # say what the user wrote: a power, not a log
            raise Undefined(f"a power with a variable exponent is undefined for the base "
                            f"ball {_c0(b)} (<= 0)") from None
        return _exp(a * lb)

    def call(self, fname: str, arg_node: Node) -> Any:
        v = self.ev(arg_node)
        series = isinstance(v, arb_series)
        if fname == "exp":
            return _exp(v)
        if fname in ("sin", "cos", "atan", "erf"):
            return getattr(v, fname)()
        if fname == "erfc":
            return _erfc(v)
        if fname == "log":
            return _log(v)
        if fname == "sqrt":
            return _sqrt(v, self.clip or is_nonneg(arg_node))
        if fname == "abs":
            return _abs(v)
        if fname == "tan":
            if series:
                cos0 = _c0(v).cos()
                if cos0.contains(0):
                    raise NotAnalytic(f"tan has a pole in the ball {_c0(v)}")
            return v.tan()
        if fname == "tanh":
            if series:
                return 1 - 2 / (_exp(2 * v) + 1)
            return v.tanh()
        if fname in ("sinh", "cosh"):
            if series:
                ep, em = _exp(v), _exp(-v)
                return (ep - em) / 2 if fname == "sinh" else (ep + em) / 2
            return getattr(v, fname)()
        if fname in ("asin", "acos"):
            c = _c0(v)
            if series and not (c > -1 and c < 1):
                raise NotAnalytic(f"{fname} is not analytic at +-1, which the ball {c} meets")
            if c > 1 or c < -1:
                raise Undefined(f"{fname} is undefined on the ball {c} (outside [-1, 1])")
            return getattr(v, fname)()
        if fname == "log1p":
            if series:
                return _log(1 + v)
            if v <= -1:
                raise Undefined(f"log1p is undefined on the ball {v} (<= -1)")
            if v > -1:
                return v.log1p()
            return arb.nan()
        if fname == "expm1":
            if series:
                return _exp(v) - 1
            return v.expm1()
        if fname in SPECIAL_FUNCTIONS:
            return special_ball(fname, v)
        raise AssertionError(fname)  # pragma: no cover - parser whitelist


def _exp(v: Any) -> Any:
    return v.exp()


def _erfc(v: Any) -> Any:
    """erfc on a ball: Arb's enclosure at the two ends (erfc is decreasing, so their
    union encloses the range and stays tight on wide balls); series: Arb's erfc series
    (erfc is entire)."""
    if isinstance(v, arb_series) or not v.is_finite():
        return v.erfc()
    if v.rad() == 0:
        return v.erfc()
    return v.upper().erfc().union(v.lower().erfc())


def _minmax(fname: str, vals: list[Any]) -> Any:
    """min/max of balls (Arb's arb_min/arb_max, rigorous); on series, the argument whose
    constant term is strictly below (min) / above (max) all others, where min/max equals
    that argument on a neighbourhood; else :class:`NotAnalytic` (a possible tie)."""
    if any(isinstance(v, arb_series) for v in vals):
        cs = [_c0(v) for v in vals]
        for i, ci in enumerate(cs):
            if all((ci < cj if fname == "min" else ci > cj) for j, cj in enumerate(cs) if j != i):
                return vals[i]
        raise NotAnalytic(f"{fname} is not analytic where its arguments may tie "
                          f"({', '.join(str(c) for c in cs)})")
    if not all(v.is_finite() for v in vals):
        return arb.nan()
    # min/max are monotone in each argument: the range over the product of the balls is
    # [min/max of the lower ends, min/max of the upper ends] (exact ends: tight)
    pick = min if fname == "min" else max
    lo = pick((v.lower() for v in vals), key=_ExactKey)
    hi = pick((v.upper() for v in vals), key=_ExactKey)
    return lo.union(hi)


class _ExactKey:
    """Sort key for exact ``arb`` points (their comparisons are always decided)."""

    __slots__ = ("v",)

    def __init__(self, v: arb):
        self.v = v

    def __lt__(self, other: _ExactKey) -> bool:
        return bool(self.v < other.v)

    def __gt__(self, other: _ExactKey) -> bool:
        return bool(self.v > other.v)


def _div(a: Any, b: Any) -> Any:
    if isinstance(b, arb_series) or isinstance(a, arb_series):
        c = _c0(b)
        if not (c > 0 or c < 0):
            raise NotAnalytic(f"division by a series whose constant term {c} may vanish")
        return a / b
    return a / b  # arb: non-finite when b contains 0


def _log(v: Any) -> Any:
    c = _c0(v)
    if isinstance(v, arb_series):
        if not c > 0:
            raise NotAnalytic(f"log is not analytic at 0, which the ball {c} contains")
        return v.log()
    if v <= 0:
        raise Undefined(f"log is undefined on the ball {c} (<= 0)")
    if v > 0:
        return v.log()
    return arb.nan()  # straddles 0: no finite enclosure exists


def _sqrt(v: Any, nonneg: bool) -> Any:
    c = _c0(v)
    if isinstance(v, arb_series):
        if not c > 0:
            raise NotAnalytic(f"sqrt is not analytic at 0, which the ball {c} contains")
        return v.sqrt()
    if v < 0:
        raise Undefined(f"sqrt is undefined on the ball {c} (< 0)")
    if not v.is_finite():
        return arb.nan()
    lo, hi = v.lower(), v.upper()
    if lo >= 0 or nonneg:
        # monotone: sqrt([max(lo, 0), hi]); clipping is rigorous as the values are >= 0
        if lo > 0:
            return lo.sqrt().union(hi.sqrt())
        return _zero_to(hi.sqrt())
    return arb.nan()  # the ball reaches negative numbers where sqrt is undefined


def _abs(v: Any) -> Any:
    c = _c0(v)
    if c > 0:
        return v
    if c < 0:
        return -v
    if isinstance(v, arb_series):
        raise NotAnalytic(f"abs is not analytic at 0, which the ball {c} contains")
    if not v.is_finite():
        return arb.nan()
    return _zero_to(v.abs_upper())


def _const_pow(b: Any, a: arb, nonneg: bool) -> Any:
    """b**a for a constant exponent ball ``a`` that is not a known integer."""
    c = _c0(b)
    if isinstance(b, arb_series):
        if not c > 0:
            raise NotAnalytic(f"non-integer power is not analytic at 0, in the ball {c}")
        return _exp(a * b.log())
    if c < 0:
        raise Undefined(f"non-integer power of the negative ball {c}")
    if not b.is_finite() or not a.is_finite():
        return arb.nan()
    if b.is_zero():
        if a > 0:
            return arb(0)
        raise Undefined(f"0 raised to the power {a} is undefined")
    lo, hi = b.lower(), b.upper()
    if not (lo >= 0 or nonneg):
        return arb.nan()  # the ball reaches negative numbers where b**a is undefined

    def point(t: arb) -> arb:
        if t.is_zero():
            return arb(0) if a > 0 else arb.pos_inf()
        return _exp(a * t.log())

    if not lo > 0:
        if a > 0:
            return _zero_to(point(hi))
        return arb.nan()  # unbounded (a < 0) or undecided sign of a
    # t -> t**a is monotone on [lo, hi] for every fixed a; the union of the
    # endpoint enclosures (computed with the ball a) encloses the range.
    return point(lo).union(point(hi))



