#!/usr/bin/env python3
"""The figure and table of docs/minimax.md: certified brackets of ``E_N(|x|)`` on
[-1, 1] for even ``N`` up to 512, next to Bernstein's constant.

Every point is a ``minimax`` certificate (``dpverify.minimax``, rtol 1e-6): ``lower`` by
de la Vallee Poussin at the alternation points, ``upper`` by the graded-partition sup-norm
bound.  ``N E_N`` increases towards Bernstein's constant ``beta = 0.2801694990238691...``
(Bernstein 1914; Varga and Carpenter, Constr. Approx. 1 (1985), who computed it to 50
digits).  Writes ``docs/figures/abs_bernstein.png`` and the table section of
``docs/minimax.md``.

Usage: ``python benchmarks/bernstein_figure.py [--max 512] [--no-write]``.
"""

from __future__ import annotations

import argparse
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from _doc import write_section  # noqa: E402

import dpverify  # noqa: E402
from dpverify.numbers import fmpq_to_decimal, parse_exact  # noqa: E402

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
PNG = os.path.join(ROOT, "docs", "figures", "abs_bernstein.png")
PAGE = os.path.join(ROOT, "docs", "minimax.md")
SECTION = "## E_N(|x|) up to degree 512"
BETA = 0.2801694990238691330364
DEGREES = [2, 4, 6, 8, 10, 12, 16, 20, 24, 32, 40, 48, 64, 80, 96, 128, 160, 192, 256, 320,
           384, 448, 512]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--max", type=int, default=512)
    ap.add_argument("--no-write", action="store_true")
    args = ap.parse_args()
    rows = []
    for n in [d for d in DEGREES if d <= args.max]:
        t0 = time.perf_counter()
        cert = dpverify.minimax("abs(x)", n, (-1, 1))
        dt = time.perf_counter() - t0
        e = cert.statement["error"]
        lo, up = parse_exact(e["lower"]), parse_exact(e["upper"])
        rows.append((n, lo, up, dt))
        print(n, fmpq_to_decimal(lo, 12, "down"), fmpq_to_decimal(up, 12, "up"),
              f"{float(n * lo):.12f}", f"{dt:.1f} s", flush=True)
    table = [SECTION, "",
             "Written by `python3 benchmarks/bernstein_figure.py` (each row one `minimax` "
             "certificate, rtol 1e-6; seconds on the machine of the run, provisional).", "",
             "| N | E_N >= (proven) | E_N <= (proven) | N E_N (lower) | beta - N E_N | s |",
             "|---|---|---|---|---|---|"]
    for n, lo, up, dt in rows:
        table.append(f"| {n} | {fmpq_to_decimal(lo, 12, 'down')} | "
                     f"{fmpq_to_decimal(up, 12, 'up')} | {float(n * lo):.10f} | "
                     f"{BETA - float(n * lo):.3e} | {dt:.1f} |")
    text = "\n".join(table) + "\n"
    print(text)
    if args.no_write:
        return
    import matplotlib  # deferred: only the figure needs it

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt  # deferred: after the backend is chosen

    ns = [r[0] for r in rows]
    fig, (ax1, ax2, ax3) = plt.subplots(1, 3, figsize=(14, 4))
    ax1.loglog(ns, [float(r[1]) for r in rows], "o-", label="E_N(|x|), certified bracket")
    ax1.loglog(ns, [BETA / n for n in ns], "--", label="beta / N")
    ax1.set_xlabel("degree N")
    ax1.set_ylabel("E_N(|x|) on [-1, 1]")
    ax1.legend()
    ax2.semilogx(ns, [float(n * r[1]) for n, r in zip(ns, rows)], "o-",
                 label="N E_N (lower bound)")
    ax2.axhline(BETA, color="k", ls="--", label="Bernstein's constant 0.28016949...")
    ax2.set_xlabel("degree N")
    ax2.set_ylabel("N E_N(|x|)")
    ax2.legend(loc="lower right")
    gaps = [BETA - float(n * r[1]) for n, r in zip(ns, rows)]
    ax3.loglog(ns, gaps, "o-", label="beta - N E_N (from the lower bound)")
    ax3.loglog(ns, [gaps[0] * (ns[0] / n) ** 2 for n in ns], ":", label="slope N^-2")
    ax3.set_xlabel("degree N")
    ax3.legend()
    fig.suptitle("Best uniform approximation of |x|: certified errors (dpverify minimax)")
    fig.tight_layout()
    fig.savefig(PNG, dpi=110)
    write_section(SECTION, text, PAGE)
    print("wrote", PNG, "and", PAGE)


if __name__ == "__main__":
    main()
