"""``dpverify table NAME... --out DIR [--k K,... --gamma G,... ...] [--backend dask]
[--progress]`` and
``dpverify table --list`` (reference tables).

Tables are named like the commands (``or``, ``and``, ``rofk``, ``dlist``, ``jackson``,
``bernstein``) and take the commands' parameters; a comma-separated list gives a grid (the
Cartesian product).  Without parameters a table uses its built-in grid (``--quick``: a small
one).  The names of earlier versions (``or-chebyshev``, ``or-minimax``, ``dlist-h``,
``jackson-kernel``, ``jackson-multipliers``, ``bernstein-iterated``) remain as aliases.

Writes ``NAME.json``, ``NAME.csv`` and ``manifest.json`` (parameters, dpverify version,
sha256 per file) into ``DIR``; byte-identical across runs and backends
(:mod:`dpverify.tables`).
"""

from __future__ import annotations

from ..errors import InvalidParameterError
from ..tables import CONSTRUCTIONS, TABLES, table_names, write_tables
from ._common import (
    CommandResult,
    add_json_flag,
    backend_params,
    flag_names,
    format_table,
    make_progress,
    progress_flags,
)

# every parameter of every construction: (flag, help)
__all__ = ["register"]

_PARAM_FLAGS = {
    "k": "or/and/dlist: number of bits; rofk: k; bernstein: order k",
    "gamma": "or/and/rofk/dlist: error bound in (0, 1), exact (1e-6 is 1/10^6)",
    "r": "rofk: threshold r; jackson: kernel power r",
    "t": "jackson: degree parameter t",
    "K": "jackson: smoothness order K (the multipliers of I_{t,K})",
    "h": "bernstein: iteration order h",
    "method": "or/and/dlist: chebyshev|minimax; rofk: sherstov|minimax",
}


def register(sub) -> None:
    p = sub.add_parser(
        "table",
        help="write reference coefficient tables (exact + float64), or --list them",
        description="Reference tables from the exact constructions: every number as the exact "
        "rational 'p/q', float.hex and repr of its correctly rounded float64. Writes "
        "NAME.json, NAME.csv and manifest.json (sha256 per file) into --out. Tables, named "
        "like the commands: " + ", ".join(table_names(aliases=False)) + " (or 'all'); "
        "aliases: " + ", ".join(n for n in table_names() if n not in CONSTRUCTIONS) + ". "
        "Parameter flags (comma-separated lists give a grid) replace the built-in grid, "
        "e.g. 'dpverify table or --k 100 --gamma 1e-3,1e-6 --out DIR'.",
    )
    p.add_argument("names", nargs="*", metavar="NAME", help="table name(s) or 'all'")
    add_json_flag(p)  # first: our --out (a directory) below replaces its --out FILE
    p.add_argument("--out", dest="out", default=None, help="output directory (created if needed)")
    p.add_argument("--list", action="store_true", help="list the tables and their grids")
    p.add_argument("--quick", action="store_true", help="small built-in parameter grid")
    for name, text in _PARAM_FLAGS.items():
        p.add_argument(f"--{name}", dest=f"param_{name}", default=None, metavar="V[,V...]",
                       help=text)
    p.add_argument("--backend", default="local", type=str,
                   help="local (default) or dask: compute the entries of the grid in "
                   'parallel on a Dask cluster (pip install "dpverify[dask]"); the files '
                   "are byte-identical to the local run")
    p.add_argument("--scheduler", default=None, type=str, metavar="ADDRESS",
                   help="dask: address of an existing scheduler (tcp://host:8786); default "
                   "an embedded LocalCluster sized to this machine")
    progress_flags(p)
    p.set_defaults(handler=_run)


def _params(args) -> dict[str, list[str]] | None:
    out: dict[str, list[str]] = {}
    for name in _PARAM_FLAGS:
        raw = getattr(args, f"param_{name}", None)
        if raw is None:
            continue
        vals = [v.strip() for v in raw.split(",")]
        if any(not v for v in vals):
            raise InvalidParameterError(f"--{name} must be a comma-separated list of values, "
                                        f"got {raw!r}")
        out[name] = vals
    return out or None


def _run(args) -> CommandResult:
    grid = "quick" if args.quick else "full"
    if args.list:
        data = {
            "tables": {
                n: {
                    "construction": s.construction,
                    "description": s.description,
                    "convention": s.convention,
                    "parameters": [dict(q) for q in (s.quick if args.quick else s.full)],
                }
                for n, s in TABLES.items()
            }
        }
        rows = [(n, f"{s.description} [{len(s.quick if args.quick else s.full)} entries]"
                 + ("" if n == s.construction else f" (alias of {s.construction})"))
                for n, s in TABLES.items()]
        return CommandResult(data=data, text=format_table(rows))
    params = _params(args)
    if not args.names:
        raise InvalidParameterError("NAME is required (or use --list); known: "
                                    + ", ".join(table_names()) + ", all")
    if not args.out:
        raise InvalidParameterError("--out DIR is required to write tables")
    if params is not None and args.quick:
        raise InvalidParameterError("--quick selects the built-in grid; it cannot be combined "
                                    "with parameter flags")
    backend, scheduler = backend_params(args)
    flags = {name: f"--{name}" for name in _PARAM_FLAGS}
    flags.update({"name": "NAME", "names": "NAME", "params": "the parameter flags",
                  "scheduler": "--scheduler", "backend": "--backend"})
    with flag_names(flags), make_progress(args, "dpverify table") as bar:
        manifest = write_tables(args.names, args.out, grid, params=params, backend=backend,
                                scheduler=scheduler, progress=bar)
    rows = []
    for info in manifest["tables"].values():
        for f, h in info["files"].items():
            rows.append((f, h))
    rows.append(("manifest.json", f"in {args.out}"))
    return CommandResult(data=manifest, text=format_table(rows))
