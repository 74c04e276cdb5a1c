"""jin Appendix A.1: Theorem A.1's approximation rate and footnote 5's constant M."""

from __future__ import annotations

import math

from flint import arb, fmpq

from ._result import q, result
from .wang_jackson import max_abs_multiplier


def floor_over_pi(N: int) -> int:
    """floor(N/pi), certified with arb (raises if undecided)."""
    x = arb(N) / arb.pi()
    f = int(math.floor(float(x.mid())))
    if not (x > f and x < f + 1):
        raise ArithmeticError(f"floor(N/pi) undecided for N={N}")
    return f


def least_N(t: int) -> int:
    """Least N with 2 floor(N/pi) >= t (cos(N x) then alternates 2J+1 > t times on [-1,1])."""
    N = 1
    while 2 * floor_over_pi(N) < t:
        N += 1
    return N


def check_thm_a1(quick: bool) -> dict:
    K = 1
    rows = []
    for t in (10, 100, 1000):
        N = least_N(t)
        rows.append((t, N, fmpq(t) ** (K + 1) / fmpq(N) ** K))
    ev = "; ".join(f"t={t}: N={N}, t^(K+1) E >= {q(v)} (~{float(v):.1f})" for t, N, v in rows)
    return result(
        "jin/Theorem A.1",
        "for f in C^K_B there is M with ||g_f - h^{M,t}_f|| <= O(1/t^{K+1}) (h of degree <= t-1 "
        "per variable)",
        "DISCREPANCY",
        "f_N(x) = cos(N x)/N^K has ||f_N||_K = 1 (d = 1, B = 1). cos(N x) = (-1)^j at x_j = "
        "j pi/N, |j| <= floor(N/pi), so a polynomial P of degree < 2 floor(N/pi) with "
        "||cos(N .) - P|| < 1 would have >= 2 floor(N/pi) sign changes: impossible. Hence every "
        "trig polynomial of degree <= t-1 in theta (= algebraic in x) has error >= 1/N^K. "
        f"K = 1: {ev}: unbounded.",
        "alternation argument, floor(N/pi) certified in arb",
        counterexample={"K": K, "family": "f_N(x) = cos(N x)/N^K", "t": rows[0][0],
                        "N": rows[0][1], "lower_bound": f"1/{rows[0][1]}^{K}"},
        correction="O(t^{-K}) (Jackson); in the proof eta_a = O(t^{-K}) = O(n^{-K/(2d+K)}) is "
        "of the same order as the other terms, so Theorem 3.1 is unaffected.",
    )


def check_footnote5(quick: bool) -> dict:
    T = 24 if quick else 64
    bad, rows = [], []
    for K in range(1, 6):
        W = max_abs_multiplier(T, K)
        jackson = 4 * float(W) / math.pi
        rows.append(f"K={K}: 4W/pi = {jackson:.3f} vs pi(K+1) = {math.pi * (K + 1):.2f}")
        for d in range(1, 9):
            if jackson**d > 2**K * (math.pi * (K + 1)) ** d:
                bad.append((K, d))
    return result(
        "jin/footnote 5",
        "M = 2^K B (pi (K+1))^d suffices (coefficient bound of the approximating trig "
        "polynomial)",
        "PASS" if not bad else "DISCREPANCY",
        "the Jackson-type approximation I_{t-1,K}(g_f) (wang2013 eq. (2), rate t^-K) has "
        "coefficients |ghat_n prod w_{n_i}| <= B (4W/pi)^d with W = max |w_n| (exact, t <= "
        f"{T}); " + "; ".join(rows) + f"; below M for all K <= 5, d <= 8. failures {bad}",
        "exact multipliers + float comparison with wide margin",
    )


CHECKS = [check_thm_a1, check_footnote5]
