"""Limits that hold inside single FLINT calls (docs/limits.md): what they cost and save,
each against a baseline measured in the same run.

    python benchmarks/limits.py            # prints the table, updates docs/benchmarks.md
    python benchmarks/limits.py --no-write

Rows:

* building an ``fmpq_poly`` from 20001 coefficients ``1/(i+1)`` over their common
  denominator (:func:`dpverify.exact.sizes.poly_of`) against ``fmpq_poly(list)``, which
  rescales the whole polynomial at every new denominator;
* refusing the degree-``N`` Taylor shift of the sup-norm certifier under a 1 s budget
  against making it (the call that ran 37.6 s at degree 50000 under ``--timeout 10``);
* the ``dpverify`` program, which computes in a child process killed at the deadline,
  against the same command in-process (``DPVERIFY_IN_PROCESS=1``): the cost of the
  backstop (fresh processes, the commands taking turns, median).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from _doc import machine_line, timed, write_section  # noqa: E402

SECTION = "## Limits inside single FLINT calls"


def _poly_rows() -> list[tuple[str, float, float]]:
    from flint import fmpq, fmpq_poly

    from dpverify.exact.sizes import poly_of

    cs = [fmpq(1, i + 1) for i in range(20001)]
    ours, t_ours, _ = timed(poly_of, cs)
    ref, t_ref, _ = timed(fmpq_poly, cs)
    assert ours == ref
    return [("fmpq_poly of 20001 coefficients 1/(i+1): poly_of vs fmpq_poly(list)",
             t_ours, t_ref)]


def _shift_rows(n: int) -> list[tuple[str, float, float]]:
    from flint import fmpq, fmpq_poly

    from dpverify import budget
    from dpverify.certify.taylor_model import taylor_shift
    from dpverify.errors import TimeLimitExceeded

    P = fmpq_poly([1] * (n + 1))
    t0 = time.perf_counter()
    with budget.limits(timeout=1):
        try:
            taylor_shift(P, fmpq(1, 2), follow=3.0)
        except TimeLimitExceeded:
            pass
    t_refuse = time.perf_counter() - t0
    _, t_shift, _ = timed(lambda: P(fmpq_poly([fmpq(1, 2), 1])))
    return [(f"degree-{n} Taylor shift: refused under a 1 s budget vs made", t_refuse,
             t_shift)]


def _isolation_rows(repeat: int) -> list[tuple[str, float, float]]:
    cmd = [sys.executable, "-m", "dpverify", "or", "--k", "5", "--gamma", "1/10"]
    envs = {"program": dict(os.environ),
            "in-process": dict(os.environ, DPVERIFY_IN_PROCESS="1")}
    times: dict[str, list[float]] = {k: [] for k in envs}
    for _ in range(repeat):
        for name, env in envs.items():
            t0 = time.perf_counter()
            subprocess.run(cmd, env=env, stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL, check=True)
            times[name].append(time.perf_counter() - t0)
    med = {k: statistics.median(v) for k, v in times.items()}
    return [("`dpverify or --k 5` in a child process vs in-process", med["program"],
             med["in-process"])]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=9)
    ap.add_argument("--degree", type=int, default=20000)
    ap.add_argument("--no-write", action="store_true")
    args = ap.parse_args()
    rows = _poly_rows() + _shift_rows(args.degree) + _isolation_rows(args.repeat)
    lines = [SECTION, "", machine_line(), "",
             "Script: `benchmarks/limits.py`.  Each row: the limit's way, seconds; the "
             "baseline, seconds (same run); ratio.", "",
             "| case | s | baseline s | ratio |", "|---|---|---|---|"]
    for name, t, ref in rows:
        lines.append(f"| {name} | {t:.3f} | {ref:.3f} | {t / ref:.3g} |")
    text = "\n".join(lines) + "\n"
    print(text)
    print(json.dumps({name: round(t / ref, 4) for name, t, ref in rows}))
    if not args.no_write:
        write_section(SECTION, text)


if __name__ == "__main__":
    main()
