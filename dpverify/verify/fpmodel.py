"""The checker's own model of IEEE 754 binary formats (binary64, binary32), round to nearest
even.

Exact integer arithmetic only.  A format is ``(p, emin, emax)``: binary64 ``(53, -1022,
1023)``, binary32 ``(24, -126, 127)``.  Facts (docs/certificates.md, kind ``evalbound``):

* ``|v| <= 2^E`` (``E <= emax``) implies ``|fl(v) - v| <= 2^(max(E, emin + 1) - p - 1)``
  (binary64: ``2^(max(E, -1021) - 54)``) and excludes overflow;
* *FIX*: ``v`` is an integer multiple of ``2^F``; a number of the format has
  ``F = emin - p + 1`` (``-1074``, ``-149``), and ``F = max(L, emin) - p + 1`` when
  ``|y| >= 2^L``; ``fl(v)`` keeps ``max(F(v), emin - p + 1)``; ``v`` with
  ``F >= emin - p + 1`` and ``|v| <= 2^(F + p)`` is a number of the format.

:meth:`Fmt.nearest` rounds an exact rational to the format (ties to even) in integers; it
is used to emulate evaluations exactly at sample points (a refutation search), to round a
Chebyshev domain and to round the decimal literals of programs.
"""

from __future__ import annotations

from dataclasses import dataclass

from flint import fmpq, fmpz

__all__ = ["ZERO", "LOWEST", "TOP", "Fmt", "B64", "B32", "FMTS", "pow2", "clog2", "flog2",
           "half_ulp", "fix", "fix_range", "is_binary64", "nearest", "ceil64", "floor64",
           "pow2_abs"]

#: the FIX of the exact value 0 (a multiple of every power of two)
ZERO = 1 << 40
#: the FIX of every binary64 number
LOWEST = -1074
#: the largest exponent a binary64 claim ``|v| <= 2^E`` may state (no overflow below it)
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


def fix(c: fmpq) -> int:
    """The lowest set bit of a dyadic ``c`` (:data:`ZERO` for 0)."""
    if c == 0:
        return ZERO
    p, q = int(c.p), int(c.q)
    return ((p & -p).bit_length() - 1) - (q.bit_length() - 1)


def pow2_abs(c: fmpq) -> bool:
    """``|c| = 2^j`` for an integer ``j``."""
    p, q = abs(int(c.p)), int(c.q)
    return p > 0 and p & (p - 1) == 0 and q & (q - 1) == 0


@dataclass(frozen=True)
class Fmt:
    """A binary format: ``p`` significand bits, exponents ``emin..emax``."""

    name: str
    p: int
    emin: int
    emax: int

    @property
    def lowest(self) -> int:
        """The FIX of every number of the format (the subnormal spacing's exponent)."""
        return self.emin - self.p + 1

    def half_ulp(self, e: int) -> fmpq:
        """The rounding error bound of a result ``|v| <= 2^e``."""
        return pow2(max(e, self.emin + 1) - self.p - 1)

    def ulp(self, y: fmpq) -> fmpq:
        """The spacing of the format in the binade of ``y != 0``."""
        return pow2(max(flog2(abs(y)), self.emin) - self.p + 1)

    def fix_range(self, lo: fmpq, hi: fmpq) -> int:
        """The FIX of the numbers of the format in ``[lo, hi]`` (:data:`ZERO` when 0 is
        the only one)."""
        if lo <= 0 <= hi:
            tiny = pow2(self.lowest)
            return ZERO if -tiny < lo and hi < tiny else self.lowest
        return max(flog2(min(abs(lo), abs(hi))), self.emin) - self.p + 1

    def after(self, fv: int, low: int | None) -> int:
        """The FIX of ``fl(v)`` from ``F(v)`` and, when known, ``|v| >= 2^low``."""
        if fv == ZERO:
            return ZERO
        out = max(fv, self.lowest)
        return out if low is None else max(out, max(low, self.emin) - self.p + 1)

    def exact(self, fv: int, e: int) -> bool:
        """``v`` with FIX ``fv`` and ``|v| <= 2^e`` is a number of the format."""
        return fv >= self.lowest and e <= fv + self.p

    def nearest(self, v: fmpq) -> fmpq | None:
        """``v`` rounded to the nearest number of the format, ties to even; None on
        overflow."""
        if v == 0:
            return fmpq(0)
        a = abs(v)
        e = max(flog2(a), self.emin) - self.p + 1  # the spacing of the binade of |v|
        scaled = a / pow2(e)
        m = int(scaled.floor())
        rest = scaled - m
        if rest > fmpq(1, 2) or (rest == fmpq(1, 2) and m % 2):
            m += 1
        out = fmpq(m) * pow2(e)
        if out >= pow2(self.emax + 1):
            return None
        return out if v > 0 else -out

    def is_member(self, c: fmpq) -> bool:
        return self.nearest(c) == c

    def succ(self, x: fmpq) -> fmpq:
        """The next number of the format above the number ``x``."""
        if x == 0:
            return pow2(self.lowest)
        if x > 0:
            return x + self.ulp(x)
        y = -x
        e = flog2(y)
        below = e - 1 if y == pow2(e) and e > self.emin else e
        return -(y - pow2(max(below, self.emin) - self.p + 1))

    def ceil(self, v: fmpq) -> fmpq:
        """The least number of the format ``>= v`` (``|v| < 2^emax``)."""
        if v == 0:
            return v
        if v < 0:
            return -self.floor(-v)
        s = self.ulp(v)
        return fmpq((v / s).ceil()) * s

    def floor(self, v: fmpq) -> fmpq:
        """The greatest number of the format ``<= v`` (``|v| < 2^emax``)."""
        if v == 0:
            return v
        if v < 0:
            return -self.ceil(-v)
        s = self.ulp(v)
        return fmpq((v / s).floor()) * s


B64 = Fmt("binary64", 53, -1022, 1023)
B32 = Fmt("binary32", 24, -126, 127)
#: the formats a statement may name
FMTS = {"binary64": B64, "binary32": B32}


def half_ulp(e: int) -> fmpq:
    return B64.half_ulp(e)


def fix_range(lo: fmpq, hi: fmpq) -> int:
    """The FIX of the binary64 numbers of ``[lo, hi]``."""
    return B64.fix_range(lo, hi)


def nearest(v: fmpq) -> fmpq | None:
    """``v`` rounded to the nearest binary64 number, ties to even; None on overflow."""
    return B64.nearest(v)


def is_binary64(c: fmpq) -> bool:
    return B64.is_member(c)


def ceil64(v: fmpq) -> fmpq:
    """The least binary64 number ``>= v`` (``|v| < 2^1023``)."""
    return B64.ceil(v)


def floor64(v: fmpq) -> fmpq:
    """The greatest binary64 number ``<= v`` (``|v| < 2^1023``)."""
    return B64.floor(v)
