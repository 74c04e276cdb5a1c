"""``dpverify crosscheck [--quick|--full] [--only NAME ...] [--json] [--progress]``.

Runs :func:`dpverify.crosscheck.crosscheck`: the fast float64 path against the exact
reference, deviations measured exactly; exit 1 when a declared tolerance is exceeded.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..crosscheck import CHECKS, crosscheck
from ._common import CommandResult, add_json_flag, make_progress, progress_flags

if TYPE_CHECKING:  # annotations only: the CLI start-up imports nothing it does not run
    import argparse

    _Subparsers = argparse._SubParsersAction[argparse.ArgumentParser]

__all__ = ["register"]


def register(sub: _Subparsers) -> None:
    p = sub.add_parser(
        "crosscheck",
        help="compare the fast float64 path with the exact reference",
        description="For a grid of parameters per construction, compare dpverify.fast "
        "(float64) with the exact reference; deviations are measured exactly (each float "
        "converted to a rational) and rounded up. Exit 1 if any declared tolerance is "
        "exceeded. Checks: " + ", ".join(c.name for c in CHECKS) + ".",
    )
    g = p.add_mutually_exclusive_group()
    g.add_argument("--quick", dest="grid", action="store_const", const="quick",
                   help="small grid (default, a few seconds)")
    g.add_argument("--full", dest="grid", action="store_const", const="full",
                   help="full grid (minutes)")
    p.add_argument("--only", nargs="+", metavar="NAME", help="run only these checks")
    progress_flags(p)
    add_json_flag(p)
    p.set_defaults(handler=_run, grid="quick")


def _run(args: argparse.Namespace) -> CommandResult:
    with make_progress(args, "dpverify crosscheck") as bar:
        report = crosscheck(args.grid, only=args.only, progress=bar)
    w = max(len(c["name"]) for c in report["checks"])
    lines = [f"crosscheck ({report['grid']} grid): "
             + ("PASSED" if report["passed"] else "FAILED")]
    lines.append(f"{'check'.ljust(w)}  status   max_abs      max_rel      tolerance")
    for c in report["checks"]:
        tol = c["tolerance"]
        if c["status"] == "skipped":
            lines.append(f"{c['name'].ljust(w)}  skipped  ({c['reason']})")
            continue
        lines.append(
            f"{c['name'].ljust(w)}  {c['status'].ljust(7)}  {c['max_abs']:<11}  "
            f"{c['max_rel']:<11}  {tol['kind']} <= {tol['value']} (scale {tol['scale']})"
        )
        for case in c["cases"]:
            if not case["passed"]:
                lines.append(f"    FAILED at {case['params']}: max_abs {case['max_abs']}, "
                             f"max_rel {case['max_rel']} {case.get('structural', '')}")
    return CommandResult(data=report, text="\n".join(lines),
                         exit_code=0 if report["passed"] else 1)
