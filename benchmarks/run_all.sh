#!/usr/bin/env bash
# Every figure of docs/benchmarks.md in one run: each script times its subject against a baseline
# measured in the same run and rewrites its own section of docs/benchmarks.md.
# Run on a quiet machine: `bash benchmarks/run_all.sh` (about 60 minutes on 2 cores;
# needs `apt-get install -y sollya` for the first script and `apt-get install -y gappa` for
# evalbound_tightness.py, which leaves Gappa's columns empty without it).
set -euo pipefail
cd "$(dirname "$0")/.."
export OPENBLAS_NUM_THREADS=${OPENBLAS_NUM_THREADS:-1}
python3 benchmarks/supnorm_vs_sollya.py --timeout 60 --repeat 2
python3 benchmarks/cli_startup.py
python3 benchmarks/latency.py
python3 benchmarks/or_scale.py
python3 benchmarks/fast_vs_exact.py
# BLAS threads unset: the script compares 1 thread and every core itself (threadpoolctl)
env -u OPENBLAS_NUM_THREADS python3 benchmarks/summary_release.py
python3 benchmarks/jackson_speed.py
python3 benchmarks/dask_release.py
python3 benchmarks/limits.py
python3 benchmarks/verify_constructions.py
python3 benchmarks/evalbound_tightness.py
python3 benchmarks/minimax_reach.py
python3 benchmarks/fpminimax_vs_sollya.py
# every degree of |x| to 512 and sqrt(x) to 256, each verified (about 30-40 minutes)
python3 benchmarks/minimax_sweep.py
python3 benchmarks/check_scale.py
# every binary32 input of 8 numpy float32 functions, all cores and Dask (about 45 minutes)
python3 benchmarks/check_binary32.py
# glibc tgamma/lgamma/j0/y0 and math.gamma/lgamma against Arb; planted binary64 defects
python3 benchmarks/check_special.py
# r-of-k at scale (about 15 minutes: (5, 500) writes a 4 GB certificate in a temporary
# directory and needs about 10 GB of memory; `--quick` skips it)
python3 benchmarks/rofk_scale.py
# the cost of checking every issued certificate against the checker's schema
python3 benchmarks/issue_overhead.py
# round-off of the 20 FPBench programs of FPTaylor's tests vs FPTaylor and Gappa, binary64
# and binary32, 10^5 sampled inputs each (Gappa with hints: up to an hour)
python3 benchmarks/roundoff_fpbench.py
# total error of exp polynomials: binary32 exhaustively, binary64 at 10^6 inputs
python3 benchmarks/total_error.py
# dpverify implement: whole process of exp (binary32, binary64) and cos at 1 ulp, ratio to the import baseline
python3 benchmarks/implement_speed.py
