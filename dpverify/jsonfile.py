"""Reading a JSON input file (a summary, a polynomial list, a certificate to plot, a list
of decision lists): every way a file can fail to be JSON ends in one error naming it.

``json.load`` alone raises ``OSError``/``UnicodeDecodeError`` on an unreadable file,
``JSONDecodeError`` on bad syntax, ``RecursionError`` on deep nesting (``[[[[...]]]]``,
a few thousand levels), ``ValueError`` on an integer past Python's 4300-digit conversion
limit, and accepts ``NaN``/``Infinity``, which are not JSON (RFC 8259) and no dpverify
file contains.  :func:`read_json` turns each of them into the caller's error type.
"""

from __future__ import annotations

import json
import os
from typing import Any

from .errors import DPVerifyError, InvalidParameterError

__all__ = ["read_json"]


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


def read_json(path: str | os.PathLike[str], what: str,
              error: type[DPVerifyError] = InvalidParameterError, *,
              allow_nan: bool = False) -> Any:
    """The JSON value in the file ``path`` (UTF-8).

    Raises
    ------
    error (default InvalidParameterError)
        The file cannot be read, is not UTF-8, or is not JSON (bad syntax, nesting deeper
        than the parser's recursion limit, an integer beyond 4300 digits, ``NaN`` or
        ``Infinity`` unless ``allow_nan``: Python's own ``json.dumps`` writes them); the
        one-line message starts with ``what`` and names the path.
    """
    try:
        with open(path, encoding="utf-8") as fh:
            text = fh.read()
    except OSError as exc:
        raise error(f"{what}: cannot read {os.fspath(path)!r}: {exc.strerror}") from None
    except UnicodeDecodeError:
        raise error(f"{what}: {os.fspath(path)!r} is not UTF-8 text") from None
    try:
        return json.loads(text, parse_constant=None if allow_nan else _no_constant)
    except json.JSONDecodeError as exc:
        why = f"{exc.msg} (line {exc.lineno}, column {exc.colno})"
    except RecursionError:
        why = "nested too deeply"
    except ValueError as exc:  # NaN/Infinity, or an integer past the conversion limit
        why = str(exc).split(";")[0]
    raise error(f"{what}: {os.fspath(path)!r} is not valid JSON: {why}") from None
