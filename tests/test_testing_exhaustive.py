"""Exhaustive binary32 checks: every input, the planted defects all found, the first
failures in bit-pattern order, correct rounding decided, a resumed run equal to an
uninterrupted one, and the property checks (sin(-0) returning +0 is caught).

The planted defects move outputs of numpy's float32 functions by whole ulps at known
inputs; each test checks that the report names exactly those inputs (the expected
answers are derived from the planting, not from the code under test).  Domains are kept
to a few binades so the tests take seconds; the whole binary32 line runs in
benchmarks/check_binary32.py.
"""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from flint import fmpq

import dpverify.testing.points as points
from dpverify.testing import check_implementation

f32 = np.float32


def ulps_up(y: np.ndarray, k: int) -> np.ndarray:
    """``y`` moved ``k`` binary32 numbers up."""
    out = np.asarray(y, dtype=f32).copy()
    for _ in range(k):
        out = np.nextafter(out, f32(np.inf))
    return out


@pytest.fixture
def small_blocks(monkeypatch):
    """Tasks of 2^16 inputs, so that a few binades make several tasks."""
    monkeypatch.setattr(points, "BLOCK", 1 << 16)


def rounded_exp(x):
    """exp in binary64 rounded to binary32: correctly rounded but for double rounding
    (at most 1/2 + 2^-29 ulp), so within 1 ulp everywhere."""
    return np.exp(np.asarray(x, dtype=np.float64)).astype(f32)


def test_every_input_in_bit_order_and_correct_rounding():
    # sqrt is correctly rounded in IEEE 754: every input of [1, 1.5] passes 1/2 ulp exactly
    rep = check_implementation(np.sqrt, "sqrt(x)", domain=(1, 1.5), dtype=f32,
                               exhaustive=True, ulps="1/2")
    assert rep.exhaustive and rep.points == 2**22 + 1
    assert rep.correctly_rounded and rep.incorrectly_rounded == 0
    assert rep.property("monotonicity").status == "pass"


def test_planted_binary32_defects_are_all_found(small_blocks):
    base = rounded_exp
    one_f = np.array([1.0], f32).view(np.int32)[0]
    # a run of three consecutive floats 3 ulps off, and one input 2 ulps off
    run = (one_f + np.arange(345678, 345681)).astype(np.int32).view(f32)
    one = (one_f + np.int32(777777)).astype(np.int32).view(f32)

    def impl(x):
        y = base(x)
        y = np.where(np.isin(x, run), ulps_up(y, 3), y)
        y = np.where(x == one, ulps_up(y, 2), y)
        return y.astype(f32)

    rep = check_implementation(impl, "exp(x)", domain=(1, 1.125), dtype=f32, exhaustive=True,
                               ulps=1, raise_on_failure=False)
    assert rep.points == 2**20 + 1 and not rep.passed and rep.failures == 4
    firsts = [r.x for r in rep.first_failures]
    assert firsts == sorted(run.astype(float).tolist() + [float(one)])   # in bit order
    assert check_implementation(base, "exp(x)", domain=(1, 1.125), dtype=f32,
                                exhaustive=True, ulps=1).failures == 0

    # one bad binade [2, 4): every output there 2 ulps off
    def binade(x):
        y = base(x)
        return np.where(x >= 2, ulps_up(y, 2), y).astype(f32)

    rep = check_implementation(binade, "exp(x)", domain=(1.9375, 2.0625), dtype=f32,
                               exhaustive=True, ulps=1, raise_on_failure=False)
    above = 2**19 // 2 + 1                    # the floats of [2, 2.0625]
    assert rep.failures == above and rep.first_failures[0].x == 2.0


def test_one_wrong_input_is_named_exactly():
    x0 = f32(1.2045678)

    def impl(x):
        y = np.sqrt(x)
        return np.where(x == x0, ulps_up(y, 1), y).astype(f32)

    rep = check_implementation(impl, "sqrt(x)", domain=(1, 1.25), dtype=f32, exhaustive=True,
                               ulps="1/2", raise_on_failure=False)
    assert rep.failures == 1 and [r.x for r in rep.first_failures] == [float(x0)]
    assert rep.incorrectly_rounded == 1 and rep.correctly_rounded is False
    # sqrt is correctly rounded, so 1 ulp up errs by between 1/2 and 3/2 ulps
    assert fmpq(1, 2) < rep.worst_ulps < fmpq(3, 2) and rep.worst_input == float(x0)


def test_wrong_only_on_subnormals():
    def impl(x):
        y = np.sin(x)
        tiny = np.abs(x) < np.finfo(f32).tiny
        return np.where(tiny & (x != 0), ulps_up(y, 4), y).astype(f32)

    lo, hi = 0.9375 * 2.0**-126, 1.0625 * 2.0**-126       # 2^19 subnormals, 2^19 normals
    rep = check_implementation(impl, "sin(x)", domain=(lo, hi), dtype=f32,
                               exhaustive=True, ulps=1, raise_on_failure=False)
    assert rep.points == 2**20 + 1 and rep.failures == 2**19   # every subnormal, no other
    assert all(r.x < 2.0**-126 for r in rep.first_failures)
    assert rep.first_failures[0].x == lo                      # the first one, in bit order


def test_wrong_sign_of_zero_is_caught():
    """sin(-0.0) returning +0.0: within every ulp limit, caught as a signed-zero
    violation (the property fails the check)."""
    def impl(x):
        y = np.sin(x)
        return np.where(x == 0, f32(0.0), y).astype(f32)   # +0 for -0 too

    tiny = (-(2.0**-140), 2.0**-140)                           # 1025 inputs
    rep = check_implementation(impl, "sin(x)", domain=tiny, dtype=f32,
                               exhaustive=True, ulps=1, raise_on_failure=False)
    zeros = rep.property("signed zeros")
    assert rep.failures == 0 and zeros.status == "fail" and not rep.passed
    assert "f(-0) = 0.0, expected -0.0" in zeros.examples[0]
    with pytest.raises(AssertionError, match="signed zeros"):
        check_implementation(impl, "sin(x)", domain=tiny, dtype=f32, exhaustive=True, ulps=1)
    good = check_implementation(np.sin, "sin(x)", domain=tiny, dtype=f32, exhaustive=True,
                                ulps=1)
    assert good.property("signed zeros").status == "pass"
    assert good.property("symmetry").status == "pass"      # sin is odd (inferred)


def test_monotonicity_break_and_range_violation():
    # tanh 3 ulps low on a run of 40 floats near 0.5: a -3 ulp step at its left end
    start = np.array([0.5], f32).view(np.int32)[0] + 1000
    window = np.arange(start, start + 40, dtype=np.int32).view(f32)

    def impl(x):
        y = np.tanh(x)
        low = np.isin(x, window)
        y = np.where(low, ulps_up(-y, 3) * -1, y)
        return y.astype(f32)

    dom = (0.4990, 0.5010)
    rep = check_implementation(impl, "tanh(x)", domain=dom, dtype=f32,
                               exhaustive=True, ulps=4, raise_on_failure=False)
    mono = rep.property("monotonicity")
    assert rep.failures == 0 and mono.violations >= 1 and mono.status == "warn"
    assert f"{float(window[0])!r}" in " ".join(mono.examples)
    # the same with ulps=1/2: a correctly rounded tanh is monotone, so it fails
    cr = check_implementation(impl, "tanh(x)", domain=dom, dtype=f32, exhaustive=True,
                              ulps="1/2", raise_on_failure=False)
    assert cr.property("monotonicity").status == "fail" and not cr.passed

    def over(x):   # sin returning 1 + 1 ulp near pi/2: 1 ulp off, but |sin| > 1
        y = np.sin(x)
        return np.where(y == 1, np.nextafter(f32(1), f32(2)), y).astype(f32)

    rep = check_implementation(over, "sin(x)", domain=(1.57, 1.572), dtype=f32,
                               exhaustive=True, ulps=2, raise_on_failure=False)
    rng = rep.property("range")
    assert rng.status == "fail" and rng.violations >= 1 and "outside [-1.0, 1.0]" in \
        rng.examples[0]


def test_state_file_resumes_an_interrupted_run(small_blocks, tmp_path):
    state = tmp_path / "state.json"
    calls = []

    def interrupt(stage, done, total):
        calls.append(done)
        if done == 5:
            raise KeyboardInterrupt

    args = dict(domain=(1, 1.25), dtype=f32, exhaustive=True, ulps=1, raise_on_failure=False)
    with pytest.raises(KeyboardInterrupt):
        check_implementation(np.exp, "exp(x)", state=str(state), progress=interrupt, **args)
    saved = json.loads(state.read_text())
    assert len(saved["done"]) == 5           # any five: workers finish in any order
    resumed = check_implementation(np.exp, "exp(x)", state=str(state), **args)
    whole = check_implementation(np.exp, "exp(x)", **args)
    assert resumed.resumed == 5 and resumed.tasks == whole.tasks == 33
    for field in ("points", "failures", "worst_input", "worst_ulps", "incorrectly_rounded",
                  "ulps_bound", "screened"):
        assert getattr(resumed, field) == getattr(whole, field), field
    assert resumed.histogram == whole.histogram
    # a state file of another check is refused
    with pytest.raises(Exception, match="belongs to another check"):
        check_implementation(np.exp, "exp(x)", state=str(state),
                             **{**args, "domain": (1, 1.5)})


def test_exhaustive_arguments():
    with pytest.raises(Exception, match="binary32"):
        check_implementation(np.exp, "exp(x)", domain=(0, 1), exhaustive=True)
    with pytest.raises(Exception, match="points unset"):
        check_implementation(np.exp, "exp(x)", 100, domain=(0, 1), dtype=f32,
                             exhaustive=True)
    with pytest.raises(Exception, match="state="):
        check_implementation(np.exp, "exp(x)", domain=(0, 1), state="s.json")


def test_a_pole_in_the_domain_is_a_singularity_not_a_crash():
    """math.gamma raises at its poles: the output is NaN there (ValueError), the
    reference is undefined, and the report lists the singular inputs."""
    rep = check_implementation(math.gamma, "gamma(x)", domain=(-3, -1), points=2000,
                               ulps=1e9, raise_on_failure=False)
    assert rep.singularities >= 3
    assert {-3.0, -2.0, -1.0} <= {x for x, _ in rep.singular_inputs}
    assert all(math.isnan(y) for _, y in rep.singular_inputs)


def test_float_reference_with_a_declared_error_gives_an_interval():
    """scipy's gamma as the reference, declared within 2 ulps: the error of math.gamma is
    an interval 4 ulps wide around the float comparison, containing the Arb value."""
    sc = pytest.importorskip("scipy.special")
    arb_rep = check_implementation(math.gamma, "gamma(x)", points=3000, domain=(1, 20),
                                   raise_on_failure=False)
    rep = check_implementation(math.gamma, sc.gamma, points=3000, domain=(1, 20),
                               ref_ulps=2, ulps=100, raise_on_failure=False)
    lo, hi = rep.worst_ulps_enclosure
    assert hi - lo > 1 and not rep.rigorous
    # at the input the Arb check found worst, the float reference's interval holds it
    again = check_implementation(math.gamma, sc.gamma, points=[arb_rep.worst_input],
                                 ref_ulps=2, ulps=100)
    a, b = again.worst_ulps_enclosure
    assert a <= arb_rep.worst_ulps <= b
    # a numpy-wrapped reference (0-d array at a scalar) is a float reference
    wrapped = check_implementation(np.exp, lambda x: np.asarray(np.exp(float(x))),
                                   points=500, domain=(0, 1), raise_on_failure=False)
    assert not wrapped.rigorous
