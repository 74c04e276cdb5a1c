"""The data flags of the release commands (no mathematics here).

``--data SOURCE`` (a CSV or Parquet file, a directory of them, a glob, or ``-`` for standard
input), ``--max-data-size SIZE`` (the size cap of the source, in decoded values: a cap in
rows), ``--columns NAMES`` (check the header), ``--show-values`` (put the offending cell in
data error messages), ``--timeout`` (the wall-clock limit every long command takes), the
announcement of ``--insecure-seed`` on stderr and ``--neighbours`` (the neighbouring
relation a release is accounted for).
"""

from __future__ import annotations

import argparse
import re
import sys
from typing import Any

from ..errors import InvalidParameterError
from ._cert import timeout_flag
from ._common import data_errors, int_flag

__all__ = [
    "DATA_RULES",
    "DEFAULT_MAX_DATA_SIZE",
    "RELEASE_TIMEOUT",
    "data_call",
    "data_flags",
    "insecure_seed",
    "max_data_bytes",
    "neighbours_flag",
    "open_data",
    "reraise",
    "seed_flag",
]

#: Default ``--max-data-size`` (the library's ``DEFAULT_MAX_BYTES``, 4 GiB).
DEFAULT_MAX_DATA_SIZE = "4G"
#: Default ``--timeout`` of the release commands, in seconds.
RELEASE_TIMEOUT = 600

#: What every ``--data`` help says (the reader's rules, dpverify.mechanisms.data).
DATA_RULES = ("a file, a directory of .csv/.parquet files, a glob, or '-' for standard "
              "input (CSV); regular files only (a FIFO or device is refused: pipe it to "
              "'-'); the first row is a header iff none of its cells is a number")


def data_flags(parser: argparse.ArgumentParser, what: str, *, required: bool = True) -> None:
    """``--data``, ``--max-data-size``, ``--show-values`` and ``--timeout``."""
    parser.add_argument("--data", required=required, default=None, type=str,
                        metavar="SOURCE", help=f"{what}: {DATA_RULES}")
    parser.add_argument(
        "--max-data-size", dest="max_data_size", default=DEFAULT_MAX_DATA_SIZE,
        metavar="SIZE",
        help="size cap of --data in decoded values: rows x columns x 8 bytes at most SIZE "
        "(a cap in rows: it never depends on how the values are written, so it reveals "
        "nothing beyond n); suffixes K, M, G, T are powers of 1024 (default "
        f"{DEFAULT_MAX_DATA_SIZE}); rows are read in blocks of a few MiB, so a release that "
        "sums over rows needs little memory whatever the size")
    parser.add_argument(
        "--columns", default=None, metavar="NAMES",
        help="comma-separated column names: every file's header must read exactly so "
        "(columns are read by position; this only checks the header, e.g. for a typo)")
    parser.add_argument(
        "--show-values", dest="show_values", action="store_true",
        help="put the offending cell in data error messages (for debugging on your own "
        "data: by default a message names the file, line, column and rule only, since "
        "messages reach logs that are not protected like the data)")
    timeout_flag(parser, default=RELEASE_TIMEOUT)


def neighbours_flag(parser: argparse.ArgumentParser) -> None:
    """``--neighbours replace|add-remove``: the neighbouring relation of the accounting."""
    parser.add_argument(
        "--neighbours", default="replace", metavar="REL",
        help="neighbouring relation of the privacy accounting: replace (same n, public; one "
        "row replaced; the papers' relation) or add-remove (one row added or removed; n is "
        "not published: noisy sums and a noisy count)")


def seed_flag(parser: argparse.ArgumentParser) -> None:
    """``--insecure-seed S`` (announced on stderr when given: :func:`insecure_seed`)."""
    parser.add_argument("--insecure-seed", dest="insecure_seed", default=None, type=str,
                        metavar="S", help="reproducible NON-PRIVATE noise (testing only; "
                        "announced on stderr)")


# the grammar of --max-memory and --max-input (dpverify.budget.parse_memory) less the
# share of the machine, which does not bound a file: 4G, 1.5G, 500M, 2GiB, 123456
_SIZE = re.compile(r"([0-9]+)(?:\.([0-9]+))?\s*([KMGT]?)(?:i?B)?\Z", re.IGNORECASE | re.ASCII)


def max_data_bytes(args: Any) -> int:
    """``--max-data-size`` in bytes (``4G``, ``1.5G``, ``500M``, ``123456``: binary units,
    a fraction only with a unit; at least 1, at most 1 PiB)."""
    raw = getattr(args, "max_data_size", None)
    text = str(DEFAULT_MAX_DATA_SIZE if raw is None else raw).strip()
    m = _SIZE.match(text)
    if m is None or len(m.group(1)) > 16 or (m.group(2) and not m.group(3)) or \
            len(m.group(2) or "") > 6:
        raise InvalidParameterError(
            f"--max-data-size must be a size in bytes such as 4G, 1.5G, 500M or 123456 "
            f"(K, M, G, T: powers of 1024), got {text[:40]!r}")
    shift = 10 * " KMGT".index(m.group(3).upper() or " ")
    frac = m.group(2) or ""
    value = (int(m.group(1) + frac) << shift) // 10 ** len(frac)
    if not 1 <= value <= 1 << 50:
        raise InvalidParameterError(f"--max-data-size must be in [1, 1P] bytes, got {text!r}")
    return value


def data_call(args: Any, fn: Any, *a: Any, flag: str = "--data", **kw: Any) -> Any:
    """Call ``fn``; a data error of the library (its message names the file, never a
    flag) gets ``flag`` in front, the offending value when ``--show-values`` was given,
    and, for the size cap, how to raise it; an error naming the ``scheduler``/``backend``
    parameter names the flag instead."""
    # deferred: `dpverify --help` imports every command module (CLI start-up)
    from ..mechanisms.data import DataSizeError, DataValueError

    try:
        return fn(*a, **kw)
    except DataValueError as exc:
        msg = exc.shown() if getattr(args, "show_values", False) else str(exc)
        if isinstance(exc, DataSizeError):
            msg += " (raise it with --max-data-size)"
        raise exc.with_message(f"{flag} {msg}") from None
    except InvalidParameterError as exc:
        return data_errors(reraise, exc, flag=flag)  # the other library errors


def reraise(exc: BaseException) -> Any:
    """Raise ``exc`` (to hand an error already caught to a wrapper that calls a function)."""
    raise exc


def open_data(args: Any, backend: str = "local", flag: str = "--data") -> Any:
    """The :class:`~dpverify.mechanisms.data.DataSource` of ``--data`` under the size cap
    (files listed and sizes checked; nothing read yet).  Standard input (``-``) is read
    by the local backend only."""
    # deferred: `dpverify --help` imports every command module (CLI start-up)
    from ..mechanisms.data import STDIN, DataSource

    spec = getattr(args, flag.lstrip("-").replace("-", "_"))
    if spec == STDIN and backend != "local":
        raise InvalidParameterError(f"{flag} - (standard input) needs --backend local: "
                                    "Dask workers read files")
    return data_call(args, DataSource, spec, max_bytes=max_data_bytes(args), flag=flag,
                     columns=getattr(args, "columns", None))


def insecure_seed(args: Any, prog: str) -> int | None:
    """``--insecure-seed`` as an integer (``None`` when absent); when given, a warning
    on stderr says at once that the noise is reproducible and the release NOT private."""
    if getattr(args, "insecure_seed", None) is None:
        return None
    seed = int_flag(args.insecure_seed, "--insecure-seed", minimum=0)
    sys.stderr.write(f"{prog}: warning: --insecure-seed {seed}: the noise is reproducible "
                     "and the release is NOT private (for tests only; never publish it)\n")
    return seed
