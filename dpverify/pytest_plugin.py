"""pytest plugin: the ``dpverify_check`` fixture, which is
:func:`dpverify.testing.check_implementation` (issue 16 item 2).

Installed as a ``pytest11`` entry point, so any project that has dpverify installed can
write::

    def test_my_fast_or(dpverify_check):
        dpverify_check(my_fast_or, ("or", {"k": 100, "gamma": "1e-6"}), ulps=1)

(or load it explicitly with ``pytest -p dpverify.pytest_plugin``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

__all__ = ["dpverify_check"]


@pytest.fixture
def dpverify_check() -> Callable[..., Any]:
    """:func:`dpverify.testing.check_implementation`."""
    from .testing import check_implementation

    return check_implementation
