"""The :class:`Certificate`: certified claims about one polynomial, as data.

A certificate is a JSON document that a second, small checker
(:mod:`dpverify.certify.verify`) re-verifies from scratch.  Exact numbers are
strings ``"p/q"``; ball enclosures are decimal strings rounded *outward*.

JSON fields (DESIGN.md): ``construction``, ``params``, ``basis``, ``domain``
(the polynomial's domain), ``coefficients``, ``degree``, ``coefficient_norm``
(exact, L1 in ``norm_basis``), ``coefficient_norm_log2``, ``error``
(``domain``, ``target``, ``lower``, ``upper``, ``exact``, ``method`` and
method-specific data such as ``witness`` and ``pieces``), ``claims``,
``claims_status``, ``verified``, ``dpverify_version``; optional ``shape`` for
tensor polynomials, and construction-specific top-level fields from
``extra`` (e.g. ``optimality``, ``multivariate``).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from .._version import __version__
from ..errors import InvalidParameterError, MalformedCertificate

__all__ = ["Certificate", "REQUIRED_FIELDS", "CLAIM_KEYS"]

REQUIRED_FIELDS = (
    "construction",
    "params",
    "basis",
    "coefficients",
    "degree",
    "coefficient_norm",
    "coefficient_norm_log2",
    "error",
    "claims",
    "verified",
    "dpverify_version",
)

#: Claim keys the certifiers and the checker understand.
#: ``max_error``: sup |f - p| over the error domain is <= the value.
CLAIM_KEYS = ("max_error",)


@dataclass
class Certificate:
    """Certified facts about one polynomial (see the module docstring).

    ``data`` is the JSON object itself (a plain dict of JSON types); the
    attributes below are convenience views.  A ``Certificate`` is produced by
    :func:`dpverify.certify.certify` and re-checked by
    :func:`dpverify.certify.verify.verify_certificate`.
    """

    data: dict[str, Any] = field(default_factory=dict)

    # -- convenience views -------------------------------------------------
    @property
    def verified(self) -> bool:
        return bool(self.data.get("verified"))

    @property
    def error(self) -> dict[str, Any]:
        return self.data["error"]

    @property
    def degree(self) -> int:
        return int(self.data["degree"])

    def __getitem__(self, key: str) -> Any:
        return self.data[key]

    def get(self, key: str, default: Any = None) -> Any:
        return self.data.get(key, default)

    # -- JSON ---------------------------------------------------------------
    def to_json(self, indent: int | None = 2) -> str:
        return json.dumps(self.data, indent=indent, sort_keys=False)

    def save(self, path: str) -> None:
        """Write the JSON to ``path``; an unwritable path raises ``InvalidParameterError``."""
        try:
            with open(path, "w", encoding="utf-8") as fh:
                fh.write(self.to_json())
                fh.write("\n")
        except OSError as exc:
            raise InvalidParameterError(
                f"cannot write the certificate to {path!r}: {exc.strerror}"
            ) from None

    @classmethod
    def from_json(cls, text: str) -> Certificate:
        try:
            obj = json.loads(text)
        except json.JSONDecodeError as exc:
            raise MalformedCertificate(f"certificate is not valid JSON: {exc}") from None
        if not isinstance(obj, dict):
            raise MalformedCertificate("certificate must be a JSON object")
        missing = [k for k in REQUIRED_FIELDS if k not in obj]
        if missing:
            raise MalformedCertificate(f"certificate lacks field(s): {', '.join(missing)}")
        return cls(obj)

    @classmethod
    def load(cls, path: str) -> Certificate:
        try:
            with open(path, encoding="utf-8") as fh:
                text = fh.read()
        except OSError as exc:
            raise MalformedCertificate(
                f"cannot read certificate {path!r}: {exc.strerror}"
            ) from None
        return cls.from_json(text)

    @staticmethod
    def version() -> str:
        return __version__
