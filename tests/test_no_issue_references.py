"""Comments, docstrings and documentation say *why* in terms of the code and the
mathematics, never by pointing at a task tracker a reader of the repository cannot open
("issue 17 item 3").  Scans every tracked text file of the repository."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PATTERN = re.compile(r"\b[Ii]ssues? ?#?\d+\b|\bissue-\d+\b")
SUFFIXES = {".py", ".md", ".toml", ".yml", ".yaml", ".sh", ".cfg", ".txt", ".json"}


def _tracked() -> list[Path]:
    try:
        out = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True,
                             check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        pytest.fail("needs a git checkout of the repository")
    return [ROOT / p for p in out.splitlines() if Path(p).suffix in SUFFIXES]


def test_no_task_tracker_references():
    me = Path(__file__).resolve()
    found = []
    for path in _tracked():
        if path.resolve() == me or not path.exists():
            continue
        text = path.read_text(encoding="utf-8", errors="replace")
        for n, line in enumerate(text.splitlines(), 1):
            if PATTERN.search(line):
                found.append(f"{path.relative_to(ROOT)}:{n}: {line.strip()[:100]}")
    assert not found, "references to issue numbers:\n" + "\n".join(found)
