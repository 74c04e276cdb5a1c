"""Laplace noise: scale from sensitivity, achieved epsilon, and (epsilon, delta) by advanced
composition (Dwork, McSherry, Nissim, Smith 2006; Dwork, Rothblum, Vadhan 2010).  The
derivations are in the package docstring (:mod:`dpverify.mechanisms.privacy`)."""

from __future__ import annotations

from typing import Any

from flint import arb, ctx, fmpq

from ...errors import CertificationFailed, InvalidParameterError
from ...noise import check_delta, check_epsilon, short_rational
from ...numbers import ExactLike, check_int, check_rational, fmpq_str, fmpq_to_decimal, to_fmpq
from .records import (
    AdvancedCompositionRecord,
    DeltaScale,
    LaplaceCalibration,
    LaplaceRecord,
    dyadic_up,
    upper_of,
)

__all__ = [
    "laplace_scale",
    "laplace_privacy",
    "laplace_advanced_composition",
    "pure_scale",
    "composition_exceeds",
    "advanced_composition_epsilon",
    "delta_scale",
    "calibrate_laplace",
    "ADV_COMP_MAX_EPS0",
]


def laplace_scale(sensitivity_l1: ExactLike, epsilon: ExactLike) -> fmpq:
    """Scale ``b = S/epsilon`` (exact) giving ``epsilon``-DP for L1 sensitivity ``S``
    (``epsilon`` in the documented range, :func:`check_epsilon`)."""
    s = check_rational(sensitivity_l1, "sensitivity_l1", 0, None)
    return s / check_epsilon(epsilon)


def laplace_privacy(sensitivity_l1: ExactLike, scale: ExactLike) -> LaplaceRecord:
    """Achieved epsilon of (discrete) Laplace noise of ``scale`` for L1 sensitivity ``S``.

    Returns
    -------
    LaplaceRecord
        ``sensitivity_l1``, ``scale``, ``epsilon`` (= ``S/b``) and ``delta`` (0), exact;
        its JSON adds ``epsilon_decimal`` (rounded up) and ``theorem``.

    Guarantee
    ---------
    Exact (fmpq); the bound is tight (the privacy loss reaches ``S/b``).

    Examples
    --------
    >>> rec = laplace_privacy(2, 4)
    >>> rec.epsilon, rec["epsilon"]
    (1/2, '1/2')
    """
    s = check_rational(sensitivity_l1, "sensitivity_l1", 0, None)
    b = check_rational(scale, "scale", 0, None, low_open=True)
    return LaplaceRecord(sensitivity_l1=s, scale=b)


def laplace_advanced_composition(
    sensitivity_linf: Any, scale: ExactLike, n_coordinates: Any, delta: ExactLike
) -> AdvancedCompositionRecord:
    """``(epsilon, delta)`` of ``K`` Laplace coordinates by advanced composition.

    Guarantee
    ---------
    ``eps0 = Delta/b`` exact; ``epsilon = sqrt(2K ln(1/delta)) eps0 + K eps0 (e^eps0 - 1)``
    as a rigorous arb ball; ``epsilon`` reported as its exact rational upper endpoint and a
    decimal rounded up.  Dwork-Roth 2014 Theorem 3.20 (with ``delta_0 = 0``).
    ``Delta/b <= 2^16`` (else ``InvalidParameterError``: the bound would exceed
    ``e^65536``).
    """
    dl = check_rational(sensitivity_linf, "sensitivity_linf", 0, None)
    b = check_rational(scale, "scale", 0, None, low_open=True)
    K = check_int(n_coordinates, "n_coordinates", minimum=1)
    de = check_delta(delta)
    e0 = dl / b
    if e0 > 2**16:
        raise InvalidParameterError(
            f"sensitivity_linf/scale must be <= 65536 (the bound contains e^(Delta/b)), got "
            f"{short_rational(e0)}")
    a0 = arb(e0)
    eps = (2 * arb(K) * (-arb(de).log())).sqrt() * a0 + K * a0 * (a0.exp() - 1)
    return AdvancedCompositionRecord(sensitivity_linf=dl, scale=b, n_coordinates=K,
                                     delta=de, epsilon=upper_of(eps))



def pure_scale(l1: Any, epsilon: ExactLike) -> fmpq:
    """Laplace scale ``Delta_1 / epsilon`` (exact); achieves exactly epsilon-DP.
    ``epsilon`` in the documented range (:func:`dpverify.mechanisms.privacy.check_epsilon`)."""
    d1 = to_fmpq(l1, "l1")
    if d1 < 0:
        raise InvalidParameterError(f"l1 must be >= 0, got {fmpq_str(d1)}")
    return d1 / check_epsilon(epsilon)


#: Largest per-coordinate epsilon ``eps0`` for which :func:`advanced_composition_epsilon`
#: evaluates its bound: ``m eps0 (e^eps0 - 1)`` then stays below ``2^94549``, inside the
#: exponent cap of :func:`dpverify.numbers.arb_to_fmpq_bounds`.  Beyond it the bound is
#: astronomically larger than any admissible epsilon (``<= 2^64``), see
#: :func:`composition_exceeds`.
ADV_COMP_MAX_EPS0 = fmpq(2**16)


def composition_exceeds(eps0: fmpq, epsilon: fmpq) -> bool:
    """True when advanced composition of ``eps0``-DP steps certainly gives more than
    ``epsilon`` (for every ``m >= 1`` and ``delta < 1``), decided exactly without ``exp``:
    with ``L`` the bit length of ``floor(epsilon)``, ``eps0 >= L + 1`` implies
    ``m eps0 (e^eps0 - 1) >= e^eps0 - 1 >= 2^(L+1) - 1 > epsilon``."""
    L = int(epsilon.p // epsilon.q).bit_length()
    return eps0 >= L + 1


def advanced_composition_epsilon(eps0: Any, m: int, delta: ExactLike) -> fmpq:
    """Rigorous upper bound (fmpq) of ``sqrt(2 m ln(1/delta)) eps0 + m eps0 (e^eps0 - 1)``
    (Dwork-Rothblum-Vadhan 2010, advanced composition of m eps0-DP mechanisms).

    ``0 <= eps0 <= 2^16`` (:data:`ADV_COMP_MAX_EPS0`), ``m >= 0``, ``delta`` in (0, 1);
    ``InvalidParameterError`` otherwise."""
    e0 = to_fmpq(eps0, "eps0")
    if not 0 <= e0 <= ADV_COMP_MAX_EPS0:
        raise InvalidParameterError(f"eps0 must be in [0, 65536], got {fmpq_to_decimal(e0, 6)}")
    m = check_int(m, "m", minimum=0)
    d = check_delta(delta)
    with ctx.workprec(128):
        a0 = arb(e0)
        val = (2 * m * (1 / arb(d)).log()).sqrt() * a0 + m * a0 * (a0.exp() - 1)
    return upper_of(val)


def delta_scale(per_coordinate: Any, m: int, epsilon: ExactLike, delta: ExactLike) -> DeltaScale:
    """Scales for (epsilon, delta)-DP of ``m`` Laplace coordinates of sensitivity ``S'``.

    Returns the printed Theorem 7 scale ``2 S' sqrt(2 m ln(1/delta)) / epsilon`` (rounded
    up to a dyadic rational) with its certified achieved epsilon (``None`` when
    :func:`composition_exceeds` already shows it is above ``epsilon``), the pure scale
    ``m S' / epsilon``, and the smallest scale of the form ``S' / eps0`` (``eps0`` on a
    2^-30-relative bisection of ``[0, min(epsilon, L + 1)]``, beyond which composition
    cannot certify ``epsilon``) whose advanced-composition epsilon is ``<= epsilon``;
    ``"used"`` is the smallest scale whose certified epsilon is ``<= epsilon``.
    ``epsilon`` and ``delta`` in their documented ranges
    (:func:`dpverify.mechanisms.privacy.check_epsilon`, ``check_delta``).
    """
    S = to_fmpq(per_coordinate, "per_coordinate")
    if S <= 0:
        raise InvalidParameterError(f"per_coordinate must be > 0, got {fmpq_str(S)}")
    m = check_int(m, "m", minimum=1)
    eps, dl = check_epsilon(epsilon), check_delta(delta)
    with ctx.workprec(128):
        printed = upper_of(2 * arb(S) * (2 * m * (1 / arb(dl)).log()).sqrt() / arb(eps))
    printed = dyadic_up(printed)
    e_printed = S / printed
    printed_eps = (None if composition_exceeds(e_printed, eps)
                   else advanced_composition_epsilon(e_printed, m, dl))
    pure = m * S / eps
    # eps0 in [lo, hi]: f(lo) <= eps; find the largest eps0 with f(eps0) <= eps.  Above
    # L + 1 composition cannot certify eps (composition_exceeds), so hi starts there at most.
    cap = fmpq(int(eps.p // eps.q).bit_length() + 1)
    lo, hi = fmpq(0), min(eps, cap)
    if advanced_composition_epsilon(hi, m, dl) <= eps:
        lo = hi
    else:
        for _ in range(40):
            mid = (lo + hi) / 2
            if advanced_composition_epsilon(mid, m, dl) <= eps:
                lo = mid
            else:
                hi = mid
    best = S / lo if lo > 0 else None
    candidates = [("pure", pure, m * S / pure)]
    if printed_eps is not None and printed_eps <= eps:
        candidates.append(("theorem7", printed, printed_eps))
    if best is not None:
        candidates.append(
            ("advanced_composition", best, advanced_composition_epsilon(lo, m, dl))
        )
    name, used, used_eps = min(candidates, key=lambda c: c[1])
    return DeltaScale(
        theorem7_printed_scale=printed, theorem7_achieved_epsilon_upper=printed_eps,
        theorem7_valid=printed_eps is not None and bool(printed_eps <= eps),
        pure_scale=pure, advanced_composition_scale=best, used=name, scale=used,
        achieved_epsilon_upper=used_eps)


def calibrate_laplace(
    per_coordinate: Any, m: int, epsilon: ExactLike, delta: ExactLike | None = None
) -> tuple[fmpq, LaplaceCalibration]:
    """Noise scale for ``m`` Laplace coordinates of L-infinity sensitivity ``per_coordinate``
    (L1 ``m * per_coordinate``) and the record that certifies it.

    Pure epsilon: scale ``m S'/epsilon`` (exactly epsilon).  With ``delta``: the smallest
    scale of :func:`delta_scale` whose certified epsilon is ``<= epsilon``.  Returns
    ``(scale, calibration)``: a :class:`LaplaceCalibration` with ``epsilon``, ``scale``,
    ``achieved_epsilon`` and ``certificate`` (and the :func:`delta_scale` comparison when
    ``delta`` is given).

    Guarantee
    ---------
    ``achieved_epsilon <= epsilon`` exactly, and the ``certificate`` record's epsilon equals
    ``achieved_epsilon`` (checked; ``CertificationFailed`` otherwise).

    Examples
    --------
    >>> scale, cal = calibrate_laplace(1, 4, "1/2")
    >>> scale, cal.achieved_epsilon, cal["composition"]
    (8, 1/2, 'none (L1 Laplace)')
    """
    per = to_fmpq(per_coordinate, "per_coordinate")
    eps = check_epsilon(epsilon)
    if delta is None:
        scale = pure_scale(m * per, eps) if m else fmpq(1)
        pure = laplace_privacy(m * per, scale)
        return scale, LaplaceCalibration(epsilon=eps, delta=None, scale=scale,
                                         achieved_epsilon=pure.epsilon, certificate=pure)
    dl = check_delta(delta)
    ds = delta_scale(per, max(m, 1), eps, dl)
    cert: LaplaceRecord | AdvancedCompositionRecord
    with ctx.workprec(128):  # the precision the scale was certified at (delta_scale)
        cert = (laplace_privacy(m * per, ds.scale) if ds.used == "pure"
                else laplace_advanced_composition(per, ds.scale, max(m, 1), dl))
    if cert.epsilon > eps:
        raise CertificationFailed(
            f"internal: certificate epsilon {fmpq_str(cert.epsilon)} exceeds the target "
            f"{fmpq_str(eps)}")
    return ds.scale, LaplaceCalibration(epsilon=eps, delta=dl, scale=ds.scale,
                                        achieved_epsilon=ds.achieved_epsilon_upper,
                                        certificate=cert, comparison=ds)
