"""``certify(approx)``: measure an :class:`~dpverify.Approximation`, decide its claims and
return a :class:`~dpverify.certify.certificate.Certificate` (the package docstring of
:mod:`dpverify.certify` states the guarantee)."""

from __future__ import annotations

import time
from dataclasses import replace
from typing import Any

from flint import fmpq

from .._version import __version__
from ..approximation import Approximation
from ..budget import after, check_timeout, limits
from ..errors import (
    CertificationFailed,
    InvalidParameterError,
    ParameterTypeError,
    PrecisionExhausted,
    TimeLimitExceeded,
)
from ..exact import ExactPoly, MonomialPoly, TensorPoly
from ..expr import NoEnclosure, Undefined, parse
from ..expr.tree import MAX_CANONICAL_LENGTH
from ..numbers import BallTooLarge, fmpq_str, fmpq_to_decimal, log2_decimal, to_fmpq
from ..progress import ProgressCallback
from .certificate import (
    CERT_FORMAT,
    CLAIM_KEYS,
    SCHEMA_VERSION,
    Certificate,
    exact_numbers,
    prepare_issue,
)
from .interval import supnorm

__all__ = ["certify", "polynomial_statement", "CHECKED_CONSTRUCTIONS", "STATEMENT_EXTRAS",
           "DEFAULT_READING"]

#: Constructions whose parameters the independent checker recomputes the statement from
#: (``docs/certificates.md``, *Constructions*): name -> the parameters it checks.
CHECKED_CONSTRUCTIONS: dict[str, tuple[str, ...]] = {
    "or/chebyshev": ("k", "gamma"),
    "and/chebyshev": ("k", "gamma"),
    "or/minimax": ("k", "gamma"),
    "and/minimax": ("k", "gamma"),
    "rofk/sherstov": ("r", "k", "gamma"),
    "rofk/minimax": ("r", "k", "gamma"),
    "exact_l/sherstov": ("l", "k", "gamma"),
    "dlist/h": ("k", "gamma"),
}

#: Optional parameters written with the checked ones: Sherstov's reading of thaler2012
#: Appendix B (the keys each construction depends on).
STATEMENT_EXTRAS: dict[str, dict[str, tuple[str, ...]]] = {
    "rofk/sherstov": {"reading": ("delta", "d", "log_base", "ell_range")},
    "exact_l/sherstov": {"reading": ("delta", "d", "log_base")},
}

#: The reading a statement without ``reading`` means (the verifier assumes the same): the
#: default of :mod:`dpverify.constructions.sherstov` (``DEFAULT_READING``; certify cannot
#: import constructions, and tests/test_sherstov.py checks the two agree).  It is not
#: written, so a certificate of the default construction keeps the bytes it has always had.
DEFAULT_READING: dict[str, str] = {
    "delta": "log_k", "d": "z", "log_base": "e", "ell_range": "0..r-1"}


def _statement_construction(name: str, params: dict[str, Any],
                            statement: dict[str, Any]) -> dict[str, Any] | None:
    """The ``construction`` block of a statement, or None when the checker could not
    re-derive the polynomial from it (the construction then stays in ``info`` only)."""
    checked = CHECKED_CONSTRUCTIONS.get(name)
    # every checked construction is a polynomial on the integers 0..k: on a box the name
    # could not be re-derived (the checker's schema refuses it there)
    if checked is None or "max_error" not in statement or \
            statement["domain"].get("kind") not in ("integers", "points"):
        return None
    out: dict[str, Any] = {p: params[p] for p in checked}
    for key, sub in STATEMENT_EXTRAS.get(name, {}).items():
        value = {k: params[key][k] for k in sub}
        if value != {k: DEFAULT_READING[k] for k in sub}:
            out[key] = value
    if name == "dlist/h":
        method = params.get("method", "chebyshev")
        # the minimax h_k is fixed by its least degree, which this certificate does not
        # prove (h_polynomial carries no optimality evidence): no claim the checker can
        # re-derive, so the name stays in info
        if method != "chebyshev":
            return None  # so "chebyshev", which a statement without "method" means
    return {"name": name, "params": out}


#: Significant digits of the decimal renderings of enclosures (at least; more when a
#: smaller ``rtol`` needs them, so rounding never undoes the requested width).
_DIGITS = 25


def polynomial_statement(poly: ExactPoly | TensorPoly,
                         progress: ProgressCallback | None = None) -> dict[str, Any]:
    """The ``polynomial`` block of a statement: basis, domain(s), exact coefficients,
    exact degree, and the exact L1 coefficient norm in the polynomial's own basis
    (with its log2 rounded to 6 decimals, within 5e-7).  ``progress`` reports the
    reduction of a monomial polynomial's coefficients to lowest terms (the strings of an
    r-of-k certificate take seconds)."""
    # MonomialPoly.to_json takes a progress callback: its strings come from a batched
    # reduction of FLINT's common-denominator form
    data = (poly.to_json(progress=progress) if isinstance(poly, MonomialPoly)
            else poly.to_json())
    out: dict[str, Any] = {"basis": data["basis"]}
    if isinstance(poly, TensorPoly):  # the only class whose to_json has "shape"
        out["shape"] = data["shape"]
        out["domains"] = data["domains"]
        out["coefficients"] = data["coefficients"]
        out["degree"] = list(poly.degrees)
    else:
        out["domain"] = data.get("domain")
        out["coefficients"] = data["coefficients"]
        out["degree"] = int(poly.degree)
    norm = poly.coefficient_norm()
    out["coefficient_norm"] = {
        "l1": fmpq_str(norm),
        "l1_log2": log2_decimal(norm) if norm != 0 else None,
    }
    return out


def _digits_for(rtol: fmpq) -> int:
    if rtol <= 0:
        return 40
    inv = 1 / rtol
    # enough significant digits that the outward rounding widens by < rtol / 100
    return min(max(_DIGITS, 3 + len(str(inv.p // inv.q))), 100_000)


#: (error block, evidence, info, lower, upper) of a measured error
_Measured = tuple[dict[str, Any], dict[str, Any], dict[str, Any], fmpq, fmpq]


def _finite_error(approx: Approximation, progress: ProgressCallback | None) -> _Measured:
    # deferred: finite domains only (start-up of the commands that certify on intervals)
    from .finite import finite_max_error

    res = finite_max_error(approx.poly, approx.target, approx.domain, progress=progress)
    if res.exact:
        err: dict[str, Any] = {"lower": fmpq_str(res.lower), "upper": fmpq_str(res.upper),
                               "upper_decimal": fmpq_to_decimal(res.upper, 20, "up")}
        lower, upper = res.lower, res.upper
    else:
        lo_s = fmpq_to_decimal(res.lower, _DIGITS, "down")
        up_s = fmpq_to_decimal(res.upper, _DIGITS, "up")
        err = {"lower": lo_s, "upper": up_s}
        lower, upper = to_fmpq(lo_s), to_fmpq(up_s)
    evidence = {"witness": fmpq_str(res.witness)}
    info: dict[str, Any] = {
        "method": "exact enumeration" if res.exact else "ball enumeration",
        "points": res.npoints,
    }
    return err, evidence, info, lower, upper


def _box_error(
    approx: Approximation, claim: fmpq | None, rtol: Any, atol: Any, max_pieces: int,
    timeout: float | None, progress: ProgressCallback | None,
) -> _Measured:
    t = approx.target
    if t.get("kind") != "expr":
        raise InvalidParameterError("a box domain needs an 'expr' target")
    f = parse(t["expr"], variables=tuple(t.get("variables") or ("x",)), name="target.expr",
              max_length=MAX_CANONICAL_LENGTH)
    try:
        # domain.requested: the interval as asked (pi/2), whose outward rounding the
        # intervals are; the witness of ``lower`` is then taken inside it
        res = supnorm(f, approx.poly, approx.domain["intervals"], rtol=rtol, atol=atol,
                      claim=claim, max_pieces=max_pieces, timeout=timeout, progress=progress,
                      requested=approx.domain.get("requested"))
    except TimeLimitExceeded:
        raise
    except Undefined as exc:
        # f undefined at a point of the domain: sup |f - p| does not exist (the
        # independent verifier says DOES NOT HOLD for such a target)
        msg = str(exc) if str(exc).startswith("f is undefined") \
            else f"f is undefined on the domain: {exc}"
        raise CertificationFailed(f"not certified: {msg}") from None
    except (NoEnclosure, PrecisionExhausted) as exc:
        # unbounded enclosures (a pole that cannot be exhibited at an exact point, or a
        # value too large to enclose) prove nothing either way
        raise CertificationFailed(f"undecided: {exc}") from None
    except BallTooLarge as exc:
        raise CertificationFailed(
            f"undecided: f - p takes values too large to handle exactly ({exc})") from None
    rtol_q = to_fmpq(rtol, "rtol")
    digits = _digits_for(rtol_q)
    lo_s = fmpq_to_decimal(res.lower, digits, "down")
    up_s = fmpq_to_decimal(res.upper, digits, "up")
    lower, upper = to_fmpq(lo_s), to_fmpq(up_s)
    err: dict[str, Any] = {"lower": lo_s, "upper": up_s}
    evidence: dict[str, Any] = {
        "witness": [fmpq_str(w) for w in res.witness],
        "pieces": [p.to_json() for p in res.pieces],
    }
    # the search's own piece count differs from the evidence's in one variable (the
    # evidence is rebuilt for the checker, see dpverify.certify.interval): name both
    stats = {k: v for k, v in res.stats.items() if k != "pieces"}
    stats["search_pieces"] = res.stats.get("pieces")
    stats["evidence_pieces"] = len(evidence["pieces"])
    info: dict[str, Any] = {
        "method": "taylor branch-and-bound" if len(res.witness) == 1
        else "taylor-model branch-and-bound",
        "converged": res.converged,
        "status": res.status,
        "relative_width": fmpq_to_decimal((upper - lower) / lower, 3, "up") if lower > 0
        else None,
        "rtol": fmpq_str(rtol_q),
        "stats": stats,
    }
    return err, evidence, info, lower, upper


def _status(value: fmpq, lower: fmpq, upper: fmpq) -> str:
    if upper <= value:
        return "proven"
    return "refuted" if lower > value else "undecided"


def _least_degree(
    approx: Approximation, poly_block: dict[str, Any], gamma: fmpq | None
) -> tuple[dict[str, Any], dict[str, Any]]:
    """(statement part, evidence part) of a least-degree proof, after checking it."""
    opt = approx.extra["optimality"]
    mono = approx.poly.to_monomial() if approx.poly.basis != "monomial" else approx.poly
    from .optimality import check  # deferred: least-degree proofs only (as finite)

    ok, why = check(opt, degree=poly_block["degree"], gamma=fmpq_str(gamma),
                    coefficients=[fmpq_str(c) for c in mono.coeffs],
                    target=approx.target, domain=approx.domain)
    if not ok:
        raise CertificationFailed(f"least-degree proof does not check: {why}")
    pin = opt.get("pin")
    if pin is None and opt.get("fix_zero"):
        pin = {"x": "0", "value": "0"}
    statement = {"pin": None if pin is None else {"x": pin["x"], "value": pin["value"]}}
    evidence = {"points": list(opt["points"]), "weights": list(opt["weights"]),
                "bound": opt["bound"]}
    return statement, evidence


def certify(
    approx: Approximation,
    *,
    rtol: Any = "1e-6",
    atol: Any = 0,
    max_pieces: int = 200_000,
    timeout: float | None = None,
    stop_at_claim: bool = False,
    require: bool = False,
    progress: ProgressCallback | None = None,
) -> Certificate:
    """Certify ``approx`` and return its :class:`Certificate` (``docs/certificates.md``).

    Parameters
    ----------
    approx : Approximation
        From a construction (or built by hand).
    rtol, atol, max_pieces, timeout :
        Passed to :func:`~dpverify.certify.interval.supnorm` for box domains
        (``timeout`` in seconds; ``None`` means no limit).  ``rtol`` and ``atol`` are
        exact numbers: anything :func:`~dpverify.numbers.to_fmpq` accepts.
    progress : callable, optional
        ``progress(stage, done, total)`` (:mod:`dpverify.progress`): passed to
        :func:`~dpverify.certify.interval.supnorm` (box domains: pieces) or
        :func:`~dpverify.certify.finite.finite_max_error` (finite domains: points), and
        to :func:`polynomial_statement` (coefficients in lowest terms).
    stop_at_claim : bool
        For box domains, stop as soon as ``max_error`` is proven or refuted
        (faster, wider enclosure).
    require : bool
        Raise :class:`CertificationFailed` if any claim is not proven.

    Raises
    ------
    CertificationFailed
        No finite bound could be established (``f`` not finite on a piece, precision
        exhausted), or ``require=True`` and a claim is not proven.
    TimeLimitExceeded, MemoryLimitExceeded
        ``timeout`` passed, or a step would pass it or the memory budget
        (:mod:`dpverify.budget`): undecided.
    """
    if not isinstance(approx, Approximation):
        raise ParameterTypeError(f"approx must be an Approximation, got {type(approx).__name__}")
    # the deadline also bounds what comes after the search (conversions, norms): the
    # progress reports and the cost checks of dpverify.budget read it (a little after
    # the search's own deadline, where the search stops with a valid, wider enclosure)
    with limits(timeout=after(timeout), shown=timeout):
        search = check_timeout(timeout)
        if search is not None:
            # the checker's schemas, which every certificate is issued against, are loaded
            # now and the search gets the time left: the wrap-up after its graceful stop
            # stays short (a cold start costs about a third of a second)
            start = time.monotonic()
            prepare_issue()
            search = max(search / 100, search - (time.monotonic() - start))
        return _certify(approx, rtol, atol, max_pieces, search, stop_at_claim, require,
                        progress)


def _certify(approx: Approximation, rtol: Any, atol: Any, max_pieces: int,
             timeout: float | None, stop_at_claim: bool, require: bool,
             progress: ProgressCallback | None) -> Certificate:
    # the target and domain go into the statement as given: their numbers in the
    # canonical exact form first (a float is its binary64 value, docs/conventions.md), so
    # the certifier computes with exactly what the statement will say
    approx = replace(approx, target=exact_numbers(approx.target, "target"),
                     domain=exact_numbers(approx.domain, "domain"))
    claims = {}
    for k, v in approx.claims.items():
        if k not in CLAIM_KEYS:
            raise InvalidParameterError(f"unknown claim {k!r}; known claims: {CLAIM_KEYS}")
        claims[k] = to_fmpq(v, f"claims.{k}")
    kind = approx.domain.get("kind")
    if kind in ("integers", "points"):
        cert_kind = "supnorm-finite"
        err, evidence, info, lower, upper = _finite_error(approx, progress)
    elif kind == "box":
        cert_kind = "supnorm-box"
        claim = claims.get("max_error") if stop_at_claim else None
        err, evidence, info, lower, upper = _box_error(
            approx, claim, rtol, atol, max_pieces, timeout, progress)
    else:
        raise InvalidParameterError(f"unknown domain kind {kind!r}")

    stated = approx.poly
    if approx.norm_basis and approx.norm_basis != stated.basis:
        # the statement lists the coefficients the mechanism perturbs (the norm basis)
        stated = stated.convert(approx.norm_basis)
    poly_block = polynomial_statement(stated, progress)
    statement: dict[str, Any] = {
        "polynomial": poly_block,
        "target": approx.target,
        "domain": approx.domain,
        "error": err,
    }
    unproven: dict[str, Any] = {}
    gamma = claims.get("max_error")
    if gamma is not None:
        st = _status(gamma, lower, upper)
        if st == "proven":
            statement["max_error"] = fmpq_str(gamma)
        else:
            unproven["max_error"] = {"value": fmpq_str(gamma), "status": st}
    extra = dict(approx.extra)
    opt = extra.pop("optimality", None)
    if opt is not None:
        if "max_error" in statement:
            st_part, ev_part = _least_degree(approx, poly_block, gamma)
            statement["least_degree"] = st_part
            evidence["least_degree"] = ev_part
        else:
            unproven["least_degree"] = {"status": "needs a proven max_error"}
    name = approx.construction
    con = _statement_construction(name, approx.params, statement)
    if con is not None:
        statement["construction"] = con
    info.update({
        "construction": {"name": name, "params": approx.params},
        "dpverify_version": __version__,
    })
    if unproven:
        info["unproven_claims"] = unproven
    for k, v in extra.items():
        if k in info:
            raise InvalidParameterError(f"extra key {k!r} collides with an info field")
        info[k] = v
    cert = Certificate({
        "schema_version": SCHEMA_VERSION,
        "format": CERT_FORMAT,
        "kind": cert_kind,
        "statement": statement,
        "evidence": evidence,
        "info": info,
    })
    if require and not cert.complete:
        raise CertificationFailed(
            f"{name}: claims not proven: "
            + ", ".join(f"{k} {v['status']}" for k, v in unproven.items())
            + f" (error in [{err['lower']}, {err['upper']}])"
        )
    return cert
