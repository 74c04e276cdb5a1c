"""The special functions of ``expr`` targets, for the independent checker: balls and Taylor
series from python-flint's Arb functions alone (no other part of dpverify).

One-argument functions: ``gamma lgamma rgamma digamma cbrt asinh acosh atanh zeta erfinv
erfcinv airyai airybi lambertw``; the Bessel functions ``besselj bessely besseli besselk``
take an exact order, carried in the function name as ``besselj[1/3]``
(:func:`order_name`).  ``lgamma`` is ``log |gamma|``; ``lambertw`` the principal branch.

Real domains: poles of ``gamma``, ``lgamma``, ``digamma`` at the integers ``<= 0``,
``zeta`` at 1, ``atanh`` and ``erfinv`` at ``+-1``, ``erfcinv`` at 0 and 2; ``acosh``
needs ``x >= 1``, ``lambertw`` ``x >= -1/e``; ``bessely``, ``besselk`` need ``x > 0``, and
so do ``besselj``/``besseli`` of a non-integer order (``x = 0`` too for a positive one).
A set entirely outside raises Undefined; a ball that may meet such a point, Indeterminate.

Series where Arb has none: ``digamma`` as the derivative of Arb's ``lgamma`` series
(reflected below 0: ``psi(x) = psi(1 - x) - pi cot(pi x)``), ``lgamma`` below 0 by the
reflection ``log pi - log |sin(pi x)| - lgamma(1 - x)``, ``erfinv``/``erfcinv`` by
reverting Arb's ``erf``/``erfc`` series at the inverse's value, the Bessel functions from
``C_v' = (C_(v-1) -+ C_(v+1)) / 2`` (``k``-th derivative: a binomial sum of ``2k + 1``
orders), and ``cbrt``, ``asinh``, ``acosh``, ``atanh`` through ``exp``, ``log``,
``sqrt``.  An expansion at the constant term ``c`` is composed with ``s - c``.

Guarantee
---------
Arb's enclosures and exact identities: every ball contains the function's values on the
argument ball, every series coefficient the true Taylor coefficient at every point of the
constant term.
"""

from __future__ import annotations

from collections.abc import Callable
from math import comb, factorial

from flint import arb, arb_series, fmpq

__all__ = ["SPECIAL", "ORDERED", "Undefined", "Indeterminate", "order_name", "split_name",
           "special_ball", "special_series", "hypot_ball"]

#: one-argument special functions
SPECIAL = frozenset("gamma lgamma rgamma digamma cbrt asinh acosh atanh zeta erfinv erfcinv "
                    "airyai airybi lambertw".split())
#: functions of an exact order and one argument
ORDERED = frozenset(("besselj", "bessely", "besseli", "besselk"))


class Undefined(Exception):
    """The expression is undefined at every point of the evaluated set."""


class Indeterminate(Exception):
    """The enclosure is not good enough to decide (or the series does not exist)."""


def order_name(name: str, order: fmpq) -> str:
    """The name under which an ordered function travels through the algebras."""
    return f"{name}[{order}]"


def split_name(name: str) -> tuple[str, fmpq | None]:
    """``("besselj", 1/3)`` from ``"besselj[1/3]"``; ``(name, None)`` otherwise."""
    if name.endswith("]") and "[" in name:
        base, order = name[:-1].split("[", 1)
        p, _, q = order.partition("/")
        return base, fmpq(int(p), int(q or 1))
    return name, None


def _c0(s: arb_series) -> arb:
    cs = s.coeffs()
    return cs[0] if cs else arb(0)


def _int_at(b: arb) -> int | None:
    u = b.unique_fmpz() if b.is_exact() and b.is_integer() else None
    return None if u is None else int(u)


def _pole_near(b: arb) -> bool:
    """May ``b`` contain an integer ``<= 0``?"""
    return not b > 0 and b.contains_integer()


def _gamma_domain(b: arb) -> None:
    k = _int_at(b)
    if k is not None and k <= 0:
        raise Undefined()
    if _pole_near(b):
        raise Indeterminate()


def _monotone(b: arb, f: Callable[[arb], arb]) -> arb:
    """``f`` increasing or decreasing on ``b``: the union of the ends' enclosures."""
    return f(b) if b.is_exact() else f(b.lower()).union(f(b.upper()))


def _neg_e() -> arb:
    return -(arb(-1).exp())


def _in_open(b: arb, lo: arb | int, hi: arb | int) -> None:
    """Undefined unless ``b`` meets ``(lo, hi)``; Indeterminate unless inside."""
    if b <= lo or b >= hi:
        raise Undefined()
    if not (b > lo and b < hi):
        raise Indeterminate()


def _bessel_value(name: str, nu: arb, x: arb) -> arb:
    return {"besselj": x.bessel_j, "bessely": x.bessel_y, "besseli": x.bessel_i,
            "besselk": x.bessel_k}[name](nu)


def _bessel_domain(name: str, order: fmpq, b: arb, series: bool) -> bool:
    """True when the function is entire (integer-order J, I); else check the domain."""
    if order.q == 1 and name in ("besselj", "besseli"):
        return True
    zero_ok = name in ("besselj", "besseli") and order > 0 and not series
    if b < 0 or (b.is_zero() and not zero_ok):
        raise Undefined()
    if not b > 0 and not (zero_ok and b.is_zero()):
        raise Indeterminate()
    return False


def special_ball(name: str, b: arb) -> arb:
    """``name(b)`` on a ball (``name`` may carry an order: :func:`order_name`)."""
    base, order = split_name(name)
    if order is not None:
        _bessel_domain(base, order, b, False)
        if b.is_zero():
            return arb(1) if order == 0 else arb(0)
        return _bessel_value(base, arb(order), b)
    if base in ("gamma", "digamma"):
        _gamma_domain(b)
        return b.gamma() if base == "gamma" else b.digamma()
    if base == "lgamma":
        _gamma_domain(b)
        if b > 0:
            return b.lgamma()
        return arb.pi().log() - abs(b.sin_pi()).log() - (1 - b).lgamma()
    if base == "rgamma":
        return b.rgamma()
    if base == "cbrt":
        def root(t: arb) -> arb:
            return arb(0) if t.is_zero() else t.root(3) if t > 0 else -((-t).root(3))
        return _monotone(b, root)
    if base == "asinh":
        return _monotone(b, arb.asinh)
    if base == "acosh":
        if b < 1:
            raise Undefined()
        if not b >= 1:
            raise Indeterminate()
        return _monotone(b, arb.acosh)
    if base in ("atanh", "erfinv"):
        _in_open(b, -1, 1)
        return _monotone(b, arb.atanh if base == "atanh" else arb.erfinv)
    if base == "erfcinv":
        _in_open(b, 0, 2)
        return _monotone(b, arb.erfcinv)
    if base == "zeta":
        if b.is_exact() and b == 1:
            raise Undefined()
        if b.contains(1):
            raise Indeterminate()
        return b.zeta()
    if base in ("airyai", "airybi"):
        return b.airy_ai() if base == "airyai" else b.airy_bi()
    # lambertw, principal branch
    w = _neg_e()
    if b < w:
        raise Undefined()
    if not b > w:
        raise Indeterminate()
    return _monotone(b, arb.lambertw)


def _compose(s: arb_series, cs: list[arb]) -> arb_series:
    """``sum_k cs[k] (s - s_0)^k`` (Horner), truncated like ``s``; the constant term of
    ``s - s_0`` is exactly 0."""
    h = arb_series([arb(0)] + s.coeffs()[1:], prec=s.prec)
    out = arb_series([cs[-1]], prec=s.prec)
    for c in cs[-2::-1]:
        out = out * h + c
    return out


def _taylor(c: arb, n: int, f: str) -> list[arb]:
    """The first ``n`` Taylor coefficients of Arb's series function ``f`` at ``c``."""
    s: arb_series = getattr(arb_series([c, 1], prec=n), f)()
    cs: list[arb] = s.coeffs()[:n]
    return cs + [arb(0)] * (n - len(cs))


def _digamma_coeffs(c: arb, n: int) -> list[arb]:
    """psi's Taylor coefficients at ``c > 0``: ``(k + 1) l_(k+1)`` from ``lgamma``'s."""
    ls = _taylor(c, n + 1, "lgamma")
    return [ls[k + 1] * (k + 1) for k in range(n)]


def _inverse_coeffs(name: str, c: arb, n: int) -> list[arb]:
    """erfinv (erfcinv) at ``c``: reversion of ``u -> erf(y0 + u) - erf(y0)`` (erfc), whose
    coefficients enclose those at every point of ``y0``; ``y0`` encloses the inverse's
    value at every point of ``c``."""
    y0 = c.erfinv() if name == "erfinv" else c.erfcinv()
    if not c.is_exact():
        y0 = _monotone(c, arb.erfinv if name == "erfinv" else arb.erfcinv)
    if n == 1:
        return [y0]
    es = _taylor(y0, n, "erf" if name == "erfinv" else "erfc")
    es[0] = arb(0)
    if not (es[1] > 0 or es[1] < 0):
        raise Indeterminate()
    rev: list[arb] = arb_series(es, prec=n).reversion().coeffs()[:n]
    rev = rev + [arb(0)] * (n - len(rev))
    rev[0] = y0
    return rev


def _bessel_coeffs(name: str, order: fmpq, c: arb, n: int) -> list[arb]:
    """``C^(k)(c) / k!``, ``k < n``, from the binomial sums of orders ``v - k .. v + k``."""
    vals = [_bessel_value(name, arb(order + m), c) for m in range(-(n - 1), n)]
    out = []
    for k in range(n):
        total = arb(0)
        for j in range(k + 1):
            sign = -1 if name in ("besselj", "bessely") and j % 2 else 1
            total += sign * comb(k, j) * vals[n - 1 - k + 2 * j]
        if name == "besselk" and k % 2:
            total = -total
        out.append(total / (factorial(k) * 2**k))
    return out


def special_series(name: str, s: arb_series) -> arb_series:
    """``name(s)`` for a series ``s`` whose constant term is a ball where ``name`` is
    analytic (Indeterminate when it may not be, Undefined outside the domain)."""
    base, order = split_name(name)
    c, n = _c0(s), s.prec
    if order is not None:
        _bessel_domain(base, order, c, True)
        return _compose(s, _bessel_coeffs(base, order, c, n))
    if base in ("gamma", "lgamma", "digamma"):
        _gamma_domain(c)
        if base == "gamma":
            return s.gamma()
        if c > 0:
            return s.lgamma() if base == "lgamma" else _compose(s, _digamma_coeffs(c, n))
        # reflection below 0 (no integer in c)
        if base == "digamma":
            return special_series("digamma", 1 - s) - arb.pi() * s.cot_pi()
        sp = s.sin_pi()
        if _c0(sp) < 0:
            sp = -sp
        return arb.pi().log() - sp.log() - (1 - s).lgamma()
    if base == "rgamma":
        return s.rgamma()
    if base == "cbrt":
        if c > 0:
            return (s.log() / 3).exp()
        if c < 0:
            return -((-s).log() / 3).exp()
        raise Indeterminate()
    if base == "asinh":
        return -special_series("asinh", -s) if c < 0 else (s + (s * s + 1).sqrt()).log()
    if base == "acosh":
        if c < 1:
            raise Undefined()
        if not c > 1:
            raise Indeterminate()
        return (s + (s * s - 1).sqrt()).log()
    if base == "atanh":
        _in_open(c, -1, 1)
        return ((1 + s).log() - (1 - s).log()) / 2
    if base in ("erfinv", "erfcinv"):
        _in_open(c, -1 if base == "erfinv" else 0, 1 if base == "erfinv" else 2)
        return _compose(s, _inverse_coeffs(base, c, n))
    if base == "zeta":
        if c.is_exact() and c == 1:
            raise Undefined()
        if c.contains(1):
            raise Indeterminate()
        return s.zeta()
    if base in ("airyai", "airybi"):
        return s.airy_ai() if base == "airyai" else s.airy_bi()
    w = _neg_e()
    if c < w:
        raise Undefined()
    if not c > w:
        raise Indeterminate()
    return s.lambertw()


def hypot_ball(a: arb, b: arb) -> arb:
    """``sqrt(a^2 + b^2)`` on balls: increasing in ``|a|`` and ``|b|``."""
    def at(x: arb, y: arb) -> arb:
        q = x * x + y * y
        return arb(0) if q.is_zero() else q.sqrt()
    return at(a.abs_lower(), b.abs_lower()).union(at(a.abs_upper(), b.abs_upper()))
