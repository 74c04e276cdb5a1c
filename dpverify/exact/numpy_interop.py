"""numpy.polynomial interoperability: exact conversion in, rounded conversion out.

:func:`from_numpy` reads a ``numpy.polynomial.Polynomial`` or ``Chebyshev`` *exactly*: every
float64 coefficient, domain and window entry is its exact binary64 value, and numpy's affine
map (``x -> off + scl * x`` taking ``domain`` onto ``window``, numpy's ``mapparms``) is
applied in exact rational arithmetic.  So the dpverify polynomial is the very function numpy
evaluates (up to numpy's own rounding), never a nearby one:

* ``Polynomial(c, domain, window)`` is ``sum c_n (off + scl x)^n``: expanded exactly into a
  :class:`~dpverify.exact.MonomialPoly` in ``x``;
* ``Chebyshev(c, domain, window)`` is ``sum c_n T_n(off + scl x)``: a
  :class:`~dpverify.exact.ChebyshevPoly` on the interval that ``x -> off + scl x`` maps onto
  ``[-1, 1]`` (exactly numpy's domain when the window is the default ``[-1, 1]``; with
  ``scl < 0`` the odd coefficients change sign, ``T_n(-u) = (-1)^n T_n(u)``).

Other numpy bases (Legendre, Hermite, Laguerre) are refused: converting them would need a
basis change that numpy performs in floats.

:func:`to_numpy` goes the other way; its coefficients and domain are rounded to the nearest
float64 (with :mod:`dpverify.exact.floateval`, the only floats in :mod:`dpverify.exact`), so
it is for evaluation speed, not for certification.  :func:`as_poly` accepts any of: a
dpverify polynomial, a numpy polynomial, or a sequence / 1-D numpy array of numbers
(monomial coefficients, lowest degree first; int, Fraction, fmpq, text, float64 and mpmath
numbers, each read exactly).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from flint import fmpq, fmpq_poly
from numpy.polynomial import Chebyshev, Polynomial
from numpy.polynomial._polybase import ABCPolyBase

from ..errors import InvalidParameterError, ParameterTypeError
from ._core import exact_number
from .base import ExactPoly
from .bernstein import BernsteinPoly
from .chebyshev import ChebyshevPoly
from .monomial import MonomialPoly
from .tensor import TensorPoly

__all__ = ["from_numpy", "to_numpy", "as_poly", "is_numpy_polynomial"]


def is_numpy_polynomial(obj: Any) -> bool:
    """True for an instance of a ``numpy.polynomial`` class."""
    return isinstance(obj, ABCPolyBase)


def _pair(v: Any, name: str) -> tuple[fmpq, fmpq]:
    a, b = (exact_number(x, name) for x in np.asarray(v).tolist())
    if a == b:
        raise InvalidParameterError(f"{name} must have two different ends, got {list(v)!r}")
    return a, b


def from_numpy(obj: Any) -> ExactPoly:
    """The exact dpverify polynomial equal to the numpy polynomial ``obj`` (module
    docstring).  ``ParameterTypeError`` for other numpy bases or non-numpy objects.

    >>> from numpy.polynomial import Chebyshev
    >>> p = from_numpy(Chebyshev([1, 2, 3], domain=[0, 1]))
    >>> p.domain, p.coeffs
    ((0, 1), (1, 2, 3))
    """
    if not is_numpy_polynomial(obj):
        raise ParameterTypeError(f"expected a numpy.polynomial object, got {type(obj).__name__}")
    if not isinstance(obj, (Polynomial, Chebyshev)):
        raise ParameterTypeError(
            f"numpy.polynomial.{type(obj).__name__} is not supported exactly (convert it to "
            "Polynomial or Chebyshev yourself, knowing numpy does that in floats)")
    # entry by entry, exactly: float64 -> its binary value; an object array (Fractions,
    # mpmath numbers) is never squeezed through float64
    cs = [exact_number(c, f"coef[{i}]") for i, c in enumerate(np.asarray(obj.coef).tolist())]
    d0, d1 = _pair(obj.domain, "domain")
    w0, w1 = _pair(obj.window, "window")
    scl = (w1 - w0) / (d1 - d0)
    off = w0 - scl * d0
    if isinstance(obj, Polynomial):
        inner = fmpq_poly([off, scl])
        return MonomialPoly.from_fmpq_poly(fmpq_poly(cs)(inner))
    if scl < 0:
        cs = [c if n % 2 == 0 else -c for n, c in enumerate(cs)]
        off, scl = -off, -scl
    return ChebyshevPoly(cs, domain=((-1 - off) / scl, (1 - off) / scl))


def to_numpy(poly: ExactPoly) -> Polynomial | Chebyshev:
    """A numpy polynomial for fast float evaluation: ``MonomialPoly`` -> ``Polynomial``,
    ``ChebyshevPoly`` -> ``Chebyshev`` with the same domain (window ``[-1, 1]``),
    ``BernsteinPoly`` -> ``Chebyshev`` on its domain (converted exactly first; numpy has no
    Bernstein basis).

    Guarantee
    ---------
    None beyond rounding: coefficients and domain ends are the nearest float64 values of
    the exact ones (round to nearest, Python's ``float`` of a fraction).  Use the exact
    polynomial for anything certified.
    """
    def f(q: fmpq) -> float:
        return int(q.p) / int(q.q)  # correctly rounded (true division of Python ints)

    if isinstance(poly, MonomialPoly):
        return Polynomial([f(c) for c in poly.coeffs] or [0.0])
    if isinstance(poly, BernsteinPoly):  # numpy has no Bernstein basis: exact change first
        poly = poly.to_chebyshev()
    if isinstance(poly, ChebyshevPoly):
        assert poly.domain is not None
        return Chebyshev([f(c) for c in poly.coeffs] or [0.0],
                         domain=[f(poly.domain[0]), f(poly.domain[1])])
    raise ParameterTypeError(
        f"to_numpy supports MonomialPoly, ChebyshevPoly and BernsteinPoly, got "
        f"{type(poly).__name__} (a cosine polynomial is a function of theta: use "
        ".evaluate_float(theta), or .to_chebyshev() for x = cos(theta))")


def as_poly(obj: Any) -> ExactPoly | TensorPoly:
    """A dpverify polynomial from ``obj``, exactly: a dpverify polynomial or tensor
    polynomial (returned as is), a numpy.polynomial ``Polynomial``/``Chebyshev``
    (:func:`from_numpy`: domain and window honoured), or a sequence / 1-D numpy array of
    numbers (monomial coefficients, lowest degree first; float64 and mpmath values are
    their exact binary values).

    Raises
    ------
    ParameterTypeError
        For anything else (other numpy bases, strings, scalars, ...).

    >>> from numpy.polynomial import Chebyshev
    >>> as_poly(Chebyshev([0, 1], domain=[0, 2]))
    ChebyshevPoly(['0', '1'], domain=('0', '2'))
    >>> as_poly([1, "1/3", 0.5])
    MonomialPoly(['1', '1/3', '1/2'])
    """
    if isinstance(obj, (ExactPoly, TensorPoly)):
        return obj
    if is_numpy_polynomial(obj):
        return from_numpy(obj)
    if isinstance(obj, (str, bytes)) or not isinstance(obj, (Sequence, np.ndarray)):
        raise ParameterTypeError(
            "expected a dpverify polynomial, a numpy.polynomial object or a sequence of "
            f"coefficients, got {type(obj).__name__}")
    return MonomialPoly(list(np.asarray(obj).tolist()) if isinstance(obj, np.ndarray)
                        else list(obj))
