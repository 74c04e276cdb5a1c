"""The same rows written many ways: one CSV (shortest repr, zero-padded, exponent form,
CRLF with blank lines), one file per few rows, CSV and Parquet mixed, Parquet with small
row groups.  Every text is the exact decimal value of the binary64, so each variant decodes
to the very same floats; a release must not tell them apart."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

__all__ = ["write_variants", "released"]


def _padded(v: float) -> str:
    s = repr(float(v))
    if "e" in s or "E" in s:
        return s
    if "." not in s:
        s += "."
    return ("+" if v >= 0 else "") + s + "0" * 17  # a longer text of the same value


def _exponent(v: float) -> str:
    return format(Decimal(repr(float(v))), "E")  # the same decimal value, written 1.5E-1


def _write_csv(path: Path, X: np.ndarray, cell, *, eol: str = "\n", blanks: bool = False,
               header: bool = True) -> None:
    names = ",".join(f"c{j}" for j in range(X.shape[1]))
    with open(path, "w", newline="") as fh:
        if header:
            fh.write(names + eol)
        for i, r in enumerate(X):
            if blanks and i % 7 == 3:
                fh.write(" \t" + eol)
            fh.write(",".join(cell(v) for v in r) + eol)


def _parquet(path: Path, X: np.ndarray, group: int) -> None:
    pq.write_table(pa.table({f"c{j}": X[:, j] for j in range(X.shape[1])}), str(path),
                   row_group_size=group)


def write_variants(root: Path, X: np.ndarray, *, integers: bool = False) -> dict[str, str]:
    """``name -> data source`` for the rows ``X`` (0/1 rows written as ``0``/``1`` when
    ``integers``)."""
    root.mkdir(parents=True, exist_ok=True)
    short = (lambda v: str(int(v))) if integers else (lambda v: repr(float(v)))
    out: dict[str, str] = {}
    _write_csv(root / "short.csv", X, short)
    out["csv"] = str(root / "short.csv")
    if not integers:
        _write_csv(root / "padded.csv", X, _padded)
        out["csv zero-padded"] = str(root / "padded.csv")
        _write_csv(root / "exponent.csv", X, _exponent, eol="\r\n", blanks=True)
        out["csv exponent, CRLF, blank lines"] = str(root / "exponent.csv")
    else:
        _write_csv(root / "crlf.csv", X, lambda v: f" {int(v)} ", eol="\r\n", blanks=True)
        out["csv CRLF, blank lines, spaces"] = str(root / "crlf.csv")
    many = root / "many"
    many.mkdir()
    rng = np.random.default_rng(len(X))  # public split points
    cuts = sorted(set(rng.integers(1, len(X), size=min(6, len(X) - 1)).tolist()))
    for i, (a, b) in enumerate(zip([0, *cuts], [*cuts, len(X)], strict=True)):
        _write_csv(many / f"part{i:02d}.csv", X[a:b], short, header=i % 2 == 0)
    out["one file per part"] = str(many)
    single = root / "single"
    single.mkdir()
    for i in range(min(len(X), 5)):
        _write_csv(single / f"row{i:02d}.csv", X[i:i + 1], short)
    _write_csv(single / "zrest.csv", X[5:], short)
    out["one file per row (first five)"] = str(single)
    mixed = root / "mixed"
    mixed.mkdir()
    h = len(X) // 2
    _write_csv(mixed / "a.csv", X[:h], short)
    _parquet(mixed / "b.parquet", X[h:], 7)
    out["csv + parquet"] = str(mixed)
    _parquet(root / "all.parquet", X, 13)
    out["parquet, row groups of 13"] = str(root / "all.parquet")
    return out


def released(obj: dict) -> dict:
    """A release's JSON without what says how it was computed (backend statistics), which
    may differ between encodings; everything released and the privacy record stay."""
    return {k: v for k, v in obj.items() if k not in ("statistics",)}
