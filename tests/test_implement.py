"""dpverify.implement / ``dpverify implement``: the least certified degree, the certificate,
the generated code against the certificate (exhaustively in binary32), refusals."""

from __future__ import annotations

import importlib.util
import json
import shutil
import subprocess

import mpmath
import numpy as np
import pytest
from flint import fmpq

import dpverify
from dpverify import cli
from dpverify.certify.fpformat import BINARY32
from dpverify.errors import CertificationFailed, InvalidParameterError
from dpverify.fast.codegen import emit, emulate
from dpverify.floatcode import float_count, implement
from dpverify.testing import check_implementation
from dpverify.verify import verify_document

# exp on [1/2, 129/256]: 65537 binary32 numbers, every one checked in well under a second
A, B = fmpq(1, 2), fmpq(129, 256)
SMALL = ("1/2", "129/256")


@pytest.fixture(scope="module")
def small(tmp_path_factory):
    out = tmp_path_factory.mktemp("emit")
    return implement("exp(x)", SMALL, format="binary32", target_ulps=1, scheme="horner-fma",
                     emit_dir=out, name="exp_small")


def _load(path, name):
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return getattr(mod, name)


def test_least_degree_and_certificate(small):
    # degree 2 is certified, degree 1 refuted (proven at an input), degree 0 refuted
    assert small.degree == 2
    assert [a.status for a in small.attempts] == ["refuted", "refuted", "certified"]
    assert small.bound <= 1 and small.bound == fmpq(small.certificate.statement["bound"])
    st = small.certificate.statement
    assert (st["scheme"], st["format"], st["error"]) == ("horner-fma", "binary32", "ulps")
    assert [fmpq(c) for c in st["polynomial"]["coefficients"]] == small.coefficients
    assert verify_document(json.loads(json.dumps(small.certificate.data))).status == "holds"


def test_degree_one_is_impossible_by_hand():
    # Independent of the code under test: any linear p has the same second difference
    # (zero) at three equally spaced floats a, m, b, so its error there is at least
    # |f(a) - 2 f(m) + f(b)| / 4; the fma code rounds once (<= 1/2 ulp of its result,
    # ulp = 2^-23 on [1, 2)), so every degree-1 code in this scheme errs by more than 1 ulp.
    mpmath.mp.prec = 100
    a, m, b = (mpmath.mpf(v) for v in ("0.5", "0.501953125", "0.50390625"))
    lower = abs(mpmath.exp(a) - 2 * mpmath.exp(m) + mpmath.exp(b)) / 4 / mpmath.mpf(2) ** -23
    assert lower - mpmath.mpf(1) / 2 > 1    # about 13.2 - 0.5 ulps


def test_refuted_degree_fails_exhaustively(tmp_path):
    # the refutation is a search plus an exact decision; the exhaustive check of the same
    # degree-1 code (the fpminimax coefficients) confirms an error above the target
    r = dpverify.fpminimax("exp(x)", 1, SMALL, format="binary32", relative=True)
    out = emit(r.coefficients, "binary32", "horner-fma", None, "lin", tmp_path)
    rep = check_implementation(_load(out.python, "lin"), "exp(x)", points="all", ulps=1,
                               domain=(A, B), dtype=np.float32, raise_on_failure=False)
    assert rep.points == float_count((A, B), BINARY32) == 65537
    assert not rep.passed and rep.worst_ulps_enclosure[0] > 1


def test_exhaustive_check_agrees_with_certificate(small):
    # every binary32 number of the interval: the generated numpy function's worst error
    # (rigorous reference) is within the certified bound -- the point of the certificate
    c = small.check
    assert c["exhaustive"] and c["points"] == c["floats_in_interval"] == 65537
    fn = _load(small.emitted.python, "exp_small")
    rep = check_implementation(fn, "exp(x)", points="all", ulps=small.bound, domain=(A, B),
                               dtype=np.float32)
    assert rep.passed and rep.worst_ulps <= small.bound
    assert rep.worst_ulps > small.bound * fmpq(9, 10)    # and the bound is tight


def test_emitted_module_is_the_emulated_scheme(small):
    fn = _load(small.emitted.python, "exp_small")
    xs = np.linspace(0.5, 129 / 256, 257, dtype=np.float32)
    ys = fn(xs)
    assert ys.dtype == np.float32
    for x, y in zip(xs, ys):
        want = emulate(small.coefficients, "binary32", "horner-fma", None,
                       fmpq(*float(x).as_integer_ratio()))
        assert fmpq(*float(y).as_integer_ratio()) == want
    c_text = small.emitted.c.read_text()
    assert all(h.replace("0x", "") in c_text for h in small.hex if h != "0x0p+0")


def test_parity_and_binary64():
    # cos on [1/2, 9/16] with even powers in binary64: a short run, certificate holds
    r = implement("cos(x)", ("1/2", "9/16"), format="binary64", target_ulps=2,
                  scheme="horner-fma", parity="even", check=2000)
    assert r.degree % 2 == 0 and all(c == 0 for c in r.coefficients[1::2])
    assert r.certificate.statement["parity"] == "even"
    assert r.certificate.check().status == "holds"
    assert not r.check["exhaustive"] and r.check["agrees"]


@pytest.mark.parametrize("kw,match", [
    ({"target_ulps": 0}, "target_ulps must be > 1/2"),
    ({"target_ulps": "1/2"}, "target_ulps must be > 1/2"),
    ({"target_ulps": float("nan")}, "target_ulps"),
    ({"max_degree": 1000}, "max_degree"),
    ({"scheme": "clenshaw"}, "scheme must be one of"),
    ({"parity": "both"}, "parity must be"),
    ({"check": "some"}, "check must be"),
    ({"name": "_x"}, "name must be"),
])
def test_refusals(kw, match):
    with pytest.raises(InvalidParameterError, match=match):
        implement("exp(x)", SMALL, **kw)


def test_refuses_vanishing_f_and_empty_interval():
    with pytest.raises(InvalidParameterError, match="f vanishes at x = 0"):
        implement("log1p(x)", (0, "1/2"))
    with pytest.raises(InvalidParameterError, match="no binary32 number"):
        implement("exp(x)", ("0x1.000001p0", "0x1.0000011p0"))


def test_no_degree_within_cap():
    with pytest.raises(CertificationFailed, match="no degree <= 1"):
        implement("exp(x)", SMALL, target_ulps=1, max_degree=1, check=None)


def test_cli(tmp_path, capsys):
    out = tmp_path / "c.json"
    assert cli.main(["implement", "--f", "exp(x)", "--interval", "1/2", "129/256",
                     "--target-ulps", "1", "--scheme", "horner-fma", "--emit",
                     str(tmp_path / "gen"), "--name", "e", "--out", str(out)]) == 0
    cap = capsys.readouterr()
    assert "least degree       2" in cap.out and "floats: every one" in cap.out
    assert "degree 1: refuted, proven" in cap.err and "degree 2: bound" in cap.err
    assert (tmp_path / "gen" / "e.py").exists() and (tmp_path / "gen" / "e.c").exists()
    doc = json.loads(out.read_text())
    assert doc["kind"] == "float-error" and verify_document(doc).status == "holds"
    for argv, msg in [(["--target-ulps", "0"], "--target-ulps must be > 1/2"),
                      (["--target-ulps", "nan"], "--target-ulps"),
                      (["--target-ulps", "1", "--max-degree", "-3"], "--max-degree"),
                      (["--target-ulps", "1", "--check", "x"], "--check")]:
        assert cli.main(["implement", "--f", "exp(x)", "--interval", "1/2", "129/256",
                         *argv]) == 2
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and msg in err[0]
    assert cli.main(["implement", "--f", "log1p(x)", "--interval", "0", "1/2",
                     "--target-ulps", "1"]) == 2
    assert "vanishes" in capsys.readouterr().err


@pytest.mark.slow
def test_exp_binary32_one_ulp_reduced_interval(tmp_path):
    # the target: exp on [-ln2/2, ln2/2] in binary32 at 1 ulp (fma Horner); the
    # least certified degree agrees with Sollya's fpminimax relative errors by hand:
    # degree 5 reaches only ~1e-7 (about 1.8 ulps before rounding), degree 6 ~3.7e-9
    r = implement("exp(x)", ("-0.3466", "0.3466"), format="binary32", target_ulps=1,
                  scheme="horner-fma", fix={0: 1}, emit_dir=tmp_path)
    assert r.degree == 6 and r.bound <= 1
    assert r.attempts[-2].status == "refuted"
    assert r.certificate.check().status == "holds" and r.check["agrees"]
    with pytest.raises(CertificationFailed, match="stopped decreasing"):
        implement("exp(x)", ("-0.3466", "0.3466"), format="binary32", target_ulps=1,
                  scheme="horner", fix={0: 1}, check=None)


@pytest.mark.skipif(shutil.which("cc") is None, reason="no C compiler")
def test_emitted_c_compiles(small, tmp_path):
    obj = tmp_path / "e.o"
    subprocess.run(["cc", "-std=c99", "-O2", "-ffp-contract=off", "-c",
                    str(small.emitted.c), "-o", str(obj)], check=True, timeout=60)
    assert obj.stat().st_size > 0


def test_refusals_before_the_search(tmp_path):
    # an interval past the format's largest finite number, and an --emit directory that
    # cannot be made (a path under a regular file), are refused at once in one line
    from dpverify import cli

    blocker = tmp_path / "file"
    blocker.write_text("x")
    for extra in (["--interval", "0", "1e400"],
                  ["--interval", "0", "1", "--emit", str(blocker / "sub")]):
        args = ["implement", "--f", "exp(x)", "--format", "binary32", "--target-ulps", "2",
                *extra]
        assert cli.main(args) == 2
