"""Kind ``float-error``: ``|f(x) - fl(p(x))| <= bound`` for every binary64 ``x`` in
``[A, B]``, ``fl(p(x))`` the binary64 evaluation of ``p`` by the stated scheme.

Two forms.  With ``evidence.tree`` (schemes of SCHEMES.md, binary32, relative errors,
ulps) the statement is checked one piece at a time by :mod:`.scheme_error`.  The form
below, with two embedded certificates, is the original binary64 one.

The evidence is two complete certificates, ``evidence.parts.approximation`` (kind
``supnorm-box``: ``sup |f - p| <= upper`` on ``[A, B]``) and ``evidence.parts.evaluation``
(kind ``evalbound``: ``|fl(p(x)) - p(x)| <= bound``).  Each is validated against its
schema and checked in full by its own kind's checker (its checks are reported with the
part's name in front); the checker requires that both are about this statement's
polynomial, target and interval (exact equality of every number) and that
``approximation upper + evaluation bound <= approximation_error + evaluation_error <=
bound``.  The triangle inequality ``|f - fl(p)| <= |f - p| + |p - fl(p)|`` then gives the
statement.  Each part can also be checked alone: ``dpverify verify FILE --part NAME``.
"""

from __future__ import annotations

from typing import Any

from flint import fmpq

from .box import verify_box
from .evalbound import (
    Scheme,
    arithmetic,
    exact_form,
    min_abs_at_least,
    read_scheme,
    scheme_words,
    verify_evalbound,
)
from .fpmodel import flog2, pow2
from .load import validate
from .numbers import JsonObject, check_rounded_up, expect_keys, read_exact, read_list, show
from .poly import read_interval
from .report import Checks, Malformed
from .scheme_error import verify_total_error

__all__ = ["PARTS", "verify_float_error"]

#: part name -> the kind it must have
PARTS = {"approximation": "supnorm-box", "evaluation": "evalbound"}
_OWN = ("scheme", "arithmetic", "polynomial", "interval", "target", "bound",
        "approximation_error", "evaluation_error")


def _exact_list(v: object, where: str) -> list[fmpq]:
    return [read_exact(x, where) for x in read_list(v, where, 1, 10**6)]


def _same_poly(mine: Scheme, pj: object, where: str) -> bool:
    pj = expect_keys(pj, where, ("basis", "coefficients"),
                     ("domain", "degree", "coefficient_norm", "shape", "domains"))
    basis = "chebyshev" if mine.name == "clenshaw" else "monomial"
    if pj["basis"] != basis or "shape" in pj:
        return False
    if _exact_list(pj["coefficients"], f"{where}.coefficients") != mine.coeffs:
        return False
    dom = pj.get("domain")
    if mine.domain is None:
        return dom is None
    return dom is not None and read_interval(dom, f"{where}.domain") == mine.domain


def _consistent(name: str, part: JsonObject, s: Scheme, target: JsonObject,
                claim: fmpq) -> tuple[bool, str]:
    """Is the part about this statement, with a bound ``<= claim``?"""
    st = part["statement"]
    if not isinstance(st, dict):
        return False, "statement is not an object"
    where = f"evidence.parts.{name}.statement"
    if not _same_poly(s, st.get("polynomial"), f"{where}.polynomial"):
        return False, "its polynomial is not this statement's"
    if name == "approximation":
        t = st.get("target")
        if not isinstance(t, dict) or t.get("kind") != "expr" or t.get("expr") != \
                target["expr"] or t.get("variables") != target["variables"]:
            return False, "its target is not this statement's"
        dom = st.get("domain")
        if not isinstance(dom, dict) or dom.get("kind") != "box":
            return False, "its domain is not a box"
        ivs = dom.get("intervals")
        if not isinstance(ivs, list) or len(ivs) != 1 or \
                read_interval(ivs[0], f"{where}.domain") != s.interval:
            return False, "its domain is not this statement's interval"
        err = st.get("error")
        up = read_exact(err.get("upper") if isinstance(err, dict) else None, f"{where}.error")
        return up <= claim, f"sup |f - p| <= {show(up)}; approximation_error = {show(claim)}"
    if st.get("scheme") != s.name or st.get("format", "binary64") != s.fmt.name or \
            st.get("arithmetic") != arithmetic(s.fmt, s.name == "horner-fma") or \
            read_interval(st.get("interval"), f"{where}.interval") != s.interval:
        return False, "its scheme, format or interval is not this statement's"
    b = read_exact(st.get("bound"), f"{where}.bound")
    return b <= claim, f"|fl(p) - p| <= {show(b)}; evaluation_error = {show(claim)}"


def _run_part(name: str, part: JsonObject, ck: Checks, words: list[str]) -> None:
    sub = Checks(None, ck.progress)
    sub.deadline = ck.deadline
    try:
        if name == "approximation":
            verify_box(part["statement"], part.get("evidence"), sub, words)
        else:
            verify_evalbound(part["statement"], part.get("evidence"), sub, words)
    finally:
        ck.items += [(f"{name}: {n}", ok, d) for n, ok, d in sub.items]


def verify_float_error(st: object, evidence: object, ck: Checks, out: list[str]) -> None:
    if isinstance(evidence, dict) and "tree" in evidence:
        # the one-piece-at-a-time form (schemes, binary32, relative errors, ulps)
        verify_total_error(st, evidence, ck, out)
        return
    st = expect_keys(st, "statement", _OWN, ("bound_decimal", "ulps"))
    s = read_scheme(st)
    target = expect_keys(st["target"], "statement.target", ("kind", "expr", "variables"))
    if target["kind"] != "expr" or not isinstance(target["expr"], str) or \
            target["variables"] != ["x"]:
        raise Malformed("statement.target: an expr target in the variable x")
    bound = read_exact(st["bound"], "statement.bound")
    approx = read_exact(st["approximation_error"], "statement.approximation_error")
    evalerr = read_exact(st["evaluation_error"], "statement.evaluation_error")
    dec = st.get("bound_decimal")
    if dec is not None:
        read_exact(dec, "statement.bound_decimal")
    ulps = None
    if st.get("ulps") is not None:
        uj = expect_keys(st["ulps"], "statement.ulps", ("ulps", "f_lower"))
        ulps = (read_exact(uj["ulps"], "statement.ulps.ulps"),
                read_exact(uj["f_lower"], "statement.ulps.f_lower"))
        if ulps[1] <= 0:
            raise Malformed("statement.ulps.f_lower: must be > 0")
    parts = expect_keys(expect_keys(evidence, "evidence", ("parts",))["parts"],
                        "evidence.parts", tuple(PARTS))
    docs: dict[str, Any] = {}
    for name, kind in PARTS.items():
        part = parts[name]
        try:
            validate(part)
        except Malformed as exc:
            raise Malformed(f"evidence.parts.{name}: {exc}") from None
        if part.get("kind") != kind:
            raise Malformed(f"evidence.parts.{name}: a {kind} certificate")
        docs[name] = part
    out.append(f"Target: f(x) = {target['expr'][:200]}.")
    out.extend(scheme_words(s))
    out.append(f"Claim: |f(x) - fl(p(x))| <= {show(bound)} for every such x (parts: "
               "approximation, sup |f - p|; evaluation, |fl(p(x)) - p(x)|).")
    if ulps is not None:
        out.append(f"Claim: |f(x)| >= {show(ulps[1])} there, so |f(x) - fl(p(x))| <= "
                   f"{show(ulps[0])} ulp(f(x)) (ulp(y) = 2^(max(floor(log2 |y|), -1022) - 52)).")
    if dec is not None:
        ck.run("bound_decimal", lambda: check_rounded_up(dec, bound, "bound_decimal"))
    ck.run("approximation_error + evaluation_error <= bound",
           lambda: (approx + evalerr <= bound, f"{show(approx)} + {show(evalerr)} vs "
                    f"{show(bound)}"))
    if ulps is not None:
        n_ulps, f_low = ulps
        unit = pow2(max(flog2(f_low), -1022) - 52)
        ck.run("bound <= ulps x ulp(f_lower)",
               lambda: (bound <= n_ulps * unit, f"{show(bound)} vs {show(n_ulps)} x {show(unit)}"))

        def f_lower_holds() -> tuple[bool | None, str]:
            P, lo, hi = exact_form(s)
            ok = min_abs_at_least(P, lo, hi, f_low + approx)
            return (True if ok else None), (
                f"min |p| >= f_lower + approximation_error = {show(f_low + approx)} on the "
                f"interval: {'proven' if ok else 'not proven'}")

        ck.run("|f| >= f_lower (from min |p| - approximation_error)", f_lower_holds)
    for name, claim in (("approximation", approx), ("evaluation", evalerr)):
        def consistent(n: str = name, c: fmpq = claim) -> tuple[bool, str]:
            return _consistent(n, docs[n], s, target, c)

        if ck.run(f"part {name} is about this statement", consistent):
            _run_part(name, docs[name], ck, [])
