"""float64 generalized Jackson kernel, multipliers of ``I_{t,K}`` and damped Chebyshev
coefficients of a sampled function (wang2013 Definition 4.1, eq. (2), Section 4.2).

Conventions (DESIGN.md; derived here from the paper, independently of the exact module
:mod:`dpverify.constructions.jackson`, so that the cross-check compares two derivations):

* ``J_{t,r}(s) = lambda^{-1} (sin(ts/2)/sin(s/2))^{2r}`` and
  ``(sin(ts/2)/sin(s/2))^2 = sum_{|l|<t} (t - |l|) e^{ils}``, so the Fourier coefficients
  ``e_l`` of the kernel before normalisation are the ``r``-fold convolution power of the
  sequence ``(t - |l|)``.  ``int_{-pi}^{pi} J = 1`` gives ``lambda = 2 pi e_0``.
* ``H_{t,r} = J_{t',r}``, ``t' = floor(t/r) + 1`` (degree ``r (t' - 1) <= t``), written
  ``H(s) = a_0 + sum_l a_l cos(ls)``: ``2 pi a_0 = 1`` and ``2 pi a_l = 2 e_l / e_0``.
* ``I_{t,K} g(x) = -int H(s) sum_{l=1}^{K+1} (-1)^l C(K+1,l) g(x + ls) ds`` with
  ``r = ceil((K+3)/2)``; on ``cos(n .)`` it is the multiplier
  ``w_n = -sum_{l=1}^{K+1} (-1)^l C(K+1,l) (2 pi a_{nl})/2`` for ``n >= 1`` (``a_m = 0``
  above the degree) and ``w_0 = 1``, since ``int H(s) cos(ms) ds = pi a_m`` (``m >= 1``).
* ``cos(n arccos x) = T_n(x)``: the coefficients of ``I^d_{t,K} g_f`` are the Chebyshev
  coefficients of ``f`` times ``prod_j w_{n_j}``.

Does NOT promise
----------------
Heuristic float64: convolution powers in floats (all terms positive, so a few ulps relative
per coefficient), alternating binomial sums in ``w_n`` (absolute error about
``2^{K+1} eps``), and the Chebyshev coefficients of ``f`` are those of the interpolant at
``n`` Chebyshev points (DCT), which differ from the true series by aliasing.
"""

from __future__ import annotations

from collections.abc import Callable
from math import comb
from typing import Any

import numpy as np

from ..errors import InvalidParameterError
from ..expr import parse
from ..numbers import check_int
from .chebyshev import chebyshev_coeffs_from_values, chebyshev_points

__all__ = [
    "jackson_r",
    "jackson_kernel_degree",
    "jackson_coefficients_2pi",
    "jackson_multipliers",
    "damped_chebyshev_coeffs",
]


def jackson_r(K: int) -> int:
    """``r = ceil((K + 3)/2)`` (wang2013 eq. (2)); ``K >= 0``."""
    K = check_int(K, "K", minimum=0)
    return (K + 4) // 2


def jackson_kernel_degree(t: int, r: int) -> int:
    """Degree ``r (t' - 1)``, ``t' = floor(t/r) + 1``, of ``H_{t,r}`` (wang2013 Def. 4.1)."""
    t = check_int(t, "t", minimum=1)
    r = check_int(r, "r", minimum=1)
    return r * (t // r)


def jackson_coefficients_2pi(t: int, r: int) -> np.ndarray:
    """``2 pi a_l``, ``l = 0..deg``, of ``H_{t,r}(s) = a_0 + sum_l a_l cos(ls)`` (float64).

    The ``r``-fold convolution power of ``(t' - |l|)_{|l| < t'}`` (``r - 1`` calls of
    ``np.convolve``), normalised by its central coefficient.  No promise beyond float64.
    """
    t = check_int(t, "t", minimum=1)
    r = check_int(r, "r", minimum=1)
    tp = t // r + 1
    base = (tp - np.abs(np.arange(-(tp - 1), tp))).astype(np.float64)
    base = base / base.max()  # scale only: cancels in the normalisation, avoids overflow
    e = base
    for _ in range(r - 1):
        e = np.convolve(e, base)
    mid = (e.size - 1) // 2
    half = e[mid:]
    out = 2.0 * half / half[0]
    out[0] = 1.0
    return out


def jackson_multipliers(t: int, K: int) -> np.ndarray:
    """``w_0..w_t`` with ``I_{t,K} cos(n .) = w_n cos(n .)`` (float64, vectorised gather).

    ``r = ceil((K+3)/2)``; see the module docstring for the formula.  No promise beyond
    float64 (absolute error about ``2^{K+1} eps``).
    """
    t = check_int(t, "t", minimum=1)
    K = check_int(K, "K", minimum=0)
    r = jackson_r(K)
    a2 = jackson_coefficients_2pi(t, r)
    n = np.arange(t + 1)
    ls = np.arange(1, K + 2)
    idx = n[:, None] * ls[None, :]
    padded = np.concatenate([a2, np.zeros(max(0, int(idx.max()) + 1 - a2.size))])
    vals = padded[idx] / 2.0
    coef = np.array([-((-1) ** l_) * comb(K + 1, l_) for l_ in ls], dtype=np.float64)
    w = vals @ coef
    w[0] = 1.0
    return w


def damped_chebyshev_coeffs(
    f: Callable[..., Any] | str,
    t: int,
    K: int,
    dim: int = 1,
    n: int | None = None,
) -> np.ndarray:
    """Coefficients (shape ``(t+1,)*dim``, Chebyshev basis on ``[-1, 1]^dim``) of
    ``I^d_{t,K} g_f`` in the ``T_n`` basis: DCT of ``f`` sampled on the ``n^dim`` product
    Chebyshev grid (default ``n = 2t + 2``), truncated to ``0..t`` per axis and multiplied by
    ``w_{n_1} ... w_{n_d}``.

    ``f``: a numpy callable taking ``dim`` arrays, or an expression string (parsed with
    :func:`dpverify.expr.parse`, variables ``x``, ``y``, ``z``).

    Does NOT promise: heuristic (aliasing of the sampled coefficients; float64).
    """
    t = check_int(t, "t", minimum=1)
    K = check_int(K, "K", minimum=0)
    dim = check_int(dim, "dim", minimum=1, maximum=3)
    n = 2 * t + 2 if n is None else check_int(n, "n", minimum=t + 1, maximum=1 << 14)
    if dim == 2 and n**2 > 1 << 26 or dim == 3 and n**3 > 1 << 26:
        raise InvalidParameterError(f"n={n} gives too many samples for dim={dim}")
    if isinstance(f, str):
        f = parse(f, variables=("x", "y", "z")[:dim], name="f").to_numpy()
    pts = chebyshev_points(n)
    grids = np.meshgrid(*([pts] * dim), indexing="ij")
    vals = np.asarray(f(*grids), dtype=np.float64) * np.ones(grids[0].shape)
    c = vals
    for ax in range(dim):
        c = chebyshev_coeffs_from_values(c, axis=ax)
    c = c[(slice(0, t + 1),) * dim]
    w = jackson_multipliers(t, K)
    for ax in range(dim):
        shape = [1] * dim
        shape[ax] = t + 1
        c = c * w.reshape(shape)
    return c
