"""dpverify — certified approximating polynomials for differential-privacy mechanisms.

Construction proposes, certification decides: every claimed degree, coefficient
norm and error bound is checked in exact rational (``fmpq``) or rigorous ball
(``arb``) arithmetic, and every certificate can be re-checked by the independent
verifier :mod:`dpverify.verify`.  See ``docs/``.

This module imports nothing eagerly (the names below load on first use), so that
``import dpverify.verify`` loads the verifier and nothing else of dpverify.
"""

from __future__ import annotations

from typing import Any

__all__ = [
    "__version__",
    "Approximation",
    "supnorm",
    "certify_approximation",
    "chebyshev_coefficients",
    "minimax",
    "approx",
    "fpminimax",
    "implement",
    "evalbound",
    "float_error_bound",
    "as_poly",
    "Certificate",
    "BasisMismatchError",
    "CertificationFailed",
    "DomainError",
    "DPVerifyError",
    "ExpressionError",
    "InvalidParameterError",
    "MalformedCertificate",
    "MissingExtraError",
    "ParameterTypeError",
    "PrecisionExhausted",
    "TimeLimitExceeded",
    "MemoryLimitExceeded",
]

_LAZY = {"Approximation": "approximation", "supnorm": "api", "certify_approximation": "api",
         "chebyshev_coefficients": "api", "minimax": "api", "approx": "api",
         "fpminimax": "machine", "implement": "floatcode",
         "evalbound": "api", "float_error_bound": "api", "as_poly": "exact",
         "Certificate": "certify.certificate"}
_ERRORS = set(__all__) - {"__version__"} - set(_LAZY)


def __getattr__(name: str) -> Any:
    import importlib  # lazy attributes (PEP 562): `import dpverify` stays light

    if name == "__version__":
        return importlib.import_module("._version", __name__).__version__
    if name in _LAZY:
        return getattr(importlib.import_module(f".{_LAZY[name]}", __name__), name)
    if name in _ERRORS:
        return getattr(importlib.import_module(".errors", __name__), name)
    raise AttributeError(f"module 'dpverify' has no attribute {name!r}")


def __dir__() -> list[str]:
    # the public API and the module's dunders, not the names this file imports (Any, ...)
    return sorted(set(__all__) | {n for n in globals() if n.startswith("__")})
