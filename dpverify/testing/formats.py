"""The IEEE 754 binary formats a checked implementation computes in: binary64 and binary32.

A :class:`BinaryFormat` knows its precision ``p`` (significand bits, hidden bit included)
and exponent range; :func:`round_nearest` rounds an exact rational to the nearest number of
the format (ties to even, ``+-inf`` beyond the largest finite number), in integer
arithmetic; :func:`ulp_exponent` gives the unit in the last place of a format number;
:func:`to_ordinal` / :func:`from_ordinal` number the finite floats of a format in order
(``-0`` and ``+0`` share the number 0), which is how the search counts, enumerates and
samples them uniformly over the representable numbers.

Conventions
-----------
``ulp(v)`` is ``2^(e - p + 1)`` for ``2^e <= |v| < 2^(e+1)`` and ``e >= emin``, and
``2^(emin - p + 1)`` (the subnormal spacing) below ``2^emin`` and at 0: ``math.ulp`` for
binary64.  The ulp of ``+-inf`` is that of the largest finite number.

Guarantee
---------
Exact: :func:`round_nearest` decides in integer arithmetic (checked against Python's
correctly rounded ``int / int`` for binary64 and numpy's float64 -> float32 cast in the
tests).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
from flint import fmpq

from ..errors import InvalidParameterError, ParameterTypeError

__all__ = [
    "BinaryFormat",
    "BINARY64",
    "BINARY32",
    "binary_format",
    "round_nearest",
    "ulp_exponent",
    "to_ordinal",
    "from_ordinal",
    "floor_log2",
    "pow2",
]


@dataclass(frozen=True)
class BinaryFormat:
    """An IEEE 754 binary interchange format (round to nearest, ties to even)."""

    name: str
    dtype: Any
    p: int          # significand bits, the hidden bit included
    emin: int       # exponent of the smallest normal number 2^emin
    emax: int       # exponent of the largest binade [2^emax, 2^(emax+1))
    int_dtype: Any  # the integer type of the same width (bit patterns)

    @property
    def unit(self) -> float:
        """The unit roundoff ``2^-p``."""
        return math.ldexp(1.0, -self.p)

    @property
    def max_finite(self) -> float:
        return math.ldexp(2.0 - math.ldexp(1.0, 1 - self.p), self.emax)

    def ulp_of_float(self, v: float) -> fmpq:
        """The ulp of the format number ``v`` (of the largest finite number for +-inf)."""
        return pow2(ulp_exponent(v, self))


BINARY64 = BinaryFormat("binary64", np.float64, 53, -1022, 1023, np.int64)
BINARY32 = BinaryFormat("binary32", np.float32, 24, -126, 127, np.int32)


def pow2(k: int) -> fmpq:
    """``2^k`` as an exact rational."""
    return fmpq(1 << k) if k >= 0 else fmpq(1, 1 << -k)


def binary_format(dtype: Any) -> BinaryFormat:
    """The format of ``dtype``: ``numpy.float64`` (or ``float``) or ``numpy.float32``."""
    try:
        dt = np.dtype(dtype)
    except TypeError:
        raise ParameterTypeError(f"dtype must be numpy.float64 or numpy.float32, got "
                                 f"{dtype!r}") from None
    if dt == np.float64:
        return BINARY64
    if dt == np.float32:
        return BINARY32
    raise InvalidParameterError(f"dtype must be numpy.float64 or numpy.float32, got {dt}")


def floor_log2(num: int, den: int) -> int:
    """``floor(log2(num / den))`` for positive integers, exactly."""
    e = num.bit_length() - den.bit_length()
    if (num >= den << e) if e >= 0 else (num << -e >= den):
        return e
    return e - 1


def round_nearest(q: Any, fmt: BinaryFormat = BINARY64) -> float:
    """The number of ``fmt`` nearest to the exact rational ``q`` (ties to even), as a Python
    float (exact: every binary32 number is a binary64 number); ``+-inf`` when ``|q|``
    rounds beyond the largest finite number.

    >>> round_nearest(fmpq(1, 3)) == 1 / 3, round_nearest(fmpq(1, 3), BINARY32)
    (True, 0.3333333432674408)
    """
    q = fmpq(q)
    if q == 0:
        return 0.0
    num, den = abs(int(q.p)), int(q.q)
    sign = -1.0 if q < 0 else 1.0
    e = max(floor_log2(num, den), fmt.emin)
    qe = e - (fmt.p - 1)                       # the quantum 2^qe of the binade
    if qe >= 0:
        n, rem = divmod(num, den << qe)
        half = (den << qe)
    else:
        n, rem = divmod(num << -qe, den)
        half = den
    if 2 * rem > half or (2 * rem == half and n & 1):
        n += 1
    if n.bit_length() + qe > fmt.emax + 1:     # n 2^qe >= 2^(emax+1): beyond the format
        return sign * math.inf
    return sign * math.ldexp(float(n), qe)


def ulp_exponent(v: float, fmt: BinaryFormat = BINARY64) -> int:
    """``log2`` of the ulp of the ``fmt`` number ``v`` (module docstring); +-inf counts as
    the largest finite number."""
    if math.isinf(v):
        return fmt.emax - fmt.p + 1
    if v == 0:
        return fmt.emin - fmt.p + 1
    e = math.frexp(v)[1] - 1                   # 2^e <= |v| < 2^(e+1)
    return max(e, fmt.emin) - fmt.p + 1


def to_ordinal(xs: np.ndarray, fmt: BinaryFormat) -> np.ndarray:
    """The position of each finite number of ``fmt`` in the ordered list of all of them
    (0 for both zeros, consecutive floats differ by 1), as int64."""
    bits = np.ascontiguousarray(xs, dtype=fmt.dtype).view(fmt.int_dtype).astype(np.int64)
    mask = (1 << (8 * np.dtype(fmt.int_dtype).itemsize - 1)) - 1
    return np.where(bits >= 0, bits, -(bits & mask))


def from_ordinal(ns: np.ndarray, fmt: BinaryFormat) -> np.ndarray:
    """Inverse of :func:`to_ordinal`: the ``fmt`` numbers (as float64 arrays)."""
    ns = np.asarray(ns, dtype=np.int64)
    if fmt.int_dtype == np.int32:
        bits32 = np.where(ns >= 0, ns, (-ns) | (1 << 31)).astype(np.uint32)
        return bits32.view(np.float32).astype(np.float64)
    bits = np.where(ns >= 0, ns, (-ns) | np.int64(-(2**63)))
    return bits.view(np.float64).copy()
