"""``dpverify supnorm`` prints piece counts that match the certificate.

In one variable the search (Taylor models) and the evidence for the checker (rebuilt by the
Taylor-form branch and bound) have different numbers of pieces; the output used to print
the search's count as if it were the certificate's.  Each figure is now labelled, and both
are read back from the written certificate (the file, not the code's own variables).
"""

from __future__ import annotations

import json
import re

import pytest

from dpverify.cli import main


def _row(text: str, label: str) -> str:
    m = re.search(rf"^{re.escape(label)}\s+(.*)$", text, re.MULTILINE)
    assert m, f"no row {label!r} in:\n{text}"
    return m.group(1)


@pytest.mark.parametrize("f, poly, interval", [
    # exp on [0, 1]: 1 search piece, the evidence needs more (the case of the bug)
    ("exp(x)", "1,1,1/2,1/6", ["0", "1"]),
    ("sin(3*x)", "0,3,0,-9/2", ["-1", "1"]),
])
def test_printed_piece_counts_match_certificate(tmp_path, capsys, f, poly, interval) -> None:
    out = tmp_path / "cert.json"
    code = main(["supnorm", "--f", f, "--poly", poly, "--interval", *interval,
                 "--out", str(out)])
    assert code == 0
    text = capsys.readouterr().out
    cert = json.loads(out.read_text())
    n_evidence = len(cert["evidence"]["pieces"])
    n_search = cert["info"]["stats"]["search_pieces"]
    assert cert["info"]["stats"]["evidence_pieces"] == n_evidence
    ev = re.match(r"(\d+) pieces? \(re-checked by dpverify verify\)", _row(text, "evidence"))
    assert ev and int(ev.group(1)) == n_evidence
    se = re.search(r"\((\d+) pieces? searched", _row(text, "search"))
    assert se and int(se.group(1)) == n_search
    assert "pieces" not in cert["info"]["stats"]  # no unlabelled count left


def test_the_two_counts_can_differ(tmp_path, capsys) -> None:
    # guards the test above against passing only because the counts happen to coincide
    out = tmp_path / "cert.json"
    main(["supnorm", "--f", "exp(x)", "--poly", "1,1,1/2,1/6", "--interval", "0", "1",
          "--out", str(out)])
    capsys.readouterr()
    cert = json.loads(out.read_text())
    assert cert["info"]["stats"]["search_pieces"] != len(cert["evidence"]["pieces"])


def test_progress_flag_reports_search_pieces(monkeypatch, tmp_path, capsys) -> None:
    # the search reports at most every 0.2 s; a stub report makes the line appear at once
    import dpverify.commands.supnorm_cmd as cmd

    real = cmd.supnorm_certificate

    def reporting(*args, progress=None, **kwargs):
        assert progress is not None
        progress("sup |f - p|: pieces", 7, None)
        return real(*args, progress=progress, **kwargs)

    monkeypatch.setattr(cmd, "supnorm_certificate", reporting)
    argv = ["supnorm", "--f", "exp(x)", "--poly", "1,1", "--interval", "0", "1"]
    assert main(argv + ["--progress"]) == 0
    err = capsys.readouterr().err
    assert "supnorm" in err and "7" in err  # counts only, no values
    assert main(argv + ["--no-progress"]) == 0
    assert "supnorm" not in capsys.readouterr().err
