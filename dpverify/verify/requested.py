"""``domain.requested`` of a box: the interval as the user asked for it, when its ends were
constant expressions (``pi/2``) that no exact rational equals.

A statement with ``"requested": [["0", "((1/2) * pi)"]]`` and ``"rounding": "outward"``
says: the exact rational ``intervals`` contain the requested intervals (each end rounded
outward), and the claim holds on the requested box too.  For a supremum that means the
witness of ``lower`` lies inside the requested box (``upper`` bounds the supremum over the
larger stated box, hence over the smaller).  Both facts are checked here, with this
package's own expression reader and ball evaluator (:mod:`.expr`), at growing precision;
a comparison no precision decides is *undecided*.
"""

from __future__ import annotations

from flint import arb, fmpq

from .expr import Code, Indeterminate, IvAlg, Undefined, parse, run
from .numbers import decide, read_list, show
from .report import Malformed

__all__ = ["Requested", "read_requested", "check_contains", "check_inside", "ROUNDING",
           "MAX_TEXT"]

#: The one direction of rounding a statement may name.
ROUNDING = "outward"
#: Longest text of a requested end.
MAX_TEXT = 1000

#: Per axis: (lower end, upper end), each (text, postfix code of the constant expression).
Requested = list[tuple[tuple[str, Code], tuple[str, Code]]]


def read_requested(dom: dict[str, object], where: str, axes: int) -> Requested | None:
    """``requested`` and ``rounding`` of a box domain (both, or neither): one pair of
    constant-expression texts per interval.  ``Malformed`` on anything else."""
    has = ("requested" in dom, "rounding" in dom)
    if not any(has):
        return None
    if not all(has):
        raise Malformed(f"{where}: requested and rounding go together")
    if dom["rounding"] != ROUNDING:
        raise Malformed(f"{where}.rounding: must be {ROUNDING!r}")
    out: Requested = []
    pairs = read_list(dom["requested"], f"{where}.requested", axes, axes)
    for i, pair in enumerate(pairs):
        ends = read_list(pair, f"{where}.requested[{i}]", 2, 2)
        read: list[tuple[str, Code]] = []
        for j, text in enumerate(ends):
            at = f"{where}.requested[{i}][{j}]"
            if not isinstance(text, str) or not text or len(text) > MAX_TEXT:
                raise Malformed(f"{at}: a constant expression of at most {MAX_TEXT} "
                                "characters")
            read.append((text, parse(text, [], at)))
        out.append((read[0], read[1]))
    return out


def _value(code: Code) -> arb | None:
    """The ball of a constant expression at the working precision (None: no finite
    value at this precision)."""
    try:
        return run(code, IvAlg(), []).b
    except Indeterminate:
        return None


def _le(x: fmpq | arb, y: fmpq | arb) -> bool | None:
    """``x <= y`` certainly (True), certainly not (False), or not decided (None)."""
    bx, by = arb(x), arb(y)
    if bx <= by:
        return True
    if bx > by:
        return False
    return None


def _compare(pairs: list[tuple[fmpq | Code, fmpq | Code]]) -> bool | None:
    """Every ``a <= b`` of ``pairs`` (a rational or a constant expression each side)."""
    result: bool | None = True
    for a, b in pairs:
        va = a if isinstance(a, fmpq) else _value(a)
        vb = b if isinstance(b, fmpq) else _value(b)
        if va is None or vb is None:
            result = None
            continue
        r = _le(va, vb)
        if r is False:
            return False
        if r is None:
            result = None
    return result


def _decided(pairs: list[tuple[fmpq | Code, fmpq | Code]]) -> bool | None:
    """:func:`_compare` at growing precision (an undefined requested end: False)."""
    def pred() -> bool | None:
        try:
            return _compare(pairs)
        except Undefined:
            return False

    return decide(pred)


def check_contains(intervals: list[tuple[fmpq, fmpq]], req: Requested
                   ) -> tuple[bool | None, str]:
    """Each stated interval contains the requested one (``stated_lo <= requested_lo`` and
    ``requested_hi <= stated_hi``)."""
    pairs: list[tuple[fmpq | Code, fmpq | Code]] = []
    for (lo, hi), ((_, a), (_, b)) in zip(intervals, req, strict=True):
        pairs += [(lo, a), (b, hi)]
    ok = _decided(pairs)
    shown = " x ".join(f"[{ta}, {tb}]" for (ta, _), (tb, _) in req)
    return ok, f"requested {shown} inside the stated intervals: {ok}"


def check_inside(x: list[fmpq], req: Requested) -> tuple[bool | None, str]:
    """The point ``x`` lies in the requested box."""
    pairs: list[tuple[fmpq | Code, fmpq | Code]] = []
    for xi, ((_, a), (_, b)) in zip(x, req, strict=True):
        pairs += [(a, xi), (xi, b)]
    ok = _decided(pairs)
    return ok, f"({', '.join(show(v, 20) for v in x)}) inside the requested box: {ok}"
