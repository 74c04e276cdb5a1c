"""What the default search of :func:`dpverify.testing.check_implementation` covers: in
which binades, how many points per binade, and the narrowest window of inputs it hits
with probability at least 0.99 -- a statement about the *plan*, made before any point is
drawn.

The search of a budget ``N`` on ``[lo, hi]`` draws ``N/2`` points uniform in ``x`` (in
equal strata) and ``N/4`` uniform over the representable numbers (in equal strata of the
ordinals), independently (:mod:`dpverify.testing.points`).  A window of width ``w`` lying
in a binade whose ulp is ``u`` misses every uniform point with probability at most
``exp(-rho w)``, ``rho`` the least number of uniform points per unit length of a stratum
(a window across two strata: the product of two such factors, no larger), and misses
every ordinal point with probability at most ``exp(-sigma w / u)``, ``sigma`` the least
number of ordinal points per number of the format in a stratum; the draws are
independent, so it is hit with probability at least ``1 - exp(-w (rho + sigma / u))``,
which is 0.99 for ``w = ln(100) / (rho + sigma / u)``.  The structural points (the ends
of every binade, the breakpoints, the hard cases, the floats around zeros and poles) and
the adaptive rounds come on top and are not counted.

So for binary64, whose ``2^64`` inputs no search can cover, the report says what a
defect must look like to be found: a window narrower than the stated width is found with
probability below 0.99 (a single wrong input: with probability about ``N / count``,
nil in practice), unless a property check (monotonicity, symmetry, range) sees it.

Guarantee
---------
The windows are upper bounds derived from the plan's counts (exact integer arithmetic on
the strata; floats for the logarithms, rounded up by ``2^-40``); the expected points per
binade are expectations.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .formats import to_ordinal
from .points import CHUNK, Domain

__all__ = ["Coverage", "BinadeCoverage", "coverage", "PROBABILITY"]

#: the probability the stated windows are hit with
PROBABILITY = 0.99
_LN = math.log(1 / (1 - PROBABILITY)) * (1 + 2.0 ** -40)


@dataclass(frozen=True)
class BinadeCoverage:
    """One binade ``[2^e, 2^(e+1))`` (negative ``sign``: ``(-2^(e+1), -2^e]``) met by the
    domain: the expected points of the search in it and the window hit with probability
    0.99 there."""

    sign: int
    e: int
    expected: float
    window: float


@dataclass(frozen=True)
class Coverage:
    """The coverage of the default search (module docstring): ``uniform`` and
    ``log_uniform`` points, ``window`` the width every window of the domain of at least
    that width is hit with probability 0.99 (the widest of the binades' windows), and the
    binades."""

    budget: int
    uniform: int
    log_uniform: int
    window: float
    binades: tuple[BinadeCoverage, ...]

    def text(self) -> str:
        """One line for the summary."""
        e = [b.expected for b in self.binades]
        narrow = min(self.binades, key=lambda b: b.window)
        return (f"coverage: {len(self.binades)} binades, {min(e):.3g} to {max(e):.3g} "
                f"points expected in each; every window wider than {self.window:.3g} is hit "
                f"with probability >= {PROBABILITY} (down to {narrow.window:.3g} in "
                f"[{'-' if narrow.sign < 0 else ''}2^{narrow.e}, "
                f"{'-' if narrow.sign < 0 else ''}2^{narrow.e + 1}))")

    def to_json(self) -> dict[str, object]:
        return {"budget": self.budget, "uniform": self.uniform,
                "log_uniform": self.log_uniform, "probability": PROBABILITY,
                "window": self.window,
                "binades": [{"sign": b.sign, "e": b.e, "expected": b.expected,
                             "window": b.window} for b in self.binades]}


def _least_density(total: int, length: float, points: int) -> float:
    """Points per unit of the least stratum: ``points`` in ``ceil(points / CHUNK)`` equal
    strata of ``length / k`` each, the least holding ``points // k``."""
    k = max(1, math.ceil(points / CHUNK))
    return (points // k) / (length / k) if length > 0 else math.inf


def coverage(dom: Domain, budget: int) -> Coverage:
    """The coverage of the search of ``budget`` points on the interval ``dom``."""
    fmt = dom.fmt
    n_u, n_o = budget // 2, budget // 4
    length = dom.hi - dom.lo if math.isfinite(dom.hi - dom.lo) else math.inf
    rho = _least_density(n_u, length, n_u) if n_u else 0.0
    if math.isinf(length):   # a domain wider than the largest float: halves
        rho = _least_density(n_u, 1.0, n_u) / (dom.hi / 2 - dom.lo / 2) / 2
    count = dom.count
    sigma = _least_density(n_o, float(count), n_o) if n_o else 0.0
    rows = []
    for sign in (1, -1):
        for e in range(fmt.emin - fmt.p + 1, fmt.emax + 1):
            a = math.ldexp(1.0, e)
            b = math.ldexp(1.0, e + 1) if e < 1023 else math.inf
            lo, hi = (a, b) if sign > 0 else (-b, -a)
            lo, hi = max(lo, dom.lo), min(hi, dom.hi)
            if lo > hi or (sign > 0 and hi < a) or (sign < 0 and lo > -a):
                continue
            u = math.ldexp(1.0, max(e, fmt.emin) - fmt.p + 1)
            o = to_ordinal(np.array([lo, hi]), fmt)
            floats = int(abs(o[1] - o[0])) + 1
            expected = rho * (hi - lo) + sigma * floats if math.isfinite(rho) else n_u
            dens = rho + sigma / u
            window = max(_LN / dens, u) if dens > 0 else math.inf   # at least one float
            rows.append(BinadeCoverage(sign, e, float(expected), window))
    window = max((r.window for r in rows), default=math.inf)
    return Coverage(budget, n_u, n_o, window, tuple(rows))
