"""``dpverify verify`` end to end: certificates written by the certifying commands hold,
edited copies do not, malformed files exit 2 with one line.

Each tampering test edits one field of a genuine certificate; the genuine file must pass
first, so a failure is caused by the edit and not by the checker confirming nothing.
Internals of the checker are tested in tests/test_verifier_unit.py.
"""

from __future__ import annotations

import copy
import json
import subprocess
import sys

import pytest
from flint import fmpq

from dpverify import cli
from dpverify.cli import main
from dpverify.numbers import fmpq_str, parse_exact


def _cert(tmp_path, capsys, argv, name="c.json"):
    out = tmp_path / name
    assert main(argv + ["--out", str(out)]) == 0
    capsys.readouterr()
    return json.loads(out.read_text())


def _verify(tmp_path, capsys, doc, name="t.json"):
    path = tmp_path / name
    path.write_text(json.dumps(doc) if not isinstance(doc, str) else doc)
    code = main(["verify", str(path)])
    cap = capsys.readouterr()
    assert "Traceback" not in cap.err
    return code, cap.out, cap.err


def test_or_certificate_holds_and_states_what_it_proves(tmp_path, capsys):
    c = _cert(tmp_path, capsys, ["or", "--k", "25", "--gamma", "1e-3"])
    code, out, _ = _verify(tmp_path, capsys, c)
    assert code == 0
    assert "HOLDS" in out
    # the statement is said in words: the bound and the domain appear
    assert "1/1000" in out and "25" in out


@pytest.mark.parametrize(
    "edit",
    [
        ("statement", "construction", "params", "gamma", "1/100"),
        ("statement", "construction", "params", "k", 24),
        ("statement", "polynomial", "degree", 20),
        ("statement", "polynomial", "coefficient_norm", "l1", "1"),
        ("statement", "polynomial", "coefficient_norm", "l1_log2", "3.000000"),
        ("statement", "max_error", "1/10000000"),
        ("statement", "error", "upper_decimal", "1e-30"),
        ("statement", "domain", "hi", 24),
        ("statement", "target", "r", 2),
    ],
)
def test_or_certificate_edits_rejected(tmp_path, capsys, edit):
    """Fields a reader acts on: params, gamma, degree, norms, decimal renderings,
    domain and target are all checked."""
    c = _cert(tmp_path, capsys, ["or", "--k", "25", "--gamma", "1e-3"])
    bad = copy.deepcopy(c)
    obj = bad
    for key in edit[:-2]:
        obj = obj[key]
    obj[edit[-2]] = edit[-1]
    code, out, err = _verify(tmp_path, capsys, bad)
    assert code in (1, 2), (edit, out)


def test_coefficient_edit_rejected(tmp_path, capsys):
    c = _cert(tmp_path, capsys, ["or", "--k", "25", "--gamma", "1e-3"])
    bad = copy.deepcopy(c)
    cs = bad["statement"]["polynomial"]["coefficients"]
    cs[1] = fmpq_str(parse_exact(cs[1]) + fmpq(1, 10**30))
    assert _verify(tmp_path, capsys, bad)[0] == 1


def test_supnorm_certificate_and_tampered_bound(tmp_path, capsys):
    c = _cert(tmp_path, capsys, ["supnorm", "--f", "exp(x)", "--poly", "1,1,1/2,1/6,1/24",
                                 "--interval", "-1", "1"])
    assert _verify(tmp_path, capsys, c)[0] == 0
    bad = copy.deepcopy(c)
    # sup |exp(x) - T4(x)| on [-1, 1] = e - 65/24 ~ 0.00995 (at x = 1): claim 1e-3
    bad["statement"]["error"]["upper"] = "1e-3"
    assert _verify(tmp_path, capsys, bad)[0] == 1
    bad = copy.deepcopy(c)
    bad["evidence"]["pieces"].pop(0)  # the pieces no longer cover [-1, 1]
    assert _verify(tmp_path, capsys, bad)[0] == 1


def test_undefined_target_never_verifies(tmp_path, capsys):
    """sqrt(x) is undefined on [-1, 0): a hand-made box certificate must not verify (the
    old checker clipped order-0 pieces to the domain and accepted it)."""
    c = _cert(tmp_path, capsys, ["supnorm", "--f", "sqrt(x)", "--poly", "0",
                                 "--interval", "0", "1"])
    bad = copy.deepcopy(c)
    bad["statement"]["domain"]["intervals"] = [["-1", "1"]]
    bad["evidence"]["pieces"] = [[[["-1", "0"]], 0, 64]] + bad["evidence"]["pieces"]
    assert _verify(tmp_path, capsys, bad)[0] in (1, 2)


def test_kernel_and_lebesgue_certificates_verify(tmp_path, capsys):
    j = _cert(tmp_path, capsys, ["jackson", "--t", "8", "--K", "2"], "j.json")
    assert _verify(tmp_path, capsys, j)[0] == 0
    bad = copy.deepcopy(j)
    bad["statement"]["multipliers"][1] = fmpq_str(
        parse_exact(bad["statement"]["multipliers"][1]) + fmpq(1, 10**30))
    assert _verify(tmp_path, capsys, bad)[0] == 1
    b = _cert(tmp_path, capsys, ["bernstein", "--k", "4", "--h", "2"], "b.json")
    assert _verify(tmp_path, capsys, b)[0] == 0
    bad = copy.deepcopy(b)
    bad["statement"]["upper"] = bad["statement"]["lower"] = "1"  # Lambda_{4,2} > 1
    assert _verify(tmp_path, capsys, bad)[0] == 1


def _approx_cert(tmp_path, capsys, monkeypatch):
    # the commands may not be in dpverify.cli.COMMANDS yet: register them for the run
    for name in ("minimax", "approx"):
        monkeypatch.setitem(cli.COMMANDS, name, (f"{name}_cmd", name))
    # x^4 on [-1, 1]: E_2 = E_3 = 1/8, E_1 = E_0 = 1/2 (x^4 = (T_4 + 4 T_2 + 3)/8, even)
    return _cert(tmp_path, capsys, ["approx", "--f", "x^4", "--interval", "-1", "1",
                                    "--gamma", "1/5"], "m.json")


def _edit(doc, path, value):
    bad = copy.deepcopy(doc)
    obj = bad
    for key in path[:-1]:
        obj = obj[key]
    obj[path[-1]] = value
    return bad


@pytest.mark.parametrize(
    "path,value",
    [
        (("statement", "error", "lower"), "1/7"),  # E_2(x^4) = 1/8 < 1/7
        (("statement", "error", "upper"), "1/9"),  # sup |f - p| >= E_2 = 1/8 > 1/9
        (("statement", "degree"), 3),  # needs 5 alternation points: malformed
        (("statement", "max_error"), "1/9"),
        (("statement", "least_degree", "lower"), "1/5"),  # not > max_error = 1/5
        (("statement", "least_degree", "lower"), "3/5"),  # E_1(x^4) = 1/2 < 3/5
        (("statement", "target", "expr"), "x^4 + x^3/10"),
        (("statement", "domain", "intervals"), [["-1", "2"]]),
        (("evidence", "alternation", 1), "-1"),  # not strictly increasing
    ],
)
def test_minimax_certificate_edits_rejected(tmp_path, capsys, monkeypatch, path, value):
    c = _approx_cert(tmp_path, capsys, monkeypatch)
    assert c["kind"] == "minimax" and c["statement"]["degree"] == 2
    assert _verify(tmp_path, capsys, c)[0] == 0
    code, out, _ = _verify(tmp_path, capsys, _edit(c, path, value))
    assert code in (1, 2), (path, out)


def test_minimax_pieces_and_points_are_needed(tmp_path, capsys, monkeypatch):
    c = _approx_cert(tmp_path, capsys, monkeypatch)
    bad = copy.deepcopy(c)
    bad["evidence"]["pieces"].pop()  # [-1, 1] no longer covered
    assert _verify(tmp_path, capsys, bad)[0] == 1
    bad = copy.deepcopy(c)
    # a point where |x^4 - p| is far below the levelled error: the lower bound fails
    bad["evidence"]["alternation"][2] = "1/1000"
    assert _verify(tmp_path, capsys, bad)[0] == 1


@pytest.mark.parametrize(
    "text",
    ["{not json", "", "[" * 100_000, '{"a": 1.5}', "NaN", '{"a": 1, "a": 2}', "[]"],
)
def test_malformed_files_exit_2_one_line(tmp_path, capsys, text):
    code, out, err = _verify(tmp_path, capsys, text)
    assert code == 2 and err.count("\n") == 1


def test_data_file_is_refused(tmp_path, capsys):
    code, _, err = _verify(tmp_path, capsys, {"schema_version": 1, "format": "dpverify-data",
                                               "kind": "privacy", "note": "x"})
    assert code == 2 and "not a certificate" in err


def test_missing_file_exit_2(tmp_path, capsys):
    assert main(["verify", str(tmp_path / "missing.json")]) == 2
    assert capsys.readouterr().err.count("\n") == 1


def test_verifier_loads_nothing_else_of_dpverify():
    code = ("import dpverify.verify, json, sys; "
            "print(json.dumps(sorted(m for m in sys.modules if m.startswith('dpverify'))))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout
    mods = json.loads(out)
    assert all(m == "dpverify" or m.startswith("dpverify.verify") for m in mods), mods


def test_timeout_ends_verify_even_inside_a_check_that_catches_exceptions(tmp_path):
    # a genuine Lebesgue certificate for k = 8 edited to claim k = 380 without the basis:
    # within the documented caps (h^2 k^4 <= 2 * 8^2 * 200^4), but minutes of arb matrix
    # work.  The verifier's checks turn unexpected exceptions into "undecided" and go on;
    # the --timeout alarm must still end the command (it once was caught there and
    # verification ran on for ~60 s).
    import time

    cert = tmp_path / "leb.json"
    assert main(["bernstein", "--k", "8", "--h", "3", "--out", str(cert)]) == 0
    doc = json.loads(cert.read_text())
    doc["statement"]["k"] = 380
    del doc["statement"]["basis"]
    cert.write_text(json.dumps(doc))
    t0 = time.monotonic()
    proc = subprocess.run([sys.executable, "-m", "dpverify", "verify", str(cert),
                           "--timeout", "2"], capture_output=True, text=True, timeout=120)
    assert time.monotonic() - t0 < 30
    assert proc.returncode == 1
    assert "time limit" in proc.stderr + proc.stdout
