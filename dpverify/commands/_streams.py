"""Standard streams that were closed when ``dpverify`` started (``2>&-``, ``>&-``, ``<&-``).

A process started with descriptor 0, 1 or 2 closed gets ``None`` for ``sys.stdin``,
``sys.stdout`` or ``sys.stderr``, and the next file or pipe it opens takes that number: the
isolating parent's result pipe could become "standard error", and the child's
``dup2(pipe, 2)`` would then cut its own result channel (the ``--out`` file was lost, exit 1).
So :func:`reopen_closed`, first thing in :func:`dpverify.cli.console_main`, puts
``/dev/null`` on every closed descriptor and gives Python a stream object for it:

* standard input: reading it (``--data -``, ``--poly @-``) raises
  :class:`~dpverify.errors.InvalidParameterError` ("standard input is closed"), which the
  CLI prints as one line, exit 2; a command that does not read it runs as usual;
* standard output or standard error: what would go there is dropped; the command still
  runs and writes its ``--out`` file (nothing is lost that can be kept), then
  :func:`dpverify.cli.main` ends with one line saying which stream was closed, on the
  stream that is left (or none), and exit 2.  A command whose only output is standard
  output (no ``--out FILE``) stops at once with that line: its result would have nowhere
  to go.

The rule for the exit status: a closed output stream is an error (exit 2) even when the
command succeeded, because what it would have printed there (the table, the JSON, notes,
progress) is lost; a closed input stream only when the command reads it.
"""

from __future__ import annotations

import os
import sys
from typing import IO, Any

from ..errors import InvalidParameterError

__all__ = ["reopen_closed", "closed", "error_stream", "say", "NAMES", "ClosedInput"]

#: The standard descriptors, by name.
NAMES = {0: "standard input", 1: "standard output", 2: "standard error"}

#: Descriptors found closed by :func:`reopen_closed` (set once, at start-up).
_CLOSED: set[int] = set()


class ClosedInput:
    """``sys.stdin`` of a process started with standard input closed: any read raises
    :class:`~dpverify.errors.InvalidParameterError` (one line from the CLI, exit 2)."""

    closed = False

    def _refuse(self, *args: Any, **kwargs: Any) -> Any:
        raise InvalidParameterError("standard input is closed: there is nothing to read for "
                                    "'-' (give a file, or open standard input)")

    read = readline = readlines = fileno = _refuse

    @property
    def buffer(self) -> Any:
        return self._refuse()

    def __iter__(self) -> Any:
        return self._refuse()

    def isatty(self) -> bool:
        return False

    def close(self) -> None:
        pass


def reopen_closed() -> frozenset[int]:
    """Find the standard streams closed at start-up (Python made them ``None``), put
    ``/dev/null`` on each descriptor and a stream object on each ``sys`` name (see the
    module docstring); returns the closed descriptors."""
    streams = {0: sys.stdin, 1: sys.stdout, 2: sys.stderr}
    for fd in sorted(n for n, s in streams.items() if s is None):
        try:
            os.fstat(fd)
            taken = True  # something the start-up opened holds the number: leave it
        except OSError:
            taken = False
        if not taken:
            new = os.open(os.devnull, os.O_RDONLY if fd == 0 else os.O_WRONLY)
            if new != fd:
                os.dup2(new, fd)
                os.close(new)
        _CLOSED.add(fd)
    if 0 in _CLOSED:
        sys.stdin = ClosedInput()
    for fd, name in ((1, "stdout"), (2, "stderr")):
        if fd in _CLOSED:
            setattr(sys, name, open(os.devnull, "w", encoding="utf-8"))  # noqa: SIM115
    return frozenset(_CLOSED)


def closed() -> frozenset[int]:
    """The descriptors :func:`reopen_closed` found closed (empty in-process)."""
    return frozenset(_CLOSED)


def error_stream() -> IO[str] | None:
    """Where an error line goes: standard error, or standard output when standard error
    was closed, or nowhere (None) when both were."""
    if 2 not in _CLOSED:
        return sys.stderr
    if 1 not in _CLOSED:
        return sys.stdout
    return None


def say(line: str) -> None:
    """One line on :func:`error_stream` (or nowhere)."""
    stream = error_stream()
    if stream is not None:
        stream.write(line + "\n")
        stream.flush()
