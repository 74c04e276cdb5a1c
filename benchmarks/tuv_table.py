"""Write docs/tuv.md: degrees, exact norms T and release sizes for thaler2012's OR polynomial.

For k in {4, 16, 64, 256} and gamma in {1e-1, 1e-3, 1e-6}: Chebyshev degree, certified minimax
degree, sqrt(k) ln(1/gamma), exact T (max |coefficient|, thaler2012 Section 2.3) of
p_x(y) = g(sum_j y_j x_j) for d = 100 (worst row, full monomials and multilinear), and the
database size n from dpverify.mechanisms.release_size (epsilon = 1, beta = 1/20,
alpha = 2 gamma).  Every polynomial is certified before it is used.  Timings are printed.

Run:  python benchmarks/tuv_table.py [--out docs/tuv.md]
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from flint import arb, fmpq

from dpverify.certify import certify
from dpverify.constructions.chebyshev import or_polynomial
from dpverify.constructions.multivariate_norm import multivariate_norms, paper_coefficient_bound
from dpverify.mechanisms.release_size import release_size
from dpverify.numbers import fmpq_to_decimal, parse_exact, parse_fmpq_str

KS = (4, 16, 64, 256)
GAMMAS = ("1e-1", "1e-3", "1e-6")
D = 100
MINIMAX_BUDGET_S = 120.0

STATIC = """
## How to read the table

* `T` is the paper's norm (thaler2012 Section 2.3): the largest absolute coefficient of
  `p_x(y) = g(sum_j y_j x_j)`, for the worst row (`|x| = d`; every norm is non-decreasing in
  the row weight because the coefficients for weight `w` are a subset of those for `w+1`).
  *full*: monomials `y^alpha` of total degree `<= t` (the paper's coefficient vector of length
  `C(d+t, t)`); coefficient of `y^alpha` is `c_i * i!/prod alpha_j!` (`|alpha| = i`).
  *multilinear*: `y_j^2 = y_j` (exact on `{0,1}^d`), coefficient of a set of size `s` is
  `sum_i c_i s! S2(i, s)`.  Both exact (`dpverify.constructions.multivariate_norm`), printed
  rounded up, with `log2`.
* `n` is the database size for `(alpha, beta)`-accuracy with `epsilon = 1`, `beta = 1/20`,
  `alpha = 2 gamma`, epsilon-DP, L1-calibrated Laplace noise with the exact sensitivity
  (one row replaced); `n(paper)` is Theorem 3.1's `4 T K^2 ln(K/beta)/(epsilon (alpha -
  gamma))`.  Both are rigorous upper bounds rounded up (arb).  `n/a` for `k > d` (the paper
  requires `k <= d`).
* `paper 4.3 bound`: whether `T_full <= max_i k^i |c_i|`, the bound in the proof of
  thaler2012 Lemma 4.3.

## Findings (exact)

1. **Lemma 4.3's coefficient claim is false for the full expansion.**  The proof says every
   coefficient of `(sum_j y_j x_j)^i` is a non-negative integer `<= k^i`; but the coefficient
   of `y_1 ... y_i` is `i!` whenever the row has weight `>= i`.  Counterexample: `k = 2`,
   `gamma = 1e-3`: the Chebyshev OR polynomial has degree 5, and `5! = 120 > 2^5 = 32`, so
   `T_full = 120 |c_5| > max_i 2^i |c_i|` (tests/test_multivariate_norm.py).  The column
   `paper 4.3 bound` shows where else it fails.  The claim does hold for the multilinear form
   restricted to sets of size `<= k` (`s! S2(i, s) <= s^i <= k^i`), which is all a query in
   `Y_k = {|y| <= k}` reads; the asymptotic statement `T = d^{O(sqrt k log(1/gamma))}` is not
   affected.
2. **Theorem 3.1's sanitizer box prints the Laplace parameter `2T/(epsilon n)`.**  The
   L-infinity sensitivity is `2T/n` over `K = C(m+t, t)` coordinates, so Lemma 2.3 needs
   `2TK/(epsilon n)`; the theorem's accuracy `4 T K^2 log(K/beta)/(epsilon n)` is consistent
   with the latter.  The printed parameter alone is not epsilon-DP in general.
3. **The constant coefficient cancels** between neighbouring rows (`g(0) = 0` anyway for OR),
   and `p_x` and `p_x'` share coefficients on monomials supported in `W cap W'`: the exact L1
   sensitivity is `max N(a) + N(b) - 2 N(c)` (`N(w)` = L1 of the non-constant coefficients at
   weight `w`), checked against all pairs of rows for `d = 4` (tests/test_release.py).
4. **`h_k` of Appendix A has coefficient L1 norm exactly 1** (Chebyshev `g_k`): `h_k(z) =
   T_t(u(k-z))/T_t(a)` has all roots real and positive, so its coefficients alternate in sign
   and `sum |c_i| = |h_k(-1)| = T_t(-a)/T_t(a) = 1` -- far below the printed
   `2^{O~(sqrt k log(1/gamma))}`.
5. Lemma 2.4 (used by Theorem 3.2) is checked by advanced composition in the calculator
   (`lemma_2_4_composition_ok`); for `epsilon <= 1` it holds with room.

## Decision lists (thaler2012 Lemma 4.9, Appendix A)

`h_k(z) = 1 - g_k(k - z)` with `g_k` the OR polynomial for `gamma/k` approximates
`EXACT_k(z) = 1[z = k]` on the integers `0..k`: `h_k(k) = 1` exactly and `|h_k(z)| <= gamma/k`
on `0..k-1` (Appendix A items 3-4; the constant `gamma/k` is right: `k` off terms plus one
exact term give `gamma`).  `dpverify dlist --k K --gamma G` certifies exactly that (target
`{"kind": "indicator", "l": k}`, claim `gamma/k`, coefficients of `h_k` in `z`).  For a list,
term `i` is `b_i h_k((k - i) + sum_{j<i} (1 - v_j) + v_i)` and the default term
`b_{L+1} h_k((k - L) + sum_j (1 - v_j))` (offset `k - L`, which is the printed 0 when
`L = k`).  Per-term argument: each argument is `k - n` plus `n` indicator values, hence an
integer in `[k - n, k]` equal to `k` iff the term is on; exactly one term is on, so the
error is at most `sum_{off terms with b = 1} max_{z in [k-n, k-1]} |h_k(z)|` -- checked exactly
on the univariate `h_k` by `certify_per_term` (no enumeration of `{0,1}^m`), and against
exhaustive enumeration for every list with `(k, m) in {(2,3), (3,3)}` (and `(4,3), (3,4)`
in the slow tests).  The release calculator uses a rigorous norm bound valid for every list
(`upper bound (any list)`), since the worst list is not known in closed form.


## Decision-list release (thaler2012 Theorem 1.3; `dpverify.mechanisms.tuv_dlist`)

Rows are decision lists of length `<= k` over `m` variables; queries are `y in {0,1}^m`.
The release noises the multilinear coefficients of `(1/n) sum_x p_x` on **all** sets `S` with
`|S|` in `sizes` (empty set included: `p_x(0)` depends on the list), where `sizes` is the exact
set of sizes on which some term coefficient `c_{n,q}(a,b)` is non-zero (`= {0..min(k, m, deg
h_k)}` in every case checked).  Rows are first reduced to distinct variables (same function).
Exact values (epsilon = 1, m >= 2k, multilinear):

| k | gamma | deg h_k | exact L1 sens. S1 (x n) | T = max coef | box eps S1/(2T) | worst error |
|---|---|---|---|---|---|---|
| 2 | 1/10 | 3 | 679/99 ≈ 6.859 | 101/99 | 3.36 | 2/99 |
| 3 | 1/10 | 4 | 1438/97 ≈ 14.82 | 100/97 | 7.19 | 3/97 |
| 3 | 1/100 | 5 | 2701/181 ≈ 14.92 | 365/362 | 7.40 | 3/362 |
| 4 | 1/10 | 4 | 96269/3281 ≈ 29.34 | 3605/3281 | 13.35 | 324/3281 |

* `S1 = max_x (N_x + c_x) + max_x (N_x - c_x)` (non-constant L1 norm `N`, constant `c`), exact
  by enumerating reduced lists up to relabelling (k <= 6) and attained by two lists on disjoint
  variables when `m >= 2k`; checked against all pairs of lists for (k, m) = (1, 2), (2, 4).
  Beyond k = 6 a proven term-sum bound (about 2x) is used.
* `T` does not depend on `m` (each `p_x` reads at most `k` variables), so Lemma 4.9's
  `m^{O~(sqrt k log(1/gamma))}` holds with room; but `S1 ≈ 2^{k+1} T`, so Theorem 3.1's box
  scale `2T/(eps n)` is not epsilon-DP here (ledger: "thaler2012/Theorem 1.3 (decision-list
  noise scale)").
* The worst error over all lists is `max_L (sum_{i<=L} e_i + e_L - e_1)`,
  `e_n = max_{[k-n, k-1]} |h_k|` (the on term is exact), which is `<= gamma` and, by
  exhaustive evaluation, attained (the last column).  `certify_per_term` drops the on term
  when every bit is 1 (k = 3, gamma = 1/100, all bits 1: bound 3/362, exact; summing all
  terms would give 2/181 > gamma).
"""


def _dec(q: fmpq) -> str:
    return fmpq_to_decimal(q, 4, "up")


def sherstov_grid(kmax: int, reading: dict[str, str], cap: int = 2500) -> None:
    """Print the exact verdict of the printed Sherstov construction on k = 2..kmax, every r,
    gamma in {1/2, 1/10, 1/1000} (the grid quoted in docs/sherstov.md)."""
    from dpverify.certify.finite import exact_max_error
    from dpverify.constructions.sherstov import rofk_polynomial
    from dpverify.errors import DomainError, InvalidParameterError

    counts = {"ok": 0, "fail": 0, "undefined": 0, "too_big": 0}
    t0 = time.perf_counter()
    for k in range(2, kmax + 1):
        for r in range(1, k + 1):
            for g in (fmpq(1, 2), fmpq(1, 10), fmpq(1, 1000)):
                try:
                    a = rofk_polynomial(r, k, g, reading=reading, intermediates="summary",
                                        max_degree=cap)
                except DomainError:
                    counts["undefined"] += 1
                    continue
                except InvalidParameterError:
                    counts["too_big"] += 1
                    continue
                e, w = exact_max_error(a.poly, a.target, a.domain)
                if e <= g:
                    counts["ok"] += 1
                else:
                    counts["fail"] += 1
                    print(f"FAIL r={r} k={k} gamma={g} error~{arb(e).str(4)} at t={w} "
                          f"degree={a.poly.degree}", flush=True)
        print(f"k={k} {counts} {time.perf_counter() - t0:.0f} s", flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=str(Path(__file__).resolve().parents[1] / "docs" / "tuv.md"))
    ap.add_argument("--sherstov-grid", type=int, default=None, metavar="KMAX",
                    help="instead of the table, run the Sherstov grid k = 2..KMAX")
    ap.add_argument("--reading", default="", help="Sherstov reading, e.g. log_base=2")
    args = ap.parse_args()
    if args.sherstov_grid is not None:
        rd = dict(p.split("=", 1) for p in args.reading.split(",") if p)
        sherstov_grid(args.sherstov_grid, rd)
        return
    rows = []
    t_all = time.perf_counter()
    for k in KS:
        for gs in GAMMAS:
            gamma = parse_exact(gs, "gamma")
            t0 = time.perf_counter()
            ch = or_polynomial(k, gamma, method="chebyshev")
            assert certify(ch).complete
            t_ch = time.perf_counter() - t0
            t0 = time.perf_counter()
            mm_deg = "not run"
            if t_ch < MINIMAX_BUDGET_S:
                mm = or_polynomial(k, gamma, method="minimax")
                mc = certify(mm)
                mm_deg = str(mm.poly.degree) + ("" if mc.complete else " (NOT certified)")
            t_mm = time.perf_counter() - t0
            if t_mm > MINIMAX_BUDGET_S:
                mm_deg += f" ({t_mm:.0f} s)"
            sk = arb(k).sqrt() * (1 / arb(gamma)).log()
            norms = multivariate_norms(ch.poly, D)
            tf = parse_fmpq_str(norms["T_full"])
            tm = parse_fmpq_str(norms["T_multilinear"])
            pb = paper_coefficient_bound(ch.poly, k)["holds"]
            ns = {}
            for rep in ("full", "multilinear"):
                if k > D:
                    ns[rep] = ("n/a", "n/a")
                    continue
                res = release_size(D, "disjunction", k, 1, 2 * gamma, fmpq(1, 20), gamma=gamma,
                                   representation=rep)
                b = res["best"]
                ns[rep] = (f"{float(b['n']):.3e}" if b else "-",
                           f"{float(b['paper']['n']):.3e}" if b else "-")
            t_row = time.perf_counter() - t0 + t_ch
            rows.append(
                f"| {k} | {gs} | {ch.poly.degree} | {mm_deg} | {float(sk.mid()):.2f} | "
                f"{_dec(tf)} (2^{norms['T_full_log2']}) | "
                f"{_dec(tm)} (2^{norms['T_multilinear_log2']}) | "
                f"{'yes' if pb else 'NO'} | {ns['full'][0]} | {ns['full'][1]} | "
                f"{ns['multilinear'][0]} | {ns['multilinear'][1]} |"
            )
            print(f"k={k:4d} gamma={gs:5s} cheb={ch.poly.degree:4d} minimax={mm_deg:>6s} "
                  f"t_cheb={t_ch:.3f}s t_minimax={t_mm:.3f}s row={t_row:.2f}s", flush=True)
    total = time.perf_counter() - t_all
    head = (
        "# thaler2012 integer-point constructions: degrees, exact T, release sizes\n\n"
        "Generated by `python benchmarks/tuv_table.py` (do not edit by hand).  "
        f"d = {D}, epsilon = 1, beta = 1/20, alpha = 2 gamma.  Total time {total:.1f} s.\n\n"
        "| k | gamma | Chebyshev deg | minimax deg | sqrt(k) ln(1/gamma) | T full (d=100) | "
        "T multilinear (d=100) | paper 4.3 bound | n full | n full (paper) | "
        "n multilinear | n multilinear (paper) |\n"
        "|---|---|---|---|---|---|---|---|---|---|---|---|\n"
    )
    Path(args.out).write_text(head + "\n".join(rows) + "\n" + STATIC, encoding="utf-8")
    print(f"wrote {args.out} in {total:.1f} s")


if __name__ == "__main__":
    main()
