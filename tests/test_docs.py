"""Every code block of the tutorials runs (docs/tutorials/*.md, and docs/opendp.md), and
the marked console blocks of every other page (e.g. the ``dpverify plot`` commands of
docs/plots.md).

``python`` blocks of one page run in order in one namespace, in a fresh temporary
directory (a page is a script); on a page outside the tutorials they run only when the
page has a marked console block (they make its data).  A ``console`` block runs when the
line before its fence is ``<!-- test: run -->``: each ``$ `` line is a shell command that
must exit 0 (a ``dpverify plot ... --out FIG`` must also write the figure).  Other blocks
(``bash``, ``json``, unmarked ``console``) are shown, not run.  A page that needs
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
# other pages with runnable console blocks (their python blocks run too, in order)
RUN_PAGES = PAGES + sorted(p for p in DOCS.rglob("*.md")
                           if p not in PAGES and RUN_MARK in p.read_text(encoding="utf-8"))


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


def test_plot_commands_are_run():
    # the `dpverify plot` console blocks of the docs are run, not just shown
    plots = DOCS / "plots.md"
    assert plots in RUN_PAGES
    run = [code for lang, code, marked in blocks(plots) if lang == "console" and marked]
    assert sum(line.startswith("$ dpverify plot ") for c in run for line in c.splitlines()) >= 6
    assert not [lang for lang, _, _ in blocks(plots) if lang in ("bash", "sh", "shell")]


@pytest.mark.parametrize("page", RUN_PAGES, ids=lambda p: p.name)
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
                out = re.search(r"^dpverify plot .*--out (\S+)", line[2:])
                if out:  # a figure was drawn: a non-empty image file
                    fig = tmp_path / out.group(1)
                    assert fig.is_file() and fig.stat().st_size > 1000, f"{where}: {line}"


def _contract_commands() -> list[tuple[str, str]]:
    """(sub-command, its synopsis without comments) of each line of the CLI contract block
    of docs/design.md (indented lines continue the previous one)."""
    text = (DOCS / "design.md").read_text(encoding="utf-8")
    section = text[text.index("## CLI contract"):]
    m = FENCE.search(section)
    assert m is not None
    out: list[tuple[str, str]] = []
    for line in m.group(2).splitlines():
        code = re.split(r"\s#\s", line)[0]
        if line.startswith("dpverify "):
            out.append((line.split()[1], code))
        elif line.startswith(" ") and out and code.strip():
            out[-1] = (out[-1][0], out[-1][1] + " " + code.strip())
    return out


def test_design_cli_contract_flags_exist(capsys):
    # every flag that docs/design.md promises is an option of the real command
    from dpverify.cli import main

    cmds = _contract_commands()
    assert {"table", "crosscheck", "supnorm"} <= {c for c, _ in cmds}
    for cmd, synopsis in cmds:
        with pytest.raises(SystemExit):
            main([cmd, "--help"])
        usage = capsys.readouterr().out
        for flag in re.findall(r"--[A-Za-z][\w-]*", synopsis):
            assert re.search(re.escape(flag) + r"(?![\w-])", usage), (cmd, flag)
    # and the table line lists every parameter flag of the real command
    table = set(re.findall(r"--[A-Za-z][\w-]*", " ".join(s for c, s in cmds if c == "table")))
    assert {"--k", "--gamma", "--r", "--t", "--K", "--h", "--method", "--backend",
            "--scheduler", "--quick", "--list", "--out"} <= table


def _hook(name: str):
    """A module of docs/hooks/ (build code of the site, loaded by path as mkdocs does)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location(f"_dpverify_docs_{name}",
                                                  DOCS / "hooks" / f"{name}.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_slugify_rule():
    slugify = _hook("site").slugify
    assert slugify("jin/Table 1") == "jin-table-1"
    assert slugify("thaler2012/Fact 4.2 (least degree)") == "thaler2012-fact-4-2-least-degree"
    assert slugify("wang_slides/Algorithm (noise scale)") == "wang-slides-algorithm-noise-scale"
    assert slugify("Vallée Poussin") == "vallee-poussin"
    assert slugify("4.2") != slugify("42")


def test_claims_links_match_heading_anchors():
    # docs/claims.md (generated by proofs_checks) links each non-PASS row to its section;
    # with the site's slugify every such link names an existing heading
    slugify = _hook("site").slugify
    text = (DOCS / "claims.md").read_text(encoding="utf-8")
    anchors = {slugify(h) for h in re.findall(r"^#+ (.+)$", text, re.M)}
    links = set(re.findall(r"\]\(#([^)]+)\)", text))
    assert len(links) >= 10
    assert links <= anchors, sorted(links - anchors)


def test_sphinx_roles_become_code_links():
    roles = _hook("griffe_roles")

    class Obj:  # the scope of a documented object: one imported name
        def resolve(self, name):
            if name == "check_implementation":
                return "dpverify.testing.check.check_implementation"
            raise KeyError(name)

    out = roles.rewrite_roles(
        "see :func:`check_implementation`, :class:`~dpverify.Approximation`, "
        ":mod:`dpverify.progress`, :func:`the table <dpverify.tables.build_table>` and "
        ":func:`unknown`; ``literal`` and :math:`x` stay", Obj())
    assert ':func:' not in out and ':class:' not in out and ':mod:' not in out
    assert ('<autoref identifier="dpverify.testing.check.check_implementation" optional>'
            '<code>check_implementation</code></autoref>') in out
    assert '<autoref identifier="dpverify.Approximation" optional><code>Approximation</code>' \
        in out
    assert '<autoref identifier="dpverify.progress" optional><code>dpverify.progress' in out
    assert '"dpverify.tables.build_table" optional><code>the table</code>' in out
    assert "<code>unknown</code>" in out and "unknown</autoref>" not in out
    assert "``literal``" in out and ":math:`x`" in out


def test_no_raw_roles_left_in_the_api_docstrings():
    griffe = pytest.importorskip("griffe", reason="the docs extra (mkdocstrings) is missing")
    roles = _hook("griffe_roles")
    pkg = griffe.load("dpverify", extensions=griffe.load_extensions(roles.SphinxRoles()),
                      search_paths=[str(DOCS.parent)])
    seen, raw = 0, []
    for obj in roles.walk_objects(pkg):
        if obj.docstring is not None:
            seen += 1
            if roles.ROLE.search(obj.docstring.value):
                raw.append(obj.path)
    assert seen > 100 and not raw, raw[:5]
