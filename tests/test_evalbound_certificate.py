"""Certificates of kinds ``evalbound`` and ``float-error``; ``dpverify verify --part``; the
``verification`` field of data documents.

The certifier (dpverify.certify.evalbound) writes the certificates; the independent checker
(dpverify.verify) must accept every genuine one and refuse edited ones (more edits in
tests/test_verify_hostile.py and tests/test_trust_mutation.py).  Gappa's bounds below come
from Gappa 1.4.1 run with ``$ x in 16;`` on the scripts benchmarks/evalbound_tightness.py
writes for the same binary64 code (an independent tool: the target is to be at most its
bound on every case).
"""

from __future__ import annotations

import importlib.util
import json
import math
import pathlib
import random
from fractions import Fraction

import pytest
from flint import fmpq
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_evalbound import CASES, observed, q, sample

from dpverify import cli
from dpverify.certify.evalbound import evalbound, float_error_bound
from dpverify.commands._verification import VERIFICATION
from dpverify.verify import Malformed, verify_document
from dpverify.verify import cli as verify_cli
from dpverify.verify.parts import verify_part

ROOT = pathlib.Path(__file__).resolve().parents[1]

#: Gappa 1.4.1, ``$ x in 16;``, on benchmarks/evalbound_tightness.py's cases: m * 2^-e
GAPPA_16 = {
    "exp Taylor n=12 [-1,1]": (2861713681, 82),
    "sin Taylor n=13 [-1,1]": (6007840961, 85),
    "exp interpolant n=12 [-1,1]": (2861713681, 82),
    "log1p interpolant n=10 [0,1]": (1132762541430547247, 112),
    "prod (x - 1/2 - i/16), i<8 [1/2,1]": (81, 54),
    "sum (-1)^i T_i/(i+1)^2 n=20 [-1,1]": (757521695535053989, 93),
    "log interpolant n=12 [1,2] (Clenshaw)": (1061604486580152801, 112),
}


def _bench():
    spec = importlib.util.spec_from_file_location(
        "evalbound_tightness", ROOT / "benchmarks" / "evalbound_tightness.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_at_most_gappa_with_bisection_on_the_benchmark_cases():
    cases = list(_bench().cases())
    assert [c[0] for c in cases] == list(GAPPA_16)
    for name, basis, cs, iv, _ in cases:
        cq = [fmpq(c.numerator, c.denominator) for c in cs]
        ivq = tuple(fmpq(*Fraction(v).as_integer_ratio()) for v in iv)
        r = evalbound(cq, ivq, basis=basis, domain=ivq if basis == "chebyshev" else None)
        m, e = GAPPA_16[name]
        assert r.coefficients == 0, name  # binary64 coefficients: the same float code
        assert r.evaluation <= fmpq(m, 2**e), (name, float(r.evaluation), m / 2**e)
        assert verify_document(r.certificate().data).status == "holds", name


@pytest.mark.parametrize("basis,coeffs,iv,dom,roots", CASES)
def test_genuine_certificates_hold(basis, coeffs, iv, dom, roots):
    r = evalbound(coeffs, iv, basis=basis, domain=dom)
    doc = r.certificate().data
    rep = verify_document(json.loads(json.dumps(doc)))
    assert rep.status == "holds", rep.checks
    assert doc["statement"]["bound"] == str(r.evaluation)


@settings(deadline=None, max_examples=15, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.floats(-4, 4, allow_nan=False), min_size=1, max_size=7),
       st.sampled_from(["monomial", "chebyshev"]),
       st.sampled_from([(-1, 1), (0, 1), ("-1/3", "5/2"), (0, "1e-300")]),
       st.booleans())
def test_law_the_checker_accepts_what_the_certifier_proves(cs, basis, iv, on_domain):
    coeffs = [q(c) for c in cs]
    dom = (fmpq(-2), fmpq(3)) if basis == "chebyshev" and on_domain else None
    r = evalbound(coeffs, iv, basis=basis, domain=dom)
    assert verify_document(r.certificate().data).status == "holds"


def _float_error():
    cs = [fmpq(1, math.factorial(i)) for i in range(6)]
    return float_error_bound("exp(x)", cs, ("-1/2", "1/2"), rtol="1e-2")


def test_float_error_certificate_and_its_parts(tmp_path):
    fe = _float_error()
    doc = fe.float_certificate().data
    assert verify_document(doc).status == "holds"
    path = tmp_path / "fe.json"
    path.write_text(json.dumps(doc))
    for name, kind in (("approximation", "supnorm-box"), ("evaluation", "evalbound")):
        rep = verify_part(path, name)
        assert rep.status == "holds" and rep.kind == kind
    with pytest.raises(Malformed, match="no part 'nope'.*approximation, evaluation"):
        verify_part(path, "nope")
    # the float code really is that close to exp: emulate it at sample points
    c64 = [float(Fraction(int(c.p), int(c.q))) for c in fe.evaluation.float_coefficients]
    for x in [k / 64 for k in range(-32, 33)]:
        acc = c64[-1]
        for c in reversed(c64[:-1]):
            acc = acc * x + c
        assert abs(math.exp(x) - acc) < float(fe.bound) * (1 + 1e-9)


def test_float_error_parts_must_match_the_statement():
    doc = _float_error().float_certificate().data
    # a part about another polynomial: the sum of the parts says nothing about this one
    bad = json.loads(json.dumps(doc))
    bad["evidence"]["parts"]["evaluation"]["statement"]["polynomial"]["coefficients"][0] = "2"
    rep = verify_document(bad)
    assert rep.status == "fails" and "evaluation" in rep.reason
    # a claimed share smaller than what the part proves
    bad = json.loads(json.dumps(doc))
    bad["statement"]["approximation_error"] = "0"
    assert verify_document(bad).status == "fails"
    # a part of the wrong kind is malformed
    bad = json.loads(json.dumps(doc))
    bad["evidence"]["parts"]["evaluation"] = doc["evidence"]["parts"]["approximation"]
    with pytest.raises(Malformed):
        verify_document(bad)


def _run(argv, capsys):
    code = cli.main(argv)
    return code, capsys.readouterr()


def test_cli_writes_certificates_verify_checks_them(tmp_path, capsys):
    out = tmp_path / "eb.json"
    code, cap = _run(["evalbound", "--poly", "0x1p0,0x1p0,0x1p-1", "--interval", "-1", "1",
                      "--out", str(out)], capsys)
    assert code == 0 and "kind evalbound" in cap.out
    assert json.loads(out.read_text())["kind"] == "evalbound"
    code, cap = _run(["verify", str(out)], capsys)
    assert code == 0 and "HOLDS" in cap.out
    fe = tmp_path / "fe.json"
    code, cap = _run(["evalbound", "--poly", "1,1,1/2", "--interval", "0", "1/4", "--f",
                      "exp(x)", "--out", str(fe)], capsys)
    assert code == 0 and "--part" in cap.out
    code, cap = _run(["verify", str(fe)], capsys)
    assert code == 0 and "kind: float-error" in cap.out
    code, cap = _run(["verify", str(fe), "--part", "evaluation"], capsys)
    assert code == 0 and "kind: evalbound" in cap.out and "(part evaluation)" in cap.out
    code, cap = _run(["verify", str(fe), "--part", "nope"], capsys)
    assert code == 2 and "its parts: approximation, evaluation" in cap.err
    assert verify_cli.main([str(fe), "--part", "approximation", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["kind"] == "supnorm-box"
    assert verify_cli.main([str(fe), "--part"]) == 2 and "usage" in capsys.readouterr().err


#: commands whose JSON is a certificate; every other command writes a data document
CERTIFICATE_COMMANDS = {"or", "and", "rofk", "dlist", "supnorm", "minimax", "approx",
                        "fpminimax", "bernstein", "bernstein-approx", "jackson",
                        "jackson-approx", "evalbound", "implement"}


def test_every_data_command_says_how_to_verify():
    assert set(cli.COMMANDS) - CERTIFICATE_COMMANDS == set(VERIFICATION)
    text = (ROOT / "docs" / "certificates.md").read_text()
    data = text.split("## Data files", 1)[1].split("\n## ", 1)[0]
    for command in VERIFICATION:
        assert f"`{command}`" in data, command


def test_data_documents_embed_their_certificates(tmp_path, capsys):
    out = tmp_path / "p.json"
    code, cap = _run(["privacy", "tuv", "--d", "20", "--k", "3", "--gamma", "1/10",
                      "--epsilon", "1", "--out", str(out)], capsys)
    assert code == 0 and f"dpverify verify {out} --part NAME (polynomial)" in cap.err
    doc = json.loads(out.read_text())
    assert doc["format"] == "dpverify-data" and doc["verification"]["certificates"] == [
        "polynomial"]
    code, cap = _run(["verify", str(out)], capsys)
    assert code == 2 and "--part NAME (NAME: polynomial)" in cap.err
    code, cap = _run(["verify", str(out), "--part", "polynomial"], capsys)
    assert code == 0 and "HOLDS" in cap.out
    # a data document without certificates says what it is
    code, cap = _run(["release-size", "--d", "10", "--class", "disjunction", "--k", "2",
                      "--epsilon", "1", "--alpha", "1/5", "--beta", "1/10", "--gamma", "1/10",
                      "--out", str(tmp_path / "n.json")], capsys)
    doc = json.loads((tmp_path / "n.json").read_text())
    assert doc["verification"]["states_bounds"] and "dpverify verify" in doc[
        "verification"]["how"]


def test_a_sampled_violation_makes_the_statement_fail():
    # (x - 1)^6 expanded near its root: the true error is far above 1e-20
    r = evalbound([1, -6, 15, -20, 15, -6, 1], (0, 2))
    doc = r.certificate().data
    obs = observed("monomial", [1, -6, 15, -20, 15, -6, 1],
                   sample(0.0, 2.0, 200, random.Random(1), (1.0,)))
    assert obs > fmpq(1, 10**20)
    doc["statement"]["bound"] = "1/100000000000000000000"
    del doc["statement"]["bound_decimal"]
    rep = verify_document(doc)
    assert rep.status == "fails" and any(c[0] == "refutation" for c in rep.checks)


def test_the_arithmetic_is_part_of_the_statement():
    doc = evalbound([1, 1, "1/2", "1/6"], (0, 1), fma=True).certificate().data
    assert doc["statement"]["scheme"] == "horner-fma"
    assert "fused multiply-add" in doc["statement"]["arithmetic"]
    assert verify_document(doc).status == "holds"
    for scheme, arith in (("horner", doc["statement"]["arithmetic"]),
                          ("horner-fma", "binary64, round to nearest even, no FMA")):
        bad = json.loads(json.dumps(doc))
        bad["statement"]["scheme"], bad["statement"]["arithmetic"] = scheme, arith
        with pytest.raises(Malformed):
            verify_document(bad)
    # the same claims for the plain scheme: the wrong number of operations
    bad = json.loads(json.dumps(doc))
    bad["statement"]["scheme"] = "horner"
    bad["statement"]["arithmetic"] = "binary64, round to nearest even, no FMA"
    with pytest.raises(Malformed):
        verify_document(bad)


def test_within_n_ulp_is_one_verified_statement():
    fe = _float_error()
    doc = fe.float_certificate().data
    ulps = doc["statement"]["ulps"]
    # exp >= exp(-1/2) > 1/2 on [-1/2, 1/2]: ulp(f) >= ulp(1/2) = 2^-53
    assert ulps["f_lower"] == "1/2" and fe.bound <= fmpq(ulps["ulps"]) / 2**53
    assert verify_document(doc).status == "holds"
    for key, value, status in (("ulps", "1", "fails"), ("f_lower", "2", "undecided")):
        bad = json.loads(json.dumps(doc))
        bad["statement"]["ulps"][key] = value
        assert verify_document(bad).status == status, key
    bad = json.loads(json.dumps(doc))
    bad["statement"]["ulps"]["f_lower"] = "0"
    with pytest.raises(Malformed):
        verify_document(bad)
