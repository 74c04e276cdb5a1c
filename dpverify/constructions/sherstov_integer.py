"""The steps of thaler2012 Appendix B in integer arithmetic: the fast path of :mod:`.sherstov`.

The printed steps (:mod:`.sherstov` docstring) compose rational polynomials; done as printed
(``fmpq_poly``), every step carries ``(64 m^{2D})^N``-sized denominators that FLINT keeps
reducing.  Clearing them once gives integer polynomials only (``m = k - l - Delta``,
``c = k - l``, ``eta = e_n/e_d`` in lowest terms, ``s = k - t``)::

    Tm(s) = m^D T_D(s/m)  in Z[s],   A = Tm(c),   V = Tm - A
    1 + eta - p2(s) = U(s)/du,  U = 64 m^{2D} (e_d + e_n) - e_d V^2,  du = 64 e_d m^{2D}
    p3 = H_N / du^N,   H_n := du^n T_n(U/du)  in Z[s]
    p4 = H_N / H_N(c),   q2 = H_N Q1 / (H_N(c) Q1(c)),   Q1(s) = prod_i (s - (k - l - i))
    q3(t) = Z(t) / E,   Z(t) = H_N(k - t) Q1(k - t),   E = H_N(c) Q1(c)

because ``p1(s) - p1(c) = V(s)/m^D`` and ``du^N`` cancels in ``p4``.  ``H_n`` follows
Chebyshev's doubling formulas ``T_{2n} = 2 T_n^2 - 1``, ``T_{2n+1} = 2 T_n T_{n+1} - T_1``
homogenised: ``H_{2n} = 2 H_n^2 - du^{2n}``, ``H_{2n+1} = 2 H_n H_{n+1} - du^{2n} U`` --
about ``log2 N`` products of integer polynomials (FLINT's fast multiplication) instead of a
rational composition.  ``H_N(k - t)`` is computed by the same doubling from ``U(k - t)``
(a Taylor shift of a degree-``2D`` polynomial), which is cheaper than shifting ``H_N``.

Each term splits in two independent halves of equal cost: the records of steps 3, 4, 6
(:func:`s_steps`, in ``s``) and the polynomial ``q3`` (:func:`t_step`, in ``t``); the
caller may run them in two processes.  The denominators ``E_l`` are known before either
(:class:`TermSetup`), so step 8 is accumulated term by term over their least common
multiple and converted to ``fmpq_poly`` once (:func:`reduced_poly`).

Guarantee
---------
Exact: the same polynomials as the printed steps (tests compare both at many parameters);
the step records (degree, ``log2`` of the largest coefficient, full coefficient lists) are
byte for byte those of the rational computation, since they depend only on the values.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from flint import fmpq, fmpq_poly, fmpz, fmpz_poly

from ..exact.lowest_terms import coefficient_strings
from ..numbers import log2_fmpq

__all__ = ["Fraction", "TermSetup", "homogeneous_chebyshev", "doubling_products", "term_setup",
           "small_steps", "s_steps", "t_step", "half_products", "reduced_poly", "poly_record"]

#: a polynomial as an integer numerator and a non-zero integer denominator (not reduced)
Fraction = tuple[fmpz_poly, fmpz]

#: ``tick()`` after each product of a long computation (progress)
_Tick = Callable[[], None]


def _noop() -> None:
    return None


def homogeneous_chebyshev(U: fmpz_poly, du: fmpz, n: int, tick: _Tick = _noop) -> fmpz_poly:
    """``H_n = du^n T_n(U / du)`` in ``Z[x]`` (module docstring), by doubling.

    Only the last doubling step is at full size, and it needs one product: ``H_n`` from
    ``H_a`` (``n = 2a``) or from the pair ``H_a, H_{a+1}`` (``n = 2a + 1``; a pair costs
    two products per halving).  ``tick()`` is called after each product
    (:func:`doubling_products` of them)."""
    if n == 0:
        return fmpz_poly([1])
    if n == 1:
        return U
    a = n // 2
    if n % 2 == 0:
        Ha = homogeneous_chebyshev(U, du, a, tick)
        out = Ha * Ha * 2 - du ** n  # Ha * Ha: FLINT squares (faster than a product)
    else:
        Ha, Hb = _pair(U, du, a, tick)
        out = Ha * Hb * 2 - du ** (2 * a) * U
    tick()
    return out


def _pair(U: fmpz_poly, du: fmpz, n: int, tick: _Tick) -> tuple[fmpz_poly, fmpz_poly]:
    """``(H_n, H_{n+1})``."""
    if n == 0:
        return fmpz_poly([1]), U
    a = n // 2
    Ha, Hb = _pair(U, du, a, tick)  # H_a, H_{a+1}
    dd = du ** (2 * a)
    mixed = Ha * Hb * 2 - dd * U  # H_{2a+1}
    tick()
    if n % 2 == 0:  # n = 2a: (H_{2a}, H_{2a+1})
        out = (Ha * Ha * 2 - dd, mixed)
    else:  # n = 2a + 1: (H_{2a+1}, H_{2a+2})
        out = (mixed, Hb * Hb * 2 - dd * du * du)
    tick()
    return out


def doubling_products(n: int) -> int:
    """The number of ``tick()`` calls of ``homogeneous_chebyshev(., ., n)``."""
    if n <= 1:
        return 0
    a = n // 2
    return (doubling_products(a) if n % 2 == 0 else _pair_products(a)) + 1


def _pair_products(n: int) -> int:
    return 0 if n == 0 else _pair_products(n // 2) + 2


@dataclass(frozen=True)
class TermSetup:
    """The small pieces of one term ``l``: everything but the degree-``2DN`` polynomials.

    ``E = H_N(c) Q1(c)`` is the denominator of ``q3`` (``H_N(c)`` by the same doubling on
    the constant ``U(c)``), so the common denominator of step 8 is known before any large
    polynomial exists."""

    l: int
    k: int
    N: int
    p1: Fraction
    p2: Fraction
    U: fmpz_poly
    du: fmpz
    Q1: fmpz_poly
    Hc: fmpz
    E: fmpz


def term_setup(l_: int, k: int, Delta: int, D: int, N: int, eta: fmpq) -> TermSetup:
    """:class:`TermSetup` of step ``l`` (module docstring)."""
    m = k - l_ - Delta
    c = k - l_
    TD = fmpz_poly.chebyshev_t(D)
    Tm = fmpz_poly([TD[j] * fmpz(m) ** (D - j) for j in range(D + 1)])
    V = Tm - Tm(c)
    mD = fmpz(m) ** D
    en, ed = eta.p, eta.q
    mm = mD * mD
    du = 64 * ed * mm
    U = 64 * mm * (ed + en) - ed * V * V
    # a common factor g of U and du leaves U/du unchanged and takes N log2 g bits off every
    # coefficient below (powers of 2 from 64 and e_d: 5-15% of the size)
    g = U.content().gcd(du)
    U, du = fmpz_poly([a // g for a in U.coeffs()]), du // g
    Q1 = fmpz_poly([1])
    for i in range(-(Delta - 1), Delta):
        if i != 0:
            Q1 *= fmpz_poly([-(k - l_ - i), 1])
    Hc = homogeneous_chebyshev(fmpz_poly([U(c)]), du, N)[0]
    return TermSetup(l_, k, N, (Tm, mD), (V * V, 64 * mm), U, du, Q1, Hc, Hc * Q1(c))


def small_steps(ts: TermSetup) -> dict[str, Fraction]:
    """Steps 1, 2 and 5 (``p1, p2, q1``, in ``s``; small degree)."""
    return {"p1": ts.p1, "p2": ts.p2, "q1": (ts.Q1, fmpz(1))}


def s_steps(ts: TermSetup, tick: _Tick = _noop) -> dict[str, Fraction]:
    """Steps 3, 4 and 6 (``p3, p4, q2``, in ``s``): what the step records show.
    ``tick()`` after each large product (``half_products(N)`` of them)."""
    Hs = homogeneous_chebyshev(ts.U, ts.du, ts.N, tick)
    q2 = Hs * ts.Q1
    tick()
    return {"p3": (Hs, ts.du ** ts.N), "p4": (Hs, ts.Hc), "q2": (q2, ts.E)}


def t_step(ts: TermSetup, tick: _Tick = _noop) -> Fraction:
    """Step 7, ``q3(t) = q2(k - t)``, built from ``U(k - t)`` directly (the polynomial of
    the construction).  ``tick()`` after each large product (``half_products(N)``)."""
    flip = fmpz_poly([ts.k, -1])  # s = k - t
    Ht = homogeneous_chebyshev(ts.U(flip), ts.du, ts.N, tick)
    q3 = Ht * ts.Q1(flip)
    tick()
    return q3, ts.E


def half_products(N: int) -> int:
    """The number of ``tick()`` calls of :func:`s_steps` (or :func:`t_step`) for ``N``."""
    return doubling_products(N) + 1


def _positive(fr: Fraction) -> Fraction:
    num, den = fr
    return (-num, -den) if den < 0 else (num, den)


def reduced_poly(cs: list[fmpz], den: fmpz) -> fmpq_poly:
    """``sum_i cs[i] x^i / den`` as an ``fmpq_poly`` (``den != 0``), the common content
    taken out with few large gcds first.

    ``g = gcd(den, sum_i w_i c_i, sum_i w'_i c_i)`` for two sets of small weights is a
    multiple of ``G = gcd(content, den)``; when ``g`` divides every coefficient it divides
    ``G`` as well, so ``g = G`` (exact; a coefficient it does not divide replaces ``g`` by
    a gcd with it).  FLINT's own canonicalisation then finds content 1 after a few gcds,
    instead of one gcd of the size of ``G`` (thousands of bits here) per coefficient.
    ``cs`` is consumed (its entries are replaced)."""
    if den < 0:
        den = -den
        for i, c in enumerate(cs):
            cs[i] = -c
    if not any(c != 0 for c in cs):
        return fmpq_poly([0])
    w1 = sum((c * ((i * 2654435761 + 1) & 0xFFFFFFFF) for i, c in enumerate(cs)), fmpz(0))
    w2 = sum((c * ((i * 40503 + 12345) & 0xFFFF) for i, c in enumerate(cs)), fmpz(0))
    g = den.gcd(w1).gcd(w2)
    while g != 1:
        for c in cs:
            if c % g != 0:  # g is a proper multiple of G: gcd(g, c) still is one
                g = g.gcd(c)
                break
        else:
            for i, c in enumerate(cs):
                cs[i] = c // g
            den = den // g
            break
    num = fmpz_poly(cs)
    cs.clear()
    return fmpq_poly(num, den)


def poly_record(fr: Fraction, full: bool) -> dict[str, Any]:
    """``{"degree", "max_abs_coefficient_log2"[, "coefficients"]}`` of ``num / den``: the
    degree, ``log2 max |c_i|`` rounded to 3 decimals (display only) and, if ``full``, the
    exact coefficient strings in lowest terms (``"0"`` for zero)."""
    num, den = _positive(fr)
    top = max((abs(c) for c in num.coeffs()), default=fmpz(0))
    obj: dict[str, Any] = {
        "degree": num.degree(),
        # the value max |c_i| (one fmpq, lowest terms): the same log2 whatever the
        # common denominator
        "max_abs_coefficient_log2": round(log2_fmpq(fmpq(top, den)), 3) if top != 0 else None,
    }
    if full:
        obj["coefficients"] = coefficient_strings(fmpq_poly(num, den))
    return obj
