"""Polynomial schemes (SCHEMES.md), binary32, and the one-statement total error
``|f - fl(p)|`` (absolute, relative, ulps) of dpverify.certify.scheme_error.

The float side is numpy float32 / float64 code written here from SCHEMES.md (independent of
dpverify.certify.schemes); the reference ``f`` is numpy's float64 ``exp`` (its error, about
1e-16, is far below the binary32 errors measured, about 1e-7, and far below the 0.5%
margins the assertions leave).  The exhaustive check of every binary32 input is slow
(``-m slow``).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from flint import fmpq

from dpverify import cli
from dpverify.certify.evalbound import evalbound, float_error_bound
from dpverify.certify.fpformat import BINARY32
from dpverify.certify.scheme_error import scheme_error_bound
from dpverify.certify.schemes import scheme_program
from dpverify.errors import InvalidParameterError
from dpverify.verify import verify_document
from dpverify.verify.report import Malformed

A = math.log(2) / 2


def schemes_md(c, x, scheme, parity=None):
    """SCHEMES.md, literally (numpy arrays: every operation one IEEE rounding; fma is
    emulated in float64 and rounded once, exact for binary32 operands)."""
    def fma(a, b, d):
        return (a.astype(np.float64) * b.astype(np.float64) + d.astype(np.float64)
                ).astype(np.float32)

    def s(d, t):
        if scheme in ("horner", "horner-fma"):
            q = np.full_like(t, d[-1])
            for ci in d[-2::-1]:
                ci = np.full_like(t, ci)
                q = fma(t, q, ci) if scheme == "horner-fma" else (t * q) + ci
            return q
        b = [np.full_like(t, v) for v in d]
        p = t
        while len(b) > 1:
            nb = [fma(b[2 * j + 1], p, b[2 * j]) if scheme == "estrin-fma"
                  else b[2 * j] + (b[2 * j + 1] * p) for j in range(len(b) // 2)]
            if len(b) % 2:
                nb.append(b[-1])
            b = nb
            if len(b) > 1:
                p = p * p
        return b[0]

    if parity is None:
        return s(c, x)
    y = x * x
    if parity == "even":
        return s(c[0::2], y)
    return x * s(c[1::2], y)


def run_program(prog, x):
    """The operations of a dpverify program on float32 numpy arrays."""
    vals = []
    for op in prog.ops:
        a = [vals[j] for j in op.args]
        if op.kind == "var":
            vals.append(x)
        elif op.kind == "const":
            vals.append(np.full_like(x, np.float32(float(op.value))))
        elif op.kind == "add":
            vals.append(a[0] + a[1])
        elif op.kind == "mul":
            vals.append(a[0] * a[1])
        elif op.kind == "fma":
            vals.append((a[0].astype(np.float64) * a[1].astype(np.float64)
                         + a[2].astype(np.float64)).astype(np.float32))
        else:
            raise AssertionError(op.kind)
    return vals[prog.output]


def exp_coeffs(deg, lo=-A, hi=A):
    xs = (np.cos(np.linspace(0, np.pi, 200)) * (hi - lo) + (hi + lo)) / 2
    c = np.polynomial.polynomial.polyfit(xs, np.exp(xs), deg).astype(np.float32)
    return c, [fmpq(*float(v).as_integer_ratio()) for v in c]


@pytest.mark.parametrize("scheme", ["horner", "horner-fma", "estrin", "estrin-fma"])
@pytest.mark.parametrize("parity, deg", [(None, 7), (None, 4), ("even", 6), ("odd", 7)])
def test_program_is_the_scheme_of_schemes_md(scheme, parity, deg):
    rng = np.random.default_rng(deg)
    c = rng.uniform(-2, 2, deg + 1).astype(np.float32)
    if parity == "even":
        c[1::2] = 0
    if parity == "odd":
        c[0::2] = 0
    x = rng.uniform(-1.5, 1.5, 2000).astype(np.float32)
    prog = scheme_program([fmpq(*float(v).as_integer_ratio()) for v in c], scheme, parity)
    assert np.array_equal(run_program(prog, x), schemes_md(c, x, scheme, parity))


def _observed(c32, scheme, xs, parity=None):
    y = schemes_md(c32, xs, scheme, parity).astype(np.float64)
    f = np.exp(xs.astype(np.float64))
    e = np.abs(y - f)
    ulp = np.spacing(np.abs(f).astype(np.float32)).astype(np.float64)
    return e.max(), (e / f).max(), (e / ulp).max()


@pytest.mark.parametrize("scheme, error, deg", [("horner", "abs", 5), ("estrin", "rel", 6),
                                                ("horner-fma", "ulps", 6)])
def test_total_error_binary32(scheme, error, deg):
    c32, cs = exp_coeffs(deg)
    lo = fmpq(*float(np.float32(-A)).as_integer_ratio())
    b = float_error_bound("exp(x)", cs, (lo, -lo), format="binary32", scheme=scheme,
                          error=error)
    assert verify_document(b.float_certificate().data).status == "holds"
    rng = np.random.default_rng(deg)
    xs = np.concatenate([rng.uniform(-A, A, 40000).astype(np.float32),
                         np.array([-A, A, 0], dtype=np.float32)])
    xs = xs[np.abs(xs) <= np.float32(A)]
    obs = dict(zip(("abs", "rel", "ulps"), _observed(c32, scheme, xs)))[error]
    assert obs <= float(b.bound) * (1 - 1e-6)
    # sampled inputs miss the worst one by a little: within 1.5x here (1.2x exhaustively)
    assert float(b.bound) <= 1.5 * obs


def test_total_error_of_p_itself_is_the_rounding_error():
    # f = 1 + x = p: sup |f - p| = 0, so the total error is the rounding of x + 1 on
    # [0, 1]: 2^-24 in binary32 (half an ulp of [1, 2)); relative: divided by |f| >= 1
    b = float_error_bound("1 + x", [1, 1], (0, 1), format="binary32")
    assert b.absolute == fmpq(1, 2**24)
    r = float_error_bound("1 + x", [1, 1], (0, 1), format="binary32", error="ulps")
    # ulp(f) >= ulp(1) = 2^-23 in binary32: at most 1/2 ulp
    assert max(leaf.bound for leaf in r.leaves) == fmpq(1, 2)


def test_statement_fields_are_checked():
    _, cs = exp_coeffs(4)
    b = float_error_bound("exp(x)", cs, ("-1/4", "1/4"), format="binary32",
                          scheme="estrin", error="rel")
    doc = b.float_certificate().data
    st = doc["statement"]
    assert st["scheme"] == "estrin" and st["parity"] is None and st["format"] == "binary32"
    assert verify_document(doc).status == "holds"
    for change in ({"bound": str(fmpq(1, 2**30))}, {"target": dict(st["target"],
                                                                  expr="exp(x) + 1/100")},
                   {"error": "absolute", "bound": "1e-12"}):
        assert verify_document(dict(doc, statement=dict(st, **change))).status != "holds"
    bad = dict(st, polynomial=dict(st["polynomial"], coefficients=["1/3"] +
                                   st["polynomial"]["coefficients"][1:]))
    with pytest.raises(Malformed, match="not a binary32 number"):
        verify_document(dict(doc, statement=bad))
    bad = dict(st, arithmetic="binary32, round to nearest even, fused multiply-add")
    with pytest.raises(Malformed, match="arithmetic"):
        verify_document(dict(doc, statement=bad))


def test_binary32_evalbound_and_estrin():
    # binary32 Horner (kind evalbound) and Estrin (a program): never below the observed
    # error at every binary32 input of [1/4, 1/4 + 2^-13] (2^12 of them)
    c32, cs = exp_coeffs(5)
    lo, hi = fmpq(1, 4), fmpq(1, 4) + fmpq(1, 2**13)
    xs = np.arange(np.float32(0.25).view(np.int32), np.float32(0.25 + 2**-13).view(np.int32)
                   + 1, dtype=np.int32).view(np.float32)
    exact = np.polynomial.polynomial.polyval(xs.astype(np.float64), c32.astype(np.float64))
    for scheme in ("horner", "estrin"):
        r = evalbound(cs, (lo, hi), format="binary32",
                      scheme=None if scheme == "horner" else scheme)
        doc = r.certificate().data
        assert verify_document(doc).status == "holds"
        obs = np.abs(schemes_md(c32, xs, scheme).astype(np.float64) - exact).max()
        assert obs <= float(r.bound) and float(r.bound) <= 4 * obs


def test_refusals_and_cli(tmp_path, capsys):
    with pytest.raises(InvalidParameterError, match="parity"):
        scheme_error_bound("exp(x)", [1, 1, 1], (0, 1), parity="odd")
    with pytest.raises(InvalidParameterError, match="leading coefficient"):
        scheme_error_bound("exp(x)", [1, 1, 0], (0, 1))
    with pytest.raises(InvalidParameterError, match="scheme"):
        scheme_error_bound("exp(x)", [1, 1], (0, 1), scheme="clenshaw")
    out = tmp_path / "e.json"
    assert cli.main(["evalbound", "--poly", "1,1,0.5,0.16666667", "--interval", "-0.35",
                     "0.35", "--f", "exp(x)", "--format", "binary32", "--scheme", "estrin",
                     "--error", "ulps", "--out", str(out)]) == 0
    assert "ulp(f(x))" in capsys.readouterr().out
    assert cli.main(["verify", str(out)]) == 0
    assert cli.main(["evalbound", "--poly", "1,2", "--interval", "0", "1", "--error",
                     "rel"]) == 2
    assert BINARY32.is_member(fmpq(*float(np.float32(0.1)).as_integer_ratio()))


@pytest.mark.slow
@pytest.mark.parametrize("deg, scheme, error", [(5, "horner", "abs"), (6, "horner", "rel"),
                                                (7, "estrin", "ulps")])
def test_exhaustive_binary32_within_1_2(deg, scheme, error):
    """Every binary32 x of [-ln2/2, ln2/2]: the certified total error is >= the largest
    error found and within 1.2x of it (the tightness target)."""
    c32, cs = exp_coeffs(deg)
    a32 = np.float32(A)
    lo = fmpq(*float(-a32).as_integer_ratio())
    b = float_error_bound("exp(x)", cs, (lo, -lo), format="binary32", scheme=scheme,
                          error=error)
    top = int(a32.view(np.int32))
    worst = [0.0, 0.0, 0.0]
    for sign in (1, -1):
        for start in range(0, top + 1, 1 << 24):
            ii = np.arange(start, min(start + (1 << 24), top + 1), dtype=np.int32)
            xs = ii.view(np.float32) * np.float32(sign)
            worst = [max(w, o) for w, o in zip(worst, _observed(c32, scheme, xs))]
    obs = dict(zip(("abs", "rel", "ulps"), worst))[error]
    assert obs <= float(b.bound) <= 1.2 * obs
