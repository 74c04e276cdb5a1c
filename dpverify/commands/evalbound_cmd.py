"""``dpverify evalbound``: certified bound on the binary64 evaluation error of a polynomial
(Horner or Clenshaw), optionally combined with a certified ``sup |f - p|``.

The JSON (``--json``, ``--out``) is a certificate: kind ``evalbound``, or with ``--f`` kind
``float-error`` (its two parts, ``approximation`` and ``evaluation``, are complete
certificates too: ``dpverify verify FILE --part NAME``)."""

from __future__ import annotations

from typing import Any

from ..certify.evalbound import DEFAULT_PIECES, evalbound, float_error_bound
from ..errors import InvalidParameterError
from ..numbers import fmpq_str, fmpq_to_decimal
from ._cert import read_timeout, timeout_flag
from ._common import (
    CommandResult,
    add_json_flag,
    exact,
    format_table,
    make_progress,
    progress_flags,
    read_poly_arg,
)

__all__ = ["register", "PRELOAD"]

#: What the handler imports when it runs: the isolating parent imports it before it
#: forks the computing child (dpverify.cli), so the child imports nothing under --timeout.
PRELOAD = ("dpverify.certify.evalbound_cert", "dpverify.verify.load", "jsonschema")


def register(sub: Any) -> None:
    p = sub.add_parser(
        "evalbound",
        help="certified bound on |fl(p(x)) - p(x)| for binary64 Horner / Clenshaw",
        description="Rigorous bound on the rounding error |fl(p(x)) - p(x)| of evaluating p "
        "in IEEE binary64 (round to nearest, no FMA) over every binary64 x in [A, B]: Horner "
        "for the monomial basis, Clenshaw for the Chebyshev basis (operations and proof in "
        "dpverify.certify.evalbound). Coefficients are read exactly; rounding them to "
        "binary64 is included in the printed bound. With --f, also certifies sup |f - p| "
        "(p with the binary64 coefficients float code stores) and prints the combined bound "
        "on |f(x) - fl(p(x))|. The JSON (--json, --out) is a certificate for dpverify verify: "
        "kind evalbound, or float-error with --f. Near --timeout (at 80% of it) the "
        "bisection stops and the bound of the pieces analysed so far is certified (valid, "
        "looser); a first analysis that cannot finish in time is 'undecided'.",
    )
    p.add_argument("--poly", required=True,
                   help="coefficients, lowest degree first, comma-separated exact numbers "
                   "(hex floats are exact binary64), or @FILE with a JSON list")
    p.add_argument("--basis", default="monomial", choices=["monomial", "chebyshev"],
                   help="monomial (Horner) or chebyshev (Clenshaw); default monomial")
    p.add_argument("--interval", nargs=2, required=True, metavar=("A", "B"),
                   help="every binary64 x in [A, B] is covered (exact numbers, A < B; "
                   "e.g. -1 1)")
    p.add_argument("--domain", nargs=2, metavar=("A", "B"),
                   help="domain of a chebyshev basis (default: --interval)")
    p.add_argument("--f", default=None,
                   help="also certify |f(x) - fl(p(x))| for this function of x")
    p.add_argument("--rtol", default="1e-3",
                   help="relative width of the sup |f - p| enclosure (with --f; default 1e-3)")
    p.add_argument("--fma", action="store_true",
                   help="Horner with one fused multiply-add per step, fl(x*q + c) (C code "
                   "calling fma, or compiled with -ffp-contract=fast); default: a rounded "
                   "product then a rounded sum, as numpy")
    p.add_argument("--pieces", default=DEFAULT_PIECES, type=int, metavar="N",
                   help=f"at most N pieces of the interval (default {DEFAULT_PIECES})")
    timeout_flag(p)
    progress_flags(p)
    add_json_flag(p)
    p.set_defaults(handler=run)


def _show(q: Any) -> str:
    """An exact number as typed when short, else its decimal value (17 digits)."""
    text = fmpq_str(q)
    return text if len(text) <= 40 else "~" + fmpq_to_decimal(q, 17)


def run(args: Any) -> CommandResult:
    if not 1 <= args.pieces <= 65536:
        raise InvalidParameterError(f"--pieces must be in 1..65536, got {args.pieces}")
    a, b = exact(args.interval[0], "--interval A"), exact(args.interval[1], "--interval B")
    if not a < b:
        raise InvalidParameterError(
            f"--interval needs A < B, got {args.interval[0]} {args.interval[1]}")
    coeffs = read_poly_arg(args.poly, "--poly")
    domain = None
    if args.basis == "chebyshev":
        domain = (a, b)
        if args.domain:
            domain = (exact(args.domain[0], "--domain A"), exact(args.domain[1], "--domain B"))
            if not domain[0] < domain[1]:
                raise InvalidParameterError("--domain needs A < B")
    elif args.domain:
        raise InvalidParameterError("--domain only applies to the chebyshev basis")
    if args.fma and args.basis != "monomial":
        raise InvalidParameterError("--fma applies to Horner (the monomial basis) only")
    rtol = None
    if args.f is not None:
        rtol = exact(args.rtol, "--rtol")
        if rtol <= 0:
            raise InvalidParameterError(f"--rtol must be > 0, got {args.rtol}")
    with make_progress(args, "dpverify evalbound") as bar:
        # the library stops with a valid, looser bound at its timeout: before --timeout,
        # which ends the command as undecided
        seconds = 0.8 * read_timeout(args.timeout)
        if args.f is None:
            ev = evalbound(coeffs, (a, b), basis=args.basis, domain=domain,
                           pieces=args.pieces, fma=args.fma, timeout=seconds, progress=bar)
            combined = None
        else:
            combined = float_error_bound(
                args.f, coeffs, (a, b), basis=args.basis, domain=domain, rtol=rtol,
                timeout=seconds, pieces=args.pieces, fma=args.fma, progress=bar)
            ev = combined.evaluation
    rows = [
        ("algorithm", f"{ev.algorithm} (binary64, round to nearest, "
                      + ("fused multiply-add)" if args.fma else "no FMA)")),
        ("basis", ev.basis + ("" if domain is None else
                              f" on [{_show(domain[0])}, {_show(domain[1])}]")),
        ("interval", f"[{_show(a)}, {_show(b)}] (binary64 x in it)"),
        ("degree", str(ev.degree)),
        ("|fl(p(x)) - p(x)| <=", fmpq_to_decimal(ev.bound, 6, "up") + "  (proven)"),
        ("  with binary64 coefficients", fmpq_to_decimal(ev.evaluation, 6, "up")
         + f"  (certified; {len(ev.pieces)} pieces"
         + ("; bisection stopped at the time limit)" if ev.stats.get("stop") == "timeout"
            else ")")),
        ("  coefficients to binary64", fmpq_to_decimal(ev.coefficients, 6, "up")),
    ]
    if ev.algorithm == "clenshaw":
        rows.append(("  of which computing t = u(x)", fmpq_to_decimal(ev.mapping, 6, "up")))
    if ev.higham is not None:
        rows.append((f"Higham gamma_{'n' if args.fma else '2n'} bound",
                     fmpq_to_decimal(ev.higham, 6, "up")
                     + " (for comparison)"))
    rows.append(("overflow", "excluded (every intermediate < 2^1023, proven)"))
    if combined is None:
        cert = ev.certificate()
        rows.append(("certificate", "kind evalbound, about the binary64 coefficients: "
                     "dpverify verify FILE"))
    else:
        rows.append(("sup |f - p| <=", fmpq_to_decimal(combined.supnorm_upper, 6, "up")
                     + "  (certified, supnorm-box)"))
        rows.append(("|f(x) - fl(p(x))| <=", fmpq_to_decimal(combined.bound, 6, "up")
                     + "  (proven: sum of the two)"))
        if combined.ulps is not None:
            rows.append(("|f(x) - fl(p(x))| <= N ulp(f(x))",
                         f"N = {fmpq_to_decimal(combined.ulps, 6, 'up')}  (proven: |f| >= "
                         f"{_show(combined.f_lower)} on the interval)"))
        cert = combined.float_certificate()
        rows.append(("certificate", "kind float-error: dpverify verify FILE; its parts alone: "
                     "dpverify verify FILE --part approximation|evaluation"))
    return CommandResult(data=cert.data, text=format_table(rows))
