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
from .fastscreen import decide_values, put, screen_pieces
from .formats import BINARY32, BinaryFormat
from .models import Piece, cover
from .points import Domain, Task, half_width, task_points
from .properties import PropTally, task_properties
from .references import Reference, call_vectorized, overflowed
from .screen import FAIL, UNDECIDED, Screen, Tolerance, screen_values
from .trig import TRIG_MIN, trig_runs, trig_values

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
    """The implementation's outputs at ``xs`` (passed in the format's dtype); a scalar
    function's OverflowError is the infinity of the reference's sign
    (:func:`~dpverify.testing.references.overflowed`)."""
    __tracebackhide__ = True   # pytest: a failure is the caller's, not ours
    args = xs.astype(setup.fmt.dtype)
    ys = call_vectorized(setup.impl, args, setup.vectorized, "implementation")
    if not setup.vectorized:
        overflowed(setup.ref, xs, ys, setup.fmt.p + 40)
    return ys


Runs = list[tuple[int, int, int]]
#: points screened and summarised at a time (arrays that stay in cache)
SUB = 1 << 16


@dataclass
class _Plan:
    """How the points of a task are screened: piece models (``pieces``), reference values
    (a float reference), or ``sin``/``cos`` reduced (``trig``: the points beyond
    :data:`~dpverify.testing.trig.TRIG_MIN`, the models below)."""

    pieces: list[Any]
    models: int
    runs: Runs
    values: bool = False
    trig: np.ndarray | None = None
    undecided: bool = False


def _plan(setup: Setup, xs: np.ndarray) -> _Plan:
    ref, fmt = setup.ref, setup.fmt
    if not ref.per_point and ref.models(fmt) is None and ref.values(xs[:1].astype(
            fmt.dtype)) is not None:
        return _Plan([], 0, [], values=True)
    builder = ref.models(fmt)
    if builder is None:
        return _Plan([], 0, [], undecided=True)
    far = None
    near = slice(0, xs.size)
    if ref.trig is not None and fmt == BINARY32:
        # sin/cos reduced exactly beyond 1/2 (trig), the piece models below: the points
        # below are one contiguous range of the sorted points
        far = np.abs(xs) > TRIG_MIN
        idx = np.flatnonzero(~far)
        near = slice(int(idx[0]), int(idx[-1]) + 1) if idx.size else slice(0, 0)
    pieces = [Piece(p.start + near.start, p.stop + near.start, p.model, p.flat)
              for p in cover(xs[near], builder)] if near.stop > near.start else []
    runs = [(p.start, p.stop, p.model.slope) for p in pieces
            if p.model is not None and p.model.slope != 0]
    models = sum(p.model is not None or p.flat is not None for p in pieces)
    return _Plan(pieces, models, runs, trig=far)


def _screen(setup: Setup, plan: _Plan, xs: np.ndarray, ys: np.ndarray, a: int,
            slope: np.ndarray | None = None) -> Screen:
    """The screen of the points ``xs`` (the task's from index ``a`` on); the directions of
    a reduced ``sin``/``cos`` go to ``slope`` (the task's, for the monotonicity check)."""
    fmt, tol = setup.fmt, setup.tol
    if plan.undecided:
        return Screen.undecided(xs.size)
    if plan.values:
        vals = setup.ref.values(xs.astype(fmt.dtype))
        assert vals is not None
        bound = setup.ref.bounds(vals)   # a float reference: 0, or its declared error
        if fmt == BINARY32:
            return decide_values(ys, vals, bound, fmt, tol)
        return screen_values(ys, vals, fmt, tol, bound)
    b = a + xs.size
    mine = [Piece(max(p.start, a) - a, min(p.stop, b) - a, p.model, p.flat)
            for p in plan.pieces if p.start < b and p.stop > a]
    out = screen_pieces(xs, ys, mine, fmt, tol)
    if plan.trig is not None:
        far = plan.trig[a:b]
        if np.any(far):
            assert setup.ref.trig is not None
            V, W, sl = trig_values(setup.ref.trig, xs[far], slope is not None)
            put(out, far, decide_values(ys[far], V, W, fmt, tol))
            if slope is not None and sl is not None:
                slope[a:b][far] = sl
    return out


@dataclass
class _Sub:
    """What the pass over the task's sub-blocks keeps (indices into the task's points)."""

    undecided: list[np.ndarray] = field(default_factory=list)
    lo_max: float = 0.0
    cand: list[np.ndarray] = field(default_factory=list)
    rest_max: float = 0.0
    fails: int = 0
    fail_top: list[np.ndarray] = field(default_factory=list)
    fail_first: list[np.ndarray] = field(default_factory=list)
    over_half: int = 0
    doubt: list[np.ndarray] = field(default_factory=list)
    hist: np.ndarray = field(default_factory=lambda: np.zeros(len(HIST_EDGES) - 1, np.int64))
    top: list[np.ndarray] = field(default_factory=list)
    #: points of pieces where the reference is undefined, and the first few
    singular: int = 0
    singular_at: list[tuple[float, float]] = field(default_factory=list)


def _pass(setup: Setup, task: Task, xs: np.ndarray, ys: np.ndarray, plan: _Plan
          ) -> tuple[_Sub, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Screen the task in sub-blocks of :data:`SUB` points and summarise each while it is
    in cache; returns the summary and the screened enclosures (for the few points looked
    up afterwards): ``ulps_hi``, ``rank`` (``abs_hi`` without an ulp limit), ``status``,
    and the estimates ``est`` (for the profile, once the exact decisions are in)."""
    n = xs.size
    sub = _Sub()
    for p in plan.pieces:   # pieces where the reference is undefined everywhere
        if p.flat is not None and math.isnan(p.flat.rounded):
            sub.singular += p.stop - p.start
            sub.singular_at += [(float(xs[i]), float(ys[i]))
                                for i in range(p.start, min(p.stop, p.start + KEEP))]
    ulps_hi = np.empty(n)
    est_all = np.empty(n)
    rank = ulps_hi if setup.ulps is not None else np.empty(n)
    status = np.empty(n, dtype=np.int8)
    edges = np.array(HIST_EDGES)
    searched = task.kind in _SEARCHED
    slope = np.zeros(n, np.int8) if plan.trig is not None and setup.properties else None
    for a in range(0, n, SUB):
        b = min(a + SUB, n)
        sc = _screen(setup, plan, xs[a:b], ys[a:b], a, slope)
        st = sc.status
        status[a:b] = st
        ulps_hi[a:b] = sc.ulps_hi
        if setup.ulps is None:
            rank[a:b] = sc.abs_hi
        und = st == UNDECIDED
        if np.any(und):
            sub.undecided.append(np.flatnonzero(und) + a)
        scr = ~und
        with np.errstate(invalid="ignore", over="ignore"):
            lo = np.where(scr, sc.ulps_lo, 0.0)
            hi = np.where(scr, sc.ulps_hi, -np.inf)
            lo_max = float(np.max(lo, initial=0.0))
            sub.lo_max = max(sub.lo_max, lo_max)
            c = np.flatnonzero(hi >= lo_max)
            if c.size > EXACT_CAP:
                k = np.argpartition(-hi[c], EXACT_CAP)
                sub.rest_max = max(sub.rest_max, float(hi[c[k[EXACT_CAP]]]))
                c = c[k[:EXACT_CAP]]
            sub.cand.append(c + a)
            fail = np.flatnonzero(st == FAIL)
            sub.fails += int(fail.size)
            if fail.size:
                r = rank[a:b][fail]
                sub.fail_top.append(fail[np.argsort(-r, kind="stable")[:KEEP]] + a)
                keys = bits_of(xs[a:b][fail], setup.fmt)
                sub.fail_first.append(fail[np.argsort(keys, kind="stable")[:setup.first]] + a)
            if setup.count_cr:
                over = lo > 0.5
                sub.over_half += int(np.count_nonzero(over))
                d = np.flatnonzero(scr & ~over & (hi > 0.5))
                if d.size:
                    sub.doubt.append(d + a)
            est = np.where(scr, lo / 2 + hi / 2, np.nan)
        est_all[a:b] = est
        which = np.clip(np.searchsorted(edges, est[scr], side="left") - 1, 0,
                        edges.size - 2)
        sub.hist += np.bincount(which, minlength=edges.size - 1)
        if searched:
            t = _largest(np.where(np.isfinite(est), est, -np.inf), np.arange(b - a), 4 * KEEP)
            sub.top.append(t + a)
    if slope is not None and plan.trig is not None:
        plan.runs += trig_runs(xs, slope, plan.trig)
    return sub, ulps_hi, rank, status, est_all


def _cat(parts: list[np.ndarray]) -> np.ndarray:
    return np.concatenate(parts) if parts else np.zeros(0, np.int64)


def run_task(task: Task, setup: Setup) -> Tally:
    """Check the points of ``task`` (module docstring)."""
    __tracebackhide__ = True   # pytest: a failure is the caller's, not ours
    t0 = time.perf_counter()
    xs = task_points(task, setup.dom, setup.seed)
    if xs.size == 0:
        return Tally(first_n=setup.first)
    ys = call_impl(setup, xs)
    plan = _plan(setup, xs)
    sub, ulps_hi, rank, status, est = _pass(setup, task, xs, ys, plan)
    by_ulps = setup.ulps is not None
    screened = status != UNDECIDED
    acc = _Exact(setup, xs, ys, screened, est)
    decide = acc.decide
    for i in _cat(sub.undecided).tolist():
        decide(i)
    floor = max(sub.lo_max, acc.lo_max)
    cand = _cat(sub.cand)
    cand = cand[ulps_hi[cand] >= floor] if cand.size else cand
    chosen = _largest(ulps_hi, cand, EXACT_CAP)
    for i in chosen.tolist():
        decide(i)
    others = np.setdiff1d(cand, chosen)
    bound = max(sub.rest_max, float(np.max(ulps_hi[others], initial=0.0)), acc.bound)
    fail_top = _cat(sub.fail_top)
    for i in _largest(rank, fail_top, KEEP).tolist():
        decide(i)
    # the first failing inputs in bit-pattern order, decided exactly
    bad = np.union1d(_cat(sub.fail_first), np.array(
        [i for i, r in acc.kept.items() if r.status in ("fail", "undefined") and
         not screened[i]], dtype=np.int64)).astype(np.int64)
    keys = bits_of(xs[bad], setup.fmt) if bad.size else np.zeros(0, np.int64)
    firsts = [(int(keys[k]), decide(int(bad[k])))
              for k in np.argsort(keys, kind="stable")[:setup.first].tolist()]
    bound = max(bound, acc.bound)
    results = list(acc.kept.values()) + acc.passes
    n_fail = sub.fails + acc.fails
    hist = sub.hist + acc.hist
    profile = _profile(xs, est, setup.dom)
    top = _cat(sub.top)
    est_top = [(float(xs[i]), float(ulps_hi[i])) for i in top.tolist()
               if math.isfinite(ulps_hi[i])]
    # undefined points decided exactly (those the screen settled in undefined pieces are
    # counted by the pass)
    n_singular = acc.singular + sub.singular
    singular = acc.singular_at + sub.singular_at
    props = (task_properties(setup, xs, ys, plan.runs, lambda v: call_impl(setup, v))
             if setup.properties else {})
    not_cr = -1
    if setup.count_cr:
        not_cr = sub.over_half + acc.not_cr + _not_cr(setup, xs, ys, _cat(sub.doubt))
    return Tally(
        points=int(xs.size), screened=int(np.count_nonzero(screened)),
        exact=acc.exact, failures=n_fail, undecided=acc.undecided, undefined=acc.undefined,
        hist=hist, profile=profile,
        worst=_top([r for r in results if r.status != "undefined"]),
        failing=_top([r for r in results if r.status in ("fail", "undefined")], by_ulps),
        odd=sorted([r for r in results if r.status in ("undecided", "undefined")],
                   key=lambda r: r.x)[:KEEP],
        bound=bound,
        screen_top=sorted(est_top, key=lambda t: (-t[1], t[0]))[:4 * KEEP],
        pieces=plan.models, seconds=time.perf_counter() - t0, by_ulps=by_ulps,
        first=firsts, first_n=setup.first, not_cr=not_cr,
        singular=n_singular, singular_at=sorted(singular)[:KEEP], props=props)


#: tasks of the random search, whose worst points seed the adaptive rounds
_SEARCHED = ("structural", "uniform", "ordinal", "refine")
_HALF = fmpq(1, 2)


def _singular(r: PointResult) -> bool:
    """The reference is undefined at the point (decide_point's convention)."""
    return math.isnan(r.rounded) and r.ulp == 0 and r.ref_lo == r.ref_hi == 0 and \
        r.status in ("pass", "undefined")


def _not_cr(setup: Setup, xs: np.ndarray, ys: np.ndarray, doubt: np.ndarray) -> int:
    """How many of the screened points whose enclosure straddles 1/2 (``doubt``) err by
    more than half an ulp, decided exactly at limit 1/2."""
    n = 0
    for i in doubt.tolist():
        r = decide_point(setup.ref, float(xs[i]), float(ys[i]), setup.fmt, _HALF, None)
        n += r.status in ("fail", "undefined") or (r.ulps_lo is not None and
                                                   r.ulps_lo > _HALF)
    return n


class _Exact:
    """The exact decisions of a task, absorbed as they come: counts, the histogram and
    estimates, and only the results needed afterwards (anything but a pass, and the
    largest passes): a task whose every point goes to exact evaluation keeps its memory
    bounded."""

    def __init__(self, setup: Setup, xs: np.ndarray, ys: np.ndarray, screened: np.ndarray,
                 est: np.ndarray):
        self.setup, self.xs, self.ys, self.screened, self.est = setup, xs, ys, screened, est
        self.kept: dict[int, PointResult] = {}
        self.passes: list[PointResult] = []
        self.seen: set[int] = set()
        self.lo_max = 0.0
        self.bound = 0.0
        self.fails = self.exact = self.not_cr = self.singular = 0
        self.undecided = self.undefined = 0
        self.singular_at: list[tuple[float, float]] = []
        self.hist = np.zeros(len(HIST_EDGES) - 1, np.int64)
        self.edges = np.array(HIST_EDGES)

    def _bin(self, v: float) -> int:
        return int(np.clip(np.searchsorted(self.edges, v, side="left") - 1, 0,
                           self.edges.size - 2))

    def decide(self, i: int) -> PointResult:
        if i in self.kept:
            return self.kept[i]
        setup = self.setup
        r = decide_point(setup.ref, float(self.xs[i]), float(self.ys[i]), setup.fmt,
                         setup.ulps, setup.atol)
        if i in self.seen:   # a pass asked for again (rare): counted already
            return r
        self.seen.add(i)
        scr = bool(self.screened[i])
        if r.ulps_lo is not None:
            self.lo_max = max(self.lo_max, q_float(r.ulps_lo))
        if r.ulps_hi is not None:
            self.bound = max(self.bound, r.ulps_key())
        self.undecided += r.status == "undecided"
        self.undefined += r.status == "undefined"
        e = r.ulps_key() if r.status != "pass" or r.ulps_hi is not None else 0.0
        if scr:   # counted by its estimate: moved to its exact bin
            self.hist[self._bin(float(self.est[i]))] -= 1
        self.hist[self._bin(e)] += 1
        self.est[i] = e
        if not scr:
            self.exact += 1
            self.fails += r.status in ("fail", "undefined")
            if _singular(r):
                self.singular += 1
                if len(self.singular_at) < KEEP:
                    self.singular_at.append((r.x, r.y))
            elif setup.count_cr:
                self.not_cr += r.ulps_hi is None or r.ulps_lo is None or r.ulps_lo > _HALF
        if r.status != "pass":
            self.kept[i] = r
        else:
            self.passes.append(r)
            if len(self.passes) > 4 * KEEP:
                self.passes = _top(self.passes)
        return r


def bits_of(xs: np.ndarray, fmt: BinaryFormat) -> np.ndarray:
    """The bit patterns of format numbers (as int64; the order of an exhaustive run)."""
    unsigned = np.uint32 if fmt.int_dtype == np.int32 else np.uint64
    return np.ascontiguousarray(xs, dtype=fmt.dtype).view(unsigned).astype(np.int64)


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


