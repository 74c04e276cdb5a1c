"""``dpverify jackson`` and ``dpverify jackson-approx`` (wang2013 Section 4).

* ``jackson --t T (--r R | --K K)``: exact ``2 pi a_l`` of ``H_{t,r} = J_{t',r}``
  (``t' = floor(t/r) + 1``), its degree, and with ``--K`` (``r = ceil((K+3)/2)``) the
  exact multipliers ``w_0..w_t`` of ``I_{t,K}`` on ``cos(n .)``.
* ``jackson-approx --f EXPR --t T --K K [--dim D]``: ``I^D_{t,K} g_f`` as a damped
  Chebyshev series on ``[-1,1]^D`` with a certified enclosure of ``sup |f - p|``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..certify import certify
from ..certify.jackson_kernel import jackson_kernel_certificate
from ..constructions.jackson import (
    MAX_K,
    MAX_R,
    MAX_T,
    jackson_approx,
    jackson_coefficients_2pi,
    jackson_multipliers,
    jackson_r,
)
from ..errors import DomainError, InvalidParameterError
from ..numbers import fmpq_str, fmpq_to_decimal
from ._cert import outcome, read_timeout, statement_rows, timeout_flag
from ._common import (
    CommandResult,
    add_json_flag,
    exact,
    flag_names,
    format_table,
    int_flag,
    make_progress,
    progress_flags,
)

if TYPE_CHECKING:  # annotations only: the CLI start-up imports nothing it does not run
    import argparse

    _Subparsers = argparse._SubParsersAction[argparse.ArgumentParser]

__all__ = ["register", "PRELOAD"]

#: What issuing the certificate imports (the checker's schema): the isolating parent
#: imports it before it forks the computing child (dpverify.cli).
PRELOAD = ("dpverify.verify.load", "jsonschema")


def register(sub: _Subparsers) -> None:
    p = sub.add_parser(
        "jackson",
        help="exact generalized Jackson kernel H_{t,r} and the I_{t,K} multipliers",
        description="Exact 2*pi*a_l (l = 0..deg) of H_{t,r}(s) = a_0 + sum a_l cos(ls), "
        "H_{t,r} = J_{t',r}, t' = floor(t/r)+1, J normalised to integral 1 over [-pi,pi] "
        "(wang2013 Def. 4.1, eq. (1)). With --K: r = ceil((K+3)/2) and the exact "
        "multipliers w_0..w_t with I_{t,K} cos(n.) = w_n cos(n.) (eq. (2)).",
    )
    p.add_argument("--t", required=True, help="degree parameter t >= 1")
    g = p.add_mutually_exclusive_group(required=True)
    g.add_argument("--r", help="kernel power r >= 1")
    g.add_argument("--K", help="smoothness order K >= 0 (r = ceil((K+3)/2))")
    add_json_flag(p)
    p.set_defaults(handler=_run_kernel)

    q = sub.add_parser(
        "jackson-approx",
        help="I^D_{t,K} g_f as a damped Chebyshev series, with a certified error",
        description="The trigonometric approximation I^D_{t,K} g_f of wang2013 written in "
        "x = cos(theta): sum_n prod_i w_{n_i} c_n T_n(x) on [-1,1]^D (c_n the Chebyshev "
        "coefficients of f), with a certified enclosure of sup |f - p| over [-1,1]^D. "
        "Variables x (D=1), x, y (D=2), x, y, z (D=3).",
    )
    q.add_argument("--f", required=True, help='function, e.g. "exp(-(x-0.5)^2/2)"')
    q.add_argument("--t", required=True, help="degree parameter t >= 1")
    q.add_argument("--K", required=True, help="smoothness order K >= 0")
    q.add_argument("--dim", default="1", help="dimension D in {1, 2, 3} (default 1)")
    q.add_argument("--rtol", default="1e-3", help="relative width of the error enclosure")
    q.add_argument("--max-pieces", default="200000", help="certifier work limit")
    timeout_flag(q)
    progress_flags(q)
    add_json_flag(q)
    q.set_defaults(handler=_run_approx)


def _run_kernel(args: argparse.Namespace) -> CommandResult:
    t = int_flag(args.t, "--t", 1, MAX_T)
    if args.K is not None:
        K = int_flag(args.K, "--K", 0, MAX_K)
        r = jackson_r(K)
    else:
        K = None
        r = int_flag(args.r, "--r", 1, MAX_R)
    try:
        coeffs = jackson_coefficients_2pi(t, r)
        mult = jackson_multipliers(t, K) if K is not None else None
    except InvalidParameterError as exc:
        raise InvalidParameterError(f"--t/--r: {exc}") from None
    cert = jackson_kernel_certificate(t, r, K, coeffs, mult)
    st = cert.statement
    rows = [("t, r, t'", f"{t}, {r}, {st['t_prime']}"), ("degree", str(st["degree"]))]
    if K is not None:
        rows.append(("K", str(K)))
    if len(coeffs) <= 24:
        for i, c in enumerate(coeffs):
            rows.append((f"2*pi*a_{i}", fmpq_str(c)))
    if mult is not None and len(mult) <= 24:
        for i, w in enumerate(mult):
            rows.append((f"w_{i}", f"{fmpq_str(w)}  (~{fmpq_to_decimal(w, 8)})"))
    rows.append(("result", "exact (every number is recomputed by dpverify verify)"))
    return CommandResult(data=cert.data, text=format_table(rows), exit_code=0)


def _run_approx(args: argparse.Namespace) -> CommandResult:
    t = int_flag(args.t, "--t", 1, MAX_T)
    K = int_flag(args.K, "--K", 0, MAX_K)
    d = int_flag(args.dim, "--dim", 1, 3)
    rtol = exact(args.rtol, "--rtol")
    if not 0 < rtol < 1:
        raise InvalidParameterError(f"--rtol must be in (0, 1), got {args.rtol}")
    max_pieces = int_flag(args.max_pieces, "--max-pieces", 1, 10_000_000)
    with make_progress(args, "jackson-approx") as progress:
        try:
            with flag_names({"t": "--t", "K": "--K", "dim": "--dim", "f": "--f"}):
                approx = jackson_approx(args.f, t, K, dim=d, name="--f", progress=progress)
        except DomainError as exc:  # f undefined somewhere on the cube
            msg = str(exc)
            raise DomainError(msg if msg.startswith("--") else f"--f: {msg}") from None
        cert = certify(approx, rtol=rtol, max_pieces=max_pieces,
                       timeout=0.9 * read_timeout(args.timeout),
                       progress=progress)
    info = approx.extra["jackson"]
    rows = [
        ("f", approx.target["expr"]),
        ("t, K, r, t', dim", f"{t}, {K}, {info['r']}, {info['t_prime']}, {d}"),
    ]
    dist = info.get("operator_distance")
    series = info.get("chebyshev_series", {})
    if dist is not None:
        dq = exact(dist, "operator_distance")
        rows.append(("distance to I_{t,K} g_f (not checked by verify)",
                     "0 (exact)" if dq == 0 else
                     f"<= {fmpq_to_decimal(dq, 6, 'up')} (rigorous: Chebyshev coefficients "
                     f"by {series.get('enclosure', '?')}, 2^-80 rounding)"))
    else:
        rows.append(("distance to I_{t,K} g_f (not checked by verify)",
                     "not bounded: the printed polynomial approximates I_{t,K} g_f; its "
                     "distance to it is not bounded (no finite enclosure of the Chebyshev "
                     "coefficients of f)"))
    rows += statement_rows(cert)
    rows.append(("relative width", str(cert.info.get("relative_width"))))
    rows.append(("max |coefficient| (Lemma 4.3)",
                 fmpq_to_decimal(exact(info["max_abs_coefficient"], "max"), 12, "up")))
    text, code = outcome(cert, need_convergence=True)
    if dist is None:
        # the certificate is true of the printed polynomial; only its relation to
        # I_{t,K} g_f is unproven, and the output says so
        cert.data["info"]["operator"] = ("the printed polynomial approximates I_{t,K} g_f; "
                                         "its distance to it is not bounded")
        text = (f"{text}; the printed polynomial approximates I_{{t,K}} g_f, its distance "
                "to it is not bounded")
    else:
        cert.data["info"]["operator"] = (f"I_{{t,K}} g_f up to the distance {dist} "
                                         "(rigorous, not checked by verify)")
    rows.append(("result", text))
    return CommandResult(data=cert.data, text=format_table(rows), exit_code=code)
