"""The expression tree of :mod:`dpverify.expr`: node type, whitelists and limits,
canonical text and static facts (sign, polynomiality).

Nodes are immutable and compared structurally; ``kind``/``args`` are listed on
:class:`Node`.  The parser (:mod:`.parser`) builds them; the evaluators (:mod:`.ball`,
:mod:`.complex_eval`, :mod:`.exact_eval`, :mod:`.float_eval`) walk them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from flint import fmpq

from ..errors import DomainError

__all__ = [
    "BINARY_FUNCTIONS", "CONSTANTS", "DEFAULT_VARIABLES", "FUNCTIONS", "MAX_CANONICAL_LENGTH",
    "ORDER_FUNCTIONS", "SPECIAL_FUNCTIONS",
    "MAX_CONSTANT_BITS", "MAX_DEPTH", "MAX_INT_EXPONENT", "MAX_LENGTH", "NARY_FUNCTIONS",
    "Node", "NoEnclosure", "NotAnalytic", "Undefined",
    "canonical_text", "is_int", "is_nonneg", "is_polynomial_node", "make_node", "num_node",
    "variables_used",
]  # fmt: skip


class NotAnalytic(DomainError):
    """Series (Taylor) evaluation met a point where the function is not analytic.

    Raised by :meth:`Expr.eval_arb` with ``arb_series`` input when the ball of the
    constant term contains such a point (``abs`` at 0, ``min``/``max`` where two
    arguments may tie, ``sqrt``/``log``/non-integer power at a base <= 0, a pole of
    ``tan`` or of a division, ``asin``/``acos`` at +-1).  Callers are expected to fall
    back to plain interval evaluation.
    """


class Undefined(DomainError):
    """The expression is undefined -- proven, not merely unbounded: an exact argument
    outside a function's domain (``log(0)``, division by an exact 0, ``sqrt(-1)``), or an
    argument ball lying entirely outside it (every point of the ball is outside)."""


class NoEnclosure(DomainError):
    """Ball arithmetic found no finite enclosure of the expression at a point, and nothing
    proves it undefined there.  ``overflow`` is True when the value is a finite real that
    is too large to enclose (``exp(1e308)``: Arb's exponential gives up); otherwise the
    point may be a pole, outside the domain, or too close to either to decide."""

    def __init__(self, message: str, overflow: bool = False) -> None:
        super().__init__(message)
        self.overflow = overflow


#: The special functions (Arb's rigorous versions; :mod:`.special`): one argument each,
#: except the two-argument :data:`BINARY_FUNCTIONS` among them.
SPECIAL_FUNCTIONS = (
    "gamma", "lgamma", "rgamma", "digamma", "besselj", "bessely", "besseli", "besselk",
    "cbrt", "asinh", "acosh", "atanh", "hypot", "pow", "zeta", "erfinv", "erfcinv",
    "airyai", "airybi", "lambertw",
)  # fmt: skip
#: Whitelisted functions: one argument each, except the n-ary :data:`NARY_FUNCTIONS` and
#: the two-argument :data:`BINARY_FUNCTIONS`.
FUNCTIONS = (
    "exp", "log", "sqrt", "sin", "cos", "tan", "atan", "tanh", "abs", "erf", "erfc",
    "asin", "acos", "sinh", "cosh", "log1p", "expm1", "min", "max",
) + SPECIAL_FUNCTIONS  # fmt: skip
#: Functions of two or more comma-separated arguments.
NARY_FUNCTIONS = ("min", "max")
#: Functions of exactly two comma-separated arguments: the Bessel functions (order, x),
#: ``hypot(x, y)`` and ``pow(x, y)`` (which is ``x^y``).
BINARY_FUNCTIONS = ("besselj", "bessely", "besseli", "besselk", "hypot", "pow")
#: Functions whose first argument is an order that must be an exact number.
ORDER_FUNCTIONS = ("besselj", "bessely", "besseli", "besselk")
#: Named constants.
CONSTANTS = ("pi", "e")
#: Allowed variables when ``parse(..., variables=None)``, in canonical order.
DEFAULT_VARIABLES = ("x", "y", "z") + tuple(f"x{i}" for i in range(1, 10))
#: Longest accepted expression text.
MAX_LENGTH = 10_000
#: Longest canonical text (:func:`canonical_text`, what a certificate stores and the
#: independent verifier re-reads; its own limit): numbers are written out in full there,
#: so ``1e100000*x`` (8 characters) has a canonical text of 100007.
MAX_CANONICAL_LENGTH = 100_000
#: Deepest accepted nesting (parentheses, and depth of the expression tree).
MAX_DEPTH = 200
#: Largest accepted |n| of a constant integer exponent.
MAX_INT_EXPONENT = 10_000
#: Largest accepted bit size (numerator + denominator) of a folded rational constant.
MAX_CONSTANT_BITS = 2**20


# --------------------------------------------------------------------------- tree


@dataclass(frozen=True)
class Node:
    """Immutable expression node.

    ``kind`` / ``args``:

    * ``"num"``: ``(fmpq,)``
    * ``"const"``: ``("pi" | "e",)``
    * ``"var"``: ``(name,)``
    * ``"sum"``: ``((sign, node), ...)`` with sign in {+1, -1}, at least 2 terms
    * ``"prod"``: ``((power, node), ...)`` with power in {+1, -1}, at least 2 factors
    * ``"neg"``: ``(node,)``
    * ``"pow"``: ``(base, exponent)``
    * ``"call"``: ``(function_name, node)``
    * ``"callp"``: ``(function_name, order, node)`` with an exact ``fmpq`` order (the Bessel
      functions of :data:`ORDER_FUNCTIONS`)
    * ``"call2"``: ``(function_name, (node, node))`` (``hypot``)
    * ``"minmax"``: ``("min" | "max", (node, node, ...))`` with at least 2 arguments
    """

    kind: str
    args: tuple
    depth: int = field(default=1, compare=False)
    constant: bool = field(default=False, compare=False)


def make_node(kind: str, args: tuple, children: Sequence[Node]) -> Node:
    depth = 1 + max((c.depth for c in children), default=0)
    constant = all(c.constant for c in children)
    return Node(kind, args, depth, constant)


def num_node(q: fmpq) -> Node:
    return Node("num", (q,), 1, True)


def is_int(q: fmpq) -> bool:
    return q.q == 1


# --------------------------------------------------------------------------- canonical text


def _fmt_q(q: fmpq) -> str:
    if q.q == 1:
        return str(q.p) if q >= 0 else f"({q.p})"
    return f"({q.p}/{q.q})"


def canonical_text(node: Node) -> str:
    k = node.kind
    if k == "num":
        return _fmt_q(node.args[0])
    if k in ("const", "var"):
        return node.args[0]
    if k in ("call", "minmax", "callp", "call2"):
        return _canon_inner(node)
    return "(" + _canon_inner(node) + ")"


def _canon_arg(arg: Node) -> str:
    return _canon_inner(arg) if arg.kind in ("sum", "prod", "neg", "pow") else canonical_text(arg)


def variables_used(node: Node) -> frozenset[str]:
    """The names of the variables that occur in the tree (iteratively: trees are at most
    ``MAX_DEPTH`` deep, but no recursion is needed)."""
    out: set[str] = set()
    stack: list[object] = [node]
    while stack:
        x = stack.pop()
        if isinstance(x, Node):
            if x.kind == "var":
                out.add(x.args[0])
            else:
                stack.extend(x.args)
        elif isinstance(x, tuple):
            stack.extend(x)
    return frozenset(out)


def _signed_join(args: Sequence[tuple[int, Node]], first: tuple[str, str],
                 rest: tuple[str, str]) -> str:
    """``a + b - c`` / ``a * b / c`` from ``(sign, term)`` pairs: ``first`` / ``rest`` give
    the prefix of the first / a later term when its sign is positive or negative."""
    parts = []
    for i, (sign, term) in enumerate(args):
        ops = first if i == 0 else rest
        parts.append((ops[0] if sign > 0 else ops[1]) + canonical_text(term))
    return "".join(parts)


def _canon_inner(node: Node) -> str:
    k = node.kind
    if k == "sum":
        return _signed_join(node.args, ("", "-"), (" + ", " - "))
    if k == "prod":
        return _signed_join(node.args, ("", "1 / "), (" * ", " / "))
    if k == "neg":
        return "-" + canonical_text(node.args[0])
    if k == "pow":
        return canonical_text(node.args[0]) + " ^ " + canonical_text(node.args[1])
    if k == "call":
        fname, arg = node.args
        return f"{fname}({_canon_arg(arg)})"
    if k in ("minmax", "call2"):
        fname, args = node.args
        return f"{fname}({', '.join(_canon_arg(a) for a in args)})"
    if k == "callp":
        fname, order, arg = node.args
        return f"{fname}({canonical_text(num_node(order))}, {_canon_arg(arg)})"
    return canonical_text(node)


# --------------------------------------------------------------------------- static facts


def is_nonneg(node: Node) -> bool:
    """True when the node's value is >= 0 wherever it is defined (static analysis)."""
    k = node.kind
    if k == "num":
        return node.args[0] >= 0
    if k == "const":
        return True
    if k == "call":
        return node.args[0] in ("abs", "sqrt", "exp", "cosh", "acos", "erfc", "acosh")
    if k in ("call2", "callp"):
        return node.args[0] in ("hypot", "besselk")
    if k == "minmax":
        test = all if node.args[0] == "min" else any
        return test(is_nonneg(a) for a in node.args[1])
    if k == "pow":
        base, ex = node.args
        if ex.kind == "num" and is_int(ex.args[0]):
            return int(ex.args[0].p) % 2 == 0 or is_nonneg(base)
        return True  # non-integer powers are only defined (and >= 0) for bases >= 0
    if k == "sum":
        return all(s > 0 and is_nonneg(t) for s, t in node.args)
    if k == "prod":
        return all(is_nonneg(f) for _, f in node.args)
    return False


def is_polynomial_node(node: Node) -> bool:
    k = node.kind
    if k in ("num", "const", "var"):
        return True
    if k == "sum":
        return all(is_polynomial_node(t) for _, t in node.args)
    if k == "prod":
        return all(is_polynomial_node(f) if p > 0 else f.constant for p, f in node.args)
    if k == "neg":
        return is_polynomial_node(node.args[0])
    if k == "pow":
        base, ex = node.args
        if base.constant and ex.constant:
            return True
        return (ex.kind == "num" and is_int(ex.args[0]) and ex.args[0] >= 0
                and is_polynomial_node(base))
    return node.constant  # a call of constants is a constant


