"""Decision-list databases (thaler2012 Theorem 1.3, Appendix A): exact term coefficients,
L1 sensitivity over reduced decision lists, and the privacy record (derivations in the
docstrings and ``docs/tuv.md``)."""

from __future__ import annotations

from itertools import product as iproduct
from math import comb, gcd
from typing import Any

from flint import fmpq

from ...errors import InvalidParameterError
from ...noise import check_epsilon
from ...numbers import ExactLike, IntLike, check_int, check_rational, fmpq_str
from .laplace import laplace_privacy
from .records import PrivacyReport, decimal_up, frozen_json

__all__ = ["dlist_term_coefficients", "dlist_sensitivity", "dlist_privacy", "DLIST_ENUM_MAX_L"]

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
    h_coeffs: Any, k: IntLike, max_len: Any = None
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


def dlist_sensitivity(h_coeffs: Any, k: IntLike, m: IntLike) -> dict[str, Any]:
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

    Q = 1
    for cell in table.values():
        for c in cell.values():
            Q = Q * int(c.q) // gcd(Q, int(c.q))
    best_plus: int | None = None
    best_minus: int | None = None
    best_l1: int | None = None
    best_T: int | None = None
    arg_plus: tuple | None = None
    arg_minus: tuple | None = None
    for L in range(Lmax + 1):
        for signs in iproduct((1, -1), repeat=L):
            vecs = [_term_vector(table, n, ind, Q, L) for n, ind in _reduced_list_terms(signs)]
            for bits in iproduct((0, 1), repeat=L + 1):
                acc = [0] * (1 << L)
                for bb, vec in zip(bits, vecs):
                    if bb:
                        acc = [x + y for x, y in zip(acc, vec)]
                c0 = acc[0]
                N = sum(abs(x) for x in acc[1:])
                lst = (tuple(s * (j + 1) for j, s in enumerate(signs)), bits)
                if best_plus is None or N + c0 > best_plus:
                    best_plus, arg_plus = N + c0, lst
                if best_minus is None or N - c0 > best_minus:
                    best_minus, arg_minus = N - c0, lst
                l1 = N + abs(c0)
                best_l1 = l1 if best_l1 is None else max(best_l1, l1)
                mx = max(abs(x) for x in acc)
                best_T = mx if best_T is None else max(best_T, mx)
    # L = 0 always enumerates the empty list, so every maximum below exists
    assert best_plus is not None and best_minus is not None
    assert best_l1 is not None and best_T is not None
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


def dlist_privacy(h_coeffs: Any, k: IntLike, m: IntLike, epsilon: ExactLike, *,
                  n: IntLike | None = None, neighbours: str = "replace",
                  ) -> PrivacyReport:
    """Privacy certificate of the decision-list TUV release (pure epsilon, L1 Laplace).

    ``b = S1/(n epsilon)`` with ``S1`` from :func:`dlist_sensitivity`; also what the
    printed thaler2012 Theorem 3.1 box scale ``2T/(epsilon n)`` and Lemma 2.3's
    ``2TK/(epsilon n)`` (``K = C(m + t, t)``) would give, exact.

    ``neighbours="add-remove"`` (``n`` private): the released vector is ``sum_x p_x`` (not
    divided by ``n``, constants included) plus a count coordinate ``T n``; one list added
    or removed moves the first by ``||p_x||_1 <= max_x ||p_x||_1`` (exact when the lists
    are enumerated, else the term bound ``S1_term_bound / 2``) and the count by ``T``:
    ``S1 = max ||p_x||_1 + T`` (the ``*_times_n`` fields then hold these values).

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
    head: dict[str, Any] = {}
    if neighbours == "add-remove":
        nn = None  # n is not public
        one = sens["max_l1"] if sens["max_l1"] is not None else sens["S1_term_bound"] / 2
        s1 = one + T
        head["count_weight"] = fmpq_str(T)
    elif neighbours != "replace":
        raise InvalidParameterError(f"neighbours must be replace or add-remove, got "
                                    f"{neighbours!r}")
    scale = s1 / eps
    return PrivacyReport(
        mechanism="tuv-dlist",
        neighbouring="same n, one row (decision list) replaced" if neighbours == "replace"
        else "one decision list added or removed (n private)",
        head=head,
        epsilon_target=eps,
        delta_target=None,
        sensitivity=frozen_json({
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
        }),
        route="L1 Laplace (Lemma 2.3 with the L1 sensitivity)",
        scale_times_n=scale,
        achieved=laplace_privacy(s1, scale),
        tail=frozen_json({"paper": {
            "note": "the paper's scales are for replace-one neighbours; not compared"}
            if neighbours == "add-remove" else {
            "theorem_3_1_box_scale_times_n": fmpq_str(2 * T / eps),
            "theorem_3_1_box_epsilon": fmpq_str(s1 / (2 * T)),
            "theorem_3_1_box_epsilon_decimal": decimal_up(s1 / (2 * T)),
            "box_is_epsilon_dp": bool(s1 / (2 * T) <= eps) if sens["S1_exact"] else None,
            "lemma_2_3_scale_times_n": fmpq_str(2 * T * Kp / eps),
            "lemma_2_3_epsilon": fmpq_str(s1 / (2 * T * Kp)),
        }}),
        n=nn,
    )
