"""Rigorous Chebyshev coefficients of a user function on ``[-1,1]^d`` (d <= 3).

Convention: ``f(x) = sum_n c_n T_{n_1}(x_1) ... T_{n_d}(x_d)`` (no halving of ``c_0``),
i.e. with ``g(theta) = f(cos theta_1, ..., cos theta_d)``,
``c_n = prod_i (eps_{n_i}/pi) int_{[0,pi]^d} g(theta) prod_i cos(n_i theta_i) d theta``,
``eps_0 = 1``, ``eps_n = 2`` (n >= 1).  These are the cosine coefficients of ``g_f`` used
by wang2013 (Fact 4.2: its integral (5) with ``l_i/k_i = n_i`` equals
``c_n prod_i (2 pi / eps_{n_i})``), since ``cos(n theta) = T_n(cos theta)``.
Example: ``abs(x)`` has ``c_0 = 2/pi``, ``c_{2m} = (-1)^(m+1) 4/(pi (4m^2-1))``
(m >= 1) and ``c_{2m+1} = 0``.

Methods (``method="auto"`` picks among them; ``info()["enclosure"]`` says which)
-----------------------------------------------------------------------------
1. *Discrete coefficients* (DCT-I on the Chebyshev-Lobatto grid ``theta_j = j pi / M``,
   ``j = 0..M`` per axis), in arb ball arithmetic::

       chat_n = sum_j [prod_i (2/M) e_{j_i} cos(n_i theta_{j_i}) / (1 + [n_i = 0])] g(theta_j)

   with ``e_j = 1/2`` at ``j = 0, M`` and 1 otherwise.  Since ``T_m`` and ``T_{m'}`` agree
   on the grid when ``m' = |m mod 2M|`` folded into ``[0, M]``, ``chat_n`` is the sum of
   all ``c_m`` with ``fold(m) = n`` (aliasing; Trefethen, *ATAP*, Thm 4.2).  The
   aliases of ``n_i < M`` are ``2kM +- n_i >= 2M - n_i`` (k >= 1).  Two bounds on them:

   a. *Derivative bound* (``"dct+derivative"``).  Integrating by parts ``q`` times in
      each axis of the set ``S`` of axes where an alias differs from ``n`` (``g`` is even
      and 2 pi-periodic) gives ``|c_m| <= 2^d D_S prod_{i in S} m_i^{-q}``,
      ``D_S = sup |d^{q 1_S} g|``, and::

          |chat_n - c_n| <= sum_{S != {}} 2^d D_S prod_{i in S} 2 zeta(q) L_i^{-q},
          L_i = 2M - n_i.

      ``D_S`` is enclosed over a cover of ``[0,pi]^d`` by boxes with arb Taylor
      arithmetic (``arb_series`` for d = 1, the jets of :mod:`dpverify.expr.jets`
      for d >= 2); ``zeta(q) <= 1 + 1/(q-1)``.
   b. *Bernstein-ellipse bound* (``"dct+ellipse"``).  If ``f`` extends analytically to
      the product of Bernstein ellipses ``E_rho`` (``rho = e^eta``), i.e. ``g`` to the
      strips ``|Im theta_i| <= eta``, with ``|g| <= B`` there, then shifting the contour
      of the Fourier integral gives ``|c_m| <= B prod_{i: m_i > 0} 2 rho^{-m_i}``
      (for d = 1: ``|c_m| <= 2 B rho^{-m}``).  Summing over the aliases::

          |chat_n - c_n| <= B ((2 + A)^d - 2^d),  A = 4 rho^{-(2M - n)} / (1 - rho^{-2M}).

      ``B`` is enclosed by evaluating the expression on complex boxes covering
      ``[0, pi]^d x [-eta, eta]^d`` in ``theta`` (:meth:`dpverify.expr.Expr.eval_acb`,
      which also proves analyticity there: principal branches, no pole, ``abs`` of an
      argument of fixed real sign; ``cos`` maps the box cover onto a cover of the
      filled ellipses).  A few ``eta`` (powers of 2 from 2^-7 to 4, plus 3/2 of the
      largest that worked) are tried; the one needing the smallest grid or giving
      the smallest bound is kept (the grid is raised within a cost cap until the
      bound is below ``tol``: ``(n+1)(M+1) <= 400000`` for d = 1, ``(M+1)^d <= 20000``
      for d = 2, 3).
2. *Rigorous quadrature* (``"quadrature"``, d = 1 only): ``c_n = (eps_n/pi)
   int_0^pi g(theta) cos(n theta) d theta`` by ``acb.integral`` (Arb's
   ``acb_calc_integrate``: Gauss-Legendre on pieces where the integrand is proven
   analytic on a complex neighbourhood, with a rigorous error bound; bisection near
   points where it is not, down to pieces bounded by width times a range enclosure
   from :meth:`~dpverify.expr.Expr.eval_arb`).  Works for every bounded ``f`` the
   language allows (``abs``, ``sqrt`` at 0, nearby complex poles, ...); one integral
   per coefficient, absolute tolerance ``tol/4``.

``auto``: the DCT with the better of (a) and (b); if that bound is not finite or above
``tol`` and d = 1, quadrature, kept when its largest radius is smaller.

Guarantee
---------
Each returned ball contains the true coefficient ``c_n`` (rigorous).  Finite radii for
every ``f`` analytic on ``[-1,1]^d`` (d <= 3) and, for d = 1, for every ``f`` bounded and
defined on ``[-1,1]``.  For d = 2, 3 and ``f`` not analytic on ``[-1,1]^d`` (``abs``,
``sqrt`` at 0) no bound is available: the balls then have infinite radius
(``info()["rigorous_radius"] is False``) and only their midpoints are meaningful
(heuristic).  Never a finite radius that is not proven.  Quadrature, like the
interval certifier, evaluates ``sqrt``/powers on the part of a ball where they are
defined at the two ends ``x = +-1`` (``clip_to_domain``): it assumes ``f`` is defined on
``[-1,1]``, which the DCT grid evaluation checks only at grid points.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from flint import acb, arb, arb_mat, arb_series, ctx, fmpq

from ..errors import DomainError, InvalidParameterError
from ..expr import Expr, parse
from ..expr.jets import Jet, jet_eval, multi_indices
from ..numbers import ExactLike, IntLike, check_int, to_fmpq
from ..progress import ProgressCallback, report

__all__ = ["ChebyshevSeries", "chebyshev_coefficients", "MAX_GRID_POINTS", "METHODS"]

#: refuse grids with more points than this ((M+1)^d function evaluations)
MAX_GRID_POINTS = 400_000
#: d = 1: the automatic grid is raised (ellipse bound) while (n+1)(M+1) <= this
MAX_AUTO_GRID_WORK = 400_000
#: d = 2, 3: ... while (M+1)^d <= this
MAX_AUTO_GRID_POINTS = 20_000
_VARS = ("x", "y", "z")
#: default (q, boxes per axis) for the derivative bound, per dimension
_Q = {1: (24, 16), 2: (6, 4), 3: (2, 3)}
#: accepted values of ``method``
METHODS = ("auto", "dct", "quadrature")
#: strip half-widths eta tried for the Bernstein-ellipse bound (rho = e^eta)
_ETAS = tuple(fmpq(2) ** k for k in range(-7, 3))
#: complex-box evaluations allowed per eta, and initial real pieces per axis, per dim
_STRIP_BUDGET = {1: 800, 2: 2500, 3: 5000}
_STRIP_PIECES = {1: 8, 2: 4, 3: 3}
_DEFAULT_TOL = fmpq(1, 2**60)
#: work limit per integral (acb_calc_integrate evaluations)
_QUAD_EVAL_LIMIT = 200_000

_METHOD_TEXT = {
    "dct+derivative": "DCT-I on the Chebyshev-Lobatto grid + aliasing bound from "
    "q-th derivative enclosures",
    "dct+ellipse": "DCT-I on the Chebyshev-Lobatto grid + aliasing bound from a "
    "Bernstein-ellipse bound of f (acb boxes)",
    "quadrature": "rigorous quadrature (acb.integral) of (eps_n/pi) int_0^pi "
    "f(cos t) cos(n t) dt",
    "none": "DCT-I on the Chebyshev-Lobatto grid; no aliasing bound could be proven "
    "(midpoints only)",
    "exact": "exact conversion of a polynomial to the Chebyshev basis on [-1, 1] (fmpq; "
    "balls only from rounding the rationals)",
}


@dataclass
class ChebyshevSeries:
    """Ball enclosures of ``c_n``, ``0 <= n_i <= n``, flat in row-major order
    (first index = first variable).

    ``method`` is ``"dct+derivative"``, ``"dct+ellipse"``, ``"quadrature"``,
    ``"exact"`` (``f`` was a polynomial, see :func:`dpverify.chebyshev_coefficients`) or
    ``"none"`` (no finite enclosure); ``alias_bound`` is the proven bound on the
    aliasing error of the DCT (infinite when none; 0 for quadrature, which has no
    aliasing)."""

    dim: int
    n: int
    coeffs: list[arb]
    grid: int
    q: int
    alias_bound: arb
    stats: dict[str, Any] = field(default_factory=dict)
    method: str = "dct+derivative"

    @property
    def shape(self) -> tuple[int, ...]:
        return (self.n + 1,) * self.dim

    def items(self) -> Iterator[tuple[tuple[int, ...], arb]]:
        idx = itertools.product(range(self.n + 1), repeat=self.dim)
        return iter(zip(idx, self.coeffs, strict=True))

    def __getitem__(self, index: tuple[int, ...] | int) -> arb:
        if isinstance(index, int):
            index = (index,)
        pos = 0
        for i in index:
            pos = pos * (self.n + 1) + i
        return self.coeffs[pos]

    @property
    def max_radius(self) -> arb:
        """Largest ball radius (an upper bound; ``inf`` when some ball is infinite)."""
        worst = arb(0)
        for c in self.coeffs:
            if not c.is_finite():
                return arb("inf")
            worst = max(worst, c.rad())
        return worst

    def info(self) -> dict[str, Any]:
        rad = self.max_radius
        rig = bool(rad.is_finite())
        if self.method in ("quadrature", "exact"):
            alias = f"0 ({self.method}: no aliasing)"
        else:
            alias = str(self.alias_bound) if self.alias_bound.is_finite() else "inf"
        return {
            "method": _METHOD_TEXT[self.method],
            "enclosure": self.method,
            "grid": self.grid,
            "q": self.q,
            "alias_bound": alias,
            "rigorous_radius": rig,
            "max_radius": str(rad) if rig else "inf",
            **self.stats,
        }


def _mode_product(flat: list[arb], shape: list[int], W: arb_mat, axis: int) -> list[arb]:
    """Contract ``axis`` of the tensor (row-major ``flat``) with ``W`` (rows x shape[axis])."""
    d = len(shape)
    perm = [axis] + [i for i in range(d) if i != axis]
    pshape = [shape[i] for i in perm]
    rest = math.prod(pshape[1:])
    strides = [math.prod(shape[i + 1 :]) for i in range(d)]
    mat = arb_mat(pshape[0], rest)
    for pidx in itertools.product(*[range(s) for s in pshape]):
        pos = sum(pidx[k] * strides[perm[k]] for k in range(d))
        col = 0
        for k in range(1, d):
            col = col * pshape[k] + pidx[k]
        mat[pidx[0], col] = flat[pos]
    prod = W * mat
    nrow = W.nrows()
    new_shape = list(shape)
    new_shape[axis] = nrow
    out = [arb(0)] * math.prod(new_shape)
    nstrides = [math.prod(new_shape[i + 1 :]) for i in range(d)]
    pshape[0] = nrow
    for pidx in itertools.product(*[range(s) for s in pshape]):
        pos = sum(pidx[k] * nstrides[perm[k]] for k in range(d))
        col = 0
        for k in range(1, d):
            col = col * pshape[k] + pidx[k]
        out[pos] = prod[pidx[0], col]
    return out


def _derivative_bounds(f: Any, d: int, q: int, boxes: int) -> dict[tuple[int, ...], arb]:
    """Upper bounds ``D_S`` of ``sup |d^{q 1_S} g|`` over ``[0, pi]^d`` for every non-empty S
    (keys: 0/1 indicator tuples).  Raises ``DomainError`` where f is not analytic."""
    pi = arb.pi()
    h = pi / boxes
    centres = [(k + arb(1) / 2) * h for k in range(boxes)]
    balls = [arb(c.mid(), (h / 2).upper() * (1 + arb(2) ** -20)) for c in centres]
    # balls cover [0, pi] (each reaches slightly beyond its piece; g is defined everywhere)
    sets = [s for s in itertools.product((0, 1), repeat=d) if any(s)]
    best = {s: arb(0) for s in sets}
    qfact = arb(math.factorial(q))
    if d == 1:
        for b in balls:
            ser = f.eval_arb(arb_series([b, 1], prec=q + 1).cos())
            if ser.prec <= q:
                raise DomainError("power series truncated below the derivative order")
            cs = ser.coeffs()
            c = cs[q] if len(cs) > q else arb(0)  # trailing zero coefficients are dropped
            if not c.is_finite():
                raise DomainError("derivative enclosure is not finite")
            best[(1,)] = max(best[(1,)], abs(c).upper() * qfact)
        return best
    N = q * d
    idx = multi_indices(d, N)
    pos = {a: i for i, a in enumerate(idx)}
    for combo in itertools.product(balls, repeat=d):
        jets = [Jet.variable(d, N, i, combo[i]).compose(lambda s: s.cos()) for i in range(d)]
        val = jet_eval(f, jets)
        for s in sets:
            a = tuple(q * si for si in s)
            c = val.c[pos[a]]
            if not c.is_finite():
                raise DomainError("derivative enclosure is not finite")
            best[s] = max(best[s], abs(c).upper() * qfact ** sum(s))
    return best


def _dct(fx: Any, d: int, n: int, M: int, name: str,
         progress: ProgressCallback | None = None) -> list[arb]:
    """The discrete coefficients ``chat_n`` (flat, row-major) on the grid of size M
    (``progress("coefficients: grid points", done, total)`` every 1024 points)."""
    pi = arb.pi()
    tab = [(pi * k / M).cos() for k in range(2 * M)]  # cos(k pi / M)
    tab[0], tab[M] = arb(1), arb(-1)  # exact: keeps sqrt(1 - x^2) etc. defined at +-1
    if M % 2 == 0:
        tab[M // 2] = tab[3 * M // 2] = arb(0)
    xs = tab[: M + 1]
    two_over_M = arb(2) / M
    # weights W[m][j] = (2/M) e_j cos(m j pi / M) / (1 + [m = 0])
    W = arb_mat(n + 1, M + 1)
    for m in range(n + 1):
        for j in range(M + 1):
            v = tab[(m * j) % (2 * M)] * two_over_M
            if j in (0, M):
                v /= 2
            if m == 0:
                v /= 2
            W[m, j] = v
    vals = []
    total = (M + 1) ** d
    for i, pt in enumerate(itertools.product(xs, repeat=d)):
        v = fx.eval_arb(*pt)
        if not v.is_finite():
            raise DomainError(f"{name} is not finite at a grid point of [-1,1]^{d}")
        vals.append(v)
        if not i % 1024:
            report(progress, "coefficients: grid points", i, total)
    report(progress, "coefficients: grid points", total, total)
    flat = vals
    shape = [M + 1] * d
    for axis in range(d):
        flat = _mode_product(flat, shape, W, axis)
        shape[axis] = n + 1
    return flat


def _cos_box(z: acb) -> acb:
    """Enclosure of ``cos`` on the complex box ``z``, tighter than ``z.cos()`` near the
    zeros of ``sin`` (centred Taylor form with integral remainder):
    ``cos z = cos m - sin m (z-m) + (z-m)^2 int_0^1 (1-t) (-cos)(m+t(z-m)) dt`` and the
    integral lies in ``-cos(Z)/2`` (a convex box) for ``Z`` the whole box."""
    m = acb(z.real.mid(), z.imag.mid())
    dz = z - m
    return m.cos() - m.sin() * dz - z.cos() * dz * dz / 2


def _strip_sup(fx: Any, d: int, eta: fmpq, budget: int) -> arb | None:
    """Upper bound of ``|g|`` on ``[0, pi]^d x [-eta, eta]^d`` (``theta`` complex), with
    analyticity proven box by box (:meth:`Expr.eval_acb`); ``None`` when a box that
    cannot be proven analytic gets small (``< eta/8``) or the budget is used up.

    ``cos`` maps ``{Re theta in [0, pi], |Im theta| <= eta}`` onto the filled Bernstein
    ellipse ``E_{e^eta}``, and ``g`` is 2 pi-periodic and even, so this is the sup over
    the whole strip."""
    pi = arb.pi()
    pieces = _STRIP_PIECES[d]
    axis_boxes = [(fmpq(k, pieces), fmpq(k + 1, pieces), -eta, eta) for k in range(pieces)]
    stack = list(itertools.product(axis_boxes, repeat=d))
    best = arb(0)
    evals = 0
    small = float(eta) / 8
    while stack:
        box = stack.pop()
        evals += 1
        if evals > budget:
            return None
        zs = [_cos_box(acb((pi * a).union(pi * b), arb(c).union(arb(e)))) for a, b, c, e in box]
        v = fx.eval_acb(*zs)
        if v.is_finite():
            best = max(best, v.abs_upper())
            continue
        # split the longest side (floats only choose the side)
        sides = []
        for i, (a, b, c, e) in enumerate(box):
            sides.append((math.pi * float(b - a), i, 0))
            sides.append((float(e - c), i, 1))
        size, i, part = max(sides)
        if size < small:
            return None
        a, b, c, e = box[i]
        if part == 0:
            h = (a + b) / 2
            halves = [(a, h, c, e), (h, b, c, e)]
        else:
            h = (c + e) / 2
            halves = [(a, b, c, h), (a, b, h, e)]
        for hb in halves:
            stack.append(box[:i] + (hb,) + box[i + 1 :])
    return best


def _ellipse_alias(B: arb, eta: fmpq, d: int, M: int, n: int) -> arb:
    """Rigorous ``B ((2 + A)^d - 2^d)``, ``A = 4 rho^{-(2M-n)} / (1 - rho^{-2M})``."""
    e = arb(eta)
    A = 4 * (-e * (2 * M - n)).exp() / (1 - (-e * 2 * M).exp())
    # (2 + A)^d - 2^d expanded (no cancellation when A is tiny)
    total = sum((math.comb(d, k) * 2 ** (d - k) * A**k for k in range(1, d + 1)), arb(0))
    return (B * total).upper()


def _grid_needed(B: arb, eta: fmpq, d: int, n: int, tol: fmpq) -> int:
    """Float search for the least M with the ellipse alias bound <= tol (never decides:
    the bound is recomputed rigorously at the chosen M)."""
    Bu = B.upper()
    logB = float(Bu.log()) if Bu > arb(2) ** -900 else -600.0
    need = logB + math.log(4 * d * 2 ** (d - 1)) - math.log(float(tol)) + 1
    L = max(need, 0.0) / float(eta)
    return int(math.ceil((n + L) / 2)) + 1


def _ellipse_search(fx: Any, d: int, n: int, tol: fmpq, grid_of: Any) -> dict | None:
    """Try the strip widths ``_ETAS`` (and 3/2 of the largest that works); return the
    best ``{"eta", "B", "grid", "bound"}`` or ``None`` (f not proven analytic)."""
    budget = _STRIP_BUDGET[d]
    results: dict[fmpq, arb] = {}
    best = None

    def consider(eta: fmpq) -> bool:
        nonlocal best
        B = _strip_sup(fx, d, eta, budget)
        if B is None or not B.is_finite():
            return False
        results[eta] = B
        M = grid_of(_grid_needed(B, eta, d, n, tol))
        bound = _ellipse_alias(B, eta, d, M, n)
        key = (not bound <= arb(tol), M if bound <= arb(tol) else 0, float(bound.upper()))
        if best is None or key < best[0]:
            best = (key, {"eta": eta, "B": B, "grid": M, "bound": bound})
        return True

    last_ok = None
    for eta in _ETAS:  # ascending: stop at the first failure
        if not consider(eta):
            if last_ok is not None:
                consider(last_ok * 3 / 2)
            break
        last_ok = eta
    return None if best is None else best[1]


def _quadrature(fx: Any, n: int, tol: fmpq) -> list[arb] | None:
    """``c_m``, ``m = 0..n``, by ``acb.integral`` (d = 1)."""
    pi = arb.pi()
    one = arb(1)

    def make(m: int) -> Any:
        def h(x: acb, analytic: bool) -> acb:
            if analytic:
                v = fx.eval_acb(_cos_box(x))
            else:
                if not x.imag.is_zero():
                    return acb(arb.nan(), arb.nan())
                xr = x.real
                c = xr.cos()
                try:
                    v = fx.eval_arb(c)
                    if not v.is_finite() and (xr.lower() < 1 or xr.upper() > 2):
                        # near theta = 0, pi the ball of cos reaches beyond +-1 by
                        # rounding: evaluate on the part where f is defined
                        v = fx.eval_arb(c, clip_to_domain=True)
                except DomainError:
                    return acb(arb.nan(), arb.nan())
                v = acb(v)
            return v * (m * x).cos()

        return h

    abs_tol = arb(tol) / 4
    out = []
    for m in range(n + 1):
        I = acb.integral(make(m), 0, pi, abs_tol=abs_tol, rel_tol=abs_tol,
                         eval_limit=_QUAD_EVAL_LIMIT)
        if not I.is_finite():
                return None
        c = I.real * (one if m == 0 else arb(2)) / pi
        out.append(c)
    return out


def chebyshev_coefficients(
    f: Any,
    n: IntLike,
    dim: IntLike = 1,
    *,
    grid: Any = None,
    q: Any = None,
    prec: int = 128,
    name: str = "f",
    method: str = "auto",
    tol: ExactLike | None = None,
    progress: ProgressCallback | None = None,
) -> ChebyshevSeries:
    """Rigorous balls for the Chebyshev coefficients ``c_m``, ``0 <= m_i <= n``, of ``f``.

    Parameters
    ----------
    f : str or Expr
        Function of ``x`` (``x, y`` / ``x, y, z`` for dim 2 / 3).
    n : int
        Largest index per axis.
    dim : int
        1, 2 or 3.
    grid : int, optional
        ``M`` (grid ``theta_j = j pi / M``), ``M > n``; default ``max(4n, 64)`` (d = 1),
        ``max(2n, 32)`` (d = 2), ``max(2n, 16)`` (d = 3), raised automatically until the
        Bernstein-ellipse alias bound is below ``tol``, within ``(n+1)(M+1) <= 400000``
        (d = 1) or ``(M+1)^d <= 20000`` (d = 2, 3).
    q : int, optional
        Derivative order of the derivative alias bound (default 24 / 6 / 2 for
        d = 1 / 2 / 3).
    prec : int
        Working precision in bits.
    method : {"auto", "dct", "quadrature"}
        ``"dct"``: grid + the better of the two alias bounds; ``"quadrature"``: rigorous
        quadrature (d = 1 only); ``"auto"``: see the module docstring.
    tol : rational, optional
        Target radius (default ``2^-60``): the DCT is accepted when its alias bound is
        below it; quadrature aims at absolute error ``tol/4`` per integral.
    progress : callable, optional
        ``progress(stage, done, total)`` (:mod:`dpverify.progress`), called from the
        grid evaluation.

    Guarantee
    ---------
    See the module docstring: every ball contains the true ``c_m`` (infinite radius
    when no bound could be proven; ``info()["enclosure"]`` names the method used).
    """
    d = check_int(dim, "dim", minimum=1, maximum=3)
    n = check_int(n, "n", minimum=0, maximum=4096)
    if method not in METHODS:
        raise InvalidParameterError(f"method must be one of {', '.join(METHODS)}, got {method!r}")
    if method == "quadrature" and d != 1:
        raise InvalidParameterError(f"method 'quadrature' needs dim 1, got dim {d}")
    tolq = _DEFAULT_TOL if tol is None else to_fmpq(tol, "tol")
    if not tolq > 0:
        raise InvalidParameterError(f"tol must be > 0, got {tol}")
    if isinstance(f, Expr):
        fx = f
        if len(fx.variables) != d:
            raise InvalidParameterError(
                f"{name} has {len(fx.variables)} variables but dim is {d}"
            )
    else:
        fx = parse(f, variables=_VARS[:d], name=name)
    default_M = {1: max(4 * n, 64), 2: max(2 * n, 32), 3: max(2 * n, 16)}[d]
    M = default_M if grid is None else check_int(grid, "grid", minimum=n + 1)
    if (M + 1) ** d > MAX_GRID_POINTS:
        raise InvalidParameterError(
            f"grid must satisfy (grid+1)^dim <= {MAX_GRID_POINTS}, got grid={M}, dim={d}"
        )
    qq, boxes = _Q[d]
    if q is not None:
        qq = check_int(q, "q", minimum=2, maximum=40)

    def grid_of(needed: int) -> int:
        if grid is not None:
            return M
        if d == 1:
            cap = max(M, MAX_AUTO_GRID_WORK // (n + 1) - 1)
        else:  # (M+1)^d evaluations of f
            cap = max(M, int(round(MAX_AUTO_GRID_POINTS ** (1 / d))) - 1)
        return min(max(M, needed), cap)

    old, old_cap = ctx.prec, ctx.cap
    ctx.prec = max(int(prec), 53)
    # python-flint truncates power series at ctx.cap (default 10) silently: raise it
    ctx.cap = max(old_cap, qq * d + 2)
    stats: dict[str, Any] = {}
    try:
        if method == "quadrature":
            _dct(fx, d, 0, M, name)  # f finite at the grid points (definedness check)
            cs = _quadrature(fx, n, tolq)
            if cs is None:
                return _no_enclosure(fx, d, n, M, qq, name)
            stats.update(grid_points=M + 1, quadrature_abs_tol=str(tolq / 4))
            return ChebyshevSeries(dim=d, n=n, coeffs=cs, grid=M, q=qq, alias_bound=arb(0),
                                   stats=stats, method="quadrature")
        ell = _ellipse_search(fx, d, n, tolq, grid_of)
        if ell is not None:
            M = ell["grid"]
        flat = _dct(fx, d, n, M, name, progress)
        candidates = []
        if ell is not None:
            candidates.append((ell["bound"], "dct+ellipse"))
            rho = arb(ell["eta"]).exp()
            stats.update(eta=str(ell["eta"]), rho=rho.str(10), ellipse_sup=str(ell["B"]))
        try:
            D = _derivative_bounds(fx, d, qq, boxes)
            zeta = 2 * (1 + arb(1) / (qq - 1))
            L = arb(2 * M - n)  # worst case over n_i <= n
            total = arb(0)
            for s, Ds in D.items():
                total += 2**d * Ds * (zeta / L**qq) ** sum(s)
            if total.is_finite():
                candidates.append((total.upper(), "dct+derivative"))
        except DomainError:  # includes NotAnalytic
            pass
        stats["grid_points"] = (M + 1) ** d
        bound, how = arb("inf"), "none"
        for b, h in candidates:
            if b.is_finite() and (not bound.is_finite() or b < bound):
                bound, how = b, h
        if method == "auto" and d == 1 and not (bound.is_finite() and bound <= arb(tolq)):
            cs = _quadrature(fx, n, tolq)
            if cs is not None:
                quad = ChebyshevSeries(dim=d, n=n, coeffs=cs, grid=M, q=qq,
                                       alias_bound=arb(0), method="quadrature",
                                       stats={"grid_points": M + 1,
                                              "quadrature_abs_tol": str(tolq / 4)})
                if not bound.is_finite() or quad.max_radius < bound:
                    return quad
        if bound.is_finite():
            coeffs = [c + arb(0, bound) for c in flat]
        else:
            coeffs = [arb(c.mid(), "inf") for c in flat]
    finally:
        ctx.prec, ctx.cap = old, old_cap
    return ChebyshevSeries(dim=d, n=n, coeffs=coeffs, grid=M, q=qq, alias_bound=bound,
                           stats=stats, method=how)


def _no_enclosure(fx: Any, d: int, n: int, M: int, qq: int, name: str) -> ChebyshevSeries:
    flat = _dct(fx, d, n, M, name)
    return ChebyshevSeries(dim=d, n=n, coeffs=[arb(c.mid(), "inf") for c in flat], grid=M,
                           q=qq, alias_bound=arb("inf"), stats={"grid_points": (M + 1) ** d},
                           method="none")
