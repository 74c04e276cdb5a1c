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

HUGE = 10**40  # epsilon so large that the integer noise is 0 with prob 1 - 2e^{-10^30}


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
    # doubled, all-zero rows: only subsets of the 4 negative literals have a count
    t = s.data["polynomial"]["degree"]
    assert s.data["n_nonzero_counts"] == sum(comb(4, j) for j in range(1, t + 1))


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
