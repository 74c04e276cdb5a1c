"""Tests of dpverify.testing: a correct float64 implementation passes, planted bugs fail."""

from __future__ import annotations

import math

import numpy as np
import pytest
from flint import fmpq
from hypothesis import given, settings
from numpy.polynomial import Chebyshev, Polynomial

from dpverify import testing
from dpverify.errors import InvalidParameterError

K, GAMMA = 25, "1e-3"


def my_or_monomial(k: int, gamma: float, dtype=np.float64, t_shift: int = 0,
                   norm_shift: int = 0) -> np.ndarray:
    """A user's float implementation of the Chebyshev OR polynomial (numpy.polynomial):
    g(x) = 1 - T_t(u)/T_t(a), u = (k+1-2x)/(k-1), a = (k+1)/(k-1).  The keyword
    arguments plant bugs: t_shift (degree off by one), norm_shift (normalise by
    T_{t+norm_shift}(a)), dtype (float32 arithmetic)."""
    a = (k + 1) / (k - 1)
    t = math.ceil(math.acosh(1 / gamma) / math.acosh(a)) + t_shift
    Tt = Chebyshev.basis(t, domain=[1, k]) * (-1) ** t  # T_t(-v) with v on (1, k)
    p = Tt.convert(kind=Polynomial, domain=[-1, 1], window=[-1, 1])
    norm = math.cosh((t + norm_shift) * math.acosh(a))
    c = (-p.coef / norm).astype(dtype)
    c[0] = dtype(1) + c[0]
    return c


def test_correct_implementation_passes():
    testing.assert_matches_reference(my_or_monomial(K, 1e-3), "or", k=K, gamma=GAMMA,
                                     rtol="1e-10")


def test_off_by_one_degree_is_caught():
    with pytest.raises(AssertionError, match="off by one") as err:
        testing.assert_matches_reference(my_or_monomial(K, 1e-3, t_shift=1), "or", k=K,
                                         gamma=GAMMA, rtol="1e-10")
    # a different polynomial: a wrong value is reported together with the length
    assert "first wrong value: entry (" in str(err.value)


def test_length_mismatch_reports_the_first_wrong_value():
    good = my_or_monomial(K, 1e-3)
    # one coefficient too many, all others right: the common range is said to match
    with pytest.raises(AssertionError, match="off by one") as err:
        testing.assert_matches_reference(np.append(good, 0.0), "or", k=K, gamma=GAMMA,
                                         rtol="1e-10")
    assert f"the {good.size} entries of the common index range match" in str(err.value)
    # last coefficient dropped and coefficient 3 wrong: both are reported
    bad = good[:-1].copy()
    bad[3] *= 2
    with pytest.raises(AssertionError, match="off by one") as err:
        testing.assert_matches_reference(bad, "or", k=K, gamma=GAMMA, rtol="1e-10")
    msg = str(err.value)
    assert "first wrong value: entry (3,)" in msg and repr(float(bad[3])) in msg
    # matrices: the first wrong entry of the common block, in C order
    from dpverify.fast import iterated_basis_matrix

    M = iterated_basis_matrix(4, 2).T.copy()
    M[1, 2] += 1
    with pytest.raises(AssertionError, match=r"first wrong value: entry \(1, 2\)"):
        testing.assert_matches_reference(M[:, :-1], "bernstein", k=4, h=2)


def _least_or_degree(k: int, inv_gamma: int) -> int:
    """Least t with T_t((k+1)/(k-1)) >= 1/gamma, by the three-term recurrence in Fractions
    (independent of dpverify's or_degree)."""
    from fractions import Fraction

    a = Fraction(k + 1, k - 1)
    prev, cur, t = Fraction(1), a, 1
    while cur < inv_gamma:
        prev, cur, t = cur, 2 * a * cur - prev, t + 1
    return t


def test_reference_takes_any_parameters_and_command_names():
    # k = 100, gamma = 1e-6 is on no built-in grid
    ref = testing.reference("or", k=100, gamma="1e-6")
    assert len(ref) - 1 == _least_or_degree(100, 10**6)
    assert ref[0] == 0
    vals = testing.reference("or", "values", k=100, gamma="1e-6")
    assert vals[0] == 0 and all(abs(v - 1) <= fmpq(1, 10**6) for v in vals[1:])
    # command names and the old names agree
    assert testing.reference("or", k=10, gamma="1e-2", method="minimax") == \
        testing.reference("or-minimax", k=10, gamma="1e-2")
    assert testing.reference("jackson", t=8, K=1) == \
        testing.reference("jackson-multipliers", t=8, K=1)
    assert testing.reference("dlist", k=5, gamma="1e-1") == \
        testing.reference("dlist-h", k=5, gamma="1e-1")
    # h = 1 is the plain Bernstein basis: the identity matrix
    assert testing.reference("bernstein", k=3, h=1) == \
        [[fmpq(int(i == j)) for j in range(4)] for i in range(4)]
    with pytest.raises(InvalidParameterError, match="method is fixed"):
        testing.reference("or-minimax", k=10, gamma="1e-2", method="chebyshev")
    with pytest.raises(InvalidParameterError, match="quantity 'chebyshev'"):
        testing.reference("or", "chebyshev", k=10, gamma="1e-2", method="minimax")


def test_off_by_one_index_is_caught():
    good = my_or_monomial(K, 1e-3)
    shifted = np.concatenate([[0.0], good[:-1]])  # coefficient i stored at i+1
    with pytest.raises(AssertionError, match="exceeds"):
        testing.assert_matches_reference(shifted, "or", k=K, gamma=GAMMA, rtol="1e-10")


def test_float32_is_caught():
    with pytest.raises(AssertionError, match="float32"):
        testing.assert_matches_reference(my_or_monomial(K, 1e-3, dtype=np.float32), "or",
                                         k=K, gamma=GAMMA, rtol="1e-10")


def test_wrong_normalisation_is_caught():
    with pytest.raises(AssertionError, match="normalisation"):
        testing.assert_matches_reference(my_or_monomial(K, 1e-3, norm_shift=-1), "or", k=K,
                                         gamma=GAMMA, rtol="1e-10")


def _my_jackson_2pi(t: int, r: int, factor: float = 2.0) -> np.ndarray:
    # user's implementation: convolution power of the Fejer sequence; factor 2 is right
    tp = t // r + 1
    base = tp - np.abs(np.arange(-(tp - 1), tp)).astype(float)
    e = base
    for _ in range(r - 1):
        e = np.convolve(e, base)
    half = e[(e.size - 1) // 2:]
    out = factor * half / half[0]
    out[0] = 1.0
    return out


def test_jackson_normalisation_bug_is_caught():
    testing.assert_matches_reference(_my_jackson_2pi(16, 3), "jackson-kernel", t=16, r=3)
    with pytest.raises(AssertionError, match="normalisation"):
        testing.assert_matches_reference(_my_jackson_2pi(16, 3, factor=1.0),
                                         "jackson-kernel", t=16, r=3)


def test_matrix_reference_and_entrywise():
    from dpverify.fast import iterated_basis_matrix

    M = iterated_basis_matrix(6, 3)
    testing.assert_matches_reference(M.T, "bernstein-iterated", k=6, h=3)  # basis[nu][mu]
    with pytest.raises(AssertionError):
        testing.assert_matches_reference(M.T.astype(np.float32), "bernstein-iterated",
                                         k=6, h=3)


def test_exact_inputs_and_bad_parameters():
    ref = testing.reference("dlist-h", k=5, gamma="1e-1")
    testing.assert_matches_reference([str(x) for x in ref], "dlist-h", k=5, gamma="1e-1",
                                     rtol=0)
    with pytest.raises(InvalidParameterError, match="gamma is required"):
        testing.reference("or", k=5)
    with pytest.raises(InvalidParameterError, match="table must be"):
        testing.reference("nope", k=5)
    with pytest.raises(InvalidParameterError, match="quantity"):
        testing.reference("jackson-kernel", quantity="values", t=4, r=1)


@settings(deadline=None, max_examples=15)
@given(testing.or_params(max_k=60, max_exponent=9))
def test_or_params_strategy_and_fast_path(p):
    # every generated parameter set is valid, and the fast path's values match exactly
    # to 1e-13 absolute (normwise on values in [0, 1])
    from dpverify.fast import or_values

    vals = or_values(p["k"], p["gamma"], np.arange(p["k"] + 1.0))
    testing.assert_matches_reference(vals, "or", quantity="values", rtol="1e-13", **p)


@settings(deadline=None, max_examples=5)
@given(testing.rofk_params(max_k=16, max_degree=600))
def test_rofk_params_strategy(p):
    from dpverify.fast import rofk_values

    vals = rofk_values(p["r"], p["k"], p["gamma"], np.arange(p["k"] + 1.0))
    testing.assert_matches_reference(vals, "rofk", rtol="1e-12", **p)


@settings(deadline=None, max_examples=10)
@given(testing.jackson_multiplier_params(max_t=32, max_K=6))
def test_jackson_strategy(p):
    from dpverify.fast import jackson_multipliers

    testing.assert_matches_reference(jackson_multipliers(**p), "jackson-multipliers",
                                     rtol="1e-12", **p)
