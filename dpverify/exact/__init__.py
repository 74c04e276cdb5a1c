"""Exact polynomials over the rationals (``fmpq``) in four bases.

* :class:`MonomialPoly` -- ``sum c_i x^i``
* :class:`ChebyshevPoly` -- ``sum c_n T_n(u)`` on ``(a, b)``, ``u = (2x - a - b)/(b - a)``
* :class:`BernsteinPoly` -- ``sum c_nu C(k,nu) s^nu (1-s)^(k-nu)`` on ``(a, b)``
* :class:`CosinePoly` -- ``sum c_n cos(n theta)``
* :class:`TensorPoly` -- d-variate tensor products of the first three

All share the :class:`ExactPoly` interface (numpy.polynomial-like): exact evaluation
at rationals, rigorous ``arb`` / ``arb_series`` evaluation, exact conversions,
arithmetic within one basis and domain (mixing raises
:class:`~dpverify.errors.BasisMismatchError`), JSON round trip (:func:`poly_from_json`).

Guarantee: exact inputs give exact outputs; ball inputs give enclosures.  No floats
are used anywhere in this package except in :func:`to_numpy` (rounded output for numpy,
said so); numpy polynomials come in exactly (:func:`from_numpy`, :func:`as_poly`).
"""

from __future__ import annotations

from ._core import MAX_TENSOR_SIZE, affine_map
from .base import ExactPoly
from .bernstein import BernsteinPoly, bernstein_basis_poly
from .chebyshev import ChebyshevPoly, chebyshev_t
from .cosine import CosinePoly
from .monomial import MonomialPoly
from .numpy_interop import as_poly, from_numpy, to_numpy
from .serialize import poly_from_json
from .tensor import TensorPoly

__all__ = [
    "ExactPoly",
    "MonomialPoly",
    "ChebyshevPoly",
    "BernsteinPoly",
    "CosinePoly",
    "TensorPoly",
    "poly_from_json",
    "affine_map",
    "chebyshev_t",
    "bernstein_basis_poly",
    "MAX_TENSOR_SIZE",
    "as_poly",
    "from_numpy",
    "to_numpy",
]
