"""Float64 stability of the iterated Bernstein basis b^{(h)}_{nu,k} (alda2017 Def. 8).

Prints a markdown table of max_{nu, y} |float64 value - exact value| over the basis
polynomials and 1001 equispaced y in [0, 1], for two float64 implementations:

(a) monomial: the *exact* monomial coefficients of b^{(h)}_{nu,k}, rounded to float64,
    evaluated by Horner in float64.  This is the best case for a monomial pipeline
    (any float computation of the coefficients only adds error).
(b) bernstein: M = sum_{j<h} (I - A)^j computed in float64 (Horner on matrices,
    A[mu, nu] = b_{nu,k}(mu/k) in float64), then de Casteljau in float64 on the
    columns of M.

Reference values: the exact fmpq matrix M (dpverify.constructions.bernstein) times
the Bernstein basis vector b_{mu,k}(y), in arb at 256 bits (radius < 1e-60, far
below every reported error).

Run: ``python benchmarks/bernstein_float_stability.py`` (about a minute).
"""

from __future__ import annotations

import sys
import time
from math import comb, lgamma, log

import numpy as np
from flint import arb, arb_mat, ctx, fmpq, fmpq_poly

sys.path.insert(0, ".")
from dpverify.constructions.bernstein import iterated_basis_matrix  # noqa: E402

KS = (10, 20, 50, 100, 200)
HS = (1, 2, 4, 6)
NPTS = 1001


def reference(M, k: int, ys: list[fmpq]) -> np.ndarray:
    """(k+1) x NPTS array: b^{(h)}_{nu,k}(y) from the exact M, via arb at 256 bits."""
    old = ctx.prec
    ctx.prec = 256
    try:
        n = k + 1
        G = arb_mat(n, n, [arb(M[mu, nu]) for nu in range(n) for mu in range(n)])
        cols = []
        for y in ys:
            yb = arb(y)
            cols.append([comb(k, mu) * yb**mu * (1 - yb) ** (k - mu) for mu in range(n)])
        B = arb_mat(n, len(ys), [cols[j][i] for i in range(n) for j in range(len(ys))])
        P = G * B
        out = np.empty((n, len(ys)))
        for i in range(n):
            for j in range(len(ys)):
                out[i, j] = float(P[i, j].mid())
        return out
    finally:
        ctx.prec = old


def monomial_float(M, k: int, ys: np.ndarray) -> np.ndarray:
    n = k + 1
    out = np.empty((n, len(ys)))
    basis = [
        fmpq_poly([0, 1]) ** mu * fmpq_poly([1, -1]) ** (k - mu) * comb(k, mu) for mu in range(n)
    ]
    for nu in range(n):
        p = fmpq_poly(0)
        for mu in range(n):
            if M[mu, nu] != 0:
                p += basis[mu] * M[mu, nu]
        c = [float(x) for x in p.coeffs()] or [0.0]
        out[nu] = np.polynomial.polynomial.polyval(ys, c)
    return out


def bernstein_float(k: int, h: int, ys: np.ndarray) -> np.ndarray:
    n = k + 1
    A = np.empty((n, n))
    for mu in range(n):
        for nu in range(n):
            # b_{nu,k}(mu/k) in float64 via logs to avoid overflow of C(k, nu)
            if (mu == 0 and nu > 0) or (mu == k and nu < k):
                A[mu, nu] = 0.0
            else:
                lg = lgamma(k + 1) - lgamma(nu + 1) - lgamma(k - nu + 1)
                t = mu / k
                s = (nu * log(t) if nu else 0.0) + ((k - nu) * log(1 - t) if k - nu else 0.0)
                A[mu, nu] = np.exp(lg + s)
    E = np.eye(n) - A
    M = np.eye(n)
    for _ in range(h - 1):
        M = np.eye(n) + E @ M
    # de Casteljau on all columns at all points at once
    c = np.repeat(M.T[:, :, None], len(ys), axis=2)  # (nu, mu, y)
    y = ys[None, None, :]
    for r in range(k):
        c = (1 - y[:, :, :]) * c[:, : n - r - 1, :] + y * c[:, 1 : n - r, :]
    return c[:, 0, :]


def main() -> None:
    ys_q = [fmpq(i, NPTS - 1) for i in range(NPTS)]
    ys = np.array([i / (NPTS - 1) for i in range(NPTS)])
    rows = []
    for k in KS:
        for h in HS:
            t0 = time.perf_counter()
            M = iterated_basis_matrix(k, h)
            t_exact = time.perf_counter() - t0
            ref = reference(M, k, ys_q)
            err_mono = float(np.max(np.abs(monomial_float(M, k, ys) - ref)))
            err_bern = float(np.max(np.abs(bernstein_float(k, h, ys) - ref)))
            rows.append((k, h, err_mono, err_bern, t_exact))
            print(f"k={k} h={h}: monomial {err_mono:.3e}  bernstein {err_bern:.3e}  "
                  f"(exact M {t_exact:.2f} s)", file=sys.stderr, flush=True)
    print("| k | h | (a) monomial + Horner, float64 | (b) Bernstein M + de Casteljau, float64 "
          "| exact M time (s) |")
    print("|---:|---:|---:|---:|---:|")
    for k, h, a, b, t in rows:
        print(f"| {k} | {h} | {a:.2e} | {b:.2e} | {t:.2f} |")


if __name__ == "__main__":
    main()
