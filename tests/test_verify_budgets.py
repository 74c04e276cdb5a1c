"""The verifier's budgets hold whatever the certificate holds: a deadline stops even one
long computation (the check runs in a child process killed at the deadline), a memory
budget refuses what cannot fit, and the arguments are checked.

Times are asserted against the documented bound ``1.05 T + 0.5 s`` with a generous margin
for a loaded machine; the work that would overrun is made long on purpose (a blocking call
standing for one FLINT call, or a conversion estimated at tens of seconds).
"""

from __future__ import annotations

import json
import os
import time
from fractions import Fraction

import pytest

from dpverify.certify import certify
from dpverify.constructions.chebyshev import or_polynomial
from dpverify.verify import (
    ArgumentTypeError,
    ArgumentValueError,
    Malformed,
    verify_bytes,
    verify_document,
    verify_file,
)
from dpverify.verify import check as check_module
from dpverify.verify.bounded import available, hard_limit
from dpverify.verify.report import reporting
from tests._hostile import bernstein_identity, forged_chebyshev

needs_fork = pytest.mark.skipif(not available(), reason="os.fork is not available")


def _or() -> dict:
    return json.loads(certify(or_polynomial(5, "1/10")).to_json())


def _bernstein(n: int) -> dict:
    return bernstein_identity(n)


def _stalling(seconds: float):
    """A kind checker that states its claim, makes one check, then blocks in one call
    (as a long FLINT call does: no Python code runs, no deadline is looked at)."""
    def check(st, ev, ck, out):
        out.append("Claim: something.")
        ck.add("first check", True, "made before the long call")
        ck.run("long call", lambda: (time.sleep(seconds), (True, ""))[1])
    return check


@needs_fork
def test_a_deadline_stops_one_long_computation(monkeypatch):
    monkeypatch.setitem(check_module.KINDS, "supnorm-finite", _stalling(60))
    t0 = time.monotonic()
    rep = verify_document(_or(), deadline_seconds=0.5)
    elapsed = time.monotonic() - t0
    assert elapsed < hard_limit(0.5) + 1.5, elapsed  # documented: 1.05 T + 0.5 s
    assert rep.status == "undecided" and rep.reason.startswith("time limit")
    # what the child said before it was stopped is kept
    assert rep.kind == "supnorm-finite" and rep.statement == ["Claim: something."]
    assert rep.checks[0] == ("first check", True, "made before the long call")


@needs_fork
def test_a_child_that_dies_is_undecided_naming_the_budget(monkeypatch):
    def die(st, ev, ck, out):
        os.abort()  # what FLINT does when an allocation fails
    monkeypatch.setitem(check_module.KINDS, "supnorm-finite", die)
    rep = verify_document(_or(), deadline_seconds=30)
    assert rep.status == "undecided"
    assert rep.checks[-1][0] == "memory budget" and "SIGABRT" in rep.checks[-1][2]


@needs_fork
def test_malformed_in_the_child_is_raised_in_the_caller(tmp_path):
    with pytest.raises(Malformed, match="not JSON"):
        verify_bytes(b"{", deadline_seconds=5)
    path = tmp_path / "missing.json"
    with pytest.raises(Malformed, match="cannot read"):
        verify_file(path, deadline_seconds=5)


@needs_fork
def test_progress_reports_reach_the_caller_from_the_child():
    seen = []
    with reporting(lambda stage, done, total: seen.append(stage)):
        rep = verify_document(_bernstein(40), deadline_seconds=60)
    assert rep.ok and "bounding pieces" in seen


def test_bernstein_20001_coefficients_with_a_5_s_deadline_returns_in_time():
    """The conversion would take over a minute: it is refused up front (estimate), and
    in any case the call returns within the documented bound."""
    doc = _bernstein(20000)
    t0 = time.monotonic()
    rep = verify_document(doc, deadline_seconds=5)
    assert time.monotonic() - t0 < hard_limit(5) + 1.5
    assert rep.status == "undecided"
    assert any("too expensive" in d or n == "time limit" for n, _, d in rep.checks)


def test_a_memory_budget_refuses_what_cannot_fit():
    rep = verify_document(_bernstein(20000), max_memory=64 * 2**20)
    assert rep.status == "undecided"
    detail = dict((n, d) for n, _, d in rep.checks)["polynomial degree"]
    assert "too expensive" in detail and "memory budget 64 MiB" in detail
    assert "--max-memory" in detail


def test_a_forged_huge_chebyshev_degree_is_refuted_without_expanding_it():
    """or/chebyshev with gamma 1e-17157 at k = 3 names T_30000-ish; the certificate lists
    30001 small coefficients.  Composing T_t with the affine map took 48 s and 1.8 GB; the
    differential-equation check is linear in the (small) polynomial."""
    doc = forged_chebyshev(30000)
    t0 = time.monotonic()
    rep = verify_document(doc, deadline_seconds=35)
    assert time.monotonic() - t0 < 20  # was 47.9 s (and 1.8 GB)
    assert rep.status == "fails"
    assert any(n == "construction polynomial" and ok is False for n, ok, _ in rep.checks)


@pytest.mark.parametrize("seconds", [10**400, -10**400, Fraction(10**400, 3)])
def test_deadlines_beyond_the_float_range_are_argument_errors(seconds):
    data = json.dumps(_or()).encode()
    with pytest.raises(ArgumentValueError, match="deadline_seconds"):
        verify_bytes(data, deadline_seconds=seconds)


@pytest.mark.parametrize("memory, error", [("4G", ArgumentTypeError), (True, ArgumentTypeError),
                                           (1.5e9, ArgumentTypeError),
                                           (1000, ArgumentValueError),
                                           (-1, ArgumentValueError)])
def test_bad_max_memory(memory, error):
    with pytest.raises(error, match="max_memory"):
        verify_document(_or(), max_memory=memory)


def test_huge_deadlines_and_budgets_are_fine():
    assert verify_document(_or(), deadline_seconds=1e300, max_memory=2**80).ok


def test_the_command_lines_take_a_timeout_and_a_memory_budget(tmp_path, capsys):
    from dpverify.cli import main as dpverify_main
    from dpverify.verify.cli import main as verify_main

    path = tmp_path / "or.json"
    path.write_text(json.dumps(_or()))
    assert verify_main([str(path), "--timeout", "30", "--max-memory=1G"]) == 0
    assert dpverify_main(["verify", str(path), "--timeout", "30", "--max-memory", "512M"]) == 0
    capsys.readouterr()
    for argv in ([str(path), "--max-memory", "12"], [str(path), "--timeout", "-1"],
                 [str(path), "--timeout"], [str(path), "--max-memory", "1.5G"]):
        assert verify_main(argv) == 2, argv
        assert capsys.readouterr().err.count("\n") == 1
    assert dpverify_main(["verify", str(path), "--max-memory", "lots"]) == 2
    assert "--max-memory" in capsys.readouterr().err


def test_dpverify_verify_takes_every_commands_memory_grammar(tmp_path, capsys):
    """`--max-memory` of `dpverify verify` is the flag every command takes: 1.5G and 50%
    were refused there ("expected a size such as 4G or 512M") though its help offered
    them."""
    from dpverify.cli import main as dpverify_main

    path = tmp_path / "or.json"
    path.write_text(json.dumps(_or()))
    for size in ("1.5G", "50%", "2GiB", "512M"):
        assert dpverify_main(["verify", str(path), "--max-memory", size]) == 0, size
    capsys.readouterr()


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="FIFOs are POSIX")
def test_dpverify_verify_refuses_what_could_block(tmp_path, capsys):
    """A FIFO as CERT.json waited until the time limit (600 s by default) and was then
    reported as one long computation; /dev/zero was read to the 256 MiB cap."""
    from dpverify.cli import main as dpverify_main

    fifo = tmp_path / "cert.json"
    os.mkfifo(fifo)
    t0 = time.monotonic()
    for path, kind in ((str(fifo), "a FIFO"), ("/dev/zero", "a character device")):
        assert dpverify_main(["verify", path, "--timeout", "30"]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and f"is {kind}, not a regular file" in err, err
    assert dpverify_main(["verify", str(tmp_path)]) == 2
    assert "is a directory" in capsys.readouterr().err
    assert time.monotonic() - t0 < 10
