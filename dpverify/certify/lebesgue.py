"""Certified Lebesgue-type constant of the iterated Bernstein basis (alda2017).

``Lambda_{k,h} = max_{y in [0,1]} U(y)``,  ``U(y) = sum_{nu=0}^{k} |b^{(h)}_{nu,k}(y)|``,

where ``b^{(h)}_{nu,k}`` is the iterated Bernstein basis of alda2017 Definition 8.
``Lambda_{k,h}`` is the constant that multiplies the Laplace scale in the noise bound of
alda2017 Proposition 11 (Appendix C, eq. (12) bounds ``U <= 2^h - 1``); in ``l``
dimensions the tensor basis gives ``max sum |prod_i b^{(h)}_{nu_i,k_i}(y_i)| =
prod_i Lambda_{k_i,h}`` (the sum factorises and each factor is maximised separately;
alda2017 Appendix D bounds it by ``(2^h - 1)^l``).

Method
------
*Basis.*  ``B_k`` acts on Bernstein coefficient vectors (order ``k``) as the matrix
``A[mu, nu] = b_{nu,k}(mu/k)`` (row ``mu`` = lattice point, column ``nu`` = basis
index).  By Definition 8, ``b^{(h)}_{nu,k} = sum_{i=1}^{h} C(h,i) (-1)^(i-1)
B_k^(i-1) b_{nu,k}``, so its Bernstein coefficients are column ``nu`` of
``M = sum_{i=1}^{h} C(h,i) (-1)^(i-1) A^(i-1) = sum_{j=0}^{h-1} (I - A)^j``
(the polynomial identity ``(1 - (1-a)^h)/a = sum_{j<h} (1-a)^j``).  ``M`` is
computed here by Horner's rule in ``arb_mat`` (independently of
``dpverify.constructions.bernstein``; the entries of ``A`` are exact rationals
``C(k,nu) mu^nu (k-mu)^(k-nu) / k^k`` rounded into balls).

*Symmetry.*  ``b_{nu,k}(1-y) = b_{k-nu,k}(y)``, so ``J A J = A`` for the reversal ``J``;
hence ``M`` commutes with ``J``, ``b^{(h)}_{k-nu,k}(y) = b^{(h)}_{nu,k}(1-y)`` and
``U(1-y) = U(y)``: only ``[0, 1/2]`` is searched.

*Branch and bound.*  ``[0, 1/2]`` is cut into pieces ``Y = [c - r, c + r]``.  With
``p_nu = b^{(h)}_{nu,k}`` in Bernstein form, ``p_nu(c)``, ``p_nu'(c)``, ``p_nu'(Y)`` and
``p_nu''(Y)`` are enclosed by matrix products of (derivative) coefficient matrices
with the Bernstein basis vectors ``b_{mu,m}(c)``, ``b_{mu,m}(Y)`` (no monomials,
no cancellation).  Where ``p_nu(c) + [-r, r] p_nu'(Y)`` excludes 0 the sign
``s_nu`` of ``p_nu`` is constant on ``Y``; with ``S = sum_{signed} s_nu p_nu`` the
second-order Taylor form gives, for ``y`` in ``Y``,

    U(y) <= S(c) + |S'(c)| r + max(S''(Y), 0) r^2 / 2
            + sum_{unsigned nu} (|p_nu(c)| + r |p_nu'(Y)|),

which converges quadratically near a smooth maximum.  ``lower`` is the largest
certified ``U(c)`` at actual piece centres (and ``U(0) = 1``); ``upper`` is the
largest piece bound.  Pieces whose bound is at most ``lower * (1 + rtol)`` are
retired, the others are bisected, until none is left.

Guarantee
---------
``lower <= Lambda_{k,h} <= upper`` always (exact dyadic rationals from arb balls).
The run stops when ``upper <= lower * (1 + rtol)``; when ``max_pieces`` is
exceeded, the working precision is doubled (up to ``max_prec``) and when that is
exhausted :class:`~dpverify.errors.PrecisionExhausted` is raised - a weaker
bound is never returned silently.  ``h = 1`` is exactly 1 (the Bernstein basis is a
non-negative partition of unity, alda2017 Proposition 2) and is returned without
search.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from math import comb
from typing import Any

from flint import arb, arb_mat, ctx, fmpq

from .._version import __version__
from ..errors import InvalidParameterError, PrecisionExhausted
from ..numbers import (
    ExactLike,
    arb_to_fmpq_bounds,
    check_int,
    check_rational,
    fmpq_str,
    fmpq_to_decimal,
)
from .certificate import CERT_FORMAT, SCHEMA_VERSION, Certificate

__all__ = ["LebesgueEnclosure", "lebesgue_constant", "iterated_basis_arb", "MAX_K", "MAX_H",
           "MAX_CERT_COST"]

#: Largest ``k`` and ``h`` accepted (the arb basis costs ``O(h k^3)`` at ~128 bits).
MAX_K = 1000
MAX_H = 64
#: Largest ``h^2 k^4`` of a certificate: the independent verifier rebuilds the exact
#: ``(k+1) x (k+1)`` basis and refuses larger statements (verify/lebesgue.py MAX_COST, the
#: same cap as constructions/bernstein.py MAX_BASIS_COST; tests/test_lebesgue.py checks
#: the three agree).
MAX_CERT_COST = 2 * 8**2 * 200**4


@dataclass(frozen=True)
class LebesgueEnclosure:
    """Certified enclosure ``lower <= Lambda_{k,h} <= upper`` (exact rationals).

    ``argmax`` is the piece centre that gave ``lower`` (a point of ``[0, 1/2]``;
    ``1 - argmax`` is a maximiser candidate too, by symmetry).
    """

    k: int
    h: int
    lower: fmpq
    upper: fmpq
    argmax: fmpq
    pieces: int
    prec: int
    seconds: float
    converged: bool = True
    notes: list[str] = field(default_factory=list)
    #: the retired pieces ``(a, b)`` of the final run; they tile ``[0, 1/2]`` and each
    #: has a certified bound ``<= upper`` (the certificate's evidence)
    intervals: list[tuple[fmpq, fmpq]] = field(default_factory=list)

    @property
    def paper_bound(self) -> int:
        """alda2017 Appendix C eq. (12): ``Lambda_{k,h} <= 2^h - 1``."""
        # 1 << h == 2**h for h >= 1, typed int (int ** int is Any to mypy: it may be a float)
        return (1 << self.h) - 1

    @property
    def rel_width(self) -> fmpq:
        return (self.upper - self.lower) / self.lower

    def to_json(self, digits: int = 17) -> dict[str, Any]:
        """JSON view; decimal strings are rounded outward (lower down, upper up)."""
        return {
            "lower": fmpq_to_decimal(self.lower, digits, rounding="down"),
            "upper": fmpq_to_decimal(self.upper, digits, rounding="up"),
            "lower_exact": fmpq_str(self.lower),
            "upper_exact": fmpq_str(self.upper),
            "argmax": fmpq_str(self.argmax),
            "paper_bound": str(self.paper_bound),
            "method": "branch-and-bound, Bernstein-form Taylor enclosures (arb)",
            "pieces": self.pieces,
            "prec": self.prec,
        }


def _bernstein_operator_arb(k: int) -> arb_mat:
    """``A[mu, nu] = b_{nu,k}(mu/k)`` as balls (exact rationals rounded at ctx.prec)."""
    n = k + 1
    kk = k**k
    entries = []
    for mu in range(n):
        for nu in range(n):
            num = comb(k, nu) * mu**nu * (k - mu) ** (k - nu)
            entries.append(arb(fmpq(num, kk)))
    return arb_mat(n, n, entries)


def iterated_basis_arb(k: int, h: int, prec: int = 128) -> arb_mat:
    """Balls for ``M[mu, nu]`` = coefficient of ``b^{(h)}_{nu,k}`` on ``b_{mu,k}``.

    ``M = sum_{j<h} (I - A)^j`` by Horner's rule (alda2017 Definition 8).

    Guarantee
    ---------
    Rigorous: each ball contains the exact rational entry.
    """
    k = check_int(k, "k", minimum=1, maximum=MAX_K)
    h = check_int(h, "h", minimum=1, maximum=MAX_H)
    with ctx.workprec(prec):
        A = _bernstein_operator_arb(k)
        n = k + 1
        ident = arb_mat(n, n)
        for i in range(n):
            ident[i, i] = arb(1)
        E = ident - A
        M = ident
        for _ in range(h - 1):
            M = ident + E * M
    return M


def _basis_vectors(x: arb, m: int) -> list[arb]:
    """``[b_{mu,m}(x) for mu in 0..m]`` for a ball ``x`` inside ``[0, 1]``.

    Products of non-negative balls (``x^mu``, ``(1-x)^(m-mu)``) are enclosed tightly.
    """
    if m == 0:
        return [arb(1)]
    one_minus = 1 - x
    # the true values are >= 0; clip enclosures that poke below 0 at the endpoints
    x = x.nonnegative_part() if x.lower() < 0 else x
    one_minus = one_minus.nonnegative_part() if one_minus.lower() < 0 else one_minus
    pw = [arb(1)] * (m + 1)
    qw = [arb(1)] * (m + 1)
    for j in range(1, m + 1):
        pw[j] = pw[j - 1] * x
        qw[j] = qw[j - 1] * one_minus
    return [comb(m, mu) * pw[mu] * qw[m - mu] for mu in range(m + 1)]


@dataclass
class _Mats:
    G0: arb_mat  # (k+1) x (k+1): row nu = Bernstein coeffs (order k) of p_nu
    G1: arb_mat  # (k+1) x k: coeffs (order k-1) of p_nu'
    G2: arb_mat | None  # (k+1) x (k-1): coeffs (order k-2) of p_nu''


def _derivative_mats(M: arb_mat, k: int) -> _Mats:
    n = k + 1
    G0 = M.transpose()
    rows0 = [[G0[i, j] for j in range(n)] for i in range(n)]
    r1 = [[k * (row[j + 1] - row[j]) for j in range(k)] for row in rows0]
    G1 = arb_mat(n, k, [v for row in r1 for v in row])
    G2 = None
    if k >= 2:
        r2 = [[(k - 1) * (row[j + 1] - row[j]) for j in range(k - 1)] for row in r1]
        G2 = arb_mat(n, k - 1, [v for row in r2 for v in row])
    return _Mats(G0, G1, G2)


def _columns(vectors: list[list[arb]]) -> arb_mat:
    rows = len(vectors[0])
    cols = len(vectors)
    flat = [vectors[j][i] for i in range(rows) for j in range(cols)]
    return arb_mat(rows, cols, flat)


def _evaluate(mats: _Mats, k: int, pieces: list[tuple[fmpq, fmpq]]) -> list[tuple[arb, arb]]:
    """For each piece ``[a, b]``: (``U(c)`` ball, upper-bound ball of ``U`` on the piece)."""
    n = k + 1
    cs, rs, ys = [], [], []
    for a, b in pieces:
        c_q = (a + b) / 2
        r_q = (b - a) / 2
        cs.append(arb(c_q))
        rs.append(arb(r_q))
        ys.append(arb(c_q, arb(r_q).upper()))  # ball containing [a, b]
    B0 = _columns([_basis_vectors(c, k) for c in cs])
    B1c = _columns([_basis_vectors(c, k - 1) for c in cs])
    B1Y = _columns([_basis_vectors(y, k - 1) for y in ys])
    P0 = (mats.G0 * B0).tolist()
    P1c = (mats.G1 * B1c).tolist()
    P1Y = (mats.G1 * B1Y).tolist()
    if mats.G2 is not None:
        B2Y = _columns([_basis_vectors(y, k - 2) for y in ys])
        P2Y = (mats.G2 * B2Y).tolist()
    else:
        P2Y = None
    out = []
    zero = arb(0)
    for j, r in enumerate(rs):
        rr = arb(0, r.upper())  # [-r, r]
        u_c = zero
        s0 = zero
        s1 = zero
        s2 = zero
        rest = zero
        for nu in range(n):
            v0 = P0[nu][j]
            v1y = P1Y[nu][j]
            u_c += abs(v0)
            rng = v0 + rr * v1y
            if rng > 0:
                s0 += v0
                s1 += P1c[nu][j]
                if P2Y is not None:
                    s2 += P2Y[nu][j]
            elif rng < 0:
                s0 -= v0
                s1 -= P1c[nu][j]
                if P2Y is not None:
                    s2 -= P2Y[nu][j]
            else:
                rest += abs(v0) + r * abs(v1y)
        curv = s2.upper()
        curv = curv if curv > 0 else zero
        upper = s0 + abs(s1) * r + curv * r * r / 2 + rest
        out.append((u_c, upper))
    return out


def lebesgue_constant(
    k: int,
    h: int,
    rtol: ExactLike = "1e-6",
    *,
    prec: int = 128,
    max_prec: int = 1024,
    max_pieces: int = 200_000,
    basis: arb_mat | None = None,
) -> LebesgueEnclosure:
    """Certified enclosure of ``Lambda_{k,h} = max_{[0,1]} sum_nu |b^{(h)}_{nu,k}|``.

    Parameters
    ----------
    k, h : int
        Order ``k >= 1`` (``<= 1000``) and iteration order ``h >= 1`` (``<= 64``).
    rtol : exact number, default ``"1e-6"``
        Target relative width ``upper / lower - 1 <= rtol`` (in ``(0, 1)``); anything
        :func:`~dpverify.numbers.to_fmpq` accepts.
    prec, max_prec : int
        Starting and largest working precision (bits).
    max_pieces : int
        Pieces evaluated per precision before the precision is doubled.
    basis : arb_mat, optional
        Balls for ``M[mu, nu]`` (coefficient of ``b^{(h)}_{nu,k}`` on ``b_{mu,k}``), e.g.
        from the exact matrix; computed by :func:`iterated_basis_arb` when omitted.

    Returns
    -------
    LebesgueEnclosure

    Guarantee
    ---------
    ``lower <= Lambda_{k,h} <= upper`` rigorously (see the module docstring); on
    success ``upper <= lower * (1 + rtol)``.  Raises
    :class:`~dpverify.errors.PrecisionExhausted` if that cannot be reached within
    ``max_prec`` / ``max_pieces``.  Reference: alda2017 Definition 8, Proposition 11
    (Appendix C eq. (12): ``Lambda_{k,h} <= 2^h - 1``).
    """
    k = check_int(k, "k", minimum=1, maximum=MAX_K)
    h = check_int(h, "h", minimum=1, maximum=MAX_H)
    tol = check_rational(rtol, "rtol", 0, 1, low_open=True, high_open=True)
    prec = check_int(prec, "prec", minimum=32, maximum=1 << 16)
    max_prec = check_int(max_prec, "max_prec", minimum=prec, maximum=1 << 16)
    max_pieces = check_int(max_pieces, "max_pieces", minimum=16)
    if basis is not None and (basis.nrows() != k + 1 or basis.ncols() != k + 1):
        raise InvalidParameterError(
            f"basis must be a {k + 1}x{k + 1} matrix, got {basis.nrows()}x{basis.ncols()}"
        )
    t0 = time.perf_counter()
    if h == 1:
        # b_{nu,k} >= 0 and sum = 1 (alda2017 Proposition 2): U == 1 exactly.
        one = fmpq(1)
        return LebesgueEnclosure(k, h, one, one, fmpq(0), 0, 0, time.perf_counter() - t0,
                                 intervals=[(fmpq(0), fmpq(1, 2))])
    p = prec
    while True:
        res = _run(k, h, tol, p, max_pieces, basis)
        if res is not None:
            lower, upper, arg, count, retired = res
            return LebesgueEnclosure(k, h, lower, upper, arg, count, p, time.perf_counter() - t0,
                                     intervals=sorted(retired))
        if p >= max_prec:
            raise PrecisionExhausted(
                f"Lambda_{{{k},{h}}}: relative width {fmpq_str(tol)} not reached with "
                f"max_prec={max_prec} and max_pieces={max_pieces}"
            )
        p = min(2 * p, max_prec)


def _run(
    k: int, h: int, tol: fmpq, prec: int, max_pieces: int, basis: arb_mat | None
) -> tuple[fmpq, fmpq, fmpq, int, list[tuple[fmpq, fmpq]]] | None:
    with ctx.workprec(prec):
        M = basis if basis is not None else iterated_basis_arb(k, h, prec)
        mats = _derivative_mats(M, k)
        # U(0) = sum_nu |b^{(h)}_{nu,k}(0)| = 1 (endpoint interpolation; also evaluated)
        lower = fmpq(1)
        arg = fmpq(0)
        n0 = max(16, 2 * k * h)
        half = fmpq(1, 2)
        active = [(half * i / n0, half * (i + 1) / n0) for i in range(n0)]
        done_upper = fmpq(0)
        retired: list[tuple[fmpq, fmpq]] = []
        count = 0
        batch = max(64, 4000 // (k + 1) * 8)
        while active:
            if count > max_pieces:
                return None
            results: list[tuple[tuple[fmpq, fmpq], tuple[arb, arb]]] = []
            for s in range(0, len(active), batch):
                chunk = active[s : s + batch]
                results.extend(zip(chunk, _evaluate(mats, k, chunk), strict=True))
            count += len(active)
            for (a, b), (u_c, _) in results:
                lo = arb_to_fmpq_bounds(u_c)[0] if u_c.is_finite() else fmpq(0)
                if lo > lower:
                    lower = lo
                    arg = (a + b) / 2
            target = lower * (1 + tol)
            nxt = []
            for (a, b), (_, ub) in results:
                if not ub.is_finite():
                    return None
                up = arb_to_fmpq_bounds(ub)[1]
                if up <= target:
                    retired.append((a, b))
                    if up > done_upper:
                        done_upper = up
                else:
                    m = (a + b) / 2
                    nxt.append((a, m))
                    nxt.append((m, b))
                    if b - a < fmpq(1, 2 ** (prec // 2)):
                        return None  # pieces below the working precision: raise prec
            active = nxt
        upper = max(done_upper, lower)
        return lower, upper, arg, count, retired


def lebesgue_certificate(
    enc: LebesgueEnclosure, basis: Sequence[Sequence[Any]] | None = None
) -> Certificate:
    """The ``lebesgue-constant`` certificate of ``enc`` (``docs/certificates.md``):
    statement ``lower <= Lambda_{k,h} <= upper`` (exact), evidence the tiling of
    ``[0, 1/2]`` and the witness ``argmax``; ``basis`` (rows ``nu``, exact Bernstein
    coefficients of ``b^{(h)}_{nu,k}``, anything :func:`~dpverify.numbers.fmpq_str`
    accepts, e.g. ``fmpq``) joins the statement when given."""
    if enc.h * enc.h * enc.k**4 > MAX_CERT_COST:
        raise InvalidParameterError(
            f"k = {enc.k}, h = {enc.h}: h^2 k^4 is over {MAX_CERT_COST}, beyond what the "
            "independent verifier re-checks (it rebuilds the exact basis); the enclosure "
            "itself stands, but no certificate is written for it")
    statement: dict[str, Any] = {"k": enc.k, "h": enc.h, "lower": fmpq_str(enc.lower),
                                 "upper": fmpq_str(enc.upper)}
    if basis is not None:
        statement["basis"] = [[fmpq_str(c) for c in row] for row in basis]
    return Certificate({
        "schema_version": SCHEMA_VERSION,
        "format": CERT_FORMAT,
        "kind": "lebesgue-constant",
        "statement": statement,
        "evidence": {
            "witness": fmpq_str(enc.argmax),
            "pieces": [[fmpq_str(a), fmpq_str(b)] for a, b in enc.intervals],
        },
        "info": {
            "lower_decimal": fmpq_to_decimal(enc.lower, 17, "down"),
            "upper_decimal": fmpq_to_decimal(enc.upper, 17, "up"),
            "paper_bound": str(enc.paper_bound),
            "method": "branch-and-bound, Bernstein-form Taylor enclosures (arb)",
            "pieces_evaluated": enc.pieces,
            "prec": enc.prec,
            "seconds": round(enc.seconds, 3),
            "orientation": "basis[nu][mu] = coefficient of b^(h)_{nu,k} on b_{mu,k} "
            "(Bernstein basis of order k on [0,1])",
            "dpverify_version": __version__,
        },
    })
