"""Gaussian noise: zCDP of (discrete) Gaussian noise and its conversion to (epsilon, delta)
(Bun-Steinke 2016 Propositions 1.3, 1.6; Canonne, Kamath, Steinke 2020 Theorem 14)."""

from __future__ import annotations

from typing import Any

from flint import arb, fmpq

from ...errors import CertificationFailed
from ...noise import check_delta, check_epsilon
from ...numbers import ExactLike, check_rational
from .records import GaussianRecord, upper_of

__all__ = ["rho_to_epsilon", "gaussian_privacy", "gaussian_sigma2"]


def rho_to_epsilon(rho: fmpq, delta: fmpq) -> arb:
    return arb(rho) + 2 * (arb(rho) * (-arb(delta).log())).sqrt()


def gaussian_privacy(
    sensitivity_l2_squared: Any, sigma2: ExactLike, delta: ExactLike | None = None
) -> GaussianRecord:
    """zCDP and ``(epsilon, delta)`` of (discrete) Gaussian noise of variance ``sigma2``.

    Parameters
    ----------
    sensitivity_l2_squared : exact number >= 0
        ``Delta_2^2`` (squared, so it stays rational).
    sigma2 : exact number > 0
        ``sigma^2`` per coordinate.
    delta : exact number in (0, 1), optional
        Convert to ``(epsilon, delta)``.

    Guarantee
    ---------
    ``rho = Delta_2^2/(2 sigma^2)`` exact (Bun-Steinke 2016 Prop. 1.6; CKS 2020 Thm 14);
    ``epsilon = rho + 2 sqrt(rho ln(1/delta))`` rigorous upper bound (Bun-Steinke Prop. 1.3).
    """
    s2 = check_rational(sensitivity_l2_squared, "sensitivity_l2_squared", 0, None)
    v = check_rational(sigma2, "sigma2", 0, None, low_open=True)
    if delta is None:
        return GaussianRecord(sensitivity_l2_squared=s2, sigma2=v)
    de = check_delta(delta)
    return GaussianRecord(sensitivity_l2_squared=s2, sigma2=v, delta=de,
                          epsilon=upper_of(rho_to_epsilon(s2 / (2 * v), de)))


def gaussian_sigma2(sensitivity_l2_squared: Any, epsilon: ExactLike, delta: ExactLike) -> fmpq:
    """A rational ``sigma^2`` (about 30 significant bits) with
    ``rho + 2 sqrt(rho ln(1/delta)) <= epsilon`` certified, ``rho = Delta_2^2/(2 sigma^2)``.

    Guarantee
    ---------
    The returned value is checked with arb (the inequality holds rigorously); raises
    ``CertificationFailed`` if it cannot be decided (never returns an unchecked scale).
    """
    s2 = check_rational(sensitivity_l2_squared, "sensitivity_l2_squared", 0, None,
                        low_open=True)
    e = check_epsilon(epsilon)
    de = check_delta(delta)
    L = -arb(de).log()
    rho_star = ((L + arb(e)).sqrt() - L.sqrt()) ** 2  # solves rho + 2 sqrt(rho L) = eps
    sig = arb(s2) / (2 * rho_star)
    hi = upper_of(sig * (1 + arb(fmpq(1, 2**30))))
    # round to ~30 significant bits upward
    bits = max(0, int(hi.p).bit_length() - int(hi.q).bit_length())
    den = 2 ** max(0, 30 - bits)
    cand = fmpq(-((-int(hi.p) * den) // int(hi.q)), den)
    if not bool(rho_to_epsilon(s2 / (2 * cand), de) <= arb(e)):
        raise CertificationFailed("could not certify the Gaussian scale (increase epsilon)")
    return cand
