"""``dpverify minimax``: Remez search + certified bracket ``lower <= E_N(f) <= upper``."""

from __future__ import annotations

from typing import Any

from ..certify.alternation import minimax
from ..constructions.remez import DEGREE_LIMIT_REASON, MAX_REMEZ_DEGREE, remez
from ..errors import InvalidParameterError
from ..expr import parse
from ..numbers import fmpq_to_decimal, parse_exact
from ._cert import check_with, read_timeout, timeout_flag
from ._common import (
    CommandResult,
    add_json_flag,
    exact,
    format_table,
    int_flag,
    interval_flag,
    make_progress,
    progress_flags,
)

__all__ = ["register", "PRELOAD", "bracket_rows", "read_degree", "bracket_outcome", "read_interval",
           "note_interval"]

#: What the search imports on first call: the isolating parent imports it before it forks
#: the computing child (dpverify.cli).
PRELOAD = ("dpverify.expr.float_eval",)


def register(sub: Any) -> None:
    p = sub.add_parser(
        "minimax",
        help="best uniform approximation of degree N with a certified bracket of E_N(f)",
        description="Remez exchange (a search, in float64 or binary floating point at the "
        "precision the answer needs) for the best approximation of degree <= N on [A, B], "
        "then a certificate (kind minimax) of lower <= E_N(f) <= sup |f - p| <= upper: lower "
        "by de la Vallee Poussin at alternation points (exact/ball arithmetic), upper on a "
        "partition cut at the kinks of f and graded towards the extrema of f - p. "
        "'certified' (exit 0) when upper/lower <= 1 + rtol; a wider bracket is still "
        "written and proven, with 'not certified' and exit 1. Check it with dpverify verify.",
    )
    p.add_argument("--f", required=True, help='function of x, e.g. "exp(x)"')
    p.add_argument("--degree", required=True, help=f"N, 0..{MAX_REMEZ_DEGREE} (time: the "
                   "search costs O(N^2) per exchange step)")
    p.add_argument("--interval", nargs=2, required=True, metavar=("A", "B"),
                   help="the interval [A, B] of the uniform error (exact numbers, A < B, "
                   "e.g. -1 1; or constant expressions such as 0 pi/2, rounded outward: "
                   "the certificate is about the rounded interval and says so in info)")
    p.add_argument("--rtol", default="1e-6",
                   help="goal for the bracket: upper <= lower (1 + rtol) (default 1e-6)")
    timeout_flag(p)
    progress_flags(p)
    add_json_flag(p)
    p.set_defaults(handler=run)


def read_interval(args: Any, f: Any = None) -> tuple[Any, Any]:
    """``--interval A B`` as exact rationals: constant expressions (``0 pi/2``) rounded
    outward (``args.rounded_interval`` keeps what was asked, for :func:`note_interval`);
    ``f`` undefined at a rounded end is refused."""
    box = interval_flag(args.interval)
    if f is not None:
        box.check_defined(f, "--f")
    args.rounded_interval = box
    (a, b), = box.stated
    return a, b


def note_interval(cert: Any, args: Any) -> None:
    """Record in ``info`` the interval as asked when its ends were rounded outward."""
    box = getattr(args, "rounded_interval", None)
    note = None if box is None else box.info()
    if note is not None:
        cert.data.setdefault("info", {})["requested_interval"] = note


def read_degree(text: str, flag: str = "--degree") -> int:
    """A degree flag: an integer in ``0..MAX_REMEZ_DEGREE`` (the message gives the reason
    of the limit)."""
    n = int_flag(text, flag, 0)
    if n > MAX_REMEZ_DEGREE:
        raise InvalidParameterError(
            f"{flag} must be <= {MAX_REMEZ_DEGREE} ({DEGREE_LIMIT_REASON}), got {n}")
    return n


def bracket_outcome(cert: Any, args: Any = None) -> tuple[str, int]:
    """The result line and exit code: certified only when the bracket met rtol (the line
    names the ``--out`` file of ``args`` to check, or says how to keep one)."""
    info = cert.info
    if info.get("bracket_met", True):
        return f"certified ({check_with(args)})", 0
    rtol = info.get("rtol", "?")
    try:  # the exact rtol of info, shown as a short decimal (1/10^40 as 1e-40)
        rtol = fmpq_to_decimal(parse_exact(str(rtol)), 6)
    except ValueError:
        pass
    why = info.get("why_not_met", "")
    return (f"not certified: bracket upper/lower = {info.get('ratio_upper_lower')} exceeds "
            f"1 + rtol = 1 + {rtol} ({why}); the bracket written is proven, only wider"), 1


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
        (f"E_{n}(f) <= sup |f - p| <=", fmpq_to_decimal(up, 12, "up") + "  (proven: Taylor "
         "forms and monotonicity, piece by piece)"),
        ("upper / lower", cert.info.get("ratio_upper_lower") or "-"),
    ]
    search = cert.info.get("search", {})
    if search.get("stop") is not None:
        rows.append(("search (not checked)", f"{search.get('stop')} after "
                     f"{search.get('iterations')} exchange steps, {search.get('precision')}"))
    return rows


def run(args: Any) -> CommandResult:
    f = parse(args.f, variables=("x",), name="--f")
    n = read_degree(args.degree)
    a, b = read_interval(args, f)
    rtol = exact(args.rtol, "--rtol")
    if rtol <= 0:
        raise InvalidParameterError(f"--rtol must be > 0, got {args.rtol}")
    with make_progress(args, "dpverify minimax") as bar:
        cert = minimax(f, n, (a, b), search=remez, rtol=rtol,
                       timeout=0.9 * read_timeout(args.timeout), progress=bar)
    note_interval(cert, args)
    rows = [("f", f.canonical), ("interval", args.rounded_interval.describe()),
            ("degree N", str(n))] + bracket_rows(cert)
    line, code = bracket_outcome(cert, args)
    rows.append(("result", line))
    return CommandResult(data=cert.data, text=format_table(rows), exit_code=code)
