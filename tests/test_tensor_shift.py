"""Exact integer tensor Taylor shift (dpverify.exact.tensor_shift) and TensorPoly.taylor_shift.

Expected values never come from the code under test:

* ``reference_shift`` is the previous ``TensorPoly.taylor_shift`` (rational ``fmpq_poly``
  composition ``x -> m + x`` of every fibre, axis by axis), written out here with plain
  loops; the integer method must agree with it exactly, entry by entry;
* the shifted polynomial evaluated at ``t`` equals ``p(m + t)`` (exact evaluation of ``p``
  by :class:`TensorPoly`, an independent algorithm: Horner per axis);
* the tail sum is compared with the direct rational sum over the multi-indices.
"""

from __future__ import annotations

import itertools
import math

import pytest
from flint import fmpq, fmpq_poly, fmpz
from hypothesis import given, settings
from hypothesis import strategies as st

from dpverify.errors import InvalidParameterError
from dpverify.exact import TensorPoly
from dpverify.exact.tensor_shift import (
    IntegerTaylorShift,
    abs_tail_sum,
    low_order_positions,
    shift_axis_int,
)

SETTINGS = settings(deadline=None, max_examples=40, database=None)

rationals = st.builds(fmpq, st.integers(-60, 60), st.integers(1, 30))
shapes = st.lists(st.integers(1, 5), min_size=1, max_size=3).map(tuple)


def reference_shift(flat: list[fmpq], shape: tuple[int, ...], m: list[fmpq]) -> list[fmpq]:
    """The previous TensorPoly.taylor_shift: each fibre along each axis composed with
    ``m_axis + x`` in fmpq_poly arithmetic."""
    out = list(flat)
    for axis, mi in enumerate(m):
        if mi == 0:
            continue
        n = shape[axis]
        stride = math.prod(shape[axis + 1:])
        for base in range(0, len(out), n * stride):
            for inner in range(stride):
                pos = [base + inner + k * stride for k in range(n)]
                c = fmpq_poly([out[p] for p in pos])(fmpq_poly([mi, 1])).coeffs()
                c = list(c) + [fmpq(0)] * (n - len(c))
                for p, v in zip(pos, c):
                    out[p] = fmpq(v)
    return out


@st.composite
def tensor_and_point(draw: st.DrawFn) -> tuple[list[fmpq], tuple[int, ...], list[fmpq]]:
    shape = draw(shapes)
    flat = draw(st.lists(rationals, min_size=math.prod(shape), max_size=math.prod(shape)))
    m = draw(st.lists(rationals, min_size=len(shape), max_size=len(shape)))
    return flat, shape, m


@SETTINGS
@given(data=tensor_and_point())
def test_integer_shift_equals_rational_shift(data) -> None:
    flat, shape, m = data
    sh = IntegerTaylorShift(flat, shape)
    assert sh.coefficients(m) == reference_shift(flat, shape, m)
    # the scaled form decodes to the same coefficients
    g, D, V = sh.scaled(m)
    for c, alpha, e in zip(g, itertools.product(*map(range, shape)),
                           reference_shift(flat, shape, m)):
        assert fmpq(c * math.prod(int(v) ** a for v, a in zip(V, alpha)), D) == e
    # a second call (leading axes from the cache) gives the same result
    assert sh.coefficients(m) == reference_shift(flat, shape, m)


@SETTINGS
@given(data=tensor_and_point(), t=st.lists(rationals, min_size=3, max_size=3))
def test_taylor_shift_is_composition(data, t) -> None:
    flat, shape, m = data
    p = TensorPoly.from_flat(flat, shape)
    q = p.taylor_shift(m)
    tt = t[: len(shape)]
    assert q.basis == "monomial" and q.shape == shape
    assert q(*tt) == p(*[a + b for a, b in zip(m, tt)])
    assert list(q.coeffs) == reference_shift(flat, shape, m)
    assert IntegerTaylorShift(flat, shape).value(m) == p(*m)


@SETTINGS
@given(cs=st.lists(rationals, min_size=6, max_size=6), m=st.lists(rationals, min_size=2,
                                                                    max_size=2),
       basis=st.sampled_from(["chebyshev", "bernstein"]))
def test_taylor_shift_other_bases(cs, m, basis) -> None:
    p = TensorPoly.from_flat(cs, (2, 3), basis=basis, domains=[(fmpq(-1, 3), 2), (0, 5)])
    mono = p.to_monomial()
    assert list(p.taylor_shift(m).coeffs) == reference_shift(list(mono.coeffs), (2, 3), m)


def test_many_centres_share_the_cache() -> None:
    # the centres of a bisection of [0, 1]^2: shared leading coordinates, cache reused
    flat = [fmpq(i * i - 7, i + 1) for i in range(20)]
    shape = (4, 5)
    sh = IntegerTaylorShift(flat, shape)
    for i, j in itertools.product(range(9), range(9)):
        m = [fmpq(2 * i + 1, 18), fmpq(2 * j + 1, 16)]
        assert sh.coefficients(m) == reference_shift(flat, shape, m)


def test_shift_axis_zero_is_identity() -> None:
    flat = [fmpz(k) for k in range(6)]
    assert shift_axis_int(flat, (2, 3), 1, fmpz(0)) is flat
    # (1 + x) on the fibres [0, 1, 2] and [3, 4, 5] of axis 1: 0 + (1+x) + 2(1+x)^2
    assert shift_axis_int(flat, (2, 3), 1, fmpz(1)) == [3, 5, 2, 12, 14, 5]


@SETTINGS
@given(data=tensor_and_point(), N=st.integers(0, 8),
       r=st.lists(st.builds(fmpq, st.integers(0, 40), st.integers(1, 30)), min_size=3,
                  max_size=3))
def test_abs_tail_sum(data, N, r) -> None:
    flat, shape, _ = data
    den = fmpz(1)
    for c in flat:
        den = den * c.q // math.gcd(int(den), int(c.q))
    nums = [fmpz(c.p) * (den // c.q) for c in flat]
    rr = r[: len(shape)]
    expected = fmpq(0)
    for c, alpha in zip(flat, itertools.product(*map(range, shape))):
        if sum(alpha) > N:
            expected += abs(c) * math.prod((x ** a for x, a in zip(rr, alpha)), start=fmpq(1))
    assert abs_tail_sum(nums, den, rr, shape, N) == expected
    low = low_order_positions(N, shape)
    assert [i for i, a in enumerate(itertools.product(*map(range, shape)))
            if sum(a) <= N] == list(low)


def test_invalid_shapes() -> None:
    with pytest.raises(InvalidParameterError, match="shape"):
        IntegerTaylorShift([fmpq(1)], ())
    with pytest.raises(InvalidParameterError, match="coeffs"):
        IntegerTaylorShift([fmpq(1)], (2,))
    with pytest.raises(InvalidParameterError, match="m must"):
        IntegerTaylorShift([fmpq(1), fmpq(2)], (2,)).scaled([fmpq(1), fmpq(2)])
    with pytest.raises(InvalidParameterError, match="shape"):
        shift_axis_int([fmpz(1)], (2,), 0, fmpz(1))
    with pytest.raises(InvalidParameterError, match="shape"):
        abs_tail_sum([fmpz(1)], fmpz(1), [fmpq(1)], (), 0)
    with pytest.raises(InvalidParameterError, match=">= 0"):
        abs_tail_sum([fmpz(1), fmpz(2)], fmpz(1), [fmpq(-1)], (2,), 0)


@SETTINGS
@given(data=tensor_and_point(), N=st.integers(0, 8))
def test_abs_tail_sum_unit_half_widths(data, N) -> None:
    # r = (1, ..., 1) takes the plain integer sum: compared with the direct rational sum
    flat, shape, _ = data
    den = fmpz(1)
    for c in flat:
        den = den * c.q // math.gcd(int(den), int(c.q))
    nums = [fmpz(c.p) * (den // c.q) for c in flat]
    expected = sum((abs(c) for c, alpha in zip(flat, itertools.product(*map(range, shape)))
                    if sum(alpha) > N), fmpq(0))
    assert abs_tail_sum(nums, den, [fmpq(1)] * len(shape), shape, N) == expected
