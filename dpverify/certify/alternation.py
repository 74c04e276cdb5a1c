"""Certified bracket of the minimax error ``E_N(f)`` on an interval, and the least degree.

``E_N(f) = min_{deg q <= N} max_{[a, b]} |f - q|``.

Lower bound (de la Vallee Poussin; Powell, *Approximation Theory and Methods*, CUP 1981,
Theorem 7.7; Trefethen, *Approximation Theory and Approximation Practice*, SIAM 2013,
ch. 10).  If ``deg p <= N`` and ``e = f - p`` alternates in sign at
``x_0 < ... < x_{N+1}`` in ``[a, b]``, then ``E_N(f) >= min_i |e(x_i)|``.  (Proof: if
``q`` of degree ``<= N`` had ``max |f - q| < min_i |e(x_i)|``, ``q - p = e - (f - q)``
would take the sign of ``e(x_i)`` at the ``N + 2`` points, so it would have ``N + 1``
zeros.)  :func:`alternation_lower_bound` checks it rigorously: the points are exact
rationals, ``p(x_i)`` exact, ``f(x_i)`` an exact rational or an arb ball at growing
precision until its sign and a lower bound of ``|e(x_i)|`` are decided.

Upper bound: ``E_N(f) <= sup |f - p| <= upper`` from the interval certifier
(:func:`dpverify.certify.interval.supnorm`).  The certificate (kind ``minimax``,
``docs/certificates.md``) states ``lower <= E_N(f) <= sup_{[a,b]} |f - p| <= upper``;
``dpverify verify`` re-checks both sides.

Least degree for a tolerance ``gamma``: degree ``N`` is enough when ``upper <= gamma``,
and degree ``N - 1`` is impossible when a de la Vallee Poussin bound for degree ``N - 1``
(another polynomial ``q``, ``N + 1`` alternation points) exceeds ``gamma``.

The polynomial and the points come from a *search* passed in by the caller (e.g.
:func:`dpverify.constructions.remez.remez`: certification never builds a construction);
a bad search can only make the bracket wider or the certification fail, never wrong.

Guarantee
---------
Every number in a returned statement is proven: the lower bounds by exact/ball
evaluation at the listed points, the upper bound by the interval certifier.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from flint import arb, ctx, fmpq

from .._version import __version__
from ..approximation import Approximation
from ..errors import (
    CertificationFailed,
    DomainError,
    InvalidParameterError,
    ParameterTypeError,
    PrecisionExhausted,
)
from ..exact import MonomialPoly
from ..expr import Expr, parse
from ..numbers import arb_to_fmpq_bounds, check_int, fmpq_str, fmpq_to_decimal, to_fmpq
from ..progress import ProgressCallback, report
from .certificate import CERT_FORMAT, SCHEMA_VERSION, Certificate
from .claims import polynomial_statement
from .interval import supnorm

__all__ = ["Alternation", "alternation_lower_bound", "certify_minimax", "minimax", "approx",
           "Search"]

#: A search: ``search(f, degree, (a, b))`` -> Approximation with ``extra["alternation"]``.
Search = Callable[[Any, int, tuple[fmpq, fmpq]], Approximation]

_DIGITS = 20
_MAX_PREC = 1 << 14


@dataclass
class Alternation:
    """A checked alternation: ``lower <= min_i |f(x_i) - p(x_i)|`` with alternating signs."""

    points: list[fmpq]
    signs: list[int]
    lower: fmpq


def _expr(f: Any) -> Any:
    if isinstance(f, str):
        f = parse(f, variables=("x",), name="f")
    if not isinstance(f, Expr):
        raise ParameterTypeError(f"f must be an expression string or Expr, got {type(f).__name__}")
    if len(f.variables) > 1:
        raise InvalidParameterError(f"f must be a function of one variable, got {f.variables}")
    return f


def _interval(interval: Any) -> tuple[fmpq, fmpq]:
    if not isinstance(interval, (list, tuple)) or len(interval) != 2:
        raise InvalidParameterError(f"interval must be a pair (a, b), got {interval!r}")
    a, b = to_fmpq(interval[0], "interval[0]"), to_fmpq(interval[1], "interval[1]")
    if not a < b:
        raise InvalidParameterError(f"interval must have a < b, got [{a}, {b}]")
    return a, b


def _error_at(f: Any, poly: Any, x: fmpq) -> tuple[int, fmpq]:
    """``(sign, lower bound of |f(x) - p(x)|)``, decided exactly or in balls."""
    px = poly(x)
    try:
        fx = f.eval_exact(x)
    except DomainError:
        raise DomainError(f"f is not defined at x = {fmpq_to_decimal(x, 15)}") from None
    if fx is not None:
        e = fx - px
        return (1 if e > 0 else -1 if e < 0 else 0), abs(e)
    prec = 64
    while prec <= _MAX_PREC:
        with ctx.workprec(prec):
            v = f.eval_arb(arb(x)) - arb(px)
        if not v.is_finite():
            raise DomainError(f"f is not finite at x = {fmpq_to_decimal(x, 15)}")
        lo, hi = arb_to_fmpq_bounds(v)
        if lo > 0 or hi < 0:
            low = lo if lo > 0 else -hi
            # accurate to 2^-40 relative: enough for a useful bound
            if (hi - lo) <= low / 2**40 or prec * 2 > _MAX_PREC:
                return (1 if lo > 0 else -1), low
        prec *= 2
    return 0, fmpq(0)


def alternation_lower_bound(f: Any, poly: Any, points: Any, interval: Any,
                            degree: Any = None) -> Alternation:
    """De la Vallee Poussin lower bound of ``E_N(f)`` at given points (module docstring).

    Parameters
    ----------
    f : str or Expr
        Function of ``x``.
    poly : ExactPoly or sequence of exact numbers
        ``p``, degree ``<= N`` (a list means monomial coefficients, lowest first).
    points : sequence of exact numbers
        ``N + 2`` strictly increasing points of ``interval``.
    interval : pair of exact numbers
    degree : int, optional
        ``N`` (default: ``len(points) - 2``).

    Returns
    -------
    Alternation
        ``lower`` rounded down to 20 significant digits.

    Raises
    ------
    CertificationFailed
        If the signs do not alternate or one cannot be decided.

    Guarantee
    ---------
    ``E_N(f) >= lower`` (exact/ball arithmetic only).
    """
    f = _expr(f)
    a, b = _interval(interval)
    if isinstance(poly, (list, tuple)):
        poly = MonomialPoly(poly)
    if isinstance(points, (str, bytes)) or not isinstance(points, (list, tuple)):
        raise ParameterTypeError(f"points must be a list of exact numbers, got "
                                 f"{type(points).__name__}")
    pts = [to_fmpq(x, f"points[{i}]") for i, x in enumerate(points)]
    n = len(pts) - 2 if degree is None else check_int(degree, "degree", -1, 10**6)
    if len(pts) != n + 2:
        raise InvalidParameterError(f"points must hold degree + 2 = {n + 2} points, got "
                                    f"{len(pts)}")
    if getattr(poly, "degree", None) is None or poly.degree > n:
        raise InvalidParameterError(f"poly must be an exact polynomial of degree <= {n}")
    if any(not a <= x <= b for x in pts) or any(x >= y for x, y in zip(pts, pts[1:])):
        raise InvalidParameterError("points must be strictly increasing and inside the interval")
    signs, lows = [], []
    for x in pts:
        s, low = _error_at(f, poly, x)
        if s == 0:
            raise CertificationFailed(f"f - p vanishes (or its sign is undecided) at "
                                      f"x = {fmpq_to_decimal(x, 15)}")
        signs.append(s)
        lows.append(low)
    if any(s == t for s, t in zip(signs, signs[1:])):
        raise CertificationFailed("f - p does not alternate in sign at the points")
    low = min(lows)
    low = to_fmpq(fmpq_to_decimal(low, _DIGITS, "down"))
    return Alternation(pts, signs, low)


def certify_minimax(
    approx: Approximation,
    degree: Any = None,
    *,
    max_error: Any = None,
    least_degree: Approximation | None = None,
    rtol: Any = "1e-6",
    timeout: Any = None,
    max_pieces: int = 200_000,
    progress: ProgressCallback | None = None,
) -> Certificate:
    """A ``minimax`` certificate for a proposed best approximation.

    Parameters
    ----------
    approx : Approximation
        ``poly`` (degree ``<= N``), an ``expr`` target of ``x``, a box domain with one
        interval, and ``extra["alternation"]``: ``N + 2`` points where ``f - p`` alternates
        (what :func:`dpverify.constructions.remez.remez` returns).
    degree : int, optional
        ``N`` (default ``len(alternation) - 2``).
    max_error : exact number, optional
        ``gamma``: also prove ``upper <= gamma``.
    least_degree : Approximation, optional
        A proposal of degree ``N - 1`` with its ``N + 1`` alternation points: prove
        ``E_{N-1}(f) > gamma`` (needs ``max_error``).  Left out of the statement (and
        listed in ``info.unproven_claims``) when it does not exceed ``gamma``.
    rtol, timeout, max_pieces, progress
        Passed to the interval certifier for the upper bound (``progress``: a
        :mod:`dpverify.progress` callback, reports counts of pieces).

    Returns
    -------
    Certificate
        Kind ``minimax`` (docs/certificates.md).

    Raises
    ------
    CertificationFailed
        When the alternation fails or ``max_error`` cannot be proven.

    Guarantee
    ---------
    ``lower <= E_N(f) <= sup |f - p| <= upper`` and every claim in the statement proven.
    """
    if not isinstance(approx, Approximation):
        raise ParameterTypeError(f"approx must be an Approximation, got {type(approx).__name__}")
    t, dom = approx.target, approx.domain
    if t.get("kind") != "expr" or dom.get("kind") != "box" or len(dom["intervals"]) != 1:
        raise InvalidParameterError("approx needs an expr target and a one-interval box domain")
    f = _expr(t["expr"])
    a, b = _interval(dom["intervals"][0])
    pts = approx.extra.get("alternation")
    if not pts:
        raise InvalidParameterError("approx.extra['alternation'] must list the alternation points")
    n = len(pts) - 2 if degree is None else check_int(degree, "degree", 0, 10**6)
    alt = alternation_lower_bound(f, approx.poly, pts, (a, b), n)
    try:
        res = supnorm(f, approx.poly, [(a, b)], rtol=rtol, timeout=timeout,
                      max_pieces=max_pieces, progress=progress)
    except PrecisionExhausted as exc:
        raise CertificationFailed(f"not certified: {exc}") from None
    upper = to_fmpq(fmpq_to_decimal(res.upper, _DIGITS, "up"))
    statement: dict[str, Any] = {
        "polynomial": polynomial_statement(approx.poly),
        "target": {"kind": "expr", "expr": f.canonical, "variables": ["x"]},
        "domain": {"kind": "box", "intervals": [[fmpq_str(a), fmpq_str(b)]]},
        "degree": n,
        "error": {"lower": fmpq_str(alt.lower), "upper": fmpq_str(upper)},
    }
    evidence: dict[str, Any] = {
        "alternation": [fmpq_str(x) for x in alt.points],
        "pieces": [p.to_json() for p in res.pieces],  # 1 variable: built here (progress)
    }
    unproven: dict[str, Any] = {}
    if max_error is not None:
        gamma = to_fmpq(max_error, "max_error")
        if not upper <= gamma:
            raise CertificationFailed(
                f"max_error {fmpq_to_decimal(gamma, 6)} not proven: sup |f - p| <= "
                f"{fmpq_to_decimal(upper, 6, 'up')} only")
        statement["max_error"] = fmpq_str(gamma)
        if least_degree is not None:
            q = least_degree
            qpts = q.extra.get("alternation") or []
            why = ""
            try:
                alt2 = alternation_lower_bound(f, q.poly, qpts, (a, b), n - 1)
                ok = alt2.lower > gamma
                if not ok:
                    why = (f"E_{n - 1}(f) >= {fmpq_to_decimal(alt2.lower, 6, 'down')} only, "
                           "not > max_error")
            except (CertificationFailed, InvalidParameterError) as exc:
                ok, why = False, str(exc)
            if ok:
                statement["least_degree"] = {"lower": fmpq_str(alt2.lower)}
                qj = q.poly.to_json()
                evidence["least_degree"] = {
                    "polynomial": {"basis": qj["basis"], "domain": qj.get("domain"),
                                   "coefficients": qj["coefficients"]},
                    "alternation": [fmpq_str(x) for x in alt2.points]}
            else:
                unproven["least_degree"] = {"status": "undecided", "reason": why}
    elif least_degree is not None:
        raise InvalidParameterError("least_degree needs max_error")
    info: dict[str, Any] = {
        "construction": {"name": approx.construction, "params": approx.params},
        "search": {k: v for k, v in approx.extra.items() if k != "alternation"},
        "supnorm": {"lower": fmpq_to_decimal(res.lower, 12, "down"), "status": res.status,
                    "converged": res.converged, "stats": res.stats},
        "ratio_upper_lower": fmpq_to_decimal(upper / alt.lower, 6, "up")
        if alt.lower > 0 else None,
        "dpverify_version": __version__,
    }
    if unproven:
        info["unproven_claims"] = unproven
    return Certificate({"schema_version": SCHEMA_VERSION, "format": CERT_FORMAT,
                        "kind": "minimax", "statement": statement, "evidence": evidence,
                        "info": info})


def _call_search(search: Search, f: Any, n: int, a: fmpq, b: fmpq) -> Approximation:
    if not callable(search):
        raise ParameterTypeError(f"search must be callable, got {type(search).__name__}")
    out = search(f, n, (a, b))
    if not isinstance(out, Approximation):
        raise ParameterTypeError("search must return an Approximation")
    return out


def minimax(f: Any, degree: Any, interval: Any, *, search: Search, rtol: Any = "1e-6",
            timeout: Any = None, progress: ProgressCallback | None = None) -> Certificate:
    """Search (``search``, e.g. :func:`dpverify.constructions.remez.remez`) and certify
    the best approximation of degree ``<= degree``: a ``minimax`` certificate with
    ``lower <= E_N(f) <= upper`` (see :func:`certify_minimax`).  ``progress``: a
    :mod:`dpverify.progress` callback (stages ``search`` and the certifier's pieces);
    to follow the search's own iterations, pass it to the search too (e.g.
    ``functools.partial(remez, progress=progress)``).

    Guarantee
    ---------
    As :func:`certify_minimax`; the search only affects how tight the bracket is.
    """
    f = _expr(f)
    n = check_int(degree, "degree", 0, 10**6)
    a, b = _interval(interval)
    report(progress, f"search: degree {n}", 0, None)
    proposal = _call_search(search, f, n, a, b)
    return certify_minimax(proposal, n, rtol=rtol, timeout=timeout, progress=progress)


def approx(f: Any, interval: Any, gamma: Any, *, search: Search, max_degree: int = 100,
           rtol: Any = "1e-6", timeout: Any = None,
           progress: ProgressCallback | None = None) -> Certificate:
    """The least degree ``N`` whose best approximation is certified within ``gamma``.

    Degrees are proposed by the search's levelled errors (``extra["levelled_error"]``,
    floats: they only choose where to look) by doubling then bisection; the first ``N``
    whose polynomial is certified ``sup |f - p| <= gamma`` is returned, with, when the
    de la Vallee Poussin bound of the degree ``N - 1`` proposal exceeds ``gamma``, the
    proof that no polynomial of degree ``N - 1`` (hence none of lower degree) achieves
    ``gamma`` (``statement.least_degree``); otherwise only ``max_error`` is proven and
    ``info.unproven_claims`` says so.

    ``progress`` (a :mod:`dpverify.progress` callback, optional) is told of each search
    (stage ``search: degree N``, done = the number of searches so far) and each
    certification attempt (the certifier's pieces); counts only.

    Raises
    ------
    CertificationFailed
        If no degree ``<= max_degree`` is certified.

    Guarantee
    ---------
    As :func:`certify_minimax`: ``max_error = gamma`` is proven for the returned
    polynomial; ``least_degree`` only when present in the statement.
    """
    f = _expr(f)
    a, b = _interval(interval)
    g = to_fmpq(gamma, "gamma")
    if not g > 0:
        raise InvalidParameterError(f"gamma must be > 0, got {gamma}")
    check_int(max_degree, "max_degree", 0, 10**6)
    cache: dict[int, Approximation] = {}

    def prop(n: int) -> Approximation:
        if n not in cache:
            report(progress, f"search: degree {n}", len(cache), None)
            cache[n] = _call_search(search, f, n, a, b)
        return cache[n]

    def est(n: int) -> fmpq:
        extra = prop(n).extra
        text = extra.get("max_error_estimate") or extra.get("levelled_error")
        if text is None:
            return fmpq(0)  # the search gives no estimate: try to certify this degree
        try:
            return to_fmpq(str(text), "levelled_error")
        except (InvalidParameterError, ParameterTypeError):
            return 2 * g  # the search failed here (e.g. "inf"): look at higher degrees

    lo, hi = -1, 0  # est(lo) > gamma (or lo = -1), est(hi) <= gamma
    while est(hi) > g:
        lo = hi
        hi = min(max(1, 2 * hi), max_degree)
        if hi == lo:
            raise CertificationFailed(f"no degree <= {max_degree} reaches gamma")
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if est(mid) > g:
            lo = mid
        else:
            hi = mid
    n = hi
    while n <= max_degree:
        try:
            below = prop(n - 1) if n >= 1 else _zero_proposal(f, a, b)
            return certify_minimax(prop(n), n, max_error=g, least_degree=below, rtol=rtol,
                                   timeout=timeout, progress=progress)
        except CertificationFailed:
            n += 1
    raise CertificationFailed(f"no degree <= {max_degree} certified within gamma")


def _zero_proposal(f: Any, a: fmpq, b: fmpq) -> Approximation:
    """Degree -1 (only the zero polynomial): ``E_{-1}(f) = sup |f| >= |f(x)|`` at the
    point of largest ``|f|`` among the ends and the midpoint (one alternation point)."""
    best, arg = fmpq(-1), a
    for x in (a, (a + b) / 2, b):
        try:
            _, low = _error_at(f, MonomialPoly([0]), x)
        except DomainError:
            continue
        if low > best:
            best, arg = low, x
    return Approximation(construction="zero", params={}, poly=MonomialPoly([0]),
                         target={"kind": "expr", "expr": f.canonical, "variables": ["x"]},
                         domain={"kind": "box", "intervals": [[fmpq_str(a), fmpq_str(b)]]},
                         extra={"alternation": [fmpq_str(arg)]})
