"""Tests for dpverify.constructions.chebyshev_series.

Independent references: exp(x) = I_0(1) + 2 sum I_n(1) T_n(x) (Bessel, mpmath);
separable products; a trapezoid-rule (numpy) computation for a non-separable f; closed
forms for |x| and sqrt(1-x^2) (arb pi); 50-digit mpmath quadrature for nearby poles.
"""

from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest
from flint import arb

from dpverify.constructions.chebyshev_series import chebyshev_coefficients
from dpverify.errors import InvalidParameterError


def _contains(ball: arb, x: float | mpmath.mpf, slack: float = 0.0) -> bool:
    """|mid - x| <= rad + slack, in mpmath at 40 digits (slack covers the reference's
    own rounding)."""
    with mpmath.workdps(40):
        mid = mpmath.mpf(ball.mid().str(45, radius=False))
        rad = mpmath.mpf(ball.rad().str(10, radius=False))
        return abs(mid - x) <= rad * (1 + mpmath.mpf(10) ** -8) + slack


def test_exp_bessel():
    mpmath.mp.dps = 40
    s = chebyshev_coefficients("exp(x)", 20)
    assert s.info()["rigorous_radius"]
    for n in range(21):
        ref = mpmath.besseli(n, 1) * (1 if n == 0 else 2)
        assert _contains(s[n], ref, 1e-29)  # slack: decimal conversion of the reference
        assert s[n].rad() < 1e-25


def test_separable_d2():
    mpmath.mp.dps = 30
    s = chebyshev_coefficients("exp(x + y/2)", 8, dim=2)
    for i in range(9):
        for j in range(9):
            ref = (mpmath.besseli(i, 1) * (1 if i == 0 else 2)
                   * mpmath.besseli(j, mpmath.mpf(1) / 2) * (1 if j == 0 else 2))
            assert _contains(s[(i, j)], ref, 1e-25)


def test_nonseparable_d2_vs_trapezoid():
    s = chebyshev_coefficients("exp(x*y)", 6, dim=2)
    G = 128
    th = (np.arange(G) + 0.5) * np.pi / G
    X, Y = np.meshgrid(np.cos(th), np.cos(th), indexing="ij")
    g = np.exp(X * Y)
    for i in range(7):
        for j in range(7):
            w = (1 if i == 0 else 2) * (1 if j == 0 else 2) / G**2
            ref = w * np.sum(g * np.outer(np.cos(i * th), np.cos(j * th)))
            c = s[(i, j)]
            assert abs(float(c.mid()) - ref) < 1e-12 + float(c.rad())
            assert float(c.rad()) < 1e-4  # finite, proven radius


def test_d3_runs_and_is_rigorous():
    s = chebyshev_coefficients("exp((x+y+z)/4)", 3, dim=3)
    # c_000 of exp((x+y+z)/4) = I_0(1/4)^3
    ref = mpmath.besseli(0, mpmath.mpf(1) / 4) ** 3
    assert _contains(s[(0, 0, 0)], ref, 1e-25)
    assert s.info()["rigorous_radius"]


def test_nonanalytic_dct_only_gives_infinite_radius():
    # without quadrature (method="dct") no aliasing bound exists for |x|^3
    s = chebyshev_coefficients("abs(x)^3", 6, method="dct")
    assert not s.info()["rigorous_radius"] and s.info()["enclosure"] == "none"
    assert not s[0].rad().is_finite()
    # midpoints still close: c_0 of |x|^3 = (1/pi) int_0^pi |cos|^3 = 4/(3 pi)
    assert abs(float(s[0].mid()) - 4 / (3 * math.pi)) < 1e-6


def test_nonanalytic_d2_keeps_infinite_radius():
    # d = 2 has no quadrature path: a kink leaves the balls infinite (documented)
    s = chebyshev_coefficients("abs(x) + y", 2, dim=2)
    assert not s.info()["rigorous_radius"]
    assert s.info()["alias_bound"] == "inf"


def _closed_abs(n: int) -> arb:
    """c_n of |x| = |cos t| (no halving): 2/pi, c_{2m} = (-1)^(m+1) 4/(pi (4m^2-1))."""
    if n % 2:
        return arb(0)
    m = n // 2
    if m == 0:
        return 2 / arb.pi()
    return (-1) ** (m + 1) * 4 / (arb.pi() * (4 * m * m - 1))


def _closed_semicircle(n: int) -> arb:
    """c_n of sqrt(1-x^2) = |sin t|: 2/pi, c_{2m} = -4/(pi (4m^2-1)), odd 0."""
    if n % 2:
        return arb(0)
    m = n // 2
    return 2 / arb.pi() if m == 0 else -4 / (arb.pi() * (4 * m * m - 1))


def test_abs_closed_form_quadrature():
    s = chebyshev_coefficients("abs(x)", 32)
    info = s.info()
    assert info["rigorous_radius"] and info["enclosure"] == "quadrature"
    for n in range(33):
        ref = _closed_abs(n)
        assert s[n].overlaps(ref)
        assert (s[n] - ref).contains(0)
        assert s[n].rad() < 1e-17  # measured ~1.5e-18 (tol 2^-60)


def test_semicircle_closed_form_endpoint_singularities():
    s = chebyshev_coefficients("sqrt(1-x^2)", 8)
    assert s.info()["enclosure"] == "quadrature"
    for n in range(9):
        assert (s[n] - _closed_semicircle(n)).contains(0)
        assert s[n].rad() < 1e-16


def test_x_abs_x_odd_closed_form():
    # x|x| is odd: even coefficients vanish; c_1 = (2/pi) int cos^2|cos| = 8/(3 pi)
    s = chebyshev_coefficients("x*abs(x)", 6)
    assert s[0].contains(0) and s[2].contains(0) and s[4].contains(0)
    assert (s[1] - 8 / (3 * arb.pi())).contains(0)
    assert s.info()["rigorous_radius"]


def _mp_coeff(f, n: int) -> mpmath.mpf:
    pts = mpmath.linspace(0, mpmath.pi, 17)
    val = mpmath.quad(lambda t: f(mpmath.cos(t)) * mpmath.cos(n * t), pts)
    return val * (1 if n == 0 else 2) / mpmath.pi


@pytest.mark.parametrize("text,f", [
    ("atan(10*x)", lambda x: mpmath.atan(10 * x)),
    ("1/(1+100*x^2)", lambda x: 1 / (1 + 100 * x**2)),
])
def test_nearby_poles_vs_mpmath(text, f):
    s = chebyshev_coefficients(text, 16)
    info = s.info()
    assert info["rigorous_radius"] and info["enclosure"] == "dct+ellipse"
    with mpmath.workdps(50):
        for n in range(17):
            ref = _mp_coeff(f, n)
            assert _contains(s[n], ref, 1e-40)
            assert s[n].rad() < 1e-17


def test_forced_quadrature_matches_bessel():
    mpmath.mp.dps = 40
    s = chebyshev_coefficients("exp(x)", 6, method="quadrature")
    assert s.info()["enclosure"] == "quadrature"
    assert s.info()["alias_bound"].startswith("0")
    for n in range(7):
        ref = mpmath.besseli(n, 1) * (1 if n == 0 else 2)
        assert _contains(s[n], ref, 1e-29)


def test_ellipse_d2_nearby_pole():
    # analytic with a pole at distance 1/sqrt(10): the ellipse bound applies in d = 2
    s = chebyshev_coefficients("1/(1+5*(x^2+y^2))", 4, dim=2)
    assert s.info()["rigorous_radius"]
    assert s.max_radius < 1e-15  # grid raised to 123 (measured 1.2e-19)


@pytest.mark.parametrize("kw,word", [
    (dict(f="exp(x)", n=-1), "n"),
    (dict(f="exp(x)", n=3, dim=4), "dim"),
    (dict(f="exp(x)", n=8, grid=8), "grid"),
    (dict(f="exp(x)", n=8, dim=3, grid=200), "grid"),
    (dict(f="exp(x)", n=3, q=1), "q"),
    (dict(f="exp(x)", n=3, method="simpson"), "method"),
    (dict(f="exp(x+y)", n=3, dim=2, method="quadrature"), "quadrature"),
    (dict(f="exp(x)", n=3, tol=0), "tol"),
])
def test_bad_inputs(kw, word):
    with pytest.raises(InvalidParameterError, match=word):
        chebyshev_coefficients(**kw)


def _rational_pole_closed_form(a: int, n: int) -> mpmath.mpf:
    """Chebyshev coefficient n of 1/(1 + a^2 x^2) (no halving of c_0): with
    s = sqrt(1 + a^2) and rho = (1 + s)/a (the Bernstein ellipse through the poles +-i/a),
    c_0 = 1/s and c_n = 2 (-1)^(n/2) rho^(-n) / s for even n >= 2, 0 for odd n.  Derived
    from the generating function sum_n r^|n| e^{i n t} = (1 - r^2)/(1 - 2 r cos t + r^2)
    with cos^2 t = (1 + cos 2t)/2; checked against mpmath quadrature below."""
    s = mpmath.sqrt(1 + a**2)
    if n % 2:
        return mpmath.mpf(0)
    c = (-1) ** (n // 2) * ((1 + s) / a) ** (-n) / s
    return c if n == 0 else 2 * c


def _atan_closed_form(a: int, n: int) -> mpmath.mpf:
    """Chebyshev coefficient n of atan(a x): 2 (-1)^k beta^n / n for n = 2k + 1,
    beta = (sqrt(1 + a^2) - 1)/a = 1/rho, 0 for even n (Mason & Handscomb 2003, Ch. 5, the
    series of atan; a = 1 gives beta = sqrt(2) - 1).  Checked against quadrature below."""
    if n % 2 == 0:
        return mpmath.mpf(0)
    beta = (mpmath.sqrt(1 + a**2) - 1) / a
    return 2 * (-1) ** ((n - 1) // 2) * beta**n / n


def test_closed_forms_agree_with_quadrature():
    with mpmath.workdps(40):
        for n in (0, 1, 2, 3, 10, 11):
            assert abs(_mp_coeff(lambda x: 1 / (1 + 100 * x**2), n)
                       - _rational_pole_closed_form(10, n)) < mpmath.mpf(10) ** -30
            assert abs(_mp_coeff(lambda x: mpmath.atan(10 * x), n)
                       - _atan_closed_form(10, n)) < mpmath.mpf(10) ** -30


@pytest.mark.parametrize("n", [20, 50, 100])
@pytest.mark.parametrize("text,closed", [("1/(1+100*x^2)", _rational_pole_closed_form),
                                         ("atan(10*x)", _atan_closed_form)])
def test_nearby_poles_default_options_tight_balls(n, text, closed):
    # with the defaults, poles at +-i/10 give finite, tight balls
    import dpverify

    s = dpverify.chebyshev_coefficients(text, n)
    info = s.info()
    assert info["rigorous_radius"] and info["enclosure"] == "dct+ellipse"
    assert s.max_radius < 1e-15  # measured about 2.4e-19 (n = 20, 50), 2e-25 (n = 100)
    with mpmath.workdps(50):
        for k in range(n + 1):
            assert _contains(s[k], closed(10, k), 1e-40), (text, n, k)
