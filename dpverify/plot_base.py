"""What the figures of :mod:`dpverify.plot` and :mod:`dpverify.plot_rounding` share: the
matplotlib loader, exact numbers read from a document and rounded for drawing, the target
of a statement as a function, the palette and the legend placement.

Conventions: a document's numbers are read exactly (:func:`number`) and rounded to float64
for drawing only (:func:`to_float`); an expression target is evaluated exactly where
possible, else with mpmath at :data:`MP_PREC` bits.

Guarantee
---------
None: these serve illustrations.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

import mpmath
from flint import fmpq

from .errors import MalformedCertificate, MissingExtraError
from .expr import parse
from .numbers import parse_exact

if TYPE_CHECKING:  # annotations only: matplotlib is an optional extra
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

__all__ = ["MP_PREC", "C_CURVE", "C_BOUND", "C_LOWER", "C_WITNESS", "C_POINTS",
           "matplotlib_figure", "number", "to_float", "short", "target_function", "diff",
           "grid", "legend_below"]

#: The precision of the mpmath evaluation of an expression target: far below any error a
#: certificate can state (the verifier's own floor is 53 bits of working precision).
MP_PREC = 128
#: One palette for every figure (matplotlib's default cycle, named).
C_CURVE, C_BOUND, C_LOWER, C_WITNESS, C_POINTS = (
    "tab:blue", "tab:red", "tab:orange", "black", "tab:green")


def matplotlib_figure() -> tuple[Any, Any]:
    """``(matplotlib, Figure)``; :class:`~dpverify.errors.MissingExtraError` without it."""
    # function-level import: matplotlib is the optional `plot` extra and costs ~0.3 s
    try:
        import matplotlib
        from matplotlib.figure import Figure
    except ImportError:
        raise MissingExtraError(
            'plotting needs matplotlib: pip install "dpverify[plot]"') from None
    return matplotlib, Figure


def number(text: Any, what: str) -> fmpq:
    """An exact number of a document; :class:`~dpverify.errors.MalformedCertificate`
    naming ``what`` otherwise."""
    try:
        return parse_exact(text) if not isinstance(text, int) else fmpq(text)
    except (ValueError, TypeError) as exc:
        raise MalformedCertificate(f"{what} is not an exact number: {text!r} ({exc})") from None


def to_float(q: fmpq) -> float:
    """``q`` rounded to float64 (for drawing)."""
    return int(q.p) / int(q.q)


def short(q: fmpq) -> str:
    """Four significant digits, for labels."""
    return f"{to_float(q):.4g}"


def target_function(statement: dict[str, Any],
                    domain_points: Sequence[fmpq] | None = None) -> Callable[..., Any]:
    """The statement's target as a function of ``fmpq`` points (one per variable)
    returning an ``fmpq`` (exact) or an ``mpf``."""
    t = statement.get("target") or {}
    kind = t.get("kind")
    if kind == "threshold":
        r = int(t["r"])
        return lambda x: fmpq(1 if x >= r else 0)
    if kind == "indicator":
        l_ = int(t["l"])
        return lambda x: fmpq(1 if x == l_ else 0)
    if kind == "values":
        if domain_points is None:
            raise MalformedCertificate("a 'values' target needs a finite domain")
        table = {x: number(v, "target value") for x, v in zip(domain_points, t["values"])}
        return lambda x: table[x]
    if kind == "expr":
        e = parse(t["expr"], variables=tuple(t["variables"]), name="target.expr")

        def f(*xs: fmpq) -> Any:
            exact = e.eval_exact(*xs)
            if exact is not None:
                return exact
            with mpmath.workprec(MP_PREC):
                return e.eval_mpmath(*xs)

        return f
    raise MalformedCertificate(f"cannot plot a target of kind {kind!r}")


def diff(fx: Any, px: fmpq) -> float:
    """``fx - px`` (``fx`` exact or an ``mpf``) rounded to float64."""
    if isinstance(fx, fmpq):
        return to_float(fx - px)
    with mpmath.workprec(MP_PREC):
        return float(fx - mpmath.mpf(int(px.p)) / int(px.q))


def grid(a: fmpq, b: fmpq, n: int) -> list[fmpq]:
    """``n`` equally spaced exact points from ``a`` to ``b``."""
    return [a + (b - a) * fmpq(i, n - 1) for i in range(n)]


def legend_below(fig: Figure, ax: Axes) -> None:
    """The legend below the axes, never over the curves (a legend inside hides the
    extremal points)."""
    handles, labels = ax.get_legend_handles_labels()
    ax.legend(handles, labels, loc="upper center", bbox_to_anchor=(0.5, -0.14), ncol=2,
              fontsize=8, frameon=False)
