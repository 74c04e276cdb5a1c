"""The code-level rules of docs/architecture.md, checked on the source itself.

The import layers are checked by ``lint-imports`` (pyproject.toml); this file checks what
import-linter cannot see:

* every module lists its public API in ``__all__``;
* no module imports an underscore (private) name from another module;
* a function-level import says why it is deferred (an optional dependency, start-up cost, or
  an import cycle it breaks), in a comment on its line or on the line above;
* no module is longer than ``MAX_LINES`` unless its docstring states why (a line starting
  with ``Size:``).

Each rule could fail: the tests parse every ``dpverify/**/*.py`` with :mod:`ast`.
"""

from __future__ import annotations

import ast
import pathlib

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1] / "dpverify"
MODULES = sorted(p for p in ROOT.rglob("*.py"))
MAX_LINES = 600

# modules that are entry points or generated, not API
NO_ALL = {"_version.py", "__main__.py"}


def _rel(p: pathlib.Path) -> str:
    return str(p.relative_to(ROOT.parent))


def _tree(p: pathlib.Path) -> ast.Module:
    return ast.parse(p.read_text(encoding="utf-8"), filename=str(p))


@pytest.mark.parametrize("path", MODULES, ids=_rel)
def test_module_declares_all(path: pathlib.Path) -> None:
    if path.name in NO_ALL:
        return
    tree = _tree(path)
    names = {t.id for node in tree.body if isinstance(node, (ast.Assign, ast.AnnAssign))
             for t in (node.targets if isinstance(node, ast.Assign) else [node.target])
             if isinstance(t, ast.Name)}
    assert "__all__" in names, f"{_rel(path)} has no __all__"


@pytest.mark.parametrize("path", MODULES, ids=_rel)
def test_no_private_imports_across_modules(path: pathlib.Path) -> None:
    bad = [f"{_rel(path)}:{node.lineno} imports {a.name} from {node.module or '.'}"
           for node in ast.walk(_tree(path)) if isinstance(node, ast.ImportFrom)
           and node.module != "__future__"
           for a in node.names if a.name.startswith("_") and not a.name.startswith("__")]
    assert not bad, "\n".join(bad)


@pytest.mark.parametrize("path", MODULES, ids=_rel)
def test_function_level_imports_say_why(path: pathlib.Path) -> None:
    lines = path.read_text(encoding="utf-8").splitlines()
    bad = []
    for fn in ast.walk(_tree(path)):
        if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        for node in ast.walk(fn):
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                # the comment may sit on the import, on the line above, or on any line of
                # the block of consecutive imports it belongs to
                # (or above the ``try:`` that guards an optional import)
                first = node.lineno - 1
                while first > 0 and (lines[first - 1].strip().startswith(
                        ("from ", "import ", "#", ")", "try:"))
                        or lines[first - 1].strip().endswith(",")):
                    first -= 1
                block = lines[max(first - 1, 0):(node.end_lineno or node.lineno)]
                if not any("#" in ln for ln in block):
                    bad.append(f"{_rel(path)}:{node.lineno}: {lines[node.lineno - 1].strip()}")
    assert not bad, "function-level imports without a reason comment:\n" + "\n".join(bad)


@pytest.mark.parametrize("path", MODULES, ids=_rel)
def test_module_size(path: pathlib.Path) -> None:
    n = len(path.read_text(encoding="utf-8").splitlines())
    if n <= MAX_LINES:
        return
    doc = ast.get_docstring(_tree(path)) or ""
    assert any(ln.strip().startswith("Size:") for ln in doc.splitlines()), (
        f"{_rel(path)} has {n} lines (> {MAX_LINES}) and its docstring states no reason "
        "(a line 'Size: ...')")
