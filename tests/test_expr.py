"""Tests of the safe expression language ``dpverify.expr``.

Invariants checked: exact literal reading, precedence, rejection of hostile
input, canonical round trips, and containment (mpmath at 256 bits inside the
arb enclosure; exact values inside arb; numpy close to mpmath).
"""

from __future__ import annotations

import math
from fractions import Fraction

import mpmath
import numpy as np
import pytest
from flint import arb, arb_series, ctx, fmpq
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from dpverify.errors import DomainError, ExpressionError, ParameterTypeError
from dpverify.expr import MAX_DEPTH, Expr, NotAnalytic, parse
from dpverify.numbers import arb_to_fmpq_bounds

# --------------------------------------------------------------------------- helpers


def q_of_float(f: float) -> fmpq:
    n, d = f.as_integer_ratio()
    return fmpq(n, d)


def mp_of_q(q: fmpq) -> mpmath.mpf:
    return mpmath.mpf(int(q.p)) / int(q.q)


def contains_q(ball: arb, q: fmpq) -> bool:
    lo, hi = arb_to_fmpq_bounds(ball)
    return lo <= q <= hi


def overlaps_mp(ball: arb, v: mpmath.mpf) -> bool:
    """``ball`` meets a tiny ball around the 256-bit mpmath value ``v``."""
    s = mpmath.nstr(v, 70, min_fixed=-1, max_fixed=1)
    rad = mpmath.nstr(abs(v) * mpmath.mpf(10) ** -50 + mpmath.mpf(10) ** -60, 5)
    return ball.overlaps(arb(f"{s} +/- {rad}"))


def mp_value(e: Expr, *points: fmpq) -> mpmath.mpf | None:
    """f at exact points in mpmath at 256 bits, or None where undefined/non-real."""
    with mpmath.workprec(256):
        try:
            v = e.eval_mpmath(*[mp_of_q(p) for p in points])
        except (DomainError, ZeroDivisionError, ValueError, OverflowError):
            return None
        if not mpmath.isfinite(v):
            return None
        return +v


# --------------------------------------------------------------------------- literals


@pytest.mark.parametrize(
    "text, value",
    [
        ("0.3", fmpq(3, 10)),
        ("1e-3", fmpq(1, 1000)),
        ("2.5E+4", fmpq(25000)),
        (".5", fmpq(1, 2)),
        ("12", fmpq(12)),
        ("0.1 + 0.2", fmpq(3, 10)),
        ("1e-300", fmpq(1, 10**300)),
    ],
)
def test_literals_are_exact(text: str, value: fmpq) -> None:
    e = parse(text)
    assert e.eval_exact() == value
    assert contains_q(e.eval_arb(), value)


def test_literal_not_via_float() -> None:
    # 0.1 + 0.2 - 0.3 is exactly 0, not the double 5.55e-17
    assert parse("0.1 + 0.2 - 0.3").eval_exact() == 0
    assert parse("x*0.1", ["x"]).eval_exact(10) == 1


# --------------------------------------------------------------------------- precedence


@pytest.mark.parametrize(
    "text, args, value",
    [
        ("-x^2", (3,), -9),
        ("-x**2", (3,), -9),
        ("2^3^2", (), 512),
        ("2**3**2", (), 512),
        ("1/2/2", (), fmpq(1, 4)),
        ("2^-1", (), fmpq(1, 2)),
        ("2^-1^2", (), fmpq(1, 2)),
        ("-2^2", (), -4),
        ("(-2)^2", (), 4),
        ("2*3^2", (), 18),
        ("10-3-2", (), 5),
        ("2*x+1", (5,), 11),
        ("-x*3", (2,), -6),
        ("+x", (7,), 7),
        ("x - (x - 1)", (9,), 1),
        ("2^-x", (2,), fmpq(1, 4)),
        ("abs(-3/4)", (), fmpq(3, 4)),
        ("sqrt(9/4)", (), fmpq(3, 2)),
        ("8^(1/3)", (), 2),
    ],
)
def test_precedence_exact(text: str, args: tuple, value: int | fmpq) -> None:
    e = parse(text, ["x"] if args else [])
    assert e.eval_exact(*args) == value


def test_variables_default_and_explicit() -> None:
    assert parse("y + x1 + x").variables == ("x", "y", "x1")
    assert parse("2").variables == ()
    e = parse("y + 1", ["x", "y"])
    assert e.variables == ("x", "y")
    assert e.eval_exact(100, 2) == 3
    with pytest.raises(ParameterTypeError):
        e.eval_exact(1)


def test_immutable_eq_hash() -> None:
    a, b = parse("x+1"), parse("(x) + 1")
    assert a == b and hash(a) == hash(b)
    assert parse("x+1") != parse("x+2")
    assert parse("x", ["x", "y"]) != parse("x", ["x"])
    with pytest.raises(AttributeError):
        a.text = "y"  # type: ignore[misc]


def test_pickle_round_trip() -> None:
    import pickle

    e = parse("exp(-(x-0.3)^2/0.5) + y", ["y", "x"])
    assert pickle.loads(pickle.dumps(e)) == e


def test_is_polynomial() -> None:
    assert parse("3*x^2 - x/2 + pi").is_polynomial
    assert not parse("1/x").is_polynomial
    assert not parse("exp(x)").is_polynomial
    assert not parse("x^0.5").is_polynomial


# --------------------------------------------------------------------------- hostile input

HOSTILE = [
    ("__import__('os').system('true')", "'__import__'"),
    ("x.__class__", ".__class__"),
    ("exp(x)**10**10", "10000000000"),
    ("x^10001", "10001"),
    ("x^-10001", "-10001"),
    ("lambda: 1", "'lambda'"),
    ("x if x else 1", "'if'"),
    ('"a"', '"a"'),
    ("'a'", "'a'"),
    ("x[0]", "'['"),
    ("nan", "NaN/inf are not numbers"),
    ("inf", "'inf'"),
    ("NaN", "'NaN'"),
    ("-Infinity", "'Infinity'"),
    ("", "empty"),
    ("   ", "empty"),
    ("2x", "'x'"),
    ("2(x+1)", "'('"),
    ("x y", "'y'"),
    ("(x)(y)", "'('"),
    ("((x)", "')'"),
    ("(x))", "')'"),
    ("x +", "end"),
    ("* x", "'*'"),
    ("sin(x, y)", "','"),
    ("x, y", "','"),
    ("exp(x=1)", "'='"),
    ("x == 1", "'=='"),
    ("x < 1", "'<'"),
    ("f(x)", "'f'"),
    ("os", "'os'"),
    ("exp", "'exp'"),
    ("exp x", "'exp'"),
    ("sin()", "')'"),
    ("x // 2", "'/'"),
    ("x % 2", "'%'"),
    ("x @ y", "'@'"),
    ("~x", "'~'"),
    ("x;1", "';'"),
    ("1_000", "'_000'"),
    ("x/0", "zero"),
    ("x/(1-1)", "zero"),
    ("0^-1", "zero"),
    ("1e100001", "1e100001"),
    ("10^10000^2", "100000000"),
    ("(10^5000)^5000", "bits"),
    ("x^(10^5000)", "5001 digits"),
    ("1" * 10_001, "too long"),  # a 5000-digit literal is fine (no int digit limit)
    ("*".join(["1e99999"] * 20), "too large in total"),
]


@pytest.mark.parametrize("text, token", HOSTILE)
def test_hostile_input_rejected(text: str, token: str) -> None:
    with pytest.raises(ExpressionError) as info:
        parse(text, name="--f")
    msg = str(info.value)
    assert "--f" in msg
    assert token in msg


def test_unknown_variable_when_explicit() -> None:
    with pytest.raises(ExpressionError, match="'y'"):
        parse("x + y", ["x"], name="--f")


@pytest.mark.parametrize("bad", ["pi", "exp", "1x", "x.y", "lambda", "nan"])
def test_bad_variable_names(bad: str) -> None:
    with pytest.raises(ExpressionError):
        parse("1", [bad])


def test_non_string_rejected() -> None:
    with pytest.raises(ParameterTypeError):
        parse(1.5)  # type: ignore[arg-type]
    with pytest.raises(ParameterTypeError):
        parse("x", "x")
    with pytest.raises(ParameterTypeError):
        parse("x").eval_arb(0.5)  # a float would lose rigour


def test_too_long() -> None:
    text = "+".join(["x"] * 5001)
    assert len(text) > 10_000
    with pytest.raises(ExpressionError, match="too long"):
        parse(text, name="--f")
    ok = "+".join(["x"] * 4000)  # long but flat: fine
    assert parse(ok).eval_exact(1) == 4000


@pytest.mark.parametrize(
    "text",
    [
        "(" * (MAX_DEPTH + 1) + "x" + ")" * (MAX_DEPTH + 1),
        "exp(" * (MAX_DEPTH + 1) + "x" + ")" * (MAX_DEPTH + 1),
        "x^" * (MAX_DEPTH + 1) + "x",
        "sin(x" + "+sin(x" * (MAX_DEPTH + 1) + ")" * (MAX_DEPTH + 2),
    ],
)
def test_too_deep(text: str) -> None:
    with pytest.raises(ExpressionError, match="nesting deeper than 200"):
        parse(text, name="--f")


def test_depth_limit_boundary_round_trips() -> None:
    e = parse("exp(" * (MAX_DEPTH - 1) + "x" + ")" * (MAX_DEPTH - 1))
    assert parse(e.canonical, e.variables) == e
    assert parse("-" * 301 + "x") == parse("-x")  # repeated signs collapse


# --------------------------------------------------------------------------- random expressions

UNARY = ["exp", "log", "sqrt", "sin", "cos", "tan", "atan", "tanh", "abs", "erf",
         "asin", "acos", "sinh", "cosh", "log1p", "expm1"]  # fmt: skip
SMOOTH_UNARY = ["exp", "sin", "cos", "atan", "tanh", "erf", "sinh", "cosh"]

leaves = st.sampled_from(["x", "x", "x", "0.3", "2", "1/3", "pi", "e", "1e-2"])


def _compound(children: st.SearchStrategy[str], funcs: list[str]) -> st.SearchStrategy[str]:
    return st.one_of(
        st.builds(lambda a, b: f"({a})+({b})", children, children),
        st.builds(lambda a, b: f"({a})-({b})", children, children),
        st.builds(lambda a, b: f"({a})*({b})", children, children),
        st.builds(lambda a, b: f"({a})/({b})", children, children),
        st.builds(lambda a, n: f"({a})^{n}", children, st.integers(-3, 4)),
        st.builds(lambda a: f"-({a})", children),
        st.builds(lambda f, a: f"{f}({a})", st.sampled_from(funcs), children),
        st.builds(lambda a, p: f"abs({a})^{p}", children, st.sampled_from(["0.5", "1.5", "2/3"])),
    )


exprs = st.recursive(leaves, lambda c: _compound(c, UNARY), max_leaves=6)
smooth_exprs = st.recursive(
    leaves.filter(lambda s: s != "1e-2"),
    lambda c: st.one_of(
        st.builds(lambda a, b: f"({a})+({b})", c, c),
        st.builds(lambda a, b: f"({a})*({b})", c, c),
        st.builds(lambda a, n: f"({a})^{n}", c, st.integers(0, 3)),
        st.builds(lambda f, a: f"{f}({a})", st.sampled_from(SMOOTH_UNARY), c),
    ),
    max_leaves=5,
)
rational_exprs = st.recursive(
    st.sampled_from(["x", "x", "0.3", "2", "1/3", "-5"]),
    lambda c: st.one_of(
        st.builds(lambda a, b: f"({a})+({b})", c, c),
        st.builds(lambda a, b: f"({a})-({b})", c, c),
        st.builds(lambda a, b: f"({a})*({b})", c, c),
        st.builds(lambda a, b: f"({a})/({b})", c, c),
        st.builds(lambda a, n: f"({a})^{n}", c, st.integers(-3, 3)),
        st.builds(lambda a: f"abs({a})", c),
    ),
    max_leaves=6,
)

mids = st.floats(-2, 2, allow_nan=False).map(q_of_float)
rads = st.sampled_from([fmpq(0), fmpq(1, 2**40), fmpq(1, 1024), fmpq(1, 16), fmpq(1, 2)])
fracs = st.lists(st.floats(-1, 1, allow_nan=False), min_size=1, max_size=3)


def parse_or_reject(text: str) -> Expr:
    try:
        return parse(text, ["x"])
    except ExpressionError:
        assume(False)  # e.g. a random division by a constant that folds to 0
        raise


@settings(deadline=None, max_examples=300, suppress_health_check=[HealthCheck.too_slow])
@given(exprs)
def test_canonical_round_trip(text: str) -> None:
    e = parse_or_reject(text)
    again = parse(e.canonical, e.variables)
    assert again == e
    assert again.canonical == e.canonical


@settings(deadline=None, max_examples=300, suppress_health_check=[HealthCheck.too_slow])
@given(exprs, mids, rads, fracs)
def test_arb_contains_mpmath(text: str, mid: fmpq, rad: fmpq, us: list[float]) -> None:
    e = parse_or_reject(text)
    ball = arb(mid) if rad == 0 else arb(mid).union(arb(mid - rad)).union(arb(mid + rad))
    # ball is an enclosure of [mid - rad, mid + rad] (union only widens)
    try:
        enc = e.eval_arb(ball)
    except DomainError:
        # legitimate only if the function is undefined somewhere in the ball:
        # check at the midpoint that mpmath agrees it is undefined or the ball is wide
        assume(False)  # nothing to compare against
        return
    assume(enc.is_finite())  # a non-finite ball claims nothing
    for u in [-1.0, 1.0, *us]:
        t = mid + rad * q_of_float(u)
        v = mp_value(e, t)
        if v is None:
            continue  # undefined at t (or overflow): nothing to contain
        assert overlaps_mp(enc, v), (text, t, enc, v)


@settings(deadline=None, max_examples=150, suppress_health_check=[HealthCheck.too_slow])
@given(exprs, st.integers(-150, 150).map(lambda k: fmpq(k, 97)))
def test_series_contains_taylor(text: str, x0: fmpq) -> None:
    # x0 = k/97 keeps a distance from the singular points 0, 3/10, 1/3, ... of the
    # random expressions, where mpmath's numerical differentiation is unreliable
    e = parse_or_reject(text)
    n = 4
    try:
        ser = e.eval_arb(arb_series([arb(x0), 1], prec=n))
    except DomainError:  # includes NotAnalytic
        assume(False)  # series evaluation refused: nothing to compare
        return
    coeffs = ser.coeffs() + [arb(0)] * (n - len(ser.coeffs()))
    assume(all(c.is_finite() for c in coeffs))  # non-finite claims nothing
    refs = []
    for prec in (256, 320):
        with mpmath.workprec(prec):
            try:
                f = lambda t: e.eval_mpmath(t)  # noqa: E731
                refs.append(mpmath.taylor(f, mp_of_q(x0), n - 1))
            except (DomainError, ZeroDivisionError, ValueError):
                assume(False)  # mpmath cannot differentiate here
                return
    taylor = refs[0]
    for t, t2 in zip(taylor, refs[1], strict=True):
        assume(mpmath.isfinite(t))
        # the reference is numerical: use it only where two precisions agree
        assume(abs(t - t2) <= mpmath.mpf(10) ** -55 * (1 + abs(t)))
    for c, t in zip(coeffs, taylor, strict=True):
        assert overlaps_mp(c, t), (text, x0, c, t)


@settings(deadline=None, max_examples=200, suppress_health_check=[HealthCheck.too_slow])
@given(rational_exprs, st.fractions(min_value=-3, max_value=3, max_denominator=50))
def test_exact_agrees_with_arb(text: str, x: Fraction) -> None:
    e = parse_or_reject(text)
    q = fmpq(x.numerator, x.denominator)
    try:
        v = e.eval_exact(q)
    except DomainError:
        # exact division by zero: the ball evaluation must not claim a finite value
        assert not e.eval_arb(arb(q)).is_finite()
        return
    assert v is not None  # rational rules only: always exactly evaluable
    assert contains_q(e.eval_arb(arb(q)), v)


@settings(deadline=None, max_examples=150, suppress_health_check=[HealthCheck.too_slow])
@given(smooth_exprs)
def test_numpy_agrees_with_mpmath(text: str) -> None:
    e = parse(text, ["x"])
    xs = np.linspace(-1.5, 1.5, 13)
    got = e.to_numpy()(xs)
    assert got.shape == xs.shape and got.dtype == np.float64
    with mpmath.workprec(200):
        want = [float(e.eval_mpmath(mpmath.mpf(float(t)))) for t in xs]
    for g, w in zip(got, want, strict=True):
        assume(math.isfinite(w) and abs(w) < 1e100)  # huge values overflow in float64
        assert abs(g - w) <= 1e-12 * max(1.0, abs(w)), (text, g, w)


def test_numpy_broadcasting_and_erf() -> None:
    f = parse("exp(-x^2) + erf(y)").to_numpy()
    out = f(np.zeros((3, 1)), np.linspace(0, 1, 4))
    assert out.shape == (3, 4)
    assert abs(out[0, -1] - (1 + math.erf(1))) < 1e-15
    assert parse("2", ["x"]).to_numpy()(np.zeros(5)).tolist() == [2.0] * 5


# --------------------------------------------------------------------------- domains


def ball(lo: str, hi: str) -> arb:
    return arb(parse(lo).eval_exact()).union(arb(parse(hi).eval_exact()))


@pytest.mark.parametrize("lo, hi", [("0.4", "0.6"), ("0.49", "0.5"), ("0.5", "0.5"), ("-1", "2")])
def test_abs_power_straddling_half(lo: str, hi: str) -> None:
    e = parse("abs(x-1/2)^0.5", ["x"])
    enc = e.eval_arb(ball(lo, hi))
    assert enc.is_finite()
    a, b = parse(lo).eval_exact(), parse(hi).eval_exact()
    for k in range(11):
        t = a + (b - a) * fmpq(k, 10)
        v = mp_value(e, t)
        assert v is not None and overlaps_mp(enc, v)
    # the enclosure is tight: upper bound close to max |x-1/2|^0.5
    m = max(abs(a - fmpq(1, 2)), abs(b - fmpq(1, 2)))
    assert float(enc.upper()) <= math.sqrt(float(m)) * (1 + 1e-7) + 1e-12  # radii have 30 bits


def test_even_power_of_ball_around_zero_is_tight() -> None:
    enc = parse("x^2").eval_arb(arb(0).union(arb(-1)).union(arb(1)))
    assert enc.lower() >= 0 and float(enc.upper()) < 1 + 1e-6


def test_abs_of_ball_containing_zero() -> None:
    enc = parse("abs(x)").eval_arb(arb(-1).union(arb(3)))
    assert enc.lower() >= 0 and 3 <= float(enc.upper()) < 3 + 1e-6


def test_not_analytic_series() -> None:
    at0 = arb_series([arb(0), 1], prec=3)
    for text in ["abs(x)", "sqrt(x)", "log(x)", "x^0.5", "1/x", "x^-2", "asin(x+1)"]:
        with pytest.raises(NotAnalytic):
            parse(text, ["x"]).eval_arb(at0)
    pole = arb_series([arb.pi() / 2, 1], prec=3)
    with pytest.raises(NotAnalytic):
        parse("tan(x)").eval_arb(pole)
    assert issubclass(NotAnalytic, DomainError)
    # analytic away from the singular point
    ser = parse("abs(x)").eval_arb(arb_series([arb(-2), 1], prec=3))
    assert contains_q(ser.coeffs()[1], fmpq(-1))


def test_domain_errors_and_non_finite() -> None:
    neg = arb(-1).union(arb(-fmpq(1, 2)))
    straddle = arb(-fmpq(1, 10)).union(arb(fmpq(1, 10)))
    for text in ["log(x)", "sqrt(x)", "x^0.5", "asin(x - 2)"]:
        with pytest.raises(DomainError):
            parse(text).eval_arb(neg)
    for text in ["log(x)", "sqrt(x)", "x^0.5", "1/x", "x^-1"]:
        assert not parse(text).eval_arb(straddle).is_finite()
    with pytest.raises(DomainError):
        parse("1/x").eval_exact(0)
    with pytest.raises(DomainError):
        parse("sqrt(x)").eval_exact(-1)
    with pytest.raises(DomainError):
        parse("1/x").eval_mpmath(0)


def test_static_nonnegativity_clips() -> None:
    # sqrt(abs(x)) and sqrt(x^2) are defined everywhere: enclosures stay finite
    straddle = arb(-fmpq(1, 10)).union(arb(fmpq(1, 10)))
    assert parse("sqrt(abs(x))").eval_arb(straddle).is_finite()
    assert parse("sqrt(x^2 + x^4)").eval_arb(straddle).is_finite()


def test_mixed_arb_and_series_args() -> None:
    e = parse("x*y + exp(y)")
    s = arb_series([arb(fmpq(1, 3)), 1], prec=4)
    out = e.eval_arb(s, arb(2))
    assert isinstance(out, arb_series) and out.prec == 4
    assert contains_q(out.coeffs()[1], fmpq(2))
    const = parse("pi + x - x", ["x"]).eval_arb(s)
    assert isinstance(const, arb_series)
    assert isinstance(parse("1 + y", ["x", "y"]).eval_arb(s, arb(1)), arb_series)


def test_constants_follow_precision() -> None:
    old = ctx.prec
    try:
        ctx.prec = 300
        enc = parse("pi - 355/113").eval_arb()
        assert enc.rad() < arb(2) ** -290
        with mpmath.workprec(400):
            assert overlaps_mp(enc, mpmath.pi - mpmath.mpf(355) / 113)
    finally:
        ctx.prec = old
