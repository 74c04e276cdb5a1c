"""``dpverify table ... --backend dask``: a grid of parameters computed in
parallel on a 2-worker LocalCluster gives files byte-identical to the serial run.

One in-process cluster (threads: no process start-up) for the module.
"""

from __future__ import annotations

import os
import sys

import pytest
from distributed import get_task_stream

from dpverify import tables
from dpverify.cli import main
from dpverify.errors import InvalidParameterError, MissingExtraError

# a grid spread over several constructions, so the entries differ in cost and finish out of
# order on the two workers
GRID = {"k": [2, 5, 10, 25, 40], "gamma": ["1e-1", "1e-3", "1e-6"]}


def _files(d):
    return {f: (d / f).read_bytes() for f in sorted(os.listdir(d))}


def test_dask_grid_is_byte_identical_to_serial(client, tmp_path):
    serial, par = tmp_path / "serial", tmp_path / "dask"
    names = ["or", "and", "dlist"]
    ms = tables.write_tables(names, str(serial), params=GRID)
    with get_task_stream(client) as ts:
        md = tables.write_tables(names, str(par), params=GRID, backend="dask",
                                 scheduler=client)
    assert ms == md
    fs, fd = _files(serial), _files(par)
    assert set(fs) == {f"{n}.{ext}" for n in names for ext in ("json", "csv")} | \
        {"manifest.json"}
    assert fs == fd
    assert len(ms["tables"]["or"]["parameters"]) == 15
    # every entry was a task on the cluster, spread over both workers
    runs = [t for t in ts.data if "table_entry" in str(t["key"])]
    assert len(runs) == 3 * 15
    assert len({t["worker"] for t in runs}) == 2


def test_dask_builtin_grids_and_cli_scheduler(client, tmp_path, capsys):
    serial, par = tmp_path / "s", tmp_path / "d"
    assert main(["table", "jackson", "bernstein", "--quick", "--out", str(serial)]) == 0
    addr = client.scheduler.address
    assert main(["table", "jackson", "bernstein", "--quick", "--backend", "dask",
                 "--scheduler", addr, "--out", str(par)]) == 0
    assert _files(serial) == _files(par)
    assert tables.build_table("rofk", "quick", backend="dask", scheduler=client) == \
        tables.build_table("rofk", "quick")


def test_error_on_a_worker_reaches_the_caller_and_nothing_is_written(client, tmp_path):
    out = tmp_path / "bad"
    # gamma = 2 is an exact number (accepted by the grid) but outside (0, 1): the worker's
    # construction refuses it
    with pytest.raises(InvalidParameterError, match="gamma"):
        tables.write_tables(["or"], str(out), params={"k": [5, 6], "gamma": ["1e-1", "2"]},
                            backend="dask", scheduler=client)
    assert not out.exists()


def test_missing_dask_names_the_extra(monkeypatch, tmp_path):
    monkeypatch.setitem(sys.modules, "distributed", None)  # import distributed -> ImportError
    with pytest.raises(MissingExtraError, match=r'pip install "dpverify\[dask\]"'):
        tables.build_table("or", params={"k": 5, "gamma": "1e-1"}, backend="dask")


def test_dask_grid_progress_on_stderr_only(client, tmp_path, capsys):
    # --progress counts the entries as they complete on the cluster; stdout is
    # the same as without it (6 entries: the 2 x 3 product of the flags)
    addr = client.scheduler.address
    argv = ["table", "or", "--k", "2,5", "--gamma", "1e-1,1e-3,1/7", "--backend", "dask",
            "--scheduler", addr]
    assert main([*argv, "--out", str(tmp_path / "p"), "--progress"]) == 0
    with_p = capsys.readouterr()
    assert main([*argv, "--out", str(tmp_path / "n"), "--no-progress"]) == 0
    without = capsys.readouterr()
    assert without.err == ""
    assert "dpverify table: entries" in with_p.err and "(6/6)" in with_p.err
    assert with_p.out.replace(str(tmp_path / "p"), "D") == \
        without.out.replace(str(tmp_path / "n"), "D")
    assert _files(tmp_path / "p") == _files(tmp_path / "n")
