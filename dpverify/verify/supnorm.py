"""The statement of ``supnorm-finite`` / ``supnorm-box``: reading, words, common checks.

The claim is: the polynomial has the stated degree and coefficient norm, and
``lower <= sup_{x in domain} |target(x) - p(x)| <= upper``; optionally ``upper <= max_error``,
an ``upper_decimal`` rendering, ``least_degree`` and a ``construction``.  This module reads
it exactly (Malformed on anything structural) and makes the checks that need no
evaluation of the target; ``finite.py`` and ``box.py`` do the rest.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import TypedDict

from flint import fmpq

from .expr import CONSTANTS, FUNCTIONS, IDENT, Code, Iv, IvAlg, parse, point, run
from .numbers import (
    check_rounded_up,
    expect_keys,
    read_error_claim,
    read_exact,
    read_int,
    read_list,
    show,
    shown,
)
from .poly import Poly, check_poly, read_interval, read_poly
from .report import Checks, Cut, Malformed, cut_text, say
from .requested import Requested, read_requested
from .sherstov import DEFAULT_READING, READING_KEYS, READING_OPTIONS

__all__ = ["MAX_POINTS", "BIG", "NAMES", "OPTIONAL", "METHODS", "Target", "Domain",
           "LeastDegree", "Construction", "Sup", "read_sup", "words", "interval_words",
           "poly_words", "common_checks"]

MAX_POINTS = 10_000_000
BIG = 10**15
NAMES = {"or/chebyshev": ("k", "gamma"), "and/chebyshev": ("k", "gamma"),
         "or/minimax": ("k", "gamma"), "and/minimax": ("k", "gamma"),
         "rofk/sherstov": ("r", "k", "gamma"), "rofk/minimax": ("r", "k", "gamma"),
         "exact_l/sherstov": ("l", "k", "gamma"), "dlist/h": ("k", "gamma")}
#: optional parameters: Sherstov's reading of thaler2012 Appendix B (absent: the default
#: reading) and the OR construction inside ``h_k`` (absent: chebyshev)
OPTIONAL = {"rofk/sherstov": ("reading",), "exact_l/sherstov": ("reading",),
            "dlist/h": ("method",)}
METHODS = ("chebyshev", "minimax")


class _Kind(TypedDict):
    kind: str


class Target(_Kind, total=False):
    """A target as read: ``kind`` plus the keys of that kind."""

    r: int  # threshold
    l: int  # indicator  # noqa: E741 (the name in the certificate format)
    values: list[fmpq]  # values
    variables: list[str]  # expr
    text: str  # expr
    code: Code  # expr


class Domain(_Kind, total=False):
    """A domain as read: ``kind`` plus the keys of that kind."""

    lo: int  # integers
    hi: int  # integers
    points: list[fmpq]  # points
    where: dict[fmpq, int]  # points: position of each point (built on first use)
    intervals: list[tuple[fmpq, fmpq]]  # box
    requested: Requested  # box whose ends were rounded outward (.requested)


class LeastDegree(TypedDict):
    pin: tuple[fmpq, fmpq] | None  # (z, v): only polynomials with q(z) = v compete


@dataclass
class Construction:
    """A named construction as read: ``params`` holds ``k``, ``gamma`` (an fmpq) and ``r``
    or ``l`` (ints); ``reading`` the complete reading of a Sherstov construction;
    ``method`` the OR construction inside ``dlist/h``."""

    name: str
    params: dict[str, fmpq | int]
    reading: dict[str, str] | None = None
    method: str | None = None

    def describe(self) -> list[str | Cut]:
        """The parameters in words (exact numbers shortened for display)."""
        parts: list[str | Cut] = []
        for key, value in self.params.items():
            parts += [", " if parts else "", f"{key} = ", shown(value)]
        if self.reading is not None:
            parts.append(", reading " + ", ".join(f"{a}={b}" for a, b in self.reading.items()))
        if self.method is not None:
            parts.append(f", g_k by the {self.method} OR construction")
        return parts


@dataclass
class Sup:
    kind: str
    poly: Poly
    target: Target
    domain: Domain
    lower: fmpq
    upper: fmpq
    upper_decimal: str | None
    max_error: fmpq | None
    least_degree: LeastDegree | None
    construction: Construction | None
    #: set by the exact maximum of a finite statement: ``max |f - p|`` and ``(x, f(x) - p(x))``
    #: at every point attaining it (the minimax constructions' alternation check)
    worst: fmpq | None = None
    extremes: list[tuple[fmpq, fmpq]] | None = None

    def size(self) -> int:
        dom = self.domain
        return dom["hi"] - dom["lo"] + 1 if dom["kind"] == "integers" else len(dom["points"])

    def points(self) -> Iterator[fmpq]:
        dom = self.domain
        if dom["kind"] == "integers":
            return (fmpq(x) for x in range(dom["lo"], dom["hi"] + 1))
        return iter(dom["points"])

    def f_at(self, x: list[fmpq], index: int | None = None) -> fmpq | Iv:
        """The target at a point: an exact fmpq, or an Iv at the current precision."""
        t = self.target
        if t["kind"] == "threshold":
            return fmpq(int(x[0] >= t["r"]))
        if t["kind"] == "indicator":
            return fmpq(int(x[0] == t["l"]))
        if t["kind"] == "values":
            if index is None:
                raise ValueError("f_at: a values target needs the index of the point")
            return t["values"][index]
        iv = run(t["code"], IvAlg(), [point(v) for v in x])
        value = iv.value
        return iv if value is None else value

    def f_exact(self, x: fmpq, index: int) -> fmpq:
        """The target at domain point ``x`` (position ``index``) for a threshold, indicator
        or values target (exact by definition)."""
        t = self.target
        if t["kind"] == "expr":
            raise ValueError("f_exact: an expr target is not exact by definition")
        if t["kind"] == "values":
            return t["values"][index]
        return fmpq(int(x >= t["r"])) if t["kind"] == "threshold" else fmpq(int(x == t["l"]))

    @property
    def degree(self) -> int:
        """The stated degree of a univariate polynomial."""
        deg = self.poly.degree
        if not isinstance(deg, int):
            raise ValueError("degree: the polynomial is not univariate")
        return deg


def _read_target(obj: object, where: str) -> Target:
    t = expect_keys(obj, where, ("kind",), ("r", "l", "values", "expr", "variables"))
    kind = t["kind"]
    need = {"threshold": ("kind", "r"), "indicator": ("kind", "l"),
            "values": ("kind", "values"), "expr": ("kind", "expr", "variables")}
    if kind not in need:
        raise Malformed(f"{where}.kind: unknown target kind")
    expect_keys(t, where, need[kind])
    if kind == "threshold":
        return {"kind": kind, "r": read_int(t["r"], f"{where}.r", -BIG, BIG)}
    if kind == "indicator":
        return {"kind": kind, "l": read_int(t["l"], f"{where}.l", -BIG, BIG)}
    if kind == "values":
        vals = read_list(t["values"], f"{where}.values", 1, MAX_POINTS)
        return {"kind": kind, "values": [read_exact(v, f"{where}.values") for v in vals]}
    names = read_list(t["variables"], f"{where}.variables", 1, 3)
    if (len(set(names)) != len(names) or not all(isinstance(n, str) and IDENT.fullmatch(n)
                                                  and n not in FUNCTIONS and n not in CONSTANTS
                                                  for n in names)):
        raise Malformed(f"{where}.variables: distinct names that are not functions or constants")
    if not isinstance(t["expr"], str):
        raise Malformed(f"{where}.expr: expected a string")
    return {"kind": kind, "variables": names, "text": t["expr"],
            "code": parse(t["expr"], names, f"{where}.expr")}


def _read_domain(obj: object, where: str) -> Domain:
    v = expect_keys(obj, where, ("kind",), ("lo", "hi", "points", "intervals", "requested",
                                            "rounding"))
    kind = v["kind"]
    if kind == "integers":
        expect_keys(v, where, ("kind", "lo", "hi"))
        lo, hi = (read_int(v[k], f"{where}.{k}", -BIG, BIG) for k in ("lo", "hi"))
        if lo > hi:
            raise Malformed(f"{where}: empty integer domain lo = {lo} > hi = {hi}")
        if hi - lo + 1 > MAX_POINTS:
            raise Malformed(f"{where}: more than {MAX_POINTS} points")
        return {"kind": kind, "lo": lo, "hi": hi}
    if kind == "points":
        expect_keys(v, where, ("kind", "points"))
        pts = [read_exact(x, f"{where}.points")
               for x in read_list(v["points"], f"{where}.points", 1, MAX_POINTS)]
        if len(set(pts)) != len(pts):
            raise Malformed(f"{where}.points: points must be distinct")
        return {"kind": kind, "points": pts}
    if kind == "box":
        v = expect_keys(v, where, ("kind", "intervals"), ("requested", "rounding"))
        ivs = read_list(v["intervals"], f"{where}.intervals", 1, 3)
        box: Domain = {"kind": kind,
                       "intervals": [read_interval(x, f"{where}.intervals") for x in ivs]}
        req = read_requested(v, where, len(ivs))
        if req is not None:
            box["requested"] = req
        return box
    raise Malformed(f"{where}.kind: unknown domain kind")


def _read_reading(name: str, raw: object) -> dict[str, str] | None:
    """The complete reading of a Sherstov construction (absent: the default one)."""
    if name not in READING_KEYS:
        return None
    keys = READING_KEYS[name]
    if raw is None:
        return {key: DEFAULT_READING[key] for key in keys}
    rd = expect_keys(raw, "statement.construction.params.reading", keys)
    for key in keys:
        if rd[key] not in READING_OPTIONS[key]:
            raise Malformed(f"statement.construction.params.reading.{key}: one of "
                            f"{', '.join(READING_OPTIONS[key])}")
    return {key: rd[key] for key in keys}


def _read_method(name: str, raw: object) -> str | None:
    if name != "dlist/h":
        return None
    if raw is None:
        return "chebyshev"
    if raw not in METHODS:
        raise Malformed("statement.construction.params.method: chebyshev or minimax")
    return str(raw)


def read_sup(obj: object, kind: str) -> Sup:
    # a named construction and least_degree are claims about integer / point domains: a
    # box statement has neither (the schema refuses them too)
    opt = ("max_error",) + (("least_degree", "construction") if kind == "supnorm-finite"
                            else ())
    st = expect_keys(obj, "statement", ("polynomial", "target", "domain", "error"), opt)
    poly = read_poly(st["polynomial"], "statement.polynomial")
    target = _read_target(st["target"], "statement.target")
    domain = _read_domain(st["domain"], "statement.domain")
    lower, upper, dec, max_error = read_error_claim(st)
    ld: LeastDegree | None = None
    if st.get("least_degree") is not None:
        raw_pin = expect_keys(st["least_degree"], "statement.least_degree", ("pin",))["pin"]
        pin = None
        if raw_pin is not None:
            raw_pin = expect_keys(raw_pin, "statement.least_degree.pin", ("x", "value"))
            pin = (read_exact(raw_pin["x"], "pin.x"), read_exact(raw_pin["value"], "pin.value"))
        ld = {"pin": pin}
    con: Construction | None = None
    if st.get("construction") is not None:
        raw = expect_keys(st["construction"], "statement.construction", ("name", "params"))
        if raw["name"] not in NAMES:
            raise Malformed(f"statement.construction.name: unknown construction "
                            f"{str(raw['name'])[:40]!r}")
        name = raw["name"]
        ps = expect_keys(raw["params"], "statement.construction.params", NAMES[name],
                         OPTIONAL.get(name, ()))
        params: dict[str, fmpq | int] = {
            k: (read_exact(ps[k], f"params.{k}") if k == "gamma"
                else read_int(ps[k], f"params.{k}", -BIG, BIG)) for k in NAMES[name]}
        con = Construction(name, params, _read_reading(name, ps.get("reading")),
                           _read_method(name, ps.get("method")))
    sup = Sup(kind, poly, target, domain, lower, upper, dec, max_error, ld, con)
    if kind == "supnorm-finite":
        if domain["kind"] == "box" or poly.d != 1:
            raise Malformed("supnorm-finite needs an integer or points domain and a univariate "
                            "polynomial")
        if target["kind"] == "expr" and len(target["variables"]) != 1:
            raise Malformed("statement.target: one variable on a finite domain")
        if target["kind"] == "values" and len(target["values"]) != sup.size():
            raise Malformed("statement.target.values: one value per domain point")
    elif (domain["kind"] != "box" or target["kind"] != "expr"
          or not len(domain["intervals"]) == len(target["variables"]) == poly.d):
        raise Malformed("supnorm-box needs a box domain, an expr target, and as many variables "
                        "as intervals and polynomial variables")
    return sup


def words(s: Sup) -> list[str]:
    """The statement in words: :class:`~report.Said` lines (the full text, and a display
    form whose long numbers and texts are shortened and marked)."""
    t, dom = s.target, s.domain
    tgt: list[str | Cut]
    if t["kind"] == "expr":
        tgt = [f"f({', '.join(t['variables'])}) = ", cut_text(t["text"], 200)]
    else:
        tgt = [{"threshold": lambda: f"f(x) = 1 if x >= {t['r']} else 0 (threshold)",
                "indicator": lambda: f"f(x) = 1 if x == {t['l']} else 0 (indicator)",
                "values": lambda: f"f given by {len(t['values'])} listed values"}[t["kind"]]()]
    where: list[str | Cut]
    if dom["kind"] == "box":
        where = interval_words(dom["intervals"])
        if "requested" in dom:
            where += [", which contains the requested ",
                      " x ".join(f"[{a}, {b}]" for (a, _), (b, _) in dom["requested"]),
                      " (ends rounded outward); the claim holds on the requested box too"]
    else:
        where = [f"the integers {dom['lo']}..{dom['hi']}" if dom["kind"] == "integers"
                 else f"{len(dom['points'])} listed points"]
    out: list[str] = [say("Target: ", *tgt, "."), say("Domain: ", *where, "."),
           say(*poly_words(s.poly)),
           say("Claim: ", shown(s.lower), " <= sup over the domain of |f - p| <= ",
               shown(s.upper), " (exact)." if s.lower == s.upper else ".")]
    if s.upper_decimal is not None:
        out.append(say("upper rounded up to decimal: ", cut_text(s.upper_decimal, 60), "."))
    if s.max_error is not None:
        out.append(say("Claim: sup |f - p| <= max_error = ", shown(s.max_error), "."))
    if s.least_degree is not None:
        pin = s.least_degree["pin"]
        with_pin: list[str | Cut] = [] if pin is None else [
            " with q(", shown(pin[0]), ") = ", shown(pin[1])]
        out.append(say(f"Claim: no polynomial q of degree < {s.poly.degree}", *with_pin,
                       " has max |f - q| <= max_error on the domain."))
    if s.construction is not None:
        out.append(say(f"Claim: this is construction {s.construction.name} with ",
                       *s.construction.describe(), ": its target, domain, max_error and "
                       "polynomial are those of the statement."))
    return out


def interval_words(intervals: list[tuple[fmpq, fmpq]]) -> list[str | Cut]:
    """``[a, b] x [c, d]`` with the end points shortened for display."""
    out: list[str | Cut] = []
    for i, (a, b) in enumerate(intervals):
        out += [" x [" if i else "[", shown(a, 20), ", ", shown(b, 20), "]"]
    return out


def poly_words(p: Poly) -> list[str | Cut]:
    """``Polynomial p: ...`` (basis, domains, degree, coefficient norm)."""
    ivs = [iv for iv in p.domains if iv is not None]
    dom: list[str | Cut] = [] if not ivs else [" on ", *interval_words(ivs)]
    shape = "" if p.d == 1 else f" (shape {list(p.shape)})"
    log2: str | Cut = "null" if p.l1_log2 is None else cut_text(p.l1_log2, 40)
    return ["Polynomial p: ", f"{p.basis} basis", *dom, f", {len(p.coeffs)} coefficients{shape}",
            f"; degree {p.degree}; coefficient l1 norm ", shown(p.l1), " (log2 ", log2, ")."]


def common_checks(s: Sup, ck: Checks) -> None:
    check_poly(ck, s.poly)
    ck.run("0 <= lower <= upper", lambda: (0 <= s.lower <= s.upper,
                                           f"lower = {show(s.lower)}, upper = {show(s.upper)}"))
    max_error, dec = s.max_error, s.upper_decimal
    if max_error is not None:
        ck.run("upper <= max_error", lambda: (s.upper <= max_error,
                                              f"upper = {show(s.upper)}, "
                                              f"max_error = {show(max_error)}"))
    if dec is not None:
        ck.run("upper_decimal", lambda: check_rounded_up(dec, s.upper, "upper_decimal"))
