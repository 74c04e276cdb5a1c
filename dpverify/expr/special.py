"""The special functions of :mod:`dpverify.expr` in ball arithmetic: Arb's rigorous
``gamma``, ``lgamma`` (``log |gamma|``), ``rgamma``, ``digamma``, the Bessel functions
``besselj``/``bessely``/``besseli``/``besselk`` of an exact real order, ``cbrt``,
``asinh``/``acosh``/``atanh``, ``hypot``, ``zeta``, ``erfinv``/``erfcinv``,
``airyai``/``airybi`` and ``lambertw`` (principal branch), on ``arb`` balls (interval
enclosures) and on ``arb_series`` (Taylor series, for the jets and the piece models).

Domains (real analysis, as for the elementary functions): a pole or a point outside the
real domain raises :class:`~dpverify.expr.Undefined` with a one-line message naming the
point when the argument is exact or its whole ball lies outside (``gamma`` at ``-2``,
``zeta`` at 1, ``atanh`` at ``+-1``, ``erfinv`` outside ``(-1, 1)``, ``lambertw`` below
``-1/e``, ``bessely`` at ``x <= 0``, a non-integer order at ``x < 0``); a ball that
straddles such a point gives a non-finite ball (no information); a series whose constant
term meets it raises :class:`~dpverify.expr.NotAnalytic`.

Series where Arb has none (derived here, and said so):

* ``digamma``: the derivative of Arb's ``lgamma`` series for ``x > 0``, and the
  reflection ``psi(x) = psi(1 - x) - pi cot(pi x)`` for ``x < 0``;
* ``lgamma`` for ``x < 0``: ``log|gamma(x)| = log pi - log|sin(pi x)| - lgamma(1 - x)``;
* the Bessel functions: at an exact point ``|c| >= 4``, the Taylor recurrence of Bessel's
  equation from ``C_v(c)`` and ``C_v'(c)``; elsewhere (balls, small ``c``)
  ``C_v^(k) = 2^-k sum_j (-1)^j binom(k, j) C_(v-k+2j)`` for
  ``C = J, Y`` (from ``C_v' = (C_(v-1) - C_(v+1)) / 2``), the same without the signs for
  ``I`` (``I_v' = (I_(v-1) + I_(v+1)) / 2``) and with ``(-1)^k`` for ``K``
  (``K_v' = -(K_(v-1) + K_(v+1)) / 2``): ``2k + 1`` values of Arb's Bessel functions give
  the Taylor coefficients to order ``k``, with no division by ``x`` (``J_n`` and ``I_n``
  of integer order are entire, ``x = 0`` included);
* ``erfinv``/``erfcinv``: the ODE ``y' = +-(sqrt(pi)/2) exp(y^2)``, solved by Picard
  iteration on series from Arb's ``erfinv``/``erfcinv`` value (each iteration fixes one
  more coefficient: exact after ``n`` steps);
* ``cbrt``, ``asinh``, ``acosh``, ``atanh``, ``hypot``: compositions of ``exp``, ``log``,
  ``sqrt`` on series.

A univariate expansion at the constant term ``c`` of a series ``s`` is composed with
``s - c`` (Horner): the coefficients enclose the true ones for every point of ``c``, so
the result encloses ``f(s)`` (inclusion-monotone ball arithmetic).  Arb's enclosures of
``gamma`` or the Bessel functions on a *wide* ball are loose (``besselj(0, x)`` on
``[7.15, 7.35]``: ``[+/- 8.23]``): there the coefficients are *recentred*, the expansion at
the exact midpoint carried over the ball by Taylor's theorem, with Arb's loose ball only
in the remainder eight orders further (:func:`_recentre`).

Guarantee
---------
Every ball returned contains the value of the function at every point of the argument
ball (each coefficient of a series the true Taylor coefficient), by Arb's rigorous
functions and exact identities; ``Undefined`` is raised only where the function is proven
undefined at every point of the ball.
"""

from __future__ import annotations

import math
from typing import Any

from flint import arb, arb_series, fmpq

from .tree import NotAnalytic, Undefined

__all__ = ["special_ball", "special_order_ball", "hypot_ball", "compose_series",
           "POLE_FUNCTIONS", "ENTIRE_SPECIAL"]

#: functions with poles at the non-positive integers (``lgamma``: its log singularities)
POLE_FUNCTIONS = ("gamma", "lgamma", "digamma")
#: special functions analytic on the whole real line
ENTIRE_SPECIAL = ("rgamma", "asinh", "airyai", "airybi")


def _c0(v: Any) -> arb:
    if isinstance(v, arb_series):
        cs = v.coeffs()
        return cs[0] if cs else arb(0)
    return v


def _text(c: arb) -> str:
    """A short text of a ball or exact point for messages."""
    if c.is_exact():
        q = c.fmpq() if c.mid().is_finite() and c.rad().is_zero() else None
        if q is not None and int(q.p).bit_length() + int(q.q).bit_length() < 200:
            return str(q)
    return c.str(10, radius=False)


def _exact_int(c: arb) -> int | None:
    """The integer ``c`` is, when it is an exact integer ball."""
    u = c.unique_fmpz() if c.is_exact() and c.is_integer() else None
    return None if u is None else int(u)


def _meets_pole(c: arb) -> bool:
    """Whether the ball may contain a non-positive integer."""
    return not c > 0 and c.contains_integer()


def compose_series(s: arb_series, cs: list[arb]) -> arb_series:
    """``sum_k cs[k] (s - s_0)^k`` (Horner; ``s_0`` the constant term of ``s``), truncated
    like ``s``: the composition of the power series ``cs`` (expanded at ``s_0``) with
    ``s``; ``s - s_0`` has the constant term exactly 0 (subtracting the ball ``s_0`` from
    itself would leave a ball of twice its radius, and every coefficient would pay)."""
    cs_s = s.coeffs()
    u = arb_series([arb(0)] + cs_s[1:], prec=s.prec)
    out = arb_series([cs[-1]], prec=s.prec)
    for c in reversed(cs[:-1]):
        out = out * u + c
    return out


def _expansion(c: arb, n: int, fn: Any) -> arb_series:
    """Arb's series function ``fn`` of ``c + t`` to ``n`` terms."""
    return fn(arb_series([c, 1], prec=n))


def _coeffs(s: arb_series, n: int) -> list[arb]:
    cs = s.coeffs()[:n]
    return cs + [arb(0)] * (n - len(cs))


# ------------------------------------------------------------------ gamma family


def _pole_check(name: str, v: Any) -> None:
    c = _c0(v)
    k = _exact_int(c)
    if k is not None and k <= 0:
        raise Undefined(f"{name} has a pole at {k}")
    if isinstance(v, arb_series) and _meets_pole(c):
        raise NotAnalytic(f"{name} has a pole in the ball {_text(c)}")


def _gamma(v: Any) -> Any:
    _pole_check("gamma", v)
    if isinstance(v, arb) and _meets_pole(v):
        return arb.nan()
    return v.gamma()


def _lgamma(v: Any) -> Any:
    """``log |gamma(v)|``: Arb's ``lgamma`` for ``v > 0``, the reflection below 0."""
    _pole_check("lgamma", v)
    c = _c0(v)
    if c > 0:
        return v.lgamma()
    if _meets_pole(c):
        return arb.nan()
    s = v.sin_pi()
    if _c0(s) < 0:
        s = -s
    return arb.pi().log() - s.log() - (1 - v).lgamma()


def _digamma(v: Any) -> Any:
    _pole_check("digamma", v)
    c = _c0(v)
    if isinstance(v, arb):
        return arb.nan() if _meets_pole(v) else v.digamma()
    n = v.prec
    if c > 0:
        d = _expansion(c, n + 1, arb_series.lgamma).derivative()
        return compose_series(v, _coeffs(d, n))
    # psi(x) = psi(1 - x) - pi cot(pi x) (c < 0, no integer in the ball)
    return _digamma(1 - v) - arb.pi() * v.cot_pi()


def _rgamma(v: Any) -> Any:
    return v.rgamma()


# ------------------------------------------------------------------ Bessel functions


def _order_text(order: fmpq) -> str:
    return str(order)


def _bessel_domain(name: str, order: fmpq, v: Any) -> None:
    """Raise where ``name`` of ``order`` is undefined (or not analytic, on series)."""
    c = _c0(v)
    integer = order.q == 1
    entire = integer and name in ("besselj", "besseli")
    if entire:
        return
    # bessely/besselk: x > 0; besselj/besseli of a non-integer order: x >= 0 (x = 0 only
    # for a positive order, where the value is 0 and the function is not analytic)
    zero_ok = name in ("besselj", "besseli") and order > 0
    label = f"{name}({_order_text(order)}, x)"
    if c < 0 or (c.is_zero() and not zero_ok):
        at = "x = 0" if c.is_zero() else f"x = {_text(c)} < 0"
        kind = "has a singularity at" if c.is_zero() else "is undefined (complex) at"
        raise Undefined(f"{label} {kind} {at}")
    if isinstance(v, arb_series) and not c > 0:
        raise NotAnalytic(f"{label} is not analytic at 0, which the ball {_text(c)} contains")


def _bessel_point(name: str, nu: arb, x: arb) -> arb:
    if name == "besselj":
        return x.bessel_j(nu)
    if name == "bessely":
        return x.bessel_y(nu)
    if name == "besseli":
        return x.bessel_i(nu)
    return x.bessel_k(nu)


def _bessel(name: str, order: fmpq, v: Any) -> Any:
    _bessel_domain(name, order, v)
    if isinstance(v, arb):
        if v.is_zero():   # J_v(0), I_v(0): 1 for v = 0, else 0 (v > 0 or an integer)
            return arb(1) if order == 0 else arb(0)
        return _bessel_point(name, arb(order), v)
    c = _c0(v)
    n = v.prec
    if c.rad().is_zero() and abs(c) >= 4 and n > 3:
        return compose_series(v, _bessel_ode(name, order, c, n))
    values = {m: _bessel_point(name, arb(order + m), c) for m in range(-n + 1, n)}
    out = []
    for k in range(n):
        acc = arb(0)
        for j in range(k + 1):
            term = values[-k + 2 * j] * math.comb(k, j)
            acc = acc - term if (name in ("besselj", "bessely") and j % 2) else acc + term
        if name == "besselk" and k % 2:
            acc = -acc
        out.append(acc / (arb(2) ** k * math.factorial(k)))
    return compose_series(v, out)


def _bessel_ode(name: str, order: fmpq, c: arb, n: int) -> list[arb]:
    """Taylor coefficients at an exact point ``c`` (``|c| >= 4``) from the Bessel equation
    ``x^2 y'' + x y' + (s x^2 - v^2) y = 0`` (``s = 1`` for J, Y; ``-1`` for I, K):
    ``a_(k+2) = -(c (k+1)(2k+1) a_(k+1) + (k^2 + s c^2 - v^2) a_k + 2 s c a_(k-1)
    + s a_(k-2)) / (c^2 (k+1)(k+2))``, from ``a_0 = C_v(c)`` and ``a_1 = C_v'(c)`` (three
    Bessel values instead of ``2n - 1``; the recurrence loses at most a bit per step at
    ``|c| >= 4``, which the balls account for)."""
    nu = arb(order)
    s = 1 if name in ("besselj", "bessely") else -1
    a0 = _bessel_point(name, nu, c)
    lo, hi = _bessel_point(name, nu - 1, c), _bessel_point(name, nu + 1, c)
    a1 = {"besselj": (lo - hi) / 2, "bessely": (lo - hi) / 2, "besseli": (lo + hi) / 2,
          "besselk": -(lo + hi) / 2}[name]
    a = [a0, a1]
    c2, zero = c * c, arb(0)
    for k in range(n - 2):
        am1 = a[k - 1] if k >= 1 else zero
        am2 = a[k - 2] if k >= 2 else zero
        num = c * ((k + 1) * (2 * k + 1)) * a[k + 1] + (k * k + s * c2 - nu * nu) * a[k] \
            + 2 * s * c * am1 + s * am2
        a.append(-num / (c2 * ((k + 1) * (k + 2))))
    return a[:n]


# ------------------------------------------------------------------ elementary inverses


def _cbrt_point(t: arb) -> arb:
    if t.is_zero():
        return arb(0)
    return t.root(3) if t > 0 else -((-t).root(3))


def _cbrt(v: Any) -> Any:
    c = _c0(v)
    if isinstance(v, arb_series):
        if c > 0:
            return (v.log() / 3).exp()
        if c < 0:
            return -((-v).log() / 3).exp()
        raise NotAnalytic(f"cbrt is not analytic at 0, which the ball {_text(c)} contains")
    if not v.is_finite():
        return arb.nan()
    return _cbrt_point(v.lower()).union(_cbrt_point(v.upper()))   # increasing


def _ends(v: arb, fn: Any) -> arb:
    """An increasing ``fn`` on the ball ``v``: the union of its ends' enclosures (tight on
    wide balls)."""
    if v.is_exact():
        return fn(v)
    return fn(v.lower()).union(fn(v.upper()))


def _asinh(v: Any) -> Any:
    if isinstance(v, arb):
        return _ends(v, arb.asinh) if v.is_finite() else arb.nan()
    if _c0(v) < 0:
        return -_asinh(-v)
    return (v + (v * v + 1).sqrt()).log()


def _acosh(v: Any) -> Any:
    c = _c0(v)
    if c < 1:
        raise Undefined(f"acosh is undefined at x = {_text(c)} < 1")
    if isinstance(v, arb):
        return _ends(v, arb.acosh) if c >= 1 and v.is_finite() else arb.nan()
    if not c > 1:
        raise NotAnalytic(f"acosh is not analytic at 1, which the ball {_text(c)} contains")
    return (v + (v * v - 1).sqrt()).log()


def _atanh(v: Any) -> Any:
    c = _c0(v)
    if c >= 1 or c <= -1:
        raise Undefined(f"atanh has a pole at x = {_text(c)}" if abs(c) == 1 else
                        f"atanh is undefined at x = {_text(c)} (|x| > 1)")
    if not (c > -1 and c < 1):
        if isinstance(v, arb_series):
            raise NotAnalytic(f"atanh has a pole at +-1, which the ball {_text(c)} meets")
        return arb.nan()
    if isinstance(v, arb):
        return _ends(v, arb.atanh)
    return ((1 + v).log() - (1 - v).log()) / 2


def _zeta(v: Any) -> Any:
    c = _c0(v)
    if c.is_exact() and c == 1:
        raise Undefined("zeta has a pole at 1")
    if c.contains(1):
        if isinstance(v, arb_series):
            raise NotAnalytic(f"zeta has a pole at 1, which the ball {_text(c)} contains")
        return arb.nan()
    return v.zeta()


def _inverse_erf(name: str, v: Any) -> Any:
    """``erfinv`` on ``(-1, 1)``, ``erfcinv`` on ``(0, 2)``: increasing / decreasing, so
    a ball's enclosure is the union of its ends'; series by Picard iteration of the ODE
    (module docstring)."""
    c = _c0(v)
    lo, hi = (-1, 1) if name == "erfinv" else (0, 2)
    if c <= lo or c >= hi:
        end = (c.is_exact() and (c == lo or c == hi))
        raise Undefined(f"{name} has a pole at x = {_text(c)}" if end else
                        f"{name} is undefined at x = {_text(c)} (outside ({lo}, {hi}))")
    if not (c > lo and c < hi):
        if isinstance(v, arb_series):
            raise NotAnalytic(f"{name} has poles at {lo} and {hi}; the ball {_text(c)} "
                              "meets one")
        return arb.nan()

    def point(t: arb) -> arb:
        return t.erfinv() if name == "erfinv" else t.erfcinv()

    if isinstance(v, arb):
        return _ends(v, point)
    n = v.prec
    y0 = point(c)
    k = arb.pi().sqrt() / 2
    if name == "erfcinv":
        k = -k
    y = arb_series([y0], prec=n)
    for _ in range(n):
        y = (k * (y * y).exp()).integral() + y0
    return compose_series(v, _coeffs(y, n))


def _lambertw(v: Any) -> Any:
    c = _c0(v)
    branch = -arb(-1).exp()   # -1/e
    if c < branch:
        raise Undefined(f"lambertw is undefined at x = {_text(c)} < -1/e")
    if isinstance(v, arb_series):
        if not c > branch:
            raise NotAnalytic(f"lambertw is not analytic at -1/e, which the ball "
                              f"{_text(c)} meets")
        return v.lambertw()
    if not v.is_finite() or not c > branch:
        return arb.nan()
    return _ends(v, arb.lambertw)   # increasing


def _airy(name: str, v: Any) -> Any:
    return v.airy_ai() if name == "airyai" else v.airy_bi()


_UNARY = {
    "gamma": _gamma, "lgamma": _lgamma, "rgamma": _rgamma, "digamma": _digamma,
    "cbrt": _cbrt, "asinh": _asinh, "acosh": _acosh, "atanh": _atanh, "zeta": _zeta,
    "lambertw": _lambertw,
}  # fmt: skip


#: functions (besides the Bessel functions) whose Arb enclosures on wide balls are loose
#: (on ``[7.15, 7.35]``: ``digamma`` ``[2e+0 +/- 0.301]`` for ``[1.896, 1.926]``,
#: ``besselj(0, .)`` ``[+/- 8.23]``): recentred; gamma, lgamma, zeta, airyai and lambertw
#: are tight enough there (measured: recentring them costs more than it gains)
_RECENTRED = ("rgamma", "digamma", "airybi")
#: terms of the expansion at the midpoint in a recentred enclosure
_RECENTRE_TERMS = 8


def _plain(name: str, order: fmpq | None, v: Any) -> Any:
    if order is not None:
        return _bessel(name, order, v)
    if name in ("erfinv", "erfcinv"):
        return _inverse_erf(name, v)
    if name in ("airyai", "airybi"):
        return _airy(name, v)
    return _UNARY[name](v)


def _recentre(name: str, order: fmpq | None, c: arb, n: int) -> list[arb] | None:
    """Enclosures of the first ``n`` Taylor coefficients of ``name`` over the wide ball
    ``c = m +- r`` from its expansion at the exact midpoint ``m`` (tight) and the loose
    ball coefficients of orders ``K`` further: by Taylor's theorem for ``f^(j)``,
    ``a_j(m + t) = sum_(i<K) binom(j+i, i) a_(j+i)(m) t^i + binom(j+K, K) a_(j+K)(xi) t^K``,
    ``xi`` in ``c``, ``|t| <= r``.  None where either expansion does not exist."""
    K = _RECENTRE_TERMS
    N = n + K
    try:
        A = _coeffs(_plain(name, order, arb_series([arb(c.mid()), 1], prec=N)), N)
        B = _coeffs(_plain(name, order, arb_series([c, 1], prec=N)), N)
    except (NotAnalytic, Undefined):
        return None
    if not all(a.is_finite() for a in A) or not all(b.is_finite() for b in B[K:]):
        return None
    T = arb(0, c.rad())
    out = []
    for j in range(n):
        acc, power = arb(0), arb(1)
        for i in range(K):
            acc += math.comb(j + i, i) * A[j + i] * power
            power = power * T
        out.append(acc + math.comb(j + K, K) * B[j + K] * power)
    return out


def _wide(c: arb) -> bool:
    return c.is_finite() and not c.rad().is_zero() and c.rad() > abs(c.mid()) * 2.0 ** -30


def _special(name: str, order: fmpq | None, v: Any) -> Any:
    """``name`` at ``v``, recentred on wide balls (:func:`_recentre`) where Arb's own
    enclosures are loose, intersected with the plain enclosure (both contain the value)."""
    c = _c0(v)
    if (order is not None or name in _RECENTRED) and _wide(c):
        n = v.prec if isinstance(v, arb_series) else 1
        cs = _recentre(name, order, c, n)
        if cs is not None:
            if isinstance(v, arb):
                plain = _plain(name, order, v)
                return cs[0].intersection(plain) if plain.is_finite() and \
                    plain.overlaps(cs[0]) else cs[0]
            return compose_series(v, cs)
    return _plain(name, order, v)


def special_ball(name: str, v: Any) -> Any:
    """``name(v)`` for a one-argument special function, ``v`` an ``arb`` or
    ``arb_series`` (module docstring)."""
    return _special(name, None, v)


def special_order_ball(name: str, order: fmpq, v: Any) -> Any:
    """A Bessel function ``name`` of the exact real ``order`` at ``v`` (``arb`` or
    ``arb_series``)."""
    return _special(name, order, v)


def hypot_ball(a: Any, b: Any) -> Any:
    """``sqrt(a^2 + b^2)``: on balls from the ends of ``|a|`` and ``|b|`` (increasing in
    each), on series where ``a^2 + b^2`` is positive at the constant terms."""
    if isinstance(a, arb_series) or isinstance(b, arb_series):
        prec = min(s.prec for s in (a, b) if isinstance(s, arb_series))
        sa = a if isinstance(a, arb_series) else arb_series([a], prec=prec)
        sb = b if isinstance(b, arb_series) else arb_series([b], prec=prec)
        q = sa * sa + sb * sb
        if not _c0(q) > 0:
            raise NotAnalytic(f"hypot is not analytic where both arguments vanish "
                              f"({_text(_c0(sa))}, {_text(_c0(sb))})")
        return q.sqrt()
    if not (a.is_finite() and b.is_finite()):
        return arb.nan()

    def at(x: arb, y: arb) -> arb:
        s = x * x + y * y
        return arb(0) if s.is_zero() else s.sqrt()

    return at(a.abs_lower(), b.abs_lower()).union(at(a.abs_upper(), b.abs_upper()))
