"""jin Algorithm 1: discretisation, privacy by post-processing, LP fit, CLI.

Expected values come from the definitions (grid formula, exact LP optimum for a
noise-free case) and from the summary's own privacy record, never from outputs.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

pytest.importorskip("scipy")

from dpverify.cli import main  # noqa: E402
from dpverify.mechanisms import jin_synthetic as js  # noqa: E402


def test_grid_and_discretisation():
    a = js.grid_points(4)
    assert np.allclose(a, [-0.75, -0.25, 0.25, 0.75])  # (2k + 1 - N)/N by hand
    X = np.array([[-1.0], [-0.51], [-0.49], [0.0], [0.99], [1.0]])
    idx = js.discretise(X, 4)[:, 0]
    # nearest grid point (the cell boundaries are -0.5, 0, 0.5)
    assert list(idx) == [0, 0, 1, 2, 3, 3]


def test_fit_recovers_grid_distribution_with_tiny_noise():
    # data already on the grid: u = empirical distribution gives objective ~0 (only the
    # 1/L rounding), so the LP optimum is ~0 and weighted answers match the data.
    g = np.random.default_rng(0)
    a = js.grid_points(5)
    X = a[g.integers(0, 5, size=(400, 1))]
    syn = js.release_synthetic(X, 5, 5, 10**9, L=10**6, insecure_seed=1)
    assert syn.info["lp_objective"] < 1e-4
    for f in (lambda x: x, lambda x: np.exp(x), lambda x: x**3 - x):
        assert syn.answer_weights(f) == pytest.approx(float(np.mean(f(X[:, 0]))), abs=1e-3)
    assert syn.rows.shape == (400, 1) and set(np.unique(syn.rows)) <= set(a)


def test_privacy_is_the_summary_record_of_discretised_data():
    g = np.random.default_rng(1)
    X = g.uniform(-1, 1, (300, 2))
    syn = js.release_synthetic(X, 4, 6, "1/2", insecure_seed=3, grid_subset=20)
    assert syn.privacy["achieved_epsilon"] == "1/2"
    assert syn.privacy["noisy_coordinates"] == 15
    assert syn.info["grid_subset"] == 20 and np.count_nonzero(syn.weights) <= 20


def test_cli_jin(tmp_path, capsys):
    g = np.random.default_rng(2)
    data = tmp_path / "d.csv"
    np.savetxt(data, g.uniform(-1, 1, (200, 2)), delimiter=",")
    out = tmp_path / "syn.json"
    assert main(["release", "jin-synthetic", "--data", str(data), "--t", "4", "--N", "6",
                 "--epsilon", "1", "--insecure-seed", "1", "--out", str(out)]) == 0
    obj = json.loads(out.read_text())
    assert obj["mechanism"] == "jin-synthetic" and len(obj["rows"]) == 200
    assert main(["release", "jin-synthetic", "--data", str(data), "--t", "4", "--N", "0",
                 "--epsilon", "1"]) == 2
    assert "--N" in capsys.readouterr().err
