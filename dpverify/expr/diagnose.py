"""Why an expression has no finite ball enclosure at a point: undefined there (proven),
or a finite value too large to enclose, or not decidable -- said in one line.

"f is not finite at x = 1" was the message for ``1/(x - 1)`` (a pole) and for
``exp(1e308*x)`` (a finite real: Arb's exponential gives up beyond about ``2^(2^62)``
and its ball is ``[+/- inf]``).  :func:`explain_not_finite` tells them apart: exact
evaluation decides division by zero and domain violations at rational points; otherwise
the smallest sub-expression whose ball is not finite while its arguments' balls are is
named, and when it is ``exp``, ``sinh``, ``cosh`` or ``expm1`` of a finite argument, or a
power of a positive finite base, its value is a finite real that ball arithmetic cannot
enclose.
"""

from __future__ import annotations

from typing import Any

from flint import arb, fmpq

from ..errors import DomainError
from .ball import ArbEval
from .tree import Node, NoEnclosure, Undefined, canonical_text

__all__ = ["explain_not_finite"]

#: functions whose value at a finite real argument is a finite real
_ENTIRE = ("exp", "sinh", "cosh", "expm1")


def _children(node: Node) -> list[Node]:
    k = node.kind
    if k in ("sum", "prod"):
        return [t for _, t in node.args]
    if k == "neg":
        return [node.args[0]]
    if k == "pow":
        return [node.args[0], node.args[1]]
    if k == "call":
        return [node.args[1]]
    if k == "callp":
        return [node.args[2]]
    if k in ("minmax", "call2"):
        return list(node.args[1])
    return []


def _culprit(node: Node, ev: ArbEval) -> tuple[Node, DomainError | None] | None:
    """The first node (post-order) whose ball is not finite while its arguments' are,
    with the domain error it raised, if any; ``None`` when the whole ball is finite."""
    for child in _children(node):
        found = _culprit(child, ev)
        if found is not None:
            return found
    try:
        v = ev.ev(node)
    except DomainError as exc:
        return node, exc
    if isinstance(v, arb) and v.is_finite():
        return None
    return node, None


def _short(text: str, limit: int = 80) -> str:
    return text if len(text) <= limit else f"{text[:limit - 25]}...{text[-20:]}"


def explain_not_finite(root: Node, env: dict[str, arb], exact: dict[str, fmpq],
                       canonical: str, name: str = "f") -> DomainError:
    """The error to raise when ``root`` has no finite ball at the point ``exact`` (its
    balls ``env``): :class:`~dpverify.expr.tree.Undefined` when the point is proven
    outside the domain, else :class:`~dpverify.expr.tree.NoEnclosure` (``overflow`` set
    when the value is a finite real too large to enclose).  Evaluation runs at the caller's
    precision."""
    # deferred: exact_eval is light, but keeps this module's imports to what the walk needs
    from .exact_eval import exact_value

    at = ", ".join(f"{k} = {v}" for k, v in exact.items())
    where = f" at {at}" if at else ""
    try:
        exact_value(root, exact)
    except DomainError as exc:
        return Undefined(f"{name} is undefined{where}: {exc} in {_short(canonical)}")
    found = _culprit(root, ArbEval(env, False))
    if found is None:  # finite now (a higher precision than the caller's)
        return NoEnclosure(f"{name} has no finite enclosure{where} at the working precision")
    node, err = found
    sub = _short(canonical_text(node))
    if err is not None:
        return Undefined(f"{name} is undefined{where}: {err} (in {sub})")
    args: list[Any] = []
    ev = ArbEval(env, False)
    for child in _children(node):
        args.append(ev.ev(child))
    if node.kind == "call" and node.args[0] in _ENTIRE and args and args[0].is_finite():
        return NoEnclosure(
            f"{name}{where} is a finite real too large to enclose: {node.args[0]} of "
            f"{args[0].mid().str(6, radius=False)} overflows ball arithmetic (in {sub})",
            overflow=True)
    if node.kind == "pow" and len(args) == 2 and args[0] > 0 and args[1].is_finite():
        return NoEnclosure(
            f"{name}{where} is a finite real too large to enclose: the power "
            f"{sub} overflows ball arithmetic", overflow=True)
    return NoEnclosure(
        f"{name} has no finite enclosure{where}: {sub} is not finite in ball arithmetic "
        "there (a pole, a point outside the domain, or too close to one to decide)")
