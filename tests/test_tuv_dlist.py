"""TUV release for decision-list databases (dpverify.mechanisms.tuv_dlist, thaler2012 Thm 1.3).

Expected values are derived independently: the function of a list by direct evaluation
(``DecisionList.__call__``), ``p_x`` by :class:`DecisionListPolynomial` (``evaluate`` and its
own Moebius-by-evaluation ``multilinear``), sensitivities by brute force over all pairs.
"""

from __future__ import annotations

import itertools
import json
from math import comb, gcd

import numpy as np
import pytest
from flint import fmpq

from dpverify.certify.decision_lists import certify_exhaustive, certify_per_term
from dpverify.cli import main
from dpverify.constructions.decision_lists import (
    DecisionList,
    decision_list_polynomial,
    h_polynomial,
)
from dpverify.errors import InvalidParameterError
from dpverify.mechanisms.privacy import dlist_privacy, dlist_sensitivity
from dpverify.mechanisms.tuv_dlist import (
    DlistSummary,
    dlist_release_polynomial,
    random_decision_lists,
    read_decision_lists,
    reduce_decision_list,
    tuv_dlist_release,
)

HUGE = 2**64  # the largest admissible epsilon: lattice noise scale < 2^-40 in these tests
# (checked in test_huge_epsilon_makes_noise_vanish), so P[Z != 0] <= 2 exp(-2^40)


def _all_lists(m: int, k: int):
    """Every decision list of length <= k over m variables (repeated variables allowed)."""
    lits = [s * v for v in range(1, m + 1) for s in (1, -1)]
    for L in range(k + 1):
        for seq in itertools.product(lits, repeat=L):
            for bits in itertools.product((0, 1), repeat=L + 1):
                yield DecisionList(tuple(zip(seq, bits[:-1])), bits[-1], m)


def _ys(m):
    return list(itertools.product((0, 1), repeat=m))


def _frac(s: str) -> fmpq:
    p, _, q = s.partition("/")
    return fmpq(int(p), int(q or 1))


def test_reduce_keeps_the_function_and_makes_variables_distinct():
    # exhaustive: all 3-node lists over 2 variables (repeats forced) and 3 variables
    for m in (2, 3):
        for x in _all_lists(m, 3):
            r = reduce_decision_list(x)
            vs = [abs(lit) for lit, _ in r.nodes]
            assert len(vs) == len(set(vs)) <= min(3, m)
            assert all(r(y) == x(y) for y in _ys(m))


def test_term_table_matches_moebius_by_evaluation():
    # our per-term table aggregated by the release (eps huge => no noise) must equal the
    # average of DecisionListPolynomial.multilinear() (Moebius inversion of evaluations)
    m, k = 4, 3
    rng = np.random.default_rng(5)
    dls = random_decision_lists(25, m, k, rng) + [DecisionList(((2, 1), (-2, 0)), 1, m)]
    s = tuv_dlist_release(dls, m, k, "1/10", HUGE, insecure_seed=0)
    want: dict[tuple, fmpq] = {}
    for x in dls:
        p = decision_list_polynomial(reduce_decision_list(x), k, "1/10", m=m)
        for S, c in p.multilinear().items():
            key = tuple(sorted(S))
            want[key] = want.get(key, fmpq(0)) + c
    n = len(dls)
    for key, num in s.coefficients.items():
        assert fmpq(num, s.denominator) == want.get(key, fmpq(0)) / n
    assert set(want) <= set(s.coefficients)


@pytest.mark.parametrize("k,gamma", [(2, "1/10"), (3, "1/10"), (3, "1/100")])
def test_noiseless_release_within_gamma_of_truth_for_every_y(k, gamma):
    m = 5
    rng = np.random.default_rng(k)
    dls = random_decision_lists(30, m, k, rng)
    dls += [DecisionList(((1, 0), (-1, 1)), 1, m)]  # repeated variable: reduced to ((1,0),), 1
    s = tuv_dlist_release(dls, m, k, gamma, HUGE, insecure_seed=1)
    g_rel = _frac(s.data["accuracy"]["gamma_release"])
    assert g_rel <= _frac(gamma)
    polys = [decision_list_polynomial(reduce_decision_list(x), k, gamma, m=m) for x in dls]
    n = len(dls)
    for y in _ys(m):
        ans = s.answer(y)
        assert ans == sum((p.evaluate(y) for p in polys), fmpq(0)) / n  # exact p_D(y)
        truth = fmpq(sum(x(y) for x in dls), n)
        assert abs(ans - truth) <= g_rel
        assert s.answer("".join(map(str, y))) == ans


@pytest.mark.parametrize("k,gamma", [(2, "1/10"), (3, "1/10"), (3, "1/100"), (2, "1/1000")])
def test_gamma_release_bounds_every_list_exhaustively(k, gamma):
    # the data-independent bound must dominate the exact error of every list (m = 3)
    _, g_rel, _ = dlist_release_polynomial(k, gamma, 3)
    worst = fmpq(0)
    for x in _all_lists(3, k):
        r = reduce_decision_list(x)
        p = decision_list_polynomial(r, k, gamma, m=3)
        worst = max(worst, _frac(certify_exhaustive(p, r)["max_error"]))
    assert worst <= g_rel <= _frac(gamma)


def test_certify_per_term_drops_the_on_term():
    # k = 3, gamma = 1/100, all bits 1: summing every term would give 2/181 > gamma although
    # the exact error is 3/362 (values by hand from h_3 = (-1/362, 0, 1/362, 1) on 0..3);
    # certify_per_term drops the term that is on and gets the exact value.
    dl = DecisionList(((1, 1), (2, 1), (3, 1)), 1, 3)
    p = decision_list_polynomial(dl, 3, "1/100", m=3)
    assert [p.h(z) for z in range(4)] == [fmpq(-1, 362), 0, fmpq(1, 362), 1]
    assert certify_per_term(p, dl)["bound"] == "3/362"
    assert certify_exhaustive(p, dl)["max_error"] == "3/362"
    _, g_rel, _ = dlist_release_polynomial(3, "1/100", 3)
    assert fmpq(3, 362) <= g_rel <= fmpq(1, 100)


def _ml_vector(x: DecisionList, k: int, gamma: str, m: int) -> list[fmpq]:
    p = decision_list_polynomial(reduce_decision_list(x), k, gamma, m=m)
    ml = p.multilinear()
    subsets = [frozenset(c) for s in range(m + 1)
               for c in itertools.combinations(range(1, m + 1), s)]
    return [ml.get(S, fmpq(0)) for S in subsets]


@pytest.mark.parametrize("k,m", [(1, 2), (2, 4), (2, 3)])
def test_sensitivity_against_all_pairs(k, m):
    # brute force max ||p_x - p_x'||_1 over all pairs of decision lists (after reduction);
    # equality when m >= 2k (the disjoint-variable witness exists), upper bound otherwise;
    # the term route is always an upper bound.
    gamma = "1/10"
    vecs = {tuple(_ml_vector(x, k, gamma, m)) for x in _all_lists(m, k)}
    vecs = [list(v) for v in vecs]
    den = 1
    for v in vecs:
        for c in v:
            den = den * int(c.q) // gcd(den, int(c.q))
    A = np.array([[int((c * den).p) for c in v] for v in vecs], dtype=object)
    best = max(sum(abs(a - b) for a, b in zip(A[i], A[j]))
               for i in range(len(A)) for j in range(i + 1, len(A)))
    brute = fmpq(int(best), den)
    h = list(h_polynomial(k, gamma).poly.to_monomial().coeffs)
    sens = dlist_sensitivity(h, k, m)
    if m >= 2 * k:
        assert sens["S1_exact"] and sens["S1"] == brute
    else:
        assert not sens["S1_exact"] and sens["S1"] >= brute
    assert sens["S1_term_bound"] >= sens["S1"]
    # T (max |coef| of one p_x) by brute force
    assert sens["T"] == max(abs(c) for v in vecs for c in v)
    # add/remove: one list moves sum_x p_x by ||p_x||_1 (constant included) and the count
    # coordinate by T; the record's L1 is exactly max ||p_x||_1 + T
    one = max(sum(abs(c) for c in v) for v in vecs)
    rec = dlist_privacy(h, k, m, 1, neighbours="add-remove")
    assert fmpq(rec["sensitivity"]["l1_times_n"]) == one + sens["T"]


def test_coordinate_size_rule_matches_brute_force():
    # sizes with a non-zero coefficient for SOME list, found by expanding every list
    k, m, gamma = 3, 3, "1/10"
    seen = set()
    for x in _all_lists(m, k):
        p = decision_list_polynomial(reduce_decision_list(x), k, gamma, m=m)
        seen |= {len(S) for S, c in p.multilinear().items() if c != 0}
    h = list(h_polynomial(k, gamma).poly.to_monomial().coeffs)
    assert dlist_sensitivity(h, k, m)["sizes"] == sorted(seen) == [0, 1, 2, 3]
    s = tuv_dlist_release([DecisionList((), 0, 6)], 6, k, gamma, 1, insecure_seed=0)
    # every set of the allowed sizes is a coordinate, even for an all-constant database
    assert s.data["n_coordinates"] == len(s.coefficients) == sum(comb(6, j) for j in range(4))


def test_accuracy_repeated_runs():
    # known answers on synthetic data; observed worst error over all 2^m inputs <= the
    # certified alpha (worst-case weight) in >= 19 of 20 seeded runs (beta = 1/20); also the
    # per-coordinate noise event itself (all |Z| <= m_beta - 1) in >= 19 runs.
    m, k, n = 6, 2, 3000
    rng = np.random.default_rng(11)
    dls = random_decision_lists(n, m, k, rng)
    ys = _ys(m)
    truth = {y: fmpq(sum(x(y) for x in dls), n) for y in ys}
    base = tuv_dlist_release(dls, m, k, "1/10", HUGE, insecure_seed=0)
    ok = ok_noise = 0
    for seed in range(20):
        s = tuv_dlist_release(dls, m, k, "1/10", 1, insecure_seed=seed)
        alpha = _frac(s.data["accuracy"]["alpha"])
        worst = max(abs(s.answer(y) - truth[y]) for y in ys)
        ok += worst <= alpha
        mb1 = s.data["accuracy"]["noise_per_coordinate_lattice_units"]
        ok_noise += all(abs(v - base.coefficients[key]) <= mb1
                        for key, v in s.coefficients.items())
        assert alpha == _frac(s.accuracy_for_weight(m)["alpha"])
    assert ok >= 19 and ok_noise >= 19


def test_read_formats_and_errors(tmp_path):
    c = tmp_path / "d.csv"
    c.write_text("# comment\n+1,1,-3,0,1\n\n2,0,+4,1,0\n1\n")
    dls = read_decision_lists(str(c), 4, 2)
    assert dls[0] == DecisionList(((1, 1), (-3, 0)), 1, 4)
    assert dls[2] == DecisionList((), 1, 4)
    j = tmp_path / "d.json"
    j.write_text(json.dumps({"m": 4, "lists": [{"nodes": [["+1", 1], [-3, 0]], "default": 1}]}))
    assert read_decision_lists(str(j), 4, 2)[0] == dls[0]
    bad = tmp_path / "bad.csv"
    bad.write_text("+1,1,0\n+9,1,0\n")
    with pytest.raises(InvalidParameterError, match="line 2 node 1"):
        read_decision_lists(str(bad), 4, 2)
    bad.write_text("+1,1,+2,0\n")
    with pytest.raises(InvalidParameterError, match="odd number"):
        read_decision_lists(str(bad), 4, 2)
    bad.write_text("+1,1,+2,0,+3,1,0\n")
    with pytest.raises(InvalidParameterError, match="more than k"):
        read_decision_lists(str(bad), 4, 2)
    with pytest.raises(InvalidParameterError, match="declares m"):
        read_decision_lists(str(j), 5, 2)


def test_guards_and_summary_roundtrip():
    with pytest.raises(InvalidParameterError, match="m = 1000"):
        tuv_dlist_release([DecisionList((), 0, 1000)], 1000, 3, "1/10", 1)
    with pytest.raises(InvalidParameterError, match="more than k"):
        tuv_dlist_release([DecisionList(((1, 1), (2, 1)), 0, 3)], 3, 1, "1/10", 1)
    s = tuv_dlist_release([DecisionList(((1, 1),), 0, 3)], 3, 1, "1/10", 1, insecure_seed=2)
    s2 = DlistSummary(json.loads(json.dumps(s.to_json())))
    assert s2.answer([1, 0, 1]) == s.answer("101")
    with pytest.raises(InvalidParameterError, match="m = 3"):
        s.answer("10")
    with pytest.raises(InvalidParameterError, match="summary"):
        DlistSummary({"mechanism": "tuv-release"})


def test_cli_end_to_end(tmp_path, capsys):
    c = tmp_path / "d.csv"
    c.write_text("+1,1,-3,0,1\n2,0,+4,1,0\n-5,1,0\n")
    out = tmp_path / "s.json"
    assert main(["tuv-release", "--dlists", str(c), "--m", "5", "--k", "2", "--gamma", "1/10",
                 "--epsilon", "1", "--insecure-seed", "4", "--out", str(out)]) == 0
    capsys.readouterr()
    assert main(["tuv-answer", "--summary", str(out), "--y", "10100", "--json"]) == 0
    res = json.loads(capsys.readouterr().out)
    summ = DlistSummary(json.loads(out.read_text()))
    assert _frac(res["answer"]) == summ.answer("10100")
    assert res["alpha"] == summ.accuracy_for_weight(2)["alpha"]
    bad_calls = [
        ["tuv-answer", "--summary", str(out), "--y", "101"],
        ["tuv-answer", "--summary", str(out), "--query", "1,2"],
        ["tuv-release", "--dlists", str(c), "--k", "2", "--gamma", "1/10", "--epsilon", "1"],
        ["tuv-release", "--dlists", str(c), "--m", "4", "--k", "2", "--gamma", "1/10",
         "--epsilon", "1"],
        ["tuv-release", "--dlists", str(c), "--data", str(c), "--m", "5", "--k", "2",
         "--gamma", "1/10", "--epsilon", "1"],
        ["tuv-release", "--dlists", str(c), "--m", "5", "--k", "2", "--gamma", "1/10",
         "--epsilon", "1", "--delta", "1/100"],
        ["tuv-release", "--dlists", str(tmp_path / "missing.csv"), "--m", "5", "--k", "2",
         "--gamma", "1/10", "--epsilon", "1"],
    ]
    for argv in bad_calls:
        assert main(argv) == 2, argv
    err = capsys.readouterr().err
    assert "Traceback" not in err and "--m" in err


def test_cli_privacy_dlist(capsys):
    # k = 2, gamma = 1/10: S1 = 679/99 and T = 101/99 (re-derived with sympy in
    # tests/test_proofs_checks.py::v_dlist_box); coordinates = all sets of size 0..2 over
    # m = 20 variables = 1 + 20 + 190 (by hand); the box scale 2T gives epsilon 679/202.
    from dpverify.cli import main

    assert main(["privacy", "dlist", "--m", "20", "--k", "2", "--gamma", "1/10",
                 "--epsilon", "1", "--json"]) == 0
    res = json.loads(capsys.readouterr().out)
    assert res["sensitivity"]["l1_times_n"] == "679/99"
    assert res["sensitivity"]["n_coordinates"] == str(1 + 20 + 190)
    assert res["scale_times_n"] == "679/99"
    assert res["paper"]["theorem_3_1_box_scale_times_n"] == "202/99"
    assert res["paper"]["theorem_3_1_box_epsilon"] == "679/202"
    assert main(["privacy", "dlist", "--m", "20", "--k", "0", "--gamma", "1/10",
                 "--epsilon", "1"]) == 2


def test_published_fields_do_not_depend_on_the_data():
    # all fields but the noisy coefficients are equal for neighbouring databases
    base = [DecisionList(((1, 1), (-2, 0)), 1, 4), DecisionList(((3, 0),), 1, 4)]
    other = [DecisionList(((1, 1), (-2, 0)), 1, 4), DecisionList(((2, 1), (4, 1)), 0, 4)]
    recs = []
    for dls in (base, other):
        data = dict(tuv_dlist_release(dls, 4, 2, "1/10", 1, insecure_seed=5).data)
        keys = set(data.pop("coefficients"))
        recs.append((json.dumps(data, sort_keys=True), keys))
    assert recs[0] == recs[1]


@pytest.mark.parametrize("k,gamma", [(2, "1/10"), (3, "1/10"), (3, "1/100")])
def test_huge_epsilon_makes_noise_vanish(k, gamma):
    # HUGE = 2^64 (top of the documented epsilon range): lattice noise scale b < 2^-40, so
    # P[Z != 0] = 2 r/(1 + r), r = exp(-1/b), is <= 2 exp(-2^40): the "noiseless" tests
    # above rely on this; the certified union-bound quantile agrees (m_beta - 1 = 0)
    m = 5
    dls = random_decision_lists(10, m, k, np.random.default_rng(0))
    s = tuv_dlist_release(dls, m, k, gamma, HUGE, insecure_seed=0)
    b = _frac(s.data["privacy"]["noise"]["scale_lattice_units"])
    assert b < fmpq(1, 2**40)
    assert s.data["accuracy"]["noise_per_coordinate_lattice_units"] == 0
