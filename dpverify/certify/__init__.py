"""Certification: decide the claims of an :class:`~dpverify.Approximation`.

``certify(approx)`` measures the error of ``approx.poly`` against
``approx.target`` on ``approx.domain`` — exactly on finite sets
(:mod:`.finite`), by rigorous branch and bound on boxes (:mod:`.interval`) —
recomputes the exact degree and coefficient norm, decides each claim and
returns a :class:`Certificate`.  ``dpverify.certify.verify`` re-checks a
certificate from its JSON alone.

Guarantee
---------
Every number in the certificate is exact or a rigorous enclosure; a claim is
``"proven"`` only if the enclosure proves it, ``"refuted"`` only if it disproves
it (``"undecided"`` otherwise).  A refuted claim is reported, not raised; pass
``require=True`` to get :class:`~dpverify.errors.CertificationFailed` instead.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from flint import fmpq

from .._version import __version__
from ..approximation import Approximation
from ..errors import CertificationFailed, InvalidParameterError, ParameterTypeError
from ..numbers import fmpq_str, fmpq_to_decimal, log2_fmpq, to_fmpq
from .certificate import CLAIM_KEYS, Certificate
from .finite import finite_max_error
from .interval import SupNorm, supnorm

__all__ = ["certify", "Certificate", "supnorm", "SupNorm", "poly_fields", "SLACK"]

#: Relative slack added outward to interval enclosures before they are written,
#: so that the independent checker (which recomputes every piece in its own
#: code, with possibly different rounding) can confirm them.  2^-40 ~ 9e-13.
SLACK = fmpq(1, 2**40)
_DIGITS = 25


def poly_fields(poly: Any, norm_basis: str | None = None) -> dict[str, Any]:
    """The polynomial part of a certificate: basis, domain, coefficients, exact
    degree and exact coefficient norm (L1, in ``norm_basis``)."""
    data = poly.to_json()
    out: dict[str, Any] = {"basis": data["basis"]}
    if "domain" in data:
        out["domain"] = data["domain"]
    if "domains" in data:
        out["domains"] = data["domains"]
    if "shape" in data:
        out["shape"] = data["shape"]
    out["coefficients"] = data["coefficients"]
    if hasattr(poly, "shape"):
        out["degree"] = list(poly.degrees)
    else:
        out["degree"] = int(poly.degree)
    nb = norm_basis or data["basis"]
    npoly = poly if nb == data["basis"] else poly.convert(nb)
    norm = npoly.coefficient_norm()
    out["norm_basis"] = nb
    out["coefficient_norm"] = fmpq_str(norm)
    out["coefficient_norm_log2"] = round(log2_fmpq(norm), 6) if norm != 0 else None
    return out


def _claim_status(claims: dict[str, Any], lower: fmpq, upper: fmpq) -> dict[str, str]:
    status = {}
    for key, value in claims.items():
        if key not in CLAIM_KEYS:
            raise InvalidParameterError(f"unknown claim {key!r}; known claims: {CLAIM_KEYS}")
        c = to_fmpq(value, f"claims.{key}")
        if upper <= c:
            status[key] = "proven"
        elif lower > c:
            status[key] = "refuted"
        else:
            status[key] = "undecided"
    return status


def certify(
    approx: Approximation,
    *,
    rtol: Any = "1e-6",
    atol: Any = 0,
    max_pieces: int = 200_000,
    stop_at_claim: bool = False,
    require: bool = False,
    progress: Callable[[dict[str, Any]], None] | None = None,
) -> Certificate:
    """Certify ``approx`` and return its :class:`Certificate`.

    Parameters
    ----------
    approx : Approximation
        From a construction (or built by hand).
    rtol, atol, max_pieces, progress :
        Passed to :func:`~dpverify.certify.interval.supnorm` for box domains.
    stop_at_claim : bool
        For box domains, stop as soon as ``max_error`` is proven or refuted
        (faster, wider enclosure).
    require : bool
        Raise :class:`CertificationFailed` if any claim is not proven.
    """
    if not isinstance(approx, Approximation):
        raise ParameterTypeError(f"approx must be an Approximation, got {type(approx).__name__}")
    claims = dict(approx.claims)
    for k, v in claims.items():
        claims[k] = fmpq_str(to_fmpq(v, f"claims.{k}"))
    kind = approx.domain.get("kind")
    error: dict[str, Any] = {"domain": approx.domain, "target": approx.target}
    if kind in ("integers", "points"):
        res = finite_max_error(approx.poly, approx.target, approx.domain)
        lower, upper = res.lower, res.upper
        error.update(
            lower=fmpq_str(lower) if res.exact else fmpq_to_decimal(lower, _DIGITS, "down"),
            upper=fmpq_str(upper) if res.exact else fmpq_to_decimal(upper, _DIGITS, "up"),
            exact=res.exact,
            method="exact enumeration" if res.exact else "ball enumeration",
            witness=fmpq_str(res.witness),
            points=res.npoints,
        )
        if res.exact:
            error["upper_decimal"] = fmpq_to_decimal(upper, 20, "up")
    elif kind == "box":
        t = approx.target
        if t.get("kind") != "expr":
            raise InvalidParameterError("a box domain needs an 'expr' target")
        from ..expr import parse

        f = parse(t["expr"], variables=tuple(t.get("variables") or ("x",)), name="target.expr")
        claim = claims.get("max_error") if stop_at_claim else None
        res = supnorm(
            f,
            approx.poly,
            approx.domain["intervals"],
            rtol=rtol,
            atol=atol,
            claim=claim,
            max_pieces=max_pieces,
            progress=progress,
        )
        lower = res.lower * (1 - SLACK)
        upper = res.upper * (1 + SLACK)
        lo_s = fmpq_to_decimal(lower, _DIGITS, "down")
        up_s = fmpq_to_decimal(upper, _DIGITS, "up")
        lower, upper = to_fmpq(lo_s), to_fmpq(up_s)
        error.update(
            lower=lo_s,
            upper=up_s,
            exact=False,
            method="taylor branch-and-bound"
            if len(res.witness) == 1
            else "mean-value branch-and-bound",
            witness=[fmpq_str(w) for w in res.witness],
            converged=res.converged,
            status=res.status,
            relative_width=fmpq_to_decimal((upper - lower) / lower, 3, "up") if lower > 0 else None,
            rtol=fmpq_str(to_fmpq(rtol)),
            stats=res.stats,
            pieces=[p.to_json() for p in res.pieces],
        )
    else:
        raise InvalidParameterError(f"unknown domain kind {kind!r}")
    status = _claim_status(claims, lower, upper)
    data: dict[str, Any] = {"construction": approx.construction, "params": approx.params}
    data.update(poly_fields(approx.poly, approx.norm_basis))
    data["error"] = error
    data["claims"] = claims
    data["claims_status"] = status
    data["verified"] = all(s == "proven" for s in status.values())
    data["dpverify_version"] = __version__
    for k, v in approx.extra.items():
        if k in data:
            raise InvalidParameterError(f"extra key {k!r} collides with a certificate field")
        data[k] = v
    cert = Certificate(data)
    if require and not cert.verified:
        raise CertificationFailed(
            f"{approx.construction}: claims not proven: "
            + ", ".join(f"{k} {v}" for k, v in status.items() if v != "proven")
            + f" (error in [{error['lower']}, {error['upper']}])"
        )
    return cert
