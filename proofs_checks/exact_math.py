"""Exact integer helpers shared by the ledger checks (no floats decide)."""

from __future__ import annotations

import math

from flint import arb, fmpq

__all__ = ["ceil_sqrt", "ceil_ln"]


def ceil_sqrt(x: fmpq) -> int:
    """Least integer N >= 0 with N^2 >= x."""
    n = math.isqrt(int(x.p) // int(x.q))
    while fmpq(n) ** 2 < x:
        n += 1
    while n > 0 and fmpq(n - 1) ** 2 >= x:
        n -= 1
    return n


def ceil_ln(x: fmpq) -> int:
    """ceil(ln x) for rational x > 1 (e^j irrational for j >= 1: arb decides)."""
    j = 0
    while not arb(j).exp() > arb(x):
        if j and not arb(j).exp() < arb(x):
            raise ValueError("undecided")
        j += 1
    return j
