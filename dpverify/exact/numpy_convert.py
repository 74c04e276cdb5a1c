"""numpy.polynomial objects as exact coefficient data, and back to numpy for speed.

The half of :mod:`dpverify.exact.numpy_interop` that needs no basis class: it reads a numpy
polynomial into ``(basis name, exact coefficients, domain)`` and rounds a polynomial's data
back into a numpy object, so :class:`~dpverify.exact.ExactPoly` can accept numpy input and
offer ``to_numpy`` while sitting below its subclasses (the conversions are described in
:mod:`dpverify.exact.numpy_interop`).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from flint import fmpq, fmpq_poly
from numpy.polynomial import Chebyshev, Polynomial
from numpy.polynomial._polybase import ABCPolyBase

from ..errors import InvalidParameterError, ParameterTypeError
from ._core import exact_number
from .floateval import PolyData

__all__ = ["is_numpy_polynomial", "read_numpy", "to_numpy"]


def is_numpy_polynomial(obj: Any) -> bool:
    """True for an instance of a ``numpy.polynomial`` class."""
    return isinstance(obj, ABCPolyBase)


def _pair(v: Any, name: str) -> tuple[fmpq, fmpq]:
    a, b = (exact_number(x, name) for x in np.asarray(v).tolist())
    if a == b:
        raise InvalidParameterError(f"{name} must have two different ends, got {list(v)!r}")
    return a, b


def read_numpy(obj: Any) -> tuple[str, list[fmpq], tuple[fmpq, fmpq] | None]:
    """``(basis, coefficients, domain)`` of the exact dpverify polynomial equal to the numpy
    polynomial ``obj``: ``("monomial", c, None)`` for ``Polynomial`` (numpy's affine map
    expanded exactly), ``("chebyshev", c, (a, b))`` for ``Chebyshev``.

    Raises
    ------
    ParameterTypeError
        For other numpy bases (Legendre, Hermite, Laguerre) and non-numpy objects.
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
        expanded = fmpq_poly(cs)(fmpq_poly([off, scl]))
        return "monomial", [fmpq(c) for c in expanded.coeffs()], None
    if scl < 0:
        cs = [c if n % 2 == 0 else -c for n, c in enumerate(cs)]
        off, scl = -off, -scl
    return "chebyshev", cs, ((-1 - off) / scl, (1 - off) / scl)


def to_numpy(poly: PolyData) -> Polynomial | Chebyshev:
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

    if poly.basis == "monomial":
        return Polynomial([f(c) for c in poly.coeffs] or [0.0])
    if poly.basis == "bernstein":  # numpy has no Bernstein basis: exact change first
        poly = poly.to_chebyshev()
    if poly.basis == "chebyshev":
        assert poly.domain is not None
        return Chebyshev([f(c) for c in poly.coeffs] or [0.0],
                         domain=[f(poly.domain[0]), f(poly.domain[1])])
    raise ParameterTypeError(
        f"to_numpy supports MonomialPoly, ChebyshevPoly and BernsteinPoly, got "
        f"{type(poly).__name__} (a cosine polynomial is a function of theta: use "
        ".evaluate_float(theta), or .to_chebyshev() for x = cos(theta))")
