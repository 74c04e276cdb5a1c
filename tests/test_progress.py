"""Progress reporter: throttling, enablement, the callback protocol."""

from __future__ import annotations

import io

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
