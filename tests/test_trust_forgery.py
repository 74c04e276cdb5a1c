"""Forgeries generated from the table of statement fields (dpverify/verify/fields.py).

For every kind and every field of its table (``FIELDS``):

* **edits**: on each genuine certificate of the kind that carries the field, the value is
  changed the ways its type allows (an exact number moved by ``10^-30 (1 + |q|)`` either
  way, doubled, negated, set to 0 or ``q + 1``; an integer by +-1 or to 0; every other
  value of an enumeration; an expression rewritten to the same function and to nearby
  ones; a list's first or last entry moved, an entry added or dropped, the list reversed;
  an interval's ends moved or swapped), set to null, or deleted;
* **transplants**: the field, with its value from a genuine certificate of its kind, is put
  into genuine certificates of every other kind (and of its own kind where they lack it):
  ``construction`` into a box or a minimax statement, ``least_degree`` of one kind into
  another, ``max_error``, ``multipliers``, ``ulps``, ``basis`` ... (the field's nearest
  parent present in the target receives the source's value for the path below it).

The certificates embedded in a ``float-error`` certificate are genuine ``supnorm-box`` and
``evalbound`` certificates of their own (``dpverify verify FILE --part NAME``): they are
edited and receive transplants too (what ``--part`` checks), and the edited part is put
back in its parent, which must still answer (a report or Malformed).

Each forgery must fail (Malformed, fails or undecided) **unless its statement is still
true**.  Truth is decided without ``dpverify.verify``: by the oracles of
``tests/test_trust_mutation.py`` (the certifier's exact finite maximum, its interval
certifier with the stated bound as a claim, de la Vallee Poussin at the genuine evidence
points, the constructions rebuilt, the Lebesgue constant at a tighter tolerance) and of
``tests/test_verify_forgery.py`` (named constructions and least degrees), and by
monotonicity: a ``max_error`` or a decimal rendering at or above the proven ``upper`` is
true, one below it false.  No statement the oracles call false may hold, and none they
cannot decide may hold either.  The default run generates a representative subset (the
issue's reproducers among them); ``-m slow`` generates everything and prints the counts
published in docs/adversarial.md.
"""

from __future__ import annotations

import copy
import json
import pathlib
import re
from collections import Counter
from collections.abc import Callable, Iterator
from typing import Any

import _trust_oracles as oracles
import pytest
import test_trust_mutation as mutation
import test_verify_forgery as construction
from flint import fmpq

import dpverify
from dpverify import Approximation
from dpverify.certify import certify
from dpverify.certify.alternation import approx, minimax
from dpverify.certify.evalbound import evalbound
from dpverify.certify.roundoff import program_bound
from dpverify.certify.scheme_error import scheme_error_bound
from dpverify.constructions.remez import remez
from dpverify.exact import MonomialPoly
from dpverify.expr import parse
from dpverify.machine import machine_certificate
from dpverify.numbers import fmpq_str, fmpq_to_decimal, parse_exact
from dpverify.verify import Malformed, verify_document
from dpverify.verify.fields import FIELDS, schema_fields
from dpverify.verify.load import validate

DOC = pathlib.Path(__file__).resolve().parents[1] / "docs" / "adversarial.md"
_EXTRA: dict[str, dict[str, Any]] = {}


def _doc(cert: Any) -> dict[str, Any]:
    return json.loads(cert.to_json())


def _with_decimal(doc: dict[str, Any], digits: int) -> dict[str, Any]:
    """A genuine certificate with ``upper_decimal``: ``upper`` rounded up to ``digits``."""
    out = copy.deepcopy(doc)
    up = parse_exact(out["statement"]["error"]["upper"])
    out["statement"]["error"]["upper_decimal"] = fmpq_to_decimal(up, digits, "up")
    return out


def fixtures() -> dict[str, dict[str, Any]]:
    """Genuine certificates of every kind, together carrying every field of FIELDS."""
    if not _EXTRA:
        docs = dict(mutation._fixtures())
        docs.update({f"construction {k}": v for k, v in construction.fixtures().items()})
        docs["finite values on points"] = _doc(certify(Approximation(
            construction="mine", params={}, poly=MonomialPoly(["1/4", "1/2"]),
            target={"kind": "values", "values": ["0", "1", "1/2"]},
            domain={"kind": "points", "points": ["-1/2", "1", "1/3"]},
            claims={"max_error": "1"})))
        docs["finite expr on integers"] = _doc(certify(Approximation(
            construction="mine", params={}, poly=MonomialPoly([1, 1, "1/2"]),
            target={"kind": "expr", "expr": "exp(x/4)", "variables": ["x"]},
            domain={"kind": "integers", "lo": 0, "hi": 3})))
        docs["box-exp decimal"] = _with_decimal(docs["box-exp"], 4)
        docs["minimax-sin decimal"] = _with_decimal(docs["minimax-sin"], 3)
        for label in ("float-error", "float-error-cheb"):
            for name, part in docs[label]["evidence"]["parts"].items():
                docs[f"{label}:{name}"] = part
        docs.update({label: _doc(make()) for label, make in _LATER.items()})
        _EXTRA.update(docs)
    return _EXTRA


#: the FPCore fixture: binary32 by its :precision, the box by its :pre, a let binding
FPCORE = ('(FPCore (x y) :name "ratio" :precision binary32 :pre (and (<= 1 x 2) (<= 1/2 y 1)) '
          "(let ((s (+ x y))) (/ s (* x 2.5))))")

#: genuine certificates of the fields added after the first run: weighted, relative and
#: family minimax (with least degrees), weighted boxes, a requested interval, round-off of
#: an infix program, of a program calling exp and of an FPCore program (binary32, relative
#: error), float-error trees (estrin, parity, fma, binary32, ulps), evalbound in binary32
_LATER: dict[str, Callable[[], Any]] = {
    "minimax relative p(0)=1": lambda: minimax(
        "exp(x)", 4, ("-1/4", "1/4"), search=remez, relative=True, fix={0: 1}, rtol="1e-4"),
    "minimax even, weight": lambda: minimax(
        "cos(x)", 4, (-1, 1), search=remez, monomials="even", weight="1 + x^2", rtol="1e-4"),
    "approx relative": lambda: approx(
        "exp(x)", (0, 1), "1e-3", search=remez, relative=True, rtol="1e-4"),
    "approx odd, fixed": lambda: approx(
        "sin(x)", (0, 1), "1e-4", search=remez, monomials="odd", fix={1: 1}, rtol="1e-4"),
    "box relative binary32": lambda: dpverify.fpminimax(
        "exp(x)", 4, ("-1/4", "1/4"), format="binary32", relative=True,
        rtol="1e-4").certificate,
    "box weight": lambda: machine_certificate(
        parse("exp(x)"), MonomialPoly([1, 1, "1/2"]), (fmpq(-1, 2), fmpq(1, 2)),
        weight=parse("1 + x^2"), relative=False, hints=None, guess=fmpq(1, 40),
        rtol=fmpq(1, 10**4)),
    "box requested pi/2": lambda: dpverify.certify_approximation(
        "sin(x)", [0, 1, 0, "-1/6"], (0, "pi/2"), rtol="1e-4"),
    "roundoff infix": lambda: program_bound(
        "(x * x + 3) / (x + 1)", {"x": (1, 2)}, max_boxes=20).certificate(),
    "roundoff exp": lambda: program_bound(
        "exp(x) + y", {"x": (0, 1), "y": (1, 2)}, functions={"exp": 1},
        max_boxes=20).certificate(),
    "roundoff fpcore binary32 rel": lambda: program_bound(
        FPCORE, error="rel", round_inputs=True, max_boxes=20).certificate(),
    "float-error estrin binary32 ulps": lambda: scheme_error_bound(
        "exp(x)", [1, 1, "1/2", "1/6", "1/24"], ("-1/8", "1/8"), scheme="estrin",
        format="binary32", error="ulps", max_pieces=50).float_certificate(),
    "float-error odd horner-fma rel": lambda: scheme_error_bound(
        "sin(x)", [0, 1, 0, "-1/6", 0, "1/120"], ("1/8", "1/2"), scheme="horner-fma",
        parity="odd", error="rel", max_pieces=50).float_certificate(),
    "evalbound binary32": lambda: evalbound(
        [1, "1/3", "-1/7"], ("-1/2", 1), format="binary32", pieces=8).certificate(),
}


# ------------------------------------------------------------------ truth


#: optional statement fields whose null means absent (docs/certificates.md, Top level)
_OPTIONAL = ("max_error", "least_degree", "construction", "basis", "multipliers",
             "bound_decimal", "ulps", "weight")


def truth(doc: dict[str, Any]) -> bool | None:
    """Is the statement of ``doc`` true?  (None: the oracles cannot tell.)"""
    doc = copy.deepcopy(doc)
    st = doc["statement"]
    if isinstance(st, dict):  # null means absent: the oracles read absent fields
        for key in _OPTIONAL:
            if key in st and st[key] is None:
                del st[key]
        if isinstance(st.get("error"), dict) and st["error"].get("upper_decimal", 0) is None:
            del st["error"]["upper_decimal"]
    later = _later_truth(doc)
    if later is not _MISSING:
        return later
    if doc["kind"] != "supnorm-finite" or not isinstance(st, dict) or (
            st.get("construction") is None and st.get("least_degree") is None):
        return mutation._truth(doc)
    base = copy.deepcopy(doc)
    base["statement"].pop("construction", None)
    base["statement"].pop("least_degree", None)
    plain = mutation._truth(base)
    if plain is not True:
        return plain
    try:
        named = construction.truth(doc)
    except Exception:  # noqa: BLE001 - a claim the oracle cannot read: undecided
        return None
    return named


def _later_truth(doc: dict[str, Any]) -> Any:
    """The oracles of tests/_trust_oracles.py for the statements they read (weighted,
    family, requested, roundoff, float-error trees, evalbound with a format), else
    ``_MISSING``."""
    kind, st, ev = doc["kind"], doc["statement"], doc.get("evidence")
    try:
        if kind == "minimax" and any(st.get(k) is not None
                                     for k in ("weight", "monomials", "fixed")):
            return oracles.weighted_minimax(st, ev, mutation._l1_ok)
        if kind == "supnorm-box" and (st.get("weight") is not None or set(st["domain"]) & {
                "requested", "rounding"}):
            return oracles.box(st, mutation._l1_ok)
        if kind == "roundoff":
            return oracles.roundoff(st)
        if kind == "float-error" and isinstance(ev, dict) and "tree" in ev:
            return oracles.total_error(st)
        if kind == "evalbound" and "format" in st:
            return oracles.evalbound_format(st, mutation._decimal_ok)
    except Exception:  # noqa: BLE001 - a statement the oracles cannot read: undecided
        return None
    return _MISSING


# ------------------------------------------------------------------ the generator

_MISSING = object()


Path = list[str | int]


def _get(obj: Any, path: Path) -> Any:
    for key in path:
        if isinstance(key, int):
            if not isinstance(obj, list) or not -len(obj) <= key < len(obj):
                return _MISSING
        elif not isinstance(obj, dict) or key not in obj:
            return _MISSING
        obj = obj[key]
    return obj


def _put(doc: dict[str, Any], path: Path, value: Any) -> dict[str, Any]:
    """A copy of ``doc`` with ``statement.<path>`` set to ``value`` (``_MISSING``: deleted)."""
    out = copy.deepcopy(doc)
    obj = out["statement"]
    for key in path[:-1]:
        obj = obj[key]
    if value is _MISSING:
        del obj[path[-1]]
    else:
        obj[path[-1]] = copy.deepcopy(value)
    return out


def _paths(statement: Any, field: str) -> list[Path]:
    """The places of ``field`` in a statement: its path, with each ``[]`` (the items of a
    list of objects) taken at the first and the last item (none when the list is empty
    or absent)."""
    out: list[Path] = [[]]
    for part in field.split("."):
        keys: list[str | int] = [part[:-2], "[]"] if part.endswith("[]") else [part]
        for key in keys:
            nxt: list[Path] = []
            for p in out:
                if key != "[]":
                    nxt.append([*p, key])
                    continue
                items = _get(statement, p)
                if isinstance(items, list) and items:
                    nxt += [[*p, i] for i in sorted({0, len(items) - 1})]
            out = nxt
    return [p for p in out if _get(statement, p) is not _MISSING]


def _carries(statement: Any, field: str) -> bool:
    return bool(_paths(statement, field))


def _number_edits(text: str) -> list[str]:
    q = parse_exact(text)
    eps = parse_exact("1e-30") * (1 + abs(q))
    out = [fmpq_str(v) for v in (q + eps, q - eps, 2 * q, -q, 0 * q, q + 1)]
    return [v for v in dict.fromkeys(out) if parse_exact(v) != q]


def _unique(values: list[Any]) -> list[Any]:
    out: list[Any] = []
    for v in values:
        if v not in out:
            out.append(v)
    return out


def _is_number(value: Any) -> bool:
    try:
        parse_exact(value)
    except (ValueError, TypeError):
        return False
    return isinstance(value, str)


def _scalar_edits(value: Any, enum: list[Any] | None) -> list[Any]:
    if enum is not None and value in enum:
        return [v for v in enum if v != value]
    if isinstance(value, bool):
        return [not value]
    if isinstance(value, int):
        return [value + 1, value - 1, 0]
    if isinstance(value, str) and _is_number(value):
        return _number_edits(value)
    if isinstance(value, str) and value.startswith("(FPCore"):
        return _program_edits(value)
    if isinstance(value, str):  # an expression: the same function, then nearby ones
        return [f"({value}) + 0", f"({value}) * (1 + 1e-30)", f"({value}) + 1e-30",
                f"-({value})"]
    return []


def _program_edits(text: str) -> list[str]:
    """An FPCore program: its body times 1 (the same float code up to one exact
    operation), the operands of its first operation swapped, its first operation changed
    (``+`` and ``-``, ``*`` and ``/``), its first literal moved by one."""
    head = text.index("(", text.index(")") + 1)  # the body: after the argument list
    body = text[head:-1]
    out = [f"{text[:head]}(* {body} 1))"]
    m = re.search(r"\((\+|-|\*|/) ", body)
    if m is not None:
        swap = {"+": "-", "-": "+", "*": "/", "/": "*"}[m.group(1)]
        out.append(text[:head] + body[:m.start(1)] + swap + body[m.end(1):] + ")")
        args = _operands(body[m.end():])
        if len(args) == 2:
            rest = body[m.end():][len(" ".join(args)):]
            out.append(text[:head] + body[:m.end()] + f"{args[1]} {args[0]}" + rest + ")")
    lit = re.search(r"(?<=[ (])(\d+(\.\d+)?(/\d+)?)(?=[ )])", body)
    if lit is not None:
        moved = fmpq_str(parse_exact(lit.group(1)) + 1)
        out.append(text[:head] + body[:lit.start()] + moved + body[lit.end():] + ")")
    return [t for t in out if t != text]


def _operands(text: str) -> list[str]:
    """The s-expressions at the start of ``text``, up to the parenthesis closing them."""
    out: list[str] = []
    i = 0
    while i < len(text) and text[i] != ")":
        if text[i] == " ":
            i += 1
            continue
        j, depth = i, 0
        while j < len(text) and (depth > 0 or text[j] not in " )"):
            depth += {"(": 1, ")": -1}.get(text[j], 0)
            j += 1
        out.append(text[i:j])
        i = j
    return out


def _list_edits(value: list[Any], enum: list[Any] | None) -> list[tuple[str, Any]]:
    out: list[tuple[str, Any]] = []
    for i in sorted({0, len(value) - 1}):
        item = value[i]
        if isinstance(item, list):  # an interval (or a row of numbers)
            for j in sorted({0, len(item) - 1}):
                for e in _scalar_edits(item[j], None)[:2]:
                    row = [*item[:j], e, *item[j + 1:]]
                    out.append((f"[{i}][{j}] -> {str(e)[:20]}", [*value[:i], row,
                                                                   *value[i + 1:]]))
            if len(item) == 2:
                out.append((f"[{i}] ends swapped", [*value[:i], item[::-1], *value[i + 1:]]))
        else:
            for e in _scalar_edits(item, enum)[:3]:
                out.append((f"[{i}] -> {str(e)[:20]}", [*value[:i], e, *value[i + 1:]]))
    out.append(("an entry appended", [*value, copy.deepcopy(value[-1])]))
    if len(value) > 1:
        out.append(("the last entry dropped", value[:-1]))
        if value[::-1] != value:
            out.append(("reversed", value[::-1]))
    return out


def _map_edits(value: dict[str, Any]) -> list[tuple[str, Any]]:
    """A map from names to values (``functions`` of a roundoff statement): each value
    changed, each entry dropped, an entry added."""
    out: list[tuple[str, Any]] = []
    for key, item in value.items():
        for e in _scalar_edits(item, None)[:3] + ["correctly-rounded", "1"]:
            if e != item:
                out.append((f"[{key}] -> {str(e)[:20]}", {**value, key: e}))
        out.append((f"[{key}] dropped", {k: v for k, v in value.items() if k != key}))
    extra = next(name for name in ("log", "exp", "sin") if name not in value)
    out.append((f"[{extra}] added", {**value, extra: "correctly-rounded"}))
    return out


def edits(label: str, doc: dict[str, Any]) -> Iterator[tuple[str, str, str, Callable[[], Any]]]:
    """``(field, what, owner, make)`` for every edit of every field of ``doc``'s kind it
    carries (``owner``: the label of ``doc``)."""
    kind = doc["kind"]
    leaves = schema_fields(kind)
    lists: set[str | int] = set()
    for field in FIELDS[kind]:
        enums = [leaf.enum for leaf in leaves.get(field, [])]
        enum = (None if any(e is None for e in enums)
                else _unique([v for e in enums for v in e or []]))
        for path in _paths(doc["statement"], field):
            yield from _edits_at(label, doc, field, path, enum)
        if "[]" in field:  # the list of objects itself: entries added, dropped, reordered
            head: Path = [field.split("[]")[0]]
            if head[0] not in lists and _get(doc["statement"], head) not in (_MISSING, []):
                lists.add(head[0])
                yield from _edits_at(label, doc, field, head, None)


def _edits_at(label: str, doc: dict[str, Any], field: str, path: Path, enum: list[Any] | None
              ) -> Iterator[tuple[str, str, str, Callable[[], Any]]]:
    """The edits of one place of ``field`` (see :func:`edits`)."""
    value = _get(doc["statement"], path)
    where = ".".join(str(k) for k in path)
    if isinstance(value, list):
        changes = _list_edits(value, enum)
    elif isinstance(value, dict):
        changes = _map_edits(value)
    else:
        changes = [(f"-> {str(e)[:30]}", e) for e in _scalar_edits(value, enum)]
    changes += [("null", None), ("deleted", _MISSING)]
    for what, new in changes:
        if new is not _MISSING and new == value and type(new) is type(value):
            continue
        yield field, f"{label}: {where} {what}", label, (
            lambda path=path, new=new: _put(doc, path, new))


def _source_values() -> dict[tuple[str, str], tuple[str, Any]]:
    """(kind, field) -> (label, value) from the first genuine certificate carrying it."""
    out: dict[tuple[str, str], tuple[str, Any]] = {}
    for label, doc in fixtures().items():
        for field in FIELDS[doc["kind"]]:
            places = _paths(doc["statement"], field)
            if places and _get(doc["statement"], places[0]) is not None:
                out.setdefault((doc["kind"], field), (label, _get(doc["statement"],
                                                                  places[0])))
    return out


def _transplant(src: dict[str, Any], field: str, target: dict[str, Any]) -> dict[str, Any]:
    """``target`` with ``field`` of ``src``'s statement: the deepest parent of the field
    that ``target`` has receives the source's value for the rest of the path (a field
    of the items of a list moves with its whole list)."""
    path: Path = []
    for part in field.split("."):
        path.append(part[:-2] if part.endswith("[]") else part)
        if part.endswith("[]"):
            break
    depth = 0
    while depth < len(path) - 1 and isinstance(_get(target["statement"], path[:depth + 1]),
                                               dict):
        depth += 1
    head = path[:depth + 1]
    return _put(target, head, _get(src["statement"], head))


def transplants(targets: dict[str, dict[str, Any]]
                ) -> Iterator[tuple[str, str, str, Callable[[], Any]]]:
    """``(field, what, owner, make)``: every field of each kind put into the ``targets`` of
    every other kind, and into those of its own kind that lack it (a transplant that
    leaves the statement as it was is not one)."""
    docs = fixtures()
    for (kind, field), (label, _) in _source_values().items():
        src = docs[label]
        for tlabel, target in targets.items():
            if target["kind"] == kind and _carries(target["statement"], field):
                continue
            moved = _transplant(src, field, target)
            if moved["statement"] == target["statement"]:
                continue  # the same value already: not a forgery
            yield f"{kind}:{field}", f"{kind} {field} (from {label}) into {tlabel}", tlabel, (
                lambda moved=moved: moved)


#: transplant targets beyond the first of each kind: one of each later statement form
_FORMS = ("minimax even, weight", "box relative binary32", "box requested pi/2",
          "float-error estrin binary32 ulps", "evalbound binary32")


def _targets(per_kind: int) -> dict[str, dict[str, Any]]:
    """The first ``per_kind`` genuine certificates of each kind, and one of each later
    statement form (weighted, requested, tree, binary32)."""
    out: dict[str, dict[str, Any]] = {}
    seen: Counter[str] = Counter()
    for label, doc in fixtures().items():
        if seen[doc["kind"]] < per_kind or label in _FORMS:
            seen[doc["kind"]] += 1
            out[label] = doc
    return out


# ------------------------------------------------------------------ the run


def _verdict(doc: dict[str, Any]) -> str:
    try:
        validate(doc)  # cheap: most forgeries stop here, without a child process
        report = verify_document(doc, deadline_seconds=60)
    except Malformed:
        return "malformed"
    assert not [c for c in report.checks if c[0] == "internal error"], report.checks
    return report.status


def _parent_answers(owner: str, doc: dict[str, Any]) -> None:
    """An edited part put back into its float-error certificate: a report or Malformed."""
    if ":" not in owner:
        return
    parent_label, name = owner.split(":")
    parent = copy.deepcopy(fixtures()[parent_label])
    parent["evidence"]["parts"][name] = doc
    try:
        report = verify_document(parent, deadline_seconds=60)
    except Malformed:
        return
    assert not [c for c in report.checks if c[0] == "internal error"], report.checks


def run(forgeries: list[tuple[str, str, str, Callable[[], Any]]], decide_all: bool = False
        ) -> dict[str, int]:
    """Check every forgery; ``decide_all``: ask the oracle about the refused ones too
    (to count the false statements), not only about those that hold."""
    counts: Counter[str] = Counter()
    bad = []
    for _, what, owner, make in forgeries:
        doc = make()
        verdict = _verdict(doc)
        seen = [("generated", 1)]
        _parent_answers(owner, doc)
        if verdict == "malformed":
            seen.append(("malformed", 1))
        elif verdict != "holds":
            seen.append(("refused by a check", 1))
            if decide_all:
                seen.append(({True: "refused, true", False: "refused, false",
                              None: "refused, oracle undecided"}[truth(doc)], 1))
        else:
            t = truth(doc)
            seen.append(("held, true" if t is True else "held, false" if t is False
                         else "held, oracle undecided", 1))
            if t is not True:
                bad.append((what, t))
        for key, n in seen:  # in all, and per kind of the certificate edited
            counts[key] += n
            counts[f"{doc['kind']}: {key}"] += n
    assert not bad, f"forgeries that hold without being known true: {bad[:10]}"
    return dict(counts)


def _every_edit() -> list[tuple[str, str, str, Callable[[], Any]]]:
    return [e for label, doc in fixtures().items() for e in edits(label, doc)]


def test_fixtures_carry_every_field():
    have = {(doc["kind"], field) for doc in fixtures().values() for field in FIELDS[doc["kind"]]
            if _carries(doc["statement"], field)}
    missing = {(k, f) for k, table in FIELDS.items() for f in table} - have
    assert not missing, f"no genuine certificate carries {sorted(missing)}: add one to fixtures()"
    for label, doc in fixtures().items():
        assert verify_document(doc).status == "holds", label
        assert truth(doc) is True, label


#: the issue's reproducers and one forgery of each family, for the default run
_REPRESENTATIVE = (
    ("supnorm-finite:construction.name", "box-exp"),
    ("supnorm-finite:construction.name", "float-error:approximation"),
    ("supnorm-finite:construction.params.reading.delta", "box-cheb"),
    ("supnorm-finite:least_degree.pin.x", "box-exp"),
    ("supnorm-finite:least_degree.pin.x", "minimax-sin"),
    ("supnorm-finite:construction.name", "minimax-approx"),
    ("minimax:least_degree.lower", "or5"),
    ("supnorm-box:max_error", "box-cheb"),
    ("jackson-kernel:multipliers", "lebesgue-3-2"),
    ("float-error:ulps.ulps", "evalbound-horner"),
    ("lebesgue-constant:basis", "jackson-r"),
    ("supnorm-finite:least_degree.pin.x", "or5"),
    # the later fields: a weight into a plain minimax and box, a family into a box, a
    # requested interval into a box, the tree form's parity into the parts form, a
    # roundoff's functions into a float-error tree, evalbound's format into a part
    ("minimax:weight.kind", "minimax-sin"),
    ("supnorm-box:weight.expr", "box-exp"),
    ("minimax:monomials", "box-cheb"),
    ("supnorm-box:domain.requested", "box-exp"),
    ("float-error:parity", "float-error"),
    ("roundoff:functions", "float-error estrin binary32 ulps"),
    ("evalbound:format", "float-error:evaluation"),
)


def test_representative_forgeries():
    docs = fixtures()
    chosen = []
    for field, target in _REPRESENTATIVE:
        found = [t for t in transplants({target: docs[target]}) if t[0] == field]
        assert found, (field, target)
        chosen += found
    # one edit of one field of each kind, and the construction of a box statement (the
    # reproducer of the CLI: `dpverify supnorm ... --out c.json` plus a construction)
    per_kind: dict[str, Any] = {}
    for label, doc in docs.items():
        if doc["kind"] not in per_kind:
            per_kind[doc["kind"]] = next(edits(label, doc))
    chosen += per_kind.values()
    counts = run(chosen)
    assert counts["generated"] == len(chosen) >= 27
    assert counts.get("malformed", 0) >= 12, counts  # construction, least_degree, parity


@pytest.mark.slow
def test_every_generated_forgery():
    every = _every_edit()
    moves = list(transplants(_targets(3)))
    counts = {"edits": run(every, decide_all=True), "transplants": run(moves, decide_all=True)}
    kinds = {doc["kind"] for doc in fixtures().values()}
    fields = sum(len(FIELDS[k]) for k in kinds)
    print(f"\nkinds {len(kinds)}, fields {fields}, fixtures {len(fixtures())}, "
          f"transplant targets {len(_targets(3))}")
    for family, c in counts.items():
        print(family, json.dumps(dict(sorted(c.items())), indent=1))
    for c in counts.values():
        assert c.get("held, false", 0) == 0 and c.get("held, oracle undecided", 0) == 0
    assert counts["edits"]["generated"] >= 4000 and counts["transplants"]["generated"] >= 2000
    # the table published in docs/adversarial.md (update it when the counts change)
    text = DOC.read_text()
    for kind in [*sorted(kinds), None]:
        row = _row(kind, sum(len(FIELDS[k]) for k in kinds if kind in (None, k)),
                   counts["edits"], counts["transplants"])
        assert row in text, f"docs/adversarial.md should read: {row}"


def _row(kind: str | None, fields: int, e: dict[str, int], m: dict[str, int]) -> str:
    """One row of the table of docs/adversarial.md (``kind`` None: the totals)."""
    def n(c: dict[str, int], key: str) -> int:
        return c.get(key if kind is None else f"{kind}: {key}", 0)

    def family(c: dict[str, int]) -> str:
        return (f"{n(c, 'generated')} | {n(c, 'malformed')} | {n(c, 'refused by a check')} "
                f"({n(c, 'refused, false')} / {n(c, 'refused, true')} / "
                f"{n(c, 'refused, oracle undecided')}) | {n(c, 'held, true')}")

    name = "total" if kind is None else f"`{kind}`"
    return f"| {name} | {fields} | {family(e)} | {family(m)} |"
