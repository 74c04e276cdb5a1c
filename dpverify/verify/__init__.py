"""dpverify.verify: the independent checker of dpverify certificates (docs/certificates.md).

It imports only the standard library, python-flint and jsonschema (and its own modules):
its own number reader (``numbers``), expression parser and evaluators (``expr``),
polynomial conversions (``poly``), many-point enclosures of one polynomial
(``multipoint``), Taylor models (``taylor``) and one module per kind
(``finite``, ``box``, ``jackson``, ``lebesgue``, ``minimax``).  A report says ``holds`` only
when every check of the statement was decided exactly or by rigorous ball arithmetic.
"""

from .check import verify_bytes, verify_document, verify_file
from .cli import main, render_json, render_text
from .report import ArgumentTypeError, ArgumentValueError, Malformed, Report

__all__ = ["Malformed", "ArgumentTypeError", "ArgumentValueError", "Report", "verify_document",
           "verify_bytes", "verify_file", "main", "render_text", "render_json"]
