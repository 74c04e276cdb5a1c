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
from dpverify.certify import alternation
from dpverify.constructions import remez as remez_module
from dpverify.constructions.remez import remez
from dpverify.errors import CertificationFailed, TimeLimitExceeded


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

    monkeypatch.setattr(alternation, "certify_minimax", certify)
    with pytest.raises(TimeLimitExceeded):
        dpverify.approx("exp(x)", (-1, 1), "1e-6")
    assert len(tried) == 1  # not moved on to another rtol or degree


def test_other_failure_in_certification_moves_on(monkeypatch: pytest.MonkeyPatch) -> None:
    """The contrast: a failure that is not a time limit is answered by the next degree."""
    real = alternation.certify_minimax
    tried: list[int] = []

    def certify(full: Any, n: int, **kw: Any) -> Any:
        tried.append(n)
        if len(tried) == 1:
            raise CertificationFailed("not certified (injected)")
        return real(full, n, **kw)

    monkeypatch.setattr(alternation, "certify_minimax", certify)
    cert = dpverify.approx("exp(x)", (-1, 1), "1e-6")
    assert len(tried) >= 2 and cert.statement["degree"] >= tried[0]


def test_time_limit_in_the_impossibility_proof_is_a_time_limit(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """max_degree too small: approx proves E_top > gamma; a time limit there must not be
    reported as a plain failure."""
    def late(*args: Any, **kw: Any) -> Any:
        raise TimeLimitExceeded("time limit reached (injected)")

    monkeypatch.setattr(alternation, "alternation_lower_bound", late)
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
