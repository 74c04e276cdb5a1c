"""The Bernstein mechanism (alda2017 Algorithm 1, Theorems 3 and 7) with exact accounting.

Mechanism
---------
Sanitiser: evaluate the user function ``F(D, y)`` on the lattice ``P = {0, 1/k, ..., 1}^l``
(``m = (k+1)^l`` points), round every value to the grid ``g Z`` (exact rationals), add
independent discrete Laplace noise ``g * DLap(lambda / g)`` (exact sampler, no floats) and
publish the noisy lattice values.  Evaluator (public, no data): the iterated Bernstein
polynomial ``sum_nu F~(nu/k) prod_i b^{(h)}_{nu_i,k}(y_i)`` -- the nested (tensor) sum;
alda2017 Algorithm 1 line 11 prints ``sum_{j=1}^{l} sum_{nu_j}``, a misprint (docs/bernstein.md).
Its Bernstein coefficients ``M F~`` (``M`` of Definition 8 along every axis) are computed
exactly; evaluation is exact at rational ``y`` and by de Casteljau in float64 otherwise.

Sensitivity (derived here, one row replaced, same n)
----------------------------------------------------
Each lattice value is ``F(., p)``, whose sensitivity is at most ``S(F)`` (alda2017 §2:
``S(F) = sup_y S(F(., y))``).  The L1 sensitivity of the vector of the ``m`` values is
therefore ``<= m S(F)``, and this is attained (e.g. ``F(D, y) = mean(D)``, which moves by
``S(F)`` at every lattice point at once), so ``lambda = S(F) (k+1)^l / epsilon`` of
Algorithm 1 line 4 is the right pure-epsilon scale.  Rounding to ``g Z`` adds at most ``g``
per coordinate and a floating-point evaluation error below ``g/2`` (assumed; ``g >= 2^-40``
is ~10^4 ulps of a value of size 1) another ``g``: the perturbed vector has
``Delta_1 <= m (S(F) + 2g)``, which is what the scale uses.

``(epsilon, delta)`` (Theorem 7): coordinate ``nu`` alone is ``eps0 = (S + 2g)/lambda``-DP;
advanced composition of ``m`` of them (Dwork-Rothblum-Vadhan 2010) is
``(sqrt(2 m ln(1/delta)) eps0 + m eps0 (e^{eps0} - 1), delta)``-DP.  The printed
``lambda_delta = 2 S sqrt(2 m ln(1/delta)) / epsilon`` makes the first term ``epsilon/2``;
the certificate computes the achieved epsilon (rigorous upper bound, arb) and the mechanism
uses the smaller of the pure scale and the smallest advanced-composition scale on a dyadic
search (never a scale whose certified epsilon exceeds the target).

Accuracy (certified alpha(beta))
--------------------------------
``sup_y |sum_nu Z_nu prod b^{(h)}_{nu_i}(y_i)| <= Lambda_{k,h}^l max_nu |Z_nu|`` with
``Lambda_{k,h}`` the certified Lebesgue constant (:mod:`dpverify.certify.lebesgue`), and
``P(max |Z| > lambda ln(2m/beta)) <= beta`` (union bound; the discrete Laplace tail is
``P(|Z| > s) <= 2 e^{-s/lambda} / (1 + e^{-g/lambda}) ``).  Rounding adds
``Lambda^l g``.  The approximation term ``sup |F_D - B^{(h)} F_D|`` is data-dependent; for
``h = 1`` and a declared bound ``C2 >= sup |d^2 F / d y_i^2|`` it is ``<= l C2 / (8k)``
(``B_k f(y) - f(y) = E f(X/k) - f(y)`` with independent binomial coordinates, Taylor to
second order); otherwise it is reported as not certified.  (alda2017 Proposition 4 / 11 as
stated put ``max_y`` inside the probability without the ``log m`` factor: false, see
docs/bernstein.md; the union bound above is the correct uniform statement.)

Guarantee
---------
Sensitivities, scales and achieved epsilons are exact rationals or rigorous upper bounds
(arb); noise is exact discrete Laplace on ``g Z`` from the OS CSPRNG unless
``insecure_seed`` is given.  The declared ``S(F)`` of a user function is an *assumption*
that :func:`check_sensitivity` tests on random public neighbouring databases (exactly when
the function returns exact numbers); a violation raises ``InvalidParameterError``.
References: alda2017 Algorithm 1, Definitions 6-9, Theorems 3, 5, 7, §6.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from fractions import Fraction
from itertools import product
from typing import Any

import numpy as np
from flint import arb, ctx, fmpq, fmpz

from ..errors import InvalidParameterError, ParameterTypeError
from ..noise import RandomSource, discrete_laplace
from ..numbers import arb_to_fmpq_bounds, check_int, fmpq_str, fmpq_to_decimal, to_fmpq
from .privacy import laplace_advanced_composition, laplace_privacy

__all__ = [
    "DEFAULT_GRID",
    "FunctionQuery",
    "kde_query",
    "priestley_chao_query",
    "linear_mean_query",
    "lattice_points",
    "lattice_sensitivity",
    "pure_scale",
    "advanced_composition_epsilon",
    "delta_scale",
    "check_sensitivity",
    "BernsteinRelease",
    "release_bernstein",
    "bernstein_accuracy",
]

#: Default noise grid 2^-40 (values are released as exact multiples of it).
DEFAULT_GRID = fmpq(1, 2**40)
#: Largest lattice (number of points) released.
MAX_LATTICE = 50_000


# ------------------------------------------------------------------------------ noise


def _rng(insecure_seed: Any) -> RandomSource:
    """OS CSPRNG by default; a seeded integer generator only when asked explicitly."""
    return RandomSource(None if insecure_seed is None else int(insecure_seed))


def sample_discrete_laplace(scale: Any, grid: Any, rng: RandomSource) -> fmpq:
    """``grid * DLap(scale / grid)``: P(Z = j g) proportional to ``exp(-|j| g / scale)``.

    Exact (:func:`dpverify.noise.discrete_laplace`, integer arithmetic only).
    """
    scale, grid = to_fmpq(scale, "scale"), to_fmpq(grid, "grid")
    return grid * discrete_laplace(scale / grid, rng=rng)


def round_to_grid(value: Any, grid: fmpq) -> fmpq:
    """Nearest multiple of ``grid`` (ties up) of a float/exact value, exactly."""
    if isinstance(value, (float, np.floating)):
        if not math.isfinite(float(value)):
            raise InvalidParameterError(f"function value must be finite, got {value!r}")
        fr = Fraction(float(value))
        v = fmpq(fr.numerator, fr.denominator)
    else:
        v = to_fmpq(value, "function value")
    m = v / grid
    j = (m.p * 2 + m.q) // (2 * m.q)
    return grid * fmpz(j)


# ------------------------------------------------------------------------ accounting


def _upper(x: arb) -> fmpq:
    return arb_to_fmpq_bounds(x)[1]


def lattice_points(k: int, dim: int) -> np.ndarray:
    """Row-major lattice ``{0, 1/k, ..., 1}^dim`` as a float array of shape (m, dim)."""
    grid1 = np.arange(k + 1) / k
    return np.array(list(product(grid1, repeat=dim)), dtype=np.float64).reshape(-1, dim)


def lattice_sensitivity(sensitivity: Any, k: Any, dim: Any, grid: Any = DEFAULT_GRID) -> dict:
    """Exact L1 sensitivity of the rounded lattice vector (one row replaced).

    ``Delta_1 = (k+1)^l (S + 2 g)`` (per coordinate ``S`` plus rounding ``g`` plus float
    slack ``g``); the paper's Algorithm 1 line 4 uses ``(k+1)^l S`` (no rounding).
    Exact fmpq.
    """
    S = to_fmpq(sensitivity, "sensitivity")
    k = check_int(k, "k", minimum=1)
    dim = check_int(dim, "dim", minimum=1, maximum=4)
    g = to_fmpq(grid, "grid")
    m = (k + 1) ** dim
    return {
        "points": m,
        "per_coordinate": fmpq_str(S + 2 * g),
        "l1": fmpq_str(m * (S + 2 * g)),
        "l1_without_rounding": fmpq_str(m * S),
        "linf": fmpq_str(S + 2 * g),
    }


def pure_scale(l1: Any, epsilon: Any) -> fmpq:
    """Laplace scale ``Delta_1 / epsilon`` (exact); achieves exactly epsilon-DP."""
    return to_fmpq(l1, "l1") / to_fmpq(epsilon, "epsilon")


def advanced_composition_epsilon(eps0: Any, m: int, delta: Any) -> fmpq:
    """Rigorous upper bound (fmpq) of ``sqrt(2 m ln(1/delta)) eps0 + m eps0 (e^eps0 - 1)``
    (Dwork-Rothblum-Vadhan 2010, advanced composition of m eps0-DP mechanisms)."""
    e0, d = to_fmpq(eps0, "eps0"), to_fmpq(delta, "delta")
    with ctx.workprec(128):
        a0 = arb(e0)
        val = (2 * m * (1 / arb(d)).log()).sqrt() * a0 + m * a0 * (a0.exp() - 1)
    return _upper(val)


def delta_scale(per_coordinate: Any, m: int, epsilon: Any, delta: Any) -> dict:
    """Scales for (epsilon, delta)-DP of ``m`` Laplace coordinates of sensitivity ``S'``.

    Returns the printed Theorem 7 scale ``2 S' sqrt(2 m ln(1/delta)) / epsilon`` (rounded
    up to a dyadic rational) with its certified achieved epsilon, the pure scale
    ``m S' / epsilon``, and the smallest scale of the form ``S' / eps0`` (``eps0`` on a
    2^-30-relative bisection) whose advanced-composition epsilon is ``<= epsilon``;
    ``"used"`` is the smallest scale whose certified epsilon is ``<= epsilon``.
    """
    S = to_fmpq(per_coordinate, "per_coordinate")
    eps, dl = to_fmpq(epsilon, "epsilon"), to_fmpq(delta, "delta")
    with ctx.workprec(128):
        printed = _upper(2 * arb(S) * (2 * m * (1 / arb(dl)).log()).sqrt() / arb(eps))
    printed = _dyadic_up(printed)
    printed_eps = advanced_composition_epsilon(S / printed, m, dl)
    pure = m * S / eps
    lo, hi = fmpq(0), eps  # eps0 in [lo, hi]: f(lo) <= eps; find largest eps0 with f <= eps
    if advanced_composition_epsilon(hi, m, dl) <= eps:
        lo = hi
    else:
        for _ in range(40):
            mid = (lo + hi) / 2
            if advanced_composition_epsilon(mid, m, dl) <= eps:
                lo = mid
            else:
                hi = mid
    best = S / lo if lo > 0 else None
    candidates = [("pure", pure, m * S / pure)]
    if printed_eps <= eps:
        candidates.append(("theorem7", printed, printed_eps))
    if best is not None:
        candidates.append(
            ("advanced_composition", best, advanced_composition_epsilon(lo, m, dl))
        )
    name, used, used_eps = min(candidates, key=lambda c: c[1])
    return {
        "theorem7_printed_scale": fmpq_str(printed),
        "theorem7_achieved_epsilon_upper": fmpq_str(printed_eps),
        "theorem7_valid": bool(printed_eps <= eps),
        "pure_scale": fmpq_str(pure),
        "advanced_composition_scale": fmpq_str(best) if best is not None else None,
        "used": name,
        "scale": used,
        "achieved_epsilon_upper": used_eps,
        "composition": "pure: Laplace mechanism on the L1 sensitivity; otherwise advanced "
        "composition (Dwork-Rothblum-Vadhan 2010) of m coordinates",
    }


def calibrate_laplace(per_coordinate: Any, m: int, epsilon: Any, delta: Any = None) -> tuple:
    """Noise scale for ``m`` Laplace coordinates of L-infinity sensitivity ``per_coordinate``
    (L1 ``m * per_coordinate``) and the privacy fields that certify it.

    Pure epsilon: scale ``m S'/epsilon`` (exactly epsilon).  With ``delta``: the smallest
    scale of :func:`delta_scale` whose certified epsilon is ``<= epsilon``.  Returns
    ``(scale, fields)`` with ``epsilon``, ``scale``, ``achieved_epsilon`` and ``certificate``
    (and the :func:`delta_scale` comparison when ``delta`` is given), exact strings.
    """
    per = to_fmpq(per_coordinate, "per_coordinate")
    eps = to_fmpq(epsilon, "epsilon")
    if eps <= 0:
        raise InvalidParameterError(f"epsilon must be > 0, got {fmpq_str(eps)}")
    if delta is None:
        scale = pure_scale(m * per, eps) if m else fmpq(1)
        return scale, {
            "epsilon": fmpq_str(eps), "scale": fmpq_str(scale),
            "achieved_epsilon": fmpq_str(m * per / scale), "composition": "none (L1 Laplace)",
            "certificate": laplace_privacy(m * per, scale),
        }
    dl = to_fmpq(delta, "delta")
    if not 0 < dl < 1:
        raise InvalidParameterError(f"delta must be in (0, 1), got {fmpq_str(dl)}")
    ds = delta_scale(per, max(m, 1), eps, dl)
    scale = ds.pop("scale")
    ach = ds.pop("achieved_epsilon_upper")
    fields = dict(ds)
    fields.update({"epsilon": fmpq_str(eps), "delta": fmpq_str(dl), "scale": fmpq_str(scale),
                   "achieved_epsilon": fmpq_str(ach)})
    fields["certificate"] = (
        laplace_privacy(m * per, scale) if ds["used"] == "pure"
        else laplace_advanced_composition(per, scale, max(m, 1), dl)
    )
    return scale, fields


def _dyadic_up(q: fmpq, bits: int = 64) -> fmpq:
    """Smallest multiple of 2^-bits that is >= q (keeps denominators small)."""
    m = q * 2**bits
    return fmpq(-((-m.p) // m.q), 2**bits)


# --------------------------------------------------------------------------- queries


@dataclass(frozen=True)
class FunctionQuery:
    """A user function ``F(D, y)`` with a declared sensitivity (alda2017 §2).

    Attributes
    ----------
    name : str
    func : callable
        ``func(data, ys) -> values``: data array ``(n, c)``, query points ``(p, l)`` in
        ``[0,1]^l``; returns ``p`` values (floats, or exact numbers for an exact check).
    sensitivity : callable
        ``sensitivity(n) -> fmpq``: declared ``S(F) = sup_y sup_{D ~ D'} |F(D,y)-F(D',y)|``
        for databases of ``n`` rows (an upper bound; exact rational).
    dim : int
        ``l`` (query dimension).
    sample_rows : callable
        ``sample_rows(n, np_rng) -> (n, c)`` array: random *public* rows of the declared data
        domain, used only by :func:`check_sensitivity` (never the private data).
    second_derivative_bound : callable or None
        ``n -> fmpq`` upper bound of ``sup |d^2 F / d y_i^2|`` (for the h = 1 accuracy term).
    validate : callable or None
        ``validate(data)`` raises ``InvalidParameterError`` if the data leave the domain.
    """

    name: str
    func: Callable[[np.ndarray, np.ndarray], Any]
    sensitivity: Callable[[int], fmpq]
    dim: int
    sample_rows: Callable[[int, Any], np.ndarray]
    params: dict = field(default_factory=dict)
    second_derivative_bound: Callable[[int], fmpq] | None = None
    validate: Callable[[np.ndarray], None] | None = None
    notes: str = ""


def _gauss_density_bounds(dim: int, b: fmpq) -> tuple[arb, arb]:
    """(K(0), K(1,...,1)) of the product Gaussian kernel, covariance b^2 I, as arb."""
    with ctx.workprec(128):
        pi2 = 2 * arb.pi()
        k0 = 1 / (pi2 ** (arb(dim) / 2) * arb(b) ** dim)
        k1 = k0 * (-arb(dim) / (2 * arb(b) ** 2)).exp()
    return k0, k1


def kde_query(bandwidth: Any, dim: Any = 1) -> FunctionQuery:
    """Gaussian kernel density estimator ``F(D, y) = (1/n) sum_i K_H(y - d_i)``, ``H = b^2 I``.

    Sensitivity (derived): one row ``d -> d'`` changes ``F(., y)`` by
    ``|K_H(y-d) - K_H(y-d')| / n``; for ``y, d, d'`` in ``[0,1]^l`` the difference ranges
    over ``[-1,1]^l`` and the radial kernel is extreme at 0 and at a corner, so
    ``S(F) = (K_H(0) - K_H(1,...,1)) / n = (1 - e^{-l/(2b^2)}) / (n (2 pi)^{l/2} b^l)``
    exactly (attained at ``y = d = 0``, ``d' = 1``).  alda2017 §6 prints the upper bound
    ``1 / (n sqrt((2 pi)^l det H))``, valid (looser by the factor ``1 - e^{-l/(2b^2)}``).
    Second derivatives: ``|d^2 K_H / d y_i^2| <= K_H(0) / b^2``.
    Guarantee: the returned sensitivity is a rigorous upper bound (arb, rounded up).
    """
    b = to_fmpq(bandwidth, "bandwidth")
    if b <= 0:
        raise InvalidParameterError(f"bandwidth must be > 0, got {fmpq_str(b)}")
    dim = check_int(dim, "dim", minimum=1, maximum=4)
    bf = float(b)
    k0, k1 = _gauss_density_bounds(dim, b)
    s_num = _upper(k0 - k1)
    c2 = _upper(k0 / arb(b) ** 2)

    def func(data: np.ndarray, ys: np.ndarray) -> np.ndarray:
        out = np.empty(len(ys))
        norm = (2 * math.pi) ** (dim / 2) * bf**dim
        for i0 in range(0, len(ys), 256):
            y = ys[i0 : i0 + 256]
            d2 = ((y[:, None, :] - data[None, :, :dim]) ** 2).sum(axis=2)
            out[i0 : i0 + 256] = np.exp(-d2 / (2 * bf * bf)).mean(axis=1) / norm
        return out

    def sample(n: int, g: Any) -> np.ndarray:
        x = g.uniform(0.0, 1.0, size=(n, dim))
        # include corner rows so that extreme neighbours are tried
        x[: max(1, n // 4)] = g.integers(0, 2, size=(max(1, n // 4), dim))
        return x

    def validate(data: np.ndarray) -> None:
        _check_box(data[:, :dim], 0.0, 1.0, "data")

    return FunctionQuery(
        name="kde",
        func=func,
        sensitivity=lambda n: s_num / n,
        dim=dim,
        sample_rows=sample,
        params={"bandwidth": fmpq_str(b), "dim": dim, "kernel": "gaussian, covariance b^2 I"},
        second_derivative_bound=lambda n: c2,
        validate=validate,
        notes="S(F) = (K(0) - K(1,..,1))/n exactly; alda2017 §6 prints 1/(n (2pi)^{l/2} b^l)",
    )


def _check_box(a: np.ndarray, lo: float, hi: float, name: str) -> None:
    if a.size and (not np.all(np.isfinite(a)) or a.min() < lo or a.max() > hi):
        raise InvalidParameterError(f"{name} values must lie in [{lo:g}, {hi:g}]")


def priestley_chao_query(bandwidth: Any, label_bound: Any, gap: Any) -> FunctionQuery:
    """Priestley-Chao kernel regression (alda2017 §6), l = 1, Gaussian kernel.

    ``F_b(D, y) = (1/b) sum_{i=2}^{n} (d_i - d_{i-1}) K((y - d_i)/b) l_i`` over rows
    ``(d_i, l_i)`` in ``[0,1] x [-B, B]`` sorted by ``d``, ``K`` the standard normal density.

    Data domain: **every consecutive gap** ``d_i - d_{i-1} <= c/n`` (``gap = c``).  The paper
    only requires each point to have *some* other point within ``c/n``; under that weaker
    condition its bound ``4Bc/(nb) sup K`` is false (a removed point can carry a long gap,
    see docs/mechanisms.md and the test).  Derivation: removing ``d_j`` changes ``F`` by
    ``(d_j - d_{j-1})(K_{j+1} l_{j+1} - K_j l_j)/b``, at most ``(c/n) 2B K(0)/b``; inserting
    costs the same; so ``S(F) <= 4 B c K(0) / (n b)``, ``K(0) = 1/sqrt(2 pi)``.
    Guarantee: rigorous upper bound (arb, rounded up) under the consecutive-gap domain.
    """
    b = to_fmpq(bandwidth, "bandwidth")
    B = to_fmpq(label_bound, "label_bound")
    c = to_fmpq(gap, "gap")
    for nm, v in (("bandwidth", b), ("label_bound", B), ("gap", c)):
        if v <= 0:
            raise InvalidParameterError(f"{nm} must be > 0, got {fmpq_str(v)}")
    bf, Bf, cf = float(b), float(B), float(c)
    with ctx.workprec(128):
        k0 = 1 / (2 * arb.pi()).sqrt()
        s_num = _upper(4 * arb(B) * arb(c) * k0 / arb(b))

    def func(data: np.ndarray, ys: np.ndarray) -> np.ndarray:
        order = np.argsort(data[:, 0], kind="stable")
        d, lab = data[order, 0], data[order, 1]
        gaps = np.diff(d)
        z = (ys[:, :1] - d[None, 1:]) / bf
        kern = np.exp(-0.5 * z * z) / math.sqrt(2 * math.pi)
        return (kern * (gaps * lab[1:])[None, :]).sum(axis=1) / bf

    def sample(n: int, g: Any) -> np.ndarray:
        steps = g.uniform(0.0, cf / n, size=n)
        d = np.cumsum(steps)
        d = d - d[0] + g.uniform(0.0, max(0.0, 1.0 - d[-1] + d[0]))
        lab = g.choice([-Bf, Bf], size=n)
        return np.column_stack([np.clip(d, 0.0, 1.0), lab])

    def validate(data: np.ndarray) -> None:
        if data.ndim != 2 or data.shape[1] < 2:
            raise InvalidParameterError("data must have two columns (d, label)")
        _check_box(data[:, 0], 0.0, 1.0, "data column d")
        _check_box(data[:, 1], -Bf, Bf, "data column label")
        n = len(data)
        if n > 1 and np.diff(np.sort(data[:, 0])).max() > cf / n:
            raise InvalidParameterError(
                f"data violate the public domain: a consecutive gap exceeds c/n = {cf / n:g}"
            )

    return FunctionQuery(
        name="priestley-chao",
        func=func,
        sensitivity=lambda n: s_num / n,
        dim=1,
        sample_rows=sample,
        params={"bandwidth": fmpq_str(b), "label_bound": fmpq_str(B), "gap": fmpq_str(c)},
        validate=validate,
        notes="S(F) <= 4Bc K(0)/(nb) under consecutive gaps <= c/n (stronger than the "
        "paper's 'some neighbour within c/n', under which the bound fails)",
    )


def linear_mean_query(dim: Any = 1) -> FunctionQuery:
    """``F(D, y) = sum_i mean(D[:, i]) y_i`` on rows in ``[0,1]^c`` (c = dim): linear in y, so
    ``B_k^{(h)} F = F`` exactly (alda2017 Theorem 3 (iii)); ``S(F) = l/n`` exactly
    (attained at ``y = 1``, a row moving from 0 to 1).  Exact when data are exact."""
    dim = check_int(dim, "dim", minimum=1, maximum=4)

    def func(data: Any, ys: Any) -> Any:
        if isinstance(data, np.ndarray) and data.dtype != object:
            return ys @ data[:, :dim].mean(axis=0)
        n = len(data)
        means = [sum((row[i] for row in data), fmpq(0)) / n for i in range(dim)]
        return [sum((means[i] * y[i] for i in range(dim)), fmpq(0)) for y in ys]

    return FunctionQuery(
        name="linear-mean",
        func=func,
        sensitivity=lambda n: fmpq(dim, n),
        dim=dim,
        sample_rows=lambda n, g: g.integers(0, 2, size=(n, dim)).astype(np.float64),
        params={"dim": dim},
        second_derivative_bound=lambda n: fmpq(0),
        validate=lambda data: _check_box(np.asarray(data, float)[:, :dim], 0.0, 1.0, "data"),
    )


def check_sensitivity(
    query: FunctionQuery, n: Any, k: Any, *, trials: int = 20, seed: int = 0
) -> dict:
    """Test the declared ``S(F)`` on random *public* neighbouring databases.

    For ``trials`` random databases of ``n`` rows (``query.sample_rows``) and a neighbour
    (one random row replaced by a random row), compute ``max_p |F(D,p) - F(D',p)|`` over
    the lattice.  Exact comparison when ``func`` returns exact numbers, else float64 with a
    relative slack of 1e-9.

    Guarantee
    ---------
    A test, not a proof: passing means no violation was found.  A violation raises
    ``InvalidParameterError`` with the witness.  Never touches the private data.
    """
    n = check_int(n, "n", minimum=2)
    k = check_int(k, "k", minimum=1)
    declared = to_fmpq(query.sensitivity(n), "sensitivity")
    g = np.random.default_rng(seed)  # public synthetic databases, not privacy noise
    pts = lattice_points(k, query.dim)
    worst = 0.0
    worst_exact = fmpq(0)
    exact_seen = False
    for _ in range(trials):
        D = query.sample_rows(n, g)
        D2 = D.copy()
        D2[g.integers(n)] = query.sample_rows(n, g)[g.integers(n)]
        a, b = query.func(D, pts), query.func(D2, pts)
        if len(a) and isinstance(a[0], (fmpq, int, Fraction)):
            exact_seen = True
            diff = max(abs(to_fmpq(x, "F") - to_fmpq(y, "F")) for x, y in zip(a, b, strict=True))
            worst_exact = max(worst_exact, diff)
            if diff > declared:
                raise InvalidParameterError(
                    f"declared sensitivity {fmpq_str(declared)} of {query.name!r} is violated: "
                    f"a neighbouring pair moves a lattice value by {fmpq_str(diff)}"
                )
        else:
            diff_f = float(np.max(np.abs(np.asarray(a, float) - np.asarray(b, float))))
            worst = max(worst, diff_f)
            if diff_f > float(declared) * (1 + 1e-9):
                raise InvalidParameterError(
                    f"declared sensitivity {float(declared):.6g} of {query.name!r} is violated: "
                    f"a neighbouring pair moves a lattice value by {diff_f:.6g}"
                )
    return {
        "trials": trials,
        "declared": fmpq_str(declared),
        "max_observed": fmpq_str(worst_exact) if exact_seen else f"{worst:.17g}",
        "exact": exact_seen,
        "passed": True,
    }


# --------------------------------------------------------------------------- release


@dataclass(frozen=True)
class BernsteinRelease:
    """The published output: noisy lattice values and the public evaluator.

    ``values`` are row-major over ``{0,1/k,..,1}^l`` (exact multiples of ``grid``);
    ``coefficients`` the exact Bernstein coefficients ``M F~`` (axis by axis).
    """

    k: int
    h: int
    dim: int
    grid: fmpq
    values: tuple[fmpq, ...]
    coefficients: tuple[fmpq, ...]
    privacy: dict
    info: dict = field(default_factory=dict)

    def _float_coeffs(self) -> np.ndarray:
        return np.array([float(c) for c in self.coefficients]).reshape((self.k + 1,) * self.dim)

    def evaluate(self, ys: Any) -> np.ndarray:
        """Float64 values at points ``ys`` (shape ``(p, l)`` or ``(p,)`` for l = 1) by de
        Casteljau along each axis.  Heuristic float64 (backward stable), no promise."""
        from ..fast.bernstein import de_casteljau

        y = np.asarray(ys, dtype=np.float64)
        if y.ndim == 1:
            y = y.reshape(-1, 1) if self.dim == 1 else y.reshape(1, -1)
        if y.shape[1] != self.dim:
            raise InvalidParameterError(f"points must have {self.dim} coordinates")
        if y.size and (not np.all(np.isfinite(y)) or y.min() < 0 or y.max() > 1):
            raise InvalidParameterError("query points must lie in [0, 1]^l")
        C = self._float_coeffs()
        if self.dim == 1:
            return de_casteljau(C, y[:, 0])
        out = np.empty(len(y))
        for i, pt in enumerate(y):
            c = C
            for ax in range(self.dim):
                c = de_casteljau(c.reshape(self.k + 1, -1), [pt[ax]])[0]
            out[i] = float(np.asarray(c).reshape(()))
        return out

    def evaluate_exact(self, y: Any) -> fmpq:
        """Exact value at a rational point (``TensorPoly`` / ``BernsteinPoly`` evaluation)."""
        pt = [to_fmpq(v, f"y[{i}]") for i, v in enumerate(_as_list(y, self.dim))]
        for v in pt:
            if v < 0 or v > 1:
                raise InvalidParameterError("query points must lie in [0, 1]^l")
        return self.poly()(*pt)

    def poly(self) -> Any:
        from ..exact import BernsteinPoly, TensorPoly

        if self.dim == 1:
            return BernsteinPoly(list(self.coefficients))
        return TensorPoly.from_flat(
            list(self.coefficients), [self.k + 1] * self.dim, basis="bernstein",
            domains=[(0, 1)] * self.dim,
        )

    def to_json(self) -> dict:
        return {
            "mechanism": "bernstein",
            "reference": "alda2017 Algorithm 1",
            "k": self.k,
            "h": self.h,
            "dim": self.dim,
            "grid": fmpq_str(self.grid),
            "lattice": "row-major over {0, 1/k, ..., 1}^l",
            "values": [fmpq_str(v) for v in self.values],
            "basis": "bernstein",
            "coefficients": [fmpq_str(c) for c in self.coefficients],
            "privacy": self.privacy,
            **self.info,
        }

    @classmethod
    def from_json(cls, obj: dict) -> BernsteinRelease:
        from ..numbers import parse_fmpq_str

        try:
            k, h, dim = int(obj["k"]), int(obj["h"]), int(obj["dim"])
            vals = tuple(parse_fmpq_str(v, "values") for v in obj["values"])
            coeffs = tuple(parse_fmpq_str(v, "coefficients") for v in obj["coefficients"])
            grid = parse_fmpq_str(obj["grid"], "grid")
        except (KeyError, TypeError, ValueError) as exc:
            raise InvalidParameterError(f"not a Bernstein release summary: {exc}") from None
        if len(vals) != (k + 1) ** dim or len(coeffs) != (k + 1) ** dim:
            raise InvalidParameterError("summary: values/coefficients have the wrong length")
        return cls(k, h, dim, grid, vals, coeffs, obj.get("privacy", {}))


def _as_list(y: Any, dim: int) -> list:
    if isinstance(y, (list, tuple)):
        if len(y) != dim:
            raise InvalidParameterError(f"point must have {dim} coordinates, got {len(y)}")
        return list(y)
    if dim != 1:
        raise InvalidParameterError(f"point must have {dim} coordinates")
    return [y]


def _coefficients(values: list[fmpq], k: int, h: int, dim: int) -> list[fmpq]:
    from ..constructions.bernstein import iterated_bernstein_coefficients, iterated_bernstein_tensor

    if dim == 1:
        return list(iterated_bernstein_coefficients(values, k, h))
    arr = np.empty(len(values), dtype=object)
    arr[:] = values
    nested = arr.reshape((k + 1,) * dim).tolist()
    return list(iterated_bernstein_tensor(nested, [k] * dim, h).coeffs)


def release_bernstein(
    data: Any,
    query: FunctionQuery,
    k: Any,
    h: Any,
    epsilon: Any,
    *,
    delta: Any = None,
    grid: Any = DEFAULT_GRID,
    check: bool = True,
    insecure_seed: Any = None,
) -> BernsteinRelease:
    """Run alda2017 Algorithm 1 on ``data`` with the correct noise scale.

    Parameters
    ----------
    data : array (n, c)
        Private rows (validated against the query's public domain).
    query : FunctionQuery
    k, h : int
        Lattice order (``(k+1)^l <= 50000``) and iteration order.
    epsilon : exact number > 0
    delta : exact number in (0, 1), optional
        (epsilon, delta)-DP via advanced composition (Theorem 7); the smallest certified
        scale is used.
    grid : exact number > 0
        Noise/rounding grid ``g`` (default ``2^-40``).
    check : bool
        Run :func:`check_sensitivity` (public synthetic neighbours) first.
    insecure_seed : int, optional
        Seeded noise for tests/experiments only (NOT private).

    Returns
    -------
    BernsteinRelease
        ``privacy`` holds the sensitivity derivation, scale and achieved epsilon.

    Guarantee
    ---------
    epsilon-DP (resp. (epsilon, delta)-DP) provided the declared ``S(F)`` holds and
    the float evaluation error of ``F`` is below ``g/2``; the achieved epsilon is exact
    (pure) or a rigorous upper bound (advanced composition).  alda2017 Algorithm 1.
    """
    k = check_int(k, "k", minimum=1)
    from ..constructions.bernstein import MAX_H

    h = check_int(h, "h", minimum=1, maximum=MAX_H)
    eps = to_fmpq(epsilon, "epsilon")
    if eps <= 0:
        raise InvalidParameterError(f"epsilon must be > 0, got {fmpq_str(eps)}")
    g = to_fmpq(grid, "grid")
    if g <= 0 or g > fmpq(1, 1024):
        raise InvalidParameterError(f"grid must be in (0, 1/1024], got {fmpq_str(g)}")
    if not isinstance(query, FunctionQuery):
        raise ParameterTypeError("query must be a FunctionQuery")
    l = query.dim
    m = (k + 1) ** l
    if m > MAX_LATTICE:
        raise InvalidParameterError(f"lattice (k+1)^l = {m} exceeds {MAX_LATTICE}")
    D = np.asarray(data, dtype=np.float64)
    if D.ndim == 1:
        D = D.reshape(-1, 1)
    n = len(D)
    if n < 2:
        raise InvalidParameterError(f"data must have at least 2 rows, got {n}")
    if query.validate is not None:
        query.validate(D)
    S = to_fmpq(query.sensitivity(n), "sensitivity")
    sens = lattice_sensitivity(S, k, l, g)
    checked = check_sensitivity(query, n, k) if check else None
    per = S + 2 * g
    privacy: dict[str, Any] = {
        "neighbouring": "same n, one row replaced",
        "function_sensitivity": fmpq_str(S),
        "function_sensitivity_note": query.notes,
        "lattice_sensitivity": sens,
        "sensitivity_check": checked,
        "noise": "discrete Laplace on grid g (exact sampler)",
        "paper_scale_algorithm1": fmpq_str(S * m / eps),
    }
    scale, fields = calibrate_laplace(per, m, eps, delta)
    privacy.update(fields)
    rng = _rng(insecure_seed)
    raw = np.asarray(query.func(D, lattice_points(k, l)), dtype=np.float64)
    noisy = [round_to_grid(v, g) + sample_discrete_laplace(scale, g, rng) for v in raw]
    coeffs = _coefficients(noisy, k, h, l)
    info = {"function": query.name, "function_params": query.params, "n": n}
    if insecure_seed is not None:
        info["insecure_seed"] = int(insecure_seed)
    return BernsteinRelease(k, h, l, g, tuple(noisy), tuple(coeffs), privacy, info)


def bernstein_accuracy(
    release: BernsteinRelease, beta: Any, *, query: FunctionQuery | None = None,
    n: int | None = None, rtol: Any = "1e-6",
) -> dict:
    """Certified ``alpha(beta)`` for ``sup_y |release(y) - F_D(y)|``.

    ``alpha = Lambda_{k,h}^l (lambda ln(2m/beta) + g) + approx`` where ``Lambda`` is the
    certified Lebesgue constant (upper end), ``approx = l C2/(8k)`` for ``h = 1`` when the
    query declares a second-derivative bound ``C2``; otherwise the approximation term is
    reported as not certified and ``alpha`` covers the noise part only.

    Guarantee
    ---------
    With probability ``>= 1 - beta`` over the noise the stated bound holds (rigorous upper
    bound, arb rounded up).  Union bound over the ``m`` lattice noises.
    """
    from ..certify.lebesgue import lebesgue_constant

    b = to_fmpq(beta, "beta")
    if not 0 < b < 1:
        raise InvalidParameterError(f"beta must be in (0, 1), got {fmpq_str(b)}")
    k, h, l = release.k, release.h, release.dim
    m = (k + 1) ** l
    scale = to_fmpq(release.privacy["scale"], "scale") if isinstance(
        release.privacy.get("scale"), str) else release.privacy["scale"]
    lam = lebesgue_constant(k, h, rtol).upper if h > 1 else fmpq(1)
    with ctx.workprec(128):
        noise = arb(lam) ** l * (arb(scale) * (2 * arb(m) / arb(b)).log() + arb(release.grid))
    out: dict[str, Any] = {
        "beta": fmpq_str(b),
        "lebesgue_constant_upper": fmpq_str(lam),
        "noise_term": fmpq_str(_upper(noise)),
        "paper_lebesgue_bound": 2**h - 1,
    }
    approx = None
    if h == 1 and query is not None and query.second_derivative_bound is not None and n:
        approx = fmpq(l) * to_fmpq(query.second_derivative_bound(n), "C2") / (8 * k)
        out["approximation_term"] = fmpq_str(approx)
        out["approximation_certified"] = True
    else:
        out["approximation_term"] = None
        out["approximation_certified"] = False
    total = _upper(noise) + (approx or 0)
    out["alpha"] = fmpq_str(total)
    out["alpha_decimal"] = fmpq_to_decimal(total, 12, rounding="up")
    return out
