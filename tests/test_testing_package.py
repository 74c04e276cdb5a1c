"""dpverify.testing is a package split by concept: its public API.

The expected names are written out here, not read from the package: those of the module
before the split (its ``__all__``, and the constants its docstrings name), with the
budgets of the search (a default of 10^6 points, as documented in docs/testing.md).
"""

from __future__ import annotations

import importlib
import pkgutil
from pathlib import Path

import dpverify.testing as testing

PUBLIC = ["check_implementation", "ImplementationCheck", "ulp_of", "reference",
          "assert_matches_reference", "gammas", "or_params", "rofk_params",
          "bernstein_params", "jackson_kernel_params", "jackson_multiplier_params"]


def test_public_api_unchanged():
    assert testing.__all__ == PUBLIC
    for name in PUBLIC:
        assert callable(getattr(testing, name)), name
    # the constants the docstrings refer to stay reachable from the package
    assert testing.ALL_INTEGERS_MAX == 100_000
    assert testing.MAX_POINTS == 10**10
    assert testing.DEFAULT_POINTS == 1_000_000
    assert testing.DEFAULT_DEGREE == 16


def test_submodules_are_small_and_declare_their_api():
    subs = [m.name for m in pkgutil.iter_modules(testing.__path__, "dpverify.testing.")]
    assert {"dpverify.testing.check", "dpverify.testing.compare", "dpverify.testing.points",
            "dpverify.testing.references", "dpverify.testing.strategies"} <= set(subs)
    for name in subs:
        mod = importlib.import_module(name)
        assert mod.__file__ is not None
        lines = Path(mod.__file__).read_text(encoding="utf-8").count("\n")
        assert lines < 600, (name, lines)
        assert mod.__all__ and all(hasattr(mod, n) for n in mod.__all__), name
        assert mod.__doc__ and len(mod.__doc__.split()) > 10, name
    # each public name of the package is defined in exactly one submodule
    homes = {n: getattr(testing, n).__module__ for n in PUBLIC}
    assert set(homes.values()) <= set(subs)

