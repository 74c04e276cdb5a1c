"""Atomic writes leave nothing behind after ``kill -9``: the temporary file is unnamed
(O_TMPFILE) where Linux allows it; elsewhere a named one, which the next write to the
same directory removes once its writer is dead (its flock free)."""

from __future__ import annotations

import fcntl
import os
import signal
import subprocess
import sys
import time

import pytest

from dpverify import atomic
from dpverify.atomic import temporary_names, write_text

# a writer that stops in the middle of its output, after the first megabyte is written
_WRITER = """
import os, sys, time
{setup}
from dpverify.atomic import write_chunks

def chunks():
    yield "x" * (1 << 20)
    yield "y" * (1 << 20)   # the first chunk is in the file once this one is asked for
    print("writing", flush=True)
    time.sleep(120)
    yield "never"

write_chunks(sys.argv[1], chunks())
"""

_NO_TMPFILE = "del os.O_TMPFILE  # a system without unnamed temporary files"


def _killed_writer(path: str, setup: str = "") -> None:
    """Run a writer of ``path`` and kill it (SIGKILL) in the middle of the write."""
    proc = subprocess.Popen([sys.executable, "-c", _WRITER.format(setup=setup), path],
                            stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None
        assert proc.stdout.readline().strip() == "writing"
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=60)
    assert proc.returncode == -signal.SIGKILL


@pytest.mark.skipif(not hasattr(os, "O_TMPFILE"), reason="Linux O_TMPFILE")
def test_kill_9_leaves_the_old_file_and_nothing_else(tmp_path):
    dest = tmp_path / "cert.json"
    dest.write_text("old")
    _killed_writer(str(dest))
    assert sorted(os.listdir(tmp_path)) == ["cert.json"]
    assert dest.read_text() == "old"


def test_named_fallback_is_removed_by_the_next_write(tmp_path, monkeypatch):
    dest = tmp_path / "cert.json"
    dest.write_text("old")
    _killed_writer(str(dest), _NO_TMPFILE)
    stale = temporary_names(str(tmp_path), "cert.json")
    assert len(stale) == 1  # the fallback leaves its file, at most the size written
    assert dest.read_text() == "old"
    # younger than STALE_AFTER: kept (it could be a writer that has not locked it yet)
    write_text(str(tmp_path / "cert.json"), "new")
    assert temporary_names(str(tmp_path), "cert.json") == stale
    # old enough and unlocked: its writer is dead, the next write removes it
    past = time.time() - atomic.STALE_AFTER - 10
    os.utime(tmp_path / stale[0], (past, past))
    write_text(str(dest), "newer")
    assert sorted(os.listdir(tmp_path)) == ["cert.json"]
    assert dest.read_text() == "newer"


def test_a_live_writers_file_is_kept(tmp_path):
    # a named temporary file whose lock is held (its writer runs) stays, however old
    live = tmp_path / f".cert.json.dpverify-{'0' * 16}.tmp"
    live.write_text("partial")
    past = time.time() - atomic.STALE_AFTER - 10
    os.utime(live, (past, past))
    fd = os.open(live, os.O_RDONLY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        write_text(str(tmp_path / "cert.json"), "new")
        assert live.exists()
    finally:
        os.close(fd)
    write_text(str(tmp_path / "cert.json"), "newer")  # the lock is gone now
    assert not live.exists()


def test_only_our_own_naming_is_removed(tmp_path):
    past = time.time() - atomic.STALE_AFTER - 10
    others = [".cert.json.abcdefgh.tmp", ".cert.json.dpverify-short.tmp",
              ".other.json.dpverify-" + "0" * 16 + ".tmp", "cert.json.tmp"]
    for name in others:
        (tmp_path / name).write_text("someone else's")
        os.utime(tmp_path / name, (past, past))
    write_text(str(tmp_path / "cert.json"), "new")
    assert sorted(os.listdir(tmp_path)) == sorted([*others, "cert.json"])


def test_refused_link_falls_back_to_a_copy(tmp_path, monkeypatch):
    # linkat through /proc may be refused (no /proc, a restricted kernel): the unnamed
    # file's bytes are copied to a named temporary file, with the same mode
    def refuse(*args, **kwargs):
        raise PermissionError(1, "refused")

    monkeypatch.setattr(os, "link", refuse)
    old = os.umask(0o022)
    try:
        write_text(str(tmp_path / "a.json"), "text")
    finally:
        os.umask(old)
    assert os.listdir(tmp_path) == ["a.json"]
    assert (tmp_path / "a.json").read_text() == "text"
    assert (tmp_path / "a.json").stat().st_mode & 0o777 == 0o644
