"""The exact reference of :func:`dpverify.testing.check_implementation`.

Whatever the user passes as the reference -- a dpverify or numpy polynomial, an
:class:`~dpverify.approximation.Approximation`, a construction named like its command with
any parameters, or a duck-typed object with exact evaluation -- becomes one
:class:`ExactReference` (exact evaluation at an ``fmpq`` point) and a domain: the integers
``lo..hi`` or an interval.  A float-valued reference is refused: it cannot decide an error
in ulps.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from functools import partial
from typing import Any

import numpy as np
from flint import fmpq, fmpq_poly, fmpz

from ..errors import InvalidParameterError, ParameterTypeError
from ..numbers import to_fmpq

__all__ = ["DEFAULT_DEGREE", "ExactReference", "as_reference", "resolve_reference"]


def _bernstein_approx(f: Any, k: Any, h: Any, dim: Any = 1) -> Any:
    # lazy, as in _builders
    from ..constructions.bernstein import bernstein_approx

    return bernstein_approx(f, k, h, dim)


def _builders() -> dict[str, Callable[..., Any]]:
    # lazy: the constructions cost ~50 ms to import; only the (name, params) form needs them
    from ..constructions.chebyshev import and_polynomial, or_polynomial
    from ..constructions.decision_lists import h_polynomial
    from ..constructions.jackson import jackson_approx
    from ..constructions.remez import remez
    from ..constructions.sherstov import rofk_polynomial

    return {
        "or": or_polynomial, "and": and_polynomial, "rofk": rofk_polynomial,
        "dlist": h_polynomial, "jackson-approx": jackson_approx,
        "bernstein-approx": _bernstein_approx, "minimax": remez,
        # the table aliases of dpverify.tables
        "or-chebyshev": or_polynomial,
        "or-minimax": partial(or_polynomial, method="minimax"),
        "dlist-h": h_polynomial,
    }


def _construction(name: str, params: dict[str, Any]) -> Any:
    """The Approximation of a construction named like its command, with any parameters
    (keywords of the construction function; validated by it)."""
    builders = _builders()
    if name not in builders:
        raise InvalidParameterError(
            f"reference construction must be one of {', '.join(builders)}, got {name!r}")
    if not isinstance(params, dict):
        raise ParameterTypeError(f"reference parameters must be a dict, got "
                                 f"{type(params).__name__}")
    fn = builders[name]
    try:
        inspect.signature(fn).bind(**params)
    except TypeError as exc:
        raise InvalidParameterError(f"reference parameters of {name!r}: {exc}") from None
    return fn(**params)


@dataclass(frozen=True)
class ExactReference:
    """The exact function under test: exact evaluation at an exact point, a degree (only
    to place Chebyshev points) and a domain, if known."""

    evaluate: Callable[[fmpq], fmpq]
    degree: int
    domain: tuple[fmpq, fmpq] | None
    what: str


#: Degree assumed for placing Chebyshev points when a duck-typed reference has none.
DEFAULT_DEGREE = 16


def _exact_result(v: Any, what: str) -> fmpq:
    if isinstance(v, (float, np.floating)) or not isinstance(
            v, (fmpq, fmpz, int, Fraction, np.integer)) or isinstance(v, bool):
        raise ParameterTypeError(
            f"reference: {what} must return exact numbers (fmpq, int, Fraction), got "
            f"{type(v).__name__}; a float reference cannot decide an error in ulps")
    return to_fmpq(int(v) if isinstance(v, np.integer) else v, "reference value")


def as_reference(obj: Any) -> ExactReference:
    """A univariate exact reference from a dpverify polynomial, a numpy polynomial (read
    exactly), a list of monomial coefficients, or a duck-typed object (module docstring)."""
    # lazy: `import dpverify.testing` loads no polynomial code (266 modules instead of 294)
    from ..exact import ExactPoly, TensorPoly, as_poly
    from ..exact.numpy_interop import is_numpy_polynomial

    if is_numpy_polynomial(obj) or isinstance(obj, (list, np.ndarray)):
        obj = as_poly(obj)
    if isinstance(obj, TensorPoly):
        raise InvalidParameterError("reference must be univariate, got a tensor-product "
                                    "polynomial")
    dom = getattr(obj, "domain", None)
    try:
        dom = None if dom is None else (to_fmpq(dom[0], "domain"), to_fmpq(dom[1], "domain"))
    except (TypeError, IndexError, KeyError, InvalidParameterError, ParameterTypeError):
        dom = None
    deg = getattr(obj, "degree", None)
    deg = deg if isinstance(deg, int) and not isinstance(deg, bool) and deg >= 0 else None
    mono = None
    if isinstance(obj, ExactPoly):
        mono = obj.to_monomial().as_fmpq_poly()
    elif callable(getattr(obj, "as_fmpq_poly", None)):
        mono = obj.as_fmpq_poly()
    elif callable(getattr(obj, "to_monomial", None)):
        m = obj.to_monomial()
        if callable(getattr(m, "as_fmpq_poly", None)):
            mono = m.as_fmpq_poly()
    if mono is not None:
        if not isinstance(mono, fmpq_poly):
            raise ParameterTypeError(f"reference: as_fmpq_poly() must return an fmpq_poly, "
                                     f"got {type(mono).__name__}")
        return ExactReference(mono, mono.degree() if deg is None else deg, dom,
                          type(obj).__name__)
    ev = getattr(obj, "evaluate", None)
    name = f"{type(obj).__name__}.evaluate"
    if not callable(ev):
        ev, name = obj, type(obj).__name__
    if not callable(ev):
        raise ParameterTypeError(
            "reference must be a univariate dpverify polynomial, a numpy polynomial, an "
            "Approximation, a (construction name, params) pair, or an object with exact "
            f"evaluation (evaluate(x) or as_fmpq_poly()), got {type(obj).__name__}")
    def evaluate(q: fmpq) -> fmpq:
        return _exact_result(ev(q), name)

    return ExactReference(evaluate, DEFAULT_DEGREE if deg is None else deg, dom,
                          type(obj).__name__)


def resolve_reference(reference: Any, domain: Any) -> tuple[ExactReference, tuple[str, fmpq, fmpq]]:
    """(exact univariate reference, ("integers" | "interval", lo, hi))."""
    from ..approximation import Approximation  # lazy, as in as_reference

    if isinstance(reference, tuple) and len(reference) == 2 and isinstance(reference[0], str):
        reference = _construction(*reference)
    dom: Any = None
    if isinstance(reference, Approximation):
        d = reference.domain
        if d.get("kind") == "integers":
            dom = ("integers", fmpq(int(d["lo"])), fmpq(int(d["hi"])))
        elif d.get("kind") == "box" and len(d["intervals"]) == 1:
            lo, hi = d["intervals"][0]
            dom = ("interval", to_fmpq(lo, "domain"), to_fmpq(hi, "domain"))
        else:
            raise InvalidParameterError(
                f"reference: the Approximation's domain must be integers or one interval "
                f"(univariate), got kind {d.get('kind')!r} with {len(d.get('intervals', []))} "
                "intervals")
        reference = reference.poly
    ref = as_reference(reference)
    if domain is not None:
        if isinstance(domain, str) or len(domain) != 2:
            raise InvalidParameterError(f"domain must be a pair (lo, hi), got {domain!r}")
        lo, hi = to_fmpq(domain[0], "domain[0]"), to_fmpq(domain[1], "domain[1]")
        dom = ("interval", lo, hi)
    elif dom is None:
        if ref.domain is None:
            raise InvalidParameterError("domain is required for a reference without one")
        dom = ("interval", *ref.domain)
    if not dom[1] <= dom[2]:
        raise InvalidParameterError(f"domain must have lo <= hi, got [{dom[1]}, {dom[2]}]")
    return ref, dom

