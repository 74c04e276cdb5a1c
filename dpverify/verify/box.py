"""Kind ``supnorm-box``: the pieces cover the box, and ``|f - p| <= upper`` on every piece.

*Cover* (exact): a guillotine recursion finds a coordinate cut that no piece crosses (the
one nearest the median) and recurses; a group with one piece must equal its box; a group
without any cut is checked pairwise (inside, interiors disjoint, volumes add up).  For
d = 1 this is the exact tiling test (no gap, no overlap).

*Bounds*: on each piece at its suggested order (at most :data:`MAX_ORDER`) and precision,
``taylor.bound_piece`` in one variable and :class:`.box_model.BoxModel` in two and three
(a Taylor model whose polynomial part is enclosed by its Bernstein coefficients); the
order used is capped by a resource limit (:func:`order_cap`: in one variable at most
ORDER_WORK coefficient-bits per jet, so 1024 terms up to 2048 bits and never less than 64;
12 / 8 for two / three variables).  In one
variable, when the same jets show that ``f - p`` is monotone on the piece, its sup is
``max(|e(a)|, |e(b)|)`` (exact when ``f`` is rational at both ends).  A piece whose bound
exceeds ``upper`` is retried at twice the precision when the centre value is blurred by
rounding, else bisected along its widest side; at most 64 times the listed pieces are
bounded in all.
``|f(m) - p(m)| > upper`` at a centre, or ``f`` undefined at a point of a piece, makes the
statement fail.  The witness is decided at growing precision.
"""

from __future__ import annotations

from collections.abc import Callable
from math import prod

from flint import arb, fmpq

from .box_model import BoxModel
from .expr import Indeterminate, IvAlg, Undefined, point, run
from .numbers import MAX_PREC, decide, expect_keys, read_exact, read_int, read_list, show, working
from .poly import Poly, evaluate, read_interval
from .report import BISECT, BOUNDED, MORE_PRECISION, Checks, Malformed, Refuted, refine
from .requested import check_contains, check_inside
from .supnorm import Sup, common_checks, read_sup, words
from .taylor import PieceBound, bound_piece, endpoints

MAX_PIECES = 2_000_000
#: the largest Taylor order a certificate may suggest for a piece (format limit)
MAX_ORDER = 1024
#: one variable: the order used is capped so that a jet (order + 1 coefficients at ``prec``
#: bits) holds at most ORDER_WORK coefficient-bits: 1024 terms up to 2048 bits, fewer
#: above (never below the old fixed cap of 64)
ORDER_WORK = 2**21
#: two / three variables: the order stays at 12 / 8 (a jet is a series of (N + 1)^d terms
#: and the Bernstein enclosure has as many coefficients)
ORDER_CAP = {2: 12, 3: 8}
PAIRWISE_CAP = 4000

Box = list[tuple[fmpq, fmpq]]

__all__ = ["MAX_PIECES", "MAX_ORDER", "ORDER_WORK", "ORDER_CAP", "PAIRWISE_CAP", "Box",
           "order_cap", "check_cover", "check_pieces", "requested_checks", "verify_box"]

_GAP = "gap"


def order_cap(d: int, prec: int) -> int:
    """The largest Taylor order used for a piece in ``d`` variables at ``prec`` bits."""
    if d == 1:
        return max(64, min(MAX_ORDER, ORDER_WORK // prec))
    return ORDER_CAP[d]


def _varying_axes(code: object, poly: Poly) -> list[int]:
    """Axes along which ``f - p`` may vary: a variable pushed by the target's code, or an
    axis along which the coefficients of ``p`` are not those of a constant.  Only the
    choice of the bisection axis depends on it (a bisection along any axis is sound); a
    piece is never cut along an axis on which nothing changes."""
    d = poly.d
    if d == 1 or not isinstance(code, (list, tuple)):
        return list(range(d))
    used = {ins[1] for ins in code if isinstance(ins, tuple) and ins and ins[0] == "var"}
    strides = [prod(poly.shape[i + 1:]) for i in range(d)]
    axes = []
    for i in range(d):
        if i in used:
            axes.append(i)
            continue
        n, st = poly.shape[i], strides[i]
        for flat, c in enumerate(poly.coeffs):
            j = (flat // st) % n
            if poly.basis == "bernstein":
                # constant along axis i: equal coefficients along it
                if j > 0 and c != poly.coeffs[flat - st]:
                    axes.append(i)
                    break
            elif j > 0 and c != 0:
                axes.append(i)
                break
    return axes or list(range(d))


def _vol(b: Box) -> fmpq:
    return prod((hi - lo for lo, hi in b), start=fmpq(1))


def _cut(box: Box, group: list[Box]) -> tuple[int, fmpq] | None | str:
    """A cut (axis, c) that no piece of the group crosses, 'gap' if a slab is uncovered."""
    best: tuple[int, int, fmpq] | None = None
    for ax in range(len(box)):
        order = sorted(group, key=lambda b: b[ax][0])
        top = order[0][ax][1]
        for i in range(1, len(order)):
            a = order[i][ax][0]
            if top < a:
                return _GAP
            if top == a and (best is None or abs(2 * i - len(order)) < best[0]):
                best = (abs(2 * i - len(order)), ax, a)
            top = max(top, order[i][ax][1])
    return None if best is None else (best[1], best[2])


def check_cover(box: Box, pieces: list[Box], ck: Checks) -> tuple[bool | None, str]:
    for b in pieces:
        if not all(lo >= blo and hi <= bhi for (lo, hi), (blo, bhi) in zip(b, box)):
            return False, f"a piece is not inside the box: {_show_box(b)}"
    if len(box) == 1:  # exact tiling: sorted, no gap, no overlap
        ps = sorted(pieces)
        ok = ps[0][0][0] == box[0][0] and ps[-1][0][1] == box[0][1] and all(
            p[0][1] == q[0][0] for p, q in zip(ps, ps[1:]))
        return ok, f"{len(ps)} pieces " + ("tile the interval" if ok else "leave a gap or overlap")
    todo = [(box, pieces)]
    while todo:
        ck.tick()
        sub, group = todo.pop()
        if len(group) == 1:
            if group[0] != sub:
                return False, f"part of {_show_box(sub)} is not covered"
            continue
        cut = _cut(sub, group)
        if isinstance(cut, str):
            return False, f"a gap in {_show_box(sub)}"
        if cut is None:
            if len(group) > PAIRWISE_CAP:
                return None, f"{len(group)} pieces without a guillotine cut (limit {PAIRWISE_CAP})"
            for i, p in enumerate(group):
                for q in group[i + 1:]:
                    if all(max(a[0], b[0]) < min(a[1], b[1]) for a, b in zip(p, q)):
                        return False, f"pieces overlap: {_show_box(p)} and {_show_box(q)}"
            if sum((_vol(p) for p in group), fmpq(0)) != _vol(sub):
                return False, f"the pieces in {_show_box(sub)} do not fill it"
            continue
        ax, c = cut
        left = [b for b in group if b[ax][1] <= c]
        right = [b for b in group if b[ax][0] >= c]
        todo.append(([iv if j != ax else (iv[0], c) for j, iv in enumerate(sub)], left))
        todo.append(([iv if j != ax else (c, iv[1]) for j, iv in enumerate(sub)], right))
    return True, f"{len(pieces)} pieces cover the box"


def _show_box(b: Box) -> str:
    return " x ".join(f"[{show(lo, 16)}, {show(hi, 16)}]" for lo, hi in b)


def _undefined_corner(s: Sup, b: Box) -> list[fmpq] | None:
    """A corner of ``b`` where the target is provably undefined."""
    corners: list[list[fmpq]] = [[]]
    for lo, hi in b:
        corners = [c + [v] for c in corners for v in (lo, hi)]
    for c in corners:
        try:
            with working(64):
                run(s.target["code"], IvAlg(), [point(v) for v in c])
        except Undefined:
            return c
        except Indeterminate:
            pass
    return None


def check_pieces(s: Sup, pieces: list[tuple[Box, int, int]], ck: Checks,
                 bound: Callable[..., PieceBound] = bound_piece,
                 ends: Callable[..., PieceBound] = endpoints) -> tuple[bool | None, str]:
    """``bound``/``ends``: the one-variable piece bound and the end values (another error
    than ``f - p``, e.g. the weighted one of :mod:`.weighted`, passes its own)."""
    code, d = s.target["code"], s.poly.d
    model = BoxModel(code, s.poly) if d >= 2 else None

    def examine(piece: tuple[Box, int], prec: int) -> str:
        b, order = piece
        n = min(order, order_cap(d, prec))
        r = bound(code, s.poly, b, n, prec, s.upper) if model is None else \
            model.bound(b, n, prec)
        if r.monotone and r.bound is not None and r.centre is not None:
            # sup |f - p| is at an end of the piece (monotone is only set with both)
            with working(prec):
                if not r.bound <= arb(s.upper):
                    try:
                        r = ends(code, s.poly, b, r.centre)
                        if r.exact is None and r.bound is not None and r.bound > arb(s.upper):
                            raise Refuted(f"|f - p| > upper at an end of {_show_box(b)}")
                    except Indeterminate:
                        pass
        if r.undefined:
            raise Refuted(f"target undefined on part of the domain (in {_show_box(b)})")
        if r.exact is not None:
            if r.exact > s.upper:
                raise Refuted(f"|f - p| = {show(r.exact)} > upper at an end of {_show_box(b)}")
            return BOUNDED
        with working(prec):
            u = arb(s.upper)
            if r.bound is not None and r.bound <= u:
                return BOUNDED
            if r.centre is not None and abs(r.centre) > u:
                raise Refuted(f"|f - p| > upper at the centre of {_show_box(b)}")
            if r.bound is None and _undefined_corner(s, b) is not None:
                raise Refuted(f"target undefined at a corner of {_show_box(b)}")
            if r.centre is not None and 8 * arb(r.centre.rad()) > (u - abs(r.centre)).mid():
                return MORE_PRECISION
        return BISECT

    axes = _varying_axes(code, s.poly)

    def bisect(piece: tuple[Box, int]) -> list[tuple[Box, int]]:
        b, order = piece
        ax = max(axes, key=lambda i: b[i][1] - b[i][0])
        lo, hi = b[ax]
        mid = (lo + hi) / 2
        return [([iv if i != ax else h for i, iv in enumerate(b)], order)
                for h in ((lo, mid), (mid, hi))]

    todo = [((b, order), prec) for b, order, prec in pieces]
    return refine(todo, examine, bisect, lambda piece: _show_box(piece[0]), ck, MAX_PREC)


def _witness(s: Sup, w: list[fmpq]) -> tuple[bool | None, str]:
    if not all(lo <= x <= hi for x, (lo, hi) in zip(w, s.domain["intervals"])):
        return False, "the witness is not in the box"
    px = evaluate(s.poly, w)

    def pred() -> bool | None:
        try:
            f = run(s.target["code"], IvAlg(), [point(x) for x in w])
        except Indeterminate:
            return None
        fw = f.value
        if fw is not None:
            return bool(abs(fw - px) >= s.lower)
        e = abs(f.b - arb(px))
        return True if e >= arb(s.lower) else False if e < arb(s.lower) else None
    try:
        ok = decide(pred)
    except Undefined:
        return False, "target undefined at the witness"
    return ok, f"|f - p| >= lower at ({', '.join(show(x, 20) for x in w)}): {ok}"


def verify_box(st: object, evidence: object, ck: Checks, out: list[str]) -> None:
    if isinstance(st, dict) and st.get("weight") is not None:
        # deferred: weighted_box imports this module (the cover and the piece loop)
        from .weighted_box import verify_weighted_box
        verify_weighted_box(st, evidence, ck, out)
        return
    s = read_sup(st, "supnorm-box")
    d = s.poly.d
    ev = expect_keys(evidence, "evidence", ("witness", "pieces"))
    w = [read_exact(x, "evidence.witness") for x in read_list(ev["witness"], "evidence.witness",
                                                              d, d)]
    pieces: list[tuple[Box, int, int]] = []
    for i, raw in enumerate(read_list(ev["pieces"], "evidence.pieces", 1, MAX_PIECES)):
        where = f"evidence.pieces[{i}]"
        pc = read_list(raw, where, 3, 3)
        box = [read_interval(iv, where) for iv in read_list(pc[0], where, d, d)]
        pieces.append((box, read_int(pc[1], f"{where} order", 0, MAX_ORDER),
                       read_int(pc[2], f"{where} precision", 53, MAX_PREC)))
    if not pieces:
        raise Malformed("evidence.pieces: empty")
    out.extend(words(s))
    common_checks(s, ck)
    ok = ck.run("pieces cover the box",
                lambda: check_cover(s.domain["intervals"], [p[0] for p in pieces], ck))
    if ok:
        ck.run("sup |f - p| <= upper on every piece", lambda: check_pieces(s, pieces, ck))
    ck.run("witness: |f - p| >= lower", lambda: _witness(s, w))
    requested_checks(s, w, ck)


def requested_checks(s: Sup, witness: list[fmpq], ck: Checks) -> None:
    """The checks of ``domain.requested`` (when stated): the intervals are the outward
    rounding of the requested ones, so the enclosure holds on those too when the witness of
    ``lower`` lies inside them."""
    req = s.domain.get("requested")
    if req is not None:
        ck.run("requested intervals inside the stated ones",
               lambda: check_contains(s.domain["intervals"], req))
        ck.run("witness inside the requested intervals", lambda: check_inside(witness, req))
