"""``dpverify minimax``: Remez search + certified bracket ``lower <= E_N(f) <= upper``."""

from __future__ import annotations

from functools import partial
from typing import Any

from ..certify.alternation import minimax
from ..constructions.remez import MAX_REMEZ_DEGREE, remez
from ..errors import InvalidParameterError
from ..expr import parse
from ..numbers import fmpq_str, fmpq_to_decimal, parse_exact
from ._cert import read_timeout, timeout_flag
from ._common import (
    CommandResult,
    add_json_flag,
    exact,
    format_table,
    int_flag,
    make_progress,
    progress_flags,
)

__all__ = ["register", "bracket_rows"]


def register(sub: Any) -> None:
    p = sub.add_parser(
        "minimax",
        help="best uniform approximation of degree N with a certified bracket of E_N(f)",
        description="Remez exchange (mpmath, a search) for the best approximation of degree "
        "<= N on [A, B], then a certificate (kind minimax) of lower <= E_N(f) <= sup |f - p| "
        "<= upper: lower by de la Vallee Poussin at alternation points (exact/ball "
        "arithmetic), upper by the interval certifier. Check it with dpverify verify.",
    )
    p.add_argument("--f", required=True, help='function of x, e.g. "exp(x)"')
    p.add_argument("--degree", required=True, help=f"N, 0..{MAX_REMEZ_DEGREE}")
    p.add_argument("--interval", nargs=2, required=True, metavar=("A", "B"))
    p.add_argument("--rtol", default="1e-6",
                   help="relative width of the upper bound's enclosure (default 1e-6)")
    timeout_flag(p)
    progress_flags(p)
    add_json_flag(p)
    p.set_defaults(handler=run)


def read_interval(args: Any) -> tuple[Any, Any]:
    a, b = exact(args.interval[0], "--interval A"), exact(args.interval[1], "--interval B")
    if not a < b:
        raise InvalidParameterError(
            f"--interval needs A < B, got {args.interval[0]} {args.interval[1]}")
    return a, b


def bracket_rows(cert: Any) -> list[tuple[str, str]]:
    """The proven facts of a ``minimax`` certificate, one row each."""
    st = cert.statement
    n = st["degree"]
    lo, up = parse_exact(st["error"]["lower"]), parse_exact(st["error"]["upper"])
    poly = st["polynomial"]
    rows = [
        ("polynomial", f"{poly['basis']} basis on [{', '.join(poly['domain'] or [])}], "
                       f"degree {poly['degree']}"),
        (f"E_{n}(f) >=", fmpq_to_decimal(lo, 12, "down") + "  (proven: de la Vallee Poussin, "
         f"{n + 2} alternation points)"),
        (f"E_{n}(f) <= sup |f - p| <=", fmpq_to_decimal(up, 12, "up") + "  (proven: interval "
         "certifier)"),
        ("upper / lower", cert.info.get("ratio_upper_lower") or "-"),
    ]
    return rows


def run(args: Any) -> CommandResult:
    f = parse(args.f, variables=("x",), name="--f")
    n = int_flag(args.degree, "--degree", 0, MAX_REMEZ_DEGREE)
    a, b = read_interval(args)
    rtol = exact(args.rtol, "--rtol")
    if rtol <= 0:
        raise InvalidParameterError(f"--rtol must be > 0, got {args.rtol}")
    with make_progress(args, "dpverify minimax") as bar:
        cert = minimax(f, n, (a, b), search=partial(remez, progress=bar), rtol=rtol,
                       timeout=0.9 * read_timeout(args.timeout), progress=bar)
    rows = [("f", f.canonical), ("interval", f"[{fmpq_str(a)}, {fmpq_str(b)}]"),
            ("degree N", str(n))] + bracket_rows(cert)
    rows.append(("result", "certified (check with: dpverify verify CERT.json)"))
    return CommandResult(data=cert.data, text=format_table(rows))
