"""The top-level entry points, named like the commands (issue 16 item 6):
``dpverify.supnorm``, ``dpverify.chebyshev_coefficients`` (and, as they land, ``minimax``,
``evalbound``, ``approx``).  Each takes numpy.polynomial objects as well as dpverify
polynomials (converted exactly by :func:`dpverify.exact.as_poly`), then calls the function
of the package that owns the concept; the guarantee is that function's.
"""

from __future__ import annotations

from typing import Any

from .certify.interval import SupNorm
from .certify.interval import supnorm as _interval_supnorm
from .constructions.chebyshev_series import ChebyshevSeries
from .constructions.chebyshev_series import chebyshev_coefficients as _cheb_coefficients
from .exact import as_poly

__all__ = ["supnorm", "chebyshev_coefficients"]


def supnorm(f: Any, poly: Any, box: Any, **options: Any) -> SupNorm:
    """Certified enclosure ``lower <= sup_{x in box} |f(x) - p(x)| <= upper``.

    ``poly`` may be a dpverify polynomial, a ``numpy.polynomial.Polynomial`` or
    ``Chebyshev`` (domain and window honoured exactly) or a list of monomial coefficients;
    ``box`` a pair ``(a, b)`` or a list of pairs.  Options and guarantee: those of
    :func:`dpverify.certify.interval.supnorm`.

    >>> from numpy.polynomial import Polynomial
    >>> r = supnorm("x^2", Polynomial([0, 0, 1]), (0, 1))
    >>> r.lower, r.upper
    (0, 0)
    """
    return _interval_supnorm(f, as_poly(poly), box, **options)


def chebyshev_coefficients(f: Any, n: Any, dim: Any = 1, **options: Any) -> ChebyshevSeries:
    """Rigorous balls for the Chebyshev coefficients of ``f`` on ``[-1, 1]^dim``: see
    :func:`dpverify.constructions.chebyshev_series.chebyshev_coefficients` (options and
    guarantee)."""
    return _cheb_coefficients(f, n, dim, **options)
