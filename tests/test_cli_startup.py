"""The CLI imports only the chosen command.  Start-up time is measured in
benchmarks/cli_startup.py; here we check the mechanism that keeps it short: which modules get
imported, and that the static command table agrees with the command modules."""

from __future__ import annotations

import argparse
import json
import subprocess
import sys

from dpverify import cli


def _subparsers(parser: argparse.ArgumentParser) -> argparse._SubParsersAction:
    return next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))


def test_command_table_matches_the_modules_registrations():
    # the full parser imports every module of dpverify.commands and lets each register
    sub = _subparsers(cli.build_parser())
    registered = {}
    helps = {ch.dest: ch.help for ch in sub._choices_actions}
    for name, parser in sub.choices.items():
        handler = parser.get_default("handler")
        module = handler.__module__ if handler else None
        if module is None:  # a command with sub-commands (release, privacy): ask a child
            inner = _subparsers(parser)
            module = next(iter(inner.choices.values())).get_default("handler").__module__
        registered[name] = (module.rsplit(".", 1)[1], helps[name])
    assert registered == cli.COMMANDS


def test_every_command_module_is_listed():
    assert set(cli.command_modules()) == {m for m, _ in cli.COMMANDS.values()}


def _modules_after(args: list[str]) -> set[str]:
    code = ("import sys, io, contextlib\n"
            "from dpverify.cli import main\n"
            "buf = io.StringIO()\n"
            "with contextlib.redirect_stdout(buf):\n"
            "    try:\n"
            f"        main({args!r})\n"
            "    except SystemExit:\n"
            "        pass\n"
            "import json; print(json.dumps(sorted(sys.modules)))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout
    return set(json.loads(out.strip().splitlines()[-1]))


def test_help_imports_no_command_and_no_numerics():
    mods = _modules_after(["--help"])
    # the command-line grammar and the stream guard (dpverify.commands._grammar,
    # _streams) are helpers of the program itself, not commands
    assert not any(m.startswith("dpverify.commands.") and not m.split(".")[-1].startswith("_")
                   for m in mods)
    for heavy in ("numpy", "sympy", "flint", "mpmath"):
        assert heavy not in mods, heavy


def test_a_command_imports_only_its_own_module():
    mods = _modules_after(["verify", "--help"])
    cmds = {m for m in mods if m.startswith("dpverify.commands.")
            and not m.split(".")[-1].startswith("_")}
    assert cmds == {"dpverify.commands.verify_cmd"}
    assert "sympy" not in mods and "dpverify.certify" not in mods


def test_help_of_a_command_not_imported_still_lists_it(capsys):
    try:
        cli.main(["--help"])
    except SystemExit as exc:
        assert exc.code == 0
    out = capsys.readouterr().out
    for name in cli.COMMANDS:
        assert name in out


def test_dir_of_the_package_lists_its_api_not_its_imports():
    import dpverify

    names = dir(dpverify)
    assert set(dpverify.__all__) <= set(names)
    assert "Any" not in names and "annotations" not in names


# --- "What loads when" (docs/architecture.md): every row of the table is run -------------

_LIBRARIES = {"python-flint": "flint", "numpy": "numpy", "mpmath": "mpmath", "sympy": "sympy",
              "scipy": "scipy", "jsonschema": "jsonschema"}


def _load_table() -> list[tuple[str, set[str]]]:
    import pathlib
    import re

    text = (pathlib.Path(__file__).resolve().parent.parent / "docs" / "architecture.md"
            ).read_text(encoding="utf-8")
    section = text[text.index("### What loads when"):]
    rows = re.findall(r"^\| `([^`]+)` \| ([^|]+) \|$", section, re.M)
    assert len(rows) >= 8
    return [(run, set() if loads.strip() == "nothing"
             else {_LIBRARIES[x.strip()] for x in loads.split(",")}) for run, loads in rows]


def _loaded_by(run: str, tmp_path) -> set[str]:
    import shlex

    if run.startswith("import "):
        code = f"{run}\n"
    else:
        argv = [("cert.json" if a == "CERT.json" else a) for a in shlex.split(run)[1:]]
        code = ("import io, contextlib\nfrom dpverify.cli import main\n"
                "with contextlib.redirect_stdout(io.StringIO()):\n"
                "    try:\n"
                f"        main({argv!r})\n"
                "    except SystemExit:\n"
                "        pass\n")
    code += f"import sys\nprint(sorted(m for m in {sorted(_LIBRARIES.values())!r} " \
            "if m in sys.modules))\n"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, cwd=tmp_path).stdout
    return set(json.loads(out.strip().splitlines()[-1].replace("'", '"')))


def test_what_loads_when(tmp_path):
    # a certificate for the verify row
    assert subprocess.run([sys.executable, "-m", "dpverify", "or", "--k", "4", "--gamma",
                           "1/10", "--out", str(tmp_path / "cert.json")],
                          capture_output=True).returncode == 0
    wrong = {run: (sorted(want), sorted(got)) for run, want in _load_table()
             if (got := _loaded_by(run, tmp_path)) != want}
    assert not wrong, f"docs/architecture.md 'What loads when' is wrong: {wrong}"


_CHILD_IMPORTS = """
import os, sys
import dpverify.commands._isolate as iso
from dpverify.cli import main
original = iso._child


def child(work, result_w, err_w, max_memory, parent):
    before = set(sys.modules)

    def counted():
        out = work()
        new = sorted(m for m in set(sys.modules) - before if m.startswith("dpverify"))
        os.write(2, ("CHILD-IMPORTED " + " ".join(new) + "\\n").encode())
        return out
    original(counted, result_w, err_w, max_memory, parent)


iso._child = child
main(sys.argv[1:], isolate=True)
"""


def test_the_computing_child_imports_nothing_of_dpverify(tmp_path):
    """The isolating parent forks after the imports the command needs (the command
    module's PRELOAD): the child, which runs under the --timeout clock, imports nothing
    of dpverify (it would be import time inside the time limit, lost with the child)."""
    cert = tmp_path / "or.json"
    runs = [["supnorm", "--f", "exp(x)", "--poly", "1,1,1/2", "--interval", "-1", "1"],
            ["or", "--k", "4", "--gamma", "1/10", "--out", str(cert)],
            ["minimax", "--f", "log(x)", "--degree", "4", "--interval", "1", "2"],
            ["approx", "--f", "log(x)", "--gamma", "1e-3", "--interval", "1", "2"],
            ["evalbound", "--poly", "1,1", "--interval", "0", "1"],
            ["dlist", "--k", "4", "--gamma", "1/10"],
            ["rofk", "--r", "2", "--k", "6", "--gamma", "1/10"],
            ["verify", str(cert)]]
    for argv in runs:
        err = subprocess.run([sys.executable, "-c", _CHILD_IMPORTS, *argv],
                             capture_output=True, text=True, timeout=300).stderr
        line = [ln for ln in err.splitlines() if ln.startswith("CHILD-IMPORTED")]
        assert line == ["CHILD-IMPORTED "], (argv[0], err[-500:])
