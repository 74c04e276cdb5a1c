"""``dpverify fpminimax``: machine-number coefficients, the certified error of that very
polynomial, and the bracket of the best real error of the same family."""

from __future__ import annotations

import json
from typing import Any

from ..atomic import write_text
from ..machine import fpminimax
from ..numbers import fmpq_to_decimal
from ._cert import check_with, read_timeout, timeout_flag
from ._common import (
    CommandResult,
    add_json_flag,
    exact,
    format_table,
    make_progress,
    progress_flags,
)
from .minimax_cmd import family_flags, note_interval, read_family_flags, read_problem

__all__ = ["register", "PRELOAD"]

#: What issuing the certificate imports (the checker's schema): the isolating parent
#: imports it before it forks the computing child (dpverify.cli).
PRELOAD = ("dpverify.verify.load", "jsonschema")


def register(sub: Any) -> None:
    p = sub.add_parser(
        "fpminimax",
        help="machine-number coefficients (lattice reduction) with the certified error of "
        "that polynomial",
        description="Coefficients that are binary64 or binary32 numbers, found by lattice "
        "reduction from the best real approximation (Brisebarre-Chevillard, as Sollya's "
        "fpminimax; a search), then a certificate of the error of that very polynomial "
        "(kind supnorm-box; weighted for --relative or --weight) and the certified bracket "
        "of the best error with real coefficients (kind minimax, --minimax-out): what the "
        "format costs. Check both with dpverify verify.",
    )
    p.add_argument("--f", required=True, help='function of x, e.g. "exp(x)"')
    p.add_argument("--degree", required=True, help="N, the largest power")
    p.add_argument("--interval", nargs=2, required=True, metavar=("A", "B"),
                   help="the interval [A, B] (exact numbers, A < B)")
    p.add_argument("--format", default="binary64", choices=("binary64", "binary32"),
                   help="format of the coefficients (default binary64)")
    p.add_argument("--formats", metavar="D,S,...",
                   help="one format per free coefficient, lowest power first (D = binary64, "
                   "S = binary32; a trailing ... repeats the last), as Sollya's [|D,D,SG|]")
    family_flags(p, lists=True)
    p.add_argument("--rtol", default="1e-6",
                   help="goal of both brackets: upper <= lower (1 + rtol) (default 1e-6)")
    p.add_argument("--minimax-out", metavar="FILE",
                   help="also write the certificate of the real bracket (kind minimax)")
    timeout_flag(p)
    progress_flags(p)
    add_json_flag(p)
    p.set_defaults(handler=run)


def run(args: Any) -> CommandResult:
    f, n, a, b, rtol = read_problem(args)
    kw = read_family_flags(args)
    with make_progress(args, "dpverify fpminimax") as bar:
        res = fpminimax(f, n, (a, b), format=args.format, formats=args.formats, rtol=rtol,
                        timeout=0.9 * read_timeout(args.timeout), progress=bar, **kw)
    if args.minimax_out:
        write_text(args.minimax_out, json.dumps(res.minimax.data, indent=1) + "\n",
                   what="--minimax-out")
    err = res.certificate.statement["error"]
    real = res.minimax.statement["error"]
    what = "(f - p)/f" if res.relative else "w (f - p)" if res.weight else "f - p"
    note_interval(res.certificate, args)
    rows = [("f", f.canonical), ("interval", args.rounded_interval.describe()),
            ("degree N", str(n)), ("family", res.family.describe())]
    if res.relative or res.weight:
        rows.append(("error", f"{what}" + (f", w = {res.weight}" if res.weight else "")))
    for k, (c, h, fm) in enumerate(zip(res.coefficients, res.hex, res.formats)):
        if fm is None:
            continue
        rows.append((f"c{k} ({fm})", f"{h}  = {fmpq_to_decimal(c, 17)}"))
    rows += [
        (f"sup |{what}| <=", fmpq_to_decimal(exact(err["upper"], "upper"), 12, "up")
         + "  (proven for these coefficients: kind supnorm-box)"),
        (f"sup |{what}| >=", fmpq_to_decimal(exact(err["lower"], "lower"), 12, "down")
         + "  (proven at a point)"),
        ("best real error in", f"[{fmpq_to_decimal(exact(real['lower'], 'lower'), 12, 'down')}, "
         f"{fmpq_to_decimal(exact(real['upper'], 'upper'), 12, 'up')}]  (proven: kind "
         "minimax)"),
        ("format costs", f"error / best real error <= {fmpq_to_decimal(res.cost, 6, 'up')}"
         " (upper of these coefficients / lower of any real ones)"),
        ("search (not checked)", f"{res.stats.get('candidates')} candidates, "
         f"{res.stats['seconds']['total']} s"),
        ("result", f"certified ({check_with(args)}"
         + (f"; the real bracket: dpverify verify {args.minimax_out}" if args.minimax_out
            else "") + ")"),
    ]
    data = dict(res.certificate.data)
    return CommandResult(data=data, text=format_table(rows))
