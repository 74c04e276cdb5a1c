"""TUV polynomial release (dpverify.mechanisms.tuv): exactness, sparsity, accuracy, CLI."""

from __future__ import annotations

import itertools
import json
from math import comb

import numpy as np
import pytest
from flint import fmpq

from dpverify.cli import main
from dpverify.errors import InvalidParameterError
from dpverify.mechanisms.privacy import tuv_sensitivity
from dpverify.mechanisms.tuv import TUVSummary, tuv_release
from dpverify.numbers import parse_fmpq_str

HUGE = 2**64  # the largest admissible epsilon: lattice noise scale < 2^-40 in these tests
# (checked in test_huge_epsilon_makes_noise_vanish), so P[Z != 0] <= 2 exp(-2^40)


def _data(n, d, seed):
    rng = np.random.default_rng(seed)
    probs = np.linspace(0.1, 0.6, d)
    return (rng.random((n, d)) < probs).astype(np.int8)


def _g_value(cs, x):
    acc = fmpq(0)
    for c in reversed(cs):
        acc = acc * x + fmpq(c.split("/")[0]) / fmpq(c.split("/")[1] if "/" in c else 1)
    return acc


@pytest.mark.parametrize("representation", ["multilinear", "full"])
@pytest.mark.parametrize("universe", ["monotone", "doubled"])
def test_noiseless_answers_are_exact_average(representation, universe):
    # p_D(1_S) must equal (1/n) sum_x g(#{j in S: x'_j = 1}) exactly (brute force per row)
    X = _data(60, 4, 1)
    s = tuv_release(X, 3, "1/10", HUGE, representation=representation, universe=universe,
                    insecure_seed=0)
    cs = s.data["polynomial"]["coefficients"]
    Xd = np.concatenate([X, 1 - X], axis=1) if universe == "doubled" else X
    lits = range(8) if universe == "doubled" else range(4)
    for size in (1, 2, 3):
        for S in itertools.combinations(lits, size):
            want = sum((_g_value(cs, int(Xd[i, list(S)].sum())) for i in range(60)), fmpq(0))
            query = [(j % 4, j < 4) for j in S]
            assert s.answer(query) == want / 60


def test_sparse_storage_and_coordinates():
    X = np.zeros((5, 4), dtype=np.int8)  # all-zero data: every coordinate still noised
    for rep in ("multilinear", "full"):
        for uni in ("monotone", "doubled"):
            s = tuv_release(X, 2, "1/10", 1, representation=rep, universe=uni, insecure_seed=2)
            cs = [fmpq(c.split("/")[0]) / fmpq(c.split("/")[1] if "/" in c else 1)
                  for c in s.data["polynomial"]["coefficients"]]
            sens = tuv_sensitivity(cs, 4, 2, rep, uni)
            assert len(s.coefficients) == sens["n_coordinates"] == s.data["n_coordinates"]
            for key in s.coefficients:  # no complementary pair is ever stored
                assert not any(j >= 4 and j - 4 in key for j in key)
    # doubled, all-zero rows: only subsets of the 4 negative literals have a count (the
    # internal counts; their number is data-dependent and must not be published)
    from dpverify.mechanisms.tuv import _support_counts

    t = s.data["polynomial"]["degree"]
    Xd = np.concatenate([X, 1 - X], axis=1)
    counts = _support_counts(Xd, min(t, 2), 4, True)
    assert len(counts) == sum(comb(4, j) for j in range(1, min(t, 2) + 1))


def _scrub(obj):
    """The summary without its noisy coefficients (what must not depend on the data)."""
    return json.dumps({k: v for k, v in obj.items() if k != "coefficients"}, sort_keys=True)


@pytest.mark.parametrize("universe", ["monotone", "doubled"])
def test_published_fields_do_not_depend_on_the_data(universe):
    # every field except the noisy coefficients must be identical for neighbouring databases
    # (a reviewer found a published count of non-zero support sets: 10 vs 0 here)
    D = np.array([[0, 0, 0, 0], [0, 0, 0, 0], [1, 1, 1, 1]], dtype=np.int8)
    D2 = D.copy()
    D2[2] = 0
    a = tuv_release(D, 3, "1/10", 1, universe=universe, insecure_seed=1)
    b = tuv_release(D2, 3, "1/10", 1, universe=universe, insecure_seed=1)
    assert _scrub(a.data) == _scrub(b.data)
    assert set(a.data["coefficients"]) == set(b.data["coefficients"])


def test_accuracy_repeated_runs():
    # synthetic data with known answers; observed worst error <= certified alpha(beta) in
    # >= (1 - beta) of 20 runs (beta = 1/20, so >= 19 runs).  Queries: all OR and AND of
    # <= 2 literals over d = 4 attributes (doubled universe).
    d, n, beta = 4, 4000, fmpq(1, 20)
    X = _data(n, d, 7)
    lits = [(j, pos) for j in range(d) for pos in (True, False)]
    truth = {}
    for size in (1, 2):
        for L in itertools.combinations(lits, size):
            cols = np.stack([X[:, j] if pos else 1 - X[:, j] for j, pos in L], axis=1)
            truth[(L, "or")] = fmpq(int(cols.max(axis=1).sum()), n)
            truth[(L, "and")] = fmpq(int(cols.min(axis=1).sum()), n)
    ok = 0
    for seed in range(20):
        s = tuv_release(X, 2, "1/10", 1, universe="doubled", beta=beta, insecure_seed=seed)
        alpha = fmpq(*map(int, s.data["accuracy"]["alpha"].split("/")))
        worst = max(abs(s.answer(list(L), kind) - v) for (L, kind), v in truth.items())
        ok += worst <= alpha
    assert ok >= 19


def test_summary_roundtrip_and_errors():
    X = _data(30, 3, 3)
    s = tuv_release(X, 2, "1/10", 1, insecure_seed=1)
    s2 = TUVSummary(json.loads(json.dumps(s.to_json())))
    assert s2.answer([0, 2]) == s.answer([0, 2])
    with pytest.raises(InvalidParameterError, match="more than k"):
        s.answer([0, 1, 2])
    with pytest.raises(InvalidParameterError, match="doubled"):
        s.answer([(0, False)])
    with pytest.raises(InvalidParameterError, match="rows"):
        tuv_release([[0, 2]], 1, "1/10", 1)
    r2 = tuv_release(X, 2, "1/10", HUGE, r=2, insecure_seed=1)
    # 2-of-{0,1}: exact up to the certified error of g on every row
    want = fmpq(int((X[:, [0, 1]].sum(axis=1) >= 2).sum()), 30)
    err = abs(r2.answer([0, 1], "rofk", 2) - want)
    assert err <= fmpq(*map(int, r2.data["polynomial"]["error_exact"].split("/")))


def test_cli_release_and_answer(tmp_path, capsys):
    X = _data(40, 5, 4)
    csv = tmp_path / "d.csv"
    csv.write_text("a,b,c,d,e\n" + "\n".join(",".join(map(str, r)) for r in X) + "\n")
    out = tmp_path / "s.json"
    assert main(["tuv-release", "--data", str(csv), "--k", "2", "--gamma", "1/10",
                 "--epsilon", "1", "--universe", "doubled", "--out", str(out)]) == 0
    capsys.readouterr()
    assert main(["tuv-answer", "--summary", str(out), "--query", "1,~3", "--kind", "and",
                 "--json"]) == 0
    res = json.loads(capsys.readouterr().out)
    assert "answer" in res and res["beta"] == "1/20"
    assert main(["tuv-answer", "--summary", str(out), "--query", "1,x"]) == 2
    assert main(["tuv-release", "--data", str(csv), "--k", "9", "--gamma", "1/10",
                 "--epsilon", "1"]) == 2
    bad = tmp_path / "bad.csv"
    bad.write_text("0,1\n1,2\n")
    assert main(["tuv-release", "--data", str(bad), "--k", "1", "--gamma", "1/10",
                 "--epsilon", "1"]) == 2
    assert "line 2" in capsys.readouterr().err


@pytest.mark.parametrize("method", ["gemm", "rows", "auto"])
@pytest.mark.parametrize("doubled", [False, True])
def test_support_counts_match_brute_force(monkeypatch, doubled, method):
    # both exact methods, in tiny blocks/chunks (small _BLOCK_BYTES), must give exactly the
    # brute-force counts N(S) = #{rows containing S} for every S of size <= 3 with N(S) > 0
    import dpverify.mechanisms.tuv as tuv

    X = _data(37, 5, 9)
    Xd = np.concatenate([X, 1 - X], axis=1) if doubled else X
    monkeypatch.setattr(tuv, "_BLOCK_BYTES", 3 * 37 * 5)
    if method == "gemm":
        got = tuv._support_counts_gemm(Xd, 3, 5, doubled)
    elif method == "rows":
        got = tuv._support_counts_rows(Xd, 3, Xd.astype(np.int64).sum(axis=1))
    else:
        got = tuv._support_counts(Xd, 3, 5, doubled)
    want = {}
    for s in (1, 2, 3):
        for S in itertools.combinations(range(Xd.shape[1]), s):
            if doubled and any(j >= 5 and j - 5 in S for j in S):
                continue
            c = int(Xd[:, list(S)].all(axis=1).sum())
            if c:
                want[S] = c
    assert got == want


@pytest.mark.parametrize("representation", ["multilinear", "full"])
def test_truncation_keeps_answers_and_shrinks_release(representation):
    # gamma = 1/100, k = 2: g has degree > 2, so the paper's vector has monomials on 3 and 4
    # variables that no query of size <= 2 reads.  Noiseless (HUGE epsilon): every answer of
    # the truncated release equals the brute-force average of g (and the untruncated one).
    X = _data(40, 4, 3)
    kw = dict(representation=representation, universe="doubled", insecure_seed=0)
    a = tuv_release(X, 2, "1/100", HUGE, **kw)
    b = tuv_release(X, 2, "1/100", HUGE, truncate=False, **kw)
    assert a.data["polynomial"]["degree"] > 2
    assert all(len(set(key)) <= 2 for key in a.coefficients)
    assert any(len(set(key)) > 2 for key in b.coefficients)
    assert a.data["n_coordinates"] < b.data["n_coordinates"]
    s1 = [parse_fmpq_str(x.data["privacy"]["sensitivity"]["l1_times_n"], "S1") for x in (a, b)]
    assert s1[0] < s1[1]
    cs = a.data["polynomial"]["coefficients"]
    Xd = np.concatenate([X, 1 - X], axis=1)
    for size in (1, 2):
        for S in itertools.combinations(range(8), size):
            if any(j + 4 in S for j in S):
                continue
            want = sum((_g_value(cs, int(Xd[i, list(S)].sum())) for i in range(40)), fmpq(0))
            query = [(j % 4, j < 4) for j in S]
            assert a.answer(query) == b.answer(query) == want / 40


def test_empty_release_is_a_clear_error():
    # d = 1 in the doubled universe with r = k = 2: a query would need both x and NOT x, so
    # no coordinate exists (reviewer's edge case; it used to fail inside the noise sampler)
    with pytest.raises(InvalidParameterError, match="nothing to release"):
        tuv_release(np.array([[1]], dtype=np.int8), 2, "1/20", 1, r=2, universe="doubled")


@pytest.mark.parametrize("universe,truncate", [("monotone", True), ("doubled", False)])
def test_accuracy_plan_matches_the_release(universe, truncate):
    # the release of n rows reports exactly gamma_exact + C/n of the plan (the plan is
    # computed without data); n_needed is the least n with gamma + C/n <= alpha (exact)
    from dpverify.mechanisms.tuv import tuv_accuracy_plan

    X = _data(50, 4, 2)
    s = tuv_release(X, 2, "1/10", 1, universe=universe, truncate=truncate, insecure_seed=0)
    plan = tuv_accuracy_plan(4, 2, "1/10", 1, universe=universe, truncate=truncate,
                             alpha="1/2")
    g, C = parse_fmpq_str(plan["gamma_exact"], "g"), parse_fmpq_str(plan["C"], "C")
    assert parse_fmpq_str(s.data["accuracy"]["alpha"], "alpha") == g + C / 50
    nn = plan["n_needed"]
    assert g + C / nn <= fmpq(1, 2) < g + C / (nn - 1)
    with pytest.raises(InvalidParameterError, match="exceed"):
        tuv_accuracy_plan(4, 2, "1/10", 1, alpha="1/1000")


@pytest.mark.parametrize("k,gamma,kw", [
    (3, "1/10", {"representation": "multilinear", "universe": "monotone"}),
    (3, "1/10", {"representation": "full", "universe": "monotone"}),
    (3, "1/10", {"representation": "multilinear", "universe": "doubled"}),
    (3, "1/10", {"representation": "full", "universe": "doubled"}),
    (2, "1/10", {"r": 2}),
    (2, "1/100", {"representation": "full", "truncate": False}),
])
def test_huge_epsilon_makes_noise_vanish(k, gamma, kw):
    # HUGE = 2^64 (the top of the documented epsilon range): the lattice noise scale b is
    # below 2^-40, so P[Z != 0] = 2 r/(1 + r) with r = exp(-1/b) <= 2 exp(-2^40) -- the
    # "noiseless" tests above rely on this; the certified quantile agrees (m_beta - 1 = 0)
    s = tuv_release(_data(20, 5, 3), k, gamma, HUGE, insecure_seed=0, **kw)
    b = parse_fmpq_str(s.data["privacy"]["noise"]["scale_lattice_units"])
    assert b < fmpq(1, 2**40)
    assert s.data["accuracy"]["noise_per_coordinate_lattice_units"] == 0
