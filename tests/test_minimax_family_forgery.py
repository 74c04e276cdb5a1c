"""Forged weighted, relative and family certificates (kinds ``minimax`` and weighted
``supnorm-box``): every edit below makes the statement false, provably so from the genuine
certificate alone, and the independent verifier must not say HOLDS (docs/adversarial.md,
*Weighted and family minimax forgery*).

Why each edit is false (``lo``, ``up``: the genuine bracket, ``E <= sup <= up``,
``sup >= lo``):

* **upper below the supremum**: ``upper := lo (1 - 1e-4)``, ``lower := 0``;
* **lower above E**: ``lower := up (1 + 1e-3)``, ``upper := up (1 + 1e-2)``;
* **polynomial moved**: ``c_k += delta`` for a free ``k`` with ``|delta| b^k min|w| > 2 up``
  (then ``sup |w (f - p)| > up`` at the end ``b``), bracket kept;
* **not in the family**: a fixed value changed, a free power with a non-zero coefficient
  dropped from ``monomials``, a term outside the family added;
* **annihilator**: one weight changed by one (the annihilating weights of ``m + 1`` points
  in general position are unique up to scale), or all weights zero;
* **points**: two alternation points swapped, or one moved outside the interval.

The default run forges one certificate of each kind; ``-m slow`` all of them.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from fractions import Fraction
from typing import Any

import pytest

import dpverify
from dpverify.certify.claims import polynomial_statement
from dpverify.exact import MonomialPoly
from dpverify.numbers import parse_exact
from dpverify.verify import Malformed, verify_document

FIXTURES: dict[str, Callable[[], dict[str, Any]]] = {
    "relative, p(0) = 1": lambda: dpverify.minimax(
        "exp(x)", 6, ("-1/4", "1/4"), relative=True, fix={0: 1}, rtol="1e-5").data,
    "odd powers": lambda: dpverify.minimax(
        "sin(x)", 7, (-1, 1), monomials="odd", rtol="1e-5").data,
    "even powers, weight": lambda: dpverify.minimax(
        "cos(x)", 6, (-1, 1), monomials="even", weight="1 + x^2", rtol="1e-5").data,
    "relative, dense": lambda: dpverify.minimax(
        "2^x", 5, (0, 1), relative=True, rtol="1e-5").data,
    "machine, relative (supnorm-box)": lambda: dpverify.fpminimax(
        "exp(x)", 5, ("-1/4", "1/4"), format="binary32", relative=True,
        rtol="1e-5").certificate.data,
}
DEFAULT = ("relative, p(0) = 1", "machine, relative (supnorm-box)")


def _q(s: str) -> Fraction:
    v = parse_exact(s)
    return Fraction(int(v.p), int(v.q))


def _set_poly(doc: dict[str, Any], cs: list[Fraction]) -> None:
    doc["statement"]["polynomial"] = polynomial_statement(MonomialPoly(cs))


def _coeffs(doc: dict[str, Any]) -> list[Fraction]:
    poly = doc["statement"]["polynomial"]
    assert poly["basis"] == "monomial"
    return [_q(c) for c in poly["coefficients"]]


def edits(doc: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    """(label, forged document) for every applicable edit (module docstring)."""
    st = doc["statement"]
    lo, up = _q(st["error"]["lower"]), _q(st["error"]["upper"])
    a, b = (_q(v) for v in st["domain"]["intervals"][0])
    out: list[tuple[str, dict[str, Any]]] = []

    def edit(label: str, fn: Callable[[dict[str, Any]], None]) -> None:
        d = copy.deepcopy(doc)
        fn(d)
        out.append((label, d))

    def upper_low(d: dict[str, Any]) -> None:
        d["statement"]["error"] = {"lower": "0", "upper": str(lo * (1 - Fraction(1, 10**4)))}

    def lower_high(d: dict[str, Any]) -> None:
        d["statement"]["error"] = {"lower": str(up * (1 + Fraction(1, 10**3))),
                                   "upper": str(up * (1 + Fraction(1, 10**2)))}
    edit("upper below the supremum", upper_low)
    edit("lower above E", lower_high)
    cs = _coeffs(doc)
    free = st.get("monomials") or [k for k, c in enumerate(cs) if c != 0]
    fixed = {d["power"] for d in st.get("fixed") or []}
    xmax = max(abs(a), abs(b))
    # at the end where |x| = xmax the weights of the fixtures are >= 1/2 > 1/4, so
    # |w delta x^k| = 8 |w| up > 2 up there and sup |w (f - p)| > up
    for k in (free[0], free[-1]):
        delta = 8 * up / xmax**k

        def move(d: dict[str, Any], k: int = k, delta: Fraction = delta) -> None:
            c = list(cs) + [Fraction(0)] * (k + 1 - len(cs))
            c[k] += delta
            _set_poly(d, c)
        edit(f"coefficient of x^{k} moved", move)
    if fixed:
        k0 = min(fixed)

        def fix_changed(d: dict[str, Any]) -> None:
            d["statement"]["fixed"][0]["value"] = str(_q(d["statement"]["fixed"][0]["value"])
                                                      + Fraction(1, 2**40))
        edit("fixed value changed", fix_changed)
        del k0
    if "monomials" in st:
        nz = [k for k in st["monomials"] if k < len(cs) and cs[k] != 0]

        def drop(d: dict[str, Any], k: int = nz[len(nz) // 2]) -> None:
            d["statement"]["monomials"] = [j for j in d["statement"]["monomials"] if j != k]
        edit("a free power dropped", drop)
        outside = next(k for k in range(len(cs) + 1) if k not in st["monomials"]
                       and k not in fixed)

        def add_term(d: dict[str, Any], k: int = outside) -> None:
            c = list(cs) + [Fraction(0)] * (k + 1 - len(cs))
            c[k] += Fraction(1, 2**60)
            _set_poly(d, c)
        if outside < len(cs):
            edit("a term outside the family", add_term)
    if "annihilator" in doc.get("evidence", {}):
        def ann(d: dict[str, Any]) -> None:
            v = d["evidence"]["annihilator"]
            v[1] = str(int(v[1]) + 1)

        def ann0(d: dict[str, Any]) -> None:
            d["evidence"]["annihilator"] = ["0"] * len(d["evidence"]["annihilator"])
        edit("annihilating weight changed", ann)
        edit("annihilating weights zero", ann0)
    if "alternation" in doc.get("evidence", {}):
        def swap(d: dict[str, Any]) -> None:
            p = d["evidence"]["alternation"]
            p[0], p[1] = p[1], p[0]

        def outside_pt(d: dict[str, Any]) -> None:
            d["evidence"]["alternation"][-1] = str(b + 1)
        edit("points swapped", swap)
        edit("a point outside the interval", outside_pt)
    return out


def _not_holds(doc: dict[str, Any]) -> str:
    try:
        return verify_document(doc).status
    except Malformed:
        return "malformed"


def _run(name: str) -> tuple[int, int]:
    doc = FIXTURES[name]()
    assert verify_document(doc).status == "holds"
    forged = edits(doc)
    held = [label for label, d in forged if _not_holds(d) == "holds"]
    assert not held, f"{name}: forged statements held: {held}"
    return len(forged), len(forged) - len(held)


@pytest.mark.parametrize("name", DEFAULT)
def test_forgeries_refused(name):
    total, refused = _run(name)
    assert total >= 4 and refused == total


@pytest.mark.slow
def test_every_forgery_refused():
    """The counts published in docs/adversarial.md."""
    counts = {name: _run(name) for name in FIXTURES}
    assert sum(t for t, _ in counts.values()) == sum(r for _, r in counts.values())
    print(counts)
