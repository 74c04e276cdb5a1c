"""Privacy accounting of jin's synthetic database without data (what ``dpverify privacy
jin`` prints): the noisy moments -- the full Chebyshev tensor of wang2013 Algorithm 1 (jin
Algorithm 1 step 9) or the basis subset of total degree ``<= S`` (jin §3.4) -- optionally
the private subspace iteration (jin Algorithm 2) and their basic composition.

The records come from :func:`dpverify.mechanisms.wang_summary.wang_privacy`,
:func:`dpverify.mechanisms.jin_synthetic.basis_privacy` and
:func:`dpverify.mechanisms.jin_psi.psi_privacy`; this module only chooses, validates and
composes them, so that a release and its a-priori certificate use the same maps.

Guarantee
---------
Sensitivities and scales exact; epsilons exact (pure) or rigorous upper bounds (advanced
composition, zCDP conversion); the total is the exact sum (basic composition).  Errors name
the function's parameters (``t``, ``basis_degree``, ``psi_k``...), never command-line flags.
"""

from __future__ import annotations

from math import comb
from typing import Any

from ..errors import InvalidParameterError
from ..noise import check_delta, check_epsilon
from ..numbers import ExactLike, IntLike, check_int, to_fmpq
from .jin_psi import psi_privacy
from .jin_synthetic import MAX_BASIS, basis_privacy
from .privacy import compose_basic
from .wang_summary import MAX_MOMENTS, wang_privacy

__all__ = ["jin_privacy_report"]


def jin_privacy_report(
    n: IntLike,
    d: IntLike,
    epsilon: ExactLike,
    *,
    delta: ExactLike | None = None,
    t: IntLike | None = None,
    basis_degree: IntLike | None = None,
    grid: Any = None,
    psi_k: IntLike | None = None,
    psi_iters: IntLike = 10,
    psi_epsilon: Any = None,
    psi_delta: Any = None,
) -> dict[str, Any]:
    """A-priori privacy record of :func:`dpverify.mechanisms.jin_synthetic` releases.

    Parameters
    ----------
    n : int, ``1..2^40`` (``>= 2`` with PSI);  d : int (``1..4`` with ``t``, ``1..1000``
        with ``basis_degree``)
    epsilon, delta : the moments' target (exact; ``delta`` optional, advanced composition)
    t : int, optional -- full tensor ``||m||_inf <= t - 1`` (``t^d <= MAX_MOMENTS``)
    basis_degree : int, optional -- basis subset ``||r||_1 <= S`` (``C(d+S, S) <=
        MAX_BASIS``); exactly one of ``t`` and ``basis_degree``
    grid : exact, optional -- release grid (default chosen by the mechanism)
    psi_k, psi_iters, psi_epsilon, psi_delta : private subspace iteration (jin Algorithm
        2): ``k`` eigenpairs, ``L`` iterations, its own target (``psi_epsilon`` required
        with ``psi_k``; ``psi_delta``: discrete Gaussian noise, else discrete Laplace)

    Returns
    -------
    dict with ``variant`` (``"tensor"`` or ``"basis"``), ``n``, ``d``, ``t`` or
    ``basis_degree`` and ``basis_size``, ``moment_sensitivity_l1`` (``2 (M - 1)/n``
    without the grid, ``M`` the number of moments), ``moments`` (the record), and with PSI
    ``psi`` and ``total`` (basic composition, JSON).
    """
    eps = check_epsilon(epsilon)
    dl = None if delta is None else check_delta(delta)
    n = check_int(n, "n", minimum=1, maximum=2**40)
    g = None if grid is None else to_fmpq(grid, "grid")
    if (t is None) == (basis_degree is None):
        raise InvalidParameterError(
            "give exactly one of t (full tensor) or basis_degree (basis subset)")
    out: dict[str, Any] = {"n": n}
    if t is not None:
        d = check_int(d, "d", minimum=1, maximum=4)
        t = check_int(t, "t", minimum=1, maximum=10_000)
        if t**d > MAX_MOMENTS:
            raise InvalidParameterError(f"t: t^d = {t**d} moments exceed {MAX_MOMENTS}")
        mom, _ = wang_privacy(n, t, d, eps, dl, g)
        out.update(variant="tensor", d=d, t=t, moment_sensitivity_l1=f"{2 * (t**d - 1)}/{n}")
    else:
        d = check_int(d, "d", minimum=1, maximum=1000)
        S = check_int(basis_degree, "basis_degree", minimum=0, maximum=10_000)
        R = comb(d + S, S)
        if R > MAX_BASIS:
            raise InvalidParameterError(
                f"basis_degree: C(d+S, S) = {R} exceeds {MAX_BASIS}")
        mom, _ = basis_privacy(n, R, S, eps, dl, g)
        out.update(variant="basis", d=d, basis_degree=S, basis_size=R,
                   moment_sensitivity_l1=mom["moment_sensitivity_l1"])
    out["moments"] = mom
    if psi_k is None:
        if psi_epsilon is not None or psi_delta is not None:
            raise InvalidParameterError("psi_epsilon and psi_delta need psi_k")
        return out
    if psi_epsilon is None:
        raise InvalidParameterError("psi_epsilon is required with psi_k")
    k = check_int(psi_k, "psi_k", minimum=1, maximum=d)
    L = check_int(psi_iters, "psi_iters", minimum=1, maximum=10_000)
    pe = check_epsilon(psi_epsilon, "psi_epsilon")
    pd = None if psi_delta is None else check_delta(psi_delta, "psi_delta")
    if n < 2:
        raise InvalidParameterError(f"n must be >= 2 for the subspace iteration, got {n}")
    psi = psi_privacy(d, k, L, n, pe, pd)
    out["psi"] = psi
    out["psi_parameters"] = {"k": k, "iterations": L}
    out["total"] = compose_basic([mom, psi]).to_json()
    return out
