"""The float screen of check_implementation is rigorous: every enclosure it returns holds the
exact error, checked point by point against exact arithmetic (arb at 300 bits, rounded
to the format in integer arithmetic by the independent oracles below).

The oracles are independent of dpverify.testing: Python's correctly rounded int / int
(binary64), numpy's float64 -> float32 cast (binary32), math.ulp, fmpq arithmetic for the
error-free transformations, and arb at high precision for the functions.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
from flint import arb, ctx, fmpq

from dpverify.expr import parse
from dpverify.numbers import arb_to_fmpq_bounds
from dpverify.testing.eft import comp_horner, horner_error_terms, two_prod, two_sum
from dpverify.testing.fastscreen import decide_values, screen_flat, screen_pieces
from dpverify.testing.formats import (
    BINARY32,
    BINARY64,
    from_ordinal,
    round_nearest,
    to_ordinal,
    ulp_exponent,
)
from dpverify.testing.models import ExprModels, PolyModels, cover
from dpverify.testing.screen import FAIL, PASS, UNDECIDED, Tolerance, screen_models
from dpverify.testing.trig import trig_values


def q(f: float) -> fmpq:
    return fmpq(*float(f).as_integer_ratio())


def test_round_nearest_matches_the_independent_oracles():
    rng = np.random.default_rng(7)
    for _ in range(3000):
        a, b = int(rng.integers(1, 2**62)), int(rng.integers(1, 2**62))
        e = int(rng.integers(-1100, 1100))
        v = fmpq(a, b) * (fmpq(2) ** e if e >= 0 else fmpq(1, 2 ** -e))
        try:
            want = float(Fraction(int(v.p), int(v.q)))
        except OverflowError:
            want = math.inf
        assert round_nearest(v) == want
        assert round_nearest(-v) == -want
    # binary32: numpy's cast of a float64 rounds to nearest even (one rounding: exact input)
    xs = rng.standard_normal(3000) * np.exp(rng.uniform(-110, 95, 3000))
    for x in xs.tolist():
        with np.errstate(over="ignore"):
            assert round_nearest(q(x), BINARY32) == float(np.float32(x))
    # ties go to even: 1 + 2^-24 is halfway between 1 and 1 + 2^-23 in binary32
    assert round_nearest(1 + fmpq(1, 2**24), BINARY32) == 1.0
    assert round_nearest(1 + fmpq(3, 2**24), BINARY32) == 1 + 2.0**-22


def test_ulps_and_ordinals():
    for x in (1.0, 1.5, 0.0, 5e-324, 2.0**-1022, 1e308, 3.0):
        assert 2.0 ** ulp_exponent(x) == math.ulp(x)
    assert ulp_exponent(1.0, BINARY32) == -23 and ulp_exponent(0.0, BINARY32) == -149
    xs = np.array([-2.5, -5e-324, 0.0, 5e-324, 1.0, np.nextafter(1.0, 2.0)])
    o = to_ordinal(xs, BINARY64)
    assert list(np.diff(o[1:4])) == [1, 1] and o[-1] - o[-2] == 1
    np.testing.assert_array_equal(from_ordinal(o, BINARY64), xs)
    f32 = np.array([-1.5, 1e-45, 1.0, 3.4e38], dtype=np.float32).astype(np.float64)
    np.testing.assert_array_equal(from_ordinal(to_ordinal(f32, BINARY32), BINARY32), f32)


def test_error_free_transformations_are_exact():
    rng = np.random.default_rng(3)
    a = rng.standard_normal(2000) * np.exp(rng.uniform(-300, 300, 2000))
    b = rng.standard_normal(2000) * np.exp(rng.uniform(-300, 300, 2000))
    s, e = two_sum(a, b)
    p, f = two_prod(a, b)
    for i in range(a.size):
        assert q(s[i]) + q(e[i]) == q(a[i]) + q(b[i])
        assert q(p[i]) + q(f[i]) == q(a[i]) * q(b[i])


def test_compensated_horner_is_within_its_bound():
    rng = np.random.default_rng(11)
    for n in (1, 4, 12):
        bh = rng.standard_normal(n + 1) * 2.0 ** rng.integers(-8, 8, n + 1)
        bl = bh * rng.uniform(-2**-53, 2**-53, n + 1)
        t = rng.uniform(-1, 1, 300)
        s, c = comp_horner(list(bh), list(bl), t)
        A, B, S = horner_error_terms(n)
        for i in range(t.size):
            ti = q(t[i])
            exact = sum((q(bh[j]) + q(bl[j])) * ti ** j for j in range(n + 1))
            bound = sum((A * abs(q(bh[j])) + B * abs(q(bl[j]))) * abs(ti) ** j
                        for j in range(n + 1)) + S
            assert abs(q(s[i]) + q(c[i]) - exact) <= bound


def exact_ulps(expr, x, y, fmt):
    """The error of y at x in ulps, enclosed from a 300-bit arb ball."""
    with ctx.workprec(300):
        v = expr.eval_arb(arb(q(x)))
    a, b = arb_to_fmpq_bounds(v)
    r = round_nearest(a, fmt)
    assert r == round_nearest(b, fmt)
    ulp = fmpq(2) ** ulp_exponent(r, fmt) if ulp_exponent(r, fmt) >= 0 else \
        fmpq(1, 2 ** -ulp_exponent(r, fmt))
    return abs(q(y) - a) / ulp, abs(q(y) - b) / ulp


CASES = [("exp(x)", -30, 30), ("erfc(x)", -5, 27.5), ("sin(x)", -40, 40),
         ("log1p(x)", -0.75, 100), ("x^3 - x", -2, 2), ("sqrt(x)", 0, 9),
         ("1/(1 + x^2)", -8, 8)]


@pytest.mark.parametrize("fmt", [BINARY64, BINARY32], ids=["binary64", "binary32"])
@pytest.mark.parametrize("text,lo,hi", CASES)
def test_screen_enclosures_contain_the_exact_error(text, lo, hi, fmt):
    # inputs uniform and log-uniform (tiny ones too); outputs: the float function moved by
    # a few random ulps, so errors range from 0 to ~6 ulps; every screened enclosure must
    # hold the exact error in ulps
    rng = np.random.default_rng(abs(hash((text, fmt.name))) % 2**32)
    e = parse(text)
    f = e.to_numpy()
    xs = np.concatenate([rng.uniform(lo, hi, 8000),
                         np.sign(rng.uniform(-1, 1, 2000)) * np.exp(rng.uniform(-700, 0, 2000))])
    xs = np.clip(xs, lo, hi).astype(fmt.dtype).astype(np.float64)
    xs = np.unique(xs)
    with np.errstate(all="ignore"):
        ys = f(xs).astype(fmt.dtype).astype(np.float64)
    # a few ulps of the format away (any float64 output is compared exactly)
    ys = ys + rng.integers(-4, 5, xs.size) * np.spacing(ys.astype(fmt.dtype)).astype(float)
    pieces = cover(xs, ExprModels(e, fmt))
    # the screen of the checks: models (plain Horner in binary32) and flat pieces
    sc = screen_pieces(xs, ys, pieces, fmt, Tolerance(2.0, 2.0, None, None))
    decided = np.flatnonzero(sc.status != UNDECIDED)
    # most: erfc near 27 needs pieces ~0.01 wide, a few points each at this density
    assert decided.size > 0.5 * xs.size
    flat = np.zeros(xs.size, dtype=bool)
    for p in pieces:
        flat[p.start:p.stop] = p.flat is not None
    for i in rng.choice(decided, size=min(250, decided.size), replace=False):
        lo_e, hi_e = exact_ulps(e, xs[i], ys[i], fmt)
        assert q(sc.ulps_lo[i]) <= lo_e and hi_e <= q(sc.ulps_hi[i]), (xs[i], ys[i])
        # and it is sharp (a flat piece: one enclosure of f for all its points, within
        # the ulp its values share)
        assert sc.ulps_hi[i] - sc.ulps_lo[i] < (1.0 if flat[i] else 1e-3)


@pytest.mark.parametrize("fname", ["sin", "cos"])
def test_reduced_trig_screen_contains_the_exact_error(fname):
    """binary32 sin/cos beyond 1/2: exact reduction, then the fast screen (trig.py)."""
    rng = np.random.default_rng(11)
    bits = rng.integers(0x3F000001, 0x7F7FFFFF, 600).astype(np.uint32)
    xs = np.unique(np.concatenate([bits.view(np.float32).astype(np.float64),
                                   -bits[:200].view(np.float32).astype(np.float64)]))
    ys = getattr(np, fname)(xs).astype(np.float32).astype(np.float64)
    ys = ys + rng.integers(-3, 4, xs.size) * np.spacing(ys.astype(np.float32)).astype(float)
    V, W, _ = trig_values(fname, xs)
    sc = decide_values(ys, V, W, BINARY32, Tolerance(2.0, 2.0, None, None))
    decided = np.flatnonzero(sc.status != UNDECIDED)
    assert decided.size > 0.95 * xs.size
    e = parse(f"{fname}(x)")
    for i in decided[::3]:
        lo_e, hi_e = exact_ulps(e, xs[i], ys[i], BINARY32)
        assert q(sc.ulps_lo[i]) <= lo_e and hi_e <= q(sc.ulps_hi[i]), (xs[i], ys[i])


def test_flat_pieces_decide_overflow_underflow_and_saturation():
    """exp beyond the binary32 range and tanh near +-1: one ball per piece decides the
    rounding (models.FlatModel); a wrong output fails, a right one passes."""
    tol = Tolerance(1.0, 1.0, None, None)
    for text, lo, hi, want in [("exp(x)", 100, 1e30, np.inf), ("exp(x)", -1e30, -120, 0.0),
                               ("tanh(x)", 10, 3e38, 1.0), ("tanh(x)", -3e38, -10, -1.0)]:
        xs = np.unique(np.geomspace(abs(lo), abs(hi), 200).astype(np.float32).astype(float)
                       * np.sign(lo))
        builder = ExprModels(parse(text), BINARY32)
        flat = builder.flat(float(xs[0]), float(xs[-1]))
        assert flat is not None and flat.rounded == want, (text, flat)
        good = screen_flat(np.full(xs.size, want), flat, BINARY32, tol)
        assert np.all(good.status == PASS)
        # the largest float for +inf (10^12 ulps off); 2 ulps off for 0 and +-1
        wrong = np.full(xs.size, {np.inf: float(np.finfo(np.float32).max), 0.0: 2.0 ** -148,
                                  1.0: 1 - 2.0 ** -22, -1.0: -1 + 2.0 ** -22}[want])
        bad = screen_flat(wrong, flat, BINARY32, tol)
        assert np.all(bad.status != PASS) and np.any(bad.status == FAIL), text


def test_polynomial_models_with_cancellation():
    # (x - 1)^6 expanded, near its root: the exact Taylor shifts keep the screen rigorous
    from flint import fmpq_poly

    P = fmpq_poly([1, -6, 15, -20, 15, -6, 1])
    rng = np.random.default_rng(5)
    xs = np.unique(rng.uniform(0.5, 1.5, 3000))
    ys = np.polynomial.polynomial.polyval(xs, [1, -6, 15, -20, 15, -6, 1])
    pieces = cover(xs, PolyModels(P, BINARY64))
    sc = screen_models(xs, ys, pieces, BINARY64, Tolerance(1.0, 1.0, None, None))
    for i in np.flatnonzero(sc.status != UNDECIDED)[::7]:
        v = P(q(xs[i]))
        r = round_nearest(v)
        err = abs(q(ys[i]) - v) / (fmpq(2) ** ulp_exponent(r) if ulp_exponent(r) >= 0
                                   else fmpq(1, 2 ** -ulp_exponent(r)))
        assert q(sc.ulps_lo[i]) <= err <= q(sc.ulps_hi[i])
