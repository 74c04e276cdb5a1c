"""The Remez exchange with a barycentric trial polynomial (a search, no guarantee).

One step, for a reference ``x_0 < ... < x_{N+1}`` (Pachon and Trefethen, BIT 49 (2009);
Chebfun's ``minimax``, Filip, Nakatsukasa, Trefethen and Beckermann, SIAM J. Sci.
Comput. 40 (2018)):

1. the levelled error ``h = sum w_k f(x_k) / sum w_k (-1)^k`` (``w`` the barycentric
   weights of the reference) and the trial polynomial ``p`` of degree ``<= N`` with
   ``p(x_k) = f(x_k) - (-1)^k h``, kept in barycentric form;
2. the local extrema of ``e = f - p``: on every gap between consecutive reference points
   (and breakpoints of ``f``) ``e`` is sampled at a few Chebyshev points, and each local
   maximum of ``|e|`` among the samples is refined by safeguarded successive parabolic
   interpolation (all of them at once, vectorised) until its value is known to a small
   fraction of the tolerance; the ends of the interval and the breakpoints (kinks, where
   ``e`` has corners) are candidates as they are;
3. the full exchange: the candidates with ``|e| >= |h|`` and the old reference, sorted,
   one point per run of equal sign (the largest), ``N + 2`` of them kept by dropping the
   smaller end (never the global maximum).

It stops when ``max |e| <= (1 + tol) min_i |e(x_i)|`` on the new reference, when the time
runs out, after ``max_iter`` steps, or when fewer than ``N + 2`` alternating extrema are
found; the result always says which, and carries the best step seen (the least relative
spread ``(max |e| - min_i |e(x_i)|) / max |e|``).

The start is the extrema of ``T_{N+2}`` without the right end: a reference symmetric about
the centre would make ``h = 0`` for an even or odd ``f``.

Arithmetic: :class:`~dpverify.constructions.barycentric.Arith` (float64, or FLINT ``arf`` at
the precision the caller chose from the target accuracy).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from flint import fmpq

from ..errors import TimeLimitExceeded
from ..numbers import fmpq_to_decimal
from ..progress import ProgressCallback, report
from .barycentric import Arith, bary_eval, weights

__all__ = ["ExchangeResult", "exchange_search", "SAMPLES_PER_GAP"]

#: samples of e per gap between reference points (interior Chebyshev points)
SAMPLES_PER_GAP = 7
#: largest number of refinement steps of one extremum
_REFINE_STEPS = 60
_GOLD = 0.3819660112501051
#: exchange steps without a better spread before the search calls itself stalled
_PATIENCE = 4


@dataclass
class ExchangeResult:
    """The last trial polynomial of the search and how the search ended."""

    ref: np.ndarray  # reference of the polynomial below (N + 2 points)
    values: np.ndarray  # f - (-1)^k h at ref (p's values there)
    w: np.ndarray  # barycentric weights of ref
    h: Any  # levelled error of ref
    alternation: list[Any]  # N + 2 points where e alternates (the next reference)
    extrema: list[Any]  # every local extremum of |e| found (sorted), incl. the ends
    max_error: Any  # max |e| over the extrema
    min_alternation: Any  # min |e| over ``alternation``
    iterations: int
    stop: str  # converged | max_iter | no_alternation | stalled | exact
    history: list[float] = field(default_factory=list)  # relative spread per step

    @property
    def converged(self) -> bool:
        return self.stop in ("converged", "exact")

    @property
    def spread(self) -> float:
        if self.max_error == 0:  # compared as search numbers: a float of 1e-400 is 0
            return 0.0
        return float((self.max_error - self.min_alternation) / self.max_error)


def _initial_reference(n: int, mid: Any, rad: Any, ar: Arith) -> np.ndarray:
    m = n + 2
    return np.asarray(mid - rad * ar.array([ar.cos_pi(fmpq(i, m)) for i in range(m)]))


def exchange_search(fv: Callable[[np.ndarray], np.ndarray], n: int, a: Any, b: Any,
                    ar: Arith, *, fixed: list[Any] | None = None, tol: float = 1e-8,
                    max_iter: int = 60, deadline: float | None = None,
                    decide: Any = None, progress: ProgressCallback | None = None,
                    stage: str = "remez",
                    weight: Callable[[np.ndarray], np.ndarray] | None = None,
                    error: Callable[[np.ndarray, np.ndarray], np.ndarray] | None = None,
                    ) -> ExchangeResult:
    """Run the exchange (module docstring) for degree ``n`` on ``[a, b]``.

    ``fv`` evaluates ``f`` on an array; ``fixed`` are breakpoints inside ``(a, b)`` (kinks:
    candidates as they are, and gap ends); ``decide``: stop as soon as the floating
    bracket ``|h| <= E_n <= max |e|`` excludes this number (a degree search only needs to
    know on which side it is).  Raises :class:`TimeLimitExceeded` past ``deadline``
    (``time.monotonic()`` seconds).

    Weighted problem (``min max W |f - p|``, ``W >= 0``): ``weight`` gives ``W`` at the
    reference points (the levelled equations become ``p(x_k) = f(x_k) - (-1)^k h / W_k``,
    ``h = sum w_k f_k / sum w_k (-1)^k / W_k``) and ``error(t, p(t))`` the weighted error
    at any points (default ``W (f - p)``, which a caller may compute without cancellation);
    a reference point where ``W = 0`` is moved half way to its right neighbour.
    """
    mid, rad = (a + b) / 2, (b - a) / 2
    scale = 4 / (b - a)
    ends = _unique_sorted([a, b] + list(fixed or []))
    ends_arr = ar.array(ends)
    if error is None:
        if weight is None:
            def error(t: np.ndarray, pt: np.ndarray) -> np.ndarray:
                return np.asarray(fv(t) - pt)
        else:
            def error(t: np.ndarray, pt: np.ndarray) -> np.ndarray:
                return np.asarray(weight(t) * (fv(t) - pt))
    ref = _initial_reference(n, mid, rad, ar)
    if weight is not None:
        ref = _off_zero_weight(ref, weight, b)
    m = n + 2
    sigma = ar.array([1 if i % 2 == 0 else -1 for i in range(m)])
    best: ExchangeResult | None = None
    best_it = 0
    history: list[float] = []

    def late() -> bool:
        return deadline is not None and time.monotonic() > deadline

    step = 0

    def check() -> None:
        if late():
            raise TimeLimitExceeded(_late_message(stage, step, best, ar))

    for it in range(1, max_iter + 1):
        step = it - 1
        report(progress, f"{stage}: iterations", it - 1, None)
        check()
        fk = fv(ref)
        w = weights(ref, scale, ar, check)
        inv = None if weight is None else 1 / weight(ref)
        den = (w * sigma).sum() if inv is None else (w * sigma * inv).sum()
        h = (w * fk).sum() / den
        y = fk - h * sigma if inv is None else fk - h * sigma * inv

        def err(t: np.ndarray, y: np.ndarray = y, w: np.ndarray = w,
                ref: np.ndarray = ref) -> np.ndarray:
            return error(t, bary_eval(t, ref, w, y, scale, ar, check))

        ext_x, ext_e = _extrema(err, ref, h * sigma, ends_arr, err(ends_arr), tol, ar, late)
        emax = max(abs(e) for e in ext_e) if len(ext_e) else abs(h)
        new = _exchange(ext_x, ext_e, ref, h * sigma, abs(h), m)
        if emax == 0:
            return ExchangeResult(ref, y, w, h, list(ref), list(ext_x), emax, emax, it,
                                  "exact", history)
        if new is None:
            res = ExchangeResult(ref, y, w, h, list(ref), list(ext_x), emax, abs(h), it,
                                 "no_alternation", history)
            if best is not None:
                best.stop = "no_alternation"
                return best
            return res
        alt_x, alt_e = new
        emin = min(abs(e) for e in alt_e)
        spread = float((emax - emin) / emax)
        history.append(spread)
        res = ExchangeResult(ref, y, w, h, alt_x, list(ext_x), emax, emin, it, "max_iter",
                             history)
        if best is None or spread < best.spread:
            best, best_it = res, it
        if spread <= tol:
            res.stop = "converged"
            return res
        if decide is not None and (abs(h) > decide or emax <= decide):
            res.stop = "decided"
            return res
        new_ref = ar.array(alt_x)
        # no progress: the same reference again, or no better step for a while (a
        # reference cycling between two choices of the dropped end, where the rounding
        # of the arithmetic is reached)
        if all(u == v for u, v in zip(new_ref, ref)) or it - best_it >= _PATIENCE:
            best.stop = "stalled"
            return best
        ref = new_ref
    assert best is not None
    best.stop = "max_iter"
    return best


def _off_zero_weight(ref: np.ndarray, weight: Callable[[np.ndarray], np.ndarray],
                     b: Any) -> np.ndarray:
    """The reference with every point where the weight vanishes moved half way to its
    right neighbour (to ``b`` for the last point): the levelled equations divide by
    ``W``."""
    ref = np.array(ref)
    for _ in range(8):
        zero = np.nonzero(weight(ref) == 0)[0]
        if len(zero) == 0:
            break
        for i in zero:
            right = ref[i + 1] if i + 1 < len(ref) else b
            ref[i] = (ref[i] + right) / 2
    return ref


def _unique_sorted(xs: list[Any]) -> list[Any]:
    out: list[Any] = []
    for x in sorted(xs):
        if not out or x != out[-1]:
            out.append(x)
    return out


def _late_message(stage: str, steps: int, best: ExchangeResult | None, ar: Arith) -> str:
    where = f"after {steps} exchange step(s)"
    if best is not None:
        h = fmpq_to_decimal(ar.to_fmpq(abs(best.h)), 4)
        where += f", levelled error {h}, relative spread of the extrema {best.spread:.2e}"
    return f"time limit reached during the Remez search ({stage}) {where}"


def _extrema(err: Callable[[np.ndarray], np.ndarray], ref: np.ndarray, e_ref: np.ndarray,
             ends: np.ndarray, e_ends: np.ndarray, tol: float, ar: Arith,
             late: Callable[[], bool]) -> tuple[list[Any], list[Any]]:
    """Local extrema of ``|e|``: sampled per gap, refined, plus the ends/breakpoints."""
    merged = sorted([(x, e, False) for x, e in zip(ref, e_ref)]
                    + [(x, e, True) for x, e in zip(ends, e_ends)], key=lambda t: t[0])
    nodes: list[Any] = []
    node_e: list[Any] = []
    node_fixed: list[bool] = []
    for x, e, fx in merged:
        if nodes and x == nodes[-1]:
            if fx:  # an end/breakpoint: its value was computed, and it stays fixed
                node_e[-1], node_fixed[-1] = e, True
            continue
        nodes.append(x)
        node_e.append(e)
        node_fixed.append(fx)
    K = SAMPLES_PER_GAP
    # interior Chebyshev points of each gap
    fr = ar.array([(1 - ar.cos_pi(fmpq(j + 1, K + 1))) / 2 for j in range(K)])
    lo = ar.array(nodes[:-1])
    hi = ar.array(nodes[1:])
    pts = (lo[:, None] + (hi - lo)[:, None] * fr[None, :]).reshape(-1)
    ev = err(pts)
    seq_x: list[Any] = []
    seq_e: list[Any] = []
    seq_fixed: list[bool] = []
    for g in range(len(nodes) - 1):
        seq_x.append(nodes[g])
        seq_e.append(node_e[g])
        seq_fixed.append(node_fixed[g])
        seq_x.extend(pts[g * K:(g + 1) * K])
        seq_e.extend(ev[g * K:(g + 1) * K])
        seq_fixed.extend([False] * K)
    seq_x.append(nodes[-1])
    seq_e.append(node_e[-1])
    seq_fixed.append(node_fixed[-1])
    ab = [abs(e) for e in seq_e]
    out_x: list[Any] = []
    out_e: list[Any] = []
    brackets: list[tuple[Any, Any, Any, Any, Any, Any]] = []
    last = len(seq_x) - 1
    for i in range(len(seq_x)):
        left = ab[i - 1] if i > 0 else -1
        right = ab[i + 1] if i < last else -1
        if not (ab[i] >= left and ab[i] >= right) or ab[i] == 0:
            continue
        if i in (0, last) or seq_fixed[i]:
            out_x.append(seq_x[i])
            out_e.append(seq_e[i])
        else:
            brackets.append((seq_x[i - 1], seq_x[i], seq_x[i + 1], ab[i - 1], ab[i], ab[i + 1]))
    if brackets:
        xs, es = _refine(err, brackets, tol, ar, late)
        out_x.extend(xs)
        out_e.extend(es)
    order = sorted(range(len(out_x)), key=lambda k: out_x[k])
    xs_sorted = [out_x[k] for k in order]
    es_sorted = [out_e[k] for k in order]
    # drop duplicates (a refined maximum may land on a neighbour's sample)
    dx: list[Any] = []
    de: list[Any] = []
    for x, e in zip(xs_sorted, es_sorted):
        if dx and x == dx[-1]:
            if abs(e) > abs(de[-1]):
                de[-1] = e
            continue
        dx.append(x)
        de.append(e)
    return dx, de


def _refine(err: Callable[[np.ndarray], np.ndarray],
            brackets: list[tuple[Any, Any, Any, Any, Any, Any]], tol: float, ar: Arith,
            late: Callable[[], bool]) -> tuple[list[Any], list[Any]]:
    """Maximise ``|e|`` in every bracket ``x0 < x1 < x2`` with ``g1 >= g0, g2``
    (successive parabolic interpolation, a golden-section step where the parabola is
    unusable or the bracket stops shrinking), all brackets at once.

    ``|e|`` is flat to second order at a maximum, so a value accurate to ``tol/64`` needs
    the point to about ``sqrt(tol)/8`` of the bracket: a bracket stops when the parabola's
    step is below that."""
    x0, x1, x2, g0, g1, g2 = (ar.array([b[i] for b in brackets]) for i in range(6))
    tolx = (x2 - x0) * max(float(tol) ** 0.5 / 8, 64 * ar.eps ** 0.5)
    active = np.ones(len(brackets), dtype=bool)
    slow = np.zeros(len(brackets), dtype=bool)
    for _ in range(_REFINE_STEPS):
        if late():
            break
        idx = np.nonzero(active)[0]
        if len(idx) == 0:
            break
        a0, a1, a2 = x0[idx], x1[idx], x2[idx]
        b0, b1, b2 = g0[idx], g1[idx], g2[idx]
        d0, d2 = a1 - a0, a1 - a2
        # a parabola through points 1e300 apart overflows float64: the step is then not
        # usable (NaN compares false) and a golden-section step is taken
        with np.errstate(over="ignore", invalid="ignore"):
            p = d0 * d0 * (b1 - b2) - d2 * d2 * (b1 - b0)
            q = d0 * (b1 - b2) - d2 * (b1 - b0)
            u = a1 - p / (2 * np.where(q == 0, 1, q))
        usable = (q != 0) & (u > a0) & (u < a2) & ~slow[idx]
        step = np.abs(u - a1)
        done = usable & (step <= tolx[idx])
        active[idx[done]] = False
        go = ~done
        if not go.any():
            break
        idx, a0, a1, a2, b0, b1, b2 = (v[go] for v in (idx, a0, a1, a2, b0, b1, b2))
        usable, u = usable[go], u[go]
        left_big = (a1 - a0) > (a2 - a1)
        gold = np.where(left_big, a1 - (a1 - a0) * _GOLD, a1 + (a2 - a1) * _GOLD)
        u = np.where(usable, u, gold)
        gu = np.abs(err(u))
        better = gu > b1
        right = u > a1
        n0 = np.where(better, np.where(right, a1, a0), np.where(right, a0, u))
        n1 = np.where(better, u, a1)
        n2 = np.where(better, np.where(right, a2, a1), np.where(right, u, a2))
        m0 = np.where(better, np.where(right, b1, b0), np.where(right, b0, gu))
        m1 = np.where(better, gu, b1)
        m2 = np.where(better, np.where(right, b2, b1), np.where(right, gu, b2))
        slow[idx] = (n2 - n0) > (a2 - a0) * 0.8
        x0[idx], x1[idx], x2[idx] = n0, n1, n2
        g0[idx], g1[idx], g2[idx] = m0, m1, m2
        active[idx[(n2 - n0) <= tolx[idx]]] = False
    return list(x1), list(err(x1))


def _exchange(ext_x: list[Any], ext_e: list[Any], ref: np.ndarray, e_ref: np.ndarray,
              habs: Any, m: int) -> tuple[list[Any], list[Any]] | None:
    """Chebfun's full exchange: candidates with ``|e| >= |h|`` and the old reference,
    one per run of equal sign (the largest), ``m`` kept (the smaller end dropped)."""
    pool = [(x, e) for x, e in zip(ext_x, ext_e) if abs(e) >= habs]
    pool += list(zip(list(ref), list(e_ref)))
    pool.sort(key=lambda t: t[0])
    runs: list[tuple[Any, Any]] = []
    for x, e in pool:
        if e == 0:
            continue
        if runs and x == runs[-1][0]:
            if abs(e) > abs(runs[-1][1]) and (e > 0) == (runs[-1][1] > 0):
                runs[-1] = (x, e)
            continue
        if runs and (runs[-1][1] > 0) == (e > 0):
            if abs(e) > abs(runs[-1][1]):
                runs[-1] = (x, e)
        else:
            runs.append((x, e))
    if len(runs) < m:
        return None
    top = max(range(len(runs)), key=lambda k: abs(runs[k][1]))
    lo, hi = 0, len(runs) - 1
    while hi - lo + 1 > m:
        if (abs(runs[lo][1]) <= abs(runs[hi][1]) and lo != top) or hi == top:
            lo += 1
        else:
            hi -= 1
    keep = runs[lo:hi + 1]
    return [x for x, _ in keep], [e for _, e in keep]
