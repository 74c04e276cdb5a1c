"""Progress reports of ``jackson-approx`` and ``bernstein-approx``.

The callbacks follow :mod:`dpverify.progress`: ``progress(stage, done, total)``, counts only;
``done`` never decreases within a stage and never exceeds ``total``.
"""

from __future__ import annotations

from dpverify.cli import main
from dpverify.constructions.bernstein import bernstein_approx
from dpverify.constructions.jackson import jackson_approx


class _Recorder:
    def __init__(self) -> None:
        self.calls: list[tuple[str, int, int | None]] = []

    def __call__(self, stage: str, done: int, total: int | None = None) -> None:
        self.calls.append((stage, done, total))

    def check(self) -> dict[str, list[tuple[int, int | None]]]:
        by: dict[str, list[tuple[int, int | None]]] = {}
        for stage, done, total in self.calls:
            assert isinstance(done, int) and done >= 0
            by.setdefault(stage, []).append((done, total))
        for reports in by.values():
            dones = [d for d, _ in reports]
            assert dones == sorted(dones), reports
            assert all(t is None or d <= t for d, t in reports), reports
        return by


def test_jackson_approx_reports_the_grid_evaluation():
    rec = _Recorder()
    approx = jackson_approx("exp(-x^2 - y^2)", 6, 1, dim=2, progress=rec)
    by = rec.check()
    grid = by["coefficients: grid points"]
    info = approx.extra["jackson"]["chebyshev_series"]
    points = info["grid_points"]
    assert points == (info["grid"] + 1) ** 2
    assert grid[-1] == (points, points)  # the last report is the whole grid
    assert grid[0][0] == 0


def test_jackson_approx_without_progress_is_the_same_polynomial():
    a = jackson_approx("exp(-x^2 - y^2)", 6, 1, dim=2)
    b = jackson_approx("exp(-x^2 - y^2)", 6, 1, dim=2, progress=_Recorder())
    assert a.poly == b.poly


def test_bernstein_approx_reports_lattice_and_coefficients():
    rec = _Recorder()
    bernstein_approx("exp(-x*y)", 5, 2, dim=2, progress=rec)
    by = rec.check()
    assert by["lattice values"][-1] == (36, 36)  # (k+1)^2 lattice points
    assert by["coefficients"][-1] == (2, 2)  # one report per axis, then done


def test_cli_progress_flags(capsys):
    argv = ["jackson-approx", "--f", "exp(-x^2)", "--t", "8", "--K", "2"]
    assert main(argv + ["--progress"]) == 0
    err = capsys.readouterr().err
    assert "jackson-approx:" in err and "done in" in err
    assert main(argv + ["--no-progress"]) == 0
    assert capsys.readouterr().err == ""
    assert main(["bernstein-approx", "--f", "exp(x)", "--k", "4", "--h", "2", "--progress"]) == 0
    assert "bernstein-approx: lattice values" in capsys.readouterr().err


def test_cli_errors_name_the_flag_at_fault(capsys):
    # an f undefined on the cube is --f's fault, not --t's (it once said "--t: log is ...")
    assert main(["jackson-approx", "--f", "log(x)", "--t", "8", "--K", "2"]) == 2
    err = capsys.readouterr().err
    assert "--f" in err and "--t" not in err
    assert main(["jackson-approx", "--f", "exp(x)", "--t", "100000", "--K", "2"]) == 2
    assert "--t must be" in capsys.readouterr().err
