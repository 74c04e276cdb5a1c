"""Least-degree minimax on {0..k} and its optimality certificate.

Independent references: the Chebyshev degree (an upper bound on the least degree), a
float LP in scipy (brute-force minimax error at each degree, tiny k), the certifier's exact
max error, reflection symmetry OR <-> AND, and hand-derived cases.
"""

from __future__ import annotations

import copy

import pytest
from flint import fmpq
from hypothesis import given, settings
from hypothesis import strategies as st

from dpverify.certify import certify
from dpverify.constructions import and_polynomial, minimax_least_degree, or_polynomial
from dpverify.constructions.minimax import remez_discrete
from dpverify.errors import InvalidParameterError, ParameterTypeError
from dpverify.numbers import fmpq_str
from tests._legacy import check_old as check
from tests._legacy import flat

GRID = [(k, g) for k in (2, 3, 5, 8, 16, 32) for g in ("1/3", "1e-2", "1e-4")]


def certified(approx):
    cert = certify(approx)
    assert cert.complete, flat(cert)["error"]
    ok, why = check(flat(cert)["optimality"], flat(cert))
    assert ok, why
    return cert


@pytest.mark.parametrize("k,gamma", GRID)
def test_minimax_not_above_chebyshev(k, gamma):
    mm = or_polynomial(k, gamma, "minimax")
    ch = or_polynomial(k, gamma, "chebyshev")
    assert mm.poly.degree <= ch.poly.degree
    assert mm.poly(fmpq(0)) == 0  # fix_zero holds exactly
    cert = certified(mm)
    assert flat(cert)["optimality"]["degree_impossible"] == flat(cert)["degree"] - 1
    # the stated minimax error is the certifier's exact max error
    assert flat(cert)["error"]["upper"] == mm.extra["minimax"]["minimax_error"]


@pytest.mark.parametrize("k,gamma", GRID[::2])
def test_and_minimax_matches_or_by_reflection(k, gamma):
    a = and_polynomial(k, gamma, "minimax")
    o = or_polynomial(k, gamma, "minimax")
    assert a.poly.degree == o.poly.degree  # p(x) <-> 1 - p(k - x) preserves the problem
    assert a.poly(fmpq(k)) == 1
    cert = certified(a)
    assert flat(cert)["error"]["upper"] == o.extra["minimax"]["minimax_error"]


def test_by_hand():
    # k = 1: p(0) = 0 forces degree >= 1 (p = 0 misses f(1) = 1 by 1 > gamma); p = x exact
    a = or_polynomial(1, "1/2", "minimax")
    assert a.poly.coeffs == (0, 1)
    opt = a.extra["optimality"]
    assert opt["degree_impossible"] == 0 and opt["bound"] == "1"
    # k = 2, gamma = 1/2: degree 1, p = c x, best c = 2/3 (|1 - c| = |1 - 2c|), error 1/3
    a = or_polynomial(2, "1/2", "minimax")
    assert a.poly.coeffs == (0, fmpq(2, 3))
    # tiny gamma: interpolation of f on 0..k needs degree k exactly
    a = or_polynomial(4, "1e-9", "minimax")
    assert a.poly.degree == 4
    certified(a)


def test_unpinned_constant():
    # threshold at 0 on 0..k is the constant 1: degree 0; degree -1 (zero poly) misses by 1
    a = minimax_least_degree({"kind": "threshold", "r": 0}, 5, "1/10")
    assert a.poly.coeffs == (1,)
    cert = certified(a)
    assert flat(cert)["optimality"]["degree_impossible"] == -1
    # gamma >= 1/2 for the OR step without the pin: the constant 1/2 works
    a = minimax_least_degree({"kind": "threshold", "r": 1}, 5, "1/2")
    assert a.poly.coeffs == (fmpq(1, 2),)
    certified(a)


@settings(deadline=None, max_examples=30)
@given(
    vals=st.lists(st.fractions(min_value=-3, max_value=3, max_denominator=7), min_size=2,
                  max_size=9),
    gnum=st.integers(1, 99),
    fix_zero=st.booleans(),
)
def test_values_targets(vals, gnum, fix_zero):
    k = len(vals) - 1
    target = {"kind": "values", "values": [f"{v.numerator}/{v.denominator}" for v in vals]}
    gamma = fmpq(gnum, 100)
    if fix_zero and abs(vals[0]) > gnum / 100:
        with pytest.raises(InvalidParameterError, match="pin"):
            minimax_least_degree(target, k, gamma, fix_zero=True)
        return
    a = minimax_least_degree(target, k, gamma, fix_zero=fix_zero)
    if a.poly.degree <= -1:  # zero polynomial already meets gamma: nothing to prove
        assert all(abs(fmpq(v.numerator, v.denominator)) <= gamma for v in vals)
        return
    certified(a)


@pytest.mark.parametrize("k", [3, 6, 10])
@pytest.mark.parametrize("target", [{"kind": "indicator", "l": 2}, {"kind": "threshold", "r": 2}])
def test_remez_exact_error_matches_certifier(k, target):
    for deg in range(0, k):
        E, p = remez_discrete(target, k, deg)
        assert p.degree <= deg
        cert = certify(_approx(p, target, k))
        assert flat(cert)["error"]["upper"] == fmpq_str(E)


def _approx(poly, target, k):
    from dpverify.approximation import Approximation

    return Approximation("test", {}, poly, target, {"kind": "integers", "lo": 0, "hi": k})


def test_lp_brute_force_cross_check():
    scipy_opt = pytest.importorskip("scipy.optimize")
    import numpy as np

    def lp_error(f, k, deg, fix_zero):
        # variables: coefficients c_j (j = 1..deg if fix_zero else 0..deg) and E
        js = list(range(1 if fix_zero else 0, deg + 1))
        xs = np.arange(k + 1, dtype=float) / k  # scaled variable for conditioning
        V = np.array([[x**j for j in js] for x in xs])
        n = len(js)
        A = np.vstack([np.hstack([V, -np.ones((k + 1, 1))]),
                       np.hstack([-V, -np.ones((k + 1, 1))])])
        b = np.concatenate([f, -f])
        c = np.zeros(n + 1)
        c[-1] = 1
        res = scipy_opt.linprog(c, A_ub=A, b_ub=b, bounds=[(None, None)] * (n + 1),
                                method="highs")
        assert res.status == 0
        return res.fun

    for k in (3, 5, 8, 12):
        f = np.array([0.0] + [1.0] * k)
        for gamma in ("1/5", "1/50", "1/1000"):
            a = or_polynomial(k, gamma, "minimax")
            n = a.poly.degree
            E = a.extra["minimax"]["minimax_error"]
            Ef = float(fmpq(*map(int, E.split("/"))) if "/" in E else fmpq(int(E)))
            assert abs(lp_error(f, k, n, True) - Ef) < 1e-7
            if n >= 1:
                assert lp_error(f, k, n - 1, True) > float(fmpq(*map(int, gamma.split("/"))))


# ---------------------------------------------------------------------------- float search
#
# The float Remez only proposes references and a degree; the exact exchange and the exact
# gallop/bisection decide.  So replacing the float proposals by useless ones (no
# information: the Chebyshev-extrema starting reference, "infeasible" at every degree)
# must give the same polynomial, error and optimality certificate, only more slowly.


def _no_float_search(monkeypatch):
    import dpverify.constructions.minimax as mm

    def useless(fp, m):
        return float("inf"), mm._initial_reference(len(fp.x), m)

    monkeypatch.setattr(mm, "_float_remez", useless)


@pytest.mark.parametrize("k,gamma,kind", [(40, "1e-6", "or"), (33, "1/3", "and"),
                                          (60, "1e-11", "or"), (50, "1e-4", "indicator"),
                                          # below float64 resolution: exact bisection path
                                          (40, "1e-25", "or")])
def test_float_proposals_do_not_change_the_result(monkeypatch, k, gamma, kind):
    def build():
        if kind == "or":
            return or_polynomial(k, gamma, "minimax")
        if kind == "and":
            return and_polynomial(k, gamma, "minimax")
        return minimax_least_degree({"kind": "indicator", "l": k // 3}, k, gamma)

    fast = build()
    with monkeypatch.context() as m:
        _no_float_search(m)
        slow = build()
    assert fast.poly == slow.poly
    assert fast.extra["optimality"] == slow.extra["optimality"]
    assert fast.extra["minimax"]["minimax_error"] == slow.extra["minimax"]["minimax_error"]
    certified(fast)


def test_minimax_k150_certified_and_below_chebyshev():
    # the least degree is proven by the certificate itself (exact annihilating weights,
    # re-checked by tests._legacy.check), so no expected degree is needed here
    mm = or_polynomial(150, "1e-9", "minimax")
    cert = certified(mm)
    assert mm.poly.degree <= or_polynomial(150, "1e-9").poly.degree
    assert flat(cert)["optimality"]["degree_impossible"] == mm.poly.degree - 1
    assert all(isinstance(p, str) for p in mm.extra["optimality"]["points"])


# ---------------------------------------------------------------------------- tampering


@pytest.fixture(scope="module")
def mm_cert():
    return flat(certify(or_polynomial(25, "1e-3", "minimax")))


def test_check_passes(mm_cert):
    assert check(mm_cert["optimality"], mm_cert)[0]


def test_check_fails_when_degree_lowered(mm_cert):
    c = copy.deepcopy(mm_cert)
    c["optimality"]["degree_impossible"] -= 1
    ok, why = check(c["optimality"], c)
    assert not ok and "degree" in why
    # and when the certified degree itself is claimed one lower
    c = copy.deepcopy(mm_cert)
    c["degree"] -= 1
    assert not check(c["optimality"], c)[0]


@pytest.mark.parametrize(
    "mutate",
    [
        lambda o: o["weights"].__setitem__(0, str(int(o["weights"][0]) + 1)),
        lambda o: o["weights"].__setitem__(-1, "0"),
        lambda o: o.__setitem__("bound", "1"),
        lambda o: o["points"].__setitem__(0, str(int(o["points"][0]) + 1000)),
        lambda o: o["points"].__setitem__(1, o["points"][0]),
        lambda o: o.__setitem__("fix_zero", False) or o.__setitem__("pin", None),
        lambda o: o.__setitem__("pin", {"x": "0", "value": "1/2"}),
        lambda o: o.__setitem__("kind", "something"),
        lambda o: o.__setitem__("weights", "oops"),
    ],
)
def test_check_fails_when_tampered(mm_cert, mutate):
    c = copy.deepcopy(mm_cert)
    mutate(c["optimality"])
    ok, why = check(c["optimality"], c)
    assert not ok, why


def test_check_fails_when_gamma_claim_raised(mm_cert):
    c = copy.deepcopy(mm_cert)
    c["claims"]["max_error"] = "1/100"  # degree n-1 might meet this: bound is below it
    assert not check(c["optimality"], c)[0]


# ---------------------------------------------------------------------------- bad inputs


@pytest.mark.parametrize(
    "args,kw,exc,pattern",
    [
        (({"kind": "expr", "expr": "x"}, 5, "1/2"), {}, InvalidParameterError, "target.kind"),
        (({"kind": "threshold", "r": 1}, 0, "1/2"), {}, InvalidParameterError, "k must be >= 1"),
        (({"kind": "threshold", "r": 1}, 10**5, "1/2"), {}, InvalidParameterError, "k must be"),
        (({"kind": "threshold", "r": 1}, 5, "2"), {}, InvalidParameterError, "gamma"),
        (({"kind": "threshold", "r": 1}, 5, "1/2"), {"fix_zero": 1}, ParameterTypeError,
         "fix_zero"),
        (({"kind": "threshold", "r": 1}, 5, "1/2"), {"pin": (0, 1)}, InvalidParameterError,
         "pin"),
        (({"kind": "values", "values": ["1"]}, 5, "1/2"), {}, InvalidParameterError, "k \\+ 1"),
    ],
)
def test_bad_inputs(args, kw, exc, pattern):
    with pytest.raises(exc, match=pattern):
        minimax_least_degree(*args, **kw)
