"""Points of an interval where a one-variable expression may fail to be analytic.

The analytic functions of the language (``exp``, ``sin``, ``erf``, ...) are entire or
analytic on the real line; analyticity of ``f`` can only fail where an argument ``u`` of

* ``abs(u)`` is 0, or two arguments of ``min``/``max`` tie (a *kink*: ``f`` is
  continuous with a corner);
* ``sqrt(u)``, ``log(u)``, ``u ^ c`` (``c`` not a non-negative integer) is 0,
  ``log1p(u)`` is -1, ``asin(u)``/``acos(u)`` is +-1 (a *singular* point: an end of the
  domain of the function, with an unbounded derivative or an unbounded value);
* a divisor ``u`` is 0 (a *pole*).

* ``tan(u)`` has a pole where ``cos(u)`` is 0; ``gamma(u)``, ``lgamma(u)`` and
  ``digamma(u)`` where ``u`` is a non-positive integer (found as the zeros of
  ``rgamma(u)``), ``zeta(u)`` at ``u = 1``, ``atanh(u)`` and ``erfinv(u)`` at ``u = +-1``,
  ``erfcinv(u)`` at ``u = 0, 2``;
* ``cbrt(u)``, ``bessely(n, u)``, ``besselk(n, u)`` (and ``besselj``/``besseli`` of a
  non-integer order) are singular at ``u = 0``, ``acosh(u)`` at ``u = 1``,
  ``lambertw(u)`` at ``u = -1/e``; ``hypot(u, v)`` has a kink where ``u^2 + v^2 = 0``.

:func:`breakpoints` finds the points of ``[a, b]`` where that happens.  When ``u`` is a
polynomial with rational coefficients the rational roots come out exactly (``1/3`` for
``abs(x - 1/3)``), the irrational ones as dyadic approximations (from FLINT's certified
complex root isolation); otherwise ``u`` is sampled in mpmath and sign changes are refined
by bisection, which can miss a zero without a sign change.  The result is a *hint*: the
Remez search samples the error densely there and the certifiers cut the interval there,
but soundness never depends on it (a piece that contains a missed kink is bounded by
interval evaluation like any other).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import mpmath
from flint import fmpq, fmpq_poly

from ..errors import DomainError
from .expression import Expr
from .tree import Node, canonical_text, is_int, is_polynomial_node, make_node, num_node

__all__ = ["Breakpoint", "breakpoints", "as_polynomial", "MAX_BREAKPOINTS"]

#: at most this many points are returned (``abs(sin(1000 x))`` has hundreds)
MAX_BREAKPOINTS = 2000
#: degree limit of the exact polynomial form of an argument
_MAX_POLY_DEGREE = 256
#: samples of a non-polynomial argument on the interval
_SAMPLES = 1024
#: kinds, strongest first
_KIND_RANK = ("pole", "singular", "kink")
#: bisection steps for a sign change of a non-polynomial argument
_BISECT = 80


@dataclass(frozen=True, order=True)
class Breakpoint:
    """``x`` (exact when ``exact``, else a dyadic approximation within about 2^-60 of the
    interval) and the kind: ``"kink"``, ``"singular"`` or ``"pole"``."""

    x: fmpq
    exact: bool
    kind: str


def _critical(node: Node) -> list[tuple[Node | tuple[Node, Node], int, str]]:
    """``(u, c, kind)``: ``f`` may fail to be analytic where ``u = c`` (``u`` a pair
    ``(v, w)`` means ``v - w``)."""
    out: list[tuple[Node | tuple[Node, Node], int, str]] = []

    def zero_set(u: Node) -> Node:
        # abs(v), -v, sqrt(v) and v^k (k a positive integer) vanish exactly where v does
        while True:
            if u.kind == "call" and u.args[0] in ("abs", "sqrt"):
                u = u.args[1]
            elif u.kind == "neg":
                u = u.args[0]
            elif u.kind == "pow" and u.args[1].kind == "num" and u.args[1].args[0] > 0:
                u = u.args[0]
            else:
                return u

    stack = [node]
    while stack:
        nd = stack.pop()
        k = nd.kind
        if nd.constant:
            continue
        if k == "call":
            name, arg = nd.args
            if name == "abs":
                out.append((zero_set(arg), 0, "kink"))
            elif name in ("sqrt", "log"):
                out.append((zero_set(arg), 0, "singular"))
            elif name == "log1p":
                out.append((arg, -1, "singular"))
            elif name in ("asin", "acos"):
                out += [(arg, 1, "singular"), (arg, -1, "singular")]
            elif name == "tan":
                out.append((make_node("call", ("cos", arg), [arg]), 0, "pole"))
            else:
                out += _special_critical(name, arg)
            stack.append(arg)
        elif k == "callp":
            name, order, arg = nd.args
            if not (order.q == 1 and name in ("besselj", "besseli")):
                out.append((arg, 0, "singular"))
            stack.append(arg)
        elif k == "call2":
            a, b = nd.args[1]
            two = num_node(fmpq(2))
            squares = make_node("sum", ((1, make_node("pow", (a, two), [a, two])),
                                        (1, make_node("pow", (b, two), [b, two]))), [a, b])
            out.append((squares, 0, "kink"))
            stack.extend([a, b])
        elif k == "minmax":
            args = nd.args[1]
            for i in range(len(args)):
                for j in range(i + 1, len(args)):
                    out.append(((args[i], args[j]), 0, "kink"))
            stack.extend(args)
        elif k == "pow":
            base, ex = nd.args
            if not (ex.kind == "num" and is_int(ex.args[0]) and ex.args[0] >= 0):
                out.append((zero_set(base), 0, "pole" if ex.kind == "num" and is_int(ex.args[0])
                            else "singular"))
            stack.extend([base, ex])
        elif k == "prod":
            for p, fac in nd.args:
                if p < 0:
                    out.append((zero_set(fac), 0, "pole"))
                stack.append(fac)
        elif k == "sum":
            stack.extend(t for _, t in nd.args)
        elif k == "neg":
            stack.append(nd.args[0])
    return out


def _special_critical(name: str, arg: Node) -> list[tuple[Node | tuple[Node, Node], int, str]]:
    """Where a one-argument special function of ``arg`` fails to be analytic."""
    if name in ("gamma", "lgamma", "digamma"):
        return [(make_node("call", ("rgamma", arg), [arg]), 0, "pole")]
    poles = {"zeta": (1,), "atanh": (1, -1), "erfinv": (1, -1), "erfcinv": (0, 2)}
    if name in poles:
        return [(arg, c, "pole") for c in poles[name]]
    if name in ("cbrt", "acosh"):
        return [(arg, 0 if name == "cbrt" else 1, "singular")]
    if name == "lambertw":   # -1/e
        e = Node("const", ("e",), 1, True)
        minus = make_node("neg", (make_node("prod", ((1, num_node(fmpq(1))), (-1, e)),
                                            [e]),), [e])
        return [((arg, minus), 0, "singular")]
    return []


def _as_poly(node: Node) -> fmpq_poly | None:
    """The exact polynomial of a polynomial node with rational constants (else None)."""
    k = node.kind
    if k == "num":
        return fmpq_poly([node.args[0]])
    if k == "var":
        return fmpq_poly([0, 1])
    if k == "neg":
        p = _as_poly(node.args[0])
        return None if p is None else -p
    if k == "sum":
        acc = fmpq_poly([])
        for s, t in node.args:
            q = _as_poly(t)
            if q is None:
                return None
            acc = acc + q if s > 0 else acc - q
        return acc
    if k == "prod":
        acc = fmpq_poly([1])
        for p, fac in node.args:
            q = _as_poly(fac)
            if q is None or (p < 0 and q.degree() > 0):
                return None
            acc = acc * q if p > 0 else acc / q[0]
            if acc.degree() > _MAX_POLY_DEGREE:
                return None
        return acc
    if k == "pow":
        base, ex = node.args
        q = _as_poly(base)
        if q is None or not (ex.kind == "num" and is_int(ex.args[0]) and ex.args[0] >= 0):
            return None
        e = int(ex.args[0].p)
        if q.degree() * e > _MAX_POLY_DEGREE:
            return None
        return q**e
    return None


def as_polynomial(f: Expr) -> fmpq_poly | None:
    """The exact polynomial of ``f`` when it is a polynomial in its (one) variable with
    rational constants and degree at most 256; otherwise None."""
    if len(f.used_variables) > 1 or not is_polynomial_node(f.tree):
        return None
    return _as_poly(f.tree)


def _dyadic(x: float | mpmath.mpf, bits: int = 64) -> fmpq:
    m, e = mpmath.frexp(mpmath.mpf(x))
    num = int(mpmath.nint(m * 2**bits))
    e = int(e) - bits
    return fmpq(num * 2**e) if e >= 0 else fmpq(num, 2 ** (-e))


def _poly_zeros(P: fmpq_poly, a: fmpq, b: fmpq) -> list[tuple[fmpq, bool]]:
    if P.degree() < 1:
        return []
    out: list[tuple[fmpq, bool]] = []
    for fac, _mult in P.factor()[1]:
        if fac.degree() == 1:
            r = -fmpq(fac[0]) / fmpq(fac[1])
            if a <= r <= b:
                out.append((r, True))
            continue
        # FLINT's isolation returns real roots with an exactly zero imaginary part
        roots: Any = fac.complex_roots()  # [(acb, multiplicity)] (the stub says list[acb])
        for z, _m in roots:
            if z.imag.is_zero():
                man, exp = z.real.mid().man_exp()
                m_, e_ = int(man), int(exp)
                x = fmpq(m_ * 2**e_) if e_ >= 0 else fmpq(m_, 2 ** (-e_))
                if a <= x <= b:
                    out.append((x, False))
    return out


def _numeric_zeros(u: Expr, c: int, a: fmpq, b: fmpq) -> list[tuple[fmpq, bool]]:
    out: list[tuple[fmpq, bool]] = []
    with mpmath.workdps(30):
        A, B = mpmath.mpf(int(a.p)) / int(a.q), mpmath.mpf(int(b.p)) / int(b.q)

        def g(t: mpmath.mpf) -> mpmath.mpf | None:
            try:
                v = u.eval_mpmath(t) - c
            except DomainError:
                return None
            return v if mpmath.isfinite(v) else None

        xs = [A + (B - A) * i / _SAMPLES for i in range(_SAMPLES + 1)]
        vs = [g(t) for t in xs]
        for i in range(_SAMPLES + 1):
            v = vs[i]
            if v is None:
                continue
            if v == 0:
                out.append((_dyadic(xs[i]), False))
                continue
            nxt = vs[i + 1] if i < _SAMPLES else None
            if nxt is None or nxt == 0 or (v > 0) == (nxt > 0):
                continue
            lo, hi, vlo = xs[i], xs[i + 1], v
            for _ in range(_BISECT):
                mid = (lo + hi) / 2
                vm = g(mid)
                if vm is None or vm == 0:
                    break
                if (vm > 0) == (vlo > 0):
                    lo, vlo = mid, vm
                else:
                    hi = mid
            out.append((_dyadic((lo + hi) / 2), False))
            if len(out) > MAX_BREAKPOINTS:
                break
    return out


def breakpoints(f: Expr, a: fmpq, b: fmpq) -> list[Breakpoint]:
    """Points of ``[a, b]`` where ``f`` (one variable) may fail to be analytic, sorted
    (module docstring).  ``a`` and ``b`` are listed when ``f`` is singular there."""
    a, b = fmpq(a), fmpq(b)
    var = f.variables[0] if f.variables else "x"
    found: dict[fmpq, Breakpoint] = {}
    for u, c, kind in _critical(f.tree):
        if isinstance(u, tuple):
            pu = _as_poly(u[0]), _as_poly(u[1])
            P = None if pu[0] is None or pu[1] is None else pu[0] - pu[1]
            target = _difference(u[0], u[1])
        else:
            P = _as_poly(u) if is_polynomial_node(u) else None
            target = u
        if P is not None:
            zeros = _poly_zeros(P - c, a, b)
        else:
            u_expr = Expr(canonical_text(target), (var,), target)
            zeros = [_snap(u_expr, c, x, exact) for x, exact in _numeric_zeros(u_expr, c, a, b)]
        for x, exact in zeros:
            old = found.get(x)
            if old is not None:  # the stronger kind, and exactness if either had it
                kind_x = min((old.kind, kind), key=_KIND_RANK.index)
                found[x] = Breakpoint(x, exact or old.exact, kind_x)
            else:
                found[x] = Breakpoint(x, exact, kind)
        if len(found) > MAX_BREAKPOINTS:
            break
    return sorted(found.values())[:MAX_BREAKPOINTS]


def _snap(u: Expr, c: int, x: fmpq, exact: bool) -> tuple[fmpq, bool]:
    """``x`` replaced by a nearby dyadic of at most 20 fractional bits where ``u`` equals
    ``c`` exactly there (the poles of ``gamma(2 x)`` at the half-integers come out
    exact)."""
    if exact:
        return x, exact
    near = fmpq(round(x * 2**20), 2**20)
    try:
        if abs(near - x) < fmpq(1, 2**40) and u.eval_exact(near) == c:
            return near, True
    except DomainError:
        pass
    return x, exact


def _difference(v: Node, w: Node) -> Node:
    return make_node("sum", ((1, v), (-1, w)), [v, w])
