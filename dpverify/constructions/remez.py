"""Best uniform polynomial approximation on an interval by the Remez exchange (a search).

Problem.  Given ``f`` continuous on ``[a, b]`` and ``N >= 0``, find ``p`` of degree
``<= N`` minimising ``||f - p||_inf``; its error is ``E_N(f)``.  By Chebyshev's
alternation theorem the best ``p`` is the one for which ``f - p`` equioscillates at
``N + 2`` points.

Method: the exchange of :mod:`.remez_exchange` (barycentric trial polynomials, extrema by
local sampling and refinement, full exchange; as Chebfun's ``minimax``), run at the
precision the answer needs:

* **working precision from the target.**  ``E_N(f)`` is estimated from the Chebyshev
  coefficients ``sum_{k > N} |c_k|`` of ``f`` (interpolation at ``2N + 32`` Chebyshev
  points, in float64, then in binary floating point at doubling precision while the
  coefficients are below the rounding level).  The error ``e = f - p`` must be resolved
  to a fraction ``tol`` of ``E_N``: float64 is used when ``E_N / max |f| >= 2^-46 / tol``,
  otherwise FLINT ``arf`` numbers with ``log2(max |f| / E_N) + log2(1 / tol) + log2(N) +
  27`` bits (degree 30 for ``exp`` on ``[-1, 1]``, ``E_30 ~ 1e-43``: about 200 bits).
* **exact conversion inside that precision.**  The Chebyshev coefficients of ``p`` are
  computed from its values at ``N + 1`` Chebyshev points (a DCT), read exactly (their
  binary values, while the working precision is in force) and rounded to multiples of a
  power of two ``q <= |h| tol / (8 (N + 1))`` (so the exact polynomial differs from the
  search's by at most ``|h| tol / 8`` and its rationals stay short).  The alternation points
  are rounded to dyadics of about ``24 + log2(1/gap)`` bits (where ``e`` is flat).
* **breakpoints.**  Kinks and singular points of ``f``
  (:func:`dpverify.expr.breakpoints.breakpoints`: ``0`` for ``|x|``) are sampling nodes and
  candidate extrema of the exchange.
* **every exit reported** in ``extra``: ``stop`` (``converged``, ``max_iter``,
  ``stalled``, ``no_alternation``, ``decided``, ``exact``), ``iterations``,
  ``levelled_error`` ``|h|``, ``max_error_estimate`` ``max |e|``, ``spread``
  ``(max |e| - min_i |e(x_i)|) / max |e|``, ``precision``, ``seconds``.  A time limit
  raises :class:`~dpverify.errors.TimeLimitExceeded` saying where the search was.

Everything here is a **search** with no guarantee.  The result is certified (or not) by
:mod:`dpverify.certify.alternation`: a de la Vallee Poussin lower bound at the returned
alternation points and a rigorous upper bound of ``sup |f - p|``.

Output: an :class:`~dpverify.Approximation` with ``poly`` a
:class:`~dpverify.exact.ChebyshevPoly` on ``(a, b)`` (exact dyadic coefficients),
``extra["alternation"]`` (the ``N + 2`` points, exact dyadic strings) and
``extra["extrema"]`` (every local extremum of ``|f - p|`` found, a hint for the
certifier's partition), plus the report above.

Limits: ``degree <= MAX_REMEZ_DEGREE``.  One exchange step costs ``O(N^2)`` evaluations of
the barycentric formula (``O(N)`` memory: the matrices are processed in chunks of about a
million entries); with ``timeout`` the estimated cost of one step is compared with the time
limit before any work starts.
"""

from __future__ import annotations

import contextlib
import math
import time
from typing import Any

import numpy as np
from flint import ctx, fmpq, fmpz

from ..approximation import Approximation
from ..errors import (
    DomainError,
    InvalidParameterError,
    ParameterTypeError,
    TimeLimitExceeded,
)
from ..exact import ChebyshevPoly
from ..expr import Expr, parse
from ..expr.breakpoints import as_polynomial, breakpoints
from ..numbers import EXPONENT_CAP, check_int, check_interval, fmpq_str, fmpq_to_decimal, to_fmpq
from ..progress import ProgressCallback
from .barycentric import (
    Arith,
    bary_eval,
    chebyshev_coefficients_from_values,
    chebyshev_points_first_kind,
)
from .remez_exchange import ExchangeResult, exchange_search

__all__ = ["remez", "MAX_REMEZ_DEGREE", "DEGREE_LIMIT_REASON", "working_precision",
           "step_seconds", "exact_poly", "chebyshev_tail", "search_log2", "round_to_grid",
           "short_points", "check_range", "precision_context", "FLOAT_OK", "MAX_BITS"]

#: Largest degree the search accepts.  What limits it is time: one exchange step costs
#: O(N^2) barycentric evaluations (about a minute per step at this degree in float64),
#: and the certificate has O(N) pieces each costing O(N).
MAX_REMEZ_DEGREE = 20_000
#: the reason, quoted by error messages
DEGREE_LIMIT_REASON = ("the Remez search costs O(degree^2) work per exchange step, about a "
                       "minute per step at degree 20000 in float64")
#: largest working precision of the search (bits)
MAX_BITS = 66_000
#: float64 is enough when E_N / max|f| >= FLOAT_OK / tol
FLOAT_OK = 64 * 2.0**-52


def _read(f: Any, degree: Any, interval: Any) -> tuple[Expr, int, fmpq, fmpq]:
    if isinstance(f, str):
        f = parse(f, variables=("x",), name="f")
    if not isinstance(f, Expr):
        raise ParameterTypeError(f"f must be an expression string or Expr, got {type(f).__name__}")
    if len(f.variables) > 1:
        raise InvalidParameterError(f"f must be a function of one variable, got {f.variables}")
    n = check_int(degree, "degree", 0, None)
    if n > MAX_REMEZ_DEGREE:
        raise InvalidParameterError(
            f"degree must be <= {MAX_REMEZ_DEGREE}, got {n} ({DEGREE_LIMIT_REASON})")
    a, b = check_interval(interval)
    return f, n, a, b


def step_seconds(n: int, bits: int | None) -> float:
    """A rough estimate of the seconds of one exchange step at degree ``n`` (float64 when
    ``bits`` is None, else ``arf`` at ``bits`` bits): about ``12 N^2`` barycentric terms."""
    terms = 12.0 * (n + 2) ** 2
    if bits is None:
        return terms * 4e-9
    return terms * 2e-7 * (1 + bits / 1000)


def search_log2(v: Any, ar: Arith) -> float:
    """``log2 |v|`` of a search number (``-inf`` at 0; no float underflow in ``arf``)."""
    if ar.is_float:
        return math.log2(abs(float(v))) if v != 0 else -math.inf
    man, exp = v.man_exp()
    m = abs(int(man))
    return -math.inf if m == 0 else int(exp) + math.log2(m) if m < 2**1000 else \
        int(exp) + m.bit_length()


def chebyshev_tail(vals: np.ndarray, n: int, ar: Arith) -> tuple[float, float]:
    """``(log2 max |f|`` on the samples, ``log2`` of an estimate of ``E_N``): the
    Chebyshev tail ``sum_{k > N} |c_k|`` (an upper bound of ``E_N`` up to aliasing, within
    a small factor of it for analytic ``f``, and of the right order ``1/N`` for ``|x|``
    where ``|c_{N+1}|`` is ``1/N^2``); in ``arf`` the largest of the first four terms,
    times four."""
    M = len(vals)
    scale = max(search_log2(v, ar) for v in vals)
    if ar.is_float:
        c = chebyshev_coefficients_from_values(vals, ar)
        t = float(sum(abs(v) for v in c[n + 1:]))
        return scale, math.log2(t) if t > 0 else -math.inf
    out = -math.inf
    for k in range(n + 1, n + 5):
        if k >= M:
            continue
        acc = ar.num(0)
        for j in range(M):
            acc += vals[j] * ar.cos_pi(fmpq(k * (2 * j + 1), 2 * M))
        out = max(out, search_log2(2 * acc / M, ar) + 2)
    return scale, out


def working_precision(f: Expr, n: int, a: fmpq, b: fmpq, tol: float,
                      deadline: float | None = None) -> tuple[int | None, float, float]:
    """``(bits or None for float64, log2 max |f|, log2 of the E_N estimate)`` (module
    docstring)."""
    M = max(2 * n + 32, 64)
    ar = Arith(None)
    mid, rad = ar.num((a + b) / 2), ar.num((b - a) / 2)
    x = chebyshev_points_first_kind(M, mid, rad, ar)
    try:
        scale, tail = chebyshev_tail(ar.evaluator(f)(x), n, ar)
    except DomainError:
        # a value beyond the float64 range (exp(1000 x)) is not an undefined point: the
        # binary floating point below has no such limit, and raises if f is undefined
        scale, tail = 0.0, -math.inf
    else:
        if scale == -math.inf:
            scale = 0.0
        if tail >= scale + math.log2(FLOAT_OK / tol):
            return None, scale, tail
    bits = 128
    spent = 0.0
    while True:
        now = time.monotonic()
        # the next precision costs at least three times the last one (longer numbers, and
        # elementary functions slower than linearly)
        if deadline is not None and now + 3 * spent > deadline:
            raise TimeLimitExceeded(
                f"time limit: estimating E_{n}(f) at {bits} bits would take longer than "
                "the time left (while choosing the working precision of the Remez search)")
        with ctx.workprec(bits):
            am = Arith(bits)
            xm = chebyshev_points_first_kind(M, am.num((a + b) / 2), am.num((b - a) / 2), am)
            s_m, t_m = chebyshev_tail(am.evaluator(f)(xm), n, am)
        spent = time.monotonic() - now
        if s_m > -math.inf:
            scale = s_m
        if t_m > scale - bits + 24 or bits >= MAX_BITS:
            tail = t_m
            break
        bits = min(2 * bits, MAX_BITS)
    if tail == -math.inf:  # below every precision tried: f is (nearly) a polynomial
        return bits, scale, tail
    need = scale - tail + math.log2(1 / tol) + math.log2(n + 2) + 27
    return max(64, min(MAX_BITS, math.ceil(need))), scale, tail


def check_range(f: Expr, a: fmpq, b: fmpq, scale: float) -> None:
    """Refuse an ``f`` whose values on ``[a, b]`` (``log2 max |f|`` about ``scale`` at the
    sample points) are beyond the range of the certified numbers (``2^EXPONENT_CAP``):
    neither the search's numbers nor the certificate could hold its error."""
    if scale > EXPONENT_CAP - 64:
        raise InvalidParameterError(
            f"interval [{fmpq_to_decimal(a, 6)}, {fmpq_to_decimal(b, 6)}] is too wide for "
            f"f = {f.canonical}: |f| reaches about 10^{scale * math.log10(2):.0f} there, "
            f"beyond 2^{EXPONENT_CAP} (about 10^{EXPONENT_CAP * math.log10(2):.0f}), the "
            "range of certified numbers; narrow the interval or rescale f")


def exact_poly(f: Expr, n: int) -> None:
    """Refuse a polynomial ``f`` of degree ``<= n``: ``E_n(f) = 0``, its best approximation
    is ``f`` itself, and no alternation exists to certify."""
    P = as_polynomial(f)
    if P is not None and P.degree() <= n:
        raise InvalidParameterError(
            f"f is a polynomial of degree {max(P.degree(), 0)} <= {n}: E_{n}(f) = 0 and the "
            "best approximation is f itself (nothing to search or certify; dpverify supnorm "
            "checks a given polynomial exactly)")


def round_to_grid(q: fmpq, k: int) -> fmpq:
    """The multiple of ``2^-k`` nearest ``q``."""
    s = q * fmpz(2) ** k if k >= 0 else q / fmpz(2) ** (-k)
    m = (s.p * 2 + s.q) // (2 * s.q)  # round half up
    return fmpq(m) / fmpz(2) ** k if k >= 0 else fmpq(m * fmpz(2) ** (-k))


def short_points(xs: list[fmpq], a: fmpq, b: fmpq, extra_bits: int,
                  keep: set[fmpq]) -> list[fmpq]:
    """Dyadics near ``xs`` (sorted), about ``extra_bits`` bits finer than the gap to the
    neighbours, strictly increasing and inside ``[a, b]`` (``a``, ``b`` and the points of
    ``keep`` -- breakpoints, where ``e`` has a corner and rounding would cost first order --
    kept exactly)."""
    out: list[fmpq] = []
    for i, x in enumerate(xs):
        if x == a or x == b or x in keep:
            out.append(x)
            continue
        gaps = [abs(x - y) for y in (xs[i - 1] if i else a, xs[i + 1] if i + 1 < len(xs) else b)
                if y != x]
        gap = min(gaps) if gaps else b - a
        k = max(0, int(gap.q).bit_length() - int(gap.p).bit_length()) + extra_bits
        y = round_to_grid(x, k)
        y = min(max(y, a), b)
        if out and y <= out[-1]:
            y = x  # keep the exact value rather than collide
        out.append(y)
    return out


def remez(f: Any, degree: Any, interval: Any, *, tol: Any = "1e-8", max_iter: int = 60,
          dps: int | None = None, timeout: Any = None, deadline: float | None = None,
          decide: Any = None, progress: ProgressCallback | None = None,
          family: Any = None, weight: Any = None, relative: bool = False) -> Approximation:
    """Search for the best uniform approximation of degree ``<= degree`` (no guarantee).

    With ``family`` (:class:`dpverify.family.Family`: free powers and fixed coefficients),
    ``weight`` or ``relative=True`` the search is
    :func:`dpverify.constructions.remez_family.remez_family` (a weighted exchange on the
    reduced dense problem), which returns a monomial ``poly`` in the family.

    Parameters
    ----------
    f : str or Expr
        Function of ``x`` (:mod:`dpverify.expr`), continuous on the interval.
    degree : int
        ``N``, ``0 <= N <= MAX_REMEZ_DEGREE`` (20000).
    interval : pair of exact numbers
        ``(a, b)``, ``a < b``.
    tol : exact number
        Stop when ``max |e| <= (1 + tol) min_i |e(x_i)|`` (default ``1e-8``: a certified
        bracket can then reach ``upper/lower <= 1 + 1e-6``).
    max_iter : int
        Exchange steps at most.
    dps : int, optional
        Working precision in decimal digits (the search then uses binary floating point
        at ``ceil(3.33 dps)`` bits); default: chosen from the target (module docstring).
    timeout : seconds, optional
        Wall-clock limit of the search (or ``deadline``: a ``time.monotonic()`` instant).
    decide : exact number, optional
        Stop as soon as the floating bracket ``|h| <= E_N <= max |e|`` excludes it
        (``stop="decided"``): a least-degree search only needs the side.
    progress : callable, optional
        ``progress("remez degree N: iterations", done, None)`` (exchange steps)
        (:mod:`dpverify.progress`), counts only.

    Returns
    -------
    Approximation
        ``construction="remez"``; see the module docstring for ``poly`` and ``extra``.

    Raises
    ------
    DomainError
        If ``f`` cannot be evaluated at a sample point (undefined on the interval).
    TimeLimitExceeded
        When the time limit is reached (the message says where the search was).

    Guarantee
    ---------
    None: this is a search.  Certify with
    :func:`dpverify.certify.alternation.certify_minimax`.
    """
    if family is not None or weight is not None or relative:
        if dps is not None:
            raise InvalidParameterError("dps is not taken with family, weight or relative "
                                        "(the precision is chosen from the target)")
        # deferred: remez_family builds on this module's helpers
        from .remez_family import remez_family
        return remez_family(f, degree, interval, family=family, weight=weight,
                            relative=relative, tol=tol, max_iter=max_iter, timeout=timeout,
                            deadline=deadline, decide=decide, progress=progress)
    fx, n, a, b = _read(f, degree, interval)
    exact_poly(fx, n)
    tol_q = to_fmpq(tol, "tol")
    if not 0 < tol_q < 1:
        raise InvalidParameterError(f"tol must be in (0, 1), got {tol}")
    check_int(max_iter, "max_iter", 1, 1000)
    if dps is not None:
        check_int(dps, "dps", 15, MAX_BITS * 3 // 10)
    t0 = time.monotonic()
    if timeout is not None:
        tq = to_fmpq(timeout, "timeout")
        if not tq > 0:
            raise InvalidParameterError(f"timeout must be > 0 seconds, got {timeout}")
        limit = t0 + float(tq)
        deadline = limit if deadline is None else min(deadline, limit)
    ftol = float(tol_q)
    stage = f"remez degree {n}"
    if dps is None:
        bits, scale, tail = working_precision(fx, n, a, b, ftol, deadline)
        check_range(fx, a, b, scale)
    else:
        bits, scale, tail = math.ceil(dps * 3.33), 0.0, -math.inf
    if deadline is not None and time.monotonic() + step_seconds(n, bits) > deadline:
        raise TimeLimitExceeded(
            f"degree {n} at {'float64' if bits is None else f'{bits} bits'} needs about "
            f"{step_seconds(n, bits):.1f} s per exchange step (estimated), more than the "
            f"{max(deadline - time.monotonic(), 0):.1f} s left")
    bps = breakpoints(fx, a, b)
    poles = [bp.x for bp in bps if bp.kind == "pole"]
    if poles:
        raise DomainError(f"f has a pole at x = {fmpq_to_decimal(poles[0], 15)} (or near it) "
                          f"in [{fmpq_to_decimal(a, 15)}, {fmpq_to_decimal(b, 15)}]: it is not "
                          "continuous there and has no best uniform approximation")
    kinks = [bp.x for bp in bps if a < bp.x < b]
    res, ar = _run(fx, n, a, b, bits, kinks, ftol, max_iter, deadline, decide, progress, stage)
    # a levelled error near the rounding level of the arithmetic: redo with more bits
    if res.h != 0:
        need = scale - search_log2(res.h, ar) + math.log2(1 / ftol) + 6
        have = 52 if ar.bits is None else ar.bits
        if need > have and have < MAX_BITS:
            bits = min(MAX_BITS, math.ceil(need + math.log2(n + 2)) + 21)
            res, ar = _run(fx, n, a, b, bits, kinks, ftol, max_iter, deadline, decide,
                           progress, stage)
    return _approximation(fx, n, a, b, res, ar, ftol, time.monotonic() - t0, tail, kinks)


def _run(fx: Expr, n: int, a: fmpq, b: fmpq, bits: int | None, kinks: list[fmpq], tol: float,
         max_iter: int, deadline: float | None, decide: Any,
         progress: ProgressCallback | None, stage: str) -> tuple[ExchangeResult, Arith]:
    args = (fx, n, a, b, kinks, tol, max_iter, deadline, decide, progress, stage)
    if bits is None:
        try:
            return _run_in(Arith(None), *args)
        except TimeLimitExceeded:  # an ArithmeticError too: the time is up, not the range
            raise
        except (ArithmeticError, DomainError):
            # weights or values out of the float64 range: 64-bit arf instead (which raises
            # again if f is really undefined somewhere)
            bits = 64
    with ctx.workprec(bits):
        return _run_in(Arith(bits), *args)


def _run_in(ar: Arith, fx: Expr, n: int, a: fmpq, b: fmpq, kinks: list[fmpq], tol: float,
            max_iter: int, deadline: float | None, decide: Any,
            progress: ProgressCallback | None, stage: str) -> tuple[ExchangeResult, Arith]:
    dec = None if decide is None else ar.num(to_fmpq(decide, "decide"))
    return exchange_search(ar.evaluator(fx), n, ar.num(a), ar.num(b), ar,
                           fixed=[ar.num(k) for k in kinks], tol=tol, max_iter=max_iter,
                           deadline=deadline, decide=dec, progress=progress,
                           stage=stage), ar


def precision_context(bits: int | None) -> Any:
    return ctx.workprec(bits) if bits is not None else contextlib.nullcontext()


def _approximation(fx: Expr, n: int, a: fmpq, b: fmpq, res: ExchangeResult, ar: Arith,
                   tol: float, seconds: float, tail: float,
                   kinks: list[fmpq]) -> Approximation:
    """Exact polynomial and points from the search's numbers (inside its precision)."""
    with precision_context(ar.bits):
        mid, rad = ar.num((a + b) / 2), ar.num((b - a) / 2)
        xc = chebyshev_points_first_kind(n + 1, mid, rad, ar)
        vals = bary_eval(xc, res.ref, res.w, res.values, 4 / (ar.num(b) - ar.num(a)), ar)
        coeffs = chebyshev_coefficients_from_values(vals, ar)
        exact = [ar.to_fmpq(c) for c in coeffs]
        h = ar.to_fmpq(abs(res.h))
        if h > 0:
            quantum = h * to_fmpq(tol, "tol") / (8 * (n + 1))
            k = int(quantum.q).bit_length() - int(quantum.p).bit_length() + 1
            exact = [round_to_grid(c, k) for c in exact]
        # the search's copies of the ends and breakpoints stand for the exact points
        exact_of = {ar.to_fmpq(ar.num(k)): k for k in [a, b] + kinks}
        alt = sorted(exact_of.get(q, q) for q in (ar.to_fmpq(x) for x in res.alternation))
        ext = sorted(set(exact_of.get(q, q) for q in (ar.to_fmpq(x) for x in res.extrema)))
        stats = {
            "levelled_error": fmpq_to_decimal(h, 12),
            "max_error_estimate": fmpq_to_decimal(ar.to_fmpq(res.max_error), 12),
        }
    keep = set(kinks)
    alt = short_points([min(max(x, a), b) for x in alt], a, b, 24, keep)
    ext = short_points([min(max(x, a), b) for x in ext], a, b, 16, keep)
    poly = ChebyshevPoly(exact or [fmpq(0)], domain=(a, b))
    text = fmpq_str
    return Approximation(
        construction="remez",
        params={"f": fx.canonical, "degree": n, "interval": [text(a), text(b)]},
        poly=poly,
        target={"kind": "expr", "expr": fx.canonical, "variables": ["x"]},
        domain={"kind": "box", "intervals": [[text(a), text(b)]]},
        extra={"alternation": [text(x) for x in alt],
               "extrema": [text(x) for x in ext],
               **stats,
               "spread": f"{res.spread:.3g}",
               "iterations": res.iterations, "converged": res.converged,
               "stop": res.stop, "precision": repr(ar),
               "log2_chebyshev_tail": "-inf" if tail == -math.inf else f"{tail:.1f}",
               "seconds": round(seconds, 3)},
    )
