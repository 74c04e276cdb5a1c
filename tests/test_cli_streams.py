"""The ``dpverify`` program started with a standard stream closed (``2>&-``, ``>&-``,
``<&-``): one line on the stream that is left (or none), exit 2, never a traceback, and the
``--out`` file written all the same (dpverify/commands/_streams.py)."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys

import pytest

pytestmark = pytest.mark.skipif(os.name != "posix", reason="requires POSIX shell redirections")

OR = ["or", "--k", "4", "--gamma", "1/10"]


def _run(args: list[str], redirect: str, cwd, stdin: str | None = None
         ) -> subprocess.CompletedProcess[str]:
    """``python -m dpverify ARGS REDIRECT`` through a shell (the redirections close the
    descriptors before Python starts, as they would for a user)."""
    cmd = " ".join(shlex.quote(a) for a in [sys.executable, "-m", "dpverify", *args])
    return subprocess.run(["/bin/sh", "-c", f"{cmd} {redirect}"], cwd=cwd, input=stdin,
                          capture_output=True, text=True, timeout=300)


def _lines(text: str) -> list[str]:
    return [line for line in text.splitlines() if line.strip()]


def test_closed_stderr_still_writes_the_out_file(tmp_path):
    r = _run([*OR, "--out", "x.json"], "2>&-", tmp_path)
    assert r.returncode == 2
    assert json.loads((tmp_path / "x.json").read_text())["kind"]
    # the table, then the one line on the stream that is left
    last = _lines(r.stdout)[-1]
    assert last == "dpverify or: error: standard error was closed (anything printed there " \
        "is lost); x.json was written"
    assert "result" in r.stdout and "Traceback" not in r.stdout


def test_closed_stdout_with_json_and_no_file_does_nothing(tmp_path):
    r = _run([*OR, "--json"], ">&-", tmp_path)
    assert r.returncode == 2 and "Traceback" not in r.stderr
    assert _lines(r.stderr) == [
        "dpverify or: error: standard output is closed: the result has nowhere to go "
        "(nothing was done; redirect standard output, e.g. >/dev/null, or write the result "
        "with --out FILE)"]


def test_closed_stdout_with_a_file_writes_it(tmp_path):
    r = _run([*OR, "--json", "--out", "x.json"], ">&-", tmp_path)
    assert r.returncode == 2 and "Traceback" not in r.stderr
    assert json.loads((tmp_path / "x.json").read_text())["kind"]
    assert _lines(r.stderr)[-1].endswith("standard output was closed (anything printed "
                                         "there is lost); x.json was written")


def test_verify_with_stdout_closed(tmp_path):
    assert _run([*OR, "--out", "x.json"], "", tmp_path).returncode == 0
    r = _run(["verify", "x.json"], ">&-", tmp_path)
    # was: AttributeError: 'NoneType' object has no attribute 'flush' (commands/_isolate.py)
    assert r.returncode == 2 and "Traceback" not in r.stderr
    assert len(_lines(r.stderr)) == 1 and "standard output is closed" in r.stderr


def test_both_output_streams_closed(tmp_path):
    r = _run([*OR, "--out", "x.json"], ">&- 2>&-", tmp_path)
    assert r.returncode == 2
    assert (tmp_path / "x.json").is_file()


def test_closed_stdin_matters_only_when_read(tmp_path):
    r = _run([*OR, "--out", "x.json"], "<&-", tmp_path)
    assert r.returncode == 0 and (tmp_path / "x.json").is_file()
    r = _run(["supnorm", "--f", "x", "--poly", "@-", "--interval", "0", "1"], "<&-",
             tmp_path)
    assert r.returncode == 2 and "Traceback" not in r.stderr
    assert _lines(r.stderr) == ["dpverify supnorm: error: standard input is closed: there is "
                                "nothing to read for '-' (give a file, or open standard "
                                "input)"]


def test_closed_stdin_for_a_data_release(tmp_path):
    # was a traceback in mechanisms/data.py (sys.stdin is None)
    r = _run(["release", "bernstein", "--data", "-", "--function", "kde", "--bandwidth",
              "1/2", "--k", "4", "--epsilon", "1", "--out", "r.json"], "<&-", tmp_path)
    assert r.returncode == 2 and "Traceback" not in r.stderr
    assert "standard input is closed" in r.stderr
    assert not (tmp_path / "r.json").exists()


def test_help_with_stdout_closed(tmp_path):
    r = _run(["--help"], ">&-", tmp_path)
    assert r.returncode == 2 and "Traceback" not in r.stderr
    assert _lines(r.stderr) == ["dpverify: error: standard output closed (anything printed "
                                "there is lost)"]
