"""Figures of what a certificate or a release says (matplotlib, the ``plot`` extra).

:func:`plot_document` draws one certificate (a JSON document of the format of
``docs/certificates.md``); :func:`plot_releases` draws release / privacy data files;
:func:`plot_files` reads files and writes a PNG, SVG or PDF (``dpverify plot``).

What is drawn, by kind:

* ``supnorm-box`` (one variable) and ``minimax``: the error curve ``f(x) - p(x)`` over the
  interval, the band ``+-upper`` of the certified bound (``+-lower`` dashed when it
  differs visibly), the witness point; for ``minimax`` the alternation points of the de la
  Vallee Poussin lower bound.  Two variables: a colour map of ``f - p`` and the witness.
* ``supnorm-finite``: ``f(x) - p(x)`` at the domain points (at most ``points`` of them,
  evenly spaced, always with the witness), the certified band and the witness; with a
  ``least_degree`` proof (``--method minimax``) the points of the annihilating weights.
* ``jackson-kernel``: ``2 pi H_{t,r}(u)`` on ``[-pi, pi]`` and, with ``K``, the multipliers
  ``w_n`` of ``I_{t,K}`` (wang2013 Definition 4.1, eq. (2)).
* ``lebesgue-constant``: the iterated Bernstein basis ``b^{(h)}_{nu,k}`` on ``[0, 1]`` and
  the Lebesgue function ``sum_nu |b^{(h)}_{nu,k}(y)|`` with the certified bracket of its
  maximum and the witness (alda2017 Definition 8, Proposition 11).
* release data files (``release``, ``tuv-release``, ``privacy`` with ``--n``): the
  certified accuracy ``alpha(beta)`` against the achieved ``epsilon``, one curve per
  mechanism (pass several files, one per epsilon, to draw a curve).
* ``evalbound`` and ``float-error``: the rounding error at sampled binary64 inputs, the
  bound of each piece and the certified bound; for ``float-error`` also ``f - fl(p)``
  with the certified ``sup |f - p|`` (:mod:`dpverify.plot_rounding`).
* a report of :func:`dpverify.testing.check_implementation` (``implementation-check``,
  ``report.save(path)``): the error in ulps against x and its histogram
  (:mod:`dpverify.testing.figure`).

Error curves go to a log scale (``|f - p|``) when their envelope spans more than three
decades, or when asked (``log=True``, ``--log``; ``--linear`` keeps the signed curve).

Conventions: polynomials are read with :func:`dpverify.exact.poly_from_json` and evaluated
*exactly* at rational sample points; targets are evaluated exactly (threshold, indicator,
values) or with mpmath at 128 bits (expressions), and ``f - p`` is rounded to float64 for
drawing only.  Certified numbers (bounds, witnesses, alternation points) are the
document's exact numbers rounded to float64.

Guarantee
---------
None: a figure is an illustration, not a proof.  The curve is sampled (it can miss a
narrow peak between samples -- the certified band cannot); what is certified is the
document, re-checked by ``dpverify verify``.

matplotlib is imported on first use; without it :class:`~dpverify.errors.MissingExtraError`
says ``pip install "dpverify[plot]"``.

The helpers every figure shares (matplotlib loader, exact numbers, targets, palette,
legend) are in :mod:`dpverify.plot_base`; the figures of the floating-point certificates
in :mod:`dpverify.plot_rounding`.
"""

from __future__ import annotations

import io
import os
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
from flint import fmpq

from .atomic import write_bytes
from .errors import InvalidParameterError, MalformedCertificate
from .exact import TensorPoly, poly_from_json
from .jsonfile import read_json
from .numbers import check_int
from .plot_base import C_BOUND as _C_BOUND
from .plot_base import C_CURVE as _C_CURVE
from .plot_base import C_LOWER as _C_LOWER
from .plot_base import C_POINTS as _C_POINTS
from .plot_base import C_WITNESS as _C_WITNESS
from .plot_base import diff as _diff
from .plot_base import grid as _grid
from .plot_base import legend_below as _legend_below
from .plot_base import matplotlib_figure as _matplotlib
from .plot_base import number as _q
from .plot_base import short as _dec
from .plot_base import target_function as _target
from .plot_base import to_float as _f
from .plot_rounding import ROUNDING_KINDS, draw_evalbound, draw_float_error
from .testing.figure import draw_check, spans_decades

if TYPE_CHECKING:  # annotations only: matplotlib is an optional extra
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

__all__ = [
    "FORMATS",
    "MAX_POINTS",
    "plot_document",
    "plot_releases",
    "plot_files",
    "load_document",
]

#: Output formats :func:`plot_files` writes (by the file name's suffix).
FORMATS = ("png", "svg", "pdf")
#: Upper bound of ``points`` (samples of a curve): each sample is an exact evaluation.
MAX_POINTS = 20000

_CERT_KINDS = ("supnorm-finite", "supnorm-box", "minimax", "jackson-kernel",
               "lebesgue-constant") + ROUNDING_KINDS
_RELEASE_KINDS = ("release", "tuv-release", "privacy")
_CHECK_KIND = "implementation-check"   # a check_implementation report (report.save)


def load_document(path: str) -> dict[str, Any]:
    """Read a certificate or data document (JSON object with a ``kind``).

    Raises
    ------
    MalformedCertificate
        If ``path`` cannot be read or is not a JSON object with a ``kind``.
    """
    doc = read_json(path, "certificate", MalformedCertificate, allow_nan=True)
    if not isinstance(doc, dict) or not isinstance(doc.get("kind"), str):
        raise MalformedCertificate(f"{path!r} is not a dpverify certificate or data file")
    return doc


def _check_points(points: Any) -> int:
    n = check_int(points, "points")
    if not 2 <= n <= MAX_POINTS:
        raise InvalidParameterError(f"points must be in [2, {MAX_POINTS}], got {n}")
    return n


# ----------------------------------------------------------------- certificates

def _band(ax: Axes, lower: fmpq, upper: fmpq) -> None:
    up = _f(upper)
    ax.axhline(up, color=_C_BOUND, lw=1.2, label=f"certified bound ±{_dec(upper)}")
    ax.axhline(-up, color=_C_BOUND, lw=1.2)
    # the lower end of the enclosure only when it is visibly apart from the upper one
    if lower > 0 and (upper - lower) > upper / 200:
        lo = _f(lower)
        ax.axhline(lo, color=_C_LOWER, lw=1, ls="--", label=f"proven lower end ±{_dec(lower)}")
        ax.axhline(-lo, color=_C_LOWER, lw=1, ls="--")


def _log_scale(ax: Axes, ys: Sequence[float], log: bool | None, what: str) -> None:
    """Redraw the signed error curves as ``|f - p|`` on a log axis when ``log`` (None:
    when the curve's envelope -- its maxima over 32 stretches -- spans > 3 decades)."""
    a = np.abs(np.asarray(ys, dtype=np.float64))
    if log is None:
        env = [w.max() for w in np.array_split(a, min(32, a.size)) if w.size]
        log = spans_decades(env)
    if not log:
        return
    for line in ax.get_lines():
        line.set_ydata(np.abs(np.asarray(line.get_ydata(), dtype=np.float64)))
        label = str(line.get_label())
        if label.startswith(what):
            line.set_label(f"|{what}|{label[len(what):]}")
    ax.set_yscale("log")
    ax.set_ylabel(f"|{what}| (log scale)")


def _title(doc: dict[str, Any]) -> str:
    st = doc["statement"]
    poly = st.get("polynomial") or {}
    t = st.get("target") or {}
    names = {"expr": t.get("expr"), "threshold": f"[x >= {t.get('r')}]",
             "indicator": f"[x == {t.get('l')}]", "values": "tabulated values"}
    what = names.get(str(t.get("kind")))
    cons = (st.get("construction") or (doc.get("info") or {}).get("construction") or {})
    name = cons.get("name")
    if isinstance(what, str) and len(what) > 60:
        what = what[:57] + "..."
    parts = [f"{doc['kind']}: f = {what}" if what else doc["kind"]]
    if name and name != "supnorm":
        parts.append(name)
    if "degree" in poly:
        parts.append(f"degree {poly['degree']} ({poly.get('basis')})")
    return ", ".join(parts)


def _error_curve(fig: Figure, doc: dict[str, Any], points: int, log: bool | None) -> None:
    st, ev = doc["statement"], doc.get("evidence") or {}
    poly = poly_from_json(st["polynomial"])
    ivals = st["domain"]["intervals"]
    lower, upper = _q(st["error"]["lower"], "lower"), _q(st["error"]["upper"], "upper")
    f = _target(st)
    if len(ivals) == 2 and isinstance(poly, TensorPoly):
        _error_map(fig, doc, poly, f, points)
        return
    if len(ivals) != 1 or isinstance(poly, TensorPoly):
        raise InvalidParameterError(
            f"plot draws boxes of one or two variables, this one has {len(ivals)}")
    a, b = _q(ivals[0][0], "domain"), _q(ivals[0][1], "domain")
    xs = _grid(a, b, points)
    # a weighted statement (relative error, or a weight) bounds w (f - p): draw that
    wt = st.get("weight")
    wf = None if not wt else _target(
        {"target": {"kind": "expr", "expr": f"1/({st['target']['expr']})" if wt["kind"] ==
                    "relative" else wt["expr"], "variables": st["target"]["variables"]}})
    label = "f(x) − p(x)" if not wt else \
        "(f(x) − p(x))/f(x)" if wt["kind"] == "relative" else "w(x) (f(x) − p(x))"

    def err(x: fmpq) -> float:
        d = _diff(f(x), poly(x))
        return d if wf is None else d * float(wf(x))
    ys = [err(x) for x in xs]
    ax = fig.add_subplot(1, 1, 1)
    ax.plot([_f(x) for x in xs], ys, color=_C_CURVE, lw=1.5, label=f"{label} (sampled)")
    _band(ax, lower, upper)
    if doc["kind"] == "minimax":
        alt = [_q(x, "alternation point") for x in ev.get("alternation", [])]
        if alt:
            ax.plot([_f(x) for x in alt], [err(x) for x in alt], "o",
                    color=_C_POINTS, ms=7, zorder=5,
                    label=f"alternation points ({len(alt)}): "
                          f"E_{st.get('degree')}(f) ≥ {_dec(lower)}")
    wit = ev.get("witness")
    if isinstance(wit, list) and wit:
        w = _q(wit[0], "witness")
        ax.plot([_f(w)], [err(w)], "D", color=_C_WITNESS, ms=6, zorder=6,
                label=f"witness x = {_dec(w)}")
    ax.set_xlabel("x")
    ax.set_ylabel(label)
    ax.set_title(_title(doc), fontsize=10)
    ax.ticklabel_format(axis="y", style="sci", scilimits=(-3, 3))
    _log_scale(ax, ys, log, label)
    ax.grid(alpha=0.3)
    _legend_below(fig, ax)


def _error_map(fig: Figure, doc: dict[str, Any], poly: TensorPoly, f: Any, points: int) -> None:
    st = doc["statement"]
    (a0, b0), (a1, b1) = [(_q(u, "domain"), _q(v, "domain")) for u, v in
                          st["domain"]["intervals"]]
    m = max(2, min(2 * int(points ** 0.5), 120))  # m^2 exact evaluations
    xs, ys = _grid(a0, b0, m), _grid(a1, b1, m)
    z = np.array([[_diff(f(x, y), poly(x, y)) for x in xs] for y in ys])
    ax = fig.add_subplot(1, 1, 1)
    upper = _q(st["error"]["upper"], "upper")
    up = _f(upper)
    im = ax.imshow(z, origin="lower", extent=(_f(a0), _f(b0), _f(a1), _f(b1)), aspect="auto",
                   cmap="RdBu_r", vmin=-up, vmax=up, interpolation="bilinear")
    fig.colorbar(im, ax=ax, label=f"f − p (colour scale = certified bound ±{_dec(upper)})")
    wit = (doc.get("evidence") or {}).get("witness")
    if isinstance(wit, list) and len(wit) == 2:
        ax.plot([_f(_q(wit[0], "witness"))], [_f(_q(wit[1], "witness"))], "D",
                color=_C_WITNESS, label="witness")
        ax.legend(loc="upper right", fontsize=8)
    ax.set_xlabel(st["target"]["variables"][0])
    ax.set_ylabel(st["target"]["variables"][1])
    ax.set_title(_title(doc), fontsize=10)


def _finite_points(domain: dict[str, Any]) -> list[fmpq]:
    if domain.get("kind") == "integers":
        lo, hi = int(domain["lo"]), int(domain["hi"])
        return [fmpq(i) for i in range(lo, hi + 1)] if hi - lo <= MAX_POINTS else []
    return [_q(x, "domain point") for x in domain.get("points", [])]


def _error_finite(fig: Figure, doc: dict[str, Any], points: int, log: bool | None) -> None:
    st, ev = doc["statement"], doc.get("evidence") or {}
    poly = poly_from_json(st["polynomial"])
    dom = st["domain"]
    allpts = _finite_points(dom)
    if dom.get("kind") == "integers" and not allpts:  # huge range: sample it
        lo, hi = int(dom["lo"]), int(dom["hi"])
        allpts = sorted({fmpq(lo + (hi - lo) * i // (points - 1)) for i in range(points)})
    f = _target(st, allpts)
    wit = _q(ev["witness"], "witness") if "witness" in ev else None
    shown = allpts
    if len(allpts) > points:
        step = (len(allpts) - 1) / (points - 1)
        shown = sorted({allpts[round(i * step)] for i in range(points)} |
                       ({wit} if wit is not None else set()))
    lower, upper = _q(st["error"]["lower"], "lower"), _q(st["error"]["upper"], "upper")
    ax = fig.add_subplot(1, 1, 1)
    ys = [_diff(f(x), poly(x)) for x in shown]
    sampled = " (sampled)" if len(shown) < len(allpts) else ""
    ax.plot([_f(x) for x in shown], ys, "o-" if len(shown) <= 200 else "-",
            color=_C_CURVE, ms=4, lw=1, label=f"f(x) − p(x) at the domain points{sampled}")
    _band(ax, lower, upper)
    if "max_error" in st:
        meq = _q(st["max_error"], "max_error")
        me = _f(meq)
        # a claim far above the error would squash the curve into a line: name it instead
        far = meq > 4 * upper
        ax.axhline(me if not far else 0, color="gray", lw=1 if not far else 0, ls=":",
                   label=f"claimed max_error {_dec(meq)}" + (" (off scale)" if far else ""))
        if not far:
            ax.axhline(-me, color="gray", lw=1, ls=":")
    ld = ev.get("least_degree")
    if isinstance(ld, dict) and ld.get("points"):
        lp = [_q(x, "least_degree point") for x in ld["points"]]
        ax.plot([_f(x) for x in lp], [_diff(f(x), poly(x)) for x in lp], "s", mfc="none",
                color=_C_POINTS, ms=10, mew=1.5, zorder=5,
                label=f"optimality points ({len(lp)}): no degree < "
                      f"{st['polynomial']['degree']} reaches max_error")
    if wit is not None:
        ax.plot([_f(wit)], [_diff(f(wit), poly(wit))], "D", color=_C_WITNESS, ms=7, zorder=6,
                label=f"witness x = {_dec(wit)}")
    if dom.get("kind") == "integers":
        from matplotlib.ticker import MaxNLocator  # optional extra (see _matplotlib)

        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        ax.set_xlabel("x (number of ones)")
    else:
        ax.set_xlabel("x")
    ax.set_ylabel("f(x) − p(x)")
    ax.set_title(_title(doc), fontsize=10)
    ax.ticklabel_format(axis="y", style="sci", scilimits=(-3, 3))
    _log_scale(ax, ys, log, "f(x) − p(x)")
    ax.grid(alpha=0.3)
    _legend_below(fig, ax)


def _jackson(fig: Figure, doc: dict[str, Any], points: int) -> None:
    st = doc["statement"]
    c = [_f(_q(v, "coefficients_2pi")) for v in st["coefficients_2pi"]]
    mult = st.get("multipliers")
    ax = fig.add_subplot(1, 2 if mult else 1, 1)
    u = np.linspace(-np.pi, np.pi, points)
    # 2 pi H(u) = sum_l coefficients_2pi[l] cos(l u) (the l = 0 term is 2 pi a_0 = 1)
    h = sum(cl * np.cos(l * u) for l, cl in enumerate(c))
    ax.plot(u, h, color=_C_CURVE, lw=1.5, label="2π H_{t,r}(u)")
    ax.axhline(0, color="gray", lw=0.8)
    ax.set_xlabel("u")
    ax.set_ylabel("2π H(u)")
    ax.set_title(f"Jackson kernel t = {st['t']}, r = {st['r']} (degree {st['degree']})",
                 fontsize=10)
    ax.set_xticks([-np.pi, -np.pi / 2, 0, np.pi / 2, np.pi], ["−π", "−π/2", "0", "π/2", "π"])
    ax.grid(alpha=0.3)
    if mult:
        ax2 = fig.add_subplot(1, 2, 2)
        w = [_f(_q(v, "multipliers")) for v in mult]
        ax2.stem(range(len(w)), w, basefmt="gray")
        ax2.set_xlabel("n")
        ax2.set_ylabel("w_n")
        ax2.set_title(f"multipliers of I_(t,K), K = {st['K']}: I cos(n·) = w_n cos(n·)",
                      fontsize=10)
        ax2.grid(alpha=0.3)


def _lebesgue(fig: Figure, doc: dict[str, Any], points: int) -> None:
    st, ev = doc["statement"], doc.get("evidence") or {}
    k, h = int(st["k"]), int(st["h"])
    basis = st.get("basis")
    if not basis:
        raise MalformedCertificate("this lebesgue-constant certificate has no basis to draw")
    ys = _grid(fmpq(0), fmpq(1), points)
    polys = [poly_from_json({"basis": "bernstein", "domain": ["0", "1"], "coefficients": col})
             for col in basis]
    vals = [[_f(p(y)) for y in ys] for p in polys]
    yf = [_f(y) for y in ys]
    ax = fig.add_subplot(1, 2, 1)
    for nu, v in enumerate(vals):
        ax.plot(yf, v, lw=1, label=f"ν = {nu}" if len(vals) <= 10 else None)
    ax.set_xlabel("y")
    ax.set_ylabel("b^(h)_(ν,k)(y)")
    ax.set_title(f"iterated Bernstein basis, k = {k}, h = {h}", fontsize=10)
    ax.grid(alpha=0.3)
    if len(vals) <= 10:
        ax.legend(fontsize=7, ncol=2, loc="upper center", bbox_to_anchor=(0.5, -0.14),
                  frameon=False)
    ax2 = fig.add_subplot(1, 2, 2)
    leb = [sum(abs(v[i]) for v in vals) for i in range(len(ys))]
    ax2.plot(yf, leb, color=_C_CURVE, lw=1.5, label="Σ_ν |b^(h)_(ν,k)(y)|")
    lower, upper = _q(st["lower"], "lower"), _q(st["upper"], "upper")
    ax2.axhline(_f(upper), color=_C_BOUND, lw=1.2, label=f"certified Λ ≤ {_dec(upper)}")
    if (upper - lower) > upper / 1000:
        ax2.axhline(_f(lower), color=_C_LOWER, lw=1, ls="--", label=f"Λ ≥ {_dec(lower)}")
    if "witness" in ev:
        w = _q(ev["witness"], "witness")
        val = sum(abs(_f(p(w))) for p in polys)
        ax2.plot([_f(w), 1 - _f(w)], [val, val], "D", color=_C_WITNESS, ms=6,
                 label=f"witness y = {_dec(w)} (and 1 − y)")
    ax2.set_xlabel("y")
    ax2.set_ylabel("Lebesgue function")
    ax2.set_title(f"Lebesgue constant Λ_(k,h) ∈ [{_dec(lower)}, {_dec(upper)}]", fontsize=10)
    ax2.grid(alpha=0.3)
    _legend_below(fig, ax2)


def plot_document(doc: dict[str, Any], *, points: int = 600, log: bool | None = None
                  ) -> Figure:
    """The figure of one certificate document (see the module docstring for what is drawn).

    Parameters
    ----------
    doc : dict
        A certificate (``"format": "dpverify-certificate"``); release data files go to
        :func:`plot_releases`.
    points : int
        Samples of each curve, in ``[2, MAX_POINTS]`` (each is an exact evaluation).
    log : bool, optional
        Error curves on a log scale (``|f - p|``): True, False, or None (default) when the
        curve's envelope spans more than 3 decades.

    Returns
    -------
    matplotlib.figure.Figure
        Not attached to pyplot; save it with ``fig.savefig(path)``.

    Raises
    ------
    MissingExtraError
        Without matplotlib.
    MalformedCertificate
        If ``doc`` is not a certificate of a kind this module draws.
    InvalidParameterError
        If ``points`` is out of range, or a box has more than two variables.

    Guarantee
    ---------
    None (an illustration; see the module docstring).
    """
    n = _check_points(points)
    if not isinstance(doc, dict) or not isinstance(doc.get("statement"), dict):
        raise MalformedCertificate("doc must be a certificate document (with a statement)")
    kind = doc.get("kind")
    if kind not in _CERT_KINDS:
        raise MalformedCertificate(
            f"cannot plot a certificate of kind {kind!r} (known: {', '.join(_CERT_KINDS)})")
    _, Figure = _matplotlib()
    wide = kind in ("lebesgue-constant", "float-error") or (
        kind == "jackson-kernel" and doc["statement"].get("multipliers"))
    fig = Figure(figsize=(11, 4.6) if wide else (7.5, 5.2), layout="constrained")
    if kind == "supnorm-finite":
        _error_finite(fig, doc, n, log)
    elif kind in ("supnorm-box", "minimax"):
        _error_curve(fig, doc, n, log)
    elif kind == "jackson-kernel":
        _jackson(fig, doc, n)
    elif kind == "evalbound":
        draw_evalbound(fig, doc, n, log)
    elif kind == "float-error":
        draw_float_error(fig, doc, n, log)
    else:
        _lebesgue(fig, doc, n)
    return fig


# ----------------------------------------------------------------- releases

def _release_point(doc: dict[str, Any]) -> tuple[str, fmpq, fmpq, str]:
    """(mechanism, epsilon, alpha, beta) of a release / privacy data file."""
    kind = doc.get("kind")
    priv = doc.get("privacy") or {}
    acc = doc.get("accuracy") or {}
    if kind == "privacy":
        plan = doc.get("accuracy_plan") or {}
        if not plan or doc.get("n") is None:
            raise MalformedCertificate(
                "a privacy record has an alpha only for a database size: run it with --n")
        eps = _q(doc["achieved"]["epsilon"], "epsilon")
        n = fmpq(int(doc["n"]))
        alpha = _q(plan["gamma_exact"], "gamma") + _q(plan["C"], "C") / n
        return f"{doc.get('mechanism')} (n = {doc['n']})", eps, alpha, str(plan.get("beta"))
    achieved = priv.get("achieved") if isinstance(priv.get("achieved"), dict) else None
    eps_text = (achieved or {}).get("epsilon") or priv.get("achieved_epsilon") \
        or priv.get("epsilon")
    if eps_text is None or "alpha" not in acc:
        raise MalformedCertificate(f"release file of kind {kind!r} has no epsilon and alpha")
    mech = doc.get("mechanism") or kind
    fn = doc.get("function")
    if isinstance(fn, dict):
        fn = fn.get("name")
    label = f"{mech} {fn}" if isinstance(fn, str) else str(mech)
    return label, _q(eps_text, "epsilon"), _q(acc["alpha"], "alpha"), str(acc.get("beta"))


def plot_releases(docs: Sequence[dict[str, Any]]) -> Figure:
    """Certified accuracy ``alpha`` (at the file's ``beta``) against the achieved
    ``epsilon``, one curve per mechanism label, points sorted by epsilon (log-log axes).

    Parameters
    ----------
    docs : sequence of dict
        Data files of kind ``release``, ``tuv-release`` or ``privacy`` (the latter with
        ``n``: ``alpha = gamma + C/n`` from its accuracy plan).

    Raises
    ------
    MissingExtraError, MalformedCertificate, InvalidParameterError
        Without matplotlib; on a file without epsilon and alpha; on an empty ``docs``.

    Guarantee
    ---------
    None (an illustration); the plotted numbers are the files' exact values rounded.
    """
    if not docs:
        raise InvalidParameterError("docs must contain at least one release file")
    series: dict[str, list[tuple[fmpq, fmpq]]] = {}
    betas = set()
    for d in docs:
        label, eps, alpha, beta = _release_point(d)
        series.setdefault(label, []).append((eps, alpha))
        betas.add(beta)
    _, Figure = _matplotlib()
    fig = Figure(figsize=(7.5, 5.2), layout="constrained")
    ax = fig.add_subplot(1, 1, 1)
    for label, pts in sorted(series.items()):
        pts.sort()
        ax.plot([_f(e) for e, _ in pts], [_f(a) for _, a in pts], "o-", lw=1.5, ms=5,
                label=label)
    ax.set_xscale("log")
    ax.set_yscale("log")
    from matplotlib.ticker import FuncFormatter, NullFormatter  # optional extra

    plain = FuncFormatter(lambda v, _pos: f"{v:g}")  # 0.5, 1, 2 rather than 5 x 10^-1
    ax.yaxis.set_major_formatter(plain)
    ax.yaxis.set_minor_formatter(plain)
    eps_all = sorted({e for pts in series.values() for e, _ in pts})
    if len(eps_all) <= 12:  # ticks at the released epsilons (minor labels would collide)
        ax.set_xticks([_f(e) for e in eps_all], [f"{_f(e):g}" for e in eps_all])
        ax.xaxis.set_minor_formatter(NullFormatter())
    else:
        ax.xaxis.set_major_formatter(plain)
    ax.set_xlabel("achieved ε (exact accounting)")
    beta = betas.pop() if len(betas) == 1 else "per file"
    ax.set_ylabel(f"certified α (β = {beta})")
    ax.set_title("accuracy against privacy: smaller ε, more noise, larger α", fontsize=10)
    ax.grid(alpha=0.3, which="both")
    _legend_below(fig, ax)
    return fig


# ----------------------------------------------------------------- files

def plot_files(paths: Sequence[str], out: str, *, points: int = 600,
               log: bool | None = None) -> dict[str, Any]:
    """Read ``paths`` and write their figure to ``out`` (format from the suffix:
    ``.png``, ``.svg`` or ``.pdf``).

    One certificate gives :func:`plot_document`; one or more release data files give
    :func:`plot_releases`; one check report (``implementation-check``) its ulp-error figure
    (:func:`dpverify.testing.figure.draw_check`).  ``log`` as in :func:`plot_document`.
    The file is written atomically (:mod:`dpverify.atomic`).

    Returns
    -------
    dict
        ``{"out": out, "drawn": KIND, "files": [...]}`` (``KIND``: the certificate kind, or
        ``"releases"``).

    Raises
    ------
    InvalidParameterError
        On an unknown suffix, no paths, or a certificate mixed with other files.
    MalformedCertificate, MissingExtraError
        As :func:`plot_document` / :func:`plot_releases`.
    """
    if isinstance(paths, str) or not paths:
        raise InvalidParameterError("paths must be a non-empty list of file names")
    suffix = os.path.splitext(out)[1].lower().lstrip(".")
    if suffix not in FORMATS:
        raise InvalidParameterError(
            f"out must end in {', '.join('.' + s for s in FORMATS)}, got {out!r}")
    n = _check_points(points)
    docs = [load_document(p) for p in paths]
    certs = [d for d in docs if d.get("kind") in _CERT_KINDS + (_CHECK_KIND,)]
    if certs and docs[0].get("kind") == _CHECK_KIND and len(docs) == 1:
        _, Figure = _matplotlib()
        fig, kind = Figure(figsize=(12, 4.8), layout="constrained"), _CHECK_KIND
        draw_check(fig, docs[0], log)
    elif certs:
        if len(docs) != 1:
            raise InvalidParameterError("paths: plot one certificate at a time")
        fig, kind = plot_document(docs[0], points=n, log=log), docs[0]["kind"]
    else:
        for p, d in zip(paths, docs):
            if d.get("kind") not in _RELEASE_KINDS:
                raise MalformedCertificate(
                    f"{p!r}: cannot plot kind {d.get('kind')!r} (certificates: "
                    f"{', '.join(_CERT_KINDS)}; data: {', '.join(_RELEASE_KINDS)})")
        fig, kind = plot_releases(docs), "releases"
    _save(fig, out, suffix)
    return {"out": out, "drawn": kind, "files": list(paths)}


def _save(fig: Figure, out: str, suffix: str) -> None:
    buf = io.BytesIO()
    # svg: no date / random ids, so the docs figures are reproducible byte for byte
    meta = {"Date": None} if suffix == "svg" else ({"Software": None} if suffix == "png" else {})
    fig.savefig(buf, format=suffix, dpi=130, metadata=meta)
    write_bytes(out, buf.getvalue(), what="out")
