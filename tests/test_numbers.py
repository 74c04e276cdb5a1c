"""Exact number reading/writing (dpverify.numbers). Expected values by hand."""

import math
from fractions import Fraction

import pytest
from flint import arb, fmpq
from hypothesis import given, settings
from hypothesis import strategies as st

from dpverify.errors import InvalidParameterError, ParameterTypeError
from dpverify.numbers import (
    arb_to_fmpq_bounds,
    check_int,
    check_open_unit,
    fmpq_str,
    fmpq_to_decimal,
    parse_exact,
    to_fmpq,
)


@pytest.mark.parametrize(
    "text,expected",
    [
        ("1e-3", fmpq(1, 1000)),
        ("0.3", fmpq(3, 10)),
        ("3/7", fmpq(3, 7)),
        ("-2.5E+2", fmpq(-250)),
        (".5", fmpq(1, 2)),
        ("7.", fmpq(7)),
        (" 12 ", fmpq(12)),
        ("-6/-4", fmpq(3, 2)),
    ],
)
def test_parse_exact_by_hand(text, expected):
    assert parse_exact(text) == expected


@pytest.mark.parametrize(
    "bad", ["", " ", "abc", "1/0", "1e", "0x", "0x1g", "0x1p", "nan", "inf", "1e999999", "1..2",
            "0x1p99999999", "1e" + "9" * 50]
)
def test_parse_exact_rejects(bad):
    with pytest.raises(InvalidParameterError):
        parse_exact(bad, "--gamma")


def test_float_means_its_binary_value():
    # 0.1 as binary64 is 3602879701896397 / 2^55 (the textbook example: 0.1 * 2^55 rounds
    # to the odd integer 3602879701896397); 1e-3 is 1152921504606847 / 2^60.
    assert to_fmpq(0.1) == fmpq(3602879701896397, 2**55)
    assert to_fmpq(1e-3) == fmpq(1152921504606847, 2**60)
    assert to_fmpq(0.5) == fmpq(1, 2)
    import numpy as np

    assert to_fmpq(np.float64(0.1)) == to_fmpq(0.1)
    assert to_fmpq(np.float32(0.1)) == fmpq(13421773, 2**27)  # float32(0.1) = 13421773 / 2^27
    with pytest.raises(InvalidParameterError, match="finite"):
        to_fmpq(float("nan"), "gamma")
    with pytest.raises(ParameterTypeError):
        to_fmpq(True, "gamma")
    assert to_fmpq(Fraction(2, 6)) == fmpq(1, 3)
    # the string keeps its decimal meaning
    assert to_fmpq("0.1") == fmpq(1, 10)


@pytest.mark.parametrize(
    "text,expected",
    [
        ("0x1.999999999999ap-4", fmpq(3602879701896397, 2**55)),  # float.hex(0.1)
        ("0x1p-3", fmpq(1, 8)),
        ("-0x10", fmpq(-16)),
        ("0x.8", fmpq(1, 2)),
        ("0X1.8P+1", fmpq(3)),
        # more bits than binary64 holds: still exact
        ("0x1.00000000000000000001p0", 1 + fmpq(1, 2**80)),
    ],
)
def test_hex_floats_exact(text, expected):
    assert parse_exact(text) == expected


def test_round_to_float64():
    from dpverify.numbers import round_to_float64

    assert round_to_float64("0.1") == to_fmpq(0.1)
    assert round_to_float64("1/3") == to_fmpq(1 / 3)
    # ties to even: 1 + 2^-53 lies halfway between 1 and 1 + 2^-52
    assert round_to_float64(1 + fmpq(1, 2**53)) == 1
    with pytest.raises(InvalidParameterError, match="overflows"):
        round_to_float64("1e400", "x")


def test_no_digit_limit():
    # Python refuses int(str) beyond 4300 digits; exact numbers must not
    big = "7" * 100_000 + "/" + "3" * 99_999 + "1"
    q = parse_exact(big)
    assert fmpq_str(q) == big or parse_exact(fmpq_str(q)) == q
    assert parse_exact(fmpq_str(q)) == q
    dec = fmpq_to_decimal(q, 30, "up")
    assert parse_exact(dec) >= q
    assert parse_exact("9" * 200_000) == fmpq(10) ** 200_000 - 1


def test_check_int_and_unit():
    assert check_int(3, "k", 1) == 3
    with pytest.raises(InvalidParameterError, match="k must be >= 1, got 0"):
        check_int(0, "k", 1)
    with pytest.raises(ParameterTypeError, match="k must be an integer"):
        check_int(2.5, "k")
    with pytest.raises(ParameterTypeError):
        check_int(3.0, "k")
    assert check_open_unit("1e-3", "gamma") == fmpq(1, 1000)
    for bad in (0, 1, "-0.1", 2):
        with pytest.raises(InvalidParameterError, match="gamma"):
            check_open_unit(bad, "gamma")


@settings(deadline=None, max_examples=200)
@given(st.fractions(), st.integers(1, 30))
def test_decimal_rounding_is_outward(q, digits):
    x = fmpq(q.numerator, q.denominator)
    up = parse_exact(fmpq_to_decimal(x, digits, "up"))
    down = parse_exact(fmpq_to_decimal(x, digits, "down"))
    assert down <= x <= up
    if x != 0:
        # at most one unit in the last place away
        assert abs(up - down) <= abs(x) * fmpq(10) ** (1 - digits) * 2


@settings(deadline=None, max_examples=200)
@given(st.fractions())
def test_fmpq_str_round_trip(q):
    x = fmpq(q.numerator, q.denominator)
    assert parse_exact(fmpq_str(x)) == x


def test_arb_bounds_contain():
    lo, hi = arb_to_fmpq_bounds(arb(1) / 3)
    assert lo < fmpq(1, 3) < hi
    assert float(hi - lo) < 1e-15
    assert math.isclose(float(lo), 1 / 3)
