"""The reproducers of an expert privacy review, each as a test of the behaviour that must
hold: releases that do not depend on how the rows are cut or encoded, refusals that do not
depend on private values, records that list every assumption they rest on, insecure
randomness marked in every record, and the standard-stream and header edge cases of the
data reader."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest
from flint import fmpq

from dpverify.errors import InvalidParameterError
from dpverify.mechanisms import bernstein_mech as bm
from dpverify.mechanisms.data import DataSource

# Two rows found by a search over uniform pairs: for 2-D linear-mean at k = 20, phi = <y, d>
# computed as one BLAS product of the 2-row block and as two 1-row products rounds
# differently at lattice point 192, enough to move the released centre by one grid step.
PAIR = np.array([[0.5620515900997094, 0.38776911565595396],
                 [0.7916562055903406, 0.6051365892775145]])


def _csv(path, rows, fmt="%r"):
    with open(path, "w") as fh:
        fh.write("x,y\n")
        for r in rows:
            fh.write(",".join(fmt % float(v) for v in r) + "\n")
    return str(path)


def test_linear_mean_release_does_not_depend_on_file_split(tmp_path):
    # the same two rows in one file, and one row per file (each file is its own block):
    # noise-free releases (epsilon 2^64) must be bit-identical
    one = _csv(tmp_path / "one.csv", PAIR)
    split = tmp_path / "split"
    split.mkdir()
    _csv(split / "a.csv", PAIR[:1])
    _csv(split / "b.csv", PAIR[1:])
    q = bm.linear_mean_query(2)
    r1 = bm.release_bernstein(one, q, 20, 1, 2**64, insecure_seed=0, check=False)
    r2 = bm.release_bernstein(str(split), q, 20, 1, 2**64, insecure_seed=0, check=False)
    r3 = bm.release_bernstein(PAIR, q, 20, 1, 2**64, insecure_seed=0, check=False)
    assert r1.values == r2.values == r3.values


def test_size_cap_does_not_depend_on_the_digits(tmp_path):
    # neighbouring files (one row replaced: 0.5 -> 0.123456789): both released or both
    # refused, whatever the cap
    a = tmp_path / "a.csv"
    b = tmp_path / "b.csv"
    a.write_text("x\n0.5\n0.25\n")
    b.write_text("x\n0.123456789\n0.25\n")
    for cap in range(1, 64):
        outcomes = []
        for f in (a, b):
            try:
                src = DataSource(str(f), max_bytes=cap)
                list(src.tables())
                outcomes.append("released")
            except InvalidParameterError:
                outcomes.append("refused")
        assert outcomes[0] == outcomes[1], cap


def test_rowwise_flag_no_longer_removes_the_assumption():
    def chunk_max(d, y):
        return np.tile(np.max(d[:, 0]) * y[:, :1], (1, len(d)))

    with pytest.raises(TypeError, match="rowwise"):
        bm.mean_query("mixing", chunk_max, 0, 1, 1, rowwise=True)


def test_user_sensitivity_is_an_assumption_even_with_derived_flag():
    def F(D, ys):
        return [fmpq(int(np.sum(D[:, 0] > 0.5))) for _ in ys]  # a count: S = 1, not 1/n

    with pytest.raises(TypeError, match="derived"):
        bm.FunctionQuery("count", F, lambda n: fmpq(1, n), 1,
                         lambda n, g: g.uniform(0, 1, (n, 1)), derived=True)
    q = bm.FunctionQuery("count", F, lambda n: fmpq(1, n), 1,
                         lambda n, g: g.uniform(0, 1, (n, 1)))
    D = np.linspace(0, 1, 100).reshape(-1, 1)
    rel = bm.release_bernstein(D, q, 2, 1, 1, check=False, insecure_seed=0)
    a = rel.privacy["assumptions"]
    assert any("S(F) = 1/100" in s and "not tested" in s for s in a), a
    assert rel.privacy["guarantee"]["assumptions"] == a


def test_release_from_moment_sums_states_its_input_assumption():
    from dpverify.mechanisms.wang_summary import release_from_moment_sums

    s = release_from_moment_sums(np.array([4.0, 1.0, -1.0]), 4, 3, 1, insecure_seed=0)
    assert any("sums" in x and "[-1, 1]" in x for x in s.privacy["assumptions"])
    # sums that no n rows in [-1, 1] can have are refused (a moment sum is in [-n, n])
    with pytest.raises(InvalidParameterError, match="sums"):
        release_from_moment_sums(np.array([4.0, 2001.0, -1.0]), 4, 3, 1, insecure_seed=0)


def test_insecure_seed_is_marked_in_every_record():
    from dpverify.mechanisms.jin_synthetic import release_synthetic, release_synthetic_basis
    from dpverify.mechanisms.wang_summary import release_summary

    X = np.array([[0.5, 0.125], [-0.25, 0.375], [1.0, -1.0], [0.0, 0.75]])
    recs = [
        release_summary(X, 3, 1, insecure_seed=0).privacy,
        release_synthetic(X, 2, 3, 1, insecure_seed=0).privacy,
        release_synthetic_basis(X, 3, 1, basis_degree=1, insecure_seed=0).privacy,
        bm.release_bernstein((X + 1) / 2, bm.linear_mean_query(2), 2, 1, 1,
                             insecure_seed=0).privacy,
    ]
    for p in recs:
        assert p["secure_randomness"] is False
        assert "NOT private" in p["guarantee"]["statement"]
    assert release_summary(X, 3, 1).privacy["secure_randomness"] is True


def test_jin_basis_release_has_its_float_error_block():
    from dpverify.mechanisms.jin_synthetic import release_synthetic_basis

    X = np.array([[0.5, 0.125], [-0.25, 0.375], [1.0, -1.0], [0.0, 0.75]])
    syn = release_synthetic_basis(X, 3, 1, basis_degree=2, insecure_seed=0)
    fe = syn.info["float_error"]
    assert fmpq(0) < fmpq(fe["per_moment_bound"]) < fmpq(1, 2**30)


def _cli(capsys, *argv):
    from dpverify.cli import main

    rc = main(list(argv))
    out = capsys.readouterr()
    return rc, out.out, out.err


def test_closed_stdin_is_one_line_exit_2():
    r = subprocess.run(
        ["sh", "-c", f"'{sys.executable}' -m dpverify release wang-summary --data - --t 3 "
         "--epsilon 1 --no-progress <&-"], capture_output=True, text=True, timeout=120)
    assert r.returncode == 2, r.stderr
    assert len(r.stderr.strip().splitlines()) == 1 and "standard input" in r.stderr
    assert "Traceback" not in r.stderr


def test_header_mismatch_between_files_names_positional_columns(tmp_path, capsys):
    d = tmp_path / "parts"
    d.mkdir()
    (d / "a.csv").write_text("x,y\n0.5,0.25\n")
    (d / "b.csv").write_text("y,x\n0.25,0.5\n")
    rc, out, err = _cli(capsys, "release", "wang-summary", "--data", str(d), "--t", "3",
                        "--epsilon", "1", "--no-progress", "--json")
    assert rc == 2 and out == ""
    assert "b.csv" in err and "position" in err and len(err.strip().splitlines()) == 1
    # --columns checks the header of every file (a typo is named)
    f = tmp_path / "c.csv"
    f.write_text("x,lable\n0.5,0.25\n-0.5,0.75\n")
    rc, _, err = _cli(capsys, "release", "wang-summary", "--data", str(f), "--columns",
                      "x,label", "--t", "3", "--epsilon", "1", "--no-progress", "--json")
    assert rc == 2 and "lable" in err and "position" in err
    rc, out, err = _cli(capsys, "release", "wang-summary", "--data", str(f), "--columns",
                        "x,lable", "--t", "3", "--epsilon", "1", "--no-progress", "--json",
                        "--insecure-seed", "1")
    assert rc == 0, err
    assert json.loads(out)["mechanism"] == "wang-summary"


def test_row_mixing_phi_cannot_mix_rows():
    # a phi that mixes rows only in blocks larger than the public test's (16 rows): every
    # value becomes the block maximum.  Called one row at a time it sees one row, so the
    # neighbouring pre-noise centres stay within the record's per-coordinate sensitivity
    # (with a block call, one replaced row would move all 100 values: loss ~ 100 epsilon)
    def sneaky(d, y):
        if len(d) > 16:
            return np.tile(np.max(d[:, 0]) * y[:, :1], (1, len(d)))
        return y[:, :1] * d[:, 0][None, :]

    q = bm.mean_query("sneaky", sneaky, 0, 1, 1)
    D = np.linspace(0, 0.5, 100).reshape(-1, 1)
    D2 = D.copy()
    D2[0] = 1.0
    pts = bm.lattice_points(4, 1)
    g = bm.DEFAULT_GRID
    per = fmpq(1, 100) + g
    for a, b in zip(bm._centres(bm.mean_lattice_sums(q, D, pts, g), 100, g),
                    bm._centres(bm.mean_lattice_sums(q, D2, pts, g), 100, g), strict=True):
        assert abs(a - b) <= per
    rel = bm.release_bernstein(D, q, 4, 1, 1)
    assert any("deterministic function" in s for s in rel.privacy["assumptions"])
    assert rel.privacy["guarantee"]["statement"].startswith("(1, 0)-DP")
    assert "given 1 assumption" in rel.privacy["guarantee"]["statement"]


def test_cli_reproducer_zero_padded_file(tmp_path, capsys, monkeypatch):
    # the review's command on two files with the same rows, one zero-padded, read in blocks
    # cut by bytes (64-byte blocks: the padded file's rows fall in other blocks):
    # noise-free releases (epsilon 2^64) must be equal coordinate by coordinate
    from dpverify.mechanisms import data_csv

    monkeypatch.setattr(data_csv, "BLOCK_BYTES", 64)
    short = _csv(tmp_path / "short.csv", PAIR)
    padded = _csv(tmp_path / "padded.csv", PAIR, fmt="%.40f")
    outs = []
    for f in (short, padded):
        rc, out, err = _cli(capsys, "release", "bernstein", "--data", f, "--function",
                            "linear-mean", "--k", "20", "--h", "1", "--epsilon", str(2**64),
                            "--insecure-seed", "0", "--json", "--no-progress")
        assert rc == 0, err
        outs.append(json.loads(out)["values"])
    assert outs[0] == outs[1]
    # the float-error block of every release
    assert json.loads(out)["float_error"]["role"].startswith("accuracy only")
