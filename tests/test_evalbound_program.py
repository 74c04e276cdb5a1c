"""Round-off bounds of straight-line programs (dpverify.certify.roundoff) and their
certificates (kind roundoff).

The float side is computed here independently of the analysis: numpy float64 / float32
arrays (every numpy operation is one IEEE rounding) on inputs rounded exactly, the exact
side in rational arithmetic (fmpq).  Every observed error must be <= the certified bound;
values derived by hand are stated with their derivation.
"""

from __future__ import annotations

import ast
import pathlib
from fractions import Fraction

import numpy as np
import pytest
from flint import arb, ctx, fmpq
from hypothesis import given, settings
from hypothesis import strategies as st

from dpverify import cli
from dpverify.certify.fpformat import BINARY32, BINARY64
from dpverify.certify.roundoff import program_bound
from dpverify.errors import DomainError, ExpressionError, InvalidParameterError
from dpverify.expr.fpcore import read_fpcore, read_fpcores
from dpverify.expr.program import parse_program
from dpverify.verify import verify_document

U64 = fmpq(1, 2**53)

DOPPLER = ("(FPCore (u v T) :name \"doppler1\" :precision binary64 "
           ":pre (and (<= -100 u 100) (<= 20 v 20000) (<= -30 T 50)) "
           "(let ([t1 (+ 331.4 (* 0.6 T))]) (/ (* (- t1) v) (* (+ t1 u) (+ t1 u)))))")


def _np_value(prog, cols, dtype, fmt):
    vals = []
    n = len(cols[0])
    for op in prog.ops:
        a = [vals[j] for j in op.args]
        if op.kind == "var":
            vals.append(cols[prog.variables.index(op.name)])
        elif op.kind == "const":
            h = fmt.nearest(op.value)
            vals.append(np.full(n, dtype(Fraction(int(h.p), int(h.q))), dtype=dtype))
        else:
            fn = {"neg": lambda a: -a[0], "add": lambda a: a[0] + a[1],
                  "sub": lambda a: a[0] - a[1], "mul": lambda a: a[0] * a[1],
                  "div": lambda a: a[0] / a[1], "sqrt": lambda a: np.sqrt(a[0])}[op.kind]
            vals.append(fn(a))
    return vals[prog.output]


def _exact(prog, x):
    """The exact value (fmpq); with a square root, a 400-bit ball's midpoint (within
    2^-390 relative: far below any rounding error measured here)."""
    vals = []
    with ctx.workprec(400):
        for op in prog.ops:
            a = [vals[j] for j in op.args]
            k = op.kind
            if k == "sqrt":
                r = arb(a[0]).sqrt() if isinstance(a[0], fmpq) else a[0].sqrt()
                vals.append(r)
                continue
            vals.append(x[prog.variables.index(op.name)] if k == "var" else op.value
                        if k == "const" else -a[0] if k == "neg" else a[0] + a[1]
                        if k == "add" else a[0] - a[1] if k == "sub" else a[0] * a[1]
                        if k == "mul" else a[0] / a[1])
        out = vals[prog.output]
        if isinstance(out, arb):
            m, e = out.mid().man_exp()
            return fmpq(int(m)) * fmpq(2) ** int(e) if e >= 0 else \
                fmpq(int(m), 2 ** int(-e))
        return out


def observed(prog, box, fmt, rounded, n=300, seed=0):
    """The largest error at ``n`` inputs (exact reference)."""
    rng = np.random.default_rng(seed)
    dtype = np.float64 if fmt is BINARY64 else np.float32
    xs = []
    for lo, hi in box:
        ks = rng.integers(0, 2**40, size=n)
        col = [lo + (hi - lo) * fmpq(int(k), 2**40) for k in ks]
        col[0], col[-1] = lo, hi
        if not rounded:
            col = [min(max(fmt.nearest(x), fmt.ceil(lo)), fmt.floor(hi)) for x in col]
        xs.append(col)
    cols = [np.array([dtype(Fraction(int(h.p), int(h.q))) for h in
                      (fmt.nearest(x) for x in col)], dtype=dtype) for col in xs]
    fl = _np_value(prog, cols, dtype, fmt)
    worst = fmpq(0)
    for i in range(n):
        got = fmpq(*[int(t) for t in float(fl[i]).as_integer_ratio()])
        worst = max(worst, abs(got - _exact(prog, [c[i] for c in xs])))
    return worst


# ------------------------------------------------------------------------- the readers
def test_infix_keeps_the_written_order():
    p = parse_program("x - y + 2 * 3", ["x", "y"])
    assert [op.kind for op in p.ops] == ["var", "var", "sub", "const", "const", "mul", "add"]
    # left to right: (x + y) + z, never x + (y + z); unary minus on the operand
    p = parse_program("x + y + z", ["x", "y", "z"])
    assert p.ops[p.output].args == (3, 2)
    p = parse_program("-x * y", ["x", "y"])
    assert p.ops[p.output].kind == "mul" and p.ops[p.ops[p.output].args[0]].kind == "neg"
    # the same subexpression twice is one operation (float code computes it identically)
    p = parse_program("(x + 1) * (x + 1)", ["x"])
    assert p.ops[p.output].args[0] == p.ops[p.output].args[1]
    # assignments
    p = parse_program("t = x * x; t + t", ["x"])
    assert [op.kind for op in p.ops] == ["var", "mul", "add"]


@pytest.mark.parametrize("text, match", [
    ("x ^ 2", "powers"), ("x ** 2", "powers"), ("y + 1", "unknown name"),
    ("foo(x)", "unknown function"), ("x +", "expected"), ("1e999999 * x", "exponent"),
    ("t = x; t = x; t", "assigned twice"), ("x; 1", "unexpected")])
def test_infix_refuses(text, match):
    with pytest.raises(ExpressionError, match=match):
        parse_program(text, ["x"])


def test_fpcore_reader():
    core = read_fpcore(DOPPLER)
    assert core.name == "doppler1" and core.precision == "binary64"
    assert core.box == ((-100, 100), (20, 20000), (-30, 50))
    # the let binding is one operation used three times
    kinds = [op.kind for op in core.program.ops]
    assert kinds.count("add") == 2 and kinds.count("mul") == 3
    # the canonical text reads back to the same operations
    again = read_fpcore(core.program.fpcore(pre="(and (<= -100 u 100) (<= 20 v 20000) "
                                            "(<= -30 T 50))"))
    assert sorted(op.kind for op in again.program.ops) == sorted(kinds)
    pre = "(and (<= 0 u 1) (<= 0 v 1) (<= 0 T 1))"
    assert read_fpcore(again.program.fpcore(pre=pre)).program.fpcore() == \
        again.program.fpcore()
    # :pre forms: >=, one-sided pairs, strict (closed), and ignored non-box conjuncts
    c = read_fpcore("(FPCore (a b) :pre (and (>= 3 a 1) (< 0 b) (<= b 2) (< a (+ b 1))) "
                    "(- a b))")
    assert c.box == ((1, 3), (0, 2)) and len(c.ignored) == 1
    assert len(read_fpcores(DOPPLER + DOPPLER.replace("doppler1", "d2"))) == 2


@pytest.mark.parametrize("text, match", [
    ("(FPCore (x) :pre (<= 0 x 1) (if (< x 1) x 1))", "'if'"),
    ("(FPCore (x) :pre (<= 0 x 1) (pow x 2))", "'pow'"),
    ("(FPCore (x) (+ x 1))", "no :pre"),
    ("(FPCore (x) :pre (<= 0 x) (+ x 1))", "both sides"),
    ("(FPCore (x) :pre (<= 0 x 1) (+ x PI))", "unknown name"),
    ("(FPCore (x) :pre (<= 0 x 1) :precision binary16 x)", "precision"),
    ("(FPCore (x) :pre (<= 0 x 1) (+ x 1)", "unbalanced")])
def test_fpcore_refuses(text, match):
    with pytest.raises(ExpressionError, match=match):
        read_fpcore(text)


# ------------------------------------------------------------------- values by hand
def test_hand_derived_bounds():
    # x + 1 on [0, 1]: one rounding of a value in [1, 2]: half an ulp of [1, 2), 2^-53
    r = program_bound("x + 1", {"x": (0, 1)})
    assert r.absolute == U64
    # relative: |x + 1| >= 1, so 2^-53; in ulps of x + 1 >= 1 (ulp(1) = 2^-52): 1/2
    assert program_bound("x + 1", {"x": (0, 1)}, error="rel").bound >= U64
    # (the relative coefficient 1/(x + 1) is a ball: within 2^-25 of exact)
    rel = program_bound("x + 1", {"x": (0, 1)}, error="rel")
    assert U64 <= max(leaf.bound for leaf in rel.leaves) <= U64 * (1 + fmpq(1, 2**25))
    ulps = program_bound("x + 1", {"x": (0, 1)}, error="ulps")
    assert max(leaf.bound for leaf in ulps.leaves) == fmpq(1, 2)
    # binary32: 2^-24
    assert program_bound("x + 1", {"x": (0, 1)}, format="binary32").absolute == fmpq(1, 2**24)
    # x * 2 and x / 4 are exact (a power-of-two factor, no underflow on [1, 3])
    assert program_bound("x * 2 - x / 4", {"x": (1, 3)}).absolute == \
        program_bound("y - x", {"x": (1, 3), "y": (2, 6)}).absolute
    # 0.1 as a literal: x * 0 + fl(0.1) is exact, the error is |fl(0.1) - 1/10| itself
    # (a ball around that rational: within 2^-80 of it)
    r = program_bound("x * 0 + 0.1", {"x": (1, 2)})
    d = abs(BINARY64.nearest(fmpq(1, 10)) - fmpq(1, 10))
    assert d <= r.absolute <= d * (1 + fmpq(1, 2**80))
    # rounded inputs: x in [1, 2] rounds by at most 2^-53, then exact operations: 2 * x
    r = program_bound("2 * x", {"x": (1, 2)}, round_inputs=True)
    assert r.absolute == 2 * U64


# ------------------------------------------------------------------ never below truth
CASES = [
    ("t1 = 331.4 + 0.6 * T; (-t1 * v) / ((t1 + u) * (t1 + u))",
     {"u": ("-100", "100"), "v": ("20", "20000"), "T": ("-30", "50")}),
    ("(4.0*x*x) / (1 + (x/1.11)*(x/1.11))", {"x": ("0.1", "0.3")}),
    ("x - (x*x*x)/6.0 + (x*x*x*x*x)/120.0", {"x": ("-1.5", "1.5")}),
    ("sqrt(x * x + y * y) - x", {"x": ("1", "100"), "y": ("1", "100")}),
    ("-x1*x2 - 2*x2*x3 - x1 - x3", {"x1": ("-15", "15"), "x2": ("-15", "15"),
                                    "x3": ("-15", "15")}),
]


@pytest.mark.parametrize("text, ranges", CASES)
@pytest.mark.parametrize("fmt", [BINARY64, BINARY32])
@pytest.mark.parametrize("rounded", [False, True])
def test_bound_is_never_below_observed(text, ranges, fmt, rounded):
    r = program_bound(text, ranges, format=fmt, round_inputs=rounded, max_boxes=200)
    prog = parse_program(text, list(ranges))
    box = [(fmpq(*Fraction(a).as_integer_ratio()), fmpq(*Fraction(b).as_integer_ratio()))
           for a, b in ranges.values()]
    obs = observed(prog, box, fmt, rounded, n=150 if "sqrt" in text else 300)
    assert obs <= r.bound
    # and the bound is not wildly pessimistic (FPTaylor's method: within a few times)
    assert r.bound <= 40 * obs


def test_certificate_verifies_and_a_lower_bound_does_not():
    r = program_bound(DOPPLER, round_inputs=True)
    doc = r.certificate().data
    assert verify_document(doc).status == "holds"
    # the largest error FPTaylor's own regression test reports is 1.2176e-13; ours is lower
    assert r.bound <= fmpq(1217604, 10**19)
    bad = dict(doc, statement=dict(doc["statement"], bound=str(r.bound / 3)))
    assert verify_document(bad).status != "holds"
    bad = dict(doc, statement=dict(doc["statement"], inputs="floats", format="binary32"))
    assert verify_document(bad).status != "holds"


@settings(max_examples=15, deadline=None)
@given(st.integers(1, 60), st.integers(1, 60), st.sampled_from(["abs", "rel", "ulps"]))
def test_random_boxes(a, w, error):
    lo, hi = fmpq(a, 8), fmpq(a + w, 8)
    r = program_bound("(x * x + 3) / (x + 1)", {"x": (lo, hi)}, error=error, max_boxes=40)
    assert verify_document(r.certificate().data).status == "holds"
    if error == "abs":
        prog = parse_program("(x * x + 3) / (x + 1)", ["x"])
        assert observed(prog, [(lo, hi)], BINARY64, False, n=60, seed=a) <= r.bound


def test_refusals():
    with pytest.raises(DomainError, match="exact value is 0 at x = 0"):
        program_bound("x * x * x", {"x": (-1, 1)}, error="rel")
    with pytest.raises(DomainError, match="divisor"):
        program_bound("1 / x", {"x": (-1, 1)})
    with pytest.raises(InvalidParameterError, match="state the accuracy"):
        program_bound("exp(x)", {"x": (0, 1)})
    with pytest.raises(InvalidParameterError, match="does not call"):
        program_bound("x + 1", {"x": (0, 1)}, functions={"exp": 1})
    with pytest.raises(InvalidParameterError, match="no binary64 input"):
        program_bound("x + 1", {"x": ("0.1", "0.1")})
    with pytest.raises(ExpressionError, match="unknown name 'y'"):
        program_bound("x + y", {"x": (0, 1)})
    with pytest.raises(InvalidParameterError, match="no range"):
        program_bound(parse_program("x + y", ["x", "y"]), {"x": (0, 1)})


def test_functions_models():
    # exp correctly rounded vs within 1 ulp: the declared model costs more
    cr = program_bound("exp(x) + 1", {"x": (0, 1)}, functions="correctly-rounded")
    one = program_bound("exp(x) + 1", {"x": (0, 1)}, functions={"exp": 1})
    assert cr.bound < one.bound
    for r in (cr, one):
        assert verify_document(r.certificate().data).status == "holds"
    st = one.certificate().data["statement"]
    assert st["functions"] == {"exp": "1"}


def test_layers_are_folded():
    # evalbound_cert (results and documents) never imports evalbound (the analysis)
    src = pathlib.Path(__file__).parents[1] / "dpverify" / "certify" / "evalbound_cert.py"
    names = {n.module for n in ast.walk(ast.parse(src.read_text()))
             if isinstance(n, ast.ImportFrom) and n.module}
    assert "evalbound" not in names and not any(m.endswith(".evalbound") for m in names)


def test_cli(tmp_path, capsys):
    out = tmp_path / "c.json"
    assert cli.main(["evalbound", "--expr", "t = x + 1; t * t", "--var", "x", "0", "1",
                     "--out", str(out)]) == 0
    assert "kind roundoff" in capsys.readouterr().out
    assert cli.main(["verify", str(out)]) == 0
    f = tmp_path / "d.fpcore"
    f.write_text(DOPPLER)
    assert cli.main(["evalbound", "--fpcore", str(f), "--round-inputs", "--format",
                     "binary32"]) == 0
    assert cli.main(["evalbound", "--expr", "x / (x + 1)", "--var", "x", "1", "999",
                     "--error", "ulps", "--round-inputs"]) == 0
    capsys.readouterr()
    assert cli.main(["evalbound", "--expr", "x / y", "--var", "x", "1", "2"]) == 2
    assert "unknown name 'y'" in capsys.readouterr().err
    assert cli.main(["evalbound", "--expr", "x", "--var", "x", "0", "1", "--f", "x"]) == 2
    assert cli.main(["evalbound", "--poly", "1,2", "--var", "x", "0", "1",
                     "--interval", "0", "1"]) == 2


def test_refutation_of_a_false_bound():
    # x * 0.1 in binary32 on [1, 2]: the product's rounding error is up to 2^-25 (times
    # 0.1's own rounding); a statement claiming 2^-40 is false, and the checker's emulation
    # at box centres finds a counterexample (FAILS, not merely undecided)
    r = program_bound("x * 0.1", {"x": (1, 2)}, format="binary32", max_boxes=8)
    doc = r.certificate().data
    bad = dict(doc, statement=dict(doc["statement"], bound=str(fmpq(1, 2**40))))
    rep = verify_document(bad)
    assert rep.status == "fails"
    assert any(name == "refutation" and ok is False for name, ok, _ in rep.checks)
