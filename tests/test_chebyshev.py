"""Chebyshev OR/AND polynomials (thaler2012 Fact 4.2, Section 4.1).

Reference values are derived independently of the code under test: T_t at a rational by
the three-term recurrence written out here, by the closed form cosh(t*acosh a) in mpmath
at 300 digits, and by hand for small k.
"""

from __future__ import annotations

import dataclasses
import itertools
import json

import mpmath
import pytest
from flint import fmpq
from hypothesis import given, settings
from hypothesis import strategies as st

from dpverify.certify import certify
from dpverify.cli import main
from dpverify.constructions import (
    and_polynomial,
    chebyshev_t_value,
    doubled_record,
    doubled_universe_indices,
    or_chebyshev_form,
    or_polynomial,
)
from dpverify.constructions import chebyshev as cheb
from dpverify.errors import InvalidParameterError, ParameterTypeError
from tests._legacy import flat


def t_recurrence(t: int, a: fmpq) -> fmpq:
    """T_t(a) by T_{n+1} = 2a T_n - T_{n-1} (independent of the doubling formulas)."""
    p, c = fmpq(1), a
    if t == 0:
        return p
    for _ in range(t - 1):
        p, c = c, 2 * a * c - p
    return c


def least_t(k: int, gamma: fmpq) -> int:
    """Least t with T_t(a) * gamma >= 1, by linear scan with the recurrence."""
    a = fmpq(k + 1, k - 1)
    t = 0
    while t_recurrence(t, a) * gamma < 1:
        t += 1
    return t


def horner(coeffs, x):
    v = fmpq(0)
    for c in reversed(coeffs):
        v = v * x + c
    return v


# ---------------------------------------------------------------------------- T_t exactly


def test_t_values_by_hand():
    # T_2(3) = 2*9 - 1 = 17, T_3(3) = 4*27 - 3*3 = 99, T_4(3) = 8*81 - 8*9 + 1 = 577
    assert [chebyshev_t_value(t, fmpq(3)) for t in range(5)] == [1, 3, 17, 99, 577]
    assert chebyshev_t_value(3, fmpq(1, 2)) == -1  # cos(3*pi/3) = -1


@pytest.mark.parametrize("k", [2, 3, 7, 25, 100, 1000])
@pytest.mark.parametrize("t", [0, 1, 2, 5, 16, 37, 64])
def test_t_value_matches_recurrence_and_cosh(k, t):
    a = fmpq(k + 1, k - 1)
    v = chebyshev_t_value(t, a)
    assert v == t_recurrence(t, a)
    with mpmath.workdps(300):
        closed = mpmath.cosh(t * mpmath.acosh(mpmath.mpf(k + 1) / (k - 1)))
        assert abs(closed - mpmath.mpf(int(v.p)) / int(v.q)) <= closed * mpmath.mpf(10) ** -250


# ---------------------------------------------------------------------------- OR


def test_by_hand_small_k():
    # k = 2, gamma = 1/2: a = 3, 1/T_1 = 1/3 <= 1/2 so t = 1, g = 1 - (3 - 2x)/3 = 2x/3
    g = or_polynomial(2, "1/2")
    assert g.poly.coeffs == (0, fmpq(2, 3))
    assert g.extra["chebyshev"] == {**g.extra["chebyshev"], "t": 1, "error_exact": "1/3"}
    # k = 3, gamma = 1/10: a = 2, T_1 = 2, T_2 = 7, T_3 = 26 -> t = 3, error 1/26
    g = or_polynomial(3, "0.1")
    assert g.params["t"] == 3 and g.extra["chebyshev"]["error_exact"] == "1/26"
    # k = 1 is x itself
    g = or_polynomial(1, "1e-9")
    assert g.poly.coeffs == (0, 1)


GRID = [(k, g) for k in (2, 3, 4, 7, 16, 25, 64) for g in ("1/2", "1e-1", "1e-3", "1e-6")]


@pytest.mark.parametrize("k,gamma", GRID)
def test_or_invariants(k, gamma):
    gq = fmpq(1, 2) if gamma == "1/2" else fmpq(1, 10 ** int(gamma[3:]))
    approx = or_polynomial(k, gamma)
    t = approx.params["t"]
    a = fmpq(k + 1, k - 1)
    err = 1 / t_recurrence(t, a)
    # t is the least degree, decided exactly (independent linear scan)
    assert t == least_t(k, gq)
    assert err <= gq < 1 / t_recurrence(t - 1, a)
    assert approx.poly.degree == t
    c = approx.poly.coeffs
    assert horner(c, fmpq(0)) == 0  # g(0) = 0 exactly
    errs = [abs(horner(c, fmpq(x)) - 1) for x in range(1, k + 1)]
    assert max(errs) == err  # exact error at every point of 1..k
    assert errs[0] == err  # attained at x = 1 (u = 1)
    assert approx.extra["chebyshev"]["error_exact"] == f"{err.p}/{err.q}"
    # the Chebyshev form is the same function
    form = or_chebyshev_form(k, gamma)
    assert all(form(fmpq(x)) == horner(c, fmpq(x)) for x in range(k + 1))
    assert json.dumps(approx.params)  # JSON-able


def test_or_certified():
    cert = certify(or_polynomial(25, "1e-3"))
    assert cert.complete
    t = flat(cert)["params"]["t"]
    err = 1 / t_recurrence(t, fmpq(26, 24))
    assert flat(cert)["error"]["upper"] == f"{err.p}/{err.q}"
    assert flat(cert)["error"]["exact"] is True


@settings(deadline=None, max_examples=25)
@given(k=st.integers(2, 60), num=st.integers(1, 999))
def test_or_property(k, num):
    gamma = fmpq(num, 1000)
    approx = or_polynomial(k, gamma)
    t = approx.params["t"]
    a = fmpq(k + 1, k - 1)
    assert 1 / t_recurrence(t, a) <= gamma
    assert t == 1 or 1 / t_recurrence(t - 1, a) > gamma  # minimality (t >= 1 always)
    c = approx.poly.coeffs
    assert horner(c, fmpq(0)) == 0
    assert max(abs(horner(c, fmpq(x)) - 1) for x in range(1, k + 1)) == 1 / t_recurrence(t, a)


# ---------------------------------------------------------------------------- AND


@pytest.mark.parametrize("k,gamma", [(1, "1/3"), (2, "1/2"), (5, "1e-2"), (16, "1e-4")])
def test_and_is_reflected_or(k, gamma):
    g = or_polynomial(k, gamma).poly.coeffs
    p = and_polynomial(k, gamma)
    assert p.target == {"kind": "threshold", "r": k}
    for x in range(k + 1):
        assert horner(p.poly.coeffs, fmpq(x)) == 1 - horner(g, fmpq(k - x))
    assert horner(p.poly.coeffs, fmpq(k)) == 1
    cert = certify(p)
    assert cert.complete
    assert flat(cert)["error"]["upper"] == p.extra["chebyshev"]["error_exact"] or k == 1
    form = cheb.and_chebyshev_form(k, gamma)
    assert all(form(fmpq(x)) == horner(p.poly.coeffs, fmpq(x)) for x in range(k + 1))


# ---------------------------------------------------------------------------- Section 4.1


def test_conjunction_identity_misprint():
    # printed: AND_j x_j y_j = 1 - OR_j (1 - x_j) y_j -- false as printed
    x, y = (1, 1), (1, 0)
    lhs = int(all(a * b for a, b in zip(x, y, strict=True)))
    rhs = 1 - int(any((1 - a) * b for a, b in zip(x, y, strict=True)))
    assert (lhs, rhs) == (0, 1)


@pytest.mark.parametrize("d", [1, 2, 3, 4])
def test_conjunction_identity_corrected(d):
    for x in itertools.product((0, 1), repeat=d):
        for y in itertools.product((0, 1), repeat=d):
            lhs = int(all(a for a, b in zip(x, y, strict=True) if b))  # AND over the query set
            rhs = 1 - int(any((1 - a) * b for a, b in zip(x, y, strict=True)))
            assert lhs == rhs


@pytest.mark.parametrize("d", [1, 2, 3])
def test_doubled_universe_exhaustive(d):
    gamma = fmpq(1, 100)
    lits = [(j, s) for j in range(d) for s in (True, False)]
    polys = {k: or_polynomial(k, gamma).poly.coeffs for k in range(1, 2 * d + 1)}
    for size in range(1, 2 * d + 1):
        for chosen in itertools.combinations(lits, size):
            S = doubled_universe_indices(chosen, d)
            assert len(S) == size and all(0 <= i < 2 * d for i in S)
            g = polys[size]
            for x in itertools.product((0, 1), repeat=d):
                xd = doubled_record(x)
                val = [x[j] if s else 1 - x[j] for j, s in chosen]
                conj, disj = int(all(val)), int(any(val))
                assert conj == int(all(xd[i] for i in S))
                assert disj == int(any(xd[i] for i in S))
                p_or = horner(g, fmpq(sum(xd[i] for i in S)))
                p_and = 1 - horner(g, fmpq(sum(1 - xd[i] for i in S)))
                assert abs(p_or - disj) <= gamma and abs(p_and - conj) <= gamma
                if disj == 0:
                    assert p_or == 0  # f = 0 => p = 0 exactly (g(0) = 0)


def test_doubled_universe_bad_inputs():
    with pytest.raises(InvalidParameterError, match="repeats"):
        doubled_universe_indices([(0, True), (0, True)], 2)
    with pytest.raises(InvalidParameterError, match="j must be <= 1"):
        doubled_universe_indices([(2, True)], 2)
    with pytest.raises(ParameterTypeError, match="positive"):
        doubled_universe_indices([(0, 1)], 2)
    with pytest.raises(InvalidParameterError, match=r"x\[1\]"):
        doubled_record([0, 2])


# ---------------------------------------------------------------------------- bad inputs


@pytest.mark.parametrize(
    "k,gamma,method,exc,pattern",
    [
        (0, "1/2", "chebyshev", InvalidParameterError, "k must be >= 1"),
        (-3, "1/2", "chebyshev", InvalidParameterError, "k must be >= 1"),
        (2.5, "1/2", "chebyshev", ParameterTypeError, "k must be an integer"),
        (3.0, "1/2", "chebyshev", ParameterTypeError, "k must be an integer"),
        (10**7, "1/2", "chebyshev", InvalidParameterError, "k must be <= "),
        (5, 0, "chebyshev", InvalidParameterError, "gamma must be in"),
        (5, 1, "chebyshev", InvalidParameterError, "gamma must be in"),
        (5, "-0.1", "chebyshev", InvalidParameterError, "gamma must be in"),
        (5, float("nan"), "chebyshev", InvalidParameterError, "gamma must be finite"),
        (5, "1/2", "remez", InvalidParameterError, "method must be"),
        (10**6, "1e-300", "chebyshev", InvalidParameterError, "Chebyshev degree"),
    ],
)
def test_bad_inputs(k, gamma, method, exc, pattern):
    for fn in (or_polynomial, and_polynomial):
        with pytest.raises(exc, match=pattern):
            fn(k, gamma, method)


# ---------------------------------------------------------------------------- CLI


def test_cli_ok_json(capsys):
    assert main(["or", "--k", "25", "--gamma", "1e-3", "--json"]) == 0
    data = flat(json.loads(capsys.readouterr().out))
    assert data["verified"] is True and data["degree"] == 19
    assert data["claims"] == {"max_error": "1/1000"}
    assert main(["and", "--k", "6", "--gamma", "0.01", "--method", "minimax"]) == 0
    out = capsys.readouterr().out
    assert "least degree" in out and "proven" in out and "result" in out


@pytest.mark.parametrize(
    "argv,flag",
    [
        (["or", "--k", "0", "--gamma", "0.1"], "--k"),
        (["or", "--k", "2.5", "--gamma", "0.1"], "--k"),
        (["and", "--k", "5", "--gamma", "1"], "--gamma"),
        (["or", "--k", "5", "--gamma", "nan"], "--gamma"),
        (["or", "--k", "5", "--gamma", "0.1", "--method", "x"], "--method"),
        (["or", "--k", "5", "--gamma", "0.1", "--d", "0"], "--d"),
        (["or", "--k", "5000", "--gamma", "0.1", "--method", "minimax"], "--k"),
        # degree ~14000 > MAX_OR_DEGREE (a memory limit); the message names both flags
        (["or", "--k", "1000000", "--gamma", "1e-12"], "--gamma"),
        (["and", "--k", "1000000", "--gamma", "1e-12"], "--k"),
    ],
)
def test_cli_bad_input_exit_2(capsys, argv, flag):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert flag in err and len(err.strip().splitlines()) == 1


def test_cli_unverified_exit_1(capsys, monkeypatch):
    real = cheb.or_polynomial

    def too_strict(k, gamma, method="chebyshev", progress=None):
        return dataclasses.replace(real(k, gamma, method, progress=progress),
                                   claims={"max_error": "1/10000000"})

    monkeypatch.setattr(cheb, "or_polynomial", too_strict)
    assert main(["or", "--k", "9", "--gamma", "0.01"]) == 1
    assert "not certified" in capsys.readouterr().out


def test_cli_d_accepted(capsys):
    assert main(["or", "--k", "4", "--gamma", "0.1", "--d", "10", "--json"]) == 0
    flat(json.loads(capsys.readouterr().out))


@pytest.mark.parametrize("k,gamma", [(2, "1e-9"), (3, "1e-12"), (10, "1/3"), (97, "1e-6"),
                                     (1000, "1e-12"), (4001, "1e-3")])
def test_coefficients_equal_composition(k, gamma):
    # the monomial coefficients (built by the three-term recurrence of Chebyshev's
    # differential equation) against FLINT's T_t composed with u(x) = (k+1-2x)/(k-1), an
    # independent algorithm; t > k in the first cases, where values on 0..k do not pin p
    from flint import fmpq_poly, fmpz_poly

    o, a = or_polynomial(k, gamma), and_polynomial(k, gamma)
    t = o.params["t"]
    T = fmpq_poly(fmpz_poly.chebyshev_t(t))
    Tu, Tw = T(fmpq_poly([fmpq(k + 1, k - 1), fmpq(-2, k - 1)])), T(fmpq_poly([-1, fmpq(2, k - 1)]))
    ta = T(fmpq(k + 1, k - 1))
    assert o.poly.as_fmpq_poly() == 1 - Tu / ta
    assert a.poly.as_fmpq_poly() == Tw / ta
