"""Exact comparison of float outputs with the reference tables, and its failure reports.

:func:`reference` gives the exact values of one entry of a table of :mod:`dpverify.tables`;
:func:`assert_matches_reference` compares your outputs with them, each of your numbers read
as the rational it denotes, and raises an ``AssertionError`` naming the worst entry with a
hint (length off by one, float32-sized error, constant factor).  Tables, quantities and
the tolerance semantics: :mod:`dpverify.testing`.

Guarantee
---------
The reference values are exact (the exact constructions); the comparison is exact.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from flint import fmpq

from ..errors import InvalidParameterError
from ..numbers import ExactLike, fmpq_str, to_fmpq

__all__ = ["reference", "assert_matches_reference"]


def _default_quantity(table: str, data: dict[str, Any]) -> str:
    # lazy: the tables load the constructions (~50 ms); assert_matches_reference needs them
    # only when called, and the pytest plugin's session must stay light
    from ..tables import CONSTRUCTIONS, TABLES

    q = CONSTRUCTIONS[TABLES[table].construction].default_quantity
    if q in data:
        return q
    return next(k for k in data if k != "degree")  # jackson with K: "w"


def reference(table: str = "or", quantity: str | None = None, **params: Any) -> list[Any]:
    """Exact reference values (``fmpq``; nested lists for matrices) of one table entry.

    ``table`` is a table of :mod:`dpverify.tables`, named like the commands (``or``,
    ``and``, ``rofk``, ``dlist``, ``jackson``, ``bernstein``, or an alias such as
    ``or-chebyshev``), with any parameters of that construction, e.g.
    ``reference("or", k=25, gamma="1e-3")`` or ``reference("or", k=100, gamma="1e-6",
    method="minimax")``; ``gamma`` is read exactly (``1e-3`` = 1/1000).  ``quantity`` is
    one of the table's quantities (default: the first one listed in the table of
    :mod:`dpverify.testing`).

    Examples
    --------
    OR on ``k = 2`` bits with ``gamma = 1/2``: ``u(x) = 3 - 2x`` and ``T_1(3) = 3 >= 2``,
    so ``g(x) = 1 - T_1(u(x))/T_1(3) = 2x/3`` (docs/conventions.md), whose values at
    ``x = 0, 1, 2`` are ``0, 2/3, 4/3``:

    >>> reference("or", k=2, gamma="1/2")
    [0, 2/3]
    >>> reference("or", "values", k=2, gamma="1/2")
    [0, 2/3, 4/3]
    """
    return _reference(table, quantity, params)[1]


def _reference(table: str, quantity: str | None, params: dict[str, Any]) -> tuple[str, list]:
    # lazy, as in _default_quantity
    from ..tables import TABLES, table_names, table_values

    if not isinstance(table, str) or table not in TABLES:
        raise InvalidParameterError(
            f"table must be one of {', '.join(table_names())}, got {table!r}")
    data = table_values(table, params, more=True)
    qty = quantity if quantity is not None else _default_quantity(table, data)
    if qty not in data or qty == "degree":
        raise InvalidParameterError(
            f"quantity {qty!r} is not available for table {table!r} with these parameters "
            f"(available: {', '.join(k for k in data if k != 'degree')})")
    val = data[qty]
    return qty, (list(val) if isinstance(val, (list, tuple)) else [val])


def _shape(obj: Any) -> tuple[int, ...]:
    if isinstance(obj, list):
        return (len(obj),) + (_shape(obj[0]) if obj and isinstance(obj[0], list) else ())
    return ()


def _flatten(obj: Any) -> list[Any]:
    if isinstance(obj, list):
        return [y for x in obj for y in _flatten(x)]
    return [obj]


def _exact_of(v: Any, i: int) -> fmpq:
    if isinstance(v, fmpq):
        return v
    if isinstance(v, (int, np.integer)) and not isinstance(v, bool):
        return fmpq(int(v))
    if isinstance(v, str):
        return to_fmpq(v, f"values[{i}]")
    f = float(v)  # float, np.float32/64: the exact binary value, no decimal rounding
    if not np.isfinite(f):
        raise AssertionError(f"values[{i}] is not finite: {v!r}")
    p, q = f.as_integer_ratio()
    return fmpq(p, q)


def _bound(at: fmpq, rt: fmpq, smax: fmpq, e: fmpq, norm: str) -> fmpq:
    return at + rt * (smax if norm == "normwise" else abs(e))


def _first_wrong(arr: np.ndarray, ref: list[Any], got_shape: tuple[int, ...],
                 want_shape: tuple[int, ...], rt: fmpq, at: fmpq, norm: str) -> str:
    """For a shape mismatch: the first entry (C order) of the common index range that is
    out of tolerance, so a wrong value is reported together with the wrong length."""
    if len(got_shape) != len(want_shape):
        return ""
    exp = np.empty(want_shape, dtype=object)
    for i, e in enumerate(_flatten(ref)):
        exp.reshape(-1)[i] = e
    smax = max((abs(e) for e in _flatten(ref)), default=fmpq(0))
    common = tuple(min(a, b) for a, b in zip(got_shape, want_shape, strict=True))
    for idx in np.ndindex(*common):
        e = exp[idx]
        g = _exact_of(arr[idx], 0)
        if abs(g - e) > _bound(at, rt, smax, e, norm):
            where = tuple(int(j) for j in idx)
            return (f"; first wrong value: entry {where} = {float(g)!r} but the exact "
                    f"reference is {fmpq_str(e)} (~{float(e)!r})")
    n = int(np.prod(common)) if common else 0
    return f"; the {n} entries of the common index range match"


def assert_matches_reference(
    values: Any,
    table: str = "or",
    *,
    quantity: str | None = None,
    rtol: ExactLike = "1e-12",
    atol: ExactLike = 0,
    norm: str = "normwise",
    **params: Any,
) -> None:
    """Assert that ``values`` match the exact reference of ``table`` within tolerance.

    Parameters
    ----------
    values : array-like
        Your implementation's output (floats of any precision, ints, fmpq or exact strings);
        shape must equal the reference shape (e.g. ``degree + 1`` coefficients).
    table, quantity, **params :
        Which reference (module docstring); e.g. ``table="or", k=25, gamma="1e-3"``.
    rtol, atol : exact numbers
        ``|v_i - e_i| <= atol + rtol * s`` (``s`` per ``norm``); read exactly.
    norm : {"normwise", "entrywise"}

    Raises
    ------
    AssertionError
        On a shape mismatch or any entry out of tolerance (message: worst index, expected,
        got, deviation, a hint).

    Guarantee
    ---------
    Exact comparison (rationals); the reference is exact.  See the module docstring.

    Examples
    --------
    The coefficients of the OR polynomial ``g(x) = 2x/3`` (``k = 2``, ``gamma = 1/2``; see
    :func:`reference`) as a float64 implementation stores them pass; four digits do not:

    >>> assert_matches_reference([0.0, 2 / 3], "or", k=2, gamma="1/2")
    >>> assert_matches_reference([0.0, 0.6667], "or", k=2, gamma="1/2")
    Traceback (most recent call last):
    AssertionError: or (monomial, ...): entry (1,) = 0.6667 but the exact reference is 2/3 ...
    """
    if norm not in ("normwise", "entrywise"):
        raise InvalidParameterError(f"norm must be 'normwise' or 'entrywise', got {norm!r}")
    rt = to_fmpq(rtol, "rtol")
    at = to_fmpq(atol, "atol")
    if rt < 0 or at < 0:
        raise InvalidParameterError("rtol and atol must be >= 0")
    qty, ref = _reference(table, quantity, params)
    dtype = getattr(values, "dtype", None)
    arr = np.asarray(values, dtype=object) if dtype is None else np.asarray(values)
    got_shape = tuple(arr.shape)
    want_shape = _shape(ref)
    what = f"{table} ({qty}, {params})"
    if got_shape != want_shape:
        hint = ""
        if len(got_shape) == len(want_shape) == 1 and abs(got_shape[0] - want_shape[0]) == 1:
            hint = " (off by one: degree or index range?)"
        raise AssertionError(
            f"{what}: shape {got_shape} does not match the reference shape {want_shape}{hint}"
            + _first_wrong(arr, ref, got_shape, want_shape, rt, at, norm))
    exp = _flatten(ref)
    got = [_exact_of(v, i) for i, v in enumerate(arr.reshape(-1).tolist())]
    smax = max((abs(e) for e in exp), default=fmpq(0))
    worst_i, worst_excess, worst_dev = -1, fmpq(0), fmpq(0)
    for i, (g, e) in enumerate(zip(got, exp, strict=True)):
        dev = abs(g - e)
        bound = _bound(at, rt, smax, e, norm)
        if dev > bound and (worst_i < 0 or dev - bound > worst_excess):
            worst_i, worst_excess, worst_dev = i, dev - bound, dev
    if worst_i < 0:
        return
    e, g = exp[worst_i], got[worst_i]
    rel = worst_dev / smax if smax != 0 else worst_dev
    hints = []
    if e != 0 and g != 0:
        ratio = g / e
        if abs(ratio - 1) > fmpq(1, 1000):
            hints.append(f"value/reference = {float(ratio):.6g} (normalisation?)")
    if fmpq(1, 10**10) < rel < fmpq(1, 10**5):
        hints.append("size of the deviation suggests float32 arithmetic somewhere")
    idx = np.unravel_index(worst_i, want_shape) if len(want_shape) > 1 else (worst_i,)
    raise AssertionError(
        f"{what}: entry {tuple(int(j) for j in idx)} = {float(g)!r} but the exact reference "
        f"is {fmpq_str(e)} (~{float(e)!r}); deviation {float(worst_dev):.3e} "
        f"(normwise relative {float(rel):.3e}) exceeds atol={fmpq_str(at)} + "
        f"rtol={fmpq_str(rt)} ({norm})"
        + (f" [dtype {dtype}]" if dtype is not None and dtype != np.float64 else "")
        + ("; " + "; ".join(hints) if hints else "")
    )

