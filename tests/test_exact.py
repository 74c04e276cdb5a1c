"""Invariants of dpverify.exact: exact round trips, homomorphisms, containment.

Every property runs for every basis.  Expected values are never copied from the code
under test: they come from identities (T_n(1) = 1, partition of unity, ...), from
another basis, or from FLINT's own fmpq_poly arithmetic.
"""

from __future__ import annotations

import itertools

import pytest
from flint import arb, arb_series, fmpq, fmpq_poly
from hypothesis import given, settings
from hypothesis import strategies as st

from dpverify.errors import (
    BasisMismatchError,
    DomainError,
    InvalidParameterError,
    ParameterTypeError,
)
from dpverify.exact import (
    BernsteinPoly,
    ChebyshevPoly,
    CosinePoly,
    ExactPoly,
    MonomialPoly,
    TensorPoly,
    affine_map,
    bernstein_basis_poly,
    chebyshev_t,
    poly_from_json,
)
from dpverify.numbers import MAX_DEGREE, arb_to_fmpq_bounds

BASES = ["monomial", "chebyshev", "bernstein", "cosine"]
ALGEBRAIC = ["monomial", "chebyshev", "bernstein"]  # polynomials in x (cosine is in theta)
SETTINGS = settings(deadline=None, max_examples=25, database=None)

rationals = st.builds(fmpq, st.integers(-60, 60), st.integers(1, 25))
coeff_lists = st.lists(rationals, min_size=1, max_size=7)


@st.composite
def domains(draw: st.DrawFn) -> tuple[fmpq, fmpq]:
    a = draw(rationals)
    w = draw(st.builds(fmpq, st.integers(1, 40), st.integers(1, 10)))
    return (a, a + w)


def make(basis: str, coeffs: list, domain: tuple | None = None) -> ExactPoly:
    if basis == "monomial":
        return MonomialPoly(coeffs)
    if basis == "chebyshev":
        return ChebyshevPoly(coeffs, domain) if domain else ChebyshevPoly(coeffs)
    if basis == "bernstein":
        return BernsteinPoly(coeffs, domain) if domain else BernsteinPoly(coeffs)
    return CosinePoly(coeffs)


def contains(b: arb, q) -> bool:
    """Exact test q in b (``arb.contains(fmpq)`` first rounds q to a ball, which can
    make it fail for a ball narrower than that rounding)."""
    lo, hi = arb_to_fmpq_bounds(b)
    return lo <= q <= hi


def ball(x: fmpq, rad: fmpq) -> arb:
    """An arb ball certainly containing [x - rad, x + rad]."""
    return arb(x) + arb(0, rad)


# --------------------------------------------------------------------------- round trips


@pytest.mark.parametrize("basis", ALGEBRAIC)
@SETTINGS
@given(cs=coeff_lists, dom=domains(), dom2=domains(), extra=st.integers(0, 3))
def test_round_trip_all_bases(basis: str, cs: list, dom: tuple, dom2: tuple, extra: int) -> None:
    p = make(basis, cs, dom)
    deg = max(p.degree, 0)
    targets = [
        p.to_monomial(),
        p.to_chebyshev(),
        p.to_chebyshev(domain=dom2),
        p.to_bernstein(),
        p.to_bernstein(k=deg + extra, domain=dom2),  # degree elevation + other domain
    ]
    for q in targets:
        if basis == "monomial":
            back = q.to_monomial()
        elif basis == "chebyshev":
            back = q.to_chebyshev(domain=dom)
        else:
            back = q.to_bernstein(k=p.k, domain=dom)
        assert back == p
        assert back.coeffs == p.coeffs  # same representation, not only the same function
        assert q.degree == p.degree


@SETTINGS
@given(cs=coeff_lists)
def test_cosine_chebyshev_round_trip(cs: list) -> None:
    p = CosinePoly(cs)
    q = p.to_chebyshev()
    assert q.domain == (fmpq(-1), fmpq(1)) and q.coeffs == p.coeffs
    assert CosinePoly.from_chebyshev(q) == p
    assert p.to_monomial().to_cosine() == p
    assert p.to_bernstein(k=p.degree + 2).to_cosine() == p
    assert p.convert("chebyshev", domain=(0, 3)).to_cosine() == p


def test_degree_200_chebyshev_round_trip() -> None:
    cs = [fmpq((-1) ** n * (n * n + 1), n + 3) for n in range(201)]
    p = ChebyshevPoly(cs, domain=("-1/3", "5/2"))
    m = p.to_monomial()
    assert m.degree == 200
    assert m.to_chebyshev(domain=p.domain) == p
    assert m.to_bernstein(domain=p.domain).to_chebyshev() == p


# --------------------------------------------------------------------------- evaluation


@pytest.mark.parametrize("basis", ALGEBRAIC)
@SETTINGS
@given(cs=coeff_lists, dom=domains(), dom2=domains(), x=rationals)
def test_same_function_agrees_exactly(basis: str, cs: list, dom: tuple, dom2: tuple, x) -> None:
    p = make(basis, cs, dom)
    reference = fmpq_poly(list(p.to_monomial().coeffs))(x)  # FLINT's own evaluation
    assert p(x) == reference
    for q in (p.to_chebyshev(domain=dom2), p.to_bernstein(k=max(p.degree, 0) + 2, domain=dom2)):
        assert q(x) == reference


@pytest.mark.parametrize("basis", BASES)
@SETTINGS
@given(a=coeff_lists, b=coeff_lists, dom=domains(), x=rationals, theta=rationals)
def test_homomorphisms(basis: str, a: list, b: list, dom: tuple, x, theta) -> None:
    p = make(basis, a, None if basis == "cosine" else dom)
    q = make(basis, b, None if basis == "cosine" else dom)
    if basis == "cosine":
        t = arb(theta)
        assert (p * q)(t).overlaps(p(t) * q(t))
        assert (p + q)(t).overlaps(p(t) + q(t))
        assert (p * q)(0) == p(0) * q(0)
        return
    assert (p * q)(x) == p(x) * q(x)
    assert (p + q)(x) == p(x) + q(x)
    assert (p - q)(x) == p(x) - q(x)
    assert (-p)(x) == -p(x)
    assert (3 * p)(x) == 3 * p(x) and (p * fmpq(2, 7))(x) == fmpq(2, 7) * p(x)
    assert (p + 5)(x) == p(x) + 5 and (1 - p)(x) == 1 - p(x)
    assert (p**2)(x) == p(x) ** 2


@pytest.mark.parametrize("basis", ALGEBRAIC)
@SETTINGS
@given(cs=coeff_lists, dom=domains(), x=rationals, r=st.integers(1, 4))
def test_arb_containment(basis: str, cs: list, dom: tuple, x, r: int) -> None:
    p = make(basis, cs, dom)
    exact = p(x)
    tiny = p(ball(x, fmpq(1, 10**20)))
    wide = p(ball(x, fmpq(r, 7)))
    assert contains(tiny, exact) and contains(wide, exact)
    # a point inside the wide ball must also be enclosed
    assert contains(wide, p(x + fmpq(r, 8)))


@pytest.mark.parametrize("basis", ALGEBRAIC)
@SETTINGS
@given(cs=coeff_lists, dom=domains(), x=rationals)
def test_arb_series_contains_taylor_coefficients(basis: str, cs: list, dom: tuple, x) -> None:
    p = make(basis, cs, dom)
    n = len(cs) + 2
    s = p(arb_series([arb(x), 1], prec=n))
    assert isinstance(s, arb_series)
    taylor = p.to_monomial().taylor_shift(x).coeffs
    got = s.coeffs()
    for j in range(n):
        expected = taylor[j] if j < len(taylor) else fmpq(0)
        assert contains(got[j], expected) if j < len(got) else expected == 0


@SETTINGS
@given(cs=coeff_lists, theta=rationals)
def test_cosine_arb_and_series(cs: list, theta) -> None:
    p = CosinePoly(cs)
    q = p.to_chebyshev()
    t = arb(theta)
    assert p(t).overlaps(q(t.cos()))
    assert p(ball(theta, fmpq(1, 3))).contains(p(t))
    # series: d/dtheta p = -sum n c_n sin(n theta)
    s = p(arb_series([t, 1], prec=2)).coeffs() + [arb(0), arb(0)]  # zero tail is dropped
    d = sum((-n * c * (t * n).sin() for n, c in enumerate(p.coeffs)), arb(0))
    assert s[1].overlaps(d)


def test_cosine_exact_only_at_zero() -> None:
    p = CosinePoly([1, 2, 3])
    assert p(0) == 6
    with pytest.raises(DomainError, match="to_chebyshev"):
        p(fmpq(1, 2))


# --------------------------------------------------------------------------- identities


@pytest.mark.parametrize("n", [0, 1, 2, 5, 17, 64])
def test_chebyshev_identities(n: int) -> None:
    tn = ChebyshevPoly([0] * n + [1])
    assert tn(1) == 1 and tn(-1) == (-1) ** n
    assert chebyshev_t(n)(1) == 1 and chebyshev_t(n)(-1) == (-1) ** n
    assert tn.to_monomial() == chebyshev_t(n)
    assert tn.degree == n
    for theta in (fmpq(1, 3), fmpq(-7, 5), fmpq(22, 7)):
        t = arb(theta)
        assert tn(t.cos()).overlaps((t * n).cos())
        assert chebyshev_t(n)(t.cos()).overlaps((t * n).cos())


@pytest.mark.parametrize("k", [0, 1, 3, 10])
def test_bernstein_partition_of_unity(k: int) -> None:
    total = sum((bernstein_basis_poly(nu, k) for nu in range(k + 1)), MonomialPoly([0]))
    assert total == MonomialPoly([1])
    ones = BernsteinPoly([1] * (k + 1), domain=(2, 9))
    assert ones.to_monomial() == MonomialPoly([1]) and ones.degree == 0 and ones.k == k
    for nu in range(k + 1):
        unit = BernsteinPoly([1 if i == nu else 0 for i in range(k + 1)])
        assert unit.to_monomial() == bernstein_basis_poly(nu, k)


@pytest.mark.parametrize("basis", ALGEBRAIC)
@SETTINGS
@given(cs=coeff_lists, dom=domains())
def test_derivative_matches_monomial(basis: str, cs: list, dom: tuple) -> None:
    p = make(basis, cs, dom)
    d = p.derivative()
    assert d.basis == p.basis and d.domain == p.domain
    expected = MonomialPoly.from_fmpq_poly(fmpq_poly(list(p.to_monomial().coeffs)).derivative())
    assert d.to_monomial() == expected


def test_cosine_derivative_refused() -> None:
    with pytest.raises(InvalidParameterError, match="sine"):
        CosinePoly([1, 2]).derivative()


@pytest.mark.parametrize("basis", ALGEBRAIC)
@SETTINGS
@given(cs=coeff_lists, dom=domains(), m=rationals)
def test_taylor_shift(basis: str, cs: list, dom: tuple, m) -> None:
    p = make(basis, cs, dom)
    shifted = p.to_monomial().taylor_shift(m)
    for t in (fmpq(0), fmpq(1, 3), fmpq(-5, 2)):
        assert shifted(t) == p(m + t)


def test_degree_and_stripping() -> None:
    assert MonomialPoly([1, 2, 0, 0]).coeffs == (fmpq(1), fmpq(2))
    assert MonomialPoly([0, 0]).degree == -1 and MonomialPoly([0, 0]).coeffs == (fmpq(0),)
    b = BernsteinPoly([2, 2, 2, 0])  # k = 3 kept, trailing zero kept
    assert b.k == 3 and len(b.coeffs) == 4 and b.degree == 3
    assert BernsteinPoly([5, 5, 5]).degree == 0
    assert BernsteinPoly([0, 0]).degree == -1
    assert BernsteinPoly([0, 1, 2]).degree == 1  # s*2 ... linear
    assert BernsteinPoly([1, 1]) == BernsteinPoly([1])  # elevation invariant equality
    assert CosinePoly(["1/2", "1e-3", 0]).coeffs == (fmpq(1, 2), fmpq(1, 1000))


def test_exact_readers_and_json() -> None:
    p = ChebyshevPoly(["3/7", "1e-3", -2], domain=("0.5", 3))
    assert p.coeffs == (fmpq(3, 7), fmpq(1, 1000), fmpq(-2))
    assert p.to_json() == {
        "basis": "chebyshev",
        "domain": ["1/2", "3"],
        "coefficients": ["3/7", "1/1000", "-2"],
    }
    assert p.coefficient_norm() == fmpq(3, 7) + fmpq(1, 1000) + 2
    assert p.max_abs_coefficient() == 2
    assert "ChebyshevPoly" in repr(p)


@pytest.mark.parametrize("basis", BASES)
@SETTINGS
@given(cs=coeff_lists, dom=domains())
def test_json_round_trip(basis: str, cs: list, dom: tuple) -> None:
    p = make(basis, cs, None if basis == "cosine" else dom)
    q = poly_from_json(p.to_json())
    assert type(q) is type(p) and q == p and q.coeffs == p.coeffs and hash(q) == hash(p)


# --------------------------------------------------------------------------- errors


@pytest.mark.parametrize("basis", BASES)
def test_basis_mismatch(basis: str) -> None:
    p = make(basis, [1, 2])
    for other in BASES:
        if other == basis:
            continue
        q = make(other, [1, 2])
        for op in (lambda a, b: a + b, lambda a, b: a - b, lambda a, b: a * b):
            with pytest.raises(BasisMismatchError):
                op(p, q)
        assert p != q
    if basis in ("chebyshev", "bernstein"):
        with pytest.raises(BasisMismatchError, match="domain"):
            p + make(basis, [1, 2], (0, 5))


@pytest.mark.parametrize("basis", BASES)
def test_validation(basis: str) -> None:
    with pytest.raises(InvalidParameterError):
        make(basis, [])
    with pytest.raises(ParameterTypeError, match=r"coeffs\[1\]"):
        make(basis, [1, None])
    with pytest.raises(ParameterTypeError, match=r"coeffs\[2\]"):
        make(basis, [1, 2, [3]])
    with pytest.raises(ParameterTypeError):
        make(basis, "123")
    with pytest.raises(InvalidParameterError, match="coeffs"):
        make(basis, itertools.repeat(1, MAX_DEGREE + 2))
    with pytest.raises(TypeError):
        make(basis, [1]) * 0.5  # no floats in exact arithmetic
    p = make(basis, [1, 2, 4])  # degree 2 in every basis
    with pytest.raises(InvalidParameterError, match="k must be >= 2"):
        p.to_bernstein(k=1)
    with pytest.raises(InvalidParameterError, match="k must be <="):
        p.to_bernstein(k=MAX_DEGREE + 1)
    with pytest.raises(InvalidParameterError, match="basis"):
        p.convert("legendre")
    with pytest.raises(AttributeError):
        p.coeffs = (1,)  # type: ignore[misc]


@pytest.mark.parametrize("cls", [ChebyshevPoly, BernsteinPoly])
def test_domain_validation(cls: type) -> None:
    with pytest.raises(DomainError, match="a < b"):
        cls([1], domain=(1, 1))
    with pytest.raises(DomainError):
        cls([1], domain=("1/2", "1/3"))
    with pytest.raises(ParameterTypeError):
        cls([1], domain=(0, 1, 2))
    with pytest.raises(DomainError):
        affine_map((2, 1), (0, 1))
    alpha, beta = affine_map(("1/3", 2), (-1, 1))
    assert alpha * fmpq(1, 3) + beta == -1 and alpha * 2 + beta == 1
    with pytest.raises(DomainError):
        CosinePoly.from_chebyshev(ChebyshevPoly([1, 2], domain=(0, 1)))


@pytest.mark.parametrize(
    "obj",
    [
        [],
        {"basis": "chebyshev"},
        {"basis": "legendre", "coefficients": ["1"]},
        {"basis": "monomial", "coefficients": []},
        {"basis": "monomial", "coefficients": [0.5]},
        {"basis": "monomial", "coefficients": ["x"]},
        {"basis": "monomial", "domain": ["0", "1"], "coefficients": ["1"]},
        {"basis": "chebyshev", "domain": ["1", "0"], "coefficients": ["1"]},
        {"basis": "chebyshev", "domain": ["1"], "coefficients": ["1"]},
        {"basis": "monomial", "shape": [2, 2], "coefficients": ["1", "2", "3"]},
        {"basis": "cosine", "shape": [1], "coefficients": ["1"]},
        {"basis": "monomial", "shape": "2", "coefficients": ["1", "2"]},
    ],
)
def test_poly_from_json_rejects(obj) -> None:
    with pytest.raises(InvalidParameterError):
        poly_from_json(obj)


# --------------------------------------------------------------------------- tensor


@pytest.mark.parametrize("basis", ALGEBRAIC)
@SETTINGS
@given(a=coeff_lists, b=coeff_lists, d1=domains(), d2=domains(), x1=rationals, x2=rationals)
def test_tensor_separable(basis: str, a: list, b: list, d1, d2, x1, x2) -> None:
    doms = None if basis == "monomial" else [d1, d2]
    pa = make(basis, a, d1)
    pb = make(basis, b, d2)
    a, b = list(pa.coeffs), list(pb.coeffs)  # stripped as the 1-D classes store them
    t = TensorPoly([[ai * bj for bj in b] for ai in a], basis, doms)
    assert t.shape == (len(a), len(b)) and t.d == 2
    assert t(x1, x2) == pa(x1) * pb(x2)
    assert t.to_monomial()(x1, x2) == pa(x1) * pb(x2)
    if pa.degree >= 0 and pb.degree >= 0:
        assert t.degrees == (pa.degree, pb.degree)
    assert t.coefficient_norm() == pa.coefficient_norm() * pb.coefficient_norm()
    # mixed point types: an arb_series in x_1 and an arb ball in x_2
    s = t(arb_series([arb(x1), 1], prec=3), ball(x2, fmpq(1, 10**6)))
    ta = pa.to_monomial().taylor_shift(x1).coeffs
    for j, c in enumerate(s.coeffs()[:3]):
        expected = (ta[j] if j < len(ta) else 0) * pb(x2)
        assert contains(c, expected)
    # Taylor shift of the tensor = product of 1-D shifts
    sh = t.taylor_shift([x1, x2])
    tb = pb.to_monomial().taylor_shift(x2).coeffs
    for i, j in itertools.product(range(len(a)), range(len(b))):
        ei = ta[i] if i < len(ta) else 0
        ej = tb[j] if j < len(tb) else 0
        assert sh.coefficient((i, j)) == ei * ej
    # JSON
    back = poly_from_json(t.to_json())
    assert isinstance(back, TensorPoly) and back == t and back.coeffs == t.coeffs
    assert back.to_json() == t.to_json()


def test_tensor_inputs_and_errors() -> None:
    t = TensorPoly({(0, 0): 1, (2, 1): "1/3"})
    assert t.shape == (3, 2)
    assert t == TensorPoly([[1, 0], [0, 0], [0, "1/3"]])
    assert t(2, 3) == 1 + fmpq(1, 3) * 4 * 3
    t3 = TensorPoly([[[1, 2]], [[3, 4]]], "chebyshev", [(0, 1), None, ("-1/2", 2)])
    assert t3.d == 3 and t3.domains[1] == (fmpq(-1), fmpq(1))
    x = (fmpq(1, 3), fmpq(2, 5), fmpq(-1, 7))
    assert t3(*x) == t3.to_monomial()(*x)
    assert TensorPoly([[0, 0]]).degrees == (-1, -1)
    with pytest.raises(InvalidParameterError, match="rectangular"):
        TensorPoly([[1, 2], [3]])
    with pytest.raises(ParameterTypeError, match=r"coeffs\[1\]\[0\]"):
        TensorPoly([[1, 2], [None, 3]])
    with pytest.raises(InvalidParameterError, match="basis"):
        TensorPoly([[1]], "cosine")
    with pytest.raises(InvalidParameterError, match="None"):
        TensorPoly([[1]], "monomial", [(0, 1), None])
    with pytest.raises(DomainError):
        TensorPoly([[1]], "bernstein", [(1, 0), None])
    with pytest.raises(InvalidParameterError, match="one entry per axis"):
        TensorPoly([[1]], "bernstein", [(0, 1)])
    with pytest.raises(InvalidParameterError, match="points"):
        t(1)
    b = TensorPoly([[1, 1], [1, 1]], "bernstein")  # partition of unity in each axis
    assert b == TensorPoly([[1]], "bernstein") and b.degrees == (0, 0)
    assert contains(b(arb(fmpq(1, 3)), 5), 1)


def test_from_fmpq_poly_with_progress_reduces_each_coefficient_the_same_way():
    # the progress path reduces coefficient by coefficient (p[i]); the plain path uses
    # coeffs(): both must give the same lowest-terms fmpq list, and every report counts
    # coefficients up to the total
    P = fmpq_poly([fmpq(i * i + 1, 6 * i + 9) for i in range(300)], 35)
    seen = []
    a = MonomialPoly.from_fmpq_poly(P, progress=lambda s, d, t: seen.append((s, d, t)))
    b = MonomialPoly.from_fmpq_poly(P)
    assert list(a.coeffs) == list(b.coeffs) == P.coeffs()
    assert seen[0] == ("coefficients in lowest terms", 0, 300)
    assert seen[-1] == ("coefficients in lowest terms", 300, 300)
    assert all(0 <= d <= t == 300 for _, d, t in seen)
