"""Release-size calculator (thaler2012 Theorems 3.1/3.2).

Independent references: brute-force sensitivities over all pairs of rows (sympy expansion of
p_x for every x in {0,1}^d, d = 4), the paper's formulas recomputed here with mpmath at high
precision, and monotonicity of n in alpha / epsilon.
"""

from __future__ import annotations

import json
from itertools import product
from math import comb

import mpmath
import pytest
import sympy as sp

from dpverify.constructions.chebyshev import or_polynomial
from dpverify.errors import InvalidParameterError, ParameterTypeError
from dpverify.mechanisms.release_size import default_gamma_grid, release_size
from dpverify.numbers import parse_fmpq_str


def _vec(g, x, multilinear):
    ys = sp.symbols(f"y1:{len(x) + 1}")
    s = sum(y for y, xi in zip(ys, x) if xi)
    e = sum(sp.Rational(int(c.p), int(c.q)) * s**i for i, c in enumerate(g.coeffs))
    P = sp.Poly(sp.expand(e), *ys)
    out: dict = {}
    for mon, c in P.terms():
        key = tuple(1 if m else 0 for m in mon) if multilinear else mon
        out[key] = out.get(key, 0) + c
    return out


@pytest.mark.parametrize("rep", ["full", "multilinear"])
def test_sensitivity_matches_brute_force(rep):
    d, k, gamma = 4, 3, "1/10"
    g = or_polynomial(k, gamma).poly.to_monomial()
    vecs = [_vec(g, x, rep == "multilinear") for x in product((0, 1), repeat=d)]
    s1 = max(sum(abs(a.get(m, 0) - b.get(m, 0)) for m in set(a) | set(b))
             for a in vecs for b in vecs)
    sinf = max(max((abs(a.get(m, 0) - b.get(m, 0)) for m in set(a) | set(b)), default=0)
               for a in vecs for b in vecs)
    res = release_size(d, "disjunction", k, 1, "1/2", "1/10", gamma=gamma, representation=rep)
    c = res["best"]
    got1 = parse_fmpq_str(c["sensitivity_l1_times_n"])
    goti = parse_fmpq_str(c["sensitivity_linf_times_n"])
    assert sp.Rational(int(got1.p), int(got1.q)) == s1
    assert sp.Rational(int(goti.p), int(goti.q)) == sinf
    t = g.degree
    K = comb(d + t, t) if rep == "full" else sum(comb(d, s) for s in range(t + 1))
    assert c["n_coefficients"] == str(K)


def test_n_formula_and_paper_formula_independently():
    d, k, eps, alpha, beta, gamma = 20, 3, "1/2", "1/5", "1/20", "1/10"
    res = release_size(d, "disjunction", k, eps, alpha, beta, gamma=gamma)
    c = res["best"]
    mpmath.mp.dps = 60
    K = int(c["n_coefficients"])
    Ke = int(c["n_coefficients_read_per_query"])
    t = c["degree"]
    assert K == comb(d + t, t) and Ke == comb(k + t, t)
    S1 = parse_fmpq_str(c["sensitivity_l1_times_n"])
    T = parse_fmpq_str(c["T"])
    lnkb = mpmath.log(mpmath.mpf(K) * 20)
    ours = mpmath.mpf(int(S1.p)) / int(S1.q) * Ke * lnkb / (mpmath.mpf(1) / 2 * mpmath.mpf(1) / 10)
    paper = 4 * mpmath.mpf(int(T.p)) / int(T.q) * K**2 * lnkb / (mpmath.mpf(1) / 2 / 10)
    assert int(c["n"]) == int(mpmath.ceil(ours))
    assert int(c["paper"]["n"]) == int(mpmath.ceil(paper))


def test_n_monotone_in_alpha_and_epsilon():
    base = release_size(30, "disjunction", 4, 1, "1/5", "1/20", gamma="1/20")["best"]
    more_alpha = release_size(30, "disjunction", 4, 1, "2/5", "1/20", gamma="1/20")["best"]
    more_eps = release_size(30, "disjunction", 4, 2, "1/5", "1/20", gamma="1/20")["best"]
    assert int(more_alpha["n"]) < int(base["n"])
    assert int(more_eps["n"]) < int(base["n"])


def test_gamma_search_picks_minimum_and_every_candidate_certified():
    res = release_size(50, "disjunction", 4, 1, "1/10", "1/20", representation="multilinear")
    ns = [int(c["n"]) for c in res["candidates"]]
    assert all(c["certified"] for c in res["candidates"])
    assert int(res["best"]["n"]) == min(ns)
    assert [parse_fmpq_str(c["gamma"]) for c in res["candidates"]] == default_gamma_grid(
        parse_fmpq_str("1/10"))
    json.dumps(res)


def test_approx_dp_and_composition_check():
    res = release_size(30, "disjunction", 4, "1/2", "1/5", "1/20", gamma="1/20", delta="1e-6")
    c = res["best"]
    assert c["lemma_2_4_composition_ok"] is True
    assert "Theorem 3.2" in c["paper"]["formula"]


def test_rofk_and_dlist_classes():
    a = release_size(20, "rofk", 4, 1, "1/5", "1/20", r=2, gamma="1/10", method="minimax")
    assert a["best"]["certified"]
    b = release_size(12, "dlist", 3, 1, "1/5", "1/20", gamma="1/10",
                     representation="multilinear")
    assert b["best"]["norm_kind"].startswith("upper bound")


def test_bad_inputs():
    with pytest.raises(InvalidParameterError, match="k must be <= 3"):
        release_size(3, "disjunction", 4, 1, "1/5", "1/20")
    with pytest.raises(InvalidParameterError, match="query_class"):
        release_size(10, "parity", 3, 1, "1/5", "1/20")
    with pytest.raises(InvalidParameterError, match="r is required"):
        release_size(10, "rofk", 3, 1, "1/5", "1/20")
    with pytest.raises(InvalidParameterError, match="gamma must be in"):
        release_size(10, "disjunction", 3, 1, "1/5", "1/20", gamma="1/5")
    with pytest.raises(InvalidParameterError, match="epsilon must be in"):
        release_size(10, "disjunction", 3, 0, "1/5", "1/20")
    with pytest.raises(InvalidParameterError, match="beta must be in"):
        release_size(10, "disjunction", 3, 1, "1/5", "1")
    with pytest.raises(ParameterTypeError, match="d must be an integer"):
        release_size(10.5, "disjunction", 3, 1, "1/5", "1/20")
    with pytest.raises(InvalidParameterError, match="d must be <="):
        release_size(10**12, "disjunction", 3, 1, "1/5", "1/20")


def test_cli_release_size(capsys):
    from dpverify.cli import main

    argv = ["release-size", "--d", "20", "--class", "disjunction", "--k", "3",
            "--epsilon", "1", "--alpha", "0.2", "--beta", "0.05", "--gamma", "0.1", "--json"]
    assert main(argv) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["best"]["gamma"] == "1/10"
    for bad, needle in [(["--epsilon", "-1"], "--epsilon"), (["--k", "x"], "--k must be"),
                        (["--class", "foo"], "--class"), (["--gamma", "0.5"], "--gamma")]:
        a = list(argv[:-1])
        i = a.index(bad[0])
        a[i + 1] = bad[1]
        assert main(a) == 2
        err = capsys.readouterr().err
        assert needle in err and len(err.strip().splitlines()) == 1
