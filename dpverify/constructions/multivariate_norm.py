"""Exact coefficient norms of ``p_x(y) = g(sum_j y_j x_j)`` over ``y in {0,1}^d``.

thaler2012 Section 2.3 defines the **norm** ``T`` of an m-variate polynomial written in
monomials ``prod_l y_l^{j_l}`` of total degree ``<= t`` as the largest absolute coefficient
(``|c_{j_1..j_m}| <= T``: an L-infinity norm of the coefficient vector ``p in
[-T, T]^{C(m+t, t)}``), and Theorem 3.1 calibrates its noise with that ``T``.  We report
that ``T`` (keys ``T_full``, ``T_multilinear``) and, because the L1 norm of the vector is
what an L1-calibrated Laplace mechanism needs, also the L1 norms (``L1_full``,
``L1_multilinear``).

Only the ``w = |x|`` variables with ``x_j = 1`` occur; write ``s = sum_{j in W} y_j`` and
``g(s) = sum_i c_i s^i``.

* **Full expansion** (the paper's representation, monomials ``y^alpha``): the monomials of
  ``s^i`` have total degree ``i`` (so different ``i`` never collide) and coefficient
  ``multinomial(i; alpha)``; hence the coefficient of ``y^alpha`` (``|alpha| = i``,
  support in ``W``) is ``c_i * i!/prod_j alpha_j!``.  ``T_full = max_i |c_i| M(i, w)`` with
  ``M(i, w)`` the largest multinomial coefficient of ``i`` into ``w`` parts (parts as equal
  as possible), and ``L1_full = sum_i |c_i| w^i`` (multinomial theorem at ``y = 1``).
* **Multilinear** (``y_j^2 = y_j``, exact on ``{0,1}^d``): the coefficient of ``prod_{j in S}
  y_j`` for ``S subseteq W``, ``|S| = s``, is ``a_s = sum_i c_i s! S2(i, s)`` (``s! S2(i, s)``
  counts the surjections of ``i`` factors onto ``S``); ``T_multilinear = max_s |a_s|``,
  ``L1_multilinear = sum_s C(w, s) |a_s|``.

Both are O(t^2) big-integer work for any ``d`` and ``w`` -- no monomial is enumerated.

**Row weight.** Every coefficient for weight ``w`` is also a coefficient for any ``w' > w``
(the monomials supported in a subset of ``W'``), so all four norms are non-decreasing in
``w``; the worst case over rows ``x in {0,1}^d`` is ``w = d``, the default.

**The paper's coefficient claim (Lemma 4.3 proof)**: "every coefficient in [the expansion of
``(sum_j y_j x_j)^i``] is a non-negative integer ``<= k^i``", hence ``T <= max_i k^i |c_i|``.
False for the full expansion once ``i! > k^i`` and ``w >= i`` (the coefficient of
``y_1 ... y_i`` is ``i!``); see docs/tuv.md for exact counterexamples.  True for the
multilinear form restricted to sets of size ``<= k`` (``s! S2(i, s) <= s^i``), which is all
that matters on the query set ``Y_k = {|y| <= k}``.
"""

from __future__ import annotations

from math import comb, factorial
from typing import TYPE_CHECKING, Any

from flint import fmpq

from ..errors import InvalidParameterError, ParameterTypeError
from ..numbers import check_int, fmpq_str, log2_fmpq

if TYPE_CHECKING:  # annotations only (the checks below are duck-typed)
    from ..approximation import Approximation
    from ..exact import ExactPoly

__all__ = [
    "MAX_D",
    "max_multinomial",
    "stirling2_row_sums",
    "multilinear_coefficients",
    "norm_profile",
    "monomial_coefficients",
    "multilinear_from_monomial",
    "multivariate_norms",
    "paper_coefficient_bound",
]

#: Largest dimension accepted (formulas are polynomial in log d, but keep sizes sane).
MAX_D = 10**9


def monomial_coefficients(poly: ExactPoly | Approximation) -> list[fmpq]:
    """Monomial coefficients of a univariate exact polynomial (or Approximation), trailing
    zeros dropped (exact)."""
    p = getattr(poly, "poly", poly)  # accept an Approximation
    if not hasattr(p, "to_monomial"):
        raise ParameterTypeError(f"poly must be an exact polynomial, got {type(p).__name__}")
    if getattr(p, "basis", None) == "tensor" or not hasattr(p, "coeffs"):
        raise ParameterTypeError("poly must be univariate")
    cs = list(p.to_monomial().coeffs)
    while len(cs) > 1 and cs[-1] == 0:
        cs.pop()
    return cs


def max_multinomial(i: int, w: int) -> int:
    """Largest multinomial coefficient ``i!/prod alpha_j!`` over ``alpha`` in ``N^w``,
    ``|alpha| = i`` (parts as equal as possible); ``0`` if ``w = 0 < i``, ``1`` if ``i = 0``."""
    if i == 0:
        return 1
    if w == 0:
        return 0
    q, rem = divmod(i, w)
    den = factorial(q) ** (w - rem) * factorial(q + 1) ** rem if q else 1
    return factorial(i) // den


def stirling2_row_sums(cs: list[fmpq]) -> list[fmpq]:
    """``b_s = sum_i c_i S2(i, s)`` for ``s = 0..t`` (rows of S2 built by the recurrence
    ``S2(n, s) = s S2(n-1, s) + S2(n-1, s-1)``; O(t^2), O(t) memory)."""
    t = len(cs) - 1
    row = [1] + [0] * t  # S2(0, .)
    out = [fmpq(0)] * (t + 1)
    for i in range(t + 1):
        if i > 0:
            new = [0] * (t + 1)
            for s in range(1, i + 1):
                new[s] = s * row[s] + row[s - 1]
            row = new
        if cs[i] != 0:
            for s in range(i + 1):
                if row[s]:
                    out[s] += cs[i] * row[s]
    return out


def multilinear_coefficients(poly: ExactPoly | Approximation) -> list[fmpq]:
    """``a_s = sum_i c_i s! S2(i, s)``: the multilinear coefficient of any set of size ``s``
    in ``g(sum_{j in W} y_j)`` (exact)."""
    return multilinear_from_monomial(monomial_coefficients(poly))


def multilinear_from_monomial(cs: list[fmpq]) -> list[fmpq]:
    """``a_s = s! sum_i c_i S2(i, s)`` from monomial coefficients ``c_i`` (exact)."""
    b = stirling2_row_sums(cs)
    return [b[s] * factorial(s) for s in range(len(b))]


def norm_profile(poly: ExactPoly | Approximation, w: int) -> dict[str, fmpq]:
    """Exact ``T`` (max |coef|) and L1 of both representations for row weight ``w``, with and
    without the constant term (``*_nc``: the constant cancels between neighbouring rows)."""
    w = check_int(w, "row_weight", minimum=0, maximum=MAX_D)
    cs = monomial_coefficients(poly)
    t = len(cs) - 1
    c0 = abs(cs[0])
    tf_nc = fmpq(0)
    l1f_nc = fmpq(0)
    for i in range(1, t + 1):
        if cs[i] != 0 and w > 0:
            tf_nc = max(tf_nc, abs(cs[i]) * max_multinomial(i, w))
            l1f_nc += abs(cs[i]) * fmpq(w) ** i
    a = multilinear_from_monomial(cs)
    tm_nc = fmpq(0)
    l1m_nc = fmpq(0)
    for s in range(1, min(t, w) + 1):
        tm_nc = max(tm_nc, abs(a[s]))
        l1m_nc += comb(w, s) * abs(a[s])
    return {
        "T_full": max(c0, tf_nc),
        "T_full_nc": tf_nc,
        "L1_full": c0 + l1f_nc,
        "L1_full_nc": l1f_nc,
        "T_multilinear": max(abs(a[0]), tm_nc),
        "T_multilinear_nc": tm_nc,
        "L1_multilinear": abs(a[0]) + l1m_nc,
        "L1_multilinear_nc": l1m_nc,
    }


def _n_coefficients(d: int, t: int) -> tuple[int, int]:
    """Vector lengths: full ``C(d+t, t)`` (all monomials of degree <= t, the paper) and
    multilinear ``sum_{s <= t} C(d, s)``."""
    return comb(d + t, t), sum(comb(d, s) for s in range(0, min(t, d) + 1))


def multivariate_norms(
    poly: ExactPoly | Approximation, d: int, row_weight: int | None = None
) -> dict[str, Any]:
    """Exact norms of ``p_x(y) = g(sum_j y_j x_j)`` over ``y in {0,1}^d`` (thaler2012 §2.3,
    Lemma 4.3).

    Parameters
    ----------
    poly : exact univariate polynomial (or an Approximation): ``g`` in the count.
    d : int >= 1, number of variables ``y_1..y_d``.
    row_weight : int in ``0..d``, optional
        ``w = |x|``; default ``d``, the worst case (norms are non-decreasing in ``w``).

    Returns
    -------
    dict
        JSON-able: ``d``, ``row_weight``, ``degree``, ``T_full``, ``T_multilinear`` (paper's
        T: max |coefficient|, exact ``"p/q"``), ``L1_full``, ``L1_multilinear``, their
        ``*_log2`` (display), ``n_coefficients_full`` = C(d+t, t),
        ``n_coefficients_multilinear`` = sum_{s<=t} C(d, s) (decimal strings).

    Guarantee
    ---------
    Exact (fmpq / int) closed forms (module docstring); verified against brute-force
    expansion in tests/test_multivariate_norm.py.
    """
    d = check_int(d, "d", minimum=1, maximum=MAX_D)
    w = d if row_weight is None else check_int(row_weight, "row_weight", minimum=0, maximum=d)
    cs = monomial_coefficients(poly)
    t = len(cs) - 1
    if t > 100_000:
        raise InvalidParameterError(f"degree {t} too large for the O(t^2) norm computation")
    prof = norm_profile(poly, w)
    nf, nm = _n_coefficients(d, t)
    out: dict[str, Any] = {"d": d, "row_weight": w, "degree": t}
    for key in ("T_full", "T_multilinear", "L1_full", "L1_multilinear"):
        out[key] = fmpq_str(prof[key])
        out[key + "_log2"] = round(log2_fmpq(prof[key]), 4) if prof[key] != 0 else None
    out["n_coefficients_full"] = str(nf)
    out["n_coefficients_multilinear"] = str(nm)
    return out


def paper_coefficient_bound(poly: ExactPoly | Approximation, k: int) -> dict[str, Any]:
    """The bound of thaler2012 Lemma 4.3's proof, ``max_i k^i |c_i|``, against the exact
    ``T_full`` for the worst row (``w >= degree``): returns both and whether the bound holds."""
    k = check_int(k, "k", minimum=1)
    cs = monomial_coefficients(poly)
    t = len(cs) - 1
    bound = max(abs(c) * fmpq(k) ** i for i, c in enumerate(cs))
    actual = norm_profile(poly, max(t, 1))["T_full"]
    return {"k": k, "degree": t, "paper_bound": fmpq_str(bound), "T_full": fmpq_str(actual),
            "holds": bool(actual <= bound)}
