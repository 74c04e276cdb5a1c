"""Figures of the floating-point certificates (``dpverify plot``): kinds ``evalbound`` and
``float-error``.

* ``evalbound``: the rounding error ``fl(p(x)) - p(x)`` of the stated scheme at sampled
  binary64 inputs (the evaluation emulated exactly, operation by operation, by the
  checker's own binary64 model :func:`dpverify.verify.evalbound.emulate`), the bound of
  each piece of the evidence (what the piece's claims imply,
  :func:`dpverify.verify.evalbound.piece_bounds`) and the certified bound.
* ``float-error``: left, ``f(x) - fl(p(x))`` at the sampled binary64 inputs with the
  curve ``f(x) - p(x)``, the certified ``sup |f - p|`` (the ``approximation`` part) and the
  certified bound on ``|f(x) - fl(p(x))|``; right, the figure of the ``evaluation`` part.

Rounding errors span many decades (many are exactly 0), so the y axis is logarithmic
(``|error|``; exact zeros are counted in the legend) when the values span more than three
decades, or when asked (``log=True``); ``log=False`` draws signed errors between the
``+-`` bounds.

Guarantee
---------
None: an illustration.  The inputs are sampled (``points`` of them, evenly spaced and
rounded to binary64); the per-piece bounds are *derived* from the claims, not proven
(``dpverify verify`` proves them).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
from flint import fmpq

from .errors import MalformedCertificate
from .plot_base import (
    C_BOUND,
    C_CURVE,
    C_LOWER,
    C_POINTS,
    diff,
    grid,
    legend_below,
    short,
    target_function,
    to_float,
)
from .testing.figure import spans_decades
from .verify.evalbound import Scheme, emulate, piece_bounds
from .verify.fpmodel import ceil64, floor64, nearest
from .verify.numbers import read_exact
from .verify.report import Malformed

if TYPE_CHECKING:  # annotations only: matplotlib is an optional extra
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

__all__ = ["ROUNDING_KINDS", "draw_evalbound", "draw_float_error", "binary64_samples"]

#: The certificate kinds this module draws.
ROUNDING_KINDS = ("evalbound", "float-error")
# Clenshaw pieces cost ~n^2 exact operations each to derive: above this many in total the
# figure shows the certified bound alone
_PIECE_WORK = 20_000_000


def binary64_samples(s: Scheme, points: int) -> list[fmpq]:
    """About ``points`` distinct binary64 numbers of the scheme's interval, evenly spaced
    (each grid point rounded to the nearest binary64 number inside), ends included."""
    lo, hi = ceil64(s.interval[0]), floor64(s.interval[1])
    if lo > hi:
        return []
    out = set()
    for x in grid(lo, hi, points) if lo < hi else [lo]:
        v = nearest(x)
        out.add(min(max(v if v is not None else hi, lo), hi))
    return sorted(out)


def _read(doc: dict[str, Any]) -> tuple[Scheme, fmpq, list[tuple[fmpq, fmpq, fmpq | None]]]:
    try:
        s, pcs = piece_bounds(doc["statement"], doc.get("evidence"))
        bound = read_exact(doc["statement"]["bound"], "statement.bound")
    except Malformed as exc:
        raise MalformedCertificate(f"not a valid evalbound certificate: {exc}") from None
    return s, bound, pcs


def _xlim(ax: Axes, s: Scheme) -> None:
    a, b = to_float(s.interval[0]), to_float(s.interval[1])
    if a < b:   # an interval narrower than a float's spacing keeps the automatic limits
        ax.set_xlim(a, b)


def _use_log(values: list[float], log: bool | None) -> bool:
    return spans_decades(np.abs(np.asarray(values, dtype=np.float64))) if log is None \
        else log


def _evaluation_panel(ax: Axes, doc: dict[str, Any], points: int, log: bool | None) -> None:
    s, bound, pcs = _read(doc)
    xs = binary64_samples(s, points)
    errs = []
    for x in xs:
        r = emulate(s, x)
        errs.append(np.nan if r is None else to_float(r[0] - r[1]))
    n = len(s.coeffs) - 1
    work = len(pcs) * (n + 1) ** 2 if s.name == "clenshaw" else 0
    steps = [] if work > _PIECE_WORK else pcs
    ys = np.array(errs, dtype=np.float64)
    b = to_float(bound)
    step_vals = [np.nan if v is None else to_float(v) for _, _, v in steps]
    log_on = _use_log([*errs, *step_vals, b], log)
    xf = [to_float(x) for x in xs]
    if log_on:
        nz = np.isfinite(ys) & (ys != 0)
        zeros = int(np.count_nonzero(ys == 0))
        ax.plot(np.asarray(xf)[nz], np.abs(ys[nz]), ".", ms=3, color=C_CURVE,
                label=f"|fl(p(x)) − p(x)| at {len(xs)} binary64 x"
                      + (f" ({zeros} exact, not drawn)" if zeros else ""))
    else:
        ax.plot(xf, ys, ".", ms=3, color=C_CURVE,
                label=f"fl(p(x)) − p(x) at {len(xs)} binary64 x")
    if steps:
        edges = [to_float(steps[0][0])] + [to_float(hi) for _, hi, _ in steps]
        vals = np.array(step_vals)
        ax.stairs(vals, edges, baseline=None, color=C_LOWER, lw=1.2,
                  label=f"bound of each piece ({len(steps)} pieces, from the evidence)")
        if not log_on:
            ax.stairs(-vals, edges, baseline=None, color=C_LOWER, lw=1.2)
    ax.axhline(b, color=C_BOUND, lw=1.2, ls="--", label=f"certified bound {short(bound)}")
    if not log_on:
        ax.axhline(-b, color=C_BOUND, lw=1.2, ls="--")
    if log_on:
        ax.set_yscale("log")
    ax.set_xlabel("x")
    ax.set_ylabel("|fl(p(x)) − p(x)| (log scale)" if log_on else "fl(p(x)) − p(x)")
    _xlim(ax, s)
    ax.set_title(f"evalbound: {s.name}, degree {n}, {s.domain and 'Chebyshev, ' or ''}"
                 f"|fl(p(x)) − p(x)| ≤ {short(bound)}", fontsize=10)
    ax.grid(alpha=0.3)


def draw_evalbound(fig: Figure, doc: dict[str, Any], points: int,
                   log: bool | None = None) -> None:
    """Draw an ``evalbound`` certificate on ``fig`` (module docstring)."""
    ax = fig.add_subplot(1, 1, 1)
    _evaluation_panel(ax, doc, points, log)
    legend_below(fig, ax)


def draw_float_error(fig: Figure, doc: dict[str, Any], points: int,
                     log: bool | None = None) -> None:
    """Draw a ``float-error`` certificate on ``fig``: two panels (module docstring)."""
    st = doc["statement"]
    parts = (doc.get("evidence") or {}).get("parts") or {}
    evaluation = parts.get("evaluation")
    if not isinstance(evaluation, dict):
        raise MalformedCertificate("this float-error certificate has no evaluation part")
    try:
        s, _, _ = _read(evaluation)
        bound = read_exact(st["bound"], "statement.bound")
        approx = read_exact(st["approximation_error"], "statement.approximation_error")
    except KeyError as exc:
        raise MalformedCertificate(f"not a valid float-error certificate: no {exc} in its "
                                   "statement") from None
    except (Malformed, TypeError) as exc:
        raise MalformedCertificate(f"not a valid float-error certificate: {exc}") from None
    f = target_function(st)
    xs = binary64_samples(s, points)
    exact_p = [emulate(s, x) for x in xs]
    curve = [diff(f(x), r[1]) if r is not None else np.nan for x, r in zip(xs, exact_p)]
    comp = [diff(f(x), r[0]) if r is not None else np.nan for x, r in zip(xs, exact_p)]
    ax = fig.add_subplot(1, 2, 1)
    log_on = _use_log([*curve, *comp, to_float(bound)], log)
    xf = np.array([to_float(x) for x in xs])
    tr = np.abs if log_on else (lambda v: np.asarray(v, dtype=np.float64))
    ax.plot(xf, tr(np.asarray(curve, dtype=np.float64)), color=C_CURVE, lw=1.2,
            label="|f(x) − p(x)|" if log_on else "f(x) − p(x)")
    ax.plot(xf, tr(np.asarray(comp, dtype=np.float64)), ".", ms=2.5, color=C_POINTS,
            label=("|f(x) − fl(p(x))|" if log_on else "f(x) − fl(p(x))")
            + f" at {len(xs)} binary64 x")
    for v, style, label in ((approx, dict(color=C_LOWER, ls=":"),
                             f"sup |f − p| ≤ {short(approx)} (part approximation)"),
                            (bound, dict(color=C_BOUND, ls="--"),
                             f"certified |f − fl(p)| ≤ {short(bound)}")):
        ax.axhline(to_float(v), lw=1.2, label=label, **style)  # type: ignore[arg-type]
        if not log_on:
            ax.axhline(-to_float(v), lw=1.2, **style)  # type: ignore[arg-type]
    if log_on:
        ax.set_yscale("log")
    _xlim(ax, s)
    ax.set_xlabel("x")
    ax.set_ylabel("|f(x) − fl(p(x))| (log scale)" if log_on else "f(x) − fl(p(x))")
    ulps = st.get("ulps")
    extra = ""
    if isinstance(ulps, dict) and ulps.get("ulps") is not None:
        try:
            extra = f", ≤ {short(read_exact(ulps['ulps'], 'ulps'))} ulp(f(x))"
        except Malformed:
            extra = ""
    expr = str((st.get("target") or {}).get("expr", "f"))
    expr = expr if len(expr) <= 50 else expr[:47] + "..."
    ax.set_title(f"float-error: f = {expr}{extra}", fontsize=10)
    ax.grid(alpha=0.3)
    legend_below(fig, ax)
    ax2 = fig.add_subplot(1, 2, 2)
    _evaluation_panel(ax2, evaluation, points, log)
    legend_below(fig, ax2)
