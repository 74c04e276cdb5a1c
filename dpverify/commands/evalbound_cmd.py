"""``dpverify evalbound``: certified round-off bounds of float code.

Three inputs:

* ``--poly``: a polynomial evaluated by Horner, Clenshaw or Estrin (binary64 or binary32);
  with ``--f`` the total error ``|f - fl(p)|`` (absolute, relative or in ulps);
* ``--expr "EXPR" --var NAME LO HI ...``: a straight-line program, evaluated exactly in the
  written order (:mod:`dpverify.expr.program`);
* ``--fpcore FILE [--name NAME]``: an FPCore benchmark (:mod:`dpverify.expr.fpcore`).

The JSON (``--json``, ``--out``) is a certificate: kind ``evalbound`` (Horner / Clenshaw),
``float-error`` (with ``--f``; two-part for binary64 Horner/Clenshaw without ``--error``
and ``--scheme``), or ``roundoff`` (programs and Estrin)."""

from __future__ import annotations

from typing import Any

from ..certify.evalbound import DEFAULT_PIECES, evalbound, float_error_bound
from ..errors import InvalidParameterError
from ..jsonfile import read_capped
from ..numbers import fmpq_str, fmpq_to_decimal
from ._cert import read_timeout, timeout_flag
from ._common import (
    CommandResult,
    add_json_flag,
    exact,
    format_table,
    interval_flag,
    make_progress,
    progress_flags,
    read_poly_arg,
)

__all__ = ["register", "PRELOAD"]

#: What the handler imports when it runs: the isolating parent imports it before it
#: forks the computing child (dpverify.cli), so the child imports nothing under --timeout.
PRELOAD = ("dpverify.certify.evalbound_cert", "dpverify.expr.constant", "dpverify.verify.load",
           "jsonschema")

_ERRORS = {"abs": "absolute", "rel": "relative", "ulps": "ulps"}


def register(sub: Any) -> None:
    p = sub.add_parser(
        "evalbound",
        help="certified round-off bounds: polynomials (Horner, Clenshaw, Estrin), programs, "
        "FPCore",
        description="Rigorous round-off bounds of float code over every input of a box, in "
        "IEEE binary64 or binary32 (round to nearest even, every operation rounded, no wider "
        "intermediate). --poly: a polynomial (Horner for the monomial basis, Clenshaw for "
        "the Chebyshev basis, --scheme estrin[-fma], --parity even|odd); coefficients are "
        "rounded to the format and the bound covers that. With --f, the total error "
        "|f(x) - fl(p(x))| (--error abs|rel|ulps). --expr with --var (repeatable): a "
        "straight-line program evaluated exactly as written (name = expr; assignments "
        "allowed; literals are rounded to the format as a compiler does). --fpcore FILE: "
        "an FPCore benchmark (let, let*, :pre ranges, :precision). The JSON (--json, --out) "
        "is a certificate for dpverify verify (kind evalbound, float-error or roundoff). "
        "Near --timeout (at 80%% of it) the search stops and the bound found so far is "
        "certified (valid, looser).",
    )
    src = p.add_mutually_exclusive_group(required=True)
    src.add_argument("--poly", help="coefficients, lowest degree first, comma-separated exact "
                     "numbers (hex floats are exact), or @FILE with a JSON list")
    src.add_argument("--expr", metavar="EXPR",
                     help="a straight-line program over the --var variables, e.g. "
                     "\"t = x + 1; t * t / y\"")
    src.add_argument("--fpcore", metavar="FILE", help="an FPCore file (- for standard input)")
    p.add_argument("--var", nargs=3, action="append", metavar=("NAME", "LO", "HI"),
                   help="a variable of --expr and its range (exact numbers); repeat per "
                   "variable; with --fpcore, overrides that variable's :pre range")
    p.add_argument("--name", help="with --fpcore: the FPCore to analyse (its :name)")
    p.add_argument("--format", choices=["binary64", "binary32"], default=None,
                   help="floating-point format (default binary64, or the FPCore's "
                   ":precision)")
    p.add_argument("--round-inputs", action="store_true",
                   help="programs: the inputs are reals in their ranges, rounded to the "
                   "format first (default: they are floats of the format)")
    p.add_argument("--functions", default=None, metavar="MODEL",
                   help="programs calling exp, log, sin, ...: 'correctly-rounded', or "
                   "NAME=ULPS[,NAME=ULPS] (a declared accuracy per function, e.g. exp=1)")
    p.add_argument("--error", choices=["abs", "rel", "ulps"], default=None,
                   help="absolute error (default), relative error, or ulps of the exact "
                   "value (programs) or of f (--f)")
    p.add_argument("--max-boxes", default=None, type=int, metavar="N",
                   help="programs and --f with a scheme: at most N boxes (default 3000)")
    p.add_argument("--basis", default="monomial", choices=["monomial", "chebyshev"],
                   help="--poly: monomial (Horner/Estrin) or chebyshev (Clenshaw)")
    p.add_argument("--scheme", choices=["horner", "horner-fma", "estrin", "estrin-fma"],
                   default=None, help="--poly in the monomial basis: the evaluation order "
                   "(default horner)")
    p.add_argument("--parity", choices=["even", "odd"], default=None,
                   help="--poly: evaluate in y = x*x (the other powers must be 0)")
    p.add_argument("--interval", nargs=2, metavar=("A", "B"),
                   help="--poly: every float x in [A, B] is covered (exact numbers, A < B)")
    p.add_argument("--domain", nargs=2, metavar=("A", "B"),
                   help="domain of a chebyshev basis (default: --interval)")
    p.add_argument("--f", default=None,
                   help="--poly: also certify |f(x) - fl(p(x))| for this function of x")
    p.add_argument("--rtol", default=None,
                   help="relative tolerance of the search (default 1e-3; programs 1e-2)")
    p.add_argument("--fma", action="store_true",
                   help="Horner with one fused multiply-add per step (= --scheme horner-fma)")
    p.add_argument("--pieces", default=DEFAULT_PIECES, type=int, metavar="N",
                   help=f"Horner / Clenshaw: at most N pieces (default {DEFAULT_PIECES})")
    timeout_flag(p)
    progress_flags(p)
    add_json_flag(p)
    p.set_defaults(handler=run)


def _show(q: Any) -> str:
    """An exact number as typed when short, else its decimal value (17 digits)."""
    text = fmpq_str(q)
    return text if len(text) <= 40 else "~" + fmpq_to_decimal(q, 17)


def _functions(text: str | None) -> Any:
    if text is None or text == "correctly-rounded":
        return text
    out: dict[str, Any] = {}
    for item in text.split(","):
        name, eq, value = item.partition("=")
        if not eq or not name.strip():
            raise InvalidParameterError(f"--functions: NAME=ULPS items, got {item!r}")
        v = value.strip()
        out[name.strip()] = v if v == "correctly-rounded" else exact(v, f"--functions {name}")
    return out


def run(args: Any) -> CommandResult:
    if args.max_boxes is not None and not 1 <= args.max_boxes <= 200_000:
        raise InvalidParameterError(f"--max-boxes must be in 1..200000, got {args.max_boxes}")
    if args.poly is None:
        return _program(args)
    for flag, value in (("--var", args.var), ("--name", args.name),
                        ("--round-inputs", args.round_inputs or None),
                        ("--functions", args.functions)):
        if value is not None:
            raise InvalidParameterError(f"{flag} applies to --expr and --fpcore, not --poly")
    if args.interval is None:
        raise InvalidParameterError("--poly needs --interval A B")
    if args.error is not None and args.f is None:
        raise InvalidParameterError("--error with --poly needs --f (the total error against "
                                    "f); for the evaluation error alone it is absolute")
    return _poly(args)


def _program(args: Any) -> CommandResult:
    # function-level: the program analysis is only needed for --expr / --fpcore
    from ..certify.roundoff import DEFAULT_BOXES, program_bound
    from ..expr.fpcore import read_fpcore

    for flag, value in (("--interval", args.interval), ("--domain", args.domain),
                        ("--f", args.f), ("--scheme", args.scheme),
                        ("--parity", args.parity), ("--fma", args.fma or None)):
        if value is not None:
            raise InvalidParameterError(f"{flag} applies to --poly, not to programs")
    ranges: dict[str, Any] | None = None
    asked: dict[str, Any] = {}  # ranges given as constant expressions, rounded outward
    if args.var:
        ranges = {}
        for name, lo, hi in args.var:
            if name in ranges:
                raise InvalidParameterError(f"--var {name} given twice")
            box = _range(lo, hi, f"--var {name}")
            (ranges[name],) = box.stated
            if not box.exact:
                asked[name] = box
    if args.expr is not None:
        if args.name is not None:
            raise InvalidParameterError("--name applies to --fpcore")
        if ranges is None:
            raise InvalidParameterError("--expr needs --var NAME LO HI for each variable")
        program: Any = args.expr
    else:
        raw = read_capped(args.fpcore, "--fpcore", stdin=True)
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError:
            raise InvalidParameterError("--fpcore: the file is not UTF-8 text") from None
        core = read_fpcore(text, args.name)
        program = core
        if ranges is not None:
            full = dict(zip(core.program.variables, core.box))
            for v in ranges:
                if v not in full:
                    raise InvalidParameterError(f"--var {v}: not an argument of the FPCore")
            full.update(ranges)
            ranges = full
    rtol = exact(args.rtol, "--rtol") if args.rtol is not None else "1e-2"
    with make_progress(args, "dpverify evalbound") as bar:
        seconds = 0.8 * read_timeout(args.timeout)
        r = program_bound(program, ranges, format=args.format, round_inputs=args.round_inputs,
                          functions=_functions(args.functions), error=args.error or "abs",
                          rtol=rtol, max_boxes=args.max_boxes or DEFAULT_BOXES,
                          timeout=seconds, progress=bar)
    unit = {"abs": "", "rel": " |P(x)|", "ulps": " ulp(P(x))"}[r.error]
    rows = [
        ("program", r.program.fpcore()[:200]),
        ("format", f"{r.format.name}, round to nearest even, every operation rounded"),
        ("inputs", ", ".join(f"{v} in [{_show(a)}, {_show(b)}]"
                             for v, (a, b) in zip(r.program.variables, r.box))
         + (" (reals, rounded to the format)" if r.round_inputs else
            f" ({r.format.name} numbers)")),
    ]
    if r.functions:
        rows.append(("functions", ", ".join(
            f"{k}: {'correctly rounded' if v is None else f'{_show(v)} ulp'}"
            for k, v in sorted(r.functions.items()))))
    rows += [
        (f"|fl(P)(x) - P(x)| <={unit}", fmpq_to_decimal(r.bound, 7, "up") + "  (proven)"),
        ("  absolute", fmpq_to_decimal(r.absolute, 7, "up")),
        ("  first order / remainder", fmpq_to_decimal(r.stats["first_order"], 4, "up") + " / "
         + fmpq_to_decimal(r.stats["second_order"], 4, "up")),
        ("boxes", f"{len(r.leaves)} (search stopped: {r.stats['stop']})"),
        ("certificate", "kind roundoff: dpverify verify FILE"),
    ]
    data = r.certificate().data
    if asked:
        rows.insert(3, ("inputs asked", ", ".join(
            f"{v} in {box.describe()}" for v, box in asked.items())))
        data.setdefault("info", {})["requested_ranges"] = {
            v: box.info() for v, box in asked.items()}
    return CommandResult(data=data, text=format_table(rows))


def _range(lo: str, hi: str, flag: str) -> Any:
    """``LO HI`` of ``--var NAME`` or ``--interval`` as a Box: exact numbers, or constant
    expressions (``0 pi/2``) whose ``stated`` interval is rounded outward to rationals.
    Sound for a round-off bound: the inputs of the rounded interval include those of the
    asked one, so a bound over it covers them (``--poly`` takes the ends inward instead)."""
    # deferred: the constant-expression reader, needed only once a range is read
    from ..expr.constant import Box, read_pair

    if flag == "--interval":
        return interval_flag([lo, hi])
    return Box((read_pair(lo, hi, f"{flag} LO", f"{flag} HI", flag),))


def _poly(args: Any) -> CommandResult:
    box = _range(args.interval[0], args.interval[1], "--interval")
    if box.exact:
        return _poly_at(args, box.stated[0])
    # the inputs are floats: the binary64 numbers inside [0, pi/2] are the inputs asked for
    # (binary32 ones among them), so the ends are rounded inward, as the Python API does
    if args.basis != "monomial" and args.domain is None:
        raise InvalidParameterError(
            "--interval: with an end such as pi/2, give --domain A B for the chebyshev basis "
            "(its default domain is the interval)")
    (ea, eb), = box.ends
    a, b = ea.binary64_inside("up", "--interval A"), eb.binary64_inside("down", "--interval B")
    if not a < b:
        raise InvalidParameterError(
            f"--interval [{ea}, {eb}] holds {'no' if a > b else 'only one'} binary64 number: "
            "nothing to bound over (give a wider interval)")
    result = _poly_at(args, (a, b))
    result.data.setdefault("info", {})["requested_interval"] = {
        "requested": box.requested[0], "rounding": "inward to binary64",
        "meaning": "the statement's interval holds the same float inputs as the requested "
                   "one (binary64 and binary32 numbers)"}
    shown = f"[{box.ends[0][0]}, {box.ends[0][1]}]"
    text = result.text + "\n" + format_table([(
        "interval asked", f"{shown}: the same floats as [{_hex(a)}, {_hex(b)}] "
                          "(ends rounded inward to binary64)")])
    return result._replace(text=text)


def _hex(q: Any) -> str:
    """A binary64 number (exact rational) in C's hexadecimal notation."""
    return float(int(q.p)).hex() if q.q == 1 else (int(q.p) / int(q.q)).hex()


def _poly_at(args: Any, interval: tuple[Any, Any]) -> CommandResult:
    if not 1 <= args.pieces <= 65536:
        raise InvalidParameterError(f"--pieces must be in 1..65536, got {args.pieces}")
    a, b = interval
    coeffs = read_poly_arg(args.poly, "--poly")
    domain = None
    if args.basis == "chebyshev":
        domain = (a, b)
        if args.domain:
            domain = (exact(args.domain[0], "--domain A"), exact(args.domain[1], "--domain B"))
            if not domain[0] < domain[1]:
                raise InvalidParameterError("--domain needs A < B")
        if args.scheme is not None or args.parity is not None:
            raise InvalidParameterError("--scheme and --parity apply to the monomial basis")
    elif args.domain:
        raise InvalidParameterError("--domain only applies to the chebyshev basis")
    if args.fma and args.basis != "monomial":
        raise InvalidParameterError("--fma applies to Horner (the monomial basis) only")
    if args.fma and args.scheme not in (None, "horner-fma"):
        raise InvalidParameterError(f"--fma contradicts --scheme {args.scheme}")
    rtol = exact(args.rtol if args.rtol is not None else "1e-3", "--rtol")
    if args.f is not None and not rtol > 0:
        raise InvalidParameterError(f"--rtol must be > 0, got {args.rtol}")
    new = args.format == "binary32" or args.scheme in ("estrin", "estrin-fma") or \
        args.parity is not None or args.error is not None
    with make_progress(args, "dpverify evalbound") as bar:
        # the library stops with a valid, looser bound at its timeout: before --timeout,
        # which ends the command as undecided
        seconds = 0.8 * read_timeout(args.timeout)
        if args.f is not None and (new or args.scheme is not None):
            fe = float_error_bound(
                args.f, coeffs, (a, b), rtol=rtol, timeout=seconds, fma=args.fma,
                progress=bar, format=args.format or "binary64",
                scheme=args.scheme or ("horner-fma" if args.fma else "horner"),
                parity=args.parity, error=args.error or "abs",
                pieces=args.max_boxes or DEFAULT_PIECES)
            return _total_result(fe)
        if args.f is None:
            ev = evalbound(coeffs, (a, b), basis=args.basis, domain=domain,
                           pieces=args.pieces, fma=args.fma, format=args.format or "binary64",
                           scheme=args.scheme if args.scheme in ("estrin", "estrin-fma")
                           else None, parity=args.parity, timeout=seconds, progress=bar)
            combined = None
            if not hasattr(ev, "evaluation"):  # Estrin or parity: a program's bound
                return _scheme_result(ev, args)
        else:
            combined = float_error_bound(
                args.f, coeffs, (a, b), basis=args.basis, domain=domain, rtol=rtol,
                timeout=seconds, pieces=args.pieces, fma=args.fma, progress=bar)
            ev = combined.evaluation
    return _legacy_result(args, ev, combined, domain, a, b)


def _scheme_result(r: Any, args: Any) -> CommandResult:
    rows = [("scheme", f"{args.scheme or 'horner'}" + (f", parity {args.parity}"
                                                        if args.parity else "")),
            ("program", r.program.fpcore()[:200]),
            ("format", f"{r.format.name}, round to nearest even"),
            ("|fl(p(x)) - p(x)| <=", fmpq_to_decimal(r.bound, 7, "up")
             + "  (proven, coefficients in the format)"),
            ("boxes", f"{len(r.leaves)} (search stopped: {r.stats['stop']})"),
            ("certificate", "kind roundoff: dpverify verify FILE")]
    return CommandResult(data=r.certificate().data, text=format_table(rows))


def _total_result(fe: Any) -> CommandResult:
    unit = {"abs": "", "rel": " |f(x)|", "ulps": " ulp(f(x))"}[fe.error]
    rows = [("scheme", fe.scheme + (f" in y = x*x ({fe.parity} powers)" if fe.parity else "")),
            ("format", f"{fe.format.name}, round to nearest even"),
            ("interval", f"[{_show(fe.interval[0])}, {_show(fe.interval[1])}] "
                         f"({fe.format.name} x in it)"),
            ("target", fe.target[:120]),
            (f"|f(x) - fl(p(x))| <={unit}", fmpq_to_decimal(fe.bound, 7, "up")
             + "  (proven)"),
            ("  absolute", fmpq_to_decimal(fe.absolute, 7, "up")),
            ("  largest sup |f - p| / rounding on a piece",
             fmpq_to_decimal(fe.approximation, 4, "up") + " / "
             + fmpq_to_decimal(fe.rounding, 4, "up")),
            ("pieces", f"{len(fe.leaves)} (search stopped: {fe.stats['stop']})"),
            ("certificate", "kind float-error (one statement, pieces as evidence): "
                            "dpverify verify FILE")]
    return CommandResult(data=fe.float_certificate().data, text=format_table(rows))


def _legacy_result(args: Any, ev: Any, combined: Any, domain: Any, a: Any, b: Any
                   ) -> CommandResult:
    fmt = ev.format.name
    rows = [
        ("algorithm", f"{ev.algorithm} ({fmt}, round to nearest, "
                      + ("fused multiply-add)" if args.fma else "no FMA)")),
        ("basis", ev.basis + ("" if domain is None else
                              f" on [{_show(domain[0])}, {_show(domain[1])}]")),
        ("interval", f"[{_show(a)}, {_show(b)}] ({fmt} x in it)"),
        ("degree", str(ev.degree)),
        ("|fl(p(x)) - p(x)| <=", fmpq_to_decimal(ev.bound, 6, "up") + "  (proven)"),
        (f"  with {fmt} coefficients", fmpq_to_decimal(ev.evaluation, 6, "up")
         + f"  (certified; {len(ev.pieces)} pieces"
         + ("; bisection stopped at the time limit)" if ev.stats.get("stop") == "timeout"
            else ")")),
        (f"  coefficients to {fmt}", fmpq_to_decimal(ev.coefficients, 6, "up")),
    ]
    if ev.algorithm == "clenshaw":
        rows.append(("  of which computing t = u(x)", fmpq_to_decimal(ev.mapping, 6, "up")))
    if ev.higham is not None:
        rows.append((f"Higham gamma_{'n' if args.fma else '2n'} bound",
                     fmpq_to_decimal(ev.higham, 6, "up") + " (for comparison)"))
    rows.append(("overflow", f"excluded (every intermediate < 2^{ev.format.emax}, proven)"))
    if combined is None:
        cert = ev.certificate()
        rows.append(("certificate", f"kind evalbound, about the {fmt} coefficients: "
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
