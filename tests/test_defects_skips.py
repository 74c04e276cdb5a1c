"""The unexpected-skip policy of tests/conftest.py (DPVERIFY_STRICT_SKIPS=1 in CI).

Each case runs pytest in a subprocess on a scratch directory holding a copy of the real
conftest.py, so the hook under test is exactly the one the suite uses.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

CONFTEST = Path(__file__).with_name("conftest.py")

BODY = '''
import pytest

def test_passes():
    pass

def test_listed_skip():
    pytest.skip("requires POSIX signals (SIGALRM)")

@pytest.mark.xfail(reason="xfail is not a skip")
def test_xfail():
    assert False
'''


def _run(tmp_path: Path, extra: str, strict: bool,
         module_skip: bool = False) -> subprocess.CompletedProcess:
    shutil.copy(CONFTEST, tmp_path / "conftest.py")
    (tmp_path / "test_case.py").write_text(BODY + extra)
    if module_skip:  # a whole module skipped at collection time
        (tmp_path / "test_mod.py").write_text(
            "import pytest\npytest.importorskip('dpverify_module_level_xyz')\n"
            "def test_x():\n    pass\n")
    env = dict(os.environ)
    env.pop("DPVERIFY_STRICT_SKIPS", None)
    if strict:
        env["DPVERIFY_STRICT_SKIPS"] = "1"
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
         "-p", "no:hypothesispytest", "-p", "no:benchmark", "--rootdir", str(tmp_path),
         str(tmp_path)],
        capture_output=True, text=True, env=env, cwd=tmp_path, timeout=120)


UNLISTED = '''
def test_unlisted_skip():
    pytest.importorskip("dpverify_no_such_module_xyz")
'''


def test_allow_list_is_a_short_documented_dict():
    import importlib.util

    spec = importlib.util.spec_from_file_location("_cf", CONFTEST)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    assert isinstance(mod.ALLOWED_SKIPS, dict) and 0 < len(mod.ALLOWED_SKIPS) <= 10
    assert all(isinstance(k, str) and k and isinstance(v, str) and v.strip()
               for k, v in mod.ALLOWED_SKIPS.items())
    # a missing import is never an allowed reason (CI installs every extra)
    assert not mod._allowed("could not import 'scipy': No module named 'scipy'")


@pytest.mark.parametrize("strict,expected", [(True, 1), (False, 0)])
def test_unlisted_skip_fails_only_in_strict_mode(tmp_path, strict, expected):
    res = _run(tmp_path, UNLISTED, strict, module_skip=True)
    assert res.returncode == expected, res.stdout + res.stderr
    # both unexpected skips are listed in the summary, in either mode
    assert "dpverify_no_such_module_xyz" in res.stdout
    assert "dpverify_module_level_xyz" in res.stdout


def test_listed_skips_and_xfail_pass_in_strict_mode(tmp_path):
    res = _run(tmp_path, "", strict=True)
    assert res.returncode == 0, res.stdout + res.stderr
    assert "unexpected skips" not in res.stdout


@pytest.mark.slow
def test_module_level_skip_alone_fails_in_strict_mode(tmp_path):
    # only a module-level skip: pytest's own status would be 5 (no tests ran)
    shutil.copy(CONFTEST, tmp_path / "conftest.py")
    (tmp_path / "test_mod.py").write_text(
        "import pytest\npytest.importorskip('dpverify_no_such_module_xyz')\n"
        "def test_x():\n    pass\n")
    env = dict(os.environ, DPVERIFY_STRICT_SKIPS="1")
    res = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                          "-p", "no:hypothesispytest", "-p", "no:benchmark", "--rootdir",
                          str(tmp_path), str(tmp_path)],
                         capture_output=True, text=True, env=env, cwd=tmp_path, timeout=120)
    assert res.returncode == 1, res.stdout + res.stderr
