"""Whole-process time of small jobs against the import floor and against Sollya.

    python benchmarks/latency.py             # prints the table, updates docs/benchmarks.md
    python benchmarks/latency.py --no-write --repeat 9

Each command runs ``--repeat`` times as a fresh process, the commands taking turns (a change
of machine load during the run touches every row alike); the figure is the median wall
time.  Baselines measured in the same run:

* ``python -c pass`` -- the interpreter alone (target: ``dpverify --help`` <= 2x);
* the import floor ``python -c "import numpy, flint, mpmath"`` -- the libraries a
  certifying command may need (targets: the README's supnorm job <= 1.5x, ``dpverify
  minimax --f "log(x)" --degree 10 --interval 1 2`` <= 2x);
* compiled bytecode as a user has it from the second run on: the commands run with
  ``PYTHONDONTWRITEBYTECODE`` removed from the environment, after one untimed round (the
  first run after an install compiles dpverify's modules: about 0.1 s more, once);
* Sollya (``/usr/bin/sollya``, when installed) on the same jobs: ``supnorm`` of the same
  polynomial, and ``remez`` + ``supnorm`` for the minimax job, at relative accuracy
  ``2^-20`` (about the ``1e-6`` of dpverify's default rtol).  Sollya certifies the
  sup-norm but writes no certificate and has no independent checker.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from _doc import machine_line, write_section  # noqa: E402

SECTION = "## Latency of small jobs"
EXP8 = "1,1,1/2,1/6,1/24,1/120,1/720,1/5040,1/40320"
SOLLYA_SUPNORM = ("p = 1 + x + x^2/2 + x^3/6 + x^4/24 + x^5/120 + x^6/720 + x^7/5040 "
                  "+ x^8/40320;\nsupnorm(p, exp(x), [-1;1], absolute, 2^-20);\nquit;\n")
SOLLYA_MINIMAX = ("p = remez(log(x), 10, [1;2]);\n"
                  "supnorm(p, log(x), [1;2], absolute, 2^-20);\nquit;\n")


def walls(cmds: dict[str, tuple[list[str], str | None]], repeat: int) -> dict[str, float]:
    """Median wall time of each command (argv, standard input); the commands take turns,
    after one untimed round that writes the bytecode caches."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    times: dict[str, list[float]] = {name: [] for name in cmds}
    for round_ in range(repeat + 1):
        for name, (cmd, stdin) in cmds.items():
            t0 = time.perf_counter()
            res = subprocess.run(cmd, input=stdin, text=True, stdout=subprocess.DEVNULL,
                                 stderr=subprocess.PIPE, check=False, env=env)
            if round_:
                times[name].append(time.perf_counter() - t0)
            if res.returncode != 0:
                raise SystemExit(f"{name} failed ({res.returncode}): {res.stderr[-500:]}")
    return {name: statistics.median(ts) for name, ts in times.items()}


def dpverify_argv() -> list[str]:
    """The ``dpverify`` program of this interpreter's environment (what a user runs)."""
    script = os.path.join(os.path.dirname(sys.executable), "dpverify")
    return [script] if os.access(script, os.X_OK) else [sys.executable, "-m", "dpverify"]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=15)
    ap.add_argument("--no-write", action="store_true")
    args = ap.parse_args()
    py, dp = sys.executable, dpverify_argv()
    sollya = shutil.which("sollya")
    with tempfile.TemporaryDirectory() as tmp:
        cert = os.path.join(tmp, "cert.json")
        cmds: dict[str, tuple[list[str], str | None]] = {
            "pass": ([py, "-c", "pass"], None),
            "floor": ([py, "-c", "import numpy, flint, mpmath"], None),
            "api": ([py, "-c", "import dpverify.api"], None),
            "help": (dp + ["--help"], None),
            "supnorm": (dp + ["supnorm", "--f", "exp(x)", "--poly", EXP8, "--interval", "-1",
                              "1", "--rtol", "1e-6", "--out", cert], None),
            "minimax": (dp + ["minimax", "--f", "log(x)", "--degree", "10", "--interval",
                              "1", "2"], None),
            "verify": (dp + ["verify", cert], None),
        }
        if sollya:
            cmds["sollya supnorm"] = ([sollya, "--warnonstderr"], SOLLYA_SUPNORM)
            cmds["sollya minimax"] = ([sollya, "--warnonstderr"], SOLLYA_MINIMAX)
        subprocess.run(cmds["supnorm"][0], stdout=subprocess.DEVNULL, check=True)  # cert
        t = walls(cmds, args.repeat)
    base, floor = t["pass"], t["floor"]
    rows = [
        ("`python -c pass`", "pass", None, None),
        ("import floor `python -c \"import numpy, flint, mpmath\"`", "floor", None, None),
        ("`python -c \"import dpverify.api\"`", "api", floor, None),
        ("`dpverify --help`", "help", base, 2.0),
        ("README supnorm job (exp, degree 8, [-1, 1], rtol 1e-6, --out)", "supnorm", floor,
         1.5),
        ("`dpverify minimax --f \"log(x)\" --degree 10 --interval 1 2`", "minimax", floor,
         2.0),
        ("`dpverify verify` of the supnorm certificate", "verify", floor, None),
    ]
    lines = [SECTION, "", machine_line(), "",
             f"Median of {args.repeat} fresh processes, the commands taking turns "
             "(`benchmarks/latency.py`). Ratios are to the baseline measured in the same run: "
             "`dpverify --help` to `python -c pass`, the jobs to the import floor; targets "
             "from the newcomer issue. Timings on a shared machine are provisional; the "
             "ratios are what the targets compare.", "",
             "| command | ms | baseline | ratio | target | met |", "|---|---|---|---|---|---|"]
    for label, key, ref, target in rows:
        ms = t[key] * 1e3
        if ref is None:
            lines.append(f"| {label} | {ms:.1f} | - | - | - | - |")
            continue
        ratio = t[key] / ref
        which = "pass" if ref is base else "floor"
        tgt = "-" if target is None else f"<= {target:g}x"
        met = "-" if target is None else ("yes" if ratio <= target else "no")
        lines.append(f"| {label} | {ms:.1f} | {which} | {ratio:.2f} | {tgt} | {met} |")
    if sollya:
        lines += ["", "Against Sollya on the same jobs (whole process; Sollya's `supnorm` at "
                  "relative accuracy 2^-20; the minimax job is `remez` + `supnorm`):", "",
                  "| job | dpverify ms | Sollya ms | dpverify / Sollya |", "|---|---|---|---|"]
        for label, ours, theirs in (("supnorm, exp degree 8", "supnorm", "sollya supnorm"),
                                    ("minimax, log(x) degree 10 on [1, 2]", "minimax",
                                     "sollya minimax")):
            lines.append(f"| {label} | {t[ours] * 1e3:.1f} | {t[theirs] * 1e3:.1f} | "
                         f"{t[ours] / t[theirs]:.1f} |")
    text = "\n".join(lines) + "\n"
    print(text)
    if not args.no_write:
        write_section(SECTION, text)


if __name__ == "__main__":
    main()
