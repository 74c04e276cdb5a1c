"""Machine-number coefficients (dpverify.constructions.fpminimax, dpverify.machine,
``dpverify fpminimax``).

What is checked against independent references:

* :meth:`Format.round` against mpmath's correctly rounded conversion of a rational
  (``from_rational`` at 24 / 53 bits, round to nearest even) and :meth:`Format.contains`
  against numpy's exact float32 / float64 round trips;
* every coefficient found is a number of its format (numpy round trip), both certificates
  hold in the independent verifier, and the machine error is at least the real best error
  (``upper(machine) >= lower(real)``: no polynomial of the family does better);
* the lattice search beats rounding each real coefficient to its format (the classical
  naive method), both certified;
* Sollya 8.0's ``fpminimax`` and ``supnorm`` (slow test, where ``sollya`` is installed): our
  certified error is within 1.05x of Sollya's.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from fractions import Fraction

import mpmath
import numpy as np
import pytest
from flint import fmpq
from hypothesis import given, settings
from hypothesis import strategies as st

import dpverify
from dpverify import cli
from dpverify.constructions.fpminimax import FORMATS, parse_formats
from dpverify.errors import InvalidParameterError
from dpverify.exact import MonomialPoly
from dpverify.expr import parse
from dpverify.machine import machine_certificate
from dpverify.numbers import parse_exact
from dpverify.verify import verify_document


@settings(deadline=None, max_examples=200)
@given(st.one_of(st.fractions(min_value=Fraction(-10**40), max_value=Fraction(10**40)),
                 st.fractions(min_value=Fraction(-1, 2**120), max_value=Fraction(1, 2**120))),
       st.sampled_from(["binary32", "binary64"]))
def test_round_matches_mpmath(v, name):
    fm = FORMATS[name]
    q = fmpq(v.numerator, v.denominator)
    got = fm.round(q)
    man, exp = mpmath.libmp.from_rational(v.numerator, v.denominator, fm.precision,
                                          "n")[1:3] if v != 0 else (0, 0)
    sign = -1 if v < 0 else 1
    if abs(v) >= Fraction(2) ** fm.emin:  # normal range: precision bits
        want = sign * Fraction(int(man)) * Fraction(2) ** int(exp)
    else:  # subnormal range: the multiple of the least quantum, ties to even (round())
        q0 = Fraction(2) ** fm.min_quantum_exp
        want = round(v / q0) * q0
    assert Fraction(int(got.p), int(got.q)) == want
    assert fm.contains(got) == (abs(got) < fmpq(2) ** (fm.emax + 1))


@settings(deadline=None, max_examples=200)
@given(st.floats(allow_nan=False, allow_infinity=False, width=32))
def test_contains_float32(x):
    q = fmpq(*float(x).as_integer_ratio())
    assert FORMATS["binary32"].contains(q) and FORMATS["binary64"].contains(q)
    if x != 0 and abs(x) > 2.0**-120:
        # a binary64 number between two binary32 neighbours is not binary32
        mid = q + q * fmpq(1, 2**30)
        assert not FORMATS["binary32"].contains(mid)


def test_parse_formats():
    assert [f.name for f in parse_formats("binary64", "D,S", 2)] == ["binary64", "binary32"]
    assert len(parse_formats("binary32", None, 3)) == 3
    with pytest.raises(InvalidParameterError, match="one format per free"):
        parse_formats("binary64", "D,D", 3)
    with pytest.raises(InvalidParameterError, match="binary64 \\(D\\) or binary32"):
        parse_formats("binary64", "Q", 1)


def _in_format(c: fmpq, name: str) -> bool:
    v = float(c)
    return fmpq(*v.as_integer_ratio()) == c and (
        name == "binary64" or float(np.float32(v)) == v)


@pytest.mark.parametrize("f,n,iv,kw", [
    ("exp(x)", 6, ("-1/4", "1/4"), {"relative": True, "fix": {0: 1}, "format": "binary32"}),
    ("sin(x)", 9, ("-3/4", "3/4"), {"monomials": "odd"}),
    ("cos(x)", 8, ("-3/4", "3/4"), {"monomials": "even", "format": "binary32"}),
    ("log1p(x)", 6, ("-1/8", "1/8"), {"formats": "D,D,S..."}),
])
def test_fpminimax_certificates(f, n, iv, kw):
    r = dpverify.fpminimax(f, n, iv, rtol="1e-4", **kw)
    for c, fm in zip(r.coefficients, r.formats):
        if fm in ("binary32", "binary64"):
            assert _in_format(c, fm)
        elif fm is None:
            assert c == 0
    assert verify_document(r.certificate.data).status == "holds"
    assert verify_document(r.minimax.data).status == "holds"
    assert r.real_lower <= r.error and r.cost >= 1 - fmpq(1, 10**3)
    st = r.certificate.statement
    assert [parse_exact(c) for c in st["polynomial"]["coefficients"]] == \
        [c for c in r.coefficients][:len(st["polynomial"]["coefficients"])]
    assert [float.fromhex(h) for h in r.hex] == [float(c) for c in r.coefficients]


def test_lattice_beats_rounding():
    """Degree 8 with binary32 coefficients: rounding each real coefficient loses a lot,
    the lattice much less (both errors certified)."""
    r = dpverify.fpminimax("exp(x)", 8, ("-1/2", "1/2"), format="binary32", relative=True,
                           rtol="1e-4")
    real = r.minimax.statement["polynomial"]
    cs = MonomialPoly([parse_exact(c) for c in real["coefficients"]]) \
        if real["basis"] == "monomial" else None
    if cs is None:  # the dense search returns a Chebyshev polynomial
        from dpverify.exact import ChebyshevPoly

        cs = ChebyshevPoly([parse_exact(c) for c in real["coefficients"]],
                           domain=tuple(parse_exact(v) for v in real["domain"])).to_monomial()
    naive = MonomialPoly([FORMATS["binary32"].round(c) for c in cs.coeffs])
    f = parse("exp(x)")
    w = parse("1/(exp(x))")
    cert = machine_certificate(f, naive, (fmpq(-1, 2), fmpq(1, 2)), weight=w, relative=True,
                               hints=None, guess=r.error, rtol=fmpq(1, 10**4))
    naive_lower = parse_exact(cert.statement["error"]["lower"])
    assert verify_document(cert.data).status == "holds"
    assert r.error * 2 < naive_lower  # the lattice does more than twice better here


def test_fpminimax_refusals():
    with pytest.raises(InvalidParameterError, match="not a binary32 number"):
        dpverify.fpminimax("exp(x)", 4, (-1, 1), format="binary32", fix={0: "1/3"})
    with pytest.raises(InvalidParameterError, match="vanishes"):
        dpverify.fpminimax("sin(x)", 5, (-1, 1), relative=True)


def test_cli_fpminimax(tmp_path, capsys):
    out, mm = tmp_path / "c.json", tmp_path / "m.json"
    assert cli.main(["fpminimax", "--f", "exp(x)", "--degree", "5", "--interval", "-1/4",
                     "1/4", "--format", "binary32", "--relative", "--fix", "0=1", "--out",
                     str(out), "--minimax-out", str(mm), "--rtol", "1e-4"]) == 0
    text = capsys.readouterr().out
    assert "c0 (fixed)" in text and "0x1.0000000000000p+0" in text and "format costs" in text
    for path in (out, mm):
        assert verify_document(json.loads(path.read_text())).status == "holds"
    assert cli.main(["fpminimax", "--f", "exp(x)", "--degree", "5", "--interval", "-1",
                     "1", "--formats", "D,D"]) == 2
    assert "one format per free coefficient" in capsys.readouterr().err


SOLLYA = shutil.which("sollya")


@pytest.mark.slow
@pytest.mark.skipif(SOLLYA is None, reason="sollya is not installed (the peer tool)")
@pytest.mark.parametrize("f,sf,n,iv,kind,fmt", [
    ("exp(x)", "exp(x)", 7, ("-1/4", "1/4"), "relative", "binary64"),
    ("exp(x)", "exp(x)", 10, ("-1/4", "1/4"), "relative", "binary32"),
    ("atan(x)", "atan(x)", 9, ("-1/2", "1/2"), "absolute", "binary64"),
])
def test_against_sollya(f, sf, n, iv, kind, fmt):
    fm = "D" if fmt == "binary64" else "SG"
    script = (f"prec=165; p = fpminimax({sf}, {n}, [|{fm}...|], [{iv[0]};{iv[1]}], {kind});\n"
              f"s = supnorm(p, {sf}, [{iv[0]};{iv[1]}], {kind}, 2^-30);\n"
              "display=decimal; print(sup(s));\n")
    out = subprocess.run([SOLLYA], input=script, capture_output=True, text=True, timeout=120)
    theirs = float(out.stdout.strip().splitlines()[-1])
    r = dpverify.fpminimax(f, n, iv, format=fmt, relative=kind == "relative", rtol="1e-4")
    assert float(r.error) <= 1.05 * theirs
