"""Reference coefficient tables: exact rationals plus bit-exact float64, JSON + CSV + manifest.

Each table is computed by the *exact* constructions (never by :mod:`dpverify.fast`): every
number is stored as the exact rational ``"p/q"`` and as the float64 nearest to it (correctly
rounded, ``int(p)/int(q)`` in Python), written both as ``float.hex`` (bit-exact) and as
``repr`` (shortest round-trip decimal).  Files are reproducible: sorted keys, fixed
formatting, ``\\n`` line ends, no timestamps -- the same command gives byte-identical files.

Tables (``TABLES``; parameters in :data:`GRIDS`):

* ``or-chebyshev`` -- OR polynomial ``g`` (thaler2012 Fact 4.2): monomial coefficients in the
  count ``x`` and the Chebyshev form on ``(1, k)`` (``c_0``, ``c_t``), degree ``t``, exact error.
* ``or-minimax`` -- least-degree OR polynomial with ``g(0) = 0`` (monomial in ``x``).
* ``rofk`` -- Sherstov r-of-k (thaler2012 Lemma 4.5, App. B, default reading): Chebyshev
  coefficients on ``(0, k)`` and the values at ``x = 0..k`` (the monomial coefficients are
  thousands of digits long and ill-conditioned; convert exactly if needed).
* ``dlist-h`` -- decision-list ``h_k(z) = 1 - g_k(k - z)`` (thaler2012 App. A), monomial in ``z``.
* ``jackson-kernel`` -- ``2 pi a_l`` of ``H_{t,r}`` (wang2013 Def. 4.1).
* ``jackson-multipliers`` -- ``w_0..w_t`` of ``I_{t,K}`` (wang2013 eq. (2)).
* ``bernstein-iterated`` -- iterated Bernstein basis ``basis[nu][mu]`` = coefficient of
  ``b^{(h)}_{nu,k}`` on ``b_{mu,k}`` (alda2017 Definition 8).

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
import json
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from flint import fmpq

from ._version import __version__
from .atomic import write_bytes
from .errors import InvalidParameterError
from .numbers import fmpq_str, to_fmpq

__all__ = [
    "TABLES",
    "GRIDS",
    "float64_of",
    "number_record",
    "build_table",
    "table_entry",
    "write_tables",
    "table_names",
]


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


@dataclass(frozen=True)
class TableSpec:
    name: str
    description: str
    convention: str
    build: Callable[[dict[str, Any]], dict[str, list[Any]]]  # quantity -> values (nested ok)
    full: tuple[dict[str, Any], ...]
    quick: tuple[dict[str, Any], ...]
    requires: str | None = None


# ----------------------------------------------------------------------------- builders


def _or_cheb(p: dict[str, Any]) -> dict[str, Any]:
    from .constructions.chebyshev import or_polynomial

    a = or_polynomial(p["k"], p["gamma"])
    ch = a.extra["chebyshev"]
    form = [to_fmpq(c, "c") for c in ch["form"]["coefficients"]]
    return {
        "monomial": list(a.poly.coeffs),
        "chebyshev": form,
        "degree": a.poly.degree,
        "error_exact": to_fmpq(ch["error_exact"], "e"),
    }


def _or_minimax(p: dict[str, Any]) -> dict[str, Any]:
    from .constructions.chebyshev import or_polynomial

    a = or_polynomial(p["k"], p["gamma"], method="minimax")
    return {"monomial": list(a.poly.coeffs), "degree": a.poly.degree}


def _rofk(p: dict[str, Any]) -> dict[str, Any]:
    from .constructions.sherstov import rofk_polynomial

    a = rofk_polynomial(p["r"], p["k"], p["gamma"], intermediates="summary")
    P = a.poly.as_fmpq_poly()
    return {
        "chebyshev_0_k": list(a.poly.to_chebyshev(domain=(0, p["k"])).coeffs),
        "values": [P(fmpq(x)) for x in range(p["k"] + 1)],
        "degree": a.poly.degree,
    }


def _dlist_h(p: dict[str, Any]) -> dict[str, Any]:
    from .constructions.decision_lists import h_polynomial

    a = h_polynomial(p["k"], p["gamma"])
    return {"monomial": list(a.poly.coeffs), "degree": a.poly.degree}


def _jackson_kernel(p: dict[str, Any]) -> dict[str, Any]:
    from .constructions.jackson import jackson_coefficients_2pi, jackson_kernel_degree

    return {
        "two_pi_a": list(jackson_coefficients_2pi(p["t"], p["r"])),
        "degree": jackson_kernel_degree(p["t"], p["r"]),
    }


def _jackson_mult(p: dict[str, Any]) -> dict[str, Any]:
    from .constructions.jackson import jackson_multipliers

    return {"w": list(jackson_multipliers(p["t"], p["K"]))}


def _bernstein(p: dict[str, Any]) -> dict[str, Any]:
    from .constructions.bernstein import iterated_bernstein_basis

    return {"basis": iterated_bernstein_basis(p["k"], p["h"]).basis}


def _kg(ks: Sequence[int], gs: Sequence[str]) -> tuple[dict[str, Any], ...]:
    return tuple({"k": k, "gamma": g} for k in ks for g in gs)


_SPECS: tuple[TableSpec, ...] = (
    TableSpec(
        "or-chebyshev", "Chebyshev OR polynomial g (thaler2012 Fact 4.2)",
        "monomial: coefficients of g in the count x, lowest degree first; chebyshev: "
        "g = sum c_n T_n(v), v = (2x-k-1)/(k-1) on (1, k) (k = 1: v = 2x-1 on (0, 1)); "
        "error_exact = max_{x in 0..k} |g(x) - OR(x)| = 1/T_t((k+1)/(k-1))",
        _or_cheb, _kg((1, 2, 3, 5, 10, 25, 50, 100), ("1e-1", "1e-2", "1e-3", "1e-6")),
        _kg((2, 5, 25), ("1e-1", "1e-3")),
    ),
    TableSpec(
        "or-minimax", "least-degree OR polynomial with g(0) = 0 on {0..k} (exact Remez)",
        "monomial: coefficients in the count x, lowest degree first",
        _or_minimax, _kg((2, 5, 10, 25, 50), ("1e-1", "1e-2", "1e-3")),
        _kg((5, 10), ("1e-1",)),
    ),
    TableSpec(
        "rofk", "Sherstov r-of-k polynomial (thaler2012 Lemma 4.5, App. B, default reading)",
        "chebyshev_0_k: p = sum c_n T_n(u), u = (2x - k)/k on (0, k); values: p(x), x = 0..k",
        _rofk, ({"r": 1, "k": 20, "gamma": "1e-2"}, {"r": 2, "k": 20, "gamma": "1e-2"}),
        ({"r": 1, "k": 20, "gamma": "1e-2"},),
        requires="dpverify.constructions.sherstov",
    ),
    TableSpec(
        "dlist-h", "decision-list h_k(z) = 1 - g_k(k - z), g_k built for gamma/k (thaler2012 "
        "App. A)", "monomial: coefficients in z, lowest degree first",
        _dlist_h, _kg((1, 2, 5, 10, 20), ("1e-1", "1e-3")), _kg((2, 5), ("1e-1",)),
        requires="dpverify.constructions.decision_lists",
    ),
    TableSpec(
        "jackson-kernel", "generalized Jackson kernel H_{t,r} = J_{t',r}, t' = floor(t/r)+1 "
        "(wang2013 Def. 4.1)", "two_pi_a[l] = 2*pi*a_l of H(s) = a_0 + sum_l a_l cos(l s)",
        _jackson_kernel,
        tuple({"t": t, "r": r} for t in (4, 8, 16, 32, 64) for r in (1, 2, 3, 4)),
        ({"t": 8, "r": 2}, {"t": 16, "r": 3}),
        requires="dpverify.constructions.jackson",
    ),
    TableSpec(
        "jackson-multipliers", "multipliers of I_{t,K}, r = ceil((K+3)/2) (wang2013 eq. (2))",
        "w[n]: I_{t,K} cos(n .) = w_n cos(n .), n = 0..t",
        _jackson_mult,
        tuple({"t": t, "K": K} for t in (8, 16, 32, 64) for K in (1, 2, 3, 4)),
        ({"t": 8, "K": 1}, {"t": 16, "K": 3}),
        requires="dpverify.constructions.jackson",
    ),
    TableSpec(
        "bernstein-iterated", "iterated Bernstein basis b^(h)_{nu,k} (alda2017 Def. 8)",
        "basis[nu][mu] = coefficient of b^(h)_{nu,k} on b_{mu,k} = C(k,mu) y^mu (1-y)^(k-mu)",
        _bernstein,
        tuple({"k": k, "h": h} for k in (1, 2, 5, 10, 20) for h in (1, 2, 3, 4, 6)),
        ({"k": 5, "h": 2}, {"k": 10, "h": 3}),
    ),
)

TABLES: dict[str, TableSpec] = {s.name: s for s in _SPECS}
GRIDS: dict[str, dict[str, tuple[dict[str, Any], ...]]] = {
    s.name: {"full": s.full, "quick": s.quick} for s in _SPECS
}


def table_names() -> list[str]:
    return [s.name for s in _SPECS]


def _spec(name: Any) -> TableSpec:
    if not isinstance(name, str) or name not in TABLES:
        raise InvalidParameterError(
            f"NAME must be one of {', '.join(table_names())} or 'all', got {name!r}"
        )
    spec = TABLES[name]
    if spec.requires:
        import importlib

        try:
            importlib.import_module(spec.requires)
        except ImportError as exc:
            raise InvalidParameterError(f"table {name!r} needs {spec.requires}: {exc}") from None
    return spec


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
    """
    spec = _spec(name)
    data = spec.build(dict(params))
    out: dict[str, Any] = {"params": dict(params)}
    for key, val in data.items():
        out[key] = _encode(val)
    return out


def build_table(name: str, grid: str = "full") -> dict[str, Any]:
    """The whole table ``name`` over its ``grid`` ("full" or "quick") as a JSON-able dict."""
    spec = _spec(name)
    if grid not in ("full", "quick"):
        raise InvalidParameterError(f"grid must be 'full' or 'quick', got {grid!r}")
    params = spec.full if grid == "full" else spec.quick
    return {
        "table": name,
        "description": spec.description,
        "convention": spec.convention,
        "number_format": "each number: exact 'p/q', float64_hex (float.hex of the correctly "
        "rounded float64), float64 (repr of the same float)",
        "grid": grid,
        "dpverify_version": __version__,
        "entries": [table_entry(name, p) for p in params],
    }


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


def write_tables(names: Sequence[str], out_dir: str, grid: str = "full") -> dict[str, Any]:
    """Write ``NAME.json`` and ``NAME.csv`` for each name and ``manifest.json`` into
    ``out_dir`` (created if needed).  Returns the manifest.

    The manifest lists, per table, its grid parameters and the sha256 of each file, plus the
    dpverify version; it has no timestamps, so repeated runs give identical bytes.
    """
    if "all" in names:
        names = [n for n in table_names() if _available(n)]
    specs = [_spec(n) for n in names]
    if not isinstance(out_dir, str) or not out_dir.strip():
        raise InvalidParameterError(f"out_dir must be a directory path, got {out_dir!r}")
    if os.path.exists(out_dir) and not os.path.isdir(out_dir):
        raise InvalidParameterError(f"out_dir {out_dir!r} exists and is not a directory")
    os.makedirs(out_dir, exist_ok=True)
    manifest: dict[str, Any] = {"dpverify_version": __version__, "grid": grid, "tables": {}}
    for spec in specs:
        table = build_table(spec.name, grid)
        files = {f"{spec.name}.json": _dumps(table), f"{spec.name}.csv": _csv_bytes(table)}
        for fname, data in files.items():
            write_bytes(os.path.join(out_dir, fname), data, what="table")
        manifest["tables"][spec.name] = {
            "description": spec.description,
            "parameters": [dict(p) for p in (spec.full if grid == "full" else spec.quick)],
            "files": {f: hashlib.sha256(d).hexdigest() for f, d in sorted(files.items())},
        }
    write_bytes(os.path.join(out_dir, "manifest.json"), _dumps(manifest), what="manifest")
    return manifest


def _available(name: str) -> bool:
    try:
        _spec(name)
    except InvalidParameterError:
        return False
    return True
