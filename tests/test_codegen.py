"""Generated evaluation code (dpverify.fast.codegen): the numpy module, the C file and the
exact emulation perform the same operations.

The references are independent of the code under test:

* a direct transcription of the schemes' definitions (the docstring of
  :mod:`dpverify.fast.codegen`) on Python ``Fraction``, each operation rounded by
  mpmath's correctly rounded ``from_rational`` (normal range) -- not the module's program;
* the C compiler's own ``float`` / ``double`` arithmetic and the C library's ``fmaf``,
  called through ctypes on a shared library built from the generated file, compared bit
  for bit with the numpy function on every binary32 number of an interval and on random
  binary64 numbers.
"""

from __future__ import annotations

import ctypes
import importlib.util
import shutil
import subprocess
from fractions import Fraction
from pathlib import Path

import mpmath
import numpy as np
import pytest
from flint import fmpq
from hypothesis import given, settings
from hypothesis import strategies as st

from dpverify.errors import InvalidParameterError
from dpverify.fast.codegen import SCHEMES, c_source, emit, emulate, program, python_source

CC = shutil.which("cc")
needs_cc = pytest.mark.skipif(CC is None, reason="no C compiler (cc) on this machine")

# exp on [-1/4, 1/4]: binary32 coefficients (from dpverify fpminimax, degree 6, p(0) = 1)
EXP32 = ["1", "0x1.000000p+0", "0x1.fffffep-2", "0x1.55555ap-3", "0x1.5554f4p-5",
         "0x1.1112bcp-7", "0x1.6e8c3ap-10"]
ODD64 = ["0", "0x1.fffffffffff06p-1", "0", "-0x1.555555554a3dfp-3", "0",
         "0x1.1111110811ed3p-7", "0", "-0x1.a019f51d3bc4ap-13"]


def _val(text: str) -> Fraction:
    return Fraction(float.fromhex(text)) if text.startswith(("0x", "-0x")) else Fraction(text)


def _rn(v: Fraction, prec: int) -> Fraction:
    if v == 0:
        return Fraction(0)
    man, exp = mpmath.libmp.from_rational(v.numerator, v.denominator, prec, "n")[1:3]
    return (-1 if v < 0 else 1) * Fraction(int(man)) * Fraction(2) ** int(exp)


def _reference(cs: list[Fraction], prec: int, scheme: str, parity: str | None,
               x: Fraction) -> Fraction:
    """The schemes transcribed from their definitions (normal range only)."""
    def fl(v: Fraction) -> Fraction:
        return _rn(v, prec)
    fma = scheme.endswith("-fma")
    if parity is None:
        b, v = list(cs), x
    else:
        b = cs[0::2] if parity == "even" else cs[1::2]
        v = fl(x * x)
    if scheme.startswith("horner"):
        q = b[-1]
        for c in reversed(b[:-1]):
            q = fl(v * q + c) if fma else fl(fl(v * q) + c)
        res = q
    else:
        p = v
        while len(b) > 1:
            nb = [fl(b[2 * j + 1] * p + b[2 * j]) if fma else fl(b[2 * j] + fl(b[2 * j + 1] * p))
                  for j in range(len(b) // 2)]
            if len(b) % 2:
                nb.append(b[-1])
            b = nb
            if len(b) > 1:
                p = fl(p * p)
        res = b[0]
    return fl(x * res) if parity == "odd" else res


@settings(deadline=None, max_examples=60)
@given(st.sampled_from(SCHEMES), st.sampled_from([None, "even", "odd"]),
       st.integers(0, 7), st.floats(min_value=0.015625, max_value=2.0, width=32),
       st.lists(st.floats(min_value=0.5, max_value=4.0, width=32), min_size=8, max_size=8))
def test_emulate_matches_the_definitions(scheme, parity, n, x, raw):
    """emulate() (the module's program) against the transcription of the definitions."""
    cs = [Fraction(v) for v in raw[:n + 1]]
    if parity is not None:
        cs = [c if (k % 2 == (0 if parity == "even" else 1)) else Fraction(0)
              for k, c in enumerate(cs)]
        while cs and cs[-1] == 0:
            cs.pop()
        if not cs:
            return  # no power of that parity up to this degree
    got = emulate([fmpq(c.numerator, c.denominator) for c in cs], "binary32", scheme, parity,
                  fmpq(*float(x).as_integer_ratio()))
    want = _reference(cs, 24, scheme, parity, Fraction(x))
    assert Fraction(int(got.p), int(got.q)) == want


def _load(py: Path, name: str):
    spec = importlib.util.spec_from_file_location(name, py)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return getattr(mod, name)


def _binary32_run(lo: float, count: int) -> np.ndarray:
    start = np.array([lo], dtype=np.float32).view(np.int32)[0]
    return np.arange(start, start + count, dtype=np.int32).view(np.float32)


@pytest.mark.parametrize("scheme", SCHEMES)
@pytest.mark.parametrize("parity", [None, "odd"])
def test_numpy_matches_exact(tmp_path, scheme, parity):
    cs = [_val(c) for c in (EXP32 if parity is None else ODD64)]
    fmt = "binary32"
    if parity == "odd":  # the odd coefficients rounded to binary32 for this test
        cs = [Fraction(float(np.float32(float(c)))) for c in cs]
    qs = [fmpq(c.numerator, c.denominator) for c in cs]
    out = emit(qs, fmt, scheme, parity, "p", tmp_path)
    fn = _load(out.python, "p")
    xs = _binary32_run(0.1875, 4096)[::8]
    ys = fn(xs)
    assert ys.dtype == np.float32 and ys.shape == xs.shape
    for x, y in zip(xs, ys):
        want = emulate(qs, fmt, scheme, parity, fmpq(*float(x).as_integer_ratio()))
        assert fmpq(*float(y).as_integer_ratio()) == want


def test_fma_changes_something():
    """The fma schemes really differ from the plain ones somewhere (else the tests above
    could not tell them apart)."""
    qs = [fmpq(*_val(c).as_integer_ratio()) for c in EXP32]
    xs = _binary32_run(0.2, 2000)
    diff = sum(emulate(qs, "binary32", "horner", None, fmpq(*float(x).as_integer_ratio()))
               != emulate(qs, "binary32", "horner-fma", None,
                          fmpq(*float(x).as_integer_ratio())) for x in xs[::10])
    assert diff > 0


def test_refusals(tmp_path):
    with pytest.raises(InvalidParameterError, match="leading coefficient"):
        program([1, 0], "binary64", "horner")
    with pytest.raises(InvalidParameterError, match="not a binary32 number"):
        program([1, "0.1"], "binary32", "horner")
    with pytest.raises(InvalidParameterError, match="other parity"):
        program([1, 1, 1], "binary64", "horner", "even")
    with pytest.raises(InvalidParameterError, match="scheme must be"):
        program([1, 1], "binary64", "clenshaw")
    with pytest.raises(InvalidParameterError, match="name must be"):
        python_source([1, 1], "binary64", "horner", name="import")
    out = emit([1, 1], "binary64", "horner-fma", None, "q", tmp_path, python=False)
    assert out.python is None and "fma(" in out.c.read_text()


def _cc(args: list[str], cwd: Path) -> None:
    assert CC is not None
    subprocess.run([CC, *args], cwd=cwd, check=True, capture_output=True, timeout=120)


@needs_cc
@pytest.mark.parametrize("fmt", ["binary32", "binary64"])
def test_c_compiles(tmp_path, fmt):
    """Every scheme's C file compiles with cc -c (-Wall -Werror), also as C99."""
    for scheme in SCHEMES:
        for parity, cs in ((None, EXP32), ("odd", ODD64)):
            qs = [fmpq(*_val(c).as_integer_ratio()) for c in cs]
            if fmt == "binary32":
                qs = [fmpq(*float(np.float32(float(c))).as_integer_ratio()) for c in qs]
            name = f"f_{scheme.replace('-', '_')}_{parity or 'dense'}"
            out = emit(qs, fmt, scheme, parity, name, tmp_path)
            _cc(["-std=c99", "-Wall", "-Wextra", "-Werror", "-ffp-contract=off", "-c",
                 out.c.name, "-o", f"{name}.o"], tmp_path)


@needs_cc
@pytest.mark.parametrize("scheme", SCHEMES)
def test_c_matches_numpy_bit_for_bit(tmp_path, scheme):
    """The shared library built from the C file and the numpy function agree bit for bit
    on every binary32 number of an interval (and the exact emulation on a sample)."""
    qs = [fmpq(*_val(c).as_integer_ratio()) for c in EXP32]
    name = "e_" + scheme.replace("-", "_")
    out = emit(qs, "binary32", scheme, None, name, tmp_path)
    _cc(["-O2", "-ffp-contract=off", "-shared", "-fPIC", "-o", f"{name}.so", out.c.name,
         "-lm"], tmp_path)
    lib = ctypes.CDLL(str(tmp_path / f"{name}.so"))
    fc = getattr(lib, name)
    fc.restype, fc.argtypes = ctypes.c_float, [ctypes.c_float]
    fn = _load(out.python, name)
    xs = _binary32_run(0.25, 1 << 14)
    yn = fn(xs)
    yc = np.array([fc(float(v)) for v in xs], dtype=np.float32)
    assert np.array_equal(yn.view(np.int32), yc.view(np.int32))


def _fma64():
    ns: dict[str, object] = {}
    src = python_source([1, 1], "binary64", "horner-fma")
    exec(compile(src, "<generated>", "exec"), ns)  # our generated module
    return ns["_fma64"]


def _exact_fma(a: float, b: float, c: float) -> float:
    v = Fraction(a) * Fraction(b) + Fraction(c)
    if v == 0:
        return a * b + c  # the sign of an exact zero
    try:
        return float(v)  # float(Fraction): correctly rounded
    except OverflowError:
        return float("inf") if v > 0 else float("-inf")


def test_fma64_emulation_exact():
    """numpy's binary64 fma against exact rationals: random operands over a wide range,
    cancellations, exact ties (``(2k+1) ulp(r)/2 + r - k ulp(r)``, the midpoint of ``r``
    and its neighbour), subnormal results, operands near the overflow threshold."""
    fma = _fma64()
    rng = np.random.default_rng(5)
    n = 3000
    a = rng.standard_normal(n) * 2.0 ** rng.integers(-60, 60, n)
    b = rng.standard_normal(n) * 2.0 ** rng.integers(-60, 60, n)
    r = rng.standard_normal(n) * 2.0 ** rng.integers(-200, 200, n)
    ulp = np.abs(np.nextafter(r, np.inf) - r)
    k = rng.integers(0, 50, n).astype(float)
    cases = [
        (a, b, rng.standard_normal(n) * 2.0 ** rng.integers(-120, 120, n)),
        (a, b, -(a * b) * (1 + rng.integers(-3, 4, n) * 2.0**-52)),
        (2 * k + 1, ulp / 2, r - k * ulp),
        (a * 2.0**-500, b * 2.0**-520, rng.standard_normal(n) * 2.0**-1060),
        (a * 2.0**600, b * 2.0**400, rng.standard_normal(n) * 2.0**1020),
        (np.array([0.0, -0.0, 1.0]), np.array([1.0, 1.0, -1.0]), np.array([-0.0, -0.0, 1.0])),
    ]
    for x, y, z in cases:
        got = fma(x, y, z)
        want = np.array([_exact_fma(u, v, w) for u, v, w in zip(x, y, z)])
        assert np.array_equal(got.view(np.int64), want.view(np.int64))


@needs_cc
def test_binary64_c_matches_numpy(tmp_path):
    qs = [fmpq(*_val(c).as_integer_ratio()) for c in ODD64]
    rng = np.random.default_rng(7)
    xs = rng.uniform(-0.8, 0.8, 4000)
    for scheme in SCHEMES:
        name = "s_" + scheme.replace("-", "_")
        out = emit(qs, "binary64", scheme, "odd", name, tmp_path)
        _cc(["-O2", "-ffp-contract=off", "-shared", "-fPIC", "-o", f"{name}.so", out.c.name,
             "-lm"], tmp_path)
        fc = getattr(ctypes.CDLL(str(tmp_path / f"{name}.so")), name)
        fc.restype, fc.argtypes = ctypes.c_double, [ctypes.c_double]
        yn = _load(out.python, name)(xs)
        yc = np.array([fc(float(v)) for v in xs])
        assert np.array_equal(yn.view(np.int64), yc.view(np.int64))
        for x in xs[:50]:
            want = emulate(qs, "binary64", scheme, "odd", fmpq(*float(x).as_integer_ratio()))
            assert fmpq(*float(_load(out.python, name)(x)).as_integer_ratio()) == want


@needs_cc
def test_fma32_emulation_against_fmaf(tmp_path):
    """numpy's emulated binary32 fma against the C library's fmaf on random and hard
    operands (ties, cancellations, subnormal results)."""
    src = tmp_path / "f.c"
    src.write_text("#include <math.h>\nfloat f(float a, float b, float c) "
                   "{ return fmaf(a, b, c); }\n")
    _cc(["-O2", "-shared", "-fPIC", "-o", "f.so", "f.c", "-lm"], tmp_path)
    fc = ctypes.CDLL(str(tmp_path / "f.so")).f
    fc.restype, fc.argtypes = ctypes.c_float, [ctypes.c_float] * 3
    out = emit([1, 1], "binary32", "horner-fma", None, "g", tmp_path)
    ns: dict[str, object] = {}
    exec(compile(out.python.read_text(), str(out.python), "exec"), ns)  # our generated file
    fma32 = ns["_fma32"]
    rng = np.random.default_rng(11)
    a = rng.standard_normal(3000).astype(np.float32)
    b = rng.standard_normal(3000).astype(np.float32)
    c = (-(a.astype(np.float64) * b) * (1 + rng.uniform(-1e-7, 1e-7, 3000))).astype(np.float32)
    tiny = np.float32(2.0**-75)
    a = np.concatenate([a, a * tiny, np.float32([1 + 2**-23, 1.5])])
    b = np.concatenate([b, b * tiny, np.float32([1 - 2**-23, 1 + 2**-23])])
    c = np.concatenate([c, c * tiny * tiny, np.float32([-1, 2**-24])])
    got = fma32(a, b, c)
    want = np.array([fc(float(x), float(y), float(z)) for x, y, z in zip(a, b, c)],
                    dtype=np.float32)
    assert np.array_equal(got.view(np.int32), want.view(np.int32))


def test_c_source_says_how_to_compile():
    src = c_source([1, 1], "binary64", "estrin")
    assert "-ffp-contract=off" in src and "FLT_EVAL_METHOD" in src and "fma" not in \
        src.split("*/", 1)[1]
