"""Float search for points where ``|f - p|`` is large on a box (d >= 2).

The branch and bound of :mod:`.interval` stops when every piece bound is below
``lower * (1 + rtol)``; ``lower`` is the largest ``|f - p|`` *certified at a point*.  With
only piece centres as points, ``lower`` trails the true supremum by ``O(width^2)`` and the
search bisects on until the centres catch up.  This module proposes better points: the
largest values of ``|f - p|`` on a float grid, each polished by a few projected Newton
steps on central differences.  It decides nothing -- floats may search, never decide: the
caller evaluates ``|f - p|`` at the proposed (exact, dyadic) points in ball arithmetic and
keeps a point only through that certified value.

Guarantee
---------
None about the values (IEEE doubles); every returned point is an exact dyadic rational
inside the closed box.  Returns nothing when ``f`` or ``p`` cannot be evaluated in floats
(overflow, a basis without a float evaluator here).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from typing import Any

import numpy as np
from flint import fmpq

from ..expr import Expr

__all__ = ["FloatError", "WitnessSearch", "float_error", "grid_candidates", "polish",
           "to_dyadic"]

#: the float grid has at most this many points in all
GRID_POINTS = 20_000
#: projected Newton steps per polished point
NEWTON_STEPS = 12
#: WitnessSearch: grid points polished at the start; polishes from later centres
GRID_STARTS, POLISH_BUDGET = 4, 16



def _basis_values(basis: str, n: int, u: np.ndarray) -> np.ndarray:
    """``(k, n)`` values of the first ``n`` basis functions at the reference points ``u``
    (``[-1, 1]`` for Chebyshev, ``[0, 1]`` for Bernstein, the variable itself otherwise)."""
    k = u.shape[0]
    out = np.empty((k, n))
    if basis == "chebyshev":
        out[:, 0] = 1.0
        if n > 1:
            out[:, 1] = u
        for j in range(2, n):
            out[:, j] = 2 * u * out[:, j - 1] - out[:, j - 2]
    elif basis == "bernstein":
        deg = n - 1
        for j in range(n):
            out[:, j] = math.comb(deg, j) * u**j * (1 - u) ** (deg - j)
    else:
        out[:, 0] = 1.0
        for j in range(1, n):
            out[:, j] = out[:, j - 1] * u
    return out


class FloatError:
    """A float64 evaluator of ``f - p`` (see :func:`float_error`): ``err(X)`` at a
    ``(k, d)`` array of points, ``err.grid(axes)`` on the tensor grid of the 1-D arrays
    ``axes`` (shape ``(len(axes[0]), ...)``)."""

    def __init__(self, f: Expr, C: np.ndarray, basis: str,
                 doms: list[tuple[float, float] | None]) -> None:
        self.fn = f.to_numpy()
        self.C, self.basis, self.doms = C, basis, doms
        self.shape = C.shape
        self.d = C.ndim

    def _basis(self, i: int, u: np.ndarray) -> np.ndarray:
        dom = self.doms[i]
        if dom is not None:
            a, b = dom
            u = (2 * u - a - b) / (b - a) if self.basis == "chebyshev" else (u - a) / (b - a)
        return _basis_values(self.basis, self.shape[i], u)

    def __call__(self, X: np.ndarray) -> np.ndarray:
        d, shape = self.d, self.shape
        k = X.shape[0]
        with np.errstate(all="ignore"):
            # contract the last axis first: partial sums over (n_0 .. n_(d-2)) per point
            acc = self.C.reshape(-1, shape[-1]) @ self._basis(d - 1, X[:, d - 1]).T
            for i in range(d - 2, -1, -1):
                acc = np.einsum("rak,ka->rk", acc.reshape(-1, shape[i], k),
                                self._basis(i, X[:, i]))
            fv = self.fn(*[X[:, i] for i in range(d)])
            return np.asarray(fv - acc.reshape(k), dtype=np.float64)

    def grid(self, axes: Sequence[np.ndarray]) -> np.ndarray:
        with np.errstate(all="ignore"):
            acc = self.C
            for i, u in enumerate(axes):  # contract axis 0 each time, new axis at the end
                acc = np.tensordot(acc, self._basis(i, np.asarray(u)), axes=([0], [1]))
            fv = self.fn(*np.meshgrid(*axes, indexing="ij"))
            return np.asarray(fv - acc, dtype=np.float64)


def float_error(f: Expr, poly: Any) -> FloatError | None:
    """A float64 evaluator of ``f - p``, or ``None`` when ``p`` is not a tensor polynomial
    in a basis handled here or its coefficients overflow."""
    shape = getattr(poly, "shape", None)
    basis = getattr(poly, "basis", None)
    if not isinstance(shape, tuple) or basis not in ("chebyshev", "monomial", "bernstein"):
        return None
    try:
        C = np.array([float(c) for c in poly.coeffs]).reshape(shape)
    except OverflowError:
        return None
    if not np.all(np.isfinite(C)):
        return None
    doms: list[tuple[float, float] | None] = [
        None if dom is None else (float(dom[0]), float(dom[1])) for dom in poly.domains]
    return FloatError(f, C, str(basis), doms)


def grid_candidates(err: FloatError, box: Sequence[tuple[float, float]], count: int,
                    per_axis: int) -> list[np.ndarray]:
    """Up to ``count`` grid points (``per_axis`` per axis, capped by :data:`GRID_POINTS`,
    ends included) with the largest finite ``|err|``, best first, at least three grid steps
    apart along some axis (separate peaks rather than neighbours of one)."""
    d = len(box)
    n = max(2, min(per_axis, int(GRID_POINTS ** (1.0 / d))))
    axes = [np.linspace(a, b, n) for a, b in box]
    v = np.abs(err.grid(axes)).ravel()
    v[~np.isfinite(v)] = -1.0
    kept: list[np.ndarray] = []
    for i in np.argsort(-v)[:64 * count]:
        if v[i] < 0 or len(kept) >= count:
            break
        idx = np.array(np.unravel_index(i, (n,) * d))
        if all(np.max(np.abs(idx - k)) >= 3 for k in kept):
            kept.append(idx)
    return [np.array([axes[j][k[j]] for j in range(d)]) for k in kept]


def _stencil_index(o: Sequence[int]) -> int:
    """Position of the offset ``o`` in ``{-1, 0, 1}^d`` (row-major, as built by polish)."""
    k = 0
    for v in o:
        k = 3 * k + v + 1
    return k


def _derivatives(vals: np.ndarray, dx: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Gradient and Hessian by central differences from the values on the ``3^d`` stencil
    with steps ``dx``."""
    d = len(dx)
    g = np.zeros(d)
    H = np.zeros((d, d))
    zero = [0] * d

    def at(changes: dict[int, int]) -> float:
        o = list(zero)
        for i, v in changes.items():
            o[i] = v
        return float(vals[_stencil_index(o)])

    for i in range(d):
        g[i] = (at({i: 1}) - at({i: -1})) / (2 * dx[i])
        H[i, i] = (at({i: 1}) - 2 * at({}) + at({i: -1})) / dx[i] ** 2
        for j in range(i + 1, d):
            H[i, j] = H[j, i] = (at({i: 1, j: 1}) - at({i: 1, j: -1}) - at({i: -1, j: 1})
                                 + at({i: -1, j: -1})) / (4 * dx[i] * dx[j])
    return g, H


def polish(err: FloatError, x0: np.ndarray, box: Sequence[tuple[float, float]]) -> np.ndarray:
    """A few projected Newton steps towards a local maximum of ``|err|`` from ``x0``
    (central differences on a ``3^d`` stencil; a short gradient step where the Hessian is
    not negative definite; every step is clipped to the box and kept only if it
    increases ``|err|``)."""
    d = len(box)
    lo = np.array([a for a, _ in box], dtype=np.float64)
    hi = np.array([b for _, b in box], dtype=np.float64)
    width = hi - lo
    offsets = np.array(list(itertools.product((-1.0, 0.0, 1.0), repeat=d)))
    x = np.clip(np.asarray(x0, dtype=np.float64), lo, hi)
    best = abs(float(err(x[None, :])[0]))
    if not math.isfinite(best):
        return x
    for _ in range(NEWTON_STEPS):
        h = width * 1e-4
        # keep the stencil inside the box: centre it at least h from the faces
        c = np.clip(x, lo + h, hi - h)
        vals = err(c + offsets * h)
        if not np.all(np.isfinite(vals)):
            break
        sign = 1.0 if vals[_stencil_index([0] * d)] >= 0 else -1.0
        g, H = _derivatives(sign * vals, h)
        try:
            if np.all(np.linalg.eigvalsh(H) < 0):
                step = np.linalg.solve(H, -g)
            else:
                step = width * 0.01 * g / (np.linalg.norm(g) + 1e-300)
        except np.linalg.LinAlgError:
            break
        xn = np.clip(c + step, lo, hi)
        vn = abs(float(err(xn[None, :])[0]))
        if not vn > best:
            break
        x, best = xn, vn
    return x


def to_dyadic(x: np.ndarray, box: Sequence[tuple[fmpq, fmpq]], bits: int = 40) -> tuple[fmpq, ...]:
    """The point ``x`` rounded to multiples of ``2^-bits`` and clamped into the exact box."""
    out = []
    for xi, (a, b) in zip(x, box):
        q = fmpq(round(float(xi) * 2**bits), 2**bits)
        out.append(min(max(q, a), b))
    return tuple(out)


class WitnessSearch:
    """The proposals of one box search: :meth:`start` (the best points of a grid of
    ``per_axis`` points per axis, polished) and :meth:`near` (a point polished from a
    given one, at most :data:`POLISH_BUDGET` times).  Proposes nothing when ``f - p`` has
    no float evaluator here."""

    def __init__(self, f: Expr, poly: Any, box: Sequence[tuple[fmpq, fmpq]],
                 per_axis: int) -> None:
        self.err = float_error(f, poly)
        self.box = list(box)
        self.fbox = [(float(a), float(b)) for a, b in box]
        self.per_axis = per_axis
        self.budget = POLISH_BUDGET

    def start(self) -> list[tuple[fmpq, ...]]:
        if self.err is None:
            return []
        starts = grid_candidates(self.err, self.fbox, GRID_STARTS, self.per_axis)
        return [to_dyadic(polish(self.err, x, self.fbox), self.box) for x in starts]

    def near(self, point: Sequence[fmpq]) -> list[tuple[fmpq, ...]]:
        if self.err is None or self.budget <= 0:
            return []
        self.budget -= 1
        x = polish(self.err, np.array([float(v) for v in point]), self.fbox)
        return [to_dyadic(x, self.box)]
