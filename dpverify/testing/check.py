"""Check a float implementation against its reference, in ulps, over millions of inputs.

:func:`check_implementation` searches the domain (:mod:`dpverify.testing.points`),
screens every input in numpy with rigorous error bounds (:mod:`dpverify.testing.models`,
:mod:`dpverify.testing.screen`), decides the doubtful and the worst inputs exactly
(:mod:`dpverify.testing.decide`), runs locally or on Dask
(:mod:`dpverify.testing.distribute`) and reports (:mod:`dpverify.testing.report`).
:func:`ulp_of` is the unit of the comparison.  Also the pytest fixture ``dpverify_check``
(:mod:`dpverify.pytest_plugin`).

Guarantee
---------
With a rigorous reference (an expression, a polynomial, an exact function): at every
checked input the error ``|impl(x) - f(x)|`` is enclosed rigorously -- by the screen's
bounds or by exact evaluation -- and a point passes only if its enclosure is within the
limit.  Floats only *choose* the inputs and *evaluate* the bounds, whose rounding errors
are themselves bounded.  With a float reference the comparison is exact but the
reference's own error is unknown: the report says "reference not rigorous".
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from typing import Any

import numpy as np
from flint import fmpq

from ..errors import InvalidParameterError, ParameterTypeError
from ..numbers import ExactLike, check_int, fmpq_str, to_fmpq
from .coverage import coverage
from .decide import decide_point
from .distribute import check_backend, default_workers, run_tasks
from .formats import BINARY64, binary_format, pow2, round_nearest, ulp_exponent
from .hardcases import special_points
from .points import (
    DEFAULT_POINTS,
    MAX_POINTS,
    PER_POINT_DEFAULT,
    Domain,
    given_tasks,
    half_width,
    make_domain,
    plan,
    plan_bits,
    refine,
)
from .properties import PropertyResult, parity, range_limits, special_values
from .references import is_vectorized, resolve_reference
from .report import ImplementationCheck, build_report, failure_message
from .run import Setup, Tally, call_impl
from .screen import Tolerance
from .state import StateFile

__all__ = ["ImplementationCheck", "check_implementation", "ulp_of", "ADAPTIVE_ROUNDS"]

#: Rounds of the adaptive search (each refines around the worst points found so far).
ADAPTIVE_ROUNDS = 3


def ulp_of(value: Any, dtype: Any = np.float64) -> fmpq:
    """The ulp of the number of the format (binary64, or binary32 with
    ``dtype=numpy.float32``) nearest to the exact ``value``: ``math.ulp`` of the correctly
    rounded value; the subnormal spacing at zero; the largest finite number's ulp beyond
    it.  An exact rational.

    Examples
    --------
    Binary64 numbers in ``[1, 2)`` are ``2^-52`` apart, binary32 ones ``2^-23``:

    >>> import numpy as np
    >>> from flint import fmpq
    >>> ulp_of(1), ulp_of(fmpq(3, 2)) == fmpq(1, 2**52), ulp_of(1, np.float32)
    (1/4503599627370496, True, 1/8388608)
    >>> ulp_of(0) == fmpq(1, 2**1074)       # the subnormal spacing
    True
    """
    fmt = binary_format(dtype)
    return pow2(ulp_exponent(round_nearest(to_fmpq(value, "value"), fmt), fmt))


def _limits(ulps: Any, atol: Any) -> tuple[fmpq | None, fmpq | None, Tolerance]:
    u = None if ulps is None else to_fmpq(ulps, "ulps")
    a = None if atol is None else to_fmpq(atol, "atol")
    if u is not None and u < 0:
        raise InvalidParameterError(f"ulps must be >= 0, got {fmpq_str(u)}")
    if a is not None and a < 0:
        raise InvalidParameterError(f"atol must be >= 0, got {fmpq_str(a)}")
    if u is None and a is None:
        u = fmpq(1)

    def out(q: fmpq | None) -> tuple[float | None, float | None]:
        if q is None:
            return None, None
        f = round_nearest(q, BINARY64)
        lo = f if fmpq(*f.as_integer_ratio()) <= q else math.nextafter(f, -math.inf)
        hi = f if fmpq(*f.as_integer_ratio()) >= q else math.nextafter(f, math.inf)
        return lo, hi

    (ul, uh), (al, ah) = out(u), out(a)
    return u, a, Tolerance(ul, uh, al, ah)


def _ndim(v: Any) -> int:
    """``numpy.ndim``, with -1 for ragged nested sequences (numpy raises on them)."""
    try:
        return int(np.ndim(v))
    except ValueError:
        return -1


def _explicit(points: Any, dtype: Any) -> np.ndarray:
    if _ndim(points) == 0:
        raise ParameterTypeError(f"points must be a count (an int), 'all' or an array of "
                                 f"inputs, got {type(points).__name__}")
    try:
        xs = np.asarray(points, dtype=np.float64).ravel()
    except (TypeError, ValueError) as exc:
        raise ParameterTypeError(f"points must be numbers (the inputs to check): {exc}") \
            from None
    if xs.size > MAX_POINTS:
        raise InvalidParameterError(f"points must have at most {MAX_POINTS} entries, "
                                    f"got {xs.size}")
    if xs.size == 0:
        raise InvalidParameterError("points must not be empty")
    if not np.all(np.isfinite(xs)):
        raise InvalidParameterError("points must be finite")
    if np.dtype(dtype) == np.float32:
        with np.errstate(over="ignore"):
            same = xs.astype(np.float32).astype(np.float64) == xs
        if not np.all(same):
            bad = float(xs[~same][0])
            raise InvalidParameterError(f"points must be binary32 numbers with "
                                        f"dtype=float32, got {bad!r}")
    return xs


def _budget(points: Any, per_point: bool) -> int | str:
    if points is None:
        # exact evaluation decides every point of a per-point reference, and every point of
        # an ulps=0 check (an enclosure never proves equality): a smaller default
        return PER_POINT_DEFAULT if per_point else DEFAULT_POINTS
    if isinstance(points, str):
        if points != "all":
            raise InvalidParameterError(f"points must be a count, 'all' or an array of "
                                        f"inputs, got {points!r}")
        return "all"
    return check_int(points, "points", minimum=1, maximum=MAX_POINTS)


def _probe(dom: Domain, dtype: Any) -> np.ndarray:
    return np.array([dom.lo, dom.hi], dtype=np.float64).astype(dtype)


def check_implementation(
    impl: Callable[..., Any],
    reference: Any,
    points: Any = None,
    ulps: ExactLike | None = None,
    atol: ExactLike | None = None,
    *,
    domain: Any = None,
    dtype: Any = np.float64,
    breakpoints: Any = None,
    seed: int = 0,
    backend: str = "local",
    scheduler: Any = None,
    progress: Callable[[str, int, int], None] | None = None,
    raise_on_failure: bool = True,
    exhaustive: bool = False,
    state: str | None = None,
    first_failures: int = 10,
    properties: bool = True,
    symmetry: str | None = None,
    ref_ulps: ExactLike | None = None,
    workers: int | None = None,
) -> ImplementationCheck:
    """Check a float implementation ``impl`` against its reference, in ulps, at a million
    inputs by default.

    Parameters
    ----------
    impl : callable
        Your code: takes a 1-D numpy array of inputs of ``dtype`` and returns one output
        per input (anything ``numpy.asarray`` reads), or a scalar function such as
        ``math.erfc`` (called once per input).
    reference : expression, polynomial, Approximation, (name, params) or function
        The function ``impl`` should compute (one variable):

        * an expression of the safe language (:mod:`dpverify.expr`): ``"erfc(x)"``,
          ``"exp(-x^2/2)"``, an :class:`~dpverify.expr.Expr`, or ``("expr", {"f": text,
          "variable": name})``: evaluated rigorously in arb ball arithmetic;
        * a :mod:`dpverify.exact` polynomial, a ``numpy.polynomial`` ``Polynomial`` /
          ``Chebyshev`` (read exactly; *its own domain* is the default domain), or a list
          of monomial coefficients;
        * an :class:`~dpverify.Approximation` (its polynomial and domain: integers or one
          interval), or a construction by command name with any parameters:
          ``("or", {"k": 100, "gamma": "1e-6"})``, ``"and"``, ``"rofk"``, ``"dlist"``
          (``h_k``), ``"jackson-approx"``, ``"bernstein-approx"``, ``"minimax"``,
          ``"or-chebyshev"``, ``"or-minimax"``, ``"dlist-h"``;
        * a function (or an object with ``evaluate``/``as_fmpq_poly``) returning exact
          numbers (``fmpq``, ``int``, ``Fraction``) at an ``fmpq`` point: rigorous, one
          Python call per point (default budget :data:`~dpverify.testing.points.PER_POINT_DEFAULT`);
        * a function returning floats (``math.exp``, ``numpy.exp``, ``scipy.special.erfc``,
          vectorised or not): its values are taken as the reference -- *not rigorous*,
          and the report says so.
    points : int, "all" or array-like, optional
        A budget of inputs for the search (default 10^6; see below), ``"all"`` for every
        number of the format in the domain, or the inputs themselves.  Where every point
        needs exact evaluation -- an exact Python function as the reference, or ``ulps=0``
        (an enclosure never proves equality) -- the default is ``2^14``.
    ulps, atol : exact numbers, optional
        A point passes when ``|impl(x) - f(x)| <= ulps * ulp(f(x))`` or ``<= atol`` (either
        limit suffices); neither given: ``ulps = 1``.  ``ulp(v)`` (:func:`ulp_of`) is the
        ulp of the number of the format nearest to the exact ``v``; a correctly rounded
        implementation errs by at most ``1/2`` ulp; ``ulps=0`` demands the exact value.
    domain : (lo, hi), optional
        The interval searched; default the reference's own (an Approximation's,
        a polynomial's ``domain``, numpy's ``[-1, 1]``), or the span of the given inputs;
        required otherwise.
    dtype : numpy.float64 or numpy.float32
        The format of the inputs, of the ulps and of the correct rounding.
    breakpoints : sequence of exact numbers, optional
        Where your implementation switches method: the floats around each are checked.
    seed : int
        Seed of the random inputs (the same seed, the same inputs, on every backend).
    backend : "local" or "dask"; scheduler : address or distributed.Client, optional
        Spread the tasks (2^18 points each) over a Dask cluster (an embedded
        ``LocalCluster`` by default; ``pip install "dpverify[dask]"``): same report.
    progress : callable(stage, done, total), optional
        Called after each task.
    raise_on_failure : bool
        Raise ``AssertionError`` when a point fails (default); else return the report with
        ``passed=False``.
    exhaustive : bool
        Every binary32 input of the domain (``dtype=numpy.float32``; default domain: the
        whole binary32 line), in bit-pattern order, in tasks of ``2^21`` inputs on
        ``workers`` local processes or on Dask.
    state : path, optional
        With ``exhaustive``: a JSON state file recording every finished task; the same call
        resumes an interrupted run from it (:mod:`dpverify.testing.state`).
    first_failures : int
        How many failing inputs the report names (``first_failures``), first in
        bit-pattern order, each decided exactly (default 10).
    properties : bool
        Run the named property checks (signed zeros, special values, symmetry,
        monotonicity, range: :mod:`dpverify.testing.properties`); default True.
    symmetry : "odd", "even", "none" or None
        The reference's parity for the symmetry check; None infers it from an expression.
    ref_ulps : exact number, optional
        The declared error of a float reference, in ulps of its binary64 result: every
        error becomes an exact interval that accounts for it (trusted, not checked).
    workers : int, optional
        Local processes (forked): default every core for ``exhaustive``, else 1.

    Returns
    -------
    ImplementationCheck
        The worst input, the reference there (exact or a tight ball) and its correctly
        rounded value, the output, the error in ulps and absolute, a rigorous bound on all
        errors, a histogram and a profile (``report.save(path)``; ``dpverify plot``); the
        first failing inputs, the count of inputs not correctly rounded, the singular
        inputs (poles), the property checks, and (default search) its coverage.

    Raises
    ------
    AssertionError
        Some point fails, or cannot be decided, or ``impl`` returns the wrong shape: the
        message names the input that misses the limit by most (decimal and hex), the
        exact reference, the output, the error, and the counts; ``.report`` holds the
        report.
    InvalidParameterError, ParameterTypeError
        Bad arguments.

    Notes
    -----
    The search (budget ``N``) on an interval: the ends, the breakpoints, 0, every binade
    of either sign (first and last float of each; with ``N >= 2^17`` also the middle and
    two random ones: these come on top of ``N``), a polynomial's Chebyshev points;
    ``N/2`` uniform and ``N/4`` log-uniform random inputs (uniform over the
    representable numbers); then ``N/4`` in three adaptive rounds around the worst
    inputs found, in nested windows, so a narrow bump is found from its shoulders.  A
    domain with at most ``N`` numbers of the format is checked exhaustively; an integer
    domain takes every integer (up to ``max(100000, N)``).

    Guarantee
    ---------
    With a rigorous reference, each point's error is enclosed rigorously (the screen's
    bounds: Taylor models with arb remainders evaluated by a compensated Horner scheme
    with a proven error bound; or exact evaluation at growing precision), so a passing
    report means every checked input is within the limit.  Inputs not checked are not
    covered: this is testing, not proof (see ``dpverify evalbound`` for bounds over all
    inputs).

    Examples
    --------
    ``numpy.sqrt`` is correctly rounded (IEEE 754), so it passes with half an ulp to
    spare; a version off by the factor ``1 + 2^-50`` (about 4.5 ulps) fails:

    >>> import numpy as np
    >>> from flint import fmpq
    >>> report = check_implementation(np.sqrt, "sqrt(x)", points=1000, domain=(0, 4))
    >>> report.passed, report.worst_ulps <= fmpq(1, 2)
    (True, True)
    >>> def off(x):
    ...     return np.sqrt(x) * (1 + 2.0**-50)
    >>> bad = check_implementation(off, "sqrt(x)", points=1000, domain=(1, 4),
    ...                            raise_on_failure=False)
    >>> bad.passed, bad.worst_ulps > 4
    (False, True)
    """
    __tracebackhide__ = True   # pytest: the failure is in the caller's code, not here
    if not callable(impl):
        raise ParameterTypeError(f"impl must be callable, got {type(impl).__name__}")
    u, a, tol = _limits(ulps, atol)
    fmt = binary_format(dtype)
    backend = check_backend(backend, scheduler)
    seed = check_int(seed, "seed", minimum=0)
    first_n = check_int(first_failures, "first_failures", minimum=0, maximum=10_000)
    if workers is not None:
        workers = check_int(workers, "workers", minimum=1, maximum=4096)
    for name, flag in (("raise_on_failure", raise_on_failure), ("exhaustive", exhaustive),
                       ("properties", properties)):
        if not isinstance(flag, bool):
            raise ParameterTypeError(f"{name} must be a bool")
    if symmetry not in (None, "odd", "even", "none"):
        raise InvalidParameterError(f"symmetry must be 'odd', 'even', 'none' or None "
                                    f"(inferred), got {symmetry!r}")
    if exhaustive:
        if fmt.name != "binary32":
            raise InvalidParameterError(
                "exhaustive=True checks every binary32 input (dtype=numpy.float32); "
                "binary64 has 2^64 of them: use points=N")
        if points is not None:
            raise InvalidParameterError("exhaustive=True visits every input: leave points "
                                        "unset")
    if state is not None and not exhaustive:
        raise InvalidParameterError("state= records an exhaustive run (exhaustive=True)")
    explicit = points is not None and not isinstance(points, (int, str, np.integer))
    xs = _explicit(points, fmt.dtype) if explicit else None
    if exhaustive and domain is None and not _has_domain(reference):
        domain = (-fmt.max_finite, fmt.max_finite)   # the whole line of the format
    ref, (kind, lo, hi) = resolve_reference(
        reference, domain, None if xs is None else (float(xs.min()), float(xs.max())),
        ref_ulps=ref_ulps)
    dom = make_domain(kind, lo, hi, fmt)
    if breakpoints is not None and (isinstance(breakpoints, (str, bytes))
                                    or _ndim(breakpoints) != 1):
        raise ParameterTypeError(f"breakpoints must be a sequence of numbers, got "
                                 f"{type(breakpoints).__name__}")
    bps = [to_fmpq(b, "breakpoints") for b in (breakpoints if breakpoints is not None
                                               else ())]
    budget: int | str = 0
    rest = 0
    if exhaustive:
        tasks = plan_bits(dom)
    elif xs is not None:
        tasks = given_tasks(xs)
    else:
        budget = _budget(points, ref.per_point or (u == 0 and a is None))
        extra = _special(ref, dom) if dom.kind == "interval" and budget != "all" else None
        tasks, rest = plan(dom, budget, bps, ref.degree, extra)
    expr = getattr(ref, "expr", None)
    par = _parity(expr, symmetry) if properties and dom.kind == "interval" else None
    rng = _range(expr, dom) if properties and dom.kind == "interval" else None
    setup = Setup(impl, is_vectorized(impl, _probe(dom, fmt.dtype)), ref, dom, u, a, tol,
                  seed, par[0] if par else None, None if rng is None else rng[:2], first_n,
                  True, properties)
    t0 = time.perf_counter()
    store = _state(state, setup, impl, len(tasks))
    done, start = store.load() if store is not None else (set(), None)
    done_now = set(done)

    def record(k: int, total: Tally) -> None:
        done_now.add(k)
        if store is not None:
            store.save(done_now, total)

    tally = run_tasks(tasks, setup, backend, scheduler, progress,
                      "exhaustive" if exhaustive else "search", start=start, skip=done,
                      on_done=record, workers=workers if workers is not None else
                      default_workers() if exhaustive else 1)
    if rest > 0:
        spacing = 2 * half_width(dom) / max(int(budget) // 2, 1)
        for r in range(ADAPTIVE_ROUNDS):
            more = refine(dom, tally.screen_top, rest, ADAPTIVE_ROUNDS, r, spacing)
            tally = tally.merge(run_tasks(more, setup, backend, scheduler, progress,
                                          f"adaptive round {r + 1}"))
    props = _properties(setup, tally, par, rng) if properties else ()
    cover = None if exhaustive or xs is not None or dom.kind != "interval" or \
        budget == "all" or rest == 0 else coverage(dom, int(budget))
    report = build_report(tally, ulps=u, atol=a, rigorous=ref.rigorous, reference=ref.what,
                          fmt_name=fmt.name, domain=(dom.lo, dom.hi),
                          seconds=time.perf_counter() - t0, backend=backend,
                          exhaustive=exhaustive, properties=props, coverage=cover,
                          resumed=len(done), tasks=len(tasks))
    if not report.passed and raise_on_failure:
        err = AssertionError(failure_message(report, tally))
        err.report = report  # type: ignore[attr-defined]
        raise err
    return report


def _has_domain(reference: Any) -> bool:
    """Whether the reference carries its own domain (a polynomial, an Approximation)."""
    return getattr(reference, "domain", None) is not None or (
        isinstance(reference, tuple) and len(reference) == 2 and isinstance(reference[0], str)
        and reference[0] != "expr")


def _special(ref: Any, dom: Domain) -> np.ndarray | None:
    """Hard cases and the floats around zeros and poles (:mod:`.hardcases`)."""
    expr = getattr(ref, "expr", None)
    if expr is None:
        return None
    return special_points(expr, dom.lo, dom.hi, dom.fmt)


def _parity(expr: Any, symmetry: str | None) -> tuple[str, str] | None:
    """(parity, how) for the symmetry check: declared, or inferred from the expression."""
    if symmetry == "none":
        return None
    if symmetry is not None:
        return symmetry, "declared"
    if expr is None or len(expr.variables) != 1:
        return None
    p = parity(expr.tree)
    return None if p is None else (p, "inferred from the expression")


def _range(expr: Any, dom: Domain) -> tuple[float, float, str] | None:
    if expr is None:
        return None
    return range_limits(expr, dom.lo_q, dom.hi_q, dom.fmt)


def _state(path: str | None, setup: Setup, impl: Any, n: int) -> StateFile | None:
    if path is None:
        return None
    name = f"{getattr(impl, '__module__', '')}.{getattr(impl, '__qualname__', type(impl).__name__)}"
    dom = setup.dom
    return StateFile(path, {
        "reference": setup.ref.what, "implementation": name, "format": dom.fmt.name,
        "domain": [dom.lo.hex(), dom.hi.hex()], "ulps": None if setup.ulps is None else
        str(setup.ulps), "atol": None if setup.atol is None else str(setup.atol),
        "tasks": n, "first": setup.first, "properties": setup.properties})


def _properties(setup: Setup, tally: Tally, par: tuple[str, str] | None,
                rng: tuple[float, float, str] | None) -> tuple[PropertyResult, ...]:
    """The named property checks of the report (:mod:`.properties`)."""

    def call(v: np.ndarray) -> np.ndarray:
        return call_impl(setup, v)

    def decide(x: float, y: float) -> Any:
        return decide_point(setup.ref, x, y, setup.fmt, setup.ulps, setup.atol)

    zeros, special = special_values(setup, call, decide)
    out = [zeros, special]
    for name, detail, skipped in (
            ("symmetry", "" if par is None else f"{par[0]}, {par[1]}",
             "no parity declared or inferred"),
            ("monotonicity", "between consecutive checked inputs, on the pieces where the "
             "reference is monotone", "no monotone piece"),
            ("range", "" if rng is None else f"[{rng[0]!r}, {rng[1]!r}] on {rng[2]}",
             "the reference has no bounded range on a half-line containing the domain")):
        t = tally.props.get(name)
        if t is None or t.checked == 0:
            out.append(PropertyResult(name, "skipped", detail=skipped))
            continue
        # a correctly rounded implementation of a monotone (odd, even) function is
        # monotone (odd, even): a violation fails a check of correct rounding, and is
        # reported ("warn") when the limit allows larger errors
        soft = name in ("symmetry", "monotonicity") and not _cr_limit(setup)
        verdict = "pass" if not t.violations else "warn" if soft else "fail"
        out.append(PropertyResult(name, verdict, t.checked, t.violations, detail,
                                  tuple(e for _, e in t.examples)))
    return tuple(out)


def _cr_limit(setup: Setup) -> bool:
    """The limit demands correct rounding (at most half an ulp, no absolute limit)."""
    return setup.atol is None and setup.ulps is not None and setup.ulps <= fmpq(1, 2)
