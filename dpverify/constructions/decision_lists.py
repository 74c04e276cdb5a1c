"""Decision lists through the univariate ``h_k`` (thaler2012 Lemma 4.9, Appendix A).

A length-``L`` decision list over ``y in {0,1}^m`` ("if l_1 then b_1 else ... else if l_L
then b_L else b_{L+1}") is written as a sum of terms, exactly one of which is "on"::

    f(y) = sum_i b_i * [l_1 = 0, ..., l_{i-1} = 0, l_i = 1]  +  b_{L+1} * [all l_j = 0].

Appendix A replaces each indicator by ``h_k`` of an integer argument.  With ``g_k`` the OR
polynomial of thaler2012 Fact 4.2 built for ``gamma' = gamma/k`` (so ``g_k(0) = 0`` and
``|g_k(x) - 1| <= gamma/k`` on ``{1..k}``)::

    h_k(z) = 1 - g_k(k - z):   h_k(k) = 1 exactly,  |h_k(z)| <= gamma/k on {0..k-1},

i.e. ``h_k`` approximates ``EXACT_k = 1[z = k]`` (equivalently ``1[z >= k]``) on the
integers ``0..k`` to ``gamma/k``: target ``{"kind": "indicator", "l": k}``, domain integers
``0..k``, claim ``gamma/k`` -- the constant printed in Appendix A item 4 (checked: it is the
right one; ``k`` terms off plus one exact term give ``k * gamma/k = gamma``).

Term arguments (Appendix A's ``p_x``; ``v_j`` is the value of literal ``l_j``, i.e. ``y_v``
or ``1 - y_v``)::

    term i <= L:    arg_i = (k - i) + (1 - v_1) + ... + (1 - v_{i-1}) + v_i
    default term:   arg   = (k - L) + (1 - v_1) + ... + (1 - v_L)

**Per-term argument.** Each ``arg`` is ``(k - n)`` plus ``n`` indicator values (``n = i``
for term ``i``, ``n = L`` for the default), so it is an integer in ``[k - n, k]`` and it
equals ``k`` iff the term is on.  Exactly one term is on, so
``|p_x(y) - f(y)| <= sum over the other terms with b = 1 of max_{z in [k-n, k-1]} |h_k(z)|``
provided ``h_k(k) = 1``.  For ``L = k`` (the paper's case) the default term has offset
``k - L = 0`` as printed; for ``L < k`` the offset ``k - L`` keeps the argument in range.
:func:`dpverify.certify.decision_lists.certify_per_term` checks exactly this on the univariate
``h_k`` (exact rationals) and needs no enumeration of ``{0,1}^m``;
:func:`~dpverify.certify.decision_lists.certify_exhaustive` evaluates every ``y``.

Literals are non-zero ints, DIMACS style: ``+j`` is ``y_j``, ``-j`` is ``NOT y_j``
(``1 <= j <= m``).  Terms are single literals (as in the paper).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import product
from typing import Any

from flint import fmpq

from ..approximation import Approximation
from ..errors import InvalidParameterError, ParameterTypeError
from ..exact import MonomialPoly
from ..numbers import MAX_DEGREE, ExactLike, check_int, check_open_unit, fmpq_str
from ..progress import ProgressCallback
from .chebyshev import or_polynomial

__all__ = [
    "as_decision_list",
    "MAX_EXHAUSTIVE_M",
    "DecisionList",
    "DecisionListPolynomial",
    "Term",
    "h_polynomial",
    "decision_list_polynomial",
]

#: Largest m for exhaustive certification over {0,1}^m.
MAX_EXHAUSTIVE_M = 20


@dataclass(frozen=True)
class DecisionList:
    """``nodes``: tuple of ``(literal, bit)``; ``default``: the output bit ``b_{L+1}``;
    ``m``: number of variables.  Literal ``+j`` is ``y_j``, ``-j`` is ``NOT y_j``."""

    nodes: tuple[tuple[int, int], ...]
    default: int
    m: int

    def __post_init__(self) -> None:
        check_int(self.m, "m", minimum=1)
        _bit(self.default, "default")
        for i, node in enumerate(self.nodes):
            if not isinstance(node, tuple) or len(node) != 2:
                raise ParameterTypeError(f"nodes[{i}] must be a (literal, bit) pair, got {node!r}")
            lit, b = node
            check_int(lit, f"nodes[{i}].literal")
            if lit == 0 or abs(lit) > self.m:
                raise InvalidParameterError(
                    f"nodes[{i}].literal must be +-j with 1 <= j <= m = {self.m}, got {lit}"
                )
            _bit(b, f"nodes[{i}].bit")

    def __call__(self, y: Sequence[int]) -> int:
        """Exact value on ``y`` (a sequence of m bits, each 0 or 1)."""
        ys = _bits(y, self.m)
        for lit, b in self.nodes:
            if _lit(lit, ys) == 1:
                return b
        return self.default


def _bit(v: Any, name: str) -> int:
    if isinstance(v, bool) or v not in (0, 1):
        raise InvalidParameterError(f"{name} must be 0 or 1, got {v!r}")
    return int(v)


def _bits(y: Any, m: int) -> tuple[int, ...]:
    ys = tuple(y)
    if len(ys) != m:
        raise InvalidParameterError(f"y must have m = {m} bits, got {len(ys)}")
    return tuple(_bit(v, "y[j]") for v in ys)


def _lit(lit: int, ys: tuple[int, ...]) -> int:
    v = ys[abs(lit) - 1]
    return v if lit > 0 else 1 - v


def as_decision_list(dlist: DecisionList | Sequence[Any], m: int | None = None) -> DecisionList:
    """``dlist`` as a :class:`DecisionList` (a pair ``(nodes, default)``, ``nodes`` a
    sequence of ``(literal, bit)``, is converted; ``m`` defaults to the largest variable
    used)."""
    if isinstance(dlist, DecisionList):
        if m is not None and m != dlist.m:
            raise InvalidParameterError(f"m = {m} disagrees with the decision list's m = {dlist.m}")
        return dlist
    if not isinstance(dlist, (tuple, list)) or len(dlist) != 2:
        raise ParameterTypeError("dlist must be a DecisionList or a pair (nodes, default)")
    nodes, default = dlist
    nodes = tuple(tuple(n) if isinstance(n, list) else n for n in nodes)
    if m is None:
        m = max((abs(lit) for lit, _ in nodes), default=1)
    return DecisionList(nodes, default, m)


@dataclass(frozen=True)
class Term:
    """``bit * h_k(offset + sum_j indicator_j(y))``; each indicator is a literal value or its
    complement, given as a signed int like the literals (``+j``: ``y_j``, ``-j``: ``1-y_j``);
    ``n = len(indicators)``, so the argument lies in ``[offset, offset + n] = [k - n, k]``."""

    bit: int
    offset: int
    indicators: tuple[int, ...]

    def argument(self, ys: tuple[int, ...]) -> int:
        return self.offset + sum(_lit(s, ys) for s in self.indicators)

    def to_json(self) -> dict[str, Any]:
        return {"bit": self.bit, "offset": self.offset, "indicators": list(self.indicators)}


@dataclass(frozen=True)
class DecisionListPolynomial:
    """``p_x(y) = sum_terms bit * h(offset + sum indicators(y))`` (thaler2012 Appendix A).

    Guarantee
    ---------
    Exact (fmpq) evaluation and multilinear expansion; the accuracy is decided by
    :func:`certify_exhaustive` or :func:`certify_per_term`, never assumed.
    """

    h: MonomialPoly
    k: int
    gamma: fmpq
    m: int
    terms: tuple[Term, ...]

    def evaluate(self, y: Sequence[int]) -> fmpq:
        """Exact ``p_x(y)`` for ``y`` in ``{0,1}^m`` (a sequence of m bits)."""
        ys = _bits(y, self.m)
        return sum((self.h(t.argument(ys)) for t in self.terms if t.bit), fmpq(0))

    def multilinear(self) -> dict[frozenset[int], fmpq]:
        """Exact multilinear coefficients (``y_j^2 = y_j``): ``{S: c_S}`` with
        ``p_x(y) = sum_S c_S prod_{j in S} y_j`` on ``{0,1}^m``; Moebius inversion of each
        term over the variables it uses (refused beyond 20 variables per term)."""
        out: dict[frozenset[int], fmpq] = {}
        for t in self.terms:
            if not t.bit:
                continue
            vs = sorted({abs(s) for s in t.indicators})
            if len(vs) > MAX_EXHAUSTIVE_M:
                raise InvalidParameterError(f"a term uses {len(vs)} variables (> 20)")
            vals: dict[frozenset[int], fmpq] = {}
            for bits in product((0, 1), repeat=len(vs)):
                ys = [0] * self.m
                for v, b in zip(vs, bits):
                    ys[v - 1] = b
                s = frozenset(v for v, b in zip(vs, bits) if b)
                vals[s] = self.h(t.argument(tuple(ys)))
            for s in vals:
                c = fmpq(0)
                for sub in vals:
                    if sub <= s:
                        c += vals[sub] if (len(s) - len(sub)) % 2 == 0 else -vals[sub]
                if c != 0:
                    out[s] = out.get(s, fmpq(0)) + c
        return {s: c for s, c in out.items() if c != 0}

    def to_json(self) -> dict[str, Any]:
        return {
            "k": self.k,
            "gamma": fmpq_str(self.gamma),
            "m": self.m,
            "h": self.h.to_json(),
            "terms": [t.to_json() for t in self.terms],
        }


def h_polynomial(k: int, gamma: ExactLike, method: str = "chebyshev", *,
                 progress: ProgressCallback | None = None) -> Approximation:
    """``h_k(z) = 1 - g_k(k - z)``, ``g_k`` the OR polynomial for ``gamma/k`` (thaler2012 App. A).

    Parameters
    ----------
    k : int >= 1
    gamma : exact number in (0, 1); ``g_k`` is built for ``gamma/k``.
        Anything :func:`~dpverify.numbers.to_fmpq` accepts (``fmpq``, ``"1/10"``, ...).
    method : {"chebyshev", "minimax"}
        How ``g_k`` is built (:func:`dpverify.constructions.chebyshev.or_polynomial`).

    Returns
    -------
    Approximation
        Monomial basis in ``z`` (exact fmpq, lowest degree first); target
        ``{"kind": "indicator", "l": k}`` on the integers ``0..k``; claim
        ``{"max_error": gamma/k}``.

    Guarantee
    ---------
    Construction only; ``h_k(k) = 1`` holds exactly because ``g_k(0) = 0`` exactly, and the
    error on ``0..k-1`` equals the OR polynomial's error on ``1..k``; ``certify`` decides it.
    """
    k = check_int(k, "k", minimum=1, maximum=MAX_DEGREE)
    g = check_open_unit(gamma, "gamma")
    orp = or_polynomial(k, g / k, method=method, progress=progress)
    gk = orp.poly.to_monomial()
    h = 1 - gk.compose_affine(-1, k)
    return Approximation(
        construction="dlist/h",
        params={"k": k, "gamma": fmpq_str(g), "gamma_prime": fmpq_str(g / k), "method": method},
        poly=h,
        target={"kind": "indicator", "l": k},
        domain={"kind": "integers", "lo": 0, "hi": k},
        claims={"max_error": fmpq_str(g / k)},
        extra={"h_k": {"g_k_construction": orp.construction, "g_k_degree": gk.degree,
                       "variable": "z", "definition": "h_k(z) = 1 - g_k(k - z)"}},
    )


def decision_list_polynomial(
    dlist: DecisionList | Sequence[Any],
    k: int,
    gamma: ExactLike,
    *,
    m: int | None = None,
    method: str = "chebyshev",
) -> DecisionListPolynomial:
    """``p_x(y)`` of thaler2012 Appendix A for one decision list ``x = dlist``.

    Parameters
    ----------
    dlist : DecisionList or (nodes, default)
        ``nodes`` a sequence of ``(literal, bit)`` with ``len(nodes) <= k``.
    k, gamma : as in :func:`h_polynomial`.
    m : int, optional
        Number of variables (default: the largest variable used).

    Guarantee
    ---------
    Exact data (``h_k`` coefficients and integer term arguments); certify with
    :func:`certify_exhaustive` (small m) or :func:`certify_per_term` (any m).
    """
    dl = as_decision_list(dlist, m)
    k = check_int(k, "k", minimum=1, maximum=MAX_DEGREE)
    L = len(dl.nodes)
    if L > k:
        raise InvalidParameterError(f"the decision list has length {L} > k = {k}")
    h = h_polynomial(k, gamma, method=method)
    terms: list[Term] = []
    lits = [lit for lit, _ in dl.nodes]
    for i, (lit, b) in enumerate(dl.nodes, start=1):
        # (1 - v_j) for j < i is the complement literal -lit_j; v_i is lit_i itself
        terms.append(Term(b, k - i, tuple(-x for x in lits[: i - 1]) + (lit,)))
    terms.append(Term(dl.default, k - L, tuple(-x for x in lits)))
    return DecisionListPolynomial(h.poly, k, check_open_unit(gamma, "gamma"), dl.m, tuple(terms))
