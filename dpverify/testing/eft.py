"""Error-free transformations and the compensated Horner scheme, vectorised in numpy.

:func:`two_sum` (Knuth) and :func:`two_prod` (Dekker, with Veltkamp's splitting) return
``(s, e)`` with ``s = fl(a op b)`` and ``a op b = s + e`` *exactly*, in round-to-nearest
binary64 without overflow and without underflow of ``e`` (Ogita, Rump, Oishi, *Accurate sum
and dot product*, SIAM J. Sci. Comput. 26 (2005), Algorithms 3.1, 3.2, 3.4).

:func:`comp_horner` evaluates ``P(t) = sum_j (bh_j + bl_j) t^j`` (double-double
coefficients, one polynomial per point) as an unevaluated pair ``s + c``: Horner's scheme
on the ``bh_j`` with each product and sum split exactly, the rounding errors and the low
parts ``bl_j`` collected in a second, plain Horner recurrence (Graillat, Langlois, Louvet,
*Compensated Horner scheme*, 2005, Algorithms 4 and 5).

Guarantee
---------
With ``n`` the degree, ``|t| <= 1`` and no underflow::

    |s + c - P(t)| <= gamma(2n+2) sum_j (gamma(2n) |bh_j| + |bl_j|) |t|^j,
    gamma(k) = k u / (1 - k u),  u = 2^-53.

``s + c_exact = P(t)`` exactly, where ``c_exact`` is the error polynomial
``sum_j (pi_j + sigma_j + bl_j) t^j`` of the exact transformations; GLL Lemma 3.1 bounds
``sum_j (|pi_j| + |sigma_j|) |t|^j <= gamma(2n) sum_j |bh_j| |t|^j``, and evaluating the
error polynomial in floating point (two roundings per coefficient, ``n`` Horner steps)
errs by at most ``gamma(2n+2)`` times the sum of its absolute terms.
Underflow adds at most ``2^-1075`` per operation whose result is subnormal, ``16 (n+1)
2^-1075`` in all for the ``2n`` error-free transformations and ``n`` Horner steps (each
term multiplied by powers of ``|t| <= 1``).  :func:`horner_error_terms` returns the
constants.
"""

from __future__ import annotations

import numpy as np
from flint import fmpq

__all__ = ["two_sum", "two_prod", "comp_horner", "horner_error_terms", "SPLIT_MAX"]

_SPLITTER = 134217729.0  # 2^27 + 1 (Veltkamp)
#: |a| above this overflows Veltkamp's splitting (2^996); the callers scale below it.
SPLIT_MAX = 2.0 ** 996


def two_sum(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(fl(a + b), a + b - fl(a + b))``, both exact (Knuth's TwoSum)."""
    s = a + b
    bb = s - a
    return s, (a - (s - bb)) + (b - bb)


def _split(a: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    c = _SPLITTER * a
    hi = c - (c - a)
    return hi, a - hi


def two_prod(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(fl(a b), a b - fl(a b))``, exact when ``a b`` neither overflows nor underflows
    (Dekker's TwoProduct)."""
    p = a * b
    ah, al = _split(a)
    bh, bl = _split(b)
    return p, ((ah * bh - p) + ah * bl + al * bh) + al * bl


def comp_horner(bh: list[np.ndarray], bl: list[np.ndarray], t: np.ndarray
                ) -> tuple[np.ndarray, np.ndarray]:
    """``(s, c)`` with ``s + c`` equal to ``sum_j (bh[j] + bl[j]) t^j`` up to
    :func:`horner_error_bound` (module docstring); ``bh[j]`` and ``bl[j]`` are arrays of
    the shape of ``t`` (or scalars), ``j = 0..n``.

    Each step is :func:`two_prod` of ``s`` and ``t`` followed by :func:`two_sum` with
    ``bh[j]``, written with preallocated buffers (a third faster than temporaries)."""
    n = len(bh) - 1
    s = np.array(np.broadcast_to(bh[n], t.shape), dtype=np.float64)
    c = np.array(np.broadcast_to(bl[n], t.shape), dtype=np.float64)
    th, tl = _split(t)
    p, sh, sl, w, pi = (np.empty_like(t) for _ in range(5))
    for j in range(n - 1, -1, -1):
        np.multiply(s, t, out=p)
        np.multiply(s, _SPLITTER, out=w)     # Veltkamp: sh = w - (w - s), sl = s - sh
        np.subtract(w, s, out=sh)
        np.subtract(w, sh, out=sh)
        np.subtract(s, sh, out=sl)
        np.multiply(sh, th, out=pi)          # pi = ((sh th - p) + sh tl + sl th) + sl tl
        pi -= p
        np.multiply(sh, tl, out=w)
        pi += w
        np.multiply(sl, th, out=w)
        pi += w
        np.multiply(sl, tl, out=w)
        pi += w
        b = bh[j]
        np.add(p, b, out=s)                  # s = fl(p + b), sigma = (p - (s - bb)) + (b - bb)
        np.subtract(s, p, out=w)             # bb
        np.subtract(b, w, out=sh)            # b - bb
        np.subtract(s, w, out=w)             # s - bb
        np.subtract(p, w, out=w)             # p - (s - bb)
        w += sh                              # sigma
        w += pi
        w += bl[j]
        c *= t
        c += w
    return s, c


def horner_error_terms(degree: int) -> tuple[fmpq, fmpq, fmpq]:
    """``(A, B, S)``: the rounding error of :func:`comp_horner` at ``t`` is at most
    ``sum_j (A |bh_j| + B |bl_j|) |t|^j + S`` for ``|t| <= 1``, as exact rationals
    (module docstring); ``S`` covers underflow, ``16 (n + 1) 2^-1075``."""
    u = fmpq(1, 2**53)

    def gamma(k: int) -> fmpq:
        return k * u / (1 - k * u)

    n = max(degree, 1)
    return gamma(2 * n + 2) * gamma(2 * n), gamma(2 * n + 2), fmpq(16 * (n + 1), 2**1075)
