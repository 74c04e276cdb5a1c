"""Data files are bound to the certificates they embed (dpverify/verify/bindings.py).

Every data-file kind that embeds a part is written by its own command; each field the
table binds is then edited in the file (the part untouched) and ``--part`` must fail; the
part of a file written with other parameters (a genuine certificate that holds on its own)
is put in its place and ``--part`` must fail on the bindings; the untouched file holds.
The edits are chosen so that the edited value is certainly not the part's (an integer
plus one, a rational plus 10^-30, another name), so every one is a false file.
"""

from __future__ import annotations

import copy
import json
from fractions import Fraction
from typing import Any

import pytest

from dpverify.cli import main
from dpverify.verify import Malformed
from dpverify.verify.bindings import BINDINGS, COMPARISONS, binding_of
from dpverify.verify.parts import verify_part

#: data-file kind -> two command lines writing it with different parameters ({out}: path)
_COMMANDS: dict[str, tuple[list[str], list[str]]] = {
    "tuv-release": (
        ["tuv-release", "--data", "{rows}", "--k", "3", "--gamma", "1/10", "--epsilon", "1",
         "--insecure-seed", "1"],
        ["tuv-release", "--data", "{rows}", "--k", "4", "--gamma", "1/8", "--epsilon", "1",
         "--insecure-seed", "1"]),
    "tuv-release-rofk": (
        ["tuv-release", "--data", "{rows}", "--k", "4", "--r", "2", "--gamma", "1/10",
         "--epsilon", "1", "--insecure-seed", "2"],
        ["tuv-release", "--data", "{rows}", "--k", "4", "--r", "3", "--gamma", "1/10",
         "--epsilon", "1", "--insecure-seed", "2"]),
    "tuv-dlist-release": (
        ["tuv-release", "--dlists", "{dlists}", "--m", "4", "--k", "2", "--gamma", "1/10",
         "--epsilon", "1", "--insecure-seed", "1"],
        ["tuv-release", "--dlists", "{dlists}", "--m", "4", "--k", "3", "--gamma", "1/10",
         "--epsilon", "1", "--insecure-seed", "1"]),
    "privacy-tuv": (
        ["privacy", "tuv", "--d", "4", "--k", "3", "--gamma", "1/10", "--epsilon", "1"],
        ["privacy", "tuv", "--d", "4", "--k", "4", "--gamma", "1/10", "--epsilon", "1"]),
    "privacy-dlist": (
        ["privacy", "dlist", "--m", "4", "--k", "3", "--gamma", "1/10", "--epsilon", "1"],
        ["privacy", "dlist", "--m", "4", "--k", "2", "--gamma", "1/10", "--epsilon", "1"]),
    "release-bernstein-expr": (
        ["release", "bernstein", "--data", "{rows}", "--query-expr", "x1 * y1 - x2",
         "--k", "2", "--epsilon", "1", "--insecure-seed", "1"],
        ["release", "bernstein", "--data", "{rows}", "--query-expr", "x1 * y1 + x2",
         "--k", "2", "--epsilon", "1", "--insecure-seed", "1"]),
    "answer": (
        ["answer", "--summary", "{summary}", "--query", "x^2"],
        ["answer", "--summary", "{summary}", "--query", "x^3"]),
}


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[Any, Any, str]]:
    """kind -> (document, the other document, path of the first)."""
    d = tmp_path_factory.mktemp("bindings")
    (d / "rows.csv").write_text("a,b,c,d\n1,0,1,0\n0,1,1,1\n1,1,0,0\n0,0,0,1\n")
    (d / "dl.csv").write_text("1,1,2,0,0\n-3,1,1\n2,0,0\n")
    (d / "pts.csv").write_text("x\n0.1\n0.5\n0.7\n0.2\n")
    sub = {"{rows}": str(d / "rows.csv"), "{dlists}": str(d / "dl.csv"),
           "{summary}": str(d / "w.json")}
    assert main(["release", "wang-summary", "--data", str(d / "pts.csv"), "--t", "6",
                 "--epsilon", "1", "--insecure-seed", "1", "--out", str(d / "w.json")]) == 0
    out = {}
    for kind, pair in _COMMANDS.items():
        docs = []
        for i, argv in enumerate(pair):
            path = d / f"{kind}-{i}.json"
            assert main([sub.get(a, a) for a in argv] + ["--out", str(path)]) == 0, argv
            docs.append(json.loads(path.read_text()))
        out[kind] = (docs[0], docs[1], str(d / f"{kind}-0.json"))
    return out


def _part(doc: dict[str, Any]) -> str:
    (name,) = doc["parts"]
    return str(name)


def _check(doc: dict[str, Any], path: Any, name: str) -> Any:
    with open(path, "w") as fh:
        json.dump(doc, fh)
    return verify_part(path, name)


def _get(doc: Any, path: str) -> Any:
    for key in path.split("."):
        doc = doc[key]
    return doc


def _set(doc: dict[str, Any], path: str, value: Any) -> dict[str, Any]:
    out = copy.deepcopy(doc)
    obj = out
    keys = path.split(".")
    for key in keys[:-1]:
        obj = obj[key]
    obj[keys[-1]] = value
    return out


def _edit(value: Any, how: str) -> Any:
    """A value certainly different from ``value`` under comparison ``how``."""
    if how == "int":
        return value + 1
    if how in ("number", "l1 without the constant"):
        q = Fraction(value)
        return str(q + Fraction(1, 10**30))
    if how == "present":
        return not value
    if how == "polynomial":
        return [*value[:-1], str(Fraction(value[-1]) + Fraction(1, 10**30))]
    return value + "x" if how == "text" else "and/chebyshev"


def test_every_writer_is_in_the_table(files):
    for kind, (doc, _, _) in files.items():
        key, entry = binding_of(doc)
        assert entry is not None, (kind, key)
        assert set(entry) == set(doc["parts"]), (kind, key)
        for _, _, how in entry[_part(doc)]:
            assert how in COMPARISONS
    listed = {binding_of(doc)[0] for doc, _, _ in files.values()}
    assert listed == set(BINDINGS), "a binding entry no command writes (stale), or the reverse"


def test_genuine_files_hold_and_every_bound_field_edited_fails(files, tmp_path):
    edits = 0
    for kind, (doc, _, _) in files.items():
        name = _part(doc)
        assert _check(doc, tmp_path / "f.json", name).status == "holds", kind
        for field, _, how in BINDINGS[binding_of(doc)[0]][name]:
            bad = _set(doc, field, _edit(_get(doc, field), how))
            rep = _check(bad, tmp_path / "f.json", name)
            failed = [c[0] for c in rep.checks if c[1] is False]
            assert rep.status == "fails" and f"file: {field}" in failed, (kind, field, rep)
            edits += 1
            # the field deleted, or of another type: never a pass, never a traceback
            value = _get(doc, field)
            for other in (None, "3", 3, [], {"a": 1}, True, "1" * 2000):
                if type(other) is type(value) and other == value:
                    continue  # the genuine value
                worse = _set(doc, field, other)
                assert _check(worse, tmp_path / "f.json", name).status != "holds", (
                    kind, field, other)
            stripped = copy.deepcopy(doc)
            parent = stripped
            keys = field.split(".")
            for key in keys[:-1]:
                parent = parent[key]
            del parent[keys[-1]]
            assert _check(stripped, tmp_path / "f.json", name).status == "fails"
    assert edits >= 25


def test_another_genuine_part_in_its_place_fails(files, tmp_path):
    """The part of a file written with other parameters holds on its own; bound into this
    file it must fail (the binding, not the part, is what is false)."""
    for kind, (doc, other, _) in files.items():
        name = _part(doc)
        binds = BINDINGS[binding_of(doc)[0]][name]
        swapped = copy.deepcopy(doc)
        swapped["parts"][name] = other["parts"][name]
        rep = _check(swapped, tmp_path / "f.json", name)
        part_checks = [c for c in rep.checks if not c[0].startswith("file:")]
        assert all(c[1] is True for c in part_checks), (kind, rep)  # the part itself holds
        assert (rep.status == "fails") == bool(binds), (kind, rep)


def test_unlisted_data_kind_is_undecided(files, tmp_path):
    doc, _, _ = files["tuv-release"]
    renamed = _set(doc, "mechanism", "tuv-release-2")
    rep = _check(renamed, tmp_path / "f.json", "polynomial")
    assert rep.status == "undecided" and rep.exit_code == 1
    assert "no binding table" in rep.reason


def test_hostile_data_files(files, tmp_path):
    doc, _, _ = files["tuv-release"]
    text = json.dumps(doc)
    # a duplicate key: the second k would be what a lenient reader takes
    dup = text.replace('"k": 3,', '"k": 3, "k": 4,', 1)
    assert dup != text
    (tmp_path / "d.json").write_text(dup)
    with pytest.raises(Malformed, match="duplicate key"):
        verify_part(tmp_path / "d.json", "polynomial")
    # parts that are not objects, a statement that is not an object
    for parts in ({"polynomial": 3}, {"polynomial": {"statement": []}}):
        with pytest.raises(Malformed):
            _check(_set(doc, "parts", parts), tmp_path / "f.json", "polynomial")
    # a huge integer k and a polynomial of 10^5 coefficients: refused, quickly
    assert _check(_set(doc, "k", 10**40), tmp_path / "f.json", "polynomial").status == "fails"
    long = _set(doc, "polynomial.coefficients", ["1"] * 100_000)
    assert _check(long, tmp_path / "f.json", "polynomial").status == "fails"
