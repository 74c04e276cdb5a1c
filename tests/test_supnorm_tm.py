"""One-variable Taylor models in the interval certifier (dpverify.certify.taylor_model).

Reference values are independent of the certifier: Chebyshev polynomials' sup on [-1, 1]
is 1 (by hand: |T_n(cos t)| = |cos nt|), the alternating-series bracket of cos minus its
Taylor polynomial, and mpmath at high precision.
"""

from math import factorial

import mpmath
import pytest
from flint import fmpq
from hypothesis import given, settings
from hypothesis import strategies as st

from dpverify.certify import supnorm
from dpverify.exact import ChebyshevPoly, MonomialPoly
from dpverify.numbers import arb_to_fmpq_bounds, to_fmpq


def _mp(q):
    return mpmath.mpf(int(q.p)) / int(q.q)


def _float64(q: fmpq) -> fmpq:
    """The nearest binary64 value of q, exactly (mimics a float-rounded approximation)."""
    from fractions import Fraction

    fr = Fraction(float(Fraction(int(q.p), int(q.q))))
    return fmpq(fr.numerator, fr.denominator)


def test_precision_follows_accuracy_at_2_pow_50():
    """Taylor polynomial of exp (degree 8, float64 coefficients) at rtol 2^-50: the error is
    about 3e-6 against |f| <= e, so about 50 + 20 + guard bits suffice.  Before the fix
    pieces escalated to 16384 bits; the statistic must stay moderate."""
    p = MonomialPoly([_float64(fmpq(1, factorial(k))) for k in range(9)])
    r = supnorm("exp(x)", p, [(-1, 1)], rtol=fmpq(1, 2**50))
    assert r.converged and r.status == "rtol"
    assert r.stats["max_prec"] <= 256
    assert r.upper <= r.lower * (1 + fmpq(1, 2**50))
    # the piece-wise evidence for the checker stays moderate too
    assert max(pc.prec for pc in r.pieces) <= 512
    # e - sum 1/k! differs from the float-rounded sum by < 9 * 2^-53; check containment
    mpmath.mp.prec = 300
    val = abs(mpmath.e - sum(_mp(c) for c in p.coeffs))
    assert _mp(r.lower) <= val <= _mp(r.upper)  # the sup is at x = 1 (all terms > 0)


@pytest.mark.parametrize("rtol", ["1e-6", fmpq(1, 2**50)])
def test_cos_taylor_200_converges(rtol):
    """cos(x) minus its exact degree-200 Taylor polynomial on [-3, 3]: the remainder is
    the alternating series sum_{k>100} (-1)^k x^(2k)/(2k)! with decreasing terms at
    |x| <= 3, so by hand sup in [t101(3) - t102(3), t101(3)] (t_k = 3^(2k)/(2k)!), and
    |R(3)| (mpmath, 4000 bits) is a lower bound of the sup.  Needs Taylor orders > 200
    (the old fixed cap of 40 never converged)."""
    c = [fmpq(0)] * 201
    for k in range(101):
        c[2 * k] = fmpq((-1) ** k, factorial(2 * k))
    r = supnorm("cos(x)", MonomialPoly(c), [(-3, 3)], rtol=rtol, timeout=60)
    assert r.converged
    t101 = fmpq(3**202, factorial(202))
    t102 = fmpq(3**204, factorial(204))
    assert r.lower <= t101 and r.upper >= t101 - t102
    mpmath.mp.prec = 4000
    R3 = abs(mpmath.cos(3) - sum(_mp(ci) * mpmath.mpf(3) ** i for i, ci in enumerate(c)))
    assert R3 <= _mp(r.upper)
    assert r.stats["order"] > 200


@settings(deadline=None, max_examples=60)
@given(
    base=st.lists(st.fractions(min_value=-3, max_value=3, max_denominator=20), min_size=1,
                  max_size=6),
    n=st.integers(min_value=0, max_value=12),
    c=st.fractions(min_value=-5, max_value=5, max_denominator=1000).filter(lambda v: v != 0),
    ab=st.tuples(st.integers(-4, 3), st.integers(1, 4)),
    rtol=st.sampled_from(["1e-3", "1e-9", fmpq(1, 2**50)]),
)
def test_containment_chebyshev_error_closed_form(base, n, c, ab, rtol):
    """f = a polynomial g written as an expression, p = g - c T_n(u(x)) with u the affine
    map of [a, b] onto [-1, 1]: f - p = c T_n(u(x)), whose sup on [a, b] is exactly |c|
    (attained at the Chebyshev extrema, where Taylor models are exact: the hardest case
    for an upper bound that must not undershoot)."""
    a, w = ab
    b = a + w
    g = MonomialPoly([fmpq(x.numerator, x.denominator) for x in base])
    cq = fmpq(c.numerator, c.denominator)
    tn = ChebyshevPoly([0] * n + [cq], domain=(a, b)).to_monomial()
    gm = list(g.coeffs) + [fmpq(0)] * (len(tn.coeffs) - len(g.coeffs))
    tm = list(tn.coeffs) + [fmpq(0)] * (len(gm) - len(tn.coeffs))
    p = MonomialPoly([x - y for x, y in zip(gm, tm)])
    expr = " + ".join(f"({x.p}/{x.q})*x^{i}" for i, x in enumerate(g.coeffs))
    r = supnorm(expr, p, [(a, b)], rtol=rtol)
    assert r.lower <= abs(cq) <= r.upper
    assert r.converged
    assert r.upper <= r.lower * (1 + to_fmpq(rtol))


def test_exact_zero_and_repr():
    r = supnorm("x^2 - 1", ChebyshevPoly(["-1/2", 0, "1/2"]), [(-1, 1)])
    assert r.lower == 0 and r.upper == 0 and r.status == "zero"
    s = repr(r)
    assert len(s) < 200 and "degree=2" in s and "converged=True" in s
    h = r._repr_html_()
    assert len(h) < 1000 and "<table>" in h and "[-1, 1]" in h


def test_large_repr_is_short():
    p = MonomialPoly([_float64(fmpq(1, factorial(k))) for k in range(30)])
    r = supnorm("exp(x)", p, [(-1, 1)], rtol="1e-9")
    assert len(repr(r)) < 200 and len(r._repr_html_()) < 1000


def test_astronomically_small_coefficients_stay_small_in_memory():
    # exp(-10^12 x^2) on [0, 1]: sup |f - 0| = 1 at x = 0 (by hand).  Away from 0 its Taylor
    # coefficients are ~2^-10^12; read as exact rationals they once took gigabytes.  They
    # are now folded into the remainder (rigorously), and the answer comes at once.
    res = supnorm("exp(-1e12*x^2)", MonomialPoly([0]), (0, 1), rtol="1e-6", timeout=30)
    assert res.lower <= 1 <= res.upper
    assert res.upper - 1 <= fmpq(1, 10**6)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.fractions(min_value=-2, max_value=2, max_denominator=64), min_size=1,
                max_size=9),
       st.lists(st.tuples(st.fractions(min_value=-2, max_value=2, max_denominator=16),
                          st.fractions(min_value="1/16", max_value=2, max_denominator=16)),
                max_size=3),
       st.integers(64, 200))
def test_critical_balls_hold_every_real_root(real_roots, quadratics, prec):
    """Every real root of D lies in one of the returned real balls, whichever path decides
    (Arb's isolation, or FLINT's exact one for repeated roots: the lists may repeat a
    root).  The roots are known by construction: D = prod (x - a) prod ((x - b)^2 + c)."""
    from flint import fmpq_poly

    from dpverify.certify.taylor_model import _critical_balls

    D = fmpq_poly([1])
    for a in real_roots:
        D *= fmpq_poly([-fmpq(a.numerator, a.denominator), 1])
    for b, c in quadratics:  # no real root: (x - b)^2 + c, c > 0
        bq, cq = fmpq(b.numerator, b.denominator), fmpq(c.numerator, c.denominator)
        D *= fmpq_poly([bq * bq + cq, -2 * bq, 1])
    balls = [arb_to_fmpq_bounds(b) for b in _critical_balls(D, prec)]  # exact ends
    for a in real_roots:
        q = fmpq(a.numerator, a.denominator)
        assert any(lo <= q <= hi for lo, hi in balls), (a, balls)


def test_critical_balls_cluster_double_root_and_constant():
    """A cluster of 11 roots of radius 2^-7.3 around 0 next to 1/3; a double root (Arb's
    isolation refuses squareful input: the exact path decides); no roots."""
    from flint import fmpq_poly

    from dpverify.certify.taylor_model import _critical_balls

    half, third = fmpq(1, 2), fmpq(-1, 3)
    double = fmpq_poly([-half, 1]) ** 2 * fmpq_poly([-third, 1])
    ends = list(map(arb_to_fmpq_bounds, _critical_balls(double, 64)))
    assert any(lo <= half <= hi for lo, hi in ends)
    assert any(lo <= third <= hi for lo, hi in ends)

    D = fmpq_poly([fmpq(1, 2**80), 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1]) * fmpq_poly([-fmpq(1, 3), 1])
    balls = _critical_balls(D, 64)
    assert any(lo <= fmpq(1, 3) <= hi for lo, hi in map(arb_to_fmpq_bounds, balls))
    # the real root of x^11 + 2^-80, -2^(-80/11), is held too
    from flint import arb

    r = -(arb(2) ** (fmpq(-80, 11)))
    assert any(b.overlaps(r) for b in balls)
    assert _critical_balls(fmpq_poly([5]), 64) == []
