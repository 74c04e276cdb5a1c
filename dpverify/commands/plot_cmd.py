"""``dpverify plot FILE... --out FIGURE.png|svg|pdf``: draw what a certificate says."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ._common import CommandResult, format_table, int_flag

if TYPE_CHECKING:  # annotations only: the CLI start-up imports nothing it does not run
    import argparse

    _Subparsers = argparse._SubParsersAction[argparse.ArgumentParser]

__all__ = ["register"]


def register(sub: _Subparsers) -> None:
    p = sub.add_parser(
        "plot",
        help="draw a certificate (error curve, bound, extremal points) or releases "
        "(alpha against epsilon)",
        description="Draw what a certificate says: for sup-norm and minimax certificates "
        "the error curve f - p with the certified bound, the witness and the alternation "
        "(or optimality) points; the kernel and multipliers of a Jackson certificate; the "
        "iterated Bernstein basis and Lebesgue function of a lebesgue-constant "
        "certificate; for evalbound and float-error certificates the rounding error at "
        "sampled binary64 inputs with the bound of each piece and the certified bound (and "
        "f - fl(p) with the certified sup |f - p|). "
        "Several release data files draw the certified alpha against epsilon; "
        "a check_implementation report (report.save) its error in ulps against x. "
        "Error curves switch to a log scale of |f - p| when they span more than 3 decades "
        "(--log forces it, --linear keeps the signed curve). "
        "A figure is an illustration (sampled curves); the certificate is what is checked. "
        'Needs matplotlib: pip install "dpverify[plot]".',
    )
    p.add_argument("files", nargs="+", metavar="FILE",
                   help="one certificate, or one or more release/privacy data files")
    p.add_argument("--out", dest="out", required=True, metavar="FIGURE",
                   help="output file: .png, .svg or .pdf")
    p.add_argument("--points", default="600",
                   help="samples per curve (default 600; each is an exact evaluation)")
    scale = p.add_mutually_exclusive_group()
    scale.add_argument("--log", dest="log", action="store_const", const=True, default=None,
                       help="log scale for errors (|f - p|, ulps); default: automatic when "
                       "the values span more than 3 decades")
    scale.add_argument("--linear", dest="log", action="store_const", const=False,
                       help="linear scale (the signed error curve) even across decades")
    p.add_argument("--json", action="store_true", help="print JSON on stdout")
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> CommandResult:
    # the plotting module imports numpy, flint and (lazily) matplotlib: only when run
    from ..plot import plot_files
    from ._common import flag_names

    points = int_flag(args.points, "--points")
    with flag_names({"out": "--out", "points": "--points", "paths": "FILE"}):
        res = plot_files(args.files, args.out, points=points, log=args.log)
    rows = [("figure", res["out"]), ("drawn", res["drawn"]),
            ("from", ", ".join(res["files"])),
            ("note", "an illustration (sampled); check the certificate with dpverify verify")]
    return CommandResult(res, format_table(rows))
