"""The table of statement fields (dpverify/verify/fields.py) covers every schema property.

* every field the schema of any kind of ``dpverify.verify.check.KINDS`` accepts is in the
  table with the checks that consume it, every object of a statement is closed, no entry
  is stale (``fields.problems``);
* every check the table names is one the checker makes (found in the checker's source
  by its ``ck.run`` / ``ck.add`` calls), and on genuine certificates carrying the field
  at least one of its checks is in the report;
* the walk itself is not blind: schema variants with a field added, an object opened, the
  old shared supnorm statement (a box statement that accepted ``construction``) or a
  keyword it does not follow are each reported, naming the kind and the field.
"""

from __future__ import annotations

import ast
import copy
import json
import pathlib
import re

import pytest
import test_trust_forgery as forgery

from dpverify.verify import fields, schema_walk, verify_document
from dpverify.verify.check import KINDS
from dpverify.verify.fields import (
    FIELDS,
    SCHEMA,
    SchemaWalkError,
    check_matches,
    problems,
    schema_fields,
)
from dpverify.verify.load import KIND_SCHEMAS, number_def

VERIFY = pathlib.Path(fields.__file__).parent


def test_every_schema_field_is_consumed_or_refused():
    assert problems(list(KINDS)) == []
    assert set(FIELDS) == set(KINDS), "a kind without a table, or a table without a kind"


def _check_names() -> list[re.Pattern[str]]:
    """The names of the checks the checker makes: the first argument of every ``.run(...)``
    and ``.add(...)`` call in dpverify/verify (an f-string matches whatever it formats)."""
    out = []
    for path in VERIFY.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                    and node.func.attr in ("run", "add") and node.args):
                continue
            arg = node.args[0]
            if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
                out.append(re.compile(re.escape(arg.value)))
            elif isinstance(arg, ast.JoinedStr):
                out.append(re.compile("".join(
                    re.escape(v.value) if isinstance(v, ast.Constant) else ".+"
                    for v in arg.values)))
    return out


def test_every_named_check_exists():
    names = _check_names()
    assert len(names) > 40
    for kind, table in FIELDS.items():
        for path, checks in table.items():
            assert checks, (kind, path)
            for check in checks:
                assert check == SCHEMA or any(p.fullmatch(check) for p in names), (
                    f"kind {kind}: field {path!r} names the check {check!r}, which the "
                    "checker never makes")


def test_named_checks_run_on_genuine_certificates():
    """Each field a genuine certificate carries is read by one of its listed checks (the
    certificates of tests/test_trust_forgery.py, together carrying every field)."""
    seen = set()
    for label, doc in forgery.fixtures().items():
        report = verify_document(doc)
        assert report.ok, label
        made = {c[0] for c in report.checks}
        for path, checks in FIELDS[doc["kind"]].items():
            places = forgery._paths(doc["statement"], path)
            if not places or forgery._get(doc["statement"], places[0]) is None:
                continue
            assert SCHEMA in checks or any(check_matches(c, m) for c in checks for m in made), (
                label, path, checks)
            seen.add((doc["kind"], path))
    # every field but those the fixtures carry as null only (a monomial's null domain)
    assert len(seen) >= sum(len(t) for t in FIELDS.values()) - 2, len(seen)


def test_number_schema_is_one():
    for name in {*KIND_SCHEMAS.values(), "certificate-v1.json"}:
        text = (VERIFY / "schema" / name).read_text()
        assert json.loads(text)["$defs"]["number"] == number_def(), name


# ------------------------------------------------------------------ the walk is not blind


@pytest.fixture
def schema(monkeypatch):
    """Edit a copy of certificate-v1.json that the walk then reads."""
    original = json.loads((VERIFY / "schema" / "certificate-v1.json").read_text())
    doc = copy.deepcopy(original)
    other = schema_walk._schema.__wrapped__

    def read(name):
        return doc if name == "certificate-v1.json" else other(name)

    monkeypatch.setattr(schema_walk, "_schema", read)
    return doc


def test_old_shared_supnorm_statement_is_caught(schema):
    """The schema before the fix: the box kind used the finite statement (with
    ``construction``), only ``least_degree`` refused."""
    box = schema["$defs"]["box_statement"]
    box["properties"]["construction"] = {"oneOf": [{"type": "null"},
                                                   {"$ref": "#/$defs/construction"}]}
    found = problems(["supnorm-box"])
    assert any("statement field 'construction.name'" in p and "supnorm-box" in p
               for p in found), found
    assert any("'construction.params.reading.ell_range'" in p for p in found)


def test_new_field_is_named(schema):
    schema["$defs"]["box_statement"]["properties"]["damping"] = {"$ref": "#/$defs/number"}
    (msg,) = problems(["supnorm-box"])
    assert "kind supnorm-box: statement field 'damping' is neither consumed" in msg
    assert "FIELDS['supnorm-box']" in msg


def test_open_object_is_named(schema):
    pin = schema["$defs"]["pin"]
    del pin["additionalProperties"]
    found = problems(["supnorm-finite"])
    assert any("'least_degree.pin' accepts any field" in p for p in found), found


def test_open_target_variant_is_named(schema):
    """A discriminated variant left open (the threshold target) is found although the
    other variants are closed."""
    for clause in schema["$defs"]["target"]["allOf"]:
        if clause["if"]["properties"]["kind"]["const"] == "threshold":
            del clause["then"]["additionalProperties"]
    found = problems(["supnorm-finite"])
    assert any("'target' accepts any field" in p for p in found), found
    assert problems(["supnorm-box"]) == []  # a box target is an expr: unaffected


def test_stale_entry_is_named(schema, monkeypatch):
    del schema["$defs"]["error"]["properties"]["upper_decimal"]
    found = problems(["supnorm-box"])
    assert any("'error.upper_decimal' is not a field the schema accepts" in p for p in found)


def test_unknown_keyword_is_refused(schema):
    schema["$defs"]["pin"]["anyOf"] = [{"type": "object"}]
    with pytest.raises(SchemaWalkError, match="anyOf"):
        schema_fields("supnorm-finite")
    assert any("cannot be walked" in p for p in problems(["supnorm-finite"]))


def test_pinned_by_schema_must_be_one_value(schema):
    box = schema["$defs"]["box_statement"]
    box["properties"]["target"] = {"$ref": "#/$defs/target"}  # kind no longer pinned
    found = problems(["supnorm-box"])
    assert any("'target.kind' is marked as pinned by the schema" in p for p in found), found


def test_open_branch_behind_an_optional_constant_is_named(schema):
    """``if`` on a constant of an *optional* property holds when the property is absent:
    a branch that opens the object is not pruned because another node pins the property
    to a different constant (the object is open whenever the property is left out)."""
    pin = schema["$defs"]["pin"]
    del pin["additionalProperties"]
    pin["properties"]["mode"] = {"const": "a"}
    pin["allOf"] = [{"if": {"properties": {"mode": {"const": "b"}}}, "then": {},
                     "else": {"additionalProperties": False}}]
    found = problems(["supnorm-finite"])
    assert any("'least_degree.pin' accepts any field" in p for p in found), found
    # required, the property cannot be absent: the open branch is impossible
    pin["required"] = [*pin.get("required", []), "mode"]
    found = problems(["supnorm-finite"])
    assert not any("accepts any field" in p for p in found), found


def test_nested_discriminant_separates_the_forms():
    """The two forms of evalbound-v1.json: a kind sees the fields of its own form only;
    float-error (discriminated by ``evidence.tree``) sees both of its forms."""
    assert "parity" not in schema_fields("evalbound")
    fe = schema_fields("float-error")
    assert {"parity", "error", "format", "approximation_error", "ulps.ulps"} <= set(fe)
    # the arithmetic is pinned by scheme and format in every branch (given them)
    assert all(leaf.const[0] for leaf in fe["arithmetic"])
    assert all(leaf.const[0] for leaf in schema_fields("evalbound")["arithmetic"])


def test_unfollowed_condition_is_refused(schema):
    schema["$defs"]["pin"]["allOf"] = [{"if": {"properties": {"x": {"enum": ["1", "2"]}}},
                                        "then": {}}]
    with pytest.raises(SchemaWalkError, match="constants of properties"):
        schema_fields("supnorm-finite")


def test_map_of_values_is_one_field(schema):
    """A map from names to plain values (roundoff's ``functions``) is one field; a map
    whose values are objects accepts any field below them and is named."""
    assert "functions" in schema_fields("roundoff")
    pin = schema["$defs"]["pin"]
    pin["additionalProperties"] = {"type": "object"}
    del pin["properties"]
    found = problems(["supnorm-finite"])
    assert any("'least_degree.pin' accepts any field" in p for p in found), found
