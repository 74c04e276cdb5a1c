"""Sizes of exact polynomials, and the budget checks of the exact operations whose cost
follows from them (:mod:`dpverify.budget`): one FLINT call on user input can take minutes
and gigabytes and cannot be interrupted, so its cost is estimated first and the call
refused (undecided) when it would pass the time left or the memory budget.
"""

from __future__ import annotations

from collections.abc import Sequence

from flint import fmpq, fmpq_poly, fmpz, fmpz_poly

from ..budget import LINEAR_RATE, chebyshev_conversion_cost, check_cost, compose_cost, poly_size

__all__ = ["check_compose", "check_conversion", "common_denominator", "poly_of"]


def check_compose(p: fmpq_poly, alpha: fmpq, beta: fmpq, what: str = "",
                  degree: int | None = None) -> None:
    """Refuse ``p(alpha x + beta)`` when it would pass the budget in force (see
    :func:`compose_affine_poly`); ``what`` names the operation in the message, ``degree``
    (default ``deg p``) the degree the result is carried at."""
    n, bits = poly_size(p)
    if degree is not None:
        n = max(n, degree)
    if n < 64:
        return
    seconds, memory = compose_cost(n, bits, alpha, beta)
    check_cost(what or f"the exact change of variable of a degree-{n} polynomial",
               seconds=seconds, memory=memory)


def check_conversion(cs: Sequence[fmpq], what: str) -> None:
    """Refuse a Chebyshev <-> monomial conversion of the coefficients ``cs`` (``what``
    says which way) past the budget in force."""
    n = len(cs) - 1
    if n < 64:
        return
    seconds, memory = chebyshev_conversion_cost(n, _coefficient_bits(cs))
    check_cost(f"the exact conversion of a degree-{n} polynomial {what}",
               seconds=seconds, memory=memory)


def common_denominator(cs: Sequence[fmpq]) -> fmpz:
    """The least common multiple of the denominators of ``cs`` (a product tree of
    ``lcm``: ``O(M(size) log n)``, where a running ``lcm`` costs ``n`` times the size)."""
    dens = [fmpz(c.q) for c in cs] or [fmpz(1)]
    while len(dens) > 1:
        dens = [dens[i].lcm(dens[i + 1]) if i + 1 < len(dens) else dens[i]
                for i in range(0, len(dens), 2)]
    return dens[0]


def _coefficient_bits(cs: Sequence[fmpq]) -> int:
    """Bits of the largest coefficient of ``poly_of(cs)``: its numerator over the common
    denominator (an upper bound: the numerators are the ``p_i L / q_i``)."""
    top = max((int(fmpz(c.p).bit_length()) - int(fmpz(c.q).bit_length()) for c in cs
               if c != 0), default=0)
    return max(top, 0) + 2 * int(common_denominator(cs).bit_length()) + 1


def poly_of(cs: Sequence[fmpq], what: str = "") -> fmpq_poly:
    """The ``fmpq_poly`` with coefficients ``cs`` (lowest first), built over their common
    denominator in one pass.  ``fmpq_poly(list)`` sets one coefficient at a time and
    rescales the whole polynomial at each new denominator: 23 s for the 20001
    coefficients ``1/(i+1)``, 1.3 s here.

    Raises
    ------
    TimeLimitExceeded, MemoryLimitExceeded
        When the result (``n`` integers of the size of the common denominator) would pass
        the budget in force (:mod:`dpverify.budget`)."""
    n = len(cs)
    if n < 64:
        return fmpq_poly(list(cs))
    L = common_denominator(cs)
    bits = _coefficient_bits(cs)
    size = n * bits
    # linear work (one product per coefficient, then FLINT's content reduction)
    check_cost(what or f"an exact polynomial of {n} coefficients of up to {bits} bits "
               "over their common denominator", seconds=size / LINEAR_RATE, memory=size / 2)
    return fmpq_poly(fmpz_poly([fmpz(c.p) * (L // fmpz(c.q)) for c in cs]), L)
