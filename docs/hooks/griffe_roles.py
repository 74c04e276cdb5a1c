"""Griffe extension: Sphinx cross-reference roles in docstrings become code links.

The package's docstrings are numpydoc and use Sphinx roles (``:func:`check_implementation```,
``:class:`~dpverify.Approximation```), which mkdocstrings would print raw.  After the
package is loaded, every role in every docstring is rewritten to an optional mkdocs-autorefs
reference: a link to the object's API entry when the site documents it, else plain code.
The target is resolved like Sphinx does: a dotted path as written, a bare name in the
scope of the documented object (its module's names and imports); ``~`` shows the last
component only; ``title <target>`` shows the title.

Loaded by mkdocstrings (``extensions:`` in mkdocs.yml); not a page of the site.
"""

from __future__ import annotations

import html
import re
from typing import Any

import griffe

__all__ = ["SphinxRoles", "rewrite_roles", "walk_objects"]

ROLE = re.compile(
    r":(?:py:)?(?P<role>func|class|meth|mod|data|attr|exc|obj|const)"
    r":`(?P<body>[^`]+)`"
)


def _target(body: str) -> tuple[str, str]:
    """(shown text, target) of a role body: ``~a.b`` -> (b, a.b); ``t <a.b>`` -> (t, a.b)."""
    m = re.fullmatch(r"\s*(.*?)\s*<([^<>]+)>\s*", body)
    if m:
        return m.group(1), m.group(2).strip().lstrip(".")
    body = body.strip()
    if body.startswith("~"):
        target = body[1:].lstrip(".")
        return target.rsplit(".", 1)[-1], target
    return body.lstrip("."), body.lstrip(".")


def _resolve(obj: Any, target: str) -> str | None:
    """The full path of ``target`` in the scope of ``obj`` (None if unknown)."""
    head, _, rest = target.partition(".")
    try:
        base = obj.resolve(head)
    except Exception:  # griffe's NameResolutionError and friends: not in scope
        base = None
    if base is not None:
        return base + ("." + rest if rest else "")
    return target if "." in target else None


def rewrite_roles(text: str, obj: Any) -> str:
    """``text`` with every Sphinx role replaced by an optional autorefs link (or code)."""

    def sub(m: re.Match[str]) -> str:
        shown, target = _target(m.group("body"))
        code = f"<code>{html.escape(shown)}</code>"
        full = _resolve(obj, target)
        if full is None:
            return code
        return f'<autoref identifier="{html.escape(full)}" optional>{code}</autoref>'

    return ROLE.sub(sub, text)


def walk_objects(obj: Any) -> Any:
    """``obj`` and all its members, recursively (aliases, i.e. imported names, skipped)."""
    yield obj
    for member in list(obj.members.values()):
        if member.is_alias:
            continue
        yield from walk_objects(member)


class SphinxRoles(griffe.Extension):
    """Rewrite the roles of every docstring of a package once it is loaded."""

    def on_package(self, *, pkg: Any, **kwargs: Any) -> None:
        for obj in walk_objects(pkg):
            if obj.docstring is not None and ":" in obj.docstring.value:
                obj.docstring.value = rewrite_roles(obj.docstring.value, obj)
