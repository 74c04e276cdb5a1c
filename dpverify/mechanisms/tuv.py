"""TUV polynomial release (thaler2012 Theorems 3.1 / 3.2): sanitizer and evaluator.

A row ``x in {0,1}^d`` defines ``p_x(y) = g(sum_j y_j x_j)`` where ``g`` is a certified
univariate polynomial approximating ``1[count >= r]`` on ``{0..k}`` (``r = 1``: the Chebyshev
OR polynomial, thaler2012 Fact 4.2; ``r >= 2``: Sherstov's r-of-k, Lemma 4.5).  The
sanitizer releases ``p_D = (1/n) sum_x p_x + Z``; the evaluator answers ``q_y(D)`` by
``p_D(y)``.

**Universe.** ``"monotone"``: ``m = d`` variables, answers monotone disjunctions (and
r-of-k) over attribute sets.  ``"doubled"``: the record becomes ``x' = (x, 1 - x)``
(``m = 2d``, literal ``NOT x_j`` is variable ``d + j``), answering disjunctions / r-of-k over
any literals and conjunctions through ``AND_{l in S} l = 1 - OR_{l in S} NOT l``
(thaler2012 Section 4.1, corrected reading in :mod:`dpverify.constructions.chebyshev`).

**Representations** (keys are sorted tuples of variable indices):
``"multilinear"`` -- one coordinate per set ``S`` (``y_j^2 = y_j``), coefficient
``a_|S| * N(S)`` with ``a_s = sum_i c_i s! S2(i, s)``; ``"full"`` -- one coordinate per
multiset ``alpha`` (an index repeated = a power, the paper's monomial vector), coefficient
``c_|alpha| * (|alpha|!/prod alpha_j!) * N(supp alpha)``.  In both, ``N(S) = #{rows x' :
x'_j = 1 for all j in S}`` -- only **support counts** of sets of size ``<= t`` are needed,
computed exactly either by enumerating the subsets of each row's support (integer
``bincount``, sparse rows) or by exact float BLAS products of columns extending only sets with
a non-zero count (dense rows); see :func:`_support_counts`.

**Identically zero coordinates** -- monomials whose coefficient is 0 for *every* database
(``c_i = 0`` / ``a_s = 0``; in the doubled universe any set containing both ``j`` and
``d + j``) -- are never stored nor noised (omitting them is data-independent).  Every other
coordinate receives noise even if this database gives it count 0 (omitting those would
leak).  The constant coefficient ``g(0)`` is the same for every row and is released
exactly.

**Exact lattice.** All coefficients of ``sum_x p_x`` are integers times ``1/Q``
(``Q`` = lcm of the coefficient denominators), so ``V = Q sum_x p_x`` is an integer vector
with integer L1 sensitivity ``Q S1``; the release is ``(V + Z)/(n Q)`` with ``Z`` discrete
Laplace of scale ``Q n b`` (:mod:`dpverify.noise`) -- no rounding, no floats, exact
rational outputs, and exactly the requested epsilon.

**Accuracy** (certified ``alpha(beta)``): with ``m_beta`` the least integer with
``K P[|Z| >= m_beta] <= beta`` (``P[|Z| >= m] = 2 r^m/(1 + r)``, ``r = exp(-1/b)``, decided
in arb), with probability ``>= 1 - beta`` every noise coordinate is ``< m_beta`` in lattice
units, and then every query of size ``<= k`` is answered within
``gamma_exact + K_read (m_beta - 1)/(n Q)`` (``K_read`` = non-constant coordinates a query
reads; ``gamma_exact`` = the certified exact error of ``g``).

Guarantee
---------
``g`` is certified (exact error on ``{0..k}``) before use, else ``CertificationFailed``;
sensitivities and the noise scale are exact (:mod:`dpverify.mechanisms.privacy`); noise is
integer-only; answers are exact rationals; ``alpha(beta)`` is a rigorous upper bound.

Size: the sanitizer, its support-count kernels and the evaluator share the coordinate
layout (set keys, lattice denominators) defined here; a split would export private layout
helpers across modules.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from functools import partial
from math import comb, factorial, lcm
from typing import Any

import numpy as np
from flint import arb, fmpq

from ..certify import certify
from ..constructions.chebyshev import or_polynomial
from ..constructions.sherstov import rofk_polynomial
from ..errors import CertificationFailed, InvalidParameterError, ParameterTypeError
from ..noise import RandomSource, discrete_laplace_union_quantile, discrete_laplace_vector
from ..numbers import (
    ExactLike,
    IntLike,
    arb_to_fmpq_bounds,
    check_int,
    check_open_unit,
    check_rational,
    fmpq_str,
    fmpq_to_decimal,
    parse_fmpq_str,
)
from .backend import check_backend, reduce_rows
from .data import BINARY, DataSource, read_data, source_width
from .privacy import (
    REPRESENTATIONS,
    UNIVERSES,
    check_delta,
    check_epsilon,
    check_neighbours,
    guarantee_block,
    json_int,
    multilinear_upto,
    tuv_privacy,
    tuv_scale_times_n,
)

__all__ = [
    "TUVSummary",
    "tuv_polynomial",
    "tuv_release",
    "tuv_answer",
    "tuv_accuracy_plan",
    "tuv_privacy_report",
    "read_binary_csv",
    "partition_support_counts",
    "MAX_COORDINATES",
]

#: Largest number of noised coordinates accepted (memory/time guard).
MAX_COORDINATES = 5_000_000
QUERY_KINDS = ("or", "and", "rofk")


def read_binary_csv(path: str) -> np.ndarray:
    """Read a CSV (or Parquet) file of 0/1 columns into an ``(n, d)`` int8 array.

    Header rule (:mod:`dpverify.mechanisms.data`): the first non-blank row is a header
    exactly when none of its cells is a number; every other row is data and each value must
    be 0 or 1 (``2``, ``0.5``, ``nan`` are errors naming the file, line and column).
    """
    tab = read_data(path)
    BINARY.check(tab)
    return tab.values.astype(np.int8)


def tuv_polynomial(k: IntLike, gamma: ExactLike, r: IntLike = 1, method: str | None = None):
    """Build and certify ``g`` (``r = 1``: OR, Chebyshev/minimax; ``r >= 2``: r-of-k,
    minimax by default, or Sherstov).  Returns ``(approx, certificate)``; raises
    ``CertificationFailed`` if the claim ``max_error <= gamma`` is not proven."""
    k = check_int(k, "k", minimum=1, maximum=10_000)
    r = check_int(r, "r", minimum=1, maximum=k)
    gamma = check_open_unit(gamma, "gamma")
    if r == 1:
        approx = or_polynomial(k, gamma, method=method or "chebyshev")
    else:
        # default minimax: least degree, and the printed Sherstov steps are undefined
        # for small k (DomainError); method="sherstov" selects the paper's construction
        meth = method or "minimax"
        if meth == "sherstov":
            approx = rofk_polynomial(r, k, gamma, method=meth, intermediates="summary")
        else:
            approx = rofk_polynomial(r, k, gamma, method=meth)
    cert = certify(approx)
    if not cert.complete:
        raise CertificationFailed(
            f"the polynomial for r={r}, k={k}, gamma={fmpq_str(gamma)} misses gamma "
            f"(exact error {cert.error.get('upper')}); try method 'minimax'")
    return approx, cert


def _multiset_coef(key: tuple[int, ...]) -> int:
    """``|alpha|!/prod alpha_j!`` for the multiset ``key``."""
    den = 1
    for _, grp in itertools.groupby(key):
        den *= factorial(len(list(grp)))
    return factorial(len(key)) // den


#: Bytes of one block of column products in :func:`_support_counts` (memory bound).
_BLOCK_BYTES = 2**28


def _support_counts(X: np.ndarray, t: int, d: int, doubled: bool) -> dict[tuple, int]:
    """``N(S) = #{rows containing S}`` for every set ``S`` (sorted tuple) of size ``1..t``
    with ``N(S) > 0`` (in the doubled universe no set with ``j`` and ``d + j`` occurs).

    Two exact methods; the cheaper one by an operation count is used (the result is the same,
    tests check both against brute force):

    * :func:`_support_counts_rows` -- every row adds 1 to each subset of its support of size
      ``<= t``: about ``E = sum_rows sum_s C(|x|, s)`` integer operations (sparse rows);
    * :func:`_support_counts_gemm` -- column products with exact float BLAS: about
      ``G = n m sum_{s<t} C(m, s)`` flops (dense rows, e.g. the doubled universe where every
      row has weight ``d``).

    The rows method is chosen when ``100 E <= G`` (a BLAS flop is ~100x cheaper than a numpy
    gather) and its tables fit in memory.
    """
    n, m = X.shape
    w = X.astype(np.int64).sum(axis=1)
    hist = np.bincount(w, minlength=m + 1)
    E = sum(int(hist[wt]) * comb(int(wt), s) for wt in range(m + 1) if hist[wt]
            for s in range(1, t + 1))
    G = n * m * sum(comb(m, s) for s in range(1, t))
    fits = all(comb(wt, s) * s * 8 <= _BLOCK_BYTES and comb(m, s) <= _MAX_BINS
               for wt in range(m + 1) if hist[wt] for s in range(1, t + 1))
    if fits and 100 * E <= G:
        return _support_counts_rows(X, t, w)
    return _support_counts_gemm(X, t, d, doubled)


#: Largest number of bins (sets of one size) for the rows method's ``bincount``.
_MAX_BINS = 50_000_000


def _support_counts_rows(X: np.ndarray, t: int, w: np.ndarray) -> dict[tuple, int]:
    """Exact integer support counts by enumerating, per row, the subsets of its support.

    Rows are grouped by weight ``|x| = wt``; for each size ``s`` the subsets are gathered as
    ``supp[:, combos]`` (``combos`` = the ``s``-subsets of ``range(wt)``, supports sorted, so
    every subset is a sorted tuple), ranked in the colexicographic number system
    ``rank(v_0 < ... < v_{s-1}) = sum_i C(v_i, i + 1)`` (a bijection onto
    ``0..C(m, s) - 1``) and counted with ``bincount``; chunks of rows keep every array below
    ``_BLOCK_BYTES``.  Integer arithmetic only (int64; ranks ``< C(m, s) <= _MAX_BINS``).
    """
    n, m = X.shape
    binom = np.array([[comb(v, r) for r in range(t + 2)] for v in range(m + 1)], dtype=np.int64)
    counts: dict[tuple, int] = {}
    weights = sorted({int(v) for v in w.tolist()})
    for s in range(1, t + 1):
        acc = np.zeros(comb(m, s), dtype=np.int64)
        for wt in weights:
            if wt < s:
                continue
            rows = np.nonzero(w == wt)[0]
            combos = np.array(list(itertools.combinations(range(wt), s)), dtype=np.int64)
            per_row = combos.shape[0] * s * 8
            chunk = max(1, _BLOCK_BYTES // per_row)
            for r0 in range(0, len(rows), chunk):
                sub_rows = X[rows[r0:r0 + chunk]]
                supp = np.nonzero(sub_rows)[1].reshape(len(sub_rows), wt)  # sorted per row
                sets = supp[:, combos]  # (R, C(wt, s), s)
                rank = np.zeros(sets.shape[:2], dtype=np.int64)
                for i in range(s):
                    rank += binom[sets[:, :, i], i + 1]
                acc += np.bincount(rank.ravel(), minlength=acc.shape[0])
        nz = np.nonzero(acc)[0]
        if nz.size == 0:
            break
        # unrank the non-zero bins (colex): largest v with C(v, i + 1) <= r, from the top
        r = nz.copy()
        cols = []
        for i in range(s - 1, -1, -1):
            col_b = binom[:, i + 1]  # non-decreasing in v
            v = np.searchsorted(col_b, r, side="right") - 1
            cols.append(v)
            r = r - col_b[v]
        keys = np.stack(cols[::-1], axis=1)  # ascending tuples
        for key, c in zip(map(tuple, keys.tolist()), acc[nz].tolist(), strict=True):
            counts[key] = c
    return counts


def _support_counts_gemm(X: np.ndarray, t: int, d: int, doubled: bool) -> dict[tuple, int]:
    """Support counts by column products (dense rows).

    Level ``s`` extends every size-``(s-1)`` set ``S`` with a non-zero count by the columns
    ``j > max S``: ``N(S + {j}) = P_S . X[:, j]`` with ``P_S`` the AND of the columns of ``S``.
    The frontier is processed in blocks of ``B`` sets (``B n`` bytes of booleans, at most
    ``_BLOCK_BYTES`` per block), so memory is ``O(B n + #counts)`` whatever the frontier size
    (stacking all ``P_S`` at once would need 18 GB for ``d = 50``, ``t = 5``, ``n = 10^4``).

    **Exactness lemma.**  The block product ``P @ X`` is computed by BLAS in ``float32`` when
    ``n < 2^23`` (else ``float64``; ``n < 2^52`` is enforced).  Every operand is 0 or 1, and BLAS
    forms each output as a sum of the products ``P[b, i] X[i, j]`` by additions / fused
    multiply-adds in some order and blocking; every intermediate value is therefore the sum
    of a sub-multiset of those products, an integer in ``[0, n]``.  Integers up to ``2^24``
    (``2^53``) are exactly representable in ``float32`` (``float64``), and an IEEE operation
    whose exact result is representable returns it unchanged, so no rounding ever occurs and
    the output is the exact integer count.  (This assumes a classical ``gemm``; a
    Strassen-type algorithm would form differences -- still integers of absolute value
    ``<= 2n``, so the argument holds with ``2n < 2^24``, which is why the float32 threshold
    is ``n < 2^23``.)  Belt and braces: in every block the first set's counts are recomputed
    by exact integer counting (``count_nonzero`` of ANDed columns) and a mismatch recounts
    the whole block that way (never a refusal, which would depend on the data);
    ``tests/test_tuv_mechanism.py`` compares all counts with a brute-force enumeration.
    """
    n, m = X.shape
    if n >= 2**52:
        raise InvalidParameterError("too many rows for exact counting (n >= 2^52)")
    dtype = np.float32 if n < 2**23 else np.float64
    XT = np.ascontiguousarray(X.T.astype(bool))  # (m, n)
    Xf = X.astype(dtype)  # (n, m)
    counts: dict[tuple, int] = {}
    col = X.astype(np.int64).sum(axis=0)
    frontier: list[tuple] = [(j,) for j in range(m) if col[j] > 0]
    for key in frontier:
        counts[key] = int(col[key[0]])
    jj = np.arange(m)
    # per block entry: bool P and its float copy
    block = max(1, _BLOCK_BYTES // (n * (1 + np.dtype(dtype).itemsize)))
    for s in range(2, t + 1):
        new_frontier: list[tuple] = []
        for b0 in range(0, len(frontier), block):
            keys = frontier[b0:b0 + block]
            Karr = np.array(keys, dtype=np.int64)  # (B, s-1)
            P = XT[Karr[:, 0]].copy()
            for c in range(1, s - 1):
                P &= XT[Karr[:, c]]
            C = np.rint(P.astype(dtype) @ Xf).astype(np.int64)  # (B, m) counts of S + {j}
            # spot check against exact integer counting (first set of the block, all j):
            # guards against a BLAS that does not meet the lemma's model (such a BLAS would
            # err systematically); the lemma above is the proof.  A mismatch recounts the
            # block in integers instead of refusing: the release never depends on it (a
            # refusal here would be an output that depends on the data)
            exact_row = np.count_nonzero(P[0][None, :] & XT, axis=1)
            if not np.array_equal(C[0], exact_row):
                C = np.stack([np.count_nonzero(P[b][None, :] & XT, axis=1)
                              for b in range(len(P))]).astype(np.int64)
            mask = (C > 0) & (jj[None, :] > Karr[:, -1:])
            if doubled:
                member = np.zeros((len(keys), m), dtype=bool)
                np.put_along_axis(member, Karr, True, axis=1)
                mask[:, d:] &= ~member[:, :d]  # {j', d + j'} never both 1
            rows_i, cols_j = np.nonzero(mask)
            vals = C[rows_i, cols_j].tolist()
            for fi, j, v in zip(rows_i.tolist(), cols_j.tolist(), vals, strict=True):
                nk = keys[fi] + (j,)
                counts[nk] = v
                if s < t:
                    new_frontier.append(nk)
        frontier = new_frontier
        if not frontier:
            break
    return counts


def partition_support_counts(X: np.ndarray, t: int, doubled: bool) -> dict[tuple, int]:
    """Support counts (:func:`_support_counts`) of one partition of 0/1 rows given as
    float64 (the dask backend's map step; integer results, so their sum over partitions
    is exact in any order)."""
    Xi = np.asarray(X).astype(np.int8)
    d = Xi.shape[1]
    Xd = np.concatenate([Xi, 1 - Xi], axis=1) if doubled else Xi
    return _support_counts(Xd, t, d, doubled)


def _allowed_sets(m: int, d: int, s: int, doubled: bool):
    for S in itertools.combinations(range(m), s):
        if doubled:
            low = {j for j in S if j < d}
            if any((j - d) in low for j in S if j >= d):
                continue
        yield S


class TUVSummary:
    """A released TUV summary: exact noisy coefficients + everything needed to answer.

    Attributes: ``data`` (the JSON-able dict; coefficients as integer numerators over the
    lattice denominator ``n Q``).  Build with :func:`tuv_release` or :meth:`from_json`.
    """

    def __init__(self, data: dict[str, Any]) -> None:
        if not isinstance(data, dict) or data.get("mechanism") != "tuv-release":
            raise InvalidParameterError("summary must be a dict produced by tuv_release")
        self.data = data
        try:
            self.d = int(data["d"])
            self.k = int(data["k"])
            self.r = int(data["r"])
            self.t = int(data["polynomial"]["degree"])
            self.representation = data["representation"]
            self.universe = data["universe"]
            self.denominator = parse_fmpq_str(str(data["lattice_denominator"]),
                                              "lattice_denominator")
            self.constant = parse_fmpq_str(data["constant"], "constant")
            self.coefficients = {
                tuple(int(v) for v in key.split(",")): int(val)
                for key, val in data["coefficients"].items()
            }
        except (KeyError, ValueError, TypeError) as exc:
            raise InvalidParameterError(f"malformed summary: {exc}") from None

    def to_json(self) -> dict[str, Any]:
        return self.data

    @classmethod
    def from_json(cls, obj: dict[str, Any]) -> TUVSummary:
        return cls(obj)

    def _literal_indices(self, query: Sequence[int | tuple[int, bool]]) -> list[int]:
        idx = []
        for n, q in enumerate(query):
            if isinstance(q, tuple):
                j, pos = q
                j = check_int(j, f"query[{n}]", minimum=0, maximum=self.d - 1)
                if not pos and self.universe != "doubled":
                    raise InvalidParameterError(
                        "negated literals need a release with universe 'doubled'")
                idx.append(j if pos else self.d + j)
            else:
                idx.append(check_int(q, f"query[{n}]", minimum=0, maximum=self.d - 1))
        if len(set(idx)) != len(idx):
            raise InvalidParameterError(f"query repeats a literal: {list(query)!r}")
        if len(idx) > self.k:
            raise InvalidParameterError(
                f"query has {len(idx)} literals, more than k={self.k} of the release")
        return sorted(idx)

    def _poly_value(self, S: list[int]) -> fmpq:
        """Noisy ``p_D(1_S)`` (exact)."""
        acc = 0
        for i in range(1, self.t + 1):
            it = (itertools.combinations(S, i) if self.representation == "multilinear"
                  else itertools.combinations_with_replacement(S, i))
            for key in it:
                acc += self.coefficients.get(key, 0)
        return self.constant + fmpq(acc) / self.denominator

    def answer(self, query: Sequence[Any], kind: str = "or", r: IntLike | None = None) -> fmpq:
        """Answer a query from the summary (exact rational, post-processing only).

        Parameters
        ----------
        query : sequence
            Attribute indices (0-based; positive literals) or ``(j, positive)`` pairs.
        kind : {"or", "and", "rofk"}
            ``"or"`` (disjunction; the release must have ``r = 1``), ``"and"``
            (conjunction, ``1 - OR`` of the negated literals; needs universe ``"doubled"``
            unless the query has one literal), ``"rofk"`` (at least ``r`` literals true;
            ``r`` must equal the release's ``r``).
        r : int, optional
            With ``kind="rofk"`` only.
        """
        if kind not in QUERY_KINDS:
            raise InvalidParameterError(f"kind must be one of {QUERY_KINDS}, got {kind!r}")
        if kind == "rofk":
            rr = check_int(r, "r", minimum=1)
            if rr != self.r:
                raise InvalidParameterError(
                    f"r={rr} differs from the release's r={self.r} (one release per r)")
        elif r is not None:
            raise InvalidParameterError("r applies only to kind 'rofk'")
        elif self.r != 1:
            raise InvalidParameterError(
                f"kind {kind!r} needs a release with r=1 (this release has r={self.r})")
        if kind == "and":
            lits = [q if isinstance(q, tuple) else (q, True) for q in query]
            if len(lits) == 1:
                return self.answer(lits, "or")
            if self.universe != "doubled":
                raise InvalidParameterError("conjunctions need a release with universe 'doubled'")
            neg = [(check_int(j, "query", minimum=0), not pos) for j, pos in lits]
            return 1 - self._poly_value(self._literal_indices(neg))
        return self._poly_value(self._literal_indices(query))


def tuv_release(
    rows: Any,
    k: Any,
    gamma: Any,
    epsilon: Any,
    *,
    delta: Any = None,
    r: Any = 1,
    representation: str = "multilinear",
    universe: str = "monotone",
    method: str | None = None,
    beta: Any = "1/20",
    truncate: bool = True,
    insecure_seed: int | None = None,
    progress: Any = None,
    backend: str = "local",
    scheduler: Any = None,
    neighbours: str = "replace",
) -> TUVSummary:
    """Sanitizer of thaler2012 Theorem 3.1 (``delta=None``) / 3.2 on a 0/1 database.

    Parameters
    ----------
    rows : (n, d) array-like of 0/1, or a data source
        The private database (a source: see ``backend``).
    k : int
        Largest query size.
    gamma : exact number in (0, 1)
        Error of the polynomial ``g``.
    epsilon : exact number > 0
    delta : exact number in (0, 1), optional
        (epsilon, delta)-DP (Theorem 3.2).
    r : int
        Threshold of the query class (1: disjunctions/conjunctions; ``>= 2``: r-of-k).
    representation : {"multilinear", "full"}
    universe : {"monotone", "doubled"}
    method : str, optional
        Construction method of ``g`` (default chebyshev for r = 1, minimax for r >= 2).
    beta : exact number in (0, 1)
        Failure probability of the accuracy report.
    truncate : bool
        Release only the monomials supported on at most ``k`` variables (default).  A
        query of size ``<= k`` reads only monomials supported inside it, so the answers
        are the same polynomial values with fewer noised coordinates and a smaller exact
        sensitivity (d = 50, k = 3, gamma = 1/100: 20875 instead of 2139635 coordinates).
        ``False`` releases the paper's whole vector (every degree ``<= t``).
    insecure_seed : int, optional
        Reproducible, NOT private randomness (tests only).
    progress : callable, optional
        ``(stage, done, total)`` reports (:mod:`dpverify.progress`).
    backend : {"local", "dask"}
        ``rows`` may be a CSV/Parquet file, directory or glob (``-`` or a
        :class:`~dpverify.mechanisms.data.DataSource` too, locally), read block by block;
        with ``"dask"`` the support counts (integers) are summed exactly over the
        partitions (:func:`dpverify.mechanisms.backend.reduce_rows`), noise is drawn once
        on the client.  Same privacy record and, with the same ``insecure_seed``, the same
        release as ``"local"`` (exact integer sums).
    scheduler : optional
        Dask only: ``None`` (an embedded ``LocalCluster``), an address or a Client.
    neighbours : {"replace", "add-remove"}
        ``"add-remove"`` (``n`` private): the integer vector ``Q sum_x p_x`` and a count
        coordinate ``Q Sinf n`` get noise (:func:`~dpverify.mechanisms.privacy.
        tuv_privacy`); answers divide by the noisy count (post-processing); ``n`` is not
        published.

    Returns
    -------
    TUVSummary
        ``.data`` holds the JSON: params, polynomial, privacy certificate
        (:func:`dpverify.mechanisms.privacy.tuv_privacy`), accuracy report, coefficients.

    Guarantee
    ---------
    See the module docstring.  thaler2012 Theorem 3.1/3.2 with the exact L1 sensitivity
    (the printed sanitizer scale ``2T/(epsilon n)`` is not used: docs/mechanisms.md).

    Examples
    --------
    Four rows of 3 bits, disjunctions of up to ``k = 2`` attributes, ``gamma = 1/10``.
    ``T_2(3) = 17 >= 10``, so ``g(x) = 1 - T_2(3 - 2x)/17``: ``g(0) = 0``,
    ``g(1) = g(2) = 16/17`` (docs/conventions.md).  With ``epsilon = 2^60`` (no privacy to
    speak of: the noise vanishes) the answer to "attribute 0 or attribute 1" is the mean
    of ``g`` over the rows, ``3 (16/17)/4 = 12/17``, within ``1/17`` of the true ``3/4``:

    >>> rows = [[1, 0, 0], [0, 1, 0], [0, 0, 0], [1, 1, 0]]
    >>> s = tuv_release(rows, 2, "1/10", 2**60, insecure_seed=0)   # seeded: NOT private
    >>> s.answer([0, 1]), s.answer([2])
    (12/17, 0)

    With a real epsilon the release states its certified accuracy (every query of size
    ``<= k`` within ``alpha`` with probability ``>= 1 - beta``):

    >>> s = tuv_release(rows, 2, "1/10", 1, insecure_seed=0)
    >>> s.data["accuracy"]["gamma_exact"], s.data["accuracy"]["beta"]
    ('1/17', '1/20')
    """
    _check_kinds(representation, universe, truncate)
    backend = check_backend(backend, scheduler)
    nb = check_neighbours(neighbours)
    red = None
    # a data source is read block by block (either backend): memory bounded by a block
    streamed = backend == "dask" or isinstance(rows, (str, DataSource))
    if streamed:
        d = source_width(rows)
        X: np.ndarray | None = None
        # no data yet: validates every parameter and certifies g before the data pass
        k, r, eps, beta_q, approx, cert, cs, priv = _setup(
            d, k, gamma, epsilon, beta, delta, r, representation, universe, truncate,
            method, None, nb)
    else:
        try:
            X = np.asarray(rows)
        except (ValueError, TypeError):
            raise ParameterTypeError("rows must be a 2-D array of 0/1") from None
        if X.ndim != 2 or X.shape[0] < 1 or X.shape[1] < 1:
            raise InvalidParameterError(
                f"rows must be a non-empty 2-D array, got shape {X.shape}")
        if X.dtype.kind not in "iub" or not np.isin(X, (0, 1)).all():
            raise InvalidParameterError("rows must contain only the integers 0 and 1")
        n, d = (int(v) for v in X.shape)
        if n >= 2**62:
            raise InvalidParameterError("too many rows")
        k, r, eps, beta_q, approx, cert, cs, priv = _setup(
            d, k, gamma, epsilon, beta, delta, r, representation, universe, truncate,
            method, n if nb == "replace" else None, nb)
    t = len(cs) - 1
    doubled = universe == "doubled"
    m = 2 * d if doubled else d
    kmax = k if truncate else m  # largest support size released
    K = int(priv["sensitivity"]["n_coordinates"])
    if K == 0:  # data-independent: nothing would be released but the constant g(0)
        raise InvalidParameterError(
            f"nothing to release: no monomial can be non-zero for d = {d}, k = {k}, r = {r} "
            f"in the {universe} universe (every answer would be the constant g(0))")
    if K > MAX_COORDINATES:
        raise InvalidParameterError(
            f"the release has {K} coordinates, more than {MAX_COORDINATES}; lower k or "
            "gamma's precision, or use the multilinear representation")
    if progress is not None:
        progress("support counts", 0, None)
    if streamed:
        red = reduce_rows(rows, partial(partition_support_counts, t=min(t, m, kmax),
                                        doubled=doubled),
                          domain=BINARY, min_columns=d, max_columns=d, scheduler=scheduler,
                          backend=backend, progress=progress)
        n = red.n
        if n >= 2**62:
            raise InvalidParameterError("too many rows")
        counts = red.value
        if nb == "replace":
            # the same record as the local backend's _setup(..., n): with this n
            priv = tuv_privacy(cs, d, k, eps, n=n,
                               delta=None if delta is None else check_delta(delta),
                               representation=representation,
                               universe=universe, max_support=k if truncate else None)
    extra = 1 if nb == "add-remove" else 0
    a, weights, Q, scale_int, mb, K_read = _lattice(cs, priv, representation, beta_q,
                                                    min(t, m, kmax), extra)
    if red is None:
        assert X is not None  # read above for the local backend
        Xd = np.concatenate([X, 1 - X], axis=1) if doubled else X
        counts = _support_counts(Xd, min(t, m, kmax), d, doubled)

    sens_int = priv["sensitivity"]["l1_times_n"]  # S1 (times n), exact
    src = RandomSource(insecure_seed)
    coeffs: dict[str, int] = {}

    def sizes():
        # multilinear: weights has an entry for every released size (<= min(t, m, kmax))
        for i in range(1, len(weights)):
            if weights[i] == 0:
                continue
            if representation == "multilinear":
                if i <= min(m, kmax):
                    yield i, _allowed_sets(m, d, i, doubled)
            else:
                yield i, _full_keys(m, d, i, doubled, kmax)

    for i, keys in sizes():
        keys = list(keys)
        noise = discrete_laplace_vector(
            len(keys), scale_int, rng=src,
            progress=None if progress is None else
            (lambda st, done, tot, i=i: progress(f"noise (sets of size {i})", done, tot)))
        wq_f = weights[i] * Q
        if wq_f.q != 1:
            raise CertificationFailed("internal: lattice denominator does not clear weights")
        wq = int(wq_f.p)  # exact integer weight on the lattice
        if representation == "multilinear":
            for key, z in zip(keys, noise, strict=True):
                coeffs[",".join(map(str, key))] = wq * counts.get(key, 0) + z
        else:
            for key, z in zip(keys, noise, strict=True):
                base = counts.get(tuple(sorted(set(key))), 0)
                coeffs[",".join(map(str, key))] = wq * _multiset_coef(key) * base + z
    if len(coeffs) != K:
        raise CertificationFailed(f"internal: {len(coeffs)} coordinates, expected {K}")

    gamma_exact = parse_fmpq_str(cert.error["upper"], "error")
    count: fmpq | None = None
    if nb == "replace":
        den = fmpq(n * Q)
        noise_bound: fmpq | None = fmpq(K_read * (mb - 1), n * Q)
    else:
        # the count coordinate Q Sinf n, noised on the same lattice (post-processing:
        # answers divide by max(noisy count, 1))
        cw = parse_fmpq_str(priv["count_weight"], "count_weight") * Q
        if cw.q != 1 or cw <= 0:
            raise CertificationFailed("internal: the count weight is not a positive integer")
        z0 = discrete_laplace_vector(1, scale_int, rng=src)[0]
        count = (cw * n + z0) / cw
        den = Q * max(count, fmpq(1))
        # |answer - p_D(y)| <= (K_read s/Q + (1 + 2 gamma) s/cw)/count with every noise
        # |Z| <= s = m_beta - 1 (union bound over the K + 1 coordinates); p_D(y) - g(0)
        # lies in [-1 - 2 gamma, 1 + 2 gamma]
        noise_bound = None if count < 1 else \
            (fmpq(K_read * (mb - 1), Q) + (1 + 2 * gamma_exact) * (mb - 1) / cw) / count
    alpha = None if noise_bound is None else gamma_exact + noise_bound
    privacy = dict(priv)
    if nb == "add-remove":  # the noise scale of sum_x p_x (there is no 1/n)
        privacy["scale"] = fmpq_str(tuv_scale_times_n(priv))
    privacy["noise"] = {
        "sampler": "discrete Laplace (Canonne-Kamath-Steinke 2020 Alg. 2), integer-only",
        "lattice_step": fmpq_str(1 / den),
        "scale_lattice_units": fmpq_str(scale_int),
        "integer_sensitivity_l1": fmpq_str(_sens_parse(sens_int) * Q),
        "rounding_inflation": "0 (exact lattice)",
        "secure_randomness": src.secure,
    }
    privacy["secure_randomness"] = src.secure
    privacy["assumptions"] = []
    privacy["guarantee"] = guarantee_block(
        neighbours=nb, domain="{0, 1}^d", epsilon=priv["achieved"]["epsilon"]
        if priv["achieved"] else "0", delta=priv["achieved"]["delta"]
        if priv["achieved"] else "0", secure=src.secure,
        proven=[{"claim": f"L1 sensitivity {priv['sensitivity']['l1_times_n']}"
                          + (" / n" if nb == "replace" else ""),
                 "how": "exact maximum of ||p_x - p_x'||_1 over row pairs (replace) or of "
                        "||p_x||_1 without the constant (add/remove), "
                        "dpverify.mechanisms.privacy.tuv_sensitivity"},
                {"claim": "the support counts are exact integers",
                 "how": "integer counting, or float BLAS on 0/1 values with every partial "
                        "sum an integer < 2^24 (exactness lemma); a block whose spot check "
                        "fails is recounted in integers"}])
    data: dict[str, Any] = {
        "mechanism": "tuv-release",
        "paper": "thaler2012 Theorem 3.1" + ("" if delta is None else " / 3.2"),
        "n": n if nb == "replace" else None,
        "neighbours": nb,
        "d": d,
        "k": k,
        "r": r,
        "representation": representation,
        "universe": universe,
        "truncated_to_support_k": truncate,
        "polynomial": {
            "construction": approx.construction,
            "coefficients": [fmpq_str(c) for c in cs],
            "degree": t,
            "error_exact": fmpq_str(gamma_exact),
            "gamma": fmpq_str(check_open_unit(gamma, "gamma")),
            "certified": cert.complete,
        },
        "privacy": privacy,
        # the certificate of g itself: `dpverify verify FILE --part polynomial` checks it
        "parts": {"polynomial": cert.data},
        "accuracy": {
            "beta": fmpq_str(beta_q),
            "alpha": None if alpha is None else fmpq_str(alpha),
            "alpha_decimal": "not certified (noisy count < 1)" if alpha is None
            else fmpq_to_decimal(alpha, 8, rounding="up"),
            "gamma_exact": fmpq_str(gamma_exact),
            "noise_bound": None if noise_bound is None else fmpq_str(noise_bound),
            "noise_per_coordinate_lattice_units": json_int(mb - 1),
            "n_read_per_query": json_int(K_read),
            "statement": "with probability >= 1 - beta every query of size <= k is "
            "answered within alpha (union bound over all noised coordinates)",
            "paper_alpha_theorem_3_1": _paper_alpha(priv, gamma_exact, n, eps, beta_q)
            if nb == "replace" else None,
        },
        "lattice_denominator": fmpq_str(den),
        "constant": fmpq_str(cs[0] if representation == "full" else a[0]),
        "n_coordinates": K,
        "coefficients": coeffs,
        "secure_randomness": src.secure,
        "float_error": {"per_value_bound": "0",
                        "note": "integer statistics (support counts) and exact rational "
                                "coefficients: no float computation on the release path",
                        "role": "accuracy only"},
    }
    if count is not None:
        data["count"] = fmpq_str(count)
    if red is not None and backend == "dask":
        data["statistics"] = red.info()  # how the exact integer sums were reduced
    return TUVSummary(data)


def _check_kinds(representation: str, universe: str, truncate: Any) -> None:
    if representation not in REPRESENTATIONS:
        raise InvalidParameterError(
            f"representation must be one of {REPRESENTATIONS}, got {representation!r}")
    if universe not in UNIVERSES:
        raise InvalidParameterError(f"universe must be one of {UNIVERSES}, got {universe!r}")
    if not isinstance(truncate, bool):
        raise ParameterTypeError(f"truncate must be True or False, got {truncate!r}")


def _setup(d: int, k: Any, gamma: Any, epsilon: Any, beta: Any, delta: Any, r: Any,
           representation: str, universe: str, truncate: bool, method: str | None,
           n: int | None = None, neighbours: str = "replace") -> tuple:
    """What :func:`tuv_release` and :func:`tuv_accuracy_plan` share (no data): validated
    ``k, r, epsilon, beta``, the certified ``g`` (``approx, cert``, trimmed monomial
    coefficients ``cs``) and the privacy record of the (truncated) coordinate vector."""
    k = check_int(k, "k", minimum=1, maximum=d if universe == "monotone" else 2 * d)
    r = check_int(r, "r", minimum=1, maximum=k)
    eps = check_epsilon(epsilon)
    if delta is not None:
        delta = check_delta(delta)
    beta_q = check_open_unit(beta, "beta")
    approx, cert = tuv_polynomial(k, gamma, r, method)
    cs = list(approx.poly.to_monomial().coeffs)
    while len(cs) > 1 and cs[-1] == 0:
        cs.pop()
    priv = tuv_privacy(cs, d, k, eps, n=n, delta=delta, representation=representation,
                       universe=universe, max_support=k if truncate else None,
                       neighbours=neighbours)
    return k, r, eps, beta_q, approx, cert, cs, priv


def _lattice(cs: list, priv: dict, representation: str, beta: fmpq, top: int,
             extra: int = 0) -> tuple:
    """Per-size weights (``a_s`` for the released sizes ``s <= top`` multilinear, ``c_i``
    full), the lattice denominator ``Q`` (lcm of the denominators of the weights that are
    released), the noise scale in lattice units ``Q n b`` (independent of ``n``), the
    union-bound quantile ``m_beta`` over all noised coordinates and ``K_read``."""
    a = multilinear_upto(cs, top)
    weights = a if representation == "multilinear" else cs
    Q = lcm(*[int(w.q) for w in weights[1:] if w != 0] or [1])
    scale_int = tuv_scale_times_n(priv) * Q
    K = int(priv["sensitivity"]["n_coordinates"]) + extra  # extra: the count coordinate
    mb = noise_union_quantile(K, scale_int, beta) if K else 1
    return a, weights, Q, scale_int, mb, int(priv["sensitivity"]["n_read_per_query"])


def tuv_accuracy_plan(
    d: Any, k: Any, gamma: Any, epsilon: Any, *, beta: Any = "1/20", delta: Any = None,
    r: Any = 1, representation: str = "multilinear", universe: str = "monotone",
    truncate: bool = True, method: str | None = None, alpha: Any = None,
) -> dict[str, Any]:
    """The certified accuracy of :func:`tuv_release` as an exact function of ``n``.

    ``alpha(n) = gamma_exact + C/n`` with ``C = K_read (m_beta - 1)/Q``: the noise scale in
    lattice units (``Q S1/epsilon``, or the Lemma 2.4 route) and hence ``m_beta`` do not
    depend on ``n``.  With ``alpha`` given, also the least ``n`` whose certified
    ``alpha(n) <= alpha`` (this library's release, not the paper's Theorem 3.1 estimate of
    ``dpverify release-size``).

    Guarantee
    ---------
    Exact rationals; ``m_beta`` decided in arb (:func:`noise_union_quantile`).  A release
    of ``n`` rows with the same parameters reports exactly this ``alpha(n)``.
    """
    _check_kinds(representation, universe, truncate)
    d = check_int(d, "d", minimum=1, maximum=10**6)
    # alpha is an accuracy for answers in [0, 1]: documented range (0, 1], checked first
    al = None if alpha is None else check_rational(alpha, "alpha", 0, 1, low_open=True)
    k, r, eps, beta_q, approx, cert, cs, priv = _setup(
        d, k, gamma, epsilon, beta, delta, r, representation, universe, truncate, method)
    return _plan(d, k, r, eps, beta_q, delta, cert, cs, priv, representation, universe,
                 truncate, al)


def tuv_privacy_report(
    d: Any, k: Any, gamma: Any, epsilon: Any, *, delta: Any = None, r: Any = 1,
    representation: str = "multilinear", universe: str = "monotone",
    method: str | None = None, n: Any = None, truncate: bool = True, beta: Any = "1/20",
    alpha: Any = None,
) -> dict[str, Any]:
    """The privacy certificate of :func:`tuv_release` without data (``dpverify privacy
    tuv``): the certified polynomial ``g``, the privacy record of the released coordinate
    vector (:func:`dpverify.mechanisms.privacy.tuv_privacy`, per-``n`` values when ``n`` is
    given) and the accuracy plan (:func:`tuv_accuracy_plan`; with ``alpha``, the least
    ``n`` reaching it).

    Returns the JSON of the privacy record with two more keys: ``polynomial``
    (construction, degree, exact error, certified) and ``accuracy_plan``.

    Guarantee
    ---------
    As :func:`tuv_accuracy_plan` and :func:`~dpverify.mechanisms.privacy.tuv_privacy`:
    exact sensitivities and scales, epsilon exact or a rigorous upper bound; ``g`` is
    certified once and shared by the record and the plan (the same ``g`` a release uses).
    """
    _check_kinds(representation, universe, truncate)
    d = check_int(d, "d", minimum=1, maximum=10**6)
    n = None if n is None else check_int(n, "n", minimum=1)
    al = None if alpha is None else check_rational(alpha, "alpha", 0, 1, low_open=True)
    k, r, eps, beta_q, approx, cert, cs, priv = _setup(
        d, k, gamma, epsilon, beta, delta, r, representation, universe, truncate, method, n)
    res = priv.to_json()
    res["polynomial"] = {"construction": approx.construction, "degree": approx.poly.degree,
                         "error_exact": cert.error["upper"], "certified": cert.complete}
    # the certificate of g itself: `dpverify verify FILE --part polynomial` checks it
    res["parts"] = {"polynomial": cert.data}
    # the plan uses only n-free parts of the record (scale * n), as tuv_release does
    res["accuracy_plan"] = _plan(d, k, r, eps, beta_q, delta, cert, cs, priv,
                                 representation, universe, truncate, al)
    return res


def _plan(d: int, k: int, r: int, eps: fmpq, beta_q: fmpq, delta: Any, cert: Any,
          cs: list, priv: Any, representation: str, universe: str, truncate: bool,
          al: fmpq | None) -> dict[str, Any]:
    """:func:`tuv_accuracy_plan` after :func:`_setup`."""
    m = d if universe == "monotone" else 2 * d
    _, _, Q, _, mb, K_read = _lattice(cs, priv, representation, beta_q,
                                      min(len(cs) - 1, m, k if truncate else m))
    gamma_exact = parse_fmpq_str(cert.error["upper"], "error")
    C = fmpq(K_read * (mb - 1), Q)
    out: dict[str, Any] = {
        "d": d, "k": k, "r": r, "representation": representation, "universe": universe,
        "truncated_to_support_k": truncate, "epsilon": fmpq_str(eps), "beta": fmpq_str(beta_q),
        "delta": None if delta is None else fmpq_str(check_delta(delta)),
        "gamma_exact": fmpq_str(gamma_exact), "C": fmpq_str(C),
        "alpha_of_n": f"{fmpq_str(gamma_exact)} + ({fmpq_str(C)})/n",
        "n_coordinates": priv["sensitivity"]["n_coordinates"],
        "n_read_per_query": json_int(K_read),
        "noise_per_coordinate_lattice_units": json_int(mb - 1),
    }
    if al is not None:
        if al <= gamma_exact:
            raise InvalidParameterError(
                f"alpha must exceed the polynomial's exact error {fmpq_str(gamma_exact)} "
                "(lower gamma)")
        need = C / (al - gamma_exact)
        out["alpha"] = fmpq_str(al)
        out["n_needed"] = json_int(max(1, int(-((-need.p) // need.q))))
    return out


def noise_union_quantile(K: int, scale: fmpq, beta: fmpq) -> int:
    """Least integer ``m_beta >= 1`` with ``K P[|Z| >= m_beta] <= beta`` for ``K`` discrete
    Laplace draws of scale ``b`` (``P[|Z| >= m] = 2 r^m/(1 + r)``, ``r = exp(-1/b)``).

    Guarantee
    ---------
    Decided in arb at a precision that grows with ``log2(b)``
    (:func:`dpverify.noise.discrete_laplace_union_quantile`, which documents the method), so
    with probability ``>= 1 - beta`` all ``K`` draws satisfy ``|Z| <= m_beta - 1``; the time
    does not grow with ``b`` (the former linear search from a 53-bit guess hung for
    ``b >~ 2^70``).
    """
    return discrete_laplace_union_quantile(K, scale, beta)


def _sens_parse(s: str) -> fmpq:
    return parse_fmpq_str(s, "sensitivity")


def _paper_alpha(priv: dict, gamma: fmpq, n: int, eps: fmpq, beta: fmpq) -> str:
    """thaler2012 Theorem 3.1: ``gamma + 4 T K^2 ln(K/beta)/(epsilon n)`` (rounded up)."""
    T = parse_fmpq_str(priv["sensitivity"]["T_paper_norm"], "T")
    K = int(priv["sensitivity"]["n_coordinates_paper"])
    v = arb(gamma) + 4 * arb(T) * arb(K) ** 2 * (arb(K) / arb(beta)).log() / (arb(eps) * n)
    return fmpq_to_decimal(arb_to_fmpq_bounds(v)[1], 8, rounding="up")


def _full_keys(m: int, d: int, i: int, doubled: bool, kmax: int | None = None):
    for key in itertools.combinations_with_replacement(range(m), i):
        sup = set(key)
        if kmax is not None and len(sup) > kmax:
            continue
        if doubled and any(j >= d and (j - d) in sup for j in sup):
            continue
        yield key


def tuv_answer(summary: Any, query: Sequence[Any], kind: str = "or",
               r: IntLike | None = None) -> fmpq:
    """Answer ``query`` from a summary (a :class:`TUVSummary` or its JSON dict, e.g. read
    from the file ``dpverify tuv-release`` writes): :meth:`TUVSummary.answer`, exact,
    post-processing only.

    Examples
    --------
    The summary of :func:`tuv_release`'s example, as JSON: "attribute 0 or 1" is answered
    ``12/17`` (the mean of ``g(1) = g(2) = 16/17`` over 3 of the 4 rows), and "attribute
    0" ``8/17`` (2 rows):

    >>> import json
    >>> rows = [[1, 0, 0], [0, 1, 0], [0, 0, 0], [1, 1, 0]]
    >>> text = json.dumps(tuv_release(rows, 2, "1/10", 2**60, insecure_seed=0).data)
    >>> tuv_answer(json.loads(text), [0, 1]), tuv_answer(json.loads(text), [0])
    (12/17, 8/17)
    """
    s = summary if isinstance(summary, TUVSummary) else TUVSummary(summary)
    return s.answer(query, kind, r)
