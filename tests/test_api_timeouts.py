"""Every API function with ``timeout=`` honours it within 10% + 1 s, on inputs built to
run long: the search ends gracefully (a valid, wider result with status "timeout") or
raises TimeLimitExceeded ("undecided: time limit"), and one FLINT call that would pass the
deadline is refused before it starts.  Timeouts are small so the file stays fast."""

from __future__ import annotations

import time

import pytest

import dpverify
from dpverify.api import boolean_certificate, supnorm_certificate
from dpverify.errors import InvalidParameterError, TimeLimitExceeded
from dpverify.exact import ChebyshevPoly, MonomialPoly

T = 0.3  # seconds


def _within(t0: float, timeout: float = T) -> None:
    elapsed = time.monotonic() - t0
    assert elapsed <= 1.1 * timeout + 1, f"{elapsed:.2f} s for timeout={timeout}"


# sin(1/(x^2 + 1e-20)) oscillates ~10^10 times near 0: no enclosure reaches rtol 1e-15 soon
OSCILLATING = "sin(1/(x^2+1e-20))"


def test_supnorm_search_stops_at_the_deadline():
    t0 = time.monotonic()
    r = dpverify.supnorm(OSCILLATING, ["1/3"], (-1, 1), rtol="1e-15", timeout=T)
    _within(t0)
    assert r.status == "timeout" and not r.converged and r.lower <= r.upper


def test_supnorm_certificate_stops_at_the_deadline():
    t0 = time.monotonic()
    cert = supnorm_certificate(OSCILLATING, MonomialPoly(["1/3"]), (-1, 1), rtol="1e-15",
                               timeout=T)
    _within(t0)
    assert cert.info["status"] == "timeout"


@pytest.mark.parametrize("poly, needle", [
    ([1] * 40001, "Taylor shift of the degree-40000"),
    (ChebyshevPoly([1] * 20001), "Chebyshev to the monomial basis"),
])
def test_supnorm_refuses_one_long_flint_call(poly, needle):
    t0 = time.monotonic()
    with pytest.raises(TimeLimitExceeded, match=needle):
        dpverify.supnorm("exp(x)", poly, (-1, 1), timeout=1)
    _within(t0, 1)


def test_boolean_certificate_timeout():
    t0 = time.monotonic()
    with pytest.raises(TimeLimitExceeded, match="time limit"):
        boolean_certificate("or", 10**6, "1/3", timeout=T)
    _within(t0)


def test_chebyshev_coefficients_timeout():
    t0 = time.monotonic()
    with pytest.raises(TimeLimitExceeded, match="time limit"):
        dpverify.chebyshev_coefficients("exp(x)*y", 300, dim=2, timeout=T)
    _within(t0)


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


# degree 300 with 65536 pieces allowed: hours of bisection without a timeout
_DEG300 = [f"{(-1) ** i * (i % 7 + 1)}/{(i + 1) ** 2}" for i in range(301)]


def test_evalbound_stops_bisecting_at_the_deadline():
    t0 = time.monotonic()
    r = dpverify.evalbound(_DEG300, (0, 1), pieces=65536, timeout=T)
    _within(t0)
    assert r.stats["stop"] == "timeout" and len(r.pieces) < 65536


def test_float_error_bound_timeout_covers_both_parts():
    t0 = time.monotonic()
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
