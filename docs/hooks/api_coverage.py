"""MkDocs hook: the API reference documents every public name, each with an example.

The public names are ``__all__`` of :mod:`dpverify`, :mod:`dpverify.testing` and
:mod:`dpverify.verify`, and the release functions of the mechanisms (:data:`RELEASES`).
A name is documented when a page under ``docs/api/`` has a ``::: dotted.path`` directive
for the object, or a ``::: module`` directive whose ``members: [...]`` option names it.
Every documented function and class must carry a ``>>>`` example in its docstring
(``tests/test_doctests.py`` runs every such example in CI); exception classes and plain
values (``__version__``) need none.

``mkdocs build --strict`` fails (:class:`mkdocs.exceptions.PluginError`) naming each
public name that is not documented or has no example.  Registered under ``hooks:`` in
mkdocs.yml; not a page of the site.
"""

from __future__ import annotations

import importlib
import inspect
import re
from pathlib import Path
from typing import Any

__all__ = ["PUBLIC_MODULES", "RELEASES", "documented_objects", "problems", "on_pre_build"]

#: Modules whose ``__all__`` is the public API.
PUBLIC_MODULES = ("dpverify", "dpverify.testing", "dpverify.verify")

#: The release functions a user calls directly (``docs/dask.md``, ``docs/mechanisms.md``).
RELEASES = (
    "dpverify.mechanisms.wang_summary.release_summary",
    "dpverify.mechanisms.tuv.tuv_release",
    "dpverify.mechanisms.tuv.tuv_answer",
    "dpverify.mechanisms.tuv_dlist.tuv_dlist_release",
    "dpverify.mechanisms.bernstein_mech.release_bernstein",
    "dpverify.mechanisms.jin_synthetic.release_synthetic",
)

_DIRECTIVE = re.compile(r"^:::\s+(\S+)\s*$")
_MEMBERS = re.compile(r"^\s+members:\s*\[([^\]]*)\]")


def _resolve(path: str) -> Any:
    """The object named by a dotted path: the longest importable module, then attributes."""
    parts = path.split(".")
    for i in range(len(parts), 0, -1):
        try:
            obj: Any = importlib.import_module(".".join(parts[:i]))
        except ImportError:
            continue
        for attr in parts[i:]:
            obj = getattr(obj, attr)
        return obj
    raise ImportError(path)


def documented_objects(pages: list[str]) -> list[Any]:
    """The objects that the ``:::`` directives of ``pages`` (markdown texts) document."""
    out: list[Any] = []
    for text in pages:
        lines = text.splitlines()
        for i, line in enumerate(lines):
            m = _DIRECTIVE.match(line)
            if not m:
                continue
            target = _resolve(m.group(1))
            members = None
            for follow in lines[i + 1 : i + 6]:
                mm = _MEMBERS.match(follow)
                if mm:
                    members = [s.strip() for s in mm.group(1).split(",") if s.strip()]
                    break
                if _DIRECTIVE.match(follow):
                    break
            if members is None:
                out.append(target)
            else:
                out.extend(getattr(target, name) for name in members)
    return out


def _needs_example(obj: Any) -> bool:
    if inspect.isclass(obj) and issubclass(obj, BaseException):
        return False
    return inspect.isclass(obj) or inspect.isroutine(obj)


def _has_example(obj: Any) -> bool:
    return ">>>" in (inspect.getdoc(obj) or "")


def problems(pages: list[str]) -> list[str]:
    """One line per public name that ``pages`` leave undocumented or without an example."""
    documented = {id(o) for o in documented_objects(pages)}
    required: list[tuple[str, Any]] = []
    for name in PUBLIC_MODULES:
        module = importlib.import_module(name)
        required += [(f"{name}.{n}", getattr(module, n)) for n in module.__all__
                     if not n.startswith("__")]
    required += [(path, _resolve(path)) for path in RELEASES]
    out = []
    for path, obj in required:
        if id(obj) not in documented:
            out.append(f"{path}: not in the API reference (docs/api/*.md)")
        elif _needs_example(obj) and not _has_example(obj):
            out.append(f"{path}: its docstring has no >>> example")
    return out


def on_pre_build(config: Any, **kwargs: Any) -> None:
    """Fail the build when a public name is undocumented or has no example."""
    from mkdocs.exceptions import PluginError  # only inside a MkDocs build

    api = Path(config["docs_dir"]) / "api"
    pages = [p.read_text(encoding="utf-8") for p in sorted(api.glob("*.md"))]
    found = problems(pages)
    if found:
        raise PluginError("API reference incomplete:\n  " + "\n  ".join(found))
