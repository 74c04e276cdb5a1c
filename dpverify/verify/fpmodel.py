"""The checker's own model of IEEE 754 binary64 (round to nearest, ties to even).

Exact integer arithmetic only.  Facts (docs/certificates.md, kind ``evalbound``):

* ``|v| <= 2^E`` (``E <= 1023``) implies ``|fl(v) - v| <= 2^(max(E, -1021) - 54)``;
* *FIX*: ``v`` is an integer multiple of ``2^F``; a binary64 number ``y`` has
  ``F = -1074``, and ``F = max(L, -1022) - 52`` when ``|y| >= 2^L``; ``fl(v)`` keeps
  ``max(F(v), -1074)``; ``v`` with ``F >= -1074`` and ``|v| <= 2^(F + 53)`` is a binary64
  number.

:func:`nearest` rounds an exact rational to binary64 (ties to even) in integers; it is
used to emulate the evaluation exactly at sample points (a refutation search) and to round
a Chebyshev domain.
"""

from __future__ import annotations

from flint import fmpq, fmpz

__all__ = ["ZERO", "LOWEST", "TOP", "pow2", "clog2", "flog2", "half_ulp", "fix", "fix_range",
           "is_binary64", "nearest", "ceil64", "floor64", "pow2_abs"]

#: the FIX of the exact value 0 (a multiple of every power of two)
ZERO = 1 << 40
#: the FIX of every binary64 number
LOWEST = -1074
#: the largest exponent a claim ``|v| <= 2^E`` may state (no overflow below it)
TOP = 1023


def pow2(k: int) -> fmpq:
    return fmpq(fmpz(2) ** k) if k >= 0 else fmpq(1, fmpz(2) ** (-k))


def clog2(v: fmpq) -> int:
    """The least ``E`` with ``v <= 2^E`` (``v > 0``)."""
    e = int(v.p).bit_length() - int(v.q).bit_length()
    return e if v <= pow2(e) else e + 1


def flog2(v: fmpq) -> int:
    """The greatest ``L`` with ``2^L <= v`` (``v > 0``)."""
    e = int(v.p).bit_length() - int(v.q).bit_length()
    return e if pow2(e) <= v else e - 1


def half_ulp(e: int) -> fmpq:
    return pow2(max(e, -1021) - 54)


def fix(c: fmpq) -> int:
    """The lowest set bit of a dyadic ``c`` (:data:`ZERO` for 0)."""
    if c == 0:
        return ZERO
    p, q = int(c.p), int(c.q)
    return ((p & -p).bit_length() - 1) - (q.bit_length() - 1)


def fix_range(lo: fmpq, hi: fmpq) -> int:
    """The FIX of the binary64 numbers of ``[lo, hi]`` (:data:`ZERO` when 0 is the only
    one)."""
    if lo <= 0 <= hi:
        return ZERO if -pow2(LOWEST) < lo and hi < pow2(LOWEST) else LOWEST
    return max(flog2(min(abs(lo), abs(hi))), -1022) - 52


def pow2_abs(c: fmpq) -> bool:
    """``|c| = 2^j`` for an integer ``j``."""
    p, q = abs(int(c.p)), int(c.q)
    return p > 0 and p & (p - 1) == 0 and q & (q - 1) == 0


def nearest(v: fmpq) -> fmpq | None:
    """``v`` rounded to the nearest binary64 number, ties to even; None on overflow."""
    if v == 0:
        return v
    a = abs(v)
    e = max(flog2(a), -1022) - 52  # the spacing of the binade of |v|
    scaled = a / pow2(e)
    m = int(scaled.floor())
    rest = scaled - m
    if rest > fmpq(1, 2) or (rest == fmpq(1, 2) and m % 2):
        m += 1
    out = fmpq(m) * pow2(e)
    if out >= pow2(1024):
        return None
    return out if v > 0 else -out


def is_binary64(c: fmpq) -> bool:
    return nearest(c) == c


def _spacing(v: fmpq) -> fmpq:
    return pow2(max(flog2(abs(v)), -1022) - 52)


def ceil64(v: fmpq) -> fmpq:
    """The least binary64 number ``>= v`` (``|v| < 2^1023``)."""
    if v == 0:
        return v
    if v < 0:
        return -floor64(-v)
    s = _spacing(v)
    return fmpq((v / s).ceil()) * s


def floor64(v: fmpq) -> fmpq:
    """The greatest binary64 number ``<= v`` (``|v| < 2^1023``)."""
    if v == 0:
        return v
    if v < 0:
        return -ceil64(-v)
    s = _spacing(v)
    return fmpq((v / s).floor()) * s
