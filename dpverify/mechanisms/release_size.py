"""Release-accuracy calculator for thaler2012 Theorems 3.1 / 3.2.

Given the dimension, the query class, ``gamma``, ``epsilon`` (``delta``), ``beta`` and the
representation (full monomials / multilinear), report the polynomial (certified), its exact
norms, the number of released coefficients ``K``, the sensitivity, the Laplace noise scale
and the database size ``n`` that makes the release ``(alpha, beta)``-accurate; and search a
grid of ``gamma`` for the one minimising ``n`` (every candidate certified).

Our derivation (neighbouring databases: same ``n``, one row replaced).  The mechanism
releases ``p_D = (1/n) sum_x p_x + Z`` (coefficient vectors of length ``K``).

* **Sensitivity.**  ``p_D - p_D' = (p_x - p_x')/n``.  The constant coefficient is the same
  for every row and cancels.  For disjunctions / r-of-k, ``p_x`` has the coefficient
  ``coef(alpha)`` at every monomial ``alpha`` supported in ``W = supp(x)`` and 0 elsewhere,
  so ``||p_x - p_x'||_1 = N(|W|) + N(|W'|) - 2 N(|W cap W'|)`` with ``N(w)`` the L1 norm of
  the non-constant coefficients at row weight ``w``; we maximise this exactly over
  ``|W|, |W'|, |W cap W'|`` (``|W cup W'| <= d``; ``d <= 2000``, else the bound ``2 N(d)``).
  The L-infinity sensitivity is ``T_nc/n`` (largest non-constant coefficient).  Decision
  lists: rigorous upper bounds (see :func:`_dlist_bounds`).
* **epsilon-DP (Theorem 3.1).**  Laplace with per-coordinate scale ``b = S_1/(n epsilon)``
  (``S_1 = n * L1 sensitivity``).  Union bound: with probability ``>= 1 - beta`` every
  ``|Z_alpha| <= b ln(K/beta)``.  A query ``y`` reads only the ``K_eval`` coefficients
  whose monomial is 1 at ``y`` (``K_eval = C(k+t, t)`` full / ``sum_{s<=t} C(k, s)``
  multilinear for ``|y| <= k``; ``K`` for decision lists), so the noise error is
  ``<= K_eval b ln(K/beta)`` and ``n >= S_1 K_eval ln(K/beta) / (epsilon (alpha - gamma))``.
* **(epsilon, delta) (Theorem 3.2).**  thaler2012 Lemma 2.4 as printed (scale
  ``3 Delta sqrt(K ln(1/delta))/epsilon`` with ``Delta`` the L-infinity sensitivity); we check
  it with advanced composition (``K`` Laplace coordinates each ``eps0 = Delta/b``-DP give
  ``(sqrt(2K ln(1/delta)) eps0 + K eps0 (e^eps0 - 1), delta)``) and report whether that is
  ``<= epsilon`` (``lemma_2_4_composition_ok``).

Paper formulas are reported next to ours (``paper``): Theorem 3.1
``n = 4 T K^2 ln(K/beta)/(epsilon (alpha - gamma))`` and Theorem 3.2
``n = 12 T K sqrt(K ln(1/delta)) ln(K/beta)/(epsilon (alpha - gamma))`` with the paper's ``T``
(max |coefficient|) and ``log`` read as ``ln``.  **Discrepancy**: the sanitizer box of
Theorem 3.1 prints the Laplace parameter ``2T/(epsilon n)``, but with L-infinity sensitivity
``2T/n`` over ``K`` coordinates Lemma 2.3 needs ``2TK/(epsilon n)`` (the accuracy formula
of the theorem does use the latter); ``2T/(epsilon n)`` alone is not epsilon-DP in general.

Guarantee
---------
Every polynomial is certified (exact error on ``{0..k}``); norms, ``K`` and sensitivities are
exact integers/rationals; logarithms and square roots are arb balls and every reported
``n`` is the ceiling of a rigorous upper bound (sufficient, possibly 1 above the exact
threshold).  Decimal strings are rounded up.
"""

from __future__ import annotations

from math import comb
from typing import Any

from flint import arb, fmpq

from ..certify import certify
from ..constructions.chebyshev import or_polynomial
from ..constructions.decision_lists import h_polynomial
from ..constructions.multivariate_norm import (
    MAX_D,
    monomial_coefficients,
    multilinear_from_monomial,
    norm_profile,
)
from ..constructions.sherstov import rofk_polynomial
from ..errors import InvalidParameterError
from ..exact import MonomialPoly
from ..numbers import (
    arb_to_fmpq_bounds,
    check_int,
    check_open_unit,
    check_rational,
    fmpq_str,
    fmpq_to_decimal,
    log2_fmpq,
    to_fmpq,
)
from ..progress import ProgressCallback, report

__all__ = ["QUERY_CLASSES", "REPRESENTATIONS", "release_size", "default_gamma_grid"]

QUERY_CLASSES = ("disjunction", "rofk", "dlist")
REPRESENTATIONS = ("full", "multilinear")
_EXACT_SENS_MAX_D = 2000


def _ceil_upper(x: arb) -> int:
    """Ceiling of the upper end of a ball (a sufficient integer)."""
    if not x.is_finite():
        raise InvalidParameterError("a size bound is not finite (parameters too extreme)")
    hi = arb_to_fmpq_bounds(x)[1]
    return int(-((-hi.p) // hi.q))


def _up(x: arb) -> str:
    return fmpq_to_decimal(arb_to_fmpq_bounds(x)[1], 8, rounding="up")


def _ln(v: Any) -> arb:
    if isinstance(v, int):
        return arb(v).log()
    return arb(to_fmpq(v)).log()


def _sens_l1(N: list[fmpq], d: int) -> tuple[fmpq, bool]:
    """max over a, b <= d, c <= min(a, b), a + b - c <= d of N[a] + N[b] - 2 N[c]."""
    if d > _EXACT_SENS_MAX_D:
        return 2 * N[d], False
    best = fmpq(0)
    for c in range(0, d + 1):
        for a in range(c, d + 1):
            b = min(d, d + c - a)
            if b < c:
                continue
            v = N[a] + N[b] - 2 * N[c]
            if v > best:
                best = v
    return best, True


def _row_norms(cs: list[fmpq], d: int, rep: str) -> dict[str, Any]:
    """Norms for rows of weight d (worst case) and the exact sensitivities."""
    key = "full" if rep == "full" else "multilinear"
    prof = norm_profile(_cs_poly(cs), d)
    t = len(cs) - 1
    if d <= _EXACT_SENS_MAX_D:
        if rep == "full":
            N = [sum((abs(cs[i]) * fmpq(w) ** i for i in range(1, t + 1)), fmpq(0))
                 for w in range(d + 1)]
        else:
            a = multilinear_from_monomial(cs)
            N = [sum((comb(w, s) * abs(a[s]) for s in range(1, min(t, w) + 1)), fmpq(0))
                 for w in range(d + 1)]
        s1, exact = _sens_l1(N, d)
    else:
        s1, exact = 2 * prof[f"L1_{key}_nc"], False
    return {
        "T": prof[f"T_{key}"],
        "L1": prof[f"L1_{key}"],
        "S1": s1,
        "S1_exact": exact,
        "Sinf": prof[f"T_{key}_nc"],
    }


def _cs_poly(cs: list[fmpq]):
    return MonomialPoly(cs)


def _dlist_bounds(h_cs: list[fmpq], k: int) -> dict[str, Any]:
    """Rigorous upper bounds for decision lists (any list of length <= k).

    A term is ``h(k - n + sum_{j<=n} u_j)`` with ``u_j`` a literal value or its complement.
    In the ``u`` variables it has multilinear coefficients ``a_s`` (sets of size ``s``) of the
    shifted polynomial ``h(k - n + .)``; substituting ``u_j = 1 - y_j`` turns one monomial of
    size ``s`` into at most ``2^s`` of L1 norm ``<= 2^s``.  Summing over the ``k + 1`` terms
    (``n = 1..k`` and the default ``n = k``) bounds the L1 norm of ``p_x`` (hence T too); the
    L1 sensitivity is at most twice that."""
    h = MonomialPoly(h_cs)
    total = fmpq(0)
    for n in list(range(1, k + 1)) + [k]:
        sh = list(h.taylor_shift(k - n).coeffs)
        a = multilinear_from_monomial(sh)
        total += sum((comb(n, s) * abs(a[s]) * 2**s for s in range(0, min(len(a) - 1, n) + 1)),
                     fmpq(0))
    return {"T": total, "L1": total, "S1": 2 * total, "S1_exact": False, "Sinf": 2 * total}


def default_gamma_grid(alpha: fmpq) -> list[fmpq]:
    """``alpha * {1/1000, 1/100, 1/20, 1/10, 1/5, 3/10, ..., 9/10}``."""
    fr = [fmpq(1, 1000), fmpq(1, 100), fmpq(1, 20)] + [fmpq(j, 10) for j in range(1, 10)]
    return [alpha * f for f in fr]


def _build(query_class: str, k: int, r: int | None, gamma: fmpq, method: str):
    if query_class == "disjunction":
        return or_polynomial(k, gamma, method=method)
    if query_class == "rofk":
        return rofk_polynomial(r, k, gamma, method=method, intermediates="summary")

    return h_polynomial(k, gamma, method=method)


def _one_gamma(
    query_class: str, d: int, k: int, r: int | None, gamma: fmpq, eps: fmpq,
    delta: fmpq | None, beta: fmpq, alpha: fmpq, rep: str, method: str,
    progress: ProgressCallback | None = None,
) -> dict[str, Any]:
    report(progress, "construction", 0, None)
    approx = _build(query_class, k, r, gamma, method)
    cert = certify(approx, progress=progress)
    cs = monomial_coefficients(approx.poly)
    t = len(cs) - 1
    if query_class == "dlist":
        m = d
        nb = _dlist_bounds(cs, k)
        K = comb(m + t, t) if rep == "full" else sum(comb(m, s) for s in range(min(t, m) + 1))
        K_eval = K
    else:
        nb = _row_norms(cs, d, rep)
        K = comb(d + t, t) if rep == "full" else sum(comb(d, s) for s in range(min(t, d) + 1))
        K_eval = comb(k + t, t) if rep == "full" else sum(comb(k, s) for s in range(min(t, k) + 1))
    slack = alpha - gamma
    lnKb = _ln(K) - _ln(beta)
    T = nb["T"]
    out: dict[str, Any] = {
        "gamma": fmpq_str(gamma),
        "certified": cert.complete,
        "error": cert.error.get("upper"),
        "degree": t,
        "construction": approx.construction,
        "n_coefficients": str(K),
        "n_coefficients_read_per_query": str(K_eval),
        "T": fmpq_str(T),
        "T_log2": round(log2_fmpq(T), 4) if T != 0 else None,
        "L1": fmpq_str(nb["L1"]),
        "sensitivity_l1_times_n": fmpq_str(nb["S1"]),
        "sensitivity_l1_exact": nb["S1_exact"],
        "sensitivity_linf_times_n": fmpq_str(nb["Sinf"]),
        "norm_kind": "upper bound (any list)" if query_class == "dlist" else "exact (worst row)",
    }
    if not cert.complete:
        out["n"] = None
        return out
    if delta is None:
        # ours: b = S1/(n eps); noise <= K_eval b ln(K/beta)
        n_arb = arb(nb["S1"]) * K_eval * lnKb / (arb(eps) * arb(slack))
        scale_n = arb(nb["S1"]) / arb(eps)
        paper_n = 4 * arb(T) * arb(K) ** 2 * lnKb / (arb(eps) * arb(slack))
        out["paper"] = {
            "formula": "Theorem 3.1: n = 4 T K^2 ln(K/beta) / (epsilon (alpha - gamma))",
            "n": str(_ceil_upper(paper_n)),
            "printed_noise_scale_times_n": _up(2 * arb(T) / arb(eps)),
            "lemma_2_3_noise_scale_times_n": _up(2 * arb(T) * K / arb(eps)),
        }
    else:
        lnd = -_ln(delta)
        root = (arb(K) * lnd).sqrt()
        scale_n = 3 * arb(nb["Sinf"]) * root / arb(eps)
        n_arb = scale_n * K_eval * lnKb / arb(slack)
        # advanced composition check of Lemma 2.4: eps0 = eps / (3 sqrt(K ln(1/delta)))
        e0 = arb(eps) / (3 * root)
        eps_total = (2 * arb(K) * lnd).sqrt() * e0 + arb(K) * e0 * (e0.exp() - 1)
        paper_n = 12 * arb(T) * arb(K) * root * lnKb / (arb(eps) * arb(slack))
        out["lemma_2_4_composition_epsilon"] = _up(eps_total)
        out["lemma_2_4_composition_ok"] = bool(eps_total <= arb(eps))
        out["paper"] = {
            "formula": "Theorem 3.2: n = 12 T K sqrt(K ln(1/delta)) ln(K/beta) / "
            "(epsilon (alpha - gamma))",
            "n": str(_ceil_upper(paper_n)),
        }
    n = max(1, _ceil_upper(n_arb))
    out["n"] = str(n)
    out["n_log10"] = round(float(arb(n).log() / arb(10).log()), 3)
    out["noise_scale_times_n"] = _up(scale_n)
    out["noise_scale"] = _up(scale_n / n)
    return out


def _numbered(progress: ProgressCallback | None, i: int,
              n: int) -> ProgressCallback | None:
    """``progress`` with the stages of gamma ``i`` (of ``n``) prefixed ``gamma i+1/n: ``."""
    if progress is None:
        return None
    cb = progress

    def step(stage: str, done: int, total: int | None) -> None:
        cb(f"gamma {i + 1}/{n}: {stage}", done, total)

    return step


def release_size(
    d: Any,
    query_class: str,
    k: Any,
    epsilon: Any,
    alpha: Any,
    beta: Any,
    *,
    gamma: Any = None,
    gammas: Any = None,
    r: Any = None,
    delta: Any = None,
    representation: str = "full",
    method: str | None = None,
    progress: ProgressCallback | None = None,
) -> dict[str, Any]:
    """Database size for an ``(alpha, beta)``-accurate thaler2012 polynomial release.

    Parameters
    ----------
    d : int
        Dimension: rows in ``{0,1}^d`` for ``"disjunction"``/``"rofk"``; for ``"dlist"`` the
        number ``m`` of query variables (``y in {0,1}^m``).
    query_class : {"disjunction", "rofk", "dlist"}
        Monotone k-way disjunctions (OR polynomial), monotone r-of-k (``r`` required),
        length-``k`` decision lists (``h_k``).
    k : int, ``1 <= k <= d``
    epsilon : exact > 0;  alpha : exact in (0, 1];  beta : exact in (0, 1)
    gamma : exact in (0, alpha), optional
        Evaluate this gamma only; otherwise search ``gammas`` (default
        :func:`default_gamma_grid`) and report the one minimising ``n``.
    delta : exact in (0, 1), optional -- (epsilon, delta) variant (Theorem 3.2).
    representation : {"full", "multilinear"}
    method : construction method (``"chebyshev"``/``"minimax"`` for disjunction and dlist,
        ``"sherstov"``/``"minimax"`` for rofk; defaults: chebyshev / sherstov).
    progress : callable, optional
        ``progress(stage, done, total)`` (:mod:`dpverify.progress`): each gamma's
        construction and certification, stages prefixed ``gamma i/n:`` (counts only).

    Returns
    -------
    dict (JSON-able): inputs, ``candidates`` (one per gamma) and ``best`` (minimal ``n``).

    Guarantee
    ---------
    See the module docstring: certified polynomials, exact norms and K, rigorous ``n``.
    """
    if query_class not in QUERY_CLASSES:
        raise InvalidParameterError(
            f"query_class must be one of {QUERY_CLASSES}, got {query_class!r}"
        )
    if representation not in REPRESENTATIONS:
        raise InvalidParameterError(
            f"representation must be one of {REPRESENTATIONS}, got {representation!r}"
        )
    d = check_int(d, "d", minimum=1, maximum=MAX_D)
    k = check_int(k, "k", minimum=1, maximum=d)
    if query_class == "rofk":
        if r is None:
            raise InvalidParameterError("r is required for query_class 'rofk'")
        r = check_int(r, "r", minimum=1, maximum=k)
    elif r is not None:
        raise InvalidParameterError("r applies only to query_class 'rofk'")
    eps = check_rational(epsilon, "epsilon", 0, None, low_open=True)
    alpha_q = check_rational(alpha, "alpha", 0, 1, low_open=True)
    beta_q = check_open_unit(beta, "beta")
    delta_q = None if delta is None else check_open_unit(delta, "delta")
    if method is None:
        method = "sherstov" if query_class == "rofk" else "chebyshev"
    if gamma is not None:
        grid = [check_rational(gamma, "gamma", 0, alpha_q, low_open=True, high_open=True)]
    elif gammas is not None:
        grid = [check_rational(g, f"gammas[{i}]", 0, alpha_q, low_open=True, high_open=True)
                for i, g in enumerate(gammas)]
        if not grid:
            raise InvalidParameterError("gammas must not be empty")
        if len(grid) > 200:
            raise InvalidParameterError(f"gammas has {len(grid)} entries, more than 200")
    else:
        grid = default_gamma_grid(alpha_q)
    grid = [g for g in grid if g < 1]
    cands = [
        _one_gamma(query_class, d, k, r, g, eps, delta_q, beta_q, alpha_q, representation,
                   method, _numbered(progress, i, len(grid)))
        for i, g in enumerate(grid)
    ]
    ok = [c for c in cands if c.get("n") is not None]
    best = min(ok, key=lambda c: int(c["n"])) if ok else None
    return {
        "query_class": query_class,
        "d": d,
        "k": k,
        "r": r,
        "epsilon": fmpq_str(eps),
        "delta": None if delta_q is None else fmpq_str(delta_q),
        "alpha": fmpq_str(alpha_q),
        "beta": fmpq_str(beta_q),
        "representation": representation,
        "method": method,
        "privacy": "(epsilon, delta)-DP, Theorem 3.2" if delta_q is not None
        else "epsilon-DP, Theorem 3.1",
        "neighbouring": "same n, one row replaced",
        "candidates": cands,
        "best": best,
    }
