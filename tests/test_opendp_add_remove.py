"""Add/remove-one accounting against OpenDP (the ``opendp`` extra), where OpenDP offers the
same mechanism: bounded integer sums and counts under its symmetric distance (one row
added or removed is ``d_in = 1``), with discrete Laplace or discrete Gaussian noise.

* Bernstein mean queries (add-remove): every lattice coordinate is the sum of the per-row
  grid integers shifted by a public centre, bounded by ``[L - C, H - C]``, and the count is
  the sum of the constant ``M`` per row.  OpenDP's ``make_sum`` on those bounds composed
  with ``then_laplace`` (its discrete Laplace on integers), ``m + 1`` of them by basic
  composition, must give dpverify's achieved epsilon: the per-coordinate sensitivity
  ``M`` (grid units) and the scale are the same numbers, exactly.
* Wang summary (add-remove): per-row moments in ``[-1, 1]`` are ``[-2^40, 2^40]`` grid units
  in OpenDP's integer model; dpverify adds one grid unit per coordinate for rounding the
  exact sums to the grid (OpenDP's model has rows already on the grid), so dpverify's
  epsilon is larger by exactly ``t^d g / b`` -- conservative, never optimistic.
* A count with discrete Gaussian noise: OpenDP's zCDP ``rho`` equals dpverify's
  ``gaussian_privacy`` with L2 sensitivity 1 (the add/remove count).

OpenDP's maps are floats rounded conservatively; the relation asserted is
``dpverify exact <= OpenDP <= dpverify exact (1 + 2^-40)`` (with the explained offset for
the Wang summary).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from flint import fmpq

dp = pytest.importorskip("opendp.prelude", reason='needs the opendp extra: pip install '
                         '"dpverify[opendp]"')

from dpverify.mechanisms import bernstein_mech as bm  # noqa: E402
from dpverify.mechanisms.bernstein_accounting import add_remove_mean_plan  # noqa: E402
from dpverify.mechanisms.privacy import gaussian_privacy  # noqa: E402
from dpverify.mechanisms.wang_summary import release_summary  # noqa: E402
from dpverify.numbers import parse_exact  # noqa: E402

dp.enable_features("contrib")
REL = fmpq(1, 2**40)


def exact(x: float) -> fmpq:
    p, q = float(x).as_integer_ratio()
    return fmpq(p, q)


def float_down(q: fmpq) -> float:
    f = int(q.p) / int(q.q)
    return f if exact(f) <= q else math.nextafter(f, -math.inf)


def bounded_sum_laplace(lo: int, hi: int, scale: float):
    """OpenDP: sum of integers in [lo, hi] per row (symmetric distance), discrete Laplace."""
    space = dp.vector_domain(dp.atom_domain(bounds=(lo, hi), T="i64")), dp.symmetric_distance()
    return dp.t.make_sum(*space) >> dp.m.then_laplace(scale=scale)


def composed_epsilon(measurements) -> fmpq:
    comp = dp.c.make_composition(measurements)
    return exact(comp.map(1))


@pytest.mark.parametrize("k, dim, lo, hi", [(2, 1, 0, 1), (3, 2, 0, 2), (1, 1, "-3/4", "5/2")])
def test_bernstein_mean_add_remove_matches_opendp(k, dim, lo, hi):
    g = fmpq(1, 1024)  # the coarsest grid: grid units fit OpenDP's i64
    q = bm.mean_query("xy", lambda d, ys: ys[:, :1] * d[:, 0][None, :], lo, hi, dim)
    X = np.random.default_rng(k).uniform(0, 1, (20, dim))
    rel = bm.release_bernstein(X, q, k, 1, "1/2", grid=g, check=False, insecure_seed=0,
                               neighbours="add-remove")
    p = rel.privacy
    C, M = add_remove_mean_plan(lo, hi, g)
    L, H = int(parse_exact(str(fmpq(lo) / g)).floor()), int(parse_exact(str(fmpq(hi) / g)).ceil())
    m = (k + 1) ** dim
    assert parse_exact(p["lattice_sensitivity"]["per_coordinate"]) == g * M
    assert p["lattice_sensitivity"]["coordinates"] == m + 1
    b_units = parse_exact(p["scale"]) / g
    meas = [bounded_sum_laplace(L - C, H - C, float_down(b_units)) for _ in range(m)]
    # the count, weight M per row: its own input domain, composed by adding epsilons
    got = composed_epsilon(meas) + exact(bounded_sum_laplace(M, M, float_down(b_units)).map(1))
    ours = parse_exact(p["achieved_epsilon"])
    assert ours <= got <= ours * (1 + REL), (ours, got)
    # OpenDP's per-sum sensitivity is max(|L - C|, |H - C|) = M, as derived
    space = (dp.vector_domain(dp.atom_domain(bounds=(L - C, H - C), T="i64")),
             dp.symmetric_distance())
    assert dp.t.make_sum(*space).map(1) == M


def test_wang_add_remove_against_opendp_integer_model():
    t, d = 3, 2
    X = np.random.default_rng(2).uniform(-1, 1, (30, d))
    s = release_summary(X, t, 1, insecure_seed=0, neighbours="add-remove")
    p = s.privacy
    g = s.grid
    units = int(1 / g)  # [-1, 1] in grid units
    b_units = parse_exact(p["scale"]) / g
    meas = [bounded_sum_laplace(-units, units, float_down(b_units)) for _ in range(t**d)]
    got = composed_epsilon(meas)
    ours = parse_exact(p["achieved_epsilon"])
    offset = t**d * g / parse_exact(p["scale"])  # one grid unit of rounding per coordinate
    assert ours - offset <= got <= (ours - offset) * (1 + REL), (ours, got, offset)


@pytest.mark.parametrize("sigma2", ["1", "9/4", "100"])
def test_count_with_discrete_gaussian_matches_opendp(sigma2):
    s2 = fmpq(sigma2)
    sigma = math.sqrt(float(s2))
    count = dp.t.make_count(dp.vector_domain(dp.atom_domain(T="i64")), dp.symmetric_distance())
    rho_opendp = exact((count >> dp.m.then_gaussian(scale=sigma)).map(1))
    rec = gaussian_privacy(1, exact(sigma) ** 2)  # the float sigma OpenDP was given
    assert rec.rho <= rho_opendp <= rec.rho * (1 + REL)
    # and the exact variance: 1/(2 sigma^2)
    assert gaussian_privacy(1, s2).rho == 1 / (2 * s2)
