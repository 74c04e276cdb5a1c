"""Tables for docs/bernstein.md (alda2017 iterated Bernstein polynomials).

1. Certified Lambda_{k,h} = max_[0,1] sum_nu |b^{(h)}_{nu,k}| (dpverify.certify.lebesgue,
   relative width <= 1e-6) for k in {5, 10, 20, 50, 100}, h in {1, 2, 3, 4, 6}, next to
   the paper's bound 2^h - 1 (alda2017 Proposition 11 / Appendix C eq. (12)).
2. Theorem 5: certified sup |f - B_k^{(h)} f| (dpverify.certify.certify, interval
   branch and bound) for smooth f, with C = err * k^h and the least-squares slope of
   log err against log k (Theorem 5 predicts slope -h).
3. Theorem 6: certified sup |f - B_k f| (h = 1) for Hoelder f, next to L (4k)^(-gamma/2).
4. Timing of the exact basis matrix (Horner vs repeated squaring).

Run: ``python benchmarks/bernstein_tables.py`` (a few minutes); markdown on stdout.
"""

from __future__ import annotations

import math
import sys
import time

from flint import fmpq, fmpq_mat

sys.path.insert(0, ".")
from dpverify.certify import certify  # noqa: E402
from dpverify.certify.lebesgue import lebesgue_constant  # noqa: E402
from dpverify.constructions.bernstein import (  # noqa: E402
    bernstein_approx,
    bernstein_operator_matrix,
    iterated_basis_matrix,
)
from dpverify.numbers import fmpq_to_decimal, parse_exact  # noqa: E402


def log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


def lebesgue_table() -> None:
    ks = (5, 10, 20, 50, 100)
    hs = (1, 2, 3, 4, 6)
    print("### Lambda_{k,h}: certified enclosure [lower, upper] (rel. width <= 1e-6)\n")
    print("| k | " + " | ".join(f"h = {h} (2^h-1 = {2**h - 1})" for h in hs) + " |")
    print("|---:|" + "---|" * len(hs))
    for k in ks:
        cells = []
        for h in hs:
            t0 = time.perf_counter()
            e = lebesgue_constant(k, h)
            dt = time.perf_counter() - t0
            log(f"Lambda k={k} h={h}: [{float(e.lower):.9f}, {float(e.upper):.9f}] {dt:.2f}s")
            if e.lower == e.upper:
                cells.append(f"{fmpq_to_decimal(e.lower, 10)} (exact)")
            else:
                cells.append(
                    f"[{fmpq_to_decimal(e.lower, 9, 'down')}, {fmpq_to_decimal(e.upper, 9, 'up')}]"
                )
        print(f"| {k} | " + " | ".join(cells) + " |")
    print()
    print("Times (s) for k = 200: ", end="")
    parts = []
    for h in (2, 4, 8):
        t0 = time.perf_counter()
        e = lebesgue_constant(200, h)
        parts.append(
            f"h={h}: [{fmpq_to_decimal(e.lower, 9, 'down')}, {fmpq_to_decimal(e.upper, 9, 'up')}]"
            f" in {time.perf_counter() - t0:.1f} s ({e.pieces} pieces)"
        )
        log(parts[-1])
    print("; ".join(parts) + "\n")


def certified_error(f: str, k: int, h: int, rtol: str = "1e-4") -> tuple[fmpq, fmpq]:
    cert = certify(bernstein_approx(f, k, h), rtol=rtol)
    return parse_exact(cert.error["lower"]), parse_exact(cert.error["upper"])


def slope(ks: list[int], errs: list[float]) -> float:
    xs = [math.log(k) for k in ks]
    ys = [math.log(e) for e in errs]
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True)) / sum(
        (x - mx) ** 2 for x in xs
    )


def theorem5_table() -> None:
    ks = [5, 10, 20, 40, 80]
    print("### Theorem 5: sup |f - B_k^(h) f| (certified upper bound, rel. width <= 1e-4)\n")
    print("| f | h | " + " | ".join(f"k = {k}" for k in ks)
          + " | C = max_k err k^h | fitted slope (theory -h) | slope k=40..80 |")
    print("|---|---:|" + "---:|" * len(ks) + "---:|---:|---:|")
    for f in ("exp(x)", "sin(3*x)", "1/(1+x^2)"):
        for h in (1, 2, 3):
            errs = []
            for k in ks:
                t0 = time.perf_counter()
                lo, up = certified_error(f, k, h)
                errs.append(up)
                log(f"T5 {f} h={h} k={k}: [{float(lo):.6e}, {float(up):.6e}] "
                    f"{time.perf_counter() - t0:.2f}s")
            consts = [float(e) * k**h for e, k in zip(errs, ks, strict=True)]
            s = slope(ks, [float(e) for e in errs])
            s2 = slope(ks[-2:], [float(e) for e in errs[-2:]])
            print(f"| `{f}` | {h} | " + " | ".join(f"{float(e):.3e}" for e in errs)
                  + f" | {max(consts):.4g} | {s:.2f} | {s2:.2f} |")
    print()


def theorem6_table() -> None:
    ks = [4, 8, 16, 32, 64]
    cases = [
        ("abs(x-1/2)^0.5", fmpq(1, 2), 1),
        ("abs(x-1/3)^0.5", fmpq(1, 2), 1),
        ("abs(x-1/2)", fmpq(1), 1),
        ("abs(x-1/2)^0.25", fmpq(1, 4), 1),
    ]
    print("### Theorem 6 (h = 1): certified sup |f - B_k f| vs L (4k)^(-gamma/2)\n")
    print("| f | gamma, L | " + " | ".join(f"k = {k}" for k in ks)
          + " | max err / bound | fitted slope (theory >= -gamma/2) |")
    print("|---|---|" + "---:|" * len(ks) + "---:|---:|")
    for f, g, L in cases:
        errs, ratios = [], []
        for k in ks:
            t0 = time.perf_counter()
            lo, up = certified_error(f, k, 1)
            bound = L * (4 * k) ** (-float(g) / 2)
            errs.append(float(up))
            ratios.append(float(up) / bound)
            log(f"T6 {f} k={k}: [{float(lo):.6e}, {float(up):.6e}] bound {bound:.4e} "
                f"{time.perf_counter() - t0:.2f}s")
        print(f"| `{f}` | {g}, {L} | " + " | ".join(f"{e:.4e}" for e in errs)
              + f" | {max(ratios):.3f} | {slope(ks, errs):.3f} |")
    print()


def _doubling(k: int, h: int) -> fmpq_mat:
    A = bernstein_operator_matrix(k)
    n = k + 1
    eye = fmpq_mat(n, n)
    for i in range(n):
        eye[i, i] = 1
    E = eye - A
    S, P = eye, E  # S_m = sum_{j<m} E^j, P_m = E^m, m = 1
    for bit in bin(h)[3:]:
        S, P = S + P * S, P * P
        if bit == "1":
            S, P = eye + E * S, E * P
    return S


def timing_table() -> None:
    print("### Exact basis matrix M: Horner vs repeated squaring (seconds)\n")
    print("| k | h | Horner (h-1 products) | repeated squaring | equal |")
    print("|---:|---:|---:|---:|---|")
    for k, h in [(50, 6), (100, 2), (100, 4), (100, 6), (100, 8)]:
        t0 = time.perf_counter()
        M1 = iterated_basis_matrix(k, h)
        t1 = time.perf_counter() - t0
        t0 = time.perf_counter()
        M2 = _doubling(k, h)
        t2 = time.perf_counter() - t0
        print(f"| {k} | {h} | {t1:.2f} | {t2:.2f} | {M1 == M2} |")
        log(f"timing k={k} h={h}: {t1:.2f} {t2:.2f}")
    print()


def main() -> None:
    which = set(sys.argv[1:]) or {"lebesgue", "t5", "t6", "timing"}
    if "timing" in which:
        timing_table()
    if "lebesgue" in which:
        lebesgue_table()
    if "t5" in which:
        theorem5_table()
    if "t6" in which:
        theorem6_table()


if __name__ == "__main__":
    main()
