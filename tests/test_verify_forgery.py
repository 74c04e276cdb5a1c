"""Construction forgery: edited certificates that name a construction never HOLD unless true.

For every construction name the verifier knows, genuine certificates are edited the way a
forger would: the polynomial replaced by another one meeting the same error bound (the
interpolant, the other method's polynomial, Sherstov under another reading, a coefficient
moved by 1e-50), the name changed (with or without the target, domain and max_error the
new name needs), the parameters changed (gamma, k, r, l, the reading, h_k's method).
After each edit every other field of the statement is re-derived with the certifier's
exact code (degree, coefficient norm, the exact error, its decimal rendering, the
witness), so that only the construction claim can be false.

The oracle deciding whether an edited statement is true rebuilds the named construction
with ``dpverify.constructions`` (the certifier's side, never ``dpverify.verify``) and
compares target, domain, max_error and polynomial exactly; ``least_degree`` is decided by
the least degree the certifier's exact minimax search finds.  Assertions: no false
statement holds, no true one fails.  The default run edits a representative subset; the
slow run edits everything and checks the counts published in docs/adversarial.md.
"""

from __future__ import annotations

import copy
import json
import pathlib
import re
from typing import Any

import pytest
from flint import fmpq, fmpq_poly

from dpverify.certify import certify
from dpverify.certify.finite import finite_max_error
from dpverify.constructions.chebyshev import and_polynomial, or_polynomial
from dpverify.constructions.decision_lists import h_polynomial
from dpverify.constructions.minimax import minimax_least_degree
from dpverify.constructions.sherstov import (
    READING_OPTIONS,
    exact_l_polynomial,
    rofk_polynomial,
    sherstov_parameters,
)
from dpverify.errors import DomainError, InvalidParameterError
from dpverify.exact import MonomialPoly, poly_from_json
from dpverify.numbers import fmpq_str, fmpq_to_decimal, log2_decimal, parse_exact
from dpverify.verify import verify_document

NAMES = ("or/chebyshev", "and/chebyshev", "or/minimax", "and/minimax", "rofk/sherstov",
         "rofk/minimax", "exact_l/sherstov", "dlist/h")
DOC = pathlib.Path(__file__).resolve().parents[1] / "docs" / "adversarial.md"
TINY = fmpq(1, 10**50)

_FIXTURES: dict[str, dict[str, Any]] = {}


def _doc(cert: Any) -> dict[str, Any]:
    return json.loads(cert.to_json())


def _dlist_minimax(k: int, gamma: str) -> dict[str, Any]:
    """``dlist/h`` with ``method: minimax`` as the format allows it: h_k(z) = 1 - g_k(k - z)
    for the minimax OR polynomial g_k, with the least-degree evidence of g_k reflected
    (points k - x, the same weights: the moment conditions and the bound are invariant)."""
    doc = _doc(certify(h_polynomial(k, gamma, method="minimax")))
    opt = or_polynomial(k, parse_exact(gamma) / k, method="minimax").extra["optimality"]
    st = doc["statement"]
    st["least_degree"] = {"pin": {"x": str(k), "value": "1"}}
    doc["evidence"]["least_degree"] = {"points": [str(k - int(x)) for x in opt["points"]],
                                       "weights": list(opt["weights"]), "bound": opt["bound"]}
    st["construction"] = {"name": "dlist/h", "params": {"k": k, "gamma": gamma,
                                                       "method": "minimax"}}
    return doc


#: label -> how to build a genuine certificate (all hold); the default run uses the first
#: fixture of each construction name
_MAKERS: dict[str, Any] = {
    "or/chebyshev k=12": lambda: certify(or_polynomial(12, "1/100")),
    "or/chebyshev k=1": lambda: certify(or_polynomial(1, "1/10")),
    "or/chebyshev k=50": lambda: certify(or_polynomial(50, "1e-6")),
    "and/chebyshev": lambda: certify(and_polynomial(9, "1/10")),
    "or/minimax": lambda: certify(or_polynomial(12, "1/100", method="minimax")),
    "and/minimax": lambda: certify(and_polynomial(9, "1/10", method="minimax")),
    "rofk/sherstov": lambda: certify(rofk_polynomial(2, 8, "1/10", intermediates="summary")),
    "rofk/sherstov log_base=2": lambda: certify(rofk_polynomial(
        2, 8, "1/10", reading={"log_base": "2"}, intermediates="summary")),
    "rofk/sherstov r=1 k=16": lambda: certify(rofk_polynomial(1, 16, "1/2",
                                                              intermediates="summary")),
    "rofk/minimax": lambda: certify(rofk_polynomial(3, 20, "1/10", method="minimax")),
    "exact_l/sherstov": lambda: certify(exact_l_polynomial(1, 8, "1/10",
                                                           intermediates="summary")),
    "exact_l/sherstov l=0": lambda: certify(exact_l_polynomial(0, 10, "1/10",
                                                               intermediates="summary")),
    "dlist/h": lambda: certify(h_polynomial(6, "1/5")),
    "dlist/h minimax": lambda: _dlist_minimax(6, "1/5"),
}


def fixture(label: str) -> dict[str, Any]:
    if label not in _FIXTURES:
        made = _MAKERS[label]()
        _FIXTURES[label] = made if isinstance(made, dict) else _doc(made)
    return _FIXTURES[label]


def fixtures(labels: Any = None) -> dict[str, dict[str, Any]]:
    """Genuine certificates, one or more per construction name (all hold)."""
    return {label: fixture(label) for label in (labels or _MAKERS)}


def first_of_each_name() -> list[str]:
    names: dict[str, str] = {}
    for label in _MAKERS:
        names.setdefault(label.split(" ")[0], label)
    return list(names.values())


# ------------------------------------------------------------------ the certifier's side


def _poly(st: dict[str, Any]) -> fmpq_poly:
    pj = st["polynomial"]
    return poly_from_json({k: pj[k] for k in ("basis", "coefficients", "domain")}).as_fmpq_poly()


def finish(doc: dict[str, Any], P: fmpq_poly | None = None) -> dict[str, Any]:
    """Re-derive, with the certifier's exact code, every field the polynomial fixes:
    degree, l1 norm and its log2, the exact error (lower = upper), its decimal, witness."""
    st = doc["statement"]
    poly = MonomialPoly.from_fmpq_poly(_poly(st) if P is None else P)
    norm = poly.coefficient_norm()
    st["polynomial"] = {"basis": "monomial", "domain": None,
                        "coefficients": [fmpq_str(c) for c in poly.coeffs],
                        "degree": poly.degree,
                        "coefficient_norm": {"l1": fmpq_str(norm),
                                             "l1_log2": log2_decimal(norm) if norm else None}}
    res = finite_max_error(poly, st["target"], st["domain"])
    assert res.exact
    st["error"] = {"lower": fmpq_str(res.upper), "upper": fmpq_str(res.upper),
                   "upper_decimal": fmpq_to_decimal(res.upper, 20, "up")}
    doc["evidence"]["witness"] = fmpq_str(res.witness)
    return doc


def _reference(con: dict[str, Any]) -> Any:
    """The named construction built by dpverify.constructions; False where it refuses the
    parameters (the name then claims something false); None outside the oracle's reach."""
    name, p = con["name"], dict(con["params"])
    k, g = p.get("k"), parse_exact(p["gamma"])
    if not isinstance(k, int) or not 1 <= k <= 64:
        return None
    try:
        if name in ("or/chebyshev", "and/chebyshev", "or/minimax", "and/minimax"):
            build = or_polynomial if name.startswith("or") else and_polynomial
            return build(k, g, method=name.split("/")[1])
        if name in ("rofk/sherstov", "rofk/minimax"):
            if name == "rofk/minimax":
                return rofk_polynomial(p["r"], k, g, method="minimax")
            return rofk_polynomial(p["r"], k, g, reading=p.get("reading"),
                                   intermediates="summary")
        if name == "exact_l/sherstov":
            return exact_l_polynomial(p["l"], k, g, reading=p.get("reading"),
                                      intermediates="summary")
        return h_polynomial(k, g, method=p.get("method", "chebyshev"))
    except DomainError:
        return False
    except InvalidParameterError as exc:
        return None if "max_degree" in str(exc) else False


def _least_degree_true(st: dict[str, Any], P: fmpq_poly) -> bool:
    """``least_degree``: p meets the pin and no polynomial of smaller degree (with the pin)
    has max |f - q| <= max_error (the certifier's exact least-degree search)."""
    pin = st["least_degree"]["pin"]
    dom, tgt = st["domain"], st["target"]
    if "max_error" not in st or dom["kind"] != "integers" or dom["lo"] != 0:
        return False
    pair = None if pin is None else (int(parse_exact(pin["x"])), parse_exact(pin["value"]))
    if pair is not None and P(fmpq(pair[0])) != pair[1]:
        return False
    try:
        least = minimax_least_degree(tgt, dom["hi"], parse_exact(st["max_error"]), pin=pair)
    except InvalidParameterError:
        return False
    return P.degree() <= least.poly.degree


def truth(doc: dict[str, Any]) -> bool | None:
    """Is the edited statement true?  (Fields re-derived by :func:`finish` are.)"""
    st = doc["statement"]
    P = _poly(st)
    if "max_error" in st and parse_exact(st["max_error"]) < parse_exact(st["error"]["upper"]):
        return False
    if "least_degree" in st and not _least_degree_true(st, P):
        return False
    con = st.get("construction")
    if con is None:
        return True
    ref = _reference(con)
    if ref is None or ref is False:
        return ref
    if con["name"].endswith("/minimax") or con["params"].get("method") == "minimax":
        pin = {"or": {"x": "0", "value": "0"}, "and": {"x": str(con["params"]["k"]),
                                                       "value": "1"}, "rofk": None,
               "dlist": {"x": str(con["params"]["k"]), "value": "1"}}[con["name"].split("/")[0]]
        if st.get("least_degree") != {"pin": pin}:
            return False
    return (ref.poly.as_fmpq_poly() == P and ref.target == st["target"]
            and ref.domain == st["domain"] and ref.claims["max_error"] == st.get("max_error"))


# ------------------------------------------------------------------ the edits


def _params_for(name: str, doc: dict[str, Any]) -> dict[str, Any]:
    """Parameters for ``name`` taken from a certificate of another construction."""
    old = doc["statement"]["construction"]["params"]
    tgt = doc["statement"]["target"]
    k = old["k"]
    p: dict[str, Any] = {"k": k, "gamma": old["gamma"]}
    if name.startswith("rofk"):
        p = {"r": old.get("r", tgt.get("r", 1)), **p}
    if name == "exact_l/sherstov":
        p = {"l": old.get("l", tgt.get("l", k)), **p}
    return p


def _needs(name: str, params: dict[str, Any]) -> tuple[dict[str, Any], str]:
    """(target, max_error) a statement naming ``name`` with ``params`` must have."""
    k, g = params["k"], parse_exact(params["gamma"])
    fam = name.split("/")[0]
    if fam in ("exact_l", "dlist"):
        return {"kind": "indicator", "l": params.get("l", k)}, fmpq_str(g / k)
    r = {"or": 1, "and": k}.get(fam, params.get("r", 1))
    return {"kind": "threshold", "r": r}, fmpq_str(g)


def _interpolant(st: dict[str, Any]) -> fmpq_poly:
    dom, tgt = st["domain"], st["target"]
    xs = list(range(dom["lo"], dom["hi"] + 1))
    ys = [fmpq(int(x >= tgt["r"])) if tgt["kind"] == "threshold" else fmpq(int(x == tgt["l"]))
          for x in xs]
    out = fmpq_poly([0])
    for i, xi in enumerate(xs):
        term = fmpq_poly([ys[i]])
        for j, xj in enumerate(xs):
            if j != i:
                term *= fmpq_poly([-xj, 1]) / (xi - xj)
        out += term
    return out


def _other_method(name: str, params: dict[str, Any]) -> fmpq_poly | None:
    """The polynomial of the other method for the same parameters (None: none)."""
    k, g = params["k"], parse_exact(params["gamma"])
    other = {"or/chebyshev": lambda: or_polynomial(k, g, method="minimax"),
             "or/minimax": lambda: or_polynomial(k, g),
             "and/chebyshev": lambda: and_polynomial(k, g, method="minimax"),
             "and/minimax": lambda: and_polynomial(k, g),
             "rofk/sherstov": lambda: rofk_polynomial(params["r"], k, g, method="minimax"),
             "rofk/minimax": lambda: rofk_polynomial(params["r"], k, g,
                                                     intermediates="summary"),
             "dlist/h": lambda: h_polynomial(k, g, method="minimax"
                                             if params.get("method") != "minimax"
                                             else "chebyshev")}.get(name)
    if other is None:
        return None
    try:
        return other().poly.as_fmpq_poly()
    except (DomainError, InvalidParameterError):
        return None


def edits(label: str, base: dict[str, Any]) -> list[tuple[str, Any]]:
    """Every edit of one genuine certificate (see the module docstring), as ``(what,
    make)``: ``make()`` builds the edited document (lazily: a subset run builds only what
    it uses)."""
    out: list[tuple[str, Any]] = []
    con = base["statement"]["construction"]
    name, params = con["name"], con["params"]
    P = _poly(base["statement"])

    def add(what: str, fn: Any, refinish: bool = True, poly: Any = None) -> None:
        """``poly``: None (keep the polynomial) or a function returning the new one."""
        def make() -> dict[str, Any]:
            doc = copy.deepcopy(base)
            fn(doc)
            return finish(doc, None if poly is None else poly()) if refinish else doc

        out.append((f"{label}: {what}", make))

    # rename, keeping the rest / taking the target and max_error the new name needs
    for new in NAMES:
        if new == name:
            continue
        ps = _params_for(new, base)

        def rename(doc: dict[str, Any], new: str = new, ps: dict[str, Any] = ps) -> None:
            doc["statement"]["construction"] = {"name": new, "params": ps}

        def retarget(doc: dict[str, Any], new: str = new, ps: dict[str, Any] = ps) -> None:
            doc["statement"]["construction"] = {"name": new, "params": ps}
            tgt, me = _needs(new, ps)
            doc["statement"]["target"], doc["statement"]["max_error"] = tgt, me

        add(f"renamed {new}", rename, refinish=False)
        add(f"renamed {new}, target and max_error of {new}", retarget)
    # another polynomial meeting the same bound
    add("the interpolant (error 0)", lambda d: None, poly=lambda: _interpolant(base["statement"]))
    if name != "exact_l/sherstov":
        add("the other method's polynomial", lambda d: None,
            poly=lambda: _other_method(name, params))
    for j in sorted({0, 1, P.degree() // 2, max(P.degree(), 0)}):
        for sign in (1, -1):
            bump = fmpq_poly([0] * j + [sign * TINY])
            add(f"c[{j}] {'+' if sign > 0 else '-'} 1e-50, error re-derived", lambda d: None,
                poly=lambda bump=bump: P + bump)
    add("a term 1e-50 x^(degree+1) added", lambda d: None,
        poly=lambda: P + fmpq_poly([0] * (P.degree() + 1) + [TINY]))
    # Sherstov: the polynomial of another reading, under this one; the reading relabelled
    if "reading" in params:
        for key, values in READING_OPTIONS.items():
            if key not in params["reading"]:
                continue
            for v in values:
                if v == params["reading"][key]:
                    continue
                rd = {**params["reading"], key: v}
                if _defined(name, params, rd):
                    add(f"polynomial of reading {key}={v}", lambda d: None,
                        poly=lambda rd=rd: _reading_poly(name, params, rd))

                def relabel(doc: dict[str, Any], rd: dict[str, str] = rd) -> None:
                    doc["statement"]["construction"]["params"]["reading"] = rd

                add(f"reading relabelled {key}={v}", relabel, refinish=False)
    # parameters changed (the statement's target, domain and max_error follow them)
    g = parse_exact(params["gamma"])
    for new_g in (g * (1 + fmpq(1, 10**9)), g / 2, min(2 * g, (1 + g) / 2)):
        def regamma(doc: dict[str, Any], new_g: fmpq = new_g) -> None:
            ps = doc["statement"]["construction"]["params"]
            ps["gamma"] = fmpq_str(new_g)
            doc["statement"]["max_error"] = _needs(name, ps)[1]

        add(f"gamma -> {fmpq_str(new_g)[:20]}", regamma)
    for key in ("k", "r", "l"):
        if key not in params:
            continue
        for step in (-1, 1):
            def reparam(doc: dict[str, Any], key: str = key, step: int = step) -> None:
                st = doc["statement"]
                ps = st["construction"]["params"]
                ps[key] += step
                st["target"], st["max_error"] = _needs(name, ps)
                st["domain"] = {"kind": "integers", "lo": 0, "hi": ps["k"]}

            if params[key] + step >= (0 if key == "l" else 1):
                add(f"{key} {'+' if step > 0 else '-'} 1", reparam)
    if name == "dlist/h":
        def flip(doc: dict[str, Any]) -> None:
            ps = doc["statement"]["construction"]["params"]
            ps["method"] = "chebyshev" if ps.get("method") == "minimax" else "minimax"

        add("h_k's method flipped", flip, refinish=False)
    return out


def _reading_poly(name: str, params: dict[str, Any], rd: dict[str, str]) -> fmpq_poly:
    if name == "rofk/sherstov":
        a = rofk_polynomial(params["r"], params["k"], params["gamma"], reading=rd,
                            intermediates="summary", max_degree=4000)
    else:
        a = exact_l_polynomial(params["l"], params["k"], params["gamma"], reading=rd,
                               intermediates="summary", max_degree=4000)
    return a.poly.as_fmpq_poly()


def _defined(name: str, params: dict[str, Any], rd: dict[str, str]) -> bool:
    """Whether the construction is defined (and not over 4000 in degree) under ``rd``."""
    ell = params.get("l", 0)
    ells = [ell] if name == "exact_l/sherstov" else list(
        range(0 if rd.get("ell_range", "0..r-1") == "0..r-1" else 1, params["r"]))
    try:
        prm = sherstov_parameters(max(ells, default=0) + 1, params["k"], params["gamma"],
                                  {**rd, "ell_range": "0..r-1"})
    except (DomainError, InvalidParameterError):
        return False
    return bool(ells) and max(prm.degree[e] for e in ells) <= 4000


def run(select: Any = None, labels: Any = None) -> dict[str, dict[str, int]]:
    """Every edit of the fixtures ``labels`` (default all), or those ``select(what, i)``
    keeps; counts per construction name: edits, false statements (none may hold), true
    ones (none may fail)."""
    counts: dict[str, dict[str, int]] = {}
    bad = []
    for label, base in fixtures(labels).items():
        assert verify_document(base).status == "holds", label
        assert truth(base) is True, label
        name = base["statement"]["construction"]["name"]
        c = counts.setdefault(name, {"edits": 0, "false": 0, "true": 0, "undecided": 0})
        for i, (what, make) in enumerate(edits(label, base)):
            if select is not None and not select(what, i):
                continue
            doc = make()
            t = truth(doc)
            rep = verify_document(doc)
            c["edits"] += 1
            c["false" if t is False else "true" if t else "undecided"] += 1
            if rep.ok and t is not True:
                bad.append(f"HOLDS but {'false' if t is False else 'not decided'}: {what}")
            if t is True and rep.status == "fails":
                bad.append(f"true but refuted: {what}: {rep.reason}")
    assert not bad, "\n".join(bad)
    return counts


def test_representative_forgeries():
    """One edit of each family for each construction name (the default run)."""
    families = ("renamed rofk/sherstov, target", "the interpolant", "the other method",
                "c[1] + 1e-50", "polynomial of reading log_base", "k + 1")
    seen: set[tuple[str, str]] = set()

    def keep(what: str, i: int) -> bool:
        label = what.split(": ")[0]
        fam = next((f for f in families if f in what), None)
        if fam is None or (label, fam) in seen:
            return False
        seen.add((label, fam))
        return True

    counts = run(keep, first_of_each_name())
    assert sum(c["false"] for c in counts.values()) >= 25


@pytest.mark.slow
def test_every_forgery_and_the_published_counts():
    counts = run()
    text = DOC.read_text()
    for name, c in counts.items():
        row = re.search(rf"^\| `{re.escape(name)}` \| (\d+) \| (\d+) \| (\d+) \|", text, re.M)
        assert row is not None, f"docs/adversarial.md has no row for {name}"
        assert (int(row[1]), int(row[2]), int(row[3])) == (c["edits"], c["false"], c["true"]), \
            (name, c)
    total = re.search(r"^\| total \| (\d+) \| (\d+) \| (\d+) \|", text, re.M)
    assert total is not None
    assert (int(total[1]), int(total[2]), int(total[3])) == tuple(
        sum(c[key] for c in counts.values()) for key in ("edits", "false", "true"))


# ------------------------------------------------------------------ the reported cases


def test_the_rofk_interpolant_does_not_hold():
    """rofk/sherstov r=2 k=5 with its polynomial replaced by the degree-5 interpolant
    (error 0, within any gamma): it is not Sherstov's polynomial."""
    doc = _doc(certify(rofk_polynomial(2, 5, "1/10", intermediates="summary")))
    forged = finish(doc, fmpq_poly([0, fmpq(-163, 60), fmpq(109, 24), fmpq(-9, 4),
                                    fmpq(11, 24), fmpq(-1, 30)]))
    # hand check: the interpolant of 1[t >= 2] on 0..5 (p(0) = p(1) = 0, p(2..5) = 1)
    assert [_poly(forged["statement"])(fmpq(t)) for t in range(6)] == [0, 0, 1, 1, 1, 1]
    rep = verify_document(forged)
    assert rep.status == "fails"
    assert ("construction polynomial", False) in [(n, ok) for n, ok, _ in rep.checks]


def test_dlist_h_renamed_exact_l_does_not_hold():
    doc = _doc(certify(h_polynomial(5, "1/10")))
    doc["statement"]["construction"] = {"name": "exact_l/sherstov",
                                        "params": {"l": 5, "k": 5, "gamma": "1/10"}}
    rep = verify_document(doc)
    assert rep.status == "fails"
    assert any(n == "construction polynomial" and ok is False for n, ok, _ in rep.checks)


def test_or_minimax_moved_by_1e_50_does_not_hold():
    doc = _doc(certify(or_polynomial(12, "1/100", method="minimax")))
    P = _poly(doc["statement"])
    forged = finish(doc, P + fmpq_poly([0, TINY]))
    assert parse_exact(forged["statement"]["error"]["upper"]) <= fmpq(1, 100)  # still meets it
    rep = verify_document(forged)
    assert rep.status == "fails"
    detail = dict((n, d) for n, _, d in rep.checks)["construction polynomial"]
    assert "does not alternate" in detail


def test_every_name_holds_when_genuine_and_says_how_it_was_checked():
    for label, doc in fixtures(first_of_each_name()).items():
        rep = verify_document(doc)
        assert rep.ok, (label, rep.reason)
        detail = dict((n, d) for n, _, d in rep.checks)["construction polynomial"]
        assert any(w in detail for w in ("differential equation", "rebuilt exactly",
                                         "alternates", "must be x")), (label, detail)
