"""The one data reader (dpverify.mechanisms.data): header rule, errors naming file / line /
column and rule but never the cell, the block reader agreeing with an independent
reference implementation of the documented grammar, Parquet, sources and size caps."""

from __future__ import annotations

import csv
import io
import math
import os
import re

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dpverify.errors import InvalidParameterError
from dpverify.mechanisms import data as D
from dpverify.mechanisms import data_csv as C


def _write(tmp_path, text: str | bytes, name: str = "d.csv") -> str:
    p = tmp_path / name
    p.write_bytes(text.encode("utf-8") if isinstance(text, str) else text)
    return str(p)


# --------------------------------------------------------------------------- reference
# A second implementation of the grammar stated in data_csv's docstring, written from the
# text of the rules (line by line, Python's csv and float), used as the oracle of the laws.
_REF_NUM = re.compile(r"[ \t]*[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?[ \t]*")


def reference(text: str):
    """The rows the documented rules give for ``text`` (a list of float lists), or
    ``None`` when the rules make it an error."""
    if text.startswith("\ufeff"):
        text = text[1:]
    rows, width, first = [], None, True
    for line in re.split(r"\r\n|\r|\n", text):
        if not line.strip(" \t"):
            continue
        try:
            cells = [c.strip(" \t") for c in next(csv.reader([line], strict=True))]
        except csv.Error:
            return None
        if "\x00" in line:
            return None
        nums = [bool(_REF_NUM.fullmatch(c)) for c in cells]
        if first:
            first = False
            if not any(nums):
                header = len(cells)
                continue
            header = None
        if width is None:
            width = len(cells)
            if header is not None and header != width:
                return None
        if len(cells) != width or not all(nums):
            return None
        vals = [float(c) for c in cells]
        if not all(math.isfinite(v) for v in vals):
            return None
        rows.append(vals)
    return rows or None


def _read_text(text: str, **kw):
    try:
        return C.read_csv_text("x.csv", text, **kw).values.tolist()
    except InvalidParameterError:
        return None


_CELLS = ["1", "-1", "+1", ".5", "5.", "1e3", "1E+3", "-0", "nan", "inf", "1e999", "0x10",
          "1_000", " 2 ", "\t3", "", "a", "1e", "+.5e-2", "-.", "1.5e-400", "００1", "١",
          "\u00a01", "\x0b1", '"4"', "1.e3", "NaN", "-Infinity", "0.1",
          "0.30000000000000004", "9007199254740993", "2.2250738585072011e-308"]


@settings(max_examples=200, deadline=None)
@given(st.lists(st.lists(st.sampled_from(_CELLS), min_size=2, max_size=2), min_size=1,
                max_size=5), st.booleans(), st.sampled_from(["\n", "\r\n", "\r"]),
       st.booleans(), st.sampled_from([1 << 22, 16, 7]))
def test_block_reader_equals_the_reference(rows, header, eol, blank, block):
    # law: every path of the reader (pyarrow per block, the numpy scan, the strict path;
    # blocks cut anywhere) accepts exactly what the reference accepts, with the very floats
    body = [",".join(r) for r in rows]
    if blank:
        body.insert(len(body) // 2, "  ")
    text = ("a,b" + eol if header else "") + "0,0" + eol + eol.join(body) + eol
    want = reference(text)
    for kw in ({}, {"use_arrow": False}):
        got = _read_text(text, block_bytes=block, **kw)
        assert got == want, (text, kw)
        if got is not None:
            assert np.array_equal(np.array(got), np.array(want))  # -0.0 vs 0.0 aside


def test_header_rule(tmp_path):
    # a first row without numbers is a header; a row with one number is data
    t = D.read_data(_write(tmp_path, "a,b\n1,2\n3,4\n"))
    assert t.header == ("a", "b") and t.values.tolist() == [[1, 2], [3, 4]]
    # 'x,2' holds a number, so it is data (not a header) and 'x' is an error on line 1
    with pytest.raises(InvalidParameterError, match=r"line 1 column 1: expected a number"):
        D.read_data(_write(tmp_path, "x,2\n1,2\n", "e.csv"))


@pytest.mark.parametrize("text, match, value", [
    ("a,b\n1,2\n3,oops\n", r"'.*d\.csv' line 3 column 2: expected a number", "oops"),
    ("1,2\n3\n", r"line 2: 1 columns, expected 2", None),
    ("1,2\n3,nan\n", r"line 2 column 2: expected a number", "nan"),
    ("1,2\n3,1e999\n", r"line 2 column 2: not a finite binary64 number", "1e999"),
    ("a,b\n\n", r"has no data rows", None),
    ("1,2\n\n\n4,xyzzy\n", r"line 4 column 2", "xyzzy"),  # blank lines count in the line numbers
    ("0.5\n\uff11\n", r"line 2 column 1: expected a number \(an ASCII", "\uff11"),
    ("0.5\n\u0661\n", r"line 2 column 1: expected a number", "\u0661"),
    ("0.5\n\u00a00.25\n", r"line 2 column 1: expected a number", "\u00a00.25"),
])
def test_errors_name_file_line_column_never_the_value(tmp_path, text, match, value):
    with pytest.raises(InvalidParameterError, match=match) as err:
        D.read_data(_write(tmp_path, text))
    msg = str(err.value)
    assert "--" not in msg  # library errors never name CLI flags
    if value is not None:
        assert value.strip() not in msg and err.value.value == value  # kept apart
        assert repr(value) in err.value.shown()


def test_domain_error_names_line_not_value(tmp_path):
    # fast path (consecutive lines) and strict path (a blank line shifts the numbering)
    tab = D.read_data(_write(tmp_path, "a,b\n0.5,0\n1,1.5\n"))
    with pytest.raises(InvalidParameterError,
                       match=r"line 3 column 2: the value is outside \[-1, 1\]$") as err:
        D.CUBE.check(tab)
    assert err.value.value == "1.5"
    tab = D.read_data(_write(tmp_path, "a,b\n0.5,0\n\n1,1.5\n", "s.csv"))
    with pytest.raises(InvalidParameterError, match=r"line 4 column 2"):
        D.CUBE.check(tab)
    with pytest.raises(InvalidParameterError, match=r"line 1 column 1: the value is outside "
                       r"\{0, 1\}") as err:
        D.BINARY.check(D.read_data(_write(tmp_path, "0.7123456789,1\n", "b.csv")))
    assert "0.71" not in str(err.value) and err.value.value == "0.7123456789"


def test_numpy_converter_without_pyarrow(tmp_path):
    g = np.random.default_rng(1)
    X = g.uniform(-1, 1, (2000, 3))
    buf = io.StringIO()
    np.savetxt(buf, X, delimiter=",", header="a,b,c", comments="", fmt="%.17g")
    for kw in ({}, {"use_arrow": False}, {"use_arrow": False, "block_bytes": 999}):
        got = C.read_csv_text("n.csv", buf.getvalue(), **kw).values
        assert np.array_equal(got, X)  # %.17g round-trips exactly


def test_parquet_values_and_errors(tmp_path):
    p = str(tmp_path / "d.parquet")
    pq.write_table(pa.table({"x": [0.5, -1.0, 1.0, 0.25], "y": [1, 0, 1, 1]}), p,
                   row_group_size=2)
    t = D.read_data(p)
    assert t.header == ("x", "y") and t.values.tolist() == [[0.5, 1], [-1, 0], [1, 1],
                                                            [0.25, 1]]
    parts = D.list_partitions(p)
    assert [q.row_group for q in parts] == [0, 1]
    t1 = D.read_partition(parts[1])
    with pytest.raises(InvalidParameterError, match=r"row 4 column 1 \('x'\): the value is "
                       r"outside") as err:
        D.BINARY.check(t1)  # the second row group starts at file row 3
    assert "0.25" not in str(err.value)
    bad = str(tmp_path / "n.parquet")
    pq.write_table(pa.table({"x": [0.5, None]}), bad)
    with pytest.raises(InvalidParameterError, match=r"row 2 column 1 \('x'\): missing value"):
        D.read_data(bad)
    inf = str(tmp_path / "i.parquet")
    pq.write_table(pa.table({"x": [0.5, float("inf")]}), inf)
    with pytest.raises(InvalidParameterError, match=r"row 2 column 1 \('x'\): not a finite"):
        D.read_data(inf)
    s = str(tmp_path / "s.parquet")
    pq.write_table(pa.table({"x": ["a"]}), s)
    with pytest.raises(InvalidParameterError, match=r"column 1 \('x'\) has type string"):
        D.read_data(s)
    junk = _write(tmp_path, "not parquet", "j.parquet")
    with pytest.raises(InvalidParameterError, match=r"j\.parquet' is not a valid Parquet"):
        D.read_data(junk)


def test_sources_and_records(tmp_path):
    for i in range(3):
        _write(tmp_path, f"{i},1\n", f"p{i}.csv")
    assert len(D.list_partitions(str(tmp_path))) == 3
    assert len(D.expand_source(str(tmp_path / "p[01].csv"))) == 2
    assert D.source_width(str(tmp_path)) == 2
    # a directory reads like the concatenation of its files, in name order
    assert D.read_data(str(tmp_path)).values.tolist() == [[0, 1], [1, 1], [2, 1]]
    with pytest.raises(InvalidParameterError, match="matches no data files"):
        D.expand_source(str(tmp_path / "*.nothing"))
    with pytest.raises(InvalidParameterError, match="No such file"):
        D.expand_source(str(tmp_path / "missing.csv"))
    (tmp_path / "sub").mkdir()
    path = _write(tmp_path / "sub", "lit,bit,default\n# comment\n\n1,0,1\n", "dl.txt")
    assert list(D.csv_records(path, comments=True)) == [(4, ["1", "0", "1"])]
    _write(tmp_path, "0,1,2\n", "p9.csv")
    with pytest.raises(InvalidParameterError, match=r"p9\.csv': 3 columns, expected 2"):
        D.read_data(str(tmp_path))


def test_standard_input_stream(tmp_path):
    src = D.DataSource("-", stream=io.BytesIO(b"x\n0.5\n-0.25\n"))
    assert src.width == 1 and src.name == "<stdin>"
    assert D.read_data(src).values.tolist() == [[0.5], [-0.25]]
    with pytest.raises(InvalidParameterError, match="cannot be split into partitions"):
        D.DataSource("-", stream=io.BytesIO(b"1\n")).partitions()
    # the cap holds while reading a stream (no size is known beforehand)
    big = D.DataSource("-", stream=io.BytesIO(b"0.5\n" * 1000), max_bytes=100)
    with pytest.raises(D.DataSizeError, match="more than 12 rows of 1 values"):
        D.read_data(big)


def test_size_caps(tmp_path):
    # the cap counts decoded values (rows x columns x 8 bytes), never the text: 100 rows of
    # 2 values are 1600 bytes however they are written (900 or 2000 bytes of text)
    p = _write(tmp_path, "0.5,0.25\n" * 100)
    long = str(tmp_path / "long.csv")
    with open(long, "w") as fh:
        fh.write("0.50000000000000000000,0.25000000000000000000\n" * 100)
    for f in (p, long):
        assert D.read_data(f, max_bytes=1600).n_rows == 100
        with pytest.raises(D.DataSizeError, match="more than 99 rows of 2 values"):
            D.read_data(f, max_bytes=1599)
        with pytest.raises(D.DataSizeError, match="size cap of 1.6 KiB"):
            list(D.DataSource(f, max_bytes=1599).tables())
    # Parquet counts what it decodes to (8 bytes a value), from its footer, before reading
    q = str(tmp_path / "z.parquet")
    pq.write_table(pa.table({"x": np.zeros(100_000)}), q)
    assert os.path.getsize(q) < 100_000
    with pytest.raises(D.DataSizeError, match="decodes to 781.2 KiB"):
        D.DataSource(q, max_bytes=100_000)
    with pytest.raises(InvalidParameterError, match="max_bytes must be >= 1"):
        D.DataSource(p, max_bytes=0)


def test_non_regular_files_are_refused_without_blocking(tmp_path):
    fifo = tmp_path / "f.csv"
    os.mkfifo(fifo)  # no writer: opening it for reading would block without O_NONBLOCK
    with pytest.raises(InvalidParameterError, match=r"is a FIFO \(named pipe\), not a "
                       r"regular file; a stream is read as standard input \('-'\)"):
        D.read_data(str(fifo))
    with pytest.raises(InvalidParameterError, match="is a FIFO"):
        D.read_data(str(tmp_path / "*.csv"))  # matched by a pattern: refused, not skipped
    with pytest.raises(InvalidParameterError, match="is a character device"):
        D.read_data("/dev/zero")
    link = tmp_path / "l.csv"
    link.symlink_to(fifo)
    with pytest.raises(InvalidParameterError, match="is a FIFO"):
        D.open_data_file(str(link))  # the link is followed, then refused
    a, b = tmp_path / "a.csv", tmp_path / "b.csv"
    a.symlink_to(b)
    b.symlink_to(a)
    with pytest.raises(InvalidParameterError, match="Too many levels of symbolic links"):
        D.read_data(str(a))


def test_text_encoding_rules(tmp_path):
    # a UTF-8 byte order mark is skipped (the header is 'x', not '\ufeffx')
    t = D.read_data(_write(tmp_path, b"\xef\xbb\xbfx,y\n0.5,1\n"))
    assert t.header == ("x", "y") and t.values.tolist() == [[0.5, 1]]
    with pytest.raises(InvalidParameterError, match=r"line 3: not UTF-8 text") as err:
        D.read_data(_write(tmp_path, b"a,b\n1,2\n1,\xff\n", "u.csv"))
    assert "xff" not in str(err.value)
    with pytest.raises(InvalidParameterError, match=r"line 2: a NUL byte"):
        D.read_data(_write(tmp_path, b"1,2\n1,\x002\n", "n.csv"))
    with pytest.raises(InvalidParameterError, match=r"line 2 is longer than 1 MiB"):
        D.read_data(_write(tmp_path, b"1\n" + b"1" * (2 << 20), "l.csv"))
    with pytest.raises(InvalidParameterError, match=r"line 2: malformed quoting"):
        D.read_data(_write(tmp_path, b'1,2\n"1\n2",3\n', "q.csv"))


def test_cr_only_line_ends_are_read(tmp_path):
    # old Mac line ends: the same two rows as with "\n" (values written by hand)
    tab = D.read_data(_write(tmp_path, b"x,y\r0.1,0.2\r0.3,0.4\r", "cr.csv"))
    assert tab.values.tolist() == [[0.1, 0.2], [0.3, 0.4]]
    assert tab.header == ("x", "y")


@pytest.mark.parametrize("row", [b",", b'"",""'])
def test_row_of_empty_cells_is_an_error_not_dropped(tmp_path, row):
    text = b"x,y\n0.1,0.2\n" + row + b"\n0.2,0.3\n"
    with pytest.raises(InvalidParameterError, match="line 3"):
        D.read_data(_write(tmp_path, text, "e.csv"))


def test_row_of_empty_cells_deep_in_a_large_file(tmp_path):
    # beyond the first block, where pyarrow parses the later blocks
    rows = [b"x,y"] + [b"0.25,-0.5"] * 20000
    rows[15001] = b","
    text = b"\n".join(rows) + b"\n"
    with pytest.raises(InvalidParameterError, match="line 15002"):
        D.read_data(_write(tmp_path, text, "big.csv"))
    with pytest.raises(InvalidParameterError, match="line 15002"):
        C.read_csv_text("big.csv", text, block_bytes=4096)


def test_blank_lines_are_still_skipped(tmp_path):
    tab = D.read_data(_write(tmp_path, b"x,y\n0.1,0.2\n\n0.2,0.3\n", "b.csv"))
    assert tab.values.shape == (2, 2)


def test_header_width_must_match_the_rows(tmp_path):
    with pytest.raises(InvalidParameterError, match="header has 2 columns but the data rows "
                       "have 3"):
        D.read_data(_write(tmp_path, b"x,y\n0.1,0.2,0.3\n0.2,0.3,0.4\n", "w.csv"))


def test_data_errors_cross_processes_with_their_value():
    # a Dask worker's error is pickled to the client: the value stays apart from the text
    import pickle

    for cls in (D.DataValueError, D.DataSizeError):
        e = pickle.loads(pickle.dumps(cls("'f.csv' line 2 column 1: rule", "0.7")))
        assert type(e) is cls and str(e) == "'f.csv' line 2 column 1: rule"
        assert e.value == "0.7" and e.shown().endswith("(value: '0.7')")
