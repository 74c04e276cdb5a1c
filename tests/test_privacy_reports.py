"""The a-priori privacy reports behind ``dpverify privacy tuv|jin|dlist`` live in
the library; the command only parses flags, calls one function and prints.

Checks: the command's JSON is exactly the library's record; library errors name the
function's parameters, never a flag (the command renames them); the parts agree with the
maps they compose, called independently (tuv_accuracy_plan, wang_privacy, basis_privacy,
psi_privacy) and the jin total is their exact sum (basic composition, recomputed here).
"""

from __future__ import annotations

import json
from math import comb

import pytest
from flint import fmpq

from dpverify.cli import main
from dpverify.errors import InvalidParameterError
from dpverify.mechanisms.jin_accounting import jin_privacy_report
from dpverify.mechanisms.jin_psi import psi_privacy
from dpverify.mechanisms.jin_synthetic import basis_privacy
from dpverify.mechanisms.tuv import tuv_accuracy_plan, tuv_privacy_report
from dpverify.mechanisms.tuv_dlist import dlist_privacy_report
from dpverify.mechanisms.wang_summary import wang_privacy
from dpverify.numbers import parse_fmpq_str

_ENVELOPE = ("format", "kind", "note", "schema_version", "verification")  # added by the CLI


def _cli_json(capsys, argv):
    assert main(argv + ["--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    return {k: v for k, v in out.items() if k not in _ENVELOPE}


def test_tuv_report_is_the_command_output_and_matches_the_plan(capsys):
    rep = tuv_privacy_report(6, 3, "1/5", "1/2", delta="1e-6", r=2, n=1000, alpha="1/2",
                             universe="doubled")
    out = _cli_json(capsys, ["privacy", "tuv", "--d", "6", "--k", "3", "--r", "2",
                             "--gamma", "1/5", "--epsilon", "1/2", "--delta", "1e-6",
                             "--n", "1000", "--alpha", "1/2", "--universe", "doubled"])
    assert out == json.loads(json.dumps(rep))
    plan = tuv_accuracy_plan(6, 3, "1/5", "1/2", delta="1e-6", r=2, alpha="1/2",
                             universe="doubled")
    assert rep["accuracy_plan"] == plan  # same g, same record: the same exact plan
    assert rep["polynomial"]["certified"] is True
    # alpha(n_needed) <= alpha < alpha(n_needed - 1), from the plan's exact formula
    gam, C = parse_fmpq_str(plan["gamma_exact"]), parse_fmpq_str(plan["C"])
    nn = int(plan["n_needed"])
    assert gam + C / nn <= fmpq(1, 2) and (nn == 1 or gam + C / (nn - 1) > fmpq(1, 2))


def test_jin_report_parts_and_total(capsys):
    rep = jin_privacy_report(100, 3, "1/2", basis_degree=1, psi_k=1, psi_iters=4,
                             psi_epsilon="1/2", psi_delta="1e-6")
    R = comb(3 + 1, 1)
    mom, _ = basis_privacy(100, R, 1, "1/2")
    psi = psi_privacy(3, 1, 4, 100, "1/2", "1e-6")
    assert rep["basis_size"] == R and rep["moments"] == mom and rep["psi"] == psi
    eps = parse_fmpq_str(mom["achieved_epsilon"]) + parse_fmpq_str(psi["achieved_epsilon"])
    assert parse_fmpq_str(rep["total"]["epsilon"]) == eps
    assert parse_fmpq_str(rep["total"]["delta"]) == fmpq(1, 10**6)  # moments pure: no delta
    out = _cli_json(capsys, ["privacy", "jin", "--n", "100", "--d", "3", "--basis-degree",
                             "1", "--epsilon", "1/2", "--psi-k", "1", "--psi-iters", "4",
                             "--psi-epsilon", "1/2", "--psi-delta", "1e-6"])
    assert out == json.loads(json.dumps({k: rep[k] for k in ("moments", "psi", "total")}))
    ten = jin_privacy_report(1000, 2, 1, t=5, delta="1e-6")
    assert ten["moments"] == wang_privacy(1000, 5, 2, 1, "1e-6")[0]
    assert ten["moment_sensitivity_l1"] == f"{2 * (5**2 - 1)}/1000"


def test_dlist_report_is_the_command_output(capsys):
    rep = dlist_privacy_report(5, 4, "1/5", "1/2", n=100)
    out = _cli_json(capsys, ["privacy", "dlist", "--m", "5", "--k", "4", "--gamma", "1/5",
                             "--epsilon", "1/2", "--n", "100"])
    assert out == json.loads(json.dumps(rep))
    assert parse_fmpq_str(rep["gamma_release"]) <= fmpq(1, 5)


@pytest.mark.parametrize("call, name", [
    (lambda: tuv_privacy_report(2, 3, "1/10", 1), "k"),
    (lambda: tuv_privacy_report(4, 2, "1/10", 1, representation="dense"), "representation"),
    (lambda: tuv_privacy_report(4, 2, "1/10", 1, n=0), "n"),
    (lambda: tuv_privacy_report(4, 2, "1/10", 1, alpha=2), "alpha"),
    (lambda: jin_privacy_report(100, 2, 1), "give exactly one of t"),
    (lambda: jin_privacy_report(100, 5, 1, t=3), "d"),
    (lambda: jin_privacy_report(100, 2, 1, t=1000), "t"),
    (lambda: jin_privacy_report(100, 3, 1, basis_degree=1, psi_k=1), "psi_epsilon"),
    (lambda: jin_privacy_report(100, 3, 1, basis_degree=1, psi_k=4, psi_epsilon=1), "psi_k"),
    (lambda: jin_privacy_report(1, 3, 1, basis_degree=1, psi_k=1, psi_epsilon=1), "n"),
    (lambda: dlist_privacy_report(5, 4, 2, 1), "gamma"),
    (lambda: dlist_privacy_report(5, 4, "1/5", 0), "epsilon"),
])
def test_library_errors_name_parameters_not_flags(call, name):
    with pytest.raises(InvalidParameterError) as err:
        call()
    msg = str(err.value)
    assert msg.startswith(name) and "--" not in msg


def test_command_names_the_flag(capsys):
    assert main(["privacy", "tuv", "--d", "2", "--k", "3", "--gamma", "1/10",
                 "--epsilon", "1"]) == 2
    assert "--k must be" in capsys.readouterr().err
    assert main(["privacy", "jin", "--n", "100", "--d", "3", "--basis-degree", "1",
                 "--epsilon", "1", "--psi-k", "4", "--psi-epsilon", "1"]) == 2
    assert "--psi-k must be" in capsys.readouterr().err
    assert main(["privacy", "dlist", "--m", "5", "--k", "4", "--gamma", "3/2",
                 "--epsilon", "1"]) == 2
    assert "--gamma must be" in capsys.readouterr().err
