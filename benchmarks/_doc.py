"""Shared helpers of the benchmark scripts: machine line and section replacement in
docs/benchmarks.md (each script owns one "## ..." section; other sections are untouched)."""

from __future__ import annotations

import os
import platform
import time
from typing import Any

import numpy as np

DOC = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "docs", "benchmarks.md")


def timed(fn, *args, **kw) -> tuple[Any, float, float]:
    """(result, wall seconds, CPU seconds of this process)."""
    w0, c0 = time.perf_counter(), time.process_time()
    out = fn(*args, **kw)
    return out, time.perf_counter() - w0, time.process_time() - c0


def machine_line() -> str:
    from dpverify import __version__

    return (f"Machine: {platform.machine()} {os.cpu_count()} cores, Python "
            f"{platform.python_version()}, numpy {np.__version__}, dpverify {__version__}; "
            f"run {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}.")


def write_section(section: str, text: str, doc: str = DOC) -> None:
    """Replace the section starting with the line ``section`` (up to the next ``## ``) by
    ``text``; append it if absent."""
    with open(doc, encoding="utf-8") as fh:
        body = fh.read()
    start = body.find(section)
    if start < 0:
        body = body.rstrip("\n") + "\n\n" + text
    else:
        nxt = body.find("\n## ", start + len(section))
        tail = "" if nxt < 0 else body[nxt + 1:]
        body = body[:start] + text + ("\n" + tail if tail else "")
    with open(doc, "w", encoding="utf-8") as fh:
        fh.write(body)
