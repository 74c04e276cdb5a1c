#!/usr/bin/env python3
"""Every degree, not a sample: ``|x|`` on [-1, 1] at every degree 2..512 and ``sqrt(x)``
on [0, 1] at every degree 1..256, each searched, certified (rtol 1e-6) and re-checked by
the independent verifier.  ``benchmarks/minimax_reach.py`` times powers of two; this
script shows that no degree in between fails.

Checks made on the certified numbers, each from a public fact, not from dpverify:

* ``E_{2m+1}(|x|) = E_{2m}(|x|)`` (|x| is even, so its best approximation is even): the
  brackets of the two degrees overlap;
* ``E_{2n}(|x| on [-1, 1]) = E_n(sqrt(t) on [0, 1])`` (substitute ``t = x^2``): the
  brackets overlap;
* ``E_N(|x|)`` does not increase with ``N`` (each degree's set contains the previous);
* ``N E_N(|x|)`` stays below Bernstein's constant 0.2801694990238691... for even ``N``
  (Varga and Carpenter 1985: ``2n E_{2n}`` increases to it).

Usage: ``python benchmarks/minimax_sweep.py [--abs-max 512] [--sqrt-max 256] [--no-write]``
(about 30-40 minutes on 2 cores; writes its own section of docs/benchmarks.md).
"""

from __future__ import annotations

import argparse
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from _doc import machine_line, write_section  # noqa: E402
from minimax_reach import BERNSTEIN, run_case  # noqa: E402

from dpverify.numbers import fmpq_to_decimal  # noqa: E402

SECTION = "## Minimax at every degree: |x| to 512, sqrt(x) to 256"


def sweep(f, interval, degrees, label):
    rows, t0 = {}, time.perf_counter()
    for n in degrees:
        r = run_case(f, n, interval, True)
        r.pop("cert")
        rows[n] = r
        bad = "" if r["met"] and r["status"] == "holds" else "  <-- NOT MET"
        print(f"{label} N={n}: total {r['search'] + r['certify']:.2f} s, verify "
              f"{r['verify']:.2f} s, upper/lower - 1 = {r['rel']:.2e}, {r['status']}{bad}",
              flush=True)
    return rows, time.perf_counter() - t0


def summary(rows, wall):
    worst_total = max(rows.values(), key=lambda r: r["search"] + r["certify"])
    return {
        "degrees": f"{min(rows)}..{max(rows)} ({len(rows)})",
        "met": sum(1 for r in rows.values() if r["met"]),
        "holds": sum(1 for r in rows.values() if r["status"] == "holds"),
        "worst rel": max(r["rel"] for r in rows.values()),
        "slowest": (worst_total["n"], worst_total["search"] + worst_total["certify"]),
        "verify max": max(r["verify"] for r in rows.values()),
        "wall": wall,
    }


def overlap(a, b):
    return a["lower"] <= b["upper"] and b["lower"] <= a["upper"]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--abs-max", type=int, default=512)
    ap.add_argument("--sqrt-max", type=int, default=256)
    ap.add_argument("--no-write", action="store_true")
    args = ap.parse_args()
    abs_rows, abs_wall = sweep("abs(x)", (-1, 1), range(2, args.abs_max + 1), "|x|")
    sq_rows, sq_wall = sweep("sqrt(x)", (0, 1), range(1, args.sqrt_max + 1), "sqrt")

    out = [SECTION, "",
           "Script: `benchmarks/minimax_sweep.py` (this run: `python3 benchmarks/minimax_sweep.py"
           f" --abs-max {args.abs_max} --sqrt-max {args.sqrt_max}`). Every degree searched "
           "(`remez`), certified (`certify_minimax`, rtol 1e-6) and re-checked by "
           "`dpverify.verify.verify_document`, one after the other in one process.", "",
           machine_line(), "",
           "| f | degrees | bracket <= 1 + 1e-6 | verifier holds | worst upper/lower - 1 | "
           "slowest search + certify | slowest verify s | wall s (all) |",
           "|---|---|---|---|---|---|---|---|"]
    for f, rows, wall in (("abs(x) on [-1, 1]", abs_rows, abs_wall),
                          ("sqrt(x) on [0, 1]", sq_rows, sq_wall)):
        s = summary(rows, wall)
        out.append(f"| {f} | {s['degrees']} | {s['met']} | {s['holds']} | "
                   f"{s['worst rel']:.2e} | N = {s['slowest'][0]}: {s['slowest'][1]:.2f} s | "
                   f"{s['verify max']:.2f} | {s['wall']:.0f} |")

    odd = [m for m in range(1, args.abs_max // 2 + 1) if 2 * m + 1 in abs_rows]
    odd_ok = sum(overlap(abs_rows[2 * m], abs_rows[2 * m + 1]) for m in odd)
    twins = [n for n in sq_rows if 2 * n in abs_rows]
    twin_ok = sum(overlap(sq_rows[n], abs_rows[2 * n]) for n in twins)
    ns = sorted(abs_rows)
    mono = sum(abs_rows[b]["lower"] <= abs_rows[a]["upper"] for a, b in zip(ns, ns[1:]))
    evens = [n for n in ns if n % 2 == 0]
    below = sum(float(n * abs_rows[n]["lower"]) < BERNSTEIN for n in evens)
    top = max(evens)
    out += ["", "Checks on the certified brackets (public facts, not dpverify's numbers):", "",
            f"* E_(2m+1)(|x|) = E_(2m)(|x|): brackets overlap at {odd_ok} of {len(odd)} "
            "odd degrees;",
            f"* E_(2n)(|x|) = E_n(sqrt): brackets overlap at {twin_ok} of {len(twins)} "
            "degrees n;",
            f"* E_N(|x|) non-increasing: {mono} of {len(ns) - 1} consecutive pairs "
            "consistent (lower bound of N + 1 <= upper bound of N);",
            f"* N E_N(|x|) < Bernstein's constant at {below} of {len(evens)} even degrees; "
            f"at N = {top}: N lower = "
            f"{fmpq_to_decimal(top * abs_rows[top]['lower'], 12, 'down')} "
            f"(constant 0.280169499023869...).", ""]
    text = "\n".join(out)
    print(text)
    if not args.no_write:
        write_section(SECTION, text)


if __name__ == "__main__":
    main()
