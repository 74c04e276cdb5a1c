"""Total error of float polynomial code: ``|f(x) - fl(p)(x)|`` in one statement.

:func:`scheme_error_bound` certifies, for every float ``x`` of the format in ``[A, B]``,

    |f(x) - fl(p)(x)| <= bound                      (error="abs")
    |f(x) - fl(p)(x)| <= bound |f(x)|               (error="rel")
    |f(x) - fl(p)(x)| <= bound ulp(f(x))            (error="ulps")

where ``fl(p)`` is ``p`` (coefficients numbers of the format) evaluated by one of the
schemes of :mod:`.schemes` in binary64 or binary32, and ``ulp(y) = 2^(max(floor(log2
|y|), emin) - p + 1)``.  On each piece of ``[A, B]`` the approximation error
``sup |f - p|`` (a Taylor form of ``f - p`` at the piece's centre with a Lagrange
remainder, :func:`dpverify.certify.piece_bounds.taylor_form_piece_1d`) and the rounding
bound of the program (:mod:`.roundoff_box`) are added *on that piece*, so the bound follows
the sum where it is largest instead of adding two global maxima; relative errors divide by
``|p| - sup |f - p|`` on the piece.  The branch and bound is :func:`.roundoff.search`; the
certificate is kind ``float-error`` with a bisection tree as evidence (docs/
certificates.md), re-checked by :mod:`dpverify.verify.scheme_error`.

Guarantee
---------
Rigorous for every float of the format in the interval and the stated operations (ball
arithmetic and exact rationals).  :class:`~dpverify.errors.DomainError` names the point
when ``f`` may vanish there (rel, ulps) or has no finite enclosure.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

from flint import fmpq

from .._version import __version__
from ..budget import after, check_timeout, limits
from ..errors import InvalidParameterError, ParameterTypeError
from ..exact import MonomialPoly
from ..numbers import check_int, check_interval, fmpq_str, fmpq_to_decimal, to_fmpq
from ..progress import ProgressCallback
from .certificate import CERT_FORMAT, SCHEMA_VERSION, Certificate
from .fpformat import Format, read_format
from .piece_bounds import PieceProblem, taylor_form_piece_1d
from .roundoff import dyadic_cover, round_up, search
from .roundoff_box import Box, BoxResult, Setup, analyse_box
from .roundoff_cert import ERRORS, box_json
from .schemes import SCHEME_NAMES, fused, scheme_program

__all__ = ["SchemeErrorBound", "scheme_error_bound", "DEFAULT_SCHEME_PIECES"]

#: the default cap on the pieces of the search
DEFAULT_SCHEME_PIECES = 4000
_PREC = 128


@dataclass
class SchemeErrorBound:
    """``|f(x) - fl(p)(x)| <= bound`` (in the unit of ``error``) for every float ``x`` of
    the format in ``interval``; ``absolute`` is the largest absolute bound of the pieces,
    ``approximation`` and ``rounding`` the largest of each part.  :meth:`float_certificate`
    is the ``float-error`` certificate.

    Examples
    --------
    >>> b = scheme_error_bound("1 + x", [1, 1], (0, 1), format="binary32", error="rel")
    >>> b.float_certificate().check().status
    'holds'
    """

    target: str
    coefficients: list[fmpq]
    scheme: str
    parity: str | None
    format: Format
    interval: tuple[fmpq, fmpq]
    error: str
    bound: fmpq
    absolute: fmpq
    approximation: fmpq
    rounding: fmpq
    leaves: list[BoxResult] = field(default_factory=list)
    tree: str = "."
    root: Box = ()
    stats: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {"target": self.target, "scheme": self.scheme, "parity": self.parity,
                "format": self.format.name, "error": ERRORS[self.error],
                "bound": fmpq_str(self.bound),
                "bound_decimal": fmpq_to_decimal(self.bound, 7, "up"),
                "absolute_decimal": fmpq_to_decimal(self.absolute, 7, "up"),
                "approximation_decimal": fmpq_to_decimal(self.approximation, 7, "up"),
                "rounding_decimal": fmpq_to_decimal(self.rounding, 7, "up"),
                "pieces": len(self.leaves)}

    def float_certificate(self) -> Certificate:
        """The ``float-error`` certificate (kind ``float-error``, evidence a bisection
        tree; docs/certificates.md)."""
        st: dict[str, Any] = {
            "scheme": self.scheme, "parity": self.parity, "format": self.format.name,
            "arithmetic": f"{self.format.name}, round to nearest even, "
                          + ("fused multiply-add" if fused(self.scheme) else "no FMA"),
            "polynomial": {"basis": "monomial", "domain": None,
                           "coefficients": [fmpq_str(c) for c in self.coefficients]},
            "interval": [fmpq_str(self.interval[0]), fmpq_str(self.interval[1])],
            "target": {"kind": "expr", "expr": self.target, "variables": ["x"]},
            "error": ERRORS[self.error],
            "bound": fmpq_str(self.bound),
        }
        info = {"pieces": len(self.leaves),
                "seconds": round(float(self.stats.get("seconds", 0.0)), 4),
                "search_stopped": self.stats.get("stop"),
                "absolute_error_decimal": fmpq_to_decimal(self.absolute, 7, "up"),
                "approximation_decimal": fmpq_to_decimal(self.approximation, 7, "up"),
                "rounding_decimal": fmpq_to_decimal(self.rounding, 7, "up"),
                "dpverify_version": __version__}
        return Certificate({
            "schema_version": SCHEMA_VERSION, "format": CERT_FORMAT, "kind": "float-error",
            "statement": st, "evidence": {"root": box_json(self.root), "tree": self.tree},
            "info": info})


def scheme_error_bound(f: Any, coeffs: Any, interval: Any, *, scheme: str = "horner",
                       parity: str | None = None, format: Any = "binary64",
                       error: str = "abs", rtol: Any = "1e-3",
                       max_pieces: int = DEFAULT_SCHEME_PIECES, timeout: Any = None,
                       progress: ProgressCallback | None = None) -> SchemeErrorBound:
    """Certified total error of the float code ``fl(p)`` against ``f`` (module docstring).

    Parameters
    ----------
    f : str or Expr
        The function, an expression of ``x``.
    coeffs : sequence of exact numbers
        ``c_0 .. c_n`` (monomial basis, lowest degree first), rounded to the format if
        they are not numbers of it (the statement is about the rounded ones).
    interval : pair
        ``(A, B)``; every float of the format in it is covered.
    scheme, parity :
        The evaluation order (:mod:`.schemes`).
    format : {"binary64", "binary32"}
    error : {"abs", "rel", "ulps"}
    rtol : exact number
        Stop refining once the largest piece bound is within ``rtol`` of its integrand at
        a centre (default 1e-3).
    max_pieces, timeout, progress :
        Budget of the search (a valid, wider bound when it stops early).

    Examples
    --------
    ``1 + x`` against ``exp(x)`` near 0 in binary32, in ulps of ``exp(x)``:

    >>> b = scheme_error_bound("exp(x)", [1, 1], ("-1/64", "1/64"), format="binary32",
    ...                        error="ulps")
    >>> 0 < b.bound < 2**15
    True
    """
    # function-level: the expression language is only needed here (start-up cost)
    from ..expr import Expr, parse

    if isinstance(f, Expr):
        fx = parse(f.canonical, variables=("x",), name="f")
    elif isinstance(f, str):
        fx = parse(f, variables=("x",), name="f")
    else:
        raise ParameterTypeError(f"f must be an expression of x, got {type(f).__name__}")
    fmt = read_format(format)
    if scheme not in SCHEME_NAMES:
        raise InvalidParameterError(f"scheme must be one of {', '.join(SCHEME_NAMES)}, got "
                                    f"{scheme!r}")
    if error not in ERRORS:
        raise InvalidParameterError(f"error must be 'abs', 'rel' or 'ulps', got {error!r}")
    if isinstance(coeffs, (str, bytes)) or not hasattr(coeffs, "__len__"):
        raise ParameterTypeError("coeffs must be a sequence of exact numbers")
    cs = [to_fmpq(c, f"coeffs[{i}]") for i, c in enumerate(coeffs)]
    if not cs:
        raise InvalidParameterError("coeffs must not be empty")
    if len(cs) > 1 and cs[-1] == 0:
        raise InvalidParameterError("the leading coefficient is 0: give the exact degree")
    chat = []
    for i, c in enumerate(cs):
        h = fmt.nearest(c)
        if h is None:
            raise InvalidParameterError(f"coeffs[{i}] overflows {fmt.name}")
        chat.append(h)
    A, B = check_interval(interval)
    lo, hi = fmt.ceil(A), fmt.floor(B)
    if lo > hi:
        raise InvalidParameterError(f"no {fmt.name} number lies in the interval")
    rt = to_fmpq(rtol, "rtol")
    if not rt > 0:
        raise InvalidParameterError(f"rtol must be > 0, got {rtol!r}")
    check_int(max_pieces, "max_pieces", 1, 200_000)
    prog = scheme_program(chat, scheme, parity)
    prob = PieceProblem(fx, MonomialPoly(chat), 1)

    def approx(box: Box) -> tuple[fmpq | None, fmpq]:
        a, b = box[0]
        up, centre_low, _, _ = taylor_form_piece_1d(prob, a, b, _PREC)
        return up, centre_low

    setup = Setup(prog, fmt, False, {}, error, approx)
    seconds = check_timeout(timeout)
    stop = None if seconds is None else time.monotonic() + seconds
    t0 = time.perf_counter()
    root = dyadic_cover(((lo, hi),))
    with limits(timeout=after(seconds), shown=seconds):
        leaves, tree, how = search(lambda bx: analyse_box(setup, bx), root, rt, max_pieces,
                                   stop, progress)
    worst = max(r.bound or fmpq(0) for r in leaves)
    return SchemeErrorBound(
        fx.canonical, chat, scheme, parity, fmt, (A, B), error, round_up(worst),
        max(r.absolute or fmpq(0) for r in leaves), max(r.approx for r in leaves),
        max(r.first + r.second for r in leaves), leaves, tree, root,
        {"seconds": time.perf_counter() - t0, "stop": how})
