"""check_implementation: one ulp at one point is caught and named; the
float search finds a bug that no fixed point hits; any construction by command name with
any parameters; duck-typed and numpy references; the pytest plugin, loaded both ways.

Independent expectations: the "correct" implementations round the exact value with
Python's Fraction -> float (IEEE round to nearest), or evaluate an integer polynomial whose
values are integers below 2^53 (exact in binary64, so its error is 0 by hand).
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
from flint import fmpq, fmpq_poly
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.polynomial import Polynomial

from dpverify.approximation import Approximation
from dpverify.errors import InvalidParameterError, ParameterTypeError
from dpverify.exact import ChebyshevPoly, MonomialPoly
from dpverify.numbers import to_fmpq
from dpverify.testing import check_implementation

pytest_plugins = ["pytester"]


def rounded(poly):
    """The correctly rounded implementation of ``poly`` (at most 1/2 ulp everywhere)."""
    P = poly.to_monomial().as_fmpq_poly()

    def impl(xs):
        vals = (P(to_fmpq(float(x))) for x in xs)
        return np.array([float(Fraction(int(v.p), int(v.q))) for v in vals])
    return impl


def perturbed(impl, at, direction=np.inf):
    """``impl`` with its output at the input ``at`` moved by one ulp, nowhere else."""
    def bad(xs):
        ys = np.asarray(impl(xs), dtype=np.float64).copy()
        hit = xs == at
        ys[hit] = np.nextafter(ys[hit], direction)
        return ys
    return bad


# p(x) = 2x^3 - 3x + 7 on the integers 0..200: every value is an integer below 2^53
INT_POLY = MonomialPoly([7, -3, 0, 2])
INT_APPROX = Approximation(construction="test", params={}, poly=INT_POLY,
                           target={"kind": "test"}, domain={"kind": "integers", "lo": 0,
                                                            "hi": 200})


def horner_int(xs):
    return ((2.0 * xs + 0.0) * xs - 3.0) * xs + 7.0


def test_one_ulp_at_the_worst_point_is_caught_with_ulps_0():
    rep = check_implementation(horner_int, INT_APPROX, ulps=0)
    assert rep.points == 201 and rep.worst_ulps == 0          # exact everywhere
    worst = 200.0                                               # largest |p|: 15999407
    bad = perturbed(horner_int, worst)
    with pytest.raises(AssertionError) as err:
        check_implementation(bad, INT_APPROX, ulps=0)
    msg = str(err.value)
    assert "x = 200.0 (0x1.9000000000000p+7)" in msg
    assert "exact reference 15999407" in msg
    assert "off by 1 ulps" in msg and "1 of 201 points fail" in msg


def test_one_ulp_at_the_worst_point_of_an_interval_is_caught():
    p = ChebyshevPoly(["1/3", "-2/7", "5/11", "1/13", "-1/17"], domain=(-1, 3))
    good = rounded(p)
    rep = check_implementation(good, p, 4000, ulps="1/2")   # `good` loops in Python
    x = rep.worst_input                      # where the rounding error is largest
    assert 0 < rep.worst_ulps <= fmpq(1, 2)
    # one ulp further from the exact value there: error 1 + (rounding error) > 1/2 ulp
    away = np.inf if to_fmpq(rep.actual) > rep.reference_value else -np.inf
    bad = perturbed(good, x, away)
    for ulps in (0, "1/2"):
        with pytest.raises(AssertionError) as err:
            check_implementation(bad, p, 4000, ulps=ulps)
        msg = str(err.value)
        assert f"x = {x!r} ({x.hex()})" in msg       # the perturbed input is named
        exact = p.to_monomial().as_fmpq_poly()(to_fmpq(x))
        assert f"exact reference {exact}" in msg
    assert "1 of" in msg                              # with 1/2 ulp only that point fails


small = st.fractions(min_value=-4, max_value=4, max_denominator=50)


@settings(deadline=None, max_examples=8)
@given(st.lists(small, min_size=1, max_size=6), st.integers(-3, 3), st.integers(1, 4))
def test_law_one_ulp_at_the_worst_point_is_always_named(coeffs, lo, width):
    # for any polynomial and interval: the correctly rounded implementation passes 1/2 ulp,
    # and moving its worst output one ulp further away fails 1/2 ulp at exactly that input
    p = ChebyshevPoly([str(c) for c in coeffs], domain=(lo, lo + width))
    good = rounded(p)
    rep = check_implementation(good, p, ulps="1/2", points=2000)
    assert rep.worst_ulps <= fmpq(1, 2)
    x = rep.worst_input
    actual, ref = to_fmpq(rep.actual), rep.reference_value
    # further from the reference; when the output is exact, away from zero: one ulp towards
    # zero from a power of two (p = -1: -1 -> -1 + 2^-53) is only half an ulp of it
    away = np.inf if actual > ref or (actual == ref and ref >= 0) else -np.inf
    with pytest.raises(AssertionError) as err:
        check_implementation(perturbed(good, x, away), p, ulps="1/2", points=2000)
    assert f"x = {x!r} ({x.hex()})" in str(err.value)


def test_the_float_search_finds_a_narrow_bug():
    p = ChebyshevPoly([1, "1/2", "1/4"], domain=(0, 2))
    good = rounded(p)
    c = 1.2345678  # on no grid, no Chebyshev point of degree 2

    def bumped(xs):  # 1e-9 too large within ~1e-3 of c
        return good(xs) + 1e-9 * np.exp(-(((xs - c) / 1e-3) ** 2))

    # the structural points alone (endpoints, Chebyshev points) miss it ...
    cheb = 1 + np.cos(np.pi * np.arange(3) / 2)
    check_implementation(bumped, p, points=np.concatenate([[0.0, 2.0], cheb]), atol="1e-12")
    # ... the search finds it, close to c (a small budget: `good` loops in Python)
    with pytest.raises(AssertionError) as err:
        check_implementation(bumped, p, 20000, atol="1e-12")
    x = float(str(err.value).split("x = ")[1].split(" ")[0])
    assert abs(x - c) < 1e-4


def test_any_construction_by_command_name():
    from dpverify.constructions.chebyshev import or_polynomial

    # k = 100, gamma = 1e-6: on no table grid
    a = or_polynomial(100, "1e-6")
    rep = check_implementation(rounded(a.poly), ("or", {"k": 100, "gamma": "1e-6"}),
                               ulps="1/2")
    assert rep.points == 101
    a = or_polynomial(12, "1e-2", method="minimax")
    check_implementation(rounded(a.poly), ("or-minimax", {"k": 12, "gamma": "1e-2"}),
                         ulps="1/2")
    with pytest.raises(AssertionError):   # the Chebyshev OR polynomial is not the minimax one
        check_implementation(rounded(a.poly), ("or", {"k": 12, "gamma": "1e-2"}), ulps=4)
    from dpverify.constructions.bernstein import bernstein_approx

    b = bernstein_approx("exp(x)", 6, 2)
    rep = check_implementation(rounded(b.poly), ("bernstein-approx",
                                                 {"f": "exp(x)", "k": 6, "h": 2}), 4000,
                               ulps="1/2")
    assert rep.points > 100
    with pytest.raises(InvalidParameterError, match="reference parameters of 'or'"):
        check_implementation(np.asarray, ("or", {"k": 5, "gama": "1e-1"}))
    with pytest.raises(InvalidParameterError, match="gamma"):
        check_implementation(np.asarray, ("or", {"k": 5, "gamma": "2"}))


class ExactSquare:
    """Duck-typed reference: x^2 + 1/3 on [-1, 1] with exact ``evaluate``."""

    domain = (-1, 1)
    degree = 2

    def evaluate(self, x):
        return x * x + fmpq(1, 3)


class FloatReference:
    domain = (0, 1)

    def evaluate(self, x):
        return float(x)


class FlintPoly:
    """Duck-typed reference through ``as_fmpq_poly``."""

    domain = (0, 1)

    def as_fmpq_poly(self):
        return fmpq_poly([1, 2, 3])


def test_duck_typed_and_numpy_references():
    ref = ExactSquare()
    P = fmpq_poly([fmpq(1, 3), 0, 1])
    rep = check_implementation(rounded(MonomialPoly(P.coeffs())), ref, 4000, ulps="1/2")
    assert rep.points > 3000 and rep.rigorous
    check_implementation(lambda xs: xs * xs + 1 / 3, ref, ulps=2)
    # a float reference is compared in float, and the report says it is not rigorous
    rep = check_implementation(np.asarray, FloatReference(), 2000)
    assert not rep.rigorous and "not rigorous" in repr(rep)
    check_implementation(lambda xs: 1 + xs * (2 + 3 * xs), FlintPoly(), ulps=2)
    # a numpy polynomial is read exactly (its binary64 coefficients); numpy's own float
    # evaluation of this well-conditioned polynomial is within a few ulps
    q = Polynomial([0.5, 0.25, -0.125], domain=[0, 1], window=[0, 1])
    rep = check_implementation(q, q, ulps=4, domain=(0, 1))
    assert rep.worst_ulps <= 4
    with pytest.raises(ParameterTypeError, match="reference must be"):
        check_implementation(np.asarray, object(), domain=(0, 1))


def test_plugin_through_the_entry_point(pytester):
    pytester.makepyfile("""
        import numpy as np
        from dpverify.exact import MonomialPoly

        def test_ok(dpverify_check):
            dpverify_check(lambda xs: 2 * xs, MonomialPoly([0, 2]), ulps=0, domain=(0, 1))

        def test_bad(dpverify_check):
            dpverify_check(lambda xs: np.where(xs == 1.0, 2.0000000000000004, 2 * xs),
                           MonomialPoly([0, 2]), ulps=0, domain=(0, 1))
    """)
    res = pytester.runpytest("-q")
    res.assert_outcomes(passed=1, failed=1)
    res.stdout.fnmatch_lines(["*x = 1.0 (0x1.0000000000000p+0)*exact reference 2*"])


def test_plugin_with_p_option(pytester, monkeypatch):
    # -p dpverify.pytest_plugin is how to load it when entry points are not auto-loaded
    monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")
    pytester.makepyfile("""
        from dpverify.exact import ChebyshevPoly

        def test_it(dpverify_check):
            p = ChebyshevPoly([4, 4], domain=(0, 4))     # 4 + 4 (x - 2)/2 = 2x, exact
            dpverify_check(lambda xs: 2 * xs, p, ulps=0)
    """)
    pytester.runpytest("-q").assert_outcomes(errors=1)          # no plugin: no fixture
    pytester.runpytest("-q", "-p", "dpverify.pytest_plugin").assert_outcomes(passed=1)
