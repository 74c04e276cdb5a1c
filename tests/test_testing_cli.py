"""``dpverify check``: exit 0 on a pass, 1 on a failure (the worst input named), 2 on a bad
argument (one line); C functions through ctypes; JSON report."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from dpverify.cli import main
from dpverify.testing.impls import libm_function, load_implementation


def test_check_passes_and_fails_with_the_exit_code(capsys, tmp_path):
    assert main(["check", "--impl", "numpy:sqrt", "--f", "sqrt(x)", "--domain", "1", "2",
                 "--dtype", "float32", "--exhaustive", "--ulps", "1/2", "--workers", "1",
                 "--report", str(tmp_path / "r.json")]) == 0
    out = capsys.readouterr().out
    assert "correctly rounded: yes" in out and "passed" in out
    assert json.loads((tmp_path / "r.json").read_text())["exhaustive"] is True
    # C's expf against exp(x) with a limit of 0 ulps: fails, naming the worst input
    assert main(["check", "--impl", "libm:expf", "--f", "exp(x)", "--domain", "0", "1",
                 "--dtype", "float32", "--points", "3000", "--ulps", "0", "--json"]) == 1
    data = json.loads(capsys.readouterr().out)
    assert data["passed"] is False and data["worst"]["x"].startswith("0x")


@pytest.mark.parametrize("argv, words", [
    (["--impl", "nosuchmodule:f", "--f", "exp(x)", "--domain", "0", "1"], "--impl"),
    (["--impl", "numpy:exp", "--f", "exp(x", "--domain", "0", "1"], "missing ')'"),
    (["--impl", "numpy:exp", "--f", "exp(x)", "--domain", "0", "1", "--exhaustive"],
     "binary32"),
    (["--impl", "libm:nosuchfunction", "--f", "x", "--domain", "0", "1"], "no function"),
])
def test_bad_arguments_exit_2_in_one_line(argv, words, capsys):
    assert main(["check", *argv]) == 2
    err = capsys.readouterr().err
    assert words in err and err.count("\n") == 1


def test_libm_functions_through_ctypes():
    tgamma = libm_function("tgamma")
    five, half = tgamma(np.array([5.0, 0.5])).tolist()
    assert five == 24.0 and abs(half - math.sqrt(math.pi)) <= 4 * math.ulp(half)
    assert np.isnan(tgamma(np.array([-2.0]))[0])        # C: a domain error, NaN
    assert load_implementation("math:erfc") is math.erfc
    with pytest.raises(Exception, match="MODULE:NAME"):
        load_implementation("os.system('x'):f")
