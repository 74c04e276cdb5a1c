"""Check a float64 implementation against its exact reference, exactly, in ulps.

:func:`check_implementation` evaluates the implementation at adversarial inputs
(:mod:`dpverify.testing.points`) and compares each output with the exact reference value
(:mod:`dpverify.testing.references`) in rational arithmetic; :func:`ulp_of` is the unit of
that comparison.  Also the pytest fixture ``dpverify_check`` (:mod:`dpverify.pytest_plugin`).

Guarantee
---------
``|impl(x) - p(x)| <= ulps * ulp(p(x))`` or ``<= atol`` at every checked input, decided in
exact rational arithmetic (floats only choose the inputs).
"""

from __future__ import annotations

import math
import sys
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np
from flint import fmpq

from ..errors import InvalidParameterError, ParameterTypeError
from ..numbers import ExactLike, check_int, fmpq_str, to_fmpq
from .points import MAX_POINTS, adversarial_points
from .references import resolve_reference

__all__ = ["ImplementationCheck", "check_implementation", "ulp_of"]


@dataclass(frozen=True)
class ImplementationCheck:
    """What :func:`check_implementation` compared (returned when every point passes).

    ``worst_input`` is the binary64 input with the largest error in ulps,
    ``reference_value`` the exact value of the reference there, ``worst_ulps`` the error in
    ulps of that value (exact ratio), ``worst_abs_error`` the exact absolute error."""

    points: int
    worst_input: float
    reference_value: fmpq
    actual: float
    worst_abs_error: fmpq
    worst_ulps: fmpq
    ulps: fmpq | None
    atol: fmpq | None

    def __repr__(self) -> str:
        return (f"ImplementationCheck(points={self.points}, worst_input={self.worst_input!r}, "
                f"worst_ulps~{float(self.worst_ulps):.3g})")


def _nearest(q: fmpq) -> float:
    """The float64 nearest to ``q`` (Python rounds int / int correctly); +-inf beyond."""
    try:
        return int(q.p) / int(q.q)
    except OverflowError:
        return math.inf if q > 0 else -math.inf  # copysign(inf, huge int) overflows too


def ulp_of(value: Any) -> fmpq:
    """The ulp of the binary64 number nearest to the exact ``value`` (``math.ulp`` of the
    correctly rounded value; ``2^-1074`` at zero), as an exact rational.

    >>> ulp_of(1), ulp_of(fmpq(3, 2)) == fmpq(1, 2**52)
    (1/4503599627370496, True)
    """
    q = to_fmpq(value, "value")
    f = float(Fraction(int(q.p), int(q.q)))  # Python rounds Fraction -> float correctly
    if math.isinf(f):
        f = math.copysign(sys.float_info.max, f)
    return to_fmpq(math.ulp(f), "ulp")



def check_implementation(
    impl: Callable[[np.ndarray], Any],
    reference: Any,
    points: Any = None,
    ulps: Any = None,
    atol: ExactLike | None = None,
    *,
    domain: Any = None,
    n_random: int = 256,
    seed: int = 0,
) -> ImplementationCheck:
    """Check a float64 implementation ``impl`` of a polynomial against its exact reference.

    Parameters
    ----------
    impl : callable
        Takes a 1-D float64 numpy array of inputs, returns an array of the same shape
        (anything ``numpy.asarray(..., dtype=float64)`` accepts).
    reference : polynomial, Approximation, (name, params) or exact callable
        The exact function (univariate):

        * a :mod:`dpverify.exact` polynomial, or a ``numpy.polynomial`` ``Polynomial`` /
          ``Chebyshev`` or a list of monomial coefficients (read exactly,
          :func:`dpverify.exact.as_poly`);
        * an :class:`~dpverify.Approximation` (its polynomial and its domain: integers or
          one interval);
        * a construction by command name with any parameters (keywords of the construction
          function, validated by it): ``("or", {"k": 100, "gamma": "1e-6"})``, ``"and"``
          (``k, gamma[, method]``), ``"rofk"`` (``r, k, gamma[, method, reading]``),
          ``"dlist"`` (the univariate ``h_k``: ``k, gamma[, method]``),
          ``"jackson-approx"`` (``f, t, K``), ``"bernstein-approx"`` (``f, k, h``),
          ``"minimax"`` (``f, degree, interval``: the polynomial dpverify's Remez search
          returns), and the table aliases ``"or-chebyshev"``, ``"or-minimax"``,
          ``"dlist-h"``;
        * duck-typed: an object with ``as_fmpq_poly()`` (or ``to_monomial().as_fmpq_poly()``)
          returning a python-flint ``fmpq_poly``, or else with ``evaluate(x)``, or else
          callable, returning an *exact* number (``fmpq``, ``int``, ``Fraction``) at an
          ``fmpq`` point -- a float result is refused.  Its ``domain`` (a pair) and
          ``degree`` (an int; else :data:`DEFAULT_DEGREE`, used only to place Chebyshev
          points) are read when present.
    points : array-like of float64, optional
        The inputs to check.  Default: an adversarial set -- every integer of an integer
        domain (sampled beyond :data:`ALL_INTEGERS_MAX`); on an interval the endpoints, the
        Chebyshev extrema and nodes of the degree, ``n_random`` seeded uniform points, the
        points of largest error (in ulps, and absolute) found by a float search (8 maxima of
        each on a 2049-point grid, each refined on a 65-point grid around it), and the
        neighbouring floats (``numpy.nextafter``) of all of these.
    ulps, atol : exact numbers, optional
        A point passes when ``|impl(x) - p(x)| <= ulps * ulp(p(x))`` or
        ``|impl(x) - p(x)| <= atol`` (either one given suffices).  With neither given,
        ``ulps = 1``.  ``ulp(v)`` (:func:`ulp_of`) is ``math.ulp`` of the binary64 number
        nearest to the exact ``v``: ``2^(e-52)`` when ``2^e <= |fl(v)| < 2^(e+1)``,
        ``2^-1074`` at zero and among subnormals.  A correctly rounded implementation errs by
        at most ``1/2`` ulp; ``ulps=0`` demands the exact value (possible only where it is a
        binary64 number, e.g. integer values).
    domain : (lo, hi), optional
        Overrides the reference's domain (required for a polynomial without one).

    Returns
    -------
    ImplementationCheck
        The worst point and its error, when every point passes.

    Raises
    ------
    AssertionError
        Some point fails (or ``impl`` returns the wrong shape or non-finite values): the
        message names the worst input (decimal and hex), the exact reference value there,
        the value returned and the error in ulps.
    InvalidParameterError, ParameterTypeError
        Bad arguments.

    Guarantee
    ---------
    Every comparison is exact: inputs and outputs are read as their exact binary64 values
    and the reference is evaluated exactly (fmpq).  Floats only choose the points.
    """
    if not callable(impl):
        raise ParameterTypeError(f"impl must be callable, got {type(impl).__name__}")
    u = None if ulps is None else to_fmpq(ulps, "ulps")
    a = None if atol is None else to_fmpq(atol, "atol")
    if u is not None and u < 0:
        raise InvalidParameterError(f"ulps must be >= 0, got {fmpq_str(u)}")
    if a is not None and a < 0:
        raise InvalidParameterError(f"atol must be >= 0, got {fmpq_str(a)}")
    poly, (kind, lo, hi) = resolve_reference(reference, domain)
    if u is None and a is None:
        u = fmpq(1)
    n_random = check_int(n_random, "n_random", minimum=0, maximum=MAX_POINTS)
    exact_at = poly.evaluate
    if points is None:
        def error_at(xs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
            # floats only choose points: error in ulps of the rounded reference, and absolute
            ys = np.asarray(impl(xs.copy()), dtype=np.float64)
            ref = np.array([_nearest(exact_at(to_fmpq(float(x), "x"))) for x in xs])
            if ys.shape != ref.shape:
                raise AssertionError(f"implementation returned shape {ys.shape} for "
                                     f"{xs.shape[0]} inputs")
            with np.errstate(invalid="ignore"):
                err = np.nan_to_num(np.abs(ys - ref), nan=np.inf)
            return err / np.spacing(np.abs(ref)), err
        xs = adversarial_points(kind, lo, hi, poly.degree, error_at, n_random, seed)
    else:
        xs = np.asarray(points, dtype=np.float64).ravel()
        if xs.size > MAX_POINTS:
            raise InvalidParameterError(f"points must have at most {MAX_POINTS} entries, "
                                        f"got {xs.size}")
        if not np.all(np.isfinite(xs)):
            raise InvalidParameterError("points must be finite")
    ys = np.asarray(impl(xs.copy()), dtype=np.float64)
    if ys.shape != xs.shape:
        raise AssertionError(f"implementation returned shape {ys.shape} for {xs.shape[0]} "
                             "inputs")
    worst: tuple[fmpq, int, fmpq, fmpq] | None = None      # largest error in ulps
    worst_bad: tuple[fmpq, int, fmpq, fmpq, fmpq] | None = None  # worst failing point
    failures = 0
    for i, (x, y) in enumerate(zip(xs.tolist(), ys.tolist())):
        ref = exact_at(to_fmpq(x, "x"))
        if not math.isfinite(y):
            raise AssertionError(
                f"implementation returned {y!r} at x = {x!r} ({x.hex()}); exact reference "
                f"{fmpq_str(ref)} (~{_nearest(ref):.17g})")
        err = abs(to_fmpq(y, "y") - ref)
        in_ulps = err / ulp_of(ref)
        ok = (u is not None and in_ulps <= u) or (a is not None and err <= a)
        if not ok:
            failures += 1
            # rank failures by the limit that was given (ulps first), so the point named
            # is the one that misses it by most
            key = in_ulps if u is not None else err
            if worst_bad is None or key > worst_bad[0]:
                worst_bad = (key, i, ref, err, in_ulps)
        if worst is None or in_ulps > worst[0]:
            worst = (in_ulps, i, ref, err)
    if worst is None:
        raise InvalidParameterError("points must not be empty")
    if worst_bad is not None:
        _, i, ref, err, in_ulps = worst_bad
        x, y = float(xs[i]), float(ys[i])
        limit = " or ".join(t for t in (
            None if u is None else f"{fmpq_str(u)} ulps",
            None if a is None else f"atol {fmpq_str(a)}") if t)
        raise AssertionError(
            f"implementation is off by {float(in_ulps):.4g} ulps (limit {limit}) "
            f"at x = {x!r} ({x.hex()}): got {y!r} ({y.hex()}), exact reference "
            f"{fmpq_str(ref)} (~{_nearest(ref):.17g}), |error| = {float(err):.4g}; "
            f"{failures} of {xs.size} points fail")
    in_ulps, i, ref, err = worst
    x, y = float(xs[i]), float(ys[i])
    return ImplementationCheck(points=int(xs.size), worst_input=x, reference_value=ref,
                               actual=y, worst_abs_error=err, worst_ulps=in_ulps, ulps=u,
                               atol=a)
