"""Exact discrete noise, safe against floating-point attacks (Mironov 2012).

Textbook Laplace noise drawn in floating point (numpy's Laplace sampler) leaks: the set of
doubles a sampler can output depends on the true value, so the output can reveal it
(Mironov, *On significance of the least significant bits for differential privacy*, CCS
2012).  Every sampler here works on **integers** and exact rationals only (Canonne, Kamath,
Steinke, *The discrete Gaussian for differential privacy*, NeurIPS 2020, "CKS" below):

* :func:`bernoulli_exp` -- ``Bernoulli(exp(-gamma))`` for rational ``gamma >= 0``
  (CKS Algorithm 1: for ``gamma in [0, 1]`` draw ``A_j ~ Bernoulli(gamma/j)`` until the first
  failure and return whether the number of draws is odd; for ``gamma > 1`` multiply
  ``floor(gamma)`` copies of ``Bernoulli(exp(-1))`` with one ``Bernoulli(exp(-frac))``).
* :func:`discrete_laplace` -- ``P[Z = z] = (1 - r)/(1 + r) r^|z|``, ``r = exp(-1/b)``, for a
  rational scale ``b`` (CKS Algorithm 2: uniform remainder + geometric by Bernoulli trials).
* :func:`discrete_gaussian` -- ``P[Z = z] ∝ exp(-z^2 / (2 sigma^2))`` for rational
  ``sigma^2`` (CKS Algorithm 3: rejection from a discrete Laplace of scale
  ``floor(sigma) + 1``).

The only primitive is ``randbelow(m)`` (a uniform integer in ``0..m-1``).  By default it is
:func:`secrets.randbelow` (the OS CSPRNG).  ``insecure_seed=`` switches to
``random.Random(seed).randrange`` -- reproducible, **not private**, for tests and
experiments only; only its integer output is used, never ``random()``.

Releasing real (rational) values on a grid
------------------------------------------
:func:`release_on_grid` releases ``f(D)`` (a vector of exact rationals) as
``step * (round(f(D)/step) + Z)`` with ``Z`` integer (discrete Laplace) noise.  Rounding is a
data-dependent post-step *before* the noise, so it enters the sensitivity:
``|round(a) - round(b)| <= ceil(|a - b|)`` (for ``round(v) = floor(v + 1/2)``:
``floor(x) - floor(y) < x - y + 1``), hence the integer vector ``round(f/step)`` has L1
sensitivity at most ``S1/step + m`` where ``S1`` is the L1 sensitivity of ``f`` and ``m`` the
number of coordinates that can change between neighbours (**rounding inflation**: at most
``m * step`` in the units of ``f``).  The noise is calibrated to the inflated integer
sensitivity ``ceil(S1/step) + m``, so the release is exactly ``epsilon``-DP.  When every
value of ``f`` already lies on the grid (``f(D) * (1/step)`` integral for every ``D``, e.g.
the TUV coefficient sums on the lattice ``1/(n Q)``, see :mod:`dpverify.mechanisms.tuv`),
pass ``exact_grid=True``: no rounding, no inflation (checked: a value off the grid raises).

Guarantee
---------
Sampling uses integer arithmetic only; the output distributions are exactly the stated pmfs
(up to the quality of the random source).  The pmfs are returned as rigorous ``arb`` balls;
log-pmf differences are exact rationals.  Bad parameters raise ``InvalidParameterError``.
"""

from __future__ import annotations

import random
import secrets
from collections.abc import Callable, Sequence
from math import isqrt
from typing import Any

from flint import arb, ctx, fmpq, fmpz

from .errors import InvalidParameterError, ParameterTypeError, PrecisionExhausted
from .numbers import (
    ExactLike,
    IntLike,
    arb_to_fmpq_bounds,
    check_int,
    check_rational,
    fmpq_str,
    fmpq_to_decimal,
    to_fmpq,
)

__all__ = [
    "RandomSource",
    "random_source",
    "sample_discrete_laplace",
    "round_to_grid",
    "short_rational",
    "bernoulli",
    "bernoulli_exp",
    "discrete_laplace",
    "discrete_gaussian",
    "discrete_laplace_vector",
    "discrete_gaussian_vector",
    "discrete_laplace_pmf",
    "discrete_gaussian_pmf",
    "discrete_laplace_tail",
    "discrete_laplace_union_quantile",
    "discrete_laplace_log_ratio",
    "discrete_gaussian_log_ratio",
    "release_on_grid",
    "EPSILON_MIN",
    "EPSILON_MAX",
    "check_epsilon",
    "check_delta",
]

#: Largest vector length drawn in one call (memory/time guard).
MAX_VECTOR = 10**7


# ---------------------------------------------------------------- privacy parameter ranges
# (here, the lowest layer that uses them: release_on_grid; every mechanism imports them
# through dpverify.mechanisms.privacy)

#: Documented range of the privacy parameter epsilon of every mechanism (also the PSI
#: epsilon of jin Algorithm 2): ``2^-64 <= epsilon <= 2^64``.  Why: below ``2^-64`` the noise
#: scale exceeds ``2^64`` times the sensitivity, so every released value is noise (no
#: answer carries a usable digit) and the certified accuracy statements are vacuous; above
#: ``2^64`` the guarantee ``e^epsilon`` is vacuous (``e^50`` is already ``5e21``) and the
#: accounting would need ``exp(epsilon)`` (advanced composition) beyond the ``2^131072``
#: exponent cap of :func:`dpverify.numbers.arb_to_fmpq_bounds`.  Inside the range every scale,
#: quantile and composition bound is within 64 bits of the sensitivity's size, so each
#: command's time is bounded independently of epsilon.
EPSILON_MIN = fmpq(1, 2**64)
EPSILON_MAX = fmpq(2**64)
#: delta has the documented range ``0 < delta < 1`` and needs no further bound: it enters
#: only through ``ln(1/delta)``, which is at most ``2.3e6`` for the longest number literal
#: accepted (:data:`dpverify.numbers.MAX_LITERAL` characters), so no delta makes a command
#: slow; ``delta >= 1`` permits anything and is refused.


def short_rational(q: fmpq) -> str:
    """A one-line rendering of a possibly huge rational for error messages."""
    if int(q.p).bit_length() + int(q.q).bit_length() <= 128:
        return fmpq_str(q)
    return fmpq_to_decimal(q, 6)


def check_epsilon(value: Any, name: str = "epsilon") -> fmpq:
    """``epsilon`` as an exact rational in the documented range ``[2^-64, 2^64]``
    (:data:`EPSILON_MIN`, :data:`EPSILON_MAX`; the reason is documented there).

    Raises ``InvalidParameterError`` naming ``name`` (a library parameter name, never a CLI
    flag) for a value outside the range, NaN/inf, or a non-number.
    """
    e = check_rational(value, name)
    if not EPSILON_MIN <= e <= EPSILON_MAX:
        raise InvalidParameterError(f"{name} must be in [2^-64, 2^64], got {short_rational(e)}")
    return e


def check_delta(value: Any, name: str = "delta") -> fmpq:
    """``delta`` as an exact rational in the documented range ``(0, 1)``.  Raises
    ``InvalidParameterError`` naming ``name``."""
    d = check_rational(value, name)
    if not 0 < d < 1:
        raise InvalidParameterError(f"{name} must be in (0, 1), got {short_rational(d)}")
    return d




class RandomSource:
    """Uniform integers ``randbelow(m)``; the OS CSPRNG unless ``insecure_seed`` is given.

    Guarantee
    ---------
    Default: :func:`secrets.randbelow` (suitable for privacy).  With ``insecure_seed`` the
    Mersenne twister of :class:`random.Random` (integer draws only) -- reproducible and
    **not private**; ``self.secure`` records which (and ``self.seed`` the seed, or
    ``None``).
    """

    def __init__(self, insecure_seed: int | None = None) -> None:
        self.seed: int | None = None
        if insecure_seed is None:
            self._below: Callable[[int], int] = secrets.randbelow
            self.secure = True
        else:
            seed = check_int(insecure_seed, "insecure_seed")
            self._below = random.Random(seed).randrange
            self.secure = False
            self.seed = seed

    def randbelow(self, m: int) -> int:
        """Uniform integer in ``0..m-1`` (``m >= 1``)."""
        return self._below(m)


def _source(rng: RandomSource | None, insecure_seed: int | None) -> RandomSource:
    if rng is not None:
        if insecure_seed is not None:
            raise InvalidParameterError("give rng or insecure_seed, not both")
        if not isinstance(rng, RandomSource):
            raise ParameterTypeError(f"rng must be a RandomSource, got {type(rng).__name__}")
        return rng
    return RandomSource(insecure_seed)


def _pq(value: Any, name: str, positive: bool = True) -> tuple[int, int]:
    q = check_rational(value, name, 0, None, low_open=positive)
    return int(q.p), int(q.q)


def bernoulli(p: Any, *, rng: RandomSource | None = None, insecure_seed: int | None = None) -> int:
    """``Bernoulli(p)`` for an exact rational ``p in [0, 1]``: ``randbelow(den) < num``.

    Guarantee
    ---------
    Exact probability ``p`` (integer arithmetic).
    """
    q = check_rational(p, "p", 0, 1)
    src = _source(rng, insecure_seed)
    return int(src.randbelow(int(q.q)) < int(q.p))


def _bern_frac(num: int, den: int, src: RandomSource) -> bool:
    return src.randbelow(den) < num


def _bern_exp_unit(num: int, den: int, src: RandomSource) -> bool:
    """Bernoulli(exp(-num/den)) for 0 <= num/den <= 1 (CKS Algorithm 1, first part)."""
    j = 1
    while _bern_frac(num, den * j, src):  # A_j ~ Bernoulli(gamma / j)
        j += 1
    return j % 2 == 1


def _bern_exp(num: int, den: int, src: RandomSource) -> bool:
    whole = num // den
    for _ in range(whole):
        if not _bern_exp_unit(1, 1, src):
            return False
    return _bern_exp_unit(num - whole * den, den, src)


def bernoulli_exp(
    gamma: ExactLike, *, rng: RandomSource | None = None, insecure_seed: int | None = None
) -> int:
    """``Bernoulli(exp(-gamma))`` for an exact rational ``gamma >= 0`` (CKS Algorithm 1).

    Guarantee
    ---------
    Exact: for ``gamma in [0, 1]`` the number ``K`` of the first failing draw
    ``A_K ~ Bernoulli(gamma/K)`` satisfies ``P[K > k] = gamma^k/k!``, so
    ``P[K odd] = sum_k (-gamma)^k/k! = exp(-gamma)``.  Integer arithmetic only.
    """
    num, den = _pq(gamma, "gamma", positive=False)
    return int(_bern_exp(num, den, _source(rng, insecure_seed)))


def _dlap(t: int, s: int, src: RandomSource) -> int:
    """Discrete Laplace with scale t/s (pmf ∝ exp(-|z| s/t)); CKS Algorithm 2."""
    while True:
        u = src.randbelow(t)
        if not _bern_exp(u, t, src):
            continue
        v = 0
        while _bern_exp_unit(1, 1, src):
            v += 1
        x = u + t * v  # geometric with ratio exp(-1/t)
        y = x // s  # geometric with ratio exp(-s/t)
        b = src.randbelow(2)
        if b == 1 and y == 0:
            continue
        return -y if b else y


def discrete_laplace(
    scale: ExactLike, *, rng: RandomSource | None = None, insecure_seed: int | None = None
) -> int:
    """One draw of the discrete Laplace distribution with exact rational ``scale = b > 0``.

    ``P[Z = z] = (1 - r)/(1 + r) * r^|z|`` with ``r = exp(-1/b)``, ``z`` an integer.

    Guarantee
    ---------
    Exact distribution (CKS 2020 Algorithm 2), integer arithmetic only; default randomness
    from the OS.  Adding it to an integer-valued function with L1 sensitivity ``Delta`` is
    ``Delta/b``-DP (see :func:`dpverify.mechanisms.privacy.laplace_privacy`).
    """
    t, s = _pq(scale, "scale")
    return _dlap(t, s, _source(rng, insecure_seed))


def _floor_sqrt(p: int, q: int) -> int:
    # floor(sqrt(p/q)) = floor(isqrt(p*q)/q)
    return isqrt(p * q) // q


def _sample_dgaussian(p: int, q: int, src: RandomSource) -> int:
    """Discrete Gaussian with sigma^2 = p/q (CKS Algorithm 3)."""
    t = _floor_sqrt(p, q) + 1
    while True:
        y = _dlap(t, 1, src)
        # accept with exp(-(|y| - sigma^2/t)^2 / (2 sigma^2)), sigma^2 = p/q
        # (|y| - p/(q t))^2 / (2 p/q) = (|y| q t - p)^2 / (2 p q t^2)
        num = (abs(y) * q * t - p) ** 2
        den = 2 * p * q * t * t
        if _bern_exp(num, den, src):
            return y


def discrete_gaussian(
    sigma2: ExactLike, *, rng: RandomSource | None = None, insecure_seed: int | None = None
) -> int:
    """One draw of the discrete Gaussian ``N_Z(0, sigma^2)``, exact rational ``sigma2 > 0``.

    ``P[Z = z] = exp(-z^2/(2 sigma^2)) / sum_{w in Z} exp(-w^2/(2 sigma^2))``.

    Guarantee
    ---------
    Exact distribution (CKS 2020 Algorithm 3: rejection sampling from a discrete Laplace of
    scale ``floor(sigma) + 1``), integer arithmetic only.
    """
    p, q = _pq(sigma2, "sigma2")
    return _sample_dgaussian(p, q, _source(rng, insecure_seed))


def _check_len(n: Any) -> int:
    return check_int(n, "n", minimum=0, maximum=MAX_VECTOR)


def _draws(n: int, draw: Any, progress: Any) -> list[int]:
    if progress is None:
        return [draw() for _ in range(n)]
    out: list[int] = []
    for i0 in range(0, n, 8192):  # one progress report per 8192 draws
        out.extend(draw() for _ in range(min(8192, n - i0)))
        progress("noise", len(out), n)
    return out


def discrete_laplace_vector(
    n: IntLike, scale: ExactLike, *, rng: RandomSource | None = None,
        insecure_seed: int | None = None,
    progress: Any = None,
) -> list[int]:
    """``n`` independent draws of :func:`discrete_laplace` (same guarantee).
    ``progress``: optional ``(stage, done, total)`` callback (:mod:`dpverify.progress`)."""
    n = _check_len(n)
    t, s = _pq(scale, "scale")
    src = _source(rng, insecure_seed)
    return _draws(n, lambda: _dlap(t, s, src), progress)


def discrete_gaussian_vector(
    n: IntLike, sigma2: ExactLike, *, rng: RandomSource | None = None,
        insecure_seed: int | None = None,
    progress: Any = None,
) -> list[int]:
    """``n`` independent draws of :func:`discrete_gaussian` (same guarantee).
    ``progress``: optional ``(stage, done, total)`` callback (:mod:`dpverify.progress`)."""
    n = _check_len(n)
    p, q = _pq(sigma2, "sigma2")
    src = _source(rng, insecure_seed)
    return _draws(n, lambda: _sample_dgaussian(p, q, src), progress)


# ---------------------------------------------------------------------------- exact pmfs


def discrete_laplace_pmf(z: Any, scale: ExactLike) -> arb:
    """``P[Z = z]`` for the discrete Laplace of scale ``b``: ``(1-r)/(1+r) r^|z|``,
    ``r = exp(-1/b)`` (rigorous arb ball)."""
    z = check_int(z, "z")
    b = check_rational(scale, "scale", 0, None, low_open=True)
    r = (-arb(1 / b)).exp()
    return (1 - r) / (1 + r) * (-arb(abs(z) / b)).exp()


def discrete_laplace_tail(m: IntLike, scale: ExactLike) -> arb:
    """``P[|Z| >= m]`` for the discrete Laplace of scale ``b``: ``2 r^m/(1 + r)`` for
    ``m >= 1`` (sum of the geometric series), 1 for ``m <= 0``.  Rigorous arb ball."""
    m = check_int(m, "m")
    b = check_rational(scale, "scale", 0, None, low_open=True)
    if m <= 0:
        return arb(1)
    r = (-arb(1 / b)).exp()
    return 2 * (-arb(fmpq(m) / b)).exp() / (1 + r)


#: Precision cap (bits) of :func:`discrete_laplace_union_quantile`; the needed precision is
#: about ``log2(scale) + 64`` bits, so the cap is reached only for scales above ``2^65000``.
_QUANTILE_MAX_PREC = 1 << 16


def discrete_laplace_union_quantile(count: Any, scale: ExactLike, beta: ExactLike) -> int:
    """Least integer ``m >= 1`` with ``count * P[|Z| >= m] <= beta`` for ``Z`` discrete
    Laplace of scale ``b`` (``P[|Z| >= m] = 2 r^m/(1 + r)``, ``r = exp(-1/b)``).

    By the union bound, with probability ``>= 1 - beta`` all ``count`` independent draws
    satisfy ``|Z| <= m - 1``.

    Method
    ------
    The inequality is ``m >= b L`` with ``L = ln(2 count/(beta (1 + r)))``, so the answer is
    ``max(1, ceil(b L))``.  ``b L`` is never an integer (for an integer ``m``,
    ``2 count e^{-m/b} = beta (1 + e^{-1/b})`` contradicts the Lindemann-Weierstrass
    theorem), so enclosing ``b L`` in a ball that contains no integer decides the ceiling;
    the precision starts at ``log2(b) + 64`` bits and doubles until it does (cap
    ``2^16`` bits, then ``PrecisionExhausted``).  The answer is then re-checked directly in
    arb: ``m`` satisfies the inequality and ``m - 1`` (if ``>= 1``) does not.  The cost is
    independent of the size of ``b`` (a linear search from a guess would take ``~b 2^-52``
    steps at 53 bits: the hang of ``tuv-release --epsilon 1e-400``).

    Guarantee
    ---------
    Rigorous (arb; True only when certainly true).  ``count`` integer ``>= 1``, ``scale``
    exact ``> 0``, ``beta`` exact in ``(0, 1)``.
    """
    K = check_int(count, "count", minimum=1)
    b = check_rational(scale, "scale", 0, None, low_open=True)
    be = check_rational(beta, "beta", 0, 1, low_open=True, high_open=True)
    mag = max(int(b.p).bit_length() - int(b.q).bit_length(), 0)
    prec = mag + 64 + K.bit_length() + max(int(be.q).bit_length(), 0) // 8
    while prec <= _QUANTILE_MAX_PREC:
        with ctx.workprec(prec):
            ab, abeta = arb(b), arb(be)
            r = (-1 / ab).exp()
            bl = ab * (2 * arb(K) / (abeta * (1 + r))).log()
            if bl.upper() < 1:
                m = 1
            else:
                lo, hi = arb_to_fmpq_bounds(bl)
                fl_lo, fl_hi = int(lo.p // lo.q), int(hi.p // hi.q)
                if fl_lo != fl_hi or lo.q == 1 and lo.p == fl_lo:
                    prec *= 2  # the ball contains (or touches) an integer: refine
                    continue
                m = max(1, fl_hi + 1)

            tail_m = K * 2 * (-arb(m) / ab).exp() / (1 + r)  # K P[|Z| >= m]
            tail_m1 = K * 2 * (-arb(m - 1) / ab).exp() / (1 + r)
            if bool(tail_m <= abeta) and (m == 1 or bool(tail_m1 > abeta)):
                return m
        prec *= 2
    raise PrecisionExhausted(
        f"could not decide the noise quantile for scale {fmpq_str(b)[:40]}... within "
        f"{_QUANTILE_MAX_PREC} bits")


def _gauss_normaliser(s2: fmpq) -> arb:
    """``sum_{w in Z} exp(-w^2/(2 s2))`` with a rigorous tail bound."""
    # terms w = 1..W, tail sum_{w > W} exp(-w^2/(2s2)) <= exp(-W^2/(2 s2)) * 1/(1 - e^{-W/s2})
    if s2 > 10**12:
        raise InvalidParameterError("sigma2 too large for the exact normaliser (> 10^12)")
    w_max = 12 * _floor_sqrt(int(s2.p), int(s2.q)) + 2
    total = arb(1)
    for w in range(1, w_max + 1):
        total += 2 * (-arb(fmpq(w * w) / (2 * s2))).exp()
    x = -arb(fmpq((w_max + 1) ** 2) / (2 * s2))
    tail = 2 * x.exp() / (1 - (-arb(fmpq(w_max + 1) / s2)).exp())
    return total + arb(0, tail.upper())


def discrete_gaussian_pmf(z: Any, sigma2: ExactLike) -> arb:
    """``P[Z = z]`` for the discrete Gaussian with ``sigma^2 = sigma2`` (rigorous arb ball:
    finite sum plus a geometric bound on the tail of the normaliser)."""
    z = check_int(z, "z")
    s2 = check_rational(sigma2, "sigma2", 0, None, low_open=True)
    return (-arb(fmpq(z * z) / (2 * s2))).exp() / _gauss_normaliser(s2)


def discrete_laplace_log_ratio(v: Any, mu: ExactLike, mu2: ExactLike, scale: ExactLike) -> fmpq:
    """Exact ``ln(P[mu + Z = v] / P[mu2 + Z = v])`` for discrete Laplace noise:
    ``(|v - mu2| - |v - mu|)/b`` (the normalisers cancel); ``<= |mu - mu2|/b``."""
    v, mu, mu2 = (check_int(a, n) for a, n in ((v, "v"), (mu, "mu"), (mu2, "mu2")))
    b = check_rational(scale, "scale", 0, None, low_open=True)
    return fmpq(abs(v - mu2) - abs(v - mu)) / b


def discrete_gaussian_log_ratio(v: Any, mu: ExactLike, mu2: ExactLike, sigma2: ExactLike) -> fmpq:
    """Exact ``ln(P[mu + Z = v] / P[mu2 + Z = v])`` for discrete Gaussian noise:
    ``((v - mu2)^2 - (v - mu)^2)/(2 sigma^2)``."""
    v, mu, mu2 = (check_int(a, n) for a, n in ((v, "v"), (mu, "mu"), (mu2, "mu2")))
    s2 = check_rational(sigma2, "sigma2", 0, None, low_open=True)
    return fmpq((v - mu2) ** 2 - (v - mu) ** 2) / (2 * s2)


# ---------------------------------------------------------------------------- grid release


def _round_half_up(q: fmpq) -> int:
    """``floor(q + 1/2)`` exactly."""
    num = 2 * int(q.p) + int(q.q)
    return num // (2 * int(q.q))


def release_on_grid(
    values: Sequence[Any],
    step: Any,
    sensitivity_l1: ExactLike,
    epsilon: ExactLike,
    *,
    changing_coordinates: Any = None,
    exact_grid: bool = False,
    rng: RandomSource | None = None,
    insecure_seed: int | None = None,
) -> dict[str, Any]:
    """Release rational values on the grid ``step * Z`` with discrete Laplace noise.

    Parameters
    ----------
    values : sequence of exact numbers -- ``f(D)``.
    step : exact rational > 0 -- the grid.
    sensitivity_l1 : exact >= 0 -- L1 sensitivity ``S1`` of ``f`` (one row replaced).
    epsilon : exact, in the documented range ``[2^-64, 2^64]``
        (:func:`dpverify.mechanisms.privacy.check_epsilon`).
    changing_coordinates : int, optional
        How many coordinates can differ between neighbours (default ``len(values)``); it
        bounds the rounding inflation.
    exact_grid : bool
        The caller guarantees ``f(D)/step`` is an integer vector for *every* database, so no
        rounding is needed (checked on this ``D``; an off-grid value raises).

    Returns
    -------
    dict with ``released`` (list of fmpq), ``integer_sensitivity`` (``ceil(S1/step) + m``, or
    ``S1/step`` on an exact grid), ``rounding_inflation`` (``m*step`` or 0), ``noise_scale``
    (in grid units, ``integer_sensitivity/epsilon``), ``epsilon`` (achieved, exactly the
    requested one), ``secure_randomness``.

    Guarantee
    ---------
    ``epsilon``-DP exactly (discrete Laplace on the integer vector ``round(f/step)`` whose L1
    sensitivity is bounded as in the module docstring); integer noise only; outputs exact.
    """
    if isinstance(values, (str, bytes)) or not isinstance(values, Sequence):
        raise ParameterTypeError(f"values must be a sequence, got {type(values).__name__}")
    if len(values) > MAX_VECTOR:
        raise InvalidParameterError(f"values has {len(values)} entries, more than {MAX_VECTOR}")
    h = check_rational(step, "step", 0, None, low_open=True)
    s1 = check_rational(sensitivity_l1, "sensitivity_l1", 0, None)
    eps = check_epsilon(epsilon)
    m = len(values) if changing_coordinates is None else check_int(
        changing_coordinates, "changing_coordinates", minimum=0, maximum=len(values))
    vals = [to_fmpq(v, f"values[{i}]") for i, v in enumerate(values)]
    ints: list[int] = []
    if exact_grid:
        for i, v in enumerate(vals):
            u = v / h
            if u.q != 1:
                raise InvalidParameterError(
                    f"values[{i}] = {fmpq_str(v)} is not on the grid {fmpq_str(h)} * Z")
            ints.append(int(u.p))
        isens = s1 / h
        inflation = fmpq(0)
    else:
        ints = [_round_half_up(v / h) for v in vals]
        c = s1 / h
        isens = fmpq(-((-int(c.p)) // int(c.q)) + m)
        inflation = m * h
    src = _source(rng, insecure_seed)
    if isens == 0:
        noise = [0] * len(ints)
        scale = fmpq(0)
    else:
        scale = isens / eps
        noise = [_dlap(int(scale.p), int(scale.q), src) for _ in ints]
    return {
        "released": [h * (a + z) for a, z in zip(ints, noise, strict=True)],
        "step": h,
        "integer_sensitivity": isens,
        "rounding_inflation": inflation,
        "noise_scale": scale,
        "noise_scale_units": "grid steps (multiply by step for the value scale)",
        "epsilon": eps,
        "secure_randomness": src.secure,
        "sampler": "discrete Laplace, Canonne-Kamath-Steinke 2020 Algorithm 2",
    }


# ----------------------------------------------------------- lattice noise for releases


def random_source(insecure_seed: Any) -> RandomSource:
    """OS CSPRNG by default; a seeded integer generator only when asked explicitly."""
    return RandomSource(None if insecure_seed is None else int(insecure_seed))


def sample_discrete_laplace(scale: ExactLike, grid: Any, rng: RandomSource) -> fmpq:
    """``grid * DLap(scale / grid)``: P(Z = j g) proportional to ``exp(-|j| g / scale)``.

    Exact (:func:`discrete_laplace`, integer arithmetic only).
    """
    scale, grid = to_fmpq(scale, "scale"), to_fmpq(grid, "grid")
    return grid * discrete_laplace(scale / grid, rng=rng)


def round_to_grid(value: Any, grid: fmpq) -> fmpq:
    """Nearest multiple of ``grid`` (ties up) of a value, exactly; a float (Python or numpy)
    means its exact binary value and must be finite.

    >>> round_to_grid(fmpq(7, 10), fmpq(1, 4))
    3/4
    """
    m = to_fmpq(value, "function value") / grid
    return grid * fmpz((m.p * 2 + m.q) // (2 * m.q))
