"""The value a construction returns: an :class:`Approximation`.

A construction (``dpverify.constructions.*``) *proposes* a polynomial and says
what it is meant to approximate and where; it never certifies itself.
``dpverify.certify.certify(approx)`` decides the claims and returns a
:class:`~dpverify.certify.certificate.Certificate`.

Targets and domains are plain JSON-able dicts so that a certificate can carry
them and the independent checker (``dpverify.verify``) can re-evaluate
them from scratch.

Target kinds (``target["kind"]``):

* ``"threshold"``   ``{"r": r}``: f(x) = 1 if x >= r else 0 (OR is r = 1).
* ``"indicator"``   ``{"l": l}``: f(x) = 1 if x == l else 0 (EXACT_l).
* ``"values"``      ``{"values": ["p/q", ...]}``: f at each point of the domain, in order.
* ``"expr"``        ``{"expr": "exp(x)", "variables": ["x"]}``: a whitelisted
  expression (``dpverify.expr``).

Domain kinds (``domain["kind"]``):

* ``"integers"`` ``{"lo": a, "hi": b}``: the integers a..b.
* ``"points"``   ``{"points": ["p/q", ...]}``: a finite list of rationals.
* ``"box"``      ``{"intervals": [["a", "b"], ...]}``: a product of closed
  intervals (one per variable; d = 1 is an interval).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

__all__ = ["Approximation"]


@dataclass(frozen=True)
class Approximation:
    """Coefficients + basis + parameters + the claim they are meant to meet.

    Attributes
    ----------
    construction:
        Name, e.g. ``"or/chebyshev"``, ``"rofk/sherstov"``, ``"supnorm"``.
    params:
        JSON-able parameters (exact numbers as ``"p/q"`` strings).
    poly:
        An exact polynomial (``dpverify.exact`` class) — univariate
        (:class:`~dpverify.exact.ExactPoly`) or tensor-product
        (:class:`~dpverify.exact.TensorPoly`).
    target, domain:
        What ``poly`` approximates and where the error is measured (see the
        module docstring for the kinds).
    claims:
        What the construction promises, e.g. ``{"max_error": "1/1000"}``; the
        certifier proves or refutes each one.
    norm_basis:
        The basis in which ``coefficient_norm`` is reported (the basis the
        mechanism perturbs); defaults to ``poly``'s own basis.
    extra:
        Construction-specific inspectable data (intermediate polynomials, ...);
        not part of the certified claims.
    """

    construction: str
    params: dict[str, Any]
    # ExactPoly | TensorPoly; Any because this leaf module sits below dpverify.exact in the
    # layers (docs/architecture.md) and may not import it, even for type checking
    poly: Any
    target: dict[str, Any]
    domain: dict[str, Any]
    claims: dict[str, Any] = field(default_factory=dict)
    norm_basis: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)
