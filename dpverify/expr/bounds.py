"""Lower and upper bounds of a one-variable expression over an interval, kept as two
separate balls (inf-sup interval arithmetic) so that ranges spanning many orders of
magnitude stay bounded away from 0.

A ball (midpoint-radius) cannot hold ``[exp(100), exp(10^30)]``: its radius, rounded to
30 bits, swallows the lower end, and ``exp`` of the ball ``[100, 10^30]`` comes out as
``[+/- 3.65e+434294482798314684722484936963]``.  :func:`range_bounds` carries a pair
``(L, U)`` of balls with ``L.lower() <= f(x) <= U.upper()`` for every ``x`` of the
interval: monotone functions are applied to the ends (``exp``, ``log``, ``log1p``,
``expm1``, ``sqrt``, ``cbrt``, ``tanh``, ``atan``, ``erf``, ``sinh``, ``asinh``, ``asin``,
``atanh``, ``erfinv``, ``lambertw`` increasing; ``erfc``, ``acos``, ``erfcinv``
decreasing; ``abs`` and ``cosh`` through ``|x|``), sums and products combine the ends,
integer powers split at 0; everything else (``sin``, ``gamma``, the Bessel functions...)
is a ball evaluation over the whole interval (:meth:`dpverify.expr.Expr.eval_arb`).

Used to decide where a reference is *flat* at a format's resolution (an overflow, an
underflow, a saturation: :mod:`dpverify.testing.models`) and the range property of
:mod:`dpverify.testing.properties`.

Guarantee
---------
Rigorous: ``L.lower() <= f(x) <= U.upper()`` for every ``x`` in ``[lo, hi]`` where ``f`` is
defined; :class:`~dpverify.errors.DomainError` when a function's argument provably leaves
its domain; a bound is infinite (``arb.pos_inf()`` ends) where none is known.
"""

from __future__ import annotations

from typing import Any

from flint import arb, fmpq

from ..errors import DomainError
from .ball import ArbEval
from .tree import Node, is_int

__all__ = ["range_bounds", "INCREASING", "DECREASING"]

#: functions increasing on their domain, and decreasing ones
INCREASING = ("exp", "log", "log1p", "expm1", "sqrt", "cbrt", "tanh", "atan", "erf",
              "sinh", "asinh", "asin", "atanh", "erfinv", "lambertw")
DECREASING = ("erfc", "acos", "erfcinv")

Pair = tuple[arb, arb]
#: increasing functions at least e^x (for x > 0), and the lower bound used where Arb's
#: enclosure of them overflows (an argument beyond 2^100)
_GROWTH = ("exp", "expm1", "sinh")
_BIG_X = arb(2) ** 100
_HUGE = arb(2) ** (2 ** 30)


def _lower(a: arb) -> arb:
    return a.lower() if a.is_finite() else arb.neg_inf()


def _upper(a: arb) -> arb:
    return a.upper() if a.is_finite() else arb.pos_inf()


def _pick(vals: list[arb], low: bool) -> arb:
    ends = [_lower(v) if low else _upper(v) for v in vals]
    best = ends[0]
    for e in ends[1:]:
        if (e < best) if low else (e > best):
            best = e
    return best


class _Bounds:
    def __init__(self, var: str, lo: arb, hi: arb):
        self.var, self.lo, self.hi = var, lo, hi
        self.ball = ArbEval({var: lo.union(hi)})

    def ev(self, node: Node) -> Pair:
        k = node.kind
        if node.constant or k in ("const", "num"):
            v = self.ball.ev(node)
            return v, v
        if k == "var":
            return self.lo, self.hi
        if k == "neg":
            a, b = self.ev(node.args[0])
            return -b, -a
        if k == "sum":
            lo, hi = arb(0), arb(0)
            for s, t in node.args:
                a, b = self.ev(t)
                lo, hi = (lo + a, hi + b) if s > 0 else (lo - b, hi - a)
            return lo, hi
        if k == "prod":
            acc: Pair = (arb(1), arb(1))
            for p, f in node.args:
                a, b = self.ev(f)
                if p < 0:
                    if not (_lower(a) > 0 or _upper(b) < 0):
                        return arb.neg_inf(), arb.pos_inf()
                    a, b = 1 / b, 1 / a
                cs = [acc[0] * a, acc[0] * b, acc[1] * a, acc[1] * b]
                acc = (_pick(cs, True), _pick(cs, False))
            return acc
        if k == "pow":
            base, ex = node.args
            if ex.kind == "num" and is_int(ex.args[0]):
                return self.ipow(self.ev(base), int(ex.args[0].p))
            if base.constant:   # a^u = exp(u log a), a > 0: monotone in u
                b = self.ball.ev(base)
                if b > 0:
                    lb = b.log()
                    u, w = self.ev(ex)
                    cs = [u * lb, w * lb]
                    return self.monotone("exp", (_pick(cs, True), _pick(cs, False)))
        if k == "call" and node.args[0] in INCREASING + DECREASING + ("abs", "cosh"):
            return self.monotone(node.args[0], self.ev(node.args[1]))
        v = self.ball.ev(node)
        return v, v

    def ipow(self, ab: Pair, n: int) -> Pair:
        a, b = ab
        if n < 0:
            inv = self.ipow(ab, -n)
            if not (_lower(inv[0]) > 0 or _upper(inv[1]) < 0):
                return arb.neg_inf(), arb.pos_inf()
            return 1 / inv[1], 1 / inv[0]
        if n % 2 == 1:
            return _lower(a) ** n, _upper(b) ** n
        if _lower(a) >= 0:
            return _lower(a) ** n, _upper(b) ** n
        if _upper(b) <= 0:
            return _upper(b) ** n, _lower(a) ** n
        top = _pick([abs(_lower(a)), abs(_upper(b))], False)
        return arb(0), top ** n

    def monotone(self, name: str, ab: Pair) -> Pair:
        a, b = ab
        if name in ("abs", "cosh"):
            lo_a, hi_b = _lower(a), _upper(b)
            if lo_a >= 0:
                m, M = lo_a, hi_b
            elif hi_b <= 0:
                m, M = -hi_b, -lo_a
            else:
                m, M = arb(0), _pick([-lo_a, hi_b], False)
            if name == "abs":
                return m, M
            low, high = m.cosh(), M.cosh()
            if not low.is_finite():
                low = _HUGE if m > _BIG_X else arb(1)
            return low, high if high.is_finite() else arb.pos_inf()
        f = _FN[name]
        lo_x, hi_x = _lower(a), _upper(b)
        lo_v = f(lo_x) if lo_x.is_finite() else _limit(name, -1)
        hi_v = f(hi_x) if hi_x.is_finite() else _limit(name, 1)
        low, high = (lo_v, hi_v) if name in INCREASING else (hi_v, lo_v)
        if not low.is_finite():
            # Arb gives up on exp(x) beyond x ~ 2^127: e^x >= 2^(2^30) there
            low = _HUGE if name in _GROWTH and lo_x > _BIG_X else arb.neg_inf()
        if not high.is_finite():
            high = arb.pos_inf()
        return low, high


def _limit(name: str, side: int) -> arb:
    """An end at an infinite argument: unbounded (``-inf`` below, ``+inf`` above)."""
    return arb.neg_inf() if side < 0 else arb.pos_inf()


def _call(name: str) -> Any:
    def f(x: arb) -> arb:
        return ArbEval({"t": x}).call(name, Node("var", ("t",)))
    return f


_FN = {name: _call(name) for name in INCREASING + DECREASING}


def range_bounds(expr: Any, lo: fmpq, hi: fmpq) -> tuple[arb, arb]:
    """``(a, b)``: exact balls with ``a <= f(x) <= b`` for every ``x`` in ``[lo, hi]``
    (module docstring); ``f`` an :class:`~dpverify.expr.Expr` of one variable.  Raises
    ``DomainError`` when ``f`` is provably undefined on part of the interval."""
    var = expr.variables[0] if expr.variables else "x"
    ev = _Bounds(var, arb(lo), arb(hi))
    try:
        a, b = ev.ev(expr.tree)
    except ZeroDivisionError as exc:   # pragma: no cover - arb divides into non-finite
        raise DomainError(str(exc)) from None
    return _lower(a), _upper(b)
