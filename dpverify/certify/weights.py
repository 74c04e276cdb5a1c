"""Error weights: ``w = 1`` (absolute), ``w = 1/f`` (relative error ``(f - p)/f``), or a
user weight, and the proof that the weight is usable on the interval.

The weighted error of ``p`` is ``w(x) (f(x) - p(x))``.  For the relative error ``f`` must
not vanish on ``[a, b]``: :func:`prove_sign` proves ``f > 0`` or ``f < 0`` everywhere by
bisection in ball arithmetic (the enclosure of ``f`` over each piece excludes 0, with one
sign for all pieces), and when it cannot, names the point where ``f`` vanishes (``f``
exactly 0 there, or a change of sign between two points), or the point near which the
sign could not be decided.  A user weight must be ``> 0`` on ``[a, b]``, proven the same
way.  (The certified claims themselves never need the sign of ``w``: the de la Vallee
Poussin bound only uses ``w != 0`` at its points, :mod:`.annihilator`; positivity is what
makes ``max |w (f - p)|`` a weighted *norm* of the error.)

Guarantee
---------
:func:`prove_sign` returns only when the sign is proven (arb arithmetic); otherwise it
raises :class:`~dpverify.errors.InvalidParameterError` naming the point.
"""

from __future__ import annotations

import time
from typing import Any

from flint import arb, ctx, fmpq

from ..errors import (
    DomainError,
    InvalidParameterError,
    ParameterTypeError,
    TimeLimitExceeded,
)
from ..expr import Expr, parse
from ..expr.breakpoints import breakpoints
from ..numbers import fmpq_str, fmpq_to_decimal

__all__ = ["weight_expr", "prove_sign", "MAX_SIGN_PIECES"]

#: pieces of the bisection proving a sign, at most
MAX_SIGN_PIECES = 20_000
_DEPTH = 64


def weight_expr(f: Expr, weight: Any, relative: Any) -> Expr | None:
    """The weight as an expression of ``x``: None (absolute error), ``1/(f)`` (relative),
    or ``weight`` parsed (a string or an :class:`~dpverify.expr.Expr`).

    Raises
    ------
    InvalidParameterError
        Both ``weight`` and ``relative``, or a weight of another variable.

    Examples
    --------
    >>> from dpverify.expr import parse
    >>> weight_expr(parse("exp(x)"), None, True).canonical
    '(1 / exp(x))'
    """
    if not isinstance(relative, bool):
        raise ParameterTypeError(f"relative must be a bool, got {relative!r}")
    if relative and weight is not None:
        raise InvalidParameterError("weight and relative exclude each other (relative error "
                                    "is the weight 1/f)")
    if relative:
        return parse(f"1/({f.canonical})", variables=("x",), name="relative weight 1/f")
    if weight is None:
        return None
    if isinstance(weight, str):
        weight = parse(weight, variables=("x",), name="weight")
    if not isinstance(weight, Expr):
        raise ParameterTypeError(f"weight must be an expression string or Expr, got "
                                 f"{type(weight).__name__}")
    if len(weight.variables) > 1 or (weight.variables and weight.variables[0] != "x"):
        raise InvalidParameterError(f"weight must be a function of x, got {weight.variables}")
    return weight


def _point_value(g: Expr, x: fmpq) -> arb | None:
    """A ball of ``g(x)`` at 64..1024 bits, or None where ``g`` is undefined."""
    prec = 64
    while True:
        with ctx.workprec(prec):
            try:
                v = g.eval_arb(arb(x))
            except DomainError:
                return None
        if not isinstance(v, arb):
            return None
        if v.is_finite() and (v > 0 or v < 0 or v.is_zero() or prec >= 1024):
            return v
        if prec >= 1024:
            return v
        prec *= 2


def prove_sign(g: Expr, a: fmpq, b: fmpq, *, what: str, positive_only: bool,
               deadline: float | None = None) -> int:
    """Prove that ``g`` has one strict sign on ``[a, b]`` and return it (``+1``/``-1``).

    ``what`` names ``g`` in messages (``"f"``, ``"weight"``); ``positive_only``: the sign
    must be ``+1``.

    Raises
    ------
    InvalidParameterError
        Naming the point where ``g`` vanishes, changes sign, is undefined, or where its
        sign could not be decided.
    TimeLimitExceeded
        Past ``deadline``.

    Examples
    --------
    >>> from dpverify.expr import parse
    >>> prove_sign(parse("exp(x)"), fmpq(-1), fmpq(1), what="f", positive_only=False)
    1
    >>> prove_sign(parse("sin(x)"), fmpq(-1), fmpq(1), what="f", positive_only=False)
    Traceback (most recent call last):
    ...
    dpverify.errors.InvalidParameterError: f vanishes at x = 0 in [-1, 1]
    """
    def show(x: fmpq) -> str:  # short fractions exactly (1/2), others as decimals
        return fmpq_str(x) if x.q < 10**4 else fmpq_to_decimal(x, 15)

    where = f"in [{show(a)}, {show(b)}]"

    # exact points first: the ends, 0, the breakpoints of g and the middle
    cand = {a, b, (a + b) / 2} | ({fmpq(0)} if a < 0 < b else set())
    try:
        cand |= {bp.x for bp in breakpoints(g, a, b) if bp.exact and a <= bp.x <= b}
    except (DomainError, ValueError):
        pass
    signs: set[int] = set()
    for x in sorted(cand):
        v = _point_value(g, x)
        if v is None or not v.is_finite():
            raise InvalidParameterError(f"{what} is not defined (or not finite) at x = "
                                        f"{show(x)} {where}")
        if v.is_zero():
            raise InvalidParameterError(f"{what} vanishes at x = {show(x)} {where}")
        if v > 0:
            signs.add(1)
        elif v < 0:
            signs.add(-1)
    if len(signs) > 1:
        pts = sorted(cand)
        for x, y in zip(pts, pts[1:]):
            u, v = _point_value(g, x), _point_value(g, y)
            if u is not None and v is not None and ((u > 0 and v < 0) or (u < 0 and v > 0)):
                raise InvalidParameterError(f"{what} changes sign between x = {show(x)} and "
                                            f"x = {show(y)} {where}: it vanishes there")
    todo = [(a, b, 0)]
    count = 0
    while todo:
        lo, hi, depth = todo.pop()
        count += 1
        if deadline is not None and time.monotonic() > deadline:
            raise TimeLimitExceeded(f"time limit reached while proving the sign of {what}")
        with ctx.workprec(64 + 4 * depth):
            try:
                piece = g.eval_arb(arb(lo).union(arb(hi)), clip_to_domain=True)
            except DomainError:
                piece = arb("nan")
        if isinstance(piece, arb) and piece.is_finite() and (piece > 0 or piece < 0):
            signs.add(1 if piece > 0 else -1)
            if len(signs) > 1:
                raise InvalidParameterError(f"{what} changes sign {where}: it vanishes "
                                            f"near x = {show((lo + hi) / 2)}")
            continue
        mid = (lo + hi) / 2
        if depth >= _DEPTH or count > MAX_SIGN_PIECES:
            u, w = _point_value(g, lo), _point_value(g, hi)
            if u is not None and w is not None and ((u > 0 and w < 0) or (u < 0 and w > 0)):
                raise InvalidParameterError(f"{what} changes sign between x = {show(lo)} and "
                                            f"x = {show(hi)}: it vanishes there")
            raise InvalidParameterError(f"cannot prove {what} != 0 near x = {show(mid)} "
                                        f"{where} (it may vanish there)")
        todo.append((lo, mid, depth + 1))
        todo.append((mid, hi, depth + 1))
    sign = signs.pop() if signs else 1
    if positive_only and sign < 0:
        raise InvalidParameterError(f"{what} must be > 0 on the interval, it is < 0 {where}")
    return sign
