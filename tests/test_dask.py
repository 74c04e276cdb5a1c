"""The dask backend: same privacy record and same release as the local backend
on a 2-worker LocalCluster, bad partitions refused with one line, no partial results.

One in-process cluster for the module (threads, no process start-up); the worker-loss
tests start a process cluster and are marked slow.
"""

from __future__ import annotations

import io
import json
import logging
import re
from contextlib import redirect_stderr, redirect_stdout

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from distributed import Client, LocalCluster

from dpverify.cli import main
from dpverify.errors import DPVerifyError, InvalidParameterError
from dpverify.mechanisms import bernstein_mech as bm
from dpverify.mechanisms import wang_summary as ws
from dpverify.mechanisms.backend import reduce_rows
from dpverify.mechanisms.data import BINARY
from dpverify.mechanisms.tuv import tuv_release
from dpverify.numbers import parse_fmpq_str


def _csv(path, X, header="", fmt="%.17g"):
    np.savetxt(path, X, delimiter=",", header=header, comments="", fmt=fmt)
    return str(path)


@pytest.fixture(scope="module")
def cube(tmp_path_factory):
    """900 rows in [-1, 1]^2: one CSV, and the same rows as 2 CSV files + 1 Parquet file of
    3 row groups (5 partitions)."""
    g = np.random.default_rng(7)  # public synthetic data
    X = np.clip(g.normal(0.1, 0.5, (900, 2)), -1, 1)
    d = tmp_path_factory.mktemp("cube")
    whole = _csv(d / "whole.csv", X, header="x,y")
    parts = d / "parts"
    parts.mkdir()
    _csv(parts / "a.csv", X[:300], header="x,y")
    _csv(parts / "b.csv", X[300:500])
    pq.write_table(pa.table({"x": X[500:, 0], "y": X[500:, 1]}), str(parts / "c.parquet"),
                   row_group_size=150)
    return X, whole, str(parts)


def test_wang_dask_equals_local(cube, client):
    X, _, parts = cube
    t, d = 6, 2
    loc = ws.release_summary(X, t, 1, insecure_seed=11)
    dsk = ws.release_summary(parts, t, 1, insecure_seed=11, backend="dask", scheduler=client)
    # the privacy record is identical (same n, t, d, epsilon)
    assert dsk.to_json()["privacy"] == loc.to_json()["privacy"]
    assert dsk.info["statistics"]["partitions"] == 5
    # the sums are exact fixed-point integers: the partitions and the tree change nothing
    red = ws.reduce_moment_sums(parts, t, scheduler=client)
    assert red.n == len(X) and red.partitions == 5
    assert (red.value == ws.exact_moment_sums(X, t)).all()
    assert dsk.info["float_error"] == loc.info["float_error"]
    E = ws.moment_error_bound(t, d)
    assert parse_fmpq_str(loc.info["float_error"]["per_moment_bound"]) == E
    assert dsk.moments == loc.moments


def test_tuv_and_bernstein_identical(tmp_path, client):
    # integer statistics: support counts and clamped lattice sums are exact, so the dask
    # release equals the local one coordinate by coordinate
    g = np.random.default_rng(3)
    B = (g.random((400, 5)) < 0.3).astype(np.int8)
    for i in range(4):
        _csv(tmp_path / f"b{i}.csv", B[i * 100:(i + 1) * 100], fmt="%d")
    loc = tuv_release(B, 2, "1/10", 1, insecure_seed=4)
    dsk = tuv_release(str(tmp_path / "b*.csv"), 2, "1/10", 1, insecure_seed=4,
                      backend="dask", scheduler=client)
    assert dsk.data["coefficients"] == loc.data["coefficients"]
    assert dsk.data["privacy"] == loc.data["privacy"]
    U = g.uniform(0, 1, (300, 1))
    for i in range(3):
        _csv(tmp_path / f"u{i}.csv", U[i * 100:(i + 1) * 100])
    q = bm.kde_query("1/4", 1)
    rl = bm.release_bernstein(U, q, 4, 1, 1, insecure_seed=9)
    rd = bm.release_bernstein(str(tmp_path / "u*.csv"), q, 4, 1, 1, insecure_seed=9,
                              backend="dask", scheduler=client)
    assert rd.values == rl.values and rd.privacy == rl.privacy


def test_reduction_tree_covers_every_partition(tmp_path, client):
    # 9 partitions, fan-in 2: depth ceil(log2 9) = 4; the counts are checked against a
    # direct column sum (independent of the tree)
    g = np.random.default_rng(5)
    B = (g.random((90, 3)) < 0.5).astype(np.int8)
    for i in range(9):
        _csv(tmp_path / f"p{i}.csv", B[i * 10:(i + 1) * 10], fmt="%d")
    red = reduce_rows(str(tmp_path), _column_sums, domain=BINARY, scheduler=client,
                      split_every=2)
    assert (red.n, red.partitions, red.depth) == (90, 9, 4)
    assert red.value.tolist() == B.sum(axis=0).tolist()


def _column_sums(X):
    return X.sum(axis=0)


def _cli(argv):
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        rc = main(argv)
    return rc, out.getvalue(), err.getvalue()


@pytest.mark.parametrize("case, match", [
    ("domain", r"--data '.*bad\.csv' line 3 column 2: the value is outside \[-1, 1\]$"),
    ("column", r"--data '.*bad\.csv': 1 columns, expected 2"),
    ("cell", r"--data '.*bad\.csv' line 2 column 1: expected a number"),
    ("parquet", r"--data '.*bad\.parquet' is not a valid Parquet file"),
])
def test_bad_partition_one_line_exit_2_nothing_written(tmp_path, client, case, match):
    _csv(tmp_path / "a.csv", np.zeros((5, 2)), header="x,y")
    bad = {"domain": ("bad.csv", "x,y\n0,0\n0,1.5\n"), "column": ("bad.csv", "0\n1\n"),
           "cell": ("bad.csv", "0,0\nzz,1\n"), "parquet": ("bad.parquet", "not parquet")}
    name, text = bad[case]
    (tmp_path / name).write_text(text)
    out = tmp_path / "summary.json"
    rc, stdout, err = _cli(["release", "wang-summary", "--data", str(tmp_path), "--t", "3",
                            "--epsilon", "1", "--backend", "dask", "--scheduler",
                            client.scheduler.address, "--json", "--out", str(out)])
    assert rc == 2 and stdout == "" and not out.exists()
    lines = err.strip().splitlines()
    assert len(lines) == 1 and re.search(match, lines[0]), lines[0]


def test_cli_dask_release_matches_local(cube, client):
    _, whole, parts = cube
    common = ["release", "wang-summary", "--t", "4", "--epsilon", "1", "--insecure-seed",
              "2", "--json"]
    rc1, a, _ = _cli(common + ["--data", whole])
    rc2, b, _ = _cli(common + ["--data", parts, "--backend", "dask", "--scheduler",
                               client.scheduler.address])
    a, b = json.loads(a), json.loads(b)
    assert rc1 == rc2 == 0 and a["privacy"] == b["privacy"]
    g = parse_fmpq_str(a["grid"])
    assert all(abs(parse_fmpq_str(x) - parse_fmpq_str(y)) <= g
               for x, y in zip(a["moments"], b["moments"], strict=True))
    rc, _, err = _cli(common + ["--data", whole, "--scheduler", "tcp://127.0.0.1:1"])
    assert rc == 2 and "--scheduler needs --backend dask" in err


def test_non_sum_query_refused(tmp_path, client):
    _csv(tmp_path / "u.csv", np.full((4, 2), 0.5))
    q = bm.logistic_query(1, 1)
    with pytest.raises(InvalidParameterError, match="needs a mean query"):
        bm.release_bernstein(str(tmp_path / "u.csv"), q, 2, 1, 1, backend="dask",
                             scheduler=client)
    with pytest.raises(InvalidParameterError, match="backend must be one of"):
        ws.release_summary(np.zeros((2, 1)), 2, 1, backend="spark")


@pytest.fixture(scope="module")
def process_cluster():
    cluster = LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                           dashboard_address=":0", silence_logs=logging.CRITICAL)
    c = Client(cluster)
    yield c
    c.close()
    cluster.close()


@pytest.mark.slow
def test_worker_lost_mid_run_same_result(tmp_path, process_cluster):
    # the first task to see the flag file kills its worker process; the scheduler
    # reschedules the task on a fresh worker and the total is the same
    g = np.random.default_rng(8)
    B = (g.random((60, 2)) < 0.5).astype(np.int8)
    for i in range(3):
        _csv(tmp_path / f"p{i}.csv", B[i * 20:(i + 1) * 20], fmt="%d")
    flag = tmp_path / "kill-once"
    flag.write_text("1")

    def stat(X, flag=str(flag)):
        import os

        if os.path.exists(flag):
            os.remove(flag)
            os._exit(1)  # the worker dies mid-run
        return X.sum(axis=0)

    red = reduce_rows(str(tmp_path / "p*.csv"), stat, domain=BINARY,
                      scheduler=process_cluster)
    assert not flag.exists() and red.value.tolist() == B.sum(axis=0).tolist()


@pytest.mark.slow
def test_worker_lost_every_time_fails_clearly(tmp_path, process_cluster):
    _csv(tmp_path / "p.csv", np.ones((3, 1)), fmt="%d")

    def stat(X):
        import os

        os._exit(1)

    with pytest.raises(DPVerifyError, match="nothing was released"):
        reduce_rows(str(tmp_path / "p.csv"), stat, scheduler=process_cluster)


@pytest.mark.slow
def test_embedded_local_cluster_without_address(cube):
    # no scheduler: an embedded process LocalCluster is started and closed by the call
    X, _, parts = cube
    loc = ws.release_summary(X, 4, 1, insecure_seed=3)
    dsk = ws.release_summary(parts, 4, 1, insecure_seed=3, backend="dask")
    assert dsk.to_json()["privacy"] == loc.to_json()["privacy"]
    assert "embedded LocalCluster" in dsk.info["statistics"]["scheduler"]
    assert all(abs(a - b) <= loc.grid for a, b in zip(loc.moments, dsk.moments, strict=True))


def test_table_grid_on_dask_is_byte_identical(tmp_path):
    # the grid of a reference table computed on a 2-worker cluster gives
    # the same bytes (JSON, CSV, manifest with sha256) as the serial run
    from dpverify.tables import write_tables

    cluster = LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                           dashboard_address=":0")
    try:
        with Client(cluster) as client:
            names = ["or-chebyshev", "jackson-multipliers"]
            serial = write_tables(names, str(tmp_path / "serial"), "quick")
            dask = write_tables(names, str(tmp_path / "dask"), "quick", backend="dask",
                                scheduler=client)
    finally:
        cluster.close()
    assert serial == dask
    for name in sorted(p.name for p in (tmp_path / "serial").iterdir()):
        assert (tmp_path / "serial" / name).read_bytes() == \
            (tmp_path / "dask" / name).read_bytes()


def test_every_release_bit_identical_on_dask(tmp_path, client):
    # the statistics are exact integers: the dask release equals the local release of the
    # same rows as an array, bit for bit, for every encoding the workers read (files of
    # a few rows, CSV + Parquet partitions), both neighbouring relations
    from dpverify.mechanisms.jin_synthetic import release_synthetic, release_synthetic_basis
    from tests._encodings import released, write_variants

    g = np.random.default_rng(21)  # public synthetic rows
    U = g.uniform(0, 1, (40, 2))
    B = (g.random((40, 4)) < 0.4).astype(np.int64)
    runs = [
        (U, lambda X, **kw: released(bm.release_bernstein(
            X, bm.kde_query("1/4", 2), 4, 1, 1, insecure_seed=2, check=False,
            **kw).to_json())),
        (2 * U - 1, lambda X, **kw: released(ws.release_summary(
            X, 4, 1, insecure_seed=2, **kw).to_json())),
        (2 * U - 1, lambda X, **kw: release_synthetic(
            X, 3, 4, 1, insecure_seed=2, **kw).rows.tolist()),
        (2 * U - 1, lambda X, **kw: [str(v) for v in release_synthetic_basis(
            X, 4, 1, basis_degree=2, grid_subset=10, insecure_seed=2, **kw).summary.moments]),
        (B, lambda X, **kw: released(tuv_release(X, 2, "1/10", 1, insecure_seed=2,
                                                 **kw).data)),
    ]
    for i, (X, run) in enumerate(runs):
        variants = write_variants(tmp_path / f"r{i}", X, integers=X.dtype.kind == "i")
        for nb in ("replace", "add-remove"):
            want = run(X, neighbours=nb)
            for label in ("one file per part", "csv + parquet"):
                got = run(variants[label], neighbours=nb, backend="dask", scheduler=client)
                assert got == want, (i, nb, label)
