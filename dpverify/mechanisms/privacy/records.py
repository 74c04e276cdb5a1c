"""Small shared pieces of the privacy records: exact integers and rationals for JSON, and
the rounding used for every reported privacy loss (always up)."""

from __future__ import annotations

from flint import arb, fmpq, fmpz

from ...numbers import (
    arb_to_fmpq_bounds,
    fmpq_str,
    fmpq_to_decimal,
    to_fmpq,
)

__all__ = ["json_int", "upper_of", "decimal_up", "dyadic_up", "compose_basic"]


def json_int(v: int) -> int | str:
    """An exact integer for a JSON record: an ``int`` when ``|v| < 2^53`` (exact in every
    JSON reader), else its decimal string (Python refuses to print ints of more than 4300
    digits, and JSON readers would round them)."""
    return v if -(2**53) < v < 2**53 else str(fmpz(v))


def upper_of(x: arb) -> fmpq:
    """The exact upper endpoint of a ball."""
    return arb_to_fmpq_bounds(x)[1]


def decimal_up(q: fmpq) -> str:
    """``q`` rounded up to 10 significant digits."""
    return fmpq_to_decimal(q, 10, rounding="up")


def dyadic_up(q: fmpq, bits: int = 64) -> fmpq:
    """Smallest multiple of 2^-bits that is >= q (keeps denominators small)."""
    m = q * 2**bits
    return fmpq(-((-m.p) // m.q), 2**bits)


def compose_basic(parts: list[dict]) -> dict:
    """Basic composition of (epsilon, delta) records: sums (exact strings).  A record whose
    calibration fell back to the pure-epsilon scale (``used == "pure"``) contributes no
    delta.  ``epsilon_decimal_up`` is the exact sum rounded up to 10 digits."""
    eps = sum((to_fmpq(p["achieved_epsilon"], "epsilon") for p in parts), fmpq(0))
    dl = sum((to_fmpq(p.get("delta") or "0", "delta") for p in parts
              if p.get("used") != "pure"), fmpq(0))
    return {"theorem": "basic composition (Dwork-Roth Thm 3.16): epsilons and deltas add",
            "epsilon": fmpq_str(eps), "epsilon_decimal_up": fmpq_to_decimal(eps, 10, "up"),
            "delta": fmpq_str(dl)}
