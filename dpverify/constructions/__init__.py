"""Constructions: each returns an :class:`~dpverify.approximation.Approximation`,
never a certificate (``dpverify.certify.certify`` decides the claims)."""

from .bernstein import (
    bernstein_approx,
    bernstein_operator_matrix,
    iterated_basis_matrix,
    iterated_bernstein,
    iterated_bernstein_basis,
    iterated_bernstein_tensor,
    iterated_operator_matrix,
)
from .chebyshev import (
    and_chebyshev_form,
    and_polynomial,
    chebyshev_t_value,
    doubled_record,
    doubled_universe_indices,
    or_chebyshev_form,
    or_degree,
    or_polynomial,
)
from .decision_lists import (
    DecisionList,
    decision_list_polynomial,
    h_polynomial,
)
from .minimax import minimax_least_degree
from .multivariate_norm import multivariate_norms
from .sherstov import exact_l_polynomial, rofk_polynomial

__all__ = [
    "DecisionList",
    "decision_list_polynomial",
    "h_polynomial",
    "multivariate_norms",
    "exact_l_polynomial",
    "rofk_polynomial",
    "bernstein_approx",
    "bernstein_operator_matrix",
    "iterated_basis_matrix",
    "iterated_bernstein",
    "iterated_bernstein_basis",
    "iterated_bernstein_tensor",
    "iterated_operator_matrix",
    "and_chebyshev_form",
    "and_polynomial",
    "chebyshev_t_value",
    "doubled_record",
    "doubled_universe_indices",
    "minimax_least_degree",
    "or_chebyshev_form",
    "or_degree",
    "or_polynomial",
]
