"""The CLI's limits hold: --timeout and --max-memory on every command, one FLINT call that
would pass them refused before it starts (or, in the `dpverify` program, the child process
killed at the deadline), JSON inputs capped and never read from a FIFO or device, --out
written only to regular files (or '-'), and the messages of hostile flag values."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
import time

import pytest

from dpverify import cli
from dpverify.cli import main
from tests._timing import slowdown

EXE = [sys.executable, "-m", "dpverify"]


def _run(args: list[str], timeout: float = 60, env_extra: dict[str, str] | None = None,
         code: str | None = None) -> tuple[subprocess.CompletedProcess[str], float]:
    env = dict(os.environ)
    env.update(env_extra or {})
    argv = [sys.executable, "-c", code, *args] if code else [*EXE, *args]
    t0 = time.monotonic()
    proc = subprocess.run(argv, capture_output=True, text=True, timeout=timeout, env=env)
    return proc, time.monotonic() - t0


def _one_line(err: str) -> str:
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert len(lines) == 1, err
    assert "Traceback" not in err
    return lines[0]


# ------------------------------------------------------------- every command has limits


def _leaves(parser):
    import argparse

    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                kids = list(_leaves(sub))
                if kids:
                    yield from ((f"{name} {k}", p) for k, p in kids)
                elif sub.get_default("handler") is not None:
                    yield name, sub


def test_every_command_takes_timeout_and_max_memory():
    leaves = dict(_leaves(cli.build_parser()))
    assert set(cli.COMMANDS) <= {name.split()[0] for name in leaves}
    for name, parser in leaves.items():
        opts = parser._option_string_actions
        assert "--timeout" in opts and "--max-memory" in opts and "--max-input" in opts, name


@pytest.mark.parametrize("flag, value, needle", [
    ("--max-memory", "lots", "--max-memory must be a size"),
    ("--max-memory", "0.5K", "--max-memory must be between"),
    ("--max-input", "-3", "--max-input must be a size"),
    ("--timeout", "0", "--timeout must be in"),
    ("--timeout", "1e-400", "--timeout '1e-400' is too small: it rounds to 0 seconds"),
])
def test_bad_limit_flags_exit_2_before_work(flag, value, needle, capsys):
    assert main(["or", "--k", "5", "--gamma", "1/10", flag, value]) == 2
    assert needle in _one_line(capsys.readouterr().err)


# ------------------------------------------------------ one long FLINT call (issue case)


def _big_poly(tmp_path, n: int) -> str:
    path = tmp_path / f"p{n}.json"
    path.write_text(json.dumps(["1"] * n))
    return f"@{path}"


def test_huge_degree_supnorm_is_refused_at_once(tmp_path, capsys):
    """`supnorm --f exp(x)` with 50001 coefficients under --timeout 10 ran 37.6 s in one
    Taylor shift (2.1 GB); 100001 ran out of memory and aborted.  Now both are refused
    before the call: exit 1, one 'undecided ... too expensive' line."""
    for n in (50001, 100001):
        t0 = time.monotonic()
        code = main(["supnorm", "--f", "exp(x)", "--poly", _big_poly(tmp_path, n),
                     "--interval", "0", "1", "--timeout", "10"])
        line = _one_line(capsys.readouterr().err)
        assert code == 1 and time.monotonic() - t0 < 5
        assert "undecided" in line and "too expensive" in line
        assert f"degree-{n - 1}" in line


def test_memory_budget_refuses_before_the_call(tmp_path, capsys):
    code = main(["supnorm", "--f", "exp(x)", "--poly", _big_poly(tmp_path, 20001),
                 "--interval", "0", "1", "--max-memory", "200M"])
    line = _one_line(capsys.readouterr().err)
    assert code == 1 and "of memory" in line and "raise --max-memory" in line


_NO_COST_CHECKS = ("import sys, dpverify.budget as b\n"
                   "b.check_cost = lambda *a, **k: None\n"
                   "import dpverify.certify.taylor_model as t\n"
                   "t.check_cost = b.check_cost\n"
                   "from dpverify.cli import console_main\n"
                   "sys.argv[0] = 'dpverify'\n"
                   "console_main()\n")


@pytest.mark.skipif(not hasattr(os, "fork"), reason="the child-process backstop is POSIX")
def test_child_process_is_killed_at_the_deadline(tmp_path):
    """The backstop for what the cost model misses: with the cost checks switched off,
    the degree-40000 Taylor shift (~15 s in one FLINT call) runs, and the `dpverify`
    program kills its child at 1.05 --timeout + 1 s.  --timeout 3 leaves the child time
    to read the 40001 coefficients and reach the FLINT call first, also on a busy machine
    (at --timeout 1 a loaded machine's child was still in Python at the deadline, and its
    own alarm ended it instead)."""
    factor = slowdown()
    proc, elapsed = _run(["supnorm", "--f", "exp(x)", "--poly", _big_poly(tmp_path, 40001),
                          "--interval", "0", "1", "--timeout", "3"], code=_NO_COST_CHECKS)
    line = _one_line(proc.stderr)
    assert proc.returncode == 1 and proc.stdout == ""
    assert "undecided: time limit of 3 s reached (the computation was stopped" in line
    # + interpreter start-up and the parent's own work, slower on a busy machine
    assert elapsed < 3 * 1.05 + 1 + 3 * max(factor, slowdown())


@pytest.mark.skipif(not hasattr(os, "fork"), reason="the child-process backstop is POSIX")
def test_child_process_memory_limit_ends_in_one_line(tmp_path):
    """With the cost checks off, an allocation fails under --max-memory 250M: FLINT's or
    GMP's abort (SIGABRT, 'FLINT exception: Unable to allocate memory') becomes one line,
    exit 1."""
    proc, _ = _run(["supnorm", "--f", "exp(x)", "--poly", _big_poly(tmp_path, 20001),
                    "--interval", "0", "1", "--timeout", "60", "--max-memory", "250M"],
                   code=_NO_COST_CHECKS)
    line = _one_line(proc.stderr)
    assert proc.returncode == 1
    assert "undecided: out of memory" in line
    assert "FLINT" not in proc.stderr and "GNU MP" not in proc.stderr


# ----------------------------------------------------------------------- JSON inputs


def test_poly_from_dev_zero_is_refused(capsys):
    assert main(["supnorm", "--f", "x", "--poly", "@/dev/zero", "--interval", "0", "1"]) == 2
    line = _one_line(capsys.readouterr().err)
    assert "character device, not a regular file" in line and "--poly" in line


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this platform")
def test_poly_from_a_fifo_does_not_block(tmp_path, capsys):
    fifo = tmp_path / "f"
    os.mkfifo(fifo)
    t0 = time.monotonic()
    assert main(["supnorm", "--f", "x", "--poly", f"@{fifo}", "--interval", "0", "1"]) == 2
    assert time.monotonic() - t0 < 5
    assert "is a FIFO, not a regular file" in _one_line(capsys.readouterr().err)


def test_input_cap_and_flag(tmp_path, capsys):
    poly = _big_poly(tmp_path, 1000)  # 5001 bytes
    argv = ["supnorm", "--f", "x", "--poly", poly, "--interval", "0", "1"]
    assert main([*argv, "--max-input", "4K"]) == 2
    line = _one_line(capsys.readouterr().err)
    assert "larger than the input cap of 4096 bytes (5000 bytes" in line
    assert "--max-input" in line
    assert main([*argv, "--max-input", "5000"]) in (0, 1)


def test_poly_from_stdin(monkeypatch, capsys):
    import io

    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b'["0", "0", "1"]')))
    assert main(["supnorm", "--f", "x^2", "--poly", "@-", "--interval", "0", "1"]) == 0
    assert "certified" in capsys.readouterr().out


def test_read_json_stops_at_the_cap(tmp_path):
    """A file that grows while it is read (or lies about its size) is still read only up
    to the cap plus one byte."""
    from dpverify.errors import InvalidParameterError
    from dpverify.jsonfile import max_input, read_capped

    path = tmp_path / "a.json"
    path.write_bytes(b"[" + b"1," * 100 + b"1]")
    with max_input(100):
        with pytest.raises(InvalidParameterError, match="larger than the input cap of 100"):
            read_capped(path, "x")
    assert len(read_capped(path, "x")) == 203


# ------------------------------------------------------------------------------ --out


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this platform")
def test_out_fifo_is_refused_before_work(tmp_path):
    """`mkfifo f; dpverify or ... --out f` blocked in the write forever."""
    fifo = tmp_path / "f"
    os.mkfifo(fifo)
    proc, elapsed = _run(["or", "--k", "5", "--gamma", "1/10", "--timeout", "5",
                          "--out", str(fifo)], timeout=30)
    assert proc.returncode == 2 and elapsed < 10
    assert "is a FIFO, not a regular file" in _one_line(proc.stderr)
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)


def test_out_dash_is_stdout_and_dev_null_discards(capsys):
    assert main(["or", "--k", "5", "--gamma", "1/10", "--out", "-"]) == 0
    out = capsys.readouterr().out
    assert json.loads(out)["format"] == "dpverify-certificate"  # one JSON document
    assert main(["or", "--k", "5", "--gamma", "1/10", "--out", os.devnull]) == 0
    assert "certified" in capsys.readouterr().out


@pytest.mark.skipif(not hasattr(os, "fork"), reason="the computing child is POSIX")
def test_program_stdout_json_is_the_file_and_never_partial(tmp_path):
    """The `dpverify` program: the JSON for standard output is written by the computing
    child into a temporary file and copied out after it succeeded (a document of
    gigabytes never crosses the pipe): `--out -` and `--out /dev/stdout` (and `--json`,
    the same path) print exactly the bytes `--out FILE` writes; without a usable TMPDIR
    it travels in the outcome; a child killed at the deadline prints nothing."""
    path = tmp_path / "or.json"
    base = ["or", "--k", "7", "--gamma", "1/100", "--timeout", "30"]
    proc, _ = _run([*base, "--out", str(path)])
    assert proc.returncode == 0
    want = path.read_text()
    for extra, env in ((["--out", "-"], None), (["--out", "/dev/stdout"], None),
                       (["--out", "-"], {"TMPDIR": str(tmp_path / "missing")})):
        proc, _ = _run([*base, *extra], env_extra=env)
        assert proc.returncode == 0 and proc.stdout == want, (extra, proc.stderr)
    assert sorted(os.listdir(tmp_path)) == ["or.json"]
    # --out /dev/stderr is refused (the document goes to a file or standard output)
    proc, _ = _run([*base, "--out", "/dev/stderr"])
    assert proc.returncode == 2 and "not to standard error" in _one_line(proc.stderr)
    # killed while computing: nothing on standard output
    proc, _ = _run(["supnorm", "--f", "exp(x)", "--poly", _big_poly(tmp_path, 40001),
                    "--interval", "0", "1", "--timeout", "1", "--out", "-"],
                   code=_NO_COST_CHECKS)
    assert proc.returncode == 1 and proc.stdout == ""
    assert "time limit of 1 s" in _one_line(proc.stderr)


def test_a_reader_that_stops_early_gets_no_traceback():
    """`dpverify ... --out - | head -c 100`: a broken pipe ends the program silently with
    141 (128 + SIGPIPE, as a shell reports a program killed by it)."""
    proc = subprocess.Popen([*EXE, "rofk", "--r", "2", "--k", "20", "--gamma", "1e-3",
                             "--out", "-"], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert proc.stdout is not None and proc.stdout.read(100).startswith(b"{")
    proc.stdout.close()  # the document is megabytes: the writer meets a closed pipe
    err = proc.stderr.read().decode() if proc.stderr else ""
    assert proc.wait(60) == 141 and err == "", err


def test_out_directory_path_is_an_error(tmp_path, monkeypatch, capsys):
    """`--out newdir/` wrote a file named newdir."""
    monkeypatch.chdir(tmp_path)
    assert main(["or", "--k", "5", "--gamma", "1/10", "--out", "newdir/"]) == 2
    assert "is a directory path" in _one_line(capsys.readouterr().err)
    assert not (tmp_path / "newdir").exists()


def test_out_long_legal_name_is_written(tmp_path, capsys):
    """A 245-character name is legal; the temporary name was longer than 255 and the
    write failed ('File name too long')."""
    name = tmp_path / ("a" * 240 + ".json")
    assert len(name.name) == 245
    assert main(["or", "--k", "5", "--gamma", "1/10", "--out", str(name)]) == 0
    assert json.loads(name.read_text())["format"] == "dpverify-certificate"
    assert sorted(p.name for p in tmp_path.iterdir()) == [name.name]  # no stray temp file
    too_long = tmp_path / ("b" * 256)
    assert main(["or", "--k", "5", "--gamma", "1/10", "--out", str(too_long)]) == 2
    assert "more than the 255" in _one_line(capsys.readouterr().err)


# --------------------------------------------------------------------------- messages


@pytest.mark.parametrize("expr", ["-x^2", "-exp(x)", "-1/2*x", "-(x+1)"])
def test_expression_flag_value_may_start_with_a_dash(expr, capsys):
    """`--f "-x^2"` failed with "expected one argument" (only `--f=-x^2` worked)."""
    assert main(["supnorm", "--f", expr, "--poly", "0", "--interval", "0", "1"]) == 0
    assert "certified" in capsys.readouterr().out


def test_a_single_dash_typo_is_still_an_error(capsys):
    with pytest.raises(SystemExit) as info:
        main(["or", "-k", "5", "--gamma", "1/10"])
    assert info.value.code == 2
    assert "--k" in _one_line(capsys.readouterr().err)


def test_huge_literal_names_the_flag(capsys):
    """`--f 1e100000*x` blamed target.expr; the canonical text (numbers in full) is past
    the verifier's limit, and the message says so and names --f."""
    assert main(["supnorm", "--f", "1e100000*x", "--poly", "0", "--interval", "0", "1"]) == 2
    line = _one_line(capsys.readouterr().err)
    assert "--f" in line and "target.expr" not in line
    assert "100001 digits" in line and "at most 100000" in line


@pytest.mark.parametrize("f, needle, code", [
    # a pole at a dyadic point (bisection hits it exactly): proven undefined
    ("1/(x-1/2)", "not certified: f is undefined at x = 1/2: division by zero", 1),
    # a pole the bisection never hits: unbounded enclosures, nothing proven
    ("1/(x-1/3)", "undecided: f has no finite bound near", 1),
    ("log(x-2)", "not certified: f is undefined on the domain: log", 1),
    # every value finite, but too large for ball arithmetic
    ("exp(1e308*x)", "undecided: f at x = 1 is a finite real too large to enclose", 1),
])
def test_poles_and_overflow_are_consistent(f, needle, code, capsys):
    """A pole at 1/2 was exit 2 ('f is not finite') while one at 1/3 was exit 1, and
    exp(1e308*x) was called 'not finite'.  Now: f undefined at a point of the domain is
    'not certified', no finite enclosure is 'undecided', both exit 1."""
    assert main(["supnorm", "--f", f, "--poly", "0", "--interval", "0", "1"]) == code
    assert needle in _one_line(capsys.readouterr().err)
