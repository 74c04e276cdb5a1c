"""MkDocs hook: the API reference documents every public name, each with an example.

The public names are ``__all__`` of :mod:`dpverify`, :mod:`dpverify.testing` and
:mod:`dpverify.verify`, and the release functions of the mechanisms (:data:`RELEASES`).
A name is documented when a page under ``docs/api/`` has a ``::: dotted.path`` directive
for the object, or a ``::: module`` directive whose ``members: [...]`` option names it.
Every documented function and class must carry a ``>>>`` example in its docstring
(``tests/test_doctests.py`` runs every such example in CI); exception classes and plain
values (``__version__``) need none.  An example belongs in an ``Examples`` section
(numpydoc): mkdocstrings renders that as code, whereas ``>>>`` lines anywhere else become
nested quotations (Markdown's ``>``) or rows of the section above -- so a ``>>>`` outside
that section is a problem too, in every object the pages render (a class's public
methods included).

``mkdocs build --strict`` fails (:class:`mkdocs.exceptions.PluginError`) naming each
public name that is not documented or has no example.  After rendering, an API page fails
too where reStructuredText reached the reader raw (:func:`raw_markup`): a numpydoc
``name : type`` line whose "type" is prose puts ````code```` and cross-references in the
type column, which is not Markdown.  Registered under ``hooks:`` in mkdocs.yml; not a page
of the site.
"""

from __future__ import annotations

import importlib
import inspect
import re
from pathlib import Path
from typing import Any

__all__ = ["PUBLIC_MODULES", "RELEASES", "documented", "documented_objects", "problems",
           "example_outside_section", "raw_markup", "on_pre_build", "on_post_page",
           "on_post_build"]

#: Modules whose ``__all__`` is the public API.
PUBLIC_MODULES = ("dpverify", "dpverify.testing", "dpverify.verify")

#: The release functions a user calls directly (``docs/dask.md``, ``docs/mechanisms.md``,
#: ``docs/tutorials/releases.md``): one per mechanism behind ``dpverify release`` and
#: ``dpverify tuv-release`` (jin's two variants: ``--t`` and ``--basis-degree/--basis-size``),
#: and the answer of a TUV summary held as JSON (the other summaries answer by a method).
RELEASES = (
    "dpverify.mechanisms.wang_summary.release_summary",
    "dpverify.mechanisms.tuv.tuv_release",
    "dpverify.mechanisms.tuv.tuv_answer",
    "dpverify.mechanisms.tuv_dlist.tuv_dlist_release",
    "dpverify.mechanisms.bernstein_mech.release_bernstein",
    "dpverify.mechanisms.jin_synthetic.release_synthetic",
    "dpverify.mechanisms.jin_synthetic.release_synthetic_basis",
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


def documented(pages: list[str]) -> list[tuple[str, Any]]:
    """``(dotted path, object)`` for each object that the ``:::`` directives of ``pages``
    (markdown texts) document: the directive's target and the members that its
    ``members: [...]`` option names."""
    out: list[tuple[str, Any]] = []
    for text in pages:
        lines = text.splitlines()
        for i, line in enumerate(lines):
            m = _DIRECTIVE.match(line)
            if not m:
                continue
            path = m.group(1)
            target = _resolve(path)
            members = None
            for follow in lines[i + 1 : i + 6]:
                mm = _MEMBERS.match(follow)
                if mm:
                    members = [s.strip() for s in mm.group(1).split(",") if s.strip()]
                    break
                if _DIRECTIVE.match(follow):
                    break
            # the directive renders its target's docstring, then the members named
            out.append((path, target))
            if members is not None:
                out.extend((f"{path}.{name}", getattr(target, name)) for name in members)
    return out


def documented_objects(pages: list[str]) -> list[Any]:
    """The objects that the ``:::`` directives of ``pages`` (markdown texts) document."""
    return [obj for _path, obj in documented(pages)]


def example_outside_section(doc: str) -> bool:
    """True when ``doc`` (a cleaned docstring) has a ``>>>`` line outside an ``Examples``
    section."""
    section = ""  # numpydoc: a heading is a title line over a line of hyphens
    lines = doc.splitlines()
    for i, line in enumerate(lines):
        if i + 1 < len(lines) and line.strip() and re.fullmatch(r"-{3,}", lines[i + 1].strip()):
            section = line.strip()
        elif line.lstrip().startswith(">>>") and section != "Examples":
            return True
    return False


def _rendered(path: str, obj: Any) -> list[tuple[str, Any]]:
    """``obj`` and, for a class, the public methods and properties that mkdocstrings
    renders with it (those defined in the class itself)."""
    out = [(path, obj)]
    if inspect.isclass(obj):
        for name, member in vars(obj).items():
            if name.startswith("_"):
                continue
            if isinstance(member, (staticmethod, classmethod)):
                member = member.__func__
            if isinstance(member, property) or inspect.isfunction(member):
                out.append((f"{path}.{name}", member))
    return out


def _needs_example(obj: Any) -> bool:
    if inspect.isclass(obj) and issubclass(obj, BaseException):
        return False
    return inspect.isclass(obj) or inspect.isroutine(obj)


def _has_example(obj: Any) -> bool:
    return ">>>" in (inspect.getdoc(obj) or "")


def problems(pages: list[str]) -> list[str]:
    """One line per public name that ``pages`` leave undocumented or without an example,
    and per rendered docstring with a ``>>>`` example outside its ``Examples`` section."""
    docs = documented(pages)
    documented_ids = {id(o) for _path, o in docs}
    required: list[tuple[str, Any]] = []
    for name in PUBLIC_MODULES:
        module = importlib.import_module(name)
        required += [(f"{name}.{n}", getattr(module, n)) for n in module.__all__
                     if not n.startswith("__")]
    required += [(path, _resolve(path)) for path in RELEASES]
    out = []
    for path, obj in required:
        if id(obj) not in documented_ids:
            out.append(f"{path}: not in the API reference (docs/api/*.md)")
        elif _needs_example(obj) and not _has_example(obj):
            out.append(f"{path}: its docstring has no >>> example")
    seen: set[int] = set()
    for page_path, page_obj in docs:
        for path, obj in _rendered(page_path, page_obj):
            if id(obj) in seen:
                continue
            seen.add(id(obj))
            # a plain value (an int constant) has no docstring of its own: getdoc gives
            # its type's
            own = inspect.isclass(obj) or inspect.isroutine(obj) or inspect.ismodule(obj) \
                or isinstance(obj, property)
            if own and example_outside_section(inspect.getdoc(obj) or ""):
                out.append(f"{path}: a >>> example outside its 'Examples' section (the site "
                           "would show it as a quotation, not as code)")
    return out


def on_pre_build(config: Any, **kwargs: Any) -> None:
    """Fail the build when a public name is undocumented or has no example."""
    _RAW_FOUND.clear()
    from mkdocs.exceptions import PluginError  # only inside a MkDocs build

    api = Path(config["docs_dir"]) / "api"
    pages = [p.read_text(encoding="utf-8") for p in sorted(api.glob("*.md"))]
    found = problems(pages)
    if found:
        raise PluginError("API reference incomplete:\n  " + "\n  ".join(found))


_PRE = re.compile(r"<pre\b.*?</pre>", re.S)
_RAW = ("``", "&lt;autoref")


def raw_markup(page_html: str) -> list[str]:
    """The objects (heading ids) of a rendered page whose text outside code blocks shows
    reStructuredText markup raw: double backticks, or an unresolved cross-reference."""
    text = _PRE.sub("", page_html)
    found: list[str] = []
    for mark in _RAW:
        start = 0
        while (i := text.find(mark, start)) >= 0:
            k = text.rfind('id="', 0, i)
            name = text[k + 4:text.find('"', k + 4)] if k >= 0 else "?"
            if name not in found:
                found.append(name)
            start = i + len(mark)
    return found


#: Pages of the current build with raw markup (``on_post_page`` collects, ``on_post_build``
#: reports them all at once).
_RAW_FOUND: list[str] = []


def on_post_page(output: str, page: Any, config: Any, **kwargs: Any) -> str:
    """Note an API page that shows raw markup (:func:`raw_markup`)."""
    if page.file.src_uri.startswith("api/"):
        found = raw_markup(output)
        if found:
            _RAW_FOUND.append(f"{page.file.src_uri}: " + ", ".join(found))
    return output


def on_post_build(config: Any, **kwargs: Any) -> None:
    """Fail the build when some API page showed raw markup."""
    if _RAW_FOUND:
        from mkdocs.exceptions import PluginError  # only inside a MkDocs build

        found = list(_RAW_FOUND)
        _RAW_FOUND.clear()
        raise PluginError("raw reStructuredText on the API pages (``code`` or a "
                          "cross-reference in a numpydoc type column?):\n  "
                          + "\n  ".join(found))
