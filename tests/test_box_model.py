"""Piece bounds of the box sup norm in two and three variables: the certifier's
(dpverify.certify.piece_bounds with dpverify.expr.jets) and the independent checker's
(dpverify.verify.box_model), and the tanh / power enclosures both use on wide balls.

Expected values come from elsewhere: ``|f - p|`` at exact points (f by ``Expr.eval_mpmath``
at 50 digits, p by exact rational evaluation), Taylor coefficients of tanh from mpmath,
ranges of ``x^n`` over an interval by hand.
"""

from __future__ import annotations

import json
import random

import mpmath
import pytest
from flint import arb, fmpq

from dpverify.certify import certify
from dpverify.certify.piece_bounds import PieceProblem, taylor_model_piece_nd
from dpverify.constructions.jackson import jackson_approx
from dpverify.expr import parse
from dpverify.expr.jets import Jet, jet_eval, tanh_taylor
from dpverify.verify import verify_bytes
from dpverify.verify.box_model import BoxModel
from dpverify.verify.expr import parse as vparse
from dpverify.verify.poly import read_poly

FUNCS = {2: ["tanh(2*x + y)", "1/(1 + x^2 + y^2)", "exp(-(x - 0.3)^2 - y^2)"],
         3: ["tanh(x + 2*y + z)", "1/(1 + x^2 + y^2 + z^2)", "erf(x + y - z)"]}


def _mp_value(f, point: tuple[fmpq, ...]) -> mpmath.mpf:
    return f.eval_mpmath(*[mpmath.mpf(int(c.p)) / int(c.q) for c in point])


def _pieces(d: int) -> list[tuple[tuple[fmpq, fmpq], ...]]:
    rng = random.Random(d)
    out = []
    for w in (fmpq(1, 2), fmpq(1, 4), fmpq(1, 8)):
        for _ in range(4 - d):
            lo = [fmpq(rng.randrange(int(2 / w)), 1) * w - 1 for _ in range(d)]
            out.append(tuple((a, a + w) for a in lo))
    return out


@pytest.mark.parametrize("d", [2, 3])
def test_piece_bounds_enclose_exact_values(d):
    mpmath.mp.dps = 50
    t = 8 if d == 2 else 4
    rng = random.Random(7 * d)
    for text in FUNCS[d]:
        approx = jackson_approx(text, t, 2, dim=d)
        f = parse(text, variables=("x", "y", "z")[:d])
        prob = PieceProblem(f, approx.poly, d)
        poly_json = approx.poly.to_json()
        poly_json["degree"] = [s - 1 for s in approx.poly.shape]
        poly_json["coefficient_norm"] = {"l1": "1", "l1_log2": "0"}
        model = BoxModel(vparse(text, list("xyz"[:d]), "f"), read_poly(poly_json, "p"))
        mono = approx.poly.to_monomial()
        for box in _pieces(d):
            up, _, order, centre = taylor_model_piece_nd(prob, box, 64)
            assert order > 0 and up is not None
            checker = model.bound([list(iv) for iv in box], prob.order_nd, 64)
            assert checker.bound is not None and checker.bound.is_finite()
            for _ in range(6):
                x = tuple(a + (b - a) * fmpq(rng.randrange(1025), 1024) for a, b in box)
                e = abs(_mp_value(f, x) - mpmath.mpf(int(mono(*x).p)) / int(mono(*x).q))
                assert e <= mpmath.mpf(int(up.p)) / int(up.q)
                assert not arb(str(mpmath.nstr(e, 40))) > checker.bound


def test_tanh_taylor_contains_the_coefficients():
    mpmath.mp.dps = 30
    for lo, hi in ((-1, 1), (fmpq(1, 3), fmpq(1, 2)), (2, 4)):
        ys = tanh_taylor(arb(lo).union(arb(hi)), 8)
        for i in range(21):
            x = mpmath.mpf(int(fmpq(lo).p)) / int(fmpq(lo).q) + (
                mpmath.mpf(int(fmpq(hi - lo).p)) / int(fmpq(hi - lo).q)) * i / 20
            for k, c in enumerate(mpmath.taylor(mpmath.tanh, x, 8)):
                assert arb(mpmath.nstr(c, 25)).overlaps(ys[k])
    # tight on [-1, 1]: the order-8 coefficient ranges over [-0.0304, 0.0304]
    y8 = tanh_taylor(arb(-1).union(arb(1)), 8)[8]
    assert y8.abs_upper() < 0.1


def test_even_power_jets_keep_the_range_of_the_square():
    # 1 + x^2 + y^2 + z^2 >= 1 on [-1, 0]^3: the jets over the box exist (order > 0)
    f = parse("1/(1 + x^2 + y^2 + z^2)", variables=("x", "y", "z"))
    X = arb(-1).union(arb(0))
    J = jet_eval(f, [Jet.variable(3, 4, i, X) for i in range(3)])
    c0 = J.c[0]
    assert c0.is_finite() and c0.lower() >= fmpq(1, 4) - fmpq(1, 10**6)
    assert c0.upper() <= 1 + fmpq(1, 10**6)


@pytest.mark.parametrize("d,t,text", [(2, 12, "tanh(2*x + y)"),
                                      (3, 4, "exp(-x^2 - y^2 - z^2)")])
def test_certificates_hold_and_a_smaller_upper_does_not(d, t, text):
    cert = certify(jackson_approx(text, t, 2, dim=d), rtol="1e-3")
    data = json.loads(json.dumps(cert.data))
    assert verify_bytes(json.dumps(data).encode()).ok
    err = data["statement"]["error"]
    # claim an upper bound 2% below the certified lower bound (and move lower below it)
    lo = float(err["lower"])
    data["statement"]["error"]["upper"] = repr(lo * 0.98)
    data["statement"]["error"]["lower"] = repr(lo * 0.97)
    assert not verify_bytes(json.dumps(data).encode()).ok
