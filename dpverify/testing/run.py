"""One task of a check, run anywhere (in this process or on a Dask worker), and the
mergeable summary it returns.

:func:`run_task` makes the task's inputs (:mod:`dpverify.testing.points`), calls the
implementation once on them (or once per point, for a scalar function), screens them
(:mod:`dpverify.testing.screen`) and decides exactly (:mod:`dpverify.testing.decide`):

* every point the screen leaves undecided;
* the candidates for the worst error: the points whose screened upper bound exceeds the
  largest lower bound seen (at most :data:`EXACT_CAP` of them, largest first; any left
  over only raise :attr:`Tally.bound`, a rigorous bound on every error of the task);
* the :data:`KEEP` largest failures, so the report names them exactly.

A :class:`Tally` adds counts, a histogram of the errors in ulps (screened estimates,
known to about ``2^-16`` ulp; exact where decided exactly), a profile of the largest error
per slice of the domain (for plots), and the few worst exact results; :meth:`Tally.merge`
combines two, so tasks can run in any order on any backend.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from flint import fmpq

from .decide import PointResult, decide_point, q_float
from .formats import BINARY32, BinaryFormat
from .models import ModelBuilder, cover
from .points import Domain, Task, half_width, task_points
from .references import Reference, call_vectorized
from .fastscreen import decide_values, put, screen_pieces
from .properties import PropTally, task_properties
from .screen import FAIL, UNDECIDED, Screen, Tolerance, screen_values
from .trig import TRIG_MIN, trig_values

__all__ = ["Setup", "Tally", "run_task", "bits_of", "HIST_EDGES", "EXACT_CAP", "KEEP",
           "PROFILE_BINS"]

#: Histogram bin edges of the error in ulps (the last bin is ``(2^20, inf]``).
HIST_EDGES = (0.0, 0.25, 0.5, 1.0, 2.0, 4.0, 8.0, 16.0, 64.0, 256.0, 1024.0, 2.0**20, math.inf)
#: Candidates for the worst error decided exactly per task.
EXACT_CAP = 32
#: Worst results and failures kept per task (exact), and screened worst points for the
#: adaptive search.
KEEP = 8
#: Slices of the domain in the profile of errors.
PROFILE_BINS = 1000


@dataclass
class Setup:
    """What every task needs (picklable: shipped to Dask workers)."""

    impl: Callable[..., Any]
    vectorized: bool
    ref: Reference
    dom: Domain
    ulps: fmpq | None
    atol: fmpq | None
    tol: Tolerance
    seed: int
    #: property checks per task: the reference's parity (symmetry), its range rounded
    #: outward (range); None: not checked
    parity: str | None = None
    range: tuple[float, float] | None = None
    #: how many failing inputs to name, first in bit-pattern order
    first: int = KEEP
    #: count the inputs whose error exceeds half an ulp (correct rounding)
    count_cr: bool = True
    properties: bool = True

    @property
    def fmt(self) -> BinaryFormat:
        return self.dom.fmt


def _key(r: PointResult, by_ulps: bool) -> float:
    if by_ulps:
        return r.ulps_key()
    return math.inf if r.abs_hi is None else q_float(r.abs_hi)


def _top(results: list[PointResult], by_ulps: bool = True) -> list[PointResult]:
    return sorted(results, key=lambda r: (-_key(r, by_ulps), r.x))[:KEEP]


@dataclass
class Tally:
    """Mergeable summary of checked points (module docstring)."""

    points: int = 0
    screened: int = 0
    exact: int = 0
    failures: int = 0
    undecided: int = 0
    undefined: int = 0
    hist: np.ndarray = field(default_factory=lambda: np.zeros(len(HIST_EDGES) - 1, np.int64))
    profile: np.ndarray = field(default_factory=lambda: np.full(PROFILE_BINS, np.nan))
    worst: list[PointResult] = field(default_factory=list)
    failing: list[PointResult] = field(default_factory=list)
    odd: list[PointResult] = field(default_factory=list)  # undecided / undefined examples
    bound: float = 0.0
    screen_top: list[tuple[float, float]] = field(default_factory=list)
    pieces: int = 0
    seconds: float = 0.0
    by_ulps: bool = True
    #: failing inputs first in bit-pattern order: ``(bits, result)``; at most ``first_n``
    first: list[tuple[int, PointResult]] = field(default_factory=list)
    first_n: int = KEEP
    #: inputs whose error exceeds half an ulp (not correctly rounded); -1: not counted
    not_cr: int = 0
    #: inputs where the reference is undefined (a pole, outside its domain), and the
    #: first few with the output there
    singular: int = 0
    singular_at: list[tuple[float, float]] = field(default_factory=list)
    props: dict[str, PropTally] = field(default_factory=dict)

    def merge(self, other: Tally) -> Tally:
        props = dict(self.props)
        for k, v in other.props.items():
            props[k] = props[k].merge(v) if k in props else v
        n = max(self.first_n, other.first_n)
        return Tally(
            self.points + other.points, self.screened + other.screened,
            self.exact + other.exact, self.failures + other.failures,
            self.undecided + other.undecided, self.undefined + other.undefined,
            self.hist + other.hist, np.fmax(self.profile, other.profile),
            _top(self.worst + other.worst), _top(self.failing + other.failing, self.by_ulps),
            sorted(self.odd + other.odd, key=lambda r: r.x)[:KEEP], max(self.bound, other.bound),
            sorted(self.screen_top + other.screen_top, key=lambda t: (-t[1], t[0]))[:4 * KEEP],
            self.pieces + other.pieces, self.seconds + other.seconds, self.by_ulps,
            sorted(self.first + other.first, key=lambda t: t[0])[:n], n,
            -1 if min(self.not_cr, other.not_cr) < 0 else self.not_cr + other.not_cr,
            self.singular + other.singular,
            sorted(self.singular_at + other.singular_at)[:KEEP], props)


def _largest(values: np.ndarray, idx: np.ndarray, k: int) -> np.ndarray:
    """The (at most) ``k`` indices of ``idx`` with the largest ``values``, largest first
    (ties by index: deterministic)."""
    if idx.size > k:
        idx = np.sort(idx[np.argpartition(-values[idx], k - 1)[:k]])
    return idx[np.argsort(-values[idx], kind="stable")]


def call_impl(setup: Setup, xs: np.ndarray) -> np.ndarray:
    """The implementation's outputs at ``xs`` (passed in the format's dtype)."""
    __tracebackhide__ = True   # pytest: a failure is the caller's, not ours
    args = xs.astype(setup.fmt.dtype)
    return call_vectorized(setup.impl, args, setup.vectorized, "implementation")


Runs = list[tuple[int, int, int]]


def _screen(setup: Setup, xs: np.ndarray, ys: np.ndarray) -> tuple[Screen, int, Runs]:
    """The screen of the task's points, the number of models, and the index ranges where
    the reference is monotone (``(start, stop, slope)``)."""
    ref, fmt = setup.ref, setup.fmt
    vals = ref.values(xs.astype(fmt.dtype)) if not ref.per_point else None
    if vals is not None:
        bound = ref.bounds(vals)   # a float reference: 0, or its declared error
        if fmt == BINARY32:
            return decide_values(ys, vals, bound, fmt, setup.tol), 0, []
        return screen_values(ys, vals, fmt, setup.tol, bound), 0, []
    builder = ref.models(fmt)
    if builder is None:
        return Screen.undecided(xs.size), 0, []
    if ref.trig is not None and fmt == BINARY32:
        # sin/cos reduced exactly beyond 1/2 (trig), the piece models below
        far = np.abs(xs) > TRIG_MIN
        if np.any(far):
            out = Screen.undecided(xs.size)
            V, W = trig_values(ref.trig, xs[far])
            put(out, far, decide_values(ys[far], V, W, fmt, setup.tol))
            near = np.flatnonzero(~far)
            if near.size:   # a contiguous range of the sorted points
                part, n, runs = _screen_models(builder, xs[near], ys[near], setup)
                put(out, near, part)
                return out, n, [(a + int(near[0]), b + int(near[0]), g) for a, b, g in runs]
            return out, 0, []
    return _screen_models(builder, xs, ys, setup)


def _screen_models(builder: ModelBuilder, xs: np.ndarray, ys: np.ndarray, setup: Setup
                   ) -> tuple[Screen, int, Runs]:
    pieces = cover(xs, builder)
    runs = [(p.start, p.stop, p.model.slope) for p in pieces
            if p.model is not None and p.model.slope != 0]
    return screen_pieces(xs, ys, pieces, setup.fmt, setup.tol), sum(
        p.model is not None or p.flat is not None for p in pieces), runs


def _profile(xs: np.ndarray, est: np.ndarray, dom: Domain) -> np.ndarray:
    prof = np.full(PROFILE_BINS, np.nan)
    if xs.size == 0:
        return prof
    half = half_width(dom)   # halves: a domain may be wider than the largest float
    b = np.zeros(xs.size, np.int64) if half <= 0 else np.clip(
        ((xs / 2 - dom.lo / 2) / half * PROFILE_BINS).astype(np.int64), 0,
        PROFILE_BINS - 1)
    starts = np.flatnonzero(np.r_[True, np.diff(b) != 0])   # xs sorted: bins contiguous
    prof[b[starts]] = np.fmax.reduceat(est, starts)
    return prof


def bits_of(xs: np.ndarray, fmt: BinaryFormat) -> np.ndarray:
    """The bit patterns of format numbers (as int64; the order of an exhaustive run)."""
    unsigned = np.uint32 if fmt.int_dtype == np.int32 else np.uint64
    return np.ascontiguousarray(xs, dtype=fmt.dtype).view(unsigned).astype(np.int64)


def run_task(task: Task, setup: Setup) -> Tally:
    """Check the points of ``task`` (module docstring)."""
    __tracebackhide__ = True   # pytest: a failure is the caller's, not ours
    t0 = time.perf_counter()
    xs = task_points(task, setup.dom, setup.seed)
    if xs.size == 0:
        return Tally(first_n=setup.first)
    ys = call_impl(setup, xs)
    sc, pieces, runs = _screen(setup, xs, ys)
    by_ulps = setup.ulps is not None
    decided: dict[int, PointResult] = {}

    def decide(i: int) -> PointResult:
        if i not in decided:
            decided[i] = decide_point(setup.ref, float(xs[i]), float(ys[i]), setup.fmt,
                                      setup.ulps, setup.atol)
        return decided[i]

    for i in np.flatnonzero(sc.status == UNDECIDED).tolist():
        decide(i)
    screened = sc.status != UNDECIDED
    exact_lo = [q_float(r.ulps_lo) for r in decided.values() if r.ulps_lo is not None]
    floor = max([np.max(sc.ulps_lo[screened], initial=0.0), *exact_lo])
    cand = np.flatnonzero(screened & (sc.ulps_hi >= floor))
    first = _largest(sc.ulps_hi, cand, EXACT_CAP)
    for i in first.tolist():
        decide(i)
    rest = np.ones(cand.size, dtype=bool)
    rest[np.searchsorted(cand, np.sort(first))] = False
    bound = float(np.max(sc.ulps_hi[cand[rest]], initial=0.0))
    failing = np.flatnonzero(sc.status == FAIL)
    rank = sc.ulps_hi if by_ulps else sc.abs_hi
    for i in _largest(rank, failing, KEEP).tolist():
        decide(i)
    # the first failing inputs in bit-pattern order, decided exactly
    bad = np.union1d(failing, np.array([i for i, r in decided.items() if r.status in (
        "fail", "undefined") and not screened[i]], dtype=np.int64)).astype(np.int64)
    keys = bits_of(xs[bad], setup.fmt) if bad.size else np.zeros(0, np.int64)
    order = np.argsort(keys, kind="stable")[:setup.first]
    firsts = [(int(keys[k]), decide(int(bad[k]))) for k in order.tolist()]
    results = list(decided.values())
    n_fail = int(failing.size) + sum(
        r.status in ("fail", "undefined") for i, r in decided.items() if not screened[i])
    with np.errstate(over="ignore"):   # huge errors: the estimate is +inf
        est = np.where(screened, sc.ulps_lo / 2 + sc.ulps_hi / 2, np.nan)
    for i, r in decided.items():
        est[i] = r.ulps_key() if r.status != "pass" or r.ulps_hi is not None else 0.0
        if r.ulps_hi is not None:
            bound = max(bound, r.ulps_key())
    # bins (a, b], the first [0, 1/4]: an error of exactly 1 ulp counts as (1/2, 1]
    edges = np.array(HIST_EDGES)
    which = np.clip(np.searchsorted(edges, est, side="left") - 1, 0, edges.size - 2)
    hist = np.bincount(which, minlength=edges.size - 1).astype(np.int64)
    top = (_largest(est, np.arange(est.size), 4 * KEEP) if task.kind in _SEARCHED
           else np.zeros(0, np.int64))
    singular = [(r.x, r.y) for r in results if _singular(r)]
    props = (task_properties(setup, xs, ys, runs, lambda v: call_impl(setup, v))
             if setup.properties else {})
    return Tally(
        points=int(xs.size), screened=int(np.count_nonzero(screened)),
        exact=sum(1 for i in decided if not screened[i]), failures=n_fail,
        undecided=sum(r.status == "undecided" for r in results),
        undefined=sum(r.status == "undefined" for r in results),
        hist=hist, profile=_profile(xs, est, setup.dom),
        worst=_top([r for r in results if r.status != "undefined"]),
        failing=_top([r for r in results if r.status in ("fail", "undefined")], by_ulps),
        odd=sorted([r for r in results if r.status in ("undecided", "undefined")],
                   key=lambda r: r.x)[:KEEP],
        bound=bound,
        screen_top=[(float(xs[i]), float(est[i])) for i in top.tolist()
                    if math.isfinite(est[i])],
        pieces=pieces, seconds=time.perf_counter() - t0, by_ulps=by_ulps,
        first=firsts, first_n=setup.first,
        not_cr=_not_cr(setup, xs, ys, sc, screened, decided) if setup.count_cr else -1,
        singular=len(singular), singular_at=sorted(singular)[:KEEP], props=props)


#: tasks of the random search, whose worst points seed the adaptive rounds
_SEARCHED = ("structural", "uniform", "ordinal", "refine")
_HALF = fmpq(1, 2)


def _singular(r: PointResult) -> bool:
    """The reference is undefined at the point (decide_point's convention)."""
    return math.isnan(r.rounded) and r.ulp == 0 and r.ref_lo == r.ref_hi == 0 and \
        r.status in ("pass", "undefined")


def _not_cr(setup: Setup, xs: np.ndarray, ys: np.ndarray, sc: Screen, screened: np.ndarray,
            decided: dict[int, PointResult]) -> int:
    """How many points err by more than half an ulp (correct rounding allows exactly
    half only at a tie): decided by the screen's enclosures where they are on one side of
    1/2, exactly (at limit 1/2) otherwise."""
    with np.errstate(invalid="ignore"):
        over = screened & (sc.ulps_lo > 0.5)
        doubt = np.flatnonzero(screened & ~over & (sc.ulps_hi > 0.5))
    n = int(np.count_nonzero(over))
    for i in doubt.tolist():
        r = decide_point(setup.ref, float(xs[i]), float(ys[i]), setup.fmt, _HALF, None)
        n += r.status in ("fail", "undefined") or (r.ulps_lo is not None and
                                                   r.ulps_lo > _HALF)
    for i, r in decided.items():
        if not screened[i] and not _singular(r):
            n += r.ulps_hi is None or r.ulps_lo is None or r.ulps_lo > _HALF
    return n
