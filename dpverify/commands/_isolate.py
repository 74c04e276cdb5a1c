"""Run a command's work in a child process that is killed at the deadline.

A ``SIGALRM`` handler runs only between Python bytecodes, so ``--timeout`` cannot stop one
long call into FLINT, and a failed allocation inside FLINT aborts the process
(``SIGABRT``).  The library refuses such calls when it can estimate their cost
(:mod:`dpverify.budget`); this module is the backstop that holds whatever the cost model
misses.  The ``dpverify`` program (:func:`dpverify.cli.console_main`) forks; the child
sets its memory limit (``RLIMIT_DATA``, the ``--max-memory`` budget), computes the
command's outcome and sends it back as JSON over a pipe; the parent writes the outputs
(so a killed child never leaves a partial ``--out`` or half a line on stdout), and kills
the child ``SIGKILL`` when the deadline passes by more than :data:`GRACE` (the child's own
alarm normally ends it first, with the usual message).

The child's standard error (and its standard output, which only stray library messages
use) goes through a second pipe that the parent copies to its own standard error
(progress lines keep working, and a terminal is still detected): FLINT's or GMP's own
message on a failed allocation is dropped there and replaced by one line saying the memory
budget was reached.

A JSON document for standard output (``--out -``, ``--json``) does not cross the pipe
either: the child writes it into an unlinked temporary file the parent opened before the
fork (:func:`stdout_buffer`), and the parent copies that file to its standard output once
the child has succeeded (an r-of-k certificate of gigabytes, escaped into the outcome's
JSON, would be held three times over on both sides).

POSIX only (``os.fork``); elsewhere the command runs in the calling process.
"""

from __future__ import annotations

import json
import os
import selectors
import shutil
import signal
import struct
import sys
import time
import traceback
from collections.abc import Callable, Iterable
from typing import IO, Any

from ..budget import die_with_parent

__all__ = ["can_isolate", "run_isolated", "GRACE", "stdout_buffer", "fill_buffer",
           "copy_buffer"]

#: The parent kills the child this long after the deadline: ``GRACE[0] * timeout +
#: GRACE[1]`` seconds (the child's alarm fires at the deadline itself).
GRACE = (0.05, 1.0)

#: How FLINT and GMP announce a failed allocation before they abort (SIGABRT).
_ALLOC_ABORTS = (b"FLINT exception", b"GNU MP: Cannot")


def can_isolate() -> bool:
    """True where :func:`run_isolated` forks (POSIX)."""
    return hasattr(os, "fork") and hasattr(os, "waitpid")


class _TtyAs:
    """The child's stderr: writes go to the pipe, ``isatty`` answers for the parent's
    stream (so progress lines stay on by default on a terminal)."""

    def __init__(self, stream: Any, tty: bool) -> None:
        self._stream, self._tty = stream, tty

    def isatty(self) -> bool:
        return self._tty

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


def _set_memory_limit(max_memory: int | None) -> None:
    if max_memory is None:
        return
    try:
        import resource  # deferred: POSIX only, and only the child needs it
    except ImportError:  # pragma: no cover
        return
    for name in ("RLIMIT_DATA", "RLIMIT_AS"):
        lim = getattr(resource, name, None)
        if lim is None:
            continue
        try:
            _soft, hard = resource.getrlimit(lim)
            cap = max_memory if hard == resource.RLIM_INFINITY else min(max_memory, hard)
            resource.setrlimit(lim, (cap, hard))
            return
        except (ValueError, OSError):
            continue


def _send(fd: int, payload: bytes) -> None:
    data = struct.pack("!Q", len(payload)) + payload
    while data:
        n = os.write(fd, data)
        data = data[n:]


def _child(work: Callable[[], dict[str, Any]], result_w: int, err_w: int,
           max_memory: int | None, parent: int) -> None:
    code = 0
    try:
        die_with_parent(parent)
        tty = bool(getattr(sys.stderr, "isatty", lambda: False)())
        for stream in (sys.stderr, sys.stdout):
            try:
                if stream is not None:
                    stream.flush()
            except (OSError, ValueError):
                pass
        # the child's stdout too: FLINT prints its abort message there, and the parent
        # alone writes the command's output (nothing half-written on a kill)
        os.dup2(err_w, 1)
        os.dup2(err_w, 2)
        sys.stderr = _TtyAs(sys.stderr, tty)
        _set_memory_limit(max_memory)
        outcome = work()
        _send(result_w, json.dumps(outcome).encode("utf-8"))
    except BaseException:  # an internal error: the traceback Python would have printed
        code = 1
        try:
            traceback.print_exc()
            sys.stderr.flush()
        except BaseException:  # noqa: B036 - nothing may stop the os._exit below
            pass
    finally:
        os._exit(code)


def run_isolated(work: Callable[[], dict[str, Any]], seconds: float | None,
                 max_memory: int | None, prog: str,
                 limit_text: str | None = None) -> dict[str, Any]:
    """``work()`` (which returns a JSON-able outcome) computed in a child process; the
    outcome, or, when the child is killed at the deadline or dies, an outcome
    ``{"lines": [one line], "code": 1}`` saying so.  ``limit_text`` is the ``--timeout``
    as the user wrote it (for the message)."""
    result_r, result_w = os.pipe()
    err_r, err_w = os.pipe()
    for stream in (sys.stdout, sys.stderr):  # None when Python started with it closed
        try:
            if stream is not None:
                stream.flush()
        except (OSError, ValueError):
            pass
    parent = os.getpid()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child ends in os._exit (coverage cannot see it)
        os.close(result_r)
        os.close(err_r)
        _child(work, result_w, err_w, max_memory, parent)
    os.close(result_w)
    os.close(err_w)
    kill_at = None if seconds is None else time.monotonic() + seconds * (1 + GRACE[0]) \
        + GRACE[1]
    previous = _forward_termination(pid)
    try:
        payload, flint_abort, timed_out = _collect(result_r, err_r, kill_at, pid)
    except KeyboardInterrupt:
        _kill(pid)
        return {"lines": [f"{prog}: interrupted"], "code": 130}
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
        os.close(result_r)
        os.close(err_r)
    _pid, status = os.waitpid(pid, 0)
    if payload is not None:
        out: dict[str, Any] = json.loads(payload.decode("utf-8"))
        return out
    shown = limit_text if limit_text is not None else seconds
    if timed_out:
        return {"lines": [f"{prog}: undecided: time limit of {shown} s reached (the "
                          "computation was stopped; nothing was certified or written; "
                          "raise --timeout)"], "code": 1}
    if os.WIFSIGNALED(status):
        sig = os.WTERMSIG(status)
        if flint_abort or sig == signal.SIGKILL:
            return {"lines": [f"{prog}: undecided: out of memory: the memory budget of "
                              f"{_gb(max_memory)} was reached (nothing was certified or "
                              "written; raise --max-memory)"], "code": 1}
        name = signal.Signals(sig).name if sig in signal.Signals.__members__.values() \
            else str(sig)
        return {"lines": [f"{prog}: undecided: the computation ended on signal {name} "
                          "(nothing was certified or written; please report this)"],
                "code": 1}
    return {"lines": [], "code": os.WEXITSTATUS(status) or 1}


def _gb(n: int | None) -> str:
    # deferred: budget is light, but this module is imported by the CLI before any command
    from ..budget import format_bytes

    return "unknown" if n is None else format_bytes(n)


def _collect(result_r: int, err_r: int, kill_at: float | None,
             pid: int) -> tuple[bytes | None, bool, bool]:
    """Read the child's outcome and copy its stderr until the outcome pipe closes (the
    child has ended), or kill the child at ``kill_at``.  Returns (outcome bytes or None,
    FLINT aborted, killed at the deadline).  Processes the child started may hold its
    stderr open after it ends, so that pipe is only drained briefly at the end."""
    sel = selectors.DefaultSelector()
    sel.register(result_r, selectors.EVENT_READ, "result")
    sel.register(err_r, selectors.EVENT_READ, "err")
    buf = bytearray()
    state = {"abort": False}
    result_open, err_open = True, True
    drain_until = None
    try:
        while result_open or (err_open and time.monotonic() < (drain_until or 0)):
            now = time.monotonic()
            if result_open and kill_at is not None and now >= kill_at:
                _kill(pid)
                return None, state["abort"], True
            wait = None if kill_at is None or not result_open else kill_at - now
            if not result_open:
                wait = max((drain_until or now) - now, 0)
            for key, _ in sel.select(wait):
                chunk = os.read(key.fd, 1 << 16)
                if key.data == "result":
                    if chunk:
                        buf += chunk
                    else:
                        result_open = False
                        sel.unregister(key.fd)
                        drain_until = time.monotonic() + 0.2
                elif chunk:
                    _copy_err(chunk, state)
                else:
                    err_open = False
                    sel.unregister(key.fd)
    finally:
        sel.close()
    if len(buf) >= 8:
        (n,) = struct.unpack("!Q", bytes(buf[:8]))
        if len(buf) - 8 == n:
            return bytes(buf[8:]), state["abort"], False
    return None, state["abort"], False


def _copy_err(chunk: bytes, state: dict[str, bool]) -> None:
    """Copy the child's stderr, from FLINT's or GMP's abort message on dropped (the parent
    says what happened in one line instead)."""
    if state["abort"]:
        return
    cuts = [i for i in (chunk.find(m) for m in _ALLOC_ABORTS) if i >= 0]
    if cuts:
        state["abort"] = True
        chunk = chunk[:min(cuts)]
    if chunk:
        _write_err(chunk)


def _write_err(chunk: bytes) -> None:
    stream = sys.stderr
    if stream is None:  # closed at start-up and not reopened (an embedding program)
        return
    try:
        binary = getattr(stream, "buffer", None)
        if binary is not None:
            stream.flush()
            binary.write(chunk)
            binary.flush()
        else:
            stream.write(chunk.decode("utf-8", "replace"))
            stream.flush()
    except (OSError, ValueError):
        pass


def _kill(pid: int) -> None:
    try:
        os.kill(pid, signal.SIGKILL)
    except OSError:
        pass


def _forward_termination(pid: int) -> dict[int, Any]:
    """SIGTERM / SIGHUP to the parent also end the child (it would run on, orphaned)."""
    previous: dict[int, Any] = {}

    def handler(signum: int, frame: object) -> None:
        _kill(pid)
        signal.signal(signum, signal.SIG_DFL)
        os.kill(os.getpid(), signum)

    for sig in (signal.SIGTERM, getattr(signal, "SIGHUP", None)):
        if sig is None:
            continue
        try:
            previous[sig] = signal.signal(sig, handler)
        except (ValueError, OSError):  # not the main thread
            pass
    return previous


def stdout_buffer() -> IO[bytes] | None:
    """An unlinked temporary file (in ``$TMPDIR``) for the JSON document the child
    writes for standard output, or None when none can be made (the document then
    travels in the outcome)."""
    import tempfile  # deferred: only --json / --out - need it (tempfile loads random, hashlib)

    try:
        return tempfile.TemporaryFile(prefix="dpverify-stdout-")
    except OSError:
        return None


def fill_buffer(buffer: IO[bytes], chunks: Iterable[str]) -> None:
    """Write ``chunks`` (UTF-8) to ``buffer`` from its start (the child's side); an
    ``OSError`` (a full disk) names ``$TMPDIR`` and ``--out FILE``."""
    try:
        buffer.seek(0)
        buffer.truncate()
        for chunk in chunks:
            buffer.write(chunk.encode("utf-8"))
        buffer.flush()
    except OSError as exc:
        import tempfile  # deferred: as stdout_buffer

        raise OSError(f"cannot hold the JSON document for standard output in "
                      f"{tempfile.gettempdir()}: {exc.strerror or exc} (set TMPDIR, or "
                      "write it with --out FILE)") from None


def copy_buffer(buffer: IO[bytes], stream: Any) -> None:
    """Copy ``buffer`` from its start to the text ``stream`` (its binary side when it has
    one), in blocks: the parent never holds the document."""
    buffer.seek(0)
    stream.flush()
    binary = getattr(stream, "buffer", None)
    if binary is not None:
        shutil.copyfileobj(buffer, binary, 1 << 20)
        binary.flush()
    else:  # a text-only stream (tests capture stdout with io.StringIO)
        while block := buffer.read(1 << 20):
            stream.write(block.decode("utf-8", "surrogateescape"))
        stream.flush()
