"""Exact decisions at single points: the reference value enclosed at growing precision, its
nearest number of the format decided, the error in ulps enclosed.

A reference gives, at an exact input, an enclosure ``[lo, hi]`` of its value (``lo == hi``
when the value is rational: polynomials, rational expressions, exact callables; an arb
ball for transcendental expressions).  :func:`decide_point` asks for it at
``p + 40`` bits, then doubles the precision until

* ``lo`` and ``hi`` round to the same number of the format (so the correctly rounded
  reference, and the ulp the error is measured in, are decided),
* the error interval lies on one side of every limit given, and
* the error in ulps is known to within ``2^-20`` relative,

or :data:`MAX_PRECISION` bits are reached (the point is then *undecided*: a value exactly
on a rounding boundary or a limit, which an irrational value never is).

Conventions: an output equal to the correctly rounded reference when that is ``+-inf``
errs by 0; any other non-finite output errs by ``inf``.  A reference undefined at the
point (a pole, ``log`` of 0) accepts a non-finite output and fails a finite one.

Guarantee
---------
Exact: every comparison is between exact rationals (the output's binary value and the
enclosure's ends); the enclosure contains the reference value.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Protocol

from flint import fmpq

from .formats import BinaryFormat, pow2, round_nearest, ulp_exponent

__all__ = ["PointResult", "Enclosing", "decide_point", "q_float", "MAX_PRECISION",
           "STATUSES"]

#: Highest working precision (bits) of an exact decision.
MAX_PRECISION = 1 << 13
STATUSES = ("pass", "fail", "undecided", "undefined")


class Enclosing(Protocol):
    def enclose(self, x: fmpq, prec: int) -> tuple[fmpq | None, fmpq | None] | None: ...


#: an Enclosing whose ``fixed`` attribute is True (a float reference with a declared error)
#: gives the same enclosure at every precision: decide_point decides what it can from it


@dataclass(frozen=True)
class PointResult:
    """The decision at one input.  ``ref_lo <= f(x) <= ref_hi`` (equal when exact);
    ``rounded`` is the nearest number of the format to ``f(x)``; the error of ``y`` is in
    ``[abs_lo, abs_hi]``, or ``[ulps_lo, ulps_hi]`` ulps of ``rounded``.  ``status`` is
    one of :data:`STATUSES` (``undefined``: the reference is not defined at ``x``)."""

    x: float
    y: float
    ref_lo: fmpq
    ref_hi: fmpq
    rounded: float
    ulp: fmpq
    ulps_lo: fmpq | None
    ulps_hi: fmpq | None
    abs_lo: fmpq | None
    abs_hi: fmpq | None
    status: str
    precision: int

    @property
    def exact(self) -> bool:
        return self.ref_lo == self.ref_hi

    def ulps_key(self) -> float:
        """The error in ulps as a float for ranking (``inf`` for a non-finite error)."""
        if self.ulps_hi is None:
            return math.inf
        return q_float(self.ulps_hi)


def q_float(q: fmpq) -> float:
    """``q`` rounded to a float, ``+-inf`` beyond the largest one (never OverflowError)."""
    try:
        return int(q.p) / int(q.q)
    except OverflowError:
        return math.inf if q > 0 else -math.inf


def _q(f: float) -> fmpq:
    return fmpq(*f.as_integer_ratio())


def decide_point(ref: Enclosing, x: float, y: float, fmt: BinaryFormat,
                 ulps: fmpq | None, atol: fmpq | None) -> PointResult:
    """Decide the point ``x`` with output ``y`` (module docstring)."""
    xq = _q(x)
    prec = fmt.p + 40
    last: PointResult | None = None
    while prec <= MAX_PRECISION:
        enc = ref.enclose(xq, prec)
        if enc is None:   # undefined: a non-finite output errs by 0, a finite one fails
            z = fmpq(0) if not math.isfinite(y) else None
            status = "pass" if z is not None else "undefined"
            return PointResult(x, y, fmpq(0), fmpq(0), math.nan, fmpq(0), z, z, z, z, status,
                               prec)
        lo, hi = enc
        if lo is None or hi is None:
            return _beyond(x, y, lo, hi, fmt, prec)
        last = _at(x, y, lo, hi, fmt, ulps, atol, prec, getattr(ref, "fixed", False))
        if last.status != "undecided":
            return last
        prec *= 2
    assert last is not None
    return last


def _beyond(x: float, y: float, lo: fmpq | None, hi: fmpq | None, fmt: BinaryFormat,
            prec: int) -> PointResult:
    """A reference beyond ``+-2^(2^16)`` (one end of its enclosure only): it rounds to
    ``+-inf``; the same infinity errs by 0, anything else by more than
    ``2^(2^16) - |y|`` (a lower bound; the upper end is unknown: None)."""
    sign = 1.0 if hi is None else -1.0
    bound = lo if lo is not None else -hi if hi is not None else fmpq(0)
    rounded = sign * math.inf
    ulp = pow2(ulp_exponent(rounded, fmt))
    if y == rounded:
        z = fmpq(0)
        return PointResult(x, y, bound * int(sign), bound * int(sign), rounded, ulp, z, z, z,
                           z, "pass", prec)
    a_lo = bound - (abs(_q(y)) if math.isfinite(y) else 0)
    return PointResult(x, y, bound * int(sign), bound * int(sign), rounded, ulp, a_lo / ulp,
                       None, a_lo, None, "fail", prec)


def _at(x: float, y: float, lo: fmpq, hi: fmpq, fmt: BinaryFormat, ulps: fmpq | None,
        atol: fmpq | None, prec: int, fixed: bool = False) -> PointResult:
    r_lo = round_nearest(lo, fmt)
    r_hi = r_lo if hi == lo else round_nearest(hi, fmt)
    ulp_hi = ulp = pow2(ulp_exponent(r_lo, fmt))
    if r_lo != r_hi:
        if not (fixed and math.isfinite(r_lo) and math.isfinite(r_hi)):
            return PointResult(x, y, lo, hi, math.nan, fmpq(0), None, None, None, None,
                               "undecided", prec)
        # a fixed enclosure (a float reference with a declared error) whose ends round
        # differently: the ulp of RN(f) lies between the least and the greatest ulp of
        # [r_lo, r_hi] (monotone in |v| on each side of 0); the rounded value is unknown
        ends = [pow2(ulp_exponent(v, fmt)) for v in (r_lo, r_hi)]
        ulp = pow2(ulp_exponent(0.0, fmt)) if r_lo < 0 < r_hi else min(ends)
        ulp_hi = max(ends)
    rounded = r_lo if r_lo == r_hi else math.nan
    if not math.isfinite(y):
        if y == rounded and not math.isnan(rounded):
            z = fmpq(0)
            return PointResult(x, y, lo, hi, rounded, ulp, z, z, z, z, "pass", prec)
        return PointResult(x, y, lo, hi, rounded, ulp, None, None, None, None, "fail", prec)
    yq = _q(y)
    if lo <= yq <= hi:
        a_lo, a_hi = fmpq(0), max(yq - lo, hi - yq)
    else:
        a_lo, a_hi = sorted((abs(yq - lo), abs(yq - hi)))
    u_lo, u_hi = a_lo / ulp_hi, a_hi / ulp
    surely = (ulps is not None and u_hi <= ulps) or (atol is not None and a_hi <= atol)
    maybe = (ulps is not None and u_lo <= ulps) or (atol is not None and a_lo <= atol)
    # a fixed enclosure never sharpens: decided as far as it goes (more bits cannot help)
    sharp = fixed or (u_hi - u_lo) <= u_lo / (1 << 20) or (u_hi - u_lo) <= fmpq(1, 1 << 40)
    if surely and sharp:
        status = "pass"
    elif not maybe and sharp:
        status = "fail"
    else:
        status = "undecided"
    return PointResult(x, y, lo, hi, rounded, ulp, u_lo, u_hi, a_lo, a_hi, status, prec)
