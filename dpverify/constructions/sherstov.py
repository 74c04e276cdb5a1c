"""Sherstov's r-of-k polynomial, the 8 steps of thaler2012 Appendix B, in exact arithmetic.

thaler2012 Lemma 4.5 / Lemma B.1 (after Sherstov 2009, Lemma 3.11): a univariate polynomial
``p`` in the count ``t`` with ``|p(t) - 1[t >= r]| <= gamma`` on ``{0..k}``.  Appendix B
builds, for each ``l`` in ``{0..r-1}``, an approximation ``q_{3,l}`` of
``EXACT_l(t) = 1[t = l]`` to within ``gamma/k`` and sets ``p = 1 - sum_l q_{3,l}``.

The steps as printed (``T_n`` Chebyshev of the first kind), for one ``l``::

    Delta = ceil(log(k/gamma) / log n),   z = 3 Delta ceil(log k)
    1. p1(t) = T_D(t / (k - l - Delta)),           D = ceil(sqrt((k-l-Delta)/(l+Delta)))
    2. p2(t) = ((p1(t) - p1(k-l)) / 8)^2
    3. p3(t) = T_N(1 + eta - p2(t)),                N = ceil(8 (d+1)(l+Delta)/(sqrt(2) Delta)),
                                                     eta = Delta^2 / (64 (l+Delta)^2)
    4. p4(t) = p3(t) / p3(k-l)
    5. q1(t) = prod_{i = -(Delta-1)..(Delta-1), i != 0} (t - (k - l - i))
    6. q2(t) = p4(t) q1(t) / q1(k-l)
    7. q3(t) = q2(k - t)                             (~ EXACT_l to gamma/k)
    8. p(t)  = 1 - sum_{l in {0..r-1}} q3_l(t)

Suspicious symbols and their readings (``reading=`` keys; verdicts in docs/sherstov.md,
pinned in tests/test_sherstov.py):

* ``"delta"``: the printed ``log n`` (``n`` is not defined in the lemma; it is Sherstov's
  number of variables, i.e. ``k`` here).  ``"log_k"`` (default): ``Delta =
  ceil(log(k/gamma)/log k)`` -- the least integer with ``k^Delta >= k/gamma``, base-free;
  ``"log_2"``: ``n`` read as the log base, ``Delta = ceil(log2(k/gamma))``.
* ``"d"``: the printed ``d+1`` in step 3 (``d`` is not defined; the database dimension has
  nothing to do with this univariate lemma).  ``"z"`` (default): ``d := z``, the otherwise
  unused parameter; ``"Delta"``: ``d := Delta``; ``"log_k_over_gamma"``:
  ``d := ceil(ln(k/gamma))`` (the accuracy a single EXACT term seems to need).
* ``"log_base"``: base of ``ceil(log k)`` in ``z``: ``"e"`` (default) or ``"2"``.
* ``"ell_range"``: step 1 says ``0 < l < r``, step 8 sums over ``{0..r-1}``:
  ``"0..r-1"`` (default) or ``"1..r-1"``.

Why the default reading works (our derivation, checked exactly by the certifier): on
``{0..k}`` away from ``k - l`` (distance ``>= Delta``) ``p2 >= eta``; if also
``p2 <= 1 + eta`` there, ``|p4| <= 1/T_N(1+eta) <= 2 e^{-N acosh(1+eta)}``, and
``N sqrt(2 eta) >= d + 1``; ``q1`` vanishes at the ``2 Delta - 2`` points nearest to ``k-l``
and ``|q1(s)/q1(k-l)| <= k^{2 Delta - 2}/((Delta-1)!)^2``; with ``k^Delta >= k/gamma`` the
term error is ``<= gamma/k`` once ``d + 1 >~ (3 Delta - 2) ln k``, which ``d = z`` gives.
The condition ``p2 <= 1 + eta`` can fail when ``l + Delta`` is large compared with
``k - l - Delta`` (the paper assumes ``r < k/log^2 k``); the certificate then shows the miss.

Computation.  :func:`sherstov_steps` composes the printed steps in ``fmpq_poly``, as
printed (the reference).  :func:`rofk_polynomial` and :func:`exact_l_polynomial` build the
same polynomials in integer arithmetic (:mod:`.sherstov_integer`: the denominators
cleared once, ``T_N`` by Chebyshev doubling, the sum of step 8 over one common
denominator known in advance; :mod:`.sherstov_terms`: the step records in a worker
process meanwhile) and hand FLINT's common-denominator form to
:class:`~dpverify.exact.MonomialPoly` unreduced; the certificate reduces the coefficients
in one batched pass (:mod:`dpverify.exact.lowest_terms`).  The polynomial is large:
degree ``max_l 2 D_l N_l + 2(Delta - 1)`` (15,214 for ``r = 5, k = 500, gamma = 1e-3``)
with coefficients whose numerators and denominators have ``~sum_l N_l log2(64 e_d m^{2D})``
bits (about 5.6e5 there: a 4 GB certificate).
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from typing import Any

from flint import arb, fmpq, fmpq_poly, fmpz, fmpz_poly

from ..approximation import Approximation
from ..errors import DomainError, InvalidParameterError, ParameterTypeError
from ..exact import MonomialPoly
from ..numbers import MAX_DEGREE, check_int, check_open_unit, fmpq_str
from ..progress import ProgressCallback, report
from .minimax import minimax_least_degree
from .sherstov_integer import Fraction, TermSetup, reduced_poly
from .sherstov_terms import build_terms, setup

__all__ = [
    "READING_OPTIONS",
    "DEFAULT_READING",
    "MAX_SHERSTOV_DEGREE",
    "SherstovParameters",
    "resolve_reading",
    "sherstov_parameters",
    "sherstov_steps",
    "exact_l_polynomial",
    "rofk_polynomial",
]

#: Alternative readings of the suspicious symbols of thaler2012 Appendix B (module docstring).
READING_OPTIONS: dict[str, tuple[str, ...]] = {
    "delta": ("log_k", "log_2"),
    "d": ("z", "Delta", "log_k_over_gamma"),
    "log_base": ("e", "2"),
    "ell_range": ("0..r-1", "1..r-1"),
}

#: The reading that works (decided by exhaustive exact tests, see docs/sherstov.md).
DEFAULT_READING: dict[str, str] = {
    "delta": "log_k",
    "d": "z",
    "log_base": "e",
    "ell_range": "0..r-1",
}

#: Largest degree the printed construction may reach before we refuse up front
#: (the degree is O(sqrt(k (l + Delta)) log k * log k); exact arithmetic on it grows fast).
MAX_SHERSTOV_DEGREE = 20_000

_X = fmpq_poly([0, 1])


# ---------------------------------------------------------------------------- helpers


def resolve_reading(reading: Any = None) -> dict[str, str]:
    """Complete ``reading`` (dict, or ``None`` for the default) and validate every key."""
    if reading is None:
        return dict(DEFAULT_READING)
    if not isinstance(reading, dict):
        raise ParameterTypeError(f"reading must be a dict or None, got {type(reading).__name__}")
    out = dict(DEFAULT_READING)
    for key, val in reading.items():
        if key not in READING_OPTIONS:
            raise InvalidParameterError(
                f"reading has unknown key {key!r}; known keys: {', '.join(READING_OPTIONS)}"
            )
        if val not in READING_OPTIONS[key]:
            raise InvalidParameterError(
                f"reading[{key!r}] must be one of {READING_OPTIONS[key]}, got {val!r}"
            )
        out[key] = val
    return out


def _ceil_sqrt(a: fmpq) -> int:
    """Least integer ``n >= 0`` with ``n^2 >= a`` (exact)."""
    if a <= 0:
        return 0
    n = math.isqrt(int(a.p) // int(a.q))
    while fmpq(n * n) < a:
        n += 1
    while n > 0 and fmpq((n - 1) ** 2) >= a:
        n -= 1
    return n


def _ceil_over_sqrt2(x: fmpq) -> int:
    """Least integer ``n >= 0`` with ``n >= x / sqrt(2)``, ``x >= 0`` (exact: ``2n^2 >= x^2``)."""
    return _ceil_sqrt(x * x / 2)


def _least_power(base: int, target: fmpq) -> int:
    """Least integer ``e >= 0`` with ``base^e >= target`` (exact; ``base >= 2``)."""
    e = 0
    while fmpq(base) ** e < target:
        e += 1
    return e


def _least_exp(target: fmpq) -> int:
    """Least integer ``e >= 0`` with ``exp(e) >= target`` (rigorous: arb; ``exp(e)`` is
    irrational for ``e >= 1`` so the comparison with a rational is always decided)."""
    e = 0
    while True:
        if e == 0:
            if fmpq(1) >= target:
                return 0
        else:
            v = arb(e).exp()
            if v > arb(target):
                return e
            if not v < arb(target):  # undecided at this precision: cannot happen in practice
                raise InvalidParameterError(f"could not decide exp({e}) >= {fmpq_str(target)}")
        e += 1


def _cheb(n: int) -> fmpq_poly:
    return fmpq_poly(fmpz_poly.chebyshev_t(n))


# ---------------------------------------------------------------------------- parameters


@dataclass(frozen=True)
class SherstovParameters:
    """The scalar parameters of thaler2012 Appendix B under one reading (all exact).

    ``cheb1[l]`` and ``cheb3[l]`` are the Chebyshev degrees ``D_l`` (step 1) and ``N_l``
    (step 3); ``degree[l] = 2 D_l N_l + 2 (Delta - 1)`` is the degree of ``q_{3,l}``
    (exact when the construction is built: leading coefficients never cancel).
    """

    r: int
    k: int
    gamma: fmpq
    reading: dict[str, str]
    Delta: int
    ceil_log_k: int
    z: int
    d: int
    ells: tuple[int, ...]
    cheb1: dict[int, int]
    cheb3: dict[int, int]
    eta: dict[int, fmpq]
    degree: dict[int, int]

    def to_json(self) -> dict[str, Any]:
        return {
            "reading": dict(self.reading),
            "Delta": self.Delta,
            "ceil_log_k": self.ceil_log_k,
            "z": self.z,
            "d": self.d,
            "ells": list(self.ells),
            "predicted_degree": max(self.degree.values()) if self.degree else 0,
        }


def _check_rk(r: Any, k: Any, gamma: Any) -> tuple[int, int, fmpq]:
    k = check_int(k, "k", minimum=1, maximum=MAX_DEGREE)
    r = check_int(r, "r", minimum=1)
    if r > k:
        raise InvalidParameterError(f"r must be <= k = {k}, got {r}")
    g = check_open_unit(gamma, "gamma")
    return r, k, g


def sherstov_parameters(r: Any, k: Any, gamma: Any, reading: Any = None) -> SherstovParameters:
    """Exact parameters ``Delta, z, d, D_l, N_l, eta_l`` of thaler2012 Appendix B.

    Raises
    ------
    DomainError
        When the printed construction is undefined: ``k = 1`` (``log k = 0``) or
        ``k - l - Delta <= 0`` for some ``l`` (step 1 divides by it).  The paper calls these
        cases trivial (exact interpolation of degree ``<= k``); use ``method="minimax"``.
    """
    r, k, g = _check_rk(r, k, gamma)
    rd = resolve_reading(reading)
    if k < 2:
        raise DomainError(
            "k must be >= 2 for the printed Sherstov construction (Delta divides by log k); "
            "use method='minimax'"
        )
    kg = fmpq(k) / g
    Delta = _least_power(k, kg) if rd["delta"] == "log_k" else _least_power(2, kg)
    clk = _least_power(2, fmpq(k)) if rd["log_base"] == "2" else _least_exp(fmpq(k))
    z = 3 * Delta * clk
    if rd["d"] == "z":
        d = z
    elif rd["d"] == "Delta":
        d = Delta
    else:
        d = _least_exp(kg)
    ells = tuple(range(0, r)) if rd["ell_range"] == "0..r-1" else tuple(range(1, r))
    cheb1: dict[int, int] = {}
    cheb3: dict[int, int] = {}
    eta: dict[int, fmpq] = {}
    degree: dict[int, int] = {}
    for l_ in ells:
        m = k - l_ - Delta
        if m <= 0:
            raise DomainError(
                f"printed construction undefined for r={r}, k={k}, gamma={fmpq_str(g)}: "
                f"k - l - Delta = {m} <= 0 at l={l_} (Delta={Delta}); the paper treats this "
                "case as trivial, use method='minimax'"
            )
        cheb1[l_] = _ceil_sqrt(fmpq(m, l_ + Delta))
        cheb3[l_] = _ceil_over_sqrt2(fmpq(8 * (d + 1) * (l_ + Delta), Delta))
        eta[l_] = fmpq(Delta * Delta, 64 * (l_ + Delta) ** 2)
        degree[l_] = 2 * cheb1[l_] * cheb3[l_] + 2 * (Delta - 1)
    return SherstovParameters(
        r, k, g, rd, Delta, clk, z, d, ells, cheb1, cheb3, eta, degree
    )


# ---------------------------------------------------------------------------- the steps


def _steps(l_: int, prm: SherstovParameters) -> dict[str, fmpq_poly]:
    k, Delta = prm.k, prm.Delta
    m = k - l_ - Delta
    c = fmpq(k - l_)
    p1 = _cheb(prm.cheb1[l_])(_X / m)  # step 1
    p2 = ((p1 - p1(c)) / 8) ** 2  # step 2
    p3 = _cheb(prm.cheb3[l_])(1 + prm.eta[l_] - p2)  # step 3
    p4 = p3 / p3(c)  # step 4
    q1 = fmpq_poly([1])  # step 5
    for i in range(-(Delta - 1), Delta):
        if i != 0:
            q1 *= _X - (k - l_ - i)
    q2 = p4 * q1 / q1(c)  # step 6
    q3 = q2(k - _X)  # step 7
    return {"p1": p1, "p2": p2, "p3": p3, "p4": p4, "q1": q1, "q2": q2, "q3": q3}


def _check_size(prm: SherstovParameters, max_degree: int) -> None:
    worst = max(prm.degree.values()) if prm.degree else 0
    if worst > max_degree:
        raise InvalidParameterError(
            f"the printed construction for r={prm.r}, k={prm.k}, gamma={fmpq_str(prm.gamma)} "
            f"has degree {worst} > max_degree={max_degree}; refused up front "
            "(raise max_degree or use method='minimax')"
        )


def sherstov_steps(
    l: Any, k: Any, gamma: Any, reading: Any = None, *, max_degree: int = MAX_SHERSTOV_DEGREE
) -> dict[str, MonomialPoly]:
    """The intermediate polynomials ``p1, p2, p3, p4, q1, q2, q3`` for one ``l``.

    Guarantee
    ---------
    Exact (``fmpq``) monomial coefficients, each in the variable ``t`` of the step that
    defines it (``q3`` is in the count; the others in ``s = k - t``), exactly as printed in
    thaler2012 Appendix B under ``reading``.  No claim about their accuracy.
    """
    k = check_int(k, "k", minimum=1, maximum=MAX_DEGREE)
    l_ = check_int(l, "l", minimum=0, maximum=k - 1)
    prm = sherstov_parameters(l_ + 1, k, gamma, dict(resolve_reading(reading), ell_range="0..r-1"))
    prm = _single(prm, l_)
    _check_size(prm, max_degree)
    return {n: MonomialPoly.from_fmpq_poly(p) for n, p in _steps(l_, prm).items()}


def _single(prm: SherstovParameters, l_: int) -> SherstovParameters:
    return SherstovParameters(
        prm.r, prm.k, prm.gamma, prm.reading, prm.Delta, prm.ceil_log_k, prm.z, prm.d,
        (l_,), {l_: prm.cheb1[l_]}, {l_: prm.cheb3[l_]}, {l_: prm.eta[l_]},
        {l_: prm.degree[l_]},
    )


def _assumptions(prm: SherstovParameters) -> dict[str, Any]:
    """The paper's standing assumptions ``r < k/log^2 k`` and ``log(1/gamma) <= k/log k``
    (logs in the reading's base), decided in arb (``None`` if undecided)."""
    k = prm.k
    lk = arb(k).log() if prm.reading["log_base"] == "e" else arb(k).log() / arb(2).log()
    lg = (
        (1 / arb(prm.gamma)).log()
        if prm.reading["log_base"] == "e"
        else (1 / arb(prm.gamma)).log() / arb(2).log()
    )

    def dec(a: arb, b: arb, strict: bool) -> bool | None:
        if (a < b) if strict else (a <= b):
            return True
        if (a >= b) if strict else (a > b):
            return False
        return None

    return {
        "r < k/log^2 k": dec(arb(prm.r), arb(k) / (lk * lk), True),
        "log(1/gamma) <= k/log k": dec(lg, arb(k) / lk, False),
    }


# ---------------------------------------------------------------------------- public


def exact_l_polynomial(
    l: Any,
    k: Any,
    gamma: Any,
    reading: Any = None,
    *,
    intermediates: str = "full",
    max_degree: int = MAX_SHERSTOV_DEGREE,
    progress: ProgressCallback | None = None,
) -> Approximation:
    """``q_{3,l}``: Sherstov's approximation of ``EXACT_l`` on ``{0..k}`` (thaler2012 B step 7).

    Parameters
    ----------
    l : int, ``0 <= l <= k - 1``
    k : int, ``k >= 2``
    gamma : exact number in (0, 1); the claim is ``max_error <= gamma/k`` (as printed).
    reading : dict, optional
        See :data:`READING_OPTIONS` (``ell_range`` is ignored here).
    intermediates : {"full", "summary"}
        Whether ``extra`` carries the coefficient lists of every step or only degrees/sizes.
    progress : callable, optional
        ``progress(stage, done, total)`` (:mod:`dpverify.progress`): the large products
        done so far (counts only).

    Returns
    -------
    Approximation
        Monomial basis in the count ``t`` (exact fmpq); target
        ``{"kind": "indicator", "l": l}`` on the integers ``0..k``; claim ``gamma/k``.

    Guarantee
    ---------
    Construction only (exact, as printed); nothing is claimed until ``certify`` decides the
    error exactly.  Raises ``DomainError`` where the printed steps are undefined and
    ``InvalidParameterError`` for a degree above ``max_degree``.
    """
    k = check_int(k, "k", minimum=1, maximum=MAX_DEGREE)
    l_ = check_int(l, "l", minimum=0, maximum=k - 1)
    full = _check_intermediates(intermediates)
    rd = dict(resolve_reading(reading), ell_range="0..r-1")
    prm = _single(sherstov_parameters(l_ + 1, k, gamma, rd), l_)
    _check_size(prm, max_degree)
    kept: list[Fraction] = []
    (record,) = build_terms(prm, [setup(l_, prm)], full, progress,
                            lambda ts, q3: kept.append(q3))
    q3 = reduced_poly(kept[0][0].coeffs(), kept[0][1])
    g = prm.gamma
    return Approximation(
        construction="exact_l/sherstov",
        params={"l": l_, "k": k, "gamma": fmpq_str(g), "reading": dict(rd)},
        poly=MonomialPoly.from_fmpq_poly(q3),
        target={"kind": "indicator", "l": l_},
        domain={"kind": "integers", "lo": 0, "hi": k},
        claims={"max_error": fmpq_str(g / k)},
        extra={"sherstov": {**prm.to_json(), "steps": [record]}},
    )


def _check_intermediates(intermediates: Any) -> bool:
    if intermediates not in ("full", "summary"):
        raise InvalidParameterError(
            f"intermediates must be 'full' or 'summary', got {intermediates!r}"
        )
    return intermediates == "full"


def rofk_polynomial(
    r: Any,
    k: Any,
    gamma: Any,
    method: str = "sherstov",
    reading: Any = None,
    *,
    intermediates: str = "full",
    max_degree: int = MAX_SHERSTOV_DEGREE,
    progress: ProgressCallback | None = None,
) -> Approximation:
    """Polynomial in the count ``t`` approximating ``1[t >= r]`` on ``{0..k}`` (thaler2012 L. 4.5).

    Parameters
    ----------
    r, k : int, ``1 <= r <= k``
    gamma : exact number in (0, 1) (``1e-3`` is 1/1000)
    method : {"sherstov", "minimax"}
        ``"sherstov"``: the 8 steps of Appendix B as printed under ``reading`` (module
        docstring; ``k >= 2``).  ``"minimax"``: the least-degree polynomial on ``{0..k}``
        with an optimality certificate
        (:func:`dpverify.constructions.minimax.minimax_least_degree`, ``fix_zero=False``).
    reading : dict, optional
        Readings of the suspicious symbols (:data:`READING_OPTIONS`); default
        :data:`DEFAULT_READING`, the one that works.
    intermediates : {"full", "summary"}
        ``extra["sherstov"]["steps"]`` carries every intermediate polynomial (``"full"``:
        exact coefficient strings) or only degrees and sizes (``"summary"``).
    max_degree : int
        Refuse up front when the predicted degree exceeds it.
    progress : callable, optional
        ``progress(stage, done, total)`` (:mod:`dpverify.progress`), counts only:
        ``"sherstov"``: the large products of each term ``l`` (stage
        ``"construction: term l=... (i of n)"``), then the common denominator;
        ``"minimax"``: the searches of the minimax construction.

    Returns
    -------
    Approximation
        Monomial basis in ``t`` (exact fmpq, lowest degree first); target
        ``{"kind": "threshold", "r": r}``, domain integers ``0..k``, claim
        ``{"max_error": gamma}``.

    Guarantee
    ---------
    Construction only: exact coefficients of the printed construction, no accuracy claim is
    decided here; ``certify`` reports the exact error (also where it misses gamma).
    Raises ``DomainError`` where the printed steps are undefined (``k = 1`` or
    ``k - l - Delta <= 0``), ``InvalidParameterError`` for bad input or a predicted degree
    above ``max_degree``.
    """
    if method not in ("sherstov", "minimax"):
        raise InvalidParameterError(f"method must be 'sherstov' or 'minimax', got {method!r}")
    r, k, g = _check_rk(r, k, gamma)
    full = _check_intermediates(intermediates)
    target = {"kind": "threshold", "r": r}
    if method == "minimax":
        if reading is not None:
            raise InvalidParameterError("reading applies only to method='sherstov'")
        approx = minimax_least_degree(target, k, g, fix_zero=False, progress=progress)
        return dataclasses.replace(
            approx, construction="rofk/minimax",
            params={"r": r, "k": k, "gamma": fmpq_str(g), "method": "minimax"})
    check_int(max_degree, "max_degree", minimum=1, maximum=MAX_DEGREE)
    prm = sherstov_parameters(r, k, g, reading)
    _check_size(prm, max_degree)
    # step 8 over the least common multiple L of the denominators E_l of the terms (known
    # before any large polynomial): p = (L - sum_l q3num_l * (L / E_l)) / L, accumulated
    # coefficient by coefficient so that only one term's polynomials exist at a time
    setups = [setup(l_, prm) for l_ in prm.ells]
    L = fmpz(1)
    for ts in setups:
        L = L // L.gcd(ts.E) * abs(ts.E)
    acc: list[fmpz] = [fmpz(0)] * (max(prm.degree.values(), default=0) + 1)
    acc[0] = L

    def accumulate(ts: TermSetup, q3: Fraction) -> None:
        z, E = q3
        scale = L // E  # exact, with the sign of E
        for j, c in enumerate(z.coeffs()):
            acc[j] -= c * scale

    records = build_terms(prm, setups, full, progress, accumulate)
    report(progress, "construction: common denominator", 0, 1)
    p = reduced_poly(acc, L)  # 1 - sum_l q3_l
    report(progress, "construction: common denominator", 1, 1)
    return Approximation(
        construction="rofk/sherstov",
        params={"r": r, "k": k, "gamma": fmpq_str(g), "method": "sherstov",
                "reading": dict(prm.reading)},
        poly=MonomialPoly.from_fmpq_poly(p),
        target=target,
        domain={"kind": "integers", "lo": 0, "hi": k},
        claims={"max_error": fmpq_str(g)},
        extra={
            "sherstov": {
                **prm.to_json(),
                "paper_assumptions": _assumptions(prm),
                "steps": records,
            }
        },
    )
