"""The CSV side of the one data reader: a file read in blocks of whole lines.

A CSV input (a file or a stream such as standard input) is read in blocks of at most
:data:`BLOCK_BYTES` bytes, each cut after its last line end, so the memory of a read is
bounded by a few blocks whatever the size of the file, and every block knows the file
line of its first line.  Line ends are ``\\n``, ``\\r\\n`` and ``\\r``; a record is one
line (a quoted cell may not span lines).  A line longer than :data:`MAX_LINE_BYTES` is an
error where the reader would hold it alone -- the header, the first data row, a line across
two blocks -- so a file without line ends (``/dev/zero`` behind a pipe, a sparse file) is
refused after one block instead of being read whole; any other line lies inside one block.

Header rule (also stated in the ``--data`` help of the commands that read data): blank
lines (only spaces and tabs) are skipped; the first non-blank row is a **header** exactly
when none of its cells is a number; every data row consists of numbers only -- the ASCII
decimal literal ``[+-]digits[.digits][e[+-]digits]`` between optional spaces and tabs (not
``nan``, ``inf``, ``1_000``, hexadecimal or the digits of other scripts such as a full-width
``１``) -- has the width of the first data row, and is a finite binary64 value (``1e999``
is an error).  A UTF-8 byte order mark at the start of the input is skipped.

Each block of data lines is parsed by pyarrow when it is installed (its multi-threaded
parser on the block's bytes: float64 columns, no quoting, one row per line), else by one
regular-expression scan and numpy; a block either path refuses (a blank line, a quote, a
bad cell) goes through the strict path, one line at a time, which accepts it with the same
values or raises the error naming the line and column.  pyarrow's float grammar is the
strict one plus ``nan``/``inf`` (refused by the finiteness check) and it converts a decimal
literal to the nearest binary64 value, so every accepted block has the values of the strict
path (``tests/test_data.py`` and ``tests/test_data_reader_paths.py`` check the law).

Errors are :class:`DataValueError` (an :class:`~dpverify.errors.InvalidParameterError`)
naming the file, the line, the column and the rule the cell breaks -- never the cell itself,
which is private data; the text of the offending cell is kept in the exception's ``value``
for a caller that chooses to show it (``--show-values``).
"""

from __future__ import annotations

import csv
import io
import math
import re
from collections.abc import Iterator
from dataclasses import dataclass, replace
from typing import IO, Any

import numpy as np

from ..errors import InvalidParameterError

__all__ = [
    "BLOCK_BYTES",
    "MAX_LINE_BYTES",
    "NUMBER_RULE",
    "CsvReader",
    "DataSizeError",
    "DataTable",
    "DataValueError",
    "check_rows",
    "concat_tables",
    "csv_lines",
    "is_number",
    "read_csv_text",
    "size_text",
]

_NUM = r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?"
_NUMBER = re.compile(rf"[ \t]*{_NUM}[ \t]*\Z")
_BLANKS = " \t"
_EOL = re.compile(rb"\r\n|\r|\n")
_BOM = b"\xef\xbb\xbf"

#: Bytes read at a time (a block is then cut after its last line end).
BLOCK_BYTES = 1 << 22
#: Longest line accepted (a data row of 1000 columns of 25-character numbers is 26 KB).
MAX_LINE_BYTES = 1 << 20
#: How an error message states the grammar of a number.
NUMBER_RULE = "expected a number (an ASCII decimal literal such as -1.5e-3)"


def is_number(cell: str) -> bool:
    """Whether ``cell`` is a decimal number literal, possibly between spaces and tabs
    (header rule; ASCII digits only)."""
    return _NUMBER.match(cell) is not None


def size_text(n: int) -> str:
    """A byte count for messages: ``4 GiB``, ``1.5 MiB``, ``100 bytes``."""
    for unit, shift in (("TiB", 40), ("GiB", 30), ("MiB", 20), ("KiB", 10)):
        if n >= 1 << shift:
            v = n / (1 << shift)
            return f"{v:.0f} {unit}" if v == int(v) else f"{v:.1f} {unit}"
    return f"{n} bytes"


class DataValueError(InvalidParameterError):
    """A data file breaks a rule of the reader or of the mechanism's domain.

    ``str(exc)`` names the file, line or row, column and rule, never the offending cell
    (private data: messages reach logs that are not protected like the data); ``value``
    holds the cell's text (or ``None``) for a caller that chooses to show it."""

    def __init__(self, message: str, value: str | None = None) -> None:
        super().__init__(message, value)

    def __str__(self) -> str:
        return str(self.args[0])

    @property
    def value(self) -> str | None:
        return self.args[1] if len(self.args) > 1 else None

    def with_message(self, message: str) -> DataValueError:
        """The same error (same class and value) with another message."""
        return type(self)(message, self.value)

    def shown(self) -> str:
        """The message followed by the offending value, when there is one."""
        if self.value is None:
            return str(self)
        return f"{self} (value: {self.value[:80]!r})"


class DataSizeError(DataValueError):
    """The input is larger than the size cap (a parameter of every reader)."""


@dataclass(frozen=True)
class DataTable:
    """Data rows read from one file (or a block of it, or one Parquet batch) as a float64
    ``(n, c)`` array.

    ``first_line`` (CSV): the file line of row 0 when rows are consecutive lines, else
    ``lines`` holds the line of every row.  ``row_offset`` (Parquet): the file row of row
    0.  ``pieces`` (several files read into one table): ``(first row, table)`` of each
    piece, whose ``where`` names the rows.
    """

    values: np.ndarray
    path: str
    header: tuple[str, ...] | None
    kind: str  # "csv" or "parquet"
    first_line: int = 1
    lines: tuple[int, ...] | None = None
    row_offset: int = 0
    pieces: tuple[tuple[int, DataTable], ...] | None = None

    @property
    def n_rows(self) -> int:
        return int(self.values.shape[0])

    @property
    def width(self) -> int:
        return int(self.values.shape[1])

    def _piece(self, i: int) -> tuple[int, DataTable]:
        assert self.pieces is not None
        return max((p for p in self.pieces if p[0] <= i), key=lambda p: p[0])

    def location(self, i: int) -> str:
        """``"line L"`` (CSV) or ``"row R"`` (Parquet, 1-based) of data row ``i``."""
        if self.pieces is not None:
            start, piece = self._piece(i)
            return piece.location(i - start)
        if self.kind == "parquet":
            return f"row {self.row_offset + i + 1}"
        ln = self.lines[i] if self.lines is not None else self.first_line + i
        return f"line {ln}"

    def where(self, i: int, j: int | None = None) -> str:
        """``'file' line L column C`` for error messages (the column named when known)."""
        if self.pieces is not None:
            start, piece = self._piece(i)
            return piece.where(i - start, j)
        out = f"{self.path!r} {self.location(i)}"
        if j is not None:
            col = self.header[j] if self.kind == "parquet" and self.header else None
            out += f" column {j + 1}" + (f" ({col!r})" if col else "")
        return out


def _line_ends(b: bytes) -> int:
    """Number of line ends in ``b`` (``\\r\\n`` counts once).  Without ``\\r`` (found by
    ``memchr``) numpy counts the newlines: ``bytes.count`` is 4x slower on a block."""
    if b.find(b"\r") < 0:
        return int(np.count_nonzero(np.frombuffer(b, dtype=np.uint8) == 10))
    return b.count(b"\n") + b.count(b"\r") - b.count(b"\r\n")


def _lines_in(body: bytes, ends: int) -> int:
    """Number of lines of a block with ``ends`` line ends (the last line may lack its line
    end, at end of file)."""
    return ends + (0 if body.endswith((b"\n", b"\r")) else 1)


def _blocks(fh: IO[bytes], path: str,
            block_bytes: int) -> Iterator[tuple[int, bytes, int, int]]:
    """``(first line, block of whole lines, its line ends, bytes read so far)`` of ``fh``;
    a line is capped at :data:`MAX_LINE_BYTES` (the size of the input is capped in rows by
    the readers: a byte count would depend on how the values are written)."""
    carry = b""
    line = 1
    total = 0
    first = True
    # the first reads are short and grow to block_bytes: the consumer starts on the first
    # rows while the parser reads on (less time with nothing to overlap)
    size = min(block_bytes, 1 << 18)
    while True:
        try:
            raw = fh.read(size)
        except (OSError, ValueError) as exc:  # e.g. a stream closed under us
            raise DataValueError(f"cannot read {path!r}: {exc}") from None
        size = min(2 * size, block_bytes)
        total += len(raw)
        if first:
            first = False
            if raw.startswith(_BOM):
                raw = raw[len(_BOM):]
        data = carry + raw if carry else raw
        if not raw:  # end of input: the rest is the last block
            if data:
                yield line, data, _line_ends(data), total
            return
        cut = max(data.rfind(b"\n"), data.rfind(b"\r", 0, len(data) - 1)) + 1
        if cut == 0:
            if len(data) > MAX_LINE_BYTES:
                raise DataValueError(f"{path!r} line {line} is longer than "
                                     f"{size_text(MAX_LINE_BYTES)} (is it a text CSV file?)")
            carry = data
            continue
        body, carry = data[:cut], data[cut:]
        ends = _line_ends(body)
        if len(carry) > MAX_LINE_BYTES:
            raise DataValueError(f"{path!r} line {line + ends} is longer than "
                                 f"{size_text(MAX_LINE_BYTES)} (is it a text CSV file?)")
        yield line, body, ends, total
        line += ends


def _split_lines(text: str) -> Iterator[str]:
    """The lines of a decoded block (line ends ``\\r\\n``, ``\\r``, ``\\n``; unlike
    ``str.splitlines``, no other character ends a line)."""
    pos = 0
    for m in re.finditer(r"\r\n|\r|\n", text):
        yield text[pos:m.start()]
        pos = m.end()
    if pos < len(text):
        yield text[pos:]


def _decode(body: bytes, path: str, first_line: int) -> str:
    try:
        return body.decode("utf-8")
    except UnicodeDecodeError as exc:
        ln = first_line + _line_ends(body[:exc.start])
        raise DataValueError(f"{path!r} line {ln}: not UTF-8 text (is it a text CSV file?)",
                             repr(body[exc.start:exc.start + 4])) from None


def _cells(line: str, path: str, ln: int) -> list[str]:
    """The cells of one line, blanks stripped; quoting as in RFC 4180 within the line."""
    if "\x00" in line:
        raise DataValueError(f"{path!r} line {ln}: a NUL byte (is it a text CSV file?)")
    if '"' not in line:
        return [c.strip(_BLANKS) for c in line.split(",")]
    try:
        rec = next(csv.reader([line], strict=True))
    except csv.Error as exc:
        raise DataValueError(f"{path!r} line {ln}: malformed quoting ({exc}; a quoted "
                             "cell may not span lines)") from None
    return [c.strip(_BLANKS) for c in rec]


def csv_lines(fh: IO[bytes], path: str, *, comments: bool = False,
              block_bytes: int = BLOCK_BYTES) -> Iterator[tuple[int, list[str]]]:
    """``(line, cells)`` of every non-blank line of a CSV stream, read in blocks (bounded
    memory); ``comments``: lines whose first cell starts with ``#`` are skipped too.  No
    header rule and no size cap here (:class:`CsvReader` and the decision-list reader
    apply them, in rows)."""
    for first_line, body, _, _ in _blocks(fh, path, block_bytes):
        text = _decode(body, path, first_line)
        for ln, line in enumerate(_split_lines(text), start=first_line):
            if not line.strip(_BLANKS):
                continue
            cells = _cells(line, path, ln)
            if comments and cells[0].startswith("#"):
                continue
            yield ln, cells


def _arrow_block(body: bytes, c: int) -> np.ndarray | None:
    """pyarrow's multi-threaded parser on one block (float64 columns), or ``None`` when
    pyarrow is absent or refuses the block (a blank line is a 1-column row, an empty cell
    a null, a ragged row an error: the strict path then decides)."""
    try:
        import pyarrow as pa  # optional fast parser (the [dask] extra)
        from pyarrow import csv as pacsv
    except ImportError:
        return None
    names = [f"c{j}" for j in range(c)]
    try:
        # a pyarrow buffer, not a Python file: pyarrow's threads then never need the GIL
        # (a Python file read from its I/O threads can deadlock the interpreter's exit)
        tab = pacsv.read_csv(
            pa.BufferReader(body),
            read_options=pacsv.ReadOptions(column_names=names,
                                           block_size=max(1 << 20, len(body) // 2 + 1)),
            parse_options=pacsv.ParseOptions(quote_char=False, ignore_empty_lines=False),
            convert_options=pacsv.ConvertOptions(
                column_types={nm: pa.float64() for nm in names}))
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


def _row_pattern(c: int) -> str:
    cell = rf"[ \t]*{_NUM}[ \t]*"
    return rf"{cell}(?:,{cell}){{{c - 1}}}\r?"


def _numpy_block(body: bytes, c: int) -> np.ndarray | None:
    """Without pyarrow: one regular-expression scan finds the first line that is not a
    row of ``c`` numbers (in C, no Python loop); if there is none numpy converts the text
    (nearest binary64).  ``None``: the strict path decides."""
    try:
        text = body.decode("ascii")
    except UnicodeDecodeError:
        return None
    text = text.rstrip("\r\n")
    if not text or "\r" in text.replace("\r\n", "") or \
            re.search(rf"^(?!{_row_pattern(c)}$)", text, re.M) is not None:
        return None
    flat = np.array(text.replace("\r\n", "\n").replace("\n", ",").split(","),
                    dtype=np.float64)
    if flat.size % c:
        return None
    return flat.reshape(-1, c)


def _all_finite(X: np.ndarray) -> bool:
    """Two reductions, no temporary: ``min``/``max`` propagate ``nan``; ``inf`` shows."""
    return not X.size or bool(np.isfinite(X.min()) and np.isfinite(X.max()))


class CsvReader:
    """A CSV stream read in blocks with the header rule of the module docstring.

    :meth:`open` reads up to the first data row (the header and the width are then known;
    an input without data rows is an error); :meth:`tables` yields the data rows block by
    block as :class:`DataTable` objects (once).  ``max_bytes``: the size cap of the
    decoded values (8 bytes each: ``rows x width x 8``, a function of the number of rows
    and columns only, never of how the values are written); ``block_bytes``: bytes read
    at a time (default :data:`BLOCK_BYTES`);
    ``use_arrow=False``: never pyarrow (the numpy scan, then the strict path);
    ``strict_only``: the strict path alone (the reference, for tests and benchmarks)."""

    def __init__(self, fh: IO[bytes], path: str, *, max_bytes: int,
                 block_bytes: int | None = None, use_arrow: bool = True,
                 strict_only: bool = False) -> None:
        self.path = path
        self.header: tuple[str, ...] | None = None
        self.width: int | None = None
        self.bytes_read = 0
        self.rows_read = 0
        self.max_bytes = max_bytes
        self._use_arrow = use_arrow
        self._strict_only = strict_only
        self._blocks = _blocks(fh, path, BLOCK_BYTES if block_bytes is None else block_bytes)
        self._pending: tuple[int, bytes, int] | None = None

    def open(self) -> CsvReader:
        """Read up to the first data row (header rule); idempotent."""
        if self.width is not None:
            return self
        seen_first = False
        for first_line, body, _, total in self._blocks:
            self.bytes_read = total
            pos, ln = 0, first_line
            while pos < len(body):
                m = _EOL.search(body, pos)
                end, nxt = (m.start(), m.end()) if m else (len(body), len(body))
                if end - pos > MAX_LINE_BYTES:  # the header and the first row set the width
                    raise DataValueError(f"{self.path!r} line {ln} is longer than "
                                         f"{size_text(MAX_LINE_BYTES)} (is it a text CSV file?)")
                line = _decode(body[pos:end], self.path, ln)
                if not line.strip(_BLANKS):
                    pos, ln = nxt, ln + 1
                    continue
                cells = _cells(line, self.path, ln)
                if not seen_first:
                    seen_first = True
                    if not any(is_number(c) for c in cells):
                        self.header = tuple(cells)
                        pos, ln = nxt, ln + 1
                        continue
                self.width = len(cells)
                if self.header is not None and len(self.header) != self.width:
                    raise DataValueError(
                        f"{self.path!r}: the header has {len(self.header)} columns but the "
                        f"data rows have {self.width} (line {ln})")
                rest = body[pos:]
                self._pending = (ln, rest, _line_ends(rest))
                return self
        raise DataValueError(f"{self.path!r} has no data rows")

    def tables(self) -> Iterator[DataTable]:
        """The data rows, one :class:`DataTable` per block (rows in file order)."""
        self.open()
        if self._pending is None:
            raise InvalidParameterError(f"internal: {self.path!r} was read twice")
        first_line, body, ends = self._pending
        self._pending = None
        yield self._counted(self._table(body, first_line, ends))
        for first_line, body, ends, total in self._blocks:
            self.bytes_read = total
            tab = self._table(body, first_line, ends)
            if tab.n_rows:
                yield self._counted(tab)

    def _counted(self, tab: DataTable) -> DataTable:
        """Count the rows against the size cap (decoded values: rows x width x 8)."""
        self.rows_read += tab.n_rows
        check_rows(self.rows_read, tab.width, self.max_bytes, self.path)
        return tab

    def _table(self, body: bytes, first_line: int, ends: int) -> DataTable:
        c = self.width
        assert c is not None  # set by open()
        if self._strict_only:
            return self._strict(body, first_line)
        values = _arrow_block(body, c) if self._use_arrow else None
        if values is None:
            values = _numpy_block(body, c)
        if values is not None and values.shape[0] == _lines_in(body, ends) \
                and _all_finite(values):
            return DataTable(values, self.path, self.header, "csv", first_line=first_line)
        return self._strict(body, first_line)

    def _strict(self, body: bytes, first_line: int) -> DataTable:
        """The reference: one line at a time, one regular expression per cell and
        Python's correctly rounded ``float``; the error names the line and column."""
        c = self.width
        path = self.path
        rows: list[list[float]] = []
        lines: list[int] = []
        text = _decode(body, path, first_line)
        for ln, line in enumerate(_split_lines(text), start=first_line):
            if not line.strip(_BLANKS):
                continue
            cells = _cells(line, path, ln)
            if len(cells) != c:
                raise DataValueError(f"{path!r} line {ln}: {len(cells)} columns, expected {c}")
            row = []
            for j, cell in enumerate(cells):
                if not is_number(cell):
                    raise DataValueError(
                        f"{path!r} line {ln} column {j + 1}: {NUMBER_RULE} (a row with a "
                        "number is data; only a first row without numbers is a header)",
                        cell)
                v = float(cell)
                if not math.isfinite(v):
                    raise DataValueError(f"{path!r} line {ln} column {j + 1}: not a finite "
                                         "binary64 number (its magnitude overflows)", cell)
                row.append(v)
            rows.append(row)
            lines.append(ln)
        values = np.array(rows, dtype=np.float64).reshape(len(rows), c or 0)
        return DataTable(values, path, self.header, "csv",
                         first_line=lines[0] if lines else first_line, lines=tuple(lines))


def check_rows(rows: int, width: int, max_bytes: int, name: str) -> None:
    """The size cap in rows: ``rows x width`` values of 8 bytes must fit in ``max_bytes``.
    It depends on the number of rows and columns only (public under replace-one; a
    bound of the universe under add/remove), never on how the values are written."""
    if rows * max(width, 1) * 8 > max_bytes:
        limit = max_bytes // (8 * max(width, 1))
        raise DataSizeError(
            f"{name!r} has more than {limit} rows of {width} values: more than the size cap "
            f"of {size_text(max_bytes)} of decoded values (8 bytes each)")


def read_csv_text(path: str, text: str | bytes, **kw: Any) -> DataTable:
    """A whole CSV text through :class:`CsvReader` (tests and small inputs)."""
    raw = text.encode("utf-8") if isinstance(text, str) else text
    kw.setdefault("max_bytes", 8 * len(raw) + 8)  # more values than the text can hold
    r = CsvReader(io.BytesIO(raw), path, **kw)
    tabs = list(r.tables())
    return concat_tables(tabs)


def concat_tables(tabs: list[DataTable]) -> DataTable:
    """One table of several (rows in order; ``where`` names the piece's file and line)."""
    if len(tabs) == 1:
        return tabs[0]
    values = np.concatenate([t.values for t in tabs]) if tabs else np.empty((0, 0))
    pieces, start = [], 0
    for t in tabs:  # the pieces keep only what names a row (their values are copied once)
        pieces.append((start, replace(t, values=np.empty((0, t.width)))))
        start += t.n_rows
    t0 = tabs[0]
    return DataTable(values, t0.path, t0.header, t0.kind, pieces=tuple(pieces))

