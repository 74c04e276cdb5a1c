"""``dpverify release`` / ``dpverify answer``: Bernstein mechanism and Wang summary.

``dpverify release bernstein --data SOURCE (--function
kde|linear-mean|priestley-chao|naive-bayes|logistic | --query-expr EXPR [--query-domain
"LO,HI;..."] [--query-format binary64|binary32]) [--bandwidth B] [--label-bound B]
[--gap C] [--lambda LAM] [--label-column J] [--label-encoding pm1|01] [--e-max E]
--k K --h H --epsilon E [--delta D] [--beta BETA] [--insecure-seed S] [--no-check]
--out summary.json`` (alda2017 Algorithm 1; KDE/linear-mean: every CSV column is a
coordinate in [0, 1]; Priestley-Chao: columns ``d, label``; naive-bayes / logistic: the
label column (default last) and l <= 4 feature columns).

``dpverify release wang-summary --data SOURCE --t T [--K K] --epsilon E [--delta D]
[--insecure-seed S] --out s.json`` (wang2013 Algorithm 1; columns in [-1, 1], d <= 4).

``dpverify release jin-synthetic --data SOURCE --t T --N N [--m M] [--grid-subset C]
--epsilon E [--delta D] --out syn.json`` (jin Algorithm 1; LP needs scipy); practical
variant: ``--basis-degree S | --basis-size R`` with ``--grid-subset C`` or ``--psi-k K
--psi-epsilon E2 [--psi-delta D2] [--psi-iters L] [--candidates C]`` (jin §3.4, Alg. 2).

``dpverify answer --summary FILE (--at "0.3,0.5[;0.1,0.2]" | --query EXPR [--K K])
[--beta B] [--no-certify]``: evaluates a Bernstein release at points (exact) or answers a
smooth query from a Wang summary with its certified alpha(beta).
SOURCE: a CSV/Parquet file, a directory of them, a glob or ``-`` (standard input), read
in blocks under ``--max-data-size`` (default 4G); data errors name the file, line, column and
rule, never the cell (``--show-values`` adds it); ``--timeout`` (default 600 s) bounds every
release; ``--insecure-seed`` is announced on stderr.
Exit codes: 0 success, 1 time limit reached, 2 bad input.
"""

from __future__ import annotations

import re
from typing import Any

import numpy as np

from ..errors import InvalidParameterError
from ..jsonfile import read_json
from ..numbers import fmpq_str, fmpq_to_decimal
from ._cert import timeout_flag
from ._common import (
    CommandResult,
    add_json_flag,
    backend_flags,
    backend_params,
    eps_delta_flags,
    exact,
    flag_names,
    format_table,
    int_flag,
    make_progress,
    progress_flags,
    psi_flags,
    psi_params,
)
from ._data import (
    RELEASE_TIMEOUT,
    data_call,
    data_flags,
    insecure_seed,
    neighbours_flag,
    open_data,
    reraise,
    seed_flag,
)

__all__ = ["register", "read_csv"]


def register(sub: Any) -> None:
    p = sub.add_parser(
        "release",
        # the same text as dpverify.cli.COMMANDS (checked by tests/test_cli_startup.py)
        help="private release of a data set: bernstein (alda2017), wang-summary (wang2013) "
        "or jin-synthetic (jin)",
        description="Run a release mechanism -- bernstein (alda2017 Algorithm 1), "
        "wang-summary (wang2013 Algorithm 1) or jin-synthetic (jin Algorithm 1) -- on a "
        "numeric CSV or Parquet data set and write the published summary with its privacy "
        "certificate (sensitivity, noise scale, achieved epsilon, comparison with the "
        "paper's printed scale).  --data is a file, a directory, a glob or '-' (standard "
        "input), read in blocks under a size cap (--max-data-size); every mechanism takes "
        "--timeout.",
    )
    msub = p.add_subparsers(dest="mechanism", metavar="MECHANISM", parser_class=type(p))
    b = msub.add_parser("bernstein", help="Bernstein mechanism (alda2017 Algorithm 1)",
                        description="Noisy lattice values of F(D, y) + iterated Bernstein "
                        "evaluator.")
    data_flags(b, "CSV or Parquet rows (kde, linear-mean: read in blocks; the other "
               "functions hold the rows in memory)")
    fq = b.add_mutually_exclusive_group(required=True)
    fq.add_argument("--function", default=None, type=str,
                    help="kde, linear-mean, priestley-chao, naive-bayes or logistic")
    fq.add_argument("--query-expr", dest="query_expr", default=None, type=str,
                    help="a float query program P over the data columns x1..xc and the "
                    "query point y1..yl (+ - * / sqrt, t = ...; in the written order): "
                    "F(D, y) = mean of P(d_i, y); its float error is certified")
    b.add_argument("--query-domain", dest="query_domain", default=None, type=str,
                   help="--query-expr: the public domain of the data columns, 'LO,HI' for "
                   "every column or 'LO,HI;LO,HI;...' one per column (default 0,1)")
    b.add_argument("--query-format", dest="query_format", default="binary64", type=str,
                   help="--query-expr: binary64 (default) or binary32")
    b.add_argument("--bandwidth", default=None, type=str, help="kernel bandwidth b > 0")
    b.add_argument("--label-bound", dest="label_bound", default="1", type=str,
                   help="Priestley-Chao label bound B")
    b.add_argument("--gap", default=None, type=str,
                   help="Priestley-Chao c: consecutive gaps <= c/n (public domain)")
    b.add_argument("--lambda", dest="lam", default=None, type=str,
                   help="logistic: regularisation lambda > 0 (paper's C = 1/lambda)")
    b.add_argument("--label-column", dest="label_column", default="-1", type=str,
                   help="naive-bayes/logistic: 0-based label column (negative: from the end)")
    b.add_argument("--label-encoding", dest="label_encoding", default="pm1", type=str,
                   help="naive-bayes/logistic labels: pm1 (+1/-1) or 01 (1/0)")
    b.add_argument("--e-max", dest="e_max", default=None, type=str,
                   help="ball queries: public radius budget (default grid/2)")
    b.add_argument("--k", required=True, type=str, help="lattice order k >= 1")
    b.add_argument("--h", default="1", type=str, help="iteration order h >= 1")
    b.add_argument("--epsilon", required=True, type=str, help="epsilon > 0 (exact)")
    b.add_argument("--delta", default=None, type=str, help="delta in (0,1): (eps,delta)-DP")
    b.add_argument("--beta", default="1/20", type=str, help="failure probability for alpha")
    seed_flag(b)
    neighbours_flag(b)
    b.add_argument("--min-rows", dest="min_rows", default=None, type=str,
                   help="add-remove, priestley-chao/naive-bayes/logistic: public lower bound "
                   "on n (default 2; the sensitivity is taken there; fewer rows are refused)")
    b.add_argument("--no-check", dest="no_check", action="store_true",
                   help="skip the sensitivity check on public random neighbours")
    backend_flags(b)
    add_json_flag(b)
    progress_flags(b)
    b.set_defaults(handler=_release_bernstein)

    w = msub.add_parser("wang-summary", help="smooth-query summary (wang2013 Algorithm 1)",
                        description="Noisy Chebyshev moments b_m, ||m||_inf <= t-1.")
    data_flags(w, "CSV or Parquet rows, values in [-1, 1], at most 4 columns")
    w.add_argument("--t", required=True, type=str, help="moments per axis t >= 2")
    w.add_argument("--K", default="2", type=str, help="smoothness order (recorded)")
    w.add_argument("--epsilon", required=True, type=str, help="epsilon > 0 (exact)")
    w.add_argument("--delta", default=None, type=str, help="delta in (0,1): (eps,delta)-DP")
    seed_flag(w)
    neighbours_flag(w)
    backend_flags(w)
    add_json_flag(w)
    progress_flags(w)
    w.set_defaults(handler=_release_wang)

    j = msub.add_parser("jin-synthetic", help="synthetic database (jin Algorithm 1)",
                        description="Noisy moments of the grid-discretised data, L1 LP "
                        "(scipy HiGHS, pip install \"dpverify[lp]\"), sampled synthetic rows.")
    data_flags(j, "CSV or Parquet rows, values in [-1, 1]")
    j.add_argument("--t", default=None, type=str, help="moments per axis t >= 1 (full tensor)")
    j.add_argument("--basis-degree", dest="basis_degree", default=None, type=str,
                   help="practical variant: moments of total degree <= S only (d up to 1000)")
    j.add_argument("--basis-size", dest="basis_size", default=None, type=str,
                   help="practical variant: the R lowest-degree moments")
    psi_flags(j)  # candidates from the private PCA ellipsoid (jin Alg. 2)
    j.add_argument("--candidates", default="10000", type=str,
                   help="ellipsoid points sampled for the LP (PSI)")
    j.add_argument("--N", required=True, type=str, help="grid points per axis N >= 1")
    j.add_argument("--m", default=None, type=str, help="synthetic size (default n)")
    j.add_argument("--grid-subset", dest="grid_subset", default=None, type=str,
                   help="practical variant: random subset of this many grid points")
    j.add_argument("--epsilon", required=True, type=str, help="epsilon > 0 (exact)")
    j.add_argument("--delta", default=None, type=str, help="delta in (0,1): (eps,delta)-DP")
    seed_flag(j)
    neighbours_flag(j)
    backend_flags(j)
    add_json_flag(j)
    progress_flags(j)
    j.set_defaults(handler=_release_jin)

    a = sub.add_parser(
        "answer",
        help="answer from a release summary (bernstein: --at; wang-summary: --query)",
        description="Post-processing of a published summary; no data access.",
    )
    a.add_argument("--summary", required=True, type=str, help="summary JSON")
    a.add_argument("--at", default=None, type=str,
                   help="bernstein: point(s) 'y1,y2' separated by ';' (exact numbers)")
    a.add_argument("--query", default=None, type=str, help="wang-summary: expression f")
    a.add_argument("--K", default="2", type=str, help="smoothness order K of the query")
    a.add_argument("--beta", default="1/20", type=str, help="failure probability")
    a.add_argument("--no-certify", dest="no_certify", action="store_true",
                   help="skip certifying sup|f - p| (alpha then covers noise only)")
    add_json_flag(a)
    timeout_flag(a, default=RELEASE_TIMEOUT)  # certifying sup|f - p| can be long
    a.set_defaults(handler=_answer)


def read_csv(path: str, flag: str = "--data") -> np.ndarray:
    """Numeric CSV (or Parquet) -> float array (n, c); errors name the flag.

    The one data reader (:mod:`dpverify.mechanisms.data`): the first non-blank row is a
    header exactly when none of its cells is a number; every data cell must be a finite
    decimal number (``nan``, ``inf``, ``1e999`` are errors naming the line and column).
    """
    # deferred: `dpverify --help` imports every command module (CLI start-up)
    from ..mechanisms.data import read_data

    return data_call(None, read_data, path, flag=flag).values


def _width(args: Any, src: Any, maximum: int) -> int:
    """The width of ``--data`` (its first data row or Parquet schema), at most ``maximum``."""
    c = data_call(args, lambda: src.width)
    if c > maximum:
        raise InvalidParameterError(f"--data has {c} columns; at most {maximum}")
    return c


def _in_memory(args: Any, src: Any, domain: Any = None) -> Any:
    """Every row of ``--data`` in memory (capped by --max-data-size), checked against
    ``domain``: for the mechanisms that need the whole data set at once."""
    # deferred: `dpverify --help` imports every command module (CLI start-up)
    from ..mechanisms.data import read_data

    tab = data_call(args, read_data, src)
    if domain is not None:
        data_call(args, domain.check, tab)
    return tab


def _data_rows_named(args: Any, tab: Any, fn: Any, *a: Any, **kw: Any) -> Any:
    """Call ``fn`` on rows read into memory: an error naming an array row ("data row 7:")
    names the file and line of that row instead."""
    try:
        return fn(*a, **kw)
    except InvalidParameterError as exc:
        m = re.match(r"data row (\d+)(?: column (\d+))?: (.*)", str(exc), re.S)
        if m is None or tab is None:
            return data_call(args, reraise, exc)
        j = None if m.group(2) is None else int(m.group(2)) - 1
        msg = f"--data {tab.where(int(m.group(1)) - 1, j)}: {m.group(3)}"
        value = getattr(exc, "value", None)
        if getattr(args, "show_values", False) and value is not None:
            msg += f" (value: {value!r})"
        raise InvalidParameterError(msg) from None


def _expression_query(args: Any, width: int) -> Any:
    """The query of ``--query-expr`` over ``width`` data columns, its float error
    certified (:func:`dpverify.mechanisms.bernstein_float.expression_query`)."""
    # deferred: `dpverify --help` imports every command module (CLI start-up)
    from ..mechanisms.bernstein_float import expression_query

    text = "0,1" if args.query_domain is None else str(args.query_domain)
    if ";" not in text:  # one interval for every column
        text = ";".join([text] * width)
    with flag_names({"expr": "--query-expr", "domain": "--query-domain",
                     "format": "--query-format", "dim": "--query-expr"}):
        q = expression_query(args.query_expr, text, format=args.query_format)
    if len(q.box) - q.dim != width:
        raise InvalidParameterError(f"--query-domain has {len(q.box) - q.dim} intervals for "
                                    f"the {width} columns of --data (give one, or one each)")
    return q


def _release_bernstein(args: Any) -> CommandResult:
    # deferred: `dpverify --help` imports every command module (CLI start-up)
    from ..mechanisms import bernstein_mech as bm
    from ..mechanisms.bernstein_builtin import ROW_SUM_QUERIES, builtin_query
    from ..mechanisms.bernstein_float import MAX_COLUMNS

    seed = insecure_seed(args, "dpverify release bernstein")
    backend, scheduler = backend_params(args)
    k = int_flag(args.k, "--k", minimum=1, maximum=1000)
    h = int_flag(args.h, "--h", minimum=1, maximum=64)
    eps, delta = eps_delta_flags(args)
    beta = exact(args.beta, "--beta")
    if not 0 < beta < 1:
        raise InvalidParameterError(f"--beta must be in (0, 1), got {args.beta!r}")
    e_max = None
    if args.e_max is not None:
        e_max = exact(args.e_max, "--e-max")
        if e_max < 0:
            raise InvalidParameterError(f"--e-max must be >= 0, got {args.e_max!r}")
    src = open_data(args, backend)
    tab = None
    X: np.ndarray | None = None
    if args.query_expr is not None:
        # certified before any data value is read (the columns' count is public)
        width = _width(args, src, MAX_COLUMNS)
        q = _expression_query(args, width)
        tab = _in_memory(args, src)
        X = tab.values
    elif args.query_domain is not None or args.query_format != "binary64":
        raise InvalidParameterError("--query-domain and --query-format need --query-expr")
    elif backend == "dask" or str(args.function).strip().lower() in ROW_SUM_QUERIES:
        # a sum over rows: the rows are read in blocks by the release itself
        width = _width(args, src, 10**6)
    else:
        tab = _in_memory(args, src)
        X, width = tab.values, tab.width
    if args.query_expr is None:
        with flag_names({"function": "--function", "bandwidth": "--bandwidth",
                         "label_bound": "--label-bound", "gap": "--gap", "lam": "--lambda",
                         "label_column": "--label-column", "label_encoding":
                         "--label-encoding", "data": "--data", "backend": "--backend"}):
            q, X = _data_rows_named(
                args, tab, builtin_query, args.function, X, columns=width,
                bandwidth=None if args.bandwidth is None else exact(args.bandwidth,
                                                                    "--bandwidth"),
                label_bound=exact(args.label_bound, "--label-bound"),
                gap=None if args.gap is None else exact(args.gap, "--gap"),
                lam=None if args.lam is None else exact(args.lam, "--lambda"),
                label_column=int_flag(args.label_column, "--label-column"),
                label_encoding=args.label_encoding)
    if (k + 1) ** q.dim > bm.MAX_LATTICE:
        raise InvalidParameterError(f"--k: lattice (k+1)^{q.dim} exceeds {bm.MAX_LATTICE}")
    nb = _neighbours(args)
    min_rows = None if args.min_rows is None else int_flag(args.min_rows, "--min-rows",
                                                             minimum=2)
    with make_progress(args, "dpverify release bernstein") as bar, \
            flag_names({"min_rows": "--min-rows", "neighbours": "--neighbours"}):
        rel = _data_rows_named(args, tab, bm.release_bernstein, src if X is None else X, q,
                               k, h, eps, delta=delta, e_max=e_max, check=not args.no_check,
                               insecure_seed=seed, progress=bar, backend=backend,
                               scheduler=scheduler, neighbours=nb, min_rows=min_rows)
    n = rel.info.get("n")
    data = rel.to_json()
    acc = bm.bernstein_accuracy(rel, beta, query=q, n=n or rel.privacy.get("min_rows"))
    data["accuracy"] = acc
    rows = [
        ("mechanism", "bernstein (alda2017 Algorithm 1)"),
        ("function", q.name),
        ("neighbours", rel.privacy["neighbouring"]),
        ("n, k, h, l", f"{_n_text(n, rel.info)}, {k}, {h}, {q.dim}"),
        ("evaluation mode", rel.privacy["evaluation_mode"]),
        ("assumptions", "; ".join(rel.privacy["assumptions"]) or "none"),
        ("S(F)", rel.privacy["function_sensitivity"]),
        ("per-coordinate sensitivity", rel.privacy["lattice_sensitivity"]["per_coordinate"]),
        ("lattice L1 sensitivity", rel.privacy["lattice_sensitivity"]["l1"]),
        ("noise scale", rel.privacy["scale"]),
        ("paper scale (Alg. 1)", rel.privacy["paper_scale_algorithm1"]),
        ("achieved epsilon", epsilon_text(rel.privacy)),
        ("alpha(beta) noise part", acc["noise_term"]),
        ("alpha(beta)", acc["alpha_decimal"] + ("" if acc["approximation_certified"]
                                                else " (noise + evaluation only)")),
    ]
    if seed is not None:
        rows.append(("randomness", "INSECURE seed (not private)"))
    return CommandResult(data=data, text=format_table(rows))


def _neighbours(args: Any) -> str:
    """``--neighbours`` checked (replace or add-remove)."""
    # deferred: `dpverify --help` imports every command module (CLI start-up)
    from ..mechanisms.privacy import check_neighbours

    with flag_names({"neighbours": "--neighbours"}):
        return check_neighbours(args.neighbours)


def _n_text(n: Any, info: dict) -> str:
    """n (replace-one: public) or the noisy count (add/remove: n is not published)."""
    if n is not None:
        return str(n)
    if "count" in info:
        return f"noisy count {float(exact(info['count'], 'count')):.6g}"
    return "not published"


def epsilon_text(privacy: dict) -> str:
    """The achieved epsilon, qualified (insecure seed, assumptions)."""
    # deferred: `dpverify --help` imports every command module (CLI start-up)
    from ..mechanisms.privacy import epsilon_text as text

    return str(text(privacy))


def _check_moment_count(t: int, d: int) -> None:
    # deferred: `dpverify --help` imports every command module (CLI start-up)
    from ..mechanisms.wang_summary import MAX_MOMENTS

    if t**d > MAX_MOMENTS:
        raise InvalidParameterError(f"--t: t^d = {t**d} moments exceed {MAX_MOMENTS}")


def _release_wang(args: Any) -> CommandResult:
    # deferred: `dpverify --help` imports every command module (CLI start-up)
    from ..mechanisms.wang_summary import release_summary

    seed = insecure_seed(args, "dpverify release wang-summary")
    backend, scheduler = backend_params(args)
    t = int_flag(args.t, "--t", minimum=2, maximum=1000)
    K = int_flag(args.K, "--K", minimum=0, maximum=100)
    eps, delta = eps_delta_flags(args)
    nb = _neighbours(args)
    src = open_data(args, backend)
    _check_moment_count(t, _width(args, src, 4))
    with make_progress(args, "dpverify release wang-summary") as bar:
        # the rows are read in blocks, parsed in the background while the moments of the
        # previous block are summed (either backend)
        s = data_call(args, release_summary, src, t, eps, delta=delta, insecure_seed=seed,
                      progress=bar, backend=backend, scheduler=scheduler, neighbours=nb)
    data = s.to_json()
    data["K"] = K
    pp = s.privacy["paper"]
    rows = [
        ("mechanism", "wang-summary (wang2013 Algorithm 1)"),
        ("neighbours", s.privacy["neighbouring"]),
        ("n, d, t", f"{_n_text(s.n, s.info)}, {s.d}, {s.t}"),
        ("L1 sensitivity", s.privacy["l1_sensitivity"]),
        ("sensitivity lower bound", s.privacy["moment_sensitivity"]["lower"]),
        ("noise scale", s.privacy["scale"]),
        ("achieved epsilon", epsilon_text(s.privacy)),
    ]
    if isinstance(pp, dict):
        rows += [("paper scale t^d/(n eps)", pp["wang2013_algorithm1_scale"]),
                 ("paper scale achieves eps <=", pp["wang2013_achieved_epsilon_upper"])]
    if seed is not None:
        rows.append(("randomness", "INSECURE seed (not private)"))
    return CommandResult(data=data, text=format_table(rows))


def _release_jin_basis(args: Any) -> CommandResult:
    # deferred: `dpverify --help` imports every command module (CLI start-up)
    from ..mechanisms.data import CUBE
    from ..mechanisms.jin_synthetic import MAX_BASIS, release_synthetic_basis

    if args.t is not None:
        raise InvalidParameterError("--t is the full tensor; do not combine it with "
                                    "--basis-degree/--basis-size")
    seed = insecure_seed(args, "dpverify release jin-synthetic")
    backend, scheduler = backend_params(args)
    N = int_flag(args.N, "--N", minimum=1, maximum=10**6)
    m = None if args.m is None else int_flag(args.m, "--m", minimum=1, maximum=10**7)
    S = None if args.basis_degree is None else int_flag(args.basis_degree, "--basis-degree",
                                                        0, 10_000)
    R = None if args.basis_size is None else int_flag(args.basis_size, "--basis-size", 1,
                                                      MAX_BASIS)
    sub = None if args.grid_subset is None else int_flag(args.grid_subset, "--grid-subset",
                                                         1, 10**6)
    eps, delta = eps_delta_flags(args)
    nb = _neighbours(args)
    src = open_data(args, backend)
    width = _width(args, src, 1000)
    kw: dict[str, Any] = psi_params(args, width) or {}
    data_arg: Any = src
    if kw:
        kw["candidates"] = int_flag(args.candidates, "--candidates", 1, 10**6)
        # the private subspace iteration makes several passes: the rows in memory
        data_arg = _in_memory(args, src, CUBE).values
    with make_progress(args, "dpverify release jin-synthetic") as bar:
        syn = data_call(args, release_synthetic_basis, data_arg, N, eps,
                        basis_degree=S, basis_size=R, delta=delta, m=m, grid_subset=sub,
                        insecure_seed=seed, progress=bar, backend=backend,
                        scheduler=scheduler, neighbours=nb, **kw)
    tot = syn.privacy["total"]
    data = {
        "mechanism": "jin-synthetic",
        "reference": "jin Algorithm 1, practical variant (basis subset"
        + (", PSI ellipsoid (Algorithm 2))" if kw else ", random grid subset)"),
        **syn.info,
        "privacy": syn.privacy,
        "rows": [[repr(float(v)) for v in r] for r in syn.rows],
    }
    rows = [
        ("mechanism", "jin-synthetic (basis subset" + (" + PSI)" if kw else ")")),
        ("neighbours", syn.privacy["neighbouring"]),
        ("n, d, N, m", f"{_n_text(syn.summary.n, syn.summary.info)}, {width}, {N}, "
                       f"{len(syn.rows)}"),
        ("basis |R|, candidates C", f"{syn.info['basis_size']}, {syn.info['candidates']}"),
        ("moment noise scale", syn.privacy["moments"]["scale"]),
        ("moments epsilon", syn.privacy["moments"]["achieved_epsilon"]),
        ("total epsilon, delta", epsilon_text({**syn.privacy,
                                               "achieved_epsilon": tot["epsilon_decimal_up"],
                                               "delta": tot["delta"]})),
        ("LP objective", f"{syn.info['lp_objective']:.6g}"),
    ]
    if seed is not None:
        rows.append(("randomness", "INSECURE seed (not private)"))
    return CommandResult(data=data, text=format_table(rows))


def _release_jin(args: Any) -> CommandResult:
    # deferred: `dpverify --help` imports every command module (CLI start-up)
    from ..mechanisms.jin_synthetic import release_synthetic

    if args.basis_degree is not None or args.basis_size is not None:
        return _release_jin_basis(args)
    if args.psi_k is not None:
        raise InvalidParameterError("--psi-k needs the basis subset (--basis-degree or "
                                    "--basis-size)")
    if args.t is None:
        raise InvalidParameterError("--t is required (or --basis-degree/--basis-size)")
    seed = insecure_seed(args, "dpverify release jin-synthetic")
    backend, scheduler = backend_params(args)
    t = int_flag(args.t, "--t", minimum=1, maximum=1000)
    N = int_flag(args.N, "--N", minimum=1, maximum=10_000)
    m = None if args.m is None else int_flag(args.m, "--m", minimum=1, maximum=10**7)
    eps, delta = eps_delta_flags(args)
    nb = _neighbours(args)
    src = open_data(args, backend)
    width = _width(args, src, 4)
    sub = None if args.grid_subset is None else int_flag(
        args.grid_subset, "--grid-subset", minimum=1, maximum=N ** width)
    _check_moment_count(t, width)
    with make_progress(args, "dpverify release jin-synthetic") as bar:
        syn = data_call(args, release_synthetic, src, t, N, eps, m=m, delta=delta,
                        grid_subset=sub, insecure_seed=seed, progress=bar, backend=backend,
                        scheduler=scheduler, neighbours=nb)
    data = {
        "mechanism": "jin-synthetic",
        "reference": "jin Algorithm 1",
        **syn.info,
        "privacy": syn.privacy,
        "rows": [[repr(float(v)) for v in r] for r in syn.rows],
    }
    rows = [
        ("mechanism", "jin-synthetic (jin Algorithm 1)"),
        ("neighbours", syn.privacy["neighbouring"]),
        ("n, d, t, N, m", f"{_n_text(syn.summary.n, syn.summary.info)}, {width}, {t}, {N}, "
                          f"{len(syn.rows)}"),
        ("noise scale", syn.privacy["scale"]),
        ("achieved epsilon", epsilon_text(syn.privacy)),
        ("LP objective", f"{syn.info['lp_objective']:.6g}"),
    ]
    if seed is not None:
        rows.append(("randomness", "INSECURE seed (not private)"))
    return CommandResult(data=data, text=format_table(rows))


def _answer(args: Any) -> CommandResult:
    obj = read_json(args.summary, "--summary")
    if not isinstance(obj, dict):
        raise InvalidParameterError("--summary: not a release summary")
    mech = obj.get("mechanism")
    if mech == "bernstein":
        return _answer_bernstein(obj, args)
    if mech == "wang-summary":
        return _answer_wang(obj, args)
    if mech == "jin-synthetic":
        return _answer_jin(obj, args)
    raise InvalidParameterError(f"--summary: unknown mechanism {mech!r}")


def _answer_jin(obj: dict, args: Any) -> CommandResult:
    """Mean of the query over the synthetic rows (post-processing; no certified error)."""
    # deferred: `dpverify --help` imports every command module (CLI start-up)
    from ..mechanisms.jin_answer import answer_synthetic

    if args.query is None:
        raise InvalidParameterError("--query is required for a jin-synthetic summary")
    with flag_names({"query": "--query", "summary": "--summary"}):
        data = answer_synthetic(obj, args.query)
    names, ans, d = data["variables"], data["answer"], len(data["variables"])
    table = [("query", args.query), ("variables", ", ".join(names[:6])
              + (", ..." if d > 6 else "")), ("answer", f"{ans:.12g}"),
             ("synthetic rows", str(data["rows"])), ("error", "not certified (heuristic LP)")]
    return CommandResult(data=data, text=format_table(table))


def _answer_bernstein(obj: dict, args: Any) -> CommandResult:
    # deferred: `dpverify --help` imports every command module (CLI start-up)
    from ..mechanisms.bernstein_mech import BernsteinRelease

    if args.at is None:
        raise InvalidParameterError("--at is required for a bernstein summary")
    rel = BernsteinRelease.from_json(obj)
    out: list[dict[str, Any]] = []
    for j, part in enumerate(args.at.split(";")):
        coords = [c.strip() for c in part.split(",")]
        if len(coords) != rel.dim or not all(coords):
            raise InvalidParameterError(
                f"--at point {j + 1} must have {rel.dim} comma-separated numbers, got {part!r}")
        ys = [exact(c, "--at") for c in coords]
        for y in ys:
            if not 0 <= y <= 1:
                raise InvalidParameterError(f"--at coordinates must lie in [0, 1], got {part!r}")
        v = rel.evaluate_exact(ys)
        out.append({"at": [fmpq_str(y) for y in ys], "value": fmpq_str(v),
                    "value_decimal": fmpq_to_decimal(v, 15)})
    data = {"mechanism": "bernstein", "answers": out,
            "evaluation_mode": (obj.get("privacy") or {}).get("evaluation_mode")}
    rows = [(",".join(a["at"]), str(a["value_decimal"])) for a in out]
    return CommandResult(data=data, text=format_table(rows))


def _answer_wang(obj: dict, args: Any) -> CommandResult:
    # deferred: `dpverify --help` imports every command module (CLI start-up)
    from ..mechanisms.wang_summary import WangSummary

    if args.query is None:
        raise InvalidParameterError("--query is required for a wang-summary summary")
    s = WangSummary.from_json(obj)
    K = int_flag(args.K, "--K", minimum=0, maximum=100)
    beta = exact(args.beta, "--beta")
    if not 0 < beta < 1:
        raise InvalidParameterError(f"--beta must be in (0, 1), got {args.beta!r}")
    res = s.answer(args.query, K, beta=beta, certify_error=not args.no_certify, name="--query")
    rows = [
        ("query", res["query"]),
        ("answer", res["answer_decimal"]),
        ("approximation error <=", str(res["approximation_error"])),
        ("noise term", fmpq_to_decimal(exact(res["noise_term"], "noise"), 8, rounding="up")),
        (f"alpha(beta={res['beta']})", res["alpha_decimal"]),
    ]
    return CommandResult(data=res, text=format_table(rows))
