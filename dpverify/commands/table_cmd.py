"""``dpverify table NAME... --out DIR`` and ``dpverify table --list`` (reference tables).

Writes ``NAME.json``, ``NAME.csv`` and ``manifest.json`` (parameters, dpverify version,
sha256 per file) into ``DIR``; byte-identical across runs (:mod:`dpverify.tables`).
"""

from __future__ import annotations

from ..errors import InvalidParameterError
from ..tables import TABLES, table_names, write_tables
from ._common import CommandResult, add_json_flag, format_table


def register(sub) -> None:
    p = sub.add_parser(
        "table",
        help="write reference coefficient tables (exact + float64), or --list them",
        description="Reference tables from the exact constructions: every number as the exact "
        "rational 'p/q', float.hex and repr of its correctly rounded float64. Writes "
        "NAME.json, NAME.csv and manifest.json (sha256 per file) into --out. Tables: "
        + ", ".join(table_names()) + " (or 'all').",
    )
    p.add_argument("names", nargs="*", metavar="NAME", help="table name(s) or 'all'")
    add_json_flag(p)  # first: our --out (a directory) below replaces its --out FILE
    p.add_argument("--out", dest="out", default=None, help="output directory (created if needed)")
    p.add_argument("--list", action="store_true", help="list the tables and their grids")
    p.add_argument("--quick", action="store_true", help="small parameter grid")
    p.set_defaults(handler=_run)


def _run(args) -> CommandResult:
    grid = "quick" if args.quick else "full"
    if args.list:
        data = {
            "tables": {
                n: {
                    "description": s.description,
                    "convention": s.convention,
                    "parameters": [dict(q) for q in (s.quick if args.quick else s.full)],
                }
                for n, s in TABLES.items()
            }
        }
        rows = [(n, f"{s.description} [{len(s.quick if args.quick else s.full)} entries]")
                for n, s in TABLES.items()]
        return CommandResult(data=data, text=format_table(rows))
    if not args.names:
        raise InvalidParameterError("NAME is required (or use --list); known: "
                                    + ", ".join(table_names()) + ", all")
    if not args.out:
        raise InvalidParameterError("--out DIR is required to write tables")
    manifest = write_tables(args.names, args.out, grid)
    rows = []
    for info in manifest["tables"].values():
        for f, h in info["files"].items():
            rows.append((f, h))
    rows.append(("manifest.json", f"in {args.out}"))
    return CommandResult(data=manifest, text=format_table(rows))
