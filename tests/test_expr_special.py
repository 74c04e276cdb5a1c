"""The special functions of the expression language against mpmath at 50 digits.

Every new function's ball contains mpmath's value (computed independently, at 60 digits)
at many points -- near poles, zeros, branch points and singularities included --, its
Taylor series (the jets the certifiers use) contains mpmath's derivatives, in both the
certifier's evaluator (:mod:`dpverify.expr`) and the independent checker's
(:mod:`dpverify.verify.expr`); poles and points outside the domain are refused naming the
point.
"""

from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest
from flint import acb, arb, arb_series, ctx, fmpq

from dpverify.errors import DomainError, ExpressionError
from dpverify.expr import Undefined, parse
from dpverify.verify import expr as vexpr

E = mpmath.mpf(1) / mpmath.e

# (expression, points): the points are exact decimals; near the poles / zeros / branch
# points of each function
CASES = [
    ("gamma(x)", ["3.5", "1e-8", "-2.000000001", "-1.5", "-0.999999999999", "1.4616321449683622",
                  "171.5", "-170.5"]),
    ("lgamma(x)", ["1.000000000001", "2.0000000001", "-2.5", "-0.0000001", "1e-30", "0.5",
                   "1000.25", "-7.9999999"]),
    ("rgamma(x)", ["-3", "-3.0000000001", "0.5", "4", "-0.5"]),
    ("digamma(x)", ["1.4616321449683622", "1.46163214496836", "-0.5", "-2.99999999", "1e-10",
                    "30"]),
    ("besselj(0, x)", ["2.404825557695773", "0", "-5.5", "1e-12", "100.25"]),
    ("besselj(3, x)", ["-2", "0.001", "6.380161895923984", "40"]),
    ("besselj(1/3, x)", ["1e-9", "2.5", "17"]),
    ("bessely(0, x)", ["0.8935769662791675", "1e-10", "3", "50.5"]),
    ("bessely(2, x)", ["0.01", "3.384241767149593", "12"]),
    ("besseli(1, x)", ["-3", "0", "1e-7", "20"]),
    ("besseli(-5/2, x)", ["0.3", "4"]),
    ("besselk(0, x)", ["1e-12", "0.5", "30"]),
    ("besselk(7/3, x)", ["0.01", "2"]),
    ("cbrt(x)", ["-27", "1e-30", "-1e-30", "2", "0.001"]),
    ("asinh(x)", ["-1e-20", "-30", "1e10", "0.5"]),
    ("acosh(x)", ["1.0000000000001", "1", "2", "1e30"]),
    ("atanh(x)", ["0.9999999999999", "-0.9999999999", "1e-25", "0.5"]),
    ("hypot(x, 3/4)", ["1", "-1e-30", "1e20"]),
    ("hypot(x, x^2 - 1)", ["1", "-1", "0.5"]),
    ("pow(x, 1/3)", ["8", "0.001", "2"]),
    ("zeta(x)", ["1.000000000001", "0.999999999999", "-2", "-2.0000001", "-7.5", "3", "0.5"]),
    ("erfinv(x)", ["0.9999999999999999999", "-0.99", "1e-30", "0.5"]),
    ("erfcinv(x)", ["1e-30", "1.9999999999", "1", "0.3"]),
    ("airyai(x)", ["-2.338107410459767", "-10", "5", "0"]),
    ("airybi(x)", ["-1.173713222709127", "-3", "3"]),
    ("lambertw(x)", ["-0.36787944117", "-0.3678794411714423", "0", "1e-20", "1e6", "-0.1"]),
]

_MP = {
    "gamma": mpmath.gamma, "lgamma": lambda x: mpmath.re(mpmath.loggamma(x)),
    "rgamma": mpmath.rgamma, "digamma": mpmath.digamma,
    "cbrt": lambda x: -mpmath.cbrt(-x) if x < 0 else mpmath.cbrt(x),
    "asinh": mpmath.asinh, "acosh": mpmath.acosh, "atanh": mpmath.atanh,
    "zeta": mpmath.zeta, "erfinv": mpmath.erfinv,
    "erfcinv": lambda x: mpmath.erfinv(1 - x),
    "airyai": mpmath.airyai, "airybi": mpmath.airybi,
    "lambertw": lambda x: mpmath.re(mpmath.lambertw(x)),
}


def reference(text: str, x: mpmath.mpf) -> mpmath.mpf:
    """mpmath's value of one of the cases, written out independently of dpverify."""
    name = text[:text.index("(")]
    if name in ("besselj", "bessely", "besseli", "besselk"):
        num, _, den = text[8:text.index(",")].partition("/")
        return getattr(mpmath, name)(mpmath.mpf(int(num)) / int(den or 1), x)
    if name == "hypot":
        other = mpmath.mpf(3) / 4 if "3/4" in text else x**2 - 1
        return mpmath.hypot(x, other)
    if name == "pow":
        return mpmath.cbrt(x)
    return _MP[name](x)


def _q(text: str) -> fmpq:
    from dpverify.numbers import parse_exact
    return parse_exact(text, "x")


def _contains(ball: arb, value: mpmath.mpf) -> bool:
    """``value`` (mpmath at 90 digits) lies in ``ball`` up to 10^-50 relative."""
    with ctx.workprec(320):
        v = arb(mpmath.nstr(value, 80, min_fixed=-math.inf, max_fixed=math.inf))
        slack = arb(10) ** -50 * (1 + abs(v))
        return bool((ball + arb(0, slack.upper())).contains(v))


@pytest.mark.parametrize("text, points", CASES)
def test_enclosure_contains_mpmath_at_50_digits(text, points):
    e = parse(text)
    code = vexpr.parse(e.canonical, ["x"], "t")
    for p in points:
        x = _q(p)
        with mpmath.workdps(90):   # 30 digits more: the conditioning near poles
            X = mpmath.mpf(int(x.p)) / int(x.q)
            want = reference(text, X)
        for prec in (240, 480, 960):   # as the checks do: more bits until tight
            with ctx.workprec(prec):
                mine = e.eval_arb(arb(x))
                theirs = vexpr.run(code, vexpr.IvAlg(), [vexpr.point(x)]).b
                tight = all(b.rad() < arb(10) ** -50 * (1 + abs(b.mid()))
                            for b in (mine, theirs))
            if tight:
                break
        assert tight, (text, p, mine.str(20), theirs.str(20))
        for ball in (mine, theirs):
            assert _contains(ball, want), (text, p, ball.str(30), mpmath.nstr(want, 30))


SERIES_POINTS = {"gamma(x)": "-2.5", "lgamma(x)": "-1.25", "digamma(x)": "-0.5",
                 "besselj(1/3, x)": "2.5", "bessely(0, x)": "3", "besseli(1, x)": "-3",
                 "besselk(7/3, x)": "2", "besselj(0, x)": "0", "erfinv(x)": "0.75",
                 "erfcinv(x)": "0.01", "lambertw(x)": "-0.3", "zeta(x)": "-7.5",
                 "cbrt(x)": "-2", "asinh(x)": "-3", "acosh(x)": "1.5", "atanh(x)": "0.5",
                 "hypot(x, 3/4)": "1", "airyai(x)": "-2", "airybi(x)": "1",
                 "rgamma(x)": "-3"}


@pytest.mark.parametrize("text", sorted(SERIES_POINTS))
def test_series_contain_mpmath_derivatives(text):
    """The jets (arb_series) and the checker's series contain the Taylor coefficients."""
    x = _q(SERIES_POINTS[text])
    e = parse(text)
    code = vexpr.parse(e.canonical, ["x"], "t")
    n = 5
    with mpmath.workdps(60):
        X = mpmath.mpf(int(x.p)) / int(x.q)
        want = mpmath.taylor(lambda t: reference(text, t), X, n - 1)
    old = ctx.cap
    ctx.cap = 40
    try:
        with ctx.workprec(240):
            s = arb_series([arb(x), 1], prec=n)
            mine = e.eval_arb(s).coeffs()
            theirs = vexpr.run(code, vexpr.SerAlg(n), [s]).coeffs()
            # over a ball: every coefficient encloses the one at the centre
            wide = e.eval_arb(arb_series([arb(x, arb(10) ** -6), 1], prec=n)).coeffs()
    finally:
        ctx.cap = old
    for k in range(n):
        for cs in (mine, theirs, wide):
            assert cs[k].is_finite(), (text, k, cs[k])
        assert _contains(mine[k], want[k]) and _contains(theirs[k], want[k]), \
            (text, k, mine[k], theirs[k], mpmath.nstr(want[k], 20))
        assert wide[k].contains(mine[k].mid()), (text, k)


@pytest.mark.parametrize("text, x, words", [
    ("gamma(x)", -2, "gamma has a pole at -2"), ("lgamma(x)", 0, "pole at 0"),
    ("digamma(x)", -1, "pole at -1"), ("zeta(x)", 1, "pole at 1"),
    ("atanh(x)", -1, "pole"), ("erfinv(x)", 1, "pole"), ("erfcinv(x)", 2, "pole"),
    ("acosh(x)", fmpq(1, 2), "undefined"), ("lambertw(x)", fmpq(-1, 2), "-1/e"),
    ("bessely(0, x)", 0, "singularity at x = 0"), ("besselk(1, x)", -1, "undefined"),
    ("besselj(1/3, x)", -1, "undefined"),
])
def test_poles_and_branch_cuts_refused_naming_the_point(text, x, words):
    e = parse(text)
    with pytest.raises(Undefined, match=words.replace("(", r"\(")):
        e.eval_exact(x)
    with pytest.raises(DomainError) as info:
        e.eval_arb(arb(x))
    assert "\n" not in str(info.value)
    # the independent checker: undefined at the point
    code = vexpr.parse(e.canonical, ["x"], "t")
    with pytest.raises(vexpr.Undefined):
        vexpr.run(code, vexpr.IvAlg(), [vexpr.point(fmpq(x))])


def test_a_ball_across_a_pole_has_no_enclosure_and_no_series():
    e = parse("gamma(x)")
    assert not e.eval_arb(arb(-2, 0.1)).is_finite()
    with pytest.raises(DomainError):
        e.eval_arb(arb_series([arb(-2, 0.1), 1], prec=3))
    assert not e.eval_acb(acb(arb(-2, 0.1))).is_finite()
    assert e.eval_acb(acb(arb(2.5, 0.1), arb(0, 0.1))).is_finite()


def test_exact_values():
    assert parse("gamma(x)").eval_exact(6) == 120
    assert parse("rgamma(x)").eval_exact(-4) == 0
    assert parse("zeta(x)").eval_exact(-1) == fmpq(-1, 12)     # -B_2 / 2
    assert parse("zeta(x)").eval_exact(-6) == 0                # a trivial zero
    assert parse("cbrt(x)").eval_exact(fmpq(-8, 27)) == fmpq(-2, 3)
    assert parse("hypot(x, 12)").eval_exact(5) == 13
    assert parse("besseli(0, x)").eval_exact(0) == 1
    assert parse("pow(x, 3/2)").eval_exact(4) == 8


def test_parser_orders_and_arity():
    e = parse("besselj(1/3, x) + hypot(x, y) * pow(x, 2)")
    assert parse(e.canonical, e.variables) == e
    assert "besselj((1/3), x)" in e.canonical and "x ^ 2" in e.canonical
    for bad, words in [("besselj(x, x)", "order of besselj must be an exact number"),
                       ("hypot(x)", "two arguments"), ("gamma(x, 2)", "unexpected ','"),
                       ("besselk(1, 2, x)", "two arguments")]:
        with pytest.raises(ExpressionError, match=words):
            parse(bad)
    with pytest.raises(Exception, match="order of bessely"):
        vexpr.parse("bessely(x, x)", ["x"], "t")


def test_numpy_and_mpmath_evaluators_agree_with_the_balls():
    xs = np.array([0.3, 1.7, 2.5, 7.25])
    for text in ["gamma(x)", "lgamma(x)", "digamma(x)", "besselj(1, x)", "bessely(1/2, x)",
                 "besseli(0, x)", "besselk(2, x)", "cbrt(x - 2)", "asinh(x)", "acosh(x + 1)",
                 "atanh(x / 8)", "hypot(x, 2)", "zeta(x + 2)", "erfinv(x / 8)",
                 "erfcinv(x / 4)", "airyai(x)", "airybi(-x)", "lambertw(x)", "rgamma(x)"]:
        e = parse(text)
        got = e.to_numpy()(xs)
        for x, g in zip(xs.tolist(), got.tolist()):
            ball = e.eval_arb(arb(fmpq(*x.as_integer_ratio())))
            ref = float(ball.mid())
            assert abs(g - ref) <= 1e-12 * max(1.0, abs(ref)), (text, x, g, ref)
            assert abs(float(e.eval_mpmath(fmpq(*x.as_integer_ratio()))) - ref) <= 1e-13 * max(
                1.0, abs(ref)), (text, x)


def test_minimax_and_supnorm_of_special_functions_certify_and_verify(tmp_path, capsys):
    """Every command takes the new functions: a minimax certificate of gamma and of a
    Bessel function, re-checked by the independent verifier; a pole in the interval is
    refused in one line naming it."""
    from dpverify.cli import main

    for f in ("gamma(x)", "besselj(1/3, x) + lgamma(x)"):
        out = tmp_path / "c.json"
        assert main(["minimax", "--f", f, "--degree", "6", "--interval", "1/2", "2",
                     "--out", str(out)]) == 0
        assert main(["verify", str(out)]) == 0
        assert "HOLDS" in capsys.readouterr().out
    assert main(["minimax", "--f", "digamma(x)", "--degree", "4", "--interval", "-2",
                 "-1/2"]) == 2
    err = capsys.readouterr().err
    assert "has a pole at x = -" in err and err.count("\n") == 1


def test_two_variable_jets_agree_between_certifier_and_checker():
    """The checker's multivariate Taylor jets (verify.taylor.JetAlg, the order carried in
    the function's name) and the certifier's (expr.jets) enclose the same coefficients."""
    from dpverify.expr.jets import Jet, jet_eval, multi_indices
    from dpverify.verify.taylor import JetAlg

    text = "besselj(1, x * y) + hypot(x, y) + gamma(x + 3) * cbrt(y + 2)"
    e = parse(text, variables=("x", "y"))
    code = vexpr.parse(e.canonical, ["x", "y"], "t")
    cx, cy = arb(fmpq(1, 3)), arb(fmpq(3, 4))
    with ctx.workprec(200):
        mine = jet_eval(e, [Jet.variable(2, 4, 0, cx), Jet.variable(2, 4, 1, cy)])
        alg = JetAlg(2, 4)
        theirs = vexpr.run(code, alg, [alg.var(0, cx), alg.var(1, cy)])
    by_index = {al: c for al, c in zip(multi_indices(2, 4), mine.c)}
    for k, c in theirs.items():
        assert c.overlaps(by_index[alg.monos[k]]), (alg.monos[k], c, by_index[alg.monos[k]])
