"""Every code block of the tutorials runs (docs/tutorials/*.md, and docs/opendp.md).

``python`` blocks of one page run in order in one namespace, in a fresh temporary
directory (a page is a script).  A ``console`` block runs when the line before its fence
is ``<!-- test: run -->``: each ``$ `` line is a shell command that must exit 0.  Other
blocks (``bash``, ``json``, unmarked ``console``) are shown, not run.  A page that needs
an extra says so in a first-line comment ``# needs: opendp`` of a block; the page is then
skipped without that extra.
"""

from __future__ import annotations

import contextlib
import io
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

DOCS = Path(__file__).resolve().parent.parent / "docs"
PAGES = sorted((DOCS / "tutorials").glob("*.md")) + [DOCS / "opendp.md"]
FENCE = re.compile(r"^```(\w*)[^\n]*\n(.*?)^```\s*$", re.S | re.M)
RUN_MARK = "<!-- test: run -->"


def blocks(page: Path) -> list[tuple[str, str, bool]]:
    """(language, code, marked runnable) of every fenced block, in order."""
    text = page.read_text(encoding="utf-8")
    out = []
    for m in FENCE.finditer(text):
        before = text[: m.start()].rstrip("\n").splitlines()
        marked = bool(before) and before[-1].strip() == RUN_MARK
        out.append((m.group(1), m.group(2), marked))
    return out


def test_pages_exist_and_have_code():
    assert len(PAGES) >= 4
    for page in PAGES:
        assert any(lang == "python" for lang, _, _ in blocks(page)), page.name


def test_block_extraction():
    # the extractor itself: a marked console block, an unmarked one, a python block
    fake = DOCS.parent / "tests" / "_docs_probe.md"
    try:
        fake.write_text("a\n\n```python\nx = 1\n```\n\n<!-- test: run -->\n```console\n"
                        "$ true\n```\n\n```console\n$ false\n```\n")
        got = blocks(fake)
    finally:
        fake.unlink()
    assert got == [("python", "x = 1\n", False), ("console", "$ true\n", True),
                   ("console", "$ false\n", False)]


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_tutorial_code_runs(page, tmp_path, monkeypatch):
    found = blocks(page)
    for _lang, code, _ in found:
        m = re.match(r"#\s*needs:\s*(\w+)", code)
        if m:
            pytest.importorskip(m.group(1), reason=f"{page.name} needs the {m.group(1)} extra")
    monkeypatch.chdir(tmp_path)
    namespace: dict = {"__name__": f"docs_{page.stem}"}
    for i, (lang, code, marked) in enumerate(found):
        where = f"{page.name}, block {i + 1}"
        if lang == "python":
            with contextlib.redirect_stdout(io.StringIO()):
                exec(compile(code, where, "exec"), namespace)  # our own docs, not user input
        elif lang == "console" and marked:
            for line in code.splitlines():
                if not line.startswith("$ "):
                    continue
                res = subprocess.run(line[2:], shell=True, cwd=tmp_path, capture_output=True,
                                     text=True, timeout=120,
                                     env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)})
                assert res.returncode == 0, f"{where}: {line}\n{res.stdout}\n{res.stderr}"
