"""Query functions ``F(D, y)`` for the Bernstein mechanism (alda2017 §6, Appendices F, G).

Three evaluation modes decide what the privacy guarantee rests on (the release is
:func:`dpverify.mechanisms.bernstein_mech.release_bernstein`):

``"mean"`` (separable queries, :class:`MeanQuery`, :func:`mean_query`)
    ``F(D, y) = (1/n) sum_i phi(d_i, y)`` with a PUBLIC declared range ``phi in [lo, hi]``
    (exact rationals).  ``phi`` is evaluated in float64, each value rounded to the grid
    ``g Z`` and CLAMPED to ``[floor_g(lo), ceil_g(hi)]``; the integers are summed exactly.
    The sensitivity ``(ceil_g(hi) - floor_g(lo))/n`` then holds *whatever* the float error
    of ``phi`` (it only affects accuracy).  KDE and linear-mean are mean queries.
``"exact"`` / ``"ball"`` (:class:`FunctionQuery` with ``evaluation="exact"`` or ``"ball"``)
    ``func`` returns exact numbers (fmpq, fmpz, int, Fraction) or arb balls; the lattice
    points are passed as exact ``fmpq`` tuples.  For a ball the release uses the midpoint
    rounded to ``g`` after checking ``radius <= e_max`` (public), re-evaluating under
    ``ctx.workprec`` at doubled precision before refusing.  Priestley-Chao, naive Bayes and
    logistic regression are ball queries.
``"float"`` (:class:`FunctionQuery` with ``float_error=``)
    a float-returning callable with a declared, public bound on its float error; the bound
    is an *assumption* listed in the privacy record.

Every built-in query states its sensitivity derivation in its docstring (Guarantee:
rigorous upper bound, arb rounded up) and the data domain it validates.
References: alda2017 §2 (S(F)), §6 (examples), Appendix F (naive Bayes), Appendix G
(logistic regression); Chaudhuri-Monteleoni 2008 (minimiser stability).

Size: the query catalogue (KDE, linear mean, Priestley-Chao, naive Bayes,
logistic), each with the derivation of its sensitivity next to it.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, TypeVar

import numpy as np
from flint import arb, arb_mat, ctx, fmpq

from ..errors import InvalidParameterError, ParameterTypeError
from ..numbers import ExactLike, IntLike, arb_to_fmpq_bounds, check_int, fmpq_str, to_fmpq

__all__ = [
    "EVALUATION_MODES",
    "FunctionQuery",
    "exp_neg",
    "MeanQuery",
    "mean_query",
    "kde_query",
    "linear_mean_query",
    "priestley_chao_query",
    "naive_bayes_query",
    "naive_bayes_sensitivity",
    "naive_bayes_float",
    "logistic_query",
    "logistic_sensitivity",
    "fit_logistic",
    "certify_logistic",
]

#: Evaluation modes of a query (see the module docstring).
EVALUATION_MODES = ("mean", "exact", "ball", "float")


def _upper(x: arb) -> fmpq:
    with ctx.workprec(max(ctx.prec, 128)):  # endpoints at >= 128 bits (outward)
        return arb_to_fmpq_bounds(x)[1]


def _lower(x: arb) -> fmpq:
    with ctx.workprec(max(ctx.prec, 128)):
        return arb_to_fmpq_bounds(x)[0]


def check_box(a: np.ndarray, lo: float, hi: float, name: str) -> None:
    if a.size and (not np.all(np.isfinite(a)) or a.min() < lo or a.max() > hi):
        raise InvalidParameterError(f"{name} values must lie in [{lo:g}, {hi:g}]")


def _as_arb(v: Any) -> arb:
    """Exact conversion to a ball: fmpq/int exactly, a Python/numpy float as its binary value."""
    if isinstance(v, (float, np.floating)):
        return arb(float(v))  # a double is an exact dyadic rational
    if isinstance(v, Fraction):
        return arb(fmpq(v.numerator, v.denominator))
    return arb(v)


# ----------------------------------------------------------------------------- types


@dataclass(frozen=True)
class FunctionQuery:
    """A user function ``F(D, y)`` with a declared sensitivity (alda2017 §2).

    Attributes
    ----------
    name : str
    func : callable
        ``func(data, ys) -> values``: data array ``(n, c)``; query points ``ys``: for
        ``evaluation`` ``"exact"``/``"ball"`` a list of tuples of exact ``fmpq`` lattice
        points, for ``"float"``/``"mean"`` a float array ``(p, l)``.  Returns ``p`` values:
        exact numbers or arb balls (exact/ball) or floats (float mode).  Ball queries are
        evaluated under ``ctx.workprec(prec)`` and should honour the working precision.
    sensitivity : callable
        ``sensitivity(n) -> fmpq``: ``S(F) = sup_y sup_{D ~ D'} |F(D,y)-F(D',y)|`` for
        databases of ``n`` rows (an upper bound; exact rational).
    dim : int
        ``l`` (query dimension).
    sample_rows : callable
        ``sample_rows(n, np_rng) -> (n, c)`` array: random *public* rows of the declared data
        domain, used only by ``check_sensitivity`` (never the private data).
    second_derivative_bound : callable or None
        ``n -> fmpq`` upper bound of ``sup |d^2 F / d y_i^2|`` (for the h = 1 accuracy term).
    validate : callable or None
        ``validate(data)`` raises ``InvalidParameterError`` if the data leave the domain.
    evaluation : str
        ``"exact"`` (default), ``"ball"`` or ``"float"`` (``"mean"`` for :class:`MeanQuery`).
    float_error : exact number or None
        Float mode: declared public bound on ``|func(D, y) - F(D, y)|`` (an assumption).
    add_remove_sensitivity : callable or None
        ``n -> fmpq``: ``sup |F(D, y) - F(D', y)|`` over ``D`` of ``n`` rows and ``D'`` =
        ``D`` plus one row (add/remove-one neighbours, ``n >= min_rows`` of the release);
        ``None``: the query cannot be released for add/remove neighbours.
    derived : bool (read-only)
        True only for the built-in queries, whose sensitivities are proved in this package
        (their docstrings); it is not a constructor argument: a user's ``sensitivity`` is
        always an assumption of the privacy record, listed verbatim.
    """

    name: str
    func: Callable[[Any, Any], Any]
    sensitivity: Callable[[int], fmpq]
    dim: int
    sample_rows: Callable[[int, Any], np.ndarray]
    params: dict = field(default_factory=dict)
    second_derivative_bound: Callable[[int], fmpq] | None = None
    validate: Callable[[np.ndarray], None] | None = None
    notes: str = ""
    evaluation: str = "exact"
    float_error: Any = None
    add_remove_sensitivity: Callable[[int], fmpq] | None = None
    derived: bool = field(default=False, init=False)

    def __post_init__(self) -> None:
        if self.evaluation not in EVALUATION_MODES:
            raise InvalidParameterError(
                f"evaluation must be one of {EVALUATION_MODES}, got {self.evaluation!r}")
        if self.evaluation == "mean" and not isinstance(self, MeanQuery):
            raise InvalidParameterError(
                "evaluation='mean' needs a MeanQuery (mean_query(...)) with a declared range")
        if self.float_error is not None:
            fe = to_fmpq(self.float_error, "float_error")
            if fe < 0:
                raise InvalidParameterError(f"float_error must be >= 0, got {fmpq_str(fe)}")
            object.__setattr__(self, "float_error", fe)
            if self.evaluation == "exact":
                object.__setattr__(self, "evaluation", "float")
            elif self.evaluation != "float":
                raise InvalidParameterError(
                    f"float_error applies to evaluation='float' only, got {self.evaluation!r}")
        if self.evaluation == "float" and self.float_error is None:
            raise InvalidParameterError(
                "evaluation='float' needs a declared float_error= bound (exact, public)")
        check_int(self.dim, "dim", minimum=1, maximum=4)


@dataclass(frozen=True)
class MeanQuery(FunctionQuery):
    """Separable query ``F(D, y) = (1/n) sum_i phi(d_i, y)`` with public range ``[lower, upper]``.

    ``phi(data, ys)`` returns a float array of shape ``(len(ys), len(data))``; ``func`` is
    the float64 mean (for convenience, e.g. computing ground truth; the release never
    uses it).  ``sensitivity(n) = (upper - lower)/n``.

    ``elementwise`` (read-only, set by the built-in queries only): ``phi`` computes every
    output element from its own row and point by a fixed sequence of IEEE operations, so
    the release may call it on blocks of any shape.  A user ``phi`` is called one row at
    a time instead, and "phi is a deterministic function of one row" is an assumption of
    the record.
    """

    phi: Callable[[np.ndarray, np.ndarray], np.ndarray] | None = field(default=None,
                                                                      kw_only=True)
    lower: Any = field(default=None, kw_only=True)
    upper: Any = field(default=None, kw_only=True)
    elementwise: bool = field(default=False, init=False)

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.evaluation != "mean":
            raise InvalidParameterError("a MeanQuery has evaluation='mean'")
        if not callable(self.phi):
            raise ParameterTypeError("phi must be callable")
        lo, hi = to_fmpq(self.lower, "lower"), to_fmpq(self.upper, "upper")
        if not lo <= hi:
            raise InvalidParameterError(
                f"lower must be <= upper, got [{fmpq_str(lo)}, {fmpq_str(hi)}]")
        object.__setattr__(self, "lower", lo)
        object.__setattr__(self, "upper", hi)

    def phi_values(self, data: np.ndarray, ys: np.ndarray) -> np.ndarray:
        """``phi(data, ys)`` as a float64 array (shape as returned; callers check it)."""
        phi = self.phi
        if phi is None:  # excluded by __post_init__; kept for the type checker
            raise ParameterTypeError("phi must be callable")
        return np.asarray(phi(data, ys), dtype=np.float64)


def mean_query(
    name: str,
    phi: Callable[[np.ndarray, np.ndarray], np.ndarray],
    lower: Any,
    upper: Any,
    dim: IntLike,
    *,
    sample_rows: Callable[[int, Any], np.ndarray] | None = None,
    validate: Callable[[np.ndarray], None] | None = None,
    params: dict | None = None,
    second_derivative_bound: Callable[[int], fmpq] | None = None,
    notes: str = "",
    exact_func: Callable[[Any, Any], Any] | None = None,
) -> MeanQuery:
    """Build a separable ("mean") query ``F(D, y) = (1/n) sum_i phi(d_i, y)``.

    Parameters
    ----------
    name : str
    phi : callable
        ``phi(data (n, c) float array, ys (p, l) float array) -> (p, n)`` float array.
    lower, upper : exact numbers
        PUBLIC declared range of ``phi`` (``lower <= phi <= upper`` on the data domain).
    dim : int
        ``l`` in 1..4.
    sample_rows, validate, params, second_derivative_bound, notes
        As in :class:`FunctionQuery` (``sample_rows`` defaults to uniform rows in
        ``[0,1]^dim``).
    exact_func : callable, optional
        An exact evaluation of ``F`` on exact data (``func`` then dispatches to it for
        object inputs); optional, for tests.

    Guarantee
    ---------
    Privacy does not rest on the declared range being right: the release clamps every
    rounded ``phi`` value into it, so ``S(F) = (upper - lower)/n`` (plus the grid terms
    stated by the release) holds exactly.  A wrong range or float error of ``phi`` only
    costs accuracy.  The release calls a user ``phi`` on one row at a time, so a ``phi``
    that mixes rows (e.g. returns the chunk maximum) sees one row; it does rest on
    ``phi`` being a deterministic function of its arguments, which the record lists as
    an assumption (and tests on public rows).  No argument removes that assumption.

    Examples
    --------
    >>> import numpy as np
    >>> q = mean_query("xy", lambda d, ys: ys[:, :1] * d[:, 0][None, :], 0, 1, 1)
    >>> q.sensitivity(10), q.derived, q.elementwise
    (1/10, True, False)
    """
    if not isinstance(name, str) or not name:
        raise ParameterTypeError("name must be a non-empty string")
    dim = check_int(dim, "dim", minimum=1, maximum=4)
    lo, hi = to_fmpq(lower, "lower"), to_fmpq(upper, "upper")
    if not lo <= hi:
        raise InvalidParameterError(f"lower must be <= upper, got [{fmpq_str(lo)}, "
                                    f"{fmpq_str(hi)}]")
    width = hi - lo

    def func(data: Any, ys: Any) -> Any:
        if exact_func is not None and not (isinstance(data, np.ndarray)
                                           and data.dtype != object):
            return exact_func(data, ys)
        X = np.asarray(data, dtype=np.float64)
        Y = np.asarray(ys, dtype=np.float64).reshape(-1, dim)
        return np.asarray(phi(X, Y), dtype=np.float64).mean(axis=1)

    def default_sample(n: int, g: Any) -> np.ndarray:
        return g.uniform(0.0, 1.0, size=(n, dim))

    q = MeanQuery(
        name=name, func=func, sensitivity=lambda n: width / n, dim=dim,
        sample_rows=sample_rows or default_sample, params=dict(params or {}),
        second_derivative_bound=second_derivative_bound, validate=validate, notes=notes,
        evaluation="mean", phi=phi, lower=lo, upper=hi,
    )
    # S(F) = (upper - lower)/n holds by the clamp whatever phi does: proved here
    object.__setattr__(q, "derived", True)
    return q


_Q = TypeVar("_Q", bound=FunctionQuery)


def _builtin(q: _Q, *, elementwise: bool = False) -> _Q:
    """Mark a query built in this module: its sensitivity is proved in its docstring
    (and, for a mean query, its ``phi`` is elementwise with a fixed operation order)."""
    object.__setattr__(q, "derived", True)
    if elementwise:
        object.__setattr__(q, "elementwise", True)
    return q


_LN2_HI = 6.93147180369123816490e-01  # high bits of ln 2 (k * _LN2_HI exact, |k| < 2^11)
_LN2_LO = 1.90821492927058770002e-10
_INV_LN2 = 1.44269504088896338700e00
_EXP_TAYLOR = tuple(1.0 / math.factorial(i) for i in range(14))


def exp_neg(z: np.ndarray) -> np.ndarray:
    """``exp(-z)`` for ``z >= 0`` by IEEE basic operations only (``+ - *``, ``rint``,
    ``ldexp``; no libm, no SIMD transcendental), element by element in a fixed order, so
    the same bits on every IEEE-754 machine whatever the array's shape or layout.

    Range reduction ``-z = k ln 2 + r`` (Cody-Waite, ``|r| <= 0.35``), Taylor polynomial of
    degree 13 by Horner (truncation ``< 0.35^14/14! < 1e-17``), scaling by ``2^k``.
    Accuracy a few ulps (no guarantee claimed: privacy does not rest on it).

    Examples
    --------
    >>> import numpy as np
    >>> float(abs(exp_neg(np.array([1.0]))[0] - np.exp(-1.0))) < 1e-15
    True
    """
    x = -np.minimum(np.asarray(z, dtype=np.float64), 746.0)
    k = np.rint(x * _INV_LN2)
    r = (x - k * _LN2_HI) - k * _LN2_LO
    p = np.full_like(r, _EXP_TAYLOR[-1])
    for c in _EXP_TAYLOR[-2::-1]:
        p = p * r + c
    return np.ldexp(p, k.astype(np.int64))


# ---------------------------------------------------------------------------------- KDE


def gauss_density_bounds(dim: int, b: fmpq) -> tuple[arb, arb]:
    """(K(0), K(1,...,1)) of the product Gaussian kernel, covariance b^2 I, as arb."""
    with ctx.workprec(128):
        pi2 = 2 * arb.pi()
        k0 = 1 / (pi2 ** (arb(dim) / 2) * arb(b) ** dim)
        k1 = k0 * (-arb(dim) / (2 * arb(b) ** 2)).exp()
    return k0, k1


def kde_query(bandwidth: ExactLike, dim: IntLike = 1) -> MeanQuery:
    """Gaussian kernel density estimator ``F(D, y) = (1/n) sum_i K_H(y - d_i)``, ``H = b^2 I``
    (alda2017 §6), as a mean query with ``phi(d, y) = K_H(y - d)``.

    Range and sensitivity (derived): for ``y, d`` in ``[0,1]^l`` the difference ranges over
    ``[-1,1]^l`` and the radial kernel is extreme at 0 and at a corner, so
    ``phi in [K_H(1,...,1), K_H(0)]`` and ``S(F) = (K_H(0) - K_H(1,...,1)) / n =
    (1 - e^{-l/(2b^2)}) / (n (2 pi)^{l/2} b^l)`` (attained at ``y = d = 0``, ``d' = 1``).
    The declared range is ``[lower(K1), upper(K0)]`` of 128-bit arb enclosures.  alda2017
    §6 prints ``1 / (n sqrt((2 pi)^l det H))``, valid (looser by ``1 - e^{-l/(2b^2)}``).
    Second derivatives: ``|d^2 K_H / d y_i^2| <= K_H(0) / b^2``.

    Guarantee
    ---------
    Mean mode: privacy is unconditional (clamp + exact integer sum); the declared range is
    a rigorous enclosure (arb, rounded outward), so clamping never moves a correct value.
    """
    b = to_fmpq(bandwidth, "bandwidth")
    if b <= 0:
        raise InvalidParameterError(f"bandwidth must be > 0, got {fmpq_str(b)}")
    dim = check_int(dim, "dim", minimum=1, maximum=4)
    bf = float(b)
    k0, k1 = gauss_density_bounds(dim, b)
    c2 = _upper(k0 / arb(b) ** 2)
    norm = (2 * math.pi) ** (dim / 2) * bf**dim

    inv2b2 = 1.0 / (2 * bf * bf)

    def phi(data: np.ndarray, ys: np.ndarray) -> np.ndarray:
        # element by element, axes in a fixed order, exp by basic IEEE operations: each
        # value depends on its own row and point only (any block shape, any machine)
        d2 = (ys[:, None, 0] - data[None, :, 0]) ** 2
        for j in range(1, dim):
            d2 = d2 + (ys[:, None, j] - data[None, :, j]) ** 2
        return exp_neg(d2 * inv2b2) / norm

    def sample(n: int, g: Any) -> np.ndarray:
        x = g.uniform(0.0, 1.0, size=(n, dim))
        # include corner rows so that extreme neighbours are tried
        x[: max(1, n // 4)] = g.integers(0, 2, size=(max(1, n // 4), dim))
        return x

    def validate(data: np.ndarray) -> None:
        check_box(data[:, :dim], 0.0, 1.0, "data")

    q = mean_query(
        "kde", phi, _lower(k1), _upper(k0), dim, sample_rows=sample, validate=validate,
        params={"bandwidth": fmpq_str(b), "dim": dim, "kernel": "gaussian, covariance b^2 I"},
        second_derivative_bound=lambda n: c2,
        notes="S(F) = (K(0) - K(1,..,1))/n exactly; alda2017 §6 prints 1/(n (2pi)^{l/2} b^l)",
    )
    return _builtin(q, elementwise=True)


def linear_mean_query(dim: IntLike = 1) -> MeanQuery:
    """``F(D, y) = sum_i mean(D[:, i]) y_i`` on rows in ``[0,1]^c`` (c = dim), a mean query with
    ``phi(d, y) = <d, y> in [0, l]``.  Linear in y, so ``B_k^{(h)} F = F`` exactly (alda2017
    Theorem 3 (iii)); ``S(F) = l/n`` exactly (attained at ``y = 1``, a row moving from 0 to
    1).  ``func`` is exact on exact (object / list) data."""
    dim = check_int(dim, "dim", minimum=1, maximum=4)

    def phi(data: np.ndarray, ys: np.ndarray) -> np.ndarray:
        # <y, d> element by element, axes in a fixed order (a BLAS product would round
        # each value differently for different block shapes)
        out = ys[:, None, 0] * data[None, :, 0]
        for j in range(1, dim):
            out = out + ys[:, None, j] * data[None, :, j]
        return out

    def exact_func(data: Any, ys: Any) -> list:
        n = len(data)
        means = [sum((to_fmpq(row[i]) for row in data), fmpq(0)) / n for i in range(dim)]
        return [sum((means[i] * to_fmpq(y[i]) for i in range(dim)), fmpq(0)) for y in ys]

    return _builtin(mean_query(
        "linear-mean", phi, 0, dim, dim,
        sample_rows=lambda n, g: g.integers(0, 2, size=(n, dim)).astype(np.float64),
        validate=lambda data: check_box(np.asarray(data, float)[:, :dim], 0.0, 1.0, "data"),
        params={"dim": dim}, second_derivative_bound=lambda n: fmpq(0), exact_func=exact_func,
    ), elementwise=True)


# ------------------------------------------------------------------------ Priestley-Chao


def priestley_chao_query(bandwidth: ExactLike, label_bound: Any, gap: Any) -> FunctionQuery:
    """Priestley-Chao kernel regression (alda2017 §6), l = 1, Gaussian kernel; ball mode.

    ``F_b(D, y) = (1/b) sum_{i=2}^{n} (d_i - d_{i-1}) K((y - d_i)/b) l_i`` over rows
    ``(d_i, l_i)`` in ``[0,1] x [-B, B]`` sorted by ``d``, ``K`` the standard normal density.

    Data domain: **every consecutive gap** ``d_i - d_{i-1} <= c/n`` (``gap = c``).  The paper
    only requires each point to have *some* other point within ``c/n``; under that weaker
    condition its bound ``4Bc/(nb) sup K`` is false (a removed point can carry a long gap,
    see docs/mechanisms.md and the test).  Derivation: removing ``d_j`` changes ``F`` by
    ``(d_j - d_{j-1})(K_{j+1} l_{j+1} - K_j l_j)/b``, at most ``(c/n) 2B K(0)/b``; inserting
    costs the same; so ``S(F) <= 4 B c K(0) / (n b)``, ``K(0) = 1/sqrt(2 pi)``.
    Second derivative: ``|F''| <= (1/b^3) sup|K''| B sum gaps <= B K(0) / b^3``.

    Evaluation: arb balls (rows are doubles = exact dyadic rationals; lattice points exact),
    ``(k+1) n`` exponentials per release.  Ties in ``d`` are ordered by label (any order
    gives the same value: the tied gap is 0).

    Guarantee
    ---------
    ``S(F)`` is a rigorous upper bound (arb, rounded up) under the consecutive-gap domain,
    which ``validate`` checks exactly (float differences of doubles compared with
    ``c/n`` in exact rationals).
    """
    b = to_fmpq(bandwidth, "bandwidth")
    B = to_fmpq(label_bound, "label_bound")
    c = to_fmpq(gap, "gap")
    for nm, v in (("bandwidth", b), ("label_bound", B), ("gap", c)):
        if v <= 0:
            raise InvalidParameterError(f"{nm} must be > 0, got {fmpq_str(v)}")
    Bf, cf = float(B), float(c)
    with ctx.workprec(128):
        k0 = 1 / (2 * arb.pi()).sqrt()
        s_num = _upper(4 * arb(B) * arb(c) * k0 / arb(b))
        c2 = _upper(arb(B) * k0 / arb(b) ** 3)

    def func(data: Any, ys: Any) -> list:
        X = np.asarray(data, dtype=np.float64)
        order = np.lexsort((X[:, 1], X[:, 0]))
        d, lab = X[order, 0], X[order, 1]
        bb = arb(b)
        kn = 1 / (2 * arb.pi()).sqrt()
        gaps = [(_as_arb(d[i]) - _as_arb(d[i - 1])) * _as_arb(lab[i]) for i in range(1, len(d))]
        ds = [_as_arb(v) for v in d[1:]]
        out = []
        for y in ys:
            ya = _as_arb(y[0])
            s = arb(0)
            for gi, di in zip(gaps, ds, strict=True):
                z = (ya - di) / bb
                s += gi * (-(z * z) / 2).exp()
            out.append(s * kn / bb)
        return out

    def sample(n: int, g: Any) -> np.ndarray:
        steps = g.uniform(0.0, cf / n, size=n)
        d = np.cumsum(steps)
        d = d - d[0] + g.uniform(0.0, max(0.0, 1.0 - d[-1] + d[0]))
        lab = g.choice([-Bf, Bf], size=n)
        return np.column_stack([np.clip(d, 0.0, 1.0), lab])

    def validate(data: np.ndarray) -> None:
        if data.ndim != 2 or data.shape[1] < 2:
            raise InvalidParameterError("data must have two columns (d, label)")
        check_box(data[:, 0], 0.0, 1.0, "data column d")
        lab = data[:, 1]
        if lab.size and (not np.all(np.isfinite(lab))
                         or max(abs(_float_fmpq(lab.min())), abs(_float_fmpq(lab.max()))) > B):
            raise InvalidParameterError(f"data column label values must lie in "
                                        f"[-{fmpq_str(B)}, {fmpq_str(B)}]")
        n = len(data)
        if n > 1:
            ds = np.sort(data[:, 0])
            # floats screen, exact arithmetic decides: fl(a - b) >= (a - b)(1 - 2^-53), so
            # every gap that exceeds c/n exactly passes this float filter
            cand = np.nonzero(np.diff(ds) >= float(c / n) * (1 - 1e-12))[0]
            big = max((_float_fmpq(ds[i + 1]) - _float_fmpq(ds[i]) for i in cand),
                      default=fmpq(0))
            if big > c / n:
                raise InvalidParameterError(
                    f"data violate the public domain: a consecutive gap exceeds c/n = "
                    f"{float(c / n):g}")

    return _builtin(FunctionQuery(
        name="priestley-chao",
        func=func,
        sensitivity=lambda n: s_num / n,
        add_remove_sensitivity=lambda n: s_num / (2 * (n + 1)),
        dim=1,
        sample_rows=sample,
        params={"bandwidth": fmpq_str(b), "label_bound": fmpq_str(B), "gap": fmpq_str(c)},
        second_derivative_bound=lambda n: c2,
        validate=validate,
        notes="S(F) <= 4Bc K(0)/(nb) under consecutive gaps <= c/n (stronger than the "
        "paper's 'some neighbour within c/n', under which the bound fails); add/remove: "
        "2Bc K(0)/((n+1) b)",
        evaluation="ball",
    ))


def _float_fmpq(v: float) -> fmpq:
    fr = Fraction(float(v))
    return fmpq(fr.numerator, fr.denominator)


# ---------------------------------------------------------------------------- naive Bayes


def _nb_constants(dim: int, b: fmpq, prec: int = 128) -> tuple[arb, arb]:
    """1-D Gaussian kernel of bandwidth b: (K0, K1) = (K(0), K(1)) as arb."""
    with ctx.workprec(prec):
        k0 = 1 / ((2 * arb.pi()).sqrt() * arb(b))
        k1 = k0 * (-1 / (2 * arb(b) ** 2)).exp()
    return k0, k1


def naive_bayes_sensitivity(n: IntLike, dim: IntLike, bandwidth: ExactLike, *,
                            neighbours: str = "replace") -> fmpq:
    """``S(F) = 2 K0^{l-1} max(K0, l (K0 - K1) - K0) / n`` for :func:`naive_bayes_query`.

    Rigorous upper bound (arb, rounded up); it is the supremum over all ``n`` (attained for
    every ``n`` when ``l (K0 - K1) <= 2 K0``; otherwise only approached as the class sizes
    grow, and for small fixed ``n`` the true maximum can be well below it, e.g. 0.4-0.6 of
    it for ``l = 3, b = 1/10, n <= 5``).  Proof in :func:`naive_bayes_query`.

    ``neighbours="add-remove"``: ``D`` of ``n`` rows and ``D'`` = ``D`` plus a row of class
    ``c``: ``(n + 1) F' = n F +- R`` with ``R`` of step 1 of the proof (the removal of that
    row from ``D'``), so ``F' - F = (+-R - F)/(n + 1)``; ``|F| <= K0^l`` (``T_+ + T_- <=
    K0^l``, both ``>= 0``) and ``|R| <= max(K0^l, l delta K0^{l-1} - K0^l)``, hence
    ``S = (max(K0^l, l delta K0^{l-1} - K0^l) + K0^l)/(n + 1)``.
    """
    n = check_int(n, "n", minimum=1)
    dim = check_int(dim, "dim", minimum=1, maximum=4)
    b = to_fmpq(bandwidth, "bandwidth")
    if b <= 0:
        raise InvalidParameterError(f"bandwidth must be > 0, got {fmpq_str(b)}")
    k0, k1 = _nb_constants(dim, b)
    if neighbours == "add-remove":
        with ctx.workprec(128):
            peak = k0**dim
            r_max = dim * (k0 - k1) * k0 ** (dim - 1) - peak
            return max(_upper((peak + peak) / (n + 1)), _upper((r_max + peak) / (n + 1)))
    if neighbours != "replace":
        raise InvalidParameterError(f"neighbours must be replace or add-remove, got "
                                    f"{neighbours!r}")
    with ctx.workprec(128):
        swap = 2 * k0**dim / n  # a row switching class, both classes at their peak
        drift = 2 * k0 ** (dim - 1) * (dim * (k0 - k1) - k0) / n  # large classes, l delta > 2 K0
    return max(_upper(swap), _upper(drift))


def naive_bayes_float(data: np.ndarray, ys: np.ndarray, bandwidth: float) -> np.ndarray:
    """Float64 evaluation of the naive Bayes ``F`` (heuristic, no promise; for comparison).

    ``data`` rows ``(d_1..d_l, label)`` with label 1 (positive class) or not; ``ys`` (p, l).
    """
    X = np.asarray(data, dtype=np.float64)
    Y = np.asarray(ys, dtype=np.float64)
    dim = Y.shape[1]
    b = float(bandwidth)
    n = len(X)
    out = np.zeros(len(Y))
    k0 = 1 / (math.sqrt(2 * math.pi) * b)
    for sign, mask in ((1.0, X[:, dim] == 1), (-1.0, X[:, dim] != 1)):
        nc = int(mask.sum())
        if nc == 0:
            continue
        prod = np.ones(len(Y))
        for j in range(dim):
            kv = k0 * np.exp(-((Y[:, j:j + 1] - X[mask][None, :, j]) ** 2) / (2 * b * b))
            prod *= kv.mean(axis=1)
        out += sign * nc / n * prod
    return out


def naive_bayes_query(bandwidth: ExactLike, dim: IntLike, *,
                      negative_label: Any = -1) -> FunctionQuery:
    """Naive Bayes with Gaussian-KDE class likelihoods (alda2017 §6, Appendix F); ball mode.

    Rows ``(d_1, ..., d_l, label)``, features ``d_ij in [0, 1]``, label ``1`` (class +) or
    ``negative_label`` (class -, default -1; 0 is also accepted).  With ``K(u) =
    exp(-u^2/(2b^2))/(sqrt(2 pi) b)``, ``n_c`` the class sizes and
    ``A_cj(y_j) = (1/n_c) sum_{i in c} K(y_j - d_ij)``::

        F(D, y) = T_+(y) - T_-(y),   T_c(y) = (n_c/n) prod_j A_cj(y_j)   (T_c = 0 if n_c = 0)

    i.e. ``P(+|D) P(y|+, D) - P(-|D) P(y|-, D)`` (the paper's F up to its unspecified
    proportionality constant, here 1).

    Sensitivity (derived; ``K0 = K(0)``, ``K1 = K(1)``, ``delta = K0 - K1``; every
    ``A_cj`` and every kernel value lies in ``[K1, K0]`` because ``|y_j - d_ij| <= 1``).
    Write ``n T_c = N P`` with ``N = n_c``, ``P = prod_j A_j``.

    1. *Removing* a row ``v`` (kernel values ``v_j``) from a class of ``N >= 2`` rows whose
       other rows have means ``u_j``: ``R = n (T_c - T_c') = N P - (N-1) P'`` with
       ``A_j = (v_j + (N-1) u_j)/N``, ``P' = prod u_j``.  ``dR/dv_j = prod_{i != j} A_i >= 0``.
       At ``v = K0``: ``dR/du_j = (N-1)(prod_{i!=j} A_i - prod_{i!=j} u_i) >= 0`` (``A_i >=
       u_i``), so ``R <= R(K0, .., K0) = K0^l``.  At ``v = K1``: ``dR/du_j <= 0``, so
       ``R >= N (K0 - delta/N)^l - (N-1) K0^l = K0^l + N(phi(1/N) - phi(0))`` with the
       convex ``phi(t) = (K0 - delta t)^l``; its secant slope exceeds ``phi'(0) =
       -l delta K0^{l-1}``, so ``R > K0^l - l delta K0^{l-1}``.  ``N = 1``: ``R = P in
       [K1^l, K0^l]``.  Hence ``R in (K0^l - l delta K0^{l-1}, K0^l]``.  *Inserting* a row
       into a class is the reverse removal (same range for the class after insertion).
    2. A row moving from class + to class - (features may change):
       ``n (F' - F) = -R_+ - R_-`` with both in that range, so
       ``|F' - F| <= 2 max(K0^l, l delta K0^{l-1} - K0^l) / n``.
    3. A row changing features within class ``c``: ``|A_j - A'_j| <= delta/N`` and
       ``prod`` of factors in ``[K1, K0]`` is ``K0^{l-1}``-Lipschitz per factor (telescoping),
       so ``|F - F'| <= (N/n) l K0^{l-1} delta / N = l delta K0^{l-1}/n``.

    Together ``S(F) = 2 K0^{l-1} max(K0, l delta - K0) / n`` (case 3 never exceeds the
    maximum: ``l delta K0^{l-1} <= 2 K0^{l-1} max(K0, l delta - K0)``).  Tight: all rows
    at ``y`` and one row switching class gives exactly ``2 K0^l/n``.  The candidate
    ``2(K0^l + l K0^{l-1} delta)/n`` is valid but up to 3x larger (l = 2, small b);
    alda2017 Appendix F's ``2((2^l-1)/(n sqrt(2 pi) b) + 1/n)`` is false (densities > 1,
    ledger ``alda2017/Appendix F``).  Second derivatives: ``|d^2 F/dy_i^2| <= K0^l/b^2``
    (``sup |K''| = K0/b^2``, and ``n_+ + n_- = n``).

    Guarantee
    ---------
    ``S(F)`` rigorous upper bound (arb, rounded up); values are arb balls (rows are exact
    dyadic doubles, lattice points exact), ``(k+1) l n`` exponentials per evaluation.
    """
    b = to_fmpq(bandwidth, "bandwidth")
    if b <= 0:
        raise InvalidParameterError(f"bandwidth must be > 0, got {fmpq_str(b)}")
    dim = check_int(dim, "dim", minimum=1, maximum=4)
    neg = to_fmpq(negative_label, "negative_label")
    if neg not in (fmpq(-1), fmpq(0)):
        raise InvalidParameterError(f"negative_label must be -1 or 0, got {fmpq_str(neg)}")
    negf = float(neg)
    k0r, _ = _nb_constants(dim, b)
    c2 = _upper(k0r**dim / arb(b) ** 2)

    def func(data: Any, ys: Any) -> list:
        X = np.asarray(data, dtype=np.float64)
        n = len(X)
        bb = arb(b)
        k0 = 1 / ((2 * arb.pi()).sqrt() * bb)
        inv2b2 = 1 / (2 * bb * bb)
        ys = [tuple(y) for y in ys]
        coords = [sorted({y[j] for y in ys}, key=float) for j in range(dim)]
        out = [arb(0)] * len(ys)
        for sign, mask in ((1, X[:, dim] == 1), (-1, X[:, dim] != 1)):
            nc = int(mask.sum())
            if nc == 0:
                continue  # empty class: T_c = 0
            Xc = X[mask]
            table = []
            for j in range(dim):
                col = [_as_arb(v) for v in Xc[:, j]]
                tj = {}
                for yv in coords[j]:
                    ya = _as_arb(yv)
                    s = arb(0)
                    for dv in col:
                        u = ya - dv
                        s += (-(u * u) * inv2b2).exp()
                    tj[yv] = s * k0 / nc
                table.append(tj)
            for p, y in enumerate(ys):
                prod = arb(1)
                for j in range(dim):
                    prod *= table[j][y[j]]
                out[p] = out[p] + sign * prod * nc / n
        return out

    def sample(n: int, g: Any) -> np.ndarray:
        x = g.uniform(0.0, 1.0, size=(n, dim))
        x[: max(1, n // 3)] = g.integers(0, 2, size=(max(1, n // 3), dim))
        lab = g.choice([1.0, negf], size=n)
        return np.column_stack([x, lab])

    def validate(data: np.ndarray) -> None:
        if data.ndim != 2 or data.shape[1] != dim + 1:
            raise InvalidParameterError(
                f"data must have {dim + 1} columns (features, label), got {data.shape[1]}")
        check_box(data[:, :dim], 0.0, 1.0, "data feature")
        bad = ~np.isin(data[:, dim], [1.0, negf])
        if bad.any():
            # the rule, never the value (private data); the caller names the row
            raise InvalidParameterError(f"data labels must be 1 or {fmpq_str(neg)}")

    return _builtin(FunctionQuery(
        name="naive-bayes",
        func=func,
        sensitivity=lambda n: naive_bayes_sensitivity(n, dim, b),
        add_remove_sensitivity=lambda n: naive_bayes_sensitivity(n, dim, b,
                                                                 neighbours="add-remove"),
        dim=dim,
        sample_rows=sample,
        params={"bandwidth": fmpq_str(b), "dim": dim, "negative_label": fmpq_str(neg),
                "kernel": "1-D gaussian per feature"},
        second_derivative_bound=lambda n: c2,
        validate=validate,
        notes="S(F) = 2 K0^(l-1) max(K0, l(K0-K1) - K0)/n (derived; supremum over n); alda2017 "
        "Appendix F's 2((2^l-1)/(n sqrt(2pi) b) + 1/n) is false; add/remove: "
        "(max(K0^l, l(K0-K1)K0^(l-1) - K0^l) + K0^l)/(n+1)",
        evaluation="ball",
    ))


# ------------------------------------------------------------------- logistic regression


def logistic_sensitivity(n: IntLike, dim: IntLike, lam: ExactLike, *,
                         neighbours: str = "replace") -> fmpq:
    """``S(F) = sqrt(l) / (2 n lambda)`` for :func:`logistic_query` (rigorous upper bound).

    ``neighbours="add-remove"`` (``D`` of ``n`` rows, ``D'`` = ``D`` plus a row ``z``):
    ``(n + 1) J_D'(w) = n J_D(w) + loss_z(w) + (lambda/2) ||w||^2`` is ``(n + 1) lambda``-
    strongly convex with gradient ``grad loss_z(w*) + lambda w*`` at ``w* = argmin J_D``,
    so ``||w' - w*|| <= (1 + lambda ||w*||)/((n + 1) lambda)`` and ``lambda ||w*|| <=
    sqrt(2 lambda ln 2)`` (``J_D(w*) <= J_D(0) = ln 2``); the sigmoid is 1/4-Lipschitz and
    ``||y|| <= sqrt(l)``: ``S = sqrt(l) (1 + sqrt(2 lambda ln 2))/(4 (n + 1) lambda)``.
    """
    n = check_int(n, "n", minimum=1)
    dim = check_int(dim, "dim", minimum=1, maximum=4)
    lm = to_fmpq(lam, "lam")
    if lm <= 0:
        raise InvalidParameterError(f"lam must be > 0, got {fmpq_str(lm)}")
    with ctx.workprec(128):
        if neighbours == "add-remove":
            la = arb(lm)
            return _upper(arb(dim).sqrt() * (1 + (2 * la * arb(2).log()).sqrt())
                          / (4 * (n + 1) * la))
        if neighbours != "replace":
            raise InvalidParameterError(f"neighbours must be replace or add-remove, got "
                                        f"{neighbours!r}")
        return _upper(arb(dim).sqrt() / (2 * n * arb(lm)))


def _sigmoid(t: np.ndarray) -> np.ndarray:
    return 0.5 * (1.0 + np.tanh(0.5 * t))


def fit_logistic(data: np.ndarray, lam: ExactLike, *, max_iter: int = 100) -> np.ndarray:
    """Float64 Newton iteration for ``argmin_w (1/n) sum log(1 + e^{-l_i <w, d_i>}) +
    (lambda/2)||w||^2`` (rows ``(d_i, l_i)``, label last).  Heuristic: no guarantee; use
    :func:`certify_logistic` for a rigorous error bound."""
    X = np.asarray(data, dtype=np.float64)
    d, lab = X[:, :-1], X[:, -1]
    n, dim = d.shape
    lf = float(to_fmpq(lam, "lam"))
    w = np.zeros(dim)
    for _ in range(max_iter):
        z = lab * (d @ w)
        s = _sigmoid(-z)  # sigma(-z) = -loss'(z)
        grad = -(d * (lab * s)[:, None]).sum(axis=0) / n + lf * w
        hw = s * (1 - s) * lab * lab
        H = (d * hw[:, None]).T @ d / n + lf * np.eye(dim)
        step = np.linalg.solve(H, grad)
        w = w - step
        if np.linalg.norm(step) <= 1e-17 * (1 + np.linalg.norm(w)):
            break
    return w


def _arb_gradient(d: np.ndarray, lab: np.ndarray, w: list[arb], lam: fmpq) -> list[arb]:
    n, dim = d.shape
    g = [arb(0)] * dim
    for i in range(n):
        row = [_as_arb(v) for v in d[i]]
        li = _as_arb(lab[i])
        z = li * sum((row[j] * w[j] for j in range(dim)), arb(0))
        s = 1 / (1 + z.exp())  # sigma(-z)
        c = li * s
        for j in range(dim):
            g[j] = g[j] - c * row[j]
    return [g[j] / n + arb(lam) * w[j] for j in range(dim)]


def _arb_newton_step(d: np.ndarray, lab: np.ndarray, w: list[arb], lam: fmpq) -> list[arb]:
    n, dim = d.shape
    grad = _arb_gradient(d, lab, w, lam)
    H = [[arb(0)] * dim for _ in range(dim)]
    for i in range(n):
        row = [_as_arb(v) for v in d[i]]
        li = _as_arb(lab[i])
        z = li * sum((row[j] * w[j] for j in range(dim)), arb(0))
        s = 1 / (1 + z.exp())
        c = s * (1 - s) * li * li
        for a in range(dim):
            for bcol in range(dim):
                H[a][bcol] = H[a][bcol] + c * row[a] * row[bcol]
    M = arb_mat([[H[a][bcol] / n + (arb(lam) if a == bcol else 0) for bcol in range(dim)]
                 for a in range(dim)])
    step = M.solve(arb_mat([[gj] for gj in grad]))
    return [arb((w[j] - step[j, 0]).mid()) for j in range(dim)]


def certify_logistic(data: Any, lam: ExactLike, w: Any = None, *, refine: int = 0) -> dict:
    """Certified enclosure of the regularised logistic-regression minimiser ``w*``.

    Strong convexity: ``J`` is ``lambda``-strongly convex, so for every ``w``
    ``lambda ||w - w*||^2 <= <grad J(w) - grad J(w*), w - w*> <= ||grad J(w)|| ||w - w*||``,
    i.e. ``||w - w*||_2 <= ||grad J(w)||_2 / lambda``; ``grad J(w)`` is evaluated in arb
    (working precision ``ctx.prec``) over all rows and its norm bounded above.  ``w``
    defaults to :func:`fit_logistic`; ``refine`` extra Newton steps are done in arb
    (midpoints) at the working precision first.

    Returns ``{"w": [arb (exact midpoints)], "radius": fmpq upper bound of ||w - w*||_2}``.

    Guarantee
    ---------
    ``radius`` is a rigorous upper bound (arb, rounded up) for the exact minimiser of the
    objective defined by the (exact, dyadic) data.
    """
    X = np.asarray(data, dtype=np.float64)
    lm = to_fmpq(lam, "lam")
    if lm <= 0:
        raise InvalidParameterError(f"lam must be > 0, got {fmpq_str(lm)}")
    d, lab = X[:, :-1], X[:, -1]
    w0 = fit_logistic(X, lm) if w is None else np.asarray(w, dtype=np.float64)
    wa = [arb(float(v)) for v in w0]
    for _ in range(refine):
        wa = _arb_newton_step(d, lab, wa, lm)
    g = _arb_gradient(d, lab, wa, lm)
    norm = sum((arb(gj.abs_upper()) ** 2 for gj in g), arb(0)).sqrt()  # >= ||grad||
    return {"w": wa, "radius": _upper(norm / arb(lm))}


def logistic_query(lam: ExactLike, dim: IntLike) -> FunctionQuery:
    """Regularised logistic regression prediction (alda2017 §6, Appendix G); ball mode.

    ``F_D(y) = sigmoid(<w*, y>)``, ``w* = argmin_w J(w)``,
    ``J(w) = (1/n) sum_i log(1 + exp(-l_i <w, d_i>)) + (lambda/2) ||w||_2^2``; rows
    ``(d_i, l_i)`` with ``||d_i||_2 <= 1`` and labels ``l_i in [-1, 1]`` (use -1/+1);
    ``y in [0,1]^l``.  alda2017 writes ``(C/n) sum ... + (1/2)||w||^2``: ``lambda = 1/C``.
    (Appendix G's label space ``[0, 1]`` would make ``l = 0`` a constant loss and leave no
    negative class; the bound below holds for any ``|l_i| <= 1``.)

    Sensitivity (derived; Chaudhuri-Monteleoni 2008 argument): the per-row loss has
    gradient ``-l_i sigma(-l_i<w,d_i>) d_i`` of norm ``<= 1``; ``J_D`` and ``J_D'`` differ by
    ``(loss_r' - loss_r)/n`` whose gradient has norm ``<= 2/n``; ``J_D`` is
    ``lambda``-strongly convex, so ``lambda ||w - w'||^2 <= <grad J_D(w') - 0, w' - w>
    = <grad (J_D - J_D')(w'), w' - w> <= (2/n) ||w - w'||``: ``||w - w'|| <= 2/(n lambda)``.
    ``sigmoid`` is 1/4-Lipschitz and ``||y|| <= sqrt(l)``: ``S(F) <= sqrt(l)/(2 n lambda)``
    (= alda2017 Appendix G's ``C sqrt(l)/(2n)``).
    Second derivatives: ``J(w*) <= J(0) = ln 2`` gives ``||w*||^2 <= 2 ln 2/lambda``, and
    ``|sigma''| <= 1/(6 sqrt 3)``: ``|d^2F/dy_i^2| <= ln 2 / (3 sqrt(3) lambda)``.

    Evaluation: ``w`` by float Newton, certified by :func:`certify_logistic`
    (``||w - w*|| <= ||grad J(w)||/lambda`` in arb; at precision above 64 bits, ``w`` is
    first refined by arb Newton steps); ``F(y)`` is the arb value ``sigmoid(<w, y>)`` with
    radius increased by ``||y|| ||w - w*|| / 4``.

    Guarantee
    ---------
    ``S(F)`` rigorous upper bound (arb); values are rigorous balls around the exact
    ``F_D(y)`` (cost: ``O(n l)`` arb operations per gradient).
    """
    lm = to_fmpq(lam, "lam")
    if lm <= 0:
        raise InvalidParameterError(f"lam must be > 0, got {fmpq_str(lm)}")
    dim = check_int(dim, "dim", minimum=1, maximum=4)
    with ctx.workprec(128):
        c2 = _upper(arb(2).log() / (3 * arb(3).sqrt() * arb(lm)))

    def func(data: Any, ys: Any) -> list:
        X = np.asarray(data, dtype=np.float64)
        refine = 0 if ctx.prec <= 64 else max(1, int(math.log2(ctx.prec / 53)) + 1)
        cert = certify_logistic(X, lm, refine=refine)
        w, r = cert["w"], arb(cert["radius"])
        out = []
        for y in ys:
            ya = [_as_arb(v) for v in y]
            t = sum((w[j] * ya[j] for j in range(dim)), arb(0))
            ynorm = sum((v * v for v in ya), arb(0)).sqrt()
            val = 1 / (1 + (-t).exp())
            extra = _upper(ynorm * r / 4)
            out.append(val + arb(0, extra))
        return out

    def sample(n: int, g: Any) -> np.ndarray:
        d = g.normal(size=(n, dim))
        d /= np.maximum(1.0, np.linalg.norm(d, axis=1))[:, None] * 1.0000001
        d[: max(1, n // 4)] = np.abs(d[: max(1, n // 4)])
        lab = g.choice([-1.0, 1.0], size=n)
        return np.column_stack([d, lab])

    def validate(data: np.ndarray) -> None:
        if data.ndim != 2 or data.shape[1] != dim + 1:
            raise InvalidParameterError(
                f"data must have {dim + 1} columns (features, label), got {data.shape[1]}")
        if not np.all(np.isfinite(data)):
            raise InvalidParameterError("data values must be finite")
        check_box(data[:, dim], -1.0, 1.0, "data label")
        sq = (data[:, :dim] ** 2).sum(axis=1)
        for i in np.nonzero(sq > 1 - 1e-9)[0]:  # decide near-boundary rows exactly
            exact_sq = sum((_float_fmpq(v) ** 2 for v in data[i, :dim]), fmpq(0))
            if exact_sq > 1:
                raise InvalidParameterError(
                    f"data feature rows must have ||d||_2 <= 1 (row {int(i) + 1}: exact "
                    f"||d||^2 - 1 = {float(exact_sq - 1):.3g}, the CSV floats taken "
                    "exactly); rescale the features, e.g. by (1 - 1e-12)/max norm")

    return _builtin(FunctionQuery(
        name="logistic",
        func=func,
        sensitivity=lambda n: logistic_sensitivity(n, dim, lm),
        add_remove_sensitivity=lambda n: logistic_sensitivity(n, dim, lm,
                                                              neighbours="add-remove"),
        dim=dim,
        sample_rows=sample,
        params={"lambda": fmpq_str(lm), "dim": dim},
        second_derivative_bound=lambda n: c2,
        validate=validate,
        notes="S(F) <= sqrt(l)/(2 n lambda) (Chaudhuri-Monteleoni stability + sigmoid "
        "1/4-Lipschitz; = alda2017 Appendix G's C sqrt(l)/(2n) with C = 1/lambda); "
        "add/remove: sqrt(l) (1 + sqrt(2 lambda ln 2))/(4 (n+1) lambda)",
        evaluation="ball",
    ))

