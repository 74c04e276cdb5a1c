"""Headers of data files: columns are read by position, headers are checked.

A source's files must all carry the same header (when they have one), and a caller may
name the columns it expects (``--columns``): a header that names a column differently --
a typo, another order -- is an error that says the columns are positional.  Errors are
:class:`~dpverify.mechanisms.data_csv.DataValueError` naming the file and the column.

Guarantee
---------
A file whose header differs from the expected names is refused; nothing is reordered by
name.
"""

from __future__ import annotations

from typing import Any

from ..errors import InvalidParameterError, ParameterTypeError
from .data_csv import DataValueError

__all__ = ["check_columns", "check_header"]


def check_columns(columns: Any) -> tuple[str, ...] | None:
    """``columns`` as a tuple of names (a comma-separated string or a sequence), or None."""
    if columns is None:
        return None
    if isinstance(columns, str):
        names = tuple(c.strip() for c in columns.split(","))
    elif isinstance(columns, (list, tuple)) and all(isinstance(c, str) for c in columns):
        names = tuple(c.strip() for c in columns)
    else:
        raise ParameterTypeError("columns must be a comma-separated string or a sequence of "
                                 "names")
    if not names or not all(names):
        raise InvalidParameterError("columns must name every column (no empty name)")
    return names


def check_header(header: tuple[str, ...] | None, expected: tuple[str, ...] | None,
                 path: str, *, first: str | None = None, given: bool = True) -> None:
    """A file's header against the expected names.  Columns are read by position, so a
    header that names them differently (a typo, another order) is an error that says so;
    a file without a header is accepted unless names were given (``given``)."""
    if expected is None:
        return
    if header is None:
        if given:
            raise DataValueError(f"{path!r} has no header, but the columns were named "
                                 f"({', '.join(expected)}): columns are read by position and "
                                 "the names only check the header")
        return
    if tuple(header) == tuple(expected):
        return
    if len(header) != len(expected):
        raise DataValueError(f"{path!r}: the header has {len(header)} columns, expected "
                             f"{len(expected)} ({', '.join(expected)})")
    j = next(i for i, (a, b) in enumerate(zip(header, expected, strict=True)) if a != b)
    where = "the names given" if given else f"the header of {first!r}"
    raise DataValueError(
        f"{path!r}: the header names column {j + 1} {header[j]!r} where {where} has "
        f"{expected[j]!r}; columns are read by position, not by name (rename or reorder the "
        "columns so that every header matches)")
