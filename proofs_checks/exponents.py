"""Exponent and formula claims (tables, parameter choices), by exact symbolic arithmetic.

Equalities are decided by ``sympy.simplify(a - b) == 0``; inequalities between exponents
(a table's simplified O-bound must not be smaller than the theorem's exponent) are checked
exactly with ``fractions.Fraction`` over stated integer grids.
"""

from __future__ import annotations

from fractions import Fraction as F

import sympy as sp

from ._result import result

d, K, M, n, L, e0 = sp.symbols("d K M n L epsilon0", positive=True)


def _eq(a, b) -> bool:
    return sp.simplify(a - b) == 0


def check_wang_table1(quick: bool) -> dict:
    acc = K / (2 * d + K)
    summ = (3 * d + K) / (2 * d + K)
    query = (d + 2 + 2 * d / K) / (2 * d + K)
    fails = []
    D = 30 if quick else 200
    for dd in range(1, D + 1):
        # K = 1 row: acc 1/(2d+1), summary 3/2 (>= theorem), query 3/2 + 1/(4d+2)
        if F(1, 2 * dd + 1) != F(1, 2 * dd + 1):
            fails.append(("K=1 acc", dd))
        if F(3 * dd + 1, 2 * dd + 1) > F(3, 2):
            fails.append(("K=1 summary", dd))
        if F(3 * dd + 2, 2 * dd + 1) != F(3, 2) + F(1, 4 * dd + 2):
            fails.append(("K=1 query", dd))
        # K = 2d row
        if F(5 * dd, 4 * dd) != F(5, 4) or F(dd + 3, 4 * dd) != F(1, 4) + F(3, 4 * dd):
            fails.append(("K=2d", dd))
        # K = d/eps0 row (eps0 = 1/j): accuracy exponent >= 1 - 2 eps0 etc.
        for j in range(2, 40):
            ep = F(1, j)
            KK = dd * j
            if F(KK, 2 * dd + KK) < 1 - 2 * ep:
                fails.append(("K>>1 acc", dd, j))
            if F(3 * dd + KK, 2 * dd + KK) > 1 + ep:
                fails.append(("K>>1 summary", dd, j))
            if F(dd + 2) / (2 * dd + KK) + F(2 * dd, KK) / (2 * dd + KK) > ep * (1 + F(3, dd)):
                fails.append(("K>>1 query", dd, j))
    # Theorem 3.2 (3) vs Lemma 4.4 with t = (1/gamma)^(1/K): exponents of 1/gamma
    lem44 = ((1 + 2 / K) * d + 2) / K
    thm32 = (d + 2) / K + 2 * d / K**2
    # Theorem 3.1: t = n^(1/(2d+K)) balances t^-K against t^(2d)/n; query time t^(d+2+2d/K)
    t_exp = 1 / (2 * d + K)
    ok_sym = (_eq(lem44, thm32) and _eq(-K * t_exp, 2 * d * t_exp - 1)
              and _eq(acc, K * t_exp) and _eq((d + 2 + 2 * d / K) * t_exp, query)
              and _eq(1 + d * t_exp, summ))
    ok = ok_sym and not fails
    return result(
        "wang2013/Theorem 3.1 and Table 1",
        "alpha = O(n^{-K/(2d+K)}), summary time O(n^{(3d+K)/(2d+K)}), query time "
        "O~(n^{(d+2+2d/K)/(2d+K)}); Table 1 rows K = 1, K = 2d, K = d/eps0",
        "PASS" if ok else "DISCREPANCY",
        "symbolic: t = n^{1/(2d+K)} balances t^-K = t^{2d}/n; summary exponent = 1 + d/(2d+K); "
        "query exponent = (d+2+2d/K)/(2d+K); Theorem 3.2 (3) exponent (d+2)/K + 2d/K^2 equals "
        "Lemma 4.4's t^{(1+2/K)d+2} at t = gamma^{-1/K}. Table rows are valid upper bounds "
        f"(K=1 summary n^{{3/2}} is loose: (3d+1)/(2d+1) < 3/2) for all d <= {D}, "
        f"eps0 = 1/j, j < 40; failures {fails[:3]}",
        "sympy simplification + exact rationals over a grid",
    )


def _jin_exponents():
    run = (3 * d * K + 5 * d) / (4 * d + 2 * K)
    size = 1 + (K + 1) / (2 * d + K)
    acc = K / (2 * d + K)
    return run, size, acc


def _table_check(D: int):
    """jin Table 1 == slides' synthetic-DB table. Returns list of failing cells."""
    fails = []
    for dd in range(1, D + 1):
        # K = 1
        if F(8 * dd, 4 * dd + 2) > 2 or F(1) + F(2, 2 * dd + 1) != 1 + F(2, 2 * dd + 1):
            fails.append(("K=1", dd, None))
        # K = 2d
        if F(6 * dd * dd + 5 * dd, 8 * dd) != F(3, 4) * dd + F(5, 8):
            fails.append(("K=2d run", dd, None))
        if 1 + F(2 * dd + 1, 4 * dd) != F(3, 2) + F(1, 4 * dd):
            fails.append(("K=2d size", dd, None))
        for MM in range(2, 41):
            KK = MM * dd
            run = F(3 * dd * KK + 5 * dd, 4 * dd + 2 * KK)
            if run > dd * (F(3, 2) - F(1, 2 * MM)):
                fails.append(("K/d=M run", dd, MM))
            if 1 + F(KK + 1, 2 * dd + KK) > 2 - F(1, 2 * MM):
                fails.append(("K/d=M size", dd, MM))
            if F(KK, 2 * dd + KK) < 1 - F(2, MM):
                fails.append(("K/d=M acc", dd, MM))
    return fails


def check_jin_table1(quick: bool) -> dict:
    D = 20 if quick else 200
    fails = _table_check(D)
    run_fails = [f for f in fails if f[0] == "K/d=M run"]
    other = [f for f in fails if f[0] != "K/d=M run"]
    ok = not fails
    dd, MM = 1, 2
    thm = F(3 * dd * MM * dd + 5 * dd, 4 * dd + 2 * MM * dd)
    tab = dd * (F(3, 2) - F(1, 2 * MM))
    return result(
        "jin/Table 1",
        "K/d = M >> 1: running time O(n^{d(3/2 - 1/(2M))}) (and the other simplified cells) "
        "from Theorem 3.1's O(n^{(3dK+5d)/(4d+2K)})",
        "PASS" if ok else "DISCREPANCY",
        f"theorem exponent (3Md+5)/(2M+4) exceeds the table's d(3/2 - 1/(2M)) iff "
        f"10M(d-1) < 4d, i.e. for d = 1 and every M: d = 1, M = 2 (K = 2): theorem "
        f"{thm} > table {tab}. {len(run_fails)} failing (d, M) pairs with d <= {D}, "
        f"2 <= M <= 40, all with d = {sorted({f[1] for f in run_fails})}; other cells hold "
        f"({len(other)} failures).",
        f"exact rationals over d <= {D}, M <= 40",
        counterexample={"d": 1, "M": 2, "K": 2, "theorem_exponent": str(thm),
                        "table_exponent": str(tab)},
        correction="n^{(3Md+5)/(2M+4)} = n^{3d/2 - (6d-5)/(2M+4)}; the table's value is right "
        "for d >= 2 only.",
    )


def check_slides_tables(quick: bool) -> dict:
    D = 20 if quick else 200
    fails = _table_check(D)
    run_fails = [f for f in fails if f[0] == "K/d=M run"]
    return result(
        "wang_slides/Performance tables (synthetic DB)",
        "K/d = M >> 1: running time O(n^{d(3/2 - 1/(2M))}) from O(n^{(3dK+5d)/(4d+2K)})",
        "PASS" if not fails else "DISCREPANCY",
        f"same table as jin Table 1: fails for d = 1 (every M; e.g. M = 2: 11/8 > 5/4); "
        f"{len(run_fails)} failing pairs, d <= {D}, M <= 40",
        "exact rationals",
        counterexample={"d": 1, "M": 2, "theorem_exponent": "11/8", "table_exponent": "5/4"},
        correction="n^{(3Md+5)/(2M+4)}",
    )


def check_slides_synopsis_table(quick: bool) -> dict:
    D = 20 if quick else 200
    fails = []
    for dd in range(1, D + 1):
        for MM in range(1, 41):
            KK = MM * dd
            if F(3 * dd + KK, 2 * dd + KK) > 1 + F(1, MM):
                fails.append(("summary", dd, MM))
            if F(dd + 2 + F(2 * dd, KK), 2 * dd + KK) > F(1, MM) * (1 + F(3, dd)):
                fails.append(("query", dd, MM))
            if F(KK, 2 * dd + KK) < 1 - F(2, MM):
                fails.append(("acc", dd, MM))
    return result(
        "wang_slides/Performance tables (synopsis)",
        "K = 1: n^{-1/(2d+1)}, n^{3/2}, n^{3/2+1/(4d+2)}; K = 2d: n^{-1/2}, n^{5/4}, "
        "n^{1/4+3/(4d)}; K/d = M: n^{-(1-2/M)}, n^{1+1/M}, n^{(1+3/d)/M}",
        "PASS" if not fails else "DISCREPANCY",
        f"every cell is an upper bound of the theorem's exponent for d <= {D}, M <= 40 "
        f"(K = 1, 2d rows as in wang2013 Table 1); failures {fails[:3]}",
        "exact rationals",
    )


def check_slides_blr(quick: bool) -> dict:
    ok = all(F(KK, dd + 3 * KK) < F(1, 3) for dd in range(1, 50) for KK in range(1, 200))
    lim = sp.limit(K / (d + 3 * K), K, sp.oo)
    return result(
        "wang_slides/BLR accuracy",
        "BLR accuracy O(n^{-K/(d+3K)}) is at best O(n^{-1/3})",
        "PASS" if ok and lim == sp.Rational(1, 3) else "DISCREPANCY",
        f"K/(d+3K) < 1/3 for all d < 50, K < 200, limit {lim} as K -> oo (also jin Prop. 3.3)",
        "exact rationals + sympy limit",
    )


def check_jin_alg1(quick: bool) -> dict:
    t = n ** (1 / (2 * d + K))
    N = n ** (K / (2 * d + K))
    m = n ** (1 + (K + 1) / (2 * d + K))
    Lr = n ** ((d + K) / (2 * d + K))
    target = n ** (-K / (2 * d + K))
    terms = {
        "eta_d = dB/N": 1 / N,
        "eta_n = t^{2d}/(n eps)": t ** (2 * d) / n,
        "eta_a = t^{-K} (corrected rate)": t ** (-K),
        "eta_s = t^{d+1/2}/sqrt(m)": t ** (d + sp.Rational(1, 2)) / sp.sqrt(m),
        "eta_r = t^d/L": t**d / Lr,
    }
    bad = [k for k, v in terms.items() if not _eq(sp.log(v) - sp.log(target), 0)
           and not _eq(sp.simplify(sp.expand_log(sp.log(v), force=True)
                                   - sp.expand_log(sp.log(target), force=True)), 0)]
    # running time ~ V^{3/2} C^{5/2} with V = N^d variables, C = t^d constraints
    run = sp.Rational(3, 2) * d * K / (2 * d + K) + sp.Rational(5, 2) * d / (2 * d + K)
    ok_run = _eq(run, (3 * d * K + 5 * d) / (4 * d + 2 * K))
    ok = not bad and ok_run
    return result(
        "jin/Algorithm 1 (parameters)",
        "t = n^{1/(2d+K)}, N = n^{K/(2d+K)}, m = n^{1+(K+1)/(2d+K)}, L = n^{(d+K)/(2d+K)} "
        "give alpha = O(n^{-K/(2d+K)}) and time O(n^{(3dK+5d)/(4d+2K)})",
        "PASS" if ok else "DISCREPANCY",
        "each of the five error terms (discretization, noise, approximation with the corrected "
        "t^-K rate, sampling, rounding) equals n^{-K/(2d+K)} exactly (symbolic); the running "
        "time exponent equals V^{3/2} C^{5/2} for V = N^d LP variables and C = t^d constraints "
        f"(the LP cost model is not stated in the paper). failing terms: {bad}",
        "sympy, exponents of n",
    )


def check_jin_thm32(quick: bool) -> dict:
    # (eps, delta): noise error t^d sqrt(t^d L)/(n eps) = t^{3d/2} sqrt(L)/n
    t = (n / sp.sqrt(L)) ** (2 / (3 * d + 2 * K))
    printed_t = n ** (2 / (3 * d + 2 * K)) * L ** (-1 / (3 * d + 2 * K))
    alpha = t ** (-K)
    printed_alpha = n ** (-2 * K / (3 * d + 2 * K)) * L ** (K / (3 * d + 2 * K))
    N, Lr, m = t**K, t ** (d + K), t ** (2 * d + 2 * K + 1)
    pN = n ** (2 * K / (3 * d + 2 * K)) * L ** (-K / (3 * d + 2 * K))
    pL = n ** ((2 * d + 2 * K) / (3 * d + 2 * K)) * L ** (-(d + K) / (3 * d + 2 * K))
    pm = n ** ((4 * d + 4 * K + 2) / (3 * d + 2 * K)) * L ** (-(2 * d + 2 * K + 1)
                                                               / (3 * d + 2 * K))
    run = N ** (sp.Rational(3, 2) * d) * t ** (sp.Rational(5, 2) * d)
    prun = n ** ((3 * d * K + 5 * d) / (3 * d + 2 * K)) * L ** (-(3 * d * K + 5 * d)
                                                                / (6 * d + 4 * K))

    def same(a, b):
        return _eq(sp.expand_log(sp.log(a), force=True), sp.expand_log(sp.log(b), force=True))

    checks = {"t": same(t, printed_t), "alpha": same(alpha, printed_alpha),
              "N": same(N, pN), "L": same(Lr, pL), "m": same(m, pm), "time": same(run, prun)}
    ok = all(checks.values())
    return result(
        "jin/Theorem 3.2",
        "(eps,delta) version: t = n^{2/(3d+2K)} log(1/delta)^{-1/(3d+2K)}, alpha = "
        "O(n^{-2K/(3d+2K)} log(1/delta)^{K/(3d+2K)}/eps), time, size as printed",
        "PASS" if ok else "DISCREPANCY",
        f"balancing t^-K against the noise t^{{3d/2}} sqrt(log 1/delta)/n reproduces every "
        f"printed parameter and exponent: {checks}. (The beta condition prints "
        "e^{-n^{2/(3d+2k)}} (log 1/delta)^{...}: lower-case k and the log factor outside the "
        "exponent are typos for e^{-t}.)",
        "sympy, exponents of n and log(1/delta)",
    )


def check_alda_thm3(quick: bool) -> dict:
    A, h, ell, gam = sp.symbols("A h ell gamma", positive=True)
    kk = sp.symbols("k", positive=True)
    sol_i = sp.solve(sp.Eq(kk ** (-h), A * kk**ell), kk)[0]
    sol_ii = sp.solve(sp.Eq(kk ** (-gam / 2), A * kk**ell), kk)[0]
    ok = (sp.simplify(sp.log(sol_i ** (-h)) - h / (ell + h) * sp.log(A)) == 0
          and sp.simplify(sp.log(sol_ii ** (-gam / 2)) - gam / (2 * ell + gam) * sp.log(A)) == 0
          and sp.simplify(sp.log(sol_i) + sp.log(A) / (h + ell)) == 0)
    return result(
        "alda2017/Theorem 3 (exponents)",
        "alpha = O((S log(1/beta)/eps)^{h/(l+h)}) for (2h,T)-smooth, "
        "^{gamma/(2l+gamma)} for Holder, k = (eps/(S log(1/beta)))^{1/(h+l)}",
        "PASS" if ok else "DISCREPANCY",
        "solving k^-h = A k^l and k^{-gamma/2} = A k^l (A = S log(1/beta)/eps, eq. (4)) "
        "reproduces both exponents and the printed k exactly",
        "sympy",
    )


def check_alda_thm7(quick: bool) -> dict:
    A, h, ell, gam = sp.symbols("A h ell gamma", positive=True)
    kk = sp.symbols("k", positive=True)
    # noise term with lambda_delta ~ S sqrt((k+1)^l log(1/delta))/eps: A' k^{l/2}
    s1 = sp.solve(sp.Eq(kk ** (-h), A * kk ** (ell / 2)), kk)[0]
    s2 = sp.solve(sp.Eq(kk ** (-gam / 2), A * kk ** (ell / 2)), kk)[0]
    ok = (sp.simplify(sp.log(s1 ** (-h)) - 2 * h / (ell + 2 * h) * sp.log(A)) == 0
          and sp.simplify(sp.log(s2 ** (-gam / 2)) - gam / (ell + gam) * sp.log(A)) == 0)
    return result(
        "alda2017/Theorem 7 (exponents)",
        "(eps,delta): alpha = O((S log(1/beta) sqrt(log 1/delta)/eps)^{2h/(l+2h)}) and "
        "^{gamma/(l+gamma)}",
        "PASS" if ok else "DISCREPANCY",
        "with lambda_delta = 2S sqrt(2(k+1)^l log(1/delta))/eps the noise term is "
        "A' k^{l/2}; balancing against k^-h and k^{-gamma/2} gives exactly the printed exponents",
        "sympy",
    )


CHECKS = [check_wang_table1, check_jin_table1, check_slides_tables, check_slides_synopsis_table,
          check_slides_blr, check_jin_alg1, check_jin_thm32, check_alda_thm3, check_alda_thm7]
