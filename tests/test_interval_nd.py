"""Box certifier in two and three variables (dpverify.certify.interval, d >= 2, with the piece
bounds of dpverify.certify.piece_bounds): the exact Taylor shift of p and the exact tail sum
over |a| > N (dpverify.exact.tensor_shift) and the jets, checked through sup norms known in
closed form.

Each case takes ``f = q + e`` with ``q`` a polynomial and ``p = q`` exactly, so that
``f - p = e`` with ``sup |e|`` derived by hand; ``q`` has total degree above the Taylor order
(12 for two variables, 8 for three), so the tail sum and every shifted coefficient of ``p``
enter the bound.  A wrong shift or a wrong scaling makes the enclosure miss the value.
"""

from __future__ import annotations

import math

import pytest
from flint import fmpq

from dpverify.certify import supnorm
from dpverify.exact import TensorPoly


def _tensor(terms: dict[tuple[int, ...], fmpq], shape: list[int]) -> TensorPoly:
    flat = [fmpq(0)] * math.prod(shape)
    for alpha, c in terms.items():
        idx = 0
        for a, n in zip(alpha, shape):
            idx = idx * n + a
        flat[idx] += c
    return TensorPoly.from_flat(flat, shape, basis="monomial")


Q2 = {(7, 7): fmpq(1), (3, 9): fmpq(1, 5), (9, 0): fmpq(-2, 3), (1, 1): fmpq(3, 7)}
Q2_TEXT = "x^7*y^7 + x^3*y^9/5 - 2*x^9/3 + 3*x*y/7"


@pytest.mark.parametrize("box", [
    [(-1, 1), (-1, 1)],
    [(fmpq(1, 3), fmpq(2, 3)), (fmpq(-1, 7), fmpq(2, 5))],  # non-dyadic centres
])
def test_constant_error_two_variables(box):
    # f - p = 1/1000 everywhere: sup = 1/1000 exactly
    c = fmpq(1, 1000)
    p = _tensor(Q2, [10, 10])
    res = supnorm(f"{Q2_TEXT} + 1/1000", p, box, rtol="1e-6", max_pieces=4000)
    assert res.converged
    assert res.lower <= c <= res.upper
    assert res.upper <= c * (1 + fmpq(1, 10**6))
    assert max(res.stats["orders"]) > 0  # Taylor models, not the order-0 fallback


def test_linear_error_two_variables_non_dyadic_box():
    # f - p = (x - 2y)/3 on [1/3, 2/3] x [-1/7, 2/5]: max |.| at (2/3, -1/7) = (2/3 + 2/7)/3
    box = [(fmpq(1, 3), fmpq(2, 3)), (fmpq(-1, 7), fmpq(2, 5))]
    exact = (fmpq(2, 3) + fmpq(2, 7)) / 3
    # the other corner: |1/3 - 4/5| / 3 = 7/45 < exact
    assert abs(fmpq(1, 3) - fmpq(4, 5)) / 3 < exact
    p = _tensor(Q2, [10, 10])
    res = supnorm(f"{Q2_TEXT} + (x - 2*y)/3", p, box, rtol="1e-5", max_pieces=4000)
    assert res.converged
    assert res.lower <= exact <= res.upper
    assert res.upper - res.lower <= exact * fmpq(1, 10**5)


Q3 = {(3, 3, 3): fmpq(1), (0, 5, 2): fmpq(-1, 3), (4, 0, 4): fmpq(2, 9)}
Q3_TEXT = "(x*y*z)^3 - y^5*z^2/3 + 2*x^4*z^4/9"


def test_three_variables_exact_sup():
    # f - p = (x + y + z)/8 on [-1, 1]^3: sup = 3/8 at the corners (1,1,1) and (-1,-1,-1)
    p = _tensor(Q3, [5, 6, 5])
    res = supnorm(f"{Q3_TEXT} + (x + y + z)/8", p, [(-1, 1)] * 3, rtol="1e-3", max_pieces=4000)
    assert res.converged
    assert res.lower <= fmpq(3, 8) <= res.upper
    assert res.upper <= fmpq(3, 8) * (1 + fmpq(1, 1000))


def test_three_variables_constant_error_shifted_box():
    c = fmpq(-5, 7)
    p = _tensor(Q3, [5, 6, 5])
    box = [(fmpq(-1, 3), fmpq(1, 2)), (fmpq(1, 5), fmpq(1, 1)), (fmpq(-3, 4), fmpq(-1, 9))]
    res = supnorm(f"{Q3_TEXT} - 5/7", p, box, rtol="1e-6", max_pieces=4000)
    assert res.converged
    assert res.lower <= -c <= res.upper <= -c * (1 + fmpq(1, 10**6))


def test_function_of_one_variable_in_three_is_cut_along_that_variable_only(tmp_path):
    # erf(x) on [-1, 1]^3: f - p is constant in y and z, so cutting along them cannot help;
    # the certifier and the independent checker both cut along x only (it once stalled at
    # relative width 6e-3 after 25 s, 8x the pieces per level)
    import json

    from dpverify.cli import main
    from dpverify.verify import verify_file

    out = tmp_path / "j3.json"
    assert main(["jackson-approx", "--f", "erf(x)", "--t", "8", "--K", "2", "--dim", "3",
                 "--timeout", "60", "--out", str(out)]) == 0
    from fractions import Fraction

    pieces = json.loads(out.read_text())["evidence"]["pieces"]

    def width(iv):
        return Fraction(iv[1]) - Fraction(iv[0])

    # the initial split halves every axis; after it only x is ever cut
    assert all(width(box[1]) == 1 and width(box[2]) == 1 for box, _o, _p in pieces)
    assert min(width(box[0]) for box, _o, _p in pieces) < Fraction(1, 8)
    assert verify_file(str(out)).ok


def test_function_of_fewer_variables_than_the_box():
    # f = exp(x) given without y, p = x + y on [0, 1]^2: e^x - x - y is largest at (1, 0),
    # e - 1; as an Expr of x alone it is still a function on the box (of x, y in order)
    p = _tensor({(1, 0): fmpq(1), (0, 1): fmpq(1)}, [2, 2])
    res = supnorm("exp(x)", p, [(0, 1), (0, 1)], rtol="1e-4")
    e_minus_1 = fmpq(171828182845904523536, 10**20)  # e - 1 to 20 digits (below it)
    assert res.converged and res.lower <= e_minus_1 + fmpq(1, 10**19) <= res.upper
