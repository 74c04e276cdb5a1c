"""What the verifier prints is what it checked; what a Certificate says it knows.

* the statement is printed exactly as checked: a shortened line is marked and ``--json``
  holds the full text;
* ``info`` cannot change a verdict (values that are not JSON, integers of any size);
* the expression tokenizer accepts the blanks the certifier's parser accepts (ASCII);
* ``Report`` documents itself and has a short repr and an HTML view;
* ``Certificate.complete`` / ``check()``; ``verified`` is a deprecated alias.
"""

from __future__ import annotations

import dataclasses
import json
import warnings

import pytest

from dpverify import Approximation
from dpverify.certify import certify
from dpverify.constructions.chebyshev import or_polynomial
from dpverify.errors import DPVerifyError
from dpverify.exact import MonomialPoly
from dpverify.expr import parse as certifier_parse
from dpverify.verify import (
    Malformed,
    Report,
    render_json,
    render_text,
    verify_bytes,
    verify_document,
)
from dpverify.verify.expr import parse as verifier_parse
from dpverify.verify.report import SHORTENED

LONG = "x" + "*1" * 150 + "+0*x^3"  # 307 characters, equal to x


def _long_expr_cert() -> dict:
    """A true statement whose target text is longer than the display limit (200)."""
    return json.loads(certify(Approximation(
        construction="hand", params={}, poly=MonomialPoly([0, 1]),
        target={"kind": "expr", "expr": LONG, "variables": ["x"]},
        domain={"kind": "integers", "lo": 0, "hi": 3},
        claims={"max_error": "1/" + "7" * 60})).to_json())


def test_a_shortened_statement_line_is_marked_and_json_has_the_full_text():
    rep = verify_document(_long_expr_cert())
    assert rep.ok
    text = render_text(rep, "c.json")
    target = next(line for line in text.split("\n") if "Target:" in line)
    assert target.endswith(SHORTENED) and LONG[:200] + "..." in target and "x^3" not in target
    data = render_json(rep, "c.json")
    assert f"Target: f(x) = {LONG}." in data["statement"]
    # a long exact number: shortened (~, marked) in text, exact in JSON
    claim = next(line for line in text.split("\n") if "max_error =" in line)
    assert "~" in claim and claim.endswith(SHORTENED)
    assert any(line.endswith("max_error = 1/" + "7" * 60 + ".") for line in data["statement"])
    # nothing else is marked: short lines are printed as checked
    assert sum(SHORTENED in line for line in text.split("\n")) == 2
    assert all(SHORTENED not in line for line in data["statement"])


def test_info_never_changes_a_verdict():
    doc = json.loads(certify(or_polynomial(5, "1/10")).to_json())
    assert verify_document(doc).ok
    for value in (object(), {1, 2}, 10**5000, -(10**5000), [float("nan")], b"bytes"):
        edited = {**doc, "info": {**doc["info"], "odd": value}}
        rep = verify_document(edited)
        assert rep.ok, (type(value), rep.reason)
        assert any(line.startswith("info.odd: ") for line in rep.not_checked)
    # from a file: a JSON integer of 5000 digits in info is printed as written
    data = json.dumps(doc).replace('"info": {', '"info": {"big": ' + "9" * 5000 + ", ", 1)
    rep = verify_bytes(data.encode())
    assert rep.ok
    assert any(line.startswith("info.big: 999") for line in rep.not_checked)
    # the same integer where the statement needs one is malformed (no field accepts it)
    bad = json.dumps(doc).replace('"hi": 5', '"hi": ' + "9" * 5000, 1)
    with pytest.raises(Malformed, match="schema"):
        verify_bytes(bad.encode())


@pytest.mark.parametrize("blank", ["\u3000", "\u00a0", "\u2003", "\x0b", "\x0c", "\u2028"])
def test_non_ascii_blanks_are_refused_by_both_parsers(blank):
    text = f"x{blank}+ 1"
    with pytest.raises(Malformed, match="unexpected character"):
        verifier_parse(text, ["x"], "target.expr")
    with pytest.raises(DPVerifyError):
        certifier_parse(text)


def test_ascii_blanks_are_accepted_by_both_parsers():
    text = " exp (\tx )\r\n+ 1 "
    verifier_parse(text, ["x"], "target.expr")
    certifier_parse(text)


def test_report_documents_its_fields_and_has_a_short_repr():
    doc = Report.__doc__ or ""
    for word in ("status", "holds", "fails", "undecided", "ok", "checks", "statement",
                 "not_checked"):
        assert word in doc
    rep = verify_document(_long_expr_cert())
    assert repr(rep) == "Report(status='holds', kind='supnorm-finite', checks: 8 ok)"
    many = Report("fails", "k" * 200, ["s"] * 100,
                  [(f"check {i}" * 20, i % 3 == 0 or None, "d" * 500) for i in range(300)])
    assert len(repr(many)) <= 150 and repr(many).endswith(")")


def test_report_html_is_escaped():
    rep = Report("fails", "supnorm-finite", ["<script>alert(1)</script>"],
                 [("x<y", False, "a & b")])
    page = rep._repr_html_()
    assert "<script>" not in page and "&lt;script&gt;" in page
    assert "DOES NOT HOLD" in page and "x&lt;y" in page and "a &amp; b" in page


def test_certificate_complete_check_and_the_deprecated_verified():
    cert = certify(or_polynomial(5, "1/10"))
    assert cert.complete is True
    assert "complete=True" in repr(cert) and "verified" not in repr(cert)
    with pytest.warns(DeprecationWarning, match="complete"):
        assert cert.verified is True
    report = cert.check(deadline_seconds=60)
    assert isinstance(report, Report) and report.ok
    # a refuted claim: not complete, but the statement (the exact error) still holds
    bad = certify(dataclasses.replace(or_polynomial(5, "1/10"), claims={"max_error": "1/1000"}))
    assert bad.complete is False and bad.check().ok
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert bad.complete is False  # the new name does not warn
