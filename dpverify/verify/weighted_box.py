"""Kind ``supnorm-box`` with a ``weight`` (one variable): ``lower <= sup |w (f - p)| <=
upper`` on an interval (e.g. the relative error ``(f - p)/f`` of machine coefficients).

The statement is that of ``supnorm-box`` plus ``weight`` (:mod:`.weighted`); the pieces
tile the interval (exact) and ``|w (f - p)| <= upper`` on each by the weighted Taylor
forms of :class:`.weighted.WeightedBounds` (bisection and precision as for the plain
kind, :func:`.box.check_pieces`); the witness has ``|w (f - p)| >= lower``.
"""

from __future__ import annotations

from .box import MAX_ORDER, MAX_PIECES, Box, check_cover, check_pieces, requested_checks
from .expr import Undefined
from .numbers import MAX_PREC, expect_keys, read_exact, read_int, read_list, show, shown
from .poly import monomial_form, read_interval
from .report import Checks, Malformed, say
from .supnorm import common_checks, read_sup, words
from .weighted import WeightedBounds, read_weight, sign_at, weight_words

__all__ = ["verify_weighted_box"]


def verify_weighted_box(st: object, evidence: object, ck: Checks, out: list[str]) -> None:
    st = expect_keys(st, "statement", ("polynomial", "target", "domain", "error", "weight"),
                     ("max_error",))
    s = read_sup({k: v for k, v in st.items() if k != "weight"}, "supnorm-box")
    if s.poly.d != 1:
        raise Malformed("statement.weight: a weighted error in one variable only")
    w = read_weight(st["weight"], s.target["text"], s.target["variables"])
    assert w is not None
    ev = expect_keys(evidence, "evidence", ("witness", "pieces"))
    wit = [read_exact(x, "evidence.witness") for x in read_list(ev["witness"],
                                                                "evidence.witness", 1, 1)]
    pieces: list[tuple[Box, int, int]] = []
    for i, raw in enumerate(read_list(ev["pieces"], "evidence.pieces", 1, MAX_PIECES)):
        where = f"evidence.pieces[{i}]"
        pc = read_list(raw, where, 3, 3)
        box = [read_interval(iv, where) for iv in read_list(pc[0], where, 1, 1)]
        pieces.append((box, read_int(pc[1], f"{where} order", 0, MAX_ORDER),
                       read_int(pc[2], f"{where} precision", 53, MAX_PREC)))
    lines = words(s)
    err = weight_words(w)
    lines[3] = say("Claim: ", shown(s.lower), f" <= sup over the domain of |{err}| <= ",
                   shown(s.upper), ".")
    out.extend(lines)
    common_checks(s, ck)
    ok = ck.run("pieces cover the box",
                lambda: check_cover(s.domain["intervals"], [p[0] for p in pieces], ck))
    wb = WeightedBounds(w.code)
    if ok:
        ck.run(f"sup |{err}| <= upper on every piece",
               lambda: check_pieces(s, pieces, ck, bound=wb.bound, ends=wb.ends))
    mono = monomial_form(s.poly, ck.tick)
    x = wit[0]

    def witness() -> tuple[bool | None, str]:
        (lo, hi), = s.domain["intervals"]
        if not lo <= x <= hi:
            return False, "the witness is not in the interval"
        try:
            _, ge = sign_at(s.target["code"], w.code, mono, x, s.lower)
        except Undefined:
            return False, f"target or weight undefined at the witness x = {show(x)}"
        return ge, f"|{err}| >= lower at x = {show(x)}: {ge}"

    ck.run(f"witness: |{err}| >= lower", witness)
    requested_checks(s, wit, ck)
