"""Iterated Bernstein polynomials of alda2017 (Definitions 6-9), in exact rationals.

Representation (DESIGN.md)
--------------------------
Polynomials of order ``k`` are stored by their Bernstein coefficients on ``[0, 1]``:
``p = sum_mu c_mu b_{mu,k}``, ``b_{mu,k}(y) = C(k,mu) y^mu (1-y)^(k-mu)``
(alda2017 Definition 6).  The Bernstein operator (Definition 7),
``B_k(f; y) = sum_nu f(nu/k) b_{nu,k}(y)``, maps ``p`` to the polynomial whose
Bernstein coefficients are the lattice values ``p(mu/k)``; on coefficient vectors it
is the rational ``(k+1) x (k+1)`` matrix

    A[mu, nu] = b_{nu,k}(mu/k)        (row mu: lattice point mu/k, column nu: basis index)

so that ``(A c)_mu = p(mu/k)`` and ``B_k p`` has coefficients ``A c``.

The iterated operator (Definition 8) ``B_k^{(h)} = I - (I - B_k)^h`` acts on order-``k``
coefficient vectors as ``I - (I - A)^h`` (:func:`iterated_operator_matrix`).  Applied to
an arbitrary ``f`` it only sees the lattice values ``F_nu = f(nu/k)``:
``B_k^{(h)} f = sum_{i=1}^{h} C(h,i) (-1)^(i-1) B_k^(i-1) (B_k f)``, and ``B_k f`` has
coefficients ``F``, so the coefficients of ``B_k^{(h)} f`` are ``M F`` with

    M = sum_{i=1}^{h} C(h,i) (-1)^(i-1) A^(i-1) = sum_{j=0}^{h-1} (I - A)^j

(``(1 - (1-a)^h)/a = sum_{j<h} (1-a)^j``).  Column ``nu`` of ``M`` holds the Bernstein
coefficients of the iterated basis polynomial ``b^{(h)}_{nu,k}`` of Definition 8
(``b^{(h)}_{nu,k} = sum_i C(h,i) (-1)^(i-1) B_k^(i-1) b_{nu,k}``).  The public orientation
is ``basis[nu][mu] = M[mu, nu]`` = coefficient of ``b^{(h)}_{nu,k}`` on ``b_{mu,k}``.
``M`` is computed by Horner's rule ``M <- I + (I - A) M`` (``h - 1`` products of
``fmpq_mat``); ``M F`` by the same rule on vectors (``h - 1`` lattice evaluations).

Multivariate (Definition 9)
---------------------------
Definition 9 and Algorithm 1 line 11 write ``sum_{j=1}^{l} sum_{nu_j=0}^{k_j}
f(nu_1/k_1, ..., nu_l/k_l) prod_i b^{(h)}_{nu_i,k_i}(y_i)``, i.e. a *sum over j* of
single sums, which leaves the other ``nu_i`` unbound.  The intended (and here
implemented) operator is the tensor product, a nested sum over all multi-indices:
``sum_{nu_1=0}^{k_1} ... sum_{nu_l=0}^{k_l} f(nu/k) prod_i b^{(h)}_{nu_i,k_i}(y_i)``;
its Bernstein coefficient tensor is ``F`` multiplied by ``M_{k_i,h}`` along every axis.

Guarantee
---------
Everything in this module is exact (``fmpq``).  Lattice values of a user function
are exact where :meth:`dpverify.expr.Expr.eval_exact` decides them; otherwise they are
rounded (to the ``2^-200`` grid) from a rigorous ball, which is recorded in the
Approximation; ``dpverify.certify.certify`` measures the error against the *true*
``f``, so that rounding is covered by the certificate.  Nothing here certifies
itself.  References: alda2017 Definitions 6-9, Appendix A.

Size: about 650 lines, over the usual 600: the one-variable operator, its tensor
product and the lattice values of a user function share the matrix ``M`` and its
Horner rule; splitting them would split one construction (alda2017 Definitions 6-9).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from math import comb
from typing import TYPE_CHECKING, Any

from flint import arb, ctx, fmpq, fmpq_mat, fmpq_poly, fmpz

from ..approximation import Approximation
from ..errors import DomainError, InvalidParameterError, ParameterTypeError, PrecisionExhausted
from ..exact import BernsteinPoly, TensorPoly
from ..expr import Expr, parse
from ..numbers import arb_to_fmpq_bounds, check_int, fmpq_str, to_fmpq
from ..progress import ProgressCallback, report

if TYPE_CHECKING:  # dpverify.expr is imported on first use (start-up cost)
    from ..expr import Expr

__all__ = [
    "MAX_K",
    "MAX_H",
    "MAX_BASIS_COST",
    "bernstein_operator_matrix",
    "iterated_operator_matrix",
    "iterated_basis_matrix",
    "IteratedBernsteinBasis",
    "iterated_bernstein_basis",
    "iterated_bernstein_coefficients",
    "iterated_bernstein",
    "iterated_bernstein_tensor",
    "LatticeValues",
    "lattice_values",
    "bernstein_approx",
]

#: Largest order k accepted for coefficient vectors (1-D).
MAX_K = 1000
#: Largest iteration order h.
MAX_H = 64
#: Refuse exact (k+1)x(k+1) basis matrices whose cost h^2 k^4 exceeds this
#: (k=200, h=8 is ~25 s; see benchmarks/bernstein_tables.py).
MAX_BASIS_COST = 2 * 8**2 * 200**4
#: Largest lattice (number of points) for the multivariate construction.
MAX_LATTICE = 200_000
#: Rounding grid for lattice values that are not exact rationals.
ROUND_BITS = 200


def _check_kh(k: Any, h: Any, kname: str = "k", hname: str = "h") -> tuple[int, int]:
    k = check_int(k, kname, minimum=1, maximum=MAX_K)
    h = check_int(h, hname, minimum=1, maximum=MAX_H)
    return k, h


@lru_cache(maxsize=8)
def _operator_matrix_cached(k: int) -> fmpq_mat:
    n = k + 1
    kk = fmpz(k) ** k
    entries = [
        fmpq(comb(k, nu) * mu**nu * (k - mu) ** (k - nu), 1) / kk
        for mu in range(n)
        for nu in range(n)
    ]
    return fmpq_mat(n, n, entries)


def bernstein_operator_matrix(k: int) -> fmpq_mat:
    """The Bernstein operator on order-``k`` coefficient vectors.

    ``A[mu, nu] = b_{nu,k}(mu/k) = C(k,nu) mu^nu (k-mu)^(k-nu) / k^k``: row ``mu`` is the
    lattice point ``mu/k``, column ``nu`` the basis index, so ``(A c)_mu = p(mu/k)`` for
    ``p = sum_nu c_nu b_{nu,k}`` and ``A c`` are the coefficients of ``B_k p``.

    Guarantee
    ---------
    Exact (``fmpq_mat``).  alda2017 Definition 7.

    At ``mu/k = 1/2`` the quadratic Bernstein basis is ``(1/4, 1/2, 1/4)``:

    >>> print(bernstein_operator_matrix(2))
    [  1,   0,   0]
    [1/4, 1/2, 1/4]
    [  0,   0,   1]
    """
    k = check_int(k, "k", minimum=1, maximum=MAX_K)
    _check_cost(k, 1)
    return _operator_matrix_cached(k)


def _check_cost(k: int, h: int) -> None:
    if h * h * k**4 > MAX_BASIS_COST or (h == 1 and k**4 > MAX_BASIS_COST):
        raise InvalidParameterError(
            f"exact (k+1)x(k+1) matrices for k={k}, h={h} are too expensive "
            f"(h^2 k^4 = {h * h * k**4} > {MAX_BASIS_COST}); use a smaller k or h, or "
            "iterated_bernstein_coefficients for a single function"
        )


def _identity(n: int) -> fmpq_mat:
    eye = fmpq_mat(n, n)
    for i in range(n):
        eye[i, i] = 1
    return eye


def iterated_operator_matrix(k: int, h: int) -> fmpq_mat:
    """``B_k^{(h)} = I - (I - B_k)^h`` on order-``k`` coefficient vectors: ``I - (I - A)^h``.

    Guarantee
    ---------
    Exact (``fmpq_mat``).  Equals ``M A = A M`` with ``M`` from
    :func:`iterated_basis_matrix`.  alda2017 Definition 8.
    """
    k, h = _check_kh(k, h)
    _check_cost(k, h)
    A = _operator_matrix_cached(k)
    eye = _identity(k + 1)
    E = eye - A
    P = E
    for _ in range(h - 1):
        P = E * P
    return eye - P


def iterated_basis_matrix(k: int, h: int) -> fmpq_mat:
    """``M = sum_{j<h} (I - A)^j``; column ``nu`` = Bernstein coefficients of
    ``b^{(h)}_{nu,k}`` (entry ``M[mu, nu]`` is its coefficient on ``b_{mu,k}``).

    Computed by Horner's rule ``M <- I + (I - A) M`` (``h - 1`` exact matrix products;
    repeated squaring needs about as many products, see the benchmarks).

    Guarantee
    ---------
    Exact (``fmpq_mat``).  Refuses (``InvalidParameterError``) sizes with
    ``h^2 k^4 > MAX_BASIS_COST``.  alda2017 Definition 8.
    """
    k, h = _check_kh(k, h)
    _check_cost(k, h)
    A = _operator_matrix_cached(k)
    eye = _identity(k + 1)
    E = eye - A
    M = eye
    for _ in range(h - 1):
        M = eye + E * M
    return M


@dataclass(frozen=True)
class IteratedBernsteinBasis:
    """The iterated Bernstein basis ``b^{(h)}_{nu,k}``, nu = 0..k (alda2017 Definition 8).

    Attributes
    ----------
    k, h : int
    matrix : fmpq_mat
        ``M[mu, nu]`` = coefficient of ``b^{(h)}_{nu,k}`` on ``b_{mu,k}``.

    Guarantee
    ---------
    Exact.  ``basis[nu][mu] == matrix[mu, nu]``.
    """

    k: int
    h: int
    matrix: fmpq_mat

    @property
    def basis(self) -> list[list[fmpq]]:
        """``basis[nu][mu]`` = coefficient of ``b^{(h)}_{nu,k}`` on ``b_{mu,k}``."""
        n = self.k + 1
        M = self.matrix
        return [[M[mu, nu] for mu in range(n)] for nu in range(n)]

    def poly(self, nu: int) -> BernsteinPoly:
        """``b^{(h)}_{nu,k}`` as an exact :class:`~dpverify.exact.BernsteinPoly` on [0, 1]."""
        nu = check_int(nu, "nu", minimum=0, maximum=self.k)
        return BernsteinPoly([self.matrix[mu, nu] for mu in range(self.k + 1)])

    def polys(self) -> list[BernsteinPoly]:
        return [self.poly(nu) for nu in range(self.k + 1)]

    @property
    def degree(self) -> int:
        """Largest exact algebraic degree of the basis polynomials (``k``: they span P_k)."""
        k = self.k
        M = self.matrix
        # leading monomial coefficient of sum_mu c_mu b_{mu,k} is sum_mu (-1)^(k-mu) C(k,mu) c_mu
        signs = [(-1) ** (k - mu) * comb(k, mu) for mu in range(k + 1)]
        for nu in range(k + 1):
            if sum((signs[mu] * M[mu, nu] for mu in range(k + 1)), fmpq(0)) != 0:
                return k
        return max(p.degree for p in self.polys())

    def to_json(self) -> dict[str, Any]:
        return {
            "k": self.k,
            "h": self.h,
            "degree": self.degree,
            "orientation": "basis[nu][mu] = coefficient of b^(h)_{nu,k} on b_{mu,k}",
            "basis": [[fmpq_str(c) for c in row] for row in self.basis],
        }


def iterated_bernstein_basis(k: int, h: int) -> IteratedBernsteinBasis:
    """Exact iterated Bernstein basis ``b^{(h)}_{nu,k}`` in Bernstein coordinates.

    Parameters
    ----------
    k : int
        Order (lattice ``{0, 1/k, ..., 1}``), ``1 <= k``.
    h : int
        Iteration order, ``1 <= h`` (``h = 1`` is the plain Bernstein basis).

    Returns
    -------
    IteratedBernsteinBasis
        ``.basis[nu][mu]`` = coefficient of ``b^{(h)}_{nu,k}`` on ``b_{mu,k}``.

    Guarantee
    ---------
    Exact (``fmpq``).  Sizes with ``h^2 k^4 > MAX_BASIS_COST`` are refused up front
    (``InvalidParameterError``).  alda2017 Definition 8.
    """
    k, h = _check_kh(k, h)
    return IteratedBernsteinBasis(k, h, iterated_basis_matrix(k, h))


# ----------------------------------------------------------------------------- vectors


def _lattice_eval(c: list[fmpq], k: int) -> list[fmpq]:
    """``[p(mu/k) for mu in 0..k]`` for ``p = sum c_nu b_{nu,k}`` (i.e. ``A c``), exact.

    With ``t = y/(1-y)``: ``p(y) = (1-y)^k g(t)``, ``g(t) = sum_nu c_nu C(k,nu) t^nu``;
    at ``y = mu/k`` (mu < k), ``t = mu/(k-mu)`` and ``(1-y)^k = ((k-mu)/k)^k``.
    """
    g = fmpq_poly([c[nu] * comb(k, nu) for nu in range(k + 1)])
    out = []
    kk = fmpz(k) ** k
    for mu in range(k):
        out.append(g(fmpq(mu, k - mu)) * fmpz(k - mu) ** k / kk)
    out.append(c[k])
    return out


def _apply_M(F: list[fmpq], k: int, h: int) -> list[fmpq]:
    """``M F = sum_{j<h} (I - A)^j F`` by Horner on vectors (exact)."""
    v = list(F)
    acc = list(F)
    for _ in range(h - 1):
        av = _lattice_eval(v, k)
        v = [a - b for a, b in zip(v, av, strict=True)]
        acc = [a + b for a, b in zip(acc, v, strict=True)]
    return acc


def _read_values(values: Any, n: int, name: str) -> list[fmpq]:
    if isinstance(values, (str, bytes)) or not isinstance(values, Sequence):
        raise ParameterTypeError(f"{name} must be a sequence of {n} exact numbers")
    if len(values) != n:
        raise InvalidParameterError(f"{name} must have k+1 = {n} entries, got {len(values)}")
    return [to_fmpq(v, f"{name}[{i}]") for i, v in enumerate(values)]


def iterated_bernstein_coefficients(values: Sequence[Any], k: int, h: int) -> list[fmpq]:
    """Bernstein coefficients (order ``k``) of ``B_k^{(h)} f`` from ``F_nu = f(nu/k)``.

    Guarantee
    ---------
    Exact: equals ``M F`` with ``M`` of :func:`iterated_basis_matrix`, computed in
    ``O(h k^2)`` exact operations without forming ``M``.  alda2017 Definition 8.
    """
    k, h = _check_kh(k, h)
    F = _read_values(values, k + 1, "values")
    return _apply_M(F, k, h)


def iterated_bernstein(values: Sequence[Any], k: int, h: int) -> Approximation:
    """The iterated Bernstein polynomial ``B_k^{(h)} f`` from lattice values.

    Parameters
    ----------
    values : sequence of k+1 exact numbers
        ``F_nu = f(nu/k)``, nu = 0..k.
    k, h : int

    Returns
    -------
    Approximation
        ``poly``: :class:`BernsteinPoly` of order ``k`` on [0, 1]; target: the given
        values on the lattice points ``nu/k`` (so ``certify`` reports the exact
        lattice error ``max_nu |F_nu - B_k^{(h)}(f; nu/k)|``); no claims.

    Guarantee
    ---------
    Exact coefficients (fmpq), Bernstein basis of order ``k`` on [0, 1].
    alda2017 Definitions 7-8.
    """
    k, h = _check_kh(k, h)
    F = _read_values(values, k + 1, "values")
    coeffs = _apply_M(F, k, h)
    poly = BernsteinPoly(coeffs)
    return Approximation(
        construction="bernstein/iterated",
        params={"k": k, "h": h},
        poly=poly,
        target={"kind": "values", "values": [fmpq_str(v) for v in F]},
        domain={"kind": "points", "points": [fmpq_str(fmpq(nu, k)) for nu in range(k + 1)]},
        norm_basis="bernstein",
        extra={"bernstein": {"k": k, "h": h, "lattice": "nu/k, nu = 0..k"}},
    )


# ----------------------------------------------------------------------------- tensor


def _shape_of(values: Any, depth: int, name: str) -> list[int]:
    shape = []
    cur = values
    for d in range(depth):
        if isinstance(cur, (str, bytes)) or not isinstance(cur, Sequence):
            raise ParameterTypeError(f"{name} must be nested sequences of depth {depth}")
        shape.append(len(cur))
        if d < depth - 1:
            cur = cur[0] if len(cur) else None
    return shape


def _flatten(values: Any, shape: list[int], name: str) -> list[fmpq]:
    out: list[fmpq] = []

    def rec(v: Any, d: int, idx: tuple[int, ...]) -> None:
        if d == len(shape):
            out.append(to_fmpq(v, f"{name}{list(idx)}"))
            return
        if isinstance(v, (str, bytes)) or not isinstance(v, Sequence) or len(v) != shape[d]:
            raise InvalidParameterError(
                f"{name}{list(idx)} must have {shape[d]} entries (k_{d + 1} + 1)"
            )
        for i, w in enumerate(v):
            rec(w, d + 1, idx + (i,))

    rec(values, 0, ())
    return out


def _apply_axis(flat: list[fmpq], shape: list[int], axis: int, h: int) -> list[fmpq]:
    """Apply ``M_{k_axis,h}`` along ``axis`` of a row-major tensor."""
    n = shape[axis]
    k = n - 1
    inner = 1
    for s in shape[axis + 1 :]:
        inner *= s
    outer = len(flat) // (n * inner)
    out = list(flat)
    for o in range(outer):
        base = o * n * inner
        for i in range(inner):
            idx = [base + j * inner + i for j in range(n)]
            fiber = _apply_M([flat[t] for t in idx], k, h)
            for t, v in zip(idx, fiber, strict=True):
                out[t] = v
    return out


def _tensor_coeffs(flat: list[fmpq], ks: list[int], h: int,
                   progress: ProgressCallback | None = None) -> list[fmpq]:
    shape = [k + 1 for k in ks]
    for axis in range(len(ks)):
        report(progress, "coefficients", axis, len(ks))
        flat = _apply_axis(flat, shape, axis, h)
    return flat


def _check_ks(ks: Any, name: str = "ks") -> list[int]:
    if isinstance(ks, (str, bytes)) or not isinstance(ks, Sequence) or not ks:
        raise ParameterTypeError(f"{name} must be a non-empty sequence of integers")
    out = [check_int(k, f"{name}[{i}]", minimum=1, maximum=MAX_K) for i, k in enumerate(ks)]
    size = 1
    for k in out:
        size *= k + 1
    if size > MAX_LATTICE:
        raise InvalidParameterError(
            f"the lattice has {size} points (prod (k_i + 1)); at most {MAX_LATTICE} accepted"
        )
    return out


def iterated_bernstein_tensor(values: Sequence[Any], ks: Sequence[int], h: int) -> TensorPoly:
    """Multivariate iterated Bernstein polynomial (alda2017 Definition 9) on ``[0,1]^l``.

    Parameters
    ----------
    values : nested sequences, depth ``l``
        ``values[nu_1][nu_2]...[nu_l] = f(nu_1/k_1, ..., nu_l/k_l)`` (exact numbers).
    ks : sequence of ``l`` ints
        Per-axis orders ``k_i >= 1``.
    h : int
        Iteration order (the same on every axis, as in Definition 9).

    Returns
    -------
    TensorPoly
        ``"bernstein"`` basis, per-axis orders ``k_i`` on ``[0, 1]``; coefficient tensor
        ``C[mu_1]...[mu_l] = sum_nu prod_i M_{k_i,h}[mu_i, nu_i] F[nu_1]...[nu_l]``.

    Guarantee
    ---------
    Exact.  Implements the nested (tensor-product) sum over all ``nu_1, ..., nu_l``;
    Definition 9 and Algorithm 1 line 11 print ``sum_{j=1}^{l} sum_{nu_j=0}^{k_j}``,
    read here as that nested sum (see the module docstring).  Lattices above
    ``MAX_LATTICE`` points are refused.
    """
    ks = _check_ks(ks)
    h = check_int(h, "h", minimum=1, maximum=MAX_H)
    shape = [k + 1 for k in ks]
    got = _shape_of(values, len(ks), "values")
    if got != shape:
        raise InvalidParameterError(f"values must have shape {shape} (k_i + 1), got {got}")
    flat = _flatten(values, shape, "values")
    coeffs = _tensor_coeffs(flat, ks, h)
    return TensorPoly.from_flat(coeffs, shape, basis="bernstein", domains=[(0, 1)] * len(ks))


# ----------------------------------------------------------------------------- user functions


@dataclass(frozen=True)
class LatticeValues:
    """Lattice values of a user function.

    ``values`` is row-major over ``prod_i {0, 1/k_i, ..., 1}``; ``exact[i]`` says whether
    ``values[i]`` is the exact value of ``f`` (else it is within ``rounding_bound`` of it).
    """

    ks: tuple[int, ...]
    values: tuple[fmpq, ...]
    exact: tuple[bool, ...]
    rounding_bound: fmpq

    def to_json(self) -> dict[str, Any]:
        n_exact = sum(self.exact)
        return {
            "ks": list(self.ks),
            "points": len(self.values),
            "exact_points": n_exact,
            "rounded_points": len(self.values) - n_exact,
            "rounding": (
                f"non-rational values rounded to the 2^-{ROUND_BITS} grid from arb balls; "
                f"|rounded - f| <= {fmpq_str(self.rounding_bound)}"
                if n_exact < len(self.values)
                else "all lattice values exact"
            ),
            "values": [fmpq_str(v) for v in self.values],
        }


def _round_ball(f: Expr, point: tuple[fmpq, ...], where: str) -> tuple[fmpq, fmpq]:
    """Value on the 2^-ROUND_BITS grid from a ball, and a bound on |value - f(point)|."""
    scale = fmpz(2) ** ROUND_BITS
    tiny = fmpq(1, scale * 256)
    prec = ROUND_BITS + 64
    while prec <= 16 * ROUND_BITS:
        with ctx.workprec(prec):
            ball = f.eval_arb(*[arb(p) for p in point])
            if not isinstance(ball, arb):  # unreachable: arb arguments give an arb
                raise ParameterTypeError(f"{where}: f did not evaluate to a ball")
            if not ball.is_finite():
                raise DomainError(f"{where}: f is not finite at {[fmpq_str(p) for p in point]}")
            lo, hi = arb_to_fmpq_bounds(ball)
            if hi - lo <= 2 * tiny:
                mid = (lo + hi) / 2
                t = mid * scale + fmpq(1, 2)
                val = fmpq(t.p // t.q, scale)  # nearest grid point
                # |val - f| <= |val - mid| + (hi - lo)/2 <= 2^-(B+1) + 2^-(B+8)
                return val, fmpq(1, 2 * scale) + tiny
        prec *= 2
    raise PrecisionExhausted(f"{where}: could not evaluate f to 2^-{ROUND_BITS} accuracy")


def lattice_values(f_expr: str | Expr, ks: Sequence[int], name: str = "f",
                   progress: ProgressCallback | None = None) -> LatticeValues:
    """Values of ``f`` on the lattice ``prod_i {nu/k_i}`` (row-major, first variable first).

    Exact where :meth:`~dpverify.expr.Expr.eval_exact` decides them; otherwise rounded
    to the ``2^-200`` grid from a rigorous ball (``|rounded - f| <= 2^-200 (1 + 2^-8)``).
    ``f_expr`` is a string (variables ``x``, ``y``, ``z`` for dimension 1, 2, 3) or an
    :class:`~dpverify.expr.Expr` with one variable per axis.  ``progress(stage, done,
    total)`` (:mod:`dpverify.progress`) is called every 256 points.
    """
    ks = _check_ks(ks)
    d = len(ks)
    f = _parse_f(f_expr, d, name) if not isinstance(f_expr, Expr) else f_expr
    if isinstance(f_expr, Expr) and len(f.variables) != d:
        raise InvalidParameterError(f"{name} must have {d} variable(s), got {f.variables}")
    vals: list[fmpq] = []
    exact: list[bool] = []
    bound = fmpq(0)
    idx = [0] * d
    total = 1
    for k in ks:
        total *= k + 1
    for count in range(total):
        if not count % 256:
            report(progress, "lattice values", count, total)
        point = tuple(fmpq(i, k) for i, k in zip(idx, ks, strict=True))
        v = f.eval_exact(*point)
        if v is not None:
            vals.append(v)
            exact.append(True)
        else:
            v, b = _round_ball(f, point, name)
            vals.append(v)
            exact.append(False)
            bound = max(bound, b)
        for ax in range(d - 1, -1, -1):  # row-major increment
            idx[ax] += 1
            if idx[ax] <= ks[ax]:
                break
            idx[ax] = 0
    report(progress, "lattice values", total, total)
    return LatticeValues(tuple(ks), tuple(vals), tuple(exact), bound)


_VARS = ("x", "y", "z")


def _parse_f(text: Any, dim: int, name: str) -> Expr:
    if not isinstance(text, str):
        raise ParameterTypeError(f"{name} must be an expression string, got {type(text).__name__}")
    return parse(text, variables=_VARS[:dim], name=name)


def bernstein_approx(
    f_expr: str, k: int, h: int, dim: int = 1, *, name: str = "f",
    progress: ProgressCallback | None = None,
) -> Approximation:
    """Iterated Bernstein approximation ``B_k^{(h)} f`` of a user function on ``[0,1]^D``.

    Parameters
    ----------
    f_expr : str
        Expression in ``x`` (``x, y`` for ``D = 2``; ``x, y, z`` for ``D = 3``), parsed
        by :func:`dpverify.expr.parse`; e.g. ``"exp(x)"``, ``"abs(x-1/2)^0.5"``.
    k, h : int
        Order (same ``k`` on every axis) and iteration order.
    dim : int
        ``D`` in ``{1, 2, 3}``.
    name : str
        Parameter name quoted in error messages (the CLI passes ``"--f"``).
    progress : callable, optional
        ``progress(stage, done, total)`` (:mod:`dpverify.progress`): the lattice
        evaluation and the coefficient computation (one report per axis).

    Returns
    -------
    Approximation
        ``poly``: exact :class:`BernsteinPoly` (``D = 1``) or bernstein
        :class:`TensorPoly` of order ``k`` per axis on ``[0,1]^D``; target
        ``{"kind": "expr", "expr": canonical text, "variables": [...]}``; domain the box
        ``[0,1]^D``; ``extra["bernstein"]`` holds the lattice values and which were
        rounded.  ``certify(approx)`` then encloses ``sup |f - B_k^{(h)} f|``.

    Guarantee
    ---------
    Exact coefficients.  Lattice values are exact where ``f`` is exactly computable
    at rationals, else rounded to the ``2^-200`` grid (recorded); the certified error
    is measured against the true ``f``, so the rounding is covered.  No claims are
    made.  alda2017 Definitions 8-9, Theorems 5-6.
    """
    d = check_int(dim, "dim", minimum=1, maximum=3)
    k, h = _check_kh(k, h)
    f = _parse_f(f_expr, d, name)
    ks = [k] * d
    lv = lattice_values(f, ks, name, progress)
    report(progress, "coefficients", 0, d)
    if d == 1:
        poly: BernsteinPoly | TensorPoly = BernsteinPoly(_apply_M(list(lv.values), k, h))
    else:
        coeffs = _tensor_coeffs(list(lv.values), ks, h, progress)
        poly = TensorPoly.from_flat(coeffs, [k + 1] * d, basis="bernstein", domains=[(0, 1)] * d)
    report(progress, "coefficients", d, d)
    info = {"k": k, "h": h, "dim": d}
    info.update(lv.to_json())
    return Approximation(
        construction="bernstein/approx",
        params={"f": f.canonical, "k": k, "h": h, "dim": d},
        poly=poly,
        target={"kind": "expr", "expr": f.canonical, "variables": list(_VARS[:d])},
        domain={"kind": "box", "intervals": [["0", "1"]] * d},
        norm_basis="bernstein",
        extra={"bernstein": info},
    )
