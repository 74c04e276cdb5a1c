"""Result records of the claims ledger (one dict per checked claim).

Every check function takes ``quick: bool`` and returns :func:`result` (a plain JSON-able
dict).  ``status`` is ``PASS`` (checked over the stated range -- not a proof),
``DISCREPANCY`` (an exact or rigorously certified counterexample is in ``evidence`` and
``counterexample``) or ``OPEN`` (not decidable by the check; ``evidence`` says why).
"""

from __future__ import annotations

from typing import Any

from flint import fmpq

STATUSES = ("PASS", "DISCREPANCY", "OPEN")


def q(x: Any) -> str:
    """Exact rational as the string ``"p/q"`` (``"p"`` for integers)."""
    x = fmpq(x)
    return str(x.p) if x.q == 1 else f"{x.p}/{x.q}"


def result(
    id: str,
    statement: str,
    status: str,
    evidence: str,
    method: str,
    *,
    counterexample: dict[str, Any] | None = None,
    correction: str | None = None,
    data: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """Build one ledger entry (validates ``status``)."""
    if status not in STATUSES:
        raise ValueError(f"status must be one of {STATUSES}, got {status!r}")
    out: dict[str, Any] = {
        "id": id,
        "statement": statement,
        "status": status,
        "evidence": evidence,
        "method": method,
    }
    if counterexample is not None:
        out["counterexample"] = counterexample
    if correction is not None:
        out["correction"] = correction
    if data is not None:
        out["data"] = data
    return out
