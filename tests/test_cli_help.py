"""The command line explains itself: every option of every command (sub-commands included)
has a help text, the command table names every mechanism of ``release``, and a release
stopped by a limit says that nothing was released."""

from __future__ import annotations

import argparse
import io
import os
import sys
import time
from contextlib import redirect_stderr, redirect_stdout

import pytest

from dpverify import cli


def _options(parser: argparse.ArgumentParser, path: str):
    """(command path, option, help) for every action below ``parser`` except ``-h``."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, child in action.choices.items():
                yield from _options(child, f"{path} {name}")
        elif not isinstance(action, argparse._HelpAction):
            yield path, "/".join(action.option_strings) or action.dest, action.help


def test_every_option_of_every_command_has_help():
    missing = [f"{path} {opt}" for path, opt, text in _options(cli.build_parser(), "dpverify")
               if text is None or text == argparse.SUPPRESS or not str(text).strip()]
    assert missing == []


def test_the_walk_reaches_nested_sub_commands():
    # the test above would pass vacuously if it missed the mechanisms of `release`
    paths = {path for path, _opt, _text in _options(cli.build_parser(), "dpverify")}
    assert {"dpverify release jin-synthetic", "dpverify privacy bernstein",
            "dpverify supnorm"} <= paths


def test_interval_help_is_shown(capsys):
    for command in ("supnorm", "evalbound", "approx", "minimax"):
        with pytest.raises(SystemExit):
            cli.main([command, "--help"])
        out = " ".join(capsys.readouterr().out.split())  # argparse wraps the lines
        assert "--interval A B" in out and "exact numbers, A < B" in out, command


def test_release_summary_names_every_mechanism():
    release = cli.build_parser(["release"])._subparsers._group_actions[0].choices["release"]
    mechanisms = release._subparsers._group_actions[0].choices
    assert set(mechanisms) == {"bernstein", "wang-summary", "jin-synthetic"}
    for name in mechanisms:
        assert name in cli.COMMANDS["release"][1], name


def test_what_a_stopped_run_leaves_is_said_in_the_commands_terms():
    assert cli.nothing_done("release") == "nothing was released or written"
    assert cli.nothing_done("tuv-release") == "nothing was released or written"
    assert cli.nothing_done("supnorm") == "nothing was certified or written"


def test_a_release_stopped_by_the_time_limit_says_nothing_was_released(monkeypatch):
    # a writer that sends nothing: the read waits until the alarm ends the command
    r, w = os.pipe()
    out, err = io.StringIO(), io.StringIO()
    try:
        monkeypatch.setattr(sys, "stdin", os.fdopen(r, "r"))
        with redirect_stdout(out), redirect_stderr(err):
            rc = cli.main(["release", "wang-summary", "--data", "-", "--t", "3",
                           "--epsilon", "1", "--timeout", "1/2"])
    finally:
        os.close(w)
    assert rc == 1 and out.getvalue() == ""
    assert "time limit of 1/2 s reached (nothing was released or written" in err.getvalue()


@pytest.mark.skipif(not hasattr(os, "fork"), reason="the child-process backstop is POSIX")
def test_the_killed_child_of_a_release_says_nothing_was_released():
    from dpverify.commands._isolate import run_isolated

    def stuck() -> dict:  # no alarm of its own: only the parent's kill ends it
        time.sleep(60)
        return {}

    t0 = time.monotonic()
    outcome = run_isolated(stuck, 0.05, None, "dpverify release", "1/20",
                           nothing=cli.nothing_done("release"))
    assert time.monotonic() - t0 < 30
    assert outcome["code"] == 1
    assert outcome["lines"] == ["dpverify release: undecided: time limit of 1/20 s reached "
                                "(the computation was stopped; nothing was released or "
                                "written; raise --timeout)"]
