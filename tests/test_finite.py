"""Finite-set certifier (dpverify.certify.finite). Expected maxima computed by hand."""

import mpmath
import pytest
from flint import fmpq

from dpverify.certify.finite import exact_max_error, finite_max_error
from dpverify.errors import InvalidParameterError
from dpverify.exact import ChebyshevPoly, MonomialPoly


@pytest.mark.parametrize(
    "values,poly,expected,argmax",
    [
        # p(x) = x vs (1/2, 0, 3): errors 1/2, 1, 1 -> 1, first at x = 1
        (["1/2", "0", "3"], [0, 1], fmpq(1), 1),
        # p = 0 vs (1/3, 5, 0): errors 1/3, 5, 0 -> 5 at x = 1 (integer after a fraction)
        (["1/3", "5", "0"], [0], fmpq(5), 1),
        # p = 0 vs (7, 1/3, 2/3): the fractional ones must not displace the integer max
        (["7", "1/3", "20/3"], [0], fmpq(7), 0),
        # p(x) = x/3 vs (0, 0, 0): errors 0, 1/3, 2/3
        (["0", "0", "0"], ["0", "1/3"], fmpq(2, 3), 2),
    ],
)
def test_values_targets_by_hand(values, poly, expected, argmax):
    dom = {"kind": "integers", "lo": 0, "hi": 2}
    m, x = exact_max_error(MonomialPoly(poly), {"kind": "values", "values": values}, dom)
    assert m == expected and x == argmax


def test_threshold_and_indicator_by_hand():
    dom = {"kind": "integers", "lo": 0, "hi": 4}
    # p(x) = x/4 vs OR (r = 1): errors 0, 3/4, 1/2, 1/4, 0
    m, x = exact_max_error(MonomialPoly(["0", "1/4"]), {"kind": "threshold", "r": 1}, dom)
    assert (m, x) == (fmpq(3, 4), 1)
    # same polynomial in the Chebyshev basis on (0, 4): p = 1/2 + T_1/2
    m2, _ = exact_max_error(ChebyshevPoly(["1/2", "1/2"], domain=(0, 4)),
                            {"kind": "threshold", "r": 1}, dom)
    assert m2 == m
    # indicator of x == 2: errors 0, 1/4, 1/2, 3/4, 1
    m, x = exact_max_error(MonomialPoly(["0", "1/4"]), {"kind": "indicator", "l": 2}, dom)
    assert (m, x) == (fmpq(1), 4)


def test_rational_points_and_irrational_target():
    dom = {"kind": "points", "points": ["0", "1/2", "1"]}
    # x^2 vs 0: exact, max 1
    m, x = exact_max_error(MonomialPoly([0]), {"kind": "expr", "expr": "x^2"}, dom)
    assert (m, x) == (1, 1)
    # exp(x) - (1 + x): enclosure of e - 2 at x = 1
    r = finite_max_error(MonomialPoly([1, 1]), {"kind": "expr", "expr": "exp(x)"}, dom)
    assert not r.exact
    mpmath.mp.prec = 200
    true = mpmath.e - 2
    lo = mpmath.mpf(int(r.lower.p)) / int(r.lower.q)
    hi = mpmath.mpf(int(r.upper.p)) / int(r.upper.q)
    assert lo <= true <= hi and hi - lo < mpmath.mpf(10) ** -12


def test_bad_domains():
    with pytest.raises(InvalidParameterError):
        exact_max_error(MonomialPoly([0]), {"kind": "threshold", "r": 1},
                        {"kind": "integers", "lo": 3, "hi": 1})
    with pytest.raises(InvalidParameterError):
        exact_max_error(MonomialPoly([0]), {"kind": "values", "values": ["1"]},
                        {"kind": "integers", "lo": 0, "hi": 1})
    with pytest.raises(InvalidParameterError):
        exact_max_error(MonomialPoly([0]), {"kind": "nope"}, {"kind": "integers", "lo": 0, "hi": 1})


# ---------------------------------------------------------------------------- screened path
#
# The screened path (ball screening + exact decision, taken for affine images of T_t) must
# give exactly what plain exact enumeration gives: the maximum and the *first* maximiser.
# The reference below evaluates every point with fmpq_poly arithmetic in the test itself.

from flint import fmpq_poly, fmpz_poly  # noqa: E402
from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from dpverify.certify.finite import affine_chebyshev_form  # noqa: E402
from dpverify.errors import ParameterTypeError  # noqa: E402


def _affine_t(alpha, beta, t, lam, mu) -> fmpq_poly:
    """alpha + beta*T_t(lam*x + mu) expanded by composition (not the ODE used by the code)."""
    return beta * fmpq_poly(fmpz_poly.chebyshev_t(t))(fmpq_poly([mu, lam])) + alpha


def _brute_max(P: fmpq_poly, fvals, points):
    errs = [abs(f - P(x)) for f, x in zip(fvals, points)]
    m = max(errs)
    return m, points[errs.index(m)]


rationals = st.builds(fmpq, st.integers(-40, 40), st.integers(1, 12))
nonzero = rationals.filter(lambda q: q != 0)


@settings(deadline=None, max_examples=40)
@given(alpha=rationals, beta=nonzero, t=st.integers(3, 30), lam=nonzero, mu=rationals)
def test_affine_chebyshev_form_recovers_the_form(alpha, beta, t, lam, mu):
    P = _affine_t(alpha, beta, t, lam, mu)
    form = affine_chebyshev_form(MonomialPoly.from_fmpq_poly(P))
    assert form is not None
    a2, b2, t2, l2, m2 = form
    assert t2 == t and l2 > 0 and _affine_t(a2, b2, t2, l2, m2) == P
    # T_t(-y) = (-1)^t T_t(y): the normalised lam > 0 form is the given one up to sign
    assert l2 == abs(lam) and m2 == (mu if lam > 0 else -mu)


@settings(deadline=None, max_examples=30)
@given(beta=nonzero, t=st.integers(4, 30), lam=nonzero, mu=rationals, j=st.integers(1, 100),
       eps=nonzero)
def test_affine_chebyshev_form_rejects_perturbations(beta, t, lam, mu, j, eps):
    # changing a coefficient of x^j, 1 <= j <= t-3, keeps the three leading coefficients
    # (hence lam, mu, beta) but the result is no longer alpha + beta*T_t(...)
    j = 1 + j % (t - 3)
    P = _affine_t(fmpq(0), beta, t, lam, mu) + fmpq_poly([0] * j + [eps])
    assert affine_chebyshev_form(P) is None


def test_affine_chebyshev_form_small_and_bad():
    assert affine_chebyshev_form(fmpq_poly([1, 0, 1])) is None  # degree < 3: not identifiable
    # 1 + T_3(x) = 1 - 3x + 4x^3 (by hand)
    assert affine_chebyshev_form(fmpq_poly([1, -3, 0, 4])) == (1, 1, 3, 1, 0)
    assert affine_chebyshev_form(fmpq_poly([0, 0, 0, 1])) is None  # x^3: lam^2 not > 0
    with pytest.raises(ParameterTypeError, match="poly"):
        affine_chebyshev_form([1, 2, 3])


@settings(deadline=None, max_examples=15)
@given(alpha=rationals, beta=nonzero, t=st.integers(16, 40), lam=nonzero, mu=rationals,
       n=st.integers(64, 120), seed=st.integers(0, 10**6))
def test_screened_path_equals_enumeration(alpha, beta, t, lam, mu, n, seed):
    import random

    rng = random.Random(seed)
    P = _affine_t(alpha, beta, t, lam, mu)
    lo = rng.randint(-n, 0)
    points = [fmpq(x) for x in range(lo, lo + n)]
    # targets: P itself plus small exact offsets, some tied, so maxima may be shared
    fvals = [P(x) + fmpq(rng.choice([-3, -2, -1, 0, 1, 2, 3]), 7) for x in points]
    dom = {"kind": "integers", "lo": lo, "hi": lo + n - 1}
    res = finite_max_error(MonomialPoly.from_fmpq_poly(P),
                           {"kind": "values", "values": [str(f) for f in fvals]}, dom)
    assert res.exact and (res.upper, res.witness) == _brute_max(P, fvals, points)


def test_screened_path_or_and_by_hand():
    # Chebyshev OR/AND (thaler2012 Fact 4.2): max error exactly 1/T_t((k+1)/(k-1)), first at
    # x = 1 for OR (x = 0 has error 0) and x = 0 for AND (w = -1); k = 301 odd, so the
    # midpoint u = 0 (|T_t(0)| = 1 for even t) ties as well
    from dpverify.constructions.chebyshev import and_polynomial, or_polynomial

    k = 301
    dom = {"kind": "integers", "lo": 0, "hi": k}
    for gamma in ("1e-3", "1e-8"):
        o = or_polynomial(k, gamma)
        a = and_polynomial(k, gamma)
        t = o.params["t"]
        assert affine_chebyshev_form(o.poly) is not None and t >= 16
        x0 = fmpq(k + 1, k - 1)
        T = [fmpq(1), x0]
        for _ in range(t - 1):
            T.append(2 * x0 * T[-1] - T[-2])
        assert exact_max_error(o.poly, o.target, dom) == (1 / T[t], 1)
        assert exact_max_error(a.poly, a.target, dom) == (1 / T[t], 0)


def test_screened_path_many_ties_and_rational_points():
    # every point ties (target = p + 1/3 exactly): all points survive every screen, the
    # exact pass decides, the first point is the witness
    P = _affine_t(fmpq(1, 2), fmpq(-3, 5), 20, fmpq(2, 299), fmpq(-1))
    pts = [fmpq(i, 3) for i in range(400)]
    vals = [str(P(x) + fmpq(1, 3)) for x in pts]
    res = finite_max_error(MonomialPoly.from_fmpq_poly(P), {"kind": "values", "values": vals},
                           {"kind": "points", "points": [str(x) for x in pts]})
    assert res.exact and res.upper == fmpq(1, 3) and res.witness == 0
