"""Kind ``minimax``: ``lower <= E_N(f) <= sup_{[a,b]} |f - p| <= upper`` (docs/certificates.md).

*Lower* (de la Vallee Poussin): ``deg p <= N`` and ``f - p`` takes alternating signs at the
``N + 2`` strictly increasing evidence points of ``[a, b]`` with ``|f - p| >= lower`` at
each; then every ``q`` of degree ``<= N`` has ``max |f - q| >= lower`` (else ``q - p``
would change sign ``N + 1`` times).  Each sign and comparison is decided exactly (rational
``f(x)``) or in arb balls at 64 .. 65536 bits.

*Upper*: the pieces tile ``[a, b]`` and ``|f - p| <= upper`` on each, by the same Taylor
bounds as ``supnorm-box`` (:func:`box.check_pieces`).

*least_degree* (with ``max_error``): a polynomial ``q`` of degree ``<= N - 1`` in the
evidence with ``N + 1`` alternation points where ``|f - q| >= least_degree.lower`` proves
``E_{N-1}(f) >= least_degree.lower``, and ``least_degree.lower > max_error`` then says no
polynomial of degree ``< N`` is within ``max_error``.
"""

from __future__ import annotations

from flint import fmpq, fmpq_poly

from .box import MAX_ORDER, check_cover, check_pieces
from .expr import (
    CONSTANTS,
    FUNCTIONS,
    IDENT,
    Code,
    parse,
)
from .numbers import (
    MAX_PREC,
    check_rounded_up,
    expect_keys,
    read_error_claim,
    read_exact,
    read_int,
    read_list,
    show,
    shown,
)
from .poly import (
    MAX_UNIVARIATE,
    Poly,
    check_poly,
    monomial_form,
    read_interval,
    read_poly,
    to_monomial_1d,
)
from .report import Checks, Malformed, cut_text, say
from .supnorm import Sup, Target, interval_words, poly_words
from .weighted import (
    Family,
    WeightedBounds,
    check_annihilator,
    check_family_member,
    check_weighted_alternation,
    read_family,
    read_weight,
    weight_words,
)

__all__ = ["MAX_DEGREE", "MAX_PIECES", "check_alternation", "verify_minimax"]

MAX_DEGREE = 200_000
MAX_PIECES = 2_000_000


def _target(obj: object) -> Target:
    t = expect_keys(obj, "statement.target", ("kind", "expr", "variables"))
    if t["kind"] != "expr" or not isinstance(t["expr"], str):
        raise Malformed("statement.target: an expr target")
    names = read_list(t["variables"], "statement.target.variables", 1, 1)
    if not (isinstance(names[0], str) and IDENT.fullmatch(names[0])
            and names[0] not in FUNCTIONS and names[0] not in CONSTANTS):
        raise Malformed("statement.target.variables: one name that is not a function or "
                        "constant")
    return {"kind": "expr", "variables": names, "text": t["expr"],
            "code": parse(t["expr"], names, "statement.target.expr")}


def _points(v: object, where: str, n: int) -> list[fmpq]:
    return [read_exact(x, where) for x in read_list(v, where, n, n)]


def check_alternation(code: Code, mono: fmpq_poly, pts: list[fmpq],
                      ab: tuple[fmpq, fmpq], lower: fmpq, ck: Checks,
                      name: str = "p") -> tuple[bool | None, str]:
    """Does ``f - name`` (``mono``: the polynomial called ``name`` in the messages) take
    alternating signs at ``pts`` with ``|f - name| >= lower``?"""
    return check_weighted_alternation(code, None, mono, pts, ab, lower, ck, name)


def _evidence_poly(obj: object, where: str) -> fmpq_poly:
    obj = expect_keys(obj, where, ("basis", "domain", "coefficients"))
    basis = obj["basis"]
    if basis not in ("monomial", "chebyshev", "bernstein"):
        raise Malformed(f"{where}.basis: unknown basis")
    if (obj["domain"] is None) != (basis == "monomial"):
        raise Malformed(f"{where}: monomial polynomials have a null domain, others [a, b]")
    dom = None if obj["domain"] is None else read_interval(obj["domain"], f"{where}.domain")
    cs = [read_exact(c, f"{where}.coefficients")
          for c in read_list(obj["coefficients"], f"{where}.coefficients", 1, MAX_UNIVARIATE)]
    return to_monomial_1d(basis, cs, dom)


def verify_minimax(st: object, ev: object, ck: Checks, out: list[str]) -> None:
    st = expect_keys(st, "statement", ("polynomial", "target", "domain", "degree", "error"),
                     ("max_error", "least_degree", "weight", "monomials", "fixed"))
    poly: Poly = read_poly(st["polynomial"], "statement.polynomial")
    if poly.d != 1:
        raise Malformed("statement.polynomial: a univariate polynomial")
    target = _target(st["target"])
    dom = expect_keys(st["domain"], "statement.domain", ("kind", "intervals"))
    if dom["kind"] != "box":
        raise Malformed("statement.domain: a box with one interval")
    ab = read_interval(read_list(dom["intervals"], "statement.domain.intervals", 1, 1)[0],
                       "statement.domain.intervals")
    n = read_int(st["degree"], "statement.degree", 0, MAX_DEGREE)
    lower, upper, dec, max_error = read_error_claim(st)
    weight = read_weight(st.get("weight"), target["text"], target["variables"])
    fam = read_family(st, n)
    ld = st.get("least_degree")
    ld_lower = None if ld is None else read_exact(
        expect_keys(ld, "statement.least_degree", ("lower",))["lower"],
        "statement.least_degree.lower")
    ev = expect_keys(ev, "evidence", ("alternation", "pieces"), ("least_degree", "annihilator"))
    npts = n + 2 if fam is None else len(fam.free) + 1
    pts = _points(ev["alternation"], "evidence.alternation", npts)
    lam = _weights(ev, fam, npts, "evidence")
    pieces = []
    for i, pc in enumerate(read_list(ev["pieces"], "evidence.pieces", 1, MAX_PIECES)):
        where = f"evidence.pieces[{i}]"
        pc = read_list(pc, where, 3, 3)
        box = [read_interval(iv, where) for iv in read_list(pc[0], where, 1, 1)]
        pieces.append((box, read_int(pc[1], f"{where} order", 0, MAX_ORDER),
                       read_int(pc[2], f"{where} precision", 53, MAX_PREC)))
    q = q_pts = q_lam = None
    low_fam = None if fam is None else Family(fam.free[:-1], fam.fixed)
    if ld_lower is not None:
        lev = ev.get("least_degree")
        if lev is None:
            raise Malformed("evidence.least_degree: required by statement.least_degree")
        lev = expect_keys(lev, "evidence.least_degree", ("polynomial", "alternation"),
                          ("annihilator",))
        q = _evidence_poly(lev["polynomial"], "evidence.least_degree.polynomial")
        q_n = n + 1 if low_fam is None else len(low_fam.free) + 1
        q_pts = _points(lev["alternation"], "evidence.least_degree.alternation", q_n)
        q_lam = _weights(lev, low_fam, q_n, "evidence.least_degree")

    err = weight_words(weight)
    over = "polynomials q of degree <= " + str(n) if fam is None else \
        "the family " + _family_text(fam)
    out.extend([
        say(f"Target: f({target['variables'][0]}) = ", cut_text(target["text"], 200), "."),
        say("Domain: ", *interval_words([ab]), "."),
        say(*poly_words(poly)),
        say("Claim: ", shown(lower), f" <= E_{n}(f) <= sup |{err}| <= ", shown(upper),
            f", where E_{n}(f) is the least max |{weight_words(weight, 'q')}| over {over}.")])
    if dec is not None:
        out.append(say("upper rounded up to decimal: ", cut_text(dec, 60), "."))
    if max_error is not None:
        out.append(say(f"Claim: sup |{err}| <= max_error = ", shown(max_error), "."))
    if ld_lower is not None:
        fewer = f"of degree < {n}" if fam is None else "of the family without x^" + \
            str(fam.free[-1])
        out.append(say(f"Claim: E_{n - 1}(f) >= ", shown(ld_lower), " > max_error: no "
                       f"polynomial q {fewer} has max |{weight_words(weight, 'q')}| <= "
                       "max_error."))

    check_poly(ck, poly)
    ck.run("degree of p <= N", lambda: (
        isinstance(poly.degree, int) and poly.degree <= n,
        f"degree {poly.degree}, N = {n}"))
    ck.run("0 <= lower <= upper", lambda: (0 <= lower <= upper,
                                           f"lower = {show(lower)}, upper = {show(upper)}"))
    if max_error is not None:
        ck.run("upper <= max_error", lambda: (upper <= max_error,
                                              f"upper = {show(upper)}, "
                                              f"max_error = {show(max_error)}"))
    if dec is not None:
        ck.run("upper_decimal", lambda: check_rounded_up(dec, upper, "upper_decimal"))
    mono = monomial_form(poly, ck.tick)
    code = target["code"]
    wcode = None if weight is None else weight.code
    if fam is not None:
        ck.run("p is in the family", lambda: check_family_member(mono, fam))
        assert lam is not None
        ck.run("lower: annihilating weights (de la Vallee Poussin)",
               lambda: check_annihilator(code, wcode, mono, pts, lam, fam.free, ab, lower, ck))
    elif wcode is not None:
        ck.run("lower: f - p alternates (weighted de la Vallee Poussin)",
               lambda: check_weighted_alternation(code, wcode, mono, pts, ab, lower, ck))
    else:
        ck.run("lower: f - p alternates (de la Vallee Poussin)",
               lambda: check_alternation(code, mono, pts, ab, lower, ck))
    ok = ck.run("pieces cover the interval",
                lambda: check_cover([ab], [p[0] for p in pieces], ck))
    if ok:
        sup = Sup("supnorm-box", poly, target, {"kind": "box", "intervals": [ab]}, lower,
                  upper, None, None, None, None)
        if wcode is None:
            ck.run("upper: sup |f - p| <= upper on every piece",
                   lambda: check_pieces(sup, pieces, ck))
        else:
            wb = WeightedBounds(wcode)
            ck.run(f"upper: sup |{err}| <= upper on every piece",
                   lambda: check_pieces(sup, pieces, ck, bound=wb.bound, ends=wb.ends))
    if ld_lower is not None:
        ck.run("least_degree needs max_error", lambda: (
            max_error is not None, "max_error present" if max_error is not None
            else "no max_error in the statement"))
        if max_error is not None:
            ck.run("least_degree.lower > max_error", lambda: (
                ld_lower > max_error, f"{show(ld_lower)} vs {show(max_error)}"))
        assert q is not None and q_pts is not None
        if low_fam is not None:
            ck.run("least_degree: q is in the family without its top power",
                   lambda: check_family_member(q, low_fam, "q"))
            assert q_lam is not None
            ck.run("least_degree: annihilating weights for q (de la Vallee Poussin)",
                   lambda: check_annihilator(code, wcode, q, q_pts, q_lam, low_fam.free, ab,
                                             ld_lower, ck, "q"))
        else:
            ck.run("least_degree: degree of q <= N - 1", lambda: (
                q.degree() <= n - 1, f"degree {q.degree()}, N - 1 = {n - 1}"))
            if wcode is None:
                ck.run("least_degree: f - q alternates (de la Vallee Poussin)",
                       lambda: check_alternation(code, q, q_pts, ab, ld_lower, ck, "q"))
            else:
                ck.run("least_degree: f - q alternates (weighted de la Vallee Poussin)",
                       lambda: check_weighted_alternation(code, wcode, q, q_pts, ab, ld_lower,
                                                          ck, "q"))


def _weights(ev: dict[str, object], fam: Family | None, n: int,
             where: str) -> list[fmpq] | None:
    """The annihilating weights of a family's lower bound (required exactly then)."""
    raw = ev.get("annihilator")
    if fam is None:
        if raw is not None:
            raise Malformed(f"{where}.annihilator: only with statement.monomials or fixed")
        return None
    if raw is None:
        raise Malformed(f"{where}.annihilator: required by statement.monomials or fixed")
    return [read_exact(v, f"{where}.annihilator") for v in read_list(raw, f"{where}.annihilator",
                                                                     n, n)]


def _family_text(fam: Family) -> str:
    fixed = "".join(f" + {show(v)}" + (f" x^{k}" if k else "")
                    for k, v in sorted(fam.fixed.items()))
    powers = ", ".join(str(k) for k in fam.free[:12]) + (", ..." if len(fam.free) > 12 else "")
    return f"{fixed[3:] + ' + ' if fixed else ''}span{{x^k : k in {powers}}}"
