"""Certified minimax brackets (dpverify.certify.alternation, dpverify.constructions.remez).

Reference values are classical and derived by hand, not by the code under test:

* ``E_N(x^{N+1}) = 2^-N`` on ``[-1, 1]`` (the monic Chebyshev polynomial ``2^-N T_{N+1}``
  is the least deviation from zero; Powell 1981, Theorem 7.3).
* ``E_0(f) = (max f - min f)/2`` for continuous ``f`` (the best constant is the midrange):
  for ``exp`` on ``[0, 1]`` this is ``(e - 1)/2``.
* ``x^4`` is even, so ``E_3(x^4) = E_2(x^4) = 1/8`` and ``E_1(x^4) = E_0(x^4) = 1/2``:
  the least degree for ``gamma = 1/5`` is 2.
"""

from __future__ import annotations

import json

import pytest
from flint import arb, ctx, fmpq

from dpverify import cli
from dpverify.certify.alternation import (
    alternation_lower_bound,
    approx,
    certify_minimax,
    minimax,
)
from dpverify.constructions.remez import remez
from dpverify.errors import CertificationFailed, DomainError, InvalidParameterError
from dpverify.exact import MonomialPoly
from dpverify.numbers import parse_exact
from dpverify.verify import verify_document


def _bracket(cert):
    e = cert.statement["error"]
    return parse_exact(e["lower"]), parse_exact(e["upper"])


@pytest.mark.parametrize("n", [1, 3, 5])
def test_monic_chebyshev_error(n):
    cert = minimax(f"x^{n + 1}", n, (-1, 1), search=remez)
    lo, up = _bracket(cert)
    want = fmpq(1, 2**n)
    assert lo <= want <= up
    assert up / lo < 1 + fmpq(1, 10**4)
    assert verify_document(json.loads(cert.to_json())).status == "holds"


def test_best_constant_is_midrange():
    cert = minimax("exp(x)", 0, (0, 1), search=remez)
    lo, up = _bracket(cert)
    with ctx.workprec(200):  # a 53-bit ball of e is wider than the bracket
        want = (arb.const_e() - 1) / 2
        assert arb(lo) <= want <= arb(up)


def test_alternation_by_hand():
    # x^2 - 1/2 = T_2/2 takes +1/2, -1/2, +1/2 at -1, 0, 1
    alt = alternation_lower_bound("x^2", MonomialPoly([fmpq(1, 2)]), ["-1", "0", "1"], (-1, 1))
    assert alt.lower == fmpq(1, 2) and alt.signs == [1, -1, 1]
    with pytest.raises(CertificationFailed, match="alternate"):
        alternation_lower_bound("x^2", MonomialPoly([fmpq(1, 2)]), ["-1", "-1/2", "0"], (-1, 1))
    with pytest.raises(InvalidParameterError, match="degree"):
        alternation_lower_bound("x^2", MonomialPoly([0, 0, 1]), ["-1", "0", "1"], (-1, 1))
    with pytest.raises(InvalidParameterError, match="increasing"):
        alternation_lower_bound("x^2", MonomialPoly([1]), ["0", "-1", "1"], (-1, 1))


def test_approx_least_degree_of_x4():
    cert = approx("x^4", (-1, 1), "1/5", search=remez)
    st = cert.statement
    assert st["degree"] == 2 and st["max_error"] == "1/5"
    assert parse_exact(st["least_degree"]["lower"]) <= fmpq(1, 2)
    lo, up = _bracket(cert)
    assert lo <= fmpq(1, 8) <= up <= fmpq(1, 5)
    assert verify_document(json.loads(cert.to_json())).status == "holds"


def test_bad_search_cannot_make_a_wrong_claim():
    # a search proposing a worse polynomial (the best one shifted by c): with c < E_2 the
    # signs still alternate and the bracket is wider but true; with c > E_2 they do not
    good = remez("exp(x)", 2, (0, 1))
    ref_lo, ref_up = _bracket(certify_minimax(good, 2))
    small = type(good)(**{**good.__dict__, "poly": good.poly + ref_lo / 2})
    lo, up = _bracket(certify_minimax(small, 2))
    assert lo <= ref_lo / 2 * (1 + fmpq(1, 10**6)) and up >= ref_up
    big = type(good)(**{**good.__dict__, "poly": good.poly + 2 * ref_up})
    with pytest.raises(CertificationFailed, match="alternate"):
        certify_minimax(big, 2)


def test_input_errors():
    with pytest.raises(InvalidParameterError, match="degree"):
        minimax("exp(x)", -1, (0, 1), search=remez)
    with pytest.raises(InvalidParameterError, match="interval"):
        minimax("exp(x)", 2, (1, 0), search=remez)
    with pytest.raises(DomainError):
        minimax("log(x)", 2, (-1, 1), search=remez)
    with pytest.raises(InvalidParameterError, match="gamma"):
        approx("exp(x)", (0, 1), 0, search=remez)


def _run(argv, capsys, monkeypatch):
    for name in ("minimax", "approx"):
        monkeypatch.setitem(cli.COMMANDS, name, (f"{name}_cmd", name))
    code = cli.main(argv)
    return code, capsys.readouterr()


def test_cli_minimax_and_approx(tmp_path, capsys, monkeypatch):
    out = tmp_path / "m.json"
    code, cap = _run(["minimax", "--f", "sin(x)", "--degree", "3", "--interval", "0", "2",
                      "--out", str(out)], capsys, monkeypatch)
    assert code == 0 and "E_3(f) >=" in cap.out
    code, cap = _run(["verify", str(out)], capsys, monkeypatch)
    assert code == 0 and "HOLDS" in cap.out
    code, cap = _run(["approx", "--f", "x^4", "--interval", "-1", "1", "--gamma", "1/5"],
                     capsys, monkeypatch)
    assert code == 0 and "degree 1 impossible" in cap.out
    code, cap = _run(["minimax", "--f", "exp(x)", "--degree", "-2", "--interval", "0", "1"],
                     capsys, monkeypatch)
    assert code == 2 and "--degree" in cap.err
