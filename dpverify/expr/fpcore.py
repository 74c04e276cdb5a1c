"""A reader of the FPCore 2.0 subset FPBench's straight-line benchmarks use.

FPCore (fpbench.org/spec/fpcore-2.0.html) is the benchmark format of FPBench, FPTaylor,
Daisy, Herbie and Gappa's front ends.  Supported: ``(FPCore (args) props body)`` and
``(FPCore name (args) props body)``; properties ``:name``, ``:precision`` (``binary64``,
``binary32``), ``:pre`` (a conjunction of comparisons bounding each argument; others such
as ``:cite`` are ignored); expressions: numbers (decimal, ``p/q``, hex), arguments,
``let``, ``let*``, ``+ - * /`` (two operands; unary ``-``), ``sqrt``, ``fabs``, ``fma``
and the calls of :data:`dpverify.expr.program.CALLS`.  Everything else (``if``,
``while``, tensors, ``!`` annotations inside the body, other constants and operations) is
refused with its name.  A hand-written s-expression reader: nothing is evaluated.

``:pre`` gives the input box: each conjunct ``(<= a x b)``, ``(< a x b)``, ``(>= b x a)``,
``(<= a x)``, ``(<= x b)`` (strict comparisons are read as closed: the box covers the set
``:pre`` describes) with ``a``, ``b`` numbers; every argument needs both bounds.  Other
conjuncts (comparing expressions, such as a triangle inequality) are listed in
:attr:`FPCore.ignored`: the box is then larger than the set ``:pre`` describes, and a
bound over the box holds on that set too.

Guarantee
---------
The program read has exactly the operations of the text, in its order, with ``let``
bindings shared (computed once).  Malformed text raises
:class:`~dpverify.errors.ExpressionError` naming what is wrong.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from flint import fmpq

from ..errors import ExpressionError
from .program import CALLS, Program, ProgramBuilder, read_literal

__all__ = ["FPCore", "read_fpcores", "read_fpcore", "parse_sexprs", "MAX_TEXT"]

#: the longest FPCore text read (characters)
MAX_TEXT = 10_000_000
_Sexp = str | list["_Sexp"]
_OPS = {"+": "add", "-": "sub", "*": "mul", "/": "div", "sqrt": "sqrt", "fabs": "abs",
        "fma": "fma"}
_COMPARE = ("<=", "<", ">=", ">")


@dataclass(frozen=True)
class FPCore:
    """One FPCore read: the program, its input box (one closed interval per argument, in
    argument order), its precision (``"binary64"`` when not stated), its name, and the
    ``:pre`` conjuncts that were not ranges (ignored).

    Examples
    --------
    >>> c = read_fpcore("(FPCore (x) :precision binary32 :pre (<= -1 x 1) (* x x))")
    >>> c.precision, c.box
    ('binary32', ((-1, 1),))
    """

    program: Program
    box: tuple[tuple[fmpq, fmpq], ...]
    precision: str
    name: str
    ignored: tuple[str, ...] = ()


def parse_sexprs(text: str) -> list[_Sexp]:
    """The s-expressions of ``text``: symbols and numbers as strings, strings with their
    quotes, lists as lists (``[ ]`` as ``( )``); ``;`` starts a comment."""
    if not isinstance(text, str):
        raise ExpressionError(f"FPCore text must be a string, got {type(text).__name__}")
    if len(text) > MAX_TEXT:
        raise ExpressionError(f"FPCore text longer than {MAX_TEXT} characters")
    out: list[_Sexp] = []
    stack: list[tuple[list[_Sexp], str]] = []
    cur = out
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c.isspace():
            i += 1
        elif c == ";":
            j = text.find("\n", i)
            i = n if j < 0 else j + 1
        elif c in "([":
            if len(stack) > 500:
                raise ExpressionError("FPCore: nested deeper than 500")
            new: list[_Sexp] = []
            cur.append(new)
            stack.append((cur, ")" if c == "(" else "]"))
            cur = new
            i += 1
        elif c in ")]":
            if not stack or stack[-1][1] != c:
                raise ExpressionError(f"FPCore: unbalanced {c!r} at character {i}")
            cur = stack.pop()[0]
            i += 1
        elif c == '"':
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            if j >= n:
                raise ExpressionError("FPCore: unterminated string")
            cur.append(text[i:j + 1])
            i = j + 1
        else:
            j = i
            while j < n and not text[j].isspace() and text[j] not in "()[];\"":
                j += 1
            cur.append(text[i:j])
            i = j
    if stack:
        raise ExpressionError("FPCore: unbalanced '(' (missing ')')")
    return out


def _is_number(tok: _Sexp) -> bool:
    return isinstance(tok, str) and bool(tok) and (tok[0].isdigit() or (
        tok[0] in "+-." and len(tok) > 1 and (tok[1].isdigit() or tok[1] == ".")))


def _number(tok: _Sexp, where: str) -> fmpq:
    if not _is_number(tok):
        raise ExpressionError(f"{where}: expected a number, got {_show(tok)}")
    assert isinstance(tok, str)
    return read_literal(tok, where)


def _show(x: _Sexp) -> str:
    if isinstance(x, str):
        return repr(x[:40])
    return "(" + " ".join(_show(y).strip("'") for y in x[:6]) + (" ..." if len(x) > 6 else "") \
        + ")"


class _Body:
    """Translates an FPCore body into program operations."""

    def __init__(self, b: ProgramBuilder, where: str) -> None:
        self.b = b
        self.where = where
        self.depth = 0

    def expr(self, e: _Sexp, env: dict[str, int]) -> int:
        self.depth += 1
        if self.depth > 2000:
            raise ExpressionError(f"{self.where}: nested too deeply")
        try:
            return self._expr(e, env)
        finally:
            self.depth -= 1

    def _expr(self, e: _Sexp, env: dict[str, int]) -> int:
        if isinstance(e, str):
            if _is_number(e):
                return self.b.const(_number(e, self.where))
            if e in env:
                return env[e]
            raise ExpressionError(f"{self.where}: unknown name {e[:40]!r} (constants such as "
                                  "PI are not supported: write the value)")
        if not e or not isinstance(e[0], str):
            raise ExpressionError(f"{self.where}: not an operation: {_show(e)}")
        head = e[0]
        if head in ("let", "let*"):
            return self._let(e, env, head == "let*")
        args = e[1:]
        if head == "-" and len(args) == 1:
            return self.b.apply("neg", [self.expr(args[0], env)])
        if head in _OPS:
            kind = _OPS[head]
        elif head in CALLS:
            kind = head
        else:
            raise ExpressionError(f"{self.where}: the operation {head[:40]!r} is not supported "
                                  "(straight-line arithmetic, sqrt, fabs, fma and "
                                  f"{', '.join(CALLS)})")
        return self.b.apply(kind, [self.expr(a, env) for a in args])

    def _let(self, e: list[_Sexp], env: dict[str, int], sequential: bool) -> int:
        if len(e) != 3 or not isinstance(e[1], list):
            raise ExpressionError(f"{self.where}: malformed {e[0]}: {_show(e)}")
        inner = dict(env)
        for bind in e[1]:
            if not isinstance(bind, list) or len(bind) != 2 or not isinstance(bind[0], str) \
                    or _is_number(bind[0]):
                raise ExpressionError(f"{self.where}: malformed binding {_show(bind)}")
            inner[bind[0]] = self.expr(bind[1], inner if sequential else env)
        return self.expr(e[2], inner)


def _precondition(pre: _Sexp, names: Sequence[str], where: str, ignored: list[str]
                  ) -> dict[str, list[fmpq | None]]:
    """Per argument ``[lo, hi]`` from the conjuncts of ``:pre`` (the others are appended to
    ``ignored``)."""
    box: dict[str, list[fmpq | None]] = {v: [None, None] for v in names}
    items = pre[1:] if isinstance(pre, list) and pre and pre[0] == "and" else [pre]

    def bound(var: str, lo: fmpq | None, hi: fmpq | None) -> None:
        slot = box[var]
        if lo is not None:
            slot[0] = lo if slot[0] is None else max(slot[0], lo)
        if hi is not None:
            slot[1] = hi if slot[1] is None else min(slot[1], hi)

    for c in items:
        if not isinstance(c, list) or len(c) < 3 or c[0] not in _COMPARE:
            raise ExpressionError(f"{where}: :pre must be a conjunction of comparisons "
                                  f"bounding the arguments, got {_show(c)}")
        terms = c[1:]
        if c[0] in (">=", ">"):
            terms = terms[::-1]
        if not all(isinstance(t, str) and (t in box or _is_number(t)) for t in terms):
            ignored.append(_show(c))
            continue
        # an increasing chain t0 <= t1 <= ...: each argument bounded by its number neighbours
        for j, t in enumerate(terms):
            if isinstance(t, str) and t in box:
                lo = terms[j - 1] if j > 0 else None
                hi = terms[j + 1] if j + 1 < len(terms) else None
                bound(t, None if lo is None else _number(lo, where),
                      None if hi is None else _number(hi, where))
    return box


def _arguments(spec: _Sexp, where: str) -> list[str]:
    if not isinstance(spec, list):
        raise ExpressionError(f"{where}: expected the argument list, got {_show(spec)}")
    out = []
    for a in spec:
        if isinstance(a, list) and len(a) >= 2 and a[0] == "!" and isinstance(a[-1], str):
            a = a[-1]  # (! :precision binary64 x): the annotation is read from :precision
        if not isinstance(a, str):
            raise ExpressionError(f"{where}: malformed argument {_show(a)}")
        out.append(a)
    return out


def _core(form: _Sexp, index: int) -> FPCore:
    where = f"FPCore #{index + 1}"
    if not isinstance(form, list) or not form or form[0] != "FPCore":
        raise ExpressionError(f"{where}: expected (FPCore ...), got {_show(form)}")
    rest = form[1:]
    ident = ""
    if rest and isinstance(rest[0], str):
        ident, rest = rest[0], rest[1:]
    if not rest:
        raise ExpressionError(f"{where}: no argument list")
    names = _arguments(rest[0], where)
    rest = rest[1:]
    props: dict[str, _Sexp] = {}
    while len(rest) >= 2 and isinstance(rest[0], str) and rest[0].startswith(":"):
        props[rest[0]] = rest[1]
        rest = rest[2:]
    if len(rest) != 1:
        raise ExpressionError(f"{where}: expected one body expression after the properties")
    name = props.get(":name", ident)
    name = name.strip('"') if isinstance(name, str) else ident
    where = f"FPCore {name!r}" if name else where
    precision = props.get(":precision", "binary64")
    if precision not in ("binary64", "binary32"):
        raise ExpressionError(f"{where}: :precision must be binary64 or binary32, got "
                              f"{_show(precision)}")
    assert isinstance(precision, str)
    b = ProgramBuilder(names, where)
    out = _Body(b, where).expr(rest[0], {v: b.var(v) for v in names})
    box: list[tuple[fmpq, fmpq]] = []
    ignored: list[str] = []
    if names:
        if ":pre" not in props:
            raise ExpressionError(f"{where}: no :pre (the input ranges are needed)")
        ranges = _precondition(props[":pre"], names, where, ignored)
        for v in names:
            lo, hi = ranges[v]
            if lo is None or hi is None:
                raise ExpressionError(f"{where}: :pre does not bound {v!r} on both sides")
            if lo > hi:
                raise ExpressionError(f"{where}: :pre gives an empty range for {v!r}")
            box.append((lo, hi))
    return FPCore(b.finish(out, name), tuple(box), precision, name, tuple(ignored))


def read_fpcores(text: str) -> list[FPCore]:
    """Every ``FPCore`` form of ``text`` (module docstring).

    Examples
    --------
    >>> core = read_fpcore('(FPCore (x) :name "sq" :pre (<= 1 x 2) (* x x))')
    >>> core.name, core.box, core.program.fpcore()
    ('sq', ((1, 2),), '(FPCore (x) :name "sq" (* x x))')
    """
    forms = parse_sexprs(text)
    if not forms:
        raise ExpressionError("FPCore text: no FPCore form")
    return [_core(f, i) for i, f in enumerate(forms)]


def _form_name(form: _Sexp) -> str:
    """The ``:name`` (or identifier) of an FPCore form, read without translating it."""
    if not isinstance(form, list) or len(form) < 2:
        return ""
    rest = form[1:]
    ident = rest[0] if isinstance(rest[0], str) else ""
    for i in range(len(rest) - 1):
        nxt = rest[i + 1]
        if rest[i] == ":name" and isinstance(nxt, str):
            return nxt.strip('"')
    return ident


def read_fpcore(text: str, name: str | None = None) -> FPCore:
    """The one ``FPCore`` of ``text``, or the one named ``name`` (``:name`` or the
    identifier) when there are several (only that one is translated)."""
    forms = parse_sexprs(text)
    if name is not None:
        hits = [i for i, f in enumerate(forms) if _form_name(f) == name]
        if len(hits) != 1:
            names = ", ".join(_form_name(f) or "?" for f in forms[:20])
            raise ExpressionError(f"FPCore text: {len(hits)} FPCores named {name!r} (names: "
                                  f"{names})")
        return _core(forms[hits[0]], hits[0])
    if len(forms) != 1:
        raise ExpressionError(f"FPCore text holds {len(forms)} FPCores: name the one to "
                              "analyse")
    return _core(forms[0], 0)
