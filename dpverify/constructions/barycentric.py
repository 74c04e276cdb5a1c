"""Barycentric interpolation and Chebyshev coefficients in float64 or in mpmath (a search).

The Remez exchange (:mod:`.remez_exchange`) works with a polynomial given by its values at
the reference points, as Chebfun's ``minimax`` does (Pachon and Trefethen, BIT 49 (2009);
Filip, Nakatsukasa, Trefethen, Beckermann, SIAM J. Sci. Comput. 40 (2018)): no linear
system is solved and nothing is converted to a basis until the end.

* Weights of the points ``x_0 < ... < x_n``: ``w_k = 1 / prod_{j != k} (x_k - x_j)``
  (scaled by the capacity ``4 / (b - a)`` of the interval; in float64 through logarithms
  so that high degrees neither overflow nor underflow; Berrut and Trefethen, SIAM Rev. 46
  (2004), section 7).
* The second (true) barycentric formula ``p(x) = sum w_k y_k / (x - x_k) / sum w_k /
  (x - x_k)`` (forward stable on points distributed like Chebyshev points, Higham, IMA J.
  Numer. Anal. 24 (2004)); evaluated in chunks so that memory stays at a few MB.
* The Chebyshev coefficients of a polynomial of degree ``<= N`` from its values at the
  ``N + 1`` Chebyshev points of the first kind (a DCT-II: an FFT in float64, a cosine table
  of ``4 (N + 1)`` entries in mpmath).

:class:`Arith` is the number system: numpy float64 arrays, or numpy object arrays of
mpmath numbers at the current ``mpmath.mp`` precision (the caller holds
``mpmath.workdps``).  Every number here is a search value with no guarantee; exact
values are taken from it with :meth:`Arith.to_fmpq` (the exact binary value, read inside
the working precision).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import mpmath
import numpy as np
from flint import fmpq, fmpz

from ..errors import DomainError
from ..expr import Expr

__all__ = ["Arith", "weights", "bary_eval", "chebyshev_coefficients_from_values",
           "chebyshev_points_first_kind"]

#: entries of one chunk of the (points x nodes) barycentric matrix
_CHUNK = 1 << 20


class Arith:
    """The number system of the search: float64 (``dps=None``) or mpmath at ``dps`` digits.

    Arrays are numpy arrays (``float64``, or ``object`` holding ``mpmath.mpf``), so one
    implementation of the exchange serves both; mpmath element operations run at the
    precision of the enclosing ``mpmath.workdps``.
    """

    def __init__(self, dps: int | None) -> None:
        self.dps = dps
        self.is_float = dps is None
        self.dtype: Any = np.float64 if dps is None else object
        #: relative rounding unit
        self.eps = 2.0**-52 if dps is None else 10.0 ** (-dps)

    def __repr__(self) -> str:
        return "float64" if self.is_float else f"mpmath {self.dps} digits"

    def array(self, values: Any) -> np.ndarray:
        if self.is_float:
            return np.asarray(values, dtype=np.float64)
        out = np.empty(len(values), dtype=object)
        for i, v in enumerate(values):
            out[i] = v if isinstance(v, mpmath.mpf) else mpmath.mpf(v)
        return out

    def num(self, q: fmpq | int) -> Any:
        """The number nearest ``q`` (``fmpq`` or int)."""
        q = fmpq(q)
        if self.is_float:
            return int(q.p) / int(q.q)  # correctly rounded
        return mpmath.mpf(int(q.p)) / int(q.q)

    def pi(self) -> Any:
        return math.pi if self.is_float else +mpmath.pi

    def cos(self, v: np.ndarray) -> np.ndarray:
        if self.is_float:
            return np.cos(v)
        return self.array([mpmath.cos(t) for t in v])

    def zeros(self, n: int) -> np.ndarray:
        return np.zeros(n) if self.is_float else self.array([0] * n)

    def to_fmpq(self, v: Any) -> fmpq:
        """The exact binary value of a finite search number."""
        if self.is_float:
            num, den = float(v).as_integer_ratio()
            return fmpq(num, den)
        sign, man, exp, _ = mpmath.mpf(v)._mpf_  # read at the working precision
        m = fmpz(-int(man) if sign else int(man))
        return fmpq(m * fmpz(2) ** exp) if exp >= 0 else fmpq(m, fmpz(2) ** (-exp))

    def to_float(self, v: Any) -> float:
        return float(v)

    def evaluator(self, f: Expr) -> Callable[[np.ndarray], np.ndarray]:
        """``f`` on an array, raising :class:`DomainError` where it is undefined or not
        finite (naming the point)."""
        if self.is_float:
            g = f.to_numpy()

            def ev(x: np.ndarray) -> np.ndarray:
                y = g(x)
                bad = ~np.isfinite(y)
                if bad.any():
                    raise DomainError(f"f is not defined (or not finite) at x = "
                                      f"{float(x[np.argmax(bad)])!r}")
                return y
            return ev

        def ev_mp(x: np.ndarray) -> np.ndarray:
            out = np.empty(len(x), dtype=object)
            for i, t in enumerate(x):
                try:
                    v = f.eval_mpmath(t)
                except DomainError:
                    raise DomainError(f"f is not defined at x = {mpmath.nstr(t, 15)}") from None
                if not mpmath.isfinite(v):
                    raise DomainError(f"f is not finite at x = {mpmath.nstr(t, 15)}")
                out[i] = v
            return out
        return ev_mp


def weights(x: np.ndarray, scale: Any, ar: Arith) -> np.ndarray:
    """Barycentric weights of the distinct points ``x`` (scaled by ``scale``, e.g. the
    capacity ``4/(b - a)``; any common factor cancels in the formula)."""
    n = len(x)
    if ar.is_float:
        logs = np.empty(n)
        step = max(1, _CHUNK // max(n, 1))
        for s in range(0, n, step):
            d = np.abs(x[s:s + step, None] - x[None, :]) * scale
            d[np.arange(d.shape[0]), np.arange(s, s + d.shape[0])] = 1.0
            logs[s:s + step] = np.log(d).sum(axis=1)
        logs -= logs.min()
        sign = np.where((n - 1 - np.arange(n)) % 2 == 0, 1.0, -1.0)
        return np.asarray(sign * np.exp(-logs), dtype=np.float64)
    w = np.empty(n, dtype=object)
    for k in range(n):
        prod = mpmath.mpf(1)
        xk = x[k]
        for j in range(n):
            if j != k:
                prod *= (xk - x[j]) * scale
        w[k] = 1 / prod
    return w


def bary_eval(t: np.ndarray, x: np.ndarray, w: np.ndarray, y: np.ndarray,
              ar: Arith) -> np.ndarray:
    """The interpolant of ``(x_k, y_k)`` with weights ``w`` at the points ``t``."""
    out = np.empty(len(t), dtype=ar.dtype)
    n = len(x)
    step = max(1, _CHUNK // max(n, 1))
    for s in range(0, len(t), step):
        tt = t[s:s + step]
        d = tt[:, None] - x[None, :]
        hit = d == 0
        if hit.any():
            d = np.where(hit, 1, d)
        c = w[None, :] / d
        val = (c @ y) / c.sum(axis=1)
        if hit.any():
            rows, cols = np.nonzero(hit)
            val[rows] = y[cols]
        out[s:s + step] = val
    return out


def chebyshev_points_first_kind(n: int, mid: Any, rad: Any, ar: Arith) -> np.ndarray:
    """``mid + rad cos(pi (j + 1/2) / n)``, ``j = 0..n-1`` (decreasing)."""
    j = ar.array([2 * i + 1 for i in range(n)])
    return mid + rad * ar.cos(j * ar.pi() / (2 * n))


def chebyshev_coefficients_from_values(v: np.ndarray, ar: Arith) -> list[Any]:
    """Chebyshev coefficients ``c_0..c_{n-1}`` (``p = sum c_k T_k``, no halving) of the
    polynomial of degree ``< n`` taking the values ``v`` at
    :func:`chebyshev_points_first_kind` ``(n, ...)`` (a DCT-II)."""
    n = len(v)
    if ar.is_float:
        y = np.concatenate([v, v[::-1]])
        Y = np.fft.fft(y)[:n]
        k = np.arange(n)
        X = (Y * np.exp(-1j * np.pi * k / (2 * n))).real / 2
        c = X * (2.0 / n)
        c[0] /= 2
        return [float(t) for t in c]
    table = [mpmath.cos(mpmath.pi * i / (2 * n)) for i in range(4 * n)]
    out = []
    for k in range(n):
        acc = mpmath.mpf(0)
        for j in range(n):
            acc += v[j] * table[(k * (2 * j + 1)) % (4 * n)]
        out.append(acc * (1 if k == 0 else 2) / n)
    return out
