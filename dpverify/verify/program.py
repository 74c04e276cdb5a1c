"""The checker's own reader of programs: FPCore 2.0 text (the subset a ``roundoff``
statement may hold) into a list of operations in evaluation order.

Grammar (docs/certificates.md, kind ``roundoff``): ``(FPCore (args...) [:name "..."]
body)`` where body is a number (decimal, ``p/q``), an argument, ``(let ((n e) ...) body)``,
``(let* ((n e) ...) body)``, ``(+ a b)``, ``(- a b)``, ``(- a)``, ``(* a b)``, ``(/ a b)``,
``(sqrt a)``, ``(fabs a)``, ``(fma a b c)`` or ``(f a)`` with ``f`` one of :data:`CALLS`.
Identical operations on identical operands are one operation (float code computes them
the same way).  Nothing is evaluated.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from flint import fmpq

from .numbers import read_exact
from .report import Malformed

__all__ = ["CALLS", "Instr", "Code", "read_program", "MAX_INSTRS"]

CALLS = ("exp", "log", "sin", "cos", "tan", "atan", "asin", "acos", "sinh", "cosh", "tanh",
         "log1p", "expm1")
MAX_INSTRS = 20000
_MAX_TEXT = 1_000_000
_HEADS = {"+": ("add", 2), "*": ("mul", 2), "/": ("div", 2), "sqrt": ("sqrt", 1),
          "fabs": ("abs", 1), "fma": ("fma", 3)}
_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
_NUM = re.compile(r"[+-]?([0-9]+/[0-9]+|([0-9]+([.][0-9]*)?|[.][0-9]+)([eE][+-]?[0-9]+)?)\Z")


@dataclass(frozen=True)
class Instr:
    """One operation: ``op`` (var, const, neg, abs, add, sub, mul, div, sqrt, fma, call),
    operand indices, the value of a constant, the name of a variable or function."""

    op: str
    args: tuple[int, ...] = ()
    value: fmpq | None = None
    name: str = ""


@dataclass
class Code:
    variables: list[str]
    instrs: list[Instr]
    out: int

    def calls(self) -> set[str]:
        return {i.name for i in self.instrs if i.op == "call"}


def _sexprs(text: str) -> list[object]:
    if len(text) > _MAX_TEXT:
        raise Malformed("statement.program: longer than 1000000 characters")
    toks = re.findall(r'\(|\)|\[|\]|"[^"]*"|[^\s()\[\]"]+', text)
    stack: list[list[object]] = [[]]
    for t in toks:
        if t in ("(", "["):
            if len(stack) > 600:
                raise Malformed("statement.program: nested too deeply")
            stack.append([])
        elif t in (")", "]"):
            if len(stack) == 1:
                raise Malformed("statement.program: unbalanced parentheses")
            done = stack.pop()
            stack[-1].append(done)
        else:
            stack[-1].append(t)
    if len(stack) != 1:
        raise Malformed("statement.program: unbalanced parentheses")
    return stack[0]


class _Reader:
    def __init__(self, variables: list[str]) -> None:
        self.instrs: list[Instr] = []
        self.seen: dict[Instr, int] = {}
        for v in variables:
            self.add(Instr("var", name=v))

    def add(self, ins: Instr) -> int:
        if ins in self.seen:
            return self.seen[ins]
        if len(self.instrs) >= MAX_INSTRS:
            raise Malformed(f"statement.program: more than {MAX_INSTRS} operations")
        self.instrs.append(ins)
        self.seen[ins] = len(self.instrs) - 1
        return len(self.instrs) - 1

    def expr(self, e: object, env: dict[str, int], depth: int = 0) -> int:
        if depth > 3000:
            raise Malformed("statement.program: nested too deeply")
        if isinstance(e, str):
            if e in env:
                return env[e]
            if not _NUM.match(e):
                raise Malformed(f"statement.program: unknown name {e[:40]!r}")
            return self.add(Instr("const", value=read_exact(e, "statement.program")))
        if not isinstance(e, list) or not e or not isinstance(e[0], str):
            raise Malformed("statement.program: malformed expression")
        head, rest = e[0], e[1:]
        if head in ("let", "let*"):
            if len(rest) != 2 or not isinstance(rest[0], list):
                raise Malformed(f"statement.program: malformed {head}")
            inner = dict(env)
            for b in rest[0]:
                if not (isinstance(b, list) and len(b) == 2 and isinstance(b[0], str)
                        and _IDENT.match(b[0])):
                    raise Malformed("statement.program: malformed binding")
                inner[b[0]] = self.expr(b[1], inner if head == "let*" else env, depth + 1)
            return self.expr(rest[1], inner, depth + 1)
        args = tuple(self.expr(a, env, depth + 1) for a in rest)
        if head == "-":
            if len(args) == 1:
                return self.add(Instr("neg", args))
            op, n = "sub", 2
        elif head in _HEADS:
            op, n = _HEADS[head]
        elif head in CALLS:
            if len(args) != 1:
                raise Malformed(f"statement.program: {head} takes one argument")
            return self.add(Instr("call", args, name=head))
        else:
            raise Malformed(f"statement.program: unsupported operation {head[:40]!r}")
        if len(args) != n:
            raise Malformed(f"statement.program: {head} takes {n} argument(s)")
        return self.add(Instr(op, args))


def read_program(text: object) -> Code:
    """The operations of an FPCore text (module docstring); Malformed otherwise."""
    if not isinstance(text, str):
        raise Malformed("statement.program: FPCore text")
    forms = _sexprs(text)
    if len(forms) != 1 or not isinstance(forms[0], list) or len(forms[0]) < 3 or \
            forms[0][0] != "FPCore":
        raise Malformed("statement.program: one (FPCore (args) body)")
    form = forms[0]
    args = form[1]
    if not isinstance(args, list) or not all(isinstance(a, str) and _IDENT.match(a)
                                             for a in args):
        raise Malformed("statement.program: the argument list")
    variables = [str(a) for a in args]
    if len(set(variables)) != len(variables) or any(v in CALLS or v in _HEADS or
                                                    v in ("let", "let*", "-")
                                                    for v in variables):
        raise Malformed("statement.program: argument names must be distinct identifiers")
    rest = form[2:]
    while len(rest) > 1 and isinstance(rest[0], str) and rest[0].startswith(":"):
        if rest[0] != ":name":
            raise Malformed(f"statement.program: property {rest[0][:30]} (only :name)")
        rest = rest[2:]
    if len(rest) != 1:
        raise Malformed("statement.program: one body expression")
    r = _Reader(variables)
    out = r.expr(rest[0], {v: i for i, v in enumerate(variables)})
    return Code(variables, r.instrs, out)
