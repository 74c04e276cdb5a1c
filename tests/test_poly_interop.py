"""Polynomial interop beyond numpy.polynomial: numbers of
other libraries read exactly, float64 vectorised evaluation (bit for bit the fast path),
mpmath and sympy views, short repr / exact str / HTML.

Independent references: dpverify.fast's kernels and numpy's polyval (for the float
path), exact fmpq evaluation (for closeness), mpmath comparisons at high precision of an
mpf with a rational (for exact reading), sympy's own rational arithmetic (for to_sympy)."""

from __future__ import annotations

import decimal
from fractions import Fraction

import mpmath
import numpy as np
import pytest
import sympy
from flint import arb, fmpq, fmpz
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.polynomial import Chebyshev, Polynomial
from numpy.polynomial.polynomial import polyval

import dpverify
from dpverify import fast
from dpverify.errors import InvalidParameterError, ParameterTypeError
from dpverify.exact import (
    BernsteinPoly,
    ChebyshevPoly,
    CosinePoly,
    MonomialPoly,
    TensorPoly,
    as_poly,
    from_numpy,
)

dyadic = st.integers(-2**20, 2**20).map(lambda n: fmpq(n, 2**10))
rat = st.fractions(-5, 5, max_denominator=1000).map(lambda f: fmpq(f.numerator, f.denominator))
coeff_lists = st.lists(rat, min_size=1, max_size=12)


def _exact_of_mpf(x: mpmath.mpf, q: fmpq) -> bool:
    """x == q decided by mpmath at a precision where q's own rounding cannot hide a gap."""
    with mpmath.workprec(4000):
        return x * int(q.q) == int(q.p)


# ------------------------------------------------------------------ exact reading


def test_numbers_of_other_libraries_are_read_exactly():
    with mpmath.workprec(200):
        third = mpmath.mpf(1) / 3  # a 200-bit binary number, not 1/3
    p = MonomialPoly([third, Fraction(1, 3), fmpz(2), arb(fmpq(1, 4)), decimal.Decimal("0.1"),
                      np.longdouble(0.5), np.float32(0.1), mpmath.mpf(-0.75)])
    c = p.coeffs
    assert _exact_of_mpf(third, c[0]) and c[0] != fmpq(1, 3)
    assert c[1] == fmpq(1, 3) and c[2] == 2 and c[3] == fmpq(1, 4)
    assert c[4] == fmpq(1, 10)  # Decimal is exact decimal
    assert c[5] == fmpq(1, 2)
    assert c[6] == fmpq(*np.float32(0.1).as_integer_ratio())
    assert c[7] == fmpq(-3, 4)
    # evaluation points too
    assert MonomialPoly([0, 1])(mpmath.mpf(0.1)) == fmpq(*(0.1).as_integer_ratio())
    assert ChebyshevPoly([1], domain=(Fraction(0), mpmath.mpf(2))).domain == (0, 2)


@pytest.mark.parametrize("bad,err", [
    (mpmath.inf, InvalidParameterError), (mpmath.nan, InvalidParameterError),
    (decimal.Decimal("NaN"), InvalidParameterError), (mpmath.mpc(1, 1), ParameterTypeError),
    (1 + 2j, ParameterTypeError), (arb(0, 1), ParameterTypeError),
])
def test_non_exact_or_non_finite_numbers_refused(bad, err):
    with pytest.raises(err, match=r"coeffs\[0\]"):
        MonomialPoly([bad])


def test_numpy_object_coefficients_are_not_squeezed_through_float64():
    p = from_numpy(Polynomial([Fraction(1, 3), mpmath.mpf(1)], domain=[0, Fraction(1, 3)],
                              window=[0, 1]))
    # sum c_n (3x)^n = 1/3 + 3x exactly
    assert p == MonomialPoly([fmpq(1, 3), 3])
    assert as_poly(np.array([0.5, 0.25])) == MonomialPoly([fmpq(1, 2), fmpq(1, 4)])
    assert dpverify.as_poly([mpmath.mpf(0.5)]) == MonomialPoly([fmpq(1, 2)])


def test_numpy_array_argument_points_to_evaluate_float():
    with pytest.raises(ParameterTypeError, match="evaluate_float"):
        MonomialPoly([1, 2])(np.array([0.5]))


# ------------------------------------------------------------------ float64 evaluation


def _float_coeffs(p):
    return [int(c.p) / int(c.q) for c in p.coeffs]


@settings(deadline=None, max_examples=60)
@given(cs=coeff_lists, a=dyadic, w=st.integers(1, 2**12).map(lambda n: fmpq(n, 2**8)),
       xs=st.lists(st.floats(-4, 4, allow_nan=False), min_size=1, max_size=20))
def test_evaluate_float_is_the_fast_path_bit_for_bit(cs, a, w, xs):
    dom = (a, a + w)
    fdom = (float(dom[0]), float(dom[1]))
    x = np.array(xs)
    ch = ChebyshevPoly(cs, domain=dom)
    assert np.array_equal(ch.evaluate_float(x), fast.clenshaw(_float_coeffs(ch), x, fdom))
    bp = BernsteinPoly(cs, domain=dom)
    assert np.array_equal(bp.evaluate_float(x), fast.de_casteljau(_float_coeffs(bp), x, fdom))
    mp = MonomialPoly(cs)
    assert np.array_equal(mp.evaluate_float(x), polyval(x, _float_coeffs(mp)))
    cp = CosinePoly(cs)
    assert np.array_equal(cp.evaluate_float(x), fast.clenshaw(_float_coeffs(cp), np.cos(x)))


@settings(deadline=None, max_examples=40)
@given(cs=coeff_lists, xs=st.lists(st.integers(-64, 64), min_size=1, max_size=10))
def test_evaluate_float_is_close_to_exact_inside_the_domain(cs, xs):
    p = ChebyshevPoly(cs, domain=(0, 2))
    pts = [fmpq(n + 64, 64) for n in xs]  # in [0, 2]
    got = p.evaluate_float(np.array([float(q) for q in pts]))
    norm = float(p.coefficient_norm())
    for g, q in zip(got, pts):
        assert abs(g - float(p(q))) <= 1e-13 * (1 + norm)


def test_evaluate_float_keeps_shape_and_refuses_non_finite():
    p = BernsteinPoly([1, 2, 4])
    assert p.evaluate_float([[0.0, 1.0], [0.5, 0.25]]).shape == (2, 2)
    assert p.evaluate_float(0.5).shape == ()
    assert p.evaluate_float([0.0, 1.0]).tolist() == [1.0, 4.0]  # end values are c_0, c_k
    with pytest.raises(InvalidParameterError, match="finite"):
        p.evaluate_float([np.nan])


# ------------------------------------------------------------------ mpmath, sympy, numpy


def test_to_mpmath_at_stated_precision():
    p = ChebyshevPoly(["1/3", "-2/7", "5/11"], domain=(0, "1/3"))
    q = p.to_mpmath(prec=200)
    assert q.prec == 200 and len(q.coeffs) == 3
    x = fmpq(1, 10)
    with mpmath.workprec(400):
        err = abs(q(mpmath.mpf(1) / 10) - mpmath.mpf(int(p(x).p)) / int(p(x).q))
    assert err < mpmath.mpf(2) ** -190
    assert _exact_of_mpf(p.to_mpmath(prec=53).coeffs[0], fmpq(*(1 / 3).as_integer_ratio()))
    with pytest.raises(ParameterTypeError, match="prec"):
        p.to_mpmath(prec=1.5)


@pytest.mark.parametrize("make", [
    lambda cs: MonomialPoly(cs),
    lambda cs: ChebyshevPoly(cs, domain=("-1/2", 3)),
    lambda cs: BernsteinPoly(cs, domain=(1, "5/2")),
])
def test_to_sympy_is_exact(make):
    p = make(["1/3", -2, "7/5", "1/9"])
    e = p.to_sympy()
    x = sympy.Symbol("x")
    for q in (fmpq(-1, 3), fmpq(2, 7), fmpq(5, 2)):
        v = e.subs(x, sympy.Rational(int(q.p), int(q.q)))
        assert v == sympy.Rational(int(p(q).p), int(p(q).q))
    c = CosinePoly([1, "1/2"]).to_sympy()
    assert c == 1 + sympy.Rational(1, 2) * sympy.cos(sympy.Symbol("theta"))


def test_to_numpy_method_and_bernstein():
    b = BernsteinPoly([1, "1/2", 4], domain=(0, 2))
    n = b.to_numpy()
    assert isinstance(n, Chebyshev)
    assert from_numpy(n) == b.to_chebyshev()  # dyadic coefficients: the round trip is exact
    assert isinstance(MonomialPoly([1]).to_numpy(), Polynomial)
    with pytest.raises(ParameterTypeError, match="cosine"):
        CosinePoly([1, 2]).to_numpy()


# ------------------------------------------------------------------ repr / str / html


def test_short_repr_and_exact_str():
    small = ChebyshevPoly([1, "1/3"], domain=(0, 1))
    assert repr(small) == str(small) == "ChebyshevPoly(['1', '1/3'], domain=('0', '1'))"
    big = ChebyshevPoly([fmpq(1, 3**k + 1) for k in range(80)], domain=(0, "1/7"))
    r = repr(big)
    assert len(r) < 200 and r.startswith("ChebyshevPoly(degree=79, domain=(0, 1/7)")
    assert "1/2" in r and "..." in r
    names = {"ChebyshevPoly": ChebyshevPoly}
    assert eval(str(big), names) == big  # noqa: S307 - our own exact text, a round trip
    b = BernsteinPoly([fmpq(1, 7**k) for k in range(50)])
    assert "k=49" in repr(b) and len(repr(b)) < 200
    html = big._repr_html_()
    assert "ChebyshevPoly" in html and "degree 79" in html and "&hellip;" in html


def test_tensor_repr():
    t = TensorPoly([[fmpq(1, 3 + i + j) for j in range(12)] for i in range(12)],
                   basis="chebyshev")
    assert len(repr(t)) < 200 and "shape=(12, 12)" in repr(t)
    assert eval(str(t), {"TensorPoly": TensorPoly}) == t  # noqa: S307 - exact round trip
    small = TensorPoly([[1, 2], [3, 4]])
    assert repr(small) == str(small)


# ------------------------------------------------------------------ top-level entry points


def test_top_level_supnorm_takes_numpy_chebyshev_with_domain():
    # Chebyshev([0, 1], domain=[0, 1]) is u = 2x - 1; f = 2x - 1 - x^2 + x^2 ... = u exactly
    r = dpverify.supnorm("2*x - 1", Chebyshev([0, 1], domain=[0, 1]), (0, 1))
    assert r.lower == 0 and r.upper == 0
    # dropping the domain would compare with u = x: sup |2x - 1 - x| on [0, 1] = 1
    r = dpverify.supnorm("2*x - 1", Chebyshev([0, 1]), (0, 1))
    assert r.lower <= 1 <= r.upper


def test_top_level_chebyshev_coefficients_of_a_polynomial():
    # Chebyshev([1, 2, 3], domain=[0, 1]) as a function of x is, by hand,
    # 1 + 2(2x - 1) + 3(2(2x - 1)^2 - 1) = 2 - 20x + 24x^2 = 14 T_0 - 20 T_1 + 12 T_2
    s = dpverify.chebyshev_coefficients(Chebyshev([1, 2, 3], domain=[0, 1]), 4)
    assert [c.mid() for c in s.coeffs] == [14, -20, 12, 0, 0]
    assert s.info()["enclosure"] == "exact" and s.info()["rigorous_radius"]
    third = dpverify.chebyshev_coefficients(MonomialPoly(["1/3"]), 0)[0]
    assert third.contains(fmpq(1, 3)) and third.rad() < 1e-15
    with pytest.raises(InvalidParameterError, match="dim"):
        dpverify.chebyshev_coefficients(MonomialPoly([1]), 2, dim=2)
