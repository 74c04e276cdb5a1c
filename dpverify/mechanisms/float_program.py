"""Straight-line float programs run in numpy, exactly as the round-off certifier models them.

The evaluation side of :mod:`dpverify.certify.roundoff`: a
:class:`~dpverify.expr.program.Program` (operations in the written order) is executed

* in numpy (:func:`program_values`), one ufunc per operation, in ``float64`` or
  ``float32``: numpy's ``+ - * /`` and ``sqrt`` are the IEEE-754 operations (correctly
  rounded, element by element; separate ufuncs are never contracted into an FMA), so
  each element is the value the float program computes from its own inputs, whatever
  the array shapes;
* exactly (:func:`emulate_program`): every operation in rationals, rounded by
  :meth:`~dpverify.certify.fpformat.Format.nearest`, the certifier's rounding;

and :func:`check_evaluator` compares the two at public points (and checks gradual
underflow) so that a process whose arithmetic is not the model's (subnormals flushed to
zero by a library's FTZ/DAZ flags) is refused before it computes anything that matters.
``fma`` and the library calls are refused: numpy has no fused multiply-add, and its
``exp``, ``log``, ... are neither correctly rounded nor guaranteed to give the same bits
for every array layout.

An exact companion: :func:`program_range` (an enclosure of the exact program's values over
a box, ball arithmetic with bisection); :func:`check_defined` refuses a program with a
vanishing divisor at once.  Exact sums of the float values: :mod:`.exact_sum`.

Guarantee
---------
:func:`emulate_program` and :func:`program_range` are exact or rigorous;
:func:`program_values` is the IEEE computation on an IEEE machine, which
:func:`check_evaluator` tests (not proves) at public points.
"""

from __future__ import annotations

import heapq
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
from flint import arb, ctx, fmpq

from ..certify.fpformat import Format, read_format
from ..errors import DomainError, InvalidParameterError, ParameterTypeError
from ..expr.program import Program
from ..numbers import arb_to_fmpq_bounds, check_int, fmpq_str, to_fmpq

__all__ = [
    "program_values",
    "emulate_program",
    "check_evaluator",
    "round_to_format",
    "program_range",
    "numpy_dtype",
    "supported",
    "check_defined",
]

_NP = {"binary64": np.float64, "binary32": np.float32}


def _dtype(fmt: Format) -> Any:
    return _NP[fmt.name]


def numpy_dtype(format: Any) -> Any:
    """``numpy.float64`` for binary64, ``numpy.float32`` for binary32.

    Examples
    --------
    >>> numpy_dtype("binary32")
    <class 'numpy.float32'>
    """
    return _dtype(read_format(format))


def _read_box(program: Program, box: Any) -> tuple[tuple[fmpq, fmpq], ...]:
    if isinstance(box, (str, bytes)) or not isinstance(box, Sequence):
        raise ParameterTypeError("box must be a sequence of (lo, hi) pairs")
    try:
        bx = tuple((to_fmpq(lo, "box"), to_fmpq(hi, "box")) for lo, hi in box)
    except (TypeError, ValueError):
        raise InvalidParameterError("box must be a sequence of (lo, hi) pairs") from None
    if len(bx) != len(program.variables) or any(lo > hi for lo, hi in bx):
        raise InvalidParameterError("box must have one (lo, hi) with lo <= hi per variable")
    return bx


def round_to_format(values: Sequence[Any], format: Any) -> np.ndarray:
    """Exact numbers rounded to nearest-even in ``format``, as a numpy array of its dtype
    (``float64`` or ``float32``): the rounding of the round-off model
    (:meth:`~dpverify.certify.fpformat.Format.nearest`), never a double rounding through
    binary64.

    Examples
    --------
    >>> bool(round_to_format(["1/3"], "binary32")[0] == np.float32(1 / 3))
    True
    """
    fmt = read_format(format)
    out = []
    for i, v in enumerate(values):
        hat = fmt.nearest(to_fmpq(v, f"values[{i}]"))
        if hat is None:
            raise InvalidParameterError(f"values[{i}] overflows {fmt.name}")
        out.append(_as_float(hat))
    return np.array(out, dtype=_dtype(fmt))


def _as_float(q: fmpq) -> float:
    """The binary64 value of ``q`` (exact when ``q`` is a binary64 or binary32 number)."""
    return int(q.p) / int(q.q)  # correctly rounded int / int


def _literal(fmt: Format, value: fmpq) -> Any:
    hat = fmt.nearest(value)
    if hat is None:
        raise InvalidParameterError(f"the literal {fmpq_str(value)} overflows {fmt.name}")
    return _dtype(fmt)(_as_float(hat))


def supported(program: Program) -> None:
    """Raise ``InvalidParameterError`` if the program uses ``fma`` or a library call
    (module docstring: numpy cannot run them as the model says).

    Examples
    --------
    >>> from dpverify.expr.program import parse_program
    >>> supported(parse_program("sqrt(x) / 2", ["x"]))
    """
    for op in program.ops:
        if op.kind == "fma":
            raise InvalidParameterError(
                "fma is not supported in a query: numpy has no fused multiply-add (write "
                "the product and the sum)")
        if op.kind == "call":
            raise InvalidParameterError(
                f"{op.name} is not supported in a query: numpy's library functions are "
                "neither correctly rounded nor the same bits for every array layout "
                "(use + - * / sqrt)")


def program_values(program: Program, format: Any, inputs: Mapping[str, Any]) -> np.ndarray:
    """``fl(P)`` evaluated in numpy in the written order, every operation rounded to
    ``format`` (``"binary64"`` or ``"binary32"``).

    ``inputs`` maps every variable of the program to an array of numbers *of the format*
    (the caller rounds them); the arrays broadcast against each other.  Literals are
    rounded to the format (:meth:`~dpverify.certify.fpformat.Format.nearest`).  Only
    ``+ - * /``, ``sqrt``, ``abs`` and negation (``fma`` and calls are refused).

    Guarantee
    ---------
    On an IEEE-754 machine (round to nearest even, gradual underflow), each element is
    the value the float program computes from its own inputs, whatever the shapes:
    numpy's arithmetic ufuncs are the correctly rounded IEEE operations.  Nothing here
    checks the machine (:class:`ExpressionQuery` does, before each evaluation).

    Examples
    --------
    ``0.1`` is rounded to binary32 before the product, and the product is rounded:

    >>> from dpverify.expr.program import parse_program
    >>> import numpy as np
    >>> p = parse_program("x * 0.1", ["x"])
    >>> v = program_values(p, "binary32", {"x": np.float32([3.0])})
    >>> v.dtype, float(v[0]) == float(np.float32(3.0) * np.float32(0.1))
    (dtype('float32'), True)
    """
    if not isinstance(program, Program):
        raise ParameterTypeError(f"program must be a Program, got {type(program).__name__}")
    fmt = read_format(format)
    supported(program)
    dt = _dtype(fmt)
    missing = [v for v in program.variables if v not in inputs]
    if missing:
        raise InvalidParameterError(f"inputs: no values for {missing[0]!r}")
    live = program.live()
    vals: list[Any] = [None] * len(program.ops)
    with np.errstate(all="ignore"):  # underflow is gradual (IEEE); overflow is checked
        for k, op in enumerate(program.ops):
            if not live[k]:
                continue
            a = [vals[j] for j in op.args]
            if op.kind == "var":
                x = np.asarray(inputs[op.name])
                if x.dtype != dt:
                    raise InvalidParameterError(
                        f"inputs[{op.name!r}] must hold {fmt.name} numbers ({np.dtype(dt)}), "
                        f"got {x.dtype}")
                vals[k] = x
            elif op.kind == "const":
                assert op.value is not None
                vals[k] = _literal(fmt, op.value)
            elif op.kind == "neg":
                vals[k] = np.negative(a[0])
            elif op.kind == "abs":
                vals[k] = np.abs(a[0])
            elif op.kind == "add":
                vals[k] = np.add(a[0], a[1])
            elif op.kind == "sub":
                vals[k] = np.subtract(a[0], a[1])
            elif op.kind == "mul":
                vals[k] = np.multiply(a[0], a[1])
            elif op.kind == "div":
                vals[k] = np.divide(a[0], a[1])
            else:  # sqrt (fma and calls were refused)
                vals[k] = np.sqrt(a[0])
    out = np.asarray(vals[program.output], dtype=dt)
    return out


def _round_sqrt(fmt: Format, q: fmpq) -> fmpq:
    """``sqrt(q)`` rounded to nearest in ``fmt`` (decided exactly by squaring the two
    midpoints around the candidate; a square root of a number of the format is never a
    midpoint)."""
    if q == 0:
        return fmpq(0)
    with ctx.workprec(2 * fmt.precision + 64):
        s = arb(q).sqrt()
        lo, hi = arb_to_fmpq_bounds(s)
    c = fmt.nearest((lo + hi) / 2)
    assert c is not None
    for _ in range(4):
        up = fmt.next_up(c)
        down = -fmt.next_up(-c) if c > 0 else c
        if ((c + up) / 2) ** 2 < q:
            c = up
        elif c > 0 and ((c + down) / 2) ** 2 > q:
            c = down
        else:
            return c
    raise AssertionError("sqrt rounding did not settle")  # pragma: no cover


def emulate_program(program: Program, format: Any, point: Mapping[str, Any], *,
                    round_inputs: bool = True) -> fmpq:
    """The exact value ``fl(P)(x)`` of the float program at one point: each input rounded
    to the format (``round_inputs``; else it must be a number of the format), each
    operation computed exactly in rationals and rounded to nearest-even by
    :meth:`~dpverify.certify.fpformat.Format.nearest` (the certifier's rounding).

    Guarantee
    ---------
    Exact (fmpq).  Overflow, a division by zero or the square root of a negative number
    raise ``DomainError``.

    Examples
    --------
    Python's own binary64 arithmetic computes the same value:

    >>> from dpverify.expr.program import parse_program
    >>> p = parse_program("(x + 1) / 3", ["x"])
    >>> emulate_program(p, "binary64", {"x": "0.1"}) == fmpq(*((0.1 + 1) / 3).as_integer_ratio())
    True
    """
    if not isinstance(program, Program):
        raise ParameterTypeError(f"program must be a Program, got {type(program).__name__}")
    fmt = read_format(format)
    supported(program)

    def rnd(v: fmpq, what: str) -> fmpq:
        out = fmt.nearest(v)
        if out is None:
            raise DomainError(f"{what} overflows {fmt.name}")
        return out

    vals: list[fmpq] = []
    for op in program.ops:
        a = [vals[j] for j in op.args]
        if op.kind == "var":
            x = to_fmpq(point[op.name], f"point[{op.name!r}]")
            if round_inputs:
                x = rnd(x, f"input {op.name}")
            elif fmt.nearest(x) != x:
                raise InvalidParameterError(f"point[{op.name!r}] is not a {fmt.name} number")
            vals.append(x)
        elif op.kind == "const":
            assert op.value is not None
            vals.append(rnd(op.value, "a literal"))
        elif op.kind == "neg":
            vals.append(-a[0])
        elif op.kind == "abs":
            vals.append(abs(a[0]))
        elif op.kind in ("add", "sub", "mul"):
            v = a[0] + a[1] if op.kind == "add" else a[0] - a[1] if op.kind == "sub" \
                else a[0] * a[1]
            vals.append(rnd(v, "an operation"))
        elif op.kind == "div":
            if a[1] == 0:
                raise DomainError("division by zero")
            vals.append(rnd(a[0] / a[1], "a division"))
        else:
            if a[0] < 0:
                raise DomainError("square root of a negative number")
            vals.append(_round_sqrt(fmt, a[0]))
    return vals[program.output]


# ------------------------------------------------------------------- the range of P


def _ball(lo: fmpq, hi: fmpq) -> arb:
    return arb(lo) if lo == hi else arb(lo).union(arb(hi))


def _ball_value(program: Program, live: list[bool], balls: Sequence[arb],
                vals: list[Any] | None = None) -> arb | None:
    """An enclosure of ``P`` over the balls (None where none is finite); ``vals``, when
    given, receives the enclosure of every operation (None for dead ones)."""
    vals = [] if vals is None else vals
    for k, op in enumerate(program.ops):
        if not live[k]:
            vals.append(None)
            continue
        a = [vals[j] for j in op.args]
        if op.kind == "var":
            v = balls[program.variables.index(op.name)]
        elif op.kind == "const":
            v = arb(op.value)
        elif op.kind == "neg":
            v = -a[0]
        elif op.kind == "abs":
            v = abs(a[0])
        elif op.kind == "add":
            v = a[0] + a[1]
        elif op.kind == "sub":
            v = a[0] - a[1]
        elif op.kind == "mul":
            v = a[0] * a[1] if op.args[0] != op.args[1] else _square(a[0])
        elif op.kind == "div":
            if 0 in a[1]:
                return None
            v = a[0] / a[1]
        else:  # sqrt
            if not a[0] >= 0:
                return None
            v = a[0].sqrt()
        if not v.is_finite():
            return None
        vals.append(v)
    out: arb = vals[program.output]
    return out


def _square(x: arb) -> arb:
    """``x * x`` without the dependency problem (a square is >= 0)."""
    if 0 in x:
        lo, hi = arb_to_fmpq_bounds(x)
        m = max(abs(lo), abs(hi))
        return arb(0).union(arb(m * m))
    return x * x


def _extreme(program: Program, box: tuple[tuple[fmpq, fmpq], ...], sign: int, tol: fmpq,
             max_boxes: int) -> fmpq:
    """A rigorous upper bound of ``sup sign * P`` over the box: branch and bound on the
    box with the largest bound until that bound is within ``tol`` of a value reached at
    a box centre, or ``max_boxes`` boxes were analysed."""
    live = program.live()
    widths = [hi - lo for lo, hi in box]
    best: fmpq | None = None
    heap: list[tuple[tuple[int, fmpq], int, tuple[tuple[fmpq, fmpq], ...], int]] = []
    count = 0

    def push(b: tuple[tuple[fmpq, fmpq], ...], depth: int) -> None:
        nonlocal best, count
        c = _ball_value(program, live, [arb((lo + hi) / 2) for lo, hi in b])
        if c is not None:
            reached = arb_to_fmpq_bounds(sign * c)[0]
            best = reached if best is None else max(best, reached)
        v = _ball_value(program, live, [_ball(lo, hi) for lo, hi in b])
        if v is None and depth >= 60:
            raise DomainError(f"the query program has no finite value on a box near "
                              f"({', '.join(fmpq_str((lo + hi) / 2) for lo, hi in b)})")
        # boxes without a bound first, then the largest upper bound
        key = (0, fmpq(0)) if v is None else (1, -arb_to_fmpq_bounds(sign * v)[1])
        heapq.heappush(heap, (key, count, b, depth))
        count += 1

    with ctx.workprec(128):
        push(box, 0)
        while True:
            key, _, b, depth = heap[0]
            if key[0] == 1:  # every box has a bound: this one's is the largest
                u = -key[1]
                if count >= max_boxes or (best is not None and u - best <= tol):
                    return u
            heapq.heappop(heap)
            axis = max(range(len(b)), key=lambda i: (b[i][1] - b[i][0]) / widths[i]
                       if widths[i] else fmpq(-1))
            lo, hi = b[axis]
            mid = (lo + hi) / 2
            for half in ((lo, mid), (mid, hi)):
                push(b[:axis] + (half,) + b[axis + 1:], depth + 1)


def check_defined(program: Program, box: Sequence[tuple[Any, Any]]) -> None:
    """Refuse at once a program that is certainly undefined somewhere on ``box``: at its
    public points (:func:`check_evaluator`'s, and every corner of a box of at most 6
    variables) no divisor may be 0 and no square root's argument negative, and no divisor
    may take both signs (then it vanishes somewhere between, or the program has a pole
    there: no finite float error bound exists).  Without it the certifier would bisect
    towards the zero until its time limit.

    Guarantee
    ---------
    Raises ``DomainError`` only for a program undefined at some point of the box
    (rigorous ball arithmetic at exact points); passing proves nothing (the certifier
    decides).

    Examples
    --------
    >>> from dpverify.expr.program import parse_program
    >>> check_defined(parse_program("1 / (x - 0.3)", ["x"]), [(0, 1)])
    Traceback (most recent call last):
    ...
    dpverify.errors.DomainError: the program is undefined on its box: a divisor takes ...
    """
    if not isinstance(program, Program):
        raise ParameterTypeError(f"program must be a Program, got {type(program).__name__}")
    bx = _read_box(program, box)
    live = program.live()
    pts = _public_points(bx)
    if len(bx) <= 6:
        for mask in range(1 << len(bx)):
            pts.append([bx[j][(mask >> j) & 1] for j in range(len(bx))])
    signs: dict[int, set[int]] = {}
    with ctx.workprec(128):
        for p in pts:
            vals: list[Any] = []
            _ball_value(program, live, [arb(x) for x in p], vals)
            for k, op in enumerate(program.ops[:len(vals)]):
                if not live[k] or op.kind not in ("div", "sqrt"):
                    continue
                a = vals[op.args[-1] if op.kind == "div" else op.args[0]]
                if a is None:
                    continue
                if op.kind == "sqrt" and a < 0:
                    raise DomainError("the program is undefined on its box: the square root "
                                      "of a negative number")
                if op.kind == "div":
                    if a == 0:
                        raise DomainError("the program is undefined on its box: a division "
                                          "by zero")
                    if a > 0 or a < 0:
                        signs.setdefault(k, set()).add(1 if a > 0 else -1)
                        if len(signs[k]) == 2:
                            raise DomainError(
                                "the program is undefined on its box: a divisor takes both "
                                "signs (it vanishes or has a pole in between)")
            if len(vals) < len(program.ops):  # stopped at an operation with no finite value
                kind = program.ops[len(vals)].kind
                raise DomainError(
                    "the program is undefined on its box: " + (
                        "a division by zero (a divisor within 2^-128 of 0)" if kind == "div"
                        else "the square root of a number <= 0 (within 2^-128)"
                        if kind == "sqrt" else "no finite value") + " at a point of the box")


def program_range(program: Program, box: Sequence[tuple[Any, Any]], *, rtol: Any = "1e-3",
                  max_boxes: int = 4000) -> tuple[fmpq, fmpq]:
    """An enclosure ``[L, U]`` of the values of the exact program ``P`` over ``box`` (one
    ``(lo, hi)`` per variable, in order): ball arithmetic on sub-boxes, bisecting the box
    with the largest bound until it is within ``rtol`` (relative) of a value reached at
    a box centre, or ``max_boxes`` boxes.

    Guarantee
    ---------
    ``L <= P(x) <= U`` for every ``x`` of the box (rigorous: arb enclosures, endpoints
    read outward).  Raises ``DomainError`` when some part of the box has no finite
    enclosure after 60 bisections.

    Examples
    --------
    ``x (1 - x)`` on ``[0, 1]`` reaches ``[0, 1/4]``:

    >>> from dpverify.expr.program import parse_program
    >>> lo, hi = program_range(parse_program("x * (1 - x)", ["x"]), [(0, 1)])
    >>> float(lo) <= 0 and 0.25 <= float(hi) <= 0.2503
    True
    """
    if not isinstance(program, Program):
        raise ParameterTypeError(f"program must be a Program, got {type(program).__name__}")
    supported(program)
    bx = _read_box(program, box)
    rt = to_fmpq(rtol, "rtol")
    if not rt > 0:
        raise InvalidParameterError(f"rtol must be > 0, got {rtol!r}")
    check_int(max_boxes, "max_boxes", 1, 10**6)
    # the tolerance: rtol times the spread of P at public points of the box (its largest
    # modulus when P is constant there), so that the enclosure is tight relative to S(F)
    live = program.live()
    seen = []
    with ctx.workprec(128):
        for p in _public_points(bx):
            v = _ball_value(program, live, [arb(x) for x in p])
            if v is not None:
                seen.append(arb_to_fmpq_bounds(v)[0])
    spread = max(seen) - min(seen) if seen else fmpq(0)
    scale = spread if spread > 0 else max([abs(v) for v in seen] + [fmpq(1)])
    up = _extreme(program, bx, 1, rt * scale, max_boxes)
    neg_low = _extreme(program, bx, -1, rt * scale, max_boxes)
    return -neg_low, up


def _public_points(box: tuple[tuple[fmpq, fmpq], ...], count: int = 12) -> list[list[fmpq]]:
    """Public points of the box for the evaluator's self-check: its two extreme corners,
    its centre and points of a fixed pseudo-random pattern (no data)."""
    g = np.random.default_rng(12345)  # public test points, not privacy noise
    pts = [[lo for lo, _ in box], [hi for _, hi in box], [(lo + hi) / 2 for lo, hi in box]]
    for _ in range(count):
        pts.append([lo + (hi - lo) * fmpq(int(g.integers(0, 2**20)), 2**20) for lo, hi in box])
    return pts


def check_evaluator(program: Program, format: Any, box: Sequence[tuple[Any, Any]]) -> None:
    """Refuse unless numpy computes, in this process and now, what the round-off model
    says: gradual underflow in the format, and :func:`program_values` equal bit for bit
    to :func:`emulate_program` at public points of ``box`` (its extreme corners, its
    centre and 12 points of a fixed pattern; inputs rounded to the format).

    Guarantee
    ---------
    A test on public points, not a proof: it catches a process that flushes subnormals
    to zero or an arithmetic that is not round-to-nearest; raises
    ``InvalidParameterError`` then.  Reads no data.

    Examples
    --------
    >>> from dpverify.expr.program import parse_program
    >>> check_evaluator(parse_program("x / 3 + 0.1", ["x"]), "binary32", [(0, 1)])
    """
    if not isinstance(program, Program):
        raise ParameterTypeError(f"program must be a Program, got {type(program).__name__}")
    fmt = read_format(format)
    box = _read_box(program, box)
    dt = _dtype(fmt)
    tiny = dt(_as_float(fmpq(2) ** fmt.emin))
    with np.errstate(all="ignore"):
        sub = np.asarray([tiny], dtype=dt) / dt(2)
    if float(sub[0]) != _as_float(fmpq(2) ** (fmt.emin - 1)):
        raise InvalidParameterError(
            f"this process flushes {fmt.name} subnormal numbers to zero (a library set the "
            "FTZ/DAZ flags): the float evaluation would not be the certified one; refused")
    pts = _public_points(box)
    inputs = {v: round_to_format([p[j] for p in pts], fmt)
              for j, v in enumerate(program.variables)}
    got = program_values(program, fmt, inputs)
    got = np.broadcast_to(got, (len(pts),))
    for i, p in enumerate(pts):
        want = emulate_program(program, fmt, dict(zip(program.variables, p)))
        if fmpq(*float(got[i]).as_integer_ratio()) != want:
            raise InvalidParameterError(
                f"numpy's {fmt.name} arithmetic on this machine does not match IEEE "
                f"round-to-nearest at a public test point (got {float(got[i])!r}, expected "
                f"{_as_float(want)!r}): the float evaluation would not be the certified "
                "one; refused")

