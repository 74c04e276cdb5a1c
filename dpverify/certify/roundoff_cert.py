"""The result of :func:`dpverify.certify.roundoff.program_bound` and its certificate (kind
``roundoff``, docs/certificates.md).

The statement names the program (FPCore text), the format, the rounding model (round to
nearest even; inputs floats of the format or rounded reals; each called function's
accuracy), the input box, the error kind and the bound; the evidence is the tree of box
bisections whose leaves the checker analyses again (:mod:`dpverify.verify.roundoff`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from flint import fmpq

from .._version import __version__
from ..expr.program import Program
from ..numbers import fmpq_str, fmpq_to_decimal
from .certificate import CERT_FORMAT, SCHEMA_VERSION, Certificate
from .fpformat import Format
from .roundoff_box import Box, BoxResult

__all__ = ["RoundoffBound", "ERRORS", "INPUTS", "roundoff_certificate", "model_text",
           "box_json"]

#: the error kinds: API name -> statement name
ERRORS = {"abs": "absolute", "rel": "relative", "ulps": "ulps"}
#: the input models: round_inputs -> statement name
INPUTS = {False: "floats", True: "rounded-reals"}


def model_text(model: fmpq | None) -> str:
    """A function's accuracy in a statement: ``"correctly-rounded"`` or the ulps."""
    return "correctly-rounded" if model is None else fmpq_str(model)


def box_json(box: Box) -> list[list[str]]:
    return [[fmpq_str(a), fmpq_str(b)] for a, b in box]


@dataclass
class RoundoffBound:
    """A certified round-off bound of a program (:mod:`dpverify.certify.roundoff`).

    ``bound`` is the statement's bound in the unit of ``error`` (``"abs"``: absolute,
    ``"rel"``: relative, ``"ulps"``: ulps of the exact value), rounded up to 7 significant
    digits; ``absolute`` the largest absolute bound of the boxes; ``leaves`` the analysed
    boxes (each with its bound and parts), ``tree`` the bisections (the evidence).

    Examples
    --------
    >>> from dpverify.certify.roundoff import program_bound
    >>> r = program_bound("x * x - 1", {"x": (1, 2)}, format="binary32")
    >>> r.to_json()["error"], r.certificate().check().status
    ('absolute', 'holds')
    """

    program: Program
    format: Format
    box: Box
    round_inputs: bool
    functions: dict[str, fmpq | None]
    error: str
    bound: fmpq
    absolute: fmpq
    leaves: list[BoxResult] = field(default_factory=list)
    tree: str = "."
    stats: dict[str, Any] = field(default_factory=dict)
    root: Box = ()

    def to_json(self) -> dict[str, Any]:
        return {"program": self.program.fpcore(), "format": self.format.name,
                "inputs": INPUTS[self.round_inputs], "error": ERRORS[self.error],
                "bound": fmpq_str(self.bound),
                "bound_decimal": fmpq_to_decimal(self.bound, 7, "up"),
                "absolute_decimal": fmpq_to_decimal(self.absolute, 7, "up"),
                "boxes": len(self.leaves), "stop": self.stats.get("stop")}

    def certificate(self) -> Certificate:
        """The ``roundoff`` certificate (check it with ``dpverify verify``)."""
        return roundoff_certificate(self)


def roundoff_certificate(rb: RoundoffBound) -> Certificate:
    statement: dict[str, Any] = {
        "program": rb.program.fpcore(),
        "format": rb.format.name,
        "rounding": "nearest-even",
        "inputs": INPUTS[rb.round_inputs],
        "functions": {k: model_text(v) for k, v in sorted(rb.functions.items())},
        "box": box_json(rb.box),
        "error": ERRORS[rb.error],
        "bound": fmpq_str(rb.bound),
    }
    info: dict[str, Any] = {
        "boxes": len(rb.leaves),
        "seconds": round(float(rb.stats.get("seconds", 0.0)), 4),
        "search_stopped": rb.stats.get("stop"),
        "absolute_error_decimal": fmpq_to_decimal(rb.absolute, 7, "up"),
        "first_order_decimal": fmpq_to_decimal(rb.stats.get("first_order", fmpq(0)), 7,
                                               "up"),
        "second_order_decimal": fmpq_to_decimal(rb.stats.get("second_order", fmpq(0)), 7,
                                                "up"),
        "method": "first-order Taylor expansion in the rounding errors with a rigorous "
                  "remainder (FPTaylor, Solovyev et al. TOPLAS 2018), coefficients bounded "
                  "by mean-value forms in ball arithmetic on each box",
        "dpverify_version": __version__,
    }
    return Certificate({
        "schema_version": SCHEMA_VERSION, "format": CERT_FORMAT, "kind": "roundoff",
        "statement": statement,
        "evidence": {"root": box_json(rb.root or rb.box), "tree": rb.tree}, "info": info})
