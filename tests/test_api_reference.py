"""The API reference covers the public API: docs/hooks/api_coverage.py makes
``mkdocs build --strict`` fail on a public name that no page documents, or whose docstring
has no runnable example.  Here: the hook's own logic, on made-up pages."""

from __future__ import annotations

import sys
from pathlib import Path

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
