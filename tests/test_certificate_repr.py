"""Certificate.__repr__ (short, < 200 characters) and _repr_html_ (notebooks).

Expected strings are written by hand from the tiny documents below."""

from __future__ import annotations

import json

from hypothesis import given
from hypothesis import strategies as st

from dpverify.certify.certificate import Certificate


def _read(doc):
    """A partial document as read from a file: Certificate(...) issues certificates and
    refuses one the checker's schema would refuse; from_json reads any document."""
    return Certificate.from_json(json.dumps({"schema_version": 1,
                                             "format": "dpverify-certificate", **doc}))


def _box(upper="3/1000", intervals=(("-1", "1"),), unproven=None):
    info = {"unproven_claims": unproven} if unproven else {}
    return _read({"kind": "supnorm-box",
                  "statement": {"polynomial": {"basis": "monomial", "degree": 8,
                                               "coefficients": ["1"]},
                                "domain": {"kind": "box",
                                           "intervals": [list(i) for i in intervals]},
                                "error": {"lower": "1/1000", "upper": upper}},
                  "info": info})


def test_repr_states_degree_bound_domain_complete():
    assert repr(_box()) == ("Certificate(kind='supnorm-box', degree=8, bound=3e-3, "
                            "domain=[-1, 1], complete=True)")
    # the bound is rounded up, never down: 1/3 -> 3.33334e-1
    assert "bound=3.33334e-1," in repr(_box(upper="1/3"))
    assert "complete=False" in repr(_box(unproven=["max_error"]))


def test_repr_of_finite_and_lebesgue_and_jackson():
    fin = _read({"kind": "supnorm-finite", "statement": {
        "polynomial": {"degree": 17}, "domain": {"kind": "integers", "lo": 0, "hi": 20},
        "error": {"lower": "1/2", "upper": "1/2"}}})
    assert repr(fin) == ("Certificate(kind='supnorm-finite', degree=17, bound=5e-1, "
                         "domain={0..20}, complete=True)")
    leb = _read({"kind": "lebesgue-constant", "statement": {"k": 4, "h": 2,
                                                                  "lower": "1", "upper": "5/4"}})
    assert "bound=1.25," in repr(leb) and "domain=[0, 1]" in repr(leb)
    jac = _read({"kind": "jackson-kernel", "statement": {"degree": 6}})
    assert "degree=6, bound=n/a" in repr(jac)


def test_html_is_escaped_and_has_the_fields():
    html = _box(intervals=(("-1", "<b>"),))._repr_html_()
    assert "<table>" in html and "&lt;b&gt;" in html and "<b>" not in html.replace(
        "<b>dpverify certificate</b>", "")
    for key in ("degree", "bound", "domain", "complete"):
        assert f">{key}</th>" in html


@given(st.lists(st.tuples(st.text(max_size=30), st.text(max_size=30)), max_size=20),
       st.text(max_size=300))
def test_repr_is_short_and_never_raises(intervals, upper):
    cert = _box(upper=upper, intervals=intervals)
    assert len(repr(cert)) < 200
    cert._repr_html_()
