"""Reach of the minimax search and its certificate: precision, non-smooth functions, high
degree, honest outcomes, time limits (dpverify.constructions.remez,
dpverify.certify.alternation, dpverify.certify.graded_supnorm).

Reference facts (independent of the code under test):

* ``E_2(|x|) = 1/8`` on ``[-1, 1]``: ``x^2 + 1/8`` levels ``|x| - p`` at ``-1/8, +1/8, -1/8,
  +1/8, -1/8`` at ``x = -1, -1/2, 0, 1/2, 1`` (by hand).
* ``E_{2n}(|x|; [-1, 1]) = E_n(sqrt(t); [0, 1])``: the best approximation of an even
  function is even, ``p(x) = q(x^2)``, and ``t = x^2`` maps one problem onto the other.
* ``2n E_{2n}(|x|)`` increases to Bernstein's constant ``0.2801694990238691330364...``
  (Varga and Carpenter, Constr. Approx. 1 (1985)).
* ``E_n(exp; [-1, 1]) ~ 1 / (2^n (n + 1)!)`` (Bernstein; Trefethen, ATAP, ch. 10), within a
  few per cent in the range used: for gamma = 1e-15, 1e-20, 1e-30 it crosses between
  n = 13 (1.43e-15) and 14 (4.8e-17), 16 (4.3e-20) and 17 (1.2e-21), 22 (9.2e-30) and
  23 (1.9e-31), factors of at least 1.4 from gamma on either side.
"""

from __future__ import annotations

import json
import time

import mpmath
import pytest
from flint import ctx, fmpq

import dpverify
import dpverify.errors
from dpverify import cli
from dpverify.certify.alternation import certify_minimax, minimax
from dpverify.certify.graded_supnorm import graded_partition
from dpverify.constructions.remez import MAX_REMEZ_DEGREE, remez
from dpverify.errors import InvalidParameterError, TimeLimitExceeded
from dpverify.expr import parse
from dpverify.expr.breakpoints import breakpoints
from dpverify.numbers import parse_exact
from dpverify.verify import verify_document

BERNSTEIN = fmpq(2801694990238691330364, 10**22)  # rounded down in the last digit


def _bracket(cert):
    e = cert.statement["error"]
    return parse_exact(e["lower"]), parse_exact(e["upper"])


def _holds(cert):
    return verify_document(json.loads(cert.to_json())).status == "holds"


def test_search_reports_how_it_ended():
    ap = remez("exp(x)", 10, (-1, 1))
    ex = ap.extra
    assert ex["stop"] == "converged" and ex["converged"] is True
    assert ex["iterations"] >= 1 and float(ex["spread"]) <= 1e-8
    assert "bit" in ex["precision"]  # E_10 ~ 1e-11: beyond float64 at tol 1e-8
    assert len(ap.extra["alternation"]) == 12 and len(ap.extra["extrema"]) >= 12
    assert remez("abs(x)", 20, (-1, 1)).extra["precision"] == "float64"
    one = remez("exp(x)", 12, (-1, 1), max_iter=1)
    assert one.extra["stop"] == "max_iter" and one.extra["converged"] is False


@pytest.mark.parametrize("n", [14, 16])
def test_exp_degrees_that_used_to_fail(n):
    # the coefficients were rounded to 53 bits after the working precision was left
    cert = minimax("exp(x)", n, (-1, 1), search=remez)
    lo, up = _bracket(cert)
    assert up <= lo * (1 + fmpq(1, 10**6)) and cert.info["bracket_met"] is True


def test_bracket_does_not_depend_on_ambient_precision():
    def build():
        return _bracket(certify_minimax(remez("exp(x)", 16, (-1, 1)), 16))

    default = build()
    old_dps, old_prec = mpmath.mp.dps, ctx.prec
    try:
        mpmath.mp.dps = 40
        at40 = build()
        mpmath.mp.dps = old_dps
        ctx.prec = 300
        at300 = build()
    finally:
        mpmath.mp.dps, ctx.prec = old_dps, old_prec
    assert default == at40 == at300


def test_abs_degree_two_is_one_eighth():
    cert = minimax("abs(x)", 2, (-1, 1), search=remez)
    lo, up = _bracket(cert)
    assert lo <= fmpq(1, 8) <= up and up / lo < 1 + fmpq(1, 10**6)
    assert _holds(cert)


def test_abs_and_sqrt_share_their_errors():
    abs16 = _bracket(minimax("abs(x)", 16, (-1, 1), search=remez))
    sqrt8 = _bracket(minimax("sqrt(x)", 8, (0, 1), search=remez))
    assert max(abs16[0], sqrt8[0]) <= min(abs16[1], sqrt8[1])  # both contain the same number


def test_n_times_error_of_abs_increases_below_bernstein():
    prev = None
    for n in (4, 8, 16, 32):
        lo, up = _bracket(minimax("abs(x)", n, (-1, 1), search=remez))
        assert n * up < BERNSTEIN
        if prev is not None:
            assert n * lo > prev  # proven: the bracket of n E_n is above the previous one
        prev = n * up


def test_kinks_and_singular_points_are_found():
    x = ("x",)
    (bp,) = breakpoints(parse("abs(x - 1/3)^(1/2)", x), fmpq(0), fmpq(1))
    assert bp.x == fmpq(1, 3) and bp.exact and bp.kind == "singular"
    (bp,) = breakpoints(parse("sqrt(x)", x), fmpq(0), fmpq(1))
    assert bp.x == 0 and bp.kind == "singular"
    two = breakpoints(parse("abs(x^2 - 2)", x), fmpq(-2), fmpq(2))
    assert [round(float(b.x), 12) for b in two] == [-1.414213562373, 1.414213562373]
    assert not any(b.exact for b in two)  # irrational: dyadic approximations
    near = breakpoints(parse("max(x, sin(3*x))", x), fmpq(-1), fmpq(1))
    assert any(abs(float(b.x)) < 1e-12 for b in near)  # x = sin(3x) at 0 (sampled)
    assert breakpoints(parse("exp(x) + 1/(x+2)", x), fmpq(-1), fmpq(1)) == []


def test_partition_cuts_at_exact_breakpoints():
    pieces = graded_partition(fmpq(0), fmpq(1), [fmpq(1, 4), fmpq(3, 4)], [fmpq(1, 3)],
                              fmpq(1, 10**6))
    ends = [a for a, _ in pieces] + [pieces[-1][1]]
    assert fmpq(1, 3) in ends and ends[0] == 0 and ends[-1] == 1
    assert all(a < b for a, b in pieces) and all(p[1] == q[0] for p, q in zip(pieces, pieces[1:]))
    # a centred piece around each hint (the hint is inside, not an end)
    assert fmpq(1, 4) not in ends and any(a < fmpq(1, 4) < b for a, b in pieces)


def test_kink_inside_the_interval_certifies_and_verifies():
    cert = minimax("abs(x - 1/3)^(1/2)", 12, (0, 1), search=remez)
    lo, up = _bracket(cert)
    assert up <= lo * (1 + fmpq(1, 10**6))
    assert _holds(cert)


def test_wide_bracket_is_reported_not_certified(tmp_path, capsys, monkeypatch):
    # a proposal shifted by a fraction of E_N: still alternating (a true, wider bracket)
    good = remez("exp(x)", 4, (0, 1))
    lo, _ = _bracket(certify_minimax(good, 4))
    shifted = type(good)(**{**good.__dict__, "poly": good.poly + lo / 10})
    cert = certify_minimax(shifted, 4)
    assert cert.info["bracket_met"] is False and cert.converged is False
    assert "not close enough" in cert.info["why_not_met"]
    assert _holds(cert)

    from dpverify.commands import minimax_cmd

    monkeypatch.setattr(minimax_cmd, "remez", lambda *a, **k: shifted)
    out = tmp_path / "wide.json"
    code = cli.main(["minimax", "--f", "exp(x)", "--degree", "4", "--interval", "0", "1",
                     "--out", str(out)])
    text = capsys.readouterr().out
    assert code == 1 and "not certified: bracket upper/lower = 1 + " in text
    assert "exceeds 1 + rtol" in text and out.exists()
    assert cli.main(["verify", str(out)]) == 0


def test_degree_limit_is_stated():
    with pytest.raises(InvalidParameterError, match=f"<= {MAX_REMEZ_DEGREE} .*O\\(degree\\^2\\)"):
        dpverify.minimax("exp(x)", 10**9, (-1, 1))
    with pytest.raises(InvalidParameterError, match=f"<= {MAX_REMEZ_DEGREE}"):
        remez("exp(x)", MAX_REMEZ_DEGREE + 1, (-1, 1))
    code = cli.main(["minimax", "--f", "exp(x)", "--degree", "1000000", "--interval", "0", "1"])
    assert code == 2


@pytest.mark.parametrize("call", [
    lambda: dpverify.minimax("exp(x)", 200, (-1, 1), timeout=1),
    lambda: dpverify.approx("exp(x)", (0, 1), "1e-300", timeout=1),
    lambda: dpverify.approx("sin(30*x)", (0, 1), "1e-50", timeout=1),
])
def test_api_time_limit_is_honoured(call):
    t0 = time.monotonic()
    with pytest.raises(TimeLimitExceeded):
        call()
    assert time.monotonic() - t0 <= 1.1 + 1


@pytest.mark.parametrize("gamma,degree", [("1e-15", 14), ("1e-20", 17), ("1e-30", 23)])
def test_least_degree_of_exp(gamma, degree):
    cert = dpverify.approx("exp(x)", (-1, 1), gamma)
    st = cert.statement
    assert st["degree"] == degree and "least_degree" in st
    assert parse_exact(st["least_degree"]["lower"]) > parse_exact(gamma)
    assert _holds(cert)


def test_least_degree_of_abs_at_one_percent():
    # the value the least-degree search missed before (it said no degree <= 100 works)
    cert = dpverify.approx("abs(x)", (-1, 1), "1e-2")
    st = cert.statement
    assert st["degree"] == 28 and "least_degree" in st
    assert _holds(cert)


def test_polynomials_poles_and_overflow():
    with pytest.raises(InvalidParameterError, match="polynomial of degree 3 <= 5"):
        dpverify.minimax("x^3", 5, (0, 1))
    with pytest.raises(dpverify.errors.CertificationFailed, match="least degree is 3, f itself"):
        dpverify.approx("x^3", (0, 1), "1e-12")
    with pytest.raises(dpverify.errors.DomainError, match="pole at x = 1.5707963"):
        remez("tan(x)", 4, (0, 2))
    with pytest.raises(dpverify.errors.DomainError, match="pole at x = 3.33333"):
        remez("1/(x - 1/3)", 4, (0, 1))
    # e^1000 is beyond float64: the search moves to binary floating point, not "undefined"
    cert = dpverify.minimax("exp(1000*x)", 6, (-1, 1))
    assert "bit" in cert.info["search"]["precision"] and cert.info["bracket_met"] is True
