"""Unit tests of the independent certificate checker ``dpverify.verify``.

Every certificate here is written by hand; the numbers in it are derived by hand or by
an independent computation (sympy / mpmath) stated next to it, never copied from the
output of the code under test.
"""

from __future__ import annotations

import ast
import copy
import json
import pathlib
import subprocess
import sys
from fractions import Fraction

import mpmath
import pytest
import sympy
from hypothesis import given, settings
from hypothesis import strategies as st

from dpverify.verify import (
    Malformed,
    Report,
    main,
    render_json,
    render_text,
    verify_bytes,
    verify_document,
    verify_file,
)

ROOT = pathlib.Path(__file__).resolve().parents[1]


def cert(kind, statement, evidence=None, info=None):
    doc = {"schema_version": 1, "format": "dpverify-certificate", "kind": kind,
           "statement": statement}
    if evidence is not None:
        doc["evidence"] = evidence
    if info is not None:
        doc["info"] = info
    return doc


def mono(coeffs, degree, l1, l1_log2):
    return {"basis": "monomial", "domain": None, "coefficients": coeffs, "degree": degree,
            "coefficient_norm": {"l1": l1, "l1_log2": l1_log2}}


def status(doc, **kw):
    return verify_document(doc, **kw).status


# ---------------------------------------------------------------- p(x) = x, threshold r = 1

def threshold_x():
    # f = [0, 1, 1, 1] on 0..3, p(x) = x: errors |0-0|, |1-1|, |1-2|, |1-3| = 0, 0, 1, 2.
    st_ = {"polynomial": mono(["0", "1"], 1, "1", "0.000000"),
           "target": {"kind": "threshold", "r": 1},
           "domain": {"kind": "integers", "lo": 0, "hi": 3},
           "error": {"lower": "2", "upper": "2", "upper_decimal": "2"}}
    return cert("supnorm-finite", st_, {"witness": "3"}, info={"dpverify_version": "0.1.0"})


def test_threshold_holds_and_report_api():
    doc = threshold_x()
    doc["info"]["long"] = "z" * 500
    r = verify_document(doc)
    assert r.not_checked[1].startswith("info.long: zzz") and len(r.not_checked[1]) <= 100
    del doc["info"]["long"]
    r = verify_document(doc)
    text = render_text(r, "c.json")
    assert text.splitlines()[-1] == "HOLDS" and "not checked" in text
    assert isinstance(r, Report) and r.status == "holds" and r.ok and r.exit_code == 0
    assert r.failures() == [] and r.kind == "supnorm-finite"
    assert r.not_checked == ["info.dpverify_version: 0.1.0"]
    assert any("threshold" in line for line in r.statement)


@pytest.mark.parametrize("path, value", [
    (("statement", "error", "upper"), "1"),            # max error is 2 > 1
    (("statement", "error", "lower"), "3"),            # lower > upper and no witness reaches 3
    (("evidence", "witness"), "7"),                    # not a domain point
    (("evidence", "witness"), "1/2"),                  # not an integer
    (("evidence", "witness"), "1"),                    # |f - p| = 0 < 2 there
    (("statement", "polynomial", "degree"), 2),
    (("statement", "polynomial", "coefficient_norm", "l1"), "2"),
    (("statement", "error", "upper_decimal"), "2.0"),  # shows 2 digits: rounding 2 gives 2.0 ok
])
def test_threshold_edits(path, value):
    doc = threshold_x()
    node = doc
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = value
    r = verify_document(doc)
    if value == "2.0":
        assert r.ok  # "2.0" is 2 rounded up to 2 significant digits
    else:
        assert r.status == "fails" and r.exit_code == 1 and r.failures()


def test_threshold_empty_domain_is_malformed():
    doc = threshold_x()
    doc["statement"]["domain"].update(lo=3, hi=2)
    with pytest.raises(Malformed):
        verify_document(doc)


def test_upper_decimal_rounding():
    # 8/3 = 2.6666...: rounded up to 3 digits 2.67, to 2 digits 2.7, to 1 digit 3.
    doc = threshold_x()
    for good in ("2.67", "2.7", "3", "0.267e1"):
        doc["statement"]["error"].update(upper="8/3", upper_decimal=good)
        assert status(doc) == "holds", good
    for bad in ("2.66", "2.670", "2.68", "8/3", "3.0"):
        doc["statement"]["error"]["upper_decimal"] = bad
        assert status(doc) == "fails", bad
    doc["statement"]["error"]["upper_decimal"] = "2.6666666666666666666666666666666666666667"
    assert status(doc) == "holds"


def test_hundred_thousand_digit_rational():
    # with B = 10^100000: lower = (2B - 1)/B < 2 < upper = (2B + 3)/B (strings built by hand,
    # Python's int-to-str conversion refuses such sizes)
    den = "1" + "0" * 100_000
    lower, upper = "1" + "9" * 100_000 + "/" + den, "2" + "0" * 99_999 + "3/" + den
    doc = threshold_x()
    doc["statement"]["error"].update(lower=lower, upper=upper)
    del doc["statement"]["error"]["upper_decimal"]
    assert status(doc) == "holds"


# ---------------------------------------------------------------- or/chebyshev, k = 5

def chebyshev_poly():
    """1 - T_4(u)/T_4(3/2), u = (6 - 2x)/4, computed with sympy (independent of dpverify)."""
    x = sympy.symbols("x")
    u = (6 - 2 * x) / 4
    t4 = sympy.chebyshevt(4, u)
    # T_4(3/2) = 8 (3/2)^4 - 8 (3/2)^2 + 1 = 81/2 - 18 + 1 = 47/2 (by hand)
    assert sympy.chebyshevt(4, sympy.Rational(3, 2)) == sympy.Rational(47, 2)
    # T_3(3/2) = 4 (27/8) - 3 (3/2) = 9 < 10 = 1/gamma <= 47/2, so t = 4
    assert sympy.chebyshevt(3, sympy.Rational(3, 2)) == 9
    p = sympy.Poly(sympy.expand(1 - t4 / sympy.Rational(47, 2)), x)
    return [str(c) for c in reversed(p.all_coeffs())]


def or_cert():
    coeffs = chebyshev_poly()
    assert coeffs == ["0", "84/47", "-50/47", "12/47", "-1/47"]
    # error at x = 1..5 is |T_4(u)|/(47/2) with |T_4| <= 1 and T_4(u(1)) = T_4(1) = 1: 2/47.
    # l1 = (84 + 50 + 12 + 1)/47 = 147/47; log2(147/47) = 1.6450829...
    assert abs(mpmath.log(mpmath.mpf(147) / 47, 2) - mpmath.mpf("1.645083")) < 5e-7
    st_ = {"polynomial": mono(coeffs, 4, "147/47", "1.645083"),
           "target": {"kind": "threshold", "r": 1},
           "domain": {"kind": "integers", "lo": 0, "hi": 5},
           # 2/47 = 0.0425531914893617021276...
           "error": {"lower": "2/47", "upper": "2/47",
                     "upper_decimal": "4.2553191489361702128e-2"},
           "max_error": "1/10",
           "construction": {"name": "or/chebyshev", "params": {"k": 5, "gamma": "1/10"}}}
    return cert("supnorm-finite", st_, {"witness": "1"})


def test_or_chebyshev_holds():
    r = verify_document(or_cert())
    assert r.ok, r.failures()
    assert any(name == "construction polynomial" and ok for name, ok, _ in r.checks)


def test_or_chebyshev_edits():
    def edited(fn):
        doc = or_cert()
        fn(doc["statement"])
        return verify_document(doc)

    r = edited(lambda s: s["construction"]["params"].update(gamma="1/9"))
    assert not r.ok and ("construction max_error", False) in [(n, ok) for n, ok, _ in r.checks]
    assert edited(lambda s: s["construction"]["params"].update(k=6)).status == "fails"

    def coefficient(s):  # 84/47 -> 85/47 and fix the norm to 148/47
        s["polynomial"]["coefficients"][1] = "85/47"
        s["polynomial"]["coefficient_norm"].update(l1="148/47", l1_log2="1.654858")
    r = edited(coefficient)
    assert r.status == "fails"
    assert dict((n, ok) for n, ok, _ in r.checks)["coefficient l1 norm"] is True
    assert edited(lambda s: s["polynomial"].update(degree=5)).status == "fails"
    assert edited(lambda s: s["polynomial"]["coefficient_norm"].update(
        l1_log2="1.645090")).status == "fails"
    assert edited(lambda s: s["polynomial"]["coefficient_norm"].update(
        l1_log2="1.6450830")).status == "holds"
    with pytest.raises(Malformed):  # params must be exactly k and gamma
        edited(lambda s: s["construction"]["params"].update(r=1))
    with pytest.raises(Malformed):
        edited(lambda s: s["construction"].update(name="or/magic"))


def test_chebyshev_basis_polynomial():
    # the same polynomial written in the Chebyshev basis on [0, 5]:
    # u(x) = (6 - 2x)/4 on [0, 5] is not the basis variable (2x - 5)/5, so convert with sympy
    x = sympy.symbols("x")
    p = sum(sympy.Rational(c) * x**i for i, c in enumerate(chebyshev_poly()))
    v = sympy.symbols("v")  # v = (2x - 5)/5  <=>  x = 5 (v + 1)/2
    q = sympy.Poly(sympy.expand(p.subs(x, 5 * (v + 1) / 2)), v)
    cheb = [sympy.Rational(0)] * 5
    rest = q
    for n in range(4, -1, -1):  # peel off leading terms with T_n
        c = rest.coeff_monomial(v**n) / sympy.Poly(sympy.chebyshevt(n, v), v).LC()
        cheb[n] = c
        rest = sympy.Poly(sympy.expand(rest.as_expr() - c * sympy.chebyshevt(n, v)), v)
    doc = or_cert()
    l1 = sum(abs(c) for c in cheb)
    log2 = f"{float(mpmath.log(mpmath.mpf(l1.p) / l1.q, 2)):.6f}"
    doc["statement"]["polynomial"] = {
        "basis": "chebyshev", "domain": ["0", "5"], "coefficients": [str(c) for c in cheb],
        "degree": 4, "coefficient_norm": {"l1": str(l1), "l1_log2": log2}}
    r = verify_document(doc)
    assert r.ok, r.failures()


def test_least_degree():
    # OR on 0..2: f = (0, 1, 1); p(x) = (3x - x^2)/2 interpolates it (error 0).
    # Pinned q(0) = 0, degree <= 1: q = cx; weights (2, -1) at x = 1, 2 satisfy
    # sum w_i (x_i - 0) = 2 - 2 = 0; bound = |2*1 - 1*1| / 3 = 1/3 > max_error = 1/4.
    st_ = {"polynomial": mono(["0", "3/2", "-1/2"], 2, "2", "1.000000"),
           "target": {"kind": "threshold", "r": 1},
           "domain": {"kind": "integers", "lo": 0, "hi": 2},
           "error": {"lower": "0", "upper": "0"}, "max_error": "1/4",
           "least_degree": {"pin": {"x": "0", "value": "0"}}}
    ev = {"witness": "0", "least_degree": {"points": ["1", "2"], "weights": ["2", "-1"],
                                           "bound": "1/3"}}
    doc = cert("supnorm-finite", st_, ev)
    assert status(doc) == "holds"
    bad = copy.deepcopy(doc)
    bad["evidence"]["least_degree"]["bound"] = "1/2"
    assert status(bad) == "fails"
    bad = copy.deepcopy(doc)
    bad["evidence"]["least_degree"]["weights"] = ["1", "-1"]  # moment 1 - 2 != 0
    assert status(bad) == "fails"
    bad = copy.deepcopy(doc)
    bad["statement"]["max_error"] = "1/3"  # the best q reaches exactly 1/3
    assert status(bad) == "fails"
    vac = copy.deepcopy(doc)  # degree 0, pinned to value 1 != 0: no allowed q at all
    vac["statement"]["polynomial"] = mono(["1"], 0, "1", "0.000000")
    vac["statement"]["least_degree"]["pin"] = {"x": "2", "value": "1"}
    vac["statement"]["error"] = {"lower": "1", "upper": "1"}
    vac["evidence"] = {"witness": "0", "least_degree": {"points": [], "weights": [],
                                                        "bound": None}}
    vac["statement"]["max_error"] = "1"
    assert status(vac) == "holds"


def test_values_points_and_expr_targets():
    # f(x) = x^2 on the points -1, 1/2, 3 vs p(x) = x: errors 2, 1/4, 6
    st_ = {"polynomial": mono(["0", "1"], 1, "1", "0.000000"),
           "target": {"kind": "expr", "expr": "x^2", "variables": ["x"]},
           "domain": {"kind": "points", "points": ["-1", "0.5", "3"]},
           "error": {"lower": "6", "upper": "6"}}
    doc = cert("supnorm-finite", st_, {"witness": "3"})
    assert status(doc) == "holds"
    doc["statement"]["target"] = {"kind": "values", "values": ["1", "1/4", "9"]}
    assert status(doc) == "holds"
    # sqrt(x) at x = 0, 1, 2 vs 0: max sqrt(2) irrational; 1.4142 <= sqrt 2 <= 1.4143
    doc = cert("supnorm-finite", {
        "polynomial": mono(["0"], -1, "0", None),
        "target": {"kind": "expr", "expr": "sqrt(x)", "variables": ["x"]},
        "domain": {"kind": "integers", "lo": 0, "hi": 2},
        "error": {"lower": "1.4142", "upper": "1.4143"}}, {"witness": "2"})
    assert status(doc) == "holds"
    doc["statement"]["domain"]["lo"] = -1  # sqrt(-1) is undefined
    assert status(doc) == "fails"


def finite_expr(expr, coeffs, lo=-1, hi=1, upper="0"):
    l1 = sum(abs(Fraction(c)) for c in coeffs)
    st_ = {"polynomial": mono(coeffs, len(coeffs) - 1 if l1 else -1, str(l1), None),
           "target": {"kind": "expr", "expr": expr, "variables": ["x"]},
           "domain": {"kind": "integers", "lo": lo, "hi": hi},
           "error": {"lower": "0", "upper": upper}}
    return cert("supnorm-finite", st_, {"witness": str(lo)})


def test_expression_grammar_and_domains():
    # -x^2 = -(x^2), 2^3^2 = 2^9 = 512, 2^-1 = 1/2, sqrt(4) = 2, exp(0) = 1 (exact):
    # f = -x^2 + 512 - 1/2 + 2 + 1 = 1029/2 - x^2 = p exactly, so the error is 0
    doc = finite_expr("-x^2 + 2^3^2 - 2^-1 + sqrt(4) + exp(0)", ["1029/2", "0", "-1"])
    # l1 = 1029/2 + 1 = 1031/2, log2(1031/2) = 9.0098286...
    doc["statement"]["polynomial"]["coefficient_norm"]["l1_log2"] = "9.009829"
    assert status(doc) == "holds"
    doc["statement"]["target"]["expr"] = "-x**2 + (2**3)**2 + 448 - 1/2 + 2 + 1"  # 64 + 448 = 512
    assert status(doc) == "holds"
    for bad in ("2x", "foo(x)", "x +", "(x", "x)", "sin x", "x @ 2", "nan", "1e100001"):
        doc["statement"]["target"]["expr"] = bad
        with pytest.raises(Malformed):
            verify_document(doc)
    zero = ["0"]
    assert status(finite_expr("x^(1/2) * 0", zero, 0, 2)) == "holds"    # 0^(1/2) = 0
    assert status(finite_expr("(x - x)^(-1)", zero, 0, 2, "9")) == "fails"  # 1/0
    assert status(finite_expr("0^x", zero, 1, 2, "9")) == "fails"        # u = 0, v not constant
    assert status(finite_expr("log(x)", zero, 0, 2, "9")) == "fails"     # log 0
    assert status(finite_expr("acos(x/2)", zero, -2, 2, "4")) == "holds"  # acos(-1) = pi < 4
    assert status(finite_expr("asin(x)", zero, 1, 2, "9")) == "fails"    # asin 2


# ---------------------------------------------------------------- supnorm-box

def pieces(n, a, b, order=12, prec=64):
    a, b = Fraction(a), Fraction(b)
    w = (b - a) / n
    return [[[[str(a + i * w), str(a + (i + 1) * w)]], order, prec] for i in range(n)]


def exp_cert():
    # e^x - T_4(x) on [-1, 1]: the remainder e^xi x^5/120 has the sign of x, and
    # |e^x - T_4(x)| at x = 1 is e - 65/24 = 0.0099484951257119020..., at x = -1 it is
    # 3/8 - 1/e = 0.0071205588... (mpmath, 50 digits); the maximum is at x = 1.
    mpmath.mp.dps = 50
    true = mpmath.e - mpmath.mpf(65) / 24
    lower = mpmath.nstr(true - mpmath.mpf(10) ** -25, 30, min_fixed=-50, max_fixed=50)
    upper = mpmath.nstr(true + mpmath.mpf(10) ** -20, 30, min_fixed=-50, max_fixed=50)
    assert mpmath.mpf(lower) < true < mpmath.mpf(upper)
    st_ = {"polynomial": mono(["1", "1", "1/2", "1/6", "1/24"], 4, "65/24", "1.437405"),
           "target": {"kind": "expr", "expr": "exp(x)", "variables": ["x"]},
           "domain": {"kind": "box", "intervals": [["-1", "1"]]},
           "error": {"lower": lower, "upper": upper}}
    return cert("supnorm-box", st_, {"witness": ["1"], "pieces": pieces(32, -1, 1)}), true


def test_box_exp_holds():
    doc, _ = exp_cert()
    r = verify_document(doc)
    assert r.ok, r.failures()


def test_box_exp_upper_too_small_fails():
    doc, true = exp_cert()
    doc["statement"]["error"]["upper"] = mpmath.nstr(true - mpmath.mpf(10) ** -15, 30)
    doc["statement"]["error"]["lower"] = "0"
    assert status(doc) == "fails"


def test_box_missing_piece_fails():
    doc, _ = exp_cert()
    del doc["evidence"]["pieces"][7]
    r = verify_document(doc)
    assert r.status == "fails" and "cover" in r.reason
    doc, _ = exp_cert()
    doc["evidence"]["pieces"].append(doc["evidence"]["pieces"][3])  # overlap
    assert status(doc) == "fails"


def undefined_cert(expr, ps, upper="1000"):
    st_ = {"polynomial": mono(["0"], -1, "0", None),
           "target": {"kind": "expr", "expr": expr, "variables": ["x"]},
           "domain": {"kind": "box", "intervals": [["-1", "1"]]},
           "error": {"lower": "0", "upper": upper}}
    return cert("supnorm-box", st_, {"witness": ["1"], "pieces": ps})


def test_box_sup_at_an_end_exactly():
    # sqrt(x) on [0, 1] vs p = 0: the sup is sqrt(1) = 1 exactly, at x = 1 (increasing)
    doc = undefined_cert("sqrt(x)", pieces(4, 0, 1), upper="1")
    doc["statement"]["domain"]["intervals"] = [["0", "1"]]
    doc["statement"]["error"]["lower"] = "1"
    assert status(doc) == "holds"
    doc["statement"]["error"].update(lower="0.999", upper="0.9999")
    assert status(doc) == "fails"


@pytest.mark.parametrize("n", [1, 2, 3, 4])
def test_box_sqrt_undefined_fails(n):
    r = verify_document(undefined_cert("sqrt(x)", pieces(n, -1, 1)))
    assert r.status == "fails"


@pytest.mark.parametrize("n", [1, 2, 3, 7])
def test_box_pole_never_holds(n):
    for order in (0, 3, 12):
        r = verify_document(undefined_cert("1/x", pieces(n, -1, 1, order=order), "1000000"))
        assert r.status in ("fails", "undecided")


def test_box_tensor_exact_zero():
    # f = x y and p = x y (monomial tensor, entry (1,1) = 1): the error is 0 everywhere
    poly = {"basis": "monomial", "shape": [2, 2], "domains": [None, None],
            "coefficients": ["0", "0", "0", "1"], "degree": [1, 1],
            "coefficient_norm": {"l1": "1", "l1_log2": "0.000000"}}
    st_ = {"polynomial": poly, "target": {"kind": "expr", "expr": "x*y",
                                           "variables": ["x", "y"]},
           "domain": {"kind": "box", "intervals": [["-1", "1"], ["0", "2"]]},
           "error": {"lower": "0", "upper": "0"}}
    ps = [[[[str(a), str(a + 1)], [str(b), str(b + 1)]], 4, 64] for a in (-1, 0) for b in (0, 1)]
    doc = cert("supnorm-box", st_, {"witness": ["1/3", "1/7"], "pieces": ps})
    assert status(doc) == "holds"
    doc["statement"]["polynomial"]["degree"] = [1, 2]
    assert status(doc) == "fails"


def test_box_tensor_exp():
    # e^{x+y} - (1 + x + y) = g(s), s = x + y in [0, 1], g(s) = e^s - 1 - s, g' = e^s - 1 >= 0:
    # the sup is g(1) = e - 2 = 0.718281828459045... at (1/2, 1/2).
    poly = {"basis": "monomial", "shape": [2, 2], "domains": [None, None],
            "coefficients": ["1", "1", "1", "0"], "degree": [1, 1],
            "coefficient_norm": {"l1": "3", "l1_log2": "1.584963"}}
    st_ = {"polynomial": poly, "target": {"kind": "expr", "expr": "exp(x + y)",
                                           "variables": ["x", "y"]},
           "domain": {"kind": "box", "intervals": [["0", "1/2"], ["0", "1/2"]]},
           "error": {"lower": "0.7182818284", "upper": "0.7182818285"}}
    ps = [[[[str(Fraction(i, 8)), str(Fraction(i + 1, 8))],
            [str(Fraction(j, 8)), str(Fraction(j + 1, 8))]], 12, 64]
          for i in range(4) for j in range(4)]
    doc = cert("supnorm-box", st_, {"witness": ["1/2", "1/2"], "pieces": ps})
    r = verify_document(doc)
    assert r.ok, r.failures()
    doc["statement"]["error"]["upper"] = "0.71828182"
    assert status(doc) == "fails"


def test_box_bernstein_tensor_and_3d():
    # Bernstein tensor, orders (1, 2) on [0, 1] x [0, 2], coefficients c_ij = i * j:
    # sum_j j b_{j,2}(y/2) = 2 (y/2) = y (Bernstein reproduces linear functions), so p = x y.
    poly = {"basis": "bernstein", "shape": [2, 3], "domains": [["0", "1"], ["0", "2"]],
            "coefficients": ["0", "0", "0", "0", "1", "2"], "degree": [1, 1],
            "coefficient_norm": {"l1": "3", "l1_log2": "1.584963"}}
    st_ = {"polynomial": poly, "target": {"kind": "expr", "expr": "x*y", "variables": ["x", "y"]},
           "domain": {"kind": "box", "intervals": [["0", "1"], ["0", "2"]]},
           "error": {"lower": "0", "upper": "0"}}
    doc = cert("supnorm-box", st_, {"witness": ["1/2", "1/2"],
                                    "pieces": [[[["0", "1"], ["0", "2"]], 5, 64]]})
    assert status(doc) == "holds"
    # exp(xyz) - (1 + xyz) = g(s), s = xyz in [0, 1/8], g increasing (g' = e^s - 1 >= 0):
    # max g(1/8) = e^(1/8) - 9/8 = 0.0081484530668... (mpmath)
    assert abs(mpmath.exp(mpmath.mpf(1) / 8) - mpmath.mpf(9) / 8 - mpmath.mpf(
        "0.0081484530668")) < 1e-13
    coef = ["1"] + ["0"] * 6 + ["1"]
    poly = {"basis": "monomial", "shape": [2, 2, 2], "domains": [None] * 3,
            "coefficients": coef, "degree": [1, 1, 1],
            "coefficient_norm": {"l1": "2", "l1_log2": "1.000000"}}
    st_ = {"polynomial": poly,
           "target": {"kind": "expr", "expr": "exp(x*y*z)", "variables": ["x", "y", "z"]},
           "domain": {"kind": "box", "intervals": [["0", "1/2"]] * 3},
           "error": {"lower": "0.00814", "upper": "0.00815"}}
    half = [["0", "1/4"], ["1/4", "1/2"]]
    ps = [[[a, b, c], 8, 64] for a in half for b in half for c in half]
    doc = cert("supnorm-box", st_, {"witness": ["1/2", "1/2", "1/2"], "pieces": ps})
    assert status(doc) == "holds"
    del doc["evidence"]["pieces"][5]
    assert status(doc) == "fails"


def test_box_deadline():
    doc, _ = exp_cert()
    r = verify_document(doc, deadline_seconds=0.0)
    assert r.status == "undecided" and r.reason == "time limit"


# ---------------------------------------------------------------- jackson-kernel

def test_jackson():
    # t = 2, r = 1: t' = 3, F_3 = 3 + 2 (z + 1/z) + (z^2 + z^-2): b = 3, 2, 1 and
    # 2 pi a = 1, 2*2/3, 2*1/3; degree r (t' - 1) = 2 (by hand).
    st_ = {"t": 2, "r": 1, "K": None, "t_prime": 3, "degree": 2,
           "coefficients_2pi": ["1", "4/3", "2/3"]}
    assert status(cert("jackson-kernel", st_)) == "holds"
    assert status(cert("jackson-kernel", st_, {})) == "holds"
    for key, value in (("coefficients_2pi", ["1", "4/3", "1/3"]), ("t_prime", 2),
                       ("degree", 3), ("multipliers", ["1"])):
        assert status(cert("jackson-kernel", {**st_, key: value})) == "fails", key
    # K = 0: r = ceil(3/2) = 2; t = 2: t' = 2, F_2 = 2 + z + 1/z,
    # F_2^2 = 6 + 4 (z + 1/z) + (z^2 + z^-2): b = 6, 4, 1, 2 pi a = 1, 4/3, 1/3.
    # w_n = -sum_{l=1}^{1} (-1)^l C(1, l) A_{ln} = A_n = b_n / b_0 = 1, 2/3, 1/6 (by hand).
    st_ = {"t": 2, "r": 2, "K": 0, "t_prime": 2, "degree": 2,
           "coefficients_2pi": ["1", "4/3", "1/3"], "multipliers": ["1", "2/3", "1/6"]}
    assert status(cert("jackson-kernel", st_)) == "holds"
    assert status(cert("jackson-kernel", {**st_, "multipliers": ["1", "2/3", "1/5"]})) == "fails"
    assert status(cert("jackson-kernel", {**st_, "K": 3})) == "fails"  # r would be 3
    # K = 2: r = ceil(5/2) = 3, t = 3: t' = 2, F_2^3 = (z^-1 + 2 + z)^3 has b = 20, 15, 6, 1;
    # A = 1, 3/4, 3/10, 1/20; w_n = 3 A_n - 3 A_2n + A_3n:
    # w_0 = 1, w_1 = 9/4 - 9/10 + 1/20 = 7/5, w_2 = 9/10, w_3 = 3/20 (by hand).
    st_ = {"t": 3, "r": 3, "K": 2, "t_prime": 2, "degree": 3,
           "coefficients_2pi": ["1", "3/2", "3/5", "1/10"],
           "multipliers": ["1", "7/5", "9/10", "3/20"]}
    assert status(cert("jackson-kernel", st_)) == "holds"
    with pytest.raises(Malformed):
        verify_document(cert("jackson-kernel", {**st_, "r": 65}))


# ---------------------------------------------------------------- lebesgue-constant

def lebesgue_exact(k, h):
    """Lambda_{k,h} with sympy: breakpoints at the roots of every b^(h)_nu, then the
    maximum of the polynomial sum s_nu b^(h)_nu on each sub-interval (exact)."""
    y = sympy.symbols("y")
    b = [sympy.binomial(k, n) * y**n * (1 - y) ** (k - n) for n in range(k + 1)]
    A = sympy.Matrix(k + 1, k + 1, lambda m, n: b[n].subs(y, sympy.Rational(m, k)))
    X = sympy.eye(k + 1) - A
    M = sum((X**j for j in range(h)), sympy.zeros(k + 1, k + 1))
    basis = [sympy.expand(sum(M[m, n] * b[m] for m in range(k + 1))) for n in range(k + 1)]
    cuts = {sympy.Integer(0), sympy.Integer(1)}
    for p in basis:
        cuts |= {r for r in sympy.Poly(p, y).real_roots() if 0 <= r <= 1} if p != 0 else set()
    cuts = sorted(cuts)
    best = sympy.Integer(0)
    for lo, hi in zip(cuts, cuts[1:]):
        mid = (lo + hi) / 2
        u = sum(sympy.sign(p.subs(y, mid)) * p for p in basis)
        cands = [lo, hi] + [r for r in sympy.Poly(sympy.diff(u, y), y).real_roots()
                            if lo <= r <= hi] if sympy.diff(u, y) != 0 else [lo, hi]
        best = max([best] + [sympy.nsimplify(u.subs(y, c)) for c in cands])
    return best, M


def lebesgue_cert(k, h, lower, upper, witness, n=8, basis=None):
    st_ = {"k": k, "h": h, "lower": lower, "upper": upper}
    if basis is not None:
        st_["basis"] = basis
    ps = [[str(Fraction(i, 2 * n)), str(Fraction(i + 1, 2 * n))] for i in range(n)]
    return cert("lebesgue-constant", st_, {"witness": witness, "pieces": ps})


def test_lebesgue_exact_one():
    # h = 1: the Bernstein basis is a nonnegative partition of unity, Lambda = 1.
    # h = 2, k = 1: A = I (b_{nu,1}(mu) = delta), M = I + (I - A) = I: Lambda = 1.
    assert status(lebesgue_cert(3, 1, "1", "1", "1/3")) == "holds"
    assert status(lebesgue_cert(1, 2, "1", "1", "0")) == "holds"
    assert status(lebesgue_cert(1, 2, "1", "0.999", "0")) == "fails"


def test_lebesgue_k2_h2():
    lam, M = lebesgue_exact(2, 2)
    # by hand: b^(2)_2 = y^2 - y(1-y)/2 < 0 on (0, 1/3), there U = 1 + y - 3y^2, max 13/12
    assert lam == sympy.Rational(13, 12)
    basis = [[str(M[m, n]) for m in range(3)] for n in range(3)]
    up = "1.0833334"  # 13/12 = 1.08333333...
    assert status(lebesgue_cert(2, 2, "13/12", up, "1/6", basis=basis)) == "holds"
    assert status(lebesgue_cert(2, 2, "13/12", up, "1/5")) == "fails"   # U(1/5) = 1.08 < 13/12
    assert status(lebesgue_cert(2, 2, "1", "1.08333", "0")) == "fails"  # upper < Lambda
    basis[0][1] = "-1/5"
    assert status(lebesgue_cert(2, 2, "13/12", up, "1/6", basis=basis)) == "fails"
    doc = lebesgue_cert(2, 2, "13/12", up, "1/6")
    del doc["evidence"]["pieces"][2]
    assert status(doc) == "fails"


def test_lebesgue_k3_h3_against_sympy():
    lam, _ = lebesgue_exact(3, 3)
    # U(0) = 1: row 0 of I - A vanishes (b_nu(0) = delta_nu0), so row 0 of M is e_0
    hi = sympy.ceiling(lam * 10**8) / 10**8
    assert status(lebesgue_cert(3, 3, "1", str(hi), "0")) == "holds"
    lo = sympy.floor(lam * 10**8) / 10**8
    assert status(lebesgue_cert(3, 3, "1", str(lo - sympy.Rational(1, 10**6)), "0")) == "fails"


# ---------------------------------------------------------------- malformed input

GOOD = json.dumps(threshold_x())


@pytest.mark.parametrize("data", [
    b"[" * 100_000, b'{"a":' * 70 + b"1" + b"}" * 70, b"[]", b"", b"\xff\xfe\x00",
    GOOD.replace('"r": 1', '"r": 1.0').encode(), GOOD.replace('"r": 1', '"r": NaN').encode(),
    GOOD.replace('"r": 1', '"r": Infinity').encode(),
    GOOD.replace('"r": 1', '"r": ' + "1" + "0" * 100).encode(),
    GOOD.replace('"r": 1', '"r": true').encode(),
    GOOD.replace('"r": 1', '"r": 1, "r": 2').encode(),
    GOOD.replace('"lower": "2"', '"lower": "' + "1" * 10_000_000 + '"').encode(),
    GOOD.replace('"lower": "2"', '"lower": "1/0"').encode(),
    GOOD.replace('"lower": "2"', '"lower": "1e100001"').encode(),
    GOOD.replace('"lower": "2"', '"lower": 2').encode(),
    GOOD.replace('"lower": "2"', '"lower": "\\u0661"').encode(),  # Arabic-Indic digit one
    json.dumps({**threshold_x(), "verified": "false"}).encode(),
    json.dumps({**threshold_x(), "statement": []}).encode(),
    json.dumps({"schema_version": 1, "format": "dpverify-data", "kind": "x"}).encode(),
], ids=["deep", "deep-object", "list", "empty", "not-utf8", "float", "nan", "infinity",
        "huge-int", "bool", "duplicate-key", "10M-char-number", "zero-denominator",
        "big-exponent", "number-as-int", "unicode-digit", "extra-key", "statement-list",
        "data-file"])
def test_malformed(data):
    with pytest.raises(Malformed) as exc:
        verify_bytes(data)
    assert "\n" not in str(exc.value) and len(str(exc.value)) < 400


def test_brackets_inside_strings_do_not_count():
    doc = threshold_x()
    doc["info"]["text"] = "[" * 1000 + '\\"' + "{" * 100
    assert verify_bytes(json.dumps(doc).encode()).ok


def test_malformed_box_order_and_data_message():
    doc, _ = exp_cert()
    doc["evidence"]["pieces"][0][1] = 10**100
    with pytest.raises(Malformed):
        verify_bytes(json.dumps(doc).encode())
    doc["evidence"]["pieces"][0][1] = 10**9
    with pytest.raises(Malformed):
        verify_document(doc)
    with pytest.raises(Malformed, match="this file is data, not a certificate"):
        verify_document({"schema_version": 1, "format": "dpverify-data", "kind": "table"})


JSONISH = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=8)
    | st.sampled_from(["1/3", "0.5", "-2", "1e3", "x", "exp(x)", "monomial", "box"]),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(
        st.sampled_from(["kind", "statement", "evidence", "polynomial", "target", "domain",
                         "error", "lower", "upper", "k", "h", "t", "r", "witness", "pieces",
                         "info", "format", "schema_version", "coefficients"]), inner, max_size=5),
    max_leaves=20)


@settings(deadline=None, max_examples=200)
@given(JSONISH, st.binary(max_size=64), st.sampled_from(
    ["supnorm-finite", "supnorm-box", "jackson-kernel", "lebesgue-constant"]))
def test_fuzz(value, raw, kind):
    for data in (json.dumps(value).encode(), raw, json.dumps(
            {"schema_version": 1, "format": "dpverify-certificate", "kind": kind,
             "statement": value, "evidence": value}).encode()):
        try:
            assert isinstance(verify_bytes(data, deadline_seconds=5), Report)
        except Malformed:
            pass


# ---------------------------------------------------------------- CLI and independence

def test_cli(tmp_path, capsys):
    good = tmp_path / "good.json"
    good.write_text(GOOD)
    assert main([str(good)]) == 0
    assert capsys.readouterr().out.rstrip().endswith("HOLDS")
    bad = tmp_path / "bad.json"
    doc = threshold_x()
    doc["statement"]["error"]["upper"] = "1"
    bad.write_text(json.dumps(doc))
    assert main([str(bad), "--json"]) == 1
    out = json.loads(capsys.readouterr().out)
    assert out["status"] == "fails" and out["not_checked"] == ["info.dpverify_version: 0.1.0"]
    assert out == render_json(verify_document(doc), str(bad))
    with pytest.raises(Malformed, match="missing.json"):
        verify_file(str(tmp_path / "missing.json"))
    assert main([str(tmp_path / "missing.json")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("dpverify verify: error:") and err.count("\n") == 1
    (tmp_path / "deep.json").write_bytes(b"[" * 1000)
    assert main([str(tmp_path / "deep.json")]) == 2
    proc = subprocess.run([sys.executable, "-m", "dpverify.verify", str(bad)],
                          capture_output=True, text=True, cwd=ROOT)
    assert proc.returncode == 1 and proc.stdout.rstrip().splitlines()[-1].startswith(
        "DOES NOT HOLD")


def test_no_dpverify_imports():
    for path in sorted((ROOT / "dpverify" / "verify").glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                names = [("." * node.level) + (node.module or "")]
            else:
                continue
            for name in names:
                assert not name.startswith("dpverify") or name.startswith("dpverify.verify"), \
                    (path.name, name)
                assert name.startswith(".") or name.split(".")[0] in (
                    "flint", "jsonschema") or name.split(".")[0] in sys.stdlib_module_names, \
                    (path.name, name)



def test_import_is_light():
    code = ("import dpverify.verify, sys; print(sorted(m for m in sys.modules "
            "if m.startswith('dpverify') or m.split('.')[0] in ('numpy', 'sympy', 'mpmath')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         cwd=ROOT, check=True).stdout
    mods = ast.literal_eval(out.strip())
    assert all(m == "dpverify" or m.startswith("dpverify.verify") for m in mods), mods


def test_show_renders_ratios_with_their_decimal_value():
    """By hand: 1/3 = 0.333333..., truncated to 6 digits and marked ~; 1/100 is exactly
    1e-2 (no mark); 7 is an integer; a 41-character ratio shows only its decimal."""
    from flint import fmpq

    from dpverify.verify.numbers import show

    assert show(fmpq(1, 3)) == "1/3 (~3.33333e-1)"
    assert show(fmpq(-1, 100)) == "-1/100 (-1e-2)"
    assert show(fmpq(7)) == "7"
    big = fmpq(10**20 + 4, 3 * 10**20)  # (10^20 + 4)/3 = 33333333333333333334.67 (by hand)
    assert show(big) == "~3.3333333333333333334e-1"


def test_data_file_with_floats_is_named_as_data():
    # crosscheck --json holds floats; the verifier names the file kind rather than the
    # first float (a certificate with a float is still refused for the float)
    data = {"schema_version": 1, "format": "dpverify-data", "kind": "crosscheck",
            "worst": 0.03}
    with pytest.raises(Malformed, match="this file is data, not a certificate"):
        verify_bytes(json.dumps(data).encode())
    doc, _ = exp_cert()
    doc["statement"]["lower"] = 0.03
    with pytest.raises(Malformed, match="JSON number"):
        verify_bytes(json.dumps(doc).encode())
