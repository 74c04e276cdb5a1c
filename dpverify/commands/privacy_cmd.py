"""``dpverify privacy MECHANISM ...``: sensitivity, noise scale and achieved epsilon.

Mechanisms: ``tuv`` (``--d D --k K --gamma G --epsilon E [--delta DL] [--r R]
[--representation full|multilinear] [--universe monotone|doubled] [--method M] [--n N]``),
``wang`` (``--n N --t T --d D --epsilon E [--delta DL] [--grid G]``) and ``bernstein``
(``--sensitivity S --k K [--dim L] --epsilon E [--delta DL] [--grid G]``); ``--json`` on
each.  Adding a mechanism = adding an entry to :data:`MECHANISMS`
(name -> (help, add_arguments, handler)).  Exit 0 when the achieved epsilon is at most the
target (always, for the scales we choose), 2 on bad input.
"""

from __future__ import annotations

from typing import Any

from ..errors import InvalidParameterError
from ._common import CommandResult, add_json_flag, eps_delta_flags, exact, format_table, int_flag


def _tuv_args(p: Any) -> None:
    p.add_argument("--d", required=True, type=str, help="number of attributes d")
    p.add_argument("--k", required=True, type=str, help="largest query size k")
    p.add_argument("--gamma", required=True, type=str, help="polynomial error gamma in (0,1)")
    p.add_argument("--epsilon", required=True, type=str, help="target epsilon > 0 (exact)")
    p.add_argument("--delta", default=None, type=str, help="target delta in (0,1) (exact)")
    p.add_argument("--r", default="1", type=str, help="threshold r (1: disjunctions)")
    p.add_argument("--representation", default="multilinear", type=str,
                   help="full (the paper's monomial vector) or multilinear")
    p.add_argument("--universe", default="monotone", type=str,
                   help="monotone (d variables) or doubled (2d literals)")
    p.add_argument("--method", default=None, type=str, help="construction method of g")
    p.add_argument("--n", default=None, type=str, help="database size (reports per-n values)")


def _tuv_run(args: Any) -> CommandResult:
    from ..mechanisms.privacy import tuv_privacy
    from ..mechanisms.tuv import tuv_polynomial
    from ..numbers import check_open_unit

    d = int_flag(args.d, "--d", minimum=1, maximum=10**6)
    k = int_flag(args.k, "--k", minimum=1, maximum=10_000)
    r = int_flag(args.r, "--r", minimum=1, maximum=k)
    gamma = check_open_unit(exact(args.gamma, "--gamma"), "--gamma")
    eps, delta = eps_delta_flags(args)
    rep = args.representation.strip()
    uni = args.universe.strip()
    if rep not in ("full", "multilinear"):
        raise InvalidParameterError(f"--representation must be full or multilinear, got {rep!r}")
    if uni not in ("monotone", "doubled"):
        raise InvalidParameterError(f"--universe must be monotone or doubled, got {uni!r}")
    if k > (d if uni == "monotone" else 2 * d):
        raise InvalidParameterError(f"--k must be <= the number of variables, got {k}")
    n = None if args.n is None else int_flag(args.n, "--n", minimum=1)
    approx, cert = tuv_polynomial(k, gamma, r, args.method)
    cs = list(approx.poly.to_monomial().coeffs)
    res = tuv_privacy(cs, d, k, eps, n=n, delta=delta, representation=rep, universe=uni)
    res["polynomial"] = {"construction": approx.construction, "degree": approx.poly.degree,
                         "error_exact": cert.data["error"]["upper"], "certified": cert.verified}
    ach = res["achieved"] or {}
    paper = res.get("paper") or {}
    rows = [
        ("mechanism", f"tuv (r={r}, {rep}, {uni} universe)"),
        ("polynomial", f"{approx.construction}, degree {approx.poly.degree}, "
         f"error {cert.data['error']['upper']}"),
        ("L1 sensitivity * n", res["sensitivity"]["l1_times_n"]),
        ("Linf sensitivity * n", res["sensitivity"]["linf_times_n"]),
        ("noised coordinates K", res["sensitivity"]["n_coordinates"]),
        ("route", res["route"]),
        ("scale * n", res["scale_times_n"]),
        ("achieved epsilon", ach.get("epsilon_decimal", "0") + f" (delta {ach.get('delta', 0)})"),
        ("paper box scale * n (Thm 3.1)", paper.get("theorem_3_1_box_scale_times_n", "-")),
        ("epsilon of the box scale", paper.get("theorem_3_1_box_epsilon_decimal", "-")),
    ]
    return CommandResult(data=res, text=format_table(rows), exit_code=0)


def _common_eps(p: Any) -> None:
    p.add_argument("--epsilon", required=True, type=str, help="target epsilon > 0 (exact)")
    p.add_argument("--delta", default=None, type=str, help="target delta in (0,1) (exact)")
    p.add_argument("--grid", default=None, type=str, help="release grid g (exact; default "
                   "chosen by the mechanism)")




def _privacy_rows(name: str, rec: dict) -> str:
    rows = [("mechanism", name)]
    for key in ("per_coordinate", "l1_sensitivity", "noisy_coordinates", "scale",
                "achieved_epsilon", "delta", "used"):
        if key in rec:
            rows.append((key.replace("_", " "), str(rec[key])))
    return format_table(rows)


def _wang_args(p: Any) -> None:
    p.add_argument("--n", required=True, type=str, help="database size n")
    p.add_argument("--t", required=True, type=str, help="moments per axis t")
    p.add_argument("--d", required=True, type=str, help="dimension d (1..4)")
    _common_eps(p)


def _wang_run(args: Any) -> CommandResult:
    from ..mechanisms.wang_summary import wang_privacy

    eps, delta = eps_delta_flags(args)
    rec, _ = wang_privacy(int_flag(args.n, "--n", 1, 2**40), int_flag(args.t, "--t", 1),
                          int_flag(args.d, "--d", 1, 4), eps, delta,
                          None if args.grid is None else exact(args.grid, "--grid"))
    return CommandResult(data=rec, text=_privacy_rows("wang summary (wang2013 Alg. 1)", rec))


def _bernstein_args(p: Any) -> None:
    p.add_argument("--sensitivity", required=True, type=str,
                   help="sensitivity S(F) of one lattice value (exact, for this n)")
    p.add_argument("--k", required=True, type=str, help="lattice resolution k")
    p.add_argument("--dim", default="1", type=str, help="dimension l (1..4)")
    _common_eps(p)


def _bernstein_run(args: Any) -> CommandResult:
    from ..mechanisms.bernstein_mech import DEFAULT_GRID, calibrate_laplace, lattice_sensitivity

    eps, delta = eps_delta_flags(args)
    g = DEFAULT_GRID if args.grid is None else exact(args.grid, "--grid")
    k, dim = int_flag(args.k, "--k", 1, 10_000), int_flag(args.dim, "--dim", 1, 4)
    sens = lattice_sensitivity(exact(args.sensitivity, "--sensitivity"), k, dim, g)
    _, fields = calibrate_laplace(exact(sens["per_coordinate"], "per"), sens["points"], eps,
                                  delta)
    rec = {"neighbouring": "same n, one row replaced", "lattice_sensitivity": sens,
           "per_coordinate": sens["per_coordinate"], "l1_sensitivity": sens["l1"],
           "noisy_coordinates": sens["points"], **fields}
    return CommandResult(data=rec, text=_privacy_rows("bernstein (alda2017 Alg. 1)", rec))


#: name -> (help, add_arguments(parser), handler(args) -> CommandResult)
MECHANISMS: dict[str, tuple[str, Any, Any]] = {
    "tuv": ("thaler2012 polynomial release (Theorems 3.1/3.2)", _tuv_args, _tuv_run),
    "wang": ("wang2013 smooth-query summary (Algorithm 1)", _wang_args, _wang_run),
    "bernstein": ("alda2017 Bernstein mechanism (Algorithm 1, Theorem 7)", _bernstein_args,
                  _bernstein_run),
}


def register(sub: Any) -> None:
    p = sub.add_parser(
        "privacy",
        help="privacy certificate of a mechanism: sensitivity, noise scale, achieved epsilon",
        description="Exact sensitivity (neighbouring: same n, one row replaced), the noise "
        "scale the mechanism uses, and the epsilon (delta) it achieves; printed paper "
        "scales are compared with what they actually give.",
    )
    msub = p.add_subparsers(dest="mechanism", metavar="MECHANISM", parser_class=type(p))
    for name, (hlp, add_args, handler) in MECHANISMS.items():
        mp = msub.add_parser(name, help=hlp, description=hlp)
        add_args(mp)
        add_json_flag(mp)
        mp.set_defaults(handler=handler)
