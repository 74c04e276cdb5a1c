"""Add/remove-one neighbours: the derived sensitivities hold on neighbouring databases.

For each mechanism a database ``D`` and ``D'`` = ``D`` plus one row are built (public
synthetic rows, extreme rows included) and the statistic the release noises is computed
on both -- exactly (integers, fmpq) or as certified balls -- and compared with the
sensitivity of the record.  The papers use replace-one neighbours only; these bounds are
this package's derivations (docstrings of :mod:`dpverify.mechanisms.bernstein_queries`,
:func:`dpverify.mechanisms.wang_summary.wang_privacy`, docs/mechanisms.md), checked here
independently of the accounting code.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from flint import arb, fmpq

from dpverify.errors import InvalidParameterError
from dpverify.mechanisms import bernstein_mech as bm
from dpverify.mechanisms.bernstein_accounting import add_remove_mean_plan
from dpverify.mechanisms.fixed_point import SCALE_BITS
from dpverify.mechanisms.wang_summary import exact_moment_sums, release_summary
from dpverify.noise import round_to_grid
from dpverify.numbers import parse_exact


def _lower_abs(a, b) -> fmpq:
    """A certified lower bound of |a - b| for balls (or exact numbers)."""
    d = arb(a) - arb(b)
    lo = d.abs_lower()
    return parse_exact(lo.mid().str(30, radius=False)) if lo > 0 else fmpq(0)


def test_wang_sums_move_by_at_most_one_per_coordinate():
    g = fmpq(1, 2**40)
    rng = np.random.default_rng(3)
    for _ in range(10):
        D = rng.uniform(-1, 1, (int(rng.integers(1, 30)), 2))
        x = rng.choice([-1.0, 1.0, rng.uniform(-1, 1)], size=(1, 2))
        J, J2 = exact_moment_sums(D, 5), exact_moment_sums(np.vstack([D, x]), 5)
        assert J2[0, 0] - J[0, 0] == 2**SCALE_BITS  # the count moves by exactly 1
        for m in np.ndindex(J.shape):
            assert abs(J2[m] - J[m]) <= 2**SCALE_BITS
            a = round_to_grid(fmpq(int(J[m]), 2**SCALE_BITS), g)
            b = round_to_grid(fmpq(int(J2[m]), 2**SCALE_BITS), g)
            assert abs(a - b) <= 1 + g  # the record's per-coordinate sensitivity
    s = release_summary(D, 5, 1, insecure_seed=0, neighbours="add-remove")
    assert parse_exact(s.privacy["per_coordinate"]) == 1 + g
    assert s.n is None and "n" not in s.privacy and s.to_json()["n"] is None


def _phi_wild(data, ys):
    # a user phi that is wrong on purpose: 1e6 or NaN for some rows (the clamp bounds it)
    x = data[:, 0][None, :]
    v = ys[:, :1] * x
    v = np.where(x > 0.9, 1e6, v)
    return np.where(x < 0.1, np.nan, v)


@pytest.mark.parametrize("query", [bm.kde_query("1/3", 2), bm.linear_mean_query(2),
                                   bm.mean_query("wild", _phi_wild, 0, 1, 1)],
                         ids=["kde", "linear-mean", "wild user phi"])
def test_bernstein_mean_shifted_sums_move_by_at_most_gM(query):
    g = fmpq(1, 2**20)
    C, M = add_remove_mean_plan(query.lower, query.upper, g)
    pts = bm.lattice_points(3, query.dim)
    rng = np.random.default_rng(5)
    for _ in range(6):
        D = rng.uniform(0, 1, (int(rng.integers(2, 20)), query.dim))
        x = rng.choice([0.0, 1.0, 0.05, 0.95], size=(1, query.dim))
        n = len(D)
        J = bm.mean_lattice_sums(query, D, pts, g)
        J2 = bm.mean_lattice_sums(query, np.vstack([D, x]), pts, g)
        for a, b in zip(J, J2, strict=True):
            # shifted sums g (J - n C): an added row moves each by <= g M
            assert abs(g * (b - (n + 1) * C) - g * (a - n * C)) <= g * M
    rel = bm.release_bernstein(D, query, 3, 1, 1, grid=g, check=False, insecure_seed=0,
                               neighbours="add-remove")
    assert parse_exact(rel.privacy["lattice_sensitivity"]["per_coordinate"]) == g * M
    assert "n" not in rel.info and "count" in rel.info


def _worst_ratio(q, rows, sensitivity) -> fmpq:
    """max over every database of <= 3 of ``rows`` and every added row of
    ``lower(|F(D + x) - F(D)|) / S_ar(|D|)`` at the lattice points, asserting <= 1."""
    pts = bm.exact_lattice_points(2, 1)
    worst = fmpq(0)
    for n in (1, 2, 3):
        S = sensitivity(n)
        for D in itertools.combinations_with_replacement(rows, n):
            D = np.array(D)
            FD = q.func(D, pts)
            for x in rows:
                for a, c in zip(FD, q.func(np.vstack([D, x]), pts), strict=True):
                    lo = _lower_abs(a, c)
                    assert lo <= S, (D.tolist(), x.tolist())
                    worst = max(worst, lo / S)
    return worst


def test_naive_bayes_add_remove_bound_holds_exhaustively():
    # every database of <= 3 rows with features in {0, 1/2, 1} (l = 1) and both labels,
    # plus every added row: |F(D + x) - F(D)| <= S_ar(|D|), certified with arb
    b = fmpq(1, 10)
    rows = [np.array([f, lab]) for f in (0.0, 0.5, 1.0) for lab in (1.0, -1.0)]
    worst = _worst_ratio(bm.naive_bayes_query(b, 1), rows, lambda n: bm.naive_bayes_sensitivity(
        n, 1, b, neighbours="add-remove"))
    assert worst > fmpq(1, 2)  # the bound is not vacuous: half of it is reached


def test_logistic_add_remove_bound_holds_on_a_grid():
    lam = fmpq(1, 2)
    rows = [np.array([f, lab]) for f in (-1.0, -0.5, 0.5, 1.0) for lab in (1.0, -1.0)]
    _worst_ratio(bm.logistic_query(lam, 1), rows,
                 lambda n: bm.logistic_sensitivity(n, 1, lam, neighbours="add-remove"))


def test_priestley_chao_add_remove_bound_holds():
    # D' of n + 1 rows with every consecutive gap <= c/(n + 1); removing any row moves F
    # by at most 2 B c K(0)/((n + 1) b) (the derivation uses only D''s gaps)
    b, B, c = fmpq(1, 10), fmpq(1), fmpq(1, 2)
    q = bm.priestley_chao_query(b, B, c)
    pts = bm.exact_lattice_points(8, 1)
    rng = np.random.default_rng(2)
    for n1 in (3, 5, 8):
        S = q.add_remove_sensitivity(n1 - 1)
        for _ in range(5):
            d = np.cumsum(rng.uniform(0, float(c) / n1, n1))
            d = d - d[0] + rng.uniform(0, 0.5)
            lab = rng.choice([-1.0, 1.0], n1)
            Dp = np.column_stack([np.clip(d, 0, 1), lab])
            q.validate(Dp)  # D' is in the domain
            F1 = q.func(Dp, pts)
            for j in range(n1):
                F0 = q.func(np.delete(Dp, j, axis=0), pts)
                for a, e in zip(F0, F1, strict=True):
                    assert _lower_abs(a, e) <= S


def test_ball_queries_need_their_add_remove_sensitivity_and_min_rows():
    X = np.column_stack([np.linspace(0, 1, 6), np.ones(6)])
    q = bm.logistic_query(1, 1)
    rel = bm.release_bernstein(X * [0.9, 1], q, 2, 1, 1, insecure_seed=0, check=False,
                               neighbours="add-remove", min_rows=5)
    assert rel.privacy["min_rows"] == 5 and "n" not in rel.info
    assert parse_exact(rel.privacy["function_sensitivity"]) == \
        bm.logistic_sensitivity(5, 1, 1, neighbours="add-remove")
    with pytest.raises(InvalidParameterError, match="min_rows"):
        bm.release_bernstein(X * [0.9, 1], q, 2, 1, 1, insecure_seed=0, check=False,
                             neighbours="add-remove", min_rows=7)
    user = bm.FunctionQuery("u", lambda D, ys: [fmpq(0)] * len(ys), lambda n: fmpq(1, n), 1,
                            lambda n, g: g.uniform(0, 1, (n, 1)))
    with pytest.raises(InvalidParameterError, match="add_remove_sensitivity"):
        bm.release_bernstein(X[:, :1], user, 2, 1, 1, insecure_seed=0, check=False,
                             neighbours="add-remove")
