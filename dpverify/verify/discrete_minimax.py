"""Is ``p`` *the* best approximation of its degree on a finite set?  (The minimax constructions.)

On the points ``x_0 < ... < x_M`` (``C``: the domain without the pin point ``z`` when
``p(z) = v`` is imposed), the polynomials of degree ``<= n`` (pinned: ``v + (x - z) q``,
``deg q <= n - 1``) have ``m = n + 1`` (pinned: ``n``) free coefficients; pinned, the error
is ``f - p = (x - z)(h - q)`` with ``h = (f - v)/(x - z)``, a weighted approximation of
``h`` with the positive weight ``|x - z|``.  Polynomials of degree ``<= m - 1`` form a Haar
space on any ``m`` distinct points, so (discrete alternation theorem; e.g. Rivlin, *An
Introduction to the Approximation of Functions*, Theorem 1.8 and its weighted form) when
``m <= |C|``:

* ``p`` is a best approximation iff the weighted error ``e(x) = sign(x - z) (f - p)(x)``
  (unpinned: ``f - p``) takes the value ``+-E``, ``E = max_C |f - p|``, with alternating
  signs at ``m + 1`` points of ``C`` -- sufficiency is de la Vallee Poussin's argument: any
  ``q`` with a smaller maximum would make ``q - p`` (a polynomial of the same space) change
  sign ``m`` times, i.e. have ``m`` roots;
* the best approximation is unique.

With ``E = 0``, ``p`` interpolates ``f`` on ``C``, and it is unique because ``m <= |C|``.
So a certificate whose ``p`` passes this check *is* the polynomial the minimax
construction returns at that degree (``dpverify.constructions.minimax``: the exact
discrete Remez exchange stops only at the optimum), whatever route produced it; the least
degree is the separate ``least_degree`` claim.  Exact arithmetic throughout.
"""

from __future__ import annotations

from flint import fmpq

from .numbers import show

__all__ = ["check_best"]


def check_best(residuals: list[tuple[fmpq, fmpq]], worst: fmpq, npoints: int, degree: int,
               pin: tuple[fmpq, fmpq] | None) -> tuple[bool, str]:
    """``residuals``: ``(x, f(x) - p(x))`` at every domain point where ``|f - p| = worst``
    (``worst`` the exact maximum over the ``npoints`` domain points); ``pin = (z, v)``
    when ``p(z) = v`` is imposed (checked elsewhere).  True when ``p`` is the unique best
    approximation of degree ``<= degree`` (module docstring)."""
    size = npoints - (1 if pin is not None else 0)  # |C|
    m = degree if pin is not None else degree + 1  # free coefficients
    if m > size:
        return False, (f"degree {degree} leaves {m} free coefficients on {size} points: the "
                       "best approximation is not unique, no construction is named by it")
    if worst == 0:
        return True, f"p interpolates f on the {size} points (unique: degree {degree})"
    z = None if pin is None else pin[0]
    signs: list[int] = []
    for x, e in sorted(residuals, key=lambda xe: xe[0]):
        if x == z:
            continue
        s = (1 if e > 0 else -1) * (1 if z is None or x > z else -1)
        if not signs or signs[-1] != s:
            signs.append(s)
    ok = len(signs) >= m + 1
    return ok, (f"the error {'alternates' if ok else 'does not alternate'} at level "
                f"{show(worst)}: {len(signs)} alternations among {len(residuals)} extremal "
                f"points, {m + 1} needed (discrete alternation theorem)")
