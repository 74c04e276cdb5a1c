"""The block reader on files: blocks cut anywhere (inside a line, between the two bytes of
a CRLF) give the rows and line numbers of one read, pyarrow's per-block parse gives the
floats of the strict path, and the domain check's two-reduction shortcut agrees with the
element-wise mask."""

from __future__ import annotations

import io

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dpverify.errors import InvalidParameterError
from dpverify.mechanisms import data as D
from dpverify.mechanisms import data_csv as C


def _blocks_read(raw: bytes, block: int, **kw):
    # the cap counts decoded values (8 bytes each): a text has fewer values than bytes
    r = C.CsvReader(io.BytesIO(raw), "x.csv", max_bytes=8 * len(raw) + 8, block_bytes=block,
                    **kw)
    return list(r.tables())


@settings(max_examples=120, deadline=None)
@given(st.integers(1, 60), st.sampled_from([b"\n", b"\r\n", b"\r"]), st.integers(3, 64),
       st.booleans())
def test_any_block_size_gives_the_same_rows_and_lines(n, eol, block, arrow):
    # law: the rows, their values and the line of every row do not depend on where the
    # blocks are cut (the reference is one block holding the whole file)
    g = np.random.default_rng(n)
    X = g.uniform(-1, 1, (n, 2))
    lines = [b"x,y"] + [f"{float(a)!r},{float(b)!r}".encode() for a, b in X]
    lines.insert(1 + n // 2, b"")  # a blank line: the rows after it shift by one line
    raw = eol.join(lines) + eol
    one = C.concat_tables(_blocks_read(raw, 1 << 22, use_arrow=arrow))
    cut = C.concat_tables(_blocks_read(raw, block, use_arrow=arrow))
    assert np.array_equal(one.values, X) and np.array_equal(cut.values, X)
    assert [one.location(i) for i in range(n)] == [cut.location(i) for i in range(n)]
    want = [i + 2 + (i >= n // 2) for i in range(n)]  # header on line 1, blank line
    assert [cut.location(i) for i in range(n)] == [f"line {v}" for v in want]


def test_error_line_is_the_same_whatever_the_blocks(tmp_path):
    raw = b"x,y\n" + b"0.25,-0.5\n" * 500 + b"0.25,zz\n" + b"0.5,0.5\n" * 10
    for block in (7, 64, 1000, 1 << 22):
        with pytest.raises(InvalidParameterError, match=r"line 502 column 2"):
            _blocks_read(raw, block)


def test_missing_file_and_non_utf8(tmp_path):
    with pytest.raises(InvalidParameterError, match="cannot read") as err:
        D.read_data(str(tmp_path / "none.csv"))
    assert "--" not in str(err.value)  # library errors never name CLI flags
    p = tmp_path / "b.csv"
    p.write_bytes(b"a,b\n1,\xff\n")
    with pytest.raises(InvalidParameterError, match="line 2: not UTF-8 text"):
        D.read_data(str(p))


def test_many_rows_exact_round_trip(tmp_path):
    # %.17g text round-trips every binary64 exactly: the reader must return the very floats
    g = np.random.default_rng(7)
    X = g.uniform(-1, 1, (20_000, 3)) * 10.0 ** g.integers(-300, 300, (20_000, 3))
    p = tmp_path / "m.csv"
    np.savetxt(p, X, delimiter=",", header="a,b,c", comments="", fmt="%.17g")
    assert np.array_equal(D.read_data(str(p)).values, X)
    raw = p.read_bytes()
    assert np.array_equal(C.concat_tables(_blocks_read(raw, 10_000)).values, X)


_VALS = st.sampled_from([0.0, 1.0, -1.0, 0.5, 1.5, -1.5, 2.0, np.nan, np.inf, -np.inf,
                         1e-300, np.nextafter(1.0, 2.0), np.nextafter(-1.0, -2.0)])


@settings(max_examples=200, deadline=None)
@given(st.lists(_VALS, min_size=0, max_size=12),
       st.sampled_from([D.CUBE, D.UNIT, D.BINARY, D.FINITE]))
def test_contains_all_agrees_with_the_mask(vals, dom):
    X = np.array(vals, dtype=np.float64).reshape(-1, 1)
    assert dom.contains_all(X) == (not dom.bad_mask(X).any())
