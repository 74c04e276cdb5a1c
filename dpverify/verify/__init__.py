"""dpverify.verify: the independent checker of dpverify certificates (docs/certificates.md).

It imports only the standard library, python-flint and jsonschema (and its own modules):
its own number reader (``numbers``), expression parser and evaluators (``expr``),
polynomial conversions (``poly``), many-point enclosures of one polynomial
(``multipoint``), Taylor models (``taylor``) and one module per kind
(``finite``, ``box``, ``jackson``, ``lebesgue``, ``minimax``).  A report says ``holds`` only
when every check of the statement was decided exactly or by rigorous ball arithmetic.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .check import verify_bytes, verify_document, verify_file
    from .cli import main, render_json, render_text
    from .report import ArgumentTypeError, ArgumentValueError, Malformed, Report

# The names load on first use (PEP 562): a certifier that only validates what it issues
# against the schema (``verify.load``) does not pay for importing every kind's checker.
_HOME = {"verify_bytes": "check", "verify_document": "check", "verify_file": "check",
         "main": "cli", "render_json": "cli", "render_text": "cli",
         "ArgumentTypeError": "report", "ArgumentValueError": "report", "Malformed": "report",
         "Report": "report"}


def __getattr__(name: str) -> Any:
    home = _HOME.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(import_module(f".{home}", __name__), name)
    globals()[name] = value
    return value

__all__ = ["Malformed", "ArgumentTypeError", "ArgumentValueError", "Report", "verify_document",
           "verify_bytes", "verify_file", "main", "render_text", "render_json"]
