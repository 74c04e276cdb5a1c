"""Claims ledger entries added with issue 8 (module owned by one engineer at a time)."""

from __future__ import annotations

CHECKS: list = []
