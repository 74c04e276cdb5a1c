"""Certificate polynomials: exact monomial form, degree, coefficient norm, Taylor shifts.

Everything here is exact (``fmpq`` / ``fmpq_poly``).  A univariate polynomial becomes one
``fmpq_poly`` in ``x``; a tensor polynomial (d = 2, 3) a dense row-major list of monomial
coefficients of the same shape, converted one axis at a time with the univariate rules:

* chebyshev on [a, b]: Clenshaw's recurrence in ``y``, then ``y = (2x - a - b)/(b - a)``;
* bernstein of order n on [a, b]: ``sum c_i C(n,i) s^i (1-s)^(n-i) = H(1 - s)`` where
  ``G(w) = Q(w - 1)``, ``Q(t) = sum c_i C(n,i) t^i`` and ``H(z) = sum_j g_j z^(n-j)``
  (``s/(1-s) = w - 1`` with ``w = 1/(1-s)``), then ``s = (x - a)/(b - a)``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from math import comb, prod

from flint import arb, fmpq, fmpq_poly, fmpz, fmpz_poly

from .numbers import decide, read_exact, read_int, show
from .report import Checks, Malformed, afford

__all__ = ["MAX_UNIVARIATE", "MAX_TENSOR", "Poly", "read_interval", "read_poly",
           "exact_poly", "chebyshev_inner", "to_monomial_1d", "map_axes", "monomial_form",
           "monomial_flat", "exponents", "true_degree", "shifted", "evaluate", "check_poly",
           "height", "shift_cost"]

Tick = Callable[[], None]


def _no_tick() -> None:
    pass

MAX_UNIVARIATE = 200_001
MAX_TENSOR = 1_000_000


@dataclass
class Poly:
    basis: str
    shape: tuple[int, ...]  # (n,) for a univariate polynomial
    coeffs: list[fmpq]
    domains: list[tuple[fmpq, fmpq] | None]
    degree: int | list[int]
    l1: fmpq
    l1_log2: str | None
    mono: fmpq_poly | None = None  # the exact monomial form (d = 1), once computed
    mono_flat: list[fmpq] | None = None  # the same, row-major flat (d >= 2)
    mono_bits: int | None = None  # the largest height of a coefficient of mono (d = 1)

    @property
    def d(self) -> int:
        return len(self.shape)


def read_interval(v: object, where: str) -> tuple[fmpq, fmpq]:
    if not isinstance(v, list) or len(v) != 2:
        raise Malformed(f"{where}: expected [a, b]")
    a, b = read_exact(v[0], where), read_exact(v[1], where)
    if not a < b:
        raise Malformed(f"{where}: interval needs a < b")
    return a, b


def read_poly(obj: object, where: str) -> Poly:
    if not isinstance(obj, dict):
        raise Malformed(f"{where}: expected an object")
    basis = obj.get("basis")
    if basis not in ("monomial", "chebyshev", "bernstein"):
        raise Malformed(f"{where}.basis: unknown basis")
    raw = obj.get("coefficients")
    if not isinstance(raw, list) or not raw:
        raise Malformed(f"{where}.coefficients: expected a non-empty list")
    if "shape" in obj:
        sizes = obj["shape"]
        if not isinstance(sizes, list) or not 2 <= len(sizes) <= 3:
            raise Malformed(f"{where}.shape: expected 2 or 3 sizes")
        shape: tuple[int, ...] = tuple(read_int(n, f"{where}.shape", 1, MAX_TENSOR)
                                       for n in sizes)
        if prod(shape) != len(raw) or len(raw) > MAX_TENSOR:
            raise Malformed(f"{where}: {len(raw)} coefficients for shape {list(shape)}")
        doms = obj.get("domains")
        if not isinstance(doms, list) or len(doms) != len(shape):
            raise Malformed(f"{where}.domains: expected one entry per variable")
        deg = obj.get("degree")
        if not isinstance(deg, list) or len(deg) != len(shape):
            raise Malformed(f"{where}.degree: expected one degree per variable")
        degree: int | list[int] = [read_int(g, f"{where}.degree", -1, MAX_TENSOR) for g in deg]
    else:
        if len(raw) > MAX_UNIVARIATE:
            raise Malformed(f"{where}.coefficients: more than {MAX_UNIVARIATE}")
        shape, doms = (len(raw),), [obj.get("domain")]
        degree = read_int(obj.get("degree"), f"{where}.degree", -1, MAX_UNIVARIATE)
    domains = [None if v is None else read_interval(v, f"{where}.domain") for v in doms]
    if any((dom is None) != (basis == "monomial") for dom in domains):
        raise Malformed(f"{where}: monomial polynomials have a null domain, others [a, b]")
    coeffs = [read_exact(c, f"{where}.coefficients[{i}]") for i, c in enumerate(raw)]
    norm = obj.get("coefficient_norm")
    if not isinstance(norm, dict) or set(norm) != {"l1", "l1_log2"}:
        raise Malformed(f"{where}.coefficient_norm: expected l1 and l1_log2")
    l1 = read_exact(norm["l1"], f"{where}.coefficient_norm.l1")
    log2 = norm["l1_log2"]
    if log2 is not None:
        read_exact(log2, f"{where}.coefficient_norm.l1_log2")
    return Poly(basis, shape, coeffs, domains, degree, l1, log2)


def height(q: fmpq) -> int:
    """Bits of the numerator plus bits of the denominator."""
    return int(q.p.bit_length() + q.q.bit_length())


def shift_cost(n: int, bits: int, step: int) -> tuple[int, int]:
    """``(bits, work)`` of a Taylor shift or affine substitution of a polynomial with ``n``
    coefficients of ``bits`` bits by a map of height ``step``: the result holds about
    ``n (bits + n step)`` bits, and producing it costs that times ``log2 n`` (the
    divide-and-conquer shift) -- optimistic estimates for :func:`report.afford`."""
    out = n * (bits + n * max(step, 1))
    return out, out * max(1, n.bit_length())


def exact_poly(cs: list[fmpq]) -> fmpq_poly:
    """``fmpq_poly(cs)`` over the least common denominator, formed once (building it
    coefficient by coefficient rescales every earlier numerator at each new denominator:
    quadratic in the number of coefficients when the denominators differ)."""
    den = fmpz(1)
    for q in {c.q for c in cs}:
        den = den * q // den.gcd(q)
    return fmpq_poly(fmpz_poly([c.p * (den // c.q) for c in cs]), den)


def chebyshev_inner(cs: list[fmpq], tick: Tick = _no_tick) -> fmpq_poly:
    """``sum c_k T_k(y)`` as an exact polynomial in ``y`` (Clenshaw's recurrence on exact
    polynomials; the caller estimates the cost)."""
    y = fmpq_poly([0, 1])
    b1 = b2 = fmpq_poly([])
    for c in reversed(cs[1:]):
        tick()
        b1, b2 = 2 * y * b1 - b2 + c, b1
    out: fmpq_poly = y * b1 - b2 + (cs[0] if cs else fmpq(0))
    return out


def to_monomial_1d(basis: str, cs: list[fmpq], dom: tuple[fmpq, fmpq] | None,
                   tick: Tick = _no_tick) -> fmpq_poly:
    """The exact monomial form of a univariate polynomial in the given basis (the cost
    is estimated first: :func:`report.afford` may refuse it)."""
    if basis == "monomial":
        return exact_poly(cs)
    if dom is None:
        raise Malformed(f"a {basis} polynomial needs a domain [a, b]")
    a, b = dom
    n = len(cs)
    step = height(2 / (b - a)) + height((a + b) / (b - a)) + (2 if basis == "bernstein" else 1)
    afford(f"converting {n} {basis} coefficients to the monomial basis",
           *shift_cost(n, max(height(c) for c in cs), step))
    if basis == "chebyshev":
        inner = chebyshev_inner(cs, tick)
        return inner(fmpq_poly([-(a + b) / (b - a), 2 / (b - a)]))
    n = len(cs) - 1
    q = fmpq_poly([c * comb(n, i) for i, c in enumerate(cs)])
    g = q(fmpq_poly([-1, 1])).coeffs()
    g += [fmpq(0)] * (n + 1 - len(g))
    h = fmpq_poly(list(reversed(g)))
    return h(fmpq_poly([1 + a / (b - a), -1 / (b - a)]))


def _fibres(shape: tuple[int, ...], axis: int) -> Iterator[list[int]]:
    stride = prod(shape[axis + 1:])
    n = shape[axis]
    for base in range(prod(shape)):
        if (base // stride) % n == 0:
            yield [base + j * stride for j in range(n)]


def map_axes(flat: list[fmpq], shape: tuple[int, ...],
             fn: Callable[[int, list[fmpq]], fmpq_poly], tick: Tick = _no_tick) -> list[fmpq]:
    """Apply ``fn(axis, fmpq_poly) -> fmpq_poly`` to every fibre, axis by axis."""
    flat = list(flat)
    for axis in range(len(shape)):
        for idx in _fibres(shape, axis):
            tick()
            cs = fn(axis, [flat[i] for i in idx]).coeffs()
            for j, i in enumerate(idx):
                flat[i] = cs[j] if j < len(cs) else fmpq(0)
    return flat


def monomial_form(p: Poly, tick: Tick = _no_tick) -> fmpq_poly:
    """The exact monomial form of a univariate ``p`` (computed once)."""
    if p.d != 1:
        raise ValueError(f"monomial_form: p has {p.d} variables; use monomial_flat")
    if p.mono is None:
        p.mono = to_monomial_1d(p.basis, p.coeffs, p.domains[0], tick)
    return p.mono


def monomial_flat(p: Poly, tick: Tick = _no_tick) -> list[fmpq]:
    """The exact monomial coefficients of a tensor ``p`` (d >= 2), row-major (computed once)."""
    if p.d == 1:
        raise ValueError("monomial_flat: p is univariate; use monomial_form")
    if p.mono_flat is None:
        p.mono_flat = map_axes(p.coeffs, p.shape, lambda ax, cs: to_monomial_1d(
            p.basis, cs, p.domains[ax]), tick)
    return p.mono_flat


def exponents(shape: tuple[int, ...], i: int) -> tuple[int, ...]:
    out = []
    for n in reversed(shape):
        i, r = divmod(i, n)
        out.append(r)
    return tuple(reversed(out))


def true_degree(p: Poly, tick: Tick = _no_tick) -> int | list[int]:
    if p.d == 1:
        return int(monomial_form(p, tick).degree())
    degs = [-1] * p.d
    for i, c in enumerate(monomial_flat(p, tick)):
        if c != 0:
            degs = [max(g, e) for g, e in zip(degs, exponents(p.shape, i))]
    return degs


def shifted(p: Poly, m: list[fmpq]) -> list[tuple[tuple[int, ...], fmpq]]:
    """Nonzero coefficients of ``p(m + h)`` in ``h``: (exponent tuple, value)."""
    if p.d == 1:
        P = monomial_form(p)
        n = int(P.degree()) + 1
        if p.mono_bits is None:
            p.mono_bits = max((height(c) for c in P.coeffs()), default=1)
        afford(f"a Taylor shift of degree {n - 1}", *shift_cost(n, p.mono_bits, height(m[0])))
        cs = P(fmpq_poly([m[0], 1])).coeffs()
        return [((j,), c) for j, c in enumerate(cs) if c != 0]
    flat = map_axes(monomial_flat(p), p.shape,
                    lambda ax, cs: fmpq_poly(cs)(fmpq_poly([m[ax], 1])))
    return [(exponents(p.shape, i), c) for i, c in enumerate(flat) if c != 0]


def evaluate(p: Poly, x: list[fmpq]) -> fmpq:
    if p.d == 1:
        return monomial_form(p)(x[0])
    return sum((c * prod(xi**e for xi, e in zip(x, al)) for al, c in
                ((exponents(p.shape, i), c) for i, c in enumerate(monomial_flat(p)) if c != 0)),
               fmpq(0))


def _check_log2(text: str | None, l1: fmpq) -> tuple[bool | None, str]:
    if l1 == 0 or text is None:
        return (l1 == 0) == (text is None), "l1_log2 must be null exactly when l1 = 0"
    v = read_exact(text, "l1_log2")
    if (v * 10**6).q != 1:
        return False, f"l1_log2 = {text} is not a multiple of 10^-6"
    half = fmpq(1, 2 * 10**6)
    bits = int(l1.p.bit_length())
    if l1.q == 1 and l1.p == fmpz(2) ** (bits - 1):  # log2 is an integer
        ok: bool | None = abs(v - (bits - 1)) <= half
    elif l1.p == 1 and l1.q == fmpz(2) ** (l1.q.bit_length() - 1):
        ok = abs(v + l1.q.bit_length() - 1) <= half
    else:  # log2(l1) is irrational: the comparison is strict either way
        def pred() -> bool | None:
            d = abs(arb(v) - arb(l1).log() / arb(2).log())
            return True if d < arb(half) else False if d > arb(half) else None
        ok = decide(pred)
    return ok, f"l1_log2 = {text}, log2(l1) within 5e-7: {ok}"


def check_poly(ck: Checks, p: Poly) -> None:
    """Degree, l1 and l1_log2 of ``p``, recomputed."""
    def deg() -> tuple[bool, str]:
        d = true_degree(p, ck.tick)
        return d == p.degree, f"stated {p.degree}, recomputed {d}"

    def l1() -> tuple[bool, str]:
        # over a common denominator: one sum of integers instead of a sum of fractions
        q = p.mono if p.basis == "monomial" and p.mono is not None else exact_poly(p.coeffs)
        s = fmpq(sum((abs(c) for c in q.numer().coeffs()), fmpz(0)), q.denom())
        return s == p.l1, f"stated {show(p.l1)}, recomputed {show(s)}"

    ck.run("polynomial degree", deg)
    ck.run("coefficient l1 norm", l1)
    ck.run("coefficient l1_log2", lambda: _check_log2(p.l1_log2, p.l1))

