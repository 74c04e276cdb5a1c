"""``dpverify rofk``: certified r-of-k polynomial (thaler2012 Lemma 4.5, Appendix B).

``dpverify rofk --r R --k K --gamma G [--method sherstov|minimax] [--reading KEY=VAL,...]
[--intermediates summary|full] [--max-degree N] [--json]``.  Exit 0 when the error claim
(and, for minimax, the optimality proof) holds, 1 otherwise, 2 on bad input.
"""

from __future__ import annotations

from typing import Any

from ..certify import certify
from ..errors import InvalidParameterError
from ..numbers import MAX_DEGREE, check_open_unit
from ._cert import outcome, statement_rows, timeout_flag
from ._common import (
    CommandResult,
    add_json_flag,
    exact,
    format_table,
    int_flag,
    make_progress,
    progress_flags,
)

__all__ = ["register", "PRELOAD"]

#: What the handler imports when it runs: the isolating parent imports it before it
#: forks the computing child (dpverify.cli), so the child imports nothing under --timeout.
PRELOAD = ("dpverify.certify.finite", "dpverify.constructions.sherstov",
           "dpverify.constructions.minimax", "dpverify.verify.load", "jsonschema")


def register(sub: Any) -> None:
    p = sub.add_parser(
        "rofk",
        help="certified r-of-k threshold polynomial on integer counts (thaler2012 Lemma 4.5)",
        description=(
            "Build a polynomial in the count t approximating 1[t >= r] on {0..k}: Sherstov's "
            "construction as printed in thaler2012 Appendix B (under a reading of its "
            "suspicious symbols, default: the one that works, see docs/sherstov.md) or the "
            "least-degree minimax polynomial with an optimality certificate; certify the "
            "exact error on {0..k}.  --reading takes comma-separated KEY=VALUE with keys "
            "delta (log_k|log_2), d (z|Delta|log_k_over_gamma), log_base (e|2), "
            "ell_range (0..r-1|1..r-1)."
        ),
    )
    p.add_argument("--r", required=True, type=str, help="threshold r (integer, 1 <= r <= k)")
    p.add_argument("--k", required=True, type=str, help="number of bits k (integer >= 1)")
    p.add_argument("--gamma", required=True, type=str, help="error bound in (0, 1), exact")
    p.add_argument("--method", default="sherstov", type=str, help="sherstov (default) or minimax")
    p.add_argument("--reading", default=None, type=str,
                   help="readings of Appendix B's symbols, e.g. d=Delta,log_base=2")
    p.add_argument("--intermediates", default="summary", type=str,
                   help="summary (default: degrees/sizes) or full (all step coefficients)")
    p.add_argument("--max-degree", default=None, type=str,
                   help="refuse constructions above this degree (default 20000)")
    progress_flags(p)
    timeout_flag(p, default=600)
    add_json_flag(p)
    p.set_defaults(handler=_run)



def _parse_reading(text: str | None) -> dict[str, str] | None:
    if text is None:
        return None
    out = {}
    for part in text.split(","):
        if "=" not in part:
            raise InvalidParameterError(f"--reading must be KEY=VALUE[,KEY=VALUE], got {text!r}")
        key, val = (s.strip() for s in part.split("=", 1))
        out[key] = val
    return out


def _run(args: Any) -> CommandResult:
    # deferred: `dpverify --help` imports every command module (CLI start-up)
    from ..constructions.sherstov import MAX_SHERSTOV_DEGREE, resolve_reading, rofk_polynomial

    k = int_flag(args.k, "--k", 1, MAX_DEGREE)
    r = int_flag(args.r, "--r", 1)
    if r > k:
        raise InvalidParameterError(f"--r must be <= --k = {k}, got {r}")
    gamma = check_open_unit(exact(args.gamma, "--gamma"), "--gamma")
    method = args.method.strip()
    if method not in ("sherstov", "minimax"):
        raise InvalidParameterError(f"--method must be 'sherstov' or 'minimax', got {method!r}")
    inter = args.intermediates.strip()
    if inter not in ("summary", "full"):
        raise InvalidParameterError(f"--intermediates must be 'summary' or 'full', got {inter!r}")
    max_deg = (MAX_SHERSTOV_DEGREE if args.max_degree is None
               else int_flag(args.max_degree, "--max-degree", 1, MAX_DEGREE))
    reading = _parse_reading(args.reading)
    if method == "minimax":
        if reading is not None:
            raise InvalidParameterError("--reading applies only to --method sherstov")
        # deferred: `dpverify --help` imports every command module (CLI start-up)
        from ..constructions.minimax import MAX_MINIMAX_K

        if k > MAX_MINIMAX_K:
            raise InvalidParameterError(f"--k must be <= {MAX_MINIMAX_K} with --method minimax, "
                                        f"got {k}")
    else:
        try:
            reading = resolve_reading(reading)
        except InvalidParameterError as exc:
            raise InvalidParameterError(f"--{exc}") from None
    with make_progress(args, "dpverify rofk") as bar:
        if method == "minimax":
            approx = rofk_polynomial(r, k, gamma, method="minimax", progress=bar)
        else:
            approx = rofk_polynomial(r, k, gamma, method="sherstov", reading=reading,
                                     intermediates=inter, max_degree=max_deg, progress=bar)
        cert = certify(approx, progress=bar)
    rows = [
        ("construction", approx.construction),
        ("r, k", f"{r}, {k}"),
        ("gamma", args.gamma),
    ]
    if method == "sherstov":
        sh = approx.extra["sherstov"]
        rows.append(("reading", ",".join(f"{a}={b}" for a, b in sh["reading"].items())))
        rows.append(("Delta, z, d", f"{sh['Delta']}, {sh['z']}, {sh['d']}"))
    rows += statement_rows(cert, "|p - 1[t >= r]| on 0..k")
    text, code = outcome(cert)
    rows.append(("result", text))
    return CommandResult(data=cert.data, text=format_table(rows), exit_code=code)
