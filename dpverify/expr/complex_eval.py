"""Evaluation of :mod:`dpverify.expr` trees on complex boxes (``acb``) where the
formula is analytic (principal branches); used to prove analyticity on Bernstein
ellipses (:mod:`dpverify.constructions.chebyshev_series`).
"""

from __future__ import annotations

from typing import Any

from flint import acb, arb, fmpq

from .ball import RingEval
from .tree import SPECIAL_FUNCTIONS, Node, is_int

__all__ = ["AcbEval", "NoAnalyticBox"]


# --------------------------------------------------------------------------- acb evaluation


class NoAnalyticBox(Exception):
    """Internal: the complex box meets a point where the formula is not analytic."""


def _acb_straddles_real_ray(v: acb, lo: Any = None, hi: Any = None) -> bool:
    """True when the box ``v`` may meet the real ray ``(-inf, hi]`` (``hi`` given) or
    ``[lo, inf)`` (``lo`` given)."""
    if not v.imag.contains(0):
        return False
    if hi is not None and not v.real > hi:
        return True
    if lo is not None and not v.real < lo:
        return True
    return False


class AcbEval(RingEval):
    """Evaluate the tree on acb boxes, raising ``NoAnalyticBox`` unless the formula
    (principal branches; ``abs(u)`` read as ``u`` or ``-u`` by the sign of ``Re u``)
    is analytic on the whole box."""

    def __init__(self, env: dict[str, acb]):
        self.env = env

    def lift(self, x: arb) -> acb:
        return acb(x)

    def power(self, node: Node) -> acb:
        base_node, ex_node = node.args
        b = self.ev(base_node)
        if ex_node.kind == "num" and is_int(ex_node.args[0]):
            n = int(ex_node.args[0].p)
            return b**n if n >= 0 else self.div(acb(1), b ** (-n))
        a = self.ev(ex_node)
        return (a * self.log(b)).exp()

    def apply(self, node: Node) -> acb:
        if node.kind == "minmax":
            return self.minmax(node.args[0], [self.ev(a) for a in node.args[1]])
        if node.kind == "callp":
            fname, order, arg = node.args
            return self.bessel(fname, order, self.ev(arg))
        if node.kind == "call2":  # hypot(a, b) = sqrt(a^2 + b^2), principal branch
            a, b = (self.ev(v) for v in node.args[1])
            return self.call("sqrt", a * a + b * b)
        return self.call(node.args[0], self.ev(node.args[1]))

    @staticmethod
    def bessel(fname: str, order: fmpq, v: acb) -> acb:
        """``J``/``I`` of an integer order are entire; otherwise the principal branch, with
        its cut ``(-inf, 0]``."""
        if not v.is_finite():
            raise NoAnalyticBox
        entire = order.q == 1 and fname in ("besselj", "besseli")
        if not entire and _acb_straddles_real_ray(v, hi=0):
            raise NoAnalyticBox
        nu = acb(arb(order))
        return {"besselj": v.bessel_j, "bessely": v.bessel_y, "besseli": v.bessel_i,
                "besselk": v.bessel_k}[fname](nu)

    def special(self, fname: str, v: acb) -> acb:
        """The one-argument special functions where they are analytic (principal
        branches); ``erfinv``/``erfcinv`` have no complex enclosure here: never proven."""
        if fname in ("gamma", "digamma"):
            if v.rgamma().contains(0):   # rgamma vanishes exactly at the poles
                raise NoAnalyticBox
            return v.gamma() if fname == "gamma" else v.digamma()
        if fname == "lgamma":
            return self.lgamma(v)
        if fname in ("rgamma", "airyai", "airybi"):
            return {"rgamma": v.rgamma, "airyai": v.airy_ai, "airybi": v.airy_bi}[fname]()
        if fname == "cbrt":   # the real cube root: z^(1/3) right of 0, -(-z)^(1/3) left
            if v.real > 0:
                return v.root(3)
            if v.real < 0:
                return -((-v).root(3))
            raise NoAnalyticBox
        if fname == "asinh":   # cuts i*[1, inf) and -i*[1, inf)
            if v.real.contains(0) and not (v.imag < 1 and v.imag > -1):
                raise NoAnalyticBox
            return v.asinh()
        if fname == "acosh":   # cut (-inf, 1]
            if _acb_straddles_real_ray(v, hi=1):
                raise NoAnalyticBox
            return v.acosh()
        if fname == "atanh":   # cuts (-inf, -1] and [1, inf)
            if _acb_straddles_real_ray(v, hi=-1) or _acb_straddles_real_ray(v, lo=1):
                raise NoAnalyticBox
            return v.atanh()
        if fname == "zeta":
            if (v - 1).contains(0):
                raise NoAnalyticBox
            return v.zeta()
        if fname == "lambertw":   # principal branch, cut (-inf, -1/e]
            if _acb_straddles_real_ray(v, hi=-arb(-1).exp()):
                raise NoAnalyticBox
            return v.lambertw()
        raise NoAnalyticBox   # erfinv, erfcinv

    @staticmethod
    def lgamma(v: acb) -> acb:
        """``log |gamma|`` continued from the real axis: Arb's principal ``lgamma`` right
        of 0; left of 0, between two poles, ``log pi - log(+-sin(pi z)) - lgamma(1 - z)``
        with the sign that makes ``+-sin(pi x)`` positive on the real axis."""
        if v.real > 0:
            return v.lgamma()
        if v.real.contains_integer():
            raise NoAnalyticBox
        s = v.sin_pi()
        sign = arb(v.real.mid()).sin_pi()
        if sign < 0:
            s = -s
        if _acb_straddles_real_ray(s, hi=0):
            raise NoAnalyticBox
        return acb(arb.pi()).log() - s.log() - (1 - v).lgamma()

    @staticmethod
    def minmax(fname: str, vals: list[acb]) -> acb:
        """The argument ``u_i`` with ``Re(u_i - u_j) < 0`` (min; ``> 0`` for max) for all
        ``j != i`` on the whole box, as ``abs`` picks a sign: that is analytic and equals
        min/max at real points; no such argument means a possible tie."""
        for i, vi in enumerate(vals):
            if all(((vi - vj).real < 0 if fname == "min" else (vi - vj).real > 0)
                   for j, vj in enumerate(vals) if j != i):
                return vi
        raise NoAnalyticBox

    def div(self, a: acb, b: acb) -> acb:
        if b.contains(0) or not b.is_finite():
            raise NoAnalyticBox
        return a / b

    @staticmethod
    def log(v: acb) -> acb:
        if _acb_straddles_real_ray(v, hi=0):
            raise NoAnalyticBox
        return v.log()

    def call(self, fname: str, v: acb) -> acb:
        if not v.is_finite():
            raise NoAnalyticBox
        if fname in ("exp", "sin", "cos", "erf", "erfc", "sinh", "cosh", "expm1"):
            return getattr(v, fname)()
        if fname == "log":
            return self.log(v)
        if fname == "log1p":
            if _acb_straddles_real_ray(v, hi=-1):
                raise NoAnalyticBox
            return v.log1p()
        if fname == "sqrt":
            if _acb_straddles_real_ray(v, hi=0):
                raise NoAnalyticBox
            return v.sqrt()
        if fname == "abs":
            if v.real > 0:
                return v
            if v.real < 0:
                return -v
            raise NoAnalyticBox
        if fname == "tan":
            if v.cos().contains(0):
                raise NoAnalyticBox
            return v.tan()
        if fname == "tanh":
            if v.cosh().contains(0):
                raise NoAnalyticBox
            return v.tanh()
        if fname == "atan":
            # branch cuts i*[1, inf) and -i*[1, inf); singular at +-i
            if v.real.contains(0) and not (v.imag < 1 and v.imag > -1):
                raise NoAnalyticBox
            return v.atan()
        if fname in ("asin", "acos"):
            # branch cuts (-inf, -1] and [1, inf)
            if _acb_straddles_real_ray(v, hi=-1) or _acb_straddles_real_ray(v, lo=1):
                raise NoAnalyticBox
            return getattr(v, fname)()
        if fname in SPECIAL_FUNCTIONS:
            return self.special(fname, v)
        raise AssertionError(fname)  # pragma: no cover - parser whitelist


