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
"""

from __future__ import annotations

from dataclasses import dataclass, field
from itertools import product
from typing import Any

import numpy as np

from ..errors import InvalidParameterError, MissingExtraError
from ..numbers import check_int
from .wang_summary import WangSummary, _check_data, chebyshev_table, release_summary

__all__ = ["grid_points", "discretise", "SyntheticDatabase", "release_synthetic"]

#: Largest LP (grid points x moments) accepted.
MAX_LP = 5_000_000


def grid_points(N: int) -> np.ndarray:
    """``a_k = (2k + 1 - N)/N``, k = 0..N-1 (jin Algorithm 1, Notations)."""
    return (2 * np.arange(N) + 1 - N) / N


def discretise(X: np.ndarray, N: int) -> np.ndarray:
    """Nearest grid point per coordinate (index form, ties to the lower index)."""
    idx = np.floor((X + 1) * N / 2).astype(np.int64)  # cell of width 2/N around a_k
    return np.clip(idx, 0, N - 1)


@dataclass(frozen=True)
class SyntheticDatabase:
    """Synthetic rows (grid points) with the summary they were fitted to."""

    rows: np.ndarray
    weights: np.ndarray
    summary: WangSummary
    privacy: dict
    info: dict = field(default_factory=dict)

    def answer(self, func: Any) -> float:
        """``(1/m) sum_{y in synthetic} f(y)`` for a numpy callable ``f(x1, ..., xd)``."""
        cols = [self.rows[:, j] for j in range(self.rows.shape[1])]
        return float(np.mean(np.asarray(func(*cols), dtype=np.float64)))

    def answer_weights(self, func: Any) -> float:
        """``sum_k u*_k f(a_k)`` (the expectation the sampling estimates)."""
        d = self.rows.shape[1]
        a = grid_points(self.info["N"])
        pts = np.array(list(product(a, repeat=d)))
        vals = np.asarray(func(*[pts[:, j] for j in range(d)]), dtype=np.float64)
        return float(self.weights @ vals)


def _linprog():
    try:
        from scipy.optimize import linprog
    except ImportError:  # pragma: no cover - scipy is installed in CI
        raise MissingExtraError(
            "the synthetic database LP needs scipy: pip install \"dpverify[lp]\"") from None
    return linprog


def release_synthetic(
    data: Any,
    t: Any,
    N: Any,
    epsilon: Any,
    *,
    m: Any = None,
    L: Any = None,
    delta: Any = None,
    grid_subset: Any = None,
    insecure_seed: Any = None,
    sample_seed: Any = 0,
) -> SyntheticDatabase:
    """jin Algorithm 1 (optionally the practical variant with a random grid subset).

    Parameters
    ----------
    data : (n, d) array in [-1, 1], d <= 4
    t : moments per axis;  N : grid points per axis
    epsilon, delta : privacy (see :func:`release_summary`)
    m : synthetic size (default ``n``);  L : rounding lattice ``{i/L}`` (default ``n``)
    grid_subset : int, optional -- restrict ``u`` to this many random grid points
    insecure_seed : noise seed (tests only);  sample_seed : seed of the (post-processing)
        grid subset and synthetic sampling.

    Guarantee
    ---------
    epsilon-DP (or (epsilon, delta)) by post-processing of :func:`release_summary`; the LP
    is solved in floats by HiGHS (no guarantee beyond its status, which must be optimal,
    else ``InvalidParameterError``).  jin Algorithm 1.
    """
    X = _check_data(data)
    n, d = X.shape
    t = check_int(t, "t", minimum=1)
    N = check_int(N, "N", minimum=1)
    m = n if m is None else check_int(m, "m", minimum=1, maximum=10**7)
    L = n if L is None else check_int(L, "L", minimum=1)
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
    idx = discretise(X, N)
    a = grid_points(N)
    summary = release_summary(a[idx], t, epsilon, delta=delta, insecure_seed=insecure_seed)
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
            "grid_subset": None if sub is None else len(sub)}
    return SyntheticDatabase(rows, weights, summary, summary.privacy, info)
