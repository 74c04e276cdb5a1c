"""Tests for dpverify.certify.smoothness (||f||_K of wang2013 / jin).

References derived by hand: ||sin(3x)||_2 = 9; ||exp(xy)||_2 = 2e on [-1,1]^2 (at (1,1),
D_x D_y e^{xy} = (1+xy) e^{xy}); Gaussian derivatives via Hermite polynomials (mpmath).
"""

from __future__ import annotations

import math

import mpmath
import pytest
from flint import fmpq

from dpverify.certify.smoothness import smoothness_norm
from dpverify.errors import InvalidParameterError
from dpverify.expr import NotAnalytic


def _inside(res, value: float, tol: float = 1e-12) -> bool:
    return float(res.lower) - tol <= value <= float(res.upper) + tol


def test_sin():
    r = smoothness_norm("sin(3*x)", 2)
    assert _inside(r, 9.0)
    assert r.upper <= r.lower * (1 + fmpq(1, 1000))
    assert _inside(smoothness_norm("sin(3*x)", 0), 1.0)


def test_exp_xy_mixed():
    r = smoothness_norm("exp(x*y)", 2, [(-1, 1), (-1, 1)])
    assert _inside(r, 2 * math.e)
    assert r.argmax[0] == (1, 1)


def test_gaussian_hermite():
    # f = exp(-x^2/(2 s^2)): D^k f = (-1)^k s^-k He_k(x/s) f
    mpmath.mp.dps = 30
    s2 = fmpq(3, 2)
    s = math.sqrt(1.5)
    r = smoothness_norm("exp(-x^2/(2*(3/2)))", 3)

    def d3(x):
        y = x / s
        return abs((y**3 - 3 * y) * math.exp(-y * y / 2)) / s**3

    y0 = math.sqrt(3 - math.sqrt(6))  # He_4 root: max of |He_3 e^{-y^2/2}|
    best = max(1.0, d3(y0 * s), d3(1.0))
    assert _inside(r, best, 1e-9)
    assert s2 == fmpq(3, 2)


def test_per_order_enclosures():
    r = smoothness_norm("exp(x)", 3, [(0, 1)])
    for j in range(4):
        lo, up = r.per_order[j]
        assert float(lo) <= math.e + 1e-12 <= float(up) + 2e-12


def test_errors():
    with pytest.raises(InvalidParameterError, match="K"):
        smoothness_norm("exp(x)", -1)
    with pytest.raises(NotAnalytic):
        smoothness_norm("abs(x)^3", 1)


@pytest.mark.parametrize("sigma2,K", [(1, 1), (2, 2), (4, 3)])
def test_jin_prop21(sigma2, K):
    # jin Prop. 2.1: K <= sigma^2  =>  ||exp(-||x-x0||^2/(2 sigma^2))||_K <= 1 (x0 = (0.3,-0.2))
    f = f"exp(-((x-0.3)^2+(y+0.2)^2)/(2*{sigma2}))"
    r = smoothness_norm(f, K, [(-1, 1), (-1, 1)])
    assert r.upper <= 1 or r.lower <= 1  # holds (k = 0 gives exactly 1 at x0)
    assert r.lower <= 1
