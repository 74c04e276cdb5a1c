"""The reproducers of the trust review, each a test that failed before the fix.

1. A ``construction`` added to a ``supnorm-box`` statement was printed and HELD (the CLI's
   supnorm certificate; jackson-approx and bernstein-approx certificates with ``dlist/h``
   or ``rofk/sherstov``; the ``approximation`` part of a float-error certificate, alone
   with ``--part`` and inside its parent): now malformed, exit 2.
2. The documented Python path (docs/tutorials/own-approximation.md) with the interval end
   ``(math.pi / 2).hex()`` or ``math.pi / 2`` gave ``complete=True`` and a certificate its
   own checker called malformed: every kind built through the public API from floats, hex
   floats, Fractions, Decimals and numpy floats now passes the checker's schema.
3. Editing the top-level ``k`` or ``polynomial`` of a ``tuv-release`` output still HELD
   for ``--part polynomial`` (tests/test_trust_bindings.py edits every bound field of
   every data-file kind; the reproducer itself is here).
"""

from __future__ import annotations

import copy
import json
import math
from decimal import Decimal
from fractions import Fraction

import numpy as np
import pytest
from flint import fmpq

from dpverify import Approximation, approx, evalbound, float_error_bound, minimax
from dpverify.certify import certify
from dpverify.certify.certificate import Certificate, issue
from dpverify.certify.jackson_kernel import jackson_kernel_certificate
from dpverify.certify.lebesgue import lebesgue_certificate, lebesgue_constant
from dpverify.cli import main
from dpverify.constructions.bernstein import iterated_bernstein_basis
from dpverify.constructions.jackson import jackson_coefficients_2pi, jackson_multipliers
from dpverify.errors import InvalidParameterError
from dpverify.exact import MonomialPoly
from dpverify.verify import Malformed, verify_document, verify_file
from dpverify.verify.parts import verify_part

_CONSTRUCTIONS = (
    {"name": "or/chebyshev", "params": {"k": 4, "gamma": "2"}},
    {"name": "dlist/h", "params": {"k": 4, "gamma": "1/10"}},
    {"name": "rofk/sherstov", "params": {"r": 2, "k": 4, "gamma": "1/10"}},
)


def _write(path, doc):
    path.write_text(json.dumps(doc))
    return str(path)


@pytest.mark.parametrize("argv", [
    ["supnorm", "--f", "exp(x)", "--poly", "1,1,1/2,1/6,1/24", "--interval", "-1", "1",
     "--rtol", "1e-3"],
    ["jackson-approx", "--f", "exp(x)", "--t", "6", "--K", "2", "--rtol", "1e-2"],
    ["bernstein-approx", "--f", "exp(x)", "--k", "6", "--h", "2", "--rtol", "1e-2"],
], ids=["supnorm", "jackson-approx", "bernstein-approx"])
def test_construction_in_a_box_statement_is_malformed(argv, tmp_path, capsys):
    out = tmp_path / "c.json"
    assert main([*argv, "--out", str(out)]) == 0
    doc = json.loads(out.read_text())
    assert doc["kind"] == "supnorm-box" and verify_file(out).ok
    for con in _CONSTRUCTIONS:
        forged = copy.deepcopy(doc)
        forged["statement"]["construction"] = con
        path = _write(tmp_path / "f.json", forged)
        capsys.readouterr()
        assert main(["verify", path]) == 2
        err = capsys.readouterr().err
        assert "'construction' was unexpected" in err and "HOLDS" not in err
    forged = copy.deepcopy(doc)
    forged["statement"]["least_degree"] = {"pin": None}
    with pytest.raises(Malformed, match="least_degree"):
        verify_document(forged)


def test_construction_in_the_part_of_a_float_error_certificate(tmp_path):
    cert = float_error_bound("exp(x)", [1, 1, "1/2"], (0, "1/4"), rtol="1e-2",
                             pieces=4).float_certificate()
    doc = json.loads(cert.to_json())
    for con in _CONSTRUCTIONS:
        forged = copy.deepcopy(doc)
        forged["evidence"]["parts"]["approximation"]["statement"]["construction"] = con
        path = _write(tmp_path / "fe.json", forged)
        with pytest.raises(Malformed, match="construction"):
            verify_part(path, "approximation")
        with pytest.raises(Malformed, match="construction"):
            verify_file(path)


@pytest.mark.parametrize("b", [
    (math.pi / 2).hex(), math.pi / 2, np.float64(math.pi / 2), Fraction(355, 226),
    Decimal("1.5707963267948966"), fmpq(355, 226), " 1.5 ", 2],
    ids=["hex", "float", "numpy", "Fraction", "Decimal", "fmpq", "blanks", "int"])
def test_own_approximation_with_any_number(b):
    """docs/tutorials/own-approximation.md, the Python path, with the interval end b."""
    sin7 = MonomialPoly([0, 1, 0, "-1/6", 0, "1/120", 0, "-1/5040"])
    cert = certify(Approximation(
        construction="supnorm", params={"f": "sin(x)"}, poly=sin7,
        target={"kind": "expr", "expr": "sin(x)", "variables": ["x"]},
        domain={"kind": "box", "intervals": [["0", b]]}, claims={"max_error": "1e-2"}),
        rtol="1e-3")
    assert cert.complete
    end = cert.statement["domain"]["intervals"][0][1]
    assert isinstance(end, str) and "x" not in end and fmpq(*Fraction(
        end if "/" in end else f"{end}/1").as_integer_ratio()) == _exact(b)
    assert cert.check().status == "holds"


def _exact(b):
    if isinstance(b, str):
        b = float.fromhex(b) if b.startswith("0x") else Fraction(b.strip())
    if isinstance(b, (float, np.floating, Decimal)):
        b = Fraction(b)
    return fmpq(Fraction(b).numerator, Fraction(b).denominator) if not isinstance(
        b, fmpq) else b


def test_every_kind_from_float_hex_and_fraction_inputs():
    """One certificate of each kind through the public API, its numbers given as floats,
    hex-float text and Fractions: the checker never calls the result malformed."""
    half = Fraction(1, 2)
    certs = {
        "supnorm-finite": certify(Approximation(
            construction="mine", params={}, poly=MonomialPoly([0.25, half]),
            target={"kind": "values", "values": [0.0, Fraction(1, 3), "0x1p-1"]},
            domain={"kind": "points", "points": [-0.5, half, "0x1.8p-1"]},
            claims={"max_error": 2.0})),
        "supnorm-box": certify(Approximation(
            construction="mine", params={}, poly=MonomialPoly([1, 1, half]),
            target={"kind": "expr", "expr": "exp(x)", "variables": ["x"]},
            domain={"kind": "box", "intervals": [(np.float64(0.0), "0x1p-2")]},
            claims={"max_error": np.float32(0.01)}), rtol=1e-3),
        "minimax": minimax("exp(x)", 3, (0.0, (math.pi / 4).hex())),
        "minimax (approx)": approx("exp(x)", (half, 1.0), 1e-3),
        "evalbound": evalbound([1.0, 0.5, half], (0.0, "0x1p-1")).certificate(),
        "float-error": float_error_bound("exp(x)", [1.0, 1.0, half], (0.0, 0.25), rtol=1e-2,
                                         pieces=4).float_certificate(),
        "jackson-kernel": jackson_kernel_certificate(
            4, 3, 2, [Fraction(int(c.p), int(c.q)) for c in jackson_coefficients_2pi(4, 3)],
            [Fraction(int(c.p), int(c.q)) for c in jackson_multipliers(4, 2)]),
        "lebesgue-constant": lebesgue_certificate(
            lebesgue_constant(3, 2), [[Fraction(int(c.p), int(c.q)) for c in row]
                                      for row in iterated_bernstein_basis(3, 2).basis]),
    }
    for kind, cert in certs.items():
        assert cert.kind == kind.split(" ")[0]
        assert cert.check().status == "holds", kind  # never Malformed


def test_issue_keeps_canonical_certificates_byte_identical():
    import test_trust_mutation as mutation

    for label, doc in mutation._fixtures().items():
        assert json.dumps(issue(doc)) == json.dumps(doc), label


def test_issue_names_what_it_cannot_repair(tmp_path):
    base = json.loads(certify(Approximation(
        construction="mine", params={}, poly=MonomialPoly(["1/2"]),
        target={"kind": "threshold", "r": 1},
        domain={"kind": "integers", "lo": 0, "hi": 2})).to_json())
    for where, value, needle in (
            (("statement", "domain", "hi"), 2.0, "domain.hi"),  # a float where an int goes
            (("statement", "error", "upper"), float("nan"), "statement.error.upper"),
            (("statement", "target", "r"), "1", "target"),
            (("statement", "error", "upper"), Decimal("Infinity"), "error.upper")):
        doc = copy.deepcopy(base)
        doc[where[0]][where[1]][where[2]] = value
        with pytest.raises(InvalidParameterError, match=needle.replace(".", r"\.")):
            Certificate(doc)
    deep = copy.deepcopy(base)
    nest: list = []
    deep["statement"]["target"]["values"] = nest
    for _ in range(200):
        nest.append([0.5])
        nest = nest[-1]
    with pytest.raises(InvalidParameterError, match="nested deeper than 64"):
        Certificate(deep)
    # changed after it was issued: save() repairs what it can, refuses the rest
    cert = Certificate(copy.deepcopy(base))
    cert.data["statement"]["max_error"] = 0.5
    cert.save(str(tmp_path / "c.json"))
    assert json.loads((tmp_path / "c.json").read_text())["statement"]["max_error"] == "1/2"
    assert verify_file(tmp_path / "c.json").ok
    cert.data["statement"]["max_error"] = math.inf
    with pytest.raises(InvalidParameterError, match="max_error"):
        cert.save(str(tmp_path / "d.json"))
    assert not (tmp_path / "d.json").exists()


def test_tuv_release_fields_bound_to_the_part(tmp_path):
    rows = tmp_path / "rows.csv"
    rows.write_text("a,b,c,d\n1,0,1,0\n0,1,1,1\n1,1,0,0\n0,0,0,1\n")
    out = tmp_path / "tuv.json"
    assert main(["tuv-release", "--data", str(rows), "--k", "3", "--gamma", "1/10",
                 "--epsilon", "1", "--insecure-seed", "1", "--out", str(out)]) == 0
    doc = json.loads(out.read_text())
    assert verify_part(out, "polynomial").ok
    for edit in (lambda d: d.update(k=4),
                 lambda d: d["polynomial"]["coefficients"].__setitem__(1, "46/26")):
        forged = copy.deepcopy(doc)
        edit(forged)
        report = verify_part(_write(tmp_path / "f.json", forged), "polynomial")
        assert report.status == "fails" and report.exit_code == 1
        assert report.reason.startswith("file: ")


def _uniform(node, root, number):
    """Every string the schema ``node`` can look at is judged by the number schema alone,
    so an item and its skeleton (numbers replaced by "0") get the same verdict."""
    if isinstance(node, bool) or node == number:
        return True
    if "$ref" in node:
        target = root
        for key in node["$ref"][2:].split("/"):
            target = target[key]
        rest = {k: v for k, v in node.items() if k != "$ref"}
        return _uniform(target, root, number) and _uniform(rest, root, number)
    if set(node) - {"type", "items", "prefixItems", "minItems", "maxItems", "minimum",
                    "maximum", "oneOf"}:
        return False
    types = node.get("type", [])
    if "string" in ([types] if isinstance(types, str) else types):
        return False
    subs = [node.get("items", True), *node.get("prefixItems", []), *node.get("oneOf", [])]
    return all(_uniform(s, root, number) for s in subs)


def test_folded_lists_are_uniform_in_the_schema():
    from dpverify.certify.certificate import UNIFORM_LISTS
    from dpverify.verify.load import number_def, schema_document

    for kind, (name, key) in UNIFORM_LISTS.items():
        root = schema_document({"kind": kind})
        lst = root["$defs"][name]["properties"][key]
        assert set(lst) <= {"type", "items", "minItems", "maxItems"}, kind
        assert _uniform(lst["items"], root, number_def()), kind


def test_folded_validation_has_the_verdict_of_the_full_one():
    from dpverify.certify.certificate import FOLD_AT

    cert = float_error_bound("exp(x)", [1, 1, "1/2"], (0, 1), rtol="1e-9",
                             pieces=4).certificate
    doc = json.loads(cert.to_json())
    pieces = doc["evidence"]["pieces"]
    while len(pieces) < FOLD_AT:  # the same tiling, cut finer (exact halves)
        pieces[:] = [half for (((a, b),), o, p) in pieces for half in (
            [[[a, str((Fraction(a) + Fraction(b)) / 2)]], o, p],
            [[[str((Fraction(a) + Fraction(b)) / 2), b]], o, p])]
    assert issue(doc) == doc and verify_document(doc).ok
    for bad, needle in (([[["0", "1/2"]], 2000, 64], "1024"),
                        ([[["0", "1/2"]], 3, 53.5], "pieces"),
                        ([[["0", "x"]], 3, 64], "pieces"),
                        ([[["0", "1/2"]], 3], "pieces")):
        forged = copy.deepcopy(doc)
        forged["evidence"]["pieces"][FOLD_AT // 2] = bad
        with pytest.raises(InvalidParameterError, match=needle):
            issue(forged)
    repaired = copy.deepcopy(doc)
    repaired["evidence"]["pieces"][5][0][0][1] = "0x1p-1"  # a hex float: repaired
    assert issue(repaired)["evidence"]["pieces"][5][0][0][1] == "1/2"
