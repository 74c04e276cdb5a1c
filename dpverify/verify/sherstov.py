"""Sherstov's r-of-k and EXACT_l polynomials (thaler2012 Appendix B), rebuilt by the checker.

The checker's own derivation of the construction of ``docs/sherstov.md`` under a reading
of its suspicious symbols (default ``delta=log_k, d=z, log_base=e, ell_range=0..r-1``):

* ``Delta`` = least ``e`` with ``k^e >= k/gamma`` (``log_k``) or ``2^e >= k/gamma``
  (``log_2``); ``L`` = least ``e`` with ``exp(e) >= k`` (base ``e``) or ``2^e >= k``;
  ``z = 3 Delta L``; ``d = z``, ``Delta``, or the least ``e`` with ``exp(e) >= k/gamma``;
* for each ``l`` (``0..r-1`` or ``1..r-1``; EXACT_l: the one ``l``), ``m = k - l - Delta``
  (the construction is undefined unless ``k >= 2`` and ``m > 0``),
  ``D = ceil(sqrt(m/(l+Delta)))``, ``N`` = least ``n`` with ``2 n^2 >= x^2``,
  ``x = 8 (d+1)(l+Delta)/Delta``, ``eta = Delta^2/(64 (l+Delta)^2)``;
* in the count ``t`` (``s = k - t`` in the paper): ``P1(t) = T_D((k - t)/m)``,
  ``A(t) = 1 + eta - ((P1(t) - P1(l))/8)^2``, and
  ``q3_l(t) = T_N(A(t)) Q1(t) / (T_N(1 + eta) Q1(l))`` with
  ``Q1(t) = prod_{0 < |i| < Delta} (l + i - t)`` (``P1(l) = T_D((k-l)/m)`` so ``A(l) = 1 + eta``;
  ``Q1(l) = prod i``);
* r-of-k: ``p = 1 - sum_l q3_l``; EXACT_l: ``p = q3_l``.

This is the paper's steps 1-8 with the substitution ``s = k - t`` made before expanding
(the certifier expands in ``s`` and substitutes last), so it shares no code path with
``dpverify.constructions.sherstov``; equal polynomials are equal whatever the route.
``T_N(A)`` is built by the doubling formulas on integer polynomials:
``U_n = den^n T_n(a/den)`` has integer coefficients and ``U_{2m} = 2 U_m^2 - den^{2m}``,
``U_{2m+1} = 2 U_m U_{m+1} - a den^{2m}``.

Before the exact build (its cost is estimated and charged against the budgets), both
sides are compared modulo the prime ``2^61 - 1`` at a fixed point: a difference there
proves the polynomials differ (a match proves nothing; the exact comparison decides).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from flint import arb, fmpq, fmpq_poly, fmpz, fmpz_poly, nmod_poly

from .numbers import working
from .report import Checks

__all__ = ["READING_KEYS", "READING_OPTIONS", "DEFAULT_READING", "Params", "parameters",
           "fingerprint", "build", "check_sherstov"]

#: the reading keys and their values (docs/sherstov.md)
READING_OPTIONS: dict[str, tuple[str, ...]] = {
    "delta": ("log_k", "log_2"), "d": ("z", "Delta", "log_k_over_gamma"),
    "log_base": ("e", "2"), "ell_range": ("0..r-1", "1..r-1")}
DEFAULT_READING = {"delta": "log_k", "d": "z", "log_base": "e", "ell_range": "0..r-1"}
#: the keys of each construction's reading (EXACT_l has one l: no ell_range)
READING_KEYS = {"rofk/sherstov": ("delta", "d", "log_base", "ell_range"),
                "exact_l/sherstov": ("delta", "d", "log_base")}
#: the prime of the fingerprint and the point where both sides are evaluated
PRIME = 2**61 - 1
POINT = 1_234_567_891_011


@dataclass(frozen=True)
class Params:
    """The scalar parameters of one construction (all exact)."""

    k: int
    Delta: int
    d: int
    ells: tuple[int, ...]
    D: dict[int, int]
    N: dict[int, int]
    eta: dict[int, fmpq]

    def degree(self, l_: int) -> int:
        return 2 * self.D[l_] * self.N[l_] + 2 * (self.Delta - 1)


def _least_power(base: int, target: fmpq) -> int:
    """Least ``e >= 0`` with ``base^e >= target`` (``base >= 2``; exact)."""
    if target <= 1:
        return 0

    def ok(e: int) -> bool:
        return bool(fmpz(base) ** e * target.q >= target.p)

    hi = 1
    while not ok(hi):  # O(log e) exact powers, then bisection
        hi *= 2
    lo = hi // 2  # not ok (or 0, and target > 1 = base^0)
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (lo, mid) if ok(mid) else (mid, hi)
    return hi


def _least_exp(target: fmpq) -> int:
    """Least integer ``e >= 0`` with ``exp(e) >= target``: ``ceil(log target)``, decided in
    arb (``exp(e)`` is irrational for ``e >= 1``, never equal to a rational)."""
    if target <= 1:
        return 0
    prec = 64
    while True:
        with working(prec):
            lg = arb(target).log()
            lo, hi = lg.lower().floor().unique_fmpz(), lg.upper().floor().unique_fmpz()
            if lo is not None and lo == hi:  # floor(log target) is known; log target is
                # irrational (target > 1 is rational) so the ceiling is floor + 1
                return int(lo) + 1
        prec *= 2


def _ceil_sqrt(a: fmpq) -> int:
    """Least integer ``n >= 0`` with ``n^2 >= a`` (exact)."""
    if a <= 0:
        return 0
    n = int(fmpz(a.p // a.q).isqrt())
    while fmpq(n * n) < a:
        n += 1
    return n


def parameters(name: str, k: int, gamma: fmpq, reading: dict[str, str],
               r: int = 0, l_: int = 0, tick: Callable[[], None] = lambda: None
               ) -> Params | str:
    """The parameters of ``name`` (``rofk/sherstov`` with ``r``, ``exact_l/sherstov`` with
    ``l_``), or a sentence saying why the construction is undefined there (``tick`` is
    called once per term: ``r`` may be large)."""
    if k < 2:
        return "k < 2: Delta divides by log k = 0"
    kg = fmpq(k) / gamma
    Delta = _least_power(k, kg) if reading["delta"] == "log_k" else _least_power(2, kg)
    big_l = _least_exp(fmpq(k)) if reading["log_base"] == "e" else _least_power(2, fmpq(k))
    z = 3 * Delta * big_l
    d = {"z": z, "Delta": Delta}.get(reading["d"])
    if d is None:
        d = _least_exp(kg)
    if name == "exact_l/sherstov":
        ells: tuple[int, ...] = (l_,)
    else:
        ells = tuple(range(0 if reading.get("ell_range", "0..r-1") == "0..r-1" else 1, r))
    D, N, eta = {}, {}, {}
    for ell in ells:
        tick()
        m = k - ell - Delta
        if m <= 0:
            return f"k - l - Delta = {m} <= 0 at l = {ell} (Delta = {Delta}): step 1 divides by it"
        D[ell] = _ceil_sqrt(fmpq(m, ell + Delta))
        x = fmpq(8 * (d + 1) * (ell + Delta), Delta)
        N[ell] = _ceil_sqrt(x * x / 2)
        eta[ell] = fmpq(Delta * Delta, 64 * (ell + Delta) ** 2)
    return Params(k, Delta, d, ells, D, N, eta)


def _q1_at_l(Delta: int) -> int:
    out = 1
    for i in range(1, Delta):
        out *= -i * i
    return out


# ------------------------------------------------------------------ fingerprint modulo PRIME


def _inv(a: int) -> int | None:
    a %= PRIME
    return None if a == 0 else pow(a, -1, PRIME)


def _t_mod(n: int, a: int) -> int:
    lo, hi = 1, a % PRIME
    for bit in bin(n)[2:]:
        if bit == "0":
            lo, hi = (2 * lo * lo - 1) % PRIME, (2 * lo * hi - a) % PRIME
        else:
            lo, hi = (2 * lo * hi - a) % PRIME, (2 * hi * hi - 1) % PRIME
    return lo


def _frac(q: fmpq) -> int | None:
    inv = _inv(int(q.q % PRIME))
    return None if inv is None else int(q.p % PRIME) * inv % PRIME


def fingerprint(name: str, prm: Params, x: int = POINT,
                tick: Callable[[], None] = lambda: None) -> int | None:
    """The construction's value at ``x`` modulo PRIME (None: a denominator vanishes there)."""
    total = 0
    for ell in prm.ells:
        tick()
        m_inv = _inv(prm.k - ell - prm.Delta)
        e = _frac(1 + prm.eta[ell])
        if m_inv is None or e is None:
            return None
        D, N = prm.D[ell], prm.N[ell]
        w = (_t_mod(D, (prm.k - x) * m_inv) - _t_mod(D, (prm.k - ell) * m_inv)) % PRIME
        a = (e - w * w * pow(64, -1, PRIME)) % PRIME
        q1 = 1
        for i in range(1, prm.Delta):
            q1 = q1 * (ell + i - x) * (ell - i - x) % PRIME
        den = _inv(_t_mod(N, e) * _q1_at_l(prm.Delta))
        if den is None:
            return None
        total += _t_mod(N, a) * q1 % PRIME * den
    return total % PRIME if name == "exact_l/sherstov" else (1 - total) % PRIME


def poly_mod(P: fmpq_poly, x: int = POINT) -> int | None:
    """``P(x)`` modulo PRIME (None when the denominator of ``P`` is divisible by PRIME)."""
    inv = _inv(int(P.denom() % PRIME))
    if inv is None:
        return None
    return int(nmod_poly(P.numer().coeffs(), PRIME)(x)) * inv % PRIME


# ------------------------------------------------------------------ exact build


def _t_of(n: int, a: fmpz_poly, den: fmpz, tick: Callable[[], None]) -> fmpz_poly:
    """``den^n T_n(a/den)`` (integer coefficients), by the doubling formulas."""
    lo, hi = fmpz_poly([1]), a  # U_m, U_{m+1} for m = 0
    dm = fmpz(1)  # den^(2m)
    for bit in bin(n)[2:]:
        tick()
        if bit == "0":
            lo, hi = 2 * lo * lo - dm, 2 * lo * hi - a * dm
            dm = dm * dm
        else:
            lo, hi = 2 * lo * hi - a * dm, 2 * hi * hi - dm * den * den
            dm = dm * dm * den * den
    return lo


def _numerator(prm: Params, ell: int) -> tuple[fmpz_poly, fmpz, fmpq]:
    """``(a, den, e)`` with ``A(t) = a(t)/den`` in the integers and ``1 + eta = e.p/e.q``."""
    m, D = prm.k - ell - prm.Delta, prm.D[ell]
    w = _t_of(D, fmpz_poly([prm.k, -1]), fmpz(m), lambda: None)
    w -= _t_of(D, fmpz_poly([prm.k - ell]), fmpz(m), lambda: None)  # m^D (P1(t) - P1(l))
    e = 1 + prm.eta[ell]
    scale = 64 * fmpz(m) ** (2 * D)
    return e.p * scale - e.q * w * w, e.q * scale, e


def cost_bits(prm: Params) -> int:
    """About the bits of the integer polynomials the exact build holds (for the budgets;
    producing them costs about ``log2 N`` times more: the doubling steps)."""
    total = 0
    for ell in prm.ells:
        if total > 2**63:  # already far beyond any budget: no need to look further
            break
        a, den, _ = _numerator(prm, ell)
        top = max([int(c.bit_length()) for c in a.coeffs()] + [int(den.bit_length())])
        total += (prm.degree(ell) + 1) * prm.N[ell] * (top + 2)
    return total


def build(name: str, prm: Params, tick: Callable[[], None]) -> fmpq_poly:
    """The construction's polynomial in ``t`` (exact)."""
    acc = fmpq_poly([0])
    for ell in prm.ells:
        a, den, e = _numerator(prm, ell)
        N = prm.N[ell]
        U = _t_of(N, a, den, tick)  # den^N T_N(A)
        tn = _t_of(N, fmpz_poly([e.p]), e.q, tick)[0]  # e.q^N T_N(1 + eta)
        q1 = fmpz_poly([1])
        for i in range(1, prm.Delta):
            q1 *= fmpz_poly([ell + i, -1]) * fmpz_poly([ell - i, -1])
        tick()
        # q3 = (U / den^N) q1 / ((tn / e.q^N) Q1(l))
        acc += fmpq_poly(U * q1 * (fmpz(e.q) ** N), fmpz(den) ** N * tn * _q1_at_l(prm.Delta))
    return acc if name == "exact_l/sherstov" else 1 - acc


def check_sherstov(name: str, P: fmpq_poly, prm: Params, ck: Checks,
                   afford: Callable[[str, int, int], None]) -> tuple[bool | None, str]:
    """Is ``P`` the construction ``name`` with parameters ``prm``?  Fingerprint first (a
    difference decides), then the exact build (``afford(what, bits)`` may refuse it)."""
    deg = max(prm.degree(ell) for ell in prm.ells) if prm.ells else 0
    fp, mine = poly_mod(P), fingerprint(name, prm, tick=ck.tick)
    if fp is not None and mine is not None and fp != mine:
        return False, (f"the polynomial differs from the construction (Delta = {prm.Delta}, "
                       f"d = {prm.d}, degree about {deg}): their values at {POINT} "
                       f"differ modulo 2^61 - 1")
    bits = cost_bits(prm)
    steps = max((n.bit_length() for n in prm.N.values()), default=1)
    afford(f"rebuilding {name} (degree about {deg})", bits, bits * steps)
    Q = build(name, prm, ck.tick)
    same = P == Q
    return same, (f"the polynomial {'equals' if same else 'differs from'} the construction "
                  f"rebuilt exactly (Delta = {prm.Delta}, d = {prm.d}, degree {Q.degree()})")
