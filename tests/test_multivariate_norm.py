"""Exact multivariate norms of p_x(y) = g(sum_j y_j x_j) (thaler2012 Section 2.3, Lemma 4.3).

Independent references: sympy's expansion of g(y_1 + ... + y_w) (full monomials) and a
multilinear reduction y_j^k -> y_j done by sympy on the same expansion.
"""

from __future__ import annotations

from math import comb, factorial

import pytest
import sympy as sp
from flint import fmpq
from hypothesis import given, settings
from hypothesis import strategies as st

from dpverify.constructions.chebyshev import or_polynomial
from dpverify.constructions.multivariate_norm import (
    max_multinomial,
    multilinear_coefficients,
    multivariate_norms,
    norm_profile,
    paper_coefficient_bound,
)
from dpverify.errors import InvalidParameterError, ParameterTypeError
from dpverify.exact import MonomialPoly
from dpverify.numbers import parse_fmpq_str


def _brute(cs: list[fmpq], w: int) -> dict[str, sp.Rational]:
    ys = sp.symbols(f"y1:{w + 1}") if w else ()
    s = sum(ys) if w else sp.Integer(0)
    g = sum(sp.Rational(int(c.p), int(c.q)) * s**i for i, c in enumerate(cs))
    full = sp.Poly(sp.expand(g), *ys) if w else None
    if not w:
        v = abs(sp.Rational(int(cs[0].p), int(cs[0].q)))
        return {"T_full": v, "L1_full": v, "T_multilinear": v, "L1_multilinear": v}
    terms = full.terms()
    tf = max(abs(c) for _, c in terms)
    l1f = sum(abs(c) for _, c in terms)
    ml: dict[tuple, sp.Rational] = {}
    for mon, c in terms:
        key = tuple(1 if e else 0 for e in mon)
        ml[key] = ml.get(key, 0) + c
    vals = [abs(c) for c in ml.values() if c != 0]
    return {"T_full": tf, "L1_full": l1f, "T_multilinear": max(vals, default=0),
            "L1_multilinear": sum(vals)}


def _q(s: str) -> sp.Rational:
    v = parse_fmpq_str(s)
    return sp.Rational(int(v.p), int(v.q))


@pytest.mark.parametrize("k,gamma", [(2, "1/10"), (3, "1e-3"), (4, "1/10"), (5, "1/2")])
@pytest.mark.parametrize("w", [0, 1, 2, 3, 5])
def test_against_sympy_expansion(k, gamma, w):
    g = or_polynomial(k, gamma).poly
    got = multivariate_norms(g, d=6, row_weight=w)
    want = _brute(list(g.to_monomial().coeffs), w)
    for key in want:
        assert _q(got[key]) == want[key], key


@settings(deadline=None, max_examples=30)
@given(st.lists(st.integers(-20, 20), min_size=1, max_size=6), st.integers(0, 4))
def test_random_polys_against_sympy(cs, w):
    cs_q = [fmpq(c, 3) for c in cs]
    got = multivariate_norms(MonomialPoly(cs_q), d=4, row_weight=w)
    want = _brute(list(MonomialPoly(cs_q).coeffs), w)
    for key in want:
        assert _q(got[key]) == want[key], key


def test_multilinear_coefficient_is_surjection_count():
    # g(s) = s^i: coefficient of a set of size s is the number of surjections i -> s,
    # counted independently by inclusion-exclusion sum_j (-1)^j C(s,j) (s-j)^i
    for i in range(0, 7):
        cs = [fmpq(0)] * i + [fmpq(1)]
        a = multilinear_coefficients(MonomialPoly(cs))
        for s in range(0, i + 1):
            surj = sum((-1) ** j * comb(s, j) * (s - j) ** i for j in range(s + 1))
            assert a[s] == surj


def test_max_multinomial_by_enumeration():
    from itertools import product

    for i in range(0, 7):
        for w in range(0, 5):
            best = 0
            for alpha in product(range(i + 1), repeat=w):
                if sum(alpha) == i:
                    m = factorial(i)
                    for a in alpha:
                        m //= factorial(a)
                    best = max(best, m)
            if w == 0:
                best = 1 if i == 0 else 0
            assert max_multinomial(i, w) == best


def test_norms_monotone_in_row_weight():
    g = or_polynomial(6, "1e-3").poly
    prev = None
    for w in range(0, 12):
        prof = norm_profile(g, w)
        if prev is not None:
            for key in prof:
                assert prof[key] >= prev[key], (key, w)
        prev = prof


def test_default_row_weight_is_d_and_counts():
    g = or_polynomial(4, "1/10").poly
    out = multivariate_norms(g, d=10)
    t = g.degree
    assert out["row_weight"] == 10
    assert out["n_coefficients_full"] == str(comb(10 + t, t))
    assert out["n_coefficients_multilinear"] == str(sum(comb(10, s) for s in range(t + 1)))


def test_paper_coefficient_claim_fails_for_full_expansion():
    # thaler2012 Lemma 4.3 proof: every coefficient of (sum y_j x_j)^i is <= k^i.
    # k = 2, gamma = 1e-3: Chebyshev degree 5 (T_4(3) = 577 < 1000 <= T_5(3) = 3363), and the
    # coefficient of y1*y2*y3*y4*y5 in s^5 is 5! = 120 > 2^5 = 32.
    g = or_polynomial(2, "1e-3").poly
    assert g.degree == 5
    res = paper_coefficient_bound(g, 2)
    assert res["holds"] is False
    c5 = abs(g.to_monomial().coeffs[5])
    assert parse_fmpq_str(res["T_full"]) >= 120 * c5 > 32 * c5


def test_bad_inputs():
    g = or_polynomial(3, "1/10").poly
    with pytest.raises(InvalidParameterError, match="d must be >= 1"):
        multivariate_norms(g, 0)
    with pytest.raises(InvalidParameterError, match="row_weight must be <= 3"):
        multivariate_norms(g, 3, row_weight=4)
    with pytest.raises(ParameterTypeError, match="d must be an integer"):
        multivariate_norms(g, 2.5)
    with pytest.raises(ParameterTypeError):
        multivariate_norms("x", 3)
    with pytest.raises(InvalidParameterError, match="d must be <= 1000000000"):
        multivariate_norms(g, 10**12)
