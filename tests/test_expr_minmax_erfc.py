"""erfc, min and max in the expression language: parser, every evaluator
of dpverify.expr, the independent verifier's evaluator, and a certificate end to end.

References are independent of the code under test: mpmath's erfc at 40 digits, Python's
min/max on exact rationals, math.erfc for the numpy callable, hand-derived ranges."""

from __future__ import annotations

import json
import math

import mpmath
import numpy as np
import pytest
from flint import acb, arb, arb_series, fmpq
from hypothesis import given, settings
from hypothesis import strategies as st

from dpverify.cli import main
from dpverify.errors import ExpressionError
from dpverify.expr import NotAnalytic, parse
from dpverify.numbers import parse_exact
from dpverify.verify import expr as vexpr

TEXTS = ["erfc(x)", "min(x, 1/3)", "max(x^2, 1/2, -x)", "max(min(x, 1 - x), 0) + erfc(2*x)",
         "2*min(x - 1, sin(x))^2"]


def _mp_ref(text: str, x: mpmath.mpf) -> mpmath.mpf:
    # the same formulas written directly in mpmath
    f = {
        "erfc(x)": lambda t: mpmath.erfc(t),
        "min(x, 1/3)": lambda t: min(t, mpmath.mpf(1) / 3),
        "max(x^2, 1/2, -x)": lambda t: max(t**2, mpmath.mpf(1) / 2, -t),
        "max(min(x, 1 - x), 0) + erfc(2*x)": lambda t: max(min(t, 1 - t), 0) + mpmath.erfc(2 * t),
        "2*min(x - 1, sin(x))^2": lambda t: 2 * min(t - 1, mpmath.sin(t)) ** 2,
    }[text]
    return f(x)


def _in(ball: arb, v: mpmath.mpf) -> bool:
    with mpmath.workdps(40):
        mid = mpmath.mpf(ball.mid().str(45, radius=False))
        rad = mpmath.mpf(ball.rad().str(10, radius=False))
        return abs(mid - v) <= rad * (1 + mpmath.mpf(10) ** -8) + mpmath.mpf(10) ** -30


@pytest.mark.parametrize("text", TEXTS)
def test_canonical_round_trip(text):
    e = parse(text)
    assert parse(e.canonical, e.variables) == e
    assert not e.is_polynomial


def test_constant_min_max_fold_exactly():
    assert parse("min(1/3, 1/2, 2)").eval_exact() == fmpq(1, 3)
    assert parse("max(1/3, 1/2) + x").canonical == "((1/2) + x)"


@pytest.mark.parametrize("bad,word", [
    ("sin(x, y)", "','"), ("x, y", "','"), ("(x, y)", "','"), ("min(x)", "two or more"),
    ("min(,x)", "','"), ("min(x,)", "')'"), ("max(x, y", "missing ')'"), ("erfc x", "'('"),
])
def test_parse_errors(bad, word):
    with pytest.raises(ExpressionError) as info:
        parse(bad)
    assert word in str(info.value)


@settings(deadline=None, max_examples=60)
@given(st.sampled_from(TEXTS), st.fractions(-3, 3, max_denominator=64),
       st.fractions(0, 1, max_denominator=64))
def test_arb_encloses_mpmath_on_balls(text, centre, radius):
    e = parse(text)
    a = fmpq(centre.numerator, centre.denominator)
    r = fmpq(radius.numerator, radius.denominator)
    ball = arb(a - r).union(arb(a + r))
    out = e.eval_arb(ball)
    with mpmath.workdps(40):
        for t in (0, fmpq(1, 4), fmpq(1, 2), fmpq(3, 4), 1):  # points of the ball
            x = a - r + 2 * r * t
            assert _in(out, _mp_ref(text, mpmath.mpf(int(x.p)) / int(x.q))), (text, x)
    # a point: tight
    pt = e.eval_arb(arb(a))
    assert pt.rad() < 1e-14 * (1 + abs(pt.mid()))


def test_erfc_and_max_are_tight_on_wide_balls():
    # erfc is decreasing: its range on [-1, 1] is [erfc(1), erfc(-1)] = [0.1572.., 1.8427..]
    r = parse("erfc(x)").eval_arb(arb(0, 1))
    assert r.lower() > 0.157 and r.upper() < 1.843
    # max(x, 0) on [-1, 1] is [0, 1]; plain ball max would give about [-1, 1]
    m = parse("max(x, 0)").eval_arb(arb(0, 1))
    assert m.lower() > -1e-6 and m.upper() < 1 + 1e-6


def test_series_pick_an_argument_or_refuse_at_ties():
    e = parse("max(x, 0)")
    s = e.eval_arb(arb_series([arb(fmpq(1, 2)), 1], prec=3))
    assert s.coeffs()[1] == 1  # max = x near 1/2
    s = e.eval_arb(arb_series([arb(fmpq(-1, 2)), 1], prec=3))
    assert len(s.coeffs()) <= 1  # max = 0 near -1/2
    with pytest.raises(NotAnalytic, match="tie"):
        e.eval_arb(arb_series([arb(0, fmpq(1, 10)), 1], prec=3))
    # erfc is entire: d/dx erfc(x) = -2/sqrt(pi) exp(-x^2), at 0: -2/sqrt(pi)
    d = parse("erfc(x)").eval_arb(arb_series([arb(0), 1], prec=2)).coeffs()[1]
    assert (d + 2 / arb.pi().sqrt()).contains(0)


def test_acb_analytic_reading():
    e = parse("min(x, 1/3)")
    z = e.eval_acb(acb(0, fmpq(1, 10)))  # Re(x - 1/3) < 0 on the box: min reads as x
    assert z.real.contains(0) and z.imag.contains(fmpq(1, 10))
    assert not e.eval_acb(acb(fmpq(1, 3), fmpq(1, 10))).is_finite()  # a possible tie
    w = parse("erfc(x)").eval_acb(acb(1))
    assert _in(w.real, mpmath.erfc(1))


def test_exact_mpmath_numpy():
    e = parse("max(x^2, 1/2, -x)")
    for q in (fmpq(-3, 2), fmpq(1, 3), fmpq(2)):
        assert e.eval_exact(q) == max(q * q, fmpq(1, 2), -q)
    assert parse("erfc(x)").eval_exact(0) == 1 and parse("erfc(x)").eval_exact(1) is None
    mpmath.mp.dps = 30
    assert abs(parse("erfc(x)").eval_mpmath(mpmath.mpf(1) / 2) - mpmath.erfc(0.5)) < 1e-25
    mpmath.mp.dps = 15
    xs = np.linspace(-2, 2, 9)
    f = parse("min(x, 1/3) + erfc(x)").to_numpy()
    want = np.array([min(x, 1 / 3) + math.erfc(x) for x in xs])
    assert np.allclose(f(xs), want, rtol=1e-14, atol=1e-15)
    g = parse("max(x, y, 0)").to_numpy()
    assert g(np.array([-1.0, 2.0]), np.array([-2.0, 1.0])).tolist() == [0.0, 2.0]


# ------------------------------------------------------------------ the verifier's evaluator


def test_verifier_parses_and_encloses():
    code = vexpr.parse("max(x^2, 1/2, -x) + erfc(x)", ["x"], "t")
    v = vexpr.run(code, vexpr.IvAlg(), [vexpr.point(fmpq(0))])
    assert _in(v.b, mpmath.mpf(1) / 2 + 1)  # erfc(0) = 1 is exact in the verifier
    iv = vexpr.run(vexpr.parse("min(x, 1/3)", ["x"], "t"), vexpr.IvAlg(),
                   [vexpr.interval(fmpq(0), fmpq(1))])
    assert (iv.lo, iv.hi) == (0, fmpq(1, 3))  # exact range of min(x, 1/3) on [0, 1]
    ser = vexpr.run(code, vexpr.SerAlg(2), [arb_series([arb(2), 1], prec=2)])
    # near 2: x^2 + erfc(x), derivative 2x - 2/sqrt(pi) exp(-x^2) = 4 - 2 e^-4/sqrt(pi)
    with mpmath.workdps(40):
        assert _in(ser.coeffs()[1], 4 - 2 * mpmath.exp(-4) / mpmath.sqrt(mpmath.pi))
    with pytest.raises(vexpr.Indeterminate):  # x^2 and 1/2 tie at 1/sqrt(2)
        vexpr.run(code, vexpr.SerAlg(2), [arb_series([arb("0.7071 +/- 0.001"), 1], prec=2)])


@pytest.mark.parametrize("bad", ["sin(x, y)", "x, y", "min(x)", "min(,x)", "(x, 1)"])
def test_verifier_refuses_bad_commas(bad):
    with pytest.raises(vexpr.Malformed):
        vexpr.parse(bad, ["x", "y"], "t")


def test_verifier_algebra_without_minmax_is_indeterminate():
    class NoMinMax(vexpr.IvAlg):
        minmax = None

    with pytest.raises(vexpr.Indeterminate):
        vexpr.run(vexpr.parse("min(x, 1)", ["x"], "t"), NoMinMax(), [vexpr.point(fmpq(0))])


def test_supnorm_certificate_with_max_and_erfc_verifies(tmp_path, capsys):
    out = tmp_path / "c.json"
    # sup over [-1, 1] of |max(x, 0) + erfc(x) - 1|: at x = -1 it is erfc(-1) - 1 = erf(1)
    assert main(["supnorm", "--f", "max(x, 0) + erfc(x)", "--poly", "1", "--interval",
                 "-1", "1", "--out", str(out)]) == 0
    capsys.readouterr()
    doc = json.loads(out.read_text())
    assert main(["verify", str(out)]) == 0
    assert "HOLDS" in capsys.readouterr().out
    lo = parse_exact(doc["statement"]["error"]["lower"])
    up = parse_exact(doc["statement"]["error"]["upper"])
    assert float(lo) <= math.erf(1) + 1e-15 and float(up) >= math.erf(1) - 1e-15
    doc["statement"]["error"]["upper"] = "1/2"  # erf(1) = 0.8427 > 1/2: must be refuted
    out.write_text(json.dumps(doc))
    assert main(["verify", str(out)]) == 1
    capsys.readouterr()


def test_chebyshev_coefficients_of_max_closed_form():
    # max(x, 0) = (x + |x|)/2 and |x| = 2/pi + sum_{m>=1} (-1)^(m+1) 4/(pi (4m^2 - 1)) T_2m
    # (chebyshev_series docstring; Mason & Handscomb), so c_0 = 1/pi, c_1 = 1/2,
    # c_2m = (-1)^(m+1) 2/(pi (4m^2 - 1)), other odd c_n = 0.  The quadrature path checks
    # analyticity of max on complex boxes (eval_acb) and uses ball max elsewhere.
    import dpverify

    s = dpverify.chebyshev_coefficients("max(x, 0)", 8)
    assert s.info()["rigorous_radius"]
    pi = arb.pi()
    want = [1 / pi, arb(fmpq(1, 2))] + [
        ((-1) ** (n // 2 + 1) * 2 / (pi * (n * n - 1))) if n % 2 == 0 else arb(0)
        for n in range(2, 9)]
    for n in range(9):
        assert s[n].overlaps(want[n]) and s[n].rad() < 1e-12, n
