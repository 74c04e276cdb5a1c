"""Progress of ``dpverify table`` and ``dpverify crosscheck``.

``--progress`` writes progress lines to stderr and nothing to stdout; ``--no-progress`` (and
the default when stderr is not a terminal, as under pytest) writes none; stdout is
byte-identical either way.  The library functions report through a ``progress=`` callback
whose counts end at the number of entries / cases (derived here from the grids, not from
the output).
"""

from __future__ import annotations

import re

import pytest

import dpverify.crosscheck as cc
from dpverify import tables
from dpverify.cli import main

_COUNT = re.compile(r"\((\d+)/(\d+)\)")


def _run(capsys, argv):
    assert main(argv) == 0
    got = capsys.readouterr()
    return got.out, got.err


def _counts(err: str) -> list[tuple[int, int]]:
    return [(int(a), int(b)) for a, b in _COUNT.findall(err)]


@pytest.mark.parametrize("form", ["grid", "builtin", "alias"])
def test_table_progress_flags(tmp_path, capsys, form):
    argv, n = {
        # 2 x 3 Cartesian product of the flags: 6 entries
        "grid": (["or", "--k", "2,5", "--gamma", "1e-1,1e-3,1/7"], 6),
        # the built-in quick grids of two tables: entries counted from tables.GRIDS
        "builtin": (["jackson", "bernstein", "--quick"],
                    len(tables.GRIDS["jackson"]["quick"])
                    + len(tables.GRIDS["bernstein"]["quick"])),
        "alias": (["or-minimax", "--k", "5", "--gamma", "1e-1"], 1),
    }[form]
    outs = {}
    for flag in ("--progress", "--no-progress", None):
        d = tmp_path / str(flag)
        extra = [flag] if flag else []
        outs[flag] = _run(capsys, ["table", *argv, "--out", str(d), *extra])
    out_p, err_p = outs["--progress"]
    assert "dpverify table: entries" in err_p and "done in" in err_p
    counts = _counts(err_p)
    assert counts[-1] == (n, n)
    assert [c for c, _ in counts] == sorted(c for c, _ in counts)  # never goes back
    assert "entries" not in out_p and "\r" not in out_p
    # --no-progress, and the default on a non-terminal stderr: nothing at all
    assert outs["--no-progress"][1] == "" and outs[None][1] == ""
    # stdout (file names and sha256s, with the directory name masked) is the same
    norm = {k: v[0].replace(str(tmp_path / str(k)), "DIR") for k, v in outs.items()}
    assert norm["--progress"] == norm["--no-progress"] == norm[None]


def test_table_json_stdout_identical_with_progress(tmp_path, capsys):
    a = _run(capsys, ["table", "dlist", "--k", "3", "--gamma", "1e-2", "--json", "--out",
                      str(tmp_path / "x"), "--progress"])
    b = _run(capsys, ["table", "dlist", "--k", "3", "--gamma", "1e-2", "--json", "--out",
                      str(tmp_path / "x")])
    assert a[0] == b[0] and a[0].lstrip().startswith("{")
    assert "(1/1)" in a[1] and b[1] == ""


def test_table_progress_callback_counts_all_tables(tmp_path):
    calls = []
    params = {"k": [2, 3], "gamma": ["1e-1"]}
    m = tables.write_tables(["or", "and"], str(tmp_path), params=params,
                            progress=lambda *a: calls.append(a))
    assert set(m["tables"]) == {"or", "and"}
    # 2 tables x 2 entries, one report before the first and one after each entry
    assert calls == [("entries", i, 4) for i in range(5)]
    calls.clear()
    tables.build_table("jackson", "quick", progress=lambda *a: calls.append(a))
    n = len(tables.GRIDS["jackson"]["quick"])
    assert calls[-1] == ("entries", n, n)


def test_crosscheck_progress_flags(capsys):
    only = ["or-degree", "dct", "jackson-multipliers"]
    # number of cases per check: its quick grid (the CHECKS table)
    sizes = {c.name: len(c.quick) for c in cc.CHECKS if c.name in only}
    out_p, err_p = _run(capsys, ["crosscheck", "--only", *only, "--progress"])
    out_n, err_n = _run(capsys, ["crosscheck", "--only", *only, "--no-progress"])
    out_d, err_d = _run(capsys, ["crosscheck", "--only", *only])
    assert out_p == out_n == out_d and "PASSED" in out_p
    assert err_n == "" and err_d == ""
    assert "done in" in err_p and "dpverify crosscheck" not in out_p
    # every check's line ends at its own number of cases, tagged [j/3] in CHECKS order
    order = [c.name for c in cc.CHECKS if c.name in only]
    for j, name in enumerate(order, 1):
        n = sizes[name]
        assert f"dpverify crosscheck: {name} [{j}/3] 100% ({n}/{n})" in err_p, name


def test_crosscheck_progress_callback():
    calls = []
    only = ["or-values", "clenshaw"]
    cc.crosscheck("quick", only=only, progress=lambda *a: calls.append(a))
    want = []
    for j, c in enumerate([c for c in cc.CHECKS if c.name in only], 1):
        n = len(c.quick)  # one report before each case, one at the end
        want += [(f"{c.name} [{j}/2]", i, n) for i in range(n + 1)]
    assert calls == want


def test_crosscheck_skipped_check_reports_nothing(monkeypatch):
    import dataclasses

    skipped = dataclasses.replace(cc.CHECKS[0], requires="dpverify_no_such_module")
    monkeypatch.setattr(cc, "CHECKS", (skipped,) + cc.CHECKS[1:2])
    calls = []
    r = cc.crosscheck("quick", progress=lambda *a: calls.append(a))
    assert r["checks"][0]["status"] == "skipped"
    n = len(cc.CHECKS[1].quick)
    assert {s for s, _, _ in calls} == {f"{cc.CHECKS[1].name} [2/2]"}
    assert calls[-1][1:] == (n, n)


def test_crosscheck_grid_checked_before_work():
    with pytest.raises(ValueError, match="grid"):
        cc.crosscheck("huge", progress=lambda *a: pytest.fail("no work expected"))


def test_failed_table_run_says_stopped(tmp_path, capsys):
    # gamma = 2 passes the grid check (an exact number) and fails in the construction
    d = tmp_path / "bad"
    assert main(["table", "or", "--k", "2,3", "--gamma", "2", "--out", str(d),
                 "--progress"]) == 2
    got = capsys.readouterr()
    assert "dpverify table: stopped after" in got.err and "done in" not in got.err
    assert "gamma" in got.err and got.out == ""
    assert not d.exists()
