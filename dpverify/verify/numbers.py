"""Exact reading of certificate numbers; decimal renderings; decisions at growing precision.

* :func:`read_exact` returns the exact rational a string spells (``"0.1"`` is 1/10), using
  ``fmpz(str)`` so that no Python digit limit applies; anything else raises Malformed.
  Every number read is charged, before it is built, against the digit budget of the running
  verification (:func:`digit_budget`, :func:`charge`): ``"1e100000"`` costs 100001 digits.
* :func:`decide` runs a predicate on arb balls at 64, 128, ... 65536 bits until it returns
  True or False (arb comparisons are certain, so the answer is exact), else None.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

from flint import ctx, fmpq, fmpz

from .report import Cut, Malformed

__all__ = ["MAX_CHARS", "MAX_EXPONENT", "MAX_PREC", "MIN_DIGIT_BUDGET", "DIGITS_PER_BYTE",
           "digit_budget", "budget_for", "charge", "pow10", "read_exact", "read_int",
           "short_text", "show", "shown", "working", "decide", "floor_log10", "check_rounded_up",
           "expect_keys", "read_list", "read_error_claim", "JsonObject"]

#: a parsed JSON object: its values are untyped until read by the functions here
JsonObject = dict[str, Any]

MAX_CHARS = 1_000_000
MAX_EXPONENT = 100_000
MAX_PREC = 65536
#: the digit budget of one certificate: max(MIN_DIGIT_BUDGET, DIGITS_PER_BYTE x its size)
MIN_DIGIT_BUDGET = 1_000_000
DIGITS_PER_BYTE = 4
# unambiguous patterns (each character can be matched in one way only: no backtracking
# blow-up on long digit strings)
_RATIO = re.compile(r"([+-]?)([0-9]+)/([0-9]+)")
_DECIMAL = re.compile(r"([+-]?)(?:([0-9]+)(?:\.([0-9]*))?|\.([0-9]+))(?:[eE]([+-]?)([0-9]+))?")


class _Budget:
    """What is left of the digit budget of one verification."""

    __slots__ = ("left", "total")

    def __init__(self, total: int) -> None:
        self.left = self.total = total


#: the budget of the verification running in this context (None: none is running, then
#: each number alone must stay within MIN_DIGIT_BUDGET)
_BUDGET: ContextVar[_Budget | None] = ContextVar("dpverify_verify_digits", default=None)


def budget_for(size: int) -> int:
    """The digit budget of a certificate of ``size`` bytes."""
    return max(MIN_DIGIT_BUDGET, DIGITS_PER_BYTE * size)


@contextmanager
def digit_budget(total: int) -> Iterator[None]:
    """Inside this block the numbers read (:func:`read_exact`) and the constants folded by
    the expression parser may expand to at most ``total`` decimal digits in all."""
    token = _BUDGET.set(_Budget(total))
    try:
        yield
    finally:
        _BUDGET.reset(token)


def charge(digits: int, where: str) -> None:
    """Account for a number of about ``digits`` decimal digits about to be built; Malformed
    when that exceeds the budget (checked before anything is allocated)."""
    b = _BUDGET.get()
    if b is None:
        if digits > MIN_DIGIT_BUDGET:
            raise Malformed(f"{where}: number expands to more than {MIN_DIGIT_BUDGET} digits")
        return
    b.left -= digits
    if b.left < 0:
        raise Malformed(f"{where}: the numbers of this certificate expand to more than "
                        f"{b.total} digits in all (the digit budget: max({MIN_DIGIT_BUDGET}, "
                        f"{DIGITS_PER_BYTE} x file size))")


def pow10(e: int) -> fmpq:
    return fmpq(fmpz(10) ** e) if e >= 0 else fmpq(1, fmpz(10) ** (-e))


def _decimal_parts(s: str, where: str) -> tuple[int, str, str, int]:
    """(sign, integer digits, fraction digits, exponent) of a decimal text."""
    m = _DECIMAL.fullmatch(s)
    if m is None:
        raise Malformed(f"{where}: {short_text(s)!r} is not an exact number")
    exp = 0
    if m.group(6) is not None:
        digits = m.group(6).lstrip("0") or "0"
        if len(digits) > 6 or int(digits) > MAX_EXPONENT:
            raise Malformed(f"{where}: decimal exponent beyond +-{MAX_EXPONENT}")
        exp = -int(digits) if m.group(5) == "-" else int(digits)
    return (-1 if m.group(1) == "-" else 1), m.group(2) or "", m.group(3) or m.group(4) or "", \
        exp


def read_exact(s: object, where: str) -> fmpq:
    """The exact rational spelled by ``s`` (integer, ``p/q`` with q > 0, or decimal)."""
    if type(s) is not str:
        raise Malformed(f"{where}: an exact number must be a JSON string")
    if len(s) > MAX_CHARS:
        raise Malformed(f"{where}: number longer than {MAX_CHARS} characters")
    m = _RATIO.fullmatch(s)
    if m is not None:
        charge(len(m.group(2)) + len(m.group(3)), where)
        num, den = fmpz(m.group(2)), fmpz(m.group(3))
        if den == 0:
            raise Malformed(f"{where}: zero denominator")
        return fmpq(-num if m.group(1) == "-" else num, den)
    sign, ipart, fpart, exp = _decimal_parts(s, where)
    # the digits of the mantissa plus those of the power of ten (numerator or denominator)
    charge(len(ipart) + len(fpart) + abs(exp - len(fpart)), where)
    mant = fmpz(ipart + fpart) if ipart + fpart else fmpz(0)
    return sign * mant * pow10(exp - len(fpart))


def read_int(v: object, where: str, lo: int, hi: int) -> int:
    if type(v) is not int or not lo <= v <= hi:
        raise Malformed(f"{where}: expected a JSON integer in [{lo}, {hi}]")
    return v


def short_text(s: str, n: int = 40) -> str:
    return s if len(s) <= n else f"{s[:n // 2]}...{s[-n // 2:]} ({len(s)} chars)"


def _approx(q: fmpq, digits: int) -> str:
    """``d.ddd...e+E``: ``q`` truncated towards zero to ``digits`` significant digits,
    marked ``~`` when the truncation is not exact."""
    e = floor_log10(q)
    scaled = abs(q) * pow10(digits - 1 - e)
    shown = str(int(scaled.floor()))
    mark = "" if scaled.q == 1 else "~"
    mant = f"{shown[0]}.{shown[1:]}".rstrip("0").rstrip(".")
    return f"{mark}{'-' if q < 0 else ''}{mant}e{e:+d}"


def show(q: fmpq | int, n: int = 40) -> str:
    """``q`` exactly when short (a ratio followed by its decimal value to 6 digits), else
    its decimal value to 20 digits (both truncated, marked ``~``)."""
    text = str(q)
    if not isinstance(q, fmpq) or q == 0:
        return short_text(text, n)
    if len(text) > n:
        return _approx(q, 20)
    return f"{text} ({_approx(q, 6)})" if q.q != 1 else text


def shown(q: fmpq | int, n: int = 40) -> str | Cut:
    """:func:`show` for a statement line: a :class:`~report.Cut` (display form, exact
    text) when the display form is shortened (long numbers), else the text itself."""
    short = show(q, n)
    return short if len(str(q)) <= n else Cut(short, str(q))


@contextmanager
def working(prec: int, cap: int = 0) -> Iterator[None]:
    """Working precision ``prec`` and series length cap >= ``cap``; both restored after."""
    old = ctx.cap
    ctx.cap = max(old, cap)
    try:
        with ctx.workprec(prec):
            yield
    finally:
        ctx.cap = old


def decide(pred: Callable[[], bool | None], start: int = 64) -> bool | None:
    """Evaluate ``pred`` at working precisions start, 2 start, ... <= 65536 bits."""
    prec = max(start, 16)
    while prec <= MAX_PREC:
        with working(prec):
            r = pred()
        if r is not None:
            return r
        prec *= 2
    return None


def floor_log10(v: fmpq) -> int:
    """The integer E with 10^E <= |v| < 10^(E+1) (v != 0)."""
    v = abs(v)
    e = len(str(v.p)) - len(str(v.q))
    while pow10(e) > v:
        e -= 1
    while pow10(e + 1) <= v:
        e += 1
    return e


def check_rounded_up(text: str, value: fmpq, where: str) -> tuple[bool, str]:
    """Is ``text`` exactly ``value`` rounded up to the significant digits ``text`` shows?"""
    if _RATIO.fullmatch(text):
        return False, f"{where} {text!r} is not a decimal rendering"
    shown = read_exact(text, where)
    _, ipart, fpart, _ = _decimal_parts(text, where)
    digits = (ipart + fpart).lstrip("0")
    if not digits:
        return value == 0, f"{where} = 0, exact value {show(value)}"
    if value == 0:
        return False, f"{where} = {text} but the exact value is 0"
    step = pow10(floor_log10(value) - len(digits) + 1)
    want = (value / step).ceil() * step
    if shown == want:
        return True, f"{where} = {text} is the value rounded up to {len(digits)} digits"
    return False, f"{where} = {text}; rounding {show(value)} up to {len(digits)} digits gives " \
                  f"{show(want)}"


def expect_keys(obj: object, where: str, required: tuple[str, ...],
                optional: tuple[str, ...] = ()) -> JsonObject:
    """``obj`` as a dict with exactly the required keys plus some optional ones."""
    if not isinstance(obj, dict):
        raise Malformed(f"{where}: expected an object")
    missing = [k for k in required if k not in obj]
    extra = [k for k in obj if k not in required and k not in optional]
    if missing or extra:
        raise Malformed(f"{where}: " + (f"missing {missing[0]!r}" if missing
                                         else f"unexpected key {str(extra[0])[:40]!r}"))
    return obj


def read_list(v: object, where: str, lo: int, hi: int) -> list[Any]:
    if not isinstance(v, list) or not lo <= len(v) <= hi:
        raise Malformed(f"{where}: expected a list of {lo} to {hi} entries")
    return v


def read_error_claim(st: JsonObject) -> tuple[fmpq, fmpq, str | None, fmpq | None]:
    """``(lower, upper, upper_decimal or None, max_error or None)`` of a statement's
    ``error`` block and optional ``max_error`` claim (numbers exact; the decimal string is
    checked to be a number and returned as written)."""
    err = expect_keys(st["error"], "statement.error", ("lower", "upper"), ("upper_decimal",))
    lower = read_exact(err["lower"], "statement.error.lower")
    upper = read_exact(err["upper"], "statement.error.upper")
    dec = err.get("upper_decimal")
    if dec is not None:
        read_exact(dec, "statement.error.upper_decimal")
    me = st.get("max_error")
    return (lower, upper, dec,
            None if me is None else read_exact(me, "statement.max_error"))
