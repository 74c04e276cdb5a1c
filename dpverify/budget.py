"""Time and memory budgets that hold inside single FLINT calls.

Python cannot interrupt a call into FLINT: a ``SIGALRM`` handler, like any deadline test,
runs only between bytecodes, so one exact Taylor shift of a degree-50000 polynomial
(half a minute, gigabytes) overruns any deadline, and a failed allocation inside FLINT
aborts the whole process (``FLINT exception: Unable to allocate memory``).  So:

* the cost of a FLINT call whose size follows from user input is estimated *before* the
  call (:func:`check_cost`, with the cost models below), and what would pass the time left
  or the memory budget is refused with :class:`~dpverify.errors.TimeLimitExceeded` or
  :class:`~dpverify.errors.MemoryLimitExceeded` (an *undecided* outcome: nothing is
  claimed, the caller may raise the limit);
* Python loops between such calls test the deadline (:func:`checkpoint`; every progress
  report of :func:`dpverify.progress.report` runs it too).

The budget is a context variable: :func:`limits` sets it (the CLI from ``--timeout`` and
``--max-memory``, API functions from their ``timeout=``), and an inner ``limits`` only
narrows the outer one.  Outside any ``limits`` there is no deadline and the memory budget
is :data:`DEFAULT_MEMORY_FRACTION` of the machine (its physical memory, or the cgroup
limit of a container when lower), so even a call without a limit cannot exhaust memory
through one of the guarded operations.

Cost models
-----------
Sizes are in bits; an ``fmpq`` coefficient counts its numerator and denominator.

* Composition with a linear polynomial (``p(alpha x + beta)``, Taylor shifts, changes of
  interval): the result has ``n + 1`` coefficients of about ``b + n s`` bits (``b`` the
  input's largest coefficient, ``s`` the larger size of the numerators and denominators
  of ``alpha`` and ``beta``; the binomial sums add about ``n`` bits, which ``s >= 1``
  covers).  Measured (python-flint 0.9, one core, shift by 1/2, degree 10^4 to 4 10^4):
  1.6e8 to 3e8 output bits per second and a peak of 5-6 times the output size; the model
  takes ``1.5e8`` bits per second and 8 times (it overestimates the size by about 1.3).
* Chebyshev <-> monomial conversion (Clenshaw / Horner on ``fmpq_poly``, ``n`` steps each
  touching the whole vector): ``n`` times the output size in bit operations; measured
  ``2.5e10`` per second at degree 4000; the model takes ``1e10``.

The rates are conservative for an idle machine (a loaded one is slower: the check is then
optimistic and the deadline tests between calls take over).
"""

from __future__ import annotations

import contextvars
import math
import os
import re
import signal
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, NamedTuple

from .errors import InvalidParameterError, MemoryLimitExceeded, TimeLimitExceeded

__all__ = [
    "Budget",
    "DEFAULT_MEMORY_FRACTION",
    "MAX_TIMEOUT",
    "COMPOSE_RATE",
    "LINEAR_RATE",
    "CONVERSION_RATE",
    "current",
    "limits",
    "after",
    "remaining",
    "checkpoint",
    "check_cost",
    "check_timeout",
    "machine_memory",
    "default_max_memory",
    "parse_memory",
    "format_bytes",
    "compose_cost",
    "chebyshev_conversion_cost",
    "poly_size",
    "die_with_parent",
]

#: Longest ``timeout=`` accepted, in seconds (about 30 years; ``None`` means no limit).
MAX_TIMEOUT = 1e9
#: Share of the machine's memory a computation may use when nobody set a budget.
DEFAULT_MEMORY_FRACTION = 0.5

#: Output bits per second of an exact composition with a linear polynomial (model).
COMPOSE_RATE = 1.5e8
#: Bits per second of linear exact work (building a polynomial over a common denominator:
#: measured 7e8 at 20001 coefficients of 29000 bits).
LINEAR_RATE = 3e8
#: Bit operations per second of the Chebyshev <-> monomial loops (model).
CONVERSION_RATE = 1e10
#: Peak memory of an exact composition, in bytes per output bit (8 times the output).
COMPOSE_MEMORY = 1.0

_UNITS = {"": 1, "K": 2**10, "M": 2**20, "G": 2**30, "T": 2**40}
_MEMORY = re.compile(r"\s*([0-9]+(?:\.[0-9]+)?)\s*([KMGT]?)(?:I?B)?\s*\Z", re.ASCII | re.I)
_PERCENT = re.compile(r"\s*([0-9]+(?:\.[0-9]+)?)\s*%\s*\Z", re.ASCII)


class Budget(NamedTuple):
    """A deadline (``time.monotonic()`` value, or ``None``) and a memory budget in bytes;
    ``timeout`` is the limit in seconds as given (for messages).  Immutable (a named
    tuple: no dataclasses import at start-up)."""

    deadline: float | None
    max_memory: int
    timeout: float | None = None


def machine_memory() -> int | None:
    """Bytes of memory this process may use: the physical memory, or a lower cgroup
    (container) limit; ``None`` when unknown."""
    total = None
    try:
        total = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):
        pass
    for path in ("/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"):
        try:
            with open(path, encoding="ascii") as fh:
                text = fh.read(64).strip()
        except OSError:
            continue
        if text.isdigit() and (total is None or int(text) < total):
            total = int(text)
    return total if total and total > 0 else None


def default_max_memory() -> int:
    """:data:`DEFAULT_MEMORY_FRACTION` of :func:`machine_memory` (4 GiB when unknown)."""
    total = machine_memory()
    return int(total * DEFAULT_MEMORY_FRACTION) if total else 4 * 2**30


_DEFAULT: contextvars.ContextVar[Budget | None] = contextvars.ContextVar(
    "dpverify_budget", default=None)


def current() -> Budget:
    """The budget in force (see the module docstring)."""
    b = _DEFAULT.get()
    return b if b is not None else Budget(None, default_max_memory())


def check_timeout(timeout: Any, name: str = "timeout") -> float | None:
    """A ``timeout=`` argument in seconds: ``None`` (no limit) or a number in
    ``(0, MAX_TIMEOUT]`` (an int, a float, or anything :func:`dpverify.numbers.to_fmpq`
    reads).  ``bool``, NaN and infinities are refused."""
    if timeout is None:
        return None
    if isinstance(timeout, bool):
        raise InvalidParameterError(f"{name} must be a number of seconds, got {timeout!r}")
    if isinstance(timeout, int):
        t = float(timeout) if abs(timeout) < 2**64 else (math.inf if timeout > 0 else -1.0)
    elif isinstance(timeout, float):
        t = timeout
    else:
        # deferred: numbers imports flint, which a budget without strings never needs
        from .numbers import to_fmpq

        q = to_fmpq(timeout, name)
        t = float(q) if abs(q) < 2**64 else (math.inf if q > 0 else -1.0)
    shown = repr(timeout) if len(repr(timeout)) <= 40 else f"{repr(timeout)[:30]}..."
    if math.isnan(t) or not t > 0:
        raise InvalidParameterError(f"{name} must be > 0 seconds, got {shown}")
    if t > MAX_TIMEOUT:
        raise InvalidParameterError(
            f"{name} must be at most {MAX_TIMEOUT:.0e} seconds, got {shown} (None: no limit)")
    return t


def after(timeout: Any) -> float | None:
    """The budget deadline (seconds) for a function that stops *gracefully* at its own
    ``timeout`` (returning a valid, less precise result): a little later, ``1.05 timeout +
    0.5`` s, so that the graceful stop comes first and the budget only catches single
    calls and the wrap-up (run it with ``limits(timeout=after(t), shown=t)``: messages
    then quote ``t``).  ``None`` stays ``None``."""
    t = check_timeout(timeout)
    return None if t is None else 1.05 * t + 0.5


@contextmanager
def limits(*, timeout: Any = None, max_memory: int | None = None,
           shown: Any = None) -> Iterator[Budget]:
    """Run the block under a deadline ``timeout`` seconds from now and a memory budget of
    ``max_memory`` bytes (each ``None``: keep the enclosing one).  An enclosing budget
    that is tighter stays in force.  ``shown``: the limit messages quote (default
    ``timeout``; with ``timeout=after(t)``, ``shown=t``: the user's own number)."""
    t = check_timeout(timeout)
    outer = current()
    deadline, quoted = outer.deadline, outer.timeout
    if t is not None:
        mine = time.monotonic() + t
        if deadline is None or mine < deadline:
            deadline, quoted = mine, (t if shown is None else check_timeout(shown, 'shown'))
    mem = outer.max_memory if max_memory is None else min(int(max_memory), outer.max_memory)
    mine_budget = Budget(deadline, mem, quoted)
    token = _DEFAULT.set(mine_budget)
    try:
        yield mine_budget
    finally:
        _DEFAULT.reset(token)


def remaining() -> float | None:
    """Seconds left before the deadline (may be negative), or ``None`` without one."""
    d = current().deadline
    return None if d is None else d - time.monotonic()


def checkpoint(what: str = "") -> None:
    """Raise :class:`~dpverify.errors.TimeLimitExceeded` when the deadline has passed
    (about 0.1 microseconds when it has not: call it once per loop step)."""
    b = _DEFAULT.get()
    if b is not None and b.deadline is not None and time.monotonic() > b.deadline:
        where = f" during {what}" if what else ""
        raise TimeLimitExceeded(f"time limit of {_seconds(b.timeout)} s reached{where}")


def _rss() -> int:
    """Resident memory of this process in bytes (0 when unknown)."""
    try:
        with open("/proc/self/statm", encoding="ascii") as fh:
            return int(fh.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError, AttributeError):
        return 0


def check_cost(what: str, *, seconds: float, memory: float) -> None:
    """Refuse ``what`` before it starts when its estimated ``seconds`` exceed the time
    left, or its estimated peak ``memory`` (bytes) exceeds the memory budget less what the
    process already holds.

    Raises
    ------
    TimeLimitExceeded, MemoryLimitExceeded
        With one line naming ``what`` and both estimates.
    """
    if seconds < 0.01 and memory < 2**26:  # too small to matter: no /proc read
        return
    b = current()
    left = None if b.deadline is None else b.deadline - time.monotonic()
    if left is not None and seconds > max(left, 0.0):
        raise TimeLimitExceeded(
            f"{what} is too expensive: about {_seconds(seconds)} s and "
            f"{format_bytes(memory)} (estimated), with {_seconds(max(left, 0.0))} s left "
            "before the time limit")
    room = b.max_memory - _rss()
    if memory > room:
        raise MemoryLimitExceeded(
            f"{what} is too expensive: about {format_bytes(memory)} of memory (estimated), "
            f"more than the {format_bytes(max(room, 0))} left of the memory budget of "
            f"{format_bytes(b.max_memory)}")


def parse_memory(text: str, name: str = "--max-memory", minimum: int = 2**20) -> int:
    """A memory size: bytes (``1000000``), with a binary unit (``512M``, ``4G``, ``1.5GiB``,
    ``2TB``: powers of 1024) or a share of the machine (``50%``); at least ``minimum``."""
    s = str(text)
    m = _PERCENT.match(s)
    if m:
        share = float(m.group(1))
        total = machine_memory()
        if not 0 < share <= 100:
            raise InvalidParameterError(f"{name} must be a share in (0%, 100%], got {s!r}")
        if total is None:
            raise InvalidParameterError(
                f"{name}: the machine's memory is unknown here; give a size such as 4G")
        return int(total * share / 100)
    m = _MEMORY.match(s)
    if not m:
        raise InvalidParameterError(
            f"{name} must be a size such as 4G, 512M, 2000000000 or 50%, got {s[:40]!r}")
    value = float(m.group(1)) * _UNITS[m.group(2).upper()]
    if not minimum <= value <= 2**60:
        raise InvalidParameterError(
            f"{name} must be between {format_bytes(minimum)} and 2^60 bytes, got {s!r}")
    return int(value)


def format_bytes(n: float) -> str:
    """``1.5 GB`` style (binary units)."""
    n = float(n)
    for unit in ("B", "KB", "MB", "GB", "TB"):
        if abs(n) < 1024 or unit == "TB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024
    return f"{n:.1f} TB"  # pragma: no cover


def _seconds(s: float | None) -> str:
    if s is None:
        return "?"
    if s >= 100:
        return f"{s:.0f}"
    return f"{s:.3g}"


def poly_size(p: Any) -> tuple[int, int]:
    """``(degree, bits)`` of an ``fmpq_poly``: ``bits`` bounds the size of its largest
    coefficient, numerator and common denominator together."""
    return max(p.degree(), 0), int(p.numer().height_bits()) + int(p.denom().bit_length())


def _qbits(q: Any) -> int:
    """Bits of the larger of numerator and denominator (``m^j`` has about ``j`` times as
    many in each)."""
    return max(int(q.p).bit_length(), int(q.q).bit_length())


def compose_cost(n: int, bits: int, alpha: Any, beta: Any) -> tuple[float, float]:
    """(seconds, bytes) of ``p(alpha x + beta)`` for ``p`` of degree ``n`` with
    ``bits``-bit coefficients (``fmpq`` ``alpha``, ``beta``): the composition model of
    the module docstring."""
    s = max(_qbits(alpha), _qbits(beta), 1)
    out = (n + 1) * (bits + n * s + 64)
    return out / COMPOSE_RATE, out * COMPOSE_MEMORY


def chebyshev_conversion_cost(n: int, bits: int) -> tuple[float, float]:
    """(seconds, bytes) of a Chebyshev <-> monomial conversion at degree ``n``: the
    result's ``n + 1`` coefficients have about ``bits + n`` bits (``T_n`` has a
    ``2^(n-1)`` leading coefficient) and each of the ``n`` steps touches all of them."""
    out = (n + 1) * (bits + n + 64)
    return n * out / CONVERSION_RATE, 4.0 * out


def die_with_parent(parent: int) -> None:
    """In a forked child of ``parent``: have the kernel kill this process when its
    parent dies (Linux ``PR_SET_PDEATHSIG``), so that nothing computes on for nobody
    after the parent was killed at its deadline, by ``kill -9`` or by the kernel (a
    parent killed with SIGKILL cannot forward anything).  Exits at once when the parent
    died before the request took effect.  Elsewhere: nothing."""
    if not sys.platform.startswith("linux"):
        return
    try:
        import ctypes  # deferred: only forked children on Linux need it

        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        return
    if os.getppid() != parent:
        os._exit(1)
