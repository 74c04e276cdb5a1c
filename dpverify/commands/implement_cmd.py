"""``dpverify implement``: the least degree whose machine polynomial, evaluated in a named
scheme and format, is certified within a target number of ulps of f at every float of an
interval; its coefficients, the generated code and the certificate (kind float-error)."""

from __future__ import annotations

from typing import Any

from ..errors import InvalidParameterError
from ..expr import parse
from ..floatcode import DEFAULT_MAX_DEGREE, implement
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
from ._streams import say
from .minimax_cmd import note_interval, read_interval

__all__ = ["register", "PRELOAD"]

#: What issuing the certificate imports (the checker's schema): the isolating parent
#: imports it before it forks the computing child (dpverify.cli).
PRELOAD = ("dpverify.verify.load", "jsonschema")


def register(sub: Any) -> None:
    p = sub.add_parser(
        "implement",
        help="least degree of float code certified within U ulps of f, with generated numpy "
        "and C code",
        description="For each degree upwards: machine-number coefficients (fpminimax, "
        "relative error), then the certified total error (approximation + every rounding of "
        "the scheme) in ulps of f(x) at every float x of the interval (kind float-error). "
        "The first degree within --target-ulps is the answer; each lower degree is shown as "
        "refuted (an input where that code errs more, proven) or not certified (the bound "
        "is not tight enough to decide: not impossible). --emit writes a Python module (one "
        "numpy function) and a C file in exactly the certified operation order; the numpy "
        "function is checked against f (every float when there are at most 2^24, else a "
        "search).",
    )
    p.add_argument("--f", required=True, help='function of x without zero on the interval, '
                   'e.g. "exp(x)"')
    p.add_argument("--interval", nargs=2, required=True, metavar=("A", "B"),
                   help="the interval [A, B] (exact numbers, A < B)")
    p.add_argument("--format", default="binary32", choices=("binary32", "binary64"),
                   help="format of the coefficients and of every operation (default binary32)")
    p.add_argument("--target-ulps", dest="target_ulps", required=True, metavar="U",
                   help="the goal: |f(x) - code(x)| <= U ulp(f(x)), U > 1/2")
    p.add_argument("--scheme", default="horner",
                   choices=("horner", "horner-fma", "estrin", "estrin-fma"),
                   help="evaluation order (default horner)")
    p.add_argument("--parity", choices=("even", "odd"),
                   help="only powers of one parity, evaluated in x^2")
    p.add_argument("--absolute", action="store_true",
                   help="coefficients from the absolute fpminimax (default: relative)")
    p.add_argument("--fix", metavar="K=V,...",
                   help="fixed coefficients, e.g. 0=1 for p(0) = 1 (numbers of the format)")
    p.add_argument("--max-degree", dest="max_degree", default=str(DEFAULT_MAX_DEGREE),
                   metavar="N", help=f"largest degree tried (default {DEFAULT_MAX_DEGREE})")
    p.add_argument("--emit", metavar="DIR",
                   help="write DIR/NAME.py (numpy) and DIR/NAME.c")
    p.add_argument("--name", default="poly", help="the generated function's name")
    p.add_argument("--check", default="auto",
                   help="check of the generated numpy function: auto (every float up to 2^24 "
                   "of them, else 2^20 inputs), all (raise --timeout: about 1 s per 2^21 "
                   "floats), a number of inputs, or none")
    timeout_flag(p)
    progress_flags(p)
    add_json_flag(p)
    p.set_defaults(handler=run)


def _read_check(text: str) -> Any:
    if text in ("auto", "all"):
        return text
    if text == "none":
        return None
    if text.isdigit() and int(text) > 0:
        return int(text)
    raise InvalidParameterError(f"--check must be auto, all, none or a positive number of "
                                f"inputs, got {text!r}")


def run(args: Any) -> CommandResult:
    f = parse(args.f, variables=("x",), name="--f")
    a, b = read_interval(args, f)
    u = exact(args.target_ulps, "--target-ulps")
    if not args.max_degree.isdigit():
        raise InvalidParameterError(f"--max-degree must be a non-negative integer, got "
                                    f"{args.max_degree!r}")
    with make_progress(args, "dpverify implement") as bar:
        res = implement(f, (a, b), format=args.format, target_ulps=u, scheme=args.scheme,
                        parity=args.parity, relative=not args.absolute, fix=args.fix,
                        max_degree=int(args.max_degree), emit_dir=args.emit, name=args.name,
                        check=_read_check(args.check),
                        timeout=0.9 * read_timeout(args.timeout), progress=bar, log=say)
    cert = res.certificate
    note_interval(cert, args)
    tu = fmpq_to_decimal(u, 6)
    rows = [("f", f.canonical), ("interval", args.rounded_interval.describe()),
            ("format, scheme", f"{res.format}, {res.scheme}"
             + (f" ({res.parity} powers in x^2)" if res.parity else "")),
            ("target", f"|f(x) - code(x)| <= {tu} ulp(f(x)) at every {res.format} x")]
    for att in res.attempts[:-1]:
        rows.append((f"degree {att.degree}", att.describe(tu).split(": ", 1)[1]))
    rows.append(("least degree", f"{res.degree} (the lowest certified; lower degrees as above)"))
    for k, h in enumerate(res.hex):
        if res.coefficients[k] != 0:
            rows.append((f"c{k}", f"{h}  = {fmpq_to_decimal(res.coefficients[k], 17)}"))
    rows.append(("total error <=", f"{fmpq_to_decimal(res.bound, 7, 'up')} ulps  (proven "
                 "for every float of the interval: kind float-error)"))
    if res.check:
        c = res.check
        rows.append(("check of the code", f"worst {c['worst_ulps']} ulps at {c['worst_input']} "
                     f"over {c['points']} " + ("floats: every one" if c["exhaustive"]
                                               else "inputs: a search, not every float")
                     + (" <= the certified bound" if c["agrees"] else "")))
    if res.emitted is not None:
        rows.append(("code", f"{res.emitted.python}  {res.emitted.c}  (function "
                     f"{res.emitted.function}; compile C with -ffp-contract=off)"))
    rows.append(("seconds", str(res.stats["seconds"])))
    rows.append(("result", f"certified ({check_with(args)})"))
    return CommandResult(data=cert.data, text=format_table(rows))
