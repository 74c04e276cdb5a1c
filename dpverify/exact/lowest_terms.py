"""Many fractions ``n_i / den`` with one common denominator, reduced to lowest terms at once.

An :class:`flint.fmpq_poly` stores ``sum n_i x^i / den``: integer numerators over one
denominator.  Reading its coefficients one by one (``fmpq_poly.coeffs()``) reduces each
``n_i / den`` with a full gcd of two numbers as long as ``den`` -- for the r-of-k
polynomials of thaler2012 Appendix B, 10^5-bit numbers, thousands of times, and the cost
of most of a certificate.  Those denominators have a special shape: a huge *smooth* part
(powers of the primes of ``k - l - Delta``, of 2 and of the step-3 ``eta``) times a
comparatively small *rough* part.  :func:`lowest_terms` uses it, without assuming it:

* ``den = S * R`` with ``S`` the part of ``den`` made of primes below
  :data:`SMALL_PRIME_BOUND` (found by trial division) and ``R = den / S``, so
  ``gcd(S, R) = 1`` and ``gcd(n, den) = gcd(n, S) * gcd(n, R)``;
* ``gcd(n, S) = prod_p p^min(v_p(n), v_p(den))`` over those primes: a remainder modulo a
  word-sized product of primes rules most of them out in one pass, and a valuation costs a
  few exact divisions where one is needed;
* ``gcd(n, R)``: for a block of numerators, ``gcd(prod_i (n_i mod R) mod R, R) = 1`` proves
  every ``gcd(n_i, R) = 1`` at the cost of one gcd; only a block where it fails is
  reduced numerator by numerator.

The result is exactly ``(n_i / g_i, den / g_i)`` with ``g_i = gcd(n_i, den)``, whatever the
shape of ``den`` (a denominator without a smooth part only loses the speed-up).

:func:`coefficient_strings` then writes the fractions in decimal, which is most of the
cost (``str`` of a 10^5-bit integer takes about a millisecond): each distinct reduced
denominator once, and long runs in forked worker processes (:mod:`dpverify.exact.forked`:
one per core; ``DPVERIFY_WORKERS=1`` turns them off).

Guarantee
---------
Exact: ``p_i / q_i == n_i / den`` with ``gcd(p_i, q_i) = 1`` and ``q_i > 0`` -- what
``fmpq(n_i, den)`` gives, without creating the ``fmpq`` (which would redo the gcd).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from flint import fmpq_poly, fmpz

from ..errors import InvalidParameterError, ParameterTypeError
from ..progress import ProgressCallback, report
from .forked import in_spans

__all__ = ["SMALL_PRIME_BOUND", "lowest_terms", "decimal_strings", "coefficient_strings"]

#: Primes below this bound are split off the denominator and handled by valuations.
SMALL_PRIME_BOUND = 1 << 12
#: Numerators per block of the rough-part product test.
_BLOCK = 32
#: progress reports come every _CHUNK + 1 numerators (a power of two minus one: a cheap mask)
_CHUNK = 63


def _small_primes(bound: int) -> list[int]:
    sieve = bytearray([1]) * bound
    sieve[0:2] = b"\x00\x00"
    for p in range(2, math.isqrt(bound - 1) + 1):
        if sieve[p]:
            sieve[p * p :: p] = bytearray(len(range(p * p, bound, p)))
    return [p for p in range(bound) if sieve[p]]


_PRIMES = _small_primes(SMALL_PRIME_BOUND)


def _packs(primes: Sequence[int]) -> list[tuple[int, list[int]]]:
    """Group primes into products below 2^62 (one word each): ``(product, primes)``."""
    out: list[tuple[int, list[int]]] = []
    prod = 1
    group: list[int] = []
    for p in primes:
        if prod * p >= 1 << 62:
            out.append((prod, group))
            prod, group = 1, []
        prod *= p
        group.append(p)
    if group:
        out.append((prod, group))
    return out


_ALL_PACKS = _packs(_PRIMES)


def _dividing(n: fmpz, packs: list[tuple[int, list[int]]]) -> list[int]:
    """The primes of ``packs`` that divide ``n`` (one word-sized remainder per pack)."""
    out: list[int] = []
    for prod, group in packs:
        rem = int(n % prod)
        out.extend(p for p in group if rem % p == 0)
    return out


def _word_power(p: int) -> tuple[int, int]:
    """``(j, p^j)`` with ``p^j`` the largest power of ``p`` below 2^62."""
    j, q = 1, p
    while q * p < 1 << 62:
        j, q = j + 1, q * p
    return j, q


def _valuation(n: fmpz, p: int) -> int:
    """``v_p(n)`` for ``n != 0``: word-sized remainders, one exact division per word."""
    j, pj = _word_power(p)
    v = 0
    while True:
        rem = int(n % pj)
        if rem:
            while rem % p == 0:
                rem //= p
                v += 1
            return v
        n = n // pj
        v += j


class _Prime:
    """One prime ``p`` of the denominator with its exponent ``e``, and the powers that
    compute ``min(v_p(n), e)`` in O(log e) divisions of numbers below ``p^e``."""

    def __init__(self, p: int, e: int) -> None:
        self.p, self.e = p, e
        self.word_j, self.word = _word_power(p)
        self.pe = fmpz(p) ** e
        self.pows = [fmpz(p)]  # p^(2^i) for 2^i <= e
        while 1 << len(self.pows) <= e:
            self.pows.append(self.pows[-1] * self.pows[-1])

    def capped_valuation(self, n: fmpz) -> int:
        """``min(v_p(n), e)`` for ``n != 0``."""
        rem = int(n % self.word)
        if rem:  # v < word_j: read it off the word
            v = 0
            while rem % self.p == 0:
                rem //= self.p
                v += 1
            return min(v, self.e)
        t = n % self.pe  # v_p(n) >= e iff t = 0; else v_p(n) = v_p(t) < e, t < p^e
        if t == 0:
            return self.e
        v = 0
        for i in range(len(self.pows) - 1, -1, -1):  # binary digits of v, greedily
            q, r = divmod(t, self.pows[i])
            if r == 0:
                t, v = q, v + (1 << i)
        return v


class _Den:
    """``den = S * R``: the primes below the bound with their exponents, and ``R``."""

    def __init__(self, den: fmpz) -> None:
        self.primes = {p: _Prime(p, _valuation(den, p)) for p in _dividing(den, _ALL_PACKS)}
        s = fmpz(1)
        for pr in self.primes.values():
            s *= pr.pe
        self.rough = den // s
        self.packs = _packs(sorted(self.primes))

    def smooth_gcd(self, n: fmpz) -> fmpz:
        g = fmpz(1)
        for p in _dividing(n, self.packs):
            g *= fmpz(p) ** self.primes[p].capped_valuation(n)
        return g


def _block_gcds(block: list[fmpz], den: fmpz, split: _Den) -> list[fmpz]:
    """``gcd(n, den)`` for every ``n`` of ``block`` (``den`` for ``n = 0``)."""
    rough = split.rough
    # the rough part: one gcd proves a whole block coprime to R
    if rough == 1:
        rgcd = [fmpz(1)] * len(block)
    else:
        res = [n % rough for n in block]
        acc = fmpz(1)
        for x in res:
            acc = acc * x % rough
        rgcd = ([fmpz(1)] * len(block) if acc.gcd(rough) == 1
                else [x.gcd(rough) for x in res])
    return [den if n == 0 else split.smooth_gcd(n) * r for n, r in zip(block, rgcd, strict=True)]


def _gcds(ns: list[fmpz], den: fmpz, progress: ProgressCallback | None,
          stage: str) -> list[fmpz]:
    """``gcd(n, den)`` for every ``n`` of ``ns``; ``den > 0``."""
    split = _Den(den)
    out: list[fmpz] = []
    report(progress, stage, 0, len(ns))
    for start in range(0, len(ns), _BLOCK):
        out.extend(_block_gcds(ns[start : start + _BLOCK], den, split))
        report(progress, stage, len(out), len(ns))
    return out


def _check(den: fmpz | int) -> fmpz:
    den = fmpz(den)
    if den <= 0:
        raise InvalidParameterError(f"den must be positive, got {den}")
    return den


def lowest_terms(nums: Sequence[fmpz | int], den: fmpz | int, *,
                 progress: ProgressCallback | None = None,
                 stage: str = "coefficients in lowest terms") -> list[tuple[fmpz, fmpz]]:
    """``(p_i, q_i)`` with ``p_i / q_i = nums[i] / den`` in lowest terms, ``q_i > 0``.

    Parameters
    ----------
    nums : sequence of fmpz (or int)
    den : fmpz or int, den > 0
    progress : callable, optional
        ``progress(stage, done, total)`` every 64 numerators (counts only).

    Guarantee
    ---------
    Exact (module docstring); ``(0, 1)`` for a zero numerator.
    """
    d = _check(den)
    ns = [fmpz(n) for n in nums]
    return [(n // g, d // g) for n, g in zip(ns, _gcds(ns, d, progress, stage), strict=True)]


#: what the forked workers read (set only while they run: inherited, never pickled)
_JOB: dict[str, Any] = {}


def _texts(a: int, b: int) -> list[str]:
    return [str(x) for x in _JOB["ints"][a:b]]


def _span_gcds(a: int, b: int) -> list[fmpz]:
    """``gcd(n, den)`` for the numerators ``a..b-1`` of the job."""
    ns, den, split = _JOB["nums"][a:b], _JOB["den"], _JOB["split"]
    out: list[fmpz] = []
    for start in range(0, len(ns), _BLOCK):
        out.extend(_block_gcds(ns[start : start + _BLOCK], den, split))
    return out


def _span_texts(a: int, b: int) -> list[str]:
    """The final ``"p"`` or ``"p/q"`` strings of the coefficients ``a..b-1`` of the job."""
    ns, gs, den_text = _JOB["nums"][a:b], _JOB["gcds"][a:b], _JOB["den_text"]
    out = []
    for n, g in zip(ns, gs, strict=True):
        q = den_text[g]
        out.append(str(n // g) if q == "1" else f"{n // g}/{q}")
    return out


def decimal_strings(xs: list[fmpz], *, progress: ProgressCallback | None = None,
                    stage: str = "coefficients in decimal") -> list[str]:
    """``[str(x) for x in xs]``, in worker processes when the conversion is long (module
    docstring); ``progress(stage, done, total)`` counts the integers converted."""
    _JOB["ints"] = xs
    try:
        return in_spans(_texts, len(xs), sum(x.bit_length() for x in xs), progress, stage)
    finally:
        _JOB.clear()


def coefficient_strings(p: fmpq_poly, *, progress: ProgressCallback | None = None,
                        stage: str = "coefficients in lowest terms") -> list[str]:
    """The coefficients of ``p`` as exact strings, lowest degree first: exactly
    ``[fmpq_str(c) for c in p.coeffs()]`` (``["0"]`` for the zero polynomial), computed
    by :func:`lowest_terms` from the common-denominator form (each string is ``"a"`` or
    ``"a/b"`` in lowest terms, ``b > 1``).  The decimal conversions are most of the cost
    (``str`` of 10^5-bit integers): a denominator shared by several coefficients is
    converted once, and long runs go to worker processes (module docstring)."""
    if not isinstance(p, fmpq_poly):
        raise ParameterTypeError(f"p must be an fmpq_poly, got {type(p).__name__}")
    nums = p.numer().coeffs()
    if not nums:
        return ["0"]
    den = p.denom()
    work = len(nums) * den.bit_length()
    _JOB.update(nums=nums, den=den, split=_Den(den))
    try:
        gs = in_spans(_span_gcds, len(nums), work // 4, progress, stage)
        # each distinct reduced denominator den / g converted once; then the numerators,
        # each worker writing final strings (only those, and the denominators' text, are
        # ever held here: the certificate of r = 5, k = 500 is 4 GB of digits)
        distinct = list(dict.fromkeys(gs))
        dens = [den // g for g in distinct]
        texts = decimal_strings(dens, progress=progress, stage=f"{stage}: denominators")
        del dens
        _JOB.update(nums=nums, gcds=gs, den_text=dict(zip(distinct, texts, strict=True)))
        del texts, distinct
        return in_spans(_span_texts, len(nums), work, progress, f"{stage}: numerators")
    finally:
        _JOB.clear()
