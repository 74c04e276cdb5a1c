"""Certificates for decision-list polynomials (thaler2012 Lemma 4.9, Appendix A).

The polynomial and its terms are built by :mod:`dpverify.constructions.decision_lists`
(the per-term argument is stated in its docstring); the functions here only check them,
duck-typed: ``dlp`` has ``h`` (callable on integers), ``k``, ``gamma``, ``m`` and ``terms``
(each with ``bit``, ``offset``, ``indicators`` and ``argument(ys)``); ``dlist`` has
``nodes``, ``default``, ``m`` and is callable on a tuple of bits
(:func:`dpverify.constructions.decision_lists.as_decision_list` makes one from a pair).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from itertools import product
from typing import Any, Protocol

from flint import fmpq

from ..errors import InvalidParameterError, ParameterTypeError
from ..numbers import fmpq_str

__all__ = [
    "MAX_EXHAUSTIVE_M",
    "certify_exhaustive",
    "certify_per_term",
    "DecisionListLike",
    "DecisionListPolynomialLike",
    "TermLike",
]

#: Largest m for exhaustive certification over {0,1}^m.
MAX_EXHAUSTIVE_M = 20


# The duck types of the module docstring, as protocols (certify may not import
# dpverify.constructions, whose DecisionList / DecisionListPolynomial / Term satisfy them).
# Read-only properties, so that frozen dataclasses match.


class TermLike(Protocol):
    """A term ``bit * h(argument(ys))`` (:class:`~dpverify.constructions.decision_lists.Term`)."""

    @property
    def bit(self) -> int: ...
    @property
    def offset(self) -> int: ...
    @property
    def indicators(self) -> tuple[int, ...]: ...
    def argument(self, ys: tuple[int, ...]) -> int: ...


class DecisionListPolynomialLike(Protocol):
    """``p_x`` of thaler2012 Appendix A
    (:class:`~dpverify.constructions.decision_lists.DecisionListPolynomial`)."""

    @property
    def h(self) -> Callable[[int], fmpq]: ...  # exact h_k at an integer
    @property
    def k(self) -> int: ...
    @property
    def gamma(self) -> fmpq: ...
    @property
    def m(self) -> int: ...
    @property
    def terms(self) -> Sequence[TermLike]: ...


class DecisionListLike(Protocol):
    """A decision list (:class:`~dpverify.constructions.decision_lists.DecisionList`)."""

    @property
    def nodes(self) -> Sequence[tuple[int, int]]: ...
    @property
    def default(self) -> int: ...
    @property
    def m(self) -> int: ...
    def __call__(self, y: Sequence[int]) -> int: ...


def _decision_list(dlp: DecisionListPolynomialLike, dlist: DecisionListLike) -> DecisionListLike:
    if not all(hasattr(dlist, a) for a in ("nodes", "default", "m")) or not callable(dlist):
        raise ParameterTypeError(
            "dlist must be a DecisionList (dpverify.constructions.decision_lists."
            f"as_decision_list converts a (nodes, default) pair), got {type(dlist).__name__}")
    if dlist.m != dlp.m:
        raise InvalidParameterError(f"m = {dlp.m} disagrees with the decision list's m = {dlist.m}")
    return dlist


def certify_exhaustive(
    dlp: DecisionListPolynomialLike, dlist: DecisionListLike
) -> dict[str, Any]:
    """Exact ``max_y |p_x(y) - f(y)|`` over all of ``{0,1}^m`` (``m <= 20``).

    Guarantee
    ---------
    Exact (fmpq) maximum with a witness ``y``; ``verified`` iff it is ``<= gamma``.
    """
    dl = _decision_list(dlp, dlist)
    if dl.m > MAX_EXHAUSTIVE_M:
        raise InvalidParameterError(
            f"m = {dl.m} > {MAX_EXHAUSTIVE_M} is too large for exhaustive certification; "
            "use certify_per_term"
        )
    hv = [dlp.h(z) for z in range(dlp.k + 1)]
    best, wit = fmpq(-1), None
    for ys in product((0, 1), repeat=dl.m):
        val = sum((hv[t.argument(ys)] for t in dlp.terms if t.bit), fmpq(0))
        err = abs(val - dl(ys))
        if err > best:
            best, wit = err, ys
    return {
        "method": "exhaustive",
        "points": 2**dl.m,
        "max_error": fmpq_str(best),
        "exact": True,
        "witness": list(wit) if wit is not None else None,
        "gamma": fmpq_str(dlp.gamma),
        "verified": bool(best <= dlp.gamma),
    }


def certify_per_term(
    dlp: DecisionListPolynomialLike, dlist: DecisionListLike
) -> dict[str, Any]:
    """The per-term argument (module docstring) as an exact check on the univariate ``h_k``.

    Checks that each term of ``dlp`` is the one Appendix A prescribes for ``dlist`` (offset
    ``k - n``, ``n`` indicators that are all 1 exactly when the term is on), that
    ``h_k(k) = 1``, and bounds the error by ``sum_{terms with bit 1} max_{z in [k-n, k-1]}
    |h_k(z)|`` (exact rationals).

    Guarantee
    ---------
    ``bound`` is a rigorous (exact rational) upper bound on ``max_y |p_x(y) - f(y)|`` over
    all of ``{0,1}^m`` without enumerating it; ``verified`` iff the structure checks pass
    and ``bound <= gamma``.  Exactly one term is on for every ``y`` and contributes no
    error, so when every term (default included) has bit 1 the smallest term bound is
    subtracted.  A failed structural check gives ``verified: false`` and a
    reason, never an exception.
    """
    dl = _decision_list(dlp, dlist)
    k = dlp.k
    L = len(dl.nodes)
    lits = [lit for lit, _ in dl.nodes]
    reasons: list[str] = []
    if len(dlp.terms) != L + 1:
        reasons.append(f"expected {L + 1} terms, got {len(dlp.terms)}")
    else:
        for i, t in enumerate(dlp.terms, start=1):
            if i <= L:
                want = (dl.nodes[i - 1][1], tuple(-x for x in lits[: i - 1]) + (lits[i - 1],))
            else:
                want = (dl.default, tuple(-x for x in lits))
            n = len(want[1])
            if (t.bit, t.indicators) != want or t.offset != k - n or t.offset < 0:
                reasons.append(f"term {i} is not the Appendix A term")
    h_at_k = dlp.h(k)
    if h_at_k != 1:
        reasons.append(f"h_k(k) = {fmpq_str(h_at_k)} != 1")
    hv = [abs(dlp.h(z)) for z in range(k)]
    bound = fmpq(0)
    per_term = []
    on_bounds = []
    for t in dlp.terms:
        n = len(t.indicators)
        e = max(hv[k - n: k], default=fmpq(0))
        per_term.append(fmpq_str(e))
        if t.bit:
            bound += e
            on_bounds.append(e)
    if on_bounds and len(on_bounds) == len(dlp.terms):
        # exactly one term is on (h_k(k) = 1, no error from it); when every term has bit 1
        # that term is one of the summands, so the least of them can be dropped
        bound -= min(on_bounds)
    return {
        "method": "per_term",
        "bound": fmpq_str(bound),
        "term_bounds": per_term,
        "exact": False,
        "gamma": fmpq_str(dlp.gamma),
        "structure_ok": not reasons,
        "reasons": reasons,
        "verified": bool(not reasons and bound <= dlp.gamma),
    }
