"""dpverify.plot and ``dpverify plot``: what is drawn is what the certificate says.

Expected curves are derived by hand from tiny certificates written here (``f = x^2`` and
``p = 0``: the error curve is ``x^2``; a threshold target against ``p = 0``; the Jackson
kernel ``1 + cos u``; the Bernstein basis of order 3 is a partition of unity, so its
Lebesgue function is 1), never from the plotting code itself.
"""

from __future__ import annotations

import json
import sys

import numpy as np
import pytest

pytest.importorskip("matplotlib", reason='needs the plot extra: pip install "dpverify[plot]"')

from dpverify.cli import build_parser  # noqa: E402
from dpverify.errors import InvalidParameterError, MalformedCertificate, MissingExtraError  # noqa: E402,E501
from dpverify.plot import plot_document, plot_files, plot_releases  # noqa: E402


def _cert(kind, statement, evidence=None):
    return {"schema_version": 1, "format": "dpverify-certificate", "kind": kind,
            "statement": statement, "evidence": evidence or {}, "info": {}}


SQUARE = _cert("supnorm-box", {
    "polynomial": {"basis": "monomial", "domain": None, "coefficients": ["0"], "degree": 0},
    "target": {"kind": "expr", "expr": "x^2", "variables": ["x"]},
    "domain": {"kind": "box", "intervals": [["-1", "2"]]},
    "error": {"lower": "4", "upper": "4"}}, {"witness": ["2"], "pieces": []})

THRESHOLD = _cert("supnorm-finite", {
    "polynomial": {"basis": "monomial", "domain": None, "coefficients": ["1/2"], "degree": 0},
    "target": {"kind": "threshold", "r": 2},
    "domain": {"kind": "integers", "lo": 0, "hi": 4},
    "error": {"lower": "1/2", "upper": "1/2"}, "max_error": "1/2"}, {"witness": "0"})


def _line(ax, label_start):
    for ln in ax.get_lines():
        if str(ln.get_label()).startswith(label_start):
            return np.asarray(ln.get_xdata(), float), np.asarray(ln.get_ydata(), float)
    raise AssertionError(f"no line labelled {label_start!r}: "
                         f"{[ln.get_label() for ln in ax.get_lines()]}")


def test_error_curve_is_f_minus_p_with_the_certified_band():
    fig = plot_document(SQUARE, points=31)
    ax = fig.axes[0]
    x, y = _line(ax, "f(x)")
    assert x[0] == -1 and x[-1] == 2 and len(x) == 31
    np.testing.assert_allclose(y, x**2, rtol=1e-15)  # f - p = x^2 - 0
    _, band = _line(ax, "certified bound")
    assert band[0] == 4.0
    wx, wy = _line(ax, "witness")
    assert (wx[0], wy[0]) == (2.0, 4.0)
    assert ax.get_title().startswith("supnorm-box: f = x^2")


def test_finite_error_at_every_point_and_witness():
    ax = plot_document(THRESHOLD).axes[0]
    x, y = _line(ax, "f(x)")
    assert list(x) == [0, 1, 2, 3, 4]
    assert list(y) == [-0.5, -0.5, 0.5, 0.5, 0.5]  # [x >= 2] - 1/2
    wx, wy = _line(ax, "witness")
    assert (wx[0], wy[0]) == (0.0, -0.5)


def test_minimax_alternation_points_are_drawn_where_the_evidence_says():
    # p = 1/2 is the best constant for f = x on [0, 1]: E_0 = 1/2, alternation at 0 and 1
    doc = _cert("minimax", {
        "polynomial": {"basis": "monomial", "domain": None, "coefficients": ["1/2"],
                       "degree": 0},
        "target": {"kind": "expr", "expr": "x", "variables": ["x"]},
        "domain": {"kind": "box", "intervals": [["0", "1"]]}, "degree": 0,
        "error": {"lower": "1/2", "upper": "1/2"}}, {"alternation": ["0", "1"], "pieces": []})
    ax = plot_document(doc, points=11).axes[0]
    x, y = _line(ax, "alternation points (2)")
    assert list(x) == [0.0, 1.0] and list(y) == [-0.5, 0.5]


def test_two_variable_box_is_a_colour_map_of_f_minus_p():
    # f = x*y, p = 0 (monomial tensor, one coefficient): the map is x*y on [0, 1]^2
    doc = _cert("supnorm-box", {
        "polynomial": {"basis": "monomial", "shape": [1, 1], "domains": None,
                       "coefficients": ["0"], "degree": [0, 0]},
        "target": {"kind": "expr", "expr": "x*y", "variables": ["x", "y"]},
        "domain": {"kind": "box", "intervals": [["0", "1"], ["0", "1"]]},
        "error": {"lower": "1", "upper": "1"}}, {"witness": ["1", "1"], "pieces": []})
    fig = plot_document(doc, points=25)
    z = np.asarray(fig.axes[0].get_images()[0].get_array())
    m = z.shape[0]
    g = np.linspace(0, 1, m)
    np.testing.assert_allclose(z, np.outer(g, g), atol=1e-15)  # rows are y, columns x


def test_jackson_kernel_and_multipliers():
    doc = _cert("jackson-kernel", {"t": 2, "r": 1, "K": None, "t_prime": 3, "degree": 1,
                                   "coefficients_2pi": ["1", "1"],
                                   "multipliers": ["1", "1/2", "0"]})
    fig = plot_document(doc, points=101)
    u, h = _line(fig.axes[0], "2π H")
    np.testing.assert_allclose(h, 1 + np.cos(u), atol=1e-15)
    assert len(fig.axes) == 2  # the multipliers panel


def test_lebesgue_function_of_a_partition_of_unity_is_one():
    # h = 1: the plain Bernstein basis of order 3 (identity coefficients), positive and
    # summing to 1 on [0, 1] (partition of unity), so Lambda = 1
    basis = [["1" if i == j else "0" for i in range(4)] for j in range(4)]
    doc = _cert("lebesgue-constant", {"k": 3, "h": 1, "lower": "1", "upper": "1",
                                      "basis": basis}, {"witness": "1/4", "pieces": []})
    fig = plot_document(doc, points=41)
    _, leb = _line(fig.axes[1], "Σ")
    np.testing.assert_allclose(leb, 1.0, rtol=1e-14)


def test_releases_alpha_against_epsilon_sorted():
    def rel(eps, alpha):
        return {"format": "dpverify-data", "kind": "release", "mechanism": "bernstein",
                "function": "kde", "privacy": {"achieved_epsilon": eps},
                "accuracy": {"alpha": alpha, "beta": "1/20"}}

    fig = plot_releases([rel("2", "1/4"), rel("1/2", "1"), rel("1", "1/2")])
    x, y = _line(fig.axes[0], "bernstein kde")
    assert list(x) == [0.5, 1.0, 2.0] and list(y) == [1.0, 0.5, 0.25]
    assert "β = 1/20" in fig.axes[0].get_ylabel()


@pytest.mark.parametrize("suffix, magic", [("png", b"\x89PNG"), ("svg", b"<?xml"),
                                            ("pdf", b"%PDF")])
def test_plot_files_writes_the_format_of_the_suffix(tmp_path, suffix, magic):
    src = tmp_path / "c.json"
    src.write_text(json.dumps(SQUARE))
    out = tmp_path / f"fig.{suffix}"
    res = plot_files([str(src)], str(out), points=20)
    assert res["drawn"] == "supnorm-box"
    assert out.read_bytes().startswith(magic)


def test_bad_inputs_name_the_parameter(tmp_path):
    src = tmp_path / "c.json"
    src.write_text(json.dumps(SQUARE))
    with pytest.raises(InvalidParameterError, match="^out must end in"):
        plot_files([str(src)], str(tmp_path / "fig.jpg"))
    with pytest.raises(InvalidParameterError, match="^points must be in"):
        plot_document(SQUARE, points=1)
    with pytest.raises(InvalidParameterError, match="^paths: plot one certificate"):
        plot_files([str(src), str(src)], str(tmp_path / "f.png"))
    with pytest.raises(MalformedCertificate, match="kind 'nonsense'"):
        plot_document(_cert("nonsense", {}))
    box3 = json.loads(json.dumps(SQUARE))
    box3["statement"]["domain"]["intervals"] *= 3
    with pytest.raises(InvalidParameterError, match="one or two variables"):
        plot_document(box3)
    bad = tmp_path / "bad.json"
    bad.write_text("[1, 2")
    with pytest.raises(MalformedCertificate, match="not valid JSON"):
        plot_files([str(bad)], str(tmp_path / "f.png"))


def test_without_matplotlib_the_error_says_what_to_install(monkeypatch):
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # import matplotlib -> ImportError
    monkeypatch.setitem(sys.modules, "matplotlib.figure", None)
    with pytest.raises(MissingExtraError, match=r'pip install "dpverify\[plot\]"'):
        plot_document(SQUARE)


def test_cli_plot_command(tmp_path):
    src = tmp_path / "c.json"
    src.write_text(json.dumps(THRESHOLD))
    out = tmp_path / "fig.svg"
    args = build_parser(None).parse_args(["plot", str(src), "--out", str(out),
                                          "--points", "50"])
    res = args.handler(args)
    assert res.exit_code == 0 and res.data["out"] == str(out)
    assert out.read_text().lstrip().startswith("<?xml")
    args = build_parser(None).parse_args(["plot", str(src), "--out", str(out),
                                          "--points", "1"])
    with pytest.raises(InvalidParameterError, match="^--points must be in"):
        args.handler(args)


def test_log_scale_when_the_error_spans_decades():
    # f - p = x^2 on [-1, 2]: the largest |f - p| over 32 stretches of 601 samples runs from
    # ~(3/64)^2 (around 0) to 4, more than 3 decades -> |f - p| on a log axis; a constant
    # amplitude (THRESHOLD: +-1/2) stays linear; --log / --linear force either
    ax = plot_document(SQUARE, points=601).axes[0]
    assert ax.get_yscale() == "log"
    x, y = _line(ax, "|f(x)")
    np.testing.assert_allclose(y, x**2, rtol=1e-15)
    _, band = _line(ax, "certified bound")
    assert band[0] == 4.0
    assert plot_document(SQUARE, points=601, log=False).axes[0].get_yscale() == "linear"
    assert plot_document(THRESHOLD).axes[0].get_yscale() == "linear"
    forced = plot_document(THRESHOLD, log=True).axes[0]
    assert forced.get_yscale() == "log"
    assert list(_line(forced, "|f(x)")[1]) == [0.5] * 5         # |[x >= 2] - 1/2|


def test_cli_log_and_linear_flags(tmp_path):
    src = tmp_path / "c.json"
    src.write_text(json.dumps(THRESHOLD))
    p = build_parser(None)
    assert p.parse_args(["plot", str(src), "--out", "f.png"]).log is None
    assert p.parse_args(["plot", str(src), "--out", "f.png", "--log"]).log is True
    assert p.parse_args(["plot", str(src), "--out", "f.png", "--linear"]).log is False
    with pytest.raises(SystemExit):
        p.parse_args(["plot", str(src), "--out", "f.png", "--log", "--linear"])


def test_check_report_figure(tmp_path):
    # a check report: errors in ulps per slice of the domain, spanning 6 decades -> log
    from dpverify.testing import check_implementation

    rep = check_implementation(lambda xs: np.exp(xs) * (1 + 3e-16 * (xs > 0.5)), "exp(x)",
                               5000, domain=(0, 1), ulps=4)
    path = tmp_path / "check.json"
    rep.save(str(path))
    res = plot_files([str(path)], str(tmp_path / "check.png"))
    assert res["drawn"] == "implementation-check"
    from matplotlib.figure import Figure

    from dpverify.testing.figure import draw_check

    fig = Figure()
    draw_check(fig, json.loads(path.read_text()))
    ax, hist = fig.axes
    assert ax.get_yscale() == ("log" if max(rep.profile) > 1000 * min(
        v for v in rep.profile if v > 0) else "linear")
    x, y = _line(ax, "worst")
    assert (x[0], y[0]) == (rep.worst_input, float(rep.worst_ulps))
    heights = [b.get_height() for b in hist.patches]
    assert heights == [n for _, _, n in rep.histogram]
    with pytest.raises(MalformedCertificate, match="not a check report"):
        draw_check(Figure(), {"kind": "implementation-check"})
