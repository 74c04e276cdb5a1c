"""Local Taylor expansions of a Chebyshev series on a short piece, without an exact shift.

For ``p(x) = sum_{k<=N} c_k T_k(u)`` on ``[a, b]`` (``u = (2x - a - b)/(b - a)``) and a piece
``[m - r, m + r]`` of it, write ``u = s0 + s1 t`` (``s0 = u(m)``, ``s1 = 2r/(b - a)``,
``|t| <= 1``) and ``p(m + r t) = sum_j q_j t^j``.  An exact Taylor shift of the monomial form
costs ``O(N^2)`` operations on numbers of ``O(N)`` bits per piece; a near-best
approximation only needs the first few ``q_j`` and a bound of the rest:

* **Head.**  ``P(u) = sum_i a_i u^i`` is the exact monomial form in ``u`` (Clenshaw's
  recurrence on exact polynomials, computed once).  ``q_j = s1^j D_j(s0)`` with
  ``D_j = P^(j) / j!`` (exact derivatives), each evaluated in ball arithmetic (FLINT's
  Horner scheme on ``arb_poly``): the balls contain the exact ``q_j``.  The precision is
  raised by the bits lost to cancellation, ``log2(sum_i |a_i| |s0|^i / scale)`` (estimated
  in floats: it only decides how tight the balls are).  With ``J > N`` every coefficient
  is in the head (FLINT's composition ``P(s0 + s1 t)``) and there is no tail.
* **Tail** (Cauchy's estimate on a Bernstein ellipse).  For ``rho > 1`` let ``E_rho`` be the
  closed region bounded by the ellipse with foci ``+-1`` and semi-axes
  ``A = (rho + 1/rho)/2``, ``B = (rho - 1/rho)/2`` (``A^2 - B^2 = 1``).  On its boundary
  ``u = (z + 1/z)/2`` with ``|z| = rho`` and ``T_k(u) = (z^k + z^-k)/2``, so
  ``|T_k| <= rho^k`` on ``E_rho`` (maximum principle) and ``|p| <= M = sum |c_k| rho^k``
  there.  The squared distance from a real ``s0`` with ``|s0| < 1`` to the boundary point
  ``(A cos th, B sin th)`` is ``(cos th - A s0)^2 + B^2 (1 - s0^2)`` (expand and use
  ``A^2 - B^2 = 1``), so the disc ``|u - s0| <= R`` lies in ``E_rho`` when
  ``max(0, A |s0| - 1)^2 + B^2 (1 - s0^2) >= R^2`` -- checked in ball arithmetic.  With
  ``R = lam s1`` (``lam > 1``) the polynomial ``g(t) = p(m + r t)`` is bounded by ``M`` on
  ``|t| = lam``, and Cauchy's estimate ``|q_j| <= M lam^-j`` gives, with ``y = 1/lam``,
  ``sum_{j>=J} |q_j| <= M y^J / (1 - y)`` and
  ``sum_{j>=J} j |q_j| <= M y^J (J - (J - 1) y) / (1 - y)^2``.
  ``lam`` (a power of two) and ``rho`` are chosen in floats near the optimum
  ``lam ~ J / phi``, ``phi = N s1 / sqrt(1 - s0^2)``: any admissible pair gives a valid
  bound; the choice only makes it small.

Guarantee
---------
The head balls contain the exact ``q_j``; the tail bounds hold (exact rationals and arb
balls only; floats choose precisions, ``lam`` and ``rho``, never a verdict).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from flint import arb, arb_poly, ctx, fmpq, fmpq_poly

from .poly import Poly, chebyshev_inner, height, shift_cost
from .report import afford

__all__ = ["HEAD_LIMIT", "LocalTaylor", "ChebyshevLocal", "local_of"]

#: beyond this many head coefficients the whole expansion is formed at once (no tail)
HEAD_LIMIT = 32
#: precisions at which the derivatives are kept as ball polynomials (most recent first)
_CACHED_PRECISIONS = 6


@dataclass
class LocalTaylor:
    """``p(m + r t) = sum_j q_j t^j``: ``head`` holds balls containing ``q_0 .. q_{J-1}``;
    ``tail >= sum_{j>=J} |q_j|`` and ``slope_tail >= sum_{j>=J} j |q_j|`` (both 0 when
    the head holds every coefficient)."""

    head: list[arb]
    tail: arb
    slope_tail: arb


class ChebyshevLocal:
    """Local expansions of ``sum c_k T_k(u)`` on ``[a, b]`` (module docstring)."""

    def __init__(self, coeffs: list[fmpq], a: fmpq, b: fmpq) -> None:
        cs = list(coeffs)
        while len(cs) > 1 and cs[-1] == 0:
            cs.pop()
        self.coeffs = cs
        self.a, self.b = a, b
        self.degree = len(cs) - 1
        steps = max((height(c) for c in cs), default=1)
        afford(f"converting {len(cs)} chebyshev coefficients to the monomial basis",
               *shift_cost(len(cs), steps, 1))
        self.mono: fmpq_poly = chebyshev_inner(cs)
        self._exact: list[fmpq_poly] = [self.mono]  # D_j = P^(j) / j!, exact
        self._balls: dict[int, list[arb_poly]] = {}  # prec -> [D_0, D_1, ...] as balls
        with ctx.workprec(64):
            self._size = arb_poly([abs(c) for c in self.mono.coeffs()] or [0])
            self._abs_c = arb_poly([abs(c) for c in cs])

    def u_of(self, x: fmpq) -> fmpq:
        return (2 * x - self.a - self.b) / (self.b - self.a)

    def cancellation_bits(self, s0: fmpq, scale: fmpq) -> int:
        """Bits lost evaluating the monomial form at ``s0`` relative to ``scale`` (a float
        estimate of ``log2(sum |a_i| |s0|^i / scale)``, at least 0)."""
        with ctx.workprec(64):
            size = self._size(arb(abs(s0)))
            top = size.upper()
            log2_size = float(top.log() / arb(2).log()) if top > 0 else -math.inf
        log2_scale = _log2(scale) if scale > 0 else -1e9
        if not math.isfinite(log2_size):
            return 0
        return max(0, min(2**20, math.ceil(log2_size - log2_scale)))

    def _derivatives(self, prec: int, J: int) -> list[arb_poly]:
        while len(self._exact) < J:
            j = len(self._exact)
            self._exact.append(self._exact[-1].derivative() / j)
        got = self._balls.pop(prec, [])
        with ctx.workprec(prec):
            while len(got) < J:
                got.append(arb_poly(self._exact[len(got)]))
        self._balls[prec] = got  # most recently used last
        while len(self._balls) > _CACHED_PRECISIONS:
            del self._balls[next(iter(self._balls))]
        return got

    def taylor(self, m: fmpq, r: fmpq, J: int, prec: int) -> LocalTaylor:
        """The expansion of ``p(m + r t)`` with ``J`` head coefficients at ``prec`` bits
        (``J > HEAD_LIMIT`` or ``J > N``: all of them, no tail)."""
        s0, s1 = self.u_of(m), 2 * r / (self.b - self.a)
        N = self.degree
        if J > min(N, HEAD_LIMIT):
            with ctx.workprec(prec):
                g = self.mono_ball(prec)(arb_poly([arb(s0), arb(s1)]))
                head = list(g.coeffs())
            return LocalTaylor(head + [arb(0)] * (N + 1 - len(head)), arb(0), arb(0))
        ds = self._derivatives(prec, J)
        with ctx.workprec(prec):
            x, step = arb(s0), arb(s1)
            head, power = [], arb(1)
            for d in ds[:J]:
                head.append(d(x) * power)
                power *= step
        tail, slope = self._tail(s0, s1, J)
        return LocalTaylor(head, tail, slope)

    def mono_ball(self, prec: int) -> arb_poly:
        return self._derivatives(prec, 1)[0]

    def _tail(self, s0: fmpq, s1: fmpq, J: int) -> tuple[arb, arb]:
        """``(sum_{j>=J} |q_j|, sum_{j>=J} j |q_j|)`` bounded above (module docstring);
        ``(inf, inf)`` when no admissible ellipse was found."""
        N = self.degree
        w2 = 1 - s0 * s0
        inf = arb("inf")
        if w2 <= 0 or s1 <= 0:  # (never for a piece inside (a, b))
            return inf, inf
        log2_phi = math.log2(N) + _log2(s1) - _log2(w2) / 2
        e = max(1, min(4096, round(math.log2(J) - log2_phi)))
        lam = fmpq(2) ** e
        R = lam * s1
        with ctx.workprec(128):
            rho = _admissible_rho(abs(s0), w2, R)
            if rho is None:
                return inf, inf
            M = self._abs_c(rho)
            y = arb(1 / lam)
            yJ = y**J
            one = arb(1)
            tail = M * yJ / (one - y)
            slope = M * yJ * (J - (J - 1) * y) / (one - y) ** 2
            return arb(tail.upper()), arb(slope.upper())


def _log2(q: fmpq) -> float:
    """``log2(q)`` for ``q > 0`` as a float (any size: from the bit lengths first)."""
    p, d = int(q.p), int(q.q)
    shift = max(0, p.bit_length() - 64), max(0, d.bit_length() - 64)
    return math.log2(p >> shift[0]) + shift[0] - math.log2(d >> shift[1]) - shift[1]


def _inside(s0: fmpq, w2: fmpq, R: fmpq, eps: arb) -> bool:
    """Whether the disc ``|u - s0| <= R`` lies in ``E_rho``, ``rho = 1 + eps`` (certain)."""
    one = arb(1)
    A = 1 + eps * eps / (2 * (one + eps))  # (rho + 1/rho) / 2
    B = eps * (2 + eps) / (2 * (one + eps))  # (rho - 1/rho) / 2
    gap = A * arb(s0) - 1
    # a lower bound of the squared distance: max(0, gap)^2 >= 0, and = gap^2 when gap > 0
    d2 = B * B * arb(w2) + (gap * gap if gap > 0 else arb(0))
    return bool(d2 > arb(R) * arb(R))


def _admissible_rho(s0: fmpq, w2: fmpq, R: fmpq) -> arb | None:
    """An exact ``rho = 1 + eps`` (an arb point) with the disc ``|u - s0| <= R`` inside
    ``E_rho``, near the least such ``rho``; None if none was found."""
    w = arb(w2).sqrt()
    Bn = arb(R) / w  # B = Bn: the disc fits when A |s0| <= 1
    cands = [Bn + Bn * Bn / ((Bn * Bn + 1).sqrt() + 1)]  # eps with B(1 + eps) = Bn
    an1 = R - (1 - s0)  # A - 1 needed when the nearest point is a vertex
    if an1 > 0:
        t = arb(an1)
        cands.append(t + (t * (t + 2)).sqrt())  # eps with A(1 + eps) = 1 + an1
    best: arb | None = None
    for c in cands:
        eps = arb(c.upper())
        for _ in range(4):
            if _inside(s0, w2, R, eps):
                if best is None or eps < best:
                    best = eps
                break
            eps = arb((eps * (1 + arb(2) ** -20)).upper())
    return None if best is None else 1 + best


#: the expansions of the most recent polynomial (a chebyshev ``Poly`` is immutable once read)
_LAST: list[tuple[Poly, ChebyshevLocal]] = []


def local_of(p: Poly) -> ChebyshevLocal:
    """The :class:`ChebyshevLocal` of a univariate chebyshev-basis ``p`` (kept for the
    next call with the same ``p``)."""
    if _LAST and _LAST[0][0] is p:
        return _LAST[0][1]
    dom = p.domains[0]
    if p.basis != "chebyshev" or p.d != 1 or dom is None:
        raise ValueError("local_of: a univariate chebyshev-basis polynomial")
    loc = ChebyshevLocal(p.coeffs, dom[0], dom[1])
    _LAST[:] = [(p, loc)]
    return loc
