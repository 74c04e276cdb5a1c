"""Certificates embedded in other documents: ``dpverify verify FILE --part NAME``.

A certificate of kind ``float-error`` carries two complete certificates in
``evidence.parts`` (``approximation``, ``evaluation``); a data document
(``"format": "dpverify-data"``) may carry certificates in a top-level ``parts`` object and
says in its ``verification`` field what it states and how to check it.  This module reads
such a file (a data document may hold JSON floats, so it is parsed without the
certificate's number rules, with the same size and depth caps), takes out one part and
checks it as a certificate of its own; the part itself meets every rule of the format.
For a data document the fields the part vouches for (:mod:`bindings`: the polynomial,
``k``, the error a release repeats) are compared with the part's statement, and the
verdict holds only when they agree.
"""

from __future__ import annotations

import json
import os
from typing import Any

from .bindings import bound_checks
from .check import verify_document
from .load import check_depth, size_cap, too_large, unique_keys
from .report import Malformed, Report, one_line, say

__all__ = ["parts_of", "read_any", "verify_part", "data_hint"]


def read_any(path: str | os.PathLike[str], max_bytes: int | None = None) -> Any:
    """The JSON document at ``path`` (a certificate or a data document); Malformed when it
    cannot be read, is over the caps (``max_bytes``: default 256 MiB) or is not JSON."""
    cap = size_cap(max_bytes)
    try:
        with open(os.fspath(path), "rb") as fh:
            data = fh.read(cap + 1)
    except (OSError, TypeError, ValueError) as exc:
        raise Malformed(f"cannot read {path}: {one_line(getattr(exc, 'strerror', None) or exc)}"
                        ) from None
    if len(data) > cap:
        raise too_large(cap)
    check_depth(data)
    try:
        return json.loads(data.decode("utf-8"), object_pairs_hook=unique_keys)
    except UnicodeDecodeError as exc:
        raise Malformed(f"not UTF-8 text (byte {exc.start})") from None
    except json.JSONDecodeError as exc:
        raise Malformed(f"not JSON: {exc.msg} at line {exc.lineno} column {exc.colno}") from None
    except RecursionError:
        raise Malformed("JSON nested too deeply") from None


def parts_of(doc: Any) -> dict[str, Any]:
    """The embedded certificates of ``doc`` by name (empty when it has none)."""
    if not isinstance(doc, dict):
        return {}
    if doc.get("format") == "dpverify-certificate":
        ev = doc.get("evidence")
        parts = ev.get("parts") if isinstance(ev, dict) else None
    else:
        parts = doc.get("parts")
    return dict(parts) if isinstance(parts, dict) else {}


def verify_part(path: str | os.PathLike[str], name: str, *,
                deadline_seconds: float | None = None,
                max_memory: int | None = None, max_bytes: int | None = None) -> Report:
    """Check the part ``name`` of the document at ``path`` as a certificate (budgets as
    for :func:`~dpverify.verify.check.verify_document`; ``max_bytes``: the size cap of
    the file)."""
    doc = read_any(path, max_bytes)
    parts = parts_of(doc)
    if name not in parts:
        have = ", ".join(sorted(str(k)[:40] for k in parts)) or "none"
        raise Malformed(f"no part {one_line(name, 60)!r} in this file (its parts: {have})")
    report = verify_document(parts[name], deadline_seconds=deadline_seconds,
                             max_memory=max_memory)
    if not (isinstance(doc, dict) and doc.get("format") == "dpverify-data"):
        return report  # a certificate's parts: its own check relates them to its statement
    try:
        size = os.path.getsize(os.fspath(path))
    except (OSError, TypeError, ValueError):
        size = 0
    lines, bound = bound_checks(doc, name, size)
    checks = report.checks + bound
    oks = [c[1] for c in checks]
    status = "fails" if False in oks else "undecided" if None in oks else "holds"
    return Report(status, report.kind, report.statement + [say(line) for line in lines],
                  checks, report.not_checked)


def data_hint(path: str | os.PathLike[str]) -> str:
    """For a data document: what its ``verification`` field says, or how to check its
    parts (empty when there is nothing to add)."""
    try:
        doc = read_any(path)
    except Malformed:
        return ""
    parts = parts_of(doc)
    how = doc.get("verification") if isinstance(doc, dict) else None
    text = how.get("how") if isinstance(how, dict) else None
    out = []
    if parts:
        names = ", ".join(sorted(str(k)[:40] for k in parts))
        out.append(f"it embeds certificates: dpverify verify {os.fspath(path)} --part NAME "
                   f"(NAME: {names})")
    if isinstance(text, str):
        out.append(one_line(text, 600))
    return "; ".join(out)
