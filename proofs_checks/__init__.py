"""Claims ledger: checks of the checkable claims of the five papers.

Run ``python -m proofs_checks [--quick] [--json] [--only ID]``; ``--write-docs`` rewrites
``docs/claims.md``.  Each check is a function ``check_*(quick: bool) -> dict`` returning a
record with ``id``, ``statement``, ``status`` (PASS / DISCREPANCY / OPEN), ``evidence`` and
``method`` (see :mod:`proofs_checks._result`).  PASS means "checked over the stated range",
never "proved".  Constructions from :mod:`dpverify` are treated as untrusted inputs; every
property is re-evaluated here in exact (flint) or rigorous (arb) arithmetic, or by exact
symbolic arithmetic (sympy) for exponent/table claims.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from typing import Any

from ._result import STATUSES, result

__all__ = ["PAPERS", "STATUSES", "all_checks", "run_all", "run_check"]

#: Paper keys in ledger order (files in ``shared/papers``).
PAPERS = ("thaler2012", "wang2013", "jin", "wang_slides", "alda2017")


def all_checks() -> list[Callable[[bool], dict[str, Any]]]:
    """Every check function, in module order."""
    from . import (
        alda_bernstein,
        alda_examples,
        alda_misc,
        exponents,
        gaussian,
        jin_mechanism,
        jin_rates,
        privacy,
        thaler_appb,
        thaler_degrees,
        thaler_polys,
        tuv_mechanism,
        wang_jackson,
    )

    mods = (thaler_polys, thaler_appb, thaler_degrees, privacy, tuv_mechanism, wang_jackson,
            exponents, gaussian, jin_rates, jin_mechanism, alda_bernstein, alda_misc,
            alda_examples)
    return [f for m in mods for f in m.CHECKS]


def run_check(fn: Callable[[bool], dict[str, Any]], quick: bool) -> dict[str, Any]:
    """Run one check; an exception becomes an OPEN record naming it (never a silent PASS)."""
    t0 = time.perf_counter()
    try:
        rec = fn(quick)
    except Exception as exc:  # noqa: BLE001 - reported in the ledger, not swallowed
        rec = result(
            f"internal/{fn.__module__.rsplit('.', 1)[-1]}.{fn.__name__}",
            "(check function failed)",
            "OPEN",
            f"{type(exc).__name__}: {exc}",
            "check raised an exception; nothing was decided",
        )
    rec["seconds"] = round(time.perf_counter() - t0, 3)
    rec["check"] = f"{fn.__module__}.{fn.__name__}"
    return rec


def _order(rec: dict[str, Any]) -> tuple[int, str]:
    paper = rec["id"].split("/", 1)[0]
    return (PAPERS.index(paper) if paper in PAPERS else len(PAPERS), rec["id"])


def _matches(rid: str, sel: list[str]) -> bool:
    return any(rid == s or rid.startswith(s.rstrip("/") + "/") for s in sel)


def run_all(quick: bool = True, only: Iterable[str] | None = None,
            progress: Callable[[str, int, int | None], None] | None = None,
            ) -> list[dict[str, Any]]:
    """Run the checks (all, or those whose id or paper key matches ``only``).

    Ids are only known from a check's record, so a selection is resolved by a quick
    run first (seconds) and the matching checks are then run in the requested mode.
    ``progress(stage, done, total)`` is called once per check function
    (:mod:`dpverify.progress` protocol).
    """
    fns = all_checks()
    sel = list(only) if only else None
    records = []
    for i, fn in enumerate(fns):
        if progress is not None:
            progress("checks", i, len(fns))
        rec = run_check(fn, True if sel else quick)
        if sel and not _matches(rec["id"], sel):
            continue
        if sel and not quick:
            rec = run_check(fn, False)
        records.append(rec)
    if progress is not None:
        progress("checks", len(fns), len(fns))
    records.sort(key=_order)
    return records
