"""``dpverify or`` / ``dpverify and``: certified OR / AND polynomials (thaler2012 Fact 4.2).

``dpverify or --k K --gamma G [--method chebyshev|minimax] [--d D] [--json]``
``dpverify and ...`` (same flags).  Exit 0 when every claim is proven (and, for
``minimax``, the optimality proof checks), 1 otherwise, 2 on bad input.
"""

from __future__ import annotations

import importlib
from typing import Any

from ..certify import certify
from ..errors import InvalidParameterError
from ..numbers import check_open_unit, fmpq_str, fmpq_to_decimal, parse_fmpq_str
from ._common import CommandResult, add_json_flag, exact, format_table, int_flag

#: Refuse CLI runs whose exact certification would take minutes: the work of certifying a
#: degree-t polynomial with ~t*log2(k) bit coefficients at k+1 points is about
#: (k+1) * t^2 * log2(k+1) bit operations; 2e11 is roughly 10 s on the reference box.
MAX_CLI_WORK = 2 * 10**11

_SHORT = 60


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
        add_json_flag(p)
        p.set_defaults(handler=_run, which=name)



def _short(q_text: str) -> str:
    q = parse_fmpq_str(q_text)
    dec = fmpq_to_decimal(q, 12, "up")
    return q_text if len(q_text) <= _SHORT else f"{dec} (rounded up)"


def _run(args: Any) -> CommandResult:
    from ..constructions.chebyshev import MAX_K, and_polynomial, or_degree, or_polynomial
    from ..constructions.minimax import MAX_MINIMAX_K

    k = int_flag(args.k, "--k", 1, MAX_K)
    gamma = check_open_unit(exact(args.gamma, "--gamma"), "--gamma")
    method = args.method.strip()
    if method not in ("chebyshev", "minimax"):
        raise InvalidParameterError(f"--method must be 'chebyshev' or 'minimax', got {method!r}")
    d = None if args.d is None else int_flag(args.d, "--d", 1)
    if method == "minimax" and k > MAX_MINIMAX_K:
        raise InvalidParameterError(f"--k must be <= {MAX_MINIMAX_K} with --method minimax, "
                                    f"got {k}")
    t, _ = or_degree(k, gamma)
    work = (k + 1) * t * t * max(1, (k + 1).bit_length())
    if work > MAX_CLI_WORK:
        raise InvalidParameterError(
            f"--k {k} with --gamma {fmpq_str(gamma)} needs degree {t}: certifying it exactly at "
            f"{k + 1} points is too costly for the CLI (use the Python API)"
        )
    build = or_polynomial if args.which == "or" else and_polynomial
    approx = build(k, gamma, method)
    cert = certify(approx)
    data = cert.data
    ok = cert.verified
    rows = [
        ("function", args.which.upper()),
        ("k", str(k)),
        ("gamma", fmpq_str(gamma)),
        ("method", method),
        ("degree", str(data["degree"])),
    ]
    if method == "minimax":
        from ..certify.optimality import check

        opt_ok, why = check(data["optimality"], data)
        ok = ok and opt_ok
        rows.append(("chebyshev degree", str(approx.extra.get("chebyshev_degree"))))
        rows.append(("optimality", ("proven: " if opt_ok else "FAILED: ") + why))
    err = data["error"]
    rows.append(("error (exact)" if err.get("exact") else "error (upper)", _short(err["upper"])))
    if err.get("exact"):
        rows.append(("error (decimal)", fmpq_to_decimal(parse_fmpq_str(err["upper"]), 12, "up")))
    norm = data["coefficient_norm"]
    rows.append((f"coefficient norm ({data.get('norm_basis', 'monomial')})", _short(norm)))
    rows.append(("coefficient norm log2", str(data.get("coefficient_norm_log2"))))
    if d is not None:
        mv = _multivariate(approx.poly, d, k)
        if mv is not None:
            data["multivariate"] = mv
            for key in ("T_full", "T_multilinear"):
                if key in mv:
                    rows.append((f"{key} (d={d})", _short(str(mv[key]))))
    rows.append(("verified", "true" if ok else "false"))
    return CommandResult(data=data, text=format_table(rows), exit_code=0 if ok else 1)


def _multivariate(poly: Any, d: int, k: int) -> dict | None:
    """``data["multivariate"]`` from ``dpverify.constructions.multivariate_norm`` if present."""
    try:
        mod = importlib.import_module("dpverify.constructions.multivariate_norm")
    except ModuleNotFoundError as exc:
        if exc.name != "dpverify.constructions.multivariate_norm":
            raise
        # TODO(issue 3, item 4): the multivariate norm module is not written yet; --d is
        # accepted and validated but adds nothing until it exists.
        return None
    fn = getattr(mod, "multivariate_norms", None)
    if fn is None:
        return None
    out = fn(poly, d, row_weight=None)
    return dict(out)
