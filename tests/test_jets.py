"""Multivariate Taylor jets (dpverify.expr.jets).

References are closed forms: the Taylor coefficients of exp(a x + b y) at (m1, m2) are
exp(a m1 + b m2) a^i b^j / (i! j!); of 1/(1 - x - y) at 0 they are (i+j)!/(i! j!).
"""

from math import comb, factorial

import mpmath
import pytest
from flint import arb, fmpq

from dpverify.certify import supnorm
from dpverify.errors import DomainError
from dpverify.exact import TensorPoly
from dpverify.expr import NotAnalytic, parse
from dpverify.expr.jets import Jet, jet_eval, multi_indices


def _contains(ball: arb, value) -> bool:
    mpmath.mp.prec = 200
    lo, hi = ball.lower(), ball.upper()
    v = mpmath.mpf(value) if not isinstance(value, mpmath.mpf) else value
    return (
        mpmath.mpf(lo.str(40, radius=False)) - mpmath.mpf(10) ** -30
        <= v
        <= mpmath.mpf(hi.str(40, radius=False)) + mpmath.mpf(10) ** -30
    )


def test_exp_linear_coefficients():
    e = parse("exp(2*x - 3*y)", variables=("x", "y"))
    m = (fmpq(1, 3), fmpq(-1, 5))
    N = 7
    J = jet_eval(e, [Jet.variable(2, N, i, arb(m[i])) for i in range(2)])
    mpmath.mp.prec = 200
    base = mpmath.exp(2 * mpmath.mpf(1) / 3 + 3 * mpmath.mpf(1) / 5)
    for k, (i, j) in enumerate(multi_indices(2, N)):
        ref = base * mpmath.mpf(2) ** i * mpmath.mpf(-3) ** j / (factorial(i) * factorial(j))
        assert _contains(J.c[k], ref), (i, j)


def test_geometric_series_division():
    e = parse("1/(1 - x - y)", variables=("x", "y"))
    N = 6
    J = jet_eval(e, [Jet.variable(2, N, i, arb(0)) for i in range(2)])
    for k, (i, j) in enumerate(multi_indices(2, N)):
        assert _contains(J.c[k], comb(i + j, i))


def test_box_enclosure_contains_every_point():
    # coefficients over a box enclose the coefficients at points of the box
    e = parse("sin(x*y) + atan(x - y)", variables=("x", "y"))
    N = 4
    box = [arb("0.5", "0.25"), arb("-0.2", "0.1")]
    JX = jet_eval(e, [Jet.variable(2, N, i, box[i]) for i in range(2)])
    for pt in [(fmpq(1, 4), fmpq(-1, 10)), (fmpq(3, 4), fmpq(-3, 10)), (fmpq(1, 2), fmpq(-1, 5))]:
        Jp = jet_eval(e, [Jet.variable(2, N, i, arb(pt[i])) for i in range(2)])
        for a, b in zip(JX.c, Jp.c):
            assert a.overlaps(b) and a.rad() >= b.rad()


def test_non_analytic_raises():
    e = parse("abs(x) + y", variables=("x", "y"))
    with pytest.raises(NotAnalytic):
        jet_eval(e, [Jet.variable(2, 3, 0, arb("0", "0.1")), Jet.variable(2, 3, 1, arb(1))])
    with pytest.raises(DomainError):  # NotAnalytic is a DomainError
        jet_eval(
            parse("sqrt(x*y)", variables=("x", "y")),
            [Jet.variable(2, 3, i, arb(0)) for i in range(2)],
        )


def test_supnorm_3d_product():
    # e = exp(x) exp(y) exp(z) - 1: sup on [0, 1/2]^3 is e^{3/2} - 1 at the far corner
    p = TensorPoly([[[1]]], "monomial", (None, None, None))
    r = supnorm(parse("exp(x+y+z)", variables=("x", "y", "z")), p, [(0, "1/2")] * 3, rtol="1e-6")
    mpmath.mp.prec = 200
    true = mpmath.exp(mpmath.mpf(3) / 2) - 1
    lo = mpmath.mpf(int(r.lower.p)) / int(r.lower.q)
    up = mpmath.mpf(int(r.upper.p)) / int(r.upper.q)
    assert lo <= true <= up and r.converged


def test_high_order_jets_are_not_truncated():
    # coefficient (11, 0) of exp(x) + y at 0 is 1/11! (python-flint's default series cap is 10)
    e = parse("exp(x) + y", variables=("x", "y"))
    J = jet_eval(e, [Jet.variable(2, 12, i, arb(0)) for i in range(2)])
    k = multi_indices(2, 12).index((11, 0))
    assert _contains(J.c[k], mpmath.mpf(1) / factorial(11))
    assert not J.c[k].is_zero()
