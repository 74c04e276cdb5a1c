"""``dpverify evalbound`` with constant-expression ends (``--interval 0 pi/2``,
``--var x 0 pi/2``), checked against mpmath at 50 digits, independently of dpverify's
rounding: a polynomial's float inputs are the binary64 numbers inside (ends rounded
inward, the same inputs); a program's ranges are rounded outward (its inputs may be reals
rounded to the format), so the stated range contains the asked one.  Both record what was
asked and verify."""

from __future__ import annotations

import json

import mpmath
from flint import fmpq

from dpverify import cli
from dpverify.numbers import parse_exact


def _doc(tmp_path, capsys, args: list[str]) -> dict:
    out = tmp_path / "c.json"
    assert cli.main(["evalbound", *args, "--out", str(out)]) == 0
    text = capsys.readouterr().out
    assert "pi" in text  # the interval as asked is shown
    assert cli.main(["verify", str(out)]) == 0
    capsys.readouterr()
    return json.loads(out.read_text())


def _contains_half_pi(hi_text: str) -> bool:
    hi = parse_exact(hi_text)
    with mpmath.workdps(50):
        return mpmath.mpf(int(hi.p)) / int(hi.q) > mpmath.pi / 2


def test_poly_interval_with_pi(tmp_path, capsys):
    # the inputs are floats: the certificate states the binary64 numbers inside [0, pi/2],
    # whose largest is 0x1.921fb54442d18p+0 (mpmath: pi/2 = 1.57079632679489661923...,
    # and this float is below it while its successor is above)
    doc = _doc(tmp_path, capsys, ["--poly", "1,1,1/2", "--interval", "0", "pi/2"])
    st = doc["statement"]
    top = parse_exact(st["interval"][1])
    with mpmath.workdps(50):
        assert mpmath.mpf(int(top.p)) / int(top.q) < mpmath.pi / 2
        assert mpmath.mpf(float.fromhex("0x1.921fb54442d19p+0")) > mpmath.pi / 2
    assert top == parse_exact("0x1.921fb54442d18p+0") and st["interval"][0] == "0"
    assert doc["info"]["requested_interval"]["requested"] == ["0", "((1/2) * pi)"]
    out = tmp_path / "f.json"
    assert cli.main(["evalbound", "--poly", "1,1,1/2", "--interval", "0",
                     "0x1.921fb54442d18p+0", "--out", str(out)]) == 0
    capsys.readouterr()
    assert json.loads(out.read_text())["statement"] == st  # the same inputs, the same bound


def test_program_var_with_pi(tmp_path, capsys):
    doc = _doc(tmp_path, capsys, ["--expr", "x * x + 1", "--var", "x", "0", "pi/2"])
    (lo, hi), = doc["statement"]["box"]
    assert parse_exact(lo) == fmpq(0) and _contains_half_pi(hi)
    assert doc["info"]["requested_ranges"]["x"]["requested"] == ["0", "((1/2) * pi)"]


def test_constant_ends_refused_in_one_line(capsys):
    assert cli.main(["evalbound", "--poly", "1,1", "--interval", "pi", "3"]) == 2
    capsys.readouterr()
    assert cli.main(["evalbound", "--expr", "x", "--var", "x", "1", "pi/0"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "--var x HI" in err[0]
