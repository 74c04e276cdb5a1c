"""CLI start-up against ``python -c pass`` measured in the same run (issue 15 item 2).

    python benchmarks/cli_startup.py            # prints the table, updates docs/benchmarks.md
    python benchmarks/cli_startup.py --no-write

Each command runs ``--repeat`` times as a fresh process; the figure is the median wall time.
``dpverify verify CERT`` must import python-flint (the verifier's arithmetic), which alone costs
about 2x ``python -c pass``; its row shows that floor too (``python -c "import flint"``).
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

from _doc import machine_line, write_section  # noqa: E402

SECTION = "## CLI start-up"
TARGET = 2.0  # issue 15: within 2x of `python -c pass`


def wall(cmd: list[str], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=15)
    ap.add_argument("--no-write", action="store_true")
    args = ap.parse_args()
    py = sys.executable
    dp = [py, "-m", "dpverify"]
    with tempfile.TemporaryDirectory() as tmp:
        cert = os.path.join(tmp, "or.json")
        subprocess.run(dp + ["or", "--k", "10", "--gamma", "1/100", "--out", cert],
                       stdout=subprocess.DEVNULL, check=True)
        base = wall([py, "-c", "pass"], args.repeat)
        flint = wall([py, "-c", "import flint"], args.repeat)
        rows = [
            ("dpverify --help", wall(dp + ["--help"], args.repeat), base),
            ("dpverify verify --help", wall(dp + ["verify", "--help"], args.repeat), base),
            ("dpverify verify OR k=10 cert", wall(dp + ["verify", cert], args.repeat), base),
            ("  same, against `import flint`", wall(dp + ["verify", cert], args.repeat), flint),
        ]
    lines = [SECTION, "", machine_line(), "",
             f"Median of {args.repeat} fresh processes; `python -c pass` = {base * 1e3:.1f} ms, "
             f"`python -c \"import flint\"` = {flint * 1e3:.1f} ms (same run). Target: "
             f"<= {TARGET:g}x `python -c pass`.", "",
             "| command | ms | ratio to baseline | target met |", "|---|---|---|---|"]
    for name, t, ref in rows:
        ratio = t / ref
        met = "yes" if ratio <= TARGET else "no"
        lines.append(f"| {name} | {t * 1e3:.1f} | {ratio:.2f} | {met} |")
    text = "\n".join(lines) + "\n"
    print(text)
    print(json.dumps({name: round(t / ref, 3) for name, t, ref in rows}))
    if not args.no_write:
        write_section(SECTION, text)


if __name__ == "__main__":
    main()
