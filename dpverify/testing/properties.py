"""Properties every libm test suite checks besides the error in ulps, each a named check in
the report of :func:`dpverify.testing.check_implementation`:

* **signed zeros**: where the reference (an expression, or any reference declared odd)
  vanishes at 0, ``f(+0)`` and ``f(-0)`` must be zeros with the sign of ``f`` just right
  and just left of 0 (``sin(-0) = -0``,
  ``expm1(-0) = -0``, ``cosh``-like even functions ``+0`` on both sides); the sign is
  decided with arb at the smallest subnormal;
* **special values**: on a check of the whole line (the domain reaches both ends of the
  format), a NaN input gives NaN, and ``+-inf`` give the limit of the reference where it
  has one that rounds to one number of the format (``exp(-inf) = +0``,
  ``tanh(+inf) = 1``), or C99's value for a one-function reference (``log(+inf) = +inf``,
  ``sin(+inf) = NaN``); the largest finite number and the smallest
  subnormal of either sign, where inside the domain, within the ulp limit (decided
  exactly);
* **symmetry**: for an odd reference ``impl(-x) == -impl(x)``, for an even one
  ``impl(-x) == impl(x)`` (bit for bit, NaN matching NaN), at every checked ``x > 0``
  whose negation is in the domain; the parity is declared (``symmetry="odd"``) or
  inferred from the expression (:func:`parity`);
* **monotonicity**: on each piece of the screen where the reference is monotone (its
  derivative's ball over the piece excludes 0), consecutive checked inputs ``x1 < x2``
  must give ``impl(x1) <= impl(x2)`` (``>=`` where decreasing), compared exactly.
  A correctly rounded implementation keeps symmetry and monotonicity (rounding to
  nearest is odd and monotone); one allowed more than half an ulp may break them within
  its limit, so their violations fail a check of correct rounding (``ulps <= 1/2``) and
  are reported as ``"warn"`` otherwise;
* **range**: every output within the range of the reference over the domain, rounded
  outward to the format (``|sin| <= 1``, ``exp >= 0``), from inf-sup bounds
  (:func:`dpverify.expr.bounds.range_bounds`) on 64 parts of the domain.

Guarantee
---------
A reported violation is one: parities, monotone pieces, limits and ranges are proven in
ball arithmetic; outputs are compared exactly.  The properties are checked only where
they are proven (a piece whose derivative's ball contains 0 is not checked for
monotonicity; an expression whose parity the static rules cannot see is not checked for
symmetry unless declared).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from flint import arb, ctx, fmpq

from ..errors import DomainError
from .formats import BinaryFormat, round_nearest

__all__ = ["PropertyResult", "PropTally", "PROPERTIES", "parity", "range_limits",
           "zero_signs", "special_values", "task_properties", "EXAMPLES"]

#: the named checks, in report order
PROPERTIES = ("signed zeros", "special values", "symmetry", "monotonicity", "range")
#: violations named per property
EXAMPLES = 5

_ODD = ("sin", "tan", "atan", "tanh", "erf", "asin", "sinh", "asinh", "atanh", "cbrt",
        "erfinv")
_EVEN = ("cos", "cosh", "abs")


@dataclass(frozen=True)
class PropertyResult:
    """One named check: ``status`` is ``"pass"``, ``"fail"``, ``"warn"`` (violated, but
    allowed by a limit above half an ulp: symmetry and monotonicity) or ``"skipped"``
    (``detail`` says why); ``checked`` counts the comparisons made, ``violations`` the
    failed ones, ``examples`` names the first few."""

    name: str
    status: str
    checked: int = 0
    violations: int = 0
    detail: str = ""
    examples: tuple[str, ...] = ()

    def text(self) -> str:
        if self.status == "skipped":
            return f"{self.name}: skipped ({self.detail})"
        head = f"{self.name}: " + {"pass": "ok", "fail": "FAILS",
                                   "warn": "violated (allowed by the limit)"}[self.status]
        what = f" ({self.detail})" if self.detail else ""
        tail = (f", {self.violations} of {self.checked} violated: "
                + "; ".join(self.examples[:3]) if self.violations else
                f", {self.checked} checked")
        return head + what + tail


@dataclass
class PropTally:
    """Mergeable counts of one per-task property: comparisons, violations, and the first
    examples by input (``(x, text)``)."""

    checked: int = 0
    violations: int = 0
    examples: list[tuple[float, str]] = field(default_factory=list)

    def merge(self, other: PropTally) -> PropTally:
        ex = sorted(self.examples + other.examples)[:EXAMPLES]
        return PropTally(self.checked + other.checked, self.violations + other.violations,
                         ex)


# ------------------------------------------------------------------ parity


def parity(node: Any) -> str | None:
    """``"odd"``, ``"even"`` or None (unknown) for an expression tree in one variable,
    by the rules: the variable is odd, constants even; ``odd(f)`` of an odd argument is
    odd, ``even(f)`` of an odd or even argument even, anything of an even argument even;
    sums keep a common parity; products and quotients multiply parities (odd * odd is
    even); integer powers ``u^n`` of an odd ``u`` have the parity of ``n``."""
    k = node.kind
    if node.constant or k in ("num", "const"):
        return "even"
    if k == "var":
        return "odd"
    if k == "neg":
        return parity(node.args[0])
    if k == "sum":
        ps = {parity(t) for _, t in node.args}
        return ps.pop() if len(ps) == 1 else None
    if k == "prod":
        odd = 0
        for _, f in node.args:
            p = parity(f)
            if p is None:
                return None
            odd += p == "odd"
        return "odd" if odd % 2 else "even"
    if k == "pow":
        base, ex = node.args
        pb = parity(base)
        if ex.kind == "num" and ex.args[0].q == 1 and pb is not None:
            return "even" if pb == "even" or int(ex.args[0].p) % 2 == 0 else "odd"
        return "even" if pb == "even" and ex.constant else None
    if k == "call":
        name, arg = node.args
        pa = parity(arg)
        if pa == "even":
            return "even"
        if pa == "odd":
            return "odd" if name in _ODD else "even" if name in _EVEN else None
        return None
    if k == "callp":   # J_n, I_n of an integer order n: the parity of n
        name, order, arg = node.args
        if name in ("besselj", "besseli") and order.q == 1 and parity(arg) == "odd":
            return "odd" if int(order.p) % 2 else "even"
        return "even" if parity(arg) == "even" else None
    if k == "call2":
        both = [parity(a) for a in node.args[1]]
        return "even" if all(p in ("odd", "even") for p in both) else None
    if k == "minmax":
        return "even" if all(parity(a) == "even" for a in node.args[1]) else None
    return None


# ------------------------------------------------------------------ range


def range_limits(expr: Any, lo: fmpq, hi: fmpq, fmt: BinaryFormat, parts: int = 64
                 ) -> tuple[float, float, str] | None:
    """``(a, b, where)``: numbers of ``fmt`` with ``a <= RN(f(x)) <= b`` for every ``x`` of
    the first of ``[-M, M]``, ``[0, M]``, ``[-M, 0]`` (``M`` the largest finite number)
    that contains ``[lo, hi]`` and where ``f`` is defined and bounded -- the reference's
    global range, so that an output beyond it is wrong whatever the ulp limit (``|sin| <=
    1``, ``exp >= 0``); from inf-sup bounds on ``parts`` parts, rounded to nearest
    (monotone, so ``RN(f)`` stays inside).  None when no half-line works."""
    m = fmpq(*fmt.max_finite.as_integer_ratio())
    for a, b, where in ((-m, m, "the real line"), (fmpq(0), m, "x >= 0"),
                        (-m, fmpq(0), "x <= 0")):
        if not (a <= lo and hi <= b):
            continue
        found = _bounds(expr, a, b, parts, fmt)
        if found is not None:
            return found[0], found[1], where
    return None


def _bounds(expr: Any, lo: fmpq, hi: fmpq, parts: int, fmt: BinaryFormat
            ) -> tuple[float, float] | None:
    # deferred: the expression package loads on first use (references.py)
    from ..expr.bounds import range_bounds

    low: arb | None = None
    high: arb | None = None
    with ctx.workprec(fmt.p + 30):
        for i in range(parts):
            a = lo + (hi - lo) * i / parts
            b = lo + (hi - lo) * (i + 1) / parts
            try:
                u, v = range_bounds(expr, a, b)
            except DomainError:
                return None
            if not (u.is_finite() and v.is_finite()):
                return None
            low = u if low is None or u < low else low
            high = v if high is None or v > high else high
    if low is None or high is None:
        return None
    return _nearest(low, fmt), _nearest(high, fmt)


def _nearest(v: arb, fmt: BinaryFormat) -> float:
    """RN of the exact ball end ``v`` in ``fmt`` (RN is monotone: ``RN(f) <= RN(v)`` when
    ``f <= v``)."""
    man, ex = v.mid().man_exp()
    e = int(ex)
    if e > 4 * fmt.emax:
        return math.inf if man > 0 else -math.inf
    if e + int(man).bit_length() < 2 * (fmt.emin - fmt.p):
        return 0.0
    return round_nearest(int(man) * fmpq(2) ** e, fmt)


# ------------------------------------------------------------------ zeros and limits


def zero_signs(ref: Any, fmt: BinaryFormat) -> tuple[float, float] | None:
    """The expected results at ``+0`` and ``-0`` (``+-0.0``) where the reference vanishes
    at 0: the signs of ``f`` at the smallest subnormals of either sign; None where
    ``f(0) != 0``, or either sign is undecided."""
    tiny = fmpq(1, 2 ** (fmt.p - fmt.emin - 1))
    try:
        at0 = ref.enclose(fmpq(0), fmt.p + 40)
        if at0 is None or at0 != (0, 0):
            return None
        signs = []
        for x in (tiny, -tiny):
            enc = ref.enclose(x, fmt.p + 40)
            if enc is None or enc[0] is None or enc[1] is None:
                return None
            if enc[0] > 0:
                signs.append(0.0)
            elif enc[1] < 0:
                signs.append(-0.0)
            else:
                return None
    except DomainError:
        return None
    return signs[0], signs[1]


#: f(+inf), f(-inf) of one-function references where evaluation just beyond the largest
#: number cannot decide the limit (slow growth, no limit): C99 Annex F
_LIMITS = {
    "log": (math.inf, math.nan), "log1p": (math.inf, math.nan), "sqrt": (math.inf, math.nan),
    "cbrt": (math.inf, -math.inf), "asinh": (math.inf, -math.inf),
    "acosh": (math.inf, math.nan), "atanh": (math.nan, math.nan),
    "sin": (math.nan, math.nan), "cos": (math.nan, math.nan), "tan": (math.nan, math.nan),
    "lgamma": (math.inf, math.inf), "gamma": (math.inf, math.nan),
}


def limit_at(expr: Any, side: int, fmt: BinaryFormat) -> float | None:
    """The expected result at ``+-inf``: the number of ``fmt`` that ``f`` rounds to on all
    of ``[2^(emax+1), 2^(emax+64)]`` (mirrored for ``-inf``) -- just beyond the largest
    finite number -- when that is one number; else, for a reference ``g(x)`` of one
    function, C99's value (``log(+inf) = +inf``, ``sin(+inf) = NaN``); else None (not
    checked)."""
    # deferred: the expression package loads on first use (references.py)
    from ..expr.bounds import range_bounds
    from .models import rounds_to

    a, b = fmpq(2) ** (fmt.emax + 1), fmpq(2) ** (fmt.emax + 64)
    lo, hi = (a, b) if side > 0 else (-b, -a)
    r = None
    try:
        with ctx.workprec(fmt.p + 64):
            u, v = range_bounds(expr, lo, hi)
            r = rounds_to(u, v, fmt)
    except DomainError:
        pass
    if r is not None:
        return r
    name = expr.canonical[:-3] if expr.canonical.endswith("(x)") else None
    if name in _LIMITS and expr.variables == ("x",):
        return _LIMITS[name][0 if side > 0 else 1]
    return None


def _same(a: float, b: float) -> bool:
    """Bit-for-bit equality of outputs (NaN equals NaN; the sign of zero counts)."""
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    return a == b and math.copysign(1.0, a) == math.copysign(1.0, b)


def special_values(setup: Any, call: Any, decide: Any) -> tuple[PropertyResult,
                                                                 PropertyResult]:
    """The signed-zeros and special-values checks of a check's setup (module docstring);
    ``call(xs)`` runs the implementation, ``decide(x, y)`` decides one point exactly."""
    fmt, dom, ref = setup.fmt, setup.dom, setup.ref
    expr = getattr(ref, "expr", None)
    # signed zeros: for expressions, and for references declared odd
    if not (dom.lo <= 0 <= dom.hi) or dom.kind != "interval":
        zeros = PropertyResult("signed zeros", "skipped", detail="0 is not in the domain")
    elif expr is None and setup.parity != "odd":
        zeros = PropertyResult("signed zeros", "skipped",
                               detail="not an expression, and not declared odd")
    else:
        signs = zero_signs(ref, fmt)
        if signs is None:
            zeros = PropertyResult("signed zeros", "skipped",
                                   detail="the reference is not 0 at 0 with a sign each side")
        else:
            got = call(np.array([0.0, -0.0]))
            bad = [f"f({z}) = {g!r}, expected {w!r}" for z, g, w in
                   zip(("+0", "-0"), got.tolist(), signs) if not _same(g, w)]
            zeros = PropertyResult("signed zeros", "fail" if bad else "pass", 2, len(bad),
                                   "", tuple(bad))
    # special values: NaN and +-inf for a check of the whole line (a check of part of it
    # need not take them)
    whole = dom.lo <= -fmt.max_finite and dom.hi >= fmt.max_finite
    cases: list[tuple[str, float, float | None]] = [("NaN", math.nan, math.nan)] if whole \
        else []
    if expr is not None:
        for side, end in ((1, dom.hi >= fmt.max_finite), (-1, dom.lo <= -fmt.max_finite)):
            limit = limit_at(expr, side, fmt) if end else None
            if limit is not None:
                cases.append(("+inf" if side > 0 else "-inf", side * math.inf, limit))
    sub = math.ldexp(1.0, fmt.emin - fmt.p + 1)
    for label, x in (("largest finite", fmt.max_finite), ("-largest finite", -fmt.max_finite),
                     ("smallest subnormal", sub), ("-smallest subnormal", -sub)):
        if dom.lo <= x <= dom.hi:
            cases.append((label, x, None))
    if dom.kind != "interval":
        cases = []
    if not cases:
        return zeros, PropertyResult("special values", "skipped", detail=(
            "no special input in the domain (NaN and +-inf are checked on the whole line)"))
    bad, n = [], 0
    got = []
    for c in cases:   # one by one: an exception at a special input is a violation
        try:
            got.append(float(call(np.array([c[1]]))[0]))
        except Exception as exc:  # noqa: BLE001 - the implementation's, reported
            got.append(math.nan)
            bad.append(f"f({c[0]}) raises {type(exc).__name__}: {exc}")
    for (label, x, want), y in zip(cases, got):
        n += 1
        if want is not None:
            if not _same(y, want) and not (want == 0 and y == 0):
                bad.append(f"f({label}) = {y!r}, expected {want!r}")
        else:
            r = decide(x, y)
            if r.status in ("fail", "undefined"):
                bad.append(f"f({label} = {x!r}) = {y!r}: {r.status}")
    special = PropertyResult("special values", "fail" if bad else "pass", n, len(bad),
                             ", ".join(c[0] for c in cases), tuple(bad))
    return zeros, special


# ------------------------------------------------------------------ per task


def task_properties(setup: Any, xs: np.ndarray, ys: np.ndarray, runs: list[tuple[int, int,
                    int]], call: Any) -> dict[str, PropTally]:
    """Monotonicity on the monotone ``runs`` (``(start, stop, sign)`` index ranges),
    symmetry (when ``setup.parity`` is set) and range (``setup.range``) at the points of one
    task."""
    out: dict[str, PropTally] = {}
    # monotonicity
    mono = PropTally()
    for a, b, sign in runs:
        if b - a < 2:
            continue
        d = np.diff(ys[a:b]) * sign
        mono.checked += b - a - 1
        bad = np.flatnonzero(d < 0)
        mono.violations += int(bad.size)
        for i in bad[:EXAMPLES].tolist():
            j = a + i
            x0, x1, y0, y1 = (float(v) for v in (xs[j], xs[j + 1], ys[j], ys[j + 1]))
            mono.examples.append((x0, (f"x = {x0!r} < {x1!r} but f = {y0!r} "
                                       f"{'>' if sign > 0 else '<'} {y1!r}")))
    out["monotonicity"] = mono
    # range
    if setup.range is not None:
        lo_r, hi_r = setup.range
        rng = PropTally(checked=int(np.count_nonzero(~np.isnan(ys))))
        bad = np.flatnonzero((ys < lo_r) | (ys > hi_r))
        rng.violations = int(bad.size)
        rng.examples = [(float(xs[i]), f"f({float(xs[i])!r}) = {float(ys[i])!r} outside "
                         f"[{lo_r!r}, {hi_r!r}]") for i in bad[:EXAMPLES].tolist()]
        out["range"] = rng
    # symmetry
    if setup.parity is not None:
        pos = np.flatnonzero((xs > 0) & (-xs >= setup.dom.lo))
        sym = PropTally(checked=int(pos.size))
        if pos.size:
            yn = call(-xs[pos])
            want = -ys[pos] if setup.parity == "odd" else ys[pos]
            same = (yn == want) & (np.signbit(yn) == np.signbit(want))
            same |= np.isnan(yn) & np.isnan(want)
            bad = pos[~same]
            sym.violations = int(bad.size)
            yb = yn[~same]
            sym.examples = [(float(xs[i]), f"f({float(xs[i])!r}) = {float(ys[i])!r} but "
                             f"f({-float(xs[i])!r}) = {v!r}")
                            for i, v in zip(bad[:EXAMPLES].tolist(), yb[:EXAMPLES].tolist())]
        out["symmetry"] = sym
    return out
