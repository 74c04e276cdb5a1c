"""Exact rational evaluation of :mod:`dpverify.expr` trees (``fmpq``): the value
when exact rules decide it, else ``None``.
"""

from __future__ import annotations

from flint import fmpq, fmpz

from .tree import MAX_INT_EXPONENT, Node, Undefined, is_int

__all__ = ["exact_value"]


# --------------------------------------------------------------------------- exact evaluation


def _exact_root(q: fmpq, k: int) -> fmpq | None:
    """Exact k-th root of q >= 0 when it is rational, else None."""
    p, d = fmpz(q.p), fmpz(q.q)
    rp, rd = p.root(k), d.root(k)
    if rp**k == p and rd**k == d:
        return fmpq(rp, rd)
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
    fname, arg = node.args
    v = exact_value(arg, env)
    if v is None:
        return None
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


