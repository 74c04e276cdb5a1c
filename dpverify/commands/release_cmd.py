"""``dpverify release-size``: database size for thaler2012's polynomial release (Thm 3.1/3.2).

``dpverify release-size --d D --class disjunction|rofk|dlist --k K [--r R] --epsilon E
--alpha A --beta B [--delta DL] [--gamma G | --gammas G1,G2,...]
[--representation full|multilinear] [--method M] [--timeout S] [--json]``.
Exit 0 when at least one gamma gives a certified polynomial (the best n is reported), 1 when
none does or the time limit (default 600 s) is reached, 2 on bad input.
"""

from __future__ import annotations

from typing import Any

from ..errors import InvalidParameterError
from ..numbers import MAX_DEGREE
from ._cert import timeout_flag
from ._common import (
    CommandResult,
    add_json_flag,
    eps_delta_flags,
    exact,
    format_table,
    int_flag,
    make_progress,
    progress_flags,
)
from ._data import RELEASE_TIMEOUT

__all__ = ["register"]


def register(sub: Any) -> None:
    p = sub.add_parser(
        "release-size",
        help="database size n for an (alpha, beta)-accurate polynomial release "
        "(thaler2012 Theorems 3.1/3.2)",
        description=(
            "For the query class (monotone k-way disjunctions, monotone r-of-k, length-k "
            "decision lists) build and certify the approximating polynomial for each gamma, "
            "compute its exact norms T (max |coefficient|) and L1 in the chosen "
            "representation, the number K of released coefficients, the exact sensitivity "
            "(one row replaced), the Laplace noise scale, and the database size n that makes "
            "the release (alpha, beta)-accurate (rigorous, rounded up); report the gamma "
            "minimising n and the paper's own formula for comparison.  Without --gamma a "
            "default grid alpha*{1/1000, 1/100, 1/20, 1/10, ..., 9/10} is searched.  "
            "--delta switches to (epsilon, delta)-DP (Theorem 3.2 / Lemma 2.4).  For "
            "--class dlist, --d is the number m of query variables."
        ),
    )
    p.add_argument("--d", required=True, type=str, help="dimension d (dlist: m), integer >= k")
    p.add_argument("--class", dest="qclass", required=True, type=str,
                   help="disjunction, rofk or dlist")
    p.add_argument("--k", required=True, type=str, help="k (integer >= 1)")
    p.add_argument("--r", default=None, type=str, help="r for --class rofk (1 <= r <= k)")
    p.add_argument("--epsilon", required=True, type=str, help="privacy epsilon > 0, exact")
    p.add_argument("--delta", default=None, type=str, help="privacy delta in (0, 1), exact")
    p.add_argument("--alpha", required=True, type=str, help="target accuracy alpha in (0, 1]")
    p.add_argument("--beta", required=True, type=str, help="failure probability in (0, 1)")
    p.add_argument("--gamma", default=None, type=str, help="evaluate only this gamma < alpha")
    p.add_argument("--gammas", default=None, type=str,
                   help="comma-separated gammas to search (each < alpha)")
    p.add_argument("--representation", default="full", type=str, help="full or multilinear")
    p.add_argument("--method", default=None, type=str,
                   help="chebyshev|minimax (disjunction, dlist), sherstov|minimax (rofk)")
    progress_flags(p)
    add_json_flag(p)
    # certifying a polynomial per gamma can be long: the limit of every release command
    timeout_flag(p, default=RELEASE_TIMEOUT)
    p.set_defaults(handler=_run)



def _flagged(fn, *a, **kw):
    """Re-raise parameter errors with the CLI flag names."""
    try:
        return fn(*a, **kw)
    except InvalidParameterError as exc:
        msg = str(exc)
        for name in ("query_class", "representation", "epsilon", "alpha", "beta", "delta",
                     "gammas", "gamma", "method", "d", "k", "r"):
            if msg.startswith(name + " ") or msg.startswith(name + "["):
                flag = "--class" if name == "query_class" else f"--{name}"
                raise InvalidParameterError(flag + msg[len(name):]) from None
        raise


def _release_size(release_size: Any, args: Any, d: int, k: int, r: int | None, eps: Any,
                  delta: Any, gammas: Any, progress: Any) -> dict[str, Any]:
    return _flagged(
        release_size,
        d,
        args.qclass.strip(),
        k,
        eps,
        exact(args.alpha, "--alpha"),
        exact(args.beta, "--beta"),
        gamma=None if args.gamma is None else exact(args.gamma, "--gamma"),
        gammas=gammas,
        r=r,
        delta=delta,
        representation=args.representation.strip(),
        method=None if args.method is None else args.method.strip(),
        progress=progress,
    )


def _run(args: Any) -> CommandResult:
    # deferred: `dpverify --help` imports every command module (CLI start-up)
    from ..mechanisms.release_size import release_size

    d = int_flag(args.d, "--d")
    k = int_flag(args.k, "--k")
    if k < 1:
        raise InvalidParameterError(f"--k must be >= 1, got {k}")
    if k > MAX_DEGREE:
        raise InvalidParameterError(f"--k must be <= {MAX_DEGREE}, got {k}")
    r = None if args.r is None else int_flag(args.r, "--r")
    gammas = None
    if args.gammas is not None:
        parts = [s for s in args.gammas.split(",")]
        gammas = [exact(s, f"--gammas[{i}]") for i, s in enumerate(parts)]
    # the documented epsilon/delta ranges, checked before any work (release_size checks
    # only positivity; the range checks are dpverify.noise.check_epsilon / check_delta)
    eps, delta = eps_delta_flags(args)
    with make_progress(args, "dpverify release-size") as bar:
        res = _release_size(release_size, args, d, k, r, eps, delta, gammas, bar)
    best = res["best"]
    rows = [
        ("class", res["query_class"] + (f" (r={r})" if r is not None else "")),
        ("d, k", f"{d}, {k}"),
        ("privacy", res["privacy"]),
        ("representation", res["representation"]),
        ("candidates (gamma: n)", "; ".join(
            f"{c['gamma']}: {c['n'] if c.get('n') else 'not certified'}"
            for c in res["candidates"])),
    ]
    if best is not None:
        rows += [
            ("best gamma", best["gamma"]),
            ("degree", str(best["degree"])),
            ("T (max |coef|), log2", f"{best['T_log2']}"),
            ("coefficients K", best["n_coefficients"]),
            ("noise scale * n", best["noise_scale_times_n"]),
            ("n (ours)", best["n"]),
            ("n (paper formula)", best["paper"]["n"]),
        ]
    return CommandResult(data=res, text=format_table(rows), exit_code=0 if best else 1)
