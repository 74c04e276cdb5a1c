"""The verifier's size cap: 256 MiB by default, raised by ``--max-size`` / ``max_bytes=``.

A certificate is made small here and the cap set below its size, so each test exercises
the refusal (and the raised cap) without writing hundreds of megabytes.
"""

from __future__ import annotations

import json
import pathlib

import pytest

import dpverify
from dpverify import cli
from dpverify.verify import (
    ArgumentTypeError,
    ArgumentValueError,
    Malformed,
    verify_bytes,
    verify_file,
)
from dpverify.verify import main as verify_main
from dpverify.verify.load import MAX_BYTES


@pytest.fixture(scope="module")
def cert_path(tmp_path_factory: pytest.TempPathFactory) -> pathlib.Path:
    path = tmp_path_factory.mktemp("cap") / "c.json"
    cert = dpverify.minimax("exp(x)", 4, (-1, 1))
    path.write_text(json.dumps(cert.data))
    return path


def test_default_cap_is_256_mib() -> None:
    assert MAX_BYTES == 256 * 2**20


def test_file_over_the_cap_is_refused_and_says_how_to_raise_it(
        cert_path: pathlib.Path) -> None:
    size = cert_path.stat().st_size
    with pytest.raises(Malformed, match=r"size cap of 1 KiB; raise it with --max-size"):
        verify_file(cert_path, max_bytes=1024)
    assert size > 1024
    assert verify_file(cert_path, max_bytes=size).status == "holds"
    with pytest.raises(Malformed, match="size cap"):
        verify_file(cert_path, max_bytes=size - 1)
    data = cert_path.read_bytes()
    with pytest.raises(Malformed, match="size cap"):
        verify_bytes(data, max_bytes=size - 1)
    assert verify_bytes(data, max_bytes=size).status == "holds"


@pytest.mark.parametrize("bad,exc", [(True, ArgumentTypeError), ("1G", ArgumentTypeError),
                                     (1.5, ArgumentTypeError), (0, ArgumentValueError),
                                     (2**41, ArgumentValueError)])
def test_max_bytes_is_checked(cert_path: pathlib.Path, bad: object,
                              exc: type[Exception]) -> None:
    with pytest.raises(exc, match="max_bytes"):
        verify_file(cert_path, max_bytes=bad)  # type: ignore[arg-type]


def test_cli_flag(cert_path: pathlib.Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["verify", str(cert_path), "--max-size", "1K"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "raise it with --max-size" in err[0]
    assert cli.main(["verify", str(cert_path), "--max-size", "1G"]) == 0
    capsys.readouterr()
    assert cli.main(["verify", str(cert_path), "--max-size", "lots"]) == 2
    assert "--max-size" in capsys.readouterr().err
    assert verify_main([str(cert_path), "--max-size=1K"]) == 2
    assert "raise it with --max-size" in capsys.readouterr().err
    assert verify_main([str(cert_path), "--max-size", "2M"]) == 0
