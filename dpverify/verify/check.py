"""Entry points: a parsed document, bytes or a file in; a :class:`Report` out.

``verify_document`` validates the schema, reads every number exactly (Malformed on
anything structural), then runs the checks of the certificate's kind.  Apart from
Malformed it never raises: a deadline gives an undecided "time limit" check, an
unexpected exception an undecided check naming where it happened.
"""

from __future__ import annotations

import json
from typing import Any

from .box import verify_box
from .finite import verify_finite
from .jackson import verify_jackson
from .lebesgue import verify_lebesgue
from .load import MAX_BYTES, parse_bytes, validate
from .minimax import verify_minimax
from .numbers import expect_keys
from .report import Checks, Malformed, Report, TimeUp, one_line

__all__ = ["KINDS", "info_lines", "verify_document", "verify_bytes", "verify_file"]

KINDS = {"supnorm-finite": verify_finite, "supnorm-box": verify_box,
         "jackson-kernel": verify_jackson, "lebesgue-constant": verify_lebesgue,
         "minimax": verify_minimax}


def info_lines(info: Any) -> list[str]:
    """One line per key of ``info``: what the certificate says but nobody checked."""
    if not isinstance(info, dict):
        return []
    out = []
    for key, value in info.items():
        text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
        out.append(one_line(f"info.{key}: {text}", 100))
    return out


def verify_document(obj: Any, *, deadline_seconds: float | None = None) -> Report:
    """Check a parsed certificate; raises only Malformed."""
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


def verify_bytes(data: bytes, **kw: Any) -> Report:
    return verify_document(parse_bytes(bytes(data)), **kw)


def verify_file(path: str, **kw: Any) -> Report:
    try:
        with open(path, "rb") as fh:
            data = fh.read(MAX_BYTES + 1)
    except (OSError, ValueError) as exc:
        raise Malformed(f"cannot read {path}: {one_line(getattr(exc, 'strerror', None) or exc)}") \
            from None
    return verify_bytes(data, **kw)
