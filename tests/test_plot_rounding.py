"""Figures of ``evalbound`` and ``float-error`` certificates (dpverify.plot_rounding).

The expected values are derived by hand or with Python's own binary64 arithmetic, never
from the plotting code: for ``p(x) = 1 + x`` on ``[0, 1]``, Horner computes
``fl(fl(x * 1) + 1) = fl(x + 1)`` (``x * 1`` is exact), so the rounding error at a binary64
``x`` is ``(x + 1.0) - (x + 1)`` (Python's float addition against the exact sum), and the
certified bound is half an ulp of ``[1, 2)``, ``2^-53``.
"""

from __future__ import annotations

import copy
import json
from fractions import Fraction

import numpy as np
import pytest

pytest.importorskip("matplotlib", reason='needs the plot extra: pip install "dpverify[plot]"')

from dpverify.certify.evalbound import evalbound, float_error_bound  # noqa: E402
from dpverify.cli import build_parser  # noqa: E402
from dpverify.errors import MalformedCertificate  # noqa: E402
from dpverify.plot import plot_document  # noqa: E402

U = 2.0**-53


def _dots(ax, start):
    for ln in ax.get_lines():
        if str(ln.get_label()).startswith(start):
            return np.asarray(ln.get_xdata(), float), np.asarray(ln.get_ydata(), float)
    raise AssertionError([ln.get_label() for ln in ax.get_lines()])


def _by_hand(xs):
    """fl(x + 1) - (x + 1) with Python's binary64 addition and exact fractions."""
    return np.array([float(Fraction(x + 1.0) - (Fraction(x) + 1)) for x in xs])


@pytest.fixture(scope="module")
def x_plus_1():
    return evalbound([1, 1], (0, 1)).certificate().data


def test_evalbound_figure_shows_the_errors_the_pieces_and_the_bound(x_plus_1):
    ax = plot_document(x_plus_1, points=200, log=False).axes[0]
    xs, ys = _dots(ax, "fl(p(x))")
    assert xs[0] == 0 and xs[-1] == 1 and len(xs) == 200
    np.testing.assert_array_equal(ys, _by_hand(xs))
    assert np.all(np.abs(ys) <= U)
    _, bound = _dots(ax, "certified bound")
    assert bound[0] == U
    steps = [p for p in ax.patches if "piece" in str(p.get_label())]
    vals, edges, _ = steps[0].get_data()
    assert edges[0] == 0 and edges[-1] == 1 and np.all(vals <= U) and np.all(vals > 0)


def test_evalbound_figure_log_scale_drops_exact_zeros(x_plus_1):
    every, _ = _dots(plot_document(x_plus_1, points=200, log=False).axes[0], "fl(p(x))")
    ax = plot_document(x_plus_1, points=200, log=True).axes[0]
    assert ax.get_yscale() == "log"
    xs, ys = _dots(ax, "|fl(p(x))")
    assert len(xs) == np.count_nonzero(_by_hand(every))   # exact ones: counted, not drawn
    np.testing.assert_array_equal(ys, np.abs(_by_hand(xs)))
    label = [ln.get_label() for ln in ax.get_lines() if "|fl" in str(ln.get_label())][0]
    assert f"({200 - len(xs)} exact, not drawn)" in label


def test_float_error_figure_has_both_parts():
    # f = 1 + x is p itself: sup |f - p| = 0, so f - fl(p) is minus the rounding error
    doc = float_error_bound("1 + x", [1, 1], (0, 1), pieces=4).float_certificate().data
    fig = plot_document(doc, points=101, log=False)
    left, right = fig.axes
    xs, ys = _dots(left, "f(x) − fl(p(x))")
    np.testing.assert_array_equal(ys, -_by_hand(xs))
    _, curve = _dots(left, "f(x) − p(x)")
    assert np.all(curve == 0)
    _, total = _dots(left, "certified |f − fl(p)|")
    assert total[0] == U
    assert right.get_title().startswith("evalbound: horner, degree 1")


def test_cli_draws_the_new_kinds(tmp_path, x_plus_1):
    src = tmp_path / "eb.json"
    src.write_text(json.dumps(x_plus_1))
    out = tmp_path / "eb.png"
    args = build_parser(None).parse_args(["plot", str(src), "--out", str(out)])
    res = args.handler(args)
    assert res.data["drawn"] == "evalbound" and out.stat().st_size > 1000


def test_malformed_rounding_certificates_are_refused(x_plus_1):
    bad = copy.deepcopy(x_plus_1)
    bad["evidence"]["pieces"][0][2] = [1]       # Horner of degree 1: two claims per piece
    with pytest.raises(MalformedCertificate, match="not a valid evalbound certificate"):
        plot_document(bad)
    with pytest.raises(MalformedCertificate, match="no evaluation part"):
        plot_document({"kind": "float-error", "statement": {"bound": "1"}, "evidence": {}})
