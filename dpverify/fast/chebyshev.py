"""float64 Chebyshev kernels: Clenshaw, Chebyshev points, DCT coefficients, OR/AND forms.

The exact reference is :mod:`dpverify.constructions.chebyshev` (thaler2012 Fact 4.2) and
:mod:`dpverify.exact.chebyshev`; :mod:`dpverify.crosscheck` measures the deviation of every
function here from it in exact/ball arithmetic.

Does NOT promise
----------------
Everything here is heuristic float64 (IEEE binary64, round-to-nearest): no error bound is
claimed by this module; the bounds we *measured* are the tolerances declared in
:mod:`dpverify.crosscheck`.  The OR degree ``t`` is computed from
``ceil(acosh(1/gamma)/acosh(a))`` in floats and can differ from the exact least ``t``
(:func:`dpverify.constructions.chebyshev.or_degree`) when ``1/T_t(a)`` is within a few ulps
of ``gamma``; pass ``t=`` (e.g. from the exact ``or_degree``) to rule that out.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..errors import InvalidParameterError
from ..numbers import ExactLike, IntLike, check_int, check_open_unit

__all__ = [
    "as_points",
    "clenshaw",
    "chebyshev_points",
    "chebyshev_coeffs_from_values",
    "chebyshev_interpolant",
    "chebyshev_t_values",
    "or_degree_float",
    "or_chebyshev_coeffs",
    "and_chebyshev_coeffs",
    "or_values",
    "and_values",
]


def as_points(x: Any, name: str = "x") -> np.ndarray:
    """``x`` as a 1-D float64 array (scalars become length 1); refuses non-finite values."""
    arr = np.asarray(x, dtype=np.float64).reshape(-1)
    if not np.all(np.isfinite(arr)):
        raise InvalidParameterError(f"{name} must be finite floats")
    return arr


def _to_u(x: np.ndarray, domain: tuple[float, float]) -> np.ndarray:
    a, b = float(domain[0]), float(domain[1])
    if not b > a:
        raise InvalidParameterError(f"domain must be increasing, got {domain!r}")
    return (2.0 * x - (a + b)) / (b - a)


def clenshaw(coeffs: Any, x: Any, domain: tuple[Any, Any] = (-1.0, 1.0)) -> np.ndarray:
    """``sum_n c_n T_n(u)``, ``u = (2x - a - b)/(b - a)``, by Clenshaw's recurrence.

    Vectorised over the points (one numpy operation per coefficient; no loop over points).
    ``coeffs`` may also be 2-D of shape ``(n, m)``: then column ``j`` is a separate series
    and the result has shape ``(len(x), m)`` (used by the tensor evaluator).

    Does NOT promise: float64 only; the rounding error grows roughly like ``n * eps *
    sum |c_n|`` inside ``[-1, 1]`` and is unbounded outside (``|T_n(u)|`` grows like
    ``|u|^n``).  Coefficient convention as :class:`dpverify.exact.ChebyshevPoly`
    (``c_0`` not halved).  Clenshaw 1955.
    """
    c = np.asarray(coeffs, dtype=np.float64)
    u = _to_u(as_points(x), domain)
    if c.ndim == 2:
        u = u[:, None]
    if c.shape[0] == 0:
        raise InvalidParameterError("coeffs must be non-empty")
    if c.shape[0] == 1:
        return np.broadcast_to(c[0], np.broadcast_shapes(u.shape, c[0].shape)).copy()
    two_u = 2.0 * u
    b1 = np.zeros(np.broadcast_shapes(u.shape, c[0].shape)) + c[-1]
    b2 = np.zeros_like(b1)
    for cn in c[-2:0:-1]:
        b1, b2 = two_u * b1 - b2 + cn, b1
    return u * b1 - b2 + c[0]


def chebyshev_t_values(n: int, u: Any) -> np.ndarray:
    """``T_n(u)`` for real ``u`` (any size): ``cos(n arccos u)`` on ``[-1, 1]``,
    ``sign^n cosh(n acosh |u|)`` outside.  Vectorised; float64, no promise beyond that
    (relative error about ``n * eps`` in the argument of cos/cosh)."""
    n = check_int(n, "n", minimum=0)
    u = as_points(u, "u")
    out = np.empty_like(u)
    inside = np.abs(u) <= 1.0
    out[inside] = np.cos(n * np.arccos(u[inside]))
    au = np.abs(u[~inside])
    sgn = np.where(u[~inside] < 0, (-1.0) ** n, 1.0)
    out[~inside] = sgn * np.cosh(n * np.arccosh(au))
    return out


def chebyshev_points(n: int, domain: tuple[Any, Any] = (-1.0, 1.0)) -> np.ndarray:
    """The ``n`` Chebyshev points of the first kind ``cos((2j+1) pi / (2n))``, j = 0..n-1,
    mapped to ``domain`` (decreasing order).  float64."""
    n = check_int(n, "n", minimum=1)
    u = np.cos((2.0 * np.arange(n) + 1.0) * np.pi / (2.0 * n))
    a, b = float(domain[0]), float(domain[1])
    return (a + b) / 2.0 + (b - a) / 2.0 * u


def chebyshev_coeffs_from_values(values: Any, axis: int = 0) -> np.ndarray:
    """Chebyshev coefficients of the interpolant through values at :func:`chebyshev_points`.

    ``c_m = (2 - [m = 0])/n * sum_j f_j cos(m (2j+1) pi / (2n))`` (the DCT-II), computed
    with one FFT of length ``2n`` along ``axis`` (no loops).  Works on n-D arrays, axis by
    axis, so a tensor of values on a product Chebyshev grid gives tensor coefficients by
    calling it once per axis.

    Does NOT promise: float64; aliasing (the interpolant is not the truncated Chebyshev
    series of the sampled function) is the caller's concern.  Mason & Handscomb Ch. 6.
    """
    f = np.asarray(values, dtype=np.float64)
    f = np.moveaxis(f, axis, 0)
    n = f.shape[0]
    # DCT-II via FFT of the even extension: y = [f_0..f_{n-1}, f_{n-1}..f_0]
    y = np.concatenate([f, f[::-1]], axis=0)
    Y = np.fft.fft(y, axis=0)[:n]
    m = np.arange(n).reshape((n,) + (1,) * (f.ndim - 1))
    # sum_j f_j cos(pi m (2j+1) / (2n)) = Re(exp(-i pi m/(2n)) Y_m) / 2
    c = np.real(np.exp(-1j * np.pi * m / (2.0 * n)) * Y) / n
    c[0] *= 0.5
    return np.moveaxis(c, 0, axis)


def chebyshev_interpolant(f: Any, n: int, domain: tuple[Any, Any] = (-1.0, 1.0)) -> np.ndarray:
    """Chebyshev coefficients (``n`` of them) of the degree ``n-1`` interpolant of the numpy
    callable ``f`` at the first-kind Chebyshev points of ``domain``.  Heuristic, float64."""
    return chebyshev_coeffs_from_values(f(chebyshev_points(n, domain)))


# --------------------------------------------------------------------------- OR / AND


def _a_minus_one(k: int) -> float:
    return 2.0 / (k - 1)


def or_degree_float(k: IntLike, gamma: ExactLike) -> tuple[int, float]:
    """``(t, 1/T_t(a))`` in floats, ``a = (k+1)/(k-1)``: ``t = ceil(acosh(1/gamma)/acosh(a))``.

    Does NOT promise the least ``t`` (see the module docstring); ``acosh(a)`` is computed as
    ``log1p(d + sqrt(d (2 + d)))``, ``d = 2/(k-1)``, to keep precision for large ``k``.
    """
    k = check_int(k, "k", minimum=2)
    g = float(check_open_unit(gamma, "gamma"))
    d = _a_minus_one(k)
    acosh_a = math.log1p(d + math.sqrt(d * (2.0 + d)))
    t = max(1, math.ceil(math.acosh(1.0 / g) / acosh_a - 1e-9))
    if 1.0 / math.cosh(t * acosh_a) > g:  # float guard only
        t += 1
    return t, 1.0 / math.cosh(t * acosh_a)


def _inv_t(k: int, t: int) -> float:
    d = _a_minus_one(k)
    return 1.0 / math.cosh(t * math.log1p(d + math.sqrt(d * (2.0 + d))))


def _degree_and_inverse(k: Any, gamma: Any, t: Any) -> tuple[int, int, float]:
    """Validated ``k``, the degree ``t`` (from :func:`or_degree_float` unless given) and
    ``1/T_t((k+1)/(k-1))`` in float64; ``k = 1`` returns ``(1, 1, 0.0)``."""
    k = check_int(k, "k", minimum=1)
    if k == 1:
        check_open_unit(gamma, "gamma")
        return 1, 1, 0.0
    if t is None:
        t, inv = or_degree_float(k, gamma)
    else:
        t = check_int(t, "t", minimum=1)
        inv = _inv_t(k, t)
    return k, t, inv


def or_chebyshev_coeffs(k: IntLike, gamma: ExactLike,
                        t: IntLike | None = None) -> tuple[np.ndarray, tuple[int, int]]:
    """float64 Chebyshev form of the OR polynomial: ``(coeffs, domain)``.

    Same convention as :func:`dpverify.constructions.chebyshev.or_chebyshev_form`:
    domain ``(1, k)``, variable ``v = (2x - k - 1)/(k - 1)``, ``c_0 = 1``,
    ``c_t = -(-1)^t / T_t((k+1)/(k-1))``; ``k = 1``: ``[1/2, 1/2]`` on ``(0, 1)``.
    ``T_t(a)`` is ``cosh(t acosh a)`` in floats.  thaler2012 Fact 4.2.

    Does NOT promise: float64 (relative error of ``c_t`` about ``t acosh(a) eps``); ``t``
    from :func:`or_degree_float` unless given.
    """
    k, t, inv = _degree_and_inverse(k, gamma, t)
    if k == 1:
        return np.array([0.5, 0.5]), (0, 1)
    c = np.zeros(t + 1)
    c[0] = 1.0
    c[t] = -((-1.0) ** t) * inv
    return c, (1, k)


def and_chebyshev_coeffs(k: IntLike, gamma: ExactLike,
                         t: IntLike | None = None) -> tuple[np.ndarray, tuple[int, int]]:
    """float64 Chebyshev form of ``AND(x) = 1 - g(k - x)``: single coefficient
    ``1/T_t(a)`` at index ``t`` on the domain ``(0, k - 1)``; ``k = 1``: ``x`` on ``(0, 1)``.
    Same promises as :func:`or_chebyshev_coeffs` (none beyond float64)."""
    k, t, inv = _degree_and_inverse(k, gamma, t)
    if k == 1:
        return np.array([0.5, 0.5]), (0, 1)
    c = np.zeros(t + 1)
    c[t] = inv
    return c, (0, k - 1)


def _t_on_domain(t: int, x: np.ndarray, lo: float, hi: float) -> np.ndarray:
    """``T_t(u)``, ``u = (2x - lo - hi)/(hi - lo)``; outside ``[lo, hi]`` the distance
    ``|u| - 1 = 2 (lo - x)/(hi - lo)`` (or ``2 (x - hi)/(hi - lo)``) is formed from ``x``
    directly, since ``acosh`` is ill-conditioned near 1 and ``u`` itself is rounded."""
    w = hi - lo
    out = np.empty_like(x)
    inside = (x >= lo) & (x <= hi)
    # arccos(u) from the distance to the nearer end (exact for integer x): arccos is
    # ill-conditioned near u = +-1, and u itself is rounded
    xi = x[inside]
    upper = xi >= (lo + hi) / 2.0
    theta = np.where(
        upper,
        2.0 * np.arcsin(np.sqrt(np.clip((hi - xi) / w, 0.0, 1.0))),
        np.pi - 2.0 * np.arcsin(np.sqrt(np.clip((xi - lo) / w, 0.0, 1.0))),
    )
    out[inside] = np.cos(t * theta)
    below = x < lo
    above = x > hi
    for mask, sign, dist in (
        (below, (-1.0) ** t, lambda xm: lo - xm),
        (above, 1.0, lambda xm: xm - hi),
    ):
        if np.any(mask):
            d = 2.0 * dist(x[mask]) / w
            acosh = np.log1p(d + np.sqrt(d * (2.0 + d)))
            out[mask] = sign * np.cosh(t * acosh)
    return out


def or_values(k: IntLike, gamma: ExactLike, x: Any, t: IntLike | None = None) -> np.ndarray:
    """``g(x)`` (the Chebyshev OR polynomial) at many points, via ``T_t`` in closed form
    (``cos``/``cosh``), O(1) per point.  float64, no promise (see the module docstring)."""
    c, dom = or_chebyshev_coeffs(k, gamma, t)
    xs = as_points(x)
    if len(c) == 2 and dom == (0, 1):
        return xs.copy()
    tt = len(c) - 1
    return 1.0 + c[tt] * _t_on_domain(tt, xs, float(dom[0]), float(dom[1]))


def and_values(k: IntLike, gamma: ExactLike, x: Any, t: IntLike | None = None) -> np.ndarray:
    """``AND(x) = T_t(w)/T_t(a)`` at many points (closed form).  float64, no promise."""
    c, dom = and_chebyshev_coeffs(k, gamma, t)
    xs = as_points(x)
    if len(c) == 2 and dom == (0, 1):
        return xs.copy()
    tt = len(c) - 1
    return c[tt] * _t_on_domain(tt, xs, float(dom[0]), float(dom[1]))
