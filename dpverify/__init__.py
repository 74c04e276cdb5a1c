"""dpverify — certified approximating polynomials for differential-privacy mechanisms.

Construction proposes, certification decides: every claimed degree, coefficient
norm and error bound is checked in exact rational (``fmpq``) or rigorous ball
(``arb``) arithmetic.  See ``docs/`` and DESIGN.md.
"""

from ._version import __version__
from .approximation import Approximation
from .errors import (
    BasisMismatchError,
    CertificationFailed,
    DomainError,
    DPVerifyError,
    ExpressionError,
    InvalidParameterError,
    MalformedCertificate,
    ParameterTypeError,
    PrecisionExhausted,
)

__all__ = [
    "__version__",
    "Approximation",
    "BasisMismatchError",
    "CertificationFailed",
    "DomainError",
    "DPVerifyError",
    "ExpressionError",
    "InvalidParameterError",
    "MalformedCertificate",
    "ParameterTypeError",
    "PrecisionExhausted",
]
