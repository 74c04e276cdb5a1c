"""Taylor orders above 64 in ``supnorm-box`` evidence (verify/box.py ``order_cap``).

The certificate is built here by hand: ``cos(x)`` minus its exact degree-200 Taylor
polynomial on [-3, 3].  Its error is the alternating tail ``sum_{k>100} (-1)^k x^(2k)/(2k)!``,
whose terms decrease for |x| <= 3, so ``sup |f - p| <= 3^202/202!`` (Leibniz), attained
near x = +-3.  The claimed upper bound is that value times 1.001 (a single piece centred at 0
bounds the tail by the triangle inequality, about 1.0002 times the first term), the lower
bound comes from the witness x = 3 evaluated here with arb at 2000 bits.  At order 64 no
Taylor model of the piece gets below about 10^-59 (the degree-64 coefficient of
``cos - p`` over the piece is up to 2/64!), so only an order above 200 proves the claim.
"""

from __future__ import annotations

import copy
import math

from flint import arb, ctx, fmpq

from dpverify.verify import verify_document
from dpverify.verify.box import MAX_ORDER, order_cap


def _q(text: fmpq) -> str:
    return f"{text.p}/{text.q}" if text.q != 1 else str(text.p)


def _cos_taylor_certificate(order: int, prec: int) -> dict:
    coeffs = [fmpq(0)] * 201
    for k in range(101):
        coeffs[2 * k] = fmpq((-1) ** k, math.factorial(2 * k))
    l1 = sum(abs(c) for c in coeffs)
    old = ctx.prec
    ctx.prec = 2000
    try:
        p3 = sum(c * 3**j for j, c in enumerate(coeffs))
        e3 = abs(arb(3).cos() - arb(p3))
        m, ex = e3.lower().man_exp()  # an exact lower end of the ball
        low_end = fmpq(m, 2 ** (-ex)) if ex < 0 else fmpq(m * 2**ex)
        log2_l1 = round(float(arb(l1).log() / arb(2).log()), 6)
    finally:
        ctx.prec = old
    scale = fmpq(10) ** 300
    lower = fmpq(int((low_end * scale).floor()), 1) / scale  # <= |f(3) - p(3)|
    upper = fmpq(3**202, math.factorial(202)) * fmpq(1001, 1000)
    return {
        "schema_version": 1,
        "format": "dpverify-certificate",
        "kind": "supnorm-box",
        "statement": {
            "polynomial": {"basis": "monomial", "domain": None,
                           "coefficients": [_q(c) for c in coeffs], "degree": 200,
                           "coefficient_norm": {"l1": _q(l1), "l1_log2": f"{log2_l1:.6f}"}},
            "target": {"kind": "expr", "expr": "cos(x)", "variables": ["x"]},
            "domain": {"kind": "box", "intervals": [["-3", "3"]]},
            "error": {"lower": _q(lower), "upper": _q(upper)},
        },
        "evidence": {"witness": ["3"], "pieces": [[[["-3", "3"]], order, prec]]},
    }


def _check(rep, name):
    (ok, detail), = [(ok, d) for n, ok, d in rep.checks if n == name]
    return ok, detail


def test_order_above_64_proves_cos_minus_its_degree_200_taylor_polynomial():
    rep = verify_document(_cos_taylor_certificate(220, 1024))
    assert rep.status == "holds", rep.checks
    assert _check(rep, "witness: |f - p| >= lower")[0] is True


def test_order_64_alone_cannot_prove_it():
    # the same statement with the old fixed order: the piece budget runs out (undecided),
    # it is never reported as holding
    doc = _cos_taylor_certificate(64, 1024)
    rep = verify_document(doc, deadline_seconds=60)
    assert rep.status != "holds"
    assert _check(rep, "sup |f - p| <= upper on every piece")[0] is not True


def test_a_tighter_false_claim_fails_or_stays_undecided():
    doc = _cos_taylor_certificate(220, 1024)
    bad = copy.deepcopy(doc)
    # below the value at the witness: must not hold
    bad["statement"]["error"]["upper"] = _q(fmpq(3**202, math.factorial(202)) / 2)
    rep = verify_document(bad, deadline_seconds=60)
    assert rep.status != "holds"


def test_order_cap_is_a_resource_limit():
    assert order_cap(1, 128) == MAX_ORDER == 1024
    assert order_cap(1, 65536) == 64  # never below the old fixed cap
    assert 64 <= order_cap(1, 8192) < MAX_ORDER
    assert order_cap(2, 128) == 12 and order_cap(3, 128) == 8
    too_high = _cos_taylor_certificate(MAX_ORDER + 1, 1024)
    try:
        verify_document(too_high)
    except ValueError as exc:  # Malformed: over the format's order limit
        assert "1025" in str(exc) or "maximum" in str(exc) or "order" in str(exc)
    else:
        raise AssertionError("an order above MAX_ORDER must be malformed")
