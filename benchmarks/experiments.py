"""Experiments reproducing the shape of the papers' figures/tables (prints markdown).

1. alda2017 Figure 1: private KDE (Gaussian kernel) of 5000 points from
   0.4 N(0.5, 0.02) + 0.6 N(0.75, 0.005) (variances), k = 20, h in {1,2,3,5}, several
   epsilon; utility = sup over 501 points of |released - non-private KDE|, averaged over
   ``R`` repeats; baseline = nearest-lattice-point noisy value (alda2017 §4.2).
2. jin Table 3 protocol on WDBC (scikit-learn's copy, 569 x 30): attributes scaled to
   [-1, 1]; a subset of ``d`` attributes (d = 2 fits this machine); queries = sums of J = 10
   Gaussian kernels with centres uniform in [-1,1]^d and weights alpha >= 0, sum 1;
   sigma in {2,4,6,8,10}; epsilon = 1; worst absolute and relative error over 10^4 queries,
   averaged over 20 rounds; for the Wang summary and the Jin synthetic database.

Noise is the exact discrete Laplace of the mechanisms (seeded: ``insecure_seed``, NOT
private, for reproducibility).  Run: ``python benchmarks/experiments.py [--quick]``;
writes docs/experiments_kde.png when matplotlib is installed.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np

from dpverify.constructions.jackson import jackson_multipliers
from dpverify.mechanisms.bernstein_mech import kde_query, release_bernstein
from dpverify.mechanisms.jin_synthetic import release_synthetic
from dpverify.mechanisms.wang_summary import release_summary
from dpverify.numbers import parse_fmpq_str

ROOT = Path(__file__).resolve().parents[1]


def kde_experiment(repeats: int) -> list[str]:
    g = np.random.default_rng(0)  # data, not noise
    n = 5000
    comp = g.random(n) < 0.4
    x = np.where(comp, g.normal(0.5, np.sqrt(0.02), n), g.normal(0.75, np.sqrt(0.005), n))
    X = np.clip(x, 0, 1).reshape(-1, 1)
    b = "1/20"
    q = kde_query(b, 1)
    ys = np.linspace(0, 1, 501)
    truth = q.func(X, ys.reshape(-1, 1))
    k = 20
    epss = ["1/10", "1/2", "1", "5", "10"]
    hs = [1, 2, 3, 5]
    rows = {}
    for eps in epss:
        for h in hs + ["baseline"]:
            errs = []
            for r in range(repeats):
                rel = release_bernstein(X, q, k, 1 if h == "baseline" else h, eps,
                                        check=False, insecure_seed=10_000 * r + 7)
                if h == "baseline":
                    vals = np.array([float(v) for v in rel.values])
                    est = vals[np.rint(ys * k).astype(int)]
                else:
                    est = rel.evaluate(ys)
                errs.append(np.abs(est - truth).max())
            rows[(eps, h)] = float(np.mean(errs))
    out = [f"KDE, n = {n}, b = {b}, k = {k}, {repeats} repeats; mean sup error over [0, 1]",
           "", "| epsilon | " + " | ".join(f"h = {h}" for h in hs) + " | baseline |",
           "|---|" + "---|" * (len(hs) + 1)]
    for eps in epss:
        out.append(f"| {eps} | " + " | ".join(f"{rows[(eps, h)]:.3f}" for h in hs)
                   + f" | {rows[(eps, 'baseline')]:.3f} |")
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        fig, ax = plt.subplots(figsize=(6, 4))
        ef = [float(parse_fmpq_str(e)) if "/" in e else float(e) for e in epss]
        for h in hs + ["baseline"]:
            ax.plot(ef, [rows[(e, h)] for e in epss], marker="o",
                    label=f"h = {h}" if h != "baseline" else "baseline (nearest lattice point)")
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("epsilon")
        ax.set_ylabel("mean sup error")
        ax.set_title("Private KDE, Bernstein mechanism (k = 20), cf. alda2017 Fig. 1")
        ax.legend()
        fig.tight_layout()
        fig.savefig(ROOT / "docs" / "experiments_kde.png", dpi=100)
        out.append("")
        out.append("![KDE experiment](experiments_kde.png)")
    except ImportError:
        out.append("(matplotlib not installed: no plot)")
    return out


def _cheb_coeffs_gauss(centres: np.ndarray, sigma: float, t: int) -> np.ndarray:
    """Chebyshev coefficients (t of them, f = sum c_m T_m) of exp(-(x-c)^2/(2 sigma^2))
    for every centre, by Chebyshev-Gauss quadrature on 64 nodes (float, heuristic)."""
    M = 64
    th = (np.arange(M) + 0.5) * np.pi / M
    nodes = np.cos(th)
    vals = np.exp(-((nodes[None, :] - centres[:, None]) ** 2) / (2 * sigma**2))
    basis = np.cos(np.outer(np.arange(t), th)) * (2.0 / M)
    basis[0] /= 2
    return vals @ basis.T  # (len(centres), t)


def _kernel_sums(Y: np.ndarray, cents: np.ndarray, alpha: np.ndarray, sigma: float) -> np.ndarray:
    """(1/|Y|) sum_y sum_j alpha_j exp(-|y - c_j|^2 / (2 sigma^2)) per query, in chunks."""
    out = np.empty(len(cents))
    for i in range(0, len(cents), 200):
        diff = Y[None, None, :, :] - cents[i : i + 200, :, None, :]
        k = np.exp(-(diff**2).sum(axis=3) / (2 * sigma**2))
        out[i : i + 200] = (alpha[i : i + 200, :, None] * k).sum(axis=1).mean(axis=1)
    return out


def wdbc_experiment(d: int, rounds: int, nq: int) -> list[str]:
    try:
        from sklearn.datasets import load_breast_cancer
    except ImportError:
        return ["WDBC: scikit-learn not installed (pip install scikit-learn); skipped"]
    raw = load_breast_cancer().data
    lo, hi = raw.min(axis=0), raw.max(axis=0)
    Xall = 2 * (raw - lo) / (hi - lo) - 1
    X = Xall[:, :d]  # first d attributes
    n = len(X)
    J = 10
    sigmas = [2, 4, 6, 8, 10]
    t, K, N = 6, 4, 12
    w = np.array([float(v) for v in jackson_multipliers(t - 1, K)])[:t]
    gq = np.random.default_rng(1)  # query generation (public)
    res = {}
    times = {}
    for sigma in sigmas:
        cents = gq.uniform(-1, 1, (nq, J, d))
        alpha = gq.random((nq, J))
        alpha /= alpha.sum(axis=1, keepdims=True)
        truth = _kernel_sums(X, cents, alpha, sigma)
        coef = _cheb_coeffs_gauss(cents.reshape(-1), sigma, t).reshape(nq, J, d, t)
        coef = coef * w[None, None, None, :]
        for mech in ("summary", "synthetic"):
            absw, relw = [], []
            t0 = time.perf_counter()
            for r in range(rounds):
                if mech == "summary":
                    S = release_summary(X, t, 1, insecure_seed=100 + r)
                    B = np.array([float(v) for v in S.moments]).reshape((t,) * d)
                    # answer = sum_j alpha_j sum_m prod_i c_{j,i,m_i} B_m
                    if d == 2:
                        ans = np.einsum("qjm,qjn,mn->qj", coef[:, :, 0], coef[:, :, 1], B)
                    else:
                        ans = np.einsum("qjm,m->qj", coef[:, :, 0], B)
                    est = (alpha * ans).sum(axis=1)
                else:
                    syn = release_synthetic(X, t, N, 1, insecure_seed=100 + r, sample_seed=r)
                    est = _kernel_sums(syn.rows, cents, alpha, sigma)
                err = np.abs(est - truth)
                absw.append(err.max())
                relw.append((err / np.abs(truth)).max())
            times[(mech, sigma)] = (time.perf_counter() - t0) / rounds
            res[(mech, sigma)] = (float(np.mean(absw)), float(np.mean(relw)))
    out = [f"WDBC (n = {n}, first d = {d} attributes scaled to [-1,1]), epsilon = 1, "
           f"t = {t}, K = {K} (summary), N = {N} (synthetic), J = {J}, {nq} queries, "
           f"{rounds} rounds; worst error averaged over rounds", "",
           "| mechanism | error | " + " | ".join(f"sigma = {s}" for s in sigmas)
           + " | s / round |", "|---|---|" + "---|" * (len(sigmas) + 1)]
    for mech in ("summary", "synthetic"):
        for j, name in enumerate(("Abs", "Rel")):
            tm = max(times[(mech, s)] for s in sigmas)
            out.append(f"| {mech} | {name} | "
                       + " | ".join(f"{res[(mech, s)][j]:.3f}" for s in sigmas)
                       + f" | {tm:.2f} |")
    out.append("| jin Table 3 (WDBC, d = 30) | Abs | 0.037 | 0.059 | 0.039 | 0.011 | 0.012 | 1.0 |")
    return out


def main() -> None:
    quick = "--quick" in sys.argv
    t0 = time.perf_counter()
    lines = kde_experiment(5 if quick else 100)
    lines += [""] + wdbc_experiment(2, 3 if quick else 20, 500 if quick else 10_000)
    lines += ["", f"total {time.perf_counter() - t0:.1f} s"]
    print("\n".join(lines))


if __name__ == "__main__":
    main()
