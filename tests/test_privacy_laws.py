"""Laws of the privacy maps: monotonicity, composition, calibration and the
typed records, checked with hypothesis on exact rationals.  Reference values come from the
definitions (S/b, the advanced-composition formula evaluated independently in mpmath at 100
digits), never from the code under test."""

from __future__ import annotations

import dataclasses
import json

import mpmath
import pytest
from flint import fmpq
from hypothesis import given, settings
from hypothesis import strategies as st

from dpverify.mechanisms.privacy import (
    advanced_composition_epsilon,
    calibrate_laplace,
    compose_basic,
    gaussian_privacy,
    gaussian_sigma2,
    laplace_advanced_composition,
    laplace_privacy,
)
from dpverify.mechanisms.privacy.records import (
    BasicComposition,
    LaplaceCalibration,
    LaplaceRecord,
    PrivacyRecord,
)

SETTINGS = settings(deadline=None, max_examples=60)


def rationals(lo_num: int = 1, hi_num: int = 10**6, den_max: int = 10**4):
    return st.builds(fmpq, st.integers(lo_num, hi_num), st.integers(1, den_max))


epsilons = st.builds(fmpq, st.integers(1, 4000), st.integers(1, 1000))   # (1/1000, 4000]
deltas = st.builds(lambda e: fmpq(1, 10**e), st.integers(2, 12))


def mp(q: fmpq) -> mpmath.mpf:
    return mpmath.mpf(int(q.p)) / int(q.q)


@SETTINGS
@given(s=rationals(0), b=rationals(), c=rationals())
def test_laplace_epsilon_is_s_over_b_and_monotone(s, b, c):
    rec = laplace_privacy(s, b)
    assert rec.epsilon * b == s                       # definition: epsilon = S_1 / b
    assert rec.delta == 0
    # more noise never costs privacy; more sensitivity never gains it
    assert laplace_privacy(s, b + c).epsilon <= rec.epsilon
    assert laplace_privacy(s + c, b).epsilon >= rec.epsilon


@SETTINGS
@given(eps0=rationals(1, 3000, 1000), m=st.integers(1, 10**4), delta=deltas)
def test_advanced_composition_encloses_the_formula(eps0, m, delta):
    got = advanced_composition_epsilon(eps0, m, delta)
    with mpmath.workdps(100):
        e0 = mp(eps0)
        exact = mpmath.sqrt(2 * m * mpmath.log(1 / mp(delta))) * e0 + m * e0 * mpmath.expm1(e0)
        assert mp(got) >= exact                       # an upper bound ...
        assert mp(got) <= exact * (1 + mpmath.mpf(2) ** -80)  # ... and a tight one


@SETTINGS
@given(eps0=rationals(1, 3000, 1000), extra=rationals(1, 100, 100), m=st.integers(1, 500),
       delta=deltas)
def test_advanced_composition_monotone(eps0, extra, m, delta):
    base = advanced_composition_epsilon(eps0, m, delta)
    assert advanced_composition_epsilon(eps0 + extra, m, delta) >= base
    assert advanced_composition_epsilon(eps0, m + 1, delta) >= base
    assert advanced_composition_epsilon(eps0, m, delta / 10) >= base


@SETTINGS
@given(per=rationals(1, 1000, 100), m=st.integers(1, 200), eps=epsilons)
def test_pure_calibration_is_exact_and_monotone(per, m, eps):
    scale, cal = calibrate_laplace(per, m, eps)
    assert isinstance(cal, LaplaceCalibration)
    assert cal.achieved_epsilon == eps == cal.certificate.epsilon   # exactly epsilon-DP
    assert scale == m * per / eps
    bigger, _ = calibrate_laplace(per, m, 2 * eps)
    assert bigger < scale                              # a larger budget needs less noise


@settings(deadline=None, max_examples=25)
@given(per=rationals(1, 1000, 100), m=st.integers(1, 200), eps=epsilons, delta=deltas)
def test_delta_calibration_certifies_and_never_beats_pure(per, m, eps, delta):
    scale, cal = calibrate_laplace(per, m, eps, delta)
    assert cal.achieved_epsilon <= eps
    assert cal.certificate.epsilon <= eps
    pure, _ = calibrate_laplace(per, m, eps)
    assert scale <= pure                               # the pure scale is always a candidate
    if cal.comparison.used != "pure":
        # the certificate is advanced composition at exactly this scale: recompute it
        again = laplace_advanced_composition(per, scale, m, delta)
        assert again.epsilon <= eps


@SETTINGS
@given(parts=st.lists(st.tuples(epsilons, st.sampled_from([None, fmpq(1, 10**6)])),
                      min_size=1, max_size=6))
def test_basic_composition_adds(parts):
    recs = [{"achieved_epsilon": str(e), "delta": None if d is None else str(d)}
            for e, d in parts]
    tot = compose_basic(recs)
    assert isinstance(tot, BasicComposition)
    assert tot.epsilon == sum((e for e, _ in parts), fmpq(0))
    assert tot.delta == sum((d for _, d in parts if d is not None), fmpq(0))
    # associativity: composing a prefix first gives the same total
    head = compose_basic(recs[:1])
    again = compose_basic([{"achieved_epsilon": head["epsilon"], "delta": head["delta"]},
                           *recs[1:]])
    assert (again.epsilon, again.delta) == (tot.epsilon, tot.delta)


@SETTINGS
@given(s2=rationals(1, 1000, 100), eps=st.builds(fmpq, st.integers(1, 100), st.integers(1, 10)),
       delta=deltas)
def test_gaussian_sigma2_certifies_its_target(s2, eps, delta):
    v = gaussian_sigma2(s2, eps, delta)
    rec = gaussian_privacy(s2, v, delta)
    assert rec.epsilon <= eps
    assert rec.rho == s2 / (2 * v)
    assert rec.epsilon >= rec.rho                      # epsilon = rho + a non-negative term
    assert gaussian_privacy(s2, 2 * v, delta).epsilon <= rec.epsilon   # more noise


def test_records_are_immutable_typed_and_render_at_the_edge():
    rec = laplace_privacy(2, 4)
    assert isinstance(rec, PrivacyRecord) and isinstance(rec, LaplaceRecord)
    with pytest.raises(dataclasses.FrozenInstanceError):
        rec.scale = fmpq(1)                            # type: ignore[misc]
    with pytest.raises(TypeError):
        rec["epsilon"] = "0"                           # type: ignore[index]
    assert isinstance(rec.epsilon, fmpq)               # exact inside ...
    doc = rec.to_json()
    assert doc["epsilon"] == "1/2" == rec["epsilon"]   # ... strings only at the edge
    assert dict(rec) == doc and list(rec) == list(doc)
    json.dumps(doc)
    # nested records render too (calibration -> its certificate)
    _, cal = calibrate_laplace(1, 3, fmpq(1, 2), fmpq(1, 10**6))
    out: dict = {}
    out.update(cal)
    json.dumps(out)
    assert out["certificate"] == cal.certificate.to_json()
