"""Chebyshev OR / AND polynomials on integer counts (thaler2012 Fact 4.2, Section 4.1).

Canonical form (DESIGN.md).  For ``k >= 2`` let

    a = (k + 1)/(k - 1),      u(x) = (k + 1 - 2x)/(k - 1),

so ``u`` maps ``{1, ..., k}`` onto ``[-1, 1]`` and ``u(0) = a > 1``.  The OR polynomial is

    g(x) = 1 - T_t(u(x)) / T_t(a),

with ``t`` the least integer such that ``1/T_t(a) <= gamma``.  Then ``g(0) = 0`` exactly and
``max_{x in 1..k} |g(x) - 1| = 1/T_t(a)`` exactly (``|T_t| <= 1`` on ``[-1, 1]`` and
``T_t(u(1)) = T_t(1) = 1``).  ``t`` is decided in exact rational arithmetic: a float
estimate ``ceil(acosh(1/gamma)/acosh(a))`` is only a starting point, then ``T_t(a)`` and
``T_{t-1}(a)`` are computed exactly (``fmpq``, doubling formulas) and ``t`` is moved until
``T_t(a) * gamma >= 1 > T_{t-1}(a) * gamma``.  ``k = 1``: ``g(x) = x`` (error 0, ``t = 1``).

Chebyshev (stable) form.  ``ChebyshevPoly`` domains must be increasing, and ``u`` is
*decreasing* in ``x``, so we expose ``g`` in the variable ``v = -u(x) = (2x - k - 1)/(k - 1)``,
i.e. ``ChebyshevPoly`` on the domain ``(1, k)``: since ``T_t(-v) = (-1)^t T_t(v)``,

    g = 1*T_0(v) - ((-1)^t / T_t(a)) * T_t(v).

For AND (below) the same argument gives ``AND(x) = T_t(w)/T_t(a)`` with
``w = (2x - k + 1)/(k - 1)``, i.e. ``ChebyshevPoly`` on ``(0, k - 1)`` with the single
coefficient ``1/T_t(a)`` at index ``t``.  For ``k = 1`` the domain ``(0, 1)`` is used.

AND and non-monotone conjunctions / disjunctions (thaler2012 Section 4.1).

* Monotone conjunction.  For a query set ``S`` of ``k`` attributes and a record ``x``,
  ``AND_{j in S} x_j = 1 - OR_{j in S} (1 - x_j)``.  In the count ``c = #{j in S : x_j = 1}``
  the number of *failed* attributes is ``k - c``, so the univariate AND polynomial is
  ``p(c) = 1 - g(k - c)``; it equals 1 exactly at ``c = k`` and is within the same error
  ``1/T_t(a)`` of 0 on ``c in 0..k-1``; target ``{"kind": "threshold", "r": k}``.
  As a polynomial in the query vector ``y``: ``p_x(y) = 1 - g(sum_j y_j (1 - x_j))``.
  **Misprint**: the paper prints the identity as ``AND_{j=1}^d x_j y_j = 1 - OR_{j=1}^d
  (1 - x_j) y_j``; read literally (AND over all ``j`` of ``x_j y_j``) it is false, e.g.
  ``d = 2, x = (1, 1), y = (1, 0)``: left side ``(1*1) AND (1*0) = 0``, right side
  ``1 - ((0*1) OR (0*0)) = 1``.  The intended left side is ``AND_{j : y_j = 1} x_j``
  (equivalently ``AND_j (x_j OR NOT y_j)``), for which the identity holds (tested
  exhaustively for ``d <= 4`` in ``tests/test_chebyshev.py``).
* Non-monotone conjunctions / disjunctions.  Extend the universe to ``{0,1}^{2d}``: a record
  ``x`` becomes ``x' = (x_1..x_d, 1-x_1..1-x_d)``; the literal ``x_j`` is index ``j`` and
  ``NOT x_j`` is index ``d + j`` (0-based here).  A conjunction (disjunction) over literals
  is the monotone conjunction (disjunction) over the index set ``S'`` on ``x'``; see
  :func:`doubled_universe_indices`, :func:`doubled_record`.
* The paper also writes "We can use Lemma 4.2" for what is Fact 4.2 (numbering misprint).

Caps: ``k <= MAX_K`` (10^6) and ``t <= MAX_OR_DEGREE`` (5000) are refused up front.  The
degree cap is a memory limit: the ``t`` exact monomial coefficients have about
``2 t log2(k)`` bits each (numerator and denominator), ~0.6 t^2 log2(k) bytes as certificate
JSON; measured at the extreme ``k = 10^6, gamma = 1e-4`` (``t = 4952``): 236 MB of JSON,
1.05 GB peak memory, 36 s for ``dpverify or ... --out`` on a shared 2-core machine.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Iterable, Sequence
from typing import Any

import mpmath
from flint import fmpq, fmpq_poly, fmpz, fmpz_poly

from ..approximation import Approximation
from ..errors import InvalidParameterError, ParameterTypeError
from ..exact import ChebyshevPoly, MonomialPoly
from ..numbers import ExactLike, IntLike, check_int, check_open_unit, fmpq_str
from ..progress import ProgressCallback
from .minimax import minimax_least_degree

__all__ = [
    "MAX_K",
    "MAX_OR_DEGREE",
    "chebyshev_t_value",
    "or_degree",
    "or_polynomial",
    "or_chebyshev_form",
    "and_polynomial",
    "and_chebyshev_form",
    "doubled_record",
    "doubled_universe_indices",
]

#: Largest k accepted by :func:`or_polynomial` / :func:`and_polynomial`.
MAX_K = 10**6
#: Largest Chebyshev degree t built exactly (monomial coefficients grow like t*log2(k) bits).
MAX_OR_DEGREE = 5000

METHODS = ("chebyshev", "minimax")


# ---------------------------------------------------------------------------- validation


def _check_k(k: Any, name: str = "k") -> int:
    return check_int(k, name, minimum=1, maximum=MAX_K)


def _check_method(method: Any) -> str:
    if not isinstance(method, str) or method not in METHODS:
        raise InvalidParameterError(f"method must be 'chebyshev' or 'minimax', got {method!r}")
    return method


# ---------------------------------------------------------------------------- T_t(a) exactly


def chebyshev_t_value(t: int, a: Any) -> fmpq:
    """Exact ``T_t(a)`` for a rational ``a`` (doubling formulas, O(log t) fmpq operations).

    Uses ``T_{2m} = 2 T_m^2 - 1`` and ``T_{2m+1} = 2 T_m T_{m+1} - a``.

    Guarantee
    ---------
    Exact (fmpq).  ``t`` must be an integer ``>= 0``.
    """
    t = check_int(t, "t", minimum=0, maximum=10 * MAX_OR_DEGREE)
    a = fmpq(a) if not isinstance(a, fmpq) else a

    def pair(n: int) -> tuple[fmpq, fmpq]:  # (T_n(a), T_{n+1}(a))
        if n == 0:
            return fmpq(1), a
        tm, tm1 = pair(n // 2)
        if n % 2 == 0:
            return 2 * tm * tm - 1, 2 * tm * tm1 - a
        return 2 * tm * tm1 - a, 2 * tm1 * tm1 - 1

    return pair(t)[0]


def _estimate_degree(k: int, gamma: fmpq) -> int:
    """Float estimate of the least t with T_t(a) >= 1/gamma (search only, never decides)."""
    with mpmath.workprec(80):
        a = mpmath.mpf(k + 1) / (k - 1)
        inv = mpmath.mpf(int(gamma.q)) / int(gamma.p)
        est = mpmath.acosh(inv) / mpmath.acosh(a)
        return max(1, int(mpmath.ceil(est)))


def or_degree(k: IntLike, gamma: ExactLike) -> tuple[int, fmpq]:
    """Least ``t`` with ``1/T_t((k+1)/(k-1)) <= gamma``, and ``T_t((k+1)/(k-1))``.

    Guarantee
    ---------
    The inequality is decided exactly (fmpq): ``T_t(a)*gamma >= 1`` and, for ``t >= 2``,
    ``T_{t-1}(a)*gamma < 1`` (``T_0 = 1 < 1/gamma`` always, so ``t >= 1``).  For ``k = 1``
    (no ``a``) returns ``(1, fmpq(0))``; callers treat ``k = 1`` separately (``g = x``).
    Refuses ``t > MAX_OR_DEGREE`` (InvalidParameterError naming gamma and k).
    thaler2012 Fact 4.2.
    """
    k = _check_k(k)
    gamma = check_open_unit(gamma, "gamma")
    if k == 1:
        return 1, fmpq(0)
    est = _estimate_degree(k, gamma)
    if est > MAX_OR_DEGREE + 2:
        raise InvalidParameterError(
            f"gamma={fmpq_str(gamma)} with k={k} needs Chebyshev degree about {est}, "
            f"more than the limit {MAX_OR_DEGREE}"
        )
    a = fmpq(k + 1, k - 1)
    t = est
    tv = chebyshev_t_value(t, a)
    while tv * gamma < 1:  # estimate too low: step up
        t += 1
        tv = chebyshev_t_value(t, a)
    while t > 1:  # estimate too high: step down while t-1 still works
        prev = chebyshev_t_value(t - 1, a)
        if prev * gamma < 1:
            break
        t, tv = t - 1, prev
    if t > MAX_OR_DEGREE:
        raise InvalidParameterError(
            f"gamma={fmpq_str(gamma)} with k={k} needs Chebyshev degree {t}, "
            f"more than the limit {MAX_OR_DEGREE}"
        )
    return t, tv


def _t_of_affine(t: int, alpha: fmpq, beta: fmpq) -> fmpq_poly:
    """Exact monomial coefficients of ``T_t(alpha*x + beta)`` (``alpha != 0``).

    With ``y = alpha*x + beta``, ``Q(x) = T_t(y)`` satisfies Chebyshev's differential
    equation ``(1 - y^2) Q'' - alpha y Q' + alpha^2 t^2 Q = 0``; at ``x^j`` it reads

        alpha^2 (t^2 - j^2) q_j = alpha beta (j+1)(2j+1) q_{j+1}
                                  - (1 - beta^2)(j+2)(j+1) q_{j+2},

    a three-term recurrence from ``q_t = 2^(t-1) alpha^t``, ``q_{t+1} = 0`` down to
    ``q_0``.  With ``alpha = a/d``, ``beta = b/d`` the scaled ``m_j = d^t q_j`` are
    integers (``T_t`` has integer coefficients) and the recurrence becomes
    ``a^2 (t^2 - j^2) m_j = a b (j+1)(2j+1) m_{j+1} - (d^2 - b^2)(j+2)(j+1) m_{j+2}``,
    each division exact.  O(t) integer operations, against O(t^2) for expanding
    ``T_t`` and composing (the coefficients have ~t*log2(d) bits).
    """
    if t == 0:
        return fmpq_poly([1])
    aq, bq = int(alpha.q), int(beta.q)
    d = aq * bq // math.gcd(aq, bq)  # common denominator
    a = int(alpha.p) * (d // aq)
    b = int(beta.p) * (d // bq)
    ab, c2, a2 = a * b, d * d - b * b, a * a
    m = [0] * (t + 2)
    m[t] = 2 ** (t - 1) * a**t
    for j in range(t - 1, -1, -1):
        num = ab * (j + 1) * (2 * j + 1) * m[j + 1] - c2 * (j + 2) * (j + 1) * m[j + 2]
        q, r = divmod(num, a2 * (t * t - j * j))
        if r:  # cannot happen (m_j is an integer); guards the derivation
            raise AssertionError("non-integral Chebyshev recurrence step")
        m[j] = q
    return fmpq_poly(fmpz_poly(m[: t + 1]), fmpz(d) ** t)


# ---------------------------------------------------------------------------- OR


def or_chebyshev_form(k: IntLike, gamma: ExactLike) -> ChebyshevPoly:
    """The Chebyshev OR polynomial ``g`` as a :class:`ChebyshevPoly` on the domain ``(1, k)``.

    Variable ``v = (2x - k - 1)/(k - 1) = -u(x)``; coefficients ``c_0 = 1``,
    ``c_t = -(-1)^t / T_t((k+1)/(k-1))``, all others 0 (see the module docstring).
    ``k = 1``: ``g(x) = x = 1/2 T_0(v) + 1/2 T_1(v)`` on the domain ``(0, 1)``.

    Guarantee
    ---------
    Exact (fmpq); equal as a function to :func:`or_polynomial` (``method="chebyshev"``).
    thaler2012 Fact 4.2.
    """
    k = _check_k(k)
    gamma = check_open_unit(gamma, "gamma")
    if k == 1:
        return ChebyshevPoly([fmpq(1, 2), fmpq(1, 2)], domain=(0, 1))
    t, tv = or_degree(k, gamma)
    cs = [fmpq(0)] * (t + 1)
    cs[0] = fmpq(1)
    cs[t] = -fmpq((-1) ** t) / tv
    return ChebyshevPoly(cs, domain=(1, k))


def _or_params(k: int, gamma: fmpq, method: str, t: int) -> dict[str, Any]:
    return {"k": k, "gamma": fmpq_str(gamma), "method": method, "t": t}


def or_polynomial(k: IntLike, gamma: ExactLike, method: str = "chebyshev", *,
                  progress: ProgressCallback | None = None) -> Approximation:
    """OR of ``k`` bits as a univariate polynomial in the count ``x`` (thaler2012 Fact 4.2).

    Parameters
    ----------
    k : int
        Number of bits, ``1 <= k <= MAX_K``.
    gamma : exact number
        Target error, ``0 < gamma < 1`` (read exactly: ``1e-3`` is 1/1000).
    method : {"chebyshev", "minimax"}
        ``"chebyshev"``: the canonical form ``g(x) = 1 - T_t(u(x))/T_t(u(0))`` (module
        docstring).  ``"minimax"``: the least-degree polynomial with ``g(0) = 0`` and error
        ``<= gamma`` on ``{0..k}``, with an optimality certificate
        (:func:`dpverify.constructions.minimax.minimax_least_degree`).
    progress : callable, optional
        :mod:`dpverify.progress` callback, passed to the minimax search (counts only).

    Returns
    -------
    Approximation
        Monomial basis in ``x`` (exact fmpq, lowest degree first); target
        ``{"kind": "threshold", "r": 1}``; domain integers ``0..k``; claim
        ``max_error <= gamma``.  ``extra["chebyshev"]`` holds ``t``, the exact error
        ``1/T_t((k+1)/(k-1))`` and the Chebyshev form (:func:`or_chebyshev_form`).

    Guarantee
    ---------
    Coefficients, ``t`` and ``error_exact`` are exact; ``g(0) = 0`` exactly.  The error
    claim is *not* certified here: call :func:`dpverify.certify.certify`.  Raises
    ``InvalidParameterError``/``ParameterTypeError`` naming the bad parameter.
    """
    k = _check_k(k)
    gamma = check_open_unit(gamma, "gamma")
    method = _check_method(method)
    t, tv = or_degree(k, gamma)
    if method == "minimax":
        approx = minimax_least_degree(
            {"kind": "threshold", "r": 1}, k, gamma, fix_zero=True, degree_hint=t,
            progress=progress)
        ex = dict(approx.extra)
        ex["chebyshev_degree"] = t
        return dataclasses.replace(
            approx,
            construction="or/minimax",
            params=_or_params(k, gamma, method, approx.poly.degree),
            extra=ex,
        )
    if k == 1:
        poly = MonomialPoly([0, 1])
        err = fmpq(0)
    else:
        a = fmpq(k + 1, k - 1)
        P = _t_of_affine(t, fmpq(-2, k - 1), a)  # T_t(u(x)), u = (k+1-2x)/(k-1)
        poly = MonomialPoly.from_fmpq_poly(1 - P / tv)
        err = 1 / tv
    form = or_chebyshev_form(k, gamma)
    return Approximation(
        construction="or/chebyshev",
        params=_or_params(k, gamma, method, t),
        poly=poly,
        target={"kind": "threshold", "r": 1},
        domain={"kind": "integers", "lo": 0, "hi": k},
        claims={"max_error": fmpq_str(gamma)},
        extra={
            "chebyshev": {
                "t": t,
                "error_exact": fmpq_str(err),
                "form": form.to_json(),
                "variable": "v = (2x - k - 1)/(k - 1) = -u(x)" if k > 1 else "v = 2x - 1",
            }
        },
    )


# ---------------------------------------------------------------------------- AND


def and_chebyshev_form(k: IntLike, gamma: ExactLike) -> ChebyshevPoly:
    """``AND(x) = 1 - g(k - x)`` as a :class:`ChebyshevPoly`.

    ``k >= 2``: domain ``(0, k - 1)``, variable ``w = (2x - k + 1)/(k - 1)``, the single
    coefficient ``1/T_t((k+1)/(k-1))`` at index ``t`` (``AND(x) = T_t(w)/T_t(a)``).
    ``k = 1``: ``AND(x) = x`` on ``(0, 1)``.

    Guarantee
    ---------
    Exact (fmpq).  thaler2012 Section 4.1 (conjunction identity, corrected reading).
    """
    k = _check_k(k)
    gamma = check_open_unit(gamma, "gamma")
    if k == 1:
        return ChebyshevPoly([fmpq(1, 2), fmpq(1, 2)], domain=(0, 1))
    t, tv = or_degree(k, gamma)
    cs = [fmpq(0)] * (t + 1)
    cs[t] = 1 / tv
    return ChebyshevPoly(cs, domain=(0, k - 1))


def and_polynomial(k: IntLike, gamma: ExactLike, method: str = "chebyshev", *,
                   progress: ProgressCallback | None = None) -> Approximation:
    """AND of ``k`` bits in the count ``x`` of ones: ``p(x) = 1 - g(k - x)``.

    ``AND(x) = 1`` iff ``x = k``: target ``{"kind": "threshold", "r": k}`` on the integers
    ``0..k``; ``p(k) = 1`` exactly.  ``method="chebyshev"`` reflects the Chebyshev OR
    polynomial (same degree ``t``, same exact error ``1/T_t(a)``);
    ``method="minimax"`` is the least-degree polynomial with ``p(k) = 1`` exactly meeting
    ``gamma`` on ``{0..k}`` (pinned minimax, with an optimality certificate).

    Guarantee
    ---------
    Exact coefficients (monomial basis in ``x``); claims are certified by ``certify``.
    thaler2012 Section 4.1 (see the module docstring for the misprinted identity).
    """
    k = _check_k(k)
    gamma = check_open_unit(gamma, "gamma")
    method = _check_method(method)
    t, tv = or_degree(k, gamma)
    target = {"kind": "threshold", "r": k}
    if method == "minimax":
        approx = minimax_least_degree(target, k, gamma, pin=(k, 1), degree_hint=t,
                                      progress=progress)
        ex = dict(approx.extra)
        ex["chebyshev_degree"] = t
        return dataclasses.replace(
            approx,
            construction="and/minimax",
            params=_or_params(k, gamma, method, approx.poly.degree),
            extra=ex,
        )
    if k == 1:
        poly = MonomialPoly([0, 1])
        err = fmpq(0)
    else:
        # 1 - g(k - x) = T_t(w(x)) / T_t(a),  w = (2x - k + 1)/(k - 1)
        P = _t_of_affine(t, fmpq(2, k - 1), fmpq(-1))
        poly = MonomialPoly.from_fmpq_poly(P / tv)
        err = 1 / tv
    return Approximation(
        construction="and/chebyshev",
        params=_or_params(k, gamma, method, t),
        poly=poly,
        target=target,
        domain={"kind": "integers", "lo": 0, "hi": k},
        claims={"max_error": fmpq_str(gamma)},
        extra={
            "chebyshev": {
                "t": t,
                "error_exact": fmpq_str(err),
                "form": and_chebyshev_form(k, gamma).to_json(),
                "variable": "w = (2x - k + 1)/(k - 1)" if k > 1 else "w = 2x - 1",
            }
        },
    )


# ---------------------------------------------------------------------------- doubled universe


def doubled_record(x: Sequence[int]) -> tuple[int, ...]:
    """The record ``x in {0,1}^d`` on the doubled universe: ``(x_1..x_d, 1-x_1..1-x_d)``.

    thaler2012 Section 4.1 (data universe extended to ``{0,1}^{2d}`` as in [15, Thm 1.2]).
    """
    if isinstance(x, (str, bytes)) or not isinstance(x, Sequence):
        raise ParameterTypeError(f"x must be a sequence of bits, got {type(x).__name__}")
    bits = []
    for j, b in enumerate(x):
        if isinstance(b, bool) or b not in (0, 1):
            raise InvalidParameterError(f"x[{j}] must be 0 or 1, got {b!r}")
        bits.append(int(b))
    return tuple(bits) + tuple(1 - b for b in bits)


def doubled_universe_indices(literals: Iterable[tuple[int, bool]], d: IntLike) -> tuple[int, ...]:
    """Index set on the doubled universe ``{0,1}^{2d}`` of a conjunction/disjunction.

    Parameters
    ----------
    literals : iterable of ``(j, positive)``
        ``j`` in ``0..d-1`` (0-based attribute), ``positive`` True for ``x_j`` and False
        for ``NOT x_j``.  Duplicate literals are refused.
    d : int
        Number of attributes of the original universe.

    Returns
    -------
    tuple of int
        Sorted indices ``S'`` in ``0..2d-1``: ``x_j -> j``, ``NOT x_j -> d + j``.  With
        ``x' = doubled_record(x)``: the conjunction is ``AND_{i in S'} x'_i`` and the
        disjunction ``OR_{i in S'} x'_i``; the query vector is ``y' = 1_{S'}``, so the
        mechanism's polynomials are ``g(sum_i y'_i x'_i)`` (disjunction) and
        ``1 - g(sum_i y'_i (1 - x'_i))`` (conjunction), ``g`` = :func:`or_polynomial`
        with ``k = |S'|``.

    Guarantee
    ---------
    Exact combinatorics (no numbers).  thaler2012 Section 4.1.
    """
    d = check_int(d, "d", minimum=1)
    seen: set[int] = set()
    for n, lit in enumerate(literals):
        if not isinstance(lit, tuple) or len(lit) != 2:
            raise ParameterTypeError(f"literals[{n}] must be a pair (j, positive), got {lit!r}")
        j, pos = lit
        j = check_int(j, f"literals[{n}].j", minimum=0, maximum=d - 1)
        if not isinstance(pos, bool):
            raise ParameterTypeError(f"literals[{n}].positive must be a bool, got {pos!r}")
        idx = j if pos else d + j
        if idx in seen:
            raise InvalidParameterError(f"literals[{n}] repeats the literal {lit!r}")
        seen.add(idx)
    return tuple(sorted(seen))
