"""alda2017 Theorem 8 (lower-bound construction), Section 6 sensitivity bounds, Appendix E."""

from __future__ import annotations

from flint import arb, fmpq

from ._result import q, result


def check_thm8_indices(quick: bool) -> dict:
    V, ell, eps = 2, 1, fmpq(1, 2)
    N = (V + 9) ** ell
    c = int(1 / eps)  # floor(1/eps)
    printed = [N - j + 8 for j in range(1, 9)]
    out_of_range = [i for i in printed if i > N - 1]
    # corrected construction: bins 0..N-1, weights 1 on 0..N-8 and 2..8 on N-7..N-1,
    # database D_j puts c rows in bin N - j
    w = [1] * (N - 7) + list(range(2, 9))
    assert len(w) == N
    dbs = []
    for j in range(1, 9):
        dvec = [0] * N
        for i in range(V):
            dvec[i] = 1
        dvec[N - j] += c
        dbs.append(dvec)
    S = max(w) - min(w)  # replacing one row moves one count between bins
    ok_pairs = all(
        sum(abs(a - b) for a, b in zip(dbs[i], dbs[j])) == 2 * c
        and abs(sum(wi * (a - b) for wi, a, b in zip(w, dbs[i], dbs[j]))) >= c
        for i in range(8) for j in range(8) if i != j)
    ok_size = all(sum(dv) == V + c for dv in dbs)
    return result(
        "alda2017/Theorem 8 (proof indices)",
        "F = eta(d_0 + ... + d_{N-7} + 2 d_{N-6} + ... + 8 d_N + <y,1>), N = |X| = (V+9)^l; "
        "D_j has c rows in bin i = N - j + 8, j = 1..8; S(F) = 7 eta",
        "DISCREPANCY" if out_of_range else "PASS",
        f"V = {V}, l = {ell}, eps = 1/2 (c = {c}): N = {N} bins, indices 0..{N - 1}, but the "
        f"printed bins N-j+8 are {printed} (all > N-1) and the weight list d_0..d_N has N+1 "
        f"entries. Corrected (bins N-j, weights 1..8 on N-8..N-1): S(F) = {S} eta, "
        f"||D_i - D_j||_1 = 2c and |F(D_i) - F(D_j)| >= c eta for all pairs: {ok_pairs}; "
        f"||D_j||_1 = n: {ok_size}.",
        "exact integer enumeration of the construction",
        counterexample={"V": V, "l": ell, "N": N, "printed_bins": printed},
        correction="index bins 0..N-1 with weights 1 (i <= N-8), 2..8 (i = N-7..N-1) and put "
        "the c rows of D_j in bin N - j; the argument then goes through unchanged.",
    )


def check_kde_sensitivity(quick: bool) -> dict:
    # S(F_H) <= sup K_H / n since 0 <= K_H; Gaussian sup = K_H(0) = 1/sqrt(2 pi h) (l = 1)
    bad = 0
    G = 20 if quick else 60
    for h in (fmpq(1, 100), fmpq(1, 10), fmpq(1)):
        k0 = 1 / (2 * arb.pi() * arb(h)).sqrt()

        def kern(u, h=h, k0=k0):
            return k0 * (-arb(u) ** 2 / (2 * arb(h))).exp()

        for yi in range(G + 1):
            for di in range(G + 1):
                for ei in range(0, G + 1, 4):
                    y, dd, ee = fmpq(yi, G), fmpq(di, G), fmpq(ei, G)
                    # K(u) = K(0) e^{-u^2/(2h)} in (0, K(0)] because the exponent is <= 0
                    # (exact), hence |K(y-d) - K(y-d')| <= K(0); arb must not contradict it
                    if -(y - dd) ** 2 / (2 * h) > 0 or abs(kern(y - dd) - kern(y - ee)) > k0:
                        bad += 1
    return result(
        "alda2017/Section 6 (KDE sensitivity)",
        "S(F_H) <= sup_y K_H(y)/n; Gaussian kernel: S(F_H) <= 1/(n sqrt((2 pi)^l det H))",
        "PASS" if not bad else "DISCREPANCY",
        "replacing one point changes F_H(D, y) by (K_H(y-d) - K_H(y-d'))/n with both terms in "
        "[0, sup K_H]; the Gaussian density's maximum is K_H(0) = ((2 pi)^l det H)^(-1/2). "
        f"l = 1, h in {{1/100, 1/10, 1}}: |K(y-d) - K(y-d')| <= K(0) (exponents <= 0 "
        f"exactly; arb finds no violation) at all grid points y, d, d' in [0,1] "
        f"(step 1/{G}); {bad} failures",
        "argument + arb evaluation",
    )


def check_naive_bayes(quick: bool) -> dict:
    p = [fmpq(2), fmpq(2)]
    xi = fmpq(1, 2)
    lhs = (p[0] + xi) * (p[1] + xi)
    rhs = p[0] * p[1] + (2**2 - 1) * xi
    b = fmpq(1, 10)  # KDE bandwidth: density at a data point can be 1/(sqrt(2 pi) b) ~ 3.99
    dens = 1 / ((2 * arb.pi()).sqrt() * arb(b))
    return result(
        "alda2017/Appendix F (naive Bayes sensitivity)",
        "prod_i (P(y_i|l,D') + xi) <= prod_i P(y_i|l,D') + (2^l - 1) xi, and "
        "(1/n) P(y|l,D) <= 1/n",
        "DISCREPANCY" if lhs > rhs else "PASS",
        f"the cross terms are bounded by xi only if every factor is <= 1, but the P(y_i|l,D) are "
        f"KDE densities: l = 2, P = (2, 2), xi = 1/2 gives {q(lhs)} > {q(rhs)}. Densities above 1 "
        f"occur: a Gaussian KDE with bandwidth b = 1/10 has density "
        f"{dens.str(4, radius=False)} at a data point.",
        "exact rationals + arb",
        counterexample={"l": 2, "P": [q(x) for x in p], "xi": q(xi), "lhs": q(lhs),
                        "rhs": q(rhs)},
        correction="with densities bounded by P_max >= 1: prod(P_i + xi) - prod P_i <= "
        "(P_max + xi)^l - P_max^l, and the last term is P_max/n.",
    )


def check_appE(quick: bool) -> dict:
    return result(
        "alda2017/Appendix E (smooth case)",
        "the multivariate error is <= l T D_h k^{-h} by the same induction as the Holder case",
        "OPEN",
        "for h >= 2 the intermediate G is a signed combination (iterated basis not positive), "
        "so its y_{l+1}-derivatives are bounded by Lambda_{k,h}^l T rather than T; the "
        "induction gives (1 + Lambda + ... + Lambda^{l-1}) T D_h k^{-h} (Lambda <= 1.53 "
        "measured, <= 2^h - 1 proved), still O(k^-h). No counterexample to the printed "
        "constant searched.",
        "proof reading (docs/bernstein.md item 5); not checked numerically",
    )


CHECKS = [check_thm8_indices, check_kde_sensitivity, check_naive_bayes, check_appE]
