"""Remez exchange for the best uniform polynomial approximation on an interval (a search).

Problem.  Given ``f`` continuous on ``[a, b]`` and ``N >= 0``, find ``p`` of degree
``<= N`` minimising ``||f - p||_inf``; its error is ``E_N(f)``.  By Chebyshev's
alternation theorem the best ``p`` is the one for which ``f - p`` equioscillates at
``N + 2`` points.

Method (second Remez algorithm; Remez 1934; Powell, *Approximation Theory and Methods*,
CUP 1981, ch. 9; the exchange as in Chebfun's ``minimax``, Filip, Nakatsukasa,
Trefethen, Beckermann, SIAM J. Sci. Comput. 40 (2018)).  Start from the extreme
points of ``T_{N+2}`` without the right end, ``x_i = (a+b)/2 - (b-a)/2 cos(pi i/(N+2))``,
``i = 0..N+1``.  Each step solves the linear
system ``sum_j c_j T_j(u(x_i)) + (-1)^i h = f(x_i)`` (Chebyshev basis on ``[a, b]`` for
conditioning), samples ``e = f - p`` on a Chebyshev-distributed grid, refines every local
extremum of ``|e|`` by golden-section search, and takes as the new reference one extremum
per run of constant sign (the largest), trimmed to ``N + 2`` points from the ends.  It
stops when ``max |e| <= (1 + tol) min_i |e(x_i)|`` on the new reference.

Everything here is mpmath at ``dps`` digits: a **search** with no guarantee.  The result
is certified (or not) by :mod:`dpverify.certify.alternation`: a de la Vallee Poussin
lower bound at the returned alternation points and the interval certifier's upper bound.

Output convention: an :class:`~dpverify.Approximation` with ``poly`` a
:class:`~dpverify.exact.ChebyshevPoly` on ``(a, b)`` (exact dyadic coefficients: the
mpmath values), and ``extra`` holding ``alternation`` (the ``N + 2`` extrema of ``f - p``
found last, exact dyadic strings), ``levelled_error`` (decimal string, ``|h|``),
``max_error_estimate`` and ``iterations``.
"""

from __future__ import annotations

from typing import Any

import mpmath
from flint import fmpq, fmpz

from ..approximation import Approximation
from ..errors import DomainError, InvalidParameterError, ParameterTypeError
from ..exact import ChebyshevPoly
from ..expr import Expr, parse
from ..numbers import check_int, fmpq_str, to_fmpq
from ..progress import ProgressCallback, report

__all__ = ["remez", "MAX_REMEZ_DEGREE"]

#: Largest degree the search accepts (dense sampling costs O(N^2) evaluations of f).
MAX_REMEZ_DEGREE = 200


def _mpf_to_fmpq(v: Any) -> fmpq:
    """The exact value of a finite mpmath number (a dyadic rational)."""
    sign, man, exp, _ = mpmath.mpf(v)._mpf_  # man_exp drops the sign
    m = fmpz(-int(man) if sign else int(man))
    return fmpq(m * fmpz(2) ** exp) if exp >= 0 else fmpq(m, fmpz(2) ** (-exp))


def _read(f: Any, degree: Any, interval: Any) -> tuple[Any, int, fmpq, fmpq]:
    if isinstance(f, str):
        f = parse(f, variables=("x",), name="f")
    if not isinstance(f, Expr):
        raise ParameterTypeError(f"f must be an expression string or Expr, got {type(f).__name__}")
    if len(f.variables) > 1:
        raise InvalidParameterError(f"f must be a function of one variable, got {f.variables}")
    n = check_int(degree, "degree", 0, MAX_REMEZ_DEGREE)
    if not isinstance(interval, (list, tuple)) or len(interval) != 2:
        raise InvalidParameterError(f"interval must be a pair (a, b), got {interval!r}")
    a, b = to_fmpq(interval[0], "interval[0]"), to_fmpq(interval[1], "interval[1]")
    if not a < b:
        raise InvalidParameterError(f"interval must have a < b, got [{a}, {b}]")
    return f, n, a, b


def remez(f: Any, degree: Any, interval: Any, *, tol: Any = "1e-10", max_iter: int = 40,
          dps: int = 40, progress: ProgressCallback | None = None) -> Approximation:
    """Search for the best uniform approximation of degree ``<= degree`` (no guarantee).

    Parameters
    ----------
    f : str or Expr
        Function of ``x`` (:mod:`dpverify.expr`), continuous on the interval.
    degree : int
        ``N``, 0..200.
    interval : pair of exact numbers
        ``(a, b)``, ``a < b``.
    tol : exact number
        Stop when the error's extrema agree to this relative tolerance.
    max_iter, dps : int
        Iteration cap and mpmath working digits.
    progress : callable, optional
        ``progress("remez degree N: iterations", done, None)`` (:mod:`dpverify.progress`) before
        each exchange step (a count, never values).

    Returns
    -------
    Approximation
        ``construction="remez"``; see the module docstring for ``poly`` and ``extra``.

    Raises
    ------
    DomainError
        If ``f`` cannot be evaluated at a sample point (undefined on the interval).

    Guarantee
    ---------
    None: this is a search.  Certify with
    :func:`dpverify.certify.alternation.certify_minimax`.
    """
    fx, n, a, b = _read(f, degree, interval)
    tol_q = to_fmpq(tol, "tol")
    if not 0 < tol_q < 1:
        raise InvalidParameterError(f"tol must be in (0, 1), got {tol}")
    check_int(max_iter, "max_iter", 1, 1000)
    check_int(dps, "dps", 20, 1000)
    with mpmath.workdps(dps):
        res = _remez_mp(fx, n, a, b, mpmath.mpf(float(tol_q)), max_iter, progress)
    coeffs, ref, lev, emax, it, conv = res
    poly = ChebyshevPoly([_mpf_to_fmpq(c) for c in coeffs], domain=(a, b))
    with mpmath.workprec(64):  # short exact points: the verifier evaluates f there
        pts = sorted({_mpf_to_fmpq(mpmath.mpf(x)) for x in ref})
    pts = [min(max(x, a), b) for x in pts]
    text = fmpq_str
    return Approximation(
        construction="remez",
        params={"f": fx.canonical, "degree": n, "interval": [text(a), text(b)]},
        poly=poly,
        target={"kind": "expr", "expr": fx.canonical, "variables": ["x"]},
        domain={"kind": "box", "intervals": [[text(a), text(b)]]},
        extra={"alternation": [text(x) for x in pts],
               "levelled_error": mpmath.nstr(abs(lev), 12),
               "max_error_estimate": mpmath.nstr(emax, 12),
               "iterations": it, "converged": conv},
    )


def _remez_mp(fx: Any, n: int, a: fmpq, b: fmpq, tol: Any, max_iter: int,
              progress: ProgressCallback | None = None):
    mp = mpmath
    A, B = mp.mpf(int(a.p)) / int(a.q), mp.mpf(int(b.p)) / int(b.q)
    mid, rad = (A + B) / 2, (B - A) / 2

    def fval(x: Any) -> Any:
        try:
            v = fx.eval_mpmath(x)
        except DomainError:
            raise DomainError(f"f is not defined at x = {mp.nstr(x, 15)}") from None
        if not mp.isfinite(v):
            raise DomainError(f"f is not finite at x = {mp.nstr(x, 15)}")
        return v

    def cheb(c: list, x: Any) -> Any:
        t = (x - mid) / rad
        b1 = b2 = mp.mpf(0)
        for ck in reversed(c[1:]):
            b1, b2 = 2 * t * b1 - b2 + ck, b1
        return t * b1 - b2 + c[0]

    m = n + 2
    # the extrema of T_{N+2} without the right end: a symmetric reference would make the
    # levelled system degenerate (h = 0) for even or odd f, whose best approximations
    # may equioscillate at N + 3 points
    ref = [mid - rad * mp.cos(mp.pi * i / m) for i in range(m)]
    # dense grid: Chebyshev-distributed (extrema of e cluster near the ends)
    G = max(40 * m, 400)
    grid = [mid - rad * mp.cos(mp.pi * i / (G - 1)) for i in range(G)]
    fgrid = [fval(x) for x in grid]
    coeffs, h, emax, it, converged = [mp.mpf(0)] * (n + 1), mp.mpf(0), mp.inf, 0, False
    for it in range(1, max_iter + 1):  # noqa: B007 - the count is returned
        report(progress, f"remez degree {n}: iterations", it - 1, None)
        M = mp.matrix(m, m)
        rhs = mp.matrix(m, 1)
        for i, x in enumerate(ref):
            t = (x - mid) / rad
            t0, t1 = mp.mpf(1), t
            for j in range(n + 1):
                M[i, j] = t0
                t0, t1 = t1, 2 * t * t1 - t0
            M[i, n + 1] = (-1) ** i
            rhs[i] = fval(x)
        try:
            sol = mp.lu_solve(M, rhs)
        except ZeroDivisionError:
            break
        coeffs = [sol[j] for j in range(n + 1)]
        h = sol[n + 1]

        def err(x: Any, c: list = coeffs) -> Any:
            return fval(x) - cheb(c, x)

        eg = [fg - cheb(coeffs, x) for x, fg in zip(grid, fgrid)]
        cands = []
        for i in range(G):
            left = abs(eg[i - 1]) if i > 0 else mp.mpf(-1)
            right = abs(eg[i + 1]) if i < G - 1 else mp.mpf(-1)
            if abs(eg[i]) >= left and abs(eg[i]) >= right:
                if 0 < i < G - 1:
                    x = _golden(lambda x: abs(err(x)), grid[i - 1], grid[i + 1])
                    if abs(err(x)) < abs(eg[i]):
                        x = grid[i]
                else:
                    x = grid[i]
                cands.append((x, err(x)))
        new = _exchange(cands, m)
        if new is None:
            break
        ref = [x for x, _ in new]
        emax = max(abs(e) for _, e in cands)
        emin = min(abs(e) for _, e in new)
        if emax <= (1 + tol) * emin:
            converged = True
            break
    return coeffs, ref, h, emax, it, converged


def _golden(g: Any, lo: Any, hi: Any, steps: int = 40) -> Any:
    """Maximise ``g`` on ``[lo, hi]`` by golden-section search (unimodal assumed)."""
    mp = mpmath
    r = (mp.sqrt(5) - 1) / 2
    x1, x2 = hi - r * (hi - lo), lo + r * (hi - lo)
    g1, g2 = g(x1), g(x2)
    for _ in range(steps):
        if g1 < g2:
            lo, x1, g1 = x1, x2, g2
            x2 = lo + r * (hi - lo)
            g2 = g(x2)
        else:
            hi, x2, g2 = x2, x1, g1
            x1 = hi - r * (hi - lo)
            g1 = g(x1)
    return x1 if g1 >= g2 else x2


def _exchange(cands: list, m: int) -> list | None:
    """One extremum per run of constant sign (the largest), trimmed to ``m`` from the ends."""
    runs: list = []
    for x, e in sorted(cands, key=lambda c: c[0]):
        if e == 0:
            continue
        if runs and (runs[-1][1] > 0) == (e > 0):
            if abs(e) > abs(runs[-1][1]):
                runs[-1] = (x, e)
        else:
            runs.append((x, e))
    if len(runs) < m:
        return None
    while len(runs) > m:
        # drop an end point: the smaller one, unless that would drop the global maximum
        if abs(runs[0][1]) <= abs(runs[-1][1]):
            runs.pop(0)
        else:
            runs.pop()
    return runs
