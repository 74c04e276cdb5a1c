"""``dpverify bernstein`` and ``dpverify bernstein-approx`` (alda2017 iterated Bernstein).

* ``bernstein --k K --h H``: the exact iterated basis ``b^{(h)}_{nu,k}`` in Bernstein
  coordinates (``basis[nu][mu]`` = coefficient of ``b^{(h)}_{nu,k}`` on ``b_{mu,k}``)
  and the certified Lebesgue-type constant ``Lambda_{k,h}`` next to the paper's bound
  ``2^h - 1`` (alda2017 Proposition 11).
* ``bernstein-approx --f EXPR --k K --h H [--dim D]``: ``B_k^{(h)} f`` on ``[0,1]^D``
  with a certified enclosure of ``sup |f - B_k^{(h)} f|`` (the lead's interval
  certifier) and the lattice information.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..certify import certify
from ..certify.lebesgue import lebesgue_certificate, lebesgue_constant
from ..constructions.bernstein import MAX_H, MAX_K, bernstein_approx, iterated_bernstein_basis
from ..errors import InvalidParameterError
from ..numbers import fmpq_str, fmpq_to_decimal
from ._cert import outcome, read_timeout, statement_rows, timeout_flag
from ._common import (
    CommandResult,
    add_json_flag,
    exact,
    format_table,
    int_flag,
    make_progress,
    progress_flags,
)

if TYPE_CHECKING:  # annotations only: the CLI start-up imports nothing it does not run
    import argparse

    from flint import fmpq

    _Subparsers = argparse._SubParsersAction[argparse.ArgumentParser]

__all__ = ["register", "PRELOAD"]

#: What issuing the certificate imports (the checker's schema): the isolating parent
#: imports it before it forks the computing child (dpverify.cli).
PRELOAD = ("dpverify.verify.load", "jsonschema")


def register(sub: _Subparsers) -> None:
    p = sub.add_parser(
        "bernstein",
        help="exact iterated Bernstein basis + certified Lebesgue constant",
        description="Exact iterated Bernstein basis b^(h)_{nu,k} (alda2017 Def. 8) in "
        "Bernstein coordinates: basis[nu][mu] is the coefficient of b^(h)_{nu,k} on "
        "b_{mu,k}; and a certified enclosure of Lambda_{k,h} = max_[0,1] sum_nu "
        "|b^(h)_{nu,k}| next to the paper's bound 2^h - 1.",
    )
    p.add_argument("--k", required=True, help="order k >= 1 (lattice 0, 1/k, ..., 1)")
    p.add_argument("--h", required=True, help="iteration order h >= 1")
    p.add_argument("--rtol", default="1e-6", help="relative width of Lambda (default 1e-6)")
    p.add_argument("--no-basis", action="store_true",
                   help="omit the (k+1)^2 basis entries from the output")
    timeout_flag(p)
    add_json_flag(p)
    p.set_defaults(handler=_run_basis)

    q = sub.add_parser(
        "bernstein-approx",
        help="iterated Bernstein approximation of f with a certified error",
        description="B_k^(h) f on [0,1]^D from the lattice values f(nu/k) (exact where f "
        "is exactly computable at rationals, else rounded to the 2^-200 grid), with a "
        "certified enclosure of sup |f - B_k^(h) f| over [0,1]^D. Variables x (D=1), "
        "x, y (D=2), x, y, z (D=3).",
    )
    q.add_argument("--f", required=True, help='function, e.g. "abs(x-1/2)^0.5"')
    q.add_argument("--k", required=True, help="order k >= 1 (per axis)")
    q.add_argument("--h", required=True, help="iteration order h >= 1")
    q.add_argument("--dim", default="1", help="dimension D in {1, 2, 3} (default 1)")
    q.add_argument("--rtol", default=None,
                   help="relative width of the error enclosure (default 1e-6 for D=1, 1e-2 for "
                   "D>=2: the box certifier converges only linearly in D>=2)")
    q.add_argument("--max-pieces", default="200000", help="certifier work limit")
    timeout_flag(q)
    progress_flags(q)
    add_json_flag(q)
    q.set_defaults(handler=_run_approx)


def _rtol(text: str) -> fmpq:
    r = exact(text, "--rtol")
    if not 0 < r < 1:
        raise InvalidParameterError(f"--rtol must be in (0, 1), got {text}")
    return r


def _run_basis(args: argparse.Namespace) -> CommandResult:
    k = int_flag(args.k, "--k", 1, MAX_K)
    h = int_flag(args.h, "--h", 1, MAX_H)
    rtol = _rtol(args.rtol)
    try:
        basis = iterated_bernstein_basis(k, h)
    except InvalidParameterError as exc:
        raise InvalidParameterError(f"--k/--h: {exc}") from None
    lam = lebesgue_constant(k, h, rtol=rtol)
    cert = lebesgue_certificate(lam, None if args.no_basis else basis.basis)
    rows = [
        ("k, h", f"{k}, {h}"),
        ("degree", str(basis.degree)),
        ("Lambda_{k,h} >=", fmpq_to_decimal(lam.lower, 17, "down")),
        ("Lambda_{k,h} <=", fmpq_to_decimal(lam.upper, 17, "up")),
        ("paper bound 2^h - 1", str(2**h - 1)),
        ("relative width", fmpq_to_decimal(lam.rel_width, 3, "up") if h > 1 else "0"),
        ("pieces", str(lam.pieces)),
    ]
    if k <= 6 and not args.no_basis:
        for nu, row in enumerate(basis.basis):
            rows.append((f"b^({h})_{nu},{k}", "[" + ", ".join(fmpq_str(c) for c in row) + "]"))
    rows.append(("result", "certified"))
    return CommandResult(data=cert.data, text=format_table(rows), exit_code=0)


def _run_approx(args: argparse.Namespace) -> CommandResult:
    k = int_flag(args.k, "--k", 1, MAX_K)
    h = int_flag(args.h, "--h", 1, MAX_H)
    d = int_flag(args.dim, "--dim", 1, 3)
    rtol = _rtol(args.rtol if args.rtol is not None else ("1e-6" if d == 1 else "1e-2"))
    max_pieces = int_flag(args.max_pieces, "--max-pieces", 1, 10_000_000)
    with make_progress(args, "bernstein-approx") as progress:
        approx = bernstein_approx(args.f, k, h, dim=d, name="--f", progress=progress)
        cert = certify(approx, rtol=rtol, max_pieces=max_pieces,
                       timeout=0.9 * read_timeout(args.timeout),
                       progress=progress)
    info = approx.extra["bernstein"]
    rows = [
        ("f", approx.target["expr"]),
        ("k, h, dim", f"{k}, {h}, {d}"),
        ("lattice points", f"{info['points']} ({info['exact_points']} exact, "
                           f"{info['rounded_points']} rounded to 2^-200)"),
    ]
    rows += statement_rows(cert, "|f - B f|")
    rows.append(("relative width", str(cert.info.get("relative_width"))))
    text, code = outcome(cert, need_convergence=True)
    rows.append(("result", text))
    return CommandResult(data=cert.data, text=format_table(rows), exit_code=code)
