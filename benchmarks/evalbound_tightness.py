"""Certified binary64 evaluation bounds: dpverify evalbound vs Gappa, side by side.

For each benchmark polynomial (binary64 coefficients, so both tools see exactly the same
float code) the certified bound on ``|fl(p(x)) - p(x)|`` over binary64 ``x`` in the
interval, computed by

* dpverify: ``dpverify.certify.evalbound.evalbound`` (in-process wall time), and its
  certificate re-checked by the independent verifier (``dpverify.verify``, timed apart);
* Gappa (``gappa``, if installed; skipped cleanly otherwise) on a script doing the same
  operations (``float<ieee_64, ne>`` roundings, the exact value written with the same
  coefficients), once without hints and once with ``$ x in 16;`` bisection (wall time of
  the process).  Operations that are exact by structure (adding a zero coefficient,
  subtracting the initial ``b_{n+1} = 0``, doubling ``t``) are written without rounding,
  which can only help Gappa.

Targets: ``dpverify <= Gappa with bisection`` on every case and dpverify's time ``<= 0.1 x``
Gappa's (with bisection), both measured in this run.  Also: the largest error observed
over random binary64 points of the interval plus binary64 neighbours of roots (float
side: numpy ``polyval`` for Horner, ``dpverify.fast.clenshaw`` for Clenshaw -- the
analysed operations; reference: the exact rational ``p(x)``), the ratio bound / observed,
and for Horner Higham's ``gamma_{2n} sum |c_i| |x|^i`` (Higham 2002, eq. (5.3)).

    python benchmarks/evalbound_tightness.py              # writes its docs section
    python benchmarks/evalbound_tightness.py --no-write --points 2000 --no-gappa
"""

from __future__ import annotations

import argparse
import math
import os
import re
import shutil
import subprocess
import sys
import time
from fractions import Fraction

import mpmath
import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from _doc import machine_line, write_section  # noqa: E402
from flint import fmpq  # noqa: E402

from dpverify.certify.evalbound import evalbound  # noqa: E402
from dpverify.exact import ChebyshevPoly, MonomialPoly  # noqa: E402
from dpverify.fast.chebyshev import clenshaw  # noqa: E402
from dpverify.verify import verify_document  # noqa: E402

SECTION = "## Certified evaluation error: dpverify evalbound vs Gappa"
BISECT = 16
TIME_TARGET = 0.1


def f64(v) -> Fraction:
    """The nearest binary64 number to ``v`` (an mpf, Fraction or int), exactly."""
    return Fraction(float(v))


def dyadic(v: Fraction) -> str:
    """An exact Gappa literal ``m b e``."""
    if v == 0:
        return "0"
    d = v.denominator
    assert d & (d - 1) == 0, v
    return f"{v.numerator}b-{d.bit_length() - 1}" if d > 1 else str(v.numerator)


def mpf_exact(c) -> fmpq:
    """The exact binary value of an mpmath number."""
    man, exp = mpmath.mpf(c).man_exp
    return fmpq(int(man)) * fmpq(2) ** int(exp) if exp >= 0 else fmpq(int(man), 2 ** -int(exp))


def cheb_interp(fm, n: int, a: float, b: float) -> list[Fraction]:
    """Chebyshev coefficients on ``[a, b]`` of the degree-n interpolant of ``fm`` at the
    Chebyshev points of the first kind (400 bits), each rounded to binary64."""
    return [f64(Fraction(int(c.p), int(c.q))) for c in _cheb_exact(fm, n, a, b)]


def _cheb_exact(fm, n: int, a: float, b: float) -> list:
    with mpmath.workprec(400):
        N = n + 1
        th = [mpmath.pi * (j + mpmath.mpf(1) / 2) / N for j in range(N)]
        vals = [fm((a + b) / mpmath.mpf(2) + (b - a) / mpmath.mpf(2) * mpmath.cos(t))
                for t in th]
        cheb = []
        for k in range(N):
            c = 2 * mpmath.fsum(v * mpmath.cos(k * t) for v, t in zip(vals, th)) / N
            cheb.append(c / 2 if k == 0 else c)
        return [mpf_exact(c) for c in cheb]


def cheb_interp_monomial(fm, n: int, a: float, b: float) -> list[Fraction]:
    """Monomial coefficients (in x) of the degree-n interpolant of ``fm`` at the Chebyshev
    points of the first kind of ``[a, b]``: values at 400 bits, exact conversion, then each
    coefficient rounded to binary64 (what a float implementation stores)."""
    exact = _cheb_exact(fm, n, a, b)
    mono = ChebyshevPoly(exact, domain=(fmpq(*Fraction(a).as_integer_ratio()),
                                        fmpq(*Fraction(b).as_integer_ratio()))).to_monomial()
    return [f64(Fraction(int(c.p), int(c.q))) for c in mono.coeffs]


def cases():
    """(name, basis, binary64 coefficients, interval, roots for adversarial points)."""
    yield ("exp Taylor n=12 [-1,1]", "monomial",
           [f64(Fraction(1, math.factorial(i))) for i in range(13)], (-1, 1), [])
    yield ("sin Taylor n=13 [-1,1]", "monomial",
           [f64(Fraction((-1) ** ((i - 1) // 2), math.factorial(i))) if i % 2 else Fraction(0)
            for i in range(14)], (-1, 1), [0.0])
    yield ("exp interpolant n=12 [-1,1]", "monomial",
           cheb_interp_monomial(mpmath.exp, 12, -1.0, 1.0), (-1, 1), [])
    yield ("log1p interpolant n=10 [0,1]", "monomial",
           cheb_interp_monomial(mpmath.log1p, 10, 0.0, 1.0), (0, 1), [0.0])
    roots = [Fraction(1, 2) + Fraction(i, 16) for i in range(8)]
    prod = [Fraction(1)]
    for r in roots:  # exact expansion of prod (x - r): dyadic, so binary64 exactly
        prod = [(prod[i - 1] if i else 0) - r * (prod[i] if i < len(prod) else 0)
                for i in range(len(prod) + 1)]
    yield ("prod (x - 1/2 - i/16), i<8 [1/2,1]", "monomial", prod, (Fraction(1, 2), 1),
           [float(r) for r in roots])
    yield ("sum (-1)^i T_i/(i+1)^2 n=20 [-1,1]", "chebyshev",
           [f64(Fraction((-1) ** i, (i + 1) ** 2)) for i in range(21)], (-1, 1), [])
    yield ("log interpolant n=12 [1,2] (Clenshaw)", "chebyshev",
           cheb_interp(mpmath.log, 12, 1.0, 2.0), (1, 2), [1.0])


# ----------------------------------------------------------------------- Gappa scripts
def gappa_horner(cs: list[Fraction], iv, bisect: int) -> str:
    n = len(cs) - 1
    out = ["@rnd = float<ieee_64, ne>;", "x = rnd(xx);", f"q{n} = {dyadic(cs[n])};",
           f"Q{n} = {dyadic(cs[n])};"]
    for i in range(n - 1, -1, -1):
        out.append(f"t{i} rnd= x * q{i + 1};")
        out.append(f"q{i} = t{i};" if cs[i] == 0 else f"q{i} rnd= t{i} + {dyadic(cs[i])};")
        out.append(f"Q{i} = x * Q{i + 1};" if cs[i] == 0 else
                   f"Q{i} = x * Q{i + 1} + {dyadic(cs[i])};")
    out.append(f"{{ x in [{dyadic(Fraction(iv[0]))}, {dyadic(Fraction(iv[1]))}] -> "
               f"|q0 - Q0| in ? }}")
    if bisect:
        out.append(f"$ x in {bisect};")
    return "\n".join(out) + "\n"


def gappa_clenshaw(cs: list[Fraction], iv, bisect: int) -> str:
    """Clenshaw on the domain ``iv`` (binary64 ends): ``t = fl(fl(2x - s) / w)``, and the
    exact value at ``u = (2x - a - b)/(b - a)``; on (-1, 1), ``t = x`` exactly."""
    n = len(cs) - 1
    a, b = Fraction(iv[0]), Fraction(iv[1])
    out = ["@rnd = float<ieee_64, ne>;", "x = rnd(xx);"]
    if (a, b) == (-1, 1):
        out += ["t = x;", "u = x;"]
    else:
        s, w = f64(a + b), f64(b - a)
        out += [f"d rnd= 2 * x - {dyadic(s)};", f"t rnd= d / {dyadic(w)};",
                f"u = (2 * x - {dyadic(a + b)}) / {dyadic(b - a)};"]
    out += ["tx = 2 * t;", f"b{n} = {dyadic(cs[n])};", f"B{n} = {dyadic(cs[n])};"]
    for k in range(n - 1, -1, -1):
        two = "tx" if k else "t"
        out.append(f"m{k} rnd= {two} * b{k + 1};")
        out.append(f"g{k} = m{k};" if k == n - 1 else f"g{k} rnd= m{k} - b{k + 2};")
        out.append(f"b{k} = g{k};" if cs[k] == 0 else f"b{k} rnd= g{k} + {dyadic(cs[k])};")
        prev = "" if k == n - 1 else f" - B{k + 2}"
        mult = "2 * u" if k else "u"
        plus = "" if cs[k] == 0 else f" + {dyadic(cs[k])}"
        out.append(f"B{k} = {mult} * B{k + 1}{prev}{plus};")
    out.append(f"{{ x in [{dyadic(Fraction(iv[0]))}, {dyadic(Fraction(iv[1]))}] -> "
               f"|b0 - B0| in ? }}")
    if bisect:
        out.append(f"$ x in {bisect};")
    return "\n".join(out) + "\n"


_GAPPA_UP = re.compile(r"in \[[^,\]]*, (-?\d+)(?:b(-?\d+))?[ \]]")


def run_gappa(gappa: str, script: str, timeout: float) -> tuple[Fraction | None, float, str]:
    """(upper bound, wall seconds, message)."""
    t0 = time.perf_counter()
    try:
        res = subprocess.run([gappa], input=script, capture_output=True, text=True,
                             timeout=timeout)
    except subprocess.TimeoutExpired:
        return None, time.perf_counter() - t0, f"timeout after {timeout} s"
    dt = time.perf_counter() - t0
    text = res.stderr + res.stdout
    m = _GAPPA_UP.search(text)
    if m is None:
        return None, dt, "Gappa: " + (text.strip().splitlines() or ["no output"])[-1]
    return Fraction(int(m.group(1))) * Fraction(2) ** int(m.group(2) or 0), dt, ""


# --------------------------------------------------------------------- observed errors
def near(roots, a: float, b: float, k: int = 50) -> list[float]:
    out = []
    for r in roots:
        lo = hi = r
        for _ in range(k):
            lo, hi = math.nextafter(lo, -math.inf), math.nextafter(hi, math.inf)
            out += [x for x in (lo, hi) if a <= x <= b]
    return out


def observed(basis: str, cs: list[Fraction], iv, roots, points: int, rng) -> Fraction:
    a, b = float(iv[0]), float(iv[1])
    xs = np.concatenate([rng.uniform(a, b, points), [a, b], near(roots, a, b)])
    c64 = np.array([float(c) for c in cs])
    cq = [fmpq(c.numerator, c.denominator) for c in cs]
    if basis == "monomial":
        ys = np.polynomial.polynomial.polyval(xs, c64)
        P = MonomialPoly(cq).as_fmpq_poly()
    else:
        ys = clenshaw(c64, xs, (a, b))
        P = ChebyshevPoly(cq, domain=(fmpq(*Fraction(iv[0]).as_integer_ratio()),
                                      fmpq(*Fraction(iv[1]).as_integer_ratio()))
                          ).to_monomial().as_fmpq_poly()
    worst = fmpq(0)
    for x, y in zip(xs, ys):
        worst = max(worst, abs(fmpq(*float(y).as_integer_ratio())
                               - P(fmpq(*float(x).as_integer_ratio()))))
    return Fraction(int(worst.p), int(worst.q))


def fmt(v) -> str:
    return "-" if v is None else f"{float(v):.4e}"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--points", type=int, default=20000,
                    help="random points per case for the observed error (default 20000)")
    ap.add_argument("--repeat", type=int, default=3,
                    help="dpverify runs per case; the fastest counts (default 3)")
    ap.add_argument("--timeout", type=float, default=600, help="per Gappa run (s)")
    ap.add_argument("--no-gappa", action="store_true", help="skip Gappa even if installed")
    ap.add_argument("--no-write", action="store_true", help="do not rewrite docs/benchmarks.md")
    args = ap.parse_args()
    gappa = None if args.no_gappa else shutil.which("gappa")
    version = ""
    if gappa:
        version = subprocess.run([gappa, "--version"], capture_output=True,
                                 text=True).stdout.strip() or "gappa"
    rng = np.random.default_rng(7)
    head = ("| case | scheme | dpverify bound | Gappa | Gappa `$ x in 16` | dp / Gappa16 | "
            "dp s | verify s | Gappa s | Gappa16 s | dp s / Gappa16 s | pieces | observed | "
            "bound / observed | Higham |")
    lines = [head, "|" + "---|" * (head.count("|") - 1)]
    met_bound = met_time = compared = 0
    worst_obs = 0.0
    for name, basis, cs, iv, roots in cases():
        cq = [fmpq(c.numerator, c.denominator) for c in cs]
        ivq = tuple(fmpq(*Fraction(v).as_integer_ratio()) for v in iv)
        best, r = math.inf, None
        for _ in range(max(1, args.repeat)):
            t0 = time.perf_counter()
            r = evalbound(cq, ivq, basis=basis, domain=ivq if basis == "chebyshev" else None)
            best = min(best, time.perf_counter() - t0)
        assert r is not None
        t0 = time.perf_counter()
        rep = verify_document(r.certificate().data)
        tv = time.perf_counter() - t0
        assert rep.status == "holds", (name, rep.checks)
        dp = Fraction(int(r.evaluation.p), int(r.evaluation.q))
        g0 = g16 = None
        tg0 = tg16 = math.nan
        note = ""
        if gappa:
            gen = gappa_horner if basis == "monomial" else gappa_clenshaw
            g0, tg0, m0 = run_gappa(gappa, gen(cs, iv, 0), args.timeout)
            g16, tg16, m16 = run_gappa(gappa, gen(cs, iv, BISECT), args.timeout)
            note = m0 or m16
        obs = observed(basis, cs, iv, roots, args.points, rng)
        assert obs <= dp, name
        ratio_obs = float(dp / obs) if obs else math.inf
        worst_obs = max(worst_obs, ratio_obs)
        ratio = "-" if g16 is None else f"{float(dp / g16):.3g}"
        tratio = "-" if g16 is None else f"{best / tg16:.3g}"
        if g16 is not None:
            compared += 1
            met_bound += dp <= g16
            met_time += best <= TIME_TARGET * tg16
        hig = "-" if r.higham is None else fmt(r.higham)
        lines.append(
            f"| {name} | {'Horner' if basis == 'monomial' else 'Clenshaw'} | {fmt(dp)} | "
            f"{fmt(g0)} | {fmt(g16)} | {ratio} | {best:.4f} | {tv:.3f} | "
            f"{'-' if g0 is None else f'{tg0:.3f}'} | {'-' if g16 is None else f'{tg16:.3f}'} | "
            f"{tratio} | {len(r.pieces)} | {fmt(obs)} | {ratio_obs:.1f} | {hig} |"
            + (f" {note}" if note else ""))
        print(lines[-1], flush=True)
    summary = []
    if gappa:
        summary.append(f"bound <= Gappa with `$ x in {BISECT};`: met on {met_bound} of "
                       f"{compared} cases; time <= {TIME_TARGET} x Gappa's: met on "
                       f"{met_time} of {compared} cases.")
    else:
        summary.append("Gappa not installed (`apt-get install -y gappa`): its columns are "
                       "empty.")
    summary.append(f"worst bound / observed: {worst_obs:.1f}")
    print("\n".join(summary))
    if args.no_write:
        return
    text = "\n".join([
        SECTION, "",
        "Script: `benchmarks/evalbound_tightness.py` (options `--points N`, `--repeat N`, "
        "`--timeout S`, `--no-gappa`, `--no-write`). Bound on `|fl(p(x)) - p(x)|` over "
        "binary64 `x` in the interval, binary64 round-to-nearest, no FMA; the coefficients "
        "are binary64, so both tools analyse exactly the same float code. dpverify: "
        "`evalbound` in-process (fastest of the repeats), its certificate re-checked by "
        "`dpverify.verify` (`verify s`); Gappa: wall time of the process, without hints and "
        f"with `$ x in {BISECT};`. Observed: the largest exact error of numpy's evaluation "
        f"over {args.points} random points plus binary64 neighbours of the roots.", "",
        machine_line() + (f" {version}." if version else ""), "",
        *lines, "", *summary, ""])
    write_section(SECTION, text)


if __name__ == "__main__":
    main()
