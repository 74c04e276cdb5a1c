"""The verifier's local expansions of a Chebyshev series against exact Taylor shifts.

Each head ball must contain the exact coefficient of ``p(m + r t)`` (computed here by an
exact shift of the exact monomial form, a different algorithm), and the two tail bounds
must be at least the exact sums they bound.  A certificate whose ``upper`` is just below
the true supremum must not hold.
"""

from __future__ import annotations

import json
import random

import pytest
from flint import arb, ctx, fmpq, fmpq_poly

from dpverify.verify import verify_document
from dpverify.verify.chebyshev_local import ChebyshevLocal
from dpverify.verify.poly import exact_poly, to_monomial_1d


def _exact_local(cs: list[fmpq], a: fmpq, b: fmpq, m: fmpq, r: fmpq) -> list[fmpq]:
    P = to_monomial_1d("chebyshev", cs, (a, b))
    out: list[fmpq] = P(fmpq_poly([m, r])).coeffs()
    return out + [fmpq(0)] * (len(cs) - len(out))


CASES = [
    # (seed, degree, [a, b]): a large degree with decaying coefficients, an interval away
    # from [-1, 1], coefficients that do not decay
    (1, 40, (fmpq(-1), fmpq(1))),
    (2, 120, (fmpq(0), fmpq(1))),
    (3, 25, (fmpq(-3, 7), fmpq(5, 2))),
]


@pytest.mark.parametrize("seed,degree,ab", CASES)
def test_head_contains_exact_and_tails_bound(seed: int, degree: int,
                                             ab: tuple[fmpq, fmpq]) -> None:
    rng = random.Random(seed)
    decay = seed != 3
    cs = [fmpq(rng.randint(-10**6, 10**6), 10**6) / (fmpq(k + 1) ** 2 if decay else 1)
          for k in range(degree + 1)]
    a, b = ab
    loc = ChebyshevLocal(cs, a, b)
    checked = 0
    for _ in range(12):
        # pieces of widths from 2^-40 of the interval to a quarter of it, some at the ends
        w = (b - a) / 2 ** rng.choice([2, 5, 12, 25, 40])
        lo = rng.choice([a, b - w, a + (b - a) * fmpq(rng.randint(0, 2**20), 2**20) * (1 - w)])
        lo = min(max(lo, a), b - w)
        m, r = lo + w / 2, w / 2
        exact = _exact_local(cs, a, b, m, r)
        for J in (4, 9, 16, degree + 1):
            lt = loc.taylor(m, r, J, 256 + 3 * degree)
            rest = exact[len(lt.head):]
            t = sum((abs(q) for q in rest), fmpq(0))
            st = sum((abs(q) * (len(lt.head) + i) for i, q in enumerate(rest)), fmpq(0))
            with ctx.workprec(20000):  # the exact values as (nearly) point balls
                for j, ball in enumerate(lt.head):
                    assert ball.contains(arb(exact[j])), (j, ball, exact[j])
                assert lt.tail >= arb(t) and lt.slope_tail >= arb(st)
            checked += 1
    assert checked == 48


def test_tail_small_on_short_pieces() -> None:
    """The tails must be useful, not only valid: on a piece of width 2^-25 inside the
    interval, 9 head terms leave a tail far below the coefficients' scale."""
    cs = [fmpq(1, (k + 1) ** 2) for k in range(121)]
    loc = ChebyshevLocal(cs, fmpq(0), fmpq(1))
    w = fmpq(1, 2**25)
    for lo in (fmpq(0), fmpq(1, 3), 1 - w):
        lt = loc.taylor(lo + w / 2, w / 2, 9, 600)
        assert lt.tail < arb(10) ** -20 and lt.slope_tail < arb(10) ** -18


def _abs_certificate() -> dict[str, object]:
    from dpverify.api import minimax

    data: dict[str, object] = minimax("abs(x)", 24, (-1, 1)).data
    return data


def test_upper_just_below_the_supremum_does_not_hold() -> None:
    doc = _abs_certificate()
    assert verify_document(doc).status == "holds"
    st = doc["statement"]
    assert isinstance(st, dict)
    # upper := lower: the true sup of |f - p| exceeds the de la Vallee Poussin lower bound
    # (p is near-best, not best), so the claim sup <= lower is false
    lower = st["error"]["lower"]
    bad = json.loads(json.dumps(doc))
    bad["statement"]["error"] = {"lower": lower, "upper": lower}
    assert verify_document(bad).status != "holds"


def test_exact_poly_is_fmpq_poly() -> None:
    """The common-denominator construction equals python-flint's own, coefficient by
    coefficient (random fractions with repeated and distinct denominators)."""
    rng = random.Random(5)
    for _ in range(100):
        cs = [fmpq(rng.randint(-50, 50), rng.choice([1, 2, 6, rng.randint(1, 10**9)]))
              for _ in range(rng.randint(1, 12))]
        assert exact_poly(cs) == fmpq_poly(cs)
