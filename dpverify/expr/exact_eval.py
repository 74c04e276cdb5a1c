"""Exact rational evaluation of :mod:`dpverify.expr` trees (``fmpq``): the value
when exact rules decide it, else ``None``.
"""

from __future__ import annotations

import math

from flint import arb, fmpq, fmpz

from .tree import MAX_INT_EXPONENT, SPECIAL_FUNCTIONS, Node, Undefined, is_int

__all__ = ["exact_value"]


# --------------------------------------------------------------------------- exact evaluation


def _exact_root(q: fmpq, k: int) -> fmpq | None:
    """Exact k-th root of q >= 0 when it is rational, else None."""
    p, d = fmpz(q.p), fmpz(q.q)
    rp, rd = p.root(k), d.root(k)
    if rp**k == p and rd**k == d:
        return fmpq(rp, rd)
    return None


#: largest argument whose factorial is computed exactly (gamma at a positive integer)
_MAX_FACTORIAL = 10_000


def _special_exact(fname: str, v: fmpq) -> fmpq | None:
    """The special functions at rational points where the value is rational (or where
    they are undefined: Undefined, naming the point)."""
    integer = v.q == 1
    n = int(v.p) if integer else None
    if fname in ("gamma", "lgamma", "digamma", "rgamma") and n is not None and n <= 0:
        if fname == "rgamma":
            return fmpq(0)
        raise Undefined(f"{fname} has a pole at {n}")
    if fname in ("gamma", "rgamma") and n is not None and n <= _MAX_FACTORIAL:
        g = fmpq(math.factorial(n - 1))
        return g if fname == "gamma" else 1 / g
    if fname == "lgamma" and v in (1, 2):
        return fmpq(0)
    if fname == "cbrt":
        r = _exact_root(abs(v), 3)
        return None if r is None else (r if v >= 0 else -r)
    if fname in ("asinh", "atanh", "erfinv", "lambertw") and v == 0:
        return fmpq(0)
    if fname == "acosh":
        if v < 1:
            raise Undefined(f"acosh is undefined at {v} < 1")
        return fmpq(0) if v == 1 else None
    if fname in ("atanh", "erfinv") and abs(v) >= 1:
        raise Undefined(f"{fname} has a pole at {v}" if abs(v) == 1 else
                        f"{fname} is undefined at {v} (|x| > 1)")
    if fname == "erfcinv":
        if v <= 0 or v >= 2:
            raise Undefined(f"erfcinv has a pole at {v}" if v in (0, 2) else
                            f"erfcinv is undefined at {v} (outside (0, 2))")
        return fmpq(0) if v == 1 else None
    if fname == "zeta" and n is not None:
        return _zeta_exact(n)
    if fname == "lambertw" and arb(v) < -arb(-1).exp():   # rigorous comparison
        raise Undefined(f"lambertw is undefined at {v} < -1/e")
    return None


def _zeta_exact(n: int) -> fmpq | None:
    """zeta at an integer ``n <= 0``: ``-1/2`` at 0, ``0`` at the negative even integers,
    ``-B_(1-n)/(1-n)`` at the negative odd ones; a pole at 1."""
    if n == 1:
        raise Undefined("zeta has a pole at 1")
    if n > 0 or n < -MAX_INT_EXPONENT:
        return None
    if n == 0:
        return fmpq(-1, 2)
    if n % 2 == 0:
        return fmpq(0)
    return -fmpq.bernoulli(1 - n) / (1 - n)


def _bessel_exact(fname: str, order: fmpq, v: fmpq) -> fmpq | None:
    """Bessel functions where exact: at 0 (``J_0 = I_0 = 1``, else 0 where defined), and
    Undefined outside the real domain (module :mod:`.special`)."""
    integer = order.q == 1
    entire = integer and fname in ("besselj", "besseli")
    if not entire:
        if v < 0:
            raise Undefined(f"{fname}({order}, x) is undefined (complex) at x = {v} < 0")
        if v == 0 and not (fname in ("besselj", "besseli") and order > 0):
            raise Undefined(f"{fname}({order}, x) has a singularity at x = 0")
    if v == 0:
        return fmpq(1) if order == 0 else fmpq(0)
    return None


def exact_value(node: Node, env: dict[str, fmpq]) -> fmpq | None:
    k = node.kind
    if k == "num":
        return node.args[0]
    if k == "const":
        return None
    if k == "var":
        return env[node.args[0]]
    if k == "sum":
        # every term first: a term outside its domain raises even when another is unknown
        vals = [(s, exact_value(t, env)) for s, t in node.args]
        known = [(s, v) for s, v in vals if v is not None]
        if len(known) != len(vals):
            return None
        total = fmpq(0)
        for s, w in known:
            total = total + w if s > 0 else total - w
        return total
    if k == "prod":
        vals = [(p, exact_value(f, env)) for p, f in node.args]
        for p, v in vals:
            if p < 0 and v is not None and v == 0:
                raise Undefined("division by zero")
        known = [(p, v) for p, v in vals if v is not None]
        if len(known) != len(vals):
            return None
        total = fmpq(1)
        for p, w in known:
            total = total * w if p > 0 else total / w
        return total
    if k == "neg":
        v = exact_value(node.args[0], env)
        return None if v is None else -v
    if k == "pow":
        b = exact_value(node.args[0], env)
        a = exact_value(node.args[1], env)
        if b is None or a is None:
            return None
        if is_int(a):
            n = int(a.p)
            if b == 0 and n < 0:
                raise Undefined("division by zero (0 to a negative power)")
            if abs(n) > MAX_INT_EXPONENT:
                return None
            return b**n
        if b < 0:
            raise Undefined(f"non-integer power {a} of the negative number {b}")
        if b == 0:
            if a > 0:
                return fmpq(0)
            raise Undefined(f"0 raised to the power {a}")
        if int(a.q) > 64 or abs(int(a.p)) > MAX_INT_EXPONENT:
            return None
        r = _exact_root(b, int(a.q))
        return None if r is None else r ** int(a.p)
    if k == "minmax":
        ev = [exact_value(a, env) for a in node.args[1]]
        vs = [v for v in ev if v is not None]
        if len(vs) != len(ev):
            return None
        return min(vs) if node.args[0] == "min" else max(vs)
    if k == "callp":
        fname, order, arg = node.args
        v = exact_value(arg, env)
        return None if v is None else _bessel_exact(fname, order, v)
    if k == "call2":
        a, b = (exact_value(t, env) for t in node.args[1])
        if a is None or b is None:
            return None
        return _exact_root(a * a + b * b, 2)
    fname, arg = node.args
    v = exact_value(arg, env)
    if v is None:
        return None
    if fname in SPECIAL_FUNCTIONS:
        return _special_exact(fname, v)
    if fname == "erfc" and v == 0:
        return fmpq(1)
    if fname == "abs":
        return abs(v)
    if fname == "sqrt":
        if v < 0:
            raise Undefined(f"sqrt of the negative number {v}")
        return _exact_root(v, 2)
    if fname == "log" and v <= 0:
        raise Undefined(f"log of the non-positive number {v}")
    if fname == "log1p" and v <= -1:
        raise Undefined(f"log1p of the number {v} <= -1")
    if fname in ("asin", "acos") and (v > 1 or v < -1):
        raise Undefined(f"{fname} of the number {v} outside [-1, 1]")
    return None


