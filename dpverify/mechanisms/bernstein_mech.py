"""The Bernstein mechanism (alda2017 Algorithm 1, Theorems 3 and 7) with exact accounting.

Mechanism
---------
Sanitiser: evaluate the user function ``F(D, y)`` on the lattice ``P = {0, 1/k, ..., 1}^l``
(``m = (k+1)^l`` points), put every value on the grid ``g Z`` (exact rationals), add
independent discrete Laplace noise ``g * DLap(lambda / g)`` (exact sampler, no floats) and
publish the noisy lattice values.  Evaluator (public, no data): the iterated Bernstein
polynomial ``sum_nu F~(nu/k) prod_i b^{(h)}_{nu_i,k}(y_i)`` -- the nested (tensor) sum;
alda2017 Algorithm 1 line 11 prints ``sum_{j=1}^{l} sum_{nu_j}``, a misprint (docs/bernstein.md).
Its Bernstein coefficients ``M F~`` (``M`` of Definition 8 along every axis) are computed
exactly; evaluation is exact at rational ``y`` and by de Casteljau in float64 otherwise.

Evaluation modes and per-coordinate sensitivity (derived; one row replaced, same n)
-----------------------------------------------------------------------------------
Each lattice value is ``F(., p)``, of sensitivity ``<= S(F)`` (alda2017 §2); how the value
is computed decides what is added for the grid (``round_g`` = nearest multiple of ``g``,
``|round_g(x) - x| <= g/2``).  For neighbours ``D ~ D'`` and released centres ``c, c'``:

* ``mean`` (:func:`~dpverify.mechanisms.bernstein_queries.mean_query`; KDE, linear-mean):
  ``c = round_g(g J / n)``, ``J = sum_i clamp(rint(phi(d_i, p)/g), L, H)`` summed exactly as
  integers, ``L = floor(lo/g)``, ``H = ceil(hi/g)``.  Replacing one row moves ``J`` by at
  most ``H - L`` whatever the float values of ``phi`` are, so
  ``|c - c'| <= g (H - L)/n + g`` -- *unconditionally* (no float assumption).
  ``g (H - L) <= hi - lo + 2g``; with ``lo, hi`` on the grid it is ``hi - lo``.
* ``exact``: ``c = round_g(F(D, p))`` with ``F`` exact: ``|c - c'| <= S + g``.
* ``ball`` (arb): ``c = round_g(mid)`` of a ball of radius ``<= e_max`` (checked; precision
  doubled up to ``max_prec`` before refusing): ``|c - F| <= e_max + g/2``, so
  ``|c - c'| <= S + 2 e_max + g``.
* ``float``: declared public ``|F_float - F| <= float_error`` (an *assumption*, listed in
  the privacy record): ``|c - c'| <= S + 2 float_error + g``.

The L1 sensitivity of the ``m`` centres is ``<= m S_coord``, attained (e.g.
``F(D, y) = mean(D)`` moves every lattice value at once), so
``lambda = m S_coord / epsilon`` (Algorithm 1 line 4 with ``S_coord`` for ``S(F)``).

``(epsilon, delta)`` (Theorem 7): coordinate ``nu`` alone is ``eps0 = S_coord/lambda``-DP;
advanced composition of ``m`` of them (Dwork-Rothblum-Vadhan 2010) is
``(sqrt(2 m ln(1/delta)) eps0 + m eps0 (e^{eps0} - 1), delta)``-DP.  The printed
``lambda_delta = 2 S sqrt(2 m ln(1/delta)) / epsilon`` makes the first term ``epsilon/2``;
the certificate computes the achieved epsilon (rigorous upper bound, arb) and the mechanism
uses the smaller of the pure scale and the smallest advanced-composition scale on a dyadic
search (never a scale whose certified epsilon exceeds the target).

Accuracy (certified alpha(beta))
--------------------------------
``sup_y |sum_nu Z_nu prod b^{(h)}_{nu_i}(y_i)| <= Lambda_{k,h}^l max_nu |Z_nu|`` with
``Lambda_{k,h}`` the certified Lebesgue constant (:mod:`dpverify.certify.lebesgue`), and
``P(max |Z| > lambda ln(2m/beta)) <= beta`` (union bound; the discrete Laplace tail is
``P(|Z| > s) <= 2 e^{-s/lambda} / (1 + e^{-g/lambda})``).  The centres differ from ``F`` by
at most the per-value evaluation error ``e`` (mode dependent: ``g/2``, ``e_max + g/2``,
``float_error + g/2``; mean mode ``g`` plus the float error of ``phi``, which is *not*
bounded and stated as an accuracy assumption), contributing ``Lambda^l e``.  The
approximation term ``sup |F_D - B^{(h)} F_D|`` is data-dependent; for ``h = 1`` and a
declared bound ``C2 >= sup |d^2 F / d y_i^2|`` it is ``<= l C2 / (8k)`` (``B_k f(y) - f(y) =
E f(X/k) - f(y)`` with independent binomial coordinates, Taylor to second order); otherwise
it is reported as not certified.  (alda2017 Proposition 4 / 11 as stated put ``max_y``
inside the probability without the ``log m`` factor: false, see docs/bernstein.md.)

Guarantee
---------
Sensitivities, scales and achieved epsilons are exact rationals or rigorous upper bounds
(arb); noise is exact discrete Laplace on ``g Z`` from the OS CSPRNG unless
``insecure_seed`` is given.  Privacy of mean queries is unconditional (given the public
domain checks); exact and ball queries rely on the stated ``S(F)`` only (proved for the
built-in queries, a user declaration -- tested by :func:`check_sensitivity` -- otherwise);
float queries additionally on the declared ``float_error``.  The privacy record lists the
mode and every assumption.  References: alda2017 Algorithm 1, Definitions 6-9,
Theorems 3, 5, 7, §6, Appendices F, G.

Size: the release, its four evaluation modes and the accuracy bound share the
lattice helpers; the accounting, the query catalogue and the named built-ins are already
split out (bernstein_accounting, bernstein_queries, bernstein_builtin).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import partial
from typing import Any

import numpy as np
from flint import arb, ctx, fmpq, fmpz

from ..certify.lebesgue import lebesgue_constant
from ..constructions.bernstein import (
    MAX_H,
    iterated_bernstein_coefficients,
    iterated_bernstein_tensor,
)
from ..errors import InvalidParameterError, ParameterTypeError
from ..exact import BernsteinPoly, TensorPoly
from ..fast.bernstein import de_casteljau
from ..noise import RandomSource, round_to_grid, sample_discrete_laplace
from ..numbers import (
    ExactLike,
    IntLike,
    arb_to_fmpq_bounds,
    check_int,
    fmpq_str,
    fmpq_to_decimal,
    parse_fmpq_str,
    to_fmpq,
)
from .backend import check_backend, first_bad_row, reduce_rows
from .bernstein_accounting import (
    CHECK_ROWS,
    DEFAULT_GRID,
    MAX_PREC,
    add_remove_mean_plan,
    check_sensitivity,
    exact_lattice_points,
    grid_ceil,
    grid_floor,
    is_exact_number,
    lattice_points,
    lattice_sensitivity,
    mean_sensitivity,
    query_lattice_points,
    release_privacy,
)
from .bernstein_float import FLOAT_PART, certified_roundoff
from .bernstein_queries import (
    EVALUATION_MODES,
    FunctionQuery,
    MeanQuery,
    certify_logistic,
    fit_logistic,
    kde_query,
    linear_mean_query,
    logistic_query,
    logistic_sensitivity,
    mean_query,
    naive_bayes_float,
    naive_bayes_query,
    naive_bayes_sensitivity,
    priestley_chao_query,
)
from .data import DataSource
from .privacy import (
    check_delta,
    check_epsilon,
    check_min_rows,
    check_neighbours,
)
from .privacy.records import upper_of

__all__ = [
    "mean_lattice_sums",
    "DEFAULT_GRID",
    "EVALUATION_MODES",
    "FunctionQuery",
    "MeanQuery",
    "mean_query",
    "kde_query",
    "priestley_chao_query",
    "linear_mean_query",
    "naive_bayes_query",
    "naive_bayes_sensitivity",
    "naive_bayes_float",
    "logistic_query",
    "logistic_sensitivity",
    "fit_logistic",
    "certify_logistic",
    "lattice_points",
    "exact_lattice_points",
    "mean_sensitivity",
    "lattice_sensitivity",
    "check_sensitivity",
    "CHECK_ROWS",
    "MAX_PREC",
    "MAX_LATTICE",
    "BernsteinRelease",
    "release_bernstein",
    "bernstein_accuracy",
]


#: Largest lattice (number of points) released.
MAX_LATTICE = 50_000


# --------------------------------------------------------------------------- release


@dataclass(frozen=True)
class BernsteinRelease:
    """The published output: noisy lattice values and the public evaluator.

    ``values`` are row-major over ``{0,1/k,..,1}^l`` (exact multiples of ``grid``);
    ``coefficients`` the exact Bernstein coefficients ``M F~`` (axis by axis).
    """

    k: int
    h: int
    dim: int
    grid: fmpq
    values: tuple[fmpq, ...]
    coefficients: tuple[fmpq, ...]
    privacy: dict
    info: dict = field(default_factory=dict)

    def _float_coeffs(self) -> np.ndarray:
        return np.array([float(c) for c in self.coefficients]).reshape((self.k + 1,) * self.dim)

    def evaluate(self, ys: Any) -> np.ndarray:
        """Float64 values at points ``ys`` (shape ``(p, l)`` or ``(p,)`` for l = 1) by de
        Casteljau along each axis.  Heuristic float64 (backward stable), no promise."""
        y = np.asarray(ys, dtype=np.float64)
        if y.ndim == 1:
            y = y.reshape(-1, 1) if self.dim == 1 else y.reshape(1, -1)
        if y.shape[1] != self.dim:
            raise InvalidParameterError(f"points must have {self.dim} coordinates")
        if y.size and (not np.all(np.isfinite(y)) or y.min() < 0 or y.max() > 1):
            raise InvalidParameterError("query points must lie in [0, 1]^l")
        C = self._float_coeffs()
        if self.dim == 1:
            return de_casteljau(C, y[:, 0])
        out = np.empty(len(y))
        for i, pt in enumerate(y):
            c = C
            for ax in range(self.dim):
                c = de_casteljau(c.reshape(self.k + 1, -1), [pt[ax]])[0]
            out[i] = float(np.asarray(c).reshape(()))
        return out

    def evaluate_exact(self, y: Any) -> fmpq:
        """Exact value at a rational point (``TensorPoly`` / ``BernsteinPoly`` evaluation)."""
        pt = [to_fmpq(v, f"y[{i}]") for i, v in enumerate(_as_list(y, self.dim))]
        for v in pt:
            if v < 0 or v > 1:
                raise InvalidParameterError("query points must lie in [0, 1]^l")
        return self.poly()(*pt)

    def poly(self) -> Any:
        if self.dim == 1:
            return BernsteinPoly(list(self.coefficients))
        return TensorPoly.from_flat(
            list(self.coefficients), [self.k + 1] * self.dim, basis="bernstein",
            domains=[(0, 1)] * self.dim,
        )

    def to_json(self) -> dict:
        return {
            "mechanism": "bernstein",
            "reference": "alda2017 Algorithm 1",
            "k": self.k,
            "h": self.h,
            "dim": self.dim,
            "grid": fmpq_str(self.grid),
            "lattice": "row-major over {0, 1/k, ..., 1}^l",
            "values": [fmpq_str(v) for v in self.values],
            "basis": "bernstein",
            "coefficients": [fmpq_str(c) for c in self.coefficients],
            "privacy": self.privacy,
            **self.info,
        }

    @classmethod
    def from_json(cls, obj: dict) -> BernsteinRelease:
        try:
            k, h, dim = int(obj["k"]), int(obj["h"]), int(obj["dim"])
            vals = tuple(parse_fmpq_str(v, "values") for v in obj["values"])
            coeffs = tuple(parse_fmpq_str(v, "coefficients") for v in obj["coefficients"])
            grid = parse_fmpq_str(obj["grid"], "grid")
        except (KeyError, TypeError, ValueError) as exc:
            raise InvalidParameterError(f"not a Bernstein release summary: {exc}") from None
        if len(vals) != (k + 1) ** dim or len(coeffs) != (k + 1) ** dim:
            raise InvalidParameterError("summary: values/coefficients have the wrong length")
        return cls(k, h, dim, grid, vals, coeffs, obj.get("privacy", {}),
                   {key: obj[key] for key in ("count", "n") if key in obj})


def _as_list(y: Any, dim: int) -> list:
    if isinstance(y, (list, tuple)):
        if len(y) != dim:
            raise InvalidParameterError(f"point must have {dim} coordinates, got {len(y)}")
        return list(y)
    if dim != 1:
        raise InvalidParameterError(f"point must have {dim} coordinates")
    return [y]


def _coefficients(values: list[fmpq], k: int, h: int, dim: int) -> list[fmpq]:
    if dim == 1:
        return list(iterated_bernstein_coefficients(values, k, h))
    arr = np.empty(len(values), dtype=object)
    arr[:] = values
    nested = arr.reshape((k + 1,) * dim).tolist()
    return list(iterated_bernstein_tensor(nested, [k] * dim, h).coeffs)



def _arb_mid_fmpq(v: arb) -> fmpq:
    man, ex = v.mid().man_exp()
    m, e = int(man), int(ex)
    return fmpq(m * 2**e) if e >= 0 else fmpq(m, 2 ** (-e))


_THREE_MODES = (
    "declare how F is evaluated: (a) a separable query via mean_query(name, phi, lower, "
    "upper, dim) (clamped exact sum, no float assumption); (b) return exact numbers "
    "(evaluation='exact') or arb balls (evaluation='ball', radius <= e_max checked); "
    "(c) a float callable with a declared public bound FunctionQuery(..., float_error=E)"
)


def _check_rowwise(query: MeanQuery, k: int, rows: int = 16, seed: int = 0) -> None:
    """Test (not prove) that ``phi`` is row-wise and deterministic on public sample rows:
    permuting, splitting or singling out rows must give the same columns, and a second call
    the same values."""
    g = np.random.default_rng(seed)  # public synthetic rows, not privacy noise
    D = np.asarray(query.sample_rows(rows, g), dtype=np.float64)
    pts = lattice_points(min(k, 4), query.dim)
    perm = g.permutation(len(D))
    h = len(D) // 2

    def phi(rows: np.ndarray) -> np.ndarray:
        return query.phi_values(rows, pts)

    def _same(x: np.ndarray, y: np.ndarray, equal_nan: bool = True) -> bool:
        # a test of row-wise structure, not of bits: BLAS may round sub-chunks differently
        return x.shape == y.shape and bool(np.allclose(x, y, rtol=1e-9, atol=1e-300,
                                                        equal_nan=equal_nan))

    a = phi(D)
    ok = a.shape == (len(pts), len(D))
    # same columns when the rows are permuted, split into sub-chunks, or taken one by one
    # (a function of the whole chunk such as its maximum fails the split / single checks)
    ok = ok and _same(a[:, perm], phi(D[perm]), equal_nan=True)
    ok = ok and _same(a, np.concatenate([phi(D[:h]), phi(D[h:])], axis=1),
                               equal_nan=True)
    ok = ok and all(_same(a[:, [i]], phi(D[i:i + 1]), equal_nan=True)
                    for i in (0, len(D) - 1))
    ok = ok and _same(a, phi(D), equal_nan=True)
    if not ok:
        raise InvalidParameterError(
            f"phi of {query.name!r} is not row-wise/deterministic on public test rows: a mean "
            "query needs column i of phi(data, ys) to depend on row i only")


def mean_lattice_sums(query: MeanQuery, D: np.ndarray, pts: np.ndarray, g: fmpq,
                      progress: Any = None) -> list[int]:
    """``J_p = sum_i clamp(rint(phi(x_i, y_p) / g), L, H)`` for every lattice point, exact
    Python integers: the statistic a mean query sums over rows (and the dask backend over
    partitions -- integer sums, so the result does not depend on the order).

    Each per-row value is computed from its own row alone: a built-in (``elementwise``)
    ``phi`` on blocks (element by element, fixed operation order), a user ``phi`` on one
    row at a time -- so the sums are the same for every split of the rows into blocks,
    files or partitions.  Per-row integers are clamped in int64 to ``[L, H]`` (``|L|, |H|
    <= 2^62``); row chunks of ``R <= (2^63 - 1) // max(|L|, |H|)`` rows make every int64
    partial sum exact (``|partial| <= R max(|L|,|H|) < 2^63``); chunks are added as Python
    ints.  NaN values of ``phi`` count as ``L`` (any value in ``[L, H]`` keeps the
    sensitivity).
    """
    L, H = grid_floor(query.lower, g), grid_ceil(query.upper, g)
    M = max(abs(L), abs(H), 1)
    if M > 2**62:
        raise InvalidParameterError(
            f"grid {fmpq_str(g)} is too fine for the range [{fmpq_str(query.lower)}, "
            f"{fmpq_str(query.upper)}] (|range/grid| > 2^62)")
    n = len(D)
    R = max(1, min(n, 1 << 20, (2**63 - 1) // M))
    P = max(1, (1 << 22) // R)
    inv_g = float(1 / g)
    Lf, Hf = float(L), float(H)
    sums = [0] * len(pts)
    for p0 in range(0, len(pts), P):
        ysub = pts[p0:p0 + P]
        for r0 in range(0, n, R):
            vals = _phi_block(query, D[r0:r0 + R], ysub)
            if vals.shape != (len(ysub), len(D[r0:r0 + R])):
                raise InvalidParameterError(
                    f"phi of {query.name!r} must return shape (points, rows) = "
                    f"({len(ysub)}, {len(D[r0:r0 + R])}), got {vals.shape}")
            t = np.rint(vals * inv_g)
            t = np.where(np.isnan(t), Lf, t)
            t = np.clip(t, Lf, Hf).astype(np.int64)
            t = np.clip(t, L, H)  # exact in int64 (float(L), float(H) may be rounded)
            for i, s in enumerate(t.sum(axis=1, dtype=np.int64)):
                sums[p0 + i] += int(s)
        if progress is not None:
            progress("lattice values", min(p0 + P, len(pts)), len(pts))
    return sums


def _phi_block(query: MeanQuery, X: np.ndarray, ys: np.ndarray) -> np.ndarray:
    """``phi`` on a block of rows: at once for a built-in elementwise ``phi``, one row at a
    time otherwise (a user ``phi`` then cannot mix rows or round by block shape)."""
    if query.elementwise or len(X) <= 1:
        return query.phi_values(X, ys)
    cols = [query.phi_values(X[i:i + 1], ys) for i in range(len(X))]
    for c in cols:
        if c.shape != (len(ys), 1):
            return c  # the caller reports the shape
    return np.concatenate(cols, axis=1)


def _centres(sums: list[int], n: int, g: fmpq) -> list[fmpq]:
    """``round_g(g J / n)`` for every lattice sum ``J`` (exact; ties up)."""
    return [g * fmpz((2 * J + n) // (2 * n)) for J in sums]


def _mean_centres(query: MeanQuery, D: np.ndarray, pts: np.ndarray, g: fmpq,
                  progress: Any = None) -> list[fmpq]:
    """``round_g(g J / n)`` with ``J`` = :func:`mean_lattice_sums` (the local backend)."""
    return _centres(mean_lattice_sums(query, D, pts, g, progress), len(D), g)


def _mean_partition_sums(D: np.ndarray, query: MeanQuery, pts: np.ndarray,
                         g: fmpq) -> list[int]:
    # map step of the dask backend (module level: picklable)
    return mean_lattice_sums(query, D, pts, g)


def _certified_centres(query: FunctionQuery, D: np.ndarray, k: int, g: fmpq,
                       e_max: fmpq, max_prec: int) -> tuple[list[fmpq], int]:
    """Centres ``round_g(value)`` for exact / ball / float queries (see the module docstring);
    returns them with the largest working precision used."""
    mode = query.evaluation
    pts = query_lattice_points(query, k)
    m = len(pts)
    out: list[fmpq | None] = [None] * m
    todo = list(range(m))
    prec = 64
    while True:
        sub = [pts[i] for i in todo] if isinstance(pts, list) else pts[todo]
        with ctx.workprec(prec):
            vals = list(query.func(D, sub))
        if len(vals) != len(todo):
            raise InvalidParameterError(
                f"function {query.name!r} returned {len(vals)} values for {len(todo)} points")
        pending = []
        for i, v in zip(todo, vals, strict=True):
            if is_exact_number(v):
                out[i] = round_to_grid(to_fmpq(v, "function value"), g)
            elif isinstance(v, arb):
                if mode == "float":
                    raise InvalidParameterError(
                        f"function {query.name!r} declares float evaluation but returned a "
                        "ball; use evaluation='ball'")
                rad = arb_to_fmpq_bounds(v.rad())[1] if v.is_finite() else None
                if rad is not None and rad == 0:
                    out[i] = round_to_grid(_arb_mid_fmpq(v), g)
                elif mode == "exact":
                    raise InvalidParameterError(
                        f"function {query.name!r} declares exact evaluation but returned the "
                        f"ball {v}; use evaluation='ball'")
                elif rad is not None and rad <= e_max:
                    out[i] = round_to_grid(_arb_mid_fmpq(v), g)
                else:
                    pending.append(i)
            elif isinstance(v, (float, np.floating)):
                if mode != "float":
                    raise InvalidParameterError(
                        f"function {query.name!r} returned a float, but a privacy guarantee "
                        f"cannot rest on an unbounded float error: {_THREE_MODES}")
                out[i] = round_to_grid(v, g)
            else:
                raise ParameterTypeError(
                    f"function {query.name!r} returned {type(v).__name__}; expected an exact "
                    "number, an arb ball or (float mode) a float")
        if not pending:
            return [v for v in out if v is not None], prec
        if prec >= max_prec:
            raise InvalidParameterError(
                f"function {query.name!r}: ball radius exceeds e_max = {fmpq_str(e_max)} at "
                f"{len(pending)} lattice point(s) even at {prec} bits; raise e_max (public) "
                "or max_prec. (This refusal depends on the data only through the numerical "
                "conditioning of F.)")
        prec *= 2
        todo = pending


def release_bernstein(
    data: Any,
    query: FunctionQuery,
    k: IntLike,
    h: IntLike,
    epsilon: ExactLike,
    *,
    delta: ExactLike | None = None,
    grid: Any = DEFAULT_GRID,
    e_max: ExactLike | None = None,
    max_prec: Any = MAX_PREC,
    check: bool = True,
    insecure_seed: Any = None,
    progress: Any = None,
    backend: str = "local",
    scheduler: Any = None,
    neighbours: str = "replace",
    min_rows: int | None = None,
) -> BernsteinRelease:
    """Run alda2017 Algorithm 1 on ``data`` with the correct noise scale.

    Parameters
    ----------
    data : array (n, c)
        Private rows (validated against the query's public domain).
    query : FunctionQuery
        A :class:`MeanQuery` (mode ``mean``) or a :class:`FunctionQuery` with
        ``evaluation`` ``"exact"``, ``"ball"`` or ``"float"`` (with ``float_error``).
    k, h : int
        Lattice order (``(k+1)^l <= 50000``) and iteration order.
    epsilon : exact number > 0
    delta : exact number in (0, 1), optional
        (epsilon, delta)-DP via advanced composition (Theorem 7); the smallest certified
        scale is used.
    grid : exact number in (0, 1/1024]
        Noise/rounding grid ``g`` (default ``2^-40``).
    e_max : exact number >= 0, optional
        Ball mode: public radius budget (default ``g/2``); enters the sensitivity.
    max_prec : int
        Ball mode: largest working precision (bits) tried before refusing.
    check : bool
        Run :func:`check_sensitivity` (public synthetic neighbours) first.
    insecure_seed : int, optional
        Seeded noise for tests/experiments only (NOT private).
    progress : callable, optional
        ``(stage, done, total)`` reports (:mod:`dpverify.progress`); mean mode only.
    backend : {"local", "dask"}
        ``"dask"`` (mean queries only: their lattice values are sums over rows): ``data``
        is a CSV/Parquet file, directory or glob; each partition is validated
        (``query.validate``, the failing row named) and its exact integer lattice sums
        (:func:`mean_lattice_sums`) are added over a reduction tree; noise is drawn once,
        on the client.  Same privacy record and, with the same ``insecure_seed``, the same
        release as ``"local"``.
    scheduler : optional
        Dask only: ``None`` (an embedded ``LocalCluster``), an address or a Client.
    neighbours : {"replace", "add-remove"}
        ``"add-remove"``: ``n`` is private.  A mean query releases noisy shifted sums and
        a noisy count (values = sums / count, post-processing); another query uses its
        ``add_remove_sensitivity`` at ``min_rows``.  ``info`` then has no ``n``.
    min_rows : int, optional
        Add/remove only: the public lower bound on ``n`` (default 2), part of the
        neighbouring relation; fewer rows are refused.

    Returns
    -------
    BernsteinRelease
        ``privacy`` holds the evaluation mode, the assumptions (if any), the sensitivity
        derivation, scale and achieved epsilon.

    Guarantee
    ---------
    epsilon-DP (resp. (epsilon, delta)-DP): unconditionally for mean queries; given the
    stated ``S(F)`` for exact/ball queries (proved for the built-in ones); given ``S(F)``
    and the declared ``float_error`` for float queries.  Never rests on an unproven float
    computation otherwise.  The achieved epsilon is exact (pure) or a rigorous upper bound
    (advanced composition).  A ball query whose radius stays above ``e_max`` up to
    ``max_prec`` bits raises ``InvalidParameterError`` (a refusal that depends on the data
    only through numerical conditioning).  alda2017 Algorithm 1.

    Examples
    --------
    The linear mean query ``F(D, y) = mean(D) y`` on four rows of mean ``7/16``, lattice
    ``{0, 1/2, 1}`` (``k = 2``).  With ``epsilon = 2^60`` (no privacy to speak of: the noise
    vanishes) the lattice values are ``F`` there, ``0, 7/32, 7/16``, and since Bernstein
    operators reproduce linear functions (alda2017 Theorem 3) the released polynomial is
    ``F`` itself, e.g. ``7/48`` at ``y = 1/3``:

    >>> import numpy as np
    >>> from dpverify.mechanisms.bernstein_mech import linear_mean_query
    >>> X = np.array([[0.25], [0.5], [1.0], [0.0]])
    >>> r = release_bernstein(X, linear_mean_query(), 2, 1, 2**60, insecure_seed=0)
    >>> r.values, r.evaluate_exact(["1/3"])
    ((0, 7/32, 7/16), 7/48)

    With ``epsilon = 1`` the noise is real and the privacy record states the achieved
    epsilon and the sensitivity's derivation:

    >>> r = release_bernstein(X, linear_mean_query(), 2, 1, 1, insecure_seed=0)
    >>> r.privacy["achieved_epsilon"], r.privacy["evaluation_mode"]
    ('1', 'mean')
    """
    k = check_int(k, "k", minimum=1)
    h = check_int(h, "h", minimum=1, maximum=MAX_H)
    nb = check_neighbours(neighbours)
    min_rows = max(check_min_rows(min_rows, 2), 2)
    eps = check_epsilon(epsilon)
    if delta is not None:
        check_delta(delta)
    g = to_fmpq(grid, "grid")
    if g <= 0 or g > fmpq(1, 1024):
        raise InvalidParameterError(f"grid must be in (0, 1/1024], got {fmpq_str(g)}")
    e = g / 2 if e_max is None else to_fmpq(e_max, "e_max")
    if e < 0:
        raise InvalidParameterError(f"e_max must be >= 0, got {fmpq_str(e)}")
    max_prec = check_int(max_prec, "max_prec", minimum=64, maximum=1 << 16)
    if not isinstance(query, FunctionQuery):
        raise ParameterTypeError("query must be a FunctionQuery")
    mode = query.evaluation
    l = query.dim
    m = (k + 1) ** l
    if m > MAX_LATTICE:
        raise InvalidParameterError(f"lattice (k+1)^l = {m} exceeds {MAX_LATTICE}")
    backend = check_backend(backend, scheduler)
    red = None
    if backend == "dask" or isinstance(data, (str, DataSource)):
        # a data source is read block by block: only a sum over rows can be computed so
        if not isinstance(query, MeanQuery):
            raise InvalidParameterError(
                f"backend {backend!r} on a data source needs a mean query (a sum over "
                f"rows); {query.name!r} is evaluated in {mode!r} mode on the whole data "
                "set (read the rows into an array, backend 'local')")
        red = reduce_rows(data, partial(_mean_partition_sums, query=query,
                                        pts=lattice_points(k, l), g=g),
                          validate=query.validate, scheduler=scheduler, backend=backend,
                          progress=progress)
        n = red.n
        if n < 2:
            raise InvalidParameterError(f"data must have at least 2 rows, got {n}")
    else:
        try:
            D = np.asarray(data, dtype=np.float64)
        except (TypeError, ValueError):
            raise InvalidParameterError("data must be a numeric array") from None
        if D.ndim == 1:
            D = D.reshape(-1, 1)
        n = len(D)
        if n < 2:
            raise InvalidParameterError(f"data must have at least 2 rows, got {n}")
        if query.validate is not None:
            try:
                query.validate(D)
            except (InvalidParameterError, ParameterTypeError) as exc:
                i = first_bad_row(query.validate, D)  # name the row (bisection on prefixes)
                raise type(exc)(f"data row {i + 1}: {exc}") from None
    if nb == "add-remove" and n < min_rows:
        raise InvalidParameterError(
            f"data must have at least min_rows = {min_rows} rows (the public bound of the "
            f"add/remove universe), got fewer")
    checked = check_sensitivity(query, max(n if nb == "replace" else min_rows, 2), k) \
        if check else None
    if isinstance(query, MeanQuery) and not query.elementwise:
        _check_rowwise(query, k)
    src = RandomSource(insecure_seed)
    privacy, scale = release_privacy(
        query, n if nb == "replace" else None, k, g, e, eps, delta, neighbours=nb,
        min_rows=min_rows, checked=checked, secure=src.secure)
    privacy["evaluation"] = _evaluation_record(query, g, e, nb)
    info: dict[str, Any] = {"function": query.name, "function_params": query.params}
    ev = privacy["evaluation"]
    info["float_error"] = {
        "per_value_bound": ev["per_value_error"],
        "note": ev["per_value_error_note"] or "each lattice value is within this bound of F",
        "holds_for": "every backend, block and file split (each value depends on its own "
                     "row only; sums over rows are exact integers)",
        "role": "accuracy only: the privacy accounting does not use it",
    }
    if mode == "float":  # the per-coordinate sensitivity S + 2 float_error + g uses it
        info["float_error"]["role"] = "accuracy and privacy (S + 2 float_error + g)"
        if certified_roundoff(query) is not None:
            info["float_error"]["holds_for"] = (
                "every block and file split (each float value depends on its own row "
                "only; sums over rows are exact)")
    if isinstance(query, MeanQuery):
        sums = red.value if red is not None else \
            mean_lattice_sums(query, D, lattice_points(k, l), g, progress)
        if nb == "replace":
            noisy = [c + sample_discrete_laplace(scale, g, src) for c in _centres(sums, n, g)]
        else:
            noisy, count = _add_remove_mean(query, sums, n, g, scale, src)
            info["count"] = fmpq_str(count)
            info["normalised_by"] = "max(noisy count, 1)"
    else:
        # the working precision reached depends on the data: used, never published
        centres, _ = _certified_centres(query, D, k, g, e, max_prec)
        noisy = [c + sample_discrete_laplace(scale, g, src) for c in centres]
    coeffs = _coefficients(noisy, k, h, l)
    if nb == "replace":
        info["n"] = n
    if red is not None and backend == "dask":
        info["statistics"] = red.info()  # how the exact integer sums were reduced
    if not src.secure:
        info["insecure_seed"] = src.seed
    rb = certified_roundoff(query)
    if rb is not None:  # the float error's certificate (bound to function_params)
        info["parts"] = {FLOAT_PART: rb.certificate().data}
    return BernsteinRelease(k, h, l, g, tuple(noisy), tuple(coeffs), privacy, info)


def _add_remove_mean(query: MeanQuery, sums: list[int], n: int, g: fmpq, scale: fmpq,
                     src: RandomSource) -> tuple[list[fmpq], fmpq]:
    """Add/remove release of a mean query: the shifted sums ``g (J_p - n C)`` and the count
    ``g M n`` get noise (exact multiples of ``g``, no rounding); the published values are
    ``g C + noisy sum / max(noisy count, 1)`` (post-processing).  Returns them and the
    noisy count in rows."""
    C, M = add_remove_mean_plan(query.lower, query.upper, g)
    w = g * M
    count = (w * n + sample_discrete_laplace(scale, g, src)) / w
    den = max(count, fmpq(1))
    vals = [g * C + (g * (J - n * C) + sample_discrete_laplace(scale, g, src)) / den
            for J in sums]
    return vals, count


def _evaluation_record(query: FunctionQuery, g: fmpq, e: fmpq, nb: str) -> dict[str, Any]:
    """How the lattice values were computed (mode, per-value accuracy error)."""
    mode = query.evaluation
    rb = certified_roundoff(query)
    if mode == "mean":
        per_value = g if nb == "replace" else g / 2
        acc_note = ("plus the float64 error of phi, which is not bounded (accuracy only; "
                    "privacy does not depend on it)")
    elif mode == "exact":
        per_value, acc_note = g / 2, ""
    elif mode == "ball":
        per_value, acc_note = e + g / 2, ""
    elif rb is not None:
        per_value, acc_note = rb.bound + g / 2, ""
    else:
        per_value = query.float_error + g / 2
        acc_note = "assumes the declared float_error"
    evaluation: dict[str, Any] = {
        "mode": mode,
        "description": {
            "mean": "phi in float64, rounded to the grid, clamped to the declared range "
                    "rounded outward, exact integer sum, exact division by n, rounded"
                    if nb == "replace" else
                    "phi in float64, rounded to the grid, clamped to the declared range "
                    "rounded outward, shifted by a public centre, exact integer sums; noisy "
                    "sums divided by the noisy count",
            "exact": "exact values rounded to the grid",
            "ball": "arb ball midpoints rounded to the grid; radius <= e_max checked",
            "float": "float values rounded to the grid; declared float error",
        }[mode] if rb is None else (
            "the query program in floats, every operation in the written order (numpy, "
            "checked bit for bit against an exact emulation at public points), exact sum "
            "over rows, exact division by n, rounded to the grid; certified float error "
            f"(part {FLOAT_PART!r})"),
        "per_value_error": fmpq_str(per_value),
        "per_value_error_note": acc_note,
    }
    if isinstance(query, MeanQuery):
        evaluation["range"] = [fmpq_str(query.lower), fmpq_str(query.upper)]
    if mode == "ball":
        evaluation["e_max"] = fmpq_str(e)
    if mode == "float":
        evaluation["float_error"] = fmpq_str(query.float_error)
        evaluation["float_error_source"] = "declared by the user" if rb is None else \
            f"certified (part {FLOAT_PART!r})"
    return evaluation


def bernstein_accuracy(
    release: BernsteinRelease, beta: ExactLike, *, query: FunctionQuery | None = None,
    n: int | None = None, rtol: ExactLike = "1e-6",
) -> dict:
    """Certified ``alpha(beta)`` for ``sup_y |release(y) - F_D(y)|``.

    ``alpha = Lambda_{k,h}^l (lambda ln(2m/beta) + e) + approx`` where ``Lambda`` is the
    certified Lebesgue constant (upper end), ``e`` the per-value evaluation error of the
    release's mode (``privacy["evaluation"]["per_value_error"]``; ``g`` for summaries
    without it), ``approx = l C2/(8k)`` for ``h = 1`` when the query declares a
    second-derivative bound ``C2``; otherwise the approximation term is reported as not
    certified and ``alpha`` covers the noise and evaluation parts only.

    Guarantee
    ---------
    With probability ``>= 1 - beta`` over the noise the stated bound holds (rigorous upper
    bound, arb rounded up), under the accuracy assumptions listed in ``assumptions``
    (mean mode: the float error of ``phi`` is not included).  Union bound over the ``m``
    lattice noises.
    """
    b = to_fmpq(beta, "beta")
    if not 0 < b < 1:
        raise InvalidParameterError(f"beta must be in (0, 1), got {fmpq_str(b)}")
    k, h, l = release.k, release.h, release.dim
    m = (k + 1) ** l
    scale = to_fmpq(release.privacy["scale"], "scale") if isinstance(
        release.privacy.get("scale"), str) else release.privacy["scale"]
    ev = release.privacy.get("evaluation") or {}
    per_value = to_fmpq(ev["per_value_error"], "per_value_error") if "per_value_error" in ev \
        else release.grid
    lam = lebesgue_constant(k, h, rtol).upper if h > 1 else fmpq(1)
    count = release.info.get("count")
    with ctx.workprec(128):
        if count is None:
            noise = arb(lam) ** l * arb(scale) * (2 * arb(m) / arb(b)).log()
        else:
            # add/remove mean query: value = g C + (sum + Z_p)/C~ with the count C~ =
            # n + Z_0/w; |value - mean| <= (|Z_p| + |Z_0|)/C~ + g/2 (the shifted mean is
            # at most w in modulus), union bound over the m + 1 noises
            C = parse_fmpq_str(count, "count")
            if C < 1:
                raise InvalidParameterError(
                    "the noisy count of this add/remove release is below 1: no accuracy "
                    "can be certified (too few rows for this epsilon)")
            noise = arb(lam) ** l * 2 * arb(scale) * (2 * arb(m + 1) / arb(b)).log() / arb(C)
        evl = arb(lam) ** l * arb(per_value)
    out: dict[str, Any] = {
        "beta": fmpq_str(b),
        "lebesgue_constant_upper": fmpq_str(lam),
        "noise_term": fmpq_str(upper_of(noise)),
        "evaluation_term": fmpq_str(upper_of(evl)),
        "paper_lebesgue_bound": 2**h - 1,
        "assumptions": [ev["per_value_error_note"]] if ev.get("per_value_error_note") else [],
    }
    approx = None
    if h == 1 and query is not None and query.second_derivative_bound is not None and n:
        approx = fmpq(l) * to_fmpq(query.second_derivative_bound(n), "C2") / (8 * k)
        out["approximation_term"] = fmpq_str(approx)
        out["approximation_certified"] = True
    else:
        out["approximation_term"] = None
        out["approximation_certified"] = False
    total = upper_of(noise) + upper_of(evl) + (approx or 0)
    out["alpha"] = fmpq_str(total)
    out["alpha_decimal"] = fmpq_to_decimal(total, 12, rounding="up")
    return out
