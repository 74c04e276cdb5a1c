"""The fixed-point moment sums are the same integers for every chunk shape and every
split into parts, keep the published accuracy bound, read the data in one pass without a
transposed copy, and stay within the documented working memory.

Independent reference: the exact rational moment sums of the same float64 data
(python-flint ``fmpq``: every float is its exact binary value; ``T_m`` by the exact
three-term recurrence), compared against the a-priori bound ``n moment_error_bound(t, d)``
of :func:`dpverify.mechanisms.moments.moment_error_bound`.
"""

from __future__ import annotations

import itertools
import tracemalloc

import numpy as np
import pytest
from flint import fmpq
from hypothesis import given, settings
from hypothesis import strategies as st

from dpverify.errors import InvalidParameterError
from dpverify.mechanisms import wang_summary as ws
from dpverify.mechanisms.fixed_point import SCALE_BITS


def _exact_sums(X: np.ndarray, t: int) -> dict:
    """``sum_rows prod_i T_{m_i}(x_i)`` exactly (fmpq), for every multi-index ``m``."""
    n, d = X.shape
    tabs = []
    for i in range(n):
        row = []
        for j in range(d):
            c = fmpq(*float(X[i, j]).as_integer_ratio())
            T = [fmpq(1), c]
            for _ in range(2, t):
                T.append(2 * c * T[-1] - T[-2])
            row.append(T[:t])
        tabs.append(row)
    out = {}
    for m in itertools.product(range(t), repeat=d):
        s = fmpq(0)
        for row in tabs:
            v = fmpq(1)
            for j, mj in enumerate(m):
                v *= row[j][mj]
            s += v
        out[m] = s
    return out


@settings(max_examples=25, deadline=None)
@given(d=st.integers(1, 4), t=st.integers(1, 6), n=st.integers(1, 40),
       chunk=st.integers(1, 50), seed=st.integers(0, 2**32 - 1),
       edges=st.booleans())
def test_exact_sums_within_published_bound_for_every_chunk(d, t, n, chunk, seed, edges):
    # law: for every chunk length (a short last chunk included, chunk > n included) the
    # fixed-point sums are the SAME integers, and each is within n * moment_error_bound of
    # the exact sum of the same float64 data; edges: the endpoints -1, 0, 1 where
    # |T_m| = 1 is attained (the clamp)
    g = np.random.default_rng(seed)
    X = g.uniform(-1, 1, (n, d))
    if edges:
        X[g.random((n, d)) < 0.3] = g.choice([-1.0, 0.0, 1.0])
    J = ws.exact_moment_sums(X, t, chunk=chunk)
    assert J.shape == (t,) * d
    assert (J == ws.exact_moment_sums(X, t)).all()
    assert J[(0,) * d] == n * 2**SCALE_BITS  # the count, exactly
    bound = ws.moment_error_bound(t, d) * n
    for m, exact in _exact_sums(X, t).items():
        err = abs(fmpq(int(J[m]), 2**SCALE_BITS) - exact)
        assert err <= bound, (m, float(err), float(bound))


def _exact_sums_1d(x: np.ndarray, t: int) -> list:
    """``sum_rows T_k(x)`` exactly (fmpq) for ``k < t`` (the exact recurrence)."""
    out = [fmpq(0)] * t
    for v in x:
        c = fmpq(*float(v).as_integer_ratio())
        a, b = fmpq(1), c
        for k in range(t):
            out[k] += a
            a, b = b, 2 * c * b - a
    return out


@settings(max_examples=20, deadline=None)
@given(t=st.integers(1, 120), sizes=st.lists(st.integers(1, 25), min_size=1, max_size=4),
       chunk=st.integers(1, 30), seed=st.integers(0, 2**32 - 1), edges=st.booleans())
def test_parts_add_up_exactly(t, sizes, chunk, seed, edges):
    # the parts model dask partitions whose results are added afterwards: the exact sums
    # of the parts add up to the exact sums of the whole, bit for bit, in any order;
    # large t stresses the t^2 term of the bound
    g = np.random.default_rng(seed)
    n = sum(sizes)
    x = g.uniform(-1, 1, n)
    if edges:
        x[g.random(n) < 0.3] = g.choice([-1.0, 0.0, 1.0, np.nextafter(1.0, 0.0)])
    parts, i0 = [], 0
    for sz in sizes:
        parts.append(ws.exact_moment_sums(x[i0:i0 + sz], t, chunk=chunk))
        i0 += sz
    J = parts[-1].copy()
    for p in parts[-2::-1]:
        J = J + p
    assert (J == ws.exact_moment_sums(x[::-1], t)).all()
    bound = ws.moment_error_bound(t, 1) * n
    for k, exact in enumerate(_exact_sums_1d(x, t)):
        err = abs(fmpq(int(J[k]), 2**SCALE_BITS) - exact)
        assert err <= bound, (k, float(err), float(bound))


def test_exact_sums_near_one_at_high_degree():
    # near x = 1 the recurrence error grows like k^2 (the worst case of step 1); t = 400
    # over several chunks, compared with exact rational sums
    x = np.array([np.nextafter(1.0, 0.0), 1 - 2.0**-30, 0.999999, np.cos(np.pi / 7),
                  -np.nextafter(1.0, 0.0), 1.0, -1.0] * 5)
    t = 400
    J = ws.exact_moment_sums(x, t, chunk=4)
    n = len(x)
    bound = ws.moment_error_bound(t, 1) * n
    for k, exact in enumerate(_exact_sums_1d(x, t)):
        assert abs(fmpq(int(J[k]), 2**SCALE_BITS) - exact) <= bound, k


def test_float_sums_are_the_exact_sums_rounded_once():
    X = np.random.default_rng(4).uniform(-1, 1, (50, 2))
    J = ws.exact_moment_sums(X, 5)
    S = ws.moment_sums(X, 5)
    for m in np.ndindex(J.shape):
        assert S[m] == int(J[m]) / 2**SCALE_BITS  # Python's int division rounds correctly


def test_strided_and_fortran_data_give_the_same_sums():
    # the tables read each column straight from the data (no transposed copy): any memory
    # layout of the same values gives bit-identical sums
    g = np.random.default_rng(3)
    X = g.uniform(-1, 1, (301, 3))
    ref = ws.moment_sums(X, 7, chunk=64)
    assert np.array_equal(ws.moment_sums(np.asfortranarray(X), 7, chunk=64), ref)
    wide = np.zeros((301, 6))
    wide[:, ::2] = X
    assert np.array_equal(ws.moment_sums(wide[:, ::2], 7, chunk=64), ref)


@pytest.mark.parametrize("d, t", [(1, 32), (2, 32), (3, 16)])
def test_peak_memory_is_bounded_by_the_chunk_size(d, t):
    # documented bound: twice chunk_bytes (the tables and the exact GEMM's limbs) plus the
    # t^d accumulators (three int64 and a few float64 GEMM blocks of 4 t^d) beyond the
    # data, whatever n, plus numpy's internal ufunc buffers (np.getbufsize() elements
    # each) -- tracemalloc sees all numpy allocations
    chunk_bytes = 1 << 20
    X = np.random.default_rng(d).uniform(-1, 1, (600_000 // d, d))  # 4.8 MB
    tracemalloc.start()
    try:
        base = tracemalloc.get_traced_memory()[0]
        ws.exact_moment_sums(X, t, chunk_bytes=chunk_bytes)
        peak = tracemalloc.get_traced_memory()[1] - base
    finally:
        tracemalloc.stop()
    # the final object array of Python ints: t^d pointers plus the ints (< 100 bytes)
    assert peak <= 2 * chunk_bytes + 16 * 8 * t**d + 100 * t**d + 8 * 8 * np.getbufsize()
    assert peak < X.nbytes  # far below one copy of the data


@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf, 1.0000000000000002, -1.5])
def test_check_data_refuses_non_finite_and_out_of_range(bad):
    X = np.zeros((10, 2))
    X[7, 1] = bad
    with pytest.raises(InvalidParameterError, match=r"\[-1, 1\]"):
        ws.moment_sums(X, 3)
    with pytest.raises(InvalidParameterError):
        ws.check_data([["a", "b"]])


def test_chunk_rows_respects_the_budget():
    for d in (1, 2, 3, 4):
        for t in (2, 8, 32):
            if t**d > ws.MAX_MOMENTS:
                continue
            R = ws.chunk_rows(t, d, 1 << 22)
            if d == 1:  # the table and the 2x buffer
                per_row = 8 * (t + 1)
            else:
                per_row = 8 * (d * t + 1 + (t ** (d - 1) if d > 2 else 0)
                               + (t ** (d - 2) if d > 3 else 0))
            assert R == 64 or R * per_row <= 1 << 22
            assert R <= ws.MAX_CHUNK_ROWS
    assert ws.CHUNK_BYTES <= 256 << 20  # the documented memory ceiling of a chunk: 256 MiB
