"""Timing helpers for tests that bound time on a busy machine (CI shares its cores; six
processes may compete for two): measure how much slower than its CPU time a computation
runs right now, and the CPU time a call used."""

from __future__ import annotations

import resource
import time

__all__ = ["slowdown", "cpu_seconds"]


def slowdown() -> float:
    """Wall time over CPU time of a 20 ms busy loop now: 1 on an idle machine, about 1.5
    with two busy processes on two cores.  A margin for work other than the computation
    under test is scaled by it."""
    w0, c0 = time.monotonic(), time.process_time()
    while time.process_time() - c0 < 0.02:
        pass
    return max(1.0, (time.monotonic() - w0) / (time.process_time() - c0))


def cpu_seconds() -> float:
    """CPU seconds of this process and of its children that have ended."""
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return time.process_time() + kids.ru_utime + kids.ru_stime
