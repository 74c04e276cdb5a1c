"""Helpers for users who regression-test their own (fast) implementations against dpverify.

* :func:`check_implementation` -- any float *function* (binary64 or binary32; a callable
  on numpy arrays or a scalar function) against a reference of one variable (an
  expression such as ``"erfc(x)"``, a dpverify or numpy polynomial, an
  :class:`~dpverify.Approximation`, a construction by command name with any parameters, an
  exact function; or a float function, not rigorous), over a million inputs by default
  (every binade, uniform and log-uniform random inputs, an adaptive search around the
  worst), each error in ulps enclosed rigorously by a float screen with proven bounds or
  decided exactly; locally or on Dask.  Reports: the worst input, the reference there and
  its correctly rounded value, the error, a histogram and a profile (``dpverify plot``).
  Also the pytest fixture ``dpverify_check`` (:mod:`dpverify.pytest_plugin`).
* :func:`reference` -- the exact reference values of a table entry (``fmpq``, nested lists),
  for any parameters of any table of :mod:`dpverify.tables`.
* :func:`assert_matches_reference` -- compare your float outputs with them, *exactly*: each
  of your numbers is converted to the rational it denotes (no rounding on our side), so a
  pass/fail is never an artefact of the comparison.  Raises ``AssertionError`` with the
  worst index, the expected and actual values and a hint (length off by one -- with the
  first wrong value of the common index range --, float32-sized error, constant factor) --
  usable directly in pytest.
* hypothesis strategies for valid parameters: :func:`or_params`, :func:`gammas`,
  :func:`rofk_params`, :func:`bernstein_params`, :func:`jackson_kernel_params`,
  :func:`jackson_multiplier_params` (``hypothesis`` is imported lazily; it is only needed
  for the strategies).

Tables and quantities (:mod:`dpverify.tables`; named like the commands, any parameters;
the old names ``or-chebyshev``, ``or-minimax``, ``dlist-h``, ``jackson-kernel``,
``jackson-multipliers``, ``bernstein-iterated`` are aliases)::

    "or"          monomial (default) | values | chebyshev*  | error_exact*   k, gamma[, method]
    "and"         monomial (default) | values | chebyshev*  | error_exact*   k, gamma[, method]
    "rofk"        values (default) | chebyshev_0_k | monomial          r, k, gamma[, method]
    "dlist"       monomial (default) | values                           k, gamma[, method]
    "jackson"     two_pi_a (with r) | w (with K)                        t, r | t, K
    "bernstein"   basis (basis[nu][mu])                                 k, h

``*`` only with ``method="chebyshev"`` (the default).  ``values`` are the polynomial's values
at the integers ``0..k``.

Guarantee
---------
The reference values are exact (the exact constructions); the comparison is exact.  The
tolerance semantics: ``|v_i - e_i| <= atol + rtol * s`` for every entry, with
``s = max_j |e_j|`` (``norm="normwise"``, default) or ``s = |e_i|`` (``norm="entrywise"``).
:func:`check_implementation`: with a rigorous reference, ``|impl(x) - f(x)| <= ulps *
ulp(f(x))`` or ``<= atol`` at every checked input, each error enclosed rigorously (floats
choose the inputs and evaluate bounds whose rounding is bounded; they never decide).
"""

from __future__ import annotations

from .check import ImplementationCheck, check_implementation, ulp_of
from .compare import assert_matches_reference, reference
from .points import ALL_INTEGERS_MAX as ALL_INTEGERS_MAX
from .points import DEFAULT_POINTS as DEFAULT_POINTS
from .points import MAX_POINTS as MAX_POINTS
from .references import DEFAULT_DEGREE as DEFAULT_DEGREE
from .strategies import (
    bernstein_params,
    gammas,
    jackson_kernel_params,
    jackson_multiplier_params,
    or_params,
    rofk_params,
)

__all__ = [
    "check_implementation",
    "ImplementationCheck",
    "ulp_of",
    "reference",
    "assert_matches_reference",
    "gammas",
    "or_params",
    "rofk_params",
    "bernstein_params",
    "jackson_kernel_params",
    "jackson_multiplier_params",
]
