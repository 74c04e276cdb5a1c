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
from typing import IO, Any

from . import commands as _commands_pkg
from ._version import __version__
from .atomic import check_destination, write_chunks
from .budget import default_max_memory, format_bytes, limits, parse_memory
from .commands._grammar import Parser
from .commands._streams import NAMES as _STREAM_NAMES
from .commands._streams import closed as _closed_streams
from .commands._streams import reopen_closed, say
from .errors import (
    CertificationFailed,
    DPVerifyError,
    InvalidParameterError,
    MemoryLimitExceeded,
    MissingExtraError,
    PrecisionExhausted,
    TimeLimitExceeded,
)
from .jsonfile import MAX_INPUT_BYTES, max_input
from .progress import Progress

__all__ = ["main", "build_parser"]


# name -> (module of dpverify.commands that registers it, one-line help).  Listed here so that
# ``dpverify --help`` and ``dpverify CMD`` import only what they need: importing every command
# costs ~0.25 s (numpy, sympy, the certifiers); tests/test_cli.py checks this table against the
# modules' own registrations, so a new command module fails CI until it is listed.
COMMANDS: dict[str, tuple[str, str]] = {
    "approx": ("approx_cmd",
               "least degree N with a certified best approximation within gamma"),
    "evalbound": ("evalbound_cmd",
                  "certified round-off bounds: polynomials (Horner, Clenshaw, Estrin), "
                  "programs, FPCore"),
    "minimax": ("minimax_cmd",
                "best uniform approximation of degree N with a certified bracket of E_N(f)"),
    "fpminimax": ("fpminimax_cmd", "machine-number coefficients (lattice reduction) with the "
                  "certified error of that polynomial"),
    "implement": ("implement_cmd", "least degree of float code certified within U ulps of f, "
                  "with generated numpy and C code"),
    "and": ("or_cmd", "certified AND polynomial on integer counts (thaler2012 Fact 4.2)"),
    "check": ("check_cmd", "check a float implementation against a rigorous reference, in "
              "ulps (every binary32 input with --exhaustive)"),
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
                "private release of a data set: bernstein (alda2017), wang-summary (wang2013) "
                "or jin-synthetic (jin)"),
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
    parser = Parser(
        prog="dpverify",
        description="Build and certify the approximating polynomials of DP release mechanisms.",
    )
    parser.add_argument("--version", action="version", version=f"dpverify {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=Parser)
    if commands is None:
        modules = command_modules()
    else:
        modules = sorted({COMMANDS[c][0] for c in commands if c in COMMANDS})
    for name in modules:
        importlib.import_module(f"{_commands_pkg.__name__}.{name}").register(sub)
    for leaf in _leaf_parsers(sub):
        _limit_flags(leaf)
        # messages name the whole command (``dpverify release bernstein: ...``)
        leaf.set_defaults(prog_name=leaf.prog, flag_names=_flag_names(leaf))
    if commands is None or not commands or any(c not in COMMANDS for c in commands):
        # the whole list, for --help and for a misspelt command's message; a run of one
        # known command needs none of the other parsers (each costs about a millisecond)
        for name, (_module, summary) in sorted(COMMANDS.items()):
            if name not in sub.choices:
                sub.add_parser(name, help=summary)
    return parser


#: ``--timeout`` of a command that does not define its own (seconds).
DEFAULT_TIMEOUT = 600


def _flag_names(parser: argparse.ArgumentParser) -> dict[str, str]:
    """``dest -> --flag`` for the flags of ``parser`` whose destination is a two-word
    name (``max_degree -> --max-degree``): a library error names the parameter, and the
    same name in a message of the CLI is the flag (:func:`_in_flag_terms`)."""
    return {a.dest: a.option_strings[-1] for a in parser._actions
            if "_" in a.dest and a.option_strings and a.option_strings[-1].startswith("--")}


def _in_flag_terms(message: str, args: argparse.Namespace) -> str:
    """``message`` with each parameter name of the library (``max_degree``) that is a
    flag of this command replaced by the flag (``--max-degree``)."""
    names = getattr(args, "flag_names", None) or {}
    return _IDENTIFIER.sub(lambda m: names.get(m.group(0), m.group(0)), message)


# a two-word Python identifier (max_degree, max_pieces) not inside a longer name or path
_IDENTIFIER = re.compile(r"(?<![\w./-])[a-z][a-z0-9]*(?:_[a-z0-9]+)+(?![\w./-])")


def _leaf_parsers(sub: argparse._SubParsersAction) -> list[argparse.ArgumentParser]:
    """The parsers that run a handler, below ``sub`` (``release bernstein``, ...)."""
    out = []
    for parser in sub.choices.values():
        inner = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
        if inner:
            out += _leaf_parsers(inner[0])
        elif parser.get_default("handler") is not None:
            out.append(parser)
    return out


def _limit_flags(parser: argparse.ArgumentParser) -> None:
    """Every command takes ``--timeout`` (unless it defines its own, with its own default),
    ``--max-memory`` and ``--max-input``: the limits :func:`main` enforces
    (:mod:`dpverify.budget`, :mod:`dpverify.jsonfile`; docs/limits.md)."""
    if "--timeout" not in parser._option_string_actions:
        parser.add_argument(
            "--timeout", default=str(DEFAULT_TIMEOUT), metavar="SECONDS",
            help="give up after this many seconds: the result is 'undecided', exit 1 "
            f"(default {DEFAULT_TIMEOUT})")
    parser.add_argument(
        "--max-memory", dest="max_memory", default=None, metavar="SIZE",
        help="memory budget (e.g. 4G, 512M, 50%%): work that would need more is refused "
        "as 'undecided', exit 1 (default 50%% of this machine's memory)")
    parser.add_argument(
        "--max-input", dest="max_input", default=None, metavar="SIZE",
        help="largest JSON input file read (e.g. 1G; default 64M); a larger one is an "
        "error, exit 2")


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


_STDOUT_PATHS = ("/dev/stdout", "/dev/fd/1", "/proc/self/fd/1")
_STDERR_PATHS = ("/dev/stderr", "/dev/fd/2", "/proc/self/fd/2")


def _check_out_path(path: str, special: bool = False) -> str:
    """``--out path`` checked before any work: ``-`` (standard output; ``/dev/stdout``
    too), or a file that :func:`dpverify.atomic.check_destination` accepts in an
    existing, writable directory.  Raises ``InvalidParameterError`` with the reason."""
    if path == "-" or path in _STDOUT_PATHS:
        # the program writes --out in its computing child, whose own standard output is
        # a pipe: these names mean this process's standard output, i.e. '-'
        return "-"
    if path in _STDERR_PATHS:
        raise InvalidParameterError(f"--out {path!r}: the JSON document goes to a file or, "
                                    "with '-', to standard output, not to standard error")
    path = check_destination(path, "--out", special)
    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(folder):
        raise InvalidParameterError(f"--out {path!r}: directory {folder!r} does not exist")
    if not os.access(folder, os.W_OK):
        raise InvalidParameterError(f"--out {path!r}: directory {folder!r} is not writable")
    return path


def main(argv: list[str] | None = None, *, isolate: bool = False) -> int:
    """Run the command line ``argv``; returns the exit code.

    ``isolate=True`` (what the ``dpverify`` program does) computes in a child process
    that is killed at the deadline and limited to ``--max-memory``
    (:mod:`dpverify.commands._isolate`): the only way to stop one long FLINT call.
    In-process (the default, for tests and embedding), ``--timeout`` is an alarm checked
    between Python bytecodes, and the library's cost checks (:mod:`dpverify.budget`)
    refuse single calls that would pass the time left or the memory budget."""
    if argv is None:
        argv = sys.argv[1:]
    parser = build_parser(_chosen_command(argv))
    args = parser.parse_args(argv)
    if not getattr(args, "handler", None):
        parser.print_help()
        return 2
    prog = getattr(args, "prog_name", None) or f"dpverify {args.command}"
    out = getattr(args, "json_out", None)
    try:
        if out is not None:
            out = _check_out_path(out, getattr(args, "out_special", False))
        seconds, max_memory = _limits(args)
    except (DPVerifyError, ValueError) as exc:
        say(f"{prog}: error: {_one_line(exc)}")
        return 2
    closed = _closed_streams()
    if 1 in closed and out in (None, "-"):
        # the result (table or JSON) has nowhere to go: do no work
        keep = ", or write the result with --out FILE" if hasattr(args, "json_out") else ""
        say(f"{prog}: error: standard output is closed: the result has nowhere to go "
             f"(nothing was done; redirect standard output, e.g. >/dev/null{keep})")
        return 2
    code, wrote = _run(args, prog, seconds, max_memory, out, isolate)
    lost = sorted(closed - {0})
    if lost:
        # the command ran and wrote --out; what it printed on a closed stream is lost
        kept = f"; {out} was written" if wrote else ""
        say(f"{prog}: error: {' and '.join(_STREAM_NAMES[fd] for fd in lost)} "
             f"{'was' if len(lost) == 1 else 'were'} closed (anything printed there is "
             f"lost){kept}")
        return 2
    return code


def _run(args: argparse.Namespace, prog: str, seconds: float | None, max_memory: int,
         out: str | None, isolate: bool) -> tuple[int, bool]:
    """Compute (in a child process when ``isolate``) and print; the exit code, and whether
    the ``--out`` file was written."""
    # deferred: `dpverify --help` imports no command module (start-up time)
    from .commands._isolate import can_isolate, run_isolated

    if isolate and can_isolate():
        from .commands._isolate import stdout_buffer  # deferred: as run_isolated

        # fork after the imports the command needs: its module's PRELOAD (what its
        # handler imports on first call) is imported here, once, and the child inherits
        # it instead of importing under the --timeout clock
        for name in ("dpverify.certify.certificate",  # the output document (_compute)
                     *getattr(sys.modules.get(args.handler.__module__), "PRELOAD", ())):
            importlib.import_module(name)

        buffer = stdout_buffer() if out == "-" or getattr(args, "json", False) else None
        try:
            outcome = run_isolated(
                lambda: _compute(args, prog, seconds, max_memory, out, buffer), seconds,
                max_memory, prog, getattr(args, "timeout", None))
            code = _emit(_in_own_terms(outcome, args.command), args, prog, out, buffer)
        finally:
            if buffer is not None:
                buffer.close()
    else:
        outcome = _compute(args, prog, seconds, max_memory, out)
        code = _emit(outcome, args, prog, out)
    return code, bool(outcome.get("wrote"))


def _limits(args: argparse.Namespace) -> tuple[float | None, int]:
    """``--timeout`` in seconds (or None) and ``--max-memory`` in bytes (``--max-input``
    is checked here too, before any work)."""
    seconds = None
    timeout = getattr(args, "timeout", None)
    if timeout is not None:
        # deferred: only commands with --timeout need it (CLI start-up)
        from .commands._cert import read_timeout

        seconds = read_timeout(timeout)
    text = getattr(args, "max_memory", None)
    max_memory = default_max_memory() if text is None else parse_memory(text)
    _input_cap(args)
    return seconds, max_memory


def _input_cap(args: argparse.Namespace) -> int:
    text = getattr(args, "max_input", None)
    return MAX_INPUT_BYTES if text is None else parse_memory(text, "--max-input", 1)


#: Commands that publish noisy statistics: they certify nothing, so a command stopped early
#: has *released* nothing (no noise was drawn, no summary written).
_RELEASE_COMMANDS = frozenset({"release", "tuv-release"})
_NOTHING_CERTIFIED = "nothing was certified or written"


def _nothing_done(command: str) -> str:
    """What a command stopped by a limit did not do, in the command's own terms."""
    return "nothing was released or written" if command in _RELEASE_COMMANDS \
        else _NOTHING_CERTIFIED


def _in_own_terms(outcome: dict[str, Any], command: str) -> dict[str, Any]:
    """The isolating parent (:mod:`dpverify.commands._isolate`) words the message of a
    killed child for the certifying commands; for a release command it says what a
    release did not do."""
    if "lines" in outcome:
        outcome["lines"] = [line.replace(_NOTHING_CERTIFIED, _nothing_done(command))
                            for line in outcome["lines"]]
    return outcome


def _compute(args: argparse.Namespace, prog: str, seconds: float | None,
             max_memory: int, out: str | None = None,
             buffer: IO[bytes] | None = None) -> dict[str, Any]:
    """Run the handler under the limits and write ``--out`` (a file); the outcome as
    JSON-able data: either ``{"lines": [stderr lines], "code": n}`` or what is left to
    print (see :func:`_emit`).

    The ``--out`` file is written here, streamed chunk by chunk (an r-of-k certificate
    holds gigabytes of digits), atomically: a child killed while writing leaves the
    previous file.  The JSON text for standard output (``--json``, ``--out -``) goes to
    ``buffer`` when given (the isolated child's temporary file, copied out by
    :func:`_emit`), else travels back in the outcome."""
    alarm, wrote = False, False

    def fail(line: str, code: int) -> dict[str, Any]:
        return {"lines": [f"{prog}: {_in_flag_terms(line, args)}"], "code": code,
                "wrote": wrote}

    try:
        with limits(timeout=seconds, max_memory=max_memory), max_input(_input_cap(args)):
            if seconds is not None:
                alarm = _start_alarm(seconds)
            result = args.handler(args)
    except _TimeLimit:
        return fail(f"undecided: time limit of {args.timeout} s reached "
                    f"({_nothing_done(args.command)}; raise --timeout)", 1)
    except TimeLimitExceeded as exc:
        return fail(f"undecided: {_one_line(exc)} (raise --timeout)", 1)
    except MemoryLimitExceeded as exc:
        return fail(f"undecided: {_one_line(exc)} (raise --max-memory)", 1)
    except MemoryError:
        return fail(f"undecided: out of memory: the memory budget of "
                    f"{format_bytes(max_memory)} was reached ({_nothing_done(args.command)}; "
                    "raise --max-memory)", 1)
    except (CertificationFailed, PrecisionExhausted) as exc:
        msg = _one_line(exc)
        if not msg.startswith(("not certified", "undecided")):
            msg = f"not certified: {msg}"
        return fail(msg, 1)
    except (DPVerifyError, ValueError, TypeError, ImportError, OverflowError) as exc:
        # one line, no traceback (DESIGN.md CLI contract)
        if isinstance(exc, ImportError) and not isinstance(exc, MissingExtraError):
            raise
        return fail(f"error: {_one_line(exc)}", 2)
    except KeyboardInterrupt:
        return fail("interrupted", 130)
    finally:
        if alarm:
            _stop_alarm()
    # not at module level: importing the certify package costs ~50 ms at start-up
    from .certify.certificate import CERT_FORMAT, data_document

    data = result.data
    is_cert = isinstance(data, dict) and data.get("format") == CERT_FORMAT
    if not is_cert:
        from .commands._verification import verification  # deferred: as certificate above

        data = data_document(args.command, data)
        data.setdefault("verification", verification(args.command, data))
    encoder = json.JSONEncoder(indent=2, default=_json_default)
    if out is not None and out != "-":
        try:
            with Progress(prog, enabled=getattr(args, "progress", None)) as bar:
                chunks = itertools.chain(encoder.iterencode(data), ["\n"])
                write_chunks(out, _reported(chunks, bar, f"writing {out}"), what="--out",
                             special=getattr(args, "out_special", False))
        except DPVerifyError as exc:
            return fail(f"error: {_one_line(exc)}", 2)
        wrote = True
    text, buffered = None, False
    if out == "-" or getattr(args, "json", False):
        with Progress(prog, enabled=getattr(args, "progress", None)) as bar:
            pieces = _reported(itertools.chain(encoder.iterencode(data), ["\n"]), bar,
                               "writing JSON")
            if buffer is None:
                text = "".join(pieces)
            else:
                from .commands._isolate import fill_buffer  # deferred: as run_isolated

                try:
                    fill_buffer(buffer, pieces)
                except OSError as exc:
                    return fail(f"error: {_one_line(exc)}", 2)
                buffered = True
    parts = None if is_cert else data["verification"].get("certificates")
    return {"json": text, "buffered": buffered, "is_cert": is_cert, "text": result.text,
            "parts": parts, "extra": list(result.extra_lines), "code": result.exit_code,
            "wrote": wrote}


def _emit(outcome: dict[str, Any], args: argparse.Namespace, prog: str,
          out: str | None, buffer: IO[bytes] | None = None) -> int:
    """Print what :func:`_compute` left to print: stdout, then stderr."""
    if "lines" in outcome:
        for line in outcome["lines"]:
            say(line)
        return int(outcome["code"])
    if out is not None and out not in ("-", os.devnull) and not outcome["is_cert"]:
        # deferred: the note is defined with the certificate format (~50 ms to import)
        from .certify.certificate import DATA_NOTE

        parts = outcome["parts"]
        more = f"; its certificates: dpverify verify {out} --part NAME ({', '.join(parts)})" \
            if parts else "; see its \"verification\" field"
        sys.stderr.write(f"{prog}: wrote {out}: {DATA_NOTE}{more}\n")
    if outcome.get("buffered") and buffer is not None:
        from .commands._isolate import copy_buffer  # deferred: as run_isolated

        copy_buffer(buffer, sys.stdout)  # --json, or --out - (the JSON document alone)
    elif outcome["json"] is not None:
        # --json, or --out - (then stdout holds the JSON document alone)
        sys.stdout.write(outcome["json"])
    else:
        sys.stdout.write(outcome["text"].rstrip("\n") + "\n")
    for line in outcome["extra"]:
        sys.stderr.write(line + "\n")
    return int(outcome["code"])


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
    # first: no file or pipe opened later may take the number of a closed standard stream
    closed = reopen_closed()
    try:
        try:
            code = main(isolate=os.environ.get("DPVERIFY_IN_PROCESS", "") != "1")
        except SystemExit as exc:  # argparse: --help, --version, a usage error
            code = exc.code if isinstance(exc.code, int) else 2
            if code == 0 and closed - {0}:
                names = " and ".join(_STREAM_NAMES[fd] for fd in sorted(closed - {0}))
                say(f"dpverify: error: {names} closed (anything printed there is lost)")
                code = 2
        sys.stdout.flush()
    except BrokenPipeError:
        # the reader stopped early (`dpverify ... --out - | head`): no traceback, and
        # nothing more to flush at exit; 141 = 128 + SIGPIPE, what a shell reports for
        # a program killed by it
        try:
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        except (OSError, ValueError):
            pass
        code = 141
    raise SystemExit(code)


if __name__ == "__main__":  # pragma: no cover
    console_main()
