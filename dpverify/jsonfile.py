"""Reading a JSON input file (a summary, a polynomial list, a certificate to plot, a list
of decision lists): every way a file can fail to be JSON ends in one error naming it.

``json.load`` alone raises ``OSError``/``UnicodeDecodeError`` on an unreadable file,
``JSONDecodeError`` on bad syntax, ``RecursionError`` on deep nesting (``[[[[...]]]]``,
a few thousand levels), ``ValueError`` on an integer past Python's 4300-digit conversion
limit, and accepts ``NaN``/``Infinity``, which are not JSON (RFC 8259) and no dpverify
file contains.  :func:`read_json` turns each of them into the caller's error type.

Size and kind.  A file is read only if it is a regular file (or ``-``, standard input, when
the caller allows it) of at most :func:`input_cap` bytes: :data:`MAX_INPUT_BYTES` unless
:func:`max_input` raised or lowered it (the CLI's ``--max-input``).  ``/dev/zero``, a FIFO
or a terminal is refused before any byte is read (reading it would never end, or block),
and the read itself stops one byte past the cap, so no input can make the reader hold
more than the cap.
"""

from __future__ import annotations

import contextvars
import json
import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import IO, Any

from .atomic import NotRegularFile, file_kind, open_regular
from .errors import DPVerifyError, InvalidParameterError

__all__ = ["read_json", "read_capped", "input_cap", "max_input", "MAX_INPUT_BYTES"]

#: Default cap on the size of an input file (64 MiB: a certificate of 200000
#: coefficients of 300 digits; parsed, such a file takes about 1 GB of Python objects).
MAX_INPUT_BYTES = 64 * 2**20

_CAP: contextvars.ContextVar[int | None] = contextvars.ContextVar("dpverify_input_cap",
                                                                  default=None)


def input_cap() -> int:
    """The input size cap in force, in bytes."""
    cap = _CAP.get()
    return MAX_INPUT_BYTES if cap is None else cap


@contextmanager
def max_input(nbytes: int) -> Iterator[None]:
    """Read input files of up to ``nbytes`` bytes inside the block."""
    if isinstance(nbytes, bool) or not isinstance(nbytes, int) or nbytes < 1:
        raise InvalidParameterError(f"max_input must be a positive number of bytes, "
                                    f"got {nbytes!r}")
    token = _CAP.set(nbytes)
    try:
        yield
    finally:
        _CAP.reset(token)


def _too_big(what: str, shown: str, size: int | None, cap: int) -> str:
    got = f"{size} bytes; " if size is not None else ""
    return (f"{what}: {shown} is larger than the input cap of {cap} bytes ({got}raise it "
            "with --max-input, or max_input() in Python)")


def read_capped(path: str | os.PathLike[str], what: str,
                error: type[DPVerifyError] = InvalidParameterError, *,
                stdin: bool = False, cap: int | None = None) -> bytes:
    """The bytes of the regular file ``path`` (or of standard input for ``"-"`` when
    ``stdin``), at most ``cap`` (default :func:`input_cap`).

    Raises
    ------
    error
        The file cannot be opened, is not a regular file (a FIFO, a device: reading it
        could block or never end), or holds more than ``cap`` bytes; one line naming
        ``what`` and the path.
    """
    limit = input_cap() if cap is None else cap
    if stdin and os.fspath(path) == "-":
        stream: IO[bytes] = sys.stdin.buffer
        data = stream.read(limit + 1)
        if len(data) > limit:
            raise error(_too_big(what, "standard input", None, limit))
        return data
    shown = repr(os.fspath(path))
    try:
        fd, st = open_regular(path)
    except NotRegularFile as exc:
        raise error(f"{what}: {shown} is {file_kind(exc.mode)}, not a regular file: "
                    "refused (reading it could block or never end)") from None
    except OSError as exc:
        raise error(f"{what}: cannot read {shown}: {exc.strerror}") from None
    try:
        if st.st_size > limit:
            raise error(_too_big(what, shown, st.st_size, limit))
        chunks = []
        got = 0
        while got <= limit:
            chunk = os.read(fd, min(1 << 20, limit + 1 - got))
            if not chunk:
                break
            chunks.append(chunk)
            got += len(chunk)
        if got > limit:  # the file grew while it was read
            raise error(_too_big(what, shown, None, limit))
        return b"".join(chunks)
    except OSError as exc:
        raise error(f"{what}: cannot read {shown}: {exc.strerror}") from None
    finally:
        os.close(fd)


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


def read_json(path: str | os.PathLike[str], what: str,
              error: type[DPVerifyError] = InvalidParameterError, *,
              allow_nan: bool = False, stdin: bool = False) -> Any:
    """The JSON value in the file ``path`` (UTF-8), read by :func:`read_capped` (a regular
    file, at most :func:`input_cap` bytes; ``"-"`` is standard input when ``stdin``).

    Raises
    ------
    error (default InvalidParameterError)
        The file cannot be read, is not a regular file, is larger than the cap, is not
        UTF-8, or is not JSON (bad syntax, nesting deeper than the parser's recursion
        limit, an integer beyond 4300 digits, ``NaN`` or ``Infinity`` unless
        ``allow_nan``: Python's own ``json.dumps`` writes them); the one-line message
        starts with ``what`` and names the path.
    """
    raw = read_capped(path, what, error, stdin=stdin)
    shown = "standard input" if stdin and os.fspath(path) == "-" else repr(os.fspath(path))
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise error(f"{what}: {shown} is not UTF-8 text") from None
    del raw
    try:
        return json.loads(text, parse_constant=None if allow_nan else _no_constant)
    except json.JSONDecodeError as exc:
        why = f"{exc.msg} (line {exc.lineno}, column {exc.colno})"
    except RecursionError:
        why = "nested too deeply"
    except ValueError as exc:  # NaN/Infinity, or an integer past the conversion limit
        why = str(exc).split(";")[0]
    raise error(f"{what}: {shown} is not valid JSON: {why}") from None
