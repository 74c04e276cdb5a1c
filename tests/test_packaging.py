"""What the wheel installs: one top-level package, ``dpverify`` (no generic name such as
``proofs_checks`` in site-packages), typed (PEP 561 ``py.typed``); the claims ledger still
runs from a clone with ``python -m proofs_checks``."""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from pathlib import Path

from setuptools import find_packages

ROOT = Path(__file__).resolve().parent.parent


def _setting(section: str, key: str) -> list[str]:
    """A list-valued ``key`` of ``[section]`` in pyproject.toml (tomllib is Python 3.11+)."""
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    body = text[text.index(f"[{section}]\n"):].split("\n[", 1)[0]
    m = re.search(rf"^{re.escape(key)}\s*=\s*(\[.*?\])\s*$", body, re.M)
    assert m is not None, (section, key)
    return list(ast.literal_eval(m.group(1)))


def test_the_wheel_has_one_top_level_package():
    packages = find_packages(str(ROOT),
                             include=_setting("tool.setuptools.packages.find", "include"))
    assert "dpverify" in packages and "dpverify.verify" in packages
    assert {p.split(".")[0] for p in packages} == {"dpverify"}


def test_py_typed_is_shipped():
    assert (ROOT / "dpverify" / "py.typed").is_file()
    assert _setting("tool.setuptools.package-data", '"dpverify"') == ["py.typed"]


def test_the_ledger_runs_from_a_clone():
    out = subprocess.run([sys.executable, "-m", "proofs_checks", "--help"], cwd=ROOT,
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0 and "python -m proofs_checks" in out.stdout
