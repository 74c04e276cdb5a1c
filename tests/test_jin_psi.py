"""jin Algorithm 2 (private subspace iteration) and ``dpverify privacy jin``.

Expected values: the covariance change is brute-forced from the definition of ``A`` in exact
rationals; the sensitivity constants are derived by hand in the module docstring of
:mod:`dpverify.mechanisms.jin_psi` (``4 d (n-1)/n^2``); printed-scale ratios are worked out by
hand in the comments.
"""

from __future__ import annotations

import json
from itertools import product

import numpy as np
import pytest
from flint import fmpq

from dpverify.cli import main
from dpverify.mechanisms import jin_psi as jp


def _fro2(M) -> fmpq:
    return sum((v * v for row in M for v in row), fmpq(0))


def test_covariance_change_brute_force_small():
    # d = 2, n = 3, rows from {-1, 0, 1}^2: every neighbouring pair, exact rationals
    vals = [fmpq(-1), fmpq(0), fmpq(1)]
    pts = list(product(vals, repeat=2))
    n, d = 3, 2
    c = fmpq(n - 1, n * n)
    worst_entry, worst_fro2 = fmpq(0), fmpq(0)
    for o1 in pts:
        for o2 in pts:
            for x in pts:
                for xp in pts:
                    if xp <= x:
                        continue
                    M = jp.covariance_change(x, xp, [o1, o2])
                    worst_entry = max(worst_entry, max(abs(v) for r in M for v in r))
                    worst_fro2 = max(worst_fro2, _fro2(M))
    assert worst_entry == 4 * c  # the entry lemma, attained
    assert worst_fro2 == (4 * d * c) ** 2  # ||Delta A||_F <= 4 d c, attained by the witness
    rec = jp.psi_sensitivity(d, n)
    assert rec["frobenius"] == "16/9" and rec["jin_lemma_A4"] == "10/3"  # 4*2*2/9, 5*2/3


def test_closed_form_matches_definition():
    # Delta A = (n-1)/n^2 (a a^T - b b^T), a = x' - mu_o, b = x - mu_o (random rationals)
    g = np.random.default_rng(0)
    n, d = 5, 3
    rows = [[fmpq(int(v), 8) for v in g.integers(-8, 9, d)] for _ in range(n - 1)]
    x = [fmpq(int(v), 8) for v in g.integers(-8, 9, d)]
    xp = [fmpq(int(v), 8) for v in g.integers(-8, 9, d)]
    mu = [sum((r[i] for r in rows), fmpq(0)) / (n - 1) for i in range(d)]
    a = [xp[i] - mu[i] for i in range(d)]
    b = [x[i] - mu[i] for i in range(d)]
    M = jp.covariance_change(x, xp, rows)
    c = fmpq(n - 1, n * n)
    assert all(M[i][j] == c * (a[i] * a[j] - b[i] * b[j]) for i in range(d) for j in range(d))


def test_step_sensitivity_bounds_real_pairs():
    g = np.random.default_rng(1)
    n, d, k = 4, 3, 2
    Q, _ = np.linalg.qr(g.standard_normal((d, k)))
    sens = jp.step_sensitivity(Q, n)
    Xq = [[fmpq(*float(v).as_integer_ratio()) for v in row] for row in Q]
    for _ in range(40):
        rows = [[fmpq(int(v), 4) for v in g.integers(-4, 5, d)] for _ in range(n - 1)]
        x = [fmpq(int(v)) for v in g.choice([-1, 1], d)]
        xp = [fmpq(int(v)) for v in g.choice([-1, 1], d)]
        M = jp.covariance_change(x, xp, rows)
        P = [[sum((M[i][l] * Xq[l][j] for l in range(d)), fmpq(0)) for j in range(k)]
             for i in range(d)]
        assert _fro2(P) <= sens["l2_squared"]
        assert sum((abs(v) for r in P for v in r), fmpq(0)) <= sens["l1"]
    # X slightly off orthonormal: the exact Frobenius/Gershgorin terms grow with it
    assert jp.step_sensitivity(Q * 1.01, n)["l2_squared"] > sens["l2_squared"]


def test_exact_scaled_covariance():
    g = np.random.default_rng(2)
    X = np.round(g.uniform(-1, 1, (6, 3)) * 2**jp.DATA_BITS) / 2**jp.DATA_BITS
    M = jp._scaled_cov(jp._round_rows(X))
    rows = [[fmpq(*float(v).as_integer_ratio()) for v in r] for r in X]
    n = len(rows)
    mu = [sum((r[i] for r in rows), fmpq(0)) / n for i in range(3)]
    for i in range(3):
        for j in range(3):
            A = sum((r[i] * r[j] for r in rows), fmpq(0)) / n - mu[i] * mu[j]
            assert fmpq(int(M[i, j]), n * n * 4**jp.DATA_BITS) == A


def test_psi_recovers_top_eigenvector():
    g = np.random.default_rng(3)  # public synthetic data
    n, d = 20000, 5  # per-entry noise ~ 4 d/n sqrt(L/(2 rho)) ~ 0.013 << lambda_1 ~ 0.75
    v = np.array([1.0, 2.0, -1.0, 0.5, 0.0])
    v /= np.linalg.norm(v)
    X = np.clip(np.outer(g.uniform(-1, 1, n), v) * 1.5 + g.normal(0, 0.03, (n, d)), -1, 1)
    res = jp.private_subspace_iteration(X, 1, 6, 1, delta="1e-6", insecure_seed=4)
    assert abs(res.vectors[:, 0] @ v) > 0.99
    lam = np.linalg.eigvalsh(np.cov(X.T, bias=True))[-1]
    assert res.eigenvalues[0] == pytest.approx(lam, rel=0.1)
    ach = res.privacy["achieved_epsilon"].split("/")
    assert fmpq(int(ach[0]), int(ach[1])) <= 1 and len(res.privacy["steps"]) == 6
    lap = jp.private_subspace_iteration(X, 2, 3, "1/2", insecure_seed=5)
    assert lap.privacy["achieved_epsilon"] == "1/2"  # pure: L steps of eps/L each, exactly
    assert lap.vectors.shape == (d, 2)
    assert np.allclose(lap.vectors.T @ lap.vectors, np.eye(2), atol=1e-12)


def test_ellipsoid_points_inside():
    res = jp.PSIResult(np.eye(3)[:, :2], np.array([0.04, 0.01]), {})
    P = jp.ellipsoid_points(res, [0.1, -0.2, 0.0], 500, seed=1)
    z = (P - [0.1, -0.2, 0.0])[:, :2] / np.array([0.2, 0.1])
    assert np.all(np.linalg.norm(z, axis=1) <= 1 + 1e-12) and np.all(P[:, 2] == 0)


def test_paper_scales_hand_ratios():
    # Laplace, ||X||_inf = 1: L Delta_1 / sigma = L 4 d^{3/2} k (n-1)/n^2 n eps/(50 d^{3/2} k L)
    # = 0.08 (n-1)/n eps; worst case ||X||_inf = d^{-1/2}: Delta_1/m <= 4 d^2 k (n-1)/n^2
    # -> 0.08 sqrt(d) (n-1)/n eps
    n, d, k, L = 101, 16, 2, 5
    p = jp.paper_psi_scales(d, k, L, n, 1, "1e-6")
    assert float(p["laplace"]["epsilon_multiplier_1"]) == pytest.approx(0.08 * 100 / 101,
                                                                         rel=1e-6)
    assert float(p["laplace"]["epsilon_multiplier_worst"]) == pytest.approx(
        0.08 * 4 * 100 / 101, rel=1e-6)
    # Gaussian, m = 1: rho = L (4 d c)^2 / (2 sigma^2), sigma^2 = 100 d^2 k L ln(1/delta)/(n eps)^2
    # = 0.08 ((n-1)/n)^2 / (k ln(1/delta)); worst m: rho * d
    lg = np.log(1e6)
    rho = 0.08 * (100 / 101) ** 2 / (k * lg)
    assert float(p["gaussian"]["rho_multiplier_1"]) == pytest.approx(rho, rel=1e-6)
    ew = rho * d + 2 * np.sqrt(rho * d * lg)
    assert float(p["gaussian"]["epsilon_multiplier_worst"]) == pytest.approx(ew, rel=1e-6)
    assert p["gaussian"]["valid_multiplier_1"] and not p["gaussian"]["valid_multiplier_worst"]


def test_cli_privacy_jin(capsys):
    # full tensor t = 2, d = 1, n = 10: one noisy moment, per = 2/10 + g with g = 2^-40
    # (exact fixed-point sums: one rounding per neighbour); jin step 9: t^d/(n eps) = 1/5,
    # which achieves (2/10 + g) * 5 = 1 + 5 g  > 1 = eps
    assert main(["privacy", "jin", "--n", "10", "--d", "1", "--t", "2", "--epsilon", "1",
                 "--json"]) == 0
    rec = json.loads(capsys.readouterr().out)["moments"]
    g = fmpq(1, 2**40)
    assert rec["scale"] == str(fmpq(1, 5) + g)
    assert rec["paper"]["wang2013_algorithm1_scale"] == "1/5"
    assert rec["paper"]["wang2013_achieved_epsilon_upper"] == "1"  # 2(t^d-1)/n / (1/5)
    # basis subset d = 3, S = 1 (|R| = 4), n = 100, with PSI k = 1 (Gaussian)
    assert main(["privacy", "jin", "--n", "100", "--d", "3", "--basis-degree", "1",
                 "--epsilon", "1/2", "--psi-k", "1", "--psi-iters", "4", "--psi-epsilon",
                 "1/2", "--psi-delta", "1e-6", "--json"]) == 0
    obj = json.loads(capsys.readouterr().out)
    assert obj["moments"]["l1_sensitivity"] == str(3 * (fmpq(1, 50) + g))
    assert obj["psi"]["covariance_sensitivity"]["spectral"] == "297/2500"  # 4*3*99/100^2
    assert obj["psi"]["l2_sensitivity_per_step"] == "297/2500"
    eps_tot = obj["total"]["epsilon"].split("/")
    assert fmpq(int(eps_tot[0]), int(eps_tot[1])) <= 1 and obj["total"]["delta"] == "1/1000000"
    assert main(["privacy", "jin", "--n", "100", "--d", "3", "--epsilon", "1"]) == 2
    assert "--basis-degree" in capsys.readouterr().err
    out = main(["privacy", "jin", "--n", "100", "--d", "3", "--basis-degree", "1",
                "--epsilon", "1", "--psi-k", "1", "--psi-epsilon", "1"])
    assert out == 0 and "jin Thm 3.6 Laplace sigma" in capsys.readouterr().out
    # as for release jin-synthetic: --psi-epsilon is required, no --psi-delta means Laplace
    assert main(["privacy", "jin", "--n", "100", "--d", "3", "--basis-degree", "1",
                 "--epsilon", "1", "--psi-k", "1"]) == 2
    assert "--psi-epsilon" in capsys.readouterr().err
    assert main(["privacy", "jin", "--n", "100", "--d", "3", "--basis-degree", "1",
                 "--epsilon", "1", "--delta", "1e-6", "--psi-k", "1", "--psi-epsilon", "1",
                 "--json"]) == 0
    obj = json.loads(capsys.readouterr().out)
    assert "laplace" in json.dumps(obj["psi"]).lower()
    # the moments fall back to the pure scale here (|R| - 1 = 3 is small), so they add no
    # delta and the Laplace PSI none either: total delta 0
    assert obj["moments"]["used"] == "pure" and obj["total"]["delta"] == "0"


def test_tiny_epsilon_with_delta_is_a_clear_error():
    from dpverify.errors import InvalidParameterError
    from dpverify.mechanisms.jin_psi import psi_privacy

    with pytest.raises(InvalidParameterError, match="too small"):
        psi_privacy(3, 1, 4, 100, fmpq(1, 10**12), fmpq(1, 10**6))
