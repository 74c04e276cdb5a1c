"""``dpverify.fpminimax``: machine-number coefficients, the certified error of that very
polynomial, and the best real approximation's bracket beside it (what the format costs).

Three steps (each named in the result):

1. the best approximation from the family with real coefficients, searched
   (:func:`dpverify.constructions.remez.remez`) and certified (kind ``minimax``:
   ``lower <= E <= upper``, :func:`dpverify.certify.alternation.certify_minimax`);
2. machine-number coefficients near it by lattice reduction
   (:func:`dpverify.constructions.fpminimax.machine_search`: Brisebarre and Chevillard's
   method, as Sollya's ``fpminimax``; a search);
3. a certificate of ``sup |w (f - p)|`` for the machine polynomial ``p`` (kind
   ``supnorm-box``, with ``statement.weight`` for a relative or weighted error), by the
   graded sup-norm of :mod:`dpverify.certify.graded_supnorm`, re-checked by
   ``dpverify verify``.

``upper(machine) / lower(real)`` bounds what the format costs: no polynomial of the family
with any real coefficients does better than ``lower(real)``.

Guarantee
---------
Every number of the two certificates is proven (``dpverify verify`` re-checks both); the
coefficients are exactly numbers of their formats (checked here, exactly).  The lattice
search decides nothing: a poor search gives a larger, still certified, error.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

from flint import fmpq

from ._version import __version__
from .certify.alternation import certify_minimax, expr_of, search_tol, weight_statement
from .certify.certificate import CERT_FORMAT, SCHEMA_VERSION, Certificate
from .certify.claims import polynomial_statement
from .certify.graded_supnorm import sup_error
from .certify.weights import prove_sign, weight_expr
from .constructions.fpminimax import machine_search, parse_formats
from .constructions.remez import remez
from .errors import (
    CertificationFailed,
    InvalidParameterError,
    PrecisionExhausted,
)
from .expr import Expr
from .family import Family, make_family
from .numbers import check_int, check_interval, fmpq_str, fmpq_to_decimal, to_fmpq
from .progress import ProgressCallback, report

__all__ = ["FPMinimaxResult", "fpminimax", "machine_certificate", "MAX_FPMINIMAX_DEGREE"]

_DIGITS = 20
#: Largest degree of fpminimax: the lattices have one dimension per free coefficient (LLL
#: costs about the cube of that times the bits of the entries) and the descent tries the
#: pairs of directions
MAX_FPMINIMAX_DEGREE = 100


@dataclass
class FPMinimaxResult:
    """What :func:`fpminimax` found and proved.

    ``coefficients``: exact, lowest power first (every power ``0..N``; 0 outside the
    family); ``formats``: the format of each power (``"fixed"`` for a fixed coefficient,
    ``None`` outside the family); ``certificate``: the error of this polynomial (kind
    ``supnorm-box``); ``minimax``: the bracket of the best real error (kind ``minimax``).
    """

    f: str
    interval: tuple[fmpq, fmpq]
    family: Family
    coefficients: list[fmpq]
    formats: list[str | None]
    certificate: Certificate
    minimax: Certificate
    relative: bool = False
    weight: str | None = None
    stats: dict[str, Any] = field(default_factory=dict)

    @property
    def error(self) -> fmpq:
        """The proven bound ``sup |w (f - p)| <= error`` of the machine polynomial."""
        return to_fmpq(self.certificate.statement["error"]["upper"])

    @property
    def real_lower(self) -> fmpq:
        """The proven lower bound of the best error with real coefficients."""
        return to_fmpq(self.minimax.statement["error"]["lower"])

    @property
    def cost(self) -> fmpq:
        """``error / real_lower``: at least what the formats cost (>= 1 up to rounding of
        the brackets)."""
        return self.error / self.real_lower

    @property
    def hex(self) -> list[str]:
        """The coefficients as exact C99 hexadecimal floats (``float.hex``; exact: every
        coefficient is a binary64 number)."""
        return [float(c).hex() for c in self.coefficients]

    def to_json(self) -> dict[str, Any]:
        return {"f": self.f, "interval": [fmpq_str(v) for v in self.interval],
                "degree": self.family.degree,
                "coefficients": [fmpq_str(c) for c in self.coefficients],
                "hex": self.hex, "formats": self.formats,
                "error": self.certificate.statement["error"],
                "real_bracket": self.minimax.statement["error"],
                "relative": self.relative, "weight": self.weight,
                **self.family.statement(), "stats": self.stats}

    def __repr__(self) -> str:
        return (f"FPMinimaxResult(degree={self.family.degree}, error <= "
                f"{fmpq_to_decimal(self.error, 6, 'up')}, best real >= "
                f"{fmpq_to_decimal(self.real_lower, 6, 'down')}, coefficients={self.hex})")


def machine_certificate(f: Expr, poly: Any, interval: tuple[fmpq, fmpq], *,
                        weight: Expr | None, relative: bool, hints: list[Any] | None,
                        guess: fmpq, rtol: fmpq, deadline: float | None = None,
                        progress: ProgressCallback | None = None,
                        info: dict[str, Any] | None = None) -> Certificate:
    """A ``supnorm-box`` certificate of ``lower <= sup |w (f - p)| <= upper`` for a given
    polynomial (graded sup-norm towards ``hints``, the extrema of its error; ``guess``: about
    the supremum, for the goal of the pieces).

    Guarantee
    ---------
    ``lower`` is ``|w (f - p)|`` at the witness and ``upper`` bounds it on every piece
    (arb and fmpq arithmetic), re-checked by ``dpverify verify``.
    """
    a, b = interval
    try:
        res = sup_error(f, poly, (a, b), lower=guess, rtol=rtol, hints=hints,
                        deadline=deadline, progress=progress, weight=weight)
    except PrecisionExhausted as exc:
        raise CertificationFailed(f"not certified: {exc}") from None
    goal = res.lower * (1 + rtol)
    up = res.upper + (goal - res.upper) / 2 if res.upper < goal else res.upper
    upper = to_fmpq(fmpq_to_decimal(up, _DIGITS, "up"))
    lower = to_fmpq(fmpq_to_decimal(res.lower, _DIGITS, "down"))
    statement: dict[str, Any] = {
        "polynomial": polynomial_statement(poly),
        "target": {"kind": "expr", "expr": f.canonical, "variables": ["x"]},
        "domain": {"kind": "box", "intervals": [[fmpq_str(a), fmpq_str(b)]]},
        "error": {"lower": fmpq_str(lower), "upper": fmpq_str(upper)},
    }
    ws = weight_statement(relative, weight)
    if ws is not None:
        statement["weight"] = ws
    evidence = {"witness": [fmpq_str(w) for w in res.witness],
                "pieces": [p.to_json() for p in res.pieces]}
    body: dict[str, Any] = {
        "method": "partition graded towards the extrema of the error",
        "converged": res.converged, "status": res.status,
        "relative_width": fmpq_to_decimal((upper - lower) / lower, 3, "up") if lower > 0
        else None,
        "rtol": fmpq_str(rtol), "stats": res.stats, "dpverify_version": __version__}
    body.update(info or {})
    return Certificate({"schema_version": SCHEMA_VERSION, "format": CERT_FORMAT,
                        "kind": "supnorm-box", "statement": statement, "evidence": evidence,
                        "info": body})


def fpminimax(f: Any, degree: Any, interval: Any, *, format: Any = "binary64",
              formats: Any = None, relative: bool = False, weight: Any = None,
              monomials: Any = None, fix: Any = None, rtol: Any = "1e-6",
              timeout: Any = None, progress: ProgressCallback | None = None) -> FPMinimaxResult:
    """Machine-number coefficients near the best approximation, with the certified error
    of that polynomial and the certified bracket of the best real error (module
    docstring).

    Parameters
    ----------
    f : str or Expr
        A function of ``x``.
    degree : int
        The largest power (that of the family).
    interval : (a, b)
        Exact ends.
    format : str
        ``"binary64"`` (``"D"``) or ``"binary32"`` (``"S"``): the format of every free
        coefficient, and the one fixed coefficients must belong to.
    formats : str or list, optional
        One format per free power (``"D,D,S"``; ``"S,D..."`` repeats the last), as
        Sollya's ``[|D, D, SG|]``.
    relative, weight, monomials, fix
        The error and the family, as :func:`dpverify.minimax`.
    rtol : exact number
        Goal of both brackets, ``upper <= lower (1 + rtol)``.
    timeout : seconds, optional
        Bounds the whole call.
    progress : callable, optional
        :mod:`dpverify.progress` callback (the stages, and the pieces of the certificates).

    Returns
    -------
    FPMinimaxResult
        ``coefficients`` (exact), ``hex``, ``certificate`` (``supnorm-box``: the error of
        the machine polynomial), ``minimax`` (``minimax``: the real bracket), ``cost``.

    Raises
    ------
    InvalidParameterError
        Invalid inputs (naming the parameter), ``f`` vanishing on the interval with
        ``relative``, a fixed coefficient that is not a number of ``format``.
    CertificationFailed, TimeLimitExceeded
        When a certificate cannot be completed (in time).

    Guarantee
    ---------
    Both certificates are proven and hold in ``dpverify verify``.

    Examples
    --------
    ``exp`` on ``[-1/4, 1/4]``, relative error, degree 5 with binary32 coefficients:

    >>> import numpy as np
    >>> r = fpminimax("exp(x)", 5, ("-1/4", "1/4"), format="binary32", relative=True)
    >>> all(float(c) == float(np.float32(float(c))) for c in r.coefficients)
    True
    >>> r.hex[0], r.formats[0]
    ('0x1.0000000000000p+0', 'binary32')
    >>> r.real_lower <= r.error, r.certificate.check().status, r.minimax.check().status
    (True, 'holds', 'holds')
    """
    t0 = time.monotonic()
    fx = expr_of(f)
    n = check_int(degree, "degree", 0, MAX_FPMINIMAX_DEGREE)
    a, b = check_interval(interval)
    fam = make_family(n, monomials, fix)
    main = parse_formats(format, None, 1)[0]
    fmts = parse_formats(format, formats, len(fam.free))
    for k, v in fam.fixed:
        if not main.contains(v):
            raise InvalidParameterError(f"fix: the coefficient of x^{k}, {fmpq_str(v)}, is not a "
                                        f"{main.name} number")
    rtol_q = to_fmpq(rtol, "rtol")
    if not rtol_q > 0:
        raise InvalidParameterError(f"rtol must be > 0, got {rtol}")
    deadline = None
    if timeout is not None:
        tq = to_fmpq(timeout, "timeout")
        if not tq > 0:
            raise InvalidParameterError(f"timeout must be > 0 seconds, got {timeout}")
        deadline = t0 + float(tq)
    w = weight_expr(fx, weight, relative)
    if w is not None:
        prove_sign(fx if relative else w, a, b, what="f" if relative else "weight",
                   positive_only=not relative, deadline=deadline)
    wgt = None if relative else weight
    family = None if fam.dense else fam
    report(progress, "fpminimax: real minimax search", 0, 4)
    real = remez(fx, n, (a, b), tol=search_tol(rtol_q), deadline=deadline, family=family,
                 weight=wgt, relative=relative)
    t1 = time.monotonic()
    report(progress, "fpminimax: real minimax bracket", 1, 4)
    bracket = certify_minimax(real, n, rtol=rtol_q, deadline=deadline, progress=progress,
                              family=family, weight=wgt, relative=relative)
    t2 = time.monotonic()
    report(progress, "fpminimax: lattice search", 2, 4)
    mach = machine_search(fx, (a, b), real, fam, fmts, w, deadline=deadline)
    t3 = time.monotonic()
    report(progress, "fpminimax: certificate of the machine polynomial", 3, 4)
    guess = to_fmpq(mach.extra["estimate"], "estimate")
    hints = list(mach.extra.get("extrema", [])) + list(real.extra.get("extrema", []))
    names: list[str | None] = [None] * (n + 1)
    for k, fm in zip(fam.free, fmts):
        names[k] = fm.name
    for k, _ in fam.fixed:
        names[k] = "fixed"
    info = {"construction": {"name": "fpminimax", "params": mach.params},
            "search": {k: v for k, v in mach.extra.items() if k != "extrema"},
            "formats": names,
            "real_bracket": bracket.statement["error"]}
    cert = machine_certificate(fx, mach.poly, (a, b), weight=w, relative=relative,
                               hints=hints, guess=guess if guess > 0 else fmpq(1, 10**30),
                               rtol=rtol_q, deadline=deadline, progress=progress, info=info)
    t4 = time.monotonic()
    report(progress, "fpminimax: done", 4, 4)
    return FPMinimaxResult(
        f=fx.canonical, interval=(a, b), family=fam, coefficients=list(mach.poly.coeffs) +
        [fmpq(0)] * (n + 1 - len(mach.poly.coeffs)), formats=names, certificate=cert,
        minimax=bracket, relative=relative, weight=None if w is None or relative
        else w.canonical,
        stats={"seconds": {"real_search": round(t1 - t0, 3), "real_bracket": round(t2 - t1, 3),
                           "lattice": round(t3 - t2, 3), "certificate": round(t4 - t3, 3),
                           "total": round(t4 - t0, 3)},
               "candidates": mach.extra.get("candidates"),
               "estimate": mach.extra.get("estimate")})

