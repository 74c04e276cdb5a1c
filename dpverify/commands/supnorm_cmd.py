"""``dpverify supnorm``: certified sup |f - p| over an interval or box."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..api import supnorm_certificate
from ..errors import InvalidParameterError
from ..exact import BernsteinPoly, ChebyshevPoly, MonomialPoly
from ..expr import parse
from ..numbers import round_to_float64
from ._cert import outcome, read_timeout, statement_rows, timeout_flag
from ._common import (
    CommandResult,
    add_json_flag,
    exact,
    format_table,
    int_flag,
    interval_flag,
    make_progress,
    progress_flags,
    read_poly_arg,
)

if TYPE_CHECKING:  # annotations only: the CLI start-up imports nothing it does not run
    import argparse

    _Subparsers = argparse._SubParsersAction[argparse.ArgumentParser]

__all__ = ["register", "PRELOAD"]

#: What the handler imports on first call (dpverify.api is lazy): the isolating parent
#: imports it before it forks the computing child (dpverify.cli).
PRELOAD = ("dpverify.certify.claims", "dpverify.verify.load", "jsonschema")

_BASES = {"monomial": MonomialPoly, "chebyshev": ChebyshevPoly, "bernstein": BernsteinPoly}


def register(sub: _Subparsers) -> None:
    p = sub.add_parser(
        "supnorm",
        help="certified enclosure of sup |f - p| on an interval",
        description="Certified enclosure [lower, upper] of sup |f(x) - p(x)| over [A, B] "
        "(rigorous Taylor-form branch and bound in arb ball arithmetic). Numbers are read "
        "exactly: 1e-3 is 1/1000, 0.3 is 3/10.",
    )
    p.add_argument("--f", required=True, help='function of x, e.g. "exp(-(x-0.3)^2/0.5)"')
    p.add_argument(
        "--poly",
        required=True,
        help="coefficients, lowest degree first, comma-separated exact numbers, "
        "or @FILE with a JSON list",
    )
    p.add_argument(
        "--basis",
        default="monomial",
        choices=sorted(_BASES),
        help="basis of --poly (default monomial)",
    )
    p.add_argument("--interval", nargs=2, required=True, metavar=("A", "B"),
                   help="the interval [A, B] over which sup |f - p| is taken: exact numbers "
                   "(-1 1, 0 1/2) or constant expressions (0 pi/2, -e sqrt(2)), which the "
                   "certificate rounds outward to exact decimals and states as requested")
    p.add_argument(
        "--domain",
        nargs=2,
        metavar=("A", "B"),
        help="domain of a chebyshev/bernstein basis (default: --interval)",
    )
    p.add_argument("--rtol", default="1e-6", help="relative width to reach (default 1e-6)")
    p.add_argument("--claim", default=None, help="also prove or refute sup <= CLAIM")
    p.add_argument("--max-pieces", default="200000", help="work limit (default 200000)")
    p.add_argument("--float64", action="store_true",
                   help="round each --poly coefficient to the nearest binary64 first (the "
                   "polynomial a float64 implementation stores); hex floats are exact anyway")
    progress_flags(p)
    timeout_flag(p)
    add_json_flag(p)
    p.set_defaults(handler=run)



def run(args: argparse.Namespace) -> CommandResult:
    f = parse(args.f, variables=("x",), name="--f")
    box = interval_flag(args.interval)
    (a, b), = box.stated
    coeffs = read_poly_arg(args.poly, "--poly")
    if args.float64:
        coeffs = [round_to_float64(c, f"--poly[{i}]") for i, c in enumerate(coeffs)]
    cls = _BASES[args.basis]
    if args.basis == "monomial":
        if args.domain:
            raise InvalidParameterError(
                "--domain only applies to the chebyshev and bernstein bases"
            )
        poly = cls(coeffs)
    else:
        if not box.exact and not args.domain:
            raise InvalidParameterError(
                f"--interval {args.interval[0]} {args.interval[1]}: give --domain for the "
                f"{args.basis} basis (its default domain is the interval, which is not exact)")
        dom = (a, b)
        if args.domain:
            dom = (exact(args.domain[0], "--domain A"), exact(args.domain[1], "--domain B"))
            if not dom[0] < dom[1]:
                raise InvalidParameterError("--domain needs A < B")
        poly = cls(coeffs, domain=dom)
    rtol = exact(args.rtol, "--rtol")
    if rtol <= 0:
        raise InvalidParameterError(f"--rtol must be > 0, got {args.rtol}")
    claim = None
    if args.claim is not None:
        claim = exact(args.claim, "--claim")
        if claim < 0:
            raise InvalidParameterError(f"--claim must be >= 0, got {args.claim}")
    max_pieces = int_flag(args.max_pieces, "--max-pieces", 1, 10_000_000)

    with make_progress(args, "supnorm") as progress:
        cert = supnorm_certificate(
            f, poly, args.interval if not box.exact else (a, b), rtol=rtol, claim=claim,
            max_pieces=max_pieces,
            timeout=0.9 * read_timeout(args.timeout),
            progress=progress,
        )
    info = cert.info
    rows = [
        ("f", f.canonical),
        ("basis", f"{cert.polynomial['basis']}"
         + (" (coefficients rounded to binary64)" if args.float64 else "")),
        ("interval", box.describe()),
    ]
    rows += statement_rows(cert)
    rows += [
        ("relative width", str(info.get("relative_width"))),
        ("search", f"{info['status']} ({_count(info['stats']['search_pieces'], 'piece')} "
                   f"searched, {info['stats']['seconds']} s)"),
        ("evidence", f"{_count(len(cert.evidence['pieces']), 'piece')} "
                     "(re-checked by dpverify verify)"),
        ("witness x", cert.evidence["witness"][0]),
    ]
    text, code = outcome(cert, need_convergence=claim is None)
    rows.append(("result", text))
    return CommandResult(data=cert.data, text=format_table(rows), exit_code=code)


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" + ("" if n == 1 else "s")
