"""The ``dpverify`` command: contract of DESIGN.md (JSON, exit codes, one-line errors)."""

import json
import subprocess
import sys

import pytest

from dpverify import __version__
from dpverify.cli import main
from tests._legacy import flat

EXP8 = "1,1,1/2,1/6,1/24,1/120,1/720,1/5040,1/40320"


def test_acceptance_exp_supnorm(capsys):
    code = main(
        [
            "supnorm",
            "--f",
            "exp(x)",
            "--poly",
            EXP8,
            "--basis",
            "monomial",
            "--interval",
            "-1",
            "1",
            "--rtol",
            "1e-6",
            "--json",
        ]
    )
    assert code == 0
    data = flat(json.loads(capsys.readouterr().out))
    from dpverify.numbers import parse_exact

    lo, up = parse_exact(data["error"]["lower"]), parse_exact(data["error"]["upper"])
    # e - sum_{i<=8} 1/i! = 3.0586177753940904462...e-6 (mpmath, 40 digits)
    true = parse_exact("3.05861777539409044620151139e-6")
    assert lo <= true <= up
    assert (up - lo) / lo <= parse_exact("1e-6")
    for key in (
        "construction",
        "params",
        "basis",
        "coefficients",
        "degree",
        "coefficient_norm",
        "coefficient_norm_log2",
        "error",
        "claims",
        "verified",
        "dpverify_version",
    ):
        assert key in data
    assert data["coefficients"][2] == "1/2" and data["degree"] == 8


def test_human_output_and_claim(capsys):
    assert (
        main(
            ["supnorm", "--f", "exp(x)", "--poly", EXP8, "--interval", "-1", "1", "--claim", "1e-6"]
        )
        == 1
    )  # refuted claim -> exit 1
    out = capsys.readouterr().out
    assert "refuted" in out and "sup |f - p| <=" in out


def test_poly_from_file(tmp_path, capsys):
    f = tmp_path / "p.json"
    f.write_text(json.dumps(["1", "1", "1/2"]))
    assert main(["supnorm", "--f", "exp(x)", "--poly", f"@{f}", "--interval", "0", "1"]) == 0
    f.write_text(json.dumps([1.5]))
    assert main(["supnorm", "--f", "exp(x)", "--poly", f"@{f}", "--interval", "0", "1"]) == 2


def test_version(capsys):
    with pytest.raises(SystemExit) as e:
        main(["--version"])
    assert e.value.code == 0
    assert __version__ in capsys.readouterr().out


BAD = [
    (["--f", "exp(x)", "--poly", "1,2", "--interval", "1", "0"], "--interval"),
    (["--f", "exp(x)", "--poly", "1,2", "--interval", "a", "1"], "--interval A"),
    (["--f", "exp(x)", "--poly", "1,,2", "--interval", "0", "1"], "--poly"),
    (["--f", "exp(x)", "--poly", "1,x", "--interval", "0", "1"], "--poly[1]"),
    (["--f", "exp(x)", "--poly", "@/nonexistent.json", "--interval", "0", "1"], "--poly"),
    (["--f", "exp(x)", "--poly", "1", "--interval", "0", "1", "--rtol", "0"], "--rtol"),
    (["--f", "exp(x)", "--poly", "1", "--interval", "0", "1", "--rtol", "nan"], "--rtol"),
    (["--f", "exp(x)", "--poly", "1", "--interval", "0", "1", "--claim", "-1"], "--claim"),
    (
        ["--f", "exp(x)", "--poly", "1", "--interval", "0", "1", "--max-pieces", "2.5"],
        "--max-pieces",
    ),
    (["--f", "exp(x)", "--poly", "1", "--interval", "0", "1", "--max-pieces", "0"], "--max-pieces"),
    (
        [
            "--f",
            "exp(x)",
            "--poly",
            "1",
            "--basis",
            "monomial",
            "--interval",
            "0",
            "1",
            "--domain",
            "0",
            "1",
        ],
        "--domain",
    ),
    (
        [
            "--f",
            "exp(x)",
            "--poly",
            "1",
            "--basis",
            "chebyshev",
            "--interval",
            "0",
            "1",
            "--domain",
            "1",
            "0",
        ],
        "--domain",
    ),
    (["--f", "", "--poly", "1", "--interval", "0", "1"], "--f"),
    (["--f", "exp(y)", "--poly", "1", "--interval", "0", "1"], "'y'"),
    (
        ["--f", "__import__('os').system('true')", "--poly", "1", "--interval", "0", "1"],
        "__import__",
    ),
    (["--f", "x.__class__", "--poly", "1", "--interval", "0", "1"], "--f"),
    (["--f", "exp(x)**10**10", "--poly", "1", "--interval", "0", "1"], "--f"),
    (["--f", "nan", "--poly", "1", "--interval", "0", "1"], "nan"),
    (["--f", "x", "--poly", "1", "--interval", "0", "1", "--out", "/nonexistent/dir/c.json"],
     "does not exist"),
]


@pytest.mark.parametrize("argv,needle", BAD)
def test_bad_input_exit_2_one_line(argv, needle, capsys):
    assert main(["supnorm", *argv]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err
    assert needle in err


def test_argparse_errors_are_one_line(capsys):
    with pytest.raises(SystemExit) as e:
        main(["supnorm", "--f", "x"])
    assert e.value.code == 2
    assert capsys.readouterr().err.count("\n") == 1
    with pytest.raises(SystemExit) as e:
        main(["supnorm", "--f", "x", "--poly", "1", "--interval", "0", "1", "--basis", "hermite"])
    assert e.value.code == 2


def test_console_script_runs():
    out = subprocess.run(
        [sys.executable, "-m", "dpverify", "--version"], capture_output=True, text=True, timeout=120
    )
    assert out.returncode == 0 and __version__ in out.stdout


def test_or_k10000_gamma_1e12_accepted_and_exact(tmp_path, capsys):
    # this run used to be refused by a CLI work cap.  The exact maximum
    # is 1/T_t((k+1)/(k-1)) (thaler2012 Fact 4.2), recomputed here by the three-term
    # recurrence in fmpq, with t the least degree meeting gamma.
    from flint import fmpq

    out = tmp_path / "or.json"
    assert main(["or", "--k", "10000", "--gamma", "1e-12", "--out", str(out)]) == 0
    capsys.readouterr()
    cert = json.loads(out.read_text())
    a, gamma = fmpq(10001, 9999), fmpq(1, 10**12)
    prev, cur, t = fmpq(1), a, 1
    while cur * gamma < 1:
        prev, cur, t = cur, 2 * a * cur - prev, t + 1
    st = cert["statement"]
    assert st["polynomial"]["degree"] == t == 1417
    assert st["error"]["lower"] == st["error"]["upper"] == f"{(1 / cur).p}/{(1 / cur).q}"
    assert cert["evidence"]["witness"] == "1"


@pytest.mark.parametrize("argv", [["or", "--k", "10", "--gamma", "0.1"],
                                  ["rofk", "--r", "2", "--k", "10", "--gamma", "0.1"],
                                  ["dlist", "--k", "5", "--gamma", "0.1"]])
def test_certifying_commands_take_timeout(argv, capsys):
    # README: every certifying command takes --timeout (past it: undecided, exit 1)
    assert main(argv + ["--timeout", "30"]) == 0
    assert main(argv + ["--timeout", "-1"]) == 2
    assert "--timeout" in capsys.readouterr().err
