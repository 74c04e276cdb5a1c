"""Walking the JSON Schema of a certificate kind to the statement fields it accepts
(:func:`schema_fields`), for the table of :mod:`.fields`.

The walk understands the keywords the schemas use (``$ref`` to ``#/$defs``, ``allOf``,
``oneOf``, ``if``/``then``/``else``, ``properties``, ``additionalProperties``, ``items``,
``prefixItems``, the value keywords); any other keyword raises :class:`SchemaWalkError`
rather than being ignored, so a schema change it cannot follow fails the test of the
table instead of hiding a field.

An ``if`` may test constants of properties and required keys, of the object at hand or of
the objects at its properties (``evidence`` has a ``tree``), all of which it requires; its
``else`` is split into the exact cases of the negation (the first ``i`` tests hold, test
``i`` fails).  Every case is walked: an assumption only prunes a case that contradicts it,
and a constant of a property that may be absent (which JSON Schema's ``properties`` then
does not test) prunes nothing, so the walk never loses a field a document may carry; it
may keep a case no document reaches, which can only add fields to the table's demands.

A list of values is one field; so is a map from names to plain values
(``additionalProperties`` a schema of strings, numbers or constants, no listed
properties); an object that accepts unlisted fields any other way shows as ``path.*``.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources
from typing import Any

__all__ = ["SchemaWalkError", "Leaf", "schema_fields"]


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


#: one assumption of an ``if``: (path of the object below the one at hand, "eq" or "has",
#: key, value).  "eq": the property equals the constant *when present* (the JSON Schema
#: meaning of ``properties``: an absent key satisfies it); "has": the key is present.
_Atom = tuple[tuple[str, ...], str, str, Any]


@dataclass
class _Facts:
    """What the branches of ``if`` assumed about the object at hand: each property equal
    to constants when present (``eq``), present and different from constants (``ne``), a
    key present or absent; and facts about the objects at its properties (``sub``)."""

    eq: dict[str, list[Any]] = field(default_factory=dict)
    ne: dict[str, list[Any]] = field(default_factory=dict)
    has: frozenset[str] = frozenset()
    lacks: frozenset[str] = frozenset()
    sub: dict[str, _Facts] = field(default_factory=dict)

    def copy(self) -> _Facts:
        return _Facts({k: list(v) for k, v in self.eq.items()},
                      {k: list(v) for k, v in self.ne.items()}, self.has, self.lacks,
                      {k: v.copy() for k, v in self.sub.items()})

    def present(self, key: str) -> bool:
        return key in self.has or key in self.ne

    def assume(self, atom: _Atom, holds: bool) -> _Facts | None:
        """These facts and ``atom`` (or its negation); None when they contradict."""
        path, what, key, value = atom
        out = self.copy()
        at = out
        for part in path:
            at = at.sub.setdefault(part, _Facts())
        if what == "has" and holds:
            at.has = at.has | {key}
        elif what == "has":
            at.lacks = at.lacks | {key}
        elif holds:
            at.eq.setdefault(key, []).append(value)
        else:  # the negation of "equal when present": present and different
            at.ne.setdefault(key, []).append(value)
        return None if at.clash(key) else out

    def clash(self, key: str) -> bool:
        """Do the facts about ``key`` contradict each other?"""
        if key in self.lacks and self.present(key):
            return True
        eq = self.eq.get(key, [])
        if any(v in self.ne.get(key, []) for v in eq):
            return True
        return self.present(key) and any(v != eq[0] for v in eq)


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
        value the branch merely assumed, a discriminant, does not count; constants and
        lists of several nodes are intersected)."""
        vals = _admitted([n for n in self.nodes if n.get("$comment") != _ASSUMED])
        return (True, vals[0]) if vals is not None and len(vals) == 1 else (False, None)

    @property
    def enum(self) -> list[Any] | None:
        """The values the schema admits when it lists them."""
        return _admitted(self.nodes)


def _admitted(nodes: list[dict[str, Any]]) -> list[Any] | None:
    """The values every node admits, when some node lists them (``const``, ``enum``)."""
    out: list[Any] | None = None
    for n in nodes:
        vals = [n["const"]] if "const" in n else n.get("enum")
        if vals is not None:
            out = list(vals) if out is None else [v for v in out if v in vals]
    return out


def _condition(cond: Any, where: str, path: tuple[str, ...] = ()) -> list[_Atom]:
    """The assumptions an ``if`` makes, all of which it requires: constants of properties
    (``{"properties": {"kind": {"const": ...}}}``), required keys, and the same about the
    object at a property (``{"properties": {"evidence": {"required": ["tree"]}}}``)."""
    if not isinstance(cond, dict):
        raise SchemaWalkError(f"{where}: an 'if' that is not an object")
    rest = {k: v for k, v in cond.items() if not (k == "type" and v == "object")}
    props, req = rest.get("properties", {}), rest.get("required", [])
    if not rest or set(rest) - {"properties", "required"} or not isinstance(props, dict) \
            or not isinstance(req, list) or not all(isinstance(k, str) for k in req):
        raise SchemaWalkError(f"{where}: 'if' tests something other than constants of "
                              f"properties and required keys: {json.dumps(cond)[:80]}")
    out: list[_Atom] = [(path, "has", key, None) for key in req]
    for key, sub in props.items():
        if isinstance(sub, dict) and set(sub) == {"const"}:
            out.append((path, "eq", key, sub["const"]))
        else:
            out += _condition(sub, where, (*path, key))
    return out


def _branches(facts: _Facts, atoms: list[_Atom], then: Any, other: Any
              ) -> Iterator[tuple[_Facts, Any]]:
    """The cases of ``if``: every atom holds (``then``), or the first ``i`` hold and atom
    ``i`` fails (``else``; together exactly the negation of the conjunction)."""
    for i in range(len(atoms) + 1):
        fx: _Facts | None = facts
        for j, atom in enumerate(atoms[:i + 1]):
            if fx is not None:
                fx = fx.assume(atom, j < i or i == len(atoms))
        if fx is not None:
            yield fx, then if i == len(atoms) else other


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
            atoms = _condition(node["if"], where)
            for assumed, branch in _branches(facts, atoms, node.get("then", True),
                                             node.get("else", True)):
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
            if (types is not None and not types) or _admitted(flat) == []:
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
        extra = [n["additionalProperties"] for n in flat
                 if isinstance(n.get("additionalProperties"), dict)]
        if any(n.get("maxProperties") == 0 for n in flat):
            allowed: set[str] = set()
        elif closed:
            allowed = set.intersection(*closed)
        elif extra and not named and self._values(extra, path):
            # a map from names to plain values (``functions: {"exp": "1"}``): one field,
            # as a list of values is
            out.setdefault(path, []).append(Leaf(flat))
            return
        else:
            allowed = named
            out.setdefault(_join(path, "*"), []).append(Leaf(flat))
        for key in sorted(allowed - fx.lacks):
            sub: list[Any] = [n["properties"][key] for n in flat if key in n.get("properties", {})]
            sub += extra
            # a value the branch assumed is not a pin of the schema
            sub += [{"const": v, "$comment": _ASSUMED} for v in fx.eq.get(key, [])]
            self.walk(sub, _join(path, key), out, fx.sub.get(key))

    def _values(self, schemas: list[dict[str, Any]], path: str) -> bool:
        """Do ``schemas`` (all applying to one value) admit plain values only: strings,
        numbers, booleans, null or listed constants, never an object or a list?"""
        inner: dict[str, list[Leaf]] = {}
        self.walk(list(schemas), _join(path, "*"), inner)
        return set(inner) <= {_join(path, "*")} and all(
            (leaf.types is not None and not leaf.types & {"object", "array"})
            or (leaf.enum is not None and not any(isinstance(v, (dict, list))
                                                  for v in leaf.enum))
            for leaf in inner.get(_join(path, "*"), []))

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
    and lists of values of its properties and the presence of keys are compared: what the
    discriminated unions of the schemas need.)  A property no value of which satisfies
    every node contradicts them only when the property is present (required)."""
    required = set(fx.has)
    for n in flat:
        required |= set(n.get("required", []))
    if required & fx.lacks:
        return False
    keys = set(fx.eq) | set(fx.ne)
    for n in flat:
        keys |= set(n.get("properties", {}))
    for key in keys:
        nodes = [{"const": v} for v in fx.eq.get(key, [])]
        nodes += [sub for n in flat if isinstance(sub := n.get("properties", {}).get(key), dict)]
        vals = _admitted(nodes)
        if vals is not None:
            vals = [v for v in vals if v not in fx.ne.get(key, [])]
            if not vals and (key in required or fx.present(key)):
                return False
    closed = [set(n.get("properties", {})) for n in flat if n.get("additionalProperties") is False]
    return not (closed and not required <= set.intersection(*closed))


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
    _Walker(root).walk([root], "", out, _Facts(eq={"kind": [kind]}, has=frozenset({"kind"})))
    fields = {p[len("statement."):]: v for p, v in out.items() if p.startswith("statement.")}
    # a null that stands for an absent block (``construction: null``) is not a field of its own
    for path in list(fields):
        nulls = all(leaf.types == {"null"} for leaf in fields[path])
        if nulls and any(p.startswith((path + ".", path + "[]")) for p in fields):
            del fields[path]
    return fields
