"""Privacy accounting (dpverify.mechanisms.privacy) against hand-derived values and brute
force over all pairs of neighbouring rows."""

from __future__ import annotations

import itertools
from math import comb

import pytest
import sympy as sp
from flint import arb, fmpq

from dpverify.cli import main
from dpverify.errors import InvalidParameterError
from dpverify.mechanisms.privacy import (
    gaussian_privacy,
    gaussian_sigma2,
    laplace_advanced_composition,
    laplace_privacy,
    laplace_scale,
    tuv_privacy,
    tuv_sensitivity,
)


def q(s: str) -> fmpq:
    p, _, d = s.partition("/")
    return fmpq(int(p), int(d or 1))


def test_laplace_hand_values():
    assert laplace_privacy(2, 4)["epsilon"] == "1/2"
    assert laplace_scale(3, fmpq(1, 2)) == 6
    assert laplace_privacy(fmpq(3, 7), fmpq(3, 7))["epsilon"] == "1"


def test_gaussian_hand_values():
    # rho = 2 / (2 * 3) = 1/3; eps = 1/3 + 2 sqrt(ln(10^5)/3)
    g = gaussian_privacy(2, 3, fmpq(1, 10**5))
    assert g["rho_zcdp"] == "1/3"
    hand = arb(fmpq(1, 3)) + 2 * (arb(10**5).log() / 3).sqrt()
    e = q(g["epsilon"])
    assert e >= hand.upper() - fmpq(1, 10**12) and e - hand.mid() < fmpq(1, 10**9) + 0 * e
    s2 = gaussian_sigma2(1, 1, fmpq(1, 10**5))
    assert q(gaussian_privacy(1, s2, fmpq(1, 10**5))["epsilon"]) <= 1 + fmpq(1, 10**9)


def test_advanced_composition_single():
    # K = 1: sqrt(2 ln(1/delta)) e0 + e0 (e^e0 - 1), e0 = 1/2
    r = laplace_advanced_composition(1, 2, 1, fmpq(1, 100))
    hand = (2 * arb(100).log()).sqrt() / 2 + (arb(fmpq(1, 2)).exp() - 1) / 2
    assert q(r["epsilon"]) >= hand.upper() - fmpq(1, 10**12)
    assert q(r["epsilon"]) - hand.mid() < fmpq(1, 10**9)


def test_k1_hand_sensitivity():
    # g(x) = x: p_x(y) = sum_j x_j y_j, N(w) = w.  Monotone: max a + b - 2c with
    # a + b - c <= d is d; doubled: 2 N(d) = 2d.  T = 1; box scale 2/eps gives eps d/2.
    for d in (1, 3, 7):
        s = tuv_sensitivity([0, 1], d, 1, "multilinear", "monotone")
        assert s["S1"] == d and s["Sinf"] == 1 and s["n_coordinates"] == d
        s = tuv_sensitivity([0, 1], d, 1, "full", "doubled")
        assert s["S1"] == 2 * d and s["n_coordinates"] == 2 * d
        p = tuv_privacy([0, 1], d, 1, 1)
        assert p["paper"]["theorem_3_1_box_epsilon"] == str(fmpq(d, 2)).replace(" ", "")


def _coeff_vector(g, x, representation):
    """Brute-force expansion of g(sum_j y_j x_j) with sympy (multilinear: reduce y^2 = y)."""
    m = len(x)
    ys = sp.symbols(f"y0:{m}")
    expr = sp.expand(sum(sp.Rational(str(c)) * sp.Add(*[xi * y for xi, y in zip(x, ys,
                     strict=True)]) ** i for i, c in enumerate(g)))
    poly = sp.Poly(expr, *ys) if expr != 0 else None
    out = {}
    if poly is None:
        return out
    for mon, c in poly.terms():
        if sum(mon) == 0:
            continue  # the constant cancels between neighbours
        key = tuple(min(e, 1) for e in mon) if representation == "multilinear" else mon
        out[key] = out.get(key, 0) + c
    return {k: v for k, v in out.items() if v != 0}


@pytest.mark.parametrize("representation", ["full", "multilinear"])
@pytest.mark.parametrize("universe", ["monotone", "doubled"])
@pytest.mark.parametrize("max_support", [None, 1, 2])
def test_sensitivity_brute_force(representation, universe, max_support):
    # g of degree 3 with generic coefficients; d = 3 (doubled: 6 variables); with
    # max_support, the brute-force vectors keep only monomials of support <= max_support
    g = [fmpq(1, 5), fmpq(-3, 2), fmpq(2, 3), fmpq(-1, 4)]
    d = 3
    rows = list(itertools.product((0, 1), repeat=d))
    if universe == "doubled":
        rows = [r + tuple(1 - b for b in r) for r in rows]
    vecs = [_coeff_vector(g, r, representation) for r in rows]
    if max_support is not None:
        vecs = [{key: c for key, c in v.items() if sum(e > 0 for e in key) <= max_support}
                for v in vecs]
    best_l1, best_inf, keys = 0, 0, set()
    for a, b in itertools.product(vecs, repeat=2):
        diff = [abs(a.get(k, 0) - b.get(k, 0)) for k in set(a) | set(b)]
        best_l1 = max(best_l1, sum(diff))
        best_inf = max([best_inf] + diff)
    for v in vecs:
        keys |= set(v)
    s = tuv_sensitivity(g, d, 2, representation, universe, max_support)
    assert s["S1"] == fmpq(str(best_l1)) and s["Sinf"] == fmpq(str(best_inf))
    assert s["S1_exact"]
    # add/remove: one row moves sum_x p_x by its own non-constant part
    assert s["S1_add_remove"] == fmpq(str(max(sum(abs(c) for c in v.values()) for v in vecs)))
    # every coordinate some row can make non-zero is counted (and no more)
    assert s["n_coordinates"] == len(keys)
    m = d if universe == "monotone" else 2 * d
    assert s["n_coordinates_paper"] == comb(m + 3, 3)


def test_matches_release_calculator():
    # cross-check with dpverify.mechanisms.release_size (another engineer's derivation)
    from dpverify.constructions.chebyshev import or_polynomial
    from dpverify.mechanisms.release_size import release_size

    cs = list(or_polynomial(4, fmpq(1, 100)).poly.coeffs)
    for rep in ("full", "multilinear"):
        rs = release_size(12, "disjunction", 4, 1, fmpq(1, 5), fmpq(1, 20),
                          gamma=fmpq(1, 100), representation=rep)["best"]
        s = tuv_sensitivity(cs, 12, 4, rep, "monotone")
        assert q(rs["sensitivity_l1_times_n"]) == s["S1"]
        assert q(rs["sensitivity_linf_times_n"]) == s["Sinf"]


def test_delta_route_certified():
    cs = [0, fmpq(45, 26), fmpq(-12, 13), fmpq(2, 13)]  # OR, k = 3, gamma = 1/10
    p = tuv_privacy(cs, 50, 3, 1, delta=fmpq(1, 10**6), universe="doubled")
    assert p["lemma_2_4"]["certifies_epsilon"]
    assert q(p["achieved"]["epsilon"]) <= 1
    # with a huge epsilon advanced composition no longer certifies: pure L1 route
    p = tuv_privacy(cs, 50, 3, 10**6, delta=fmpq(1, 10**6))
    assert p["achieved"]["delta"] == "0"
    with pytest.raises(InvalidParameterError):
        tuv_sensitivity(cs, 5, 2, "dense", "monotone")


def test_cli_privacy(capsys):
    import json

    assert main(["privacy", "tuv", "--d", "10", "--k", "2", "--gamma", "1/10",
                 "--epsilon", "1", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["achieved"]["epsilon"] == "1"
    assert main(["privacy", "tuv", "--d", "10", "--k", "x", "--gamma", "1/10",
                 "--epsilon", "1"]) == 2
    assert "--k" in capsys.readouterr().err
    assert main(["privacy", "tuv", "--d", "10", "--k", "2", "--gamma", "1/10",
                 "--epsilon", "0"]) == 2
    assert main(["privacy", "tuv", "--d", "2", "--k", "3", "--gamma", "1/10",
                 "--epsilon", "1"]) == 2


def test_privacy_cli_wang_and_bernstein_by_hand(capsys):
    """By hand. Wang, n = 1000, t = 2, d = 1: one noisy moment, per-moment sensitivity
    2/n + 2g with g = 2^-40 (the largest dyadic grid with g/2 >= 4(d t^2 + n) 2^-53 =
    4016 * 2^-53); pure epsilon = 1 -> scale = sensitivity.  Bernstein, S = 1/100, k = 20,
    l = 1: 21 lattice values, per-coordinate S + 2g, scale 21 (S + 2g)/epsilon."""
    import json

    from flint import fmpq

    from dpverify.cli import main
    from dpverify.numbers import fmpq_str

    g = fmpq(1, 2**40)
    assert main(["privacy", "wang", "--n", "1000", "--t", "2", "--d", "1", "--epsilon", "1",
                 "--json"]) == 0
    w = json.loads(capsys.readouterr().out)
    per = fmpq(2, 1000) + g  # exact fixed-point sums: one rounding per neighbour
    assert w["per_coordinate"] == fmpq_str(per) and w["noisy_coordinates"] == 1
    assert w["scale"] == fmpq_str(per) and w["achieved_epsilon"] == "1"
    assert main(["privacy", "bernstein", "--sensitivity", "1/100", "--k", "20",
                 "--epsilon", "2", "--json"]) == 0
    b = json.loads(capsys.readouterr().out)
    per = fmpq(1, 100) + 2 * g
    assert b["per_coordinate"] == fmpq_str(per) and b["noisy_coordinates"] == 21
    assert b["scale"] == fmpq_str(21 * per / 2) and b["achieved_epsilon"] == "2"
    assert main(["privacy", "wang", "--n", "0", "--t", "2", "--d", "1", "--epsilon", "1"]) == 2
    assert "--n" in capsys.readouterr().err


def test_delta_route_uses_the_smallest_certified_scale():
    # a bisected advanced-composition scale is smaller than Lemma 2.4's printed constant 3
    # gives, and its certified epsilon (128-bit arb, rounded up) is still <= the target
    cs = [fmpq(0), fmpq(3, 2), fmpq(-1, 2)]  # any g; the route depends on S1, Sinf, K only
    p = tuv_privacy(cs, 12, 3, 1, delta=fmpq(1, 10**6))
    frac = lambda s: fmpq(*[int(v) for v in (s.split("/") + ["1"])[:2]])  # noqa: E731
    chosen = frac(p["scale_times_n"])
    assert chosen < frac(p["lemma_2_4"]["scale_times_n"])
    assert chosen < frac(p["sensitivity"]["l1_times_n"])  # below the pure L1 scale
    assert frac(p["achieved"]["epsilon"]) <= 1
    assert "bisection" in p["route"]


def test_basic_composition_decimal_is_rounded_up():
    """1/3 + 0 = 1/3; rounded to nearest at 10 digits it would be 0.3333333333 < 1/3 (the
    old float rendering); the reported decimal must be an upper bound (by hand)."""
    from dpverify.mechanisms.privacy import compose_basic
    from dpverify.numbers import parse_exact

    rec = compose_basic([{"achieved_epsilon": "1/3", "delta": "1/100", "used": "pure"},
                         {"achieved_epsilon": "0", "delta": "1/1000"}])
    assert rec["epsilon"] == "1/3" and rec["delta"] == "1/1000"
    assert parse_exact(rec["epsilon_decimal_up"]) >= fmpq(1, 3)
