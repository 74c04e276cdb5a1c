"""Benchmark: wang2013 summary release on Dask against the local backend.

1. A generator writes ``n`` synthetic rows in ``[-1, 1]^d`` as Parquet files of
   ``--rows-per-file`` rows and row groups of ``--row-group`` rows (one file in memory at a
   time), public synthetic data from numpy's generator (no privacy role).
2. Local backend: the first ``--local-n`` rows (whole files) read with the one data reader
   (:mod:`dpverify.mechanisms.data`) and released with
   :func:`dpverify.mechanisms.wang_summary.release_summary` -- rows/s including reading.
3. Dask backend: a ``distributed.LocalCluster`` of ``--workers`` single-threaded worker
   processes (start-up timed separately), ``release_summary(dir, backend="dask")`` over the
   same first ``--local-n`` rows (same run, rows/s), then over all ``n`` rows.
4. Peak memory per worker: the peak resident set size of each worker process after the run
   (``VmHWM``) and before it (idle), so the increment is what the release used.  Bounded
   by design: a task holds one partition (a row group: the Arrow table, a pandas frame and a
   float64 array, ``~3 x row_group x d x 8`` bytes) plus the moment chunk
   (``CHUNK_BYTES`` = 8 MiB) and the ``t^d`` partial sums.
5. Agreement: the local and dask releases over the same rows (same ``insecure_seed``) have
   the same privacy record and identical moments (the sums are exact integers).

Run: ``python benchmarks/dask_release.py`` (n = 10^7, a few minutes on 2 cores); the issue's
size: ``python benchmarks/dask_release.py --n 100000000 --local-n 10000000`` (~1.6 GB of
Parquet for d = 2; ``--dir`` to keep the files, otherwise a temporary directory).
Prints a Markdown section (docs/dask.md quotes a run).
"""

from __future__ import annotations

import argparse
import logging
import os
import shutil
import sys
import tempfile
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from _doc import machine_line, write_section  # noqa: E402


def generate(directory: str, n: int, d: int, rows_per_file: int, row_group: int,
             seed: int = 0) -> list[str]:
    """Write n rows as Parquet files (clipped normal, public synthetic data)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    g = np.random.default_rng(seed)
    files = []
    for i, r0 in enumerate(range(0, n, rows_per_file)):
        r = min(rows_per_file, n - r0)
        X = np.clip(g.normal(0.0, 0.4, (r, d)), -1, 1)
        path = os.path.join(directory, f"part-{i:05d}.parquet")
        pq.write_table(pa.table({f"x{j}": X[:, j] for j in range(d)}), path,
                       row_group_size=row_group)
        files.append(path)
    return files


def _peak_rss_mib() -> float:
    """Peak resident set size of this process (MiB): ``VmHWM`` of /proc/self/status (Linux;
    reset by exec, unlike ``ru_maxrss``, which a spawned worker inherits from its parent)."""
    with open("/proc/self/status", encoding="ascii") as fh:
        for line in fh:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    return float("nan")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=10**7, help="rows generated (issue: 10^8)")
    ap.add_argument("--local-n", type=int, default=10**7,
                    help="rows of the local-vs-dask comparison (whole files)")
    ap.add_argument("--d", type=int, default=2)
    ap.add_argument("--t", type=int, default=32)
    ap.add_argument("--rows-per-file", type=int, default=10**6)
    ap.add_argument("--row-group", type=int, default=250_000)
    ap.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--dir", default=None, help="keep the Parquet files here")
    ap.add_argument("--no-write", action="store_true", help="do not rewrite docs/benchmarks.md")
    args = ap.parse_args(argv)

    from distributed import Client, LocalCluster

    from dpverify.mechanisms.data import read_data
    from dpverify.mechanisms.wang_summary import release_summary

    work = args.dir or tempfile.mkdtemp(prefix="dpverify-dask-")
    os.makedirs(work, exist_ok=True)
    try:
        t0 = time.perf_counter()
        files = generate(work, args.n, args.d, args.rows_per_file, args.row_group)
        t_gen = time.perf_counter() - t0
        n_files_local = max(1, min(len(files), args.local_n // args.rows_per_file))
        local_files = files[:n_files_local]
        sub = os.path.join(work, "local-subset")
        os.makedirs(sub, exist_ok=True)
        for f in local_files:  # the same rows for both backends, by hard link
            dst = os.path.join(sub, os.path.basename(f))
            if not os.path.exists(dst):
                os.link(f, dst)

        # warm-up (imports, first-call costs) on one row group, not timed
        release_summary(read_data(files[0]).values[: args.row_group], args.t, 1)
        t0 = time.perf_counter()
        X = np.concatenate([read_data(f).values for f in local_files])
        t_read = time.perf_counter() - t0
        t0 = time.perf_counter()
        loc = release_summary(X, args.t, 1, insecure_seed=1)
        t_loc = time.perf_counter() - t0
        n_loc = len(X)
        peak_client = _peak_rss_mib()
        del X

        t0 = time.perf_counter()
        cluster = LocalCluster(n_workers=args.workers, threads_per_worker=1, processes=True,
                               dashboard_address=":0", silence_logs=logging.ERROR)
        client = Client(cluster)
        t_start = time.perf_counter() - t0
        warm = os.path.join(work, "warm-up")
        os.makedirs(warm, exist_ok=True)
        generate(warm, 8000, args.d, 1000, 1000, seed=1)  # 8 partitions: every worker
        release_summary(warm, args.t, 1, backend="dask", scheduler=client)  # imports
        idle = client.run(_peak_rss_mib)  # after the imports: the increment is the data
        t0 = time.perf_counter()
        dsub = release_summary(sub, args.t, 1, insecure_seed=1, backend="dask",
                               scheduler=client)
        t_dsub = time.perf_counter() - t0
        t0 = time.perf_counter()
        dall = release_summary(work, args.t, 1,
                               backend="dask", scheduler=client) if args.n > n_loc else dsub
        t_dall = time.perf_counter() - t0 if args.n > n_loc else t_dsub
        peak = client.run(_peak_rss_mib)
        client.close()
        cluster.close()
    finally:
        if args.dir is None:
            shutil.rmtree(work, ignore_errors=True)

    same_priv = dsub.to_json()["privacy"] == loc.to_json()["privacy"]
    within = max(abs(a - b) for a, b in zip(loc.moments, dsub.moments, strict=True))
    out = ["## Dask backend (wang-summary)", ""]
    out.append(f"Script: `benchmarks/dask_release.py` (same run). {machine_line()} Shared "
               "machine; wall seconds.")
    out.append("")
    blas = os.environ.get("OPENBLAS_NUM_THREADS", "unset")
    out.append(f"BLAS threads: client OPENBLAS_NUM_THREADS={blas}; Dask workers 1 "
               "(distributed's default pre-spawn environment).")
    out.append("")
    out.append(f"d = {args.d}, t = {args.t} ({args.t ** args.d} moments); Parquet files of "
               f"{args.rows_per_file} rows, row groups of {args.row_group} rows (one "
               f"partition each); {args.workers} single-threaded worker processes; "
               f"generator: {t_gen:.1f} s for {args.n} rows.")
    out.append("")
    out.append("| backend | rows | seconds | rows/s | note |")
    out.append("|---|---|---|---|---|")
    out.append(f"| local (read + release) | {n_loc} | {t_read + t_loc:.2f} | "
               f"{n_loc / (t_read + t_loc):.3g} | read {t_read:.2f} s, release "
               f"{t_loc:.2f} s |")
    out.append(f"| dask LocalCluster | {n_loc} | {t_dsub:.2f} | {n_loc / t_dsub:.3g} | "
               f"{dsub.info['statistics']['partitions']} partitions, tree depth "
               f"{dsub.info['statistics']['reduction_depth']}; cluster start "
               f"{t_start:.1f} s not included |")
    if args.n > n_loc:
        out.append(f"| dask LocalCluster | {args.n} | {t_dall:.2f} | {args.n / t_dall:.3g} | "
                   f"{dall.info['statistics']['partitions']} partitions, depth "
                   f"{dall.info['statistics']['reduction_depth']} |")
    out.append("")
    per = sorted(peak.items())
    out.append("Peak RSS per worker (MiB, after an 8000-row warm-up -> after the runs): "
               + ", ".join(f"{idle[w]:.0f} -> {v:.0f}" for w, v in per)
               + f"; client process peak {peak_client:.0f} MiB (holds the local backend's "
               "whole array).")
    out.append("")
    out.append(f"Same privacy record: {same_priv}; released moments identical: "
               f"{within == 0} (exact fixed-point sums: any partitioning, any tree).")
    print("\n".join(out))
    if not args.no_write:
        write_section(out[0], "\n".join(out) + "\n")
    return 0 if same_priv and within == 0 else 1


if __name__ == "__main__":
    raise SystemExit(main())
