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
import pkgutil
import sys

from . import commands as _commands_pkg
from ._version import __version__
from .errors import DPVerifyError, MissingExtraError

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


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "handler", None):
        parser.print_help()
        return 2
    prog = f"dpverify {args.command}"
    try:
        result = args.handler(args)
    except (DPVerifyError, ValueError, TypeError, ImportError, OverflowError) as exc:
        # one line, no traceback (DESIGN.md CLI contract)
        if isinstance(exc, ImportError) and not isinstance(exc, MissingExtraError):
            raise
        msg = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        sys.stderr.write(f"{prog}: error: {msg}\n")
        return 2
    except KeyboardInterrupt:
        sys.stderr.write(f"{prog}: interrupted\n")
        return 130
    if getattr(args, "json_out", None):
        try:
            with open(args.json_out, "w", encoding="utf-8") as fh:
                fh.write(json.dumps(result.data, indent=2) + "\n")
        except OSError as exc:
            where = f"--out {args.json_out!r}"
            sys.stderr.write(f"{prog}: error: cannot write {where}: {exc.strerror}\n")
            return 2
    if getattr(args, "json", False):
        sys.stdout.write(json.dumps(result.data, indent=2) + "\n")
    else:
        sys.stdout.write(result.text.rstrip("\n") + "\n")
    for line in result.extra_lines:
        sys.stderr.write(line + "\n")
    return result.exit_code


def console_main() -> None:  # entry point
    raise SystemExit(main())


if __name__ == "__main__":  # pragma: no cover
    console_main()
