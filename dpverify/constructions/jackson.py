"""Generalized Jackson kernel and the operator ``I_{t,K}`` of wang2013 (Section 4.1).

Mathematics (every identity below is checked in ``tests/test_jackson.py``)
-------------------------------------------------------------------------
*Fejér square.*  ``F_t(s) = (sin(ts/2)/sin(s/2))^2 = sum_{|l|<t} (t-|l|) e^{ils}``, a
Laurent polynomial with positive integer coefficients.  Its ``r``-th power
``F_t^r = sum_{|l| <= r(t-1)} b_l e^{ils}`` again has integer coefficients
(``fmpz_poly`` power), ``b_l = b_{-l} > 0``.

*Kernel* (wang2013 Definition 4.1).  ``J_{t,r} = F_t^r / lambda_{t,r}`` with
``int_{-pi}^{pi} J_{t,r} = 1``; since ``int e^{ils} ds = 2 pi [l = 0]``,
``lambda_{t,r} = 2 pi b_0``.  Hence ``J_{t,r}(s) = a_0 + sum_{l>=1} a_l cos(ls)`` with
``2 pi a_0 = 1`` and ``2 pi a_l = 2 b_l / b_0`` (exact rationals), and
``deg J_{t,r} = r(t-1)`` exactly (``b_{r(t-1)} = 1``).  ``H_{t,r} = J_{t',r}`` with
``t' = floor(t/r) + 1`` has degree ``r floor(t/r) <= t`` (equality iff ``r | t``).

*Operator* (wang2013 eq. (2)), ``r = ceil((K+3)/2)``::

    I_{t,K}(g)(x) = - int_{-pi}^{pi} H_{t,r}(s) sum_{l=1}^{K+1} (-1)^l C(K+1,l) g(x+ls) ds.

For ``g = cos(n .)``: ``cos(n(x+ls)) = cos(nx)cos(nls) - sin(nx)sin(nls)`` and ``H`` is
even, so the sine part integrates to 0 and ``I_{t,K} cos(n.) = w_n cos(n.)`` with::

    w_n = - sum_{l=1}^{K+1} (-1)^l C(K+1,l) A_{ln},   A_m = int H(s) cos(ms) ds = b_m / b_0

(``b`` of ``F_{t'}^r``; ``A_0 = 1``, ``A_m = pi a_m`` for ``m >= 1``, ``A_m = 0`` for
``m > deg H``).  So ``w_0 = 1``, ``w_n`` is an exact rational, ``w_n = 0`` for
``n > deg H``, and on an even ``g = sum gamma_n cos(n.)`` the operator is the
multiplier ``gamma_n -> w_n gamma_n`` (the same holds for ``sin(n.)``).  With
``g_f(theta) = f(cos theta)`` and ``cos(n theta) = T_n(cos theta)``,
``I^d_{t,K} g_f`` is the damped Chebyshev series ``sum_n (prod_i w_{n_i}) c_n T_n(x)``.

Guarantee
---------
Kernel coefficients, degrees and multipliers are exact (``fmpz``/``fmpq``).
:func:`jackson_approx` returns an :class:`~dpverify.Approximation` whose coefficients
are rounded (documented there); it claims nothing; ``certify`` measures the true error.
"""

from __future__ import annotations

import math
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from flint import arb, ctx, fmpq, fmpz, fmpz_poly

from ..approximation import Approximation
from ..errors import InvalidParameterError
from ..exact import ChebyshevPoly, TensorPoly
from ..expr import Expr, parse
from ..numbers import arb_to_fmpq_bounds, check_int, fmpq_str
from ..progress import ProgressCallback
from .chebyshev_series import chebyshev_coefficients

if TYPE_CHECKING:  # dpverify.expr is imported on first use (start-up cost)
    from ..expr import Expr

__all__ = [
    "MAX_T",
    "MAX_R",
    "MAX_K",
    "MAX_KERNEL_DEGREE",
    "fejer_power",
    "t_prime",
    "jackson_r",
    "kernel_coefficients_2pi",
    "jackson_coefficients_2pi",
    "jackson_kernel_degree",
    "jackson_multipliers",
    "jackson_approx",
]

MAX_T = 100_000
MAX_R = 64
MAX_K = 120
#: refuse Fejér powers of larger degree r(t-1) (the coefficients have ~ deg*log2(t) bits)
MAX_KERNEL_DEGREE = 20_000
#: damped coefficients are rounded to the nearest multiple of 2^-ROUND_BITS
ROUND_BITS = 80


def _check_t(t: Any, name: str = "t") -> int:
    return check_int(t, name, minimum=1, maximum=MAX_T)


def _check_r(r: Any, name: str = "r") -> int:
    return check_int(r, name, minimum=1, maximum=MAX_R)


def _check_K(K: Any, name: str = "K") -> int:
    return check_int(K, name, minimum=0, maximum=MAX_K)


def jackson_r(K: int) -> int:
    """``r = ceil((K+3)/2)`` of wang2013 eq. (2) (needs ``2r - (K+1) >= 2``)."""
    K = _check_K(K)
    return (K + 4) // 2


def t_prime(t: int, r: int) -> int:
    """``t' = floor(t/r) + 1`` (wang2013 Section 4.1, below Definition 4.1)."""
    t, r = _check_t(t), _check_r(r)
    return t // r + 1


@lru_cache(maxsize=64)
def _fejer_power(t: int, r: int) -> tuple[fmpz, ...]:
    deg = r * (t - 1)
    if deg > MAX_KERNEL_DEGREE:
        raise InvalidParameterError(
            f"r*(t-1) must be <= {MAX_KERNEL_DEGREE} (kernel degree), got {deg} (t={t}, r={r})"
        )
    base = fmpz_poly([t - abs(j - (t - 1)) for j in range(2 * t - 1)])  # z^{t-1} F_t(z)
    p = base**r
    cs = p.coeffs()
    return tuple(fmpz(c) for c in cs[deg : 2 * deg + 1])


def fejer_power(t: int, r: int) -> list[fmpz]:
    """Integer coefficients ``b_0, ..., b_{r(t-1)}`` of ``F_t(s)^r = sum_l b_{|l|} e^{ils}``,
    ``F_t(s) = (sin(ts/2)/sin(s/2))^2`` (exact, ``fmpz``).

    ``F_3(s) = 3 + 2 (e^{is} + e^{-is}) + (e^{2is} + e^{-2is})`` (sum of ``(t - |l|) e^{ils}``):

    >>> fejer_power(3, 1)
    [3, 2, 1]
    """
    return list(_fejer_power(_check_t(t), _check_r(r)))


def kernel_coefficients_2pi(t: int, r: int) -> list[fmpq]:
    """``2 pi a_l``, ``l = 0..r(t-1)``, of ``J_{t,r}(s) = a_0 + sum a_l cos(ls)`` normalised
    by ``int_{-pi}^{pi} J_{t,r} = 1`` (wang2013 Definition 4.1): ``2 pi a_0 = 1``,
    ``2 pi a_l = 2 b_l / b_0``.

    Guarantee
    ---------
    Exact rationals; the last one is non-zero, so ``len - 1`` is the exact degree.

    ``F_2(s) = 2 + 2 cos s``, so ``2 pi a = (1, 2 * 1/2)``:

    >>> kernel_coefficients_2pi(2, 1)
    [1, 1]
    """
    b = fejer_power(t, r)
    b0 = b[0]
    return [fmpq(1)] + [fmpq(2 * c, b0) for c in b[1:]]


def jackson_coefficients_2pi(t: int, r: int) -> list[fmpq]:
    """``2 pi a_l``, ``l = 0..deg``, of ``H_{t,r}(s) = a_0 + sum_l a_l cos(ls)``
    (wang2013 eq. (1)), ``H_{t,r} = J_{t',r}``, ``t' = floor(t/r) + 1``.

    Guarantee
    ---------
    Exact rationals (see :func:`kernel_coefficients_2pi`); ``deg = r floor(t/r) <= t``.
    """
    t, r = _check_t(t), _check_r(r)
    return kernel_coefficients_2pi(t // r + 1, r)


def jackson_kernel_degree(t: int, r: int) -> int:
    """Exact degree of ``H_{t,r}``: ``r * floor(t/r)`` (always ``<= t``)."""
    t, r = _check_t(t), _check_r(r)
    return r * (t // r)


def jackson_multipliers(t: int, K: int) -> list[fmpq]:
    """``w_0, ..., w_t`` with ``I_{t,K} cos(n.) = w_n cos(n.)`` (wang2013 eq. (2)).

    ``w_n = - sum_{l=1}^{K+1} (-1)^l C(K+1, l) b_{ln} / b_0`` with ``b`` the Fejér-power
    coefficients of ``H_{t,r}`` (``r = ceil((K+3)/2)``; ``b_m = 0`` beyond the degree).

    Guarantee
    ---------
    Exact rationals; ``w_0 = 1``; ``w_n = 0`` for ``n > r floor(t/r)``.
    """
    t, K = _check_t(t), _check_K(K)
    r = (K + 4) // 2
    if r > MAX_R:
        raise InvalidParameterError(f"K must be <= {2 * MAX_R - 4}, got {K}")
    b = fejer_power(t // r + 1, r)
    deg = len(b) - 1
    out = []
    for n in range(t + 1):
        if n == 0:
            out.append(fmpq(1))
            continue
        s = fmpz(0)
        for lam in range(1, K + 2):
            m = lam * n
            if m > deg:
                break
            s += (-1) ** lam * math.comb(K + 1, lam) * b[m]
        out.append(fmpq(-s, b[0]))
    return out


# ---------------------------------------------------------------- approximation

_VARS = ("x", "y", "z")


def _round_arb(x: arb, bits: int = ROUND_BITS) -> fmpq:
    """Nearest multiple of ``2^-bits`` to the midpoint of ``x`` (exact; ties upward).

    The midpoint is ``man 2^exp`` exactly, so ``floor(mid 2^bits + 1/2)`` is an integer
    shift of ``man``."""
    mid = x.mid()  # finite even when the radius is not (no enclosure: f not analytic)
    if not mid.is_finite():
        raise InvalidParameterError(f"cannot round the ball {x}: its midpoint is not finite")
    man, exp = mid.man_exp()
    m, k = int(man), -(int(exp) + bits)
    n = m << -k if k <= 0 else (m + (1 << (k - 1))) >> k  # floor(m / 2^k + 1/2)
    return fmpq(n, 2**bits)


def _damp(series: Any, w: list[fmpq]) -> tuple[list[fmpq], fmpq, arb, arb]:
    """Rounded damped coefficients, ``max |q_n|``, the largest ball radius, and
    ``sum_n |q_n - (prod_i w_{n_i}) c_n|`` (upper bound; ``sup |T_n| = 1`` on [-1,1])."""
    warb = [arb(wn) for wn in w]
    flat: list[fmpq] = []
    maxabs = fmpq(0)
    maxrad = arb(0)
    dist = arb(0)
    for idx, c in series.items():
        fac = arb(1)
        for n in idx:
            fac *= warb[n]
        ball = fac * c
        q = _round_arb(ball)
        flat.append(q)
        maxabs = max(maxabs, abs(q))
        maxrad = max(maxrad, ball.rad())
        dist += (ball - arb(q)).abs_upper()
    return flat, maxabs, maxrad, dist


def jackson_approx(
    f: str | Expr,
    t: int,
    K: int,
    dim: int = 1,
    *,
    name: str = "f",
    grid: int | None = None,
    progress: ProgressCallback | None = None,
) -> Approximation:
    """``I^d_{t,K} g_f`` as a damped Chebyshev series on ``[-1,1]^dim`` (wang2013 Fact 4.2).

    Parameters
    ----------
    f : str or Expr
        Function of ``x`` (``x, y`` for dim 2; ``x, y, z`` for dim 3).
    t, K : int
        Degree parameter ``t >= 1`` and smoothness order ``K >= 0``.
    dim : int
        ``d`` in ``{1, 2, 3}``.
    grid : int, optional
        Chebyshev-Lobatto grid size passed to
        :func:`dpverify.constructions.chebyshev_series.chebyshev_coefficients`.
    progress : callable, optional
        ``progress(stage, done, total)`` (:mod:`dpverify.progress`), passed to the
        coefficient computation.

    Returns
    -------
    Approximation
        construction ``"jackson"``; ``poly`` a :class:`ChebyshevPoly` (d = 1) or chebyshev
        :class:`TensorPoly` on ``[-1,1]^d`` (``coeffs[n1][n2]..`` multiplies
        ``T_{n1}(x) T_{n2}(y) ..``, first index = ``x``), coefficient
        ``(prod_i w_{n_i}) c_n`` with ``c_n`` the Chebyshev coefficients of ``f``
        (convention ``f = sum c_n T_n``, no halving), ``0 <= n_i <= t``; target the
        expression; domain the box ``[-1,1]^d``; ``extra["jackson"]`` has
        ``t, K, r, t_prime``, the multipliers, the Lemma 4.3 quantity
        ``max |coefficient|`` and the radius of the coefficient enclosures.

    Guarantee
    ---------
    Heuristic construction, exact output: each damped coefficient is a rigorous ball
    (see ``chebyshev_series``) rounded from its midpoint to the nearest multiple of
    ``2^-80``.  The certificate measures ``sup |f - p|`` against the true ``f``, so the
    rounding and the ball radii are covered by certification.  wang2013 eq. (2)-(5).
    ``extra["jackson"]["operator_distance"]`` is a rigorous upper bound (exact rational
    text) of ``sup |p - I^d_{t,K} g_f|`` over ``[-1,1]^d``, namely
    ``sum_n |q_n - (prod_i w_{n_i}) c_n|`` over the enclosures (``|T_n| <= 1``), or
    ``None`` when the coefficients have no finite enclosure (d = 2, 3 and ``f`` not
    analytic): then ``p`` only approximates ``I^d_{t,K} g_f``.
    """
    d = check_int(dim, "dim", minimum=1, maximum=3)
    t, K = _check_t(t), _check_K(K)
    if t > 2048 // d**2:
        raise InvalidParameterError(f"t must be <= {2048 // d**2} for dim {d}, got {t}")
    r = jackson_r(K)
    w = jackson_multipliers(t, K)
    deg = max(n for n, wn in enumerate(w) if wn != 0)
    fx = f if isinstance(f, Expr) else parse(f, variables=_VARS[:d], name=name)
    series = chebyshev_coefficients(fx, deg, dim=d, grid=grid, name=name, progress=progress)
    old_prec = ctx.prec
    ctx.prec = max(old_prec, 128)  # the balls carry ~2^-60 radii; keep them
    try:
        flat, maxabs, maxrad, dist = _damp(series, w[: deg + 1])
    finally:
        ctx.prec = old_prec
    if dist.is_finite():
        operator_distance: str | None = fmpq_str(arb_to_fmpq_bounds(dist)[1])
    else:
        operator_distance = None
    shape = [deg + 1] * d
    if d == 1:
        poly: ChebyshevPoly | TensorPoly = ChebyshevPoly(flat)
    else:
        poly = TensorPoly.from_flat(flat, shape, basis="chebyshev", domains=[(-1, 1)] * d)
    info = {
        "t": t,
        "K": K,
        "r": r,
        "t_prime": t // r + 1,
        "dim": d,
        "kernel_degree": jackson_kernel_degree(t, r),
        "multipliers": [fmpq_str(x) for x in w],
        "max_abs_coefficient": fmpq_str(maxabs),
        "coefficient_ball_radius": str(maxrad),
        "operator_distance": operator_distance,
        "operator_distance_meaning": (
            "rigorous upper bound of sup |p - I_{t,K} g_f| over [-1,1]^d: sum over n of "
            "|rounded coefficient - (prod w) * c_n ball| (ball radii and 2^-80 rounding)"
            if operator_distance is not None else
            "not bounded: no finite enclosure of the Chebyshev coefficients of f; "
            "p approximates I_{t,K} g_f"
        ),
        "chebyshev_series": series.info(),
        "rounding": "damped coefficient midpoints rounded to the nearest multiple of 2^-80",
        "tensor_order": "coefficients[n1][n2][n3] multiplies T_n1(x) T_n2(y) T_n3(z)",
    }
    return Approximation(
        construction="jackson",
        params={"f": fx.canonical, "t": t, "K": K, "r": r, "t_prime": t // r + 1, "dim": d},
        poly=poly,
        target={"kind": "expr", "expr": fx.canonical, "variables": list(_VARS[:d])},
        domain={"kind": "box", "intervals": [["-1", "1"]] * d},
        norm_basis="chebyshev",
        extra={"jackson": info},
    )
