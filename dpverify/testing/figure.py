"""The figure of a check report (``dpverify plot CHECK.json``): the error in ulps against x,
and the histogram of the errors.

The left panel draws the report's profile -- the largest error found in each of 1000 equal
slices of the domain -- with the limit and the worst input; the right panel the histogram
(points per range of errors).  The y axis of the profile is logarithmic when its values
span more than three decades (or when asked); errors too large for a float sit at the top
edge, marked.  Drawn from the JSON form (:meth:`ImplementationCheck.to_json`), so a saved
report can be plotted later.

Guarantee
---------
None: an illustration.  The profile holds the screen's estimates (each within ``2^-16``
ulp of the exact error, or exact), one per slice: narrow features between slices show as
their slice's maximum.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import numpy as np

from ..errors import MalformedCertificate
from ..numbers import parse_exact

if TYPE_CHECKING:  # annotations only: matplotlib is an optional extra
    from matplotlib.figure import Figure

__all__ = ["draw_check", "spans_decades"]


def spans_decades(values: Any, decades: float = 3.0) -> bool:
    """Whether the positive finite ``values`` span more than ``decades`` decades."""
    v = np.asarray(values, dtype=np.float64)
    v = v[np.isfinite(v) & (v > 0)]
    return bool(v.size) and float(v.max()) > float(v.min()) * 10.0 ** decades


def _num(v: Any, what: str) -> float:
    try:
        if isinstance(v, str) and v.startswith(("0x", "-0x")):
            return float.fromhex(v)
        if isinstance(v, str):
            q = parse_exact(v)
            try:
                return int(q.p) / int(q.q)
            except OverflowError:
                return math.inf
        return float(v)
    except (ValueError, TypeError) as exc:
        raise MalformedCertificate(f"{what} is not a number: {v!r}") from exc


def _short(v: Any) -> str:
    """``0.25``, ``16``, ``2^20``: an edge of the histogram."""
    f = float(v)
    if f >= 1024 and math.log2(f).is_integer():
        return f"2^{int(math.log2(f))}"
    return f"{f:g}"


def draw_check(fig: Figure, doc: dict[str, Any], log: bool | None = None) -> None:
    """Draw the report ``doc`` (JSON form) on ``fig`` (module docstring); ``log``: True or
    False forces the y scale of the profile, None chooses it."""
    try:
        prof = doc["profile"]
        lo, hi = (_num(v, "profile.x") for v in prof["x"])
        ys = np.array([np.nan if v is None else float(v) for v in prof["max_ulps"]])
        worst = doc["worst"]
        hist = doc["histogram"]
    except (KeyError, TypeError, ValueError) as exc:
        raise MalformedCertificate(f"not a check report: missing or bad {exc}") from None
    n = ys.size
    f = (np.arange(n) + 0.5) / max(n, 1)
    xs = lo * (1 - f) + hi * f   # the slices' centres (no overflow on the widest domain)
    ax = fig.add_subplot(1, 2, 1)
    finite = np.isfinite(ys)
    use_log = spans_decades(ys) if log is None else log
    top = float(np.nanmax(ys[finite])) if finite.any() else 1.0
    ax.plot(xs[finite], ys[finite], ".", ms=2.5, color="tab:blue",
            label="largest error per slice (1000 slices)")
    over = ~finite & ~np.isnan(ys)
    if over.any():
        ax.plot(xs[over], np.full(over.sum(), top), "^", color="tab:red", ms=5,
                label="error beyond a float (drawn at the top)")
    limit = doc.get("limits", {}).get("ulps")
    if limit is not None:
        ax.axhline(_num(limit, "limit"), color="tab:red", lw=1, ls="--",
                   label=f"limit {limit} ulps")
    wx = _num(worst["x"], "worst.x")
    wu = _num(worst["ulps"][1], "worst.ulps")
    if math.isfinite(wx):
        ax.plot([wx], [min(wu, top) if math.isfinite(wu) else top], "D", color="black",
                ms=6, label=f"worst: {wu:.4g} ulps at x = {wx:.17g}")
    if use_log:
        ax.set_yscale("log")
        low = ys[finite & (ys > 0)]
        if low.size:   # errors below a millionth of an ulp carry no information
            ax.set_ylim(bottom=max(float(low.min()) / 2, 1e-6))
    ax.set_xlabel("x")
    ax.set_ylabel(f"error in ulps ({doc.get('binary_format', 'binary64')})")
    rig = "" if doc.get("rigorous", True) else " (reference not rigorous)"
    ax.set_title(f"{doc.get('reference', '')}{rig}: {doc.get('points', 0)} points",
                 fontsize=10)
    ax.grid(alpha=0.3, which="both")
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.14), fontsize=8, frameon=False)
    ax2 = fig.add_subplot(1, 2, 2)
    labels = [f"≤{_short(h['to'])}" if h["to"] != "inf" else f">{_short(h['from'])}"
              for h in hist]
    counts = [int(h["count"]) for h in hist]
    ax2.bar(range(len(counts)), counts, color="tab:blue")
    ax2.set_xticks(range(len(counts)), labels, rotation=60, fontsize=7)
    if spans_decades(counts):
        ax2.set_yscale("log")
    ax2.set_xlabel("error in ulps (upper end of each range)")
    ax2.set_ylabel("points")
    fails = int(doc.get("failures", 0))
    ax2.set_title(f"histogram: {fails} failing" if fails else "histogram: all pass",
                  fontsize=10)
    ax2.grid(alpha=0.3, axis="y")
