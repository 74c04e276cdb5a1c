"""Reading polynomials back from their JSON form (``to_json``)."""

from __future__ import annotations

from typing import Any

from ..errors import InvalidParameterError, ParameterTypeError
from ..numbers import parse_fmpq_str
from ._core import check_domain
from .base import BASES, ExactPoly
from .tensor import TensorPoly

__all__ = ["poly_from_json"]


def _strings(obj: Any, name: str) -> list[Any]:
    if not isinstance(obj, list) or not obj:
        raise InvalidParameterError(f"{name} must be a non-empty list of exact number strings")
    try:
        return [parse_fmpq_str(c, f"{name}[{i}]") for i, c in enumerate(obj)]
    except ParameterTypeError as exc:
        raise InvalidParameterError(str(exc)) from exc


def _domain(obj: Any, name: str) -> Any:
    if obj is None:
        return None
    if not isinstance(obj, list) or len(obj) != 2:
        raise InvalidParameterError(f"{name} must be null or a list [a, b], got {obj!r}")
    try:
        return check_domain([parse_fmpq_str(e, f"{name}[{i}]") for i, e in enumerate(obj)], name)
    except ParameterTypeError as exc:
        raise InvalidParameterError(str(exc)) from exc


def poly_from_json(obj: Any) -> ExactPoly | TensorPoly:
    """Inverse of ``to_json``: an :class:`ExactPoly` subclass, or a :class:`TensorPoly`
    when ``obj`` has a ``"shape"`` key.  Unknown extra keys are ignored.

    Raises
    ------
    InvalidParameterError
        On malformed input (missing keys, unknown basis, non-string coefficients, bad
        shape); :class:`~dpverify.errors.DomainError` (a subclass) for ``a >= b``.
    """
    if not isinstance(obj, dict):
        raise InvalidParameterError(f"polynomial JSON must be an object, got {type(obj).__name__}")
    for key in ("basis", "coefficients"):
        if key not in obj:
            raise InvalidParameterError(f"polynomial JSON lacks the key {key!r}")
    basis = obj["basis"]
    if not isinstance(basis, str) or basis not in BASES:
        raise InvalidParameterError(f"basis must be one of {sorted(BASES)}, got {basis!r}")
    coeffs = _strings(obj["coefficients"], "coefficients")
    if "shape" in obj:
        shape = obj["shape"]
        if not isinstance(shape, list) or not shape:
            raise InvalidParameterError(f"shape must be a non-empty list of ints, got {shape!r}")
        doms = obj.get("domains")
        if doms is not None:
            if not isinstance(doms, list):
                raise InvalidParameterError(f"domains must be a list, got {doms!r}")
            doms = [_domain(e, f"domains[{j}]") for j, e in enumerate(doms)]
        try:
            return TensorPoly.from_flat(coeffs, shape, basis, doms)
        except ParameterTypeError as exc:
            raise InvalidParameterError(str(exc)) from exc
    dom = _domain(obj.get("domain"), "domain")
    cls = BASES[basis]
    if cls._default_domain() is None:
        if dom is not None:
            raise InvalidParameterError(f"the {basis} basis has no domain, got {obj['domain']!r}")
        return cls._make(coeffs, None)
    return cls._make(coeffs, dom if dom is not None else cls._default_domain())
