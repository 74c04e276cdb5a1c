"""Error types of dpverify.

One base class, :class:`DPVerifyError`, and subclasses that also derive from the
builtin exception a caller would expect (``ValueError``/``TypeError``/...), so
``except ValueError`` keeps working.  Messages quote the bad value and name the
parameter, e.g. ``"k must be >= 1, got 0"``.
"""

from __future__ import annotations

__all__ = [
    "DPVerifyError",
    "InvalidParameterError",
    "ParameterTypeError",
    "ExpressionError",
    "BasisMismatchError",
    "DomainError",
    "PrecisionExhausted",
    "CertificationFailed",
    "MalformedCertificate",
    "MissingExtraError",
    "TimeLimitExceeded",
    "MemoryLimitExceeded",
]


class DPVerifyError(Exception):
    """Base class of every error raised on purpose by dpverify."""


class InvalidParameterError(DPVerifyError, ValueError):
    """A parameter has the right type but an invalid value (``k < 1``, NaN, ...)."""


class ParameterTypeError(DPVerifyError, TypeError):
    """A parameter has the wrong type (a float where an integer is required, ...)."""


class ExpressionError(InvalidParameterError):
    """A user expression is malformed or uses something outside the whitelist."""


class BasisMismatchError(InvalidParameterError):
    """Two polynomials in different bases or on different domains were combined."""


class DomainError(InvalidParameterError):
    """A function was evaluated (or asked to be certified) outside its domain,
    e.g. ``log`` on an interval containing 0."""


class PrecisionExhausted(DPVerifyError, ArithmeticError):
    """Ball arithmetic could not decide a comparison within the precision cap.

    Raised instead of returning an undecided or unjustified answer.
    """


class CertificationFailed(DPVerifyError, ArithmeticError):
    """A requested claim was refuted or could not be proven within the limits."""


class TimeLimitExceeded(CertificationFailed):
    """The time limit (``timeout=``) was reached before a finite bound was established:
    the outcome is *undecided*, not refuted."""


class MalformedCertificate(DPVerifyError, ValueError):
    """A certificate file is not valid JSON or lacks a required field."""


class MissingExtraError(DPVerifyError, ImportError):
    """An optional dependency is missing; the message says what to install."""


class MemoryLimitExceeded(CertificationFailed):
    """A computation would need more memory than its budget (``max_memory=``, the CLI's
    ``--max-memory``; :mod:`dpverify.budget`): refused before it starts, so the outcome is
    *undecided*, not refuted."""
