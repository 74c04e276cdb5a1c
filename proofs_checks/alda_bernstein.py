"""alda2017 Sections 3-4 and Appendices A-C: Bernstein basis, iterated operator, noise bound.

Own exact implementation (``fmpq_poly``), independent of ``dpverify.constructions.bernstein``:
``b_{nu,k}(y) = C(k,nu) y^nu (1-y)^(k-nu)``; ``B_k p = sum_nu p(nu/k) b_{nu,k}``.
The certified Lebesgue constant uses ``dpverify.certify.lebesgue`` (its own method).
"""

from __future__ import annotations

from math import comb, factorial

from flint import arb, fmpq, fmpq_poly

from ._result import q, result

Y = fmpq_poly([0, 1])


def basis(k: int) -> list[fmpq_poly]:
    return [comb(k, nu) * Y**nu * (1 - Y) ** (k - nu) for nu in range(k + 1)]


def bern(p: fmpq_poly, k: int) -> fmpq_poly:
    return sum((p(fmpq(nu, k)) * b for nu, b in enumerate(basis(k))), fmpq_poly([0]))


def iterated_basis(k: int, h: int) -> list[fmpq_poly]:
    """b^{(h)}_{nu,k} = sum_{i=1}^h C(h,i) (-1)^(i-1) B_k^(i-1) b_{nu,k} (Definition 8)."""
    out = []
    for b in basis(k):
        acc, cur = fmpq_poly([0]), b
        for i in range(1, h + 1):
            acc += comb(h, i) * (-1) ** (i - 1) * cur
            cur = bern(cur, k)
        out.append(acc)
    return out


def check_prop2_appA(quick: bool) -> dict:
    K = 20 if quick else 60
    bad = []
    for k in range(1, K + 1):
        bs = basis(k)
        if sum(bs, fmpq_poly([0])) != 1:
            bad.append(("sum", k))
        # non-negativity on [0,1]: coefficients in the Bernstein basis are unit vectors; check
        # exactly at 64 rationals as a sanity check
        if any(b(fmpq(i, 64)) < 0 for b in bs for i in range(65)):
            bad.append(("sign", k))
        lin = fmpq(3, 7) * Y + fmpq(-2, 5)
        if bern(lin, k) != lin:
            bad.append(("linear", k))
        if sum((nu * b for nu, b in enumerate(bs)), fmpq_poly([0])) != k * Y:
            bad.append(("first moment", k))
    return result(
        "alda2017/Proposition 2 and Appendix A",
        "b_{nu,k} >= 0 on [0,1], sum_nu b_{nu,k} = 1; linear functions are fixed points of B_k "
        "(sum nu b_{nu,k} = k y)",
        "PASS" if not bad else "DISCREPANCY",
        f"polynomial identities exact for all k <= {K}; b >= 0 is the product of non-negative "
        f"factors (also evaluated exactly at 65 points). failures {bad[:3]}",
        f"exact fmpq_poly identities, k <= {K}",
    )


def check_def8(quick: bool) -> dict:
    K, H = (8, 4) if quick else (14, 6)
    bad = []
    for k in range(1, K + 1):
        for h in range(1, H + 1):
            ib = iterated_basis(k, h)
            if sum(ib, fmpq_poly([0])) != 1:
                bad.append(("partition of unity", k, h))
            # B^{(h)} = I - (I - B)^h on a test polynomial, and via the basis
            p = fmpq_poly([fmpq(1, 3), -2, 0, fmpq(5, 2), 1])
            lhs, cur = p, p
            for _ in range(h):
                cur = cur - bern(cur, k)  # (I - B)^j p
            lhs = p - cur
            via_basis = sum((p(fmpq(nu, k)) * b for nu, b in enumerate(ib)), fmpq_poly([0]))
            alt, cur = fmpq_poly([0]), p
            for i in range(1, h + 1):
                cur = bern(cur, k)
                alt += comb(h, i) * (-1) ** (i - 1) * cur
            if not (lhs == via_basis == alt):
                bad.append(("operator identity", k, h))
            if h == 1 and ib != basis(k):
                bad.append(("B^(1) = B", k))
    return result(
        "alda2017/Definition 8",
        "B^{(h)}_k = I - (I - B_k)^h = sum_i C(h,i)(-1)^{i-1} B^i_k; B^{(h)}_k(f;y) = "
        "sum_nu f(nu/k) b^{(h)}_{nu,k}(y); sum_nu b^{(h)}_{nu,k} = 1; B^{(1)} = B",
        "PASS" if not bad else "DISCREPANCY",
        f"all identities exact for k <= {K}, h <= {H} (test polynomial of degree 4). "
        f"failures {bad[:3]}",
        "exact fmpq_poly",
    )


def check_y2(quick: bool) -> dict:
    K, H = (10, 5) if quick else (16, 8)
    bad = []
    for k in range(1, K + 1):
        for h in range(1, H + 1):
            cur = Y**2
            for _ in range(h):
                cur = cur - bern(cur, k)
            if Y**2 - cur != Y**2 + Y * (1 - Y) / fmpq(k) ** h:
                bad.append((k, h))
    return result(
        "alda2017/Definition 8 (iterates of y^2)",
        "B_k^{(h)}(y^2) = y^2 + y(1-y)/k^h",
        "PASS" if not bad else "DISCREPANCY",
        f"exact for k <= {K}, h <= {H}; proof: (I - B_k) y^2 = -y(1-y)/k and (I - B_k) kills "
        f"y, so (I - B_k)^h y^2 = -y(1-y)/k^h. failures {bad[:3]}",
        "exact fmpq_poly",
    )


def check_def9(quick: bool) -> dict:
    # literal reading with the unbound nu_i fixed at 0, l = 2, k = 1, h = 1, f = 1, y = (0,0)
    b = basis(1)
    y1 = y2 = fmpq(0)
    literal = sum(b[n1](y1) * b[0](y2) for n1 in range(2)) + sum(b[0](y1) * b[n2](y2)
                                                                for n2 in range(2))
    tensor = sum(b[n1](y1) * b[n2](y2) for n1 in range(2) for n2 in range(2))
    return result(
        "alda2017/Definition 9",
        "B^{(h)}_{k_1..k_l}(f; y) = sum_{j=1}^{l} sum_{nu_j=0}^{k_j} f(nu_1/k_1, .., nu_l/k_l) "
        "prod_i b^{(h)}_{nu_i,k_i}(y_i)",
        "DISCREPANCY" if literal != 1 and tensor == 1 else "PASS",
        f"the printed sum leaves nu_i (i != j) unbound; fixing them (e.g. at 0) breaks "
        f"constants: l = 2, k = 1, h = 1, f = 1, y = (0,0) gives {literal} instead of 1; the "
        f"tensor sum gives {tensor}. Same misprint in Algorithm 1, Proposition 4, Appendices D-E.",
        "exact evaluation",
        counterexample={"l": 2, "k": 1, "h": 1, "f": "1", "y": [0, 0], "printed": q(literal),
                        "tensor": q(tensor)},
        correction="sum over all multi-indices nu in {0..k_1} x ... x {0..k_l} (nested sums).",
    )


def check_prop11_bound(quick: bool) -> dict:
    from dpverify.certify.lebesgue import lebesgue_constant

    ks = [2, 5, 10, 20] if quick else [2, 5, 10, 20, 50, 100, 200]
    hs = range(1, 6) if quick else range(1, 9)
    worst, bad = fmpq(0), []
    for k in ks:
        for h in hs:
            enc = lebesgue_constant(k, h, rtol="1e-3")
            worst = max(worst, enc.upper)
            if enc.upper > 2**h - 1:
                bad.append((k, h))
    # independent exact lower-bound sanity: U(y) at y = 1/5 for k = 5, h = 3
    ib = iterated_basis(5, 3)
    u = sum(abs(b(fmpq(1, 5))) for b in ib)
    return result(
        "alda2017/Proposition 11 (eq. (12) U(y) <= 2^h - 1)",
        "U(y) = sum_nu |b^{(h)}_{nu,k}(y)| <= 2^h - 1 on [0,1]",
        "PASS" if not bad else "DISCREPANCY",
        f"certified max_y U(y) (Lebesgue constant) <= {float(worst):.4f} for k in {ks}, "
        f"h <= {max(hs)}: valid but loose against 2^h - 1 (= {2 ** max(hs) - 1} at h = "
        f"{max(hs)}); exact spot value U(1/5) = {float(u):.4f} for k = 5, h = 3. failures {bad}",
        "certified branch-and-bound enclosure (dpverify.certify.lebesgue) + exact spot check",
    )


def _tail_counterexample(corners: int) -> list[tuple[int, str, str]]:
    """P[max_y |.| >= tau] = 1 - (1 - e^-t)^corners vs e^{-t/C} at t = 1/C^2."""
    rows = []
    for C in (1, 2, 10, 100, 10**4):
        t = arb(fmpq(1, C * C))
        p = 1 - (1 - (-t).exp()) ** corners
        rhs = (-t / C).exp()
        rows.append((C, p.str(8, radius=False), rhs.str(8, radius=False), bool(p > rhs)))
    return rows


def check_prop11_max(quick: bool) -> dict:
    rows = _tail_counterexample(2)
    ok = all(r[3] for r in rows)
    return result(
        "alda2017/Proposition 11 (max over y)",
        "P[max_{y in [0,1]} |sum_nu Z_nu b^{(h)}_{nu,k}(y)| >= tau] <= e^{-tau/(C_h lambda)}",
        "DISCREPANCY" if ok else "OPEN",
        "k = 1, h = 1: sum = Z_0 (1-y) + Z_1 y is affine, so the max over y is max(|Z_0|, |Z_1|) "
        "and P[max >= tau] = 2e^-t - e^-2t = 1 - t^2 + O(t^3) (t = tau/lambda) exceeds "
        "e^{-t/C} = 1 - t/C + ... for every C: at t = 1/C^2: "
        + "; ".join(f"C={C}: {p} > {r}" for C, p, r, _ in rows)
        + ". Appendix C only proves the bound for each fixed y.",
        "closed form + rigorous arb comparison",
        counterexample={"k": 1, "h": 1, "probability": "2*exp(-t) - exp(-2*t)",
                        "C_values": [r[0] for r in rows], "t": "1/C^2"},
        correction="pointwise in y as proved; uniformly: sup_y |sum Z b^{(h)}| <= Lambda_{k,h} "
        "max |Z_nu|, so P[max >= tau] <= (k+1) e^{-tau/(Lambda_{k,h} lambda)} (extra log(k+1) "
        "in the accuracy).",
    )


def check_prop4_max(quick: bool) -> dict:
    rows = _tail_counterexample(4)
    ok = all(r[3] for r in rows)
    return result(
        "alda2017/Proposition 4",
        "P[max_{y in [0,1]^l} |sum_nu Z_nu prod_i b^{(h)}_{nu_i,k}(y_i)| >= tau] <= "
        "e^{-tau/(C_{h,l} lambda)}",
        "DISCREPANCY" if ok else "OPEN",
        "l = 2, k = 1, h = 1: the sum is bilinear, its max over [0,1]^2 is the max of the 4 "
        "corner values |Z_nu|, so P = 1 - (1-e^-t)^4 = 1 - O(t^4) > e^{-t/C} at t = 1/C^2: "
        + "; ".join(f"C={C}: {p} > {r}" for C, p, r, _ in rows) + " (l = 1 is Prop. 11).",
        "closed form + rigorous arb comparison",
        counterexample={"l": 2, "k": 1, "h": 1, "probability": "1 - (1 - exp(-t))^4",
                        "t": "1/C^2"},
        correction="P[max >= tau] <= (k+1)^l exp(-tau/(Lambda_{k,h}^l lambda)).",
    )


def _iterated_values(F: list[fmpq], k: int, h: int) -> list[fmpq]:
    """Bernstein coefficients w of B^{(h)}_k f from lattice values F (Horner on vectors)."""
    A = [[b(fmpq(mu, k)) for b in basis(k)] for mu in range(k + 1)]  # A[mu][nu] = b_nu(mu/k)
    w = list(F)
    for _ in range(h - 1):
        Aw = [sum((A[mu][nu] * w[nu] for nu in range(k + 1)), fmpq(0)) for mu in range(k + 1)]
        w = [F[mu] + w[mu] - Aw[mu] for mu in range(k + 1)]
    return w


def check_thm5(quick: bool) -> dict:
    ks = [16, 32, 64] if quick else [16, 32, 64, 128]
    grid = 32 if quick else 64
    half = fmpq(1, 2)
    out = {}
    for h in (1, 2, 3):
        T = factorial(2 * h)

        def f(y, h=h):
            s = y - half
            return s ** (2 * h) * (1 if s >= 0 else -1)

        ratios = []
        for k in ks:
            w = _iterated_values([f(fmpq(nu, k)) for nu in range(k + 1)], k, h)
            bs = basis(k)
            err = max(abs(f(fmpq(i, grid)) - sum((w[m] * bs[m](fmpq(i, grid))
                                                  for m in range(k + 1)), fmpq(0)))
                      for i in range(grid + 1))
            ratios.append(float(err) * k**h / T)
        out[h] = ratios
    import math

    slopes = {h: math.log(r[-1] / r[-2]) / math.log(2) for h, r in out.items()}
    ok = all(s < 0.5 for s in slopes.values())
    return result(
        "alda2017/Theorem 5",
        "(2h,T)-smooth f: |f(y) - B^{(h)}_k(f;y)| <= T D_h k^{-h}",
        "PASS" if ok else "OPEN",
        "edge-of-hypothesis test f(y) = (y-1/2)^{2h} sign(y-1/2) (f^{(2h)} = (2h)! sign: "
        f"bounded, discontinuous; T = (2h)!): k^h err/T over a {grid + 1}-point grid for k in "
        f"{ks}: " + "; ".join(f"h={h}: " + ", ".join(f"{x:.2e}" for x in r)
                             for h, r in out.items())
        + "; log2 growth of k^h err over the last doubling: "
        + ", ".join(f"h={h}: {s:.2f}" for h, s in slopes.items())
        + " (decreasing towards 0: consistent with rate k^-h; y^2 shows the rate is sharp, "
        "error y(1-y)/k^h exactly).",
        "exact errors on a rational grid (lower bound for the sup), empirical rate",
        data={"ratios": {str(h): r for h, r in out.items()}},
    )


def check_thm6(quick: bool) -> dict:
    K = 16 if quick else 40
    G = 16 if quick else 40
    worst = fmpq(0)
    for k in range(1, K + 1):
        bs = basis(k)
        for ci in range(G + 1):
            c = fmpq(ci, G)
            vals = [abs(fmpq(nu, k) - c) for nu in range(k + 1)]
            for yi in range(G + 1):
                y = fmpq(yi, G)
                e = abs(sum((vals[nu] * bs[nu](y) for nu in range(k + 1)), fmpq(0)) - abs(y - c))
                worst = max(worst, e * e * 4 * k)  # (err / (4k)^{-1/2})^2, exact
    # gamma = 1/2, f = |y - c|^{1/2}: rigorous
    worst_half, ties = arb(0), []
    for k in (1, 2, 4, 8, 16):
        bs = basis(k)
        for ci in range(0, 9):
            c = fmpq(ci, 8)
            for yi in range(0, 9):
                y = fmpq(yi, 8)
                val = sum((arb(abs(fmpq(nu, k) - c)).sqrt() * arb(bs[nu](y))
                           for nu in range(k + 1)), arb(0))
                e = abs(val - arb(abs(y - c)).sqrt()) * (4 * arb(k)) ** arb(fmpq(1, 4))
                if k == 1 and y == c == fmpq(1, 2):
                    # equality by hand: B_1 f(1/2) = (1/2)^(1/2) = (4k)^(-1/4)
                    ties.append((k, q(c), q(y)))
                    continue
                worst_half = e if e > worst_half else worst_half
    ok = worst <= 1 and worst_half < 1
    return result(
        "alda2017/Theorem 6",
        "(gamma,L)-Holder f: |f(y) - B_k(f;y)| <= L (4k)^{-gamma/2}",
        "PASS" if ok else "DISCREPANCY",
        f"worst case search over f = |y - c| (gamma = 1, L = 1), c, y on a 1/{G} grid, k <= {K}: "
        f"max (err/(4k)^(-1/2))^2 = {float(worst):.4f} (exact; equality at y = c = 1/2, k = 1: "
        f"Jensen on E|X/k - y|); gamma = 1/2, f = |y-c|^(1/2): max err/(4k)^(-1/4) = "
        f"{worst_half.str(4, radius=False)} (arb) away from the equality case {ties}",
        "exact rationals (gamma = 1), arb (gamma = 1/2)",
    )


CHECKS = [check_prop2_appA, check_def8, check_y2, check_def9, check_prop11_bound,
          check_prop11_max, check_prop4_max, check_thm5, check_thm6]
