"""OR/AND at scale from the CLI: wall time of

    dpverify or  --k 10000 --gamma 1e-12 --out FILE                  target < 2 s
    dpverify and --k 10000 --gamma 1e-12 --out FILE                  target < 2 s
    dpverify or  --k 400   --gamma 1e-12 --method minimax --out FILE target < 1 s

as ratios against those targets and against ``python -c pass`` measured in the same run,
plus ``dpverify verify`` on the k = 10^4 certificate (no target: the independent checker
evaluates the monomial form exactly at every point) and the in-process split of the
k = 10^4 run (build / certify / of which the finite-set maximum).

    python benchmarks/or_scale.py              # prints the table, updates docs/benchmarks.md
    python benchmarks/or_scale.py --no-write --repeat 3 --no-verify

Each command runs ``--repeat`` times as a fresh process; the figure is the median wall time
(``time.perf_counter`` around ``subprocess.run``); CPU seconds of the children
(``os.times``) are printed next to it, since the machine may be shared.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from _doc import machine_line, timed, write_section  # noqa: E402

SECTION = "## OR/AND at scale (CLI)"


def run(cmd: list[str], repeat: int) -> tuple[float, float, int]:
    """(median wall s, median child CPU s, last exit code) over ``repeat`` fresh processes."""
    walls, cpus, code = [], [], 0
    for _ in range(repeat):
        c0 = os.times()
        t0 = time.perf_counter()
        code = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                              check=False).returncode
        walls.append(time.perf_counter() - t0)
        c1 = os.times()
        cpus.append((c1.children_user - c0.children_user)
                    + (c1.children_system - c0.children_system))
    return statistics.median(walls), statistics.median(cpus), code


def split_k1e4() -> dict[str, float]:
    """In-process wall seconds of the k = 10^4 OR run: build, certify, finite maximum."""
    from dpverify.certify import certify
    from dpverify.certify.finite import finite_max_error
    from dpverify.constructions.chebyshev import or_polynomial

    a, build, _ = timed(or_polynomial, 10**4, "1e-12")
    _, cert, _ = timed(certify, a)
    _, fin, _ = timed(finite_max_error, a.poly, a.target, a.domain)
    return {"build": build, "certify": cert, "finite_max_error": fin}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--no-write", action="store_true")
    ap.add_argument("--no-verify", action="store_true", help="skip timing dpverify verify")
    args = ap.parse_args(argv)
    py = sys.executable
    dp = [py, "-m", "dpverify"]
    rows: list[tuple[str, float, float, float | None, int]] = []
    with tempfile.TemporaryDirectory() as tmp:
        base, base_cpu, _ = run([py, "-c", "pass"], args.repeat)
        cert = os.path.join(tmp, "or.json")
        cases = [
            ("dpverify or --k 10000 --gamma 1e-12 --out FILE",
             ["or", "--k", "10000", "--gamma", "1e-12", "--out", cert], 2.0),
            ("dpverify and --k 10000 --gamma 1e-12 --out FILE",
             ["and", "--k", "10000", "--gamma", "1e-12", "--out",
              os.path.join(tmp, "and.json")], 2.0),
            ("dpverify or --k 400 --gamma 1e-12 --method minimax --out FILE",
             ["or", "--k", "400", "--gamma", "1e-12", "--method", "minimax", "--out",
              os.path.join(tmp, "mm.json")], 1.0),
        ]
        for name, argv_, target in cases:
            w, c, code = run(dp + argv_, args.repeat)
            rows.append((name, w, c, target, code))
            print(f"{name}: {w:.3f} s wall (cpu {c:.3f}), exit {code}", flush=True)
        size = os.path.getsize(cert)
        if not args.no_verify:
            w, c, code = run(dp + ["verify", cert], 1)
            rows.append(("dpverify verify (the k = 10^4 OR certificate)", w, c, None, code))
            print(f"verify: {w:.3f} s wall (cpu {c:.3f}), exit {code}", flush=True)
    split = split_k1e4()
    print(json.dumps({k: round(v, 4) for k, v in split.items()}))

    lines = [SECTION, "", "Script: `benchmarks/or_scale.py` (every figure from the same run). "
             + machine_line(), "",
             f"Median of {args.repeat} fresh processes (verify: 1); `python -c pass` = "
             f"{base * 1e3:.1f} ms (cpu {base_cpu * 1e3:.1f} ms) in this run. Exit code 0 = "
             "certified (verify: HOLDS).", "",
             "| command | wall s | cpu s | / target | target | / `python -c pass` | exit |",
             "|---|---|---|---|---|---|---|"]
    for name, w, c, target, code in rows:
        tr = "-" if target is None else f"{w / target:.2f}"
        tg = "-" if target is None else f"< {target:g} s"
        lines.append(f"| `{name}` | {w:.3f} | {c:.3f} | {tr} | {tg} | {w / base:.1f} | {code} |")
    lines += ["",
              f"The k = 10^4 certificate is {size / 1e6:.1f} MB (1418 exact monomial "
              "coefficients). In process: build "
              f"{split['build']:.3f} s, certify {split['certify']:.3f} s, of which the exact "
              f"maximum on {{0..k}} (`finite_max_error`: ball screening of the 10001 points, "
              f"exact decision of the survivors) {split['finite_max_error']:.3f} s; the rest "
              "of certify is the exact coefficient norm (one common-denominator sum) and the "
              "decimal strings of the coefficients.", ""]
    text = "\n".join(lines) + "\n"
    print(text)
    if not args.no_write:
        write_section(SECTION, text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
