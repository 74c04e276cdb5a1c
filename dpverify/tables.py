"""Reference coefficient tables: exact rationals plus bit-exact float64, JSON + CSV + manifest.

Each table is computed by the *exact* constructions (never by :mod:`dpverify.fast`): every
number is stored as the exact rational ``"p/q"`` and as the float64 nearest to it (correctly
rounded, ``int(p)/int(q)`` in Python), written both as ``float.hex`` (bit-exact) and as
``repr`` (shortest round-trip decimal).  Files are reproducible: sorted keys, fixed
formatting, ``\\n`` line ends, no timestamps -- the same command gives byte-identical files,
with either backend.

Tables are named like the commands (:data:`CONSTRUCTIONS`) and take the commands'
parameters; any parameters are accepted (the construction validates them), each given as
one value or a list of values (the table is then the Cartesian product, in the order of
:data:`CONSTRUCTIONS`).  Without parameters a table uses its built-in grid (:data:`GRIDS`,
``"full"`` or ``"quick"``).

* ``or`` -- OR polynomial ``g`` (thaler2012 Fact 4.2), parameters ``k, gamma[, method]``
  (``method`` ``chebyshev`` (default) or ``minimax``): monomial coefficients in the count
  ``x``, degree, values at ``x = 0..k``; with ``chebyshev`` also the Chebyshev form on
  ``(1, k)`` and the exact error ``1/T_t((k+1)/(k-1))``.
* ``and`` -- AND polynomial ``1 - g(k - x)``, parameters ``k, gamma[, method]``.
* ``rofk`` -- r-of-k threshold polynomial, ``r, k, gamma[, method]`` (``sherstov``
  (thaler2012 Lemma 4.5, App. B, default reading) or ``minimax``): Chebyshev coefficients on
  ``(0, k)`` and the values at ``x = 0..k`` (the monomial coefficients are thousands of digits
  long and ill-conditioned; :func:`table_values` gives them on request).
* ``dlist`` -- decision-list ``h_k(z) = 1 - g_k(k - z)`` (thaler2012 App. A), ``k, gamma[,
  method]``: monomial in ``z``, degree, values at ``z = 0..k``.
* ``jackson`` -- with ``t, r``: ``2 pi a_l`` of ``H_{t,r}`` (wang2013 Def. 4.1) and its degree;
  with ``t, K``: the multipliers ``w_0..w_t`` of ``I_{t,K}`` (wang2013 eq. (2)).
* ``bernstein`` -- iterated Bernstein basis ``basis[nu][mu]`` = coefficient of
  ``b^{(h)}_{nu,k}`` on ``b_{mu,k}`` (alda2017 Definition 8), ``k, h``.

The names of earlier versions stay valid as aliases (:data:`ALIASES`), each with its old
grid: ``or-chebyshev`` (= ``or``, ``method=chebyshev``), ``or-minimax`` (= ``or``,
``method=minimax``), ``dlist-h``, ``jackson-kernel`` (= ``jackson`` with ``r``),
``jackson-multipliers`` (= ``jackson`` with ``K``), ``bernstein-iterated``.

``backend="dask"`` computes the entries of a grid in parallel on a Dask cluster (an embedded
``LocalCluster``, an address or a ``distributed.Client``; ``pip install "dpverify[dask]"``).
Every entry is a pure function of its parameters and the entries are gathered in grid order,
so the files are byte-identical to the serial (``"local"``) run.

Guarantee
---------
Exact values come from the exact constructions; the float64 columns are the correctly
rounded values of the exact rationals.  Nothing here is certified beyond that (run
``dpverify or ...`` etc. for certificates).
"""

from __future__ import annotations

import csv
import hashlib
import io
import itertools
import json
import os
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from numbers import Integral
from typing import Any

from flint import fmpq, fmpz

from ._version import __version__
from .atomic import write_bytes
from .constructions.bernstein import iterated_bernstein_basis
from .constructions.chebyshev import and_polynomial, or_polynomial
from .constructions.decision_lists import h_polynomial
from .constructions.jackson import (
    jackson_coefficients_2pi,
    jackson_kernel_degree,
    jackson_multipliers,
)
from .constructions.sherstov import rofk_polynomial
from .errors import InvalidParameterError, ParameterTypeError
from .mechanisms.backend import check_backend, dask_client
from .numbers import fmpq_str, to_fmpq
from .progress import ProgressCallback, report

__all__ = [
    "CONSTRUCTIONS", "ALIASES", "TABLES", "GRIDS", "MAX_GRID_ENTRIES", "float64_of",
    "number_record", "table_values", "table_entry", "grid_entries", "build_table",
    "write_tables", "table_names",
]

#: Largest number of entries of one table (a guard against a typo in a parameter list).
MAX_GRID_ENTRIES = 10_000


def float64_of(q: Any) -> float:
    """The float64 nearest to the exact rational ``q`` (ties to even; Python's correctly
    rounded ``int / int``).  Raises OverflowError beyond the float range."""
    q = to_fmpq(q, "q")
    return int(q.p) / int(q.q)


def number_record(q: Any) -> dict[str, str]:
    """``{"exact": "p/q", "float64_hex": ..., "float64": repr}`` for one exact number."""
    q = to_fmpq(q, "q")
    try:
        f = float64_of(q)
        return {"exact": fmpq_str(q), "float64_hex": f.hex(), "float64": repr(f)}
    except OverflowError:
        return {"exact": fmpq_str(q), "float64_hex": "inf", "float64": "inf"}


# ----------------------------------------------------------------------------- builders
# Each builder maps the (normalised) parameters to {quantity: exact values}; ``more=True``
# adds quantities that are too large for the files but available to dpverify.testing.


def _values(poly: Any, k: int) -> list[fmpq]:
    P = poly.to_monomial().as_fmpq_poly()
    return [P(fmpq(x)) for x in range(k + 1)]


def _or_and(p: dict[str, Any], fn: Callable[..., Any]) -> dict[str, Any]:
    method = p.get("method", "chebyshev")
    a = fn(p["k"], p["gamma"], method=method)
    out: dict[str, Any] = {"monomial": list(a.poly.coeffs), "degree": a.poly.degree,
                           "values": _values(a.poly, p["k"])}
    ch = a.extra.get("chebyshev") if method == "chebyshev" else None
    if ch and "form" in ch:
        out["chebyshev"] = [to_fmpq(c, "c") for c in ch["form"]["coefficients"]]
    if ch and "error_exact" in ch:
        out["error_exact"] = to_fmpq(ch["error_exact"], "e")
    return out


def _or(p: dict[str, Any], more: bool = False) -> dict[str, Any]:
    return _or_and(p, or_polynomial)


def _and(p: dict[str, Any], more: bool = False) -> dict[str, Any]:
    return _or_and(p, and_polynomial)


def _rofk(p: dict[str, Any], more: bool = False) -> dict[str, Any]:
    method = p.get("method", "sherstov")
    kw: dict[str, Any] = {"intermediates": "summary"} if method == "sherstov" else {}
    a = rofk_polynomial(p["r"], p["k"], p["gamma"], method=method, **kw)
    out = {
        "chebyshev_0_k": list(a.poly.to_chebyshev(domain=(0, p["k"])).coeffs),
        "values": _values(a.poly, p["k"]),
        "degree": a.poly.degree,
    }
    if more:
        out["monomial"] = list(a.poly.to_monomial().coeffs)
    return out


def _dlist(p: dict[str, Any], more: bool = False) -> dict[str, Any]:
    a = h_polynomial(p["k"], p["gamma"], method=p.get("method", "chebyshev"))
    return {"monomial": list(a.poly.coeffs), "degree": a.poly.degree,
            "values": _values(a.poly, p["k"])}


def _jackson(p: dict[str, Any], more: bool = False) -> dict[str, Any]:
    if "r" in p:
        return {"two_pi_a": list(jackson_coefficients_2pi(p["t"], p["r"])),
                "degree": jackson_kernel_degree(p["t"], p["r"])}
    return {"w": list(jackson_multipliers(p["t"], p["K"]))}


def _bernstein(p: dict[str, Any], more: bool = False) -> dict[str, Any]:
    return {"basis": iterated_bernstein_basis(p["k"], p["h"]).basis}


# ----------------------------------------------------------------------------- specs


@dataclass(frozen=True)
class Construction:
    """A table family named like its command: parameter kinds (``int``, ``exact`` or a tuple
    of choices), the required ones, exclusive groups, the builder and the default quantity."""

    name: str
    description: str
    convention: str
    params: dict[str, Any]
    required: tuple[str, ...]
    build: Callable[..., dict[str, Any]]
    default_quantity: str
    one_of: tuple[str, ...] = ()


@dataclass(frozen=True)
class TableSpec:
    """A named table: a construction, parameters fixed by the name (aliases) and grids."""

    name: str
    construction: str
    description: str
    convention: str
    full: tuple[dict[str, Any], ...]
    quick: tuple[dict[str, Any], ...]
    fixed: dict[str, Any] = field(default_factory=dict)


_OR_CONV = ("monomial: coefficients of g in the count x, lowest degree first; values: g(x), "
            "x = 0..k; chebyshev (method chebyshev): g = sum c_n T_n(v), v = (2x-k-1)/(k-1) "
            "on (1, k) (k = 1: v = 2x-1 on (0, 1)); error_exact = max_{x in 0..k} "
            "|g(x) - OR(x)| = 1/T_t((k+1)/(k-1))")
_ROFK_CONV = "chebyshev_0_k: p = sum c_n T_n(u), u = (2x - k)/k on (0, k); values: p(x), x = 0..k"
_DLIST_CONV = "monomial: coefficients in z, lowest degree first; values: h_k(z), z = 0..k"
_JACKSON_CONV = ("with r: two_pi_a[l] = 2*pi*a_l of H(s) = a_0 + sum_l a_l cos(l s); with K: "
                 "w[n]: I_{t,K} cos(n .) = w_n cos(n .), n = 0..t")
_BERN_CONV = ("basis[nu][mu] = coefficient of b^(h)_{nu,k} on b_{mu,k} = "
              "C(k,mu) y^mu (1-y)^(k-mu)")

CONSTRUCTIONS: dict[str, Construction] = {c.name: c for c in (
    Construction("or", "OR polynomial g on {0..k} with g(0) = 0 (thaler2012 Fact 4.2; "
                 "method minimax: least degree, exact Remez)", _OR_CONV,
                 {"k": "int", "gamma": "exact", "method": ("chebyshev", "minimax")},
                 ("k", "gamma"), _or, "monomial"),
    Construction("and", "AND polynomial 1 - g(k - x) on {0..k} (thaler2012 Fact 4.2)",
                 "monomial: coefficients in the count x, lowest degree first; values: p(x), "
                 "x = 0..k", {"k": "int", "gamma": "exact", "method": ("chebyshev", "minimax")},
                 ("k", "gamma"), _and, "monomial"),
    Construction("rofk", "r-of-k threshold polynomial (thaler2012 Lemma 4.5, App. B, default "
                 "reading; method minimax: least degree)", _ROFK_CONV,
                 {"r": "int", "k": "int", "gamma": "exact", "method": ("sherstov", "minimax")},
                 ("r", "k", "gamma"), _rofk, "values"),
    Construction("dlist", "decision-list h_k(z) = 1 - g_k(k - z), g_k built for gamma/k "
                 "(thaler2012 App. A)", _DLIST_CONV,
                 {"k": "int", "gamma": "exact", "method": ("chebyshev", "minimax")},
                 ("k", "gamma"), _dlist, "monomial"),
    Construction("jackson", "generalized Jackson kernel H_{t,r} = J_{t',r}, t' = floor(t/r)+1 "
                 "(wang2013 Def. 4.1) or the multipliers of I_{t,K}, r = ceil((K+3)/2) "
                 "(wang2013 eq. (2))", _JACKSON_CONV, {"t": "int", "r": "int", "K": "int"},
                 ("t",), _jackson, "two_pi_a", one_of=("r", "K")),
    Construction("bernstein", "iterated Bernstein basis b^(h)_{nu,k} (alda2017 Def. 8)",
                 _BERN_CONV, {"k": "int", "h": "int"}, ("k", "h"), _bernstein, "basis"),
)}


def _kg(ks: Sequence[int], gs: Sequence[str], **more: Any) -> tuple[dict[str, Any], ...]:
    return tuple({"k": k, "gamma": g, **more} for k in ks for g in gs)


_OR_CHEB_FULL = _kg((1, 2, 3, 5, 10, 25, 50, 100), ("1e-1", "1e-2", "1e-3", "1e-6"))
_OR_CHEB_QUICK = _kg((2, 5, 25), ("1e-1", "1e-3"))
_OR_MM_FULL = _kg((2, 5, 10, 25, 50), ("1e-1", "1e-2", "1e-3"))
_OR_MM_QUICK = _kg((5, 10), ("1e-1",))
_ROFK_FULL = ({"r": 1, "k": 20, "gamma": "1e-2"}, {"r": 2, "k": 20, "gamma": "1e-2"})
_ROFK_QUICK = ({"r": 1, "k": 20, "gamma": "1e-2"},)
_DLIST_FULL = _kg((1, 2, 5, 10, 20), ("1e-1", "1e-3"))
_DLIST_QUICK = _kg((2, 5), ("1e-1",))
_JK_FULL = tuple({"t": t, "r": r} for t in (4, 8, 16, 32, 64) for r in (1, 2, 3, 4))
_JK_QUICK = ({"t": 8, "r": 2}, {"t": 16, "r": 3})
_JM_FULL = tuple({"t": t, "K": K} for t in (8, 16, 32, 64) for K in (1, 2, 3, 4))
_JM_QUICK = ({"t": 8, "K": 1}, {"t": 16, "K": 3})
_BERN_FULL = tuple({"k": k, "h": h} for k in (1, 2, 5, 10, 20) for h in (1, 2, 3, 4, 6))
_BERN_QUICK = ({"k": 5, "h": 2}, {"k": 10, "h": 3})


def _canonical(name: str, full: tuple, quick: tuple) -> TableSpec:
    c = CONSTRUCTIONS[name]
    return TableSpec(name, name, c.description, c.convention, full, quick)


_SPECS: tuple[TableSpec, ...] = (
    _canonical("or", _OR_CHEB_FULL + tuple({**p, "method": "minimax"} for p in _OR_MM_FULL),
               _OR_CHEB_QUICK + tuple({**p, "method": "minimax"} for p in _OR_MM_QUICK)),
    _canonical("and", _kg((2, 5, 10, 25, 50, 100), ("1e-1", "1e-3", "1e-6")),
               _kg((2, 5), ("1e-1",))),
    _canonical("rofk", _ROFK_FULL, _ROFK_QUICK),
    _canonical("dlist", _DLIST_FULL, _DLIST_QUICK),
    _canonical("jackson", _JK_FULL + _JM_FULL, _JK_QUICK + _JM_QUICK),
    _canonical("bernstein", _BERN_FULL, _BERN_QUICK),
    # aliases: the names of earlier versions, with their grids
    TableSpec("or-chebyshev", "or", "Chebyshev OR polynomial g (thaler2012 Fact 4.2)",
              _OR_CONV, _OR_CHEB_FULL, _OR_CHEB_QUICK, {"method": "chebyshev"}),
    TableSpec("or-minimax", "or", "least-degree OR polynomial with g(0) = 0 on {0..k} (exact "
              "Remez)", "monomial: coefficients in the count x, lowest degree first",
              _OR_MM_FULL, _OR_MM_QUICK, {"method": "minimax"}),
    TableSpec("dlist-h", "dlist", CONSTRUCTIONS["dlist"].description, _DLIST_CONV,
              _DLIST_FULL, _DLIST_QUICK),
    TableSpec("jackson-kernel", "jackson", "generalized Jackson kernel H_{t,r} = J_{t',r}, "
              "t' = floor(t/r)+1 (wang2013 Def. 4.1)",
              "two_pi_a[l] = 2*pi*a_l of H(s) = a_0 + sum_l a_l cos(l s)", _JK_FULL, _JK_QUICK),
    TableSpec("jackson-multipliers", "jackson", "multipliers of I_{t,K}, r = ceil((K+3)/2) "
              "(wang2013 eq. (2))", "w[n]: I_{t,K} cos(n .) = w_n cos(n .), n = 0..t",
              _JM_FULL, _JM_QUICK),
    TableSpec("bernstein-iterated", "bernstein", CONSTRUCTIONS["bernstein"].description,
              _BERN_CONV, _BERN_FULL, _BERN_QUICK),
)

TABLES: dict[str, TableSpec] = {s.name: s for s in _SPECS}
#: alias -> the name of its construction (the command name)
ALIASES: dict[str, str] = {s.name: s.construction for s in _SPECS if s.name != s.construction}
GRIDS: dict[str, dict[str, tuple[dict[str, Any], ...]]] = {
    s.name: {"full": s.full, "quick": s.quick} for s in _SPECS
}
# Parameters an alias requires beyond its construction's (it names one of the exclusive ones).
_ALIAS_REQUIRES: dict[str, tuple[str, ...]] = {"jackson-kernel": ("r",),
                                               "jackson-multipliers": ("K",)}


def table_names(aliases: bool = True) -> list[str]:
    """Table names: the constructions (named like the commands), then the aliases."""
    return [s.name for s in _SPECS if aliases or s.name == s.construction]


def _spec(name: Any) -> TableSpec:
    if not isinstance(name, str) or name not in TABLES:
        raise InvalidParameterError(
            f"name must be one of {', '.join(table_names())} or 'all', got {name!r}")
    return TABLES[name]


# ----------------------------------------------------------------------------- parameters

_INT_RE = re.compile(r"\s*[+-]?\d+\s*")


def _norm_value(kind: Any, value: Any, name: str) -> Any:
    """One parameter value in its stored (JSON-able) form: an ``int``, an exact number as the
    string given (validated) or ``"p/q"``, or one of the choices."""
    if kind == "int":
        if isinstance(value, str) and _INT_RE.fullmatch(value):
            return int(value)  # integers as on the command line
        if isinstance(value, bool) or not isinstance(value, (Integral, fmpz)):
            raise ParameterTypeError(f"{name} must be an integer, got {value!r}")
        return int(value)
    if kind == "exact":
        if isinstance(value, str):
            to_fmpq(value, name)  # validate now: a bad value fails before any work
            return value.strip()
        return fmpq_str(to_fmpq(value, name))
    if not isinstance(value, str) or value.strip() not in kind:
        raise InvalidParameterError(f"{name} must be one of {', '.join(kind)}, got {value!r}")
    return value.strip()


def _check_entry(spec: TableSpec, p: dict[str, Any]) -> dict[str, Any]:
    """Validate the names of one entry's parameters (values were normalised already)."""
    c = CONSTRUCTIONS[spec.construction]
    unknown = [k for k in p if k not in c.params]
    if unknown:
        raise InvalidParameterError(
            f"{unknown[0]} is not a parameter of table {spec.name!r} (parameters: "
            f"{', '.join(c.params)})")
    fixed = [k for k in p if k in spec.fixed and p[k] != spec.fixed[k]]
    if fixed:
        raise InvalidParameterError(
            f"{fixed[0]} is fixed to {spec.fixed[fixed[0]]!r} by table {spec.name!r}")
    need = c.required + _ALIAS_REQUIRES.get(spec.name, ())
    missing = [k for k in need if k not in p]
    if missing:
        raise InvalidParameterError(
            f"{missing[0]} is required by table {spec.name!r} (parameters: "
            f"{', '.join(need)})")
    if c.one_of and sum(k in p for k in c.one_of) != 1:
        raise InvalidParameterError(
            f"table {spec.name!r} takes exactly one of the parameters "
            f"{', '.join(c.one_of)}, got {', '.join(k for k in c.one_of if k in p) or 'none'}")
    return p


def grid_entries(name: str, params: dict[str, Any] | None = None,
                 grid: str = "full") -> list[dict[str, Any]]:
    """The parameter sets of table ``name``: the Cartesian product of ``params`` (each value
    one value or a list of values; order of the construction's parameters), or the built-in
    ``grid`` (``"full"`` or ``"quick"``) when ``params`` is None.  Names are checked; values
    are normalised (integers may be decimal strings, as on the command line) and checked by
    the construction when the entry is built."""
    spec = _spec(name)
    if params is None:
        if grid not in ("full", "quick"):
            raise InvalidParameterError(f"grid must be 'full' or 'quick', got {grid!r}")
        return [dict(p) for p in (spec.full if grid == "full" else spec.quick)]
    if not isinstance(params, dict):
        raise ParameterTypeError(f"params must be a dict, got {type(params).__name__}")
    c = CONSTRUCTIONS[spec.construction]
    for key in params:
        if key not in c.params:
            raise InvalidParameterError(
                f"{key} is not a parameter of table {name!r} (parameters: "
                f"{', '.join(c.params)})")
    axes: list[tuple[str, list[Any]]] = []
    for key in c.params:
        if key not in params:
            continue
        raw = params[key]
        if hasattr(raw, "tolist") and not isinstance(raw, str):  # a numpy array
            raw = raw.tolist()
        vals = list(raw) if isinstance(raw, (list, tuple)) else [raw]
        if not vals:
            raise InvalidParameterError(f"{key} must have at least one value")
        normed: list[Any] = []
        for v in vals:
            nv = _norm_value(c.params[key], v, key)
            if nv not in normed:
                normed.append(nv)
        axes.append((key, normed))
    size = 1
    for _, vs in axes:
        size *= len(vs)
    if size > MAX_GRID_ENTRIES:
        raise InvalidParameterError(
            f"params give {size} entries, more than {MAX_GRID_ENTRIES} (one table)")
    keys = [k for k, _ in axes]
    return [_check_entry(spec, dict(zip(keys, combo)))
            for combo in itertools.product(*(vs for _, vs in axes))]


# ----------------------------------------------------------------------------- entries


def table_values(name: str, params: dict[str, Any], more: bool = False) -> dict[str, Any]:
    """The exact quantities of one entry of table ``name``: ``{quantity: value}`` with
    ``fmpq`` numbers (nested lists for vectors and matrices) and ``int`` degrees.
    ``more=True`` adds quantities not written to the files (``rofk``: ``monomial``)."""
    spec = _spec(name)
    (p,) = grid_entries(name, dict(params))
    return CONSTRUCTIONS[spec.construction].build({**spec.fixed, **p}, more)


def _encode(v: Any) -> Any:
    if isinstance(v, (list, tuple)):
        return [_encode(x) for x in v]
    if isinstance(v, bool) or v is None:
        return v
    if isinstance(v, int):
        return v
    return number_record(v)


def table_entry(name: str, params: dict[str, Any]) -> dict[str, Any]:
    """One entry of table ``name``: ``{"params": ..., quantity: [records...], ...}``.

    Scalars that are Python ints (degrees) are stored as JSON ints; every exact number as
    :func:`number_record`.  Parameters are stored as given (``gamma`` as its string).
    A pure function of its arguments (the dask backend relies on it).
    """
    (p,) = grid_entries(name, dict(params))
    data = table_values(name, p)
    out: dict[str, Any] = {"params": p}
    for key, val in data.items():
        out[key] = _encode(val)
    return out


def _compute(tasks: list[tuple[str, dict[str, Any]]], backend: str, scheduler: Any,
             progress: ProgressCallback | None = None) -> list[dict[str, Any]]:
    """``table_entry`` of every task, in order: serially or as Dask tasks; reports
    ``progress("entries", done, len(tasks))`` as entries complete (after a stage
    ``"dask cluster"`` while the cluster starts)."""
    n = len(tasks)
    if backend == "local":
        report(progress, "entries", 0, n)
        out = []
        for i, (name, p) in enumerate(tasks, 1):
            out.append(table_entry(name, p))
            report(progress, "entries", i, n)
        return out
    report(progress, "dask cluster", 0)
    with dask_client(scheduler) as (client, _):
        report(progress, "entries", 0, n)
        # pure=False: every task gets its own key; gather returns them in task order, so
        # the result (and the files) do not depend on where or when each one ran
        futures = client.map(table_entry, [t[0] for t in tasks], [t[1] for t in tasks],
                             pure=False)
        if progress is not None:
            # distributed is the optional dask extra, present once dask_client succeeded
            from distributed import as_completed

            for i, _f in enumerate(as_completed(futures), 1):
                report(progress, "entries", i, n)
        return list(client.gather(futures))


def _header(spec: TableSpec, grid: str) -> dict[str, Any]:
    return {
        "table": spec.name,
        "construction": spec.construction,
        "description": spec.description,
        "convention": spec.convention,
        "number_format": "each number: exact 'p/q', float64_hex (float.hex of the correctly "
        "rounded float64), float64 (repr of the same float)",
        "grid": grid,
        "dpverify_version": __version__,
    }


def build_table(name: str, grid: str = "full", *, params: dict[str, Any] | None = None,
                backend: str = "local", scheduler: Any = None,
                progress: ProgressCallback | None = None) -> dict[str, Any]:
    """Table ``name`` as a JSON-able dict: over its built-in ``grid`` ("full" or "quick"),
    or over the Cartesian product of ``params`` (:func:`grid_entries`; the ``grid`` field
    is then ``"custom"``).  ``backend="dask"`` computes the entries in parallel (module
    docstring); the result is identical to ``backend="local"``.  ``progress``: a
    :mod:`dpverify.progress` callback, called as ``("entries", done, total)``."""
    check_backend(backend, scheduler)
    spec = _spec(name)
    plist = grid_entries(name, params, grid)
    label = "custom" if params is not None else grid
    entries = _compute([(name, p) for p in plist], backend, scheduler, progress)
    return {**_header(spec, label), "entries": entries}


def _dumps(obj: Any) -> bytes:
    return (json.dumps(obj, sort_keys=True, indent=1, ensure_ascii=True) + "\n").encode()


def _param_key(params: dict[str, Any]) -> str:
    return ";".join(f"{k}={params[k]}" for k in sorted(params))


def _csv_rows(table: dict[str, Any]) -> list[list[str]]:
    rows: list[list[str]] = []

    def walk(qty: str, v: Any, idx: tuple[int, ...], key: str) -> None:
        if isinstance(v, dict) and "exact" in v:
            rows.append([table["table"], key, qty, ",".join(map(str, idx)) or "-",
                         v["exact"], v["float64_hex"], v["float64"]])
        elif isinstance(v, list):
            for i, w in enumerate(v):
                walk(qty, w, idx + (i,), key)
        elif isinstance(v, int):
            rows.append([table["table"], key, qty, "-", str(v), "", ""])

    for e in table["entries"]:
        key = _param_key(e["params"])
        for qty in sorted(k for k in e if k != "params"):
            walk(qty, e[qty], (), key)
    return rows


def _csv_bytes(table: dict[str, Any]) -> bytes:
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(["table", "params", "quantity", "index", "exact", "float64_hex", "float64"])
    w.writerows(_csv_rows(table))
    return buf.getvalue().encode()


def write_tables(names: Sequence[str], out_dir: str, grid: str = "full", *,
                 params: dict[str, Any] | None = None, backend: str = "local",
                 scheduler: Any = None,
                 progress: ProgressCallback | None = None) -> dict[str, Any]:
    """Write ``NAME.json`` and ``NAME.csv`` for each name and ``manifest.json`` into
    ``out_dir`` (created if needed).  Returns the manifest.

    ``names`` are table names (:data:`TABLES`) or ``"all"`` (every construction, not the
    aliases).  ``params`` (one value or a list per parameter) replaces the built-in ``grid``
    of every named table.  ``backend="dask"`` computes all entries of all tables in
    parallel; the files are byte-identical to the serial run.  ``progress``: a
    :mod:`dpverify.progress` callback, called as ``("entries", done, total)`` over all
    tables.

    The manifest lists, per table, its parameters and the sha256 of each file, plus the
    dpverify version; it has no timestamps, so repeated runs give identical bytes.
    """
    check_backend(backend, scheduler)
    if isinstance(names, str) or not isinstance(names, Sequence) or not names:
        raise InvalidParameterError(f"names must be a non-empty list of table names, got "
                                    f"{names!r}")
    if "all" in names:
        if params is not None:
            raise InvalidParameterError("params cannot be combined with 'all' (name the "
                                        "tables)")
        names = table_names(aliases=False)
    specs = [_spec(n) for n in names]
    if not isinstance(out_dir, str) or not out_dir.strip():
        raise InvalidParameterError(f"out_dir must be a directory path, got {out_dir!r}")
    if os.path.exists(out_dir) and not os.path.isdir(out_dir):
        raise InvalidParameterError(f"out_dir {out_dir!r} exists and is not a directory")
    plists = {s.name: grid_entries(s.name, params, grid) for s in specs}  # all checks first
    label = "custom" if params is not None else grid
    tasks = [(s.name, p) for s in specs for p in plists[s.name]]
    results = iter(_compute(tasks, backend, scheduler, progress))
    os.makedirs(out_dir, exist_ok=True)
    manifest: dict[str, Any] = {"dpverify_version": __version__, "grid": label, "tables": {}}
    for spec in specs:
        entries = [next(results) for _ in plists[spec.name]]
        table = {**_header(spec, label), "entries": entries}
        files = {f"{spec.name}.json": _dumps(table), f"{spec.name}.csv": _csv_bytes(table)}
        for fname, data in files.items():
            write_bytes(os.path.join(out_dir, fname), data, what="table")
        manifest["tables"][spec.name] = {
            "description": spec.description,
            "parameters": plists[spec.name],
            "files": {f: hashlib.sha256(d).hexdigest() for f, d in sorted(files.items())},
        }
    write_bytes(os.path.join(out_dir, "manifest.json"), _dumps(manifest), what="manifest")
    return manifest
