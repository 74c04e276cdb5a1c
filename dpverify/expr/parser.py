"""Tokenizer and iterative operator-precedence (shunting-yard) parser of
:mod:`dpverify.expr` (grammar in the package docstring); it builds :class:`.tree.Node`
trees with exact constant folding and never calls ``eval``.
"""

from __future__ import annotations

import keyword
import re
from collections.abc import Sequence
from typing import Any

from flint import fmpq

from ..errors import ExpressionError, InvalidParameterError
from ..numbers import parse_exact
from .tree import (
    BINARY_FUNCTIONS,
    CONSTANTS,
    DEFAULT_VARIABLES,
    FUNCTIONS,
    MAX_CONSTANT_BITS,
    MAX_DEPTH,
    MAX_INT_EXPONENT,
    NARY_FUNCTIONS,
    ORDER_FUNCTIONS,
    Node,
    canonical_text,
    is_int,
    make_node,
    num_node,
)

__all__ = ["NAME_RE", "NOT_NUMBERS", "Parser", "is_valid_variable"]

NAME_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_NUMBER_RE = re.compile(r"(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
_SPACE = " \t\r\n"
NOT_NUMBERS = {"nan", "inf", "infinity"}

# binding powers of binary operators; unary minus/plus sits between '*' and '^'
_BINARY_PREC = {"+": 10, "-": 10, "*": 20, "/": 20, "^": 40}
_UNARY_PREC = 30



def is_valid_variable(v: str) -> bool:
    """True for a name usable as a variable (an identifier that is not a function,
    constant, Python keyword or a spelling of NaN/inf)."""
    return (bool(NAME_RE.fullmatch(v)) and v not in FUNCTIONS and v not in CONSTANTS
            and not keyword.iskeyword(v) and v.lower() not in NOT_NUMBERS)


# --------------------------------------------------------------------------- parser


class Parser:
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
            m = NAME_RE.match(text, i)
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
            m = NAME_RE.match(text, i + 1)
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
        if not c.isascii():  # name the code point: look-alikes and invisible characters
            return (f"unexpected character {c!r} (U+{ord(c):04X}; expressions are ASCII: "
                    "x, digits, + - * / ^ ( ) and the function names)")
        return f"unexpected character {c!r}"

    def check_name(self, word: str) -> None:
        if word in FUNCTIONS or word in CONSTANTS or word in self.allowed:
            return
        if word.lower() in NOT_NUMBERS:
            raise self.fail(f"unknown name {word!r}: NaN/inf are not numbers")
        if keyword.iskeyword(word):
            raise self.fail(f"Python keyword {word!r} is not allowed")
        allowed = ", ".join(self.allowed) if self.allowed else "none"
        raise self.fail(
            f"unknown name {word!r} (variables: {allowed}; constants: pi, e; "
            f"functions: {', '.join(FUNCTIONS)})"
        )

    # -- shunting-yard parser
    def parse(self) -> Node:
        toks = self.tokens()
        if not toks:
            raise self.fail("empty expression")
        values: list[Node | _Acc] = []
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
                    if not ops or ops[-1][0] != "call" or (
                            ops[-1][1] not in NARY_FUNCTIONS + BINARY_FUNCTIONS):
                        raise self.fail(
                            f"unexpected ',' (position {pos}): only min, max and "
                            f"{', '.join(BINARY_FUNCTIONS)} take more than one argument")
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
                    if kind_ == "call" and fname is not None:  # a call entry has its name
                        args = [self.node(v) for v in values[len(values) - count:]]
                        del values[len(values) - count:]
                        values.append(self.build_call(fname, args))
                    continue
                prec = _BINARY_PREC[tok]
                right_assoc = tok == "^"
                while ops and ops[-1][0] in ("bin", "un"):
                    top = ops[-1]
                    tprec = _BINARY_PREC[top[1] or ""] if top[0] == "bin" else _UNARY_PREC
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
        op_text = tok or ""  # binary entries always carry their operator
        acc_kind = "sum" if op_text in "+-" else "prod"
        sign = -1 if op_text in "-/" else 1
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

    def node(self, v: Any) -> Node:
        """Finalise an accumulated sum or product into a node."""
        if not isinstance(v, _Acc):
            return v
        return self.finish_sum(v.items) if v.kind == "sum" else self.finish_prod(v.items)

    # -- node builders (folding, flattening, limits)
    def check(self, node: Node) -> Node:
        if node.depth > MAX_DEPTH:
            raise self.fail(f"nesting deeper than {MAX_DEPTH}{self.cur}")
        if node.kind == "num":
            q = node.args[0]
            if int(q.p).bit_length() + int(q.q).bit_length() > MAX_CONSTANT_BITS:
                raise self.fail(f"constant sub-expression larger than {MAX_CONSTANT_BITS} bits")
        return node

    def number(self, tok: str) -> Node:
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
        return self.check(num_node(q))

    def leaf(self, word: str) -> Node:
        if word in CONSTANTS:
            return Node("const", (word,), 1, True)
        self.used.add(word)
        return Node("var", (word,), 1, False)

    def build_neg(self, a: Node) -> Node:
        if a.kind == "num":
            return num_node(-a.args[0])
        if a.kind == "neg":
            return a.args[0]
        return self.check(make_node("neg", (a,), [a]))

    def finish_sum(self, terms: list[tuple[int, Node]]) -> Node:
        # merge the rational constants into one leading term (dropped when 0)
        total = fmpq(0)
        for s, t in terms:
            if t.kind == "num":
                total = total + t.args[0] if s > 0 else total - t.args[0]
                self.check(num_node(total))
        rest = [(s, t) for s, t in terms if t.kind != "num"]
        if not rest:
            return self.check(num_node(total))
        if total != 0:
            rest.insert(0, (1, self.check(num_node(total))))
        if len(rest) == 1:
            s, t = rest[0]
            return t if s > 0 else self.build_neg(t)
        return self.check(make_node("sum", tuple(rest), [t for _, t in rest]))

    def finish_prod(self, factors: list[tuple[int, Node]]) -> Node:
        # merge the rational constants into one leading factor (dropped when 1)
        total = fmpq(1)
        for p, f in factors:
            if f.kind == "num":
                total = total * f.args[0] if p > 0 else total / f.args[0]
                self.check(num_node(total))
        rest = [(p, f) for p, f in factors if f.kind != "num"]
        if not rest:
            return self.check(num_node(total))
        if total != 1 or (len(rest) == 1 and rest[0][0] < 0):
            rest.insert(0, (1, self.check(num_node(total))))
        if len(rest) == 1:
            return rest[0][1]
        return self.check(make_node("prod", tuple(rest), [f for _, f in rest]))

    def build_pow(self, a: Node, b: Node) -> Node:
        if b.kind == "num" and is_int(b.args[0]):
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
                return self.check(num_node(q**n))
        if a.kind == "num" and a.args[0] == 0 and b.constant and b.kind == "num":
            if b.args[0] < 0:
                raise self.fail("division by an exact zero constant (0 to a negative power)")
        return self.check(make_node("pow", (a, b), [a, b]))

    def build_call(self, fname: str, args: list[Node]) -> Node:
        if fname in BINARY_FUNCTIONS:
            return self.build_binary(fname, args)
        if fname not in NARY_FUNCTIONS:
            return self.check(make_node("call", (fname, args[0]), args))
        if len(args) < 2:
            raise self.fail(f"{fname} takes two or more arguments, got {len(args)}{self.cur}")
        if all(a.kind == "num" for a in args):  # fold exactly, like + - * /
            vals = [a.args[0] for a in args]
            return num_node(min(vals) if fname == "min" else max(vals))
        return self.check(make_node("minmax", (fname, tuple(args)), args))


    def build_binary(self, fname: str, args: list[Node]) -> Node:
        """``besselj(n, x)`` and its kin (an exact order ``n``), ``hypot(x, y)``, and
        ``pow(x, y)``, which is ``x ^ y``."""
        if len(args) != 2:
            raise self.fail(f"{fname} takes two arguments, got {len(args)}{self.cur}")
        if fname == "pow":
            return self.build_pow(args[0], args[1])
        if fname in ORDER_FUNCTIONS:
            order = args[0]
            if order.kind != "num":
                raise self.fail(f"the order of {fname} must be an exact number (such as 0, "
                                f"1 or 1/3), got {canonical_text(order)!r}{self.cur}")
            return self.check(make_node("callp", (fname, order.args[0], args[1]), [args[1]]))
        return self.check(make_node("call2", (fname, tuple(args)), args))


class _Acc:
    """A sum or product being accumulated by the parser (mutable, parser-private)."""

    __slots__ = ("kind", "items", "depth")

    def __init__(self, kind: str):
        self.kind = kind
        self.items: list[tuple[int, Node]] = []
        self.depth = 1


def _terms(node: Node, sign: int) -> list[tuple[int, Node]]:
    if node.kind == "sum":
        return [(s * sign, t) for s, t in node.args]
    if node.kind == "neg":
        return _terms(node.args[0], -sign)
    return [(sign, node)]


def _factors(node: Node, power: int) -> list[tuple[int, Node]]:
    if node.kind == "prod":
        return [(p * power, f) for p, f in node.args]
    return [(power, node)]


