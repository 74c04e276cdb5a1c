"""Bernstein range of a Taylor-model polynomial over a box (dpverify.certify.model_range) and
the checker's own version (dpverify.verify.box_model).

Expected values never come from the code under test:

* the Bernstein matrix is checked by evaluating both sides of
  ``(2u - 1)^a = sum_j beta[j][a] C(n, j) u^j (1 - u)^(n - j)`` exactly at rational points;
* enclosures are checked against exact values of the polynomial at exact points of the box
  (corners, centre, random rational points) and against ranges known in closed form
  (a linear polynomial: exact at the corners; ``h^2`` on ``[-r, r]``: ``[0, r^2]``).
"""

from __future__ import annotations

import itertools
import math
import random

import pytest
from flint import arb, ctx, fmpq

from dpverify.certify.model_range import bernstein_matrix, bernstein_range
from dpverify.errors import InvalidParameterError


@pytest.mark.parametrize("n", [0, 1, 2, 5, 8])
def test_bernstein_matrix_reproduces_powers(n):
    beta = bernstein_matrix(n)
    for u in (fmpq(0), fmpq(1), fmpq(1, 3), fmpq(7, 11), fmpq(-2, 5)):
        for a in range(n + 1):
            lhs = (2 * u - 1) ** a
            rhs = sum((beta[j][a] * math.comb(n, j) * u**j * (1 - u) ** (n - j)
                       for j in range(n + 1)), fmpq(0))
            assert lhs == rhs


def _value(terms, h):
    return sum((c * math.prod((x**a for x, a in zip(h, al)), start=fmpq(1))
                for al, c in terms), fmpq(0))


@pytest.mark.parametrize("d,n", [(2, 4), (2, 12), (3, 6), (3, 8)])
def test_bernstein_range_encloses_exact_values(d, n):
    rng = random.Random(1000 * d + n)
    r = [fmpq(1, 2 ** rng.randint(1, 5)) for _ in range(d)]
    terms = []
    for al in itertools.product(range(n + 1), repeat=d):
        if sum(al) <= n and rng.random() < 0.5:
            terms.append((al, fmpq(rng.randint(-1000, 1000), rng.randint(1, 300))))
    with ctx.workprec(64):
        lo, hi = bernstein_range([(al, arb(c)) for al, c in terms], n, r)
    assert lo.is_finite() and hi.is_finite()
    points = list(itertools.product(*[(-x, fmpq(0), x) for x in r]))
    points += [tuple(fmpq(rng.randint(-1000, 1000), 1000) * x for x in r) for _ in range(40)]
    for h in points:
        v = arb(_value(terms, h))
        assert not (v < lo) and not (v > hi)


def test_bernstein_range_is_exact_for_linear_and_square():
    r = [fmpq(1, 4), fmpq(1, 8)]
    # 3 + 2 h1 - 5 h2: range [3 - 1/2 - 5/8, 3 + 1/2 + 5/8] (corners)
    lo, hi = bernstein_range([((0, 0), arb(3)), ((1, 0), arb(2)), ((0, 1), arb(-5))], 3, r)
    assert lo.contains(fmpq(3) - fmpq(1, 2) - fmpq(5, 8))
    assert hi.contains(fmpq(3) + fmpq(1, 2) + fmpq(5, 8))
    # h1^2 on [-1/4, 1/4] has range [0, 1/16]; in degree 2 its Bernstein coefficients are
    # (2u - 1)^2 r^2 -> r^2 (1, -1, 1): the enclosure [-1/16, 1/16]; a higher degree moves
    # the lower end towards 0 (degree elevation)
    lo2, hi2 = bernstein_range([((2, 0), arb(1))], 2, r)
    assert hi2.contains(fmpq(1, 16))
    lo8, _ = bernstein_range([((2, 0), arb(1))], 8, r)
    assert lo2.upper() < lo8.lower() <= 0


def test_bernstein_range_with_ball_coefficients():
    # coefficient balls: the enclosure holds for every choice inside them
    r = [fmpq(1, 2), fmpq(1, 2)]
    c = arb(1, 0.25)  # [0.75, 1.25]
    lo, hi = bernstein_range([((1, 1), c), ((0, 0), arb(0))], 2, r)
    for coef in (fmpq(3, 4), fmpq(5, 4)):
        for h in itertools.product((-r[0], r[0]), (-r[1], r[1])):
            v = arb(coef * h[0] * h[1])
            assert not (v < lo) and not (v > hi)


def test_bernstein_range_rejects_bad_input():
    with pytest.raises(InvalidParameterError):
        bernstein_range([((3, 0), arb(1))], 2, [fmpq(1), fmpq(1)])
    with pytest.raises(InvalidParameterError):
        bernstein_range([((0, 0), arb(1))], 2, [fmpq(-1), fmpq(1)])
    with pytest.raises(InvalidParameterError):
        bernstein_range([((0,), arb(1))], 2, [fmpq(1), fmpq(1)])
