"""Weighted and relative minimax over families of polynomials (dpverify.family,
dpverify.constructions.remez_family, dpverify.certify.annihilator / weights, the verifier's
dpverify.verify.weighted).

Reference values, derived by hand (not by the code under test):

* ``x^n`` (``n`` odd) by the odd powers below ``n`` on ``[-1, 1]``: the error
  ``2^(1-n) T_n`` is odd, so ``E = 2^(1-n)`` (Chebyshev's monic polynomial of least
  deviation is odd); ``x^8`` by the even powers below 8: ``2^-7``.
* ``1 + x^3`` with ``p(0) = 1`` fixed and the powers 1, 2 free: ``x^3 - 3x/4 = T_3/4`` is the
  best cubic-minus-lower-degree error and needs no constant, so ``E = 1/4``.
* Relative error of ``f = 1/(x + 2)`` on ``[-1, 1]`` by polynomials of degree ``n``:
  ``(f - p)/f = 1 - (x + 2) p``, and ``q = (x + 2) p`` ranges over the polynomials of degree
  ``n + 1`` vanishing at ``-2``; the least ``max |1 - q|`` is ``1/|T_{n+1}(-2)|`` (``q =
  1 - T_{n+1}(x)/T_{n+1}(-2)``, which alternates ``n + 2`` times), so ``E = 1/97`` for
  ``n = 3`` (``T_4(2) = 97``).
* Relative error of the best constant to ``exp`` on ``[0, 1]``: ``(e - 1)/(e + 1)``
  (``c = 2 e/(e + 1)`` equalises ``1 - c`` and ``c/e - 1``).
* For an odd ``f``, the best odd polynomial of degree ``2k + 1`` is the best polynomial of
  degree ``2k + 2`` (which is odd): the dense search (a different algorithm) brackets the
  same number.
"""

from __future__ import annotations

import copy
import dataclasses
import json
from fractions import Fraction

import pytest
from flint import arb, ctx, fmpq
from hypothesis import given, settings
from hypothesis import strategies as st

import dpverify
from dpverify import cli
from dpverify.certify.alternation import minimax
from dpverify.certify.annihilator import annihilator
from dpverify.certify.least_degree import approx, family_degrees
from dpverify.certify.weights import prove_sign
from dpverify.constructions.remez import remez
from dpverify.errors import CertificationFailed, InvalidParameterError
from dpverify.expr import parse
from dpverify.family import make_family, parse_fixed, parse_powers
from dpverify.numbers import parse_exact
from dpverify.verify import Malformed, verify_document


def _bracket(cert):
    e = cert.statement["error"]
    return parse_exact(e["lower"]), parse_exact(e["upper"])


def _holds(cert) -> bool:
    return verify_document(json.loads(cert.to_json())).status == "holds"


# ------------------------------------------------------------------ families


def test_family_parsing():
    assert make_family(7, "odd").free == (1, 3, 5, 7)
    assert make_family(6, "even", "0=1").free == (2, 4, 6)
    assert make_family(5, fix={0: 1}).fixed == ((0, fmpq(1)),)
    assert make_family(4).dense and not make_family(4, fix="0=1").dense
    assert parse_powers("1, 3,5", None) == [1, 3, 5]
    assert parse_fixed("0=1,2=1/2") == {0: fmpq(1), 2: fmpq(1, 2)}
    assert make_family(7, [1, 3, 5, 7]).progression() == (1, 2, 3)
    assert make_family(7, [1, 2, 5, 7]).progression() is None
    with pytest.raises(InvalidParameterError, match="largest power"):
        make_family(8, [1, 3, 5, 7])
    with pytest.raises(InvalidParameterError, match="both free"):
        make_family(3, [0, 1, 2, 3], {0: 1})
    with pytest.raises(InvalidParameterError, match="twice"):
        make_family(3, [1, 1, 3])
    with pytest.raises(InvalidParameterError, match="POWER=VALUE"):
        parse_fixed("0:1")
    assert family_degrees("odd", {1: 1}, 9)[0] == [3, 5, 7, 9]


@settings(deadline=None, max_examples=40)
@given(st.lists(st.fractions(min_value=Fraction(1, 100), max_value=10), min_size=3,
                max_size=7, unique=True),
       st.sets(st.integers(0, 9), min_size=1, max_size=6))
def test_annihilator_annihilates(xs, powers):
    """The exact weights annihilate every listed power at the points (a Vandermonde-type
    system of full rank: positive distinct points, Descartes)."""
    powers = sorted(powers)
    pts = sorted(fmpq(x.numerator, x.denominator) for x in xs)[:len(powers) + 1]
    if len(pts) != len(powers) + 1:
        return  # not enough distinct points for this many powers
    lam = annihilator(pts, powers)
    assert any(v != 0 for v in lam)
    for k in powers:
        assert sum(v * x**k for v, x in zip(lam, pts)) == 0
    # on (0, inf) the space is a Haar space: the weights alternate in sign
    assert all(a * b < 0 for a, b in zip(lam, lam[1:]))


# ------------------------------------------------------------------ reference values


@pytest.mark.parametrize("n", [5, 7])
def test_odd_chebyshev(n):
    cert = minimax(f"x^{n}", n - 2, (-1, 1), search=remez, monomials="odd")
    lo, up = _bracket(cert)
    assert lo <= fmpq(1, 2 ** (n - 1)) <= up and up / lo < 1 + fmpq(1, 10**5)
    assert cert.statement["monomials"] == list(range(1, n - 1, 2)) and _holds(cert)


def test_even_chebyshev_and_fixed():
    cert = minimax("x^8", 6, (-1, 1), search=remez, monomials="even")
    lo, up = _bracket(cert)
    assert lo <= fmpq(1, 128) <= up and _holds(cert)
    cert = minimax("1 + x^3", 2, (-1, 1), search=remez, fix={0: 1})
    lo, up = _bracket(cert)
    assert lo <= fmpq(1, 4) <= up and _holds(cert)
    assert cert.statement["fixed"] == [{"power": 0, "value": "1"}]


def test_relative_by_hand():
    cert = minimax("1/(x + 2)", 3, (-1, 1), search=remez, relative=True)
    lo, up = _bracket(cert)
    assert lo <= fmpq(1, 97) <= up and up / lo < 1 + fmpq(1, 10**5)
    assert cert.statement["weight"] == {"kind": "relative"} and _holds(cert)
    cert = minimax("exp(x)", 0, (0, 1), search=remez, relative=True)
    lo, up = _bracket(cert)
    with ctx.workprec(200):
        e = arb.const_e()
        assert arb(lo) <= (e - 1) / (e + 1) <= arb(up)


def test_odd_family_matches_dense_search():
    odd = minimax("sin(x)", 7, (-1, 1), search=remez, monomials="odd")
    dense = minimax("sin(x)", 8, (-1, 1), search=remez)
    (lo1, up1), (lo2, up2) = _bracket(odd), _bracket(dense)
    assert max(lo1, lo2) <= min(up1, up2)  # the same number, bracketed twice


def test_weighted_matches_hand_weight():
    """Weight 2: the weighted error is twice the plain one, and so is E."""
    plain = minimax("exp(x)", 4, (-1, 1), search=remez)
    double = minimax("exp(x)", 4, (-1, 1), search=remez, weight="2")
    (lo1, up1), (lo2, up2) = _bracket(plain), _bracket(double)
    assert max(2 * lo1, lo2) <= min(2 * up1, up2) and _holds(double)


# ------------------------------------------------------------------ refusals


def test_relative_where_f_vanishes_is_refused(capsys):
    with pytest.raises(InvalidParameterError, match=r"f vanishes at x = 0 in \[-1, 1\]"):
        dpverify.minimax("sin(x)", 5, (-1, 1), relative=True)
    assert cli.main(["minimax", "--f", "sin(x - 1/3)", "--degree", "3", "--interval", "0",
                     "1", "--relative"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "f changes sign between x = 0 and x = 1/2" in err[0]


def test_weight_must_be_positive():
    with pytest.raises(InvalidParameterError, match="weight"):
        dpverify.minimax("exp(x)", 3, (-1, 1), weight="x")
    with pytest.raises(InvalidParameterError, match="> 0"):
        prove_sign(parse("x - 2"), fmpq(-1), fmpq(1), what="weight", positive_only=True)


def test_non_progression_and_exclusive_flags(capsys):
    with pytest.raises(InvalidParameterError, match="arithmetic progression"):
        dpverify.minimax("sin(x)", 7, (-1, 1), monomials=[1, 2, 5, 7])
    assert cli.main(["minimax", "--f", "exp(x)", "--degree", "3", "--interval", "-1", "1",
                     "--relative", "--weight", "2"]) == 2
    assert "exclude each other" in capsys.readouterr().err


# ------------------------------------------------------------------ least degree


def test_approx_family_least_degree():
    cert = approx("cos(x)", (-1, 1), "1e-6", search=remez, monomials="even", fix={0: 1})
    n = cert.statement["degree"]
    assert n % 2 == 0 and "least_degree" in cert.statement and _holds(cert)
    # the next lower degree of the family really is above gamma (the dense search at that
    # degree, without the fixed coefficient, can only do better)
    lo, _ = _bracket(minimax("cos(x)", n - 2, (-1, 1), search=remez))
    assert lo > 0
    rel = approx("exp(x)", (-1, 1), "1e-10", search=remez, relative=True)
    assert "least_degree" in rel.statement and _holds(rel)


def test_approx_refuses_a_list_of_powers():
    with pytest.raises(InvalidParameterError, match="'odd' or 'even'"):
        approx("sin(x)", (-1, 1), "1e-6", search=remez, monomials=[1, 3, 5])


# ------------------------------------------------------------------ the verifier


@pytest.fixture(scope="module")
def fixed_cert():
    return minimax("exp(x)", 6, ("-1/4", "1/4"), search=remez, relative=True, fix={0: 1}).data


def _status(doc) -> tuple[str, list]:
    r = verify_document(doc)
    return r.status, [c for c in r.checks if c[1] is not True]


def test_verifier_holds_and_refutes(fixed_cert):
    assert _status(fixed_cert)[0] == "holds"
    forged = copy.deepcopy(fixed_cert)
    forged["evidence"]["annihilator"][2] = str(int(forged["evidence"]["annihilator"][2]) + 1)
    status, bad = _status(forged)
    assert status == "fails" and "annihilate" in bad[0][2]
    forged = copy.deepcopy(fixed_cert)
    forged["statement"]["fixed"][0]["value"] = "2"
    status, bad = _status(forged)
    assert status == "fails" and "fixed to" in bad[0][2]
    forged = copy.deepcopy(fixed_cert)
    forged["statement"]["monomials"] = forged["statement"]["monomials"][1:]
    with pytest.raises(Malformed, match="evidence.alternation"):
        verify_document(forged)


def test_verifier_pieces_catch_a_worse_polynomial(fixed_cert):
    """The polynomial moved by half its error at x^1 (still in the family); lower set to 0
    so that only the upper bound can fail."""
    from dpverify.certify.claims import polynomial_statement
    from dpverify.exact import MonomialPoly

    forged = copy.deepcopy(fixed_cert)
    cs = [parse_exact(c) for c in forged["statement"]["polynomial"]["coefficients"]]
    lo = parse_exact(forged["statement"]["error"]["lower"])
    cs[1] += 8 * lo
    forged["statement"]["polynomial"] = polynomial_statement(MonomialPoly(cs))
    forged["statement"]["error"]["lower"] = "0"
    status, bad = _status(forged)
    assert status == "fails" and any("upper" in name for name, _, _ in bad)


def test_weighted_box_kind():
    """A relative supnorm-box certificate (the machine polynomial of fpminimax) holds,
    and the same polynomial claimed with a smaller upper fails on a piece."""
    r = dpverify.fpminimax("exp(x)", 4, ("-1/4", "1/4"), format="binary32", relative=True,
                           rtol="1e-4")
    doc = r.certificate.data
    assert doc["kind"] == "supnorm-box" and doc["statement"]["weight"]["kind"] == "relative"
    assert _status(doc)[0] == "holds"
    forged = copy.deepcopy(doc)
    lo = parse_exact(forged["statement"]["error"]["lower"])
    forged["statement"]["error"]["upper"] = str(Fraction(int(lo.p), int(lo.q)) * 99 / 100)
    forged["statement"]["error"]["lower"] = "0"
    assert verify_document(forged).status == "fails"


def test_no_annihilator_without_family(fixed_cert):
    doc = minimax("exp(x)", 3, (-1, 1), search=remez, relative=True).data
    assert "annihilator" not in doc["evidence"] and _holds_doc(doc)
    forged = copy.deepcopy(doc)
    forged["evidence"]["annihilator"] = ["1"] * len(forged["evidence"]["alternation"])
    with pytest.raises(Malformed, match="annihilator: only with"):
        verify_document(forged)


def _holds_doc(doc) -> bool:
    return verify_document(doc).status == "holds"


def test_certification_failure_is_an_error_not_a_claim():
    """A search proposal whose alternation points are shuffled cannot be certified."""
    from dpverify.certify.alternation import certify_minimax

    fam = make_family(5, "odd")
    ap = remez("sin(x)", 5, (-1, 1), family=fam)
    alt = list(ap.extra["alternation"])
    alt[1], alt[2] = alt[2], alt[1]
    bad = dataclasses.replace(ap, extra=dict(ap.extra, alternation=alt))
    with pytest.raises(CertificationFailed, match="strictly increasing"):
        certify_minimax(bad, family=fam)


def test_weights_longer_than_python_int_text_limit():
    # Python refuses int -> str beyond 4300 digits (sys.get_int_max_str_digits); the
    # evidence of high-degree families can carry such weights, and the checker reads them
    from flint import fmpq as _q
    from flint import fmpz as _z

    from dpverify.certify.annihilator import FamilyBound
    from dpverify.verify.numbers import read_exact

    big = _z(3) ** 10000  # 4772 decimal digits
    ev = FamilyBound(points=[_q(0), _q(1)], weights=[big, -big], lower=_q(0)).evidence()
    assert len(ev["annihilator"][0]) == 4772
    assert read_exact(ev["annihilator"][1], "w") == -big
