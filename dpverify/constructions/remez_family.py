"""Best weighted approximation from a family of polynomials by the Remez exchange (a search).

Problem.  Given ``f`` on ``[a, b]``, a weight ``w`` (``1``; ``1/f`` for the relative error
``(f - p)/f``; or any ``w`` the caller proved positive) and a family
``P = p_fix + span{x^k : k in free}`` (:class:`dpverify.family.Family`), find ``p`` in
``P`` minimising ``max |w (f - p)|``.

Reduction to a dense weighted problem (:mod:`dpverify.family`).  With the free powers an
arithmetic progression ``j, j + s, ..., j + n s``, ``p - p_fix = x^j r(x^s)`` and, with
``t = x^s``, ``g = f - p_fix``::

    w (f - p) = sign(w x^j) W(t) (h(t) - r(t)),   h = g / x^j,   W = |w x^j|,

so the search is the dense Remez exchange of :mod:`.remez_exchange` for ``h`` with the
weight ``W`` on the interval of ``t``: ``[a^s, b^s]`` for odd ``s`` (``x -> x^s`` is
increasing), for even ``s`` the image of the longer side of 0 (or of ``[a, b]`` when it
lies on one side).  ``W`` vanishes at ``t = 0`` when ``j > 0`` (``p(0) = p_fix(0)`` is
fixed there), which the weighted exchange allows (the error there is 0, never a reference
point).  The weighted error is evaluated as ``|w| sign(x)^j (g - x^j r)``, never through
``h`` (whose quotient loses digits near 0).  In ``t`` the space is a Haar space with a
positive weight away from 0, so the optimum equioscillates at ``n + 2`` points; back in
``x`` these are the points the certificate's annihilating weights use
(:mod:`dpverify.certify.annihilator`).

Precision.  As :func:`dpverify.constructions.remez.remez`: ``E`` is estimated from the
Chebyshev tail of ``h`` times the weight, float64 when ``E / max |w g|`` is above
``2^-46 / tol``, else FLINT ``arf`` with enough bits; a levelled error near the rounding
level is redone with more bits.

Everything here is a **search** with no guarantee (certified by
:func:`dpverify.certify.alternation.certify_minimax`).  Output: an
:class:`~dpverify.Approximation` with ``poly`` a :class:`~dpverify.exact.MonomialPoly` (exact
dyadic coefficients, in the family: fixed coefficients exact, others 0),
``extra["alternation"]`` (``n + 2`` points of ``[a, b]``, exact dyadics),
``extra["extrema"]`` (hints for the upper bound, mirrored to the other side of 0 for an even
``s``), ``extra["search_interval"]`` and the report of :mod:`.remez`.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from typing import Any

import numpy as np
from flint import arb, ctx, fmpq, fmpq_poly

from ..approximation import Approximation
from ..errors import DomainError, InvalidParameterError, ParameterTypeError, TimeLimitExceeded
from ..exact import ChebyshevPoly, MonomialPoly
from ..expr import Expr, parse
from ..expr.breakpoints import breakpoints
from ..family import Family, make_family
from ..numbers import check_int, check_interval, fmpq_str, fmpq_to_decimal, to_fmpq
from ..progress import ProgressCallback
from .barycentric import (
    Arith,
    bary_eval,
    chebyshev_coefficients_from_values,
    chebyshev_points_first_kind,
)
from .remez import (
    FLOAT_OK,
    MAX_BITS,
    chebyshev_tail,
    exact_poly,
    precision_context,
    round_to_grid,
    search_log2,
    short_points,
    step_seconds,
)
from .remez_exchange import ExchangeResult, exchange_search

__all__ = ["remez_family", "Reduction", "weight_text"]


class Reduction:
    """The change of variable ``t = x^s`` on the searched part ``[xa, xb]`` of ``[a, b]``
    (module docstring) and the weighted problem in ``t``."""

    def __init__(self, f: Expr, family: Family, a: fmpq, b: fmpq, weight: Expr | None,
                 relative: bool) -> None:
        prog = family.progression()
        if prog is None:
            raise InvalidParameterError(
                f"monomials must be an arithmetic progression j, j+s, ..., j+ns (such as "
                f"1,3,5,7 or 0,2,4 or 1,2,3), got {', '.join(map(str, family.free))}")
        self.f, self.family, self.a, self.b = f, family, a, b
        self.weight, self.relative = weight, relative
        self.j, self.s, self.n = prog
        s = self.s
        if s % 2 == 0 and a < 0 < b:
            self.side = 1 if b >= -a else -1
            self.xa, self.xb = (fmpq(0), b) if self.side > 0 else (a, fmpq(0))
        else:
            self.side = 1 if a >= 0 else -1
            self.xa, self.xb = a, b
        ends = sorted([self.xa ** s, self.xb ** s])
        self.ta, self.tb = ends[0], ends[1]
        self.mirrored = s % 2 == 0 and a < 0 < b
        self.fixed = [(k, v) for k, v in family.fixed]

    # ------------------------------------------------------------------ arrays of t

    def x_of(self, t: np.ndarray, ar: Arith) -> np.ndarray:
        """``x`` with ``x^s = t`` on the searched side."""
        s = self.s
        if s == 1:
            return t
        if ar.is_float:
            r = np.abs(t) ** (1.0 / s)
            return np.asarray(np.sign(t) * r if s % 2 else self.side * r)
        out = np.empty(len(t), dtype=object)
        for i, v in enumerate(t):
            mag = _mid(arb(abs(v)).root(s)) if v != 0 else v * 0
            out[i] = (mag if v >= 0 else -mag) if s % 2 else (mag if self.side > 0 else -mag)
        return out

    def values(self, t: np.ndarray, ar: Arith,
               fev: Callable[[np.ndarray], np.ndarray],
               wev: Callable[[np.ndarray], np.ndarray] | None
               ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """``(x, x^j, g(x), |w(x)|)`` at the points ``t``."""
        x = self.x_of(t, ar)
        fx = fev(x)
        g = fx
        if self.fixed:
            pf = _horner(self.family.fixed_poly(), x, ar)
            g = fx - pf
        if self.relative:
            wabs = np.abs(1 / fx) if ar.is_float else np.array([abs(1 / v) for v in fx],
                                                                dtype=object)
        elif wev is not None:
            wv = wev(x)
            wabs = np.abs(wv) if ar.is_float else np.array([abs(v) for v in wv], dtype=object)
        else:
            wabs = np.ones(len(t)) if ar.is_float else ar.array([1] * len(t))
        xj = _power(x, self.j, ar)
        return x, xj, g, wabs


def _mid(v: arb) -> Any:
    from flint import arf  # deferred: only the arf arithmetic of high-precision searches

    man, exp = v.mid().man_exp()
    return arf((man, exp))


def _power(x: np.ndarray, j: int, ar: Arith) -> np.ndarray:
    out = np.ones(len(x)) if ar.is_float else ar.array([1] * len(x))
    for _ in range(j):
        out = out * x
    return out


def _horner(p: fmpq_poly, x: np.ndarray, ar: Arith) -> np.ndarray:
    cs = [ar.num(fmpq(c)) for c in p.coeffs()] or [ar.num(0)]
    acc = np.full(len(x), cs[-1], dtype=ar.dtype)
    for c in reversed(cs[:-1]):
        acc = acc * x + c
    return acc


def _sign(v: np.ndarray, ar: Arith) -> np.ndarray:
    if ar.is_float:
        return np.sign(v)
    return ar.array([1 if u > 0 else -1 if u < 0 else 0 for u in v])


def weight_text(weight: Expr | None, relative: bool) -> str | None:
    """How the weight reads in a report: ``1/f`` (relative), the weight's text, or None."""
    if relative:
        return "1/f (relative error)"
    return None if weight is None else weight.canonical


class _Problem:
    """The callables of the weighted exchange in ``t`` for one arithmetic."""

    def __init__(self, red: Reduction, ar: Arith) -> None:
        self.red, self.ar = red, ar
        self.fev = ar.evaluator(red.f)
        self.wev = None if red.weight is None else ar.evaluator(red.weight)

    def target(self, t: np.ndarray) -> np.ndarray:
        _, xj, g, _ = self.red.values(t, self.ar, self.fev, self.wev)
        return np.asarray(g / xj)

    def weight(self, t: np.ndarray) -> np.ndarray:
        x, xj, _, wabs = self.red.values(t, self.ar, self.fev, self.wev)
        return np.asarray(wabs * np.abs(xj) if self.ar.is_float
                          else wabs * np.array([abs(v) for v in xj], dtype=object))

    def error(self, t: np.ndarray, r: np.ndarray) -> np.ndarray:
        x, xj, g, wabs = self.red.values(t, self.ar, self.fev, self.wev)
        sg = _sign(xj, self.ar) if self.red.j else 1
        return np.asarray(wabs * sg * (g - xj * r))

    def scale(self, t: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``h`` and ``|w g|`` at the points (for the precision estimate)."""
        _, xj, g, wabs = self.red.values(t, self.ar, self.fev, self.wev)
        return np.asarray(g / xj), np.asarray(wabs * np.abs(g) if self.ar.is_float else
                                              wabs * np.array([abs(v) for v in g],
                                                              dtype=object))


def _estimate(red: Reduction, ar: Arith) -> tuple[float, float]:
    """``(log2 max |w g|, log2 E estimate)`` from samples of ``h`` at Chebyshev points of
    the ``t`` interval (none at its ends, where ``W`` may vanish)."""
    M = max(2 * red.n + 32, 64)
    pr = _Problem(red, ar)
    t = chebyshev_points_first_kind(M, ar.num((red.ta + red.tb) / 2),
                                    ar.num((red.tb - red.ta) / 2), ar)
    h, wg = pr.scale(t)
    W = pr.weight(t)
    scale = max(search_log2(v, ar) for v in wg)
    wmax = max(search_log2(v, ar) for v in W)
    _, tail = chebyshev_tail(h, red.n, ar)
    return scale, tail + wmax


def _precision(red: Reduction, tol: float, deadline: float | None) -> tuple[int | None, float]:
    """Bits of the search (None: float64) and ``log2 max |w g|``."""
    ar = Arith(None)
    try:
        with np.errstate(all="ignore"):
            scale, est = _estimate(red, ar)
        ok = math.isfinite(scale) and math.isfinite(est)
    except (DomainError, ArithmeticError, ValueError):
        ok, scale, est = False, 0.0, -math.inf
    if ok and est >= scale + math.log2(FLOAT_OK / tol):
        return None, scale
    bits = 128
    while True:
        if deadline is not None and time.monotonic() > deadline:
            raise TimeLimitExceeded("time limit: while choosing the working precision of the "
                                    "Remez search")
        with ctx.workprec(bits):
            scale_m, est_m = _estimate(red, Arith(bits))
        if est_m > scale_m - bits + 24 or bits >= MAX_BITS:
            scale, est = scale_m, est_m
            break
        bits = min(2 * bits, MAX_BITS)
    if est == -math.inf:
        return bits, scale
    need = scale - est + math.log2(1 / tol) + math.log2(red.n + 2) + 27
    return max(64, min(MAX_BITS, math.ceil(need))), scale


def _expr(v: Any, name: str) -> Expr | None:
    if v is None:
        return None
    if isinstance(v, str):
        v = parse(v, variables=("x",), name=name)
    if not isinstance(v, Expr):
        raise ParameterTypeError(f"{name} must be an expression string or Expr, got "
                                 f"{type(v).__name__}")
    if len(v.variables) > 1:
        raise InvalidParameterError(f"{name} must be a function of x only, got {v.variables}")
    return v


def remez_family(f: Any, degree: Any, interval: Any, *, family: Family | None = None,
                 weight: Any = None, relative: bool = False, tol: Any = "1e-8",
                 max_iter: int = 60, timeout: Any = None, deadline: float | None = None,
                 decide: Any = None, progress: ProgressCallback | None = None
                 ) -> Approximation:
    """Search for the best weighted approximation from a family (module docstring; no
    guarantee).

    Parameters
    ----------
    f : str or Expr
        Function of ``x``.
    degree : int
        The family's degree (``family.degree``); with ``family=None`` the dense family.
    interval : pair of exact numbers
    family : Family, optional
        Free powers (an arithmetic progression) and fixed coefficients.
    weight : str or Expr, optional
        ``w`` (the caller proves ``w > 0``); exclusive with ``relative``.
    relative : bool
        ``w = 1/f`` (the caller proves ``f != 0``).
    tol, max_iter, timeout, deadline, decide, progress
        As :func:`dpverify.constructions.remez.remez`.

    Returns
    -------
    Approximation
        ``construction="remez"``, ``poly`` a :class:`~dpverify.exact.MonomialPoly` in the
        family.

    Raises
    ------
    InvalidParameterError
        Free powers that are not an arithmetic progression, ``weight`` with
        ``relative``, ``f`` a member of the family.
    DomainError, TimeLimitExceeded
        As :func:`dpverify.constructions.remez.remez`.

    Guarantee
    ---------
    None: a search.  Certify with :func:`dpverify.certify.alternation.certify_minimax`.

    Examples
    --------
    >>> ap = remez_family("sin(x)", 5, (-1, 1), family=make_family(5, monomials="odd"))
    >>> [float(c) for c in ap.poly.coeffs][0::2]
    [0.0, 0.0, 0.0]
    """
    fx = _expr(f, "f")
    assert fx is not None
    n = check_int(degree, "degree", 0, None)
    a, b = check_interval(interval)
    fam = family if family is not None else make_family(n)
    if not isinstance(fam, Family):
        raise ParameterTypeError(f"family must be a Family, got {type(fam).__name__}")
    if fam.degree != n:
        raise InvalidParameterError(f"degree must be the family's degree {fam.degree}, got {n}")
    w = _expr(weight, "weight")
    if not isinstance(relative, bool):
        raise ParameterTypeError(f"relative must be a bool, got {relative!r}")
    if relative and w is not None:
        raise InvalidParameterError("weight and relative exclude each other (relative means "
                                    "the weight 1/f)")
    if fam.dense:
        exact_poly(fx, n)
    tol_q = to_fmpq(tol, "tol")
    if not 0 < tol_q < 1:
        raise InvalidParameterError(f"tol must be in (0, 1), got {tol}")
    check_int(max_iter, "max_iter", 1, 1000)
    t0 = time.monotonic()
    if timeout is not None:
        tq = to_fmpq(timeout, "timeout")
        if not tq > 0:
            raise InvalidParameterError(f"timeout must be > 0 seconds, got {timeout}")
        deadline = t0 + float(tq) if deadline is None else min(deadline, t0 + float(tq))
    red = Reduction(fx, fam, a, b, w, relative)
    ftol = float(tol_q)
    bits, scale = _precision(red, ftol, deadline)
    if deadline is not None and time.monotonic() + step_seconds(red.n, bits) > deadline:
        raise TimeLimitExceeded(
            f"degree {n} at {'float64' if bits is None else f'{bits} bits'} needs about "
            f"{step_seconds(red.n, bits):.1f} s per exchange step (estimated), more than the "
            "time left")
    bps = breakpoints(fx, a, b)
    poles = [bp.x for bp in bps if bp.kind == "pole"]
    if poles:
        raise DomainError(f"f has a pole at x = {fmpq_to_decimal(poles[0], 15)} (or near it) in "
                          f"[{fmpq_to_decimal(a, 15)}, {fmpq_to_decimal(b, 15)}]")
    kinks = sorted({bp.x ** red.s for bp in bps if red.xa < bp.x < red.xb})
    stage = f"remez degree {n}"
    res, ar = _run(red, bits, kinks, ftol, max_iter, deadline, decide, progress, stage)
    if res.h != 0:
        need = scale - search_log2(res.h, ar) + math.log2(1 / ftol) + 6
        have = 52 if ar.bits is None else ar.bits
        if need > have and have < MAX_BITS:
            bits = min(MAX_BITS, math.ceil(need + math.log2(red.n + 2)) + 21)
            res, ar = _run(red, bits, kinks, ftol, max_iter, deadline, decide, progress, stage)
    return _approximation(red, n, res, ar, ftol, time.monotonic() - t0,
                          [bp.x for bp in bps if a < bp.x < b])


def _run(red: Reduction, bits: int | None, kinks: list[fmpq], tol: float, max_iter: int,
         deadline: float | None, decide: Any, progress: ProgressCallback | None,
         stage: str) -> tuple[ExchangeResult, Arith]:
    if bits is None:
        try:
            with np.errstate(all="ignore"):
                return _run_in(Arith(None), red, kinks, tol, max_iter, deadline, decide,
                               progress, stage)
        except TimeLimitExceeded:
            raise
        except (ArithmeticError, DomainError):
            bits = 64
    with ctx.workprec(bits):
        return _run_in(Arith(bits), red, kinks, tol, max_iter, deadline, decide, progress,
                       stage)


def _run_in(ar: Arith, red: Reduction, kinks: list[fmpq], tol: float, max_iter: int,
            deadline: float | None, decide: Any, progress: ProgressCallback | None,
            stage: str) -> tuple[ExchangeResult, Arith]:
    pr = _Problem(red, ar)
    dec = None if decide is None else ar.num(to_fmpq(decide, "decide"))
    res = exchange_search(pr.target, red.n, ar.num(red.ta), ar.num(red.tb), ar,
                          fixed=[ar.num(k) for k in kinks], tol=tol, max_iter=max_iter,
                          deadline=deadline, decide=dec, progress=progress, stage=stage,
                          weight=pr.weight, error=pr.error)
    if not ar.is_float or all(np.isfinite(np.asarray(res.values, dtype=float))):
        return res, ar
    raise ArithmeticError("non-finite values in the float64 search")


def _approximation(red: Reduction, n: int, res: ExchangeResult, ar: Arith, tol: float,
                   seconds: float, kinks: list[fmpq]) -> Approximation:
    """The exact polynomial in ``x`` and the points, read inside the search's precision."""
    ta, tb = red.ta, red.tb
    with precision_context(ar.bits):
        pr = _Problem(red, ar)
        tc = chebyshev_points_first_kind(red.n + 1, ar.num((ta + tb) / 2),
                                         ar.num((tb - ta) / 2), ar)
        vals = bary_eval(tc, res.ref, res.w, res.values, 4 / (ar.num(tb) - ar.num(ta)), ar)
        coeffs = [ar.to_fmpq(c) for c in chebyshev_coefficients_from_values(vals, ar)]
        h = ar.to_fmpq(abs(res.h))
        with np.errstate(all="ignore"):
            wref = [ar.to_fmpq(v) for v in pr.weight(res.ref)]
        wmax = max([v for v in wref if v > 0] + [fmpq(1, 2**60)])
        if h > 0:
            quantum = h * to_fmpq(tol, "tol") / (8 * (red.n + 1) * wmax)
            k = int(quantum.q).bit_length() - int(quantum.p).bit_length() + 1
            coeffs = [round_to_grid(c, k) for c in coeffs]
        alt_t = list(res.alternation)
        ext_t = list(res.extrema)
        alt = [ar.to_fmpq(v) for v in red.x_of(ar.array(alt_t), ar)] if alt_t else []
        ext = [ar.to_fmpq(v) for v in red.x_of(ar.array(ext_t), ar)] if ext_t else []
        stats = {"levelled_error": fmpq_to_decimal(h, 12),
                 "max_error_estimate": fmpq_to_decimal(ar.to_fmpq(res.max_error), 12)}
    r = ChebyshevPoly(coeffs or [fmpq(0)], domain=(ta, tb)).to_monomial().as_fmpq_poly()
    cs = [fmpq(0)] * (red.j + red.s * red.n + 1)
    for i in range(r.degree() + 1):
        cs[red.j + red.s * i] = fmpq(r[i])
    p = fmpq_poly(cs) + red.family.fixed_poly()
    a, b = red.a, red.b
    keep = {x for x in kinks}
    exact_ends = {red.xa, red.xb}
    xa, xb = red.xa, red.xb
    alt = sorted(min(max(x, xa), xb) for x in alt)
    alt = [x if x not in exact_ends else x for x in alt]
    alt = short_points(alt, xa, xb, 24, keep)
    ext = sorted({min(max(x, xa), xb) for x in ext})
    if red.mirrored:
        ext = sorted(set(ext) | {-x for x in ext if a <= -x <= b})
    ext = short_points(ext, a, b, 16, keep) if ext else ext
    text = fmpq_str
    params: dict[str, Any] = {"f": red.f.canonical, "degree": n,
                              "interval": [text(a), text(b)]}
    params.update(red.family.statement())
    if red.relative:
        params["relative"] = True
    if red.weight is not None:
        params["weight"] = red.weight.canonical
    return Approximation(
        construction="remez",
        params=params,
        poly=MonomialPoly.from_fmpq_poly(p),
        target={"kind": "expr", "expr": red.f.canonical, "variables": ["x"]},
        domain={"kind": "box", "intervals": [[text(a), text(b)]]},
        extra={"alternation": [text(x) for x in alt],
               "extrema": [text(x) for x in ext],
               **stats,
               "spread": f"{res.spread:.3g}",
               "iterations": res.iterations, "converged": res.converged,
               "stop": res.stop, "precision": repr(ar),
               "search_interval": [text(red.xa), text(red.xb)],
               "seconds": round(seconds, 3)},
    )
