"""The interval/box certifier (dpverify.certify.interval).

Reference values are derived independently: closed forms (e - sum 1/i!), mpmath at 256
bits on dense grids (soundness: the certified upper bound must dominate every sampled
error, the lower bound must not exceed the upper), and hand-built cases (exact zero error,
errors of size 1e-280).
"""

import mpmath
import pytest
from flint import fmpq
from hypothesis import given, settings
from hypothesis import strategies as st

from dpverify.certify import supnorm
from dpverify.errors import DomainError, InvalidParameterError
from dpverify.exact import BernsteinPoly, ChebyshevPoly, MonomialPoly, TensorPoly


def _mp(q):
    return mpmath.mpf(int(q.p)) / int(q.q)


TAYLOR8 = ["1", "1", "1/2", "1/6", "1/24", "1/120", "1/720", "1/5040", "1/40320"]


def test_exp_taylor_matches_closed_form():
    r = supnorm("exp(x)", MonomialPoly(TAYLOR8), [(-1, 1)], rtol="1e-6")
    mpmath.mp.prec = 256
    true = mpmath.e - sum(mpmath.mpf(1) / mpmath.factorial(i) for i in range(9))
    assert _mp(r.lower) <= true <= _mp(r.upper)
    assert r.upper <= r.lower * (1 + fmpq(1, 10**6))
    assert r.converged and r.witness == (fmpq(1),)


def test_tiny_error_1e_280():
    r = supnorm("x^2 + 1e-280*sin(x)", MonomialPoly([0, 0, 1]), [(-1, 1)], rtol="1e-6")
    # sup |1e-280 sin x| on [-1, 1] = 1e-280 sin(1)
    mpmath.mp.prec = 256
    true = mpmath.mpf(10) ** -280 * mpmath.sin(1)
    lo = _mp(r.lower)
    up = _mp(r.upper)
    assert lo <= true <= up and up <= lo * (1 + mpmath.mpf("1e-6"))


def test_error_exactly_zero():
    r = supnorm("x^2 - 1", ChebyshevPoly(["-1/2", 0, "1/2"]), [(-1, 1)])
    assert r.lower == 0 and r.upper == 0 and r.status == "zero"


def test_error_zero_on_half_interval():
    # (x + |x|)/2 - 0 vanishes on [-1, 0] and equals x on [0, 1]
    r = supnorm("(x+abs(x))/2", MonomialPoly([0]), [(-1, 1)], rtol="1e-6")
    assert r.lower <= 1 <= r.upper and r.upper <= 1 + fmpq(1, 10**6)


def test_holder_kink():
    # |x - 1/2|^(1/2) - 1/3 on [0, 1]: maximum 1/sqrt(2) - 1/3 at the ends
    r = supnorm("abs(x-1/2)^0.5", MonomialPoly(["1/3"]), [(0, 1)], rtol="1e-6")
    mpmath.mp.prec = 256
    true = 1 / mpmath.sqrt(2) - mpmath.mpf(1) / 3
    assert _mp(r.lower) <= true <= _mp(r.upper)


def test_bases_agree():
    # the same polynomial in three bases must give enclosures that overlap
    p = MonomialPoly(["1/2", "-1/3", "1/5", "1/7"])
    encl = [
        supnorm("atan(x)", q, [(0, 1)], rtol="1e-8")
        for q in (p, p.to_chebyshev(domain=(0, 1)), p.to_bernstein(domain=(0, 1)))
    ]
    lo = max(e.lower for e in encl)
    hi = min(e.upper for e in encl)
    assert lo <= hi


def test_claim_proven_and_refuted():
    p = MonomialPoly(TAYLOR8)
    assert supnorm("exp(x)", p, [(-1, 1)], claim="1e-5").status == "claim proven"
    assert supnorm("exp(x)", p, [(-1, 1)], claim="1e-6").status == "claim refuted"


def test_box_2d_separable():
    # e(x, y) = (exp(x) - T8(x)) * 1 on a box: the sup is the 1-D value
    coeffs = [[c] for c in TAYLOR8]
    p = TensorPoly(coeffs, "monomial", (None, None))
    r = supnorm("exp(x) + 0*y", p, [(-1, 1), (0, 1)], rtol="1e-4")
    mpmath.mp.prec = 256
    true = mpmath.e - sum(mpmath.mpf(1) / mpmath.factorial(i) for i in range(9))
    assert _mp(r.lower) <= true <= _mp(r.upper)
    assert r.converged


def test_input_validation():
    p = MonomialPoly([1])
    with pytest.raises(DomainError):
        supnorm("x", p, [(1, 0)])
    with pytest.raises(InvalidParameterError):
        supnorm("x", p, [(0, 1)], rtol="-1")
    with pytest.raises(InvalidParameterError):
        supnorm("x*y", p, [(0, 1)])
    with pytest.raises(DomainError):
        supnorm("log(x)", p, [(-2, -1)])


# --- soundness (hypothesis): certified upper >= sampled error at 256 bits --------------
FUNCS = [
    "exp(x)",
    "sin(3*x)",
    "atan(2*x)",
    "1/(1+x^2)",
    "cos(x)*exp(-x^2)",
    "tanh(x)",
    "erf(x)",
    "sqrt(2+x)",
    "log(3+x)",
    "abs(x-1/3)",
]


@settings(deadline=None, max_examples=12)
@given(
    f=st.sampled_from(FUNCS),
    coeffs=st.lists(
        st.fractions(min_value=-2, max_value=2, max_denominator=50), min_size=1, max_size=7
    ),
    basis=st.sampled_from(["monomial", "chebyshev", "bernstein"]),
)
def test_soundness_against_dense_sampling(f, coeffs, basis):
    cs = [fmpq(c.numerator, c.denominator) for c in coeffs]
    poly = {
        "monomial": lambda: MonomialPoly(cs),
        "chebyshev": lambda: ChebyshevPoly(cs, domain=(-1, 1)),
        "bernstein": lambda: BernsteinPoly(cs, domain=(-1, 1)),
    }[basis]()
    r = supnorm(f, poly, [(-1, 1)], rtol="1e-3")
    assert r.lower <= r.upper
    mono = poly.to_monomial()
    from dpverify.expr import parse

    e = parse(f)
    mpmath.mp.prec = 256
    cm = [_mp(c) for c in mono.coeffs]
    up = _mp(r.upper)
    n = 10_000
    worst = mpmath.mpf(0)
    for i in range(n + 1):
        x = mpmath.mpf(-1) + mpmath.mpf(2 * i) / n
        val = abs(e.eval_mpmath(x) - mpmath.polyval(cm[::-1], x))
        worst = max(worst, val)
    assert worst <= up
    # the lower bound is attained at an actual point: the witness
    (w,) = r.witness
    xw = _mp(w)
    at_w = abs(e.eval_mpmath(xw) - mpmath.polyval(cm[::-1], xw))
    assert _mp(r.lower) <= at_w * (1 + mpmath.mpf(2) ** -200)


@pytest.mark.parametrize("degree", [9, 12, 20, 39])
def test_taylor_orders_beyond_flint_series_cap(degree):
    """python-flint truncates power series at ctx.cap (default 10) terms; the certifier
    must raise the cap (or refuse) rather than read missing terms as zeros.  Reference:
    e - sum_{i<=n} 1/i! (closed form, mpmath at 256 bits)."""
    from math import factorial

    from flint import ctx

    assert ctx.cap == 10  # the library default this test is about
    p = MonomialPoly([fmpq(1, factorial(i)) for i in range(degree + 1)])
    r = supnorm("exp(x)", p, [(-1, 1)], rtol="1e-6")
    mpmath.mp.prec = 256
    true = mpmath.e - sum(mpmath.mpf(1) / mpmath.factorial(i) for i in range(degree + 1))
    assert _mp(r.lower) <= true <= _mp(r.upper)
    assert ctx.cap == 10  # restored
