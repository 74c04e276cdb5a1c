"""Taylor jets of ``erfc`` (dpverify.expr.jets), and the Kronecker encoding of the jets.

References are independent of Arb: ``erfc^(n)(u) = (-1)^n 2/sqrt(pi) H_{n-1}(u) e^{-u^2}``
(n >= 1; from ``erfc' = -2/sqrt(pi) e^{-u^2}`` and ``(d/du)^k e^{-u^2} = (-1)^k H_k(u)
e^{-u^2}`` with the physicists' Hermite polynomials, ``mpmath.hermite``), cross-checked
against mpmath's numerical differentiation of ``mpmath.erfc``.
"""

from math import comb, factorial

import mpmath
import pytest
from flint import arb, ctx, fmpq

from dpverify.certify import supnorm
from dpverify.exact import TensorPoly
from dpverify.expr import parse
from dpverify.expr.jets import Jet, jet_eval, kronecker_exponents, multi_indices


def _contains(ball: arb, value: mpmath.mpf) -> bool:
    lo = mpmath.mpf(ball.lower().str(60, radius=False))
    hi = mpmath.mpf(ball.upper().str(60, radius=False))
    slack = mpmath.mpf(10) ** -45  # decimal printing of the ends (60 digits)
    return lo - slack <= value <= hi + slack


def _erfc_derivative(n: int, u: mpmath.mpf) -> mpmath.mpf:
    if n == 0:
        return mpmath.erfc(u)
    return (-1) ** n * 2 / mpmath.sqrt(mpmath.pi) * mpmath.hermite(n - 1, u) * mpmath.exp(-u * u)


@pytest.mark.parametrize("u", [fmpq(0), fmpq(1, 3), fmpq(-7, 4), fmpq(5, 2)])
def test_erfc_derivative_formula_matches_mpmath_diff(u):
    # the closed form used as the reference agrees with numerical differentiation
    mpmath.mp.prec = 200
    x = mpmath.mpf(int(u.p)) / int(u.q)
    for n in range(6):
        assert mpmath.almosteq(_erfc_derivative(n, x), mpmath.diff(mpmath.erfc, x, n),
                               rel_eps=mpmath.mpf(10) ** -30, abs_eps=mpmath.mpf(10) ** -30)


@pytest.mark.parametrize("m", [(fmpq(0), fmpq(0)), (fmpq(1, 3), fmpq(-1, 5)),
                               (fmpq(-3, 2), fmpq(1, 7)), (fmpq(2), fmpq(1, 2))])
def test_erfc_linear_jet_coefficients(m):
    # erfc(a x + b y) at m: c_ij = erfc^(i+j)(u) a^i b^j / (i! j!), u = a m1 + b m2
    a, b = 2, -3
    e = parse("erfc(2*x - 3*y)", variables=("x", "y"))
    N = 9
    with ctx.workprec(200):
        J = jet_eval(e, [Jet.variable(2, N, i, arb(m[i])) for i in range(2)])
    mpmath.mp.prec = 300
    u = a * mpmath.mpf(int(m[0].p)) / int(m[0].q) + b * mpmath.mpf(int(m[1].p)) / int(m[1].q)
    for k, (i, j) in enumerate(multi_indices(2, N)):
        ref = _erfc_derivative(i + j, u) * mpmath.mpf(a) ** i * mpmath.mpf(b) ** j
        ref /= factorial(i) * factorial(j)
        ball = J.c[k]
        assert _contains(ball, ref), (i, j, ball, ref)
        assert ball.rad() < 1e-40 * max(1, abs(ref))  # tight: a wrong value would fail


def test_erfc_composite_jet_against_mpmath_partials():
    # erfc(x^2 + y) at (1/3, -1/4): mixed partials by mpmath.diff
    e = parse("erfc(x^2 + y)", variables=("x", "y"))
    m = (fmpq(1, 3), fmpq(-1, 4))
    N = 5
    with ctx.workprec(200):
        J = jet_eval(e, [Jet.variable(2, N, i, arb(m[i])) for i in range(2)])
    mpmath.mp.prec = 300

    def g(x, y):
        return mpmath.erfc(x * x + y)

    pt = (mpmath.mpf(1) / 3, mpmath.mpf(-1) / 4)
    for k, (i, j) in enumerate(multi_indices(2, N)):
        ref = mpmath.diff(g, pt, (i, j)) / (factorial(i) * factorial(j))
        mid = mpmath.mpf(J.c[k].mid().str(60, radius=False))
        assert abs(mid - ref) < mpmath.mpf(10) ** -35, (i, j)  # diff is numerical
        assert J.c[k].rad() < 1e-50


def test_erfc_box_jet_encloses_point_jets():
    e = parse("erfc(x*y - x)", variables=("x", "y"))
    N = 6
    box = [arb("0.5", "0.25"), arb("-0.2", "0.1")]
    JX = jet_eval(e, [Jet.variable(2, N, i, box[i]) for i in range(2)])
    for pt in [(fmpq(1, 4), fmpq(-1, 10)), (fmpq(3, 4), fmpq(-3, 10)), (fmpq(1, 2), fmpq(-1, 5))]:
        Jp = jet_eval(e, [Jet.variable(2, N, i, arb(pt[i])) for i in range(2)])
        for a, b in zip(JX.c, Jp.c):
            assert a.contains(b)


def test_erfc_three_variables():
    # erfc(x + y + z) at 0: c_abc = erfc^(n)(0) n!/(a! b! c! n!) with n = a + b + c
    e = parse("erfc(x + y + z)", variables=("x", "y", "z"))
    N = 6
    J = jet_eval(e, [Jet.variable(3, N, i, arb(0)) for i in range(3)])
    mpmath.mp.prec = 200
    for k, al in enumerate(multi_indices(3, N)):
        n = sum(al)
        ref = _erfc_derivative(n, mpmath.mpf(0)) / (factorial(al[0]) * factorial(al[1])
                                                   * factorial(al[2]))
        assert _contains(J.c[k], ref), al


def test_supnorm_uses_erfc_taylor_models_in_two_variables():
    # before the erfc rule the box certifier fell back to order-0 interval bounds here
    p = TensorPoly.from_flat([fmpq(1)], [1, 1], basis="monomial")
    res = supnorm("erfc(x + y)", p, [(0, fmpq(1, 2)), (0, fmpq(1, 2))], rtol="1e-4")
    assert res.converged
    assert max(res.stats["orders"]) > 0
    # sup |erfc(x+y) - 1| on the box is 1 - erfc(1) = erf(1) (at the corner (1/2, 1/2))
    mpmath.mp.prec = 100
    ref = mpmath.erf(1)
    assert res.lower <= fmpq(int(ref * 10**25) + 1, 10**25)
    assert fmpq(int(ref * 10**25), 10**25) <= res.upper


@pytest.mark.parametrize("d,N", [(1, 5), (2, 4), (2, 10), (3, 3), (3, 6)])
def test_kronecker_exponents_distinct_and_below_length(d, N):
    # the encoding is injective on |alpha| <= N and fits in (N+1)^d slots
    ex = kronecker_exponents(d, N)
    assert len(set(ex)) == len(ex) == len(multi_indices(d, N))
    assert max(ex) < (N + 1) ** d


def test_products_truncate_exactly():
    # (1 + x + y)^6 truncated at order 4: coefficients C(6, i+j) (i+j)!/(i! j!), |a| <= 4
    e = parse("(1 + x + y)^6", variables=("x", "y"))
    N = 4
    J = jet_eval(e, [Jet.variable(2, N, i, arb(0)) for i in range(2)])
    for k, (i, j) in enumerate(multi_indices(2, N)):
        assert J.c[k] == arb(comb(6, i + j) * comb(i + j, i))
