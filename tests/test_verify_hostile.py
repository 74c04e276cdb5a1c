"""Hostile certificates against ``dpverify.verify``: size amplification, ReDoS, cost caps,
terminal control characters, argument checking of the entry points, messages.

Each test names the defect it guards against; every hostile input is small and the tests
are quick (a timing bound here is a hang guard, not a benchmark).
"""

from __future__ import annotations

import copy
import itertools
import json
import math
import pathlib
import re
import time
from fractions import Fraction

import pytest
from flint import fmpq

from dpverify import cli
from dpverify.cli import main as dpverify_main
from dpverify.verify import (
    ArgumentTypeError,
    ArgumentValueError,
    Malformed,
    render_text,
    verify_bytes,
    verify_document,
    verify_file,
)
from dpverify.verify import cli as verify_cli
from dpverify.verify import numbers as vnum
from dpverify.verify.finite import MAX_FINITE_WORK
from dpverify.verify.lebesgue import MAX_COST
from dpverify.verify.load import check_depth

SCHEMA = pathlib.Path(__file__).resolve().parents[1] / "dpverify/verify/schema/certificate-v1.json"


def _finite(coeffs=("0", "1"), degree=1, lo=0, hi=1, info=None, l1="1", l1_log2="0"):
    """p(x) = x against the threshold r = 1 on the integers lo..hi (|f - p| = 0 on 0..1)."""
    doc = {"schema_version": 1, "format": "dpverify-certificate", "kind": "supnorm-finite",
           "statement": {"polynomial": {"basis": "monomial", "domain": None,
                                        "coefficients": list(coeffs), "degree": degree,
                                        "coefficient_norm": {"l1": l1, "l1_log2": l1_log2}},
                         "target": {"kind": "threshold", "r": 1},
                         "domain": {"kind": "integers", "lo": lo, "hi": hi},
                         "error": {"lower": "0", "upper": "0"}},
           "evidence": {"witness": "0"}}
    if info is not None:
        doc["info"] = info
    return doc


def _box(expr):
    """p = 0 against ``expr`` on [0, 1] (one piece)."""
    return {"schema_version": 1, "format": "dpverify-certificate", "kind": "supnorm-box",
            "statement": {"polynomial": {"basis": "monomial", "domain": None,
                                         "coefficients": ["0"], "degree": -1,
                                         "coefficient_norm": {"l1": "0", "l1_log2": None}},
                          "target": {"kind": "expr", "expr": expr, "variables": ["x"]},
                          "domain": {"kind": "box", "intervals": [["0", "1"]]},
                          "error": {"lower": "0", "upper": "2"}},
            "evidence": {"witness": ["0"], "pieces": [[[["0", "1"]], 4, 64]]}}


def _bytes(doc):
    return json.dumps(doc).encode()


def _lebesgue(k, h):
    return {"schema_version": 1, "format": "dpverify-certificate", "kind": "lebesgue-constant",
            "statement": {"k": k, "h": h, "lower": "1", "upper": "2"},
            "evidence": {"witness": "1/3", "pieces": [["0", "1/2"]]}}


def _generate(tmp_path, capsys, argv, name):
    out = tmp_path / name
    assert dpverify_main(argv + ["--out", str(out)]) == 0
    capsys.readouterr()
    return out


def test_the_base_certificate_holds():
    assert verify_bytes(_bytes(_finite())).status == "holds"
    assert verify_bytes(_bytes(_box("x"))).status == "holds"


# ---------------------------------------------------------------- 1. the digit budget


def test_exponent_notation_cannot_exceed_the_digit_budget():
    # each "1e100000" is within the per-number cap but expands to 100001 digits: eleven of
    # them in a 1 kB file exceed the budget max(10^6, 4 x size) (before the fix every one
    # was built; 20000 of them made GMP abort)
    doc = _finite(coeffs=["1e100000"] * 11 + ["0"], degree=11)
    data = _bytes(doc)
    assert len(data) < 2000
    with pytest.raises(Malformed, match="digit budget"):
        verify_bytes(data)
    with pytest.raises(Malformed, match="digit budget"):
        verify_document(doc)


def test_the_budget_covers_the_denominators_of_negative_exponents():
    doc = _finite(coeffs=["1e-100000"] * 11 + ["0"], degree=11)
    with pytest.raises(Malformed, match="digit budget"):
        verify_bytes(_bytes(doc))


def test_the_budget_covers_number_literals_in_expressions():
    # the expression has its own number literals: they draw on the same budget
    expr = "x + 0*(" + " + ".join(["1e100000"] * 11) + ")"
    with pytest.raises(Malformed, match="digit budget"):
        verify_bytes(_bytes(_box(expr)))


def test_the_budget_covers_constants_folded_in_expressions():
    # 3^20000 (9542 digits) is folded exactly by the parser, and so are the sums: 60 of
    # them count for more than 10^6 digits although the literals are tiny
    expr = "x + 0*(" + " + ".join(["3^20000"] * 60) + ")"
    with pytest.raises(Malformed, match="digit budget"):
        verify_bytes(_bytes(_box(expr)))


def test_the_budget_is_per_certificate_and_scales_with_the_file():
    assert vnum.budget_for(10) == vnum.MIN_DIGIT_BUDGET == 10**6
    assert vnum.budget_for(10**6) == 4 * 10**6
    # one big number on its own is fine, outside a verification too
    assert vnum.read_exact("1e100000", "x") == fmpq(10) ** 100000
    # two verifications in a row each get their own budget
    doc = _finite(coeffs=["1e100000"] * 5 + ["0"], degree=5)
    for _ in range(3):
        assert verify_bytes(_bytes(doc)).status == "fails"  # not malformed


def test_a_genuine_certificate_above_the_floor_still_holds(tmp_path, capsys):
    # OR k = 1000: a 1 MB file whose numbers expand to more than 10^6 digits (so the
    # budget must grow with the file; the k = 10^4 certificate, 13 MB, holds as well)
    path = _generate(tmp_path, capsys, ["or", "--k", "1000", "--gamma", "1e-12"], "or.json")
    data = path.read_bytes()
    used = sum(len(c) for c in json.loads(data)["statement"]["polynomial"]["coefficients"])
    assert used > vnum.MIN_DIGIT_BUDGET
    assert verify_bytes(data).status == "holds"
    assert verify_file(path).status == "holds"
    assert verify_document(json.loads(data)).status == "holds"


# ---------------------------------------------------------------- 2. ReDoS


def test_a_million_character_bad_number_is_rejected_quickly():
    # '[0-9]+[.]?[0-9]*' backtracked quadratically: 30000 digits took 12 s
    doc = _finite()
    doc["statement"]["polynomial"]["coefficients"][1] = "1" * (10**6 - 1) + "x"
    t0 = time.monotonic()
    with pytest.raises(Malformed):
        verify_bytes(_bytes(doc))
    assert time.monotonic() - t0 < 5


@pytest.mark.parametrize("bad", ["1" * 999_999 + "/", "1." + "1" * 999_990 + "e",
                                 "1e" + "1" * 999_990 + "x", "." + "1" * 999_990 + "e+"],
                         ids=["ratio", "fraction", "exponent", "dot"])
def test_other_long_bad_numbers_are_rejected_quickly(bad):
    doc = _finite()
    doc["statement"]["polynomial"]["coefficients"][1] = bad
    t0 = time.monotonic()
    with pytest.raises(Malformed):
        verify_bytes(_bytes(doc))
    t1 = time.monotonic()
    with pytest.raises(Malformed):
        vnum.read_exact(bad, "x")
    assert t1 - t0 < 5 and time.monotonic() - t1 < 5


def test_unterminated_escapes_do_not_make_the_depth_scan_quadratic():
    # the string pattern of the depth scan failed at every '"' and rescanned the rest of
    # the data: '\\"' * 40000 took 12 s
    data = b'\\"' * 200_000
    t0 = time.monotonic()
    check_depth(data)
    with pytest.raises(Malformed):
        verify_bytes(data)
    assert time.monotonic() - t0 < 5
    with pytest.raises(Malformed, match="nested deeper"):  # brackets after it still count
        check_depth(b'"a\\\\" ' + b"[" * 65)
    check_depth(b'"' + b"[" * 400 + b'"')  # brackets inside a string do not count


def test_every_schema_pattern_accepts_the_numbers_the_reader_accepts():
    schema = json.loads(SCHEMA.read_text())
    number = re.compile(schema["$defs"]["number"]["pattern"])
    for n in range(1, 6):
        for chars in itertools.product("01./e+-", repeat=n):
            s = "".join(chars)
            try:
                vnum.read_exact(s, "x")
                ok = True
            except Malformed as exc:  # "0/0" is a number of the grammar with a zero denominator
                ok = "zero denominator" in str(exc)
            assert bool(number.search(s)) == ok, s


def _patterns(node):
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "pattern":
                yield value
            else:
                yield from _patterns(value)
    elif isinstance(node, list):
        for value in node:
            yield from _patterns(value)


def test_no_schema_pattern_backtracks_on_long_strings():
    pats = list(_patterns(json.loads(SCHEMA.read_text())))
    assert len(pats) >= 2
    for pat in pats:
        for probe in ("1" * 200_000 + "x", "a" * 200_000 + "!", "1." + "1" * 200_000 + "e+x"):
            t0 = time.monotonic()
            re.search(pat, probe)
            assert time.monotonic() - t0 < 1, pat


# ---------------------------------------------------------------- 3. cost caps


def test_a_tiny_finite_certificate_of_huge_work_is_malformed():
    # 1001 coefficients, 10^7 integer points of 24 bits: > 20 s and 1.5 GB before the cap
    doc = _finite(coeffs=["0"] * 1001, degree=-1, lo=0, hi=9_999_999)
    data = _bytes(doc)
    t0 = time.monotonic()
    with pytest.raises(Malformed, match=str(MAX_FINITE_WORK)):
        verify_bytes(data)
    assert time.monotonic() - t0 < 5


def test_the_finite_cap_admits_the_largest_or_certificate():
    # dpverify or: k <= 10^6 (points 0..k, 20 bits), degree <= 5000
    assert MAX_FINITE_WORK >= 5001 * (10**6 + 1) * (10**6).bit_length()
    assert 1001 * 10**7 * (10**7).bit_length() > MAX_FINITE_WORK


@pytest.mark.parametrize("k, h", [(600, 64), (1000, 64), (100, 64), (673, 1), (238, 8)])
def test_lebesgue_sizes_the_certifier_refuses_are_malformed(k, h):
    assert h * h * k**4 > MAX_COST
    t0 = time.monotonic()
    with pytest.raises(Malformed, match="h\\^2 k\\^4"):
        verify_bytes(_bytes(_lebesgue(k, h)))
    assert time.monotonic() - t0 < 5


def test_lebesgue_cap_is_the_certifiers():
    text = (pathlib.Path(__file__).resolve().parents[1]
            / "dpverify/constructions/bernstein.py").read_text()
    m = re.search(r"^MAX_BASIS_COST = (.+)$", text, re.M)
    assert m is not None
    assert MAX_COST == eval(m.group(1), {})  # noqa: S307 (a constant expression)
    # k = 200, h = 8 is at the cap: accepted (a tiny deadline stops the long computation)
    rep = verify_bytes(_bytes(_lebesgue(200, 8)), deadline_seconds=1e-9)
    assert rep.status == "undecided" and rep.reason == "time limit"


# ---------------------------------------------------------------- 4. control characters

_BAD = "\x1b[1A\x1b[2K\r\x07\u202e\u2066\u200f\x9b\ud800"


def _printable(text):
    bidi = set("\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")
    return all(c.isprintable() and c not in bidi for c in text)


def test_info_keys_and_values_cannot_drive_the_terminal():
    doc = _finite(info={"note": "x" + _BAD + "HOLDS", "\u202eSDLOH" + _BAD: _BAD,
                        "nested": {"k": _BAD}})
    rep = verify_bytes(_bytes(doc))
    text = render_text(rep, "c.json")
    assert all(_printable(line) for line in text.split("\n"))
    assert "\\x1b" in text and "\\u202e" in text and "\\x07" in text
    assert text.split("\n")[-1] == "HOLDS"


def test_other_certificate_text_in_the_report_is_escaped():
    rep = verify_bytes(_bytes(_finite()))
    rep.statement.append("Target: f(x) = " + _BAD)
    rep.checks.append(("name" + _BAD, True, "detail" + _BAD))
    text = render_text(rep, "path\x1b.json")
    assert all(_printable(line) for line in text.split("\n"))


def test_malformed_messages_are_escaped(tmp_path, capsys):
    doc = _finite()
    doc["statement"]["polynomial"]["coefficients"][1] = "1\u202e"
    with pytest.raises(Malformed) as err:
        verify_bytes(_bytes(doc))
    assert _printable(str(err.value))
    doc = _finite()
    doc["statement"]["bad\x1b]0;pwn\x07" + "\u2067"] = 1
    path = tmp_path / "c.json"
    path.write_text(json.dumps(doc))
    assert verify_cli.main([str(path)]) == 2
    cap = capsys.readouterr()
    assert cap.out == "" and cap.err.count("\n") == 1 and _printable(cap.err.rstrip("\n"))


def test_the_cli_text_report_is_escaped(tmp_path, capsys):
    path = tmp_path / "c.json"
    path.write_text(json.dumps(_finite(info={"k\x1b": "\x1b[2J\u202e"})))
    assert verify_cli.main([str(path)]) == 0
    out = capsys.readouterr().out
    assert all(_printable(line) for line in out.rstrip("\n").split("\n"))
    assert "\\x1b[2J\\u202e" in out


# ---------------------------------------------------------------- 5. entry points


@pytest.mark.parametrize("path", [None, 0, 1, True, b"c.json", 1.5, ["c.json"]])
def test_verify_file_refuses_what_is_not_a_path(path):
    with pytest.raises(ArgumentTypeError, match="path") as err:
        verify_file(path)
    assert isinstance(err.value, TypeError)


def test_verify_file_takes_str_and_pathlike(tmp_path):
    path = tmp_path / "c.json"
    path.write_bytes(_bytes(_finite()))
    assert verify_file(path).status == "holds"
    assert verify_file(str(path)).status == "holds"


@pytest.mark.parametrize("data", ["{}", None, 0, [1, 2], {"a": 1}])
def test_verify_bytes_refuses_what_is_not_bytes(data):
    with pytest.raises(ArgumentTypeError, match="data") as err:
        verify_bytes(data)
    assert isinstance(err.value, TypeError)


@pytest.mark.parametrize("seconds", [-1, -0.5, -1e-300, math.nan, math.inf, -math.inf])
def test_bad_deadline_values(tmp_path, seconds):
    path = tmp_path / "c.json"
    data = _bytes(_finite())
    path.write_bytes(data)
    for call in (lambda: verify_file(path, deadline_seconds=seconds),
                 lambda: verify_bytes(data, deadline_seconds=seconds),
                 lambda: verify_document(json.loads(data), deadline_seconds=seconds)):
        with pytest.raises(ArgumentValueError, match="deadline_seconds") as err:
            call()
        assert isinstance(err.value, ValueError) and not isinstance(err.value, Malformed)


@pytest.mark.parametrize("seconds", ["5", True, False, b"5", [5], complex(1, 0)])
def test_bad_deadline_types(seconds):
    data = _bytes(_finite())
    with pytest.raises(ArgumentTypeError, match="deadline_seconds"):
        verify_bytes(data, deadline_seconds=seconds)
    with pytest.raises(ArgumentTypeError, match="deadline_seconds"):
        verify_document(json.loads(data), deadline_seconds=seconds)


@pytest.mark.parametrize("seconds", [None, 5, 2.5, Fraction(7, 2), 10**6])
def test_good_deadlines(seconds):
    assert verify_bytes(_bytes(_finite()), deadline_seconds=seconds).status == "holds"


def test_a_zero_deadline_has_passed_already():
    # 0 is allowed (tests/test_verifier_unit.py relies on it): every check is cut short
    rep = verify_bytes(_bytes(_box("x")), deadline_seconds=0)
    assert rep.status == "undecided" and rep.reason == "time limit"


# ---------------------------------------------------------------- 6. messages and docs


def test_least_degree_messages_name_q(tmp_path, capsys, monkeypatch):
    monkeypatch.setitem(cli.COMMANDS, "approx", ("approx_cmd", "approx"))
    path = _generate(tmp_path, capsys, ["approx", "--f", "x^4", "--interval", "-1", "1",
                                        "--gamma", "1/5"], "m.json")
    doc = json.loads(path.read_text())
    assert verify_document(doc).status == "holds"
    bad = copy.deepcopy(doc)
    bad["evidence"]["least_degree"]["polynomial"] = {"basis": "monomial", "domain": None,
                                                     "coefficients": ["0"]}
    rep = verify_document(bad)
    assert rep.status == "fails"
    name, _, detail = rep.failures()[0]
    assert "f - q" in name and "f - q" in detail and "f - p" not in detail


def test_docs_list_min_max_and_the_caps():
    text = (pathlib.Path(__file__).resolve().parents[1] / "docs/certificates.md").read_text()
    expressions = text.split("## Expressions", 1)[1].split("\n## ", 1)[0]
    assert "min(a, b, ...)" in expressions and "max(a, b, ...)" in expressions
    limits = text.split("## Limits of the verifier", 1)[1].split("\n## ", 1)[0]
    assert "4 x file size" in limits and "h^2 k^4" in limits
    assert f"{MAX_FINITE_WORK:,}" in limits and f"{MAX_COST:,}" in limits


# ---------------------------------------------------------------- evalbound, float-error, parts


def _evalbound_doc(basis="monomial"):
    from dpverify.certify.evalbound import evalbound

    if basis == "monomial":
        return evalbound([1, "1/3", "-1/7", "1/11"], ("-1/2", 1), pieces=8).certificate().data
    return evalbound(["1/2", "-1/5", "1/9"], (0, 3), basis="chebyshev", domain=(0, 3),
                     pieces=8).certificate().data


def _worst_claim(doc):
    """(piece, index) of the claim with the largest E (its rounding bound dominates)."""
    best = None
    for i, pc in enumerate(doc["evidence"]["pieces"]):
        for j, cl in enumerate(pc[2]):
            e = cl if isinstance(cl, int) else cl[0]
            if best is None or e > best[0]:
                best = (e, i, j)
    return best[1], best[2]


@pytest.mark.parametrize("basis", ["monomial", "chebyshev"])
def test_evalbound_claims_cannot_be_forged(basis):
    doc = _evalbound_doc(basis)
    assert verify_document(doc).status == "holds"
    i, j = _worst_claim(doc)
    # a smaller magnitude claim would lower the rounding bound: it must be proven
    forged = copy.deepcopy(doc)
    cl = forged["evidence"]["pieces"][i][2][j]
    forged["evidence"]["pieces"][i][2][j] = (cl if isinstance(cl, int) else cl[0]) - 1
    assert verify_document(forged).status != "holds"
    # a false lower claim |v| >= 2^L would make the FIX argument call the operation exact
    forged = copy.deepcopy(doc)
    cl = forged["evidence"]["pieces"][i][2][j]
    e = cl if isinstance(cl, int) else cl[0]
    forged["evidence"]["pieces"][i][2][j] = [e, e]
    assert verify_document(forged).status != "holds"


def test_evalbound_statement_and_pieces_edits():
    doc = _evalbound_doc()
    for edit, want in [
        (lambda d: d["statement"].__setitem__("bound", "0"), ("fails", "undecided")),
        (lambda d: d["statement"].__setitem__("bound", "-1/2"), ("fails", "undecided")),
        (lambda d: d["evidence"]["pieces"].pop(1), ("fails",)),
        (lambda d: d["evidence"]["pieces"][0].__setitem__(0, "-1/4"), ("fails",)),
        (lambda d: d["statement"].__setitem__("interval", ["-1", "1"]), ("fails",)),
    ]:
        m = copy.deepcopy(doc)
        edit(m)
        m["statement"].pop("bound_decimal", None)
        assert verify_document(m).status in want, edit


@pytest.mark.parametrize("edit", [
    lambda d: d["statement"]["polynomial"]["coefficients"].__setitem__(1, "1/3"),
    lambda d: d["statement"].__setitem__("arithmetic", "binary64 with FMA"),
    lambda d: d["statement"].__setitem__("scheme", "clenshaw"),
    lambda d: d["statement"]["polynomial"].__setitem__("coefficients", ["0"] * 514),
    lambda d: d["statement"].__setitem__("interval", ["1", "-1/2"]),
    lambda d: d["statement"].__setitem__("interval", ["0", "1e400"]),
    lambda d: d["evidence"]["pieces"][0][2].pop(),
    lambda d: d["evidence"]["pieces"][0][2].__setitem__(0, 1024),
    lambda d: d["evidence"]["pieces"][0][2].__setitem__(0, [0, 0, 0]),
    lambda d: d["evidence"]["pieces"][0][2].__setitem__(0, True),
    lambda d: d["evidence"]["pieces"][0].__setitem__(1, "-1"),
    lambda d: d["evidence"].__setitem__("pieces", []),
])
def test_evalbound_malformed_edits(edit):
    doc = _evalbound_doc()
    edit(doc)
    with pytest.raises(Malformed):
        verify_document(doc)


def test_evalbound_tiny_files_of_large_work_are_capped():
    # 513 coefficients is the cap (degree 512; one more is malformed before any work): at
    # the cap, claims that hold but need every exact intermediate polynomial stay quick
    doc = _evalbound_doc("chebyshev")
    doc["statement"]["polynomial"]["coefficients"] = ["-0.75", "0.5"] * 256 + ["1"]
    doc["evidence"]["pieces"] = [["0", "3", [1023] * (2 + 3 * 512)]]
    t0 = time.monotonic()
    rep = verify_document(doc, deadline_seconds=2)
    assert rep.status != "holds" and time.monotonic() - t0 < 30


def test_float_error_parts_are_certificates_of_their_kind():
    from dpverify.certify.evalbound import float_error_bound

    doc = float_error_bound("exp(x)", [1, 1, "1/2"], (0, "1/4"), rtol="1e-2",
                            pieces=4).float_certificate().data
    assert verify_document(doc).status == "holds"
    for edit in [
        lambda d: d["evidence"]["parts"]["approximation"].__setitem__("kind", "minimax"),
        lambda d: d["evidence"]["parts"]["evaluation"].__setitem__("format", "dpverify-data"),
        lambda d: d["evidence"]["parts"]["evaluation"]["statement"].__setitem__("bound", 1e-16),
        lambda d: d["evidence"]["parts"].__setitem__("extra", {}),
        lambda d: d["statement"]["target"].__setitem__("variables", ["y"]),
    ]:
        m = copy.deepcopy(doc)
        edit(m)
        with pytest.raises(Malformed):
            verify_document(m)
    # a part about another target: not about this statement
    m = copy.deepcopy(doc)
    m["evidence"]["parts"]["approximation"]["statement"]["target"]["expr"] = "exp(x) + 1/1000"
    assert verify_document(m).status == "fails"


def test_parts_of_hostile_files(tmp_path, capsys):
    from dpverify.verify.parts import verify_part

    bad = tmp_path / "d.json"
    bad.write_text('{"format": "dpverify-data", "parts": {"p": {"schema_version": 1.0}}}')
    with pytest.raises(Malformed):  # a part holds no JSON float
        verify_part(bad, "p")
    bad.write_text('{"format": "dpverify-data", "parts": {"p": 1, "p": 2}}')
    with pytest.raises(Malformed, match="duplicate"):
        verify_part(bad, "p")
    bad.write_text('{"format": "dpverify-data", "parts": [1]}')
    with pytest.raises(Malformed, match="its parts: none"):
        verify_part(bad, "p")
    bad.write_text("[" * 100 + "]" * 100)
    with pytest.raises(Malformed, match="nested"):
        verify_part(bad, "p")
    with pytest.raises(Malformed, match="cannot read"):
        verify_part(tmp_path / "missing.json", "p")
    # the part name is escaped in the message like any other text
    bad.write_text('{"format": "dpverify-data", "parts": {}}')
    assert verify_cli.main([str(bad), "--part", "\x1b[31mred"]) == 2
    assert "\x1b" not in capsys.readouterr().err
