#!/usr/bin/env python3
"""dpverify fpminimax against Sollya 8.0's fpminimax, side by side, on the same problems.

For every case (a function, an interval with dyadic ends so that both tools see exactly the
same set, a family of powers, binary64 or binary32 coefficients, absolute or relative
error):

* Sollya: ``p = fpminimax(f, monomials, [|D...|] or [|SG...|], [a; b], absolute|relative)``
  then ``supnorm(p, f, [a; b], absolute|relative, 2^-30)``: the error of Sollya's machine
  polynomial (the upper end of its certified enclosure);
* dpverify: ``dpverify.fpminimax(...)``: the certified upper bound of the error of its own
  machine polynomial (kind ``supnorm-box``), the certified bracket of the best real error
  (kind ``minimax``), and both certificates re-checked by ``dpverify verify``.

Targets: dpverify's certified error <= 1.05 x Sollya's on every case, equal or better
(<= 1.0001 x) on most; total wall time of the whole dpverify process (search + both
certificates, every case) <= 3 x the whole Sollya process (fpminimax + supnorm, every
case), the two processes started by this script in the same run; HOLDS on every
certificate.

Usage: ``python benchmarks/fpminimax_vs_sollya.py [--no-write] [--quick]`` (about a
minute; writes its own section of docs/benchmarks.md; needs ``/usr/bin/sollya``).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from _doc import machine_line, write_section  # noqa: E402

SECTION = "## fpminimax against Sollya"

# (name, f for both tools, interval (dyadic), monomials "dense"|"odd"|"even", degree,
#  format, error, fixed p(0) = 1)
CASES = [
    ("exp", "exp(x)", ("-11/32", "11/32"), "dense", 7, "binary64", "relative", False),
    ("exp", "exp(x)", ("-11/32", "11/32"), "dense", 12, "binary64", "relative", False),
    ("exp", "exp(x)", ("-11/32", "11/32"), "dense", 5, "binary32", "relative", False),
    ("exp", "exp(x)", ("-11/32", "11/32"), "dense", 8, "binary32", "relative", False),
    ("exp", "exp(x)", ("-1/4", "1/4"), "dense", 10, "binary64", "absolute", False),
    ("exp p(0)=1", "exp(x)", ("-11/32", "11/32"), "dense", 9, "binary64", "relative", True),
    ("log1p", "log1p(x)", ("-1/4", "1/4"), "dense", 10, "binary64", "absolute", False),
    ("log1p", "log1p(x)", ("-1/4", "1/4"), "dense", 6, "binary32", "absolute", False),
    ("log1p", "log1p(x)", ("1/32", "1/4"), "dense", 8, "binary64", "relative", False),
    ("sin odd", "sin(x)", ("-25/32", "25/32"), "odd", 11, "binary64", "absolute", False),
    ("sin odd", "sin(x)", ("-25/32", "25/32"), "odd", 7, "binary32", "absolute", False),
    ("sin odd", "sin(x)", ("1/16", "25/32"), "odd", 9, "binary64", "relative", False),
    ("cos even", "cos(x)", ("-25/32", "25/32"), "even", 12, "binary64", "relative", False),
    ("cos even", "cos(x)", ("-25/32", "25/32"), "even", 8, "binary32", "relative", False),
    ("cos even", "cos(x)", ("-25/32", "25/32"), "even", 10, "binary64", "absolute", False),
    ("tan odd", "tan(x)", ("-3/8", "3/8"), "odd", 11, "binary64", "absolute", False),
    ("tan odd", "tan(x)", ("-3/8", "3/8"), "odd", 9, "binary32", "absolute", False),
    ("tan", "tan(x)", ("1/16", "3/8"), "dense", 8, "binary64", "relative", False),
    ("2^x", "2^x", ("-1/2", "1/2"), "dense", 10, "binary64", "relative", False),
    ("2^x", "2^x", ("-1/2", "1/2"), "dense", 6, "binary32", "relative", False),
    ("2^x", "2^x", ("0", "1"), "dense", 12, "binary64", "absolute", False),
    ("erf odd", "erf(x)", ("-1", "1"), "odd", 11, "binary64", "absolute", False),
    ("erf odd", "erf(x)", ("-1", "1"), "odd", 9, "binary32", "absolute", False),
    ("erf", "erf(x)", ("1/8", "1"), "dense", 9, "binary64", "relative", False),
    ("atan odd", "atan(x)", ("-1/2", "1/2"), "odd", 11, "binary64", "absolute", False),
    ("atan odd", "atan(x)", ("-1/2", "1/2"), "odd", 7, "binary32", "absolute", False),
    ("atan odd", "atan(x)", ("1/16", "1/2"), "odd", 9, "binary64", "relative", False),
    ("atan", "atan(x)", ("-1/2", "1/2"), "dense", 5, "binary64", "absolute", False),
]


def _powers(c: tuple) -> list[int]:
    _, _, _, mon, n, _, _, fixed = c
    if mon == "odd":
        return list(range(1, n + 1, 2))
    if mon == "even":
        return list(range(2 if fixed else 0, n + 1, 2))
    return list(range(1 if fixed else 0, n + 1))


def sollya_script(cases: list[tuple]) -> str:
    out = ["prec = 165;", "display = decimal;"]
    for i, c in enumerate(cases):
        _, f, (a, b), _, _, fmt, err, fixed = c
        mons = "[|" + ",".join(map(str, _powers(c))) + "|]"
        fm = "[|D...|]" if fmt == "binary64" else "[|SG...|]"
        cons = ", floating, 1" if fixed else ""
        out.append(f"p = fpminimax({f}, {mons}, {fm}, [{a}; {b}], {err}{cons});")
        out.append(f"s = supnorm(p, {f}, [{a}; {b}], {err}, 2^-30);")
        out.append(f'print("CASE {i}", sup(s));')
    return "\n".join(out) + "\n"


DP_RUNNER = r'''
import json, sys, time
import dpverify
cases = json.loads(sys.argv[1])
out = []
for c in cases:
    name, f, iv, mon, n, fmt, err, fixed = c
    t = time.perf_counter()
    r = dpverify.fpminimax(f, n, tuple(iv), format=fmt, relative=err == "relative",
                           monomials=None if mon == "dense" else mon,
                           fix={0: 1} if fixed else None, rtol="1e-6")
    dt = time.perf_counter() - t
    out.append({"error": str(float(r.error)), "real_lower": str(float(r.real_lower)),
                "seconds": dt, "stats": r.stats,
                "cert": r.certificate.data, "minimax": r.minimax.data})
print(json.dumps(out))
'''


def run(cases: list[tuple], sollya: str) -> dict:
    t0 = time.perf_counter()
    so = subprocess.run([sollya], input=sollya_script(cases), capture_output=True, text=True,
                        timeout=3600)
    t_sollya = time.perf_counter() - t0
    theirs: dict[int, float] = {}
    for line in so.stdout.splitlines():
        if line.startswith("CASE "):
            _, i, v = line.split()
            try:
                theirs[int(i)] = float(v)
            except ValueError:  # Sollya printed "error": its fpminimax failed on this case
                pass
    t0 = time.perf_counter()
    dp = subprocess.run([sys.executable, "-c", DP_RUNNER, json.dumps(cases)],
                        capture_output=True, text=True, timeout=3600)
    t_dp = time.perf_counter() - t0
    if dp.returncode != 0:
        raise SystemExit(dp.stderr)
    ours = json.loads(dp.stdout)
    from dpverify.verify import verify_document

    holds, t_verify = 0, 0.0
    for r in ours:
        for doc in (r["cert"], r["minimax"]):
            t = time.perf_counter()
            holds += verify_document(doc).status == "holds"
            t_verify += time.perf_counter() - t
    return {"theirs": theirs, "ours": ours, "t_sollya": t_sollya, "t_dp": t_dp,
            "holds": holds, "t_verify": t_verify, "sollya_stderr": so.stderr[-2000:]}


def table(cases: list[tuple], res: dict) -> tuple[str, dict]:
    rows = ["| case | interval | powers | format | error | Sollya (supnorm) | dpverify "
            "(certified) | ratio | best real >= | dpverify s |",
            "|---|---|---|---|---|---|---|---|---|---|"]
    ratios = []
    for i, (c, r) in enumerate(zip(cases, res["ours"])):
        name, _, (a, b), mon, n, fmt, err, fixed = c
        so = res["theirs"].get(i)
        ours = float(r["error"])
        ratio = ours / so if so else float("nan")
        ratios.append(ratio)
        pw = {"dense": f"0..{n}", "odd": f"odd <= {n}", "even": f"even <= {n}"}[mon]
        if fixed:
            pw += ", p(0)=1"
        rows.append(f"| {name} | [{a}, {b}] | {pw} | {fmt} | {err} | "
                    f"{so:.6g} | {ours:.6g} | {ratio:.5f} | {float(r['real_lower']):.6g} | "
                    f"{r['seconds']:.2f} |" if so else
                    f"| {name} | [{a}, {b}] | {pw} | {fmt} | {err} | (Sollya failed) | "
                    f"{ours:.6g} | - | {float(r['real_lower']):.6g} | {r['seconds']:.2f} |")
    good = [x for x in ratios if x == x]
    summary = {"cases": len(cases), "compared": len(good),
               "worst": max(good) if good else float("nan"),
               "within_1.05": sum(x <= 1.05 for x in good),
               "equal_or_better": sum(x <= 1.0001 for x in good),
               "better": sum(x < 0.9999 for x in good),
               "time_ratio": res["t_dp"] / res["t_sollya"]}
    return "\n".join(rows), summary


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--no-write", action="store_true", help="print only")
    ap.add_argument("--quick", action="store_true", help="the first 6 cases")
    args = ap.parse_args()
    sollya = shutil.which("sollya")
    if sollya is None:
        print("sollya is not installed (apt-get install -y sollya): nothing to compare")
        return
    cases = CASES[:6] if args.quick else CASES
    res = run(cases, sollya)
    tab, s = table(cases, res)
    print(tab)
    n = len(cases)
    lines = [
        f"- error: dpverify's certified error <= 1.05 x Sollya's on {s['within_1.05']} of "
        f"the {s['compared']} cases where Sollya's fpminimax returned a polynomial (of {n}; "
        f"worst ratio {s['worst']:.6f}); equal or better (<= 1.0001 x) on "
        f"{s['equal_or_better']}, strictly better (< 0.9999 x) on {s['better']}.",
        f"- time, whole processes in this run: Sollya {res['t_sollya']:.2f} s (fpminimax + "
        f"supnorm, {n} cases), dpverify {res['t_dp']:.2f} s (search, real bracket and "
        f"machine certificate, {n} cases, Python start-up included): ratio "
        f"{s['time_ratio']:.2f} (target <= 3; provisional under contention).",
        f"- dpverify verify: HOLDS on {res['holds']} of {2 * n} certificates (both per case), "
        f"{res['t_verify']:.2f} s in all.",
    ]
    print("\n".join(lines))
    if args.no_write:
        return
    text = "\n".join([
        SECTION, "",
        "Written by `python3 benchmarks/fpminimax_vs_sollya.py`: the same problems (dyadic "
        "interval ends, the same family of powers, binary64 `D` or binary32 `SG` "
        "coefficients, absolute or relative error) given to Sollya 8.0 (`fpminimax`, then "
        "`supnorm` of its polynomial at accuracy 2^-30) and to `dpverify.fpminimax` (its "
        "own machine polynomial's error certified, kind `supnorm-box`; the best real "
        "error's bracket, kind `minimax`). Relative error is only asked where `f` does "
        "not vanish on the interval (dpverify refuses it there). Ratio = dpverify / "
        "Sollya. \"Sollya failed\": Sollya's `fpminimax` printed `Error in Remez: the "
        "algorithm does not converge` after `degenerated system in a non Haar context` "
        "(odd or even powers on an interval symmetric about 0, where those powers are "
        "not a Haar space; dpverify reduces such a family to a dense one in `x^2`, "
        "docs/minimax.md).", "", machine_line(), "", *lines, "", tab, ""])
    write_section(SECTION, text)


if __name__ == "__main__":
    main()
