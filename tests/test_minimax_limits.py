"""Time limits end ``approx`` and the Remez search; hostile arguments get one clear error.

A time limit reached anywhere in ``approx`` (a probe of the search, the certification of
a degree, the proof that no degree reaches gamma) must end the call with
``TimeLimitExceeded``: ``TimeLimitExceeded`` is a ``CertificationFailed``, which
``approx`` otherwise answers by trying the next degree.  The searches below are wrappers
around the real Remez search that raise at a chosen degree, so each test fails if the
exception is swallowed.
"""

from __future__ import annotations

from typing import Any

import pytest

import dpverify
from dpverify import cli
from dpverify.certify import alternation, least_degree
from dpverify.constructions import remez as remez_module
from dpverify.constructions.remez import remez
from dpverify.errors import CertificationFailed, InvalidParameterError, TimeLimitExceeded
from dpverify.numbers import parse_exact


def _search_failing_at(degree: int, calls: list[int]) -> Any:
    def search(f: Any, n: int, interval: Any, **kw: Any) -> Any:
        calls.append(n)
        if n == degree:
            raise TimeLimitExceeded(f"time limit reached in the fake search at degree {n}")
        return remez(f, n, interval, **kw)
    return search


def test_time_limit_in_a_probe_ends_approx() -> None:
    calls: list[int] = []
    # E_n(exp) drops below 1e-6 at n = 7 (1.9e-7): the probes double 0, 1, 2, 4, 8
    with pytest.raises(TimeLimitExceeded, match="degree 4"):
        dpverify.approx("exp(x)", (-1, 1), "1e-6", search=_search_failing_at(4, calls))
    assert calls[-1] == 4


def test_time_limit_in_certification_ends_approx(monkeypatch: pytest.MonkeyPatch) -> None:
    tried: list[int] = []

    def certify(full: Any, n: int, **kw: Any) -> Any:
        tried.append(n)
        raise TimeLimitExceeded("time limit reached while bounding sup |f - p|")

    monkeypatch.setattr(least_degree, "certify_minimax", certify)
    with pytest.raises(TimeLimitExceeded):
        dpverify.approx("exp(x)", (-1, 1), "1e-6")
    assert len(tried) == 1  # not moved on to another rtol or degree


def test_other_failure_in_certification_moves_on(monkeypatch: pytest.MonkeyPatch) -> None:
    """The contrast: a failure that is not a time limit is answered by the next degree."""
    real = least_degree.certify_minimax
    tried: list[int] = []

    def certify(full: Any, n: int, **kw: Any) -> Any:
        tried.append(n)
        if len(tried) == 1:
            raise CertificationFailed("not certified (injected)")
        return real(full, n, **kw)

    monkeypatch.setattr(least_degree, "certify_minimax", certify)
    cert = dpverify.approx("exp(x)", (-1, 1), "1e-6")
    assert len(tried) >= 2 and cert.statement["degree"] >= tried[0]


def test_time_limit_in_the_impossibility_proof_is_a_time_limit(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """max_degree too small: approx proves E_top > gamma; a time limit there must not be
    reported as a plain failure."""
    def late(*args: Any, **kw: Any) -> Any:
        raise TimeLimitExceeded("time limit reached (injected)")

    monkeypatch.setattr(least_degree, "alternation_lower_bound", late)
    with pytest.raises(TimeLimitExceeded, match="not proven: time limit"):
        dpverify.approx("exp(x)", (-1, 1), "1e-12", max_degree=3)


def test_time_limit_in_the_least_degree_proof_is_said(monkeypatch: pytest.MonkeyPatch) -> None:
    real = alternation.alternation_lower_bound

    def late_below(f: Any, poly: Any, pts: Any, ab: Any, n: int, **kw: Any) -> Any:
        if n == 6:  # degree 7 certifies 1e-6; the proof for degree 6 runs out of time
            raise TimeLimitExceeded("time limit reached (injected)")
        return real(f, poly, pts, ab, n, **kw)

    monkeypatch.setattr(alternation, "alternation_lower_bound", late_below)
    cert = dpverify.approx("exp(x)", (-1, 1), "1e-6")
    assert cert.statement["degree"] == 7 and "least_degree" not in cert.statement
    assert "time limit" in cert.info["unproven_claims"]["least_degree"]["reason"]


def test_float_search_out_of_time_is_not_retried(monkeypatch: pytest.MonkeyPatch) -> None:
    """The float64 search falls back to 64-bit balls on an ArithmeticError (a range
    problem); TimeLimitExceeded is one too, and must not be retried."""
    calls: list[Any] = []

    def exchange(*args: Any, **kw: Any) -> Any:
        calls.append(kw.get("stage"))
        raise TimeLimitExceeded("time limit reached (injected)")

    monkeypatch.setattr(remez_module, "exchange_search", exchange)
    with pytest.raises(TimeLimitExceeded):
        remez("abs(x)", 20, (-1, 1))
    assert len(calls) == 1


def test_values_beyond_the_number_range_name_the_interval(
        capsys: pytest.CaptureFixture[str]) -> None:
    """exp(x) on [-1e6, 1e6] reaches 10^434294: the search refuses it in one line naming
    the interval (before: an arb message about a ball beyond 2^131072)."""
    with pytest.raises(InvalidParameterError, match=r"interval \[-1e6, 1e6\] is too wide "
                       r"for f = exp\(x\).*10\^4341"):
        dpverify.minimax("exp(x)", 10, (-10**6, 10**6))
    with pytest.raises(InvalidParameterError, match="too wide"):
        dpverify.approx("exp(x)", (-10**6, 10**6), "1e-3")
    assert cli.main(["minimax", "--f", "exp(x)", "--degree", "10", "--interval", "-1e6",
                     "1e6"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "--interval" not in err[0] and "too wide" in err[0]


def test_certifier_names_the_interval_too(monkeypatch: pytest.MonkeyPatch) -> None:
    """The certifier's own guard, for a search that does not check the range."""
    monkeypatch.setattr(remez_module, "check_range", lambda *args: None)
    with pytest.raises(InvalidParameterError, match=r"interval .* is too wide for f = "
                       r"exp\(x\): f - p takes values beyond 2\^131072"):
        dpverify.minimax("exp(x)", 10, (-10**6, 10**6))


def test_wide_interval_of_a_bounded_function_ends() -> None:
    """sin(x) on [-1e6, 1e6] at degree 3: E_3 is about 1; the pieces whose Taylor bound
    explodes are bounded by interval evaluation instead of being bisected for minutes."""
    cert = dpverify.minimax("sin(x)", 3, (-10**6, 10**6), timeout=60)
    lo, up = (parse_exact(cert.statement["error"][k]) for k in ("lower", "upper"))
    assert lo <= 1 <= up <= 2
    assert cert.check().status == "holds"
