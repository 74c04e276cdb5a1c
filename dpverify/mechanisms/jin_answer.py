"""Answering a smooth query from a published jin synthetic database (post-processing).

``q_f(D~) = (1/m) sum_{x in D~} f(x)`` over the released synthetic rows, ``f`` an
expression of the safe expression language (:func:`dpverify.expr.parse`, never ``eval``)
in the variables ``x, y, z, w`` (``d <= 4``) or ``x1..xd``, evaluated in float64.

Guarantee
---------
Privacy: post-processing of the release (as stated in its privacy record).  Accuracy: none
certified -- the synthetic rows come from a float LP (jin Theorem 3.1 gives rates only);
the value is a float64 mean.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..errors import InvalidParameterError
from ..expr import parse

__all__ = ["synthetic_rows", "synthetic_variables", "answer_synthetic"]


def synthetic_rows(summary: Any) -> np.ndarray:
    """The rows of a jin-synthetic summary (its JSON dict) as a float64 ``(m, d)`` array."""
    try:
        rows = np.array([[float(v) for v in r] for r in summary["rows"]], dtype=np.float64)
    except (KeyError, TypeError, ValueError) as exc:
        raise InvalidParameterError(f"summary: malformed synthetic rows: {exc}") from None
    if rows.ndim != 2 or not len(rows):
        raise InvalidParameterError("summary: no synthetic rows")
    return rows


def synthetic_variables(d: int) -> list[str]:
    """Variable names of a ``d``-column database: ``x, y, z, w`` up to 4, else ``x1..xd``."""
    return ["x", "y", "z", "w"][:d] if d <= 4 else [f"x{i}" for i in range(1, d + 1)]


def answer_synthetic(summary: Any, query: str) -> dict[str, Any]:
    """Mean of ``query`` over the synthetic rows of ``summary`` (module docstring).

    Returns ``query``, ``variables``, ``answer`` (float), ``rows`` (m) and ``guarantee``.
    Errors name ``query`` (not finite on some row, bad expression) or ``summary``.
    """
    rows = synthetic_rows(summary)
    names = synthetic_variables(rows.shape[1])
    f = parse(query, names, "query").to_numpy()
    vals = np.asarray(f(*rows.T), dtype=np.float64) * np.ones(len(rows))
    if not np.all(np.isfinite(vals)):
        raise InvalidParameterError("query is not finite on every synthetic row")
    return {"query": query, "variables": names, "answer": float(np.mean(vals)),
            "rows": len(rows),
            "guarantee": "post-processing of the private release (privacy as in the "
            "summary); the error is not certified (heuristic LP, jin Theorem 3.1 rates)"}
