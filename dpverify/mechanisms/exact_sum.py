"""Exact sums of float values, whatever their order or split into blocks.

A release that sums per-row float values must not depend on how the rows are cut into
blocks or files, nor on their order (a float sum does: rounding depends on the order).
:func:`exact_sums` adds binary64 (or binary32) values exactly in integers.

Guarantee
---------
Exact: the result is the rational sum of the values, a function of their multiset.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from flint import fmpq

from ..errors import InvalidParameterError, ParameterTypeError

__all__ = ["exact_sums"]

_BAND = 8  # exponents per band: a mantissa shifted within its band stays below 2^61
_LIMB = 30


def exact_sums(values: Any) -> list[fmpq]:
    """The exact sum of each row of a 2-D array of finite float64 (or float32) values.

    Each value is ``M 2^E`` with an integer ``|M| < 2^53`` (``frexp``); values whose
    exponents share a band of 8 are shifted to the band's base (``< 2^61``) and split into
    two limbs below ``2^31``, summed in int64 (at most ``2^20`` columns: no overflow), and
    the band sums are combined as Python integers.

    Guarantee
    ---------
    Exact; a function of the multiset of each row's values (any order, any split of the
    columns gives the same sum).

    Examples
    --------
    >>> import numpy as np
    >>> exact_sums(np.array([[0.1, 0.2, 2.0**-1074]]))[0] == (fmpq(3602879701896397, 2**55)
    ...     + fmpq(3602879701896397, 2**54) + fmpq(1, 2**1074))
    True
    """
    V = np.asarray(values)
    if V.ndim != 2:
        raise InvalidParameterError(f"values must be a 2-D array, got shape {V.shape}")
    if V.dtype not in (np.float64, np.float32):
        raise ParameterTypeError(f"values must be float64 or float32, got {V.dtype}")
    V = V.astype(np.float64)  # exact: binary32 numbers are binary64 numbers
    if not np.all(np.isfinite(V)):
        raise InvalidParameterError("values must be finite")
    base = 1126  # frexp of 2^-1074 is 0.5 * 2^-1073: M = 2^52, E = -1126
    totals = [0] * V.shape[0]
    for c0 in range(0, V.shape[1], 1 << 20):
        m, e = np.frexp(V[:, c0:c0 + (1 << 20)])
        M = np.ldexp(m, 53).astype(np.int64)  # exact integers, |M| < 2^53
        E = e.astype(np.int64) - 53 + base  # >= 0
        band = E // _BAND
        S = M << (E - band * _BAND)  # |S| < 2^61
        hi, lo = S >> _LIMB, S & ((1 << _LIMB) - 1)
        for b in np.unique(band[M != 0]):
            mask = band == b
            sh = np.where(mask, hi, 0).sum(axis=1).tolist()
            sl = np.where(mask, lo, 0).sum(axis=1).tolist()
            shift = int(b) * _BAND
            for i, (x, y) in enumerate(zip(sh, sl)):
                if x or y:
                    totals[i] += ((x << _LIMB) + y) << shift
    return [fmpq(t, 1 << base) for t in totals]
