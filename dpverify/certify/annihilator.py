"""Lower bound of the best weighted error from a family, by annihilating weights.

Let ``P = p_fix + V``, ``V = span{x^k : k in free}`` (:class:`dpverify.family.Family`),
and ``E(f; P, w) = min_{q in P} max_{[a, b]} |w (f - q)|``.

Theorem (de la Vallee Poussin, in its dual form; Powell, *Approximation Theory and
Methods*, CUP 1981, section 7.2; Cheney, *Introduction to Approximation Theory*, ch. 3).
Let ``x_0 < ... < x_m`` be points of ``[a, b]`` and ``lam_i`` rationals, not all 0, with

    sum_i lam_i x_i^k = 0   for every k in free              (lam annihilates V),

and let ``p`` be in ``P`` with, for every ``i`` where ``lam_i != 0``,

    lam_i (f - p)(x_i)  of one strict sign,   |w(x_i) (f - p)(x_i)| >= L.

Then ``max_i |w (f - q)|(x_i) >= L`` for every ``q`` in ``P``, so ``E(f; P, w) >= L``.

Proof.  ``q - p`` is in ``V``, so ``sum lam_i (f - q)(x_i) = sum lam_i (f - p)(x_i) =: S``.
The terms of ``S`` have one sign, so ``|S| = sum |lam_i| |(f - p)(x_i)| >= L sum |lam_i| /
|w(x_i)|`` (``w(x_i) != 0`` since ``|w (f - p)| >= L > 0`` there).  And ``|S| <= sum
(|lam_i| / |w(x_i)|) |w (f - q)|(x_i) <= max_i |w (f - q)|(x_i) sum |lam_i| / |w(x_i)|``.
Divide (``L = 0`` is trivial).  No Haar condition is needed and the sign of ``w`` never
matters.

Where the weights come from.  ``m + 1`` points (``m = |free|``) have a one-dimensional
space of annihilating weights when the ``m x (m + 1)`` matrix ``(x_i^k)`` has rank ``m``.
For a progression ``free = {j + s l : l = 0..n}`` with distinct ``t_i = x_i^s`` and
``x_i != 0`` they are ``lam_i = 1 / (x_i^j prod_{l != i} (t_i - t_l))`` (divided
differences in ``t`` annihilate polynomials of degree ``<= n``); otherwise an exact linear
solve.  On a Haar space with positive weight (Descartes: ``V`` on one side of 0; or the
reduced dense problem of :mod:`dpverify.family`), the error of the best ``p`` has at the
``m + 1`` alternation points exactly the sign pattern of the ``lam_i``, so ``L`` is the
best error itself: the bound is tight.  For the dense family without fixed coefficients the
weights alternate and the theorem is the classical alternation test.

Guarantee
---------
:func:`family_lower_bound` returns ``L`` only after checking every sign and comparison in
exact or ball arithmetic, and ``lam`` exactly.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from typing import Any

from flint import arb, ctx, fmpq, fmpq_mat, fmpq_poly, fmpz

from ..errors import CertificationFailed, DomainError, TimeLimitExceeded
from ..expr import Expr
from ..family import Family
from ..numbers import arb_to_fmpq_bounds, fmpq_str, fmpq_to_decimal, to_fmpq

__all__ = ["annihilator", "weighted_error_at", "family_lower_bound", "FamilyBound"]

_MAX_PREC = 1 << 14
_DIGITS = 20


def annihilator(points: list[fmpq], powers: list[int]) -> list[fmpz]:
    """Coprime integers ``lam`` (not all 0) with ``sum lam_i x_i^k = 0`` for every ``k`` in
    ``powers`` (``len(points) = len(powers) + 1``), exactly.

    Raises
    ------
    CertificationFailed
        When the points do not determine one such vector (matrix of rank ``< m``).

    Examples
    --------
    >>> [int(v) for v in annihilator([fmpq(1), fmpq(2), fmpq(3)], [0, 1])]
    [1, -2, 1]
    """
    m = len(powers)
    if len(points) != m + 1:
        raise CertificationFailed(f"{m + 1} points are needed for {m} powers, got {len(points)}")
    lam = _progression_weights(points, powers)
    if lam is None:
        lam = _solve_weights(points, powers)
    den = 1
    for v in lam:
        den = math.lcm(den, int(v.q))
    ints = [int(v.p) * (den // int(v.q)) for v in lam]
    g = 0
    for iv in ints:
        g = math.gcd(g, iv)
    if g == 0:
        raise CertificationFailed("the annihilating weights vanish")
    return [fmpz(v // g) for v in ints]


def _progression_weights(points: list[fmpq], powers: list[int]) -> list[fmpq] | None:
    ps = sorted(powers)
    if not ps:
        return [fmpq(1)] * len(points)
    j = ps[0]
    s = ps[1] - ps[0] if len(ps) > 1 else 1
    if any(b - a != s for a, b in zip(ps, ps[1:])):
        return None
    if j > 0 and any(x == 0 for x in points):
        return None
    ts = [x ** s for x in points]
    if len(set(ts)) != len(ts):
        return None
    out = []
    for i, ti in enumerate(ts):
        d = fmpq(1)
        for l, tl in enumerate(ts):
            if l != i:
                d *= ti - tl
        out.append(1 / (d * points[i] ** j))
    return out


def _solve_weights(points: list[fmpq], powers: list[int]) -> list[fmpq]:
    m = len(powers)
    A = fmpq_mat(m, m, [points[i] ** k for k in powers for i in range(m)])
    rhs = fmpq_mat(m, 1, [-(points[m] ** k) for k in powers])
    try:
        sol = A.solve(rhs)
    except ZeroDivisionError:
        raise CertificationFailed("the points do not determine annihilating weights (singular "
                                  "matrix of powers)") from None
    return [fmpq(sol[i, 0]) for i in range(m)] + [fmpq(1)]


def _ball(v: object) -> arb:
    if not isinstance(v, arb):
        raise DomainError("expected a ball value")
    return v


def weighted_error_at(f: Expr, w: Expr | None, p: fmpq_poly, x: fmpq) -> tuple[int, fmpq]:
    """``(sign of f(x) - p(x), lower bound of |w(x) (f(x) - p(x))|)`` decided exactly or in
    balls at 64 .. 16384 bits; sign 0 when undecided (or zero).

    Raises
    ------
    DomainError
        If ``f`` or ``w`` is not defined at ``x``.
    """
    px = fmpq(p(x))
    try:
        fx = f.eval_exact(x)
        wx = fmpq(1) if w is None else w.eval_exact(x)
    except DomainError:
        raise DomainError(f"f or the weight is not defined at x = {fmpq_to_decimal(x, 15)}") \
            from None
    if fx is not None and wx is not None:
        e = fx - px
        return (1 if e > 0 else -1 if e < 0 else 0), abs(wx * e)
    prec = 64
    while prec <= _MAX_PREC:
        with ctx.workprec(prec):
            fb = _ball(arb(fx) if fx is not None else f.eval_arb(arb(x)))
            eb: arb = fb - arb(px)
            wb = arb(1) if w is None else (arb(wx) if wx is not None else
                                           _ball(w.eval_arb(arb(x))))
            we: arb = abs(wb * eb)
        if not (eb.is_finite() and we.is_finite()):
            raise DomainError(f"f or the weight is not finite at x = {fmpq_to_decimal(x, 15)}")
        if eb > 0 or eb < 0:
            lo, hi = arb_to_fmpq_bounds(we)
            if lo > 0 and ((hi - lo) <= lo / 2**40 or prec * 2 > _MAX_PREC):
                return (1 if eb > 0 else -1), lo
        prec *= 2
    return 0, fmpq(0)


@dataclass
class FamilyBound:
    """A checked lower bound: ``points``, exact ``weights`` (``lam``) and ``lower``."""

    points: list[fmpq]
    weights: list[fmpz]
    lower: fmpq

    def evidence(self) -> dict[str, Any]:
        return {"alternation": [fmpq_str(x) for x in self.points],
                # FLINT prints fmpz of any size (Python's int to str stops at 4300 digits)
                "annihilator": [str(v) for v in self.weights]}


def family_lower_bound(f: Expr, w: Expr | None, p: fmpq_poly, points: list[Any],
                       family: Family, interval: tuple[fmpq, fmpq], *,
                       deadline: float | None = None) -> FamilyBound:
    """``L <= E(f; family, w)`` at the given points (module docstring).

    Raises
    ------
    CertificationFailed
        When the signs are not those of the weights, or a sign cannot be decided.
    TimeLimitExceeded
        Past ``deadline`` (checked between points).

    Examples
    --------
    ``sin`` by ``c x`` on ``[0, 1]``: the error of ``p = x`` at ``1/2`` and ``1`` has one
    sign (``sin x < x``), but the weights annihilating ``x`` there are ``(2, -1)``, which
    ask for opposite signs, so the check fails:

    >>> from dpverify.expr import parse
    >>> from dpverify.family import make_family
    >>> fam = make_family(1, monomials=[1])
    >>> family_lower_bound(parse("sin(x)"), None, fmpq_poly([0, 1]), ["1/2", "1"], fam,
    ...                    (fmpq(0), fmpq(1)))  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    dpverify.errors.CertificationFailed: the signs of f - p at the points are not those of ...
    """
    a, b = interval
    pts = [to_fmpq(x, f"points[{i}]") for i, x in enumerate(points)]
    if any(not a <= x <= b for x in pts) or any(x >= y for x, y in zip(pts, pts[1:])):
        raise CertificationFailed("points must be strictly increasing and inside the interval")
    lam = annihilator(pts, list(family.free))
    lows: list[fmpq] = []
    sign = 0
    for i, (x, lm) in enumerate(zip(pts, lam)):
        if deadline is not None and time.monotonic() > deadline:
            raise TimeLimitExceeded(f"time limit reached in the lower bound ({i} of "
                                    f"{len(pts)} points)")
        if lm == 0:
            continue
        s, low = weighted_error_at(f, w, p, x)
        if s == 0:
            raise CertificationFailed(f"f - p vanishes (or its sign is undecided) at x = "
                                      f"{fmpq_to_decimal(x, 15)}")
        t = s * (1 if lm > 0 else -1)
        if sign == 0:
            sign = t
        elif t != sign:
            raise CertificationFailed("the signs of f - p at the points are not those of the "
                                      "annihilating weights")
        lows.append(low)
    low = min(lows)
    low = to_fmpq(fmpq_to_decimal(low, _DIGITS, "down"))
    return FamilyBound(pts, lam, low)
