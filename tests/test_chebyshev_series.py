"""Tests for dpverify.constructions.chebyshev_series.

Independent references: exp(x) = I_0(1) + 2 sum I_n(1) T_n(x) (Bessel, mpmath);
separable products; a trapezoid-rule (numpy) computation for a non-separable f.
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


def test_nonanalytic_gives_infinite_radius():
    s = chebyshev_coefficients("abs(x)^3", 6)
    assert not s.info()["rigorous_radius"]
    assert not s[0].rad().is_finite()
    # midpoints still close: c_0 of |x|^3 = (1/pi) int_0^pi |cos|^3 = 4/(3 pi)
    assert abs(float(s[0].mid()) - 4 / (3 * math.pi)) < 1e-6


@pytest.mark.parametrize("kw,word", [
    (dict(f="exp(x)", n=-1), "n"),
    (dict(f="exp(x)", n=3, dim=4), "dim"),
    (dict(f="exp(x)", n=8, grid=8), "grid"),
    (dict(f="exp(x)", n=8, dim=3, grid=200), "grid"),
    (dict(f="exp(x)", n=3, q=1), "q"),
])
def test_bad_inputs(kw, word):
    with pytest.raises(InvalidParameterError, match=word):
        chebyshev_coefficients(**kw)
