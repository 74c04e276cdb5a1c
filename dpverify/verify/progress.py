"""The checker's own progress line on stderr (the checker imports nothing else of dpverify).

:class:`Line` is a callable ``line(stage, done, total)`` -- the same protocol as the
certifier's ``dpverify.progress`` -- drawing one throttled line: the first report of a
stage, a final one (``done >= total``) and otherwise at most one redraw every
``interval`` seconds.  Enabled when ``enabled`` is True, or when it is None and the stream
is a terminal (``--progress`` / ``--no-progress``).  Reports carry counts, never values.
"""

from __future__ import annotations

import sys
import time
from typing import TextIO

__all__ = ["Line"]


class Line:
    """``label: stage 45% (450/1000) 3.2 s`` on ``stream`` (default stderr), redrawn in place;
    :meth:`close` ends it with ``label: done in ... s`` if anything was drawn."""

    def __init__(self, label: str, *, stream: TextIO | None = None,
                 enabled: bool | None = None, interval: float = 0.25) -> None:
        self.label = label
        self.stream = sys.stderr if stream is None else stream
        if enabled is None:
            isatty = getattr(self.stream, "isatty", None)
            enabled = bool(isatty and isatty())
        self.enabled = enabled
        self.interval = float(interval)
        self.lines = 0
        self._t0 = time.perf_counter()
        self._stage: str | None = None
        self._stage_t0 = self._t0
        self._last = 0.0
        self._width = 0

    def __call__(self, stage: str, done: int, total: int | None = None) -> None:
        if not self.enabled:
            return
        now = time.perf_counter()
        new = stage != self._stage
        if new:
            self._stage, self._stage_t0 = stage, now
        if not (new or (total is not None and done >= total)
                or now - self._last >= self.interval):
            return
        self._last = now
        el = now - self._stage_t0
        if total:
            pct = 100 * min(done / total, 1.0)
            msg = f"{self.label}: {stage} {pct:3.0f}% ({done}/{total}) {el:.1f} s"
        else:
            msg = f"{self.label}: {stage}{f' {done}' if done else ''} {el:.1f} s"
        self._draw(msg)
        self.lines += 1

    def _draw(self, msg: str) -> None:
        pad = max(self._width - len(msg), 0)
        self._width = len(msg)
        try:
            self.stream.write("\r" + msg + " " * pad)
            self.stream.flush()
        except (OSError, ValueError):  # a closed or broken stderr must not change a verdict
            self.enabled = False

    def close(self, failed: bool = False) -> None:
        if self.enabled and self.lines:
            end = "stopped after" if failed else "done in"
            self._draw(f"{self.label}: {end} {time.perf_counter() - self._t0:.1f} s")
            self._draw_newline()

    def _draw_newline(self) -> None:
        try:
            self.stream.write("\n")
            self.stream.flush()
        except (OSError, ValueError):
            self.enabled = False

    def __enter__(self) -> Line:
        return self

    def __exit__(self, exc_type: object, *exc: object) -> None:
        self.close(failed=exc_type is not None)
