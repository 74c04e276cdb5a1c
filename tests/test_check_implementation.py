"""dpverify.testing.check_implementation: a float64 implementation of any reference, checked
exactly.  The implementations under test are written here; the reference
values they are compared with are exact (fmpq), and the "correctly rounded" implementation
rounds the exact value with Python's Fraction -> float (IEEE round to nearest)."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
from flint import fmpq

from dpverify.constructions.chebyshev import or_polynomial
from dpverify.errors import InvalidParameterError, ParameterTypeError
from dpverify.exact import ChebyshevPoly, MonomialPoly
from dpverify.numbers import to_fmpq
from dpverify.testing import check_implementation, ulp_of

pytest_plugins = ["pytester"]


def rounded(poly):
    """The correctly rounded implementation of ``poly`` (0 ulps everywhere)."""
    P = poly.to_monomial().as_fmpq_poly()

    def impl(xs):
        out = []
        for x in xs:
            v = P(to_fmpq(float(x)))
            out.append(float(Fraction(int(v.p), int(v.q))))
        return np.array(out)
    return impl


def test_correctly_rounded_implementation_passes_with_zero_ulps():
    p = ChebyshevPoly(["1/3", "-2/7", "5/11", "1/13"], domain=(0, 2))
    # `rounded` is a Python loop over Fractions: a budget of 4000 points, not the default 10^6
    rep = check_implementation(rounded(p), p, 4000, ulps="1/2")
    assert rep.worst_ulps <= fmpq(1, 2)      # round to nearest: at most half an ulp
    assert rep.worst_ulps > 0
    with pytest.raises(AssertionError):      # ... and not exact everywhere
        check_implementation(rounded(p), p, 4000, ulps=0)
    assert rep.points > 3000


def test_one_ulp_at_one_point_is_caught_and_named():
    p = ChebyshevPoly(["1/3", "-2/7", "5/11", "1/13"], domain=(0, 2))
    good = rounded(p)
    # an extremum of T_3 on [0, 2] (always among the adversarial points)
    bad_x = float(1 + np.cos(np.pi / 3))

    def impl(xs):
        ys = good(xs)
        hit = xs == bad_x
        ys[hit] = np.nextafter(ys[hit], np.inf)   # off by one ulp there, nowhere else
        return ys

    with pytest.raises(AssertionError) as err:
        check_implementation(impl, p, 4000, ulps=0.5)
    msg = str(err.value)
    assert repr(bad_x) in msg and bad_x.hex() in msg
    assert "1 of" in msg                        # exactly one failing point
    # the exact reference value at that input is printed
    exact = p.to_monomial().as_fmpq_poly()(to_fmpq(bad_x))
    assert str(exact) in msg


def test_construction_by_command_name_on_its_integer_domain():
    k, gamma = 40, "1e-6"
    a = or_polynomial(k, gamma)
    rep = check_implementation(rounded(a.poly), ("or", {"k": k, "gamma": gamma}), ulps=0.5)
    assert rep.points == k + 1                  # every integer 0..k
    # Horner on the float64 monomial coefficients: the coefficients of the k = 40 OR
    # polynomial are huge and alternate, so the float evaluation is wrong by orders of
    # magnitude near x = k -- exactly the bug this check exists to catch
    def horner_of(approx):
        cs = [float(c) for c in approx.poly.coeffs]

        def horner(xs):
            acc = np.zeros_like(xs)
            for c in reversed(cs):
                acc = acc * xs + c
            return acc
        return horner
    with pytest.raises(AssertionError, match="x = "):
        check_implementation(horner_of(a), a, atol="1e-6")
    # for k = 4 the same code is accurate to far better than 1e-9 (checked exactly)
    small = or_polynomial(4, "1e-2")
    check_implementation(horner_of(small), small, atol="1e-9")


def test_shape_and_non_finite_outputs_fail_clearly():
    p = ChebyshevPoly([1, 2], domain=(-1, 1))
    with pytest.raises(AssertionError, match="shape"):
        check_implementation(lambda xs: xs[:-1], p, points=[0.0, 0.5])
    with pytest.raises(AssertionError, match="nan"):
        check_implementation(lambda xs: xs * np.nan, p)


def test_bad_arguments_name_the_parameter():
    p = ChebyshevPoly([1, 2], domain=(-1, 1))
    with pytest.raises(ParameterTypeError, match="impl"):
        check_implementation(3, p)
    with pytest.raises(InvalidParameterError, match="ulps"):
        check_implementation(np.asarray, p, ulps=-1)
    with pytest.raises(InvalidParameterError, match="domain"):
        check_implementation(np.asarray, MonomialPoly([1, 2]))
    with pytest.raises(InvalidParameterError, match="construction"):
        check_implementation(np.asarray, ("nope", {}))
    with pytest.raises(InvalidParameterError, match="finite"):
        check_implementation(np.asarray, p, points=[0.0, float("inf")])


def test_ulp_is_the_spacing_at_the_rounded_value():
    assert ulp_of(1) == fmpq(1, 2**52)
    assert ulp_of(fmpq(1, 3)) == fmpq(1, 2**54)     # 1/3 rounds into [1/4, 1/2)
    assert ulp_of(0) == fmpq(1, 2**1074)


def test_pytest_plugin_fixture(pytester):
    pytester.makepyfile("""
        import numpy as np
        from dpverify.exact import MonomialPoly

        def test_it(dpverify_check):
            p = MonomialPoly([0, 1])
            dpverify_check(lambda xs: np.asarray(xs), p, ulps=0, domain=(0, 1))
    """)
    res = pytester.runpytest("-q")  # the plugin loads through its pytest11 entry point
    res.assert_outcomes(passed=1)


def test_reference_beyond_binary64_is_a_failed_check_not_a_crash():
    # 1 + 2x on [0, 1e308] exceeds the largest double near the top of the domain: the
    # correctly rounded reference is +inf there.  float64 arithmetic rounds to +inf exactly
    # there (it is correctly rounded), so it passes; an implementation that saturates at
    # the largest double instead must fail with an AssertionError naming the point (the
    # message once raised OverflowError)
    big = np.finfo(np.float64).max
    with np.errstate(over="ignore"):
        rep = check_implementation(lambda x: 1 + 2 * x, [1, 2], 20000, ulps="1/2",
                                   domain=(0, 1e308))
    assert rep.worst_ulps <= fmpq(1, 2)
    with pytest.raises(AssertionError, match="x =") as err, np.errstate(over="ignore"):
        check_implementation(lambda x: np.minimum(1 + 2 * x, big), [1, 2], 20000, ulps=4,
                             domain=(0, 1e308))
    assert err.value.report.failures > 0


def test_exact_zero_reference_reports_absolute_error_without_overflow():
    # the exact reference x is 0 at x = 0: an error of 1e-15 there is ~2e308 ulps of 0 (the
    # subnormal spacing), far beyond a float; message and repr must still be finite text
    with pytest.raises(AssertionError) as err:
        check_implementation(lambda xs: xs + 1e-15, [0, 1], domain=(0, 1), ulps=4)
    msg = str(err.value)
    assert "x = 0.0" in msg and "|error| = 1e-15" in msg
    rep = err.value.report
    assert rep.worst_input == 0.0 and rep.worst_abs_error == to_fmpq(1e-15)
    assert rep.worst_ulps == to_fmpq(1e-15) * 2**1074       # exact: error / 2^-1074
    assert "worst_ulps~2.02e308" in repr(rep)


def test_outputs_that_are_not_real_numbers_fail_clearly():
    # a missing return, text, a complex part, booleans: AssertionError naming the problem,
    # never a silent NaN or a numpy warning; what impl raises propagates unchanged
    p = MonomialPoly([0, 1])
    for impl, what in [(lambda xs: None, "None"),
                       (lambda x: None if x > 0.5 else float(x), "None"),
                       (lambda xs: np.array(["a"] * len(xs)), "not numbers"),
                       (lambda xs: xs + 1e-30j, "imaginary"),
                       (lambda xs: xs > 0.5, "not numbers"),
                       (lambda xs: [[x] for x in xs], "shape")]:
        with pytest.raises(AssertionError, match=what):
            check_implementation(impl, p, 2000, domain=(0, 1))
    # a zero imaginary part is a real number
    assert check_implementation(lambda xs: xs + 0j, p, 2000, domain=(0, 1), ulps=0).passed

    def raises(xs):
        raise ZeroDivisionError("mine")

    with pytest.raises(ZeroDivisionError, match="mine"):
        check_implementation(raises, p, 2000, domain=(0, 1))


def test_points_and_breakpoints_of_the_wrong_kind():
    p = MonomialPoly([0, 1])
    for bad in (2.5, np.float64(3.0), [["a"]], [[1.0], [1.0, 2.0]], {"a": 1}):
        with pytest.raises(ParameterTypeError, match="^points"):
            check_implementation(np.asarray, p, points=bad, domain=(0, 1))
    for bad in (5, "0.5", [[0.5]]):
        with pytest.raises(ParameterTypeError, match="^breakpoints"):
            check_implementation(np.asarray, p, 1000, domain=(0, 1), breakpoints=bad)
    rep = check_implementation(np.asarray, p, 1000, domain=(0, 1), breakpoints=("1/3",),
                               ulps=0)
    assert rep.passed


def test_a_domain_wider_than_the_largest_float():
    # hi - lo = 2e308 overflows binary64: the uniform draws, the strata, the adaptive
    # windows and the profile work in halves (once an OverflowError from numpy's uniform)
    # (x * 0.5 is correctly rounded, exact except in the subnormal range)
    rep = check_implementation(lambda xs: xs * 0.5, "x/2", 20_000, domain=(-1e308, 1e308),
                               ulps="1/2")
    assert rep.passed and rep.points > 15_000
    prof = np.asarray(rep.profile)
    assert np.isfinite(prof).sum() > 500          # the slices are spread over the domain
    big = rep.to_json()["profile"]["x"]
    assert big == [-1e308, 1e308]
