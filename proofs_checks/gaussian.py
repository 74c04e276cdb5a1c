"""Gaussian-kernel smoothness claims (jin Proposition 2.1 and Lemma A.3, the slides' Fact).

Rigorous sup bounds of ``|H_k(x)| e^{-c x^2}`` (physicists' Hermite ``H_k``) on ``[0, R]``
by adaptive bisection: on a piece ``[m - r, m + r]``,
``|phi(x)| <= |phi(m)| + r sup|phi'|`` with ``phi' = (H_k' - 2 c x H_k) e^{-c x^2}``
enclosed in ``arb`` over the piece.  Beyond ``R^2 = 2k+1`` the Hermite function
``psi = H_k e^{-x^2/2}`` satisfies ``psi'' = (x^2 - 2k - 1) psi``: it has no zeros there, is
convex towards 0 and hence monotone, so ``|psi|`` (and ``|psi| e^{-x^2/2}``) decreases; the
functions are even or odd, so ``[0, R]`` suffices.
"""

from __future__ import annotations

import math

from flint import arb, fmpq, fmpz_poly

from ._result import result


def hermite(k: int) -> fmpz_poly:
    a, b = fmpz_poly([1]), fmpz_poly([0, 2])
    if k == 0:
        return a
    for j in range(1, k):
        a, b = b, fmpz_poly([0, 2]) * b - 2 * j * a
    return b


def _eval(p: fmpz_poly, x: arb) -> arb:
    acc = arb(0)
    for c in reversed([int(v) for v in p.coeffs()]):
        acc = acc * x + c
    return acc


def sup_bound_holds(k: int, c: fmpq, bound: arb, lo: fmpq, hi: fmpq,
                    max_depth: int = 40) -> tuple[bool, fmpq | None]:
    """True if sup_{[lo,hi]} |H_k| e^{-c x^2} <= bound (rigorous). Else (False, witness)."""
    H = hermite(k)
    dH = H.derivative() if k else fmpz_poly([0])
    ca = arb(c)
    stack = [(lo, hi, 0)]
    while stack:
        a, b, depth = stack.pop()
        m = (a + b) / 2
        r = (b - a) / 2
        xm = arb(m)
        vm = abs(_eval(H, xm) * (-ca * xm * xm).exp())
        if vm > bound:
            return False, m
        X = arb(m, r)
        dphi = (_eval(dH, X) - 2 * ca * X * _eval(H, X)) * (-ca * X * X).exp()
        up = vm + arb(r) * abs(dphi)
        if up <= bound:
            continue
        if depth >= max_depth:
            return False, None
        stack.append((a, m, depth + 1))
        stack.append((m, b, depth + 1))
    return True, None


def _R(k: int) -> fmpq:
    return fmpq(math.isqrt(2 * k + 1) + 1)


def check_jin_lemma_a3(quick: bool) -> dict:
    kmax = 14 if quick else 30
    bad = []
    for k in range(1, kmax + 1):
        bound = arb(2**k * math.factorial(k)).sqrt()
        ok, w = sup_bound_holds(k, fmpq(1, 2), bound, fmpq(0), _R(k))
        if not ok:
            bad.append((k, w))
    return result(
        "jin/Lemma A.3",
        "|H_k(x)| <= (2^k k!)^{1/2} e^{x^2/2} for all real x",
        "PASS" if not bad else "DISCREPANCY",
        f"rigorous sup of |H_k| e^(-x^2/2) below sqrt(2^k k!) for every k <= {kmax} (k = 0 is "
        "equality at x = 0); this is Indritz's inequality. failures: " + str(bad[:3]),
        "adaptive interval bisection with mean-value bounds (arb) on [0, sqrt(2k+1)+1], "
        "monotone tail",
    )


def check_jin_prop21(quick: bool) -> dict:
    # proof: |D^k f| <= prod_j sqrt(k_j!)/sigma^{k_j} <= sqrt(K!)/sigma^K <= (K/sigma^2)^{K/2}
    Kmax = 60 if quick else 400
    bad = [KK for KK in range(1, Kmax + 1) if math.factorial(KK) > KK**KK]
    # spot check sup |f^(K)| directly: sigma^2 = K, 1-D, |f^(K)| = (2 sigma^2)^{-K/2}|H_K|e^{-v^2}
    kmax = 10 if quick else 24
    direct = []
    for KK in range(1, kmax + 1):
        bound = arb(2 * KK) ** (arb(KK) / 2)  # sup |H_K(v)| e^{-v^2} <= (2 sigma^2)^{K/2}
        ok, _ = sup_bound_holds(KK, fmpq(1), bound, fmpq(0), _R(KK))
        if not ok:
            direct.append(KK)
    return result(
        "jin/Proposition 2.1",
        "f = sum_j alpha_j exp(-||x - x_j||^2/(2 sigma^2)), ||alpha||_1 <= 1, K <= sigma^2 "
        "=> ||f||_K <= 1",
        "PASS" if not bad and not direct else "DISCREPANCY",
        f"proof chain: prod k_j! <= K! <= K^K exact for K <= {Kmax}, with Lemma A.3 (checked "
        f"separately); direct rigorous sup |d^K/dx^K e^(-x^2/(2K))| <= 1 for K <= {kmax}; "
        "mixed derivatives factor over coordinates and |k| < K is weaker. failures: "
        + str(bad[:3] + direct[:3]),
        "exact integers + rigorous interval sup",
    )


def check_slides_gaussian(quick: bool) -> dict:
    # worst case sigma^2 = k/2 for the k-th derivative (sup over R scales like sigma^-k):
    # sup |d^k/du^k e^{-u^2/(2 sigma^2)}| = k^{-k/2} sup_v |H_k(v)| e^{-v^2}  must be <= 1
    kmax = 12 if quick else 30
    bad = []
    for k in range(1, kmax + 1):
        bound = arb(k) ** (arb(k) / 2)
        lo = fmpq(0)
        if k == 2:
            # |4v^2 - 2| e^{-v^2} <= 2 on [0, 1/2] exactly (4v^2 - 2 in [-2, -1]); equality at 0
            lo = fmpq(1, 2)
        ok, w = sup_bound_holds(k, fmpq(1), bound, lo, _R(k))
        if not ok:
            bad.append((k, w))
    return result(
        "wang_slides/Gaussian smoothness",
        "f(x) = exp(-||x - x0||^2/(2 sigma^2)) on [-1,1]^d: for every K <= 2 sigma^2, "
        "||f||_K <= 1",
        "PASS" if not bad else "DISCREPANCY",
        f"holds (and is tight: K = 2, sigma^2 = 1, x = x0 gives |f''| = 1): sup_v |H_k(v)| "
        f"e^(-v^2) <= k^(k/2) rigorously for all k <= {kmax}; derivatives decrease in sigma and "
        "mixed derivatives factor, each factor has order k_j <= K <= 2 sigma^2. The slides' "
        "condition K <= 2 sigma^2 is weaker than jin's K <= sigma^2 and still true. failures: "
        + str(bad[:3]),
        "adaptive interval bisection with mean-value bounds (arb); k = 2 near 0 by hand",
    )


CHECKS = [check_jin_lemma_a3, check_jin_prop21, check_slides_gaussian]
