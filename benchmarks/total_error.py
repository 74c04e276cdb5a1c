"""Total error |exp(x) - fl(p)(x)| on [-ln2/2, ln2/2]: the certified float-error bound
against the largest error found, binary32 exhaustively and binary64 at 10^6 inputs.

Coefficients: the degree-n least-squares fit of exp at 200 Chebyshev-like nodes, rounded
to the format (binary32 coefficients for binary32, binary64 for binary64).  For each degree,
scheme and error kind (absolute, relative, ulps of exp(x)) the script certifies the bound
(:func:`dpverify.float_error_bound` with ``format``, ``scheme``, ``error``), re-checks the
certificate (``dpverify verify``), and measures the largest error of the same float code:

* binary32: every binary32 x of the interval (about 2.1e9), numpy float32 code written
  from SCHEMES.md, the reference exp in float64 (its error, ~1e-16, is below 1e-8 of the
  binary32 errors measured);
* binary64: 10^6 random binary64 x plus the ends, numpy float64 code, the reference
  exp(x) and p in 200-bit ball arithmetic.

The target: bound / largest error <= 1.2.  Usage:
``python benchmarks/total_error.py [--quick] [--samples N]`` (``--quick``: binary32 on the
binary32 numbers of [1/8, 1/8 + 2^-9] only, binary64 at 10^4 inputs).
"""

from __future__ import annotations

import argparse
import math
import time

import numpy as np
from flint import arb, ctx, fmpq

import dpverify

A = math.log(2) / 2


def coeffs(deg: int, dtype: type) -> np.ndarray:
    """The fit at 200 Chebyshev-like nodes (as tests/test_evalbound_schemes.py)."""
    xs = np.cos(np.linspace(0, np.pi, 200)) * A
    return np.polynomial.polynomial.polyfit(xs, np.exp(xs), deg).astype(dtype)


def scheme(c: np.ndarray, x: np.ndarray, name: str) -> np.ndarray:
    """SCHEMES.md's orders in numpy (no fma: Horner and Estrin)."""
    if name == "horner":
        q = np.full_like(x, c[-1])
        for ci in c[-2::-1]:
            q = (x * q) + ci
        return q
    b = [np.full_like(x, v) for v in c]
    p = x
    while len(b) > 1:
        nb = [b[2 * j] + (b[2 * j + 1] * p) for j in range(len(b) // 2)]
        if len(b) % 2:
            nb.append(b[-1])
        b = nb
        if len(b) > 1:
            p = p * p
    return b[0]


def worst32(c: np.ndarray, name: str, quick: bool) -> tuple[float, float, float]:
    """The largest absolute, relative and ulps errors over the binary32 inputs."""
    if quick:
        lo, hi = np.float32(0.125), np.float32(0.125 + 2**-9)
        ranges = [(int(lo.view(np.int32)), int(hi.view(np.int32)), 1)]
    else:
        top = int(np.float32(A).view(np.int32))
        ranges = [(0, top, 1), (0, top, -1)]
    out = [0.0, 0.0, 0.0]
    for start, stop, sign in ranges:
        for s in range(start, stop + 1, 1 << 24):
            ii = np.arange(s, min(s + (1 << 24), stop + 1), dtype=np.int32)
            x = ii.view(np.float32) * np.float32(sign)
            y = scheme(c, x, name).astype(np.float64)
            f = np.exp(x.astype(np.float64))
            e = np.abs(y - f)
            ulp = np.spacing(np.abs(f).astype(np.float32)).astype(np.float64)
            out = [max(out[0], e.max()), max(out[1], (e / f).max()),
                   max(out[2], (e / ulp).max())]
    return out[0], out[1], out[2]


def worst64(c: np.ndarray, name: str, n: int) -> tuple[float, float, float]:
    rng = np.random.default_rng(1)
    x = np.concatenate([rng.uniform(-A, A, n), [np.nextafter(-A, 0), np.nextafter(A, 0)]])
    y = scheme(c, x, name)
    out = [0.0, 0.0, 0.0]
    with ctx.workprec(200):
        for xi, yi in zip(x.tolist(), y.tolist()):
            f = arb(fmpq(*xi.as_integer_ratio())).exp()
            e = abs(arb(fmpq(*yi.as_integer_ratio())) - f)
            fm = float(f.mid())
            ev = float(e.mid())
            out = [max(out[0], ev), max(out[1], ev / fm),
                   max(out[2], ev / math.ulp(fm) if fm else 0.0)]
    return out[0], out[1], out[2]


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--samples", type=int, default=10**6)
    args = ap.parse_args()
    n64 = 10**4 if args.quick else args.samples
    print("| format | degree | scheme | error | bound | largest found | ratio | certify s "
          "| verify s |")
    print("|---|---|---|---|---|---|---|---|---|")
    bad = 0
    for fmt, dtype, degrees in (("binary32", np.float32, (5, 6, 7)),
                                ("binary64", np.float64, (11, 12, 13))):
        for deg in degrees:
            c = coeffs(deg, dtype)
            cs = [fmpq(*float(v).as_integer_ratio()) for v in c]
            a = dtype(A)
            lo = fmpq(*float(-a).as_integer_ratio())
            if args.quick and fmt == "binary32":
                interval: tuple = (fmpq(1, 8), fmpq(1, 8) + fmpq(1, 2**9))
            else:
                interval = (lo, -lo)
            for name in ("horner", "estrin"):
                found = worst32(c, name, args.quick) if fmt == "binary32" else \
                    worst64(c, name, n64)
                for k, err in enumerate(("abs", "rel", "ulps")):
                    t0 = time.perf_counter()
                    b = dpverify.float_error_bound("exp(x)", cs, interval, format=fmt,
                                                   scheme=name, error=err)
                    t1 = time.perf_counter()
                    status = b.float_certificate().check().status
                    t2 = time.perf_counter()
                    ratio = float(b.bound) / found[k]
                    bad += status != "holds" or ratio < 1
                    print(f"| {fmt} | {deg} | {name} | {err} | {float(b.bound):.6g} | "
                          f"{found[k]:.6g} | {ratio:.3f} | {t1 - t0:.2f} | {t2 - t1:.2f} "
                          f"({status}) |", flush=True)
    print(f"\nproblems (not HOLDS, or an error above the bound): {bad}")
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
