"""Helpers for users who regression-test their own (fast) implementations against dpverify.

* :func:`reference` -- the exact reference values of a table entry (``fmpq``, nested lists).
* :func:`assert_matches_reference` -- compare your float outputs with them, *exactly*: each
  of your numbers is converted to the rational it denotes (no rounding on our side), so a
  pass/fail is never an artefact of the comparison.  Raises ``AssertionError`` with the
  worst index, the expected and actual values and a hint (length off by one, float32-sized
  error, constant factor) -- usable directly in pytest.
* hypothesis strategies for valid parameters: :func:`or_params`, :func:`gammas`,
  :func:`rofk_params`, :func:`bernstein_params`, :func:`jackson_kernel_params`,
  :func:`jackson_multiplier_params` (``hypothesis`` is imported lazily; it is only needed
  for the strategies).

Tables and quantities (conventions as in :mod:`dpverify.tables`)::

    "or"  / "or-chebyshev"   monomial (default) | chebyshev | values        params k, gamma
    "or-minimax"             monomial (default) | values                     k, gamma
    "and"                    monomial (default) | values                     k, gamma
    "rofk"                   values (default) | chebyshev_0_k | monomial     r, k, gamma
    "dlist-h"                monomial (default) | values                     k, gamma
    "jackson-kernel"         two_pi_a                                        t, r
    "jackson-multipliers"    w                                               t, K
    "bernstein-iterated"     basis (basis[nu][mu])                           k, h

``values`` are the polynomial's values at the integers ``0..k``.

Guarantee
---------
The reference values are exact (the exact constructions); the comparison is exact.  The
tolerance semantics: ``|v_i - e_i| <= atol + rtol * s`` for every entry, with
``s = max_j |e_j|`` (``norm="normwise"``, default) or ``s = |e_i|`` (``norm="entrywise"``).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from flint import fmpq

from .errors import InvalidParameterError
from .numbers import fmpq_str, to_fmpq

__all__ = [
    "reference",
    "assert_matches_reference",
    "gammas",
    "or_params",
    "rofk_params",
    "bernstein_params",
    "jackson_kernel_params",
    "jackson_multiplier_params",
]

_DEFAULT_QUANTITY = {
    "or": "monomial",
    "or-chebyshev": "monomial",
    "or-minimax": "monomial",
    "and": "monomial",
    "rofk": "values",
    "dlist-h": "monomial",
    "jackson-kernel": "two_pi_a",
    "jackson-multipliers": "w",
    "bernstein-iterated": "basis",
}


def _values_at_ints(poly: Any, k: int) -> list[fmpq]:
    P = poly.to_monomial().as_fmpq_poly()
    return [P(fmpq(x)) for x in range(k + 1)]


def reference(table: str = "or", quantity: str | None = None, **params: Any) -> list[Any]:
    """Exact reference values (``fmpq``; nested lists for matrices) of one table entry.

    Parameters are those of the table (see the module docstring), e.g.
    ``reference("or", k=25, gamma="1e-3")``; ``gamma`` is read exactly (``1e-3`` = 1/1000).
    """
    if table not in _DEFAULT_QUANTITY:
        raise InvalidParameterError(
            f"table must be one of {', '.join(_DEFAULT_QUANTITY)}, got {table!r}"
        )
    qty = quantity or _DEFAULT_QUANTITY[table]
    if table in ("or", "or-chebyshev", "or-minimax", "and", "dlist-h"):
        need = ("k", "gamma")
    elif table == "rofk":
        need = ("r", "k", "gamma")
    elif table == "jackson-kernel":
        need = ("t", "r")
    elif table == "jackson-multipliers":
        need = ("t", "K")
    else:
        need = ("k", "h")
    missing = [n for n in need if n not in params]
    extra = sorted(set(params) - set(need))
    if missing or extra:
        raise InvalidParameterError(
            f"table {table!r} takes parameters {', '.join(need)}"
            + (f"; missing {', '.join(missing)}" if missing else "")
            + (f"; unknown {', '.join(extra)}" if extra else "")
        )

    def bad() -> InvalidParameterError:
        return InvalidParameterError(f"quantity {qty!r} is not available for table {table!r}")

    if table in ("or", "or-chebyshev", "or-minimax", "and"):
        from .constructions.chebyshev import and_polynomial, or_polynomial

        method = "minimax" if table == "or-minimax" else "chebyshev"
        fn = and_polynomial if table == "and" else or_polynomial
        a = fn(params["k"], params["gamma"], method=method)
        if qty == "monomial":
            return list(a.poly.coeffs)
        if qty == "values":
            return _values_at_ints(a.poly, int(params["k"]))
        if qty == "chebyshev" and method == "chebyshev":
            return [to_fmpq(c, "c") for c in a.extra["chebyshev"]["form"]["coefficients"]]
        raise bad()
    if table == "rofk":
        from .constructions.sherstov import rofk_polynomial

        a = rofk_polynomial(params["r"], params["k"], params["gamma"], intermediates="summary")
        if qty == "values":
            return _values_at_ints(a.poly, int(params["k"]))
        if qty == "chebyshev_0_k":
            return list(a.poly.to_chebyshev(domain=(0, int(params["k"]))).coeffs)
        if qty == "monomial":
            return list(a.poly.coeffs)
        raise bad()
    if table == "dlist-h":
        from .constructions.decision_lists import h_polynomial

        a = h_polynomial(params["k"], params["gamma"])
        if qty == "monomial":
            return list(a.poly.coeffs)
        if qty == "values":
            return _values_at_ints(a.poly, int(params["k"]))
        raise bad()
    if table == "jackson-kernel":
        from .constructions.jackson import jackson_coefficients_2pi

        if qty != "two_pi_a":
            raise bad()
        return list(jackson_coefficients_2pi(params["t"], params["r"]))
    if table == "jackson-multipliers":
        from .constructions.jackson import jackson_multipliers

        if qty != "w":
            raise bad()
        return list(jackson_multipliers(params["t"], params["K"]))
    from .constructions.bernstein import iterated_bernstein_basis

    if qty != "basis":
        raise bad()
    return iterated_bernstein_basis(params["k"], params["h"]).basis


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


def assert_matches_reference(
    values: Any,
    table: str = "or",
    *,
    quantity: str | None = None,
    rtol: Any = "1e-12",
    atol: Any = 0,
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
    """
    if norm not in ("normwise", "entrywise"):
        raise InvalidParameterError(f"norm must be 'normwise' or 'entrywise', got {norm!r}")
    rt = to_fmpq(rtol, "rtol")
    at = to_fmpq(atol, "atol")
    if rt < 0 or at < 0:
        raise InvalidParameterError("rtol and atol must be >= 0")
    ref = reference(table, quantity, **params)
    dtype = getattr(values, "dtype", None)
    arr = np.asarray(values, dtype=object) if dtype is None else np.asarray(values)
    got_shape = tuple(arr.shape)
    want_shape = _shape(ref)
    what = f"{table} ({quantity or _DEFAULT_QUANTITY[table]}, {params})"
    if got_shape != want_shape:
        hint = ""
        if len(got_shape) == len(want_shape) == 1 and abs(got_shape[0] - want_shape[0]) == 1:
            hint = " (off by one: degree or index range?)"
        raise AssertionError(
            f"{what}: shape {got_shape} does not match the reference shape {want_shape}{hint}"
        )
    exp = _flatten(ref)
    got = [_exact_of(v, i) for i, v in enumerate(arr.reshape(-1).tolist())]
    smax = max((abs(e) for e in exp), default=fmpq(0))
    worst_i, worst_excess, worst_dev = -1, fmpq(0), fmpq(0)
    for i, (g, e) in enumerate(zip(got, exp, strict=True)):
        dev = abs(g - e)
        bound = at + rt * (smax if norm == "normwise" else abs(e))
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


# ----------------------------------------------------------------------------- strategies


def _st():
    try:
        from hypothesis import strategies as st
    except ImportError as exc:  # pragma: no cover - hypothesis is a test dependency
        from .errors import MissingExtraError

        raise MissingExtraError(
            'the strategies need hypothesis: pip install hypothesis'
        ) from exc
    return st


def gammas(min_exponent: int = 1, max_exponent: int = 12):
    """Exact gamma strings in (0, 1): ``"1e-e"`` and ``"p/q"`` with ``1/10^max <= p/q <=
    1/10^min``-ish (always valid for :func:`dpverify.numbers.check_open_unit`)."""
    st = _st()
    decimal = st.integers(min_exponent, max_exponent).map(lambda e: f"1e-{e}")
    frac = st.tuples(st.integers(1, 9), st.integers(min_exponent, max_exponent)).map(
        lambda pe: f"{pe[0]}/{10 ** pe[1] + 1}"
    )
    return st.one_of(decimal, frac)


def or_params(max_k: int = 200, max_exponent: int = 12):
    """``{"k": k, "gamma": g}`` valid for the OR/AND/h_k tables (degree stays small)."""
    st = _st()
    return st.fixed_dictionaries(
        {"k": st.integers(1, max_k), "gamma": gammas(1, max_exponent)}
    )


def rofk_params(max_k: int = 24, max_r: int = 2, max_degree: int = 1200):
    """``{"r", "k", "gamma"}`` for which the printed Sherstov construction is defined
    (``k - l - Delta > 0``) and its predicted degree is at most ``max_degree``."""
    st = _st()
    from .constructions.sherstov import sherstov_parameters
    from .errors import DomainError

    def ok(p: dict[str, Any]) -> bool:
        if p["r"] > p["k"]:
            return False
        try:
            prm = sherstov_parameters(p["r"], p["k"], p["gamma"])
        except DomainError:
            return False
        return max(prm.degree.values()) <= max_degree

    return st.fixed_dictionaries(
        {"r": st.integers(1, max_r), "k": st.integers(4, max_k),
         "gamma": st.sampled_from(["1e-1", "1e-2", "1/20"])}
    ).filter(ok)


def bernstein_params(max_k: int = 20, max_h: int = 6):
    """``{"k", "h"}`` for the iterated Bernstein basis."""
    st = _st()
    return st.fixed_dictionaries({"k": st.integers(1, max_k), "h": st.integers(1, max_h)})


def jackson_kernel_params(max_t: int = 64, max_r: int = 6):
    """``{"t", "r"}`` for the Jackson kernel table."""
    st = _st()
    return st.fixed_dictionaries({"t": st.integers(1, max_t), "r": st.integers(1, max_r)})


def jackson_multiplier_params(max_t: int = 64, max_K: int = 8):
    """``{"t", "K"}`` for the Jackson multipliers table."""
    st = _st()
    return st.fixed_dictionaries({"t": st.integers(1, max_t), "K": st.integers(0, max_K)})
