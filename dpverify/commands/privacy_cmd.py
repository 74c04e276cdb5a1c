"""``dpverify privacy MECHANISM ...``: sensitivity, noise scale and achieved epsilon.

Mechanisms: ``tuv`` (``--d D --k K --gamma G --epsilon E [--delta DL] [--r R]
[--representation full|multilinear] [--universe monotone|doubled] [--method M] [--n N]``),
``wang`` (``--n N --t T --d D --epsilon E [--delta DL] [--grid G]``), ``jin``
(``--n N --d D (--t T | --basis-degree S) --epsilon E [--delta DL] [--psi-k K
[--psi-iters L] [--psi-epsilon E2] [--psi-delta D2]]``) and ``bernstein``
(``[--mode mean|exact|ball|float] (--sensitivity S | --lower A --upper B --n N)
[--e-max E] [--float-error F] --k K [--dim L] --epsilon E [--delta DL] [--grid G]``);
``--json`` on
each.  Adding a mechanism = adding an entry to :data:`MECHANISMS`
(name -> (help, add_arguments, handler)).  Exit 0 when the achieved epsilon is at most the
target (always, for the scales we choose), 2 on bad input.
"""

from __future__ import annotations

from typing import Any

from ..errors import InvalidParameterError
from ..numbers import fmpq_to_decimal
from ._common import (
    CommandResult,
    add_json_flag,
    eps_delta_flags,
    exact,
    flag_names,
    format_table,
    int_flag,
    psi_flags,
)

__all__ = ["register", "MECHANISMS"]


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
    p.add_argument("--no-truncate", dest="truncate", action="store_false", default=True,
                   help="the paper's whole monomial vector (default: monomials on <= k "
                   "variables, as tuv-release)")
    p.add_argument("--beta", default="1/20", type=str,
                   help="failure probability of the accuracy statement (default 1/20)")
    p.add_argument("--alpha", default=None, type=str,
                   help="target certified accuracy: also print the least n reaching it")


def _tuv_run(args: Any) -> CommandResult:
    # deferred: `dpverify --help` imports every command module (CLI start-up)
    from ..mechanisms.tuv import tuv_privacy_report

    with flag_names(_flags("d", "k", "r", "gamma", "epsilon", "delta", "n", "beta", "alpha",
                           "method", "representation", "universe")):
        res = tuv_privacy_report(
            int_flag(args.d, "--d", 1, 10**6), int_flag(args.k, "--k", 1, 10_000),
            exact(args.gamma, "--gamma"),
            exact(args.epsilon, "--epsilon"),
            delta=None if args.delta is None else exact(args.delta, "--delta"),
            r=int_flag(args.r, "--r"), representation=args.representation.strip(),
            universe=args.universe.strip(), method=args.method,
            n=None if args.n is None else int_flag(args.n, "--n"), truncate=args.truncate,
            beta=exact(args.beta, "--beta"),
            alpha=None if args.alpha is None else exact(args.alpha, "--alpha"))
    plan, pol, sens = res["accuracy_plan"], res["polynomial"], res["sensitivity"]
    r, rep, uni = plan["r"], plan["representation"], plan["universe"]
    ach = res["achieved"] or {}
    paper = res.get("paper") or {}
    rows = [
        ("mechanism", f"tuv (r={r}, {rep}, {uni} universe)"),
        ("polynomial", f"{pol['construction']}, degree {pol['degree']}, "
         f"error {pol['error_exact']}"),
        ("L1 sensitivity * n", sens["l1_times_n"]),
        ("Linf sensitivity * n", sens["linf_times_n"]),
        ("noised coordinates K", sens["n_coordinates"]),
        ("route", res["route"]),
        ("scale * n", res["scale_times_n"]),
        ("achieved epsilon", ach.get("epsilon_decimal", "0") + f" (delta {ach.get('delta', 0)})"),
        ("paper box scale * n (Thm 3.1)", paper.get("theorem_3_1_box_scale_times_n", "-")),
        ("epsilon of the box scale", paper.get("theorem_3_1_box_epsilon_decimal", "-")),
        (f"certified alpha(beta = {plan['beta']})", plan["alpha_of_n"]),
    ]
    if "n_needed" in plan:
        rows.append((f"n for alpha <= {plan['alpha']}", str(plan["n_needed"])))
    return CommandResult(data=res, text=format_table(rows), exit_code=0)


def _flags(*names: str) -> dict[str, str]:
    """Library parameter name -> CLI flag (``psi_k`` -> ``--psi-k``), for :func:`flag_names`."""
    return {nm: "--" + nm.replace("_", "-") for nm in names}


def _common_eps(p: Any) -> None:
    p.add_argument("--epsilon", required=True, type=str, help="target epsilon > 0 (exact)")
    p.add_argument("--delta", default=None, type=str, help="target delta in (0,1) (exact)")
    p.add_argument("--grid", default=None, type=str, help="release grid g (exact; default "
                   "chosen by the mechanism)")


def _dlist_args(p: Any) -> None:
    p.add_argument("--m", required=True, type=str, help="number of variables m")
    p.add_argument("--k", required=True, type=str, help="largest decision-list length k")
    p.add_argument("--gamma", required=True, type=str, help="polynomial error gamma in (0,1)")
    p.add_argument("--epsilon", required=True, type=str, help="target epsilon > 0 (exact)")
    p.add_argument("--n", default=None, type=str, help="database size (reports per-n values)")


def _dlist_run(args: Any) -> CommandResult:
    # deferred: `dpverify --help` imports every command module (CLI start-up)
    from ..mechanisms.tuv_dlist import dlist_privacy_report

    m = int_flag(args.m, "--m", minimum=1, maximum=10**6)
    k = int_flag(args.k, "--k", minimum=1, maximum=64)
    with flag_names(_flags("m", "k", "gamma", "epsilon", "n")):
        res = dlist_privacy_report(m, k, exact(args.gamma, "--gamma"),
                                   exact(args.epsilon, "--epsilon"),
                                   None if args.n is None else int_flag(args.n, "--n"))
    sens, paper = res["sensitivity"], res["paper"]
    rows = [
        ("mechanism", f"tuv decision lists (length <= {k}, m = {m} variables)"),
        ("L1 sensitivity * n", sens["l1_times_n"] + ("" if sens["l1_exact"] else
                                                      " (upper bound)")),
        ("noised coordinates K", sens["n_coordinates"]),
        ("scale * n", res["scale_times_n"]),
        ("achieved epsilon", res["achieved"]["epsilon_decimal"]),
        ("paper box scale * n (Thm 3.1)", paper["theorem_3_1_box_scale_times_n"]),
        ("epsilon of the box scale", paper["theorem_3_1_box_epsilon_decimal"]),
    ]
    return CommandResult(data=res, text=format_table(rows), exit_code=0)


def _privacy_rows(name: str, rec: dict) -> str:
    rows = [("mechanism", name)]
    for key in ("per_coordinate", "l1_sensitivity", "noisy_coordinates", "scale",
                "achieved_epsilon", "delta", "used"):
        if key in rec:
            rows.append((key.replace("_", " "), str(rec[key])))
    return format_table(rows)


def _jin_args(p: Any) -> None:
    p.add_argument("--n", required=True, type=str, help="database size n")
    p.add_argument("--d", required=True, type=str, help="dimension d (1..4 for the full "
                   "tensor; up to 1000 with --basis-degree)")
    p.add_argument("--t", default=None, type=str, help="moments per axis t (full tensor)")
    p.add_argument("--basis-degree", dest="basis_degree", default=None, type=str,
                   help="basis subset: all moments of total degree <= S")
    _common_eps(p)
    psi_flags(p)


def _jin_dec(s: str) -> str:
    return fmpq_to_decimal(exact(s, "epsilon"), 10, rounding="up")


def _jin_run(args: Any) -> CommandResult:
    # deferred: `dpverify --help` imports every command module (CLI start-up)
    from ..mechanisms.jin_accounting import jin_privacy_report

    if (args.t is None) == (args.basis_degree is None):
        raise InvalidParameterError("give exactly one of --t (full tensor) or --basis-degree")
    if args.psi_k is not None and args.psi_epsilon is None:
        raise InvalidParameterError("--psi-epsilon is required with --psi-k")
    psi: dict[str, Any] = {}
    if args.psi_k is not None:  # without --psi-k the PSI flags are not used
        psi = {"psi_k": int_flag(args.psi_k, "--psi-k"),
               "psi_iters": int_flag(args.psi_iters, "--psi-iters"),
               "psi_epsilon": exact(args.psi_epsilon, "--psi-epsilon"),
               "psi_delta": None if args.psi_delta is None else exact(args.psi_delta,
                                                                      "--psi-delta")}
    with flag_names(_flags("n", "d", "t", "basis_degree", "epsilon", "delta", "grid",
                           "psi_k", "psi_iters", "psi_epsilon", "psi_delta")):
        rep = jin_privacy_report(
            int_flag(args.n, "--n"), int_flag(args.d, "--d"), exact(args.epsilon, "--epsilon"),
            delta=None if args.delta is None else exact(args.delta, "--delta"),
            t=None if args.t is None else int_flag(args.t, "--t"),
            basis_degree=None if args.basis_degree is None else int_flag(
                args.basis_degree, "--basis-degree"),
            grid=None if args.grid is None else exact(args.grid, "--grid"), **psi)
    mom = rep["moments"]
    pp = mom["paper"]
    rows: list[tuple[str, str]] = [("mechanism", "jin synthetic database (jin Alg. 1)")]
    if rep["variant"] == "tensor":
        M = rep["t"] ** rep["d"]
        rows += [("moments", f"full tensor, t^d - 1 = {M - 1} noisy"),
                 ("moment L1 sensitivity (no grid)",
                  f"2(t^d-1)/n = {rep['moment_sensitivity_l1']}"),
                 ("L1 sensitivity (with grid)", mom["l1_sensitivity"]),
                 ("noise scale", mom["scale"]),
                 ("achieved epsilon", mom["achieved_epsilon"]),
                 ("jin step 9 scale t^d/(n eps)", pp["wang2013_algorithm1_scale"]),
                 ("  achieves epsilon <=", pp["wang2013_achieved_epsilon_upper"]),
                 ("  achieves epsilon >=", pp["wang2013_achieved_epsilon_lower"])]
        if "jin_delta_scale" in pp:
            rows += [("jin (eps,delta) scale", pp["jin_delta_scale"]),
                     ("  achieves (adv. comp.)", pp["jin_achieved_epsilon_advanced_composition"])]
    else:
        R = rep["basis_size"]
        rows += [("moments", f"basis subset ||r||_1 <= {rep['basis_degree']}: |R| - 1 = "
                  f"{R - 1} noisy"),
                 ("moment L1 sensitivity (no grid)",
                  f"2(|R|-1)/n = {rep['moment_sensitivity_l1']}"),
                 ("L1 sensitivity (with grid)", mom["l1_sensitivity"]),
                 ("noise scale", mom["scale"]),
                 ("achieved epsilon", mom["achieved_epsilon"]),
                 ("jin step 9 pattern |R|/(n eps)", pp["jin_step9_pattern_scale"]),
                 ("  achieves epsilon", _jin_dec(pp["jin_step9_pattern_achieved_epsilon"]))]
    data: dict[str, Any] = {"moments": mom}
    if "psi" in rep:
        ps, pk = rep["psi"], rep["psi_parameters"]
        data["psi"] = ps
        pap = ps["paper"]
        pd = psi["psi_delta"]
        rows += [("PSI target", f"epsilon {_jin_dec(str(psi['psi_epsilon']))}, delta "
                  f"{pd or 0}, k = {pk['k']}, L = {pk['iterations']}"),
                 ("PSI spectral/Frobenius sens. of A", ps["covariance_sensitivity"]["spectral"]),
                 ("  jin Lemma A.4 (5d/n)", ps["covariance_sensitivity"]["jin_lemma_A4"])]
        if pd is not None:
            g = pap["gaussian"]
            rows += [("PSI L2 sensitivity of AX / step", ps["l2_sensitivity_per_step"]),
                     ("PSI sigma (derived)", f"{ps['sigma_approx']:.6g}"),
                     ("PSI achieved epsilon", _jin_dec(ps["achieved_epsilon"])),
                     ("jin Thm 3.6 Gaussian sigma", g["printed_sigma"]),
                     ("  achieves eps (||X||_inf = 1)", g["epsilon_multiplier_1"]),
                     ("  achieves eps (||X||_inf = d^-1/2)", g["epsilon_multiplier_worst"])]
        else:
            lp = pap["laplace"]
            rows += [("PSI L1 sensitivity of AX / step", ps["l1_sensitivity_per_step"]),
                     ("PSI Laplace scale (derived)", f"{ps['scale_approx']:.6g}"),
                     ("PSI achieved epsilon", _jin_dec(ps["achieved_epsilon"])),
                     ("jin Thm 3.6 Laplace sigma", lp["printed_sigma"]),
                     ("  achieves eps (||X||_inf = 1)", lp["epsilon_multiplier_1"]),
                     ("  achieves eps (||X||_inf = d^-1/2)", lp["epsilon_multiplier_worst"])]
        tot = rep["total"]
        data["total"] = tot
        rows.append(("total (basic composition)", f"eps {tot['epsilon_decimal_up']}, "
                     f"delta {tot['delta']}"))
    return CommandResult(data=data, text=format_table(rows))


def _wang_args(p: Any) -> None:
    p.add_argument("--n", required=True, type=str, help="database size n")
    p.add_argument("--t", required=True, type=str, help="moments per axis t")
    p.add_argument("--d", required=True, type=str, help="dimension d (1..4)")
    _common_eps(p)


def _wang_run(args: Any) -> CommandResult:
    # deferred: `dpverify --help` imports every command module (CLI start-up)
    from ..mechanisms.wang_summary import wang_privacy

    eps, delta = eps_delta_flags(args)
    rec, _ = wang_privacy(int_flag(args.n, "--n", 1, 2**40), int_flag(args.t, "--t", 1),
                          int_flag(args.d, "--d", 1, 4), eps, delta,
                          None if args.grid is None else exact(args.grid, "--grid"))
    return CommandResult(data=rec, text=_privacy_rows("wang summary (wang2013 Alg. 1)", rec))


def _bernstein_args(p: Any) -> None:
    p.add_argument("--mode", default="ball", type=str,
                   help="evaluation mode: mean (needs --lower --upper --n), exact, ball "
                   "(--e-max, default grid/2) or float (--float-error)")
    p.add_argument("--sensitivity", default=None, type=str,
                   help="S(F) of one lattice value (exact, for this n); exact/ball/float")
    p.add_argument("--lower", default=None, type=str, help="mean mode: declared lower end of phi")
    p.add_argument("--upper", default=None, type=str, help="mean mode: declared upper end of phi")
    p.add_argument("--n", default=None, type=str, help="mean mode: number of rows n")
    p.add_argument("--e-max", dest="e_max", default=None, type=str,
                   help="ball mode: public radius budget (default grid/2)")
    p.add_argument("--float-error", dest="float_error", default=None, type=str,
                   help="float mode: declared float evaluation error (an assumption)")
    p.add_argument("--k", required=True, type=str, help="lattice resolution k")
    p.add_argument("--dim", default="1", type=str, help="dimension l (1..4)")
    _common_eps(p)


def _bernstein_run(args: Any) -> CommandResult:
    # deferred: `dpverify --help` imports every command module (CLI start-up)
    from ..mechanisms.bernstein_accounting import bernstein_privacy

    eps, delta = eps_delta_flags(args)
    opt = {name: None if getattr(args, name) is None else exact(getattr(args, name), flag)
           for name, flag in (("grid", "--grid"), ("sensitivity", "--sensitivity"),
                              ("lower", "--lower"), ("upper", "--upper"),
                              ("e_max", "--e-max"), ("float_error", "--float-error"))}
    n = None if args.n is None else int_flag(args.n, "--n", 1, 2**62)
    with flag_names({"k": "--k", "dim": "--dim", "mode": "--mode", "n": "--n",
                     "grid": "--grid", "sensitivity": "--sensitivity", "lower": "--lower",
                     "upper": "--upper", "float_error": "--float-error"}):
        rec = bernstein_privacy(int_flag(args.k, "--k", 1, 10_000),
                                int_flag(args.dim, "--dim", 1, 4), eps, delta,
                                mode=args.mode, n=n, **opt)
    return CommandResult(data=rec, text=_privacy_rows("bernstein (alda2017 Alg. 1)", rec))


#: name -> (help, add_arguments(parser), handler(args) -> CommandResult)
MECHANISMS: dict[str, tuple[str, Any, Any]] = {
    "tuv": ("thaler2012 polynomial release (Theorems 3.1/3.2)", _tuv_args, _tuv_run),
    "dlist": ("thaler2012 decision-list release (Theorem 1.3)", _dlist_args, _dlist_run),
    "wang": ("wang2013 smooth-query summary (Algorithm 1)", _wang_args, _wang_run),
    "jin": ("jin synthetic database: moments (Alg. 1 / basis subset) and PSI (Alg. 2)",
            _jin_args, _jin_run),
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
