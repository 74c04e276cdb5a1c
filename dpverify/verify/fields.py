"""Every statement field of every certificate kind, and the checks that consume it.

The promise of the format is that **every field of a statement is checked**
(docs/certificates.md).  It holds by construction: the JSON Schema of each kind refuses
any field it does not list (``additionalProperties: false`` on every object of a
statement), and :data:`FIELDS` names, for each field the schema accepts, the check of the
report that reads it.  ``tests/test_trust_fields.py`` walks the schema of every kind of
:data:`~dpverify.verify.check.KINDS` (:func:`schema_fields`) and fails, naming the kind and
the field, when a field is accepted but absent from this table, when an object of a
statement accepts unlisted fields, when an entry names a check the checker never makes,
or when an entry is stale; the generated forgeries of ``tests/test_trust_forgery.py`` edit
every listed field of every kind, and transplant every field of one kind into every other,
and require each edit to fail unless the edited statement is still true.

A field is written as the path of its keys below ``statement`` joined by ``.``
(``construction.params.gamma``); ``[]`` stands for the items of a list of objects.  A list
of numbers or of intervals is one field.  A field the schema pins to one value given the
others (``arithmetic`` given ``scheme``, ``target.kind`` of a ``minimax`` statement) is
consumed by :data:`SCHEMA`.

How to add a statement field
----------------------------
1. Add it to the kind's schema (``schema/certificate-v1.json`` or the kind's own file of
   :data:`~dpverify.verify.load.KIND_SCHEMAS`) with a closed object schema
   (``additionalProperties: false``) if it is an object.
2. Read it in the kind's checker and make a check that decides it (``ck.run(NAME, ...)``).
3. Add one line to the kind's table below: ``"weight": ("upper: sup |f - p| <= upper on
   every piece",),`` -- the path, then the names of the checks that consume it, exactly as
   the report prints them.  A field of a shared block (``polynomial``, ``target``,
   ``domain``, ``error``) goes in that block's table (:func:`_polynomial`, :data:`_TARGET`
   ...) when every kind that has the block accepts it, else in the kind's table with its
   full path (``"target.weight": (...)``).
4. Run ``python -m pytest tests/test_trust_fields.py``: it names any field still missing.

A new kind: add its checker to :data:`~dpverify.verify.check.KINDS`, its schema file to
``KIND_SCHEMAS`` if it has one, and its table to :data:`FIELDS`.

Walking the schema (:func:`schema_fields`) understands the keywords the schemas use
(``$ref`` to ``#/$defs``, ``allOf``, ``oneOf``, ``if``/``then``/``else`` on a constant or on
a required key, ``properties``, ``additionalProperties``, ``items``, ``prefixItems``, the
value keywords); any other keyword raises :class:`SchemaWalkError` rather than being
ignored, so a schema change it cannot follow fails the test instead of hiding a field.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources
from typing import Any

__all__ = ["SCHEMA", "FIELDS", "SchemaWalkError", "Leaf", "schema_fields", "problems"]

#: the pseudo-check of a field that the schema pins to one value given the other fields
SCHEMA = "schema"

# the report's check names, once each (a typo here is caught by the test of the table)
_DEG, _L1, _LOG2 = "polynomial degree", "coefficient l1 norm", "coefficient l1_log2"
_ORDER, _MAXE, _DEC = "0 <= lower <= upper", "upper <= max_error", "upper_decimal"
_FSUP, _FWIT = "sup |f - p| <= upper", "witness: |f - p| >= lower"
_BSUP, _BCOVER = "sup |f - p| <= upper on every piece", "pieces cover the box"
_CON = ("construction parameters", "construction target", "construction domain",
        "construction max_error", "construction polynomial")
_MSUP, _MALT = "upper: sup |f - p| <= upper on every piece", \
    "lower: f - p alternates (de la Vallee Poussin)"
_EBOUND = "|fl(p(x)) - p(x)| <= bound on every piece (claims proven)"
_ECOVER = "pieces cover the binary64 numbers of [A, B]"
_PA, _PE = "part approximation is about this statement", "part evaluation is about this statement"
_SUM = "approximation_error + evaluation_error <= bound"
_FAM, _ANN = "p is in the family", "lower: annihilating weights (de la Vallee Poussin)"
_WALT = "lower: f - p alternates (weighted de la Vallee Poussin)"
_WSUP = "upper: sup |(f - p)/f| <= upper on every piece"
_WBSUP, _WBWIT = "sup |(f - p)/f| <= upper on every piece", "witness: |(f - p)/f| >= lower"


def _polynomial(*value_checks: str, tensor: bool = False) -> dict[str, tuple[str, ...]]:
    """The ``polynomial`` block (docs/certificates.md, *Polynomials*): ``value_checks``
    are the kind's checks that evaluate ``p``."""
    out = {
        "basis": (_DEG, _L1, *value_checks),
        "domain": (_DEG, *value_checks),
        "coefficients": (_DEG, _L1, *value_checks),
        "degree": (_DEG,),
        "coefficient_norm.l1": (_L1, _LOG2),
        "coefficient_norm.l1_log2": (_LOG2,),
    }
    if tensor:  # a tensor-product polynomial: one domain per variable, shape, degrees
        out.update({"shape": (_DEG, _L1, *value_checks), "domains": (_DEG, *value_checks)})
    return out


_TARGET: dict[str, tuple[str, ...]] = {
    "kind": (_FSUP, _FWIT),
    "r": (_FSUP, _FWIT, "construction target"),
    "l": (_FSUP, _FWIT, "construction target"),
    "values": (_FSUP, _FWIT),
    "expr": (_FSUP, _FWIT),
    "variables": (_FSUP, _FWIT),
}
_DOMAIN: dict[str, tuple[str, ...]] = {
    "kind": (_FSUP, _FWIT, "construction domain"),
    "lo": (_FSUP, _FWIT, "construction domain"),
    "hi": (_FSUP, _FWIT, "construction domain"),
    "points": (_FSUP, _FWIT),
}
_PARAMS: dict[str, tuple[str, ...]] = {
    "k": _CON,
    "gamma": ("construction parameters", "construction max_error", "construction polynomial"),
    "r": _CON,
    "l": _CON,
    "method": ("construction polynomial", "construction least_degree"),
    "reading.delta": ("construction polynomial",),
    "reading.d": ("construction polynomial",),
    "reading.log_base": ("construction polynomial",),
    "reading.ell_range": ("construction polynomial",),
}


def _block(prefix: str, table: dict[str, tuple[str, ...]]) -> dict[str, tuple[str, ...]]:
    return {f"{prefix}.{key}": checks for key, checks in table.items()}


#: kind -> statement field -> the checks that consume it (see the module docstring)
FIELDS: dict[str, dict[str, tuple[str, ...]]] = {
    "supnorm-finite": {
        **_block("polynomial", _polynomial(_FSUP, _FWIT, "construction polynomial")),
        **_block("target", _TARGET),
        **_block("domain", _DOMAIN),
        "error.lower": (_ORDER, _FWIT),
        "error.upper": (_ORDER, _FSUP),
        "error.upper_decimal": (_DEC,),
        "max_error": (_MAXE, "least degree", "construction max_error"),
        "least_degree.pin.x": ("least degree", "construction least_degree"),
        "least_degree.pin.value": ("least degree", "construction least_degree"),
        "construction.name": _CON,
        **_block("construction.params", _PARAMS),
    },
    "supnorm-box": {
        **_block("polynomial", _polynomial(_BSUP, _FWIT, tensor=True)),
        "target.kind": (SCHEMA,),
        "target.expr": (_BSUP, _FWIT),
        "target.variables": (_BSUP, _FWIT),
        "domain.kind": (SCHEMA,),
        "domain.intervals": (_BCOVER, _BSUP, _FWIT),
        "error.lower": (_ORDER, _FWIT),
        "error.upper": (_ORDER, _BSUP),
        "error.upper_decimal": (_DEC,),
        "max_error": (_MAXE,),
        # the interval as asked (constant expressions) and the outward rounding that the
        # stated intervals are (verify/requested.py)
        "domain.requested": ("requested intervals inside the stated ones",
                             "witness inside the requested intervals"),
        "domain.rounding": ("requested intervals inside the stated ones",),
        # a weighted error w (f - p) (relative: w = 1/f), checked by verify/weighted_box.py
        "weight.kind": (_WBSUP, _WBWIT),
        "weight.expr": (_WBSUP, _WBWIT),
        "weight.variables": (_WBSUP, _WBWIT),
    },
    "jackson-kernel": {
        "t": ("t' = floor(t/r) + 1", "coefficients 2 pi a_l", "multipliers w_n"),
        "r": ("t' = floor(t/r) + 1", "coefficients 2 pi a_l", "r = ceil((K+3)/2)"),
        "K": ("r = ceil((K+3)/2)", "multipliers w_n", "multipliers"),
        "t_prime": ("t' = floor(t/r) + 1", "degree = r (t' - 1)"),
        "degree": ("degree = r (t' - 1)", "coefficients 2 pi a_l"),
        "coefficients_2pi": ("coefficients 2 pi a_l",),
        "multipliers": ("multipliers w_n", "multipliers"),
    },
    "lebesgue-constant": {
        "k": ("Lambda <= upper", "witness: U >= lower", "basis"),
        "h": ("Lambda <= upper", "witness: U >= lower", "basis"),
        "lower": ("lower <= upper", "witness: U >= lower"),
        "upper": ("lower <= upper", "Lambda <= upper"),
        "basis": ("basis",),
    },
    "minimax": {
        **_block("polynomial", _polynomial(_MSUP, _MALT)),
        "target.kind": (SCHEMA,),
        "target.expr": (_MALT, _MSUP),
        "target.variables": (_MALT, _MSUP),
        "domain.kind": (SCHEMA,),
        "domain.intervals": (_MALT, "pieces cover the interval", _MSUP),
        "degree": ("degree of p <= N", _MALT),
        "error.lower": (_ORDER, _MALT),
        "error.upper": (_ORDER, _MSUP),
        "error.upper_decimal": (_DEC,),
        "max_error": (_MAXE, "least_degree needs max_error", "least_degree.lower > max_error"),
        "least_degree.lower": ("least_degree.lower > max_error",
                               "least_degree: f - q alternates (de la Vallee Poussin)"),
        # the weighted error w (f - p) (relative: w = 1/f) and the family of polynomials
        "weight.kind": (_WALT, _ANN, _WSUP),
        "weight.expr": (_WALT, _ANN, _WSUP),
        "weight.variables": (_WALT, _ANN, _WSUP),
        "monomials": (_FAM, _ANN, "least_degree: q is in the family without its top power"),
        "fixed[].power": (_FAM, _ANN, "least_degree: q is in the family without its top power"),
        "fixed[].value": (_FAM, _ANN),
    },
    "evalbound": {
        "scheme": (_EBOUND,),
        "arithmetic": (SCHEMA,),
        "polynomial.basis": (SCHEMA,),
        "polynomial.domain": (_EBOUND,),
        "polynomial.coefficients": (_EBOUND,),
        "interval": (_ECOVER, _EBOUND),
        "bound": (_EBOUND,),
        "bound_decimal": ("bound_decimal",),
    },
    "float-error": {
        "scheme": (_PE,),
        "arithmetic": (SCHEMA,),
        "polynomial.basis": (SCHEMA,),
        "polynomial.domain": (_PA, _PE),
        "polynomial.coefficients": (_PA, _PE),
        "interval": (_PA, _PE),
        "target.kind": (SCHEMA,),
        "target.expr": (_PA,),
        "target.variables": (_PA,),
        "bound": (_SUM, "bound <= ulps x ulp(f_lower)"),
        "bound_decimal": ("bound_decimal",),
        "approximation_error": (_SUM, _PA, "|f| >= f_lower (from min |p| - approximation_error)"),
        "evaluation_error": (_SUM, _PE),
        "ulps.ulps": ("bound <= ulps x ulp(f_lower)",),
        "ulps.f_lower": ("bound <= ulps x ulp(f_lower)",
                         "|f| >= f_lower (from min |p| - approximation_error)"),
    },
}


class SchemaWalkError(Exception):
    """The schema uses a construct :func:`schema_fields` does not follow."""


#: marks the constant a branch of ``if`` assumed for a property (its discriminant)
_ASSUMED = "assumed by a branch of if"
#: keywords that say nothing about which fields an object accepts
_VALUE_KEYWORDS = frozenset({
    "$schema", "$id", "$comment", "title", "description", "default", "examples", "type",
    "const", "enum", "minLength", "maxLength", "pattern", "minimum", "maximum",
    "exclusiveMinimum", "exclusiveMaximum", "multipleOf", "minItems", "maxItems",
    "uniqueItems", "required", "minProperties", "maxProperties", "dependentRequired"})
_STRUCTURE = frozenset({"$defs", "$ref", "allOf", "oneOf", "if", "then", "else", "properties",
                        "additionalProperties", "items", "prefixItems"})


@dataclass
class _Facts:
    """What a branch of ``if`` assumed about the object at hand: a property equal to a
    constant or not, a key present or absent."""

    eq: dict[str, Any] = field(default_factory=dict)
    ne: dict[str, list[Any]] = field(default_factory=dict)
    has: frozenset[str] = frozenset()
    lacks: frozenset[str] = frozenset()

    def assume(self, cond: tuple[str, str, Any], holds: bool) -> _Facts | None:
        """These facts and ``cond`` (or its negation); None when they contradict."""
        what, key, value = cond
        if what == "eq" and key in self.eq and (self.eq[key] == value) != holds:
            return None
        if what == "has" and key in (self.lacks if holds else self.has):
            return None
        out = _Facts(dict(self.eq), {k: list(v) for k, v in self.ne.items()}, self.has,
                     self.lacks)
        if what == "has":
            if holds:
                out.has = out.has | {key}
            else:
                out.lacks = out.lacks | {key}
        elif holds:
            out.eq[key] = value
        else:
            out.ne.setdefault(key, []).append(value)
        return out


@dataclass
class Leaf:
    """One way a field may be filled in: the schema nodes that all apply to its value."""

    nodes: list[dict[str, Any]]

    @property
    def types(self) -> set[str] | None:
        return _types(self.nodes)

    @property
    def const(self) -> tuple[bool, Any]:
        """``(True, value)`` when the schema admits one value only (given the branch: a
        value the branch merely assumed, a discriminant, does not count)."""
        for n in self.nodes:
            if n.get("$comment") == _ASSUMED:
                continue
            if "const" in n:
                return True, n["const"]
            if "enum" in n and len(n["enum"]) == 1:
                return True, n["enum"][0]
        return False, None

    @property
    def enum(self) -> list[Any] | None:
        """The values the schema admits when it lists them."""
        out: list[Any] | None = None
        for n in self.nodes:
            vals = [n["const"]] if "const" in n else n.get("enum")
            if vals is not None:
                out = list(vals) if out is None else [v for v in out if v in vals]
        return out


def _condition(cond: Any, where: str) -> tuple[str, str, Any]:
    """The assumption an ``if`` makes: ``("eq", key, value)`` or ``("has", key, None)``."""
    if not isinstance(cond, dict):
        raise SchemaWalkError(f"{where}: an 'if' that is not an object")
    rest = {k: v for k, v in cond.items() if not (k == "type" and v == "object")}
    props, req = rest.get("properties"), rest.get("required")
    if set(rest) == {"properties"} and isinstance(props, dict) and len(props) == 1:
        (key, sub), = props.items()
        if isinstance(sub, dict) and set(sub) == {"const"}:
            return "eq", key, sub["const"]
    if set(rest) == {"required"} and isinstance(req, list) and len(req) == 1:
        return "has", req[0], None
    raise SchemaWalkError(f"{where}: 'if' tests something other than one constant or one "
                          f"required key: {json.dumps(cond)[:80]}")


class _Walker:
    def __init__(self, root: dict[str, Any]) -> None:
        self.root = root

    def deref(self, ref: str, where: str) -> Any:
        if not ref.startswith("#/"):
            raise SchemaWalkError(f"{where}: only local references are followed, got {ref!r}")
        node: Any = self.root
        for part in ref[2:].split("/"):
            if not isinstance(node, dict) or part not in node:
                raise SchemaWalkError(f"{where}: unresolved reference {ref!r}")
            node = node[part]
        return node

    def expand(self, todo: list[Any], flat: list[dict[str, Any]], facts: _Facts,
               where: str) -> Iterator[tuple[list[dict[str, Any]], _Facts]]:
        """Every branch of ``todo`` (schemas that all apply): the plain nodes that apply in
        it (no ``$ref``, ``allOf``, ``oneOf``, ``if``) and its assumptions."""
        if not todo:
            yield flat, facts
            return
        node, rest = todo[0], todo[1:]
        if node is True:
            yield from self.expand(rest, flat, facts, where)
            return
        if node is False:
            return
        if not isinstance(node, dict):
            raise SchemaWalkError(f"{where}: a schema that is not an object or a boolean")
        unknown = set(node) - _VALUE_KEYWORDS - _STRUCTURE
        if unknown:
            raise SchemaWalkError(f"{where}: keyword {sorted(unknown)[0]!r} is not followed "
                                  "(dpverify/verify/fields.py)")
        if "$ref" in node:
            base = {k: v for k, v in node.items() if k != "$ref"}
            yield from self.expand([self.deref(node["$ref"], where), base, *rest], flat, facts,
                                   where)
        elif "allOf" in node:
            base = {k: v for k, v in node.items() if k != "allOf"}
            yield from self.expand([*node["allOf"], base, *rest], flat, facts, where)
        elif "oneOf" in node:
            base = {k: v for k, v in node.items() if k != "oneOf"}
            for branch in node["oneOf"]:
                yield from self.expand([branch, base, *rest], flat, facts, where)
        elif "if" in node:
            base = {k: v for k, v in node.items() if k not in ("if", "then", "else")}
            cond = _condition(node["if"], where)
            for holds, branch in ((True, node.get("then", True)),
                                  (False, node.get("else", True))):
                assumed = facts.assume(cond, holds)
                if assumed is not None:
                    yield from self.expand([branch, base, *rest], flat, assumed, where)
        else:
            if "then" in node or "else" in node:
                raise SchemaWalkError(f"{where}: 'then' or 'else' without 'if'")
            plain = {k: v for k, v in node.items() if k != "$defs"}
            yield from self.expand(rest, [*flat, plain], facts, where)

    def walk(self, conj: list[Any], path: str, out: dict[str, list[Leaf]],
             facts: _Facts | None = None) -> None:
        """Record in ``out`` every leaf field below ``path`` that ``conj`` admits (an open
        object adds ``path + ".*"``)."""
        for flat, fx in self.expand(conj, [], facts or _Facts(), path or "(root)"):
            if not _consistent(flat, fx):
                continue
            types = _types(flat)
            if types is not None and not types:
                continue  # no value satisfies every node
            kinds = _shape(flat, types)
            if kinds == "object":
                self._object(flat, fx, path, out)
            elif kinds == "array":
                self._array(flat, path, out)
            else:
                out.setdefault(path, []).append(Leaf(flat))

    def _object(self, flat: list[dict[str, Any]], fx: _Facts, path: str,
                out: dict[str, list[Leaf]]) -> None:
        named: set[str] = set()
        for n in flat:
            named |= set(n.get("properties", {}))
        closed = [set(n.get("properties", {})) for n in flat
                  if n.get("additionalProperties") is False]
        if any(n.get("maxProperties") == 0 for n in flat):
            allowed: set[str] = set()
        elif closed:
            allowed = set.intersection(*closed)
        else:
            allowed = named
            out.setdefault(_join(path, "*"), []).append(Leaf(flat))
        for key in sorted(allowed - fx.lacks):
            sub: list[Any] = [n["properties"][key] for n in flat if key in n.get("properties", {})]
            sub += [n["additionalProperties"] for n in flat
                    if isinstance(n.get("additionalProperties"), dict)]
            if key in fx.eq:  # the branch assumed its value: not a pin of the schema
                sub.append({"const": fx.eq[key], "$comment": _ASSUMED})
            self.walk(sub, _join(path, key), out)

    def _array(self, flat: list[dict[str, Any]], path: str, out: dict[str, list[Leaf]]) -> None:
        inner: dict[str, list[Leaf]] = {}
        item = _join(path, "[]")
        for n in flat:
            if isinstance(n.get("items"), dict):
                self.walk([n["items"]], item, inner)
            for p in n.get("prefixItems", []):
                self.walk([p], item, inner)
        if all(key == item for key in inner):  # a list of values: one field
            out.setdefault(path, []).append(Leaf(flat))
        else:
            for key, leaves in inner.items():
                out.setdefault(key, []).extend(leaves)


def _join(path: str, key: str) -> str:
    return key if not path else f"{path}{key}" if key == "[]" else f"{path}.{key}"


def _types(flat: list[dict[str, Any]]) -> set[str] | None:
    """The JSON types every node admits (None: no node says)."""
    out: set[str] | None = None
    for n in flat:
        t = n.get("type")
        if t is None:
            continue
        ts = {t} if isinstance(t, str) else set(t)
        if "number" in ts:
            ts.add("integer")
        out = ts if out is None else out & ts
    return out


def _shape(flat: list[dict[str, Any]], types: set[str] | None) -> str:
    if types is not None:
        return "object" if types == {"object"} else "array" if types == {"array"} else "value"
    if any("const" in n or "enum" in n for n in flat):
        return "value"
    if any(k in n for n in flat for k in ("properties", "additionalProperties", "required")):
        return "object"
    if any(k in n for n in flat for k in ("items", "prefixItems")):
        return "array"
    return "value"


def _consistent(flat: list[dict[str, Any]], fx: _Facts) -> bool:
    """Can an object satisfy the nodes of a branch and its assumptions?  (Only constants
    and lists of values of its properties are compared: what the discriminated unions of
    the schemas need.)"""
    keys = set(fx.eq) | set(fx.ne)
    for n in flat:
        keys |= set(n.get("properties", {}))
    for key in keys:
        vals: list[Any] | None = [fx.eq[key]] if key in fx.eq else None
        for n in flat:
            sub = n.get("properties", {}).get(key)
            if not isinstance(sub, dict):
                continue
            admits = [sub["const"]] if "const" in sub else sub.get("enum")
            if admits is not None:
                vals = list(admits) if vals is None else [v for v in vals if v in admits]
        if vals is not None:
            vals = [v for v in vals if v not in fx.ne.get(key, [])]
            if not vals:
                return False
    closed = [set(n.get("properties", {})) for n in flat if n.get("additionalProperties") is False]
    return not (closed and not fx.has <= set.intersection(*closed))


@lru_cache(maxsize=8)
def _schema(name: str) -> dict[str, Any]:
    text = resources.files("dpverify.verify").joinpath(f"schema/{name}").read_text(
        encoding="utf-8")
    out: dict[str, Any] = json.loads(text)
    return out


def schema_fields(kind: str) -> dict[str, list[Leaf]]:
    """The statement fields the schema of ``kind`` accepts: path -> the ways it may be
    filled in.  A path ending in ``.*`` is an object that accepts any field.  Raises
    :class:`SchemaWalkError` on a schema construct the walk does not follow.

    Examples
    --------
    >>> sorted(schema_fields("lebesgue-constant"))
    ['basis', 'h', 'k', 'lower', 'upper']
    >>> "construction.name" in schema_fields("supnorm-box")
    False
    """
    # deferred: load imports the schema machinery of the checker, which this table sits under
    from .load import KIND_SCHEMAS

    root = _schema(KIND_SCHEMAS.get(kind, "certificate-v1.json"))
    out: dict[str, list[Leaf]] = {}
    _Walker(root).walk([root], "", out, _Facts(eq={"kind": kind}))
    fields = {p[len("statement."):]: v for p, v in out.items() if p.startswith("statement.")}
    # a null that stands for an absent block (``construction: null``) is not a field of its own
    for path in list(fields):
        nulls = all(leaf.types == {"null"} for leaf in fields[path])
        if nulls and any(p.startswith((path + ".", path + "[]")) for p in fields):
            del fields[path]
    return fields


def problems(kinds: list[str]) -> list[str]:
    """Every way the schemas of ``kinds`` and :data:`FIELDS` disagree, one line each (empty:
    every field a schema accepts is consumed by a check of the table)."""
    out = []
    for kind in kinds:
        table = FIELDS.get(kind)
        try:
            fields = schema_fields(kind)
        except SchemaWalkError as exc:
            out.append(f"kind {kind}: the schema cannot be walked: {exc}")
            continue
        if table is None:
            out.append(f"kind {kind}: no table in FIELDS (dpverify/verify/fields.py); its "
                       f"statement fields are {', '.join(sorted(fields))}")
            continue
        for path in sorted(fields):
            if path == "*" or path.endswith(".*"):
                where = path[:-2] or "statement"
                out.append(f"kind {kind}: statement object {where!r} accepts any field: give "
                           "it additionalProperties: false in the schema")
            elif path not in table:
                out.append(f"kind {kind}: statement field {path!r} is neither consumed by a "
                           f"check nor refused by the schema: add the line \"{path}\": "
                           f"(\"<name of the check that reads it>\",), to FIELDS[{kind!r}] in "
                           "dpverify/verify/fields.py, or refuse it in the schema")
            elif SCHEMA in table[path] and not all(leaf.const[0] for leaf in fields[path]
                                                   if leaf.types != {"null"}):
                out.append(f"kind {kind}: statement field {path!r} is marked as pinned by the "
                           "schema, but the schema admits more than one value")
        for path in sorted(set(table) - set(fields)):
            out.append(f"kind {kind}: FIELDS entry {path!r} is not a field the schema accepts "
                       "(stale: remove it, or add the field to the schema)")
    return out


if __name__ == "__main__":  # python -m dpverify.verify.fields: the table against the schemas
    from .check import KINDS

    for line in problems(list(KINDS)) or ["every statement field is consumed or refused"]:
        print(line)
