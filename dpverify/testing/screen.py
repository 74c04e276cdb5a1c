"""The float screen: rigorous enclosures of each point's error, in numpy, for millions of
points.

At a point ``x`` covered by a piece model (:mod:`dpverify.testing.models`) the reference is
``f(x) = 2^E (s + c + delta)`` with ``s + c`` from :func:`~dpverify.testing.eft.comp_horner`
and ``|delta| <= bound``, the model's error polynomial at ``|t|``.  The implementation's
output ``y`` is scaled exactly, ``Y = y 2^-E`` (checked: ``Y 2^E == y``), and
``Y - s = eh + el`` exactly
(:func:`~dpverify.testing.eft.two_sum`), so::

    D = fl(eh + fl(el - c)),     |D - (Y - f(x) 2^-E)| <= bound + u |el - c| + u |D| =: W

in round-to-nearest binary64 (two roundings).  The binade of ``f(x)`` -- hence the ulp of
its nearest number of the format under test -- follows from the exact distances of
``|s|`` to the powers of two around it, corrected by ``c`` and compared with ``bound``:
``RN(f)`` is in the binade ``[2^(K-1), 2^K)`` of ``s`` when ``f`` is at least the midpoint
below ``2^(K-1)`` and below the midpoint below ``2^K``, in the binade below when it is
under the first midpoint, in the binade above when it is at least the second; in the
subnormal range all binades share one ulp.  Then ``|y - f(x)| / ulp`` lies in
``[(|D| - W) / ulp', (|D| + W) / ulp']`` (``ulp' = ulp 2^-E``, a power of two: exact
division), every float operation on bounds being
inflated by ``2^-50`` relative, far above its rounding error.

A point is *decided* when that interval lies on one side of the tolerance.  Points where
any assumption fails -- not covered by a model, a non-finite output, an inexact scaling,
a binade not decided, an interval straddling the tolerance -- are *undecided* and go to
exact evaluation (:mod:`dpverify.testing.decide`).

For a float reference (a function returning floats, not rigorous) the same code runs with
``s`` the reference value itself, ``c = 0``, ``bound = 0``, ``E = 0``.

Guarantee
---------
Every decided point's enclosures contain its exact error (in ulps of the correctly rounded
reference, and absolute), provided the models' bounds hold.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .eft import comp_horner, two_sum
from .formats import BinaryFormat
from .models import Piece

__all__ = ["Screen", "Tolerance", "screen_models", "screen_values", "limit_status", "PASS",
           "FAIL", "UNDECIDED"]

PASS, FAIL, UNDECIDED = 0, 1, 2
_U = 2.0 ** -53
_UP = 1.0 + 2.0 ** -50
_DOWN = 1.0 - 2.0 ** -50
_TINY = 2.0 ** -1074
# chunks that stay in cache; arrays of 64 KiB also stay below glibc's mmap threshold,
# which Dask workers pin at 128 KiB (MALLOC_TRIM_THRESHOLD_): larger temporaries were
# mapped and unmapped at every operation there, 4x slower
_CHUNK = 1 << 13


@dataclass(frozen=True)
class Tolerance:
    """The limits as floats rounded outward: ``ulps_lo <= ulps <= ulps_hi`` (None: not
    given); a point passes when either limit holds."""

    ulps_lo: float | None
    ulps_hi: float | None
    atol_lo: float | None
    atol_hi: float | None


@dataclass
class Screen:
    """Per point: status (PASS, FAIL, UNDECIDED) and enclosures of the error in ulps and of
    the absolute error (NaN where undecided)."""

    status: np.ndarray
    ulps_lo: np.ndarray
    ulps_hi: np.ndarray
    abs_lo: np.ndarray
    abs_hi: np.ndarray

    @classmethod
    def undecided(cls, n: int) -> Screen:
        nan = np.full(n, np.nan)
        return cls(np.full(n, UNDECIDED, dtype=np.int8), nan, nan.copy(), nan.copy(),
                   nan.copy())


def limit_status(ulps_lo: np.ndarray, ulps_hi: np.ndarray, abs_lo: np.ndarray,
                 abs_hi: np.ndarray, ok: np.ndarray, tol: Tolerance) -> np.ndarray:
    """PASS where an enclosure is within a limit, FAIL where beyond every limit given,
    UNDECIDED otherwise or where not ``ok``."""
    n = ulps_lo.size
    passes = np.zeros(n, dtype=bool)
    if tol.ulps_lo is not None:
        passes |= ulps_hi <= tol.ulps_lo
    if tol.atol_lo is not None:
        passes |= abs_hi <= tol.atol_lo
    fails = np.ones(n, dtype=bool)
    if tol.ulps_hi is not None:
        fails &= ulps_lo > tol.ulps_hi
    if tol.atol_hi is not None:
        fails &= abs_lo > tol.atol_hi
    status = np.full(n, UNDECIDED, dtype=np.int8)
    status[ok & passes] = PASS
    status[ok & fails & ~passes] = FAIL
    return status


def _decide(ys: np.ndarray, s: np.ndarray, c: np.ndarray, bound: np.ndarray,
            scale: np.ndarray, fmt: BinaryFormat, tol: Tolerance) -> Screen:
    with np.errstate(all="ignore"):
        Y = np.ldexp(ys, -scale)
        ok = np.isfinite(Y) & (np.ldexp(Y, scale) == ys) & np.isfinite(s) & np.isfinite(c)
        # the binade of f = 2^E (s + c + delta), |delta| <= bound, from exact distances of
        # |s| to the powers of two around it (module docstring)
        a_s = np.abs(s)
        cs = np.where(s < 0, -c, c)
        K = np.frexp(a_s)[1].astype(np.int64)
        lowb, topb = np.ldexp(0.5, K), np.ldexp(1.0, K)
        W2 = bound * _UP
        d_low = (a_s - lowb) + cs               # f - 2^(K-1), up to W2 and its rounding
        d_top = (topb - a_s) - cs               # 2^K - f
        h_low = np.ldexp(1.0, K - fmt.p - 2)    # half an ulp below 2^(K-1)
        h_top = np.ldexp(1.0, K - fmt.p - 1)    # half an ulp below 2^K
        m_low = (W2 + 2 * _U * (np.abs(d_low) + h_low)) * _UP
        m_top = (W2 + 2 * _U * (np.abs(d_top) + h_top)) * _UP
        in_k = (d_low + h_low) > m_low           # RN(f) >= 2^(K-1)
        below = (-d_low - h_low) > m_low         # RN(f) < 2^(K-1): binade K - 1
        top_ok = (d_top - h_top) > m_top         # RN(f) < 2^K
        up = (h_top - d_top) > m_top             # RN(f) >= 2^K: binade K + 1
        Ku = K + scale
        same_down = (Ku - 1) <= fmt.emin         # binades K - 1 and K share their ulp
        same_up = Ku <= fmt.emin                 # binades K and K + 1 share their ulp
        Kb = np.where(below & ~same_down, K - 1, np.where(up & ~same_up, K + 1, K))
        # f within a quarter binade of |s|: at most one binade away
        binade_ok = (a_s > 0) & (W2 < lowb / 4) & (np.abs(cs) < lowb / 4) & (
            below | up | ((in_k | same_down) & (top_ok | same_up)))
        ok &= binade_ok & ((Kb + scale) <= fmt.emax + 1)
        qexp = np.maximum(Kb + scale - 1, fmt.emin) - (fmt.p - 1) - scale   # log2 ulp, scaled
        eh, el = two_sum(Y, -s)
        g = el - c
        D = eh + g
        aD = np.abs(D)
        W = (bound + _U * np.abs(g) + _U * aD) * _UP
        hi = (aD + W) * _UP
        lo = np.maximum((aD - W) * _DOWN, 0.0)
        ulps_hi = np.ldexp(hi, -qexp)
        ulps_lo = np.ldexp(lo, -qexp)
        abs_hi = np.ldexp(hi, scale)
        abs_lo = np.ldexp(lo, scale)
        # ldexp into the subnormal range rounds: widen by one subnormal spacing
        for hi_, lo_ in ((ulps_hi, ulps_lo), (abs_hi, abs_lo)):
            small = hi_ < 2.0 ** -1000
            hi_[small] += _TINY
            small = lo_ < 2.0 ** -1000
            lo_[small] = np.maximum(lo_[small] - _TINY, 0.0)
        ok &= np.isfinite(D)   # an overflowing bound is +inf: still a bound
    status = limit_status(ulps_lo, ulps_hi, abs_lo, abs_hi, ok, tol)
    nan = ~ok
    for arr in (ulps_lo, ulps_hi, abs_lo, abs_hi):
        arr[nan] = np.nan
    # a NaN output where the reference is defined (a model or a value exists), or an
    # infinite one where it rounds to a finite number, errs infinitely
    bad = ~np.isfinite(ys) & binade_ok & np.isfinite(s) & np.isfinite(c) & (
        np.isnan(ys) | ((Kb + scale) <= fmt.emax))
    status[bad] = FAIL
    for arr in (ulps_lo, ulps_hi, abs_lo, abs_hi):
        arr[bad] = np.inf
    # the reference rounds to +-inf (f >= 2^(emax+1)) and so does the output: no error
    inf_ok = binade_ok & np.isfinite(s) & ((Kb + scale) >= fmt.emax + 2) & np.isinf(ys) & (
        np.sign(ys) == np.sign(s))
    status[inf_ok] = PASS
    for arr in (ulps_lo, ulps_hi, abs_lo, abs_hi):
        arr[inf_ok] = 0.0
    return Screen(status, ulps_lo, ulps_hi, abs_lo, abs_hi)


def screen_values(ys: np.ndarray, refs: np.ndarray, fmt: BinaryFormat,
                  tol: Tolerance, bound: np.ndarray | None = None) -> Screen:
    """The screen against reference *values* (a float reference, taken as exact, or
    within ``bound`` of the true value when its error is declared)."""
    z = np.zeros(ys.size)
    return _decide(ys, np.asarray(refs, dtype=np.float64), z, z if bound is None else bound,
                   np.zeros(ys.size, np.int64), fmt, tol)


def _error_at(eb: np.ndarray, k: np.ndarray, at: np.ndarray) -> np.ndarray:
    """``sum_j eb_j |t|^j`` by Horner in floats, rounded up: nonnegative terms, so the
    relative rounding error is below ``(2N) 2^-53``, covered by ``2^-40``."""
    acc = eb[-1][k].copy()
    for row in eb[-2::-1]:
        acc *= at
        acc += row[k]
    return acc * (1 + 2.0 ** -40) + 2.0 ** -1070


def screen_models(xs: np.ndarray, ys: np.ndarray, pieces: list[Piece], fmt: BinaryFormat,
                  tol: Tolerance) -> Screen:
    """The screen of sorted points ``xs`` with outputs ``ys`` against piece models; points
    of pieces without a model are undecided."""
    out = Screen.undecided(xs.size)
    by_order: dict[int, list[Piece]] = {}
    for p in pieces:
        if p.model is not None:
            by_order.setdefault(p.model.bh.size, []).append(p)
    for pcs in by_order.values():
        models = [p.model for p in pcs if p.model is not None]
        idx = np.concatenate([np.arange(p.start, p.stop) for p in pcs])
        pid = np.repeat(np.arange(len(pcs)), [p.stop - p.start for p in pcs])
        m = np.array([q.m for q in models])
        rho = np.array([q.rho for q in models], dtype=np.int64)
        scale = np.array([q.scale for q in models], dtype=np.int64)
        bh = np.array([q.bh for q in models]).T.copy()   # one row per power of t
        bl = np.array([q.bl for q in models]).T.copy()
        eb = np.array([q.eb for q in models]).T.copy()
        # the recurrences make ~20 passes per coefficient over each chunk
        for a in range(0, idx.size, _CHUNK):
            ii, k = idx[a:a + _CHUNK], pid[a:a + _CHUNK]
            t = np.ldexp(xs[ii] - m[k], -rho[k])   # exact: same binade (models docstring)
            s, c = comp_horner([row[k] for row in bh], [row[k] for row in bl], t)
            part = _decide(ys[ii], s, c, _error_at(eb, k, np.abs(t)), scale[k], fmt, tol)
            out.status[ii] = part.status
            out.ulps_lo[ii], out.ulps_hi[ii] = part.ulps_lo, part.ulps_hi
            out.abs_lo[ii], out.abs_hi[ii] = part.abs_lo, part.abs_hi
    return out
