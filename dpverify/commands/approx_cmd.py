"""``dpverify approx``: the least degree whose best approximation is certified within gamma."""

from __future__ import annotations

from typing import Any

from ..certify.least_degree import approx
from ..constructions.remez import MAX_REMEZ_DEGREE, remez
from ..errors import InvalidParameterError
from ..expr import parse
from ..numbers import fmpq_str, fmpq_to_decimal, parse_exact
from ._cert import check_with, read_timeout, timeout_flag
from ._common import (
    CommandResult,
    add_json_flag,
    exact,
    format_table,
    make_progress,
    progress_flags,
)
from .minimax_cmd import (
    bracket_rows,
    family_flags,
    family_rows,
    note_interval,
    read_degree,
    read_family_flags,
    read_interval,
)

__all__ = ["register", "PRELOAD"]

#: What the search imports on first call: the isolating parent imports it before it forks
#: the computing child (dpverify.cli).
PRELOAD = ("dpverify.expr.float_eval", "dpverify.verify.load", "jsonschema")


def register(sub: Any) -> None:
    p = sub.add_parser(
        "approx",
        help="least degree N with a certified best approximation within gamma",
        description="Search degrees with the Remez exchange (a search), certify the least N "
        "whose polynomial has sup |f - p| <= gamma, and, when a de la Vallee Poussin bound "
        "shows E_{N-1}(f) > gamma, prove that no lower degree works. The output says which "
        "of the two was proven, and names any degree the search could not decide. Check "
        "the certificate (kind minimax) with dpverify verify.",
    )
    p.add_argument("--f", required=True, help='function of x, e.g. "exp(x)"')
    p.add_argument("--interval", nargs=2, required=True, metavar=("A", "B"),
                   help="the interval [A, B] of the uniform error (exact numbers, A < B, "
                   "e.g. -1 1; or constant expressions such as 0 pi/2, rounded outward)")
    p.add_argument("--gamma", required=True, help="target uniform error, > 0")
    p.add_argument("--max-degree", default="1000", help=f"largest degree tried "
                   f"(default 1000, at most {MAX_REMEZ_DEGREE})")
    p.add_argument("--rtol", default="1e-6",
                   help="goal for the bracket: upper <= lower (1 + rtol) (default 1e-6)")
    family_flags(p, lists=False)
    timeout_flag(p)
    progress_flags(p)
    add_json_flag(p)
    p.set_defaults(handler=run)


def run(args: Any) -> CommandResult:
    f = parse(args.f, variables=("x",), name="--f")
    a, b = read_interval(args, f)
    gamma = exact(args.gamma, "--gamma")
    if not gamma > 0:
        raise InvalidParameterError(f"--gamma must be > 0, got {args.gamma}")
    max_degree = read_degree(args.max_degree, "--max-degree")
    rtol = exact(args.rtol, "--rtol")
    if rtol <= 0:
        raise InvalidParameterError(f"--rtol must be > 0, got {args.rtol}")
    kw = read_family_flags(args)
    with make_progress(args, "dpverify approx") as bar:
        cert = approx(f, (a, b), gamma, search=remez, max_degree=max_degree, rtol=rtol,
                      timeout=0.9 * read_timeout(args.timeout), progress=bar, **kw)
    note_interval(cert, args)
    st = cert.statement
    n = st["degree"]
    rows = [("f", f.canonical), ("interval", args.rounded_interval.describe()),
            ("gamma", fmpq_str(gamma)), ("degree N", str(n))] + family_rows(cert) + \
        bracket_rows(cert)
    rows.append(("degree N suffices", "proven: sup |f - p| <= gamma"))
    if "least_degree" in st:
        lo = parse_exact(st["least_degree"]["lower"])
        mons = st.get("monomials")
        if mons is None:
            rows.append((f"degree {n - 1} impossible", f"proven: E_{n - 1}(f) >= "
                         f"{fmpq_to_decimal(lo, 12, 'down')} > gamma, so N is the least "
                         "degree"))
        else:
            rows.append((f"without x^{mons[-1]}", f"impossible, proven: the best error with "
                         f"powers {', '.join(map(str, mons[:-1])) or 'none'} is >= "
                         f"{fmpq_to_decimal(lo, 12, 'down')} > gamma, so N is the least "
                         "degree of the family"))
    else:
        why = cert.info.get("unproven_claims", {}).get("least_degree", {}).get("reason", "")
        rows.append(("least degree", f"NOT proven ({why}); N may not be the least degree"))
    for k, why in cert.info.get("undecided_degrees", {}).items():
        rows.append((f"degree {k}", f"undecided by the search ({why})"))
    rows.append(("result", f"certified ({check_with(args)})"))
    return CommandResult(data=cert.data, text=format_table(rows))
