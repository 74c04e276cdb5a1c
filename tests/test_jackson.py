"""Tests for dpverify.constructions.jackson (wang2013 Section 4.1, Fact 4.2).

Independent checks: Fejér powers by direct integer convolution (not fmpz_poly powers),
the kernel identity evaluated from its closed form (sin(ts/2)/sin(s/2))^(2r) in mpmath,
multipliers by 40-digit quadrature of eq. (2), Fact 4.2 by quadrature of eq. (5).
"""

from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest
from flint import fmpq

from dpverify.cli import main
from dpverify.constructions.jackson import (
    fejer_power,
    jackson_approx,
    jackson_coefficients_2pi,
    jackson_kernel_degree,
    jackson_multipliers,
    jackson_r,
    kernel_coefficients_2pi,
    t_prime,
)
from dpverify.errors import InvalidParameterError, ParameterTypeError
from tests._legacy import flat


def _convolve_power(t: int, r: int) -> list[int]:
    """b_0..b_{r(t-1)} of F_t^r by repeated direct convolution of Python int lists."""
    base = [t - abs(j - (t - 1)) for j in range(2 * t - 1)]  # l = -(t-1)..(t-1)
    acc = [1]
    for _ in range(r):
        out = [0] * (len(acc) + len(base) - 1)
        for i, a in enumerate(acc):
            if a:
                for j, b in enumerate(base):
                    out[i + j] += a * b
        acc = out
    c = (len(acc) - 1) // 2
    return acc[c:]


T_SAMPLE = [1, 2, 3, 4, 5, 7, 8, 12, 16, 31, 32, 64]


@pytest.mark.parametrize("t", T_SAMPLE)
@pytest.mark.parametrize("r", range(1, 7))
def test_fejer_power_two_ways(t, r):
    assert [int(b) for b in fejer_power(t, r)] == _convolve_power(t, r)


def test_fejer_power_full_table():  # all t <= 64, r <= 6 (~5 s)
    for t in range(1, 65):
        for r in range(1, 7):
            assert [int(b) for b in fejer_power(t, r)] == _convolve_power(t, r)


def test_fejer_square_closed_form():
    # (sin(ts/2)/sin(s/2))^(2r) = b_0 + 2 sum b_l cos(ls) at non-special points
    mpmath.mp.dps = 40
    for t, r in [(1, 1), (3, 1), (5, 2), (9, 4), (13, 6)]:
        b = fejer_power(t, r)
        for s in [mpmath.mpf("0.37"), mpmath.mpf("1.9"), mpmath.mpf("-2.8")]:
            lhs = (mpmath.sin(t * s / 2) / mpmath.sin(s / 2)) ** (2 * r)
            rhs = int(b[0]) + 2 * sum(int(bl) * mpmath.cos(l * s) for l, bl in enumerate(b) if l)
            assert abs(lhs - rhs) < mpmath.mpf(10) ** -30 * int(b[0])  # b_0 = max, scale


def test_hand_table_t4_r2():
    # t' = 3, F_3 = [1,2,3,2,1] (l=-2..2); squared: b = 19, 16, 10, 4, 1 (by hand)
    assert t_prime(4, 2) == 3
    assert jackson_coefficients_2pi(4, 2) == [fmpq(1), fmpq(32, 19), fmpq(20, 19),
                                              fmpq(8, 19), fmpq(2, 19)]


@pytest.mark.parametrize("t", T_SAMPLE)
@pytest.mark.parametrize("r", range(1, 7))
def test_degree_claims(t, r):
    # wang2013 §4.1: deg J_{t,r} = r(t-1); H_{t,r} = J_{t',r} has degree <= t
    J = kernel_coefficients_2pi(t, r)
    assert len(J) - 1 == r * (t - 1) and J[-1] != 0
    H = jackson_coefficients_2pi(t, r)
    deg = len(H) - 1
    assert deg == jackson_kernel_degree(t, r) == r * (t // r) <= t
    assert (deg == t) == (t % r == 0)
    assert H[0] == 1 and all(c > 0 for c in H)  # normalisation int H = 1; positive kernel


def test_normalisation_by_quadrature():
    mpmath.mp.dps = 30
    t, r = 7, 3
    H = jackson_coefficients_2pi(t, r)
    tp = t // r + 1
    lam = mpmath.quad(lambda s: (mpmath.sin(tp * s / 2) / mpmath.sin(s / 2)) ** (2 * r),
                      [-mpmath.pi, 0, mpmath.pi])
    # H(s) from the closed form vs from the coefficients, at one point
    s = mpmath.mpf("0.61")
    closed = (mpmath.sin(tp * s / 2) / mpmath.sin(s / 2)) ** (2 * r) / lam
    series = sum(mpmath.mpf(int(c.p)) / int(c.q) * (mpmath.cos(l * s) if l else 1) for l, c in
                 enumerate(H)) / (2 * mpmath.pi)
    assert abs(closed - series) < mpmath.mpf(10) ** -25


def test_r_of_K():
    # r = ceil((K+3)/2)
    assert [jackson_r(K) for K in range(7)] == [2, 2, 3, 3, 4, 4, 5]


def _w_quad(t: int, K: int, n: int) -> mpmath.mpf:
    """w_n from eq. (2) by quadrature, H from its closed form (independent of the code)."""
    r = math.ceil((K + 3) / 2)
    tp = t // r + 1

    def F(s):
        return (mpmath.sin(tp * s / 2) / mpmath.sin(s / 2)) ** (2 * r)

    pts = mpmath.linspace(-mpmath.pi, mpmath.pi, 17)
    lam = mpmath.quad(F, pts)
    x = mpmath.mpf("0.3")

    def integrand(s):
        return F(s) * sum((-1) ** lam_ * math.comb(K + 1, lam_) * mpmath.cos(n * (x + lam_ * s))
                          for lam_ in range(1, K + 2))

    return -mpmath.quad(integrand, pts) / lam / mpmath.cos(n * x)


@pytest.mark.parametrize("t,K,n", [(8, 1, 1), (8, 1, 3), (12, 2, 5), (10, 4, 2), (9, 3, 9),
                                   (16, 5, 7), (6, 0, 6)])
def test_multipliers_vs_quadrature(t, K, n):
    mpmath.mp.dps = 45
    w = jackson_multipliers(t, K)[n]
    q = _w_quad(t, K, n)
    assert abs(q - mpmath.mpf(int(w.p)) / int(w.q)) < mpmath.mpf(10) ** -25


@pytest.mark.parametrize("t,K", [(1, 0), (5, 1), (16, 4), (33, 7)])
def test_multiplier_structure(t, K):
    w = jackson_multipliers(t, K)
    r = jackson_r(K)
    assert len(w) == t + 1 and w[0] == 1
    deg = jackson_kernel_degree(t, r)
    assert all(w[n] == 0 for n in range(deg + 1, t + 1))  # I_{t,K} has degree <= t
    if deg >= 1:
        # the only surviving term at n = deg is l = 1: w = (K+1) * b_deg / b_0
        b = fejer_power(t // r + 1, r)
        assert w[deg] == fmpq((K + 1) * int(b[-1]), int(b[0]))


def _eq45(f2, t, K, d, nmax, grid=256):
    """c_n by Fact 4.2 eq. (4)-(5): a_l from (1), m by the trapezoid rule (spectral)."""
    a = [float(c) / (2 * math.pi) for c in jackson_coefficients_2pi(t, jackson_r(K))]
    th = (np.arange(grid) + 0.5) * 2 * np.pi / grid - np.pi
    grids = np.meshgrid(*([th] * d), indexing="ij")
    g = f2(*[np.cos(x) for x in grids])
    vol = (2 * np.pi / grid) ** d
    out = {}
    for n in np.ndindex(*([nmax + 1] * d)):
        m = np.sum(g * np.prod([np.cos(n[i] * grids[i]) for i in range(d)], axis=0)) * vol
        total = 0.0
        for ks in np.ndindex(*([K + 1] * d)):
            ks = [k + 1 for k in ks]
            ls = [k * ni for k, ni in zip(ks, n)]
            if any(l >= len(a) for l in ls):
                continue
            total += np.prod([(-1) ** k * a[l] * math.comb(K + 1, k) for k, l in zip(ks, ls)])
        out[n] = (-1) ** d * total * m
    return out


def test_fact42_d1():
    t, K = 9, 2
    approx = jackson_approx("exp(-(x-0.5)^2/2)", t, K)
    ref = _eq45(lambda x: np.exp(-(x - 0.5) ** 2 / 2), t, K, 1, t)
    cs = approx.poly.coeffs
    for (n,), v in ref.items():
        mine = float(cs[n]) if n < len(cs) else 0.0
        assert abs(mine - v) < 1e-12


def test_fact42_d2_nonseparable():
    t, K = 6, 3
    approx = jackson_approx("exp(x*y) + x*y^2", t, K, dim=2)
    ref = _eq45(lambda x, y: np.exp(x * y) + x * y**2, t, K, 2, t, grid=128)
    shape = approx.poly.shape
    for n, v in ref.items():
        mine = float(approx.poly.coefficient(n)) if all(a < s for a, s in
                                                          zip(n, shape)) else 0.0
        assert abs(mine - v) < 1e-12


def test_damped_series_is_operator():
    # p(cos th) equals I_{t,K} g_f(th) computed by quadrature of eq. (2) directly
    mpmath.mp.dps = 20
    t, K = 6, 1
    approx = jackson_approx("exp(x)", t, K)
    r = jackson_r(K)
    tp = t // r + 1

    def F(s):
        return (mpmath.sin(tp * s / 2) / mpmath.sin(s / 2)) ** (2 * r)

    pts = mpmath.linspace(-mpmath.pi, mpmath.pi, 9)
    lam = mpmath.quad(F, pts)
    th = mpmath.mpf("0.7")
    val = -mpmath.quad(lambda s: F(s) * sum((-1) ** l * math.comb(K + 1, l)
                                            * mpmath.exp(mpmath.cos(th + l * s))
                                            for l in range(1, K + 2)), pts) / lam
    p = approx.poly(fmpq(0))  # exact evaluation path sanity
    assert p is not None
    mine = float(approx.poly.coeffs[0]) + sum(float(c) * math.cos(n * float(th))
                                             for n, c in enumerate(approx.poly.coeffs) if n)
    assert abs(mine - float(val)) < 1e-12


def test_approx_fields():
    a = jackson_approx("exp(-(x-0.5)^2/2)", 16, 1)
    assert a.construction == "jackson" and a.poly.basis == "chebyshev"
    info = a.extra["jackson"]
    assert (info["t"], info["K"], info["r"], info["t_prime"]) == (16, 1, 2, 9)
    assert a.domain == {"kind": "box", "intervals": [["-1", "1"]]}
    assert fmpq(1) == fmpq(*map(int, info["multipliers"][0].split("/"))) if "/" in \
        info["multipliers"][0] else info["multipliers"][0] == "1"


@pytest.mark.parametrize("call,exc,word", [
    (lambda: jackson_coefficients_2pi(0, 1), InvalidParameterError, "t"),
    (lambda: jackson_coefficients_2pi(3, 0), InvalidParameterError, "r"),
    (lambda: jackson_multipliers(3, -1), InvalidParameterError, "K"),
    (lambda: jackson_multipliers(2.5, 1), ParameterTypeError, "t"),
    (lambda: jackson_coefficients_2pi(10**9, 2), InvalidParameterError, "t"),
    (lambda: jackson_coefficients_2pi(90_000, 6), InvalidParameterError, "r*(t-1)"),
    (lambda: jackson_approx("exp(x)", 4, 1, dim=4), InvalidParameterError, "dim"),
])
def test_bad_inputs(call, exc, word):
    with pytest.raises(exc, match=word.replace("*", r"\*").replace("(", r"\(")
                       .replace(")", r"\)")):
        call()


def test_cli_kernel(capsys):
    import json

    assert main(["jackson", "--t", "4", "--r", "2", "--json"]) == 0
    out = flat(json.loads(capsys.readouterr().out))
    assert out["coefficients_2pi"] == ["1", "32/19", "20/19", "8/19", "2/19"]
    assert (out["degree"], out["t_prime"]) == (4, 3)
    assert main(["jackson", "--t", "8", "--K", "1", "--json"]) == 0
    out = flat(json.loads(capsys.readouterr().out))
    assert out["r"] == 2 and len(out["multipliers"]) == 9 and out["multipliers"][0] == "1"


@pytest.mark.parametrize("argv", [
    ["jackson", "--t", "0", "--r", "2"],
    ["jackson", "--t", "2.5", "--K", "1"],
    ["jackson", "--t", "4", "--K", "-1"],
    ["jackson-approx", "--f", "exp(x)", "--t", "4", "--K", "x"],
    ["jackson-approx", "--f", "exp(", "--t", "4", "--K", "1"],
    ["jackson-approx", "--f", "exp(x)", "--t", "4", "--K", "1", "--dim", "5"],
])
def test_cli_bad(argv, capsys):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err and err.strip()


def test_cli_approx_acceptance_d1(capsys):
    import json

    code = main(["jackson-approx", "--f", "exp(-(x-0.5)^2/2)", "--t", "16", "--K", "1", "--json"])
    assert code == 0
    out = flat(json.loads(capsys.readouterr().out))
    lo, up = fmpq_of(out["error"]["lower"]), fmpq_of(out["error"]["upper"])
    assert 0 < lo <= up <= lo * (1 + fmpq(1, 1000))
    assert out["basis"] == "chebyshev" and out["construction"] == "jackson"


def test_cli_approx_acceptance_d2(capsys):
    import json

    code = main(["jackson-approx", "--f", "exp(-((x-0.5)^2+(y+0.3)^2)/2)", "--t", "32", "--K",
                 "4", "--dim", "2", "--json"])
    assert code == 0
    out = flat(json.loads(capsys.readouterr().out))
    lo, up = fmpq_of(out["error"]["lower"]), fmpq_of(out["error"]["upper"])
    assert 0 < lo <= up <= lo * (1 + fmpq(1, 1000))


def fmpq_of(s: str) -> fmpq:
    from dpverify.numbers import parse_exact

    return parse_exact(s)


def test_operator_distance_nonsmooth_d1():
    a = jackson_approx("abs(x)", 8, 2)
    info = a.extra["jackson"]
    assert info["chebyshev_series"]["enclosure"] == "quadrature"
    dist = fmpq_of(info["operator_distance"])
    assert 0 < dist < fmpq(1, 10**15)  # measured ~5.6e-18 (radii + 2^-80 rounding)


def test_cli_approx_abs_certified_with_distance(capsys):
    import json

    code = main(["jackson-approx", "--f", "abs(x)", "--t", "8", "--K", "2"])
    text = capsys.readouterr().out
    assert code == 0
    assert "certified" in text and "not certified" not in text
    row = [ln for ln in text.splitlines() if ln.startswith("distance to I_{t,K} g_f")][0]
    assert "<=" in row and "not bounded" not in row
    code = main(["jackson-approx", "--f", "abs(x)", "--t", "8", "--K", "2", "--json"])
    assert code == 0
    out = json.loads(capsys.readouterr().out)
    assert fmpq_of(out["info"]["jackson"]["operator_distance"]) < fmpq(1, 10**15)


def test_cli_approx_d2_nonsmooth_says_not_bounded(capsys):
    code = main(["jackson-approx", "--f", "abs(x)+y", "--t", "4", "--K", "1", "--dim", "2"])
    text = capsys.readouterr().out
    assert code == 0  # the printed polynomial's error is certified
    assert "its distance to it is not bounded" in text
