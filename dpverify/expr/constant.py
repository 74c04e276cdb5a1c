"""Interval ends written as constant expressions: ``pi``, ``pi/2``, ``e``, ``sqrt(2)``,
``log(2)/2`` (the expression language of :mod:`dpverify.expr` without variables; never
``eval``).

A certificate states exact rational numbers, and ``pi/2`` is not one.  So an interval
``[a, b]`` whose ends are not all exact numbers is *rounded outward*: the certificate covers
the exact rational interval ``[a-, b+]`` (``a- <= a``, ``b+ >= b``: each end is a decimal
of :data:`DIGITS` significant digits, rounded down for a lower end and up for an upper end
from an Arb enclosure of the real end) and states the interval as requested next to it
(``domain.requested``, ``domain.rounding = "outward"``; docs/conventions.md).  A bound of a
supremum over ``[a-, b+]`` bounds the supremum over ``[a, b]`` too; a *lower* bound holds
for ``[a, b]`` only when it is attained at a point of ``[a, b]``, so the certifier takes
its witnesses from the rational interval ``[a+, b-]`` inside it (:attr:`Box.inner`).

Exact numbers (``1/3``, ``1e-3``, ``0x1.921fb54442d18p+0``, a Python float, an ``fmpq``)
are read as today (:func:`dpverify.numbers.to_fmpq`) and never rounded; a constant
expression with a rational value that exact rules find (``1/2 + 1/3``, ``sqrt(1/4)``) is
exact too.

Guarantee
---------
``stated[i][0] <= requested[i][0]`` and ``requested[i][1] <= stated[i][1]`` for the real
values of the requested ends (Arb enclosures, rigorous), and
``stated[i][0] <= inner[i][0] < inner[i][1] <= stated[i][1]`` with ``inner`` inside the
real interval.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from fractions import Fraction
from typing import Any, NamedTuple

from flint import arb, ctx, fmpq

from ..errors import DomainError, InvalidParameterError, ParameterTypeError
from ..numbers import arb_to_fmpq_bounds, fmpq_str, fmpq_to_decimal, parse_exact, to_fmpq
from .expression import Expr, parse

__all__ = ["Endpoint", "Box", "read_endpoint", "read_box", "read_pair", "DIGITS", "ROUNDING"]

#: Significant decimal digits of an end rounded outward (or inward): the certificate's
#: interval exceeds the requested one by at most one unit in the 40th digit.
DIGITS = 40

#: The one direction of rounding a certificate states (``domain.rounding``).
ROUNDING = "outward"

#: Working precision (bits) of the enclosures of the ends: far more than DIGITS needs.
_PREC = 256


class Endpoint(NamedTuple):
    """One end of an interval: ``exact`` (an ``fmpq``) when it is a rational number,
    else ``text``, the canonical text of a constant expression, and ``lo <= value <= hi``,
    the decimals of :data:`DIGITS` digits around its real value."""

    text: str
    exact: fmpq | None
    lo: fmpq
    hi: fmpq

    def __str__(self) -> str:
        return self.text

    def binary64_inside(self, way: str, name: str = "value") -> fmpq:
        """The binary64 number nearest this end on the inner side of its interval
        (``way`` "up" for a lower end: the least binary64 ``>= value``; "down" for an
        upper end: the largest ``<= value``), as an exact rational: the binary64 numbers
        of ``[a, b]`` are those of ``[a.binary64_inside("up"), b.binary64_inside("down")]``.
        Decided when both ends of the enclosure ``[lo, hi]`` give the same number;
        ``InvalidParameterError`` otherwise (a binary64 number within 10^-40 of it)."""
        def rounded(q: fmpq) -> float:
            x = float(Fraction(int(q.p), int(q.q)))  # nearest; then step to the right side
            if way == "down":
                while to_fmpq(x) > q:
                    x = math.nextafter(x, -math.inf)
            else:
                while to_fmpq(x) < q:
                    x = math.nextafter(x, math.inf)
            return x

        x, y = rounded(self.lo), rounded(self.hi)
        if x != y or not math.isfinite(x):
            raise InvalidParameterError(
                f"{name} {self}: cannot tell which binary64 number is the nearest inside it")
        return to_fmpq(x)


class Box(NamedTuple):
    """Intervals as requested and as certified.

    ``stated``: the exact rational intervals the certificate covers (outward rounding of
    the requested ones; the requested ones themselves when every end is exact);
    ``inner``: rational intervals inside the requested ones (where witnesses of a lower
    bound are taken); ``requested``: the ends as canonical texts (a list of pairs, what
    ``domain.requested`` states), or None when every end is exact."""

    ends: tuple[tuple[Endpoint, Endpoint], ...]

    @property
    def exact(self) -> bool:
        return all(e.exact is not None for pair in self.ends for e in pair)

    @property
    def stated(self) -> tuple[tuple[fmpq, fmpq], ...]:
        return tuple((a.lo, b.hi) for a, b in self.ends)

    @property
    def inner(self) -> tuple[tuple[fmpq, fmpq], ...]:
        return tuple((a.hi, b.lo) for a, b in self.ends)

    @property
    def requested(self) -> list[list[str]] | None:
        return None if self.exact else [[a.text, b.text] for a, b in self.ends]

    def domain(self) -> dict[str, Any]:
        """The statement's ``domain``: ``{"kind": "box", "intervals": stated}`` plus
        ``requested`` and ``rounding`` when an end was rounded."""
        out: dict[str, Any] = {"kind": "box", "intervals": [
            [_shown(a, ea, "down"), _shown(b, eb, "up")]
            for (a, b), (ea, eb) in zip(self.stated, self.ends, strict=True)]}
        if self.requested is not None:
            out["requested"] = self.requested
            out["rounding"] = ROUNDING
        return out

    def info(self) -> dict[str, Any] | None:
        """What a certificate whose *statement* keeps only the rational interval (kind
        minimax) records in ``info`` (not checked) when an end was rounded; else None."""
        if self.requested is None:
            return None
        return {"requested": self.requested[0] if len(self.ends) == 1 else self.requested,
                "rounding": ROUNDING,
                "meaning": "the statement's interval contains the requested one (its ends "
                           "rounded outward): an upper bound holds on the requested "
                           "interval too, a lower bound on the statement's interval"}

    def check_defined(self, f: Expr, name: str = "f") -> None:
        """Raise ``DomainError`` when ``f`` is undefined at a rounded end: a target
        undefined just outside the requested interval (``sqrt(pi/2 - x)``) cannot be
        certified on its outward rounding.  The message names the rounded end and an exact
        end inside the requested interval the user may give instead."""
        for i, ((a, b), (qa, qb)) in enumerate(zip(self.ends, self.stated, strict=True)):
            for end, q, inside, way in ((a, qa, a.hi, "up"), (b, qb, b.lo, "down")):
                if end.exact is not None:
                    continue
                point = [q if j == i else lo for j, (lo, _) in enumerate(self.stated)]
                try:
                    with ctx.workprec(128):
                        v = f.eval_arb(*[arb(c) for c in point])
                    finite = isinstance(v, arb) and v.is_finite()
                except DomainError:
                    finite = False
                if not finite:
                    raise DomainError(
                        f"{name} is undefined at {fmpq_to_decimal(q, DIGITS + 2)}, the end "
                        f"{end} of [{a}, {b}] rounded outward (a certificate covers an exact "
                        "rational interval containing the requested one, and f must be "
                        "defined on all of it); give that end as an exact number inside "
                        f"the domain of {name}, e.g. {fmpq_to_decimal(inside, 17, way)}")

    def describe(self) -> str:
        """``[0, pi/2]`` as requested, with what the certificate covers when rounded."""
        asked = " x ".join(f"[{a}, {b}]" for a, b in self.ends)
        if self.exact:
            return asked
        covered = " x ".join(f"[{_shown(a, ea, 'down')}, {_shown(b, eb, 'up')}]"
                             for (a, b), (ea, eb) in zip(self.stated, self.ends, strict=True))
        return f"{asked} (certified on {covered}, its ends rounded outward)"


def _shown(q: fmpq, end: Endpoint, direction: str) -> str:
    """An end as the statement writes it: exact ``p/q`` for an exact end, the decimal it
    is (of at most DIGITS digits) for a rounded one."""
    if end.exact is not None:
        return fmpq_str(q)
    text = fmpq_to_decimal(q, DIGITS, direction)
    assert to_fmpq(text) == q  # a decimal of DIGITS digits: printed exactly
    return text


def read_endpoint(value: Any, name: str = "value") -> Endpoint:
    """An interval end: an exact number (anything :func:`dpverify.numbers.to_fmpq` reads:
    int, ``fmpq``, ``Fraction``, a float's binary64 value, an exact decimal, hex float or
    ratio string) or a constant expression string (``"pi/2"``).

    Raises
    ------
    ExpressionError
        A string that is neither an exact number nor a constant expression (the message
        names ``name``; a variable is refused: an end is a constant).
    InvalidParameterError
        The expression is undefined or not finite (``log(0)``, ``1/0``).
    """
    if not isinstance(value, str):
        q = to_fmpq(value, name)
        return Endpoint(fmpq_str(q), q, q, q)
    try:
        q = parse_exact(value, name)
    except (ValueError, TypeError):
        pass
    else:
        return Endpoint(fmpq_str(q), q, q, q)
    expr = parse(value, variables=(), name=name)
    try:
        q_or_none = expr.eval_exact()
    except DomainError as exc:
        raise InvalidParameterError(f"{name} {value!r} is undefined: {exc}") from None
    if q_or_none is not None:
        return Endpoint(fmpq_str(q_or_none), q_or_none, q_or_none, q_or_none)
    with ctx.workprec(_PREC):
        try:
            ball = expr.eval_arb()
        except DomainError as exc:
            raise InvalidParameterError(f"{name} {value!r} is undefined: {exc}") from None
    if not isinstance(ball, arb) or not ball.is_finite():
        raise InvalidParameterError(f"{name} {value!r} has no finite value")
    blo, bhi = arb_to_fmpq_bounds(ball)
    lo = to_fmpq(fmpq_to_decimal(blo, DIGITS, "down"))
    hi = to_fmpq(fmpq_to_decimal(bhi, DIGITS, "up"))
    return Endpoint(expr.canonical, None, lo, hi)


def read_box(box: Any, name: str = "interval") -> Box:
    """``(a, b)`` or a list of them (one per variable) with ``a < b`` (certainly, for
    the real values), each end read by :func:`read_endpoint`; messages name
    ``name[0]``, ``name[1]`` (``name[i][0]`` for a box).  ``DomainError`` (an
    ``InvalidParameterError``) when ``a >= b``."""
    pairs: Sequence[Any]
    single = isinstance(box, (list, tuple)) and len(box) == 2 and not any(
        isinstance(v, (list, tuple)) for v in box)
    if single:
        pairs, names = [box], [name]
    elif isinstance(box, (list, tuple)) and box and all(
            isinstance(v, (list, tuple)) for v in box):
        pairs, names = box, [f"{name}[{i}]" for i in range(len(box))]
    else:
        raise ParameterTypeError(f"{name} must be a pair (a, b) or a list of pairs, "
                                 f"got {box!r}"[:300])
    ends = []
    for pair, where in zip(pairs, names, strict=True):
        if len(pair) != 2:
            raise InvalidParameterError(f"{where} must be a pair (a, b), got {pair!r}"[:300])
        ends.append(read_pair(pair[0], pair[1], f"{where}[0]", f"{where}[1]", where))
    return Box(tuple(ends))


def read_pair(a: Any, b: Any, name_a: str, name_b: str, name: str
              ) -> tuple[Endpoint, Endpoint]:
    """The ends ``a < b`` of one interval (:func:`read_endpoint`; messages name
    ``name_a``, ``name_b`` and ``name``: the CLI passes ``--interval A``, ...)."""
    ea, eb = read_endpoint(a, name_a), read_endpoint(b, name_b)
    if not ea.hi < eb.lo:
        if ea.exact is not None and eb.exact is not None or ea.lo >= eb.hi:
            raise DomainError(f"{name} must have a < b, got [{ea}, {eb}]")
        raise InvalidParameterError(
            f"{name}: cannot tell that {ea} < {eb} (they agree to {DIGITS} digits)")
    return ea, eb
