"""TUV polynomial release (thaler2012 Theorems 3.1/3.2): L1 sensitivity of the released
coefficient vector and the privacy record; derivation in ``docs/mechanisms.md``
("Privacy accounting")."""

from __future__ import annotations

from collections.abc import Mapping
from math import comb, factorial
from typing import Any

from flint import arb, ctx, fmpq, fmpq_poly, fmpz, fmpz_poly

from ...errors import InvalidParameterError
from ...noise import check_delta, check_epsilon
from ...numbers import ExactLike, IntLike, check_int, check_rational, fmpq_str, parse_fmpq_str
from .laplace import (
    composition_exceeds,
    delta_scale,
    laplace_advanced_composition,
    laplace_privacy,
)
from .records import (
    AdvancedCompositionRecord,
    LaplaceRecord,
    PrivacyReport,
    decimal_up,
    frozen_json,
    upper_of,
)

__all__ = [
    "multilinear_upto",
    "tuv_sensitivity",
    "tuv_privacy",
    "tuv_scale_times_n",
    "UNIVERSES",
    "REPRESENTATIONS",
]

UNIVERSES = ("monotone", "doubled")
REPRESENTATIONS = ("full", "multilinear")
#: Exact O(d^2) maximisation of the monotone-universe L1 sensitivity up to this d.
_EXACT_SENS_MAX_D = 2000


# ---------------------------------------------------------------------------- TUV


def _row_l1_function(cs: list[fmpq], a: list[fmpq], representation: str,
                     kmax: int | None = None):
    """``w -> N(w)``: L1 norm of the non-constant coefficients of ``p_x`` for ``|x| = w``,
    over the monomials whose support has at most ``kmax`` variables (all when ``None``).

    Full representation: the multinomials ``i!/prod alpha_j!`` over ``alpha in N^w`` with
    ``|alpha| = i`` sum to ``w^i`` (multinomial theorem), and those with support of exactly
    ``s`` variables to ``C(w, s) s! S2(i, s)``.  So ``N(w) = sum_i |c_i| w^i`` when nothing
    is truncated (one integer Horner evaluation of ``sum |num_i| x^i``), else
    ``N(w) = sum_{s <= min(w, kmax)} C(w, s) B_s`` with ``B_s = sum_{i >= s} |c_i| s! S2(i, s)``
    precomputed once (surjection recurrence ``s! S2(i, s) = s (surj(i-1, s) +
    surj(i-1, s-1))``).  All in integers over the common denominator of ``c``: exact.
    Multilinear: ``N(w) = sum_{s=1}^{min(t, w, kmax)} C(w, s) |a_s|``."""
    t = len(cs) - 1
    if representation != "full":
        def n_multi(w: int) -> fmpq:
            top = min(t, w) if kmax is None else min(t, w, kmax)
            return sum((comb(w, s) * abs(a[s]) for s in range(1, top + 1)), fmpq(0))
        return n_multi
    P = fmpq_poly(cs)
    num, den = P.numer(), P.denom()
    absn = [abs(c) for c in num.coeffs()] + [fmpz(0)] * (t + 1 - len(num.coeffs()))
    absp = fmpz_poly(absn)
    B: list[fmpz] = []
    if kmax is not None and kmax < t:
        smax = kmax
        B = [fmpz(0)] * (smax + 1)
        row = [fmpz(1)] + [fmpz(0)] * smax  # surj(0, s)
        for i in range(1, t + 1):
            new = [fmpz(0)] * (smax + 1)
            for s_ in range(1, min(i, smax) + 1):
                new[s_] = s_ * (row[s_] + row[s_ - 1])
            row = new
            if absn[i]:
                for s_ in range(1, min(i, smax) + 1):
                    B[s_] += absn[i] * row[s_]

    def n_full(w: int) -> fmpq:
        if kmax is None or kmax >= min(t, w):
            return fmpq(absp(w) - absn[0], den)
        return fmpq(sum((comb(w, s_) * B[s_] for s_ in range(1, min(w, kmax) + 1)), fmpz(0)),
                    den)
    return n_full


def multilinear_upto(cs: list[fmpq], top: int | None = None) -> list[fmpq]:
    """``a_s = sum_i c_i s! S2(i, s)`` for ``s = 0..min(t, top)`` via
    ``a_s = sum_j (-1)^(s-j) C(s, j) g(j) = (Delta^s g)(0)`` (inclusion-exclusion on the
    values of ``g`` at ``0..s``; independent of the Stirling route in
    :mod:`dpverify.constructions.multivariate_norm`).

    Exact: ``g = P/D`` with ``P`` an integer polynomial, so the forward-difference table
    of the integers ``P(0..top)`` is built in integer arithmetic (``O(top^2)`` additions)
    and divided by ``D`` once; only the sizes a caller uses (``top``) are computed."""
    t = len(cs) - 1
    top = t if top is None else max(0, min(t, top))
    P = fmpq_poly(cs)
    num, den = P.numer(), P.denom()
    row = [num(j) for j in range(top + 1)]  # fmpz, exact
    out = [fmpq(row[0], den)]
    for _ in range(top):
        row = [row[i + 1] - row[i] for i in range(len(row) - 1)]
        out.append(fmpq(row[0], den))
    return out


def _max_multinomial(i: int, w: int) -> int:
    if i == 0:
        return 1
    if w == 0:
        return 0

    q, r = divmod(i, w)
    return factorial(i) // (factorial(q) ** (w - r) * factorial(q + 1) ** r)


def tuv_sensitivity(
    coeffs: Any, d: IntLike, k: IntLike, representation: str = "multilinear",
    universe: str = "monotone", max_support: Any = None,
) -> dict[str, Any]:
    """Exact sensitivities of ``sum_x p_x`` for ``p_x(y) = g(sum_j y_j x_j)`` (thaler2012 §3).

    Parameters
    ----------
    coeffs : exact monomial coefficients of ``g`` (lowest degree first).
    d : int -- attributes; the polynomial lives on ``m = d`` (monotone) or ``m = 2d``
        (doubled universe ``x' = (x, 1 - x)``) variables.
    k : int -- largest query size (for the number of coefficients a query reads).
    representation : {"full", "multilinear"};  universe : {"monotone", "doubled"}.
    max_support : int, optional
        Keep only the monomials whose support has at most this many variables (the
        release's truncation: a query of size ``<= k`` reads only monomials supported inside
        it, so ``max_support = k`` loses nothing; ``None`` is the paper's whole vector).

    Returns
    -------
    dict with (times ``n``: divide by ``n`` for ``p_D``) ``S1`` (L1 of ``p_x - p_x'``
    maximised over rows), ``S1_exact``, ``Sinf`` (L-infinity), ``T`` (paper's norm: max
    ``|coef|`` of one ``p_x``, constant included), ``n_coordinates`` (monomials that are not
    identically zero, constant excluded: the ones that get noise), ``n_coordinates_paper``
    (``C(m + t, t)``), ``n_read_per_query`` (non-constant coordinates a query of size
    ``<= k`` reads).

    Guarantee
    ---------
    Exact.  ``p_x - p_x'`` is non-zero exactly on the monomials supported in ``W`` but not
    in ``W'`` or vice versa (``W = supp(x)``), so ``||p_x - p_x'||_1 = N(|W|) + N(|W'|) -
    2 N(|W cap W'|)``; monotone: maximised over ``|W|, |W'|, |W cap W'|`` (exactly for
    ``d <= 2000``, else the bound ``2 N(d)``); doubled: ``|W| = |W'| = d`` and the maximum is
    ``2 N(d)`` (``W cap W' = {}`` when every attribute flips).  With ``max_support`` the
    same holds with ``N`` counting only monomials of support ``<= max_support`` (a monomial
    supported in ``W cap W'`` still cancels); for ``full``, the multinomials of degree ``i``
    over a support of exactly ``s`` variables sum to ``s! S2(i, s)``.
    """
    if representation not in REPRESENTATIONS:
        raise InvalidParameterError(
            f"representation must be one of {REPRESENTATIONS}, got {representation!r}")
    if universe not in UNIVERSES:
        raise InvalidParameterError(f"universe must be one of {UNIVERSES}, got {universe!r}")
    d = check_int(d, "d", minimum=1, maximum=10**6)
    k = check_int(k, "k", minimum=1)
    cs = [check_rational(c, f"coeffs[{i}]") for i, c in enumerate(coeffs)]
    while len(cs) > 1 and cs[-1] == 0:
        cs.pop()
    t = len(cs) - 1
    ks = None if max_support is None else check_int(max_support, "max_support", minimum=1)
    top = d if ks is None else min(d, ks)  # largest support size kept
    # multilinear sizes used below: s <= min(t, top) (a_0 for T) and s <= min(t, k) (K_read);
    # the full representation needs no a_s at all
    a = multilinear_upto(cs, min(t, max(top, k))) if representation == "multilinear" else []
    row_l1 = _row_l1_function(cs, a, representation, ks)
    N = [row_l1(w) for w in range(d + 1)] if d <= _EXACT_SENS_MAX_D else None
    exact = True
    if universe == "doubled":
        s1 = 2 * row_l1(d)
    elif N is None:
        s1, exact = 2 * row_l1(d), False
    else:
        s1 = fmpq(0)
        for c in range(d + 1):
            for a_ in range(c, d + 1):
                b_ = min(d, d + c - a_)  # N non-decreasing: take |W'| as large as allowed
                if b_ >= c:
                    s1 = max(s1, N[a_] + N[b_] - 2 * N[c])
    m = d if universe == "monotone" else 2 * d

    def n_sets(s: int) -> int:  # s-subsets of the variables with no complementary pair
        return comb(d, s) if universe == "monotone" else comb(d, s) * 2**s

    if representation == "multilinear":
        sinf = max((abs(a[s]) for s in range(1, min(t, top) + 1)), default=fmpq(0))
        T = max([abs(a[0]), sinf])
        K = sum(n_sets(s) for s in range(1, min(t, top) + 1) if a[s] != 0)
        K_read = sum(comb(k, s) for s in range(1, min(t, k) + 1) if a[s] != 0)
    else:
        sinf = max((abs(cs[i]) * _max_multinomial(i, top) for i in range(1, t + 1)),
                   default=fmpq(0))
        T = max([abs(cs[0]), sinf])
        # monomials of degree i whose support is an allowed set of size s: C(i-1, s-1) each
        K = sum(n_sets(s) * comb(i - 1, s - 1) for i in range(1, t + 1) if cs[i] != 0
                for s in range(1, min(i, top) + 1))
        K_read = sum(comb(k + i - 1, i) for i in range(1, t + 1) if cs[i] != 0)
    return {
        "representation": representation,
        "universe": universe,
        "d": d,
        "m": m,
        "k": k,
        "degree": t,
        "S1": s1,
        # add/remove-one: one row moves sum_x p_x by its own non-constant part, of L1
        # norm N(|W|) <= N(d) (N is non-decreasing; every doubled row has weight d)
        "S1_add_remove": row_l1(d),
        "S1_exact": exact,
        "Sinf": sinf,
        "T": T,
        "n_coordinates": K,
        "n_coordinates_paper": comb(m + t, t),
        "n_read_per_query": K_read,
        "max_support": ks,
    }


def tuv_privacy(
    coeffs: Any, d: IntLike, k: IntLike, epsilon: ExactLike, *, n: IntLike | None = None,
        delta: ExactLike | None = None,
    representation: str = "multilinear", universe: str = "monotone", max_support: Any = None,
    neighbours: str = "replace",
) -> PrivacyReport:
    """Privacy certificate of the TUV release (thaler2012 Thm 3.1 / 3.2).

    ``max_support``: as in :func:`tuv_sensitivity` (the release's truncation).

    ``neighbours="add-remove"`` (``n`` private): the release is the integer vector
    ``sum_x p_x`` (not divided by ``n``) plus a count coordinate ``Sinf n``; one row added
    or removed moves the first by ``N(|W|) <= N(d)`` in L1 (its own non-constant part) and
    the count by ``Sinf``, so ``S1 = N(d) + Sinf`` on ``K + 1`` coordinates of
    L-infinity sensitivity ``Sinf`` (the ``*_times_n`` fields then hold these values: there
    is no ``1/n``).  The papers' printed scales are for replace-one and are not compared.

    The mechanism releases ``p_D = (1/n) sum_x p_x + Z`` on the non-constant, not
    identically zero coordinates.  ``epsilon``-DP (``delta=None``): Laplace scale
    ``b = S1/(n epsilon)``.  ``(epsilon, delta)``: thaler2012 Lemma 2.4's scale
    ``3 Sinf sqrt(K ln(1/delta))/(n epsilon)`` rounded up to a rational, certified by
    advanced composition; if that does not certify ``epsilon`` (large ``epsilon``), or the
    L1 scale is smaller, the L1 scale (pure DP) is used instead.

    Returns
    -------
    PrivacyReport
        ``sensitivity`` (exact, times ``n`` and, with ``n``, divided by it),
        ``scale_times_n``, ``scale`` (with ``n``), ``achieved`` (a
        :func:`laplace_privacy` / :func:`laplace_advanced_composition` record), ``paper``
        (the printed scales and the epsilon each would actually give, exact).

    Guarantee
    ---------
    Exact sensitivities and pure epsilons (fmpq); composition bounds rigorous (arb, rounded
    up).  thaler2012 Lemma 2.3/2.4, Theorem 3.1/3.2.
    """
    eps = check_epsilon(epsilon)
    nn = None if n is None else check_int(n, "n", minimum=1)
    de = None if delta is None else check_delta(delta)
    if neighbours not in ("replace", "add-remove"):
        raise InvalidParameterError(f"neighbours must be replace or add-remove, got "
                                    f"{neighbours!r}")
    sens = tuv_sensitivity(coeffs, d, k, representation, universe, max_support)
    s1, sinf, T, K = sens["S1"], sens["Sinf"], sens["T"], sens["n_coordinates"]
    Kp = sens["n_coordinates_paper"]
    K_noised = K
    if neighbours == "add-remove":
        nn = None  # n is not public
        s1, K_noised = sens["S1_add_remove"] + sinf, K + 1
    l1_scale = s1 / eps
    chosen = {"route": "L1 Laplace (Lemma 2.3 with the exact L1 sensitivity)",
              "scale_times_n": l1_scale}
    achieved: LaplaceRecord | AdvancedCompositionRecord | None = (
        laplace_privacy(s1, l1_scale) if s1 != 0 else None)
    lemma24: dict[str, Any] | None = None
    if de is not None and sinf != 0:
        b24 = upper_of(3 * arb(sinf) * (arb(K_noised) * (-arb(de).log())).sqrt() / arb(eps))

        if composition_exceeds(sinf / b24, eps):  # e^(eps0) alone exceeds eps: skip exp
            lemma24 = {"scale_times_n": fmpq_str(b24), "advanced_composition": None,
                       "certifies_epsilon": False,
                       "note": "per-coordinate epsilon too large: advanced composition "
                       "gives more than epsilon (decided without exp)"}
        else:
            ac = laplace_advanced_composition(sinf, b24, K_noised, de)
            lemma24 = {"scale_times_n": fmpq_str(b24), "advanced_composition": ac,
                       "certifies_epsilon": bool(ac.epsilon <= eps)}
        if lemma24["certifies_epsilon"] and b24 < l1_scale:
            chosen = {"route": "Lemma 2.4 scale, certified by advanced composition",
                      "scale_times_n": b24}
            achieved = ac
        # the smallest advanced-composition scale on a bisection (the printed Lemma 2.4
        # constant 3 is not needed); used only if certified at 128 bits and smaller

        bb = delta_scale(sinf, K_noised, eps, de).advanced_composition_scale
        if bb is not None:
            with ctx.workprec(128):
                acb = laplace_advanced_composition(sinf, bb, K_noised, de)
            if acb.epsilon <= eps and bb < chosen["scale_times_n"]:
                chosen = {"route": "smallest scale certified by advanced composition "
                          "(bisection; Lemma 2.4's form with a smaller constant)",
                          "scale_times_n": bb}
                achieved = acb
    # what the printed scales give (pure DP with the exact L1 sensitivity)
    paper: dict[str, Any] = {}
    if neighbours == "add-remove":
        paper = {"note": "the paper's scales are for replace-one neighbours; not compared"}
    elif s1 != 0:
        box = 2 * T / eps
        l23 = 2 * T * Kp / eps
        paper = {
            "T": fmpq_str(T),
            "K_paper": str(Kp),
            "theorem_3_1_box_scale_times_n": fmpq_str(box),
            "theorem_3_1_box_epsilon": fmpq_str(s1 / box),
            "theorem_3_1_box_epsilon_decimal": decimal_up(s1 / box),
            "lemma_2_3_scale_times_n": fmpq_str(l23),
            "lemma_2_3_epsilon": fmpq_str(s1 / l23),
            "box_is_epsilon_dp": bool(s1 / box <= eps),
        }
    head: dict[str, Any] = {"representation": representation, "universe": universe}
    if neighbours == "add-remove":
        head["count_weight"] = fmpq_str(sinf)
    return PrivacyReport(
        mechanism="tuv",
        neighbouring="same n, one row replaced" if neighbours == "replace"
        else "one row added or removed (n private)",
        head=head,
        epsilon_target=eps,
        delta_target=de,
        sensitivity=frozen_json({
            "l1_times_n": fmpq_str(s1),
            "l1_exact": sens["S1_exact"],
            "linf_times_n": fmpq_str(sinf),
            "T_paper_norm": fmpq_str(T),
            "n_coordinates": str(K),
            "n_coordinates_paper": str(Kp),
            "n_read_per_query": str(sens["n_read_per_query"]),
            "max_support": sens["max_support"],
        }),
        route=chosen["route"],
        scale_times_n=chosen["scale_times_n"],
        achieved=achieved,
        tail=frozen_json({"lemma_2_4": lemma24, "paper": paper}),
        n=nn,
    )


def tuv_scale_times_n(record: PrivacyReport | Mapping[str, Any]) -> fmpq:
    """The chosen Laplace scale times ``n`` of a :func:`tuv_privacy` record (exact); also
    accepts the record's JSON."""
    if isinstance(record, PrivacyReport):
        return record.scale_times_n
    return parse_fmpq_str(record["scale_times_n"])
