"""Rigorous enclosures of an exact univariate polynomial at many rational points.

:func:`enclose_at` returns, for an exact ``P`` (``fmpq_poly``) and points ``xs``, arb balls
that contain ``P(x)`` exactly, with absolute radius about ``2^-bits`` (not guaranteed: the
caller decides from the balls and falls back to exact arithmetic where they are too wide).
It never decides anything itself; every ball is a rigorous enclosure:

1. ``G(t) = P(c + h t)`` (``c``: an integer near the centre of the points, ``h``: the
   largest distance of a point from it), so the points lie in ``t in [-1, 1]``: with
   ``P = N / D`` (integer ``N``), ``N(c + u)`` is one exact integer Taylor shift and
   ``g_j = [u^j] N(c + u) h^j / D`` is enclosed in arb balls at a precision covering the
   largest ``|g_j|`` plus ``bits``.
2. The sorted points are cut into blocks; for a block with centre ``t_b`` and half-width
   (rounded up) ``r_b`` the ball polynomial ``G_b(s) = G(t_b + r_b s)`` (arb ``compose``: its balls
   contain the exact coefficients) is truncated after the last term whose magnitude
   matters; the dropped terms are bounded by ``sum_{j > m} |g_j|`` (``|s| <= 1``) and that
   bound is added to every value as a radius.
3. Each point is evaluated by Horner in arb at ``s = (x - x_b) / w_b`` (``w_b`` a power
   of two >= the half-width, so ``s`` is exact and short for integer points; other points
   are rounded outward), at a precision set from the block's coefficient magnitudes.

A monomial polynomial of high degree evaluated directly needs about as many bits as its
largest term ``|p_j| x^j`` (tens of thousands for the OR/AND certificates); locally, in a
block, the terms are small and decay, so the Horner loops are short and cheap.
"""

from __future__ import annotations

from collections.abc import Callable

from flint import arb, arb_poly, fmpq, fmpq_poly, fmpz_poly

from .expr import ipow
from .numbers import working
from .poly import shift_cost
from .report import afford

__all__ = ["enclose_at"]

#: a block is split in two while it has at least 2 MIN_BLOCK points and more than SPLIT
#: times as many points as terms (a split costs two Taylor shifts of its polynomial; the
#: halves have shorter, lower-precision polynomials)
MIN_BLOCK = 32
SPLIT = 1
ROOT_PARTS = 12


def _log2_upper(q: fmpq) -> int:
    """An integer ``E`` with ``|q| < 2^E`` (``q != 0``)."""
    return int(abs(q.p).bit_length() - abs(q.q).bit_length() + 1)


def _log2_ball(b: arb) -> int:
    """An integer ``E`` with ``|b| <= 2^E`` for every point of the (finite) ball ``b``."""
    u = b.abs_upper()
    if u == 0:
        return -(10**9)
    m, e = u.man_exp()
    return int(m.bit_length() + e)


def _pow2_at_least(q: fmpq) -> fmpq:
    """The least power of two ``>= q`` (``q > 0``)."""
    e = _log2_upper(q)
    while fmpq(2) ** (e - 1) >= q:
        e -= 1
    return fmpq(2) ** e


def _truncate(A: arb_poly, floor_e: int) -> tuple[list[arb], arb, int]:
    """(kept coefficients, bound of the dropped terms on |s| <= 1, max log2 of the kept)."""
    cb = A.coeffs()
    mags = [_log2_ball(t) for t in cb]
    m = max((j for j, e in enumerate(mags) if e > floor_e), default=0)
    tail = sum((t.abs_upper() for t in cb[m + 1:]), arb(0))
    return cb[:m + 1], tail, max(mags[:m + 1], default=0)


def enclose_at(P: fmpq_poly, xs: list[fmpq], bits: int,
               tick: Callable[[], None] = lambda: None) -> list[arb]:
    """Balls containing ``P(x)`` for every ``x`` in ``xs`` (same order); ``bits`` >= 0 is
    the absolute accuracy aimed at (``2^-bits``).  Rigorous; see the module docstring."""
    if not xs:
        return []
    n = int(P.degree())
    if n < 1:
        c0 = P(fmpq(0)) if n == 0 else fmpq(0)
        return [arb(c0)] * len(xs)
    lo, hi = min(xs), max(xs)
    if lo == hi:
        v = P(lo)
        return [arb(v)] * len(xs)
    # P(c + h t) = N(c + h t) / D with an integer centre c: one exact Taylor shift of the
    # integer numerator (no fractions to reduce), then the scaling by h^j / D in balls
    c = fmpq((lo + hi).p // (2 * (lo + hi).q))
    h = max(c - lo, hi - c)
    num, den = P.numer(), P.denom()
    afford(f"a Taylor shift of degree {n}", *shift_cost(
        n + 1, max(int(v.bit_length()) for v in num.coeffs()), int(c.p.bit_length()) + 1))
    ns = num(fmpz_poly([c.p, 1])).coeffs()
    hbits = _log2_upper(h)
    top = max((int(v.bit_length()) + j * hbits for j, v in enumerate(ns) if v != 0), default=0)
    top -= int(den.bit_length()) - 1
    extra = 2 * n.bit_length() + 16
    floor_e = -bits - extra
    prec = max(64, top + bits + extra)
    out: list[arb] = [arb(0)] * len(xs)
    with working(prec + 16):
        hb, db = arb(h), arb(den)
        root = arb_poly([arb(v) * ipow(hb, j) / db for j, v in enumerate(ns)])
    # (sorted indices, ball polynomial in s, centre, half-width, slack, precision):
    # P(x) is in poly((x - centre) / width) + [-slack, slack] for the block's points
    todo = [(sorted(range(len(xs)), key=lambda i: xs[i]), root, c, h, arb(0), prec)]
    while todo:
        tick()
        idx, A, xb, wb, slack, wprec = todo.pop()
        if len(idx) >= 2 * MIN_BLOCK and len(idx) > SPLIT * (A.degree() + 1):
            # the root's halves keep nearly all its terms: cut it in ROOT_PARTS at once
            k = min(ROOT_PARTS if A is root else 2, len(idx) // MIN_BLOCK)
            coeffs = A.coeffs()
            with working(64):
                sizes = arb_poly([t.abs_upper() for t in coeffs])
            for j in range(k):
                part = idx[j * len(idx) // k:(j + 1) * len(idx) // k]
                a, b = xs[part[0]], xs[part[-1]]
                if a == b:
                    for i in part:
                        out[i] = arb(P(xs[i]))
                    continue
                # a power of two >= the half-width: s = (x - xc) / wc then has a short
                # mantissa for integer (or short dyadic) points: cheap Horner steps
                xc, wc = (a + b) / 2, _pow2_at_least((b - a) / 2)
                t0, r = (xc - xb) / wb, wc / wb
                # the shift loses about log2(sum_j |a_j| (|t0| + r)^j) bits: work with that
                # many more than needed (fewer than wprec away from the ends of the parent)
                with working(64):
                    lost = _log2_ball(sizes(arb(abs(t0) + r)))
                sprec = min(wprec, max(64, lost + bits + extra))
                with working(sprec):
                    As = A if sprec == wprec else arb_poly([t + 0 for t in coeffs])
                    Ac = As(arb_poly([arb(t0), arb(r)]))
                    kept, tail, mag = _truncate(Ac, floor_e)
                    more = slack + tail
                cprec = max(64, mag + bits + extra)
                with working(cprec):
                    T = arb_poly([t + 0 for t in kept])  # rounded to cprec bits
                todo.append((part, T, xc, wc, more, cprec))
            continue
        with working(wprec):
            err = arb(0, slack)  # [-slack, slack]: the terms dropped on the way
            for i in idx:
                out[i] = A(arb((xs[i] - xb) / wb)) + err
    return out
