"""Rigorous enclosure of ``sup |f - p|`` over an interval or a box (d <= 3).

Method (branch and bound, in arb ball arithmetic)
-------------------------------------------------
The box is cut into pieces kept in a priority queue ordered by their upper bound.
On a piece with centre ``m`` (exact rational) and radii ``r``:

* **d = 1, Taylor models bounded through their critical points**
  (:mod:`.taylor_model`; the method of Sollya's ``supnorm``, Chevillard, Harrison,
  Joldes, Lauter, TCS 412 (2011)).  ``f - p = Q + delta`` on the piece, with ``Q`` an
  exact rational polynomial (midpoints of the Taylor coefficients of ``f`` at ``m``
  minus the exact shift of ``p``) and ``|delta| <= Delta`` (the midpoints' rounding and
  the Lagrange remainder of ``f`` alone over the piece).  The order ``N`` is the least
  whose remainder is below the tolerance (no fixed cap: up to 1024), the precision is
  set from the requested accuracy, and ``sup |Q|`` comes from the certified real roots of
  ``Q'`` (FLINT root isolation) and the ends; one piece often suffices.  The search
  starts from the whole interval and bisects only where a model does not reach the
  tolerance (singularities nearby) or ``f`` has no Taylor series.  The piece-wise
  *evidence* for the independent checker (``SupNorm.pieces``) is built on first access
  by the Taylor-form branch and bound below, aimed at ``upper``.
* **d >= 2, and the evidence in one variable: Taylor forms / Taylor models** of a
  fixed order per piece (:mod:`.piece_bounds`: the Taylor coefficients of ``f`` at the
  centre, a Lagrange remainder over the piece and the exact Taylor shift of ``p``; in one
  variable a triangle bound, in two and three the polynomial part enclosed through its
  Bernstein coefficients, :mod:`.model_range`; plain interval evaluation of ``f`` where
  it is not analytic).  The search starts from a power of two pieces per axis and
  bisects the piece with the largest bound along its widest axis.

``lower`` is the largest ``|f - p|`` certified at actual points (piece centres,
critical points of the models in one variable, the corners of the initial box and, in
two and three variables, points proposed by a float search, :mod:`.box_search`, whose
value is certified here); ``upper`` is the largest piece bound plus, when the search
met its tolerance, half of the room left to the stopping test (in one variable when a
piece was bounded through its critical points, so that the checker's triangle bounds
can re-prove it; in two and three variables so that the checker's own roundings do not
make it bisect the piece attaining ``upper``).  In the Taylor-form search precision starts
at 64 bits and is doubled per piece (up to ``max_prec``) until ``f - p`` at the centre
is known to a small fraction of the requested tolerance.  ``stats`` reports
``max_prec`` and ``orders`` used.

Precondition: ``f`` is defined on the whole box.  It is checked at every point
that is evaluated (box corners and piece centres raise ``DomainError`` when f
is undefined there); on whole pieces, ``sqrt`` and fractional powers are
evaluated on the part of the ball where they are defined, because
python-flint rounds ball radii up and a ball built for ``[0, r]`` reaches
slightly below 0.

Size: about 780 lines, one concept: the box sup-norm search (``SupNorm``, ``Piece``,
:func:`supnorm`, its stopping rule and its two branch and bound loops, which share them).
The bounds of one piece are in :mod:`.piece_bounds` and :mod:`.model_range`, the
one-variable Taylor models in :mod:`.taylor_model`, the float witness search in
:mod:`.box_search` and the exact tensor Taylor shift in :mod:`dpverify.exact.tensor_shift`.

Guarantee
---------
``lower <= sup |f - p| <= upper`` always holds (``f`` as defined by
:mod:`dpverify.expr`, the supremum over the closed box).  The run stops when
``upper <= lower * (1 + rtol)``, when ``upper - lower <= atol``, when a given
``claim`` is proven (``upper <= claim``) or refuted (``lower > claim``), or when
``max_pieces`` is reached (``converged`` is then False; the enclosure is still
valid, only wider).  It never returns a bound it has not proven.
"""

from __future__ import annotations

import heapq
import html
import itertools
import math
import time
from dataclasses import dataclass, field
from typing import Any

from flint import arb, ctx, fmpq

from ..budget import after, check_timeout, limits
from ..errors import DomainError, InvalidParameterError, PrecisionExhausted, TimeLimitExceeded
from ..expr import Expr, NotAnalytic, parse
from ..expr.constant import Box as Requested
from ..expr.constant import read_box
from ..numbers import arb_to_fmpq_bounds, check_int, fmpq_str, fmpq_to_decimal, to_fmpq
from ..progress import ProgressCallback, report
from .piece_bounds import (
    Box,
    PieceProblem,
    f_at_point,
    lower_abs,
    taylor_form_piece_1d,
    taylor_model_piece_nd,
)
from .taylor_model import tm_piece

__all__ = ["SupNorm", "supnorm", "as_box", "PIECES", "EVIDENCE"]

#: progress stages (:mod:`dpverify.progress`): the search's pieces so far, and the pieces
#: of the checker's evidence (one variable: built after the search); counts only
PIECES, EVIDENCE = "sup |f - p|: pieces", "sup |f - p|: evidence pieces"
#: seconds between two progress reports of a branch and bound (the callback throttles too)
_REPORT_EVERY = 0.2
#: a piece of the one-variable search: (a, b, upper bound, order, precision)
OwnPiece = tuple[fmpq, fmpq, fmpq, int, int]

#: order limit of the one-variable Taylor models (the series cost ~ N log N per operation;
#: far above any useful order for the functions of dpverify.expr on a bisected piece)
_TM_MAX_ORDER = 1024
#: an unbounded piece narrower than 2^-_UNBOUNDED_DEPTH of the box ends the search
_UNBOUNDED_DEPTH = 80


@dataclass
class Piece:
    """A sub-box with its certified bound (``upper``) and how it was obtained."""

    box: tuple[tuple[fmpq, fmpq], ...]
    upper: fmpq
    order: int
    prec: int

    def to_json(self) -> list[Any]:
        return [[[fmpq_str(a), fmpq_str(b)] for a, b in self.box], self.order, self.prec]


@dataclass(repr=False)
class SupNorm:
    """Enclosure ``[lower, upper]`` of ``sup |f - p|`` over a box (exact rationals).

    ``pieces`` is the piece-wise evidence that the independent checker
    (:mod:`dpverify.verify`) re-checks: sub-boxes with a Taylor order and a precision at
    which the Taylor-form bound of each is ``<= upper``.  For one variable the enclosure
    comes from Taylor models bounded through their critical points (fewer, larger pieces
    than the checker's triangle bound accepts), so the evidence is built on first access
    by the Taylor-form branch and bound, aimed at ``upper``; it raises
    :class:`~dpverify.errors.PrecisionExhausted` if that cannot be completed.
    """

    lower: fmpq
    upper: fmpq
    witness: tuple[fmpq, ...]
    converged: bool
    status: str
    stats: dict[str, Any] = field(default_factory=dict)
    evidence: Any = None  # list[Piece], or a callable building it on first use
    degree: int | None = None
    domain: tuple[tuple[fmpq, fmpq], ...] | None = None
    #: the box as requested, when its ends were constant expressions (``pi/2``): then
    #: ``domain`` is its outward rounding and ``witness`` lies inside the requested box
    requested: list[list[str]] | None = None
    #: the ``claim`` the search was asked to decide (``sup <= claim``), or None
    claim: fmpq | None = None

    @property
    def claim_status(self) -> str | None:
        """``"proven"`` (``upper <= claim``), ``"refuted"`` (``lower > claim``),
        ``"undecided"``, or None without a claim."""
        if self.claim is None:
            return None
        if self.upper <= self.claim:
            return "proven"
        return "refuted" if self.lower > self.claim else "undecided"

    @property
    def pieces(self) -> list[Piece]:
        if callable(self.evidence):
            self.evidence = self.evidence()
        return list(self.evidence or [])

    @property
    def relative_width(self) -> float:
        if self.lower == 0:
            return float("inf") if self.upper > 0 else 0.0
        return float((self.upper - self.lower) / self.lower)

    def _summary(self) -> tuple[str, str, str]:
        lo = fmpq_to_decimal(self.lower, 6, "down")
        up = fmpq_to_decimal(self.upper, 6, "up")
        if self.requested is not None:  # as asked: [0, pi/2], not its rounding
            return lo, up, " x ".join(f"[{a}, {b}]" for a, b in self.requested)
        dom = " x ".join(
            f"[{fmpq_to_decimal(a, 6)}, {fmpq_to_decimal(b, 6)}]" for a, b in self.domain or ())
        return lo, up, dom

    def __repr__(self) -> str:
        lo, up, dom = self._summary()
        claim = "" if self.claim is None else \
            f", claim {fmpq_str(self.claim)} {self.claim_status}"
        return (f"SupNorm(degree={self.degree}, sup in [{lo}, {up}], domain={dom or '?'}, "
                f"converged={self.converged}{claim})")

    def _repr_html_(self) -> str:
        lo, up, dom = self._summary()
        rows = [("degree", self.degree), ("sup |f - p| in", f"[{lo}, {up}]"),
                ("domain", dom or "?"), ("converged", f"{self.converged} ({self.status})"),
                ("seconds", self.stats.get("seconds"))]
        if self.claim is not None:
            rows.insert(2, (f"claim sup <= {fmpq_str(self.claim)}", self.claim_status))
        body = "".join(f"<tr><th style='text-align:left'>{html.escape(str(k))}</th>"
                       f"<td>{html.escape(str(v))}</td></tr>" for k, v in rows)
        return f"<table><caption>SupNorm</caption>{body}</table>"


def as_box(box: Any, d: int | None = None) -> tuple[tuple[fmpq, fmpq], ...]:
    """Validate a box: ``(a, b)`` or a sequence of them with exact ``a < b``."""
    return _read(box, d).stated


def _read(box: Any, d: int | None = None) -> Requested:
    """The box (:func:`dpverify.expr.constant.read_box`: exact ends, or constant
    expressions such as ``pi/2``, rounded outward) with the dimension checks."""
    if isinstance(box, dict):
        box = box.get("intervals")
    if not isinstance(box, (list, tuple)) or not box:
        raise InvalidParameterError(
            f"box must be a non-empty list of (a, b) intervals, got {box!r}"[:300]
        )
    out = read_box(box, "interval" if len(box) == 2 and not isinstance(
        box[0], (list, tuple, dict)) else "box")
    if d is not None and len(out.ends) != d:
        raise InvalidParameterError(
            f"box has {len(out.ends)} intervals but the function has {d} variables"
        )
    if len(out.ends) > 3:
        raise InvalidParameterError(f"boxes of dimension <= 3 are supported, got {len(out.ends)}")
    return out


def _inner_box(stated: Requested, requested: Any) -> tuple[tuple[fmpq, fmpq], ...] | None:
    """Where the witnesses of ``lower`` must lie: inside the requested box (constant
    expressions, :mod:`dpverify.expr.constant`) when the ends were rounded outward;
    None when every end is exact.  ``requested`` (the statement's ``domain.requested``)
    must lie inside the exact box ``stated``."""
    if requested is None:
        return None if stated.exact else stated.inner
    if not stated.exact:
        raise InvalidParameterError("requested is given with a box whose ends are not exact")
    asked = _read(requested, len(stated.ends))
    for (a, b), ((lo, hi), (alo, ahi)) in zip(asked.ends, zip(stated.stated, asked.stated,
                                                               strict=True), strict=True):
        if not (lo <= alo and ahi <= hi):
            raise InvalidParameterError(
                f"requested: [{a}, {b}] is not inside the box [{fmpq_str(lo)}, "
                f"{fmpq_str(hi)}] (the box must contain the requested interval)")
    return asked.inner


def _stop_rule(U: fmpq | None, L: fmpq, rtol: fmpq, atol: fmpq,
               max_prec: int) -> tuple[str, bool] | None:
    """``(status, converged)`` when the enclosure ``[L, U]`` is tight enough to stop, else
    ``None`` (the one stopping rule of both branch-and-bound loops)."""
    if U is None:
        return None
    if U <= L * (1 + rtol) or U - L <= atol:
        if U == 0 and L == 0:
            return "zero", True
        return ("rtol" if U <= L * (1 + rtol) else "atol"), True
    if L == 0 and U <= fmpq(1, 2 ** (max_prec // 2)):
        # f - p vanishes to within the precision cap: a valid [0, tiny] enclosure
        return "zero within precision", False
    return None


def supnorm(
    f: Any,
    poly: Any,
    box: Any,
    *,
    rtol: Any = "1e-6",
    atol: Any = 0,
    claim: Any = None,
    max_pieces: int = 200_000,
    max_prec: int = 1 << 14,
    initial_pieces: int = 8,
    timeout: Any = None,
    progress: ProgressCallback | None = None,
    requested: Any = None,
) -> SupNorm:
    """Certified enclosure of ``sup_{x in box} |f(x) - p(x)|``.

    Parameters
    ----------
    f : str or Expr
        The function (``dpverify.expr`` syntax); its variables are matched to the
        box axes in order (``x``; ``x, y``; ``x, y, z``).
    poly : ExactPoly or TensorPoly
        Exact polynomial in any basis of ``dpverify.exact``.
    box : (a, b) or sequence of (a, b)
        One interval per variable.  Ends are exact numbers, or constant expressions
        (``"pi/2"``, ``"sqrt(2)"``): the box is then rounded outward to exact rationals
        (:mod:`dpverify.expr.constant`; ``domain`` of the result), ``upper`` bounds the
        supremum over the rounded box, hence over the requested one, and ``witness``
        (so ``lower``) lies inside the requested box: the enclosure holds for both.
    rtol, atol : exact numbers
        Stop when ``upper <= lower (1 + rtol)`` or ``upper - lower <= atol``.
    claim : exact number, optional
        Stop as soon as ``sup <= claim`` is proven or refuted.
    max_pieces, max_prec : int
        Work limits.  Hitting ``max_pieces`` returns ``converged=False`` with a
        valid but wider enclosure.
    timeout : number of seconds, optional
        Wall-clock limit, checked between pieces (and between precision steps of one
        piece): past it the search stops with ``status="timeout"`` and
        ``converged=False``; the enclosure is still valid.  ``None``: no limit.
    progress : callable, optional
        ``progress(stage, done, None)`` (:mod:`dpverify.progress`): the number of pieces,
        at the start, about every 0.2 s and at the end; stage :data:`PIECES`, and
        :data:`EVIDENCE` while the one-variable evidence is built (on first access of
        ``pieces``).  Counts only, never values.

    Returns
    -------
    SupNorm
        ``lower``, ``upper`` (exact rationals), ``witness`` (a point where
        ``|f - p| >= lower``), the pieces with their orders and precisions (the
        certificate's proof data; in one variable built on first access of
        ``pieces``), ``stats`` (``max_prec``, ``orders``, ``evaluations``), ``status``
        in {"rtol", "atol", "claim proven", "claim refuted", "max_pieces", "timeout",
        "zero"}.

    Guarantee
    ---------
    See the module docstring: the enclosure is rigorous whatever the status.
    """
    rtol_q = to_fmpq(rtol, "rtol")
    atol_q = to_fmpq(atol, "atol")
    if rtol_q < 0:
        raise InvalidParameterError(f"rtol must be >= 0, got {rtol}")
    if atol_q < 0:
        raise InvalidParameterError(f"atol must be >= 0, got {atol}")
    claim_q = to_fmpq(claim, "claim") if claim is not None else None
    if rtol_q == 0 and atol_q == 0 and claim_q is None:
        # refused before any work: the search would refine until max_prec and then raise
        raise InvalidParameterError(
            "rtol and atol are both 0 and no claim is given: nothing would stop the "
            "search; give rtol > 0 (e.g. 1e-6), atol > 0 or a claim")
    check_int(max_pieces, "max_pieces", 1, 10_000_000)
    check_int(max_prec, "max_prec", 64, 1 << 20)
    check_int(initial_pieces, "initial_pieces", 1, 4096)
    seconds = check_timeout(timeout)
    deadline = None if seconds is None else time.monotonic() + seconds
    if isinstance(f, str):
        f = parse(f, name="f")
    if not isinstance(f, Expr):
        raise InvalidParameterError(
            f"f must be an expression string or Expr, got {type(f).__name__}"
        )
    d = len(f.variables) if f.variables else 1
    ends = _read(box)
    inner = _inner_box(ends, requested)
    B = ends.stated
    if len(B) != d:
        names = ("x", "y", "z")[:len(B)]
        if f.variables and len(f.variables) < len(B) and set(f.variables) <= set(names):
            # f ignores some variables: still a function on the box, of x, y, z in order
            f = parse(f.canonical, variables=names, name="f")
            d = len(B)
        else:
            raise InvalidParameterError(
                f"the box has {len(B)} intervals but f has variables {f.variables}"
            )
    pdim = (
        1
        if getattr(poly, "basis", None) in ("monomial", "chebyshev", "bernstein", "cosine")
        and not hasattr(poly, "shape")
        else len(getattr(poly, "shape", (0,)))
    )
    if pdim != d:
        raise InvalidParameterError(f"polynomial has {pdim} variables but the box has {d}")
    if getattr(poly, "basis", None) == "cosine":
        raise InvalidParameterError("convert a cosine series with to_chebyshev() before certifying")
    ends.check_defined(f)
    # the deadline also bounds single FLINT calls (the Taylor shifts are refused when
    # their estimated cost passes it) and the steps that report progress
    # (dpverify.budget); a little later than the search's own, which ends the search
    # with a valid, wider enclosure instead
    with limits(timeout=after(seconds), shown=seconds):
        res = _dispatch(f, poly, B, d, rtol_q, atol_q, claim_q, max_pieces, max_prec,
                        initial_pieces, deadline, seconds, progress, inner)
    if requested is not None or not ends.exact:
        res.requested = requested if requested is not None else ends.requested
    res.claim = claim_q
    return res


def _loop_end(U: fmpq | None, L: fmpq, claim_q: fmpq | None, rtol_q: fmpq, atol_q: fmpq,
              max_prec: int, pieces: int, max_pieces: int, late: bool, *,
              rule: bool = True) -> tuple[str, bool] | None:
    """The end test both branch-and-bound loops run before each bisection, in order:
    a claim proven or refuted, the stopping rule (``rule``), the piece limit, the time
    limit.  ``(status, converged)``, or ``None`` to go on."""
    if claim_q is not None and U is not None and U <= claim_q:
        return "claim proven", True
    if claim_q is not None and L > claim_q:
        return "claim refuted", True
    stop = _stop_rule(U, L, rtol_q, atol_q, max_prec) if rule else None
    if stop is not None:
        return stop
    if pieces >= max_pieces:
        return "max_pieces", False
    if late:
        return "timeout", False
    return None


def _split_axes(f: Expr, poly: Any, d: int) -> list[int]:
    """The axes along which ``f - p`` may vary: those of a variable that occurs in ``f`` or
    along which ``p`` has positive degree (every axis when ``p``'s degrees are unknown)."""
    degrees = getattr(poly, "degrees", None)
    if d == 1 or not isinstance(degrees, tuple) or len(degrees) != d:
        return list(range(d))
    axes = [i for i in range(d) if f.variables[i] in f.used_variables or degrees[i] > 0]
    return axes or list(range(d))


def _classic(f: Expr, poly: Any, B: Box, d: int, rtol_q: fmpq, atol_q: fmpq, claim_q: fmpq | None,
             max_pieces: int, max_prec: int, initial_pieces: int, deadline: float | None,
             timeout: Any, progress: Any, evidence_for: fmpq | None = None,
             start: list[Box] | None = None,
             inner: tuple[tuple[fmpq, fmpq], ...] | None = None) -> SupNorm:
    """Branch and bound with Taylor-form piece bounds (the module docstring).  With
    ``evidence_for`` set it only proves ``sup <= evidence_for`` piece by piece (the form
    the independent checker re-checks), starting from the boxes ``start``, and raises
    when it cannot.  With ``inner`` only points inside it count towards ``lower``."""
    def inside(c: tuple[fmpq, ...]) -> bool:
        return inner is None or all(lo <= x <= hi for x, (lo, hi) in zip(c, inner,
                                                                          strict=True))

    if evidence_for is not None:
        claim_q = evidence_for

    def late() -> bool:
        return deadline is not None and time.monotonic() > deadline

    prob = PieceProblem(f, poly, d)
    t0 = time.time()

    # Tolerance for the centre value: a fraction of what the stopping test needs.
    def enough(q0: arb, L: fmpq) -> bool:
        lo, hi = arb_to_fmpq_bounds(q0)
        rad = (hi - lo) / 2
        if rad == 0:
            return True
        target = max(rtol_q * L / 16, atol_q / 16)
        if evidence_for is not None:
            target = max(target, (evidence_for - L) / 16)
        mag = max(abs(lo), abs(hi))
        if lo > 0 or hi < 0:
            target = max(target, rtol_q * mag / 16)
        return rad <= target

    L = fmpq(0)
    witness: tuple[fmpq, ...] = tuple(a for a, _ in (inner or B))
    nevals = 0

    split_axes = _split_axes(f, poly, d)

    def evaluate(pbox: Box, prec: int) -> tuple[fmpq | None, fmpq, int, int]:
        nonlocal nevals
        while True:
            nevals += 1
            if d == 1:
                up, lo, order, q0 = taylor_form_piece_1d(prob, pbox[0][0], pbox[0][1], prec)
            else:
                up, lo, order, q0 = taylor_model_piece_nd(prob, pbox, prec)
            if enough(q0, L) or prec >= max_prec or late():
                return up, lo, order, prec
            prec = min(2 * prec, max_prec)

    def point_error(c: tuple[fmpq, ...]) -> arb:
        """A ball of ``f(c) - p(c)``, precision raised until :func:`enough`."""
        prec = 64
        while True:
            with ctx.workprec(prec):
                q = f_at_point(f, c) - arb(prob.p_exact(c))
            if enough(q, L) or prec >= max_prec or late():
                return q
            prec *= 2

    # corners of the whole box (of the requested one, when rounded) are candidate maximisers
    for corner in itertools.product(*(inner or B)):
        c = tuple(corner)
        q = point_error(c)
        if not q.is_finite():
            raise f.explain_not_finite(*c)
        lq = lower_abs(q)
        if lq > L:
            L, witness = lq, c

    # points proposed by a float search (box_search), kept only through their value
    # certified here: they bring ``lower`` close to the supremum from the start
    search = None
    if d >= 2 and evidence_for is None:
        # deferred: the float search loads numpy (about 60 ms), which one variable never needs
        from .box_search import WitnessSearch

        search = WitnessSearch(f, poly, B, 2 * prob.deg + 3)

    def try_points(points: list[tuple[fmpq, ...]]) -> None:
        nonlocal L, witness
        for c in points:
            try:
                q = point_error(c)
            except DomainError:
                continue
            lq = lower_abs(q) if q.is_finite() else fmpq(0)
            if lq > L and inside(c):
                L, witness = lq, c

    if search is not None:
        try_points(search.start())

    # initial split along every axis
    per_axis = max(1, round(initial_pieces ** (1.0 / d)))
    if d >= 2:
        # a power of two: every piece centre then has the denominator of the half-width
        # (no centre at 0 of a symmetric box), which keeps the exact tail sums of the piece
        # bounds to plain integer sums (tensor_shift.abs_tail_sum)
        per_axis = 1 << max(0, round(math.log2(per_axis)))
    cuts = []
    for a, b in B:
        cuts.append(
            [
                (a + (b - a) * fmpq(i, per_axis), a + (b - a) * fmpq(i + 1, per_axis))
                for i in range(per_axis)
            ]
        )
    heap: list[tuple[fmpq, int, Any]] = []
    done: list[Piece] = []
    counter = 0

    def push(pbox: Box, prec: int) -> None:
        nonlocal L, witness, counter
        up, lo, order, prec = evaluate(pbox, prec)
        if up is None:
            # an unbounded piece: f may be undefined at one of its ends (1/x at 0 is
            # reached only as an endpoint of the bisection); say so instead of bisecting
            # down to the precision limit
            for corner in itertools.product(*pbox):
                with ctx.workprec(prec):
                    v = f_at_point(f, tuple(corner))
                    if not v.is_finite():
                        raise f.explain_not_finite(*corner)
        centre = tuple((a + b) / 2 for a, b in pbox)
        if lo > L and inside(centre):
            L = lo
            witness = centre
            if search is not None and not late():
                try_points(search.near(witness))
        counter += 1
        ub = up if up is not None else None
        key = -(ub if ub is not None else fmpq(10) ** 100000)
        heapq.heappush(heap, (key, counter, (pbox, ub, order, prec)))

    for pbox in start if start is not None else itertools.product(*cuts):
        push(tuple(pbox), 64)

    status = "max_pieces"
    converged = False
    stage = PIECES if evidence_for is None else EVIDENCE
    report(progress, stage, len(heap), None)
    last_report = time.monotonic()
    while heap:
        key, _, (pbox, ub, order, prec) = heap[0]
        U = ub
        end = _loop_end(U, L, claim_q, rtol_q, atol_q, max_prec, len(heap) + len(done),
                        max_pieces, late(), rule=evidence_for is None)
        if end is not None:
            status, converged = end
            break
        heapq.heappop(heap)
        # split along the widest axis on which f - p is not constant (bisecting along an
        # axis that neither f nor p depends on cannot tighten any bound: erf(x) in three
        # variables once stalled at 8x the pieces per level)
        widths = [b - a for a, b in pbox]
        ax = max(split_axes, key=lambda i: widths[i])
        a, b = pbox[ax]
        mid = (a + b) / 2
        if ub is None and widths[ax] < (B[ax][1] - B[ax][0]) / 2**_UNBOUNDED_DEPTH:
            # no finite bound even on a piece 2^-80 of the box wide: f has a pole or leaves
            # its domain in there (1/(x - 1/3)); bisecting down to 2^-8192 takes minutes
            raise PrecisionExhausted(
                "f has no finite bound near "
                + ", ".join(fmpq_to_decimal((x + y) / 2, 12) for x, y in pbox)
                + " (a pole or a point outside its domain?)")
        if widths[ax] < fmpq(1, 2 ** (max_prec // 2)):
            raise PrecisionExhausted(
                "cannot bound |f - p| near "
                + ", ".join(fmpq_to_decimal((x + y) / 2, 12) for x, y in pbox)
                + ": piece width below the precision limit"
            )
        for half in ((a, mid), (mid, b)):
            nb = list(pbox)
            nb[ax] = half
            push(tuple(nb), prec)
        # pieces that can no longer matter are retired (their bound stays in the proof)
        if heap and len(heap) > 64:
            keep = []
            for item in heap:
                ubi = item[2][1]
                if ubi is not None and ubi <= L:
                    pb, u_, o_, p_ = item[2]
                    done.append(Piece(pb, u_, o_, p_))
                else:
                    keep.append(item)
            if len(keep) != len(heap):
                heap = keep
                heapq.heapify(heap)
        if progress is not None and time.monotonic() - last_report > _REPORT_EVERY:
            last_report = time.monotonic()
            progress(stage, len(heap) + len(done), None)

    report(progress, stage, len(heap) + len(done), None)
    pieces = done + [Piece(it[2][0], it[2][1], it[2][2], it[2][3]) for it in heap]
    if evidence_for is not None and status != "claim proven":
        if status == "timeout":
            raise TimeLimitExceeded(
                f"time limit of {timeout:.3g} s reached while building the piece-wise evidence")
        raise PrecisionExhausted(
            f"the piece-wise evidence for the bound {fmpq_to_decimal(evidence_for, 12, 'up')} "
            f"could not be completed (status {status})")
    if any(p.upper is None for p in pieces):
        upper = None
    else:
        upper = max([p.upper for p in pieces] + [L])
    if upper is None:
        if status == "timeout":
            raise TimeLimitExceeded(
                f"time limit of {timeout:.3g} s reached before every piece had a finite bound")
        raise PrecisionExhausted("some pieces could not be bounded (f not finite there)")
    if d >= 2 and evidence_for is None:
        # the checker re-proves every piece with its own series and roundings: give it half
        # of the room left to the stopping test (still a proven upper bound, still within
        # the tolerance) so that the piece attaining ``upper`` is not bisected again
        upper = max(upper, upper + _room(status, upper, L, rtol_q, atol_q, claim_q) / 2)
    return SupNorm(
        lower=L,
        upper=upper,
        witness=witness,
        converged=converged,
        status=status,
        evidence=pieces,
        degree=prob.deg,
        domain=tuple(B),
        stats={
            "pieces": len(pieces),
            "evaluations": nevals,
            "seconds": round(time.time() - t0, 3),
            "order": prob.order,
            "max_prec": max((p.prec for p in pieces), default=64),
            "orders": sorted({p.order for p in pieces}),
            "method": "taylor-form branch-and-bound",
        },
    )


def _room(status: str, upper: fmpq, L: fmpq, rtol_q: fmpq, atol_q: fmpq,
          claim_q: fmpq | None) -> fmpq:
    """How far ``upper`` may grow and still meet the test that stopped the search
    (0 when it stopped for another reason)."""
    if status == "rtol":
        room = L * (1 + rtol_q) - upper
    elif status == "atol":
        room = L + atol_q - upper
    elif status == "claim proven" and claim_q is not None:
        room = claim_q - upper
    else:
        return fmpq(0)
    return max(room, fmpq(0))


def _dispatch(f: Expr, poly: Any, B: Box, d: int, rtol_q: fmpq, atol_q: fmpq,
              claim_q: fmpq | None, max_pieces: int, max_prec: int, initial_pieces: int,
              deadline: float | None, timeout: Any,
              progress: ProgressCallback | None,
              inner: tuple[tuple[fmpq, fmpq], ...] | None = None) -> SupNorm:
    if d != 1:
        return _classic(f, poly, B, d, rtol_q, atol_q, claim_q, max_pieces, max_prec,
                        initial_pieces, deadline, timeout, progress, inner=inner)
    res, own = _taylor_models_1d(f, poly, B, rtol_q, atol_q, claim_q, max_pieces, max_prec,
                                 deadline, timeout, progress, inner)

    def evidence() -> list[Piece]:
        if not res.converged:
            # a wide enclosure (time or piece limit): the search's own pieces, whose
            # bounds are far from the stopping test, at orders the checker reads
            return [Piece(((a, b),), up, min(order, 64), prec) for a, b, up, order, prec in own]
        ev = _classic(f, poly, B, d, rtol_q, atol_q, None, max_pieces, max_prec,
                      initial_pieces, deadline, timeout, progress, evidence_for=res.upper,
                      start=[((a, b),) for a, b, *_ in sorted(own, key=lambda t: t[0])])
        return ev.pieces

    res.evidence = evidence
    return res


def _taylor_models_1d(f: Expr, poly: Any, B: Box, rtol_q: fmpq, atol_q: fmpq,
                      claim_q: fmpq | None, max_pieces: int, max_prec: int,
                      deadline: float | None, timeout: Any,
                      progress: ProgressCallback | None,
                      inner: tuple[tuple[fmpq, fmpq], ...] | None = None,
                      ) -> tuple[SupNorm, list[OwnPiece]]:
    """Branch and bound over Taylor models bounded through their critical points
    (:mod:`.taylor_model`); one piece for an entire ``f`` of moderate degree.  With
    ``inner`` (the requested interval's rational inside, :func:`_inner_box`) only
    points inside it count towards ``lower``."""
    def late() -> bool:
        return deadline is not None and time.monotonic() > deadline

    prob = PieceProblem(f, poly, 1)
    (A, Bq), = B
    t0 = time.time()
    L = fmpq(0)
    (lo_in, hi_in), = inner if inner is not None else B
    witness: tuple[fmpq, ...] = (lo_in,)
    nevals = 0
    max_used = 64
    orders: set[int] = set()
    # the ends (of the requested interval, when rounded) are candidate maximisers; their
    # values also set the first tolerance
    for c in (lo_in, hi_in):
        prec = 64
        while True:
            with ctx.workprec(prec):
                q = f_at_point(f, (c,)) - arb(prob.p_exact((c,)))
            if not q.is_finite():
                raise f.explain_not_finite(c)
            lo_, hi_ = arb_to_fmpq_bounds(q)
            mag = max(abs(lo_), abs(hi_))
            if (hi_ - lo_) <= max(rtol_q, fmpq(1, 2**64)) * mag / 16 or prec >= max_prec:
                break
            prec = min(2 * prec, max_prec)
        lq = lower_abs(q)
        if lq > L:
            L, witness = lq, (c,)
    # the polynomial part of a model has degree max(N - 1, deg p): a bound for one model
    # is a fraction of Sollya-type tolerances, so start from one piece

    def tol() -> fmpq:
        out: fmpq = max(rtol_q * L / 8, atol_q / 8)
        return out

    def bound(a: fmpq, b: fmpq) -> tuple[fmpq | None, fmpq, tuple[fmpq, ...], int, int, bool]:
        nonlocal nevals, max_used
        nevals += 1
        tau = tol()
        if tau == 0:
            # no scale yet (f - p vanishes at the ends): take it from the centre
            m = (a + b) / 2
            with ctx.workprec(128):
                q = f_at_point(f, (m,)) - arb(prob.p_exact((m,)))
            if not q.is_finite():
                raise f.explain_not_finite(m)
            tau = max(rtol_q, fmpq(1, 2**64)) * lower_abs(q) / 8
        try:
            pb = tm_piece(f, prob.P, prob.deg, a, b, tau, max_order=_TM_MAX_ORDER,
                          max_prec=max_prec, cheap_ok=L * (1 + rtol_q))
        except (NotAnalytic, DomainError):
            p0 = min(max_prec, 96 + max(0, -_log2_floor(rtol_q)))
            up, lo, order, _ = taylor_form_piece_1d(prob, a, b, p0)
            return up, lo, ((a + b) / 2,), order, p0, False
        max_used = max(max_used, pb.prec)
        orders.add(pb.order)
        return pb.upper, pb.lower, (pb.witness,), pb.order, pb.prec, True

    heap: list[tuple[fmpq, int, tuple[Any, ...]]] = []
    done: list[Any] = []
    counter = 0

    def push(a: fmpq, b: fmpq) -> None:
        nonlocal L, witness, counter
        up, lo, wit, order, prec, roots = bound(a, b)
        if lo > L and lo_in <= wit[0] <= hi_in:
            L, witness = lo, wit
        counter += 1
        key = -(up if up is not None else fmpq(10) ** 100000)
        heapq.heappush(heap, (key, counter, (a, b, up, order, prec, roots)))

    push(A, Bq)
    status, converged = "max_pieces", False
    report(progress, PIECES, len(heap), None)
    last_report = time.monotonic()
    while heap:
        _, _, (a, b, U, order, prec, _roots) = heap[0]
        end = _loop_end(U, L, claim_q, rtol_q, atol_q, max_prec, len(heap) + len(done),
                        max_pieces, late())
        if end is not None:
            status, converged = end
            break
        heapq.heappop(heap)
        w = b - a
        if U is None and w < (Bq - A) / 2**_UNBOUNDED_DEPTH:
            raise PrecisionExhausted(
                f"f has no finite bound near {fmpq_to_decimal((a + b) / 2, 12)} "
                "(a pole or a point outside its domain?)")
        if w < fmpq(1, 2 ** (max_prec // 2)):
            raise PrecisionExhausted(
                f"cannot bound |f - p| near {fmpq_to_decimal((a + b) / 2, 12)}: "
                "piece width below the precision limit")
        mid = (a + b) / 2
        push(a, mid)
        push(mid, b)
        if progress is not None and time.monotonic() - last_report > _REPORT_EVERY:
            last_report = time.monotonic()
            progress(PIECES, len(heap) + len(done), None)
    report(progress, PIECES, len(heap) + len(done), None)
    ups = [it[2][2] for it in heap]
    if any(u is None for u in ups):
        if status == "timeout":
            raise TimeLimitExceeded(
                f"time limit of {timeout:.3g} s reached before every piece had a finite bound")
        raise PrecisionExhausted("some pieces could not be bounded (f not finite there)")
    upper = max(ups + [L])
    own = [(it[2][0], it[2][1], it[2][2], it[2][3], it[2][4]) for it in heap]
    # The checker re-proves ``upper`` piece by piece with Taylor-form (triangle) bounds,
    # which cannot reach a bound that is attained exactly, nor one a hair above the sup;
    # so ``upper`` is at least the largest Taylor-model bound plus half of the room left
    # to the stopping test (still within the requested tolerance, and still an upper
    # bound: it only adds to a proven one).  Order-0 bounds are the checker's own and
    # stay as they are.
    room = None
    if status == "rtol":
        room = L * (1 + rtol_q) - upper
    elif status == "atol":
        room = L + atol_q - upper
    elif status == "claim proven":
        room = claim_q - upper
    tm_ups = [it[2][2] for it in heap if it[2][5]]
    if room is not None and room > 0 and tm_ups:
        upper = max(upper, max(tm_ups) + room / 2)
    return SupNorm(
        lower=L, upper=upper, witness=witness, converged=converged, status=status,
        degree=prob.deg, domain=tuple(B), evidence=None,
        stats={"pieces": len(heap), "evaluations": nevals,
               "seconds": round(time.time() - t0, 3), "order": max(orders, default=0),
               "max_prec": max_used, "orders": sorted(orders),
               "method": "taylor models, critical points isolated"},
    ), own


def _log2_floor(q: fmpq) -> int:
    """About log2 q for q > 0 (0 for q == 0)."""
    if q <= 0:
        return 0
    return int(q.p).bit_length() - int(q.q).bit_length()
