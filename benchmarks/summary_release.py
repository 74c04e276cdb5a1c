"""Benchmark: wang2013 summary release for n = 10^6 rows, d = 2, t = 32 (prints figures).

Stages timed separately: Chebyshev moments (float64, GEMM-shaped), exact sensitivity record
(incl. the certified witness lower bound), exact discrete Laplace noise for t^d - 1 moments,
and one certified query answer.  Run: ``python benchmarks/summary_release.py [n] [t]``.
"""

from __future__ import annotations

import sys
import time

import numpy as np

from dpverify.mechanisms.wang_summary import (
    chebyshev_moments,
    moment_sensitivity,
    release_summary,
)
from dpverify.numbers import parse_fmpq_str


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 10**6
    t = int(sys.argv[2]) if len(sys.argv) > 2 else 32
    d = 2
    g = np.random.default_rng(0)  # synthetic data, not noise
    X = np.clip(g.normal(0.0, 0.4, (n, d)), -1, 1)
    t0 = time.perf_counter()
    chebyshev_moments(X, t)
    t1 = time.perf_counter()
    moment_sensitivity(t, d, n)
    t2 = time.perf_counter()
    S = release_summary(X, t, 1)  # OS randomness (the real thing)
    t3 = time.perf_counter()
    res = S.answer("exp(-(x-0.3)^2-(y+0.1)^2)", 2, rtol="1e-1")
    t4 = time.perf_counter()
    res2 = S.answer("exp(-(x-0.3)^2-(y+0.1)^2)", 2, certify_error=False)
    t5 = time.perf_counter()
    truth = float(np.mean(np.exp(-(X[:, 0] - 0.3) ** 2 - (X[:, 1] + 0.1) ** 2)))
    print(f"n={n} d={d} t={t} moments={t**d}")
    print(f"moments (float64 GEMM)          {t1 - t0:8.3f} s")
    print(f"sensitivity record (exact)      {t2 - t1:8.3f} s")
    print(f"full release (moments+noise)    {t3 - t2:8.3f} s")
    print(f"answer + certify (rtol 1e-1)    {t4 - t3:8.3f} s")
    print(f"answer, no certificate          {t5 - t4:8.3f} s")
    scale = float(parse_fmpq_str(S.privacy["scale"]))
    print(f"scale {scale:.6g}  grid 2^{int(np.log2(float(S.grid)))}")
    print(f"answer {res['answer_decimal']}  truth {truth:.10f}  alpha(1/20) {res['alpha_decimal']}"
          f"  approx err <= {res['approximation_error'][:10]}")
    assert res2["answer"] == res["answer"]


if __name__ == "__main__":
    main()
