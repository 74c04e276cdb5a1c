"""Verdicts: :class:`Malformed`, :class:`Report`, the per-run :class:`Checks` list and budget.

A report's status is derived from its checks only: ``fails`` when any check is False,
else ``undecided`` when any is None, else ``holds``.  Nothing here does arithmetic.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import TypeVar

__all__ = ["Malformed", "ArgumentTypeError", "ArgumentValueError", "TimeUp", "one_line",
           "escape", "Report", "Checks", "Refuted", "BOUNDED",
           "MORE_PRECISION", "BISECT", "refine", "Progress", "reporting"]

_Piece = TypeVar("_Piece")

#: a progress callback ``(stage, done, total or None)``: counts only, never values
Progress = Callable[[str, int, "int | None"], None]
#: the callback of the verification running in this context (see :func:`reporting`)
_CURRENT: ContextVar[Progress | None] = ContextVar("dpverify_verify_progress", default=None)
#: ticks between two progress reports of :meth:`Checks.tick` (a power of two minus one)
_TICK_MASK = 63


@contextmanager
def reporting(progress: Progress | None) -> Iterator[None]:
    """Inside this block every new :class:`Checks` reports to ``progress`` (the CLI's
    progress line): the checks done so far and the pieces of :func:`refine`."""
    token = _CURRENT.set(progress)
    try:
        yield
    finally:
        _CURRENT.reset(token)


#: bidirectional-text controls (also not printable, listed to make the intent explicit)
_BIDI = frozenset("\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")


def _escape_char(c: str) -> str:
    o = ord(c)
    return f"\\x{o:02x}" if o < 0x100 else f"\\u{o:04x}" if o < 0x10000 else f"\\U{o:08x}"


def escape(text: str) -> str:
    """``text`` with every character that is not printable (``str.isprintable``: control
    characters such as ESC and BEL, format characters, lone surrogates, ...) or is a
    bidirectional control written as ``\\x1b`` / ``\\u202e``: a certificate's text cannot
    drive the terminal."""
    if text.isprintable() and _BIDI.isdisjoint(text):
        return text
    return "".join(c if c.isprintable() and c not in _BIDI else _escape_char(c) for c in text)


class Malformed(ValueError):
    """The file or document is malformed (exit code 2); the message is one line, with
    non-printable characters escaped (:func:`escape`)."""

    def __init__(self, message: object = "") -> None:
        super().__init__(escape(str(message)))


class ArgumentTypeError(TypeError):
    """An entry point (``verify_file``, ``verify_bytes``, ``verify_document``) was called
    with an argument of the wrong type; the message names the parameter."""


class ArgumentValueError(ValueError):
    """An entry point was called with an argument of the right type but a bad value (a
    deadline that is negative or not finite); the message names the parameter."""


class TimeUp(Exception):
    """The caller's deadline has passed (the check becomes undecided: "time limit")."""


def one_line(text: object, limit: int = 300) -> str:
    s = " ".join(str(text).encode("utf-8", "replace").decode("utf-8").split())
    return s if len(s) <= limit else s[: limit - 3] + "..."


@dataclass
class Report:
    status: str
    kind: str
    statement: list[str] = field(default_factory=list)
    checks: list[tuple[str, bool | None, str]] = field(default_factory=list)
    not_checked: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.status == "holds"

    @property
    def exit_code(self) -> int:
        return 0 if self.ok else 1

    def failures(self) -> list[tuple[str, bool | None, str]]:
        """The checks that did not pass (False first, then undecided ones)."""
        return [c for c in self.checks if c[1] is False] + [c for c in self.checks if c[1] is None]

    @property
    def reason(self) -> str:
        bad = self.failures()
        if not bad:
            return ""
        name, _, detail = bad[0]
        return "time limit" if name == "time limit" else f"{name}: {detail}"


class Checks:
    """The list of checks of one verification, with the caller's deadline and an optional
    progress callback (default: the one set by :func:`reporting`)."""

    def __init__(self, deadline_seconds: float | None, progress: Progress | None = None) -> None:
        self.items: list[tuple[str, bool | None, str]] = []
        self.deadline = None if deadline_seconds is None else time.monotonic() + deadline_seconds
        self.progress = _CURRENT.get() if progress is None else progress
        self._ticks = 0
        self._last: tuple[str, int, int | None] | None = None  # the last explicit report

    def tick(self) -> None:
        if self.deadline is not None and time.monotonic() > self.deadline:
            raise TimeUp()
        if self.progress is not None:
            self._ticks += 1
            if not self._ticks & _TICK_MASK:  # the last stage again, or the checks so far
                self.progress(*(self._last or ("checks", len(self.items), None)))

    def report(self, stage: str | None, done: int = 0, total: int | None = None) -> None:
        """Tell the progress callback, if any (counts only); ``stage=None`` ends an
        explicit stage (:meth:`tick` then reports the number of checks again)."""
        if self.progress is not None:
            self._last = None if stage is None else (stage, done, total)
            self.progress(*(self._last or ("checks", len(self.items), None)))

    def add(self, name: str, ok: bool | None, detail: str = "") -> bool | None:
        self.items.append((name, ok, one_line(detail)))
        return ok

    def run(self, name: str, fn: Callable[[], tuple[bool | None, str]]) -> bool | None:
        """Record ``fn()``; an unexpected exception becomes an undecided check naming it."""
        try:
            ok, detail = fn()
        except (Malformed, TimeUp):
            raise
        except Exception as exc:  # a bug must not become a traceback or a verdict
            ok, detail = None, f"internal error ({type(exc).__name__}: {exc})"
        return self.add(name, ok, detail)

    def status(self) -> str:
        oks = [c[1] for c in self.items]
        return "fails" if False in oks else "undecided" if None in oks else "holds"


class Refuted(Exception):
    """Raised by a piece examiner: the statement fails on this piece (message says why)."""


#: what a piece examiner returns: bounded, retry at twice the precision, bisect
BOUNDED, MORE_PRECISION, BISECT = "bounded", "precision", "bisect"


def refine(pieces: list[tuple[_Piece, int]], examine: Callable[[_Piece, int], str],
           bisect: Callable[[_Piece], list[_Piece]], describe: Callable[[_Piece], str],
           ck: Checks, max_prec: int) -> tuple[bool | None, str]:
    """Bound every ``(piece, prec)``; ``examine(piece, prec)`` says BOUNDED, MORE_PRECISION
    (honoured below ``max_prec``, else bisection) or BISECT (``bisect(piece)`` gives the
    halves), or raises :class:`Refuted`.  At most 64 bounds per listed piece."""
    try:
        return _refine(pieces, examine, bisect, describe, ck, max_prec)
    finally:
        ck.report(None)  # back to counting checks


def _refine(pieces: list[tuple[_Piece, int]], examine: Callable[[_Piece, int], str],
            bisect: Callable[[_Piece], list[_Piece]], describe: Callable[[_Piece], str],
            ck: Checks, max_prec: int) -> tuple[bool | None, str]:
    todo = list(reversed(pieces))
    limit, done = 64 * max(len(pieces), 1), 0
    while todo:
        ck.tick()
        ck.report("bounding pieces", done, done + len(todo))
        piece, prec = todo.pop()
        done += 1
        if done > limit:
            return None, f"refinement limit reached ({limit} piece bounds) near {describe(piece)}"
        try:
            verdict = examine(piece, prec)
        except Refuted as exc:
            return False, str(exc)
        if verdict == MORE_PRECISION and prec < max_prec:
            todo.append((piece, 2 * prec))
        elif verdict != BOUNDED:
            todo += [(half, prec) for half in reversed(bisect(piece))]
    ck.report("bounding pieces", done, done)
    return True, f"{len(pieces)} pieces bounded ({done - len(pieces)} refinements)"
