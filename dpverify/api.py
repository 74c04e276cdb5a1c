"""The top-level entry points, named like the commands (issue 16 item 6):
``dpverify.supnorm``, ``dpverify.chebyshev_coefficients``, ``dpverify.minimax``,
``dpverify.approx`` and ``dpverify.evalbound``.  Each takes numpy.polynomial objects as
well as dpverify polynomials (converted exactly by :func:`dpverify.exact.as_poly`), then
calls the function of the package that owns the concept; the guarantee is that function's.
"""

from __future__ import annotations

from typing import Any

from flint import arb, fmpq

from .certify.alternation import approx as _approx
from .certify.alternation import minimax as _minimax
from .certify.certificate import Certificate
from .certify.evalbound import EvalBound, FloatErrorBound
from .certify.evalbound import evalbound as _evalbound
from .certify.evalbound import float_error_bound as _float_error_bound
from .certify.interval import SupNorm
from .certify.interval import supnorm as _interval_supnorm
from .constructions.chebyshev_series import ChebyshevSeries
from .constructions.chebyshev_series import chebyshev_coefficients as _cheb_coefficients
from .constructions.remez import remez
from .errors import InvalidParameterError, ParameterTypeError
from .exact import ExactPoly, as_poly
from .expr import Expr
from .numbers import MAX_DEGREE, check_int

__all__ = ["supnorm", "chebyshev_coefficients", "minimax", "approx", "evalbound",
           "float_error_bound"]


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
    """Rigorous balls for the Chebyshev coefficients ``c_0 .. c_n`` of ``f`` on
    ``[-1, 1]^dim``: see :func:`dpverify.constructions.chebyshev_series.chebyshev_coefficients`
    (options and guarantee).

    ``f`` may also be a polynomial in one variable -- a dpverify polynomial or a
    ``numpy.polynomial`` ``Polynomial``/``Chebyshev`` (read exactly, domain and window
    honoured): then the coefficients are those of the same function of ``x`` on
    ``[-1, 1]`` (whatever the polynomial's own domain), computed by exact conversion
    (``method "exact"``, zero beyond the degree); each ball is the ``fmpq`` rounded to
    the working precision, so it contains the exact coefficient.

    >>> from numpy.polynomial import Polynomial
    >>> s = chebyshev_coefficients(Polynomial([0, 0, 1]), 3)   # x^2 = (T_0 + T_2)/2
    >>> [str(c) for c in s.coeffs]
    ['0.500000000000000', '0', '0.500000000000000', '0']
    """
    if isinstance(f, str) or isinstance(f, Expr):
        return _cheb_coefficients(f, n, dim, **options)
    poly = as_poly(f)
    if not isinstance(poly, ExactPoly):
        raise ParameterTypeError("f must be an expression or a polynomial in one variable")
    if dim != 1 or options:
        raise InvalidParameterError(
            "a polynomial f takes no dim or options (its coefficients are exact)")
    nn = check_int(n, "n", minimum=0, maximum=MAX_DEGREE)
    cs = list(poly.to_chebyshev(domain=(-1, 1)).coeffs)
    cs = (cs + [fmpq(0)] * (nn + 1))[: nn + 1]
    balls = [arb(c) for c in cs]
    return ChebyshevSeries(dim=1, n=nn, coeffs=balls, grid=0, q=0, alias_bound=arb(0),
                           method="exact", stats={"degree": poly.degree})


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


def float_error_bound(f: Any, poly: Any, interval: Any, **options: Any) -> FloatErrorBound:
    """Certified ``sup |f(x) - fl(p(x))|`` over the binary64 ``x`` in ``interval``: the
    certified ``sup |f - p|`` (a ``supnorm-box`` certificate) plus the :func:`evalbound` of
    binary64 Horner / Clenshaw; ``poly`` may be a numpy polynomial.  See
    :func:`dpverify.certify.evalbound.float_error_bound`.

    >>> from numpy.polynomial import Polynomial
    >>> b = float_error_bound("1 + x + x^2/2", Polynomial([1, 1, 0.5]), (0, 1))
    >>> b.bound == b.evaluation.bound      # p = f exactly: only rounding remains
    True
    """
    return _float_error_bound(f, as_poly(poly), interval, **options)
