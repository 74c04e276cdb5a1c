"""Privacy certificates as data: sensitivity -> noise scale -> achieved epsilon (delta).

Neighbouring databases (every paper of the project): same ``n``, one row replaced.

Generic maps (usable by every mechanism):

* :func:`laplace_privacy` -- Laplace or discrete Laplace noise of scale ``b`` on a vector
  with L1 sensitivity ``S``: the privacy loss is ``ln p(v)/p'(v) = (||v - f'||_1 -
  ||v - f||_1)/b <= S/b`` (triangle inequality, equality for ``v`` far on the right side),
  so the mechanism is exactly ``S/b``-DP (Dwork, McSherry, Nissim, Smith 2006; the discrete
  version on an integer lattice: Canonne, Kamath, Steinke 2020, with ``S`` in lattice units).
  Exact ``fmpq``.
* :func:`laplace_advanced_composition` -- ``K`` coordinates each with L-infinity sensitivity
  ``Delta`` and scale ``b`` (each ``eps0 = Delta/b``-DP): by the advanced composition
  theorem (Dwork, Rothblum, Vadhan 2010; Dwork-Roth 2014 Theorem 3.20) the vector is
  ``(sqrt(2 K ln(1/delta)) eps0 + K eps0 (e^eps0 - 1), delta)``-DP.  Rigorous arb, reported
  rounded up.  This is how thaler2012 Lemma 2.4 must be read.
* :func:`gaussian_privacy` -- (discrete) Gaussian noise of variance ``sigma^2`` on a vector
  with L2 sensitivity ``Delta_2``: ``rho = Delta_2^2/(2 sigma^2)``-zCDP (Bun-Steinke 2016
  Proposition 1.6; CKS 2020 Theorem 14 for the multivariate discrete Gaussian), hence
  ``(rho + 2 sqrt(rho ln(1/delta)), delta)``-DP (Bun-Steinke 2016 Proposition 1.3).
  ``rho`` exact, ``epsilon`` rigorous upper bound.
* :func:`gaussian_sigma2` -- a rational ``sigma^2`` that certifiably achieves a target
  ``(epsilon, delta)`` through the same conversion.

TUV polynomial release (thaler2012 Theorems 3.1/3.2): :func:`tuv_sensitivity` and
:func:`tuv_privacy`; the derivation is in ``docs/mechanisms.md`` ("Privacy accounting").
Decision-list databases (thaler2012 Theorem 1.3, Appendix A): :func:`dlist_sensitivity`,
:func:`dlist_privacy` (derivation in their docstrings and ``docs/tuv.md``).

Guarantee
---------
Sensitivities, scales and pure epsilons are exact rationals; anything with ``ln``, ``sqrt``
or ``exp`` is an ``arb`` enclosure and is reported as a decimal string rounded **up** (an
upper bound on the privacy loss) next to the exact rational upper endpoint.
"""

from __future__ import annotations

from math import comb, gcd
from typing import Any

from flint import arb, ctx, fmpq, fmpq_poly, fmpz, fmpz_poly

from ..errors import CertificationFailed, InvalidParameterError
from ..noise import EPSILON_MAX, EPSILON_MIN, check_delta, check_epsilon
from ..noise import _short_q as _short
from ..numbers import (
    arb_to_fmpq_bounds,
    check_int,
    check_rational,
    fmpq_str,
    fmpq_to_decimal,
)

__all__ = [
    "EPSILON_MIN",
    "EPSILON_MAX",
    "check_epsilon",
    "check_delta",
    "laplace_privacy",
    "laplace_scale",
    "laplace_advanced_composition",
    "gaussian_privacy",
    "gaussian_sigma2",
    "tuv_sensitivity",
    "tuv_privacy",
    "tuv_scale_times_n",
    "dlist_term_coefficients",
    "dlist_sensitivity",
    "dlist_privacy",
    "DLIST_ENUM_MAX_L",
    "UNIVERSES",
    "REPRESENTATIONS",
]

UNIVERSES = ("monotone", "doubled")
REPRESENTATIONS = ("full", "multilinear")
#: Exact O(d^2) maximisation of the monotone-universe L1 sensitivity up to this d.
_EXACT_SENS_MAX_D = 2000


def json_int(v: int) -> int | str:
    """An exact integer for a JSON record: an ``int`` when ``|v| < 2^53`` (exact in every
    JSON reader), else its decimal string (Python refuses to print ints of more than 4300
    digits, and JSON readers would round them)."""
    return v if -(2**53) < v < 2**53 else str(fmpz(v))


def _up(x: arb) -> fmpq:
    return arb_to_fmpq_bounds(x)[1]


def _dec(q: fmpq) -> str:
    return fmpq_to_decimal(q, 10, rounding="up")


def laplace_scale(sensitivity_l1: Any, epsilon: Any) -> fmpq:
    """Scale ``b = S/epsilon`` (exact) giving ``epsilon``-DP for L1 sensitivity ``S``
    (``epsilon`` in the documented range, :func:`check_epsilon`)."""
    s = check_rational(sensitivity_l1, "sensitivity_l1", 0, None)
    return s / check_epsilon(epsilon)


def laplace_privacy(sensitivity_l1: Any, scale: Any) -> dict[str, Any]:
    """Achieved epsilon of (discrete) Laplace noise of ``scale`` for L1 sensitivity ``S``.

    Returns
    -------
    dict: ``sensitivity_l1``, ``scale``, ``epsilon`` (= ``S/b``, exact ``"p/q"``),
    ``epsilon_decimal``, ``delta`` (``"0"``), ``theorem``.

    Guarantee
    ---------
    Exact (fmpq); the bound is tight (the privacy loss reaches ``S/b``).
    """
    s = check_rational(sensitivity_l1, "sensitivity_l1", 0, None)
    b = check_rational(scale, "scale", 0, None, low_open=True)
    eps = s / b
    return {
        "noise": "Laplace (continuous, or discrete on the sensitivity's lattice)",
        "sensitivity_l1": fmpq_str(s),
        "scale": fmpq_str(b),
        "epsilon": fmpq_str(eps),
        "epsilon_decimal": _dec(eps),
        "delta": "0",
        "theorem": "Laplace mechanism: epsilon = S_1/b (Dwork et al. 2006; discrete: "
        "Canonne-Kamath-Steinke 2020)",
    }


def laplace_advanced_composition(
    sensitivity_linf: Any, scale: Any, n_coordinates: Any, delta: Any
) -> dict[str, Any]:
    """``(epsilon, delta)`` of ``K`` Laplace coordinates by advanced composition.

    Guarantee
    ---------
    ``eps0 = Delta/b`` exact; ``epsilon = sqrt(2K ln(1/delta)) eps0 + K eps0 (e^eps0 - 1)``
    as a rigorous arb ball; ``epsilon`` reported as its exact rational upper endpoint and a
    decimal rounded up.  Dwork-Roth 2014 Theorem 3.20 (with ``delta_0 = 0``).
    ``Delta/b <= 2^16`` (else ``InvalidParameterError``: the bound would exceed
    ``e^65536``).
    """
    dl = check_rational(sensitivity_linf, "sensitivity_linf", 0, None)
    b = check_rational(scale, "scale", 0, None, low_open=True)
    K = check_int(n_coordinates, "n_coordinates", minimum=1)
    de = check_delta(delta)
    e0 = dl / b
    if e0 > 2**16:
        raise InvalidParameterError(
            f"sensitivity_linf/scale must be <= 65536 (the bound contains e^(Delta/b)), got "
            f"{_short(e0)}")
    a0 = arb(e0)
    eps = (2 * arb(K) * (-arb(de).log())).sqrt() * a0 + K * a0 * (a0.exp() - 1)
    hi = _up(eps)
    return {
        "noise": "Laplace, per-coordinate (L-infinity sensitivity)",
        "sensitivity_linf": fmpq_str(dl),
        "scale": fmpq_str(b),
        "n_coordinates": json_int(K),
        "epsilon_per_coordinate": fmpq_str(e0),
        "epsilon": fmpq_str(hi),
        "epsilon_decimal": _dec(hi),
        "delta": fmpq_str(de),
        "theorem": "advanced composition (Dwork-Rothblum-Vadhan 2010; Dwork-Roth Thm 3.20)",
    }


def _rho_to_eps(rho: fmpq, delta: fmpq) -> arb:
    return arb(rho) + 2 * (arb(rho) * (-arb(delta).log())).sqrt()


def gaussian_privacy(
    sensitivity_l2_squared: Any, sigma2: Any, delta: Any = None
) -> dict[str, Any]:
    """zCDP and ``(epsilon, delta)`` of (discrete) Gaussian noise of variance ``sigma2``.

    Parameters
    ----------
    sensitivity_l2_squared : exact >= 0 -- ``Delta_2^2`` (squared, so it stays rational).
    sigma2 : exact > 0 -- ``sigma^2`` per coordinate.
    delta : exact in (0, 1), optional -- convert to ``(epsilon, delta)``.

    Guarantee
    ---------
    ``rho = Delta_2^2/(2 sigma^2)`` exact (Bun-Steinke 2016 Prop. 1.6; CKS 2020 Thm 14);
    ``epsilon = rho + 2 sqrt(rho ln(1/delta))`` rigorous upper bound (Bun-Steinke Prop. 1.3).
    """
    s2 = check_rational(sensitivity_l2_squared, "sensitivity_l2_squared", 0, None)
    v = check_rational(sigma2, "sigma2", 0, None, low_open=True)
    rho = s2 / (2 * v)
    out: dict[str, Any] = {
        "noise": "Gaussian (continuous or discrete, CKS 2020)",
        "sensitivity_l2_squared": fmpq_str(s2),
        "sigma2": fmpq_str(v),
        "rho_zcdp": fmpq_str(rho),
        "theorem": "rho = Delta_2^2/(2 sigma^2)-zCDP (Bun-Steinke 2016 Prop 1.6, CKS 2020 "
        "Thm 14); epsilon = rho + 2 sqrt(rho ln(1/delta)) (Bun-Steinke 2016 Prop 1.3)",
    }
    if delta is not None:
        de = check_delta(delta)
        hi = _up(_rho_to_eps(rho, de))
        out.update({"delta": fmpq_str(de), "epsilon": fmpq_str(hi), "epsilon_decimal": _dec(hi)})
    return out


def gaussian_sigma2(sensitivity_l2_squared: Any, epsilon: Any, delta: Any) -> fmpq:
    """A rational ``sigma^2`` (about 30 significant bits) with
    ``rho + 2 sqrt(rho ln(1/delta)) <= epsilon`` certified, ``rho = Delta_2^2/(2 sigma^2)``.

    Guarantee
    ---------
    The returned value is checked with arb (the inequality holds rigorously); raises
    ``CertificationFailed`` if it cannot be decided (never returns an unchecked scale).
    """
    s2 = check_rational(sensitivity_l2_squared, "sensitivity_l2_squared", 0, None,
                        low_open=True)
    e = check_epsilon(epsilon)
    de = check_delta(delta)
    L = -arb(de).log()
    rho_star = ((L + arb(e)).sqrt() - L.sqrt()) ** 2  # solves rho + 2 sqrt(rho L) = eps
    sig = arb(s2) / (2 * rho_star)
    hi = _up(sig * (1 + arb(fmpq(1, 2**30))))
    # round to ~30 significant bits upward
    bits = max(0, int(hi.p).bit_length() - int(hi.q).bit_length())
    den = 2 ** max(0, 30 - bits)
    cand = fmpq(-((-int(hi.p) * den) // int(hi.q)), den)
    if not bool(_rho_to_eps(s2 / (2 * cand), de) <= arb(e)):
        raise CertificationFailed("could not certify the Gaussian scale (increase epsilon)")
    return cand


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


def _multilinear(cs: list[fmpq], top: int | None = None) -> list[fmpq]:
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
    from math import factorial

    q, r = divmod(i, w)
    return factorial(i) // (factorial(q) ** (w - r) * factorial(q + 1) ** r)


def tuv_sensitivity(
    coeffs: Any, d: Any, k: Any, representation: str = "multilinear",
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
    a = _multilinear(cs, min(t, max(top, k))) if representation == "multilinear" else []
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
        "S1_exact": exact,
        "Sinf": sinf,
        "T": T,
        "n_coordinates": K,
        "n_coordinates_paper": comb(m + t, t),
        "n_read_per_query": K_read,
        "max_support": ks,
    }


def tuv_privacy(
    coeffs: Any, d: Any, k: Any, epsilon: Any, *, n: Any = None, delta: Any = None,
    representation: str = "multilinear", universe: str = "monotone", max_support: Any = None,
) -> dict[str, Any]:
    """Privacy certificate of the TUV release (thaler2012 Thm 3.1 / 3.2).

    ``max_support``: as in :func:`tuv_sensitivity` (the release's truncation).

    The mechanism releases ``p_D = (1/n) sum_x p_x + Z`` on the non-constant, not
    identically zero coordinates.  ``epsilon``-DP (``delta=None``): Laplace scale
    ``b = S1/(n epsilon)``.  ``(epsilon, delta)``: thaler2012 Lemma 2.4's scale
    ``3 Sinf sqrt(K ln(1/delta))/(n epsilon)`` rounded up to a rational, certified by
    advanced composition; if that does not certify ``epsilon`` (large ``epsilon``), or the
    L1 scale is smaller, the L1 scale (pure DP) is used instead.

    Returns
    -------
    dict: ``sensitivity`` (exact, times ``n`` and, with ``n``, divided by it), ``scale_times_n``,
    ``scale`` (with ``n``), ``achieved`` (a :func:`laplace_privacy` /
    :func:`laplace_advanced_composition` record), ``paper`` (the printed scales and the
    epsilon each would actually give, exact).

    Guarantee
    ---------
    Exact sensitivities and pure epsilons (fmpq); composition bounds rigorous (arb, rounded
    up).  thaler2012 Lemma 2.3/2.4, Theorem 3.1/3.2.
    """
    eps = check_epsilon(epsilon)
    nn = None if n is None else check_int(n, "n", minimum=1)
    de = None if delta is None else check_delta(delta)
    sens = tuv_sensitivity(coeffs, d, k, representation, universe, max_support)
    s1, sinf, T, K = sens["S1"], sens["Sinf"], sens["T"], sens["n_coordinates"]
    Kp = sens["n_coordinates_paper"]
    l1_scale = s1 / eps
    chosen = {"route": "L1 Laplace (Lemma 2.3 with the exact L1 sensitivity)",
              "scale_times_n": l1_scale}
    achieved = laplace_privacy(s1, l1_scale) if s1 != 0 else None
    lemma24 = None
    if de is not None and sinf != 0:
        b24 = _up(3 * arb(sinf) * (arb(K) * (-arb(de).log())).sqrt() / arb(eps))
        from .bernstein_mech import composition_exceeds

        if composition_exceeds(sinf / b24, eps):  # e^(eps0) alone exceeds eps: skip exp
            lemma24 = {"scale_times_n": fmpq_str(b24), "advanced_composition": None,
                       "certifies_epsilon": False,
                       "note": "per-coordinate epsilon too large: advanced composition "
                       "gives more than epsilon (decided without exp)"}
        else:
            ac = laplace_advanced_composition(sinf, b24, K, de)
            lemma24 = {"scale_times_n": fmpq_str(b24), "advanced_composition": ac,
                       "certifies_epsilon": bool(_frac(ac["epsilon"]) <= eps)}
        if lemma24["certifies_epsilon"] and b24 < l1_scale:
            chosen = {"route": "Lemma 2.4 scale, certified by advanced composition",
                      "scale_times_n": b24}
            achieved = ac
        # the smallest advanced-composition scale on a bisection (the printed Lemma 2.4
        # constant 3 is not needed); used only if certified at 128 bits and smaller
        from .bernstein_mech import delta_scale

        best = delta_scale(sinf, K, eps, de)["advanced_composition_scale"]
        if best is not None:
            bb = _frac(best)
            with ctx.workprec(128):
                acb = laplace_advanced_composition(sinf, bb, K, de)
            if _frac(acb["epsilon"]) <= eps and bb < chosen["scale_times_n"]:
                chosen = {"route": "smallest scale certified by advanced composition "
                          "(bisection; Lemma 2.4's form with a smaller constant)",
                          "scale_times_n": bb}
                achieved = acb
    # what the printed scales give (pure DP with the exact L1 sensitivity)
    paper: dict[str, Any] = {}
    if s1 != 0:
        box = 2 * T / eps
        l23 = 2 * T * Kp / eps
        paper = {
            "T": fmpq_str(T),
            "K_paper": str(Kp),
            "theorem_3_1_box_scale_times_n": fmpq_str(box),
            "theorem_3_1_box_epsilon": fmpq_str(s1 / box),
            "theorem_3_1_box_epsilon_decimal": _dec(s1 / box),
            "lemma_2_3_scale_times_n": fmpq_str(l23),
            "lemma_2_3_epsilon": fmpq_str(s1 / l23),
            "box_is_epsilon_dp": bool(s1 / box <= eps),
        }
    out: dict[str, Any] = {
        "mechanism": "tuv",
        "neighbouring": "same n, one row replaced",
        "representation": representation,
        "universe": universe,
        "epsilon_target": fmpq_str(eps),
        "delta_target": None if de is None else fmpq_str(de),
        "sensitivity": {
            "l1_times_n": fmpq_str(s1),
            "l1_exact": sens["S1_exact"],
            "linf_times_n": fmpq_str(sinf),
            "T_paper_norm": fmpq_str(T),
            "n_coordinates": str(K),
            "n_coordinates_paper": str(Kp),
            "n_read_per_query": str(sens["n_read_per_query"]),
            "max_support": sens["max_support"],
        },
        "route": chosen["route"],
        "scale_times_n": fmpq_str(chosen["scale_times_n"]),
        "achieved": achieved,
        "lemma_2_4": lemma24,
        "paper": paper,
    }
    if nn is not None:
        out["n"] = nn
        out["sensitivity"]["l1"] = fmpq_str(s1 / nn)
        out["scale"] = fmpq_str(chosen["scale_times_n"] / nn)
    return out


def tuv_scale_times_n(record: dict[str, Any]) -> fmpq:
    """The chosen Laplace scale times ``n`` of a :func:`tuv_privacy` record (exact)."""
    return _frac(record["scale_times_n"])


def _frac(s: str) -> fmpq:
    # fmpz parses decimal strings itself (Python's int() refuses more than 4300 digits)
    p, _, q = s.partition("/")
    return fmpq(fmpz(p), fmpz(q or "1"))


# ---------------------------------------------------------------- TUV decision lists

#: Exact enumeration of every reduced decision list (up to relabelling) up to this length.
DLIST_ENUM_MAX_L = 6


def _h_values(h_coeffs: list[fmpq], k: int) -> list[fmpq]:
    out = []
    for z in range(k + 1):
        acc = fmpq(0)
        for c in reversed(h_coeffs):
            acc = acc * z + c
        out.append(acc)
    return out


def dlist_term_coefficients(
    h_coeffs: Any, k: Any, max_len: Any = None
) -> dict[tuple[int, int], dict[tuple[int, int], fmpq]]:
    """Multilinear coefficients of one decision-list term (thaler2012 Appendix A).

    A term with ``n`` indicators over ``n`` distinct variables, ``q`` of them negative
    (``1 - y_v``) and ``n - q`` positive (``y_v``), is ``h_k(k - n + q + sum_{P} y_v -
    sum_{N} y_v)``.  On ``{0,1}^m`` its multilinear coefficient on a set ``S`` with ``a``
    positive and ``b`` negative variables is, by Moebius inversion
    ``coef(S) = sum_{T subset S} (-1)^{|S - T|} f(1_T)``,

        ``c_{n,q}(a, b) = sum_{a' <= a, b' <= b} (-1)^{a - a' + b - b'} C(a, a') C(b, b')
        h_k(k - n + q + a' - b')``,

    and 0 on sets not contained in the term's variables.  The argument stays in
    ``[k - n, k]``.

    Parameters
    ----------
    h_coeffs : exact monomial coefficients of ``h_k`` (lowest degree first).
    k : int -- the decision-list length bound (``h_k`` is evaluated on ``0..k``).
    max_len : int, optional -- largest ``n`` (default ``k``; ``min(k, m)`` for ``m`` variables).

    Returns
    -------
    ``{(n, q): {(a, b): c}}`` for ``0 <= n <= max_len``, ``0 <= q <= n``, ``a <= n - q``,
    ``b <= q`` (exact fmpq, zeros included).

    Guarantee
    ---------
    Exact.  Tested against :meth:`DecisionListPolynomial.multilinear` (Moebius by
    evaluation), tests/test_tuv_dlist.py.
    """
    k = check_int(k, "k", minimum=1)
    L = k if max_len is None else check_int(max_len, "max_len", minimum=0, maximum=k)
    hc = [check_rational(c, f"h_coeffs[{i}]") for i, c in enumerate(h_coeffs)]
    hv = _h_values(hc, k)
    # c_{n,q}(a, b) = sum_{a', b'} (-1)^{a-a'+b-b'} C(a,a') C(b,b') h(base + a' - b')
    #              = (-1)^b (Delta^{a+b} h)(base - b),  base = k - n + q
    # (the a'-sum is Delta^a h(y) at y = base - b'; substituting j = b - b' turns the b'-sum
    # into (-1)^b Delta^b of that at base - b).  One forward-difference table of h on 0..k
    # (O(k^2)) replaces the O(L^6) double sums; arguments stay in [k - n, k].
    diff = [hv]
    for _ in range(k):
        prev = diff[-1]
        diff.append([prev[i + 1] - prev[i] for i in range(len(prev) - 1)])
    table: dict[tuple[int, int], dict[tuple[int, int], fmpq]] = {}
    for n in range(L + 1):
        for q in range(n + 1):
            base = k - n + q
            table[(n, q)] = {(a, b): (-diff[a + b][base - b] if b % 2 else diff[a + b][base - b])
                             for a in range(n - q + 1) for b in range(q + 1)}
    return table


def _term_l1(cell: dict[tuple[int, int], fmpq], n: int, q: int) -> fmpq:
    """``T(n, q)``: L1 norm (constant included) of one term's multilinear coefficients."""
    return sum((comb(n - q, a) * comb(q, b) * abs(c) for (a, b), c in cell.items()), fmpq(0))


def _reduced_list_terms(signs: tuple[int, ...]) -> list[tuple[int, list[tuple[int, bool]]]]:
    """Terms of the reduced list on variables ``0..L-1`` with literal signs ``signs``
    (``+1``/``-1``): ``[(n, [(variable, negative_indicator), ...]), ...]`` (L node terms,
    then the default term)."""
    L = len(signs)
    terms = []
    for i in range(L):
        ind = [(j, signs[j] > 0) for j in range(i)] + [(i, signs[i] < 0)]
        terms.append((i + 1, ind))
    terms.append((L, [(j, signs[j] > 0) for j in range(L)]))
    return terms


def _term_vector(table, n: int, ind: list[tuple[int, bool]], Q: int, L: int) -> list[int]:
    """Lattice coefficients (times ``Q``) of one term on all ``2^L`` subsets (bit masks)."""
    q = sum(1 for _, neg in ind if neg)
    cell = table[(n, q)]
    vec = [0] * (1 << L)
    vars_ = [v for v, _ in ind]
    negs = [neg for _, neg in ind]
    for sub in range(1 << len(ind)):
        mask, a, b = 0, 0, 0
        for t, v in enumerate(vars_):
            if sub >> t & 1:
                mask |= 1 << v
                if negs[t]:
                    b += 1
                else:
                    a += 1
        c = cell[(a, b)] * Q
        vec[mask] += int(c.p)
    return vec


def dlist_sensitivity(h_coeffs: Any, k: Any, m: Any) -> dict[str, Any]:
    """L1 sensitivity of ``sum_x p_x`` over decision-list rows (thaler2012 Thm 1.3, App. A).

    Rows are **reduced** decision lists of length ``<= k`` over ``m`` variables (distinct
    variables; :func:`dpverify.mechanisms.tuv_dlist.reduce_decision_list` maps every list to
    an equivalent reduced one before ``p_x`` is formed), so a list has ``L <= min(k, m)``
    nodes.  ``p_x`` is taken in the multilinear representation including the constant
    coefficient (which depends on the list, so it is noised).

    Exact route (``min(k, m) <= DLIST_ENUM_MAX_L``): with ``N_x`` the L1 norm of the
    non-constant coefficients and ``c_x`` the constant, for any pair
    ``||p_x - p_x'||_1 <= N_x + N_x' + |c_x - c_x'|``, whose maximum over pairs is
    ``max_x (N_x + c_x) + max_x (N_x - c_x)``.  Both maxima are invariant under relabelling
    variables, so they are computed exactly by enumerating every reduced list on variables
    ``0..L-1`` (``2^L`` sign patterns times ``2^(L+1)`` output bits, ``L <= min(k, m)``).
    If ``m >= 2 min(k, m)`` the two maximisers can be placed on disjoint variables, where
    the non-constant coefficients do not overlap and the bound is attained: then ``S1`` is
    the **exact** sensitivity.

    Term route (any ``k``): by the triangle inequality ``||p_x||_1 <= sum_{terms} T(n, q)``
    (:func:`dlist_term_coefficients`; ``T`` depends only on the number ``n`` of indicators
    and the number ``q`` of negative ones); maximised over sign patterns by a dynamic
    programme over the number of positive literals, ``S1 <= 2 max_L M_term(L)``.

    Returns
    -------
    dict with ``S1`` (used: exact route when available, else term route), ``S1_exact``
    (bool), ``S1_term_bound``, ``max_l1`` (``max_x ||p_x||_1`` when enumerated), ``T``
    (max ``|coef|`` of one ``p_x``, exact when enumerated, else the bound ``S1/2``),
    ``sizes`` (set sizes whose coefficient is not identically zero), ``degree`` (largest
    size), ``witness`` (pair of lists attaining the exact ``S1``, when exact).

    Guarantee
    ---------
    Exact rationals; ``S1`` is a rigorous upper bound on the L1 sensitivity of
    ``sum_x p_x`` (times ``n``: one row replaced), equal to it when ``S1_exact``.  Checked
    against all pairs of decision lists for small ``(k, m)`` (tests/test_tuv_dlist.py).
    """
    k = check_int(k, "k", minimum=1, maximum=64)
    m = check_int(m, "m", minimum=1)
    Lmax = min(k, m)
    hc = [check_rational(c, f"h_coeffs[{i}]") for i, c in enumerate(h_coeffs)]
    table = dlist_term_coefficients(hc, k, Lmax)
    # size classes: s is present iff some c_{n,q}(a,b) with a + b = s is non-zero (each
    # (n, q) is a term of some reduced list with every other bit 0, and relabelling moves
    # the set anywhere); otherwise every list has coefficient 0 on every s-set.
    sizes = sorted({a + b for cell in table.values() for (a, b), c in cell.items() if c != 0})
    T_l1 = {nq: _term_l1(cell, *nq) for nq, cell in table.items()}
    # term route: DP over p = number of '+' literals among the first i-1 nodes
    best_term = fmpq(0)
    for L in range(Lmax + 1):
        dp = {0: fmpq(0)}
        for i in range(1, L + 1):
            nd: dict[int, fmpq] = {}
            for p, v in dp.items():
                for plus in (True, False):  # '+' literal: q_i = p; '-': q_i = p + 1
                    qi = p if plus else p + 1
                    np_ = p + 1 if plus else p
                    val = v + T_l1[(i, qi)]
                    if np_ not in nd or val > nd[np_]:
                        nd[np_] = val
            dp = nd
        for p, v in dp.items():
            tot = v + T_l1[(L, p)]
            best_term = max(best_term, tot)
    out: dict[str, Any] = {
        "k": k,
        "m": m,
        "max_list_length": Lmax,
        "sizes": sizes,
        "degree": max(sizes) if sizes else 0,
        "S1_term_bound": 2 * best_term,
        "term_l1": {f"{n},{q}": fmpq_str(v) for (n, q), v in T_l1.items()},
    }
    if Lmax > DLIST_ENUM_MAX_L:
        out.update({"S1": 2 * best_term, "S1_exact": False, "route": "term bound",
                    "max_l1": None, "T": best_term, "T_exact": False, "witness": None})
        return out
    from itertools import product as iproduct

    Q = 1
    for cell in table.values():
        for c in cell.values():
            Q = Q * int(c.q) // gcd(Q, int(c.q))
    best_plus = best_minus = best_l1 = best_T = None
    arg_plus = arg_minus = None
    for L in range(Lmax + 1):
        for signs in iproduct((1, -1), repeat=L):
            vecs = [_term_vector(table, n, ind, Q, L) for n, ind in _reduced_list_terms(signs)]
            for bits in iproduct((0, 1), repeat=L + 1):
                tot = [0] * (1 << L)
                for bb, vec in zip(bits, vecs):
                    if bb:
                        tot = [x + y for x, y in zip(tot, vec)]
                c0 = tot[0]
                N = sum(abs(x) for x in tot[1:])
                lst = (tuple(s * (j + 1) for j, s in enumerate(signs)), bits)
                if best_plus is None or N + c0 > best_plus:
                    best_plus, arg_plus = N + c0, lst
                if best_minus is None or N - c0 > best_minus:
                    best_minus, arg_minus = N - c0, lst
                l1 = N + abs(c0)
                best_l1 = l1 if best_l1 is None else max(best_l1, l1)
                mx = max(abs(x) for x in tot)
                best_T = mx if best_T is None else max(best_T, mx)
    s1 = fmpq(best_plus + best_minus, Q)
    exact = m >= 2 * Lmax

    def lst_json(item):
        lits, bits = item
        return {"nodes": [[lit, b] for lit, b in zip(lits, bits[:-1])], "default": bits[-1]}

    out.update({
        "S1": s1,
        "S1_exact": exact,
        "route": "exact enumeration of reduced lists" + ("" if exact else
                                                         " (upper bound: m < 2 min(k, m))"),
        "max_l1": fmpq(best_l1, Q),
        "T": fmpq(best_T, Q),
        "T_exact": True,
        "witness": {"x": lst_json(arg_plus), "x_prime": lst_json(arg_minus),
                    "note": "place x' on variables disjoint from x (needs m >= 2L)"},
    })
    return out


def dlist_privacy(h_coeffs: Any, k: Any, m: Any, epsilon: Any, *, n: Any = None
                  ) -> dict[str, Any]:
    """Privacy certificate of the decision-list TUV release (pure epsilon, L1 Laplace).

    ``b = S1/(n epsilon)`` with ``S1`` from :func:`dlist_sensitivity`; also what the
    printed thaler2012 Theorem 3.1 box scale ``2T/(epsilon n)`` and Lemma 2.3's
    ``2TK/(epsilon n)`` (``K = C(m + t, t)``) would give, exact.

    Guarantee
    ---------
    Exact (fmpq): the achieved epsilon is ``S1/(n b) = epsilon`` (at most epsilon when
    ``S1`` is only an upper bound).  thaler2012 Lemma 2.3, Theorem 3.1.
    """
    eps = check_epsilon(epsilon)
    nn = None if n is None else check_int(n, "n", minimum=1)
    sens = dlist_sensitivity(h_coeffs, k, m)
    s1, T, t = sens["S1"], sens["T"], sens["degree"]
    K = sum(comb(sens["m"], s) for s in sens["sizes"])
    Kp = comb(sens["m"] + t, t)
    scale = s1 / eps
    out: dict[str, Any] = {
        "mechanism": "tuv-dlist",
        "neighbouring": "same n, one row (decision list) replaced",
        "epsilon_target": fmpq_str(eps),
        "delta_target": None,
        "sensitivity": {
            "l1_times_n": fmpq_str(s1),
            "l1_exact": sens["S1_exact"],
            "route": sens["route"],
            "l1_term_bound_times_n": fmpq_str(sens["S1_term_bound"]),
            "max_l1_one_list": None if sens["max_l1"] is None else fmpq_str(sens["max_l1"]),
            "T_paper_norm": fmpq_str(T),
            "T_exact": sens["T_exact"],
            "sizes": sens["sizes"],
            "n_coordinates": str(K),
            "n_coordinates_paper": str(Kp),
            "witness": sens["witness"],
        },
        "route": "L1 Laplace (Lemma 2.3 with the L1 sensitivity)",
        "scale_times_n": fmpq_str(scale),
        "achieved": laplace_privacy(s1, scale),
        "paper": {
            "theorem_3_1_box_scale_times_n": fmpq_str(2 * T / eps),
            "theorem_3_1_box_epsilon": fmpq_str(s1 / (2 * T)),
            "theorem_3_1_box_epsilon_decimal": _dec(s1 / (2 * T)),
            "box_is_epsilon_dp": bool(s1 / (2 * T) <= eps) if sens["S1_exact"] else None,
            "lemma_2_3_scale_times_n": fmpq_str(2 * T * Kp / eps),
            "lemma_2_3_epsilon": fmpq_str(s1 / (2 * T * Kp)),
        },
    }
    if nn is not None:
        out["n"] = nn
        out["sensitivity"]["l1"] = fmpq_str(s1 / nn)
        out["scale"] = fmpq_str(scale / nn)
    return out
