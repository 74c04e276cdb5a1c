"""TUV polynomial release timings (thaler2012 Thm 3.1) for d = 50, k = 3, and a decision-list
release (thaler2012 Theorem 1.3 / Section 4.3).

Part ``tuv`` prints, for each (representation, universe, gamma, n): the degree, the number of
noised coordinates, the wall time of the release (polynomial + certification + support counts
+ exact aggregation + integer discrete Laplace noise with OS randomness) and of answering 1000
random queries of size k, and the certified alpha(beta = 1/20).  A configuration above
``MAX_COORDINATES`` is refused by the release; its row says so with the coordinate count.

Part ``dlist`` does the same for decision-list databases (rows = random decision lists of
length k over m variables, queries = random y in {0,1}^m).

Run: ``python benchmarks/tuv_release.py [--part tuv|dlist|all]`` (from the repository root,
``PYTHONPATH=.`` if the package is not installed).  CPU heavy: minutes.

Public synthetic data only: numpy's generator draws the database and the queries (no privacy
role); the privacy noise comes from :mod:`dpverify.noise`.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from dpverify.errors import InvalidParameterError
from dpverify.mechanisms.privacy import tuv_privacy
from dpverify.mechanisms.tuv import tuv_polynomial, tuv_release


def tuv_part() -> None:
    d, k = 50, 3
    print("| representation | universe | gamma | n | vector | degree | coordinates | release s | "
          "1000 answers s | alpha(1/20) |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for n in (10_000, 100_000):
        rng = np.random.default_rng(n)
        X = (rng.random((n, d)) < 0.2).astype(np.int8)
        for gamma in ("1/10", "1/100"):
            for rep in ("multilinear", "full"):
                for uni, trunc in [(u, tr) for u in ("monotone", "doubled")
                                   for tr in (True, False)]:
                    vec = "support <= k" if trunc else "paper (all)"
                    t0 = time.perf_counter()
                    try:
                        s = tuv_release(X, k, gamma, 1, representation=rep, universe=uni,
                                        truncate=trunc)
                    except InvalidParameterError:
                        approx, _ = tuv_polynomial(k, gamma)
                        cs = list(approx.poly.to_monomial().coeffs)
                        K = tuv_privacy(cs, d, k, 1, n=n, representation=rep, universe=uni,
                                        max_support=k if trunc else None,
                                        )["sensitivity"]["n_coordinates"]
                        print(f"| {rep} | {uni} | {gamma} | {n} | {vec} | {len(cs) - 1} | {K} | "
                              "refused (> MAX_COORDINATES) | - | - |", flush=True)
                        continue
                    t1 = time.perf_counter()
                    qs = []
                    for _ in range(1000):
                        cols = rng.choice(d, size=k, replace=False).tolist()
                        if uni == "doubled":
                            qs.append([(j, bool(rng.random() < 0.5)) for j in cols])
                        else:
                            qs.append(sorted(cols))
                    t2 = time.perf_counter()
                    for q in qs:
                        s.answer(q)
                    t3 = time.perf_counter()
                    print(f"| {rep} | {uni} | {gamma} | {n} | {vec} | "
                          f"{s.data['polynomial']['degree']}"
                          f" | {s.data['n_coordinates']} | {t1 - t0:.1f} | {t3 - t2:.3f} | "
                          f"{s.data['accuracy']['alpha_decimal']} |", flush=True)
                    del s


def dlist_part() -> None:
    from dpverify.mechanisms.tuv_dlist import random_decision_lists, tuv_dlist_release

    print("| m | k | gamma | n | degree | coordinates | release s | 1000 answers s | "
          "alpha(1/20) worst y | alpha(1/20), y of weight <= 3 |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for m, k, gamma, n in ((20, 3, "1/10", 10_000), (20, 3, "1/10", 100_000),
                           (20, 3, "1/100", 100_000), (50, 3, "1/10", 100_000),
                           (20, 5, "1/10", 100_000)):
        rng = np.random.default_rng(1000 + n + k)
        dls = random_decision_lists(n, m, k, rng)
        t0 = time.perf_counter()
        s = tuv_dlist_release(dls, m, k, gamma, 1)
        t1 = time.perf_counter()
        ys = (rng.random((1000, m)) < 0.5).astype(int).tolist()
        t2 = time.perf_counter()
        for y in ys:
            s.answer(y)
        t3 = time.perf_counter()
        acc = s.data["accuracy"]
        small = s.accuracy_for_weight(3)
        print(f"| {m} | {k} | {gamma} | {n} | {s.data['polynomial']['degree']} | "
              f"{s.data['n_coordinates']} | {t1 - t0:.1f} | {t3 - t2:.3f} | "
              f"{acc['alpha_decimal']} | {small['alpha_decimal']} |", flush=True)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--part", choices=("tuv", "dlist", "all"), default="all")
    args = ap.parse_args()
    if args.part in ("tuv", "all"):
        tuv_part()
    if args.part in ("dlist", "all"):
        dlist_part()


if __name__ == "__main__":
    main()
