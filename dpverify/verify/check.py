"""Entry points: a parsed document, bytes or a file in; a :class:`Report` out.

``verify_document`` validates the schema, reads every number exactly (Malformed on
anything structural), then runs the checks of the certificate's kind.  Apart from
Malformed it never raises: a deadline gives an undecided "time limit" check, an
unexpected exception an undecided check naming where it happened.
"""

from __future__ import annotations

import json
import math
import os
from numbers import Real
from typing import Any

from .box import verify_box
from .evalbound import verify_evalbound
from .finite import verify_finite
from .float_error import verify_float_error
from .jackson import verify_jackson
from .lebesgue import verify_lebesgue
from .load import MAX_BYTES, parse_bytes, validate
from .minimax import verify_minimax
from .numbers import budget_for, digit_budget, expect_keys
from .report import (
    ArgumentTypeError,
    ArgumentValueError,
    Checks,
    Malformed,
    Report,
    TimeUp,
    one_line,
)

__all__ = ["KINDS", "info_lines", "verify_document", "verify_bytes", "verify_file"]

KINDS = {"supnorm-finite": verify_finite, "supnorm-box": verify_box,
         "jackson-kernel": verify_jackson, "lebesgue-constant": verify_lebesgue,
         "minimax": verify_minimax, "evalbound": verify_evalbound,
         "float-error": verify_float_error}


def info_lines(info: Any) -> list[str]:
    """One line per key of ``info``: what the certificate says but nobody checked."""
    if not isinstance(info, dict):
        return []
    out = []
    for key, value in info.items():
        text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
        out.append(one_line(f"info.{key}: {text}", 100))
    return out


def _deadline(value: object) -> float | None:
    """``deadline_seconds`` checked: None, or a real number (not a bool) that is finite
    and >= 0 (0: the deadline has already passed, every check is cut short: "time limit")."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, Real):
        raise ArgumentTypeError(f"deadline_seconds must be a real number of seconds or None, "
                                f"got {type(value).__name__}")
    seconds = float(value)
    if not (math.isfinite(seconds) and seconds >= 0):
        raise ArgumentValueError(f"deadline_seconds must be finite and >= 0, got {value!r}")
    return seconds


def _size(obj: Any) -> int:
    """The length of ``obj`` as compact JSON (its digit budget when no file size is
    known); 0 if it is not JSON-serialisable (the schema then rejects it)."""
    try:
        return len(json.dumps(obj, ensure_ascii=False, separators=(",", ":")))
    except (TypeError, ValueError, RecursionError):
        return 0


def verify_document(obj: Any, *, deadline_seconds: float | None = None) -> Report:
    """Check a parsed certificate; raises only Malformed (and ArgumentTypeError /
    ArgumentValueError for a bad ``deadline_seconds``).  The numbers may expand to at most
    ``budget_for(size)`` digits, ``size`` being the length of ``obj`` as compact JSON."""
    return _verify(obj, _deadline(deadline_seconds), None)


def _verify(obj: Any, deadline_seconds: float | None, size: int | None) -> Report:
    try:
        validate(obj)
        expect_keys(obj, "document", ("schema_version", "format", "kind", "statement"),
                    ("evidence", "info"))
        if type(obj["schema_version"]) is not int or obj["schema_version"] != 1 or \
                obj["format"] != "dpverify-certificate" or obj["kind"] not in KINDS or \
                not isinstance(obj.get("info", {}), dict):
            raise Malformed("not a dpverify certificate of format version 1")
        kind = obj["kind"]
        ck = Checks(deadline_seconds)
        words: list[str] = []
        with digit_budget(budget_for(_size(obj) if size is None else size)):
            try:
                KINDS[kind](obj["statement"], obj.get("evidence"), ck, words)
            except TimeUp:
                ck.add("time limit", None, f"the deadline of {deadline_seconds} s passed")
        return Report(ck.status(), kind, words, ck.items, info_lines(obj.get("info")))
    except Malformed:
        raise
    except RecursionError:
        raise Malformed("document too deeply nested") from None
    except Exception as exc:  # a bug: report it as undecided, never as a traceback
        kind = obj.get("kind", "?") if isinstance(obj, dict) else "?"
        return Report("undecided", str(kind), [], [(
            "internal error", None, one_line(f"{type(exc).__name__}: {exc}"))], [])


def verify_bytes(data: bytes, *, deadline_seconds: float | None = None) -> Report:
    """Check the bytes of a certificate file (``data`` must be ``bytes``, ``bytearray``
    or ``memoryview``; not ``str``)."""
    if not isinstance(data, (bytes, bytearray, memoryview)):
        raise ArgumentTypeError(f"data must be bytes, got {type(data).__name__}")
    seconds = _deadline(deadline_seconds)
    raw = bytes(data)
    return _verify(parse_bytes(raw), seconds, len(raw))


def verify_file(path: str | os.PathLike[str], *,
                deadline_seconds: float | None = None) -> Report:
    """Check the certificate file at ``path`` (a ``str`` or ``os.PathLike``; not a file
    descriptor, not bytes)."""
    if isinstance(path, bool) or not isinstance(path, (str, os.PathLike)):
        raise ArgumentTypeError(f"path must be a str or os.PathLike, got {type(path).__name__}")
    seconds = _deadline(deadline_seconds)
    try:
        name = os.fspath(path)
    except TypeError as exc:  # a PathLike whose __fspath__ returns something else
        raise ArgumentTypeError(f"path: {exc}") from None
    if not isinstance(name, str):
        raise ArgumentTypeError(f"path must name a file as str, got {type(name).__name__}")
    try:
        with open(name, "rb") as fh:
            data = fh.read(MAX_BYTES + 1)
    except (OSError, ValueError) as exc:
        raise Malformed(f"cannot read {name}: {one_line(getattr(exc, 'strerror', None) or exc)}") \
            from None
    return verify_bytes(data, deadline_seconds=seconds)
