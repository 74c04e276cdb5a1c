"""Adversarial suite: hostile expressions, resource limits and API misuse (docs/adversarial.md).

Every case asserts what the CLI contract and the API promise whatever the input: an exit
code in {0, 1, 2} (never a signal: no SIGABRT from FLINT), at most one line on stderr and
no traceback, the time within the budget (``--timeout`` * 1.05 + 1 s, plus start-up), and
for the API a :class:`~dpverify.errors.DPVerifyError` subclass with a one-line message.

The exhaustive families run under ``@pytest.mark.slow`` (``pytest -m slow
tests/test_adversarial_inputs.py``); the resource cases run the ``dpverify`` program in a
subprocess under an address-space limit (``resource.setrlimit``), so a runaway cannot
take the machine.  A representative subset runs in the default set.
"""

from __future__ import annotations

import math
import os
import subprocess
import sys
import time
from fractions import Fraction
from typing import Any

import numpy as np
import pytest

import dpverify
from dpverify.api import boolean_certificate, supnorm_certificate
from dpverify.cli import main
from dpverify.errors import DPVerifyError

TIMEOUT = 5  # --timeout of every CLI case (seconds)
START_UP = 10  # interpreter start-up and imports on a loaded machine (seconds)
LOADED = 2  # what a machine with several times more work than cores adds (seconds)
LIMIT_AS = 6 * 2**30  # address-space limit of the subprocesses

# ------------------------------------------------------------------ hostile expressions


def _nest(fn: str, depth: int) -> str:
    return f"{fn}(" * depth + "x" + ")" * depth


HOSTILE_EXPRESSIONS: list[tuple[str, str]] = [
    # deep nesting (the limit is 200 levels)
    ("nest-sin-50", _nest("sin", 50)),
    ("nest-sin-199", _nest("sin", 199)),
    ("nest-sin-201", _nest("sin", 201)),
    ("nest-parens-1000", "(" * 1000 + "x" + ")" * 1000),
    ("nest-neg-500", "-" * 500 + "x"),
    ("nest-exp-6", _nest("exp", 6)),
    ("tower-x-150", "x" + "^x" * 150),
    ("tower-2-5", "2^2^2^2^2^x"),
    ("flat-sum-3000", "+".join(["x"] * 3000)),
    ("nest-minmax-100", "max(" * 100 + "x" + ", 1)" * 100),
    # huge exponents
    ("pow-10000", "x^10000"),
    ("pow-10001", "x^10001"),
    ("pow-minus-10000", "(x+2)^-10000"),
    ("pow-1e9", "x^(10^9)"),
    ("pow-10^5000", "x^(10^5000)"),
    ("pow-frac", "x^(1/3)"),
    ("pow-neg-frac", "(-x)^(1/3)"),
    ("pow-0^x", "0^x"),
    ("pow-big-base", "(1+x)^10000"),
    ("pow-2^(1e30x)", "2^(1e30*x)"),
    # huge literals
    ("lit-1e100000", "1e100000*x"),
    ("lit-1e99990", "1e99990*x"),
    ("lit-1e-100000", "1e-100000*x"),
    ("lit-1e1000000000", "1e1000000000*x"),
    ("lit-9x10000", "9" * 10000),
    ("lit-long-frac", "1/" + "7" * 5000 + "*x"),
    ("lit-product", "*".join(["1e99999"] * 20)),
    ("lit-1e308", "1e308*x"),
    ("lit-text-10001", "1" * 10001),
    # poles and domain edges
    ("pole-0", "1/x"),
    ("pole-dyadic", "1/(x-1/2)"),
    ("pole-third", "1/(x-1/3)"),
    ("pole-sqrt2", "1/(x^2-2)"),
    ("pole-double", "(x-1/2)^-2"),
    ("pole-sin", "1/sin(x)"),
    ("pole-tan", "tan(1.5707963267948966+x)"),
    ("log-0", "log(x)"),
    ("log-abs", "log(abs(x-1/3))"),
    ("sqrt-neg", "sqrt(x-2)"),
    ("asin-out", "asin(2*x)"),
    ("acos-edge", "acos(x+1e-30)"),
    ("removable", "(x-1/3)/(x-1/3)"),
    # unbounded growth
    ("exp-exp", "exp(exp(x))"),
    ("exp-1e308", "exp(1e308*x)"),
    ("exp-x100", "exp(x^100)*1e300"),
    ("cosh-1e5", "cosh(1e5*x)"),
    ("sinh-1e300", "sinh(1e300*x)"),
    ("exp-exp-exp", "exp(exp(exp(10*x)))"),
    ("oscillating", "sin(1/(x^2+1e-20))"),
    # Unicode and control-character tricks
    ("cyrillic-x", "\u0445"),
    ("zero-width", "x\u200b"),
    ("fullwidth-x", "\uff58"),
    ("nbsp", "exp\u00a0(x)"),
    ("minus-sign", "\u2212x"),
    ("fullwidth-parens", "sin\uff08x\uff09"),
    ("rtl-override", "\u202ex"),
    ("script-e", "\u212f^x"),
    ("greek-pi", "\u03c0*x"),
    ("math-italic-x", "\U0001d465"),
    ("arabic-digit", "1\u0661*x"),
    ("nul", "x\x00"),
    ("newline", "x\n+1"),
    ("combining", "e\u0301xp(x)"),
    ("dunder", "x.__class__"),
    ("lambda", "(lambda: 1)()"),
    ("empty", ""),
    ("spaces", "   "),
]

#: the default-set subset (one or two of each kind)
FAST_EXPRESSIONS = {"nest-sin-201", "tower-x-150", "pow-1e9", "pow-2^(1e30x)",
                    "lit-1e100000", "lit-1e1000000000", "pole-dyadic", "pole-third",
                    "exp-1e308", "fullwidth-x", "nul", "dunder", "removable"}


def _expression_argv(expr: str) -> list[str]:
    return ["supnorm", f"--f={expr}", "--poly", "1/3", "--interval", "-1", "1",
            "--timeout", str(TIMEOUT)]


def _check_outcome(code: int, out: str, err: str, elapsed: float, budget: float) -> None:
    assert code in (0, 1, 2), f"exit {code} (a signal?): {err[-500:]}"
    assert "Traceback" not in err, err
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert len(lines) <= 1, err
    if code:  # a failing command says why: one stderr line, or the result row
        assert lines or "undecided" in out or "not certified" in out, out[-500:]
    assert elapsed <= budget, f"{elapsed:.1f} s > {budget:.1f} s"


_FAST = [c for c in HOSTILE_EXPRESSIONS if c[0] in FAST_EXPRESSIONS]


@pytest.mark.parametrize("name, expr", _FAST, ids=[c[0] for c in _FAST])
def test_hostile_expression_in_process(name, expr, capsys):
    t0 = time.monotonic()
    code = main(_expression_argv(expr))
    got = capsys.readouterr()
    _check_outcome(code, got.out, got.err, time.monotonic() - t0, TIMEOUT * 1.05 + 1)


def _run_program(argv: list[str], timeout: float) -> tuple[int, str, str, float]:
    def limit() -> None:  # runs in the subprocess before exec
        import resource

        resource.setrlimit(resource.RLIMIT_AS, (LIMIT_AS, LIMIT_AS))

    t0 = time.monotonic()
    proc = subprocess.run([sys.executable, "-m", "dpverify", *argv], capture_output=True,
                          text=True, timeout=timeout + 60,
                          preexec_fn=limit if os.name == "posix" else None)
    return proc.returncode, proc.stdout, proc.stderr, time.monotonic() - t0


#: an argv cannot hold a NUL byte: that case runs in-process only
_PROGRAM = [c for c in HOSTILE_EXPRESSIONS if "\x00" not in c[1]]


@pytest.mark.slow
@pytest.mark.parametrize("name, expr", HOSTILE_EXPRESSIONS,
                         ids=[c[0] for c in HOSTILE_EXPRESSIONS])
def test_hostile_expression_in_process_all(name, expr, capsys):
    t0 = time.monotonic()
    code = main(_expression_argv(expr))
    got = capsys.readouterr()
    # + LOADED: the wrap-up after a graceful stop (~0.1 s) stretches on a loaded machine
    _check_outcome(code, got.out, got.err, time.monotonic() - t0,
                   TIMEOUT * 1.05 + 1 + LOADED)


@pytest.mark.slow
@pytest.mark.parametrize("name, expr", _PROGRAM, ids=[c[0] for c in _PROGRAM])
def test_hostile_expression_program(name, expr):
    code, out, err, elapsed = _run_program(_expression_argv(expr), TIMEOUT)
    _check_outcome(code, out, err, elapsed, TIMEOUT * 1.05 + 1 + START_UP)


# ---------------------------------------------------------------------- resource cases


def _coefficients(tmp: Any, name: str, items: list[str]) -> str:
    import json

    path = tmp / f"{name}.json"
    path.write_text(json.dumps(items))
    return f"@{path}"


def _resource_cases(tmp: Any) -> dict[str, Any]:
    """name -> a function returning the argv (the coefficient files are written only for
    the case that runs)."""
    def ones(n: int) -> str:
        return _coefficients(tmp, f"ones{n}", ["1"] * n)

    sup = ["supnorm", "--f", "exp(x)", "--interval", "0", "1"]
    cases: dict[str, Any] = {
        f"supnorm-degree-{n - 1}": (lambda n=n: [*sup, "--poly", ones(n)])
        for n in (10001, 50001, 100001, 200001, 200002)}
    cases.update({
        "supnorm-chebyshev-50000": lambda: [*sup, "--poly", ones(50001), "--basis",
                                            "chebyshev"],
        "supnorm-bernstein-50000": lambda: [*sup, "--poly", ones(50001), "--basis",
                                            "bernstein"],
        "supnorm-huge-bits": lambda: [*sup, "--poly", _coefficients(
            tmp, "bigbits", ["1e99999"] * 20001)],
        "supnorm-harmonic-20000": lambda: [*sup, "--poly", _coefficients(
            tmp, "harmonic", [f"1/{i + 1}" for i in range(20001)])],
        "supnorm-coprime-denominators": lambda: [*sup, "--poly", _coefficients(
            tmp, "coprime", [f"1/{2**61 + 2 * i + 1}" for i in range(5001)])],
        "supnorm-tiny-interval": lambda: ["supnorm", "--f", "exp(x)", "--poly", "1,1,1/2",
                                          "--interval", "0", "1e-99999"],
        "supnorm-huge-interval": lambda: ["supnorm", "--f", "x", "--poly", "0",
                                          "--interval", "0", "1e99999"],
        "supnorm-max-memory-200M": lambda: [*sup, "--poly", ones(10001),
                                            "--max-memory", "200M"],
        "supnorm-dev-zero": lambda: [*sup, "--poly", "@/dev/zero"],
        "supnorm-dev-urandom": lambda: [*sup, "--poly", "@/dev/urandom"],
        "or-k-1e6": lambda: ["or", "--k", "1000000", "--gamma", "1e-3"],
        "or-k-1e6-d": lambda: ["or", "--k", "1000000", "--gamma", "1e-3", "--d", "5"],
        "and-k-1e6-third": lambda: ["and", "--k", "1000000", "--gamma", "1/3"],
        "rofk-big": lambda: ["rofk", "--r", "500", "--k", "1000", "--gamma", "1e-30"],
        # at and beyond the caps of the other commands (beyond: exit 2 before any work)
        "dlist-big": lambda: ["dlist", "--k", "200000", "--gamma", "1e-3"],
        "dlist-beyond": lambda: ["dlist", "--k", "1000000", "--gamma", "1e-10"],
        "jackson-big-t": lambda: ["jackson", "--t", "2001", "--r", "10"],
        "jackson-beyond": lambda: ["jackson", "--t", "1000000", "--r", "10"],
        "jackson-approx-big": lambda: ["jackson-approx", "--f", "exp(x)", "--t", "2048",
                                       "--K", "5"],
        "bernstein-big": lambda: ["bernstein", "--k", "1000", "--h", "50"],
        "bernstein-approx-big": lambda: ["bernstein-approx", "--f", "exp(x)", "--k",
                                         "1000", "--h", "50"],
        "release-size-huge": lambda: ["release-size", "--d", "1000", "--class",
                                      "disjunction", "--k", "1000", "--alpha", "1e-300",
                                      "--beta", "1e-300", "--epsilon", "1e-19"],
        "table-jackson-big": lambda: ["table", "jackson", "--t", "10001", "--r", "2",
                                      "--out", str(tmp / "tables")],
    })
    return cases


#: the default-set subset: the issue's cases (fast refusals)
FAST_RESOURCES = {"supnorm-degree-100000", "supnorm-dev-zero"}
RESOURCE_NAMES = [
    "supnorm-degree-10000", "supnorm-degree-50000", "supnorm-degree-100000",
    "supnorm-degree-200000", "supnorm-degree-200001", "supnorm-chebyshev-50000",
    "supnorm-bernstein-50000", "supnorm-huge-bits", "supnorm-harmonic-20000",
    "supnorm-coprime-denominators", "supnorm-tiny-interval", "supnorm-huge-interval",
    "supnorm-max-memory-200M", "supnorm-dev-zero", "supnorm-dev-urandom", "or-k-1e6",
    "or-k-1e6-d", "and-k-1e6-third", "rofk-big", "dlist-big", "dlist-beyond",
    "jackson-big-t", "jackson-beyond", "jackson-approx-big", "bernstein-big",
    "bernstein-approx-big", "release-size-huge", "table-jackson-big"]


def test_resource_names_list_every_case(tmp_path):
    assert sorted(_resource_cases(tmp_path)) == sorted(RESOURCE_NAMES)


def _resource(name: str, tmp_path: Any) -> None:
    argv = _resource_cases(tmp_path)[name]()
    code, out, err, elapsed = _run_program([*argv, "--timeout", str(TIMEOUT),
                                             "--max-memory", "3G"]
                                            if "--max-memory" not in argv
                                            else [*argv, "--timeout", str(TIMEOUT)], TIMEOUT)
    _check_outcome(code, out, err, elapsed, TIMEOUT * 1.05 + 1 + START_UP)


@pytest.mark.skipif(os.name != "posix", reason="requires POSIX (resource limits)")
@pytest.mark.parametrize("name", sorted(FAST_RESOURCES))
def test_resource_case_fast(name, tmp_path):
    _resource(name, tmp_path)


@pytest.mark.slow
@pytest.mark.skipif(os.name != "posix", reason="requires POSIX (resource limits)")
@pytest.mark.parametrize("name", RESOURCE_NAMES)
def test_resource_case(name, tmp_path):
    _resource(name, tmp_path)


# ------------------------------------------------------------------------- API misuse


class _Weird:
    def __repr__(self) -> str:
        return "<weird>"


HOSTILE_VALUES: list[Any] = [
    None, True, False, float("nan"), float("inf"), -float("inf"), np.float64("nan"),
    10**400, -(10**400), 2**63, -1, 0, -0.5, 1 + 2j, "", "abc", "nan", "inf", "1/0",
    "1e999999999", b"x", [], {}, ["x"], (1,), _Weird(), Fraction(-1, 3), math.pi,
]

API_TARGETS: dict[str, Any] = {
    "supnorm(f)": lambda v: dpverify.supnorm(v, [1], (0, 1), timeout=TIMEOUT),
    "supnorm(poly)": lambda v: dpverify.supnorm("x", v, (0, 1), timeout=TIMEOUT),
    "supnorm(box)": lambda v: dpverify.supnorm("x", [1], v, timeout=TIMEOUT),
    "supnorm(box[0])": lambda v: dpverify.supnorm("x", [1], (v, 1), timeout=TIMEOUT),
    "supnorm(rtol)": lambda v: dpverify.supnorm("x", [1], (0, 1), rtol=v, timeout=TIMEOUT),
    "supnorm(claim)": lambda v: dpverify.supnorm("x", [1], (0, 1), claim=v,
                                                 timeout=TIMEOUT),
    "supnorm(max_pieces)": lambda v: dpverify.supnorm("x", [1], (0, 1), max_pieces=v,
                                                      timeout=TIMEOUT),
    "supnorm(timeout)": lambda v: dpverify.supnorm("x", [1], (0, 1), timeout=v),
    "supnorm_certificate(f)": lambda v: supnorm_certificate(v, [1], (0, 1), timeout=TIMEOUT),
    "supnorm_certificate(interval)": lambda v: supnorm_certificate("x", [1], v,
                                                                   timeout=TIMEOUT),
    "supnorm_certificate(rtol)": lambda v: supnorm_certificate("x", [1], (0, 1), rtol=v,
                                                               timeout=TIMEOUT),
    "supnorm_certificate(claim)": lambda v: supnorm_certificate("x", [1], (0, 1), claim=v,
                                                                timeout=TIMEOUT),
    "supnorm_certificate(timeout)": lambda v: supnorm_certificate("x", [1], (0, 1),
                                                                  timeout=v),
    "boolean_certificate(function)": lambda v: boolean_certificate(v, 5, "1/10"),
    "boolean_certificate(k)": lambda v: boolean_certificate("or", v, "1/10",
                                                            timeout=TIMEOUT),
    "boolean_certificate(gamma)": lambda v: boolean_certificate("or", 5, v, timeout=TIMEOUT),
    "boolean_certificate(method)": lambda v: boolean_certificate("or", 5, "1/10", v,
                                                                 timeout=TIMEOUT),
    "boolean_certificate(d)": lambda v: boolean_certificate("or", 5, "1/10", d=v,
                                                            timeout=TIMEOUT),
    "boolean_certificate(timeout)": lambda v: boolean_certificate("or", 5, "1/10",
                                                                  timeout=v),
    "chebyshev_coefficients(f)": lambda v: dpverify.chebyshev_coefficients(v, 5),
    "chebyshev_coefficients(n)": lambda v: dpverify.chebyshev_coefficients("exp(x)", v),
    "chebyshev_coefficients(dim)": lambda v: dpverify.chebyshev_coefficients("exp(x)", 5, v),
    "chebyshev_coefficients(timeout)": lambda v: dpverify.chebyshev_coefficients(
        "exp(x)", 5, timeout=v),
    "as_poly": lambda v: dpverify.as_poly(v),
}

#: the default-set subset of values
FAST_VALUES = [None, True, float("nan"), 10**400, "abc", [], _Weird()]


def _api_call(name: str, value: Any) -> None:
    t0 = time.monotonic()
    try:
        API_TARGETS[name](value)
    except DPVerifyError as exc:
        msg = str(exc)
        assert msg.strip() and "\n" not in msg and len(msg) <= 2000, msg
    # any other exception type fails the test (wrong types must be DPVerifyError)
    assert time.monotonic() - t0 <= TIMEOUT * 1.1 + 1


@pytest.mark.parametrize("value", FAST_VALUES, ids=repr)
@pytest.mark.parametrize("name", sorted(API_TARGETS))
def test_api_misuse_fast(name, value):
    _api_call(name, value)


@pytest.mark.slow
@pytest.mark.parametrize("value", HOSTILE_VALUES, ids=repr)
@pytest.mark.parametrize("name", sorted(API_TARGETS))
def test_api_misuse(name, value):
    _api_call(name, value)
