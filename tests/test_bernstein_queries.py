"""Bernstein mechanism: evaluation modes (mean / exact / ball / float) and the alda2017 §6
examples (naive Bayes, logistic regression, Priestley-Chao in arb).

Expected values are derived independently: exact rational arithmetic written out in the
test, brute force over every small database (count vectors), closed-form extreme
databases, and an mpmath Newton solution at 50 digits for logistic regression.
"""

from __future__ import annotations

import itertools
import json
import math

import mpmath
import numpy as np
import pytest
from flint import arb, ctx, fmpq

from dpverify.cli import main
from dpverify.errors import InvalidParameterError
from dpverify.mechanisms import bernstein_mech as bm
from dpverify.noise import round_to_grid
from dpverify.numbers import parse_fmpq_str

G = bm.DEFAULT_GRID


# ------------------------------------------------------------------- mean mode (clamp)


def _wrong_phi(data, ys):
    # deliberately broken float phi: 1e6 for rows with x > 0.99, NaN for rows x < 0.01,
    # otherwise x*y (declared range [0, 1])
    x = data[:, 0][None, :]
    v = ys[:, :1] * x
    v = np.where(x > 0.99, 1e6, v)
    return np.where(x < 0.01, np.nan, v)


def test_clamp_guarantee_with_wrong_float_phi():
    q = bm.mean_query("wrong", _wrong_phi, 0, 1, 1)
    n, k = 10, 6
    D = np.linspace(0.1, 0.9, n).reshape(-1, 1)
    pts = bm.lattice_points(k, 1)
    S = bm.mean_sensitivity(0, 1, n, G)
    assert S == fmpq(1, n)  # ends on the grid: (1 - 0)/n exactly
    per = parse_fmpq_str(bm.lattice_sensitivity(S, k, 1, G, mode="mean")["per_coordinate"])
    assert per == fmpq(1, n) + G
    c0 = bm._mean_centres(q, D, pts, G)
    for new in (1.0, 0.0, 0.5):  # the replaced row becomes 1e6, NaN, or ordinary
        D2 = D.copy()
        D2[3] = new
        c1 = bm._mean_centres(q, D2, pts, G)
        for a, b in zip(c0, c1, strict=True):
            assert (a / G).q == 1 and (b / G).q == 1  # on the grid
            assert abs(a - b) <= per
    # the bad values really were produced (the clamp, not luck, kept the bound):
    D2 = D.copy()
    D2[3] = 1.0
    raw = _wrong_phi(D2, pts).mean(axis=1)
    assert raw[-1] > 1e4
    # ordinary rows: centres equal round_g(exact mean of x*y) (dyadic data, exact floats)
    X = np.array([[0.125], [0.5], [0.75], [0.375]])
    c = bm._mean_centres(bm.linear_mean_query(1), X, bm.lattice_points(4, 1), G)
    mean = fmpq(0)
    for v in (fmpq(1, 8), fmpq(1, 2), fmpq(3, 4), fmpq(3, 8)):
        mean += v / 4
    for i in range(5):
        assert c[i] == round_to_grid(mean * fmpq(i, 4), G)


def test_release_with_wrong_phi_records_mean_mode():
    q = bm.mean_query("wrong", _wrong_phi, 0, 1, 1)
    D = np.linspace(0, 1, 30).reshape(-1, 1)  # includes rows hitting NaN and 1e6
    rel = bm.release_bernstein(D, q, 5, 1, 1, check=False, insecure_seed=0)
    p = rel.privacy
    # the only assumption of a user mean query: phi is a deterministic function (it is
    # called on one row at a time; tested, not proved)
    assert p["evaluation_mode"] == "mean" and len(p["assumptions"]) == 1
    assert "deterministic function" in p["assumptions"][0]
    assert p["guarantee"]["assumptions"] == p["assumptions"]
    assert bm.release_bernstein(D, bm.linear_mean_query(1), 5, 1, 1, check=False,
                                insecure_seed=0).privacy["assumptions"] == []  # built-in
    assert parse_fmpq_str(p["lattice_sensitivity"]["per_coordinate"]) == fmpq(1, 30) + G
    with pytest.raises(InvalidParameterError, match="declared range"):
        bm.check_sensitivity(q, 30, 5)  # accuracy check flags the wrong phi


def test_mean_sum_exact_without_int64_overflow():
    # range [0, 4], g = 2^-60: per-row integers up to 2^62, five of them overflow int64 if
    # summed naively.  Expected J computed with Python integers (3.999 * 2^60 is exact).
    g = fmpq(1, 2**60)
    q = bm.mean_query("const", lambda d, y: np.full((len(y), len(d)), 3.999), 0, 4, 1)
    D = np.zeros((5, 1))
    c = bm._mean_centres(q, D, bm.lattice_points(1, 1), g)
    j = round(3.999 * 2**60)  # the float product is exact; Python round = rint here
    J = 5 * j
    assert J > 2**63
    assert c[0] == g * ((2 * J + 5) // 10)
    with pytest.raises(InvalidParameterError, match="too fine"):
        bm._mean_centres(q, D, bm.lattice_points(1, 1), fmpq(1, 2**61))


def test_kde_declared_range_encloses_kernel_extremes():
    q = bm.kde_query("1/4", 2)
    with mpmath.workdps(40):
        k0 = 1 / (2 * mpmath.pi * mpmath.mpf(1) / 16)
        k1 = k0 * mpmath.exp(-2 / (2 * mpmath.mpf(1) / 16))
        lo = mpmath.mpf(int(q.lower.p)) / int(q.lower.q)
        hi = mpmath.mpf(int(q.upper.p)) / int(q.upper.q)
        assert lo <= k1 and hi >= k0
        assert k1 - lo < 1e-30 and hi - k0 < 1e-30


# -------------------------------------------------------------- exact / ball / float


def _sample1(n, g):
    return g.uniform(0, 1, (n, 1))


def test_float_callable_refused_without_declaration():
    fq = bm.FunctionQuery("f", lambda D, ys: np.zeros(len(ys)), lambda n: fmpq(1, n), 1,
                          _sample1)
    D = np.linspace(0, 1, 10).reshape(-1, 1)
    with pytest.raises(InvalidParameterError, match="mean_query.*float_error"):
        bm.release_bernstein(D, fq, 3, 1, 1, check=False)
    fq2 = bm.FunctionQuery("f", lambda D, ys: np.zeros(len(ys)), lambda n: fmpq(1, n), 1,
                           _sample1, float_error="1e-9")
    rel = bm.release_bernstein(D, fq2, 3, 1, 1, check=False, insecure_seed=1)
    p = rel.privacy
    assert p["evaluation_mode"] == "float"
    assert any("float evaluation error <= 1/1000000000" in a for a in p["assumptions"])
    assert any("declared S(F)" in a for a in p["assumptions"])
    want = fmpq(1, 10) + 2 * fmpq(1, 10**9) + G
    assert parse_fmpq_str(p["lattice_sensitivity"]["per_coordinate"]) == want
    with pytest.raises(InvalidParameterError, match="float_error"):
        bm.FunctionQuery("f", fq.func, fq.sensitivity, 1, _sample1, evaluation="float")


def test_ball_radius_budget_refusal_and_precision_escalation():
    D = np.linspace(0, 1, 10).reshape(-1, 1)
    wide = bm.FunctionQuery("wide", lambda D, ys: [arb(0.5, 1e-3) for _ in ys],
                            lambda n: fmpq(1, n), 1, _sample1, evaluation="ball")
    with pytest.raises(InvalidParameterError, match="e_max.*conditioning"):
        bm.release_bernstein(D, wide, 3, 1, 1, check=False, max_prec=256)
    rel = bm.release_bernstein(D, wide, 3, 1, 1, check=False, e_max="1/100", insecure_seed=0)
    want = fmpq(1, 10) + 2 * fmpq(1, 100) + G
    assert parse_fmpq_str(rel.privacy["lattice_sensitivity"]["per_coordinate"]) == want
    assert rel.privacy["evaluation_mode"] == "ball"
    # radius ~ 2^-prec: 1/3 at 64 bits is too wide for e_max = 2^-100, fine at 128 bits
    third = bm.FunctionQuery("third", lambda D, ys: [arb(1) / 3 for _ in ys],
                             lambda n: fmpq(1, n), 1, _sample1, evaluation="ball")
    c, prec = bm._certified_centres(third, D, 3, G, fmpq(1, 2**100), 1024)
    assert prec == 128
    assert all(v == round_to_grid(fmpq(1, 3), G) for v in c)
    exact_q = bm.FunctionQuery("x", third.func, third.sensitivity, 1, _sample1)
    with pytest.raises(InvalidParameterError, match="declares exact"):
        bm.release_bernstein(D, exact_q, 3, 1, 1, check=False)


def test_exact_function_returns_still_work():
    # F(D, y) = y * mean(D) with exact fmpq arithmetic on dyadic data: S = 1/n exactly.
    def f(D, ys):
        mean = sum((fmpq(float(v).as_integer_ratio()[0], float(v).as_integer_ratio()[1])
                    for v in np.asarray(D)[:, 0]), fmpq(0)) / len(D)
        return [mean * y[0] for y in ys]

    fq = bm.FunctionQuery("exact-mean", f, lambda n: fmpq(1, n), 1,
                          lambda n, g: g.integers(0, 2, (n, 1)).astype(float))
    D = np.array([[0.25], [0.5], [1.0], [0.0]])
    rel = bm.release_bernstein(D, fq, 2, 1, 10**12, insecure_seed=3)
    p = rel.privacy
    assert p["evaluation_mode"] == "exact"
    assert parse_fmpq_str(p["lattice_sensitivity"]["per_coordinate"]) == fmpq(1, 4) + G
    assert p["sensitivity_check"]["exact"]
    c, _ = bm._certified_centres(fq, D, 2, G, G / 2, 64)
    assert c == [fmpq(0), round_to_grid(fmpq(7, 32), G), round_to_grid(fmpq(7, 16), G)]


def test_priestley_chao_ball_matches_float_formula():
    pc = bm.priestley_chao_query("1/10", 1, 2)
    g = np.random.default_rng(1)
    X = pc.sample_rows(40, g)
    ys = [(fmpq(i, 7),) for i in range(8)]
    balls = pc.func(X, ys)
    order = np.argsort(X[:, 0], kind="stable")
    d, lab = X[order, 0], X[order, 1]
    for (y,), v in zip(ys, balls, strict=True):
        z = (float(y) - d[1:]) / 0.1
        fl = (np.diff(d) * lab[1:] * np.exp(-z * z / 2) / math.sqrt(2 * math.pi)).sum() / 0.1
        assert abs(float(v.mid()) - fl) < 1e-12 and v.rad() < 1e-12


# ---------------------------------------------------------------------- naive Bayes


def _nb_brute_force(dim, n, b, levels=(0.0, 0.5, 1.0)):
    """max |F(D,y) - F(D',y)| over all databases of n rows with features in levels^dim,
    both classes, all one-row replacements, y in levels^dim (float64)."""
    feats = list(itertools.product(levels, repeat=dim))
    types = [(f, c) for c in (1, -1) for f in feats]
    T = len(types)
    k0 = 1 / (math.sqrt(2 * math.pi) * b)

    def kern(u):
        return k0 * math.exp(-u * u / (2 * b * b))

    dbs = [tuple(np.bincount(c, minlength=T))
           for c in itertools.combinations_with_replacement(range(T), n)]
    C = np.array(dbs, dtype=float)
    index = {db: i for i, db in enumerate(dbs)}
    ys = feats
    pos = np.array([c == 1 for _, c in types])
    F = np.zeros((len(dbs), len(ys)))
    for yi, y in enumerate(ys):
        for sign, mask in ((1, pos), (-1, ~pos)):
            nc = C[:, mask].sum(axis=1)
            prod = np.ones(len(dbs))
            for j in range(dim):
                kv = np.array([kern(y[j] - f[j]) for f, _ in types])[mask]
                prod *= (C[:, mask] @ kv) / np.where(nc > 0, nc, 1)
            F[:, yi] += sign * nc / n * prod
    worst = 0.0
    for i, db in enumerate(dbs):
        for s in range(T):
            if db[s] == 0:
                continue
            for t in range(T):
                if t == s:
                    continue
                db2 = list(db)
                db2[s] -= 1
                db2[t] += 1
                worst = max(worst, float(np.abs(F[i] - F[index[tuple(db2)]]).max()))
    return worst, k0, kern(1.0)


@pytest.mark.parametrize("dim,n,b", [(1, 5, 0.1), (1, 4, 1.0), (2, 3, 0.1), (2, 3, 1.0)])
def test_naive_bayes_sensitivity_brute_force(dim, n, b):
    worst, k0, k1 = _nb_brute_force(dim, n, b)
    S = float(bm.naive_bayes_sensitivity(n, dim, fmpq(1, 10) if b == 0.1 else 1))
    assert worst <= S * (1 + 1e-12)
    # here l (K0 - K1) <= 2 K0, so the derived supremum 2 K0^l / n is attained exactly
    assert dim * (k0 - k1) <= 2 * k0
    assert worst == pytest.approx(2 * k0**dim / n, rel=1e-12)
    # the brief's candidate 2 (K0^l + l K0^(l-1)(K0 - K1))/n is valid but looser
    cand = 2 * (k0**dim + dim * k0 ** (dim - 1) * (k0 - k1)) / n
    assert cand >= S


def test_naive_bayes_sensitivity_second_regime_approached():
    # l = 3, b = 1/10: 3 (K0 - K1) > 2 K0, derived S = 2 K0^2 (3 delta - K0)/n ~ 4 K0^3/n.
    # Extreme databases (proof, case 1 lower end): class + has N-1 rows at 0 and one at
    # (1,1,1), class - has N rows at 0; the (1,1,1) row switches class; y = 0.
    dim, N = 3, 400
    q = bm.naive_bayes_query("1/10", dim)
    rows = [[0, 0, 0, 1]] * (N - 1) + [[1, 1, 1, 1]] + [[0, 0, 0, -1]] * N
    D = np.array(rows, dtype=float)
    D2 = D.copy()
    D2[N - 1, 3] = -1
    y = [(fmpq(0), fmpq(0), fmpq(0))]
    change = abs(q.func(D, y)[0] - q.func(D2, y)[0])
    S = q.sensitivity(2 * N)
    assert change < arb(S)  # never above the bound
    assert change > arb(S) * arb("0.99")  # and within 1 % of it (supremum approached)
    with ctx.workprec(128):  # independent: the same change from the closed form
        k0 = 1 / ((2 * arb.pi()).sqrt() * arb(fmpq(1, 10)))
        k1 = k0 * arb(-50).exp()
        n = 2 * N
        tp = (N * ((N - 1) * k0 + k1) ** 3 / N**3 - (N - 1) * k0**3) / n
        tm = ((N + 1) * ((N * k0 + k1) / (N + 1)) ** 3 - N * k0**3) / n
        assert abs(abs(tp + tm) - change) < arb("1e-12")


def test_naive_bayes_ball_vs_float_and_empty_class():
    q = bm.naive_bayes_query("1/5", 2)
    g = np.random.default_rng(3)
    X = q.sample_rows(50, g)
    pts = bm.exact_lattice_points(4, 2)
    balls = q.func(X, pts)
    fl = bm.naive_bayes_float(X, np.array([[float(a), float(b)] for a, b in pts]), 0.2)
    k0sq = (1 / (math.sqrt(2 * math.pi) * 0.2)) ** 2
    for v, f in zip(balls, fl, strict=True):
        assert abs(float(v.mid()) - f) <= 1e-12 * k0sq and v.rad() < 1e-12
    # empty negative class: F = T_+ = prod_j mean_i K(y_j - d_ij) (n_+ = n)
    Xp = X.copy()
    Xp[:, 2] = 1
    v = q.func(Xp, [(fmpq(1, 2), fmpq(1, 2))])[0]
    k = np.exp(-((0.5 - Xp[:, :2]) ** 2) / (2 * 0.04)) / (math.sqrt(2 * math.pi) * 0.2)
    assert float(v.mid()) == pytest.approx(float(np.prod(k.mean(axis=0))), rel=1e-12)
    with pytest.raises(InvalidParameterError, match="labels"):
        q.validate(np.column_stack([X[:, :2], np.full(50, 2.0)]))


# ----------------------------------------------------------------- logistic regression


def _logistic_data(n, dim, seed):
    g = np.random.default_rng(seed)  # public synthetic data
    d = g.normal(size=(n, dim))
    d /= np.maximum(1.0, np.linalg.norm(d, axis=1))[:, None] * 1.01
    lab = np.where(d[:, 0] + 0.4 * g.normal(size=n) > 0, 1.0, -1.0)
    return np.column_stack([d, lab])


def _mp_newton(X, lam, dps=50):
    with mpmath.workdps(dps):
        d = [[mpmath.mpf(float(v)) for v in row[:-1]] for row in X]
        lab = [mpmath.mpf(float(r[-1])) for r in X]
        n, dim = len(d), len(d[0])
        lm = mpmath.mpf(int(lam.p)) / int(lam.q)
        w = mpmath.matrix([0] * dim)
        for _ in range(60):
            g = mpmath.matrix([0] * dim)
            H = mpmath.zeros(dim, dim)
            for i in range(n):
                z = lab[i] * sum(d[i][j] * w[j] for j in range(dim))
                s = 1 / (1 + mpmath.exp(z))
                for a in range(dim):
                    g[a] -= lab[i] * s * d[i][a] / n
                    for b in range(dim):
                        H[a, b] += s * (1 - s) * lab[i] ** 2 * d[i][a] * d[i][b] / n
            for a in range(dim):
                g[a] += lm * w[a]
                H[a, a] += lm
            w = w - mpmath.lu_solve(H, g)
        return [w[j] for j in range(dim)]


def test_logistic_certified_minimiser_bound_holds():
    X = _logistic_data(60, 2, 0)
    lam = fmpq(1, 20)
    w_mp = _mp_newton(X, lam)
    with ctx.workprec(64):
        cert = bm.certify_logistic(X, lam)
    with mpmath.workdps(50):
        wf = [mpmath.mpf(float(v.mid())) for v in cert["w"]]
        dist = mpmath.sqrt(sum((a - b) ** 2 for a, b in zip(wf, w_mp, strict=True)))
        rad = mpmath.mpf(int(cert["radius"].p)) / int(cert["radius"].q)
        assert dist <= rad and rad < 1e-12
    # at 256 bits the function refines w in arb: the enclosure becomes tiny and still holds
    q = bm.logistic_query(lam, 2)
    pts = [(fmpq(1, 3), fmpq(1, 2)), (fmpq(1), fmpq(1))]
    with ctx.workprec(256):
        vals = q.func(X, pts)
    with mpmath.workdps(50):
        for (a, b), v in zip(pts, vals, strict=True):
            t = (w_mp[0] * mpmath.mpf(int(a.p)) / int(a.q)
                 + w_mp[1] * mpmath.mpf(int(b.p)) / int(b.q))
            truth = 1 / (1 + mpmath.exp(-t))
            assert v.rad() < 1e-40
            lo = mpmath.mpf(str(v.lower().str(60, radius=False)))
            hi = mpmath.mpf(str(v.upper().str(60, radius=False)))
            assert lo - mpmath.mpf(10) ** -55 <= truth <= hi + mpmath.mpf(10) ** -55


def test_logistic_sensitivity_on_neighbours():
    # S(F) <= sqrt(l)/(2 n lambda); neighbours: one row replaced (label flips included).
    q = bm.logistic_query("1/4", 2)
    n = 20
    S = q.sensitivity(n)
    assert S == bm.logistic_sensitivity(n, 2, "1/4")
    assert float(S) == pytest.approx(math.sqrt(2) / (2 * n * 0.25), rel=1e-15)
    rec = bm.check_sensitivity(q, n, 3, trials=8, seed=2)
    assert rec["rows"] == n and parse_fmpq_str(rec["max_observed"]) <= S
    # adversarial pair: a confidently classified row replaced by its mirror image
    X = _logistic_data(n, 2, 5)
    X2 = X.copy()
    X2[0] = [-X[0, 0], -X[0, 1], X[0, 2]]
    pts = bm.exact_lattice_points(3, 2)
    a, b = q.func(X, pts), q.func(X2, pts)
    worst = max(abs(x - y).upper() for x, y in zip(a, b, strict=True))
    assert worst < arb(S)
    assert worst > arb(S) / 20  # same order of magnitude (ratio recorded in the ledger)


def test_logistic_domain_checks():
    q = bm.logistic_query("1/2", 2)
    X = _logistic_data(10, 2, 0)
    bad = X.copy()
    bad[0, :2] = [0.8, 0.6000001]  # norm > 1
    with pytest.raises(InvalidParameterError, match=r"\|\|d\|\|_2 <= 1"):
        q.validate(bad)
    ok = X.copy()
    ok[0, :2] = [0.6, 0.8]  # 0.6^2 + 0.8^2 as doubles: decided exactly
    exact_sq = sum(fmpq(*float(v).as_integer_ratio()) ** 2 for v in (0.6, 0.8))
    if exact_sq <= 1:
        q.validate(ok)
    else:
        with pytest.raises(InvalidParameterError):
            q.validate(ok)
    with pytest.raises(InvalidParameterError, match="lam"):
        bm.logistic_query(0, 2)


def test_logistic_accuracy_repeated_runs():
    # observed sup error <= certified alpha(beta) in >= (1 - beta) of seeded runs
    X = _logistic_data(2000, 1, 7)
    q = bm.logistic_query("1/2", 1)
    w = bm.fit_logistic(X, "1/2")
    ys = np.linspace(0, 1, 201)
    truth = 1 / (1 + np.exp(-w[0] * ys))
    beta = fmpq(1, 10)
    runs, ok, alpha = 20, 0, None
    for seed in range(runs):
        rel = bm.release_bernstein(X, q, 8, 1, 1, check=seed == 0, insecure_seed=seed)
        if alpha is None:
            acc = bm.bernstein_accuracy(rel, beta, query=q, n=len(X))
            assert acc["approximation_certified"]
            # hand: C2 = ln 2 / (3 sqrt 3 lambda), l C2 / (8k) with k = 8, lambda = 1/2
            c2 = math.log(2) / (3 * math.sqrt(3) * 0.5)
            assert float(parse_fmpq_str(acc["approximation_term"])) == pytest.approx(c2 / 64)
            alpha = float(parse_fmpq_str(acc["alpha"]))
        ok += np.abs(rel.evaluate(ys) - truth).max() <= alpha
    assert ok >= runs * (1 - float(beta))


# ------------------------------------------------------------------------------- CLI


def test_cli_naive_bayes_and_logistic_end_to_end(tmp_path, capsys):
    g = np.random.default_rng(0)
    n = 120
    x = g.uniform(0, 1, (n, 2))
    lab01 = (x[:, 0] + x[:, 1] > 1).astype(int)
    nb_csv = tmp_path / "nb.csv"
    np.savetxt(nb_csv, np.column_stack([x, lab01]), delimiter=",", header="a,b,y",
               comments="", fmt=["%.6f", "%.6f", "%d"])
    out = tmp_path / "nb.json"
    rc = main(["release", "bernstein", "--data", str(nb_csv), "--function", "naive-bayes",
               "--bandwidth", "1/5", "--label-encoding", "01", "--k", "4", "--h", "2",
               "--epsilon", "1", "--insecure-seed", "1", "--out", str(out)])
    assert rc == 0
    obj = json.loads(out.read_text())
    assert obj["privacy"]["evaluation_mode"] == "ball" and obj["function"] == "naive-bayes"
    assert parse_fmpq_str(obj["privacy"]["function_sensitivity"]) == \
        bm.naive_bayes_sensitivity(n, 2, "1/5")
    capsys.readouterr()
    assert main(["answer", "--summary", str(out), "--at", "1/2,1/4", "--json"]) == 0
    ans = json.loads(capsys.readouterr().out)
    rel = bm.BernsteinRelease.from_json(obj)
    assert parse_fmpq_str(ans["answers"][0]["value"]) == rel.evaluate_exact(
        [fmpq(1, 2), fmpq(1, 4)])

    d = x / np.sqrt(2.0001)
    pm = 2 * lab01 - 1
    lg_csv = tmp_path / "lg.csv"
    np.savetxt(lg_csv, np.column_stack([pm, d]), delimiter=",", fmt=["%d", "%.6f", "%.6f"])
    out2 = tmp_path / "lg.json"
    rc = main(["release", "bernstein", "--data", str(lg_csv), "--function", "logistic",
               "--lambda", "1/10", "--label-column", "0", "--k", "4", "--epsilon", "1",
               "--insecure-seed", "2", "--out", str(out2)])
    assert rc == 0
    obj2 = json.loads(out2.read_text())
    assert obj2["function"] == "logistic" and obj2["privacy"]["assumptions"] == []
    assert parse_fmpq_str(obj2["privacy"]["function_sensitivity"]) == \
        bm.logistic_sensitivity(n, 2, "1/10")
    capsys.readouterr()
    base = ["release", "bernstein", "--data", str(lg_csv), "--k", "4", "--epsilon", "1"]
    assert main(base + ["--function", "logistic", "--label-column", "0"]) == 2  # no lambda
    assert main(base + ["--function", "logistic", "--lambda", "1/10"]) == 2  # labels 0.x
    assert main(base + ["--function", "logistic", "--lambda", "0", "--label-column", "0"]) == 2
    assert main(base + ["--function", "naive-bayes", "--bandwidth", "1/5",
                        "--label-column", "0", "--label-encoding", "xx"]) == 2
    big = tmp_path / "big.csv"
    np.savetxt(big, np.column_stack([pm, x]), delimiter=",", fmt=["%d", "%.6f", "%.6f"])
    assert main(["release", "bernstein", "--data", str(big), "--function", "logistic",
                 "--lambda", "1", "--label-column", "0", "--k", "2", "--epsilon", "1"]) == 2
    err = capsys.readouterr().err
    assert "--lambda is required" in err and "--label-encoding" in err
    assert "rescale the features" in err


def test_cli_privacy_bernstein_modes(capsys):
    base = ["privacy", "bernstein", "--k", "4", "--epsilon", "1", "--json"]
    assert main(base + ["--mode", "mean", "--lower", "0", "--upper", "1", "--n", "100"]) == 0
    rec = json.loads(capsys.readouterr().out)
    assert parse_fmpq_str(rec["per_coordinate"]) == fmpq(1, 100) + G
    assert rec["evaluation_mode"] == "mean" and rec["assumptions"] == []
    assert main(base + ["--mode", "ball", "--sensitivity", "1/100", "--e-max", "1/1000"]) == 0
    rec = json.loads(capsys.readouterr().out)
    assert parse_fmpq_str(rec["per_coordinate"]) == fmpq(1, 100) + fmpq(2, 1000) + G
    assert parse_fmpq_str(rec["scale"]) == 5 * (fmpq(1, 100) + fmpq(2, 1000) + G)
    assert main(base + ["--mode", "float", "--sensitivity", "1/100"]) == 2
    assert main(base + ["--mode", "mean", "--lower", "0", "--upper", "1"]) == 2
    assert main(base + ["--mode", "nope", "--sensitivity", "1"]) == 2
    err = capsys.readouterr().err
    assert "--float-error is required" in err and "--n is required" in err


def test_phi_mixing_rows_is_refused():
    # reviewer's reproducer: every row gets the chunk maximum, so one row moves every column
    # and the clamp no longer bounds the sensitivity; the permutation test refuses it
    def chunk_max(d, y):
        return np.tile(np.max(d[:, 0]) * y[:, :1], (1, len(d)))

    q = bm.mean_query("mixing", chunk_max, 0, 1, 1)
    D = np.linspace(0, 1, 10).reshape(-1, 1)
    with pytest.raises(InvalidParameterError, match="row-wise"):
        bm.release_bernstein(D, q, 4, 1, 1, check=False, insecure_seed=0)


def test_priestley_chao_gap_check_is_exact():
    # reviewer's tie: exact gaps 1/4 - 2^-1074 and 1/4 round to the same float; with
    # c/n = 1/4 - 2^-1074 the second gap violates the domain and must be refused
    d = np.array([5e-324, 0.25, 0.5])
    c = 3 * (fmpq(1, 4) - fmpq(1, 2**1074))
    q = bm.priestley_chao_query(1, 1, c)
    with pytest.raises(InvalidParameterError, match="consecutive gap"):
        q.validate(np.column_stack([d, np.ones(3)]))
    bm.priestley_chao_query(1, 1, 3 * fmpq(1, 4)).validate(np.column_stack([d, np.ones(3)]))


def test_published_record_does_not_depend_on_the_data():
    # everything except the noisy values/coefficients must be equal for neighbouring
    # databases; the reviewer's pair made the working precision (64 vs 128 bits) differ
    from dpverify.mechanisms.bernstein_mech import release_bernstein
    from dpverify.mechanisms.bernstein_queries import logistic_query

    rest = [[0.6158815794729875, -1.0], [0.030651122084284, -1.0],
            [-0.4283972398237168, -1.0], [-0.8921385952366871, -1.0],
            [-0.23326223842896354, -1.0]]
    D = np.array([[0.6100058474907604, 1.0]] + rest)
    D2 = np.array([[0.9983522301301428, -1.0]] + rest)
    q = logistic_query(fmpq(1, 10**6), 1)
    recs = []
    for X in (D, D2):
        rel = release_bernstein(X, q, 2, 1, 1, check=False, insecure_seed=3)
        obj = rel.to_json()
        for key in ("values", "coefficients", "insecure_seed"):
            obj.pop(key, None)
        recs.append(json.dumps(obj, sort_keys=True, default=str))
    assert recs[0] == recs[1]
