"""Atomic file writes: a reader sees the old file or the complete new one, never a part.

Every ``--out`` of the CLI and every ``save`` of the API goes through :func:`write_text`.
The text is written to a temporary file in the destination's directory, flushed and
``fsync``-ed, then moved over the destination with :func:`os.replace` (atomic on POSIX and
Windows when both are on the same file system, which the same directory guarantees).  A
run killed at any moment leaves the previous file intact and at most a stray
``.NAME.*.tmp`` file next to it.

A symbolic link is followed: the file it points to is replaced and the link stays.  A
destination that exists and is not a regular file (``/dev/null``, a FIFO, a terminal) is
written in place, since replacing it would swap a device for a file.
"""

from __future__ import annotations

import os
import stat
import tempfile
from collections.abc import Iterable
from typing import Any

from .errors import InvalidParameterError

__all__ = ["write_text", "write_bytes", "write_chunks"]


def write_text(path: str, text: str, *, what: str = "output") -> None:
    """Write ``text`` (UTF-8) to ``path`` atomically (see :func:`write_bytes`)."""
    write_bytes(path, text.encode("utf-8"), what=what)


def write_chunks(path: str, chunks: Iterable[str], *, what: str = "output") -> None:
    """Write the concatenation of ``chunks`` (UTF-8) to ``path`` atomically, one chunk at a
    time: a document of gigabytes (``json.JSONEncoder.iterencode``) is never held whole
    in memory.  As :func:`write_bytes` otherwise."""
    write_bytes(path, (c.encode("utf-8") for c in chunks), what=what)


def write_bytes(path: str, data: bytes | Iterable[bytes], *, what: str = "output") -> None:
    """Write ``data`` (bytes, or an iterable of byte chunks) to ``path`` atomically.

    Raises
    ------
    InvalidParameterError
        ``path`` is empty, a directory, or cannot be written (the message names ``what``
        and the path, and says why).
    """
    if not isinstance(path, (str, os.PathLike)):
        raise InvalidParameterError(f"{what} path must be a string, got {type(path).__name__}")
    path = os.fspath(path)
    if not path.strip():
        raise InvalidParameterError(f"{what} path is empty")
    if os.path.isdir(path):
        raise InvalidParameterError(f"{what} path {path!r} is a directory")
    shown = path
    path = os.path.realpath(path)  # a link stays a link: its target is replaced
    try:
        special = not stat.S_ISREG(os.stat(path).st_mode)
    except OSError:  # absent (or unreadable: the write below says why)
        special = False
    if special:
        _write_in_place(path, data, what, shown)
        return
    folder = os.path.dirname(path)
    try:
        fd, tmp = tempfile.mkstemp(
            prefix="." + os.path.basename(path) + ".", suffix=".tmp", dir=folder
        )
    except OSError as exc:
        raise InvalidParameterError(f"cannot write {what} {shown!r}: {exc.strerror}") from None
    try:
        # mkstemp creates the file 0600; give it the mode the destination has, or the
        # one a plain open() would give (0666 less the umask)
        os.chmod(tmp, _mode_for(path))
        with os.fdopen(fd, "wb") as fh:
            _put(fh, data)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except OSError as exc:
        _remove(tmp)
        raise InvalidParameterError(f"cannot write {what} {shown!r}: {exc.strerror}") from None
    except BaseException:
        _remove(tmp)
        raise
    try:  # make the rename itself durable
        dfd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(dfd)
    except OSError:
        pass
    finally:
        os.close(dfd)


def _put(fh: Any, data: bytes | Iterable[bytes]) -> None:
    if isinstance(data, (bytes, bytearray)):
        fh.write(data)
    else:
        for chunk in data:
            fh.write(chunk)


def _write_in_place(path: str, data: bytes | Iterable[bytes], what: str, shown: str) -> None:
    """A device, FIFO or socket: written through, as a shell redirection would."""
    try:
        with open(path, "wb") as fh:
            _put(fh, data)
    except OSError as exc:
        raise InvalidParameterError(f"cannot write {what} {shown!r}: {exc.strerror}") from None


def _mode_for(path: str) -> int:
    try:
        return os.stat(path).st_mode & 0o7777
    except OSError:
        umask = os.umask(0)
        os.umask(umask)
        return 0o666 & ~umask


def _remove(tmp: str) -> None:
    try:
        os.unlink(tmp)
    except OSError:
        pass
