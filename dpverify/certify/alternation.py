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

Least degree for a tolerance ``gamma`` (:mod:`.least_degree`): degree ``N`` is enough
when ``upper <= gamma``, and degree ``N - 1`` is impossible when a de la Vallee Poussin
bound for degree ``N - 1`` (another polynomial ``q``, ``N + 1`` alternation points)
exceeds ``gamma``.

Weighted errors and families (:mod:`dpverify.family`, :mod:`.weights`): the error is
``w (f - p)`` (``w = 1/f`` for the relative error) and the competing polynomials are
``p_fix + span{x^k : k in free}``; the lower bound is then the dual form of de la Vallee
Poussin's theorem with annihilating weights (:mod:`.annihilator`), the upper bound the
weighted graded sup-norm.

The polynomial and the points come from a *search* passed in by the caller (e.g.
:func:`dpverify.constructions.remez.remez`: certification never builds a construction);
a bad search can only make the bracket wider or the certification fail, never wrong.

Guarantee
---------
Every number in a returned statement is proven: the lower bounds by exact/ball
evaluation at the listed points, the upper bound by the interval certifier.

"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

from flint import fmpq, fmpq_poly

from .._version import __version__
from ..approximation import Approximation
from ..errors import (
    CertificationFailed,
    InvalidParameterError,
    ParameterTypeError,
    PrecisionExhausted,
    TimeLimitExceeded,
)
from ..exact import MonomialPoly
from ..expr import Expr, parse
from ..expr.breakpoints import as_polynomial
from ..family import Family, make_family
from ..numbers import (
    EXPONENT_CAP,
    BallTooLarge,
    check_int,
    check_interval,
    fmpq_str,
    fmpq_to_decimal,
    to_fmpq,
)
from ..progress import ProgressCallback, report
from .annihilator import family_lower_bound, weighted_error_at
from .certificate import CERT_FORMAT, SCHEMA_VERSION, Certificate
from .claims import polynomial_statement
from .graded_supnorm import sup_error
from .interval import SupNorm
from .search_calls import (
    Search,
    accepts,
    call_search,
)
from .weights import prove_sign, weight_expr

__all__ = ["Alternation", "alternation_lower_bound", "certify_minimax", "minimax",
           "Search", "sup_error", "MAX_DEGREE", "weight_statement", "deadline_of",
           "search_tol", "expr_of", "error_at", "family_keywords"]


#: Largest degree accepted here (the search may have a lower limit of its own: the Remez
#: search of dpverify.constructions.remez stops at 20000, for time)
MAX_DEGREE = 200_000

_DIGITS = 20


@dataclass
class Alternation:
    """A checked alternation: ``lower <= min_i |f(x_i) - p(x_i)|`` with alternating signs."""

    points: list[fmpq]
    signs: list[int]
    lower: fmpq


def expr_of(f: Any) -> Any:
    if isinstance(f, str):
        f = parse(f, variables=("x",), name="f")
    if not isinstance(f, Expr):
        raise ParameterTypeError(f"f must be an expression string or Expr, got {type(f).__name__}")
    if len(f.variables) > 1:
        raise InvalidParameterError(f"f must be a function of one variable, got {f.variables}")
    return f


def error_at(f: Any, poly: Any, x: fmpq, w: Expr | None = None) -> tuple[int, fmpq]:
    """``(sign of f(x) - p(x), lower bound of |w(x) (f(x) - p(x))|)``, decided exactly or
    in balls (``poly``: an ``fmpq_poly`` or any exact polynomial); sign 0 when
    undecided."""
    p = poly if isinstance(poly, fmpq_poly) else (
        poly.as_fmpq_poly() if poly.basis == "monomial" else poly.to_monomial().as_fmpq_poly())
    return weighted_error_at(f, w, p, x)


def alternation_lower_bound(f: Any, poly: Any, points: Any, interval: Any,
                            degree: Any = None, *, deadline: float | None = None,
                            weight: Expr | None = None) -> Alternation:
    """De la Vallee Poussin lower bound of ``E_N(f)`` at given points (module docstring);
    with ``weight``, of ``E_N(f; w) = min max |w (f - q)|`` (the signs of ``f - p``
    alternate and ``|w (f - p)| >= lower`` at the points: :mod:`.annihilator`).

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
    deadline : float, optional
        A ``time.monotonic()`` instant, checked between points.

    Returns
    -------
    Alternation
        ``lower`` rounded down to 20 significant digits.

    Raises
    ------
    CertificationFailed
        If the signs do not alternate or one cannot be decided.
    TimeLimitExceeded
        Past ``deadline``.

    Guarantee
    ---------
    ``E_N(f) >= lower`` (exact/ball arithmetic only).
    """
    f = expr_of(f)
    a, b = check_interval(interval)
    if isinstance(poly, (list, tuple)):
        poly = MonomialPoly(poly)
    if isinstance(points, (str, bytes)) or not isinstance(points, (list, tuple)):
        raise ParameterTypeError(f"points must be a list of exact numbers, got "
                                 f"{type(points).__name__}")
    pts = [to_fmpq(x, f"points[{i}]") for i, x in enumerate(points)]
    n = len(pts) - 2 if degree is None else check_int(degree, "degree", -1, MAX_DEGREE)
    if len(pts) != n + 2:
        raise InvalidParameterError(f"points must hold degree + 2 = {n + 2} points, got "
                                    f"{len(pts)}")
    if getattr(poly, "degree", None) is None or poly.degree > n:
        raise InvalidParameterError(f"poly must be an exact polynomial of degree <= {n}")
    if any(not a <= x <= b for x in pts) or any(x >= y for x, y in zip(pts, pts[1:])):
        raise InvalidParameterError("points must be strictly increasing and inside the interval")
    signs, lows = [], []
    exact_p = poly.as_fmpq_poly() if poly.basis == "monomial" else \
        poly.to_monomial().as_fmpq_poly()  # one conversion, then FLINT's exact evaluation
    for i, x in enumerate(pts):
        if deadline is not None and time.monotonic() > deadline:
            raise TimeLimitExceeded(f"time limit reached in the de la Vallee Poussin lower "
                                    f"bound ({i} of {len(pts)} points)")
        s, low = error_at(f, exact_p, x, weight)
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


def deadline_of(timeout: Any, deadline: float | None) -> float | None:
    if timeout is None:
        return deadline
    t = to_fmpq(timeout, "timeout")
    if not t > 0:
        raise InvalidParameterError(f"timeout must be > 0 seconds, got {timeout}")
    mine = time.monotonic() + float(t)
    return mine if deadline is None else min(mine, deadline)


def _ratio_text(upper: fmpq, lower: fmpq) -> str | None:
    """``upper/lower`` as ``1 + d`` (``d`` rounded up to 3 digits) or a decimal."""
    if lower <= 0:
        return None
    r = upper / lower
    if r < 2:
        return "1 + " + fmpq_to_decimal(r - 1, 3, "up")
    return fmpq_to_decimal(r, 6, "up")


def certify_minimax(
    approx: Approximation,
    degree: Any = None,
    *,
    max_error: Any = None,
    least_degree: Approximation | None = None,
    rtol: Any = "1e-6",
    timeout: Any = None,
    deadline: float | None = None,
    max_pieces: int = 500_000,
    progress: ProgressCallback | None = None,
    family: Family | None = None,
    weight: Any = None,
    relative: bool = False,
) -> Certificate:
    """A ``minimax`` certificate for a proposed best approximation.

    Parameters
    ----------
    approx : Approximation
        ``poly`` (degree ``<= N``), an ``expr`` target of ``x``, a box domain with one
        interval, and ``extra["alternation"]``: ``N + 2`` points where ``f - p`` alternates
        (what :func:`dpverify.constructions.remez.remez` returns; its
        ``extra["extrema"]`` are used as hints for the upper bound); for a family,
        ``|free| + 1`` points (:func:`dpverify.constructions.remez_family.remez_family`).
    degree : int, optional
        ``N`` (default ``len(alternation) - 2``, or the family's degree).
    max_error : exact number, optional
        ``gamma``: also prove ``upper <= gamma``.
    least_degree : Approximation, optional
        A proposal of degree ``N - 1`` (for a family: from ``family.lower()``) with its
        alternation points: prove ``E_{N-1}(f) > gamma`` (needs ``max_error``).  Left out
        of the statement (and listed in ``info.unproven_claims``) when it does not exceed
        ``gamma``.
    rtol : exact number
        The bracket's goal ``upper <= lower (1 + rtol)``.
    timeout, deadline, max_pieces, progress
        Limits of the upper bound (seconds, or a ``time.monotonic()`` instant; pieces) and
        a :mod:`dpverify.progress` callback (counts of pieces).
    family : Family, optional
        The polynomials competing (:mod:`dpverify.family`; default: every polynomial of
        degree ``<= N``); ``poly`` must belong to it.  The lower bound then uses
        annihilating weights (:mod:`.annihilator`).
    weight, relative
        The error ``w (f - p)``: a weight expression proven ``> 0`` on the interval, or
        ``relative=True`` for ``w = 1/f`` (``f`` proven ``!= 0``) (:mod:`.weights`).

    Returns
    -------
    Certificate
        Kind ``minimax`` (docs/certificates.md); ``info["bracket_met"]`` and
        ``Certificate.converged`` say whether ``upper <= lower (1 + rtol)``.

    Raises
    ------
    CertificationFailed
        When the alternation fails or ``max_error`` cannot be proven.
    TimeLimitExceeded
        When the time runs out before a finite upper bound.

    Guarantee
    ---------
    ``lower <= E <= sup |w (f - p)| <= upper`` and every claim in the statement proven,
    where ``E`` is the least ``max |w (f - q)|`` over the family.
    """
    if not isinstance(approx, Approximation):
        raise ParameterTypeError(f"approx must be an Approximation, got {type(approx).__name__}")
    t, dom = approx.target, approx.domain
    if t.get("kind") != "expr" or dom.get("kind") != "box" or len(dom["intervals"]) != 1:
        raise InvalidParameterError("approx needs an expr target and a one-interval box domain")
    f = expr_of(t["expr"])
    a, b = check_interval(dom["intervals"][0])
    pts = approx.extra.get("alternation")
    if not pts:
        raise InvalidParameterError("approx.extra['alternation'] must list the alternation points")
    if family is not None and not isinstance(family, Family):
        raise ParameterTypeError(f"family must be a Family, got {type(family).__name__}")
    fam = None if family is None or family.dense else family
    if fam is not None:
        n = fam.degree if degree is None else check_int(degree, "degree", 0, MAX_DEGREE)
        if n != fam.degree:
            raise InvalidParameterError(f"degree must be the family's degree {fam.degree}, "
                                        f"got {n}")
    else:
        n = len(pts) - 2 if degree is None else check_int(degree, "degree", 0, MAX_DEGREE)
    rtol_q = to_fmpq(rtol, "rtol")
    if not rtol_q > 0:
        raise InvalidParameterError(f"rtol must be > 0, got {rtol}")
    end = deadline_of(timeout, deadline)
    w = weight_expr(f, weight, relative)
    if w is not None:
        prove_sign(f if relative else w, a, b, what="f" if relative else "weight",
                   positive_only=not relative, deadline=end)
    mono = _monomial(approx.poly)
    if fam is not None:
        why = fam.mismatch([fmpq(c) for c in mono.coeffs()])
        if why is not None:
            raise InvalidParameterError(f"approx.poly is not in the family ({why})")
    try:
        if fam is not None:
            fb = family_lower_bound(f, w, mono, list(pts), fam, (a, b), deadline=end)
            alt = Alternation(fb.points, [], fb.lower)
        else:
            alt = alternation_lower_bound(f, approx.poly, pts, (a, b), n, deadline=end,
                                          weight=w)
        res = sup_error(f, approx.poly, (a, b), lower=alt.lower, rtol=rtol_q,
                        hints=approx.extra.get("extrema"), deadline=end,
                        max_pieces=max_pieces, progress=progress, weight=w)
    except PrecisionExhausted as exc:
        raise CertificationFailed(f"not certified: {exc}") from None
    except BallTooLarge:
        raise InvalidParameterError(
            f"interval [{fmpq_to_decimal(a, 6)}, {fmpq_to_decimal(b, 6)}] is too wide for "
            f"f = {f.canonical}: f - p takes values beyond 2^{EXPONENT_CAP}, the range of "
            "certified numbers; narrow the interval or rescale f") from None
    # the checker re-proves every piece against ``upper``: half of the room left to the
    # goal is added to the largest piece bound (still a proven bound, still within rtol)
    goal = alt.lower * (1 + rtol_q)
    up = res.upper + (goal - res.upper) / 2 if res.upper < goal else res.upper
    upper = to_fmpq(fmpq_to_decimal(up, _DIGITS, "up"))
    met = upper <= goal
    statement: dict[str, Any] = {
        "polynomial": polynomial_statement(approx.poly),
        "target": {"kind": "expr", "expr": f.canonical, "variables": ["x"]},
        "domain": {"kind": "box", "intervals": [[fmpq_str(a), fmpq_str(b)]]},
        "degree": n,
        "error": {"lower": fmpq_str(alt.lower), "upper": fmpq_str(upper)},
    }
    ws = weight_statement(relative, w)
    if ws is not None:
        statement["weight"] = ws
    if fam is not None:
        statement.update(fam.statement())
    evidence: dict[str, Any] = {
        "alternation": [fmpq_str(x) for x in alt.points],
        "pieces": [p.to_json() for p in res.pieces],
    }
    if fam is not None:
        evidence["annihilator"] = fb.evidence()["annihilator"]
    unproven: dict[str, Any] = {}
    if max_error is not None:
        gamma = to_fmpq(max_error, "max_error")
        if not upper <= gamma:
            raise CertificationFailed(
                f"max_error {fmpq_to_decimal(gamma, 6)} not proven: sup |f - p| <= "
                f"{fmpq_to_decimal(upper, 6, 'up')} only")
        statement["max_error"] = fmpq_str(gamma)
        if least_degree is not None:
            ok, why, alt2, ev2 = _least_degree(f, least_degree, a, b, n, gamma, end, w, fam)
            if ok and alt2 is not None:
                statement["least_degree"] = {"lower": fmpq_str(alt2.lower)}
                qj = least_degree.poly.to_json()
                evidence["least_degree"] = {
                    "polynomial": {"basis": qj["basis"], "domain": qj.get("domain"),
                                   "coefficients": qj["coefficients"]},
                    "alternation": [fmpq_str(x) for x in alt2.points], **ev2}
            else:
                unproven["least_degree"] = {"status": "undecided", "reason": why}
    elif least_degree is not None:
        raise InvalidParameterError("least_degree needs max_error")
    search = {k: v for k, v in approx.extra.items() if k not in ("alternation", "extrema")}
    info: dict[str, Any] = {
        "construction": {"name": approx.construction, "params": approx.params},
        "search": search,
        "supnorm": {"lower": fmpq_to_decimal(res.lower, 12, "down"), "status": res.status,
                    "converged": res.converged, "stats": res.stats},
        "ratio_upper_lower": _ratio_text(upper, alt.lower),
        "rtol": fmpq_str(rtol_q),
        "bracket_met": met,
        "converged": met,
        "dpverify_version": __version__,
    }
    if not met:
        info["why_not_met"] = _why_not_met(search, res, fam, a, b)
    if unproven:
        info["unproven_claims"] = unproven
    return Certificate({"schema_version": SCHEMA_VERSION, "format": CERT_FORMAT,
                        "kind": "minimax", "statement": statement, "evidence": evidence,
                        "info": info})


def _monomial(poly: Any) -> fmpq_poly:
    if isinstance(poly, (list, tuple)):
        poly = MonomialPoly(poly)
    out: fmpq_poly = poly.as_fmpq_poly() if poly.basis == "monomial" else \
        poly.to_monomial().as_fmpq_poly()
    return out


def weight_statement(relative: bool, w: Expr | None) -> dict[str, Any] | None:
    """The statement's ``weight`` field: ``{"kind": "relative"}`` (``w = 1/f``),
    ``{"kind": "expr", "expr": ..., "variables": ["x"]}``, or None (absolute error)."""
    if relative:
        return {"kind": "relative"}
    if w is None:
        return None
    return {"kind": "expr", "expr": w.canonical, "variables": ["x"]}


def _why_not_met(search: dict[str, Any], res: SupNorm, fam: Family | None = None,
                 a: fmpq | None = None, b: fmpq | None = None) -> str:
    """Why a bracket is wider than ``rtol``: how the search and the upper bound ended."""
    parts = []
    stop = search.get("stop")
    if stop is not None and stop != "converged":
        parts.append(f"the Remez search stopped: {stop} after {search.get('iterations')} "
                     f"exchange steps (relative spread of the extrema "
                     f"{search.get('spread')})")
    if not res.converged:
        parts.append(f"the upper bound stopped early ({res.status})")
    side = search.get("search_interval")
    if fam is not None and side is not None and a is not None and b is not None and \
            [fmpq_str(a), fmpq_str(b)] != side:
        parts.append(f"the family was searched on [{side[0]}, {side[1]}] only (its powers "
                     "have one parity: the problem is symmetric when |w (f - p)| is even, "
                     "which it is not here)")
    if not parts:
        parts.append("the polynomial is not close enough to the best one (its error's "
                     "peaks differ by more than rtol)")
    return "; ".join(parts)


def _least_degree(f: Expr, q: Approximation, a: fmpq, b: fmpq, n: int, gamma: fmpq,
                  deadline: float | None, w: Expr | None = None, fam: Family | None = None,
                  ) -> tuple[bool, str, Alternation | None, dict[str, Any]]:
    """Prove ``E_{N-1} > gamma`` with the proposal ``q`` (for a family: ``q`` in
    ``fam.lower()``, annihilating weights in the extra evidence returned)."""
    qpts = q.extra.get("alternation") or []
    extra: dict[str, Any] = {}
    try:
        if fam is not None:
            low = fam.lower()
            mono = _monomial(q.poly)
            why = low.mismatch([fmpq(c) for c in mono.coeffs()])
            if why is not None:
                return False, f"the lower-degree proposal is not in the family ({why})", \
                    None, extra
            fb = family_lower_bound(f, w, mono, list(qpts), low, (a, b), deadline=deadline)
            alt2 = Alternation(fb.points, [], fb.lower)
            extra = {"annihilator": fb.evidence()["annihilator"]}
        else:
            alt2 = alternation_lower_bound(f, q.poly, qpts, (a, b), n - 1, deadline=deadline,
                                           weight=w)
    except TimeLimitExceeded as exc:
        # max_error is proven already: keep it, and say the optimality proof ran out of time
        return False, f"time limit reached ({exc})", None, extra
    except (CertificationFailed, InvalidParameterError) as exc:
        return False, str(exc), None, extra
    if alt2.lower > gamma:
        return True, "", alt2, extra
    return False, (f"E_{n - 1}(f) >= {fmpq_to_decimal(alt2.lower, 6, 'down')} only, "
                   "not > max_error"), None, extra


def minimax(f: Any, degree: Any, interval: Any, *, search: Search, rtol: Any = "1e-6",
            timeout: Any = None, progress: ProgressCallback | None = None,
            relative: bool = False, weight: Any = None, monomials: Any = None,
            fix: Any = None) -> Certificate:
    """Search (``search``, e.g. :func:`dpverify.constructions.remez.remez`) and certify
    the best approximation of degree ``<= degree``: a ``minimax`` certificate with
    ``lower <= E_N(f) <= upper`` (see :func:`certify_minimax`).

    ``timeout`` (seconds) bounds the whole call: the search and the certification share
    it (:class:`~dpverify.errors.TimeLimitExceeded` says where it ran out).  ``progress``:
    a :mod:`dpverify.progress` callback (the search's exchange steps when it takes
    ``progress``, then the certifier's pieces).  Whether the bracket met ``rtol`` is
    ``info["bracket_met"]`` (``Certificate.converged``), with ``info["search"]`` (how the
    search ended) and ``info["why_not_met"]``.

    ``relative=True`` (error ``(f - p)/f``; ``f`` proven ``!= 0`` on the interval, else
    the message names where it vanishes), ``weight`` (error ``w (f - p)``, ``w`` proven
    ``> 0``), ``monomials`` (the free powers: ``[1, 3, 5, 7]``, ``"odd"``, ``"even"``) and
    ``fix`` (fixed coefficients ``{power: value}``) choose the error and the family
    (:mod:`dpverify.family`); the search is then told ``family``, ``weight`` and
    ``relative``.

    Guarantee
    ---------
    As :func:`certify_minimax`; the search only affects how tight the bracket is.
    """
    f = expr_of(f)
    n = check_int(degree, "degree", 0, MAX_DEGREE)
    a, b = check_interval(interval)
    fam = None if monomials is None and fix is None else make_family(n, monomials, fix)
    P = as_polynomial(f)
    if P is not None and P.degree() <= n and (fam is None or fam.mismatch(
            [fmpq(c) for c in P.coeffs()]) is None):
        raise InvalidParameterError(
            f"f is a polynomial of degree {max(P.degree(), 0)} <= {n}: E_{n}(f) = 0 and the "
            "best approximation is f itself (nothing to certify)")
    rtol_q = to_fmpq(rtol, "rtol")
    if not rtol_q > 0:
        raise InvalidParameterError(f"rtol must be > 0, got {rtol}")
    end = deadline_of(timeout, None)
    w = weight_expr(f, weight, relative)
    if w is not None:
        prove_sign(f if relative else w, a, b, what="f" if relative else "weight",
                   positive_only=not relative, deadline=end)
    report(progress, f"search: degree {n}", 0, None)
    kw = family_keywords(search, fam, weight if not relative else None, relative)
    proposal = call_search(search, f, n, a, b, deadline=end, progress=progress,
                           tol=search_tol(rtol_q), **kw)
    return certify_minimax(proposal, n, rtol=rtol_q, deadline=end, progress=progress,
                           family=fam, weight=weight if not relative else None,
                           relative=relative)


def family_keywords(search: Search, fam: Family | None, weight: Any,
                     relative: bool) -> dict[str, Any]:
    """The keywords telling ``search`` the family and the weight (refused when it does not
    take them)."""
    kw: dict[str, Any] = {}
    if fam is not None and not fam.dense:
        kw["family"] = fam
    if weight is not None:
        kw["weight"] = weight
    if relative:
        kw["relative"] = True
    missing = sorted(set(kw) - accepts(search))
    if missing:
        raise InvalidParameterError(f"the search does not take {', '.join(missing)} (pass a "
                                    "search that does, e.g. the default Remez search)")
    return kw


def search_tol(rtol: fmpq) -> fmpq:
    """The search's equioscillation tolerance for a bracket goal ``rtol``: 1/20 of it,
    at most ``1e-8`` (the peaks must agree well inside ``rtol`` for the de la Vallee
    Poussin bound and the supremum to meet)."""
    return min(fmpq(1, 10**8), rtol / 20)


def __getattr__(name: str) -> Any:
    """``approx`` lives in :mod:`.least_degree` (it imports this module); it is still
    reachable here, its former home."""
    if name == "approx":
        # deferred: least_degree imports this module (a cycle at import time otherwise)
        from .least_degree import approx
        return approx
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
