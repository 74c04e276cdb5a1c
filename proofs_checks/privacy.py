"""Laplace-mechanism claims: thaler2012 Lemmas 2.3-2.4, Theorems 3.1-3.2; alda2017 Theorem 7's
scale; jin's noise tail bound.

Facts used (exact): for ``Z ~ Lap(b)``, ``P[|Z| > s] = e^{-s/b}``; the ``m``-dimensional
Laplace mechanism with scale ``b`` and shift ``v`` has privacy loss exactly ``||v||_1 / b`` on
the event ``{z : z_i <= min(0, v_i)}`` (so it is ``eps``-DP iff ``||v||_1/b <= eps`` for all
neighbouring shifts).  Advanced composition (Dwork-Rothblum-Vadhan 2010): ``m`` mechanisms,
each ``eps0``-DP, are ``(eps0 sqrt(2 m ln(1/delta)) + m eps0 (e^eps0 - 1), delta)``-DP.
"""

from __future__ import annotations

import sympy as sp
from flint import arb, fmpq

from ._result import q, result


def check_lemma23(quick: bool) -> dict:
    D, k, eps, beta = sp.symbols("Delta k epsilon beta", positive=True)
    sigma = D * k / eps
    per = sp.exp(-sigma * sp.log(k / beta) / sigma)  # P[|Z_i| > sigma log(k/beta)]
    union = sp.simplify(k * per)
    l1 = k * sigma * sp.log(k / beta)
    alpha = 2 * D * k**2 * sp.log(k / beta) / eps
    ok = sp.simplify(union - beta) == 0 and sp.simplify(alpha - 2 * l1) == 0
    return result(
        "thaler2012/Lemma 2.3",
        "A(D) = g(D) + Lap^k(Delta k/eps) is eps-DP and ||g(D) - A(D)||_1 <= "
        "2 Delta k^2 log(k/beta)/eps w.p. >= 1-beta",
        "PASS" if ok else "DISCREPANCY",
        "l1-sensitivity <= k Delta, scale k Delta/eps -> eps-DP; P[|Z_i| > sigma ln(k/beta)] = "
        "beta/k exactly, union bound gives ||Z||_1 <= k sigma ln(k/beta) = alpha/2 (factor 2 "
        "to spare)",
        "sympy (exact Laplace tail)",
    )


def _adv_comp(m: int, eps0: arb, delta: arb) -> arb:
    return eps0 * (2 * m * (-delta.log())).sqrt() + m * eps0 * (eps0.exp() - 1)


def check_lemma24(quick: bool) -> dict:
    ks = [1, 2, 10, 100, 10**4, 10**6]
    epss = [fmpq(1, 100), fmpq(1, 10), fmpq(1, 2), fmpq(1)]
    deltas = [fmpq(1, 3), fmpq(1, 100), fmpq(1, 10**6), fmpq(1, 10**12)]
    bad = []
    for k in ks:
        for e in epss:
            for dl in deltas:
                eps, delta = arb(e), arb(dl)
                eps0 = eps / (3 * (k * (-delta.log())).sqrt())
                tot = _adv_comp(k, eps0, delta)
                if not (tot <= eps):
                    bad.append((k, q(e), q(dl)))
    # outside the regime: eps = 20, delta = 1/3, k = 10^4
    eps, delta, k = arb(20), arb(fmpq(1, 3)), 10**4
    eps0 = eps / (3 * (k * (-delta.log())).sqrt())
    big = _adv_comp(k, eps0, delta)
    return result(
        "thaler2012/Lemma 2.4",
        "g(D) + Lap^k(3 Delta sqrt(k log(1/delta))/eps) is (eps,delta)-DP; error "
        "6 Delta k sqrt(k log(1/delta)) log(k/beta)/eps",
        "PASS" if not bad else "OPEN",
        f"error formula = 2 k sigma ln(k/beta) (as Lemma 2.3). Advanced composition gives total "
        f"<= eps for all k in {ks}, eps <= 1, delta in {{1/3, 1e-2, 1e-6, 1e-12}} (arb); "
        f"it does not for large eps/ln(1/delta), e.g. eps = 20, delta = 1/3, k = 1e4: "
        f"{big.str(5, radius=False)} > 20 (the cited argument, not a counterexample). "
        f"failures in range: {bad[:3]}",
        "rigorous arb evaluation of the composition bound on a grid",
    )


def check_thm31_box(quick: bool) -> dict:
    # OR family, k = 1, d = 3: g_1(x) = x exactly, p_x(y) = x1 y1 + x2 y2 + x3 y3, T = 1
    d = 3
    T = fmpq(1)
    v_l1 = fmpq(d)  # ||p_x - p_x'||_1 * n for x = 111, x' = 000 (coefficients differ by 1)
    loss_over_eps = v_l1 / (2 * T)  # (||v||_1 / n) / (2T/(eps n)) = eps ||v||_1 / (2T)
    return result(
        "thaler2012/Theorem 3.1 (sanitizer noise)",
        "adding Lap(2T/(eps n)) to each of the C(m+t,t) coefficients of p_D is eps-DP",
        "DISCREPANCY" if loss_over_eps > 1 else "PASS",
        f"OR with k = 1, d = m = 3, t = 1: g_1(x) = x is exact, p_x(y) = sum x_j y_j, norm T = 1. "
        f"Rows x = (1,1,1), x' = (0,0,0) change p_D by 1/n in {d} coordinates, so on the event "
        f"{{all noisy coefficients <= 0}} the density ratio is exp(eps * {q(loss_over_eps)}) > "
        "e^eps: not eps-DP. Lemma 2.3 needs scale (2T/n) K/eps, K = C(m+t,t); the accuracy "
        "4TK^2 log(K/beta)/(eps n) of part 3 is the one for that scale.",
        "exact privacy loss of the Laplace mechanism",
        counterexample={"k": 1, "d": d, "x": [1, 1, 1], "x_prime": [0, 0, 0], "T": q(T),
                        "privacy_loss_over_eps": q(loss_over_eps)},
        correction="Lap(2 T C(m+t,t)/(eps n)) per coefficient (or calibrate to the exact "
        "l1-sensitivity max ||p_x - p_x'||_1 / n).",
    )


def check_thm31_alpha(quick: bool) -> dict:
    T, Kc, n, eps, beta, delta = sp.symbols("T K n epsilon beta delta", positive=True)
    D = 2 * T / n
    a23 = 2 * D * Kc**2 * sp.log(Kc / beta) / eps
    a24 = 6 * D * Kc * sp.sqrt(Kc * sp.log(1 / delta)) * sp.log(Kc / beta) / eps
    ok1 = sp.simplify(a23 - 4 * T * Kc**2 * sp.log(Kc / beta) / (eps * n)) == 0
    ok2 = sp.simplify(a24 - 12 * T * Kc * sp.sqrt(Kc * sp.log(1 / delta))
                      * sp.log(Kc / beta) / (eps * n)) == 0
    return result(
        "thaler2012/Theorems 3.1-3.2 (accuracy)",
        "alpha = gamma + 4T K^2 log(K/beta)/(eps n) (Thm 3.1), gamma + 12 T K sqrt(K log(1/delta))"
        " log(K/beta)/(eps n) (Thm 3.2), K = C(m+t,t)",
        "PASS" if ok1 and ok2 else "DISCREPANCY",
        "Lemmas 2.3/2.4 with sensitivity Delta = 2T/n and k = K coordinates give exactly the "
        "printed alphas; |(p~ - p)(y)| <= ||p~ - p||_1 since monomials are 0/1 on {0,1}^m",
        "sympy",
    )


def check_alda_thm7_scale(quick: bool) -> dict:
    ok_region, bad_region = 0, []
    for ell, k in ((1, 20), (2, 10), (3, 5)):
        m = (k + 1) ** ell
        for e in (fmpq(1, 10), fmpq(1), fmpq(10)):
            for dl in (fmpq(1, 10), fmpq(1, 10**6)):
                eps, delta = arb(e), arb(dl)
                eps0 = eps / (2 * (2 * m * (-delta.log())).sqrt())
                tot = _adv_comp(m, eps0, delta)
                if tot <= eps:
                    ok_region += 1
                else:
                    bad_region.append((ell, k, q(e), q(dl), tot.str(4, radius=False)))
    return result(
        "alda2017/Theorem 7 (perturbation scale)",
        "lambda_delta = 2 S(F) sqrt(2 (k+1)^l log(1/delta))/eps suffices for (eps,delta)-DP "
        "(advanced composition)",
        "OPEN",
        f"per-coefficient eps0 = S/lambda_delta; the composition bound "
        f"eps0 sqrt(2m ln(1/delta)) + m eps0 (e^eps0 - 1) = eps/2 + ... is <= eps in "
        f"{ok_region} of 18 grid cases but exceeds eps in {bad_region[:2]}: the argument needs "
        "roughly eps <= 2 ln(1/delta). Whether the mechanism is private there is not decided.",
        "rigorous arb evaluation of the advanced-composition bound",
    )


def check_jin_noise_tail(quick: bool) -> dict:
    # ||Delta||_1 = (t^d/(n eps)) Gamma(m, 1), m = t^d.  P[Gamma(m,1) > 2m] =
    # e^{-2m} sum_{j<m} (2m)^j/j!  must be <= 10 e^{-m/5}
    M = 60 if quick else 400
    bad, worst = [], arb(0)
    for m in range(1, M + 1):
        s = arb(0)
        term = arb(1)
        for j in range(m):
            if j:
                term = term * (2 * m) / j
            s += term
        tail = s * arb(-2 * m).exp()
        ratio = tail / (10 * (arb(-m) / 5).exp())
        if not (ratio < 1):
            bad.append(m)
        worst = ratio if ratio > worst else worst
    return result(
        "jin/Theorem 3.1 proof (noise tail)",
        "P(||Delta||_1 <= 2 t^{2d}/(n eps)) >= 1 - 10 e^{-t^d/5}",
        "PASS" if not bad else "DISCREPANCY",
        f"exact Gamma(m,1) tail P[G > 2m] = e^(-2m) sum_(j<m) (2m)^j/j! is < 10 e^(-m/5) for "
        f"all m = t^d <= {M} (arb; Chernoff gives (2/e)^m <= e^(-m/5) for every m)",
        "rigorous arb evaluation",
    )


CHECKS = [check_lemma23, check_lemma24, check_thm31_box, check_thm31_alpha,
          check_alda_thm7_scale, check_jin_noise_tail]
