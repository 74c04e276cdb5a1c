"""Certified smoothness norm ``||f||_K`` (wang2013 Section 3; jin Section 2).

Definition (wang2013, display before Theorem 3.1; identical in jin and the slides)::

    ||f||_K = sup_{|k| <= K} sup_{x in [-1,1]^d} |D^k f(x)|,   D^k = d^{k_1}/dx_1^{k_1} ... ,

over *all* multi-indices ``k`` with ``|k| = k_1 + ... + k_d <= K`` (mixed partials and
``k = 0``, i.e. ``sup |f|``, included).  ``C^K_B = {f : ||f||_K <= B}``.

Method (branch and bound with multivariate Taylor jets, :mod:`.jets`)
--------------------------------------------------------------------
On a sub-box with exact centre ``m`` and radii ``rho``, for every ``|k| <= K``::

    |D^k f(m + tau)| <= |D^k f(m)| + sum_i |D^{k+e_i} f(m)| rho_i
                        + sum_{|b| = 2} |D^{k+b} f(X) / b!| rho^b

(second-order Taylor form; point jets of order ``K+1`` at ``m`` and a box jet of order
``K+2`` over the box ``X``).  ``lower`` is the largest ``|D^k f|`` certified at actual
points (box centres and corners of the initial box), ``upper`` the largest piece bound;
the piece with the largest bound is bisected along its widest side.

Guarantee
---------
``lower <= ||f||_K <= upper`` (exact rationals) whenever it returns.  Stops when
``upper <= lower (1 + rtol)``; raises :class:`~dpverify.errors.PrecisionExhausted` when
``max_pieces`` is exhausted first (never a bound it has not proven) and
:class:`~dpverify.expr.NotAnalytic` when ``f`` is not analytic on a piece (``abs`` at 0,
...), since the derivatives may not exist there.
"""

from __future__ import annotations

import heapq
import itertools
import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from flint import arb, ctx, fmpq

from ..errors import InvalidParameterError, PrecisionExhausted
from ..expr import Expr, parse
from ..expr.jets import Jet, jet_eval, multi_indices
from ..numbers import ExactLike, arb_to_fmpq_bounds, check_int, to_fmpq
from .interval import as_box

__all__ = ["smoothness_norm", "SmoothnessNorm", "MAX_K"]

MAX_K = 12
_VARS = ("x", "y", "z")

#: A box ``((a_1, b_1), ..., (a_d, b_d))`` with exact ends (as returned by ``as_box``).
_Box = tuple[tuple[fmpq, fmpq], ...]
#: A heap entry: (-upper bound, tie-break counter, piece, per-order upper bounds).
_HeapItem = tuple[fmpq, int, _Box, dict[int, fmpq]]


@dataclass
class SmoothnessNorm:
    """Enclosure of ``||f||_K``; ``argmax`` = (multi-index, point) of the lower bound."""

    lower: fmpq
    upper: fmpq
    argmax: tuple[tuple[int, ...], tuple[fmpq, ...]]
    pieces: int
    per_order: dict[int, tuple[fmpq, fmpq]] = field(default_factory=dict)

    def __iter__(self) -> Iterator[fmpq]:  # (lower, upper) unpacking
        return iter((self.lower, self.upper))


def _jet_point(f: Expr, d: int, N: int, pt: Sequence[fmpq]) -> Jet:
    return jet_eval(f, [Jet.variable(d, N, i, arb(pt[i])) for i in range(d)])


def _jet_box(f: Expr, d: int, N: int, box: _Box) -> Jet:
    balls: list[arb] = []
    for a, b in box:
        mid = (a + b) / 2
        rad = (b - a) / 2
        balls.append(arb(mid) + arb(0, arb(rad).upper()))
    return jet_eval(f, [Jet.variable(d, N, i, balls[i]) for i in range(d)])


def smoothness_norm(
    f: str | Expr,
    K: int,
    box: Sequence[Sequence[Any]] | None = None,
    rtol: ExactLike = "1e-3",
    *,
    max_pieces: int = 20_000,
    prec: int = 96,
) -> SmoothnessNorm:
    """Certified enclosure of ``||f||_K`` over ``box`` (default ``[-1,1]^d``).

    Parameters
    ----------
    f : str or Expr
        Function of ``x`` (``x, y`` / ``x, y, z``); a string is parsed with
        ``d = len(box)`` variables.
    K : int
        Order ``0 <= K <= 12``.
    box : list of (a, b), optional
        Default ``[(-1, 1)]`` (one variable); ends are anything
        :func:`~dpverify.numbers.to_fmpq` accepts.
    rtol : exact number
        Stop when ``upper <= lower (1 + rtol)``; anything
        :func:`~dpverify.numbers.to_fmpq` accepts (``int``, ``fmpq``, ``"1e-3"``, ...).

    Returns
    -------
    SmoothnessNorm
        ``lower``, ``upper`` (exact ``fmpq``), the multi-index and point where ``lower``
        was attained, per-order enclosures ``per_order[j]`` of ``max_{|k| = j} sup |D^k
        f|`` (valid enclosures, only ``max_j`` is driven to ``rtol``).  Unpacks as
        ``(lower, upper)``.

    Guarantee
    ---------
    See the module docstring (rigorous; raises instead of returning an unproven bound).
    """
    K = check_int(K, "K", minimum=0, maximum=MAX_K)
    bx = as_box(box if box is not None else [(-1, 1)])
    d = len(bx)
    if d > 3:
        raise InvalidParameterError(f"box must have at most 3 intervals, got {d}")
    fx = f if isinstance(f, Expr) else parse(f, variables=_VARS[:d], name="f")
    if len(fx.variables) != d:
        raise InvalidParameterError(f"f has {len(fx.variables)} variables but the box has {d}")
    rt = to_fmpq(rtol, "rtol")
    if not rt > 0:
        raise InvalidParameterError(f"rtol must be > 0, got {rtol}")
    max_pieces = check_int(max_pieces, "max_pieces", minimum=1)
    idx2 = multi_indices(d, K + 2)
    pos2 = {a: i for i, a in enumerate(idx2)}
    ks = [a for a in idx2 if sum(a) <= K]
    units = [tuple(1 if j == i else 0 for j in range(d)) for i in range(d)]
    seconds = [a for a in multi_indices(d, 2) if sum(a) == 2]
    fact = {a: math.prod(math.factorial(x) for x in a) for a in idx2}

    old_prec, old_cap = ctx.prec, ctx.cap
    ctx.prec, ctx.cap = prec, max(old_cap, K + 4)
    try:
        best_lower = fmpq(0)
        argmax: tuple[tuple[int, ...], tuple[fmpq, ...]] = ((0,) * d, tuple(a for a, _ in bx))
        per_lower = {j: fmpq(0) for j in range(K + 1)}

        def point_update(pt: tuple[fmpq, ...]) -> tuple[Jet, dict[tuple[int, ...], int]]:
            nonlocal best_lower, argmax
            jp = _jet_point(fx, d, K + 1, pt)
            pos1 = {a: i for i, a in enumerate(multi_indices(d, K + 1))}
            for k in ks:
                v = abs(jp.c[pos1[k]] * fact[k])
                lo = arb_to_fmpq_bounds(v)[0]
                if lo > per_lower[sum(k)]:
                    per_lower[sum(k)] = lo
                if lo > best_lower:
                    best_lower, argmax = lo, (k, tuple(pt))
            return jp, pos1

        def bound(piece: _Box) -> tuple[fmpq, dict[int, fmpq]]:
            m = tuple((a + b) / 2 for a, b in piece)
            rho = [arb((b - a) / 2) for a, b in piece]
            jp, pos1 = point_update(m)
            jb = _jet_box(fx, d, K + 2, piece)
            per: dict[int, fmpq] = {}
            for k in ks:
                s = abs(jp.c[pos1[k]]) * fact[k]
                for i, e in enumerate(units):
                    ke = tuple(x + y for x, y in zip(k, e))
                    s += abs(jp.c[pos1[ke]]) * fact[ke] * rho[i]
                for b2 in seconds:
                    kb = tuple(x + y for x, y in zip(k, b2))
                    term = abs(jb.c[pos2[kb]]) * fact[kb] / fact[b2]
                    for i in range(d):
                        term *= rho[i] ** b2[i]
                    s += term
                if not s.is_finite():
                    raise PrecisionExhausted("non-finite derivative enclosure")
                up = arb_to_fmpq_bounds(s)[1]
                j = sum(k)
                per[j] = max(per.get(j, fmpq(0)), up)
            return max(per.values()), per

        for corner in itertools.product(*bx):
            point_update(tuple(corner))
        heap: list[_HeapItem] = []
        counter = itertools.count()
        ub, per = bound(bx)
        heapq.heappush(heap, (-ub, next(counter), bx, per))
        n = 1
        while True:
            negub, _, piece, per = heap[0]
            upper = -negub
            if upper <= best_lower * (1 + rt):
                break
            if n >= max_pieces:
                raise PrecisionExhausted(
                    f"smoothness_norm: max_pieces={max_pieces} reached with enclosure "
                    f"[{float(best_lower):.6g}, {float(upper):.6g}]"
                )
            heapq.heappop(heap)
            widths = [b - a for a, b in piece]
            ax = max(range(d), key=lambda i: widths[i])
            a, b = piece[ax]
            mid = (a + b) / 2
            for half in ((a, mid), (mid, b)):
                sub = tuple(half if i == ax else piece[i] for i in range(d))
                ub, per2 = bound(sub)
                heapq.heappush(heap, (-ub, next(counter), sub, per2))
                n += 1
        per_order: dict[int, tuple[fmpq, fmpq]] = {}
        for j in range(K + 1):
            up = max(p[3].get(j, fmpq(0)) for p in heap)
            per_order[j] = (per_lower[j], up)
        return SmoothnessNorm(best_lower, upper, argmax, n, per_order)
    finally:
        ctx.prec, ctx.cap = old_prec, old_cap
