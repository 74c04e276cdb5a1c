"""CLI start-up against ``python -c pass`` measured in the same run.

    python benchmarks/cli_startup.py            # prints the table, updates docs/benchmarks.md
    python benchmarks/cli_startup.py --no-write

Each command runs ``--repeat`` times as a fresh process, the commands taking turns; the
figure is the median wall time.
``dpverify verify --help`` imports neither python-flint nor jsonschema.  ``dpverify verify
CERT`` must import python-flint (the verifier's arithmetic) and jsonschema (the schema check),
which together cost about 2x ``python -c pass``; its rows show that floor too
(``python -c "import flint, jsonschema"``).
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
TARGET = 2.0  # the target: within 2x of `python -c pass`


def walls(cmds: dict[str, list[str]], repeat: int) -> dict[str, float]:
    """Median wall time of each command; the commands take turns (one run of each per
    round), so a change in machine load during the run affects every row alike."""
    times: dict[str, list[float]] = {name: [] for name in cmds}
    for _ in range(repeat):
        for name, cmd in cmds.items():
            t0 = time.perf_counter()
            subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                           check=False)
            times[name].append(time.perf_counter() - t0)
    return {name: statistics.median(ts) for name, ts in times.items()}


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
        t = walls({"pass": [py, "-c", "pass"], "flint": [py, "-c", "import flint"],
                   "floor": [py, "-c", "import flint, jsonschema"],
                   "help": dp + ["--help"], "verify help": dp + ["verify", "--help"],
                   "verify": dp + ["verify", cert]}, args.repeat)
        base, flint, floor = t["pass"], t["flint"], t["floor"]
        rows = [
            ("dpverify --help", t["help"], base),
            ("dpverify verify --help", t["verify help"], base),
            ("dpverify verify OR k=10 cert", t["verify"], base),
            ("  same, against `import flint`", t["verify"], flint),
            ("  same, against `import flint, jsonschema`", t["verify"], floor),
        ]
    lines = [SECTION, "", machine_line(), "",
             f"Median of {args.repeat} fresh processes; `python -c pass` = {base * 1e3:.1f} ms, "
             f"`python -c \"import flint\"` = {flint * 1e3:.1f} ms, "
             f"`python -c \"import flint, jsonschema\"` = {floor * 1e3:.1f} ms (same run). Target: "
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
