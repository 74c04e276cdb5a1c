"""Piecewise polynomial models of the reference with rigorous remainders, for the screen.

The sorted checked inputs are covered by pieces ``[m - r, m + r]``, each inside one binade
of one sign, so that ``x - m`` is exact in binary64 for every point of the piece
(Sterbenz), and by one piece ``[-r, r]`` centred at ``m = 0`` (``r <= 1/2``), where
``x - m = x`` is exact whatever binades it spans.  On a piece the reference is
``f(x) = 2^E (P(t) + delta)`` with ``t = (x - m) 2^-rho`` (``2^rho >= r``, so
``|t| <= 1``), ``P`` a polynomial with double-double coefficients ``bh_j + bl_j`` and
``|delta| <= remainder`` rigorously:

* an expression (:class:`ExprModels`): the Taylor coefficients ``f_j(m)`` are arb balls
  (:meth:`dpverify.expr.Expr.eval_arb` on the series ``m + s``, as in
  :mod:`dpverify.certify.taylor_model`); the remainder is the Lagrange term
  ``|f_N(I)| r^N`` with ``f_N(I)`` the ball of the ``N``-th coefficient over the whole
  piece ``I``, plus the radii of the ``f_j(m)`` and the rounding of their midpoints to
  double-double;
* a polynomial (:class:`PolyModels`): the exact Taylor shift ``p(m + s)``, rounded to
  double-double, the remainder being exactly the rounding (and a truncated tail, if any).

``E`` puts the largest term of the piece near 1, so the float evaluation never meets
underflow or overflow whatever the magnitude of ``f``.  The order ``N`` is the least whose
remainder is below ``2^-(p+16)`` of the function's least size on the piece (``p`` the precision
of the format under test); a piece that cannot reach it within :data:`MAX_ORDER` terms is
bisected; a piece where the series does not exist (a pole, ``abs`` at 0) or with fewer
than :data:`MIN_POINTS` points is left to exact evaluation at its points.

Guarantee
---------
For every point ``x`` of a piece: ``|f(x) 2^-E - P(t)|`` plus the rounding error of
:func:`dpverify.testing.eft.comp_horner` is at most ``sum_j eb_j |t|^j``
(:attr:`PieceModel.eb`, floats rounded up), decided in arb ball and exact rational
arithmetic.  The bound is per point, so it stays relative where ``f`` vanishes at the
centre (``sin``, ``erf``, ``x`` at 0).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np
from flint import arb, arb_series, ctx, fmpq, fmpq_poly

from ..errors import DomainError, PrecisionExhausted
from ..expr import Expr, NotAnalytic, Undefined
from ..expr.bounds import range_bounds
from ..expr.jets import series_cap, series_coeffs
from .eft import SPLIT_MAX, horner_error_terms
from .formats import BinaryFormat, floor_log2, pow2, round_nearest, ulp_exponent

__all__ = ["PieceModel", "FlatModel", "ModelBuilder", "ExprModels", "PolyModels", "Piece",
           "cover", "MAX_ORDER", "MIN_POINTS", "float_up", "float_down", "rounds_to"]

#: Highest order of a piece's Taylor model (beyond it the piece is bisected): a model takes
#: the least order that meets its accuracy, so a high cap costs only where it is needed
#: (gamma far left of 0, between poles: pieces three times wider at order 32 than at 20)
MAX_ORDER = 32
#: A piece with fewer points is decided point by point (a model costs about as much as
#: a dozen exact evaluations).
MIN_POINTS = 12
# the model's accuracy target relative to the function's size on the piece, in bits
# beyond the format's precision: screened errors are then known to ~2^-16 ulp
_EXTRA_BITS = 16
# |log2 f| beyond this is far outside every format (the screen scales by 2^-E in int64)
_SCALE_MAX = 1 << 20


@dataclass(frozen=True)
class PieceModel:
    """``f(x) 2^-scale = sum_j (bh_j + bl_j) t^j + delta(t)``, ``t = (x - m) 2^-rho``,
    with ``|delta(t)|`` plus the rounding error of :func:`~dpverify.testing.eft.comp_horner`
    at most ``sum_j eb_j |t|^j`` (nonnegative floats, rounded up) on the piece; ``bound`` is
    that sum at ``|t| = 1``."""

    m: float
    rho: int
    scale: int
    bh: np.ndarray
    bl: np.ndarray
    eb: np.ndarray
    vanish: int = 0   # the order to which f vanishes at m (bh_j = 0 for j < vanish)
    #: +1 / -1 where f is increasing / decreasing on the whole piece (its derivative's
    #: ball excludes 0), 0 when not known
    slope: int = 0

    @property
    def bound(self) -> float:
        return float(np.sum(self.eb)) * (1 + 2.0 ** -40)


@dataclass(frozen=True)
class FlatModel:
    """A piece where the reference is flat at the format's resolution: ``lo <= f(x) <=
    hi`` (floats rounded outward; +-inf for a value beyond every float) and every value of
    ``[lo, hi]`` rounds to the same number ``rounded`` of the format (an overflow to
    ``+-inf``, an underflow to 0, a saturation at ``+-1``...); ``rounded`` NaN: the
    reference is undefined at every point of the piece (``log`` left of 0)."""

    lo: float
    hi: float
    rounded: float
    #: ``log2`` of the ulp of ``rounded`` and ``lo_u <= f(x) 2^-q <= hi_u`` (floats rounded
    #: outward): the enclosure in ulps, sharp even where ``f`` is subnormal
    q: int = 0
    lo_u: float = -math.inf
    hi_u: float = math.inf


@dataclass(frozen=True)
class Piece:
    """Points ``xs[start:stop]`` (sorted) and the model that covers them (None: decide
    those points exactly, unless ``flat`` is given)."""

    start: int
    stop: int
    model: PieceModel | None
    flat: FlatModel | None = None


class ModelBuilder(Protocol):
    def build(self, m: float, r: float) -> PieceModel | None: ...


def float_down(x: arb) -> float:
    """A float <= the lower end of the ball ``x``: the greatest one, or the largest finite
    float beyond it, or -inf."""
    lo = x.lower()
    if not lo.is_finite():
        return -math.inf
    if lo >= arb(_MAX64):
        return _MAX64
    f = float(lo)
    if not math.isfinite(f):
        return -math.inf
    return f if arb(f) <= lo else math.nextafter(f, -math.inf)


_MAX64 = np.finfo(np.float64).max


def float_up(q: fmpq | arb) -> float:
    """The least float >= ``q`` (an exact rational, or the upper end of a ball), or +inf."""
    x = arb(q) if isinstance(q, fmpq) else q.upper()
    if not x.is_finite():
        return math.inf
    f = float(x)
    if not math.isfinite(f):
        return math.inf
    return f if arb(f) >= x else math.nextafter(f, math.inf)


def _double_double(b: arb) -> tuple[float, float, arb]:
    """(hi, lo, e) with floats hi, lo and ``|beta - hi - lo| <= e`` for every ``beta`` in
    the ball ``b`` (arb arithmetic: rigorous)."""
    hi = float(b.mid())
    rest = b - arb(hi)
    lo = float(rest.mid())
    return hi, lo, (rest - arb(lo)).abs_upper()


def _finish(m: float, rho: int, scale: int, coeffs: list[arb], extra: list[arb],
            slope: int = 0) -> PieceModel | None:
    """Round the (scaled) coefficient balls to double-double and close the error
    polynomial: ``extra[j]`` (truncation, remainder) plus, per power of ``t``, the
    rounding of the coefficient and :func:`~dpverify.testing.eft.horner_error_terms`."""
    n = len(coeffs) - 1
    a_hi, a_lo, slack = (arb(q) for q in horner_error_terms(n))
    eb = list(extra) + [arb(0)] * max(0, n + 1 - len(extra))
    bh, bl = [], []
    for j, c in enumerate(coeffs):
        hi, lo, err = _double_double(c)
        if not abs(hi) < SPLIT_MAX:
            return None
        bh.append(hi)
        bl.append(lo)
        eb[j] += err + a_hi * abs(arb(hi)) + a_lo * abs(arb(lo))
    eb[0] += slack
    vanish = next((j for j, h in enumerate(bh) if h != 0 or bl[j] != 0), 0)
    return PieceModel(m, rho, scale, np.array(bh), np.array(bl),
                      np.array([float_up(e) for e in eb]), vanish, slope)


def _accept(model: PieceModel | None, size: arb, p: int, tmax: float) -> PieceModel | None:
    """``model`` if its error at ``|t| <= tmax`` stays within ``2^-(p + 16)`` of ``size``
    (scaled), with room for 4 such terms."""
    if model is None:
        return None
    limit = size * arb(2) ** -(p + _EXTRA_BITS - 2)
    worst = float(np.polynomial.polynomial.polyval(tmax, model.eb)) * (1 + 2.0 ** -40)
    return model if arb(worst) <= limit else None


def _round_end(e: arb, fmt: BinaryFormat) -> float | None:
    """The number of ``fmt`` nearest to the exact ball end ``e`` (None: not decided
    here, an end far outside the float64 range but not beyond the format)."""
    if not e.is_finite():   # an infinite end: +-inf
        return math.inf if e > 0 else -math.inf
    big = arb(2) ** (fmt.emax + 1)
    if abs(e) >= big:
        return math.inf if e > 0 else -math.inf
    if abs(e) <= arb(2) ** (fmt.emin - fmt.p - 1):   # at most half the least subnormal
        return 0.0
    man, ex = e.mid().man_exp()
    return round_nearest(int(man) * pow2(int(ex)), fmt)


def rounds_to(a: arb, b: arb, fmt: BinaryFormat) -> float | None:
    """The number of ``fmt`` that every value in ``[a, b]`` rounds to (exact ball ends),
    or None when the ends round differently (rounding is monotone)."""
    ra, rb = _round_end(a, fmt), _round_end(b, fmt)
    return ra if ra is not None and ra == rb else None


def _rho(r: float) -> int:
    return math.frexp(r)[1]  # 2^rho > r (r = mant 2^rho with 1/2 <= mant < 1)


def _log2(a: arb) -> int | None:
    """About ``log2 |mid(a)|`` (within 1), None at 0 or for a non-finite ball."""
    if not a.is_finite() or a.mid().is_zero():
        return None
    man, ex = a.mid().man_exp()
    return int(ex) + int(man).bit_length()


class ExprModels:
    """Taylor models of a one-variable expression (module docstring)."""

    def __init__(self, expr: Expr, fmt: BinaryFormat):
        self.expr = expr
        self.fmt = fmt
        self.prec = fmt.p + 64

    def _series(self, c: arb, n: int) -> list[arb]:
        with series_cap(n + 2):
            s = self.expr.eval_arb(arb_series([c, 1], prec=n))
            if not isinstance(s, arb_series):
                s = arb_series([s], prec=n)
            return series_coeffs(s, n)

    def build(self, m: float, r: float) -> PieceModel | None:
        try:
            with ctx.workprec(self.prec):
                return self._build(m, r)
        except (NotAnalytic, DomainError, PrecisionExhausted, ValueError, ZeroDivisionError):
            return None

    def flat(self, lo: float, hi: float) -> FlatModel | None:
        """A :class:`FlatModel` of ``[lo, hi]`` when ``f`` there rounds to one number of the
        format: decided exactly from inf-sup bounds of ``f``
        (:func:`dpverify.expr.bounds.range_bounds`); an *undefined* one (``rounded`` NaN)
        where ``f`` is proven undefined at every point (``log`` of negative numbers); else
        None."""
        ball = arb(fmpq(*lo.as_integer_ratio())).union(arb(fmpq(*hi.as_integer_ratio())))
        try:
            with ctx.workprec(self.prec):
                self.expr.eval_arb(ball)
        except Undefined:   # proven undefined on the whole ball (expr.Undefined)
            return FlatModel(math.nan, math.nan, math.nan)
        except (DomainError, ValueError, ZeroDivisionError):
            pass
        try:
            with ctx.workprec(self.prec):
                a, b = range_bounds(self.expr, fmpq(*lo.as_integer_ratio()),
                                    fmpq(*hi.as_integer_ratio()))
                ra = rounds_to(a, b, self.fmt)
                if ra is None:
                    return None
                q = ulp_exponent(ra, self.fmt)
                scale = arb(2) ** -q
                return FlatModel(float_down(a), float_up(b), ra, q, float_down(a * scale),
                                 float_up(b * scale))
        except (DomainError, ValueError, ZeroDivisionError):
            return None

    def _build(self, m: float, r: float) -> PieceModel | None:
        whole = self._series(arb(m, r), MAX_ORDER + 1)  # f_j(I) over the piece
        if not all(g.is_finite() for g in whole):
            return None
        rho = _rho(r)
        rr, two = arb(r), arb(2)
        size = max((abs(g.mid()) * rr ** j for j, g in enumerate(whole[:3])),
                   key=lambda a: a.mid())
        low = whole[0].abs_lower()
        floor = size * two ** -30
        ref = low if low > floor else floor   # accuracy relative to the least |f| on I
        spread = max((_log2(size) or 0) - (_log2(ref) or 0), 0)
        with ctx.workprec(self.prec + min(spread, 4000)):
            at_m = self._series(arb(m), MAX_ORDER)
        # where f vanishes at m to order k, accuracy relative to the term of order k
        k = next((j for j, c in enumerate(at_m) if not c.is_zero()), None)
        if k is None:
            return None
        if k > 0:
            ref = abs(at_m[k]) * arb(2) ** (rho * k)
        scale = _log2(max(size, ref, key=lambda a: a.mid()))
        if scale is None or abs(scale) > _SCALE_MAX:
            return None
        target = ref * two ** -(self.fmt.p + _EXTRA_BITS)
        order = next((n for n in range(k + 1, MAX_ORDER + 1)
                     if whole[n].abs_upper() * rr ** n < target), None)
        if order is None:
            return None
        # Lagrange: |f(x) - sum_{j<N} f_j(m) (x-m)^j| <= |f_N(I)| |x - m|^N, |x-m| = 2^rho |t|
        rem = whole[order].abs_upper() * two ** (rho * order - scale)
        coeffs = [c * two ** (rho * j - scale) for j, c in enumerate(at_m[:order])]
        extra = [arb(0)] * order + [rem]
        slope = 1 if whole[1] > 0 else -1 if whole[1] < 0 else 0   # f'(I)
        return _accept(_finish(m, rho, scale, coeffs, extra, slope), ref * two ** -scale,
                       self.fmt.p, math.ldexp(r, -rho))


class PolyModels:
    """Exact Taylor shifts of a rational polynomial (module docstring)."""

    def __init__(self, poly: fmpq_poly, fmt: BinaryFormat):
        self.poly = poly
        self.fmt = fmt

    def build(self, m: float, r: float) -> PieceModel | None:
        shifted = self.poly(fmpq_poly([fmpq(*m.as_integer_ratio()), 1]))
        cs = list(shifted.coeffs()) or [fmpq(0)]
        rho = _rho(r)
        scaled = [c * pow2(rho * j) for j, c in enumerate(cs)]
        k = next((j for j, c in enumerate(scaled) if c != 0), 0)
        size = max((abs(c) for c in scaled[:k + 3]), default=fmpq(0))
        scale = 0 if size == 0 else floor_log2(int(size.p), int(size.q)) + 1
        if abs(scale) > _SCALE_MAX:
            return None
        scaled = [c * pow2(-scale) for c in scaled]
        # the leading term sets the accuracy needed (terms may cancel: then bisect)
        lead = max(abs(scaled[k]), fmpq(1, 2**30))
        target = lead * fmpq(1, 2 ** (self.fmt.p + _EXTRA_BITS))
        tail, n = fmpq(0), len(scaled)
        # a tail below the target joins the error polynomial at its lowest power (|t| <= 1)
        while n > k + 1 and tail + abs(scaled[n - 1]) < target / 8:
            tail += abs(scaled[n - 1])
            n -= 1
        # p'(m + s 2^rho) 2^(rho - scale) = sum_j j a_j t^(j-1), |t| <= 1: the sign of a_1
        # when |a_1| exceeds the rest
        rest = sum((j * abs(c) for j, c in enumerate(scaled) if j >= 2), fmpq(0))
        slope = (1 if scaled[1] > 0 else -1) if len(scaled) > 1 and abs(scaled[1]) > rest \
            else 0
        with ctx.workprec(self.fmt.p + 64):   # arb(fmpq) rounds into the ball: rigorous
            model = _finish(m, rho, scale, [arb(c) for c in scaled[:n]],
                            [arb(0)] * n + [arb(tail)], slope)
            return _accept(model, arb(lead), self.fmt.p, math.ldexp(r, -rho))


def _binade_groups(xs: np.ndarray) -> list[tuple[int, int]]:
    """Index ranges of ``xs`` (sorted, non-zero) with one sign and one binade."""
    if xs.size == 0:
        return []
    key = np.frexp(xs)[1].astype(np.int64) * np.sign(xs).astype(np.int64)
    cuts = np.flatnonzero(np.diff(key)) + 1
    edges = [0, *cuts.tolist(), xs.size]
    return list(zip(edges[:-1], edges[1:]))


def _zero_piece(xs: np.ndarray, builder: ModelBuilder, min_points: int
                ) -> tuple[int, int, int, int, PieceModel] | None:
    """A model centred at 0 for the points with ``tiny <= |x| <= r``, ``r = 2^k <= 1/2``
    as large as a model allows: there ``t = x 2^-rho`` is exact (a scaling up), whatever
    binades the points span -- one model for the hundreds of tiny binades of a log-uniform
    search.  Returns ``(i0, a, b, i1, model)``: the points ``[i0, a)`` and ``[b, i1)``.
    Where ``f`` vanishes at 0 to order ``k``, ``tiny = 2^(rho - 1000/k)`` keeps ``f``'s
    scaled values far above the underflow slack of the evaluation; the points inside go to
    their binades."""
    top = float(np.max(np.abs(xs)))
    if top == 0:
        return None
    k = min(math.frexp(top)[1], -1)
    for _ in range(12):
        r = math.ldexp(1.0, k)
        i0, i1 = np.searchsorted(xs, -r, "left"), np.searchsorted(xs, r, "right")
        if i1 - i0 < min_points:
            return None
        model = builder.build(0.0, r)
        if model is not None:
            tiny = 0.0 if model.vanish == 0 else math.ldexp(1.0, model.rho
                                                            - 1000 // model.vanish)
            a = int(np.searchsorted(xs, -tiny, "left")) if tiny else int(i1)
            b = int(np.searchsorted(xs, tiny, "right")) if tiny else int(i1)
            return int(i0), a, b, int(i1), model
        k -= 3
    return None


def _flat(builder: ModelBuilder, lo: float, hi: float) -> FlatModel | None:
    fn = getattr(builder, "flat", None)
    return None if fn is None else fn(lo, hi)


def cover(xs: np.ndarray, builder: ModelBuilder | None, min_points: int = MIN_POINTS
          ) -> list[Piece]:
    """Pieces covering the sorted, distinct, finite points ``xs`` in order (module
    docstring); stretches without a model get ``model=None``."""
    if builder is None or xs.size == 0:
        return [Piece(0, xs.size, None)] if xs.size else []
    pieces: list[Piece] = []
    groups: list[tuple[int, int]] = []
    zero = _zero_piece(xs, builder, min_points)
    if zero is not None:
        z0, za, zb, z1, model = zero
        pieces += [Piece(i, j, model) for i, j in ((z0, za), (zb, z1)) if j > i]
        inner = _binade_groups(xs[za:zb][xs[za:zb] != 0])
        nz = np.flatnonzero(xs[za:zb] == 0)
        if nz.size:   # 0 itself (between the two sides)
            pieces.append(Piece(za + int(nz[0]), za + int(nz[-1]) + 1, None))
            inner = _binade_groups(xs[za:za + int(nz[0])]) + [
                (a + za + int(nz[-1]) + 1, b + za + int(nz[-1]) + 1)
                for a, b in _binade_groups(xs[za + int(nz[-1]) + 1:zb])]
        else:
            inner = [(a + za, b + za) for a, b in inner]
        groups = _binade_groups(xs[:z0]) + inner + [(a + z1, b + z1)
                                                    for a, b in _binade_groups(xs[z1:])]
    else:
        nz = np.flatnonzero(xs == 0)
        if nz.size:
            z0, z1 = int(nz[0]), int(nz[-1]) + 1
            pieces.append(Piece(z0, z1, None))
            groups = _binade_groups(xs[:z0]) + [(a + z1, b + z1)
                                                for a, b in _binade_groups(xs[z1:])]
        else:
            groups = _binade_groups(xs)
    for g0, g1 in groups:
        stack = [(g0, g1)]
        while stack:
            i0, i1 = stack.pop()
            if i1 - i0 < min_points:
                pieces.append(Piece(i0, i1, None))
                continue
            lo, hi = float(xs[i0]), float(xs[i1 - 1])
            m = min(max(lo + (hi - lo) / 2, lo), hi)
            r = max(m - lo, hi - m)
            built = builder.build(m, r) if r > 0 else None
            if built is not None:
                pieces.append(Piece(i0, i1, built))
                continue
            flat = _flat(builder, lo, hi)
            if flat is not None:
                pieces.append(Piece(i0, i1, None, flat))
                continue
            k = i0 + int(np.searchsorted(xs[i0:i1], m))
            if not i0 < k < i1:
                k = (i0 + i1) // 2
            stack += [(k, i1), (i0, k)]
    return sorted(pieces, key=lambda p: p.start)


def model_cost(pieces: list[Piece]) -> dict[str, Any]:
    """Counts for the report: modelled pieces and points, and points left to exact."""
    modelled = [p for p in pieces if p.model is not None]
    return {"pieces": len(modelled),
            "modelled_points": sum(p.stop - p.start for p in modelled),
            "unmodelled_points": sum(p.stop - p.start for p in pieces if p.model is None)}
