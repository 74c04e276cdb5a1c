"""The data side of the release commands: sources (directories, standard input), the size
cap and its flag, values kept out of messages unless ``--show-values``, ``--timeout`` on
every release command, the ``--insecure-seed`` announcement, and a release from a file
(CSV or Parquet, read in blocks with the parse overlapped) bit-identical to the release
from the same rows as an array, with the same BLAS threads."""

from __future__ import annotations

import io
import json
import os
import re
import sys
from contextlib import redirect_stderr, redirect_stdout

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from dpverify.cli import build_parser, main
from dpverify.mechanisms import data_csv
from dpverify.mechanisms import wang_summary as ws


def _cli(argv, stdin: bytes | None = None, monkeypatch=None):
    out, err = io.StringIO(), io.StringIO()
    if stdin is not None:
        monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(stdin)))
    with redirect_stdout(out), redirect_stderr(err):
        rc = main(argv)
    return rc, out.getvalue(), err.getvalue()


def _csv(path, X, header="x,y"):
    np.savetxt(path, X, delimiter=",", header=header, comments="", fmt="%.17g")
    return str(path)


WANG = ["release", "wang-summary", "--t", "4", "--epsilon", "1", "--insecure-seed", "3",
        "--json", "--no-progress"]


@pytest.fixture(scope="module")
def cube(tmp_path_factory):
    g = np.random.default_rng(5)  # public synthetic data
    X = np.clip(g.normal(0.0, 0.5, (3000, 2)), -1, 1)
    d = tmp_path_factory.mktemp("cube")
    return X, _csv(d / "all.csv", X), d


def test_release_from_csv_and_parquet_is_the_array_release(tmp_path, monkeypatch):
    # the moments of a file read in blocks (parse overlapped with the sums) are those of
    # one call on the rows, bit for bit (exact sums), so the released JSON is the same;
    # small blocks and chunks force many pieces whose boundaries fall inside the chunks
    monkeypatch.setattr(data_csv, "BLOCK_BYTES", 4096)
    g = np.random.default_rng(11)  # public synthetic data
    for d in (1, 2, 3):
        X = np.clip(g.normal(0.0, 0.5, (20_001, d)), -1, 1)
        header = ",".join("xyz"[:d])
        path = _csv(tmp_path / f"c{d}.csv", X, header)
        ppath = str(tmp_path / f"c{d}.parquet")
        pq.write_table(pa.table({c: X[:, j] for j, c in enumerate("xyz"[:d])}), ppath,
                       row_group_size=7000)
        # the sums are exact integers: the thread count of the BLAS does not matter
        want = ws.release_summary(X, 5, 1, insecure_seed=9).to_json()
        sums = ws.exact_moment_sums(X, 5)
        assert (ws.reduce_moment_sums(path, 5, backend="local").value == sums).all()
        assert ws.release_summary(path, 5, 1, insecure_seed=9).to_json() == want
        assert ws.release_summary(ppath, 5, 1, insecure_seed=9).to_json() == \
            ws.release_summary(X, 5, 1, insecure_seed=9).to_json()


def test_csv_release_without_the_optional_speed_ups(tmp_path, monkeypatch):
    """Without pyarrow (the fast CSV parse) and threadpoolctl (one BLAS thread while a
    block is parsed) -- the [parquet] and [dask] extras bring them -- a CSV release reads
    the same rows, says nothing about them, and equals the in-memory release."""
    monkeypatch.setattr(data_csv, "BLOCK_BYTES", 4096)
    for name in ("pyarrow", "pyarrow.csv", "threadpoolctl"):
        monkeypatch.setitem(sys.modules, name, None)  # import raises ImportError
    g = np.random.default_rng(12)  # public synthetic data
    X = np.clip(g.normal(0.0, 0.5, (5_001, 2)), -1, 1)
    path = _csv(tmp_path / "c.csv", X)
    assert ws.release_summary(path, 4, 1, insecure_seed=9).to_json() == \
        ws.release_summary(X, 4, 1, insecure_seed=9).to_json()
    rc, out, err = _cli(WANG + ["--data", path])
    assert rc == 0 and err.count("\n") == 1 and "insecure-seed" in err, err


def test_local_backend_reads_a_directory_like_the_concatenation(cube, tmp_path):
    X, whole, _ = cube
    parts = tmp_path / "parts"
    parts.mkdir()
    _csv(parts / "a.csv", X[:1000])
    _csv(parts / "b.csv", X[1000:2000], header="")
    pq.write_table(pa.table({"x": X[2000:, 0], "y": X[2000:, 1]}), str(parts / "c.parquet"))
    (parts / "_SUCCESS").write_text("")  # writer markers are skipped
    rc1, a, _ = _cli(WANG + ["--data", whole])
    rc2, b, _ = _cli(WANG + ["--data", str(parts)])
    rc3, c, _ = _cli(WANG + ["--data", str(parts / "*.csv")])
    assert rc1 == rc2 == rc3 == 0 and a == b
    assert json.loads(c)["n"] == 2000


def test_standard_input(cube, monkeypatch):
    X, whole, _ = cube
    with open(whole, "rb") as fh:
        raw = fh.read()
    rc1, a, _ = _cli(WANG + ["--data", whole])
    rc2, b, _ = _cli(WANG + ["--data", "-"], stdin=raw, monkeypatch=monkeypatch)
    assert rc1 == rc2 == 0 and a == b
    rc, _, err = _cli(WANG + ["--data", "-", "--backend", "dask"], stdin=raw,
                      monkeypatch=monkeypatch)
    assert rc == 2 and "--data - (standard input) needs --backend local" in err


def test_size_cap_flag(cube):
    X, whole, _ = cube
    size = X.size * 8  # decoded values, 8 bytes each (the text size does not count)
    rc, out, err = _cli(WANG + ["--data", whole, "--max-data-size", str(size - 1)])
    assert rc == 2 and out == ""
    assert re.search(r"--data '.*all\.csv' has more than 2999 rows of 2 values: more than the "
                     r"size cap of .* \(raise it with --max-data-size\)$", err.strip()), err
    assert _cli(WANG + ["--data", whole, "--max-data-size", str(size)])[0] == 0
    assert _cli(WANG + ["--data", whole, "--max-data-size", "1M"])[0] == 0
    # the grammar of --max-memory / --max-input (1.5G too), less a share of the machine
    assert _cli(WANG + ["--data", whole, "--max-data-size", "1.5G"])[0] == 0
    assert _cli(WANG + ["--data", whole, "--max-data-size", "0.5M"])[0] == 0
    for bad in ("4X", "-1", "0", "50%", "1.5", "1e9", ""):
        rc, _, err = _cli(WANG + ["--data", whole, "--max-data-size", bad])
        assert rc == 2 and "--max-data-size must be" in err, (bad, err)


def test_values_only_with_show_values(tmp_path):
    p = tmp_path / "b.csv"
    p.write_text("x,y\n0,1\n0.7123456789,0\n")
    base = ["tuv-release", "--data", str(p), "--k", "1", "--gamma", "1/10", "--epsilon", "1"]
    rc, _, err = _cli(base)
    assert rc == 2 and "0.71" not in err
    assert err.strip().endswith("line 3 column 1: the value is outside {0, 1}")
    rc, _, err = _cli(base + ["--show-values"])
    assert rc == 2 and err.strip().endswith("(value: '0.7123456789')")
    p.write_text("x,y\n0,1\n0,secret\n")
    rc, _, err = _cli(base)
    assert rc == 2 and "secret" not in err and "line 3 column 2: expected a number" in err
    rc, _, err = _cli(base + ["--show-values"])
    assert "(value: 'secret')" in err
    # the decision-list reader follows the same rule
    dl = tmp_path / "d.csv"
    dl.write_text("1,0,1\n7,1,0\n")
    rc, _, err = _cli(["tuv-release", "--dlists", str(dl), "--m", "3", "--k", "2",
                       "--gamma", "1/10", "--epsilon", "1"])
    assert rc == 2 and "line 2 node 1: a literal must be +-j with 1 <= j <= m = 3" in err
    assert "7" not in err.split("m = 3")[1]


def _runs(tmp_path):
    U = tmp_path / "u.csv"
    U.write_text("x,y\n0.25,0.5\n0.75,0.125\n0.5,0.5\n")
    B = tmp_path / "b.csv"
    B.write_text("x,y\n0,1\n1,1\n0,0\n")
    L = tmp_path / "l.csv"
    L.write_text("1,0,1\n-2,1,0\n")
    return {
        "tuv-release": ["tuv-release", "--data", str(B), "--k", "1", "--gamma", "1/10",
                        "--epsilon", "1"],
        "tuv-release --dlists": ["tuv-release", "--dlists", str(L), "--m", "2", "--k", "2",
                                 "--gamma", "1/10", "--epsilon", "1"],
        "release bernstein": ["release", "bernstein", "--data", str(U), "--function", "kde",
                              "--bandwidth", "1/4", "--k", "2", "--epsilon", "1"],
        "release wang-summary": ["release", "wang-summary", "--data", str(U), "--t", "3",
                                 "--epsilon", "1"],
        "release jin-synthetic": ["release", "jin-synthetic", "--data", str(U), "--t", "2",
                                  "--N", "3", "--epsilon", "1"],
    }


def test_insecure_seed_is_announced_by_every_command(tmp_path):
    for name, argv in _runs(tmp_path).items():
        rc, out, err = _cli(argv + ["--insecure-seed", "3", "--no-progress"])
        assert rc == 0, (name, err)
        assert re.search(r"warning: --insecure-seed 3: the noise is reproducible and the "
                         r"release is NOT private", err), (name, err)
        assert "INSECURE" in out  # the table says it too
        rc, out, err = _cli(argv + ["--no-progress"])
        assert rc == 0 and "insecure" not in err.lower(), (name, err)


def test_every_release_command_takes_timeout(tmp_path):
    parser = build_parser()
    for name, argv in _runs(tmp_path).items():
        assert parser.parse_args(argv).timeout == "600", name
    assert parser.parse_args(["release-size", "--d", "3", "--class", "disjunction", "--k", "2",
                              "--epsilon", "1", "--alpha", "1/2", "--beta", "1/2"]).timeout
    assert parser.parse_args(["answer", "--summary", "s.json"]).timeout == "600"


def test_timeout_ends_a_release_waiting_on_a_stream(monkeypatch):
    # a writer that sends nothing: the read would wait forever; the time limit ends it
    r, w = os.pipe()
    try:
        monkeypatch.setattr(sys, "stdin", os.fdopen(r, "r"))
        rc, out, err = _cli(["release", "wang-summary", "--data", "-", "--t", "3",
                             "--epsilon", "1", "--timeout", "1/2"])
    finally:
        os.close(w)
    assert rc == 1 and out == "" and "time limit of 1/2 s reached" in err


def test_release_help_names_every_mechanism_and_the_data_flags(capsys):
    with pytest.raises(SystemExit):
        main(["release", "--help"])
    text = capsys.readouterr().out
    for mech in ("bernstein", "wang-summary", "jin-synthetic"):
        assert mech in text
    with pytest.raises(SystemExit):
        main(["release", "wang-summary", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    for flag in ("--max-data-size SIZE", "--show-values", "--timeout SECONDS",
                 "'-' for standard input", "default 4G"):
        assert flag in text, flag
