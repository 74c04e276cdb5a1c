"""Atomic file writes: a reader sees the old file or the complete new one, never a part.

Every ``--out`` of the CLI and every ``save`` of the API goes through :func:`write_text`.
The text is written to a temporary file in the destination's directory, flushed and
``fsync``-ed, then moved over the destination with :func:`os.replace` (atomic on POSIX and
Windows when both are on the same file system, which the same directory guarantees).  A
run killed at any moment leaves the previous file intact.

Nothing is left behind either, even after ``kill -9``: on Linux the temporary file is
*unnamed* (``open(directory, O_TMPFILE)``: an inode with no name, which the kernel frees
when its last descriptor closes, however the process ends) and gets a name
(``linkat`` through ``/proc/self/fd``) only once complete, just before the rename.  Where
the file system or the system refuses that (no ``O_TMPFILE``, no ``/proc``), the
temporary file is a named ``.NAME.dpverify-RANDOM.tmp``; the writer holds an ``flock`` on
it, and every later write to the same directory removes the ones of that naming whose lock
is free (their writer is dead) and that are more than :data:`STALE_AFTER` seconds old.

A symbolic link is followed: the file it points to is replaced and the link stays.

Only regular files are written, with three exceptions: the null device (``/dev/null``;
written through, which discards the text: it never blocks and holds nothing to
corrupt), and any other existing non-regular file -- a FIFO, a terminal, a socket, a
device -- when the caller passes ``special=True`` (the CLI's ``--out-special``): then it is
written in place, as a shell redirection would (replacing it would swap a device for a
file), and writing a FIFO waits for its reader.  Without ``special`` such a destination
is refused before anything is written: a FIFO without a reader would block forever.

The temporary name is ``.NAME.dpverify-RANDOM.tmp`` with ``NAME`` cut so that the whole
name fits the file system's limit (a destination name of 245 bytes is legal; its temporary
name must be too).
"""

from __future__ import annotations

import os
import stat
import time
from collections.abc import Iterable
from typing import Any

from .errors import InvalidParameterError

__all__ = ["write_text", "write_bytes", "write_chunks", "check_destination", "file_kind",
           "NotRegularFile", "open_regular", "STALE_AFTER", "temporary_names"]

#: A named temporary file of a dead writer (its lock free) is removed by the next write to
#: its directory once it is this many seconds old (a live writer locks its file at once;
#: the age keeps a file another writer has just created, but not yet locked).
STALE_AFTER = 60.0

#: The temporary name: ``.`` + destination name + this + random + ``.tmp``.
_TAG = ".dpverify-"


def write_text(path: str, text: str, *, what: str = "output", special: bool = False) -> None:
    """Write ``text`` (UTF-8) to ``path`` atomically (see :func:`write_bytes`)."""
    write_bytes(path, text.encode("utf-8"), what=what, special=special)


def write_chunks(path: str, chunks: Iterable[str], *, what: str = "output",
                 special: bool = False) -> None:
    """Write the concatenation of ``chunks`` (UTF-8) to ``path`` atomically, one chunk at a
    time: a document of gigabytes (``json.JSONEncoder.iterencode``) is never held whole
    in memory.  As :func:`write_bytes` otherwise."""
    write_bytes(path, (c.encode("utf-8") for c in chunks), what=what, special=special)


def check_destination(path: Any, what: str = "output", special: bool = False) -> str:
    """``path`` (as a string) when :func:`write_bytes` may write it; else raise.

    Raises
    ------
    InvalidParameterError
        ``path`` is empty, names a directory (an existing one, or ends with ``/``), has a
        file name longer than the file system allows, or is an existing non-regular file
        other than the null device without ``special`` (the one-line message names
        ``what``, the path and the rule).
    """
    if not isinstance(path, (str, os.PathLike)):
        raise InvalidParameterError(f"{what} path must be a string, got {type(path).__name__}")
    path = os.fspath(path)
    if not path.strip():
        raise InvalidParameterError(f"{what} path is empty")
    if os.path.isdir(path) or path.endswith(("/", os.sep)):
        raise InvalidParameterError(
            f"{what} {path!r} is a directory path: give a file name")
    name = os.path.basename(path).encode("utf-8", "surrogateescape")
    limit = _name_max(os.path.dirname(os.path.abspath(path)))
    if len(name) > limit:
        raise InvalidParameterError(
            f"{what} {path[:40]!r}...: the file name is {len(name)} bytes long, more than "
            f"the {limit} the file system allows")
    kind = _special_kind(path)
    if kind is not None and not special and not _is_null_device(path):
        how = ("use '-' for standard output, or --out-special to write it in place"
               if what == "--out" else "or pass special=True to write it in place")
        raise InvalidParameterError(
            f"{what} {path!r} is {kind}, not a regular file: refused (writing it could "
            f"block or lose the result); write a regular file, {how}")
    return path


def write_bytes(path: str, data: bytes | Iterable[bytes], *, what: str = "output",
                special: bool = False) -> None:
    """Write ``data`` (bytes, or an iterable of byte chunks) to ``path`` atomically (a
    regular file) or, for the null device or with ``special=True`` an existing
    FIFO/device/socket, in place (module docstring).

    Raises
    ------
    InvalidParameterError
        ``path`` is refused by :func:`check_destination`, or cannot be written (the
        message names ``what`` and the path, and says why).
    """
    path = check_destination(path, what, special)
    shown = path
    path = os.path.realpath(path)  # a link stays a link: its target is replaced
    if _special_kind(path) is not None:
        _write_in_place(path, data, what, shown)
        return
    folder, base = os.path.split(path)
    _remove_stale(folder, base)
    try:
        fd, tmp = _open_temporary(folder, base)
    except OSError as exc:
        raise InvalidParameterError(f"cannot write {what} {shown!r}: {exc.strerror}") from None
    try:
        # the mode the destination has, or the one a plain open() would give (0666 less
        # the umask); the temporary file was created 0600
        mode = _mode_for(path)
        os.fchmod(fd, mode)
        with os.fdopen(fd, "wb") as fh:
            _put(fh, data)
            fh.flush()
            os.fsync(fh.fileno())
            if tmp is None:  # complete: name the unnamed file, then rename it
                tmp = _link(fh, folder, base, mode)
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


def temporary_names(folder: str, base: str) -> list[str]:
    """Names in ``folder`` of this module's named temporary files for destination
    ``base`` (``.BASE.dpverify-RANDOM.tmp``), live or stale."""
    prefix = "." + _cut(base, _name_max(folder) - 32) + _TAG
    try:
        names = os.listdir(folder)
    except OSError:
        return []
    return [n for n in names if n.startswith(prefix) and n.endswith(".tmp")
            and len(n) == len(prefix) + 16 + 4]


def _open_temporary(folder: str, base: str) -> tuple[int, str | None]:
    """A locked temporary file in ``folder``, open for writing: unnamed (``O_TMPFILE``,
    name None) where the system allows it and can name it later through ``/proc``; else a
    new ``.BASE.dpverify-RANDOM.tmp``."""
    flags = os.O_WRONLY | getattr(os, "O_CLOEXEC", 0)
    unnamed = getattr(os, "O_TMPFILE", 0)
    if unnamed:
        try:
            fd = os.open(folder, flags | unnamed, 0o600)
        except OSError:  # EOPNOTSUPP, EISDIR (old kernels), EINVAL: not on this one
            pass
        else:
            if os.path.exists(f"/proc/self/fd/{fd}"):
                _lock(fd)
                return fd, None
            os.close(fd)
    return _open_temporary_named(folder, base)


def _temporary_name(folder: str, base: str) -> str:
    return ("." + _cut(base, _name_max(folder) - 32) + _TAG + os.urandom(8).hex()
            + ".tmp")


def _link(fh: Any, folder: str, base: str, mode: int) -> str:
    """Give the unnamed file of ``fh`` a temporary name in ``folder`` (``linkat`` with
    ``AT_SYMLINK_FOLLOW`` on its ``/proc/self/fd`` link: os.link issues that call only
    with a directory descriptor); if the link is refused, copy its bytes to a named
    temporary file instead."""
    dfd = os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0)
                  | getattr(os, "O_CLOEXEC", 0))
    try:
        while True:
            name = _temporary_name(folder, base)
            try:
                os.link(f"/proc/self/fd/{fh.fileno()}", name, dst_dir_fd=dfd,
                        follow_symlinks=True)
                return os.path.join(folder, name)
            except FileExistsError:
                continue
            except OSError:
                break
    finally:
        os.close(dfd)
    fd, tmp_named = _open_temporary_named(folder, base)
    try:
        os.fchmod(fd, mode)
        with open(f"/proc/self/fd/{fh.fileno()}", "rb") as src, \
                os.fdopen(fd, "wb") as dst:
            while block := src.read(1 << 20):
                dst.write(block)
            dst.flush()
            os.fsync(dst.fileno())
    except BaseException:
        _remove(tmp_named)
        raise
    return tmp_named


def _open_temporary_named(folder: str, base: str) -> tuple[int, str]:
    """A new, locked ``.BASE.dpverify-RANDOM.tmp`` in ``folder``, open for writing."""
    while True:
        tmp = os.path.join(folder, _temporary_name(folder, base))
        try:
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL
                         | getattr(os, "O_CLOEXEC", 0), 0o600)
        except FileExistsError:
            continue
        _lock(fd)
        return fd, tmp


def _lock(fd: int) -> None:
    """An exclusive ``flock`` on ``fd``, held until the process ends (it is how a later
    write knows the writer is dead); nothing where the system has no ``flock``."""
    try:
        import fcntl  # deferred: POSIX only
    except ImportError:  # pragma: no cover
        return
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        pass


def _remove_stale(folder: str, base: str) -> None:
    """Remove the named temporary files of dead writers for ``base`` (module docstring):
    older than :data:`STALE_AFTER` and not locked."""
    try:
        import fcntl  # deferred: POSIX only
    except ImportError:  # pragma: no cover
        return
    now = time.time()
    for name in temporary_names(folder, base):
        tmp = os.path.join(folder, name)
        try:
            fd = os.open(tmp, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0)
                         | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
        except OSError:
            continue
        try:
            st = os.fstat(fd)
            if not stat.S_ISREG(st.st_mode) or now - st.st_mtime < STALE_AFTER:
                continue
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                continue  # a live writer holds it
            _remove(tmp)
        finally:
            os.close(fd)


def _put(fh: Any, data: bytes | Iterable[bytes]) -> None:
    if isinstance(data, (bytes, bytearray)):
        fh.write(data)
    else:
        for chunk in data:
            fh.write(chunk)


def _write_in_place(path: str, data: bytes | Iterable[bytes], what: str, shown: str) -> None:
    """The null device, or (asked for) a device, FIFO or socket: written through, as a
    shell redirection would."""
    try:
        with open(path, "wb") as fh:
            _put(fh, data)
    except OSError as exc:
        raise InvalidParameterError(f"cannot write {what} {shown!r}: {exc.strerror}") from None


def file_kind(mode: int) -> str | None:
    """What a file of ``st_mode`` ``mode`` is when it is not a regular file ("a FIFO",
    "a character device", ...); ``None`` for a regular file."""
    if stat.S_ISREG(mode):
        return None
    for test, kind in ((stat.S_ISFIFO, "a FIFO"), (stat.S_ISCHR, "a character device"),
                       (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket"),
                       (stat.S_ISDIR, "a directory")):
        if test(mode):
            return kind
    return "not a regular file"


class NotRegularFile(Exception):
    """Raised by :func:`open_regular`: ``mode`` is the ``st_mode`` of what was opened."""

    def __init__(self, mode: int) -> None:
        super().__init__(file_kind(mode))
        self.mode = mode


def open_regular(path: str | os.PathLike[str]) -> tuple[int, os.stat_result]:
    """A file descriptor (blocking, close-on-exec) of the regular file ``path`` for
    reading, with its ``fstat``.  The open never waits: ``O_NONBLOCK`` (a FIFO without a
    writer would stall it) and ``O_NOCTTY``; then anything but a regular file -- a FIFO,
    a device, a socket, also behind a symbolic link -- is refused with
    :class:`NotRegularFile` before a byte is read.  ``OSError`` when it cannot be opened.
    The caller closes the descriptor."""
    flags = (os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0)
             | getattr(os, "O_CLOEXEC", 0))
    fd = os.open(path, flags)
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise NotRegularFile(st.st_mode)
        os.set_blocking(fd, True)
    except BaseException:
        os.close(fd)
        raise
    return fd, st


def _special_kind(path: str) -> str | None:
    """:func:`file_kind` of an existing ``path``; ``None`` when it does not exist."""
    try:
        return file_kind(os.stat(path).st_mode)
    except OSError:  # absent (or unreadable: the write says why)
        return None


def _is_null_device(path: str) -> bool:
    try:
        return os.path.samefile(path, os.devnull)
    except OSError:
        return False


def _name_max(folder: str) -> int:
    """Longest file name (bytes) in ``folder``; 255 when the system does not say."""
    try:
        return int(os.pathconf(folder, "PC_NAME_MAX"))
    except (OSError, ValueError, AttributeError):
        return 255


def _cut(name: str, limit: int) -> str:
    """``name`` cut to at most ``limit`` bytes of UTF-8 (whole characters)."""
    raw = name.encode("utf-8", "surrogateescape")
    if len(raw) <= limit:
        return name
    return raw[:max(limit, 0)].decode("utf-8", "ignore")


def _mode_for(path: str) -> int:
    try:
        return os.stat(path).st_mode & 0o7777
    except OSError:
        umask = os.umask(0)
        os.umask(umask)
        return 0o666 & ~umask


def _remove(tmp: str | None) -> None:
    if tmp is None:
        return
    try:
        os.unlink(tmp)
    except OSError:
        pass
