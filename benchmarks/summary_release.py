"""Benchmark: wang2013 summary release for n = 10^6 rows, d = 2, t = 32.

Stages timed separately (wall and CPU seconds of this process, same run):

* Chebyshev moments by the three-term recurrence and exact fixed-point GEMMs per row chunk
  (:func:`dpverify.mechanisms.wang_summary.chebyshev_moments`: four limb products of 18 bits
  in one float64 GEMM of twice the shape, exact), against the **baseline** of
  the formula as printed (wang2013 Algorithm 1: ``prod_i cos(m_i arccos x_i)``, one numpy
  pass over the rows per moment), measured on a row subsample and scaled linearly in n
  (its cost is exactly linear in n: one pass per moment); agreement of the two checked;
* the exact sensitivity record (upper bound and certified witness lower bound);
* the full release (moments + exact discrete Laplace noise for ``t^d - 1`` moments, OS
  randomness);
* one query answer with and without its certified error bound;
* moments throughput (flops ``2 n t^d``) for d = 1, 2, 3 as a fraction of the
  throughput of a numpy GEMM **of the same shape** measured in the same run -- the product
  ``(t^{d-1} x m) @ (m x t)`` on operands already in memory (m rows; d = 1 is the
  ``(1 x m) @ (m x t)`` product), i.e. what float moments would cost if the Chebyshev tables
  and the Khatri-Rao block were free (the exact moments do 4x its flops, plus the limb
  splits); and the peak working memory of a chunk (``CHUNK_BYTES``);
* reading the CSV (the one data reader, :mod:`dpverify.mechanisms.data`) as a
  fraction of the whole ``dpverify release wang-summary`` command on the same file, with
  the strict ``csv.reader`` path (the reference the fast path is checked against) for
  comparison;
* the whole command on the CSV against the same command on the Parquet file of
  the same rows (target: at most 1.3x), the CSV being parsed block by block in a background
  thread while the moments of the previous block are summed; the non-overlapped path (read
  the whole file, then the moments) for comparison; and a check that the released moments
  are identical from the CSV, the Parquet file and the rows in memory.

Run: ``python benchmarks/summary_release.py [--n N] [--t T] [--no-write]``; unless
``--no-write`` the section "## Wang summary release" of docs/benchmarks.md is replaced.
"""

from __future__ import annotations

import argparse
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from _doc import machine_line, timed, write_section  # noqa: E402

from dpverify.cli import main as cli_main  # noqa: E402
from dpverify.mechanisms import data as data_reader  # noqa: E402
from dpverify.mechanisms.data_csv import read_csv_text  # noqa: E402
from dpverify.mechanisms.wang_summary import (  # noqa: E402
    CHUNK_BYTES,
    chebyshev_moments,
    chunk_rows,
    moment_sensitivity,
    moment_sums,
    release_summary,
)
from dpverify.numbers import parse_fmpq_str  # noqa: E402

SECTION = "## Wang summary release"
QUERY = "exp(-(x-0.3)^2-(y+0.1)^2)"


def printed_formula_moments(X: np.ndarray, t: int) -> np.ndarray:
    """Baseline: ``b_m = mean prod_i cos(m_i arccos x_i)`` moment by moment (as printed)."""
    acos = np.arccos(X)
    out = np.empty((t, t))
    for m1 in range(t):
        c1 = np.cos(m1 * acos[:, 0])
        for m2 in range(t):
            out[m1, m2] = np.mean(c1 * np.cos(m2 * acos[:, 1]))
    return out


def gemm_fraction(n: int, t: int, d: int, g: np.random.Generator) -> dict:
    """Moments vs a same-shape GEMM on in-memory operands (best of 5 interleaved runs
    each), and the peak memory of the moments beyond the data."""
    import time

    X = np.clip(g.normal(0.0, 0.4, (n, d)), -1, 1)
    m = max(1, min(n, (256 << 20) // (8 * (t ** (d - 1) + t))))  # operands <= 256 MiB
    A = g.uniform(-1, 1, (t ** (d - 1), m))
    B = g.uniform(-1, 1, (t, m))
    best_m = best_g = cpu_m = cpu_g = float("inf")
    for _ in range(5):  # interleaved: both see the same load of a shared machine
        t0, c0 = time.perf_counter(), time.process_time()
        moment_sums(X, t)
        best_m = min(best_m, time.perf_counter() - t0)
        cpu_m = min(cpu_m, time.process_time() - c0)
        t0, c0 = time.perf_counter(), time.process_time()
        A @ B.T
        best_g = min(best_g, time.perf_counter() - t0)
        cpu_g = min(cpu_g, time.process_time() - c0)
    rate_m = 2 * n * t**d / best_m
    rate_g = 2 * m * t**d / best_g
    # CPU seconds (all threads of this process): robust to other jobs taking the cores
    frac_cpu = (2 * n * t**d / cpu_m) / (2 * m * t**d / cpu_g)
    return {"d": d, "t": t, "n": n, "m": m, "moments_s": best_m, "gemm_s": best_g,
            "rate_m": rate_m, "rate_g": rate_g, "fraction": rate_m / rate_g,
            "fraction_cpu": frac_cpu,
            "chunk_rows": chunk_rows(t, d), "peak_mib": peak_memory(X, t) / 2**20}


def blas_settings() -> list[tuple[str, object]]:
    """The BLAS thread settings to compare: 1 thread and every core (threadpoolctl), or
    only the process's own setting when threadpoolctl is absent."""
    import contextlib

    try:
        from threadpoolctl import threadpool_limits
    except ImportError:
        blas = os.environ.get("OPENBLAS_NUM_THREADS", "default")
        return [(f"env ({blas})", contextlib.nullcontext)]
    cores = os.cpu_count() or 1
    return [("1 thread", lambda: threadpool_limits(1, user_api="blas")),
            (f"{cores} threads", lambda: threadpool_limits(cores, user_api="blas"))]


def peak_memory(X: np.ndarray, t: int) -> int:
    """Peak bytes allocated by numpy during ``moment_sums(X, t)`` beyond the data
    (tracemalloc sees numpy's buffers; run apart from the timings)."""
    import tracemalloc

    tracemalloc.start()
    try:
        tracemalloc.reset_peak()
        base = tracemalloc.get_traced_memory()[0]
        moment_sums(X, t)
        return tracemalloc.get_traced_memory()[1] - base
    finally:
        tracemalloc.stop()


#: The files of the reading comparison: (label, writer format or "parquet").
READ_FORMATS = (("CSV, 17 significant digits (every float64 round-trips)", "%.17g"),
                ("CSV, 8 significant digits", "%.8g"),
                ("Parquet (pyarrow extra)", "parquet"))


def _best_of(fn, repeat: int = 3) -> tuple[float, float]:
    """Least wall and least CPU seconds of ``repeat`` calls."""
    import time

    wall = cpu = float("inf")
    for _ in range(repeat):
        t0, c0 = time.perf_counter(), time.process_time()
        fn()
        wall = min(wall, time.perf_counter() - t0)
        cpu = min(cpu, time.process_time() - c0)
    return wall, cpu


def _blas_like_stream(csv: bool):
    """The BLAS thread limit the library sets while a CSV is parsed in the background."""
    import contextlib

    if not csv:
        return contextlib.nullcontext()
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:
        return contextlib.nullcontext()
    return threadpool_limits(1, user_api="blas")


def _arrow_parse(path: str) -> float:
    """pyarrow.csv.read_csv alone on ``path`` (no checks, no copy): the parser floor."""
    import pyarrow as pa
    from pyarrow import csv as pacsv

    opts = {"read_options": pacsv.ReadOptions(column_names=["x", "y"], skip_rows=1),
            "convert_options": pacsv.ConvertOptions(
                column_types={"x": pa.float64(), "y": pa.float64()})}
    return _best_of(lambda: pacsv.read_csv(path, **opts))[0]


def reading_fraction(n: int, t: int, g: np.random.Generator) -> dict:
    """Read time of the one data reader vs the whole CLI release on the same file, for
    each of :data:`READ_FORMATS`, plus the strict path and numpy.loadtxt on the 17-digit
    CSV (measured on n/10 rows, x10)."""
    import contextlib
    import io
    import tempfile

    X = np.clip(g.normal(0.0, 0.4, (n, 2)), -1, 1)
    rows: list[dict] = []
    with tempfile.TemporaryDirectory() as tmp:
        for label, fmt in READ_FORMATS:
            if fmt == "parquet":
                try:
                    import pyarrow as pa
                    import pyarrow.parquet as pq
                except ImportError:
                    continue
                path = os.path.join(tmp, "data.parquet")
                pq.write_table(pa.table({"x": X[:, 0], "y": X[:, 1]}), path)
            else:
                path = os.path.join(tmp, f"data{fmt[2:-1]}.csv")
                np.savetxt(path, X, delimiter=",", header="x,y", comments="", fmt=fmt)

            def release(path: str = path) -> None:
                with contextlib.redirect_stdout(io.StringIO()):
                    rc = cli_main(["release", "wang-summary", "--data", path, "--t", str(t),
                                   "--epsilon", "1", "--json", "--no-progress"])
                if rc != 0:
                    raise SystemExit("the CLI release failed")

            read_w, read_c = _best_of(lambda path=path: data_reader.read_data(path))
            cli_w, cli_c = _best_of(release, 5)
            seq_w = _best_of(lambda path=path: release_summary(
                data_reader.read_data(path).values, t, 1), 3)[0]
            # the same rows in memory (the 8-digit file holds rounded values), summed with
            # the BLAS threads of the streamed path (one for a CSV, parsed alongside)
            rows_in_memory = data_reader.read_data(path).values
            with _blas_like_stream(fmt != "parquet"):
                want = release_summary(rows_in_memory, t, 1, insecure_seed=1).moments
            same = release_summary(path, t, 1, insecure_seed=1).moments == want
            arrow = None
            if fmt != "parquet":
                try:
                    arrow = _arrow_parse(path)
                except ImportError:
                    pass
            rows.append({"label": label, "mb": os.path.getsize(path) / 1e6,
                         "read_s": read_w, "cli_s": cli_w, "fraction": read_w / cli_w,
                         "fraction_cpu": read_c / cli_c, "arrow_s": arrow,
                         "sequential_s": seq_w, "identical": same, "fmt": fmt})
        path = os.path.join(tmp, "data17.csv")
        with open(path, encoding="utf-8") as fh:
            text = fh.read()
        sub = "\n".join(text.splitlines()[: n // 10 + 1]) + "\n"
        strict = _best_of(lambda: read_csv_text(path, sub, strict_only=True), 1)[0] * 10
        loadtxt = _best_of(lambda: np.loadtxt(io.StringIO(sub), delimiter=",",
                                              skiprows=1), 1)[0] * 10
    return {"n": n, "rows": rows, "strict_s": strict, "loadtxt_s": loadtxt}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=10**6)
    ap.add_argument("--t", type=int, default=32)
    ap.add_argument("--baseline-rows", type=int, default=10**5)
    ap.add_argument("--no-write", action="store_true")
    ap.add_argument("--gemm-n", type=int, default=10**6,
                    help="rows of the moments-vs-GEMM comparison (d = 1, 2; d = 3 uses n/4)")
    args = ap.parse_args(argv)
    n, t, d = args.n, args.t, 2
    g = np.random.default_rng(0)  # synthetic public data, not privacy noise
    X = np.clip(g.normal(0.0, 0.4, (n, d)), -1, 1)

    rows: list[tuple[str, float, float, str]] = []
    B, w_fast, c_fast = timed(chebyshev_moments, X, t)
    rows.append(("Chebyshev moments, recurrence + GEMM (dpverify)", w_fast, c_fast, ""))
    nb = min(args.baseline_rows, n)
    Bb, w_base, c_base = timed(printed_formula_moments, X[:nb], t)
    scale = n / nb
    rows.append((f"baseline: printed formula cos(m arccos x), {t * t} passes", w_base * scale,
                 c_base * scale, f"measured on {nb} rows, x{scale:g} (linear in n)"))
    sub = chebyshev_moments(X[:nb], t)
    agree = float(np.max(np.abs(sub - Bb)))
    _, w_sens, c_sens = timed(moment_sensitivity, t, d, n)
    rows.append(("sensitivity record (exact, incl. certified witness)", w_sens, c_sens, ""))
    S, w_rel, c_rel = timed(release_summary, X, t, 1)  # OS randomness: the real thing
    rows.append((f"full release (moments + exact discrete Laplace x {t**d - 1})", w_rel, c_rel,
                 ""))
    res, w_ans, c_ans = timed(S.answer, QUERY, 2, rtol="1e-1")
    rows.append((f"one query `{QUERY}`, K = 2, answer + certified alpha (rtol 1e-1)", w_ans,
                 c_ans, ""))
    res2, w_a2, c_a2 = timed(S.answer, QUERY, 2, certify_error=False)
    rows.append(("same query, answer only", w_a2, c_a2, ""))
    if res2["answer"] != res["answer"]:
        raise SystemExit("the two answers differ")
    truth = float(np.mean(np.exp(-(X[:, 0] - 0.3) ** 2 - (X[:, 1] + 0.1) ** 2)))
    settings = blas_settings()
    gemm: list[dict] = []
    readings: list[tuple[str, dict]] = []
    for label, limit in settings:
        with limit():
            gemm += [dict(gemm_fraction(args.gemm_n if dd < 3 else max(1, args.gemm_n // 4),
                                        32, dd, g), blas=label) for dd in (1, 2, 3)]
            readings.append((label, reading_fraction(n, t, g)))
    reading = readings[0][1]
    lam = float(parse_fmpq_str(S.privacy["scale"]))

    out = [SECTION, ""]
    out.append(f"Script: `benchmarks/summary_release.py` (every figure measured in the same "
               f"run). {machine_line()} The machine was shared with other jobs; CPU seconds "
               f"are the more stable figure.")
    out.append("")
    out.append(f"n = {n} rows (synthetic, clipped normal), d = {d}, t = {t} ({t**d} moments), "
               f"epsilon = 1.")
    out.append("")
    out.append("| stage | wall s | cpu s | note |")
    out.append("|---|---|---|---|")
    for name, w, c, note in rows:
        out.append(f"| {name} | {w:.3g} | {c:.3g} | {note} |")
    out.append("")
    out.append(f"* Moments: recurrence + GEMM is **{c_base * scale / c_fast:.0f}x** (cpu) / "
               f"{w_base * scale / w_fast:.0f}x (wall) faster than the printed formula; on the "
               f"{nb}-row subsample the two agree to {agree:.2e} (the proven a-priori bound of "
               f"`moment_error_bound` is 4 d t^2 2^-53 + 2^-36 per moment, for every n; "
               f"the sums are exact fixed-point integers, the same for any chunking).")
    out.append(f"* Noise scale lambda = {lam:.6g} (derived sensitivity 2(t^d - 1)/n plus the "
               f"grid term; wang2013's printed t^d/(n epsilon) is too small, docs/mechanisms.md)"
               f"; grid 2^{int(np.log2(float(S.grid)))}.")
    out.append(f"* Query answer {res['answer_decimal']} vs non-private truth {truth:.6f}; "
               f"certified alpha(1/20) = {res['alpha_decimal']} (certified approximation "
               f"part {res['approximation_error']}).")
    out.append("")
    blas = os.environ.get("OPENBLAS_NUM_THREADS", "unset")
    out.append(f"BLAS threads: OPENBLAS_NUM_THREADS={blas} for the stages above. The two "
               "comparisons below are measured under each BLAS thread setting in "
               "the same run (" + ", ".join(lb for lb, _ in settings) + "; threadpoolctl "
               "sets it for the moments and the baseline alike).")
    out.append("")
    out.append(f"Moments throughput (exact fixed-point sums: 4x the flops of a float GEMM "
               f"plus the limb splits) against a numpy float GEMM of the same shape, same "
               f"run; chunk memory <= 2 CHUNK_BYTES = {2 * CHUNK_BYTES >> 20} MiB:")
    out.append("")
    out.append("| BLAS | d | t | rows | chunk rows | moments GFLOP/s | GEMM GFLOP/s (m rows) | "
               "fraction (wall) | fraction (cpu) | peak MiB beyond the data |")
    out.append("|---|---|---|---|---|---|---|---|---|---|")
    for r in gemm:
        out.append(f"| {r['blas']} | {r['d']} | {r['t']} | {r['n']} | {r['chunk_rows']} | "
                   f"{r['rate_m'] / 1e9:.2f} | {r['rate_g'] / 1e9:.2f} ({r['m']}) | "
                   f"**{100 * r['fraction']:.0f}%** | {100 * r['fraction_cpu']:.0f}% | "
                   f"{r['peak_mib']:.1f} |")
    out.append("")
    out.append("The exact GEMMs run on one BLAS thread whatever the setting (small "
               "products: a multi-threaded BLAS on a busy machine loses far more to "
               "synchronisation than it gains), while with several BLAS threads the "
               "baseline uses every core; the 1-thread rows and the CPU column compare the "
               "work.")
    out.append("")
    out.append(f"Reading (target < 20% of a release): the one data reader against "
               f"the whole `dpverify release wang-summary --t {t}` command on the same "
               f"{reading['n']}-row file (best of 3 each). *floor*: pyarrow.csv.read_csv "
               f"alone on the file (the parser the reader uses, no checks and no copy) as a "
               f"share of the same command, i.e. the least share any reader built on it can "
               f"reach:")
    out.append("")
    out.append("| BLAS | file | MB | read s | release s | release / Parquet release | "
               "read share (wall) | read share (cpu) | pyarrow parse alone s | floor share |")
    out.append("|---|---|---|---|---|---|---|---|---|---|")
    for label, rd in readings:
        pq_s = next((r["cli_s"] for r in rd["rows"] if r["fmt"] == "parquet"), None)
        for r in rd["rows"]:
            arrow = "-" if r["arrow_s"] is None else f"{r['arrow_s']:.3f}"
            floor = "-" if r["arrow_s"] is None else f"{100 * r['arrow_s'] / r['cli_s']:.0f}%"
            ratio = "-" if pq_s is None else f"**{r['cli_s'] / pq_s:.2f}**"
            out.append(f"| {label} | {r['label']} | {r['mb']:.1f} | {r['read_s']:.3f} | "
                       f"{r['cli_s']:.3f} | {ratio} | {100 * r['fraction']:.0f}% | "
                       f"{100 * r['fraction_cpu']:.0f}% | {arrow} | {floor} |")
    out.append("")
    out.append("Overlap (target: a CSV release takes at most 1.3x the Parquet "
               "release): the command reads `--data` in blocks of 4 MiB, parsed by pyarrow in "
               "a background thread while the moments of the previous block are summed (on "
               "one BLAS thread, so that the parser has the other core). "
               "Without the overlap -- the whole file read first, then the release on the "
               "rows in memory -- the same releases take:")
    out.append("")
    out.append("| BLAS | file | release, overlapped s | read all, then release s | "
               "released moments identical to the in-memory release (same BLAS threads) |")
    out.append("|---|---|---|---|---|")
    for label, rd in readings:
        for r in rd["rows"]:
            out.append(f"| {label} | {r['label']} | {r['cli_s']:.3f} | "
                       f"{r['sequential_s']:.3f} | {r['identical']} |")
    out.append("")
    full = reading["rows"][0]
    out.append(f"On the 17-digit CSV the strict csv.reader path would take "
               f"~{reading['strict_s']:.2f} s and numpy.loadtxt ~{reading['loadtxt_s']:.2f} s "
               f"(both measured on n/10 rows, x10): the reader is "
               f"**{reading['loadtxt_s'] / full['read_s']:.1f}x** numpy.loadtxt"
               + (f" and {full['read_s'] / full['arrow_s']:.2f}x pyarrow's parse alone."
                  if full["arrow_s"] else "."))
    text = "\n".join(out) + "\n"
    print(text)
    if not args.no_write:
        write_section(SECTION, text)
        print(f"wrote section {SECTION!r} of docs/benchmarks.md")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
