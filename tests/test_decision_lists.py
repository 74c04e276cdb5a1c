"""Decision lists via h_k (thaler2012 Lemma 4.9, Appendix A).

Independent references: the decision list's own semantics (first true literal wins), a
re-implementation here of Appendix A's p_x formula, and sympy's expansion for the multilinear
form.  Exhaustive over all lists for (k, m) in {(2, 3), (3, 3)} (and (4, 3), (3, 4) slow).
"""

from __future__ import annotations

from itertools import product

import pytest
import sympy as sp
from flint import fmpq

from dpverify.certify import certify
from dpverify.certify.decision_lists import certify_exhaustive, certify_per_term
from dpverify.constructions.decision_lists import (
    DecisionList,
    Term,
    decision_list_polynomial,
    h_polynomial,
)
from dpverify.errors import InvalidParameterError, ParameterTypeError
from dpverify.numbers import parse_fmpq_str
from tests._legacy import flat


def _all_lists(k, m):
    lits = [j for j in range(1, m + 1)] + [-j for j in range(1, m + 1)]
    for seq in product(lits, repeat=k):
        for bits in product((0, 1), repeat=k + 1):
            yield DecisionList(tuple(zip(seq, bits[:k])), bits[k], m)


def _paper_px(h, k, dl, y):
    """Appendix A's p_x written out again: term i has (k - i) + sum_{j<i} (1 - v_j) + v_i."""
    v = [y[abs(lit) - 1] if lit > 0 else 1 - y[abs(lit) - 1] for lit, _ in dl.nodes]
    L = len(v)
    total = fmpq(0)
    for i in range(1, L + 1):
        arg = (k - i) + sum(1 - v[j] for j in range(i - 1)) + v[i - 1]
        assert k - i <= arg <= k
        total += dl.nodes[i - 1][1] * h(arg)
    arg = (k - L) + sum(1 - x for x in v)
    return total + dl.default * h(arg)


@pytest.mark.parametrize("k", [1, 2, 3, 5, 8])
@pytest.mark.parametrize("gamma", ["1/2", "1/10", "1e-4"])
def test_h_k_properties(k, gamma):
    a = h_polynomial(k, gamma)
    g = parse_fmpq_str(gamma)
    h = a.poly
    assert h(k) == 1  # Appendix A item 3, exactly
    assert all(abs(h(z)) <= g / k for z in range(k))  # item 4
    cert = certify(a)
    assert cert.complete and flat(cert)["error"]["exact"]
    assert a.target == {"kind": "indicator", "l": k}


def test_h_k_coefficients_alternate_and_l1_is_one():
    # h_k(z) = T_t(u(k - z))/T_t(a) has all roots real and positive, so its monomial
    # coefficients alternate in sign and their L1 norm is |h_k(-1)| = T_t(-a)/T_t(a) = 1.
    for k, gamma in [(2, "1/10"), (5, "1e-3"), (9, "1e-6")]:
        h = h_polynomial(k, gamma).poly
        cs = h.coeffs
        assert all(cs[i] * cs[i + 1] < 0 for i in range(len(cs) - 1))
        assert h.coefficient_norm() == 1 == abs(h(-1))


def _check_all(k, m, gamma):
    g = parse_fmpq_str(gamma)
    h = h_polynomial(k, gamma).poly
    n = 0
    for dl in _all_lists(k, m):
        dlp = decision_list_polynomial(dl, k, gamma)
        ex = certify_exhaustive(dlp, dl)
        pt = certify_per_term(dlp, dl)
        e = parse_fmpq_str(ex["max_error"])
        assert ex["verified"] and e <= g
        assert pt["verified"] and e <= parse_fmpq_str(pt["bound"]) <= g
        for y in product((0, 1), repeat=m):
            assert dlp.evaluate(y) == _paper_px(h, k, dl, y)
            assert abs(dlp.evaluate(y) - dl(y)) <= e
        n += 1
    return n


def test_exhaustive_all_lists_k2_m3():
    assert _check_all(2, 3, "1/10") == 6**2 * 2**3


def test_exhaustive_all_lists_k3_m3():
    assert _check_all(3, 3, "1/4") == 6**3 * 2**4


@pytest.mark.slow
@pytest.mark.parametrize("k,m", [(4, 3), (3, 4)])
def test_exhaustive_all_lists_slow(k, m):
    assert _check_all(k, m, "1e-3") == (2 * m) ** k * 2 ** (k + 1)


def test_multilinear_against_sympy():
    k, gamma = 3, "1/10"
    dl = DecisionList(((1, 1), (-2, 0), (3, 1)), 1, 3)
    dlp = decision_list_polynomial(dl, k, gamma)
    ys = sp.symbols("y1:4")
    h = dlp.h
    hz = sp.Poly([sp.Rational(int(c.p), int(c.q)) for c in reversed(h.coeffs)], sp.Symbol("z"))
    expr = 0
    for t in dlp.terms:
        if t.bit:
            arg = t.offset + sum(ys[s - 1] if s > 0 else 1 - ys[-s - 1] for s in t.indicators)
            expr += hz.as_expr().subs(sp.Symbol("z"), arg)
    poly = sp.Poly(sp.expand(expr), *ys)
    red: dict = {}
    for mon, c in poly.terms():
        key = frozenset(j + 1 for j, e in enumerate(mon) if e)
        red[key] = red.get(key, 0) + c
    got = {s: sp.Rational(int(c.p), int(c.q)) for s, c in dlp.multilinear().items()}
    assert got == {s: c for s, c in red.items() if c != 0}


def test_per_term_for_large_m_and_short_list():
    # m = 1000 variables: no enumeration; list of length 3 < k = 6 uses offset k - L
    dl = DecisionList(((17, 1), (-999, 0), (500, 1)), 0, 1000)
    dlp = decision_list_polynomial(dl, 6, "1e-3")
    res = certify_per_term(dlp, dl)
    assert res["verified"] and res["structure_ok"]
    assert dlp.terms[-1].offset == 3
    # spot checks against the list's semantics
    for y_on in ([], [17], [999], [500], [999, 500], [17, 999, 500]):
        y = [0] * 1000
        for j in y_on:
            y[j - 1] = 1
        assert abs(dlp.evaluate(y) - dl(y)) <= fmpq(1, 1000)


def test_per_term_rejects_tampered_terms():
    dl = DecisionList(((1, 1), (2, 0)), 1, 2)
    dlp = decision_list_polynomial(dl, 2, "1/10")
    bad_terms = (Term(1, 1, (1,)), Term(0, 1, (-1, 2)), Term(1, 1, (-1, -2)))  # offset 1 != 0
    from dataclasses import replace

    res = certify_per_term(replace(dlp, terms=bad_terms), dl)
    assert not res["verified"] and res["reasons"]


def test_bad_inputs():
    with pytest.raises(InvalidParameterError, match="k must be >= 1"):
        h_polynomial(0, "1/10")
    with pytest.raises(ParameterTypeError, match="k must be an integer"):
        h_polynomial(2.5, "1/10")
    with pytest.raises(InvalidParameterError, match="gamma must be in"):
        h_polynomial(3, "1")
    with pytest.raises(InvalidParameterError, match="length 3 > k = 2"):
        decision_list_polynomial(([(1, 1), (2, 1), (3, 0)], 0), 2, "1/10")
    with pytest.raises(InvalidParameterError, match="literal"):
        DecisionList(((0, 1),), 0, 3)
    with pytest.raises(InvalidParameterError, match="must be 0 or 1"):
        DecisionList(((1, 2),), 0, 3)
    with pytest.raises(InvalidParameterError, match="too large for exhaustive"):
        dl = DecisionList(((1, 1),), 0, 25)
        certify_exhaustive(decision_list_polynomial(dl, 1, "1/10"), dl)


def test_cli_dlist(capsys):
    import json

    from dpverify.cli import main

    assert main(["dlist", "--k", "4", "--gamma", "1e-3", "--json"]) == 0
    data = flat(json.loads(capsys.readouterr().out))
    assert data["verified"] is True
    h = h_polynomial(4, "1e-3").poly
    assert data["coefficients"] == [str(c) if c.q != 1 else str(c.p) for c in h.coeffs]
    assert main(["dlist", "--k", "2.5", "--gamma", "0.1"]) == 2
    assert "--k must be an integer" in capsys.readouterr().err
    assert main(["dlist", "--k", "3", "--gamma", "2"]) == 2
    assert "--gamma" in capsys.readouterr().err


def test_per_term_drops_the_on_term_when_every_bit_is_one():
    # every term has bit 1, so the term that is on (error 0, h_k(k) = 1) is one of the
    # summands: the bound is sum - min, which here equals the exhaustive maximum (found by
    # the helper engineer's exhaustive run: 3/362 for k = 3, gamma = 1/100), below gamma;
    # the plain sum (2/181 > 1/100) would have refused a list that is within gamma.
    dl = DecisionList(((1, 1), (2, 1), (3, 1)), 1, 3)
    dlp = decision_list_polynomial(dl, 3, "1/100")
    pt = certify_per_term(dlp, dl)
    ex = certify_exhaustive(dlp, dl)
    assert pt["verified"] and pt["bound"] == ex["max_error"] == "3/362"
    summed = sum(parse_fmpq_str(e) for e in pt["term_bounds"])
    assert summed == fmpq(2, 181) > fmpq(1, 100)
    # with one bit 0 (the default can be on) nothing may be dropped
    dl0 = DecisionList(((1, 1), (2, 1), (3, 1)), 0, 3)
    dlp0 = decision_list_polynomial(dl0, 3, "1/100")
    b0 = parse_fmpq_str(certify_per_term(dlp0, dl0)["bound"])
    assert b0 == sum(parse_fmpq_str(e) for e in certify_per_term(dlp0, dl0)["term_bounds"][:3])
    assert parse_fmpq_str(certify_exhaustive(dlp0, dl0)["max_error"]) <= b0
