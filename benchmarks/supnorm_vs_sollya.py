#!/usr/bin/env python3
"""Certified sup norms: dpverify vs Sollya, on identical exact inputs.

For every problem the error sup_{x in [a, b]} |f(x) - p(x)| is enclosed by

* dpverify: ``dpverify.certify.supnorm(f, p, [(a, b)], rtol=2^-k)``;
* Sollya:   ``supnorm(p, f, [a; b], absolute, 2^-k)`` (Sollya's ``accuracy``
  argument bounds the relative tightness: it returns [l, u] with
  0 < |u/l - 1| < accuracy, i.e. the same criterion as dpverify's rtol),

for every accuracy of ``--accuracy`` (default ``2^-20`` and ``2^-50``).  The
target is ``dp/So <= 0.5`` on every case; the table says whether
each case meets it.

Both tools receive *exactly* the same mathematical problem:

* every polynomial coefficient is rounded (round-to-nearest) to a float64,
  i.e. a dyadic rational m * 2^e, and that exact dyadic is what both tools
  see (dpverify: an exact fmpq; Sollya: the literal ``m b e``, parsed at a
  working precision large enough to hold every mantissa, then printed back
  and compared bit-for-bit with the intended value -- any mismatch aborts);
* Chebyshev-basis interpolants are converted to the monomial basis exactly
  (``ChebyshevPoly(c).to_monomial()``, exact fmpq arithmetic) for Sollya,
  which wants a monomial polynomial.  dpverify gets the Chebyshev form by
  default (``--dp-basis chebyshev``; it is the same polynomial, exactly) or
  the identical monomial form with ``--dp-basis monomial``;
* the Gaussian's centre 0.3 is written ``3/10`` for Sollya, which keeps the
  expression symbolic in ``supnorm`` (checked: ``print(f)`` shows
  ``exp(-((x - 3 / 10)^2 / 1b-1))``); dpverify reads the decimal 0.3 as
  exactly 3/10.  0.25 is dyadic anyway.  (Writing ``0.3`` in Sollya would
  silently round it to a 200-bit dyadic.)

Interpolants are at the n+1 Chebyshev points of the first kind
x_j = cos(pi (j + 1/2) / (n + 1)), computed with mpmath at 400 bits via the
discrete cosine transform, and only then rounded to float64.  Taylor
coefficients (1/k!, (-1)^k/(2k)!) are likewise rounded to float64; the
degree-8 minimax of exp is Sollya's ``remez(exp(x), 8, [-1;1])`` rounded to
float64 (skipped when Sollya is absent).

Timing: dpverify is timed in-process (wall clock around ``supnorm``, run in a
forked child so that a hang can be cut off); Sollya is timed by its own
``time(...)`` around the ``supnorm`` call (process start-up and parsing
excluded; ``time`` is wall clock -- checked with ``time(bashexecute("sleep 1"))``
= 1.0 s).  Both run sequentially, never concurrently.  Each tool runs the
certification ``--repeat`` times (default 3, once when a run takes more than
2 s) in the same process and the fastest run counts, for both alike (a shared
machine adds noise, never removes it).  ``dp/So`` = dpverify
wall time / Sollya wall time.  Because a shared machine inflates wall times,
CPU times are recorded too: dpverify ``time.process_time()`` around
``supnorm``; Sollya the child's rusage (user+sys, whole process, so it also
contains ~0.05 s of start-up and parsing); ``dp/So cpu`` is their ratio.

Usage::

    python benchmarks/supnorm_vs_sollya.py [--only NAME ...] [--timeout S]
        [--accuracy 2^-20 2^-50] [--repeat 3]
        [--dp-basis chebyshev|monomial] [--sollya-prec 200] [--json OUT]
"""

from __future__ import annotations

import argparse
import json
import math
import multiprocessing as mp
import os
import platform
import re
import resource
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass, field
from fractions import Fraction

import mpmath

from dpverify.exact import ChebyshevPoly, MonomialPoly

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _doc import write_section  # noqa: E402

SECTION = "## Certified sup norms: dpverify vs Sollya"

ACCURACIES = ("2^-20", "2^-50")
TARGET = 0.5  # the target: dpverify at most half of Sollya's time on every case


def parse_accuracy(s: str) -> int:
    """``2^-k`` -> k."""
    mo = re.match(r"^\s*2\^-(\d+)\s*$", s)
    if not mo:
        raise argparse.ArgumentTypeError(f"accuracy must be written 2^-k, got {s!r}")
    return int(mo.group(1))


# ---------------------------------------------------------------- exact helpers
def q2frac(q) -> Fraction:
    return Fraction(int(q.p), int(q.q))


def frac_str(x: Fraction) -> str:
    return f"{x.numerator}/{x.denominator}"


def to_float64_frac(x) -> Fraction:
    """Round (an mpf or a Fraction) to the nearest float64; return it exactly."""
    if isinstance(x, Fraction):
        v = float(x)  # correctly rounded
    else:
        v = float(x)  # mpmath: round to nearest
    if not math.isfinite(v):
        raise ValueError(f"coefficient {x} overflows float64")
    return Fraction(v)


def sollya_dyadic(x: Fraction) -> tuple[str, int]:
    """Exact Sollya literal ``m b e`` for a dyadic rational, and bits of m."""
    if x == 0:
        return "0", 1
    d = x.denominator
    if d & (d - 1):
        raise ValueError(f"{x} is not dyadic")
    m, e = x.numerator, -(d.bit_length() - 1)
    while m % 2 == 0:
        m //= 2
        e += 1
    return f"{m}b{e}", abs(m).bit_length()


_DYADIC = re.compile(r"^\s*(-?\d+)(?:b(-?\d+))?\s*$")


def parse_sollya_dyadic(s: str) -> Fraction:
    mo = _DYADIC.match(s)
    if not mo:
        raise ValueError(f"cannot parse Sollya number {s!r}")
    m = int(mo.group(1))
    e = int(mo.group(2) or 0)
    return Fraction(m) * (Fraction(2) ** e)


# ----------------------------------------------------------------- problems
@dataclass
class Problem:
    name: str
    degree: int
    f_dp: str  # dpverify safe syntax
    f_sollya: str  # Sollya syntax, exact constants only
    interval: tuple[int, int]
    mono: list[Fraction]  # exact dyadic monomial coefficients (given to Sollya)
    cheb: list[Fraction] | None = None  # exact dyadic Chebyshev coefficients
    note: str = ""
    extra: dict = field(default_factory=dict)


def cheb_interp_coeffs(fm, n: int) -> list:
    """Chebyshev coefficients of the degree-n interpolant at first-kind points."""
    with mpmath.workprec(400):
        N = n + 1
        thetas = [mpmath.pi * (j + mpmath.mpf(1) / 2) / N for j in range(N)]
        vals = [fm(mpmath.cos(t)) for t in thetas]
        out = []
        for k in range(N):
            s = mpmath.fsum(v * mpmath.cos(k * t) for v, t in zip(vals, thetas))
            c = 2 * s / N
            if k == 0:
                c /= 2
            out.append(c)
        return out


def cheb_problem(name, n, f_dp, f_sollya, fm, note="") -> Problem:
    cheb = [to_float64_frac(c) for c in cheb_interp_coeffs(fm, n)]
    mono_q = ChebyshevPoly([frac_str(c) for c in cheb]).to_monomial().coeffs
    mono = [q2frac(c) for c in mono_q]
    return Problem(name, n, f_dp, f_sollya, (-1, 1), mono, cheb, note)


def gauss_m(x):
    return mpmath.exp(-((x - mpmath.mpf(3) / 10) ** 2) / (2 * mpmath.mpf(1) / 4))


def runge_m(x):
    return 1 / (1 + 25 * x**2)


GAUSS_DP = "exp(-(x-0.3)^2/(2*0.25))"
GAUSS_SOLLYA = "exp(-(x-3/10)^2/(2*(1/4)))"


def exp_minimax_deg8(sollya: str | None) -> list[Fraction] | None:
    if sollya is None:
        return None
    script = (
        "prec=200!;\ndisplay=dyadic!;\np = remez(exp(x), 8, [-1;1]);\n"
        'for i from 0 to 8 do { write("C=", coeff(p, i), "\\n"); };\n'
    )
    out = subprocess.run([sollya], input=script, capture_output=True, text=True, timeout=120)
    cs = [ln[2:] for ln in out.stdout.splitlines() if ln.startswith("C=")]
    if len(cs) != 9:
        print(f"# remez failed, skipping exp minimax:\n{out.stdout}{out.stderr}")
        return None
    return [to_float64_frac(parse_sollya_dyadic(c)) for c in cs]


def build_problems(sollya: str | None) -> list[Problem]:
    probs: list[Problem] = []
    taylor_exp = [to_float64_frac(Fraction(1, math.factorial(k))) for k in range(9)]
    probs.append(
        Problem(
            "exp-taylor8",
            8,
            "exp(x)",
            "exp(x)",
            (-1, 1),
            taylor_exp,
            note="Taylor at 0, coeffs 1/k! rounded to float64",
        )
    )
    mm = exp_minimax_deg8(sollya)
    if mm is not None:
        probs.append(
            Problem(
                "exp-minimax8",
                8,
                "exp(x)",
                "exp(x)",
                (-1, 1),
                mm,
                note="Sollya remez(exp(x),8,[-1;1]) rounded to float64",
            )
        )
    else:
        print("# exp-minimax8 skipped (needs Sollya's remez)")
    probs.append(cheb_problem("gauss-cheb20", 20, GAUSS_DP, GAUSS_SOLLYA, gauss_m))
    cos_t = [Fraction(0)] * 31
    for k in range(16):
        cos_t[2 * k] = to_float64_frac(Fraction((-1) ** k, math.factorial(2 * k)))
    probs.append(
        Problem(
            "cos-taylor30",
            30,
            "cos(x)",
            "cos(x)",
            (-3, 3),
            cos_t,
            note="Taylor at 0 on [-3,3], coeffs rounded to float64",
        )
    )
    cos_t200 = [Fraction(0)] * 201
    for k in range(101):
        cos_t200[2 * k] = to_float64_frac(Fraction((-1) ** k, math.factorial(2 * k)))
    probs.append(
        Problem(
            "cos-taylor200",
            200,
            "cos(x)",
            "cos(x)",
            (-3, 3),
            cos_t200,
            note="Taylor at 0 on [-3,3], coeffs rounded to float64",
        )
    )
    probs.append(cheb_problem("gauss-cheb100", 100, GAUSS_DP, GAUSS_SOLLYA, gauss_m))
    probs.append(cheb_problem("gauss-cheb200", 200, GAUSS_DP, GAUSS_SOLLYA, gauss_m))
    probs.append(cheb_problem("runge-cheb10", 10, "1/(1+25*x^2)", "1/(1+25*x^2)", runge_m))
    probs.append(cheb_problem("runge-cheb50", 50, "1/(1+25*x^2)", "1/(1+25*x^2)", runge_m))
    return probs


# ----------------------------------------------------------------- dpverify
def _dp_child(prob: Problem, basis: str, k: int, repeat: int, q) -> None:
    try:
        from dpverify.certify import supnorm

        if basis == "chebyshev" and prob.cheb is not None:
            poly = ChebyshevPoly([frac_str(c) for c in prob.cheb], domain=prob.interval)
            if prob.interval != (-1, 1):
                raise ValueError("chebyshev problems are on [-1,1]")
            used = "chebyshev"
        else:
            poly = MonomialPoly([frac_str(c) for c in prob.mono])
            used = "monomial"
        rtol = f"1/{2**k}"
        dt = dc = float("inf")
        for _i in range(repeat):
            t0, c0 = time.perf_counter(), time.process_time()
            r = supnorm(prob.f_dp, poly, [prob.interval], rtol=rtol)
            t1, c1 = time.perf_counter() - t0, time.process_time() - c0
            dt, dc = min(dt, t1), min(dc, c1)
            if t1 > 2.0:
                break
        q.put(
            {
                "ok": True,
                "lower": frac_str(q2frac(r.lower)),
                "upper": frac_str(q2frac(r.upper)),
                "seconds": dt,
                "cpu": dc,
                "status": r.status,
                "converged": bool(r.converged),
                "stats": {k: v for k, v in r.stats.items()},
                "basis": used,
            }
        )
    except Exception as exc:  # report, never hide
        import traceback

        q.put(
            {
                "ok": False,
                "error": f"{type(exc).__name__}: {exc}",
                "traceback": traceback.format_exc(),
            }
        )


def run_dpverify(prob: Problem, basis: str, k: int, repeat: int, timeout: float) -> dict:
    ctx = mp.get_context("fork")
    q = ctx.Queue()
    p = ctx.Process(target=_dp_child, args=(prob, basis, k, repeat, q))
    t0 = time.perf_counter()
    p.start()
    try:
        res = q.get(timeout=timeout)
    except Exception:
        res = {"ok": False, "error": f"timeout after {timeout:.0f} s (killed)"}
        p.kill()
    p.join(5)
    res["wall"] = time.perf_counter() - t0
    return res


# ----------------------------------------------------------------- Sollya
def sollya_script(prob: Problem, prec: int, k: int, repeat: int) -> tuple[str, int]:
    terms, maxbits = [], 1
    for i, c in enumerate(prob.mono):
        if c == 0:
            continue
        lit, bits = sollya_dyadic(c)
        maxbits = max(maxbits, bits)
        terms.append(f"({lit})*x^{i}" if i else f"({lit})")
    poly = " + ".join(terms) if terms else "0"
    parse_prec = max(prec, maxbits + 16)
    a, b = prob.interval
    s = f"""verbosity=1!;
display=dyadic!;
prec={parse_prec}!;
p = {poly};
for i from 0 to {prob.degree} do {{ write("C=", coeff(p, i), "\\n"); }};
prec={prec}!;
f = {prob.f_sollya};
write("F=", f, "\\n");
i = 0;
t = 0;
while (i < {repeat} && t <= 2) do {{
  t = time(r = supnorm(p, f, [{a};{b}], absolute, 1b-{k}));
  write("T=", t, "\\n");
  write("L=", inf(r), "\\n");
  write("U=", sup(r), "\\n");
  i = i + 1;
}};
"""
    return s, parse_prec


def run_sollya(
    prob: Problem, sollya: str, prec: int, k: int, repeat: int, timeout: float
) -> dict:
    script, parse_prec = sollya_script(prob, prec, k, repeat)
    t0 = time.perf_counter()
    ru0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    try:
        out = subprocess.run(
            [sollya, "--warnonstderr"],
            input=script,
            capture_output=True,
            text=True,
            timeout=timeout,
        )
    except subprocess.TimeoutExpired:
        return {
            "ok": False,
            "error": f"timeout after {timeout:.0f} s (killed)",
            "wall": time.perf_counter() - t0,
        }
    wall = time.perf_counter() - t0
    ru1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (ru1.ru_utime + ru1.ru_stime) - (ru0.ru_utime + ru0.ru_stime)
    kv: dict[str, list[str]] = {}
    for ln in out.stdout.splitlines():
        mo = re.match(r"^([CFTLU])=(.*)$", ln)
        if mo:
            kv.setdefault(mo.group(1), []).append(mo.group(2).strip())
    res = {"wall": wall, "cpu": cpu, "parse_prec": parse_prec, "stderr": out.stderr.strip()[-2000:]}
    # exactness check of the polynomial Sollya actually holds
    got = kv.get("C", [])
    if len(got) != prob.degree + 1:
        return {
            **res,
            "ok": False,
            "error": "could not read back coefficients",
            "stdout": out.stdout[-2000:],
        }
    for i, (g, c) in enumerate(zip(got, prob.mono)):
        if parse_sollya_dyadic(g) != c:
            return {
                **res,
                "ok": False,
                "error": f"Sollya holds coefficient {i} as {g}, "
                f"not the exact input (it rounded it)",
            }
    try:
        lo = parse_sollya_dyadic(kv["L"][0])
        hi = parse_sollya_dyadic(kv["U"][0])
        t = min(float(parse_sollya_dyadic(x)) for x in kv["T"])
    except (KeyError, IndexError, ValueError) as exc:
        msg = out.stdout.strip().splitlines()[-6:] + out.stderr.strip().splitlines()[-6:]
        return {**res, "ok": False, "error": f"supnorm failed ({exc}); " + " | ".join(msg)}
    return {
        **res,
        "ok": True,
        "lower": frac_str(lo),
        "upper": frac_str(hi),
        "seconds": t,
        "f": kv.get("F", [""])[0],
    }


# ----------------------------------------------------------------- report
def fmt(x: Fraction) -> str:
    return f"{float(x):.8e}" if x != 0 else "0"


def relw(lo: Fraction, hi: Fraction) -> str:
    if lo <= 0:
        return "inf"
    return f"{float(hi / lo - 1):.1e}"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--only", nargs="*", help="problem names to run")
    ap.add_argument("--timeout", type=float, default=600.0, help="per tool and problem (s)")
    ap.add_argument("--dp-basis", choices=["chebyshev", "monomial"], default="chebyshev")
    ap.add_argument("--sollya-prec", type=int, default=200)
    ap.add_argument("--json", help="write raw results to this file")
    ap.add_argument("--no-sollya", action="store_true", help="run dpverify only")
    ap.add_argument(
        "--accuracy", nargs="*", default=list(ACCURACIES), help="accuracies 2^-k (rtol)"
    )
    ap.add_argument("--repeat", type=int, default=3, help="runs per tool, fastest counts")
    ap.add_argument("--no-write", action="store_true",
                    help="do not rewrite the section of docs/benchmarks.md")
    args = ap.parse_args()
    argv_text = " ".join(sys.argv[1:])
    stamp = (f"{time.strftime('%Y-%m-%d %H:%M:%S UTC', time.gmtime())}  "
             f"{platform.processor() or platform.machine()}  "
             f"python {platform.python_version()}")
    ks = [parse_accuracy(a) for a in args.accuracy]

    sollya = None if args.no_sollya else shutil.which("sollya")
    if args.no_sollya:
        print("# --no-sollya: running dpverify only.")
    elif sollya is None:
        print(
            "# Sollya not found on PATH: running dpverify only "
            "(install with `apt-get install -y sollya`)."
        )
    print(
        f"# {time.strftime('%Y-%m-%d %H:%M:%S %Z')}  {platform.node()}  "
        f"{platform.processor() or platform.machine()}  python {platform.python_version()}"
    )
    print(
        f"# dpverify supnorm(rtol=2^-k); Sollya supnorm(p, f, I, absolute, 2^-k), "
        f"prec={args.sollya_prec}; k in {ks}; dpverify basis for Chebyshev problems: "
        f"{args.dp_basis}; fastest of {args.repeat} runs per tool"
    )

    probs = build_problems(shutil.which("sollya"))  # remez input needs Sollya
    # warm-up in the parent (lazy imports, expression compiler) so that the
    # forked children time supnorm itself, as Sollya's time() does.
    from dpverify.certify import supnorm as _warm

    _warm("exp(x)", MonomialPoly([1, 1]), [(-1, 1)], rtol="1e-6")
    if args.only:
        probs = [p for p in probs if p.name in args.only]

    rows, raw, alarms, ratios = [], [], [], []
    for k in ks:
        for prob in probs:
            name = f"{prob.name} 2^-{k}"
            print(f"# running {name} (degree {prob.degree}) ...", flush=True)
            dp = run_dpverify(prob, args.dp_basis, k, args.repeat, args.timeout)
            so = (
                run_sollya(prob, sollya, args.sollya_prec, k, args.repeat, args.timeout)
                if sollya
                else None
            )
            raw.append(
                {"problem": prob.name, "k": k, "degree": prob.degree, "dpverify": dp, "sollya": so}
            )
            if dp["ok"]:
                dlo, dhi = Fraction(dp["lower"]), Fraction(dp["upper"])
                dcol = (f"[{fmt(dlo)}, {fmt(dhi)}]", relw(dlo, dhi), f"{dp['seconds']:.4f}")
                if not dp["converged"]:
                    alarms.append(f"{name}: dpverify did not converge (status {dp['status']})")
            else:
                dcol = ("FAILED", "-", f"{dp['wall']:.1f}")
                alarms.append(f"{name}: dpverify failed: {dp['error']}")
            if so is None:
                scol = ("skipped (no sollya)", "-", "-")
            elif so["ok"]:
                slo, shi = Fraction(so["lower"]), Fraction(so["upper"])
                scol = (f"[{fmt(slo)}, {fmt(shi)}]", relw(slo, shi), f"{so['seconds']:.4f}")
            else:
                scol = ("FAILED", "-", f"{so['wall']:.1f}")
                alarms.append(f"{name}: Sollya failed: {so['error']}")
            met = "-"
            if dp["ok"] and so and so["ok"]:
                rv = dp["seconds"] / so["seconds"] if so["seconds"] > 0 else float("inf")
                ratios.append(rv)
                ratio = f"{rv:.3g}"
                met = "yes" if rv <= TARGET and dp["converged"] else "NO"
                overlap = max(dlo, slo) <= min(dhi, shi)
                ov = "yes" if overlap else "**NO — DISJOINT**"
                if not overlap:
                    alarms.append(
                        f"{name}: ENCLOSURES DISJOINT: dpverify [{dp['lower']}, "
                        f"{dp['upper']}] vs Sollya [{so['lower']}, {so['upper']}] — "
                        "one of the tools is unsound or the inputs differ"
                    )
            else:
                ratio, ov = "-", "-"
                if dp["ok"] and so and not so["ok"] and dp["converged"]:
                    met = "yes (Sollya failed)"
            rows.append((prob.name, f"2^-{k}", str(prob.degree), *dcol, *scol, ratio, met, ov))
            print(f"#   dpverify: {dcol}  sollya: {scol}  dp/So: {ratio}", flush=True)

    hdr = (
        "problem",
        "accuracy",
        "deg",
        "dpverify [lower, upper]",
        "dp relw",
        "dp s",
        "Sollya [lower, upper]",
        "So relw",
        "So s",
        "dp/So",
        f"<= {TARGET}",
        "overlap",
    )
    table = ["| " + " | ".join(hdr) + " |", "|" + "|".join("---" for _ in hdr) + "|"]
    table += ["| " + " | ".join(r) + " |" for r in rows]
    print()
    print("\n".join(table))
    print()
    details = []
    for item in raw:
        p = next(q for q in probs if q.name == item["problem"])
        extra = []
        d = item["dpverify"]
        if d.get("ok"):
            st = d["stats"]
            extra.append(
                f"dpverify basis={d['basis']} status={d['status']} cpu={d['cpu']:.4f}s "
                f"pieces={st.get('pieces')} evaluations={st.get('evaluations')} "
                f"max_prec={st.get('max_prec')} orders={st.get('orders')}"
            )
        s = item["sollya"]
        if s and s.get("ok"):
            extra.append(
                f"Sollya process wall {s['wall']:.2f}s cpu {s['cpu']:.2f}s "
                f"(poly parsed at prec {s['parse_prec']})"
            )
        note = p.note or "Chebyshev first-kind interpolant, coeffs rounded to float64"
        details.append(f"{p.name} 2^-{item['k']}: {note}; " + "; ".join(extra))
        print(f"# {details[-1]}")
    n_met = sum(1 for r in rows if r[-2].startswith("yes"))
    summary = (f"target dp/So <= {TARGET}: met on {n_met} of {len(rows)} cases"
               + (f"; worst ratio {max(ratios):.3g}" if ratios else ""))
    print()
    print(f"# {summary}")
    if alarms:
        print()
        for a in alarms:
            print(f"!!! {a}")
    if not args.no_write and not args.only:
        settings = (f"dpverify supnorm(rtol=2^-k); Sollya supnorm(p, f, I, absolute, 2^-k), "
                    f"prec={args.sollya_prec}; k in {ks}; dpverify basis for Chebyshev "
                    f"problems: {args.dp_basis}; fastest of {args.repeat} runs per tool")
        text = "\n".join([
            SECTION, "",
            f"Script: `benchmarks/supnorm_vs_sollya.py` (this run: `python "
            f"benchmarks/supnorm_vs_sollya.py {argv_text}`; options `--only NAME…`, "
            "`--accuracy K…`, `--repeat N`, `--timeout S`, `--dp-basis`, `--no-sollya`, "
            "`--json OUT`, `--no-write`).",
            "Both tools run in one process each, in the same run; dpverify's time is the "
            "`supnorm` call in-process, Sollya's is its own `time(supnorm(...))` (process "
            "start-up excluded); fastest of the repeats.", "",
            stamp, settings, "", *table, "", summary,
            *[a.replace("!!! ", "") for a in alarms], "",
            "Per-case details (dpverify: pieces, evaluations, largest precision, "
            "Taylor-model orders):", "",
            *[f"- {d}" for d in details], ""])
        write_section(SECTION, text)
        print(f"# wrote section {SECTION!r} of docs/benchmarks.md")
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(raw, fh, indent=1)
    return 1 if any("DISJOINT" in a for a in alarms) else 0


if __name__ == "__main__":
    sys.exit(main())
