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

Guarantee
---------
Sensitivities, scales and pure epsilons are exact rationals; anything with ``ln``, ``sqrt``
or ``exp`` is an ``arb`` enclosure and is reported as a decimal string rounded **up** (an
upper bound on the privacy loss) next to the exact rational upper endpoint.
"""

from __future__ import annotations

from math import comb
from typing import Any

from flint import arb, fmpq

from ..errors import CertificationFailed, InvalidParameterError
from ..numbers import (
    arb_to_fmpq_bounds,
    check_int,
    check_open_unit,
    check_rational,
    fmpq_str,
    fmpq_to_decimal,
)

__all__ = [
    "laplace_privacy",
    "laplace_scale",
    "laplace_advanced_composition",
    "gaussian_privacy",
    "gaussian_sigma2",
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


def _up(x: arb) -> fmpq:
    return arb_to_fmpq_bounds(x)[1]


def _dec(q: fmpq) -> str:
    return fmpq_to_decimal(q, 10, rounding="up")


def laplace_scale(sensitivity_l1: Any, epsilon: Any) -> fmpq:
    """Scale ``b = S/epsilon`` (exact) giving ``epsilon``-DP for L1 sensitivity ``S``."""
    s = check_rational(sensitivity_l1, "sensitivity_l1", 0, None)
    e = check_rational(epsilon, "epsilon", 0, None, low_open=True)
    return s / e


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
    """
    dl = check_rational(sensitivity_linf, "sensitivity_linf", 0, None)
    b = check_rational(scale, "scale", 0, None, low_open=True)
    K = check_int(n_coordinates, "n_coordinates", minimum=1)
    de = check_open_unit(delta, "delta")
    e0 = dl / b
    a0 = arb(e0)
    eps = (2 * arb(K) * (-arb(de).log())).sqrt() * a0 + K * a0 * (a0.exp() - 1)
    hi = _up(eps)
    return {
        "noise": "Laplace, per-coordinate (L-infinity sensitivity)",
        "sensitivity_linf": fmpq_str(dl),
        "scale": fmpq_str(b),
        "n_coordinates": K,
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
        de = check_open_unit(delta, "delta")
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
    e = check_rational(epsilon, "epsilon", 0, None, low_open=True)
    de = check_open_unit(delta, "delta")
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


def _row_l1(cs: list[fmpq], a: list[fmpq], representation: str, w: int) -> fmpq:
    """``N(w)``: L1 norm of the non-constant coefficients of ``p_x`` for ``|x| = w``."""
    t = len(cs) - 1
    if representation == "full":
        # sum over alpha in N^w, |alpha| = i, of i!/prod alpha_j! is w^i (multinomial thm)
        return sum((abs(cs[i]) * fmpq(w) ** i for i in range(1, t + 1)), fmpq(0))
    return sum((comb(w, s) * abs(a[s]) for s in range(1, min(t, w) + 1)), fmpq(0))


def _multilinear(cs: list[fmpq]) -> list[fmpq]:
    """``a_s = sum_i c_i s! S2(i, s)`` via ``a_s = sum_j (-1)^(s-j) C(s, j) g(j)``
    (inclusion-exclusion on the values of ``g`` at ``0..s``; independent of the Stirling
    route in :mod:`dpverify.constructions.multivariate_norm`)."""
    t = len(cs) - 1

    def g(x: int) -> fmpq:
        acc = fmpq(0)
        for c in reversed(cs):
            acc = acc * x + c
        return acc

    vals = [g(j) for j in range(t + 1)]
    return [sum(((-1) ** (s - j) * comb(s, j) * vals[j] for j in range(s + 1)), fmpq(0))
            for s in range(t + 1)]


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
    universe: str = "monotone",
) -> dict[str, Any]:
    """Exact sensitivities of ``sum_x p_x`` for ``p_x(y) = g(sum_j y_j x_j)`` (thaler2012 §3).

    Parameters
    ----------
    coeffs : exact monomial coefficients of ``g`` (lowest degree first).
    d : int -- attributes; the polynomial lives on ``m = d`` (monotone) or ``m = 2d``
        (doubled universe ``x' = (x, 1 - x)``) variables.
    k : int -- largest query size (for the number of coefficients a query reads).
    representation : {"full", "multilinear"};  universe : {"monotone", "doubled"}.

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
    ``2 N(d)`` (``W cap W' = {}`` when every attribute flips).
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
    a = _multilinear(cs)
    N = [_row_l1(cs, a, representation, w) for w in range(d + 1)] if d <= _EXACT_SENS_MAX_D \
        else None
    exact = True
    if universe == "doubled":
        s1 = 2 * _row_l1(cs, a, representation, d)
    elif N is None:
        s1, exact = 2 * _row_l1(cs, a, representation, d), False
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
        sinf = max((abs(a[s]) for s in range(1, min(t, d) + 1)), default=fmpq(0))
        T = max([abs(a[0]), sinf])
        K = sum(n_sets(s) for s in range(1, min(t, d) + 1) if a[s] != 0)
        K_read = sum(comb(k, s) for s in range(1, min(t, k) + 1) if a[s] != 0)
    else:
        sinf = max((abs(cs[i]) * _max_multinomial(i, d) for i in range(1, t + 1)),
                   default=fmpq(0))
        T = max([abs(cs[0]), sinf])
        # monomials of degree i whose support is an allowed set of size s: C(i-1, s-1) each
        K = sum(n_sets(s) * comb(i - 1, s - 1) for i in range(1, t + 1) if cs[i] != 0
                for s in range(1, min(i, d) + 1))
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
    }


def tuv_privacy(
    coeffs: Any, d: Any, k: Any, epsilon: Any, *, n: Any = None, delta: Any = None,
    representation: str = "multilinear", universe: str = "monotone",
) -> dict[str, Any]:
    """Privacy certificate of the TUV release (thaler2012 Thm 3.1 / 3.2).

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
    eps = check_rational(epsilon, "epsilon", 0, None, low_open=True)
    nn = None if n is None else check_int(n, "n", minimum=1)
    de = None if delta is None else check_open_unit(delta, "delta")
    sens = tuv_sensitivity(coeffs, d, k, representation, universe)
    s1, sinf, T, K = sens["S1"], sens["Sinf"], sens["T"], sens["n_coordinates"]
    Kp = sens["n_coordinates_paper"]
    l1_scale = s1 / eps
    chosen = {"route": "L1 Laplace (Lemma 2.3 with the exact L1 sensitivity)",
              "scale_times_n": l1_scale}
    achieved = laplace_privacy(s1, l1_scale) if s1 != 0 else None
    lemma24 = None
    if de is not None and sinf != 0:
        b24 = _up(3 * arb(sinf) * (arb(K) * (-arb(de).log())).sqrt() / arb(eps))
        ac = laplace_advanced_composition(sinf, b24, K, de)
        lemma24 = {"scale_times_n": fmpq_str(b24), "advanced_composition": ac,
                   "certifies_epsilon": bool(_frac(ac["epsilon"]) <= eps)}
        if lemma24["certifies_epsilon"] and b24 < l1_scale:
            chosen = {"route": "Lemma 2.4 scale, certified by advanced composition",
                      "scale_times_n": b24}
            achieved = ac
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
    p, _, q = s.partition("/")
    return fmpq(int(p), int(q or 1))
