"""The results of :mod:`dpverify.certify.evalbound` and their certificates (kinds
``evalbound`` and ``float-error``, docs/certificates.md).

``evalbound``: for every ``x`` of the format (binary64 or binary32) in ``[A, B]``, the
evaluation of the polynomial with the listed coefficients (numbers of the format) by the
named scheme (Horner or Clenshaw, round to nearest) is within ``bound`` of its exact value.
Evidence: the pieces of :func:`dpverify.certify.evalbound.evalbound` with, per operation,
the exponents ``E`` (``|v| <= 2^E``) and optionally ``L`` (``|v| >= 2^L``) the checker
proves and builds the bound from.

``float-error`` (two parts): ``|f(x) - fl(p(x))| <= bound`` for binary64 ``x`` in
``[A, B]``, with two complete certificates embedded as ``evidence.parts``:
``approximation`` (a ``supnorm-box`` certificate of ``sup |f - p|``) and ``evaluation``
(an ``evalbound`` certificate); each can be checked alone
(``dpverify verify FILE --part NAME``).

Layering: this module holds the result types and builds their documents; the analysis
(:mod:`dpverify.certify.evalbound`) imports it, never the other way round.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from flint import fmpq

from .._version import __version__
from ..numbers import fmpq_str, fmpq_to_decimal
from .certificate import CERT_FORMAT, SCHEMA_VERSION, Certificate
from .fpformat import BINARY64, Format
from .rounding_pieces import Piece

__all__ = ["EvalBound", "FloatErrorBound", "ASSUMPTIONS", "assumptions", "arithmetic",
           "SCHEMES", "evalbound_certificate", "float_error_certificate"]

#: scheme -> basis of the polynomial it evaluates
SCHEMES = {"horner": "monomial", "horner-fma": "monomial", "clenshaw": "chebyshev"}


def assumptions(fmt: Format) -> str:
    """What the evaluation statements assume, for the format ``fmt``."""
    return (f"x is a {fmt.name} number in the interval; IEEE 754 {fmt.name}, round to "
            "nearest even, no extended precision, FMA only where the scheme says so; the "
            "operations of dpverify.certify.evalbound; gradual underflow covered; overflow "
            "excluded (checked)")


#: the binary64 assumptions (the default format)
ASSUMPTIONS = assumptions(BINARY64)


def arithmetic(fmt: Format, fma: bool) -> str:
    """The statement's ``arithmetic`` text: ``"binary64, round to nearest even, no FMA"``
    or ``"..., fused multiply-add"``."""
    return f"{fmt.name}, round to nearest even, " + ("fused multiply-add" if fma else "no FMA")


@dataclass
class EvalBound:
    """A certified bound on the evaluation error (:mod:`dpverify.certify.evalbound`).

    Attributes
    ----------
    bound : fmpq
        ``|fl(p^(x)) - p(x)| <= bound`` for ``x`` of the format in the interval, ``p`` the
        polynomial with the given exact coefficients: ``evaluation + coefficients``.
    evaluation : fmpq
        ``|fl(p^(x)) - p^(x)| <= evaluation`` (the certificate's statement).
    rounding, mapping : fmpq
        The largest rounding part and the largest mapping part (Clenshaw off ``(-1, 1)``:
        computing ``t``) over the pieces (each piece's sum is ``<= evaluation``).
    coefficients : fmpq
        ``sup |p^ - p|``: rounding the coefficients to the format (0 when they are
        numbers of the format already).
    higham : fmpq or None
        Horner only: ``gamma_{2n} sum |c^_i| X^i`` (Higham 2002 eq. (5.3)), for comparison.
    pieces : list of Piece
        The pieces of the analysis with their claims (the certificate's evidence).
    format : Format
        The floating-point format (binary64 unless asked otherwise).
    """

    algorithm: str
    basis: str
    interval: tuple[fmpq, fmpq]
    degree: int
    bound: fmpq
    evaluation: fmpq
    rounding: fmpq
    coefficients: fmpq
    mapping: fmpq
    higham: fmpq | None
    float_coefficients: list[fmpq]
    domain: tuple[fmpq, fmpq] | None
    max_intermediate: fmpq
    pieces: list[Piece] = field(default_factory=list)
    stats: dict[str, Any] = field(default_factory=dict)
    format: Format = BINARY64

    def to_json(self) -> dict[str, Any]:
        def dec(q: fmpq) -> str:
            return fmpq_to_decimal(q, 6, "up")

        return {
            "algorithm": self.algorithm, "basis": self.basis,
            "interval": [str(self.interval[0]), str(self.interval[1])],
            "degree": self.degree, "bound": str(self.bound), "bound_decimal": dec(self.bound),
            "evaluation": str(self.evaluation), "evaluation_decimal": dec(self.evaluation),
            "rounding": dec(self.rounding), "coefficients": dec(self.coefficients),
            "mapping": dec(self.mapping),
            "higham": None if self.higham is None else dec(self.higham),
            "max_intermediate": dec(self.max_intermediate), "pieces": len(self.pieces),
            "format": self.format.name, "assumptions": assumptions(self.format),
        }

    def certificate(self) -> Certificate:
        """The ``evalbound`` certificate of ``|fl(p^(x)) - p^(x)| <= evaluation``
        (a :class:`~dpverify.certify.certificate.Certificate`; check it with
        ``dpverify verify``)."""
        return evalbound_certificate(self)


@dataclass
class FloatErrorBound:
    """``|f(x) - fl(p^(x))| <= sup |f - p^| + evaluation`` for ``x`` of the format in the
    interval (``p^``: the coefficients the float code stores).

    ``supnorm_upper`` is the interval certifier's enclosure of ``sup |f - p^|`` (its
    ``supnorm-box`` certificate is ``certificate``), ``evaluation`` the :class:`EvalBound`;
    ``bound`` their exact sum.  When ``|f| >= f_lower > 0`` on the interval (proven from
    ``min |p^| - sup |f - p^|``), ``ulps`` is an ``N`` with ``bound <= N ulp(f_lower)``,
    so ``|f(x) - fl(p^(x))| <= N ulp(f(x))``: the float code is within ``N`` ulp of ``f``
    (None when ``f`` may vanish).  :meth:`float_certificate` is the ``float-error``
    certificate of the whole statement (both parts embedded, each checkable alone)."""

    bound: fmpq
    supnorm_upper: fmpq
    evaluation: EvalBound
    certificate: Any
    target: str = ""
    ulps: fmpq | None = None
    f_lower: fmpq | None = None

    def to_json(self) -> dict[str, Any]:
        return {"bound": str(self.bound),
                "bound_decimal": fmpq_to_decimal(self.bound, 6, "up"),
                "supnorm_upper": str(self.supnorm_upper),
                "ulps": None if self.ulps is None else str(self.ulps),
                "f_lower": None if self.f_lower is None else str(self.f_lower),
                "evaluation": self.evaluation.to_json()}

    def float_certificate(self) -> Certificate:
        """The ``float-error`` certificate (docs/certificates.md)."""
        return float_error_certificate(self)


def _scheme_block(ev: EvalBound) -> dict[str, Any]:
    dom = None if ev.domain is None else [fmpq_str(ev.domain[0]), fmpq_str(ev.domain[1])]
    out: dict[str, Any] = {
        "scheme": ev.algorithm,
        "arithmetic": arithmetic(ev.format, ev.algorithm == "horner-fma"),
        "polynomial": {"basis": ev.basis, "domain": dom,
                       "coefficients": [fmpq_str(c) for c in ev.float_coefficients]},
        "interval": [fmpq_str(ev.interval[0]), fmpq_str(ev.interval[1])],
    }
    if ev.format != BINARY64:  # binary64 statements keep their original form
        out["format"] = ev.format.name
    return out


def _piece(pc: Any) -> list[Any]:
    out: list[Any] = [fmpq_str(pc.lo), fmpq_str(pc.hi), list(pc.claims)]
    if pc.dmax is not None:
        out.append(fmpq_str(pc.dmax))
    return out


def evalbound_certificate(ev: EvalBound) -> Certificate:
    """The ``evalbound`` certificate of ``|fl(p^(x)) - p^(x)| <= ev.evaluation``."""
    statement = _scheme_block(ev)
    statement["bound"] = fmpq_str(ev.evaluation)
    statement["bound_decimal"] = fmpq_to_decimal(ev.evaluation, 6, "up")
    info: dict[str, Any] = {
        "assumptions": assumptions(ev.format),
        "rounding_decimal": fmpq_to_decimal(ev.rounding, 6, "up"),
        "mapping_decimal": fmpq_to_decimal(ev.mapping, 6, "up"),
        "pieces": len(ev.pieces),
        "seconds": round(float(ev.stats.get("seconds", 0.0)), 4),
        "dpverify_version": __version__,
    }
    if ev.coefficients:
        info["given_coefficients_rounded"] = (
            f"the given coefficients are not all {ev.format.name} numbers; the statement is "
            "about their roundings (what float code stores); sup |p^ - p| <= "
            + fmpq_to_decimal(ev.coefficients, 6, "up"))
    if ev.higham is not None:
        info["higham_decimal"] = fmpq_to_decimal(ev.higham, 6, "up")
    return Certificate({
        "schema_version": SCHEMA_VERSION, "format": CERT_FORMAT, "kind": "evalbound",
        "statement": statement, "evidence": {"pieces": [_piece(pc) for pc in ev.pieces]},
        "info": info})


def float_error_certificate(fe: FloatErrorBound) -> Certificate:
    """The two-part ``float-error`` certificate of ``|f(x) - fl(p^(x))| <= fe.bound``."""
    ev = fe.evaluation
    statement = _scheme_block(ev)
    statement["target"] = {"kind": "expr", "expr": fe.target, "variables": ["x"]}
    statement["bound"] = fmpq_str(fe.bound)
    statement["bound_decimal"] = fmpq_to_decimal(fe.bound, 6, "up")
    statement["approximation_error"] = fmpq_str(fe.supnorm_upper)
    statement["evaluation_error"] = fmpq_str(ev.evaluation)
    if fe.ulps is not None and fe.f_lower is not None:
        statement["ulps"] = {"ulps": fmpq_str(fe.ulps), "f_lower": fmpq_str(fe.f_lower)}
    return Certificate({
        "schema_version": SCHEMA_VERSION, "format": CERT_FORMAT, "kind": "float-error",
        "statement": statement,
        "evidence": {"parts": {"approximation": fe.certificate.data,
                               "evaluation": evalbound_certificate(ev).data}},
        "info": {"assumptions": assumptions(ev.format), "dpverify_version": __version__}})
