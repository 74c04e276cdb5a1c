"""certify -> verify round trips on random polynomials, targets and domains (hypothesis).

Whatever the certifier states, the independent checker (dpverify.verify, which shares no
code with it) must confirm it; and the statement survives JSON serialisation.
"""

from __future__ import annotations

import json

from flint import fmpq
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dpverify import Approximation
from dpverify.certify import alternation, certify
from dpverify.constructions.remez import remez
from dpverify.errors import CertificationFailed
from dpverify.exact import BernsteinPoly, ChebyshevPoly, MonomialPoly
from dpverify.numbers import parse_exact
from dpverify.verify import verify_bytes, verify_document

# targets defined and finite on [-1, 1] (each argument of sqrt/log stays >= 1)
TARGETS = ["exp(x)", "sin(3*x)", "x^2", "abs(x - 1/3)", "sqrt(x + 2)", "1/(2 + x)",
           "atan(5*x)", "log(3 + x)", "cos(x)*exp(-x^2)"]

small_q = st.fractions(min_value=-4, max_value=4, max_denominator=16)


@st.composite
def polynomials(draw):
    coeffs = draw(st.lists(small_q, min_size=1, max_size=7))
    basis = draw(st.sampled_from(["monomial", "chebyshev", "bernstein"]))
    cs = [fmpq(c.numerator, c.denominator) for c in coeffs]
    if basis == "monomial":
        return MonomialPoly(cs)
    a = fmpq(draw(st.integers(-4, 0)), 4)
    b = a + fmpq(draw(st.integers(1, 8)), 4)
    return (ChebyshevPoly if basis == "chebyshev" else BernsteinPoly)(cs, domain=(a, b))


@st.composite
def intervals(draw):
    a = draw(st.integers(-8, 7))
    b = draw(st.integers(a + 1, 8))
    return fmpq(a, 8), fmpq(b, 8)


_SETTINGS = settings(deadline=None, max_examples=50,
                     suppress_health_check=[HealthCheck.too_slow])


@_SETTINGS
@given(polynomials(), st.sampled_from(TARGETS), intervals())
def test_box_round_trip(poly, expr, iv):
    a, b = iv
    approx = Approximation(
        construction="supnorm", params={}, poly=poly,
        target={"kind": "expr", "expr": expr, "variables": ["x"]},
        domain={"kind": "box", "intervals": [[str(a), str(b)]]})
    cert = certify(approx, rtol="1e-4", timeout=30)
    report = verify_document(json.loads(cert.to_json()), deadline_seconds=60)
    assert report.status == "holds", report.checks


@_SETTINGS
@given(st.integers(1, 12), st.data())
def test_finite_round_trip(k, data):
    kind = data.draw(st.sampled_from(["threshold", "indicator", "values"]))
    if kind == "threshold":
        target = {"kind": kind, "r": data.draw(st.integers(0, k))}
    elif kind == "indicator":
        target = {"kind": kind, "l": data.draw(st.integers(0, k))}
    else:
        vals = data.draw(st.lists(small_q, min_size=k + 1, max_size=k + 1))
        target = {"kind": kind, "values": [f"{v.numerator}/{v.denominator}" for v in vals]}
    coeffs = data.draw(st.lists(small_q, min_size=1, max_size=k + 1))
    poly = MonomialPoly([fmpq(c.numerator, c.denominator) for c in coeffs])
    gamma = data.draw(st.one_of(st.none(), st.sampled_from(["1/10", "1", "100"])))
    approx = Approximation(
        construction="hand", params={}, poly=poly, target=target,
        domain={"kind": "integers", "lo": 0, "hi": k},
        claims={} if gamma is None else {"max_error": gamma})
    cert = certify(approx)
    report = verify_bytes(cert.to_json().encode())
    assert report.status == "holds", report.checks
    # a proven claim is in the statement and nowhere else; an unproven one only in info
    if gamma is not None:
        assert ("max_error" in cert.statement) == cert.complete


def test_float_coefficient_means_binary64():
    """MonomialPoly([0.1]) against the constant 1/10 on [0, 1]: 0.1 is
    3602879701896397/2^55 and 2^55/10 = 3602879701896396.8, so the error is exactly
    (0.2)/2^55 = 1/(5 * 2^55) (by hand), which both sides must see."""
    approx = Approximation(
        construction="supnorm", params={}, poly=MonomialPoly([0.1]),
        target={"kind": "expr", "expr": "1/10", "variables": ["x"]},
        domain={"kind": "box", "intervals": [["0", "1"]]})
    cert = certify(approx, rtol="1e-9")
    err = fmpq(1, 5 * 2**55)
    e = cert.error
    assert parse_exact(e["lower"]) <= err <= parse_exact(e["upper"])
    assert verify_document(cert.data).status == "holds"


def test_sup_attained_at_a_non_dyadic_point():
    """p = 1, f = |x - 1/3| on [0, 3/8]: sup |f - p| = 1 exactly, attained at x = 1/3 (by
    hand), which no dyadic piece boundary reaches; the verifier must prove <= 1 on the piece
    containing 1/3 from the exact range of |x - 1/3| (found by hypothesis)."""
    approx = Approximation(
        construction="supnorm", params={}, poly=MonomialPoly([1]),
        target={"kind": "expr", "expr": "abs(x - 1/3)", "variables": ["x"]},
        domain={"kind": "box", "intervals": [["0", "3/8"]]})
    cert = certify(approx, rtol="1e-4", timeout=30)
    assert cert.error["upper"] == "1"
    report = verify_document(json.loads(cert.to_json()), deadline_seconds=60)
    assert report.status == "holds", report.checks


# smooth targets (the Remez search needs them to find N + 2 alternation points quickly)
SMOOTH = ["exp(x)", "sin(3*x)", "x^2", "sqrt(x + 2)", "1/(2 + x)", "atan(5*x)", "log(3 + x)"]


@settings(deadline=None, max_examples=6, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(SMOOTH), st.integers(0, 4), intervals(), st.booleans())
def test_minimax_round_trip(expr, n, iv, with_gamma):
    """minimax / approx certificates (kind minimax) hold in the independent checker, and
    their bracket is ordered."""
    a, b = iv
    try:
        if with_gamma:
            cert = alternation.approx(expr, (a, b), "1e-2", search=remez, max_degree=12,
                                      rtol="1e-4")
        else:
            cert = alternation.minimax(expr, n, (a, b), search=remez, rtol="1e-4")
    except CertificationFailed:
        return  # nothing claimed (e.g. f - p vanishes at a point: x^2 with n >= 2)
    e = cert.statement["error"]
    assert 0 <= parse_exact(e["lower"]) <= parse_exact(e["upper"])
    report = verify_document(json.loads(cert.to_json()), deadline_seconds=60)
    assert report.status == "holds", report.checks
