"""The top-level entry points, named like the commands (issue 16 item 6):
``dpverify.supnorm``, ``dpverify.chebyshev_coefficients``, ``dpverify.minimax``,
``dpverify.approx`` and ``dpverify.evalbound``.  Each takes numpy.polynomial objects as
well as dpverify polynomials (converted exactly by :func:`dpverify.exact.as_poly`), then
calls the function of the package that owns the concept; the guarantee is that function's.
"""

from __future__ import annotations

from typing import Any

from .certify.alternation import approx as _approx
from .certify.alternation import minimax as _minimax
from .certify.certificate import Certificate
from .certify.evalbound import EvalBound
from .certify.evalbound import evalbound as _evalbound
from .certify.interval import SupNorm
from .certify.interval import supnorm as _interval_supnorm
from .constructions.chebyshev_series import ChebyshevSeries
from .constructions.chebyshev_series import chebyshev_coefficients as _cheb_coefficients
from .constructions.remez import remez
from .exact import as_poly

__all__ = ["supnorm", "chebyshev_coefficients", "minimax", "approx", "evalbound"]


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


def minimax(f: Any, degree: Any, interval: Any, **options: Any) -> Certificate:
    """Best uniform approximation of degree ``degree`` to ``f`` on ``interval`` with a
    certified bracket ``lower <= E_N(f) <= upper`` (a ``minimax`` certificate that
    ``dpverify verify`` re-checks).  The search is the mpmath Remez exchange of
    :func:`dpverify.constructions.remez.remez` unless ``search=`` is given; options and
    guarantee: :func:`dpverify.certify.alternation.minimax`."""
    options.setdefault("search", remez)
    return _minimax(f, degree, interval, **options)


def approx(f: Any, interval: Any, gamma: Any, **options: Any) -> Certificate:
    """The least degree whose best approximation is certified within ``gamma`` (and, when
    provable, that one degree less is impossible): see
    :func:`dpverify.certify.alternation.approx`."""
    options.setdefault("search", remez)
    return _approx(f, interval, gamma, **options)


def evalbound(poly: Any, interval: Any, **options: Any) -> EvalBound:
    """Rigorous bound on ``|fl(p(x)) - p(x)|`` for binary64 Horner (monomial) or Clenshaw
    (Chebyshev) evaluation over ``interval``; ``poly`` may be a numpy polynomial.  See
    :func:`dpverify.certify.evalbound.evalbound`."""
    return _evalbound(as_poly(poly), interval, **options)
