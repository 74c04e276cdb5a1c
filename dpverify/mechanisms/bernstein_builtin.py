"""The built-in queries of the Bernstein mechanism by name, with their data preparation --
what ``dpverify release bernstein --function NAME`` offers (alda2017 Section 6 examples).

* ``kde``, ``linear-mean``: mean queries on every column (``l <= 4`` coordinates in
  ``[0, 1]``); sums over rows, so the dask backend can reduce them
  (:data:`ROW_SUM_QUERIES`).
* ``priestley-chao``: two columns ``(d, label)``; needs the public gap bound ``c``.
* ``naive-bayes``, ``logistic``: a label column (moved last by :func:`label_last`) and
  ``<= 4`` feature columns; labels ``+1/-1`` (``"pm1"``) or ``1/0`` (``"01"``, recoded to
  ``+1/-1`` for logistic -- a fixed public map).

The query objects and their sensitivities are those of
:mod:`dpverify.mechanisms.bernstein_queries`; this module only selects and validates.
Errors name the parameters (``bandwidth``, ``label_column``, ``data``...), never flags.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..errors import InvalidParameterError, ParameterTypeError
from ..numbers import ExactLike, check_int, to_fmpq
from .bernstein_queries import (
    FunctionQuery,
    kde_query,
    linear_mean_query,
    logistic_query,
    naive_bayes_query,
    priestley_chao_query,
)
from .data import DataValueError

__all__ = ["BUILTIN_QUERIES", "ROW_SUM_QUERIES", "LABEL_ENCODINGS", "builtin_query",
           "label_last"]

BUILTIN_QUERIES = ("kde", "linear-mean", "priestley-chao", "naive-bayes", "logistic")
#: Mean queries (sums over rows): the ones the dask backend reduces over partitions.
ROW_SUM_QUERIES = ("kde", "linear-mean")
LABEL_ENCODINGS = ("pm1", "01")
MAX_FEATURES = 4


def _positive(name: str, value: Any) -> Any:
    v = to_fmpq(value, name)
    if v <= 0:
        raise InvalidParameterError(f"{name} must be > 0, got {value!r}")
    return v


def label_last(X: np.ndarray, label_column: Any = -1, encoding: str = "pm1",
               function: str = "this query") -> tuple[np.ndarray, str]:
    """Move the label column last (features first, in order) and check the labels.

    ``label_column``: 0-based, negative from the end; ``encoding``: ``"pm1"`` (labels
    ``+1``/``-1``) or ``"01"`` (``1``/``0``).  Returns the new array and the encoding.
    """
    X = np.asarray(X, dtype=np.float64)
    if X.ndim != 2:
        raise InvalidParameterError(f"data must be a 2-D array, got shape {X.shape}")
    c = X.shape[1]
    if c < 2:
        raise InvalidParameterError(f"data needs a label column and features for {function}")
    j = check_int(label_column, "label_column", minimum=-c, maximum=c - 1) % c
    if c - 1 > MAX_FEATURES:
        raise InvalidParameterError(
            f"data has {c - 1} feature columns; {function} needs <= {MAX_FEATURES}")
    if not isinstance(encoding, str):
        raise ParameterTypeError(f"label_encoding must be a string, got {encoding!r}")
    enc = encoding.strip().lower()
    if enc not in LABEL_ENCODINGS:
        raise InvalidParameterError(f"label_encoding must be pm1 or 01, got {enc!r}")
    lab = X[:, j]
    allowed = (1.0, -1.0) if enc == "pm1" else (1.0, 0.0)
    bad = ~np.isin(lab, allowed)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        # the row and the rule, never the value (private data; DataValueError keeps it)
        raise DataValueError(
            f"data row {i + 1} column {j + 1}: a label must be {allowed[0]:g} or "
            f"{allowed[1]:g} (label encoding {enc})", repr(float(lab[i])))
    return np.column_stack([np.delete(X, j, axis=1), lab]), enc


def builtin_query(
    function: str,
    data: np.ndarray | None = None,
    *,
    columns: int | None = None,
    bandwidth: ExactLike | None = None,
    label_bound: Any = 1,
    gap: Any = None,
    lam: ExactLike | None = None,
    label_column: Any = -1,
    label_encoding: str = "pm1",
) -> tuple[FunctionQuery, np.ndarray | None]:
    """The built-in query ``function`` (:data:`BUILTIN_QUERIES`) for rows ``data`` (an
    ``(n, c)`` array), or -- ``data=None``, rows read elsewhere (dask) -- for ``columns``
    columns (the mean queries only).  Returns the query and the rows it is to be released
    on (labelled queries: label column last, ``01`` labels recoded for logistic).

    Parameters: ``bandwidth`` (kde, priestley-chao, naive-bayes; exact > 0),
    ``label_bound`` (priestley-chao), ``gap`` (priestley-chao: consecutive gaps
    ``<= gap/n``), ``lam`` (logistic regularisation > 0), ``label_column`` and
    ``label_encoding`` (naive-bayes, logistic; :func:`label_last`).
    """
    if not isinstance(function, str):
        raise ParameterTypeError(f"function must be a string, got {function!r}")
    fn = function.strip().lower()
    if fn not in BUILTIN_QUERIES:
        raise InvalidParameterError(
            f"function must be one of {', '.join(BUILTIN_QUERIES)}, got {function!r}")
    if data is None:
        if columns is None:
            raise InvalidParameterError("give the rows (data) or their width (columns)")
        if fn not in ROW_SUM_QUERIES:
            raise InvalidParameterError(
                f"backend dask supports the mean queries kde and linear-mean (sums over "
                f"rows); function {fn} needs the whole data set (use backend local)")
        width = check_int(columns, "columns", minimum=1)
        X = None
    else:
        X = np.asarray(data, dtype=np.float64)
        if X.ndim == 1:
            X = X.reshape(-1, 1)
        width = int(X.shape[1])
    if fn in ("kde", "priestley-chao", "naive-bayes") and bandwidth is None:
        raise InvalidParameterError(f"bandwidth is required for function {fn}")
    q: FunctionQuery
    if fn == "kde":
        bw = _positive("bandwidth", bandwidth)
        if width > MAX_FEATURES:
            raise InvalidParameterError(f"data has {width} columns; kde needs <= 4")
        q = kde_query(bw, width)
    elif fn == "linear-mean":
        if width > MAX_FEATURES:
            raise InvalidParameterError(f"data has {width} columns; at most 4")
        q = linear_mean_query(width)
    elif fn == "priestley-chao":
        bw = _positive("bandwidth", bandwidth)
        lb = _positive("label_bound", label_bound)
        if gap is None:
            raise InvalidParameterError("gap is required for function priestley-chao")
        c = _positive("gap", gap)
        if width != 2:
            raise InvalidParameterError("data must have 2 columns (d, label) for "
                                        "priestley-chao")
        q = priestley_chao_query(bw, lb, c)
    elif fn == "naive-bayes":
        bw = _positive("bandwidth", bandwidth)
        assert X is not None  # labelled queries were refused above without rows
        X, enc = label_last(X, label_column, label_encoding, fn)
        q = naive_bayes_query(bw, X.shape[1] - 1, negative_label=-1 if enc == "pm1" else 0)
    else:  # logistic
        if lam is None:
            raise InvalidParameterError("lam is required for function logistic")
        la = _positive("lam", lam)
        assert X is not None
        X, enc = label_last(X, label_column, label_encoding, fn)
        if enc == "01":
            X[:, -1] = 2 * X[:, -1] - 1  # fixed public recoding 1/0 -> +1/-1
        q = logistic_query(la, X.shape[1] - 1)
    return q, X
