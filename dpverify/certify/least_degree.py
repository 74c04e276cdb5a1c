"""The least degree whose best approximation is certified within ``gamma`` (``approx``).

Degrees are probed with a search (:mod:`.search_calls`; its numbers only choose where to
look) and the chosen degree ``N`` is certified by :func:`.alternation.certify_minimax`
(``sup |w (f - p)| <= gamma``), with, when a de la Vallee Poussin bound of the best
approximation one degree lower exceeds ``gamma``, the proof that no lower degree reaches
it (``statement.least_degree``).

Families (:mod:`dpverify.family`): ``monomials="odd"`` / ``"even"`` (the powers of one
parity up to the degree) and fixed coefficients ``fix``.  The degrees tried are those
whose family is defined (a free power at the top, above every fixed power); the family
one degree lower is the same family without its top power, so the least-degree proof
says that no polynomial of the family with fewer powers reaches ``gamma``.  The lowest
degree's lower family has no free power at all: its only member is the fixed part
``p_fix``, and ``max |w (f - p_fix)|`` at one point bounds it.

Guarantee
---------
As :func:`.alternation.certify_minimax`: ``max_error = gamma`` is proven for the returned
polynomial; ``least_degree`` only when present in the statement.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from flint import fmpq

from ..approximation import Approximation
from ..errors import (
    CertificationFailed,
    DomainError,
    InvalidParameterError,
    TimeLimitExceeded,
)
from ..exact import MonomialPoly
from ..expr import Expr
from ..expr.breakpoints import as_polynomial
from ..family import Family, make_family
from ..numbers import check_int, check_interval, fmpq_str, fmpq_to_decimal, to_fmpq
from ..progress import ProgressCallback, report
from .alternation import (
    MAX_DEGREE,
    Search,
    alternation_lower_bound,
    certify_minimax,
    deadline_of,
    error_at,
    expr_of,
    family_keywords,
    search_tol,
)
from .annihilator import family_lower_bound
from .certificate import Certificate
from .search_calls import Probe, call_search, rtols_for, search_number, side_of_gamma
from .weights import prove_sign, weight_expr

__all__ = ["approx", "family_degrees"]


def family_degrees(monomials: Any, fix: Any, top: int) -> tuple[list[int],
                                                                Callable[[int], Family | None]]:
    """The degrees ``<= top`` whose family is defined, and the family of each (None: the
    dense family, when neither ``monomials`` nor ``fix`` is given).

    Raises
    ------
    InvalidParameterError
        ``monomials`` other than None, ``"odd"`` or ``"even"`` (a list fixes the degree:
        use ``minimax``).

    Examples
    --------
    >>> degs, fam = family_degrees("odd", {1: 1}, 9)
    >>> degs, fam(7).free
    ([3, 5, 7, 9], (3, 5, 7))
    """
    if monomials is None and fix is None:
        return list(range(top + 1)), lambda n: None
    if monomials is not None and (not isinstance(monomials, str)
                                  or monomials.strip().lower() not in ("odd", "even")):
        raise InvalidParameterError("monomials must be 'odd' or 'even' for a least degree (a "
                                    "list of powers fixes the degree: use minimax)")
    parity = None if monomials is None else (1 if monomials.strip().lower() == "odd" else 0)
    fixed = make_family(max(1, top + 1), None, fix).fixed_dict if fix is not None else {}
    low = max(fixed) + 1 if fixed else 0
    degs = [n for n in range(low, top + 1)
            if (parity is None or n % 2 == parity) and n not in fixed]

    def fam(n: int) -> Family:
        return make_family(n, monomials, fix)
    return degs, fam


def approx(f: Any, interval: Any, gamma: Any, *, search: Search, max_degree: int = 1000,
           rtol: Any = "1e-6", timeout: Any = None,
           progress: ProgressCallback | None = None, relative: bool = False,
           weight: Any = None, monomials: Any = None, fix: Any = None) -> Certificate:
    """The least degree ``N`` whose best approximation is certified within ``gamma``.

    Degrees are probed with the search (its numbers only choose where to look): at degree
    ``n`` the levelled error ``|h| <= E_n`` and the largest error found ``max |e|``
    (about ``E_n`` from above) place ``E_n`` above or below ``gamma``; the search is told
    ``decide=gamma`` and stops as soon as it knows the side.  Doubling then bisection give
    the least ``n`` below; that degree is searched to convergence and certified
    (``sup |f - p| <= gamma``; retried with a tighter ``rtol`` when ``gamma`` is inside the
    bracket, then the next degree), with, when the de la Vallee Poussin bound of the
    degree ``N - 1`` proposal exceeds ``gamma``, the proof that no polynomial of degree
    ``N - 1`` (hence none of lower degree) achieves ``gamma`` (``statement.least_degree``);
    otherwise only ``max_error`` is proven and ``info.unproven_claims`` says why.

    ``max_degree`` (default 1000) caps the degrees tried; ``timeout`` (seconds) bounds the
    whole call.  ``progress`` (a :mod:`dpverify.progress` callback) is told of each probe
    (stage ``search: degree n``) and of the certifier's pieces; counts only.
    ``relative``, ``weight``: the error ``w (f - p)`` (:func:`.alternation.minimax`);
    ``monomials`` (``"odd"`` or ``"even"``) and ``fix``: the family (module docstring).

    Raises
    ------
    CertificationFailed
        If no degree ``<= max_degree`` is certified.  The message names the degrees the
        search could not decide; it says that no degree ``<= max_degree`` reaches ``gamma``
        only when the search put ``E_{max_degree}`` above ``gamma``, and whether that is
        proven.
    TimeLimitExceeded
        When the time runs out (the message names the degree).

    Guarantee
    ---------
    As :func:`.alternation.certify_minimax`: ``max_error = gamma`` is proven for the
    returned polynomial; ``least_degree`` only when present in the statement.
    """
    f = expr_of(f)
    a, b = check_interval(interval)
    g = to_fmpq(gamma, "gamma")
    if not g > 0:
        raise InvalidParameterError(f"gamma must be > 0, got {gamma}")
    top = check_int(max_degree, "max_degree", 0, MAX_DEGREE)
    rtol_q = to_fmpq(rtol, "rtol")
    if not rtol_q > 0:
        raise InvalidParameterError(f"rtol must be > 0, got {rtol}")
    end = deadline_of(timeout, None)
    tol = search_tol(rtol_q)
    degs, family_at = family_degrees(monomials, fix, top)
    w = weight_expr(f, weight, relative)
    if w is not None:
        prove_sign(f if relative else w, a, b, what="f" if relative else "weight",
                   positive_only=not relative, deadline=end)
    wgt = None if relative else weight
    probes: dict[int, Probe] = {}
    P = as_polynomial(f)
    exact_at = None if P is None or monomials is not None or fix is not None \
        else max(P.degree(), 0)
    if exact_at is not None and exact_at <= top:
        # degree d = deg f represents f exactly (E_d = 0): search below it only
        if exact_at == 0:
            raise InvalidParameterError("f is a constant: degree 0 represents it exactly")
        top = exact_at - 1
        degs = [n for n in degs if n <= top]
    if not degs:
        raise InvalidParameterError(f"no degree <= {top} fits the family (monomials, fix)")

    def search_at(n: int, decide: fmpq | None) -> Approximation:
        kw = family_keywords(search, family_at(n), wgt, relative)
        try:
            return call_search(search, f, n, a, b, deadline=end, decide=decide, tol=tol,
                               **kw)
        except TimeLimitExceeded as exc:
            raise TimeLimitExceeded(f"{exc} (least-degree search, degree {n})") from None

    def probe(i: int) -> Probe:
        n = degs[i]
        if n not in probes:
            report(progress, f"search: degree {n}", len(probes), None)
            ap = search_at(n, g)
            side, why = side_of_gamma(ap, g)
            probes[n] = Probe(n, side, ap, why)
        return probes[n]

    last = len(degs) - 1
    # doubling on the index of the degree: lo above gamma, hi the first one not above
    lo, hi = -1, 0
    while probe(hi).side == "above":
        lo = hi
        if hi == last:
            exact = exact_at is not None and exact_at == degs[last] + 1
            why, late = _none_reaches(f, probes[degs[last]], a, b, g, degs[last], end,
                                      exact_at if exact else None, w, family_at(degs[last]))
            raise (TimeLimitExceeded if late else CertificationFailed)(why)
        hi = min(max(1, 2 * hi), last)
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if probe(mid).side == "above":
            lo = mid
        else:
            hi = mid
    failed = {n: p for n, p in probes.items() if p.side == "failed" and n <= degs[hi]}
    i = hi
    while i <= last:
        n = degs[i]
        p = probe(i)
        if p.side == "above":
            i += 1
            continue
        full = p.proposal if p.proposal.extra.get("stop") in ("converged", "exact") \
            else search_at(n, None)
        below = _below_proposal(f, i, degs, a, b, g, probes, search_at, family_at, w)
        for r in rtols_for(rtol_q, full, g):
            try:
                cert = certify_minimax(full, n, max_error=g, least_degree=below, rtol=r,
                                       deadline=end, progress=progress, family=family_at(n),
                                       weight=wgt, relative=relative)
            except CertificationFailed as exc:
                if isinstance(exc, TimeLimitExceeded):
                    raise
                continue
            if failed:
                cert.info["undecided_degrees"] = {str(k): v.why for k, v in failed.items()}
            return cert
        i += 1
    top = degs[last]
    if exact_at is not None and exact_at == top + 1:
        raise CertificationFailed(
            f"no degree <= {top} was certified within gamma; f is a polynomial of degree "
            f"{exact_at}, which represents it exactly (E_{exact_at} = 0)")
    if failed:
        raise CertificationFailed(
            f"no degree <= {top} was certified within gamma, and the search could not "
            f"decide degree(s) {', '.join(str(k) for k in sorted(failed))}: "
            f"{next(iter(failed.values())).why}")
    raise CertificationFailed(f"no degree in {degs[hi]}..{top} was certified within gamma "
                              "(the bracket of sup |f - p| did not reach gamma)")


def _below_proposal(f: Expr, i: int, degs: list[int], a: fmpq, b: fmpq, g: fmpq,
                    probes: dict[int, Probe],
                    search_at: Callable[[int, fmpq | None], Approximation],
                    family_at: Callable[[int], Family | None],
                    w: Expr | None) -> Approximation:
    """The proposal one degree below ``degs[i]`` for the least-degree proof: the probe of
    ``degs[i - 1]`` (searched again unless good enough), or, below the lowest degree, the
    fixed part (the zero polynomial for the dense family) at one point."""
    n = degs[i]
    fam = family_at(n)
    if i == 0:
        fixed = MonomialPoly([0]) if fam is None else \
            MonomialPoly.from_fmpq_poly(fam.fixed_poly())
        return _fixed_proposal(f, fixed, a, b, w)
    if fam is None and degs[i - 1] != n - 1:
        return search_at(n - 1, None)
    p = probes.get(degs[i - 1])
    if p is not None and p.side == "above":
        h = search_number(p.proposal.extra.get("levelled_error"))
        # a probe stopped as soon as |h| > gamma: its alternation is good enough unless
        # |h| is within 1% of gamma (then the rounding of its points could lose the proof)
        if p.proposal.extra.get("stop") != "decided" or (h is not None and h > g * 101 / 100):
            return p.proposal
    return search_at(degs[i - 1], None)


def _none_reaches(f: Expr, p: Probe, a: fmpq, b: fmpq, g: fmpq, top: int,
                  deadline: float | None, exact_at: int | None = None,
                  w: Expr | None = None, fam: Family | None = None) -> tuple[str, bool]:
    """The message when the search puts ``E_top`` above gamma, saying whether that is
    proven (de la Vallee Poussin at the search's points), and whether the time ran out
    during the proof; ``exact_at``: the degree of a polynomial ``f`` (``top + 1``), which
    then is the least degree."""
    late = False
    alt: Any
    try:
        pts = p.proposal.extra["alternation"]
        if fam is not None and not fam.dense:
            mono = p.proposal.poly.as_fmpq_poly() if p.proposal.poly.basis == "monomial" \
                else p.proposal.poly.to_monomial().as_fmpq_poly()
            alt = family_lower_bound(f, w, mono, list(pts), fam, (a, b), deadline=deadline)
        else:
            alt = alternation_lower_bound(f, p.proposal.poly, pts, (a, b), top,
                                          deadline=deadline, weight=w)
    except TimeLimitExceeded:
        alt, late = None, True
    except (CertificationFailed, InvalidParameterError, KeyError):
        alt = None
    proven = alt is not None and alt.lower > g
    head = (f"E_{top}(f) >= {fmpq_to_decimal(alt.lower, 6, 'down')} > gamma (proven, de la "
            "Vallee Poussin)" if proven and alt is not None else
            f"the search puts E_{top}(f) above gamma (levelled error "
            f"{p.proposal.extra.get('levelled_error')}; not proven"
            f"{': time limit reached' if late else ''})")
    if exact_at is not None:
        return (f"{head}: the least degree is {exact_at}, f itself (a polynomial of degree "
                f"{exact_at}, error 0; no minimax certificate is needed for it)"), late
    return f"no degree <= {top} reaches gamma: {head}; raise max_degree", late


def _fixed_proposal(f: Any, fixed: MonomialPoly, a: fmpq, b: fmpq,
                    w: Expr | None) -> Approximation:
    """No free power (degree -1 of the dense family: the zero polynomial): its error is
    ``sup |w (f - p_fix)| >= |w (f - p_fix)(x)|`` at the point of largest value among the
    ends and the midpoint (one alternation point)."""
    best, arg = fmpq(-1), a
    for x in (a, (a + b) / 2, b):
        try:
            _, low = error_at(f, fixed, x, w)
        except DomainError:
            continue
        if low > best:
            best, arg = low, x
    return Approximation(construction="zero" if fixed.is_zero() else "fixed", params={},
                         poly=fixed,
                         target={"kind": "expr", "expr": f.canonical, "variables": ["x"]},
                         domain={"kind": "box", "intervals": [[fmpq_str(a), fmpq_str(b)]]},
                         extra={"alternation": [fmpq_str(arg)]})
