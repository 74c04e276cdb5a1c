"""Certified rounding bounds of the fast path's evaluators (dpverify.fast.rounding) against
the numpy evaluators themselves, measured exactly (float64 results as rationals against the
exact polynomial values)."""

from __future__ import annotations

import numpy as np
from flint import fmpq

import dpverify.crosscheck as cc
from dpverify.exact import BernsteinPoly, ChebyshevPoly
from dpverify.fast import clenshaw, de_casteljau
from dpverify.fast.rounding import certified_rounding, de_casteljau_program
from dpverify.numbers import parse_exact


def q(x: float) -> fmpq:
    return fmpq(*float(x).as_integer_ratio())


def test_clenshaw_and_de_casteljau_bounds_cover_the_evaluators():
    rng = np.random.default_rng(3)
    for name, poly, fast, lo in (("clenshaw", ChebyshevPoly, clenshaw, -1.0),
                                 ("de-casteljau", BernsteinPoly, de_casteljau, 0.0)):
        c = rng.uniform(-1, 1, 7)
        r = certified_rounding(name, c)
        assert r.certificate().check().status == "holds"
        xs = np.concatenate([rng.uniform(lo, 1.0, 400), [lo, 1.0]])
        P = poly([q(v) for v in c])
        worst = max(abs(q(y) - P(q(x))) for x, y in zip(xs, fast(c, xs)))
        assert 0 < worst <= r.bound


def test_program_is_the_numpy_order():
    # the program's operations, run on float64 numpy arrays, give the evaluator's bits
    c = [0.3, -0.7, 0.11, 0.9]
    prog = de_casteljau_program(c)
    s = np.linspace(0, 1, 101)
    vals = []
    for op in prog.ops:
        a = [vals[j] for j in op.args]
        vals.append(s if op.kind == "var" else np.full_like(s, float(op.value))
                    if op.kind == "const" else {"add": np.add, "sub": np.subtract,
                                                "mul": np.multiply,
                                                "div": np.divide}[op.kind](*a))
    assert np.array_equal(vals[prog.output], de_casteljau(c, s))


def test_crosscheck_states_the_certified_bound():
    r = cc.crosscheck("quick", only=["clenshaw", "de-casteljau"])
    assert r["passed"]
    stated = [case["certified"] for chk in r["checks"] for case in chk["cases"]]
    assert any("bound" in s for s in stated) and any("note" in s for s in stated)
    for chk in r["checks"]:
        for case in chk["cases"]:
            if "bound" in case["certified"]:
                assert parse_exact(case["max_abs"]) <= parse_exact(case["certified"]["bound"])
