"""--progress / --no-progress on the commands that can run long.

For each command (small parameters, so each run takes well under a second): forced
``--progress`` draws a progress line on stderr (at least the first report of a stage and
the closing ``done in``), stdout is byte-identical to ``--no-progress``, and by default --
stderr is not a terminal under pytest's capture -- nothing is written to stderr.
"""

from __future__ import annotations

import pytest

from dpverify.cli import main

COMMANDS = {
    "approx": ["approx", "--f", "exp(x)", "--interval", "0", "1", "--gamma", "1/1000"],
    "minimax": ["minimax", "--f", "exp(x)", "--degree", "3", "--interval", "0", "1"],
    "evalbound": ["evalbound", "--poly", "1,2,3", "--interval", "-1", "1"],
    "evalbound-f": ["evalbound", "--poly", "1,2,3", "--interval", "-1", "1", "--f", "exp(x)"],
    "or": ["or", "--k", "10", "--gamma", "1/10"],
    "and-minimax": ["and", "--k", "10", "--gamma", "1/10", "--method", "minimax"],
    "rofk": ["rofk", "--r", "2", "--k", "5", "--gamma", "1/10"],
    "rofk-minimax": ["rofk", "--r", "2", "--k", "5", "--gamma", "1/10", "--method", "minimax"],
    "dlist": ["dlist", "--k", "4", "--gamma", "1/10"],
    "release-size": ["release-size", "--d", "10", "--class", "disjunction", "--k", "3",
                     "--epsilon", "1", "--alpha", "1/10", "--beta", "1/10", "--gamma", "1/100"],
}


def _run(capsys: pytest.CaptureFixture[str], argv: list[str]) -> tuple[int, str, str]:
    code = main(argv)
    out = capsys.readouterr()
    return code, out.out, out.err


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_forced_progress_on_stderr_stdout_unchanged(name, capsys):
    argv = COMMANDS[name]
    label = f"dpverify {argv[0]}:"
    code_on, out_on, err_on = _run(capsys, argv + ["--progress"])
    code_off, out_off, err_off = _run(capsys, argv + ["--no-progress"])
    code_def, out_def, err_def = _run(capsys, argv)
    assert code_on == code_off == code_def
    assert out_on == out_off == out_def and out_on  # byte-identical, and not empty
    assert err_off == "" and err_def == ""  # off, and off by default when not a terminal
    # forced: redrawn in place (\r), closed with "done in ... s" and a newline
    assert label in err_on and "\r" in err_on
    assert f"{label} done in " in err_on and err_on.endswith("\n")
    assert err_on.count("\n") == 1  # one line, redrawn; never a scrolling log


def test_progress_reports_are_counts_of_the_work(capsys):
    # the stages name the work, never a value: e.g. the finite check's passes over {0..k}
    _, _, err = _run(capsys, COMMANDS["or"] + ["--progress"])
    assert "max error: points 100% (11/11)" in err  # k + 1 = 11 points, all checked
    _, _, err = _run(capsys, COMMANDS["release-size"] + ["--progress"])
    assert "gamma 1/1: construction" in err
    _, _, err = _run(capsys, COMMANDS["approx"] + ["--progress"])
    assert "search: degree" in err and "sup |f - p|: pieces" in err


def test_progress_flags_are_exclusive(capsys):
    with pytest.raises(SystemExit) as exc:
        main(COMMANDS["or"] + ["--progress", "--no-progress"])
    assert exc.value.code == 2
    capsys.readouterr()


def test_verify_progress(tmp_path, capsys):
    cert = tmp_path / "or.json"
    assert main(COMMANDS["or"] + ["--no-progress", "--out", str(cert)]) == 0
    capsys.readouterr()
    code_on, out_on, err_on = _run(capsys, ["verify", str(cert), "--progress"])
    code_off, out_off, err_off = _run(capsys, ["verify", str(cert), "--no-progress"])
    code_def, out_def, err_def = _run(capsys, ["verify", str(cert)])
    assert code_on == code_off == code_def == 0
    assert out_on == out_off == out_def and "HOLDS" in out_on
    assert err_off == "" and err_def == ""
    assert "dpverify verify: checking" in err_on and "dpverify verify: done in " in err_on
    assert err_on.endswith("\n") and err_on.count("\n") == 1


def test_python_m_verify_progress(tmp_path, capsys):
    from dpverify.verify import main as vmain

    cert = tmp_path / "or.json"
    assert main(COMMANDS["or"] + ["--no-progress", "--out", str(cert)]) == 0
    capsys.readouterr()
    code_on, out_on, err_on = _run_v(vmain, capsys, [str(cert), "--progress"])
    code_off, out_off, err_off = _run_v(vmain, capsys, [str(cert), "--no-progress"])
    code_def, out_def, err_def = _run_v(vmain, capsys, [str(cert)])
    assert code_on == code_off == code_def == 0
    assert out_on == out_off == out_def
    assert err_off == err_def == ""
    assert "dpverify verify: done in " in err_on
    code, _, err = _run_v(vmain, capsys, [str(cert), "--progress", "--no-progress"])
    assert code == 2 and "usage" in err


def _run_v(vmain, capsys, argv):
    code = vmain(argv)
    out = capsys.readouterr()
    return code, out.out, out.err
