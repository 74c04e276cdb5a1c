"""Pure functions behind :mod:`dpverify.exact`: validation, affine maps, evaluation
kernels and exact basis conversions on coefficient lists (lowest index first).

Everything here works on :class:`flint.fmpq` coefficients.  The evaluation kernels
(:func:`horner`, :func:`clenshaw`, :func:`de_casteljau`, :func:`cosine_sum`) are
generic: the same code runs on ``fmpq`` (exact), ``arb`` (rigorous balls) and
``arb_series`` (truncated Taylor series with ball coefficients), because every
operation they use is a ring operation of those types.  No floats are used.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence
from typing import Any, TypeAlias

from flint import acb, acb_series, arb, arb_series, fmpq, fmpq_poly, fmpz

from ..budget import checkpoint
from ..errors import DomainError, InvalidParameterError, ParameterTypeError
from ..numbers import MAX_DEGREE, fmpq_str, to_fmpq
from .sizes import check_compose, check_conversion, poly_of

__all__ = [
    "MAX_TENSOR_SIZE",
    "exact_number",
    "Point",
    "read_coeffs",
    "check_length",
    "check_domain",
    "affine_map",
    "strip",
    "read_point",
    "point_kind",
    "lift",
    "horner",
    "clenshaw",
    "de_casteljau",
    "cosine_sum",
    "map_point",
    "padded",
    "compose_affine_poly",
    "cheb_to_poly",
    "poly_to_cheb",
    "bern_to_spoly",
    "spoly_to_bern",
    "binomials",
    "fmpq_sum",
    "fmpq_abs_sum",
]

#: Largest number of entries of a :class:`~dpverify.exact.TensorPoly`.
MAX_TENSOR_SIZE = 10_000_000

#: An evaluation point: exact rational, rigorous ball or ball Taylor series.
Point: TypeAlias = fmpq | arb | arb_series

_ZERO = fmpq(0)
_ONE = fmpq(1)


# --------------------------------------------------------------------------- validation

#: largest binary exponent accepted from an mpmath number (its exact value is an integer
#: times 2^exp, so a huge exponent would build a huge exact rational)
_MAX_BINARY_EXPONENT = 1 << 20


def exact_number(value: Any, name: str = "value") -> fmpq:
    """The exact value of ``value`` as ``fmpq``.

    Everything :func:`dpverify.numbers.to_fmpq` reads (int, fmpz, fmpq, Fraction,
    exact-number strings, floats and numpy floats = their binary value, exact arb), and
    also: mpmath ``mpf`` (its exact binary value ``man * 2^exp``, whatever its precision)
    and any number with an exact ``as_integer_ratio()`` (``decimal.Decimal``,
    ``numpy.longdouble``).  mpmath is not imported: an ``mpf`` is recognised by its
    ``_mpf_`` tuple ``(sign, man, exp, bc)``.

    Raises
    ------
    ParameterTypeError
        For other objects (complex numbers, arrays, non-exact balls, ...).
    InvalidParameterError
        For infinities and NaN, or binary exponents beyond 2^20.
    """
    try:
        return to_fmpq(value, name)
    except ParameterTypeError:
        q = _other_exact(value, name)
        if q is None:
            raise
        return q


def _other_exact(value: Any, name: str) -> fmpq | None:
    if type(value).__module__.startswith("flint"):
        return None  # a non-exact arb: its _mpf_ would be the midpoint only
    mpf_ = getattr(value, "_mpf_", None)
    if isinstance(mpf_, tuple) and len(mpf_) == 4:
        sign, man, exp, bc = mpf_
        if not man:
            if exp or bc:  # mpmath's inf and nan have a zero mantissa and a tag exponent
                raise InvalidParameterError(f"{name} must be finite, got {value!r}")
            return fmpq(0)
        if abs(int(exp)) > _MAX_BINARY_EXPONENT:
            raise InvalidParameterError(
                f"{name} has a binary exponent {int(exp)} beyond 2^20: refused")
        m = fmpz(int(man))
        q = fmpq(m * fmpz(2) ** int(exp)) if exp >= 0 else fmpq(m, fmpz(2) ** int(-exp))
        return -q if sign else q
    ratio = getattr(value, "as_integer_ratio", None)
    if callable(ratio) and not isinstance(value, (str, bytes, bool, complex)):
        try:
            p, d = ratio()
        except (ValueError, OverflowError):  # NaN / infinity
            raise InvalidParameterError(f"{name} must be finite, got {value!r}") from None
        if isinstance(p, int) and isinstance(d, int) and d > 0:
            return fmpq(p, d)
    return None


def check_length(n: int, name: str = "coeffs") -> None:
    """Raise unless ``1 <= n <= MAX_DEGREE + 1`` (``n`` is a coefficient count)."""
    if n < 1:
        raise InvalidParameterError(f"{name} must have at least one coefficient, got none")
    if n - 1 > MAX_DEGREE:
        raise InvalidParameterError(
            f"{name} has length {n} (degree {n - 1}), above MAX_DEGREE={MAX_DEGREE}"
        )


def read_coeffs(coeffs: Any, name: str = "coeffs") -> list[fmpq]:
    """Read an iterable of exact numbers into a list of ``fmpq``.

    Raises
    ------
    ParameterTypeError
        If ``coeffs`` is not an iterable (a string is not accepted) or an entry is not
        a number accepted by :func:`exact_number`; the message names
        ``coeffs[i]``.
    InvalidParameterError
        If there is no coefficient or more than ``MAX_DEGREE + 1``.
    """
    if isinstance(coeffs, (str, bytes, dict)) or not isinstance(coeffs, Iterable):
        raise ParameterTypeError(
            f"{name} must be a sequence of exact numbers, got {type(coeffs).__name__}"
        )
    if hasattr(coeffs, "tolist"):  # numpy arrays: read the exact Python scalars
        coeffs = coeffs.tolist()
    out: list[fmpq] = []
    for i, c in enumerate(coeffs):
        if i > MAX_DEGREE:
            raise InvalidParameterError(
                f"{name} has more than MAX_DEGREE + 1 = {MAX_DEGREE + 1} coefficients"
            )
        if isinstance(c, (list, tuple)):
            raise ParameterTypeError(f"{name}[{i}] must be a number, got {type(c).__name__}")
        out.append(exact_number(c, f"{name}[{i}]"))
    check_length(len(out), name)
    return out


def check_domain(domain: Any, name: str = "domain") -> tuple[fmpq, fmpq]:
    """Read ``domain`` as an exact pair ``(a, b)`` with ``a < b``.

    Raises
    ------
    ParameterTypeError
        If ``domain`` is not a pair or an endpoint is not an exact number.
    DomainError
        If ``a >= b``.
    """
    if isinstance(domain, (str, bytes)) or not isinstance(domain, Sequence) or len(domain) != 2:
        raise ParameterTypeError(f"{name} must be a pair (a, b), got {domain!r}")
    a = exact_number(domain[0], f"{name}[0]")
    b = exact_number(domain[1], f"{name}[1]")
    if not a < b:
        raise DomainError(f"{name} must satisfy a < b, got ({fmpq_str(a)}, {fmpq_str(b)})")
    return (a, b)


def affine_map(src: Any, dst: Any) -> tuple[fmpq, fmpq]:
    """Exact ``(alpha, beta)`` of the increasing affine map ``x -> alpha*x + beta`` that
    sends the interval ``src`` onto ``dst`` (``alpha*src[0] + beta == dst[0]`` and
    ``alpha*src[1] + beta == dst[1]``).

    Raises
    ------
    DomainError
        If an interval has ``a >= b``.
    """
    a, b = check_domain(src, "src")
    c, d = check_domain(dst, "dst")
    alpha = (d - c) / (b - a)
    return alpha, c - alpha * a


def strip(cs: list[fmpq]) -> list[fmpq]:
    """Drop trailing zeros, keeping at least one coefficient."""
    n = len(cs)
    while n > 1 and cs[n - 1] == 0:
        n -= 1
    return cs[:n]


def padded(p: fmpq_poly, n: int) -> list[fmpq]:
    """The first ``n`` coefficients of ``p`` (zero padded); ``p`` must have length <= n."""
    cs = p.coeffs()
    if len(cs) > n:
        raise InvalidParameterError(f"polynomial of degree {len(cs) - 1} does not fit length {n}")
    return cs + [_ZERO] * (n - len(cs))


def binomials(k: int) -> list[int]:
    """``[C(k, 0), ..., C(k, k)]`` as Python ints."""
    out = [1] * (k + 1)
    for j in range(1, k + 1):
        out[j] = out[j - 1] * (k - j + 1) // j
    return out


# --------------------------------------------------------------------------- points


def read_point(x: Any, name: str = "x") -> Point:
    """``arb`` and ``arb_series`` are kept; anything else is read exactly as ``fmpq``.

    Raises
    ------
    ParameterTypeError
        For complex balls or non-numbers.
    """
    if isinstance(x, (arb, arb_series)):
        return x
    if isinstance(x, (acb, acb_series)):
        raise ParameterTypeError(
            f"{name} must be real (fmpq, arb or arb_series), got {type(x).__name__}"
        )
    if type(x).__name__ == "ndarray":
        raise ParameterTypeError(
            f"{name} is a numpy array: use p.evaluate_float({name}) for fast float64 values "
            f"(no guarantee) or [p(v) for v in {name}] for exact ones (each float64 is its "
            "exact binary value)")
    return exact_number(x, name)


def point_kind(xs: Iterable[Point]) -> str:
    """``"series"`` if any point is an ``arb_series``, else ``"arb"`` if any is an ``arb``,
    else ``"exact"``."""
    kind = "exact"
    for x in xs:
        if isinstance(x, arb_series):
            return "series"
        if isinstance(x, arb):
            kind = "arb"
    return kind


def lift(value: Any, kind: str, like: Sequence[Point] = ()) -> Point:
    """Return ``value`` as the type of ``kind`` (a constant may come back as ``fmpq``)."""
    if kind == "exact":
        # exact kernels return fmpq (or an fmpz/int constant): always hand back fmpq
        return value if isinstance(value, fmpq) else fmpq(value)
    if kind == "arb":
        return value if isinstance(value, arb) else arb(value)
    if isinstance(value, arb_series):
        return value
    prec = min((x.prec for x in like if isinstance(x, arb_series)), default=None)
    return arb_series([arb(value)], prec=prec)


def map_point(x: Point, alpha: fmpq, beta: fmpq) -> Point:
    """``alpha*x + beta``, exact for ``fmpq``; rigorous for balls (identity map skipped)."""
    if alpha == 1 and beta == 0:
        return x
    if isinstance(x, fmpq):
        return alpha * x + beta
    return x * arb(alpha) + arb(beta)


def as_balls(cs: Sequence[Any], x: Point) -> list[Any]:
    """Coefficients as ``arb`` when ``x`` is not exact, else unchanged."""
    if isinstance(x, fmpq):
        return list(cs)
    return [arb(c) if isinstance(c, (fmpq, fmpz, int)) else c for c in cs]


# --------------------------------------------------------------------------- kernels


def horner(cs: Sequence[Any], x: Point) -> Any:
    """``sum cs[i] * x**i`` by Horner's rule (generic ring operations)."""
    cs = as_balls(cs, x)
    r = cs[-1]
    for c in reversed(cs[:-1]):
        r = r * x + c
    return r


def clenshaw(cs: Sequence[Any], u: Point) -> Any:
    """``sum cs[n] * T_n(u)`` by Clenshaw's recurrence
    ``b_n = c_n + 2 u b_{n+1} - b_{n+2}``, result ``c_0 + u b_1 - b_2``
    (Clenshaw 1955; Mason & Handscomb, *Chebyshev Polynomials*, 2003, Ch. 2)."""
    cs = as_balls(cs, u)
    if len(cs) == 1:
        return cs[0]
    b1: Any = cs[-1]
    b2: Any = 0
    two_u = u * 2
    for c in reversed(cs[1:-1]):
        b1, b2 = two_u * b1 - b2 + c, b1
    return u * b1 - b2 + cs[0]


def de_casteljau(cs: Sequence[Any], s: Point) -> Any:
    """``sum cs[nu] * C(k,nu) s^nu (1-s)^(k-nu)`` by de Casteljau's algorithm
    ``c_i <- (1-s) c_i + s c_{i+1}`` repeated k times (Farin, *Curves and Surfaces for
    CAGD*)."""
    arr = as_balls(cs, s)
    t = 1 - s
    k = len(arr) - 1
    for r in range(k, 0, -1):
        for i in range(r):
            arr[i] = t * arr[i] + s * arr[i + 1]
    return arr[0]


def cosine_sum(cs: Sequence[Any], theta: arb | arb_series) -> Any:
    """``sum cs[n] * cos(n*theta)`` summed directly (each ``cos`` enclosed by Arb), for ball
    or series ``theta``.  Direct summation keeps wide balls tight: every term lies in
    ``[-|c_n|, |c_n|]``."""
    cs = as_balls(cs, theta)
    r: Any = cs[0]
    for n in range(1, len(cs)):
        if cs[n] != 0:
            r = r + cs[n] * (theta * n).cos()
    return r


# --------------------------------------------------------------------------- sums


def fmpq_sum(values: Iterable[fmpq | fmpz | int]) -> fmpq:
    """The exact sum of ``values`` (``0`` for none), over pairwise common denominators.

    Each term is kept as an unreduced pair ``(numerator, denominator)``; adjacent pairs are
    merged over the least common multiple of their denominators, level by level (a balanced
    tree), and the one ``gcd`` reduction happens at the end.  Summing fractions one by one
    instead reduces every partial sum (a ``gcd`` of numbers as long as the common
    denominator, per term): about 50x slower on the ~1400 coefficients of the OR polynomial
    for ``k = 10^4, gamma = 1e-12`` (one shared denominator of ~28000 bits); for short
    unrelated denominators both take a millisecond or two per 2000 terms.

    Guarantee
    ---------
    Exact: the result equals ``sum(values, fmpq(0))``.

    Raises
    ------
    ParameterTypeError
        If a value is not an ``fmpq``, ``fmpz`` or ``int`` (``bool`` is refused).
    """
    return _pair_sum(_pairs(values, "values", absolute=False))


def fmpq_abs_sum(values: Iterable[fmpq | fmpz | int]) -> fmpq:
    """The exact ``sum |v|`` of ``values``, as :func:`fmpq_sum` (a coefficient norm).

    Guarantee
    ---------
    Exact: the result equals ``sum((abs(v) for v in values), fmpq(0))``.

    Raises
    ------
    ParameterTypeError
        As :func:`fmpq_sum`.
    """
    return _pair_sum(_pairs(values, "values", absolute=True))


def _pairs(
    values: Iterable[fmpq | fmpz | int], name: str, absolute: bool
) -> list[tuple[fmpz, fmpz]]:
    """``(numerator, denominator)`` of each value (numerator made non-negative if asked)."""
    vals = list(values)
    if all(type(v) is fmpq for v in vals):  # the common case, without per-item branching
        if absolute:
            return [(abs(v.p), v.q) for v in vals]  # type: ignore[union-attr]  # all fmpq
        return [(v.p, v.q) for v in vals]  # type: ignore[union-attr]  # all fmpq (checked)
    out: list[tuple[fmpz, fmpz]] = []
    one = fmpz(1)
    for v in vals:
        if isinstance(v, fmpq):
            out.append((abs(v.p) if absolute else v.p, v.q))
        elif isinstance(v, (fmpz, int)) and not isinstance(v, bool):
            z = fmpz(v)
            out.append((abs(z) if absolute else z, one))
        else:
            raise ParameterTypeError(
                f"{name} must be fmpq, fmpz or int, got {type(v).__name__}")
    return out


def _pair_sum(items: list[tuple[fmpz, fmpz]]) -> fmpq:
    """Balanced common-denominator sum of unreduced pairs (see :func:`fmpq_sum`)."""
    if not items:
        return fmpq(0)
    while len(items) > 1:
        merged: list[tuple[fmpz, fmpz]] = []
        for i in range(0, len(items) - 1, 2):
            (a, da), (b, db) = items[i], items[i + 1]
            if da == db:
                merged.append((a + b, da))
                continue
            g = da.gcd(db)
            ea, eb = db // g, da // g  # lcm = da * ea = db * eb
            merged.append((a * ea + b * eb, da * ea))
        if len(items) % 2:
            merged.append(items[-1])
        items = merged
    num, den = items[0]
    return fmpq(num, den)


# --------------------------------------------------------------------------- conversions


def compose_affine_poly(p: fmpq_poly, alpha: fmpq, beta: fmpq) -> fmpq_poly:
    """``p(alpha*x + beta)`` exactly (fmpq_poly composition).

    Raises
    ------
    TimeLimitExceeded, MemoryLimitExceeded
        When the composition would pass the budget in force (:mod:`dpverify.budget`):
        one FLINT call that nothing can interrupt, with a result of about
        ``deg^2 (size(alpha) + size(beta))`` bits."""
    if alpha == 1 and beta == 0:
        return p
    check_compose(p, fmpq(alpha), fmpq(beta))
    return p(fmpq_poly([beta, alpha]))


def cheb_to_poly(cs: Sequence[fmpq]) -> fmpq_poly:
    """Monomial form in ``u`` of ``sum cs[n] T_n(u)``: Clenshaw run on ``fmpq_poly``
    (about ``n^2 (n + bits)`` bit operations: refused beyond the budget in force, see
    :func:`compose_affine_poly`)."""
    u = fmpq_poly([0, 1])
    if len(cs) == 1:
        return fmpq_poly([cs[0]])
    check_conversion(cs, "from the Chebyshev to the monomial basis")
    b1 = fmpq_poly([cs[-1]])
    b2 = fmpq_poly([])
    for c in reversed(cs[1:-1]):
        checkpoint("a Chebyshev to monomial conversion")
        b1, b2 = 2 * b1.left_shift(1) - b2 + c, b1
    return u * b1 - b2 + cs[0]


def poly_to_cheb(p: fmpq_poly, n: int | None = None) -> list[fmpq]:
    """Chebyshev coefficients of ``p(u)``: Horner's rule in the Chebyshev basis, with
    ``u*T_0 = T_1`` and ``u*T_m = (T_{m+1} + T_{m-1})/2`` for ``m >= 1`` (Mason &
    Handscomb 2003, Ch. 2; numpy ``poly2cheb``).  The vector is carried as an
    ``fmpq_poly`` so each step is a C-level shift and add.  Result zero padded to
    length ``n`` (default ``max(1, len(p))``)."""
    cs = p.coeffs()
    if n is None:
        n = max(1, len(cs))
    if not cs:
        return [_ZERO] * n
    check_conversion(cs, "from the monomial to the Chebyshev basis")
    half = fmpq(1, 2)
    v = fmpq_poly([cs[-1]])
    for c in reversed(cs[:-1]):
        checkpoint("a monomial to Chebyshev conversion")
        v0 = v[0]
        v = (v.left_shift(1) + v.right_shift(1)) * half + fmpq_poly([c, v0 * half])
        # the right shift moved v_1/2 to T_0 correctly; the left shift gave T_1 only
        # v_0/2 of the required v_0, fixed by the second coefficient above.
    return padded(v, n)


def bern_to_spoly(cs: Sequence[fmpq]) -> fmpq_poly:
    """Monomial form in ``s`` of ``sum c_nu C(k,nu) s^nu (1-s)^(k-nu)``.

    With ``d_nu = C(k,nu) c_nu`` and ``D(w) = sum d_nu w^nu`` one has
    ``p(s) = (1-s)^k D(s/(1-s))``.  Put ``F(w) = D(w-1)``; since
    ``s/(1-s) = 1/(1-s) - 1``, ``p(s) = G(1-s)`` with ``G(y) = y^k F(1/y)``, the
    reversal of ``F`` at length ``k+1``.  Two compositions, no Python-level O(k^2) loop.
    """
    k = len(cs) - 1
    bins = binomials(k)
    d = poly_of([c * b for c, b in zip(cs, bins, strict=True)])
    check_compose(d, _ONE, -_ONE,
                  f"the exact conversion of a degree-{k} polynomial from the Bernstein basis")
    f = d(fmpq_poly([-1, 1])) if k else d
    fc = padded(f, k + 1)
    g = poly_of(fc[::-1])
    return g(fmpq_poly([1, -1])) if k else g


def spoly_to_bern(p: fmpq_poly, k: int) -> list[fmpq]:
    """Inverse of :func:`bern_to_spoly`: Bernstein coefficients of order ``k`` of ``p(s)``
    (requires ``deg p <= k``)."""
    if p.degree() > k:
        raise InvalidParameterError(
            f"k must be >= the degree {p.degree()} of the polynomial, got {k}"
        )
    if k == 0:
        return padded(p, 1)
    check_compose(p, _ONE, _ONE,
                  f"the exact conversion of a degree-{k} polynomial to the Bernstein basis",
                  degree=k)
    g = p(fmpq_poly([1, -1]))  # G(y) = p(1 - y)
    gc = padded(g, k + 1)
    f = poly_of(gc[::-1])  # F(w) = w^k G(1/w)
    d = padded(f(fmpq_poly([1, 1])), k + 1)  # D(w) = F(w + 1)
    bins = binomials(k)
    return [c / b for c, b in zip(d, bins, strict=True)]


def apply_along_axis(
    flat: Sequence[Any],
    shape: tuple[int, ...],
    axis: int,
    func: Callable[[list[Any]], list[Any]],
    new_len: int | None = None,
) -> tuple[list[Any], tuple[int, ...]]:
    """Apply ``func`` to every 1-D fibre of a row-major array along ``axis``."""
    n = shape[axis]
    m = n if new_len is None else new_len
    inner = math.prod(shape[axis + 1:])
    outer = math.prod(shape[:axis])
    out: list[Any] = [None] * (outer * m * inner)
    for o in range(outer):
        for i in range(inner):
            fibre = [flat[(o * n + j) * inner + i] for j in range(n)]
            new = func(fibre)
            for j in range(m):
                out[(o * m + j) * inner + i] = new[j]
    new_shape = shape[:axis] + (m,) + shape[axis + 1:]
    return out, new_shape
