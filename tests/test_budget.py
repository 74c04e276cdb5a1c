"""Time and memory budgets that hold inside single FLINT calls (dpverify.budget): the cost
of an exact composition, Taylor shift or basis conversion is estimated before the call and
the call refused past the time left or the memory budget; loops check the deadline."""

from __future__ import annotations

import time

import pytest
from flint import fmpq, fmpq_poly

from dpverify import budget
from dpverify.errors import InvalidParameterError, MemoryLimitExceeded, TimeLimitExceeded
from dpverify.exact import ChebyshevPoly, MonomialPoly
from dpverify.exact.sizes import common_denominator, poly_of
from dpverify.progress import report


def test_limits_nest_and_only_narrow():
    assert budget.current().deadline is None
    with budget.limits(timeout=100, max_memory=2**30) as outer:
        with budget.limits(timeout=1000, max_memory=2**40) as inner:
            # a looser inner limit keeps the outer one
            assert inner.deadline == outer.deadline and inner.max_memory == 2**30
        with budget.limits(timeout=1) as tight:
            assert tight.deadline < outer.deadline and tight.timeout == 1
        assert budget.current() == outer
    assert budget.current().deadline is None


def test_checkpoint_and_report_raise_past_the_deadline():
    budget.checkpoint()  # no budget: nothing to check
    with budget.limits(timeout=0.05):
        budget.checkpoint("work")
        time.sleep(0.06)
        with pytest.raises(TimeLimitExceeded, match="time limit of 0.05 s reached during work"):
            budget.checkpoint("work")
        # every progress report is a checkpoint (even without a callback)
        with pytest.raises(TimeLimitExceeded, match="during pieces"):
            report(None, "pieces", 3)


def test_check_cost_refuses_time_and_memory():
    with budget.limits(timeout=10, max_memory=2**30):
        budget.check_cost("small", seconds=0.001, memory=1000)
        with pytest.raises(TimeLimitExceeded, match="big is too expensive: about 20 s"):
            budget.check_cost("big", seconds=20, memory=1000)
        with pytest.raises(MemoryLimitExceeded, match="huge is too expensive: about 4.0 GB"):
            budget.check_cost("huge", seconds=0.5, memory=4 * 2**30)


@pytest.mark.parametrize("text, expected", [
    ("1000000000", 10**9), ("512M", 512 * 2**20), ("4G", 4 * 2**30), ("1.5GiB", 3 * 2**29),
    ("2tb", 2 * 2**40), (" 64 MB ", 64 * 2**20)])
def test_parse_memory(text, expected):
    assert budget.parse_memory(text) == expected


@pytest.mark.parametrize("text", ["", "4X", "-1G", "1e9", "0%", "101%", "10", "nan", "1G1"])
def test_parse_memory_refuses(text):
    with pytest.raises(InvalidParameterError, match="--max-memory"):
        budget.parse_memory(text)


def test_parse_memory_share_of_the_machine():
    total = budget.machine_memory()
    if total is None:
        pytest.skip("machine memory unknown here")
    assert budget.parse_memory("50%") == total // 2
    assert budget.default_max_memory() == int(total * budget.DEFAULT_MEMORY_FRACTION)


@pytest.mark.parametrize("bad", [True, False, 0, -1, -0.5, float("nan"), float("inf"),
                                 10**400, "abc", "1e10", [1]])
def test_check_timeout_refuses(bad):
    with pytest.raises((InvalidParameterError, TypeError)):
        budget.check_timeout(bad)


def test_check_timeout_reads_exact_numbers():
    assert budget.check_timeout(None) is None
    assert budget.check_timeout("1/4") == 0.25
    assert budget.check_timeout(3) == 3.0
    assert budget.after(10) == pytest.approx(11.0)


def test_compose_cost_model_bounds_the_real_size():
    """The model's output size is an upper bound of the true one (within a factor 2 here,
    so it refuses little that would fit): P(x + 1/2) for P = sum x^i, degree 2000."""
    n = 2000
    P = fmpq_poly([1] * (n + 1))
    Q = P(fmpq_poly([fmpq(1, 2), 1]))
    true_bits = sum(int(c).bit_length() for c in Q.numer().coeffs()) + \
        int(Q.denom().bit_length())
    _seconds, memory = budget.compose_cost(n, budget.poly_size(P)[1], fmpq(1), fmpq(1, 2))
    model_bits = memory / budget.COMPOSE_MEMORY
    assert true_bits <= model_bits <= 2 * true_bits


def test_poly_of_equals_fmpq_poly_of_the_list():
    cs = [fmpq(i % 7 - 3, 1 + i % 11) for i in range(300)] + [fmpq(5, 7 ** 20)]
    assert poly_of(cs) == fmpq_poly(cs)
    assert common_denominator(cs) == fmpq_poly(cs).denom()
    assert poly_of([fmpq(0)] * 100) == fmpq_poly([])


def test_poly_of_refuses_past_the_memory_budget():
    # 1000 coefficients with distinct 64-bit prime-ish denominators: the common
    # denominator has ~64000 bits, so the polynomial needs ~1000 * 128000 bits = 16 MB
    cs = [fmpq(1, 2**64 + 2 * i + 1) for i in range(1000)]
    with budget.limits(max_memory=2**20):
        with pytest.raises(MemoryLimitExceeded, match="1000 coefficients"):
            poly_of(cs)


def test_taylor_shift_of_a_huge_degree_is_refused_at_once():
    """The case that took 37.6 s and 2.1 GB under `--timeout 10` (degree 50000): refused
    before the FLINT call, in well under a second."""
    from dpverify.certify.taylor_model import taylor_shift

    P = fmpq_poly([1] * 50001)
    t0 = time.monotonic()
    with budget.limits(timeout=5):
        with pytest.raises(TimeLimitExceeded, match="degree-50000"):
            taylor_shift(P, fmpq(1, 2))
    assert time.monotonic() - t0 < 1


def test_chebyshev_conversion_is_refused_or_stopped():
    p = ChebyshevPoly([1] * 20001)
    t0 = time.monotonic()
    with budget.limits(timeout=1):
        with pytest.raises(TimeLimitExceeded, match="Chebyshev to the monomial basis"):
            p.to_monomial()
    assert time.monotonic() - t0 < 1


def test_monomial_lowest_terms_reduction_checks_the_deadline():
    """Reducing every coefficient to lowest terms was one FLINT call (10 s at degree 3800
    with 76000-bit denominators, past any deadline); it is now done one coefficient at a
    time when the coefficients are first read (MonomialPoly.from_fmpq_poly keeps the
    common-denominator form), and it stops at the deadline."""
    P = fmpq_poly([1] * 200) / 3**400
    assert MonomialPoly.from_fmpq_poly(P).as_fmpq_poly() == P
    with budget.limits(timeout=0.01):
        time.sleep(0.02)
        lazy = MonomialPoly.from_fmpq_poly(P)  # no reduction yet: nothing to stop
        with pytest.raises(TimeLimitExceeded, match="lowest terms"):
            _ = lazy.coeffs
