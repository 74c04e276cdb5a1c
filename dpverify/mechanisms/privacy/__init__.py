"""Privacy certificates as data: sensitivity -> noise scale -> achieved epsilon (delta).

Neighbouring databases: the papers use "same ``n``, one row replaced"; every release is
also accounted for add/remove-one neighbours (``n`` private), and every record states which
(:mod:`.guarantee`: the relation, the assumptions, what was proven, what is not covered).

Generic maps (usable by every mechanism):

* :func:`laplace_privacy` -- Laplace or discrete Laplace noise of scale ``b`` on a vector
  with L1 sensitivity ``S``: the privacy loss is ``ln p(v)/p'(v) = (||v - f'||_1 -
  ||v - f||_1)/b <= S/b`` (triangle inequality, equality for ``v`` far on the right side),
  so the mechanism is exactly ``S/b``-DP (Dwork, McSherry, Nissim, Smith 2006; the discrete
  version on an integer lattice: Canonne, Kamath, Steinke 2020, with ``S`` in lattice units).
  Exact ``fmpq``.
* :func:`laplace_advanced_composition` -- ``K`` coordinates each with L-infinity sensitivity
  ``Delta`` and scale ``b`` (each ``eps0 = Delta/b``-DP): by the advanced composition
  theorem (Dwork, Rothblum, Vadhan 2010; Dwork-Roth 2014 Theorem 3.20) the vector is
  ``(sqrt(2 K ln(1/delta)) eps0 + K eps0 (e^eps0 - 1), delta)``-DP.  Rigorous arb, reported
  rounded up.  This is how thaler2012 Lemma 2.4 must be read.
* :func:`gaussian_privacy` -- (discrete) Gaussian noise of variance ``sigma^2`` on a vector
  with L2 sensitivity ``Delta_2``: ``rho = Delta_2^2/(2 sigma^2)``-zCDP (Bun-Steinke 2016
  Proposition 1.6; CKS 2020 Theorem 14 for the multivariate discrete Gaussian), hence
  ``(rho + 2 sqrt(rho ln(1/delta)), delta)``-DP (Bun-Steinke 2016 Proposition 1.3).
  ``rho`` exact, ``epsilon`` rigorous upper bound.
* :func:`gaussian_sigma2` -- a rational ``sigma^2`` that certifiably achieves a target
  ``(epsilon, delta)`` through the same conversion.

TUV polynomial release (thaler2012 Theorems 3.1/3.2): :func:`tuv_sensitivity` and
:func:`tuv_privacy`; the derivation is in ``docs/mechanisms.md`` ("Privacy accounting").
Decision-list databases (thaler2012 Theorem 1.3, Appendix A): :func:`dlist_sensitivity`,
:func:`dlist_privacy` (derivation in their docstrings and ``docs/tuv.md``).

Records
-------
Every map returns a typed, immutable record (:mod:`.records`: frozen dataclasses holding
exact ``fmpq``/``int``); ``record.to_json()`` renders it (exact ``"p/q"`` strings, decimals
rounded up) and ``record["key"]`` reads that rendering.

Guarantee
---------
Sensitivities, scales and pure epsilons are exact rationals; anything with ``ln``, ``sqrt``
or ``exp`` is an ``arb`` enclosure and is reported as a decimal string rounded **up** (an
upper bound on the privacy loss) next to the exact rational upper endpoint.

Modules: :mod:`.laplace` (Laplace scales, advanced composition, ``calibrate_laplace``),
:mod:`.gaussian`, :mod:`.tuv`, :mod:`.dlist`, :mod:`.records` (rounding and JSON helpers),
:mod:`.guarantee` (the ``guarantee`` block of every release record).
Samplers live in :mod:`dpverify.noise`; this package only does accounting.
"""

from ...noise import EPSILON_MAX, EPSILON_MIN, check_delta, check_epsilon
from .dlist import DLIST_ENUM_MAX_L, dlist_privacy, dlist_sensitivity, dlist_term_coefficients
from .gaussian import gaussian_privacy, gaussian_sigma2, rho_to_epsilon
from .guarantee import (
    NEIGHBOURS,
    check_min_rows,
    check_neighbours,
    epsilon_text,
    guarantee_block,
)
from .laplace import (
    ADV_COMP_MAX_EPS0,
    advanced_composition_epsilon,
    calibrate_laplace,
    composition_exceeds,
    delta_scale,
    laplace_advanced_composition,
    laplace_privacy,
    laplace_scale,
    pure_scale,
)
from .records import (
    AdvancedCompositionRecord,
    BasicComposition,
    DeltaScale,
    GaussianRecord,
    LaplaceCalibration,
    LaplaceRecord,
    PrivacyRecord,
    PrivacyReport,
    compose_basic,
    json_int,
)
from .tuv import (
    REPRESENTATIONS,
    UNIVERSES,
    multilinear_upto,
    tuv_privacy,
    tuv_scale_times_n,
    tuv_sensitivity,
)

__all__ = [
    "EPSILON_MIN",
    "EPSILON_MAX",
    "NEIGHBOURS",
    "check_neighbours",
    "check_min_rows",
    "guarantee_block",
    "epsilon_text",
    "check_epsilon",
    "check_delta",
    "laplace_privacy",
    "laplace_scale",
    "laplace_advanced_composition",
    "pure_scale",
    "composition_exceeds",
    "advanced_composition_epsilon",
    "ADV_COMP_MAX_EPS0",
    "delta_scale",
    "calibrate_laplace",
    "gaussian_privacy",
    "gaussian_sigma2",
    "rho_to_epsilon",
    "tuv_sensitivity",
    "tuv_privacy",
    "tuv_scale_times_n",
    "multilinear_upto",
    "dlist_term_coefficients",
    "dlist_sensitivity",
    "dlist_privacy",
    "DLIST_ENUM_MAX_L",
    "UNIVERSES",
    "REPRESENTATIONS",
    "json_int",
    "compose_basic",
    "PrivacyRecord",
    "LaplaceRecord",
    "AdvancedCompositionRecord",
    "GaussianRecord",
    "DeltaScale",
    "LaplaceCalibration",
    "BasicComposition",
    "PrivacyReport",
]
