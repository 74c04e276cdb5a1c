"""The Bernstein built-in queries by name and the jin synthetic-database answer
live in the library (dpverify.mechanisms.bernstein_builtin, .jin_answer); the commands
only parse flags.  Library errors name parameters, never flags; the commands rename them.
"""

from __future__ import annotations

import re

import numpy as np
import pytest

from dpverify.cli import main
from dpverify.errors import InvalidParameterError
from dpverify.mechanisms import bernstein_queries as bq
from dpverify.mechanisms.bernstein_builtin import (
    BUILTIN_QUERIES,
    ROW_SUM_QUERIES,
    builtin_query,
    label_last,
)
from dpverify.mechanisms.jin_answer import answer_synthetic


def test_label_last_moves_the_label_and_keeps_feature_order():
    X = np.array([[0.1, 1.0, 0.3], [0.4, -1.0, 0.6]])
    Y, enc = label_last(X, 1, "pm1")
    assert enc == "pm1" and np.array_equal(Y, [[0.1, 0.3, 1.0], [0.4, 0.6, -1.0]])
    Y, _ = label_last(X[:, [1, 0, 2]], -3)  # negative index from the end
    assert np.array_equal(Y[:, -1], [1.0, -1.0])


def test_logistic_01_labels_are_recoded_to_pm1():
    X = np.array([[1.0, 0.2, 0.1], [0.0, 0.3, 0.2], [1.0, 0.1, 0.4]])
    q, Y = builtin_query("logistic", X.copy(), lam="1/10", label_column=0,
                         label_encoding="01")
    assert np.array_equal(Y[:, -1], 2 * X[:, 0] - 1)  # the fixed public map 1/0 -> +1/-1
    assert np.array_equal(Y[:, :-1], X[:, 1:])
    assert q.dim == 2


def test_every_builtin_builds_with_its_parameters():
    g = np.random.default_rng(0)
    feats = g.uniform(0, 1, (20, 2))
    lab = np.where(g.random(20) < 0.5, 1.0, -1.0)
    for fn in BUILTIN_QUERIES:
        X = feats if fn in ROW_SUM_QUERIES else np.column_stack([feats[:, :1], lab]) \
            if fn == "priestley-chao" else np.column_stack([feats, lab])
        q, Y = builtin_query(fn, X, bandwidth="1/5", gap=3, lam="1/10")
        assert isinstance(q, bq.FunctionQuery) and Y is not None
        assert q.dim == (2 if fn in ROW_SUM_QUERIES + ("naive-bayes", "logistic") else 1)
    q, Y = builtin_query("kde", None, columns=3, bandwidth="1/5")  # dask: width only
    assert Y is None and q.dim == 3


@pytest.mark.parametrize("kw, name", [
    ({"function": "nope"}, "function"),
    ({"function": "kde"}, "bandwidth"),
    ({"function": "kde", "bandwidth": 0}, "bandwidth"),
    ({"function": "priestley-chao", "bandwidth": 1}, "gap"),
    ({"function": "logistic"}, "lam"),
    ({"function": "logistic", "lam": 1, "label_encoding": "xx"}, "label_encoding"),
    ({"function": "logistic", "lam": 1, "label_column": 7}, "label_column"),
    # a bad label is data: the row and column are named, never the value (0.5)
    ({"function": "naive-bayes", "bandwidth": 1, "label_column": 0}, "data row 1 column 1"),
    ({"function": "naive-bayes", "bandwidth": 1, "data": None}, "backend"),
    ({"function": "kde", "bandwidth": 1, "data": np.zeros((3, 5))}, "data"),
])
def test_builtin_errors_name_parameters_not_flags(kw, name):
    kw = dict(kw)
    data = kw.pop("data", np.array([[0.5, 0.5, 1.0], [0.2, 0.1, -1.0]]))
    with pytest.raises(InvalidParameterError) as err:
        builtin_query(kw.pop("function"), data, columns=3, **kw)
    msg = str(err.value)
    assert msg.startswith(name) and "--" not in msg and "0.5" not in msg


def test_jin_answer_is_the_mean_over_the_rows():
    rows = [["0.5", "-0.25"], ["-1", "0.75"], ["0.125", "0"]]
    res = answer_synthetic({"rows": rows}, "x*y + 1")
    R = np.array(rows, dtype=float)
    assert res["answer"] == pytest.approx(float(np.mean(R[:, 0] * R[:, 1] + 1)), abs=1e-15)
    assert res["variables"] == ["x", "y"] and res["rows"] == 3
    with pytest.raises(InvalidParameterError, match=r"^query is not finite"):
        answer_synthetic({"rows": rows}, "log(x - 2)")
    with pytest.raises(InvalidParameterError, match=r"^summary: no synthetic rows"):
        answer_synthetic({"rows": []}, "x")
    with pytest.raises(InvalidParameterError, match=r"^summary: malformed"):
        answer_synthetic({}, "x")


def test_commands_name_the_flags(tmp_path, capsys):
    p = tmp_path / "b.csv"
    np.savetxt(p, [[0.2, 0.3, 1], [0.4, 0.1, 0]], delimiter=",", fmt="%g")
    base = ["release", "bernstein", "--data", str(p), "--k", "2", "--epsilon", "1"]
    assert main(base + ["--function", "kde"]) == 2
    assert "--bandwidth is required" in capsys.readouterr().err
    assert main(base + ["--function", "logistic", "--lambda", "1"]) == 2
    # the label of line 2 is 0 (encoding pm1): the file's line and column, not the value
    assert re.search(r"--data '.*b\.csv' line 2 column 3: a label must be 1 or -1 \(label "
                     r"encoding pm1\)$", capsys.readouterr().err.strip())
