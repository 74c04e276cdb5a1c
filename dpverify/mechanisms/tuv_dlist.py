"""TUV release for decision-list databases (thaler2012 Theorem 1.3, Section 4.3, Appendix A).

Rows are decision lists ``x`` of length ``<= k`` over ``m`` variables (single-literal nodes,
thaler2012 Section 4.3 and Definition 4.8); a query is ``y in {0,1}^m`` and asks for
``q_y(D) = (1/n) #{x in D : x(y) = 1}``.  The sanitizer releases
``p_D = (1/n) sum_x p_x + Z`` where ``p_x`` is the Appendix A polynomial of the list
(:func:`dpverify.constructions.decision_lists.decision_list_polynomial`:
``p_x(y) = sum_i b_i h_k(arg_i(y))``), in the **multilinear** representation in ``y``
(``y_j^2 = y_j``, exact on ``{0,1}^m``).  The evaluator answers ``q_y`` by ``p_D(y)``.

**Reduced lists.**  Before ``p_x`` is formed every row is mapped to the equivalent *reduced*
list (:func:`reduce_decision_list`: a node whose variable already occurred is either never
taken -- same literal -- or always taken -- opposite literal, so the list ends there).  The
reduced list computes the same function on ``{0,1}^m``, uses distinct variables, and has
``L <= min(k, m)`` nodes.  The map is applied row by row, so privacy is accounted over
reduced lists.

**Coordinates** (data-independent).  A term with ``n`` indicators (``q`` negative) has the
multilinear coefficient ``c_{n,q}(a, b)`` on a set with ``a`` positive and ``b`` negative
indicator variables (:func:`dpverify.mechanisms.privacy.dlist_term_coefficients`) and 0 on
other sets.  The **rule**: the coordinates are all sets ``S`` of variables (the empty set
included: the constant ``p_x(0)`` depends on the list, so it is noised) whose size ``s``
belongs to ``sizes = {a + b : c_{n,q}(a, b) != 0 for some n <= min(k, m), q <= n}``.  Every
such size is reached by some list on every ``s``-set (the list whose only output bit 1 is on
that term, relabelled), and a size outside ``sizes`` has coefficient 0 for every list.
Hence ``s <= min(k, m, deg h_k)``.  Every coordinate is noised even if this database gives it
0.

**Exact lattice** (as :mod:`dpverify.mechanisms.tuv`): with ``Q`` the lcm of the
denominators of the ``c_{n,q}(a, b)``, ``V = Q sum_x p_x`` is an integer vector with
integer L1 sensitivity ``Q S1``; the release is ``(V + Z)/(nQ)``, ``Z`` discrete Laplace of
scale ``Q S1/epsilon`` in lattice units (:mod:`dpverify.noise`).

**Polynomial error** (data-independent).  With ``e_n = max_{z in [k-n, k-1]} |h_k(z)|``
and exactly one term on (argument ``k``, ``h_k(k) = 1`` exactly), a list of length ``L``
errs by at most ``sum_{off terms with bit 1} e_{n_i} <= sum_{i<=L} e_i + e_L - e_1``
(drop the on term; ``e_n`` is non-decreasing in ``n`` so the least is ``e_1``).  The release
uses ``gamma_release = max_{L <= min(k, m)}`` of that (``<= gamma`` because each
``e_n <= gamma/k``).  (The per-list
:func:`~dpverify.certify.decision_lists.certify_per_term` drops the least term bound when
every bit is 1, the case where summing every term would exceed gamma: ``k = 3``,
``gamma = 1/100``, all bits 1 gives ``2/181 > 1/100`` summed, ``3/362`` exact.)

**Accuracy.**  With ``m_beta`` the least integer with ``K P[|Z| >= m_beta] <= beta``
(:func:`dpverify.mechanisms.tuv.noise_union_quantile`), with probability ``>= 1 - beta``
every noise coordinate is ``<= m_beta - 1`` lattice units; then every ``y`` of weight
``w = |y|`` is answered within ``gamma_release + K_read(w) (m_beta - 1)/(nQ)``, where
``K_read(w) = sum_{s in sizes} C(w, s)`` counts the sets ``S subset supp(y)`` the answer
reads (``K_read(m) = K`` for ``y = 1^m``).  Simultaneously for all ``y``.

Input format (:func:`read_decision_lists`): CSV/text, one list per line,
``lit_1,bit_1,...,lit_L,bit_L,default`` with DIMACS literals (``+3``/``3`` is ``y_3``,
``-5`` is ``NOT y_5``, variables ``1..m``), ``#`` comments; or JSON
``{"m": M, "lists": [{"nodes": [["+3", 1], [-5, 0]], "default": 1}, ...]}``.

Guarantee
---------
``h_k`` is certified before use, else ``CertificationFailed``; ``gamma_release <= gamma`` is
checked exactly; the sensitivity is exact or a proven upper bound
(:func:`dpverify.mechanisms.privacy.dlist_sensitivity`); noise is integer-only; answers are
exact rationals; ``alpha(beta)`` is a rigorous upper bound.  ``neighbours="add-remove"``
noises a count coordinate with the coefficients (``dlist_privacy``).

Size: one mechanism -- the reader of decision lists, their reduction, the sanitizer (both
neighbouring relations) and the summary -- sharing the reduction rule and the coordinate
layout; a split would export private layout helpers across modules.
"""

from __future__ import annotations

import json
import os
from collections import Counter
from collections.abc import Sequence
from itertools import combinations
from math import comb, lcm
from typing import Any

from flint import fmpq

from ..certify import certify
from ..constructions.decision_lists import DecisionList, h_polynomial
from ..errors import CertificationFailed, InvalidParameterError, ParameterTypeError
from ..jsonfile import read_json
from ..noise import RandomSource, discrete_laplace_vector
from ..numbers import (
    ExactLike,
    IntLike,
    check_int,
    check_open_unit,
    check_rational,
    fmpq_str,
    fmpq_to_decimal,
    parse_fmpq_str,
)
from .data import (
    DEFAULT_MAX_BYTES,
    DataSizeError,
    DataValueError,
    csv_records,
    open_data_file,
)
from .data_csv import size_text
from .privacy import (
    check_epsilon,
    check_neighbours,
    dlist_privacy,
    dlist_term_coefficients,
    guarantee_block,
    json_int,
)
from .tuv import MAX_COORDINATES, noise_union_quantile

__all__ = [
    "DlistSummary",
    "reduce_decision_list",
    "read_decision_lists",
    "random_decision_lists",
    "dlist_release_polynomial",
    "dlist_privacy_report",
    "tuv_dlist_release",
]

MECHANISM = "tuv-dlist-release"


def reduce_decision_list(dlist: DecisionList) -> DecisionList:
    """The equivalent decision list with distinct variables (same function on ``{0,1}^m``).

    Walk the nodes; a node whose literal already occurred is never taken (the earlier
    identical literal was false) and is dropped; a node whose complement occurred is always
    taken (the complement was false, so this literal is true): its bit becomes the default
    and the list ends.

    Guarantee
    ---------
    Exact and data-independent (a function of the row only); checked against evaluation on
    all of ``{0,1}^m`` in tests/test_tuv_dlist.py.
    """
    if not isinstance(dlist, DecisionList):
        raise ParameterTypeError(f"dlist must be a DecisionList, got {type(dlist).__name__}")
    seen: dict[int, int] = {}
    nodes: list[tuple[int, int]] = []
    for lit, b in dlist.nodes:
        v, sgn = abs(lit), 1 if lit > 0 else -1
        if v in seen:
            if seen[v] == sgn:
                continue
            return DecisionList(tuple(nodes), b, dlist.m)
        seen[v] = sgn
        nodes.append((lit, b))
    return DecisionList(tuple(nodes), dlist.default, dlist.m)


def _parse_literal(text: Any, where: str) -> int:
    if isinstance(text, bool):
        raise DataValueError(f"{where}: a literal must be +j or -j", repr(text))
    if isinstance(text, int):
        return text
    s = str(text).strip()
    body = s[1:] if s[:1] in "+-" else s
    if not (body and all(c in "0123456789" for c in body)):
        raise DataValueError(f"{where}: a literal must be +j or -j (DIMACS)", s[:40])
    if len(body.lstrip("0")) > 7:  # |j| <= m <= 10^6 (and int() refuses > 4300 digits)
        raise DataValueError(f"{where}: the literal is out of range", s[:20])
    return -int(body) if s.startswith("-") else int(body)


def _parse_bit(text: Any, where: str) -> int:
    s = str(text).strip() if not isinstance(text, bool) else "bool"
    if s not in ("0", "1"):
        raise DataValueError(f"{where}: an output bit must be 0 or 1", repr(text)[:40])
    return int(s)


def _make_list(nodes: list, default: Any, m: int, k: int, where: str) -> DecisionList:
    if len(nodes) > k:
        raise InvalidParameterError(f"{where}: the list has {len(nodes)} nodes, more than "
                                    f"k = {k}")
    parsed = []
    for i, node in enumerate(nodes, start=1):
        lit = _parse_literal(node[0], f"{where} node {i}")
        if lit == 0 or abs(lit) > m:
            raise DataValueError(
                f"{where} node {i}: a literal must be +-j with 1 <= j <= m = {m}", str(lit))
        parsed.append((lit, _parse_bit(node[1], f"{where} node {i}")))
    return DecisionList(tuple(parsed), _parse_bit(default, f"{where} default"), m)


def read_decision_lists(path: str, m: IntLike, k: IntLike, *,
                        max_bytes: int = DEFAULT_MAX_BYTES) -> list[DecisionList]:
    """Read decision lists from ``path`` (JSON if it ends in ``.json``, else CSV/text).

    CSV: one list per line, ``lit_1,bit_1,...,lit_L,bit_L,default`` (an odd number of
    fields; ``1`` alone is the constant list), DIMACS literals ``+3``/``3``/``-5``; blank lines
    and lines starting with ``#`` are skipped, and a first row without any number is a
    header (:mod:`dpverify.mechanisms.data`).  JSON: ``{"m": M, "lists": [...]}`` or a bare
    list; each list ``{"nodes": [[lit, bit], ...], "default": b}``.  Errors name the file and
    the line (CSV) or list index (JSON) and the rule, never the offending field
    (:class:`~dpverify.mechanisms.data.DataValueError` keeps it in ``value``).  Only a
    regular file is read.  Size cap: CSV, at most ``max_bytes / (8 (2k + 1))`` lists (a
    list has at most ``2k + 1`` fields of 8 bytes decoded: a cap in rows, whatever the
    text); JSON, whose parser needs the whole text, at most ``max_bytes`` bytes of text
    (that refusal depends on how the lists are written: it is outside the privacy
    guarantee, which the release's record says).
    """
    m = check_int(m, "m", minimum=1, maximum=10**6)
    k = check_int(k, "k", minimum=1, maximum=64)
    out: list[DecisionList] = []
    try:
        if path.endswith(".json"):
            # the JSON reader needs the whole text: a regular file under the cap only
            open_data_file(path).close()
            if os.stat(path).st_size > max_bytes:
                raise DataSizeError(f"{path!r} is larger than the size cap of "
                                    f"{size_text(max_bytes)}")
            obj = read_json(path, "decision lists")
            if isinstance(obj, dict):
                if "m" in obj and obj["m"] != m:
                    raise InvalidParameterError(
                        f"{path!r} declares m = {obj['m']!r}, but m is {m}")
                obj = obj.get("lists")
            if not isinstance(obj, list):
                raise InvalidParameterError(f"{path!r}: expected a list of lists")
            for i, item in enumerate(obj):
                where = f"{path!r} list {i}"
                if not isinstance(item, dict) or not isinstance(item.get("nodes"), list) \
                        or "default" not in item:
                    raise InvalidParameterError(
                        f"{where}: expected {{\"nodes\": [[lit, bit], ...], \"default\": b}}")
                if any(not isinstance(nd, list) or len(nd) != 2 for nd in item["nodes"]):
                    raise InvalidParameterError(f"{where}: each node must be [lit, bit]")
                out.append(_make_list(item["nodes"], item["default"], m, k, where))
        else:
            for ln, cells in csv_records(path, comments=True,
                                         max_rows=max_bytes // (8 * (2 * k + 1))):
                where = f"{path!r} line {ln}"
                if len(cells) % 2 == 0:
                    raise DataValueError(
                        f"{where}: expected lit,bit,...,lit,bit,default (an odd number "
                        f"of fields), got {len(cells)}")
                nodes = [(cells[2 * i], cells[2 * i + 1]) for i in range(len(cells) // 2)]
                out.append(_make_list(nodes, cells[-1], m, k, where))
    except OSError as exc:
        raise InvalidParameterError(f"cannot read {path!r}: {exc.strerror}") from None
    except UnicodeDecodeError:
        raise DataValueError(f"{path!r} is not a UTF-8 text file") from None
    except json.JSONDecodeError as exc:
        raise DataValueError(f"{path!r} is not JSON (line {exc.lineno} column "
                             f"{exc.colno}: {exc.msg})") from None
    if not out:
        raise InvalidParameterError(f"{path!r} has no decision lists")
    return out


def random_decision_lists(n: int, m: int, k: int, rng: Any) -> list[DecisionList]:
    """``n`` random reduced decision lists of length exactly ``min(k, m)`` (public synthetic
    data for tests and benchmarks; ``rng`` a numpy Generator -- no privacy role)."""
    L = min(k, m)
    out = []
    for _ in range(n):
        vars_ = rng.choice(m, size=L, replace=False) + 1
        signs = rng.integers(0, 2, size=L) * 2 - 1
        bits = rng.integers(0, 2, size=L + 1)
        nodes = tuple((int(v * s), int(b)) for v, s, b in zip(vars_, signs, bits[:-1]))
        out.append(DecisionList(nodes, int(bits[-1]), m))
    return out


def dlist_release_polynomial(k: IntLike, gamma: ExactLike, m: IntLike, method: str = "chebyshev"):
    """Certified ``h_k`` and the data-independent worst-case error of ``p_x`` over all
    decision lists of length ``<= min(k, m)``.

    Returns ``(h_coeffs, gamma_release, certificate)``.

    Guarantee
    ---------
    ``h_k`` certified (exact error on ``0..k`` ``<= gamma/k``) and ``h_k(k) = 1`` checked
    exactly; ``gamma_release`` (module docstring) is exact and ``<= gamma``, else
    ``CertificationFailed``.
    """
    k = check_int(k, "k", minimum=1, maximum=64)
    m = check_int(m, "m", minimum=1, maximum=10**6)
    g = check_open_unit(gamma, "gamma")
    approx = h_polynomial(k, g, method=method)
    cert = certify(approx)
    hc = list(approx.poly.to_monomial().coeffs)
    while len(hc) > 1 and hc[-1] == 0:
        hc.pop()

    def h(z: int) -> fmpq:
        acc = fmpq(0)
        for c in reversed(hc):
            acc = acc * z + c
        return acc

    if not cert.complete or h(k) != 1:
        raise CertificationFailed(f"h_k for k={k}, gamma={fmpq_str(g)} is not certified")
    Lmax = min(k, m)
    e = [fmpq(0)] + [max(abs(h(z)) for z in range(k - n, k)) for n in range(1, k + 1)]
    worst = fmpq(0)
    for L in range(1, Lmax + 1):
        worst = max(worst, sum(e[1:L + 1], fmpq(0)) + e[L] - e[1])
    if worst > g:
        raise CertificationFailed(f"decision-list error bound {fmpq_str(worst)} exceeds gamma")
    return hc, worst, cert


def dlist_privacy_report(m: IntLike, k: IntLike, gamma: ExactLike, epsilon: ExactLike,
                         n: IntLike | None = None) -> dict:
    """The privacy certificate of :func:`tuv_dlist_release` without data (``dpverify
    privacy dlist``): the certified ``h_k`` of :func:`dlist_release_polynomial` and the
    record of :func:`dpverify.mechanisms.privacy.dlist_privacy` (per-``n`` values when
    ``n`` is given), as JSON, with ``gamma_release`` (the exact worst-case error of the
    released polynomial over all lists of length ``<= min(k, m)``).

    Guarantee
    ---------
    As the two functions: ``h_k`` certified, sensitivity exact (or an exact upper bound,
    ``l1_exact: false``), epsilon exact.
    """
    eps = check_epsilon(epsilon)
    n = None if n is None else check_int(n, "n", minimum=1)
    hc, gamma_rel, cert = dlist_release_polynomial(k, gamma, m)
    res = dlist_privacy(hc, check_int(k, "k"), check_int(m, "m"), eps, n=n).to_json()
    res["gamma_release"] = fmpq_str(gamma_rel)
    # the certificate of h_k itself: `dpverify verify FILE --part polynomial` checks it
    res["parts"] = {"polynomial": cert.data}
    return res


class DlistSummary:
    """A released decision-list summary (exact noisy multilinear coefficients).

    ``data`` is the JSON dict; coefficients are integer numerators over the lattice
    denominator ``n Q``, keyed by the comma-separated sorted 1-based variables of ``S``
    (``""`` is the constant).  Build with :func:`tuv_dlist_release` or :meth:`from_json`.
    """

    def __init__(self, data: dict[str, Any]) -> None:
        if not isinstance(data, dict) or data.get("mechanism") != MECHANISM:
            raise InvalidParameterError(f"summary must be a dict produced by {MECHANISM}")
        self.data = data
        try:
            self.m = int(data["m"])
            self.k = int(data["k"])
            self.sizes = [int(s) for s in data["coordinate_sizes"]]
            self.denominator = parse_fmpq_str(str(data["lattice_denominator"]),
                                              "lattice_denominator")
            self.coefficients = {
                tuple(int(v) for v in key.split(",")) if key else (): int(val)
                for key, val in data["coefficients"].items()
            }
            acc = data["accuracy"]
            self._gamma = parse_fmpq_str(acc["gamma_release"], "gamma_release")
            unit = acc["noise_per_coordinate"]
            self._unit = None if unit is None else parse_fmpq_str(unit,
                                                                  "noise_per_coordinate")
            self._count_term = parse_fmpq_str(acc.get("count_term") or "0", "count_term")
            self._beta = acc["beta"]
        except (KeyError, ValueError, TypeError, AttributeError) as exc:
            raise InvalidParameterError(f"malformed summary: {exc}") from None

    def to_json(self) -> dict[str, Any]:
        return self.data

    @classmethod
    def from_json(cls, obj: dict[str, Any]) -> DlistSummary:
        return cls(obj)

    def _support(self, y: Any) -> list[int]:
        if isinstance(y, str):
            s = y.strip()
            if len(s) != self.m or any(c not in "01" for c in s):
                raise InvalidParameterError(
                    f"y must be a string of m = {self.m} characters 0/1, got {y!r}")
            return [j + 1 for j, c in enumerate(s) if c == "1"]
        try:
            ys = list(y)
        except TypeError:
            raise ParameterTypeError(f"y must be a 0/1 sequence, got {y!r}") from None
        if len(ys) != self.m:
            raise InvalidParameterError(f"y must have m = {self.m} bits, got {len(ys)}")
        for v in ys:
            if isinstance(v, bool) or v not in (0, 1):
                raise InvalidParameterError(f"y must contain only 0 and 1, got {v!r}")
        return [j + 1 for j, v in enumerate(ys) if v == 1]

    def answer(self, y: Any) -> fmpq:
        """``p_D(y)`` exactly: the sum of the noisy coefficients of the sets ``S subset
        supp(y)`` (post-processing only).  ``y``: a 0/1 sequence or string of length m."""
        sup = self._support(y)
        acc = 0
        for s in self.sizes:
            if s > len(sup):
                continue
            for S in combinations(sup, s):
                c = self.coefficients.get(S)
                if c is None:
                    raise InvalidParameterError(f"malformed summary: coordinate {S} missing")
                acc += c
        return fmpq(acc) / self.denominator

    def accuracy_for_weight(self, w: Any) -> dict[str, Any]:
        """Certified ``alpha`` for every query ``y`` with ``|y| <= w`` (same event of
        probability ``>= 1 - beta`` as the summary's report)."""
        w = check_int(w, "w", minimum=0, maximum=self.m)
        k_read = sum(comb(w, s) for s in self.sizes)
        if self._unit is None:
            raise InvalidParameterError("the noisy count of this add/remove summary is below "
                                        "1: no accuracy can be certified")
        alpha = self._gamma + k_read * self._unit + self._count_term
        return {"weight": w, "n_read": k_read, "alpha": fmpq_str(alpha),
                "alpha_decimal": fmpq_to_decimal(alpha, 8, rounding="up"), "beta": self._beta}


def tuv_dlist_release(
    dlists: Sequence[Any],
    m: IntLike,
    k: IntLike,
    gamma: ExactLike,
    epsilon: ExactLike,
    *,
    beta: ExactLike = "1/20",
    method: str = "chebyshev",
    insecure_seed: int | None = None,
    neighbours: str = "replace",
) -> DlistSummary:
    """Sanitizer of thaler2012 Theorem 1.3 (Theorem 3.1 + Lemma 4.9) on decision lists.

    Parameters
    ----------
    dlists : sequence of DecisionList or (nodes, default) pairs
        The private database: :class:`DecisionList` rows, each of length ``<= k`` over
        ``m`` variables.
    m : int
        Number of variables.
    k : int
        Largest list length.
    gamma : exact number in (0, 1)
    epsilon : exact number > 0
        Pure DP.
    beta : exact number in (0, 1)
        Failure probability of the accuracy report.
    method : {"chebyshev", "minimax"}
        Construction of ``g_k`` inside ``h_k``.
    insecure_seed : int, optional
        Reproducible, NOT private randomness (tests only).
    neighbours : {"replace", "add-remove"}
        ``"add-remove"``: ``n`` private; a count coordinate is noised with the
        coefficients (:func:`~dpverify.mechanisms.privacy.dlist_privacy`) and answers divide
        by the noisy count (post-processing).

    Returns
    -------
    DlistSummary
        ``.data`` holds the params, polynomial, privacy certificate
        (:func:`dpverify.mechanisms.privacy.dlist_privacy`), accuracy report, coefficients.

    Guarantee
    ---------
    See the module docstring.  Noise scale from the exact (or proven upper bound) L1
    sensitivity, never the printed box scale ``2T/(epsilon n)``.

    Examples
    --------
    Three decision lists over ``m = 2`` variables (literal ``+j`` is ``y_j``, ``-j`` is
    ``NOT y_j``).  With ``epsilon = 2^60`` (no privacy to speak of: the noise vanishes)
    every answer is within the certified ``alpha`` of the fraction of lists that output 1,
    evaluated here directly:

    >>> from flint import fmpq
    >>> from dpverify.constructions.decision_lists import DecisionList
    >>> from dpverify.numbers import parse_exact
    >>> lists = [(((1, 1),), 0),            # if y1 then 1 else 0
    ...          (((-2, 1),), 0),           # if not y2 then 1 else 0
    ...          (((1, 0), (2, 1)), 0)]     # if y1 then 0 elif y2 then 1 else 0
    >>> s = tuv_dlist_release(lists, 2, 2, "1/10", 2**60, insecure_seed=0)  # NOT private
    >>> alpha = parse_exact(s.data["accuracy"]["alpha"])
    >>> def truth(y):
    ...     return fmpq(sum(DecisionList(nodes, out, 2)(y) for nodes, out in lists), 3)
    >>> all(abs(s.answer(y) - truth(y)) <= alpha <= fmpq(1, 10)
    ...     for y in [(0, 0), (0, 1), (1, 0), (1, 1)])
    True
    """
    m = check_int(m, "m", minimum=1, maximum=10**6)
    k = check_int(k, "k", minimum=1, maximum=64)
    eps = check_epsilon(epsilon)
    beta_q = check_open_unit(beta, "beta")
    gamma_q = check_open_unit(gamma, "gamma")
    if isinstance(dlists, (str, bytes)) or not isinstance(dlists, Sequence):
        raise ParameterTypeError("dlists must be a sequence of decision lists")
    n = len(dlists)
    if n < 1:
        raise InvalidParameterError("dlists must contain at least one decision list")
    rows: list[DecisionList] = []
    for i, x in enumerate(dlists):
        if not isinstance(x, DecisionList):
            if not isinstance(x, (tuple, list)) or len(x) != 2:
                raise ParameterTypeError(
                    f"dlists[{i}] must be a DecisionList or a pair (nodes, default)")
            x = DecisionList(tuple(tuple(nd) for nd in x[0]), x[1], m)
        if x.m != m:
            raise InvalidParameterError(f"dlists[{i}] has m = {x.m}, expected {m}")
        if len(x.nodes) > k:
            raise InvalidParameterError(
                f"dlists[{i}] has {len(x.nodes)} nodes, more than k = {k}")
        rows.append(reduce_decision_list(x))

    nb = check_neighbours(neighbours)
    hc, gamma_rel, cert = dlist_release_polynomial(k, gamma_q, m, method)
    priv = dlist_privacy(hc, k, m, eps, n=n if nb == "replace" else None, neighbours=nb)
    sens = priv["sensitivity"]
    sizes = [int(s) for s in sens["sizes"]]
    K = int(sens["n_coordinates"])
    if K > MAX_COORDINATES:
        raise InvalidParameterError(
            f"the release has {K} coordinates (all sets of sizes {sizes} over m = {m} "
            f"variables; k = {k}, gamma = {fmpq_str(gamma_q)}), more than {MAX_COORDINATES}")
    Lmax = min(k, m)
    table = dlist_term_coefficients(hc, k, Lmax)
    Q = lcm(*[int(c.q) for cell in table.values() for c in cell.values()])
    itable = {nq: {ab: int((c * Q).p) for ab, c in cell.items()} for nq, cell in table.items()}

    # exact aggregation V[S] = Q sum_x coef_x(S), rows grouped by identical reduced list
    V: dict[tuple[int, ...], int] = {}
    for x, mult in Counter(rows).items():
        lits = [lit for lit, _ in x.nodes]
        bits = [b for _, b in x.nodes] + [x.default]
        L = len(lits)
        for i in range(L + 1):
            if not bits[i]:
                continue
            if i < L:  # node term i+1: complements of lits[:i], then lits[i]
                ind = [(abs(v), v > 0) for v in lits[:i]] + [(abs(lits[i]), lits[i] < 0)]
            else:  # default term
                ind = [(abs(v), v > 0) for v in lits]
            nn = len(ind)
            cell = itable[(nn, sum(1 for _, neg in ind if neg))]
            order = sorted(ind)
            for r in range(nn + 1):
                for sub in combinations(order, r):
                    b = sum(1 for _, neg in sub if neg)
                    c = cell[(r - b, b)]
                    if c:
                        S = tuple(v for v, _ in sub)
                        V[S] = V.get(S, 0) + mult * c

    scale_lattice = check_rational(priv["scale_times_n"], "scale") * Q
    src = RandomSource(insecure_seed)
    coeffs: dict[str, int] = {}
    for s in sizes:
        keys = list(combinations(range(1, m + 1), s))
        noise = discrete_laplace_vector(len(keys), scale_lattice, rng=src)
        for S, z in zip(keys, noise, strict=True):
            coeffs[",".join(map(str, S))] = V.pop(S, 0) + z
    if V:
        raise CertificationFailed(f"internal: {len(V)} aggregated sets outside the coordinates")
    if len(coeffs) != K:
        raise CertificationFailed(f"internal: {len(coeffs)} coordinates, expected {K}")

    count: fmpq | None = None
    count_term = fmpq(0)
    if nb == "replace":
        mb = noise_union_quantile(K, scale_lattice, beta_q)
        den = fmpq(n * Q)
        unit: fmpq | None = fmpq(mb - 1, n * Q)
    else:
        cw = parse_fmpq_str(priv["count_weight"], "count_weight") * Q
        if cw.q != 1 or cw <= 0:
            raise CertificationFailed("internal: the count weight is not a positive integer")
        count = (cw * n + discrete_laplace_vector(1, scale_lattice, rng=src)[0]) / cw
        mb = noise_union_quantile(K + 1, scale_lattice, beta_q)
        den = Q * max(count, fmpq(1))
        # |answer - p_D(y)| <= (K_read s/Q + (1 + gamma) s/cw)/count, every |Z| <= s
        unit = None if count < 1 else fmpq(mb - 1) / (Q * count)
        count_term = fmpq(0) if count < 1 else (1 + gamma_rel) * (mb - 1) / (cw * count)
    alpha = None if unit is None else gamma_rel + K * unit + count_term
    privacy = dict(priv)
    if nb == "add-remove":  # the noise scale of sum_x p_x (there is no 1/n)
        privacy["scale"] = fmpq_str(check_rational(priv["scale_times_n"], "scale"))
    privacy["secure_randomness"] = src.secure
    privacy["assumptions"] = []
    privacy["guarantee"] = guarantee_block(
        neighbours=nb, domain=f"decision lists of length <= {k} over {m} variables",
        epsilon=priv["achieved"]["epsilon"], delta="0", secure=src.secure,
        proven=[{"claim": f"L1 sensitivity {priv['sensitivity']['l1_times_n']}"
                          + (" / n" if nb == "replace" else ""),
                 "how": "dpverify.mechanisms.privacy.dlist_sensitivity (exact enumeration "
                        "of reduced lists, or the term bound)"}],
        outside=["a JSON decision-list file is capped in bytes of text before it is parsed "
                 "(--max-data-size): that refusal depends on how the lists are written; CSV "
                 "files are capped in rows"])
    privacy["noise"] = {
        "sampler": "discrete Laplace (Canonne-Kamath-Steinke 2020 Alg. 2), integer-only",
        "lattice_step": fmpq_str(1 / den),
        "scale_lattice_units": fmpq_str(scale_lattice),
        "integer_sensitivity_l1": fmpq_str(check_rational(sens["l1_times_n"], "S1") * Q),
        "rounding_inflation": "0 (exact lattice)",
        "secure_randomness": src.secure,
    }
    data: dict[str, Any] = {
        "mechanism": MECHANISM,
        "paper": "thaler2012 Theorem 1.3 (Theorem 3.1 + Lemma 4.9, Appendix A)",
        "n": n if nb == "replace" else None,
        "neighbours": nb,
        "m": m,
        "k": k,
        "representation": "multilinear",
        "polynomial": {
            "construction": "dlist/h (Appendix A)",
            "h_coefficients": [fmpq_str(c) for c in hc],
            "h_degree": len(hc) - 1,
            "degree": max(sizes),
            "gamma": fmpq_str(gamma_q),
            "h_error_exact": cert.error.get("upper"),
            "certified": cert.complete,
            "reduced_lists": "rows are reduced (distinct variables) before p_x is formed",
        },
        "coordinate_sizes": sizes,
        "privacy": privacy,
        # the certificate of h_k itself: `dpverify verify FILE --part polynomial` checks it
        "parts": {"polynomial": cert.data},
        "accuracy": {
            "beta": fmpq_str(beta_q),
            "alpha": None if alpha is None else fmpq_str(alpha),
            "alpha_decimal": "not certified (noisy count < 1)" if alpha is None
            else fmpq_to_decimal(alpha, 8, rounding="up"),
            "gamma_release": fmpq_str(gamma_rel),
            "noise_per_coordinate": None if unit is None else fmpq_str(unit),
            "count_term": fmpq_str(count_term),
            "noise_per_coordinate_lattice_units": json_int(mb - 1),
            "n_read_worst": K,
            "statement": "with probability >= 1 - beta every y is answered within "
            "gamma_release + K_read(|y|) * noise_per_coordinate, K_read(w) = sum over "
            "coordinate sizes s of C(w, s); alpha is the worst case |y| = m",
        },
        "lattice_denominator": fmpq_str(den),
        "n_coordinates": K,
        "coefficients": coeffs,
        "secure_randomness": src.secure,
        "float_error": {"per_value_bound": "0",
                        "note": "integer statistics (sums of the lists' coefficients) and "
                                "exact rational coefficients: no float computation on the "
                                "release path",
                        "role": "accuracy only"},
    }
    if count is not None:
        data["count"] = fmpq_str(count)
    return DlistSummary(data)
