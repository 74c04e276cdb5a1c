"""The ``jackson-kernel`` certificate (wang2013 Definition 4.1, eq. (2)).

The kernel coefficients and multipliers are exact rationals computed by
``dpverify.constructions.jackson``; this module only states them in the certificate
format of ``docs/certificates.md``.  The independent checker recomputes every one of them
from ``t``, ``r`` and ``K`` with its own code.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from flint import fmpq

from .._version import __version__
from ..numbers import check_int, fmpq_str
from .certificate import CERT_FORMAT, SCHEMA_VERSION, Certificate

__all__ = ["jackson_kernel_certificate"]


def jackson_kernel_certificate(
    t: int, r: int, K: int | None, coefficients_2pi: Sequence[fmpq],
    multipliers: Sequence[fmpq] | None,
) -> Certificate:
    """State ``2 pi a_l`` (``l = 0..degree``) of ``H_{t,r}`` and, with ``K``, the
    multipliers ``w_0..w_t`` of ``I_{t,K}``.  ``degree = len(coefficients_2pi) - 1``."""
    t = check_int(t, "t", 1)
    r = check_int(r, "r", 1)
    statement: dict[str, Any] = {
        "t": t, "r": r, "K": None if K is None else check_int(K, "K", 0),
        "t_prime": t // r + 1,
        "degree": len(coefficients_2pi) - 1,
        "coefficients_2pi": [fmpq_str(c) for c in coefficients_2pi],
    }
    if K is not None:
        statement["multipliers"] = [fmpq_str(w) for w in (multipliers or [])]
    return Certificate({
        "schema_version": SCHEMA_VERSION,
        "format": CERT_FORMAT,
        "kind": "jackson-kernel",
        "statement": statement,
        "evidence": {},
        "info": {
            "normalisation": "H(s) = a_0 + sum_{l>=1} a_l cos(l s), integral over [-pi,pi] "
            "= 1; coefficients_2pi[l] = 2*pi*a_l; I_{t,K} cos(n.) = w_n cos(n.)",
            "dpverify_version": __version__,
        },
    })
