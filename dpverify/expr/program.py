"""Straight-line float programs: operations in exactly the written order.

The expression language of :mod:`dpverify.expr` folds constants and flattens sums, which is
right for a mathematical function and wrong for float code, whose value depends on the
order of the operations.  A :class:`Program` keeps that order: a list of operations in
SSA form, each on earlier ones, the last one (``output``) the result.  Operations:

``var`` (an input), ``const`` (a literal, an exact rational: the float program uses its
rounding to the format, as a compiler does), ``neg``, ``abs`` (exact in every format),
``add``, ``sub``, ``mul``, ``div``, ``sqrt``, ``fma`` (one rounding of ``a * b + c``), and
``call`` of one-argument functions (:data:`CALLS`) whose accuracy the analysis takes from a
stated model.  Identical operations on identical operands are one node (a float
computation is deterministic, so they produce the same value and the same error).

:func:`parse_program` reads infix text (``"(x + y) * z - 0.1"``): ``+ -`` then ``* /``
bind left to right, unary minus binds tighter than ``*`` (``-x * y`` is ``(-x) * y``,
the same float value as ``-(x * y)``), ``f(a)`` calls, ``fma(a, b, c)``; numbers are read
exactly (``0.1`` is 1/10, ``0x1.8p1`` is 3); ``^`` is refused (write the products in the
order the code computes them).  :meth:`Program.fpcore` prints the program as FPCore 2.0
text (:mod:`.fpcore` reads it back), the form certificates store.

Guarantee
---------
Parsing never calls ``eval`` and never reorders, folds or simplifies: the operations are
exactly those written, in the written order.  Bad input raises
:class:`~dpverify.errors.ExpressionError` quoting the offending text.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from flint import fmpq

from ..errors import ExpressionError, InvalidParameterError
from ..numbers import fmpq_str, parse_exact

__all__ = ["Op", "Program", "ProgramBuilder", "parse_program", "CALLS", "MAX_OPS",
           "MAX_LITERAL_CHARS", "read_literal", "check_name"]

#: one-argument functions a program may call (their accuracy is a stated model)
CALLS = ("exp", "log", "sin", "cos", "tan", "atan", "asin", "acos", "sinh", "cosh", "tanh",
         "log1p", "expm1")
#: exact or IEEE-rounded operations, and their arities
_ARITY = {"neg": 1, "abs": 1, "sqrt": 1, "add": 2, "sub": 2, "mul": 2, "div": 2, "fma": 3}
#: the largest program analysed (operations after sharing)
MAX_OPS = 20000
#: the longest number literal read (characters)
MAX_LITERAL_CHARS = 400
_MAX_EXP10 = 400  # decimal exponents beyond this overflow every supported format anyway
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_.]*")
_NUMBER = re.compile(r"0[xX][0-9a-fA-F]*\.?[0-9a-fA-F]*(?:[pP][+-]?[0-9]+)?"
                     r"|(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
_RESERVED = set(CALLS) | {"sqrt", "fma", "abs", "fabs"}


@dataclass(frozen=True)
class Op:
    """One operation: ``kind``, the indices of its operands (earlier operations), the
    exact ``value`` of a ``const``, and the ``name`` of a ``var`` or of a called function."""

    kind: str
    args: tuple[int, ...] = ()
    value: fmpq | None = None
    name: str = ""


def read_literal(text: str, where: str) -> fmpq:
    """The exact value of a number literal (decimal, ``p/q`` or hex float), refusing huge
    ones (more than :data:`MAX_LITERAL_CHARS` characters or a decimal exponent beyond
    400)."""
    if len(text) > MAX_LITERAL_CHARS:
        raise ExpressionError(f"number literal longer than {MAX_LITERAL_CHARS} characters in "
                              f"{where}: {text[:40]!r}...")
    m = re.search(r"[eE]([+-]?[0-9]+)$", text) if not text.lower().startswith(("0x", "-0x",
                                                                               "+0x")) else None
    if m and abs(int(m.group(1))) > _MAX_EXP10:
        raise ExpressionError(f"number literal {text[:40]!r} in {where}: exponent beyond "
                              f"+-{_MAX_EXP10}")
    if text.lower().lstrip("+-").startswith("0x"):
        pm = re.search(r"[pP]([+-]?[0-9]+)$", text)
        if pm and abs(int(pm.group(1))) > 4 * _MAX_EXP10:
            raise ExpressionError(f"number literal {text[:40]!r} in {where}: exponent beyond "
                                  f"+-{4 * _MAX_EXP10}")
    try:
        return parse_exact(text, where)
    except InvalidParameterError as exc:
        raise ExpressionError(f"bad number literal {text[:40]!r} in {where} ({exc})") from None


def check_name(name: str, where: str) -> str:
    """``name`` if it can name a variable of a program (an identifier that is not a
    function, ``fma``, ``abs``, nor a spelling of NaN or infinity)."""
    if not isinstance(name, str) or not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name) or \
            name in _RESERVED or name.lower() in ("nan", "inf", "infinity"):
        raise InvalidParameterError(f"{where}: {str(name)[:40]!r} cannot name a variable")
    return name


class ProgramBuilder:
    """Appends operations, sharing identical ones (used by the readers)."""

    def __init__(self, variables: Sequence[str], where: str) -> None:
        self.where = where
        self.ops: list[Op] = []
        self.index: dict[Op, int] = {}
        seen = set()
        for v in variables:
            check_name(v, where)
            if v in seen:
                raise InvalidParameterError(f"{where}: variable {v!r} declared twice")
            seen.add(v)
            self.add(Op("var", name=v))
        self.variables = tuple(variables)

    def add(self, op: Op) -> int:
        if op in self.index:
            return self.index[op]
        if len(self.ops) >= MAX_OPS:
            raise ExpressionError(f"{self.where}: more than {MAX_OPS} operations")
        self.ops.append(op)
        self.index[op] = len(self.ops) - 1
        return len(self.ops) - 1

    def const(self, value: fmpq) -> int:
        return self.add(Op("const", value=fmpq(value)))

    def var(self, name: str) -> int:
        return self.index[Op("var", name=name)]

    def apply(self, kind: str, args: Sequence[int]) -> int:
        if kind in CALLS:
            if len(args) != 1:
                raise ExpressionError(f"{self.where}: {kind} takes one argument, got "
                                      f"{len(args)}")
            return self.add(Op("call", tuple(args), name=kind))
        if kind not in _ARITY:
            raise ExpressionError(f"{self.where}: unknown operation {kind!r}")
        if len(args) != _ARITY[kind]:
            raise ExpressionError(f"{self.where}: {kind} takes {_ARITY[kind]} argument(s), "
                                  f"got {len(args)}")
        return self.add(Op(kind, tuple(args)))

    def finish(self, output: int, name: str = "") -> Program:
        return Program(self.variables, tuple(self.ops), output, name)


@dataclass(frozen=True)
class Program:
    """A straight-line program (module docstring): ``variables`` (the ``var`` operations
    come first, in this order), ``ops`` in evaluation order, ``output`` the index of the
    result, and an optional ``name``.

    Examples
    --------
    >>> p = parse_program("(x + 1) * (x + 1) - 0.5", ["x"])
    >>> [op.kind for op in p.ops]
    ['var', 'const', 'add', 'mul', 'const', 'sub']
    >>> p.fpcore()
    '(FPCore (x) (let* ((t2 (+ x 1))) (- (* t2 t2) 1/2)))'
    """

    variables: tuple[str, ...]
    ops: tuple[Op, ...]
    output: int
    name: str = ""

    @property
    def calls(self) -> tuple[str, ...]:
        """The functions the program calls (sorted, each once)."""
        return tuple(sorted({op.name for op in self.ops if op.kind == "call"}))

    @property
    def has_fma(self) -> bool:
        return any(op.kind == "fma" for op in self.ops)

    def live(self) -> list[bool]:
        """Which operations the output depends on."""
        used = [False] * len(self.ops)
        used[self.output] = True
        for k in range(self.output, -1, -1):
            if used[k]:
                for a in self.ops[k].args:
                    used[a] = True
        return used

    def fpcore(self, pre: str | None = None, precision: str | None = None) -> str:
        """The program as FPCore 2.0 text: operations used more than once are bound by one
        ``let*`` (named ``t<index>``), the others written in place; constants as exact
        rationals (``1/10``, read as a literal the format rounds).  ``pre`` and
        ``precision`` add those properties."""
        uses = [0] * len(self.ops)
        live = self.live()
        for k, op in enumerate(self.ops):
            if live[k]:
                for a in op.args:
                    uses[a] += 1
        shared = [k for k, op in enumerate(self.ops)
                  if live[k] and uses[k] > 1 and op.kind not in ("var", "const")]
        prefix = "t"  # binding names never clash with a variable
        while any(v.startswith(prefix) for v in self.variables):
            prefix += "_"
        names = {k: f"{prefix}{k}" for k in shared}

        def text(k: int, top: bool = False) -> str:
            op = self.ops[k]
            if k in names and not top:
                return names[k]
            if op.kind == "var":
                return op.name
            if op.kind == "const":
                assert op.value is not None
                return fmpq_str(op.value)
            head = {"neg": "-", "abs": "fabs", "add": "+", "sub": "-", "mul": "*",
                    "div": "/", "sqrt": "sqrt", "fma": "fma"}.get(op.kind, op.name)
            return "(" + " ".join([head] + [text(a) for a in op.args]) + ")"

        body = text(self.output, True)
        if shared:
            binds = " ".join(f"({names[k]} {text(k, True)})" for k in shared
                             if k != self.output)
            if binds:
                body = f"(let* ({binds}) {body})"
        props = ""
        if self.name:
            props += ' :name "' + self.name.replace("\\", "").replace('"', "") + '"'
        if precision:
            props += f" :precision {precision}"
        if pre:
            props += f" :pre {pre}"
        return f"(FPCore ({' '.join(self.variables)}){props} {body})"


# ------------------------------------------------------------------------ infix reader
class _Infix:
    """Precedence climbing over the tokens of one expression (no folding, no reordering)."""

    def __init__(self, text: str, b: ProgramBuilder) -> None:
        self.b = b
        self.toks = self._tokens(text)
        self.i = 0
        self.depth = 0
        self.names = {v: b.var(v) for v in b.variables}

    def program(self) -> int:
        """``name = expr;`` assignments (each computed once), then the result expression."""
        while self.i + 1 < len(self.toks) and self.toks[self.i + 1] == "=":
            name = self.take()
            check_name(name, f"{self.b.where}: assignment")
            if name in self.names:
                raise ExpressionError(f"{self.b.where}: {name!r} is assigned twice (or is a "
                                      "variable)")
            self.take("=")
            self.names[name] = self.expr(0)
            self.take(";")
        return self.expr(0)

    def _tokens(self, text: str) -> list[str]:
        out: list[str] = []
        i = 0
        while i < len(text):
            c = text[i]
            if c.isspace():
                i += 1
                continue
            m = _NUMBER.match(text, i)
            if m and m.group(0):
                out.append(m.group(0))
                i = m.end()
                continue
            m = _NAME.match(text, i)
            if m:
                out.append(m.group(0))
                i = m.end()
                continue
            if c == "^" or text.startswith("**", i):
                raise ExpressionError(f"{self.b.where}: powers are not operations of a "
                                      "program; write the products in the order the code "
                                      f"computes them (at {text[i:i + 20]!r})")
            if c in "+-*/(),;=":
                out.append(c)
                i += 1
                continue
            raise ExpressionError(f"{self.b.where}: unexpected character {c!r} at "
                                  f"{text[i:i + 20]!r}")
        return out

    def peek(self) -> str | None:
        return self.toks[self.i] if self.i < len(self.toks) else None

    def take(self, want: str | None = None) -> str:
        tok = self.peek()
        if tok is None or (want is not None and tok != want):
            raise ExpressionError(f"{self.b.where}: expected {want or 'an operand'}, got "
                                  f"{'the end' if tok is None else repr(tok)}")
        self.i += 1
        return tok

    def expr(self, level: int = 0) -> int:
        self.depth += 1
        if self.depth > 400:
            raise ExpressionError(f"{self.b.where}: nested too deeply")
        left = self.unary() if level == 1 else self.expr(1)
        ops = ("+", "-") if level == 0 else ("*", "/")
        while self.peek() in ops:
            tok = self.take()
            right = self.expr(1) if level == 0 else self.unary()
            kind = {"+": "add", "-": "sub", "*": "mul", "/": "div"}[tok]
            left = self.b.apply(kind, (left, right))
        self.depth -= 1
        return left

    def unary(self) -> int:
        tok = self.peek()
        if tok == "-":
            self.take()
            return self.b.apply("neg", (self.unary(),))
        if tok == "+":
            self.take()
            return self.unary()
        return self.atom()

    def atom(self) -> int:
        tok = self.take()
        if tok == "(":
            v = self.expr(0)
            self.take(")")
            return v
        if tok[0].isdigit() or tok[0] == ".":
            return self.b.const(read_literal(tok, self.b.where))
        if _NAME.fullmatch(tok):
            if self.peek() == "(":
                self.take("(")
                args = [self.expr(0)]
                while self.peek() == ",":
                    self.take(",")
                    args.append(self.expr(0))
                self.take(")")
                kind = {"fabs": "abs"}.get(tok, tok)
                if kind not in _RESERVED and kind not in _ARITY:
                    raise ExpressionError(f"{self.b.where}: unknown function {tok!r} (known: "
                                          f"sqrt, fma, abs, {', '.join(CALLS)})")
                return self.b.apply(kind, args)
            if tok in self.names:
                return self.names[tok]
            raise ExpressionError(f"{self.b.where}: unknown name {tok!r} (variables: "
                                  f"{', '.join(self.names) or 'none'})")
        raise ExpressionError(f"{self.b.where}: unexpected {tok!r}")


def parse_program(text: str, variables: Sequence[str], name: str = "") -> Program:
    """Read an infix expression as a :class:`Program` over ``variables`` (module
    docstring: the operations exactly as written, left to right).  Assignments
    ``name = expr;`` before the result name intermediate values (computed once, as a
    local variable of the float code).

    Examples
    --------
    ``x - y + z`` is ``(x - y) + z``; nothing is folded (``2 * 3`` stays a product):

    >>> [op.kind for op in parse_program("x - y + 2 * 3", ["x", "y"]).ops]
    ['var', 'var', 'sub', 'const', 'const', 'mul', 'add']
    >>> parse_program("t = x + 1; t * t", ["x"]).fpcore()
    '(FPCore (x) (let* ((t2 (+ x 1))) (* t2 t2)))'
    """
    if not isinstance(text, str):
        raise InvalidParameterError(f"program must be a string, got {type(text).__name__}")
    if len(text) > 100_000:
        raise ExpressionError("program: longer than 100000 characters")
    b = ProgramBuilder(list(variables), "program")
    r = _Infix(text, b)
    out = r.program()
    if r.peek() is not None:
        raise ExpressionError(f"program: unexpected {r.peek()!r} after the expression")
    return b.finish(out, name)
