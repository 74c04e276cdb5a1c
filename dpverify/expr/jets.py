"""Multivariate truncated Taylor arithmetic ("jets") over arb balls.

A :class:`Jet` in ``d`` variables of order ``N`` holds ball enclosures of the
Taylor coefficients ``c_alpha = d^alpha g / alpha!`` for all multi-indices with
``|alpha| <= N``.  Arithmetic truncates at total order ``N``; an elementary
function ``phi`` is applied by composition,
``phi(u0 + delta) = sum_k phi^(k)(u0)/k! delta^k`` (Horner in ``delta``), with the
univariate coefficients ``phi^(k)(u0)/k!`` from python-flint's ``arb_series``.

Guarantee
---------
Inclusion monotone: if each input coefficient ball contains the true Taylor
coefficient of the input function at a point ``xi`` (for every ``xi`` of a box
when the constant terms are box balls), every output coefficient contains the
true coefficient of the result at ``xi``.  Evaluating at constant terms equal
to a box therefore gives Lagrange-remainder enclosures over the box.
Non-analytic operations (``abs`` at 0, ``sqrt``/``log``/fractional powers at
or below 0, poles) raise :class:`~dpverify.expr.NotAnalytic`.

Used by the box certifier and by the independent checker (like
``dpverify.exact``, it is an arithmetic kernel, not a construction).
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from contextlib import contextmanager
from functools import lru_cache
from typing import Any

from flint import arb, arb_series, ctx

from ..errors import DomainError, PrecisionExhausted

__all__ = ["Jet", "jet_eval", "multi_indices", "series_cap", "series_coeffs"]


@contextmanager
def series_cap(n: int) -> Iterator[None]:
    """Raise ``flint.ctx.cap`` to at least ``n`` for the block.

    python-flint silently truncates every ``arb_series`` at ``ctx.cap`` terms
    (default 10); a Taylor coefficient beyond the cap would otherwise be read
    as an exact zero.  Use with :func:`series_coeffs`, which refuses a series
    that came back shorter than requested.
    """
    old = ctx.cap
    ctx.cap = max(old, n)
    try:
        yield
    finally:
        ctx.cap = old


def series_coeffs(s: arb_series, n: int) -> list[arb]:
    """The first ``n`` coefficients of ``s``; those past its stored length are
    exact zeros only because ``s.prec >= n`` is checked (else ``PrecisionExhausted``)."""
    if s.prec < n:
        raise PrecisionExhausted(
            f"power series truncated at {s.prec} terms where {n} were needed "
            "(python-flint ctx.cap); refusing to treat the missing terms as zero"
        )
    c = list(s.coeffs())
    return (c + [arb(0)] * n)[:n]


@lru_cache(maxsize=32)
def multi_indices(d: int, N: int) -> tuple[tuple[int, ...], ...]:
    """All alpha in N^d with |alpha| <= N, ordered by total degree."""
    out = [a for a in itertools.product(range(N + 1), repeat=d) if sum(a) <= N]
    out.sort(key=lambda a: (sum(a), tuple(-x for x in a)))
    return tuple(out)


@lru_cache(maxsize=32)
def _tables(d: int, N: int):
    idx = multi_indices(d, N)
    pos = {a: i for i, a in enumerate(idx)}
    pairs = []
    for i, a in enumerate(idx):
        for j, b in enumerate(idx):
            c = tuple(x + y for x, y in zip(a, b))
            k = pos.get(c)
            if k is not None:
                pairs.append((i, j, k))
    return idx, pos, tuple(pairs)


class Jet:
    """Truncated multivariate Taylor expansion with arb coefficients."""

    __slots__ = ("d", "N", "c")

    def __init__(self, d: int, N: int, coeffs: list[arb]):
        self.d, self.N, self.c = d, N, coeffs

    @classmethod
    def constant(cls, d: int, N: int, value: Any) -> Jet:
        c = [arb(0)] * len(multi_indices(d, N))
        c[0] = value if isinstance(value, arb) else arb(value)
        return cls(d, N, c)

    @classmethod
    def variable(cls, d: int, N: int, i: int, value: Any) -> Jet:
        """The coordinate x_i expanded at ``value`` (a point or a box ball)."""
        j = cls.constant(d, N, value)
        if N >= 1:
            _, pos, _ = _tables(d, N)
            e = tuple(1 if k == i else 0 for k in range(d))
            j.c = list(j.c)
            j.c[pos[e]] = arb(1)
        return j

    # -- arithmetic ----------------------------------------------------------
    def _lift(self, other: Any) -> Jet:
        if isinstance(other, Jet):
            return other
        return Jet.constant(self.d, self.N, other)

    def __add__(self, other: Any) -> Jet:
        o = self._lift(other)
        return Jet(self.d, self.N, [a + b for a, b in zip(self.c, o.c)])

    __radd__ = __add__

    def __neg__(self) -> Jet:
        return Jet(self.d, self.N, [-a for a in self.c])

    def __sub__(self, other: Any) -> Jet:
        return self + (-self._lift(other))

    def __rsub__(self, other: Any) -> Jet:
        return self._lift(other) - self

    def __mul__(self, other: Any) -> Jet:
        if not isinstance(other, Jet):
            s = other if isinstance(other, arb) else arb(other)
            return Jet(self.d, self.N, [a * s for a in self.c])
        _, _, pairs = _tables(self.d, self.N)
        out = [arb(0)] * len(self.c)
        a, b = self.c, other.c
        for i, j, k in pairs:
            if a[i].is_zero() or b[j].is_zero():
                continue
            out[k] += a[i] * b[j]
        return Jet(self.d, self.N, out)

    __rmul__ = __mul__

    def __truediv__(self, other: Any) -> Jet:
        if not isinstance(other, Jet):
            return self * (arb(1) / (other if isinstance(other, arb) else arb(other)))
        return self * other.compose(_inv)

    def __rtruediv__(self, other: Any) -> Jet:
        return self._lift(other) / self

    def ipow(self, n: int) -> Jet:
        if n < 0:
            return self.ipow(-n).compose(_inv)
        from . import arb_pow_point

        return arb_pow_point(self, n, one=Jet.constant(self.d, self.N, 1))

    @property
    def c0(self) -> arb:
        return self.c[0]

    def compose(self, phi) -> Jet:
        """phi(self) where ``phi`` maps an arb_series at c0 to its series."""
        with series_cap(self.N + 2):
            s = phi(arb_series([self.c0, 1], prec=self.N + 1))
        gs = series_coeffs(s, self.N + 1)
        delta = Jet(self.d, self.N, [arb(0)] + list(self.c[1:]))
        acc = Jet.constant(self.d, self.N, gs[self.N])
        for k in range(self.N - 1, -1, -1):
            acc = acc * delta + gs[k]
        return acc


def _not_analytic(msg: str):
    from . import NotAnalytic

    return NotAnalytic(msg)


def _inv(s):
    c = s.coeffs()[0]
    if not (c > 0 or c < 0):
        raise _not_analytic(f"division by a jet whose value {c} may vanish")
    return 1 / s


def _positive(name):
    def check(s):
        c = s.coeffs()[0]
        if not c > 0:
            raise _not_analytic(f"{name} is not analytic at {c}")
        return getattr(s, name)()

    return check


def _tan(s):
    if s.coeffs()[0].cos().contains(0):
        raise _not_analytic("tan has a pole in the ball")
    return s.tan()


def _unit(name):
    def f(s):
        c = s.coeffs()[0]
        if not (c > -1 and c < 1):
            raise _not_analytic(f"{name} is not analytic at +-1")
        return getattr(s, name)()

    return f


_FUNCS = {
    "exp": lambda s: s.exp(),
    "sin": lambda s: s.sin(),
    "cos": lambda s: s.cos(),
    "atan": lambda s: s.atan(),
    "erf": lambda s: s.erf(),
    "log": _positive("log"),
    "sqrt": _positive("sqrt"),
    "tan": _tan,
    "tanh": lambda s: 1 - 2 / ((2 * s).exp() + 1),
    "sinh": lambda s: (s.exp() - (-s).exp()) / 2,
    "cosh": lambda s: (s.exp() + (-s).exp()) / 2,
    "asin": _unit("asin"),
    "acos": _unit("acos"),
    "log1p": lambda s: _positive("log")(1 + s),
    "expm1": lambda s: s.exp() - 1,
}


def jet_eval(expr, args: list[Jet]) -> Jet:
    """Evaluate a :class:`dpverify.expr.Expr` on jets (one per variable)."""
    env = dict(zip(expr.variables, args))
    d, N = args[0].d, args[0].N
    return _ev(expr._root, env, d, N)


def _ev(node, env, d, N) -> Jet:
    k = node.kind
    if k == "num":
        return Jet.constant(d, N, arb(node.args[0]))
    if k == "const":
        return Jet.constant(d, N, arb.pi() if node.args[0] == "pi" else arb.const_e())
    if k == "var":
        return env[node.args[0]]
    if k == "sum":
        acc = None
        for s, t in node.args:
            v = _ev(t, env, d, N)
            acc = (v if s > 0 else -v) if acc is None else (acc + v if s > 0 else acc - v)
        return acc
    if k == "prod":
        acc = None
        for p, f in node.args:
            v = _ev(f, env, d, N)
            if p > 0:
                acc = v if acc is None else acc * v
            else:
                acc = (Jet.constant(d, N, 1) if acc is None else acc) / v
        return acc
    if k == "neg":
        return -_ev(node.args[0], env, d, N)
    if k == "pow":
        base_node, ex_node = node.args
        b = _ev(base_node, env, d, N)
        if ex_node.kind == "num" and ex_node.args[0].q == 1:
            return b.ipow(int(ex_node.args[0].p))
        if ex_node.constant:
            e = _ev(ex_node, env, d, N).c0

            def power(s, e=e):
                c = s.coeffs()[0]
                if not c > 0:
                    raise _not_analytic(f"non-integer power is not analytic at {c}")
                return (e * s.log()).exp()

            return b.compose(power)
        e = _ev(ex_node, env, d, N)
        return (e * b.compose(_positive("log"))).compose(lambda s: s.exp())
    if k == "call":
        fname, arg = node.args
        v = _ev(arg, env, d, N)
        if fname == "abs":
            c = v.c0
            if c > 0:
                return v
            if c < 0:
                return -v
            raise _not_analytic(f"abs is not analytic at 0, which the ball {c} contains")
        if fname not in _FUNCS:
            raise DomainError(f"function {fname!r} is not supported on jets")
        return v.compose(_FUNCS[fname])
    raise DomainError(f"unknown expression node {k!r}")
