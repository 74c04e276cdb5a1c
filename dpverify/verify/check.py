"""Entry points: a parsed document, bytes or a file in; a :class:`Report` out.

``verify_document`` validates the schema, reads every number exactly (Malformed on
anything structural), then runs the checks of the certificate's kind.  Apart from
Malformed (and the argument errors) it never raises: a deadline gives an undecided "time
limit" check, a computation over the memory budget an undecided check, an unexpected
exception an undecided check naming where it happened.  ``info`` is never read beyond
printing it: nothing in it can change a verdict.  With a deadline, the whole job (reading
the file included) runs in a child process killed at the deadline (:mod:`bounded`).
"""

from __future__ import annotations

import json
import math
import os
import time
from collections.abc import Callable
from numbers import Real
from typing import Any

from .bounded import available, run_bounded
from .box import verify_box
from .evalbound import verify_evalbound
from .finite import verify_finite
from .float_error import verify_float_error
from .jackson import verify_jackson
from .lebesgue import verify_lebesgue
from .load import LongInt, parse_bytes, size_cap, too_large, validate
from .minimax import verify_minimax
from .numbers import budget_for, digit_budget, expect_keys
from .report import (
    ArgumentTypeError,
    ArgumentValueError,
    Checks,
    Malformed,
    Report,
    TimeUp,
    TooExpensive,
    budgets,
    default_memory,
    one_line,
)
from .roundoff import verify_roundoff

__all__ = ["KINDS", "info_lines", "verify_document", "verify_bytes", "verify_file", "read_file"]

KINDS = {"supnorm-finite": verify_finite, "supnorm-box": verify_box,
         "jackson-kernel": verify_jackson, "lebesgue-constant": verify_lebesgue,
         "minimax": verify_minimax, "evalbound": verify_evalbound,
         "float-error": verify_float_error, "roundoff": verify_roundoff}


def _info_text(value: Any) -> str:
    """``value`` as one line of JSON; anything that is not JSON (a Python object, an
    integer beyond the digit limit of ``str(int)``) is named, never an error."""
    if isinstance(value, str):
        return value
    if isinstance(value, LongInt):
        return value.text

    def other(v: object) -> str:
        return v.text if isinstance(v, LongInt) else f"<{type(v).__name__}>"

    try:
        return json.dumps(value, ensure_ascii=False, default=other)
    except (TypeError, ValueError, RecursionError) as exc:
        return f"<not shown: {one_line(exc, 60)}>"


def info_lines(info: Any) -> list[str]:
    """One line per key of ``info``: what the certificate says but nobody checked.  Never
    raises: ``info`` cannot change a verdict."""
    if not isinstance(info, dict):
        return []
    return [one_line(f"info.{_info_text(key)}: {_info_text(value)}", 100)
            for key, value in info.items()]


def _deadline(value: object) -> float | None:
    """``deadline_seconds`` checked: None, or a real number (not a bool) that is finite
    and >= 0 (0: the deadline has already passed, every check is cut short: "time limit")."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, Real):
        raise ArgumentTypeError(f"deadline_seconds must be a real number of seconds or None, "
                                f"got {type(value).__name__}")
    try:
        seconds = float(value)
    except (OverflowError, ValueError):  # an int or Fraction beyond the float range
        raise ArgumentValueError("deadline_seconds must be finite and >= 0, got a number "
                                 "beyond the float range") from None
    if not (math.isfinite(seconds) and seconds >= 0):
        raise ArgumentValueError(f"deadline_seconds must be finite and >= 0, got {value!r}")
    return seconds


def _memory(value: object) -> int:
    """``max_memory`` checked: None (the default budget) or an int of bytes >= 2^20."""
    if value is None:
        return default_memory()
    if isinstance(value, bool) or not isinstance(value, int):
        raise ArgumentTypeError(f"max_memory must be an int (bytes) or None, "
                                f"got {type(value).__name__}")
    if value < 2**20:
        raise ArgumentValueError("max_memory must be at least 2^20 bytes (1 MiB)")
    return value


def _size(obj: Any) -> int:
    """The length of ``obj`` without its ``info`` as compact JSON (its digit budget when no
    file size is known: ``info`` is never read, so it cannot change the budget); 0 if it
    is not JSON-serialisable (the schema then rejects it)."""
    if isinstance(obj, dict):
        obj = {k: v for k, v in obj.items() if k != "info"}
    try:
        return len(json.dumps(obj, ensure_ascii=False, separators=(",", ":")))
    except (TypeError, ValueError, RecursionError):
        return 0


def _kind(obj: Any) -> str:
    kind = obj.get("kind") if isinstance(obj, dict) else None
    return kind if isinstance(kind, str) and kind in KINDS else "?"


def _bounded(job: Callable[[float | None], Report], seconds: float | None, memory: int,
             kind: str) -> Report:
    """``job(deadline)`` (``deadline``: a ``time.monotonic()`` value, or None) under the
    budgets: in a child process killed at the deadline when there is one
    (:mod:`bounded`), else in this process."""
    at = None if seconds is None else time.monotonic() + seconds
    if seconds is None or not available():
        return job(at)
    return run_bounded(lambda: job(at), seconds, memory, kind)


def verify_document(obj: Any, *, deadline_seconds: float | None = None,
                    max_memory: int | None = None) -> Report:
    """Check a parsed certificate; raises only Malformed (and ArgumentTypeError /
    ArgumentValueError for a bad ``deadline_seconds`` or ``max_memory``).  The numbers
    may expand to at most ``budget_for(size)`` digits, ``size`` being the length of
    ``obj`` without ``info`` as compact JSON.

    ``deadline_seconds``: the call returns within ``1.05 deadline_seconds + 0.5`` s (plus
    the time to start and stop a process): past the deadline the checks left are
    undecided ("time limit").  ``max_memory``: the memory budget in bytes (default: half
    the machine's memory); a computation that would exceed it is undecided.  With a
    deadline the check runs in a child process that enforces both (module
    :mod:`dpverify.verify.bounded`).

    Examples
    --------
    The OR polynomial on 2 bits with ``gamma = 1/2`` is ``p(x) = 2x/3``; its errors at
    ``x = 0, 1, 2`` are ``0, 1/3, 1/3``, so the statement ``sup |f - p| = 1/3`` holds, and
    a copy that claims ``1/4`` is caught:

    >>> import copy
    >>> from dpverify.certify import certify
    >>> from dpverify.constructions.chebyshev import or_polynomial
    >>> doc = certify(or_polynomial(2, "1/2")).data
    >>> doc["statement"]["polynomial"]["coefficients"], doc["statement"]["error"]["upper"]
    (['0', '2/3'], '1/3')
    >>> verify_document(doc).status
    'holds'
    >>> forged = copy.deepcopy(doc)
    >>> forged["statement"]["error"]["upper"] = "1/4"
    >>> report = verify_document(forged)
    >>> report.status, report.exit_code
    ('fails', 1)
    >>> [name for name, ok, _ in report.checks if ok is False]
    ['0 <= lower <= upper', 'upper_decimal', 'sup |f - p| <= upper']
    """
    seconds, memory = _deadline(deadline_seconds), _memory(max_memory)
    return _bounded(lambda at: _verify(obj, at, None, memory), seconds, memory, _kind(obj))


def _verify(obj: Any, deadline: float | None, size: int | None, memory: int) -> Report:
    try:
        validate(obj)
        expect_keys(obj, "document", ("schema_version", "format", "kind", "statement"),
                    ("evidence", "info"))
        if type(obj["schema_version"]) is not int or obj["schema_version"] != 1 or \
                obj["format"] != "dpverify-certificate" or obj["kind"] not in KINDS or \
                not isinstance(obj.get("info", {}), dict):
            raise Malformed("not a dpverify certificate of format version 1")
        kind = obj["kind"]
        left = None if deadline is None else max(0.0, deadline - time.monotonic())
        ck = Checks(left, max_memory=memory)
        words: list[str] = []
        ck.kind, ck.words = kind, words
        with digit_budget(budget_for(_size(obj) if size is None else size)), budgets(ck):
            try:
                KINDS[kind](obj["statement"], obj.get("evidence"), ck, words)
            except TimeUp:
                ck.add("time limit", None, "the deadline passed (raise with --timeout or "
                       "deadline_seconds)")
            except TooExpensive as exc:
                ck.add("budget", None, str(exc))
            except MemoryError:
                ck.add("memory budget", None, "out of memory (raise with --max-memory or "
                       "max_memory)")
        return Report(ck.status(), kind, words, ck.items, info_lines(obj.get("info")))
    except Malformed:
        raise
    except RecursionError:
        raise Malformed("document too deeply nested") from None
    except Exception as exc:  # a bug: report it as undecided, never as a traceback
        return Report("undecided", _kind(obj), [], [(
            "internal error", None, one_line(f"{type(exc).__name__}: {exc}"))], [])


def verify_bytes(data: bytes, *, deadline_seconds: float | None = None,
                 max_memory: int | None = None, max_bytes: int | None = None) -> Report:
    """Check the bytes of a certificate file (``data`` must be ``bytes``, ``bytearray``
    or ``memoryview``; not ``str``); budgets as for :func:`verify_document`;
    ``max_bytes``: the size cap (default :data:`~dpverify.verify.load.MAX_BYTES`,
    256 MiB).

    Examples
    --------
    ``fl(x + 1)`` on ``[0, 1]`` errs by at most half an ulp of ``[1, 2)``, ``2^-53``; the
    certificate of that bound, as the bytes of its file, with a deadline of 60 s:

    >>> from dpverify import evalbound
    >>> text = evalbound([1, 1], (0, 1)).certificate().to_json()
    >>> verify_bytes(text.encode(), deadline_seconds=60).status
    'holds'
    >>> verify_bytes(b"{}")
    Traceback (most recent call last):
    dpverify.verify.report.Malformed: schema: ...
    """
    if not isinstance(data, (bytes, bytearray, memoryview)):
        raise ArgumentTypeError(f"data must be bytes, got {type(data).__name__}")
    seconds, memory = _deadline(deadline_seconds), _memory(max_memory)
    cap = size_cap(max_bytes)
    if len(data) > cap:
        raise too_large(cap)
    raw = bytes(data)
    return _bounded(lambda at: _verify(parse_bytes(raw, cap), at, len(raw), memory), seconds,
                    memory, "?")


def verify_file(path: str | os.PathLike[str], *, deadline_seconds: float | None = None,
                max_memory: int | None = None, max_bytes: int | None = None) -> Report:
    """Check the certificate file at ``path`` (a ``str`` or ``os.PathLike``; not a file
    descriptor, not bytes); budgets as for :func:`verify_document` (reading the file
    counts against the deadline).  ``max_bytes``: the size cap (default
    :data:`~dpverify.verify.load.MAX_BYTES`, 256 MiB; raise it for a large certificate
    you trust to be one, e.g. an r-of-k polynomial at k = 200, about 0.5 GB: reading and
    checking it needs several times its size in memory).

    Examples
    --------
    The best quadratic approximation of ``|x|`` on ``[-1, 1]`` is ``x^2 + 1/8`` with
    error ``1/8``; its ``minimax`` certificate, saved and re-checked from the file:

    >>> import os, tempfile
    >>> from dpverify import minimax
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     path = os.path.join(folder, "abs2.json")
    ...     minimax("abs(x)", 2, (-1, 1)).save(path)
    ...     report = verify_file(path)
    >>> report.ok, report.kind
    (True, 'minimax')
    """
    if isinstance(path, bool) or not isinstance(path, (str, os.PathLike)):
        raise ArgumentTypeError(f"path must be a str or os.PathLike, got {type(path).__name__}")
    seconds, memory = _deadline(deadline_seconds), _memory(max_memory)
    cap = size_cap(max_bytes)
    try:
        name = os.fspath(path)
    except TypeError as exc:  # a PathLike whose __fspath__ returns something else
        raise ArgumentTypeError(f"path: {exc}") from None
    if not isinstance(name, str):
        raise ArgumentTypeError(f"path must name a file as str, got {type(name).__name__}")

    def job(at: float | None) -> Report:
        holder = [read_file(name, cap)]
        size = len(holder[0])
        # the bytes are handed over, not kept: a large file is not held while it is checked
        doc = parse_bytes(holder.pop(), cap)
        return _verify(doc, at, size, memory)

    return _bounded(job, seconds, memory, "?")


def read_file(name: str, max_bytes: int | None = None) -> bytes:
    """The bytes of the file ``name``; Malformed if it cannot be read or holds more than
    ``max_bytes`` (default :data:`~dpverify.verify.load.MAX_BYTES`) bytes (a regular file
    over the cap is refused before it is read)."""
    cap = size_cap(max_bytes)
    try:
        with open(name, "rb") as fh:
            size = os.fstat(fh.fileno()).st_size
            data = b"" if size > cap else fh.read(cap + 1)
    except (OSError, ValueError) as exc:
        raise Malformed(f"cannot read {name}: {one_line(getattr(exc, 'strerror', None) or exc)}") \
            from None
    if size > cap or len(data) > cap:
        raise too_large(cap)
    return data
