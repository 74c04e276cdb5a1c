"""Shared plumbing for CLI sub-commands (no mathematics here)."""

from __future__ import annotations

import argparse
import re
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any, NamedTuple

from ..budget import check_cost
from ..errors import InvalidParameterError, ParameterTypeError
from ..jsonfile import read_json
from ..numbers import MAX_DEGREE, check_int, parse_exact
from ..progress import Progress

__all__ = [
    "interval_flag",
    "CommandResult",
    "add_json_flag",
    "backend_flags",
    "backend_params",
    "data_errors",
    "eps_delta_flags",
    "exact",
    "flag_names",
    "format_table",
    "int_flag",
    "make_progress",
    "progress_flags",
    "psi_flags",
    "psi_params",
    "read_poly_arg",
]


class CommandResult(NamedTuple):
    """What a handler returns: the JSON object, the human text, the exit code, and lines
    for standard error.  (A named tuple: every command loads this module, and a dataclass
    costs about a millisecond to create.)"""

    data: dict[str, Any]
    text: str
    exit_code: int = 0
    extra_lines: Sequence[str] = ()


def add_json_flag(parser: argparse.ArgumentParser) -> None:
    """``--json`` (JSON on stdout) and ``--out FILE`` (also write the JSON to FILE);
    both are handled by :func:`dpverify.cli.main` for every sub-command."""
    parser.add_argument("--json", action="store_true", help="print JSON on stdout")
    # dest differs from "out" so that a command defining its own --out (e.g. a
    # directory) replaces this option without confusing dpverify.cli.main
    parser.add_argument(
        "--out",
        dest="json_out",
        default=None,
        metavar="FILE",
        help="also write the JSON result (the certificate) to FILE, atomically; '-' writes "
        "it to standard output instead of the table; /dev/null discards it; a FIFO, "
        "device or socket is refused unless --out-special",
    )
    parser.add_argument(
        "--out-special", dest="out_special", action="store_true",
        help="let --out write an existing FIFO, device or socket in place (a FIFO waits "
        "for its reader)")


def backend_flags(parser: argparse.ArgumentParser) -> None:
    """``--backend local|dask`` and ``--scheduler ADDRESS`` for the release commands
    (docs/dask.md): with ``dask``, ``--data`` may be a CSV/Parquet file, a directory or a
    glob, read in partitions on a Dask cluster (an embedded LocalCluster without
    ``--scheduler``)."""
    parser.add_argument("--backend", default="local", type=str,
                        help="local (default) or dask: statistics summed over the "
                        "partitions of --data (file, directory or glob; CSV or Parquet) on "
                        'a Dask cluster (pip install "dpverify[dask]"); noise is drawn once, '
                        "on this machine")
    parser.add_argument("--scheduler", default=None, type=str, metavar="ADDRESS",
                        help="dask: address of an existing scheduler (tcp://host:8786); "
                        "default an embedded LocalCluster sized to this machine")


def backend_params(args: Any) -> tuple[str, str | None]:
    """Parse :func:`backend_flags`; errors name the flags."""
    backend = (getattr(args, "backend", None) or "local").strip().lower()
    if backend not in ("local", "dask"):
        raise InvalidParameterError(f"--backend must be local or dask, got {backend!r}")
    scheduler = getattr(args, "scheduler", None)
    if scheduler is not None and backend != "dask":
        raise InvalidParameterError("--scheduler needs --backend dask")
    return backend, scheduler


def data_errors(fn: Any, *a: Any, flag: str = "--data", **kw: Any) -> Any:
    """Call ``fn``; a data error from the library (its message starts with the quoted file
    name or "cannot read", never with a flag) gets ``flag`` in front, and an error naming
    the ``scheduler``/``backend`` parameter names the flag instead."""
    try:
        return fn(*a, **kw)
    except InvalidParameterError as exc:
        msg = str(exc)
        if msg.startswith(("'", '"', "cannot read ")):
            raise type(exc)(f"{flag} {msg}") from None
        for name in ("scheduler", "backend"):  # the library's parameter -> the flag
            if msg.startswith((name + " ", name + ":")):
                raise type(exc)(f"--{msg}") from None
        raise


@contextmanager
def flag_names(flags: dict[str, str]) -> Iterator[None]:
    """Library errors name function parameters (``k must be >= 1``); inside this block an
    error whose message starts with one of ``flags`` is re-raised naming the CLI flag
    instead (``--k must be >= 1``), so the library never has to know about flags."""
    try:
        yield
    except (InvalidParameterError, ParameterTypeError) as exc:
        msg = str(exc)
        for name, flag in flags.items():
            if msg.startswith((name + " ", name + ":")):
                raise type(exc)(flag + msg[len(name):]) from None
        raise


def progress_flags(parser: argparse.ArgumentParser) -> None:
    """``--progress`` / ``--no-progress`` for long-running commands (default: a progress line
    on stderr only when stderr is a terminal)."""
    g = parser.add_mutually_exclusive_group()
    g.add_argument("--progress", dest="progress", action="store_true", default=None,
                   help="always show a progress line on stderr")
    g.add_argument("--no-progress", dest="progress", action="store_false",
                   help="never show progress")


def make_progress(args: Any, label: str):
    """The :class:`dpverify.progress.Progress` of a command run (``None``-safe flags)."""
    return Progress(label, enabled=getattr(args, "progress", None))


def psi_flags(parser: argparse.ArgumentParser) -> None:
    """The private-subspace-iteration flags (jin Algorithm 2), shared by ``release
    jin-synthetic`` and ``privacy jin`` so that both describe the same mechanism."""
    parser.add_argument("--psi-k", dest="psi_k", default=None, type=str,
                        help="private subspace iteration (jin Alg. 2): number of eigenpairs k")
    parser.add_argument("--psi-iters", dest="psi_iters", default="10", type=str,
                        help="PSI iterations L")
    parser.add_argument("--psi-epsilon", dest="psi_epsilon", default=None, type=str,
                        help="PSI epsilon (required with --psi-k; added to --epsilon by "
                        "basic composition)")
    parser.add_argument("--psi-delta", dest="psi_delta", default=None, type=str,
                        help="PSI delta: discrete Gaussian noise (without it: discrete "
                        "Laplace)")


def psi_params(args: Any, d: int) -> dict[str, Any] | None:
    """Parse :func:`psi_flags`: ``None`` without ``--psi-k``, else ``psi_k``, ``psi_iters``,
    ``psi_epsilon`` (required, > 0) and ``psi_delta`` (``None`` or in (0, 1))."""
    if args.psi_k is None:
        return None
    if args.psi_epsilon is None:
        raise InvalidParameterError("--psi-epsilon is required with --psi-k")
    # deferred: dpverify.noise adds ~8 ms to every command's start-up (-X importtime)
    from ..noise import check_delta, check_epsilon

    pe = check_epsilon(parse_exact(args.psi_epsilon, "--psi-epsilon"), "--psi-epsilon")
    pd = None if args.psi_delta is None else check_delta(
        parse_exact(args.psi_delta, "--psi-delta"), "--psi-delta")
    return {"psi_k": int_flag(args.psi_k, "--psi-k", 1, d),
            "psi_iters": int_flag(args.psi_iters, "--psi-iters", 1, 10_000),
            "psi_epsilon": pe, "psi_delta": pd}


def exact(text: str, name: str):
    """Read a command-line number exactly (``1e-3`` is 1/1000, never a float)."""
    return parse_exact(text, name)


def interval_flag(values: list[str], flag: str = "--interval") -> Any:
    """``--interval A B``: exact numbers, or constant expressions (``0 pi/2``) that the
    certificate rounds outward (:mod:`dpverify.expr.constant`); a
    :class:`~dpverify.expr.constant.Box` of one interval.  Errors name ``--interval A``,
    ``--interval B``."""
    # deferred: the expression language, needed only by the commands with an interval
    from ..expr.constant import Box, read_pair

    a, b = values
    return Box((read_pair(a, b, f"{flag} A", f"{flag} B", flag),))


def int_flag(text: str, flag: str, minimum: int | None = None, maximum: int | None = None) -> int:
    """Read an integer flag (``"12"``; not ``"12.0"`` or ``"1e3"``), with optional bounds;
    errors name the flag."""
    s = str(text).strip()
    # ASCII digits only: int() would also take "1_000", "\uff11\uff10" (full-width) and
    # "\u0663" (Arabic-Indic), which no other number reader of dpverify accepts
    if len(s) > 4300 or not _INTEGER.match(s):
        raise InvalidParameterError(f"{flag} must be an integer, got {_shown(s)}")
    return check_int(int(s), flag, minimum, maximum)


_INTEGER = re.compile(r"[+-]?[0-9]+\Z")


def _shown(text: str, limit: int = 60) -> str:
    """``repr`` of a user's text, cut in the middle when long (one readable line)."""
    if len(text) <= limit:
        return repr(text)
    return f"{text[:limit // 2]!r}...{text[-limit // 4:]!r} ({len(text)} characters)"


def eps_delta_flags(args: Any) -> tuple[Any, Any]:
    """``--epsilon`` (exact, in the documented range ``[2^-64, 2^64]``) and optional
    ``--delta`` (exact, in ``(0, 1)``): the library checks
    (:func:`dpverify.noise.check_epsilon` / ``check_delta``) with the flag as the name, so
    the range is checked before any work and the one-line error names the flag."""
    # deferred: dpverify.noise adds ~8 ms to every command's start-up (-X importtime)
    from ..noise import check_delta, check_epsilon

    eps = check_epsilon(parse_exact(args.epsilon, "--epsilon"), "--epsilon")
    if args.delta is None:
        return eps, None
    return eps, check_delta(parse_exact(args.delta, "--delta"), "--delta")


def read_poly_arg(text: str, name: str = "--poly") -> list:
    """``--poly``: comma-separated exact numbers (lowest degree first) or ``@FILE``
    holding a JSON list of numbers/strings (``@-``: standard input), at most
    :func:`dpverify.jsonfile.input_cap` bytes (``--max-input``)."""
    if text.startswith("@"):
        path = text[1:]
        items = read_json(path, name, stdin=True)
        if not isinstance(items, list) or not items:
            raise InvalidParameterError(f"{name}: {path!r} must hold a non-empty JSON list")
        if len(items) > MAX_DEGREE + 1:
            raise InvalidParameterError(
                f"{name}: {path!r} lists {len(items)} coefficients, more than "
                f"MAX_DEGREE + 1 = {MAX_DEGREE + 1}")
        out = []
        held = _Held(name)
        for i, v in enumerate(items):
            if isinstance(v, bool) or not isinstance(v, (str, int)):
                raise InvalidParameterError(
                    f"{name}[{i}] must be an exact number string or an integer, got {v!r}"
                    " (JSON floats are refused: write them as strings)"
                )
            out.append(held.add(parse_exact(str(v), f"{name}[{i}]")))
        return out
    parts = [p.strip() for p in text.split(",")]
    if not text.strip() or any(not p for p in parts):
        raise InvalidParameterError(f"{name} must be comma-separated numbers, got "
                                    f"{_shown(text)}")
    held = _Held(name)
    return [held.add(parse_exact(p, f"{name}[{i}]")) for i, p in enumerate(parts)]


class _Held:
    """The memory the exact coefficients read so far hold, checked against the budget
    (:func:`dpverify.budget.check_cost`) every megabyte: ``1e99999`` is 7 characters of
    text and 41 kB as an exact number, so a small file can spell gigabytes."""

    def __init__(self, name: str) -> None:
        self.name, self.bits, self.next = name, 0, 8 * 2**20

    def add(self, q: Any) -> Any:
        self.bits += int(q.p.bit_length()) + int(q.q.bit_length()) + 128
        if self.bits > self.next:
            self.next = 2 * self.bits
            # twice what is held: the polynomial built from them holds as much again
            check_cost(f"reading {self.name} (exact coefficients of {self.bits // 8} bytes "
                       "so far)", seconds=0.0, memory=self.bits / 4)
        return q


def format_table(rows: list[tuple[str, str]]) -> str:
    """Two-column key/value table for human output."""
    if not rows:
        return ""
    w = max(len(k) for k, _ in rows)
    return "\n".join(f"{k.ljust(w)}  {v}" for k, v in rows)
