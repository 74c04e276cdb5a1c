"""The one data reader (dpverify.mechanisms.data): header rule, errors naming file / line /
column, the fast path agreeing with the strict reader, Parquet, partitions."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dpverify.errors import InvalidParameterError
from dpverify.mechanisms import data as D


def _write(tmp_path, text: str, name: str = "d.csv") -> str:
    p = tmp_path / name
    p.write_bytes(text.encode("utf-8"))
    return str(p)


def test_header_rule(tmp_path):
    # a first row without numbers is a header; a row with one number is data
    t = D.read_data(_write(tmp_path, "a,b\n1,2\n3,4\n"))
    assert t.header == ("a", "b") and t.values.tolist() == [[1, 2], [3, 4]]
    # 'x,2' holds a number, so it is data (not a header) and 'x' is an error on line 1
    with pytest.raises(InvalidParameterError, match=r"line 1 column 1: expected a number"):
        D.read_data(_write(tmp_path, "x,2\n1,2\n", "e.csv"))


@pytest.mark.parametrize("text, match", [
    ("a,b\n1,2\n3,oops\n", r"'.*d\.csv' line 3 column 2: expected a number, got 'oops'"),
    ("1,2\n3\n", r"line 2: 1 columns, expected 2"),
    ("1,2\n3,nan\n", r"line 2 column 2: expected a number, got 'nan'"),
    ("1,2\n3,1e999\n", r"line 2 column 2: '1e999' is not a finite binary64 number"),
    ("a,b\n\n", r"has no data rows"),
    ("1,2\n\n\n4,x\n", r"line 4 column 2"),  # blank lines count in the line numbers
])
def test_errors_name_file_line_column(tmp_path, text, match):
    with pytest.raises(InvalidParameterError, match=match) as err:
        D.read_data(_write(tmp_path, text))
    assert "--" not in str(err.value)  # library errors never name CLI flags


def test_domain_error_names_line(tmp_path):
    # fast path (consecutive lines) and strict path (a blank line shifts the numbering)
    tab = D.read_data(_write(tmp_path, "a,b\n0.5,0\n1,1.5\n"))
    with pytest.raises(InvalidParameterError, match=r"line 3 column 2: 1\.5 is outside \[-1, 1\]"):
        D.CUBE.check(tab)
    tab = D.read_data(_write(tmp_path, "a,b\n0.5,0\n\n1,1.5\n", "s.csv"))
    with pytest.raises(InvalidParameterError, match=r"line 4 column 2"):
        D.CUBE.check(tab)
    with pytest.raises(InvalidParameterError, match=r"line 1 column 1: 0\.5 is outside \{0, 1\}"):
        D.BINARY.check(D.read_data(_write(tmp_path, "0.5,1\n", "b.csv")))


_CELLS = ["1", "-1", "+1", ".5", "5.", "1e3", "1E+3", "-0", "nan", "inf", "1e999", "0x10",
          "1_000", " 2 ", "\t3", "", "a", "1e", "+.5e-2", "-.", "1.5e-400", "००1"]


@settings(max_examples=150, deadline=None)
@given(st.lists(st.lists(st.sampled_from(_CELLS), min_size=2, max_size=2), min_size=1,
                max_size=4), st.booleans())
def test_fast_path_equals_strict_reader(tmp_path_factory, rows, header):
    # law: whenever the fast path accepts a file, the strict csv.reader path accepts it too
    # with bit-identical values (the strict path is the reference: one regex per cell and
    # Python's correctly rounded float())
    text = ("a,b\n" if header else "") + "0,0\n" + "".join(",".join(r) + "\n" for r in rows)
    path = str(tmp_path_factory.mktemp("f") / "x.csv")
    try:
        strict = D._read_csv_strict(path, text).values
    except InvalidParameterError:
        strict = None
    raw = text.encode("utf-8")
    fast = D._read_csv_fast(path, raw)
    if fast is not None:
        assert strict is not None and np.array_equal(fast.values, strict)
    # the numpy converter (no pyarrow) under the same law
    real = D._convert_arrow
    try:
        D._convert_arrow = lambda *a: None
        fast = D._read_csv_fast(path, raw)
    finally:
        D._convert_arrow = real
    if fast is not None:
        assert strict is not None and np.array_equal(fast.values, strict)


def test_numpy_converter_without_pyarrow(tmp_path, monkeypatch):
    g = np.random.default_rng(1)
    X = g.uniform(-1, 1, (200, 3))
    path = tmp_path / "n.csv"
    np.savetxt(path, X, delimiter=",", header="a,b,c", comments="", fmt="%.17g")
    want = D.read_data(str(path)).values
    monkeypatch.setattr(D, "_convert_arrow", lambda *a: None)
    got = D.read_data(str(path)).values
    assert np.array_equal(want, X) and np.array_equal(got, X)  # %.17g round-trips exactly


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
    with pytest.raises(InvalidParameterError, match=r"row 4 column 1 \('x'\): 0\.25 is outside"):
        D.BINARY.check(t1)  # the second row group starts at file row 3
    bad = str(tmp_path / "n.parquet")
    pq.write_table(pa.table({"x": [0.5, None]}), bad)
    with pytest.raises(InvalidParameterError, match=r"row 2 column 1 \('x'\): missing value"):
        D.read_data(bad)
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
    with pytest.raises(InvalidParameterError, match="matches no data files"):
        D.expand_source(str(tmp_path / "*.nothing"))
    with pytest.raises(InvalidParameterError, match="no such file"):
        D.expand_source(str(tmp_path / "missing.csv"))
    path = _write(tmp_path, "lit,bit,default\n# comment\n\n1,0,1\n", "dl.txt")
    assert list(D.csv_records(path, comments=True)) == [(4, ["1", "0", "1"])]


def _write_bytes(tmp_path, name, data: bytes):
    p = tmp_path / name
    p.write_bytes(data)
    return str(p)


def test_cr_only_line_ends_are_read(tmp_path):
    # old Mac line ends: the same two rows as with "\n" (values written by hand)
    tab = D.read_data(_write_bytes(tmp_path, "cr.csv", b"x,y\r0.1,0.2\r0.3,0.4\r"))
    assert tab.values.tolist() == [[0.1, 0.2], [0.3, 0.4]]
    assert tab.header == ("x", "y")


@pytest.mark.parametrize("row", [b",", b'"",""'])
def test_row_of_empty_cells_is_an_error_not_dropped(tmp_path, row):
    text = b"x,y\n0.1,0.2\n" + row + b"\n0.2,0.3\n"
    with pytest.raises(InvalidParameterError, match="line 3"):
        D.read_data(_write_bytes(tmp_path, "e.csv", text))


def test_row_of_empty_cells_deep_in_a_large_file(tmp_path):
    # beyond the first 64 KiB, where pyarrow parses the file
    rows = [b"x,y"] + [b"0.25,-0.5"] * 20000
    rows[15001] = b","
    with pytest.raises(InvalidParameterError, match="line 15002"):
        D.read_data(_write_bytes(tmp_path, "big.csv", b"\n".join(rows) + b"\n"))


def test_blank_lines_are_still_skipped(tmp_path):
    tab = D.read_data(_write_bytes(tmp_path, "b.csv", b"x,y\n0.1,0.2\n\n0.2,0.3\n"))
    assert tab.values.shape == (2, 2)


def test_header_width_must_match_the_rows(tmp_path):
    with pytest.raises(InvalidParameterError, match="header has 2 columns"):
        D.read_data(_write_bytes(tmp_path, "w.csv", b"x,y\n0.1,0.2,0.3\n0.2,0.3,0.4\n"))
