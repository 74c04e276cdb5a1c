"""Experiments reproducing the shape of the papers' figures/tables (prints markdown).

1. alda2017 Figure 1: private KDE (Gaussian kernel) of 5000 points from
   0.4 N(0.5, 0.02) + 0.6 N(0.75, 0.005) (variances), k = 20, h in {1,2,3,5}, several
   epsilon; utility = sup over 501 points of |released - non-private KDE|, averaged over
   ``R`` repeats; baseline = nearest-lattice-point noisy value (alda2017 §4.2).
2. jin Table 3 protocol on WDBC (scikit-learn's copy, 569 x 30): attributes scaled to
   [-1, 1]; the first d in {2, 5, 30} attributes; queries = sums of J = 10 Gaussian kernels
   with centres uniform in [-1,1]^d and weights alpha >= 0, sum 1; sigma in {2,4,6,8,10};
   total epsilon = 1; worst absolute and relative error over 10^4 queries, averaged over 20
   rounds; the Wang summary (full tensor for d = 2, basis subset otherwise) and the Jin
   synthetic database (full grid for d = 2; basis subset with a random grid subset or the
   private-PCA ellipsoid of jin Algorithm 2 otherwise, plus a labelled NON-private
   exact-PCA ellipsoid reference).  One release per round answers all five sigmas.
3. jin Table 4 protocol on WDBC: as 2. for d = 30, but total (epsilon, delta) = (1, 1e-10)
   (jin §4); the library picks the smaller certified noise scale (pure Laplace or advanced
   composition), and the table reports which route each row used and its scale.

Noise is the exact discrete Laplace of the mechanisms (seeded: ``insecure_seed``, NOT
private, for reproducibility).  Run: ``python benchmarks/experiments.py [--quick]
[--table4]``; the full run (1. - 3.) writes docs/experiments_kde.png when matplotlib is
installed (``--quick`` is a smoke run and writes no plot; ``--table4`` runs only 3.;
``--replot-kde`` only redraws the figure from the table in docs/experiments.md).
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


def kde_experiment(repeats: int, plot: bool = True) -> list[str]:
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
    if not plot:
        return out + ["", "(--quick: plot not written)"]
    try:
        kde_figure(rows, epss, hs, ROOT / "docs" / "experiments_kde.png")
        out.append("")
        out.append("![KDE experiment](experiments_kde.png)")
    except ImportError:
        out.append("(matplotlib not installed: no plot)")
    return out


def kde_figure(rows: dict, epss: list[str], hs: list, path: Path) -> None:
    """Draw the KDE table (mean sup error against epsilon, one curve per h and the
    baseline) to ``path``: the legend sits outside the axes (right), so it never hides a
    curve, and the figure is sized so the two-line title is not cut."""
    from matplotlib.figure import Figure  # optional dependency (experiments extra)
    from matplotlib.ticker import FuncFormatter, NullFormatter

    fig = Figure(figsize=(8, 4.4), layout="constrained")
    ax = fig.add_subplot(1, 1, 1)
    ef = [float(parse_fmpq_str(e)) if "/" in e else float(e) for e in epss]
    for h in hs + ["baseline"]:
        ax.plot(ef, [rows[(e, h)] for e in epss], marker="o",
                ls="--" if h == "baseline" else "-",
                label=f"h = {h}" if h != "baseline" else "baseline\n(nearest lattice point)")
    ax.set_xscale("log")
    ax.set_yscale("log")
    plain = FuncFormatter(lambda v, _pos: f"{v:g}")  # 0.5, 1 rather than 5 x 10^-1
    ax.yaxis.set_major_formatter(plain)
    ax.yaxis.set_minor_formatter(plain)
    ax.set_xticks(ef, epss)  # ticks at the measured epsilons, labelled exactly
    ax.xaxis.set_minor_formatter(NullFormatter())
    ax.set_xlabel("epsilon")
    ax.set_ylabel("mean sup error over [0, 1]")
    ax.set_title("Private KDE with the Bernstein mechanism (k = 20)\n"
                 "cf. alda2017 Figure 1", fontsize=11)
    ax.grid(alpha=0.3, which="both")
    ax.legend(loc="upper left", bbox_to_anchor=(1.02, 1.0), frameon=False)
    fig.savefig(path, dpi=100, metadata={"Software": None})


def replot_kde(md: Path = ROOT / "docs" / "experiments.md") -> None:
    """Redraw docs/experiments_kde.png from the KDE table published in docs/experiments.md
    (the numbers of the last full run; no experiment is re-run)."""
    lines = md.read_text(encoding="utf-8").splitlines()
    head = next(i for i, ln in enumerate(lines) if ln.startswith("| epsilon | h = "))
    cols = [c.strip() for c in lines[head].strip("|").split("|")][1:]
    hs = [int(c.split("=")[1]) for c in cols if c.startswith("h = ")]
    rows, epss = {}, []
    for ln in lines[head + 2:]:
        if not ln.startswith("| "):
            break
        cells = [c.strip() for c in ln.strip("|").split("|")]
        epss.append(cells[0])
        for h, v in zip(hs + ["baseline"], cells[1:]):
            rows[(cells[0], h)] = float(v)
    kde_figure(rows, epss, hs, ROOT / "docs" / "experiments_kde.png")


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


def _kernel_sums(Y: np.ndarray, cents: np.ndarray, alpha: np.ndarray, sigma: float,
                 w: np.ndarray | None = None) -> np.ndarray:
    """sum_y w_y sum_j alpha_j exp(-|y - c_j|^2 / (2 sigma^2)) per query (w = 1/|Y| by
    default), via |y - c|^2 = |y|^2 + |c|^2 - 2 y.c (one GEMM per chunk of queries)."""
    m, d = Y.shape
    w = np.full(m, 1.0 / m) if w is None else w
    nq, J = alpha.shape
    ys = (Y * Y).sum(axis=1)
    out = np.empty(nq)
    step = max(1, 4_000_000 // (J * m))
    for i in range(0, nq, step):
        c = cents[i : i + step].reshape(-1, d)
        sq = (c * c).sum(axis=1)[:, None] + ys[None, :] - 2.0 * (c @ Y.T)
        k = np.exp(-np.maximum(sq, 0.0) / (2 * sigma**2)) @ w
        out[i : i + step] = (alpha[i : i + step] * k.reshape(-1, J)).sum(axis=1)
    return out


def _basis_answers(B: np.ndarray, b: np.ndarray, cents: np.ndarray, alpha: np.ndarray,
                   sigma: float) -> np.ndarray:
    """Summary answers sum_r c_r b~_r for the basis subset B (undamped truncated Chebyshev
    coefficients: the Gaussian kernel factorises, c_r = prod_i c_{j,i,r_i})."""
    from dpverify.mechanisms.jin_synthetic import _factor_lists

    nq, J, d = cents.shape
    s = int(B.max())
    axes, degs = _factor_lists(B)
    out = np.empty(nq)
    step = max(1, 2_000_000 // (J * len(B)))
    for i in range(0, nq, step):
        cf = _cheb_coeffs_gauss(cents[i : i + step].reshape(-1), sigma, s + 1)
        cf = cf.reshape(-1, J, d, s + 1)
        base = np.prod(cf[..., 0], axis=2)  # (q, J)
        ratio = cf / cf[..., :1]  # c_0 >= exp(-2/sigma^2) > 0 for |x - c| <= 2
        val = np.broadcast_to(base[..., None], base.shape + (len(B),)).copy()
        for f in range(axes.shape[1]):
            val *= ratio[:, :, axes[:, f], degs[:, f]]
        out[i : i + step] = (alpha[i : i + step] * (val @ b)).sum(axis=1)
    return out


def _wdbc() -> np.ndarray | None:
    try:
        from sklearn.datasets import load_breast_cancer
    except ImportError:
        return None
    raw = load_breast_cancer().data
    lo, hi = raw.min(axis=0), raw.max(axis=0)
    return 2 * (raw - lo) / (hi - lo) - 1


SIGMAS = [2, 4, 6, 8, 10]
J = 10
#: jin Table 3, WDBC row (epsilon-DP, C = 10^4, d = 30, average of 20 rounds).
JIN_TABLE3_WDBC = {"Abs": [0.037, 0.059, 0.039, 0.011, 0.012], "Rel": [0.329, 0.110, 0.053,
                                                                       0.013, 0.014]}
#: jin Table 4, WDBC row ((epsilon, delta)-DP, C = 10^4, d = 30, average of 20 rounds).
JIN_TABLE4_WDBC = {"Abs": [0.045, 0.032, 0.019, 0.018, 0.011], "Rel": [0.388, 0.061, 0.026,
                                                                       0.021, 0.013]}
#: jin §4: "We set delta = 10^-10 in experiments with (epsilon, delta)-differential privacy".
DELTA_T4 = "1e-10"


def _configs(quick: bool) -> list[dict]:
    C = 2000 if quick else 10_000
    psi = {"psi_k": 3, "psi_iters": 3, "psi_epsilon": "1/5", "psi_delta": "1e-10"}
    cfg = [
        {"d": 2, "name": "summary, full t = 6 (K = 4)", "kind": "summary_full"},
        {"d": 2, "name": "synthetic, full grid N = 12, t = 6", "kind": "synthetic_full"},
        {"d": 5, "name": "summary, basis deg <= 3", "kind": "summary_basis", "deg": 3},
        {"d": 5, "name": f"synthetic, basis deg <= 3, random grid C = {C}",
         "kind": "synthetic_basis", "deg": 3, "kw": {"grid_subset": C}},
        {"d": 5, "name": f"synthetic, basis deg <= 3, PSI ellipsoid C = {C}",
         "kind": "synthetic_basis", "deg": 3, "eps": "4/5", "kw": dict(psi, candidates=C)},
        {"d": 5, "name": f"(not private) synthetic, exact-PCA ellipsoid C = {C}",
         "kind": "synthetic_basis", "deg": 3, "eps": "4/5", "exact_pca": 3, "C": C},
        {"d": 30, "name": "summary, basis deg <= 1", "kind": "summary_basis", "deg": 1},
        {"d": 30, "name": "summary, basis deg <= 2", "kind": "summary_basis", "deg": 2},
        {"d": 30, "name": f"synthetic, basis deg <= 1, random grid C = {C}",
         "kind": "synthetic_basis", "deg": 1, "kw": {"grid_subset": C}},
        {"d": 30, "name": f"synthetic, basis deg <= 1, PSI ellipsoid C = {C}",
         "kind": "synthetic_basis", "deg": 1, "eps": "4/5", "kw": dict(psi, candidates=C)},
        {"d": 30, "name": f"(not private) synthetic, exact-PCA ellipsoid C = {C}",
         "kind": "synthetic_basis", "deg": 1, "eps": "4/5", "exact_pca": 3, "C": C},
    ]
    if quick:
        cfg = [c for c in cfg if c["d"] != 5 and "deg <= 2" not in c["name"]]
    return cfg


def _configs_table4(quick: bool) -> list[dict]:
    """jin Table 4 rows: d = 30, total (epsilon, delta) = (1, DELTA_T4) on the moments."""
    C = 2000 if quick else 10_000
    cfg = [
        {"d": 30, "name": "summary, basis deg <= 1", "kind": "summary_basis", "deg": 1},
        {"d": 30, "name": "summary, basis deg <= 2", "kind": "summary_basis", "deg": 2},
        {"d": 30, "name": f"synthetic, basis deg <= 1, random grid C = {C}",
         "kind": "synthetic_basis", "deg": 1, "kw": {"grid_subset": C}},
        {"d": 30, "name": f"synthetic, basis deg <= 2, random grid C = {C}",
         "kind": "synthetic_basis", "deg": 2, "kw": {"grid_subset": C}},
    ]
    for c in cfg:
        c["delta"] = DELTA_T4
    if quick:  # the degree-2 LP (10^4 x 496) takes ~45 s per release
        cfg = [c for c in cfg if not (c["kind"] == "synthetic_basis" and c["deg"] == 2)]
    return cfg


def _exact_pca_points(X: np.ndarray, k: int, C: int, seed: int) -> np.ndarray:
    """NON-PRIVATE reference: ellipsoid of the exact top-k covariance eigenpairs."""
    from dpverify.mechanisms.jin_psi import PSIResult, ellipsoid_points

    lam, V = np.linalg.eigh(np.cov(X.T, bias=True))
    res = PSIResult(V[:, ::-1][:, :k], lam[::-1][:k], {})
    return ellipsoid_points(res, X.mean(axis=0), C, seed=seed)


def _route(privacy: dict) -> str:
    """Calibration route and noise scale of a moments privacy record (table column)."""
    used = privacy.get("used", "pure")
    label = {"pure": "pure", "advanced_composition": "adv. comp."}.get(used, used)
    if "delta" in privacy and used == "pure":
        label += " (delta unused)"
    return f"{label}, {float(parse_fmpq_str(privacy['scale'])):.3f}"


def wdbc_experiment(rounds: int, nq: int, quick: bool = False,
                    table4: bool = False) -> list[str]:
    """jin Table 3 rows (``table4=False``) or jin Table 4 rows (``table4=True``)."""
    from dpverify.mechanisms.jin_synthetic import (
        basis_indices,
        release_basis_summary,
        release_synthetic_basis,
    )

    Xall = _wdbc()
    if Xall is None:
        return ["WDBC: scikit-learn not installed (pip install scikit-learn); skipped"]
    n = len(Xall)
    t, K, N = 6, 4, 12
    w = np.array([float(v) for v in jackson_multipliers(t - 1, K)])[:t]
    configs = _configs_table4(quick) if table4 else _configs(quick)
    queries: dict[int, list] = {}
    for d in sorted({c["d"] for c in configs}):
        gq = np.random.default_rng(1000 + d)  # query generation (public)
        X = Xall[:, :d]
        qs = []
        for sigma in SIGMAS:
            cents = gq.uniform(-1, 1, (nq, J, d))
            alpha = gq.random((nq, J))
            alpha /= alpha.sum(axis=1, keepdims=True)
            qs.append((cents, alpha, _kernel_sums(X, cents, alpha, sigma)))
        queries[d] = qs
    table = []
    for cfg in configs:
        d = cfg["d"]
        delta = cfg.get("delta")
        X = Xall[:, :d]
        absw = {s: [] for s in SIGMAS}
        relw = {s: [] for s in SIGMAS}
        times, extra = [], {}
        for r in range(rounds):
            t0 = time.perf_counter()
            kind = cfg["kind"]
            if kind == "summary_full":
                S = release_summary(X, t, 1, insecure_seed=100 + r)
                B = np.array([float(v) for v in S.moments]).reshape((t,) * d)
            elif kind == "synthetic_full":
                syn = release_synthetic(X, t, N, 1, insecure_seed=100 + r, sample_seed=r)
            elif kind == "summary_basis":
                Bi = basis_indices(d, degree=cfg["deg"])
                S = release_basis_summary(X, Bi, 1, delta=delta, insecure_seed=100 + r)
                bvec = np.array([float(v) for v in S.moments])
                extra["route"] = _route(S.privacy)
            else:
                kw = dict(cfg.get("kw", {}))
                if "exact_pca" in cfg:
                    kw["support_points"] = _exact_pca_points(X, cfg["exact_pca"], cfg["C"], r)
                syn = release_synthetic_basis(X, N, cfg.get("eps", 1), basis_degree=cfg["deg"],
                                              delta=delta, insecure_seed=100 + r,
                                              sample_seed=r, **kw)
                extra["candidates"] = syn.info["candidates"]
                extra["basis"] = syn.info["basis_size"]
                extra["route"] = _route(syn.privacy["moments"])
            times.append(time.perf_counter() - t0)
            for sigma, (cents, alpha, truth) in zip(SIGMAS, queries[d], strict=True):
                if kind == "summary_full":
                    cf = _cheb_coeffs_gauss(cents.reshape(-1), sigma, t).reshape(nq, J, d, t)
                    cf = cf * w[None, None, None, :]
                    if d == 2:
                        ans = np.einsum("qjm,qjn,mn->qj", cf[:, :, 0], cf[:, :, 1], B)
                    else:
                        ans = np.einsum("qjm,m->qj", cf[:, :, 0], B)
                    est = (alpha * ans).sum(axis=1)
                elif kind == "summary_basis":
                    est = _basis_answers(Bi, bvec, cents, alpha, sigma)
                else:
                    est = _kernel_sums(syn.rows, cents, alpha, sigma)
                err = np.abs(est - truth)
                absw[sigma].append(err.max())
                relw[sigma].append((err / np.abs(truth)).max())
        table.append((cfg, {s: float(np.mean(absw[s])) for s in SIGMAS},
                      {s: float(np.mean(relw[s])) for s in SIGMAS}, float(np.mean(times)),
                      extra))
    sig = " | ".join(f"sigma = {s}" for s in SIGMAS)
    if table4:
        out = [f"WDBC, jin Table 4 protocol (n = {n}, all d = 30 attributes scaled to [-1, 1]), "
               f"total (epsilon, delta) = (1, {DELTA_T4}), J = {J} kernels, {nq} queries per "
               f"sigma, {rounds} rounds; worst error over the queries, averaged over rounds; "
               "route = calibration the library certified for the moments (pure Laplace or "
               "advanced composition) and its noise scale per moment; s = seconds per release "
               "(moments + LP + sampling)", "",
               f"| d | mechanism | route, scale | error | {sig} | s |",
               "|---|---|---|---|" + "---|" * (len(SIGMAS) + 1)]
    else:
        out = [f"WDBC (n = {n}, the first d attributes scaled to [-1, 1]), total epsilon = 1, "
               f"J = {J} kernels, {nq} queries per sigma, {rounds} rounds; worst error over "
               "the queries, averaged over rounds; s = seconds per release (moments [+ PSI] + "
               "LP + sampling)", "",
               f"| d | mechanism | error | {sig} | s |",
               "|---|---|---|" + "---|" * (len(SIGMAS) + 1)]
    for cfg, a, rl, tm, extra in table:
        name = cfg["name"]
        if "candidates" in extra:
            name += f" (|R| = {extra['basis']}, {extra['candidates']} distinct candidates)"
        route = f" {extra.get('route', '')} |" if table4 else ""
        for lab, vals in (("Abs", a), ("Rel", rl)):
            out.append(f"| {cfg['d']} | {name} |{route} {lab} | "
                       + " | ".join(f"{vals[s]:.3f}" for s in SIGMAS) + f" | {tm:.2f} |")
    jin, label, secs = ((JIN_TABLE4_WDBC, "jin Table 4 (WDBC, C = 10^4)", "1.2") if table4
                        else (JIN_TABLE3_WDBC, "jin Table 3 (WDBC, C = 10^4)", "1.0"))
    for lab in ("Abs", "Rel"):
        out.append(f"| 30 | {label} |{' - |' if table4 else ''} {lab} | "
                   + " | ".join(f"{v:.3f}" for v in jin[lab]) + f" | {secs} |")
    return out


def main() -> None:
    if "--replot-kde" in sys.argv:
        replot_kde()
        return
    quick = "--quick" in sys.argv
    only4 = "--table4" in sys.argv
    rounds, nq = (2, 300) if quick else (20, 10_000)
    t0 = time.perf_counter()
    lines: list[str] = []
    if not only4:
        lines += kde_experiment(5 if quick else 100, plot=not quick)
        lines += [""] + wdbc_experiment(rounds, nq, quick)
        lines += ["", f"(KDE + Table 3: {time.perf_counter() - t0:.1f} s)", ""]
    t4 = time.perf_counter()
    lines += wdbc_experiment(rounds, nq, quick, table4=True)
    lines += ["", f"(Table 4: {time.perf_counter() - t4:.1f} s)"]
    lines += ["", f"total {time.perf_counter() - t0:.1f} s"]
    print("\n".join(lines))


if __name__ == "__main__":
    main()
