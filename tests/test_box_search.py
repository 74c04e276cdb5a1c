"""Float search for large |f - p| on a box (dpverify.certify.box_search) and its use by the box
branch and bound: the points it proposes are exact, inside the box, and (through their
certified values) raise the certified lower bound to the maximum.

The maximum is known in closed form: ``f - p = 1/4 - ((x - 1/3)^2 + (y + 1/5)^2) / 16`` lies in
[1/4 - (16/9 + 36/25)/16, 1/4] > 0 on [-1, 1]^2, so ``sup |f - p| = 1/4``, attained only at
(1/3, -1/5), away from every piece centre and corner of a bisection (1/3 is not dyadic).
"""

from __future__ import annotations

import numpy as np
from flint import fmpq

from dpverify.certify import supnorm
from dpverify.certify.box_search import float_error, grid_candidates, polish, to_dyadic
from dpverify.exact import TensorPoly
from dpverify.expr import parse

# p = x^2 + y^2 (monomial) and f = p + 1/4 - ((x - 1/3)^2 + (y + 1/5)^2) / 16
P = TensorPoly([[0, 0, 1], [0, 0, 0], [1, 0, 0]])
F = parse("x^2 + y^2 + 1/4 - ((x - 1/3)^2 + (y + 1/5)^2)/16", variables=("x", "y"))
BOX = [(-1.0, 1.0), (-1.0, 1.0)]


def test_float_error_matches_exact_values():
    err = float_error(F, P)
    assert err is not None
    pts = np.array([[0.1, -0.3], [1.0, 1.0], [-1.0, 0.5]])
    for (x, y), v in zip(pts, err(pts)):
        exact = 0.25 - ((x - 1 / 3) ** 2 + (y + 0.2) ** 2) / 16
        assert abs(v - exact) < 1e-12


def test_float_error_chebyshev_and_bernstein_bases():
    # the same polynomial x^2 + y^2 in the Chebyshev basis on [-1, 1]^2: (T0 + T2)/2 per axis
    cheb = TensorPoly([[1, 0, fmpq(1, 2)], [0, 0, 0], [fmpq(1, 2), 0, 0]], basis="chebyshev")
    # any Bernstein polynomial: compared with its exact evaluation by TensorPoly
    bern = TensorPoly([[2, 1, 2], [1, 0, 1], [2, 1, 2]], basis="bernstein",
                      domains=[(-1, 1), (-1, 1)])
    pts = np.array([[0.3, -0.7], [0.0, 0.0]])
    target = parse("x^2 + y^2", variables=("x", "y"))
    e_cheb = float_error(target, cheb)
    assert e_cheb is not None and np.all(np.abs(e_cheb(pts)) < 1e-12)
    e_bern = float_error(target, bern)
    assert e_bern is not None
    exact = np.array([float(bern(fmpq(3, 10), fmpq(-7, 10))), float(bern(0, 0))])
    assert np.allclose(pts[:, 0] ** 2 + pts[:, 1] ** 2 - exact, e_bern(pts), atol=1e-12)


def test_grid_and_polish_find_the_maximum():
    err = float_error(F, P)
    assert err is not None
    starts = grid_candidates(err, BOX, 3, 21)
    assert starts and all(-1 <= x <= 1 for s in starts for x in s)
    x = polish(err, starts[0], BOX)
    assert np.allclose(x, [1 / 3, -0.2], atol=1e-5)
    q = to_dyadic(x, [(fmpq(-1), fmpq(1))] * 2)
    assert all(c.q & (c.q - 1) == 0 for c in q)  # dyadic
    assert abs(float(q[0]) - 1 / 3) < 1e-5


def test_to_dyadic_clamps_into_the_box():
    box = [(fmpq(0), fmpq(1, 3)), (fmpq(-1), fmpq(1))]
    q = to_dyadic(np.array([0.5, -3.0]), box)
    assert q == (fmpq(1, 3), fmpq(-1))


def test_certified_lower_bound_reaches_the_maximum():
    res = supnorm(F, P, [(-1, 1), (-1, 1)], rtol="1e-6")
    # the witness is a dyadic point near (1/3, -1/5) certified in ball arithmetic
    assert res.lower <= fmpq(1, 4) <= res.upper
    assert res.lower > fmpq(1, 4) * (1 - fmpq(1, 10**8))
    assert res.converged
