"""numpy.polynomial objects in and out of dpverify.  The reference for the
exact conversion is an independent evaluation: numpy's definition ``sum c_n B_n(off + scl x)``
computed here in exact rationals with the three-term recurrence (Chebyshev) or powers
(Polynomial), with ``off, scl`` derived by hand from domain and window."""

from __future__ import annotations

import numpy as np
import pytest
from flint import fmpq
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.polynomial import Chebyshev, Legendre, Polynomial

from dpverify.errors import InvalidParameterError, ParameterTypeError
from dpverify.exact import ChebyshevPoly, MonomialPoly, as_poly, from_numpy, to_numpy
from dpverify.numbers import to_fmpq

floats = st.floats(-100, 100, allow_nan=False, allow_infinity=False, width=64)
ends = st.tuples(st.integers(-8, 8), st.integers(-8, 8)).filter(lambda t: t[0] != t[1])


def numpy_definition(obj, x: fmpq) -> fmpq:
    """sum c_n B_n(off + scl x), exactly, straight from numpy's documented semantics."""
    (d0, d1), (w0, w1) = ([to_fmpq(float(v)) for v in obj.domain],
                          [to_fmpq(float(v)) for v in obj.window])
    scl = (w1 - w0) / (d1 - d0)
    u = w0 + scl * (x - d0)
    cs = [to_fmpq(float(c)) for c in obj.coef]
    if isinstance(obj, Polynomial):
        return sum((c * u**n for n, c in enumerate(cs)), fmpq(0))
    t_prev, t = fmpq(1), u
    total = cs[0]
    for n in range(1, len(cs)):
        total += cs[n] * t
        t_prev, t = t, 2 * u * t - t_prev
    return total


@settings(deadline=None, max_examples=80)
@given(cs=st.lists(floats, min_size=1, max_size=7), dom=ends, win=ends,
       kind=st.sampled_from([Polynomial, Chebyshev]), xn=st.integers(-50, 50))
def test_from_numpy_is_exactly_numpys_function(cs, dom, win, kind, xn):
    obj = kind(cs, domain=list(dom), window=list(win))
    p = from_numpy(obj)
    x = fmpq(xn, 7)
    assert p(x) == numpy_definition(obj, x)
    # and numpy's own float evaluation agrees to rounding
    assert float(p(x)) == pytest.approx(obj(xn / 7), rel=1e-9, abs=1e-6 * (1 + max(
        abs(c) for c in cs)) * 10 ** len(cs))


def test_chebyshev_constructor_keeps_the_domain():
    # the defect of the issue: the domain [0, 1] was silently dropped
    p = ChebyshevPoly(Chebyshev([1, 2, 3], domain=[0, 1]))
    assert p.domain == (0, 1) and p.coeffs == (1, 2, 3)
    assert p(fmpq(1, 4)) == numpy_definition(Chebyshev([1, 2, 3], domain=[0, 1]), fmpq(1, 4))
    with pytest.raises(InvalidParameterError, match="contradicts"):
        ChebyshevPoly(Chebyshev([1, 2], domain=[0, 1]), domain=(0, 2))
    with pytest.raises(ParameterTypeError, match="as_poly"):
        MonomialPoly(Chebyshev([1, 2]))
    with pytest.raises(ParameterTypeError, match="Legendre"):
        as_poly(Legendre([1, 2]))


def test_to_numpy_round_trip_and_float_evaluation():
    p = ChebyshevPoly(["1/2", "-3/4", "5/8"], domain=("-1/2", 2))   # binary fractions
    q = to_numpy(p)
    assert isinstance(q, Chebyshev)
    assert from_numpy(q) == p                                     # exact round trip
    xs = np.linspace(-0.5, 2, 9)
    exact = [float(p(to_fmpq(float(x)))) for x in xs]
    assert np.allclose(q(xs), exact, rtol=1e-14, atol=1e-14)
    m = MonomialPoly(["1/3", 2])
    assert isinstance(to_numpy(m), Polynomial)
    assert to_numpy(m).coef[0] == 1 / 3                            # nearest float64


def test_as_poly_accepts_sequences_and_refuses_junk():
    assert as_poly([1, "1/2", 0.25]).coeffs == (1, fmpq(1, 2), fmpq(1, 4))
    assert as_poly(np.array([0.5, 1.0])).coeffs == (fmpq(1, 2), 1)
    for bad in ("1,2", 3, None):
        with pytest.raises(ParameterTypeError):
            as_poly(bad)
