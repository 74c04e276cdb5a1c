"""``dpverify dlist``: certified h_k of thaler2012 Appendix A (decision lists).

``dpverify dlist --k K --gamma G [--method chebyshev|minimax] [--json]`` certifies
``h_k(z) = 1 - g_k(k - z)`` (``g_k`` the OR polynomial for gamma/k) against
``EXACT_k = 1[z = k]`` on ``{0..k}`` with the claim ``gamma/k``; the certificate's
coefficients are h_k's (monomial basis in z).  Exit 0 if verified, 1 if not, 2 on bad input.
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
PRELOAD = ("dpverify.certify.finite", "dpverify.constructions.decision_lists",
           "dpverify.verify.load", "jsonschema")


def register(sub: Any) -> None:
    p = sub.add_parser(
        "dlist",
        help="certified h_k for decision lists (thaler2012 Lemma 4.9, Appendix A)",
        description=(
            "Build h_k(z) = 1 - g_k(k - z), g_k the OR polynomial for gamma/k, and certify "
            "|h_k(z) - 1[z = k]| <= gamma/k on z in {0..k} exactly.  A length-k decision "
            "list is then approximated to gamma by sum_i b_i h_k(arg_i(y)) "
            "(per-term argument: each arg_i is an integer in [k - i, k])."
        ),
    )
    p.add_argument("--k", required=True, type=str, help="decision-list length k (integer >= 1)")
    p.add_argument("--gamma", required=True, type=str, help="total error bound in (0, 1), exact")
    p.add_argument("--method", default="chebyshev", type=str,
                   help="how g_k is built: chebyshev (default) or minimax")
    progress_flags(p)
    timeout_flag(p, default=600)
    add_json_flag(p)
    p.set_defaults(handler=_run)


def _run(args: Any) -> CommandResult:
    # deferred: `dpverify --help` imports every command module (CLI start-up)
    from ..constructions.decision_lists import h_polynomial

    k = int_flag(args.k, "--k", 1, MAX_DEGREE)
    gamma = check_open_unit(exact(args.gamma, "--gamma"), "--gamma")
    method = args.method.strip()
    if method not in ("chebyshev", "minimax"):
        raise InvalidParameterError(f"--method must be 'chebyshev' or 'minimax', got {method!r}")
    with make_progress(args, "dpverify dlist") as bar:
        bar(f"construction ({method})", 0, None)
        approx = h_polynomial(k, gamma, method=method, progress=bar)
        cert = certify(approx, progress=bar)
    rows = [
        ("construction", approx.construction),
        ("k", str(k)),
        ("gamma (total), gamma/k (h_k)", f"{args.gamma}, {approx.claims['max_error']}"),
    ]
    rows += statement_rows(cert, "|h_k - EXACT_k| on 0..k")
    text, code = outcome(cert)
    rows.append(("result", text))
    return CommandResult(data=cert.data, text=format_table(rows), exit_code=code)
