"""Tightness of the certified binary64 evaluation bounds (dpverify.certify.evalbound).

For each benchmark polynomial: the certified bound on ``|fl(p(x)) - p(x)|``, the largest
error observed over random binary64 points of the interval plus points adversarially close
to roots (float side: numpy ``polyval`` for Horner, ``dpverify.fast.clenshaw`` for
Clenshaw -- the analysed operations; reference: the exact rational ``p(x)``), and the ratio
bound / observed (criterion: <= 100).  For Horner also Higham's ``gamma_{2n} sum |c_i|
|x|^i`` (Higham 2002, eq. (5.3)).  One command:

    python benchmarks/evalbound_tightness.py            # ~20000 points per case
    python benchmarks/evalbound_tightness.py --points 2000

Prints the table only (docs are not rewritten).
"""

from __future__ import annotations

import argparse
import math
import os
import sys
import time
from fractions import Fraction

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from flint import fmpq  # noqa: E402

from dpverify.certify.evalbound import evalbound  # noqa: E402
from dpverify.constructions.remez import remez  # noqa: E402
from dpverify.exact import ChebyshevPoly, MonomialPoly  # noqa: E402
from dpverify.fast.chebyshev import clenshaw  # noqa: E402
from dpverify.numbers import round_to_float64  # noqa: E402


def to_float(v: fmpq) -> float:
    return float(Fraction(int(v.p), int(v.q)))


def near(roots, a: float, b: float, k: int = 50) -> list[float]:
    out = []
    for r in roots:
        lo = hi = r
        for _ in range(k):
            lo, hi = math.nextafter(lo, -math.inf), math.nextafter(hi, math.inf)
            out += [x for x in (lo, hi) if a <= x <= b]
    return out


def cases():
    e12 = [fmpq(1, math.factorial(i)) for i in range(13)]
    yield "exp Taylor n=12 [-1,1]", "monomial", e12, (-1, 1), None, []
    binom = [(-1) ** (6 - i) * math.comb(6, i) for i in range(7)]
    yield "(x-1)^6 expanded [0,2]", "monomial", binom, (0, 2), None, [1.0]
    rng = np.random.default_rng(1)
    rnd = [round_to_float64(float(c)) for c in rng.uniform(-1, 1, 21)]
    yield "random n=20 [-1,1]", "monomial", rnd, (-1, 1), None, []
    yield "x^10 - 0.3 (monomial) [-1,1]", "monomial", [fmpq(-3, 10)] + [0] * 9 + [1], (-1, 1),\
        None, [0.3 ** 0.1, -(0.3 ** 0.1)]
    for f, n, iv in [("exp(x)", 12, (-1, 1)), ("atan(5*x)", 40, (-1, 1)),
                     ("sqrt(x + 1/100)", 30, (0, 1)), ("sin(x)", 8, (0, 3))]:
        p = remez(f, n, iv).poly
        yield f"minimax {f} n={n} {list(iv)}", "chebyshev", list(p.coeffs), iv, iv, []
    dec = [fmpq((-1) ** i, (i + 1) ** 2) for i in range(60)]
    yield "sum (-1)^i T_i/(i+1)^2 n=59", "chebyshev", dec, (-1, 1), (-1, 1), []
    t9 = [0] * 9 + [1]
    yield "T_9 [-1,1]", "chebyshev", t9, (-1, 1), (-1, 1), \
        [math.cos((2 * k + 1) * math.pi / 18) for k in range(9)]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--points", type=int, default=20000)
    args = ap.parse_args()
    rng = np.random.default_rng(7)
    print(f"{'case':36} {'bound':>10} {'observed':>10} {'ratio':>7} {'higham':>10} "
          f"{'t_bound':>8}")
    worst_ratio = 0.0
    for name, basis, cs, iv, dom, roots in cases():
        t0 = time.perf_counter()
        r = evalbound(cs, iv, basis=basis, domain=dom)
        tb = time.perf_counter() - t0
        a, b = to_float(fmpq(iv[0])), to_float(fmpq(iv[1]))
        xs = np.concatenate([rng.uniform(a, b, args.points), [a, b], near(roots, a, b)])
        c64 = np.array([to_float(c) for c in r.float_coefficients])
        if basis == "monomial":
            ys = np.polynomial.polynomial.polyval(xs, c64)
            P = MonomialPoly(cs)
        else:
            ys = clenshaw(c64, xs, (a, b))
            P = ChebyshevPoly(cs, domain=dom)
        M = P.to_monomial().as_fmpq_poly()
        obs = max(abs(fmpq(*float(y).as_integer_ratio()) - M(fmpq(*float(x).as_integer_ratio())))
                  for x, y in zip(xs, ys))
        assert obs <= r.bound, name
        ratio = float(r.bound / obs) if obs > 0 else float("inf")
        worst_ratio = max(worst_ratio, ratio)
        hig = "-" if r.higham is None else f"{float(r.higham):.3e}"
        print(f"{name:36} {float(r.bound):10.3e} {float(obs):10.3e} {ratio:7.1f} {hig:>10} "
              f"{tb:8.3f}")
    print(f"worst bound/observed ratio: {worst_ratio:.1f} (criterion <= 100)")


if __name__ == "__main__":
    main()
