"""The protocol between the certifiers and a search (e.g.
:func:`dpverify.constructions.remez.remez`, which certification never imports).

A search is called ``search(f, n, (a, b), **keywords)`` and returns an
:class:`~dpverify.Approximation` with ``extra["alternation"]``; it is passed only the
optional keywords it declares among :data:`KEYWORDS` (``deadline``: a ``time.monotonic()``
instant; ``decide``: a number to place ``E_n`` against; ``progress``; ``tol``: its
equioscillation tolerance; ``family``, ``weight``, ``relative``: the polynomials and the
error weight, :mod:`dpverify.family`), so any callable of three arguments is a search
(the certifiers refuse a family or a weight for a search that does not declare them).  What it
reports (``levelled_error``, ``max_error_estimate``, ``stop`` in ``extra``) is read as
search numbers: they choose which degrees to certify, never what is certified.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from flint import fmpq

from ..approximation import Approximation
from ..errors import InvalidParameterError, ParameterTypeError
from ..numbers import to_fmpq

__all__ = ["KEYWORDS", "Search", "Probe", "accepts", "call_search", "search_number",
           "side_of_gamma", "rtols_for"]

#: A search: ``search(f, degree, (a, b), **keywords)`` -> Approximation with
#: ``extra["alternation"]`` (and optionally ``extra["extrema"]``, hints for the upper bound).
Search = Callable[..., Approximation]

KEYWORDS = ("deadline", "decide", "progress", "tol", "family", "weight", "relative")


def accepts(search: Callable[..., Any]) -> set[str]:
    """The optional keywords (:data:`KEYWORDS`) that ``search`` takes."""
    try:
        params = inspect.signature(search).parameters
    except (TypeError, ValueError):
        return set()
    if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values()):
        return set(KEYWORDS)
    return {k for k in KEYWORDS if k in params}


def call_search(search: Search, f: Any, n: int, a: fmpq, b: fmpq,
                 **kw: Any) -> Approximation:
    if not callable(search):
        raise ParameterTypeError(f"search must be callable, got {type(search).__name__}")
    ok = accepts(search)
    out = search(f, n, (a, b), **{k: v for k, v in kw.items() if k in ok and v is not None})
    if not isinstance(out, Approximation):
        raise ParameterTypeError("search must return an Approximation")
    return out


@dataclass
class Probe:
    """Where the search puts ``E_n`` against ``gamma`` (search numbers: they only choose
    which degrees to certify)."""

    n: int
    side: str  # above (E_n > gamma), below (E_n <= gamma), close (gamma within the
    #            search's bracket of E_n), failed (the search could not say)
    proposal: Approximation
    why: str = ""


def search_number(text: Any) -> fmpq | None:
    try:
        return to_fmpq(str(text), "search estimate")
    except (InvalidParameterError, ParameterTypeError):
        return None


def side_of_gamma(ap: Approximation, g: fmpq) -> tuple[str, str]:
    ex = ap.extra
    h = search_number(ex.get("levelled_error"))
    emax = search_number(ex.get("max_error_estimate"))
    stop = str(ex.get("stop", "converged" if ex.get("converged") else "unknown"))
    if h is not None and h > g:
        return "above", ""
    if emax is not None and emax <= g:
        return "below", ""
    if stop in ("converged", "exact") and h is not None and emax is not None:
        return "close", ""
    return "failed", (f"the Remez search stopped ({stop} after {ex.get('iterations')} "
                      f"exchange steps) with levelled error {ex.get('levelled_error')} and "
                      f"largest error {ex.get('max_error_estimate')}, which do not place "
                      f"E_n on one side of gamma")


def rtols_for(rtol: fmpq, full: Approximation, g: fmpq) -> list[fmpq]:
    """``rtol``, then one small enough to separate ``E_n`` from ``gamma`` when the search
    puts them closer than ``rtol``."""
    out = [rtol]
    est = search_number(full.extra.get("max_error_estimate"))
    if est is not None and 0 < est < g and g / est - 1 < 2 * rtol:
        out.append(max((g / est - 1) / 4, fmpq(1, 10**15)))
    return out


