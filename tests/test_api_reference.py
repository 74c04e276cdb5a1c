"""The API reference covers the public API: docs/hooks/api_coverage.py makes
``mkdocs build --strict`` fail on a public name that no page documents, or whose docstring
has no runnable example.  Here: the hook's own logic, on made-up pages, and the real pages
(so that pytest fails too, not only the site build)."""

from __future__ import annotations

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


def _api_pages() -> list[str]:
    return [p.read_text(encoding="utf-8") for p in sorted((ROOT / "docs" / "api").glob("*.md"))]


def test_the_api_reference_documents_every_public_name_with_an_example():
    # the same check as `mkdocs build --strict` (the hook), so that pytest fails too
    assert api_coverage.problems(_api_pages()) == []


def test_the_hook_is_registered():
    config = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    hooks = config.split("\nhooks:\n", 1)[1].split("\n\n", 1)[0]
    assert "  - docs/hooks/api_coverage.py" in hooks.splitlines()


def test_the_release_functions_exist_and_are_releases():
    # a renamed release function must fail here, not pass silently
    for path in api_coverage.RELEASES:
        obj = api_coverage._resolve(path)
        assert callable(obj), path
        assert "release" in path.rsplit(".", 1)[1] or path.endswith("tuv_answer"), path


def test_the_hook_fails_the_build_on_a_gap(tmp_path):
    pytest.importorskip("mkdocs")
    (tmp_path / "api").mkdir()
    (tmp_path / "api" / "one.md").write_text("::: dpverify.testing.ulp_of\n", encoding="utf-8")
    with pytest.raises(Exception, match="API reference incomplete") as info:
        api_coverage.on_pre_build({"docs_dir": str(tmp_path)})
    assert "dpverify.supnorm: not in the API reference" in str(info.value)
    assert "dpverify.testing.ulp_of" not in str(info.value)


def test_an_example_outside_an_examples_section_is_reported():
    def loose():
        """Text.

        Raises
        ------
        ValueError
            Never.

        >>> 1 + 1
        2
        """

    def placed():
        """Text.

        Examples
        --------
        >>> 1 + 1
        2
        """

    assert api_coverage._example_misplaced(loose)
    assert not api_coverage._example_misplaced(placed)
    assert not api_coverage._example_misplaced(4096)  # a constant: its type's docstring


def test_the_methods_of_a_documented_class_are_checked():
    from dpverify.certify.certificate import Certificate

    rendered = api_coverage._rendered([Certificate])
    assert Certificate.check in rendered and Certificate.complete.fget in rendered
