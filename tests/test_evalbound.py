"""Certified binary64 evaluation error (dpverify.certify.evalbound).

The float side is computed two ways that do exactly the analysed operations: pure-Python
float loops written here (Python floats are IEEE binary64, round to nearest, no FMA), and
numpy (``numpy.polynomial.polynomial.polyval`` for Horner, ``dpverify.fast.clenshaw`` for
Clenshaw).  The reference value is the exact rational ``p(x)`` (fmpq) at the binary64
``x``.  Every observed error must be <= the bound; random points, points adversarially
close to roots (where the relative error is largest), subnormal points and endpoints.
"""

from __future__ import annotations

import math
import random
from fractions import Fraction

import numpy as np
import pytest
from flint import arb, ctx, fmpq
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dpverify import cli
from dpverify.certify.evalbound import evalbound, float_error_bound, sup_abs_bound
from dpverify.errors import DomainError, InvalidParameterError, ParameterTypeError
from dpverify.exact import BernsteinPoly, ChebyshevPoly, MonomialPoly
from dpverify.fast.chebyshev import clenshaw as np_clenshaw
from dpverify.numbers import to_fmpq

U = fmpq(1, 2**53)


def q(x: float) -> fmpq:
    return fmpq(*x.as_integer_ratio())


def to_float(v) -> float:
    """The binary64 number nearest to the exact value of ``v``."""
    v = to_fmpq(v)
    return float(Fraction(int(v.p), int(v.q)))


def horner_float(c: list[float], x: float) -> float:
    """q_n = c_n; q_i = fl(fl(x q_{i+1}) + c_i): the analysed operations."""
    acc = c[-1]
    for a in reversed(c[:-1]):
        acc = acc * x + a
    return acc


def clenshaw_float(c: list[float], x: float, dom: tuple[float, float]) -> float:
    """The operations of dpverify.fast.chebyshev.clenshaw, one point, in Python floats."""
    a, b = dom
    t = (2.0 * x - (a + b)) / (b - a)
    if len(c) == 1:
        return c[0]
    b1, b2 = c[-1], 0.0
    for ck in c[-2:0:-1]:
        b1, b2 = 2.0 * t * b1 - b2 + ck, b1
    return t * b1 - b2 + c[0]


def observed(kind: str, coeffs: list, xs: list[float], dom=(-1, 1)) -> fmpq:
    """max |fl(p(x)) - p(x)| over xs (exact), by the Python loop and by numpy."""
    c64 = [to_float(v) for v in coeffs]
    if kind == "monomial":
        P = MonomialPoly(coeffs)
        loop = [horner_float(c64, x) for x in xs]
        vec = np.polynomial.polynomial.polyval(np.array(xs), np.array(c64))
    else:
        P = ChebyshevPoly(coeffs, domain=dom)
        fd = (to_float(dom[0]), to_float(dom[1]))
        loop = [clenshaw_float(c64, x, fd) for x in xs]
        vec = np_clenshaw(np.array(c64), np.array(xs), fd)
    worst = fmpq(0)
    for x, y1, y2 in zip(xs, loop, vec):
        # numpy performs the same operations: identical results
        assert y1 == float(y2), (x, y1, y2)
        worst = max(worst, abs(q(y1) - P(q(x))))
    return worst


def sample(a: float, b: float, n: int, rng: random.Random, roots=()) -> list[float]:
    xs = [rng.uniform(a, b) for _ in range(n)] + [a, b]
    for r in roots:  # adversarial: binary64 neighbours of a root
        x = r
        for _ in range(20):
            if a <= x <= b:
                xs.append(x)
            x = math.nextafter(x, math.inf)
        x = r
        for _ in range(20):
            x = math.nextafter(x, -math.inf)
            if a <= x <= b:
                xs.append(x)
    return xs


CASES = [
    # (basis, coefficients, interval, domain, roots for adversarial points)
    ("monomial", [fmpq(1, math.factorial(i)) for i in range(13)], (-1, 1), None, ()),
    ("monomial", [1, -6, 15, -20, 15, -6, 1], (0, 2), None, (1.0,)),  # (x - 1)^6
    ("monomial", [fmpq(-1, 3), 0, 1], (-1, 1), None, (3 ** -0.5, -(3 ** -0.5))),
    ("monomial", ["0.1", "-0.7", "0.3", "1.9"], ("-0.3", "0.9"), None, ()),
    ("chebyshev", [fmpq((-1) ** i, (i + 1) ** 2) for i in range(25)], (-1, 1), (-1, 1), ()),
    ("chebyshev", [0, 0, 0, 0, 0, 1], (-1, 1), (-1, 1),
     tuple(math.cos((2 * k + 1) * math.pi / 10) for k in range(5))),  # T_5 near its roots
    ("chebyshev", ["0.5", "-0.25", "0.125", "0.3"], (0, 3), (0, 3), ()),
    ("chebyshev", [1, 2, 3], ("1/3", "2/3"), (0, 1), ()),
]


@pytest.mark.parametrize("basis,coeffs,iv,dom,roots", CASES)
def test_observed_error_within_bound(basis, coeffs, iv, dom, roots):
    rng = random.Random(7)
    r = evalbound(coeffs, iv, basis=basis, domain=dom)
    a, b = to_float(r.interval[0]), to_float(r.interval[1])
    # binary64 points inside [A, B] only (the bound is stated for them)
    a = a if q(a) >= r.interval[0] else math.nextafter(a, math.inf)
    b = b if q(b) <= r.interval[1] else math.nextafter(b, -math.inf)
    xs = sample(a, b, 1500, rng, roots)
    obs = observed(basis, coeffs, xs, dom or (-1, 1))
    assert obs <= r.bound, (float(obs), float(r.bound))
    # the benchmark criterion (benchmarks/evalbound_tightness.py): within 100x when the
    # error is not identically 0
    if obs > 0:
        assert r.bound <= 100 * obs, (float(obs), float(r.bound))


def test_hand_cases():
    # fl(fl(x * 1) + 1) for binary64 x in [0, 1]: x * 1 is exact (a power-of-two factor) and
    # x + 1 lies in [1, 2], where half an ulp is 2^-53 = U: by hand the bound is U, and it
    # is attained (x = U: 1 + U is a tie, rounded to the even 1)
    r = evalbound([1, 1], (0, 1))
    assert r.bound == U and r.coefficients == 0
    assert horner_float([1.0, 1.0], 2.0**-53) == 1.0
    gamma2 = 2 * U / (1 - 2 * U)  # Higham's gamma_{2n}, n = 1, times sum |c_i| = 2
    assert gamma2 * 2 <= r.higham <= gamma2 * 2 * (1 + U)
    # a constant is returned as stored: the only error is the coefficient's rounding
    assert evalbound([3], (0, 1)).bound == 0
    r = evalbound(["0.1"], (0, 1))
    d = abs(q(0.1) - fmpq(1, 10))  # bounds are rounded up to 64-bit dyadics
    assert d <= r.bound <= d * (1 + fmpq(1, 2**60))
    # T_0 + T_1 on (-1, 1): t = (2x - 0) / 2 = x exactly, t * 1 exact, t - 0 exact, and
    # t + 1 in [0, 2] rounds by at most U: by hand U again
    r = evalbound([1, 1], (-1, 1), basis="chebyshev")
    assert r.bound == U and r.mapping == 0
    # x^2 on [1/2, 1] by Horner: x * 1 exact, 0 + x exact (zero coefficient), x * x in
    # [1/4, 1] rounds by at most half an ulp of [1/2, 1), 2^-54, and 0 + v is exact
    r = evalbound([0, 0, 1], ("1/2", 1))
    assert r.bound == U / 2


def test_binary64_model_facts():
    # the helpers behind the analysis, against their definitions
    from dpverify.certify.fpformat import BINARY64, ceil_log2, fix_of

    binary64_ceil, binary64_floor = BINARY64.ceil, BINARY64.floor
    half_ulp, is_binary64 = BINARY64.half_ulp, BINARY64.is_member

    assert ceil_log2(fmpq(1)) == 0 and ceil_log2(fmpq(3, 2)) == 1 and ceil_log2(fmpq(1, 3)) == -1
    assert half_ulp(1) == U and half_ulp(-2000) == fmpq(1, 2**1075)
    assert fix_of(fmpq(3, 4)) == -2 and fix_of(fmpq(12)) == 2
    assert is_binary64(q(0.1)) and not is_binary64(fmpq(1, 10))
    assert is_binary64(fmpq(1, 2**1074)) and not is_binary64(fmpq(1, 2**1075))
    for v in (fmpq(1, 10), fmpq(-1, 3), fmpq(7, 3) * fmpq(1, 2**1070)):
        lo, hi = binary64_floor(v), binary64_ceil(v)
        assert is_binary64(lo) and is_binary64(hi) and lo < v < hi
        assert q(math.nextafter(float(lo), math.inf)) == hi  # adjacent binary64 numbers


def test_sharper_than_higham_for_decaying_coefficients():
    # exp Taylor coefficients: the partial sums are much smaller than sum |c_i| X^i
    cs = [q(1 / math.factorial(i)) for i in range(15)]
    r = evalbound(cs, (-1, 1))
    assert r.coefficients == 0
    assert r.bound < r.higham / 5


def test_subnormal_and_tiny_points():
    # x near 0 (subnormal products): the eta terms cover gradual underflow
    cs = [q(1e-300), q(3.0), q(-2.0), q(0.5)]
    r = evalbound(cs, (-1e-300, 1e-300))
    xs = [5e-324 * k for k in range(-50, 51)] + [1e-310, -1e-310, 1e-300, -1e-300]
    assert observed("monomial", cs, xs) <= r.bound


def test_overflow_is_excluded_or_refused():
    with pytest.raises(DomainError, match="overflow"):
        evalbound([1, 0, q(1e300)], (0, 1e10))
    with pytest.raises(DomainError):
        evalbound([1, 1], (0, 2.0**1023))


def test_input_validation():
    with pytest.raises(InvalidParameterError, match="interval"):
        evalbound([1, 2], (1, 0))
    with pytest.raises(InvalidParameterError, match="basis"):
        evalbound([1, 2], (0, 1), basis="bernstein")
    with pytest.raises(InvalidParameterError, match="basis"):
        evalbound(BernsteinPoly([1, 2]), (0, 1))
    with pytest.raises(ParameterTypeError, match="poly"):
        evalbound("1,2", (0, 1))
    with pytest.raises(InvalidParameterError, match="pieces"):
        evalbound([1, 2], (0, 1), pieces=0)
    with pytest.raises(InvalidParameterError, match="no binary64"):
        evalbound([1, 2], ("1/3", fmpq(1, 3) + fmpq(1, 10**30)))


@settings(deadline=None, max_examples=25, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.floats(-4, 4, allow_nan=False, allow_subnormal=False), min_size=1,
                max_size=9),
       st.sampled_from(["monomial", "chebyshev"]), st.integers(0, 2**32))
def test_law_bound_holds_on_random_polynomials(cs, basis, seed):
    coeffs = [q(c) for c in cs]
    r = evalbound(coeffs, (-1, 1), basis=basis)
    xs = sample(-1.0, 1.0, 200, random.Random(seed))
    assert observed(basis, coeffs, xs) <= r.bound


def test_sup_abs_bound_encloses_the_max():
    # sup over [-1, 1] of |x^3 - x/2| is 1/2 at x = +-1 (by hand); the bound must be >= it
    P = MonomialPoly([0, fmpq(-1, 2), 0, 1]).as_fmpq_poly()
    s = sup_abs_bound(P, fmpq(-1), fmpq(1))
    assert fmpq(1, 2) <= s <= fmpq(1, 2) * (1 + fmpq(1, 10))


def test_combined_bound_covers_f_minus_float_p():
    cs = [fmpq(1, math.factorial(i)) for i in range(7)]
    res = float_error_bound("exp(x)", cs, (-1, 1))
    # sup |f - p^| (p^: the binary64 coefficients) plus |fl(p^) - p^|
    assert res.bound == res.supnorm_upper + res.evaluation.evaluation
    c64 = [to_float(c) for c in cs]
    worst = arb(0)
    with ctx.workprec(200):
        for x in np.linspace(-1, 1, 301):
            y = horner_float(c64, float(x))
            worst = max(worst, abs(arb(q(float(x))).exp() - arb(q(y))), key=lambda v: v.mid())
        assert worst < arb(res.bound)


def _run(argv, capsys, monkeypatch):
    monkeypatch.setitem(cli.COMMANDS, "evalbound", ("evalbound_cmd", "evalbound"))
    code = cli.main(argv)
    return code, capsys.readouterr()


def test_cli(capsys, monkeypatch):
    code, cap = _run(["evalbound", "--poly", "1,1,1/2", "--interval", "-1", "1", "--json"],
                     capsys, monkeypatch)
    assert code == 0
    assert '"format": "dpverify-certificate"' in cap.out and '"scheme": "horner"' in cap.out
    code, cap = _run(["evalbound", "--poly", "1,2", "--basis", "chebyshev", "--interval", "0",
                      "1", "--f", "1+2*(2*x-1)"], capsys, monkeypatch)
    assert code == 0 and "|f(x) - fl(p(x))| <=" in cap.out
    code, cap = _run(["evalbound", "--poly", "1,x", "--interval", "0", "1"], capsys,
                     monkeypatch)
    assert code == 2 and "--poly" in cap.err and "Traceback" not in cap.err
    code, cap = _run(["evalbound", "--poly", "1", "--interval", "1", "0"], capsys, monkeypatch)
    assert code == 2 and "--interval" in cap.err


def horner_fma(c: list[float], x: float) -> float:
    """q_i = fl(x q_{i+1} + c_i) with one rounding: the exact value rounded by Fraction's
    correctly rounded conversion (Python 3.11 has no math.fma)."""
    acc = c[-1]
    for a in reversed(c[:-1]):
        acc = float(Fraction(x) * Fraction(acc) + Fraction(a))
    return acc


@pytest.mark.parametrize("coeffs,iv,roots", [
    ([fmpq(1, math.factorial(i)) for i in range(13)], (-1, 1), ()),
    ([1, -6, 15, -20, 15, -6, 1], (0, 2), (1.0,)),
    (["0.1", "-0.7", "0.3", "1.9"], ("-0.3", "0.9"), ()),
])
def test_fused_multiply_add_horner(coeffs, iv, roots):
    r = evalbound(coeffs, iv, fma=True)
    plain = evalbound(coeffs, iv)
    assert r.algorithm == "horner-fma" and r.evaluation <= plain.evaluation
    c64 = [to_float(v) for v in coeffs]
    P = MonomialPoly([q(v) for v in c64])
    a, b = to_float(r.interval[0]), to_float(r.interval[1])
    a = a if q(a) >= r.interval[0] else math.nextafter(a, math.inf)
    b = b if q(b) <= r.interval[1] else math.nextafter(b, -math.inf)
    xs = sample(a, b, 600, random.Random(3), roots)
    worst = max(abs(q(horner_fma(c64, x)) - P(q(x))) for x in xs)
    assert worst <= r.evaluation
    if worst > 0:
        assert r.evaluation <= 100 * worst
    # by hand: fl(x * 1 + 1) on [0, 1] is one rounding of a value in [1, 2]
    assert evalbound([1, 1], (0, 1), fma=True).bound == U
    with pytest.raises(InvalidParameterError, match="fma"):
        evalbound([1, 1], (0, 1), basis="chebyshev", fma=True)


def test_bad_f_rtol_and_timeout_name_the_parameter():
    # checked before any work: a bad f or rtol never costs an evaluation analysis
    for bad in (None, 3, ["exp(x)"]):
        with pytest.raises(ParameterTypeError, match="^f must be an expression of x"):
            float_error_bound(bad, [1, 1], (0, 1))
    from dpverify.expr import parse

    with pytest.raises(InvalidParameterError, match="^f must be a function of x"):
        float_error_bound(parse("exp(y) + x"), [1, 1], (0, 1))
    r = float_error_bound(parse("1 + x"), [1, 1], (0, 1))     # an Expr of x is accepted
    assert r.bound == U
    for bad in ("0", "-1", "abc"):
        with pytest.raises(InvalidParameterError, match="^rtol"):
            float_error_bound("exp(x)", [1, 1], (0, 1), rtol=bad)
    for fn in (lambda t: evalbound([1, 1], (0, 1), timeout=t),
               lambda t: float_error_bound("exp(x)", [1, 1], (0, 1), timeout=t)):
        for bad in (0, -1, "x", float("nan"), True):
            with pytest.raises(InvalidParameterError, match="timeout"):
                fn(bad)
    with pytest.raises(InvalidParameterError, match="^poly must have degree <= 512"):
        evalbound([1] * 514, (0, 1))


def test_timeout_stops_the_bisection_with_a_valid_bound():
    # degree 300: each piece costs ~0.1 s, so 65536 pieces would take hours; a timeout of
    # 0.3 s keeps the pieces analysed so far (a valid bound: checked on sampled points
    # and by the checker) or, if even the first analysis overran, says so
    import time

    from dpverify.errors import TimeLimitExceeded
    from dpverify.verify import verify_document

    rng = random.Random(3)
    cs = [fmpq(rng.randint(-10**6, 10**6), 10**6 * (i + 1) ** 2) for i in range(301)]
    t0 = time.monotonic()
    try:
        r = evalbound(cs, (0, 1), pieces=65536, timeout=0.3)
    except TimeLimitExceeded:
        assert time.monotonic() - t0 < 30
        return
    assert time.monotonic() - t0 < 30   # 1.05 * 0.3 + 0.5 s on a quiet machine
    assert r.stats["stop"] == "timeout" and len(r.pieces) < 65536
    assert observed("monomial", r.float_coefficients, sample(0.0, 1.0, 40, rng)) \
        <= r.evaluation
    assert verify_document(r.certificate().data).status == "holds"


@pytest.mark.parametrize("basis", ["monomial", "chebyshev"])
def test_zero_as_the_only_input(basis):
    # the only binary64 number of [-2^-1080, 2^-1079] is 0 (the smallest positive one is
    # 2^-1074).  Horner: every product with x = 0 is exactly 0 and every sum 0 + c_k is
    # c_k, so by hand the evaluation error is 0.  Clenshaw on (-1, 1): t = 0, the products
    # vanish but c_k - b_(k+2) still rounds.  Either way the checker must accept it
    from dpverify.verify import verify_document

    cs = ["0.1", "-0.7", "0.3", "1.9"]
    r = evalbound(cs, (-fmpq(1, 2**1080), fmpq(1, 2**1079)), basis=basis)
    assert r.stats["float_interval"] == (0, 0)
    if basis == "monomial":
        assert r.evaluation == 0
    else:
        assert observed(basis, r.float_coefficients, [0.0]) <= r.evaluation
    assert verify_document(r.certificate().data).status == "holds"


def test_api_reads_coefficient_lists_in_the_basis_given():
    import dpverify

    r = dpverify.evalbound([1, 1], (-1, 1), basis="chebyshev")     # T_0 + T_1 = 1 + x
    assert r.basis == "chebyshev" and r.bound == U
    r = dpverify.float_error_bound("1 + x", (1, 1), (-1, 1), basis="chebyshev")
    assert r.bound == U
