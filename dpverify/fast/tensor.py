"""Vectorised float64 evaluation of d-variate tensor-product polynomials at many points.

Same convention as :class:`dpverify.exact.TensorPoly`: ``coeffs[i1]...[id]`` multiplies
``phi_{i1}(x_1) ... phi_{id}(x_d)`` (first index = first variable), one basis for every axis
(``"monomial"``, ``"chebyshev"`` on ``domains[j]`` (default ``(-1, 1)``), ``"bernstein"`` on
``domains[j]`` (default ``(0, 1)``)).

Does NOT promise
----------------
Heuristic float64.  Per axis the basis values are computed in closed form (``cos(n arccos
u)`` for Chebyshev on ``[-1, 1]``, :func:`bernstein_basis_values` for Bernstein, powers for the
monomial basis) and contracted by matrix products, chunked over the points (memory bounded);
the rounding error is a few ulps of ``sum |c| |phi|`` per point.  Points outside the
domain are allowed for the monomial basis only (elsewhere they are refused, since the
closed forms are not used there).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import SupportsFloat

import numpy as np
from numpy.typing import ArrayLike

from ..errors import InvalidParameterError
from .bernstein import bernstein_basis_values

__all__ = ["basis_values", "tensor_eval"]

_DEFAULT: dict[str, tuple[float, float] | None] = {
    "chebyshev": (-1.0, 1.0), "bernstein": (0.0, 1.0), "monomial": None}

#: An interval ``(a, b)`` whose ends ``float()`` accepts (floats, ints, ``fmpq``).
_Domain = Sequence[SupportsFloat]


def basis_values(
    basis: str, n: int, x: ArrayLike, domain: _Domain | None = None
) -> np.ndarray:
    """``V[i, m] = phi_m(x_i)``, ``m = 0..n-1``, shape ``(len(x), n)``.  float64.

    ``domain`` is ``(a, b)`` (ignored for ``"monomial"``); default ``(-1, 1)`` for
    ``"chebyshev"``, ``(0, 1)`` for ``"bernstein"``.
    """
    if basis not in _DEFAULT:
        raise InvalidParameterError(f"basis must be one of {sorted(_DEFAULT)}, got {basis!r}")
    x = np.asarray(x, dtype=np.float64)
    if basis == "monomial":
        return np.power(x[:, None], np.arange(n)[None, :])
    dom = domain if domain is not None else _DEFAULT[basis]
    if dom is None:  # unreachable: only "monomial" has no default, and it returned above
        raise InvalidParameterError(f"basis {basis!r} needs a domain")
    a, b = (float(v) for v in dom)
    if basis == "chebyshev":
        u = (2.0 * x - (a + b)) / (b - a)
        if np.any(np.abs(u) > 1.0 + 1e-15):
            raise InvalidParameterError("points must lie in the Chebyshev domain")
        theta = np.arccos(np.clip(u, -1.0, 1.0))
        return np.cos(theta[:, None] * np.arange(n)[None, :])
    s = (x - a) / (b - a)
    if np.any(s < -1e-15) or np.any(s > 1 + 1e-15):
        raise InvalidParameterError("points must lie in the Bernstein domain")
    return bernstein_basis_values(n - 1, s)


def tensor_eval(
    coeffs: ArrayLike,
    points: ArrayLike,
    basis: str = "chebyshev",
    domains: Sequence[_Domain | None] | None = None,
    chunk: int = 8192,
) -> np.ndarray:
    """Evaluate ``p(x) = sum_i c[i] prod_j phi_{i_j}(x_j)`` at ``points`` of shape ``(N, d)``.

    Contracts the first axis with one matrix product ``V_1 @ C`` and the remaining axes with
    batched ``einsum``, chunk by chunk over the points (no loop over single points or
    coefficients).  Returns shape ``(N,)``.  float64, no promise (module docstring).
    """
    c = np.asarray(coeffs, dtype=np.float64)
    d = c.ndim
    pts = np.asarray(points, dtype=np.float64)
    if pts.ndim == 1 and d == 1:
        pts = pts[:, None]
    if pts.ndim != 2 or pts.shape[1] != d:
        raise InvalidParameterError(
            f"points must have shape (N, {d}) for a {d}-variate polynomial, got {pts.shape}"
        )
    if not np.all(np.isfinite(pts)):
        raise InvalidParameterError("points must be finite")
    doms: list[_Domain | None] = list(domains) if domains is not None else [None] * d
    if len(doms) != d:
        raise InvalidParameterError(f"domains must have {d} entries, got {len(doms)}")
    shape = c.shape
    out = np.empty(pts.shape[0])
    c0 = c.reshape(shape[0], -1)
    for i in range(0, pts.shape[0], chunk):
        p = pts[i : i + chunk]
        G = basis_values(basis, shape[0], p[:, 0], doms[0]) @ c0  # (n, rest)
        for j in range(1, d):
            V = basis_values(basis, shape[j], p[:, j], doms[j])
            G = np.einsum("nar,na->nr", G.reshape(p.shape[0], shape[j], -1), V)
        out[i : i + chunk] = G[:, 0]
    return out
