"""Certified error of I_{t,K} g_f against t (wang2013 Theorem 4.1 vs Theorem 3.2).

For each f and K, builds ``jackson_approx(f, t, K)`` on [-1, 1] and certifies
``sup |f - p|`` (rigorous enclosure, rtol 1e-2); fits the exponent a in err ~ C t^-a by
least squares on log(err) vs log(t) over the last three t.  Theorem 4.1 claims a >= K+1
under ``||D^K g|| <= M``; Theorem 3.2 / Lemma 4.4 use t = (1/gamma)^(1/K), i.e. a = K.

Usage: python benchmarks/jackson_rates.py [--quick]
"""

from __future__ import annotations

import math
import sys
import time

from flint import ctx

from dpverify.certify import certify
from dpverify.constructions.jackson import jackson_approx

CASES = [
    # (label, expr, smoothness note)
    ("gauss", "exp(-(x-0.5)^2/2)", "analytic"),
    ("abs^3.5", "abs(x)^(7/2)", "C^3, D^3 f Holder-1/2"),
    ("x^2|x|", "x^2*abs(x)", "C^2, D^3 f bounded (jump)"),
    ("abs^1.5", "abs(x)^(3/2)", "C^1, D^1 f Holder-1/2"),
]
KS = [1, 2, 3, 4]


def fit(ts, errs):
    xs = [math.log(t) for t in ts]
    ys = [math.log(e) for e in errs]
    n = len(xs)
    mx, my = sum(xs) / n, sum(ys) / n
    return -sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sum((x - mx) ** 2 for x in xs)


def main() -> None:
    quick = "--quick" in sys.argv
    ts = [8, 16, 32, 64] if quick else [8, 16, 32, 64, 128]
    ctx.cap = 64  # python-flint truncates power series at ctx.cap (default 10)
    print("| f | smoothness | K | " + " | ".join(f"t={t}" for t in ts)
          + " | fitted a | Thm 4.1 (K+1) | Thm 3.2 (K) | time s |")
    print("|---|---|---|" + "---|" * len(ts) + "---|---|---|---|")
    for _label, expr, note in CASES:
        for K in KS:
            errs = []
            t0 = time.time()
            for t in ts:
                cert = certify(jackson_approx(expr, t, K), rtol="1e-2", max_pieces=50_000)
                errs.append(float(cert.error["upper"]))
            a = fit(ts[-3:], errs[-3:])
            row = " | ".join(f"{e:.3e}" for e in errs)
            print(f"| `{expr}` | {note} | {K} | {row} | {a:.2f} | {K + 1} | {K} | "
                  f"{time.time() - t0:.1f} |", flush=True)


if __name__ == "__main__":
    main()
