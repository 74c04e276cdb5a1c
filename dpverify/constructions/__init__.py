"""Constructions: each returns an :class:`~dpverify.approximation.Approximation`,
never a certificate (``dpverify.certify.certify`` decides the claims).

The names below load on first use (PEP 562): a command that needs one construction (the
Remez search of ``dpverify minimax``, the OR polynomial of ``dpverify or``) does not pay
for importing the others (Sherstov, Bernstein, decision lists: about 30 ms together).
"""

from __future__ import annotations

from ..lazy import lazy_names

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

#: name -> the module that defines it
_HOME = {
    "bernstein_approx": "bernstein",
    "bernstein_operator_matrix": "bernstein",
    "iterated_basis_matrix": "bernstein",
    "iterated_bernstein": "bernstein",
    "iterated_bernstein_basis": "bernstein",
    "iterated_bernstein_tensor": "bernstein",
    "iterated_operator_matrix": "bernstein",
    "and_chebyshev_form": "chebyshev",
    "and_polynomial": "chebyshev",
    "chebyshev_t_value": "chebyshev",
    "doubled_record": "chebyshev",
    "doubled_universe_indices": "chebyshev",
    "or_chebyshev_form": "chebyshev",
    "or_degree": "chebyshev",
    "or_polynomial": "chebyshev",
    "DecisionList": "decision_lists",
    "decision_list_polynomial": "decision_lists",
    "h_polynomial": "decision_lists",
    "minimax_least_degree": "minimax",
    "multivariate_norms": "multivariate_norm",
    "exact_l_polynomial": "sherstov",
    "rofk_polynomial": "sherstov",
}


__getattr__, __dir__ = lazy_names(__name__, _HOME, __all__)
