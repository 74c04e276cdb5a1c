"""Machine-number coefficients near the best approximation, by lattice reduction (a search).

Problem.  Given ``f``, a weight ``w`` and a family ``p_fix + span{x^k : k in free}``
(:mod:`dpverify.family`), find coefficients ``c_k`` that are numbers of given binary
formats (binary64, binary32) making ``max |w (f - p)|`` small.  Rounding each coefficient
of the best (real) approximation ``p*`` to its format loses accuracy as the degree grows;
Brisebarre and Chevillard (*Efficient polynomial L-infinity approximations*, ARITH 18,
2007) cast the choice as a closest vector problem, which Sollya's ``fpminimax`` solves;
this module follows their method:

1. **Exponents.**  A number of a format with ``t`` bits is ``c = m 2^e`` with ``|m| <= 2^t``;
   ``e_k = floor(log2 |c*_k|) - t_k + 1`` from the real coefficient (at least the
   format's smallest quantum, ``2^(emin - t + 1)``).  Only the integers ``m_k`` are
   unknown.
2. **Points.**  ``p*`` interpolates ``f`` where the error ``w (f - p*)`` vanishes: the
   ``|free|`` zeros between consecutive alternation points (found by bracketed secant
   steps on the error evaluated in ball arithmetic).  Asking ``p`` to interpolate ``f``
   there asks it to be ``p*``.  Other point sets are tried too (the zeros with the
   alternation points, Chebyshev nodes).
3. **Lattice.**  At points ``x_1..x_M``: the vectors ``v_k = (w(x_i) 2^(e_k) x_i^k)_i``
   and the target ``y = (w(x_i) (f - p_fix)(x_i))_i``; integers ``m`` with ``sum m_k v_k``
   close to ``y`` solve the problem at the points.  Kannan's embedding: the rows
   ``(v_k, 0)`` and ``(y, K)`` scaled to integers (the real minimax error resolved to
   ``2^-20``) are reduced by LLL (``fmpz_mat.lll`` of python-flint, with the transform);
   every reduced row whose target coefficient is ``+-1`` gives a candidate ``m`` (two
   embedding constants: about the expected residual, and Sollya's ``M max |entry|``), and
   so do those rows plus or minus the other short rows.
4. **Refinements.**  The exponents are recomputed from the chosen coefficients and the
   lattice solved again until they agree (as Sollya); then a coordinate descent on the
   integers (``m_k +- 1, +-2``, and pairs ``+-1``) lowers the largest error on a grid.

Candidates are compared by their error on a grid (about 24 points per gap between the
extrema of ``p*``'s error, and those extrema), computed as ``e*(x) - w(x) sum_k (c_k -
c*_k) x^k`` with ``e* = w (f - p*)`` evaluated once in ball arithmetic: the difference of
two close polynomials is accurate in float64, so the grid errors are accurate to about
``2^-50`` of the error itself, at the cost of a matrix product per candidate.

Everything here is a **search**: the returned polynomial's error is certified by
:func:`dpverify.machine.fpminimax` (:mod:`dpverify.certify.graded_supnorm`), and the
extrema found here are only hints.  The coefficients are exactly numbers of their formats
(checked by :meth:`Format.contains`).
"""

from __future__ import annotations

import itertools
import math
import time
from collections.abc import Sequence
from typing import Any

import numpy as np
from flint import arb, ctx, fmpq, fmpq_poly, fmpz_mat

from ..approximation import Approximation
from ..errors import DomainError, InvalidParameterError, TimeLimitExceeded
from ..exact import MonomialPoly
from ..expr import Expr
from ..family import Family
from ..numbers import fmpq_str, fmpq_to_decimal, to_fmpq
from .float_formats import FORMATS, Format, parse_formats

__all__ = ["Format", "FORMATS", "parse_formats", "machine_search", "GRID_PER_GAP"]

# Format, FORMATS and parse_formats live in .float_formats (re-exported here: the search
# and its callers name them together)

#: grid points per gap between consecutive extrema of the real minimax error
GRID_PER_GAP = 24
#: rounds of the exponent loop (Sollya: 10)
_EXPONENT_ROUNDS = 6
#: rounds of the coordinate descent
_DESCENT_ROUNDS = 40
#: the lattices resolve the error of rounding each coefficient times this (or the real
#: error, when larger)
_EFF_RATIO = 2.0**-24
#: directions whose pairs the descent tries (half coefficients, half reduced directions)
_PAIR_BASE = 32


class _Errors:
    """``w (f - p*)`` in ball arithmetic at points, and the float data of candidates."""

    def __init__(self, f: Expr, w: Expr | None, pstar: fmpq_poly, prec: int) -> None:
        self.f, self.w, self.pstar, self.prec = f, w, pstar, prec

    def balls(self, x: fmpq) -> tuple[arb, arb]:
        """``(f(x), w(x))`` as balls at the working precision."""
        with ctx.workprec(self.prec):
            xb = arb(x)
            fx = self.f.eval_arb(xb)
            wx = arb(1) if self.w is None else self.w.eval_arb(xb)
        if not isinstance(fx, arb) or not isinstance(wx, arb):
            raise DomainError("f or the weight has no value")
        return fx, wx

    def at(self, x: fmpq) -> tuple[float, float]:
        """``(w(x) (f - p*)(x), w(x))`` as floats (midpoints of balls)."""
        fx, wx = self.balls(x)
        with ctx.workprec(self.prec):
            e = wx * (fx - arb(self.pstar(x)))
        if not (e.is_finite() and wx.is_finite()):
            raise DomainError(f"f or the weight is not finite at x = {fmpq_to_decimal(x, 15)}")
        return float(e.mid()), float(wx.mid())

    def target(self, x: fmpq, pfix: fmpq_poly) -> arb:
        """``w(x) (f - p_fix)(x)`` as a ball."""
        fx, wx = self.balls(x)
        with ctx.workprec(self.prec):
            out: arb = wx * (fx - arb(pfix(x)))
        return out

    def weight(self, x: fmpq) -> arb:
        return self.balls(x)[1]


def _dyadic(v: float) -> fmpq:
    n, d = float(v).as_integer_ratio()
    return fmpq(n, d)


def _zeros(err: _Errors, alt: list[fmpq]) -> list[fmpq]:
    """A zero of ``w (f - p*)`` between each pair of consecutive alternation points
    (bracketed secant, Illinois variant), as dyadics."""
    out = []
    vals = [err.at(x)[0] for x in alt]
    for (lo, hi), (elo, ehi) in zip(zip(alt, alt[1:]), zip(vals, vals[1:])):
        if elo == 0 or ehi == 0 or (elo > 0) == (ehi > 0):
            out.append((lo + hi) / 2)
            continue
        a, b, fa, fb = float(lo), float(hi), elo, ehi
        side = 0
        for _ in range(60):
            c = (a * fb - b * fa) / (fb - fa)
            if not a < c < b:
                c = (a + b) / 2
            fc = err.at(_dyadic(c))[0]
            if fc == 0 or b - a <= 4e-16 * max(abs(a), abs(b), 1e-300):
                a = b = c
                break
            if (fc > 0) == (fb > 0):
                b, fb = c, fc
                if side == 1:
                    fa /= 2
                side = 1
            else:
                a, fa = c, fc
                if side == -1:
                    fb /= 2
                side = -1
            if b - a <= 1e-15 * max(abs(a), abs(b)):
                break
        out.append(_dyadic((a + b) / 2))
    return out


def _grid(a: fmpq, b: fmpq, hints: list[fmpq]) -> list[fmpq]:
    """Points for comparing candidates: the extrema hints, the ends, and ``GRID_PER_GAP``
    Chebyshev-distributed points in every gap between them (dyadic floats)."""
    nodes = sorted({a, b} | {x for x in hints if a <= x <= b})
    pts: set[fmpq] = set(nodes)
    K = GRID_PER_GAP
    fr = [(1 - math.cos(math.pi * (j + 1) / (K + 1))) / 2 for j in range(K)]
    for lo, hi in zip(nodes, nodes[1:]):
        L = float(hi - lo)
        for t in fr:
            pts.add(_dyadic(float(lo) + L * t))
    return sorted(x for x in pts if a <= x <= b)


class _Candidates:
    """Grid errors of candidate coefficient vectors (module docstring)."""

    def __init__(self, estar: np.ndarray, W: np.ndarray, cstar: list[fmpq],
                 quanta: list[fmpq]) -> None:
        self.estar, self.W = estar, W  # W[i, k] = w(x_i) x_i^k
        self.cstar, self.quanta = cstar, quanta

    def delta(self, c: Sequence[fmpq]) -> np.ndarray:
        return np.array([float(ck - cs) for ck, cs in zip(c, self.cstar)])

    def errors(self, c: Sequence[fmpq]) -> np.ndarray:
        return np.asarray(self.estar - self.W @ self.delta(c))

    def sup(self, c: Sequence[fmpq]) -> float:
        return float(np.max(np.abs(self.errors(c))))


def _exponents(coeffs: list[fmpq], formats: list[Format], zero_exp: list[int]) -> list[int]:
    """The quantum exponent of each coefficient in its format (``zero_exp`` for 0: a
    quantum far below the error)."""
    return [fm.quantum_exp(c) if c != 0 else fe for c, fm, fe in zip(coeffs, formats, zero_exp)]


def _lattice(target: list[arb], W: list[list[arb]], quanta: list[fmpq], scale_exp: int,
             residual: fmpq) -> list[list[int]]:
    """Candidate integer vectors ``m`` (module docstring, step 3) for the points whose
    data are ``target[i]`` and ``W[i][k] = w(x_i) x_i^k``, the entries scaled by
    ``2^scale_exp`` and rounded to integers (``residual``: about the error expected at a
    point, for the embedding constant)."""
    M, m = len(target), len(quanta)
    S = fmpq(2) ** scale_exp if scale_exp >= 0 else fmpq(1, 2 ** (-scale_exp))

    def to_int(v: arb, q: fmpq) -> int:
        man, ex = v.mid().man_exp()
        e = int(ex)
        val = fmpq(int(man)) * (fmpq(2) ** e if e >= 0 else fmpq(1, 2 ** (-e))) * q * S
        return _round_int(val)

    rows = [[to_int(W[i][k], quanta[k]) for i in range(M)] + [0] for k in range(m)]
    trow = [to_int(target[i], fmpq(1)) for i in range(M)]
    big = max([abs(v) for r in rows for v in r] + [1])
    return _embedded(rows, trow, [max(1, _round_int(residual * S)), big * M])


def _cvp_pstar(pts: list[fmpq], wts: list[float], target: list[tuple[int, fmpq]],
               basis: list[tuple[int, fmpq]], scale_exp: int) -> list[list[int]]:
    """Candidates closest to ``p*`` itself at the points (weights ``wts``): the lattice of
    the ``w(x_i) q_k x_i^k`` (``basis``: ``(k, q_k)``) and the exact target ``w(x_i)
    sum c_k x_i^k`` (``target``: ``(k, c_k)``, the real coefficients less any part kept
    out of the lattice), entries scaled by ``2^scale_exp`` and rounded (as
    :func:`_lattice`: the smallest columns keep their digits); Kannan's embedding as
    :func:`_lattice`."""
    wq = [_dyadic(w) for w in wts]
    cols = [[wi * q * x ** k for x, wi in zip(pts, wq)] for k, q in basis]
    S = fmpq(2) ** scale_exp if scale_exp >= 0 else fmpq(1, 2 ** (-scale_exp))
    rows = [[_round_int(v * S) for v in c] + [0] for c in cols]
    trow = [_round_int(wi * sum((c * x ** k for k, c in target), fmpq(0)) * S)
            for x, wi in zip(pts, wq)]
    big = max([abs(v) for r in rows for v in r] + [1])
    return _embedded(rows, trow, [1, big * len(pts)])


def _embedded(rows: list[list[int]], trow: list[int], embs: list[int]) -> list[list[int]]:
    """Kannan's embedding of the target row ``trow`` for each constant of ``embs``: the
    integer vectors of the reduced rows whose target coefficient is ``+-1`` (and those rows
    plus or minus the first short rows)."""
    m = len(rows)
    out: list[list[int]] = []
    for emb in embs:
        B = fmpz_mat(rows + [trow + [emb]])
        try:
            _, T = B.lll(True)
        except (ValueError, ZeroDivisionError):
            continue
        Ti = [[int(T[r, c]) for c in range(m + 1)] for r in range(m + 1)]
        hits = [r for r in range(m + 1) if abs(Ti[r][m]) == 1]
        others = [r for r in range(m + 1) if Ti[r][m] == 0]
        for r in hits:
            s = Ti[r][m]
            base = [-s * Ti[r][k] for k in range(m)]
            out.append(base)
            for o in others[:4]:
                for sg in (1, -1):
                    out.append([base[k] - s * sg * Ti[o][k] for k in range(m)])
    return out


def _directions(W: np.ndarray, quanta: list[fmpq]) -> list[list[int]]:
    """Integer moves that change the error little: the LLL-reduced basis (as integer
    combinations of the coefficients) of the lattice of the columns ``q_k w x^k`` on the
    grid ``W`` (a subsample), scaled to 2^60."""
    cols = [W[::3, k] * float(q) for k, q in enumerate(quanta)]
    mx = max(float(np.max(np.abs(c))) for c in cols)
    if not mx > 0 or not math.isfinite(mx):
        return []
    sc = 2.0**60 / mx
    rows = [[int(round(v * sc)) for v in c] for c in cols]
    try:
        _, T = fmpz_mat(rows).lll(True)
    except (ValueError, ZeroDivisionError):
        return []
    n = len(quanta)
    return [[int(T[r, c]) for c in range(n)] for r in range(n)]


def _check_time(deadline: float | None) -> None:
    if deadline is not None and time.monotonic() > deadline:
        raise TimeLimitExceeded("time limit reached in the lattice search of fpminimax")


def _descent(cand: _Candidates, m: list[int], limits: list[int], deadline: float | None,
             dirs: list[list[int]]) -> list[int]:
    """Descent on the integers: steps +-1, +-2 along each coefficient and each reduced
    direction of :func:`_directions`, then pairs of directions +-1, each ``|m_k| <=
    limits[k]`` (a number of the format at the quantum of ``m_k``)."""
    quanta = cand.quanta
    n = len(m)
    cur = cand.errors([fmpq(v) * q for v, q in zip(m, quanta)])
    best = float(np.max(np.abs(cur)))
    cols = np.stack([cand.W[:, k] * float(q) for k, q in enumerate(quanta)], axis=1)
    units = [[1 if i == j else 0 for j in range(n)] for i in range(n)]
    base = [d for d in units + dirs if any(d)]
    moves = [[s * v for v in d] for d in base for s in (1, -1, 2, -2)]
    # pairs among the first _PAIR_BASE / 2 coefficients and reduced directions only (their
    # number grows as the square of the directions taken)
    near = units[:_PAIR_BASE // 2] + [d for d in dirs if any(d)][:_PAIR_BASE // 2]
    pairs = [[s * u + t * v for u, v in zip(near[i], near[j])]
             for i, j in itertools.combinations(range(len(near)), 2)
             for s in (1, -1) for t in (1, -1)]
    _check_time(deadline)
    vec = {id(d): cols @ np.array(d, dtype=float) for d in moves + pairs}
    for _ in range(_DESCENT_ROUNDS):
        improved = False
        for group in (moves, pairs):
            for i, d in enumerate(group):
                if i % 256 == 0:
                    _check_time(deadline)
                if any(abs(mk + dk) > lim for mk, dk, lim in zip(m, d, limits)):
                    continue
                trial = cur - vec[id(d)]
                v = float(np.max(np.abs(trial)))
                if v < best * (1 - 1e-12):
                    cur, best, improved = trial, v, True
                    m = [mk + dk for mk, dk in zip(m, d)]
            if improved:
                break
        if not improved:
            break
    return m


def machine_search(f: Expr, interval: tuple[fmpq, fmpq], real: Approximation,
                   family: Family, formats: list[Format], weight: Expr | None = None, *,
                   deadline: float | None = None) -> Approximation:
    """Machine-number coefficients for the family near ``real`` (module docstring; a
    search, no guarantee).

    Parameters
    ----------
    f : Expr
        The function.
    interval : (a, b)
        Exact ends.
    real : Approximation
        The (near-)best real approximation from the family, with ``extra["alternation"]``
        (``|free| + 1`` points) and ``extra["extrema"]``
        (:func:`dpverify.constructions.remez_family.remez_family`, or
        :func:`dpverify.constructions.remez.remez` for the dense family).
    family : Family
        Free powers and fixed coefficients (the fixed ones are kept as they are).
    formats : list of Format
        One per free power (:func:`parse_formats`).
    weight : Expr, optional
        ``w`` (``1/f`` for the relative error).
    deadline : float, optional
        A ``time.monotonic()`` instant.

    Returns
    -------
    Approximation
        ``construction="fpminimax"``, ``poly`` a :class:`~dpverify.exact.MonomialPoly`
        whose free coefficients are numbers of their formats; ``extra``: ``extrema``
        (the grid maxima of its error, hints for the certifier), ``estimate`` (the largest
        grid error, a search number), ``exponents``, ``candidates``, ``seconds``.

    Raises
    ------
    InvalidParameterError
        When a coefficient would overflow its format, or ``formats`` does not match the
        family.

    Examples
    --------
    >>> from dpverify.constructions.remez import remez
    >>> from dpverify.expr import parse
    >>> from dpverify.family import make_family
    >>> fam = make_family(4)
    >>> real = remez("exp(x)", 4, (-1, 1))
    >>> ap = machine_search(parse("exp(x)"), (fmpq(-1), fmpq(1)), real, fam,
    ...                     [FORMATS["binary32"]] * 5)
    >>> all(FORMATS["binary32"].contains(c) for c in ap.poly.coeffs)
    True
    """
    t0 = time.monotonic()
    a, b = interval
    free = list(family.free)
    if len(formats) != len(free):
        raise InvalidParameterError(f"formats must give one format per free power "
                                    f"({len(free)}), got {len(formats)}")
    pmono = real.poly.as_fmpq_poly() if real.poly.basis == "monomial" else \
        real.poly.to_monomial().as_fmpq_poly()
    cstar = [fmpq(pmono[k]) if k <= pmono.degree() else fmpq(0) for k in free]
    pfix = family.fixed_poly()
    E = _search_value(real.extra.get("levelled_error")) or 2.0 ** -60
    prec = max(128, int(-math.log2(E)) + 96)
    err = _Errors(f, weight, pmono, prec)
    # the smallest useful quantum: far below the error (a zero coefficient keeps it)
    xmax = max(abs(a), abs(b), fmpq(1, 2**30))
    floor_exp = []
    for k, fm in zip(free, formats):
        wk = float(xmax) ** k
        e_floor = math.floor(math.log2(E / max(wk, 1e-300))) - 8
        floor_exp.append(max(fm.min_quantum_exp, min(e_floor, 0)))
    exps = _exponents(cstar, formats, floor_exp)
    hints = [_q(x) for x in real.extra.get("extrema", [])]
    grid = _grid(a, b, hints)
    gvals = [err.at(x) for x in grid]
    estar = np.array([v[0] for v in gvals])
    wgrid = np.array([v[1] for v in gvals])
    xg = np.array([float(x) for x in grid])
    W = np.stack([wgrid * xg ** k for k in free], axis=1)
    alt = [_q(x) for x in real.extra.get("alternation", [])]
    zeros = _zeros(err, alt) if len(alt) >= 2 else []
    side = [_q(x) for x in real.extra.get("search_interval", [a, b])]
    star_sets = []
    # more points keep p - p* small between them; 4m only for small m (the lattice's cost)
    m = len(free)
    for count in (m,) + ((2 * m,) if m <= 24 else ()) + ((4 * m,) if m <= 16 else ()):
        pts = sorted({_dyadic(float((side[0] + side[1]) / 2) - float((side[1] - side[0]) / 2)
                              * math.cos(math.pi * (2 * i + 1) / (2 * count)))
                      for i in range(count)})
        star_sets.append((pts, [err.at(x)[1] for x in pts]))
    data = {}
    tried = 0
    best: tuple[float, list[fmpq], list[int]] | None = None
    for _ in range(_EXPONENT_ROUNDS):
        _check_time(deadline)
        quanta = [fmpq(2) ** e if e >= 0 else fmpq(1, 2 ** (-e)) for e in exps]
        cand = _Candidates(estar, W, cstar, quanta)
        rnd = [_round_int(c / q) for c, q in zip(cstar, quanta)]
        ms: list[list[int]] = [rnd]
        # the lattices aim at the error the formats allow, not far below what rounding
        # each coefficient gives (E of degree 60 is 1e-102: integers of 367 bits and
        # seconds per reduction); a coefficient whose quantum moves the error by less than
        # the lattice resolves moves in steps of 2^j quanta there (its large moves still
        # count: binary32 coefficients of high degree move far from p*'s), and the descent
        # then works quantum by quantum
        e_eff = max(E, cand.sup([fmpq(u) * q for u, q in zip(rnd, quanta)]) * _EFF_RATIO)
        # integer entries: their rounding (at most 1/2 each, times |m_k| < 2^t) must stay
        # 2^-20 below the error sought
        tmax = max(fm.precision for fm in formats)
        scale_exp = tmax + 20 + math.ceil(math.log2(len(free) + 1)) - \
            math.floor(math.log2(e_eff))
        unit = e_eff * 2.0 ** -(scale_exp - math.floor(math.log2(e_eff)))
        steps = []
        for i, q in enumerate(quanta):
            eff = float(q) * float(np.max(np.abs(W[:, i])))
            j = 0 if eff <= 0 else max(0, math.ceil(math.log2(2.0**10 * unit / eff)))
            steps.append(q * 2**j)

        def expand(sub: list[int], steps: list[fmpq] = steps,
                   quanta: list[fmpq] = quanta) -> list[int]:
            return [_round_int(fmpq(v) * st / q) for v, st, q in zip(sub, steps, quanta)]
        if len(zeros) >= len(free):
            for x in zeros:
                if x not in data:
                    data[x] = (err.target(x, pfix), [err.weight(x) * arb(x) ** k for k in free])
            ms += [expand(v) for v in _lattice([data[x][0] for x in zeros],
                                               [data[x][1] for x in zeros], steps, scale_exp,
                                               _dyadic(e_eff))]
        for pts, wts in star_sets:
            _check_time(deadline)
            ms += [expand(v) for v in _cvp_pstar(pts, wts, list(zip(free, cstar)),
                                                 list(zip(free, steps)), scale_exp)]
        round_best: tuple[float, list[int]] | None = None
        limits = [2 ** fm.precision for fm in formats]
        for mv in ms:
            tried += 1
            if tried % 64 == 0:
                _check_time(deadline)
            if any(abs(u) > lim for u, lim in zip(mv, limits)):
                # beyond the binade of its exponent: rounded to the format instead
                mv = [u if abs(u) <= lim else _round_int(fm.round(fmpq(u) * q) / q)
                      for u, lim, fm, q in zip(mv, limits, formats, quanta)]
            v = cand.sup([fmpq(u) * q for u, q in zip(mv, quanta)])
            if round_best is None or v < round_best[0]:
                round_best = (v, mv)
        assert round_best is not None
        mv = _descent(cand, list(round_best[1]), limits, deadline, _directions(W, quanta))
        coeffs = [fm.round(fmpq(u) * q) for u, q, fm in zip(mv, quanta, formats)]
        v = cand.sup(coeffs)
        if best is None or v < best[0]:
            best = (v, coeffs, exps)
        new = _exponents(coeffs, formats, floor_exp)
        if new == exps:
            break
        exps = new
    assert best is not None
    est, coeffs, exps = best
    for c, fm, k in zip(coeffs, formats, free):
        if not fm.contains(c):
            raise InvalidParameterError(f"the coefficient of x^{k} ({fmpq_to_decimal(c, 6)}) is "
                                        f"not a {fm.name} number (beyond its range?)")
    full: list[fmpq] = [fmpq(0)] * (family.degree + 1)
    for k, fv in family.fixed:
        full[k] = fv
    for k, c in zip(free, coeffs):
        full[k] = c
    poly = MonomialPoly(full)
    cand = _Candidates(estar, W, cstar, [fmpq(1)] * len(free))
    e = np.abs(cand.errors(coeffs))
    ext = [grid[i] for i in range(len(grid))
           if (i == 0 or e[i] >= e[i - 1]) and (i == len(grid) - 1 or e[i] >= e[i + 1])]
    return Approximation(
        construction="fpminimax",
        params={"f": f.canonical, "degree": family.degree,
                "interval": [fmpq_str(a), fmpq_str(b)],
                "formats": [fm.name for fm in formats], **family.statement()},
        poly=poly,
        target={"kind": "expr", "expr": f.canonical, "variables": ["x"]},
        domain={"kind": "box", "intervals": [[fmpq_str(a), fmpq_str(b)]]},
        extra={"extrema": [fmpq_str(x) for x in ext], "estimate": f"{est:.6g}",
               "exponents": exps, "candidates": tried,
               "seconds": round(time.monotonic() - t0, 3)},
    )


def _round_int(v: fmpq) -> int:
    return int((v.p * 2 + v.q) // (2 * v.q))


def _q(x: Any) -> fmpq:
    return x if isinstance(x, fmpq) else to_fmpq(x, "point")


def _search_value(text: Any) -> float | None:
    try:
        v = float(str(text))
    except ValueError:
        return None
    return v if v > 0 and math.isfinite(v) else None

