"""Hostile command-line input (an adversarial review, 2026-11-26): negative exact numbers
as values, integer flags in ASCII only, JSON input files that are not JSON, over-long
error lines, and a tolerance that could never stop the sup-norm search.  Every case is
one line on stderr and exit code 2, or a result."""

from __future__ import annotations

import pytest

from dpverify import supnorm
from dpverify.cli import MAX_MESSAGE, main
from dpverify.errors import InvalidParameterError, MalformedCertificate
from dpverify.jsonfile import read_json


def _one_error_line(capsys) -> str:
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err, err
    return err


# ------------------------------------------------------------ negative numbers as values

@pytest.mark.parametrize("a", ["-1/2", "-1e-1", "-0x1p-1", "-.5", "-5e-1"])
def test_negative_exact_numbers_are_values(a, capsys):
    """argparse alone takes only -12 and -1.5 for numbers: '-1/2' was 'expected 2
    arguments'.  Every spelling here is -1/2 exactly or -1/10; the interval is [a, 1/2]."""
    rc = main(["supnorm", "--f", "exp(x)", "--poly", "1,1", "--interval", a, "1/2",
               "--rtol", "1e-3", "--json"])
    assert rc == 0
    out = capsys.readouterr().out
    assert '"interval"' in out


def test_negative_coefficient_list_and_gamma(capsys):
    assert main(["supnorm", "--f", "x", "--poly", "-1/2,1", "--interval", "0", "1",
                 "--rtol", "1e-3"]) == 0
    assert "certified" in capsys.readouterr().out
    # a negative gamma now reaches the range check (it was "expected one argument")
    assert main(["or", "--k", "5", "--gamma", "-1e-3"]) == 2
    assert "--gamma must be in (0, 1)" in _one_error_line(capsys)


def test_a_missing_value_is_still_reported(capsys):
    with pytest.raises(SystemExit) as exc:  # argparse's own error: exit 2, one line
        main(["supnorm", "--f", "x", "--poly", "1", "--interval", "-1"])
    assert exc.value.code == 2
    assert "expected 2 arguments" in _one_error_line(capsys)


# ------------------------------------------------------------ integers in ASCII only

@pytest.mark.parametrize("k", ["\uff11\uff10", "\u0663", "1_000", "0x10", "1e3", "10.0",
                               "", "9" * 5000])
def test_integer_flags_take_ascii_digits_only(k, capsys):
    """int() would take full-width, Arabic-Indic digits and underscores: the exact-number
    reader and the verifier do not, so neither does an integer flag."""
    assert main(["or", "--k", k, "--gamma", "1/10"]) == 2
    err = _one_error_line(capsys)
    assert "--k must be an integer" in err and len(err) < 200


@pytest.mark.parametrize("k", [" 10", "+10", "10"])
def test_integer_flags_plain_forms(k, capsys):
    assert main(["or", "--k", k, "--gamma", "1/10", "--json"]) == 0
    assert '"k": 10' in capsys.readouterr().out


def test_full_width_digits_in_an_exact_number(capsys):
    """Unicode digits matched the number pattern and FLINT then failed with an encoding
    error; now the message says what a number looks like."""
    assert main(["or", "--k", "10", "--gamma", "\uff10.1"]) == 2
    assert "must be an exact number like" in _one_error_line(capsys)


# ------------------------------------------------------------ long error lines

def test_error_line_is_cut_to_a_readable_length(capsys):
    """The message quotes gamma = 10^-99999 as an exact ratio: 100 kB on one line before."""
    assert main(["or", "--k", "10", "--gamma", "1e-99999"]) == 2
    err = _one_error_line(capsys)
    assert len(err) <= MAX_MESSAGE + 100
    assert "characters omitted" in err and err.rstrip().endswith(")")


# ------------------------------------------------------------ JSON input files

@pytest.mark.parametrize("body, why", [
    ("[" * 5000 + "]" * 5000, "nested too deeply"),
    ('{"a": ' + "9" * 5000 + "}", "4300 digits"),
    ('{"a": NaN}', "NaN is not a JSON number"),
    ('{"a": -Infinity}', "-Infinity is not a JSON number"),
    ('{"a": 1', "Expecting"),
])
@pytest.mark.parametrize("argv", [
    ["answer", "--summary", "{path}", "--at", "0.5"],
    ["tuv-answer", "--summary", "{path}", "--query", "0", "--kind", "or"],
    ["supnorm", "--f", "x", "--poly", "@{path}", "--interval", "0", "1"],
    ["plot", "{path}", "--out", "{png}"],
])
def test_json_inputs_that_are_not_json(tmp_path, capsys, body, why, argv):
    """Deep nesting was a RecursionError traceback; a 5000-digit integer a message about
    Python's conversion limit without the file; NaN was accepted."""
    path = tmp_path / "in.json"
    path.write_text(body)
    argv = [a.format(path=path, png=tmp_path / "p.png") for a in argv]
    assert main(argv) == 2
    err = _one_error_line(capsys)
    if argv[0] == "plot" and why.endswith("is not a JSON number"):
        # plot reads NaN (Python's json.dumps writes it); this file has no "kind"
        assert "not a dpverify certificate" in err
        return
    assert "is not valid JSON" in err and why in err and "in.json" in err


def test_read_json_errors(tmp_path):
    with pytest.raises(InvalidParameterError, match="cannot read"):
        read_json(tmp_path / "absent.json", "--summary")
    binary = tmp_path / "b.json"
    binary.write_bytes(b"\xff\xfe\x00")
    with pytest.raises(MalformedCertificate, match="not UTF-8"):
        read_json(binary, "certificate", MalformedCertificate)
    nan = tmp_path / "n.json"
    nan.write_text("[NaN, 1]")
    got = read_json(nan, "x", allow_nan=True)
    assert got[0] != got[0] and got[1] == 1


# ------------------------------------------------------------ API: a search that never stops

def test_supnorm_refuses_zero_tolerances_before_work():
    """rtol = atol = 0 without a claim: the search refined to max_prec and then raised
    PrecisionExhausted (not a ValueError)."""
    with pytest.raises(InvalidParameterError, match="nothing would stop"):
        supnorm("exp(x)", [1, 1, 0.5], (-1, 1), rtol=0)
    # either tolerance alone, or a claim, is enough
    res = supnorm("exp(x)", [1, 1, 0.5], (-1, 1), rtol=0, atol="1e-3")
    assert res.upper - res.lower <= fmpq_from("1e-3")


def fmpq_from(text: str):
    from dpverify.numbers import parse_exact

    return parse_exact(text)


def test_an_undefined_target_names_the_expression_and_the_point(capsys):
    """Exact evaluation outside the real domain said only 'sqrt of the negative number -1';
    now the expression and the grid point are named (as eval_mpmath already did).  The
    Bernstein grid of order 4 on [0, 1] starts at x = 0, where x - 1 = -1."""
    assert main(["bernstein-approx", "--f", "sqrt(x-1)", "--k", "4", "--h", "2"]) == 2
    err = _one_error_line(capsys)
    assert "sqrt of the negative number -1 in sqrt(" in err and "at x = 0" in err
