"""Float queries of the Bernstein mechanism written as programs, with a certified float error.

A query given as program text ``P`` over a data row ``x1, ..., xc`` (the data columns, in
order) and a query point ``y1, ..., yl`` is the mean query

    F(D, y) = (1/n) sum_i P(d_i, y)

of the exact (real-number) program.  The release evaluates it in floats, in **exactly
the written order** (:mod:`dpverify.expr.program`: every ``+ - * /`` and ``sqrt`` rounded
to nearest-even in the stated format, literals rounded to the format as a compiler
does, nothing folded or reassociated): each data value and each lattice coordinate
``nu/k`` is rounded to the format, the program runs element by element in numpy
(:func:`~dpverify.mechanisms.float_program.program_values`, checked against an exact
emulation at public points first), and the float results of the ``n`` rows are summed
*exactly* (:func:`~dpverify.mechanisms.exact_sum.exact_sums`: the sum depends neither
on the order of the rows nor on how they are cut into blocks) and divided by ``n``
exactly.

**Float error (certified).**  :func:`dpverify.certify.roundoff.program_bound` bounds
``|fl(P)(x, y) - P(x, y)|`` over the whole box the mechanism feeds the program -- the
public data domain times ``[0, 1]^l`` -- with the inputs modelled as reals rounded to the
format (``round_inputs``: the data values and the exact lattice points ``nu/k``).  The
mean of the float values is then within the same ``E`` of ``F(D, nu/k)``: the float mode
of the release (``S + 2E + g`` per coordinate, :mod:`.bernstein_mech`) with ``E`` proven,
not declared.  The roundoff certificate is embedded in the release (part
``float_error``) and re-checked by ``dpverify verify FILE --part float_error``.

**Sensitivity (derived).**  The range of ``P`` over the same box is enclosed in ball
arithmetic by bisection (:func:`~dpverify.mechanisms.float_program.program_range`):
``P in [L, U]`` gives ``S(F) = (U - L)/n`` (one row replaced moves the mean by
``|P(d, y) - P(d', y)|/n``) and, for add/remove neighbours, ``(U - L)/(n + 1)``
(``F(D + z) - F(D) = (P(z, y) - F(D, y))/(n + 1)``).

Guarantee
---------
The float error bound is the statement of a ``roundoff`` certificate that ``dpverify
verify`` checks independently; the sensitivity is a rigorous enclosure (arb, outward);
the released lattice values are ``round_g`` of the exact mean of the float values, which
depend on each row's own values only.  Bad input raises ``InvalidParameterError`` (or
``ExpressionError``) naming the parameter; a program with no finite bound on the box
(a division by an interval containing 0, overflow) raises ``DomainError``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from flint import fmpq

from ..certify.fpformat import read_format
from ..certify.roundoff import program_bound
from ..certify.roundoff_cert import RoundoffBound
from ..errors import ExpressionError, InvalidParameterError, ParameterTypeError
from ..expr.program import Program, parse_program
from ..numbers import check_int, fmpq_str, to_fmpq
from .bernstein_queries import FunctionQuery
from .exact_sum import exact_sums
from .float_program import (
    check_defined,
    check_evaluator,
    numpy_dtype,
    program_range,
    program_values,
    round_to_format,
    supported,
)

__all__ = ["ExpressionQuery", "expression_query", "FLOAT_PART", "MAX_COLUMNS", "MAX_QUERY_OPS",
           "float_params", "certified_roundoff"]

#: The name of the embedded roundoff certificate in a release file.
FLOAT_PART = "float_error"
#: The most data columns an expression query reads.
MAX_COLUMNS = 16
#: The most operations a query program may have (the certifier's cost grows with it).
MAX_QUERY_OPS = 2000
_MAX_DIM = 4
_ROWS = 1 << 12  # rows per block of the evaluation (bounded memory)


@dataclass(frozen=True)
class ExpressionQuery(FunctionQuery):
    """A Bernstein float query given as a program (:func:`expression_query` builds it).

    ``F(D, y) = (1/n) sum_i P(d_i, y)``; evaluation ``"float"``.  The read-only fields
    are set by :func:`expression_query` only: ``program``, ``float_format``, ``box`` (the
    data domain followed by ``[0, 1]^l``), ``roundoff`` (the certified float error bound
    and its certificate) and ``value_range`` (the enclosure of ``P`` behind the derived
    sensitivity).  A copy made another way (``dataclasses.replace``) has none of them and
    is an ordinary float query: its ``float_error`` and sensitivity are then declared
    assumptions of the privacy record.

    Examples
    --------
    >>> q = expression_query("x1 * y1", [(0, 1)])
    >>> q.evaluation, q.certified, 0.1 <= float(q.sensitivity(10)) < 0.1001
    ('float', True, True)
    """

    program: Program | None = field(default=None, init=False)
    float_format: str = field(default="binary64", init=False)
    box: tuple[tuple[fmpq, fmpq], ...] = field(default=(), init=False)
    roundoff: RoundoffBound | None = field(default=None, init=False)
    value_range: tuple[fmpq, fmpq] | None = field(default=None, init=False)

    @property
    def certified(self) -> bool:
        """True when the float error is the certified bound (built by
        :func:`expression_query`, not a copy)."""
        return self.roundoff is not None and self.program is not None and \
            self.float_error == self.roundoff.bound

    def sensitivity_how(self) -> str:
        """How the sensitivity was derived (for the privacy record)."""
        if self.value_range is None:
            return "declared by the user"
        lo, hi = self.value_range
        return (f"P in [{fmpq_str(lo)}, {fmpq_str(hi)}] on the data domain x [0, 1]^"
                f"{self.dim} (enclosure in ball arithmetic by bisection), so one row "
                "replaced moves the mean by <= (U - L)/n, one row added or removed by "
                "<= (U - L)/(n + 1)")


def float_params(rb: RoundoffBound) -> dict[str, Any]:
    """The fields of a release's ``function_params`` that repeat the roundoff
    certificate's statement (``dpverify verify FILE --part float_error`` binds each one
    to it, :mod:`dpverify.verify.bindings`).

    Examples
    --------
    >>> q = expression_query("x1 + y1", [(0, 1)])
    >>> sorted(float_params(q.roundoff))
    ['box', 'error', 'format', 'inputs', 'program']
    """
    st = rb.certificate().statement
    return {key: st[key] for key in ("program", "format", "inputs", "error", "box")}


def certified_roundoff(query: Any) -> RoundoffBound | None:
    """The certified round-off bound behind ``query.float_error``, or None when the
    query's float error is a declared assumption (any query not built by
    :func:`expression_query`, or a copy of one).

    Examples
    --------
    >>> certified_roundoff(expression_query("x1 * y1", [(0, 1)])) is not None
    True
    """
    if isinstance(query, ExpressionQuery) and query.certified:
        return query.roundoff
    return None


_VAR = re.compile(r"^([xy])([1-9][0-9]*)$")


def _domain(domain: Any) -> tuple[tuple[fmpq, fmpq], ...]:
    if isinstance(domain, str):  # "LO,HI;LO,HI": the CLI's form, read exactly
        domain = [tuple(item.split(",")) for item in domain.split(";")]
    if isinstance(domain, Mapping):
        names = sorted(domain, key=lambda s: (len(str(s)), str(s)))
        want = [f"x{j + 1}" for j in range(len(domain))]
        if names != want:
            raise InvalidParameterError(
                f"domain must name the data columns x1, ..., x{len(domain)}, got "
                f"{', '.join(map(str, sorted(domain)))}")
        pairs = [domain[v] for v in want]
    elif isinstance(domain, Sequence) and not isinstance(domain, (str, bytes)):
        pairs = list(domain)
    else:
        raise ParameterTypeError("domain must be a sequence of (lo, hi) per data column or "
                                 "a mapping {'x1': (lo, hi), ...}")
    if not 1 <= len(pairs) <= MAX_COLUMNS:
        raise InvalidParameterError(f"domain must have 1..{MAX_COLUMNS} columns, got "
                                    f"{len(pairs)}")
    out = []
    for j, pr in enumerate(pairs):
        if isinstance(pr, (str, bytes)) or not isinstance(pr, Sequence) or len(pr) != 2:
            raise InvalidParameterError(f"domain[x{j + 1}] must be a pair (lo, hi)")
        lo, hi = to_fmpq(pr[0], f"domain[x{j + 1}] lo"), to_fmpq(pr[1], f"domain[x{j + 1}] hi")
        if lo > hi:
            raise InvalidParameterError(f"domain[x{j + 1}]: lo > hi "
                                        f"({fmpq_str(lo)} > {fmpq_str(hi)})")
        if max(abs(lo), abs(hi)) > fmpq(2**1000):
            raise InvalidParameterError(f"domain[x{j + 1}] is beyond 2^1000")
        out.append((lo, hi))
    return tuple(out)


def _parse(expr: str, c: int, dim: int | None) -> tuple[Program, int]:
    """The program over ``x1..xc, y1..yl`` and ``l``."""
    xs = [f"x{j + 1}" for j in range(c)]
    try:
        probe = parse_program(expr, xs + [f"y{i + 1}" for i in range(_MAX_DIM)])
    except ExpressionError as exc:
        cols = "x1, the data column" if c == 1 else f"x1..x{c}, the data columns"
        raise ExpressionError(f"{exc} (the variables of a query are {cols}, and "
                              f"y1..y{_MAX_DIM}, the query point)") from None
    live = probe.live()
    used = [int(m.group(2)) for k, op in enumerate(probe.ops)
            if live[k] and op.kind == "var" and (m := _VAR.match(op.name)) and
            m.group(1) == "y"]
    need = max(used, default=1)
    if dim is None:
        dim = need
    dim = check_int(dim, "dim", minimum=1, maximum=_MAX_DIM)
    if need > dim:
        raise InvalidParameterError(f"the expression uses y{need} but dim is {dim}")
    prog = parse_program(expr, xs + [f"y{i + 1}" for i in range(dim)])
    if len(prog.ops) > MAX_QUERY_OPS:
        raise InvalidParameterError(f"expr has {len(prog.ops)} operations; a query program "
                                    f"may have at most {MAX_QUERY_OPS}")
    return prog, dim


def expression_query(expr: str, domain: Any, *, dim: Any = None, format: Any = "binary64",
                     name: str | None = None, rtol: Any = "1e-2", max_boxes: int = 3000,
                     timeout: Any = None) -> ExpressionQuery:
    """A Bernstein float query ``F(D, y) = (1/n) sum_i P(d_i, y)`` from program text, with
    its float error certified and its sensitivity derived.

    Parameters
    ----------
    expr : str
        The program (:func:`~dpverify.expr.program.parse_program`: evaluated in the
        written order; ``+ - * /``, ``sqrt``, ``abs``, assignments ``t = ...;``) over the
        data columns ``x1, ..., xc`` and the query point's coordinates ``y1, ..., yl``.
    domain : sequence, mapping or str
        The public domain of each data column: ``(lo, hi)`` pairs, a mapping
        ``{"x1": (lo, hi), ...}`` or the text ``"LO,HI;LO,HI"`` (exact numbers; part of
        the neighbouring relation: rows outside are refused).  ``c`` is its length.
    dim : int, optional
        ``l`` (1..4); default: the largest ``y`` index the expression uses (at least 1).
    format : {"binary64", "binary32"}
        The float format of every operation, literal and input.
    name : str, optional
        The query's name in the record (default: ``"float program"``).
    rtol, max_boxes, timeout
        Passed to :func:`dpverify.certify.roundoff.program_bound`.

    Returns
    -------
    ExpressionQuery
        ``float_error`` is the certified bound; ``roundoff`` holds it with its
        certificate; ``sensitivity(n) = (U - L)/n`` from :func:`program_range`.

    Guarantee
    ---------
    ``|fl(P)(x, y) - P(x, y)| <= float_error`` for every real ``x`` in the domain and ``y``
    in ``[0, 1]^l``, both rounded to the format (the ``roundoff`` certificate's
    statement); ``L <= P <= U`` there (rigorous).  A program with no finite bound on the
    box raises ``DomainError``; ``fma`` and calls are refused.

    Examples
    --------
    A kernel ``1 - (x1 - y1)^2`` on rows in ``[0, 1]``: ``P`` ranges over ``[0, 1]``, so
    ``S(F) = 1/n`` (up to the enclosure's slack), and its binary64 error is a few ulps:

    >>> q = expression_query("1 - (x1 - y1) * (x1 - y1)", [(0, 1)])
    >>> float(q.sensitivity(100)) <= 0.0101, float(q.float_error) < 1e-15
    (True, True)
    >>> q.roundoff.certificate().check().status
    'holds'
    """
    if not isinstance(expr, str):
        raise ParameterTypeError(f"expr must be a string, got {type(expr).__name__}")
    if not expr.strip():
        raise InvalidParameterError("expr must be a non-empty string")
    fmt = read_format(format)
    box_x = _domain(domain)
    prog, dim = _parse(expr, len(box_x), dim)
    supported(prog)
    box = box_x + tuple((fmpq(0), fmpq(1)) for _ in range(dim))
    check_defined(prog, box)  # a vanishing divisor: refused now, not at the time limit
    ranges = dict(zip(prog.variables, box))
    rb = program_bound(prog, ranges, format=fmt, round_inputs=True, error="abs",
                       rtol=rtol, max_boxes=max_boxes, timeout=timeout)
    lo, hi = program_range(prog, box)
    width = hi - lo
    c = len(box_x)
    # a binary64 d is >= lo exactly when d >= the least binary64 >= lo (and <= hi alike)
    b64 = read_format("binary64")
    lows = [float(round_to_format([b64.ceil(a)], b64)[0]) for a, _ in box_x]
    highs = [float(round_to_format([b64.floor(b)], b64)[0]) for _, b in box_x]
    if any(a > b for a, b in zip(lows, highs)):
        raise InvalidParameterError("domain: a column's range holds no binary64 number")
    label = name if name is not None else "float program"
    if not isinstance(label, str) or not label:
        raise ParameterTypeError("name must be a non-empty string")

    def func(data: Any, ys: Any) -> list[fmpq]:
        X = np.asarray(data, dtype=np.float64)
        if X.ndim != 2 or X.shape[1] != c:
            raise InvalidParameterError(f"data must have {c} columns, got shape {X.shape}")
        pts = [tuple(to_fmpq(v, "query point") for v in y) for y in ys]
        if any(len(y) != dim for y in pts):
            raise InvalidParameterError(f"query points must have {dim} coordinates")
        check_evaluator(prog, fmt, box)  # public points only, before any data value is read
        # the exact lattice points rounded to the format once (never through binary64)
        ycols = [round_to_format([y[i] for y in pts], fmt).reshape(-1, 1) for i in range(dim)]
        n = len(X)
        totals = [fmpq(0)] * len(pts)
        dt = numpy_dtype(fmt)
        for r0 in range(0, n, _ROWS):
            block = X[r0:r0 + _ROWS]
            # float64 -> float32 is one rounding of the row's exact value (the model's)
            inputs = {f"x{j + 1}": block[:, j].astype(dt).reshape(1, -1) for j in range(c)}
            inputs.update({f"y{i + 1}": ycols[i] for i in range(dim)})
            vals = np.broadcast_to(program_values(prog, fmt, inputs), (len(pts), len(block)))
            if not np.all(np.isfinite(vals)):
                raise InvalidParameterError(  # excluded by the certificate (no overflow)
                    f"query {label!r}: a non-finite float value; refused")
            totals = [t + s for t, s in zip(totals, exact_sums(vals))]
        return [t / n for t in totals]

    def sample(n: int, g: Any) -> np.ndarray:
        cols = [g.uniform(float(a), float(b), size=n) if a < b else np.full(n, float(a))
                for a, b in zip(lows, highs)]
        return np.clip(np.column_stack(cols), lows, highs)

    def validate(data: np.ndarray) -> None:
        if data.ndim != 2 or data.shape[1] != c:
            raise InvalidParameterError(f"data must have {c} columns (x1..x{c}), got "
                                        f"{data.shape[1] if data.ndim == 2 else data.ndim}")
        if not np.all(np.isfinite(data)):
            raise InvalidParameterError("data values must be finite")
        for j in range(c):
            if np.any(data[:, j] < lows[j]) or np.any(data[:, j] > highs[j]):
                # the rule, never the value (private data); the caller names the row
                raise InvalidParameterError(
                    f"data column x{j + 1} must lie in [{fmpq_str(box_x[j][0])}, "
                    f"{fmpq_str(box_x[j][1])}]")

    q = ExpressionQuery(
        name=label, func=func, sensitivity=lambda n: width / n, dim=dim, sample_rows=sample,
        params=float_params(rb),
        validate=validate,
        notes=f"F = (1/n) sum_i P(d_i, y), P in [{fmpq_str(lo)}, {fmpq_str(hi)}] "
              f"(enclosure): S(F) = (U - L)/n; add/remove: (U - L)/(n + 1)",
        evaluation="float", float_error=rb.bound,
        add_remove_sensitivity=lambda n: width / (n + 1))
    for key, value in (("program", prog), ("float_format", fmt.name), ("box", box),
                       ("roundoff", rb), ("value_range", (lo, hi)), ("derived", True)):
        object.__setattr__(q, key, value)
    return q

