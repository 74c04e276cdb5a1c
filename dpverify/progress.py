"""Progress reports for long runs (CLI progress bars; a callback protocol for the library).

Library functions that can run for long accept ``progress=`` -- any callable
``progress(stage: str, done: int, total: int | None) -> None`` -- and call it from their main
loop (cheaply: once per chunk, not per element) through :func:`report`, which also tests
the deadline of the time budget in force (:func:`dpverify.budget.checkpoint`): a loop that
reports its progress honours a ``timeout=`` set anywhere above it.  :class:`Progress` is
such a callable that draws a throttled one-line bar on stderr; the CLI creates one per
command (``--progress`` / ``--no-progress``; default: only when stderr is a terminal, so
logs and pipes stay clean).  Progress reports never carry data values, only counts.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from typing import IO

from .budget import checkpoint

__all__ = ["Progress", "ProgressCallback", "report"]

#: The callback protocol: ``(stage, done, total or None)``.
ProgressCallback = Callable[[str, int, "int | None"], None]


def report(progress: ProgressCallback | None, stage: str, done: int,
           total: int | None = None) -> None:
    """Call ``progress`` if given (so library loops need no ``if``); past the deadline of
    the budget in force (:mod:`dpverify.budget`) raise
    :class:`~dpverify.errors.TimeLimitExceeded` instead."""
    checkpoint(stage)
    if progress is not None:
        progress(stage, done, total)


class Progress:
    """A throttled progress line: ``label: stage 45% (450/1000) 3.2 s, ~4 s left``.

    Parameters
    ----------
    label : str
        Printed first (e.g. the command name).
    stream : text stream, default ``sys.stderr``
    enabled : bool or None
        ``None``: enabled iff ``stream.isatty()``.
    interval : float
        Minimum seconds between redraws (the first and the last report are always drawn).
    """

    def __init__(self, label: str, *, stream: IO[str] | None = None,
                 enabled: bool | None = None, interval: float = 0.25) -> None:
        self.label = label
        self.stream = sys.stderr if stream is None else stream
        if enabled is None:
            isatty = getattr(self.stream, "isatty", None)
            enabled = bool(isatty and isatty())
        self.enabled = enabled
        self.interval = float(interval)
        self._t0 = time.perf_counter()
        self._stage: str | None = None
        self._stage_t0 = self._t0
        self._last = 0.0
        self._width = 0
        self.lines = 0

    def __call__(self, stage: str, done: int, total: int | None = None) -> None:
        if not self.enabled:
            return
        now = time.perf_counter()
        new_stage = stage != self._stage
        if new_stage:
            self._stage, self._stage_t0 = stage, now
        final = total is not None and done >= total
        if not (new_stage or final or now - self._last >= self.interval):
            return
        self._last = now
        el = now - self._stage_t0
        if total:
            frac = min(done / total, 1.0)
            msg = f"{self.label}: {stage} {100 * frac:3.0f}% ({done}/{total}) {el:.1f} s"
            if 0 < frac < 1 and el > 1:
                msg += f", ~{el * (1 - frac) / frac:.0f} s left"
        else:
            msg = f"{self.label}: {stage}{f' {done}' if done else ''} {el:.1f} s"
        pad = max(self._width - len(msg), 0)
        self._width = len(msg)
        self.stream.write("\r" + msg + " " * pad)
        self.stream.flush()
        self.lines += 1

    def close(self, failed: bool = False) -> None:
        """End the line (if anything was drawn): ``done in ...``, or ``stopped after ...``
        when ``failed`` (the ``with`` block raised)."""
        if self.enabled and self.lines:
            total = time.perf_counter() - self._t0
            end = "stopped after" if failed else "done in"
            self.stream.write(f"\r{self.label}: {end} {total:.1f} s" + " " * self._width + "\n")
            self.stream.flush()

    def __enter__(self) -> Progress:
        return self

    def __exit__(self, exc_type: object, *exc: object) -> None:
        self.close(failed=exc_type is not None)
