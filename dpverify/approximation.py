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
        What ``poly`` approximates and where the error is measured.  Targets:
        ``{"kind": "threshold", "r": r}`` (1 if x >= r else 0; OR is r = 1),
        ``{"kind": "indicator", "l": l}`` (1 if x == l), ``{"kind": "values", "values":
        [...]}`` (f at each point of the domain), ``{"kind": "expr", "expr": "exp(x)",
        "variables": ["x"]}``.  Domains: ``{"kind": "integers", "lo": a, "hi": b}``,
        ``{"kind": "points", "points": [...]}``, ``{"kind": "box", "intervals": [[a, b],
        ...]}``.
    claims:
        What the construction promises, e.g. ``{"max_error": "1/1000"}``; the
        certifier proves or refutes each one.
    norm_basis:
        The basis in which ``coefficient_norm`` is reported (the basis the
        mechanism perturbs); defaults to ``poly``'s own basis.
    extra:
        Construction-specific inspectable data (intermediate polynomials, ...);
        not part of the certified claims.

    Examples
    --------
    Your own polynomial for OR on 2 bits, in the count ``x``: ``p(x) = 2x/3`` errs by
    ``0, 1/3, 1/3`` at ``x = 0, 1, 2``, so its maximum error is exactly ``1/3``:

    >>> from dpverify.exact import MonomialPoly
    >>> from dpverify.certify import certify
    >>> mine = Approximation(construction="my-or", params={"k": 2},
    ...                      poly=MonomialPoly([0, "2/3"]),
    ...                      target={"kind": "threshold", "r": 1},
    ...                      domain={"kind": "integers", "lo": 0, "hi": 2},
    ...                      claims={"max_error": "1/2"})
    >>> cert = certify(mine)
    >>> cert.error["lower"], cert.error["upper"], cert.complete
    ('1/3', '1/3', True)

    A claim that does not hold is refuted, never certified (the statement keeps the true
    error):

    >>> from dataclasses import replace
    >>> cert = certify(replace(mine, claims={"max_error": "1/4"}))
    >>> cert.complete, cert.info["unproven_claims"]["max_error"]["status"]
    (False, 'refuted')
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
