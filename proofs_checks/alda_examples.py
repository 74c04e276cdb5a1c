"""alda2017 §6 examples: naive Bayes (Appendix F, corrected), logistic regression
(Appendix G), Priestley-Chao regression.

Each check re-derives the claim independently of :mod:`dpverify.mechanisms`: brute force
over every small database (count vectors; float64 *search*), then the extreme pairs are
re-evaluated in arb, which decides.  The sensitivity formulas of dpverify are compared
with these numbers, not used to produce them.
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import numpy as np
from flint import arb, arb_mat, ctx, fmpq

from ._result import q, result

# --------------------------------------------------------------------- naive Bayes


def _nb_F_arb(rows: list, y: tuple, b: fmpq) -> arb:
    """F = T_+ - T_-, T_c = (n_c/n) prod_j mean_{i in c} K(y_j - d_ij) (T_c = 0 if empty)."""
    n = len(rows)
    bb = arb(b)
    k0 = 1 / ((2 * arb.pi()).sqrt() * bb)
    out = arb(0)
    for sign in (1, -1):
        cls = [f for f, c in rows if c == sign]
        if not cls:
            continue
        prod = arb(1)
        for j in range(len(y)):
            s = sum((k0 * (-(arb(y[j]) - arb(f[j])) ** 2 / (2 * bb * bb)).exp() for f in cls),
                    arb(0))
            prod *= s / len(cls)
        out += sign * prod * len(cls) / n
    return out


def _nb_search(dim: int, n: int, b: float, levels: tuple) -> tuple[float, tuple]:
    """Float64 search: max |F(D,y) - F(D',y)| over all databases of n rows with features in
    levels^dim and both classes, all one-row replacements, y in levels^dim; returns the max
    and a maximising (D, D', y) as exact rows."""
    feats = list(itertools.product(levels, repeat=dim))
    types = [(f, c) for c in (1, -1) for f in feats]
    T = len(types)
    k0 = 1 / (math.sqrt(2 * math.pi) * b)
    dbs = [tuple(np.bincount(c, minlength=T))
           for c in itertools.combinations_with_replacement(range(T), n)]
    C = np.array(dbs, dtype=float)
    index = {db: i for i, db in enumerate(dbs)}
    pos = np.array([c == 1 for _, c in types])
    F = np.zeros((len(dbs), len(feats)))
    for yi, y in enumerate(feats):
        for sign, mask in ((1, pos), (-1, ~pos)):
            nc = C[:, mask].sum(axis=1)
            prod = np.ones(len(dbs))
            for j in range(dim):
                kv = np.array([k0 * math.exp(-(float(y[j]) - float(f[j])) ** 2 / (2 * b * b))
                               for f, _ in types])[mask]
                prod *= (C[:, mask] @ kv) / np.where(nc > 0, nc, 1)
            F[:, yi] += sign * nc / n * prod
    best, arg = -1.0, None
    for i, db in enumerate(dbs):
        for s, t in itertools.permutations(range(T), 2):
            if db[s] == 0:
                continue
            db2 = list(db)
            db2[s] -= 1
            db2[t] += 1
            diff = np.abs(F[i] - F[index[tuple(db2)]])
            j = int(np.argmax(diff))
            if diff[j] > best:
                best, arg = float(diff[j]), (db, tuple(db2), feats[j])

    def rows(db):
        return [types[t] for t in range(T) for _ in range(db[t])]

    return best, (rows(arg[0]), rows(arg[1]), arg[2])


def _exact(v: float) -> fmpq:
    return fmpq(*Fraction(v).as_integer_ratio())  # levels are dyadic: exact


def _exact_rows(rows: list) -> list:
    return [(tuple(_exact(v) for v in f), c) for f, c in rows]


def _nb_bound(dim: int, n: int, b: fmpq) -> tuple[arb, arb, arb]:
    """(derived S, brief's candidate, Appendix F printed bound) as arb."""
    k0 = 1 / ((2 * arb.pi()).sqrt() * arb(b))
    k1 = k0 * (-1 / (2 * arb(b) ** 2)).exp()
    delta = k0 - k1
    a, c = k0, dim * delta - k0
    derived = 2 * k0 ** (dim - 1) * (c if c > a else a) / n
    cand = 2 * (k0**dim + dim * k0 ** (dim - 1) * delta) / n
    printed = 2 * ((2**dim - 1) / (n * (2 * arb.pi()).sqrt() * arb(b)) + arb(1) / n)
    return derived, cand, printed


def check_naive_bayes_derived(quick: bool) -> dict:
    from dpverify.mechanisms.bernstein_queries import naive_bayes_sensitivity

    levels = (fmpq(0), fmpq(1, 2), fmpq(1))
    cases = [(1, 4, fmpq(1, 10)), (1, 4, fmpq(1)), (2, 3, fmpq(1, 10)), (2, 3, fmpq(1))]
    if not quick:
        cases += [(1, 6, fmpq(1, 10)), (2, 4, fmpq(1, 10)), (2, 4, fmpq(1, 2))]
    lines, bad, rows = [], 0, []
    with ctx.workprec(128):
        for dim, n, b in cases:
            best, (D, D2, y) = _nb_search(dim, n, float(b), tuple(float(v) for v in levels))
            # the maximising pair, re-evaluated in arb from exact rows
            yx = tuple(_exact(v) for v in y)
            change = abs(_nb_F_arb(_exact_rows(D), yx, b) - _nb_F_arb(_exact_rows(D2), yx, b))
            derived, cand, printed = _nb_bound(dim, n, b)
            lib = arb(naive_bayes_sensitivity(n, dim, b))
            # attained cases have change == derived exactly, which balls cannot decide:
            # require "no certified violation" (not change > derived) plus the float search
            ok = not (change > derived) and best <= float(derived.mid()) * (1 + 1e-12) \
                and not (derived > lib) and bool(abs(lib - derived) < arb("1e-30"))
            bad += not ok
            ratio = change / derived
            rows.append({"l": dim, "n": n, "b": q(b), "max_change": change.str(8),
                         "derived": derived.str(8), "candidate": cand.str(8),
                         "appendix_F": printed.str(8)})
            lines.append(f"l={dim}, n={n}, b={q(b)}: max |dF| = {change.str(6, radius=False)}"
                         f" = {ratio.str(4, radius=False)} x derived; candidate/derived = "
                         f"{(cand / derived).str(3, radius=False)}; Appendix F/derived = "
                         f"{(printed / derived).str(3, radius=False)}")
        # second regime (l (K0-K1) > 2 K0): the extreme family of the proof, N large
        dim, N, b = 3, 2000, fmpq(1, 10)
        k0 = 1 / ((2 * arb.pi()).sqrt() * arb(b))
        k1 = k0 * (-1 / (2 * arb(b) ** 2)).exp()
        n = 2 * N
        tp = (N * (((N - 1) * k0 + k1) / N) ** 3 - (N - 1) * k0**3) / n
        tm = ((N + 1) * ((N * k0 + k1) / (N + 1)) ** 3 - N * k0**3) / n
        fam = abs(tp + tm)
        derived, _, printed = _nb_bound(dim, n, b)
        ok2 = bool(fam <= derived) and bool(fam > derived * arb("0.999"))
        bad += not ok2
        lines.append(f"l=3, b=1/10 (second regime), class + = {N - 1} rows at 0 and one at "
                     f"(1,1,1), class - = {N} rows at 0, the far row switches class, y = 0: "
                     f"|dF| = {(fam / derived).str(5, radius=False)} x derived (sup approached);"
                     f" Appendix F bound is {(printed / fam).str(3, radius=False)} x this change")
    return result(
        "alda2017/Section 6 (naive Bayes sensitivity, derived)",
        "for F = P(+) prod_j P(y_j|+) - P(-) prod_j P(y_j|-) with 1-D Gaussian KDE likelihoods "
        "(bandwidth b, features and y in [0,1]^l, empty class term 0): "
        "S(F) = 2 K0^(l-1) max(K0, l (K0 - K1) - K0)/n, K0 = K(0), K1 = K(1) "
        "(dpverify's correction of Appendix F; proof in naive_bayes_query)",
        "PASS" if not bad else "DISCREPANCY",
        "exhaustive: every database of n rows with features in {0, 1/2, 1}^l, both labels, "
        "every one-row replacement, y in {0,1/2,1}^l (float search, maximiser re-evaluated in "
        "arb): " + "; ".join(lines) + f". {bad} failures. The brief's candidate "
        "2(K0^l + l K0^(l-1)(K0-K1))/n is valid but up to 3x loose; Appendix F's printed "
        "bound is below the attained change for small b (see alda2017/Appendix F).",
        "exhaustive float search + arb re-evaluation + closed-form extreme family (arb)",
        data={"cases": rows},
    )


# ------------------------------------------------------------------ logistic regression


def _fit(d: np.ndarray, lab: np.ndarray, lam: float) -> np.ndarray:
    n, dim = d.shape
    w = np.zeros(dim)
    for _ in range(60):
        z = lab * (d @ w)
        s = 0.5 * (1 + np.tanh(-0.5 * z))
        g = -(d * (lab * s)[:, None]).sum(axis=0) / n + lam * w
        H = (d * (s * (1 - s))[:, None]).T @ d / n + lam * np.eye(dim)
        w = w - np.linalg.solve(H, g)
    return w


def _certified_w(d: np.ndarray, lab: np.ndarray, lam: fmpq, w0: np.ndarray) -> list[arb]:
    """Balls containing w*: two arb Newton steps from w0, then the strong-convexity bound
    ||w - w*|| <= ||grad J(w)||/lambda (grad J in arb)."""
    n, dim = d.shape
    w = [arb(float(v)) for v in w0]

    def grad_hess(w):
        g = [arb(0)] * dim
        H = [[arb(0)] * dim for _ in range(dim)]
        for i in range(n):
            row = [arb(float(v)) for v in d[i]]
            li = arb(float(lab[i]))
            z = li * sum((row[j] * w[j] for j in range(dim)), arb(0))
            s = 1 / (1 + z.exp())
            for a in range(dim):
                g[a] -= li * s * row[a] / n
                for c in range(dim):
                    H[a][c] += s * (1 - s) * row[a] * row[c] / n
        return ([g[a] + arb(lam) * w[a] for a in range(dim)],
                [[H[a][c] + (arb(lam) if a == c else 0) for c in range(dim)] for a in range(dim)])

    for _ in range(2):
        g, H = grad_hess(w)
        step = arb_mat(H).solve(arb_mat([[v] for v in g]))
        w = [arb((w[j] - step[j, 0]).mid()) for j in range(dim)]
    g, _ = grad_hess(w)
    r = sum((arb(v.abs_upper()) ** 2 for v in g), arb(0)).sqrt() / arb(lam)
    return [wj + arb(0, r.upper()) for wj in w]


def check_logistic(quick: bool) -> dict:
    from dpverify.mechanisms.bernstein_queries import logistic_sensitivity

    lam = fmpq(1, 4)
    n = 3 if quick else 4
    levels = (-1.0, -0.5, 0.0, 0.5, 1.0)
    types = [(v, c) for c in (1.0, -1.0) for v in levels]
    ys = [fmpq(0), fmpq(1, 2), fmpq(1)]
    dbs = list(itertools.combinations_with_replacement(range(len(types)), n))
    Fv = {}
    for db in dbs:
        d = np.array([[types[t][0]] for t in db])
        lab = np.array([types[t][1] for t in db])
        w = _fit(d, lab, float(lam))[0]
        Fv[db] = (w, [1 / (1 + math.exp(-w * float(y))) for y in ys])
    best, arg = -1.0, None
    for db in dbs:
        for i, t in itertools.product(range(n), range(len(types))):
            db2 = tuple(sorted(db[:i] + db[i + 1:] + (t,)))
            diff = max(abs(a - b) for a, b in zip(Fv[db][1], Fv[db2][1], strict=True))
            if diff > best:
                best, arg = diff, (db, db2)
    with ctx.workprec(128):
        S = arb(logistic_sensitivity(n, 1, lam))
        derived = arb(1) / (2 * n * arb(lam))  # sqrt(l)/(2 n lambda), l = 1
        paper = (1 / arb(lam)) * arb(1).sqrt() / (2 * n)  # C sqrt(l)/(2n), C = 1/lambda
        db, db2 = arg
        res = []
        for dbx in (db, db2):
            d = np.array([[types[t][0]] for t in dbx])
            lab = np.array([types[t][1] for t in dbx])
            wb = _certified_w(d, lab, lam, np.array([Fv[dbx][0]]))[0]
            res.append([1 / (1 + (-wb * arb(y)).exp()) for y in ys])
        worst = max((abs(a - b) for a, b in zip(res[0], res[1], strict=True)),
                    key=lambda x: x.mid())
        ok = bool(worst.upper() <= derived) and bool(abs(S - derived) < arb("1e-30")) \
            and bool(abs(paper - derived) < arb("1e-30"))
    return result(
        "alda2017/Appendix G (logistic regression sensitivity)",
        "for F_D(y) = sigmoid(<w*, y>), w* = argmin (C/n) sum log(1 + e^{-l_i <w, d_i>}) + "
        "||w||^2/2, ||d_i|| <= 1: sup ||w - w'|| <= 2C/n and S(F) <= C sqrt(l)/(2n) "
        "(and S <= 2C sqrt(l)/n for the linear F = <w*, y> of §6)",
        "PASS" if ok else "DISCREPANCY",
        "derivation re-done (Chaudhuri-Monteleoni: J lambda-strongly convex, lambda = 1/C, "
        "per-row loss gradient norm <= |l_i| ||d_i|| <= 1, so ||w - w'|| <= 2/(n lambda); "
        "sigmoid 1/4-Lipschitz; ||y|| <= sqrt(l)): same constant as printed. Exhaustive "
        f"search l = 1, n = {n}, lambda = 1/4 (C = 4), rows d in {{-1,-1/2,0,1/2,1}} x "
        f"{{-1,+1}}, y in {{0,1/2,1}}: max |dF| = {best:.6g} (worst pair re-evaluated with "
        f"certified w* balls: {worst.str(6)}) vs the bound {derived.str(6, radius=False)} "
        f"(ratio {(worst / derived).str(3, radius=False)}). Label convention: Appendix G "
        "(and §6) write the row space X x [0,1], i.e. labels in [0,1]; with the log loss "
        "log(1 + e^{-l<w,d>}) a label 0 gives a constant loss and no negative class exists, "
        "so the intended labels are {-1,+1} (Chaudhuri-Monteleoni); the bound holds for any "
        "|l_i| <= 1 and dpverify accepts labels in [-1, 1].",
        "derivation + exhaustive float search + certified (arb, strong convexity) re-evaluation",
        data={"max_change": f"{best:.17g}", "bound": derived.str(20)},
    )


# ----------------------------------------------------------------------- Priestley-Chao


def check_priestley_chao(quick: bool) -> dict:
    def F(rows: list, y: fmpq, b: fmpq) -> arb:
        rows = sorted(rows)
        s = arb(0)
        for i in range(1, len(rows)):
            (d, lab), dp = rows[i], rows[i - 1][0]
            z = (arb(y) - arb(d)) / arb(b)
            s += arb(d - dp) * (-z * z / 2).exp() / (2 * arb.pi()).sqrt() * lab
        return s / arb(b)

    f = fmpq
    D = [(f(10, 100), 1), (f(11, 100), 1), (f(50, 100), 1), (f(51, 100), 1),
         (f(90, 100), -1), (f(91, 100), 1), (f(92, 100), 1)]
    D2 = [r for r in D if r[0] != f(90, 100)] + [(f(105, 1000), 1)]
    n, c, B, b = 7, f(7, 100), 1, f(1, 10)
    cond = all(min(abs(a - x) for x in [r[0] for r in data] if x != a) <= c / n
               for data in (D, D2) for a in [r[0] for r in data])
    with ctx.workprec(128):
        change = abs(F(D, f(905, 1000), b) - F(D2, f(905, 1000), b))
        printed = 4 * B * arb(c) / (n * arb(b)) / (2 * arb.pi()).sqrt()
        disc = bool(change > printed) and cond
    return result(
        "alda2017/Section 6 (Priestley-Chao sensitivity)",
        "if every d_i has some d_j (j != i) with |d_i - d_j| <= c/n, then "
        "S(F_b) <= 4 B c sup K/(n b) for F_b(D, y) = (1/b) sum_{i>=2} (d_i - d_{i-1}) "
        "K((y - d_i)/b) l_i, |l_i| <= B",
        "DISCREPANCY" if disc else "PASS",
        f"n = 7, c = 7/100, B = 1, b = 1/10, D = {{(0.10,1), (0.11,1), (0.50,1), (0.51,1), "
        f"(0.90,-1), (0.91,1), (0.92,1)}}, D' replaces (0.90,-1) by (0.105,1); both satisfy "
        f"the condition ({cond}); at y = 0.905: |F(D) - F(D')| = {change.str(8)} > printed "
        f"bound {printed.str(8)} (ratio {(change / printed).str(4, radius=False)}): removing "
        "d_j changes F by (d_j - d_{j-1})(K_{j+1} l_{j+1} - K_j l_j)/b and the gap "
        "d_j - d_{j-1} is not controlled by the condition.",
        "exact data, arb evaluation (128 bits)",
        counterexample={"D": [[q(d), lab] for d, lab in D], "D_prime": [[q(d), lab]
                        for d, lab in D2], "y": "181/200", "change": change.str(12),
                        "printed_bound": printed.str(12)},
        correction="require every consecutive gap d_(i) - d_(i-1) <= c/n (public domain); "
        "then removal and insertion each cost <= (c/n) 2 B K(0)/b and the printed bound holds "
        "(dpverify.mechanisms.bernstein_queries.priestley_chao_query validates this domain).",
    )


def check_algorithm1_scale(quick: bool) -> dict:
    # every lattice value F(., p) moves by <= S(F), so the (k+1)^l vector moves by <= m S in
    # L1; F(D, y) = mean(D) (S = 1/n, rows in {0, 1}) attains it at every lattice point at
    # once.  Exhaustive over all databases of n rows in {0, 1} and one-row replacements.
    rows = []
    for n, k, ell in ([(3, 2, 1), (2, 2, 2)] if quick else [(3, 2, 1), (4, 3, 1), (2, 2, 2)]):
        m = (k + 1) ** ell
        best = Fraction(0)
        for D in itertools.product((0, 1), repeat=n):
            for i in range(n):
                for v in (0, 1):
                    D2 = list(D)
                    D2[i] = v
                    diff = abs(Fraction(sum(D), n) - Fraction(sum(D2), n))
                    best = max(best, m * diff)  # the same change at all m lattice points
        rows.append((n, k, ell, m, best, Fraction(m, n)))
    ok = all(b == bound for *_, b, bound in rows)
    return result(
        "alda2017/Algorithm 1 (pure scale)",
        "lambda = S(F) (k+1)^l / epsilon (line 4) makes the noisy lattice epsilon-DP",
        "PASS" if ok else "DISCREPANCY",
        "the L1 sensitivity of the lattice vector is <= m S(F) (m = (k+1)^l; each coordinate "
        "is one evaluation of F) and it is attained, so the printed scale is exactly right: "
        + "; ".join(f"n={n}, k={k}, l={ell}: max L1 change {b} = m S = {bound}"
                    for n, k, ell, _, b, bound in rows)
        + ". dpverify adds the grid-rounding term g per coordinate (S + g, mean mode).",
        "exhaustive exact enumeration (Fractions), F(D, y) = mean(D)",
    )


CHECKS = [check_naive_bayes_derived, check_logistic, check_priestley_chao,
          check_algorithm1_scale]
