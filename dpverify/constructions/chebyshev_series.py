"""Rigorous Chebyshev coefficients of a user function on ``[-1,1]^d`` (d <= 3).

Convention: ``f(x) = sum_n c_n T_{n_1}(x_1) ... T_{n_d}(x_d)`` (no halving of ``c_0``),
i.e. with ``g(theta) = f(cos theta_1, ..., cos theta_d)``,
``c_n = prod_i (eps_{n_i}/pi) int_{[0,pi]^d} g(theta) prod_i cos(n_i theta_i) d theta``,
``eps_0 = 1``, ``eps_n = 2`` (n >= 1).  These are the cosine coefficients of ``g_f`` used
by wang2013 (Fact 4.2: its integral (5) with ``l_i/k_i = n_i`` equals
``c_n prod_i (2 pi / eps_{n_i})``), since ``cos(n theta) = T_n(cos theta)``.

Method
------
1. *Discrete coefficients* (DCT-I on the Chebyshev-Lobatto grid ``theta_j = j pi / M``,
   ``j = 0..M`` per axis), in arb ball arithmetic::

       chat_n = sum_j [prod_i (2/M) e_{j_i} cos(n_i theta_{j_i}) / (1 + [n_i = 0])] g(theta_j)

   with ``e_j = 1/2`` at ``j = 0, M`` and 1 otherwise.  Since ``T_m`` and ``T_{m'}`` agree
   on the grid when ``m' = |m mod 2M|`` folded into ``[0, M]``, ``chat_n`` is the sum of
   all ``c_m`` with ``fold(m) = n`` (aliasing; Trefethen, *ATAP*, Thm 4.2).
2. *Aliasing bound.*  Every alias ``m != n`` differs from ``n`` on a non-empty set ``S``
   of axes, where ``m_i >= L_i = 2M - n_i``.  Integrating by parts ``q`` times in each
   axis of ``S`` (``g`` is even and 2 pi-periodic, no boundary terms) gives
   ``|c_m| <= 2^d D_S prod_{i in S} m_i^{-q}``, ``D_S = sup |d^{q 1_S} g|``, and summing
   over the aliases (``2kM +- n_i >= k L_i``)::

       |chat_n - c_n| <= sum_{S != {}} 2^d D_S prod_{i in S} 2 zeta(q) L_i^{-q}.

   ``D_S`` is enclosed over a cover of ``[0,pi]^d`` by boxes with arb Taylor arithmetic
   (``arb_series`` for d = 1, the multivariate jets of :mod:`dpverify.certify.jets` for
   d >= 2); ``zeta(q) <= 1 + 1/(q-1)``.

Guarantee
---------
Each returned ball contains the true coefficient ``c_n`` (rigorous).  When ``f`` is not
analytic on the cover (``abs``, ``sqrt`` at 0, ...) no derivative bound is available:
the balls then have infinite radius (``info()["rigorous_radius"] is False``) and only
their midpoints are meaningful (heuristic).  Never a finite radius that is not proven.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from flint import arb, arb_mat, arb_series, ctx

from ..errors import DomainError, InvalidParameterError
from ..numbers import check_int

__all__ = ["ChebyshevSeries", "chebyshev_coefficients", "MAX_GRID_POINTS"]

#: refuse grids with more points than this ((M+1)^d function evaluations)
MAX_GRID_POINTS = 400_000
_VARS = ("x", "y", "z")
#: default (q, boxes per axis) for the derivative bound, per dimension
_Q = {1: (24, 16), 2: (6, 4), 3: (2, 3)}


@dataclass
class ChebyshevSeries:
    """Ball enclosures of ``c_n``, ``0 <= n_i <= n``, flat in row-major order
    (first index = first variable)."""

    dim: int
    n: int
    coeffs: list[arb]
    grid: int
    q: int
    alias_bound: arb
    stats: dict[str, Any] = field(default_factory=dict)

    @property
    def shape(self) -> tuple[int, ...]:
        return (self.n + 1,) * self.dim

    def items(self) -> Iterator[tuple[tuple[int, ...], arb]]:
        idx = itertools.product(range(self.n + 1), repeat=self.dim)
        return iter(zip(idx, self.coeffs, strict=True))

    def __getitem__(self, index: tuple[int, ...] | int) -> arb:
        if isinstance(index, int):
            index = (index,)
        pos = 0
        for i in index:
            pos = pos * (self.n + 1) + i
        return self.coeffs[pos]

    def info(self) -> dict[str, Any]:
        rig = self.alias_bound.is_finite()
        return {
            "method": "DCT-I on the Chebyshev-Lobatto grid + aliasing bound from "
            "q-th derivative enclosures",
            "grid": self.grid,
            "q": self.q,
            "alias_bound": str(self.alias_bound) if rig else "inf",
            "rigorous_radius": bool(rig),
            **self.stats,
        }


def _mode_product(flat: list[arb], shape: list[int], W: arb_mat, axis: int) -> list[arb]:
    """Contract ``axis`` of the tensor (row-major ``flat``) with ``W`` (rows x shape[axis])."""
    d = len(shape)
    perm = [axis] + [i for i in range(d) if i != axis]
    pshape = [shape[i] for i in perm]
    rest = math.prod(pshape[1:])
    strides = [math.prod(shape[i + 1 :]) for i in range(d)]
    mat = arb_mat(pshape[0], rest)
    for pidx in itertools.product(*[range(s) for s in pshape]):
        pos = sum(pidx[k] * strides[perm[k]] for k in range(d))
        col = 0
        for k in range(1, d):
            col = col * pshape[k] + pidx[k]
        mat[pidx[0], col] = flat[pos]
    prod = W * mat
    nrow = W.nrows()
    new_shape = list(shape)
    new_shape[axis] = nrow
    out = [arb(0)] * math.prod(new_shape)
    nstrides = [math.prod(new_shape[i + 1 :]) for i in range(d)]
    pshape[0] = nrow
    for pidx in itertools.product(*[range(s) for s in pshape]):
        pos = sum(pidx[k] * nstrides[perm[k]] for k in range(d))
        col = 0
        for k in range(1, d):
            col = col * pshape[k] + pidx[k]
        out[pos] = prod[pidx[0], col]
    return out


def _derivative_bounds(f: Any, d: int, q: int, boxes: int) -> dict[tuple[int, ...], arb]:
    """Upper bounds ``D_S`` of ``sup |d^{q 1_S} g|`` over ``[0, pi]^d`` for every non-empty S
    (keys: 0/1 indicator tuples).  Raises ``DomainError`` where f is not analytic."""
    pi = arb.pi()
    h = pi / boxes
    centres = [(k + arb(1) / 2) * h for k in range(boxes)]
    balls = [arb(c.mid(), (h / 2).upper() * (1 + arb(2) ** -20)) for c in centres]
    # balls cover [0, pi] (each reaches slightly beyond its piece; g is defined everywhere)
    sets = [s for s in itertools.product((0, 1), repeat=d) if any(s)]
    best = {s: arb(0) for s in sets}
    qfact = arb(math.factorial(q))
    if d == 1:
        for b in balls:
            ser = f.eval_arb(arb_series([b, 1], prec=q + 1).cos())
            if ser.prec <= q:
                raise DomainError("power series truncated below the derivative order")
            cs = ser.coeffs()
            c = cs[q] if len(cs) > q else arb(0)  # trailing zero coefficients are dropped
            if not c.is_finite():
                raise DomainError("derivative enclosure is not finite")
            best[(1,)] = max(best[(1,)], abs(c).upper() * qfact)
        return best
    from ..certify.jets import Jet, jet_eval, multi_indices

    N = q * d
    idx = multi_indices(d, N)
    pos = {a: i for i, a in enumerate(idx)}
    for combo in itertools.product(balls, repeat=d):
        jets = [Jet.variable(d, N, i, combo[i]).compose(lambda s: s.cos()) for i in range(d)]
        val = jet_eval(f, jets)
        for s in sets:
            a = tuple(q * si for si in s)
            c = val.c[pos[a]]
            if not c.is_finite():
                raise DomainError("derivative enclosure is not finite")
            best[s] = max(best[s], abs(c).upper() * qfact ** sum(s))
    return best


def chebyshev_coefficients(
    f: Any,
    n: Any,
    dim: Any = 1,
    *,
    grid: Any = None,
    q: Any = None,
    prec: int = 128,
    name: str = "f",
) -> ChebyshevSeries:
    """Rigorous balls for the Chebyshev coefficients ``c_m``, ``0 <= m_i <= n``, of ``f``.

    Parameters
    ----------
    f : str or Expr
        Function of ``x`` (``x, y`` / ``x, y, z`` for dim 2 / 3).
    n : int
        Largest index per axis.
    dim : int
        1, 2 or 3.
    grid : int, optional
        ``M`` (grid ``theta_j = j pi / M``), ``M > n``; default ``max(4n, 64)`` (d = 1),
        ``max(2n, 32)`` (d = 2), ``max(2n, 16)`` (d = 3).
    q : int, optional
        Derivative order of the aliasing bound (default 24 / 6 / 2 for d = 1 / 2 / 3).
    prec : int
        Working precision in bits.

    Guarantee
    ---------
    See the module docstring: every ball contains the true ``c_m`` (infinite radius
    when no derivative bound could be proven).
    """
    from ..expr import Expr, parse

    d = check_int(dim, "dim", minimum=1, maximum=3)
    n = check_int(n, "n", minimum=0, maximum=4096)
    if isinstance(f, Expr):
        fx = f
        if len(fx.variables) != d:
            raise InvalidParameterError(
                f"{name} has {len(fx.variables)} variables but dim is {d}"
            )
    else:
        fx = parse(f, variables=_VARS[:d], name=name)
    default_M = {1: max(4 * n, 64), 2: max(2 * n, 32), 3: max(2 * n, 16)}[d]
    M = default_M if grid is None else check_int(grid, "grid", minimum=n + 1)
    if (M + 1) ** d > MAX_GRID_POINTS:
        raise InvalidParameterError(
            f"grid must satisfy (grid+1)^dim <= {MAX_GRID_POINTS}, got grid={M}, dim={d}"
        )
    qq, boxes = _Q[d]
    if q is not None:
        qq = check_int(q, "q", minimum=2, maximum=40)
    old, old_cap = ctx.prec, ctx.cap
    ctx.prec = max(int(prec), 53)
    # python-flint truncates power series at ctx.cap (default 10) silently: raise it
    ctx.cap = max(old_cap, qq * d + 2)
    try:
        pi = arb.pi()
        xs = [(pi * j / M).cos() for j in range(M + 1)]
        # weights W[m][j] = (2/M) e_j cos(m j pi / M) / (1 + [m = 0])
        W = arb_mat(n + 1, M + 1)
        for m in range(n + 1):
            for j in range(M + 1):
                v = (pi * ((m * j) % (2 * M)) / M).cos() * 2 / M
                if j in (0, M):
                    v /= 2
                if m == 0:
                    v /= 2
                W[m, j] = v
        vals = []
        for pt in itertools.product(xs, repeat=d):
            v = fx.eval_arb(*pt)
            if not v.is_finite():
                raise DomainError(f"{name} is not finite at a grid point of [-1,1]^{d}")
            vals.append(v)
        flat = vals
        shape = [M + 1] * d
        for axis in range(d):
            flat = _mode_product(flat, shape, W, axis)
            shape[axis] = n + 1
        # aliasing bound
        try:
            D = _derivative_bounds(fx, d, qq, boxes)
            zeta = 2 * (1 + arb(1) / (qq - 1))
            L = arb(2 * M - n)  # worst case over n_i <= n
            total = arb(0)
            for s, Ds in D.items():
                total += 2**d * Ds * (zeta / L**qq) ** sum(s)
            bound = total.upper()
        except DomainError:  # includes NotAnalytic
            bound = arb("inf")
        if bound.is_finite():
            coeffs = [c + arb(0, bound) for c in flat]
        else:
            coeffs = [arb(c.mid(), "inf") for c in flat]
    finally:
        ctx.prec, ctx.cap = old, old_cap
    return ChebyshevSeries(
        dim=d, n=n, coeffs=coeffs, grid=M, q=qq, alias_bound=bound,
        stats={"grid_points": (M + 1) ** d},
    )
