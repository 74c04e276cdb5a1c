"""Certified maximum error on a finite set of rational points.

Guarantee
---------
When the polynomial and the target are exact at every point (the TUV
constructions: thresholds, indicators, tables of rationals, or expressions that
``Expr.eval_exact`` evaluates exactly), the result is the **exact** maximum of
``|f(x) - p(x)|`` over the points, as an ``fmpq``, with the point attaining it.
Otherwise each error is enclosed in an arb ball evaluated at increasing
precision (53, 106, ... up to ``max_prec`` bits) and the result is an enclosure
``[lower, upper]`` of the maximum; ``PrecisionExhausted`` is raised rather than
returning a ball that cannot order the candidates.

Fast path (search in balls, decide exactly).  When every target value is exact, the
domain is large and the polynomial is, *provably*, an affine image of one Chebyshev
polynomial, ``p(x) = alpha + beta * T_t(lam*x + mu)`` (the Chebyshev OR/AND polynomials of
thaler2012 Fact 4.2 are; :func:`affine_chebyshev_form` finds the rationals and proves the
identity exactly), each error is first enclosed in an arb ball (``arb.chebyshev_t``, 128
bits, a few microseconds a point instead of an exact evaluation of a ~20000-bit monomial
form at k = 10^4).  Let ``L`` be the largest proven lower end (balls and their end points
are rigorous; ``arb`` rounds them outward).  A point whose ball lies entirely below ``L``
cannot attain the maximum (its error is below the error at the point that proved ``L``);
the remaining *candidates* (typically a handful: the points where ``|T_t| = 1``) are
evaluated exactly from the monomial coefficients, as on the slow path (while more than
``_MAX_CANDIDATES`` remain, the screen is first repeated on them at doubled precision).
The result -- the exact maximum and the first point attaining it -- is identical to exact
enumeration of every point; only the order of work changes.

Long polynomials on integer domains (degree >= ``_TRUNCATED_MIN_DEGREE``) are screened the
same way with exact integer bounds instead of balls: with ``p = N/D`` (``N`` integer),
``N = 2^s T + rest`` where ``T = N >> s`` coefficient by coefficient and every
coefficient of ``rest`` is below ``2^s`` in absolute value, so
``|N(x) - 2^s T(x)| <= 2^s S(|x|)``,
``S(y) = sum_{i <= deg} y^i``.  ``s`` is chosen per point so that this radius is about
``2^-64`` of ``D`` (the cancellation of the monomial form at ``x``, ``deg log2 |x|`` bits,
is what ``T`` keeps); ``T(x)`` is then a third to a fifth of the size of ``N(x)``.  The
exact maximum is decided on the survivors as above.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeAlias

from flint import arb, ctx, fmpq, fmpq_poly, fmpz, fmpz_poly

from ..budget import check_cost, checkpoint
from ..errors import InvalidParameterError, ParameterTypeError, PrecisionExhausted
from ..exact import ExactPoly
from ..exact.forked import in_spans
from ..expr import Expr, parse
from ..numbers import MAX_DEGREE, arb_to_fmpq_bounds, check_int, parse_fmpq_str
from ..progress import ProgressCallback, report

#: the value of a target at a point: exact, or an expression to enclose in arb
TargetValue: TypeAlias = fmpq | Expr

__all__ = [
    "FiniteMax",
    "TargetValue",
    "affine_chebyshev_form",
    "domain_points",
    "target_function",
    "exact_max_error",
    "finite_max_error",
]

#: Largest finite domain accepted (points are held in memory as fmpq).
MAX_POINTS = 10_000_000


@dataclass(frozen=True)
class FiniteMax:
    """Result of :func:`finite_max_error`.

    ``lower``/``upper`` are exact rationals; ``exact`` means ``lower == upper`` is
    the exact maximum; ``witness`` is a point where ``|f - p| >= lower``.
    """

    lower: fmpq
    upper: fmpq
    exact: bool
    witness: fmpq
    npoints: int


def domain_points(domain: dict[str, Any]) -> list[fmpq]:
    """The points of an ``integers`` or ``points`` domain, in order."""
    kind = domain.get("kind")
    if kind == "integers":
        lo = check_int(domain.get("lo"), "domain.lo")
        hi = check_int(domain.get("hi"), "domain.hi")
        if hi < lo:
            raise InvalidParameterError(f"domain.hi must be >= domain.lo, got {lo}..{hi}")
        if hi - lo + 1 > MAX_POINTS:
            raise InvalidParameterError(
                f"domain has {hi - lo + 1} points, more than the limit {MAX_POINTS}"
            )
        return [fmpq(i) for i in range(lo, hi + 1)]
    if kind == "points":
        pts = domain.get("points")
        if not isinstance(pts, list) or not pts:
            raise InvalidParameterError("domain.points must be a non-empty list")
        if len(pts) > MAX_POINTS:
            raise InvalidParameterError(f"domain has more than {MAX_POINTS} points")
        return [parse_fmpq_str(p, f"domain.points[{i}]") for i, p in enumerate(pts)]
    raise InvalidParameterError(f"not a finite domain kind: {kind!r}")


def target_function(
    target: dict[str, Any], points: list[fmpq]
) -> Callable[[int, fmpq], TargetValue]:
    """Return ``value(i, x)``: the target at the i-th point, exact ``fmpq`` when
    possible, otherwise an ``Expr`` evaluated by the caller in arb."""
    kind = target.get("kind")
    if kind == "threshold":
        r = parse_fmpq_str(target.get("r"), "target.r")
        return lambda i, x: fmpq(1) if x >= r else fmpq(0)
    if kind == "indicator":
        l_ = parse_fmpq_str(target.get("l"), "target.l")
        return lambda i, x: fmpq(1) if x == l_ else fmpq(0)
    if kind == "values":
        vals = target.get("values")
        if not isinstance(vals, list) or len(vals) != len(points):
            raise InvalidParameterError(
                f"target.values must list one value per point ({len(points)})"
            )
        exact_vals = [parse_fmpq_str(v, f"target.values[{i}]") for i, v in enumerate(vals)]
        return lambda i, x: exact_vals[i]
    if kind == "expr":
        e = parse(target.get("expr", ""), variables=tuple(target.get("variables") or ("x",)))
        if len(e.variables) != 1:
            raise InvalidParameterError("a finite-set target expression must be univariate")

        def value(i: int, x: fmpq, _e: Expr = e) -> TargetValue:
            v = _e.eval_exact(x)
            return v if v is not None else _e

        return value
    raise InvalidParameterError(f"unknown target kind {kind!r}")


def _as_fmpq_poly(poly: ExactPoly | fmpq_poly) -> fmpq_poly:
    """``poly`` in the monomial basis in ``x`` (exact)."""
    if isinstance(poly, fmpq_poly):
        return poly
    if isinstance(poly, ExactPoly):
        return poly.as_fmpq_poly()
    raise ParameterTypeError(
        f"poly must be an exact polynomial or fmpq_poly, got {type(poly).__name__}")


#: The screened path is tried from this many points and this degree on; below, exact
#: enumeration costs milliseconds anyway.
_FAST_MIN_POINTS = 64
_FAST_MIN_DEGREE = 16
#: Screening precision (bits), doubled for the survivors while more than
#: ``_MAX_CANDIDATES`` remain, up to ``_SCREEN_MAX_PREC``; the survivors are then
#: decided exactly whatever their number (the result never depends on these constants,
#: only the time does).
_SCREEN_PREC = 128
_SCREEN_MAX_PREC = 4096
_MAX_CANDIDATES = 256
#: progress reports come every _CHUNK + 1 points (a power of two minus one: a cheap mask)
_CHUNK = 63
#: The truncated-integer screen (module docstring) is tried from this degree on.
_TRUNCATED_MIN_DEGREE = 256
#: Its first radius is about 2^-_TRUNCATED_GUARD of the denominator; each further round
#: (while more than _MAX_CANDIDATES survive) adds as many bits again.
_TRUNCATED_GUARD = 64


def affine_chebyshev_form(
    poly: ExactPoly | fmpq_poly,
) -> tuple[fmpq, fmpq, int, fmpq, fmpq] | None:
    """Write ``p`` as ``alpha + beta * T_t(lam*x + mu)`` if it is one, else ``None``.

    Parameters
    ----------
    poly : ExactPoly or fmpq_poly
        Any univariate exact polynomial (converted to the monomial basis in ``x``).

    Returns
    -------
    tuple or None
        ``(alpha, beta, t, lam, mu)`` (exact; ``t = deg p >= 3``, ``lam > 0``), or
        ``None`` when ``p`` is not of that form with rational ``lam``.

    Notes
    -----
    Matching the three leading coefficients of ``beta * T_t(lam*x + mu)``, with
    ``T_t(y) = 2^(t-1) y^t - t 2^(t-3) y^(t-2) + ...``, gives ``mu/lam = c_{t-1}/(t c_t)``
    and ``lam^2 = t / (4 (C(t,2) (mu/lam)^2 - c_{t-2}/c_t))``, then ``beta`` from the
    leading coefficient.  The identity is then *proved* with Chebyshev's differential
    equation ``(1 - y^2) Q'' - y Q' + t^2 Q = 0`` (e.g. Mason & Handscomb, *Chebyshev
    Polynomials*, 2003): on ``Q = sum q_j y^j`` the operator gives
    ``(t^2 - j^2) q_j + (j+2)(j+1) q_{j+2}`` at ``y^j``, so its polynomial solutions of
    degree ``t`` are the multiples of ``T_t`` (each ``q_j``, ``j < t``, is forced by
    ``q_{j+2}``).  In ``x`` (``y = lam*x + mu``, ``d/dx = lam d/dy``) the check is that
    ``(1 - y^2) p'' - lam y p' + lam^2 t^2 p`` is the constant ``lam^2 t^2 alpha``: then
    ``p - alpha = c T_t(y)``, and ``c = beta`` by the leading coefficients.  This costs a
    few products by linear and quadratic polynomials instead of expanding ``T_t(y)``
    (a composition of degree ``t``).  The Chebyshev OR and AND polynomials of thaler2012
    Fact 4.2 have this form (``lam = 2/(k-1)``).

    Guarantee
    ---------
    A returned tuple satisfies ``p(x) = alpha + beta*T_t(lam*x + mu)`` exactly (proved as
    in the notes, in ``fmpq_poly`` arithmetic).  ``None`` is returned whenever the
    check (or an earlier necessary condition) fails.
    """
    P = _as_fmpq_poly(poly)
    t = P.degree()
    if t < 3:  # for t = 2 the constant term mixes alpha into c_{t-2}: lam is not fixed
        return None
    ct, ct1, ct2 = P[t], P[t - 1], P[t - 2]
    s = ct1 / (t * ct)
    q = fmpq(t * (t - 1), 2) * s * s - ct2 / ct
    if q <= 0:
        return None
    lam2 = fmpq(t) / (4 * q)
    if not (lam2.p.is_square() and lam2.q.is_square()):
        return None
    lam = fmpq(lam2.p.isqrt(), lam2.q.isqrt())
    mu = lam * s
    beta = ct / (fmpq(2) ** (t - 1) * lam**t)
    y = fmpq_poly([mu, lam])
    d1 = P.derivative()
    L = (1 - y * y) * d1.derivative() - lam * y * d1 + lam2 * t * t * P
    if L.degree() > 0:
        return None
    alpha = L[0] / (lam2 * t * t)
    return alpha, beta, t, lam, mu


def _screened_max(
    points: list[fmpq], fvals: list[fmpq], form: tuple[fmpq, fmpq, int, fmpq, fmpq],
    exact_error: Callable[[int], fmpq], progress: ProgressCallback | None = None,
) -> tuple[fmpq, fmpq]:
    """Exact ``(max error, first point attaining it)`` by ball screening + exact decision
    (module docstring, *Fast path*).  ``exact_error(i)`` is the exact error at point i."""
    alpha, beta, t, lam, mu = form
    idx = list(range(len(points)))
    prec = _SCREEN_PREC
    best_lo: arb | None = None  # an exact arb: a proven lower bound of the maximum
    while True:
        with ctx.workprec(prec):
            a_b, b_b = arb(alpha), arb(beta)
            uppers = []
            stage = f"max error: screening at {prec} bits"
            for j, i in enumerate(idx):
                if not j & _CHUNK:  # report(): also the deadline (dpverify.budget)
                    report(progress, stage, j, len(idx))
                y = arb(lam * points[i] + mu)
                e = abs(arb(fvals[i]) - (a_b + b_b * y.chebyshev_t(t)))
                lo = e.lower()
                if best_lo is None or lo > best_lo:
                    best_lo = lo
                uppers.append(e.upper())
            assert best_lo is not None  # idx is never empty (see below)
            # keep i unless its error is proven below best_lo (then it is below the
            # error of the point that proved best_lo, hence not the maximum)
            before, idx = len(idx), [i for i, up in zip(idx, uppers) if not up < best_lo]
            report(progress, stage, before, before)
        if len(idx) <= _MAX_CANDIDATES or prec >= _SCREEN_MAX_PREC:
            break
        if prec >= 4 * _SCREEN_PREC and 10 * len(idx) > 9 * before:
            break  # more precision no longer helps (exact ties): decide them exactly
        prec *= 2
    best: fmpq | None = None
    wit = points[idx[0]]
    for j, i in enumerate(idx):  # increasing order: the first maximiser, as enumeration finds
        if not j & _CHUNK:  # report(): also the deadline (dpverify.budget)
            report(progress, "max error: exact decisions", j, len(idx))
        err = exact_error(i)
        if best is None or err > best:
            best, wit = err, points[i]
    assert best is not None
    report(progress, "max error: exact decisions", len(idx), len(idx))
    return best, wit


#: what the forked workers of the integer screen read (set only while it runs)
_JOB: dict[str, Any] = {}


def _screen_span(a: int, b: int) -> list[tuple[fmpq, fmpq]]:
    """``(lower, upper)`` bounds of ``D * |f - p|`` at the points ``idx[a:b]`` of the job
    (module docstring): ``N = 2^s T + rest``, ``|rest(x)| <= 2^s S(|x|)``."""
    xs, fvals, N, D = _JOB["xs"], _JOB["fvals"], _JOB["N"], _JOB["D"]
    sums, wanted, deg = _JOB["sums"], _JOB["wanted"], N.degree()
    # one truncated polynomial at a time (the shift changes with |x|: a few times on
    # 0..k), so that at most one more copy of N's size is held
    cur_sh, T = -1, N
    out = []
    for i in _JOB["idx"][a:b]:
        sh = wanted[i]
        if sh != cur_sh:
            cur_sh, T = sh, N if sh == 0 else fmpz_poly([N[e] >> sh for e in range(deg + 1)])
        x = xs[i]
        rad = (sums[abs(int(x))] << sh) if sh else fmpz(0)
        c = abs(D * fvals[i] - fmpq(T(x) << sh))  # D |f - p(x)| up to rad
        out.append((c - rad, c + rad))
    return out


def _truncated_screen(
    xs: list[fmpz], fvals: list[fmpq], N: fmpz_poly, D: fmpz,
    progress: ProgressCallback | None = None,
) -> tuple[fmpq, int]:
    """Exact ``(D * max error, index of the first point attaining it)`` over the integer
    points ``xs`` for ``p = N/D`` (``D > 0``), by the truncated-integer screen of the
    module docstring (in worker processes when long: :mod:`dpverify.exact.forked`)
    followed by exact decisions on the survivors."""
    deg = N.degree()
    dbits = D.bit_length()
    idx = list(range(len(xs)))
    guard = _TRUNCATED_GUARD
    while True:
        stage = f"max error: screening ({guard} guard bits)"
        sums: dict[int, fmpz] = {}
        wanted = {}
        step = max(64, dbits // 16)
        # the power sums S(|x|) are held together: about deg log2|x| bits each
        held = (deg + 2) * sum(abs(int(xs[i])).bit_length() + 1 for i in idx) // 8
        check_cost(f"the max-error screen of a degree-{deg} polynomial at {len(idx)} points",
                   seconds=0.0, memory=float(held))
        for j, i in enumerate(idx):  # the shift each point allows, rounded to a coarse grid
            if not j & _CHUNK:
                checkpoint(stage)  # a power per point: minutes for 10^6 points
            y = abs(int(xs[i]))
            if y not in sums:
                sums[y] = fmpz(deg + 1) if y == 1 else (fmpz(y) ** (deg + 1) - 1) // (y - 1)
            wanted[i] = max(0, (dbits - sums[y].bit_length() - guard) // step * step)
        _JOB.update(xs=xs, fvals=fvals, N=N, D=D, sums=sums, wanted=wanted, idx=idx)
        try:
            # the work: a Horner pass over deg + 1 coefficients of ~deg log2|x| bits a point
            bounds = in_spans(_screen_span, len(idx), len(idx) * (deg + 1) * 128, progress,
                              stage)
        finally:
            _JOB.clear()
        best_lo = max(lo for lo, _ in bounds)  # a proven lower bound of D * max error
        # keep i unless its error is proven below best_lo (then it is below the error of
        # the point that proved best_lo, hence not the maximum)
        idx = [i for i, (_, up) in zip(idx, bounds, strict=True) if not up < best_lo]
        if len(idx) <= _MAX_CANDIDATES or guard >= 4 * _TRUNCATED_GUARD:
            break
        guard *= 2
    best: fmpq | None = None
    wit = idx[0]
    for j, i in enumerate(idx):  # increasing order: the first maximiser, as enumeration finds
        if progress is not None and not j & _CHUNK:
            progress("max error: exact decisions", j, len(idx))
        err = abs(D * fvals[i] - fmpq(N(xs[i])))
        if best is None or err > best:
            best, wit = err, i
    assert best is not None
    report(progress, "max error: exact decisions", len(idx), len(idx))
    return best, wit


def _arb_value(f: Expr, x: fmpq) -> arb:
    """A ball enclosing ``f(x)`` at the working precision."""
    v = f.eval_arb(arb(x))
    if not isinstance(v, arb):  # an arb argument gives an arb (series only from series)
        raise TypeError(f"expected an arb value of the target, got {type(v).__name__}")
    return v


def exact_max_error(
    poly: ExactPoly | fmpq_poly, target: dict[str, Any], domain: dict[str, Any]
) -> tuple[fmpq, fmpq]:
    """Exact ``max |f(x) - p(x)|`` over a finite domain and a point attaining it.

    Raises ``InvalidParameterError`` if the target is not exactly computable
    at some point (use :func:`finite_max_error` for an enclosure instead).
    """
    res = finite_max_error(poly, target, domain)
    if not res.exact:
        raise InvalidParameterError("target is not exactly computable on this domain")
    return res.upper, res.witness


def finite_max_error(
    poly: ExactPoly | fmpq_poly, target: dict[str, Any], domain: dict[str, Any],
    max_prec: int = 1 << 16, *, progress: ProgressCallback | None = None,
) -> FiniteMax:
    """Certified maximum of ``|f - p|`` over a finite domain (see module docstring).

    ``progress(stage, done, total)`` (:mod:`dpverify.progress`), optional: called every
    64 points of each pass over the domain (counts only, never values).

    Guarantee
    ---------
    As the module docstring states: the exact maximum (``exact=True``) with the first
    point attaining it whenever every target value is exact, whether or not the fast
    (screened) path is taken; otherwise a rigorous enclosure.
    """
    points = domain_points(domain)
    P = _as_fmpq_poly(poly)
    if P.degree() > MAX_DEGREE:
        raise InvalidParameterError(f"poly: degree {P.degree()} exceeds {MAX_DEGREE}")
    value = target_function(target, points)
    fvals = []
    for i, x in enumerate(points):
        if not i & _CHUNK:  # report(): also the deadline (dpverify.budget)
            report(progress, "max error: target values", i, len(points))
        fvals.append(value(i, x))
    report(progress, "max error: target values", len(points), len(points))
    integers = domain.get("kind") == "integers"
    if integers:
        # D*p has integer coefficients: evaluate it at integers with FLINT's fmpz
        # Horner (C level, exact) and compare numerators; 3x faster than fmpq.
        D = P.denom()
        Nz = P.numer()

        def scaled_error(fx: fmpq, x: fmpq) -> fmpq:  # D * |f - p| at x (f exact)
            num = Nz(x.p)
            return fmpq(abs(num - D * fx.p)) if fx.q == 1 else fmpq(abs(fx * D - num))

        def exact_error(fx: fmpq, x: fmpq) -> fmpq:
            return scaled_error(fx, x) / D
    else:
        def exact_error(fx: fmpq, x: fmpq) -> fmpq:
            return abs(fx - P(x))

    exact_f = [fx for fx in fvals if isinstance(fx, fmpq)]
    if (len(exact_f) == len(fvals) and len(points) >= _FAST_MIN_POINTS
            and P.degree() >= _FAST_MIN_DEGREE):
        form = affine_chebyshev_form(P)
        if form is not None:
            mx, wit = _screened_max(
                points, exact_f, form, lambda i: exact_error(exact_f[i], points[i]), progress)
            return FiniteMax(mx, mx, True, wit, len(points))
        if integers and P.degree() >= _TRUNCATED_MIN_DEGREE:
            scaled, iw = _truncated_screen([x.p for x in points], exact_f, Nz, D, progress)
            mx = scaled / D
            return FiniteMax(mx, mx, True, points[iw], len(points))

    best: fmpq | None = None
    best_x = points[0]
    inexact: list[tuple[fmpq, Expr]] = []
    if integers:
        thr: fmpq | None = None  # D * best, compared against exact numerators
        for i, x in enumerate(points):
            if not i & _CHUNK:  # report(): also the deadline (dpverify.budget)
                report(progress, "max error: points", i, len(points))
            fx = fvals[i]
            if not isinstance(fx, fmpq):
                inexact.append((x, fx))
                continue
            diff = scaled_error(fx, x)
            if thr is None or diff > thr:
                thr, best_x = diff, x
        if thr is not None:
            best = thr / D
    else:
        for i, x in enumerate(points):
            if not i & _CHUNK:  # report(): also the deadline (dpverify.budget)
                report(progress, "max error: points", i, len(points))
            fx = fvals[i]
            if isinstance(fx, fmpq):
                err = abs(fx - P(x))
                if best is None or err > best:
                    best, best_x = err, x
            else:
                inexact.append((x, fx))
    report(progress, "max error: points", len(points), len(points))
    if not inexact:
        assert best is not None
        return FiniteMax(best, best, True, best_x, len(points))
    # Some target values are irrational: enclose each error in a ball at growing
    # precision until the maximum is pinned to a relative width of 2^-40 (or
    # exactly known points dominate).
    prec = 53
    while True:
        with ctx.workprec(prec):
            balls = [(x, abs(_arb_value(fx, x) - arb(P(x)))) for x, fx in inexact]
        lo = best if best is not None else fmpq(0)
        wit = best_x
        hi = lo
        for x, b in balls:
            blo, bhi = arb_to_fmpq_bounds(b)
            if blo > lo:
                lo, wit = blo, x
            hi = max(hi, bhi)
        if hi == lo or (lo > 0 and (hi - lo) / lo <= fmpq(1, 2**40)):
            return FiniteMax(lo, hi, False, wit, len(points))
        prec *= 2
        if prec > max_prec:
            raise PrecisionExhausted(
                f"could not pin the maximum error within {max_prec} bits of precision"
            )
