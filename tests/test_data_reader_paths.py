"""Issue 15: the data reader's pyarrow-from-the-file path (only the head is read into
Python) agrees with the strict ``csv.reader`` path -- the reference: one regex per cell and
Python's correctly rounded ``float()`` -- and the domain check's two-reduction shortcut
agrees with the element-wise mask."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dpverify.errors import InvalidParameterError
from dpverify.mechanisms import data as D

_CELLS = ["1", "-1", "+1", ".5", "5.", "1e3", "1E+3", "-0", "nan", "inf", "1e999", "0x10",
          "1_000", " 2 ", "\t3", "", "a", "1e", "+.5e-2", "-.", "1.5e-400", "0.1",
          "0.30000000000000004", "9007199254740993", "2.2250738585072011e-308"]


def _strict(path: str, text: str):
    try:
        return D._read_csv_strict(path, text).values
    except InvalidParameterError:
        return None


@settings(max_examples=150, deadline=None)
@given(st.lists(st.lists(st.sampled_from(_CELLS), min_size=2, max_size=2), min_size=1,
                max_size=4), st.booleans(), st.sampled_from(["\n", "\r\n"]))
def test_read_data_equals_strict_reader(tmp_path_factory, rows, header, eol):
    # law: read_data (pyarrow on the file itself, then the fallbacks) accepts exactly what
    # the strict reader accepts, with bit-identical values
    text = ("a,b" + eol if header else "") + "0,0" + eol + "".join(
        ",".join(r) + eol for r in rows)
    path = str(tmp_path_factory.mktemp("r") / "x.csv")
    with open(path, "wb") as fh:
        fh.write(text.encode("utf-8"))
    want = _strict(path, text)
    try:
        got = D.read_data(path).values
    except InvalidParameterError:
        got = None
    assert (got is None) == (want is None)
    if got is not None:
        assert np.array_equal(got, want)


def test_head_cut_inside_the_second_line_falls_back(tmp_path, monkeypatch):
    # a head that ends inside the first data line must not fix the width: the reader then
    # decides on the whole file (same values as the strict reader)
    text = "alpha,beta,gamma\n0.25,-0.5,1\n0.125,0,-1\n"
    path = tmp_path / "h.csv"
    path.write_text(text)
    monkeypatch.setattr(D, "HEAD_BYTES", 20)  # cuts "0.25,-0.5,1" after "0.25"
    tab = D.read_data(str(path))
    assert tab.header == ("alpha", "beta", "gamma")
    assert np.array_equal(tab.values, [[0.25, -0.5, 1], [0.125, 0, -1]])


def test_missing_file_and_non_utf8(tmp_path):
    with pytest.raises(InvalidParameterError, match="cannot read") as err:
        D.read_data(str(tmp_path / "none.csv"))
    assert "--" not in str(err.value)  # library errors never name CLI flags
    p = tmp_path / "b.csv"
    p.write_bytes(b"a,b\n1,\xff\n")
    with pytest.raises(InvalidParameterError, match="not a text CSV file"):
        D.read_data(str(p))


def test_many_rows_exact_round_trip(tmp_path):
    # %.17g text round-trips every binary64 exactly: the reader must return the very floats
    g = np.random.default_rng(7)
    X = g.uniform(-1, 1, (20_000, 3)) * 10.0 ** g.integers(-300, 300, (20_000, 3))
    p = tmp_path / "m.csv"
    np.savetxt(p, X, delimiter=",", header="a,b,c", comments="", fmt="%.17g")
    assert np.array_equal(D.read_data(str(p)).values, X)


_VALS = st.sampled_from([0.0, 1.0, -1.0, 0.5, 1.5, -1.5, 2.0, np.nan, np.inf, -np.inf,
                         1e-300, np.nextafter(1.0, 2.0), np.nextafter(-1.0, -2.0)])


@settings(max_examples=200, deadline=None)
@given(st.lists(_VALS, min_size=0, max_size=12),
       st.sampled_from([D.CUBE, D.UNIT, D.BINARY, D.FINITE]))
def test_contains_all_agrees_with_the_mask(vals, dom):
    X = np.array(vals, dtype=np.float64).reshape(-1, 1)
    assert dom.contains_all(X) == (not dom.bad_mask(X).any())
