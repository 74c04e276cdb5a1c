"""jin Algorithm 1: discretisation, privacy by post-processing, LP fit, CLI.

Expected values come from the definitions (grid formula, exact LP optimum for a
noise-free case) and from the summary's own privacy record, never from outputs.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

pytest.importorskip("scipy")

from dpverify.cli import main  # noqa: E402
from dpverify.mechanisms import jin_synthetic as js  # noqa: E402


def test_grid_and_discretisation():
    a = js.grid_points(4)
    assert np.allclose(a, [-0.75, -0.25, 0.25, 0.75])  # (2k + 1 - N)/N by hand
    X = np.array([[-1.0], [-0.51], [-0.49], [0.0], [0.99], [1.0]])
    idx = js.discretise(X, 4)[:, 0]
    # nearest grid point (the cell boundaries are -0.5, 0, 0.5)
    assert list(idx) == [0, 0, 1, 2, 3, 3]


def test_fit_recovers_grid_distribution_with_tiny_noise():
    # data already on the grid: u = empirical distribution gives objective ~0 (only the
    # 1/L rounding), so the LP optimum is ~0 and weighted answers match the data.
    g = np.random.default_rng(0)
    a = js.grid_points(5)
    X = a[g.integers(0, 5, size=(400, 1))]
    syn = js.release_synthetic(X, 5, 5, 10**9, L=10**6, insecure_seed=1)
    assert syn.info["lp_objective"] < 1e-4
    for f in (lambda x: x, lambda x: np.exp(x), lambda x: x**3 - x):
        assert syn.answer_weights(f) == pytest.approx(float(np.mean(f(X[:, 0]))), abs=1e-3)
    assert syn.rows.shape == (400, 1) and set(np.unique(syn.rows)) <= set(a)


def test_privacy_is_the_summary_record_of_discretised_data():
    g = np.random.default_rng(1)
    X = g.uniform(-1, 1, (300, 2))
    syn = js.release_synthetic(X, 4, 6, "1/2", insecure_seed=3, grid_subset=20)
    assert syn.privacy["achieved_epsilon"] == "1/2"
    assert syn.privacy["noisy_coordinates"] == 15
    assert syn.info["grid_subset"] == 20 and np.count_nonzero(syn.weights) <= 20


def test_cli_jin(tmp_path, capsys):
    g = np.random.default_rng(2)
    data = tmp_path / "d.csv"
    np.savetxt(data, g.uniform(-1, 1, (200, 2)), delimiter=",")
    out = tmp_path / "syn.json"
    assert main(["release", "jin-synthetic", "--data", str(data), "--t", "4", "--N", "6",
                 "--epsilon", "1", "--insecure-seed", "1", "--out", str(out)]) == 0
    obj = json.loads(out.read_text())
    assert obj["mechanism"] == "jin-synthetic" and len(obj["rows"]) == 200
    assert main(["release", "jin-synthetic", "--data", str(data), "--t", "4", "--N", "0",
                 "--epsilon", "1"]) == 2
    assert "--N" in capsys.readouterr().err
    # answering from the synthetic rows: the mean of the query over them (hand: numpy)
    capsys.readouterr()
    assert main(["answer", "--summary", str(out), "--query", "x*y + 1", "--json"]) == 0
    res = json.loads(capsys.readouterr().out)
    rows = np.array([[float(v) for v in r] for r in obj["rows"]])
    assert res["answer"] == pytest.approx(float(np.mean(rows[:, 0] * rows[:, 1] + 1)),
                                          rel=1e-12)
    assert main(["answer", "--summary", str(out), "--query", "log(x - 2)"]) == 2
    assert main(["answer", "--summary", str(out), "--query", "x + q"]) == 2
    assert "--query" in capsys.readouterr().err


# ------------------------------------------------------------------ basis-subset variant
from math import comb  # noqa: E402

from flint import fmpq  # noqa: E402


def _cheb_exact(x: fmpq, r: int) -> fmpq:
    a, b = fmpq(1), x
    if r == 0:
        return a
    for _ in range(r - 1):
        a, b = b, 2 * x * b - a
    return b


def _phi_exact(x, r) -> fmpq:
    v = fmpq(1)
    for xi, ri in zip(x, r):
        v *= _cheb_exact(xi, int(ri))
    return v


def test_basis_indices_counts_and_order():
    B = js.basis_indices(3, degree=2)
    assert len(B) == comb(3 + 2, 2) == 10  # stars and bars
    assert not B[0].any() and len({tuple(r) for r in B.tolist()}) == 10
    assert list(B.sum(axis=1)) == sorted(B.sum(axis=1))
    S = js.basis_indices(4, size=7, seed=3)  # 1 + 4 degree-1 + 2 of the 10 degree-2
    assert len(S) == 7 and list(S.sum(axis=1)) == [0, 1, 1, 1, 1, 2, 2]
    with pytest.raises(ValueError, match="degree or size"):
        js.basis_indices(3)


def test_basis_moments_match_exact_and_full_tensor():
    g = np.random.default_rng(5)
    # dyadic data: exact rationals are the floats themselves
    X = np.round(g.uniform(-1, 1, (40, 3)) * 1024) / 1024
    B = js.basis_indices(3, degree=4)
    got = js.basis_moments(X, B)
    # basis_error_bound's lemma (S = 4) plus the two final float roundings (sum, mean)
    bound = js.basis_error_bound(4) + fmpq(2, 2**53)
    assert bound == 4 * (16 + 4) * fmpq(1, 2**53) + fmpq(1, 2**37) + fmpq(2, 2**53)
    J = js.exact_basis_sums(X, B)
    assert (J == js.exact_basis_sums(X[::-1], B)).all() and J[0] == 40 * 2**36
    rows = [[fmpq(int(v * 1024), 1024) for v in r] for r in X]
    for j, r in enumerate(B):
        exact = sum((_phi_exact(x, r) for x in rows), fmpq(0)) / 40
        assert abs(fmpq(*float(got[j]).as_integer_ratio()) - exact) <= bound
    # a different algorithm: the full moment tensor of wang_summary (d = 2)
    from dpverify.mechanisms.wang_summary import chebyshev_moments

    X2 = g.uniform(-1, 1, (50, 2))
    full = chebyshev_moments(X2, 5)
    B2 = np.array([[i, j] for i in range(5) for j in range(5)])
    B2 = B2[np.argsort(B2.sum(axis=1), kind="stable")]
    assert np.allclose(js.basis_moments(X2, B2), full[B2[:, 0], B2[:, 1]], atol=1e-13)


def test_basis_sensitivity_brute_force():
    # every per-row basis value lies in [-1, 1]: sum_{r != 0} |phi_r(x) - phi_r(x')| <=
    # 2(|R| - 1), checked exactly over all pairs of rows on a rational grid (d = 2, S = 3)
    B = js.basis_indices(2, degree=3)
    vals = [fmpq(i - 4, 4) for i in range(9)]
    pts = [(a, b) for a in vals for b in vals]
    phis = [[_phi_exact(p, r) for r in B[1:]] for p in pts]
    worst = max(sum(abs(u - v) for u, v in zip(p, q)) for p in phis for q in phis)
    assert worst <= 2 * (len(B) - 1)
    assert worst >= len(B) - 1  # the bound is not far off: x = (1,1) vs x' = (-1,-1) etc.
    rec, scale = js.basis_privacy(100, len(B), 3, 1)
    assert fmpq(*map(int, rec["moment_sensitivity_l1"].split("/"))) == fmpq(2 * (len(B) - 1),
                                                                            100)


def test_basis_privacy_hand_numbers():
    # n = 100, |R| = 4 (d = 3, S = 1): the default grid 2^-40; per coordinate 2/100 + 2^-40
    # (exact sums: one rounding of each neighbour's exact mean); L1 = 3 * that
    rec, scale = js.basis_privacy(100, 4, 1, "1/2")
    g = fmpq(1, 2**40)
    assert rec["grid"] == "1/1099511627776"
    per = fmpq(1, 50) + g
    assert rec["l1_sensitivity"] == str(3 * per) and scale == 3 * per / fmpq(1, 2)
    assert rec["achieved_epsilon"] == "1/2"
    # jin step 9 pattern |R|/(n eps) = 4/50 achieves L1/scale = 3 per * 50/4 > 1/2
    assert rec["paper"]["jin_step9_pattern_scale"] == "2/25"
    assert rec["paper"]["jin_step9_pattern_achieved_epsilon"] == str(3 * per * fmpq(25, 2))
    assert rec["paper"]["jin_step9_pattern_valid"] is False


def test_basis_synthetic_fits_with_tiny_noise():
    g = np.random.default_rng(7)
    a = js.grid_points(6)
    X = a[g.integers(1, 5, size=(300, 5))]  # already on the grid
    syn = js.release_synthetic_basis(X, 6, 10**9, basis_degree=2, grid_subset=3000,
                                     insecure_seed=2)
    assert syn.info["basis_size"] == comb(7, 2)
    assert syn.privacy["total"]["epsilon"] == str(10**9)
    # the LP matches every released moment: weighted answers of basis functions agree
    for f in (lambda *c: c[0], lambda *c: c[1] * c[3], lambda *c: 2 * c[2] ** 2 - 1):
        truth = float(np.mean(f(*X.T)))
        assert syn.answer_weights(f) == pytest.approx(truth, abs=1e-6 + syn.info["lp_objective"])


def test_cli_jin_basis_psi(tmp_path, capsys):
    g = np.random.default_rng(3)
    data = tmp_path / "d.csv"
    np.savetxt(data, g.uniform(-1, 1, (150, 6)), delimiter=",")
    out = tmp_path / "syn.json"
    assert main(["release", "jin-synthetic", "--data", str(data), "--N", "5",
                 "--basis-degree", "1", "--psi-k", "2", "--psi-iters", "3",
                 "--psi-epsilon", "1/2", "--psi-delta", "1e-6", "--candidates", "500",
                 "--epsilon", "1/2", "--insecure-seed", "4", "--out", str(out)]) == 0
    obj = json.loads(out.read_text())
    assert obj["basis_size"] == 7 and len(obj["rows"]) == 150 and obj["psi_k"] == 2
    tot = obj["privacy"]["total"]
    assert tot["delta"] == "1/1000000" and fmpq(*map(int, tot["epsilon"].split("/"))) <= 1
    assert main(["release", "jin-synthetic", "--data", str(data), "--N", "5",
                 "--basis-degree", "1", "--psi-k", "2", "--epsilon", "1"]) == 2
    assert "--psi-epsilon" in capsys.readouterr().err
