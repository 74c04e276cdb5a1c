"""Tests for dpverify.constructions.bernstein (alda2017 iterated Bernstein polynomials).

Every expected value is derived independently of the code under test: by hand (stated
in the test), by the paper's own formula evaluated through another route (Definition 8
applied to functions by exact evaluation, no matrices), or by a second algorithm
(matrix route vs vector route).
"""

from __future__ import annotations

import json
from math import comb

import pytest
from flint import arb, ctx, fmpq
from hypothesis import given, settings
from hypothesis import strategies as st

from dpverify.certify import certify
from dpverify.cli import main
from dpverify.constructions.bernstein import (
    bernstein_approx,
    bernstein_operator_matrix,
    iterated_basis_matrix,
    iterated_bernstein,
    iterated_bernstein_basis,
    iterated_bernstein_coefficients,
    iterated_bernstein_tensor,
    iterated_operator_matrix,
    lattice_values,
)
from dpverify.errors import DomainError, InvalidParameterError, ParameterTypeError
from dpverify.exact import BernsteinPoly, MonomialPoly
from dpverify.numbers import parse_exact
from tests._legacy import flat

rationals = st.fractions(min_value=-10, max_value=10, max_denominator=50).map(
    lambda f: fmpq(f.numerator, f.denominator)
)


def b(nu: int, k: int, y: fmpq) -> fmpq:
    """b_{nu,k}(y) straight from alda2017 Definition 6."""
    return comb(k, nu) * y**nu * (1 - y) ** (k - nu)


def apply_Bk(p: BernsteinPoly, k: int) -> BernsteinPoly:
    """B_k p by Definition 7: Bernstein coefficients are the lattice values p(mu/k)."""
    return BernsteinPoly([p(fmpq(mu, k)) for mu in range(k + 1)])


def basis_by_definition(nu: int, k: int, h: int) -> BernsteinPoly:
    """b^{(h)}_{nu,k} = sum_{i=1}^{h} C(h,i) (-1)^(i-1) B_k^(i-1) b_{nu,k} (Definition 8),
    with B_k applied to *functions* by exact evaluation (no operator matrix)."""
    e = [fmpq(0)] * (k + 1)
    e[nu] = fmpq(1)
    term = BernsteinPoly(e)  # B_k^0 b_{nu,k}
    total = BernsteinPoly([0] * (k + 1))
    for i in range(1, h + 1):
        total = total + term * BernsteinPoly([comb(h, i) * (-1) ** (i - 1)])
        term = apply_Bk(term, k)
    return total.elevate(k)


# --------------------------------------------------------------------------- operator


@pytest.mark.parametrize("k", [1, 2, 5, 9])
def test_operator_orientation_rows_are_lattice_points(k):
    # A[mu, nu] = b_{nu,k}(mu/k): row mu is the lattice point, column nu the basis index
    A = bernstein_operator_matrix(k)
    for mu in range(k + 1):
        for nu in range(k + 1):
            assert A[mu, nu] == b(nu, k, fmpq(mu, k))


@settings(deadline=None, max_examples=25)
@given(st.integers(1, 8).flatmap(lambda k: st.lists(rationals, min_size=k + 1, max_size=k + 1)))
def test_operator_maps_coefficients_to_lattice_values(c):
    # (A c)_mu = p(mu/k): compared with de Casteljau evaluation in dpverify.exact
    k = len(c) - 1
    A = bernstein_operator_matrix(k)
    p = BernsteinPoly(c)
    for mu in range(k + 1):
        assert sum((A[mu, nu] * c[nu] for nu in range(k + 1)), fmpq(0)) == p(fmpq(mu, k))


@pytest.mark.parametrize("k,h", [(1, 1), (1, 4), (2, 2), (3, 3), (5, 2), (6, 4), (7, 1)])
def test_basis_matches_definition_8(k, h):
    B = iterated_bernstein_basis(k, h)
    for nu in range(k + 1):
        ref = basis_by_definition(nu, k, h)
        assert list(B.basis[nu]) == list(ref.coeffs)
        assert B.poly(nu) == ref


def test_basis_k2_h2_by_hand():
    # k=2: A = [[1,0,0],[1/4,1/2,1/4],[0,0,1]], M = I + (I - A) = 2I - A
    B = iterated_bernstein_basis(2, 2)
    q = fmpq
    assert B.basis == [[1, q(-1, 4), 0], [0, q(3, 2), 0], [0, q(-1, 4), 1]]


@pytest.mark.parametrize("k,h", [(1, 3), (4, 1), (4, 2), (7, 3), (10, 5), (20, 6)])
def test_partition_of_unity(k, h):
    # sum_nu b^{(h)}_{nu,k} == 1  <=>  every Bernstein coefficient of the sum is 1
    B = iterated_bernstein_basis(k, h).basis
    for mu in range(k + 1):
        assert sum((B[nu][mu] for nu in range(k + 1)), fmpq(0)) == 1


@pytest.mark.parametrize("k,h", [(3, 2), (8, 3), (12, 5)])
def test_reflection_symmetry(k, h):
    # b^{(h)}_{k-nu,k}(1-y) = b^{(h)}_{nu,k}(y): basis[k-nu][k-mu] == basis[nu][mu]
    B = iterated_bernstein_basis(k, h).basis
    for nu in range(k + 1):
        for mu in range(k + 1):
            assert B[k - nu][k - mu] == B[nu][mu]


@pytest.mark.parametrize("k,h", [(2, 2), (5, 3), (9, 4)])
def test_operator_matrix_identities(k, h):
    # I - (I - A)^h == M A == A M (polynomial identity 1 - (1-a)^h = a sum_{j<h} (1-a)^j)
    A = bernstein_operator_matrix(k)
    M = iterated_basis_matrix(k, h)
    T = iterated_operator_matrix(k, h)
    assert T == M * A
    assert T == A * M


@settings(deadline=None, max_examples=30)
@given(
    st.integers(1, 7).flatmap(
        lambda k: st.tuples(
            st.just(k), st.integers(1, 6), st.lists(rationals, min_size=k + 1, max_size=k + 1)
        )
    )
)
def test_vector_route_equals_matrix_route(args):
    # O(h k^2) vector Horner (lattice evaluation) vs the exact matrix M
    k, h, F = args
    M = iterated_basis_matrix(k, h)
    c = iterated_bernstein_coefficients(F, k, h)
    assert c == [sum((M[mu, nu] * F[nu] for nu in range(k + 1)), fmpq(0)) for mu in range(k + 1)]


@settings(deadline=None, max_examples=30)
@given(st.integers(1, 12), st.integers(1, 6), rationals, rationals)
def test_linear_functions_fixed(k, h, m, q):
    # alda2017 Appendix A: B_k(m y + q) = m y + q, hence also B_k^{(h)}; the Bernstein
    # coefficients of m y + q are m nu/k + q
    F = [m * fmpq(nu, k) + q for nu in range(k + 1)]
    assert iterated_bernstein_coefficients(F, k, h) == F


@settings(deadline=None, max_examples=40)
@given(st.integers(1, 14), st.integers(1, 7))
def test_square_identity(k, h):
    # B_k^{(h)}(y^2) = y^2 + y(1-y)/k^h.  By hand: B_k(y^2) = y^2 + y(1-y)/k, so
    # (I - B_k) y^2 = -y(1-y)/k and (I - B_k)(y - y^2) = (I - B_k)(-y^2) since y is
    # fixed; by induction (I - B_k)^h y^2 = -y(1-y)/k^h.  The formula holds.
    F = [fmpq(nu, k) ** 2 for nu in range(k + 1)]
    p = BernsteinPoly(iterated_bernstein_coefficients(F, k, h)).to_monomial()
    kh = fmpq(k) ** h
    expected = MonomialPoly([0, 1 / kh, 1 - 1 / kh])
    assert p == expected


@pytest.mark.parametrize("k,h", [(2, 1), (4, 2), (6, 3), (10, 2)])
def test_lattice_error_of_square_exact(k, h):
    # for even k the lattice error of y^2 is max_mu y(1-y)/k^h at mu/k, = 1/(4 k^h) at 1/2
    F = [fmpq(nu, k) ** 2 for nu in range(k + 1)]
    cert = certify(iterated_bernstein(F, k, h))
    assert cert.error["lower"] == cert.error["upper"]  # exact
    assert cert.error["upper"] == f"1/{4 * k**h}"


def test_degree_is_k():
    # A is invertible and q(a) = (1-(1-a)^h)/a > 0 on its spectrum (0, 1], so the basis
    # spans P_k and some b^{(h)}_{nu,k} has degree exactly k
    for k, h in [(1, 1), (3, 2), (8, 5)]:
        B = iterated_bernstein_basis(k, h)
        assert B.degree == k == max(p.degree for p in B.polys())


def test_json_orientation():
    B = iterated_bernstein_basis(3, 2)
    data = B.to_json()
    assert data["basis"][0] == ["1", "-8/27", "-1/27", "0"]  # by hand: column 0 of 2I - A
    assert data["degree"] == 3


# --------------------------------------------------------------------------- tensor


def test_tensor_product_function_is_outer_product():
    # f(x, y) = g(x) u(y) on a k1 x k2 lattice: coefficients are the outer product
    k1, k2, h = 3, 4, 2
    g = [fmpq(nu * nu + 1, 7) for nu in range(k1 + 1)]
    u = [fmpq(2 - nu, 3) for nu in range(k2 + 1)]
    vals = [[a * c for c in u] for a in g]
    T = iterated_bernstein_tensor(vals, [k1, k2], h)
    cg = iterated_bernstein_coefficients(g, k1, h)
    cu = iterated_bernstein_coefficients(u, k2, h)
    assert T.shape == (k1 + 1, k2 + 1)
    assert list(T.coeffs) == [a * c for a in cg for c in cu]


def test_tensor_is_nested_sum_definition_9():
    # evaluate sum_{nu1} sum_{nu2} F[nu1][nu2] b^{(h)}_{nu1,k1}(y1) b^{(h)}_{nu2,k2}(y2)
    k1, k2, h = 2, 3, 3
    vals = [[fmpq((i + 1) * (j + 2) + i - j, 5) for j in range(k2 + 1)] for i in range(k1 + 1)]
    T = iterated_bernstein_tensor(vals, [k1, k2], h)
    B1 = [basis_by_definition(nu, k1, h) for nu in range(k1 + 1)]
    B2 = [basis_by_definition(nu, k2, h) for nu in range(k2 + 1)]
    for y1, y2 in [(fmpq(1, 3), fmpq(2, 7)), (fmpq(0), fmpq(1)), (fmpq(5, 6), fmpq(1, 2))]:
        ref = sum(
            (vals[i][j] * B1[i](y1) * B2[j](y2) for i in range(k1 + 1) for j in range(k2 + 1)),
            fmpq(0),
        )
        assert T(y1, y2) == ref


def test_tensor_shape_errors():
    with pytest.raises(InvalidParameterError, match="shape"):
        iterated_bernstein_tensor([[1, 2], [3, 4]], [1, 2], 1)
    with pytest.raises(ParameterTypeError):
        iterated_bernstein_tensor([[1, 2], [3, 4]], "11", 1)


# --------------------------------------------------------------------------- user functions


def test_bernstein_approx_polynomial_exact():
    # f = x^2 is exact at rationals: poly == y^2 + y(1-y)/k^h exactly, and the certified
    # sup error over [0,1] is max y(1-y)/k^h = 1/(4 k^h)
    k, h = 4, 2
    a = bernstein_approx("x^2", k, h)
    assert a.extra["bernstein"]["rounded_points"] == 0
    assert a.poly.to_monomial() == MonomialPoly([0, fmpq(1, 16), fmpq(15, 16)])
    assert a.target == {"kind": "expr", "expr": a.target["expr"], "variables": ["x"]}
    assert a.domain == {"kind": "box", "intervals": [["0", "1"]]}
    e = certify(a).error
    assert parse_exact(e["lower"]) <= fmpq(1, 64) <= parse_exact(e["upper"])


def test_lattice_values_rounding_is_within_bound():
    lv = lattice_values("exp(x)", [5])
    assert not any(lv.exact[1:])  # exp of a non-zero rational is irrational
    old = ctx.prec
    ctx.prec = 400
    try:
        for nu, v in enumerate(lv.values):
            true = arb(fmpq(nu, 5)).exp()
            assert abs(arb(v) - true) < arb(lv.rounding_bound)
    finally:
        ctx.prec = old
    assert lv.rounding_bound < fmpq(1, 2**199)


def test_holder_theorem_6_bound():
    # f = |x - 1/2|^(1/2) is (1/2, 1)-Hoelder; Theorem 6: sup |f - B_k f| <= (4k)^(-1/4)
    k = 16
    cert = certify(bernstein_approx("abs(x-1/2)^0.5", k, 1))
    up = parse_exact(cert.error["upper"])
    assert up**4 <= fmpq(1, 4 * k)
    # and B_k f is exact on the lattice points nu/k except where f is irrational
    assert flat(cert)["bernstein"]["exact_points"] >= 3


def test_bernstein_approx_2d_lattice():
    a = bernstein_approx("x*y", 3, 2, dim=2)
    # x*y is bilinear, fixed by B_k^{(h)} on each axis (Appendix A): coefficients nu1 nu2/9
    assert list(a.poly.coeffs) == [fmpq(i * j, 9) for i in range(4) for j in range(4)]
    assert a.target["variables"] == ["x", "y"]


@pytest.mark.parametrize(
    "call,exc,msg",
    [
        (lambda: iterated_bernstein_basis(0, 1), InvalidParameterError, "k must be >= 1"),
        (lambda: iterated_bernstein_basis(3, 0), InvalidParameterError, "h must be >= 1"),
        (lambda: iterated_bernstein_basis(2.0, 1), ParameterTypeError, "k must be an integer"),
        (lambda: iterated_bernstein_basis(900, 8), InvalidParameterError, "too expensive"),
        (lambda: iterated_bernstein([1, 2], 2, 1), InvalidParameterError, "k\\+1 = 3"),
        (lambda: bernstein_approx("x", 3, 1, dim=4), InvalidParameterError, "dim must be <= 3"),
        (lambda: bernstein_approx("log(x)", 3, 1), DomainError, "f"),
    ],
)
def test_errors(call, exc, msg):
    with pytest.raises(exc, match=msg):
        call()


# --------------------------------------------------------------------------- CLI


def test_cli_bernstein_json(capsys):
    rc = main(["bernstein", "--k", "3", "--h", "2", "--json"])
    out = flat(json.loads(capsys.readouterr().out))
    assert rc == 0
    assert out["k"] == 3 and out["h"] == 2 and out["basis"] and len(out["basis"]) == 4
    assert out["basis"] == iterated_bernstein_basis(3, 2).to_json()["basis"]
    assert 1 <= parse_exact(out["lower"]) <= parse_exact(out["upper"]) <= 3


@pytest.mark.parametrize(
    "argv,frag",
    [
        (["bernstein", "--k", "2.5", "--h", "2"], "--k must be an integer"),
        (["bernstein", "--k", "3", "--h", "0"], "--h must be >= 1"),
        (["bernstein-approx", "--f", "x", "--k", "3", "--h", "1", "--dim", "5"], "--dim"),
        (["bernstein-approx", "--f", "x+", "--k", "3", "--h", "1"], "--f"),
    ],
)
def test_cli_bad_input(capsys, argv, frag):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert frag in err and "Traceback" not in err and len(err.strip().splitlines()) == 1


def test_cli_bernstein_approx(capsys):
    rc = main(["bernstein-approx", "--f", "x^2", "--k", "4", "--h", "2", "--json"])
    out = flat(json.loads(capsys.readouterr().out))
    assert rc == 0
    assert out["bernstein"]["k"] == 4 and out["basis"] == "bernstein"
    assert float(out["error"]["lower"]) <= 1 / 64 <= float(out["error"]["upper"])
