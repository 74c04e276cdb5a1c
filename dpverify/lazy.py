"""Names of a package that load on first use (PEP 562 module ``__getattr__``).

A package that re-exports names from heavy modules keeps ``import package`` cheap by
listing where each name lives and importing that module when the name is first read
(``dpverify.certify``, ``dpverify.constructions``): start-up time is then paid only for
what a command uses (docs/architecture.md, "What loads when").
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any

__all__ = ["lazy_names"]


def lazy_names(package: str, home: dict[str, str], public: list[str]
               ) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """``(__getattr__, __dir__)`` for ``package``: a name of ``home`` is read from the
    submodule ``home[name]`` on first access (then cached in the package's namespace);
    ``__dir__`` lists ``public`` and what is already loaded."""
    namespace = importlib.import_module(package).__dict__

    def getattr_(name: str) -> Any:
        where = home.get(name)
        if where is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(f"{package}.{where}"), name)
        namespace[name] = value
        return value

    def dir_() -> list[str]:
        return sorted(set(namespace) | set(public))

    return getattr_, dir_
