"""What ``dpverify ... --help`` and the CLI's one-line messages tell a user: every option of
every command (sub-commands too) says what it does, ``dpverify release --help`` names every
mechanism, and a release stopped by its time limit says that nothing was *released* (a
release certifies nothing; "nothing was certified" would be the wrong reassurance)."""

from __future__ import annotations

import argparse
import os
import subprocess
import sys

import pytest

from dpverify import cli


def _parsers(parser: argparse.ArgumentParser, path: str = "dpverify"):
    """``(command path, parser)`` for ``parser`` and every parser below it."""
    yield path, parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield from _parsers(sub, f"{path} {name}")


def test_every_option_of_every_command_has_help():
    missing = []
    seen = 0
    for path, parser in _parsers(cli.build_parser()):
        for action in parser._actions:
            if isinstance(action, (argparse._HelpAction, argparse._SubParsersAction)):
                continue
            seen += 1
            text = action.help if isinstance(action.help, str) else ""
            if not text.strip() or text == argparse.SUPPRESS:
                name = "/".join(action.option_strings) or action.dest
                missing.append(f"{path} {name}")
    assert seen > 300  # the walk reached the nested sub-commands (release bernstein, ...)
    assert not missing, "options without a help text:\n" + "\n".join(missing)


def test_the_check_sees_an_option_without_help():
    parser = argparse.ArgumentParser(prog="x")
    sub = parser.add_subparsers().add_parser("y").add_subparsers().add_parser("z")
    sub.add_argument("--bare")
    found = [(path, a.dest) for path, p in _parsers(parser) for a in p._actions
             if not isinstance(a, argparse._HelpAction) and not a.help]
    assert ("dpverify y z", "bare") in found


@pytest.mark.parametrize("command", ["supnorm", "evalbound", "approx", "minimax"])
def test_interval_help_is_printed(command, capsys):
    with pytest.raises(SystemExit):
        cli.main([command, "--help"])
    out = capsys.readouterr().out
    after = out.split("--interval A B", 2)[-1]
    assert "[A, B]" in after.split("\n  --", 1)[0]


def test_release_summary_names_every_mechanism(monkeypatch, capsys):
    monkeypatch.setenv("COLUMNS", "300")  # one line per command: argparse wraps at hyphens
    with pytest.raises(SystemExit):
        cli.main(["--help"])
    out = capsys.readouterr().out
    line = next(ln for ln in out.splitlines() if ln.strip().startswith("release "))
    for mechanism in ("bernstein", "wang-summary", "jin-synthetic"):
        assert mechanism in line, line
    release = next(p for path, p in _parsers(cli.build_parser()) if path == "dpverify release")
    inner = next(a for a in release._actions if isinstance(a, argparse._SubParsersAction))
    assert set(inner.choices) == {"bernstein", "wang-summary", "jin-synthetic"}


def _stalled_stdin(monkeypatch, argv, capsys):
    """Run ``argv`` in-process with a standard input that never sends anything: the read
    waits until the time limit ends the command."""
    r, w = os.pipe()
    try:
        monkeypatch.setattr(sys, "stdin", os.fdopen(r, "r"))
        code = cli.main(argv)
    finally:
        os.close(w)
    captured = capsys.readouterr()
    return code, captured.out, captured.err


@pytest.mark.parametrize("argv", [
    ["release", "wang-summary", "--data", "-", "--t", "3", "--epsilon", "1"],
    ["tuv-release", "--data", "-", "--k", "2", "--gamma", "1/10", "--epsilon", "1"],
])
def test_a_release_stopped_by_its_time_limit_released_nothing(argv, monkeypatch, capsys):
    code, out, err = _stalled_stdin(monkeypatch, [*argv, "--timeout", "1/4"], capsys)
    assert code == 1 and out == ""
    assert "time limit of 1/4 s reached (nothing was released or written" in err
    assert "certified" not in err


def test_a_certifying_command_stopped_by_its_time_limit_certified_nothing(monkeypatch,
                                                                        capsys):
    argv = ["supnorm", "--f", "x", "--poly", "@-", "--interval", "0", "1", "--timeout", "1/4"]
    code, out, err = _stalled_stdin(monkeypatch, argv, capsys)
    assert code == 1 and out == ""
    assert "time limit of 1/4 s reached (nothing was certified or written" in err


# A release handler stuck where the in-process alarm cannot reach it (SIGALRM blocked, as
# in one long C call): only the program's parent process can stop it, and its message must
# speak of a release too.
_STUCK_RELEASE = """
import signal, sys, time
from dpverify.commands import mechanism_cmd

def stuck(args):
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGALRM})
    time.sleep(60)

mechanism_cmd._release_wang = stuck
from dpverify.cli import console_main
sys.argv[0] = "dpverify"
console_main()
"""


@pytest.mark.skipif(not hasattr(os, "fork"), reason="the child-process backstop is POSIX")
def test_the_program_killing_a_release_says_nothing_was_released(tmp_path):
    data = tmp_path / "x.csv"
    data.write_text("0.5\n-0.25\n")
    env = {k: v for k, v in os.environ.items() if k != "DPVERIFY_IN_PROCESS"}
    proc = subprocess.run(
        [sys.executable, "-c", _STUCK_RELEASE, "release", "wang-summary", "--data", str(data),
         "--t", "3", "--epsilon", "1", "--timeout", "1/4"],
        capture_output=True, text=True, timeout=60, env=env)
    assert proc.returncode == 1 and proc.stdout == ""
    assert "the computation was stopped; nothing was released or written" in proc.stderr
    assert "certified" not in proc.stderr
