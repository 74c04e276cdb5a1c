"""Every docstring example (``>>>``) in the package runs and gives the printed result
(doctests on the public API run in CI).  The examples are the documentation's
promises, so they are checked here like any other test."""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

import dpverify

# entry-point shims: importing them runs the CLI
_SKIP = {"dpverify.__main__", "dpverify.verify.__main__"}
MODULES = sorted(m.name for m in pkgutil.walk_packages(dpverify.__path__, "dpverify.")
                 if m.name not in _SKIP)
FLAGS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE


def _examples(name: str) -> tuple[int, int]:
    module = importlib.import_module(name)
    finder = doctest.DocTestFinder(exclude_empty=True)
    runner = doctest.DocTestRunner(optionflags=FLAGS)
    for test in finder.find(module, name, globs=vars(module).copy()):
        runner.run(test)
    res = runner.summarize(verbose=False)
    return res.failed, res.attempted


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples_run(name):
    failed, _ = _examples(name)
    assert failed == 0, f"{failed} docstring example(s) of {name} fail (run: python -m " \
                        f"pytest --doctest-modules {name.replace('.', '/')}.py)"
