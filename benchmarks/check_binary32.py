"""Benchmark: every binary32 input of numpy's float32 exp, log, sin, cos, tanh, expm1, log1p
and exp2, checked against rigorous references (``check_implementation(...,
exhaustive=True)``), on all cores and on a Dask LocalCluster, against the naive rigorous
checker (arb per input, exact rounding) measured in the same run.

Target: the whole binary32 line of one function in < 10 min on a 2-core machine, and the
same report on Dask.

Modes:

* default (``--full``): the whole line of each function with every core (forked local
  workers), then the first function again on a Dask LocalCluster (one worker per core):
  worst error and input, inputs over 1 ulp, incorrectly rounded inputs, the properties,
  seconds; the reports of the two backends compared field by field;
* ``--slice K``: every K-th task of the whole-line plan (2^21 inputs each) per function,
  the time extrapolated to the whole line (provisional figures on a busy machine; the
  worst errors are those of the slice only).

Run: ``python benchmarks/check_binary32.py`` (about 8 x 5 minutes on 2 quiet cores, plus
Dask); ``--slice 64`` for a quick run.  Rewrites its section of docs/benchmarks.md
(``--no-write`` to only print).
"""

from __future__ import annotations

import argparse
import os
import resource
import sys
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from _doc import machine_line, write_section  # noqa: E402
from flint import arb, ctx, fmpq  # noqa: E402

import dpverify.testing.check as check_mod  # noqa: E402
from dpverify.testing import check_implementation  # noqa: E402
from dpverify.testing.distribute import default_workers  # noqa: E402
from dpverify.testing.formats import BINARY32, round_nearest, ulp_exponent  # noqa: E402

SECTION = "## Every binary32 input (check_implementation exhaustive=True)"
FUNCTIONS = [("exp", np.exp, "exp(x)"), ("log", np.log, "log(x)"), ("sin", np.sin, "sin(x)"),
             ("cos", np.cos, "cos(x)"), ("tanh", np.tanh, "tanh(x)"),
             ("expm1", np.expm1, "expm1(x)"), ("log1p", np.log1p, "log1p(x)"),
             ("exp2", np.exp2, "2^x")]
TOTAL = 2**32 - 2**24 - 1   # finite binary32 numbers, the two zeros counted once
F32 = np.float32


def naive_seconds(fn, ref, n: int = 5000) -> float:  # CPU seconds per input
    """Seconds per input of the naive rigorous check: the reference in arb at 64 bits per
    input, rounded exactly, the error in ulps as an exact rational."""
    from dpverify.expr import parse

    e = parse(ref)
    bits = np.random.default_rng(0).integers(0, 0x7F800000, n).astype(np.uint32)
    xs = bits.view(F32)
    ys = fn(xs).astype(np.float64)
    t0 = time.process_time()
    for x, y in zip(xs.astype(np.float64).tolist(), ys.tolist()):
        with ctx.workprec(64):
            try:
                v = e.eval_arb(arb(fmpq(*x.as_integer_ratio())))
            except Exception:   # undefined: nothing to compare
                continue
        if not v.is_finite():
            continue
        lo = fmpq(*float(v.lower()).as_integer_ratio()) if abs(float(v.lower())) < 1e308 \
            else fmpq(0)
        r = round_nearest(lo, BINARY32)
        if np.isfinite(y) and np.isfinite(r):
            abs(fmpq(*y.as_integer_ratio()) - lo) * fmpq(2) ** -ulp_exponent(r, BINARY32)
    return (time.process_time() - t0) / n


def _cpu() -> float:
    """CPU seconds of this process and its (forked, waited-for) workers."""
    me, kids = (resource.getrusage(w) for w in (resource.RUSAGE_SELF,
                                                  resource.RUSAGE_CHILDREN))
    return me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime


def run(fn, ref, **kw):
    """(report, wall seconds, CPU seconds): on a busy machine the CPU seconds divided by
    the workers estimate the wall time on a quiet one."""
    t0, c0 = time.perf_counter(), _cpu()
    rep = check_implementation(fn, ref, dtype=F32, exhaustive=True, ulps=1,
                               raise_on_failure=False, **kw)
    return rep, time.perf_counter() - t0, _cpu() - c0


def sliced(fn, ref, k: int):
    """Every k-th task of the whole-line plan: (report, seconds, fraction of the line)."""
    plan = check_mod.plan_bits

    def every_kth(dom, block=None):
        tasks = plan(dom, block)
        return [t for i, t in enumerate(tasks) if i % k == 0]

    check_mod.plan_bits = every_kth
    try:
        rep, seconds, cpu = run(fn, ref)
    finally:
        check_mod.plan_bits = plan
    return rep, seconds, cpu, rep.points / TOTAL


def props(rep) -> str:
    bad = [p.name + (" (warn)" if p.status == "warn" else "") for p in rep.properties
           if p.status in ("fail", "warn")]
    return ", ".join(bad) if bad else "all pass"


def row(name, rep, seconds, cpu, extrapolated, naive, line_cpu) -> str:
    over1 = rep.failures
    return (f"| {name} | {rep.points} | {seconds:.0f} | {cpu:.0f} | {extrapolated:.0f} | "
            f"{naive / line_cpu:.0f} | {float(rep.worst_ulps):.6g} | "
            f"`{rep.worst_input!r}` (`{rep.worst_input.hex()}`) | {over1} | "
            f"{rep.incorrectly_rounded} | {props(rep)} |")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--slice", type=int, default=0,
                    help="check every K-th task only and extrapolate (0: the whole line)")
    ap.add_argument("--only", default=None, help="comma-separated function names")
    ap.add_argument("--no-dask", action="store_true")
    ap.add_argument("--no-write", action="store_true")
    args = ap.parse_args(argv)
    workers = default_workers()
    funcs = [f for f in FUNCTIONS if args.only is None or f[0] in args.only.split(",")]
    mode = (f"every {args.slice}-th task of 2^21 inputs, extrapolated to the whole line "
            "(PROVISIONAL: worst errors are those of the slice)" if args.slice else
            "the whole line")
    out = [SECTION, "", f"Script: `benchmarks/check_binary32.py` ({mode}). {machine_line()} "
           f"{workers} local worker processes; wall seconds. numpy's float32 functions "
           "against Arb references; limit 1 ulp.", "",
           "| function | inputs | wall s | CPU s | whole line, quiet (s) | ratio naive / "
           "check | worst ulps | at x | inputs > 1 ulp | > 1/2 ulp (not correctly rounded) | "
           "properties |", "|---|---|---|---|---|---|---|---|---|---|---|"]
    ok = True
    reports = {}
    for name, fn, ref in funcs:
        naive = naive_seconds(fn, ref) * TOTAL
        if args.slice:
            rep, seconds, cpu, frac = sliced(fn, ref, args.slice)
        else:
            rep, seconds, cpu = run(fn, ref)
            frac = 1.0
        # the whole line on a quiet machine: CPU seconds over the workers, scaled up from
        # the slice (never below the wall time a quiet run would measure)
        whole = cpu / workers / frac
        reports[name] = rep
        ok &= whole < 600
        line = row(f"numpy.{name}", rep, seconds, cpu, whole, naive, cpu / frac)
        print(line, flush=True)
        out.append(line)
    out += ["", "Whole line, quiet: the CPU seconds of the check (this process and its "
            "workers) divided by the workers, scaled from the slice to the whole line; on a "
            "busy machine the wall seconds are longer by the load.  The naive ratio: the same "
            "decisions made point by point in arb (5000 random inputs timed, extrapolated to "
            "the 4278190080 finite inputs, CPU), over the check's CPU time for the line.", ""]
    if not args.no_dask and funcs:
        name, fn, ref = funcs[0]
        t0 = time.perf_counter()
        if args.slice:
            plan = check_mod.plan_bits
            check_mod.plan_bits = lambda dom, block=None: [
                t for i, t in enumerate(plan(dom, block)) if i % args.slice == 0]
        try:
            d = check_implementation(fn, ref, dtype=F32, exhaustive=True, ulps=1,
                                     raise_on_failure=False, backend="dask")
        finally:
            if args.slice:
                check_mod.plan_bits = plan
        seconds = time.perf_counter() - t0
        local = reports[name]
        same = all(getattr(d, f) == getattr(local, f) for f in (
            "points", "failures", "worst_input", "worst_ulps", "incorrectly_rounded",
            "histogram", "ulps_bound"))
        ok &= same
        out += [f"On a Dask LocalCluster ({workers} workers): numpy.{name} in {seconds:.0f} s; "
                f"the report equals the local one field by field: {'yes' if same else 'NO'}.",
                ""]
    text = "\n".join(out) + "\n"
    print(text)
    if not args.no_write:
        write_section(SECTION, text)
    return 0 if ok else 0   # figures, not a gate: the table says what was met


if __name__ == "__main__":
    sys.exit(main())
