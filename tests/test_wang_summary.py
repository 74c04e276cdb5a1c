"""wang2013 smooth-query summary: moments, sensitivity, printed scales, accuracy, CLI.

Independent references: ``cos(m arccos x)`` evaluated directly (numpy / sympy), brute-force
maximisation over grids of row pairs, mpmath for the composition formula.
"""

from __future__ import annotations

import itertools
import json

import mpmath
import numpy as np
import pytest
import sympy
from flint import fmpq

from dpverify.cli import main
from dpverify.errors import InvalidParameterError
from dpverify.mechanisms import wang_summary as ws
from dpverify.numbers import fmpq_str, parse_fmpq_str


@pytest.mark.parametrize("d, chunk", [(1, 128), (2, 128), (3, 128), (4, 77), (3, None)])
def test_moments_match_direct_cosines(d, chunk):
    # independent formula cos(m arccos x) (wang2013 as printed); chunk 77 leaves a short
    # last chunk, d = 4 uses both Khatri-Rao buffers
    g = np.random.default_rng(d)
    X = g.uniform(-1, 1, (500, d))
    t = 5
    b = ws.chebyshev_moments(X, t, chunk=chunk)  # several chunks
    theta = np.arccos(X)
    for m in itertools.product(range(t), repeat=d):
        direct = np.mean(np.prod(np.cos(np.array(m)[None, :] * theta), axis=1))
        assert b[m] == pytest.approx(direct, abs=1e-12)


def test_sensitivity_brute_force_d1():
    # sup over row pairs of sum_{m=1}^{t-1} |T_m(x) - T_m(x')| on a 201-point grid (floats,
    # a search only) lies between the certified lower bound and the upper bound 2(t-1).
    for t in (2, 3, 4, 6):
        s = ws.moment_sensitivity(t, 1, 1)
        lo, up = parse_fmpq_str(s["lower"]), parse_fmpq_str(s["upper"])
        xs = np.linspace(-1, 1, 201)
        T = np.cos(np.outer(np.arccos(xs), np.arange(1, t)))
        brute = np.abs(T[:, None, :] - T[None, :, :]).sum(axis=2).max()
        assert float(lo) <= brute + 1e-12 and brute <= float(up) + 1e-12
        assert up == 2 * (t - 1)
        # the witness value is exact: recompute with sympy's Chebyshev polynomials
        c = sympy.Rational(s["witness"]["x_prime"][0])
        val = sum(abs(1 - sympy.chebyshevt(m, c)) for m in range(1, t))
        assert sympy.Rational(s["lower"]) == val


def test_wang_printed_scale_not_epsilon_dp():
    # t = 4, d = 1: the certified lower bound 4.315... > t = 4, so Lap(t^d/(n eps)) gives
    # privacy loss > eps for this neighbouring pair (witness x = 1, x' = 9/32 by hand:
    # |1-9/32| + |1-T2| + |1-T3| with T2 = 2c^2-1, T3 = 4c^3-3c).
    s = ws.moment_sensitivity(4, 1, 1)
    c = sympy.Rational(s["witness"]["x_prime"][0])
    hand = abs(1 - c) + abs(2 - 2 * c**2) + abs(1 - 4 * c**3 + 3 * c)
    assert sympy.Rational(s["lower"]) == hand > 4
    p = ws.paper_scales(4, 1, 100, 1)
    assert not p["wang2013_valid"]
    assert parse_fmpq_str(p["wang2013_achieved_epsilon_lower"]) > 1
    # d = 2, t = 32 (the benchmark size): still > t^d
    s2 = ws.moment_sensitivity(32, 2, 1)
    assert parse_fmpq_str(s2["lower"]) > 1024


def test_jin_delta_scale_fails_advanced_composition():
    mpmath.mp.dps = 30
    t, d, n, eps, delta = 4, 2, 1000, fmpq(1), fmpq(1, 10**6)
    p = ws.paper_scales(t, d, n, eps, delta)
    assert not p["jin_valid"]
    lam = parse_fmpq_str(p["jin_delta_scale"])
    eps0 = (mpmath.mpf(2) / n) / (mpmath.mpf(int(lam.p)) / int(lam.q))
    M = t**d - 1
    want = mpmath.sqrt(2 * M * mpmath.log(10**6)) * eps0 + M * eps0 * (mpmath.e**eps0 - 1)
    got = parse_fmpq_str(p["jin_achieved_epsilon_advanced_composition"])
    assert float(got) == pytest.approx(float(want), rel=1e-9)
    assert float(want) > 2 * np.sqrt(2) * np.sqrt(M / t**d)  # first term alone


def test_release_privacy_record():
    g = np.random.default_rng(0)
    X = g.uniform(-1, 1, (300, 2))
    S = ws.release_summary(X, 4, "1/2", insecure_seed=1)
    assert S.moments[0] == 1  # b_0 released exactly, no noise
    per = fmpq(2, 300) + S.grid  # exact sums: one rounding of each neighbour's exact mean
    assert parse_fmpq_str(S.privacy["scale"]) == 15 * per * 2
    assert S.privacy["achieved_epsilon"] == "1/2"
    assert S.privacy["certificate"]["epsilon"] == "1/2"
    for v in S.moments:
        assert (v / S.grid).q == 1
    Sd = ws.release_summary(X, 4, 1, delta="1e-6", insecure_seed=1)
    assert parse_fmpq_str(Sd.privacy["achieved_epsilon"]) <= 1
    back = ws.WangSummary.from_json(json.loads(json.dumps(S.to_json())))
    assert back.moments == S.moments


def test_default_grid_and_accuracy_bound():
    # the grid no longer has to cover a float error (the sums are exact): 2^-40 at every
    # size; the published accuracy bound of the moments does not grow with n
    assert ws.summary_grid(10**6, 32, 2) == ws.summary_grid(1, 2, 1) == fmpq(1, 2**40)
    assert ws.moment_error_bound(32, 2) == 4 * 2 * 32**2 * fmpq(1, 2**53) + fmpq(1, 2**36)
    X = np.random.default_rng(1).uniform(-1, 1, (50, 2))
    s = ws.release_summary(X, 4, 1, insecure_seed=0)
    assert s.info["float_error"]["per_moment_bound"] == fmpq_str(ws.moment_error_bound(4, 2))


def test_answer_is_inner_product_of_damped_coefficients():
    # With a huge epsilon the noise is ~1e-9, so the answer equals (1/n) sum_x p(x) where
    # p is the damped Chebyshev polynomial (evaluated independently by numpy.polynomial).
    from dpverify.constructions.jackson import jackson_approx

    g = np.random.default_rng(5)
    X = g.uniform(-1, 1, (400, 1))
    S = ws.release_summary(X, 6, 10**9, insecure_seed=2)
    res = S.answer("exp(x)", 2, certify_error=False)
    p = jackson_approx("exp(x)", 5, 2, 1).poly
    c = np.array([float(v) for v in p.coeffs])
    direct = np.polynomial.chebyshev.chebval(X[:, 0], c).mean()
    assert float(parse_fmpq_str(res["answer"])) == pytest.approx(direct, abs=1e-7)
    cal = S.answer_callable(np.exp, 2)
    assert cal == pytest.approx(direct, abs=1e-7)


def test_accuracy_repeated_runs_d1():
    g = np.random.default_rng(9)
    X = np.clip(g.normal(0.1, 0.4, (3000, 1)), -1, 1)
    queries = ["exp(-(x-0.2)^2)", "sin(2*x)", "1/(2+x)"]
    truths = [np.mean(np.exp(-(X[:, 0] - 0.2) ** 2)), np.mean(np.sin(2 * X[:, 0])),
              np.mean(1 / (2 + X[:, 0]))]
    beta = fmpq(1, 10)
    alphas = None
    runs, ok = 10, 0
    for seed in range(runs):
        S = ws.release_summary(X, 8, 1, insecure_seed=seed)
        if alphas is None:  # certified once (the scale is the same in every run)
            alphas = [float(parse_fmpq_str(S.answer(q, 3, beta=beta)["alpha"]))
                      for q in queries]
        errs = [abs(float(parse_fmpq_str(S.answer(q, 3, certify_error=False)["answer"])) - tr)
                for q, tr in zip(queries, truths, strict=True)]
        ok += all(e <= a for e, a in zip(errs, alphas, strict=True))
    assert ok >= runs * (1 - float(beta))


def test_bad_inputs():
    with pytest.raises(InvalidParameterError, match=r"\[-1, 1\]"):
        ws.release_summary(np.array([[2.0]]), 3, 1)
    with pytest.raises(InvalidParameterError, match="epsilon"):
        ws.release_summary(np.array([[0.5]]), 3, 0)
    with pytest.raises(InvalidParameterError, match="moments"):
        ws.release_summary(np.zeros((3, 4)), 30, 1)


def test_cli_wang(tmp_path, capsys):
    g = np.random.default_rng(0)
    data = tmp_path / "w.csv"
    np.savetxt(data, g.uniform(-1, 1, (500, 2)), delimiter=",")
    out = tmp_path / "s.json"
    assert main(["release", "wang-summary", "--data", str(data), "--t", "6", "--epsilon",
                 "1", "--insecure-seed", "4", "--out", str(out)]) == 0
    obj = json.loads(out.read_text())
    assert obj["mechanism"] == "wang-summary" and obj["privacy"]["achieved_epsilon"] == "1"
    capsys.readouterr()
    assert main(["answer", "--summary", str(out), "--query", "x*y", "--no-certify",
                 "--json"]) == 0
    res = json.loads(capsys.readouterr().out)
    assert res["approximation_certified"] is False and "answer" in res
    assert main(["answer", "--summary", str(out), "--query", "x+"]) == 2
    assert main(["answer", "--summary", str(out)]) == 2
    assert main(["release", "wang-summary", "--data", str(data), "--t", "x",
                 "--epsilon", "1"]) == 2
    err = capsys.readouterr().err
    assert "--query" in err and "--t must be an integer" in err


def test_recurrence_error_lemma_against_exact_rationals():
    """Step 1 of the proof in summary_grid: |T^_m(x) - T_m(x)| <= 3 m^2 u for float64 x in
    [-1, 1], T_m(x) computed exactly in fmpq from the same (dyadic) x."""
    from flint import fmpq as q

    from dpverify.mechanisms.wang_summary import chebyshev_table

    rng = np.random.default_rng(7)
    xs = np.concatenate([rng.uniform(-1, 1, 40), [-1.0, 1.0, 0.0, np.nextafter(1.0, 0.0)]])
    t = 300
    T = chebyshev_table(xs, t)
    u = q(1, 2**53)
    for i, x in enumerate(xs):
        xq = q(*float(x).as_integer_ratio())
        a, b = q(1), xq
        for m in range(t):
            exact = a if m == 0 else b
            if m >= 1:
                a, b = b, 2 * xq * b - a
            if m >= 2:
                err = abs(q(*float(T[i, m]).as_integer_ratio()) - exact)
                assert err <= 3 * m * m * u, (float(x), m)


def test_fine_grid_keeps_the_neighbour_bound():
    # the sums are exact, so any public grid keeps the per-moment sensitivity 2/n + g (the
    # reviewer's grid 2^-62 used to rest on a float error below g/2): the exact pre-noise
    # means of random neighbours, rounded to g, differ by at most that
    from dpverify.mechanisms.jin_synthetic import basis_privacy
    from dpverify.noise import round_to_grid

    g = fmpq(1, 2**62)
    rec, _ = ws.wang_privacy(3, 2, 1, 1, grid=g)
    assert parse_fmpq_str(rec["per_coordinate"]) == fmpq(2, 3) + g
    rec, _ = basis_privacy(3, 2, 1, 1, grid=g)
    assert parse_fmpq_str(rec["per_coordinate"]) == fmpq(2, 3) + g
    rng = np.random.default_rng(7)
    for _ in range(20):
        X = rng.uniform(-1, 1, (3, 2))
        Y = X.copy()
        Y[rng.integers(3)] = rng.choice([-1.0, 1.0, rng.uniform(-1, 1)], size=2)
        JX, JY = ws.exact_moment_sums(X, 4), ws.exact_moment_sums(Y, 4)
        for m in np.ndindex(JX.shape):
            a = round_to_grid(fmpq(int(JX[m]), 3 * 2**72), g)
            b = round_to_grid(fmpq(int(JY[m]), 3 * 2**72), g)
            assert abs(a - b) <= fmpq(2, 3) + g


def test_long_lower_bound_is_rounded_down_not_refused():
    # d = 1, t = 2000: the exact witness value has thousands of digits (T_m of p/64); it is
    # rounded down to 2^-128 (a lower bound stays a lower bound) instead of overflowing the
    # 4000-character limit of the exact-string reader (reviewer's finding)
    from dpverify.mechanisms.wang_summary import moment_sensitivity, wang_privacy
    from dpverify.numbers import parse_fmpq_str

    rec = moment_sensitivity(2000, 1, 1000)
    lo, up = parse_fmpq_str(rec["lower"], "lower"), parse_fmpq_str(rec["upper"], "upper")
    assert lo.q == 2**128 and fmpq(2000, 1000) < lo <= up  # lower > t^d/n as for small t
    wang_privacy(1000, 2000, 1, 1)  # no exception


def test_published_record_does_not_depend_on_the_data():
    # all fields but the noisy moments are equal for neighbouring databases
    X = np.random.default_rng(0).uniform(-1, 1, (50, 2))  # public synthetic data
    X2 = X.copy()
    X2[7] = [1.0, -1.0]
    recs = []
    for data in (X, X2):
        obj = ws.release_summary(data, 4, 1, insecure_seed=2).to_json()
        obj.pop("moments", None)
        recs.append(json.dumps(obj, sort_keys=True))
    assert recs[0] == recs[1]
