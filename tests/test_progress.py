"""Progress reporter: throttling, enablement, the callback protocol."""

from __future__ import annotations

import io

import pytest

from dpverify.progress import Progress, report


class _Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_disabled_on_non_tty_writes_nothing():
    s = io.StringIO()
    with Progress("x", stream=s) as p:
        for i in range(10):
            p("stage", i + 1, 10)
    assert s.getvalue() == ""


def test_enabled_on_tty_draws_first_stage_change_and_final():
    s = _Tty()
    with Progress("cmd", stream=s, interval=3600) as p:
        for i in range(1000):
            p("moments", i + 1, 1000)
        p("noise", 0, 5)
    out = s.getvalue()
    # throttled: first report, the final 100 %, the new stage -- not 1000 redraws
    assert p.lines == 3
    assert "moments 100% (1000/1000)" in out
    assert "noise" in out
    assert out.endswith("\n") and "done in" in out


def test_unknown_total_and_forced_enable():
    s = io.StringIO()
    p = Progress("cmd", stream=s, enabled=True, interval=0)
    p("rows", 7)
    p.close()
    assert "rows 7" in s.getvalue()


def test_report_helper_is_noop_without_callback():
    report(None, "x", 1, 2)  # must not raise
    seen = []
    report(lambda *a: seen.append(a), "x", 1, 2)
    assert seen == [("x", 1, 2)]


def test_cli_progress_flags(tmp_path, capsys):
    import numpy as np

    from dpverify.cli import main

    data = tmp_path / "x.csv"
    g = np.random.default_rng(0)  # public synthetic data
    np.savetxt(data, g.uniform(-1, 1, (200, 2)), delimiter=",")
    base = ["release", "wang-summary", "--data", str(data), "--t", "4", "--epsilon", "1",
            "--insecure-seed", "1"]
    assert main(base + ["--progress"]) == 0
    err = capsys.readouterr().err
    # the file is read in blocks: progress counts its bytes (the size is known)
    size = data.stat().st_size
    assert f"moments (bytes) 100% ({size}/{size})" in err and "noise" in err \
        and "done in" in err
    assert main(base + ["--no-progress"]) == 0
    assert "moments" not in capsys.readouterr().err
    assert main(base) == 0  # default: stderr is not a terminal under pytest
    assert "moments" not in capsys.readouterr().err
    with pytest.raises(SystemExit) as exc:  # mutually exclusive flags: argparse, exit 2
        main(base + ["--progress", "--no-progress"])
    assert exc.value.code == 2


def test_a_failed_run_does_not_say_done():
    s = io.StringIO()
    with pytest.raises(KeyError), Progress("cmd", stream=s, enabled=True, interval=0) as p:
        p("entries", 1, 10)
        raise KeyError("boom")
    out = s.getvalue()
    assert "stopped after" in out and "done in" not in out and out.endswith("\n")
