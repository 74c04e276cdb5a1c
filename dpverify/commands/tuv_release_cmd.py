"""``dpverify tuv-release`` and ``dpverify tuv-answer``: thaler2012 polynomial release.

``dpverify tuv-release --data SOURCE --k K --gamma G --epsilon E [--delta DL] [--r R]
[--representation multilinear|full] [--universe monotone|doubled] [--beta B]
[--insecure-seed S] --out summary.json`` (CSV of 0/1 columns, optional header).

``dpverify tuv-answer --summary summary.json --query "1,5,7" [--kind or|and|rofk --r R]``
(0-based column indices; ``~j`` or ``!j`` is the negated literal, doubled universe only).

Decision-list databases (thaler2012 Theorem 1.3; :mod:`dpverify.mechanisms.tuv_dlist`):
``dpverify tuv-release --dlists FILE --m M --k K --gamma G --epsilon E [--beta B]
[--method chebyshev|minimax] [--insecure-seed S] --out s.json`` (FILE: CSV lines
``lit,bit,...,lit,bit,default`` with DIMACS literals, or JSON) and
``dpverify tuv-answer --summary s.json --y 0110...`` (a string of m bits).
"""

from __future__ import annotations

from typing import Any

from ..errors import InvalidParameterError
from ..jsonfile import read_json
from ..numbers import check_open_unit, fmpq_str, fmpq_to_decimal
from ._common import (
    CommandResult,
    add_json_flag,
    backend_flags,
    backend_params,
    eps_delta_flags,
    exact,
    format_table,
    int_flag,
    make_progress,
    progress_flags,
)
from ._data import (
    data_call,
    data_flags,
    insecure_seed,
    max_data_bytes,
    neighbours_flag,
    open_data,
    seed_flag,
)

__all__ = ["register"]


def register(sub: Any) -> None:
    p = sub.add_parser(
        "tuv-release",
        help="private polynomial release of a 0/1 CSV or of decision lists (thaler2012 "
        "Theorems 3.1/3.2, 1.3)",
        description="Build and certify g (OR or r-of-k), sum the per-row polynomials exactly "
        "(support counts), add integer discrete Laplace noise calibrated to the exact "
        "sensitivity, and write the summary JSON (--out) with its privacy certificate and "
        "the certified alpha(beta).  With --dlists FILE --m M the rows are decision lists "
        "of length <= k and the queries are inputs y in {0,1}^m (thaler2012 Theorem 1.3).",
    )
    data_flags(p, "CSV or Parquet rows of 0/1 columns (read in blocks)", required=False)
    p.add_argument("--dlists", default=None, type=str,
                   help="decision-list database (CSV 'lit,bit,...,default' lines or JSON; a "
                   "regular file under --max-data-size); instead of --data")
    p.add_argument("--m", default=None, type=str, help="variables of the decision lists "
                   "(with --dlists)")
    p.add_argument("--k", required=True, type=str, help="largest query size k")
    p.add_argument("--gamma", required=True, type=str, help="polynomial error in (0,1)")
    p.add_argument("--epsilon", required=True, type=str, help="epsilon > 0 (exact)")
    p.add_argument("--delta", default=None, type=str, help="delta in (0,1) (Theorem 3.2)")
    p.add_argument("--r", default=None, type=str, help="threshold r (1: OR/AND queries)")
    p.add_argument("--representation", default=None, type=str,
                   help="multilinear (default) or full")
    p.add_argument("--universe", default=None, type=str,
                   help="monotone (default) or doubled (negated literals, conjunctions)")
    p.add_argument("--method", default=None, type=str, help="construction method of g")
    p.add_argument("--no-truncate", dest="truncate", action="store_false", default=True,
                   help="release the paper's whole monomial vector (default: only monomials "
                   "on <= k variables, the only ones a query of size <= k reads)")
    p.add_argument("--beta", default="1/20", type=str, help="failure probability (report)")
    seed_flag(p)
    neighbours_flag(p)
    backend_flags(p)
    add_json_flag(p)
    progress_flags(p)
    p.set_defaults(handler=_release)

    q = sub.add_parser(
        "tuv-answer",
        help="answer a query from a tuv-release summary",
        description="Evaluate the released noisy polynomial at the query (post-processing).",
    )
    q.add_argument("--summary", required=True, type=str, help="summary JSON of tuv-release")
    q.add_argument("--query", default=None, type=str,
                   help="comma-separated 0-based columns; ~j negates (doubled universe)")
    q.add_argument("--y", default=None, type=str,
                   help="decision-list summaries: the input y as a string of m bits")
    q.add_argument("--kind", default="or", type=str, help="or, and or rofk")
    q.add_argument("--r", default=None, type=str, help="r for --kind rofk")
    add_json_flag(q)
    q.set_defaults(handler=_answer)


def _release(args: Any) -> CommandResult:
    # deferred: `dpverify --help` imports every command module (CLI start-up)
    from ..mechanisms.tuv import tuv_release

    if (args.data is None) == (args.dlists is None):
        raise InvalidParameterError("give exactly one of --data (0/1 CSV) and --dlists "
                                    "(decision lists)")
    backend, scheduler = backend_params(args)
    seed = insecure_seed(args, "dpverify tuv-release")
    nb = _neighbours(args)
    if args.dlists is not None:
        if backend != "local":
            raise InvalidParameterError("--dlists releases run with --backend local only")
        return _release_dlists(args, seed, nb)
    if args.m is not None:
        raise InvalidParameterError("--m applies only to --dlists")
    # every parameter is checked before the data is read (documented ranges)
    k = int_flag(args.k, "--k", minimum=1, maximum=10_000)
    r = int_flag(args.r or "1", "--r", minimum=1, maximum=k)
    gamma = check_open_unit(exact(args.gamma, "--gamma"), "--gamma")
    eps, delta = eps_delta_flags(args)
    beta = check_open_unit(exact(args.beta, "--beta"), "--beta")
    rep = (args.representation or "multilinear").strip()
    uni = (args.universe or "monotone").strip()
    if rep not in ("full", "multilinear"):
        raise InvalidParameterError(f"--representation must be full or multilinear, got {rep!r}")
    if uni not in ("monotone", "doubled"):
        raise InvalidParameterError(f"--universe must be monotone or doubled, got {uni!r}")
    src = open_data(args, backend)
    width = data_call(args, lambda: src.width)
    m = width * (2 if uni == "doubled" else 1)
    if k > m:
        raise InvalidParameterError(f"--k must be <= {m} (variables of the universe), got {k}")
    with make_progress(args, "dpverify tuv-release") as bar:
        # the rows are read in blocks (support counts summed exactly), either backend
        s = data_call(args, tuv_release, src, k, gamma, eps, delta=delta, r=r,
                      representation=rep, universe=uni, method=args.method, beta=beta,
                      truncate=args.truncate, insecure_seed=seed, progress=bar,
                      backend=backend, scheduler=scheduler, neighbours=nb)
    d = s.data
    ach = d["privacy"]["achieved"] or {}
    rows = [
        ("neighbours", d["privacy"]["neighbouring"]),
        ("rows n, attributes d", f"{_n_text(d)}, {d['d']}"),
        ("query class", f"r={r} of <= {k} literals ({uni} universe, {rep})"),
        ("polynomial", f"{d['polynomial']['construction']}, degree {d['polynomial']['degree']}"
         f", exact error {d['polynomial']['error_exact']}"),
        ("noised coordinates", str(d["n_coordinates"])),
        ("noise scale", d["privacy"]["scale"]),
        ("achieved epsilon", _epsilon_text(d["privacy"], ach.get("epsilon_decimal", "0"),
                                           ach.get("delta"))),
        ("alpha(beta)", f"{d['accuracy']['alpha_decimal']} (beta {d['accuracy']['beta']})"),
        ("randomness", "OS (secrets)" if d["secure_randomness"] else "INSECURE seed"),
    ]
    extra = [] if args.json_out else ["note: pass --out FILE to keep the summary"]
    return CommandResult(data=d, text=format_table(rows), exit_code=0, extra_lines=extra)


def _neighbours(args: Any) -> str:
    # deferred: `dpverify --help` imports every command module (CLI start-up)
    from ..mechanisms.privacy import check_neighbours

    try:
        return check_neighbours(args.neighbours)
    except InvalidParameterError as exc:
        raise InvalidParameterError(f"--{exc}") from None


def _epsilon_text(privacy: dict, eps: Any, delta: Any) -> str:
    # deferred: `dpverify --help` imports every command module (CLI start-up)
    from ..mechanisms.privacy import epsilon_text

    return epsilon_text(privacy, eps, delta)


def _n_text(d: dict) -> str:
    """n (replace-one) or the noisy count (add/remove: n is not published)."""
    if d.get("n") is not None:
        return str(d["n"])
    return f"noisy count {float(exact(d['count'], 'count')):.6g}"


def _release_dlists(args: Any, seed: int | None, nb: str) -> CommandResult:
    # deferred: `dpverify --help` imports every command module (CLI start-up)
    from ..mechanisms.tuv_dlist import read_decision_lists, tuv_dlist_release

    for flag, val in (("--delta", args.delta), ("--r", args.r),
                      ("--representation", args.representation),
                      ("--universe", args.universe)):
        if val is not None:
            raise InvalidParameterError(f"{flag} does not apply to --dlists (pure epsilon, "
                                        "multilinear representation)")
    if args.m is None:
        raise InvalidParameterError("--m (number of variables) is required with --dlists")
    m = int_flag(args.m, "--m", minimum=1, maximum=10**6)
    k = int_flag(args.k, "--k", minimum=1, maximum=64)
    gamma = check_open_unit(exact(args.gamma, "--gamma"), "--gamma")
    eps, _ = eps_delta_flags(args)
    beta = check_open_unit(exact(args.beta, "--beta"), "--beta")
    method = (args.method or "chebyshev").strip()
    if method not in ("chebyshev", "minimax"):
        raise InvalidParameterError(f"--method must be chebyshev or minimax, got {method!r}")
    dls = data_call(args, read_decision_lists, args.dlists, m, k,
                    max_bytes=max_data_bytes(args), flag="--dlists")
    s = tuv_dlist_release(dls, m, k, gamma, eps, beta=beta, method=method, insecure_seed=seed,
                          neighbours=nb)
    d = s.data
    sens = d["privacy"]["sensitivity"]
    rows = [
        ("neighbours", d["privacy"]["neighbouring"]),
        ("decision lists n, variables m", f"{_n_text(d)}, {d['m']}"),
        ("list length <= k", str(k)),
        ("polynomial", f"h_k degree {d['polynomial']['h_degree']}, multilinear degree "
         f"{d['polynomial']['degree']}, error <= {d['accuracy']['gamma_release']}"),
        ("noised coordinates", f"{d['n_coordinates']} (set sizes {d['coordinate_sizes']})"),
        ("L1 sensitivity (times n)", f"{sens['l1_times_n']} "
         f"({'exact' if sens['l1_exact'] else 'upper bound'})"),
        ("noise scale", d["privacy"]["scale"]),
        ("achieved epsilon", _epsilon_text(d["privacy"],
                                           d["privacy"]["achieved"]["epsilon_decimal"], "0")),
        ("alpha(beta), worst y", f"{d['accuracy']['alpha_decimal']} (beta "
         f"{d['accuracy']['beta']})"),
        ("randomness", "OS (secrets)" if d["secure_randomness"] else "INSECURE seed"),
    ]
    extra = [] if args.json_out else ["note: pass --out FILE to keep the summary"]
    return CommandResult(data=d, text=format_table(rows), exit_code=0, extra_lines=extra)


def _answer_dlist(obj: dict, args: Any) -> CommandResult:
    # deferred: `dpverify --help` imports every command module (CLI start-up)
    from ..mechanisms.tuv_dlist import DlistSummary

    s = DlistSummary(obj)
    if args.y is None or args.query is not None or args.r is not None or args.kind != "or":
        raise InvalidParameterError("a decision-list summary is queried with --y BITS only")
    y = args.y.strip()
    if len(y) != s.m or any(c not in "01" for c in y):
        raise InvalidParameterError(f"--y must be a string of m = {s.m} characters 0/1, "
                                    f"got {args.y!r}")
    val = s.answer(y)
    acc = s.accuracy_for_weight(y.count("1"))
    data = {"y": y, "answer": fmpq_str(val), "answer_decimal": fmpq_to_decimal(val, 10),
            "alpha": acc["alpha"], "alpha_decimal": acc["alpha_decimal"], "beta": acc["beta"],
            "alpha_scope": f"every y with at most {acc['weight']} ones"}
    rows = [("answer", data["answer_decimal"]),
            ("accuracy", f"+- {acc['alpha_decimal']} with probability >= 1 - {acc['beta']} "
             f"(simultaneously for all y with <= {acc['weight']} ones)")]
    return CommandResult(data=data, text=format_table(rows))


def _parse_query(text: str) -> list[Any]:
    parts = [p.strip() for p in text.split(",")]
    if not text.strip() or any(not p for p in parts):
        raise InvalidParameterError(f"--query must be comma-separated column indices, got {text!r}")
    out: list[Any] = []
    for p in parts:
        neg = p[0] in "~!"
        j = int_flag(p[1:] if neg else p, "--query", minimum=0)
        out.append((j, False) if neg else (j, True))
    return out


def _answer(args: Any) -> CommandResult:
    # deferred: `dpverify --help` imports every command module (CLI start-up)
    from ..mechanisms.tuv import TUVSummary

    obj = read_json(args.summary, "--summary")
    if isinstance(obj, dict) and obj.get("mechanism") == "tuv-dlist-release":
        return _answer_dlist(obj, args)
    if args.query is None or args.y is not None:
        raise InvalidParameterError("--query is required (--y is for decision-list summaries)")
    s = TUVSummary(obj)
    query = _parse_query(args.query)
    kind = args.kind.strip()
    r = None if args.r is None else int_flag(args.r, "--r", minimum=1)
    try:
        val = s.answer(query, kind, r)
    except InvalidParameterError as exc:
        msg = str(exc)
        for name in ("kind", "r", "query"):
            if msg.startswith(name + " ") or msg.startswith(name + "["):
                raise InvalidParameterError("--" + msg) from None
        raise
    acc = obj["accuracy"]
    data = {
        "query": args.query,
        "kind": kind,
        "r": r,
        "answer": fmpq_str(val),
        "answer_decimal": fmpq_to_decimal(val, 10),
        "alpha": acc["alpha"],
        "alpha_decimal": acc["alpha_decimal"],
        "beta": acc["beta"],
    }
    rows = [("answer", data["answer_decimal"]),
            ("accuracy", f"+- {acc['alpha_decimal']} with probability >= 1 - {acc['beta']} "
             "(simultaneously for all queries)")]
    return CommandResult(data=data, text=format_table(rows))
