"""``dpverify or`` / ``dpverify and``: certified OR / AND polynomials (thaler2012 Fact 4.2).

``dpverify or --k K --gamma G [--method chebyshev|minimax] [--d D] [--json]``
``dpverify and ...`` (same flags).  Exit 0 when every claim is proven (for
``minimax`` also the least-degree proof), 1 otherwise, 2 on bad input.

Limits (checked before any work): ``k <= MAX_K`` (10^6); the Chebyshev degree
``t <= MAX_OR_DEGREE`` (5000), a memory limit: the certificate lists ``t`` exact monomial
coefficients of about ``2 t log2(k)`` bits each (~0.6 t^2 log2(k) bytes of JSON: 13 MB for
``k = 10^4, gamma = 1e-12``, 163 MB for ``k = 10^5``); and for ``--method minimax``
``k <= MAX_MINIMAX_K``; with ``--d``, ``t <= MAX_NORM_DEGREE`` (1000): the exact
multivariate norms take ~t^2 rational operations on numbers of ~t log2(k) bits (3 s at
t = 347, minutes beyond 1000).  There is no cap on certification time: on ``{0..k}`` the
certifier screens the points in ball arithmetic and decides the survivors exactly
(:mod:`dpverify.certify.finite`).
"""

from __future__ import annotations

from typing import Any

from ..api import MAX_NORM_DEGREE, boolean_certificate
from ..constructions.chebyshev import MAX_K, MAX_OR_DEGREE, or_degree
from ..constructions.minimax import MAX_MINIMAX_K
from ..errors import InvalidParameterError
from ..numbers import check_open_unit, fmpq_str
from ._cert import outcome, short, statement_rows, timeout_flag
from ._common import (
    CommandResult,
    add_json_flag,
    exact,
    format_table,
    int_flag,
    make_progress,
    progress_flags,
)

__all__ = ["register", "MAX_NORM_DEGREE", "PRELOAD"]

#: What the handler imports on first call (dpverify.api is lazy): the isolating parent
#: imports it before it forks the computing child (dpverify.cli).
PRELOAD = ("dpverify.certify.claims", "dpverify.certify.finite",
           "dpverify.constructions.chebyshev", "dpverify.constructions.multivariate_norm",
           "dpverify.verify.load", "jsonschema")


def register(sub: Any) -> None:
    for name, what in (("or", "OR"), ("and", "AND")):
        p = sub.add_parser(
            name,
            help=f"certified {what} polynomial on integer counts (thaler2012 Fact 4.2)",
            description=(
                f"Build the {what} polynomial of k bits in the count x (Chebyshev canonical "
                "form, or the least-degree minimax polynomial with an optimality "
                "certificate) and certify its exact error on {0..k}."
            ),
        )
        p.add_argument("--k", required=True, type=str, help="number of bits (integer >= 1)")
        p.add_argument("--gamma", required=True, type=str, help="error bound in (0, 1), exact")
        p.add_argument("--method", default="chebyshev", type=str,
                       help="chebyshev (default) or minimax")
        p.add_argument("--d", default=None, type=str,
                       help="number of attributes d for the multivariate norm (integer >= 1)")
        progress_flags(p)
        timeout_flag(p, default=600)
        add_json_flag(p)
        p.set_defaults(handler=_run, which=name)



def _run(args: Any) -> CommandResult:
    k = int_flag(args.k, "--k", 1, MAX_K)
    gamma = check_open_unit(exact(args.gamma, "--gamma"), "--gamma")
    method = args.method.strip()
    if method not in ("chebyshev", "minimax"):
        raise InvalidParameterError(f"--method must be 'chebyshev' or 'minimax', got {method!r}")
    d = None if args.d is None else int_flag(args.d, "--d", 1)
    if method == "minimax" and k > MAX_MINIMAX_K:
        raise InvalidParameterError(f"--k must be <= {MAX_MINIMAX_K} with --method minimax, "
                                    f"got {k}")
    # the flag-level limits, with the flags named (the library names k, gamma and d)
    try:
        t = or_degree(k, gamma)[0]  # exact; refuses degrees above MAX_OR_DEGREE at once
    except InvalidParameterError:
        raise InvalidParameterError(
            f"--k {k} with --gamma {fmpq_str(gamma)} needs a Chebyshev degree t above the "
            f"limit {MAX_OR_DEGREE} (a memory limit: the certificate lists t exact monomial "
            "coefficients of about 2*t*log2(k) bits each)") from None
    if d is not None and t > MAX_NORM_DEGREE:
        raise InvalidParameterError(
            f"--d: the exact multivariate norms of a degree-{t} polynomial would take many "
            f"minutes (~t^2 operations on {t}-coefficient rationals); --d needs t <= "
            f"{MAX_NORM_DEGREE}: raise --gamma or lower --k, or drop --d")
    with make_progress(args, f"dpverify {args.which}") as bar:
        cert = boolean_certificate(args.which, k, gamma, method, d, progress=bar)
    rows = [
        ("function", args.which.upper()),
        ("k", str(k)),
        ("gamma", fmpq_str(gamma)),
        ("method", method),
    ]
    if method == "minimax":
        rows.append(("chebyshev degree", str(cert.info.get("chebyshev_degree"))))
    rows += statement_rows(cert)
    mv = cert.info.get("multivariate")
    if d is not None and mv is not None:
        for key in ("T_full", "T_multilinear"):
            if key in mv:
                rows.append((f"{key} (d={d}, not checked by verify)", short(str(mv[key]))))
    text, code = outcome(cert)
    rows.append(("result", text))
    return CommandResult(data=cert.data, text=format_table(rows), exit_code=code)
