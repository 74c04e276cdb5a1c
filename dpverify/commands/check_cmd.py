"""``dpverify check --impl numpy:exp --f "exp(x)" ...``: check a float implementation
against a rigorous reference (:func:`dpverify.testing.check_implementation`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ._common import CommandResult, format_table, int_flag, make_progress, progress_flags

if TYPE_CHECKING:  # annotations only: the CLI start-up imports nothing it does not run
    import argparse

    _Subparsers = argparse._SubParsersAction[argparse.ArgumentParser]

__all__ = ["register"]


def register(sub: _Subparsers) -> None:
    p = sub.add_parser(
        "check",
        help="check a float implementation against a rigorous reference, in ulps "
        "(every binary32 input with --exhaustive)",
        description="Check a float implementation (libm:NAME for the C math library "
        "through ctypes, or MODULE:NAME such as numpy:exp) against the expression --f, "
        "evaluated rigorously in ball arithmetic: the error of every checked input in "
        "ulps of the correctly rounded value, the worst input, and the named properties "
        "(signed zeros, special values, symmetry, monotonicity, range). By default 10^6 "
        "inputs of the domain (every binade, uniform and log-uniform, adaptive); "
        "--exhaustive checks every binary32 input of the domain (the whole line by "
        "default) on all cores or --backend dask, resumable with --state FILE. "
        "Exit 0 when every checked input is within the limit and no property fails, "
        "1 otherwise. A pass is about the checked inputs: testing, not a proof.",
    )
    p.add_argument("--impl", required=True, metavar="SPEC",
                   help="the implementation: libm:NAME (the C function NAME, double or, "
                   "with --dtype float32, float) or MODULE:NAME (numpy:exp, math:erfc)")
    p.add_argument("--f", required=True, metavar="EXPR",
                   help='the reference, an expression of x, e.g. "exp(x)", "gamma(x)"')
    p.add_argument("--domain", nargs=2, metavar=("A", "B"), default=None,
                   help="the interval checked (exact numbers); default: the whole line "
                   "with --exhaustive")
    p.add_argument("--dtype", default="float64", choices=("float64", "float32"),
                   help="the format of the inputs and outputs (default float64)")
    p.add_argument("--ulps", default=None, help="limit in ulps (default 1; 1/2: correct "
                   "rounding)")
    p.add_argument("--atol", default=None, help="absolute limit (either limit suffices)")
    p.add_argument("--points", default=None,
                   help="inputs of the search (default 10^6), or 'all'")
    p.add_argument("--exhaustive", action="store_true",
                   help="every binary32 input of the domain (needs --dtype float32)")
    p.add_argument("--state", default=None, metavar="FILE",
                   help="--exhaustive: record progress in FILE and resume from it")
    p.add_argument("--workers", default=None,
                   help="local processes (default: every core with --exhaustive, else 1)")
    p.add_argument("--first-failures", default="10",
                   help="failing inputs named, first in bit-pattern order (default 10)")
    p.add_argument("--symmetry", default=None, choices=("odd", "even", "none"),
                   help="the parity to check (default: inferred from --f)")
    p.add_argument("--backend", default="local", choices=("local", "dask"),
                   help="local (default) or dask (an embedded LocalCluster, or "
                   "--scheduler)")
    p.add_argument("--scheduler", default=None, metavar="ADDRESS",
                   help="dask: address of a running scheduler (tcp://host:8786)")
    p.add_argument("--report", default=None, metavar="FILE",
                   help="also save the report for dpverify plot")
    progress_flags(p)
    p.add_argument("--json", action="store_true", help="print JSON on stdout")
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> CommandResult:
    # numpy, flint and the checker load only when the command runs
    import numpy as np

    # (the same reason: the CLI start-up imports nothing it does not run)
    from ..numbers import parse_exact
    from ..testing import check_implementation
    from ..testing.impls import load_implementation
    from ._common import flag_names

    dtype = np.float32 if args.dtype == "float32" else np.float64
    domain = None if args.domain is None else tuple(parse_exact(v, "--domain")
                                                    for v in args.domain)
    points = args.points
    if points is not None and points != "all":
        points = int_flag(points, "--points", minimum=1)
    workers = None if args.workers is None else int_flag(args.workers, "--workers", 1, 4096)
    first = int_flag(args.first_failures, "--first-failures", 0, 10_000)
    progress = make_progress(args, "check")
    with flag_names({"impl": "--impl", "domain": "--domain", "ulps": "--ulps",
                     "atol": "--atol", "points": "--points", "state": "--state",
                     "exhaustive": "--exhaustive", "reference": "--f",
                     "workers": "--workers", "scheduler": "--scheduler"}):
        impl = load_implementation(args.impl, dtype)
        try:
            rep = check_implementation(
                impl, args.f, points, args.ulps, args.atol, domain=domain, dtype=dtype,
                exhaustive=args.exhaustive, state=args.state, workers=workers,
                first_failures=first, symmetry=args.symmetry, backend=args.backend,
                scheduler=args.scheduler, progress=progress, raise_on_failure=False)
        finally:
            progress.close()
    if args.report:
        rep.save(args.report)
    rows = [_row(i, line) for i, line in enumerate(rep.summary().splitlines())]
    rows.append(("result", "passed" if rep.passed else "FAILED"))
    return CommandResult(rep.to_json(), format_table(rows), 0 if rep.passed else 1)


#: summary lines by their opening words, and the label each gets in the table
_LABELS = (("worst: ", "worst"), ("every checked error", "bound"),
           ("errors in ulps: ", "histogram"), ("every input of the domain", "rounding"),
           ("checked inputs: ", "rounding"), ("first failing inputs: ", "first failures"),
           ("reference singular", "singular"), ("coverage: ", "coverage"),
           ("resumed: ", "resumed"))


def _row(i: int, line: str) -> tuple[str, str]:
    if i == 0:
        return "check", line
    for start, label in _LABELS:
        if line.startswith(start):
            return label, line[len(start):] if start.endswith(": ") else line
    name, _, rest = line.partition(": ")
    return name, rest
