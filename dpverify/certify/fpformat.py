"""IEEE 754 binary formats (binary64, binary32) and their rounding model, in exact arithmetic.

A :class:`Format` is ``(precision p, emin, emax)``: the finite numbers are ``0`` and
``+-M 2^(e - p + 1)`` with ``emin <= e <= emax``, ``2^(p-1) <= M < 2^p`` (normal) or
``e = emin``, ``0 < M < 2^(p-1)`` (subnormal).  binary64: ``(53, -1022, 1023)``;
binary32: ``(24, -126, 127)``.  Rounding is to nearest, ties to even; every function here
is exact (Python integers and ``fmpq``); nothing is a float.

Facts used by the analyses (each follows from the definition of the format):

* **Binade bound.**  If the exact result ``v`` of an operation satisfies ``|v| <= 2^E``
  (``E <= emax``), then ``|fl(v) - v| <= 2^(max(E, emin + 1) - p - 1)``: below ``2^E`` the
  spacing of the format is at most ``2^(E - p)`` (at least the subnormal spacing
  ``2^(emin - p + 1)``), and ``2^E`` itself is representable.  This is half an ulp of the
  largest binade the value can reach, never more than the relative bound ``u |v|``
  (``u = 2^-p``), and it covers gradual underflow without a separate absolute term.
  ``|v| <= 2^emax`` also excludes overflow (``2^emax`` is a finite number of the format).
* **Fixed-point exponent (FIX).**  Call ``F(v)`` an integer such that ``v`` is an integer
  multiple of ``2^F``.  A number ``y`` of the format with ``|y| >= 2^L`` has
  ``F = max(L, emin) - p + 1``; every number of the format has ``F = emin - p + 1``
  (:attr:`Format.min_fix`); a constant has the exponent of its lowest set bit.
  ``F(a b) = F(a) + F(b)``, ``F(a +- b) = min(F(a), F(b))``, and rounding keeps the FIX:
  ``F(fl(v)) = max(F(v), min_fix)``.  If ``|v| >= 2^L`` then ``|fl(v)| >= 2^L``
  (rounding is monotone and ``2^L`` is representable), so
  ``F(fl(v)) >= max(L, emin) - p + 1`` as well.
* **Exact operations.**  ``v`` is representable, so ``fl(v) = v``, when
  ``F(v) >= min_fix`` and ``|v| <= 2^(F(v) + p)`` (then ``v = N 2^F`` with
  ``|N| <= 2^p``); when one operand is the constant 0; and when ``v`` is a number of the
  format times or divided by a power of two and ``F(v) >= min_fix``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from flint import fmpq, fmpz

from ..errors import InvalidParameterError, ParameterTypeError

__all__ = ["Format", "BINARY64", "BINARY32", "FORMATS", "ZERO_FIX", "read_format", "pow2",
           "ceil_log2", "floor_log2", "fix_of", "power_of_two"]

#: the FIX of the constant 0 (a multiple of every power of two)
ZERO_FIX = 1 << 40


def pow2(k: int) -> fmpq:
    """``2^k`` exactly (any sign of ``k``)."""
    return fmpq(fmpz(2) ** k) if k >= 0 else fmpq(1, fmpz(2) ** (-k))


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


def fix_of(c: fmpq) -> int:
    """The FIX of an exact dyadic constant: its lowest set bit (ZERO_FIX for 0)."""
    if c == 0:
        return ZERO_FIX
    p, q = int(c.p), int(c.q)
    if q & (q - 1):
        raise ValueError("fix_of: not a dyadic rational")
    return ((p & -p).bit_length() - 1) - (q.bit_length() - 1)


def power_of_two(c: fmpq) -> bool:
    """``|c|`` is a power of two (of any sign of exponent)."""
    p, q = abs(int(c.p)), int(c.q)
    return p > 0 and not p & (p - 1) and not q & (q - 1)


@dataclass(frozen=True)
class Format:
    """An IEEE 754 binary format: ``name``, ``precision`` (significand bits with the
    hidden one), ``emin`` and ``emax`` (module docstring); rounding to nearest even.

    Examples
    --------
    >>> BINARY32.nearest(fmpq(1, 10)) == fmpq(13421773, 2**27)
    True
    >>> BINARY64.half_ulp(1) == fmpq(1, 2**53), BINARY32.min_fix
    (True, -149)
    """

    name: str
    precision: int
    emin: int
    emax: int

    @property
    def min_fix(self) -> int:
        """The FIX of every number of the format: the subnormal spacing's exponent."""
        return self.emin - self.precision + 1

    @property
    def unit_roundoff(self) -> fmpq:
        """``u = 2^-p``."""
        return pow2(-self.precision)

    @property
    def largest(self) -> fmpq:
        """The largest finite number, ``(2 - 2^(1-p)) 2^emax``."""
        return (2 - pow2(1 - self.precision)) * pow2(self.emax)

    def half_ulp(self, e: int) -> fmpq:
        """``2^(max(E, emin + 1) - p - 1)``: the rounding error bound when ``|v| <= 2^E``."""
        return pow2(max(e, self.emin + 1) - self.precision - 1)

    def ulp(self, y: fmpq) -> fmpq:
        """``2^(max(floor(log2 |y|), emin) - p + 1)``: the spacing of the format in the
        binade of ``y != 0`` (monotone in ``|y|``)."""
        return pow2(max(floor_log2(abs(y)), self.emin) - self.precision + 1)

    def fix_of_range(self, lo: fmpq, hi: fmpq) -> int:
        """The FIX of every number of the format in ``[lo, hi]``: ZERO_FIX when 0 is the
        only one, :attr:`min_fix` when the interval contains 0, else
        ``max(floor(log2 min |y|), emin) - p + 1``."""
        if lo <= 0 <= hi:
            tiny = pow2(self.min_fix)
            return ZERO_FIX if -tiny < lo and hi < tiny else self.min_fix
        return max(floor_log2(min(abs(lo), abs(hi))), self.emin) - self.precision + 1

    def fix_after_rounding(self, f: int, low: int | None) -> int:
        """The FIX of ``fl(v)`` from ``F(v)`` and, when known, ``|v| >= 2^low``."""
        if f >= ZERO_FIX // 2:
            return ZERO_FIX
        out = max(f, self.min_fix)
        if low is not None:
            out = max(out, max(low, self.emin) - self.precision + 1)
        return out

    def exact_by_fix(self, f: int, e: int) -> bool:
        """``v`` with FIX ``f`` and ``|v| <= 2^e`` is a number of the format."""
        return self.min_fix <= f and e <= f + self.precision

    def nearest(self, v: fmpq) -> fmpq | None:
        """``v`` rounded to the nearest number of the format, ties to even; None when it
        overflows (rounds to an infinity)."""
        if v == 0:
            return fmpq(0)
        a = abs(v)
        e = max(floor_log2(a), self.emin) - self.precision + 1  # the spacing's exponent
        scaled = a / pow2(e)
        m = int(scaled.floor())
        rest = scaled - m
        if rest > fmpq(1, 2) or (rest == fmpq(1, 2) and m % 2):
            m += 1
        out = fmpq(m) * pow2(e)
        if out > self.largest:
            return None
        return out if v > 0 else -out

    def is_member(self, c: fmpq) -> bool:
        """``c`` is a finite number of the format."""
        return self.nearest(c) == c

    def next_up(self, x: fmpq) -> fmpq:
        """The least number of the format ``> x``, for ``x`` a number of the format."""
        if x < 0:
            y = -x
            e = floor_log2(y)
            down = e - 1 if y == pow2(e) and e > self.emin else e
            return -(y - pow2(max(down, self.emin) - self.precision + 1))
        if x == 0:
            return pow2(self.min_fix)
        return x + pow2(max(floor_log2(x), self.emin) - self.precision + 1)

    def _step(self, v: fmpq) -> fmpq:
        return pow2(max(floor_log2(abs(v)), self.emin) - self.precision + 1)

    def ceil(self, v: fmpq) -> fmpq:
        """The least number of the format ``>= v`` (``|v| <= largest``)."""
        if v == 0:
            return v
        if v < 0:
            return -self.floor(-v)
        s = self._step(v)
        return fmpq((v / s).ceil()) * s

    def floor(self, v: fmpq) -> fmpq:
        """The greatest number of the format ``<= v`` (``|v| <= largest``)."""
        if v == 0:
            return v
        if v < 0:
            return -self.ceil(-v)
        s = self._step(v)
        return fmpq((v / s).floor()) * s


BINARY64 = Format("binary64", 53, -1022, 1023)
BINARY32 = Format("binary32", 24, -126, 127)
#: the formats by name (the statements' ``format`` field)
FORMATS = {f.name: f for f in (BINARY64, BINARY32)}


def read_format(fmt: Any, name: str = "format") -> Format:
    """A :class:`Format` from itself or its name (``"binary64"``, ``"binary32"``)."""
    if isinstance(fmt, Format):
        return fmt
    if not isinstance(fmt, str):
        raise ParameterTypeError(f"{name} must be 'binary64' or 'binary32', got "
                                 f"{type(fmt).__name__}")
    if fmt not in FORMATS:
        raise InvalidParameterError(f"{name} must be 'binary64' or 'binary32', got {fmt!r}")
    return FORMATS[fmt]
