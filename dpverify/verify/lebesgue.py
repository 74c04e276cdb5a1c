"""Kind ``lebesgue-constant`` (alda2017 Definition 8, Proposition 11).

``M = sum_{j<h} (I - A)^j``, ``A[mu][nu] = b_{nu,k}(mu/k)``; ``U(y) = sum_nu |sum_mu M[mu][nu]
b_{mu,k}(y)|`` and ``Lambda = max_{[0,1]} U``.

* ``M`` exactly (integers: ``M = sum_j B^j / D^j`` with ``D = k^k``, ``B = D I - D A``) when
  that is cheap or ``basis`` must be compared; else in ``arb_mat`` (sums of powers by doubling).
* Reversal symmetry: ``A[k-mu][k-nu] = A[mu][nu]`` because ``C(k,nu) = C(k,k-nu)`` (checked),
  hence ``J M J = M`` (also checked on the exact ``M``) and ``U(1-y) = U(y)``: the pieces tile
  ``[0, 1/2]`` exactly.
* If the exact ``M`` has no negative entry, every ``b^(h)_nu >= 0`` and ``U = sum_mu
  (row sum of M) b_mu = 1`` (rows of ``M`` sum to 1, checked): ``Lambda = 1`` exactly.
* Otherwise, on a piece with centre ``c`` and radius ``r``, each ``b^(h)_nu(c + h)`` is a
  Taylor polynomial (order 4, Lagrange remainder from the coefficients over the piece) with
  coefficients ``T M`` (``T``: Taylor coefficients of the Bernstein basis, via arb_series);
  terms of constant sign on the piece are summed with their sign, the others by absolute
  value.  Refinement as for ``supnorm-box`` (precision doubling or bisection, 64x budget).
"""

from __future__ import annotations

from collections.abc import Callable
from math import comb

from flint import arb, arb_mat, arb_series, ctx, fmpq, fmpq_mat, fmpz, fmpz_mat

from .expr import coeffs, ipow
from .numbers import (
    MAX_PREC,
    decide,
    expect_keys,
    read_exact,
    read_int,
    read_list,
    show,
    shown,
    working,
)
from .poly import read_interval
from .report import BISECT, BOUNDED, MORE_PRECISION, Checks, Malformed, Refuted, refine, say

__all__ = ["ORDER", "MAX_COST", "verify_lebesgue"]

ORDER = 4
#: cap on h^2 k^4: the certifier's (``dpverify bernstein`` refuses larger k, h: its exact
#: (k+1)x(k+1) basis matrices would be too expensive; k = 200, h = 8 is at the cap)
MAX_COST = 2 * 8**2 * 200**4


def _exact_M(k: int, h: int, tick: Callable[[], None]) -> tuple[fmpz_mat, fmpz]:
    """(S, den) with M = S / den exactly."""
    D = fmpz(k) ** k
    B = fmpz_mat(k + 1, k + 1)
    for mu in range(k + 1):
        for nu in range(k + 1):
            a = comb(k, nu) * fmpz(mu) ** nu * fmpz(k - mu) ** (k - nu)
            B[mu, nu] = (D if mu == nu else 0) - a
    S, den = fmpz_mat(k + 1, k + 1), fmpz(1)
    for i in range(k + 1):
        S[i, i] = 1
    for _ in range(h - 1):
        tick()
        S, den = B * S, den * D
        for i in range(k + 1):
            S[i, i] += den
    return S, den


def _eye(n: int) -> arb_mat:
    m = arb_mat(n, n)
    for i in range(n):
        m[i, i] = arb(1)
    return m


def _arb_M(k: int, h: int) -> arb_mat:
    """``sum_{j<h} (I - A)^j`` in balls at the current precision."""
    X = _eye(k + 1)
    for mu in range(k + 1):
        row = _basis_values(arb(fmpq(mu, k)), k)
        for nu in range(k + 1):
            X[mu, nu] = X[mu, nu] - row[nu]
    S, P, one = arb_mat(k + 1, k + 1), _eye(k + 1), _eye(k + 1)
    for bit in bin(h)[2:]:
        S, P = S + P * S, P * P
        if bit == "1":
            S, P = one + X * S, X * P
    return S


def _basis_values(y: arb, k: int) -> list[arb]:
    return [c[0] for c in _basis_series(y, k, 1)]


def _basis_series(y: arb, k: int, n: int) -> list[list[arb]]:
    """Taylor coefficients (n of them) of every b_{mu,k} at the ball y."""
    s = arb_series([y, 1], prec=n)
    one = arb_series([arb(1)], prec=n)
    P, Q = [one], [one]
    for _ in range(k):
        P.append(P[-1] * s)
        Q.append(Q[-1] * (1 - s))
    return [coeffs(arb(comb(k, mu)) * P[mu] * Q[k - mu], n) for mu in range(k + 1)]


def _piece(M: arb_mat, k: int, a: fmpq, b: fmpq) -> tuple[arb, arb]:
    """(upper bound of U on [a, b], U at the centre), at the current precision."""
    c, r = (a + b) / 2, arb((b - a) / 2)
    rows = [list(row) for row in zip(*_basis_series(arb(c), k, ORDER))]
    rows.append([t[ORDER] for t in _basis_series(arb(a).union(arb(b)), k, ORDER + 1)])
    V = arb_mat(rows) * M
    rr = arb(0, (b - a) / 2)
    gam, loose, centre = [arb(0)] * (ORDER + 1), arb(0), arb(0)
    for nu in range(k + 1):
        col = [V[j, nu] for j in range(ORDER + 1)]
        centre += abs(col[0])
        rng = sum((col[j] * ipow(rr, j) for j in range(1, ORDER + 1)), col[0])
        if rng > 0 or rng < 0:
            sgn = 1 if rng > 0 else -1
            gam = [g + sgn * x for g, x in zip(gam, col)]
        else:
            loose += rng.abs_upper()
    total = gam[0] + sum((abs(g) * ipow(r, j) for j, g in enumerate(gam) if j), arb(0)) + loose
    return total, centre


def verify_lebesgue(obj: object, evidence: object, ck: Checks, out: list[str]) -> None:
    st = expect_keys(obj, "statement", ("k", "h", "lower", "upper"), ("basis",))
    k = read_int(st["k"], "statement.k", 1, 1000)
    h = read_int(st["h"], "statement.h", 1, 64)
    if h * h * k**4 > MAX_COST:
        raise Malformed(f"statement: k = {k}, h = {h} is over the verifier's cap "
                        f"h^2 k^4 <= {MAX_COST} (the certifier's limit)")
    lower = read_exact(st["lower"], "statement.lower")
    upper = read_exact(st["upper"], "statement.upper")
    basis: list[list[fmpq]] | None = None
    if st.get("basis") is not None:
        basis = [[read_exact(x, "statement.basis") for x in read_list(row, "statement.basis",
                                                                       k + 1, k + 1)]
                 for row in read_list(st["basis"], "statement.basis", k + 1, k + 1)]
    ev = expect_keys(evidence, "evidence", ("witness", "pieces"))
    wit = read_exact(ev["witness"], "evidence.witness")
    pieces = [read_interval(p, "evidence.pieces")
              for p in read_list(ev["pieces"], "evidence.pieces", 0, 2_000_000)]
    out += [f"Iterated Bernstein basis b^(h)_(nu,k) of alda2017 Definition 8, k = {k}, h = {h}.",
            say("Claim: ", shown(lower), " <= Lambda = max over y in [0,1] of "
                "sum_nu |b^(h)_(nu,k)(y)| <= ", shown(upper), ".")]
    if basis is not None:
        out.append("Claim: basis[nu][mu] are the Bernstein coefficients of b^(h)_(nu,k).")
    ck.add("lower <= upper", lower <= upper, f"{show(lower)} <= {show(upper)}")
    ck.add("A commutes with the reversal", all(comb(k, n) == comb(k, k - n) for n in range(k + 1)),
           "A[k-mu][k-nu] = A[mu][nu] since C(k,nu) = C(k,k-nu)")
    cost = (k + 1) ** 3 * (h - 1) ** 2 * k
    exact = None
    if cost <= 2 * 10**9 or (basis is not None and cost <= 3 * 10**10):
        ck.tick()
        exact = _exact_M(k, h, ck.tick)
    if exact:
        S, den = exact
        ck.add("M commutes with the reversal", all(
            S[k - m, k - n] == S[m, n] for m in range(k + 1) for n in range(k + 1)), "exact")
        ck.add("rows of M sum to 1", all(
            sum((S[m, n] for n in range(k + 1)), fmpz(0)) == den for m in range(k + 1)), "exact")
    if basis is not None:
        if exact:
            ok = all(basis[n][m] * den == S[m, n] for m in range(k + 1) for n in range(k + 1))
            ck.add("basis", ok, "recomputed exactly")
        else:
            ck.add("basis", None, "too large to recompute exactly")
    if exact and all(S[m, n] >= 0 for m in range(k + 1) for n in range(k + 1)):
        ck.add("Lambda <= upper", upper >= 1, "M >= 0, so U(y) = 1 for every y: Lambda = 1")
        ck.add("witness: U >= lower", lower <= 1 and 0 <= wit <= 1, "U(y) = 1 on [0, 1]")
        return
    cache: dict[int, arb_mat] = {}

    def M_at(prec: int) -> arb_mat:
        if prec not in cache:
            with working(prec):
                cache[prec] = arb_mat(fmpq_mat(exact[0]) / exact[1]) if exact else \
                    _arb_M(k, h)
        return cache[prec]

    start = 64 + 2 * h + 2 * (k + 1).bit_length()
    ck.run("pieces tile [0, 1/2]", lambda: _tiling(pieces))
    if ck.items[-1][1]:
        ck.run("Lambda <= upper", lambda: _upper(pieces, k, upper, start, M_at, ck))

    def pred() -> bool | None:
        M = M_at(ctx.prec)
        v = arb_mat([_basis_values(arb(wit), k)]) * M
        u = sum((abs(v[0, n]) for n in range(k + 1)), arb(0))
        return True if u >= arb(lower) else False if u < arb(lower) else None
    if not 0 <= wit <= 1:
        ck.add("witness: U >= lower", False, "the witness is not in [0, 1]")
    elif exact:
        y = [comb(k, m) * wit**m * (1 - wit) ** (k - m) for m in range(k + 1)]
        v = fmpq_mat(1, k + 1, y) * fmpq_mat(exact[0]) / exact[1]
        u = sum((abs(v[0, n]) for n in range(k + 1)), fmpq(0))
        ck.add("witness: U >= lower", u >= lower, f"U({show(wit)}) = {show(u)}")
    else:
        ck.run("witness: U >= lower", lambda: (decide(pred, start), f"at y = {show(wit)}"))


def _tiling(pieces: list[tuple[fmpq, fmpq]]) -> tuple[bool, str]:
    ps = sorted(pieces)
    ok = bool(ps) and ps[0][0] == 0 and ps[-1][1] == fmpq(1, 2) and all(
        p[1] == q[0] for p, q in zip(ps, ps[1:]))
    return ok, f"{len(ps)} pieces" + ("" if ok else " leave a gap or overlap")


def _upper(pieces: list[tuple[fmpq, fmpq]], k: int, upper: fmpq, start: int,
           M_at: Callable[[int], arb_mat], ck: Checks) -> tuple[bool | None, str]:
    def examine(piece: tuple[fmpq, fmpq], prec: int) -> str:
        a, b = piece
        M = M_at(prec)
        with working(prec, ORDER + 2):
            bound, centre = _piece(M, k, a, b)
            u = arb(upper)
            if bound <= u:
                return BOUNDED
            if centre > u:
                raise Refuted(f"U > upper at y = {show((a + b) / 2)}")
            return MORE_PRECISION if 8 * arb(centre.rad()) > (u - centre).mid() else BISECT

    def bisect(piece: tuple[fmpq, fmpq]) -> list[tuple[fmpq, fmpq]]:
        m = (piece[0] + piece[1]) / 2
        return [(piece[0], m), (m, piece[1])]

    return refine([(p, start) for p in pieces], examine, bisect,
                  lambda p: f"[{show(p[0])}, {show(p[1])}]", ck, MAX_PREC)
