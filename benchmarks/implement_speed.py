"""``dpverify implement``: whole-process time of the issue's cases (exp on [-ln2/2, ln2/2]
at 1 ulp, binary32 and binary64, fma Horner; cos with even powers), each against the start-up
of ``python -c "import numpy, flint, mpmath"`` measured in the same run; the least degree,
the certified ulps, the check of the generated code, and ``dpverify verify`` on each
certificate.  ``--exhaustive`` also checks the binary32 exp code at every one of the
~2.1e9 floats of the interval (check_implementation, long: tens of minutes).

Run: python benchmarks/implement_speed.py [--exhaustive]
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

CASES = [
    ("exp b32 1ulp", ["--f", "exp(x)", "--interval", "-0.3466", "0.3466", "--format",
                      "binary32", "--target-ulps", "1", "--scheme", "horner-fma", "--fix",
                      "0=1"]),
    ("exp b64 1ulp", ["--f", "exp(x)", "--interval", "-0.3466", "0.3466", "--format",
                      "binary64", "--target-ulps", "1", "--scheme", "horner-fma", "--fix",
                      "0=1"]),
    ("cos even b32 1ulp", ["--f", "cos(x)", "--interval", "-pi/4", "pi/4", "--format",
                           "binary32", "--target-ulps", "1", "--scheme", "horner-fma",
                           "--parity", "even"]),
]


def timed(argv: list[str]) -> tuple[float, subprocess.CompletedProcess[str]]:
    t = time.perf_counter()
    res = subprocess.run(argv, capture_output=True, text=True)
    return time.perf_counter() - t, res


def main() -> int:
    base, _ = timed([sys.executable, "-c", "import numpy, flint, mpmath"])
    print(f"baseline python -c 'import numpy, flint, mpmath': {base:.2f} s")
    print(f"{'case':20} {'degree':>6} {'cert ulps':>10} {'check worst':>12} {'points':>9} "
          f"{'seconds':>8} {'ratio':>7} verify")
    tmp = Path(tempfile.mkdtemp())
    for name, args in CASES:
        out = tmp / f"{name.replace(' ', '_')}.json"
        sec, res = timed([sys.executable, "-m", "dpverify", "implement", *args, "--emit",
                          str(tmp), "--name", name.split()[0] + "_" + name.split()[1],
                          "--out", str(out)])
        if res.returncode != 0:
            print(f"{name:20} failed: {res.stderr.strip().splitlines()[-1:]}")
            continue
        doc = json.loads(out.read_text())
        info = doc["info"]["implement"]
        chk = info["check"]
        v = subprocess.run([sys.executable, "-m", "dpverify", "verify", str(out)],
                           capture_output=True, text=True)
        deg = len(doc["statement"]["polynomial"]["coefficients"]) - 1
        bound = eval_q(doc["statement"]["bound"])
        last = v.stdout.strip().splitlines()[-1] if v.stdout.strip() else str(v.returncode)
        print(f"{name:20} {deg:>6} {bound:>10.6f} {chk.get('worst_ulps', '-'):>12} "
              f"{chk.get('points', '-'):>9} {sec:>8.2f} {sec / base:>7.1f} {last}")
    if "--exhaustive" in sys.argv:
        sec, res = timed([sys.executable, "-m", "dpverify", "implement", *CASES[0][1],
                          "--check", "all"])
        print(f"exhaustive check of exp b32 ({sec:.0f} s):")
        print("\n".join(line for line in res.stdout.splitlines()
                        if line.startswith(("check of", "total error"))))
    return 0


def eval_q(text: str) -> float:
    """An exact fraction "p/q" of a statement as a float (display only)."""
    p, _, q = text.partition("/")
    return int(p) / int(q or 1)


if __name__ == "__main__":
    sys.exit(main())
