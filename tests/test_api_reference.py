"""The API reference covers the public API: docs/hooks/api_coverage.py makes
``mkdocs build --strict`` fail on a public name that no page documents, or whose docstring
has no runnable example, or on an example the site would not show as code.  Here: the
hook's own logic on made-up pages, and the real pages (so that pytest fails too)."""

from __future__ import annotations

import inspect
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "docs" / "hooks"))

import api_coverage  # noqa: E402  (docs/hooks is not a package)


def test_directives_and_members_are_read():
    import dpverify.testing
    from dpverify import supnorm

    objs = api_coverage.documented_objects([
        "# t\n\n::: dpverify.supnorm\n",
        "::: dpverify.testing\n    options:\n      members: [check_implementation, ulp_of]\n",
    ])
    assert supnorm in objs
    assert dpverify.testing.check_implementation in objs and dpverify.testing.ulp_of in objs
    assert dpverify.testing.reference not in objs


def test_missing_names_and_examples_are_reported():
    found = api_coverage.problems(["::: dpverify.testing\n    options:\n"
                                   "      members: [ulp_of]\n"])
    assert any(line.startswith("dpverify.supnorm: not in the API reference") for line in found)
    assert any(line.startswith("dpverify.mechanisms.wang_summary.release_summary: not in")
               for line in found)
    assert not any(line.startswith("dpverify.testing.ulp_of: not in") for line in found)


def test_exceptions_need_no_example():
    from dpverify import DomainError

    assert not api_coverage._needs_example(DomainError)
    assert api_coverage._needs_example(api_coverage.problems)


def test_an_example_outside_its_section_is_found():
    # >>> lines render as code only inside a numpydoc "Examples" section
    inside = "Summary.\n\nExamples\n--------\n>>> 1 + 1\n2\n"
    bare = "Summary.\n\n>>> 1 + 1\n2\n"
    after_raises = "Summary.\n\nRaises\n------\nValueError\n    Bad.\n\n>>> f()\n"
    after_examples = inside + "\nNotes\n-----\n>>> 2 + 2\n"
    assert not api_coverage.example_outside_section(inside)
    assert api_coverage.example_outside_section(bare)
    assert api_coverage.example_outside_section(after_raises)
    assert api_coverage.example_outside_section(after_examples)


def test_a_class_renders_its_public_methods():
    class Shown:
        """Docstring.

        Examples
        --------
        >>> Shown().m()
        """

        def m(self):
            """A method.

            >>> Shown().m()
            """

    rendered = dict(api_coverage._rendered("x.Shown", Shown))
    assert rendered["x.Shown.m"] is Shown.m
    assert api_coverage.example_outside_section(inspect.getdoc(Shown.m))
    assert not api_coverage.example_outside_section(inspect.getdoc(Shown))


def test_a_directive_with_members_documents_its_target_too():
    import dpverify.testing

    page = "::: dpverify.testing\n    options:\n      members: [ulp_of]\n"
    assert api_coverage.documented([page]) == [
        ("dpverify.testing", dpverify.testing),
        ("dpverify.testing.ulp_of", dpverify.testing.ulp_of)]


def test_the_api_pages_document_every_public_name_with_an_example():
    """What `mkdocs build --strict` checks (the hook is registered in mkdocs.yml), here so
    that pytest fails too."""
    pages = [p.read_text(encoding="utf-8") for p in sorted((ROOT / "docs" / "api").glob("*.md"))]
    assert pages
    found = api_coverage.problems(pages)
    assert not found, "\n".join(found)


def test_the_hook_is_registered():
    text = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    hooks = text.split("hooks:", 1)[1].split("\n\n", 1)[0]
    assert "docs/hooks/api_coverage.py" in hooks


def test_the_build_hook_stops_an_incomplete_reference(tmp_path):
    exceptions = pytest.importorskip("mkdocs.exceptions")
    (tmp_path / "api").mkdir()
    (tmp_path / "api" / "index.md").write_text("::: dpverify.api.supnorm\n", encoding="utf-8")
    with pytest.raises(exceptions.PluginError, match="dpverify.minimax: not in the API"):
        api_coverage.on_pre_build({"docs_dir": str(tmp_path)})


def test_raw_markup_is_found_outside_code_blocks_only():
    page = ('<h2 id="dpverify.a">a</h2><td><code>str ``"x"``</code></td>'
            '<h2 id="dpverify.b">b</h2><pre><code>&gt;&gt;&gt; s = "``"</code></pre>'
            '<h2 id="dpverify.c">c</h2><td><code>&lt;autoref identifier="x"&gt;</code></td>')
    assert api_coverage.raw_markup(page) == ["dpverify.a", "dpverify.c"]
