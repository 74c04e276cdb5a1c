"""Certified rounding bounds of the fast path's evaluators over the whole domain they serve.

The numpy evaluators of :mod:`dpverify.fast` promise nothing; :mod:`dpverify.crosscheck`
measures their deviation at sample points.  This module gives, for the coefficients of a
case, a bound that holds at *every* float64 point of the evaluator's domain (the parameter
the evaluator serves: the mechanisms evaluate fixed polynomials at data points), with a
checkable certificate:

* :func:`clenshaw_bound`: :func:`dpverify.fast.chebyshev.clenshaw` on ``(-1, 1)`` is
  exactly the Clenshaw scheme of :func:`dpverify.certify.evalbound.evalbound`
  (``t = fl(fl(2x - 0) / 2) = x``, ``b_k = fl(fl(fl(2t b_(k+1)) - b_(k+2)) + c_k)``, ...):
  kind ``evalbound``, every float64 ``x`` in ``[-1, 1]``;
* :func:`de_casteljau_bound`: :func:`dpverify.fast.bernstein.de_casteljau` on ``(0, 1)``
  written as a program (:func:`de_casteljau_program`: ``s' = (s - 0) / 1``,
  ``t = 1 - s'``, each level ``a_i = t a_i + s' a_(i+1)``) and bounded by
  :func:`dpverify.certify.roundoff.program_bound`: kind ``roundoff``, every float64
  ``s`` in ``[0, 1]``.

Guarantee
---------
The bounds are certified for the float64 coefficients given (what the fast path stores)
and every float64 point of the domain; the analyses are those of the certifiers named.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from flint import fmpq

from ..certify.evalbound import evalbound
from ..certify.roundoff import program_bound
from ..errors import InvalidParameterError
from ..expr.program import Program, ProgramBuilder
from ..numbers import to_fmpq

__all__ = ["clenshaw_bound", "de_casteljau_bound", "de_casteljau_program",
           "certified_rounding", "EVALUATORS"]


def _coeffs(coeffs: Sequence[Any]) -> list[fmpq]:
    if isinstance(coeffs, (str, bytes)) or len(coeffs) == 0:
        raise InvalidParameterError("coeffs must be a non-empty sequence of numbers")
    return [to_fmpq(c, f"coeffs[{i}]") for i, c in enumerate(coeffs)]


def clenshaw_bound(coeffs: Sequence[Any]) -> Any:
    """``|fast.clenshaw(c, x) - sum c_n T_n(x)|`` over every float64 ``x`` in ``[-1, 1]``
    (an :class:`~dpverify.certify.evalbound_cert.EvalBound`; ``.bound``, ``.certificate()``).

    Examples
    --------
    >>> float(clenshaw_bound([0.5, -0.25, 1.0]).bound) < 1e-15
    True
    """
    return evalbound(_coeffs(coeffs), (-1, 1), basis="chebyshev")


def de_casteljau_program(coeffs: Sequence[Any]) -> Program:
    """The operations of ``fast.de_casteljau(c, s)`` on ``(0, 1)`` (module docstring),
    the coefficients as literals (float64 numbers: stored exactly).

    Examples
    --------
    >>> de_casteljau_program([1, 3]).fpcore()
    '(FPCore (s) :name "de_casteljau" (let* ((t5 (/ (- s 0) 1))) (+ (* (- 1 t5) 1) (* t5 3))))'
    """
    cs = _coeffs(coeffs)
    b = ProgramBuilder(["s"], "de_casteljau")
    arr = [b.const(c) for c in cs]
    if len(cs) == 1:
        return b.finish(arr[0], "de_casteljau")
    one = b.const(fmpq(1))
    s = b.apply("div", (b.apply("sub", (b.var("s"), b.const(fmpq(0)))), one))
    t = b.apply("sub", (one, s))
    for r in range(len(cs) - 1, 0, -1):
        arr = [b.apply("add", (b.apply("mul", (t, arr[i])), b.apply("mul", (s, arr[i + 1]))))
               for i in range(r)]
    return b.finish(arr[0], "de_casteljau")


def de_casteljau_bound(coeffs: Sequence[Any], max_boxes: int = 64) -> Any:
    """``|fast.de_casteljau(c, s) - sum c_nu b_(nu,k)(s)|`` over every float64 ``s`` in
    ``[0, 1]`` (a :class:`~dpverify.certify.roundoff_cert.RoundoffBound`).

    Examples
    --------
    >>> float(de_casteljau_bound([0.5, -0.25, 1.0]).bound) < 1e-15
    True
    """
    return program_bound(de_casteljau_program(coeffs), {"s": (0, 1)}, max_boxes=max_boxes)


#: cross-check name -> (certifier, the domain it covers)
EVALUATORS = {"clenshaw": (clenshaw_bound, "every float64 x in [-1, 1]"),
              "de-casteljau": (de_casteljau_bound, "every float64 s in [0, 1]")}


def certified_rounding(evaluator: str, coeffs: Sequence[Any]) -> Any:
    """The certified bound of ``evaluator`` (a key of :data:`EVALUATORS`) for these
    coefficients over its whole domain.

    Examples
    --------
    >>> r = certified_rounding("clenshaw", [1.0, 0.5])
    >>> r.certificate().check().status
    'holds'
    """
    if evaluator not in EVALUATORS:
        raise InvalidParameterError(f"evaluator must be one of {', '.join(EVALUATORS)}, got "
                                    f"{evaluator!r}")
    return EVALUATORS[evaluator][0](coeffs)
