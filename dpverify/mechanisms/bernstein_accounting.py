"""Accounting of the Bernstein mechanism (alda2017 Algorithm 1, Theorem 7): the lattice,
the per-coordinate and L1 sensitivities of the released lattice centres for each evaluation
mode, the test of a declared ``S(F)`` on public databases, and the privacy record of a
configuration (:func:`bernstein_privacy`, what ``dpverify privacy bernstein`` prints).

The derivation of each mode's sensitivity is in :mod:`dpverify.mechanisms.bernstein_mech`
(module docstring); the release itself lives there too.

Guarantee
---------
Sensitivities are exact rationals; :func:`check_sensitivity` is a test on public data, not a
proof (it says so in its record); :func:`bernstein_privacy` calibrates with
:func:`dpverify.mechanisms.privacy.calibrate_laplace` (achieved epsilon <= the target,
exactly or as a rigorous upper bound).
"""

from __future__ import annotations

from fractions import Fraction
from itertools import product
from typing import Any

import numpy as np
from flint import arb, fmpq, fmpz

from ..errors import InvalidParameterError, ParameterTypeError
from ..numbers import ExactLike, IntLike, arb_to_fmpq_bounds, check_int, fmpq_str, to_fmpq
from .bernstein_float import FLOAT_PART, ExpressionQuery, certified_roundoff
from .bernstein_queries import EVALUATION_MODES, FunctionQuery, MeanQuery
from .privacy import calibrate_laplace, check_neighbours, guarantee_block

__all__ = [
    "DEFAULT_GRID",
    "MAX_PREC",
    "CHECK_ROWS",
    "BERNSTEIN_MODES",
    "lattice_points",
    "exact_lattice_points",
    "mean_sensitivity",
    "add_remove_mean_plan",
    "release_privacy",
    "BALL_REFUSAL",
    "lattice_sensitivity",
    "check_sensitivity",
    "bernstein_privacy",
    "grid_floor",
    "grid_ceil",
    "query_lattice_points",
    "is_exact_number",
]


#: Default noise grid 2^-40 (values are released as exact multiples of it).
DEFAULT_GRID = fmpq(1, 2**40)
#: Largest working precision (bits) tried for ball queries before refusing.
MAX_PREC = 1024
#: Ball/exact queries are checked on public databases of at most this many rows.
CHECK_ROWS = 64
# ------------------------------------------------------------------------ accounting


def lattice_points(k: int, dim: int) -> np.ndarray:
    """Row-major lattice ``{0, 1/k, ..., 1}^dim`` as a float array of shape (m, dim)."""
    grid1 = np.arange(k + 1) / k
    return np.array(list(product(grid1, repeat=dim)), dtype=np.float64).reshape(-1, dim)


def exact_lattice_points(k: int, dim: int) -> list[tuple[fmpq, ...]]:
    """Row-major lattice ``{0, 1/k, ..., 1}^dim`` as tuples of exact fmpq (same order as
    :func:`lattice_points`)."""
    grid1 = [fmpq(i, k) for i in range(k + 1)]
    return list(product(grid1, repeat=dim))


def grid_floor(q: fmpq, g: fmpq) -> int:
    """``floor(q / g)`` exactly (``g > 0``)."""
    r = q / g
    return int(r.p // r.q)


def grid_ceil(q: fmpq, g: fmpq) -> int:
    """``ceil(q / g)`` exactly (``g > 0``)."""
    r = q / g
    return int(-((-r.p) // r.q))


def mean_sensitivity(lower: Any, upper: Any, n: IntLike, grid: Any = DEFAULT_GRID) -> fmpq:
    """Exact sensitivity ``g (H - L) / n`` of the clamped mean ``g J / n`` of a mean query,
    ``L = floor(lower/g)``, ``H = ceil(upper/g)`` (range rounded outward to the grid).

    ``<= (upper - lower)/n + 2g/n``; equal to ``(upper - lower)/n`` when both ends are on
    the grid.  Exact fmpq.
    """
    lo, hi = to_fmpq(lower, "lower"), to_fmpq(upper, "upper")
    n = check_int(n, "n", minimum=1)
    g = to_fmpq(grid, "grid")
    if g <= 0:
        raise InvalidParameterError(f"grid must be > 0, got {fmpq_str(g)}")
    if not lo <= hi:
        raise InvalidParameterError(f"lower must be <= upper, got [{fmpq_str(lo)}, "
                                    f"{fmpq_str(hi)}]")
    return g * (grid_ceil(hi, g) - grid_floor(lo, g)) / n


def add_remove_mean_plan(lower: Any, upper: Any, grid: Any = DEFAULT_GRID) -> tuple[int, int]:
    """``(C, M)`` of a mean query released for add/remove neighbours: every per-row grid
    integer ``j in [L, H]`` (``L = floor(lower/g)``, ``H = ceil(upper/g)``) is shifted by
    the public centre ``C = floor((L + H)/2)``, so ``|j - C| <= M = max(ceil((H - L)/2),
    1)``; an added or removed row moves each shifted sum ``g sum_i (j_i - C)`` by at most
    ``g M``, and the count, released as ``g M n``, by exactly ``g M``.  Exact integers.

    Examples
    --------
    >>> add_remove_mean_plan(0, 1, fmpq(1, 4))      # L = 0, H = 4
    (2, 2)
    """
    lo, hi = to_fmpq(lower, "lower"), to_fmpq(upper, "upper")
    g = to_fmpq(grid, "grid")
    if g <= 0 or not lo <= hi:
        raise InvalidParameterError("need grid > 0 and lower <= upper")
    L, H = grid_floor(lo, g), grid_ceil(hi, g)
    C = (L + H) // 2
    return C, max(H - C, C - L, 1)


#: Outside the guarantee of a ball query: the precision refusal.
BALL_REFUSAL = ("a ball query whose radius stays above e_max up to max_prec bits is "
                "refused: the refusal depends on the data through the numerical "
                "conditioning of F and is not covered (raise e_max or max_prec)")


def release_privacy(
    query: FunctionQuery, n: int | None, k: int, g: fmpq, e_max: fmpq, epsilon: Any,
    delta: Any, *, neighbours: str = "replace", min_rows: int = 1,
    checked: dict | None = None, secure: bool = True,
) -> tuple[dict[str, Any], fmpq]:
    """The privacy record and noise scale of a Bernstein release (no data: ``n`` only
    under replace-one; ``min_rows`` under add/remove).  Every assumption is listed
    verbatim; ``guarantee`` is built by :func:`~dpverify.mechanisms.privacy.
    guarantee_block`.  Derivations: :mod:`dpverify.mechanisms.bernstein_mech`."""
    nb = check_neighbours(neighbours)
    mode, l = query.evaluation, query.dim
    m = (k + 1) ** l
    mq = query if isinstance(query, MeanQuery) else None
    rb = certified_roundoff(query)  # None: a declared float error (an assumption)
    assumptions: list[str] = []
    proven: list[dict[str, str]] = []
    outside: list[str] = []
    test = ("tested by check_sensitivity on public neighbours, not proved"
            if checked and nb == "replace" else "not tested, not proved")
    coords = m
    if mq is not None and nb == "add-remove":
        C, M = add_remove_mean_plan(mq.lower, mq.upper, g)
        S = g * M
        per = S
        coords = m + 1
        sens: dict[str, Any] = {
            "mode": mode, "points": m, "coordinates": coords,
            "per_coordinate": fmpq_str(per),
            "per_coordinate_derivation": (
                f"shifted sums g sum_i (j_i - C), C = {C}: an added or removed row moves each "
                f"by <= g M = {fmpq_str(per)} (|j - C| <= M = {M}); the count is released "
                "as g M n (moves by exactly g M); no rounding (exact multiples of g)"),
            "l1": fmpq_str(coords * per), "linf": fmpq_str(per), "centre": C, "M": M}
        proven.append({"claim": f"per-coordinate sensitivity {fmpq_str(per)} on {coords} "
                                "coordinates (sums and count)",
                       "how": "phi rounded to the grid and clamped to the declared range, "
                              "shifted by a public centre, exact integer sums"})
    else:
        if mq is not None:
            assert n is not None
            S = mean_sensitivity(mq.lower, mq.upper, n, g)
            proven.append({"claim": f"S(F) = {fmpq_str(S)}",
                           "how": "phi rounded to the grid and clamped to the declared range "
                                  "[lower, upper] (rounded outward), exact integer sum"})
        else:
            if nb == "replace":
                assert n is not None
                S = to_fmpq(query.sensitivity(n), "sensitivity")
            else:
                if query.add_remove_sensitivity is None:
                    raise InvalidParameterError(
                        f"query {query.name!r} has no add_remove_sensitivity: it cannot be "
                        "released for add/remove neighbours (declare one, or use "
                        "neighbours='replace')")
                S = to_fmpq(query.add_remove_sensitivity(min_rows), "add_remove_sensitivity")
            which = "S(F)" if nb == "replace" else f"add/remove S(F) at n = {min_rows}"
            if query.derived and rb is not None:
                assert isinstance(query, ExpressionQuery)
                proven.append({"claim": f"{which} = {fmpq_str(S)}",
                               "how": query.sensitivity_how()})
            elif query.derived and not isinstance(query, ExpressionQuery):
                proven.append({"claim": f"{which} = {fmpq_str(S)}",
                               "how": f"derived in the docstring of the built-in query "
                                      f"{query.name!r}: {query.notes}"})
            else:
                assumptions.append(f"declared {which} = {fmpq_str(S)} for {query.name!r} "
                                   f"(user assertion; {test})")
        sens = lattice_sensitivity(S, k, l, g, mode=mode, e_max=e_max,
                                   float_error=query.float_error)
        per = to_fmpq(sens["per_coordinate"], "per_coordinate")
    if mode == "float" and rb is not None:
        st = rb.certificate().statement
        sens["per_coordinate_derivation"] = (
            f"S + 2 float_error + g (certified float_error = {fmpq_str(rb.bound)})")
        proven.append({
            "claim": f"float evaluation error <= {fmpq_str(rb.bound)} for {query.name!r}: "
                     f"|fl(P)(x, y) - P(x, y)| over the data domain x [0, 1]^{l}, every "
                     f"operation in {st['format']} in the written order, inputs rounded "
                     "to the format",
            "how": "round-off certificate (dpverify.certify.roundoff.program_bound: "
                   "first-order terms and a rigorous remainder, ball arithmetic with "
                   f"bisection), embedded as part {FLOAT_PART!r}: dpverify verify FILE "
                   f"--part {FLOAT_PART}"})
    elif mode == "float":
        assumptions.append(f"declared float evaluation error <= "
                           f"{fmpq_str(query.float_error)} for {query.name!r} (user "
                           "assertion)")
    if mq is not None and not mq.elementwise:
        assumptions.append(
            f"phi of {query.name!r} is a deterministic function of its arguments (it is "
            "called on one row at a time, so it cannot mix rows; user assertion, tested on "
            "public rows)")
    if mq is not None and mq.elementwise:
        proven.append({"claim": "every phi value depends on its own row and lattice point "
                                "only, bit for bit",
                       "how": "built-in phi: IEEE basic operations element by element in "
                              "a fixed order (no BLAS, no reduction across rows, exp by "
                              "basic operations)"})
    if mode == "ball":
        outside.append(BALL_REFUSAL)
    scale, fields = calibrate_laplace(per, coords, epsilon, delta)
    privacy: dict[str, Any] = {
        "neighbouring": ("same n, one row replaced" if nb == "replace"
                         else "one row added or removed (n private)"),
        "neighbours": nb,
        "evaluation_mode": mode,
        "assumptions": assumptions,
        "function_sensitivity": fmpq_str(S),
        "function_sensitivity_source": "declared by the user" if not query.derived
        else "derived (enclosure of the query program's range)" if rb is not None
        else "derived (see the query's docstring)",
        "function_sensitivity_note": query.notes,
        "lattice_sensitivity": sens,
        "sensitivity_check": checked,
        "noise": "discrete Laplace on grid g (exact sampler)",
        "paper_scale_algorithm1": fmpq_str(S * m / to_fmpq(epsilon, "epsilon")),
        "secure_randomness": bool(secure),
    }
    if nb == "add-remove":
        privacy["min_rows"] = min_rows
    privacy.update(fields)
    privacy["guarantee"] = guarantee_block(
        neighbours=nb, domain=f"the public domain of {query.name!r}",
        epsilon=privacy["achieved_epsilon"], delta=privacy.get("delta") or "0",
        secure=secure, assumptions=assumptions, proven=proven, outside=outside,
        min_rows=min_rows if nb == "add-remove" else 2)
    return privacy, scale


def lattice_sensitivity(
    sensitivity: Any, k: IntLike, dim: IntLike, grid: Any = DEFAULT_GRID, *, mode: str = "ball",
    e_max: ExactLike | None = None, float_error: Any = None,
) -> dict:
    """Exact per-coordinate and L1 sensitivity of the lattice centres (one row replaced).

    ``S_coord`` by evaluation mode (derivations in the module docstring):
    ``mean``: ``S + g`` (``S`` from :func:`mean_sensitivity`); ``exact``: ``S + g``;
    ``ball``: ``S + 2 e_max + g`` (``e_max`` defaults to ``g/2``, giving ``S + 2g``);
    ``float``: ``S + 2 float_error + g``.  ``L1 = (k+1)^l S_coord``; the paper's Algorithm 1
    line 4 uses ``(k+1)^l S`` (no rounding).  Exact fmpq (as strings).
    """
    S = to_fmpq(sensitivity, "sensitivity")
    if S < 0:
        raise InvalidParameterError(f"sensitivity must be >= 0, got {fmpq_str(S)}")
    k = check_int(k, "k", minimum=1)
    dim = check_int(dim, "dim", minimum=1, maximum=4)
    g = to_fmpq(grid, "grid")
    if g < 0:
        raise InvalidParameterError(f"grid must be >= 0, got {fmpq_str(g)}")
    m = (k + 1) ** dim
    if mode in ("mean", "exact"):
        per, how = S + g, "S + g (one rounding of the exact value to the grid)"
    elif mode == "ball":
        e = g / 2 if e_max is None else to_fmpq(e_max, "e_max")
        if e < 0:
            raise InvalidParameterError(f"e_max must be >= 0, got {fmpq_str(e)}")
        per, how = S + 2 * e + g, f"S + 2 e_max + g (ball radius <= e_max = {fmpq_str(e)})"
    elif mode == "float":
        if float_error is None:
            raise InvalidParameterError("mode 'float' needs float_error")
        fe = to_fmpq(float_error, "float_error")
        if fe < 0:
            raise InvalidParameterError(f"float_error must be >= 0, got {fmpq_str(fe)}")
        per, how = S + 2 * fe + g, f"S + 2 float_error + g (declared float_error = " \
            f"{fmpq_str(fe)})"
    else:
        raise InvalidParameterError(f"mode must be one of {EVALUATION_MODES}, got {mode!r}")
    return {
        "mode": mode,
        "points": m,
        "per_coordinate": fmpq_str(per),
        "per_coordinate_derivation": how,
        "l1": fmpq_str(m * per),
        "l1_without_rounding": fmpq_str(m * S),
        "linf": fmpq_str(per),
    }


# ------------------------------------------------------------------- sensitivity check


def is_exact_number(v: Any) -> bool:
    """True for the exact number types a user function may return (not bool, not float)."""
    return isinstance(v, (fmpq, fmpz, Fraction)) or (isinstance(v, int)
                                                      and not isinstance(v, bool))


def query_lattice_points(query: FunctionQuery, k: int) -> Any:
    """Exact fmpq tuples for exact/ball queries, a float array otherwise."""
    if query.evaluation in ("exact", "ball") or isinstance(query, ExpressionQuery):
        # a query program rounds the exact point to its format once (no double rounding)
        return exact_lattice_points(k, query.dim)
    return lattice_points(k, query.dim)


def _check_mean_range(query: MeanQuery, n: int, k: int, trials: int, seed: int) -> dict:
    g = np.random.default_rng(seed)  # public synthetic rows, not privacy noise
    pts = lattice_points(k, query.dim)
    lo, hi = float(query.lower), float(query.upper)
    tol = 1e-9 * max(1.0, abs(lo), abs(hi))
    seen_lo, seen_hi = np.inf, -np.inf
    rows = min(n, 4096)  # the range of phi does not depend on n; bounded memory
    for _ in range(trials):
        vals = query.phi_values(query.sample_rows(rows, g), pts)
        seen_lo, seen_hi = min(seen_lo, float(vals.min())), max(seen_hi, float(vals.max()))
        if not np.all(np.isfinite(vals)) or seen_lo < lo - tol or seen_hi > hi + tol:
            raise InvalidParameterError(
                f"declared range [{fmpq_str(query.lower)}, {fmpq_str(query.upper)}] of "
                f"{query.name!r} is violated on public rows (phi reaches [{seen_lo:.6g}, "
                f"{seen_hi:.6g}]); privacy would still hold (values are clamped) but the "
                "answers would be biased")
    return {
        "trials": trials, "rows": rows,
        "kind": "declared range of phi on public rows (accuracy check; "
        "privacy does not depend on it)",
        "declared": [fmpq_str(query.lower), fmpq_str(query.upper)],
        "observed": [repr(seen_lo), repr(seen_hi)], "exact": False, "passed": True,
    }


def check_sensitivity(
    query: FunctionQuery, n: IntLike, k: IntLike, *, trials: int = 20, seed: int = 0
) -> dict:
    """Test the declared ``S(F)`` on random *public* neighbouring databases.

    For ``trials`` random databases (``query.sample_rows``) and a neighbour (one random
    row replaced by a random row), compute ``max_p |F(D,p) - F(D',p)|`` over the lattice:
    exactly for exact values, certified for arb balls (a violation needs
    ``|difference|.lower() > S``), in float64 with the declared ``2 float_error`` and a
    relative slack of 1e-9 for float values.  Exact/ball queries are tested at
    ``min(n, CHECK_ROWS)`` rows (arb cost; ``S`` is a function of the row count).  Mean
    queries: checks instead that ``phi`` stays in its declared range on public rows (privacy
    of a mean query does not depend on it; accuracy does).

    Guarantee
    ---------
    A test, not a proof: passing means no violation was found.  A violation raises
    ``InvalidParameterError`` with the witness.  Never touches the private data.
    """
    n = check_int(n, "n", minimum=2)
    k = check_int(k, "k", minimum=1)
    trials = check_int(trials, "trials", minimum=1)
    if not isinstance(query, FunctionQuery):
        raise ParameterTypeError("query must be a FunctionQuery")
    if isinstance(query, MeanQuery):
        return _check_mean_range(query, n, k, trials, seed)
    n_chk = min(n, CHECK_ROWS) if query.evaluation in ("exact", "ball") else n
    declared = to_fmpq(query.sensitivity(n_chk), "sensitivity")
    slack = 2 * query.float_error if query.float_error is not None else fmpq(0)
    g = np.random.default_rng(seed)  # public synthetic databases, not privacy noise
    pts = query_lattice_points(query, k)
    worst = fmpq(0)
    worst_f = 0.0
    kinds = set()
    for _ in range(trials):
        D = query.sample_rows(n_chk, g)
        D2 = D.copy()
        D2[g.integers(n_chk)] = query.sample_rows(n_chk, g)[g.integers(n_chk)]
        a, b = query.func(D, pts), query.func(D2, pts)
        for x, y in zip(a, b, strict=True):
            if is_exact_number(x) and is_exact_number(y):
                kinds.add("exact")
                diff = abs(to_fmpq(x, "F") - to_fmpq(y, "F"))
                worst = max(worst, diff)
                bad = diff > declared + slack  # exact values of a float evaluation
                shown = fmpq_str(diff)
            elif isinstance(x, arb) or isinstance(y, arb):
                kinds.add("ball")
                da = arb(x) - arb(y) if is_exact_number(x) or is_exact_number(y) else x - y
                lo_abs = arb_to_fmpq_bounds(da.abs_lower())[0] if da.is_finite() else fmpq(0)
                worst = max(worst, lo_abs)
                bad = lo_abs > declared
                shown = f"{da.abs_lower()} (certified lower bound)"
            else:
                kinds.add("float")
                df = abs(float(x) - float(y))
                worst_f = max(worst_f, df)
                bad = df > float(declared + slack) * (1 + 1e-9)
                shown = f"{df:.6g}"
            if bad:
                raise InvalidParameterError(
                    f"declared sensitivity {fmpq_str(declared)} of {query.name!r} is violated: "
                    f"a neighbouring pair of {n_chk} rows moves a lattice value by {shown}")
    exact_only = kinds <= {"exact"}
    return {
        "trials": trials,
        "rows": n_chk,
        "declared": fmpq_str(declared),
        "max_observed": fmpq_str(worst) if "float" not in kinds else f"{worst_f:.17g}",
        "exact": exact_only,
        "values": sorted(kinds),
        "passed": True,
    }


#: The evaluation modes of a lattice value (derivations in :mod:`.bernstein_mech`).
BERNSTEIN_MODES = ("mean", "exact", "ball", "float")


def bernstein_privacy(
    k: IntLike, dim: IntLike, epsilon: ExactLike, delta: ExactLike | None = None, *,
        mode: str = "ball",
    sensitivity: Any = None, lower: Any = None, upper: Any = None, n: IntLike | None = None,
    grid: Any = None, e_max: ExactLike | None = None, float_error: Any = None,
) -> dict[str, Any]:
    """Privacy record of a Bernstein-mechanism configuration (no data needed).

    ``mode="mean"`` needs the declared range ``[lower, upper]`` of ``phi`` and ``n`` (the
    sensitivity is :func:`mean_sensitivity`, unconditional); the other modes need the
    declared ``sensitivity`` ``S(F)`` of one lattice value (listed as an assumption), and
    ``float`` also the declared ``float_error``.  The lattice sensitivity is
    :func:`lattice_sensitivity`; the scale and the achieved epsilon come from
    :func:`~dpverify.mechanisms.privacy.calibrate_laplace`.

    Returns
    -------
    dict (JSON-ready): ``evaluation_mode``, ``assumptions``, ``lattice_sensitivity``,
    ``per_coordinate``, ``l1_sensitivity``, ``noisy_coordinates`` and the calibration fields
    (``epsilon``, ``scale``, ``achieved_epsilon``, ``certificate``, ...).

    Guarantee
    ---------
    Exact sensitivities; ``achieved_epsilon <= epsilon`` (exact, or a rigorous upper bound
    with ``delta``), given the listed assumptions.  alda2017 Algorithm 1, Theorem 7.
    """
    g = DEFAULT_GRID if grid is None else to_fmpq(grid, "grid")
    if not 0 < g <= fmpq(1, 1024):
        raise InvalidParameterError(f"grid must be in (0, 1/1024], got {fmpq_str(g)}")
    k = check_int(k, "k", minimum=1, maximum=10_000)
    dim = check_int(dim, "dim", minimum=1, maximum=4)
    if not isinstance(mode, str) or mode.strip().lower() not in BERNSTEIN_MODES:
        raise InvalidParameterError(f"mode must be one of {BERNSTEIN_MODES}, got {mode!r}")
    mode = mode.strip().lower()
    assumptions: list[str] = []
    if mode == "mean":
        for name, v in (("lower", lower), ("upper", upper), ("n", n)):
            if v is None:
                raise InvalidParameterError(f"{name} is required for mode 'mean'")
        lo, hi = to_fmpq(lower, "lower"), to_fmpq(upper, "upper")
        if not lo <= hi:
            raise InvalidParameterError(
                f"lower must be <= upper, got [{fmpq_str(lo)}, {fmpq_str(hi)}]")
        S = mean_sensitivity(lo, hi, check_int(n, "n", minimum=1, maximum=2**62), g)
    else:
        if sensitivity is None:
            raise InvalidParameterError(f"sensitivity is required for mode {mode!r}")
        S = to_fmpq(sensitivity, "sensitivity")
        if S < 0:
            raise InvalidParameterError(f"sensitivity must be >= 0, got {fmpq_str(S)}")
        assumptions.append("S(F) as given (sensitivity)")
    fe = None
    if mode == "float":
        if float_error is None:
            raise InvalidParameterError(
                "float_error is required for mode 'float' (a float evaluation error must be "
                "declared, or use mode mean/exact/ball)")
        fe = to_fmpq(float_error, "float_error")
        assumptions.append(f"declared float evaluation error {fmpq_str(fe)}")
    em = None if e_max is None else to_fmpq(e_max, "e_max")
    sens = lattice_sensitivity(S, k, dim, g, mode=mode, e_max=em, float_error=fe)
    _, cal = calibrate_laplace(to_fmpq(sens["per_coordinate"], "per_coordinate"),
                               sens["points"], epsilon, delta)
    return {"neighbouring": "same n, one row replaced", "evaluation_mode": mode,
            "assumptions": assumptions, "lattice_sensitivity": sens,
            "per_coordinate": sens["per_coordinate"], "l1_sensitivity": sens["l1"],
            "noisy_coordinates": sens["points"], **cal.to_json()}
