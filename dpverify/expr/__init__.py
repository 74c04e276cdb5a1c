"""Safe expression language for user functions (no ``eval``, no ``sympify``).

An expression such as ``"exp(-(x-0.3)^2/0.5)"`` is read by a small hand-written
tokenizer and an iterative operator-precedence (shunting-yard) parser into an
immutable tree, which is then evaluated rigorously in ball arithmetic
(:meth:`Expr.eval_arb`), on complex boxes where it is analytic
(:meth:`Expr.eval_acb`), exactly (:meth:`Expr.eval_exact`), in mpmath
(:meth:`Expr.eval_mpmath`) or vectorised in numpy (:meth:`Expr.to_numpy`).
Nothing in the text is ever handed to Python's ``eval``, ``compile``, ``ast`` or
SymPy.

The Taylor jets used by the certifiers live next to the language, in
:mod:`dpverify.expr.jets`.  (This module is long -- about 1,500 lines -- because the tree,
the parser and the five evaluators share the private node type; splitting it into one
module per evaluator is planned with public node accessors.)

Grammar
-------
::

    expr    := expr ('+' | '-') expr | expr ('*' | '/') expr
             | ('-' | '+') expr | expr ('^' | '**') expr
             | NUMBER | CONST | VAR | FUNC '(' expr ')' | '(' expr ')'
             | ('min' | 'max') '(' expr (',' expr)+ ')'

Precedence, lowest first: ``+ -`` (left-assoc.), ``* /`` (left-assoc.), unary
``- +``, ``^``/``**`` (right-assoc.).  As in mathematics ``-x^2`` is ``-(x^2)``,
``2^3^2`` is ``2^9 = 512``, ``1/2/2`` is ``1/4`` and ``2^-1`` is ``1/2``.

* ``NUMBER``: integer or decimal literal with optional exponent (``12``, ``0.3``,
  ``.5``, ``1e-3``, ``2.5E+4``), read **exactly** from the text with
  :func:`dpverify.numbers.parse_exact` (``0.3`` is 3/10); exponents beyond
  +-100000 are refused.
* ``CONST``: ``pi``, ``e``.
* ``VAR``: the allowed variables (by default ``x``, ``y``, ``z``, ``x1`` .. ``x9``).
* ``FUNC`` (one argument): ``exp log sqrt sin cos tan atan tanh abs erf erfc``
  and ``asin acos sinh cosh log1p expm1``.
* ``min(a, b, ...)`` and ``max(a, b, ...)``: n-ary, two or more arguments separated by
  commas (the only place a comma is allowed).  Like ``abs`` they are not analytic where
  two arguments tie: Taylor (series) evaluation raises :class:`NotAnalytic` there and the
  certifiers fall back to interval enclosures (``arb`` min/max, rigorous).

Limits and rejected input (all raise :class:`~dpverify.errors.ExpressionError`
with a message that quotes the offending token and the parameter name):
empty text; text longer than 10000 characters; nesting (tree depth or
parenthesis depth) deeper than 200; unknown names (``nan``, ``inf``, ``os``,
``__import__``, Python keywords, ...); attribute access, subscripts, strings,
commas outside ``min``/``max``, comparisons, keyword arguments, lambdas; implicit multiplication
(``2x``, ``2(x+1)``); unbalanced parentheses; a constant integer exponent with
absolute value above 10000 (``exp(x)**10**10``); division by an exact constant
zero (``x/0``, ``x/(1-1)``); a folded rational constant larger than 2**20 bits.

Constant sub-expressions that are rational (``+ - * /`` and integer powers of
rationals) are folded exactly (``fmpq``) at parse time; sums and products are
flattened (``a-(b+c)`` is stored as ``a-b-c``) and their rational constants are
merged into one leading term or factor (``x+1+2`` is stored as ``3+x``, ``x+0`` as
``x``, ``1*x`` as ``x``; ``0*x`` is kept).  This is exact algebra on the real
numbers; the ball evaluation of the normalised tree is still rigorous.

Canonical form
--------------
:attr:`Expr.canonical` is a fully parenthesised text such that
``parse(e.canonical, e.variables) == e``; it is what certificates store.
"""

from __future__ import annotations

import keyword
import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import mpmath
import numpy as np
from flint import acb, arb, arb_series, fmpq, fmpz

from ..errors import DomainError, ExpressionError, InvalidParameterError, ParameterTypeError
from ..numbers import parse_exact

__all__ = [
    "NotAnalytic",
    "Expr",
    "parse",
    "FUNCTIONS",
    "NARY_FUNCTIONS",
    "CONSTANTS",
    "DEFAULT_VARIABLES",
    "MAX_LENGTH",
    "MAX_DEPTH",
    "MAX_INT_EXPONENT",
    "MAX_CONSTANT_BITS",
]


class NotAnalytic(DomainError):
    """Series (Taylor) evaluation met a point where the function is not analytic.

    Raised by :meth:`Expr.eval_arb` with ``arb_series`` input when the ball of the
    constant term contains such a point (``abs`` at 0, ``min``/``max`` where two
    arguments may tie, ``sqrt``/``log``/non-integer power at a base <= 0, a pole of
    ``tan`` or of a division, ``asin``/``acos`` at +-1).  Callers are expected to fall
    back to plain interval evaluation.
    """


#: Whitelisted functions: one argument each, except the n-ary :data:`NARY_FUNCTIONS`.
FUNCTIONS = (
    "exp", "log", "sqrt", "sin", "cos", "tan", "atan", "tanh", "abs", "erf", "erfc",
    "asin", "acos", "sinh", "cosh", "log1p", "expm1", "min", "max",
)  # fmt: skip
#: Functions of two or more comma-separated arguments.
NARY_FUNCTIONS = ("min", "max")
#: Named constants.
CONSTANTS = ("pi", "e")
#: Allowed variables when ``parse(..., variables=None)``, in canonical order.
DEFAULT_VARIABLES = ("x", "y", "z") + tuple(f"x{i}" for i in range(1, 10))
#: Longest accepted expression text.
MAX_LENGTH = 10_000
#: Deepest accepted nesting (parentheses, and depth of the expression tree).
MAX_DEPTH = 200
#: Largest accepted |n| of a constant integer exponent.
MAX_INT_EXPONENT = 10_000
#: Largest accepted bit size (numerator + denominator) of a folded rational constant.
MAX_CONSTANT_BITS = 2**20

_NAME_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_NUMBER_RE = re.compile(r"(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
_SPACE = " \t\r\n"
_NOT_NUMBERS = {"nan", "inf", "infinity"}

# binding powers of binary operators; unary minus/plus sits between '*' and '^'
_BINARY_PREC = {"+": 10, "-": 10, "*": 20, "/": 20, "^": 40}
_UNARY_PREC = 30


# --------------------------------------------------------------------------- tree


@dataclass(frozen=True)
class _Node:
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
    * ``"minmax"``: ``("min" | "max", (node, node, ...))`` with at least 2 arguments
    """

    kind: str
    args: tuple
    depth: int = field(default=1, compare=False)
    constant: bool = field(default=False, compare=False)


def _mk(kind: str, args: tuple, children: Sequence[_Node]) -> _Node:
    depth = 1 + max((c.depth for c in children), default=0)
    constant = all(c.constant for c in children)
    return _Node(kind, args, depth, constant)


def _num(q: fmpq) -> _Node:
    return _Node("num", (q,), 1, True)


def _is_int(q: fmpq) -> bool:
    return q.q == 1


# --------------------------------------------------------------------------- parser


class _Parser:
    def __init__(self, text: str, variables: Sequence[str] | None, name: str):
        self.text = text
        self.name = name
        self.allowed = tuple(variables) if variables is not None else DEFAULT_VARIABLES
        self.used: set[str] = set()
        self.cur = ""
        self.literal_bits = 0

    # -- errors
    def fail(self, msg: str) -> ExpressionError:
        return ExpressionError(f"{msg} in {self.name}")

    # -- tokenizer
    def tokens(self) -> list[tuple[str, str, int]]:
        text = self.text
        out: list[tuple[str, str, int]] = []
        i, n = 0, len(text)
        while i < n:
            c = text[i]
            if c in _SPACE:
                i += 1
                continue
            m = _NUMBER_RE.match(text, i)
            if m:
                out.append(("num", m.group(0), i))
                i = m.end()
                continue
            m = _NAME_RE.match(text, i)
            if m:
                word = m.group(0)
                self.check_name(word)
                out.append(("name", word, i))
                i = m.end()
                continue
            if text.startswith("**", i):
                out.append(("op", "^", i))
                i += 2
                continue
            if c in "+-*/^(),":
                out.append(("op", c, i))
                i += 1
                continue
            raise self.fail(self.bad_char(i))
        return out

    def bad_char(self, i: int) -> str:
        text = self.text
        c = text[i]
        if c == ".":
            m = _NAME_RE.match(text, i + 1)
            tok = "." + (m.group(0) if m else "")
            return f"attribute access is not allowed: {tok!r}"
        if c in "\"'":
            j = text.find(c, i + 1)
            tok = text[i : j + 1] if j >= 0 else text[i:]
            return f"strings are not allowed: {tok[:40]!r}"
        if c in "[]":
            return f"subscripts are not allowed: {c!r}"
        if c in "=<>!":
            tok = text[i : i + 2] if text[i + 1 : i + 2] == "=" else c
            return f"comparisons, assignments and keyword arguments are not allowed: {tok!r}"
        if c == ":":
            return f"lambdas and slices are not allowed: {c!r}"
        return f"unexpected character {c!r}"

    def check_name(self, word: str) -> None:
        if word in FUNCTIONS or word in CONSTANTS or word in self.allowed:
            return
        if word.lower() in _NOT_NUMBERS:
            raise self.fail(f"unknown name {word!r}: NaN/inf are not numbers")
        if keyword.iskeyword(word):
            raise self.fail(f"Python keyword {word!r} is not allowed")
        allowed = ", ".join(self.allowed) if self.allowed else "none"
        raise self.fail(
            f"unknown name {word!r} (variables: {allowed}; constants: pi, e; "
            f"functions: {', '.join(FUNCTIONS)})"
        )

    # -- shunting-yard parser
    def parse(self) -> _Node:
        toks = self.tokens()
        if not toks:
            raise self.fail("empty expression")
        values: list[_Node | _Acc] = []
        # operator stack entries: ("bin", op) | ("un", op) | ("(", None) | ("call", fname)
        ops: list[tuple[str, str | None, int]] = []
        # number of arguments seen so far, one entry per open "(" or "call" in ops
        nargs: list[int] = []
        expect_operand = True
        paren_depth = 0
        for kind, tok, pos in toks:
            self.cur = f" at {tok!r} (position {pos})"
            if ops and ops[-1][0] == "callname" and tok != "(":
                raise self.fail(f"function {ops[-1][1]!r} must be followed by '(', got {tok!r}")
            if expect_operand:
                if kind == "num":
                    values.append(self.number(tok))
                    expect_operand = False
                elif kind == "name":
                    if tok in FUNCTIONS:
                        ops.append(("callname", tok, pos))
                    else:
                        values.append(self.leaf(tok))
                        expect_operand = False
                elif tok == "(":
                    if ops and ops[-1][0] == "callname":
                        _, fname, p = ops.pop()
                        ops.append(("call", fname, p))
                    else:
                        ops.append(("(", None, pos))
                    nargs.append(1)
                    paren_depth += 1
                    if paren_depth > MAX_DEPTH:
                        raise self.fail(f"nesting deeper than {MAX_DEPTH}{self.cur}")
                elif tok in "+-":
                    ops.append(("un", tok, pos))
                elif tok == ",":
                    raise self.fail(f"unexpected ',' (position {pos}): missing argument")
                else:
                    raise self.fail(f"unexpected {tok!r} where a number, name or '(' is expected")
            else:
                if kind in ("num", "name") or tok == "(":
                    raise self.fail(
                        f"implicit multiplication is not allowed: {tok!r} after an operand "
                        "(write '*')"
                    )
                if tok == ",":
                    while ops and ops[-1][0] not in ("(", "call"):
                        self.reduce(ops.pop(), values)
                    if not ops or ops[-1][0] != "call" or ops[-1][1] not in NARY_FUNCTIONS:
                        raise self.fail(
                            f"unexpected ',' (position {pos}): only min and max take more "
                            "than one argument")
                    nargs[-1] += 1
                    expect_operand = True
                    continue
                if tok == ")":
                    while ops and ops[-1][0] not in ("(", "call"):
                        self.reduce(ops.pop(), values)
                    if not ops:
                        raise self.fail("unbalanced parentheses: unexpected ')'")
                    kind_, fname, _ = ops.pop()
                    count = nargs.pop()
                    paren_depth -= 1
                    if kind_ == "call":
                        args = [self.node(v) for v in values[len(values) - count:]]
                        del values[len(values) - count:]
                        values.append(self.build_call(fname, args))
                    continue
                prec = _BINARY_PREC[tok]
                right_assoc = tok == "^"
                while ops and ops[-1][0] in ("bin", "un"):
                    top = ops[-1]
                    tprec = _BINARY_PREC[top[1]] if top[0] == "bin" else _UNARY_PREC
                    if tprec > prec or (tprec == prec and not right_assoc):
                        self.reduce(ops.pop(), values)
                    else:
                        break
                ops.append(("bin", tok, pos))
                expect_operand = True
        if expect_operand:
            if ops and ops[-1][0] == "callname":
                raise self.fail(f"function {ops[-1][1]!r} must be followed by '('")
            raise self.fail("unexpected end of expression (missing operand)")
        while ops:
            op = ops.pop()
            if op[0] in ("(", "call"):
                raise self.fail("unbalanced parentheses: missing ')'")
            self.reduce(op, values)
        assert len(values) == 1
        return self.node(values[0])

    def reduce(self, op: tuple[str, str | None, int], values: list) -> None:
        kind, tok, _ = op
        if kind == "un":
            a = values.pop()
            values.append(self.build_neg(self.node(a)) if tok == "-" else a)
            return
        b = values.pop()
        a = values.pop()
        if tok == "^":
            values.append(self.build_pow(self.node(a), self.node(b)))
            return
        # sums and products accumulate in place (linear time for long chains)
        acc_kind = "sum" if tok in "+-" else "prod"
        sign = -1 if tok in "-/" else 1
        if isinstance(a, _Acc) and a.kind == acc_kind:
            acc = a
        else:
            acc = _Acc(acc_kind)
            self.extend(acc, a, 1)
        self.extend(acc, b, sign)
        values.append(acc)

    def extend(self, acc: _Acc, v: Any, sign: int) -> None:
        if isinstance(v, _Acc) and v.kind == acc.kind:
            items = [(s * sign, t) for s, t in v.items]
        else:
            node = self.node(v)
            items = _terms(node, sign) if acc.kind == "sum" else _factors(node, sign)
        for s, t in items:
            if acc.kind == "prod" and s < 0 and t.kind == "num" and t.args[0] == 0:
                raise self.fail(f"division by an exact zero constant{self.cur}")
            acc.depth = max(acc.depth, t.depth + 1)
        if acc.depth > MAX_DEPTH:
            raise self.fail(f"nesting deeper than {MAX_DEPTH}{self.cur}")
        acc.items.extend(items)

    def node(self, v: Any) -> _Node:
        """Finalise an accumulated sum or product into a node."""
        if not isinstance(v, _Acc):
            return v
        return self.finish_sum(v.items) if v.kind == "sum" else self.finish_prod(v.items)

    # -- node builders (folding, flattening, limits)
    def check(self, node: _Node) -> _Node:
        if node.depth > MAX_DEPTH:
            raise self.fail(f"nesting deeper than {MAX_DEPTH}{self.cur}")
        if node.kind == "num":
            q = node.args[0]
            if int(q.p).bit_length() + int(q.q).bit_length() > MAX_CONSTANT_BITS:
                raise self.fail(f"constant sub-expression larger than {MAX_CONSTANT_BITS} bits")
        return node

    def number(self, tok: str) -> _Node:
        # cheap size estimate before the exact conversion (10**99999 is slow-ish)
        m = re.fullmatch(r"([0-9.]*)(?:[eE]([+-]?[0-9]+))?", tok)
        digits = len(m.group(1)) if m else len(tok)
        exp10 = abs(int(m.group(2))) if m and m.group(2) and len(m.group(2)) < 12 else 0
        if m and m.group(2) and len(m.group(2)) >= 12:
            exp10 = 10**12
        self.literal_bits += int(3.33 * (digits + exp10)) + 1
        if self.literal_bits > 4 * MAX_CONSTANT_BITS:
            raise self.fail(
                f"number literals too large in total (about {self.literal_bits} bits) "
                f"at {tok[:40]!r}"
            )
        try:
            q = parse_exact(tok, self.name)
        except InvalidParameterError as exc:
            raise self.fail(f"bad number literal {tok[:40]!r} ({exc})") from None
        return self.check(_num(q))

    def leaf(self, word: str) -> _Node:
        if word in CONSTANTS:
            return _Node("const", (word,), 1, True)
        self.used.add(word)
        return _Node("var", (word,), 1, False)

    def build_neg(self, a: _Node) -> _Node:
        if a.kind == "num":
            return _num(-a.args[0])
        if a.kind == "neg":
            return a.args[0]
        return self.check(_mk("neg", (a,), [a]))

    def finish_sum(self, terms: list[tuple[int, _Node]]) -> _Node:
        # merge the rational constants into one leading term (dropped when 0)
        total = fmpq(0)
        for s, t in terms:
            if t.kind == "num":
                total = total + t.args[0] if s > 0 else total - t.args[0]
                self.check(_num(total))
        rest = [(s, t) for s, t in terms if t.kind != "num"]
        if not rest:
            return self.check(_num(total))
        if total != 0:
            rest.insert(0, (1, self.check(_num(total))))
        if len(rest) == 1:
            s, t = rest[0]
            return t if s > 0 else self.build_neg(t)
        return self.check(_mk("sum", tuple(rest), [t for _, t in rest]))

    def finish_prod(self, factors: list[tuple[int, _Node]]) -> _Node:
        # merge the rational constants into one leading factor (dropped when 1)
        total = fmpq(1)
        for p, f in factors:
            if f.kind == "num":
                total = total * f.args[0] if p > 0 else total / f.args[0]
                self.check(_num(total))
        rest = [(p, f) for p, f in factors if f.kind != "num"]
        if not rest:
            return self.check(_num(total))
        if total != 1 or (len(rest) == 1 and rest[0][0] < 0):
            rest.insert(0, (1, self.check(_num(total))))
        if len(rest) == 1:
            return rest[0][1]
        return self.check(_mk("prod", tuple(rest), [f for _, f in rest]))

    def build_pow(self, a: _Node, b: _Node) -> _Node:
        if b.kind == "num" and _is_int(b.args[0]):
            n = int(b.args[0].p)
            if abs(n) > MAX_INT_EXPONENT:
                digits = str(b.args[0].p)  # fmpz: no int-to-str digit limit
                shown = digits if len(digits) <= 30 else f"{digits[:12]}...({len(digits)} digits)"
                raise self.fail(
                    f"integer exponent {shown} is too large (|n| must be <= {MAX_INT_EXPONENT})"
                )
            if a.kind == "num":
                q = a.args[0]
                if q == 0 and n < 0:
                    raise self.fail("division by an exact zero constant (0 to a negative power)")
                bits = (int(q.p).bit_length() + int(q.q).bit_length()) * abs(n)
                if bits > MAX_CONSTANT_BITS:
                    raise self.fail(f"constant sub-expression larger than {MAX_CONSTANT_BITS} bits")
                return self.check(_num(q**n))
        if a.kind == "num" and a.args[0] == 0 and b.constant and b.kind == "num":
            if b.args[0] < 0:
                raise self.fail("division by an exact zero constant (0 to a negative power)")
        return self.check(_mk("pow", (a, b), [a, b]))

    def build_call(self, fname: str, args: list[_Node]) -> _Node:
        if fname not in NARY_FUNCTIONS:
            return self.check(_mk("call", (fname, args[0]), args))
        if len(args) < 2:
            raise self.fail(f"{fname} takes two or more arguments, got {len(args)}{self.cur}")
        if all(a.kind == "num" for a in args):  # fold exactly, like + - * /
            vals = [a.args[0] for a in args]
            return _num(min(vals) if fname == "min" else max(vals))
        return self.check(_mk("minmax", (fname, tuple(args)), args))


class _Acc:
    """A sum or product being accumulated by the parser (mutable, parser-private)."""

    __slots__ = ("kind", "items", "depth")

    def __init__(self, kind: str):
        self.kind = kind
        self.items: list[tuple[int, _Node]] = []
        self.depth = 1


def _terms(node: _Node, sign: int) -> list[tuple[int, _Node]]:
    if node.kind == "sum":
        return [(s * sign, t) for s, t in node.args]
    if node.kind == "neg":
        return _terms(node.args[0], -sign)
    return [(sign, node)]


def _factors(node: _Node, power: int) -> list[tuple[int, _Node]]:
    if node.kind == "prod":
        return [(p * power, f) for p, f in node.args]
    return [(power, node)]


# --------------------------------------------------------------------------- canonical text


def _fmt_q(q: fmpq) -> str:
    if q.q == 1:
        return str(q.p) if q >= 0 else f"({q.p})"
    return f"({q.p}/{q.q})"


def _canon(node: _Node) -> str:
    k = node.kind
    if k == "num":
        return _fmt_q(node.args[0])
    if k in ("const", "var"):
        return node.args[0]
    if k in ("call", "minmax"):
        return _canon_inner(node)
    return "(" + _canon_inner(node) + ")"


def _canon_arg(arg: _Node) -> str:
    return _canon_inner(arg) if arg.kind in ("sum", "prod", "neg", "pow") else _canon(arg)


def _canon_inner(node: _Node) -> str:
    k = node.kind
    if k == "sum":
        parts = []
        for i, (s, t) in enumerate(node.args):
            c = _canon(t)
            if i == 0:
                parts.append(c if s > 0 else "-" + c)
            else:
                parts.append((" + " if s > 0 else " - ") + c)
        return "".join(parts)
    if k == "prod":
        parts = []
        for i, (p, f) in enumerate(node.args):
            c = _canon(f)
            if i == 0:
                parts.append(c if p > 0 else "1 / " + c)
            else:
                parts.append((" * " if p > 0 else " / ") + c)
        return "".join(parts)
    if k == "neg":
        return "-" + _canon(node.args[0])
    if k == "pow":
        return _canon(node.args[0]) + " ^ " + _canon(node.args[1])
    if k == "call":
        fname, arg = node.args
        return f"{fname}({_canon_arg(arg)})"
    if k == "minmax":
        fname, args = node.args
        return f"{fname}({', '.join(_canon_arg(a) for a in args)})"
    return _canon(node)


# --------------------------------------------------------------------------- static facts


def _nonneg(node: _Node) -> bool:
    """True when the node's value is >= 0 wherever it is defined (static analysis)."""
    k = node.kind
    if k == "num":
        return node.args[0] >= 0
    if k == "const":
        return True
    if k == "call":
        return node.args[0] in ("abs", "sqrt", "exp", "cosh", "acos", "erfc")
    if k == "minmax":
        test = all if node.args[0] == "min" else any
        return test(_nonneg(a) for a in node.args[1])
    if k == "pow":
        base, ex = node.args
        if ex.kind == "num" and _is_int(ex.args[0]):
            return int(ex.args[0].p) % 2 == 0 or _nonneg(base)
        return True  # non-integer powers are only defined (and >= 0) for bases >= 0
    if k == "sum":
        return all(s > 0 and _nonneg(t) for s, t in node.args)
    if k == "prod":
        return all(_nonneg(f) for _, f in node.args)
    return False


def _is_poly(node: _Node) -> bool:
    k = node.kind
    if k in ("num", "const", "var"):
        return True
    if k == "sum":
        return all(_is_poly(t) for _, t in node.args)
    if k == "prod":
        return all(_is_poly(f) if p > 0 else f.constant for p, f in node.args)
    if k == "neg":
        return _is_poly(node.args[0])
    if k == "pow":
        base, ex = node.args
        if base.constant and ex.constant:
            return True
        return ex.kind == "num" and _is_int(ex.args[0]) and ex.args[0] >= 0 and _is_poly(base)
    return node.constant  # a call of constants is a constant


# --------------------------------------------------------------------------- arb evaluation


def _c0(v: Any) -> arb:
    """Constant term of an arb_series (the value itself for an arb)."""
    if isinstance(v, arb_series):
        cs = v.coeffs()
        return cs[0] if cs else arb(0)
    return v


def _zero_to(hi: arb) -> arb:
    """A ball [0, h] with h >= the upper bound of ``hi`` and lower bound exactly 0.

    A union with 0 would leave a tiny negative lower bound (arb radii carry 30
    bits); here h is rounded up to 26 bits so that midpoint = radius = h/2 exactly.
    """
    if not hi.is_finite():
        return arb.nan()
    top = hi.upper()
    if not top > 0:
        return arb(0)
    m, e = top.man_exp()
    m, e = int(m), int(e)
    extra = m.bit_length() - 26
    if extra > 0:
        m = -((-m) >> extra)  # round the mantissa up
        e += extra
    return arb((fmpz(m), e - 1), (fmpz(m), e - 1))


def arb_pow_point(p: Any, n: int, one: Any = None) -> Any:
    """p**n for n >= 0 by binary exponentiation (p an exact point or any ball; any ring
    element with ``*`` when ``one`` is given, e.g. a Taylor jet)."""
    result = arb(1) if one is None else one
    base = p
    while n:
        if n & 1:
            result = result * base
        n >>= 1
        if n:
            base = base * base
    return result


def _arb_ipow(v: arb, n: int) -> arb:
    """Tight rigorous enclosure of {t**n : t in v} for an integer n."""
    if n == 0:
        return arb(1) if v.is_finite() else arb.nan()  # undefined ** 0 stays undefined
    if n < 0:
        return arb(1) / _arb_ipow(v, -n)  # non-finite if v contains 0
    if not v.is_finite():
        return v if n == 1 else arb.nan()
    if n % 2 == 0:
        lo, hi = v.abs_lower(), v.abs_upper()
        if lo.is_zero():
            return _zero_to(arb_pow_point(hi, n))
    else:
        lo, hi = v.lower(), v.upper()
    # lo, hi are exact arbs; t -> t**n is monotone on [lo, hi]
    return arb_pow_point(lo, n).union(arb_pow_point(hi, n))


def _series_prec(args: Sequence[Any]) -> int | None:
    precs = [a.prec for a in args if isinstance(a, arb_series)]
    return min(precs) if precs else None


class _RingEval:
    """The arithmetic shared by the ball (arb, arb_series) and complex-box (acb)
    evaluators: leaves, sums, products and negation; ``lift`` makes a number of the
    evaluator's kind, ``div`` divides (raising where the quotient is not defined), and
    each subclass evaluates powers and function calls."""

    env: dict[str, Any]

    def lift(self, x: arb) -> Any:
        return x

    def div(self, a: Any, b: Any) -> Any:
        raise NotImplementedError

    def power(self, node: _Node) -> Any:
        raise NotImplementedError

    def apply(self, node: _Node) -> Any:
        raise NotImplementedError

    def ev(self, node: _Node) -> Any:
        k = node.kind
        if k == "num":
            return self.lift(arb(node.args[0]))
        if k == "const":
            return self.lift(arb.pi() if node.args[0] == "pi" else arb.const_e())
        if k == "var":
            return self.env[node.args[0]]
        if k == "sum":
            acc = None
            for s, t in node.args:
                v = self.ev(t)
                if acc is None:
                    acc = v if s > 0 else -v
                else:
                    acc = acc + v if s > 0 else acc - v
            return acc
        if k == "prod":
            acc = None
            for p, f in node.args:
                v = self.ev(f)
                if p > 0:
                    acc = v if acc is None else acc * v
                else:
                    acc = self.div(self.lift(arb(1)) if acc is None else acc, v)
            return acc
        if k == "neg":
            return -self.ev(node.args[0])
        if k == "pow":
            return self.power(node)
        return self.apply(node)


class _ArbEval(_RingEval):
    def __init__(self, env: dict[str, Any], clip: bool = False):
        self.clip = clip
        self.env = env

    def div(self, a: Any, b: Any) -> Any:
        return _div(a, b)

    def apply(self, node: _Node) -> Any:
        if node.kind == "minmax":
            return _minmax(node.args[0], [self.ev(a) for a in node.args[1]])
        return self.call(node.args[0], node.args[1])

    def power(self, node: _Node) -> Any:
        base_node, ex_node = node.args
        b = self.ev(base_node)
        if ex_node.kind == "num" and _is_int(ex_node.args[0]):
            n = int(ex_node.args[0].p)
            if isinstance(b, arb_series):
                if n >= 0:
                    return b**n
                return _div(arb(1), b ** (-n))
            return _arb_ipow(b, n)
        if ex_node.constant:
            a = self.ev(ex_node)
            return _const_pow(b, a, self.clip or _nonneg(base_node))
        # a^b = exp(b*log(a))
        a = self.ev(ex_node)
        return _exp(a * _log(b))

    def call(self, fname: str, arg_node: _Node) -> Any:
        v = self.ev(arg_node)
        series = isinstance(v, arb_series)
        if fname == "exp":
            return _exp(v)
        if fname in ("sin", "cos", "atan", "erf"):
            return getattr(v, fname)()
        if fname == "erfc":
            return _erfc(v)
        if fname == "log":
            return _log(v)
        if fname == "sqrt":
            return _sqrt(v, self.clip or _nonneg(arg_node))
        if fname == "abs":
            return _abs(v)
        if fname == "tan":
            if series:
                cos0 = _c0(v).cos()
                if cos0.contains(0):
                    raise NotAnalytic(f"tan has a pole in the ball {_c0(v)}")
            return v.tan()
        if fname == "tanh":
            if series:
                return 1 - 2 / (_exp(2 * v) + 1)
            return v.tanh()
        if fname in ("sinh", "cosh"):
            if series:
                ep, em = _exp(v), _exp(-v)
                return (ep - em) / 2 if fname == "sinh" else (ep + em) / 2
            return getattr(v, fname)()
        if fname in ("asin", "acos"):
            c = _c0(v)
            if series and not (c > -1 and c < 1):
                raise NotAnalytic(f"{fname} is not analytic at +-1, which the ball {c} meets")
            if c > 1 or c < -1:
                raise DomainError(f"{fname} is undefined on the ball {c} (outside [-1, 1])")
            return getattr(v, fname)()
        if fname == "log1p":
            if series:
                return _log(1 + v)
            if v <= -1:
                raise DomainError(f"log1p is undefined on the ball {v} (<= -1)")
            if v > -1:
                return v.log1p()
            return arb.nan()
        if fname == "expm1":
            if series:
                return _exp(v) - 1
            return v.expm1()
        raise AssertionError(fname)  # pragma: no cover - parser whitelist


def _exp(v: Any) -> Any:
    return v.exp()


def _erfc(v: Any) -> Any:
    """erfc on a ball: Arb's enclosure at the two ends (erfc is decreasing, so their
    union encloses the range and stays tight on wide balls); series: Arb's erfc series
    (erfc is entire)."""
    if isinstance(v, arb_series) or not v.is_finite():
        return v.erfc()
    if v.rad() == 0:
        return v.erfc()
    return v.upper().erfc().union(v.lower().erfc())


def _minmax(fname: str, vals: list[Any]) -> Any:
    """min/max of balls (Arb's arb_min/arb_max, rigorous); on series, the argument whose
    constant term is strictly below (min) / above (max) all others, where min/max equals
    that argument on a neighbourhood; else :class:`NotAnalytic` (a possible tie)."""
    if any(isinstance(v, arb_series) for v in vals):
        cs = [_c0(v) for v in vals]
        for i, ci in enumerate(cs):
            if all((ci < cj if fname == "min" else ci > cj) for j, cj in enumerate(cs) if j != i):
                return vals[i]
        raise NotAnalytic(f"{fname} is not analytic where its arguments may tie "
                          f"({', '.join(str(c) for c in cs)})")
    if not all(v.is_finite() for v in vals):
        return arb.nan()
    # min/max are monotone in each argument: the range over the product of the balls is
    # [min/max of the lower ends, min/max of the upper ends] (exact ends: tight)
    pick = min if fname == "min" else max
    lo = pick((v.lower() for v in vals), key=_ExactKey)
    hi = pick((v.upper() for v in vals), key=_ExactKey)
    return lo.union(hi)


class _ExactKey:
    """Sort key for exact ``arb`` points (their comparisons are always decided)."""

    __slots__ = ("v",)

    def __init__(self, v: arb):
        self.v = v

    def __lt__(self, other: _ExactKey) -> bool:
        return bool(self.v < other.v)

    def __gt__(self, other: _ExactKey) -> bool:
        return bool(self.v > other.v)


def _div(a: Any, b: Any) -> Any:
    if isinstance(b, arb_series) or isinstance(a, arb_series):
        c = _c0(b)
        if not (c > 0 or c < 0):
            raise NotAnalytic(f"division by a series whose constant term {c} may vanish")
        return a / b
    return a / b  # arb: non-finite when b contains 0


def _log(v: Any) -> Any:
    c = _c0(v)
    if isinstance(v, arb_series):
        if not c > 0:
            raise NotAnalytic(f"log is not analytic at 0, which the ball {c} contains")
        return v.log()
    if v <= 0:
        raise DomainError(f"log is undefined on the ball {c} (<= 0)")
    if v > 0:
        return v.log()
    return arb.nan()  # straddles 0: no finite enclosure exists


def _sqrt(v: Any, nonneg: bool) -> Any:
    c = _c0(v)
    if isinstance(v, arb_series):
        if not c > 0:
            raise NotAnalytic(f"sqrt is not analytic at 0, which the ball {c} contains")
        return v.sqrt()
    if v < 0:
        raise DomainError(f"sqrt is undefined on the ball {c} (< 0)")
    if not v.is_finite():
        return arb.nan()
    lo, hi = v.lower(), v.upper()
    if lo >= 0 or nonneg:
        # monotone: sqrt([max(lo, 0), hi]); clipping is rigorous as the values are >= 0
        if lo > 0:
            return lo.sqrt().union(hi.sqrt())
        return _zero_to(hi.sqrt())
    return arb.nan()  # the ball reaches negative numbers where sqrt is undefined


def _abs(v: Any) -> Any:
    c = _c0(v)
    if c > 0:
        return v
    if c < 0:
        return -v
    if isinstance(v, arb_series):
        raise NotAnalytic(f"abs is not analytic at 0, which the ball {c} contains")
    if not v.is_finite():
        return arb.nan()
    return _zero_to(v.abs_upper())


def _const_pow(b: Any, a: arb, nonneg: bool) -> Any:
    """b**a for a constant exponent ball ``a`` that is not a known integer."""
    c = _c0(b)
    if isinstance(b, arb_series):
        if not c > 0:
            raise NotAnalytic(f"non-integer power is not analytic at 0, in the ball {c}")
        return _exp(a * b.log())
    if c < 0:
        raise DomainError(f"non-integer power of the negative ball {c}")
    if not b.is_finite() or not a.is_finite():
        return arb.nan()
    if b.is_zero():
        if a > 0:
            return arb(0)
        raise DomainError(f"0 raised to the power {a} is undefined")
    lo, hi = b.lower(), b.upper()
    if not (lo >= 0 or nonneg):
        return arb.nan()  # the ball reaches negative numbers where b**a is undefined

    def point(t: arb) -> arb:
        if t.is_zero():
            return arb(0) if a > 0 else arb.pos_inf()
        return _exp(a * t.log())

    if not lo > 0:
        if a > 0:
            return _zero_to(point(hi))
        return arb.nan()  # unbounded (a < 0) or undecided sign of a
    # t -> t**a is monotone on [lo, hi] for every fixed a; the union of the
    # endpoint enclosures (computed with the ball a) encloses the range.
    return point(lo).union(point(hi))



# --------------------------------------------------------------------------- acb evaluation


class _NoAnalytic(Exception):
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


class _AcbEval(_RingEval):
    """Evaluate the tree on acb boxes, raising ``_NoAnalytic`` unless the formula
    (principal branches; ``abs(u)`` read as ``u`` or ``-u`` by the sign of ``Re u``)
    is analytic on the whole box."""

    def __init__(self, env: dict[str, acb]):
        self.env = env

    def lift(self, x: arb) -> acb:
        return acb(x)

    def power(self, node: _Node) -> acb:
        base_node, ex_node = node.args
        b = self.ev(base_node)
        if ex_node.kind == "num" and _is_int(ex_node.args[0]):
            n = int(ex_node.args[0].p)
            return b**n if n >= 0 else self.div(acb(1), b ** (-n))
        a = self.ev(ex_node)
        return (a * self.log(b)).exp()

    def apply(self, node: _Node) -> acb:
        if node.kind == "minmax":
            return self.minmax(node.args[0], [self.ev(a) for a in node.args[1]])
        return self.call(node.args[0], self.ev(node.args[1]))

    @staticmethod
    def minmax(fname: str, vals: list[acb]) -> acb:
        """The argument ``u_i`` with ``Re(u_i - u_j) < 0`` (min; ``> 0`` for max) for all
        ``j != i`` on the whole box, as ``abs`` picks a sign: that is analytic and equals
        min/max at real points; no such argument means a possible tie."""
        for i, vi in enumerate(vals):
            if all(((vi - vj).real < 0 if fname == "min" else (vi - vj).real > 0)
                   for j, vj in enumerate(vals) if j != i):
                return vi
        raise _NoAnalytic

    def div(self, a: acb, b: acb) -> acb:
        if b.contains(0) or not b.is_finite():
            raise _NoAnalytic
        return a / b

    @staticmethod
    def log(v: acb) -> acb:
        if _acb_straddles_real_ray(v, hi=0):
            raise _NoAnalytic
        return v.log()

    def call(self, fname: str, v: acb) -> acb:
        if not v.is_finite():
            raise _NoAnalytic
        if fname in ("exp", "sin", "cos", "erf", "erfc", "sinh", "cosh", "expm1"):
            return getattr(v, fname)()
        if fname == "log":
            return self.log(v)
        if fname == "log1p":
            if _acb_straddles_real_ray(v, hi=-1):
                raise _NoAnalytic
            return v.log1p()
        if fname == "sqrt":
            if _acb_straddles_real_ray(v, hi=0):
                raise _NoAnalytic
            return v.sqrt()
        if fname == "abs":
            if v.real > 0:
                return v
            if v.real < 0:
                return -v
            raise _NoAnalytic
        if fname == "tan":
            if v.cos().contains(0):
                raise _NoAnalytic
            return v.tan()
        if fname == "tanh":
            if v.cosh().contains(0):
                raise _NoAnalytic
            return v.tanh()
        if fname == "atan":
            # branch cuts i*[1, inf) and -i*[1, inf); singular at +-i
            if v.real.contains(0) and not (v.imag < 1 and v.imag > -1):
                raise _NoAnalytic
            return v.atan()
        if fname in ("asin", "acos"):
            # branch cuts (-inf, -1] and [1, inf)
            if _acb_straddles_real_ray(v, hi=-1) or _acb_straddles_real_ray(v, lo=1):
                raise _NoAnalytic
            return getattr(v, fname)()
        raise AssertionError(fname)  # pragma: no cover - parser whitelist


# --------------------------------------------------------------------------- exact evaluation


def _exact_root(q: fmpq, k: int) -> fmpq | None:
    """Exact k-th root of q >= 0 when it is rational, else None."""
    p, d = fmpz(q.p), fmpz(q.q)
    rp, rd = p.root(k), d.root(k)
    if rp**k == p and rd**k == d:
        return fmpq(rp, rd)
    return None


def _exact(node: _Node, env: dict[str, fmpq]) -> fmpq | None:
    k = node.kind
    if k == "num":
        return node.args[0]
    if k == "const":
        return None
    if k == "var":
        return env[node.args[0]]
    if k == "sum":
        vals = [(s, _exact(t, env)) for s, t in node.args]
        if any(v is None for _, v in vals):
            return None
        total = fmpq(0)
        for s, v in vals:
            total = total + v if s > 0 else total - v
        return total
    if k == "prod":
        vals = [(p, _exact(f, env)) for p, f in node.args]
        for p, v in vals:
            if p < 0 and v is not None and v == 0:
                raise DomainError("division by zero")
        if any(v is None for _, v in vals):
            return None
        total = fmpq(1)
        for p, v in vals:
            total = total * v if p > 0 else total / v
        return total
    if k == "neg":
        v = _exact(node.args[0], env)
        return None if v is None else -v
    if k == "pow":
        b = _exact(node.args[0], env)
        a = _exact(node.args[1], env)
        if b is None or a is None:
            return None
        if _is_int(a):
            n = int(a.p)
            if b == 0 and n < 0:
                raise DomainError("division by zero (0 to a negative power)")
            if abs(n) > MAX_INT_EXPONENT:
                return None
            return b**n
        if b < 0:
            raise DomainError(f"non-integer power {a} of the negative number {b}")
        if b == 0:
            if a > 0:
                return fmpq(0)
            raise DomainError(f"0 raised to the power {a}")
        if int(a.q) > 64 or abs(int(a.p)) > MAX_INT_EXPONENT:
            return None
        r = _exact_root(b, int(a.q))
        return None if r is None else r ** int(a.p)
    if k == "minmax":
        ev = [_exact(a, env) for a in node.args[1]]
        if any(v is None for v in ev):
            return None
        return min(ev) if node.args[0] == "min" else max(ev)
    fname, arg = node.args
    v = _exact(arg, env)
    if v is None:
        return None
    if fname == "erfc" and v == 0:
        return fmpq(1)
    if fname == "abs":
        return abs(v)
    if fname == "sqrt":
        if v < 0:
            raise DomainError(f"sqrt of the negative number {v}")
        return _exact_root(v, 2)
    if fname == "log" and v <= 0:
        raise DomainError(f"log of the non-positive number {v}")
    if fname == "log1p" and v <= -1:
        raise DomainError(f"log1p of the number {v} <= -1")
    if fname in ("asin", "acos") and (v > 1 or v < -1):
        raise DomainError(f"{fname} of the number {v} outside [-1, 1]")
    return None


# --------------------------------------------------------------------------- mpmath / numpy

_MP_FUNCS = {
    "exp": mpmath.exp, "log": mpmath.log, "sqrt": mpmath.sqrt, "sin": mpmath.sin,
    "cos": mpmath.cos, "tan": mpmath.tan, "atan": mpmath.atan, "tanh": mpmath.tanh,
    "abs": mpmath.fabs, "erf": mpmath.erf, "asin": mpmath.asin, "acos": mpmath.acos,
    "sinh": mpmath.sinh, "cosh": mpmath.cosh, "log1p": mpmath.log1p, "expm1": mpmath.expm1,
    "erfc": mpmath.erfc,
}  # fmt: skip


def _mp_q(q: fmpq) -> mpmath.mpf:
    return mpmath.mpf(int(q.p)) / int(q.q)


def _mp(node: _Node, env: dict[str, mpmath.mpf]) -> Any:
    k = node.kind
    if k == "num":
        return _mp_q(node.args[0])
    if k == "const":
        return +mpmath.pi if node.args[0] == "pi" else +mpmath.e
    if k == "var":
        return env[node.args[0]]
    if k == "sum":
        acc = mpmath.mpf(0)
        for s, t in node.args:
            acc = acc + _mp(t, env) if s > 0 else acc - _mp(t, env)
        return acc
    if k == "prod":
        acc = mpmath.mpf(1)
        for p, f in node.args:
            v = _mp(f, env)
            if p > 0:
                acc = acc * v
            else:
                if v == 0:
                    raise DomainError("division by zero")
                acc = acc / v
        return acc
    if k == "neg":
        return -_mp(node.args[0], env)
    if k == "pow":
        b, a = _mp(node.args[0], env), _mp(node.args[1], env)
        if b == 0 and a < 0:
            raise DomainError("division by zero (0 to a negative power)")
        if node.args[1].kind == "num" and _is_int(node.args[1].args[0]):
            return b ** int(node.args[1].args[0].p)
        return _mp_real(b**a, node)
    if k == "minmax":
        vals = [_mp(a, env) for a in node.args[1]]
        return min(vals) if node.args[0] == "min" else max(vals)
    fname, arg = node.args
    return _mp_real(_MP_FUNCS[fname](_mp(arg, env)), node)


def _mp_real(v: Any, node: _Node) -> Any:
    if isinstance(v, mpmath.mpc):
        raise DomainError(f"non-real value {v} of {_canon(node)}")
    return v


def _numpy_erf(name: str = "erf") -> Callable[[np.ndarray], np.ndarray]:
    """``erf`` or ``erfc`` vectorised: scipy's C ufunc when installed (imported here: scipy
    is optional), else a Python-level loop over :mod:`math`."""
    try:
        import scipy.special

        return getattr(scipy.special, name)
    except ImportError:  # pragma: no cover - scipy is optional
        uf = np.frompyfunc(getattr(math, name), 1, 1)  # a Python-level loop over points
        return lambda a: np.asarray(uf(a), dtype=np.float64)


_NP_FUNCS: dict[str, Callable[[np.ndarray], np.ndarray]] = {
    "exp": np.exp, "log": np.log, "sqrt": np.sqrt, "sin": np.sin, "cos": np.cos,
    "tan": np.tan, "atan": np.arctan, "tanh": np.tanh, "abs": np.abs, "asin": np.arcsin,
    "acos": np.arccos, "sinh": np.sinh, "cosh": np.cosh, "log1p": np.log1p,
    "expm1": np.expm1,
}  # fmt: skip


def _q_float(q: fmpq) -> float:
    try:
        return int(q.p) / int(q.q)  # correctly rounded
    except OverflowError:
        return math.inf if q > 0 else -math.inf


def _np_compile(node: _Node, index: dict[str, int]) -> Callable[[tuple], Any]:
    k = node.kind
    if k == "num":
        c = _q_float(node.args[0])
        return lambda xs: c
    if k == "const":
        c = math.pi if node.args[0] == "pi" else math.e
        return lambda xs: c
    if k == "var":
        i = index[node.args[0]]
        return lambda xs: xs[i]
    if k == "sum":
        parts = [(s, _np_compile(t, index)) for s, t in node.args]

        def f_sum(xs: tuple) -> Any:
            acc = 0.0
            for s, g in parts:
                acc = acc + g(xs) if s > 0 else acc - g(xs)
            return acc

        return f_sum
    if k == "prod":
        parts = [(p, _np_compile(f, index)) for p, f in node.args]

        def f_prod(xs: tuple) -> Any:
            acc = 1.0
            for p, g in parts:
                acc = acc * g(xs) if p > 0 else acc / g(xs)
            return acc

        return f_prod
    if k == "neg":
        g = _np_compile(node.args[0], index)
        return lambda xs: -g(xs)
    if k == "pow":
        gb = _np_compile(node.args[0], index)
        ex = node.args[1]
        if ex.kind == "num" and _is_int(ex.args[0]):
            n = float(int(ex.args[0].p))
            return lambda xs: np.power(np.asarray(gb(xs), dtype=np.float64), n)
        ge = _np_compile(ex, index)
        return lambda xs: np.power(np.asarray(gb(xs), dtype=np.float64), ge(xs))
    if k == "minmax":
        gs = [_np_compile(a, index) for a in node.args[1]]
        red = np.minimum if node.args[0] == "min" else np.maximum

        def f_minmax(xs: tuple) -> Any:
            acc = np.asarray(gs[0](xs), dtype=np.float64)
            for g in gs[1:]:
                acc = red(acc, g(xs))
            return acc

        return f_minmax
    fname, arg = node.args
    fn = _numpy_erf(fname) if fname in ("erf", "erfc") else _NP_FUNCS[fname]
    g = _np_compile(arg, index)
    return lambda xs: fn(np.asarray(g(xs), dtype=np.float64))


# --------------------------------------------------------------------------- public API


class Expr:
    """A parsed, immutable user expression; build it with :func:`parse`.

    Attributes
    ----------
    text : str
        The original text.
    variables : tuple of str
        The argument names, in the order the evaluators take them.
    canonical : str
        Normalised, fully parenthesised text; ``parse(e.canonical, e.variables) == e``.
    is_polynomial : bool
        True when the expression is a polynomial in its variables (sums, products,
        division by constants, non-negative integer powers).

    Equality and hashing are on the tree and the variables (not on ``text``).
    """

    __slots__ = ("text", "variables", "canonical", "is_polynomial", "_root", "_hash")
    text: str
    variables: tuple[str, ...]
    canonical: str
    is_polynomial: bool
    _root: _Node
    _hash: int

    def __init__(self, text: str, variables: tuple[str, ...], root: _Node):
        object.__setattr__(self, "text", text)
        object.__setattr__(self, "variables", variables)
        object.__setattr__(self, "_root", root)
        object.__setattr__(self, "canonical", _canon(root))
        object.__setattr__(self, "is_polynomial", _is_poly(root))
        object.__setattr__(self, "_hash", hash((root, variables)))

    def __setattr__(self, key: str, value: Any) -> None:
        raise AttributeError("Expr is immutable")

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Expr):
            return NotImplemented
        return self._root == other._root and self.variables == other.variables

    def __hash__(self) -> int:
        return self._hash

    def __reduce__(self) -> tuple:
        return (parse, (self.text, self.variables))

    def __repr__(self) -> str:
        return f"Expr({self.canonical!r}, variables={self.variables!r})"

    def _env(self, args: Sequence[Any], convert: Callable[[Any], Any], what: str) -> dict:
        if len(args) != len(self.variables):
            raise ParameterTypeError(
                f"{what} takes {len(self.variables)} argument(s) "
                f"({', '.join(self.variables) or 'none'}), got {len(args)}"
            )
        return {name: convert(a) for name, a in zip(self.variables, args, strict=True)}

    def eval_arb(
        self, *args: arb | arb_series, clip_to_domain: bool = False
    ) -> arb | arb_series:
        """Rigorous ball (or Taylor-series) evaluation.

        Parameters
        ----------
        *args : flint.arb or flint.arb_series
            One per variable.  ``int``, ``fmpz`` and ``fmpq`` are accepted and
            converted exactly; ``float`` is refused (it would lose rigour).
        clip_to_domain : bool
            Evaluate ``sqrt`` and non-integer powers on the part of the argument
            ball where they are defined (Arb's ``sqrtpos`` semantics).  The result
            then encloses f over the points of the input balls *at which f is
            defined*.  The interval certifier uses this because python-flint
            rounds every ball radius up, so a ball built for [0, r] reaches
            slightly below 0; it checks definedness at actual points separately.

        Returns
        -------
        flint.arb or flint.arb_series
            An ``arb`` when all arguments are ``arb``; otherwise an ``arb_series``
            truncated at the smallest ``prec`` of the series arguments.

        Guarantee
        ---------
        Rigorous, at the current ``flint.ctx.prec``.  The returned ball contains
        f(t) for every point t of the input balls (interval evaluation); for series
        input, each returned coefficient contains the true Taylor coefficient of
        f(u(s)) for every choice of input coefficients in their balls.  A non-finite
        result (NaN or infinite) means "no information": it is returned when an
        input ball straddles a singularity or the edge of a domain (``log``/``sqrt``
        /non-integer power of a ball reaching below 0, division by a ball containing
        0).  Exception: when the argument of ``sqrt``, ``log`` or a non-integer
        power is statically known to be >= 0 (``abs(..)``, ``sqrt(..)``, even
        powers, ...), its ball is clipped to [0, inf), which is rigorous.

        Raises
        ------
        DomainError
            If an input ball lies entirely outside the domain (``log`` of a ball
            <= 0, ``sqrt`` of a ball < 0, non-integer power of a negative ball, ...).
        NotAnalytic
            For series input whose constant-term ball contains a non-analytic point.
        ParameterTypeError
            On a wrong number or type of arguments.
        """

        def conv(a: Any) -> Any:
            if isinstance(a, (arb, arb_series)):
                return a
            if isinstance(a, (int, fmpz, fmpq)) and not isinstance(a, bool):
                return arb(a)
            raise ParameterTypeError(
                f"eval_arb takes flint.arb or flint.arb_series arguments, got "
                f"{type(a).__name__} ({a!r})"
            )

        env = self._env(args, conv, "eval_arb")
        out = _ArbEval(env, clip_to_domain).ev(self._root)
        prec = _series_prec(list(env.values()))
        if prec is not None and not isinstance(out, arb_series):
            out = arb_series([out], prec=prec)
        return out

    def eval_acb(self, *args: acb | arb) -> acb:
        """Enclosure of the analytic continuation of f on complex boxes.

        Parameters
        ----------
        *args : flint.acb (or flint.arb, int, fmpz, fmpq: converted exactly)
            One box per variable.

        Returns
        -------
        flint.acb
            A box containing ``F(z)`` for every point ``z`` of the input boxes, where
            ``F`` is the expression read with principal branches (``log``, ``sqrt``,
            powers, ``atan``, ``asin``, ``acos``, ``log1p``), ``abs(u)`` read as
            ``u`` where ``Re u > 0`` and ``-u`` where ``Re u < 0``, and ``min``/``max``
            read as the argument ``u_i`` with ``Re(u_i - u_j) < 0`` (min; ``> 0`` for
            max) for every other ``u_j`` on the whole box; or a non-finite
            ``acb`` (NaN) when this reading cannot be shown to be analytic on the whole
            box (a pole, a branch cut, ``abs`` of a box meeting ``Re u = 0``, ...).

        Guarantee
        ---------
        Rigorous at the current ``flint.ctx.prec``.  A finite result certifies that
        ``F`` is analytic on (a neighbourhood of) the box; ``F`` is defined pointwise,
        so finite results on overlapping boxes describe one analytic function, and at
        real points where f is defined ``F`` equals f (principal branches are real on
        the positive axis, ``abs`` picks the sign of its real argument).  For interval
        (non-analytic) enclosures on real points use :meth:`eval_arb`.
        """

        def conv(a: Any) -> acb:
            if isinstance(a, acb):
                return a
            if isinstance(a, arb):
                return acb(a)
            if isinstance(a, (int, fmpz, fmpq)) and not isinstance(a, bool):
                return acb(arb(a))
            raise ParameterTypeError(
                f"eval_acb takes flint.acb or flint.arb arguments, got "
                f"{type(a).__name__} ({a!r})"
            )

        env = self._env(args, conv, "eval_acb")
        try:
            out = _AcbEval(env).ev(self._root)
        except _NoAnalytic:
            return acb(arb.nan(), arb.nan())
        if not out.is_finite():
            return acb(arb.nan(), arb.nan())
        return out

    def eval_exact(self, *args: fmpq | int) -> fmpq | None:
        """Exact rational evaluation.

        Guarantee
        ---------
        Exact.  Returns the ``fmpq`` value when it follows by exact rules
        (``+ - * /``, integer powers, ``abs``, rational constants, rational roots
        of rationals such as ``sqrt(1/4)`` or ``8^(1/3)``); otherwise ``None`` (the
        value may be irrational, or simply not decidable by these rules).

        Raises
        ------
        DomainError
            On division by zero, or a function applied outside its real domain
            (``sqrt(-1)``, ``log(0)``, ``(-8)^(1/3)``).
        """

        def conv(a: Any) -> fmpq:
            if isinstance(a, (int, fmpz, fmpq)) and not isinstance(a, bool):
                return fmpq(a)
            raise ParameterTypeError(
                f"eval_exact takes int or fmpq arguments, got {type(a).__name__} ({a!r})"
            )

        return _exact(self._root, self._env(args, conv, "eval_exact"))

    def eval_mpmath(self, *args: Any) -> mpmath.mpf:
        """Floating-point evaluation with mpmath at the current ``mpmath.mp.prec``.

        Arguments may be ``mpf``, ``int``, ``float`` or ``fmpq``.

        Guarantee
        ---------
        Heuristic, no guarantee (each operation is correctly rounded by mpmath,
        but errors accumulate unchecked).  For cross-checks and quadrature.

        Raises
        ------
        DomainError
            On division by zero or a non-real result (e.g. ``sqrt(-1)``).
        """

        def conv(a: Any) -> mpmath.mpf:
            if isinstance(a, fmpq):
                return _mp_q(a)
            return mpmath.mpf(a)

        env = self._env(args, conv, "eval_mpmath")
        try:
            out = _mp(self._root, env)
        except ZeroDivisionError as exc:
            raise DomainError(f"division by zero in {self.canonical}") from exc
        except ValueError as exc:
            raise DomainError(f"{exc} in {self.canonical}") from exc
        if isinstance(out, mpmath.mpc):
            if out.imag != 0:
                raise DomainError(f"non-real value {out} of {self.canonical}")
            out = out.real
        return mpmath.mpf(out)

    def to_numpy(self) -> Callable[..., np.ndarray]:
        """A vectorised float64 callable ``f(*arrays) -> ndarray``.

        Arguments broadcast against each other like numpy ufunc arguments; a
        constant expression returns an array of the broadcast shape.  ``erf``/``erfc``
        use ``scipy.special`` when SciPy is installed, else a per-point Python loop over
        ``math.erf``/``math.erfc``; ``min``/``max`` are ``numpy.minimum``/``maximum``
        (NaN propagates); everything else is numpy ufuncs.

        Guarantee
        ---------
        Heuristic, no guarantee (IEEE double arithmetic).  Outside the domain the
        result is NaN or +-inf and floating-point warnings are suppressed.
        """
        index = {name: i for i, name in enumerate(self.variables)}
        g = _np_compile(self._root, index)
        nvars = len(self.variables)

        def f(*arrays: Any) -> np.ndarray:
            if len(arrays) != nvars:
                raise ParameterTypeError(
                    f"the numpy function takes {nvars} argument(s), got {len(arrays)}"
                )
            xs = tuple(np.asarray(a, dtype=np.float64) for a in arrays)
            shape = np.broadcast_shapes(*(a.shape for a in xs)) if xs else ()
            with np.errstate(all="ignore"):
                out = g(xs)
            return np.array(np.broadcast_to(np.asarray(out, dtype=np.float64), shape))

        return f


def parse(text: str, variables: Sequence[str] | None = None, name: str = "expression") -> Expr:
    """Parse ``text`` into an :class:`Expr` (see the module docstring for the grammar).

    Parameters
    ----------
    text : str
        The expression, at most 10000 characters.
    variables : sequence of str, optional
        The allowed variable names, in argument order; then
        ``Expr.variables == tuple(variables)`` even if some are unused.  Default:
        ``x, y, z, x1..x9`` are allowed and ``Expr.variables`` is the tuple of those
        used, in that order.
    name : str
        Parameter name quoted in error messages (the CLI passes ``"--f"``).

    Raises
    ------
    ExpressionError
        On any syntax error, unknown name or limit violation; the message quotes
        the token and names the parameter.
    ParameterTypeError
        If ``text`` or a variable name is not a string.
    """
    if not isinstance(text, str):
        raise ParameterTypeError(f"{name} must be a string, got {type(text).__name__}")
    if variables is not None:
        if isinstance(variables, str):
            raise ParameterTypeError(
                f"variables must be a sequence of names, got the string {variables!r}"
            )
        variables = tuple(variables)
        for v in variables:
            if not isinstance(v, str):
                raise ParameterTypeError(f"variable names must be strings, got {v!r}")
            if (
                not _NAME_RE.fullmatch(v)
                or v in FUNCTIONS
                or v in CONSTANTS
                or keyword.iskeyword(v)
                or v.lower() in _NOT_NUMBERS
            ):
                raise ExpressionError(f"invalid variable name {v!r} for {name}")
        if len(set(variables)) != len(variables):
            raise ExpressionError(f"duplicate variable names in {variables!r} for {name}")
    if len(text) > MAX_LENGTH:
        raise ExpressionError(
            f"expression in {name} is too long ({len(text)} characters, at most {MAX_LENGTH})"
        )
    if not text.strip():
        raise ExpressionError(f"empty expression in {name}")
    p = _Parser(text, variables, name)
    root = p.parse()
    if variables is None:
        used = tuple(v for v in DEFAULT_VARIABLES if v in p.used)
    else:
        used = variables
    return Expr(text, used, root)
