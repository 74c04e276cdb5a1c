"""Code for evaluating a polynomial with machine coefficients in exactly one operation order.

A scheme (``docs/fpminimax.md``, the contract shared with the float-error certifier) fixes
the tree of floating-point operations; a certificate of the rounding error covers one
scheme, so the code must evaluate exactly that tree, every operation rounded to nearest
(ties to even) in the format (binary64 or binary32, no wider intermediate):

* ``horner``: ``q = c_n``; for ``i = n-1 .. 0``: ``q = fl(fl(x q) + c_i)``;
* ``horner-fma``: ``q = fl(x q + c_i)`` (one rounding: a fused multiply-add);
* ``estrin`` / ``estrin-fma``: pairs ``fl(b_2j + fl(b_2j+1 p))`` (``fl(b_2j+1 p + b_2j)``),
  ``p = x`` then ``p = fl(p p)`` between levels, an odd last element carried up;
* parity ``"even"`` / ``"odd"`` (powers of one parity): the scheme on ``d_j = c_2j``
  (``c_2j+1``) in ``y = fl(x x)``, times ``x`` (one more rounding) when odd; any other set
  of powers: the scheme on the dense list (an exact 0 added is exact).

One description of the operations (:func:`program`) is rendered three ways: a Python
module with one public numpy function (:func:`python_source`), a C file (:func:`c_source`:
exact hexadecimal literals, ``fma``/``fmaf`` where the scheme says so, a compile-time check
that ``float``/``double`` operations are not evaluated in a wider format, and the flag the
non-fma schemes need, ``-ffp-contract=off``), and an exact emulation (:func:`emulate`:
rationals, each operation rounded by :meth:`~dpverify.constructions.fpminimax.Format.round`).

numpy has no fused multiply-add; both are emulated exactly.  binary32 ``fmaf``: the
product of two binary32 numbers is exact in binary64 (48 bits), the sum is computed in
binary64 with *rounding to odd* (the rounded sum, its exact error by TwoSum, and the last
bit forced to 1 when inexact) and then rounded to binary32: rounding to odd at ``p + 2``
or more bits followed by rounding to nearest is the correct rounding (Boldo and Melquiond,
*Emulation of FMA and correctly rounded sums: proved algorithms using rounding to odd*,
IEEE Trans. Computers 57 (2008), Theorem 1; the binary64 sum neither overflows nor
underflows for binary32 operands).  binary64 ``fma`` without a wider format: the exact
product ``ph + pl`` (Dekker's TwoProd with Veltkamp's split), the exact sum ``s2 + e2 +
e1`` (two TwoSums), the candidate ``r = fl(s2 + fl(e2 + e1))`` and the exact residual
``s - r = rho + tau`` (two more TwoSums: every step is an error-free transformation), then
``r`` or a neighbour of ``r`` by exact comparisons of the residual with half the distances
to the neighbours (ties to even; ``r`` is within one spacing of ``s``); an exact zero takes
the sign IEEE 754 gives ``ph + c``.  Lanes where TwoProd or a split could underflow or
overflow (``|a b| < 2^-960``, an operand beyond ``2^995``) are computed one by one with
exact rationals.

Guarantee
---------
The three renderings perform the same operations in the same order (one program); the
exact emulation is exact.  Tests compare them bit for bit (the C file compiled and called
through ctypes, on every binary32 input of an interval and on random binary64 inputs).
Nothing here is a claim about the error: that is the certificates' job.
"""

from __future__ import annotations

import keyword
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from flint import fmpq

from ..constructions.float_formats import FORMATS, Format
from ..errors import InvalidParameterError, ParameterTypeError
from ..numbers import fmpq_str, to_fmpq

__all__ = ["SCHEMES", "PARITIES", "Op", "Program", "program", "python_source", "c_source",
           "emulate", "emit", "Emitted", "hex_literal"]

SCHEMES = ("horner", "horner-fma", "estrin", "estrin-fma")
PARITIES = (None, "even", "odd")
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


@dataclass(frozen=True)
class Op:
    """``dest = a * b`` (``mul``), ``a + b`` (``add``) or ``a * b + c`` (``fma``), one
    rounding each."""

    kind: str
    dest: str
    a: str
    b: str
    c: str | None = None


@dataclass(frozen=True)
class Program:
    """The constants ``c<k>`` (exact), the operations in order, and the result's name."""

    fmt: Format
    scheme: str
    parity: str | None
    constants: tuple[tuple[str, fmpq], ...]
    ops: tuple[Op, ...]
    result: str


def _check(coefficients: Sequence[Any], fmt: Any, scheme: Any, parity: Any
           ) -> tuple[list[fmpq], Format]:
    if isinstance(fmt, Format):
        f = fmt
    elif isinstance(fmt, str) and fmt in FORMATS:
        f = FORMATS[fmt]
    else:
        raise InvalidParameterError(f"format must be binary64 or binary32, got {fmt!r}")
    if scheme not in SCHEMES:
        raise InvalidParameterError(f"scheme must be one of {', '.join(SCHEMES)}, got "
                                    f"{scheme!r}")
    if parity not in PARITIES:
        raise InvalidParameterError(f"parity must be None, 'even' or 'odd', got {parity!r}")
    if isinstance(coefficients, (str, bytes)) or not isinstance(coefficients, Sequence):
        raise ParameterTypeError("coefficients must be a sequence of exact numbers, lowest "
                                 "power first")
    cs = [to_fmpq(c, f"coefficients[{i}]") for i, c in enumerate(coefficients)]
    if not cs:
        raise InvalidParameterError("coefficients must not be empty")
    if cs[-1] == 0 and len(cs) > 1:
        raise InvalidParameterError("the leading coefficient must not be 0 (the degree is the "
                                    "exact degree)")
    for i, c in enumerate(cs):
        if not f.contains(c):
            raise InvalidParameterError(f"coefficients[{i}] = {fmpq_str(c)} is not a {f.name} "
                                        "number")
    if parity is not None:
        off = 1 if parity == "even" else 0
        bad = [i for i in range(off, len(cs), 2) if cs[i] != 0]
        if bad:
            raise InvalidParameterError(f"parity {parity}: coefficient {bad[0]} (power of the "
                                        "other parity) must be 0")
    return cs, f


def program(coefficients: Sequence[Any], fmt: Any, scheme: str,
            parity: str | None = None) -> Program:
    """The operations of ``scheme`` on the coefficients (module docstring).

    Examples
    --------
    >>> pr = program([1, 2, 3], "binary64", "horner")
    >>> [(o.kind, o.dest, o.a, o.b) for o in pr.ops]  # doctest: +NORMALIZE_WHITESPACE
    [('mul', 't0', 'x', 'c2'), ('add', 'q1', 't0', 'c1'),
     ('mul', 't2', 'x', 'q1'), ('add', 'q3', 't2', 'c0')]
    """
    cs, f = _check(coefficients, fmt, scheme, parity)
    ops: list[Op] = []
    names = iter(range(10**9))

    def fresh(prefix: str) -> str:
        return f"{prefix}{next(names)}"

    if parity is None:
        idx = list(range(len(cs)))
        var = "x"
    else:
        idx = list(range(0 if parity == "even" else 1, len(cs), 2))
        var = "y"
        ops.append(Op("mul", "y", "x", "x"))
    consts = tuple((f"c{k}", cs[k]) for k in range(len(cs)))
    b = [f"c{k}" for k in idx]
    fma = scheme.endswith("-fma")
    if scheme.startswith("horner"):
        q = b[-1]
        for i in range(len(b) - 2, -1, -1):
            if fma:
                nq = fresh("q")
                ops.append(Op("fma", nq, var, q, b[i]))
            else:
                t, nq = fresh("t"), fresh("q")
                ops.append(Op("mul", t, var, q))
                ops.append(Op("add", nq, t, b[i]))
            q = nq
        res = q
    else:
        p = var
        level = list(b)
        while len(level) > 1:
            nb = []
            for j in range(len(level) // 2):
                if fma:
                    d = fresh("e")
                    ops.append(Op("fma", d, level[2 * j + 1], p, level[2 * j]))
                else:
                    t, d = fresh("t"), fresh("e")
                    ops.append(Op("mul", t, level[2 * j + 1], p))
                    ops.append(Op("add", d, level[2 * j], t))
                nb.append(d)
            if len(level) % 2:
                nb.append(level[-1])
            level = nb
            if len(level) > 1:
                np_ = fresh("p")
                ops.append(Op("mul", np_, p, p))
                p = np_
        res = level[0]
    if parity == "odd":
        ops.append(Op("mul", "r", "x", res))
        res = "r"
    return Program(f, scheme, parity, consts, tuple(ops), res)


def hex_literal(v: fmpq, fmt: Format, c: bool = False) -> str:
    """Exact hexadecimal text of a number of the format (``0x1.8p+1``; with ``c`` and
    binary32 the ``f`` suffix)."""
    h = float(v).hex()
    if "." in h:
        mant, exp = h.split("p")
        mant = mant.rstrip("0").rstrip(".") if "." in mant else mant
        h = f"{mant}p{exp}"
    return h + ("f" if c and fmt.name == "binary32" else "")


def _check_name(name: Any) -> str:
    if not isinstance(name, str) or not _NAME.fullmatch(name) or keyword.iskeyword(name) \
            or name.startswith("_"):
        raise InvalidParameterError(f"name must be an identifier (letters, digits, _, not "
                                    f"starting with _ or a digit), got {name!r}")
    return name


_FMA32 = '''

def _fma32(a, b, c):
    """Correctly rounded binary32 a * b + c: exact binary64 product, binary64 sum rounded
    to odd (TwoSum error; last bit set when inexact), then rounded to binary32 (Boldo and
    Melquiond, IEEE Trans. Computers 57 (2008))."""
    p = np.asarray(a, dtype=np.float64) * np.asarray(b, dtype=np.float64)
    c64 = np.asarray(c, dtype=np.float64)
    s = p + c64
    bb = s - p
    err = (p - (s - bb)) + (c64 - bb)
    bits = np.array(s, dtype=np.float64).view(np.int64)
    fix = (err != 0) & ((bits & 1) == 0) & np.isfinite(s)
    toward = np.where((err > 0) == (s > 0), 1, -1).astype(np.int64)
    bits = np.where(fix, bits + toward, bits)
    return bits.view(np.float64).astype(np.float32)
'''

_FMA64 = '''

def _two_sum(a, b):
    s = a + b
    bb = s - a
    return s, (a - (s - bb)) + (b - bb)


def _split(a):
    c = 134217729.0 * a  # 2^27 + 1 (Veltkamp)
    hi = c - (c - a)
    return hi, a - hi


def _fma64_exact(a, b, c):
    """One binary64 a * b + c by exact rationals (lanes outside the error-free range)."""
    from fractions import Fraction  # only for the rare lanes near underflow or overflow

    v = Fraction(float(a)) * Fraction(float(b)) + Fraction(float(c))
    if v == 0:
        return float(a) * float(b) + float(c)  # the sign of an exact zero, as IEEE 754
    try:
        return float(v)  # correctly rounded (int / int division is), subnormals included
    except OverflowError:
        return float("inf") if v > 0 else float("-inf")


def _fma64(a, b, c):
    """Correctly rounded binary64 a * b + c without a wider format: the exact product as
    ph + pl (Dekker's TwoProd), the exact sum as s2 + e2 + e1 (TwoSum), the candidate
    r = fl(s2 + fl(e2 + e1)) and its exact residual s - r = d + t as two doubles
    (TwoSum), compared exactly with half the distances to the neighbours of r (ties to
    even).  Lanes where TwoProd or TwoSum could underflow or overflow are computed by
    exact rationals."""
    a, b, c = (np.asarray(v, dtype=np.float64) for v in (a, b, c))
    a, b, c = np.broadcast_arrays(a, b, c)
    with np.errstate(all="ignore"):
        ph = a * b
        ah, al = _split(a)
        bh, bl = _split(b)
        pl = ((ah * bh - ph) + ah * bl + al * bh) + al * bl
        s1, e1 = _two_sum(pl, c)
        s2, e2 = _two_sum(ph, s1)
        t, dt = _two_sum(e2, e1)
        r, d = _two_sum(s2, t)
        rho, tau = _two_sum(d, dt)  # s - r = rho + tau exactly, rho = fl(s - r)
        up = np.nextafter(r, np.inf)
        dn = np.nextafter(r, -np.inf)
        hu = (up - r) / 2  # exact: half a spacing (a power of two, or subnormal quantum)
        hd = (r - dn) / 2
        above = (rho > hu) | ((rho == hu) & (tau > 0))
        below = (rho < -hd) | ((rho == -hd) & (tau < 0))
        tie_up = (rho == hu) & (tau == 0)
        tie_dn = (rho == -hd) & (tau == 0)
        odd = (r.view(np.int64) & 1) == 1
        out = np.where(above | (tie_up & odd), up, np.where(below | (tie_dn & odd), dn, r))
        out = np.where(out == 0, ph + c, out)  # an exact zero takes IEEE's sign
        big = 2.0**995
        safe = (np.isfinite(a) & np.isfinite(b) & np.isfinite(c) & (np.abs(a) < big)
                & (np.abs(b) < big) & (np.abs(c) < big)
                & ((ph == 0) & ((a == 0) | (b == 0)) | (np.abs(ph) >= 2.0**-960)))
    if not np.all(safe):
        out = np.array(out, dtype=np.float64)
        for i in zip(*np.nonzero(~safe)):
            if not (np.isfinite(a[i]) and np.isfinite(b[i]) and np.isfinite(c[i])):
                out[i] = a[i] * b[i] + c[i]  # infinities and NaN: as the operations give
            else:
                out[i] = _fma64_exact(a[i], b[i], c[i])
    return out
'''


def python_source(coefficients: Sequence[Any], fmt: Any, scheme: str,
                  parity: str | None = None, name: str = "p") -> str:
    """A Python module with one public numpy function ``name(x)`` evaluating the program in
    the format's dtype (module docstring).

    Examples
    --------
    >>> src = python_source([1, 2, 3], "binary32", "horner", name="p")
    >>> "np.float32" in src and "def p(x)" in src
    True
    """
    name = _check_name(name)
    pr = program(coefficients, fmt, scheme, parity)
    f = pr.fmt
    dt = "np.float32" if f.name == "binary32" else "np.float64"
    poly = _poly_text(pr)
    lines = [
        '"""Generated by dpverify: do not edit.',
        "",
        f"{name}(x) evaluates p(x) = {poly}",
        f"in {f.name} ({dt}: every operation rounded to nearest in that format), with the",
        f"operation order of the scheme {scheme!r}"
        + (f" in y = x*x, parity {parity!r}" if parity else "") + " (dpverify docs:",
        "fpminimax.md). A certificate of its rounding error covers exactly this order.",
        '"""',
        "",
        "import numpy as np",
        "",
        f'__all__ = ["{name}"]',
        "",
    ]
    for cname, v in pr.constants:
        lines.append(f'_{cname} = {dt}(float.fromhex("{hex_literal(v, f)}"))  # {fmpq_str(v)}')
    src = "\n".join(lines) + "\n"
    if scheme.endswith("-fma"):
        src += _FMA32 if f.name == "binary32" else _FMA64
    body = [f"    x = np.asarray(x, dtype={dt})"]
    for op in pr.ops:
        a, b = _py_arg(op.a), _py_arg(op.b)
        if op.kind == "mul":
            body.append(f"    {op.dest} = {a} * {b}")
        elif op.kind == "add":
            body.append(f"    {op.dest} = {a} + {b}")
        else:
            fn = "_fma32" if f.name == "binary32" else "_fma64"
            body.append(f"    {op.dest} = {fn}({a}, {b}, {_py_arg(op.c or '')})")
    res = _py_arg(pr.result)
    body.append(f"    return np.array(np.broadcast_to(np.asarray({res}, dtype={dt}), "
                "np.shape(x)))")
    src += f'''

def {name}(x):
    """p(x) for an array (or scalar) x of {f.name} numbers ({dt}; other values are first
    rounded to {dt})."""
    with np.errstate(over="ignore", invalid="ignore"):
''' + "\n".join("    " + ln for ln in body) + "\n"
    return src


def _poly_text(pr: Program) -> str:
    """``p(x) = c_n x^n + ...`` with exact hexadecimal coefficients (for comments)."""
    terms = [f"{hex_literal(v, pr.fmt)}*x^{k}" for k, (_, v) in enumerate(pr.constants)
             if v != 0]
    return " + ".join(reversed(terms)) or "0"


def _py_arg(v: str) -> str:
    return f"_{v}" if re.fullmatch(r"c\d+", v) else v


def c_source(coefficients: Sequence[Any], fmt: Any, scheme: str, parity: str | None = None,
             name: str = "p") -> str:
    """A C file defining ``float name(float x)`` / ``double name(double x)`` (module
    docstring).

    Examples
    --------
    >>> src = c_source([1, 2, 3], "binary32", "horner-fma")
    >>> "fmaf(" in src and "0x1.8p+1f" in src
    True
    """
    name = _check_name(name)
    pr = program(coefficients, fmt, scheme, parity)
    f = pr.fmt
    ty = "float" if f.name == "binary32" else "double"
    fma = "fmaf" if ty == "float" else "fma"
    method = "FLT_EVAL_METHOD"
    poly = _poly_text(pr)
    contract = ("Compile without contraction of a * b + c into a fused multiply-add, which\n"
                " * would change the roundings: -ffp-contract=off (GCC, Clang; the pragma below\n"
                " * does it for compilers that honour it)." if not scheme.endswith("-fma") else
                "The fused multiply-adds are explicit (" + fma + "); compile with\n"
                " * -ffp-contract=off all the same so that no other operation is fused.")
    out = [
        "/* Generated by dpverify: do not edit.",
        f" * {name}(x) evaluates p(x) = {poly}",
        f" * in {f.name} ({ty}: every operation rounded to nearest in that format),",
        f" * with the operation order of the scheme \"{scheme}\""
        + (f" in y = x*x, parity {parity}" if parity else "") + ".",
        " * A certificate of its rounding error covers exactly this order.",
        " * " + contract,
        " */",
        "#include <float.h>",
        "#include <math.h>",
        "",
        "#if defined(__clang__) || !defined(__GNUC__)",
        "#pragma STDC FP_CONTRACT OFF",
        "#endif",
        "",
        f"#if defined({method}) && {method} != 0",
        f'#error "{ty} operations must not be evaluated in a wider format ({method} != 0)"',
        "#endif",
        "",
        f"{ty} {name}({ty} x)",
        "{",
    ]
    for cname, v in pr.constants:
        out.append(f"    const {ty} {cname} = {hex_literal(v, f, c=True)};")
    for cname, _ in pr.constants:
        out.append(f"    (void){cname};")
    for op in pr.ops:
        if op.kind == "mul":
            out.append(f"    const {ty} {op.dest} = {op.a} * {op.b};")
        elif op.kind == "add":
            out.append(f"    const {ty} {op.dest} = {op.a} + {op.b};")
        else:
            out.append(f"    const {ty} {op.dest} = {fma}({op.a}, {op.b}, {op.c});")
    out += [f"    return {pr.result};", "}", ""]
    return "\n".join(out)


def emulate(coefficients: Sequence[Any], fmt: Any, scheme: str, parity: str | None,
            x: Any) -> fmpq | float:
    """The value the program computes at ``x`` (a number of the format), exactly: each
    operation in rationals, rounded to the format (ties to even); ``float('inf')`` (signed)
    on overflow.

    Examples
    --------
    >>> emulate([1, "0.25"], "binary32", "horner", None, 3)  # fl(fl(3 * 0.25) + 1)
    7/4
    """
    pr = program(coefficients, fmt, scheme, parity)
    f = pr.fmt
    xv = to_fmpq(x, "x")
    if not f.contains(xv):
        raise InvalidParameterError(f"x = {fmpq_str(xv)} is not a {f.name} number")
    big = fmpq(2) ** (f.emax + 1) - fmpq(2) ** (f.emax - f.precision)  # rounds to infinity
    env: dict[str, Any] = {"x": xv, **dict(pr.constants)}

    def rnd(v: Any) -> Any:
        if isinstance(v, float):
            return v
        if abs(v) >= big:
            return float("inf") if v > 0 else float("-inf")
        return f.round(v)

    for op in pr.ops:
        a, b = env[op.a], env[op.b]
        if isinstance(a, float) or isinstance(b, float):
            raise OverflowError("an intermediate value overflowed")
        if op.kind == "mul":
            env[op.dest] = rnd(a * b)
        elif op.kind == "add":
            env[op.dest] = rnd(a + b)
        else:
            c = env[op.c or ""]
            env[op.dest] = rnd(a * b + c)
    out: fmpq | float = env[pr.result]
    return out


@dataclass(frozen=True)
class Emitted:
    """The files written by :func:`emit` (``python`` is None with ``python=False``)."""

    python: Path | None
    c: Path
    function: str


def emit(coefficients: Sequence[Any], fmt: Any, scheme: str, parity: str | None = None,
         name: str = "p", dir: Any = ".", *, python: bool = True) -> Emitted:
    """Write ``<dir>/<name>.py`` (one public numpy function ``name``) and ``<dir>/<name>.c``
    (module docstring); ``python=False``: the C file only.

    Examples
    --------
    >>> import tempfile
    >>> out = emit(["1", "0.5"], "binary32", "horner", None, "lin", tempfile.mkdtemp())
    >>> out.python.name, out.c.name
    ('lin.py', 'lin.c')
    """
    name = _check_name(name)
    program(coefficients, fmt, scheme, parity)  # validates everything first
    d = Path(dir)
    try:
        d.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise InvalidParameterError(f"dir: cannot create the directory {str(dir)[:200]!r}: "
                                    f"{exc.strerror or exc}") from None
    py_path = None
    if python:
        py_path = d / f"{name}.py"
        py_path.write_text(python_source(coefficients, fmt, scheme, parity, name))
    c_path = d / f"{name}.c"
    c_path.write_text(c_source(coefficients, fmt, scheme, parity, name))
    return Emitted(py_path, c_path, name)
