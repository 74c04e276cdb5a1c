"""``python -m proofs_checks [--quick] [--json] [--only ID ...] [--write-docs | --output PATH]``.

Checking writes nothing: the ledger page docs/claims.md (tracked in git) is rewritten only
with ``--write-docs`` (or written to another path with ``--output PATH``), so running the
checks for their output (``--json`` to pipe them, a plain run to read them) never changes
the working tree."""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from . import run_all
from .report import render_markdown

DEFAULT_OUTPUT = Path(__file__).resolve().parent.parent / "docs" / "claims.md"


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m proofs_checks",
                                description="Check the papers' checkable claims.")
    p.add_argument("--quick", action="store_true", help="small ranges (CI, < 2 min)")
    p.add_argument("--json", action="store_true", help="print the records as JSON")
    p.add_argument("--only", action="append", metavar="ID",
                   help="claim id or paper key (repeatable); docs are not written")
    w = p.add_mutually_exclusive_group()
    w.add_argument("--write-docs", action="store_true",
                   help="rewrite the ledger page docs/claims.md (tracked: the page the "
                        "documentation shows)")
    w.add_argument("--output", type=Path, default=None, metavar="PATH",
                   help="write the ledger markdown to PATH instead")
    p.add_argument("--no-write", action="store_true",
                   help="accepted for old scripts: writing is off unless asked")
    g = p.add_mutually_exclusive_group()
    g.add_argument("--progress", dest="progress", action="store_true", default=None,
                   help="always show a progress line on stderr")
    g.add_argument("--no-progress", dest="progress", action="store_false",
                   help="never show progress (default: only when stderr is a terminal)")
    args = p.parse_args(argv)
    from dpverify.progress import Progress

    t0 = time.perf_counter()
    with Progress("proofs_checks", enabled=args.progress) as bar:
        records = run_all(quick=args.quick, only=args.only, progress=bar)
    total = time.perf_counter() - t0
    if not records:
        print(f"no claim matches {args.only}", file=sys.stderr)
        return 2
    target = DEFAULT_OUTPUT if args.write_docs else args.output
    if target is not None and not args.no_write:
        if args.only:
            print("--only checks a subset: the ledger page is not written", file=sys.stderr)
        else:
            target.write_text(render_markdown(records, quick=args.quick, seconds=total))
    if args.json:
        print(json.dumps({"mode": "quick" if args.quick else "full",
                          "seconds": round(total, 1), "claims": records}, indent=1))
    else:
        for r in records:
            print(f"{r['status']:<12} {r['id']}  ({r['seconds']:.2f} s)")
        counts = {s: sum(r["status"] == s for r in records) for s in ("PASS", "DISCREPANCY",
                                                                     "OPEN")}
        print(f"{len(records)} claims: {counts}; {total:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
