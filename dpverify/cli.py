"""The ``dpverify`` command.

Contract (DESIGN.md): JSON on stdout with ``--json``, a human table otherwise;
bad input exits 2 with one line naming the parameter and never a traceback;
``verify`` exits 1 when a certificate does not hold.  Sub-commands live in
:mod:`dpverify.commands` (one module each, discovered at start-up).
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import pkgutil
import signal
import sys
import threading

from . import commands as _commands_pkg
from ._version import __version__
from .atomic import write_text
from .errors import (
    CertificationFailed,
    DPVerifyError,
    MissingExtraError,
    PrecisionExhausted,
    TimeLimitExceeded,
)

__all__ = ["main", "build_parser"]


class _Parser(argparse.ArgumentParser):
    """argparse with a one-line error and exit code 2; a sub-command may redefine
    a shared option (conflict_handler="resolve")."""

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("conflict_handler", "resolve")
        super().__init__(*args, **kwargs)

    def error(self, message: str) -> None:  # type: ignore[override]
        sys.stderr.write(f"{self.prog}: error: {message}\n")
        raise SystemExit(2)


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="dpverify",
        description="Build and certify the approximating polynomials of DP release mechanisms.",
    )
    parser.add_argument("--version", action="version", version=f"dpverify {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    for info in sorted(pkgutil.iter_modules(_commands_pkg.__path__), key=lambda m: m.name):
        if info.name.startswith("_"):
            continue
        module = importlib.import_module(f"{_commands_pkg.__name__}.{info.name}")
        module.register(sub)
    return parser


class _TimeLimit(Exception):
    """Raised in the main thread by the ``--timeout`` alarm."""


def _start_alarm(seconds: float) -> bool:
    # SIGALRM exists on POSIX only and is delivered to the main thread only
    if not hasattr(signal, "setitimer"):
        return False
    if threading.current_thread() is not threading.main_thread():
        return False

    def on_alarm(signum: int, frame: object) -> None:
        raise _TimeLimit()

    signal.signal(signal.SIGALRM, on_alarm)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    return True


def _stop_alarm() -> None:
    signal.setitimer(signal.ITIMER_REAL, 0)
    signal.signal(signal.SIGALRM, signal.SIG_DFL)


def _check_out_path(path: str) -> str | None:
    """A reason why ``--out path`` cannot be written, checked before any work."""
    if not path.strip():
        return "--out path is empty"
    if os.path.isdir(path):
        return f"--out {path!r} is a directory"
    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(folder):
        return f"--out {path!r}: directory {folder!r} does not exist"
    if not os.access(folder, os.W_OK):
        return f"--out {path!r}: directory {folder!r} is not writable"
    return None


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "handler", None):
        parser.print_help()
        return 2
    prog = f"dpverify {args.command}"
    out = getattr(args, "json_out", None)
    if out is not None:
        why = _check_out_path(out)
        if why:
            sys.stderr.write(f"{prog}: error: {why}\n")
            return 2
    alarm = False
    try:
        timeout = getattr(args, "timeout", None)
        if timeout is not None:
            from .commands._cert import read_timeout

            seconds = read_timeout(timeout)
            alarm = _start_alarm(seconds)
        result = args.handler(args)
    except _TimeLimit:
        sys.stderr.write(f"{prog}: undecided: time limit of {args.timeout} s reached "
                         "(nothing was certified or written; raise --timeout)\n")
        return 1
    except TimeLimitExceeded as exc:
        sys.stderr.write(f"{prog}: undecided: {_one_line(exc)} (raise --timeout)\n")
        return 1
    except (CertificationFailed, PrecisionExhausted) as exc:
        msg = _one_line(exc)
        if not msg.startswith("not certified"):
            msg = f"not certified: {msg}"
        sys.stderr.write(f"{prog}: {msg}\n")
        return 1
    except (DPVerifyError, ValueError, TypeError, ImportError, OverflowError) as exc:
        # one line, no traceback (DESIGN.md CLI contract)
        if isinstance(exc, ImportError) and not isinstance(exc, MissingExtraError):
            raise
        sys.stderr.write(f"{prog}: error: {_one_line(exc)}\n")
        return 2
    except KeyboardInterrupt:
        sys.stderr.write(f"{prog}: interrupted\n")
        return 130
    finally:
        if alarm:
            _stop_alarm()
    # not at module level: importing the certify package costs ~50 ms at start-up
    from .certify.certificate import CERT_FORMAT, DATA_NOTE, data_document

    data = result.data
    is_cert = isinstance(data, dict) and data.get("format") == CERT_FORMAT
    if not is_cert:
        data = data_document(args.command, data)
    text = json.dumps(data, indent=2) + "\n"
    if out is not None:
        try:
            write_text(out, text, what="--out")
        except DPVerifyError as exc:
            sys.stderr.write(f"{prog}: error: {_one_line(exc)}\n")
            return 2
        if not is_cert:
            sys.stderr.write(f"{prog}: wrote {out}: {DATA_NOTE}\n")
    if getattr(args, "json", False):
        sys.stdout.write(text)
    else:
        sys.stdout.write(result.text.rstrip("\n") + "\n")
    for line in result.extra_lines:
        sys.stderr.write(line + "\n")
    return result.exit_code


def _one_line(exc: BaseException) -> str:
    return str(exc).splitlines()[0] if str(exc) else type(exc).__name__


def console_main() -> None:  # entry point
    raise SystemExit(main())


if __name__ == "__main__":  # pragma: no cover
    console_main()
