"""TUV polynomial release timings (thaler2012 Thm 3.1) for d = 50, k = 3.

Prints, for each (representation, universe, gamma, n): the degree, the number of noised
coordinates, the wall time of the release (polynomial + certification + support counts +
exact aggregation + integer discrete Laplace noise) and of answering 1000 random queries,
the certified alpha(beta = 1/20).  Run: ``python benchmarks/tuv_release.py``.
"""

from __future__ import annotations

import time

import numpy as np

from dpverify.mechanisms.tuv import tuv_release


def main() -> None:
    d, k = 50, 3
    rng = np.random.default_rng(0)
    print("| representation | universe | gamma | n | degree | coordinates | release s | "
          "1000 answers s | alpha(1/20) |")
    print("|---|---|---|---|---|---|---|---|---|")
    for n in (10_000, 100_000):
        X = (rng.random((n, d)) < 0.2).astype(np.int8)
        for rep, uni, gamma in [("multilinear", "monotone", "1/10"),
                                ("full", "monotone", "1/10"),
                                ("multilinear", "doubled", "1/10"),
                                ("multilinear", "monotone", "1/100")]:
            t0 = time.perf_counter()
            s = tuv_release(X, k, gamma, 1, representation=rep, universe=uni)
            t1 = time.perf_counter()
            qs = [sorted(rng.choice(d, size=k, replace=False).tolist()) for _ in range(1000)]
            for q in qs:
                s.answer(q)
            t2 = time.perf_counter()
            print(f"| {rep} | {uni} | {gamma} | {n} | {s.data['polynomial']['degree']} | "
                  f"{s.data['n_coordinates']} | {t1 - t0:.2f} | {t2 - t1:.2f} | "
                  f"{s.data['accuracy']['alpha_decimal']} |", flush=True)


if __name__ == "__main__":
    main()
