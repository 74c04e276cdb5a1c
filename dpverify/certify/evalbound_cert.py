"""Certificates of kinds ``evalbound`` and ``float-error`` (docs/certificates.md).

``evalbound``: for every binary64 ``x`` in ``[A, B]``, the binary64 evaluation of the
polynomial with the listed binary64 coefficients by the named scheme (Horner or
Clenshaw, round to nearest, no FMA) is within ``bound`` of its exact value.  Evidence:
the pieces of :func:`dpverify.certify.evalbound.evalbound` with, per operation, the
exponents ``E`` (``|v| <= 2^E``) and optionally ``L`` (``|v| >= 2^L``) the checker proves
and builds the bound from.

``float-error``: ``|f(x) - fl(p(x))| <= bound`` for binary64 ``x`` in ``[A, B]``, with two
complete certificates embedded as ``evidence.parts``: ``approximation`` (a
``supnorm-box`` certificate of ``sup |f - p|``) and ``evaluation`` (an ``evalbound``
certificate); each can be checked alone (``dpverify verify FILE --part NAME``).
"""

from __future__ import annotations

from typing import Any

from .._version import __version__
from ..numbers import fmpq_str, fmpq_to_decimal
from .certificate import CERT_FORMAT, SCHEMA_VERSION, Certificate
from .evalbound import ASSUMPTIONS, EvalBound, FloatErrorBound

__all__ = ["ARITHMETIC", "ARITHMETIC_FMA", "SCHEMES", "evalbound_certificate",
           "float_error_certificate"]

#: the arithmetic of the statements; ``horner-fma`` states ARITHMETIC_FMA
ARITHMETIC = "binary64, round to nearest even, no FMA"
ARITHMETIC_FMA = "binary64, round to nearest even, fused multiply-add"
#: scheme -> basis of the polynomial it evaluates
SCHEMES = {"horner": "monomial", "horner-fma": "monomial", "clenshaw": "chebyshev"}


def _scheme_block(ev: EvalBound) -> dict[str, Any]:
    dom = None if ev.domain is None else [fmpq_str(ev.domain[0]), fmpq_str(ev.domain[1])]
    return {
        "scheme": ev.algorithm,
        "arithmetic": ARITHMETIC_FMA if ev.algorithm == "horner-fma" else ARITHMETIC,
        "polynomial": {"basis": ev.basis, "domain": dom,
                       "coefficients": [fmpq_str(c) for c in ev.float_coefficients]},
        "interval": [fmpq_str(ev.interval[0]), fmpq_str(ev.interval[1])],
    }


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
        "assumptions": ASSUMPTIONS,
        "rounding_decimal": fmpq_to_decimal(ev.rounding, 6, "up"),
        "mapping_decimal": fmpq_to_decimal(ev.mapping, 6, "up"),
        "pieces": len(ev.pieces),
        "seconds": round(float(ev.stats.get("seconds", 0.0)), 4),
        "dpverify_version": __version__,
    }
    if ev.coefficients:
        info["given_coefficients_rounded"] = (
            "the given coefficients are not all binary64; the statement is about their "
            "binary64 roundings (what float code stores); sup |p^ - p| <= "
            + fmpq_to_decimal(ev.coefficients, 6, "up"))
    if ev.higham is not None:
        info["higham_decimal"] = fmpq_to_decimal(ev.higham, 6, "up")
    return Certificate({
        "schema_version": SCHEMA_VERSION, "format": CERT_FORMAT, "kind": "evalbound",
        "statement": statement, "evidence": {"pieces": [_piece(pc) for pc in ev.pieces]},
        "info": info})


def float_error_certificate(fe: FloatErrorBound) -> Certificate:
    """The ``float-error`` certificate of ``|f(x) - fl(p^(x))| <= fe.bound``."""
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
        "info": {"assumptions": ASSUMPTIONS, "dpverify_version": __version__}})
