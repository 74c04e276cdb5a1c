"""The inputs :func:`dpverify.testing.check_implementation` examines, split into tasks.

A :class:`Task` is a recipe for a set of inputs -- small to ship to a Dask worker, and
deterministic: it draws from ``numpy.random.default_rng((seed, kind, index))``, so the
local and the Dask backend check the very same points.  :func:`plan` makes the default
search of a budget of ``N`` points on an interval:

* ``structural``: the domain's ends and their neighbouring floats, the implementation's
  breakpoints (the two floats around each, and their neighbours), 0 and the smallest
  subnormals when inside, the published hard cases of the reference and the floats around
  its zeros and poles (``extra``: :mod:`dpverify.testing.hardcases`), the Chebyshev
  extrema and nodes of a polynomial reference's degree, and, in *every binade* of either
  sign that meets the domain, its first and last float (and, from a budget of
  :data:`FULL_BINADES`, its middle float and two random ones): about 4300 (or 10^4)
  points for a binary64 domain around 0;
* ``uniform``: ``N/2`` points uniform in ``[lo, hi]`` (rounded to the format), in strata;
* ``ordinal``: ``N/4`` points uniform over the *representable numbers* of the domain
  (each binade equally likely: log-uniform in ``|x|``), in strata;
* the remaining ``N/4`` go to :func:`refine` (the adaptive search, run after the others).

A domain with at most ``N`` numbers of the format is checked exhaustively (``range``
tasks); ``points="all"`` asks for that whatever the size.  An integer domain takes every
integer (up to ``max(ALL_INTEGERS_MAX, N)`` of them, else ``N`` sampled ones and the ends).
Floats only *choose* the points; every decision at them is rigorous
(:mod:`dpverify.testing.screen`, :mod:`dpverify.testing.decide`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
from flint import fmpq

from ..errors import InvalidParameterError
from .formats import BinaryFormat, from_ordinal, round_nearest, to_ordinal

__all__ = ["ALL_INTEGERS_MAX", "MAX_POINTS", "DEFAULT_POINTS", "PER_POINT_DEFAULT", "CHUNK",
           "FULL_BINADES", "BLOCK", "Domain", "Task", "make_domain", "plan", "plan_bits",
           "refine", "task_points", "given_tasks", "half_width"]

#: Largest integer domain checked point by point by default (larger ones are sampled).
ALL_INTEGERS_MAX = 100_000
#: Largest budget of points (``points=N``).
MAX_POINTS = 10**10
#: The default budget of the search.
DEFAULT_POINTS = 1_000_000
#: The default budget when every point costs a Python call of an exact reference.
PER_POINT_DEFAULT = 1 << 14
#: From this budget on, five points of every binade (first, last, middle, two random);
#: below it the first and last.
FULL_BINADES = 1 << 17
#: Points per task (the unit of work of a backend).
CHUNK = 1 << 18
_KINDS = ("given", "structural", "uniform", "ordinal", "range", "refine", "integers",
          "bits")
#: inputs per task of an exhaustive run (``2^21`` bit patterns: ``2^11`` tasks for all of
#: binary32)
BLOCK = 1 << 21


@dataclass(frozen=True)
class Domain:
    """The checked domain: its exact ends, and the least / greatest number of the format
    inside (``lo``, ``hi``).  ``kind`` is ``"interval"`` or ``"integers"``."""

    kind: str
    lo_q: fmpq
    hi_q: fmpq
    lo: float
    hi: float
    fmt: BinaryFormat

    @property
    def ordinals(self) -> tuple[int, int]:
        o = to_ordinal(np.array([self.lo, self.hi]), self.fmt)
        return int(o[0]), int(o[1])

    @property
    def count(self) -> int:
        """How many numbers of the format lie in the domain (integers for an integer
        domain)."""
        if self.kind == "integers":
            return int(self.hi) - int(self.lo) + 1
        a, b = self.ordinals
        return b - a + 1


@dataclass(frozen=True)
class Task:
    """A recipe for inputs (module docstring); ``args`` depend on ``kind``."""

    kind: str
    index: int
    args: tuple[Any, ...]


def _fmt_float(q: fmpq, fmt: BinaryFormat, up: bool) -> float:
    """The least format number >= q (``up``) or the greatest <= q."""
    f = round_nearest(q, fmt)
    if math.isinf(f):
        return fmt.max_finite if f > 0 else -fmt.max_finite
    exact = fmpq(*f.as_integer_ratio())
    if up and exact < q:
        f = float(np.nextafter(fmt.dtype(f), fmt.dtype(np.inf)))
    elif not up and exact > q:
        f = float(np.nextafter(fmt.dtype(f), fmt.dtype(-np.inf)))
    return f


def make_domain(kind: str, lo: fmpq, hi: fmpq, fmt: BinaryFormat) -> Domain:
    """The :class:`Domain` of ``[lo, hi]`` (an interval or the integers in it)."""
    flo, fhi = _fmt_float(lo, fmt, True), _fmt_float(hi, fmt, False)
    if kind == "integers":
        flo, fhi = float(math.ceil(lo)), float(math.floor(hi))
        if max(abs(flo), abs(fhi)) > 2.0 ** fmt.p:
            raise InvalidParameterError(
                f"domain: integers beyond 2^{fmt.p} are not all {fmt.name} numbers")
    if not flo <= fhi:
        raise InvalidParameterError(
            f"domain [{lo}, {hi}] contains no {fmt.name} number")
    return Domain(kind, lo, hi, flo, fhi, fmt)


def _rng(seed: int, kind: str, index: int) -> np.random.Generator:
    # test inputs, public; not privacy noise
    return np.random.default_rng((seed, _KINDS.index(kind), index))


def _to_format(xs: np.ndarray, dom: Domain) -> np.ndarray:
    xs = np.asarray(xs, dtype=np.float64)
    if dom.fmt.dtype == np.float32:
        with np.errstate(over="ignore"):
            xs = xs.astype(np.float32).astype(np.float64)
    xs = xs[np.isfinite(xs)]
    return np.clip(xs, dom.lo, dom.hi)


def _binade_points(dom: Domain, rng: np.random.Generator, full: bool) -> list[np.ndarray]:
    fmt = dom.fmt
    olo, ohi = dom.ordinals
    es = np.arange(fmt.emin - fmt.p + 1, fmt.emax + 1)
    first = to_ordinal(np.ldexp(1.0, es), fmt)
    # the binade of 2^e ends one float before 2^(e+1); the top one at the largest number
    last = np.append(first[1:] - 1, to_ordinal(np.array([fmt.max_finite]), fmt))
    out = []
    for a, b in ((first, last), (-last, -first)):
        a, b = np.maximum(a, olo), np.minimum(b, ohi)
        keep = a <= b
        a, b = a[keep], b[keep]
        if a.size:
            out += [a, b] + ([(a + b) // 2, rng.integers(a, b + 1), rng.integers(a, b + 1)]
                             if full else [])
    return [from_ordinal(o, fmt) for o in out]


def _structural(dom: Domain, args: tuple[Any, ...], seed: int) -> np.ndarray:
    breakpoints, degree, full, extra = args
    fmt, rng = dom.fmt, _rng(seed, "structural", 0)
    olo, ohi = dom.ordinals
    near = np.arange(-4, 5)
    ords = [olo + np.arange(5), ohi - np.arange(5)]
    for bp in breakpoints:
        for up in (False, True):
            f = _fmt_float(bp, fmt, up)
            ords.append(to_ordinal(np.array([f]), fmt)[0] + near)
    if olo <= 0 <= ohi:
        ords.append(np.arange(-2, 3))
    pts = [from_ordinal(np.clip(np.concatenate(ords), olo, ohi), fmt)]
    pts += _binade_points(dom, rng, full)
    if extra is not None:
        pts.append(np.asarray(extra, dtype=np.float64))
    if degree is not None and 0 < degree <= 100_000:
        j = np.arange(degree + 1)
        mid, rad = dom.lo / 2 + dom.hi / 2, dom.hi / 2 - dom.lo / 2   # no overflow
        pts += [mid + rad * np.cos(np.pi * j / max(degree, 1)),
                mid + rad * np.cos(np.pi * (2 * j + 1) / (2 * degree + 2))]
    return _to_format(np.concatenate(pts), dom)


def task_points(task: Task, dom: Domain, seed: int) -> np.ndarray:
    """The sorted distinct inputs of ``task`` (numbers of the format, as float64)."""
    kind, a = task.kind, task.args
    fmt = dom.fmt
    if kind == "given":
        xs = np.asarray(a[0], dtype=np.float64)
    elif kind == "integers":
        lo, hi, n = a
        if n is None:
            xs = np.arange(lo, hi + 1, dtype=np.float64)
        else:
            rng = _rng(seed, kind, task.index)
            xs = np.concatenate([[lo, hi], rng.integers(lo, hi + 1, size=n)]).astype(float)
    elif kind == "structural":
        xs = _structural(dom, a, seed)
    elif kind == "uniform":
        lo, hi, n = a
        xs = _to_format(_uniform(_rng(seed, kind, task.index), lo, hi, n), dom)
    elif kind == "ordinal":
        lo, hi, n = a
        xs = from_ordinal(_rng(seed, kind, task.index).integers(lo, hi + 1, size=n), fmt)
    elif kind == "range":
        lo, hi = a
        xs = from_ordinal(np.arange(lo, hi + 1, dtype=np.int64), fmt)
    elif kind == "bits":   # bit patterns lo..hi of non-negative numbers, negated if asked
        lo, hi, negative = a
        xs = np.arange(lo, hi + 1, dtype=np.int64).astype(fmt.int_dtype).view(
            fmt.dtype).astype(np.float64)
        return -xs[::-1] if negative else xs
    elif kind == "refine":
        centre, half, n, neighbours = a
        rng = _rng(seed, kind, task.index)
        levels = 6
        parts = []
        for k in range(levels):   # windows of half-width h, h/4, ..., h/4^5
            w = half / 4.0 ** k
            parts.append(_uniform(rng, max(centre - w, dom.lo), min(centre + w, dom.hi),
                                  max(n // levels, 1)))
        if neighbours:   # the centre's neighbours once (the centre itself was checked)
            o = to_ordinal(np.array([centre]), fmt)[0] + np.r_[-16:0, 1:17]
            parts.append(from_ordinal(np.clip(o, *dom.ordinals), fmt))
        xs = _to_format(np.concatenate(parts), dom)
    else:  # pragma: no cover - tasks are made by this module
        raise ValueError(kind)
    xs = np.unique(xs)
    return xs + 0.0  # -0.0 -> 0.0: one zero


def half_width(dom: Domain) -> float:
    """``(hi - lo) / 2`` of the domain, finite even when ``hi - lo`` overflows."""
    return dom.hi / 2 - dom.lo / 2


def _uniform(rng: np.random.Generator, lo: float, hi: float, n: int) -> np.ndarray:
    """``n`` uniform draws from ``[lo, hi]``; ``lo (1 - u) + hi u`` where ``hi - lo``
    overflows (a domain wider than the largest float), numpy's own draw otherwise (the
    same inputs as before for every other domain)."""
    if math.isfinite(hi - lo):
        return rng.uniform(lo, hi, size=n)
    u = rng.random(n)
    return lo * (1 - u) + hi * u


def given_tasks(xs: np.ndarray) -> list[Task]:
    """Tasks for explicit points (sorted into chunks)."""
    xs = np.unique(np.asarray(xs, dtype=np.float64))
    return [Task("given", i, (xs[s:s + CHUNK],)) for i, s in enumerate(range(0, xs.size,
                                                                             CHUNK))]


def _strata(kind: str, lo: Any, hi: Any, n: int, start: int = 0) -> list[Task]:
    k = max(1, math.ceil(n / CHUNK))
    if kind == "ordinal":
        edges = [lo + (hi - lo) * i // k for i in range(k + 1)]
        bounds = [(edges[i] + (i > 0), edges[i + 1]) for i in range(k)]
    else:
        edges = [lo * (1 - i / k) + hi * (i / k) for i in range(k + 1)] if not \
            math.isfinite(hi - lo) else np.linspace(lo, hi, k + 1).tolist()
        bounds = list(zip(edges[:-1], edges[1:]))
    counts = [n // k + (i < n % k) for i in range(k)]
    return [Task(kind, start + i, (a, b, c)) for i, ((a, b), c) in enumerate(zip(bounds, counts))
            if c > 0]


def plan_bits(dom: Domain, block: int | None = None) -> list[Task]:
    """Every number of the format in the interval ``dom``, in bit-pattern order: the
    non-negative ones from ``+0`` up, then the negative ones from the least in magnitude
    (``-0`` is skipped: the same input as ``+0`` for the value; its sign is a property);
    tasks of ``block`` consecutive patterns."""
    if dom.kind != "interval":
        raise InvalidParameterError("exhaustive checks need an interval domain")
    block = BLOCK if block is None else block
    tasks: list[Task] = []
    one = np.array([0.0, 0.0], dtype=dom.fmt.dtype)

    def pattern(v: float) -> int:
        one[0] = v
        return int(one[:1].view(dom.fmt.int_dtype)[0])

    parts = []
    if dom.hi >= 0:
        parts.append((pattern(max(dom.lo, 0.0)), pattern(dom.hi), False))
    if dom.lo < 0:
        smallest = math.ldexp(1.0, dom.fmt.emin - dom.fmt.p + 1)
        parts.append((pattern(max(-dom.hi, smallest)), pattern(-dom.lo), True))
    for lo, hi, negative in parts:
        if lo > hi:
            continue
        for a in range(lo, hi + 1, block):
            tasks.append(Task("bits", len(tasks), (a, min(a + block - 1, hi), negative)))
    return tasks


def plan(dom: Domain, budget: int | str, breakpoints: list[fmpq], degree: int | None,
         extra: np.ndarray | None = None) -> tuple[list[Task], int]:
    """The tasks of the first pass and the budget left for :func:`refine`
    (module docstring)."""
    if dom.kind == "integers":
        lo, hi = int(dom.lo), int(dom.hi)
        n = dom.count
        limit = max(ALL_INTEGERS_MAX, budget if isinstance(budget, int) else n)
        if n <= limit or budget == "all":
            return [Task("integers", i, (a, min(a + CHUNK - 1, hi), None))
                    for i, a in enumerate(range(lo, hi + 1, CHUNK))], 0
        return [Task("integers", 0, (lo, hi, int(budget)))], 0
    olo, ohi = dom.ordinals
    if budget == "all" or dom.count <= int(budget):
        return [Task("range", i, (a, min(a + CHUNK - 1, ohi)))
                for i, a in enumerate(range(olo, ohi + 1, CHUNK))], 0
    n = int(budget)
    # five points per binade with a large budget, its two ends with a small one
    tasks = [Task("structural", 0, (tuple(breakpoints), degree, n >= FULL_BINADES,
                                    None if extra is None else tuple(extra.tolist())))]
    tasks += _strata("uniform", dom.lo, dom.hi, n // 2)
    tasks += _strata("ordinal", olo, ohi, n // 4)
    return tasks, n - n // 2 - n // 4


def refine(dom: Domain, worst: list[tuple[float, float]], budget: int, rounds: int,
           round_index: int, spacing: float) -> list[Task]:
    """One round of the adaptive search: ``budget / rounds`` points around the worst
    points found so far (``(x, estimated error)``, worst first; up to 16 distinct
    regions), each in six nested windows of half-widths ``8 spacing / 4^(round + k)``,
    ``k = 0..5``, and (first round) its 16 neighbouring floats on each side; tasks of at
    most :data:`CHUNK` points.  A narrow bump is found from its shoulders, where the error
    already stands above its surroundings: the next round starts from the worst point of
    the nested windows."""
    if not worst or budget <= 0:
        return []
    centres: list[float] = []
    width = half_width(dom) * 2
    for x, _ in worst:   # distinct regions: at least two windows apart
        if all(abs(x - c) > 4 * spacing for c in centres):
            centres.append(x)
        if len(centres) == 16:
            break
    per = max(budget // (rounds * len(centres)), 64)
    half = min(spacing * 8.0 / 4.0 ** round_index, width)
    tasks = []
    for i, c in enumerate(centres):   # tasks of at most CHUNK points
        k = max(1, math.ceil(per / CHUNK))
        for j in range(k):
            index = (round_index * 16 + i) * 1024 + j
            tasks.append(Task("refine", index, (c, half, per // k,
                                                round_index == 0 and j == 0)))
    return tasks
