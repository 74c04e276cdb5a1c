"""The statement of ``supnorm-finite`` / ``supnorm-box``: reading, words, common checks.

The claim is: the polynomial has the stated degree and coefficient norm, and
``lower <= sup_{x in domain} |target(x) - p(x)| <= upper``; optionally ``upper <= max_error``,
an ``upper_decimal`` rendering, ``least_degree`` and a ``construction``.  This module reads
it exactly (Malformed on anything structural) and makes the checks that need no
evaluation of the target; ``finite.py`` and ``box.py`` do the rest.
"""

from __future__ import annotations

from dataclasses import dataclass

from flint import fmpq

from .expr import CONSTANTS, FUNCTIONS, IDENT, IvAlg, parse, point, run
from .numbers import (
    check_rounded_up,
    expect_keys,
    read_error_claim,
    read_exact,
    read_int,
    read_list,
    show,
)
from .poly import Poly, check_poly, read_interval, read_poly
from .report import Checks, Malformed

MAX_POINTS = 10_000_000
BIG = 10**15
NAMES = {"or/chebyshev": ("k", "gamma"), "and/chebyshev": ("k", "gamma"),
         "or/minimax": ("k", "gamma"), "and/minimax": ("k", "gamma"),
         "rofk/sherstov": ("r", "k", "gamma"), "rofk/minimax": ("r", "k", "gamma"),
         "exact_l/sherstov": ("l", "k", "gamma"), "dlist/h": ("k", "gamma")}


@dataclass
class Sup:
    kind: str
    poly: Poly
    target: dict
    domain: dict
    lower: fmpq
    upper: fmpq
    upper_decimal: str | None
    max_error: fmpq | None
    least_degree: dict | None  # {"pin": None | (z, v)}
    construction: tuple[str, dict] | None

    def size(self) -> int:
        dom = self.domain
        return dom["hi"] - dom["lo"] + 1 if dom["kind"] == "integers" else len(dom["points"])

    def points(self):
        dom = self.domain
        if dom["kind"] == "integers":
            return (fmpq(x) for x in range(dom["lo"], dom["hi"] + 1))
        return iter(dom["points"])

    def f_at(self, x: list[fmpq], index: int | None = None):
        """The target at a point: an exact fmpq, or an Iv at the current precision."""
        t = self.target
        if t["kind"] == "threshold":
            return fmpq(int(x[0] >= t["r"]))
        if t["kind"] == "indicator":
            return fmpq(int(x[0] == t["l"]))
        if t["kind"] == "values":
            return t["values"][index]
        iv = run(t["code"], IvAlg(), [point(v) for v in x])
        return iv.lo if iv.exact else iv


def _read_target(t: object, where: str) -> dict:
    kind = expect_keys(t, where, ("kind",), ("r", "l", "values", "expr", "variables"))["kind"]
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


def _read_domain(v: object, where: str) -> dict:
    kind = expect_keys(v, where, ("kind",), ("lo", "hi", "points", "intervals"))["kind"]
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
        expect_keys(v, where, ("kind", "intervals"))
        ivs = read_list(v["intervals"], f"{where}.intervals", 1, 3)
        return {"kind": kind, "intervals": [read_interval(x, f"{where}.intervals") for x in ivs]}
    raise Malformed(f"{where}.kind: unknown domain kind")


def read_sup(st: object, kind: str) -> Sup:
    opt = ("max_error", "construction") + (("least_degree",) if kind == "supnorm-finite" else ())
    expect_keys(st, "statement", ("polynomial", "target", "domain", "error"), opt)
    poly = read_poly(st["polynomial"], "statement.polynomial")
    target = _read_target(st["target"], "statement.target")
    domain = _read_domain(st["domain"], "statement.domain")
    lower, upper, dec, max_error = read_error_claim(st)
    ld = st.get("least_degree")
    if ld is not None:
        pin = expect_keys(ld, "statement.least_degree", ("pin",))["pin"]
        if pin is not None:
            expect_keys(pin, "statement.least_degree.pin", ("x", "value"))
            pin = (read_exact(pin["x"], "pin.x"), read_exact(pin["value"], "pin.value"))
        ld = {"pin": pin}
    con = st.get("construction")
    if con is not None:
        expect_keys(con, "statement.construction", ("name", "params"))
        if con["name"] not in NAMES:
            raise Malformed(f"statement.construction.name: unknown construction "
                            f"{str(con['name'])[:40]!r}")
        ps = expect_keys(con["params"], "statement.construction.params", NAMES[con["name"]])
        params = {k: (read_exact(v, f"params.{k}") if k == "gamma"
                      else read_int(v, f"params.{k}", -BIG, BIG)) for k, v in ps.items()}
        con = (con["name"], params)
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
    t, dom = s.target, s.domain
    tgt = {"threshold": lambda: f"f(x) = 1 if x >= {t['r']} else 0 (threshold)",
           "indicator": lambda: f"f(x) = 1 if x == {t['l']} else 0 (indicator)",
           "values": lambda: f"f given by {len(t['values'])} listed values",
           "expr": lambda: f"f({', '.join(t['variables'])}) = {t['text'][:200]}"}[t["kind"]]()
    where = {"integers": lambda: f"the integers {dom['lo']}..{dom['hi']}",
             "points": lambda: f"{len(dom['points'])} listed points",
             "box": lambda: " x ".join(f"[{show(a, 20)}, {show(b, 20)}]"
                                       for a, b in dom["intervals"])}[dom["kind"]]()
    out = [f"Target: {tgt}.", f"Domain: {where}.",
           f"Polynomial p: {s.poly.describe()}; degree {s.poly.degree}; coefficient l1 norm "
           f"{show(s.poly.l1)} (log2 {s.poly.l1_log2}).",
           f"Claim: {show(s.lower)} <= sup over the domain of |f - p| <= {show(s.upper)}"
           + (" (exact)." if s.lower == s.upper else ".")]
    if s.upper_decimal is not None:
        out.append(f"upper rounded up to decimal: {s.upper_decimal[:60]}.")
    if s.max_error is not None:
        out.append(f"Claim: sup |f - p| <= max_error = {show(s.max_error)}.")
    if s.least_degree is not None:
        pin = s.least_degree["pin"]
        pin = "" if pin is None else f" with q({show(pin[0])}) = {show(pin[1])}"
        out.append(f"Claim: no polynomial q of degree < {s.poly.degree}{pin} has "
                   f"max |f - q| <= max_error on the domain.")
    if s.construction is not None:
        out.append(f"Claim: this is construction {s.construction[0]} with "
                   + ", ".join(f"{k} = {show(v)}" for k, v in s.construction[1].items()) + ".")
    return out


def common_checks(s: Sup, ck: Checks) -> None:
    check_poly(ck, s.poly)
    ck.run("0 <= lower <= upper", lambda: (0 <= s.lower <= s.upper,
                                           f"lower = {show(s.lower)}, upper = {show(s.upper)}"))
    if s.max_error is not None:
        ck.run("upper <= max_error", lambda: (s.upper <= s.max_error,
                                              f"upper = {show(s.upper)}, "
                                              f"max_error = {show(s.max_error)}"))
    if s.upper_decimal is not None:
        ck.run("upper_decimal", lambda: check_rounded_up(s.upper_decimal, s.upper,
                                                         "upper_decimal"))
