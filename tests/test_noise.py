"""Exact discrete samplers (dpverify.noise) against their exact pmfs.

Frequencies: chi-square goodness of fit with fixed seeds (p > 1e-4 for the right pmf, and
the same test rejects a 25%-wrong scale: the test has power).  Ratios: exact log-pmf
differences (rationals) and rigorous arb balls.
"""

from __future__ import annotations

from collections import Counter

import mpmath
import pytest
from flint import arb, fmpq

from dpverify.errors import InvalidParameterError, ParameterTypeError
from dpverify.mechanisms.privacy import laplace_privacy
from dpverify.noise import (
    RandomSource,
    bernoulli,
    bernoulli_exp,
    discrete_gaussian_log_ratio,
    discrete_gaussian_pmf,
    discrete_gaussian_vector,
    discrete_laplace,
    discrete_laplace_log_ratio,
    discrete_laplace_pmf,
    discrete_laplace_tail,
    discrete_laplace_vector,
    release_on_grid,
)

N = 20000


def _chi2_p(samples, pmf, M):
    """Bins -M..M plus two tails; expected counts from the exact pmf (balls -> mid)."""
    c = Counter(samples)
    obs, exp_ = [], []
    inner = 0.0
    for z in range(-M, M + 1):
        p = float(pmf(z).mid())
        inner += p
        obs.append(c[z])
        exp_.append(p * len(samples))
    tail = (1 - inner) / 2
    obs += [sum(v for z, v in c.items() if z < -M), sum(v for z, v in c.items() if z > M)]
    exp_ += [tail * len(samples)] * 2
    stat = sum((o - e) ** 2 / e for o, e in zip(obs, exp_, strict=True) if e > 0)
    # chi-square survival function Q(dof/2, stat/2) (mpmath; scipy is only an extra)
    return float(mpmath.gammainc((len(obs) - 1) / 2, stat / 2, mpmath.inf, regularized=True))


def test_discrete_laplace_frequencies():
    b = fmpq(3, 2)
    xs = discrete_laplace_vector(N, b, insecure_seed=11)
    assert _chi2_p(xs, lambda z: discrete_laplace_pmf(z, b), 6) > 1e-4
    # power: the same samples are rejected against a 25% larger scale
    assert _chi2_p(xs, lambda z: discrete_laplace_pmf(z, b * fmpq(5, 4)), 6) < 1e-6


def test_discrete_gaussian_frequencies():
    s2 = fmpq(5, 2)
    xs = discrete_gaussian_vector(N, s2, insecure_seed=12)
    assert _chi2_p(xs, lambda z: discrete_gaussian_pmf(z, s2), 5) > 1e-4
    assert _chi2_p(xs, lambda z: discrete_gaussian_pmf(z, s2 * fmpq(25, 16)), 5) < 1e-6


def test_bernoulli_exp_frequency():
    # gamma > 1 exercises the exp(-1) product path; exact p = e^{-5/2}
    src = RandomSource(insecure_seed=3)
    hits = sum(bernoulli_exp(fmpq(5, 2), rng=src) for _ in range(N))
    p = float(arb(fmpq(-5, 2)).exp().mid())
    sd = (N * p * (1 - p)) ** 0.5
    assert abs(hits - N * p) < 5 * sd
    assert bernoulli_exp(0, rng=src) == 1  # exp(0) = 1
    assert bernoulli(0, rng=src) == 0 and bernoulli(1, rng=src) == 1


def test_pmfs_sum_to_one():
    b = fmpq(7, 3)
    M = 40
    tot = sum((discrete_laplace_pmf(z, b) for z in range(-M + 1, M)), arb(0))
    tot += discrete_laplace_tail(M, b)
    assert tot.contains(1)
    s2 = fmpq(3)
    tot = sum((discrete_gaussian_pmf(z, s2) for z in range(-60, 61)), arb(0))
    assert abs(tot - 1) < arb(fmpq(1, 10**12))


@pytest.mark.parametrize("delta_mu,scale", [(1, fmpq(2)), (3, fmpq(5, 7)), (2, fmpq(10**9, 3))])
def test_laplace_log_ratio_max_is_epsilon(delta_mu, scale):
    # neighbouring means 0 and delta_mu: the worst-case privacy loss is exactly delta_mu/b
    eps = fmpq(delta_mu) / scale
    ratios = [discrete_laplace_log_ratio(v, 0, delta_mu, scale) for v in range(-20, 21)]
    assert max(ratios) == eps and min(ratios) == -eps
    assert laplace_privacy(delta_mu, scale)["epsilon"] == (
        str(eps.p) if eps.q == 1 else f"{eps.p}/{eps.q}")
    # rigorous: the ratio of the arb pmfs encloses exp(eps) left of both means
    if scale < 100:
        r = discrete_laplace_pmf(-5, scale) / discrete_laplace_pmf(-5 - delta_mu, scale)
        assert r.overlaps(arb(eps).exp()) or (1 / r).overlaps(arb(eps).exp())


def test_gaussian_log_ratio_exact():
    # ((v - 1)^2 - v^2)/(2 s2) = (1 - 2v)/(2 s2)
    s2 = fmpq(3, 2)
    for v in range(-5, 6):
        assert discrete_gaussian_log_ratio(v, 0, 1, s2) == fmpq(1 - 2 * v) / (2 * s2)
    r = discrete_gaussian_pmf(2, s2) / discrete_gaussian_pmf(1, s2)
    assert r.overlaps(arb(discrete_gaussian_log_ratio(2, 0, 1, s2)).exp())


def test_seeded_is_reproducible_and_marked_insecure():
    a = discrete_laplace_vector(50, 3, insecure_seed=5)
    assert a == discrete_laplace_vector(50, 3, insecure_seed=5)
    assert RandomSource(insecure_seed=1).secure is False
    assert RandomSource().secure is True
    assert isinstance(discrete_laplace(2), int)


def test_release_on_grid_exact_and_rounded():
    vals = [fmpq(1, 3), fmpq(2, 3), fmpq(-5, 3)]
    out = release_on_grid(vals, fmpq(1, 3), 1, 1, exact_grid=True, insecure_seed=1)
    assert out["rounding_inflation"] == 0 and out["integer_sensitivity"] == 3
    assert all((v / fmpq(1, 3)).q == 1 for v in out["released"])
    # rounded: ceil(S1/step) + m with m = 3 coordinates
    out = release_on_grid([fmpq(1, 7)] * 3, fmpq(1, 10), fmpq(1, 4), 2, insecure_seed=1)
    assert out["integer_sensitivity"] == 3 + 3
    assert out["rounding_inflation"] == fmpq(3, 10)
    assert out["noise_scale"] == fmpq(6, 2)
    with pytest.raises(InvalidParameterError):
        release_on_grid([fmpq(1, 7)], fmpq(1, 3), 1, 1, exact_grid=True)


def test_bad_parameters():
    with pytest.raises(InvalidParameterError, match="scale"):
        discrete_laplace(0)
    with pytest.raises(InvalidParameterError, match="sigma2"):
        discrete_gaussian_vector(3, -1)
    with pytest.raises(ParameterTypeError, match="insecure_seed"):
        RandomSource(insecure_seed=1.5)
    with pytest.raises(InvalidParameterError, match="p must be"):
        bernoulli(fmpq(3, 2))
