"""The ``dpverify`` command.

Contract (DESIGN.md): JSON on stdout with ``--json``, a human table otherwise;
bad input exits 2 with one line naming the parameter and never a traceback;
``verify`` exits 1 when a certificate does not hold.  Sub-commands live in
:mod:`dpverify.commands` (one module each, listed in :data:`COMMANDS`; only the chosen
one is imported).
"""

from __future__ import annotations

import argparse
import importlib
import itertools
import json
import os
import pkgutil
import re
import signal
import sys
import threading
from collections.abc import Iterable, Iterator

from . import commands as _commands_pkg
from ._version import __version__
from .atomic import write_chunks
from .errors import (
    CertificationFailed,
    DPVerifyError,
    MissingExtraError,
    PrecisionExhausted,
    TimeLimitExceeded,
)
from .progress import Progress

__all__ = ["main", "build_parser"]


_NEGATIVE_NUMBER = re.compile(r"^-\.?[0-9]")


class _Parser(argparse.ArgumentParser):
    """argparse with a one-line error and exit code 2; a sub-command may redefine
    a shared option (conflict_handler="resolve")."""

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("conflict_handler", "resolve")
        super().__init__(*args, **kwargs)
        # argparse takes only -12 and -1.5 for negative numbers and any other token that
        # starts with '-' for an option; every exact-number spelling (-1/2, -1e-3,
        # -0x1p-1) is a value here (no option of dpverify starts with '-' and a digit)
        self._negative_number_matcher = _NEGATIVE_NUMBER

    def error(self, message: str) -> None:  # type: ignore[override]
        sys.stderr.write(f"{self.prog}: error: {message}\n")
        raise SystemExit(2)


# name -> (module of dpverify.commands that registers it, one-line help).  Listed here so that
# ``dpverify --help`` and ``dpverify CMD`` import only what they need: importing every command
# costs ~0.25 s (numpy, sympy, the certifiers); tests/test_cli.py checks this table against the
# modules' own registrations, so a new command module fails CI until it is listed.
COMMANDS: dict[str, tuple[str, str]] = {
    "approx": ("approx_cmd",
               "least degree N with a certified best approximation within gamma"),
    "evalbound": ("evalbound_cmd",
                  "certified bound on |fl(p(x)) - p(x)| for binary64 Horner / Clenshaw"),
    "minimax": ("minimax_cmd",
                "best uniform approximation of degree N with a certified bracket of E_N(f)"),
    "and": ("or_cmd", "certified AND polynomial on integer counts (thaler2012 Fact 4.2)"),
    "answer": ("mechanism_cmd",
               "answer from a release summary (bernstein: --at; wang-summary: --query)"),
    "bernstein": ("bernstein_cmd", "exact iterated Bernstein basis + certified Lebesgue constant"),
    "bernstein-approx": ("bernstein_cmd",
                         "iterated Bernstein approximation of f with a certified error"),
    "crosscheck": ("crosscheck_cmd", "compare the fast float64 path with the exact reference"),
    "dlist": ("dlist_cmd", "certified h_k for decision lists (thaler2012 Lemma 4.9, Appendix A)"),
    "jackson": ("jackson_cmd",
                "exact generalized Jackson kernel H_{t,r} and the I_{t,K} multipliers"),
    "jackson-approx": ("jackson_cmd",
                       "I^D_{t,K} g_f as a damped Chebyshev series, with a certified error"),
    "or": ("or_cmd", "certified OR polynomial on integer counts (thaler2012 Fact 4.2)"),
    "plot": ("plot_cmd", "draw a certificate (error curve, bound, extremal points) or releases "
             "(alpha against epsilon)"),
    "privacy": ("privacy_cmd",
                "privacy certificate of a mechanism: sensitivity, noise scale, achieved epsilon"),
    "release": ("mechanism_cmd",
                "private release of a CSV: bernstein (alda2017) or wang-summary (wang2013)"),
    "release-size": ("release_cmd", "database size n for an (alpha, beta)-accurate polynomial "
                     "release (thaler2012 Theorems 3.1/3.2)"),
    "rofk": ("rofk_cmd", "certified r-of-k threshold polynomial on integer counts "
             "(thaler2012 Lemma 4.5)"),
    "supnorm": ("supnorm_cmd", "certified enclosure of sup |f - p| on an interval"),
    "table": ("table_cmd", "write reference coefficient tables (exact + float64), or --list them"),
    "tuv-answer": ("tuv_release_cmd", "answer a query from a tuv-release summary"),
    "tuv-release": ("tuv_release_cmd", "private polynomial release of a 0/1 CSV or of decision "
                    "lists (thaler2012 Theorems 3.1/3.2, 1.3)"),
    "verify": ("verify_cmd", "re-check a certificate from scratch (independent checker)"),
}


def command_modules() -> list[str]:
    """Every module of :mod:`dpverify.commands` that defines commands (``_x`` are helpers)."""
    return sorted(m.name for m in pkgutil.iter_modules(_commands_pkg.__path__)
                  if not m.name.startswith("_"))


def build_parser(commands: list[str] | None = None) -> argparse.ArgumentParser:
    """The ``dpverify`` parser.  ``commands=None`` registers every command module (complete
    parser, for tests and docs); a list registers only those commands' modules and adds the
    others as help-only entries, which is what :func:`main` does to keep start-up short."""
    parser = _Parser(
        prog="dpverify",
        description="Build and certify the approximating polynomials of DP release mechanisms.",
    )
    parser.add_argument("--version", action="version", version=f"dpverify {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    if commands is None:
        modules = command_modules()
    else:
        modules = sorted({COMMANDS[c][0] for c in commands if c in COMMANDS})
    for name in modules:
        importlib.import_module(f"{_commands_pkg.__name__}.{name}").register(sub)
    for name, (_module, summary) in sorted(COMMANDS.items()):
        if name not in sub.choices:
            sub.add_parser(name, help=summary)
    return parser


def _chosen_command(argv: list[str]) -> list[str]:
    # the first token that is not an option names the command (the top-level parser has
    # no option that takes a value)
    for token in argv:
        if not token.startswith("-"):
            return [token]
    return []


class _TimeLimit(BaseException):
    """Raised in the main thread by the ``--timeout`` alarm.

    A ``BaseException`` (like ``KeyboardInterrupt``) so that no ``except Exception`` in the
    library -- e.g. the verifier turning an unexpected error into "undecided" and going
    on -- can swallow it: the time limit always ends the command."""


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
    if argv is None:
        argv = sys.argv[1:]
    parser = build_parser(_chosen_command(argv))
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
            # deferred: only commands with --timeout need it (CLI start-up)
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
    want_json = bool(getattr(args, "json", False))
    # streamed, chunk by chunk, and only where it is written: an r-of-k certificate holds
    # gigabytes of digits (the same bytes as json.dumps(data, indent=2))
    encoder = json.JSONEncoder(indent=2, default=_json_default)
    if out is not None:
        try:
            with Progress(prog, enabled=getattr(args, "progress", None)) as bar:
                write_chunks(out, _reported(itertools.chain(encoder.iterencode(data), ["\n"]),
                                            bar, f"writing {out}"), what="--out")
        except DPVerifyError as exc:
            sys.stderr.write(f"{prog}: error: {_one_line(exc)}\n")
            return 2
        if not is_cert:
            sys.stderr.write(f"{prog}: wrote {out}: {DATA_NOTE}\n")
    if want_json:
        with Progress(prog, enabled=getattr(args, "progress", None)) as bar:
            for chunk in _reported(encoder.iterencode(data), bar, "writing JSON"):
                sys.stdout.write(chunk)
        sys.stdout.write("\n")
    else:
        sys.stdout.write(result.text.rstrip("\n") + "\n")
    for line in result.extra_lines:
        sys.stderr.write(line + "\n")
    return result.exit_code


def _reported(chunks: Iterable[str], bar: Progress, stage: str) -> Iterator[str]:
    """``chunks`` unchanged, reporting the megabytes passed every 16 MB (nothing is drawn
    for a small document)."""
    size = 0
    for chunk in chunks:
        size += len(chunk)
        if size >> 24 != (size - len(chunk)) >> 24:
            bar(f"{stage} (MB)", size >> 20, None)
        yield chunk


def _json_default(obj: object) -> object:
    # typed records (dpverify.mechanisms.privacy) render themselves; anything else is a bug
    to_json = getattr(obj, "to_json", None)
    if callable(to_json):
        return to_json()
    raise TypeError(f"internal: {type(obj).__name__} is not JSON serialisable")


#: Longest error line printed: a message quoting a 10^5-digit number stays readable.
MAX_MESSAGE = 1000


def _one_line(exc: BaseException) -> str:
    text = str(exc)
    line = text.splitlines()[0] if text.strip() else type(exc).__name__
    if len(line) > MAX_MESSAGE:
        cut = len(line) - MAX_MESSAGE + 200
        line = (f"{line[:MAX_MESSAGE - 300]} ...[{cut} characters omitted]... "
                f"{line[-100:]}")
    return line


def console_main() -> None:  # entry point
    raise SystemExit(main())


if __name__ == "__main__":  # pragma: no cover
    console_main()
