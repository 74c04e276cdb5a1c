"""The fast screen of binary32 checks and of flat pieces: a float64 value of the reference
with a rigorous error bound decides the binary32 rounding at all but the points near a
rounding boundary.

At a point ``x`` the reference is ``f(x) = V + delta``, ``|delta| <= W`` (float64 ``V``,
``W``: a piece model evaluated by plain Horner, :func:`model_values`, or the reduced
``sin``/``cos`` of :mod:`dpverify.testing.trig`).  In binary32, :func:`decide_values`:

* ``r = RN32(V)`` (numpy's float64 -> float32 cast rounds to nearest, ties to even); the
  rounding cell of ``r`` reaches ``h``, half the ulp of ``r``, on each side (a quarter
  towards 0 at a power of two, where the gap below is half; the overflow threshold
  ``2^128 - 2^103`` above the largest float; ``+-inf``'s cell is beyond it);
* when ``|V - r| + W < h`` (``V - r`` is exact; the sum is rounded up),
  ``RN32(f) = r`` and the ulp is decided;
* ``|y - f|`` lies in ``[|y - V| - W, |y - V| + W]``, ``|y - V|`` rounded once (relative
  ``2^-53``, covered by the factors ``1 -+ 2^-50``); divided by the ulp, a power of two.

Plain Horner (:func:`model_values`) of a piece model ``sum_j (bh_j + bl_j) t^j`` (scaled by
``2^scale``, ``|t| <= 1``) drops the ``bl_j`` and errs by at most
``gamma(2n) sum_j |bh_j| |t|^j`` (Higham, *Accuracy and Stability of Numerical
Algorithms*, eq. 5.3; ``gamma(k) = k u / (1 - k u)``), to which the model's own bound
``sum_j eb_j |t|^j`` and ``sum_j |bl_j| |t|^j`` are added; the sum is evaluated by Horner
on non-negative terms and inflated by ``2^-40`` (its relative rounding error is below
``2n 2^-53``), plus ``n 2^-1070`` for underflow.  Unscaling by ``2^scale`` is exact unless
the result is subnormal: ``2^-1074`` covers that rounding.

A *flat* piece (:class:`~dpverify.testing.models.FlatModel`) knows the rounded reference
``R`` and an enclosure ``[lo, hi]`` of ``f``: :func:`screen_flat` encloses ``|y - f|``
between the distance of ``y`` to ``[lo, hi]`` and its distance to the farther end (in any
format).

Guarantee
---------
Every decided point's enclosures contain its exact error in ulps of the correctly rounded
reference (and absolute), provided ``|f - V| <= W`` (resp. ``lo <= f <= hi``); anything
else -- a non-finite value, an interval touching a rounding boundary -- is undecided and
goes to exact evaluation.
"""

from __future__ import annotations

import math

import numpy as np

from .formats import BINARY32, BinaryFormat
from .models import FlatModel, Piece, PieceModel
from .screen import FAIL, PASS, Screen, Tolerance, limit_status, screen_models

__all__ = ["decide_values", "screen_flat", "model_values", "screen_pieces", "ulp_exponents",
           "put"]

_U = 2.0 ** -53
_UP = 1.0 + 2.0 ** -50
_DOWN = 1.0 - 2.0 ** -50
_TINY = 2.0 ** -1074
_CHUNK = 1 << 16
_MAX32 = float(np.finfo(np.float32).max)
_OVER32 = 2.0 ** 128 - 2.0 ** 103   # RN32 of anything at least this is +inf


def ulp_exponents(r: np.ndarray, fmt: BinaryFormat) -> np.ndarray:
    """``log2 ulp(r)`` of format numbers ``r`` (float64 arrays; +-inf counts as the
    largest finite number, 0 as the subnormal spacing)."""
    with np.errstate(all="ignore"):
        e = np.frexp(np.where(np.isfinite(r), r, fmt.max_finite))[1].astype(np.int64) - 1
    e = np.where(r == 0, fmt.emin, e)
    return np.maximum(e, fmt.emin) - (fmt.p - 1)


def _errors(ys: np.ndarray, lo_d: np.ndarray, hi_d: np.ndarray, q: np.ndarray,
            r: np.ndarray, ok: np.ndarray, tol: Tolerance,
            in_ulps: tuple[np.ndarray, np.ndarray] | None = None) -> Screen:
    """The screen from enclosures ``[lo_d, hi_d]`` of ``|y - f|`` (reused as the absolute
    errors; ``in_ulps`` gives the error in ulps directly when known more sharply), the
    rounded reference ``r`` and ``log2`` of its ulp ``q`` (decided where ``ok``), with the
    conventions of non-finite outputs."""
    with np.errstate(all="ignore"):
        if in_ulps is not None:
            ulps_lo, ulps_hi = in_ulps
        elif np.all((q > -1000) & (q < 1000)):   # 2^-q exact: multiply
            scale = np.ldexp(1.0, -q)
            ulps_lo, ulps_hi = lo_d * scale, hi_d * scale
        else:
            ulps_lo, ulps_hi = np.ldexp(lo_d, -q), np.ldexp(hi_d, -q)
    abs_lo, abs_hi = lo_d, hi_d
    fin_y = np.isfinite(ys)
    same_inf = wrong = None
    if not np.all(fin_y):
        # a non-finite output: 0 if it is the rounded reference (+-inf), else infinitely
        # wrong
        same_inf = ok & ~fin_y & (ys == r)
        wrong = ok & ~fin_y & ~same_inf
        for arr in (ulps_lo, ulps_hi, abs_lo, abs_hi):
            arr[same_inf] = 0.0
            arr[wrong] = np.inf
    status = limit_status(ulps_lo, ulps_hi, abs_lo, abs_hi, ok, tol)
    if same_inf is not None and wrong is not None:
        status[wrong] = FAIL
        status[same_inf] = PASS
    bad = ~ok
    if np.any(bad):
        for arr in (ulps_lo, ulps_hi, abs_lo, abs_hi):
            arr[bad] = np.nan
    return Screen(status, ulps_lo, ulps_hi, abs_lo, abs_hi)


def decide_values(ys: np.ndarray, V: np.ndarray, W: np.ndarray, fmt: BinaryFormat,
                  tol: Tolerance) -> Screen:
    """The binary32 screen of outputs ``ys`` against ``f = V + delta``, ``|delta| <= W``
    (module docstring).  The rounding cell of ``r = RN32(V)`` is ``r +- h``, ``h`` half
    its ulp, halved again at a power of two (the gap towards 0 is half there: both sides
    are taken that narrow); at the largest float ``r + h`` is the overflow threshold; the
    cell of ``+-inf`` is beyond the threshold."""
    assert fmt == BINARY32
    with np.errstate(all="ignore"):
        r = V.astype(np.float32).astype(np.float64)
        inf = np.isinf(r)
        mant, ex = np.frexp(np.where(inf, _MAX32, r))
        e = ex.astype(np.int64) - 1
        q = np.maximum(e, fmt.emin) - (fmt.p - 1)
        q[r == 0] = fmt.emin - fmt.p + 1
        h = np.ldexp(0.5, q)               # half the ulp above |r|
        # at a power of two above the subnormals the gap towards 0 is half as wide
        h_in = np.where((np.abs(mant) == 0.5) & (e > fmt.emin), h / 2, h)
        w = W * _UP
        D = np.abs(ys - V)
        d = V - r                          # exact (r is V rounded to 24 bits)
        outward = (d >= 0) == (r >= 0)     # away from 0
        ok = (np.abs(d) + w) * _UP < np.where(outward, h, h_in)
        if np.any(inf):   # +-inf: V - W beyond the threshold, on the same side
            ok[inf] = (np.abs(V[inf]) - w[inf]) * _DOWN > _OVER32
        ok &= np.isfinite(W)
        lo_d = np.maximum(D * _DOWN - w, 0.0)
        hi_d = (D + w) * _UP
    return _errors(ys, lo_d, hi_d, q, r, ok, tol)


def screen_flat(ys: np.ndarray, flat: FlatModel, fmt: BinaryFormat, tol: Tolerance
                ) -> Screen:
    """The screen of a flat piece (module docstring): ``RN(f) = flat.rounded`` for every
    point, and ``f 2^-q`` in ``[lo_u, hi_u]``: the error in ulps is enclosed between the
    distance of ``y 2^-q`` (exact) to that interval and its distance to the farther end."""
    n = ys.size
    if math.isnan(flat.rounded):
        # undefined everywhere: a non-finite output errs by 0, a finite one fails
        # (decide.py's convention)
        fin = np.isfinite(ys)
        err = np.where(fin, np.inf, 0.0)
        status = np.where(fin, FAIL, PASS).astype(np.int8)
        return Screen(status, err, err.copy(), err.copy(), err.copy())
    q = np.full(n, flat.q, dtype=np.int64)
    with np.errstate(all="ignore"):
        yu = np.ldexp(ys, -flat.q)
        lo_u = np.maximum(np.maximum(flat.lo_u - yu, yu - flat.hi_u), 0.0) * _DOWN
        hi_u = np.maximum(np.abs(yu - flat.lo_u), np.abs(yu - flat.hi_u)) * _UP
        lo_u = np.where(np.isnan(lo_u), 0.0, lo_u)
        # back to absolute errors: exact scalings, but for underflow (one spacing)
        lo_d = np.maximum(np.ldexp(lo_u, flat.q) - _TINY, 0.0)
        hi_d = np.ldexp(hi_u, flat.q) + _TINY
    ok = np.ones(n, dtype=bool)
    return _errors(ys, lo_d, hi_d, q, np.full(n, flat.rounded), ok, tol, (lo_u, hi_u))


def _bound_coeffs(model: PieceModel) -> np.ndarray:
    """Per power of ``t``: the model's bound, the dropped low parts and plain Horner's
    ``gamma(2n) |bh_j|`` (module docstring), rounded up."""
    n = max(model.bh.size - 1, 1)
    gamma = 2 * n * _U / (1 - 2 * n * _U)
    k = max(model.eb.size, model.bh.size)
    pad = [np.pad(a, (0, k - a.size)) for a in (model.eb, model.bl, model.bh)]
    return (pad[0] + np.abs(pad[1]) + gamma * np.abs(pad[2])) * (1 + 2.0 ** -40)


def model_values(model: PieceModel, xs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(V, W)`` unscaled, with ``|f(x) - V| <= W`` at the points ``xs`` of the piece
    (module docstring)."""
    t = np.ldexp(xs - model.m, -model.rho)   # exact: the models docstring
    v = np.full(t.shape, model.bh[-1])
    for c in model.bh[-2::-1]:
        v *= t
        v += c
    at = np.abs(t)
    eb = _bound_coeffs(model)
    b = np.full(t.shape, eb[-1])
    for c in eb[-2::-1]:
        b *= at
        b += c
    b = b * (1 + 2.0 ** -40) + model.bh.size * 2.0 ** -1070
    with np.errstate(all="ignore"):
        return np.ldexp(v, model.scale), np.ldexp(b, model.scale) * _UP + _TINY


def screen_pieces(xs: np.ndarray, ys: np.ndarray, pieces: list[Piece], fmt: BinaryFormat,
                  tol: Tolerance) -> Screen:
    """The screen of sorted points against piece models and flat pieces: flat pieces by
    :func:`screen_flat`; in binary32, models by :func:`model_values` and
    :func:`decide_values` (models scaled by more than ``2^600`` -- a reference far outside
    binary32 -- by the compensated screen); in binary64 by
    :func:`~dpverify.testing.screen.screen_models`."""
    out = Screen.undecided(xs.size)
    rest: list[Piece] = []
    for p in pieces:
        if p.flat is not None:
            put(out, slice(p.start, p.stop), screen_flat(ys[p.start:p.stop], p.flat, fmt, tol))
        elif p.model is not None and fmt == BINARY32 and abs(p.model.scale) <= 600:
            for a in range(p.start, p.stop, _CHUNK):
                sl = slice(a, min(a + _CHUNK, p.stop))
                V, W = model_values(p.model, xs[sl])
                put(out, sl, decide_values(ys[sl], V, W, fmt, tol))
        elif p.model is not None:
            rest.append(p)
    if rest:
        idx = np.concatenate([np.arange(p.start, p.stop) for p in rest])
        shifted = [Piece(int(np.searchsorted(idx, p.start)), int(np.searchsorted(idx, p.start))
                         + p.stop - p.start, p.model) for p in rest]
        put(out, idx, screen_models(xs[idx], ys[idx], shifted, fmt, tol))
    return out


def put(out: Screen, where: slice | np.ndarray, part: Screen) -> None:
    """Store the screen ``part`` of the points ``where`` into ``out``."""
    out.status[where] = part.status
    out.ulps_lo[where], out.ulps_hi[where] = part.ulps_lo, part.ulps_hi
    out.abs_lo[where], out.abs_hi[where] = part.abs_lo, part.abs_hi
