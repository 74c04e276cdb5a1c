"""Reading CSV data files: one explicit header rule for every data reader.

Rule (also stated in the ``--data`` help of the commands that read CSV data):

* blank lines are skipped;
* the first non-blank row is a **header** (skipped) exactly when **none** of its cells is a
  number; a row with at least one number is data;
* every data row must consist of numbers only (a decimal literal ``[+-]digits[.digits][e[+-]d]``
  -- not ``nan``, ``inf``, ``1_000`` or hexadecimal) and have the width of the first data
  row; anything else is an error naming the file, line and column (an out-of-domain value
  is an error, never a silently skipped row);
* the caller checks the value domain (0/1, [-1, 1], [0, 1], finite) on the parsed rows.

Errors are :class:`dpverify.errors.InvalidParameterError` naming the file (``path``), the
line and the column; they never mention command-line flags (the CLI prefixes ``--data``).
"""

from __future__ import annotations

import csv
import re
from dataclasses import dataclass

from ..errors import InvalidParameterError, ParameterTypeError

__all__ = ["CsvTable", "is_number", "read_csv_cells"]

_NUMBER = re.compile(r"^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$")


def is_number(cell: str) -> bool:
    """Whether ``cell`` (stripped) is a decimal number literal (header rule)."""
    return bool(_NUMBER.match(cell.strip()))


@dataclass(frozen=True)
class CsvTable:
    """The data rows of a CSV file as stripped strings, and its header (if any)."""

    rows: list[list[str]]
    lines: list[int]  # 1-based file line of each row
    header: list[str] | None

    @property
    def n_rows(self) -> int:
        return len(self.rows)


def read_csv_cells(path: str) -> CsvTable:
    """Read ``path`` with the header rule of the module docstring.

    Raises
    ------
    InvalidParameterError
        Unreadable file, no data rows, a non-number cell in a data row, ragged rows.
    """
    if not isinstance(path, str):
        raise ParameterTypeError(f"path must be a string, got {type(path).__name__}")
    rows: list[list[str]] = []
    lines: list[int] = []
    header: list[str] | None = None
    seen_first = False
    try:
        with open(path, encoding="utf-8", newline="") as fh:
            for ln, rec in enumerate(csv.reader(fh), start=1):
                cells = [c.strip() for c in rec]
                if not cells or all(c == "" for c in cells):
                    continue
                if not seen_first:
                    seen_first = True
                    if not any(is_number(c) for c in cells):
                        header = cells
                        continue
                bad = [j for j, c in enumerate(cells) if not is_number(c)]
                if bad:
                    raise InvalidParameterError(
                        f"{path!r} line {ln} column {bad[0] + 1}: expected a number, got "
                        f"{cells[bad[0]][:40]!r} (a row with a number is data; only a first "
                        "row without numbers is a header)")
                if rows and len(cells) != len(rows[0]):
                    raise InvalidParameterError(
                        f"{path!r} line {ln}: {len(cells)} columns, expected {len(rows[0])}")
                rows.append(cells)
                lines.append(ln)
    except OSError as exc:
        raise InvalidParameterError(f"cannot read {path!r}: {exc.strerror}") from None
    except (UnicodeDecodeError, csv.Error) as exc:
        raise InvalidParameterError(f"{path!r} is not a text CSV file: {exc}") from None
    if not rows:
        raise InvalidParameterError(f"{path!r} has no data rows")
    return CsvTable(rows, lines, header)
