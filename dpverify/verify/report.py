"""Verdicts: :class:`Malformed`, :class:`Report`, the per-run :class:`Checks` list and budgets.

A report's status is derived from its checks only: ``fails`` when any check is False,
else ``undecided`` when any is None, else ``holds``.  Nothing here does arithmetic.

Statement lines are :class:`Said` strings: the full text (what was checked) with a
display form in which long numbers and texts are shortened and marked
(:data:`SHORTENED`); the text report prints the display form, ``--json`` and
``Report.statement`` the full text.

Budgets: a deadline (:meth:`Checks.tick` raises :class:`TimeUp` past it) and a memory
budget; :meth:`Checks.afford` refuses, before it starts, one exact computation whose
estimated size would not fit them (:class:`TooExpensive`: the check is undecided and says
how to raise the budget).
"""

from __future__ import annotations

import html
import os
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any, NamedTuple, TypeVar

__all__ = ["Malformed", "ArgumentTypeError", "ArgumentValueError", "TimeUp", "TooExpensive",
           "one_line", "escape", "SHORTENED", "Cut", "Said", "say", "cut_text", "Report",
           "Checks", "Refuted", "BOUNDED", "MORE_PRECISION", "BISECT", "refine", "Progress",
           "Sink", "reporting", "progress_callback", "streaming", "default_memory",
           "BITS_PER_SECOND", "BYTES_PER_BIT", "budgets", "afford"]

_Piece = TypeVar("_Piece")

#: a progress callback ``(stage, done, total or None)``: counts only, never values
Progress = Callable[[str, int, "int | None"], None]
#: the callback of the verification running in this context (see :func:`reporting`)
_CURRENT: ContextVar[Progress | None] = ContextVar("dpverify_verify_progress", default=None)
#: ticks between two progress reports of :meth:`Checks.tick` (a power of two minus one)
_TICK_MASK = 63


#: receives, as they come, the statement lines and every check (the parent of a
#: verification run in a child process, see :mod:`bounded`): ``sink(kind, new_lines,
#: check or None)``
Sink = Callable[[str, list[str], "tuple[str, bool | None, str] | None"], None]
_SINK: ContextVar[Sink | None] = ContextVar("dpverify_verify_sink", default=None)


@contextmanager
def streaming(sink: Sink | None) -> Iterator[None]:
    """Inside this block every new :class:`Checks` passes each check to ``sink``."""
    token = _SINK.set(sink)
    try:
        yield
    finally:
        _SINK.reset(token)


def progress_callback() -> Progress | None:
    """The progress callback set by :func:`reporting` in this context, if any."""
    return _CURRENT.get()


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


class TooExpensive(Exception):
    """One exact computation would not fit the deadline or the memory budget (estimated
    before it starts); the check becomes undecided with this message."""


def one_line(text: object, limit: int = 300) -> str:
    s = " ".join(str(text).encode("utf-8", "replace").decode("utf-8").split())
    return s if len(s) <= limit else s[: limit - 3] + "..."


#: appended to the display form of a statement line that was shortened
SHORTENED = " [shortened; full text in --json]"


class Cut(NamedTuple):
    """A piece of a statement line shown shortened (``short``) whose text is ``full``."""

    short: str
    full: str


class Said(str):
    """A statement line: the full text (the string itself) and its display form
    ``short`` (equal to it unless something was shortened, then marked)."""

    short: str

    def __new__(cls, full: str, short: str | None = None) -> Said:
        obj = super().__new__(cls, full)
        obj.short = full if short is None else short
        return obj

    def __reduce__(self) -> tuple[Any, ...]:
        return (Said, (str(self), self.short))


def say(*parts: str | Cut) -> Said:
    """A statement line from text and :class:`Cut` pieces (marked if any was shortened)."""
    full = "".join(p.full if isinstance(p, Cut) else p for p in parts)
    short = "".join(p.short if isinstance(p, Cut) else p for p in parts)
    cut = any(isinstance(p, Cut) and p.short != p.full for p in parts)
    return Said(full, short + SHORTENED if cut else short)


def cut_text(text: str, limit: int) -> str | Cut:
    """``text``, or the first ``limit`` characters and ``...`` (a :class:`Cut`)."""
    return text if len(text) <= limit else Cut(text[:limit] + "...", text)


_MARK = {True: "ok", False: "FAIL", None: "undecided"}


@dataclass
class Report:
    """The verdict of the independent checker on one certificate.

    Attributes
    ----------
    status : str
        ``"holds"`` (every check passed, decided exactly or by rigorous ball
        arithmetic), ``"fails"`` (some check is false: the statement does not hold) or
        ``"undecided"`` (no check failed but one could not be decided within the
        verifier's limits, deadline or memory budget).
    kind : str
        The certificate's kind (``supnorm-finite``, ``supnorm-box``, ``minimax``, ...).
    statement : list of str
        The statement as checked, one sentence per line, in full (exact numbers, whole
        expressions).  Each line is a :class:`Said`; ``line.short`` is the display form
        the text report prints (long numbers and texts shortened, marked
        :data:`SHORTENED`).
    checks : list of (name, ok, detail)
        Every check made, in order: ``ok`` is True (passed), False (refuted) or None
        (undecided); ``detail`` says what was compared (one line).
    not_checked : list of str
        One line per key of the certificate's ``info`` block: what the certificate says
        but nobody checked.
    ok : bool
        ``status == "holds"``.
    exit_code : int
        That of ``dpverify verify``: 0 when the statement holds, else 1.
    reason : str
        The first failing (else undecided) check.

    Examples
    --------
    >>> from dpverify.verify import Report
    >>> r = Report("holds", "supnorm-finite", ["Target: f(x) = x."], [("degree", True, "1")])
    >>> r
    Report(status='holds', kind='supnorm-finite', checks: 1 ok)
    >>> r.ok, r.exit_code
    (True, 0)
    """

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

    def __repr__(self) -> str:
        counts = {mark: sum(1 for c in self.checks if c[1] is v) for v, mark in _MARK.items()}
        parts = ", ".join(f"{n} {m}" for m, n in counts.items() if n)
        first = self.failures()[0][0] if self.failures() else ""
        text = (f"Report(status={self.status!r}, kind={self.kind[:30]!r}, checks: "
                f"{parts or 'none'}" + (f"; first: {first}" if first else ""))
        return (text if len(text) <= 140 else text[:136] + "...") + ")"

    def _repr_html_(self) -> str:
        """A small HTML summary for Jupyter: verdict, statement, checks (escaped)."""
        def esc(text: object) -> str:
            return html.escape(escape(str(text)))

        verdict = {"holds": "HOLDS", "fails": "DOES NOT HOLD"}.get(self.status, "UNDECIDED")
        lines = "".join(f"<li>{esc(getattr(s, 'short', s))}</li>" for s in self.statement)
        rows = "".join(f"<tr><td>{esc(_MARK[ok])}</td><td>{esc(name)}</td>"
                       f"<td style='text-align:left'>{esc(detail)}</td></tr>"
                       for name, ok, detail in self.checks)
        why = f": {esc(self.reason)}" if self.reason else ""
        return (f"<div><b>dpverify verify</b> <code>{esc(self.kind)}</code>: "
                f"<b>{verdict}</b>{why}<ul>{lines}</ul><table>{rows}</table></div>")

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

    def __init__(self, deadline_seconds: float | None, progress: Progress | None = None,
                 max_memory: int | None = None) -> None:
        self.items: list[tuple[str, bool | None, str]] = []
        self.deadline = None if deadline_seconds is None else time.monotonic() + deadline_seconds
        self.max_memory = default_memory() if max_memory is None else max_memory
        self.progress = _CURRENT.get() if progress is None else progress
        self.sink = _SINK.get()
        self.kind = "?"  # the certificate's kind, and its statement lines (for the sink)
        self.words: list[str] = []
        self._sent = 0  # statement lines passed to the sink so far
        self._ticks = 0
        self._last: tuple[str, int, int | None] | None = None  # the last explicit report

    def afford(self, what: str, bits: int, work: int | None = None) -> None:
        """Raise :class:`TooExpensive` unless an exact computation producing about
        ``bits`` bits of integers fits the memory budget (``BYTES_PER_BIT`` bytes held per
        bit produced, intermediates included) and ``work`` bit operations (default
        ``bits``), at an optimistic ``BITS_PER_SECOND``, fit the time left before the
        deadline.  Estimates err low: what is refused cannot fit; what is accepted may
        still run into the deadline (then "time limit")."""
        need = bits * BYTES_PER_BIT
        if need > self.max_memory:
            raise TooExpensive(
                f"too expensive: {what} needs about {_size(need)}, over the memory budget "
                f"{_size(self.max_memory)} (raise with --max-memory or max_memory)")
        if self.deadline is not None:
            left = self.deadline - time.monotonic()
            seconds = (bits if work is None else work) / BITS_PER_SECOND
            if seconds > left:
                raise TooExpensive(
                    f"too expensive: {what} needs at least {seconds:.3g} s, {max(left, 0):.3g}"
                    " s left before the deadline (raise with --timeout or deadline_seconds)")

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

    def flush(self, item: tuple[str, bool | None, str] | None = None) -> None:
        """Pass the new statement lines (and ``item``) to the sink, if any."""
        if self.sink is not None and (item is not None or len(self.words) > self._sent):
            new, self._sent = self.words[self._sent:], len(self.words)
            self.sink(self.kind, new, item)

    def add(self, name: str, ok: bool | None, detail: str = "") -> bool | None:
        item = (name, ok, one_line(detail))
        self.items.append(item)
        self.flush(item)
        return ok

    def run(self, name: str, fn: Callable[[], tuple[bool | None, str]]) -> bool | None:
        """Record ``fn()``; a computation refused as too expensive, or an unexpected
        exception (named), becomes an undecided check."""
        self.flush()  # the statement is known before a check starts: a stopped child has said it
        try:
            ok, detail = fn()
        except (Malformed, TimeUp):
            raise
        except TooExpensive as exc:
            ok, detail = None, str(exc)
        except MemoryError:
            ok, detail = None, (f"out of memory (budget {_size(self.max_memory)}; raise with "
                                "--max-memory or max_memory)")
        except Exception as exc:  # a bug must not become a traceback or a verdict
            ok, detail = None, f"internal error ({type(exc).__name__}: {exc})"
        return self.add(name, ok, detail)

    def status(self) -> str:
        oks = [c[1] for c in self.items]
        return "fails" if False in oks else "undecided" if None in oks else "holds"


#: the exact arithmetic the budget estimates assume: bits of integers produced per second
#: (optimistic: FLINT's products and Taylor shifts of large polynomials produce a few
#: 10^8 bits a second on one core), and bytes held per bit produced (the result, its
#: operands and one temporary of each)
BITS_PER_SECOND = 2 * 10**9
BYTES_PER_BIT = 1 / 2


#: the checks of the verification running in this context (see :func:`afford`)
_CHECKS: ContextVar[Checks | None] = ContextVar("dpverify_verify_checks", default=None)


@contextmanager
def budgets(ck: Checks) -> Iterator[None]:
    """Inside this block :func:`afford` charges ``ck``'s budgets."""
    token = _CHECKS.set(ck)
    try:
        yield
    finally:
        _CHECKS.reset(token)


def afford(what: str, bits: int, work: int | None = None) -> None:
    """:meth:`Checks.afford` of the verification running in this context (none: only
    the default memory budget applies)."""
    ck = _CHECKS.get()
    if ck is None:
        ck = Checks(None, progress=None)
    ck.afford(what, bits, work)


def default_memory() -> int:
    """The default memory budget: half the machine's physical memory (8 GiB if unknown)."""
    try:
        return int(os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")) // 2
    except (AttributeError, ValueError, OSError):
        return 8 * 2**30


def _size(nbytes: float) -> str:
    return f"{nbytes / 2**30:.3g} GiB" if nbytes >= 2**30 else f"{nbytes / 2**20:.3g} MiB"


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
