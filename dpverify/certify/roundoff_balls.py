"""Ball arithmetic pieces of the round-off analysis (:mod:`.roundoff_box`): dual numbers
(a ball and its gradient), exact squares, the derivatives of the called functions, exact
conversions of balls, the mean-value narrowing, and exact rational ranges.

Guarantee
---------
Every function returns an enclosure (or a rigorous bound) of what it names; nothing is a
float.
"""

from __future__ import annotations

from collections.abc import Sequence

from flint import arb, fmpq

from ..errors import InvalidParameterError
from ..expr.program import Op

__all__ = ["Dual", "sqr", "derivatives", "mid_rad", "upper_abs", "lower_abs", "refine",
           "exact_range", "narrow", "short_range", "range_low", "RANGE_BITS", "Box"]

Box = tuple[tuple[fmpq, fmpq], ...]


class Dual:
    """A ball ``v`` and the balls ``g`` of its gradient (forward-mode dual number)."""

    __slots__ = ("v", "g")

    def __init__(self, v: arb, g: tuple[arb, ...]) -> None:
        self.v = v
        self.g = g

    def __add__(self, o: Dual) -> Dual:
        return Dual(self.v + o.v, tuple(a + b for a, b in zip(self.g, o.g)))

    def __sub__(self, o: Dual) -> Dual:
        return Dual(self.v - o.v, tuple(a - b for a, b in zip(self.g, o.g)))

    def __neg__(self) -> Dual:
        return Dual(-self.v, tuple(-a for a in self.g))

    def __mul__(self, o: Dual) -> Dual:
        return Dual(self.v * o.v, tuple(self.v * b + o.v * a for a, b in zip(self.g, o.g)))

    def __truediv__(self, o: Dual) -> Dual:
        z = self.v / o.v
        return Dual(z, tuple((a - z * b) / o.v for a, b in zip(self.g, o.g)))

    def square(self) -> Dual:
        """``self * self`` without the dependency problem (the range of a square)."""
        return Dual(sqr(self.v), tuple(2 * self.v * a for a in self.g))

    def scale(self, c: arb) -> Dual:
        return Dual(self.v * c, tuple(a * c for a in self.g))

    def chain(self, value: arb, slope: arb) -> Dual:
        """``h(self)`` with ``h(v) = value``, ``h'(v) = slope``."""
        return Dual(value, tuple(slope * a for a in self.g))


def sqr(x: arb) -> arb:
    """An enclosure of ``{t^2 : t in x}`` (``x * x`` in ball arithmetic reaches below 0 when
    ``x`` contains 0)."""
    lo, hi = x.lower(), x.upper()
    out = (lo * lo).union(hi * hi)
    return out.union(arb(0)) if x.contains(0) else out


def derivatives(name: str, x: arb) -> tuple[arb, arb, arb]:
    """``(g(x), g'(x), g''(x))`` of a called function on the ball ``x`` (non-finite balls
    where ``x`` leaves the domain)."""
    one = arb(1)
    if name == "exp":
        e = x.exp()
        return e, e, e
    if name == "expm1":
        e = x.exp()
        return x.expm1(), e, e
    if name == "log":
        return x.log(), one / x, -one / (x * x)
    if name == "log1p":
        y = one + x
        return x.log1p(), one / y, -one / (y * y)
    if name == "sin":
        s, c = x.sin(), x.cos()
        return s, c, -s
    if name == "cos":
        s, c = x.sin(), x.cos()
        return c, -s, -c
    if name == "tan":
        t = x.tan()
        d = one + t * t
        return t, d, 2 * t * d
    if name == "atan":
        d = one + x * x
        return x.atan(), one / d, -2 * x / (d * d)
    if name in ("asin", "acos"):
        d = one - x * x
        s = d.sqrt()
        sign = 1 if name == "asin" else -1
        return (x.asin() if name == "asin" else x.acos()), sign / s, sign * x / (d * s)
    if name == "sinh":
        return x.sinh(), x.cosh(), x.sinh()
    if name == "cosh":
        return x.cosh(), x.sinh(), x.cosh()
    if name == "tanh":
        t = x.tanh()
        d = one - t * t
        return t, d, -2 * t * d
    raise InvalidParameterError(f"unknown function {name!r}")


def _dyadic(man: int, exp: int) -> fmpq:
    return fmpq(man << exp) if exp >= 0 else fmpq(man, 1 << -exp)


def mid_rad(x: arb) -> tuple[fmpq, fmpq]:
    """``|mid|`` and ``rad`` of a finite ball, exactly."""
    m, e = x.mid().man_exp()
    r, f = x.rad().man_exp()
    return _dyadic(abs(int(m)), int(e)), _dyadic(int(r), int(f))


def upper_abs(x: arb) -> fmpq | None:
    """The exact upper end of ``|x|`` (``|mid| + rad``), None when not finite."""
    if not x.is_finite():
        return None
    m, r = mid_rad(x)
    return m + r


def lower_abs(x: arb) -> fmpq:
    """A lower bound of ``|x|`` (``|mid| - rad``; 0 when ``x`` may vanish or is not
    finite)."""
    if not x.is_finite():
        return fmpq(0)
    m, r = mid_rad(x)
    return m - r if m > r else fmpq(0)


def refine(point: arb, d: Dual, radii: Sequence[arb]) -> arb:
    """The mean-value form ``v(m) + grad . [-r, r]`` intersected with ``d.v``."""
    if not d.g:
        return d.v
    mv = point
    for g, r in zip(d.g, radii):
        mv = mv + g * r
    if not (mv.is_finite() and d.v.is_finite()):
        return mv if mv.is_finite() else d.v
    try:
        return d.v.intersection(mv)
    except ValueError:  # disjoint balls cannot both enclose the value: keep the plain one
        return d.v


def exact_range(op: Op, box: Box, args: list[tuple[fmpq, fmpq] | None],
                variables: Sequence[str]) -> tuple[fmpq, fmpq] | None:
    """The range of the exact value of ``op`` by interval arithmetic in exact rationals
    (None for sqrt, calls, or an unknown operand): wider than the balls inside the box,
    but exact at its ends, so a value that reaches a power of two exactly keeps its
    binade."""
    kind = op.kind
    if kind == "var":
        return box[variables.index(op.name)]
    if kind == "const":
        assert op.value is not None
        return op.value, op.value
    if any(a is None for a in args) or kind in ("sqrt", "call"):
        return None
    iv = [a for a in args if a is not None]
    if kind == "neg":
        return -iv[0][1], -iv[0][0]
    if kind == "abs":
        lo, hi = iv[0]
        return (fmpq(0) if lo <= 0 <= hi else min(abs(lo), abs(hi))), max(abs(lo), abs(hi))
    if kind in ("add", "sub"):
        (a, b), (c, d) = iv
        return (a + c, b + d) if kind == "add" else (a - d, b - c)
    if kind in ("mul", "fma"):
        (a, b), (c, d) = iv[0], iv[1]
        if op.args[0] == op.args[1]:
            lo = fmpq(0) if a <= 0 <= b else min(a * a, b * b)
            out = (lo, max(a * a, b * b))
        else:
            ps = (a * c, a * d, b * c, b * d)
            out = (min(ps), max(ps))
        if kind == "fma":
            out = (out[0] + iv[2][0], out[1] + iv[2][1])
        return out
    (a, b), (c, d) = iv  # div
    if c <= 0 <= d:
        return None
    qs = (a / c, a / d, b / c, b / d)
    return min(qs), max(qs)


def narrow(v: arb, rng: tuple[fmpq, fmpq]) -> arb:
    """``v`` intersected with a ball around the exact range ``rng``."""
    ball = arb(rng[0]).union(arb(rng[1]))
    try:
        return v.intersection(ball)
    except ValueError:
        return ball


#: exact ranges whose endpoints need more bits are dropped (they grow with the depth)
RANGE_BITS = 256


def short_range(rng: tuple[fmpq, fmpq] | None) -> tuple[fmpq, fmpq] | None:
    """``rng`` unless an endpoint's numerator or denominator exceeds RANGE_BITS bits."""
    if rng is None:
        return None
    for q in rng:
        if int(q.p).bit_length() > RANGE_BITS or int(q.q).bit_length() > RANGE_BITS:
            return None
    return rng


def range_low(rng: tuple[fmpq, fmpq] | None) -> fmpq:
    """The least ``|v|`` over an exact range (0 when it contains 0 or is unknown)."""
    if rng is None or rng[0] <= 0 <= rng[1]:
        return fmpq(0)
    return min(abs(rng[0]), abs(rng[1]))
