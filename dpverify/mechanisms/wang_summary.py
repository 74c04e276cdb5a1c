"""Smooth-query summary of wang2013 (Algorithms 1 and 2) with exact privacy accounting.

Summary (Algorithm 1)
---------------------
For data ``D`` in ``([-1,1]^d)^n`` and every multi-index ``m`` with ``||m||_inf <= t-1``
the moment ``b_m = (1/n) sum_{x in D} prod_i cos(m_i arccos x_i) = (1/n) sum_x prod_i
T_{m_i}(x_i)`` (``cos(m arccos x) = T_m(x)``, DESIGN.md).  ``T_0..T_{t-1}`` come from the
three-term recurrence ``T_{m+1} = 2 x T_m - T_{m-1}`` (vectorised, one ``(n, t)`` table per
axis); the moment tensor is one GEMM per chunk of rows: the Khatri-Rao product of axes
``1..d-1`` (``(rows, t^{d-1})``) times the table of axis ``d`` (``(rows, t)``).  Moments are
computed in float64 (utility only); the *release* is exact: each moment is rounded to a
grid ``g Z`` and discrete Laplace noise ``g * DLap(lambda/g)`` is added (exact sampler,
:mod:`dpverify.noise`).  ``b_0 = 1`` for every database and is published without noise.

Sensitivity (derived here; one row replaced, same n)
----------------------------------------------------
Each per-row moment ``prod_i T_{m_i}(x_i)`` lies in ``[-1, 1]``, so replacing a row moves
``b_m`` by at most ``2/n``; ``b_0`` never moves.  Hence the L1 sensitivity of the noisy
part is ``Delta_1 <= 2 (t^d - 1)/n`` (plus ``2g`` per coordinate for rounding and a float
error below ``g/2``, by the a-priori bound ``4 (d t^2 + n) u``, ``u = 2^-53``, proven in
:func:`summary_grid`).
This bound is not attained exactly (no pair of rows moves every moment by 2), but
:func:`moment_sensitivity` gives a certified *lower* bound from an explicit rational pair
of rows (exact fmpq evaluation), which exceeds ``t^d/n`` for ``t >= 4`` (d = 1):

* wang2013 Algorithm 1 prints ``Lap(t^d/(n epsilon))``: with the true sensitivity
  ``> t^d/n`` this is **not** epsilon-DP; the achieved privacy is ``n Delta_1 epsilon /
  t^d``, between the certified witness ratio and ``2 (t^d-1)/t^d`` times epsilon.
* the slides print ``Lap(epsilon^d/(n epsilon))`` (``epsilon^d`` for ``t^d``, a misprint).
* jin's (epsilon, delta) variant ``Lap(sqrt(t^d ln(1/delta))/(n epsilon))``: per-coordinate
  ``eps0 = 2 epsilon / sqrt(t^d ln(1/delta))``; advanced composition gives ``>= 2 sqrt(2)
  epsilon`` (the first term alone), so it is not (epsilon, delta)-DP by that theorem.

The mechanism uses ``lambda = Delta_1/epsilon`` (pure), or the smallest scale certified by
advanced composition (``delta`` given), whichever is smaller.

Answering (Algorithm 2)
-----------------------
For a query ``q_f(D) = (1/n) sum_x f(x)``, ``p = I^d_{t-1,K} g_f`` is the damped Chebyshev
series of :func:`dpverify.constructions.jackson.jackson_approx` with degree ``<= t-1`` per
axis; the answer is ``sum_m c_m b~_m`` (exact rational).  Error: ``|q_f(D) - answer| <=
sup |f - p| + ||c_{m != 0}||_1 (max_m |Z_m| + g)``; ``sup |f - p|`` is certified by
:func:`dpverify.certify.certify` (box ``[-1,1]^d``) and ``P(max |Z_m| >= j g) <= beta`` for
the ``j`` returned by :meth:`WangSummary.noise_bound` (exact discrete-Laplace tail, union
bound), simultaneously for all queries.

Guarantee
---------
Sensitivity bounds and scales are exact rationals; achieved epsilons exact (pure) or
rigorous upper bounds (advanced composition).  Expression queries get a certified
``alpha(beta)``; numpy-callable queries are heuristic (float Chebyshev coefficients, no
certificate).  d <= 3 for expressions (jackson_approx), d <= 4 for callables.
References: wang2013 Algorithms 1-2, eq. (2), Fact 4.2; jin Algorithm 1 step 9 and the
(epsilon, delta) variant; wang_slides Algorithm (step 9).

Size: one mechanism (wang2013 Algorithms 1 and 2): the moments, the a-priori float
error proof that bounds them (:func:`summary_grid`), the accounting and the answering are
kept together so that the proof sits next to the code it proves.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from itertools import product
from typing import Any

import numpy as np
from flint import arb, ctx, fmpq

from ..certify import certify
from ..constructions.jackson import jackson_approx, jackson_multipliers
from ..errors import InvalidParameterError
from ..noise import discrete_laplace_tail, random_source, round_to_grid, sample_discrete_laplace
from ..numbers import (
    ExactLike,
    IntLike,
    arb_to_fmpq_bounds,
    check_int,
    fmpq_str,
    fmpq_to_decimal,
    parse_exact,
    parse_fmpq_str,
    to_fmpq,
)
from .backend import Reduction, check_backend, reduce_rows
from .data import CUBE, DataSource, source_width
from .moments import (
    CHUNK_BYTES,
    MAX_CHUNK_ROWS,
    MAX_MOMENTS,
    chebyshev_moments,
    chebyshev_table,
    check_data,
    checked_moment_sums,
    chunk_rows,
    moment_sums,
    source_moment_sums,
)
from .privacy import (
    advanced_composition_epsilon,
    calibrate_laplace,
    check_delta,
    check_epsilon,
    composition_exceeds,
)

__all__ = [
    "MAX_MOMENTS",
    "chebyshev_table",
    "chebyshev_moments",
    "moment_sums",
    "check_data",
    "chunk_rows",
    "CHUNK_BYTES",
    "MAX_CHUNK_ROWS",
    "summary_grid",
    "moment_sensitivity",
    "paper_scales",
    "WangSummary",
    "release_summary",
    "release_from_moment_sums",
    "reduce_moment_sums",
    "float_error_record",
    "wang_privacy",
]

_U = fmpq(1, 2**53)
_VARS = ("x", "y", "z", "w")


def summary_grid(n: int, t: int, d: int) -> fmpq:
    """Largest ``g = 2^-j`` (j <= 40) with ``g/2 >= 4 (d t^2 + n) u``: the rounding grid.

    Guarantee (a priori error bound; IEEE binary64, round to nearest, any summation order)
    ---------------------------------------------------------------------------------------
    Every moment returned by :func:`chebyshev_moments` is within ``4 (d t^2 + n) u``
    (``u = 2^-53``) of the exact moment of the same float64 data, for data in ``[-1, 1]``,
    ``t^d <= MAX_MOMENTS`` and ``n <= 2^40``.  Proof:

    1. Recurrence.  ``T^_{k+1} = fl(fl(2x T^_k) - T^_{k-1})`` (``2x`` is exact) gives
       ``T^_{k+1} = 2x T^_k - T^_{k-1} + r_k`` with ``|r_k| <= 5 u (1+u) M_k``,
       ``M_k = max(|T^_k|, |T^_{k-1}|)``.  The errors ``e_k = T^_k - T_k`` satisfy the same
       recurrence driven by ``r_k`` with ``e_0 = e_1 = 0``, so
       ``e_m = sum_{k=1}^{m-1} U_{m-1-k}(x) r_k`` and ``|U_j(x)| <= j + 1`` on ``[-1, 1]``:
       ``|e_m| <= 2.5 m^2 u (1+u) max_k M_k``.  Since ``2.5 t^2 u <= 1.2e-5`` for
       ``t <= 2*10^5``, induction gives ``M_k <= 1 + 1.2e-5`` and ``|e_m| <= 3 m^2 u``.
    2. Products of ``d`` factors in ``[-1-1.2e-5, 1+1.2e-5]`` with ``d - 1`` roundings
       (the last one inside the GEMM): error ``<= (3 d t^2 + d - 1) u (1 + 2e-5)``.
    3. Summation of ``n`` terms in any binary-tree order (BLAS blocking, FMA, the chunk
       accumulation and the dask backend's partition sums and reduction tree included --
       every partial sum is a sum of a subset of the ``n`` terms; Higham, *Accuracy and
       Stability*, §4.2): error
       ``<= gamma_{n-1} sum |terms|``, i.e. ``<= (n-1) u (1 + 2e-5)`` after division by
       ``n``, plus ``u`` for that division.
    Total ``<= (3 d t^2 + d + n) u (1 + 1e-4) <= 4 (d t^2 + n) u`` for ``t, n >= 1``.
    4. d = 1 uses the product form of
       :meth:`~dpverify.mechanisms.moments.MomentAccumulator._chunk_1d`: ``S_k = 2 G_ab - c`` with
       ``G_ab = sum_x T_a T_b``, ``(a, b) = (m, m)``, ``c = n`` for ``k = 2m`` and
       ``(a, b) = (m, m + 1)``, ``c = G_01 = sum_x x`` for ``k = 2m + 1``.  Let the rows be
       split into ``P`` parts (chunks are inside one part; a part is one call or one
       accumulator, e.g. a block of a dask partition, with ``N`` the most rows of a part)
       whose results are added in any order.
       Per part: (a) ``|T^_a T^_b - T_a T_b| <= 3 (a^2 + b^2) u M`` (step 1,
       ``M = 1 + 1.2e-5``), doubled ``<= 3 (k^2 + 1) u M`` per row; (b) a dot product of
       ``n_p`` terms in any order is within ``gamma_{n_p} sum |terms|`` (Higham §3.1; FMA
       included), so doubled ``G`` plus ``c`` give ``<= 3 gamma_N n_p M^2``; (c) the final
       ``2 G - c`` is rounded once: ``<= u n_p (1 + 1e-4)`` since ``|T_k| <= 1``.  Adding
       the ``P`` parts: ``gamma_{P-1} n (1 + 1e-4)``.  After division by ``n`` (``u``):
       ``<= (3 (k^2 + 1) + 3 N + P - 1 + 2) u (1 + 3e-4)``, and ``3 N + P - 1 <= 3 n``
       (the other ``P - 1`` parts hold a row each), so with ``k <= t - 1``, ``t >= 2``:
       ``<= (3 (t - 1)^2 + 5 + 3 n) u (1 + 3e-4) <= 4 (t^2 + n) u``.
    The release rounds each moment to the grid ``g`` with ``g/2`` above this bound, so the
    privacy accounting adds ``2g`` per moment (two neighbouring data sets, rounding each).
    ``tests/test_wang_summary.py`` checks step 1 against exact rational recurrences and
    ``tests/test_wang_moments_bound.py`` the whole bound (step 4 with parts) against exact
    rational sums.
    """
    if n > 2**40:
        raise InvalidParameterError(f"n must be <= 2^40 for the float error bound, got {n}")
    if t**d > MAX_MOMENTS:
        raise InvalidParameterError(f"t^d = {t**d} moments exceed {MAX_MOMENTS}")
    err = 4 * (d * t * t + n) * _U
    j = 40
    while j > 1 and fmpq(1, 2**j) / 2 < err:
        j -= 1
    return fmpq(1, 2**j)


def moment_sensitivity(t: IntLike, d: IntLike, n: IntLike, *, search: int = 64) -> dict:
    """L1 sensitivity of the moment vector (``m != 0``) for one replaced row.

    Returns the exact upper bound ``2 (t^d - 1)/n`` and a certified lower bound: the exact
    value ``(1/n) sum_{m != 0} |prod T_{m_i}(x_i) - prod T_{m_i}(x'_i)|`` at the best rational
    pair found by a float search over ``x = (1,...,1)`` and ``x' = (c_1, c_2, ..., c_2)`` with
    ``c_i`` on a grid of ``search + 1`` points of [-1, 1], evaluated in fmpq.

    Guarantee
    ---------
    ``lower <= true sensitivity <= upper``; both exact fmpq (``lower`` rounded down to a
    multiple of ``2^-128`` when its exact value has more than 256 bits).
    """
    t = check_int(t, "t", minimum=1)
    d = check_int(d, "d", minimum=1, maximum=4)
    n = check_int(n, "n", minimum=1)
    M = t**d
    upper = fmpq(2 * (M - 1), n)
    cand = [fmpq(2 * i - search, search) for i in range(search + 1)]
    xs = np.array([float(c) for c in cand])
    T = chebyshev_table(xs, t)  # (search+1, t)
    pairs = [(i, i) for i in range(len(xs))]
    if d > 1 and len(xs) ** 2 * M <= 2 * 10**7:
        pairs = [(i, j) for i in range(len(xs)) for j in range(len(xs))]
    best, arg = -1.0, (0, 0)
    for i, j in pairs:
        # x = (1,...,1), x' = (c_i, c_j, ..., c_j): sum_{m != 0} |1 - prod_a T_{m_a}(x'_a)|
        vals = T[i]
        for _ in range(d - 1):
            vals = np.outer(vals, T[j]).ravel()
        tot = float(np.abs(1.0 - vals).sum())
        if tot > best:
            best, arg = tot, (i, j)
    xprime = [cand[arg[0]]] + [cand[arg[1]]] * (d - 1)
    tabs = []
    for c in xprime:
        Tq = [fmpq(1), c]
        for _ in range(2, t):
            Tq.append(2 * c * Tq[-1] - Tq[-2])
        tabs.append(Tq[:t])
    lower = fmpq(0)
    for m in product(range(t), repeat=d):
        v = fmpq(1)
        for a, mi in enumerate(m):
            v *= tabs[a][mi]
        lower += abs(1 - v)
    lower /= n
    if lower.p.bit_length() > 256 or lower.q.bit_length() > 256:
        # T_m(c) of a rational c has ~m log2(q) bits; keep a short certified lower bound
        lower = fmpq((lower.p << 128) // lower.q, 2**128)  # floor to 2^-128: still <= true
    return {
        "upper": fmpq_str(upper),
        "lower": fmpq_str(lower),
        "witness": {"x": ["1"] * d, "x_prime": [fmpq_str(c) for c in xprime]},
        "paper_implied": fmpq_str(fmpq(M, n)),
        "note": "upper = 2(t^d-1)/n (each per-row moment in [-1,1], b_0 constant); lower "
        "exact at the witness pair",
    }


def paper_scales(t: int, d: int, n: int, epsilon: ExactLike, delta: ExactLike | None = None, *,
                 sensitivity: dict | None = None) -> dict:
    """Printed scales and what they achieve with the derived sensitivity (comparison only).
    ``epsilon``, ``delta`` in their documented ranges
    (:func:`dpverify.mechanisms.privacy.check_epsilon`, ``check_delta``); ``sensitivity``:
    the record :func:`moment_sensitivity` ``(t, d, n)`` when the caller already has it
    (computed here otherwise)."""
    eps = check_epsilon(epsilon)
    M = t**d
    sens = moment_sensitivity(t, d, n) if sensitivity is None else sensitivity
    up, lo = parse_fmpq_str(sens["upper"]), parse_fmpq_str(sens["lower"])
    wang = fmpq(M) / (n * eps)
    out: dict[str, Any] = {
        "wang2013_algorithm1_scale": fmpq_str(wang),
        "wang2013_achieved_epsilon_upper": fmpq_str(up / wang),
        "wang2013_achieved_epsilon_lower": fmpq_str(lo / wang),
        "wang2013_valid": bool(up / wang <= eps),
        "slides_scale": "epsilon^d/(n epsilon) (misprint for t^d/(n epsilon))",
    }
    if delta is not None:
        dl = check_delta(delta)
        with ctx.workprec(128):
            js = arb(M) * (1 / arb(dl)).log()
            jin = arb_to_fmpq_bounds(js.sqrt() / (arb(n) * arb(eps)))[0]  # rounded down
        e0 = fmpq(2, n) / jin
        # a per-moment epsilon so large that e^eps0 alone exceeds eps: not valid (no exp)
        eps_jin = None if composition_exceeds(e0, eps) else \
            advanced_composition_epsilon(e0, M - 1, dl)
        out.update(
            {
                "jin_delta_scale": fmpq_str(jin),
                "jin_achieved_epsilon_advanced_composition": "> epsilon (e^eps0 - 1 > "
                "epsilon)" if eps_jin is None else fmpq_str(eps_jin),
                "jin_valid": eps_jin is not None and bool(eps_jin <= eps),
            }
        )
    return out


@dataclass(frozen=True)
class WangSummary:
    """Published summary: noisy moments (exact multiples of ``grid``), ``b_0 = 1``.

    ``moments`` is row-major over ``{0..t-1}^d``.
    """

    t: int
    d: int
    n: int
    grid: fmpq
    moments: tuple[fmpq, ...]
    privacy: dict
    info: dict = field(default_factory=dict)

    def moment(self, m: tuple[int, ...]) -> fmpq:
        idx = 0
        for mi in m:
            idx = idx * self.t + mi
        return self.moments[idx]

    def noise_bound(self, beta: ExactLike) -> fmpq:
        """``s`` with ``P(max_{m != 0} |Z_m| >= s) <= beta`` (union bound, exact discrete
        Laplace tail, rigorous).  Includes nothing for rounding (see :meth:`answer`)."""
        b = to_fmpq(beta, "beta")
        if not 0 < b < 1:
            raise InvalidParameterError(f"beta must be in (0, 1), got {fmpq_str(b)}")
        scale_units = parse_fmpq_str(self.privacy["scale"], "scale") / self.grid
        cnt = self.t**self.d - 1
        with ctx.workprec(128):
            j = int(math.ceil(float(scale_units) * math.log(2 * cnt / float(b)))) + 1
            while not (cnt * discrete_laplace_tail(j, scale_units)).upper() <= arb(b):
                j = j * 11 // 10 + 1
        return self.grid * j

    def _answer_from_coeffs(self, flat: list[fmpq], deg: int) -> tuple[fmpq, fmpq]:
        """(sum c_m b~_m, ||c_{m != 0}||_1) for coefficients on {0..deg}^d (row-major)."""
        if deg > self.t - 1:
            raise InvalidParameterError(f"query degree {deg} exceeds summary t-1 = {self.t - 1}")
        total, l1 = fmpq(0), fmpq(0)
        for idx, c in zip(product(range(deg + 1), repeat=self.d), flat, strict=True):
            if c == 0:
                continue
            total += c * self.moment(idx)
            if any(idx):
                l1 += abs(c)
        return total, l1

    def answer(self, f: Any, K: IntLike = 2, *, beta: ExactLike = "1/20",
               certify_error: bool = True,
               rtol: ExactLike | None = None, name: str = "f") -> dict:
        """Answer ``q_f`` (f an expression in x, y, z) with a certified ``alpha(beta)``.

        Guarantee
        ---------
        ``answer`` exact (fmpq) given the summary; with probability ``>= 1 - beta`` over the
        noise (simultaneously for all queries) ``|q_f(D) - answer| <= alpha`` where
        ``alpha = upper(sup |f - p|) + ||c||_1 (noise_bound(beta) + grid)`` and the sup is
        certified by :func:`dpverify.certify.certify`.  ``certify_error=False`` skips it
        (``alpha`` then has ``approximation_certified: false`` and covers noise only).
        wang2013 Algorithm 2.
        """
        if self.d > 3:
            raise InvalidParameterError("expression queries need d <= 3; use answer_callable")
        if self.t < 2:
            raise InvalidParameterError("the summary needs t >= 2 to answer queries")
        K = check_int(K, "K", minimum=0)
        approx = jackson_approx(f, self.t - 1, K, self.d, name=name)
        poly = approx.poly
        deg = poly.shape[0] - 1 if self.d > 1 else len(poly.coeffs) - 1
        flat = list(poly.coeffs)
        if self.d == 1 and len(flat) < deg + 1:
            flat += [fmpq(0)] * (deg + 1 - len(flat))
        value, l1 = self._answer_from_coeffs(flat, deg)
        s = self.noise_bound(beta)
        noise = l1 * (s + self.grid)
        out: dict[str, Any] = {
            "query": approx.params["f"],
            "K": K,
            "jackson_t": self.t - 1,
            "answer": fmpq_str(value),
            "answer_decimal": fmpq_to_decimal(value, 15),
            "coefficient_l1": fmpq_str(l1),
            "noise_term": fmpq_str(noise),
            "beta": fmpq_str(to_fmpq(beta, "beta")),
        }
        if certify_error:
            rt = rtol if rtol is not None else ("1e-3" if self.d == 1 else "1e-1")
            cert = certify(approx, rtol=rt)
            up = parse_exact(cert.error["upper"], "error.upper")
            out["approximation_error"] = cert.error["upper"]
            out["approximation_certified"] = True
            # its certificate: `dpverify verify FILE --part approximation` checks it
            out["parts"] = {"approximation": cert.data}
            alpha = up + noise
        else:
            out["approximation_error"] = None
            out["approximation_certified"] = False
            alpha = noise
        out["alpha"] = fmpq_str(alpha)
        out["alpha_decimal"] = fmpq_to_decimal(alpha, 12, rounding="up")
        return out

    def answer_callable(self, func: Callable[..., Any], K: IntLike = 2) -> float:
        """Heuristic answer for a numpy callable ``func(x1, ..., xd)`` (d <= 4): float
        Chebyshev coefficients on a Chebyshev-Gauss grid, damped by the exact multipliers
        ``w_n`` of ``I_{t-1,K}``.  No certificate (float64 throughout)."""
        K = check_int(K, "K", minimum=0)
        t = self.t
        w = np.array([float(v) for v in jackson_multipliers(t - 1, K)])[:t]
        N = max(2 * t, 16)
        theta = (np.arange(N) + 0.5) * np.pi / N
        nodes = np.cos(theta)
        grids = np.meshgrid(*([nodes] * self.d), indexing="ij")
        vals = np.asarray(func(*grids), dtype=np.float64) * np.ones(grids[0].shape)
        C = vals
        basis = np.cos(np.outer(np.arange(t), theta)) * (2.0 / N)  # (t, N)
        basis[0] /= 2.0
        for ax in range(self.d):
            C = np.moveaxis(np.tensordot(basis, np.moveaxis(C, ax, 0), axes=(1, 0)), 0, ax)
        damp = w
        for _ in range(self.d - 1):
            damp = np.multiply.outer(damp, w)
        Cd = C * damp
        mom = np.array([float(v) for v in self.moments]).reshape((t,) * self.d)
        return float((Cd * mom).sum())

    def to_json(self) -> dict:
        return {
            "mechanism": "wang-summary",
            "reference": "wang2013 Algorithm 1",
            "t": self.t,
            "d": self.d,
            "n": self.n,
            "grid": fmpq_str(self.grid),
            "moments_order": "row-major over {0..t-1}^d; T_m(x) = cos(m arccos x)",
            "moments": [fmpq_str(v) for v in self.moments],
            "privacy": self.privacy,
            **self.info,
        }

    @classmethod
    def from_json(cls, obj: dict) -> WangSummary:
        try:
            t, d, n = int(obj["t"]), int(obj["d"]), int(obj["n"])
            grid = parse_fmpq_str(obj["grid"], "grid")
            mom = tuple(parse_fmpq_str(v, "moments") for v in obj["moments"])
            priv = dict(obj["privacy"])
        except (KeyError, TypeError, ValueError) as exc:
            raise InvalidParameterError(f"not a wang-summary file: {exc}") from None
        if len(mom) != t**d:
            raise InvalidParameterError("summary: wrong number of moments")
        return cls(t, d, n, grid, mom, priv)


def wang_privacy(
    n: IntLike, t: IntLike, d: IntLike, epsilon: ExactLike, delta: ExactLike | None = None,
        grid: Any = None
) -> tuple[dict[str, Any], fmpq]:
    """Privacy record and noise scale of the summary (no data needed: only ``n``, ``t``,
    ``d``): per-moment sensitivity ``2/n + 2g`` (values in [-1, 1], grid rounding and the
    proven float bound of :func:`summary_grid`), ``t^d - 1`` noisy moments (``b_0 = 1`` is
    public), calibration by :func:`~dpverify.mechanisms.privacy.calibrate_laplace`,
    and the printed scales of wang2013 / jin for comparison.  Exact strings."""
    n = check_int(n, "n", minimum=1)
    t = check_int(t, "t", minimum=1)
    d = check_int(d, "d", minimum=1, maximum=4)
    epsilon = check_epsilon(epsilon)
    if delta is not None:
        delta = check_delta(delta)
    g = summary_grid(n, t, d) if grid is None else to_fmpq(grid, "grid")
    if g <= 0 or g > fmpq(1, 1024):
        raise InvalidParameterError(f"grid must be in (0, 1/1024], got {fmpq_str(g)}")
    if g / 2 < 4 * (d * t * t + n) * _U:
        # the sensitivity 2/n + 2g needs the proven float error (summary_grid) below g/2
        raise InvalidParameterError(
            f"grid {fmpq_str(g)} is finer than the proven float-error bound allows: need "
            f"g/2 >= 4 (d t^2 + n) 2^-53 (largest admissible default: "
            f"{fmpq_str(summary_grid(n, t, d))})")
    cnt = t**d - 1
    per = fmpq(2, n) + 2 * g
    msens = moment_sensitivity(t, d, n)
    privacy: dict[str, Any] = {
        "neighbouring": "same n, one row replaced",
        "moment_sensitivity": msens,
        "grid": fmpq_str(g),
        "per_coordinate": fmpq_str(per),
        "l1_sensitivity": fmpq_str(cnt * per),
        "noisy_coordinates": cnt,
        "noise": "discrete Laplace on grid g (exact sampler); b_0 = 1 released without noise",
        "paper": paper_scales(t, d, n, epsilon, delta, sensitivity=msens),
    }
    scale, fields = calibrate_laplace(per, cnt, epsilon, delta)
    privacy.update(fields)
    return privacy, scale


def float_error_record(n: int, t: int, d: int) -> dict[str, Any]:
    """The proven a-priori float error of the moments (:func:`summary_grid`), as it is
    published in a release: it holds for any summation order, so for every backend and
    every reduction tree."""
    bound = 4 * (d * t * t + n) * _U
    return {
        "per_moment_bound": fmpq_str(bound),
        "formula": "4 (d t^2 + n) 2^-53",
        "holds_for": "any summation order: row chunks, BLAS blocking, and any reduction "
        "tree of the dask backend (Higham, Accuracy and Stability, 4.2; proof in "
        "dpverify.mechanisms.wang_summary.summary_grid)",
        "rounding": "each moment is rounded to the grid g with g/2 >= this bound; two "
        "computations of the same data differ by at most g after rounding",
    }


def release_from_moment_sums(
    sums: Any,
    n: IntLike,
    t: IntLike,
    epsilon: ExactLike,
    *,
    delta: ExactLike | None = None,
    grid: Any = None,
    insecure_seed: Any = None,
    progress: Any = None,
    info: dict | None = None,
) -> WangSummary:
    """The noise step of wang2013 Algorithm 1 on already computed moment sums.

    ``sums`` must be :func:`moment_sums` of ``n`` rows in ``[-1, 1]^d`` (``d = sums.ndim``),
    computed in float64 in any order (e.g. reduced over partitions by
    :func:`dpverify.mechanisms.backend.reduce_rows`); the privacy guarantee rests on that
    (the proven float bound of :func:`summary_grid` needs it).  Noise is drawn here, once, by
    the exact sampler, in the order of the row-major multi-indices.

    Guarantee
    ---------
    As :func:`release_summary` (which calls this after computing the sums locally).
    """
    S = np.asarray(sums, dtype=np.float64)
    t = check_int(t, "t", minimum=1)
    n = check_int(n, "n", minimum=1)
    d = S.ndim
    if not 1 <= d <= 4 or S.shape != (t,) * d:
        raise InvalidParameterError(f"sums must have shape (t,)*d with d <= 4, got {S.shape}")
    if not np.all(np.isfinite(S)):
        raise InvalidParameterError("sums must be finite")
    eps = check_epsilon(epsilon)
    privacy, scale = wang_privacy(n, t, d, eps, delta, grid)
    return _noisy_summary(S, n, t, privacy, scale, insecure_seed, progress, info)


def _noisy_summary(S: np.ndarray, n: int, t: int, privacy: Any, scale: fmpq,
                   insecure_seed: Any, progress: Any, info: dict | None) -> WangSummary:
    """Round the moments ``S / n`` to the grid and add the exact discrete Laplace noise."""
    d = S.ndim
    g = parse_fmpq_str(privacy["grid"], "grid")
    mom = (S / n).ravel()
    rng = random_source(insecure_seed)
    out = [fmpq(1)]
    for i, v in enumerate(mom[1:], start=1):
        out.append(round_to_grid(float(v), g) + sample_discrete_laplace(scale, g, rng))
        if progress is not None and (i % 4096 == 0 or i == len(mom) - 1):
            progress("noise", i, len(mom) - 1)
    extra: dict[str, Any] = {"float_error": float_error_record(n, t, d)}
    extra.update(info or {})
    if insecure_seed is not None:
        extra["insecure_seed"] = int(insecure_seed)
    return WangSummary(t, d, n, g, tuple(out), privacy, extra)


def release_summary(
    data: Any,
    t: IntLike,
    epsilon: ExactLike,
    *,
    delta: ExactLike | None = None,
    grid: Any = None,
    insecure_seed: Any = None,
    progress: Any = None,
    backend: str = "local",
    scheduler: Any = None,
) -> WangSummary:
    """wang2013 Algorithm 1 with the derived sensitivity (see the module docstring).

    Parameters
    ----------
    data : array (n, d) or data source
        Values in ``[-1, 1]``, ``d <= 4``; or a data source -- a CSV/Parquet file, a
        directory of them, a glob, ``-`` (local backend) or a
        :class:`~dpverify.mechanisms.data.DataSource` with its size cap -- read block by
        block (:mod:`dpverify.mechanisms.data`; with ``"local"`` the release is that of the
        same rows given as an array with the same BLAS threads, bit for bit).
    t : int
        Moments ``||m||_inf <= t - 1`` (the paper sets ``t = n^{1/(2d+K)}``).
    epsilon : exact number > 0
    delta : exact number in (0, 1), optional
        (epsilon, delta)-DP by advanced composition.
    grid : exact number > 0, optional
        The noise grid ``g`` (default :func:`summary_grid`).
    insecure_seed : int, optional
        Reproducible noise for tests only (NOT private).
    progress : callable, optional
        ``(stage, done, total)`` reports (:mod:`dpverify.progress`).
    backend : {"local", "dask"}
        ``"dask"`` (``data`` a source): the moment sums are reduced over the partitions
        (:func:`dpverify.mechanisms.backend.reduce_rows`); noise is then drawn once, here,
        exactly as for ``"local"``.
    scheduler : optional
        Dask only: ``None`` (an embedded ``LocalCluster``), an address or a Client.

    Guarantee
    ---------
    epsilon-DP (or (epsilon, delta)-DP), using the proven float-error bound of
    :func:`summary_grid` (valid for any summation order, hence for the dask reduction tree,
    and published as ``float_error``); exact noise; the privacy record states sensitivity,
    scale and achieved epsilon, and compares with the printed scales.  Both backends give
    the same privacy record; with the same ``insecure_seed`` their released moments differ
    by at most one grid step ``g``.

    Examples
    --------
    Four rows in ``[-1, 1]``, moments of ``T_0, T_1, T_2`` (``t = 3``): ``b_0 = 1`` is
    published without noise and the two others are noisy multiples of the grid; the
    achieved epsilon is the one asked for:

    >>> import numpy as np
    >>> X = np.array([[0.5], [-0.25], [1.0], [0.0]])
    >>> s = release_summary(X, 3, 1, insecure_seed=0)    # seeded noise: NOT private
    >>> len(s.moments), s.moments[0], s.privacy["achieved_epsilon"]
    (3, 1, '1')
    >>> all((m / s.grid).q == 1 for m in s.moments)
    True

    With ``epsilon = 2^60`` (no privacy to speak of) the noise vanishes and the release
    is the exact means of ``T_1(x) = x`` and ``T_2(x) = 2x^2 - 1``: ``5/16`` and
    ``(-1/2 - 7/8 + 1 - 1)/4 = -11/32``:

    >>> s = release_summary(X, 3, 2**60, insecure_seed=0)
    >>> s.moment((1,)), s.moment((2,))
    (5/16, -11/32)
    """
    backend = check_backend(backend, scheduler)
    t = check_int(t, "t", minimum=1)
    eps = check_epsilon(epsilon)
    if delta is not None:
        check_delta(delta)
    if backend == "dask" or isinstance(data, (str, DataSource)):
        red = reduce_moment_sums(data, t, scheduler=scheduler, backend=backend,
                                 progress=progress)
        # a source read locally is released exactly as its rows in an array would be
        info = {"statistics": red.info()} if backend == "dask" else None
        return release_from_moment_sums(red.value, red.n, t, eps, delta=delta, grid=grid,
                                        insecure_seed=insecure_seed, progress=progress,
                                        info=info)
    X = check_data(data)
    n, d = X.shape
    privacy, scale = wang_privacy(n, t, d, eps, delta, grid)  # checked before the data pass
    S = checked_moment_sums(X, t, None, CHUNK_BYTES, progress)
    return _noisy_summary(S, n, t, privacy, scale, insecure_seed, progress, None)


def reduce_moment_sums(source: str | DataSource, t: int, *, scheduler: Any = None,
                       transform: Callable[[np.ndarray], np.ndarray] | None = None,
                       backend: str = "dask", progress: Any = None) -> Reduction:
    """:func:`moment_sums` of the rows of ``source`` (file, directory or glob; ``-`` for
    the local backend), domain ``[-1, 1]``, d <= 4: reduced on Dask
    (:func:`dpverify.mechanisms.backend.reduce_rows`), or with ``backend="local"`` read
    block by block in this process with the sums of one :func:`moment_sums` call on all
    the rows with the same BLAS threads, bit for bit
    (:func:`dpverify.mechanisms.moments.source_moment_sums`).
    ``transform`` (row-wise, picklable) maps the rows first (jin's grid snapping).
    Returns the :class:`~dpverify.mechanisms.backend.Reduction`."""
    t = check_int(t, "t", minimum=1)
    backend = check_backend(backend, scheduler)
    if backend == "local":
        return source_moment_sums(source, t, transform=transform, progress=progress)
    d = source_width(source)
    if 1 <= d <= 4 and t**d > MAX_MOMENTS:
        raise InvalidParameterError(f"t^d = {t**d} moments exceed {MAX_MOMENTS}")
    stat = partial(_transformed_sums, t=t, transform=transform)
    return reduce_rows(source, stat, domain=CUBE, min_columns=1, max_columns=4,
                       scheduler=scheduler)


def _transformed_sums(X: np.ndarray, t: int, transform: Any = None) -> np.ndarray:
    return moment_sums(X if transform is None else transform(X), t)
