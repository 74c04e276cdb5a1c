"""Bound of ``sup |f - p|`` on one piece of a box in two or three variables.

For a piece with centre ``m``, half-widths ``r`` and order ``N >= 1``, with
``f_al = D^al f / al!`` and ``p(m + h) = sum_al p_al h^al`` (exact)::

    f(m + h) - p(m + h) = sum_{|al| <= N} e_al h^al - sum_{|al| > N} p_al h^al,
    e_al = f_al(m) - p_al  (|al| < N),   e_al = f_al(xi) - p_al  (|al| = N, xi in the piece)

(Taylor's formula with the Lagrange remainder).  The ``f_al`` are enclosed by evaluating
``f`` on truncated multivariate series: at the centre, and with constant terms the whole
piece for the remainder coefficients.  The polynomial ``sum_{|al| <= N} e_al h^al`` (ball
coefficients) is enclosed over the piece by its Bernstein coefficients of degree ``N`` per
axis (the Bernstein basis is non-negative and sums to 1 on the cube, so every value lies
between the least and the largest coefficient); the last sum is bounded by
``sum |p_al| r^al`` in exact arithmetic.  So::

    sup |f - p| <= max(hi, -lo) + sum_{|al| > N} |p_al| r^al.

*Series.*  A truncated series in ``d`` variables of total order ``n`` is stored as one
``arb_series`` in ``t`` through the substitution ``x_i -> t^(B^i + B^(d-1))`` (``i < d-1``),
``x_(d-1) -> t^(B^(d-1))``, ``B = n + 1``: the exponent of ``x^al`` is
``sum_{i<d-1} al_i B^i + |al| B^(d-1)`` (base-``B`` digits: the ``al_i``, then ``|al|``), so
the map is injective on ``|al| <= n`` and sends every monomial of total degree ``> n`` to
an exponent ``>= B^d``.  It is a substitution, hence a ring homomorphism, and it commutes
with composition by a power series; truncating at ``t^(B^d)`` is exactly truncating at
total order ``n``.  So :class:`~dpverify.verify.expr.SerAlg` of length ``B^d`` (Arb's series
arithmetic and functions) evaluates ``f`` on these series.

*Shift.*  ``p`` is taken to integers once: ``c_al = n_al / D`` over a common denominator;
with ``m_i = U_i / V_i``, ``q(x) = D prod_i V_i^(n_i - 1) p(x / V)`` has the integer
coefficients ``n_al prod_i V_i^(n_i - 1 - al_i)`` and ``p(m + h) = q(U + V h) / (D prod_i
V_i^(n_i - 1))``.  ``q(U + z)`` is one integer Taylor shift per fibre and axis (FLINT ``fmpz_poly``
composition); the shifts of the leading axes are kept for the next pieces (bisected
pieces share their leading centre coordinates).

Where ``f`` has no series on the piece the order-0 bound of :mod:`.taylor` is used.
"""

from __future__ import annotations

from collections import OrderedDict
from functools import lru_cache
from itertools import product
from math import comb, prod

from flint import arb, arb_mat, arb_series, ctx, fmpq, fmpz, fmpz_poly

from .expr import Code, Indeterminate, SerAlg, Undefined, ipow, run
from .numbers import working
from .poly import Poly, monomial_flat
from .taylor import PieceBound, bound_piece

__all__ = ["BoxModel"]

#: the cache of shifted leading axes holds at most this many tensors (least recently used
#: dropped first)
_CACHE = 128


def _shift_axis(flat: list[fmpz], shape: tuple[int, ...], axis: int, u: fmpz) -> list[fmpz]:
    """Every fibre of the integer tensor along ``axis`` composed with ``u + x``."""
    if u == 0:
        return flat
    out = list(flat)
    n = shape[axis]
    stride = prod(shape[axis + 1:])
    lin = fmpz_poly([u, 1])
    for base in range(0, len(out), n * stride):
        for inner in range(stride):
            sl = slice(base + inner, base + n * stride, stride)
            c = fmpz_poly(out[sl])(lin).coeffs()
            out[sl] = c + [fmpz(0)] * (n - len(c))
    return out


@lru_cache(maxsize=16)
def _encode(d: int, n: int) -> tuple[list[tuple[int, ...]], list[int], int]:
    """Multi-indices of total degree <= n, their exponents in the substitution, and B^d."""
    B = n + 1
    monos = [al for al in product(range(n + 1), repeat=d) if sum(al) <= n]
    exps = [sum(a * B**i for i, a in enumerate(al[:-1])) + sum(al) * B ** (d - 1)
            for al in monos]
    return monos, exps, B**d


@lru_cache(maxsize=256)
def _bernstein(n: int, r: fmpq, prec: int) -> arb_mat:
    """Row ``j``, column ``a``: the Bernstein coefficient ``j`` (degree ``n``) of ``h^a`` on
    ``[-r, r]``, i.e. of ``(r (2u - 1))^a`` on ``u`` in ``[0, 1]``: ``u^k`` has the
    coefficients ``C(j, k) / C(n, k)`` (``j >= k``)."""
    rows: list[fmpq] = []
    for j in range(n + 1):
        for a in range(n + 1):
            v = sum((fmpq(comb(a, k) * comb(j, k) * (-1) ** (a - k) * 2**k, comb(n, k))
                     for k in range(min(a, j) + 1)), fmpq(0))
            rows.append(v * r**a)
    with working(prec):
        return arb_mat(n + 1, n + 1, [arb(v) for v in rows])


class _Jets(SerAlg):
    """:class:`~dpverify.verify.expr.SerAlg` on the substituted series, with ``tanh`` taken
    from its own Taylor coefficients at the constant term: ``y = tanh`` solves
    ``y' = 1 - y^2``, so ``(k + 1) y_(k+1) = [k = 0] - sum_j y_j y_(k-j)`` (run on pieces
    of the constant ball at most 1/8 wide, joined), and ``tanh(c + u) = sum_k y_k u^k``
    (``u`` without constant term, ``k <= n``).  On a wide ball this stays close to the
    true range, where ``(e^2s - 1) / (e^2s + 1)`` on series loses orders of magnitude;
    and integer powers with the range of ``x^n`` over the constant ball as constant
    term."""

    def __init__(self, length: int, order: int) -> None:
        super().__init__(length)
        self.order = order

    def powi(self, a: arb_series, n: int) -> arb_series:
        """``a^n`` with the constant term tightened to the range of ``x^n`` over the constant
        ball (Arb multiplies a ball by itself as by an independent ball)."""
        if n == 0:
            return super().powi(a, n)
        co = a.coeffs()
        c = co[0] if co else arb(0)
        k = abs(n)
        lo, hi = (c.lower(), c.upper()) if k % 2 else (c.abs_lower(), c.abs_upper())
        rng = ipow(lo, k).union(ipow(hi, k))
        p = (a**k).coeffs()
        if p and rng.is_finite() and p[0].overlaps(rng):
            p[0] = p[0].intersection(rng)
        out = arb_series(p, prec=a.prec)
        return out if n > 0 else self.binop("/", self.num(fmpq(1)), out)

    def call(self, name: str, a: arb_series) -> arb_series:
        if name != "tanh":
            return super().call(name, a)
        co = a.coeffs()
        c = co[0] if co else arb(0)
        if not c.is_finite():
            raise Indeterminate()
        # the recurrence on pieces of c at most 1/8 wide (at most 16), joined
        lo, hi = c.lower(), c.upper()
        parts = 1
        while parts < 16 and hi - lo > arb(parts) / 8:
            parts *= 2
        ends = [lo] + [lo + (hi - lo) * k / parts for k in range(1, parts)] + [hi]
        y: list[arb] = []
        for e0, e1 in zip(ends, ends[1:]):
            yp = [e0.union(e1).tanh()]
            for k in range(self.order):
                s = sum((yp[j] * yp[k - j] for j in range(k + 1)), arb(0))
                yp.append(((1 if k == 0 else 0) - s) / (k + 1))
            y = yp if not y else [u.union(v) for u, v in zip(y, yp)]
        u = a - c
        out = arb_series([y[-1]], prec=self.n)
        for yk in reversed(y[:-1]):
            out = out * u + yk
        return out


class BoxModel:
    """The bound of the module docstring for the pieces of one polynomial ``p`` (``d >= 2``);
    keeps the integer form of ``p`` and the shifts of leading axes between pieces."""

    def __init__(self, code: Code, poly: Poly) -> None:
        self.code, self.poly = code, poly
        self.shape = poly.shape
        self.d = len(self.shape)
        flat = monomial_flat(poly)
        den = fmpz(1)
        for c in flat:
            den = den * (c.q // fmpz.gcd(den, c.q))
        self.den = den
        self.nums = [c.p * (den // c.q) for c in flat]
        self._scaled: dict[tuple[fmpz, ...], list[fmpz]] = {}
        self._lead: OrderedDict[tuple[object, ...], list[fmpz]] = OrderedDict()

    def _shift(self, m: list[fmpq]) -> tuple[list[fmpz], fmpz, list[fmpz]]:
        """``(g, E, V)``: the coefficient of ``h^al`` in ``p(m + h)`` is
        ``g[al] prod V_i^al_i / E`` (flat row-major, exact)."""
        V = [m_i.q for m_i in m]
        key = tuple(V)
        shape, d = self.shape, self.d
        size = len(self.nums)
        E = self.den * prod((v ** (n - 1) for v, n in zip(V, shape)), start=fmpz(1))
        scaled = self._scaled.get(key)
        if scaled is None:
            scaled = list(self.nums)
            strides = [prod(shape[i + 1:]) for i in range(d)]
            for pos in range(size):
                for i in range(d):
                    a = (pos // strides[i]) % shape[i]
                    scaled[pos] *= V[i] ** (shape[i] - 1 - a)
            if len(self._scaled) > 64:
                self._scaled.clear()
            self._scaled[key] = scaled
        # one axis at a time, leading axes first; each fibre along the axis is an integer
        # polynomial composed with U_i + x (fmpz_poly); the shifts of the leading axes are
        # kept per (V, m_1..m_i)
        flat, start = scaled, 0
        for i in range(d - 1, 0, -1):
            hit = self._lead.get((key, tuple(m[:i])))
            if hit is not None:
                self._lead.move_to_end((key, tuple(m[:i])))
                flat, start = hit, i
                break
        for i in range(start, d):
            flat = _shift_axis(flat, shape, i, m[i].p)
            if i < d - 1:
                if len(self._lead) >= _CACHE:
                    self._lead.popitem(last=False)
                self._lead[(key, tuple(m[:i + 1]))] = flat
        return flat, E, V

    def bound(self, box: list[tuple[fmpq, fmpq]], order: int, prec: int) -> PieceBound:
        """A bound of ``sup |f - p|`` on the piece ``box`` at Taylor order ``order`` and
        working precision ``prec`` (the module docstring); order 0 is interval evaluation."""
        d, shape = self.d, self.shape
        if order < 1:
            return bound_piece(self.code, self.poly, box, 0, prec)
        N = order
        m = [(a + b) / 2 for a, b in box]
        r = [(b - a) / 2 for a, b in box]
        g, E, V = self._shift(m)
        strides = [prod(shape[i + 1:]) for i in range(d)]
        monos, _, L = _encode(d, N)
        with working(prec, L):
            try:
                fc = self._series([arb(x) for x in m], N - 1)
                fx = self._series([arb(a).union(arb(b)) for a, b in box], N)
            except Undefined:
                return PieceBound(None, None, True)
            except Indeterminate:
                return bound_piece(self.code, self.poly, box, 0, prec)
            Eb = arb(E)
            terms = []
            for al in monos:
                c = fx[al] if sum(al) == N else fc[al]
                if all(a < n for a, n in zip(al, shape)):
                    pos = sum(a * s for a, s in zip(al, strides))
                    if g[pos] != 0:
                        c = c - arb(g[pos] * prod(v**a for v, a in zip(V, al))) / Eb
                terms.append((al, c))
            if not all(c.is_finite() for _, c in terms):
                return bound_piece(self.code, self.poly, box, 0, prec)
            lo, hi = self._range(terms, N, r)
            tail = self._tail(g, E, V, r, N)
            total = hi.max(-lo) + arb(tail)
            centre = next(c for al, c in terms if not any(al))
            return PieceBound(total, centre)

    def _series(self, cs: list[arb], n: int) -> dict[tuple[int, ...], arb]:
        """The coefficients ``f_al`` (``|al| <= n``) of ``f`` on the series of order ``n``
        whose constant terms are the balls ``cs``."""
        d = self.d
        monos, exps, L = _encode(d, n)
        B = n + 1
        args = []
        for i, c in enumerate(cs):
            dense = [c]
            if n > 0:
                e = B ** (d - 1) + (B**i if i < d - 1 else 0)
                dense += [arb(0)] * (e - 1) + [arb(1)]
            args.append(arb_series(dense, prec=L))
        old = ctx.cap
        ctx.cap = max(old, L)
        try:
            s = run(self.code, _Jets(L, n), args)
        finally:
            ctx.cap = old
        if s.prec < L:
            raise Indeterminate()
        co = s.coeffs()
        out = {al: (co[e] if e < len(co) else arb(0)) for al, e in zip(monos, exps)}
        if not all(v.is_finite() for v in out.values()):
            raise Indeterminate()
        return out

    def _range(self, terms: list[tuple[tuple[int, ...], arb]], n: int,
               r: list[fmpq]) -> tuple[arb, arb]:
        d = self.d
        size = (n + 1) ** d
        T = [arb(0)] * size
        for al, c in terms:
            pos = 0
            for a in al:
                pos = pos * (n + 1) + a
            T[pos] = c
        for i in range(d):
            A = _bernstein(n, r[i], ctx.prec)
            T = (A * arb_mat(n + 1, size // (n + 1), T)).transpose().entries()
        lo = hi = T[0]
        for v in T[1:]:
            lo, hi = lo.min(v), hi.max(v)
        return lo, hi

    def _tail(self, g: list[fmpz], E: fmpz, V: list[fmpz], r: list[fmpq], N: int) -> fmpq:
        """``sum_{|al| > N} |g_al| prod (V_i r_i)^al_i / E`` exactly."""
        w = [v * ri for v, ri in zip(V, r)]
        high = _high(self.shape, N)
        if all(x == 1 for x in w):
            return fmpq(sum((abs(g[pos]) for pos, _ in high), fmpz(0)), E)
        total = fmpq(0)
        for pos, al in high:
            if g[pos] != 0:
                total += abs(g[pos]) * prod((x**a for x, a in zip(w, al)), start=fmpq(1))
        return total / E


@lru_cache(maxsize=8)
def _high(shape: tuple[int, ...], N: int) -> tuple[tuple[int, tuple[int, ...]], ...]:
    """Flat positions and multi-indices of total degree > N in a tensor of ``shape``."""
    return tuple((pos, al) for pos, al in enumerate(product(*map(range, shape)))
                 if sum(al) > N)
