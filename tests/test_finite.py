"""Finite-set certifier (dpverify.certify.finite). Expected maxima computed by hand."""

import mpmath
import pytest
from flint import fmpq

from dpverify.certify.finite import exact_max_error, finite_max_error
from dpverify.errors import InvalidParameterError
from dpverify.exact import ChebyshevPoly, MonomialPoly


@pytest.mark.parametrize(
    "values,poly,expected,argmax",
    [
        # p(x) = x vs (1/2, 0, 3): errors 1/2, 1, 1 -> 1, first at x = 1
        (["1/2", "0", "3"], [0, 1], fmpq(1), 1),
        # p = 0 vs (1/3, 5, 0): errors 1/3, 5, 0 -> 5 at x = 1 (integer after a fraction)
        (["1/3", "5", "0"], [0], fmpq(5), 1),
        # p = 0 vs (7, 1/3, 2/3): the fractional ones must not displace the integer max
        (["7", "1/3", "20/3"], [0], fmpq(7), 0),
        # p(x) = x/3 vs (0, 0, 0): errors 0, 1/3, 2/3
        (["0", "0", "0"], ["0", "1/3"], fmpq(2, 3), 2),
    ],
)
def test_values_targets_by_hand(values, poly, expected, argmax):
    dom = {"kind": "integers", "lo": 0, "hi": 2}
    m, x = exact_max_error(MonomialPoly(poly), {"kind": "values", "values": values}, dom)
    assert m == expected and x == argmax


def test_threshold_and_indicator_by_hand():
    dom = {"kind": "integers", "lo": 0, "hi": 4}
    # p(x) = x/4 vs OR (r = 1): errors 0, 3/4, 1/2, 1/4, 0
    m, x = exact_max_error(MonomialPoly(["0", "1/4"]), {"kind": "threshold", "r": 1}, dom)
    assert (m, x) == (fmpq(3, 4), 1)
    # same polynomial in the Chebyshev basis on (0, 4): p = 1/2 + T_1/2
    m2, _ = exact_max_error(ChebyshevPoly(["1/2", "1/2"], domain=(0, 4)),
                            {"kind": "threshold", "r": 1}, dom)
    assert m2 == m
    # indicator of x == 2: errors 0, 1/4, 1/2, 3/4, 1
    m, x = exact_max_error(MonomialPoly(["0", "1/4"]), {"kind": "indicator", "l": 2}, dom)
    assert (m, x) == (fmpq(1), 4)


def test_rational_points_and_irrational_target():
    dom = {"kind": "points", "points": ["0", "1/2", "1"]}
    # x^2 vs 0: exact, max 1
    m, x = exact_max_error(MonomialPoly([0]), {"kind": "expr", "expr": "x^2"}, dom)
    assert (m, x) == (1, 1)
    # exp(x) - (1 + x): enclosure of e - 2 at x = 1
    r = finite_max_error(MonomialPoly([1, 1]), {"kind": "expr", "expr": "exp(x)"}, dom)
    assert not r.exact
    mpmath.mp.prec = 200
    true = mpmath.e - 2
    lo = mpmath.mpf(int(r.lower.p)) / int(r.lower.q)
    hi = mpmath.mpf(int(r.upper.p)) / int(r.upper.q)
    assert lo <= true <= hi and hi - lo < mpmath.mpf(10) ** -12


def test_bad_domains():
    with pytest.raises(InvalidParameterError):
        exact_max_error(MonomialPoly([0]), {"kind": "threshold", "r": 1},
                        {"kind": "integers", "lo": 3, "hi": 1})
    with pytest.raises(InvalidParameterError):
        exact_max_error(MonomialPoly([0]), {"kind": "values", "values": ["1"]},
                        {"kind": "integers", "lo": 0, "hi": 1})
    with pytest.raises(InvalidParameterError):
        exact_max_error(MonomialPoly([0]), {"kind": "nope"}, {"kind": "integers", "lo": 0, "hi": 1})
