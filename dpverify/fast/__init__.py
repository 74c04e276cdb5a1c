"""The fast numpy (float64) path: the same objects as the exact constructions, in floats.

Everything here is **heuristic**: float64, no guarantee.  The exact reference lives in
:mod:`dpverify.constructions` / :mod:`dpverify.exact`, and :mod:`dpverify.crosscheck`
measures (in exact rational / ball arithmetic) how far each fast function deviates from it
and fails when a declared tolerance is exceeded (``dpverify crosscheck``).  Submodules:

* :mod:`.chebyshev` -- Clenshaw, Chebyshev points and DCT coefficients, OR/AND forms;
* :mod:`.rofk` -- Sherstov r-of-k values / Chebyshev coefficients, decision-list ``h_k``;
* :mod:`.bernstein` -- (iterated) Bernstein bases in Bernstein coordinates, de Casteljau;
* :mod:`.jackson` -- Jackson kernel coefficients, multipliers, damped Chebyshev coefficients;
* :mod:`.tensor` -- d-variate tensor-product evaluation at many points.
"""

from .bernstein import (
    bernstein_basis_values,
    bernstein_eval,
    de_casteljau,
    iterated_basis_matrix,
    iterated_coefficients,
    operator_matrix,
)
from .chebyshev import (
    and_chebyshev_coeffs,
    and_values,
    chebyshev_coeffs_from_values,
    chebyshev_interpolant,
    chebyshev_points,
    chebyshev_t_values,
    clenshaw,
    or_chebyshev_coeffs,
    or_degree_float,
    or_values,
)
from .jackson import (
    damped_chebyshev_coeffs,
    jackson_coefficients_2pi,
    jackson_kernel_degree,
    jackson_multipliers,
)
from .rofk import h_values, rofk_chebyshev_coeffs, rofk_values
from .tensor import basis_values, tensor_eval

__all__ = [
    "and_chebyshev_coeffs",
    "and_values",
    "basis_values",
    "bernstein_basis_values",
    "bernstein_eval",
    "chebyshev_coeffs_from_values",
    "chebyshev_interpolant",
    "chebyshev_points",
    "chebyshev_t_values",
    "clenshaw",
    "damped_chebyshev_coeffs",
    "de_casteljau",
    "h_values",
    "iterated_basis_matrix",
    "iterated_coefficients",
    "jackson_coefficients_2pi",
    "jackson_kernel_degree",
    "jackson_multipliers",
    "operator_matrix",
    "or_chebyshev_coeffs",
    "or_degree_float",
    "or_values",
    "rofk_chebyshev_coeffs",
    "rofk_values",
    "tensor_eval",
]
