"""The README and the site's getting-started page tell the truth about the code.

What a newcomer reads first is checked against what the code does, so the two cannot
drift apart:

* the two commands are one text: README.md holds them between snippet markers and
  docs/index.md includes that section when the site is built (pymdownx.snippets), and
  the test command is the one ``.ci/run`` runs;
* every command of ``dpverify`` appears in the README's command table, every command and
  flag the table names exists in the parser, and the ``--timeout`` defaults it states are
  the parsers' defaults;
* the expression-language functions the README lists are exactly the parser's whitelist;
* the README's Python snippet runs as pasted (after the first command made ``cert.json``);
* (slow set) both commands run exactly as written, in a clean clone and a new venv.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import venv
from pathlib import Path

import pytest

from dpverify.cli import COMMANDS, build_parser
from dpverify.expr.tree import CONSTANTS, FUNCTIONS, NARY_FUNCTIONS

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")
SECTION = "two-commands"


def _section(text: str, name: str) -> str:
    start = text.index(f"<!-- --8<-- [start:{name}] -->")
    end = text.index(f"<!-- --8<-- [end:{name}] -->")
    return text[start:end]


def _bash_blocks(text: str) -> list[str]:
    return [b.strip() for b in re.findall(r"```bash\n(.*?)```", text, flags=re.S)]


def two_commands() -> tuple[str, str]:
    """The README's (main job, tests) commands, as written."""
    blocks = _bash_blocks(_section(README, SECTION))
    assert len(blocks) == 2, "the two-commands section holds exactly two bash blocks"
    return blocks[0], blocks[1]


def test_getting_started_page_includes_the_readme_commands():
    index = (ROOT / "docs" / "index.md").read_text(encoding="utf-8")
    assert f'--8<-- "README.md:{SECTION}"' in index
    # the page itself carries no second copy that could drift
    assert "pip install" not in index.replace(f'--8<-- "README.md:{SECTION}"', "")


def test_readme_test_command_is_what_ci_runs():
    _, tests = two_commands()
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    assert tests in ci, ".ci/run must run the README's test command verbatim"
    assert tests.startswith("python3 -m pip install -e ")


def _options(parser: argparse.ArgumentParser) -> set[str]:
    """Every option string of ``parser`` and of its nested sub-commands."""
    out: set[str] = set()
    for action in parser._actions:
        out.update(action.option_strings)
        if isinstance(action, argparse._SubParsersAction):
            for sub in action.choices.values():
                out |= _options(sub)
    return out


def _commands() -> dict[str, argparse.ArgumentParser]:
    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return dict(sub.choices)


def _table_rows() -> list[tuple[list[str], set[str]]]:
    """(commands, flags) of each row of the README's command table."""
    rows = []
    for line in README.splitlines():
        if not line.startswith("| `dpverify"):
            continue
        cell = line.split(" | ")[0]
        cmds = []
        for m in re.finditer(r"`dpverify ([^`]*)`", cell):
            words = m.group(1).split()
            # "or / and --k K": every name before the first option, "/" separating them
            for w in words:
                if w == "/":
                    continue
                if not re.fullmatch(r"[a-z][a-z0-9|/\\-]*", w):  # an option, FILE, CERT.json
                    break
                cmds += [c for c in w.replace("\\|", "/").split("/") if c]
        rows.append((cmds, set(re.findall(r"--[a-z][a-z0-9-]*", cell))))
    return rows


def test_readme_command_table_matches_the_parser():
    parsers = _commands()
    rows = _table_rows()
    named = {c for cmds, _ in rows for c in cmds}
    missing = sorted(set(COMMANDS) - named)
    assert not missing, f"commands missing from the README table: {missing}"
    for cmds, flags in rows:
        top = [c for c in cmds if c in COMMANDS]
        assert top, f"README row names no dpverify command: {cmds}"
        known = set().union(*(_options(parsers[c]) for c in top))
        # a row may name sub-commands (release bernstein|wang-summary): each must exist
        for c in cmds:
            if c not in COMMANDS:
                assert any(c in _sub_names(parsers[t]) for t in top), (
                    f"README names {c!r} under {top} but no such sub-command exists")
        unknown = sorted(flags - known)
        assert not unknown, f"README row {cmds}: flags not in the parser: {unknown}"


def _sub_names(parser: argparse.ArgumentParser) -> set[str]:
    return {name for a in parser._actions if isinstance(a, argparse._SubParsersAction)
            for name in a.choices}


def _timeout_default(parser: argparse.ArgumentParser) -> float | None:
    for action in parser._actions:
        if "--timeout" in action.option_strings:
            return None if action.default is None else float(action.default)
    return None


def test_readme_timeout_defaults_match_the_parsers():
    """The README states one sentence of ``--timeout`` defaults; each command agrees."""
    m = re.search(r"`--timeout SECONDS` \(default ([^)]*)\)", README)
    assert m, "README states the --timeout defaults as `--timeout SECONDS` (default ...)"
    stated: dict[str, float] = {}
    other: float | None = None
    for part in m.group(1).split(";"):
        nums = re.findall(r"(\d+) s", part)
        assert len(nums) == 1, f"one default per clause: {part!r}"
        names = re.findall(r"`([a-z-]+)`", part)
        if names:
            stated.update({n: float(nums[0]) for n in names})
        else:
            other = float(nums[0])
    parsers = _commands()
    for name, parser in parsers.items():
        default = _timeout_default(parser)
        if default is None:
            continue
        want = stated.get(name, other)
        assert want == default, f"dpverify {name} --timeout default is {default}, README {want}"


def test_readme_expression_functions_are_the_whitelist():
    para = README[README.index("User functions are written"):]
    para = para[: para.index("\n\n")]
    listed = set()
    for span in re.findall(r"`([^`]*)`", para):
        if span.endswith("/"):  # the package path, not a list of names
            continue
        # "min(a, b, ...)": the argument placeholders are not names of the language
        span = re.sub(r"\(([^()]*)\)", "", span)
        listed |= {w for w in re.findall(r"[A-Za-z_][A-Za-z0-9_]*", span)}
    functions = set(FUNCTIONS) | set(NARY_FUNCTIONS)
    assert functions <= listed, f"README leaves out {sorted(functions - listed)}"
    extra = listed - functions - set(CONSTANTS) - {"x", "y", "z", "eval"}
    assert not extra, f"README lists names the parser refuses: {sorted(extra)}"


def _python_blocks(text: str) -> list[str]:
    return re.findall(r"```python\n(.*?)```", text, flags=re.S)


def test_readme_python_snippet_runs_as_pasted(tmp_path):
    main_job, _ = two_commands()
    job = main_job.split("&&", 1)[1].strip()  # the install is done: run the job itself
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    r = subprocess.run(job, shell=True, cwd=tmp_path, env=env, capture_output=True,
                       text=True, timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "certified" in r.stdout and "HOLDS" in r.stdout
    blocks = _python_blocks(README)
    assert blocks, "README has a Python example"
    for code in blocks:
        r = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, env=env,
                           capture_output=True, text=True, timeout=300)
        assert r.returncode == 0, f"README Python block failed:\n{code}\n{r.stderr}"


@pytest.mark.slow
def test_both_commands_as_written_in_a_clean_venv(tmp_path):
    """A clean clone of the committed tree, a new venv, then the two commands verbatim
    (what a newcomer does; what CI's .ci/run does with the second one)."""
    git = shutil.which("git")
    if git is None or not (ROOT / ".git").exists():
        pytest.fail("needs a git checkout of the repository")
    clone = tmp_path / "clone"
    subprocess.run([git, "clone", "--quiet", str(ROOT), str(clone)], check=True)
    env_dir = tmp_path / "venv"
    venv.EnvBuilder(with_pip=True).create(env_dir)
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    env["PATH"] = f"{env_dir / 'bin'}{os.pathsep}{env.get('PATH', '')}"
    env["VIRTUAL_ENV"] = str(env_dir)
    main_job, tests = two_commands()
    r = subprocess.run(["bash", "-c", main_job], cwd=clone, env=env, capture_output=True,
                       text=True, timeout=1800)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    assert "HOLDS" in r.stdout
    r = subprocess.run(["bash", "-c", tests], cwd=clone, env=env, capture_output=True,
                       text=True, timeout=3600)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
