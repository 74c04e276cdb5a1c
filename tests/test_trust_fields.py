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
import test_trust_mutation as mutation

from dpverify.verify import fields, verify_document
from dpverify.verify.check import KINDS
from dpverify.verify.fields import FIELDS, SCHEMA, SchemaWalkError, problems, schema_fields
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


def _leaves(obj, prefix=""):
    for key, value in obj.items():
        if isinstance(value, dict):
            yield from _leaves(value, f"{prefix}{key}.")
        else:
            yield f"{prefix}{key}", value


def test_named_checks_run_on_genuine_certificates():
    """Each field a genuine certificate carries is read by one of its listed checks."""
    seen = set()
    for label, doc in mutation._fixtures().items():
        report = verify_document(doc)
        assert report.ok, label
        made = {c[0] for c in report.checks}
        for path, value in _leaves(doc["statement"]):
            if value is None:
                continue
            checks = FIELDS[doc["kind"]][path]
            assert SCHEMA in checks or made & set(checks), (label, path, checks)
            seen.add((doc["kind"], path))
    assert len(seen) >= 60


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

    def read(name):
        return doc if name == "certificate-v1.json" else fields._schema.__wrapped__(name)

    monkeypatch.setattr(fields, "_schema", read)
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
