"""``sin`` and ``cos`` at binary32 inputs of any size, in numpy, with rigorous error bounds:
an exact argument reduction (Payne and Hanek's, in 24-bit integer limbs) and the piece
models of ``sin``/``cos`` on ``[-1, 1]``.

Piece models in ``x`` need pieces of radius about 2 for ``sin``, each holding one or two
binary32 numbers once ``|x| >= 2^24``: every input would cost an arb evaluation.  Here,
for ``x = M 2^E`` (``M < 2^24`` an integer, ``|x| > 1/2``):

* ``x (2/pi) / 4 mod 1 = F``: with ``T = 2/pi = sum_b t_b 2^-b``, the bits ``b <= E - 2``
  contribute multiples of 4 to ``x T`` and are dropped; the next ``24 K`` bits, in ``K = 5``
  limbs ``c_i`` of 24 bits taken from ``b0 = E - 1`` on (:data:`TWO_OVER_PI_BITS`, decided
  with arb), give ``F = sum_i M c_i 2^-(24 (i+1)) mod 1`` exactly in int64 limbs with
  carries (each ``M c_i < 2^48``); the bits beyond add less than ``2^(24 - 24 K) <= 2^-96``;
* ``k = round(4 F)``, ``z = 4 F - k`` in ``[-1/2, 1/2]``: ``x = (4j + k) pi/2 + z pi/2``;
  ``r = z pi/2`` is computed as ``fl(fl(z) fl(pi/2))`` with
  ``|r - r_f| <= 2^-50 |r_f| + 2^-92`` (three roundings of relative ``2^-53`` each, and the
  ``2^-94`` of the truncation and of the low limbs: the bound is generous);
* ``sin x = (sin r, cos r, -sin r, -cos r)[k mod 4]``, ``cos x`` the same shifted by one;
  both are 1-Lipschitz, so ``|sin r - sin r_f| <= |r - r_f|``; ``sin r_f`` and ``cos r_f``
  come from the piece models (:class:`~dpverify.testing.models.ExprModels`) of ``sin`` and
  ``cos`` on ``[-0.8, 0.8]``, evaluated by
  :func:`~dpverify.testing.fastscreen.model_values`.

Guarantee
---------
:func:`trig_values` returns ``(V, W)`` with ``|f(x) - V| <= W`` for every input, ``f`` being
``sin`` or ``cos``: the reduction is exact integer arithmetic up to the stated truncation,
the float steps are bounded above, and the models' bounds are rigorous.
:data:`TWO_OVER_PI_BITS` is checked against arb at import (the ball of ``2^L 2/pi`` must
contain no integer).
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np
from flint import arb, ctx

from .formats import BINARY32
from .models import ExprModels, PieceModel

__all__ = ["TWO_OVER_PI_BITS", "reduce_quadrant", "trig_values", "trig_runs", "TRIG_MIN"]

#: bits of 2/pi kept (enough for E up to 128: b0 + 24 K <= 128 + 120 < 400)
_L = 400
_K = 5
_MASK = (1 << 24) - 1
#: inputs with |x| above this are reduced (below, the piece models in x are used)
TRIG_MIN = 0.5


def _two_over_pi_bits() -> int:
    """``floor(2^L 2/pi)``, decided in arb (the ball must not contain an integer)."""
    with ctx.workprec(_L + 200):
        t = 2 / arb.pi() * arb(2) ** _L
        f = t.floor()
        u = f.unique_fmpz() if f.is_exact() and not t.contains_integer() else None
        if u is None:
            raise AssertionError("2/pi: not enough precision")   # pragma: no cover
        return int(u)


#: ``floor(2^400 2/pi)`` as a Python integer
TWO_OVER_PI_BITS = _two_over_pi_bits()


@lru_cache(maxsize=1)
def _limb_table() -> np.ndarray:
    """Row ``E + 40``: the limbs ``c_0..c_4`` of the bits of 2/pi from ``b0 = E - 1`` on
    (bit ``b`` has weight ``2^-b``; bits at ``b <= 0`` are 0)."""
    rows = []
    for E in range(-40, 130):
        b0 = E - 1
        row = []
        for i in range(_K):
            last = b0 + 24 * i + 23            # the chunk is bits b0 + 24 i .. last
            shift = _L - last
            chunk = TWO_OVER_PI_BITS >> shift if shift >= 0 else TWO_OVER_PI_BITS << -shift
            row.append(chunk & _MASK)
        rows.append(row)
    return np.array(rows, dtype=np.int64)


def reduce_quadrant(xs: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(k, r_f, w)`` for binary32 inputs ``|x| > 1/2`` (as float64): ``x = k pi/2 + r``
    (``k`` mod 4 returned, as int64), ``|r| <= pi/4 + 2^-40``, ``|r - r_f| <= w``."""
    a = np.abs(xs)
    mant, ex = np.frexp(a)                   # a = mant 2^ex, mant in [1/2, 1)
    M = np.ldexp(mant, 24).astype(np.int64)  # exact: 24-bit significands
    row = ex.astype(np.intp) + (40 - 24)     # E + 40, E = ex - 24
    table = _limb_table()
    # F = sum_i M c_i 2^-(24 (i+1)) mod 1, limbs from the last with carries
    acc = M * table[:, _K - 1].take(row)     # < 2^48
    low = []
    for i in range(_K - 2, -1, -1):
        carry = acc >> 24
        low.append(acc & _MASK)
        acc = M * table[:, i].take(row)
        acc += carry
    L0 = acc & _MASK
    L1, L2, L3, L4 = low[::-1]
    A = (L0 << 24) | L1                      # F ~ A 2^-48, 48 bits
    k = (A + (1 << 45)) >> 46                # round(4 F) from the top bits
    zh = (A - (k << 46)).astype(np.float64) * 2.0 ** -46     # exact
    zl = (L2.astype(np.float64) * 2.0 ** -70 + L3.astype(np.float64) * 2.0 ** -94
          + L4.astype(np.float64) * 2.0 ** -118)
    z = zh + zl
    r = z * (np.pi / 2)
    w = np.abs(r) * 2.0 ** -50 + 2.0 ** -92
    return k & 3, r, w


@lru_cache(maxsize=4)
def _model(fname: str) -> PieceModel:
    """The model of ``fname`` on ``[-0.8, 0.8]`` (centred at 0; ``|r| <= pi/4 + 2^-40``)."""
    # deferred: the expression package loads on first use, as in references.py
    from ..expr import parse

    built = ExprModels(parse(f"{fname}(x)"), BINARY32).build(0.0, 0.8)
    if built is None:
        raise AssertionError(f"no model of {fname} on [-0.8, 0.8]")   # pragma: no cover
    return built


def trig_values(fname: str, xs: np.ndarray, slopes: bool = False
                ) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    """``(V, W, slope)``: ``|fname(x) - V| <= W`` at binary32 inputs ``|x| > 1/2``
    (``fname`` is ``"sin"`` or ``"cos"``; module docstring), and with ``slopes`` the
    direction of ``fname`` at each input (:func:`trig_runs`)."""
    # deferred: fastscreen imports screen and models; trig is imported by run
    from .fastscreen import model_values

    k, r, w = reduce_quadrant(xs)
    slope = _slopes(fname, k, r, xs) if slopes else None
    if fname == "cos":
        k = (k + 1) & 3
    use_cos = (k & 1) == 1
    negate = k >= 2
    if fname == "sin":
        negate = negate ^ (xs < 0)          # sin is odd; cos is even
    V, W = np.empty_like(r), np.empty_like(r)
    for name, mask in (("sin", ~use_cos), ("cos", use_cos)):
        if np.any(mask):
            V[mask], W[mask] = model_values(_model(name), r[mask])
    np.negative(V, out=V, where=negate)
    return V, (W + w) * (1 + 2.0 ** -50), slope


_MARGIN = 2.0 ** -20


def _slopes(fname: str, k: np.ndarray, r: np.ndarray, xs: np.ndarray) -> np.ndarray:
    """+1 / -1 where ``fname`` increases / decreases at ``x``, 0 within ``2^-20`` (in
    quarter periods) of an extremum: from the position ``P = k + z`` in the period
    (``z = r / (pi/2)``; the reduction errs by far less than the margin)."""
    P = k + r / (np.pi / 2)                  # in [-1/2 - eps, 7/2 + eps]
    if fname == "sin":   # sin' = cos > 0 for P mod 4 in (-1, 1); sin' is even
        return np.where((P < 1 - _MARGIN) | (P > 3 + _MARGIN), 1,
                        np.where((P > 1 + _MARGIN) & (P < 3 - _MARGIN), -1, 0))
    # cos' = -sin > 0 for P mod 4 in (2, 4); cos' is odd: flipped below 0
    slope = np.where((P > 2 + _MARGIN) | (P < -_MARGIN), 1,
                     np.where((P > _MARGIN) & (P < 2 - _MARGIN), -1, 0))
    return np.where(xs < 0, -slope, slope)


def trig_runs(xs: np.ndarray, slope: np.ndarray, far: np.ndarray
              ) -> list[tuple[int, int, int]]:
    """Index ranges ``(start, stop, slope)`` of the sorted points ``xs`` where ``far`` holds
    and the function is monotone between consecutive points: the same nonzero ``slope``
    (:func:`_slopes`, 0 where not ``far``) and less than 1 apart (two branches of one
    direction are ``pi`` apart)."""
    if xs.size < 2:
        return []
    good = (slope[:-1] == slope[1:]) & (slope[:-1] != 0) & (np.diff(xs) < 1) & \
        far[:-1] & far[1:]
    runs = []
    edges = np.flatnonzero(np.diff(np.r_[0, good.astype(np.int8), 0]))
    for a, b in zip(edges[::2].tolist(), edges[1::2].tolist()):
        runs.append((a, b + 1, int(slope[a])))
    return runs
