"""pytest plugin: the ``dpverify_check`` fixture, which is
:func:`dpverify.testing.check_implementation`.

Installed as a ``pytest11`` entry point, so any project that has dpverify installed can
write::

    def test_my_fast_or(dpverify_check):
        dpverify_check(my_fast_or, ("or", {"k": 100, "gamma": "1e-6"}), ulps=1)

A failing check (``exhaustive=True`` included: every binary32 input) fails the test with
the worst input, the exact reference value there and the error in ulps
(:func:`~dpverify.testing.check_implementation`), in a few lines: the check's own frames
are hidden from the traceback (``__tracebackhide__``), so pytest shows the test's line and
the message.  With ``raise_on_failure=False`` it returns the report
instead (``report.passed``).

Loading: automatic through the entry point.  With ``PYTEST_DISABLE_PLUGIN_AUTOLOAD=1``
(or without the installed metadata) load it with ``pytest -p dpverify.pytest_plugin``.

Guarantee
---------
The fixture adds nothing to :func:`~dpverify.testing.check_implementation` (see there
for what is rigorous).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

__all__ = ["dpverify_check"]


@pytest.fixture
def dpverify_check() -> Callable[..., Any]:
    """:func:`dpverify.testing.check_implementation` (same arguments, same result)."""
    # imported when a test asks for the fixture: loading the plugin in every pytest session
    # of a project that has dpverify installed must not import numpy and python-flint
    from .testing import check_implementation

    return check_implementation
