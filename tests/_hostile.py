"""Hostile certificates of the adversarial review, shared by the budget tests and
``benchmarks/verify_constructions.py`` (built with the certifier's exact number code)."""

from __future__ import annotations

from typing import Any

from flint import fmpq

from dpverify.numbers import fmpq_str, log2_decimal

__all__ = ["bernstein_identity", "forged_chebyshev"]


def _poly(basis: str, domain: Any, cs: list[fmpq], degree: int) -> dict[str, Any]:
    l1 = sum((abs(c) for c in cs), fmpq(0))
    return {"basis": basis, "domain": domain, "coefficients": [fmpq_str(c) for c in cs],
            "degree": degree,
            "coefficient_norm": {"l1": fmpq_str(l1), "l1_log2": log2_decimal(l1)}}


def bernstein_identity(n: int) -> dict[str, Any]:
    """``x`` on [0, 1] in the Bernstein basis of order n (c_i = i/n), error 0 within
    1/1000, one piece: the conversion to the monomial basis is one long FLINT call (a
    Taylor shift and an affine substitution)."""
    return {"schema_version": 1, "format": "dpverify-certificate", "kind": "supnorm-box",
            "statement": {
                "polynomial": _poly("bernstein", ["0", "1"], [fmpq(i, n) for i in range(n + 1)],
                                    1),
                "target": {"kind": "expr", "expr": "x", "variables": ["x"]},
                "domain": {"kind": "box", "intervals": [["0", "1"]]},
                "error": {"lower": "0", "upper": "1/1000"}},
            "evidence": {"witness": ["1/2"], "pieces": [[[["0", "1"]], 8, 64]]}}


def forged_chebyshev(n: int = 30000) -> dict[str, Any]:
    """``or/chebyshev`` with k = 3 and gamma = 1e-17157 (the construction's degree is about
    30000) on a polynomial of ``n + 1`` coefficients 1/7: false, and composing T_t with the
    affine map to see it took 48 s and 1.8 GB."""
    return {"schema_version": 1, "format": "dpverify-certificate", "kind": "supnorm-finite",
            "statement": {
                "polynomial": _poly("monomial", None, [fmpq(1, 7)] * (n + 1), n),
                "target": {"kind": "threshold", "r": 1},
                "domain": {"kind": "integers", "lo": 0, "hi": 3},
                "error": {"lower": "0", "upper": "1e20000"}, "max_error": "1e-17157",
                "construction": {"name": "or/chebyshev",
                                 "params": {"k": 3, "gamma": "1e-17157"}}},
            "evidence": {"witness": "0"}}
