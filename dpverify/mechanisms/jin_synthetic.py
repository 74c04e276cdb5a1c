"""Private synthetic database for smooth queries (jin Algorithm 1), exact noise.

Steps (jin Algorithm 1)
-----------------------
1. Discretise every row to the grid ``A = {a_k = (2k + 1 - N)/N : k = 0..N-1}`` per axis
   (nearest point; ties to the lower index) -- a per-row map, so neighbouring databases stay
   neighbours.
2. Noisy Chebyshev moments ``b~_r``, ``||r||_inf <= t-1``, of the discretised data: exactly
   :func:`dpverify.mechanisms.wang_summary.release_summary` (same derived sensitivity
   ``2(t^d-1)/n``; jin step 9 prints ``Lap(t^d/(n epsilon))``, which is too small, see
   docs/mechanisms.md; its (epsilon, delta) variant likewise).
3. Round ``b~`` and ``W_{rk} = prod_i T_{r_i}(a_{k_i})`` to the lattice ``{i/L}`` (steps 10,
   15; post-processing) and solve the LP ``min ||W' u - b'||_1`` s.t. ``u >= 0``,
   ``sum u = 1`` (step 20) with scipy's HiGHS (optional extra ``dpverify[lp]``).
4. Sample ``m`` grid points from ``u*`` (steps 21-24).

Everything after step 2 is post-processing of the epsilon-DP moments, so the synthetic
database is epsilon-DP with the accounting of ``release_summary`` (recorded in
``privacy``).  The LP and the sampling are float / pseudo-random (no privacy role).

Guarantee
---------
Privacy: as :func:`release_summary` (exact discrete Laplace, derived sensitivity).  Utility:
heuristic (float LP); ``lp_objective`` reports the achieved ``||W'u - b'||_1``.
References: jin Algorithm 1 and the practical variant (random grid subset, lower-degree
basis subset) of its Section "Experiments".

Practical variant: basis subset and candidate grid (jin §3.4, Appendix A.5)
----------------------------------------------------------------------------
:func:`release_synthetic_basis` releases only the moments ``b_r`` for a public index set
``R`` (all ``||r||_1 <= s`` via :func:`basis_indices`, or the ``size`` lowest-degree ones),
computed for the index list directly from per-axis Chebyshev tables (no ``t^d`` tensor:
:func:`basis_moments`), so ``d`` up to :data:`MAX_D` works.  Sensitivity (derived): each
per-row basis value ``prod_i T_{r_i}(x_i)`` lies in ``[-1, 1]`` and ``b_0 = 1`` is public, so
``Delta_1 <= 2 (|R| - 1)/n`` (plus ``2g`` per coordinate for grid rounding after the proven
float error ``< g/2`` of :func:`basis_grid`).  The LP runs over ``C`` candidate points: a
random subset of the grid ``A^d`` (sampled as random multi-indices, public seed) or the
private PCA ellipsoid of :mod:`dpverify.mechanisms.jin_psi` (jin Algorithm 2) snapped to
``A^d``; its centre is the noisy degree-1 moments (``T_1(x) = x``: the private mean, by
post-processing), so the degree-1 indices must be in ``R``.  Total privacy = basic
composition of the moments and PSI (``privacy["total"]``).

Size: jin Algorithm 1 in both variants (full tensor, basis subset) with their
accounting; the variants share the discretisation, the basis values and the LP step.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import partial
from itertools import combinations_with_replacement, product
from math import comb, prod
from typing import Any

import numpy as np
from flint import fmpq

from ..errors import InvalidParameterError, MissingExtraError
from ..noise import RandomSource, round_to_grid, sample_discrete_laplace
from ..numbers import ExactLike, IntLike, check_int, fmpq_str, to_fmpq
from ..progress import report
from .backend import check_backend, reduce_rows
from .data import CUBE, DataSource, source_width
from .fixed_point import FACTOR_BITS, exact_column_sums
from .jin_psi import ellipsoid_points, private_subspace_iteration
from .moments import discretise, grid_points, snap
from .privacy import (
    calibrate_laplace,
    check_delta,
    check_epsilon,
    check_neighbours,
    compose_basic,
    guarantee_block,
)
from .wang_summary import (
    DEFAULT_GRID,
    chebyshev_table,
    check_data,
    release_summary,
)

__all__ = [
    "grid_points",
    "discretise",
    "snap",
    "SyntheticDatabase",
    "release_synthetic",
    "basis_indices",
    "basis_moments",
    "basis_moment_sums",
    "exact_basis_sums",
    "basis_error_bound",
    "basis_grid",
    "basis_privacy",
    "BasisSummary",
    "release_basis_summary",
    "release_synthetic_basis",
]

#: Largest data dimension of the basis-subset variant.
MAX_D = 1000
#: Largest basis subset |R|.
MAX_BASIS = 200_000

#: Largest LP (grid points x moments) accepted.
MAX_LP = 5_000_000


@dataclass(frozen=True)
class SyntheticDatabase:
    """Synthetic rows (grid points) with the summary they were fitted to."""

    rows: np.ndarray
    weights: np.ndarray
    summary: Any
    privacy: dict
    info: dict = field(default_factory=dict)
    support: Any = None

    def answer(self, func: Any) -> float:
        """``(1/m) sum_{y in synthetic} f(y)`` for a numpy callable ``f(x1, ..., xd)``."""
        cols = [self.rows[:, j] for j in range(self.rows.shape[1])]
        return float(np.mean(np.asarray(func(*cols), dtype=np.float64)))

    def answer_weights(self, func: Any) -> float:
        """``sum_k u*_k f(a_k)`` (the expectation the sampling estimates)."""
        d = self.rows.shape[1]
        if self.support is not None:
            pts = self.support
        else:
            a = grid_points(self.info["N"])
            pts = np.array(list(product(a, repeat=d)))
        vals = np.asarray(func(*[pts[:, j] for j in range(d)]), dtype=np.float64)
        return float(self.weights @ vals)


def _linprog():
    try:
        # optional dependency (the [lp] extra, scipy): only the LP step needs it
        from scipy.optimize import linprog
    except ImportError:  # pragma: no cover - scipy is installed in CI
        raise MissingExtraError(
            "the synthetic database LP needs scipy: pip install \"dpverify[lp]\"") from None
    return linprog


def release_synthetic(
    data: Any,
    t: IntLike,
    N: Any,
    epsilon: ExactLike,
    *,
    m: IntLike | None = None,
    L: IntLike | None = None,
    delta: ExactLike | None = None,
    grid_subset: Any = None,
    insecure_seed: Any = None,
    sample_seed: Any = 0,
    progress: Any = None,
    backend: str = "local",
    scheduler: Any = None,
    neighbours: str = "replace",
) -> SyntheticDatabase:
    """jin Algorithm 1 (optionally the practical variant with a random grid subset).

    ``progress``: optional ``(stage, done, total)`` callback (:mod:`dpverify.progress`).

    Parameters
    ----------
    data : (n, d) array or data source
        Values in ``[-1, 1]``, ``d <= 4``.
    t : int
        Moments per axis.
    N : int
        Grid points per axis.
    epsilon, delta : exact numbers
        Privacy (see :func:`release_summary`).
    m : int, optional
        Synthetic size (default ``n``; add-remove: the rounded noisy count).
    L : int, optional
        Rounding lattice ``{i/L}`` (default as ``m``).
    grid_subset : int, optional
        Restrict ``u`` to this many random grid points.
    insecure_seed : int, optional
        Noise seed (tests only: NOT private).
    sample_seed : int
        Seed of the (post-processing) grid subset and synthetic sampling.
    backend, scheduler
        ``"local"`` (default) or ``"dask"`` with ``data`` a CSV/Parquet source: the
        moment sums of the snapped rows are reduced on Dask
        (:func:`~dpverify.mechanisms.wang_summary.reduce_moment_sums`), noise is drawn
        once on the client (:func:`~dpverify.mechanisms.wang_summary.release_summary`).
    neighbours : {"replace", "add-remove"}
        As :func:`~dpverify.mechanisms.wang_summary.release_summary`.

    Guarantee
    ---------
    epsilon-DP (or (epsilon, delta)) by post-processing of :func:`release_summary`; the LP
    is solved in floats by HiGHS (no guarantee beyond its status, which must be optimal,
    else ``InvalidParameterError``).  jin Algorithm 1.

    Examples
    --------
    Four rows, ``t = 3`` moments, ``N = 4`` grid points ``a_k = (2k + 1 - N)/N``, six
    synthetic rows (needs scipy: ``pip install "dpverify[lp]"``).  The synthetic rows lie
    on the grid and their weights sum to 1; the noisy moments are exactly those
    :func:`~dpverify.mechanisms.wang_summary.release_summary` publishes for the snapped
    rows (same noise seed):

    >>> import numpy as np
    >>> from dpverify.mechanisms.wang_summary import release_summary
    >>> X = np.array([[0.5], [-0.25], [1.0], [0.0]])
    >>> syn = release_synthetic(X, 3, 4, 1, m=6, insecure_seed=0)    # seeded: NOT private
    >>> syn.rows.shape, set(syn.rows.ravel()) <= {-0.75, -0.25, 0.25, 0.75}
    ((6, 1), True)
    >>> bool(abs(syn.weights.sum() - 1) < 1e-9)
    True
    >>> syn.summary.moments == release_summary(snap(X, 4), 3, 1, insecure_seed=0).moments
    True
    """
    backend = check_backend(backend, scheduler)
    nb = check_neighbours(neighbours)
    t = check_int(t, "t", minimum=1)
    N = check_int(N, "N", minimum=1)
    check_epsilon(epsilon)
    if delta is not None:
        check_delta(delta)
    a = grid_points(N)
    # a data source is read block by block (either backend)
    streamed = backend == "dask" or isinstance(data, (str, DataSource))
    d = source_width(data) if streamed else check_data(data).shape[1]
    if m is not None:
        m = check_int(m, "m", minimum=1, maximum=10**7)
    if L is not None:
        L = check_int(L, "L", minimum=1)
    G = N**d
    sub = None
    rng = np.random.default_rng(sample_seed)  # post-processing randomness, not privacy noise
    if grid_subset is not None:
        C = check_int(grid_subset, "grid_subset", minimum=1, maximum=G)
        sub = np.sort(rng.choice(G, size=C, replace=False))
    cols = G if sub is None else len(sub)
    if cols * t**d > MAX_LP:
        raise InvalidParameterError(f"LP of {cols} x {t**d} exceeds {MAX_LP} entries")
    linprog = _linprog()
    # steps 4-9: the moments of the snapped rows, computed and noised by release_summary
    summary = release_summary(data, t, epsilon, delta=delta, insecure_seed=insecure_seed,
                              progress=progress, backend=backend, scheduler=scheduler,
                              neighbours=nb, snap=N)
    # n is public under replace-one; under add/remove the noisy count stands in for it
    # (post-processing)
    size = summary.n if summary.n is not None else _noisy_size(summary.sums)
    m = size if m is None else m
    L = size if L is None else L
    report(progress, f"LP ({cols} candidates x {t**d} moments, HiGHS)", 0)
    b = np.array([float(v) for v in summary.moments])
    b = np.round(b * L) / L  # step 10 (post-processing)
    Ta = chebyshev_table(a, t)  # (N, t): T_r(a_k)
    W = np.ones((1, 1))
    for _ in range(d):
        W = np.einsum("rk,sl->rskl", W, Ta.T).reshape(W.shape[0] * t, W.shape[1] * N)
    W = np.round(W * L) / L  # step 15
    if sub is not None:
        W = W[:, sub]
    R = W.shape[0]
    # variables [u (cols), s (R)]: min sum s, -s <= W u - b <= s, sum u = 1, u, s >= 0
    c = np.concatenate([np.zeros(cols), np.ones(R)])
    eye = np.eye(R)
    A_ub = np.block([[W, -eye], [-W, -eye]])
    b_ub = np.concatenate([b, -b])
    A_eq = np.concatenate([np.ones(cols), np.zeros(R)])[None, :]
    res = linprog(c, A_ub=A_ub, b_ub=b_ub, A_eq=A_eq, b_eq=[1.0], bounds=(0, None),
                  method="highs")
    if res.status != 0:
        raise InvalidParameterError(f"the LP failed: {res.message}")
    u = np.clip(res.x[:cols], 0, None)
    u = u / u.sum()
    weights = np.zeros(G)
    weights[sub if sub is not None else slice(None)] = u
    pick = rng.choice(G, size=m, p=weights)
    multi = np.array(np.unravel_index(pick, (N,) * d)).T
    rows = a[multi]
    info = {"t": t, "N": N, "L": L, "m": m, "lp_objective": float(res.fun),
            "grid_subset": None if sub is None else len(sub),
            "float_error": summary.info["float_error"], "neighbours": nb}
    if "statistics" in summary.info:
        info["statistics"] = summary.info["statistics"]
    return SyntheticDatabase(rows, weights, summary, summary.privacy, info)


def _noisy_size(sums: Any) -> int:
    """A row count from a noisy count (post-processing): ``max(1, round(count))``."""
    return max(1, int(round_to_grid(sums[0], fmpq(1)).p))


# ------------------------------------------------------------------ basis-subset variant


def basis_indices(d: IntLike, *, degree: IntLike | None = None, size: Any = None,
                  seed: Any = 0) -> np.ndarray:
    """Public index set ``R`` (rows of an ``(|R|, d)`` int array, ``r = 0`` first).

    ``degree=s``: every ``r`` with ``||r||_1 <= s`` (``C(d+s, s)`` indices), ordered by total
    degree.  ``size=R``: the ``R`` indices of lowest total degree (jin §3.4: "a subset of size
    R ... preferred to lower degrees"); the last degree level is subsampled with the public
    ``seed``.  Both given: the first ``size`` of the ``degree`` set.
    """
    d = check_int(d, "d", minimum=1, maximum=MAX_D)
    if degree is None and size is None:
        raise InvalidParameterError("give degree or size for the basis subset")
    s = None if degree is None else check_int(degree, "degree", minimum=0, maximum=10_000)
    R = None if size is None else check_int(size, "size", minimum=1, maximum=MAX_BASIS)
    if s is not None and comb(d + s, s) > MAX_BASIS:
        raise InvalidParameterError(
            f"degree: C(d+s, s) = {comb(d + s, s)} basis functions exceed {MAX_BASIS}")
    gen = np.random.default_rng(check_int(seed, "seed", minimum=0))  # public index choice
    chosen: list[tuple[int, ...]] = []  # multisets of axes (an axis repeated = its degree)
    level = 0
    while (s is None or level <= s) and (R is None or len(chosen) < R):
        total = comb(d + level - 1, level)
        need = total if R is None else min(total, R - len(chosen))
        if need == total or total <= max(4 * need, 10**5):
            level_sets = list(combinations_with_replacement(range(d), level))
            if need < total:
                pick = np.sort(gen.choice(total, size=need, replace=False))
                level_sets = [level_sets[i] for i in pick]
        else:
            # a huge level and few picks: uniform distinct multisets by rejection, without
            # enumerating the level (stars and bars: an increasing level-subset of
            # range(d + level - 1) minus (0, 1, ..., level - 1) is a sorted multiset)
            seen: set[tuple[int, ...]] = set()
            while len(seen) < need:
                sub = np.sort(gen.choice(d + level - 1, size=level, replace=False))
                seen.add(tuple(int(v) - i for i, v in enumerate(sub)))
            level_sets = sorted(seen)
        chosen.extend(level_sets)
        level += 1
    out = np.zeros((len(chosen), d), dtype=np.int64)
    for row, ms in enumerate(chosen):
        for i in ms:
            out[row, i] += 1
    return out


def _check_rows(data: Any) -> np.ndarray:
    X = np.asarray(data, dtype=np.float64)
    if X.ndim == 1:
        X = X.reshape(-1, 1)
    if X.ndim != 2 or X.shape[0] < 1:
        raise InvalidParameterError("data must be a non-empty (n, d) array")
    if X.shape[1] > MAX_D:
        raise InvalidParameterError(f"data dimension d must be <= {MAX_D}, got {X.shape[1]}")
    if not np.all(np.isfinite(X)) or X.min() < -1 or X.max() > 1:
        raise InvalidParameterError("data values must lie in [-1, 1]")
    return X


def _check_basis(basis: Any, d: int) -> np.ndarray:
    B = np.asarray(basis)
    if B.ndim != 2 or B.shape[1] != d or B.shape[0] < 1 or not np.issubdtype(B.dtype,
                                                                               np.integer):
        raise InvalidParameterError(f"basis must be an integer (|R|, {d}) array")
    if B.min() < 0 or B.sum(axis=1).max() > 10_000:
        raise InvalidParameterError("basis indices must be >= 0 with total degree <= 10000")
    if B.shape[0] > MAX_BASIS:
        raise InvalidParameterError(f"basis has {B.shape[0]} > {MAX_BASIS} indices")
    if B[0].any():
        raise InvalidParameterError("basis[0] must be the constant index r = 0")
    if len({tuple(r) for r in B.tolist()}) != len(B):
        raise InvalidParameterError("basis indices must be distinct")
    return B.astype(np.int64)


def _factor_lists(B: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(axes, degrees) of the non-zero entries of each index, padded with degree 0."""
    w = max(1, int((B > 0).sum(axis=1).max()))
    axes = np.zeros((len(B), w), dtype=np.int64)
    degs = np.zeros((len(B), w), dtype=np.int64)
    for j, r in enumerate(B):
        nz = np.nonzero(r)[0]
        axes[j, : len(nz)] = nz
        degs[j, : len(nz)] = r[nz]
    return axes, degs


def _basis_values(P: np.ndarray, B: np.ndarray) -> np.ndarray:
    """``V[c, j] = prod_i T_{B[j, i]}(P[c, i])`` (float64, products of per-axis tables)."""
    tmax = int(B.max()) + 1
    tabs = np.stack([chebyshev_table(P[:, i], tmax) for i in range(P.shape[1])], axis=1)
    axes, degs = _factor_lists(B)
    V = tabs[:, axes[:, 0], degs[:, 0]]
    for f in range(1, axes.shape[1]):
        V = V * tabs[:, axes[:, f], degs[:, f]]  # factors T_0 = 1.0 multiply exactly
    return V


def exact_basis_sums(data: Any, basis: Any, *, chunk: int = 4096) -> np.ndarray:
    """``J[r] = sum_x fixed_point(prod_i T_{r_i}(x_i))`` for the rows ``r`` of ``basis``:
    exact Python ints at scale ``2^FACTOR_BITS`` (the statistic summed over rows and over
    partitions).  Per row: per-axis Chebyshev tables (three-term recurrence) and, per
    index, the product of its non-zero factors -- never a ``t^d`` tensor -- each a
    function of that row alone; then the exact sums of
    :func:`~dpverify.mechanisms.fixed_point.exact_column_sums` (any split, any order:
    the same integers).  ``J[0] = n 2^FACTOR_BITS``."""
    X = _check_rows(data)
    B = _check_basis(basis, X.shape[1])
    rows = max(1, chunk * 64 // max(1, len(B)))
    acc = np.zeros(len(B), dtype=object)
    for i0 in range(0, len(X), rows):
        acc = acc + exact_column_sums(_basis_values(X[i0 : i0 + rows], B))
    return acc


def basis_moment_sums(data: Any, basis: Any, *, chunk: int = 4096) -> np.ndarray:
    """``sum_x prod_i T_{r_i}(x_i)`` for the rows ``r`` of ``basis`` (float64): the exact
    fixed-point sums of :func:`exact_basis_sums` rounded to float64 once; within ``n``
    :func:`basis_error_bound` (plus that rounding) of the exact sums."""
    J = exact_basis_sums(data, basis, chunk=chunk)
    return np.array([int(v) / 2**FACTOR_BITS for v in J], dtype=np.float64)


def basis_moments(data: Any, basis: Any, *, chunk: int = 4096) -> np.ndarray:
    """``b_r = (1/n) sum_x prod_i T_{r_i}(x_i)`` for the rows ``r`` of ``basis`` (float64):
    :func:`basis_moment_sums` divided by ``n``; within :func:`basis_error_bound` (plus two
    final roundings) of the exact moments.
    """
    X = _check_rows(data)
    return basis_moment_sums(X, basis, chunk=chunk) / len(X)


def _snapped_basis_sums(X: np.ndarray, basis: np.ndarray, N: int | None) -> np.ndarray:
    # map step of the streamed / dask reduction (module level: picklable)
    return exact_basis_sums(X if N is None else snap(X, N), basis)


def basis_error_bound(max_degree: Any) -> fmpq:
    """A priori bound ``E = 4 (S^2 + S) 2^-53 + 2^-37`` on ``|fixed-point basis value of a
    row - exact value|`` (hence on the error of every basis moment mean, whatever ``n``).

    Guarantee (IEEE binary64, round to nearest; rows in ``[-1, 1]``; ``S <= 10^4``)
    -------------------------------------------------------------------------------
    Per index ``r`` with ``S_r = ||r||_1 <= S`` and ``w_r <= S_r`` non-zero entries:
    1. each table entry ``T^_{r_i}(x_i)`` has error ``<= 3 r_i^2 u`` and modulus
       ``<= 1 + 1.2e-5`` (the recurrence lemma of
       :func:`~dpverify.mechanisms.moments.moment_error_bound`);
    2. the product of the ``w_r`` non-trivial factors (padding factors ``T_0 = 1.0``
       multiply exactly) differs from the exact product by ``<= sum_i 3 r_i^2 u (1 + 2e-5)
       + (w_r - 1) u (1 + 2e-5) <= (3 S^2 + S) u (1 + 2e-5)`` (``sum r_i^2 <= S_r^2``);
    3. the fixed point ``2^-36`` adds ``<= 2^-37``, and the clamp to ``[-1, 1]`` only moves
       the value towards the exact one.
    The sums over rows are exact, so a mean is within ``E``.  Accuracy only: privacy rests
    on the clamp.  ``tests/test_jin_synthetic.py`` checks the moments against exact
    rational evaluation.
    """
    S = check_int(max_degree, "max_degree", minimum=0, maximum=10_000)
    return 4 * (S * S + S) * fmpq(1, 2**53) + fmpq(1, 2**(FACTOR_BITS + 1))


def basis_grid(n: IntLike, max_degree: Any) -> fmpq:
    """The default noise grid of the basis moments, :data:`~dpverify.mechanisms.
    wang_summary.DEFAULT_GRID` (``2^-40``): the sums are exact, so privacy adds only ``g``
    per coordinate for the rounding (``n`` and the degree are validated)."""
    check_int(n, "n", minimum=1, maximum=2**40)
    check_int(max_degree, "max_degree", minimum=0, maximum=10_000)
    return DEFAULT_GRID


def basis_privacy(n: IntLike | None, basis_size: Any, max_degree: Any, epsilon: ExactLike,
                  delta: ExactLike | None = None, grid: Any = None, *,
                  neighbours: str = "replace", secure: bool = True,
                  assumptions: Any = ()) -> tuple[dict[str, Any], fmpq]:
    """Privacy record and noise scale of the basis-subset moments (only ``n``, ``|R|`` and
    the largest degree are needed).  Replace-one: per-coordinate sensitivity ``2/n + g``
    on the ``|R| - 1`` means (``b_0 = 1`` public), and jin step 9's scale pattern
    ``|R|/(n epsilon)`` (``t^d -> |R|``) with what it achieves.  Add/remove (``n=None``):
    ``1 + g`` on the ``|R|`` sums, the count included.  Calibration as in
    :func:`dpverify.mechanisms.wang_summary.wang_privacy`.

    Guarantee
    ---------
    Exact rationals; epsilon exact (pure) or a rigorous upper bound (advanced composition).
    """
    nb = check_neighbours(neighbours)
    if nb == "replace" or n is not None:
        n = check_int(n, "n", minimum=1, maximum=2**40)
    R = check_int(basis_size, "basis_size", minimum=1, maximum=MAX_BASIS)
    S = check_int(max_degree, "max_degree", minimum=0, maximum=10_000)
    eps = check_epsilon(epsilon)
    if delta is not None:
        delta = check_delta(delta)
    g = DEFAULT_GRID if grid is None else to_fmpq(grid, "grid")
    if g <= 0 or g > fmpq(1, 1024):
        raise InvalidParameterError(f"grid must be in (0, 1/1024], got {fmpq_str(g)}")
    privacy: dict[str, Any] = {"neighbouring": ("same n, one row replaced" if nb == "replace"
                                                else "one row added or removed (n private)"),
                               "basis_size": R, "max_degree": S}
    if nb == "replace":
        assert n is not None
        cnt, per = R - 1, fmpq(2, n) + g
        printed = fmpq(R, n) / eps  # jin step 9 with t^d replaced by |R|
        privacy.update({
            "moment_sensitivity_l1": fmpq_str(fmpq(2 * cnt, n)),
            "noise": "discrete Laplace on grid g (exact sampler); b_0 = 1 released without "
                     "noise",
            "paper": {
                "jin_step9_pattern_scale": fmpq_str(printed),
                "jin_step9_pattern_achieved_epsilon": fmpq_str(cnt * per / printed),
                "jin_step9_pattern_valid": bool(cnt * per / printed <= eps),
            },
        })
        how = ("per-row basis values clamped to [-1, 1] in fixed point, exact sums: one "
               "replaced row moves a mean by <= 2/n; grid rounding adds <= g")
    else:
        cnt, per = R, 1 + g
        privacy.update({
            "moment_sensitivity_l1": str(R),
            "noise": "discrete Laplace on grid g (exact sampler) on every basis sum, the "
                     "count (r = 0) included",
            "paper": "the papers use replace-one neighbours (n public); not compared",
        })
        how = ("per-row basis values clamped to [-1, 1] in fixed point, exact sums: an "
               "added or removed row moves each sum by <= 1; grid rounding adds <= g")
    privacy.update({"grid": fmpq_str(g), "per_coordinate": fmpq_str(per),
                    "l1_sensitivity": fmpq_str(cnt * per), "noisy_coordinates": cnt})
    scale, fields = calibrate_laplace(per, cnt, eps, delta)
    privacy.update(fields)
    proven = [] if assumptions else [{"claim": f"per-coordinate sensitivity {fmpq_str(per)}",
                                      "how": how}]
    privacy["guarantee"] = guarantee_block(
        neighbours=nb, domain="[-1, 1]^d", epsilon=privacy["achieved_epsilon"],
        delta=privacy.get("delta") or "0", secure=secure, assumptions=list(assumptions),
        proven=proven)
    privacy["assumptions"] = list(assumptions)
    privacy["secure_randomness"] = bool(secure)
    return privacy, scale


@dataclass(frozen=True)
class BasisSummary:
    """Noisy moments ``b~_r`` for the public index set ``basis`` (replace: exact multiples
    of ``grid``; add-remove: ``sums`` are the noisy sums, ``sums[0]`` the noisy count, and
    ``moments`` their ratios, ``n`` is ``None``)."""

    basis: np.ndarray
    n: int | None
    grid: fmpq
    moments: tuple[fmpq, ...]
    privacy: dict
    info: dict = field(default_factory=dict)
    neighbours: str = "replace"
    sums: tuple[fmpq, ...] | None = None

    def mean(self) -> np.ndarray:
        """Private mean = noisy degree-1 moments (``T_1(x) = x``; post-processing)."""
        d = self.basis.shape[1]
        pos = {tuple(r): j for j, r in enumerate(self.basis.tolist())}
        out = np.empty(d)
        for i in range(d):
            e = [0] * d
            e[i] = 1
            if tuple(e) not in pos:
                raise InvalidParameterError("the basis has no degree-1 moment for axis "
                                            f"{i}: the private mean needs them")
            out[i] = float(self.moments[pos[tuple(e)]])
        return out

    def to_json(self) -> dict:
        out = {"mechanism": "jin-basis-summary", "reference": "jin §3.4 (basis subset)",
               "n": self.n, "neighbours": self.neighbours, "grid": fmpq_str(self.grid),
               "basis": self.basis.tolist(), "moments": [fmpq_str(v) for v in self.moments],
               "privacy": self.privacy, **self.info}
        if self.sums is not None:
            out["sums"] = [fmpq_str(v) for v in self.sums]
        return out


def release_basis_summary(data: Any, basis: Any, epsilon: ExactLike, *,
                          delta: ExactLike | None = None,
                          grid: Any = None, insecure_seed: Any = None,
                          sums: Any = None, n: IntLike | None = None,
                          info: dict | None = None, neighbours: str = "replace",
                          snap_to: IntLike | None = None, backend: str = "local",
                          scheduler: Any = None, progress: Any = None) -> BasisSummary:
    """Noisy moments for the public index set ``basis`` (first row ``r = 0``).

    ``data``: an ``(n, d)`` array in ``[-1, 1]`` or a data source (streamed, ``backend``
    local or dask: exact sums per block, added exactly); ``snap_to=N`` snaps every
    coordinate to jin's grid ``A_N`` first (a per-row map).  ``sums``/``n`` (instead of
    ``data=None``): sums computed by the caller -- dpverify did not compute them, so the
    record lists "the sums are the basis sums of n rows in [-1, 1]^d" as an assumption
    (replace-one only; sums outside ``[-n, n]`` or ``sums[0] != n`` are refused).

    Guarantee
    ---------
    epsilon-DP (or (epsilon, delta) by advanced composition) for the chosen neighbours
    with the derived sensitivity of :func:`basis_privacy` (exact fixed-point sums: the
    same release for every split, order and encoding of the rows); exact noise.
    """
    nb = check_neighbours(neighbours)
    src = RandomSource(insecure_seed)
    assumptions: list[str] = []
    extra: dict[str, Any] = dict(info or {})
    N = None if snap_to is None else check_int(snap_to, "snap_to", minimum=1, maximum=10**6)
    if sums is not None:
        if data is not None:
            raise InvalidParameterError("give data or sums, not both")
        if nb != "replace":
            raise InvalidParameterError("sums from the caller: replace-one neighbours only")
        n = check_int(n, "n", minimum=1)
        B = np.asarray(basis)
        if B.ndim != 2:
            raise InvalidParameterError("basis must be a 2-D index array")
        B = _check_basis(B, B.shape[1])
        vals = [to_fmpq(v, "sums") for v in np.asarray(sums, dtype=object).ravel()]
        if len(vals) != len(B):
            raise InvalidParameterError(f"sums must be {len(B)} numbers")
        if vals[0] != n or any(abs(v) > n for v in vals):
            raise InvalidParameterError(
                "sums: basis sums of n rows in [-1, 1]^d lie in [-n, n] with sums[0] = n")
        J = [v * 2**FACTOR_BITS for v in vals]
        assumptions.append(f"sums = the basis moment sums of n = {n} rows in [-1, 1]^d "
                           "(supplied by the caller; dpverify did not compute them)")
    elif isinstance(data, (str, DataSource)) or backend == "dask":
        d = source_width(data)
        B = _check_basis(basis, d)
        red = reduce_rows(data, partial(_snapped_basis_sums, basis=B, N=N), domain=CUBE,
                          min_columns=d, max_columns=d, scheduler=scheduler,
                          backend=check_backend(backend, scheduler), progress=progress)
        n, J = red.n, list(red.value)
        if backend == "dask":
            extra["statistics"] = red.info()
    else:
        X = _check_rows(data)
        B = _check_basis(basis, X.shape[1])
        n = len(X)
        J = list(exact_basis_sums(X if N is None else snap(X, N), B))
    S = int(B.sum(axis=1).max())
    privacy, scale = basis_privacy(n if nb == "replace" else None, len(B), S, epsilon, delta,
                                   grid, neighbours=nb, secure=src.secure,
                                   assumptions=assumptions)
    g = to_fmpq(privacy["grid"], "grid")
    den = 2**FACTOR_BITS * (n if nb == "replace" else 1)
    out = [fmpq(1)] if nb == "replace" else []
    for v in J[len(out):]:
        out.append(round_to_grid(fmpq(int(v), den), g) + sample_discrete_laplace(scale, g, src))
    sums_out = None
    if nb == "add-remove":
        sums_out = tuple(out)
        c = max(sums_out[0], fmpq(1))
        out = [fmpq(1)] + [v / c for v in sums_out[1:]]
        extra["count"] = fmpq_str(sums_out[0])
    extra["float_error"] = {
        "per_moment_bound": fmpq_str(basis_error_bound(S)),
        "formula": "4 (S^2 + S) 2^-53 + 2^-37 (S the largest total degree; per-row values "
                   "in fixed point 2^-36, exact sums)",
        "holds_for": "every backend, chunking, file split and row order (exact sums)",
        "role": "accuracy only: the privacy accounting does not use it",
    }
    if not src.secure:
        extra["insecure_seed"] = src.seed
    return BasisSummary(B, n if nb == "replace" else None, g, tuple(out), privacy, extra,
                        neighbours=nb, sums=sums_out)


def _lp_fit(V: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, float]:
    """``min ||V^T u - b||_1`` s.t. ``u >= 0``, ``sum u = 1`` (HiGHS, sparse blocks)."""
    # optional dependency (the [lp] extra, scipy): only the LP step needs it
    from scipy import sparse

    linprog = _linprog()
    C, R = V.shape
    W = sparse.csr_matrix(V.T)
    eye = sparse.identity(R, format="csr")
    A_ub = sparse.vstack([sparse.hstack([W, -eye]), sparse.hstack([-W, -eye])], format="csr")
    b_ub = np.concatenate([b, -b])
    A_eq = sparse.csr_matrix(np.concatenate([np.ones(C), np.zeros(R)])[None, :])
    c = np.concatenate([np.zeros(C), np.ones(R)])
    res = linprog(c, A_ub=A_ub, b_ub=b_ub, A_eq=A_eq, b_eq=[1.0], bounds=(0, None),
                  method="highs")
    if res.status != 0:
        raise InvalidParameterError(f"the LP failed: {res.message}")
    u = np.clip(res.x[:C], 0, None)
    return u / u.sum(), float(res.fun)


def release_synthetic_basis(
    data: Any,
    N: Any,
    epsilon: Any,
    *,
    basis_degree: Any = None,
    basis_size: Any = None,
    delta: Any = None,
    m: Any = None,
    L: Any = None,
    grid_subset: Any = None,
    psi_k: Any = None,
    psi_iters: Any = 10,
    psi_epsilon: Any = None,
    psi_delta: Any = None,
    candidates: Any = 10_000,
    radius_scale: Any = 1.0,
    support_points: Any = None,
    progress: Any = None,
    insecure_seed: Any = None,
    sample_seed: Any = 0,
    backend: str = "local",
    scheduler: Any = None,
    neighbours: str = "replace",
) -> SyntheticDatabase:
    """jin Algorithm 1, practical variant (jin §3.4): basis subset + candidate grid subset.

    Parameters
    ----------
    data : (n, d) array or data source
        Values in ``[-1, 1]``, ``d <= MAX_D``.
    N : int
        Grid points per axis (data and candidates are snapped to ``A^d``, jin step 4).
    epsilon, delta : exact numbers
        Privacy of the moments (:func:`release_basis_summary`).
    basis_degree, basis_size : int
        The public index set (:func:`basis_indices`): one of the two.
    m : int, optional
        Synthetic size (default ``n``).
    L : int, optional
        Rounding lattice ``{i/L}`` (steps 10, 15).
    grid_subset : int, optional
        ``C`` random grid points (uniform multi-indices, public ``sample_seed``).
    psi_k, psi_iters, psi_epsilon, psi_delta
        Candidates from the private PCA ellipsoid (jin Algorithm 2,
        :func:`~dpverify.mechanisms.jin_psi.private_subspace_iteration`; ``psi_delta``
        -> Gaussian, else Laplace), ``candidates`` points, ``radius_scale``.
    support_points : (C, d) array, optional
        Explicit candidate points, snapped to ``A^d``.  They must be **public**
        (data-independent or already private); otherwise the release is not private
        (used by benchmarks/experiments.py for a labelled non-private reference).
    insecure_seed : int, optional
        Noise seed (tests only: NOT private).
    sample_seed : int
        Post-processing randomness.
    backend, scheduler
        ``"local"`` (default) or ``"dask"`` with ``data`` a CSV/Parquet source: the basis
        moment sums of the snapped rows are reduced on Dask and noised once on the
        client.  PSI (``psi_k``) iterates over the data and is local only.
    neighbours : {"replace", "add-remove"}
        As :func:`release_basis_summary` (PSI: replace only).

    Guarantee
    ---------
    Moments: as :func:`release_basis_summary`; PSI: as ``private_subspace_iteration``;
    everything else is post-processing, so the release is ``(eps + psi_eps, delta +
    psi_delta)``-DP by basic composition (``privacy["total"]``).  LP / sampling: float,
    heuristic (HiGHS status must be optimal).

    Examples
    --------
    Two columns, every basis index of total degree ``<= 2`` (``C(2 + 2, 2) = 6`` of them,
    ``r = 0`` first, whose moment ``b_0 = 1`` is public), ``N = 4`` grid points per axis,
    five synthetic rows (needs scipy: ``pip install "dpverify[lp]"``):

    >>> import numpy as np
    >>> X = np.array([[0.5, 0.125], [-0.25, 0.375], [1.0, -1.0], [0.0, 0.75]])
    >>> syn = release_synthetic_basis(X, 4, 1, basis_degree=2, m=5, insecure_seed=0)
    >>> syn.summary.basis.tolist()
    [[0, 0], [1, 0], [0, 1], [2, 0], [1, 1], [0, 2]]
    >>> syn.summary.moments[0], syn.rows.shape
    (1, (5, 2))
    >>> total = syn.privacy["total"]           # moments (and PSI, when used) composed
    >>> total.epsilon, total.delta
    (1, 0)
    """
    backend = check_backend(backend, scheduler)
    # a data source is read block by block (either backend)
    streamed = backend == "dask" or isinstance(data, (str, DataSource))
    if streamed:
        if psi_k is not None:
            raise InvalidParameterError(
                "psi_k (private subspace iteration) needs several passes over the data and "
                "the rows in memory: backend 'local' with the rows as an array")
        d = source_width(data)
        if not 1 <= d <= MAX_D:
            raise InvalidParameterError(f"data dimension d must be 1..{MAX_D}, got {d}")
        X: np.ndarray | None = None
    else:
        X = _check_rows(data)
        n, d = X.shape
    N = check_int(N, "N", minimum=1, maximum=10**6)
    if m is not None:
        m = check_int(m, "m", minimum=1, maximum=10**7)
    L = None if L is None else check_int(L, "L", minimum=1)
    check_epsilon(epsilon)
    if delta is not None:
        check_delta(delta)
    if psi_epsilon is not None:
        check_epsilon(psi_epsilon, "psi_epsilon")
    if psi_delta is not None:
        check_delta(psi_delta, "psi_delta")
    B = basis_indices(d, degree=basis_degree, size=basis_size, seed=sample_seed)
    given = sum(v is not None for v in (grid_subset, psi_k, support_points))
    if given > 1:
        raise InvalidParameterError("give at most one of grid_subset, psi_k, support_points")
    if given == 0 and prod([N] * d) > 200_000:
        raise InvalidParameterError("N^d is too large for the full grid: give grid_subset, "
                                    "psi_k or support_points")
    rng = np.random.default_rng(check_int(sample_seed, "sample_seed", minimum=0))  # public
    a = grid_points(N)
    nb = check_neighbours(neighbours)
    seed2 = None if insecure_seed is None else int(insecure_seed) + 1
    psi = None
    if psi_k is not None:
        if psi_epsilon is None:
            raise InvalidParameterError("psi_epsilon is required with psi_k")
        if nb != "replace":
            raise InvalidParameterError(
                "psi_k: the private subspace iteration is accounted for replace-one "
                "neighbours only (its covariance is normalised by the public n); use "
                "neighbours='replace' or grid_subset")
        assert X is not None  # psi_k is refused above for a streamed source
        report(progress, "private subspace iteration", 0)
        psi = private_subspace_iteration(a[discretise(X, N)], psi_k, psi_iters, psi_epsilon,
                                         delta=psi_delta,
                                         insecure_seed=seed2)
    report(progress, f"moments ({len(B)} basis functions)", 0)
    summary = release_basis_summary(data if streamed else X, B, epsilon, delta=delta,
                                    insecure_seed=insecure_seed, neighbours=nb, snap_to=N,
                                    backend=backend, scheduler=scheduler, progress=progress)
    size = summary.n if summary.n is not None else _noisy_size(summary.sums)
    if m is None:
        m = size
    if psi is not None:
        C = check_int(candidates, "candidates", minimum=1, maximum=10**6)
        pts = ellipsoid_points(psi, summary.mean(), C, radius_scale=radius_scale,
                               seed=int(rng.integers(2**31)))
        cidx = np.unique(discretise(pts, N), axis=0)
    elif support_points is not None:
        sp = np.asarray(support_points, dtype=np.float64)
        if sp.ndim != 2 or sp.shape[1] != d or not np.all(np.isfinite(sp)):
            raise InvalidParameterError(f"support_points must be a finite (C, {d}) array")
        cidx = np.unique(discretise(np.clip(sp, -1, 1), N), axis=0)
    elif grid_subset is not None:
        C = check_int(grid_subset, "grid_subset", minimum=1, maximum=10**6)
        cidx = np.unique(rng.integers(0, N, size=(C, d)), axis=0)
    else:
        cidx = np.array(list(product(range(N), repeat=d)), dtype=np.int64).reshape(-1, d)
    support = a[cidx]
    b = np.array([float(v) for v in summary.moments])
    V = _basis_values(support, B)
    if L is not None:
        b, V = np.round(b * L) / L, np.round(V * L) / L  # steps 10, 15 (post-processing)
    if V.size > 4 * MAX_LP:
        raise InvalidParameterError(f"LP of {V.shape[0]} x {V.shape[1]} is too large")
    report(progress, f"LP ({V.shape[0]} candidates x {V.shape[1]} moments, HiGHS)", 0)
    u, obj = _lp_fit(V, b)
    pick = rng.choice(len(support), size=m, p=u)
    rows = support[pick]
    parts = [summary.privacy] + ([psi.privacy] if psi is not None else [])
    total = compose_basic(parts)
    assumptions = list(summary.privacy["assumptions"])
    if support_points is not None:
        # the candidates enter the output; the total holds only if they are public
        assumptions.append("support_points are public (chosen without the private data); "
                           "otherwise the total above does not hold")
    secure = bool(summary.privacy["secure_randomness"])
    privacy = {"moments": summary.privacy, "psi": None if psi is None else psi.privacy,
               "total": total,
               "achieved_epsilon": total["epsilon"],
               "scale": summary.privacy["scale"],
               "neighbouring": summary.privacy["neighbouring"],
               "assumptions": assumptions,
               "secure_randomness": secure,
               "guarantee": guarantee_block(
                   neighbours=nb, domain="[-1, 1]^d", epsilon=total["epsilon"],
                   delta=total["delta"], secure=secure, assumptions=assumptions,
                   proven=summary.privacy["guarantee"]["proven"]
                   + ([{"claim": "PSI steps: exact sensitivity of A X per step",
                        "how": "jin_psi.step_sensitivity (exact covariance change, rows "
                               "rounded to 2^-20, fmpz products)"}] if psi else []))}
    info = {"N": N, "L": L, "m": m, "lp_objective": obj, "basis_size": len(B),
            "basis_degree": None if basis_degree is None else int(basis_degree),
            "candidates": len(support), "grid_subset": grid_subset,
            "psi_k": None if psi is None else int(psi_k),
            "psi_eigenvalues": None if psi is None else [float(v) for v in psi.eigenvalues],
            "neighbours": nb, "float_error": summary.info["float_error"]}
    if "statistics" in summary.info:
        info["statistics"] = summary.info["statistics"]
    return SyntheticDatabase(rows, u, summary, privacy, info, support=support)
