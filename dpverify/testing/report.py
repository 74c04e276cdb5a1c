"""What :func:`dpverify.testing.check_implementation` found: :class:`ImplementationCheck`,
its short failure message, its summary and its JSON form (``dpverify plot`` draws it).

The report names the worst input, the reference there (exact, or a tight enclosure) and
its correctly rounded value, the implementation's output, the error in ulps and absolute
(exact rationals: the ends of an enclosure, equal when the reference is rational), a
rigorous bound on the error at every checked point, how many points were decided by the
screen and how many exactly, a histogram of the errors and a profile of the largest error
along the domain.  An exact-zero reference is measured in ulps of 0 (the subnormal
spacing) and absolutely; no error, however large, overflows a message.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from flint import arb, ctx, fmpq

from ..atomic import write_text
from ..numbers import fmpq_str, fmpq_to_decimal
from .coverage import Coverage
from .decide import PointResult, q_float
from .properties import PropertyResult
from .run import HIST_EDGES, Tally

__all__ = ["ImplementationCheck", "failure_message", "q_text", "REPORT_KIND", "build_report"]

#: ``kind`` of the JSON form (what ``dpverify plot`` recognises).
REPORT_KIND = "implementation-check"


def q_text(q: fmpq | None, digits: int = 6) -> str:
    """A short decimal of an exact number, for messages (never overflows): ``0.5``,
    ``2.97407``, ``2.02357e308``."""
    if q is None:
        return "inf"
    if q == 0:
        return "0"
    if fmpq(1, 10**6) <= abs(q) < 10**6:
        return f"{q_float(q):.{digits}g}"
    return fmpq_to_decimal(q, digits)


def _hist_text(hist: Any) -> str:
    return ", ".join(f"{'[' if a == 0 else '('}{_edge(a)}, {_edge(b)}]: {n}"
                     for a, b, n in hist if n)


def _edge(v: float) -> str:
    if math.isinf(v):
        return "inf"
    if v >= 1024:
        return f"2^{int(math.log2(v))}"
    return f"{v:g}" if v >= 1 or v == 0 else f"1/{1 / v:g}"


@dataclass(frozen=True)
class ImplementationCheck:
    """The result of :func:`~dpverify.testing.check_implementation` (returned when every
    point passes; attached as ``.report`` to the ``AssertionError`` otherwise).

    ``worst_input`` is the input with the largest error in ulps among those decided
    exactly, ``reference_value`` the reference there (an ``fmpq`` when exact, else an arb
    ball of width about ``2^-(p+40)`` relative) and ``reference_rounded`` its nearest number
    of the format; ``worst_ulps`` and ``worst_abs_error`` are the upper ends of the exact
    enclosures ``worst_ulps_enclosure`` / of the absolute error (equal ends when the
    reference is rational).  ``ulps_bound`` bounds the error in ulps at *every* checked
    point rigorously (it exceeds ``worst_ulps`` only when more candidates for the worst
    point stood within the screen's resolution than were decided exactly).
    ``rigorous`` is False for a float reference.  ``screened + exact == points``: the points
    the screen decided, and those it left to exact evaluation (the worst input and the
    failures named are evaluated exactly in any case).

    Examples
    --------
    ``numpy.sqrt`` is correctly rounded (IEEE 754 requires it), so no input errs by more
    than half an ulp; ``report.save(path)`` keeps the report for ``dpverify plot``:

    >>> import numpy as np
    >>> from flint import fmpq
    >>> from dpverify.testing import check_implementation
    >>> report = check_implementation(np.sqrt, "sqrt(x)", points=1000, domain=(1, 4))
    >>> report.passed, report.rigorous, report.worst_ulps <= fmpq(1, 2)
    (True, True, True)
    >>> report.screened + report.exact == report.points
    True
    >>> lo, hi = report.worst_ulps_enclosure
    >>> lo <= report.worst_ulps == hi and float(hi) <= report.ulps_bound
    True
    """

    points: int
    worst_input: float
    reference_value: Any
    actual: float
    worst_abs_error: fmpq
    worst_ulps: fmpq
    ulps: fmpq | None
    atol: fmpq | None
    passed: bool = True
    rigorous: bool = True
    reference: str = ""
    format: str = "binary64"
    reference_rounded: float = math.nan
    worst_ulps_enclosure: tuple[fmpq, fmpq] = (fmpq(0), fmpq(0))
    ulps_bound: float = 0.0
    failures: int = 0
    undecided: int = 0
    screened: int = 0
    exact: int = 0
    pieces: int = 0
    histogram: tuple[tuple[float, float, int], ...] = ()
    profile: tuple[float, ...] = ()
    domain: tuple[float, float] = (0.0, 0.0)
    failing: tuple[PointResult, ...] = field(default=(), repr=False)
    seconds: float = 0.0
    backend: str = "local"
    #: the worst error is infinite (a NaN or infinite output, or a reference beyond every
    #: format): ``worst_ulps`` then holds its known lower end
    infinite: bool = False
    #: every number of the format in the domain was checked (``exhaustive=True``)
    exhaustive: bool = False
    #: the first failing inputs in bit-pattern order (decided exactly)
    first_failures: tuple[PointResult, ...] = field(default=(), repr=False)
    #: inputs whose error exceeds half an ulp (None: not counted); ``correctly_rounded``
    #: is True when there are none (and nothing is undecided)
    incorrectly_rounded: int | None = None
    #: the named property checks (signed zeros, special values, symmetry, monotonicity,
    #: range)
    properties: tuple[PropertyResult, ...] = field(default=(), repr=False)
    #: what the search covers (the default search of an interval; None otherwise)
    coverage: Coverage | None = field(default=None, repr=False)
    #: inputs where the reference is undefined (poles, outside its domain), and the first
    #: few with the output there
    singularities: int = 0
    singular_inputs: tuple[tuple[float, float], ...] = ()
    #: tasks of the run, and those read back from a state file (a resumed run)
    tasks: int = 0
    resumed: int = 0

    @property
    def correctly_rounded(self) -> bool | None:
        """Every checked error is at most half an ulp (None when not counted)."""
        if self.incorrectly_rounded is None:
            return None
        return self.incorrectly_rounded == 0 and self.undecided == 0

    def property(self, name: str) -> PropertyResult | None:
        """The property check ``name`` (``"monotonicity"``...), if it ran."""
        return next((p for p in self.properties if p.name == name), None)

    def _worst_text(self, digits: int = 6) -> str:
        if self.infinite:   # an infinite error: its known lower end, if any
            return "inf" if self.worst_ulps == 0 else f"inf (>= {q_text(self.worst_ulps)})"
        return q_text(self.worst_ulps, digits)

    def __repr__(self) -> str:
        state = "passed" if self.passed else f"{self.failures} failing"
        return (f"ImplementationCheck(points={self.points}, worst_input={self.worst_input!r}, "
                f"worst_ulps~{self._worst_text(3)}, {state}"
                f"{'' if self.rigorous else ', reference not rigorous'})")

    def summary(self) -> str:
        """A few lines: the worst point, the counts, the histogram, the properties, and
        (exhaustive) the first failures and correct rounding, (sampled) the coverage."""
        lines = [
            f"{self.reference} ({'rigorous' if self.rigorous else 'reference not rigorous'}"
            f", {self.format}) on [{self.domain[0]!r}, {self.domain[1]!r}]: "
            f"{self.points} points in {self.seconds:.2f} s "
            f"({self.screened} decided by the screen, {self.exact} by exact evaluation"
            f"{', ' + str(self.pieces) + ' models' if self.pieces else ''})",
            f"worst: {self._worst_text()} ulps at x = {self.worst_input!r} "
            f"({self.worst_input.hex()}): got {self.actual!r}, reference "
            f"{_ref_text(self.reference_value)} (rounds to {self.reference_rounded!r})",
            f"every checked error <= {self.ulps_bound:.6g} ulps; failures: {self.failures}",
            "errors in ulps: " + _hist_text(self.histogram),
        ]
        lo, hi = self.worst_ulps_enclosure
        if not self.infinite and hi - lo > hi / (1 << 20) and hi > 0:
            lines[1] = lines[1].replace(f"worst: {self._worst_text()} ulps",
                                        f"worst: [{q_text(lo)}, {q_text(hi)}] ulps")
        if self.incorrectly_rounded is not None:
            n = self.incorrectly_rounded
            lines.append(("every input of the domain checked" if self.exhaustive else
                          "checked inputs") + f": correctly rounded: "
                         f"{'yes' if self.correctly_rounded else 'no'}"
                         f"{'' if n == 0 else f' ({n} err by more than 1/2 ulp)'}")
        if self.first_failures:
            lines.append("first failing inputs: " + "; ".join(
                f"{r.x!r} (got {r.y!r}, {q_text(r.ulps_hi)} ulps)"
                for r in self.first_failures[:3]))
        if self.singularities:
            lines.append(f"reference singular (undefined) at {self.singularities} inputs: " +
                         ", ".join(f"x = {x!r} (got {y!r})" for x, y in
                                   self.singular_inputs[:3]))
        lines += [p.text() for p in self.properties]
        if self.coverage is not None:
            lines.append(self.coverage.text())
        if self.resumed:
            lines.append(f"resumed: {self.resumed} of {self.tasks} tasks read from the "
                         "state file")
        return "\n".join(lines)

    def to_json(self) -> dict[str, Any]:
        """The JSON form (``kind: implementation-check``; exact numbers as ``"p/q"``)."""
        lo, hi = self.worst_ulps_enclosure
        return {
            "kind": REPORT_KIND, "format": "dpverify-data", "version": 1,
            "reference": self.reference, "rigorous": self.rigorous,
            "binary_format": self.format, "passed": self.passed,
            "limits": {"ulps": None if self.ulps is None else fmpq_str(self.ulps),
                       "atol": None if self.atol is None else fmpq_str(self.atol)},
            "domain": [self.domain[0].hex(), self.domain[1].hex()],
            "points": self.points, "screened": self.screened, "exact": self.exact,
            "failures": self.failures, "undecided": self.undecided,
            "worst": {"x": self.worst_input.hex(), "y": self.actual.hex(),
                      "ulps": [fmpq_str(lo), fmpq_str(hi)],
                      "abs_error": fmpq_str(self.worst_abs_error),
                      "reference": _ref_text(self.reference_value),
                      "reference_rounded": self.reference_rounded.hex()
                      if math.isfinite(self.reference_rounded) else str(self.reference_rounded)},
            "ulps_bound": self.ulps_bound,
            "histogram": [{"from": a, "to": b if math.isfinite(b) else "inf", "count": n}
                          for a, b, n in self.histogram],
            "profile": {"x": [self.domain[0], self.domain[1]],
                        "max_ulps": [None if not math.isfinite(v) else v
                                     for v in self.profile]},
            "failing": [{"x": r.x.hex(), "y": r.y.hex() if math.isfinite(r.y) else str(r.y),
                         "ulps": q_text(r.ulps_hi, 8)} for r in self.failing],
            "seconds": round(self.seconds, 3), "backend": self.backend,
            "exhaustive": self.exhaustive,
            "incorrectly_rounded": self.incorrectly_rounded,
            "correctly_rounded": self.correctly_rounded,
            "first_failures": [{"x": r.x.hex(), "y": r.y.hex() if math.isfinite(r.y)
                                else str(r.y), "ulps": q_text(r.ulps_hi, 8)}
                               for r in self.first_failures],
            "singularities": self.singularities,
            "singular_inputs": [[x.hex(), y.hex() if math.isfinite(y) else str(y)]
                                for x, y in self.singular_inputs],
            "properties": [{"name": p.name, "status": p.status, "checked": p.checked,
                            "violations": p.violations, "detail": p.detail,
                            "examples": list(p.examples)} for p in self.properties],
            "coverage": None if self.coverage is None else self.coverage.to_json(),
        }

    def save(self, path: str) -> None:
        """Write :meth:`to_json` to ``path`` (atomically), for ``dpverify plot``."""
        write_text(path, json.dumps(self.to_json(), indent=1) + "\n", what="path")


def _ref_text(v: Any) -> str:
    if isinstance(v, fmpq):
        text = fmpq_str(v)
        if int(v.q) == 1 and len(text) <= 40:
            return text
        return (text + " " if len(text) <= 160 else "") + f"(~{fmpq_to_decimal(v, 17)})"
    return str(v)


def _ball(lo: fmpq, hi: fmpq) -> Any:
    if lo == hi:
        return lo
    with ctx.workprec(max(128, 2 * max(int(lo.q).bit_length(), int(hi.q).bit_length()))):
        return arb(lo).union(arb(hi))


def failure_message(rep: ImplementationCheck, tally: Tally) -> str:
    """The ``AssertionError`` text: one line for the point that misses the limit by most,
    one for the counts and the histogram."""
    limit = " or ".join(t for t in (
        None if rep.ulps is None else f"{q_text(rep.ulps, 6)} ulps",
        None if rep.atol is None else f"atol {q_text(rep.atol, 6)}") if t)
    r = tally.failing[0] if tally.failing else (tally.odd[0] if tally.odd else None)
    head = "implementation"
    broken = [p.text() for p in rep.properties if p.status == "fail"]
    if r is None:
        if broken and rep.failures == 0:
            return (f"{head} violates {len(broken)} property check(s) (errors within the "
                    f"limit {limit}):\n" + "\n".join(broken))
        return f"{head}: {rep.failures} of {rep.points} points fail (limit {limit})"
    y = f"{r.y!r} ({r.y.hex()})" if math.isfinite(r.y) else repr(r.y)
    if r.status == "undefined":
        first = (f"the reference is undefined at x = {r.x!r} ({r.x.hex()}) but the "
                 f"implementation returned {y}")
    elif r.status == "undecided":
        first = (f"could not decide x = {r.x!r} ({r.x.hex()}) at {r.precision} bits: "
                 f"the reference is within the precision of a rounding boundary or a limit")
    else:
        ref = _ref_text(_ball(r.ref_lo, r.ref_hi))
        err = "inf" if r.abs_hi is None else q_text(r.abs_hi)
        first = (f"{head} is off by {q_text(r.ulps_hi)} ulps (limit {limit}) at "
                 f"x = {r.x!r} ({r.x.hex()}): got {y}, exact reference {ref} (rounds to "
                 f"{r.rounded!r}), |error| = {err}")
        if r.ref_lo == 0 and r.ref_hi == 0 and rep.atol is None:
            first += (" (the reference is exactly 0, where an ulp is the smallest subnormal "
                      "number: atol= sets an absolute limit)")
    hist = _hist_text(rep.histogram)
    rigour = "" if rep.rigorous else f"; reference not rigorous ({rep.reference} returns floats)"
    return (f"{first}; {rep.failures} of {rep.points} points fail"
            f"{'' if not rep.undecided else f', {rep.undecided} undecided'}{rigour}\n"
            f"errors in ulps (screened): {hist}" + "".join("\n" + b for b in broken))


def build_report(tally: Tally, *, ulps: fmpq | None, atol: fmpq | None, rigorous: bool,
                 reference: str, fmt_name: str, domain: tuple[float, float], seconds: float,
                 backend: str, exhaustive: bool = False,
                 properties: tuple[PropertyResult, ...] = (), coverage: Coverage | None = None,
                 resumed: int = 0, tasks: int = 0) -> ImplementationCheck:
    """The report of a merged tally."""
    worst = tally.worst[0] if tally.worst else None
    hist = tuple((HIST_EDGES[i], HIST_EDGES[i + 1], int(n)) for i, n in enumerate(tally.hist))
    passed = tally.failures == 0 and tally.undecided == 0 and not any(
        p.status == "fail" for p in properties)
    common = dict(ulps=ulps, atol=atol, passed=passed, rigorous=rigorous, reference=reference,
                  format=fmt_name, failures=tally.failures, undecided=tally.undecided,
                  screened=tally.screened, exact=tally.exact, pieces=tally.pieces,
                  histogram=hist, profile=tuple(float(v) for v in tally.profile),
                  domain=domain, failing=tuple(tally.failing), seconds=seconds,
                  backend=backend, exhaustive=exhaustive,
                  first_failures=tuple(r for _, r in tally.first),
                  incorrectly_rounded=None if tally.not_cr < 0 else tally.not_cr,
                  properties=properties, coverage=coverage, singularities=tally.singular,
                  singular_inputs=tuple(tally.singular_at), resumed=resumed, tasks=tasks)
    if worst is None:
        z = fmpq(0)
        return ImplementationCheck(points=tally.points, worst_input=math.nan,
                                   reference_value=z, actual=math.nan, worst_abs_error=z,
                                   worst_ulps=z, **common)  # type: ignore[arg-type]
    if worst.ulps_hi is None or worst.abs_hi is None:
        # an infinite error (a NaN or infinite output, or a reference beyond every format):
        # the exact numbers hold the known lower end; the bound says inf
        lo_u = worst.ulps_lo if worst.ulps_lo is not None else fmpq(0)
        lo_a = worst.abs_lo if worst.abs_lo is not None else fmpq(0)
        return ImplementationCheck(
            points=tally.points, worst_input=worst.x,
            reference_value=_ball(worst.ref_lo, worst.ref_hi), actual=worst.y,
            worst_abs_error=lo_a, worst_ulps=lo_u, reference_rounded=worst.rounded,
            worst_ulps_enclosure=(lo_u, lo_u), ulps_bound=math.inf, infinite=True,
            **common)  # type: ignore[arg-type]
    assert worst.ulps_lo is not None
    bound = max(tally.bound, worst.ulps_key())
    return ImplementationCheck(
        points=tally.points, worst_input=worst.x, reference_value=_ball(worst.ref_lo,
                                                                        worst.ref_hi),
        actual=worst.y, worst_abs_error=worst.abs_hi, worst_ulps=worst.ulps_hi,
        reference_rounded=worst.rounded, worst_ulps_enclosure=(worst.ulps_lo, worst.ulps_hi),
        ulps_bound=float(np.nextafter(bound, np.inf)), **common)  # type: ignore[arg-type]
