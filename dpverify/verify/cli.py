"""``python -m dpverify.verify CERT.json [--part NAME] [--json] [--progress|--no-progress]
[--timeout SECONDS] [--max-memory SIZE] [--max-size SIZE]``: print the verdict; exit 0 / 1
/ 2.  ``--max-size`` raises the size cap of the file (default 256M).
``--part NAME`` checks a certificate embedded in the file (:mod:`.parts`).

Exit codes: 0 the statement holds; 1 it does not hold or is undecided; 2 malformed
(one line on stderr); 130 interrupted.  Never a traceback.  A progress line goes to stderr
when stderr is a terminal (``--progress``: always; ``--no-progress``: never).
"""

from __future__ import annotations

import json
import sys
from contextlib import nullcontext
from typing import Any, TextIO

from .bounded import deadline_within, limit_named
from .check import verify_file
from .load import DATA_FILE, MAX_BYTES_LIMIT
from .parts import data_hint, verify_part
from .progress import Line
from .report import ArgumentValueError, Malformed, Report, escape, one_line, reporting

__all__ = ["render_text", "render_json", "main", "verify_with_progress", "parse_memory",
           "parse_size_cap"]

_MARK = {True: "ok", False: "FAIL", None: "undecided"}


def render_text(report: Report, path: str) -> str:
    """The text report that ``dpverify verify`` prints: the certificate's ``path`` (as
    given: only shown), its kind, the statement, every check, what was not checked, and a
    last line ``HOLDS``, ``DOES NOT HOLD: reason`` or ``UNDECIDED: reason``.
    Non-printable characters are escaped (:func:`report.escape`).

    Examples
    --------
    >>> from dpverify.certify import certify
    >>> from dpverify.constructions.chebyshev import or_polynomial
    >>> from dpverify.verify import verify_document
    >>> report = verify_document(certify(or_polynomial(2, "1/2")).data)
    >>> lines = render_text(report, "or.json").splitlines()
    >>> lines[:2], lines[-1]
    (['certificate: or.json', 'kind: supnorm-finite'], 'HOLDS')
    """
    lines = [f"certificate: {path}", f"kind: {report.kind}", "statement:"]
    # the display form of each line: long numbers and texts shortened, and marked so
    lines += [f"  {getattr(s, 'short', s)}" for s in report.statement]
    lines.append("checks:")
    lines += [f"  {_MARK[ok]:9} {name}: {detail}" for name, ok, detail in report.checks]
    if report.not_checked:
        lines.append("not checked (info):")
        lines += [f"  {s}" for s in report.not_checked]
    lines.append("HOLDS" if report.ok else ("DOES NOT HOLD: " if report.status == "fails"
                                            else "UNDECIDED: ") + report.reason)
    # every line may hold text from the certificate (info, expressions, names): no
    # control character, bidi override or other non-printable character reaches the terminal
    return "\n".join(escape(line) for line in lines)


def render_json(report: Report, path: str) -> dict[str, Any]:
    """The JSON report that ``dpverify verify --json`` prints (as a dict): ``certificate``
    (the ``path`` given), ``status``, ``kind``, ``statement`` (the full text of every
    line, never shortened), ``checks`` (``check``, ``ok``: true, false or null for
    undecided, ``detail``) and ``not_checked``.

    Examples
    --------
    >>> from dpverify.certify import certify
    >>> from dpverify.constructions.chebyshev import or_polynomial
    >>> from dpverify.verify import verify_document
    >>> report = verify_document(certify(or_polynomial(2, "1/2")).data)
    >>> out = render_json(report, "or.json")
    >>> out["status"], all(c["ok"] is True for c in out["checks"])
    ('holds', True)
    >>> len(out["checks"]) == len(report.checks)
    True
    """
    return {"certificate": path, "status": report.status, "kind": report.kind,
            "statement": [str(line) for line in report.statement],
            "checks": [{"check": n, "ok": ok, "detail": d} for n, ok, d in report.checks],
            "not_checked": list(report.not_checked)}


def _seconds(text: str) -> float:
    """``--timeout``: a decimal number of seconds in (0, 10^6]."""
    try:
        seconds = float(text) if text.strip().isascii() else float("nan")
    except ValueError:
        seconds = float("nan")
    if not 0 < seconds <= 10**6:
        raise Malformed(f"--timeout must be a number of seconds in (0, 1000000], "
                        f"got {text[:40]!r}")
    return deadline_within(seconds)


def _write(stream: TextIO, text: str) -> None:
    enc = getattr(stream, "encoding", None) or "utf-8"
    stream.write(text.encode(enc, "backslashreplace").decode(enc, "replace") + "\n")
    stream.flush()


def verify_with_progress(path: str, enabled: bool | None,
                         deadline_seconds: float | None = None,
                         max_memory: int | None = None, part: str | None = None,
                         max_bytes: int | None = None) -> Report:
    """:func:`~dpverify.verify.check.verify_file` (or, with ``part``,
    :func:`~dpverify.verify.parts.verify_part`) with a progress line on stderr
    (``enabled``: True always, False never, None only when stderr is a terminal)."""
    with Line("dpverify verify", enabled=enabled) as line, reporting(line):
        line("checking", 0, None)
        if part is not None:
            return verify_part(path, part, deadline_seconds=deadline_seconds,
                               max_memory=max_memory, max_bytes=max_bytes)
        try:
            return verify_file(path, deadline_seconds=deadline_seconds, max_memory=max_memory,
                               max_bytes=max_bytes)
        except Malformed as exc:
            hint = data_hint(path) if str(exc) == DATA_FILE else ""
            if hint:
                raise Malformed(f"{exc}; {hint}") from None
            raise


_UNITS = {"": 1, "K": 2**10, "M": 2**20, "G": 2**30, "T": 2**40}


def parse_memory(text: str, lo: int = 2**20, hi: int = 2**60) -> int:
    """A memory size: an integer number of bytes, or with a suffix K, M, G or T (powers of
    1024, optionally followed by ``B`` or ``iB``): ``4G`` is 4 GiB.  ArgumentValueError
    otherwise (at least ``lo``, default 1 MiB, at most ``hi``, default 2^60 bytes)."""
    t = text.strip().upper().removesuffix("IB").removesuffix("B")
    unit = t[-1:] if t[-1:] in _UNITS else ""
    digits = t[: len(t) - len(unit)].strip()
    if not digits.isascii() or not digits.isdigit() or len(digits) > 20:
        raise ArgumentValueError(f"expected a size such as 4G or 512M, got {text[:40]!r}")
    size = int(digits) * _UNITS[unit]
    if not lo <= size <= hi:
        raise ArgumentValueError(f"must be between {_size_text(lo)} and {_size_text(hi)}, "
                                 f"got {text[:40]!r}")
    return size


def _size_text(n: int) -> str:
    for unit in ("T", "G", "M", "K"):
        if n >= _UNITS[unit] and n % _UNITS[unit] == 0:
            return f"{n // _UNITS[unit]}{unit}"
    return f"2^{n.bit_length() - 1}" if n & (n - 1) == 0 else str(n)


def parse_size_cap(text: str) -> int:
    """``--max-size``: the size cap of the certificate file (1K .. 1T)."""
    try:
        return parse_memory(text, 2**10, MAX_BYTES_LIMIT)
    except ArgumentValueError as exc:
        raise Malformed(f"--max-size: {exc}") from None


_USAGE = ("usage: python -m dpverify.verify CERT.json [--part NAME] [--json] "
          "[--progress | --no-progress] [--timeout SECONDS] [--max-memory SIZE] "
          "[--max-size SIZE]")


def _take(args: list[str], flag: str) -> str | None:
    """Remove ``flag VALUE`` or ``flag=VALUE`` from ``args`` and return VALUE."""
    for i, a in enumerate(args):
        if a == flag:
            if i + 1 >= len(args):
                raise Malformed(_USAGE)
            value = args[i + 1]
            del args[i:i + 2]
            return value
        if a.startswith(flag + "="):
            del args[i]
            return a[len(flag) + 1:]
    return None


def main(argv: list[str] | None = None) -> int:
    """The program ``python -m dpverify.verify CERT.json [--part NAME] [--json]
    [--progress | --no-progress] [--timeout SECONDS] [--max-memory SIZE]`` (the same
    checker as ``dpverify verify``, without the rest of dpverify): print the report on
    standard output (:func:`render_text`, or :func:`render_json` with ``--json``) and
    return the exit code: 0 the statement holds, 1 it does not hold or is undecided, 2
    malformed input or arguments (one line on standard error), 130 interrupted.  Never a
    traceback.  ``argv`` defaults to ``sys.argv[1:]``; without ``--timeout`` there is no
    deadline.

    Examples
    --------
    ``fl(x + 1)`` on ``[0, 1]`` errs by at most ``2^-53`` (half an ulp of ``[1, 2)``):

    >>> import os, tempfile
    >>> from dpverify import evalbound
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     path = os.path.join(folder, "eb.json")
    ...     evalbound([1, 1], (0, 1)).certificate().save(path)
    ...     code = main([path, "--timeout", "60"])  # doctest: +ELLIPSIS
    certificate: .../eb.json
    kind: evalbound
    ...
    HOLDS
    >>> code
    0
    """
    args = list(sys.argv[1:] if argv is None else argv)
    flags = {"--json", "--progress", "--no-progress"}
    as_json = "--json" in args
    progress = None if "--progress" not in args and "--no-progress" not in args \
        else "--no-progress" not in args
    try:
        timeout, memory = _take(args, "--timeout"), _take(args, "--max-memory")
        size = _take(args, "--max-size")
        part = _take(args, "--part")
        rest = [a for a in args if a not in flags]
        if len(rest) != 1 or rest[0].startswith("-") or part == "" or \
                ("--progress" in args and "--no-progress" in args):
            raise Malformed(_USAGE)
        seconds = None if timeout is None else _seconds(timeout)
        try:
            max_memory = None if memory is None else parse_memory(memory)
        except ArgumentValueError as exc:
            raise Malformed(f"--max-memory: {exc}") from None
        max_bytes = None if size is None else parse_size_cap(size)
        # a child stopped at the deadline names --timeout as given (not deadline_within's
        # share of it)
        with limit_named(timeout.strip()[:40], "--timeout") if timeout is not None \
                else nullcontext():
            report = verify_with_progress(rest[0], progress, seconds, max_memory, part=part,
                                          max_bytes=max_bytes)
        label = rest[0] if part is None else f"{rest[0]} (part {part})"
        out = json.dumps(render_json(report, label), indent=2, ensure_ascii=True) if as_json \
            else render_text(report, label)
        _write(sys.stdout, out)
        return report.exit_code
    except Malformed as exc:
        _write(sys.stderr, f"dpverify verify: error: {escape(one_line(exc))}")
        return 2
    except KeyboardInterrupt:
        _write(sys.stderr, "dpverify verify: interrupted")
        return 130
    except Exception as exc:  # never a traceback
        _write(sys.stderr, f"dpverify verify: error: internal: {escape(one_line(exc))}")
        return 2
