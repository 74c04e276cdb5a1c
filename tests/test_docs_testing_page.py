"""The first Python block of docs/testing.md (an indented block of a list item, which
tests/test_docs.py does not run) runs as shown."""

from __future__ import annotations

import contextlib
import io
import re
import textwrap
from pathlib import Path

PAGE = Path(__file__).resolve().parent.parent / "docs" / "testing.md"


def test_first_python_block_of_testing_page_runs():
    text = PAGE.read_text(encoding="utf-8")
    m = re.search(r"^( *)```python\n(.*?)^\1```", text, re.S | re.M)
    assert m is not None
    code = textwrap.dedent(m.group(2))
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(code, "docs/testing.md, first python block", "exec"), {})  # our docs
    printed = out.getvalue()
    # the passing check's summary, then the first line of the failure
    assert "every checked error <=" in printed
    assert "implementation is off by" in printed and "(limit 0.25 ulps)" in printed
