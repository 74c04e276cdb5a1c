"""Exhaustive reach of dpverify.minimax / dpverify.approx (slow set: ``pytest -m slow``).

The targets: every degree 1..30 of ``exp`` on ``[-1, 1]``, ``|x|`` on ``[-1, 1]`` up to
degree 512 and ``sqrt(x)`` on ``[0, 1]`` up to 256 certified with ``upper/lower <= 1 +
1e-6``, checked by the independent verifier where it is quick; the least degree of ``|x|``
within ``1e-3``.  Reference facts as in tests/test_minimax_reach.py: ``E_{2n}(|x|) =
E_n(sqrt)`` and ``2n E_{2n}(|x|)`` increasing to Bernstein's constant (Varga and Carpenter,
Constr. Approx. 1 (1985)).
"""

from __future__ import annotations

import json

import pytest
from flint import fmpq

import dpverify
from dpverify.numbers import parse_exact
from dpverify.verify import verify_document

pytestmark = pytest.mark.slow

RTOL = fmpq(1, 10**6)
BERNSTEIN = fmpq(2801694990238691330364, 10**22)


def _bracket(cert):
    e = cert.statement["error"]
    return parse_exact(e["lower"]), parse_exact(e["upper"])


def _holds(cert):
    return verify_document(json.loads(cert.to_json())).status == "holds"


@pytest.mark.parametrize("n", range(1, 31))
def test_exp_every_degree_to_30(n):
    cert = dpverify.minimax("exp(x)", n, (-1, 1))
    lo, up = _bracket(cert)
    assert up <= lo * (1 + RTOL)
    assert _holds(cert)


_ABS = {}


@pytest.mark.parametrize("n", [2, 3, 8, 16, 33, 64, 100, 128, 256, 512])
def test_abs_to_degree_512(n):
    cert = dpverify.minimax("abs(x)", n, (-1, 1))
    lo, up = _bracket(cert)
    assert up <= lo * (1 + RTOL)
    if n % 2 == 0:
        assert n * up < BERNSTEIN
        _ABS[n] = (lo, up)
    # the checker's local expansions make degree 512 a matter of seconds
    assert _holds(cert)


@pytest.mark.parametrize("n", [1, 8, 32, 64, 128, 256])
def test_sqrt_to_degree_256(n):
    cert = dpverify.minimax("sqrt(x)", n, (0, 1))
    lo, up = _bracket(cert)
    assert up <= lo * (1 + RTOL)
    twice = dpverify.minimax("abs(x)", 2 * n, (-1, 1))
    lo2, up2 = _bracket(twice)
    assert max(lo, lo2) <= min(up, up2)
    assert _holds(cert)


def test_bernstein_sequence_increases():
    brackets = {n: _bracket(dpverify.minimax("abs(x)", n, (-1, 1)))
                for n in (64, 128, 256, 512)}
    ns = sorted(brackets)
    for n, m in zip(ns, ns[1:]):
        assert m * brackets[m][0] > n * brackets[n][1]
    assert 512 * brackets[512][1] < BERNSTEIN


def test_least_degree_of_abs_at_one_per_mille():
    cert = dpverify.approx("abs(x)", (-1, 1), "1e-3")
    st = cert.statement
    # 282: E_281 = E_280 > 1e-3 >= E_282 (n E_n is near 0.2801 here: 0.2801/280 > 1e-3)
    assert st["degree"] == 282 and "least_degree" in st


@pytest.mark.parametrize("f,interval,n", [
    ("abs(x - 1/3)^(1/2)", (0, 1), 40),
    ("x*log(x)", ("1e-12", 1), 40),
    ("abs(x^2 - 1/2)", (-1, 1), 30),
])
def test_non_smooth_and_nearly_singular(f, interval, n):
    cert = dpverify.minimax(f, n, interval)
    lo, up = _bracket(cert)
    assert up <= lo * (1 + RTOL)
    assert _holds(cert)
