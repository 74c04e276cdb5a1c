"""Certified round-off bounds of straight-line float programs (binary64, binary32).

:func:`program_bound` bounds ``|fl(P)(x) - P(x)|`` (absolute), ``|fl(P)(x) - P(x)| /
|P(x)|`` (relative) or the same in ulps of ``P(x)`` over every input ``x`` of a box, where
``P`` is the program's exact value (real arithmetic, literals as the reals they spell) and
``fl(P)`` the value the program computes in the format: every ``+ - * /``, ``sqrt`` and
``fma`` rounded to nearest (ties to even), literals rounded to the format as a compiler
does, inputs floats of the format (or, with ``round_inputs``, reals rounded to the format
first), called functions correctly rounded or within a declared number of ulps.  The
result carries a checkable certificate (kind ``roundoff``, docs/certificates.md).

Method (Solovyev et al., *Rigorous estimation of floating-point round-off errors with
symbolic Taylor expansions*, TOPLAS 2018 -- FPTaylor): the error is expanded to first
order in the individual rounding errors, with a rigorous bound on the remainder; each
first-order coefficient is bounded over the box in ball arithmetic with mean-value forms
(:mod:`.roundoff_box`), and a branch and bound bisects the box with the largest bound until
the largest bound is within ``rtol`` of the integrand's value at a box centre (a heuristic
target: the bound is rigorous whenever the search stops), the box budget is spent, the
last 400 bisections lowered the largest bound by less than ``rtol/4``, no bisection helps
any more, or the time is up.  The boxes are the certificate's evidence; the
checker (:mod:`dpverify.verify.roundoff`) re-derives each box's bound with its own
evaluator.

Guarantee
---------
For every input of the box (every float of the format in it; with ``round_inputs`` every
real in it, rounded to the format) the stated error is ``<= bound``, under the stated
model.  Raises :class:`~dpverify.errors.DomainError` when no finite bound exists on some
part of the box (a division by zero, a function outside its domain, overflow, a vanishing
target for relative errors) and names the point.
"""

from __future__ import annotations

import heapq
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from flint import fmpq

from ..budget import after, check_timeout, checkpoint, limits
from ..errors import DomainError, InvalidParameterError, ParameterTypeError
from ..expr.fpcore import FPCore, read_fpcore
from ..expr.program import CALLS, Program, parse_program
from ..numbers import check_int, fmpq_to_decimal, to_fmpq
from ..progress import ProgressCallback, report
from .fpformat import Format, floor_log2, pow2, read_format
from .roundoff_box import Box, BoxResult, Setup, analyse_box
from .roundoff_cert import ERRORS, RoundoffBound

__all__ = ["program_bound", "search", "read_models", "read_program", "round_up",
           "DEFAULT_BOXES", "MAX_BOXES"]

#: the default cap on the boxes of the search
DEFAULT_BOXES = 3000
#: the largest cap accepted (the checker's cap on the evidence)
MAX_BOXES = 200_000
_STALL = 400  # splits that must gain rtol/4 of the largest bound, else the search stops
_MAX_DEPTH = 80  # bisections of one variable's range before a box without bound is refused


def round_up(q: fmpq, digits: int = 7) -> fmpq:
    """``q`` rounded up to ``digits`` significant decimal digits (an exact rational): the
    statement's bound, short and a little above the search's maximum."""
    return to_fmpq(fmpq_to_decimal(q, digits, "up"))


def read_models(functions: Any, program: Program) -> dict[str, fmpq | None]:
    """The accuracy model of each function the program calls: ``None`` (correctly rounded)
    or an exact number of ulps.  ``functions`` is ``"correctly-rounded"`` (every function),
    or a mapping ``{name: "correctly-rounded" | ulps}``; every called function needs one,
    and a model for a function the program does not call is refused."""
    calls = program.calls
    if functions is None:
        functions = {}
    if isinstance(functions, str):
        if functions != "correctly-rounded":
            raise InvalidParameterError(f"functions must be 'correctly-rounded' or a mapping "
                                        f"name -> model, got {functions!r}")
        return {c: None for c in calls}
    if not isinstance(functions, Mapping):
        raise ParameterTypeError(f"functions must be a mapping or 'correctly-rounded', got "
                                 f"{type(functions).__name__}")
    out: dict[str, fmpq | None] = {}
    for name, model in functions.items():
        if name not in CALLS:
            raise InvalidParameterError(f"functions: unknown function {name!r}")
        if name not in calls:
            raise InvalidParameterError(f"functions: the program does not call {name}")
        if model == "correctly-rounded":
            out[name] = None
            continue
        q = to_fmpq(model, f"functions[{name!r}]")
        if not q > 0:
            raise InvalidParameterError(f"functions[{name!r}] must be > 0 ulps, got {model!r}")
        out[name] = q
    missing = [c for c in calls if c not in out]
    if missing:
        raise InvalidParameterError(
            f"the program calls {', '.join(missing)}: state the accuracy of the library "
            "(functions={'exp': 1} for 1 ulp, or 'correctly-rounded')")
    return out


def read_program(program: Any, ranges: Any, fmt: Any) -> tuple[Program, Box, Format]:
    """The program, its box (variable order) and format from the API's arguments: a
    :class:`~dpverify.expr.program.Program`, infix text (variables from ``ranges``), or an
    :class:`~dpverify.expr.fpcore.FPCore` / FPCore text (box and precision from the core
    unless ``ranges`` / ``fmt`` are given)."""
    core: FPCore | None = None
    if isinstance(program, FPCore):
        core = program
    elif isinstance(program, str) and program.lstrip().startswith("(FPCore"):
        core = read_fpcore(program)
    if core is not None:
        prog = core.program
        box = core.box
        fmt_default = core.precision
    elif isinstance(program, Program):
        prog, fmt_default, box = program, "binary64", ()
    elif isinstance(program, str):
        if not isinstance(ranges, Mapping):
            raise ParameterTypeError("ranges must map each variable name to (lo, hi) for a "
                                     "program given as text")
        prog, fmt_default, box = parse_program(program, list(ranges)), "binary64", ()
    else:
        raise ParameterTypeError(f"program must be text, a Program or an FPCore, got "
                                 f"{type(program).__name__}")
    if ranges is not None:
        box = _read_ranges(ranges, prog.variables)
    elif core is None:
        raise InvalidParameterError("ranges are required (one (lo, hi) per variable)")
    return prog, box, read_format(fmt_default if fmt is None else fmt)


def _read_ranges(ranges: Any, variables: Sequence[str]) -> Box:
    if isinstance(ranges, Mapping):
        extra = set(ranges) - set(variables)
        if extra:
            raise InvalidParameterError(f"ranges: {sorted(extra)[0]!r} is not a variable of "
                                        "the program")
        missing = [v for v in variables if v not in ranges]
        if missing:
            raise InvalidParameterError(f"ranges: no range for {missing[0]!r}")
        pairs = [ranges[v] for v in variables]
    elif isinstance(ranges, Sequence) and not isinstance(ranges, (str, bytes)):
        pairs = list(ranges)
        if len(pairs) != len(variables):
            raise InvalidParameterError(f"ranges: {len(variables)} pairs needed, got "
                                        f"{len(pairs)}")
    else:
        raise ParameterTypeError(f"ranges must be a mapping or a sequence of (lo, hi), got "
                                 f"{type(ranges).__name__}")
    out = []
    for v, pr in zip(variables, pairs):
        if isinstance(pr, (str, bytes)) or not isinstance(pr, Sequence) or len(pr) != 2:
            raise InvalidParameterError(f"ranges[{v!r}] must be a pair (lo, hi)")
        lo, hi = to_fmpq(pr[0], f"ranges[{v!r}][0]"), to_fmpq(pr[1], f"ranges[{v!r}][1]")
        if lo > hi:
            raise InvalidParameterError(f"ranges[{v!r}]: lo > hi ({pr[0]} > {pr[1]})")
        out.append((lo, hi))
    return tuple(out)


def program_bound(program: Any, ranges: Any = None, *, format: Any = None,
                  round_inputs: bool = False, functions: Any = None, error: str = "abs",
                  rtol: Any = "1e-2", max_boxes: int = DEFAULT_BOXES, timeout: Any = None,
                  progress: ProgressCallback | None = None) -> RoundoffBound:
    """Certified bound on the round-off error of a straight-line program over a box.

    Parameters
    ----------
    program : str, Program or FPCore
        Infix text (``"(x + y) * z"``, evaluated exactly as written:
        :func:`~dpverify.expr.program.parse_program`), FPCore text or a read FPCore
        (:mod:`dpverify.expr.fpcore`), or a :class:`~dpverify.expr.program.Program`.
    ranges : mapping or sequence of pairs, optional
        ``{name: (lo, hi)}`` (exact numbers) for every variable; an FPCore's ``:pre``
        otherwise.
    format : {"binary64", "binary32"}, optional
        Every operation, literal and input in that format (default: the FPCore's
        ``:precision``, else binary64).
    round_inputs : bool
        The inputs are reals in their ranges, rounded to the format before the
        computation (default: they are floats of the format).
    functions : "correctly-rounded" or mapping, optional
        The accuracy of each called function (:func:`read_models`).
    error : {"abs", "rel", "ulps"}
        Absolute error, relative error ``|fl(P) - P| / |P|``, or ``|fl(P) - P|`` in ulps
        of ``P(x)`` (``ulp(y) = 2^(max(floor(log2|y|), emin) - p + 1)``).
    rtol : exact number
        Stop bisecting once the largest box bound is within ``rtol`` of the integrand at
        a centre (default 1e-2).
    max_boxes : int
        At most this many boxes (1..200000, default 3000).
    timeout : seconds, optional
        Stop bisecting then (a valid, wider bound is returned); the first analysis must
        finish by ``1.05 timeout + 0.5`` s.
    progress : callable, optional
        ``progress(stage, done, total)``.

    Returns
    -------
    RoundoffBound
        ``.bound`` (exact, the statement's), ``.certificate()``.

    Examples
    --------
    ``x + 1`` on ``[0, 1]``: one rounding, of a sum in ``[1, 2]``: half an ulp of
    ``[1, 2)``, ``2^-53``; the statement's bound is that, rounded up to 7 digits:

    >>> r = program_bound("x + 1", {"x": (0, 1)})
    >>> r.absolute == fmpq(1, 2**53), float(r.bound)
    (True, 1.110224e-16)
    """
    prog, box, fmt = read_program(program, ranges, format)
    if not isinstance(round_inputs, bool):
        raise ParameterTypeError("round_inputs must be True or False")
    if error not in ERRORS:
        raise InvalidParameterError(f"error must be 'abs', 'rel' or 'ulps', got {error!r}")
    rt = to_fmpq(rtol, "rtol")
    if not rt > 0:
        raise InvalidParameterError(f"rtol must be > 0, got {rtol!r}")
    check_int(max_boxes, "max_boxes", 1, MAX_BOXES)
    models = read_models(functions, prog)
    seconds = check_timeout(timeout)
    setup = Setup(prog, fmt, round_inputs, models, error)
    stop = None if seconds is None else time.monotonic() + seconds
    t0 = time.perf_counter()
    with limits(timeout=after(seconds), shown=seconds):
        start = _float_box(box, fmt) if not round_inputs else box
        if start is None:
            raise InvalidParameterError(f"no {fmt.name} input lies in the box")
        start = dyadic_cover(start)
        try:
            leaves, tree, how = search(lambda b: analyse_box(setup, b), start, rt, max_boxes,
                                       stop, progress)
        except DomainError as exc:
            raise DomainError(_explain(prog, start, str(exc))) from None
    worst = max(leaves, key=lambda r: r.bound or fmpq(0))
    assert worst.bound is not None
    return RoundoffBound(
        prog, fmt, box, round_inputs, models, error, round_up(worst.bound),
        max(r.absolute or fmpq(0) for r in leaves), leaves, tree,
        {"boxes": len(leaves), "seconds": time.perf_counter() - t0, "stop": how,
         "first_order": max(r.first for r in leaves),
         "second_order": max(r.second for r in leaves)}, start)


def dyadic_cover(box: Box) -> Box:
    """A box containing ``box`` whose ranges have endpoints on a grid of ``2^-26`` times
    their width (a point stays as it is): every bisection of it then has centres and
    radii that are short dyadic numbers, so the balls of the analysis enclose the boxes
    without widening (a value that ends exactly on a power of two keeps its binade)."""
    out = []
    for lo, hi in box:
        if lo == hi:
            out.append((lo, hi))
            continue
        step = pow2(floor_log2(hi - lo) - 26)
        out.append((fmpq((lo / step).floor()) * step, fmpq((hi / step).ceil()) * step))
    return tuple(out)


def _simplest(lo: fmpq, hi: fmpq) -> fmpq:
    """The dyadic number of ``[lo, hi]`` with the fewest bits (0 when it is there)."""
    if lo <= 0 <= hi:
        return fmpq(0)
    k = floor_log2(max(abs(lo), abs(hi))) + 1
    while True:
        step = pow2(k)
        c = fmpq((lo / step).ceil()) * step
        if c <= hi:
            return c
        k -= 1


def _explain(prog: Program, box: Box, message: str) -> str:
    """``message``, with the point where the exact value is 0 when the search ran into one
    (the simplest point of the box it names, evaluated exactly)."""
    if "vanish" not in message or " near " not in message:
        return message
    # the box is not kept: look where the message points, one variable at a time
    text = message.split(" near (", 1)[1].split(")", 1)[0]
    try:
        centre = [to_fmpq(t.strip()) for t in text.split(",")]
    except (InvalidParameterError, ValueError):
        return message
    if len(centre) != len(box):
        return message
    width = [max(abs(c), fmpq(1)) * fmpq(1, 10**7) for c in centre]
    point = [_simplest(c - w, c + w) for c, w in zip(centre, width)]
    value = _exact_value(prog, point)
    if value == 0:
        where = ", ".join(f"{v} = {fmpq_to_decimal(q, 17)}" for v, q in
                          zip(prog.variables, point))
        return (f"the exact value is 0 at {where}: a relative error (or ulps) has no bound "
                "there; use error='abs'")
    return message


def _exact_value(prog: Program, x: list[fmpq]) -> fmpq | None:
    """The exact real value of the program at ``x`` (None if it needs sqrt, a function or
    divides by 0)."""
    vals: list[fmpq | None] = []
    for op in prog.ops:
        a = [vals[j] for j in op.args]
        if any(v is None for v in a):
            vals.append(None)
            continue
        q = [v for v in a if v is not None]
        if op.kind == "var":
            vals.append(x[prog.variables.index(op.name)])
        elif op.kind == "const":
            vals.append(op.value)
        elif op.kind == "neg":
            vals.append(-q[0])
        elif op.kind == "abs":
            vals.append(abs(q[0]))
        elif op.kind == "add":
            vals.append(q[0] + q[1])
        elif op.kind == "sub":
            vals.append(q[0] - q[1])
        elif op.kind == "mul":
            vals.append(q[0] * q[1])
        elif op.kind == "fma":
            vals.append(q[0] * q[1] + q[2])
        elif op.kind == "div" and q[1] != 0:
            vals.append(q[0] / q[1])
        else:
            vals.append(None)
    return vals[prog.output]


def _float_box(box: Box, fmt: Format) -> Box | None:
    """The box shrunk to the floats it contains (None when a range holds none)."""
    out = []
    for lo, hi in box:
        flo, fhi = fmt.ceil(lo), fmt.floor(hi)
        if flo > fhi:
            return None
        out.append((flo, fhi))
    return tuple(out)


def search(analyse: Callable[[Box], BoxResult], box: Box, rtol: fmpq, cap: int,
           stop: float | None, progress: ProgressCallback | None
           ) -> tuple[list[BoxResult], str, str]:
    """Branch and bound: bisect the box with the largest bound (boxes without a bound
    first) along the axis its analysis names, keeping a split only when it lowers that
    box's bound (else the next axis; a box no axis improves is final).  Returns the leaves,
    the split tree (pre-order: ``"."`` a leaf, ``"i"`` a split of variable ``i`` at the
    midpoint, then the two halves) and why the search stopped.  Raises DomainError when a
    box without a bound gets too small."""
    root = analyse(box)
    d = len(box)
    best = root.estimate
    splits: dict[int, tuple[int, int, int]] = {}  # node -> (axis, left node, right node)
    results: list[BoxResult] = [root]
    depth: list[int] = [0]
    heap: list[tuple[int, fmpq, int]] = []

    def push(i: int) -> None:
        r = results[i]
        heapq.heappush(heap, (0, fmpq(0), i) if r.bound is None else (1, -r.bound, i))

    push(0)
    final: list[int] = []
    how = "converged"
    done = 0
    history: list[fmpq] = []  # the largest bound before each split
    while heap:
        checkpoint("round-off search")
        _, _, i = heap[0]
        r = results[i]
        if r.bound is not None:
            if r.bound <= best * (1 + rtol):
                how = "converged"
                break
            if len(heap) + len(final) >= cap:
                how = "boxes"
                break
            history.append(r.bound)
            if len(history) > _STALL and history[-_STALL - 1] <= r.bound * (1 + rtol / 4):
                how = "stalled"  # the last splits gained less than rtol/4
                break
        if stop is not None and time.monotonic() > stop:
            if r.bound is None:
                raise DomainError(f"no finite bound near {_centre(r.box)}: {r.reason} "
                                  "(time limit reached while bisecting)")
            how = "timeout"
            break
        heapq.heappop(heap)
        kept = False
        axes = [r.axis] + [a for a in sorted(range(d), key=lambda a: r.box[a][0] - r.box[a][1])
                           if a != r.axis]
        for axis in axes:
            lo, hi = r.box[axis]
            if lo == hi:
                continue
            mid = (lo + hi) / 2
            left = tuple((lo, mid) if j == axis else iv for j, iv in enumerate(r.box))
            right = tuple((mid, hi) if j == axis else iv for j, iv in enumerate(r.box))
            kids = [analyse(left), analyse(right)]
            done += 2
            worse = r.bound is not None and any(
                k.bound is None or k.bound >= r.bound for k in kids)
            if worse:
                continue
            base = len(results)
            results.extend(kids)
            depth.extend([depth[i] + 1] * 2)
            splits[i] = (axis, base, base + 1)
            for k in (base, base + 1):
                best = max(best, results[k].estimate)
                push(k)
            kept = True
            break
        if not kept:
            if r.bound is None:
                raise DomainError(f"no finite bound near {_centre(r.box)}: {r.reason}")
            final.append(i)
        elif depth[i] + 1 > _MAX_DEPTH * max(d, 1):
            if r.bound is None:
                raise DomainError(f"no finite bound near {_centre(r.box)}: {r.reason}")
            # deep enough: the halves stay leaves
            for k in splits[i][1:]:
                final.append(k)
            heap = [e for e in heap if e[2] not in splits[i][1:]]
            heapq.heapify(heap)
        if progress is not None and not done & 31:
            report(progress, "round-off: boxes", len(heap) + len(final), cap)
    else:
        how = "final"
    leaves = sorted(final + [e[2] for e in heap])
    return [results[i] for i in leaves], _tree(splits), how


def _centre(box: Box) -> str:
    return "(" + ", ".join(fmpq_to_decimal((a + b) / 2, 8) for a, b in box) + ")"


def _tree(splits: dict[int, tuple[int, int, int]]) -> str:
    """The split tree in pre-order (iterative: trees can be deep)."""
    out: list[str] = []
    todo = [0]
    while todo:
        i = todo.pop()
        if i in splits:
            axis, left, right = splits[i]
            out.append(str(axis))
            todo.extend([right, left])
        else:
            out.append(".")
    return " ".join(out)
