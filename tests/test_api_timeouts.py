"""Every API function with ``timeout=`` (or ``deadline_seconds=``) honours it within 10% +
1 s, on inputs built to run long: the search ends gracefully (a valid, wider result with
status "timeout"), raises TimeLimitExceeded ("undecided: time limit"), or, for the
verifier, reports "undecided"; one FLINT call that would pass the deadline is refused
before it starts.  The public modules are enumerated, so a new function with a time limit
fails here until it has a pathological case.  Timeouts are small so the file stays fast.

The bound holds on a busy machine (CI shares its cores): what is bounded is the *work* done
past the deadline -- the smaller of the wall time and the CPU time of the call (this process
and its children; the CPU time, because a process that shares two cores with two busy ones
gets half of the wall time to run in) -- and the wall time itself within that bound times
the slowdown measured in the same run (a short busy loop's wall time over its CPU time).
"""

from __future__ import annotations

import importlib
import inspect
import json
import time
from functools import lru_cache

import pytest

import dpverify
from dpverify import testing
from dpverify.api import boolean_certificate, supnorm_certificate
from dpverify.approximation import Approximation
from dpverify.certify import Certificate, certify
from dpverify.certify import supnorm as certify_supnorm
from dpverify.constructions.sherstov import rofk_polynomial
from dpverify.errors import InvalidParameterError, TimeLimitExceeded
from dpverify.exact import ChebyshevPoly, MonomialPoly
from dpverify.verify import verify_bytes, verify_document, verify_file
from tests._timing import cpu_seconds, slowdown

T = 0.3  # seconds


class _Clock:
    """Wall and CPU time from now, and the machine's slowdown measured now."""

    def __init__(self) -> None:
        self.slowdown = slowdown()
        self.wall, self.cpu = time.monotonic(), cpu_seconds()


def _within(start: _Clock, timeout: float = T) -> None:
    wall, cpu = time.monotonic() - start.wall, cpu_seconds() - start.cpu
    limit = 1.1 * timeout + 1
    # the work past the deadline (min: a call using several threads has CPU > wall)
    assert min(wall, cpu) <= limit, f"{wall:.2f} s wall, {cpu:.2f} s CPU, timeout={timeout}"
    factor = max(start.slowdown, slowdown())
    assert wall <= limit * factor + 1, \
        f"{wall:.2f} s wall for timeout={timeout} at a slowdown of {factor:.2f}"


# ---------------------------------------------------------------- every function, enumerated

#: the modules whose public names users call
PUBLIC = ("dpverify", "dpverify.api", "dpverify.certify", "dpverify.verify", "dpverify.testing",
          "dpverify.constructions", "dpverify.mechanisms", "dpverify.tables",
          "dpverify.crosscheck")
LIMIT_NAMES = ("timeout", "deadline_seconds")


def _public_functions():
    """(label, function) of every public function and public method of a public class."""
    seen = {}
    for name in PUBLIC:
        mod = importlib.import_module(name)
        for attr in mod.__all__:
            obj = getattr(mod, attr)
            if inspect.isfunction(obj):
                seen.setdefault(obj, f"{name}.{attr}")
            elif inspect.isclass(obj):
                for meth, fn in vars(obj).items():
                    if inspect.isfunction(fn) and not meth.startswith("_"):
                        seen.setdefault(fn, f"{name}.{attr}.{meth}")
    return {label: fn for fn, label in seen.items()}


def _parameters(fn):
    return inspect.signature(fn).parameters.values()


@lru_cache(maxsize=1)
def _rofk_document() -> dict:
    """A genuine r-of-k certificate whose check takes about half a second on an idle
    machine (the verifier rebuilds Sherstov's construction: 36 MB of exact coefficients);
    its cases run with a deadline of :data:`T_CHECK`."""
    return json.loads(certify(rofk_polynomial(2, 20, "1e-6")).to_json())


#: the deadline of the checker's cases: well below the check's own time on any machine
T_CHECK = 0.1


def _undecided(report) -> None:
    # stopped at the deadline, or a step refused because it would pass it
    assert report.status == "undecided", report.status
    assert report.reason == "time limit" or "too expensive" in report.reason, report.reason


def _status_timeout(r) -> None:
    status = getattr(r, "status", None) or r.info["status"]
    assert status == "timeout"


#: degree 2000 on the integers 0..10^6: 10^6 exact evaluations, and power sums of 5 GB
_WIDE_FINITE = Approximation(
    construction="custom", params={}, poly=MonomialPoly([f"{(-1) ** i}/{i + 1}"
                                                          for i in range(2001)]),
    target={"kind": "threshold", "r": 1}, domain={"kind": "integers", "lo": 0, "hi": 10**6})
# sin(1/(x^2 + 1e-20)) oscillates ~10^10 times near 0: no enclosure reaches rtol 1e-15 soon
OSCILLATING = "sin(1/(x^2+1e-20))"
# degree 300 with 65536 pieces allowed: hours of bisection without a timeout
_DEG300 = [f"{(-1) ** i * (i % 7 + 1)}/{(i + 1) ** 2}" for i in range(301)]


def _verify_file(tmp_path, t):
    path = tmp_path / "rofk.json"
    path.write_text(json.dumps(_rofk_document()))
    return verify_file(path, deadline_seconds=t)


#: label -> (the call with a time limit t, what its outcome must satisfy: None when it must
#: raise TimeLimitExceeded); the inputs are the pathological ones of the adversarial review
CASES = {
    "dpverify.supnorm": (
        lambda t, _: dpverify.supnorm(OSCILLATING, ["1/3"], (-1, 1), rtol="1e-15", timeout=t),
        _status_timeout),
    "dpverify.certify.supnorm": (
        lambda t, _: certify_supnorm(OSCILLATING, MonomialPoly(["1/3"]), [(-1, 1)],
                                     rtol="1e-15", timeout=t),
        _status_timeout),
    "dpverify.api.supnorm_certificate": (
        lambda t, _: supnorm_certificate(OSCILLATING, MonomialPoly(["1/3"]), (-1, 1),
                                         rtol="1e-15", timeout=t),
        _status_timeout),
    "dpverify.certify_approximation": (
        lambda t, _: dpverify.certify_approximation(OSCILLATING, ["1/3"], (-1, 1),
                                                    rtol="1e-15", timeout=t),
        _status_timeout),
    "dpverify.certify.certify": (
        lambda t, _: certify(_WIDE_FINITE, timeout=t), None),
    "dpverify.chebyshev_coefficients": (
        lambda t, _: dpverify.chebyshev_coefficients("exp(x)*y", 300, dim=2, timeout=t), None),
    "dpverify.api.boolean_certificate": (
        lambda t, _: boolean_certificate("or", 10**6, "1/3", timeout=t), None),
    # the Remez searches of the review: 155 s, 173 s and > 200 s under timeout=5
    "dpverify.minimax": (lambda t, _: dpverify.minimax("exp(x)", 200, (-1, 1), timeout=t),
                         None),
    "dpverify.approx": (lambda t, _: dpverify.approx("exp(x)", (0, 1), "1e-300", timeout=t),
                        None),
    # degree 100: a Remez search, a bracket, lattices of 101 dimensions, a certificate
    "dpverify.fpminimax": (lambda t, _: dpverify.fpminimax("exp(x)", 100, (-1, 1), timeout=t),
                           None),
    # a degree search in binary64 on [-1, 1]: fpminimax, total error and checks per degree
    "dpverify.implement": (
        lambda t, _: dpverify.implement("exp(x)", (-1, 1), format="binary64", target_ulps=1,
                                        scheme="horner-fma", timeout=t), None),
    "dpverify.evalbound": (
        lambda t, _: dpverify.evalbound(_DEG300, (0, 1), pieces=65536, timeout=t),
        lambda r: r.stats["stop"] == "timeout" or pytest.fail(r.stats["stop"])),
    # the sup-norm part raises TimeLimitExceeded when it has no finite bound yet
    "dpverify.float_error_bound": (
        lambda t, _: dpverify.float_error_bound("exp(x)", _DEG300, (-1, 1), pieces=65536,
                                                timeout=t),
        lambda r: r.evaluation.stats["stop"] == "timeout" or pytest.fail("no timeout")),
    "dpverify.verify.verify_document": (
        lambda t, _: verify_document(_rofk_document(), deadline_seconds=t), _undecided),
    "dpverify.verify.verify_bytes": (
        lambda t, _: verify_bytes(json.dumps(_rofk_document()).encode(), deadline_seconds=t),
        _undecided),
    "dpverify.verify.verify_file": (lambda t, tmp: _verify_file(tmp, t), _undecided),
    "dpverify.Certificate.check": (
        lambda t, _: Certificate.from_json(json.dumps(_rofk_document())).check(
            deadline_seconds=t), _undecided),
}

#: public functions that can run long and take no time limit, and why that is acceptable
NO_LIMIT = {
    # a test helper: its cost is the number of inputs, set by points= (default 10^6, about
    # 0.5 s for sin; a minute for a reference needing high precision at many inputs); a
    # budget.limits() around it is tested between tasks of 2^18 inputs (docs/limits.md)
    "dpverify.testing.check_implementation",
    # table look-ups (**params are the table's parameters, no search)
    "dpverify.testing.reference", "dpverify.testing.assert_matches_reference",
}


def test_every_function_with_a_time_limit_has_a_pathological_case():
    """A public function takes a time limit by name, or forwards ``**options`` to one
    that does (then it is listed in CASES or, with the reason, in NO_LIMIT)."""
    found = set()
    for label, fn in _public_functions().items():
        params = list(_parameters(fn))
        if any(p.name in LIMIT_NAMES for p in params):
            found.add(label)
        elif any(p.kind is p.VAR_KEYWORD for p in params):
            assert label in CASES or label in NO_LIMIT, \
                f"{label} takes **{params[-1].name}: a case in CASES, or a reason in NO_LIMIT"
    assert found <= set(CASES), f"no pathological case for {sorted(found - set(CASES))}"
    for label in ("dpverify.testing.check_implementation",):
        assert not any(p.name in LIMIT_NAMES for p in _parameters(_public_functions()[label]))


@pytest.mark.parametrize("label", sorted(CASES))
def test_every_time_limit_holds_within_10_percent_and_1_s(label, tmp_path):
    call, check = CASES[label]
    t = T
    if label.startswith("dpverify.verify.") or label.endswith(".check"):
        _rofk_document()  # built before the clock starts
        t = T_CHECK
    t0 = _Clock()
    if check is None:
        with pytest.raises(TimeLimitExceeded):  # past the deadline, or a step refused
            call(t, tmp_path)
        _within(t0, t)
    else:
        try:
            out = call(t, tmp_path)
        except TimeLimitExceeded:
            # also an honoured limit: on a slow (busy) machine the deadline can come
            # before the search has its first finite bound, and then nothing is returned
            _within(t0, t)
            return
        _within(t0, t)
        check(out)


def test_budget_limits_bound_check_implementation_between_tasks():
    """check_implementation has no timeout= (points= sets its cost), but a budget around
    it is honoured between its tasks of 2^18 inputs."""
    def slow(xs):
        time.sleep(0.5)
        return xs
    t0 = time.monotonic()
    with pytest.raises(TimeLimitExceeded, match="time limit of 0.2 s"):
        with dpverify.budget.limits(timeout=0.2):
            testing.check_implementation(slow, "x", domain=(0, 1), points=2**20)
    assert time.monotonic() - t0 < 5  # 4 tasks of 0.5 s each at most; not the whole search


@pytest.mark.parametrize("poly, needle", [
    ([1] * 40001, "Taylor shift of the degree-40000"),
    (ChebyshevPoly([1] * 20001), "Chebyshev to the monomial basis"),
])
def test_supnorm_refuses_one_long_flint_call(poly, needle):
    t0 = _Clock()
    with pytest.raises(TimeLimitExceeded, match=needle):
        dpverify.supnorm("exp(x)", poly, (-1, 1), timeout=1)
    _within(t0, 1)


@pytest.mark.parametrize("fn", [
    lambda t: dpverify.supnorm("x", [1], (0, 1), timeout=t),
    lambda t: supnorm_certificate("x", [1], (0, 1), timeout=t),
    lambda t: boolean_certificate("or", 5, "1/10", timeout=t),
    lambda t: dpverify.chebyshev_coefficients("exp(x)", 5, timeout=t),
])
@pytest.mark.parametrize("bad", [-1, 0, float("nan"), float("inf"), True, 10**400, "soon"])
def test_bad_timeouts_are_refused(fn, bad):
    with pytest.raises(InvalidParameterError, match="timeout"):
        fn(bad)


def test_float_error_bound_timeout_covers_both_parts():
    t0 = _Clock()
    try:
        r = dpverify.float_error_bound(OSCILLATING, _DEG300, (-1, 1), pieces=65536,
                                       rtol="1e-15", timeout=T)
    except TimeLimitExceeded as exc:   # the sup-norm part had no finite bound yet
        assert f"time limit of {T:g} s" in str(exc)
    else:
        assert r.evaluation.stats["stop"] == "timeout"
        assert r.certificate.info["status"] == "timeout"
    _within(t0)


@pytest.mark.parametrize("fn", [
    lambda t: dpverify.evalbound([1, 1], (0, 1), timeout=t),
    lambda t: dpverify.float_error_bound("exp(x)", [1, 1], (0, 1), timeout=t),
])
@pytest.mark.parametrize("bad", [-1, 0, float("nan"), True, "soon"])
def test_evalbound_bad_timeouts_are_refused(fn, bad):
    with pytest.raises(InvalidParameterError, match="timeout"):
        fn(bad)
