"""Common-denominator summation: ``fmpq_sum`` and ``coefficient_norm`` agree
exactly with the naive one-by-one fraction sum ``sum(values, fmpq(0))``, the reference
(independent: it is Python's ``sum`` over FLINT's reduced fmpq addition)."""

from __future__ import annotations

from fractions import Fraction

import pytest
from flint import fmpq, fmpz
from hypothesis import given, settings
from hypothesis import strategies as st

from dpverify.errors import ParameterTypeError
from dpverify.exact import (
    BernsteinPoly,
    ChebyshevPoly,
    CosinePoly,
    MonomialPoly,
    TensorPoly,
    fmpq_abs_sum,
    fmpq_sum,
)

# denominators drawn both from a small set (shared factors, the OR/Chebyshev case) and from
# a wide range (mostly coprime, the lcm grows with every term)
_den = st.one_of(st.sampled_from([1, 2, 3, 4, 6, 12, 2**40, 3**25]),
                 st.integers(min_value=1, max_value=10**30))
_fracs = st.builds(lambda p, q: fmpq(p, q), st.integers(-(10**40), 10**40), _den)


def _naive(values: list[fmpq]) -> fmpq:
    return sum(values, fmpq(0))


@settings(deadline=None, max_examples=300)
@given(st.lists(_fracs, max_size=70))
def test_fmpq_sum_equals_naive_sum(values: list[fmpq]) -> None:
    got = fmpq_sum(values)
    assert isinstance(got, fmpq)
    assert got == _naive(values)
    assert fmpq_abs_sum(values) == _naive([abs(v) for v in values])
    # also against Python's Fraction, a third independent arithmetic
    assert Fraction(int(got.p), int(got.q)) == sum(
        (Fraction(int(v.p), int(v.q)) for v in values), Fraction(0))


@settings(deadline=None, max_examples=100)
@given(st.lists(_fracs, min_size=1, max_size=40))
def test_coefficient_norm_every_basis(values: list[fmpq]) -> None:
    expected = _naive([abs(v) for v in values])
    for p in (MonomialPoly(values), ChebyshevPoly(values, domain=(0, 3)),
              BernsteinPoly(values), CosinePoly(values)):
        # stripping trailing zeros does not change the sum of |c|
        assert p.coefficient_norm() == expected, p.basis
    assert TensorPoly([values, values]).coefficient_norm() == 2 * expected


def test_boundaries() -> None:
    assert fmpq_sum([]) == 0  # empty sum
    assert fmpq_sum([fmpq(1, 3)]) == fmpq(1, 3)  # one term, odd length
    assert fmpq_sum([fmpq(1, 2), fmpq(-1, 2)]) == 0  # cancellation to zero: canonical 0/1
    assert fmpq_sum([fmpq(1, 2), fmpq(-1, 2)]).q == 1
    assert fmpq_sum([1, fmpz(2), fmpq(1, 2)]) == fmpq(7, 2)  # ints and fmpz accepted
    assert fmpq_abs_sum([-1, fmpz(-2), fmpq(-1, 2)]) == fmpq(7, 2)
    # result is reduced although the pairs are not: 1/6 + 1/3 = 1/2
    assert fmpq_sum([fmpq(1, 6), fmpq(1, 3)]).q == 2


@pytest.mark.parametrize("bad", [[True], [0.5], ["1/2"], [Fraction(1, 2)]])
def test_refuses_non_exact_integer_types(bad: list[object]) -> None:
    with pytest.raises(ParameterTypeError, match="values"):
        fmpq_sum(bad)  # type: ignore[arg-type]
    with pytest.raises(ParameterTypeError, match="values"):
        fmpq_abs_sum([fmpq(1), *bad])  # type: ignore[list-item]


def test_or_polynomial_norm_matches_naive() -> None:
    # the large case that motivated the change: one shared ~28000-bit denominator
    from dpverify.constructions.chebyshev import or_polynomial

    p = or_polynomial(2000, "1e-9").poly
    assert p.coefficient_norm() == _naive([abs(c) for c in p.coeffs])
    q = p.to_chebyshev(domain=(0, 2000))
    assert q.coefficient_norm() == _naive([abs(c) for c in q.coeffs])
