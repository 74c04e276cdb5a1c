"""Chebyshev polynomials for the construction checks: values, least degrees, affine forms.

* :func:`t_value` is ``T_n(a)`` for a rational ``a`` by the doubling formulas
  ``T_{2m} = 2 T_m^2 - 1``, ``T_{2m+1} = 2 T_m T_{m+1} - a`` (O(log n) exact operations).
* :func:`least_degree` is the least ``t >= 1`` with ``T_t(x0) >= 1/gamma`` for ``x0 > 1``:
  since ``T_t(x0) = cosh(t acosh x0)`` increases with ``t``, ``t = ceil(rho)``,
  ``rho = acosh(1/gamma) / acosh(x0)``.  An arb enclosure of ``rho`` brackets ``t``; each
  candidate is then decided exactly, and candidates far from the degree the caller
  can accept are refused from the enclosure alone (rigorous either way), so a forged
  ``gamma`` never makes the checker build a ``T_t(x0)`` of billions of bits.
* :func:`is_affine_chebyshev` proves ``P(x) = alpha + beta T_t(lam x + mu)`` without
  expanding ``T_t``: with ``y = lam x + mu`` (``d/dx = lam d/dy``), ``Q = T_t(y)`` solves
  Chebyshev's equation ``(1 - y^2) Q'' - lam y Q' + lam^2 t^2 Q = 0``; on ``Q = sum q_j y^j``
  the operator gives ``(t^2 - j^2) q_j + (j+2)(j+1) q_{j+2}`` at ``y^j``, so every
  polynomial solution of degree ``<= t`` is ``c T_t`` (each ``q_j``, ``j < t``, is forced
  by ``q_{j+2}``).  Hence ``P`` is of the form iff ``deg P <= t``, the operator maps
  ``P`` to the constant ``lam^2 t^2 alpha``, and the leading coefficient of ``P`` is
  ``beta 2^(t-1) lam^t``.  The cost is a few products of ``P`` by polynomials of degree
  <= 2: linear in the size of ``P``, where composing ``T_t`` with ``lam x + mu`` costs
  about ``t`` times more (and gigabytes for the largest degrees).
"""

from __future__ import annotations

from flint import arb, fmpq, fmpq_poly

from .numbers import working

__all__ = ["t_value", "least_degree", "is_affine_chebyshev"]


def t_value(n: int, a: fmpq) -> fmpq:
    """``T_n(a)`` exactly (``n >= 0``)."""
    lo, hi = fmpq(1), a  # (T_m(a), T_{m+1}(a)) for m = 0
    for bit in bin(n)[2:]:
        if bit == "0":  # m -> 2m
            lo, hi = 2 * lo * lo - 1, 2 * lo * hi - a
        else:  # m -> 2m + 1
            lo, hi = 2 * lo * hi - a, 2 * hi * hi - 1
    return lo


def _rho(x0: fmpq, gamma: fmpq) -> tuple[int, int] | None:
    """Integers ``(lo, hi)`` with ``lo <= ceil(rho) <= hi`` (``rho`` of the module
    docstring), from arb at growing precision; None if the enclosure never narrows."""
    for prec in (64, 256, 1024, 4096):
        with working(prec):
            r = (1 / arb(gamma)).acosh() / arb(x0).acosh()
            lo_b, hi_b = r.lower(), r.upper()
            if not (lo_b.is_finite() and hi_b.is_finite()):
                continue
            lo_z, hi_z = lo_b.floor().unique_fmpz(), hi_b.ceil().unique_fmpz()
            if lo_z is not None and hi_z is not None and hi_z - lo_z <= 2:
                return max(int(lo_z), 1), max(int(hi_z), 1)
    return None


def least_degree(x0: fmpq, gamma: fmpq, near: int) -> tuple[int | None, bool | None, str]:
    """``(t, found, why)`` for the least ``t >= 1`` with ``T_t(x0) gamma >= 1`` (``x0 > 1``,
    ``0 < gamma < 1``): ``t`` exactly (``found`` True) when it is within 1 of ``near``
    (the degree the caller compares it with); else ``found`` is False and ``why`` gives a
    proven range of ``t`` that excludes ``near`` (``found`` None: the arb enclosure did not
    narrow, which does not happen for numbers within the verifier's caps)."""
    br = _rho(x0, gamma)
    if br is None:
        return None, None, "could not enclose acosh(1/gamma) / acosh(x0)"
    lo, hi = br
    if hi < near - 1 or lo > near + 1:
        return None, False, f"the least t is in [{lo}, {hi}] (arb enclosure of " \
                            f"acosh(1/gamma) / acosh(x0))"
    # every t < lo is < rho, so T_t(x0) < 1/gamma: the first t from lo that passes is least
    for t in range(lo, max(hi, near + 1) + 1):
        if t_value(t, x0) * gamma >= 1:
            return t, True, f"T_{t}(x0) >= 1/gamma > T_{t - 1}(x0) (exact)"
    return None, False, f"T_t(x0) < 1/gamma for every t <= {max(hi, near + 1)} (exact)"


def is_affine_chebyshev(P: fmpq_poly, t: int, lam: fmpq, mu: fmpq, alpha: fmpq,
                        beta: fmpq) -> tuple[bool, str]:
    """Whether ``P(x) = alpha + beta T_t(lam x + mu)`` exactly (``t >= 1``, ``lam != 0``,
    ``beta != 0``); see the module docstring."""
    if P.degree() != t:
        return False, f"degree {P.degree()}, the construction has degree {t}"
    lead = beta * fmpq(2) ** (t - 1) * lam**t
    if P[t] != lead:
        return False, "the leading coefficient differs from the construction's"
    y = fmpq_poly([mu, lam])
    d1 = P.derivative()
    L = (1 - y * y) * d1.derivative() - lam * y * d1 + lam * lam * t * t * P
    if L != fmpq_poly([lam * lam * t * t * alpha]):
        return False, "P does not satisfy Chebyshev's differential equation for T_t(lam x + mu)"
    return True, "proved by Chebyshev's differential equation and the leading coefficient"
