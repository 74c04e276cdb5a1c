"""The one progress protocol ``progress(stage: str, done: int, total: int | None)`` in the
library loops, and the checker's own progress line (dpverify.verify.progress)."""

from __future__ import annotations

import io

from dpverify.certify import certify
from dpverify.certify.finite import finite_max_error
from dpverify.certify.interval import EVIDENCE, PIECES, supnorm
from dpverify.constructions.chebyshev import or_polynomial
from dpverify.constructions.remez import remez
from dpverify.exact import MonomialPoly
from dpverify.verify.progress import Line
from dpverify.verify.report import Checks, refine, reporting


class _Recorder:
    def __init__(self) -> None:
        self.calls: list[tuple[object, object, object]] = []

    def __call__(self, stage, done, total=None) -> None:
        self.calls.append((stage, done, total))

    def check(self) -> None:
        # the protocol: a str stage, int counts (never a data value such as an fmpq)
        assert self.calls
        for stage, done, total in self.calls:
            assert isinstance(stage, str)
            assert type(done) is int and done >= 0
            assert total is None or (type(total) is int and done <= total)


def test_supnorm_reports_piece_counts():
    rec = _Recorder()
    res = supnorm("exp(x)", MonomialPoly([1, 1]), [(0, 1)], progress=rec)
    rec.check()
    assert rec.calls[0] == (PIECES, 1, None)  # the start: the one initial piece
    assert res.pieces  # one variable: the evidence is built on first access, and reported
    assert any(c[0] == EVIDENCE for c in rec.calls)
    rec.check()


def test_supnorm_2d_reports_piece_counts():
    rec = _Recorder()
    supnorm("exp(x*y)", _tensor(), [(0, 1), (0, 1)], rtol="1e-2", progress=rec)
    rec.check()
    assert {c[0] for c in rec.calls} == {PIECES}


def _tensor():
    from dpverify.exact import TensorPoly

    return TensorPoly([[1, 0], [0, 1]], basis="monomial")  # 1 + x y


def test_finite_max_error_reports_every_pass_to_the_end():
    rec = _Recorder()
    k = 300  # over 256 points: more than one report per pass (every 64 points)
    poly = MonomialPoly([0, 1])
    res = finite_max_error(poly, {"kind": "expr", "expr": "x"},
                           {"kind": "integers", "lo": 0, "hi": k}, progress=rec)
    assert res.upper == 0  # p = f exactly
    rec.check()
    points = [c for c in rec.calls if c[0] == "max error: points"]
    assert points[-1] == ("max error: points", k + 1, k + 1)
    assert [c[1] for c in points] == sorted(c[1] for c in points)  # monotone


def test_certify_finite_screened_path_reports():
    rec = _Recorder()
    approx = or_polynomial(200, "1/10")  # degree >= 16, k >= 64: the screened fast path
    cert = certify(approx, progress=rec)
    assert cert.complete
    rec.check()
    stages = [c[0] for c in rec.calls]
    assert any(s.startswith("max error: screening") for s in stages)
    # the maximum's last stage; the coefficient strings of the statement come after it
    assert [s for s in stages if s.startswith("max error")][-1] == "max error: exact decisions"
    assert stages[-1].startswith("coefficients in lowest terms")


def test_remez_reports_iterations():
    rec = _Recorder()
    remez("exp(x)", 4, (0, 1), progress=rec)
    rec.check()
    assert rec.calls[0] == ("remez degree 4: iterations", 0, None)
    assert [c[1] for c in rec.calls] == list(range(len(rec.calls)))


def test_checks_and_refine_report_counts():
    rec = _Recorder()
    ck = Checks(None, progress=rec)
    # bisect each piece once: 2 listed pieces -> 2 + 4 bounds
    ok, why = refine([((0, 2), 1), ((2, 4), 1)],
                     lambda p, prec: "bounded" if p[1] - p[0] < 2 else "bisect",
                     lambda p: [(p[0], p[0] + 1), (p[0] + 1, p[1])], str, ck, 64)
    assert ok is True
    rec.check()
    bounds = [c for c in rec.calls if c[0] == "bounding pieces"]
    assert bounds[-1] == ("bounding pieces", 6, 6)
    assert rec.calls[-1] == ("checks", 0, None)  # back to counting checks


def test_checks_take_the_callback_of_reporting():
    rec = _Recorder()
    with reporting(rec):
        ck = Checks(None)
    assert ck.progress is rec
    assert Checks(None).progress is None  # outside the block: none
    for _ in range(64):
        ck.tick()
    assert rec.calls == [("checks", 0, None)]  # once per 64 ticks


class _Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_line_disabled_off_a_terminal_and_throttled_on_one():
    s = io.StringIO()
    with Line("v", stream=s) as line:
        line("x", 1, 2)
    assert s.getvalue() == "" and line.lines == 0
    s = _Tty()
    with Line("v", stream=s, interval=3600) as line:
        for i in range(1000):
            line("pieces", i + 1, 1000)
        line("checks", 3)
    # the first report, the final 100 %, the new stage: not 1000 redraws
    assert line.lines == 3
    out = s.getvalue()
    assert "v: pieces 100% (1000/1000)" in out and "v: checks 3" in out
    assert out.endswith("\n") and out.count("\n") == 1 and "v: done in" in out


def test_line_stopped_and_broken_stream():
    s = io.StringIO()
    try:
        with Line("v", stream=s, enabled=True) as line:
            line("x", 0)
            raise KeyError
    except KeyError:
        pass
    assert "v: stopped after" in s.getvalue()

    class Broken(io.StringIO):
        def write(self, text: str) -> int:
            raise OSError("closed")

    line = Line("v", stream=Broken(), enabled=True)
    line("x", 1)  # must not raise: a broken stderr never changes a verdict
    assert not line.enabled
    line.close()
