"""The checker's own Sherstov rebuild (``dpverify.verify.sherstov``: in the count t, integer
doubling formulas) equals the certifier's construction (``dpverify.constructions.sherstov``:
the paper's steps in s = k - t, then the substitution), for every reading.

The two share no code; the certifier's output is the oracle.  Undefined cases must be
undefined on both sides.  The fingerprint modulo 2^61 - 1 must agree with the exact
polynomial.  Default: k <= 7; slow: k <= 12 (every r, three gammas, six readings).
"""

from __future__ import annotations

import itertools

import pytest
from flint import fmpq

from dpverify.constructions.sherstov import exact_l_polynomial, rofk_polynomial
from dpverify.errors import DomainError
from dpverify.verify import sherstov as V

READINGS = [{}, {"log_base": "2"}, {"delta": "log_2"}, {"d": "Delta"},
            {"d": "log_k_over_gamma"}, {"ell_range": "1..r-1"}]
GAMMAS = ["1/2", "1/10", "1/1000"]


def _agree(kmax: int) -> int:
    n = 0
    for k, g, rd in itertools.product(range(2, kmax + 1), GAMMAS, READINGS):
        reading = dict(V.DEFAULT_READING, **rd)
        gamma = fmpq(*map(int, g.split("/")))
        for r in range(1, k + 1):
            prm = V.parameters("rofk/sherstov", k, gamma, reading, r=r)
            try:
                a = rofk_polynomial(r, k, g, reading=reading, intermediates="summary",
                                    max_degree=3000)
            except DomainError:
                assert isinstance(prm, str), (r, k, g, rd)
                continue
            assert not isinstance(prm, str), (r, k, g, rd)
            P = a.poly.as_fmpq_poly()
            assert V.build("rofk/sherstov", prm, lambda: None) == P, (r, k, g, rd)
            assert V.poly_mod(P) == V.fingerprint("rofk/sherstov", prm), (r, k, g, rd)
            n += 1
        if "ell_range" in rd:
            continue
        rd3 = {key: reading[key] for key in V.READING_KEYS["exact_l/sherstov"]}
        for ell in range(k):
            prm = V.parameters("exact_l/sherstov", k, gamma, rd3, l_=ell)
            try:
                a = exact_l_polynomial(ell, k, g, reading=rd3, intermediates="summary",
                                       max_degree=3000)
            except DomainError:
                assert isinstance(prm, str), (ell, k, g, rd)
                continue
            assert V.build("exact_l/sherstov", prm, lambda: None) == a.poly.as_fmpq_poly()
            n += 1
    return n


def test_the_rebuild_equals_the_construction_small_k():
    assert _agree(6) > 100


@pytest.mark.slow
def test_the_rebuild_equals_the_construction_up_to_k_12():
    assert _agree(12) > 1000


def test_parameters_match_the_documented_examples():
    """docs/sherstov.md: r=2, k=16, gamma=1e-3 has degree 1054 (default reading) and 1394
    (log_base=2); r=13, k=15, gamma=1/2 has degree 1510; r=1, k=2 is undefined."""
    g = fmpq(1, 1000)
    prm = V.parameters("rofk/sherstov", 16, g, dict(V.DEFAULT_READING), r=2)
    assert max(prm.degree(e) for e in prm.ells) == 1054
    prm2 = V.parameters("rofk/sherstov", 16, g, dict(V.DEFAULT_READING, log_base="2"), r=2)
    assert max(prm2.degree(e) for e in prm2.ells) == 1394
    prm3 = V.parameters("rofk/sherstov", 15, fmpq(1, 2), dict(V.DEFAULT_READING), r=13)
    assert max(prm3.degree(e) for e in prm3.ells) == 1510
    assert isinstance(V.parameters("rofk/sherstov", 2, fmpq(1, 2), dict(V.DEFAULT_READING),
                                   r=1), str)
