"""Certified bounds of ``|f - p|`` on one piece of the box sup-norm branch and bound.

The search itself (the priority queue, the stopping rule, the evidence) is
:mod:`dpverify.certify.interval`; this module bounds one piece with centre ``m`` (exact
rational) and radii ``r``.  Each bound returns ``(upper, lower, order, e(m))``: a rigorous
upper bound of ``sup |f - p|`` over the closed piece (``None`` when there is no finite
one), a certified lower bound of ``|f(m) - p(m)|``, the Taylor order used (0 for interval
evaluation) and the ball of ``f(m) - p(m)``.

* **Taylor form of order N, one variable** (:func:`taylor_form_piece_1d`; default
  ``N = clamp(deg p + 1, 8, 40)``).
  The polynomial is shifted exactly, ``p(m + t) = sum_j p_j t^j`` (fmpq), and
  ``f`` is expanded with ``arb_series``: ``f_j(m)`` for ``j < N`` at the point,
  and the Lagrange remainder coefficient ``f_N(I)`` over the whole piece ``I``.
  For ``|t| <= r``::

      |f - p| <= sum_{j<N} |f_j(m) - p_j| r^j + |f_N(I) - p_N| r^N + sum_{j>N} |p_j| r^j

  When ``N > deg p`` the remainder involves ``f`` alone, so the cancellation in
  ``f - p`` never costs precision (this is what lets tiny errors, 1e-280 and
  below, be certified).  This is the form the independent checker re-proves.
* **d >= 2, Taylor model of total order N** (:func:`taylor_model_piece_nd`;
  ``N = clamp(total deg p + 1, 4, 12 for d = 2 / 8 for d = 3)``)::

      f(m + h) - p(m + h) = sum_{|a| <= N} e_a h^a - sum_{|a| > N} p_a h^a,
      e_a = f_a(m) - p_a (|a| < N),   e_a = f_a(X) - p_a (|a| = N, Lagrange remainder)

  where ``f_a`` come from multivariate jets (:mod:`dpverify.expr.jets`: one
  ``arb_series`` of length ``(N+1)^d`` each, every operation one call into Arb) at the
  centre and over the box, and ``p_a`` from the exact tensor Taylor shift of ``p``
  (:class:`dpverify.exact.tensor_shift.IntegerTaylorShift`: integer Taylor shifts per
  fibre and axis, the leading axes cached across pieces).  The polynomial
  ``sum_{|a| <= N} e_a h^a`` is enclosed over the piece by its Bernstein coefficients
  (:func:`dpverify.certify.model_range.bernstein_range`: nearly exact where ``f - p``
  oscillates or peaks inside the piece, where the term-by-term bound ``sum |e_a| r^a``
  over-estimates by ``O(|r|)``); the last sum is bounded by ``sum |p_a| r^a``, computed
  exactly (:func:`dpverify.exact.tensor_shift.abs_tail_sum`) and rounded once.  The
  index tables are :func:`taylor_model_tables`.  The orders stay within the independent
  checker's caps (12 / 8), and the checker bounds each piece the same way
  (:mod:`dpverify.verify.box_model`, its own implementation).
* Where ``f`` is not analytic on a piece (``abs`` at 0, ``sqrt`` at 0, ...), the
  piece falls back to plain interval evaluation of ``f`` and the exact
  expansion of ``p`` (order 0).

On whole pieces, ``sqrt`` and fractional powers are evaluated on the part of the ball
where they are defined (``clip_to_domain``), because python-flint rounds ball radii up and
a ball built for ``[0, r]`` reaches slightly below 0.

Guarantee
---------
``upper`` (when not ``None``) bounds ``|f - p|`` on the whole closed piece and ``lower``
is at most ``|f(m) - p(m)|``; both are decided in arb ball arithmetic and exact
fmpq/fmpz arithmetic (floats are never used).  ``DomainError`` is raised when ``f`` is
not finite at the centre.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from functools import lru_cache
from typing import Any

from flint import arb, arb_series, ctx, fmpq, fmpz

from ..errors import DomainError, InvalidParameterError
from ..exact.tensor_shift import IntegerTaylorShift, abs_tail_sum
from ..expr import Expr, NotAnalytic
from ..expr.jets import Jet, jet_eval, multi_indices, series_cap, series_coeffs
from ..numbers import arb_to_fmpq_bounds, arb_upper
from .model_range import bernstein_range
from .taylor_model import taylor_shift

__all__ = [
    "Box",
    "PieceEval",
    "PieceProblem",
    "MIN_ORDER",
    "MAX_ORDER",
    "MAX_ORDER_ND",
    "lower_abs",
    "f_at_point",
    "taylor_form_piece_1d",
    "taylor_model_piece_nd",
    "taylor_model_tables",
]

#: a box: one exact interval per axis
Box = tuple[tuple[fmpq, fmpq], ...]
#: one piece bound: (upper bound or None, certified lower bound of |e(m)|, order, e(m) ball)
PieceEval = tuple["fmpq | None", fmpq, int, arb]

#: Taylor orders of the one-variable Taylor form: clamp(deg p + 1, MIN_ORDER, MAX_ORDER)
MIN_ORDER, MAX_ORDER = 8, 40
#: upper limit of the total order of the d-variate Taylor model, per d
MAX_ORDER_ND = {2: 12, 3: 8}


def _ball(a: fmpq, b: fmpq) -> arb:
    """A ball containing the closed interval [a, b]."""
    return arb(a).union(arb(b))


def lower_abs(x: arb) -> fmpq:
    """A certified lower bound of ``|x|`` (0 when ``x`` may vanish or is unusable)."""
    try:
        lo, hi = arb_to_fmpq_bounds(x)
    except InvalidParameterError:
        return fmpq(0)
    if lo > 0:
        return lo
    if hi < 0:
        return -hi
    return fmpq(0)


class PieceProblem:
    """``f``, ``p`` and the exact polynomial side shared by the piece bounds.

    ``p`` is taken to the monomial basis once; in one variable as an ``fmpq_poly``
    (``P``, shifted with :meth:`shift1`), in ``d >= 2`` through an
    :class:`~dpverify.exact.tensor_shift.IntegerTaylorShift` (``shifter``: exact integer
    Taylor shifts, leading axes cached across pieces).  ``order`` and ``order_nd`` are the
    default Taylor orders of :func:`taylor_form_piece_1d` and :func:`taylor_model_piece_nd`.
    """

    def __init__(self, f: Expr, poly: Any, d: int) -> None:
        self.f = f
        self.d = d
        if d == 1:
            mono = poly.to_monomial() if poly.basis != "monomial" else poly
            self.P = mono.as_fmpq_poly()
            self.deg = max(self.P.degree(), 0)
        else:
            self.mono = poly.to_monomial() if poly.basis != "monomial" else poly
            self.shape = tuple(self.mono.shape)
            self.shifter = IntegerTaylorShift(self.mono.coeffs, self.shape)
            self.deg = max(self.shape) - 1
        self.order = min(max(self.deg + 1, MIN_ORDER), MAX_ORDER)
        # total degree of p bounds the useful jet order; a jet is a series of (N+1)^d terms
        tdeg = sum(s - 1 for s in self.shape) if d > 1 else self.deg
        self.order_nd = min(max(tdeg + 1, 4), MAX_ORDER_ND.get(d, 8))

    # -- polynomial side (exact) ---------------------------------------------
    def shift1(self, m: fmpq) -> list[fmpq]:
        """Exact coefficients of ``p(m + t)`` (one variable, monomial in ``t``)."""
        out = [fmpq(c) for c in taylor_shift(self.P, m).coeffs()]
        return out or [fmpq(0)]

    def shiftd(self, m: tuple[fmpq, ...]) -> dict[tuple[int, ...], fmpq]:
        """Exact coefficients of p(m + h) as {multi-index: value} (monomial in h)."""
        flat = self.shifter.coefficients(m)
        idx = itertools.product(*map(range, self.shape))
        return {i: c for i, c in zip(idx, flat) if c != 0}

    def shift_scaled(self, m: tuple[fmpq, ...]) -> tuple[list[fmpz], fmpz, tuple[fmpz, ...]]:
        """``(g, D, V)`` of :meth:`IntegerTaylorShift.scaled
        <dpverify.exact.tensor_shift.IntegerTaylorShift.scaled>`: the coefficient of
        ``h^alpha`` in ``p(m + h)`` is ``g[alpha] prod_i V_i^alpha_i / D`` exactly."""
        return self.shifter.scaled(m)

    def p_exact(self, x: tuple[fmpq, ...]) -> fmpq:
        """``p(x)`` exactly."""
        if self.d == 1:
            return fmpq(self.P(x[0]))
        return self.shifter.value(x)


def _as_ball(v: arb | arb_series) -> arb:
    """``Expr.eval_arb`` on ``arb`` arguments returns an ``arb`` (typed as the union)."""
    if not isinstance(v, arb):
        raise TypeError(f"expected an arb ball, got {type(v).__name__}")
    return v


def _as_series(v: arb | arb_series) -> arb_series:
    """``Expr.eval_arb`` with an ``arb_series`` argument returns an ``arb_series``."""
    if not isinstance(v, arb_series):
        raise TypeError(f"expected an arb_series, got {type(v).__name__}")
    return v


def f_at_point(f: Expr, m: tuple[fmpq, ...]) -> arb:
    """A ball enclosing ``f(m)`` at the current working precision."""
    return _as_ball(f.eval_arb(*[arb(c) for c in m]))


def _interval_bound(f: Expr, X: list[arb], expansion: dict[tuple[int, ...], fmpq],
                    rpow: Callable[[tuple[int, ...]], arb]) -> arb:
    """Order-0 bound on a piece: ``|f(X) - p(X)|`` by interval evaluation of ``f``,
    with ``p(X)`` enclosed from its exact expansion at the centre,
    ``p(m + h) = sum_a p_a h^a`` (``|h^a| <= rpow(a)``).  Infinite when f has no
    finite enclosure on the piece."""
    zero = (0,) * len(X)
    spread = arb(0)
    for alpha, c in expansion.items():
        if alpha != zero:
            spread += abs(arb(c)) * rpow(alpha)
    fX = _as_ball(f.eval_arb(*X, clip_to_domain=True))
    su = arb_upper(spread)
    if not fX.is_finite() or su is None:
        return arb("inf")
    return abs(fX - (arb(expansion.get(zero, fmpq(0))) + arb(0, su)))


def taylor_form_piece_1d(prob: PieceProblem, a: fmpq, b: fmpq, prec: int) -> PieceEval:
    """Bound ``|f - p|`` on ``[a, b]`` (one variable) by the Taylor form of order
    ``prob.order`` at working precision ``prec`` (order 0, interval evaluation, where ``f``
    has no Taylor series there).

    Returns (upper bound or None, certified ``|e(m)|`` lower bound, order used, ``e(m)``
    ball) with ``e = f - p`` and ``m`` the midpoint; see the module docstring for the
    bound and its guarantee.
    """
    m = (a + b) / 2
    r = (b - a) / 2
    pj = prob.shift1(m)
    N = prob.order
    with ctx.workprec(prec):
        rr = arb(r)
        I = _ball(a, b)
        try:
            with series_cap(N + 2):
                F0 = series_coeffs(_as_series(prob.f.eval_arb(arb_series([arb(m), 1], prec=N))), N)
                fN = series_coeffs(_as_series(prob.f.eval_arb(arb_series([I, 1], prec=N + 1))),
                                   N + 1)[N]
            if not all(c.is_finite() for c in F0) or not fN.is_finite():
                raise NotAnalytic("non-finite Taylor coefficient")
            q0 = F0[0] - arb(pj[0])
            total = abs(q0)
            rpow = arb(1)
            for j in range(1, N):
                rpow = rpow * rr
                pv = arb(pj[j]) if j < len(pj) else arb(0)
                total += abs(F0[j] - pv) * rpow
            rpow = rpow * rr
            pN = arb(pj[N]) if N < len(pj) else arb(0)
            total += abs(fN - pN) * rpow
            for j in range(N + 1, len(pj)):
                rpow = rpow * rr
                total += abs(arb(pj[j])) * rpow
            order = N
        except (NotAnalytic, DomainError):
            q0 = f_at_point(prob.f, (m,)) - arb(pj[0])
            expansion: dict[tuple[int, ...], fmpq] = {(j,): c for j, c in enumerate(pj)}
            total = _interval_bound(prob.f, [I], expansion, lambda a: rr ** a[0])
            order = 0
        if not q0.is_finite():
            raise prob.f.explain_not_finite(m)
        up = arb_upper(total)
        return up, lower_abs(q0), order, q0


_HeadRow = tuple[int, int, tuple[int, ...], bool]
_TailRow = tuple[int, tuple[int, ...]]


@lru_cache(maxsize=16)
def taylor_model_tables(d: int, N: int, shape: tuple[int, ...]
                        ) -> tuple[tuple[_HeadRow, ...], tuple[_TailRow, ...]]:
    """Index tables of the order-``N`` bound for a tensor of ``shape``: ``head`` has
    ``(k, flat index or -1, alpha, |alpha| == N)`` for the jet coefficients (``k`` in
    :func:`multi_indices` order), ``tail`` has ``(flat index, alpha)`` for ``|alpha| > N``."""
    strides = [1] * d
    for i in range(d - 2, -1, -1):
        strides[i] = strides[i + 1] * shape[i + 1]

    def flat(alpha: tuple[int, ...]) -> int:
        if any(a >= s for a, s in zip(alpha, shape)):
            return -1
        return sum(a * s for a, s in zip(alpha, strides))

    head = tuple((k, flat(a), a, sum(a) == N) for k, a in enumerate(multi_indices(d, N)))
    tail = tuple((flat(a), a) for a in itertools.product(*map(range, shape)) if sum(a) > N)
    return head, tail


def taylor_model_piece_nd(prob: PieceProblem, box: Box, prec: int) -> PieceEval:
    """Bound ``|f - p|`` on the box piece ``box`` (``d >= 2``) by the Taylor model of total
    order ``prob.order_nd`` from jets at working precision ``prec`` (order 0, interval
    evaluation, where ``f`` has no Taylor series there).

    Returns the same tuple as :func:`taylor_form_piece_1d`; see the module docstring.
    """
    d = prob.d
    N = prob.order_nd
    m = tuple((a + b) / 2 for a, b in box)
    r = tuple((b - a) / 2 for a, b in box)
    P, den, V = prob.shift_scaled(m)
    head, tail = taylor_model_tables(d, N, prob.shape)
    with ctx.workprec(prec):
        X = [_ball(a, b) for a, b in box]
        rp = []
        for i in range(d):
            ri, pw = arb(r[i]), [arb(1)]
            for _ in range(1, max(prob.shape[i], N + 1)):
                pw.append(pw[-1] * ri)
            rp.append(pw)

        def rpow(alpha: tuple[int, ...]) -> arb:
            v = rp[0][alpha[0]]
            for i in range(1, d):
                if alpha[i]:
                    v = v * rp[i][alpha[i]]
            return v

        dball = arb(den)
        vp = [[v**a for a in range(prob.shape[i])] for i, v in enumerate(V)]

        def pval(c: fmpz, alpha: tuple[int, ...]) -> arb:
            # p_alpha = c prod V_i^alpha_i / den (see PieceProblem.shift_scaled)
            for i, a in enumerate(alpha):
                if a:
                    c = c * vp[i][a]
            return arb(c) / dball

        q0 = f_at_point(prob.f, m) - pval(P[0], (0,) * d)
        try:
            Fm = jet_eval(prob.f, [Jet.variable(d, N, i, arb(m[i])) for i in range(d)])
            FX = jet_eval(prob.f, [Jet.variable(d, N, i, X[i]) for i in range(d)])
            fm, fx = Fm.c, FX.c
            terms = []
            for k, fi, alpha, top in head:
                fa = fx[k] if top else fm[k]
                if fi >= 0 and P[fi] != 0:
                    fa = fa - pval(P[fi], alpha)
                terms.append((alpha, fa))
            lo, hi = bernstein_range(terms, N, r)
            total = hi.max(-lo)
            if tail:
                # in z = V h the half-widths are V_i r_i
                rz = tuple(v * ri for v, ri in zip(V, r))
                total += arb(abs_tail_sum(P, den, rz, prob.shape, N))
            if not total.is_finite():
                raise NotAnalytic("non-finite Taylor coefficient")
            order = N
        except (NotAnalytic, DomainError):
            total = _interval_bound(prob.f, X, prob.shiftd(m), rpow)
            order = 0
        if not q0.is_finite():
            raise prob.f.explain_not_finite(*m)
        up = arb_upper(total)
        return up, lower_abs(q0), order, q0


