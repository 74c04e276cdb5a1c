"""Bernstein float queries given as programs (dpverify/mechanisms/bernstein_float.py).

The certified float error must dominate the real error: the float value is recomputed
here by hand-written numpy code in the written order (not by the module's evaluator) and
the exact value by ``fractions.Fraction`` from the same formula, at random and adversarial
points (float32 rounding midpoints, lattice points ``nu/k`` that are not floats, the box's
corners).  The privacy record must list the error as proven with its certificate, the
certificate bound to the file, the release bit-identical however the rows are cut, and
what cannot be certified refused naming the parameter.
"""

from __future__ import annotations

import contextlib
import copy
import dataclasses
import io
import json
from fractions import Fraction

import numpy as np
import pytest

from dpverify.cli import main
from dpverify.errors import DomainError, ExpressionError, InvalidParameterError
from dpverify.mechanisms import bernstein_float as bf
from dpverify.mechanisms import bernstein_mech as bm
from dpverify.mechanisms.float_program import emulate_program, program_values, round_to_format
from dpverify.verify.parts import verify_part


def _f32(v):
    return np.float32(v)


# (program, domain, format, hand-written float evaluation in the written order, exact P)
CASES = [
    ("1 - (x1 - y1) * (x1 - y1)", [(0, 1)], "binary64",
     lambda x, y: np.float64(1) - (x[0] - y[0]) * (x[0] - y[0]),
     lambda x, y: 1 - (x[0] - y[0]) * (x[0] - y[0])),
    ("(x1 * y1 + 0.1) / (x2 + 1)", [(0, 1), (0, 2)], "binary32",
     lambda x, y: (x[0] * y[0] + _f32(0.1)) / (x[1] + _f32(1)),
     lambda x, y: (x[0] * y[0] + Fraction(1, 10)) / (x[1] + 1)),
    # FPBench doppler1 with u = 200 y1 - 100 the query coordinate
    ("t = 331.4 + 0.6 * x1; u = 200 * y1 - 100; -t * x2 / ((t + u) * (t + u))",
     [(-30, 50), (20, 20000)], "binary64",
     lambda x, y: (lambda t, u: -t * x[1] / ((t + u) * (t + u)))(
         np.float64(331.4) + np.float64(0.6) * x[0], np.float64(200) * y[0] - np.float64(100)),
     lambda x, y: (lambda t, u: -t * x[1] / ((t + u) * (t + u)))(
         Fraction(3314, 10) + Fraction(6, 10) * x[0], 200 * y[0] - 100)),
]


def _points(domain, fmt, g):
    """Data rows (binary64 numbers, the mechanism's data) and exact query points: random,
    the domain's corners, lattice points nu/k, and for binary32 binary64 numbers next to
    float32 rounding midpoints (the input rounding at its worst)."""
    rows, ys = [], []
    for _ in range(150):
        rows.append([g.uniform(float(a), float(b)) for a, b in domain])
        ys.append(Fraction(int(g.integers(0, 1000)), 999))
    for mask in range(1 << len(domain)):
        for y in (Fraction(0), Fraction(1), Fraction(1, 3), Fraction(7, 10)):
            rows.append([float(domain[j][(mask >> j) & 1]) for j in range(len(domain))])
            ys.append(y)
    if fmt == "binary32":
        for _ in range(100):
            r = []
            for a, b in domain:
                v = np.float32(g.uniform(float(a), float(b)))
                up = np.nextafter(v, np.float32(np.inf))
                mid = (float(v) + float(up)) / 2  # exact in binary64
                r.append(min(max(np.nextafter(mid, np.inf if g.integers(2) else -np.inf),
                                 float(a)), float(b)))
            rows.append(r)
            ys.append(Fraction(int(g.integers(1, 40)), 41))
    return rows, ys


@pytest.mark.parametrize("expr,domain,fmt,fl,exact", CASES)
def test_certified_bound_dominates_the_exact_error(expr, domain, fmt, fl, exact):
    q = bf.expression_query(expr, domain, format=fmt)
    bound = Fraction(str(q.float_error))
    dt = np.float32 if fmt == "binary32" else np.float64
    g = np.random.default_rng(7)
    rows, ys = _points(domain, fmt, g)
    worst = Fraction(0)
    for row, y in zip(rows, ys):
        xin = [dt(v) for v in row]  # one rounding of the binary64 datum
        yin = [dt(float(round_to_format([f"{y.numerator}/{y.denominator}"], fmt)[0]))]
        with np.errstate(all="ignore"):
            got = fl(xin, yin)
        assert isinstance(got, dt)
        # the module's evaluator and its exact emulation compute the same float
        names = q.program.variables
        mine = program_values(q.program, fmt, {
            **{f"x{j + 1}": np.asarray([xin[j]], dtype=dt) for j in range(len(row))},
            "y1": np.asarray([yin[0]], dtype=dt)})
        assert float(np.ravel(mine)[0]) == float(got)
        emu = emulate_program(q.program, fmt, dict(zip(names, [*row, f"{y.numerator}/"
                                                               f"{y.denominator}"])))
        assert Fraction(float(got)) == Fraction(int(emu.p), int(emu.q))
        err = abs(Fraction(float(got)) - exact([Fraction(v) for v in row], [y]))
        worst = max(worst, err)
    assert worst <= bound
    assert worst > 0  # the test would see an error that exceeds the bound


def test_record_lists_the_float_error_as_proven():
    q = bf.expression_query("1 - (x1 - y1) * (x1 - y1)", [(0, 1)])
    X = np.random.default_rng(0).uniform(0, 1, (50, 1))
    r = bm.release_bernstein(X, q, 4, 1, 1, insecure_seed=0)
    gu = r.privacy["guarantee"]
    assert gu["assumptions"] == [] and r.privacy["assumptions"] == []
    claims = " ".join(p["claim"] for p in gu["proven"])
    assert "float evaluation error <= " + str(q.float_error) in claims
    ev = r.privacy["evaluation"]
    assert ev["float_error"] == str(q.float_error) and ev["float_error_source"].startswith(
        "certified")
    part = r.to_json()["parts"]["float_error"]
    assert part["kind"] == "roundoff" and part["statement"]["bound"] == str(q.float_error)
    # a copy is an ordinary float query: the same error is then a declared assumption
    plain = dataclasses.replace(q, name="copy")
    assert bf.certified_roundoff(plain) is None
    r2 = bm.release_bernstein(X, plain, 4, 1, 1, insecure_seed=0)
    assert any("declared float evaluation error" in a for a in r2.privacy["assumptions"])
    assert any("declared S(F)" in a for a in r2.privacy["assumptions"])
    assert "parts" not in r2.to_json()


def test_release_is_bit_identical_however_the_rows_are_cut(monkeypatch, tmp_path):
    q = bf.expression_query("(x1 * y1 + 0.1) / (x2 + 1)", [(0, 1), (0, 2)],
                            format="binary32")
    g = np.random.default_rng(3)
    X = np.column_stack([g.uniform(0, 1, 37), g.uniform(0, 2, 37)])
    ref = bm.release_bernstein(X, q, 6, 1, 2**64, insecure_seed=0, check=False).values
    for rows in (1, 5, 16):
        monkeypatch.setattr(bf, "_ROWS", rows)
        assert bm.release_bernstein(X, q, 6, 1, 2**64, insecure_seed=0,
                                    check=False).values == ref
    monkeypatch.undo()
    perm = g.permutation(len(X))
    assert bm.release_bernstein(X[perm], q, 6, 1, 2**64, insecure_seed=0,
                                check=False).values == ref
    # the CLI: one file, or the rows split over two files (each its own block)
    one, split = tmp_path / "one.csv", tmp_path / "split"
    split.mkdir()
    text = ["a,b"] + [f"{float(a)!r},{float(b)!r}" for a, b in X]
    one.write_text("\n".join(text) + "\n")
    (split / "p.csv").write_text("\n".join(text[:12]) + "\n")
    (split / "q.csv").write_text("\n".join(text[:1] + text[12:]) + "\n")
    outs = []
    for i, src in enumerate((one, split)):
        out = tmp_path / f"r{i}.json"
        assert main(["release", "bernstein", "--data", str(src), "--query-expr",
                     "(x1 * y1 + 0.1) / (x2 + 1)", "--query-domain", "0,1;0,2",
                     "--query-format", "binary32", "--k", "6", "--epsilon", str(2**64),
                     "--insecure-seed", "0", "--no-check", "--out", str(out)]) == 0
        outs.append(json.loads(out.read_text())["values"])
    assert outs[0] == outs[1] == [str(v) for v in ref]


def test_part_verifies_and_forgeries_fail(tmp_path):
    data = tmp_path / "d.csv"
    data.write_text("x\n0.1\n0.5\n0.9\n0.25\n")
    out = tmp_path / "r.json"
    assert main(["release", "bernstein", "--data", str(data), "--query-expr",
                 "1 - (x1 - y1) * (x1 - y1)", "--k", "4", "--epsilon", "1",
                 "--insecure-seed", "1", "--out", str(out)]) == 0
    doc = json.loads(out.read_text())
    assert doc["verification"]["certificates"] == ["float_error"]
    assert verify_part(str(out), "float_error").status == "holds"

    def status(edit):
        bad = copy.deepcopy(doc)
        edit(bad)
        path = tmp_path / "bad.json"
        path.write_text(json.dumps(bad))
        return verify_part(str(path), "float_error").status

    def program(d):
        d["function_params"]["program"] = d["function_params"]["program"].replace(
            "(- 1 ", "(- 2 ")

    def bound(d):  # a smaller bound in the part: the part's own check refuses it
        b = Fraction(d["parts"]["float_error"]["statement"]["bound"])
        d["parts"]["float_error"]["statement"]["bound"] = str(b / 1000)

    def file_bound(d):
        d["privacy"]["evaluation"]["float_error"] = "0"

    def box(d):
        d["function_params"]["box"][0] = ["0", "2"]

    for edit in (program, bound, file_bound, box):
        assert status(edit) == "fails", edit.__name__


def test_refusals_name_the_parameter(tmp_path):
    with pytest.raises(InvalidParameterError, match="exp is not supported"):
        bf.expression_query("exp(x1) * y1", [(0, 1)])
    with pytest.raises(InvalidParameterError, match="fma is not supported"):
        bf.expression_query("fma(x1, y1, 1)", [(0, 1)])
    with pytest.raises(ExpressionError, match="unknown name 'x2'"):
        bf.expression_query("x2 * y1", [(0, 1)])
    with pytest.raises(InvalidParameterError, match="^expr must be a non-empty string"):
        bf.expression_query("   ", [(0, 1)])
    huge = " + ".join(f"{i} * x1" for i in range(1, 1100))
    with pytest.raises(InvalidParameterError, match="^expr has .* at most 2000"):
        bf.expression_query(huge, [(0, 1)])
    with pytest.raises(DomainError, match="divisor takes both signs"):
        bf.expression_query("y1 / (x1 - 0.3)", [(0, 1)])
    with pytest.raises(InvalidParameterError, match="^domain"):
        bf.expression_query("x1 * y1", [(1, 0)])
    with pytest.raises(InvalidParameterError, match="^dim"):
        bf.expression_query("x1 * y1", [(0, 1)], dim=7)
    q = bf.expression_query("x1 * y1", [(0, "1/2")])
    with pytest.raises(InvalidParameterError, match="data row 2: data column x1 must lie"):
        bm.release_bernstein(np.array([[0.25], [0.75]]), q, 2, 1, 1, insecure_seed=0)
    data = tmp_path / "d.csv"
    data.write_text("x\n0.1\n0.5\n")
    for argv, msg in (
        (["--query-expr", "exp(x1) * y1"], "exp is not supported"),
        (["--query-expr", "x1 * y1", "--query-domain", "0,1;0,1"], "--query-domain has 2"),
        (["--query-expr", "x1 * y1", "--query-format", "binary16"], "--query-format"),
        (["--function", "kde", "--query-domain", "0,1"], "--query-domain and --query-format"),
        (["--query-expr", "x1 * y1", "--query-domain", "0,1/4"], "line 3"),
    ):
        buf = io.StringIO()
        with contextlib.redirect_stderr(buf):
            rc = main(["release", "bernstein", "--data", str(data), *argv, "--k", "2",
                       "--epsilon", "1", "--out", str(tmp_path / "x.json")])
        lines = [x for x in buf.getvalue().splitlines() if "error" in x]
        assert rc == 2 and len(lines) == 1 and msg in lines[0], (argv, buf.getvalue())
