"""Adversarial input sets for :func:`dpverify.testing.check_implementation`.

On an integer domain: every integer (sampled beyond :data:`ALL_INTEGERS_MAX`).  On an
interval: the endpoints, the Chebyshev extrema and nodes of the degree, seeded uniform
points, the points of largest error found by a float search, and the neighbouring floats
of all of these, each moved inside the interval.  Floats only *choose* the points; every
comparison at them is exact (:mod:`dpverify.testing.check`).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from flint import fmpq

from ..numbers import to_fmpq

__all__ = ["ALL_INTEGERS_MAX", "MAX_POINTS", "adversarial_points", "error_search", "inside"]

#: Largest integer domain checked point by point (larger ones are sampled).
ALL_INTEGERS_MAX = 100_000
#: Largest number of points a check evaluates exactly.
MAX_POINTS = 1_000_000


def inside(x: float, lo: fmpq, hi: fmpq) -> float | None:
    """``x`` moved inside [lo, hi] by at most a few ulps, or None if it cannot be."""
    for _ in range(4):
        q = to_fmpq(x, "x")
        if q < lo:
            x = float(np.nextafter(x, np.inf))
        elif q > hi:
            x = float(np.nextafter(x, -np.inf))
        else:
            return x
    return None


def error_search(error_at: Any, flo: float, fhi: float, top: int = 8) -> list[float]:
    """A float search (it only chooses points): the ``top`` maxima of the error in ulps and
    of the absolute error on a 2049-point grid, each refined on a 65-point grid spanning
    its two neighbouring cells."""
    dense = np.linspace(flo, fhi, 2049)
    h = dense[1] - dense[0]
    found: list[float] = []
    for measure in (0, 1):  # 0: ulps, 1: absolute
        err = error_at(dense)[measure]
        for x0 in dense[np.argsort(err, kind="stable")[-top:]]:
            fine = np.clip(np.linspace(x0 - h, x0 + h, 65), flo, fhi)
            fe = error_at(fine)[measure]
            found += [float(x0), float(fine[int(np.argmax(fe))])]
    return found


def adversarial_points(kind: str, lo: fmpq, hi: fmpq, degree: int, error_at: Any, n_random: int,
            seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)  # test inputs, public; not privacy noise
    if kind == "integers":
        a, b = int(lo), int(hi)
        if b - a + 1 <= ALL_INTEGERS_MAX:
            return np.arange(a, b + 1, dtype=np.float64)
        xs = {a, b, *rng.integers(a, b + 1, size=n_random * 10).tolist()}
        return np.array(sorted(xs), dtype=np.float64)
    flo, fhi = float(lo), float(hi)
    cands: list[float] = [flo, fhi]
    n = max(degree, 1)
    j = np.arange(n + 1)
    mid, rad = (flo + fhi) / 2, (fhi - flo) / 2
    cands += (mid + rad * np.cos(np.pi * j / n)).tolist()                      # extrema
    cands += (mid + rad * np.cos(np.pi * (2 * j + 1) / (2 * n + 2))).tolist()  # nodes
    cands += rng.uniform(flo, fhi, size=n_random).tolist()
    if error_at is not None and fhi > flo:
        cands += error_search(error_at, flo, fhi)
    base = np.array(cands, dtype=np.float64)
    near = [base, np.nextafter(base, np.inf), np.nextafter(base, -np.inf)]
    out = []
    for x in np.unique(np.concatenate(near)):
        y = inside(float(x), lo, hi)
        if y is not None:
            out.append(y)
    return np.unique(np.array(out, dtype=np.float64))

