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

Inputs are read exactly: int, fmpz, fmpq, Fraction, exact text, float64 / numpy floats and
mpmath ``mpf`` (their exact binary values), numpy arrays entry by entry, numpy
polynomials with their domain and window (:func:`from_numpy`, :func:`as_poly`).

Outputs: exact (``fmpq``), rigorous balls (``p(arb)``), exact SymPy expressions
(``p.to_sympy()``), and -- rounded, no guarantee, said so -- ``p.to_numpy()``,
``p.to_mpmath(prec)`` and vectorised ``p.evaluate_float(xs)``
(:mod:`dpverify.exact.floateval`; the same algorithms as :mod:`dpverify.fast`).

``repr(p)`` is short (the exact form when that is at most 100 characters, else a summary
under 200); ``str(p)`` is the exact full form; ``p.to_json()`` the machine-readable one.

Guarantee: exact inputs give exact outputs; ball inputs give enclosures.  No floats
are used anywhere in this package except in the rounded outputs above.
"""

from __future__ import annotations

from typing import Any

from ._core import MAX_TENSOR_SIZE, affine_map, fmpq_abs_sum, fmpq_sum
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
    "fmpq_sum",
    "fmpq_abs_sum",
    "chebyshev_t",
    "bernstein_basis_poly",
    "MAX_TENSOR_SIZE",
    "as_poly",
    "from_numpy",
    "to_numpy",
    "evaluate_float",
    "MpmathPoly",
]


def __getattr__(name: str) -> Any:
    # the float outputs load numpy (about 60 ms at start-up), which exact work never needs
    if name in ("MpmathPoly", "evaluate_float"):
        import importlib  # lazy attributes (PEP 562)

        return getattr(importlib.import_module(".floateval", __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
