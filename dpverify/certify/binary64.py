"""The binary64 rounding model of :mod:`.evalbound`, in exact integer arithmetic.

IEEE 754 binary64 with rounding to nearest (ties to even): 53-bit significands, normal
exponents -1022..1023, subnormals down to ``2^-1074``.  Every function here is exact (Python
integers and ``fmpq``); nothing is a float.

Facts used (each follows from the definition of the format):

* **Binade bound.**  If the exact result ``v`` of an operation satisfies ``|v| <= 2^E``
  (``E <= 1023``), then ``|fl(v) - v| <= 2^(max(E, -1021) - 54)``: below ``2^E`` the
  spacing of binary64 numbers is at most ``2^(E - 53)`` (at least the subnormal spacing
  ``2^-1074``), and ``2^E`` itself is representable.  This is half an ulp of the largest
  binade the value can reach, never more than the relative bound ``u |v|``
  (``u = 2^-53``), and it covers gradual underflow without a separate absolute term.
* **Fixed-point exponent (FIX).**  Call ``F(v)`` an integer such that ``v`` is an integer
  multiple of ``2^F``.  A binary64 number ``y`` with ``|y| >= 2^L`` has
  ``F = max(L, -1022) - 52``; every binary64 number has ``F = -1074``; a coefficient has
  the exponent of its lowest set bit.  ``F(a b) = F(a) + F(b)``,
  ``F(a +- b) = min(F(a), F(b))``, and rounding keeps the FIX:
  ``F(fl(v)) = max(F(v), -1074)`` (the result is a multiple of the coarser of the two
  grids).  If ``|v| >= 2^L`` then ``|fl(v)| >= 2^L`` (rounding is monotone and ``2^L`` is
  representable), so ``F(fl(v)) >= max(L, -1022) - 52`` as well.
* **Exact operations.**  ``v`` is representable, so ``fl(v) = v``, when
  ``F(v) >= -1074`` and ``|v| <= 2^(F(v) + 53)`` (then ``v = N 2^F`` with
  ``|N| <= 2^53``); when one operand is the constant 0; and when ``v`` is a binary64
  number times or divided by a power of two and ``F(v) >= -1074`` (53 significant bits
  at most, on the grid of the format).
"""

from __future__ import annotations

from flint import fmpq, fmpz

__all__ = ["ZERO_FIX", "MIN_FIX", "MAX_EXP", "ceil_log2", "floor_log2", "half_ulp",
           "fix_of", "fix_of_range", "fix_after_rounding", "exact_by_fix", "power_of_two",
           "is_binary64", "binary64_ceil", "binary64_floor"]

#: the FIX of the constant 0 (a multiple of every power of two)
ZERO_FIX = 1 << 40
#: the FIX of every binary64 number (the subnormal spacing)
MIN_FIX = -1074
#: the largest ``E`` allowed for ``|v| <= 2^E``: ``2^1023`` is representable and every
#: ``|v| <= 2^1023`` rounds to a finite number (no overflow)
MAX_EXP = 1023


def ceil_log2(v: fmpq) -> int:
    """The least integer ``E`` with ``v <= 2^E`` (``v > 0``)."""
    p, q = int(v.p), int(v.q)
    e = p.bit_length() - q.bit_length()  # 2^(e-1) < p/q < 2^(e+1)
    return e if ((p <= q << e) if e >= 0 else (p << -e) <= q) else e + 1


def floor_log2(v: fmpq) -> int:
    """The greatest integer ``L`` with ``2^L <= v`` (``v > 0``)."""
    p, q = int(v.p), int(v.q)
    e = p.bit_length() - q.bit_length()
    return e if ((p >= q << e) if e >= 0 else (p << -e) >= q) else e - 1


def half_ulp(e: int) -> fmpq:
    """``2^(max(E, -1021) - 54)``: the rounding error bound when ``|v| <= 2^E``."""
    k = max(e, -1021) - 54
    return fmpq(fmpz(2) ** k) if k >= 0 else fmpq(1, fmpz(2) ** (-k))


def fix_of(c: fmpq) -> int:
    """The FIX of an exact dyadic constant: its lowest set bit (ZERO_FIX for 0)."""
    if c == 0:
        return ZERO_FIX
    p, q = int(c.p), int(c.q)
    if q & (q - 1):
        raise ValueError("fix_of: not a dyadic rational")
    return ((p & -p).bit_length() - 1) - (q.bit_length() - 1)


def fix_of_range(lo: fmpq, hi: fmpq) -> int:
    """The FIX of every binary64 number in ``[lo, hi]``: ZERO_FIX when 0 is the only one
    (``|lo|, |hi| < 2^-1074``), ``-1074`` when the interval contains 0, else
    ``max(floor(log2 min |y|), -1022) - 52``."""
    if lo <= 0 <= hi:
        tiny = fmpq(1, fmpz(2) ** -MIN_FIX)
        return ZERO_FIX if -tiny < lo and hi < tiny else MIN_FIX
    return max(floor_log2(min(abs(lo), abs(hi))), -1022) - 52


def fix_after_rounding(f: int, low: int | None) -> int:
    """The FIX of ``fl(v)`` from ``F(v)`` and, when known, ``|v| >= 2^low``."""
    if f >= ZERO_FIX // 2:
        return ZERO_FIX
    out = max(f, MIN_FIX)
    if low is not None:
        out = max(out, max(low, -1022) - 52)
    return out


def exact_by_fix(f: int, e: int) -> bool:
    """``v`` with FIX ``f`` and ``|v| <= 2^e`` is a binary64 number."""
    return MIN_FIX <= f and e <= f + 53


def power_of_two(c: fmpq) -> bool:
    """``|c|`` is a power of two (of any sign of exponent)."""
    p, q = abs(int(c.p)), int(c.q)
    return p > 0 and not p & (p - 1) and not q & (q - 1)


def is_binary64(c: fmpq) -> bool:
    """``c`` is a finite binary64 number."""
    if c == 0:
        return True
    p, q = abs(int(c.p)), int(c.q)
    if q & (q - 1):
        return False
    f = fix_of(c)
    if f < MIN_FIX:
        return False
    top = floor_log2(abs(c))
    return top <= 1023 and p >> ((p & -p).bit_length() - 1) < 2**53 and top - f <= 52


def _step_at(v: fmpq) -> fmpq:
    """The spacing of binary64 numbers in the binade of ``v != 0``."""
    k = max(floor_log2(abs(v)), -1022) - 52
    return fmpq(fmpz(2) ** k) if k >= 0 else fmpq(1, fmpz(2) ** (-k))


def binary64_ceil(v: fmpq) -> fmpq:
    """The least binary64 number ``>= v`` (``|v| < 2^1024``)."""
    if v == 0:
        return v
    if v < 0:
        return -binary64_floor(-v)
    s = _step_at(v)
    return (v / s).ceil() * s


def binary64_floor(v: fmpq) -> fmpq:
    """The greatest binary64 number ``<= v`` (``|v| < 2^1024``)."""
    if v == 0:
        return v
    if v < 0:
        return -binary64_ceil(-v)
    s = _step_at(v)
    return fmpq((v / s).floor()) * s
