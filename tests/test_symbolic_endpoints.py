"""Interval ends written as constant expressions (pi/2, e, sqrt(2), log(2)/2): the
certificate covers an exact rational interval containing the real one, states what was
requested, and its lower end comes from points inside the real interval; the verifier
checks both.  Reference values come from mpmath at 100 digits (independent of Arb)."""

from __future__ import annotations

import json
from fractions import Fraction

import mpmath
import pytest
from flint import fmpq

import dpverify
from dpverify.cli import main
from dpverify.errors import DomainError, ExpressionError, InvalidParameterError
from dpverify.expr.constant import read_box, read_endpoint
from dpverify.verify import verify_document
from dpverify.verify.report import Malformed

mpmath.mp.dps = 100

ENDS = {"pi": mpmath.pi, "pi/2": mpmath.pi / 2, "e": mpmath.e, "sqrt(2)": mpmath.sqrt(2),
        "log(2)/2": mpmath.log(2) / 2, "-pi/4": -mpmath.pi / 4}


def _mp(q: fmpq) -> mpmath.mpf:
    return mpmath.mpf(int(q.p)) / int(q.q)


@pytest.mark.parametrize("text", sorted(ENDS))
def test_ends_are_enclosed_by_close_decimals(text):
    end = read_endpoint(text, "b")
    value = ENDS[text]
    assert end.exact is None
    assert _mp(end.lo) <= value <= _mp(end.hi)
    assert _mp(end.hi) - _mp(end.lo) <= abs(value) * mpmath.mpf(10) ** -38


def test_exact_ends_stay_exact():
    for text, q in (("1/3", fmpq(1, 3)), ("1e-3", fmpq(1, 1000)), ("1/2 + 1/3", fmpq(5, 6)),
                    ("sqrt(1/4)", fmpq(1, 2)), ("0x1.8p1", fmpq(3))):
        end = read_endpoint(text)
        assert end.exact == q and end.lo == end.hi == q
    box = read_box((0, "1/2"))
    assert box.exact and box.requested is None and box.domain() == {
        "kind": "box", "intervals": [["0", "1/2"]]}


def test_bad_ends_name_the_parameter():
    with pytest.raises(ExpressionError, match=r"interval\[1\]"):
        read_box((0, "x/2"))
    with pytest.raises(InvalidParameterError, match="undefined"):
        read_box((0, "log(0)"))
    with pytest.raises(DomainError, match="a < b"):
        read_box(("pi", 3))


def test_outward_rounding_and_witness_inside():
    # sup |sin(x) - x| on [0, pi/2] is pi/2 - 1, attained at pi/2
    cert = dpverify.certify_approximation("sin(x)", [0, 1], (0, "pi/2"), rtol="1e-9")
    dom = cert.statement["domain"]
    assert dom["requested"] == [["0", "((1/2) * pi)"]] and dom["rounding"] == "outward"
    b = Fraction(dom["intervals"][0][1])
    assert mpmath.mpf(b.numerator) / b.denominator >= mpmath.pi / 2
    w = Fraction(cert.evidence["witness"][0])
    assert mpmath.mpf(w.numerator) / w.denominator <= mpmath.pi / 2
    lower, upper = (Fraction(cert.statement["error"][k]) for k in ("lower", "upper"))
    true = mpmath.pi / 2 - 1
    assert mpmath.mpf(lower.numerator) / lower.denominator <= true
    assert true <= mpmath.mpf(upper.numerator) / upper.denominator
    assert cert.check().status == "holds"


def _mutated(cert, change) -> dict:
    data = json.loads(json.dumps(cert.data))
    change(data)
    return data


def test_verifier_checks_the_requested_interval():
    cert = dpverify.certify_approximation("sin(x)", [0, 1], (0, "pi/2"), rtol="1e-6")
    st = "statement"
    # the witness moved to the rounded end, outside the real interval: the enclosure
    # would then not be proven for [0, pi/2]
    outside = _mutated(cert, lambda d: d["evidence"].__setitem__(
        "witness", [d[st]["domain"]["intervals"][0][1]]))
    assert verify_document(outside).status == "fails"
    # a requested interval that the stated one does not contain
    wider = _mutated(cert, lambda d: d[st]["domain"].__setitem__(
        "requested", [["0", "pi/2 + 1/10^30"]]))
    assert verify_document(wider).status == "fails"
    for change in (lambda d: d[st]["domain"].__setitem__("rounding", "inward"),
                   lambda d: d[st]["domain"].pop("rounding"),
                   lambda d: d[st]["domain"].__setitem__("requested", [["0", "x"]])):
        with pytest.raises(Malformed):
            verify_document(_mutated(cert, change))


def test_a_target_undefined_just_outside_is_refused_clearly(capsys):
    with pytest.raises(DomainError, match=r"undefined at 1\.5707963267948966192.*rounded "
                       r"outward.*e\.g\. 1\.5707963267948966"):
        dpverify.certify_approximation("sqrt(pi/2 - x)", [1], (0, "pi/2"))
    assert main(["supnorm", "--f", "sqrt(pi/2 - x)", "--poly", "1", "--interval", "0",
                 "pi/2"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "rounded outward" in err


def test_the_hex_float_stops_short_of_pi_over_2():
    # 0x1.921fb54442d18p+0 is the binary64 number nearest pi/2, and it is below pi/2
    hexed = Fraction(0x1921fb54442d18, 2**52)
    assert mpmath.mpf(hexed.numerator) / hexed.denominator < mpmath.pi / 2
    r_hex = dpverify.supnorm("x", [0], (0, "0x1.921fb54442d18p+0"), rtol="1e-30")
    r_pi = dpverify.supnorm("x", [0], (0, "pi/2"), rtol="1e-30")
    # sup |x| is the right end: the hex interval's is smaller than pi/2, the symbolic
    # one's lower end (a point inside [0, pi/2]) already exceeds it
    assert r_hex.lower == fmpq(0x1921fb54442d18, 2**52)
    assert _mp(r_hex.upper) < mpmath.pi / 2 <= _mp(r_pi.upper)
    assert r_pi.lower > r_hex.upper
    assert r_pi.requested == [["0", "((1/2) * pi)"]] and "pi" in repr(r_pi)


def test_minimax_cli_records_the_request(tmp_path, capsys):
    out = tmp_path / "m.json"
    assert main(["minimax", "--f", "sin(x)", "--degree", "3", "--interval", "0", "pi/2",
                 "--out", str(out)]) == 0
    assert "rounded outward" in capsys.readouterr().out
    data = json.loads(out.read_text())
    assert data["info"]["requested_interval"]["requested"] == ["0", "((1/2) * pi)"]
    b = Fraction(data["statement"]["domain"]["intervals"][0][1])
    assert mpmath.mpf(b.numerator) / b.denominator >= mpmath.pi / 2
    assert verify_document(data).status == "holds"


def test_evalbound_reads_the_binary64_numbers_inside():
    e = dpverify.evalbound([1, 1], ("-e", "pi/2"))
    below = mpmath.mpf(float(mpmath.pi / 2))  # nearest binary64; pi/2's is below it
    assert e.interval[1] == fmpq(0x1921fb54442d18, 2**52) and _mp(e.interval[1]) == below
    assert _mp(e.interval[0]) >= -mpmath.e and float(_mp(e.interval[0])) == float(-mpmath.e)


def test_certify_approximation_takes_every_polynomial_form(tmp_path):
    from numpy.polynomial import Chebyshev, Polynomial

    from dpverify.exact import MonomialPoly
    from dpverify.verify import verify_file

    forms = [Polynomial([1, 1, 0.5]), [1, 1, "1/2"], MonomialPoly([1, 1, fmpq(1, 2)]),
             Chebyshev.fit([0, 0.5, 1], [1, 1.6487212707001282, 2.718281828459045], 2)]
    for i, poly in enumerate(forms):
        cert = dpverify.certify_approximation("exp(x)", poly, (0, 1), claim="1/4")
        assert cert.complete
        path = tmp_path / f"c{i}.json"
        cert.save(str(path))
        assert verify_file(str(path)).status == "holds"


@pytest.mark.parametrize("call", [
    lambda: dpverify.certify_approximation("x", [1], (0, 1), rtoll="1e-3"),
    lambda: dpverify.supnorm("x", [1], (0, 1), rtoll="1e-3"),
    lambda: dpverify.minimax("x^3", 1, (0, 1), rtoll="1e-3"),
    lambda: dpverify.approx("x^3", (0, 1), "1/10", rtoll="1e-3"),
    lambda: dpverify.evalbound([1], (0, 1), rtoll="1e-3"),
    lambda: dpverify.float_error_bound("x", [1], (0, 1), rtoll="1e-3"),
    lambda: dpverify.chebyshev_coefficients("x", 3, rtoll="1e-3"),
])
def test_unknown_keywords_are_named_with_the_valid_ones(call):
    with pytest.raises(dpverify.ParameterTypeError) as info:
        call()
    msg = str(info.value)
    assert "'rtoll'" in msg and "valid:" in msg
    if " rtol" in msg:  # when rtol is a valid name, it is proposed
        assert "did you mean 'rtol'?" in msg
