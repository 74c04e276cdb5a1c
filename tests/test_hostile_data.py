"""Adversarial suite, hostile data files: every release command and both backends meet a
hostile ``--data`` with one line on stderr and exit 2 -- never a traceback, a hang or an
unbounded allocation -- and never print the offending cell.

The files (:data:`HOSTILE`) cover the families of an attack on a reader: sparse and huge
files, binary content, FIFOs, devices, directories, symbolic-link loops, non-UTF-8 text,
digits of other scripts, NaN/inf spellings, header tricks, empty files and corrupt Parquet.
The slow set runs every file against every command and both backends in a subprocess
whose address space is capped (``RLIMIT_AS``) and whose time is bounded; a huge *valid*
file whose rows would not fit under that cap is released within it (the rows are read in
blocks).  The default set runs a representative subset in-process.
"""

from __future__ import annotations

import io
import os
import re
import resource
import subprocess
import sys
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from dpverify.cli import main

#: A cell that must never appear in a message (a private value that breaks a rule).
SECRET = "1.7123456789"

#: The release commands and the arguments they take besides --data (kept small: the
#: polynomial of tuv-release and the LP of jin-synthetic are cheap at these sizes).
COMMANDS = {
    "tuv-release": ["tuv-release", "--k", "1", "--gamma", "1/10", "--epsilon", "1"],
    "bernstein": ["release", "bernstein", "--function", "kde", "--bandwidth", "1/4", "--k",
                  "2", "--epsilon", "1", "--no-check"],
    "wang-summary": ["release", "wang-summary", "--t", "3", "--epsilon", "1"],
    "jin-synthetic": ["release", "jin-synthetic", "--t", "2", "--N", "3", "--m", "5",
                      "--epsilon", "1"],
}


def _text(path: Path, data: bytes) -> str:
    path.write_bytes(data)
    return str(path)


def _sparse(path: Path, size: int, head: bytes = b"") -> str:
    with open(path, "wb") as fh:
        fh.write(head)
        fh.truncate(size)  # a hole: no disk space used
    return str(path)


def _fifo(path: Path) -> str:
    os.mkfifo(path)
    return str(path)


def _loop(path: Path) -> str:
    a, b = path.with_suffix(".a.csv"), path.with_suffix(".b.csv")
    a.symlink_to(b)
    b.symlink_to(a)
    return str(a)


def _link(path: Path, target: str) -> str:
    path.symlink_to(target)
    return str(path)


def _dir(path: Path, files: dict[str, bytes]) -> str:
    path.mkdir()
    for name, data in files.items():
        if data is None:
            os.mkfifo(path / name)
        else:
            (path / name).write_bytes(data)
    return str(path)


def _parquet(path: Path, table: pa.Table) -> str:
    pq.write_table(table, str(path))
    return str(path)


_OK = b"x,y\n0,1\n1,0\n"

#: name -> (builder(path) -> --data, regex the one line must match).  Every builder makes
#: a file no release may accept; the expected message names the file and the rule.
HOSTILE: dict[str, tuple] = {
    # sparse and huge
    "sparse 2 GiB": (lambda p: _sparse(p, 2 << 30), r"line 1 is longer than 1 MiB"),
    # the size cap counts decoded values (rows), never bytes of text: a 5 GiB file without
    # a line end is refused by the line rule after 1 MiB, not by its size on disk
    "sparse 5 GiB (no line end)": (lambda p: _sparse(p, 5 << 30),
                                   r"line 1 is longer than 1 MiB"),
    "sparse tail after valid rows": (lambda p: _sparse(p, 1 << 30, _OK),
                                     r"line 4 is longer than 1 MiB"),
    "one 2 MiB line": (lambda p: _text(p, b"0," * (1 << 20) + b"1\n"),
                       r"line 1 is longer than 1 MiB"),
    # binary content
    "random bytes": (lambda p: _text(p, np.random.default_rng(0).bytes(1 << 16)),
                     r"line \d+(: not UTF-8 text| column 1: expected a number|: a NUL)"),
    "PNG header": (lambda p: _text(p, b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"),
                   r"line \d+(: not UTF-8 text|: a NUL byte)"),
    "NUL inside a row": (lambda p: _text(p, b"x,y\n0,1\n0,\x001\n"), r"line 3: a NUL byte"),
    "UTF-16 text": (lambda p: _text(p, "x,y\n0,1\n".encode("utf-16")),
                    r"line 1: (not UTF-8 text|a NUL byte)"),
    # not regular files
    "FIFO": (_fifo, r"is a FIFO \(named pipe\), not a regular file; a stream is read as "
             r"standard input \('-'\)"),
    "/dev/zero": (lambda p: "/dev/zero", r"'/dev/zero' is a character device"),
    "symlink to /dev/zero": (lambda p: _link(p, "/dev/zero"), r"is a character device"),
    "symlink to a FIFO": (lambda p: _link(p, _fifo(p.with_suffix(".fifo"))), r"is a FIFO"),
    "symlink loop": (_loop, r"Too many levels of symbolic links"),
    "dangling symlink": (lambda p: _link(p, str(p) + ".missing"), r"No such file"),
    "directory without data files": (lambda p: _dir(p, {"notes.md": b"hi"}),
                                     r"matches no data files"),
    "directory holding a FIFO": (lambda p: _dir(p, {"a.csv": _OK, "b.csv": None}),
                                 r"b\.csv' is a FIFO"),
    "directory with a ragged file": (lambda p: _dir(p, {"a.csv": _OK, "b.csv": b"0,1,0\n"}),
                                     r"b\.csv': 3 columns, expected 2"),
    # text that is not the grammar
    "Latin-1 byte": (lambda p: _text(p, b"x,y\n0,1\n0,\xe9\n"), r"line 3: not UTF-8 text"),
    "full-width digit": (lambda p: _text(p, "x,y\n0,1\n\uff11,0\n".encode()),
                         r"line 3 column 1: expected a number \(an ASCII decimal"),
    "Arabic-Indic digit": (lambda p: _text(p, "x,y\n0,1\n0,\u0661\n".encode()),
                           r"line 3 column 2: expected a number"),
    "no-break space": (lambda p: _text(p, "x,y\n0,\u00a01\n".encode()),
                       r"line 2 column 2: expected a number"),
    "unterminated quote": (lambda p: _text(p, b'x,y\n0,1\n"0,1\n'),
                           r"line 3: malformed quoting"),
    "private value outside the domain": (
        lambda p: _text(p, f"x,y\n0,1\n{SECRET},0\n".encode()),
        r"line 3 column 1: the value is outside (\{0, 1\}|\[-1, 1\])|line 3: data values "
        r"must lie in \[0, 1\]"),
    "private word in a data row": (lambda p: _text(p, b"x,y\n0,1\n0,secretword\n"),
                                   r"line 3 column 2: expected a number"),
    # header tricks
    "header wider than the rows": (lambda p: _text(p, b"x,y,z\n0,1\n"),
                                   r"the header has 3 columns but the data rows have 2"),
    "numeric-looking header": (lambda p: _text(p, b"x1,2\n0,1\n"),
                               r"line 1 column 1: expected a number"),
    "header repeated inside": (lambda p: _text(p, b"x,y\n0,1\nx,y\n1,0\n"),
                               r"line 3 column 1: expected a number"),
    "header only": (lambda p: _text(p, b"x,y\n"), r"has no data rows"),
    # empty
    "empty file": (lambda p: _text(p, b""), r"has no data rows"),
    "blank lines only": (lambda p: _text(p, b"\n \n\t\n\r\n"), r"has no data rows"),
    "ragged row": (lambda p: _text(p, b"0,1\n0\n"), r"line 2: 1 columns, expected 2"),
    # corrupt or hostile Parquet
    "junk named .parquet": (lambda p: _text(p.with_suffix(".parquet"), b"PAR1" * 100),
                            r"is not a valid Parquet file"),
    "Parquet string column": (lambda p: _parquet(p.with_suffix(".parquet"), pa.table(
        {"x": [0.0, 1.0], "y": ["a", "b"]})), r"column 2 \('y'\) has type string"),
    "Parquet null": (lambda p: _parquet(p.with_suffix(".parquet"), pa.table(
        {"x": [0.0, None], "y": [1.0, 0.0]})), r"row 2 column 1 \('x'\): missing value"),
    "Parquet NaN": (lambda p: _parquet(p.with_suffix(".parquet"), pa.table(
        {"x": [0.0, float("nan")], "y": [1.0, 0.0]})), r"row 2 column 1 \('x'\): not a "
        r"finite number"),
}

#: NaN and infinity spellings (each in its own file): none is a number of the grammar.
SPELLINGS = ["nan", "NaN", "-nan", "NAN", "inf", "-inf", "Infinity", "-Infinity", "1e999",
             "-1e400", "0x1p0", "1_0", "1d0", "1e", ".", "+-1"]
for _s in SPELLINGS:
    HOSTILE[f"spelling {_s}"] = (
        lambda p, s=_s: _text(p, f"x,y\n0,1\n0,{s}\n".encode()),
        r"line 3 column 2: (expected a number|not a finite binary64 number)")


def _build(name: str, tmp: Path) -> tuple[str, str]:
    builder, match = HOSTILE[name]
    return builder(tmp / f"{re.sub(r'[^a-z0-9]+', '_', name.lower())}.csv"), match


def _check_line(err: str, match: str, rc: int) -> None:
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert rc == 2, (rc, err[-2000:])
    assert len(lines) == 1, err[-2000:]
    assert "Traceback" not in err and re.search(match, lines[0]), lines[0]
    assert lines[0].startswith("dpverify ") and ": error: --data " in lines[0], lines[0]
    for secret in (SECRET, "secretword", "\uff11", "\u0661"):
        assert secret not in err  # the cell is never shown (no --show-values)


def _in_process(argv: list[str]) -> tuple[int, str]:
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        rc = main(argv)
    return rc, err.getvalue()


# ------------------------------------------------------------------ default (fast) set

FAST = ["sparse 2 GiB", "sparse tail after valid rows", "FIFO", "/dev/zero", "symlink loop",
        "directory holding a FIFO", "Latin-1 byte", "full-width digit",
        "private value outside the domain", "spelling nan", "spelling 1e999",
        "header repeated inside", "empty file", "Parquet null"]


@pytest.mark.parametrize("name", FAST)
@pytest.mark.parametrize("command", ["wang-summary", "tuv-release"])
def test_hostile_file_fast(tmp_path, name, command):
    data, match = _build(name, tmp_path)
    rc, err = _in_process(COMMANDS[command] + ["--data", data, "--no-progress"])
    _check_line(err, match, rc)


@pytest.mark.parametrize("command", ["bernstein", "jin-synthetic"])
def test_hostile_file_fast_other_commands(tmp_path, command):
    for name in ("sparse tail after valid rows", "FIFO", "private value outside the domain"):
        data, match = _build(name, tmp_path)
        rc, err = _in_process(COMMANDS[command] + ["--data", data, "--no-progress"])
        _check_line(err, match, rc)


def test_hostile_file_dask_fast(tmp_path, client):
    # the client refuses what it can see (a FIFO); a task refuses the rest, and its error
    # reaches the client as the same one line
    for name in ("FIFO", "private value outside the domain", "sparse tail after valid rows"):
        data, match = _build(name, tmp_path)
        rc, err = _in_process(COMMANDS["wang-summary"] + [
            "--data", data, "--backend", "dask", "--scheduler", client.scheduler.address])
        _check_line(err, match, rc)


# ------------------------------------------------------------------ slow set: everything

#: Address-space cap of a command run (bytes): an interpreter with numpy, pyarrow, dask
#: and one BLAS thread needs about 0.7 GiB of address space.
ADDRESS_SPACE = 3 << 30


def _limited() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (ADDRESS_SPACE, ADDRESS_SPACE))


def _subprocess(argv: list[str], timeout: float = 180) -> tuple[int, str]:
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1", PYTHONPATH=os.pathsep.join(sys.path))
    proc = subprocess.run([sys.executable, "-m", "dpverify", *argv], capture_output=True,
                          text=True, timeout=timeout, preexec_fn=_limited, env=env,
                          stdin=subprocess.DEVNULL)
    return proc.returncode, proc.stderr


@pytest.fixture(scope="module")
def process_scheduler():
    """A 2-process Dask cluster whose workers are killed beyond 1.5 GB (bounded memory)."""
    import logging

    from distributed import Client, LocalCluster

    cluster = LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                           memory_limit="1.5GB", dashboard_address=":0",
                           silence_logs=logging.CRITICAL)
    c = Client(cluster)
    yield cluster.scheduler_address
    c.close()
    cluster.close()


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(HOSTILE))
@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_hostile_file_local(tmp_path, name, command):
    data, match = _build(name, tmp_path)
    rc, err = _subprocess(COMMANDS[command] + ["--data", data, "--no-progress"])
    _check_line(err, match, rc)


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(HOSTILE))
@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_hostile_file_dask(tmp_path, name, command, process_scheduler):
    data, match = _build(name, tmp_path)
    rc, err = _subprocess(COMMANDS[command] + ["--data", data, "--no-progress", "--backend",
                                               "dask", "--scheduler", process_scheduler])
    _check_line(err, match, rc)


@pytest.mark.slow
@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_hostile_stdin_stream(tmp_path, command):
    # /dev/zero as standard input: no line ends, so one block and a one-line error
    with open("/dev/zero", "rb") as zero:
        env = dict(os.environ, OPENBLAS_NUM_THREADS="1",
                   PYTHONPATH=os.pathsep.join(sys.path))
        proc = subprocess.run([sys.executable, "-m", "dpverify", *COMMANDS[command],
                               "--data", "-", "--no-progress"], stdin=zero,
                              capture_output=True, text=True, timeout=180,
                              preexec_fn=_limited, env=env)
    _check_line(proc.stderr, r"'<stdin>' line 1 is longer than 1 MiB", proc.returncode)


@pytest.mark.slow
@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_huge_valid_file_in_bounded_memory(tmp_path_factory, command):
    # 768 MiB of rows "0,1" (201 million rows): as float64 they take 3 GiB, more than the
    # whole address space of the run, so the release must read them in blocks
    path = tmp_path_factory.getbasetemp() / "huge.csv"
    if not path.exists():
        block = b"0,1\n" * (1 << 20)
        with open(path, "wb") as fh:
            fh.write(b"x,y\n")
            for _ in range(192):
                fh.write(block)
    rc, err = _subprocess(COMMANDS[command] + ["--data", str(path), "--no-progress",
                                               "--timeout", "900"], timeout=1200)
    assert rc == 0 and "Traceback" not in err, err[-2000:]
