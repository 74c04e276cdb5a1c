"""The command-line grammar: flags are matched whole (no argparse prefix matching), a
misspelt flag or command is named with the closest valid one and the sub-command, and the
'check with' line names the file actually written."""

from __future__ import annotations

import argparse

import pytest

from dpverify import cli
from dpverify.cli import main

SUP = ["supnorm", "--f", "exp(x)", "--interval", "-1", "1"]


def _error(argv: list[str], capsys) -> str:
    with pytest.raises(SystemExit) as e:
        main(argv)
    assert e.value.code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err
    return err


def test_a_misspelt_required_flag_is_named_not_the_missing_one(capsys):
    # argparse alone says only "the following arguments are required: --poly"
    err = _error([*SUP, "--poyl", "1,1"], capsys)
    assert "unknown flag --poyl for dpverify supnorm; did you mean --poly?" in err
    assert "required" not in err


def test_no_prefix_matching(capsys):
    # with prefix matching --rt would silently mean --rtol
    err = _error([*SUP, "--poly", "1,1", "--rt", "1e-3"], capsys)
    assert "unknown flag --rt for dpverify supnorm; did you mean --rtol?" in err


def test_a_flag_with_equals_is_checked_whole(capsys):
    err = _error([*SUP, "--poly", "1,1", "--rtl=1e-3"], capsys)
    assert "unknown flag --rtl" in err and "--rtol" in err


def test_one_dash_spelling_of_a_flag(capsys):
    err = _error([*SUP, "--poly", "1,1", "-rtol", "1e-3"], capsys)
    assert "unknown flag -rtol" in err and "did you mean --rtol?" in err


def test_a_negative_value_is_still_a_value(capsys):
    # -1/2 is the value of --interval A, not a misspelt flag
    assert main(["supnorm", "--f", "x", "--poly", "0,1", "--interval", "-1/2", "1",
                 "--rtol", "1e-3"]) == 0
    capsys.readouterr()


def test_nested_sub_commands_are_named(capsys):
    err = _error(["privacy", "tuv", "--kk", "3"], capsys)
    assert "unknown flag --kk for dpverify privacy tuv" in err


def test_no_close_flag_gives_no_guess(capsys):
    err = _error([*SUP, "--poly", "1", "--zzzzzzzz", "1"], capsys)
    assert "unknown flag --zzzzzzzz for dpverify supnorm" in err and "did you mean" not in err


def test_a_stray_value_names_the_sub_command(capsys):
    err = _error([*SUP, "--poly", "1", "stray"], capsys)
    assert "dpverify supnorm: error: unrecognized arguments: stray" in err


def test_misspelt_command_and_top_level_flag(capsys):
    err = _error(["supnrom", "--f", "x"], capsys)
    assert "unknown command 'supnrom'" in err and "did you mean supnorm?" in err
    err = _error(["--vers"], capsys)
    assert "unknown flag --vers for dpverify; did you mean --version?" in err


def _parsers(parser: argparse.ArgumentParser):
    yield parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for child in action.choices.values():
                yield from _parsers(child)


def test_every_parser_refuses_abbreviations():
    # the complete parser, every sub-command and sub-sub-command included
    parsers = list(_parsers(cli.build_parser()))
    assert len(parsers) > len(cli.COMMANDS)
    assert all(p.allow_abbrev is False for p in parsers)


@pytest.mark.parametrize("out,expected", [
    (None, "not saved: add --out FILE to keep the certificate"),
    ("m.json", "check with: dpverify verify m.json"),
    ("my cert.json", "check with: dpverify verify 'my cert.json'"),
])
def test_check_with_names_the_file_written(tmp_path, monkeypatch, capsys, out, expected):
    monkeypatch.chdir(tmp_path)
    argv = ["minimax", "--f", "exp(x)", "--degree", "2", "--interval", "0", "1"]
    if out is not None:
        argv += ["--out", out]
    assert main(argv) == 0
    result = [line for line in capsys.readouterr().out.splitlines()
              if line.startswith("result")]
    assert len(result) == 1 and expected in result[0]
    if out is not None:
        assert (tmp_path / out).is_file()


def test_library_errors_name_the_flag_on_the_command_line(capsys):
    # the library names its parameter (max_degree); the CLI the flag (--max-degree)
    from dpverify import CertificationFailed, approx

    with pytest.raises(CertificationFailed, match="raise max_degree"):
        approx("exp(x)", (0, 1), "1e-30", max_degree=3)
    assert main(["approx", "--f", "exp(x)", "--interval", "0", "1", "--gamma", "1e-30",
                 "--max-degree", "3"]) == 1
    err = capsys.readouterr().err
    assert "raise --max-degree" in err and "max_degree" not in err
