"""The expression language of ``expr`` targets: a parser to postfix code and two evaluators.

Grammar (docs/certificates.md): numbers (read exactly), ``pi``, ``e``, the listed variables,
``+ - * /``, ``^`` / ``**`` (right-associative, tighter than unary minus), unary ``+ -``,
parentheses, the one-argument functions in :data:`FUNCTIONS` and the n-ary ``min(a, b, ...)``
/ ``max(a, b, ...)`` (two or more comma-separated arguments).  The parser is an
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
"""

from __future__ import annotations

import re

from flint import arb, arb_series, fmpq

from .numbers import read_exact
from .report import Malformed

FUNCTIONS = frozenset(
    "exp log sqrt sin cos tan atan tanh abs erf erfc asin acos sinh cosh log1p expm1 min max"
    .split())
NARY = frozenset(("min", "max"))
CONSTANTS = ("pi", "e")
MAX_LENGTH = 100_000
MAX_INT_EXPONENT = 100_000
_BITS = 1 << 16  # exact rationals larger than this are dropped to balls
_TOKEN = re.compile(r"\s*(?:(?P<num>(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?)"
                    r"|(?P<name>[A-Za-z_][A-Za-z0-9_]*)|(?P<op>\*\*|[-+*/^(),]))")
_BINARY = {"+": (10, False), "-": (10, False), "*": (20, False), "/": (20, False),
           "^": (40, True)}
_UNARY = 30
IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


class Undefined(Exception):
    """The expression is undefined at every point of the evaluated set."""


class Indeterminate(Exception):
    """The enclosure is not good enough to decide (or the series does not exist)."""


def _height(q: fmpq) -> int:
    return q.p.bit_length() + q.q.bit_length()


def _fold(op: str, a: fmpq | None, b: fmpq | None) -> fmpq | None:
    if a is None or b is None or _height(a) + _height(b) > _BITS:
        return None
    if op == "/":
        return None if b == 0 else a / b
    return a + b if op == "+" else a - b if op == "-" else a * b


def parse(text: str, variables: list[str], where: str) -> tuple:
    """Postfix code of ``text``: a tuple of instructions (see :func:`run`)."""
    if len(text) > MAX_LENGTH:
        raise Malformed(f"{where}: expression longer than {MAX_LENGTH} characters")
    out: list[tuple] = []
    info: list[tuple[bool, fmpq | None]] = []  # (constant?, exact value or None)
    ops: list[tuple] = []

    def bad(msg: str) -> Malformed:
        return Malformed(f"{where}: {msg}")

    def emit(entry: tuple) -> None:
        kind = entry[0]
        if kind == "neg":
            c, v = info.pop()
            out.append(("neg",))
            info.append((c, None if v is None else -v))
        elif kind == "call":
            c, _ = info.pop()
            out.append(entry)
            info.append((c, None))
        elif kind == "minmax":
            cs = [info.pop()[0] for _ in range(entry[2])]
            out.append(entry)
            info.append((all(cs), None))
        elif kind == "bin":
            (cb, vb), (ca, va) = info.pop(), info.pop()
            if entry[1] != "^":
                out.append((entry[1],))
                info.append((ca and cb, _fold(entry[1], va, vb)))
            elif cb and vb is not None and vb.q == 1:
                n = int(vb.p) if abs(vb.p).bit_length() < 64 else MAX_INT_EXPONENT + 1
                if abs(n) > MAX_INT_EXPONENT:
                    raise bad(f"integer exponent beyond {MAX_INT_EXPONENT}")
                out.append(("powi", n))
                ok = va is not None and (va != 0 or n >= 0) and _height(va) * abs(n) <= _BITS
                info.append((ca, va**n if ok else None))
            else:
                out.append(("pow", cb))
                info.append((ca and cb, None))

    pos, expect_operand = 0, True
    while True:
        m = _TOKEN.match(text, pos)
        if m is None:
            if text[pos:].strip():
                raise bad(f"unexpected character {text[pos:].lstrip()[0]!r}")
            break
        pos = m.end()
        num, name, op = m.group("num"), m.group("name"), m.group("op")
        if (num or name) and not expect_operand:
            raise bad(f"missing operator before {(num or name)[:20]!r}")
        if num:
            out.append(("num", read_exact(num, where)))
            info.append((True, out[-1][1]))
            expect_operand = False
        elif name:
            if name in FUNCTIONS:
                if not text[pos:].lstrip().startswith("("):
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
            if len(ops) < 2 or ops[-2][0] != "call" or ops[-2][1] not in NARY:
                raise bad("',' outside min(...) or max(...)")
            ops[-1][1][0] += 1
            expect_operand = True
        elif op == ")":
            if expect_operand:
                raise bad("unexpected ')'")
            while ops and ops[-1][0] != "(":
                emit(ops.pop())
            if not ops:
                raise bad("unbalanced ')'")
            nargs = ops.pop()[1][0]
            if ops and ops[-1][0] == "call":
                name = ops.pop()[1]
                if name in NARY:
                    if nargs < 2:
                        raise bad(f"{name} needs two or more arguments")
                    emit(("minmax", name, nargs))
                else:
                    emit(("call", name))
        elif expect_operand:
            if op not in "+-":
                raise bad(f"unexpected {op!r}")
            if op == "-":
                ops.append(("neg",))
        else:
            sym = "^" if op == "**" else op
            prec, right = _BINARY[sym]
            while ops and ops[-1][0] in ("bin", "neg"):
                top = _UNARY if ops[-1][0] == "neg" else _BINARY[ops[-1][1]][0]
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


def run(code: tuple, alg, args: list):
    """Evaluate postfix ``code`` in the algebra ``alg`` with variable values ``args``."""
    st: list = []
    for ins in code:
        op = ins[0]
        if op == "num":
            st.append(alg.num(ins[1]))
        elif op == "var":
            st.append(args[ins[1]])
        elif op == "const":
            st.append(alg.const(ins[1]))
        elif op == "neg":
            st.append(alg.neg(st.pop()))
        elif op == "call":
            st.append(alg.call(ins[1], st.pop()))
        elif op == "minmax":
            vals = st[len(st) - ins[2]:]
            del st[len(st) - ins[2]:]
            minmax = getattr(alg, "minmax", None)
            if minmax is None:  # an algebra without min/max (e.g. Taylor jets): no series
                raise Indeterminate()
            st.append(minmax(ins[1], vals))
        elif op == "powi":
            st.pop()
            st.append(alg.powi(st.pop(), ins[1]))
        else:
            b, a = st.pop(), st.pop()
            st.append(alg.pow(a, b, ins[1]) if op == "pow" else alg.binop(op, a, b))
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
    c = arb(c)
    return bool(b >= c if rel == "ge" else b > c if rel == "gt" else b <= c if rel == "le"
                else b < c)


def arb_call(name: str, b: arb) -> arb:
    if name == "abs":
        return abs(b)
    return getattr(b, name)()


class Iv:
    """An arb ball ``b`` and, when known, an exact interval ``[lo, hi]`` of the true range."""

    __slots__ = ("b", "lo", "hi")

    def __init__(self, b: arb, lo: fmpq | None = None, hi: fmpq | None = None) -> None:
        if lo is not None and _height(lo) + _height(hi) > _BITS:
            lo = hi = None
        if lo is not None:
            b = arb(lo) if lo == hi else arb(lo).union(arb(hi))
        if not b.is_finite():
            raise Indeterminate()
        self.b, self.lo, self.hi = b, lo, hi

    @property
    def exact(self) -> bool:
        return self.lo is not None and self.lo == self.hi

    def rel(self, rel: str, c: int) -> bool:
        """Is ``x rel c`` certain for every x in the range?"""
        if self.lo is not None:
            x = self.lo if rel in ("ge", "gt") else self.hi
            return bool(x >= c if rel == "ge" else x > c if rel == "gt" else x <= c
                        if rel == "le" else x < c)
        return _ball_rel(self.b, rel, c)

    def sign(self) -> str:
        if self.lo is not None and self.lo == self.hi == 0 or self.b.is_zero():
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
        return Iv(-a.b, None if a.lo is None else -a.hi, None if a.lo is None else -a.lo)

    def binop(self, op: str, a: Iv, b: Iv) -> Iv:
        ex = a.lo is not None and b.lo is not None
        if op == "+":
            return Iv(a.b + b.b, *((a.lo + b.lo, a.hi + b.hi) if ex else ()))
        if op == "-":
            return Iv(a.b - b.b, *((a.lo - b.hi, a.hi - b.lo) if ex else ()))
        if op == "*":
            if ex:
                ps = [a.lo * b.lo, a.lo * b.hi, a.hi * b.lo, a.hi * b.hi]
                return Iv(a.b * b.b, min(ps), max(ps))
            return Iv(a.b * b.b)
        s = b.sign()
        if s == "zero":
            raise Undefined()
        if ex and (b.lo > 0 or b.hi < 0):
            ps = [a.lo / b.lo, a.lo / b.hi, a.hi / b.lo, a.hi / b.hi]
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
        if a.lo is not None and (_height(a.lo) + _height(a.hi)) * n <= _BITS:
            lo, hi = a.lo**n, a.hi**n
            if n % 2 == 0 and a.lo < 0 < a.hi:
                return Iv(ipow(a.b, n), fmpq(0), max(lo, hi))
            return Iv(ipow(a.b, n), min(lo, hi), max(lo, hi))
        return Iv(ipow(a.b, n))

    def pow(self, u: Iv, v: Iv, vconst: bool) -> Iv:
        if u.exact and v.exact and u.lo > 0:
            r = _rational_power(u.lo, v.lo)
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
            top = arb(u.hi) if u.lo is not None else u.b.upper()
            return Iv(arb(0).union((v.b * top.log()).exp() if top > 0 else arb(0)))
        raise Indeterminate()

    def call(self, name: str, a: Iv) -> Iv:
        if a.exact:
            q = a.lo
            if name == "abs":
                return point(abs(q))
            if q == 0 and name in _AT0:
                return point(fmpq(_AT0[name]))
            if q == 1 and name in _AT1:
                return point(fmpq(_AT1[name]))
            if name == "sqrt" and q > 0:
                r = _rational_power(q, fmpq(1, 2))
                if r is not None:
                    return point(r)
        if name == "abs" and a.lo is not None:  # the exact range of |x| over [lo, hi]
            lo = fmpq(0) if a.lo <= 0 <= a.hi else min(abs(a.lo), abs(a.hi))
            return Iv(abs(a.b), lo, max(abs(a.lo), abs(a.hi)))
        conds = _DOMAIN.get(name, ())
        if any(a.rel(_NEGATION[rel], c) for rel, c in conds):
            raise Undefined()
        if not all(a.rel(rel, c) for rel, c in conds):
            raise Indeterminate()
        if name == "tan":
            nonzero(a.b.cos())
        if name in _MONOTONE and a.lo is not None:
            return Iv(arb_call(name, arb(a.lo)).union(arb_call(name, arb(a.hi))))
        return Iv(arb_call(name, a.b))

    def minmax(self, name: str, args: list[Iv]) -> Iv:
        """min/max is monotone in each argument: over a box its range lies in
        ``[pick(lo_i), pick(hi_i)]`` (``pick`` = min or max), exactly when every argument
        has an exact range; otherwise Arb's ``arb_min``/``arb_max`` of the balls."""
        pick = min if name == "min" else max
        acc = args[0].b
        for a in args[1:]:
            acc = acc.min(a.b) if name == "min" else acc.max(a.b)
        if all(a.lo is not None for a in args):
            return Iv(acc, pick(a.lo for a in args), pick(a.hi for a in args))
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
    return getattr(s, name)()


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

