"""Verdicts: :class:`Malformed`, :class:`Report`, the per-run :class:`Checks` list and budget.

A report's status is derived from its checks only: ``fails`` when any check is False,
else ``undecided`` when any is None, else ``holds``.  Nothing here does arithmetic.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TypeVar

__all__ = ["Malformed", "TimeUp", "one_line", "Report", "Checks", "Refuted", "BOUNDED",
           "MORE_PRECISION", "BISECT", "refine"]

_Piece = TypeVar("_Piece")


class Malformed(ValueError):
    """The file or document is malformed (exit code 2); the message is one line."""


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
    """The list of checks of one verification, with the caller's deadline."""

    def __init__(self, deadline_seconds: float | None) -> None:
        self.items: list[tuple[str, bool | None, str]] = []
        self.deadline = None if deadline_seconds is None else time.monotonic() + deadline_seconds

    def tick(self) -> None:
        if self.deadline is not None and time.monotonic() > self.deadline:
            raise TimeUp()

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
    todo = list(reversed(pieces))
    limit, done = 64 * max(len(pieces), 1), 0
    while todo:
        ck.tick()
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
    return True, f"{len(pieces)} pieces bounded ({done - len(pieces)} refinements)"
