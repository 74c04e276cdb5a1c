"""Tests of dpverify.fast (float64 path).

Each test compares with an independent algorithm (numpy.polynomial, scipy quadrature, the
exact classes of dpverify.exact) or an invariant of the mathematics; tolerances are loose
multiples of eps because these are heuristic float paths (the measured deviations are the
business of dpverify.crosscheck).
"""

from __future__ import annotations

import numpy as np
import pytest
from flint import fmpq
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.polynomial import chebyshev as npcheb

from dpverify import fast
from dpverify.constructions.chebyshev import or_degree
from dpverify.errors import InvalidParameterError
from dpverify.exact import BernsteinPoly


def _q(x: float) -> fmpq:
    return fmpq(*float(x).as_integer_ratio())


# ----------------------------------------------------------------------------- Chebyshev


@settings(deadline=None, max_examples=30)
@given(st.integers(0, 60), st.integers(0, 2**31))
def test_clenshaw_matches_numpy_chebval(n, seed):
    # independent algorithm: numpy.polynomial.chebyshev.chebval
    rng = np.random.default_rng(seed)
    c = rng.uniform(-1, 1, n + 1)
    x = rng.uniform(-1, 1, 50)
    ours = fast.clenshaw(c, x)
    ref = npcheb.chebval(x, c)
    assert np.max(np.abs(ours - ref)) <= 1e-13 * (1 + np.abs(c).sum())


def test_clenshaw_domain_and_columns():
    c = np.array([[1.0, 0.0], [2.0, 1.0], [0.5, -1.0]])  # two series as columns
    x = np.linspace(3, 7, 9)
    out = fast.clenshaw(c, x, domain=(3, 7))
    u = (2 * x - 10) / 4
    for j in range(2):
        assert np.allclose(out[:, j], npcheb.chebval(u, c[:, j]), atol=1e-14)


def test_dct_round_trip():
    # coefficients -> values at Chebyshev points (numpy chebval) -> coefficients
    rng = np.random.default_rng(1)
    for n in (1, 2, 7, 64, 301):
        c = rng.uniform(-1, 1, n)
        vals = npcheb.chebval(fast.chebyshev_points(n), c)
        assert np.max(np.abs(fast.chebyshev_coeffs_from_values(vals) - c)) < 1e-13 * n


def test_dct_2d_axis():
    c = np.outer([1.0, 0.5, 0.25], [0.0, 2.0, 0.0, -1.0])
    px, py = fast.chebyshev_points(3), fast.chebyshev_points(4)
    vals = np.outer(npcheb.chebval(px, c[:, 1] / 2.0), npcheb.chebval(py, c[1] / 0.5))
    got = fast.chebyshev_coeffs_from_values(fast.chebyshev_coeffs_from_values(vals, 0), 1)
    assert np.allclose(got, np.outer([1.0, 0.5, 0.25], [0.0, 2.0, 0.0, -1.0]), atol=1e-14)


def test_chebyshev_t_values_closed_form():
    u = np.array([-3.0, -1.0, -0.3, 0.0, 0.7, 1.0, 2.5])
    for n in (0, 1, 2, 5, 12):
        c = np.zeros(n + 1)
        c[n] = 1.0
        assert np.allclose(fast.chebyshev_t_values(n, u), npcheb.chebval(u, c), rtol=1e-12)


@settings(deadline=None, max_examples=40)
@given(st.integers(2, 3000), st.integers(1, 12))
def test_or_degree_float_is_exact_least_degree(k, e):
    # the exact least t decides; floats agree on this grid (not promised in general)
    assert fast.or_degree_float(k, f"1e-{e}")[0] == or_degree(k, f"1e-{e}")[0]


@pytest.mark.parametrize("k,gamma", [(1, "1e-3"), (2, "1e-1"), (25, "1e-3"), (1000, "1e-12")])
def test_or_values_invariants(k, gamma):
    # g(0) = 0 and |g - 1| <= gamma on 1..k (thaler2012 Fact 4.2), up to float rounding
    g = fast.or_values(k, gamma, np.arange(k + 1.0))
    assert abs(g[0]) < 1e-14
    assert np.max(np.abs(g[1:] - 1)) <= float(fmpq(1, 10 ** int(gamma[3:]))) * (1 + 1e-9)
    # the Chebyshev form agrees with the closed form inside the domain
    c, dom = fast.or_chebyshev_coeffs(k, gamma)
    xs = np.linspace(float(dom[0]), float(dom[1]), 101)
    assert np.max(np.abs(fast.clenshaw(c, xs, dom) - fast.or_values(k, gamma, xs))) < 1e-12


def test_and_is_reflected_or():
    k, gamma = 30, "1e-6"
    x = np.arange(k + 1.0)
    assert np.allclose(fast.and_values(k, gamma, x), 1 - fast.or_values(k, gamma, k - x),
                       atol=1e-14)
    assert fast.h_values(k, gamma, np.array([float(k)]))[0] == pytest.approx(1.0, abs=1e-14)


def test_bad_input():
    with pytest.raises(InvalidParameterError):
        fast.clenshaw([1.0, 2.0], [np.nan])
    with pytest.raises(InvalidParameterError):
        fast.or_chebyshev_coeffs(0, "1e-3")
    with pytest.raises(InvalidParameterError):
        fast.clenshaw([1.0], [0.0], domain=(1, 1))


# ----------------------------------------------------------------------------- r-of-k


def test_rofk_values_meet_gamma_on_integers():
    # thaler2012 Lemma 4.5 as certified by the exact path for this case: |p - 1[x>=r]| <= gamma
    r, k, gamma = 2, 20, 0.01
    p = fast.rofk_values(r, k, "1e-2", np.arange(k + 1.0))
    target = (np.arange(k + 1) >= r).astype(float)
    assert np.max(np.abs(p - target)) <= gamma


def test_rofk_chebyshev_coefficients_reproduce_values():
    r, k = 1, 20
    c, dom = fast.rofk_chebyshev_coeffs(r, k, "1e-2")
    xs = np.arange(k + 1.0)
    assert np.max(np.abs(fast.clenshaw(c, xs, dom) - fast.rofk_values(r, k, "1e-2", xs))) < 1e-12


def test_t_ratio_no_overflow():
    big = fast.rofk.t_ratio(5000, np.array([1.0, 1.0001, 0.5]), 1.0001)
    assert np.all(np.isfinite(big)) and big[1] == pytest.approx(1.0)


# ----------------------------------------------------------------------------- Bernstein


def test_bernstein_partition_of_unity_and_endpoints():
    s = np.linspace(0, 1, 11)
    V = fast.bernstein_basis_values(12, s)
    assert np.allclose(V.sum(axis=1), 1.0, atol=1e-14)
    assert V[0, 0] == 1.0 and V[-1, -1] == 1.0


@pytest.mark.parametrize("k", [1, 4, 17])
def test_de_casteljau_matches_exact(k):
    rng = np.random.default_rng(k)
    c = rng.uniform(-1, 1, k + 1)
    s = rng.uniform(0, 1, 7)
    P = BernsteinPoly([_q(v) for v in c])
    exact = np.array([float(P(_q(v))) for v in s])
    assert np.max(np.abs(fast.de_casteljau(c, s) - exact)) < 1e-14 * (k + 1)
    assert np.max(np.abs(fast.bernstein_eval(c, s) - exact)) < 1e-14 * (k + 1)
    # several polynomials at once (columns)
    both = fast.de_casteljau(np.stack([c, 2 * c], axis=1), s)
    assert np.allclose(both[:, 1], 2 * both[:, 0])


def test_iterated_basis_identities():
    k = 8
    A = fast.operator_matrix(k)
    assert np.allclose(fast.iterated_basis_matrix(k, 1), np.eye(k + 1))
    for h in (2, 3, 5):
        M = fast.iterated_basis_matrix(k, h)
        # alda2017 Def. 8: M A = I - (I - A)^h, and M commutes with A
        E = np.eye(k + 1) - A
        assert np.allclose(M @ A, np.eye(k + 1) - np.linalg.matrix_power(E, h), atol=1e-12)
        assert np.allclose(M @ A, A @ M, atol=1e-12)
        # columns of M applied to lattice values = iterated_coefficients
        F = np.random.default_rng(h).uniform(size=k + 1)
        assert np.allclose(M @ F, fast.iterated_coefficients(F, k, h), atol=1e-12)
    # B_k reproduces linear functions, so does B_k^(h): lattice values of y -> coefficients
    lin = np.arange(k + 1) / k
    assert np.allclose(fast.iterated_coefficients(lin, k, 4), lin, atol=1e-13)


# ----------------------------------------------------------------------------- tensor


@pytest.mark.parametrize("basis", ["chebyshev", "bernstein", "monomial"])
def test_tensor_separable(basis):
    # p(x, y, z) = a(x) b(y) c(z) for an outer-product coefficient tensor
    rng = np.random.default_rng(3)
    a, b, c = rng.uniform(-1, 1, 4), rng.uniform(-1, 1, 3), rng.uniform(-1, 1, 5)
    C = np.einsum("i,j,k->ijk", a, b, c)
    lo = 0.0 if basis == "bernstein" else -1.0
    pts = rng.uniform(lo, 1, (20000, 3))  # more than one chunk
    got = fast.tensor_eval(C, pts, basis=basis)
    one = [fast.tensor_eval(v, pts[:, j], basis=basis) for j, v in enumerate((a, b, c))]
    assert np.allclose(got, one[0] * one[1] * one[2], atol=1e-13)


def test_tensor_shape_errors():
    with pytest.raises(InvalidParameterError):
        fast.tensor_eval(np.ones((2, 2)), np.zeros((5, 3)))
    with pytest.raises(InvalidParameterError):
        fast.tensor_eval(np.ones((2, 2)), np.full((5, 2), 2.0))


# ----------------------------------------------------------------------------- Jackson


@pytest.mark.parametrize("t,r", [(4, 1), (6, 2), (9, 3)])
def test_jackson_coefficients_by_quadrature(t, r):
    # independent (scipy quadrature): H = kernel/lambda, int H(s) cos(ls) ds = pi a_l, so
    # 2 pi a_l = 2 int H cos(l.) for l >= 1 and 2 pi a_0 = int H = 1
    tp = t // r + 1

    def kern(s):
        return (np.sin(tp * s / 2) / np.sin(s / 2)) ** (2 * r) if s != 0 else tp ** (2 * r)

    quad = pytest.importorskip("scipy.integrate").quad  # scipy is the optional [lp] extra
    lam = quad(kern, -np.pi, np.pi, limit=200)[0]
    a2 = fast.jackson_coefficients_2pi(t, r)
    assert len(a2) - 1 == fast.jackson_kernel_degree(t, r) == r * (tp - 1)
    for l_ in range(len(a2)):
        al = quad(lambda s, l_=l_: kern(s) * np.cos(l_ * s), -np.pi, np.pi, limit=200)[0] / lam
        expect = 1.0 if l_ == 0 else 2.0 * al
        assert a2[l_] == pytest.approx(expect, abs=1e-9)


def test_jackson_multipliers_basic():
    w = fast.jackson_multipliers(16, 3)
    assert w[0] == 1.0 and len(w) == 17
    # w_n -> 1 - O((n/t)^(K+1)) for small n; w vanishes beyond the kernel degree
    assert abs(w[1] - 1) < 0.05
    deg = fast.jackson_kernel_degree(40, fast.jackson.jackson_r(2))
    w2 = fast.jackson_multipliers(40, 2)
    assert np.all(w2[deg + 1 :] == 0)


def test_damped_chebyshev_coeffs_of_a_chebyshev_polynomial():
    t, K = 10, 2
    w = fast.jackson_multipliers(t, K)
    c = fast.damped_chebyshev_coeffs(lambda x: 3 * x**3 - 2 * x, t, K)
    # 3x^3 - 2x = (3/4) T_3 + (9/4 - 2) T_1
    expect = np.zeros(t + 1)
    expect[3], expect[1] = 0.75 * w[3], 0.25 * w[1]
    assert np.allclose(c, expect, atol=1e-14)
    c2 = fast.damped_chebyshev_coeffs("x*y", 4, 1, dim=2)
    w1 = fast.jackson_multipliers(4, 1)
    assert c2[1, 1] == pytest.approx(w1[1] ** 2) and abs(c2).sum() == pytest.approx(w1[1] ** 2)
