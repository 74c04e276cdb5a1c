"""Barycentric interpolation and Chebyshev coefficients in float64 or in FLINT arf (a search).

The Remez exchange (:mod:`.remez_exchange`) works with a polynomial given by its values at
the reference points, as Chebfun's ``minimax`` does (Pachon and Trefethen, BIT 49 (2009);
Filip, Nakatsukasa, Trefethen, Beckermann, SIAM J. Sci. Comput. 40 (2018)): no linear
system is solved and nothing is converted to a basis until the end.

* Weights of the points ``x_0 < ... < x_n``: ``w_k = 1 / prod_{j != k} (x_k - x_j)``
  (scaled by the capacity ``4 / (b - a)`` of the interval, which keeps the products near 1;
  Berrut and Trefethen, SIAM Rev. 46 (2004), section 7).
* The first ("modified Lagrange") barycentric formula ``p(x) = l(x) sum w_k y_k / (x -
  x_k)``, ``l(x) = prod (x - x_k)``: backward stable everywhere (Higham, IMA J. Numer.
  Anal. 24 (2004)), where the second ("true") formula lost 1e-11 near the ends at degree
  256; evaluated in chunks so that memory stays at a few MB.
* The Chebyshev coefficients of a polynomial of degree ``<= N`` from its values at the
  ``N + 1`` Chebyshev points of the first kind (a DCT-II: an FFT in float64, a cosine table
  of ``4 (N + 1)`` entries otherwise).

:class:`Arith` is the number system: numpy float64 arrays, or numpy object arrays of
FLINT ``arf`` numbers at the precision of the enclosing ``flint.ctx.workprec``.  Every
number here is a search value with no guarantee; exact values are taken from it with
:meth:`Arith.to_fmpq` (the exact binary value, read inside the working precision).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np
from flint import arb, arf, fmpq

from ..errors import DomainError
from ..expr import Expr

__all__ = ["Arith", "weights", "bary_eval", "chebyshev_coefficients_from_values",
           "chebyshev_points_first_kind"]

#: entries of one chunk of the (points x nodes) barycentric matrix
_CHUNK = 1 << 20


class Arith:
    """The number system of the search: float64 (``bits=None``) or FLINT ``arf`` binary
    floating point at ``bits`` bits (C speed, about ten times mpmath's pure-Python backend).

    Arrays are numpy arrays (``float64``, or ``object`` holding ``arf``), so one
    implementation of the exchange serves both; ``arf`` operations round to the precision
    of the enclosing ``flint.ctx.workprec(bits)``, which the caller holds.  ``f`` is
    evaluated with :meth:`Expr.eval_arb` and the midpoint of the ball is kept (a search
    value: the ball's guarantee is not used here).
    """

    def __init__(self, bits: int | None) -> None:
        self.bits = bits
        self.is_float = bits is None
        self.dtype: Any = np.float64 if bits is None else object
        #: relative rounding unit
        self.eps = 2.0**-52 if bits is None else 2.0 ** (-bits)

    def __repr__(self) -> str:
        return "float64" if self.bits is None else f"{self.bits}-bit binary floating point"

    def array(self, values: Any) -> np.ndarray:
        if self.is_float:
            return np.asarray(values, dtype=np.float64)
        out = np.empty(len(values), dtype=object)
        for i, v in enumerate(values):
            out[i] = v if isinstance(v, arf) else arf(v)
        return out

    def num(self, q: fmpq | int) -> Any:
        """The number nearest ``q`` (``fmpq`` or int)."""
        q = fmpq(q)
        if self.is_float:
            return int(q.p) / int(q.q)  # correctly rounded
        return arf(q)

    def cos_pi(self, q: fmpq) -> Any:
        """``cos(pi q)``."""
        if self.is_float:
            return math.cos(math.pi * float(q))
        return _mid(arb.cos_pi_fmpq(q))

    def to_fmpq(self, v: Any) -> fmpq:
        """The exact binary value of a finite search number."""
        if self.is_float:
            num, den = float(v).as_integer_ratio()
            return fmpq(num, den)
        man, exp = v.man_exp()
        m, e = int(man), int(exp)
        return fmpq(m * 2**e) if e >= 0 else fmpq(m, 2 ** (-e))

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

        def ev_arf(x: np.ndarray) -> np.ndarray:
            out = np.empty(len(x), dtype=object)
            for i, t in enumerate(x):
                try:
                    v = f.eval_arb(arb(t))
                except DomainError:
                    raise DomainError(f"f is not defined at x = {float(t)!r}") from None
                if not isinstance(v, arb) or not v.is_finite():
                    raise DomainError(f"f is not finite at x = {float(t)!r}")
                out[i] = _mid(v)
            return out
        return ev_arf


def _mid(v: arb) -> arf:
    man, exp = v.mid().man_exp()
    return arf((man, exp))


def weights(x: np.ndarray, scale: Any, ar: Arith,
            check: Callable[[], None] | None = None) -> np.ndarray:
    """Barycentric weights ``w_k = 1 / prod_{j != k} scale (x_k - x_j)`` of the distinct
    sorted points ``x`` (``scale`` the capacity ``4/(b - a)`` of the interval keeps the
    products near 1 for points distributed like Chebyshev points).  Direct products: ten
    times more accurate than sums of logarithms.  A non-finite or zero weight (points far
    from that distribution) raises :class:`ArithmeticError`.  ``check`` is called between
    chunks (a time limit raises there)."""
    n = len(x)
    if ar.is_float:
        w = np.empty(n)
        step = max(1, _CHUNK // max(n, 1))
        for s in range(0, n, step):
            if check is not None:
                check()
            d = (x[s:s + step, None] - x[None, :]) * scale
            d[np.arange(d.shape[0]), np.arange(s, s + d.shape[0])] = 1.0
            with np.errstate(all="ignore"):
                w[s:s + step] = 1.0 / np.prod(d, axis=1)
        if not np.all(np.isfinite(w)) or np.any(w == 0):
            raise ArithmeticError("barycentric weights out of the float64 range")
        return w
    w = np.empty(n, dtype=object)
    for k in range(n):
        if check is not None and k % 64 == 0:
            check()
        prod = arf(1)
        xk = x[k]
        for j in range(n):
            if j != k:
                prod *= (xk - x[j]) * scale
        w[k] = 1 / prod
    return w


def bary_eval(t: np.ndarray, x: np.ndarray, w: np.ndarray, y: np.ndarray, scale: Any,
              ar: Arith, check: Callable[[], None] | None = None) -> np.ndarray:
    """The polynomial through ``(x_k, y_k)`` at the points ``t``, by the first
    ("modified Lagrange") barycentric formula ``l(t) sum_k w_k y_k / (scale (t - x_k))``
    with ``l(t) = prod_j scale (t - x_j)`` and the weights of :func:`weights` (same
    ``scale``).  It is backward stable everywhere (Higham, IMA J. Numer. Anal. 24 (2004)):
    the second ("true") formula, whose denominator cancels near the ends of the interval,
    lost 1e-11 there at degree 256 and made the exchange cycle.  ``check`` is called
    between chunks."""
    out = np.empty(len(t), dtype=ar.dtype)
    n = len(x)
    # float64: chunks of about a million matrix entries; arf: of 2^14 (each a Python object)
    step = max(1, (_CHUNK if ar.is_float else 1 << 14) // max(n, 1))
    for s in range(0, len(t), step):
        if check is not None:
            check()
        tt = t[s:s + step]
        d = (tt[:, None] - x[None, :]) * scale
        hit = d == 0
        if hit.any():
            d = np.where(hit, 1, d)
        ell = np.prod(d, axis=1)
        val = ell * ((w[None, :] / d) @ y)
        if hit.any():
            rows, cols = np.nonzero(hit)
            val[rows] = y[cols]
        out[s:s + step] = val
    return out


def chebyshev_points_first_kind(n: int, mid: Any, rad: Any, ar: Arith) -> np.ndarray:
    """``mid + rad cos(pi (j + 1/2) / n)``, ``j = 0..n-1`` (decreasing)."""
    cs = ar.array([ar.cos_pi(fmpq(2 * i + 1, 2 * n)) for i in range(n)])
    return mid + rad * cs


def chebyshev_coefficients_from_values(v: np.ndarray, ar: Arith) -> list[Any]:
    """Chebyshev coefficients ``c_0..c_{n-1}`` (``p = sum c_k T_k``, no halving) of the
    polynomial of degree ``< n`` taking the values ``v`` at
    :func:`chebyshev_points_first_kind` ``(n, ...)`` (a DCT-II)."""
    n = len(v)
    if ar.is_float:
        y = np.concatenate([v, v[::-1]])
        Y = np.fft.fft(y)[:n]
        ks = np.arange(n)
        X = (Y * np.exp(-1j * np.pi * ks / (2 * n))).real / 2
        c = X * (2.0 / n)
        c[0] /= 2
        return [float(t) for t in c]
    table = [ar.cos_pi(fmpq(i, 2 * n)) for i in range(4 * n)]
    out = []
    for k in range(n):
        acc = arf(0)
        for j in range(n):
            acc += v[j] * table[(k * (2 * j + 1)) % (4 * n)]
        out.append(acc * (1 if k == 0 else 2) / n)
    return out
