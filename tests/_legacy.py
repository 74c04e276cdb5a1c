"""Test helper: the flat (pre-v1) view of a certificate, so tests written against the old
field names keep asserting the same facts after the move to statement / evidence / info
(docs/certificates.md).  Only field *locations* change here, never values."""

from __future__ import annotations

from typing import Any


def flat(cert: Any) -> dict[str, Any]:
    """Old flat fields from a v1 certificate (a ``Certificate`` or its JSON dict)."""
    doc = cert.data if hasattr(cert, "data") else cert
    st, ev, info = doc["statement"], doc.get("evidence", {}), doc.get("info", {})
    out: dict[str, Any] = {}
    for k, v in info.items():  # construction extras (chebyshev, minimax, ...) and more
        out[k] = v
    if doc["kind"] not in ("supnorm-finite", "supnorm-box"):
        out.update(st)
        return out
    poly = st["polynomial"]
    for k in ("basis", "coefficients", "degree", "domain", "domains", "shape"):
        if k in poly:
            out[k] = poly[k]
    out["coefficient_norm"] = poly["coefficient_norm"]["l1"]
    log2 = poly["coefficient_norm"]["l1_log2"]
    out["coefficient_norm_log2"] = None if log2 is None else float(log2)
    err = dict(st["error"])
    err.update(domain=st["domain"], target=st["target"])
    err["exact"] = err["lower"] == err["upper"]
    err["witness"] = ev.get("witness")
    for k in ("pieces",):
        if k in ev:
            err[k] = ev[k]
    for k in ("converged", "status", "stats", "relative_width", "method", "rtol", "points"):
        if k in info:
            err[k] = info[k]
    out["error"] = err
    claims, status = {}, {}
    if "max_error" in st:
        claims["max_error"], status["max_error"] = st["max_error"], "proven"
    for k, v in info.get("unproven_claims", {}).items():
        if "value" in v:
            claims[k], status[k] = v["value"], v["status"]
    out["claims"], out["claims_status"] = claims, status
    out["verified"] = not info.get("unproven_claims")
    con = info.get("construction", {})
    out["construction"], out["params"] = con.get("name"), con.get("params")
    if "least_degree" in st:
        pin, lev = st["least_degree"]["pin"], ev["least_degree"]
        out["optimality"] = {
            "kind": "annihilating_weights", "degree_impossible": poly["degree"] - 1,
            "fix_zero": pin == {"x": "0", "value": "0"}, "pin": pin,
            "points": lev["points"], "weights": lev["weights"], "bound": lev["bound"]}
    return out


def check_old(obj: Any, c: dict[str, Any]) -> tuple[bool, str]:
    """``optimality.check`` called with the fields of a flat certificate ``c``."""
    from dpverify.certify.optimality import check

    return check(obj, degree=c["degree"], gamma=c["claims"].get("max_error"),
                 coefficients=c["coefficients"], target=c["error"]["target"],
                 domain=c["error"]["domain"])
