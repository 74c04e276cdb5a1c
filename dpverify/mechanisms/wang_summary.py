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
from ..noise import RandomSource, discrete_laplace_tail, round_to_grid, sample_discrete_laplace
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
from .fixed_point import SCALE_BITS
from .moments import (
    CHUNK_BYTES,
    MAX_CHUNK_ROWS,
    MAX_MOMENTS,
    chebyshev_moments,
    chebyshev_table,
    check_data,
    checked_moment_sums,
    chunk_rows,
    exact_moment_sums,
    moment_error_bound,
    moment_sums,
    source_moment_sums,
)
from .moments import snap as snap_rows
from .privacy import (
    advanced_composition_epsilon,
    calibrate_laplace,
    check_delta,
    check_epsilon,
    check_neighbours,
    composition_exceeds,
    guarantee_block,
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
    "DEFAULT_GRID",
    "exact_moment_sums",
    "moment_error_bound",
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

_VARS = ("x", "y", "z", "w")


#: Default noise grid of the moments (public; privacy adds ``g`` per coordinate).
DEFAULT_GRID = fmpq(1, 2**40)


def summary_grid(n: int, t: int, d: int) -> fmpq:
    """The default noise grid of a summary of ``n`` rows, ``t^d`` moments:
    :data:`DEFAULT_GRID` (``2^-40``), validated against the moment count.

    The moments are exact fixed-point sums (:mod:`dpverify.mechanisms.fixed_point`), so
    privacy no longer needs the grid above a float error: the grid only enters the
    sensitivity as ``+g`` per coordinate (rounding of two neighbouring exact values).
    The accuracy error of the moments is :func:`~dpverify.mechanisms.moments.
    moment_error_bound` (published as ``float_error``).
    """
    n = check_int(n, "n", minimum=1)
    if t**d > MAX_MOMENTS:
        raise InvalidParameterError(f"t^d = {t**d} moments exceed {MAX_MOMENTS}")
    return DEFAULT_GRID


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
    """Published summary: noisy moments, ``b_0 = 1``; row-major over ``{0..t-1}^d``.

    ``neighbours="replace"``: ``moments`` are noisy means (exact multiples of ``grid``)
    and ``n`` is public.  ``"add-remove"``: ``sums`` are the noisy moment sums (multiples
    of ``grid``; ``sums[0]`` is the noisy count), ``moments`` their post-processed ratios
    ``sums[m] / max(sums[0], 1)``, and ``n`` is ``None`` (not public).
    """

    t: int
    d: int
    n: int | None
    grid: fmpq
    moments: tuple[fmpq, ...]
    privacy: dict
    info: dict = field(default_factory=dict)
    neighbours: str = "replace"
    sums: tuple[fmpq, ...] | None = None

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
        cnt = self.t**self.d - (1 if self.neighbours == "replace" else 0)
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
        ``alpha = upper(sup |f - p|) + ||c_{m != 0}||_1 e`` and the sup is certified by
        :func:`dpverify.certify.certify`; ``e`` bounds every released moment's error
        (:meth:`moment_error`).  ``certify_error=False`` skips the sup (``alpha`` then has
        ``approximation_certified: false`` and covers noise and rounding only).
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
        noise = l1 * self.moment_error(beta)
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

    def moment_error(self, beta: ExactLike) -> fmpq:
        """``e`` with ``P(max_{m != 0} |b~_m - b_m| > e) <= beta`` (``b_m`` the exact
        moment of the rows): noise (union bound, :meth:`noise_bound` ``s``), rounding
        ``g/2`` and the fixed-point error ``E`` (``float_error.per_moment_bound``; ``g/2``
        for files without it).  Replace: ``s + g/2 + E``.  Add-remove, with ``C`` the
        noisy count: ``b~_m - b_m = (e_m - b_m Z_0)/C`` with ``|e_m| <= s + g/2 + n E``,
        ``|b_m| <= 1``, ``n <= C + s``, hence ``(2 s + g/2 + (C + s) E)/C`` (``C >= 1``;
        a smaller noisy count certifies nothing and raises)."""
        s = self.noise_bound(beta)
        fe = (self.info.get("float_error") or {}).get("per_moment_bound")
        E = parse_fmpq_str(fe, "per_moment_bound") if isinstance(fe, str) else self.grid / 2
        if self.neighbours == "replace":
            return s + self.grid / 2 + E
        assert self.sums is not None
        C = self.sums[0]
        if C < 1:
            raise InvalidParameterError(
                "the noisy count of this add/remove summary is below 1: no accuracy can be "
                "certified (too few rows for this epsilon)")
        return (2 * s + self.grid / 2 + (C + s) * E) / C

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
        out = {
            "mechanism": "wang-summary",
            "reference": "wang2013 Algorithm 1",
            "t": self.t,
            "d": self.d,
            "n": self.n,
            "neighbours": self.neighbours,
            "grid": fmpq_str(self.grid),
            "moments_order": "row-major over {0..t-1}^d; T_m(x) = cos(m arccos x)",
            "moments": [fmpq_str(v) for v in self.moments],
            "privacy": self.privacy,
            **self.info,
        }
        if self.sums is not None:
            out["sums"] = [fmpq_str(v) for v in self.sums]
        return out

    @classmethod
    def from_json(cls, obj: dict) -> WangSummary:
        try:
            t, d = int(obj["t"]), int(obj["d"])
            nb = check_neighbours(obj.get("neighbours", "replace"))
            n = None if nb == "add-remove" else int(obj["n"])
            grid = parse_fmpq_str(obj["grid"], "grid")
            mom = tuple(parse_fmpq_str(v, "moments") for v in obj["moments"])
            sums = None if nb == "replace" else tuple(parse_fmpq_str(v, "sums")
                                                      for v in obj["sums"])
            priv = dict(obj["privacy"])
            info = {k: obj[k] for k in ("float_error", "count") if k in obj}
        except (KeyError, TypeError, ValueError) as exc:
            raise InvalidParameterError(f"not a wang-summary file: {exc}") from None
        if len(mom) != t**d or (sums is not None and len(sums) != t**d):
            raise InvalidParameterError("summary: wrong number of moments")
        return cls(t, d, n, grid, mom, priv, info, neighbours=nb, sums=sums)


def wang_privacy(
    n: IntLike | None, t: IntLike, d: IntLike, epsilon: ExactLike,
    delta: ExactLike | None = None, grid: Any = None, *, neighbours: str = "replace",
    secure: bool = True, assumptions: Any = (), proven: Any = None,
) -> tuple[dict[str, Any], fmpq]:
    """Privacy record and noise scale of the summary (no data needed: only ``n``, ``t``,
    ``d``).

    ``neighbours="replace"`` (the papers' relation, ``n`` public): the ``t^d - 1`` moment
    means ``b_m`` (``b_0 = 1`` public) with per-coordinate sensitivity ``2/n + g`` (each
    per-row moment clamped to ``[-1, 1]`` in fixed point, exact sums, the two neighbours'
    exact means rounded to the grid ``g``).  ``neighbours="add-remove"`` (``n`` private,
    pass ``n=None``): the ``t^d`` moment *sums* including the count ``S_0 = n``, per
    coordinate ``1 + g`` (adding or removing a row moves every sum by at most 1, the
    count by exactly 1: the L1 bound ``t^d (1 + g)`` is attained up to ``g`` by the row
    ``(1, ..., 1)``).  Calibration by
    :func:`~dpverify.mechanisms.privacy.calibrate_laplace`; the printed scales of
    wang2013 / jin are compared under ``replace``.  ``secure``, ``assumptions`` and
    ``proven`` go into the ``guarantee`` block.  Exact strings."""
    nb = check_neighbours(neighbours)
    t = check_int(t, "t", minimum=1)
    d = check_int(d, "d", minimum=1, maximum=4)
    if nb == "replace" or n is not None:
        n = check_int(n, "n", minimum=1)
    epsilon = check_epsilon(epsilon)
    if delta is not None:
        delta = check_delta(delta)
    if t**d > MAX_MOMENTS:
        raise InvalidParameterError(f"t^d = {t**d} moments exceed {MAX_MOMENTS}")
    g = DEFAULT_GRID if grid is None else to_fmpq(grid, "grid")
    if g <= 0 or g > fmpq(1, 1024):
        raise InvalidParameterError(f"grid must be in (0, 1/1024], got {fmpq_str(g)}")
    privacy: dict[str, Any] = {"neighbouring": _NEIGHBOURING[nb]}
    if nb == "replace":
        assert n is not None
        cnt, per = t**d - 1, fmpq(2, n) + g
        msens = moment_sensitivity(t, d, n)
        privacy.update({
            "moment_sensitivity": msens,
            "grid": fmpq_str(g),
            "per_coordinate": fmpq_str(per),
            "l1_sensitivity": fmpq_str(cnt * per),
            "noisy_coordinates": cnt,
            "noise": "discrete Laplace on grid g (exact sampler); b_0 = 1 released without "
                     "noise",
            "paper": paper_scales(t, d, n, epsilon, delta, sensitivity=msens),
        })
        derivation = ("each per-row moment is clamped to [-1, 1] in fixed point and summed "
                      "exactly, so one replaced row moves a mean by <= 2/n; rounding the two "
                      "exact means to the grid adds <= g")
    else:
        cnt, per = t**d, 1 + g
        privacy.update({
            "moment_sensitivity": {
                "upper": str(cnt), "lower": str(cnt),
                "witness": {"added_row": ["1"] * d},
                "note": "sums S_m = sum_x prod T_{m_i}(x_i) including S_0 = n: an added row "
                        "moves each by at most 1 (per-row values clamped to [-1, 1]); the row "
                        "(1, ..., 1) moves every sum by exactly 1"},
            "grid": fmpq_str(g),
            "per_coordinate": fmpq_str(per),
            "l1_sensitivity": fmpq_str(cnt * per),
            "noisy_coordinates": cnt,
            "noise": "discrete Laplace on grid g (exact sampler) on every moment sum, the "
                     "count S_0 = n included; moments = sums / max(noisy count, 1) "
                     "(post-processing)",
            "paper": "the papers use replace-one neighbours (n public); not compared",
        })
        derivation = ("each per-row moment is clamped to [-1, 1] in fixed point and summed "
                      "exactly, so an added or removed row moves each sum by <= 1 (the "
                      "count by 1); rounding to the grid adds <= g")
    scale, fields = calibrate_laplace(per, cnt, epsilon, delta)
    privacy.update(fields)
    _guarantee(privacy, nb, secure, assumptions, proven if proven is not None else [
        {"claim": f"per-coordinate sensitivity {fmpq_str(per)}", "how": derivation},
        {"claim": "the release does not depend on how the rows are split, ordered, encoded "
                  "or summed (blocks, files, partitions, BLAS)",
         "how": "per-row values in a fixed order of IEEE operations on that row alone, "
                "exact integer sums (dpverify.mechanisms.fixed_point)"}])
    return privacy, scale


_NEIGHBOURING = {"replace": "same n, one row replaced",
                 "add-remove": "one row added or removed (n private)"}


def _guarantee(privacy: dict[str, Any], nb: str, secure: bool, assumptions: Any,
               proven: Any, domain: str = "[-1, 1]^d") -> None:
    """Add the guarantee block and its top-level mirrors to a moments record."""
    delta = privacy.get("delta") or privacy.get("achieved_delta") or "0"
    privacy["guarantee"] = guarantee_block(
        neighbours=nb, domain=domain, epsilon=privacy["achieved_epsilon"],
        delta=delta, secure=secure, assumptions=list(assumptions), proven=proven)
    privacy["assumptions"] = list(assumptions)
    privacy["secure_randomness"] = bool(secure)


def float_error_record(t: int, d: int) -> dict[str, Any]:
    """The a-priori accuracy error of the moments (:func:`~dpverify.mechanisms.moments.
    moment_error_bound`), as it is published in a release: every released moment is
    within it of the exact moment of the float64 rows before rounding to the grid and
    noise.  It is an accuracy statement only (the sums are exact integers over per-row
    fixed-point values; privacy rests on the clamp, not on this bound)."""
    bound = moment_error_bound(t, d)
    return {
        "per_moment_bound": fmpq_str(bound),
        "formula": "4 d t^2 2^-53 + 2^-36 (per-row Chebyshev recurrence and products, "
                   "fixed point 2^-36 per factor)",
        "holds_for": "every backend, chunking, file split and row order: the sums over rows "
                     "are exact integers (dpverify.mechanisms.fixed_point)",
        "role": "accuracy only: the privacy accounting does not use it",
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
    """The noise step of wang2013 Algorithm 1 on moment sums computed elsewhere.

    ``sums`` (shape ``(t,) * d``, numbers taken exactly: ints, fmpq, floats) must be the
    moment sums ``sum_x prod_i T_{m_i}(x_i)`` of ``n`` rows in ``[-1, 1]^d``.  dpverify
    did not compute them, so the privacy record lists that as an **assumption**,
    verbatim; sums that no ``n`` rows of the domain have (``S_0 != n`` or ``|S_m| > n``)
    are refused.  (:func:`release_summary` computes the sums itself and has no such
    assumption.)  Replace-one neighbours; noise drawn once, exactly.

    Guarantee
    ---------
    Given the assumption: as :func:`release_summary` (sensitivity ``2/n + g`` per moment).
    """
    S = np.asarray(sums, dtype=object)
    t = check_int(t, "t", minimum=1)
    n = check_int(n, "n", minimum=1)
    d = S.ndim
    if not 1 <= d <= 4 or S.shape != (t,) * d:
        raise InvalidParameterError(f"sums must have shape (t,)*d with d <= 4, got {S.shape}")
    eps = check_epsilon(epsilon)
    vals = [to_fmpq(v, "sums") for v in S.ravel()]
    if vals[0] != n:
        raise InvalidParameterError(f"sums[0] must be n = {n} (the sum of T_0 = 1), got "
                                    f"{fmpq_str(vals[0])}")
    if any(abs(v) > n for v in vals):
        raise InvalidParameterError(
            "sums: a moment sum of n rows in [-1, 1]^d lies in [-n, n]; these sums are not "
            "the moment sums of rows of the domain")
    J = np.array([v * (1 << SCALE_BITS) for v in vals], dtype=object).reshape(S.shape)
    src = RandomSource(insecure_seed)
    assumption = (f"sums = the moment sums sum_x prod_i T_(m_i)(x_i) of n = {n} rows in "
                  "[-1, 1]^d (supplied by the caller of release_from_moment_sums; dpverify "
                  "did not compute them or see the rows)")
    privacy, scale = wang_privacy(n, t, d, eps, delta, grid, secure=src.secure,
                                  assumptions=[assumption], proven=[])
    return _noisy_summary(J, n, t, privacy, scale, src, progress, info, "replace")


def _noisy_summary(J: np.ndarray, n: int | None, t: int, privacy: Any, scale: fmpq,
                   src: RandomSource, progress: Any, info: dict | None,
                   neighbours: str) -> WangSummary:
    """Round the exact values to the grid and add the exact discrete Laplace noise:
    the means ``J / (n 2^SCALE_BITS)`` (replace) or the sums ``J / 2^SCALE_BITS`` with the
    count (add-remove)."""
    d = J.ndim
    g = parse_fmpq_str(privacy["grid"], "grid")
    flat = J.ravel()
    den = (1 << SCALE_BITS) * (n if n is not None and neighbours == "replace" else 1)
    out = [fmpq(1)] if neighbours == "replace" else []
    start = len(out)
    for i in range(start, len(flat)):
        out.append(round_to_grid(fmpq(int(flat[i]), den), g)
                   + sample_discrete_laplace(scale, g, src))
        if progress is not None and (i % 4096 == 0 or i == len(flat) - 1):
            progress("noise", i, len(flat) - 1)
    extra: dict[str, Any] = {"float_error": float_error_record(t, d)}
    sums = None
    if neighbours == "add-remove":
        sums = tuple(out)
        cnt = sums[0]
        extra["count"] = fmpq_str(cnt)
        extra["normalised_by"] = "max(noisy count, 1)"
        c = max(cnt, fmpq(1))
        out = [fmpq(1)] + [v / c for v in sums[1:]]
    extra.update(info or {})
    if not src.secure:
        extra["insecure_seed"] = src.seed
    return WangSummary(t, d, n, g, tuple(out), privacy, extra, neighbours=neighbours,
                       sums=sums)


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
    neighbours: str = "replace",
    snap: IntLike | None = None,
) -> WangSummary:
    """wang2013 Algorithm 1 with the derived sensitivity (see the module docstring).

    Parameters
    ----------
    data : array (n, d) or data source
        Values in ``[-1, 1]``, ``d <= 4``; or a data source -- a CSV/Parquet file, a
        directory of them, a glob, ``-`` (local backend) or a
        :class:`~dpverify.mechanisms.data.DataSource` with its size cap -- read block by
        block (:mod:`dpverify.mechanisms.data`).
    t : int
        Moments ``||m||_inf <= t - 1`` (the paper sets ``t = n^{1/(2d+K)}``).
    epsilon : exact number > 0
    delta : exact number in (0, 1), optional
        (epsilon, delta)-DP by advanced composition.
    grid : exact number in (0, 1/1024], optional
        The noise grid ``g`` (default :data:`DEFAULT_GRID`).
    insecure_seed : int, optional
        Reproducible noise for tests only (NOT private; the record says so).
    progress : callable, optional
        ``(stage, done, total)`` reports (:mod:`dpverify.progress`).
    backend : {"local", "dask"}
        ``"dask"`` (``data`` a source): the exact moment sums are reduced over the
        partitions (:func:`dpverify.mechanisms.backend.reduce_rows`); noise is then drawn
        once, here, exactly as for ``"local"``.
    scheduler : optional
        Dask only: ``None`` (an embedded ``LocalCluster``), an address or a Client.
    neighbours : {"replace", "add-remove"}
        The neighbouring relation accounted for (:func:`wang_privacy`): ``"add-remove"``
        releases noisy sums and a noisy count (``n`` is not published).
    snap : int, optional
        Replace every coordinate by its nearest point of jin's grid ``A_N`` first
        (:func:`~dpverify.mechanisms.moments.snap`, a per-row map: jin Algorithm 1 step 4).

    Guarantee
    ---------
    epsilon-DP (or (epsilon, delta)-DP) for the chosen neighbours, unconditionally on the
    domain ``[-1, 1]^d``: the moments are exact sums of clamped fixed-point per-row values
    (:func:`~dpverify.mechanisms.moments.exact_moment_sums`), so the release is the same
    for every split, order and encoding of the rows, on every backend (bit for bit with
    the same ``insecure_seed``); exact noise; the record states sensitivity, scale,
    achieved epsilon and compares with the printed scales.

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
    nb = check_neighbours(neighbours)
    t = check_int(t, "t", minimum=1)
    eps = check_epsilon(epsilon)
    if delta is not None:
        check_delta(delta)
    src = RandomSource(insecure_seed)
    N = None if snap is None else check_int(snap, "snap", minimum=1, maximum=10**6)
    if backend == "dask" or isinstance(data, (str, DataSource)):
        red = reduce_moment_sums(data, t, scheduler=scheduler, backend=backend,
                                 progress=progress,
                                 transform=None if N is None else partial(snap_rows, N=N))
        info = {"statistics": red.info()} if backend == "dask" else None
        n, d, J = red.n, red.value.ndim, red.value
        privacy, scale = wang_privacy(n if nb == "replace" else None, t, d, eps, delta,
                                      grid, neighbours=nb, secure=src.secure)
        return _noisy_summary(J, n if nb == "replace" else None, t, privacy, scale, src,
                              progress, info, nb)
    X = check_data(data)
    if N is not None:
        X = snap_rows(X, N)
    n, d = X.shape
    # checked before the data pass
    privacy, scale = wang_privacy(n if nb == "replace" else None, t, d, eps, delta, grid,
                                  neighbours=nb, secure=src.secure)
    J = checked_moment_sums(X, t, None, CHUNK_BYTES, progress)
    return _noisy_summary(J, n if nb == "replace" else None, t, privacy, scale, src,
                          progress, None, nb)


def reduce_moment_sums(source: str | DataSource, t: int, *, scheduler: Any = None,
                       transform: Callable[[np.ndarray], np.ndarray] | None = None,
                       backend: str = "dask", progress: Any = None) -> Reduction:
    """:func:`~dpverify.mechanisms.moments.exact_moment_sums` of the rows of ``source``
    (file, directory or glob; ``-`` for the local backend), domain ``[-1, 1]``, d <= 4:
    reduced on Dask (:func:`dpverify.mechanisms.backend.reduce_rows`: exact integers,
    added over the tree), or with ``backend="local"`` read block by block in this process
    (:func:`dpverify.mechanisms.moments.source_moment_sums`); the same integers either
    way.  ``transform`` (row-wise, picklable) maps the rows first (jin's grid snapping).
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
    return exact_moment_sums(X if transform is None else transform(X), t)
