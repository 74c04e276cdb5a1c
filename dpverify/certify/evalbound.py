"""Certified rounding-error bounds of polynomial evaluation (Horner, Clenshaw) in binary64
or binary32.

:func:`evalbound` returns a rigorous bound on ``|fl(p(x)) - p(x)|`` over every float
``x`` (of the format: binary64 by default, or binary32) in an interval ``[A, B]``, where
``fl(p(x))`` is the value computed in that IEEE 754 format by exactly the operations below
(every operation rounded to the format, no wider intermediate), and a checkable
certificate of it (kind
``evalbound``, docs/certificates.md); :func:`float_error_bound` adds the certified
``sup |f - p|`` of the interval certifier, so that "this float64 code is within N of
``f`` on ``[A, B]``" is one verified statement (kind ``float-error``).

Rounding model.  IEEE 754 binary64 (or binary32 with ``format="binary32"``), rounding to
nearest (ties to even), **no fused multiply-add** (``fma=True``: Horner with one fused
multiply-add per step, as C code compiled with ``-ffp-contract=fast`` or calling ``fma``
does), no extended precision; gradual underflow is covered (the binade bound of
:mod:`.fpformat` never goes below half the subnormal spacing, ``2^-1075`` in binary64);
overflow is refused: every intermediate is proven ``<= 2^emax`` in magnitude (``2^1023``,
``2^127``), else :class:`~dpverify.errors.DomainError`.  The operations are those of
``numpy.polynomial.polynomial.polyval`` (Horner, monomial basis) and
:func:`dpverify.fast.chebyshev.clenshaw` (Chebyshev basis on ``(a, b)``)::

    Horner:    q_n = c_n;  q_i = fl(fl(x * q_{i+1}) + c_i),  i = n-1 .. 0
               (fma=True: q_i = fl(x * q_{i+1} + c_i), one rounding)
    Clenshaw:  t = fl(fl(2x - s) / w),  s = fl(a + b),  w = fl(b - a);
               b_n = c_n, b_{n+1} = 0;  b_k = fl(fl(fl(2t * b_{k+1}) - b_{k+2}) + c_k),
               k = n-1 .. 1;  y = fl(fl(fl(t * b_1) - b_2) + c_0)

Analysis (:mod:`.rounding_pieces`).  The interval is cut into pieces; on each, every
intermediate value is enclosed exactly (Taylor forms of the exact partial results at the
piece's centre plus the accumulated error) and each rounding is bounded by half an ulp of
the largest binade its enclosure reaches, or proven exact (a zero operand, a power-of-two
factor, or the fixed-point argument Gappa uses).  The errors propagate *exactly
linearly* (each product has an exact factor), so the bound on a piece is a weighted sum
of the per-operation bounds with no second-order term.  Pieces are bisected where the
bound is largest until bisection stops paying (:func:`evalbound`'s ``pieces``).  This is
the analysis Gappa does with ``$ x in N;`` bisection; the enclosures here are exact
polynomial ranges instead of interval arithmetic on the expression, and the Clenshaw
errors are summed through ``T_j`` and ``U_m`` instead of the recurrence (which grows).

Coefficients.  A float implementation stores ``c^_i = round(c_i)`` (nearest number of the
format); the certificate is about ``p^`` (those coefficients), and :attr:`EvalBound.bound`
adds ``sup |p^ - p|`` over the interval for the *given* exact coefficients (zero when they
are numbers of the format already, e.g. hex floats or ``--float64`` input).

Results and certificates live in :mod:`.evalbound_cert` (this module imports it; it never
imports this one).

Guarantee
---------
For every ``x`` **of the format** in ``[A, B]`` (the endpoints need not be; the
rounding of a real input before evaluation is *not* covered),
``|fl(p^(x)) - p^(x)| <= evaluation`` and ``|fl(p^(x)) - p(x)| <= bound``, with the
operations and arithmetic above.  Every number is exact rational arithmetic; floats are
never used to decide.
"""

from __future__ import annotations

import heapq
import time
from collections.abc import Callable, Sequence
from typing import Any

from flint import fmpq, fmpq_poly

from ..budget import after, check_timeout, limits
from ..errors import DomainError, InvalidParameterError, ParameterTypeError, TimeLimitExceeded
from ..exact import ChebyshevPoly, ExactPoly, MonomialPoly, fmpq_sum
from ..numbers import check_int, check_interval, fmpq_to_decimal, to_fmpq
from ..progress import ProgressCallback, report
from .evalbound_cert import ASSUMPTIONS, EvalBound, FloatErrorBound
from .fpformat import BINARY64, Format, floor_log2, read_format
from .rounding_pieces import Piece, clenshaw_piece, horner_piece, up

__all__ = ["EvalBound", "FloatErrorBound", "evalbound", "float_error_bound", "sup_abs_bound",
           "inf_abs_bound", "ulp_of", "round_to_format",
           "ASSUMPTIONS", "DEFAULT_PIECES", "MAX_EVAL_DEGREE"]
#: the default cap on the number of pieces of :func:`evalbound`
DEFAULT_PIECES = 512
#: the largest degree analysed (the checker's cap: 513 coefficients)
MAX_EVAL_DEGREE = 512
_STALE = 6  # bisections of the worst piece without improvement before stopping



def round_to_format(c: fmpq, fmt: Format, name: str) -> fmpq:
    """The number of the format nearest to the exact ``c`` (ties to even); overflow raises
    :class:`~dpverify.errors.InvalidParameterError` naming ``name``."""
    out = fmt.nearest(c)
    if out is None:
        raise InvalidParameterError(f"{name} = {fmpq_to_decimal(c, 6)} overflows {fmt.name}")
    return out


def sup_abs_bound(P: fmpq_poly, lo: fmpq, hi: fmpq, pieces: int = 32) -> fmpq:
    """An upper bound of ``sup_{lo <= x <= hi} |P(x)|`` (exact Taylor forms on pieces).

    On a piece with centre ``m`` and radius ``r``, ``|P(m + t)| <= sum_k |P_k(m)| r^k`` with
    the exact Taylor coefficients ``P_k(m)`` (``fmpq_poly`` composition).  Rigorous.
    """
    if P.degree() <= 0:
        return abs(fmpq(P[0])) if P.degree() == 0 else fmpq(0)
    best = fmpq(0)
    step = (hi - lo) / pieces
    r = step / 2
    for i in range(pieces):
        m = lo + step * i + r
        shifted = P(fmpq_poly([m, r]))
        best = max(best, up(fmpq_sum([abs(c) for c in shifted.coeffs()])))
    return best


def inf_abs_bound(P: fmpq_poly, lo: fmpq, hi: fmpq, pieces: int = 64) -> fmpq:
    """A lower bound of ``min_{lo <= x <= hi} |P(x)|`` (0 when ``P`` may vanish there):
    on each piece ``|P(m + r s)| >= |a_0| - sum_{k >= 1} |a_k|`` (exact Taylor form)."""
    best: fmpq | None = None
    step = (hi - lo) / pieces
    for i in range(pieces):
        m = lo + step * i + step / 2
        a = [fmpq(c) for c in P(fmpq_poly([m, step / 2])).coeffs()] or [fmpq(0)]
        low = abs(a[0]) - fmpq_sum([abs(c) for c in a[1:]])
        if low <= 0:
            return fmpq(0)
        best = low if best is None else min(best, low)
    return fmpq(0) if best is None else best


def _read_poly(poly: Any, basis: str | None, domain: Any) -> ExactPoly:
    if isinstance(poly, ExactPoly):
        if basis is not None and basis != poly.basis:
            raise InvalidParameterError(f"basis={basis!r} but poly is in the {poly.basis} basis")
        if domain is not None:
            raise InvalidParameterError("domain applies to coefficient lists only; the "
                                        "polynomial carries its own")
        if poly.basis not in ("monomial", "chebyshev"):
            raise InvalidParameterError(
                f"poly must be in the monomial (Horner) or chebyshev (Clenshaw) basis, got "
                f"{poly.basis}; convert it first")
        return poly
    if isinstance(poly, (str, bytes)) or not isinstance(poly, Sequence):
        raise ParameterTypeError(
            f"poly must be a MonomialPoly, a ChebyshevPoly or a list of coefficients, got "
            f"{type(poly).__name__}")
    basis = basis or "monomial"
    if basis == "monomial":
        if domain is not None:
            raise InvalidParameterError("domain only applies to the chebyshev basis")
        return MonomialPoly(poly)
    if basis == "chebyshev":
        return ChebyshevPoly(poly, domain=(-1, 1) if domain is None else domain)
    raise InvalidParameterError(f"basis must be 'monomial' or 'chebyshev', got {basis!r}")


def _read_interval(interval: Any, fmt: Format = BINARY64) -> tuple[fmpq, fmpq]:
    A, B = check_interval(interval)
    if max(abs(A), abs(B)) >= fmpq(2) ** (fmt.emax - 1):
        raise DomainError(f"interval reaches |x| >= 2^{fmt.emax - 1}: overflow cannot be "
                          "excluded")
    return A, B


def evalbound(
    poly: Any,
    interval: Any,
    *,
    basis: str | None = None,
    domain: Any = None,
    pieces: int = DEFAULT_PIECES,
    fma: bool = False,
    format: Any = "binary64",
    scheme: str | None = None,
    parity: str | None = None,
    timeout: Any = None,
    progress: ProgressCallback | None = None,
) -> Any:
    """Certified bound on ``|fl(p(x)) - p(x)|`` over the floats ``x`` in ``interval``.

    Parameters
    ----------
    poly : MonomialPoly, ChebyshevPoly or sequence of exact numbers
        The polynomial with its exact coefficients (lowest index first).  Monomial
        polynomials are analysed for Horner's rule, Chebyshev ones for Clenshaw's
        recurrence (module docstring).
    interval : pair of exact numbers
        ``(A, B)`` with ``A < B``.
    basis : {"monomial", "chebyshev"}, optional
        For a coefficient list (default ``"monomial"``).
    domain : pair of exact numbers, optional
        Chebyshev domain ``(a, b)`` of a coefficient list (default ``(-1, 1)``).
    pieces : int
        At most this many pieces (1..65536, default 512); the worst piece is bisected
        until that stops lowering the bound (six bisections in a row without gain).
    fma : bool
        Horner only: each step is one fused multiply-add ``fl(x * q + c)`` (default False:
        a rounded product, then a rounded sum, as numpy does).
    format : {"binary64", "binary32"} or Format
        The floating-point format of ``x``, the coefficients and every operation (default
        binary64; binary32 means every operation rounded to binary32).
    scheme : {"horner", "horner-fma", "estrin", "estrin-fma"}, optional
        A monomial polynomial's evaluation order (:mod:`dpverify.certify.schemes`; default
        ``"horner"``, or ``"horner-fma"`` with ``fma=True``).  Estrin's schemes and
        ``parity`` are analysed as programs (:func:`dpverify.certify.roundoff.program_bound`)
        and return its :class:`~dpverify.certify.roundoff_cert.RoundoffBound` (kind
        ``roundoff`` certificate) for the polynomial with coefficients in the format.
    parity : {"even", "odd"}, optional
        Evaluate in ``y = x * x`` (one parity of powers; the others must be 0).
    timeout : seconds, optional
        Stop bisecting at ``timeout``: the bound of the pieces analysed so far is returned
        (valid, possibly looser; ``stats["stop"] == "timeout"``).  The first analysis of
        the whole interval must finish by ``1.05 timeout + 0.5`` s, else
        :class:`~dpverify.errors.TimeLimitExceeded` (nothing is claimed).  Default: no
        limit.
    progress : callable, optional
        ``progress(stage, done, total)`` (:mod:`dpverify.progress`): pieces analysed.

    Returns
    -------
    EvalBound
        With ``.certificate()``, the checkable ``evalbound`` certificate.

    Raises
    ------
    DomainError
        When overflow cannot be excluded (some intermediate may exceed ``2^emax``).
    InvalidParameterError
        No number of the format lies in the interval, or a bad parameter.
    TimeLimitExceeded
        Past ``1.05 timeout + 0.5`` s (see ``timeout``).

    Guarantee
    ---------
    See the module docstring: rigorous for every float ``x`` of the format in ``[A, B]``
    and the stated operations; exact rational arithmetic only.

    Examples
    --------
    ``fl(fl(x * 1) + 1)`` on ``[0, 1]``: ``x * 1`` is exact (a power-of-two factor) and
    ``x + 1 <= 2`` rounds by at most half an ulp of ``[1, 2)``, ``2^-53`` (``2^-24`` in
    binary32):

    >>> evalbound([1, 1], (0, 1)).bound == fmpq(1, 2**53)
    True
    >>> evalbound([1, 1], (0, 1), format="binary32").bound == fmpq(1, 2**24)
    True
    """
    fmt = read_format(format)
    if scheme is not None or parity is not None:
        if scheme not in (None, "horner", "horner-fma", "estrin", "estrin-fma"):
            raise InvalidParameterError(f"scheme must be 'horner', 'horner-fma', 'estrin' or "
                                        f"'estrin-fma', got {scheme!r}")
        if fma and scheme not in (None, "horner-fma"):
            raise InvalidParameterError("fma=True contradicts scheme=" + repr(scheme))
        fma = fma or scheme == "horner-fma"
        if scheme in ("estrin", "estrin-fma") or parity is not None:
            return _as_program(poly, interval, basis, domain, pieces, fmt,
                               scheme or ("horner-fma" if fma else "horner"), parity,
                               timeout, progress)
    p, A, B = _arguments(poly, interval, basis, domain, pieces, fma, fmt)
    seconds = check_timeout(timeout)
    # bisection stops gracefully at the timeout; the budget (a little later) bounds the
    # first analysis and the wrap-up, which cannot stop with a valid partial result
    stop = None if seconds is None else time.monotonic() + seconds
    with limits(timeout=after(seconds), shown=seconds):
        return _evalbound(p, A, B, pieces, fma, stop, progress, fmt)


def _as_program(poly: Any, interval: Any, basis: str | None, domain: Any, pieces: int,
                fmt: Format, scheme: str, parity: str | None, timeout: Any,
                progress: ProgressCallback | None) -> Any:
    """Estrin and parity schemes: the program's round-off bound (a RoundoffBound)."""
    # function-level: the program analysis (and the expression modules it loads) is only
    # needed for these schemes
    from .roundoff import program_bound
    from .schemes import scheme_program

    p, A, B = _arguments(poly, interval, basis, domain, pieces, False, fmt)
    if p.basis != "monomial":
        raise InvalidParameterError(f"scheme={scheme!r} evaluates the monomial basis")
    chat = [round_to_format(c, fmt, f"poly[{i}]") for i, c in enumerate(p.coeffs)]
    prog = scheme_program(chat, scheme, parity)
    return program_bound(prog, {"x": (A, B)}, format=fmt, timeout=timeout, progress=progress,
                         max_boxes=max(pieces, 1000))


def _arguments(poly: Any, interval: Any, basis: str | None, domain: Any, pieces: int,
               fma: bool, fmt: Format = BINARY64) -> tuple[ExactPoly, fmpq, fmpq]:
    """The checked arguments of :func:`evalbound`: the polynomial and the interval."""
    p = _read_poly(poly, basis, domain)
    check_int(pieces, "pieces", 1, 65536)
    if not isinstance(fma, bool):
        raise ParameterTypeError(f"fma must be True or False, got {type(fma).__name__}")
    if fma and p.basis != "monomial":
        raise InvalidParameterError("fma=True applies to Horner's rule (the monomial basis) "
                                    "only")
    A, B = _read_interval(interval, fmt)
    if p.degree > MAX_EVAL_DEGREE:
        raise InvalidParameterError(f"poly must have degree <= {MAX_EVAL_DEGREE} (the "
                                    "independent checker's cap for this kind), got "
                                    f"{p.degree}")
    return p, A, B


def _evalbound(p: ExactPoly, A: fmpq, B: fmpq, pieces: int, fma: bool, stop: float | None,
               progress: ProgressCallback | None, fmt: Format = BINARY64) -> EvalBound:
    lo, hi = fmt.ceil(A), fmt.floor(B)
    if lo > hi:
        raise InvalidParameterError(f"no {fmt.name} number lies in the interval [{A}, {B}]")
    cs = list(p.coeffs)
    chat = [round_to_format(c, fmt, f"poly[{i}]") for i, c in enumerate(cs)]
    t0 = time.perf_counter()
    analyse: Callable[[fmpq, fmpq], Piece]
    if p.basis == "monomial":
        def analyse(a: fmpq, b: fmpq) -> Piece:
            return horner_piece(chat, a, b, fma, fmt)
        diff = fmpq_poly([h - c for h, c in zip(chat, cs)])
        coef_err = sup_abs_bound(diff, A, B) if not diff.is_zero() else fmpq(0)
        dom = None
    else:
        assert p.domain is not None
        dom = p.domain
        a, b = dom
        ah, bh = round_to_format(a, fmt, "domain[0]"), round_to_format(b, fmt, "domain[1]")
        s, w = round_to_format(ah + bh, fmt, "a + b"), round_to_format(bh - ah, fmt, "b - a")
        if w <= 0:
            raise DomainError(f"the domain's endpoints round to the same {fmt.name} number")
        pt = fmpq_poly(list(ChebyshevPoly(chat).to_monomial().coeffs))
        dpt = pt.derivative()

        def analyse(a_: fmpq, b_: fmpq) -> Piece:
            return clenshaw_piece(chat, dom, s, w, a_, b_,
                                  lambda u, v: sup_abs_bound(dpt, u, v, 4), fmt)
        diff = pt - fmpq_poly(list(ChebyshevPoly(cs).to_monomial().coeffs))
        ua, ub = (2 * A - a - b) / (b - a), (2 * B - a - b) / (b - a)
        coef_err = sup_abs_bound(diff, ua, ub) if not diff.is_zero() else fmpq(0)
    how = "constant"
    if len(chat) == 1:  # a constant is returned as stored: no operation
        found = [Piece(lo, hi, fmpq(0), fmpq(0), fmpq(0), [])]
    else:
        found, how = _refine(analyse, lo, hi, pieces, len(chat) - 1, stop, progress)
    evaluation = up(max(pc.bound for pc in found))
    n = len(chat) - 1
    higham = None
    if p.basis == "monomial":
        X = max(abs(A), abs(B))
        S = fmpq_sum([abs(c) * X**i for i, c in enumerate(chat)])
        steps = n if fma else 2 * n  # roundings on the longest path (Higham eq. (5.3))
        u = fmt.unit_roundoff
        higham = up(steps * u / (1 - steps * u) * S) if n > 0 else fmpq(0)
    top = max(pc.top for pc in found)
    return EvalBound(
        ("horner-fma" if fma else "horner") if p.basis == "monomial" else "clenshaw", p.basis,
        (A, B), n,
        up(evaluation + coef_err), evaluation, max(pc.rounding for pc in found), coef_err,
        max(pc.mapping for pc in found), higham, chat, dom,
        fmpq(2) ** top if top >= 0 else fmpq(1, 2 ** (-top)), found,
        {"pieces": len(found), "seconds": time.perf_counter() - t0, "float_interval":
         (lo, hi), "stop": how}, fmt)


def _refine(analyse: Callable[[fmpq, fmpq], Piece], lo: fmpq, hi: fmpq, cap: int,
            degree: int, stop: float | None, progress: ProgressCallback | None
            ) -> tuple[list[Piece], str]:
    """Bisect the piece with the largest bound until the cap, or until the worst piece has
    been bisected ``_STALE`` times in a row without lowering its bound, or until the
    ``stop`` time (``time.monotonic()``).  Bisections above
    depth ``log2(degree)`` never count as fruitless: on wider pieces the Taylor forms of
    a high-degree polynomial lose to the whole-piece coefficient bounds, so the bound only
    starts to fall once the pieces are about ``1/degree`` of the interval.  Returns the
    pieces, sorted, and why bisection stopped: ``"pieces"`` (the cap), ``"converged"``
    or ``"timeout"``."""
    first = analyse(lo, hi)
    free = degree.bit_length()
    heap: list[tuple[fmpq, int, int, int, Piece]] = [(-first.bound, 0, 0, 0, first)]
    tick = 1
    how = "pieces"
    while len(heap) < cap:
        _, _, stale, depth, worst = heap[0]
        if stale >= _STALE or worst.bound == 0 or worst.lo == worst.hi:
            how = "converged"
            break
        if stop is not None and time.monotonic() > stop:
            how = "timeout"
            break
        mid = (worst.lo + worst.hi) / 2
        halves = [analyse(worst.lo, mid)]
        if stop is not None and time.monotonic() > stop:  # the worst piece stays whole
            how = "timeout"
            break
        halves.append(analyse(mid, worst.hi))
        heapq.heappop(heap)
        gain = max(h.bound for h in halves) < worst.bound or depth < free
        for h in halves:
            # ties go to the newest piece: one lineage is followed to the end, so a bound
            # that many pieces share does not make the search breadth-first
            heapq.heappush(heap, (-h.bound, -tick, 0 if gain else stale + 1, depth + 1, h))
            tick += 1
        if progress is not None and not tick & 15:
            progress("evaluation error: pieces", len(heap), cap)
    report(progress, "evaluation error: pieces", len(heap), len(heap))
    return sorted((e[4] for e in heap), key=lambda pc: pc.lo), how


def ulp_of(y: fmpq, fmt: Format = BINARY64) -> fmpq:
    """``ulp(y) = 2^(max(floor(log2 |y|), emin) - p + 1)`` (binary64:
    ``2^(max(floor(log2 |y|), -1022) - 52)``), the spacing of the format in the binade of
    ``y != 0`` (monotone in ``|y|``)."""
    return fmt.ulp(y)


def float_error_bound(f: Any, poly: Any, interval: Any, *, basis: str | None = None,
                      domain: Any = None, rtol: Any = "1e-3", timeout: Any = None,
                      pieces: int = DEFAULT_PIECES, fma: bool = False,
                      progress: ProgressCallback | None = None, format: Any = None,
                      scheme: str | None = None, parity: str | None = None,
                      error: str | None = None) -> Any:
    """Certified ``sup |f(x) - fl(p(x))|`` over binary64 ``x`` in ``interval``.

    With any of ``format`` (``"binary32"``), ``scheme`` (``"estrin"``, ``"estrin-fma"``,
    or naming Horner), ``parity`` or ``error`` (``"abs"``, ``"rel"``, ``"ulps"``), the
    total error is certified one piece at a time instead (the approximation and rounding
    errors added where they occur, a tighter bound) by
    :func:`dpverify.certify.scheme_error.scheme_error_bound`, which returns a
    :class:`~dpverify.certify.scheme_error.SchemeErrorBound` (its ``float-error``
    certificate has a bisection tree as evidence).  Without them, binary64 Horner or
    Clenshaw keep the two-part certificate below.

    ``p`` is evaluated with its coefficients rounded to binary64 (what float code stores):
    ``sup |f - p^|`` comes from :func:`dpverify.certify.certify` on the box (a checkable
    ``supnorm-box`` certificate), the evaluation error from :func:`evalbound`; by the
    triangle inequality ``|f - fl(p^)| <= |f - p^| + |p^ - fl(p^)|``.  ``f`` is an
    expression of ``x`` (a string such as ``"exp(x)"`` or an :class:`~dpverify.expr.Expr`).
    ``progress``: a :mod:`dpverify.progress` callback for both parts (counts only).

    ``timeout`` (seconds, default none) bounds the whole call: the evaluation bound
    stops bisecting at half of it (:func:`evalbound`), the sup-norm search at the rest
    (both stop with valid, wider bounds); past ``1.05 timeout + 0.5`` s
    :class:`~dpverify.errors.TimeLimitExceeded` (nothing is claimed).

    Guarantee
    ---------
    Both terms are rigorous upper bounds (module docstring for the evaluation model), so
    ``bound`` is one for every binary64 ``x`` in ``[A, B]``.
    """
    # function-level: the interval certifier behind claims.certify and the expression
    # language cost ~55 ms to import (-X importtime) and only this function needs them;
    # ``dpverify evalbound`` without --f never loads them
    from ..approximation import Approximation
    from ..expr import Expr, parse
    from .claims import certify

    if any(v is not None for v in (format, scheme, parity, error)):
        return _total(f, poly, interval, basis, domain, rtol, timeout, pieces, fma, progress,
                      format, scheme, parity, error)

    if isinstance(f, Expr):
        if not f.used_variables <= {"x"}:
            raise InvalidParameterError(f"f must be a function of x, got one of "
                                        f"{', '.join(sorted(f.used_variables))}")
        fx = parse(f.canonical, variables=("x",), name="f")
    elif isinstance(f, str):
        fx = parse(f, variables=("x",), name="f")
    else:
        raise ParameterTypeError(f"f must be an expression of x (a string such as "
                                 f"'exp(x)', or an Expr), got {type(f).__name__}")
    if not to_fmpq(rtol, "rtol") > 0:
        raise InvalidParameterError(f"rtol must be > 0, got {rtol!r}")
    p, A, B = _arguments(poly, interval, basis, domain, pieces, fma)
    seconds = check_timeout(timeout)
    t0 = time.monotonic()
    # one budget for both parts (1.05 timeout + 0.5 s); the evaluation bound stops
    # bisecting at half the time, the sup-norm search at the end of the rest
    with limits(timeout=after(seconds), shown=seconds):
        ev = _evalbound(p, A, B, pieces, fma, None if seconds is None else t0 + seconds / 2,
                        progress)
        phat = MonomialPoly(ev.float_coefficients) if p.basis == "monomial" else \
            ChebyshevPoly(ev.float_coefficients, domain=p.domain)
        left = None if seconds is None else max(seconds - (time.monotonic() - t0), 1e-3)
        try:
            cert = certify(Approximation(
                construction="supnorm", params={}, poly=phat,
                target={"kind": "expr", "expr": fx.canonical, "variables": ["x"]},
                domain={"kind": "box", "intervals": [[str(A), str(B)]]}, claims={}),
                rtol=rtol, timeout=left, progress=progress)
        except TimeLimitExceeded as exc:
            # the sup-norm part states its own share of the time; the caller gave `timeout`
            raise TimeLimitExceeded(f"time limit of {seconds:g} s reached: sup |f - p| "
                                    f"not bounded in the time left ({exc})") from None
        return _combine(ev, p, phat, cert, fx.canonical)


def _total(f: Any, poly: Any, interval: Any, basis: str | None, domain: Any, rtol: Any,
           timeout: Any, pieces: int, fma: bool, progress: ProgressCallback | None,
           format: Any, scheme: str | None, parity: str | None, error: str | None) -> Any:
    """The one-piece-at-a-time total error (see :func:`float_error_bound`)."""
    # function-level: as in float_error_bound
    from .scheme_error import DEFAULT_SCHEME_PIECES, scheme_error_bound

    fmt = read_format("binary64" if format is None else format)
    p = _read_poly(poly, basis, domain)
    if p.basis != "monomial":
        raise InvalidParameterError("format, scheme, parity and error apply to the monomial "
                                    "basis (a scheme of dpverify.certify.schemes)")
    check_int(pieces, "pieces", 1, 65536)
    if fma and scheme not in (None, "horner-fma"):
        raise InvalidParameterError("fma=True contradicts scheme=" + repr(scheme))
    return scheme_error_bound(
        f, list(p.coeffs), interval, scheme=scheme or ("horner-fma" if fma else "horner"),
        parity=parity, format=fmt, error=error or "abs", rtol=rtol,
        max_pieces=DEFAULT_SCHEME_PIECES if pieces == DEFAULT_PIECES else pieces,
        timeout=timeout, progress=progress)


def _combine(ev: EvalBound, p: ExactPoly, phat: ExactPoly, cert: Any, target: str
             ) -> FloatErrorBound:
    """The :class:`FloatErrorBound` of the two parts, with the ulps statement when
    ``|f|`` is bounded away from 0."""
    A, B = ev.interval
    upper = to_fmpq(cert.error["upper"])
    bound = upper + ev.evaluation
    # |f| >= min |p^| - sup |f - p^|: a power of two below it fixes ulp(f) from below
    if p.basis == "monomial":
        low = inf_abs_bound(fmpq_poly(list(phat.coeffs)), A, B)
    else:
        assert p.domain is not None
        a, b = p.domain
        ua, ub = sorted(((2 * A - a - b) / (b - a), (2 * B - a - b) / (b - a)))
        low = inf_abs_bound(fmpq_poly(list(ChebyshevPoly(ev.float_coefficients)
                                           .to_monomial().coeffs)), ua, ub)
    ulps = f_lower = None
    if low > upper:
        f_lower = fmpq(2) ** floor_log2(low - upper)
        ulps = to_fmpq(fmpq_to_decimal(bound / ulp_of(f_lower), 4, "up"))
    return FloatErrorBound(bound, upper, ev, cert, target, ulps, f_lower)
