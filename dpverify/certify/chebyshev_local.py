"""Local Taylor expansions of a Chebyshev series, with a rigorous bound of the tail.

For ``p(x) = sum_{k<=N} c_k T_k(u(x))`` on ``[a, b]`` (``u`` the affine map onto
``[-1, 1]``) and a piece ``[m - r, m + r]`` of it, write ``p(m + r t) = sum_j q_j t^j``
(``|t| <= 1``).

* **Head.**  ``q_0 .. q_{J-1}`` are enclosed by Clenshaw's recurrence run on truncated
  power series in ``t`` (``arb_series`` of length ``J``): ``u(m + r t) = s_0 + s_1 t`` is a
  series, every step ``b_k = 2 u b_{k+1} - b_{k+2} + c_k`` is a ring operation, and
  truncating at ``t^J`` commutes with ring operations, so the result holds the exact
  ``q_j`` (ball arithmetic, ``O(N)`` series operations; no cancellation between the large
  monomial coefficients of ``p``, unlike an exact Taylor shift of its monomial form).
* **Tail** (Cauchy's estimate).  On the circle ``|t| = lam`` (``lam > 1``),
  ``|q_j| <= M / lam^j`` with ``M >= max |p|`` there.  The circle is the disc
  ``D(s_0, lam s_1)`` in the variable ``u``; if it lies inside the Bernstein ellipse
  ``E_rho`` (foci +-1, semi-axes ``A = (rho + 1/rho)/2``, ``B = (rho - 1/rho)/2``) then
  ``|T_k| <= rho^k`` on it (maximum principle) and ``M <= sum |c_k| rho^k``.  The distance
  from a real ``s_0`` in ``(-1, 1)`` to ``E_rho`` is at least ``min(B sqrt(1 - s_0^2),
  A - |s_0|)`` (the nearest point of the ellipse is at ``x = s_0 A^2`` when that is inside
  it, else a vertex), so ``rho`` is taken with ``B >= lam s_1 / sqrt(1 - s_0^2)`` and
  ``A >= |s_0| + lam s_1``.  Then ``sum_{j>=J} |q_j| <= M lam^-J / (1 - 1/lam)`` and
  ``sum_{j>=J} j |q_j| <= M lam^-J (J - (J - 1)/lam) / (1 - 1/lam)^2``.  ``lam`` is chosen
  near its optimum ``J / phi`` (``phi = N s_1 / sqrt(1 - s_0^2)``, the piece's width in
  units of the local oscillation of ``T_N``), a choice made in floats that only affects
  how small the (rigorous) bound is.  With ``J >= N + 1`` every coefficient is in the head
  and the tail is 0.

Guarantee
---------
The balls returned contain the exact ``q_j``; the tail bounds hold (arb arithmetic only,
floats never decide).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from flint import arb, arb_series, ctx, fmpq

from ..expr.jets import series_cap, series_coeffs

__all__ = ["ChebyshevLocal", "LocalTaylor"]


@dataclass
class LocalTaylor:
    """``p(m + r t) = sum_j q_j t^j``: ``head`` holds ``q_0 .. q_{J-1}`` (balls);
    ``tail >= sum_{j>=J} |q_j|`` and ``slope_tail >= sum_{j>=J} j |q_j|``."""

    head: list[arb]
    tail: arb
    slope_tail: arb


class ChebyshevLocal:
    """A Chebyshev series ``sum c_k T_k(u)`` on ``[a, b]`` (exact coefficients), with
    local expansions (:meth:`taylor`) and point values (:meth:`value`) in ball
    arithmetic at the current ``flint.ctx.prec`` (module docstring)."""

    def __init__(self, coeffs: list[fmpq], a: fmpq, b: fmpq) -> None:
        self.coeffs = [fmpq(c) for c in coeffs] or [fmpq(0)]
        self.a, self.b = fmpq(a), fmpq(b)
        self.degree = len(self.coeffs) - 1
        # the coefficients as balls, per working precision (a handful of precisions occur)
        self._cache: dict[int, tuple[list[arb], list[arb]]] = {}
        self._balls: list[arb] = []
        self._abs: list[arb] = []

    def _prepare(self) -> None:
        got = self._cache.get(ctx.prec)
        if got is None:
            got = ([arb(c) for c in self.coeffs], [arb(abs(c)) for c in self.coeffs])
            self._cache[ctx.prec] = got
        self._balls, self._abs = got

    def _u(self, x: fmpq) -> fmpq:
        return (2 * x - self.a - self.b) / (self.b - self.a)

    def value(self, x: fmpq) -> arb:
        """A ball holding ``p(x)``."""
        self._prepare()
        u = arb(self._u(x))
        b1 = b2 = arb(0)
        for ck in reversed(self._balls[1:]):
            b1, b2 = 2 * u * b1 - b2 + ck, b1
        out: arb = u * b1 - b2 + self._balls[0]
        return out

    def taylor(self, m: fmpq, r: fmpq, J: int) -> LocalTaylor:
        """The expansion of ``p(m + r t)`` with ``J`` head coefficients (``J >= N + 1``:
        all of them, tail 0)."""
        self._prepare()
        N = self.degree
        full = J >= N + 1
        L = N + 1 if full else J
        s0 = self._u(m)
        s1 = 2 * r / (self.b - self.a)
        with series_cap(L + 2):
            u = arb_series([arb(s0), arb(s1)], prec=L)
            u2 = 2 * u
            b1 = arb_series([arb(0)], prec=L)
            b2 = arb_series([arb(0)], prec=L)
            for ck in reversed(self._balls[1:]):
                b1, b2 = u2 * b1 - b2 + ck, b1
            s = u * b1 - b2 + self._balls[0]
            head = series_coeffs(s, L)
        if full:
            return LocalTaylor(head, arb(0), arb(0))
        tail, slope = self._tail(s0, s1, J)
        return LocalTaylor(head, tail, slope)

    def _tail(self, s0: fmpq, s1: fmpq, J: int) -> tuple[arb, arb]:
        N = max(self.degree, 1)
        s0f, s1f = float(s0), float(s1)
        phi = N * s1f / max(math.sqrt(max(1 - s0f * s0f, 0.0)), 1e-300)
        lam_f = min(max(J / max(phi, 1e-12), 2.0), 2.0**20)
        # a short dyadic near the float choice (any lam > 1 gives a valid bound)
        lam = arb(fmpq(round(lam_f * 1024), 1024))
        one = arb(1)
        R = lam * arb(s1)
        sq = (one - arb(s0) ** 2).sqrt()
        B_need = R / sq
        rho1 = B_need + (B_need**2 + 1).sqrt()
        A_up = arb((abs(arb(s0)) + R).upper())
        rho = rho1
        if A_up > 1:
            rho = rho1.max(A_up + (A_up**2 - 1).sqrt())
        rho = arb(rho.upper())
        M = arb(0)
        for c in reversed(self._abs):
            M = M * rho + c
        x = one / lam
        xJ = x**J
        tail = M * xJ / (one - x)
        slope = M * xJ * (J - (J - 1) * x) / (one - x) ** 2
        return arb(tail.upper()), arb(slope.upper())
