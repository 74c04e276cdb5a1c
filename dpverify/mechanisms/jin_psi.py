"""Private subspace iteration (jin Algorithm 2, Theorems 3.4/3.6; Hardt 2013) with exact noise.

Algorithm (jin Algorithm 2, as implemented)
-------------------------------------------
``A = (1/n) sum_x x x^T - mu mu^T`` (the covariance of the rows, jin writes
``(1/n) D D^T - Dbar^T Dbar``).  ``X^(0) = GS(G^(0))`` for a data-independent random
``G^(0)``; for ``l = 1..L``: ``W^(l) = A X^(l-1) + Z^(l)``, ``X^(l) = GS(W^(l))`` (QR with a
positive diagonal).  Output: ``X^(L)`` (private top-k eigenvectors) and
``lambda_s = x_s^(L-1)T w_s^(L)`` (a private Rayleigh quotient; jin Corollary 3.5 uses
``sqrt(x^T A^2 x)``, which reads ``A`` again and is not private as printed -- we only use the
released ``W^(L)``).  The ellipsoid ``{mu + sum_s z_s r sqrt(lambda_s) x_s : ||z|| <= 1}``
(jin §3.4) is sampled by :func:`ellipsoid_points`.

Sensitivity (derived here; one row replaced, same n)
----------------------------------------------------
With ``s_o`` the sum of the other ``n - 1`` rows and ``mu_o = s_o/(n-1)``,
``n^2 A = n S - s s^T`` gives exactly ::

    A(D') - A(D) = (n-1)/n^2 * (a a^T - b b^T),  a = x' - mu_o,  b = x - mu_o.

Every entry satisfies ``|a_i a_j - b_i b_j| <= 4`` (per coordinate ``(a_i, b_i)`` lie in a
common interval of length 2 containing 0: if ``a_i a_j > 0 > b_i b_j`` then, after a common
sign flip, ``a_i, a_j > 0``, ``b_i < 0 < b_j``, so ``a_i + |b_i| <= 2`` and ``a_i a_j + |b_i|
b_j <= 2 a_i + 2|b_i| <= 4``; the other sign cases are ``<= |a_i a_j|`` or ``|b_i b_j|``).
Hence with ``c = (n-1)/n^2``:

* ``||Delta A||_2 <= ||Delta A||_F <= 4 d c`` (attained: ``x' = 1``, ``x = -1``, other rows
  ``-1``: ``Delta A = 4 c 1 1^T``); jin Lemma A.4 prints ``5d/n`` (valid, not tight);
* ``||Delta A X||_F <= 4 d c min(||X||_F, ||X||_2)`` and ``||X||_2^2 <= G(X)``, the Gershgorin
  bound of ``X^T X`` -- exact rationals for the float (dyadic) ``X`` actually used, so ``X``
  need not be exactly orthonormal (for orthonormal ``X`` this is ``4 d c``, independent of
  ``k``);
* ``||vec(Delta A X)||_1 <= ||Delta A||_{1->1} ||vec X||_1 <= 4 d c ||vec X||_1``
  (``<= 4 d^{3/2} k c`` for orthonormal ``X``; attained for ``k = 1``, ``X = 1/sqrt(d)``).

Exactness: rows are first rounded to ``2^-20`` (a per-row map in ``[-1,1]^d``, so neighbours
stay neighbours); ``n^2 2^40 A`` is then an integer matrix and ``A X^(l-1)`` (``X`` public,
its float entries are dyadic rationals) is computed **exactly** (fmpz), rounded exactly to
the noise grid ``g`` (adds ``g`` per coordinate to the sensitivity: ``sqrt(dk) g`` in L2,
``dk g`` in L1) and perturbed with exact discrete Gaussian (zCDP, CKS 2020 Theorem 14) or
discrete Laplace noise on that grid.  Each step's noise is calibrated to that step's exact
sensitivity bound (``X^(l-1)`` is public); zCDP / pure epsilon compose additively over the
``L`` steps (adaptive composition).

Printed scales (jin Theorem 3.6; see :func:`paper_psi_scales` and the claims ledger)
------------------------------------------------------------------------------------
``sigma_G = 5 d sqrt(4 k L log(1/delta))/(n eps)`` and ``sigma_L = 50 d^{3/2} k L/(n eps)``,
multiplied in step 5 by ``||X^(l-1)||_inf`` (max entry).  With multiplier 1 both are valid
with the derived sensitivity (Gaussian: ``eps' ~ 0.57 eps/sqrt(k)``; Laplace: ``0.08 eps``).
The ``||X||_inf`` multiplier (Hardt's entry-wise neighbouring relation) does not fit this
neighbouring relation: ``||X||_inf`` can be ``1/sqrt(d)`` while ``||Delta A X||`` keeps its
worst case; the Laplace version still certifies for ``d <= 156`` (``0.08 sqrt(d) eps``), the
Gaussian one only for ``d <= 3 k``.  The mechanism here uses no such multiplier.

Guarantee
---------
(epsilon, delta)-DP (Gaussian, via zCDP: Bun-Steinke 2016 Prop. 1.3/1.6) or epsilon-DP
(Laplace), for every output, with exact noise and an exactly computed perturbed quantity;
the Gram-Schmidt steps, eigenvalues and ellipsoid are float post-processing (no guarantee
beyond that).  Accuracy: heuristic (jin Theorem 3.4's constants are unspecified).
References: jin Algorithm 2, Lemma A.4, Theorem 3.6; Hardt 2013 (arXiv:1311.2495).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import numpy as np
from flint import arb, ctx, fmpq, fmpz_mat

from ..errors import CertificationFailed, InvalidParameterError
from ..noise import RandomSource, discrete_gaussian_vector, discrete_laplace_vector
from ..numbers import (
    ExactLike,
    IntLike,
    arb_to_fmpq_bounds,
    check_int,
    fmpq_str,
    fmpq_to_decimal,
    to_fmpq,
)
from .privacy import check_delta, check_epsilon, rho_to_epsilon

__all__ = [
    "DATA_BITS",
    "PSI_GRID",
    "covariance_change",
    "psi_sensitivity",
    "step_sensitivity",
    "paper_psi_scales",
    "psi_privacy",
    "PSIResult",
    "private_subspace_iteration",
    "ellipsoid_points",
]

#: Rows are rounded to multiples of 2^-DATA_BITS before the exact covariance.
DATA_BITS = 20
#: Noise grid of the released W^(l).
PSI_GRID = fmpq(1, 2**32)
#: Largest d accepted.
MAX_D = 1000


def _c(n: int) -> fmpq:
    return fmpq(n - 1, n * n)


def covariance_change(x: Any, x_prime: Any, others: Any) -> list[list[fmpq]]:
    """Exact ``A(D') - A(D)`` for ``D = others + [x]``, ``D' = others + [x']`` (fmpq matrix as
    nested lists), straight from the definition ``A = (1/n) sum r r^T - mu mu^T``.  For tests
    and the ledger (brute force)."""
    rows = [[to_fmpq(v, "row") for v in r] for r in others]
    xa = [to_fmpq(v, "x") for v in x]
    xb = [to_fmpq(v, "x_prime") for v in x_prime]
    d = len(xa)

    def cov(D: list[list[fmpq]]) -> list[list[fmpq]]:
        n = len(D)
        mu = [sum((r[i] for r in D), fmpq(0)) / n for i in range(d)]
        return [[sum((r[i] * r[j] for r in D), fmpq(0)) / n - mu[i] * mu[j] for j in range(d)]
                for i in range(d)]

    A, B = cov(rows + [xa]), cov(rows + [xb])
    return [[B[i][j] - A[i][j] for j in range(d)] for i in range(d)]


def psi_sensitivity(d: IntLike, n: IntLike) -> dict:
    """Exact worst-case norms of ``Delta A`` (see the module docstring).

    Returns ``spectral`` = ``frobenius`` bound ``4 d (n-1)/n^2`` (attained by the witness),
    ``max_entry`` ``4 (n-1)/n^2``, jin Lemma A.4's ``5d/n`` and the witness databases.

    Guarantee
    ---------
    Exact (fmpq); the bound is a theorem (proof in the module docstring) and is attained.
    """
    d = check_int(d, "d", minimum=1, maximum=MAX_D)
    n = check_int(n, "n", minimum=2)
    c = _c(n)
    return {
        "spectral": fmpq_str(4 * d * c),
        "frobenius": fmpq_str(4 * d * c),
        "max_entry": fmpq_str(4 * c),
        "l1_times_vecX_l1": fmpq_str(4 * d * c),
        "jin_lemma_A4": fmpq_str(fmpq(5 * d, n)),
        "witness": "n-1 rows (-1,...,-1); x = (-1,...,-1) replaced by x' = (1,...,1): "
        "Delta A = 4 (n-1)/n^2 * 1 1^T",
    }


def _x_exact(X: np.ndarray) -> tuple[fmpz_mat, int]:
    """Float matrix as ``Xint / 2^e`` exactly (floats are dyadic rationals)."""
    fr = [Fraction(float(v)) for v in X.ravel()]
    e = max(f.denominator for f in fr).bit_length() - 1
    ints = [f.numerator * ((1 << e) // f.denominator) for f in fr]
    return fmpz_mat(X.shape[0], X.shape[1], ints), e


def step_sensitivity(X: Any, n: IntLike) -> dict:
    """Exact upper bounds on ``||Delta A X||_F^2`` and ``||vec(Delta A X)||_1`` for the float
    matrix ``X`` (read as exact dyadic rationals), before rounding to the noise grid.

    Guarantee
    ---------
    Exact rationals; ``l2_squared = (4 d c)^2 min(||X||_F^2, G)`` with ``G`` the Gershgorin
    bound of ``X^T X`` (``>= ||X||_2^2``) and ``l1 = 4 d c ||vec X||_1``, ``c = (n-1)/n^2``.
    """
    X = np.asarray(X, dtype=np.float64)
    if X.ndim != 2 or not np.all(np.isfinite(X)):
        raise InvalidParameterError("X must be a finite (d, k) array")
    n = check_int(n, "n", minimum=2)
    d, k = X.shape
    Xi, e = _x_exact(X)
    vals = [int(v) for v in Xi.entries()]
    den = 1 << e
    fro2 = fmpq(sum(v * v for v in vals), den * den)
    l1 = fmpq(sum(abs(v) for v in vals), den)
    gram = Xi.transpose() * Xi
    gv = [int(v) for v in gram.entries()]
    gersh = fmpq(max(sum(abs(gv[i * k + j]) for j in range(k)) for i in range(k)), den * den)
    a = 4 * d * _c(n)
    return {"frobenius_squared": fro2, "gershgorin": gersh, "vec_l1": l1,
            "l2_squared": a * a * min(fro2, gersh), "l1": a * l1}


def _upper_sqrt(q: fmpq) -> fmpq:
    with ctx.workprec(128):
        return arb_to_fmpq_bounds(arb(q).sqrt())[1]


def _dyadic_up(q: fmpq, bits: int = 48) -> fmpq:
    """Smallest ``m 2^-j >= q`` with about ``bits`` significant bits (keeps integers small)."""
    if q <= 0:
        return q
    e = max(0, bits - (int(q.p).bit_length() - int(q.q).bit_length()))
    m = q * 2**e
    return fmpq(-((-m.p) // m.q), 2**e)


def _rho_budget(epsilon: fmpq, delta: fmpq) -> fmpq:
    """A rational ``rho`` with ``rho + 2 sqrt(rho ln(1/delta)) <= epsilon`` (certified)."""
    with ctx.workprec(128):
        L = -arb(delta).log()
        rho = ((L + arb(epsilon)).sqrt() - L.sqrt()) ** 2
        cand = arb_to_fmpq_bounds(rho * (1 - arb(fmpq(1, 2**30))))[0]
        cand = fmpq(int((cand * 2**60).p // (cand * 2**60).q), 2**60)
        if cand <= 0:
            raise InvalidParameterError(
                f"epsilon {fmpq_str(epsilon)} is too small for delta {fmpq_str(delta)}: the "
                "zCDP budget rounds to 0")
        if not bool(rho_to_epsilon(cand, delta) <= arb(epsilon)):
            raise CertificationFailed("could not certify the zCDP budget")
    return cand


def paper_psi_scales(d: IntLike, k: IntLike, L: IntLike, n: IntLike, epsilon: ExactLike,
                     delta: ExactLike | None = None) -> dict:
    """jin Theorem 3.6's printed scales and what they achieve with the derived sensitivity.

    For orthonormal ``X``: per step ``Delta_2 <= 4 d c`` and ``Delta_1 <= 4 d c ||vec X||_1``
    with ``||vec X||_1 <= k sqrt(d)`` (``<= d k m`` when every entry is ``<= m``).  The
    printed noise is ``m * sigma`` with ``m = ||X^(l-1)||_inf``; reported for ``m = 1`` and
    the worst case ``m = 1/sqrt(d)`` (a unit column has an entry ``>= 1/sqrt(d)``).

    Guarantee
    ---------
    Gaussian: ``rho = L Delta_2^2/(2 m^2 sigma^2)`` exact for ``m = 1`` (and ``m^2 = 1/d``),
    ``epsilon = rho + 2 sqrt(rho ln(1/delta))`` rigorous upper bound (arb, rounded up).
    Laplace: ``epsilon = L Delta_1/(m sigma)`` upper bounds (arb, rounded up).  These are the
    epsilons the *proof route* certifies; ``valid`` is whether they are ``<= epsilon``.
    """
    d = check_int(d, "d", minimum=1, maximum=MAX_D)
    k = check_int(k, "k", minimum=1, maximum=d)
    L = check_int(L, "L", minimum=1)
    n = check_int(n, "n", minimum=2)
    eps = check_epsilon(epsilon)
    c = _c(n)
    out: dict[str, Any] = {}
    with ctx.workprec(128):
        ad, ae = arb(d), arb(eps)
        sig_l = 50 * ad ** arb(1.5) * k * L / (n * ae)
        d1 = 4 * d * arb(c) * k * ad.sqrt()  # m = 1, orthonormal X
        d1w = 4 * arb(d) * arb(c) * d * k  # Delta_1/m <= 4 d c d k
        e1, e1w = L * d1 / sig_l, L * d1w / sig_l
        out["laplace"] = {
            "printed_sigma": fmpq_to_dec(sig_l),
            "delta1_orthonormal_upper": fmpq_to_dec(d1),
            "epsilon_multiplier_1": fmpq_to_dec(e1),
            "epsilon_multiplier_worst": fmpq_to_dec(e1w),
            "valid_multiplier_1": bool(e1 <= ae),
            "valid_multiplier_worst": bool(e1w <= ae),
        }
        if delta is not None:
            dl = check_delta(delta)
            lg = -arb(dl).log()
            sig2 = 25 * ad * ad * 4 * k * L * lg / (n * n * ae * ae)
            d2sq = (4 * d * c) ** 2
            rho1 = L * arb(d2sq) / (2 * sig2)
            rhow = rho1 * d
            e_g1 = rho1 + 2 * (rho1 * lg).sqrt()
            e_gw = rhow + 2 * (rhow * lg).sqrt()
            out["gaussian"] = {
                "printed_sigma": fmpq_to_dec(sig2.sqrt()),
                "delta2_orthonormal": fmpq_str(4 * d * c),
                "rho_multiplier_1": fmpq_to_dec(rho1),
                "epsilon_multiplier_1": fmpq_to_dec(e_g1),
                "epsilon_multiplier_worst": fmpq_to_dec(e_gw),
                "valid_multiplier_1": bool(e_g1 <= ae),
                "valid_multiplier_worst": bool(e_gw <= ae),
            }
    return out


def fmpq_to_dec(x: arb) -> str:
    """Upper endpoint of an arb ball as a decimal string rounded up."""
    return fmpq_to_decimal(arb_to_fmpq_bounds(x)[1], 8, rounding="up")


def psi_privacy(d: IntLike, k: IntLike, L: IntLike, n: IntLike, epsilon: ExactLike,
                delta: ExactLike | None = None,
                grid: Any = None) -> dict:
    """A-priori privacy record of :func:`private_subspace_iteration` for orthonormal ``X``
    (``||X||_F^2 = k``, ``||vec X||_1 <= k sqrt(d)``): derived sensitivities, the per-step
    noise scale (grid units included), and the printed Theorem 3.6 scales for comparison.
    The mechanism itself recomputes each step's bound from the exact ``X`` it uses.

    Guarantee
    ---------
    Exact rationals (sensitivities, rho, scales); the epsilons are rigorous upper bounds.
    """
    d = check_int(d, "d", minimum=1, maximum=MAX_D)
    k = check_int(k, "k", minimum=1, maximum=d)
    L = check_int(L, "L", minimum=1, maximum=10_000)
    n = check_int(n, "n", minimum=2)
    eps = check_epsilon(epsilon)
    g = PSI_GRID if grid is None else to_fmpq(grid, "grid")
    c = _c(n)
    rec: dict[str, Any] = {
        "neighbouring": "same n, one row replaced",
        "mechanism": "jin Algorithm 2 (private subspace iteration), exact noise",
        "d": d, "k": k, "iterations": L, "grid": fmpq_str(g),
        "covariance_sensitivity": psi_sensitivity(d, n),
    }
    if delta is not None:
        dl = check_delta(delta)
        rho = _rho_budget(eps, dl)
        d2 = 4 * d * c  # orthonormal X
        du = _upper_sqrt(fmpq(d * k)) + d2 / g  # grid units, rounding included
        s2u = _dyadic_up(du * du * L / (2 * rho))
        rho_used = L * du * du / (2 * s2u)
        with ctx.workprec(128):
            e_used = arb_to_fmpq_bounds(rho_to_epsilon(rho_used, dl))[1]
        rec.update({
            "noise": "discrete Gaussian on grid g (exact sampler), zCDP composition",
            "l2_sensitivity_per_step": fmpq_str(d2),
            "l2_sensitivity_per_step_units": fmpq_str(du),
            "sigma2_units": fmpq_str(s2u),
            "sigma_approx": float(s2u) ** 0.5 * float(g),
            "rho_zcdp": fmpq_str(rho_used),
            "epsilon": fmpq_str(eps), "delta": fmpq_str(dl),
            "achieved_epsilon": fmpq_str(e_used),
        })
    else:
        with ctx.workprec(128):
            l1x = arb_to_fmpq_bounds(k * arb(d).sqrt())[1]
        d1 = 4 * d * c * l1x
        du = d1 / g + d * k
        s_units = du * L / eps
        rec.update({
            "noise": "discrete Laplace on grid g (exact sampler), basic composition",
            "l1_sensitivity_per_step": fmpq_str(d1),
            "l1_sensitivity_per_step_units": fmpq_str(du),
            "scale_units": fmpq_str(s_units),
            "scale_approx": float(s_units) * float(g),
            "epsilon": fmpq_str(eps),
            "achieved_epsilon": fmpq_str(L * du / s_units),
        })
    rec["paper"] = paper_psi_scales(d, k, L, n, eps, delta)
    return rec


@dataclass(frozen=True)
class PSIResult:
    """Private top-k eigenpairs: ``vectors`` (d, k) orthonormal columns, ``eigenvalues`` (k,)."""

    vectors: np.ndarray
    eigenvalues: np.ndarray
    privacy: dict
    info: dict = field(default_factory=dict)


def _round_rows(X: np.ndarray) -> np.ndarray:
    """Rows rounded to multiples of 2^-DATA_BITS, as integers (per-row map)."""
    return np.rint(X * 2**DATA_BITS).astype(np.int64)


def _scaled_cov(Z: np.ndarray) -> fmpz_mat:
    """``n^2 2^(2b) A`` as an exact integer matrix (``n S - s s^T``)."""
    n, d = Z.shape
    if n * 4**DATA_BITS < 2**62:
        S = (Z.T @ Z).tolist()
        s = Z.sum(axis=0).tolist()
    else:  # exact Python-int accumulation (slow path for very large n)
        Zo = Z.astype(object)
        S = (Zo.T @ Zo).tolist()
        s = Zo.sum(axis=0).tolist()
    ents = [n * int(S[i][j]) - int(s[i]) * int(s[j]) for i in range(d) for j in range(d)]
    return fmpz_mat(d, d, ents)


def _gs(W: np.ndarray) -> np.ndarray:
    Q, R = np.linalg.qr(W)
    sgn = np.sign(np.diag(R))
    sgn[sgn == 0] = 1
    return Q * sgn[None, :]


def private_subspace_iteration(
    data: Any, k: Any, L: Any, epsilon: Any, *, delta: Any = None, grid: Any = None,
    insecure_seed: Any = None,
) -> PSIResult:
    """jin Algorithm 2 with the derived sensitivity and exact noise (module docstring).

    Parameters
    ----------
    data : (n, d) array in [-1, 1]
    k : number of eigenpairs (1..d);  L : iterations
    epsilon : exact > 0;  delta : exact in (0, 1) -> discrete Gaussian / zCDP, else
        discrete Laplace (pure epsilon).
    grid : noise grid (default :data:`PSI_GRID`);  insecure_seed : tests only (NOT private).

    Guarantee
    ---------
    epsilon-DP (Laplace) or (epsilon, delta)-DP (Gaussian via zCDP), rigorous: the perturbed
    ``A X^(l-1)`` is exact and each step's noise uses the exact sensitivity bound of
    :func:`step_sensitivity` for the ``X^(l-1)`` actually used; ``privacy`` records every
    step.  Eigenvectors/eigenvalues are float post-processing.  jin Algorithm 2.
    """
    X = np.asarray(data, dtype=np.float64)
    if X.ndim != 2 or X.shape[0] < 2:
        raise InvalidParameterError("data must be an (n, d) array with n >= 2")
    n, d = X.shape
    if d > MAX_D:
        raise InvalidParameterError(f"data dimension d must be <= {MAX_D}, got {d}")
    if not np.all(np.isfinite(X)) or X.min() < -1 or X.max() > 1:
        raise InvalidParameterError("data values must lie in [-1, 1]")
    k = check_int(k, "k", minimum=1, maximum=d)
    L = check_int(L, "L", minimum=1, maximum=10_000)
    eps = check_epsilon(epsilon)
    dl = None if delta is None else check_delta(delta)
    g = PSI_GRID if grid is None else to_fmpq(grid, "grid")
    if g <= 0 or g > fmpq(1, 1024):
        raise InvalidParameterError(f"grid must be in (0, 1/1024], got {fmpq_str(g)}")
    rng = RandomSource(None if insecure_seed is None else check_int(insecure_seed,
                                                                    "insecure_seed"))
    M = _scaled_cov(_round_rows(X))
    den_A = n * n * 4**DATA_BITS
    # data-independent start: exact discrete Gaussian draws (no privacy role)
    G0 = np.array(discrete_gaussian_vector(d * k, 2**20, rng=rng), dtype=np.float64)
    Xc = _gs(G0.reshape(d, k))
    rho_step = None if dl is None else _rho_budget(eps, dl) / L
    steps = []
    rho_tot, eps_tot = fmpq(0), fmpq(0)
    W = Xprev = Xc
    for _ in range(L):
        sens = step_sensitivity(Xc, n)
        Xi, e = _x_exact(Xc)
        P = M * Xi  # exact: n^2 2^(2b) 2^e * A X
        den = den_A * (1 << e)
        gq, gp = int(g.q), int(g.p)
        # round(A X / g) = round(P gq / (den gp)), ties up, exact integers
        num_scale, den_scale = gq, den * gp
        ints = [(2 * int(v) * num_scale + den_scale) // (2 * den_scale) for v in P.entries()]
        if rho_step is not None:  # delta given: Gaussian noise, rho split over the L steps
            du = _upper_sqrt(sens["l2_squared"]) / g + _upper_sqrt(fmpq(d * k))
            s2u = _dyadic_up(du * du / (2 * rho_step))
            noise = discrete_gaussian_vector(d * k, s2u, rng=rng)
            r_l = du * du / (2 * s2u)
            rho_tot += r_l
            steps.append({"l2_units": fmpq_str(du), "sigma2_units": fmpq_str(s2u),
                          "rho": fmpq_str(r_l)})
        else:
            du = sens["l1"] / g + d * k
            s_u = du * L / eps
            noise = discrete_laplace_vector(d * k, s_u, rng=rng)
            eps_tot += du / s_u
            steps.append({"l1_units": fmpq_str(du), "scale_units": fmpq_str(s_u)})
        W = np.array([(a + z) for a, z in zip(ints, noise, strict=True)],
                     dtype=np.float64).reshape(d, k) * float(g)
        Xprev, Xc = Xc, _gs(W)
    lam = np.maximum(np.einsum("ij,ij->j", Xprev, W), 0.0)  # x_s^(L-1)T w_s^(L)
    order = np.argsort(-lam, kind="stable")
    privacy: dict[str, Any] = {
        "neighbouring": "same n, one row replaced",
        "mechanism": "jin Algorithm 2 (private subspace iteration), exact noise",
        "covariance_sensitivity": psi_sensitivity(d, n),
        "grid": fmpq_str(g),
        "iterations": L,
        "steps": steps,
        "epsilon": fmpq_str(eps),
    }
    if dl is not None:
        # guarantee: every step is <= rho_step-zCDP by construction (whatever X^(l-1) is),
        # so the total is <= L rho_step (adaptive zCDP composition); rho_spent is the sum of
        # the per-step values actually used (<= the budget)
        budget = L * rho_step
        with ctx.workprec(128):
            ach = arb_to_fmpq_bounds(rho_to_epsilon(budget, dl))[1]
        privacy.update({"noise": "discrete Gaussian (CKS 2020), zCDP composition",
                        "rho_zcdp": fmpq_str(budget), "rho_spent": fmpq_str(rho_tot),
                        "delta": fmpq_str(dl), "achieved_epsilon": fmpq_str(ach)})
        if rho_tot > budget:
            raise CertificationFailed("PSI zCDP budget exceeded")
        if ach > eps:  # never happens by construction; fail rather than lie
            raise CertificationFailed("PSI privacy budget exceeded")
    else:
        privacy.update({"noise": "discrete Laplace (CKS 2020), basic composition",
                        "achieved_epsilon": fmpq_str(eps_tot)})
    info = {"k": k, "L": L, "n": n, "d": d}
    return PSIResult(Xc[:, order], lam[order], privacy, info)


def ellipsoid_points(psi: PSIResult, centre: Any, C: Any, *, radius_scale: Any = 1.0,
                     seed: Any = 0) -> np.ndarray:
    """``C`` points uniform in ``{centre + sum_s z_s r sqrt(lambda_s) x_s : ||z|| <= 1}``
    clipped to ``[-1, 1]^d`` (jin §3.4; ``r = radius_scale``, jin: 1).

    Post-processing of private outputs (``psi`` and a private ``centre``); numpy generator
    for the public sampling only (no privacy role).  Float, no guarantee.
    """
    C = check_int(C, "C", minimum=1, maximum=10**7)
    c0 = np.asarray(centre, dtype=np.float64).ravel()
    d, k = psi.vectors.shape
    if c0.shape != (d,) or not np.all(np.isfinite(c0)):
        raise InvalidParameterError(f"centre must be a finite vector of length {d}")
    r = float(radius_scale)
    if not r > 0:
        raise InvalidParameterError(f"radius_scale must be > 0, got {radius_scale!r}")
    gen = np.random.default_rng(check_int(seed, "seed", minimum=0))  # post-processing only
    z = gen.standard_normal((C, k))
    z /= np.linalg.norm(z, axis=1, keepdims=True)
    z *= gen.random((C, 1)) ** (1.0 / k)  # uniform in the unit k-ball
    radii = r * np.sqrt(np.maximum(psi.eigenvalues, 0.0))
    pts = c0[None, :] + (z * radii[None, :]) @ psi.vectors.T
    return np.clip(pts, -1.0, 1.0)
