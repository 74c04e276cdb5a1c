"""Reading data files: ONE reader (CSV and Parquet) for every command and every backend.

Header rule (also stated in the ``--data`` help of the commands that read data):

* blank lines are skipped;
* the first non-blank row is a **header** (skipped) exactly when **none** of its cells is a
  number; a row with at least one number is data;
* every data row must consist of numbers only (a decimal literal
  ``[+-]digits[.digits][e[+-]d]`` -- not ``nan``, ``inf``, ``1_000`` or hexadecimal) and have
  the width of the first data row; a number must be a finite binary64 value (``1e999`` is an
  error); anything else is an error naming the file, line and column (an out-of-domain value
  is an error, never a silently skipped row);
* the value domain of the mechanism (:class:`Domain`: ``[-1, 1]``, ``[0, 1]``, ``{0, 1}``,
  finite) is checked by :meth:`Domain.check`, whose error names the file, line (CSV) or row
  (Parquet) and column.

Parquet files (``.parquet`` / ``.pq``; needs pyarrow, ``pip install "dpverify[dask]"``):
every column must have an integer or floating type and no nulls; the column names are the
header.  Errors name the file, the 1-based row and the column.

Fast path (issue 15): only the head of a CSV (:data:`HEAD_BYTES`) is read into Python to
find the header and the width; pyarrow (when installed) then parses the file itself (its
multi-threaded reader, no copy of the text in Python) into float64 columns, which are
copied once, chunk by chunk, into the result.  pyarrow's float grammar is the strict one
plus ``nan``/``inf`` (refused by the finiteness check) and it converts a decimal literal to
the nearest binary64 value, so the result is the value of the strict reader.  Without
pyarrow, or when it refuses the file, the whole file is read: its data lines are validated
against the strict grammar by one regular-expression scan (``^(?!row$)``: the first line
that is *not* a row of ``c`` numbers, found in C without a Python loop) and converted by
numpy.  Anything neither path accepts (quotes, blank lines, unusual whitespace, a bad cell)
goes through the strict ``csv.reader`` path, which either accepts the file with the same
values or raises the error naming the line and column.  ``tests/test_data.py`` and
``tests/test_data_reader_paths.py`` check that the paths agree (the latter through
:func:`read_data` on files, i.e. pyarrow reading the file itself).

Errors are :class:`dpverify.errors.InvalidParameterError` naming the file (``path``), the
line or row and the column; they never mention command-line flags (the CLI prefixes
``--data``).

Guarantee
---------
Every returned value is the binary64 value nearest to the decimal text of its cell (CSV) or
the stored value (Parquet), finite; rows are in file order; the reader refuses rather than
skips anything it does not understand.
"""

from __future__ import annotations

import csv
import glob
import io
import os
import re
from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

from ..errors import InvalidParameterError, MissingExtraError, ParameterTypeError

__all__ = [
    "BINARY",
    "CUBE",
    "FINITE",
    "UNIT",
    "DataTable",
    "Domain",
    "Partition",
    "DATA_SUFFIXES",
    "HEAD_BYTES",
    "PARQUET_SUFFIXES",
    "csv_records",
    "expand_source",
    "is_number",
    "is_parquet",
    "list_partitions",
    "read_data",
    "read_partition",
    "source_width",
]

_NUM = r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?"
_NUMBER = re.compile(rf"^{_NUM}$")
PARQUET_SUFFIXES = (".parquet", ".pq")
DATA_SUFFIXES = (".csv", ".txt") + PARQUET_SUFFIXES


def is_number(cell: str) -> bool:
    """Whether ``cell`` (stripped) is a decimal number literal (header rule)."""
    return bool(_NUMBER.match(cell.strip()))


@dataclass(frozen=True)
class Domain:
    """The value domain of a mechanism's rows: ``[lower, upper]`` (``None``: unbounded),
    integers only when ``integers`` (``{0, 1}`` is ``Domain("{0, 1}", 0, 1, True)``)."""

    name: str
    lower: float | None = None
    upper: float | None = None
    integers: bool = False

    def bad_mask(self, X: np.ndarray) -> np.ndarray:
        """Boolean mask of the values outside the domain."""
        bad = ~np.isfinite(X)
        if self.lower is not None:
            bad |= X < self.lower
        if self.upper is not None:
            bad |= X > self.upper
        if self.integers:
            bad |= X != np.rint(X)
        return bad

    def contains_all(self, X: np.ndarray) -> bool:
        """Whether every value of ``X`` lies in the domain: for intervals two reductions
        (``min``/``max``: ``nan`` and ``inf`` fail the finiteness test) and no temporary
        array; the mask of :meth:`bad_mask` only for ``{0, 1}``-type domains."""
        if not X.size:
            return True
        if self.integers:
            return not self.bad_mask(X).any()
        lo, hi = float(X.min()), float(X.max())
        if not (np.isfinite(lo) and np.isfinite(hi)):
            return False
        return ((self.lower is None or lo >= self.lower)
                and (self.upper is None or hi <= self.upper))

    def check(self, table: DataTable) -> None:
        """Raise :class:`InvalidParameterError` naming the file, line/row and column of
        the first value outside the domain (row order)."""
        if self.contains_all(table.values):
            return
        bad = self.bad_mask(table.values)
        if bad.any():
            i, j = (int(v) for v in np.argwhere(bad)[0])
            raise InvalidParameterError(
                f"{table.where(i, j)}: {float(table.values[i, j])!r} is outside {self.name}")


FINITE = Domain("the finite numbers")
CUBE = Domain("[-1, 1]", -1.0, 1.0)
UNIT = Domain("[0, 1]", 0.0, 1.0)
BINARY = Domain("{0, 1}", 0.0, 1.0, integers=True)


@dataclass(frozen=True)
class DataTable:
    """The data rows of one file (or one Parquet row group) as a float64 ``(n, c)`` array.

    ``first_line`` (CSV): the file line of row 0 when rows are consecutive lines (fast path),
    else ``lines`` holds the line of every row.  ``row_offset`` (Parquet): the file row of
    row 0 (a row group starts inside the file).
    """

    values: np.ndarray
    path: str
    header: tuple[str, ...] | None
    kind: str  # "csv" or "parquet"
    first_line: int = 1
    lines: tuple[int, ...] | None = None
    row_offset: int = 0

    @property
    def n_rows(self) -> int:
        return int(self.values.shape[0])

    def location(self, i: int) -> str:
        """``"line L"`` (CSV) or ``"row R"`` (Parquet, 1-based) of data row ``i``."""
        if self.kind == "parquet":
            return f"row {self.row_offset + i + 1}"
        ln = self.lines[i] if self.lines is not None else self.first_line + i
        return f"line {ln}"

    def where(self, i: int, j: int | None = None) -> str:
        """``'file' line L column C`` for error messages (the column named when known)."""
        out = f"{self.path!r} {self.location(i)}"
        if j is not None:
            col = self.header[j] if self.kind == "parquet" and self.header else None
            out += f" column {j + 1}" + (f" ({col!r})" if col else "")
        return out


def _check_path(path: object) -> str:
    if not isinstance(path, str):
        raise ParameterTypeError(f"path must be a string, got {type(path).__name__}")
    return path


def is_parquet(path: str) -> bool:
    """Parquet by file name (``.parquet`` / ``.pq``); everything else is read as CSV."""
    return path.lower().endswith(PARQUET_SUFFIXES)


def read_data(path: str) -> DataTable:
    """Read one CSV or Parquet file with the rules of the module docstring.

    Raises
    ------
    InvalidParameterError
        Unreadable file, no data rows, a non-number or non-finite cell, ragged rows, a
        non-numeric Parquet column or a null; the message names the file, line/row and column.
    """
    path = _check_path(path)
    if is_parquet(path):
        return _read_parquet(path, None)
    return _check_header_width(_read_csv(path))


def _check_header_width(tab: DataTable) -> DataTable:
    width = tab.values.shape[1] if tab.values.ndim == 2 else 1
    if tab.header is not None and len(tab.header) != width:
        raise InvalidParameterError(
            f"{tab.path!r}: the header has {len(tab.header)} columns "
            f"({', '.join(tab.header)[:80]}) but the data rows have {width}")
    return tab


def _read_csv(path: str) -> DataTable:
    try:
        with open(path, "rb") as fh:
            head = fh.read(HEAD_BYTES)
            # pyarrow parses the file itself: the data are never copied into Python
            tab = _read_csv_fast(path, None, head)
            if tab is not None:
                return tab
            fh.seek(0)
            raw = fh.read()
    except OSError as exc:
        raise InvalidParameterError(f"cannot read {path!r}: {exc.strerror}") from None
    tab = _read_csv_fast(path, raw, use_arrow=False)  # pyarrow failed or is absent
    if tab is not None:
        return tab
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InvalidParameterError(f"{path!r} is not a text CSV file: {exc}") from None
    return _read_csv_strict(path, text)


def _row_pattern(c: int) -> str:
    cell = rf"[ \t]*{_NUM}[ \t]*"
    return rf"{cell}(?:,{cell}){{{c - 1}}}\r?"


#: Bytes read to find the header and the width before pyarrow parses the file itself.
HEAD_BYTES = 1 << 16


def _read_csv_fast(path: str, raw: bytes | None, head: bytes | None = None, *,
                   use_arrow: bool = True) -> DataTable | None:
    """The fast path, or ``None`` when the strict reader must decide (module docstring).

    ``raw``: the whole file, or ``None``: pyarrow then reads ``path`` itself and only
    ``head`` (the first :data:`HEAD_BYTES` bytes) is seen here (``None`` is returned when
    pyarrow is absent, so that the caller reads the file).  Only the first lines are
    decoded here: pyarrow accepts nothing but the ASCII of numbers in a float column, so
    the rest needs no UTF-8 check on this path."""
    if head is None:
        head = raw[:HEAD_BYTES] if raw is not None else b""
    lines = head.split(b"\n", 2)
    if raw is None and len(head) == HEAD_BYTES and len(lines) < 3:
        return None  # the first two lines may be cut: decide on the whole file
    try:
        first = lines[0].decode("utf-8")
        second = lines[1].decode("utf-8") if len(lines) > 1 else ""
    except UnicodeDecodeError:
        return None
    if not first.strip() or '"' in first or "\r" in first.rstrip("\r"):
        return None  # quoting or CR-only line ends: the strict reader decides
    cells = [c.strip() for c in next(csv.reader([first]))]
    header: tuple[str, ...] | None = None
    line, first_line = first, 1
    if not any(is_number(c) for c in cells):
        if len(lines) < 2:
            return None
        header, line, first_line = tuple(cells), second, 2
    if not line.strip():
        return None
    c = line.count(",") + 1
    values = _convert_arrow(path if raw is None else raw, first_line - 1, c) \
        if use_arrow else None
    if values is None:
        if raw is None:
            return None
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError:
            return None
        body = text.split("\n", 1)[1] if header is not None else text
        body = body.rstrip("\r\n")
        if not body or re.search(rf"^(?!{_row_pattern(c)}$)", body, re.M) is not None:
            return None  # some line is not a row of c numbers: the strict reader decides
        values = _convert_numpy(body, c)
    if values is None or not values.shape[0] or not _all_finite(values):
        return None
    return DataTable(values, path, header, "csv", first_line=first_line)


def _convert_arrow(source: str | bytes, skip: int, c: int) -> np.ndarray | None:
    """pyarrow's multi-threaded CSV parser on a file name or the file's bytes, when
    installed, or ``None``.

    Every cell pyarrow converts to a finite float64 is a strict decimal literal after
    stripping blanks, with the same value (tests/test_data.py checks this on random
    strings): its float grammar is ``[-+]?digits[.digits][e[-+]digits]`` plus ``nan``/``inf``
    (caught by the finiteness check).  A blank line (a 1-column row), an empty cell (a null)
    or a ragged row makes it fail, and the strict reader decides."""
    try:
        import pyarrow as pa  # optional fast converter (the [dask] extra)
        from pyarrow import csv as pacsv
    except ImportError:
        return None
    names = [f"c{j}" for j in range(c)]
    try:
        tab = pacsv.read_csv(
            source if isinstance(source, str) else io.BytesIO(source),
            read_options=pacsv.ReadOptions(column_names=names, skip_rows=skip),
            parse_options=pacsv.ParseOptions(quote_char=False, ignore_empty_lines=False),
            convert_options=pacsv.ConvertOptions(
                column_types={nm: pa.float64() for nm in names}),
        )
    except (pa.ArrowException, OSError):
        return None
    out = np.empty((tab.num_rows, c), dtype=np.float64)
    for j in range(c):
        col = tab.column(j)
        if col.null_count:
            return None
        i0 = 0
        for chunk in col.chunks:  # one copy per chunk, straight into the result
            k = len(chunk)
            out[i0:i0 + k, j] = chunk.to_numpy(zero_copy_only=False)
            i0 += k
    return out


def _all_finite(X: np.ndarray) -> bool:
    """Two reductions, no temporary: ``min``/``max`` propagate ``nan``; ``inf`` shows."""
    return bool(np.isfinite(X.min()) and np.isfinite(X.max()))


def _convert_numpy(body: str, c: int) -> np.ndarray | None:
    """Text validated by the row pattern -> float64 ``(n, c)`` (nearest binary64)."""
    flat = np.array(body.replace("\n", ",").split(","), dtype=np.float64)
    if flat.size % c:
        return None
    return flat.reshape(-1, c)


def csv_records(path: str, text: str | None = None, *,
                comments: bool = False) -> Iterator[tuple[int, list[str]]]:
    """``(line, stripped cells)`` of every data row of a CSV text (read from ``path`` when
    ``text`` is ``None``), after the header rule: blank rows skipped, a first row without
    any number skipped as the header; ``comments``: rows whose first cell starts with ``#``
    are skipped too.  Used by the strict reader and by readers of other row formats
    (decision lists), so that every CSV input follows one rule."""
    path = _check_path(path)
    if text is None:
        try:
            with open(path, "rb") as fh:
                text = fh.read().decode("utf-8")
        except OSError as exc:
            raise InvalidParameterError(f"cannot read {path!r}: {exc.strerror}") from None
        except UnicodeDecodeError as exc:
            raise InvalidParameterError(f"{path!r} is not a text CSV file: {exc}") from None
    seen_first = False
    try:
        for ln, rec in enumerate(csv.reader(io.StringIO(text, newline="")), start=1):
            cells = [c.strip() for c in rec]
            if len(cells) <= 1 and all(c == "" for c in cells):
                continue  # a blank line; a row of empty cells (",") is data with missing values
            if comments and cells[0].startswith("#"):
                continue
            if not seen_first:
                seen_first = True
                if not any(is_number(c) for c in cells):
                    continue  # header: a first row without any number
            yield ln, cells
    except csv.Error as exc:
        raise InvalidParameterError(f"{path!r} is not a text CSV file: {exc}") from None


def _header(text: str) -> tuple[str, ...] | None:
    for rec in csv.reader(io.StringIO(text, newline="")):
        cells = [c.strip() for c in rec]
        if not cells or all(c == "" for c in cells):
            continue
        return None if any(is_number(c) for c in cells) else tuple(cells)
    return None


def _read_csv_strict(path: str, text: str) -> DataTable:
    rows: list[list[str]] = []
    lines: list[int] = []
    for ln, cells in csv_records(path, text):
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
    header = _header(text)
    if not rows:
        raise InvalidParameterError(f"{path!r} has no data rows")
    values = np.array([[float(c) for c in row] for row in rows], dtype=np.float64)
    tab = DataTable(values, path, header, "csv", first_line=lines[0], lines=tuple(lines))
    if not np.all(np.isfinite(values)):
        i, j = (int(v) for v in np.argwhere(~np.isfinite(values))[0])
        raise InvalidParameterError(
            f"{tab.where(i, j)}: {rows[i][j][:40]!r} is not a finite binary64 number")
    return tab


def _pyarrow_parquet():
    try:
        import pyarrow.parquet as pq  # optional extra: only Parquet input needs it
    except ImportError:
        raise MissingExtraError(
            'reading Parquet needs pyarrow: pip install "dpverify[dask]"') from None
    return pq


def _read_parquet(path: str, row_group: int | None) -> DataTable:
    pq = _pyarrow_parquet()
    import pyarrow as pa  # present whenever pyarrow.parquet imported

    try:
        pf = pq.ParquetFile(path)
        offset = sum(pf.metadata.row_group(i).num_rows for i in range(row_group or 0))
        tab = pf.read() if row_group is None else pf.read_row_group(row_group)
    except OSError as exc:
        raise InvalidParameterError(
            f"cannot read {path!r} as Parquet: {getattr(exc, 'strerror', None) or exc}") from None
    except (pa.ArrowException, ValueError) as exc:
        raise InvalidParameterError(f"{path!r} is not a valid Parquet file: {exc}") from None
    names = tuple(tab.column_names)
    if not names:
        raise InvalidParameterError(f"{path!r} has no columns")
    out = np.empty((tab.num_rows, len(names)), dtype=np.float64)
    for j, nm in enumerate(names):
        col = tab.column(j)
        if not (pa.types.is_integer(col.type) or pa.types.is_floating(col.type)):
            raise InvalidParameterError(
                f"{path!r} column {j + 1} ({nm!r}) has type {col.type}; expected numbers")
        if col.null_count:
            i = int(np.flatnonzero(col.is_null().to_numpy(zero_copy_only=False))[0])
            raise InvalidParameterError(
                f"{path!r} row {offset + i + 1} column {j + 1} ({nm!r}): missing value")
        out[:, j] = col.to_numpy()
    table = DataTable(out, path, names, "parquet", row_offset=offset)
    if row_group is None and not table.n_rows:
        raise InvalidParameterError(f"{path!r} has no data rows")
    if not np.all(np.isfinite(out)):
        i, j = (int(v) for v in np.argwhere(~np.isfinite(out))[0])
        raise InvalidParameterError(f"{table.where(i, j)}: {float(out[i, j])!r} is not finite")
    return table


@dataclass(frozen=True)
class Partition:
    """One unit of work of a distributed read: a CSV file, or one row group of a Parquet
    file (``row_group`` set), so that a partition's memory is bounded by the writer's row
    group size."""

    path: str
    row_group: int | None = None


def expand_source(source: str) -> list[str]:
    """The data files of ``source``: a file, a directory (its ``.csv``/``.txt``/Parquet
    files) or a glob pattern; sorted, so partitions have a fixed order."""
    source = _check_path(source)
    if os.path.isdir(source):
        files = sorted(os.path.join(source, f) for f in os.listdir(source)
                       if f.lower().endswith(DATA_SUFFIXES) and not f.startswith((".", "_")))
    elif any(ch in source for ch in "*?["):
        files = sorted(f for f in glob.glob(source) if os.path.isfile(f))
    elif os.path.isfile(source):
        files = [source]
    else:
        raise InvalidParameterError(f"cannot read {source!r}: no such file or directory")
    if not files:
        raise InvalidParameterError(f"{source!r} matches no data files (.csv, .txt, .parquet)")
    return files


def list_partitions(source: str) -> list[Partition]:
    """Partitions of ``source`` (:func:`expand_source`): one per CSV file, one per Parquet
    row group (the file's metadata is read here)."""
    parts: list[Partition] = []
    for f in expand_source(source):
        if is_parquet(f):
            pq = _pyarrow_parquet()
            try:
                groups = pq.ParquetFile(f).metadata.num_row_groups
            except Exception as exc:  # pyarrow raises several types for a corrupt footer
                raise InvalidParameterError(f"{f!r} is not a valid Parquet file: {exc}") from None
            parts.extend(Partition(f, g) for g in range(max(groups, 1)))
        else:
            parts.append(Partition(f))
    return parts


def source_width(source: str) -> int:
    """Number of columns of the first file of ``source`` (Parquet: from the schema; CSV:
    the first data row), read without loading the data."""
    f = expand_source(source)[0]
    if is_parquet(f):
        pq = _pyarrow_parquet()
        try:
            return len(pq.ParquetFile(f).schema_arrow.names)
        except Exception as exc:  # pyarrow raises several types for a corrupt footer
            raise InvalidParameterError(f"{f!r} is not a valid Parquet file: {exc}") from None
    for _, cells in csv_records(f):
        return len(cells)
    raise InvalidParameterError(f"{f!r} has no data rows")


def read_partition(part: Partition) -> DataTable:
    """Read one :class:`Partition` (same rules and errors as :func:`read_data`; an empty
    Parquet row group gives 0 rows)."""
    if not isinstance(part, Partition):
        raise ParameterTypeError(f"part must be a Partition, got {type(part).__name__}")
    if is_parquet(part.path):
        return _read_parquet(part.path, 0 if part.row_group is None else part.row_group)
    return read_data(part.path)
