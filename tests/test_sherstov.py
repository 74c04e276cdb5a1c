"""Sherstov's r-of-k construction as printed in thaler2012 Appendix B: pinned verdicts.

Every error below is the exact maximum of |1[t >= r] - p(t)| over {0..k}, computed by the
certifier (exact rationals); the verdicts on the readings are those recorded in
docs/sherstov.md.  Independent checks: Chebyshev facts from the recurrence / closed forms,
q3 against EXACT_l by direct evaluation, and the minimax degree never above Sherstov's.
"""

from __future__ import annotations

import json

import pytest
from flint import fmpq, fmpz_poly

from dpverify.certify import certify
from dpverify.certify.finite import exact_max_error
from dpverify.constructions.sherstov import (
    DEFAULT_READING,
    exact_l_polynomial,
    rofk_polynomial,
    sherstov_parameters,
    sherstov_steps,
)
from dpverify.errors import DomainError, InvalidParameterError, ParameterTypeError
from dpverify.numbers import parse_fmpq_str
from tests._legacy import flat


def _err(a):
    return exact_max_error(a.poly, a.target, a.domain)


# ------------------------------------------------------------------ the default reading


@pytest.mark.parametrize(
    "r,k,gamma",
    [(1, 4, "1/10"), (1, 8, "1/10"), (2, 8, "1/10"), (1, 16, "1/2"), (3, 16, "1/10"),
     (1, 24, "1/10")],
)
def test_default_reading_meets_gamma(r, k, gamma):
    a = rofk_polynomial(r, k, gamma, intermediates="summary")
    cert = certify(a)
    assert cert.complete and flat(cert)["error"]["exact"]
    e, _ = _err(a)
    assert e <= parse_fmpq_str(gamma)
    assert a.params["reading"] == DEFAULT_READING


def test_default_is_the_documented_reading():
    assert DEFAULT_READING == {"delta": "log_k", "d": "z", "log_base": "e",
                               "ell_range": "0..r-1"}


# ------------------------------------------------------------------ failing readings


def test_d_equals_delta_fails():
    # step 3 read with d := Delta: r=1, k=4, gamma=1/10 -> error ~1.4494 at t = 4
    a = rofk_polynomial(1, 4, "1/10", reading={"d": "Delta"})
    e, w = _err(a)
    assert e > 1 and w == 4
    cert = certify(a)
    assert cert.complete is False and flat(cert)["claims_status"]["max_error"] == "refuted"


def test_d_equals_ln_k_over_gamma_fails():
    # d := ceil(ln(k/gamma)): fine for (1, 4, 1/10) but r=2, k=8, gamma=1/10 misses (~6.93)
    assert _err(rofk_polynomial(1, 4, "1/10", reading={"d": "log_k_over_gamma"}))[0] <= fmpq(1, 10)
    e, w = _err(rofk_polynomial(2, 8, "1/10", reading={"d": "log_k_over_gamma"}))
    assert e > 6 and w == 8


def test_ell_range_without_zero_fails_at_zero():
    # step 1 says 0 < l < r; without l = 0 the sum misses EXACT_0 and p(0) ~ 1
    a = rofk_polynomial(1, 4, "1/10", reading={"ell_range": "1..r-1"})
    assert a.poly.degree == 0 and a.poly(0) == 1
    assert _err(a) == (fmpq(1), fmpq(0))
    e, w = _err(rofk_polynomial(2, 8, "1/10", reading={"ell_range": "1..r-1"}))
    assert e > fmpq(9, 10) and w == 0


def test_delta_log2_undefined_for_small_k():
    # Delta = ceil(log2(k/gamma)) = 6 > k = 4: step 1 divides by k - l - Delta = -2
    with pytest.raises(DomainError, match="k - l - Delta = -2"):
        rofk_polynomial(1, 4, "1/10", reading={"delta": "log_2"})
    # where it is defined it works (larger Delta, larger degree)
    a = rofk_polynomial(1, 16, "1/2", reading={"delta": "log_2"}, intermediates="summary")
    b = rofk_polynomial(1, 16, "1/2", intermediates="summary")
    assert _err(a)[0] <= fmpq(1, 2) and a.poly.degree > b.poly.degree


def test_log_base_2_also_works_with_larger_degree():
    # k = 16: ceil(ln 16) = 3 < ceil(log2 16) = 4, so z (and the degree) grows
    a = rofk_polynomial(1, 16, "1/10", reading={"log_base": "2"}, intermediates="summary")
    b = rofk_polynomial(1, 16, "1/10", intermediates="summary")
    assert _err(a)[0] <= fmpq(1, 10)
    assert a.poly.degree > b.poly.degree


# ------------------------------------------------------------------ structure of the steps


def test_parameters_exact():
    # k=16, gamma=1/1000: Delta = least D with 16^D >= 16000 -> 4 (16^3 = 4096 < 16000);
    # ceil(ln 16) = 3 (e^2 = 7.39 < 16 < e^3 = 20.1) -> z = 3*4*3 = 36; log2: 3*4*4 = 48
    p = sherstov_parameters(2, 16, "1/1000")
    assert (p.Delta, p.ceil_log_k, p.z, p.d) == (4, 3, 36, 36)
    assert sherstov_parameters(2, 16, "1/1000", {"log_base": "2"}).z == 48
    # D_0 = ceil(sqrt(12/4)) = 2; N_0 = ceil(8*37*4/(sqrt2*4)) = ceil(209.30) = 210
    assert p.cheb1[0] == 2 and p.cheb3[0] == 210
    assert p.eta[0] == fmpq(16, 64 * 16)


def test_steps_as_printed():
    k, l_, gamma = 8, 1, "1/10"
    st = sherstov_steps(l_, k, gamma)
    c = k - l_
    assert st["p4"](c) == 1 and st["q2"](c) == 1 and st["q3"](l_) == 1
    prm = sherstov_parameters(l_ + 1, k, gamma)
    # q1 vanishes at the 2(Delta - 1) points next to k - l
    for i in range(-(prm.Delta - 1), prm.Delta):
        if i:
            assert st["q1"](c - i) == 0 and st["q2"](c - i) == 0
    # q3(t) = q2(k - t)
    for t in range(0, k + 1):
        assert st["q3"](t) == st["q2"](k - t)
    # p2 >= 0 everywhere on the integers and p2(k - l) = 0
    assert st["p2"](c) == 0 and all(st["p2"](s) >= 0 for s in range(k + 1))


@pytest.mark.parametrize("l_,k,gamma", [(0, 8, "1/10"), (2, 12, "1/10"), (1, 16, "1e-3")])
def test_step7_q3_approximates_exact_l_to_gamma_over_k(l_, k, gamma):
    a = exact_l_polynomial(l_, k, gamma, intermediates="summary")
    g = parse_fmpq_str(gamma)
    q3 = a.poly
    assert q3(l_) == 1
    assert max(abs(q3(t)) for t in range(k + 1) if t != l_) <= g / k
    assert certify(a).complete


def test_fact_b2_part1_chebyshev_coefficients_at_most_3_to_the_z():
    for z in range(0, 201):
        cs = fmpz_poly.chebyshev_t(z).coeffs()
        assert max(abs(int(c)) for c in cs) <= 3**z


def test_step6_q1_at_center_equals_one_when_delta_is_2():
    # printed: "|q1(k - l)| > 1"; for Delta = 2 it is |(-1)(1)| = 1 (r=3, k=16, gamma=1/10)
    p = sherstov_parameters(3, 16, "1/10")
    assert p.Delta == 2
    st = sherstov_steps(0, 16, "1/10")
    assert st["q1"](16) == -1


def test_intermediates_json_and_summary():
    a = rofk_polynomial(2, 8, "1/10")
    text = json.dumps(a.extra)
    assert "coefficients" in text
    steps = a.extra["sherstov"]["steps"]
    assert [s["l"] for s in steps] == [0, 1]
    for s in steps:
        assert set(s["polys"]) == {"p1", "p2", "p3", "p4", "q1", "q2", "q3"}
        assert s["chebyshev_argument_in_range"] is True
        assert s["printed_deg_p3_bound_holds"] is True
    b = rofk_polynomial(2, 8, "1/10", intermediates="summary")
    assert "coefficients" not in json.dumps(b.extra)


def test_minimax_degree_not_above_sherstov():
    a = rofk_polynomial(2, 8, "1/10", method="minimax")
    b = rofk_polynomial(2, 8, "1/10", intermediates="summary")
    assert a.poly.degree <= b.poly.degree
    assert certify(a).complete


# ------------------------------------------------------------------ bad input


def test_bad_inputs():
    with pytest.raises(InvalidParameterError, match="k must be >= 1"):
        rofk_polynomial(1, 0, "1/10")
    with pytest.raises(InvalidParameterError, match="r must be <= k = 4"):
        rofk_polynomial(5, 4, "1/10")
    with pytest.raises(InvalidParameterError, match="r must be >= 1"):
        rofk_polynomial(0, 4, "1/10")
    with pytest.raises(InvalidParameterError, match="gamma must be in"):
        rofk_polynomial(1, 4, "0")
    with pytest.raises(InvalidParameterError, match="gamma must be in"):
        rofk_polynomial(1, 4, 1)
    with pytest.raises(ParameterTypeError, match="k must be an integer"):
        rofk_polynomial(1, 4.0, "1/10")
    with pytest.raises(InvalidParameterError, match="max_degree"):
        rofk_polynomial(50, 200, "1e-6")
    with pytest.raises(InvalidParameterError, match="method"):
        rofk_polynomial(1, 4, "1/10", method="chebyshev")
    with pytest.raises(InvalidParameterError, match="unknown key"):
        rofk_polynomial(1, 4, "1/10", reading={"x": "y"})
    with pytest.raises(DomainError, match="k must be >= 2"):
        rofk_polynomial(1, 1, "1/10")
    with pytest.raises(InvalidParameterError, match="k must be <= 200000"):
        rofk_polynomial(1, 10**9, "1/10")


def test_cli_rofk(capsys):
    from dpverify.cli import main

    assert main(["rofk", "--r", "2", "--k", "8", "--gamma", "0.1", "--json"]) == 0
    data = flat(json.loads(capsys.readouterr().out))
    assert data["verified"] is True and data["error"]["exact"] is True
    assert data["construction"] == "rofk/sherstov"
    assert main(["rofk", "--r", "1", "--k", "4", "--gamma", "0.1", "--reading", "d=Delta"]) == 1
    capsys.readouterr()
    for argv, needle in [
        (["rofk", "--r", "5", "--k", "4", "--gamma", "0.1"], "--r must be <= --k"),
        (["rofk", "--r", "0", "--k", "4", "--gamma", "0.1"], "--r must be >= 1"),
        (["rofk", "--r", "1", "--k", "x", "--gamma", "0.1"], "--k must be an integer"),
        (["rofk", "--r", "1", "--k", "4", "--gamma", "1.5"], "--gamma"),
        (["rofk", "--r", "1", "--k", "4", "--gamma", "0.1", "--reading", "d"], "--reading"),
    ]:
        assert main(argv) == 2
        err = capsys.readouterr().err
        assert needle in err and len(err.strip().splitlines()) == 1


def test_default_reading_fails_outside_paper_assumption_single_term():
    # l = 12, k = 15, gamma = 1/2: Delta = 2, D = 1, p1(s) = s, so p2(15) = ((15 - 3)/8)^2 = 9/4
    # > 2 + eta and the step-3 Chebyshev argument leaves [-1, 1]: q3 blows up at t = 0.
    a = exact_l_polynomial(12, 15, "1/2", intermediates="summary")
    st = a.extra["sherstov"]["steps"][0]
    assert st["p2_far_max"] == "9/4" and st["chebyshev_argument_in_range"] is False
    e, w = _err(a)
    assert w == 0 and e > fmpq(10) ** 220


@pytest.mark.slow
def test_default_reading_fails_outside_paper_assumption_rofk():
    # r = 13, k = 15, gamma = 1/2 (r < k/log^2 k is false): exact error ~2.713e220 at t = 0
    a = rofk_polynomial(13, 15, "1/2", intermediates="summary")
    assert a.extra["sherstov"]["paper_assumptions"]["r < k/log^2 k"] is False
    e, w = _err(a)
    assert w == 0 and e > fmpq(10) ** 220
    assert flat(certify(a))["claims_status"]["max_error"] == "refuted"


def test_certifier_default_reading_is_the_constructions():
    """A statement leaves the default reading out (byte-identical certificates); the
    certifier's copy of that default must be the construction's."""
    from dpverify.certify.claims import DEFAULT_READING as written_default
    from dpverify.constructions.sherstov import DEFAULT_READING

    assert written_default == DEFAULT_READING
