"""Multivariate truncated Taylor arithmetic ("jets") over arb balls.

A :class:`Jet` in ``d`` variables of order ``N`` holds ball enclosures of the
Taylor coefficients ``c_alpha = d^alpha g / alpha!`` for all multi-indices with
``|alpha| <= N``.  Arithmetic truncates at total order ``N``.

Representation (a Kronecker substitution that respects the total degree)
-----------------------------------------------------------------------
With ``B = N + 1`` the ring map ``psi: x_i -> t^(B^i + B^(d-1))`` (``i < d - 1``),
``x_{d-1} -> t^(B^(d-1))`` sends ``x^alpha`` to ``t^e(alpha)``,
``e(alpha) = sum_{i<d-1} alpha_i B^i + |alpha| B^(d-1)``: the base-``B`` digits of
``e`` are ``alpha_0, ..., alpha_{d-2}`` and, on top, the total degree ``|alpha|``.
``psi`` is a ring homomorphism (a substitution), so it maps products to products and
composition with a univariate power series ``phi`` to composition with ``phi``.  It is
injective on ``|alpha| <= N`` (all digits ``<= N < B``), and it maps every monomial of
total degree ``> N`` to ``t^e`` with ``e >= (N+1) B^(d-1) = L`` (the top digit is at
least the total degree; digit sums can only carry upward).  Hence ``psi`` induces an
injective ring homomorphism ``R[x]/(|alpha| > N) -> R[t]/(t^L)``, and the truncated
multivariate arithmetic is *exactly* python-flint's ``arb_series`` arithmetic of length
``L = (N+1)^d`` on the images: products, quotients and elementary functions are one call
into Arb each, with no per-coefficient Python loop.  Slots ``e < L`` whose digits are
not of the form ``e(alpha)`` hold (enclosures of) exact zeros and are never read.

Guarantee
---------
Inclusion monotone: if each input coefficient ball contains the true Taylor
coefficient of the input function at a point ``xi`` (for every ``xi`` of a box
when the constant terms are box balls), every output coefficient contains the
true coefficient of the result at ``xi`` (Arb's ``arb_series`` operations enclose
the exact truncated series for every choice of the inputs in their balls, and the
encoding is an exact ring homomorphism).  Evaluating at constant terms equal
to a box therefore gives Lagrange-remainder enclosures over the box.
Non-analytic operations (``abs`` at 0, ``sqrt``/``log``/fractional powers at
or below 0, poles) raise :class:`~dpverify.expr.NotAnalytic`.  A series that Arb
returns shorter than ``L`` (``flint.ctx.cap``) raises ``PrecisionExhausted`` instead
of being read as zeros.

Used by the box certifier and by the smoothness certifier (like ``dpverify.exact``,
it is an arithmetic kernel, not a construction).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import lru_cache
from typing import Any

from flint import arb, arb_series, ctx

from ..errors import DomainError, PrecisionExhausted
from .ball import ArbEval, arb_pow_point
from .parser import Parser
from .special import compose_series
from .tree import NotAnalytic

__all__ = [
    "Jet",
    "SeriesFunction",
    "jet_eval",
    "kronecker_exponents",
    "multi_indices",
    "series_cap",
    "series_coeffs",
    "tanh_taylor",
    "compose_series",
]

#: a function of one series argument (the elementary functions of the jets)
SeriesFunction = Callable[[arb_series], arb_series]


@contextmanager
def series_cap(n: int) -> Iterator[None]:
    """Raise ``flint.ctx.cap`` to at least ``n`` for the block.

    python-flint silently truncates every ``arb_series`` at ``ctx.cap`` terms
    (default 10); a Taylor coefficient beyond the cap would otherwise be read
    as an exact zero.  Use with :func:`series_coeffs`, which refuses a series
    that came back shorter than requested.
    """
    old = ctx.cap
    ctx.cap = max(old, n)
    try:
        yield
    finally:
        ctx.cap = old


def series_coeffs(s: arb_series, n: int) -> list[arb]:
    """The first ``n`` coefficients of ``s``; those past its stored length are
    exact zeros only because ``s.prec >= n`` is checked (else ``PrecisionExhausted``)."""
    if s.prec < n:
        raise PrecisionExhausted(
            f"power series truncated at {s.prec} terms where {n} were needed "
            "(python-flint ctx.cap); refusing to treat the missing terms as zero"
        )
    c = list(s.coeffs())
    return (c + [arb(0)] * n)[:n]


@lru_cache(maxsize=32)
def multi_indices(d: int, N: int) -> tuple[tuple[int, ...], ...]:
    """All alpha in N^d with |alpha| <= N, ordered by total degree."""
    out = [a for a in itertools.product(range(N + 1), repeat=d) if sum(a) <= N]
    out.sort(key=lambda a: (sum(a), tuple(-x for x in a)))
    return tuple(out)


@lru_cache(maxsize=64)
def kronecker_exponents(d: int, N: int) -> tuple[int, ...]:
    """``e(alpha)`` (module docstring) for ``alpha`` in :func:`multi_indices` order."""
    B = N + 1
    top = B ** (d - 1)
    return tuple(sum(a * B**i for i, a in enumerate(alpha[:-1])) + sum(alpha) * top
                 for alpha in multi_indices(d, N))


def _length(d: int, N: int) -> int:
    return (N + 1) ** d


def _as_arb(value: Any) -> arb:
    return value if isinstance(value, arb) else arb(value)


class Jet:
    """Truncated multivariate Taylor expansion with arb coefficients.

    ``Jet(d, N, coeffs)`` takes the coefficients in :func:`multi_indices` order;
    ``c`` gives them back in that order (decoded on first use); ``s`` is the encoded
    ``arb_series`` of length ``(N+1)^d`` (module docstring).
    """

    __slots__ = ("d", "N", "s", "_c")

    def __init__(self, d: int, N: int, coeffs: list[arb] | None = None, *,
                 series: arb_series | None = None) -> None:
        self.d, self.N = d, N
        L = _length(d, N)
        if series is None:
            if coeffs is None:
                raise TypeError("Jet needs coeffs or series")
            dense: list[arb] = [arb(0)] * L
            for e, c in zip(kronecker_exponents(d, N), coeffs):
                dense[e] = _as_arb(c)
            series = arb_series(dense, prec=L)
        elif series.prec < L:
            raise PrecisionExhausted(
                f"jet series truncated at {series.prec} terms where {L} were needed "
                "(python-flint ctx.cap)")
        self.s = series
        self._c: list[arb] | None = None

    @property
    def L(self) -> int:
        """Length of the encoded series, ``(N+1)^d``."""
        return _length(self.d, self.N)

    @property
    def c(self) -> list[arb]:
        """The coefficients in :func:`multi_indices` order."""
        if self._c is None:
            cs = self.s.coeffs()
            n = len(cs)
            zero = arb(0)
            self._c = [cs[e] if e < n else zero for e in kronecker_exponents(self.d, self.N)]
        return self._c

    @classmethod
    def constant(cls, d: int, N: int, value: Any) -> Jet:
        L = _length(d, N)
        return cls(d, N, series=arb_series([_as_arb(value)], prec=L))

    @classmethod
    def variable(cls, d: int, N: int, i: int, value: Any) -> Jet:
        """The coordinate x_i expanded at ``value`` (a point or a box ball)."""
        L = _length(d, N)
        if N == 0:
            return cls.constant(d, N, value)
        e = (N + 1) ** (d - 1) + ((N + 1) ** i if i < d - 1 else 0)
        dense: list[arb] = [arb(0)] * (e + 1)
        dense[0], dense[e] = _as_arb(value), arb(1)
        return cls(d, N, series=arb_series(dense, prec=L))

    # -- arithmetic ----------------------------------------------------------
    def _wrap(self, op: Callable[[], arb_series]) -> Jet:
        L = _length(self.d, self.N)
        old = ctx.cap
        if old < L:
            ctx.cap = L
        try:
            s = op()
        finally:
            ctx.cap = old
        return Jet(self.d, self.N, series=s)

    def _other(self, other: Any) -> arb_series | arb:
        if isinstance(other, Jet):
            if (other.d, other.N) != (self.d, self.N):
                raise DomainError(
                    f"jets of different shapes: (d, N) = {(self.d, self.N)} and "
                    f"{(other.d, other.N)}")
            return other.s
        return _as_arb(other)

    def __add__(self, other: Any) -> Jet:
        o = self._other(other)
        return self._wrap(lambda: self.s + o)

    __radd__ = __add__

    def __neg__(self) -> Jet:
        return self._wrap(lambda: -self.s)

    def __sub__(self, other: Any) -> Jet:
        o = self._other(other)
        return self._wrap(lambda: self.s - o)

    def __rsub__(self, other: Any) -> Jet:
        o = self._other(other)
        return self._wrap(lambda: o - self.s)

    def __mul__(self, other: Any) -> Jet:
        o = self._other(other)
        return self._wrap(lambda: self.s * o)

    __rmul__ = __mul__

    def __truediv__(self, other: Any) -> Jet:
        if not isinstance(other, Jet):
            o = _as_arb(other)
            return self._wrap(lambda: self.s * (1 / o))
        return self * other.compose(_inv)

    def __rtruediv__(self, other: Any) -> Jet:
        return self.constant(self.d, self.N, other) / self

    def ipow(self, n: int) -> Jet:
        """``self ** n`` for an integer ``n`` (repeated squaring; ``1/self^-n`` if n < 0)."""
        if n < 0:
            return self.ipow(-n).compose(_inv)
        result: Jet = arb_pow_point(self, n, one=Jet.constant(self.d, self.N, 1))
        return result

    @property
    def c0(self) -> arb:
        cs = self.s.coeffs()
        return cs[0] if cs else arb(0)

    def compose(self, phi: SeriesFunction) -> Jet:
        """``phi(self)`` where ``phi`` maps an ``arb_series`` to its image (an elementary
        function on series; it sees the constant term as coefficient 0)."""
        return self._wrap(lambda: phi(self.s))


def _inv(s: arb_series) -> arb_series:
    c = s.coeffs()[0]
    if not (c > 0 or c < 0):
        raise NotAnalytic(f"division by a jet whose value {c} may vanish")
    return 1 / s


#: tanh_taylor cuts a ball into pieces of this width at most (and at most 16 pieces)
_TANH_PIECE = arb(1) / 8


def tanh_taylor(c: arb, n: int) -> list[arb]:
    """Balls of ``tanh^(k)(x) / k!``, ``k = 0..n``, for every ``x`` in the ball ``c``.

    From ``y' = 1 - y^2``: ``(k + 1) y_(k+1) = [k = 0] - sum_(j=0..k) y_j y_(k-j)`` with
    ``y_0 = tanh(c)``, run on pieces of ``c`` at most 1/8 wide (at most 16 pieces) and
    joined.  On each piece the recurrence stays within a small factor of the true range
    (over ``[-1, 1]``, ``k = 8``: ``+-0.05`` for the true ``+-0.03``), where the series of
    ``1 - 2 / (exp(2x) + 1)`` loses many orders of magnitude (``+-5e6``: the quotient
    forgets that numerator and denominator move together)."""
    if not c.is_finite():
        return [arb.nan()] * (n + 1)
    lo, hi = c.lower(), c.upper()
    parts = 1
    while parts < 16 and (hi - lo) > _TANH_PIECE * parts:
        parts *= 2
    ends = [lo] + [lo + (hi - lo) * k / parts for k in range(1, parts)] + [hi]
    out: list[arb] | None = None
    for a, b in zip(ends, ends[1:]):
        ys = _tanh_recurrence(a.union(b), n)
        out = ys if out is None else [u.union(v) for u, v in zip(out, ys)]
    assert out is not None
    return out


def _tanh_recurrence(c: arb, n: int) -> list[arb]:
    y = [c.tanh()]
    for k in range(n):
        acc = arb(1) if k == 0 else arb(0)
        for j in range((k + 1) // 2):
            acc -= 2 * y[j] * y[k - j]
        if k % 2 == 0:
            h = y[k // 2]
            acc -= h * h
        y.append(acc / (k + 1))
    return y


def _power_range(c: arb, n: int) -> arb:
    """A ball containing ``{x^n : x in c}`` (``n >= 1``; ``x^n`` is monotone on each side of
    0, so the ends decide)."""
    if n % 2:
        return arb_pow_point(c.lower(), n).union(arb_pow_point(c.upper(), n))
    return arb_pow_point(c.abs_lower(), n).union(arb_pow_point(c.abs_upper(), n))


def _with_constant(s: arb_series, c: arb) -> arb_series:
    """``s`` with its constant term intersected with the ball ``c`` (both contain it)."""
    cs = s.coeffs()
    if not cs or not c.is_finite():
        return s
    cs[0] = cs[0].intersection(c) if cs[0].overlaps(c) else cs[0]
    return arb_series(cs, prec=s.prec)


class _JetEval(ArbEval):
    """The series evaluator of :mod:`.ball` with two enclosures made tight on wide balls:

    * ``tanh`` composed from :func:`tanh_taylor` at the constant term (see there);
    * the constant term of an integer power ``u^n`` is the range of ``x^n`` over the
      constant term of ``u`` (Arb multiplies a ball by itself as by an independent ball:
      ``[-1, 0]^2`` would be ``[-1/2, 1]``, and ``1 + x^2 + y^2 + z^2`` over ``[-1, 0]^3``
      would seem to vanish)."""

    def __init__(self, env: dict[str, Any], order: int) -> None:
        super().__init__(env)
        self.order = order

    def power(self, node: Any) -> Any:
        base_node, ex_node = node.args
        if not (ex_node.kind == "num" and ex_node.args[0].q == 1):
            return super().power(node)
        b = self.ev(base_node)
        if not isinstance(b, arb_series):
            return super().power(node)  # a ball: evaluated again, tightly, by ArbEval
        n = int(ex_node.args[0].p)
        cs = b.coeffs()
        c = cs[0] if cs else arb(0)
        if n == 0:
            return arb_series([arb(1)], prec=b.prec)
        bn = _with_constant(b ** abs(n), _power_range(c, abs(n)))
        return bn if n > 0 else self.div(arb(1), bn)

    def call(self, fname: str, arg_node: Any) -> Any:
        if fname != "tanh":
            return super().call(fname, arg_node)
        v = self.ev(arg_node)
        if not isinstance(v, arb_series):
            return v.tanh()
        cs = v.coeffs()
        return compose_series(v, tanh_taylor(cs[0] if cs else arb(0), self.order))


@lru_cache(maxsize=64)
def _tree(text: str, variables: tuple[str, ...]) -> Any:
    """The expression tree of ``parse(text, variables)`` (the canonical text parses to the
    same tree)."""
    return Parser(text, variables, "f").parse()


def jet_eval(expr: Any, args: list[Jet]) -> Jet:
    """Evaluate a :class:`dpverify.expr.Expr` on jets (one per variable, all of the same
    ``d`` and ``N``): the expression's own series evaluator
    (:meth:`~dpverify.expr.Expr.eval_arb` on ``arb_series``) run on the encoded series.

    Raises :class:`~dpverify.expr.NotAnalytic` where ``f`` is not analytic at a point of
    the constant-term balls, ``DomainError`` where it is undefined on them."""
    if not args:
        raise DomainError("jet_eval needs at least one jet")
    d, N = args[0].d, args[0].N
    if any((a.d, a.N) != (d, N) for a in args):
        raise DomainError("jet_eval: all jets must have the same (d, N)")
    L = _length(d, N)
    variables = tuple(expr.variables)
    if len(variables) != len(args):
        raise DomainError(f"jet_eval: {len(variables)} variables but {len(args)} jets")
    with series_cap(L):
        out = _JetEval(dict(zip(variables, [a.s for a in args])), N).ev(
            _tree(expr.canonical, variables))
    if not isinstance(out, arb_series):
        out = arb_series([out], prec=L)
    return Jet(d, N, series=out)
