"""The expression language of ``expr`` targets: a parser to postfix code and two evaluators.

Grammar (docs/certificates.md): numbers (read exactly), ``pi``, ``e``, the listed variables,
``+ - * /``, ``^`` / ``**`` (right-associative, tighter than unary minus), unary ``+ -``,
parentheses, the one-argument functions in :data:`FUNCTIONS` (the special functions of
:mod:`.expr_special` among them), the n-ary ``min(a, b, ...)`` / ``max(a, b, ...)`` (two or
more comma-separated arguments) and the two-argument :data:`BINARY` functions: the Bessel
functions of an exact order ``besselj(n, x)``, ``hypot(a, b)``, ``pow(a, b)`` (``a ^ b``).
The parser is an
iterative shunting-yard (no recursion, no ``eval``); a syntax error raises Malformed.
An exponent that folds to an exact integer constant ``n`` is ``u^n`` (``n < 0`` needs
``u != 0``); any other exponent needs ``u > 0``, except that a constant ``v > 0`` allows 0.

Evaluators run the postfix code on an *algebra*:

* :class:`IvAlg` (points and boxes): a value is an arb ball plus, when known, an exact
  rational interval ``[lo, hi]`` containing the true range (``lo == hi``: the exact value).
  Rational operations stay exact; functions are applied to balls.  The result encloses
  the range of the expression over the evaluated set.
* :class:`SerAlg`: truncated Taylor series (``arb_series``) in one variable; with input
  ``[c, 1]`` the coefficients enclose ``f^(j)(x)/j!`` for every ``x`` in the ball ``c``.
  :func:`series_call` (the elementary functions on series) is shared with the jets of
  ``taylor.py``.

Both raise :class:`Undefined` when the expression is provably undefined at *every* point
of the evaluated set (an argument whose whole enclosure lies outside the real domain of
its function, or a divisor that is exactly 0), and :class:`Indeterminate` when the balls
cannot decide (or, for series, the point is not one where the function is analytic).

Size: about 700 lines, over the usual 600: the parser and both evaluators implement one
language and share its tables (functions, real domains, special values); the postfix code
type and the algebras are checked against each other here.  Tests reach ``SerAlg`` and
``Malformed`` through this module, so a split would also need them re-exported.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Literal, Protocol, TypeVar

from flint import arb, arb_series, fmpq

from .expr_special import (
    ORDERED,
    SPECIAL,
    Indeterminate,
    Undefined,
    hypot_ball,
    order_name,
    special_ball,
    special_series,
    split_name,
)
from .numbers import charge, read_exact
from .report import Malformed

__all__ = ["FUNCTIONS", "NARY", "BINARY", "CONSTANTS", "SPACE", "MAX_LENGTH", "MAX_INT_EXPONENT",
           "IDENT",
           "Undefined", "Indeterminate", "BinaryOp", "Instr", "Code", "parse", "Algebra", "run",
           "ipow", "constant", "nonzero", "arb_call", "Iv", "point", "interval", "IvAlg", "c0",
           "coeffs", "series_call", "SerAlg"]

FUNCTIONS = frozenset(
    "exp log sqrt sin cos tan atan tanh abs erf erfc asin acos sinh cosh log1p expm1 min max"
    .split()) | SPECIAL | ORDERED | {"hypot", "pow"}
NARY = frozenset(("min", "max"))
#: functions of exactly two arguments: an exact order and x (Bessel), hypot, pow (= ``^``)
BINARY = ORDERED | {"hypot", "pow"}
CONSTANTS = ("pi", "e")
MAX_LENGTH = 100_000
MAX_INT_EXPONENT = 100_000
_BITS = 1 << 16  # exact rationals larger than this are dropped to balls
#: the blanks between tokens: ASCII space, tab, CR and LF only, as the certifier's parser
#: (a Unicode space such as U+3000 or U+00A0 is an unexpected character in both)
SPACE = " \t\r\n"
_TOKEN = re.compile(r"[ \t\r\n]*(?:(?P<num>(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?)"
                    r"|(?P<name>[A-Za-z_][A-Za-z0-9_]*)|(?P<op>\*\*|[-+*/^(),]))")
_OPEN = re.compile(r"[ \t\r\n]*\(")
_BINARY = {"+": (10, False), "-": (10, False), "*": (20, False), "/": (20, False),
           "^": (40, True)}
_UNARY = 30
IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def _height(q: fmpq) -> int:
    return int(q.p.bit_length() + q.q.bit_length())


def _digits(q: fmpq) -> int:
    """About the number of decimal digits of ``q`` (numerator and denominator)."""
    return _height(q) * 3 // 10 + 1


def _fold(op: str, a: fmpq | None, b: fmpq | None) -> fmpq | None:
    if a is None or b is None or _height(a) + _height(b) > _BITS:
        return None
    if op == "/":
        return None if b == 0 else a / b
    return a + b if op == "+" else a - b if op == "-" else a * b


BinaryOp = Literal["+", "-", "*", "/"]
#: one instruction of the postfix code (see :func:`run`)
Instr = (
    tuple[Literal["num"], fmpq]  # push an exact number
    | tuple[Literal["var"], int]  # push variable i
    | tuple[Literal["const"], str]  # push pi or e
    | tuple[Literal["neg"]]  # negate the top
    | tuple[Literal["call"], str]  # apply a one-argument function to the top
    | tuple[Literal["minmax"], str, int]  # min / max of the top n values
    | tuple[Literal["callp"], str, fmpq]  # pop the order (constant), top := name_order(top)
    | tuple[Literal["hypot"]]  # sqrt(a^2 + b^2) of the two top values
    | tuple[Literal["powi"], int]  # pop an integer exponent n (constant), top := top^n
    | tuple[Literal["pow"], bool]  # u^v (flag: v is a constant expression)
    | tuple[BinaryOp]  # binary arithmetic on the two top values
)
Code = tuple[Instr, ...]
_ARITH: dict[str, tuple[BinaryOp]] = {"+": ("+",), "-": ("-",), "*": ("*",), "/": ("/",)}
# the parser's operator stack: calls, parentheses (with their argument count), operators
_Op = (tuple[Literal["call"], str] | tuple[Literal["("], list[int]] | tuple[Literal["neg"]]
       | tuple[Literal["bin"], str])
_Pending = (_Op | tuple[Literal["minmax"], str, int] | tuple[Literal["callp"], str]
            | tuple[Literal["hypot"]])


def parse(text: str, variables: list[str], where: str) -> Code:
    """Postfix code of ``text``: a tuple of instructions (see :func:`run`)."""
    if len(text) > MAX_LENGTH:
        raise Malformed(f"{where}: expression longer than {MAX_LENGTH} characters")
    out: list[Instr] = []
    info: list[tuple[bool, fmpq | None]] = []  # (constant?, exact value or None)
    ops: list[_Op] = []

    def bad(msg: str) -> Malformed:
        return Malformed(f"{where}: {msg}")

    def emit(entry: _Pending) -> None:
        if entry[0] == "neg":
            c, v = info.pop()
            out.append(("neg",))
            info.append((c, None if v is None else -v))
        elif entry[0] == "call":
            c, _ = info.pop()
            out.append(entry)
            info.append((c, None))
        elif entry[0] == "minmax":
            cs = [info.pop()[0] for _ in range(entry[2])]
            out.append(entry)
            info.append((all(cs), None))
        elif entry[0] == "callp":
            (cx, _), (_, order) = info.pop(), info.pop()
            if order is None:
                raise bad(f"the order of {entry[1]} must be an exact number")
            charge(_digits(order), where)
            out.append(("callp", entry[1], order))
            info.append((cx, None))
        elif entry[0] == "hypot":
            (cb, _), (ca, _) = info.pop(), info.pop()
            out.append(("hypot",))
            info.append((ca and cb, None))
        elif entry[0] == "bin":
            (cb, vb), (ca, va) = info.pop(), info.pop()
            sym = entry[1]
            arith = _ARITH.get(sym)
            if arith is not None:
                out.append(arith)
                folded = _fold(sym, va, vb)
                if folded is not None:  # a folded constant counts against the digit budget
                    charge(_digits(folded), where)
                info.append((ca and cb, folded))
            elif cb and vb is not None and vb.q == 1:
                n = int(vb.p) if abs(vb.p).bit_length() < 64 else MAX_INT_EXPONENT + 1
                if abs(n) > MAX_INT_EXPONENT:
                    raise bad(f"integer exponent beyond {MAX_INT_EXPONENT}")
                out.append(("powi", n))
                ok = va is not None and (va != 0 or n >= 0) and _height(va) * abs(n) <= _BITS
                if ok and va is not None:
                    charge(_height(va) * abs(n) * 3 // 10 + 1, where)
                info.append((ca, va**n if ok and va is not None else None))
            else:
                out.append(("pow", cb))
                info.append((ca and cb, None))

    pos, expect_operand = 0, True
    while True:
        m = _TOKEN.match(text, pos)
        if m is None:
            rest = text[pos:].lstrip(SPACE)
            if rest:
                raise bad(f"unexpected character {rest[0]!r}")
            break
        pos = m.end()
        num, name, op = m.group("num"), m.group("name"), m.group("op")
        if (num or name) and not expect_operand:
            raise bad(f"missing operator before {(num or name)[:20]!r}")
        if num:
            q = read_exact(num, where)
            out.append(("num", q))
            info.append((True, q))
            expect_operand = False
        elif name:
            if name in FUNCTIONS:
                if _OPEN.match(text, pos) is None:
                    raise bad(f"function {name} needs '('")
                ops.append(("call", name))
            elif name in variables:
                out.append(("var", variables.index(name)))
                info.append((False, None))
                expect_operand = False
            elif name in CONSTANTS:
                out.append(("const", name))
                info.append((True, None))
                expect_operand = False
            else:
                raise bad(f"unknown name {name[:20]!r}")
        elif op == "(":
            if not expect_operand:
                raise bad("missing operator before '('")
            ops.append(("(", [1]))  # [number of arguments so far]
        elif op == ",":
            if expect_operand:
                raise bad("unexpected ','")
            while ops and ops[-1][0] != "(":
                emit(ops.pop())
            paren = ops[-1] if ops else None
            call = ops[-2] if len(ops) >= 2 else None
            if paren is None or paren[0] != "(" or call is None or call[0] != "call" \
                    or call[1] not in NARY | BINARY:
                raise bad("',' outside min, max or a two-argument function")
            paren[1][0] += 1
            expect_operand = True
        elif op == ")":
            if expect_operand:
                raise bad("unexpected ')'")
            while ops and ops[-1][0] != "(":
                emit(ops.pop())
            if not ops:
                raise bad("unbalanced ')'")
            paren = ops.pop()
            nargs = paren[1][0] if paren[0] == "(" else 1
            call = ops[-1] if ops else None
            if call is not None and call[0] == "call":
                ops.pop()
                fname = call[1]
                if fname in NARY:
                    if nargs < 2:
                        raise bad(f"{fname} needs two or more arguments")
                    emit(("minmax", fname, nargs))
                elif fname in BINARY:
                    if nargs != 2:
                        raise bad(f"{fname} needs two arguments")
                    emit(("bin", "^") if fname == "pow" else ("hypot",) if fname == "hypot"
                         else ("callp", fname))
                else:
                    emit(("call", fname))
        elif expect_operand:
            if op not in "+-":
                raise bad(f"unexpected {op!r}")
            if op == "-":
                ops.append(("neg",))
        else:
            sym = "^" if op == "**" else op
            prec, right = _BINARY[sym]
            while ops:
                last = ops[-1]
                if last[0] == "neg":
                    top = _UNARY
                elif last[0] == "bin":
                    top = _BINARY[last[1]][0]
                else:
                    break
                if top > prec or (top == prec and not right):
                    emit(ops.pop())
                else:
                    break
            ops.append(("bin", sym))
            expect_operand = True
    if expect_operand:
        raise bad("incomplete expression")
    while ops:
        if ops[-1][0] in ("(", "call"):
            raise bad("unbalanced '('")
        emit(ops.pop())
    return tuple(out)


V = TypeVar("V")


class Algebra(Protocol[V]):
    """What :func:`run` needs of an algebra of values ``V`` (``minmax`` is optional)."""

    def num(self, q: fmpq) -> V: ...

    def const(self, name: str) -> V: ...

    def neg(self, a: V) -> V: ...

    def call(self, name: str, a: V) -> V: ...

    def binop(self, op: str, a: V, b: V) -> V: ...

    def powi(self, a: V, n: int) -> V: ...

    def pow(self, u: V, v: V, vconst: bool) -> V: ...


def run(code: Code, alg: Algebra[V], args: list[V]) -> V:
    """Evaluate postfix ``code`` in the algebra ``alg`` with variable values ``args``."""
    st: list[V] = []
    for ins in code:
        if ins[0] == "num":
            st.append(alg.num(ins[1]))
        elif ins[0] == "var":
            st.append(args[ins[1]])
        elif ins[0] == "const":
            st.append(alg.const(ins[1]))
        elif ins[0] == "neg":
            st.append(alg.neg(st.pop()))
        elif ins[0] == "call":
            st.append(alg.call(ins[1], st.pop()))
        elif ins[0] == "minmax":
            vals = st[len(st) - ins[2]:]
            del st[len(st) - ins[2]:]
            minmax: Callable[[str, list[V]], V] | None = getattr(alg, "minmax", None)
            if minmax is None:  # an algebra without min/max (e.g. Taylor jets): no series
                raise Indeterminate()
            st.append(minmax(ins[1], vals))
        elif ins[0] == "powi":
            st.pop()
            st.append(alg.powi(st.pop(), ins[1]))
        elif ins[0] == "callp":   # the order travels in the name (every algebra's call)
            arg = st.pop()
            st.pop()   # the order's own value: ins[2] holds it exactly
            st.append(alg.call(order_name(ins[1], ins[2]), arg))
        elif ins[0] == "hypot":
            b, a = st.pop(), st.pop()
            own: Callable[[V, V], V] | None = getattr(alg, "hypot", None)
            st.append(own(a, b) if own is not None else alg.call(
                "sqrt", alg.binop("+", alg.powi(a, 2), alg.powi(b, 2))))
        elif ins[0] == "pow":
            b, a = st.pop(), st.pop()
            st.append(alg.pow(a, b, ins[1]))
        else:
            b, a = st.pop(), st.pop()
            st.append(alg.binop(ins[0], a, b))
    return st[0]


def ipow(x: arb, n: int) -> arb:
    """``x^n`` for an integer ``n >= 0`` by multiplication (arb's ``**`` is NaN at 0-balls)."""
    out = arb(1)
    while n:
        if n & 1:
            out = out * x
        n >>= 1
        if n:
            x = x * x
    return out


def constant(name: str) -> arb:
    return arb.pi() if name == "pi" else arb.const_e()


def nonzero(c: arb) -> None:
    """Raise unless the ball ``c`` certainly excludes 0 (Undefined when it is exactly 0)."""
    if c.is_zero():
        raise Undefined()
    if not (c > 0 or c < 0):
        raise Indeterminate()


# real domains: conditions (relation, bound) that must hold for the argument
_DOMAIN = {"sqrt": (("ge", 0),), "log": (("gt", 0),), "log1p": (("gt", -1),),
           "asin": (("ge", -1), ("le", 1)), "acos": (("ge", -1), ("le", 1))}
_NEGATION = {"ge": "lt", "gt": "le", "le": "gt", "lt": "ge"}
_AT0 = {"exp": 1, "sin": 0, "cos": 1, "tan": 0, "atan": 0, "tanh": 0, "erf": 0, "asin": 0,
        "sinh": 0, "cosh": 1, "log1p": 0, "expm1": 0, "sqrt": 0, "erfc": 1}
_AT1 = {"log": 0, "acos": 0, "sqrt": 1}
_MONOTONE = frozenset("exp log sqrt atan tanh erf erfc asin acos sinh log1p expm1".split())


def _ball_rel(b: arb, rel: str, c: int) -> bool:
    ball = arb(c)
    return bool(b >= ball if rel == "ge" else b > ball if rel == "gt" else b <= ball
                if rel == "le" else b < ball)


def _abs(b: arb) -> arb:
    return abs(b)


_ARB_FUNCTIONS: dict[str, Callable[[arb], arb]] = {
    "exp": arb.exp, "log": arb.log, "sqrt": arb.sqrt, "sin": arb.sin, "cos": arb.cos,
    "tan": arb.tan, "atan": arb.atan, "tanh": arb.tanh, "erf": arb.erf, "erfc": arb.erfc,
    "asin": arb.asin, "acos": arb.acos, "sinh": arb.sinh, "cosh": arb.cosh,
    "log1p": arb.log1p, "expm1": arb.expm1, "abs": _abs}


def arb_call(name: str, b: arb) -> arb:
    return _ARB_FUNCTIONS[name](b)


def _rel(x: fmpq, rel: str, c: int) -> bool:
    return bool(x >= c if rel == "ge" else x > c if rel == "gt" else x <= c
                if rel == "le" else x < c)


class Iv:
    """An arb ball ``b`` and, when known, an exact interval ``[lo, hi]`` of the true range
    (``lo`` and ``hi`` are both None or both fmpq; :attr:`range` gives them as a pair)."""

    __slots__ = ("b", "lo", "hi")
    b: arb
    lo: fmpq | None
    hi: fmpq | None

    def __init__(self, b: arb, lo: fmpq | None = None, hi: fmpq | None = None) -> None:
        rng = None if lo is None or hi is None else (lo, hi)
        if rng is not None and _height(rng[0]) + _height(rng[1]) > _BITS:
            rng = None
        if rng is not None:
            b = arb(rng[0]) if rng[0] == rng[1] else arb(rng[0]).union(arb(rng[1]))
        if not b.is_finite():
            raise Indeterminate()
        self.b = b
        if rng is None:
            self.lo = self.hi = None
        else:
            self.lo, self.hi = rng

    @property
    def range(self) -> tuple[fmpq, fmpq] | None:
        """The exact interval ``(lo, hi)`` containing the true range, if known."""
        return None if self.lo is None or self.hi is None else (self.lo, self.hi)

    @property
    def value(self) -> fmpq | None:
        """The exact value, when the range is known to be one point."""
        return self.lo if self.lo is not None and self.lo == self.hi else None

    @property
    def exact(self) -> bool:
        return self.value is not None

    def rel(self, rel: str, c: int) -> bool:
        """Is ``x rel c`` certain for every x in the range?"""
        r = self.range
        if r is not None:
            return _rel(r[0] if rel in ("ge", "gt") else r[1], rel, c)
        return _ball_rel(self.b, rel, c)

    def sign(self) -> str:
        if self.value == 0 or self.b.is_zero():
            return "zero"
        return ("pos" if self.rel("gt", 0) else "neg" if self.rel("lt", 0)
                else "nonneg" if self.rel("ge", 0) else "unknown")


def point(q: fmpq) -> Iv:
    return Iv(arb(q), q, q)


def interval(a: fmpq, b: fmpq) -> Iv:
    return Iv(arb(a).union(arb(b)), a, b)


def _rational_power(u: fmpq, v: fmpq) -> fmpq | None:
    """``u^v`` for rational ``u > 0`` when it is rational (small cases), else None."""
    q = int(v.q) if v.q.bit_length() < 12 else 0
    if q == 0 or _height(u) * abs(v.p) > _BITS * q:
        return None
    a, b = u.p.root(q), u.q.root(q)
    if a**q != u.p or b**q != u.q:
        return None
    return fmpq(a, b) ** int(v.p)


class IvAlg:
    """Evaluation at a point or over a box (values :class:`Iv`)."""

    def num(self, q: fmpq) -> Iv:
        return point(q)

    def const(self, name: str) -> Iv:
        return Iv(constant(name))

    def neg(self, a: Iv) -> Iv:
        r = a.range
        return Iv(-a.b) if r is None else Iv(-a.b, -r[1], -r[0])

    def binop(self, op: str, a: Iv, b: Iv) -> Iv:
        ra, rb = a.range, b.range
        if op == "+":
            return Iv(a.b + b.b) if ra is None or rb is None else \
                Iv(a.b + b.b, ra[0] + rb[0], ra[1] + rb[1])
        if op == "-":
            return Iv(a.b - b.b) if ra is None or rb is None else \
                Iv(a.b - b.b, ra[0] - rb[1], ra[1] - rb[0])
        if op == "*":
            if ra is not None and rb is not None:
                ps = [ra[0] * rb[0], ra[0] * rb[1], ra[1] * rb[0], ra[1] * rb[1]]
                return Iv(a.b * b.b, min(ps), max(ps))
            return Iv(a.b * b.b)
        s = b.sign()
        if s == "zero":
            raise Undefined()
        if ra is not None and rb is not None and (rb[0] > 0 or rb[1] < 0):
            ps = [ra[0] / rb[0], ra[0] / rb[1], ra[1] / rb[0], ra[1] / rb[1]]
            return Iv(a.b / b.b, min(ps), max(ps))
        nonzero(b.b)
        return Iv(a.b / b.b)

    def powi(self, a: Iv, n: int) -> Iv:
        if n == 0:
            return point(fmpq(1))
        if n < 0:
            if a.sign() == "zero":
                raise Undefined()
            return self.binop("/", point(fmpq(1)), self.powi(a, -n))
        r = a.range
        if r is not None and (_height(r[0]) + _height(r[1])) * n <= _BITS:
            lo, hi = r[0]**n, r[1]**n
            if n % 2 == 0 and r[0] < 0 < r[1]:
                return Iv(ipow(a.b, n), fmpq(0), max(lo, hi))
            return Iv(ipow(a.b, n), min(lo, hi), max(lo, hi))
        return Iv(ipow(a.b, n))

    def pow(self, u: Iv, v: Iv, vconst: bool) -> Iv:
        uq, vq = u.value, v.value
        if uq is not None and vq is not None and uq > 0:
            r = _rational_power(uq, vq)
            if r is not None:
                return point(r)
        s = u.sign()
        if s == "pos":
            return Iv((v.b * u.b.log()).exp())
        if s == "neg":
            raise Undefined()
        vpos = vconst and v.rel("gt", 0)
        if s == "zero":
            if vpos:
                return point(fmpq(0))
            if not vconst or v.rel("le", 0):
                raise Undefined()
        elif s == "nonneg" and vpos:
            top = arb(u.hi) if u.hi is not None else u.b.upper()
            return Iv(arb(0).union((v.b * top.log()).exp() if top > 0 else arb(0)))
        raise Indeterminate()

    def hypot(self, a: Iv, b: Iv) -> Iv:
        return Iv(hypot_ball(a.b, b.b))

    def call(self, name: str, a: Iv) -> Iv:
        if split_name(name)[0] in SPECIAL | ORDERED:
            return Iv(special_ball(name, a.b))
        q = a.value
        if q is not None:
            if name == "abs":
                return point(abs(q))
            if q == 0 and name in _AT0:
                return point(fmpq(_AT0[name]))
            if q == 1 and name in _AT1:
                return point(fmpq(_AT1[name]))
            if name == "sqrt" and q > 0:
                root = _rational_power(q, fmpq(1, 2))
                if root is not None:
                    return point(root)
        r = a.range
        if name == "abs" and r is not None:  # the exact range of |x| over [lo, hi]
            lo = fmpq(0) if r[0] <= 0 <= r[1] else min(abs(r[0]), abs(r[1]))
            return Iv(abs(a.b), lo, max(abs(r[0]), abs(r[1])))
        conds = _DOMAIN.get(name, ())
        if any(a.rel(_NEGATION[rel], c) for rel, c in conds):
            raise Undefined()
        if not all(a.rel(rel, c) for rel, c in conds):
            raise Indeterminate()
        if name == "tan":
            nonzero(a.b.cos())
        if name in _MONOTONE and r is not None:
            return Iv(arb_call(name, arb(r[0])).union(arb_call(name, arb(r[1]))))
        return Iv(arb_call(name, a.b))

    def minmax(self, name: str, args: list[Iv]) -> Iv:
        """min/max is monotone in each argument: over a box its range lies in
        ``[pick(lo_i), pick(hi_i)]`` (``pick`` = min or max), exactly when every argument
        has an exact range; otherwise Arb's ``arb_min``/``arb_max`` of the balls."""
        pick = min if name == "min" else max
        acc = args[0].b
        for a in args[1:]:
            acc = acc.min(a.b) if name == "min" else acc.max(a.b)
        ranges = [a.range for a in args]
        known = [r for r in ranges if r is not None]
        if len(known) == len(ranges):
            return Iv(acc, pick(r[0] for r in known), pick(r[1] for r in known))
        return Iv(acc)


# ------------------------------------------------------------------ series


def c0(s: arb_series) -> arb:
    cs = s.coeffs()
    return cs[0] if cs else arb(0)


def coeffs(s: arb_series, n: int) -> list[arb]:
    """The first ``n`` coefficients of ``s``; Indeterminate if ``s`` was truncated earlier."""
    if s.prec < n:
        raise Indeterminate()
    cs = s.coeffs()[:n]
    return cs + [arb(0)] * (n - len(cs))


def series_call(name: str, s: arb_series) -> arb_series:
    """``name(s)`` for a series whose constant term is a ball where ``name`` is analytic."""
    if split_name(name)[0] in SPECIAL | ORDERED:
        return special_series(name, s)
    c = c0(s)
    if name in ("sqrt", "log", "log1p"):
        edge = -1 if name == "log1p" else 0
        if c < edge or (name != "sqrt" and c <= edge):
            raise Undefined()
        if not c > edge:
            raise Indeterminate()
        return (s + 1).log() if name == "log1p" else s.log() if name == "log" else s.sqrt()
    if name in ("asin", "acos"):
        if c > 1 or c < -1:
            raise Undefined()
        if not (c > -1 and c < 1):
            raise Indeterminate()
    if name == "abs":
        if c > 0:
            return s
        if c < 0:
            return -s
        raise Indeterminate()
    if name == "tan":
        nonzero(c.cos())
    if name in ("tanh", "sinh", "cosh", "expm1"):
        if name == "tanh":
            e2 = (2 * s).exp()
            return (e2 - 1) / (e2 + 1)
        e = s.exp()
        if name == "expm1":
            return e - 1
        return (e - (-s).exp()) / 2 if name == "sinh" else (e + (-s).exp()) / 2
    return _SERIES_FUNCTIONS[name](s)


_SERIES_FUNCTIONS: dict[str, Callable[[arb_series], arb_series]] = {
    "exp": arb_series.exp, "sin": arb_series.sin, "cos": arb_series.cos,
    "tan": arb_series.tan, "atan": arb_series.atan, "erf": arb_series.erf,
    "erfc": arb_series.erfc, "asin": arb_series.asin, "acos": arb_series.acos}


class SerAlg:
    """Truncated Taylor series of length ``n`` in one variable (values ``arb_series``)."""

    def __init__(self, n: int) -> None:
        self.n = n

    def num(self, q: fmpq) -> arb_series:
        return arb_series([arb(q)], prec=self.n)

    def const(self, name: str) -> arb_series:
        return arb_series([constant(name)], prec=self.n)

    def neg(self, a: arb_series) -> arb_series:
        return -a

    def binop(self, op: str, a: arb_series, b: arb_series) -> arb_series:
        if op == "/":
            nonzero(c0(b))
            return a / b
        return a + b if op == "+" else a - b if op == "-" else a * b

    def powi(self, a: arb_series, n: int) -> arb_series:
        if n < 0:
            nonzero(c0(a))
        return a**n

    def call(self, name: str, a: arb_series) -> arb_series:
        return series_call(name, a)

    def minmax(self, name: str, args: list[arb_series]) -> arb_series:
        """The argument whose constant term is strictly below (min) / above (max) all the
        others (min/max equals it near the point); Indeterminate when two may tie."""
        cs = [c0(a) for a in args]
        for i, ci in enumerate(cs):
            if all((ci < cj if name == "min" else ci > cj) for j, cj in enumerate(cs) if j != i):
                return args[i]
        raise Indeterminate()

    def pow(self, u: arb_series, v: arb_series, vconst: bool) -> arb_series:
        c = c0(u)
        if c > 0:
            return (v * u.log()).exp()
        if c < 0 or (c.is_zero() and (not vconst or c0(v) <= 0)):
            raise Undefined()
        raise Indeterminate()

