"""Reading data files: ONE reader (CSV and Parquet) for every command and every backend.

Sources (:class:`DataSource`): a CSV or Parquet file, a directory (its ``.csv``, ``.txt``,
``.parquet``, ``.pq`` files, sorted; names starting with ``.`` or ``_`` skipped), a glob
pattern, or ``-`` for standard input (CSV only).  Only regular files are read: a FIFO, a
device (``/dev/zero``), a socket or a symbolic link to one is refused before anything is
read (a file is opened without blocking and checked with ``fstat``), so a read never waits
on a writer; a stream is read through ``-``.

Size cap: a source may hold at most ``max_bytes`` bytes of **decoded values** (default
:data:`DEFAULT_MAX_BYTES`, 4 GiB): ``rows x columns x 8``.  It is a cap in rows -- a function
of the number of rows and columns only, never of how the values are written (``0.5`` and
``0.123456789`` count the same), so it is public under replace-one neighbours (``n`` is
public) and a bound of the universe under add/remove neighbours.  Parquet files are checked
from their metadata before any value is read, CSV files and standard input while they are
read, and the rows held in memory (:func:`read_data`) the same way.  Exceeding it raises
:class:`DataSizeError`.  (A text line longer than 1 MiB is malformed, a rule of the row
domain.)

Headers: columns are read **by position**.  The header of every file of a source must equal
the first file's (when both have one), and ``columns=`` (expected names) checks every
header; a mismatch is an error that says so.

Streaming: :meth:`DataSource.tables` yields the rows as a sequence of :class:`DataTable`
blocks (CSV: blocks of at most :data:`~dpverify.mechanisms.data_csv.BLOCK_BYTES` bytes of
whole lines, :mod:`dpverify.mechanisms.data_csv`; Parquet: record batches of at most
:data:`PARQUET_BATCH_VALUES` values), so a release that sums over rows holds a few blocks,
whatever the size of the input.  The CSV grammar, the header rule and the guarantee that the
fast parser returns the values of the strict one are stated in
:mod:`dpverify.mechanisms.data_csv`.

Parquet (``.parquet`` / ``.pq``; needs pyarrow, ``pip install "dpverify[dask]"``): every
column must have an integer or floating type and no nulls; the column names are the header.
Errors name the file, the 1-based row and the column.

Errors are :class:`~dpverify.mechanisms.data_csv.DataValueError` (an
:class:`~dpverify.errors.InvalidParameterError`) naming the file (``path``), the line or
row, the column and the rule -- never the value of a cell (``value`` keeps it for a caller
that shows it on request); they never mention command-line flags (the CLI prefixes
``--data``).

Guarantee
---------
Every returned value is the binary64 value nearest to the decimal text of its cell (CSV) or
the stored value (Parquet), finite; rows are in file order (files in sorted order); the
reader refuses rather than skips anything it does not understand.
"""

from __future__ import annotations

import glob
import io
import os
import stat
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from typing import IO, Any

import numpy as np

from ..atomic import NotRegularFile, file_kind, open_regular
from ..errors import InvalidParameterError, MissingExtraError, ParameterTypeError
from .data_csv import (
    CsvReader,
    DataSizeError,
    DataTable,
    DataValueError,
    check_rows,
    concat_tables,
    csv_lines,
    is_number,
    size_text,
)
from .data_header import check_columns, check_header

__all__ = [
    "BINARY",
    "CUBE",
    "DATA_SUFFIXES",
    "DEFAULT_MAX_BYTES",
    "FINITE",
    "PARQUET_BATCH_VALUES",
    "PARQUET_SUFFIXES",
    "STDIN",
    "UNIT",
    "DataSizeError",
    "DataSource",
    "DataTable",
    "DataValueError",
    "Domain",
    "Partition",
    "as_source",
    "check_header",
    "csv_records",
    "expand_source",
    "is_number",
    "is_parquet",
    "list_partitions",
    "open_data_file",
    "partition_tables",
    "read_data",
    "read_partition",
    "source_width",
]

PARQUET_SUFFIXES = (".parquet", ".pq")
DATA_SUFFIXES = (".csv", ".txt") + PARQUET_SUFFIXES
#: Default size cap of a data source (bytes; :class:`DataSource`).
DEFAULT_MAX_BYTES = 4 << 30
#: Values per Parquet record batch (a batch of a 2-column file has 2^19 rows).
PARQUET_BATCH_VALUES = 1 << 20
#: The source name of standard input.
STDIN = "-"


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
        """Raise :class:`DataValueError` naming the file, line/row and column of the first
        value outside the domain (row order); the value itself is only in ``value``."""
        if self.contains_all(table.values):
            return
        bad = self.bad_mask(table.values)
        if bad.any():
            i, j = (int(v) for v in np.argwhere(bad)[0])
            raise DataValueError(f"{table.where(i, j)}: the value is outside {self.name}",
                                 repr(float(table.values[i, j])))


FINITE = Domain("the finite numbers")
CUBE = Domain("[-1, 1]", -1.0, 1.0)
UNIT = Domain("[0, 1]", 0.0, 1.0)
BINARY = Domain("{0, 1}", 0.0, 1.0, integers=True)


def _check_path(path: object) -> str:
    if not isinstance(path, str):
        raise ParameterTypeError(f"path must be a string, got {type(path).__name__}")
    return path


def _check_max_bytes(max_bytes: object) -> int:
    if isinstance(max_bytes, bool) or not isinstance(max_bytes, int):
        raise ParameterTypeError(f"max_bytes must be an integer, got {type(max_bytes).__name__}")
    if max_bytes < 1:
        raise InvalidParameterError(f"max_bytes must be >= 1, got {max_bytes}")
    return max_bytes


def is_parquet(path: str) -> bool:
    """Parquet by file name (``.parquet`` / ``.pq``); everything else is read as CSV."""
    return path.lower().endswith(PARQUET_SUFFIXES)


def _not_regular(path: str, mode: int) -> DataValueError:
    kind = file_kind(mode) or "not a regular file"
    if kind == "a FIFO":  # a data stream is often a pipe: say what a FIFO is
        kind = "a FIFO (named pipe)"
    return DataValueError(f"{path!r} is {kind}, not a regular file; a stream is read as "
                          "standard input ('-')")


def _stat(path: str) -> os.stat_result:
    try:
        return os.stat(path)
    except OSError as exc:
        raise DataValueError(f"cannot read {path!r}: {exc.strerror}") from None


def open_data_file(path: str) -> IO[bytes]:
    """Open a regular file for reading without ever blocking: opened with ``O_NONBLOCK``
    (a FIFO without writer does not stall the open) and refused unless ``fstat`` says it
    is a regular file (a FIFO, device or socket -- also behind a symbolic link)."""
    path = _check_path(path)
    try:
        fd, _ = open_regular(path)
    except NotRegularFile as exc:
        raise _not_regular(path, exc.mode) from None
    except OSError as exc:
        raise DataValueError(f"cannot read {path!r}: {exc.strerror}") from None
    try:
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def expand_source(source: str) -> list[str]:
    """The data files of ``source``: a file, a directory (its ``.csv``/``.txt``/Parquet
    files) or a glob pattern; sorted, so partitions have a fixed order.  Every file must be
    a regular file (a FIFO or device matched by a pattern is an error, not skipped)."""
    source = _check_path(source)
    if source == STDIN:
        raise DataValueError("standard input ('-') is one stream, not a set of files")
    if os.path.isdir(source):
        files = sorted(os.path.join(source, f) for f in os.listdir(source)
                       if f.lower().endswith(DATA_SUFFIXES) and not f.startswith((".", "_")))
    elif any(ch in source for ch in "*?[") and not os.path.lexists(source):
        files = sorted(f for f in glob.glob(source) if not os.path.isdir(f))
    else:
        files = [source]
    if not files:
        raise DataValueError(f"{source!r} matches no data files (.csv, .txt, .parquet)")
    for f in files:
        mode = _stat(f).st_mode
        if not stat.S_ISREG(mode):
            raise _not_regular(f, mode)
    return files


def _parquet_file(path: str, fh: IO[bytes]) -> Any:
    pq = _pyarrow_parquet()
    import pyarrow as pa  # present whenever pyarrow.parquet imported

    try:
        # read in the calling thread (no pre-buffering by pyarrow's I/O threads, which
        # would call back into Python for this Python file object)
        return pq.ParquetFile(fh, pre_buffer=False)
    except (pa.ArrowException, OSError, ValueError) as exc:
        raise DataValueError(f"{path!r} is not a valid Parquet file: {exc}") from None


def _file_bytes(path: str) -> int:
    """A file's size on disk (progress reports only: the size cap counts decoded
    values)."""
    return _stat(path).st_size


def _parquet_values_bytes(path: str) -> int:
    """The decoded size ``rows x columns x 8`` of a Parquet file, from its footer."""
    with open_data_file(path) as fh:
        meta = _parquet_file(path, fh).metadata
        return 8 * meta.num_rows * meta.num_columns


class DataSource:
    """The rows behind ``--data``: a CSV/Parquet file, a directory of them, a glob, or
    ``-`` (standard input, CSV; ``stream`` replaces ``sys.stdin.buffer``), read under the
    size cap ``max_bytes`` (module docstring).

    The files are listed and the cap checked on construction (nothing is read);
    :attr:`width` reads the first data row (or the Parquet schema); :meth:`tables` streams
    the rows of every file in order, checking that each file has the width of the first.
    Standard input can be streamed once.
    """

    def __init__(self, spec: str, *, max_bytes: int = DEFAULT_MAX_BYTES,
                 stream: IO[bytes] | None = None, columns: Any = None) -> None:
        self.spec = _check_path(spec)
        self.max_bytes = _check_max_bytes(max_bytes)
        self.columns = check_columns(columns)
        self._stdin: CsvReader | None = None
        self._stream = stream
        self._width: int | None = None
        self._header: tuple[str, ...] | None = None
        #: Bytes of the source read so far by :meth:`tables` (for progress reports).
        self.bytes_done = 0
        if self.spec == STDIN:
            self.files = [STDIN]
            self.total_bytes: int | None = None
            return
        self.files = expand_source(self.spec)
        self.total_bytes = sum(_file_bytes(f) for f in self.files)
        # Parquet: the decoded size from the footers, before any value is read (CSV files
        # are counted in rows while they are read)
        decoded = sum(_parquet_values_bytes(f) for f in self.files if is_parquet(f))
        if decoded > self.max_bytes:
            raise DataSizeError(
                f"{self.spec!r} decodes to {size_text(decoded)} of values (8 bytes each), "
                f"more than the size cap of {size_text(self.max_bytes)}")

    def __repr__(self) -> str:
        return f"DataSource({self.spec!r}, max_bytes={self.max_bytes})"

    @property
    def is_stdin(self) -> bool:
        return self.spec == STDIN

    @property
    def name(self) -> str:
        """The name errors use for the source: ``<stdin>`` or the spec."""
        return "<stdin>" if self.is_stdin else self.spec

    def _stdin_reader(self) -> CsvReader:
        if self._stdin is None:
            fh = self._stream
            if fh is None:
                stdin = sys.stdin
                if stdin is None or getattr(stdin, "buffer", None) is None or stdin.closed:
                    raise DataValueError("standard input ('-') is closed: there is nothing "
                                         "to read")
                fh = stdin.buffer
            self._stdin = CsvReader(fh, "<stdin>", max_bytes=self.max_bytes)
        return self._stdin

    @property
    def width(self) -> int:
        """Number of columns of the first file (Parquet: schema; CSV: first data row)."""
        if self._width is None:
            if self.is_stdin:
                reader = self._stdin_reader().open()
                self._width, self._header = reader.width, reader.header
            else:
                self._width, self._header = _file_width(self.files[0], self.max_bytes)
            check_header(self._header, self.columns, self.name)
        assert self._width is not None  # CsvReader.open sets it or raises
        return self._width

    @property
    def header(self) -> tuple[str, ...] | None:
        """The expected header: ``columns`` when given, else the first file's (or
        ``None``); every file is checked against it (columns are read by position)."""
        _ = self.width  # reads the first header
        return self.columns if self.columns is not None else self._header

    def partitions(self) -> list[Partition]:
        """One :class:`Partition` per CSV file and per Parquet row group."""
        if self.is_stdin:
            raise DataValueError("standard input ('-') cannot be split into partitions: "
                                 "read it with the local backend")
        parts: list[Partition] = []
        for f in self.files:
            if is_parquet(f):
                with open_data_file(f) as fh:
                    groups = _parquet_file(f, fh).metadata.num_row_groups
                parts.extend(Partition(f, g, self.max_bytes, self.header, self.columns)
                             for g in range(max(groups, 1)))
            else:
                parts.append(Partition(f, None, self.max_bytes, self.header, self.columns))
        return parts

    def tables(self) -> Iterator[DataTable]:
        """The rows of every file, block by block (bounded memory), in order;
        :attr:`bytes_done` follows the reading (for progress reports)."""
        width = self.width
        expected = self.header
        self.bytes_done = 0
        rows_read = 0
        if self.is_stdin:
            reader = self._stdin_reader()
            for tab in reader.tables():
                self.bytes_done = reader.bytes_read
                yield tab
            return
        for f in self.files:
            base, size = self.bytes_done, _file_bytes(f)
            rows = 1
            if is_parquet(f):
                rows = max(1, _parquet_rows(f))
                blocks = _parquet_tables(f, None, self.max_bytes)
            else:
                fh = open_data_file(f)
                reader = CsvReader(fh, f, max_bytes=self.max_bytes)
                blocks = _closing(fh, reader.tables())
            for tab in blocks:
                if tab.width != width:
                    raise DataValueError(f"{f!r}: {tab.width} columns, expected {width} (as "
                                         f"in {self.files[0]!r})")
                check_header(tab.header, expected, f, first=self.files[0],
                             given=self.columns is not None)
                rows_read += tab.n_rows
                check_rows(rows_read, width, self.max_bytes, self.name)
                if tab.kind == "csv":
                    self.bytes_done = base + reader.bytes_read
                else:  # Parquet: the share of the file's rows read so far
                    self.bytes_done = base + size * min(tab.row_offset + tab.n_rows,
                                                        rows) // rows
                yield tab
            self.bytes_done = base + size


def as_source(source: str | DataSource, max_bytes: int | None = None) -> DataSource:
    """``source`` as a :class:`DataSource` (a string is opened with ``max_bytes``, default
    :data:`DEFAULT_MAX_BYTES`)."""
    if isinstance(source, DataSource):
        return source
    return DataSource(_check_path(source),
                      max_bytes=DEFAULT_MAX_BYTES if max_bytes is None else max_bytes)



def _closing(fh: IO[bytes], items: Iterator[DataTable]) -> Iterator[DataTable]:
    with fh:
        yield from items


def _parquet_rows(path: str) -> int:
    with open_data_file(path) as fh:
        return int(_parquet_file(path, fh).metadata.num_rows)


def _file_width(path: str, max_bytes: int) -> tuple[int, tuple[str, ...] | None]:
    """(width, header) of a file: Parquet from the schema, CSV from its first rows."""
    if is_parquet(path):
        with open_data_file(path) as fh:
            names = tuple(_parquet_file(path, fh).schema_arrow.names)
            return len(names), names
    with open_data_file(path) as fh:
        reader = CsvReader(fh, path, max_bytes=max_bytes).open()
    assert reader.width is not None  # open() sets it or raises
    return reader.width, reader.header


def read_data(path: str | DataSource, *, max_bytes: int | None = None) -> DataTable:
    """Read every row of a source (:class:`DataSource`: a file, a directory, a glob or
    ``-``) into memory, with the rules of the module docstring; the rows held are capped
    at ``max_bytes`` (8 bytes per value) like the input.

    Raises
    ------
    InvalidParameterError
        Unreadable or non-regular file, too large, no data rows, a non-number or non-finite
        cell, ragged rows, a non-numeric Parquet column or a null; the message names the
        file, line/row and column (:class:`DataValueError`).
    """
    src = as_source(path, max_bytes)
    tabs: list[DataTable] = []
    held = 0
    for tab in src.tables():  # capped in rows (decoded values) by tables()
        held += tab.n_rows
        check_rows(held, tab.width, src.max_bytes, src.name)
        tabs.append(tab)
    if not tabs or not sum(t.n_rows for t in tabs):
        raise DataValueError(f"{src.name!r} has no data rows")
    return concat_tables(tabs)


def csv_records(path: str, text: str | None = None, *, comments: bool = False,
                max_rows: int | None = None) -> Iterator[tuple[int, list[str]]]:
    """``(line, stripped cells)`` of every data row of a CSV file (or of ``text``) after
    the header rule: blank rows skipped, a first row without any number skipped as the
    header; ``comments``: rows whose first cell starts with ``#`` are skipped too.  Read in
    blocks (regular files only), at most ``max_rows`` data rows (a cap in rows: it does not
    depend on how the rows are written).  Used by readers of other row formats (decision
    lists), so that every CSV input follows one rule."""
    path = _check_path(path)
    fh: IO[bytes] = io.BytesIO(text.encode("utf-8")) if text is not None \
        else open_data_file(path)
    with fh:
        seen_first = False
        rows = 0
        for ln, cells in csv_lines(fh, path, comments=comments):
            if not seen_first:
                seen_first = True
                if not any(is_number(c) for c in cells):
                    continue  # header: a first row without any number
            rows += 1
            if max_rows is not None and rows > max_rows:
                raise DataSizeError(f"{path!r} has more than {max_rows} rows, the size cap")
            yield ln, cells


def _pyarrow_parquet() -> Any:
    try:
        import pyarrow.parquet as pq  # optional extra: only Parquet input needs it
    except ImportError:
        raise MissingExtraError(
            'reading Parquet needs pyarrow: pip install "dpverify[dask]"') from None
    return pq


def _parquet_tables(path: str, row_group: int | None, max_bytes: int) -> Iterator[DataTable]:
    """The rows of a Parquet file (or of one row group) as record batches of at most
    :data:`PARQUET_BATCH_VALUES` values."""
    import pyarrow as pa  # optional extra: only Parquet input needs it

    with open_data_file(path) as fh:
        pf = _parquet_file(path, fh)
        meta = pf.metadata
        names = tuple(pf.schema_arrow.names)
        if not names:
            raise DataValueError(f"{path!r} has no columns")
        for j, field in enumerate(pf.schema_arrow):
            if not (pa.types.is_integer(field.type) or pa.types.is_floating(field.type)):
                raise DataValueError(f"{path!r} column {j + 1} ({field.name!r}) has type "
                                     f"{field.type}; expected numbers")
        if row_group is not None and not 0 <= row_group < max(meta.num_row_groups, 1):
            raise InvalidParameterError(f"{path!r} has no row group {row_group}")
        groups = list(range(meta.num_row_groups)) if row_group is None else \
            [row_group] if meta.num_row_groups else []
        offset = sum(meta.row_group(i).num_rows for i in range(row_group or 0))
        rows = sum(meta.row_group(i).num_rows for i in groups)
        if 8 * rows * len(names) > max_bytes:
            raise DataSizeError(f"{path!r} decodes to {size_text(8 * rows * len(names))}, "
                                f"more than the size cap of {size_text(max_bytes)}")
        batch = max(1, PARQUET_BATCH_VALUES // len(names))
        try:
            for rb in pf.iter_batches(batch_size=batch, row_groups=groups, use_threads=False):
                yield _parquet_batch(rb, path, names, offset)
                offset += rb.num_rows
        except (pa.ArrowException, OSError) as exc:
            raise DataValueError(f"{path!r} is not a valid Parquet file: {exc}") from None


def _parquet_batch(rb: Any, path: str, names: tuple[str, ...], offset: int) -> DataTable:
    out = np.empty((rb.num_rows, len(names)), dtype=np.float64)
    for j, nm in enumerate(names):
        col = rb.column(j)
        if col.null_count:
            i = int(np.flatnonzero(col.is_null().to_numpy(zero_copy_only=False))[0])
            raise DataValueError(f"{path!r} row {offset + i + 1} column {j + 1} ({nm!r}): "
                                 "missing value")
        out[:, j] = col.to_numpy(zero_copy_only=False)
    table = DataTable(out, path, names, "parquet", row_offset=offset)
    if out.size and not (np.isfinite(out.min()) and np.isfinite(out.max())):
        i, j = (int(v) for v in np.argwhere(~np.isfinite(out))[0])
        raise DataValueError(f"{table.where(i, j)}: not a finite number", repr(out[i, j]))
    return table


@dataclass(frozen=True)
class Partition:
    """One unit of work of a distributed read: a CSV file, or one row group of a Parquet
    file (``row_group`` set), read under the size cap ``max_bytes``."""

    path: str
    row_group: int | None = None
    max_bytes: int = DEFAULT_MAX_BYTES
    header: tuple[str, ...] | None = None
    columns: tuple[str, ...] | None = None


def partition_tables(part: Partition) -> Iterator[DataTable]:
    """The rows of one :class:`Partition`, block by block (same rules and errors as
    :func:`read_data`; an empty Parquet row group gives no block)."""
    if not isinstance(part, Partition):
        raise ParameterTypeError(f"part must be a Partition, got {type(part).__name__}")
    if is_parquet(part.path):
        tabs = _parquet_tables(part.path, part.row_group, part.max_bytes)
    else:
        tabs = _csv_partition(part)
    for tab in tabs:
        check_header(tab.header, part.header, part.path, given=part.columns is not None)
        yield tab


def _csv_partition(part: Partition) -> Iterator[DataTable]:
    with open_data_file(part.path) as fh:
        yield from CsvReader(fh, part.path, max_bytes=part.max_bytes).tables()


def list_partitions(source: str | DataSource) -> list[Partition]:
    """Partitions of ``source`` (:func:`expand_source`): one per CSV file, one per Parquet
    row group (the file's metadata is read here)."""
    return as_source(source).partitions()


def source_width(source: str | DataSource) -> int:
    """Number of columns of the first file of ``source`` (Parquet: from the schema; CSV:
    the first data row), read without loading the data."""
    return as_source(source).width


def read_partition(part: Partition) -> DataTable:
    """Read one :class:`Partition` into memory (an empty Parquet row group gives 0 rows)."""
    tabs = list(partition_tables(part))
    if not tabs:
        return DataTable(np.empty((0, 0)), part.path, None, "parquet")
    return concat_tables(tabs)
