"""The independent checker (dpverify.certify.verify) and ``dpverify verify``.

Each tampering test changes one thing in a genuine certificate and expects the checker
to notice; the genuine certificate must pass first (so the failure is caused by the
tampering, not by the checker being unable to confirm anything).
"""

import copy
import json

import pytest
from flint import fmpq

from dpverify import Approximation
from dpverify.certify import certify
from dpverify.certify.verify import verify_certificate
from dpverify.cli import main
from dpverify.errors import MalformedCertificate
from dpverify.exact import ChebyshevPoly, MonomialPoly
from dpverify.numbers import fmpq_str, parse_exact


def _box_cert(expr, poly, box, rtol="1e-6"):
    approx = Approximation(
        construction="supnorm",
        params={},
        poly=poly,
        target={"kind": "expr", "expr": expr, "variables": ["x"]},
        domain={"kind": "box", "intervals": [[str(a), str(b)] for a, b in box]},
    )
    return certify(approx, rtol=rtol).data


def _renorm(c):
    """Recompute the L1 norm after tampering, so only the error checks can object."""
    from dpverify.exact import poly_from_json

    p = poly_from_json({k: c[k] for k in ("basis", "coefficients", "domain") if k in c})
    c["coefficient_norm"] = fmpq_str(p.coefficient_norm())


def test_genuine_box_certificate_holds():
    c = _box_cert("exp(x)", MonomialPoly(["1", "1", "1/2", "1/6", "1/24"]), [(-1, 1)])
    rep = verify_certificate(c)
    assert rep.ok, rep.failures()


def test_tiny_error_coefficient_tampered_by_1e30_fails():
    # sup |x^2 + 1e-280 sin x - x^2| = 1e-280 sin 1: tight, so a 1e-30 change is visible
    c = _box_cert("x^2 + 1e-280*sin(x)", MonomialPoly([0, 0, 1]), [(-1, 1)])
    assert verify_certificate(c).ok
    bad = copy.deepcopy(c)
    bad["coefficients"][0] = fmpq_str(parse_exact(bad["coefficients"][0]) + fmpq(1, 10**30))
    _renorm(bad)
    rep = verify_certificate(bad)
    assert not rep.ok
    assert any("witness" in f or "piece" in f for f in rep.failures())


def test_tampered_norm_degree_bounds_fail():
    c = _box_cert("sin(x)", ChebyshevPoly(["0", "88/100"]), [(-1, 1)])
    assert verify_certificate(c).ok
    for field, value in [("coefficient_norm", "1"), ("degree", 2)]:
        bad = copy.deepcopy(c)
        bad[field] = value
        assert not verify_certificate(bad).ok
    bad = copy.deepcopy(c)  # claim an upper bound below the true sup
    bad["error"]["upper"] = bad["error"]["lower"]
    bad["error"]["lower"] = "0"
    assert not verify_certificate(bad).ok
    bad = copy.deepcopy(c)  # claim a lower bound above the true sup
    bad["error"]["lower"] = str(float(parse_exact(c["error"]["upper"])) * 1.01)
    assert not verify_certificate(bad).ok
    bad = copy.deepcopy(c)  # drop a piece: the cover is broken
    bad["error"]["pieces"].pop(3)
    assert not verify_certificate(bad).ok
    bad = copy.deepcopy(c)  # a claim marked proven that does not hold
    bad["claims"] = {"max_error": "1e-9"}
    bad["claims_status"] = {"max_error": "proven"}
    assert not verify_certificate(bad).ok


def test_finite_certificate_exact_and_tampered():
    # p(x) = x on {0..3} against the threshold r = 1: errors 0,0,1,2 -> max 2 (by hand)
    approx = Approximation(
        "hand",
        {},
        MonomialPoly([0, 1]),
        {"kind": "threshold", "r": 1},
        {"kind": "integers", "lo": 0, "hi": 3},
        claims={"max_error": 2},
    )
    c = certify(approx).data
    assert c["error"]["lower"] == c["error"]["upper"] == "2" and c["verified"]
    assert verify_certificate(c).ok
    bad = copy.deepcopy(c)
    bad["coefficients"] = ["0", "1000000000000000000000000000001/1000000000000000000000000000000"]
    _renorm(bad)
    assert not verify_certificate(bad).ok


def test_malformed_certificates():
    with pytest.raises(MalformedCertificate):
        verify_certificate({"construction": "x"})
    c = _box_cert("x", MonomialPoly([0]), [(0, 1)])
    bad = copy.deepcopy(c)
    bad["coefficients"] = ["one"]
    with pytest.raises(MalformedCertificate):
        verify_certificate(bad)


def test_cli_verify_exit_codes(tmp_path, capsys):
    c = _box_cert("exp(x)", MonomialPoly(["1", "1", "1/2"]), [(-1, 1)])
    good = tmp_path / "good.json"
    good.write_text(json.dumps(c))
    assert main(["verify", str(good)]) == 0
    bad = copy.deepcopy(c)
    bad["error"]["upper"] = "1e-9"
    badf = tmp_path / "bad.json"
    badf.write_text(json.dumps(bad))
    assert main(["verify", str(badf)]) == 1
    junk = tmp_path / "junk.json"
    junk.write_text("{not json")
    assert main(["verify", str(junk)]) == 2
    assert main(["verify", str(tmp_path / "missing.json")]) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err


def test_or_certificate_accepted_and_tampered_copy_rejected(tmp_path, capsys):
    """issue 3 acceptance: `dpverify or --k 25 --gamma 1e-3 --json` verifies, a tampered
    copy does not.  The exact error 1/T_19(13/12) is recomputed by the checker."""
    out = tmp_path / "or.json"
    assert main(["or", "--k", "25", "--gamma", "1e-3", "--json", "--out", str(out)]) == 0
    capsys.readouterr()
    c = json.loads(out.read_text())
    assert c["verified"] and c["error"]["exact"] and c["degree"] == 19
    assert main(["verify", str(out)]) == 0
    # change the constant coefficient by 1e-30: the exact maximum error changes
    bad = copy.deepcopy(c)
    bad["coefficients"][1] = fmpq_str(parse_exact(bad["coefficients"][1]) + fmpq(1, 10**30))
    _renorm(bad)
    badf = tmp_path / "bad.json"
    badf.write_text(json.dumps(bad))
    assert main(["verify", str(badf)]) == 1
    assert "finite: exact maximum" in capsys.readouterr().out
