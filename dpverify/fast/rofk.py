"""float64 r-of-k (Sherstov, thaler2012 Appendix B) and decision-list ``h_k`` (Appendix A).

The monomial coefficients of these polynomials are huge and alternate in sign (thousands of
bits for moderate ``k``), so float64 *monomial* coefficients would be meaningless.  The fast
path therefore evaluates the printed steps as a composition of functions at the points
(vectorised), and gives the stable Chebyshev coefficients on ``[0, k]`` by a DCT of the
values at ``degree + 1`` Chebyshev points (exact for a polynomial up to rounding).

The integer parameters ``Delta, z, d, D_l, N_l`` come from the exact
:func:`dpverify.constructions.sherstov.sherstov_parameters` (they are integers and cheap);
only the polynomial arithmetic is in floats.

Does NOT promise
----------------
Heuristic float64.  ``T_N(y)/T_N(1 + eta)`` is evaluated as a ratio of ``cos``/``cosh`` terms
to avoid overflow; no error bound is claimed here, the measured one is declared in
:mod:`dpverify.crosscheck`.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..numbers import ExactLike, IntLike, check_int, check_open_unit
from .chebyshev import and_values, as_points, chebyshev_coeffs_from_values, chebyshev_points

__all__ = ["t_ratio", "rofk_values", "rofk_chebyshev_coeffs", "h_values"]


def _acosh_ratio_terms(n: int, y: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """For |y| > 1: T_n(y) = s * exp(n*A) * (1 + exp(-2nA))/2 with A = acosh|y|."""
    A = np.arccosh(np.abs(y))
    s = np.where(y < 0, (-1.0) ** n, 1.0)
    return s, A, 0.5 * (1.0 + np.exp(-2.0 * n * A))


def t_ratio(n: int, y: Any, y0: float) -> np.ndarray:
    """``T_n(y) / T_n(y0)`` for ``y0 > 1`` without overflow (float64, vectorised)."""
    y = np.asarray(y, dtype=np.float64)
    A0 = float(np.arccosh(y0))
    den_m = 0.5 * (1.0 + np.exp(-2.0 * n * A0))  # T_n(y0) = exp(n A0) * den_m
    out = np.empty_like(y)
    inside = np.abs(y) <= 1.0
    out[inside] = np.cos(n * np.arccos(y[inside])) * np.exp(-n * A0) / den_m
    s, A, m = _acosh_ratio_terms(n, y[~inside])
    out[~inside] = s * np.exp(n * (A - A0)) * m / den_m
    return out


def _q3(l_: int, prm: Any, t: np.ndarray) -> np.ndarray:
    """``q_{3,l}(t)`` of thaler2012 Appendix B steps 1-7, evaluated in floats."""
    k, Delta = prm.k, prm.Delta
    m = float(k - l_ - Delta)
    c = float(k - l_)
    D, N = prm.cheb1[l_], prm.cheb3[l_]
    eta = float(prm.eta[l_])
    s = k - t  # step 7: q3(t) = q2(k - t)

    def p1(v: np.ndarray) -> np.ndarray:  # step 1: T_D(v / m)
        u = v / m
        out = np.empty_like(u)
        inside = np.abs(u) <= 1.0
        out[inside] = np.cos(D * np.arccos(u[inside]))
        sg, A, mm = _acosh_ratio_terms(D, u[~inside])
        out[~inside] = sg * np.exp(D * A) * mm
        return out

    p1c = p1(np.array([c]))[0]
    p2 = ((p1(s) - p1c) / 8.0) ** 2  # step 2
    p4 = t_ratio(N, 1.0 + eta - p2, 1.0 + eta)  # steps 3-4 (p2(c) = 0)
    roots = np.array([k - l_ - i for i in range(-(Delta - 1), Delta) if i != 0], dtype=float)
    if roots.size:
        # step 5-6: q1(s)/q1(c) = prod (s - root)/(c - root), one vectorised product
        ratio = np.prod((s[:, None] - roots[None, :]) / (c - roots[None, :]), axis=1)
    else:
        ratio = np.ones_like(s)
    return p4 * ratio


def rofk_values(r: IntLike, k: IntLike, gamma: ExactLike, x: Any,
                reading: Any = None) -> np.ndarray:
    """``p(x) = 1 - sum_l q_{3,l}(x)`` (thaler2012 Appendix B step 8) at the points ``x``.

    Does NOT promise: float64; accuracy degrades where the composed polynomial is large
    (off the integers); see the module docstring.
    """
    # deferred: importing constructions adds ~60 ms to `import dpverify.fast` (-X importtime)
    from ..constructions.sherstov import sherstov_parameters

    prm = sherstov_parameters(r, k, gamma, reading)
    xs = as_points(x)
    total = np.zeros_like(xs)
    for l_ in prm.ells:  # loop over the r terms, vectorised over points
        total += _q3(l_, prm, xs)
    return 1.0 - total


def rofk_degree(r: IntLike, k: IntLike, gamma: ExactLike, reading: Any = None) -> int:
    """Predicted degree ``max_l 2 D_l N_l + 2(Delta - 1)`` (exact integer arithmetic)."""
    # deferred: importing constructions adds ~60 ms to `import dpverify.fast` (-X importtime)
    from ..constructions.sherstov import sherstov_parameters

    prm = sherstov_parameters(r, k, gamma, reading)
    return max(prm.degree.values())


def rofk_chebyshev_coeffs(
    r: IntLike, k: IntLike, gamma: ExactLike, reading: Any = None
) -> tuple[np.ndarray, tuple[int, int]]:
    """Chebyshev coefficients on ``(0, k)`` of the r-of-k polynomial (DCT of the values at
    ``degree + 1`` Chebyshev points).  Convention as :class:`dpverify.exact.ChebyshevPoly`.

    Does NOT promise: float64; coefficients that are tiny compared with the largest value
    of ``p`` on ``[0, k]`` are pure rounding noise.
    """
    k = check_int(k, "k", minimum=2)
    n = rofk_degree(r, k, gamma, reading) + 1
    pts = chebyshev_points(n, (0, k))
    return chebyshev_coeffs_from_values(rofk_values(r, k, gamma, pts, reading)), (0, k)


def h_values(k: IntLike, gamma: ExactLike, z: Any) -> np.ndarray:
    """Decision-list ``h_k(z) = 1 - g_k(k - z)`` with ``g_k`` built for ``gamma/k``
    (thaler2012 Appendix A), i.e. the AND form ``T_t(w)/T_t(a)``,
    ``w = (2z - k + 1)/(k - 1)``.  float64, no promise."""
    k = check_int(k, "k", minimum=1)
    g = check_open_unit(gamma, "gamma")
    return and_values(k, g / k, z)
