"""The documentation's navigation: no page listed twice, and getting-started's "Where
next" names every tutorial."""

from __future__ import annotations

import re
from pathlib import Path

DOCS = Path(__file__).resolve().parent.parent / "docs"
MKDOCS = DOCS.parent / "mkdocs.yml"


def test_no_page_is_listed_twice_in_the_nav():
    text = MKDOCS.read_text(encoding="utf-8")
    nav = text[text.index("\nnav:"):]
    pages = re.findall(r":\s*(\S+\.md)\s*$", nav, re.M)
    assert len(pages) > 20
    assert sorted(p for p in set(pages) if pages.count(p) > 1) == []


def test_where_next_lists_every_tutorial():
    index = (DOCS / "index.md").read_text(encoding="utf-8")
    where = index[index.index("## Where next"):]
    for page in sorted((DOCS / "tutorials").glob("*.md")):
        assert f"tutorials/{page.name}" in where, page.name
