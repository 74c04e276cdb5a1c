"""``dpverify.implement``: from a function to certified float code -- the least degree whose
machine-coefficient polynomial, evaluated in a named scheme and format, is proven within a
target number of ulps of ``f`` at every float of an interval; its coefficients, the
generated code and the certificate.

For each degree ``n`` upwards (one parity with ``parity``):

1. machine-number coefficients by :func:`dpverify.fpminimax` (lattice reduction from the
   best real approximation, relative error by default: ulps are relative; a search);
2. the certified total error (approximation plus every rounding of the scheme) in ulps of
   ``f(x)`` over every float ``x`` of the interval, kind ``float-error``
   (:func:`dpverify.certify.scheme_error.scheme_error_bound`); the first degree whose bound
   is ``<= target_ulps`` is the answer;
3. a degree whose bound exceeds the target is either *refuted* -- a float input was found
   (a search) where the code's error, computed exactly and against a rigorous enclosure of
   ``f``, exceeds the target: these coefficients in this scheme fail, proven -- or *not
   certified*: the bound is above the target but no such input was found; the code may
   still meet the target (the bound is not tight enough to say).  Neither says that *no*
   polynomial of that degree meets the target: other coefficients might.

The chosen polynomial is written as a Python module (one numpy function) and a C file by
:func:`dpverify.fast.codegen.emit` (exact hex coefficients, exactly the certified operation
order), and the numpy function is checked against ``f`` by
:func:`dpverify.testing.check_implementation`: every float of the interval when there are at
most :data:`EXHAUSTIVE_MAX` (or with ``check="all"``), else a search of ``2^20`` inputs.  Its
worst error must not exceed the certified bound (it cannot, unless something is wrong: then
:class:`~dpverify.errors.CertificationFailed` is raised).

Guarantee
---------
The certificate (kind ``float-error``, error ``ulps``) is proven and holds in ``dpverify
verify``; the emitted code evaluates exactly its scheme on exactly its coefficients.  The
degree is the least of those tried whose *bound* meets the target, so "least" is relative
to this method: each lower degree's line says whether it was refuted (proven for those
coefficients) or only not certified.
"""

from __future__ import annotations

import importlib.util
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from flint import fmpq

from .budget import after, check_timeout, limits
from .certify.alternation import expr_of
from .certify.fpformat import Format, read_format
from .certify.scheme_error import scheme_error_bound
from .certify.schemes import SCHEME_NAMES
from .certify.weights import prove_sign
from .constructions.float_formats import FORMATS as MACHINE_FORMATS
from .errors import (
    CertificationFailed,
    DomainError,
    InvalidParameterError,
    MemoryLimitExceeded,
    ParameterTypeError,
    TimeLimitExceeded,
)
from .fast.codegen import Emitted, emit, hex_literal
from .machine import MAX_FPMINIMAX_DEGREE, fpminimax
from .numbers import check_int, check_interval, fmpq_str, fmpq_to_decimal, to_fmpq
from .progress import ProgressCallback, report
from .testing import check_implementation

__all__ = ["Implementation", "DegreeAttempt", "implement", "float_count", "EXHAUSTIVE_MAX",
           "DEFAULT_MAX_DEGREE"]

#: the largest number of floats ``check="auto"`` checks one by one (about 10 s)
EXHAUSTIVE_MAX = 2**24
#: the default cap of the degree search
DEFAULT_MAX_DEGREE = 40
#: inputs searched for a refuting float at a degree whose bound misses the target
_REFUTE_POINTS = 2**14
#: inputs of the final check when the interval has too many floats for every one
_SAMPLE_POINTS = 2**20


@dataclass
class DegreeAttempt:
    """One degree of the search: ``status`` is ``"certified"`` (bound <= target),
    ``"refuted"`` (a float input where these coefficients in this scheme err by more than
    the target, proven: ``witness``, ``witness_ulps`` a lower bound of the error there) or
    ``"not certified"`` (the bound exceeds the target and no such input was found:
    undecided, not impossible); ``bound`` the certified ulps (None when no bound was
    obtained: ``note`` says why), ``approximation`` the certified ``sup |(f - p)/f|`` (or
    ``|f - p|``) of the real polynomial.

    Examples
    --------
    >>> DegreeAttempt(3, "not certified", fmpq(3, 2)).describe("1")
    'degree 3: bound 1.5 ulps > 1: not certified (the bound is not tight enough to decide)'
    """

    degree: int
    status: str
    bound: fmpq | None = None
    approximation: fmpq | None = None
    witness: str | None = None
    witness_ulps: fmpq | None = None
    note: str = ""

    def describe(self, target: str) -> str:
        """One line for the progress and the table."""
        b = "no bound" if self.bound is None else \
            f"bound {fmpq_to_decimal(self.bound, 6, 'up')} ulps"
        if self.status == "certified":
            return f"degree {self.degree}: {b} <= {target}: certified"
        head = f"degree {self.degree}: " + ("" if self.bound is None else f"{b} > {target}: ")
        if self.status == "refuted":
            return (f"{head}refuted, proven: the code errs by "
                    f">= {fmpq_to_decimal(self.witness_ulps or fmpq(0), 6, 'down')} ulps at "
                    f"x = {self.witness}")
        why = self.note or "the bound is not tight enough to decide"
        return f"{head}not certified ({why})"

    def to_json(self) -> dict[str, Any]:
        return {"degree": self.degree, "status": self.status,
                "bound": None if self.bound is None else fmpq_str(self.bound),
                "approximation": None if self.approximation is None
                else fmpq_to_decimal(self.approximation, 6, "up"),
                "witness": self.witness,
                "witness_ulps_at_least": None if self.witness_ulps is None
                else fmpq_to_decimal(self.witness_ulps, 6, "down"),
                "note": self.note}


@dataclass
class Implementation:
    """The result of :func:`implement`: ``degree``, ``coefficients`` (exact, lowest power
    first) and ``hex``, ``bound`` (certified ulps) and ``certificate`` (kind
    ``float-error``), ``attempts`` (every degree tried, lowest first), ``emitted`` (the
    files, or None), ``check`` (the check of the generated numpy function: ``points``,
    ``exhaustive``, ``worst_ulps``, ``worst_input``, ``agrees``) and ``stats``.

    Examples
    --------
    >>> r = implement("exp(x)", ("1/2", "129/256"), format="binary32", target_ulps=1,
    ...               scheme="horner-fma")
    >>> r.degree, r.bound <= 1, r.check["exhaustive"], r.check["agrees"]
    (2, True, True, True)
    """

    f: str
    interval: tuple[fmpq, fmpq]
    format: str
    scheme: str
    parity: str | None
    target_ulps: fmpq
    degree: int
    coefficients: list[fmpq]
    hex: list[str]
    bound: fmpq
    certificate: Any
    attempts: list[DegreeAttempt] = field(default_factory=list)
    emitted: Emitted | None = None
    check: dict[str, Any] = field(default_factory=dict)
    stats: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {"f": self.f, "interval": [fmpq_str(v) for v in self.interval],
                "format": self.format, "scheme": self.scheme, "parity": self.parity,
                "target_ulps": fmpq_str(self.target_ulps), "degree": self.degree,
                "coefficients": [fmpq_str(c) for c in self.coefficients], "hex": self.hex,
                "bound": fmpq_str(self.bound),
                "bound_decimal": fmpq_to_decimal(self.bound, 7, "up"),
                "attempts": [a.to_json() for a in self.attempts],
                "emitted": None if self.emitted is None else {
                    "python": str(self.emitted.python), "c": str(self.emitted.c),
                    "function": self.emitted.function},
                "check": self.check, "stats": self.stats}


def _ordinal(x: float, fmt: Format) -> int:
    """The position of the float ``x`` among the numbers of ``fmt`` (0 for +-0)."""
    if fmt.precision == 24:
        bits = int(np.array([x], dtype=np.float32).view(np.uint32)[0])
        mag = bits & 0x7FFFFFFF
    else:
        bits = int(np.array([x], dtype=np.float64).view(np.uint64)[0])
        mag = bits & 0x7FFFFFFFFFFFFFFF
    return -mag if x < 0 else mag


def float_count(interval: tuple[fmpq, fmpq], fmt: Format) -> int:
    """How many numbers of ``fmt`` lie in the interval (``-0`` and ``+0`` once)."""
    lo, hi = fmt.ceil(interval[0]), fmt.floor(interval[1])
    if lo > hi:
        return 0
    return _ordinal(float(hi), fmt) - _ordinal(float(lo), fmt) + 1


def _load(path: Path, name: str) -> Callable[..., Any]:
    """The public function of a generated module, imported from its file."""
    spec = importlib.util.spec_from_file_location(f"_dpverify_generated_{name}", path)
    if spec is None or spec.loader is None:  # pragma: no cover - a file we just wrote
        raise CertificationFailed(f"cannot import the generated module {path}")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    fn: Callable[..., Any] = getattr(mod, name)
    return fn


def _hex(x: float, fmt: Format) -> str:
    """The exact hex text of a number of ``fmt`` (``0x1.8p-3``)."""
    return hex_literal(fmpq(*x.as_integer_ratio()), MACHINE_FORMATS[fmt.name])


def _load_try(cs: list[fmpq], fmt: Format, scheme: str, parity: str | None, name: str,
              n: int, tmp: Path) -> Callable[..., Any]:
    """The numpy function of the candidate of degree ``n``, generated and imported."""
    files = emit(cs, fmt.name, scheme, parity, f"{name}_try{n}", tmp)
    assert files.python is not None
    return _load(files.python, f"{name}_try{n}")


def _dtype(fmt: Format) -> Any:
    return np.float32 if fmt.precision == 24 else np.float64


def _refute(fn: Callable[..., Any], f: str, interval: tuple[fmpq, fmpq], fmt: Format,
            target: fmpq) -> tuple[str, fmpq] | None:
    """A float where ``fn`` errs by more than ``target`` ulps, proven (the check's
    enclosure of the error there), or None.  The check's ulp is that of the float nearest
    ``f(x)``, never smaller than the certificate's ``ulp(f(x))``, so an error above the
    target in the check's unit is above it in the certificate's."""
    rep = check_implementation(fn, f, points=_REFUTE_POINTS, ulps=target,
                               domain=(interval[0], interval[1]), dtype=_dtype(fmt),
                               raise_on_failure=False)
    low = rep.worst_ulps_enclosure[0]
    if low > target:
        return _hex(float(rep.worst_input), fmt), low
    return None


def _read_check(check: Any) -> str | int | None:
    if check is None or check in ("auto", "all"):
        return check
    if isinstance(check, (bool, str)):
        raise InvalidParameterError(f"check must be 'auto', 'all', None or a number of "
                                    f"inputs, got {check!r}")
    return check_int(check, "check", 1, 10**9)


def _final_check(fn: Callable[..., Any], f: str, interval: tuple[fmpq, fmpq], fmt: Format,
                 bound: fmpq, check: str | int) -> dict[str, Any]:
    """The check of the generated function (testing, not proof: the certificate is);
    CertificationFailed when it contradicts the certificate."""
    count = float_count(interval, fmt)
    exhaustive = check == "all" or (check == "auto" and count <= EXHAUSTIVE_MAX)
    points: Any = "all" if exhaustive else (_SAMPLE_POINTS if check == "auto" else check)
    if exhaustive and count > 2**33:
        raise InvalidParameterError(f"check='all': the interval holds {count} {fmt.name} "
                                    "numbers, too many to check one by one")
    t0 = time.perf_counter()
    rep = check_implementation(fn, f, points=points, ulps=bound,
                               domain=(interval[0], interval[1]), dtype=_dtype(fmt),
                               raise_on_failure=False)
    worst = rep.worst_ulps_enclosure[1]
    if rep.worst_ulps_enclosure[0] > bound:
        raise CertificationFailed(
            f"the generated code errs by {fmpq_to_decimal(rep.worst_ulps_enclosure[0], 6)} "
            f"ulps at x = {_hex(float(rep.worst_input), fmt)}, above the certified bound "
            f"{fmpq_to_decimal(bound, 6, 'up')}: please report this")
    return {"points": int(rep.points), "floats_in_interval": count, "exhaustive": exhaustive,
            "worst_ulps": fmpq_to_decimal(worst, 6, "up"),
            "worst_input": _hex(float(rep.worst_input), fmt),
            "agrees": bool(worst <= bound),
            "seconds": fmpq_to_decimal(fmpq(round(1000 * (time.perf_counter() - t0)), 1000), 4)}


def _degrees(parity: str | None, max_degree: int) -> list[int]:
    if parity is None:
        return list(range(0, max_degree + 1))
    return list(range(0 if parity == "even" else 1, max_degree + 1, 2))


def _trim(cs: list[fmpq]) -> list[fmpq]:
    out = list(cs)
    while len(out) > 1 and out[-1] == 0:
        out.pop()
    return out


def implement(f: Any, interval: Any, *, format: Any = "binary32", target_ulps: Any = 1,
              scheme: str = "horner", parity: str | None = None, relative: bool = True,
              fix: Any = None, max_degree: Any = DEFAULT_MAX_DEGREE, emit_dir: Any = None,
              name: str = "poly", check: Any = "auto", timeout: Any = None,
              progress: ProgressCallback | None = None,
              log: Callable[[str], None] | None = None) -> Implementation:
    """The least degree whose machine polynomial, evaluated by ``scheme`` in ``format``,
    is certified within ``target_ulps`` ulps of ``f`` at every float of ``interval``
    (module docstring).

    Parameters
    ----------
    f : str or Expr
        A function of ``x`` with no zero on the interval (ulps are relative).
    interval : (a, b)
        Exact ends; every float of ``format`` in ``[a, b]`` is covered.
    format : {"binary32", "binary64"}
        The format of the coefficients and of every operation.
    target_ulps : exact number
        The goal, ``> 1/2`` (the last rounding alone may cost half an ulp).
    scheme : {"horner", "horner-fma", "estrin", "estrin-fma"}
    parity : {None, "even", "odd"}
        Only powers of one parity, evaluated in ``x^2`` (docs/roundoff.md).
    relative : bool
        Coefficients from the relative (default) or absolute fpminimax.
    fix : mapping or str, optional
        Fixed coefficients (``{0: 1}``: ``p(0) = 1``), numbers of the format.
    max_degree : int
        The largest degree tried (at most ``MAX_FPMINIMAX_DEGREE``).
    emit_dir : path, optional
        Write ``<emit_dir>/<name>.py`` and ``<name>.c`` (else a temporary directory is used
        for the check and removed).
    name : str
        The generated function's name.
    check : "auto", "all", int or None
        The check of the generated numpy function: ``"auto"`` every float when there are at
        most :data:`EXHAUSTIVE_MAX`, else ``2^20`` inputs; ``"all"`` every float; a number
        of inputs; None: no check.
    timeout : seconds, optional
        Bounds the whole search (each degree gets what is left).
    progress : callable, optional
        :mod:`dpverify.progress` callback.
    log : callable, optional
        Called with one line per degree tried.

    Returns
    -------
    Implementation

    Raises
    ------
    InvalidParameterError, ParameterTypeError
        Bad inputs (naming the parameter), ``f`` vanishing on the interval.
    CertificationFailed
        No degree up to ``max_degree`` is certified (the message lists the last attempt),
        or the check contradicts the certificate.

    Guarantee
    ---------
    ``certificate`` holds in ``dpverify verify`` and proves ``|f(x) - fl(p)(x)| <=
    bound ulp(f(x))`` for every float ``x`` of the interval with ``bound <= target_ulps``;
    each lower degree is marked refuted (proven for its coefficients) or not certified.

    Examples
    --------
    ``exp`` on a short interval of binary32 numbers at 1 ulp with fused multiply-adds, the
    code checked at every float (65537 of them):

    >>> r = implement("exp(x)", ("1/2", "129/256"), format="binary32", target_ulps=1,
    ...               scheme="horner-fma")
    >>> r.degree, [a.status for a in r.attempts]
    (2, ['refuted', 'refuted', 'certified'])
    >>> r.certificate.check().status, r.check["agrees"]
    ('holds', True)
    """
    t0 = time.monotonic()
    fx = expr_of(f)
    fmt = read_format(format)
    a, b = check_interval(interval)
    u = to_fmpq(target_ulps, "target_ulps")
    if not u > fmpq(1, 2):
        raise InvalidParameterError(f"target_ulps must be > 1/2 (the last rounding alone may "
                                    f"err by 1/2 ulp), got {fmpq_str(u)}")
    if scheme not in SCHEME_NAMES:
        raise InvalidParameterError(f"scheme must be one of {', '.join(SCHEME_NAMES)}, got "
                                    f"{scheme!r}")
    if parity not in (None, "even", "odd"):
        raise InvalidParameterError(f"parity must be None, 'even' or 'odd', got {parity!r}")
    if not isinstance(relative, bool):
        raise ParameterTypeError("relative must be a bool")
    top = check_int(max_degree, "max_degree", 0, MAX_FPMINIMAX_DEGREE)
    chk = _read_check(check)
    if not isinstance(name, str):
        raise ParameterTypeError("name must be a string")
    if not name.isidentifier() or name.startswith("_"):
        raise InvalidParameterError(f"name must be a public identifier, got {name!r}")
    if max(abs(a), abs(b)) > fmt.largest:
        raise InvalidParameterError(
            f"interval: beyond the largest finite {fmt.name} number "
            f"({fmpq_to_decimal(fmt.largest, 6)}), got [{fmpq_to_decimal(a, 6)}, "
            f"{fmpq_to_decimal(b, 6)}]")
    if fmt.ceil(a) > fmt.floor(b):
        raise InvalidParameterError(f"no {fmt.name} number lies in the interval")
    if emit_dir is not None:
        # refused before the search, not after it: a directory that cannot be made
        try:
            Path(emit_dir).mkdir(parents=True, exist_ok=True)
        except (OSError, TypeError, ValueError) as exc:
            why = getattr(exc, "strerror", None) or str(exc)
            raise InvalidParameterError(
                f"emit_dir: cannot create the directory {str(emit_dir)[:200]!r}: {why}") from None
    # ulps are relative: f must keep one sign (proven), else no bound can be finite
    prove_sign(fx, a, b, what="f", positive_only=False)
    tu = fmpq_to_decimal(u, 6)
    seconds = check_timeout(timeout)
    deadline = None if seconds is None else t0 + seconds
    attempts: list[DegreeAttempt] = []
    degrees = _degrees(parity, top)
    mon = parity
    # the budget bounds the checks too (check_implementation stops between its tasks)
    with limits(timeout=after(seconds), shown=seconds), \
            tempfile.TemporaryDirectory(prefix="dpverify-implement-") as tmp:
        for i, n in enumerate(degrees):
            report(progress, f"implement: degree {n}", i, len(degrees))
            left = None if deadline is None else deadline - time.monotonic()
            if left is not None and left <= 0:
                raise TimeLimitExceeded(f"timeout: no degree certified within {tu} ulps in "
                                        f"{timeout} s (last: " + (attempts[-1].describe(tu)
                                        if attempts else "none") + ")")
            att, cs, bnd = _attempt(fx, n, (a, b), fmt, u, scheme, parity, relative, mon, fix,
                                    left, Path(tmp), name)
            if att.note.startswith("no such polynomial"):
                continue
            attempts.append(att)
            if log is not None:
                log(att.describe(tu))
            if att.status != "certified" or bnd is None:
                if _plateau(attempts):
                    break
                continue
            emitted = None
            out_dir = Path(tmp) if emit_dir is None else Path(emit_dir)
            files = emit(cs, fmt.name, scheme, parity, name, out_dir)
            if emit_dir is not None:
                emitted = files
            summary: dict[str, Any] = {}
            if chk is not None and files.python is not None:
                report(progress, "implement: checking the generated code", i, len(degrees))
                summary = _final_check(_load(files.python, name), fx.canonical, (a, b), fmt,
                                       bnd.bound, chk)
                if log is not None:
                    log(f"check of the generated code: worst {summary['worst_ulps']} ulps at "
                        f"{summary['points']} " + ("floats (every one)" if summary["exhaustive"]
                                                   else "inputs (a search)")
                        + f" <= certified {fmpq_to_decimal(bnd.bound, 6, 'up')}")
            cert = bnd.float_certificate()
            cert.data["info"]["implement"] = {
                "target_ulps": fmpq_str(u), "relative_coefficients": relative,
                "attempts": [x.to_json() for x in attempts], "check": summary}
            return Implementation(
                f=fx.canonical, interval=(a, b), format=fmt.name, scheme=scheme,
                parity=parity, target_ulps=u, degree=len(cs) - 1, coefficients=cs,
                hex=[hex_literal(c, MACHINE_FORMATS[fmt.name]) for c in cs], bound=bnd.bound,
                certificate=cert,
                attempts=attempts, emitted=emitted, check=summary,
                stats={"seconds": round(time.monotonic() - t0, 3)})
    last = attempts[-1].describe(tu) if attempts else "no degree tried"
    if _plateau(attempts):
        raise CertificationFailed(
            f"not certified within {tu} ulps: the bound stopped decreasing ({last}); the "
            f"rounding of {scheme} in {fmt.name} dominates, so higher degrees do not help: "
            + ("try --scheme horner-fma (fewer roundings), " if scheme != "horner-fma" else
               "try ")
            + "a larger target or a shorter interval")
    raise CertificationFailed(f"no degree <= {top} is certified within {tu} ulps ({last}); "
                              "raise max_degree, or try another scheme")


#: the search stops after this many degrees whose bounds each improved by less than 1%
_PLATEAU = 3


def _plateau(attempts: list[DegreeAttempt]) -> bool:
    """Whether the last bounds stopped improving (the rounding dominates: a search
    heuristic that ends the degree search, never a claim)."""
    bs = [a.bound for a in attempts[-(_PLATEAU + 1):]]
    if len(bs) <= _PLATEAU or any(b is None for b in bs):
        return False
    return all(nxt is not None and prev is not None and nxt * fmpq(100, 99) >= prev
               for prev, nxt in zip(bs, bs[1:]))


def _attempt(fx: Any, n: int, box: tuple[fmpq, fmpq], fmt: Format, u: fmpq, scheme: str,
             parity: str | None, relative: bool, mon: str | None, fix: Any, timeout: Any,
             tmp: Path, name: str) -> tuple[DegreeAttempt, list[fmpq], Any]:
    """Coefficients, bound and (when the bound misses) a refutation search at degree n."""
    try:
        r = fpminimax(fx, n, box, format=fmt.name, relative=relative, monomials=mon,
                      fix=fix, timeout=timeout)
    except InvalidParameterError as exc:
        if n == 0 or "free" in str(exc) or "power" in str(exc):
            # a family with no free power at this degree (every power fixed): next degree
            return DegreeAttempt(n, "not certified", note=f"no such polynomial: {exc}"), [], \
                None
        raise
    except (TimeLimitExceeded, MemoryLimitExceeded):
        raise
    except (CertificationFailed, ArithmeticError) as exc:
        return DegreeAttempt(n, "not certified", note=f"fpminimax: {exc}"), [], None
    except ValueError as exc:  # an internal limit of the search (e.g. huge integers)
        return DegreeAttempt(n, "not certified", note=f"fpminimax failed: {exc}"), [], None
    cs = _trim(r.coefficients)
    if relative and fmpq(r.certificate.statement["error"]["lower"]) > \
            2 * u * fmpq(2) ** (1 - fmt.precision):
        # |(f - p)/f| proven above 2 U 2^(1-p) at a point: about 2U ulps or more before any
        # rounding, so no certificate can meet the target; the total-error search would
        # only spend its budget (it may not even get a finite bound where |p| is far
        # from |f|).  Look for a refuting input straight away.
        hit = _refute(_load_try(cs, fmt, scheme, parity, name, n, tmp), fx.canonical, box,
                      fmt, u)
        if hit is not None:
            return DegreeAttempt(n, "refuted", None, r.error, hit[0], hit[1]), cs, None
        return DegreeAttempt(n, "not certified", None, r.error,
                             note="the approximation error alone is about 2x the target or "
                             "more; total error not computed"), cs, None
    try:
        bnd = scheme_error_bound(fx, cs, box, scheme=scheme, parity=parity, format=fmt.name,
                                 error="ulps", timeout=timeout)
    except (TimeLimitExceeded, MemoryLimitExceeded):
        raise
    except (CertificationFailed, DomainError) as exc:
        # f was proven nonzero up front: a DomainError here is a box the search could not
        # separate from 0 in its budget -- no bound, not a refutation
        return DegreeAttempt(n, "not certified", approximation=r.error,
                             note=f"total error: {exc}"), cs, None
    if bnd.bound <= u:
        return DegreeAttempt(n, "certified", bnd.bound, r.error), cs, bnd
    hit = _refute(_load_try(cs, fmt, scheme, parity, name, n, tmp), fx.canonical, box, fmt,
                  u)
    if hit is None:
        return DegreeAttempt(n, "not certified", bnd.bound, r.error,
                             note=f"no input above {fmpq_to_decimal(u, 6)} ulps among "
                             f"{_REFUTE_POINTS} searched; the bound is not tight enough to "
                             "decide"), cs, None
    return DegreeAttempt(n, "refuted", bnd.bound, r.error, hit[0], hit[1]), cs, None
