"""wang2013 Section 4: the generalized Jackson kernel and the operator I_{t,K}.

Independent exact computation (no use of ``dpverify.constructions.jackson``):

* Fejer kernel ``(sin(ts/2)/sin(s/2))^2 = sum_{|j|<t} (t-|j|) e^{ijs}``; its ``r``-th power
  has integer Fourier coefficients ``c_j`` (``fmpz_poly`` power of the shifted Laurent
  polynomial).  With ``int J = 1`` (wang2013 Definition 4.1):
  ``J(s) = (c_0 + 2 sum_j c_j cos(js)) / (2 pi c_0)``, so ``pi a_j = c_j / c_0`` exactly.
* eq. (2): ``I_{t,K} cos(n .) = w_n cos(n .)`` with
  ``w_n = -sum_{l=1}^{K+1} (-1)^l C(K+1,l) pi a_{ln}`` (``pi a_0`` read as ``1``, because
  ``int H = 1``), from ``int H(s) cos(n(x+ls)) ds = cos(nx) pi a_{nl}`` (H even).
  All ``w_n`` are exact rationals.
"""

from __future__ import annotations

from functools import cache
from math import comb

from flint import fmpq, fmpz_poly

from ._result import q, result


@cache
def fejer_power(t: int, r: int) -> tuple[int, ...]:
    """Fourier coefficients ``c_0..c_{r(t-1)}`` of ``(sin(ts/2)/sin(s/2))^(2r)``."""
    base = fmpz_poly([t - abs(j - (t - 1)) for j in range(2 * t - 1)])
    p = base**r
    centre = r * (t - 1)
    cs = [int(p[centre + j]) for j in range(r * (t - 1) + 1)]
    return tuple(cs)


def jackson_degree(t: int, r: int) -> int:
    """Exact degree of ``J_{t,r}`` (largest ``j`` with ``c_j != 0``)."""
    cs = fejer_power(t, r)
    return max(j for j, c in enumerate(cs) if c != 0)


def h_params(t: int, K: int) -> tuple[int, int]:
    """``(t', r)`` of ``H_{t,r} = J_{t',r}``, ``t' = floor(t/r) + 1``, ``r = ceil((K+3)/2)``."""
    r = (K + 3 + 1) // 2
    return t // r + 1, r


def pi_a(t: int, K: int) -> list[fmpq]:
    """``pi a_j`` of ``H_{t,r}`` for ``j = 0..deg`` (``pi a_0`` is ``1/2``)."""
    tp, r = h_params(t, K)
    cs = fejer_power(tp, r)
    return [fmpq(c, cs[0]) if j else fmpq(1, 2) for j, c in enumerate(cs)]


def multiplier(t: int, K: int, n: int) -> fmpq:
    """``w_n`` with ``I_{t,K} cos(n .) = w_n cos(n .)`` (exact)."""
    if n == 0:
        return fmpq(1)  # -sum_l (-1)^l C(K+1,l) * (int H = 1)
    pa = pi_a(t, K)
    s = fmpq(0)
    for ell in range(1, K + 2):
        j = ell * n
        if j < len(pa):
            s += (-1) ** ell * comb(K + 1, ell) * pa[j]
    return -s


def check_def41_degree(quick: bool) -> dict:
    T, R = (24, 5) if quick else (60, 8)
    bad = [(t, r) for t in range(1, T + 1) for r in range(1, R + 1)
           if jackson_degree(t, r) != r * (t - 1)]
    badh = []
    for t in range(1, T + 1):
        for K in range(1, R + 1):
            tp, r = h_params(t, K)
            if jackson_degree(tp, r) > t:
                badh.append((t, K))
    ok = not bad and not badh
    return result(
        "wang2013/Definition 4.1",
        "J_{t,r} is an even trigonometric polynomial of degree r(t-1); H_{t,r} = J_{t',r}, "
        "t' = floor(t/r)+1, has degree at most t",
        "PASS" if ok else "DISCREPANCY",
        f"exact Fourier coefficients: deg J_{{t,r}} = r(t-1) for all t <= {T}, r <= {R}; "
        f"deg H = r floor(t/r) <= t for all t <= {T}, K <= {R} (r = ceil((K+3)/2)); "
        f"equality deg H = t exactly when r | t. failures: {bad[:3] + badh[:3]}",
        f"exact integer convolution powers of the Fejer kernel, all t <= {T}",
    )


def check_eq2_degree(quick: bool) -> dict:
    T, KK = (24, 5) if quick else (60, 8)
    bad = []
    for t in range(1, T + 1):
        for K in range(1, KK + 1):
            if multiplier(t, K, 0) != 1:
                bad.append((t, K, 0))
            for n in range(t + 1, 2 * t + 3):
                if multiplier(t, K, n) != 0:
                    bad.append((t, K, n))
    # independent float cross-check of the multiplier formula by quadrature of eq. (2)
    import mpmath as mp

    t, K, n, x = 6, 2, 2, mp.mpf("0.3")
    pa = pi_a(t, K)

    def H(s):
        return (1 + 2 * sum(mp.mpf(int(c.p)) / int(c.q) * mp.cos(j * s)
                            for j, c in enumerate(pa) if j)) / (2 * mp.pi)

    integrand = lambda s: H(s) * sum(  # noqa: E731
        (-1) ** ell * comb(K + 1, ell) * mp.cos(n * (x + ell * s)) for ell in range(1, K + 2))
    quad = -mp.quad(integrand, [-mp.pi, 0, mp.pi])
    w = multiplier(t, K, n)
    diff = abs(quad - mp.mpf(int(w.p)) / int(w.q) * mp.cos(n * x))
    ok = not bad and diff < 1e-12
    return result(
        "wang2013/eq. (2)",
        "I_{t,K} maps g to a trigonometric polynomial of degree at most t",
        "PASS" if ok else "DISCREPANCY",
        f"I_{{t,K}} is the Fourier multiplier w_n; w_n = 0 exactly for all t < n <= 2t+2, "
        f"w_0 = 1 (constants reproduced), all t <= {T}, K <= {KK}; quadrature of eq. (2) at "
        f"t=6, K=2, n=2, x=0.3 agrees with w_2 cos(2x) to {mp.nstr(diff, 3)}",
        "exact multipliers from exact kernel coefficients; one float quadrature cross-check",
    )


def check_fact42_formula(quick: bool) -> dict:
    """Eq. (4)-(5) vs the multiplier form, d = 2, test functions g = cos(a th1) cos(b th2)."""
    T = 10 if quick else 20
    bad = []
    for t in range(1, T + 1):
        for K in (1, 2, 3):
            pa = pi_a(t, K)

            def a_over(j, pa=pa):  # a_j * pi  (a_0 * pi = 1/2)
                return pa[j] if j < len(pa) else fmpq(0)

            for n1 in range(0, t + 1):
                for n2 in range(0, t + 1):
                    # formula (4): (-1)^d sum_{k_i, l_i = k_i n_i <= t} prod (-1)^{k_i}
                    #   C(K+1,k_i) a_{l_i} * int prod cos(n_i th_i) g ;  g = cos(n1)cos(n2)
                    # int_{-pi}^{pi} cos(n th)^2 = pi (1 + [n = 0])
                    tot = fmpq(1)
                    for ni in (n1, n2):
                        s = fmpq(0)
                        for k in range(1, K + 2):
                            li = k * ni
                            if li <= t:
                                s += (-1) ** k * comb(K + 1, k) * a_over(li) * (1 + (ni == 0))
                        tot *= -s
                    # expected: Fourier coefficient of g (=1) times w_{n1} w_{n2}
                    if tot != multiplier(t, K, n1) * multiplier(t, K, n2):
                        bad.append((t, K, n1, n2))
    return result(
        "wang2013/Fact 4.2 (formula)",
        "c_n = (-1)^d sum_{1<=k_i<=K+1, l_i = k_i n_i <= t} prod (-1)^{k_i} C(K+1,k_i) a_{l_i} "
        "int prod cos(l_i/k_i th_i) g_f",
        "PASS" if not bad else "DISCREPANCY",
        f"d = 2, g = cos(n1 th1) cos(n2 th2): formula (4)-(5) equals w_n1 w_n2 exactly for all "
        f"0 <= n_i <= t <= {T}, K <= 3, including n_i = 0 (a_0 = 1/(2 pi)); failures {bad[:3]}",
        "exact rational arithmetic (pi cancels)",
    )


def check_fact42_ranges(quick: bool) -> dict:
    # K = 1: r = 2; t = 2: H_{2,2} = J_{2,2} = (6 + 8 cos s + 2 cos 2s)/(12 pi), degree 2 = t
    t, K = 2, 1
    w2 = multiplier(t, K, 2)
    T = 30 if quick else 80
    hits = sum(1 for tt in range(1, T + 1) for KK in (1, 2, 3, 4)
               if multiplier(tt, KK, tt) != 0)
    ok = w2 == fmpq(1, 3)
    return result(
        "wang2013/Fact 4.2 (index ranges)",
        "I^d_{t,K}(g_f) = sum_{0<=n_i<=t} c_n prod cos(n_i th_i) (eq. (3), Fact 4.2) while "
        "Algorithms 1-2 (and Theorem 3.2: 0 <= l_i < t) keep only ||m||_inf <= t-1",
        "DISCREPANCY" if ok else "OPEN",
        f"K=1 (r=2), t=2: pi a_2 = 1/6, so w_2 = (K+1) pi a_2 = {q(w2)} != 0. For "
        "f(x) = 2x^2 - 1 (g_f = cos 2th, ||f||_1 = 4) the coefficient c_2 = 1/3 of I_{2,1}(g_f) "
        "multiplies cos(2 th), which Algorithm 1 never releases (m_i <= t-1 = 1). "
        f"c_t != 0 whenever r | t ({hits} of {4 * T} (t, K) pairs with t <= {T}, K <= 4).",
        "exact multiplier of the top frequency",
        counterexample={"K": 1, "t": 2, "n": 2, "w_n": q(w2), "f": "2*x^2-1"},
        correction="release the (t+1)^d moments 0 <= m_i <= t (or use H_{t-1,r} so the degree "
        "is at most t-1).",
    )


def check_thm41_rate(quick: bool) -> dict:
    # counterexample family g_N = cos(N th)/N^K, ||g^(K)|| = 1; at t = N-1, w_N = 0 exactly
    K = 1
    Ns = [10, 100, 1000]
    rows = []
    for N in Ns:
        t = N - 1
        assert multiplier(t, K, N) == 0
        err = fmpq(1, N**K)  # sup |g - I g| = sup |cos(N th)|/N^K
        rows.append((N, t, err * fmpq(t) ** (K + 1)))
    # corrected rate t^-K: max over n <= t <= T of |1 - w_n| (t/n)^K (pure modes)
    T = 24 if quick else 64
    worst = {}
    for KK in (1, 2, 3):
        m = fmpq(0)
        for tt in range(1, T + 1):
            for n in range(1, tt + 1):
                v = abs(1 - multiplier(tt, KK, n)) * fmpq(tt, n) ** KK
                m = max(m, v)
        worst[KK] = m
    ev = "; ".join(f"N={N}: t^(K+1) err = {q(v)}" for N, t, v in rows)
    return result(
        "wang2013/Theorem 4.1",
        "||D_j^K g||_inf <= M  =>  ||g - I^d_{t,K}(g)||_inf <= C / t^{K+1}, C = C(M, d, K)",
        "DISCREPANCY",
        f"g_N(th) = cos(N th)/N^K (even, ||g_N^(K)|| = 1), t = N-1: H has degree <= t < N so "
        f"w_N = 0 and ||g_N - I g_N|| = 1/N^K exactly; K=1: {ev} -> unbounded, no constant C. "
        f"Corrected rate t^-K on pure modes: max_{{n<=t<={T}}} |1-w_n| (t/n)^K = "
        + ", ".join(f"K={k}: {float(v):.3f}" for k, v in worst.items())
        + " (bounded).",
        "exact multipliers; counterexample family in closed form",
        counterexample={"K": K, "M": 1, "family": "g_N = cos(N th)/N^K, t = N-1",
                        "error": "1/N^K"},
        correction="C / t^K (the rate Lemma 4.4 and Theorem 3.2 actually use); the final "
        "accuracy n^{-K/(2d+K)} of Theorem 3.1 is unchanged.",
        data={"corrected_rate_constants": {str(k): float(v) for k, v in worst.items()}},
    )


def max_abs_multiplier(T: int, K: int) -> fmpq:
    return max(abs(multiplier(t, K, n)) for t in range(1, T + 1) for n in range(0, t + 1))


def check_lemma43(quick: bool) -> dict:
    T = 24 if quick else 64
    rows = {K: max_abs_multiplier(T, K) for K in range(1, 6)}
    ok = all(v <= 2 ** (K + 1) - 1 for K, v in rows.items())
    return result(
        "wang2013/Lemma 4.3",
        "all coefficients c_n of I^d_{t,K}(g_f) are bounded by a constant M independent of t",
        "PASS" if ok else "DISCREPANCY",
        "c_n = ghat_n prod_i w_{n_i}, |ghat_n| <= (4/pi)^d B; exact max_{n<=t<=" + str(T)
        + "} |w_n| = " + ", ".join(f"K={K}: {float(v):.4f}" for K, v in rows.items())
        + " (<= 2^(K+1)-1 since |pi a_j| <= 1), so M = B (4 W/pi)^d works for every t.",
        f"exact multipliers, all t <= {T}, K <= 5",
        data={"W": {str(K): q(v) for K, v in rows.items()}},
    )


CHECKS = [check_def41_degree, check_eq2_degree, check_fact42_formula, check_fact42_ranges,
          check_thm41_rate, check_lemma43]
