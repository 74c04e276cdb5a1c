"""``dpverify verify CERT.json``: independent re-check with :mod:`dpverify.verify`.

Exit 0 the statement holds, 1 it does not hold or cannot be decided, 2 the file is
malformed (one line, never a traceback).  The checker shares no code with the certifier.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # annotations only: the CLI start-up imports nothing it does not run
    import argparse

    from ._common import CommandResult

    _Subparsers = argparse._SubParsersAction[argparse.ArgumentParser]

__all__ = ["register", "PRELOAD"]

#: What the handler imports when it runs: the isolating parent imports it before it
#: forks the computing child (dpverify.cli), so the child imports nothing under --timeout.
PRELOAD = ("dpverify.verify", "dpverify.verify.bounded", "dpverify.verify.cli",
           "dpverify.verify.load", "dpverify.commands._common",
           "dpverify.commands._verification")


def register(sub: _Subparsers) -> None:
    p = sub.add_parser(
        "verify",
        help="re-check a certificate from scratch (independent checker)",
        description="Re-check a certificate with the independent checker (dpverify.verify: "
        "its own arithmetic, sharing no code with the certifier). Prints the verified "
        "statement in words and what was not checked. Exit 0 if the statement holds, 1 if "
        "it does not or cannot be decided, 2 if the file is malformed.",
    )
    p.add_argument("certificate", metavar="CERT.json",
                   help="the certificate (JSON) written by a dpverify command")
    p.add_argument("--part", default=None, metavar="NAME",
                   help="check the certificate embedded in the file under this name (the "
                   "parts of a float-error certificate, or of a data file: the error names "
                   "them)")
    p.add_argument("--timeout", default="600", metavar="SECONDS",
                   help="give up after this many seconds: 'undecided', exit 1 (default 600)")
    # --max-memory and --max-input: the flags every command takes (dpverify.cli)
    p.add_argument("--max-size", default=None, metavar="SIZE",
                   help="size cap of the certificate file, e.g. 2G (default 256M: a larger "
                   "file is refused, exit 2). Raise it only for a file you trust to be a "
                   "certificate: checking one needs several times its size in memory")
    # the flags of _common.add_json_flag (same dests), spelled out: importing _common loads
    # dpverify.numbers and python-flint (~25 ms), which `dpverify verify --help` never needs
    p.add_argument("--json", action="store_true", help="print JSON on stdout")
    p.add_argument("--out", dest="json_out", default=None, metavar="FILE",
                   help="also write the JSON report to FILE")
    # the flags of _common.progress_flags (same dest), spelled out for the same reason
    g = p.add_mutually_exclusive_group()
    g.add_argument("--progress", dest="progress", action="store_true", default=None,
                   help="always show a progress line on stderr")
    g.add_argument("--no-progress", dest="progress", action="store_false",
                   help="never show progress")
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> CommandResult:
    # here, not at module level: the checker needs python-flint and jsonschema (~25 ms and
    # ~50 ms to import), which `dpverify verify --help` must not load
    from ..budget import current as current_budget
    from ..errors import InvalidParameterError, MalformedCertificate
    from ..verify import Malformed, render_json, render_text
    from ..verify.bounded import deadline_within, limit_named
    from ..verify.cli import parse_memory, verify_with_progress
    from ..verify.load import MAX_BYTES_LIMIT
    from ._cert import read_timeout
    from ._common import CommandResult

    seconds = read_timeout(args.timeout)
    _regular_file(args.certificate)
    # the memory budget in force: --max-memory (every command's grammar: 4G, 1.5G, 50%)
    # or the default share of this machine (of its container's limit, when lower), as
    # the command line set it for this process
    memory = current_budget().max_memory
    try:
        max_bytes = None if args.max_size is None else parse_memory(args.max_size, 2**10,
                                                                    MAX_BYTES_LIMIT)
    except ValueError as exc:
        raise InvalidParameterError(f"--max-size: {exc}") from None
    try:
        # the check runs in a child process stopped at its hard limit: keep that limit
        # inside --timeout (the command's own alarm) so the report is still printed, and
        # name --timeout, not that share of it, if the child is stopped
        with limit_named(args.timeout, "--timeout"):
            report = verify_with_progress(args.certificate, getattr(args, "progress", None),
                                          deadline_seconds=deadline_within(0.95 * seconds),
                                          max_memory=memory, part=args.part,
                                          max_bytes=max_bytes)
    except Malformed as exc:
        raise MalformedCertificate(str(exc)) from None
    label = args.certificate if args.part is None else f"{args.certificate} (part {args.part})"
    return CommandResult(data=render_json(report, label), text=render_text(report, label),
                         exit_code=report.exit_code)


def _regular_file(path: str) -> None:
    """Refuse a FIFO, a device or a socket as CERT.json before the check starts: reading
    one could block until the time limit (a FIFO without a writer) or never end
    (``/dev/zero``).  A path that does not exist is left to the checker's message."""
    import os  # deferred, as the imports of run(): `verify --help` loads none of them

    from ..atomic import file_kind  # deferred: as os
    from ..errors import InvalidParameterError  # deferred: as os

    try:
        mode = os.stat(path).st_mode
    except (OSError, ValueError):
        return
    kind = file_kind(mode)
    if kind == "a directory":
        raise InvalidParameterError(f"CERT.json {path!r} is a directory: give a certificate "
                                    "file")
    if kind is not None:
        raise InvalidParameterError(f"CERT.json {path!r} is {kind}, not a regular file: "
                                    "refused (reading it could block or never end)")
