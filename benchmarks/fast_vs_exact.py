"""Fast float64 path vs exact reference: table generation, evaluation at 10^6 points, the
big exact OR certificate, iterated Bernstein k=200 h=6, Jackson d=2 t=64, and the full
cross-check.  One command:

    python benchmarks/fast_vs_exact.py            # everything (several minutes)
    python benchmarks/fast_vs_exact.py --no-crosscheck --no-write

Prints every figure and ratio measured in this run and (unless ``--no-write``) replaces the
section "## Fast path vs exact reference" of docs/benchmarks.md (other sections untouched).
Wall times (``time.perf_counter``) and CPU times (``time.process_time``) of the calling
process; the machine is shared, so CPU times are the more stable figure.
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import time
from typing import Any

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from _doc import DOC, timed, write_section  # noqa: E402
from flint import fmpq  # noqa: E402

from dpverify import __version__, fast  # noqa: E402

SECTION = "## Fast path vs exact reference"


def fmt_s(x: float) -> str:
    return f"{x:.3g}"


# --------------------------------------------------------------------------- tables


def bench_tables() -> list[tuple[str, float, float, float, float]]:
    """(name, exact wall, exact cpu, fast wall, fast cpu) for each table family."""
    from dpverify.constructions.bernstein import iterated_basis_matrix
    from dpverify.constructions.chebyshev import or_polynomial
    from dpverify.constructions.decision_lists import h_polynomial
    from dpverify.constructions.jackson import jackson_coefficients_2pi, jackson_multipliers
    from dpverify.constructions.sherstov import rofk_polynomial

    rows = []
    or_grid = [(k, g) for k in (10, 100, 1000) for g in ("1e-3", "1e-6", "1e-12")]

    def exact_or():
        for k, g in or_grid:
            or_polynomial(k, g)

    def fast_or():
        for k, g in or_grid:
            c, dom = fast.or_chebyshev_coeffs(k, g)
            fast.or_values(k, g, np.arange(k + 1.0))

    rows.append(("OR Chebyshev, k in {10,100,1000} x gamma in {1e-3,1e-6,1e-12}",
                 *timed(exact_or)[1:], *timed(fast_or)[1:]))

    # the benchmark case: k = 10^4, gamma = 1e-12 (exact build is FLINT-bound here,
    # not Python-overhead-bound as for the small grid above)
    def exact_or_big():
        or_polynomial(10**4, "1e-12")

    def fast_or_big():
        fast.or_chebyshev_coeffs(10**4, "1e-12")
        fast.or_values(10**4, "1e-12", np.arange(10**4 + 1.0))

    rows.append(("OR Chebyshev, k = 10^4, gamma = 1e-12 (degree 1417; coefficients + values "
                 "on 0..k)", *timed(exact_or_big)[1:], *timed(fast_or_big)[1:]))

    h_grid = [(k, g) for k in (5, 10, 20, 50) for g in ("1e-1", "1e-3")]

    def exact_h():
        for k, g in h_grid:
            h_polynomial(k, g)

    def fast_h():
        for k, g in h_grid:
            fast.h_values(k, g, np.arange(k + 1.0))

    rows.append(("decision-list h_k, k in {5,10,20,50} x gamma in {1e-1,1e-3}",
                 *timed(exact_h)[1:], *timed(fast_h)[1:]))

    def exact_rofk():
        a = rofk_polynomial(2, 20, "1e-2", intermediates="summary")
        a.poly.to_chebyshev(domain=(0, 20))

    rows.append(("r-of-k r=2, k=20, gamma=1e-2 (Chebyshev coefficients, degree 958)",
                 *timed(exact_rofk)[1:], *timed(fast.rofk_chebyshev_coeffs, 2, 20, "1e-2")[1:]))

    j_grid = [(t, r) for t in (16, 32, 64) for r in (1, 2, 3, 4)]
    w_grid = [(t, K) for t in (16, 32, 64) for K in (1, 2, 3, 4)]

    def exact_j():
        for t, r in j_grid:
            jackson_coefficients_2pi(t, r)
        for t, K in w_grid:
            jackson_multipliers(t, K)

    def fast_j():
        for t, r in j_grid:
            fast.jackson_coefficients_2pi(t, r)
        for t, K in w_grid:
            fast.jackson_multipliers(t, K)

    rows.append(("Jackson 2*pi*a_l and w_n, t in {16,32,64}, r/K in 1..4",
                 *timed(exact_j)[1:], *timed(fast_j)[1:]))
    rows.append(("iterated Bernstein basis k=200, h=6",
                 *timed(iterated_basis_matrix, 200, 6)[1:],
                 *timed(fast.iterated_basis_matrix, 200, 6)[1:]))
    return rows


def bench_table_pipeline() -> list[tuple[str, int, float, float, float, float]]:
    """``dpverify table NAME`` content (exact values, "p/q" strings, correctly rounded
    float64) vs the fast path computing the same quantities in float64, over each table's
    full grid (:data:`dpverify.tables.GRIDS`)."""
    from dpverify import tables

    def fast_one(name: str, p: dict[str, Any]) -> None:
        if name == "or-chebyshev":
            fast.or_chebyshev_coeffs(p["k"], p["gamma"])
            fast.or_values(p["k"], p["gamma"], np.arange(p["k"] + 1.0))
        elif name == "dlist-h":
            fast.h_values(p["k"], p["gamma"], np.arange(p["k"] + 1.0))
        elif name == "rofk":
            fast.rofk_chebyshev_coeffs(p["r"], p["k"], p["gamma"])
            fast.rofk_values(p["r"], p["k"], p["gamma"], np.arange(p["k"] + 1.0))
        elif name == "jackson-kernel":
            fast.jackson_coefficients_2pi(p["t"], p["r"])
        elif name == "jackson-multipliers":
            fast.jackson_multipliers(p["t"], p["K"])
        elif name == "bernstein-iterated":
            fast.iterated_basis_matrix(p["k"], p["h"])

    rows = []
    for name in tables.table_names():
        if name == "or-minimax":
            continue  # no fast minimax (exact Remez only)
        grid = tables.GRIDS[name]["full"]
        _, ew, ec = timed(tables.build_table, name, "full")

        def run_fast(name=name, grid=grid):
            for p in grid:
                fast_one(name, p)

        _, fw, fc = timed(run_fast)
        rows.append((name, len(grid), ew, ec, fw, fc))
    return rows


def bench_jackson_d2() -> tuple[float, float, float, float]:
    from dpverify.constructions.jackson import jackson_approx

    f = "exp(-(x^2+y^2))"
    _, ew, ec = timed(jackson_approx, f, 64, 3, 2)
    _, fw, fc = timed(fast.damped_chebyshev_coeffs, f, 64, 3, 2)
    return ew, ec, fw, fc


# --------------------------------------------------------------------------- evaluation


def bench_eval(n: int = 10**6) -> list[tuple[str, float, float, str]]:
    """(what, wall, cpu, note) for evaluation at n query points; exact = per-point rate on
    a sample, extrapolated (stated in the note)."""
    from dpverify.constructions.chebyshev import or_chebyshev_form
    from dpverify.exact import BernsteinPoly, TensorPoly

    rng = np.random.default_rng(0)
    rows = []
    k, g = 10**4, "1e-12"
    x = rng.uniform(0, k, n)
    _, w, c = timed(fast.or_values, k, g, x)
    rows.append((f"fast OR k=10^4, gamma=1e-12 (t=1417), closed form, {n} points", w, c, ""))
    coeffs, dom = fast.or_chebyshev_coeffs(k, g)
    xin = rng.uniform(1, k, n)
    _, w, c = timed(fast.clenshaw, coeffs, xin, dom)
    rows.append((f"fast OR same, Clenshaw (1418 coefficients), {n} points", w, c, ""))
    form = or_chebyshev_form(k, g)
    sample = [fmpq(*float(v).as_integer_ratio()) for v in xin[:200]]
    _, w, c = timed(lambda: [form(s) for s in sample])
    rows.append((f"exact OR same, exact Clenshaw (fmpq), {n} points", w * n / 200, c * n / 200,
                 "extrapolated from 200 points"))

    # Bernstein k=200, h=6: B_k^(h) f for f = |x - 1/2| (Bernstein coordinates)
    kb, hb = 200, 6
    F = np.abs(np.arange(kb + 1) / kb - 0.5)
    cb = fast.iterated_coefficients(F, kb, hb)
    s = rng.uniform(0, 1, n)
    _, w, c = timed(fast.bernstein_eval, cb, s)
    rows.append((f"fast Bernstein k=200,h=6, basis-matrix product, {n} points", w, c, ""))
    m = n // 20
    _, w, c = timed(fast.de_casteljau, cb, s[:m])
    rows.append((f"fast Bernstein same, de Casteljau, {n} points", w * 20, c * 20,
                 f"extrapolated from {m} points"))
    P = BernsteinPoly([fmpq(*float(v).as_integer_ratio()) for v in cb])
    ss = [fmpq(*float(v).as_integer_ratio()) for v in s[:20]]
    _, w, c = timed(lambda: [P(v) for v in ss])
    rows.append((f"exact Bernstein same, exact de Casteljau (fmpq), {n} points", w * n / 20,
                 c * n / 20, "extrapolated from 20 points"))

    # Jackson-type tensor, d = 2, t = 64: 65 x 65 Chebyshev coefficients
    C = fast.damped_chebyshev_coeffs("exp(-(x^2+y^2))", 64, 3, 2)
    pts = rng.uniform(-1, 1, (n, 2))
    _, w, c = timed(fast.tensor_eval, C, pts)
    rows.append((f"fast tensor d=2, 65x65 Chebyshev, {n} points", w, c, ""))
    T = TensorPoly.from_flat([fmpq(*float(v).as_integer_ratio()) for v in C.reshape(-1)],
                             C.shape, basis="chebyshev")
    pq = [[fmpq(*float(v).as_integer_ratio()) for v in row] for row in pts[:20].tolist()]
    _, w, c = timed(lambda: [T(*row) for row in pq])
    rows.append((f"exact tensor same (fmpq), {n} points", w * n / 20, c * n / 20,
                 "extrapolated from 20 points"))
    return rows


# --------------------------------------------------------------------------- big OR


def bench_big_or() -> dict[str, Any]:
    import cProfile
    import pstats

    from dpverify.certify import certify
    from dpverify.constructions.chebyshev import chebyshev_t_value, or_degree, or_polynomial

    k, g = 10**4, "1e-12"
    a, bw, bc = timed(or_polynomial, k, g)
    prof = cProfile.Profile()
    prof.enable()
    cert, cw, cc = timed(certify, a)
    prof.disable()
    st = pstats.Stats(prof)
    finite = [v for key, v in st.stats.items() if key[2] == "finite_max_error"]
    finite_s = finite[0][3] if finite else float("nan")
    norm = [v for key, v in st.stats.items() if key[2] == "coefficient_norm"]
    norm_s = norm[0][3] if norm else float("nan")

    # alternative exact method: g(x) = 1 - T_t(u(x))/T_t(a), T_t by doubling per point
    def via_doubling():
        t, tv = or_degree(k, g)
        worst = fmpq(0)
        for x in range(k + 1):
            gx = 1 - chebyshev_t_value(t, fmpq(k + 1 - 2 * x, k - 1)) / tv
            worst = max(worst, abs(gx - (1 if x >= 1 else 0)))
        return worst

    worst, dw, dc = timed(via_doubling)

    # proposed fast exact method: screen all points with arb balls (128 bits) on the
    # Chebyshev form g = 1 + c_t T_t(v), then decide the few points whose ball reaches the
    # best lower bound exactly (T_t by doubling).  The maximum is exact: every other point's
    # rigorous upper bound is below a proven lower bound of the maximum.
    def hybrid():
        from flint import arb, ctx

        t, tv = or_degree(k, g)
        old = ctx.prec
        ctx.prec = 128
        try:
            ct = arb(-((-1) ** t) / tv)
            balls = []
            for x in range(k + 1):
                v = arb(fmpq(2 * x - k - 1, k - 1))
                balls.append(abs(1 + ct * v.chebyshev_t(t) - (1 if x >= 1 else 0)))
            best_lo = max(b.lower() for b in balls)
            cand = [x for x, b in enumerate(balls) if not b.upper() < best_lo]
        finally:
            ctx.prec = old
        exact = max(
            abs(1 - chebyshev_t_value(t, fmpq(k + 1 - 2 * x, k - 1)) / tv - (1 if x >= 1 else 0))
            for x in cand
        )
        return exact, len(cand)

    (hworst, ncand), hw, hc = timed(hybrid)
    return {
        "degree": a.poly.degree,
        "build": (bw, bc),
        "certify": (cw, cc),
        "finite_max_error": finite_s,
        "coefficient_norm": norm_s,
        "complete": cert.complete,
        "error": cert.error.get("upper_decimal", cert.error["upper"]),
        "doubling": (dw, dc),
        "hybrid": (hw, hc),
        "hybrid_candidates": ncand,
        "hybrid_agrees": hworst == worst,
        "doubling_agrees": str(worst) == cert.error["upper"]
        or worst == fmpq(*[int(v) for v in cert.error["upper"].split("/")]),
    }


# --------------------------------------------------------------------------- output


def crosscheck_rows() -> tuple[bool, list[str], float]:
    from dpverify.crosscheck import crosscheck

    rep, w, _ = timed(crosscheck, "full")
    lines = ["| check | tolerance | max abs dev | max rel dev | status | cases |",
             "|---|---|---|---|---|---|"]
    for c in rep["checks"]:
        tol = c["tolerance"]
        if c["status"] == "skipped":
            lines.append(f"| {c['name']} | - | - | - | skipped ({c['reason']}) | 0 |")
            continue
        scale = tol["scale"].replace("|", "\\|")
        lines.append(
            f"| {c['name']} | {tol['kind']} <= {tol['value']} (scale {scale}) | "
            f"{c['max_abs']} | {c['max_rel']} | {c['status']} | {len(c['cases'])} |"
        )
    return rep["passed"], lines, w


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--no-crosscheck", action="store_true")
    ap.add_argument("--no-write", action="store_true")
    ap.add_argument("--points", type=int, default=10**6)
    args = ap.parse_args(argv)
    out: list[str] = [SECTION, ""]
    out.append("Script: `benchmarks/fast_vs_exact.py` (one command; every figure below was "
               "measured in the same run). Machine: "
               f"{platform.machine()} {os.cpu_count()} cores, Python "
               f"{platform.python_version()}, numpy {np.__version__}, dpverify {__version__}; "
               f"run {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}. The machine was "
               "shared with other jobs; CPU seconds are the more stable figure.")
    out.append("")

    print("== table generation: exact vs fast", flush=True)
    trs = bench_tables()
    ew, ec, fw, fc = bench_jackson_d2()
    trs.append(("Jackson damped coefficients d=2, t=64, K=3, f=exp(-(x^2+y^2)) (rigorous "
                "reference vs FFT-DCT)", ew, ec, fw, fc))
    out += ["### Table generation (exact construction vs fast float64)", "",
            "| table family | exact s (cpu) | fast s (cpu) | ratio (cpu) |", "|---|---|---|---|"]
    big_ratio = []
    small_ratio = []
    for name, ew, ec, fw, fc in trs:
        (big_ratio if ec / max(fc, 1e-6) >= 100 else small_ratio).append(
            f"{name.split(',')[0]} ({ec / max(fc, 1e-6):.3g}x)")
        ratio = ec / max(fc, 1e-6)
        print(f"{name}: exact {ew:.3g}s (cpu {ec:.3g}) fast {fw:.3g}s (cpu {fc:.3g}) "
              f"ratio {ratio:.3g}", flush=True)
        out.append(f"| {name} | {fmt_s(ew)} ({fmt_s(ec)}) | {fmt_s(fw)} ({fmt_s(fc)}) | "
                   f"{ratio:.3g}x |")
    out.append("")
    out.append("Same, for the content of `dpverify table NAME` over each table's full grid "
               "(exact construction + exact strings + correctly rounded float64) vs the fast "
               "path computing the same quantities in float64:")
    out += ["", "| table | entries | exact s (cpu) | fast s (cpu) | ratio (cpu) |",
            "|---|---|---|---|---|"]
    for name, n, tw, tc, fw2, fc2 in bench_table_pipeline():
        r2 = tc / max(fc2, 1e-6)
        print(f"table {name} ({n}): exact {tw:.3g}s fast {fw2:.3g}s ratio {r2:.3g}", flush=True)
        out.append(f"| {name} | {n} | {fmt_s(tw)} ({fmt_s(tc)}) | {fmt_s(fw2)} ({fmt_s(fc2)}) "
                   f"| {r2:.3g}x |")
    out.append("")
    out.append("The target is a fast path at least 100x faster for table generation. In "
               "this run that holds where the exact construction does real work: "
               + "; ".join(big_ratio) + ". It does not hold for "
               + ("; ".join(small_ratio) if small_ratio else "none")
               + ", where the exact FLINT construction itself takes milliseconds and both "
               "sides are dominated by Python call overhead.")
    out.append("Ratios are CPU-time ratios of the same run; the fast timings of the smallest "
               "families are a few milliseconds, so their ratios are coarse (timer resolution "
               "and Python call overhead).")
    out.append("")

    print(f"== evaluation at {args.points} points", flush=True)
    ers = bench_eval(args.points)
    out += [f"### Evaluation at {args.points} query points", "",
            "| what | wall s | cpu s | note |", "|---|---|---|---|"]
    for what, w, c, note in ers:
        print(f"{what}: {w:.3g}s (cpu {c:.3g}) {note}", flush=True)
        out.append(f"| {what} | {fmt_s(w)} | {fmt_s(c)} | {note} |")
    out.append("")

    print("== exact OR k=10^4, gamma=1e-12: build + certify on {0..k}", flush=True)
    big = bench_big_or()
    print(big, flush=True)
    out += ["### Exact OR, k = 10^4, gamma = 1e-12, certified on all of {0..k}", "",
            f"* `or_polynomial(10**4, \"1e-12\")`: degree {big['degree']}, built in "
            f"{fmt_s(big['build'][0])} s (cpu {fmt_s(big['build'][1])}).",
            f"* `certify(...)`: {fmt_s(big['certify'][0])} s (cpu {fmt_s(big['certify'][1])}), "
            f"complete = {big['complete']}, exact max error {big['error']} "
            f"(= 1/T_t((k+1)/(k-1))).",
            f"* Where the time goes (cProfile): `certify/finite.py:finite_max_error` "
            f"{fmt_s(big['finite_max_error'])} s -- the screened path: the polynomial is "
            "proved to be `alpha + beta*T_t(lam*x + mu)` (Chebyshev's differential equation, "
            "exact), every point is screened with 128-bit arb balls (`arb.chebyshev_t`) and "
            "the few points whose ball reaches the best proven lower bound are decided by "
            "exact evaluation of the monomial form; `coefficient_norm` "
            f"{fmt_s(big['coefficient_norm'])} s (exact sum of 1418 rationals of ~19000 "
            "bits, one gcd per addition).",
            f"* For comparison, exact evaluation at every point: `g(x) = 1 - T_t(u(x))/T_t(a)` "
            f"with `T_t` by the doubling formulas (`chebyshev_t_value`) gives the same "
            f"exact maximum (agrees: {big['doubling_agrees']}) in "
            f"{fmt_s(big['doubling'][0])} s (cpu {fmt_s(big['doubling'][1])}); before the "
            "screened path, `finite_max_error` evaluated the degree-1417 monomial form "
            "exactly at each point (about 0.4 ms a point, 4 s in all).",
            f"* The screen-then-decide idea written out inline (128-bit balls on the "
            f"Chebyshev form, exact decision of the {big['hybrid_candidates']} surviving "
            f"points): same exact maximum ({big['hybrid_agrees']}), "
            f"{fmt_s(big['hybrid'][0])} s (cpu {fmt_s(big['hybrid'][1])}). "
            "`certify` now does this itself; CLI wall times: `benchmarks/or_scale.py`.",
            ""]

    if not args.no_crosscheck:
        print("== dpverify crosscheck --full", flush=True)
        passed, lines, w = crosscheck_rows()
        print("\n".join(lines), flush=True)
        out += ["### `dpverify crosscheck --full`", "",
                f"Result: **{'passed' if passed else 'FAILED'}** ({fmt_s(w)} s). Deviations "
                "are exact (each float converted to the rational it denotes), rounded up to 6 "
                "digits; `rel` is `max |fast - exact| / scale`.", ""] + lines + [""]

    text = "\n".join(out) + "\n"
    if not args.no_write:
        write_section(SECTION, text)
        print(f"wrote section {SECTION!r} of {os.path.normpath(DOC)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
