"""Round-off bounds of the 20 FPBench programs of FPTaylor's test suite: dpverify against
FPTaylor's published bounds and Gappa with FPTaylor's bisection hints, side by side.

For each program (benchmarks/roundoff_programs.py, FPTaylor's semantics), binary64 and
binary32:

* dpverify: :func:`dpverify.certify.roundoff.program_bound` (default rtol 1e-2), its time, the
  independent check (``dpverify verify``) and its time;
* FPTaylor: the ``upper-bound`` of FPTaylor's ``tests/core/_tests.yml`` (binary64 only;
  commit in roundoff_programs.COMMIT);
* Gappa (``/usr/bin/gappa``, when installed): a script generated from the same program
  (inputs ``rnd(M)``, every operation and literal rounded) with the bisection hints of
  FPTaylor's ``benchmarks/toplas/Gappa/<name>-hints.g``, its bound and time;
* sampled: the largest error found at ``--samples`` inputs (default 10^5) per program,
  the float program emulated in numpy (float64 / float32: each operation one IEEE
  rounding) on exactly rounded inputs, the exact value in rational arithmetic; it must
  never exceed the certified bound (the script exits 1 if it does).

Timings are wall-clock on this machine in one run (under contention they are
provisional).  Usage: ``python benchmarks/roundoff_fpbench.py [--samples N] [--no-gappa]
[--formats binary64,binary32] [NAME ...]``.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from fractions import Fraction

import numpy as np
from flint import fmpq

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from roundoff_programs import FPTAYLOR, GAPPA_HINTS, PROGRAMS  # noqa: E402

from dpverify.certify.fpformat import read_format  # noqa: E402
from dpverify.certify.roundoff import program_bound  # noqa: E402
from dpverify.expr.program import Program, parse_program  # noqa: E402

_NP = {"binary64": np.float64, "binary32": np.float32}


def _program(name: str) -> tuple[Program, dict[str, tuple[str, str]], bool]:
    vs, text, rounded = PROGRAMS[name]
    ranges = {v.split()[0]: (v.split()[1], v.split()[2]) for v in vs}
    return parse_program(text, list(ranges), name), ranges, rounded


# ------------------------------------------------------------------------- sampling
def _inputs(lo: fmpq, hi: fmpq, n: int, rng: np.random.Generator, rounded: bool,
            fmt: str) -> list[fmpq]:
    """``n`` inputs: exact rationals (80-bit grid) for rounded reals, floats otherwise;
    the ends included."""
    if lo == hi:
        return [lo] * n
    ks = rng.integers(0, 2**62, size=n, dtype=np.int64)
    out = [lo + (hi - lo) * fmpq(int(k), 2**62) for k in ks]
    out[0], out[-1] = lo, hi
    if not rounded:
        f = read_format(fmt)
        out = [min(max(f.nearest(x), f.ceil(lo)), f.floor(hi)) for x in out]
    return out


def _float_value(prog: Program, cols: list[np.ndarray], dtype: type) -> np.ndarray:
    vals: list[np.ndarray] = []
    n = len(cols[0])
    f = read_format("binary64" if dtype is np.float64 else "binary32")
    for op in prog.ops:
        a = [vals[j] for j in op.args]
        if op.kind == "var":
            vals.append(cols[prog.variables.index(op.name)])
        elif op.kind == "const":
            hat = f.nearest(op.value)
            vals.append(np.full(n, dtype(Fraction(int(hat.p), int(hat.q))), dtype=dtype))
        elif op.kind == "neg":
            vals.append(-a[0])
        elif op.kind == "abs":
            vals.append(np.abs(a[0]))
        elif op.kind == "add":
            vals.append(a[0] + a[1])
        elif op.kind == "sub":
            vals.append(a[0] - a[1])
        elif op.kind == "mul":
            vals.append(a[0] * a[1])
        elif op.kind == "div":
            vals.append(a[0] / a[1])
        elif op.kind == "sqrt":
            vals.append(np.sqrt(a[0]))
        else:
            raise ValueError(f"cannot emulate {op.kind}")
    return vals[prog.output]


def _exact_value(prog: Program, x: list[fmpq]) -> fmpq:
    vals: list[fmpq] = []
    for op in prog.ops:
        a = [vals[j] for j in op.args]
        k = op.kind
        vals.append(x[prog.variables.index(op.name)] if k == "var" else op.value
                    if k == "const" else -a[0] if k == "neg" else abs(a[0]) if k == "abs"
                    else a[0] + a[1] if k == "add" else a[0] - a[1] if k == "sub"
                    else a[0] * a[1] if k == "mul" else a[0] / a[1])
    return vals[prog.output]


def sampled_max(name: str, fmt: str, n: int, seed: int = 1) -> tuple[fmpq, list[fmpq]]:
    """The largest error found at ``n`` inputs, and where."""
    prog, ranges, rounded = _program(name)
    f = read_format(fmt)
    rng = np.random.default_rng(seed)
    xs = [_inputs(fmpq(*_q(lo)), fmpq(*_q(hi)), n, rng, rounded, fmt)
          for lo, hi in ranges.values()]
    dtype = _NP[fmt]
    cols = []
    for col in xs:
        hats = [f.nearest(x) for x in col]
        cols.append(np.array([dtype(Fraction(int(h.p), int(h.q))) for h in hats], dtype=dtype))
    with np.errstate(all="ignore"):
        fl = _float_value(prog, cols, dtype)
    worst, where = fmpq(0), []
    for i in range(n):
        point = [col[i] for col in xs]
        got = fmpq(*[int(t) for t in float(fl[i]).as_integer_ratio()])
        err = abs(got - _exact_value(prog, point))
        if err > worst:
            worst, where = err, point
    return worst, where


def _q(text: str) -> tuple[int, int]:
    fr = Fraction(text)
    return fr.numerator, fr.denominator


# ---------------------------------------------------------------------------- Gappa
def gappa_script(name: str, fmt: str) -> str:
    prog, ranges, rounded = _program(name)
    f = read_format(fmt)
    lines = [f"@rnd = float<ieee_{64 if fmt == 'binary64' else 32},ne>;"]
    fl, ex = {}, {}
    for k, op in enumerate(prog.ops):
        a = op.args
        if op.kind == "var":
            lines.append(f"f{k} = rnd(M{op.name});")
            fl[k], ex[k] = f"f{k}", f"M{op.name}" if rounded else f"f{k}"
            continue
        if op.kind == "const":
            lit = f"({op.value.p}/{op.value.q})" if op.value.q != 1 else str(op.value.p)
            fl[k] = lit if f.is_member(op.value) else f"rnd{lit}" if lit[0] == "(" else \
                f"rnd({lit})"
            ex[k] = lit
            continue
        sym = {"add": "+", "sub": "-", "mul": "*", "div": "/"}
        if op.kind == "neg":
            lines.append(f"f{k} = -{fl[a[0]]};")
            lines.append(f"m{k} = -{ex[a[0]]};")
        elif op.kind in sym:
            s = sym[op.kind]
            lines.append(f"f{k} = rnd({fl[a[0]]} {s} {fl[a[1]]});")
            lines.append(f"m{k} = {ex[a[0]]} {s} {ex[a[1]]};")
        elif op.kind == "sqrt":
            lines.append(f"f{k} = rnd(sqrt({fl[a[0]]}));")
            lines.append(f"m{k} = sqrt({ex[a[0]]});")
        else:
            raise ValueError(f"no Gappa form for {op.kind}")
        fl[k], ex[k] = f"f{k}", f"m{k}"
    hyp = " /\\ ".join(f"M{v} in [{lo}, {hi}]" for v, (lo, hi) in ranges.items())
    lines.append(f"{{ {hyp} -> |{fl[prog.output]} - {ex[prog.output]}| in ? }}")
    lines += GAPPA_HINTS.get(name, [])
    return "\n".join(lines) + "\n"


def run_gappa(name: str, fmt: str, timeout: float) -> tuple[fmpq | None, float, str]:
    """(Gappa's exact upper bound, seconds, note)."""
    with tempfile.NamedTemporaryFile("w", suffix=".g", delete=False) as fh:
        fh.write(gappa_script(name, fmt))
        path = fh.name
    t0 = time.perf_counter()
    try:
        out = subprocess.run(["gappa", path], capture_output=True, text=True,
                             timeout=timeout)
    except subprocess.TimeoutExpired:
        return None, time.perf_counter() - t0, f"timeout {timeout:g}s"
    finally:
        os.unlink(path)
    dt = time.perf_counter() - t0
    text = out.stdout + out.stderr
    # the exact upper bound, written "MbE" (M 2^E) or as a decimal, before the "{...}"
    m = re.search(r"in \[[^,]*, ([-+0-9.eEb]+) \{", text)
    if not m:
        return None, dt, "no result"
    up = m.group(1)
    if "b" in up:
        man, exp = up.split("b")
        return fmpq(int(man)) * fmpq(2) ** int(exp) if int(exp) >= 0 else \
            fmpq(int(man), 2 ** -int(exp)), dt, ""
    return fmpq(*_q(up)), dt, ""


# ----------------------------------------------------------------------------- table
def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("names", nargs="*")
    ap.add_argument("--samples", type=int, default=100_000)
    ap.add_argument("--no-gappa", action="store_true")
    ap.add_argument("--gappa-timeout", type=float, default=600)
    ap.add_argument("--formats", default="binary64,binary32")
    args = ap.parse_args()
    names = args.names or list(PROGRAMS)
    gappa = not args.no_gappa and shutil.which("gappa") is not None
    bad = 0
    for fmt in args.formats.split(","):
        print(f"\n## {fmt}\n")
        print("| benchmark | dpverify bound | s | verify s | FPTaylor | ratio | Gappa (hints) "
              "| Gappa s | sampled max | bound / sampled |")
        print("|---|---|---|---|---|---|---|---|---|---|")
        below = total = gbelow = gtotal = 0
        for name in names:
            prog, ranges, rounded = _program(name)
            t0 = time.perf_counter()
            r = program_bound(prog, ranges, format=fmt, round_inputs=rounded)
            dt = time.perf_counter() - t0
            t1 = time.perf_counter()
            status = r.certificate().check().status
            vt = time.perf_counter() - t1
            if status != "holds":
                bad += 1
            bound = float(r.bound)
            fpt = ratio = "-"
            if fmt == "binary64" and name in FPTAYLOR:
                q = fmpq(*_q(FPTAYLOR[name]))
                fpt, ratio = FPTAYLOR[name], f"{float(r.bound / q):.3f}"
                total += 1
                below += r.bound <= q
            g, gt, note = (run_gappa(name, fmt, args.gappa_timeout) if gappa
                           else (None, 0.0, "not run"))
            gs = f"{float(g):.5g}" if g is not None else note
            if g is not None:
                gtotal += 1
                gbelow += r.bound <= g
            obs, _ = sampled_max(name, fmt, args.samples) if args.samples else (fmpq(0), [])
            if obs > r.bound:
                bad += 1
            rs = f"{float(r.bound / obs):.2f}" if obs else "-"
            print(f"| {name} | {bound:.5g} | {dt:.2f} | {vt:.2f} ({status}) | {fpt} | {ratio} "
                  f"| {gs} | {gt:.1f} | {float(obs):.3e} | {rs} |", flush=True)
        if total:
            print(f"\n{fmt}: dpverify <= FPTaylor on {below} of {total}")
        if gtotal:
            print(f"{fmt}: dpverify <= Gappa on {gbelow} of {gtotal}")
    print(f"\nproblems (not HOLDS, or a sampled error above the bound): {bad}")
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
