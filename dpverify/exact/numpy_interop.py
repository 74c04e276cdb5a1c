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

import sys
from collections.abc import Sequence
from typing import Any

from ..errors import ParameterTypeError
from .base import BASES, ExactPoly
from .monomial import MonomialPoly
from .tensor import TensorPoly

__all__ = ["from_numpy", "to_numpy", "as_poly", "is_numpy_polynomial"]


def is_numpy_polynomial(obj: Any) -> bool:
    """True for an instance of a ``numpy.polynomial`` class (numpy is not imported for
    the question: an object of numpy exists only once numpy is loaded)."""
    if "numpy" not in sys.modules:
        return False
    from .numpy_convert import is_numpy_polynomial as check  # deferred: loads numpy

    return check(obj)


def to_numpy(poly: Any) -> Any:
    """A numpy polynomial for fast float evaluation (rounded; see
    :func:`dpverify.exact.numpy_convert.to_numpy`).

    Examples
    --------
    >>> to_numpy(MonomialPoly([1, "1/2"]))
    Polynomial([1. , 0.5], domain=[-1.,  1.], window=[-1.,  1.], symbol='x')
    """
    from .numpy_convert import to_numpy as convert  # deferred: loads numpy

    return convert(poly)


def from_numpy(obj: Any) -> ExactPoly:
    """The exact dpverify polynomial equal to the numpy polynomial ``obj`` (module
    docstring).  ``ParameterTypeError`` for other numpy bases or non-numpy objects.

    Examples
    --------
    >>> from numpy.polynomial import Chebyshev
    >>> p = from_numpy(Chebyshev([1, 2, 3], domain=[0, 1]))
    >>> p.domain, p.coeffs
    ((0, 1), (1, 2, 3))
    """
    from .numpy_convert import read_numpy  # deferred: loads numpy

    basis, cs, domain = read_numpy(obj)
    return BASES[basis]._make(cs, domain)


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

    Examples
    --------
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
    np = sys.modules.get("numpy")  # a numpy array exists only once numpy is loaded
    array = np is not None and isinstance(obj, np.ndarray)
    if isinstance(obj, (str, bytes)) or not (isinstance(obj, Sequence) or array):
        raise ParameterTypeError(
            "expected a dpverify polynomial, a numpy.polynomial object or a sequence of "
            f"coefficients, got {type(obj).__name__}")
    return MonomialPoly(list(np.asarray(obj).tolist()) if array and np is not None
                        else list(obj))
