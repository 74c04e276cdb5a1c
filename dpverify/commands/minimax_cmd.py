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

__all__ = ["register", "PRELOAD", "bracket_rows", "read_degree", "bracket_outcome",
           "family_flags", "read_family_flags", "family_rows", "error_words", "read_problem",
           "read_interval", "note_interval"]

#: What the search imports on first call: the isolating parent imports it before it forks
#: the computing child (dpverify.cli).
PRELOAD = ("dpverify.expr.float_eval", "dpverify.verify.load", "jsonschema")


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
    family_flags(p, lists=True)
    timeout_flag(p)
    progress_flags(p)
    add_json_flag(p)
    p.set_defaults(handler=run)


def family_flags(p: Any, lists: bool) -> None:
    """--relative, --weight, --monomials, --fix (``lists``: --monomials takes a list of
    powers too, not only odd/even)."""
    p.add_argument("--relative", action="store_true",
                   help="relative error (f - p)/f (refused where f vanishes on the interval)")
    p.add_argument("--weight", metavar="EXPR",
                   help="weighted error w(x) (f(x) - p(x)) with w > 0 on the interval "
                   "(proven), e.g. \"1/(1 + x^2)\"")
    p.add_argument("--monomials", metavar="POWERS",
                   help=("the free powers: comma-separated (1,3,5,7), or odd / even" if lists
                         else "odd or even: the powers of one parity"))
    p.add_argument("--fix", metavar="K=V,...",
                   help="fixed coefficients, e.g. 0=1 for p(0) = 1 (exact values)")


def read_family_flags(args: Any) -> dict[str, Any]:
    """The keywords of the family flags (only those given)."""
    if args.relative and args.weight is not None:
        raise InvalidParameterError("--relative and --weight exclude each other (relative is "
                                    "the weight 1/f)")
    kw: dict[str, Any] = {}
    if args.relative:
        kw["relative"] = True
    if args.weight is not None:
        kw["weight"] = parse(args.weight, variables=("x",), name="--weight")
    if args.monomials is not None:
        kw["monomials"] = args.monomials
    if args.fix is not None:
        kw["fix"] = args.fix
    return kw


def family_rows(cert: Any) -> list[tuple[str, str]]:
    """The error and the family of a certificate, when not the plain ones."""
    st = cert.statement
    rows = []
    w = st.get("weight")
    if w is not None:
        rows.append(("error", "relative: (f - p)/f" if w["kind"] == "relative"
                     else f"weighted: w (f - p), w = {w['expr']} (proven > 0)"))
    if st.get("monomials") is not None:
        fixed = ", ".join(f"x^{d['power']}: {d['value']}" for d in st.get("fixed") or [])
        rows.append(("family", "powers " + ", ".join(map(str, st["monomials"]))
                     + (f"; fixed {fixed}" if fixed else "")))
    return rows


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


def error_words(st: dict[str, Any], name: str = "p") -> str:
    """``f - p``, ``(f - p)/f`` or ``w (f - p)``: the error a minimax statement bounds."""
    w = st.get("weight")
    if w is None:
        return f"f - {name}"
    return f"(f - {name})/f" if w["kind"] == "relative" else f"w (f - {name})"


def bracket_rows(cert: Any) -> list[tuple[str, str]]:
    """The proven facts of a ``minimax`` certificate, one row each."""
    st = cert.statement
    n = st["degree"]
    lo, up = parse_exact(st["error"]["lower"]), parse_exact(st["error"]["upper"])
    poly = st["polynomial"]
    on = "" if poly["domain"] is None else f" on [{', '.join(poly['domain'])}]"
    npts = len(cert.evidence.get("alternation", [])) or n + 2
    how = "annihilating weights" if "annihilator" in cert.evidence else "alternation"
    rows = [
        ("polynomial", f"{poly['basis']} basis{on}, degree {poly['degree']}"),
        (f"E_{n}(f) >=", fmpq_to_decimal(lo, 12, "down") + "  (proven: de la Vallee Poussin, "
         f"{npts} points, {how})"),
        (f"E_{n}(f) <= sup |{error_words(st)}| <=", fmpq_to_decimal(up, 12, "up") +
         "  (proven: Taylor forms and monotonicity, piece by piece)"),
        ("upper / lower", cert.info.get("ratio_upper_lower") or "-"),
    ]
    search = cert.info.get("search", {})
    if search.get("stop") is not None:
        rows.append(("search (not checked)", f"{search.get('stop')} after "
                     f"{search.get('iterations')} exchange steps, {search.get('precision')}"))
    return rows


def read_problem(args: Any) -> tuple[Any, int, Any, Any, Any]:
    """``(f, degree, a, b, rtol)`` from --f, --degree, --interval and --rtol."""
    f = parse(args.f, variables=("x",), name="--f")
    n = read_degree(args.degree)
    a, b = read_interval(args, f)
    rtol = exact(args.rtol, "--rtol")
    if rtol <= 0:
        raise InvalidParameterError(f"--rtol must be > 0, got {args.rtol}")
    return f, n, a, b, rtol


def run(args: Any) -> CommandResult:
    f, n, a, b, rtol = read_problem(args)
    kw = read_family_flags(args)
    with make_progress(args, "dpverify minimax") as bar:
        cert = minimax(f, n, (a, b), search=remez, rtol=rtol,
                       timeout=0.9 * read_timeout(args.timeout), progress=bar, **kw)
    note_interval(cert, args)
    rows = [("f", f.canonical), ("interval", args.rounded_interval.describe()),
            ("degree N", str(n))] + family_rows(cert) + bracket_rows(cert)
    line, code = bracket_outcome(cert, args)
    rows.append(("result", line))
    return CommandResult(data=cert.data, text=format_table(rows), exit_code=code)
