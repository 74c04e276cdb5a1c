"""dpverify's Laplace accounting against OpenDP's privacy maps (the ``opendp`` extra).

The same measurement is built in OpenDP (``make_laplace`` on float vectors with the L1
distance -- continuous Laplace --, and on integer vectors -- OpenDP's discrete Laplace) and
its privacy map ``measurement.map(d_in)`` is compared with dpverify's exact
``laplace_privacy(sensitivity, scale)`` and with the (sensitivity, scale) pair each
mechanism's privacy record publishes.  OpenDP is an independent implementation (Rust, its
own proofs), so agreement is evidence, not an echo of the code under test.

OpenDP's maps return floats rounded conservatively (never below the true epsilon of the
float parameters it was given), so the expected relation is

    dpverify exact  <=  OpenDP float  <=  dpverify exact * (1 + 2^-40)

when OpenDP is given the sensitivity rounded *up* and the scale rounded *down* to binary64
(the conservative float version of the same mechanism).  The one explained difference
(docs/opendp.md): on a grid, OpenDP's integer distance ``floor(S/g)`` can be smaller than
dpverify's rational ``S/g``, so OpenDP's epsilon is at most ``g/b`` *smaller* there.
"""

from __future__ import annotations

import io
import json
import math
from contextlib import redirect_stdout

import pytest
from flint import fmpq
from hypothesis import given, settings
from hypothesis import strategies as st

dp = pytest.importorskip("opendp.prelude", reason='needs the opendp extra: pip install '
                         '"dpverify[opendp]"')

from dpverify.cli import main  # noqa: E402
from dpverify.mechanisms.privacy import laplace_privacy  # noqa: E402
from dpverify.numbers import parse_exact  # noqa: E402

dp.enable_features("contrib")

REL = fmpq(1, 2**40)  # how far above the exact value OpenDP's rounded map may be


def exact(x: float) -> fmpq:
    """The exact rational value of a binary64 (computed by Python, not by dpverify)."""
    p, q = float(x).as_integer_ratio()
    return fmpq(p, q)


def float_up(q: fmpq) -> float:
    f = int(q.p) / int(q.q)  # correctly rounded (nearest)
    return f if exact(f) >= q else math.nextafter(f, math.inf)


def float_down(q: fmpq) -> float:
    f = int(q.p) / int(q.q)
    return f if exact(f) <= q else math.nextafter(f, -math.inf)


def continuous_laplace(scale: float):
    space = (dp.vector_domain(dp.atom_domain(T=float, nan=False)), dp.l1_distance(T=float))
    return dp.m.make_laplace(*space, scale=scale)


def discrete_laplace(scale: float):
    space = (dp.vector_domain(dp.atom_domain(T="i64")), dp.l1_distance(T="i64"))
    return dp.m.make_laplace(*space, scale=scale)


def assert_agrees(opendp_eps: float, dpverify_eps: fmpq) -> None:
    got = exact(opendp_eps)
    assert dpverify_eps <= got, (dpverify_eps, opendp_eps)
    assert got <= dpverify_eps * (1 + REL), (dpverify_eps, opendp_eps)


# ------------------------------------------------------------------ generic maps

@pytest.mark.parametrize("s, b", [(1, 1), (2, 4), ("1/3", "1/7"), ("31505/181", "31505/181"),
                                  ("0.3", "0.1"), ("1e-6", "1e-3"), (1000, "0.25")])
def test_continuous_laplace_matches_exact_epsilon(s, b):
    s_q, b_q = parse_exact(str(s)), parse_exact(str(b))
    s_f, b_f = float_up(s_q), float_down(b_q)
    # dpverify's exact epsilon of the float mechanism OpenDP runs
    ours = laplace_privacy(exact(s_f), exact(b_f)).epsilon
    assert ours == exact(s_f) / exact(b_f)  # Dwork et al. 2006: epsilon = S/b, by hand
    assert_agrees(continuous_laplace(b_f).map(s_f), ours)
    # and of the exact mechanism: the conservative float one is never better
    assert laplace_privacy(s_q, b_q).epsilon <= ours


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 10**6), st.integers(1, 10**6), st.integers(0, 30))
def test_discrete_laplace_matches_for_integer_sensitivity(s, num, shift):
    # integer L1 sensitivity s, scale num / 2^shift (exactly representable)
    b = fmpq(num, 2**shift)
    b_f = float(num) / 2**shift
    assert exact(b_f) == b
    assert_agrees(discrete_laplace(b_f).map(s), laplace_privacy(s, b).epsilon)


@settings(max_examples=40, deadline=None)
@given(st.floats(1e-6, 1e6), st.floats(1e-6, 1e6))
def test_continuous_laplace_law(s_f, b_f):
    assert_agrees(continuous_laplace(b_f).map(s_f),
                  laplace_privacy(exact(s_f), exact(b_f)).epsilon)


# ------------------------------------------------------------------ each mechanism

def _privacy(argv):
    buf = io.StringIO()
    with redirect_stdout(buf):
        assert main(["privacy", *argv, "--json"]) == 0
    return json.loads(buf.getvalue())


def _tuv():
    return _privacy(["tuv", "--d", "10", "--k", "3", "--gamma", "1e-2", "--epsilon", "1",
                     "--n", "10000"])["achieved"], None


def _dlist():
    return _privacy(["dlist", "--m", "6", "--k", "3", "--gamma", "0.1", "--epsilon", "1",
                     "--n", "100"])["achieved"], None


def _wang():
    mom = _privacy(["wang", "--n", "1000", "--t", "4", "--d", "2", "--epsilon", "1/2"])
    return mom["certificate"], mom["grid"]


def _jin():
    mom = _privacy(["jin", "--n", "1000", "--d", "2", "--basis-degree", "3",
                    "--epsilon", "1"])["moments"]
    return mom["certificate"], mom["grid"]


def _bernstein():
    rec = _privacy(["bernstein", "--mode", "mean", "--lower", "0", "--upper", "1", "--n",
                    "1000", "--k", "5", "--epsilon", "1/2"])
    return rec["certificate"], None


MECHANISMS = {"tuv": _tuv, "dlist": _dlist, "wang": _wang, "jin": _jin,
              "bernstein": _bernstein}


@pytest.mark.parametrize("name", sorted(MECHANISMS))
def test_mechanism_accounting_agrees_with_opendp(name):
    cert, grid = MECHANISMS[name]()
    s, b = parse_exact(cert["sensitivity_l1"]), parse_exact(cert["scale"])
    eps = parse_exact(cert["epsilon"])
    # the record's epsilon is dpverify's exact S/b (pure route) ...
    assert eps == laplace_privacy(s, b).epsilon == s / b
    # ... and OpenDP's continuous Laplace with the conservative float parameters agrees
    s_f, b_f = float_up(s), float_down(b)
    assert_agrees(continuous_laplace(b_f).map(s_f), laplace_privacy(exact(s_f),
                                                                     exact(b_f)).epsilon)
    assert abs(exact(continuous_laplace(b_f).map(s_f)) - eps) <= eps * fmpq(1, 2**40)
    if grid is None:
        return
    # discrete Laplace on the grid g (the noise the mechanism draws), in lattice units
    g = parse_exact(grid)
    lattice_s, lattice_b = s / g, b / g
    b_f = float_down(lattice_b)
    hi = int(lattice_s.p) // int(lattice_s.q) + (0 if lattice_s.q == 1 else 1)  # ceil
    lo = int(lattice_s.p) // int(lattice_s.q)  # floor: the integer distance really possible
    # with d_in = ceil(S/g) OpenDP can only be more conservative than dpverify ...
    assert exact(discrete_laplace(b_f).map(hi)) >= eps
    # ... and with the integer distance floor(S/g) it is at most g/b below (docs/opendp.md)
    got = exact(discrete_laplace(b_f).map(lo))
    assert got <= eps * (1 + REL)
    assert eps - got <= g / b * (1 + REL)

# the pipeline example of docs/opendp.md (a dpverify-certified statistic in OpenDP) runs in
# tests/test_docs.py
