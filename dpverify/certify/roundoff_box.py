"""Round-off error of a straight-line program on one box of inputs (FPTaylor's method in
ball arithmetic).

Model.  Every rounded operation ``k`` computes ``fl(w_k)``, where ``w_k`` is the exact
result of the operation on the *computed* operands; ``d_k = fl(w_k) - w_k`` is its rounding
error.  A literal ``c`` is stored as its rounding ``c^`` (``d = c^ - c``, known exactly),
an input rounded from a real (``round_inputs``) gets ``d = fl(x) - x``, and a called
function with a declared accuracy of ``N`` ulps gets ``|d| <= N ulp(w)``.  Write ``v_k(x)``
for the exact (real) value of operation ``k`` on the exact inputs and literals.  The
computed output is a smooth function ``F(x, d)`` of the inputs and the errors, with
``F(x, 0) = v_out(x)``, and

    fl(P)(x) - P(x) = sum_k a_k(x) d_k + R,     a_k = dF/dd_k (x, 0),

the first-order Taylor expansion in the errors (Solovyev et al., FPTaylor, TOPLAS 2018).
``a_k`` is the derivative of the output with respect to the value of operation ``k``
(reverse-mode adjoint), and ``R`` collects every term of order two and more.

Bounds on a box ``X`` (centre ``m``, radii ``r``):

* **Values.**  Each ``v_k`` is enclosed in ball arithmetic over ``X`` together with its
  gradient (forward-mode dual numbers), and refined by the mean-value form
  ``v_k(X) <= v_k(m) + grad v_k(X) . [-r, r]`` (intersected with the plain enclosure).
* **Errors.**  ``|d_k| <= H_k``: half an ulp of the largest binade ``|w_k| <= 2^E_k`` can
  reach (:mod:`.fpformat`: gradual underflow covered, ``E_k <= emax`` excludes overflow),
  with ``|w_k - v_k| <= ein_k`` (the accumulated error of the operands); ``H_k = 0`` when
  the operation is exact (the FIX argument of :mod:`.fpformat`: a product or sum of floats
  on a coarse enough grid, a power-of-two scaling); ``|c^ - c|`` for literals; ``N ulp``
  for declared functions.
* **First order.**  ``sup_X |a_k|`` by the same mean-value form on the adjoints (the
  reverse sweep run on dual numbers), so ``|sum a_k d_k| <= sum_k sup |a_k| H_k``.
* **Remainder.**  ``|R| <= r_out`` by a forward recursion of rigorous bounds ``e_k`` on
  ``|v^_k - v_k|`` and ``r_k`` on its nonlinear part: for a product
  ``r = |a| r_b + |b| r_a + e_a e_b``; a quotient
  ``r = (r_a + |z| r_b)/|b| + (e_a + |z| e_b) e_b / (|b| |b^|)``; ``sqrt``
  ``r = r_a/(2 sqrt(a)) + e_a^2 / (2 sqrt(a) (sqrt(a) + sqrt(a^))^2)``; a function
  ``r = sup|g'| r_a + sup|g''| e_a^2 / 2`` over the hull of ``a`` and ``a^``; sums add.

The box's bound is ``sum_k sup|a_k| H_k + r_out`` (plus, for a target ``f`` other than the
program's exact value, a bound of ``sup_X |f - v_out|`` from the caller).  Relative error
divides by a lower bound of ``|target|`` on ``X``; ulps by the ulp of that lower bound.

Size: one module holds every per-operation rule of the analysis (values, errors,
roundings, coefficients), so that it can be read against the checker's counterpart
(:mod:`dpverify.verify.roundoff_box`) rule by rule.

Guarantee
---------
The bound holds for every input of the box (every float of the format in it, or every real
rounded to the format with ``round_inputs``) and every choice of rounding errors allowed by
the model; all enclosures are arb balls and exact rationals.  A box where some value has
no finite enclosure (a division by an interval containing 0, a function outside its
domain, possible overflow) gets no bound (``None``) and the reason.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from flint import arb, ctx, fmpq

from ..errors import InvalidParameterError
from ..expr.program import Op, Program
from .fpformat import ZERO_FIX, Format, ceil_log2, fix_of, floor_log2, pow2, power_of_two
from .roundoff_balls import (
    Box,
    Dual,
    derivatives,
    exact_range,
    lower_abs,
    mid_rad,
    narrow,
    range_low,
    refine,
    short_range,
    upper_abs,
)

__all__ = ["Setup", "BoxResult", "analyse_box", "PREC", "Approx", "Box"]

#: working precision of the ball arithmetic (bits)
PREC = 96
#: the caller's part for a target f: box -> (upper bound of sup |f - v_out| or None, a
#: lower bound of |f - v_out| at the centre)
Approx = Callable[[Box], tuple[fmpq | None, fmpq]]


@dataclass
class Setup:
    """What every box of one analysis shares: the program, the format, whether inputs are
    rounded reals, the function models (``None``: correctly rounded; an exact number:
    that many ulps), the error kind (``"abs"``, ``"rel"``, ``"ulps"``) and the optional
    target part (``approx``)."""

    program: Program
    fmt: Format
    round_inputs: bool
    models: dict[str, fmpq | None]
    error: str = "abs"
    approx: Approx | None = None

    def __post_init__(self) -> None:
        self.live = self.program.live()
        self.hats: dict[int, fmpq] = {}
        for k, op in enumerate(self.program.ops):
            if op.kind == "const":
                assert op.value is not None
                hat = self.fmt.nearest(op.value)
                if hat is None:
                    raise InvalidParameterError(
                        f"the literal {op.value} overflows {self.fmt.name}")
                self.hats[k] = hat


@dataclass
class BoxResult:
    """The analysis of one box: ``bound`` in the statement's unit (absolute error,
    relative error or ulps; None when there is no finite bound, ``reason`` says why),
    ``absolute`` the absolute bound, its parts ``first`` (first order), ``second``
    (remainder) and ``approx`` (target part), ``target_lower`` (a lower bound of
    ``|target|``, for rel/ulps), ``estimate`` (the bound's integrand at the centre: a
    heuristic value for the search's stopping rule) and ``axis`` (where bisection pays
    most)."""

    box: Box
    bound: fmpq | None
    absolute: fmpq | None = None
    first: fmpq = fmpq(0)
    second: fmpq = fmpq(0)
    approx: fmpq = fmpq(0)
    target_lower: fmpq | None = None
    estimate: fmpq = fmpq(0)
    axis: int = 0
    reason: str = ""


class _NoBound(Exception):
    pass


def _rounding(fmt: Format, mag: fmpq | None, fv: int | None, low: int | None,
              exact: bool, ulps: fmpq | None = None) -> tuple[fmpq, int]:
    """(error bound, FIX of the result) of rounding ``w`` with ``|w| <= mag``; ``fv`` the
    FIX of ``w`` (None: unknown), ``low`` with ``|w| >= 2^low`` when known; ``exact``:
    proven representable; ``ulps``: a function declared accurate to that many ulps."""
    if mag is None:
        raise _NoBound("a value has no finite enclosure")
    if mag == 0:
        return fmpq(0), ZERO_FIX
    e = ceil_log2(mag)
    if e > fmt.emax:
        raise _NoBound(f"a value may reach 2^{e} > 2^{fmt.emax}: overflow cannot be excluded")
    f = fmt.min_fix if fv is None else fv
    if ulps is not None:
        # |w| <= mag: ulp(w) <= 2^(max(E', emin) - p + 1), E' = E - 1 unless |w| can be 2^E
        top = e if mag == pow2(e) else e - 1
        return ulps * pow2(max(top, fmt.emin) - fmt.precision + 1), \
            fmt.fix_after_rounding(fmt.min_fix, low)
    if exact or (fv is not None and fmt.exact_by_fix(f, e)):
        return fmpq(0), fmt.fix_after_rounding(f, low)
    return fmt.half_ulp(e), fmt.fix_after_rounding(f, low)


def _low(v: arb, e_in: arb) -> int | None:
    """``L`` with ``|w| >= 2^L`` for ``w`` within ``e_in`` of ``v``'s ball, or None."""
    lo = lower_abs(v)
    up = upper_abs(e_in)
    if up is None or lo <= up:
        return None
    return floor_log2(lo - up)


def analyse_box(s: Setup, box: Box) -> BoxResult:
    """The bound of the module docstring on ``box`` (one closed interval per variable)."""
    with ctx.workprec(PREC):
        try:
            return _analyse(s, box)
        except _NoBound as exc:
            return BoxResult(box, None, reason=str(exc))


def _analyse(s: Setup, box: Box) -> BoxResult:
    prog, fmt = s.program, s.fmt
    ops = prog.ops
    d = len(prog.variables)
    mids = [(a + b) / 2 for a, b in box]
    radii = [arb(0, (b - a) / 2) for a, b in box]
    balls = [arb(a).union(arb(b)) for a, b in box]
    zero_g = tuple(arb(0) for _ in range(d))
    n = len(ops)
    P: list[arb] = [arb(0)] * n       # values at the centre
    D: list[Dual] = [Dual(arb(0), zero_g)] * n  # values and gradients over the box
    V: list[arb] = [arb(0)] * n       # refined value enclosures over the box
    E: list[arb] = [arb(0)] * n       # |computed - exact| <= E
    R: list[arb] = [arb(0)] * n       # nonlinear part of the error <= R
    H: dict[int, fmpq] = {}           # |d_k| <= H[k] for the error sources
    F: list[int] = [ZERO_FIX] * n     # FIX of the computed values
    I: list[tuple[fmpq, fmpq] | None] = [None] * n  # exact rational ranges, where cheap
    C: list[tuple[fmpq, fmpq] | None] = [None] * n  # exact ranges of the computed floats
    for k, op in enumerate(ops):
        if not s.live[k]:
            continue
        _forward(s, k, op, box, mids, radii, balls, P, D, V, E, R, H, F, I, C)
    out = prog.output
    rng_out = I[out]
    if rng_out is not None:  # the exact range may exclude 0 where the balls do not
        V[out] = narrow(V[out], rng_out)
        D[out] = Dual(narrow(D[out].v, rng_out), D[out].g)
    second = upper_abs(R[out])
    if second is None:
        raise _NoBound("the second-order remainder has no finite bound")
    rel_first: fmpq | None = None
    if s.error == "abs" or s.approx is not None:
        first, estimate, axis_w = _first_order(s, H, P, D, V, radii)
    else:
        if not _excludes_zero(V[out]):
            raise _NoBound("the target may vanish on this box (relative error and ulps "
                           "need |target| > 0)")
        # the sweep seeded with 1/P gives the coefficients a_k / P of the relative error
        seed = (1 / P[out], Dual(arb(1), tuple(arb(0) for _ in range(d))) / D[out])
        rel_first, rel_est, axis_w = _first_order(s, H, P, D, V, radii, seed)
        first, estimate = rel_first, rel_est
        if s.error == "ulps":
            first, estimate, _ = _first_order(s, H, P, D, V, radii)
    approx = fmpq(0)
    lower = None
    if s.approx is not None:
        ap, centre = s.approx(box)
        if ap is None:
            raise _NoBound("sup |f - p| has no finite bound on this box")
        approx = ap
        estimate += centre
    if s.error != "abs":
        # |target| >= |v_out| - sup |f - v_out|
        lower = max(lower_abs(V[out]), range_low(I[out])) - approx
    axis = max(range(d), key=lambda i: (axis_w[i], box[i][1] - box[i][0])) if d else 0
    if s.error != "abs" and (lower is None or lower <= 0):
        raise _NoBound("the target may vanish on this box (relative error and ulps need "
                       "|target| > 0)")
    if rel_first is None:
        absolute = first + second + approx
        bound: fmpq = absolute
        if lower is not None:
            bound = absolute / lower if s.error == "rel" else absolute / fmt.ulp(lower)
            estimate = _ratio(estimate, P[out], fmt, s.error)
        return BoxResult(box, bound, absolute, first, second, approx, lower, estimate, axis)
    assert lower is not None
    rel = rel_first + second / lower
    top = upper_abs(abs(V[out]))
    if s.error == "rel":
        absolute = rel * top if top is not None else rel
        return BoxResult(box, rel, absolute, rel_first, second, approx, lower, estimate, axis)
    absolute = first + second
    # |P| < 2^p ulp(P): the relative bound gives ulps too; the smaller of the two holds
    bound = min(absolute / fmt.ulp(lower), rel * 2**fmt.precision)
    estimate = _ratio(estimate, P[out], fmt, "ulps")
    return BoxResult(box, bound, absolute, first, second, approx, lower, estimate, axis)


def _ratio(est: fmpq, p: arb, fmt: Format, error: str) -> fmpq:
    """The point estimate in the statement's unit (heuristic)."""
    lo = lower_abs(p)
    if lo <= 0:
        return fmpq(0)
    return est / lo if error == "rel" else est / fmt.ulp(lo)


def _forward(s: Setup, k: int, op: Op, box: Box, mids: list[fmpq], radii: list[arb],
             balls: list[arb], P: list[arb], D: list[Dual], V: list[arb], E: list[arb],
             R: list[arb], H: dict[int, fmpq], F: list[int],
             I: list[tuple[fmpq, fmpq] | None], C: list[tuple[fmpq, fmpq] | None]) -> None:
    """Values, gradients, error bounds and the rounding of operation ``k``."""
    fmt = s.fmt
    I[k] = short_range(exact_range(op, box, [I[j] for j in op.args], s.program.variables))
    # the computed values: rounding is monotone, so the float result of an operation lies
    # between the roundings of the ends of its exact result's range on computed operands
    W = _computed(s, k, op, box, C)
    d = len(mids)
    zero = arb(0)
    a = op.args
    if op.kind == "var":
        i = s.program.variables.index(op.name)
        P[k] = arb(mids[i])
        D[k] = Dual(balls[i], tuple(arb(1) if j == i else arb(0) for j in range(d)))
        V[k] = balls[i]
        lo, hi = box[i]
        if s.round_inputs:
            rlo, rhi = fmt.nearest(lo), fmt.nearest(hi)
            if rlo is None or rhi is None:
                raise _NoBound(f"the input {op.name} overflows {fmt.name}")
            F[k] = fmt.fix_of_range(rlo, rhi)
            if lo == hi and fmt.is_member(lo):
                H[k] = fmpq(0)
            else:
                H[k], _ = _rounding(fmt, max(abs(lo), abs(hi)), None, None, False)
            E[k] = arb(H[k])
        else:
            flo, fhi = fmt.ceil(lo), fmt.floor(hi)
            F[k] = fmt.fix_of_range(flo, fhi) if flo <= fhi else fmt.min_fix
        C[k] = W
        return
    if op.kind == "const":
        assert op.value is not None
        P[k] = arb(op.value)
        D[k] = Dual(P[k], tuple(zero for _ in range(d)))
        V[k] = P[k]
        hat = s.hats[k]
        H[k] = abs(hat - op.value)
        E[k] = arb(H[k])
        F[k] = fix_of(hat)
        C[k] = W
        return
    pa = [P[j] for j in a]
    da = [D[j] for j in a]
    va = [V[j] for j in a]
    ea = [E[j] for j in a]
    ra = [R[j] for j in a]
    kind = op.kind
    fv: int | None = None
    scaled = False
    ulps: fmpq | None = None
    if kind == "neg":
        P[k], D[k] = -pa[0], -da[0]
        V[k], E[k], R[k], F[k] = -va[0], ea[0], ra[0], F[a[0]]
        C[k] = W
        return
    if kind == "abs":
        P[k] = abs(pa[0])
        sign = arb(1) if va[0] > 0 else arb(-1) if va[0] < 0 else None
        D[k] = da[0].chain(abs(da[0].v), sign if sign is not None else arb(0, 1))
        V[k] = abs(va[0])
        E[k], F[k] = ea[0], F[a[0]]
        R[k] = ra[0] if sign is not None else ea[0]  # no linear part across 0
        C[k] = W
        return
    if kind in ("add", "sub"):
        P[k] = pa[0] + pa[1] if kind == "add" else pa[0] - pa[1]
        D[k] = da[0] + da[1] if kind == "add" else da[0] - da[1]
        e_in = ea[0] + ea[1]
        R[k] = ra[0] + ra[1]
        fa, fb = F[a[0]], F[a[1]]
        fv = min(fa, fb)
    elif kind == "mul":
        P[k] = pa[0] * pa[1]
        D[k] = da[0].square() if a[0] == a[1] else da[0] * da[1]
        A, B = abs(va[0]), abs(va[1])
        e_in = A * ea[1] + B * ea[0] + ea[0] * ea[1]
        R[k] = A * ra[1] + B * ra[0] + ea[0] * ea[1]
        fa, fb = F[a[0]], F[a[1]]
        fv = ZERO_FIX if ZERO_FIX in (fa, fb) else fa + fb
        scaled = any(ops_const_pow2(s, j) for j in a)
    elif kind == "fma":
        P[k] = pa[0] * pa[1] + pa[2]
        D[k] = (da[0].square() if a[0] == a[1] else da[0] * da[1]) + da[2]
        A, B = abs(va[0]), abs(va[1])
        e_in = A * ea[1] + B * ea[0] + ea[0] * ea[1] + ea[2]
        R[k] = A * ra[1] + B * ra[0] + ea[0] * ea[1] + ra[2]
        fa, fb, fc = F[a[0]], F[a[1]], F[a[2]]
        fv = min(ZERO_FIX if ZERO_FIX in (fa, fb) else fa + fb, fc)
    elif kind == "div":
        bhat = va[1] + arb(0, _mag(ea[1]))
        if not _excludes_zero(va[1]) or not _excludes_zero(bhat):
            raise _NoBound("a divisor may vanish on this box")
        P[k] = pa[0] / pa[1]
        D[k] = da[0] / da[1]
        Z = abs(D[k].v)
        lb, lbh = arb(lower_abs(va[1])), arb(lower_abs(bhat))
        e_in = (ea[0] + Z * ea[1]) / lbh
        R[k] = (ra[0] + Z * ra[1]) / lb + (ea[0] + Z * ea[1]) * ea[1] / (lb * lbh)
        if ops_const_pow2(s, a[1]) and F[a[0]] != ZERO_FIX:
            fv = F[a[0]] - floor_log2(abs(s.hats[a[1]]))
            scaled = True
    elif kind == "sqrt":
        ahat = va[0] + arb(0, _mag(ea[0]))
        lo_a, lo_h = _low_end(va[0]), _low_end(ahat)
        if lo_a is None or lo_h is None or lo_a < 0 or lo_h < 0:
            raise _NoBound("sqrt of a value that may be negative on this box")
        P[k] = pa[0].sqrt()
        D[k] = da[0].chain(da[0].v.sqrt(), 1 / (2 * da[0].v.sqrt()))
        ua = _mag(ea[0])
        if ua == 0 and _mag(ra[0]) == 0:
            e_in, R[k] = arb(0), arb(0)
        else:
            if lo_a == 0:
                raise _NoBound("sqrt near 0 of an inexact value (unbounded derivative)")
            sa, sh = arb(lo_a).sqrt(), arb(lo_h).sqrt()
            e_in = ea[0] / (sa + sh)
            R[k] = ra[0] / (2 * sa) + ea[0] * ea[0] / (2 * sa * (sa + sh) * (sa + sh))
    else:  # call
        name = op.name
        model = s.models.get(name, None)
        if name not in s.models:
            raise InvalidParameterError(f"no accuracy model for {name}")
        P[k] = derivatives(name, pa[0])[0]
        dv0, dv1, _ = derivatives(name, da[0].v)
        D[k] = da[0].chain(dv0, dv1)
        _, h1, h2 = derivatives(name, va[0] + arb(0, _mag(ea[0])))
        if not (h1.is_finite() and h2.is_finite() and dv1.is_finite()):
            raise _NoBound(f"{name} has no finite derivative enclosure on this box")
        e_in = abs(h1) * ea[0]
        R[k] = abs(dv1) * ra[0] + abs(h2) * ea[0] * ea[0] / 2
        ulps = model
    V[k] = refine(P[k], D[k], radii)
    if not V[k].is_finite():
        raise _NoBound("a value has no finite enclosure on this box")
    mag = upper_abs(abs(V[k]) + e_in)
    rng = I[k]
    if rng is not None and mag is not None:
        # the exact range reaches a power of two exactly where a ball overshoots it
        mag = min(mag, max(-rng[0], rng[1]) + _mag(e_in))
    low = _low(V[k], e_in)
    if W is not None and mag is not None:
        mag = min(mag, max(-W[0], W[1]))
        wl = range_low(W)
        if wl > 0:
            low = floor_log2(wl) if low is None else max(low, floor_log2(wl))
    exact = scaled and fv is not None and fv >= fmt.min_fix
    # an operand that is the literal 0: the sum is the other (computed) operand, the product
    # 0; for a fused a*b + c, a zero factor leaves the float c
    zeros = [j for j in a if s.program.ops[j].kind == "const" and s.hats[j] == 0]
    if zeros and (kind in ("add", "sub", "mul") or (kind == "fma" and a[2] not in zeros)):
        exact = True
    h, F[k] = _rounding(fmt, mag, fv, low, exact, ulps)
    if W is not None and ulps is None:
        lo_f, hi_f = fmt.nearest(W[0]), fmt.nearest(W[1])
        C[k] = None if lo_f is None or hi_f is None else (lo_f, hi_f)
        if lo_f is not None and lo_f == hi_f:
            # every w of the range rounds to the one float lo_f: the error is at most the
            # range's distance to it
            h = min(h, max(lo_f - W[0], W[1] - lo_f))
        else:
            split = _two_floats(s, op, box, C)
            if split is not None:
                h, C[k] = min(h, split[0]), split[1]
    H[k] = h
    E[k] = e_in + arb(h)


def _computed(s: Setup, k: int, op: Op, box: Box, C: list[tuple[fmpq, fmpq] | None]
              ) -> tuple[fmpq, fmpq] | None:
    """The exact range of the computed value of an input, literal, negation or ``abs``,
    and of the exact result ``w`` of any other operation on the computed operands (None
    for sqrt, calls, or an unknown operand)."""
    fmt = s.fmt
    if op.kind == "var":
        lo, hi = box[s.program.variables.index(op.name)]
        if s.round_inputs:
            rl, rh = fmt.nearest(lo), fmt.nearest(hi)
            return None if rl is None or rh is None else (rl, rh)
        flo, fhi = fmt.ceil(lo), fmt.floor(hi)
        return (flo, fhi) if flo <= fhi else None
    if op.kind == "const":
        return s.hats[k], s.hats[k]
    return short_range(exact_range(op, box, [C[j] for j in op.args], s.program.variables))


def _two_floats(s: Setup, op: Op, box: Box, C: list[tuple[fmpq, fmpq] | None]
                ) -> tuple[fmpq, tuple[fmpq, fmpq]] | None:
    """When an operand's computed value is one of two adjacent floats, the exact result's
    range for each choice; if each rounds to one float, (the largest distance to it, the
    range of those floats), else None."""
    fmt = s.fmt
    choices: list[list[tuple[fmpq, fmpq] | None]] = []
    two = False
    for j in op.args:
        c = C[j]
        if c is not None and c[0] != c[1] and fmt.next_up(c[0]) == c[1]:
            choices.append([(c[0], c[0]), (c[1], c[1])])
            two = True
        else:
            choices.append([c])
    if not two or op.kind not in ("add", "sub", "mul", "div", "fma"):
        return None
    combos: list[list[tuple[fmpq, fmpq] | None]] = [[]]
    for ch in choices:
        combos = [c + [x] for c in combos for x in ch]
    dist, floats = fmpq(0), []
    for args in combos:
        w = short_range(exact_range(op, box, args, s.program.variables))
        if w is None:
            return None
        f = fmt.nearest(w[0])
        if f is None or f != fmt.nearest(w[1]):
            return None
        dist = max(dist, f - w[0], w[1] - f)
        floats.append(f)
    return dist, (min(floats), max(floats))


def ops_const_pow2(s: Setup, j: int) -> bool:
    """Operation ``j`` is a literal whose rounding is a power of two."""
    op = s.program.ops[j]
    return op.kind == "const" and power_of_two(s.hats[j])


def _mag(x: arb) -> fmpq:
    u = upper_abs(x)
    if u is None:
        raise _NoBound("an error bound is not finite")
    return u


def _excludes_zero(x: arb) -> bool:
    return bool(x > 0 or x < 0)


def _low_end(x: arb) -> fmpq | None:
    if not x.is_finite():
        return None
    m, e = x.mid().man_exp()
    return fmpq(int(m)) * pow2(int(e)) - mid_rad(x)[1]


def _first_order(s: Setup, H: dict[int, fmpq], P: list[arb], D: list[Dual], V: list[arb],
                 radii: list[arb], seed: tuple[arb, Dual] | None = None
                 ) -> tuple[fmpq, fmpq, list[fmpq]]:
    """``sum_k sup|a_k| H_k`` (adjoints by a reverse sweep at the centre and on dual
    numbers over the box, refined by the mean-value form), its value at the centre (the
    estimate) and, per axis, how much of the bound the box's width costs.  ``seed``
    starts the sweep from ``(1/P(m), 1/P)`` instead of 1: the coefficients are then
    ``a_k / P``."""
    prog = s.program
    ops = prog.ops
    d = len(radii)
    n = len(ops)
    zero_g = tuple(arb(0) for _ in range(d))
    adj_p: list[arb | None] = [None] * n
    adj_b: list[Dual | None] = [None] * n
    adj_p[prog.output] = arb(1) if seed is None else seed[0]
    adj_b[prog.output] = Dual(arb(1), zero_g) if seed is None else seed[1]
    for k in range(prog.output, -1, -1):
        ap, ab = adj_p[k], adj_b[k]
        if ap is None or ab is None or not ops[k].args:
            continue
        for j, (pp, pb) in zip(ops[k].args, _partials(s, k, P, D, V)):
            cp, cb = ap * pp, ab * pb
            adj_p[j] = cp if adj_p[j] is None else adj_p[j] + cp  # type: ignore[operator]
            old = adj_b[j]
            adj_b[j] = cb if old is None else old + cb
    total = arb(0)
    est = arb(0)
    widths = [arb(0)] * d
    # the literals' errors are known numbers with a sign: their terms are one function,
    # sum_c a_c(x) (c^ - c), bounded as a whole (its terms may cancel)
    lit_p, lit_b = arb(0), Dual(arb(0), zero_g)
    for k, h in H.items():
        if h == 0 or ops[k].kind != "const" or adj_p[k] is None:
            continue
        value = ops[k].value
        assert value is not None
        dc = arb(s.hats[k] - value)
        lit_p += adj_p[k] * dc  # type: ignore[operator]
        lit_b = lit_b + adj_b[k].scale(dc)  # type: ignore[union-attr]
    lit = refine(lit_p, lit_b, radii)
    if not lit.is_finite():
        raise _NoBound("an error coefficient has no finite enclosure on this box")
    total += abs(lit)
    est += abs(lit_p)
    for i in range(d):
        widths[i] += abs(lit_b.g[i] * radii[i])
    for k, h in H.items():
        if h == 0 or ops[k].kind == "const":
            continue
        ap, ab = adj_p[k], adj_b[k]
        if ap is None or ab is None:
            continue  # the output does not depend on it
        hb = arb(h)
        a_box = refine(ap, ab, radii)
        if not a_box.is_finite():
            raise _NoBound("an error coefficient has no finite enclosure on this box")
        total += abs(a_box) * hb
        est += abs(ap) * _point_h(s, k, P, h)
        for i in range(d):
            widths[i] += abs(ab.g[i] * radii[i]) * hb
    up = upper_abs(total)
    if up is None:
        raise _NoBound("the first-order term has no finite bound")
    lo_est = lower_abs(est) if est.is_finite() else fmpq(0)
    return up, lo_est, [upper_abs(w) or fmpq(0) for w in widths]


def _point_h(s: Setup, k: int, P: list[arb], h: fmpq) -> arb:
    """The rounding error bound at the centre (heuristic, for the estimate): half an ulp of
    the binade of the centre's value (``h`` itself for literals and functions)."""
    op = s.program.ops[k]
    if op.kind in ("const", "call"):
        return arb(h)
    lo = lower_abs(P[k])
    if lo <= 0:
        return arb(0)
    return arb(min(h, s.fmt.half_ulp(ceil_log2(lo))))


def _partials(s: Setup, k: int, P: list[arb], D: list[Dual], V: list[arb]
              ) -> list[tuple[arb, Dual]]:
    """``d op_k / d operand`` at the centre and as dual numbers over the box."""
    op = s.program.ops[k]
    a = op.args
    d = len(D[k].g)
    zg = tuple(arb(0) for _ in range(d))

    def const(c: int) -> tuple[arb, Dual]:
        return arb(c), Dual(arb(c), zg)

    kind = op.kind
    if kind == "neg":
        return [const(-1)]
    if kind == "abs":
        v = V[a[0]]
        sign = 1 if v > 0 else -1 if v < 0 else 0  # across 0: all in the remainder
        return [const(sign)]
    if kind == "add":
        return [const(1), const(1)]
    if kind == "sub":
        return [const(1), const(-1)]
    if kind == "mul":
        return [(P[a[1]], D[a[1]]), (P[a[0]], D[a[0]])]
    if kind == "fma":
        return [(P[a[1]], D[a[1]]), (P[a[0]], D[a[0]]), const(1)]
    if kind == "div":
        inv_p = 1 / P[a[1]]
        one = Dual(arb(1), zg)
        inv_b = one / D[a[1]]
        return [(inv_p, inv_b), (-P[k] * inv_p, -(D[k] / D[a[1]]))]
    if kind == "sqrt":
        two_p = 2 * P[k]
        return [(1 / two_p, Dual(arb(1), zg) / D[k].scale(arb(2)))]
    # call: g'(a) and its gradient g''(a) grad a
    _, g1p, _ = derivatives(op.name, P[a[0]])
    _, g1b, g2b = derivatives(op.name, D[a[0]].v)
    return [(g1p, D[a[0]].chain(g1b, g2b))]
