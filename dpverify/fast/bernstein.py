"""float64 (iterated) Bernstein bases in Bernstein coordinates; de Casteljau evaluation.

Exact reference: :mod:`dpverify.constructions.bernstein` (alda2017 Definitions 6-8).  Same
orientation: ``M[mu, nu]`` is the coefficient of ``b^{(h)}_{nu,k}`` on ``b_{mu,k}``, with
``M = sum_{j<h} (I - A)^j`` and ``A[mu, nu] = b_{nu,k}(mu/k)``.

Does NOT promise
----------------
Heuristic float64.  ``A`` is built from ``exp(log C(k,nu) + nu log(mu/k) + ...)``
(direct products for ``k <= 1000``, log space (cumulative log-factorials) above), a few ulps
(``k <= 1000``) or about ``eps |log C(k,nu)|`` relative per entry; ``M`` by Horner's rule
``M <- I + (I - A) M`` in float matrix products (the entries of ``M`` grow like ``2^h`` and
cancellation inside ``(I - A)^j`` costs a few more digits).  Evaluation by de Casteljau is
backward stable (Farin, *Curves and Surfaces for CAGD*), but no bound is claimed here; the
measured deviations are the tolerances in :mod:`dpverify.crosscheck`.
"""

from __future__ import annotations

from math import comb
from typing import SupportsFloat

import numpy as np
from numpy.typing import ArrayLike

from ..numbers import check_int
from .chebyshev import as_points

__all__ = [
    "bernstein_basis_values",
    "operator_matrix",
    "iterated_basis_matrix",
    "iterated_coefficients",
    "de_casteljau",
    "bernstein_eval",
]


def bernstein_basis_values(k: int, s: ArrayLike) -> np.ndarray:
    """``V[i, nu] = b_{nu,k}(s_i) = C(k,nu) s_i^nu (1-s_i)^(k-nu)``, shape ``(len(s), k+1)``.

    Vectorised: direct products for ``k <= 1000``, else ``exp(log C(k,nu) + nu log s +
    (k-nu) log(1-s))``; exact 0/1 at ``s = 0, 1``.  float64, no promise (relative error per
    entry a few ulps, resp. about ``eps |log C(k,nu)|``; values below ~1e-250 may
    underflow to 0).
    """
    k = check_int(k, "k", minimum=0)
    x = np.clip(as_points(s, "s"), 0.0, 1.0)
    nu = np.arange(k + 1, dtype=np.float64)
    if k <= 1000:  # direct products: float(C(k,nu)) < 1e300, powers accurate to ~1 ulp
        lc = np.array([float(comb(k, j)) for j in range(k + 1)])
        return lc[None, :] * x[:, None] ** nu[None, :] * (1.0 - x)[:, None] ** (k - nu)[None, :]
    # log space: log C(k,nu) + nu log x + (k-nu) log(1-x); 0 log 0 = 0 (xlogy/xlog1py);
    # one exp per entry, relative error about eps * |log C(k,nu)|
    logfact = np.concatenate(([0.0], np.cumsum(np.log(np.arange(1.0, k + 1.0)))))
    lc = logfact[k] - logfact[:k + 1] - logfact[k::-1]
    with np.errstate(divide="ignore"):
        ls = np.log(x)[:, None]
        l1 = np.log1p(-x)[:, None]
    expo = lc[None, :] + _xlog(nu, ls) + _xlog(k - nu, l1)
    return np.exp(expo)


def _xlog(n: np.ndarray, logs: np.ndarray) -> np.ndarray:
    """``n * log`` with ``0 * (-inf) = 0``."""
    with np.errstate(invalid="ignore"):
        out = n[None, :] * logs
    return np.where(n[None, :] == 0, 0.0, out)


def operator_matrix(k: int) -> np.ndarray:
    """``A[mu, nu] = b_{nu,k}(mu/k)`` (alda2017 Definition 7 on coefficient vectors)."""
    k = check_int(k, "k", minimum=1)
    return bernstein_basis_values(k, np.arange(k + 1) / k)


def iterated_basis_matrix(k: int, h: int) -> np.ndarray:
    """``M = sum_{j<h} (I - A)^j`` by Horner's rule (``h - 1`` float matrix products).

    Column ``nu`` = Bernstein coefficients of ``b^{(h)}_{nu,k}`` (alda2017 Definition 8).
    float64, no promise (see the module docstring).
    """
    k = check_int(k, "k", minimum=1)
    h = check_int(h, "h", minimum=1)
    A = operator_matrix(k)
    eye = np.eye(k + 1)
    E = eye - A
    M = eye.copy()
    for _ in range(h - 1):
        M = eye + E @ M
    return M


def iterated_coefficients(values: ArrayLike, k: int, h: int) -> np.ndarray:
    """Bernstein coefficients ``M F`` of ``B_k^{(h)} f`` from lattice values ``F_nu = f(nu/k)``
    (``values`` may be ``(k+1,)`` or ``(k+1, m)`` for ``m`` functions at once).  float64."""
    k = check_int(k, "k", minimum=1)
    h = check_int(h, "h", minimum=1)
    F = np.asarray(values, dtype=np.float64)
    A = operator_matrix(k)
    v = F.copy()
    acc = F.copy()
    for _ in range(h - 1):
        v = v - A @ v
        acc = acc + v
    return acc


def de_casteljau(
    coeffs: ArrayLike, s: ArrayLike, domain: tuple[SupportsFloat, SupportsFloat] = (0.0, 1.0)
) -> np.ndarray:
    """``sum_nu c_nu b_{nu,k}(s)`` by de Casteljau's algorithm, vectorised over the points.

    ``coeffs`` of shape ``(k+1,)`` or ``(k+1, m)`` (``m`` polynomials; result
    ``(len(s), m)``).  ``k`` levels, each one numpy operation on a ``(level, npoints)``
    array: ``O(k^2 n)`` work; for very many points and large ``k`` see
    :func:`bernstein_eval`.  float64, backward stable, no promise.
    """
    c = np.asarray(coeffs, dtype=np.float64)
    a, b = float(domain[0]), float(domain[1])
    s = (as_points(s, "s") - a) / (b - a)
    t = 1.0 - s
    if c.ndim == 1:
        arr = np.repeat(c[:, None], s.size, axis=1)
        ss, tt = s[None, :], t[None, :]
    else:
        arr = np.repeat(c[:, None, :], s.size, axis=1)
        ss, tt = s[None, :, None], t[None, :, None]
    k = c.shape[0] - 1
    for r in range(k, 0, -1):
        arr = tt * arr[:r] + ss * arr[1 : r + 1]
    return arr[0]


def bernstein_eval(
    coeffs: ArrayLike, s: ArrayLike, domain: tuple[SupportsFloat, SupportsFloat] = (0.0, 1.0)
) -> np.ndarray:
    """``sum_nu c_nu b_{nu,k}(s)`` as a matrix-vector product with
    :func:`bernstein_basis_values` (``O(k n)``; chunked over the points).  Used for very
    many query points; float64, no promise (not backward stable like de Casteljau, but each
    basis value is accurate to a few ulps and all are non-negative, so the error is a few
    ulps of ``sum_nu |c_nu| b_{nu,k}(s)``)."""
    c = np.asarray(coeffs, dtype=np.float64)
    a, b = float(domain[0]), float(domain[1])
    s = (as_points(s, "s") - a) / (b - a)
    k = c.shape[0] - 1
    out = np.empty((s.size,) + c.shape[1:])
    step = max(1, 2_000_000 // (k + 1))
    for i in range(0, s.size, step):  # chunks bound memory, not a per-point loop
        out[i : i + step] = bernstein_basis_values(k, s[i : i + step]) @ c
    return out
