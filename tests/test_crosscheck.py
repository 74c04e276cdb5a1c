"""Tests of dpverify.crosscheck and ``dpverify crosscheck`` (quick grid only)."""

from __future__ import annotations

import dataclasses
import json

import numpy as np
from flint import fmpq

import dpverify.crosscheck as cc
from dpverify.cli import main


def test_float_to_fmpq_is_exact():
    # 0.1 is 3602879701896397 / 2^55 (IEEE binary64), computed by hand
    assert cc.float_to_fmpq(0.1) == fmpq(3602879701896397, 2**55)
    assert cc.float_to_fmpq(-2.5) == fmpq(-5, 2)


def test_deviation_exact_value():
    # |fl(0.1) - 1/10| = |36028797018963970 - 2^55| / (10 * 2^55) = 2 / (10 * 2^55)
    m = cc.deviation([0.1, 1.0], [fmpq(1, 10), fmpq(1)])
    assert m.max_abs == fmpq(2, 10 * 2**55)
    assert m.scale == 1 and m.structural is None


def test_deviation_reports_length_mismatch():
    m = cc.deviation(np.zeros(3), [fmpq(0)] * 4)
    assert m.structural and "3" in m.structural and "4" in m.structural


def test_quick_grid_passes():
    report = cc.crosscheck("quick")
    failed = [c["name"] for c in report["checks"] if c["status"] == "failed"]
    assert report["passed"], failed
    names = {c["name"] for c in report["checks"]}
    assert {"or-chebyshev-coeffs", "clenshaw", "bernstein-basis", "tensor-eval"} <= names
    for c in report["checks"]:
        if c["status"] == "passed":
            tol = fmpq(*[int(v) for v in _ratio(c["tolerance"]["value"])])
            measured = c["max_abs"] if c["tolerance"]["kind"] == "abs" else c["max_rel"]
            assert _dec(measured) <= tol * fmpq(11, 10)  # rounded-up 6-digit decimals


def _ratio(text: str) -> tuple[int, int]:
    from dpverify.numbers import parse_exact

    q = parse_exact(text, "t")
    return int(q.p), int(q.q)


def _dec(text: str) -> fmpq:
    from dpverify.numbers import parse_exact

    return parse_exact(text, "d")


def test_planted_wrong_fast_path_fails(monkeypatch, capsys):
    # a "fast" OR whose c_t is off by a factor (1 + 1e-9): must fail the 1e-13 tolerance
    orig = next(c for c in cc.CHECKS if c.name == "or-chebyshev-coeffs")

    def wrong(p):
        fastv, exact, scale = orig.run(p)
        fastv = np.array(fastv)
        fastv[-1] *= 1 + 1e-9
        return fastv, exact, scale

    bad = dataclasses.replace(orig, run=wrong)
    monkeypatch.setattr(cc, "CHECKS", (bad,))
    report = cc.crosscheck("quick")
    assert not report["passed"] and report["checks"][0]["status"] == "failed"
    import dpverify.commands.crosscheck_cmd as cmd

    monkeypatch.setattr(cmd, "crosscheck", cc.crosscheck)
    assert main(["crosscheck", "--quick", "--json"]) == 1
    data = json.loads(capsys.readouterr().out)
    assert data["passed"] is False


def test_cli_only_and_bad_name(capsys):
    assert main(["crosscheck", "--only", "dct", "clenshaw", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert [c["name"] for c in data["checks"]] == ["clenshaw", "dct"]
    assert main(["crosscheck", "--only", "nope"]) == 2
    assert "unknown check" in capsys.readouterr().err


def test_missing_reference_is_skipped():
    chk = dataclasses.replace(cc.CHECKS[0], requires="dpverify.no_such_module_xyz")
    rep = cc.run_check(chk, "quick")
    assert rep["status"] == "skipped" and rep["passed"]
