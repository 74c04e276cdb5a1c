"""Tests for dpverify.certify.lebesgue (certified Lambda_{k,h}, alda2017 Proposition 11).

Expected values are derived by hand (k = 1, k = 2, h = 1) or by exact evaluation of
``U(y) = sum_nu |b^{(h)}_{nu,k}(y)|`` at rational points with the exact basis of
``dpverify.constructions.bernstein`` (a different computation: fmpq matrices and de
Casteljau, versus arb matrices and Taylor enclosures in the certifier).
"""

from __future__ import annotations

import pytest
from flint import ctx, fmpq
from hypothesis import given, settings
from hypothesis import strategies as st

from dpverify.certify.lebesgue import iterated_basis_arb, lebesgue_constant
from dpverify.constructions.bernstein import iterated_bernstein_basis
from dpverify.errors import InvalidParameterError, ParameterTypeError
from dpverify.numbers import arb_to_fmpq_bounds, parse_exact


def U_exact(polys, y: fmpq) -> fmpq:
    return sum((abs(p(y)) for p in polys), fmpq(0))


@pytest.mark.parametrize("k", [1, 4, 50])
def test_h1_is_exactly_one(k):
    # b_{nu,k} >= 0 and sum to 1 (alda2017 Proposition 2)
    e = lebesgue_constant(k, 1)
    assert e.lower == e.upper == 1


@pytest.mark.parametrize("h", [2, 5])
def test_k1_is_one(h):
    # k = 1: A = I (b_{nu,1}(mu) = delta), so M = sum_{j<h} 0^j = I and U == 1
    e = lebesgue_constant(1, h)
    assert e.lower <= 1 <= e.upper and e.upper - 1 <= fmpq(1, 10**6)


def test_k2_h2_closed_form():
    # By hand: M = 2I - A, b0 = (1-y)(1-3y/2), b1 = 3y(1-y), b2 = y(3y-1)/2.  On [0, 1/3]
    # only b2 < 0, so U = 1 - 2 b2 = 1 + y - 3y^2, maximal at y = 1/6: Lambda = 13/12.
    e = lebesgue_constant(2, 2, rtol="1e-9")
    assert e.lower <= fmpq(13, 12) <= e.upper
    assert e.upper <= fmpq(13, 12) * (1 + fmpq(1, 10**9))
    polys = iterated_bernstein_basis(2, 2).polys()
    assert U_exact(polys, fmpq(1, 6)) == fmpq(13, 12)


@pytest.mark.parametrize("k,h", [(3, 2), (5, 3), (10, 2), (20, 3), (30, 4)])
def test_enclosure_against_exact_samples(k, h):
    e = lebesgue_constant(k, h)
    assert e.upper <= e.lower * (1 + fmpq(1, 10**6))  # requested relative width
    assert e.upper <= 2**h - 1  # alda2017 Appendix C eq. (12)
    polys = iterated_bernstein_basis(k, h).polys()
    # lower comes from an actual point: the exact U at argmax is at least lower
    assert U_exact(polys, e.argmax) >= e.lower
    # upper bounds U everywhere: exact U at a grid of rationals (and mirrored points)
    n = 97
    for i in range(n + 1):
        y = fmpq(i, n)
        assert U_exact(polys, y) <= e.upper


@settings(deadline=None, max_examples=15)
@given(st.integers(2, 12), st.integers(2, 5), st.integers(0, 10**6))
def test_upper_bounds_random_points(k, h, num):
    e = lebesgue_constant(k, h, rtol="1e-4")
    polys = iterated_bernstein_basis(k, h).polys()
    y = fmpq(num, 10**6)
    assert U_exact(polys, y) <= e.upper
    assert U_exact(polys, 1 - y) == U_exact(polys, y)  # symmetry used by the search


@pytest.mark.parametrize("k,h", [(4, 3), (9, 2)])
def test_arb_basis_contains_exact(k, h):
    M = iterated_basis_arb(k, h, prec=80)
    B = iterated_bernstein_basis(k, h).basis
    old = ctx.prec
    ctx.prec = 80  # arb_to_fmpq_bounds rounds the endpoints at the working precision
    try:
        for nu in range(k + 1):
            for mu in range(k + 1):
                lo, hi = arb_to_fmpq_bounds(M[mu, nu])
                assert lo <= B[nu][mu] <= hi and hi - lo < fmpq(1, 2**60)
    finally:
        ctx.prec = old


def test_monotone_in_h_small_case():
    # not a theorem we rely on; a sanity check that Lambda grows with h here, and stays far
    # below the paper's 2^h - 1
    vals = [lebesgue_constant(10, h, rtol="1e-4") for h in (2, 3, 4)]
    assert vals[0].upper < vals[1].lower < vals[1].upper < vals[2].lower
    assert all(v.upper < 2 for v in vals)


def test_to_json_rounds_outward():
    e = lebesgue_constant(5, 2)
    j = e.to_json()
    assert fmpq(*_ratio(j["lower_exact"])) == e.lower
    assert parse_exact(j["lower"]) <= e.lower and parse_exact(j["upper"]) >= e.upper
    assert j["paper_bound"] == "3"


def _ratio(s: str) -> tuple[int, int]:
    p, _, q = s.partition("/")
    return int(p), int(q or 1)


@pytest.mark.parametrize(
    "kwargs,exc,msg",
    [
        ({"k": 0, "h": 2}, InvalidParameterError, "k must be >= 1"),
        ({"k": 3, "h": 65}, InvalidParameterError, "h must be <= 64"),
        ({"k": "3", "h": 2}, ParameterTypeError, "k must be an integer"),
        ({"k": 3, "h": 2, "rtol": 0}, InvalidParameterError, "rtol"),
    ],
)
def test_errors(kwargs, exc, msg):
    with pytest.raises(exc, match=msg):
        lebesgue_constant(**kwargs)


@pytest.mark.slow
@pytest.mark.parametrize("k,h", [(100, 6), (200, 8)])
def test_large_cases_converge(k, h):
    e = lebesgue_constant(k, h)
    assert e.upper <= e.lower * (1 + fmpq(1, 10**6))
    assert e.upper < 2**h - 1


def test_certificate_cap_is_the_verifiers_and_the_constructions():
    """A certificate the independent verifier would refuse as too expensive is never
    written: the certifier, the verifier and the exact construction share one cap."""
    from dpverify.certify.lebesgue import MAX_CERT_COST, LebesgueEnclosure, lebesgue_certificate
    from dpverify.constructions.bernstein import MAX_BASIS_COST
    from dpverify.verify.lebesgue import MAX_COST

    assert MAX_CERT_COST == MAX_BASIS_COST == MAX_COST
    one = fmpq(1)
    big = LebesgueEnclosure(300, 8, one, one, fmpq(1, 4), 1, 128, 0.0,
                            intervals=[(fmpq(0), fmpq(1, 2))])
    with pytest.raises(InvalidParameterError, match="independent verifier"):
        lebesgue_certificate(big)
    ok = LebesgueEnclosure(200, 8, one, one, fmpq(1, 4), 1, 128, 0.0,
                           intervals=[(fmpq(0), fmpq(1, 2))])
    assert lebesgue_certificate(ok).data["statement"]["k"] == 200
