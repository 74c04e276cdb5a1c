"""Exact reading and writing of numbers, and parameter validation.

Conventions
-----------
* Numbers given as text are read **exactly**: ``"1e-3"`` is 1/1000, ``"0.3"`` is
  3/10, ``"3/7"`` is 3/7.  No text number ever passes through a binary float.
* A Python ``float`` given to the API is read through its shortest round-trip
  decimal representation (``repr``), so ``gamma=1e-3`` means 1/1000, which is what
  the caller typed.  NaN and infinities are rejected.
* Exact rationals are written as ``"p/q"`` (or ``"p"`` for integers).
* Decimal strings of ball enclosures are rounded *outward* (lower bounds down,
  upper bounds up), so a printed enclosure is still an enclosure.
"""

from __future__ import annotations

import math
import re
from fractions import Fraction
from numbers import Integral
from typing import Any

from flint import arb, fmpq, fmpz

from .errors import InvalidParameterError, ParameterTypeError

__all__ = [
    "to_fmpq",
    "parse_exact",
    "check_int",
    "check_rational",
    "check_open_unit",
    "fmpq_str",
    "parse_fmpq_str",
    "arb_to_fmpq_bounds",
    "fmpq_to_decimal",
    "log2_fmpq",
    "MAX_DEGREE",
]

#: Largest polynomial degree / table size accepted by public functions.  Above
#: it exact arithmetic would exhaust memory or time on the 24 GiB reference box.
MAX_DEGREE = 200_000

_DECIMAL = re.compile(r"^([+-]?)(\d+)?(?:\.(\d*))?(?:[eE]([+-]?\d+))?$")
_RATIO = re.compile(r"^([+-]?\d+)\s*/\s*([+-]?\d+)$")
_MAX_EXPONENT = 100_000
_MAX_LITERAL = 4000  # below CPython's int-from-string digit limit


def parse_exact(text: str, name: str = "value") -> fmpq:
    """Read ``text`` as an exact rational.

    Accepts integers (``"12"``), decimals with optional exponent (``"1e-3"``,
    ``"-0.25"``, ``"2.5E+4"``) and ratios of integers (``"3/7"``).

    Raises
    ------
    InvalidParameterError
        If the text is not such a number, has a zero denominator, or an exponent
        beyond +-100000.
    """
    if not isinstance(text, str):
        raise ParameterTypeError(f"{name} must be a string, got {type(text).__name__}")
    s = text.strip()
    if len(s) > _MAX_LITERAL:
        raise InvalidParameterError(
            f"{name} has too many digits ({len(s)} characters; the limit is {_MAX_LITERAL})"
        )
    if not s:
        raise InvalidParameterError(f"{name} must be a number, got an empty string")
    m = _RATIO.match(s)
    if m:
        p, q = int(m.group(1)), int(m.group(2))
        if q == 0:
            raise InvalidParameterError(f"{name} has a zero denominator: {text!r}")
        return fmpq(p, q)
    m = _DECIMAL.match(s)
    if not m or (m.group(2) is None and not m.group(3)):
        raise InvalidParameterError(
            f"{name} must be an exact number like 12, 0.3, 1e-3 or 3/7, got {text!r}"
        )
    sign, ip, fp, ex = m.groups()
    ip = ip or "0"
    fp = fp or ""
    e = int(ex) if ex else 0
    if abs(e) > _MAX_EXPONENT:
        raise InvalidParameterError(f"{name} has an exponent beyond +-{_MAX_EXPONENT}: {text!r}")
    num = int(ip + fp) if (ip + fp) else 0
    e -= len(fp)
    val = fmpq(num * 10**e) if e >= 0 else fmpq(num, 10 ** (-e))
    return -val if sign == "-" else val


def to_fmpq(value: Any, name: str = "value") -> fmpq:
    """Convert ``value`` to an exact :class:`flint.fmpq`.

    Accepts ``int``, ``fmpz``, ``fmpq``, ``fractions.Fraction``, numpy integers,
    exact-number strings (see :func:`parse_exact`) and finite floats (read via
    ``repr``, see the module docstring).  ``bool`` is rejected.
    """
    if isinstance(value, bool):
        raise ParameterTypeError(f"{name} must be a number, got a bool ({value!r})")
    if isinstance(value, fmpq):
        return value
    if isinstance(value, (int, fmpz)):
        return fmpq(value)
    if isinstance(value, Integral):
        return fmpq(int(value))
    if isinstance(value, Fraction):
        return fmpq(value.numerator, value.denominator)
    if isinstance(value, str):
        return parse_exact(value, name)
    if isinstance(value, float) or type(value).__name__ in ("float64", "float32", "float16"):
        f = float(value)
        if math.isnan(f) or math.isinf(f):
            raise InvalidParameterError(f"{name} must be finite, got {f!r}")
        return parse_exact(repr(f), name)
    if isinstance(value, arb):
        if value.is_exact():
            return arb_to_fmpq_bounds(value)[0]
        raise ParameterTypeError(f"{name} must be an exact number, got the non-exact ball {value}")
    raise ParameterTypeError(f"{name} must be a number, got {type(value).__name__} ({value!r})")


def check_int(value: Any, name: str, minimum: int | None = None, maximum: int | None = None) -> int:
    """Return ``value`` as ``int`` after checking type and range.

    Integral floats (``3.0``) are rejected: a degree or a count given as a float
    is almost always a bug upstream.
    """
    if isinstance(value, bool) or not isinstance(value, (Integral, fmpz)):
        raise ParameterTypeError(
            f"{name} must be an integer, got {type(value).__name__} ({value!r})"
        )
    v = int(value)
    if minimum is not None and v < minimum:
        raise InvalidParameterError(f"{name} must be >= {minimum}, got {v}")
    if maximum is not None and v > maximum:
        raise InvalidParameterError(f"{name} must be <= {maximum}, got {v}")
    return v


def check_rational(
    value: Any,
    name: str,
    low: Any = None,
    high: Any = None,
    low_open: bool = False,
    high_open: bool = False,
) -> fmpq:
    """Exact rational with optional bounds; message names the parameter and interval."""
    q = to_fmpq(value, name)
    lo = to_fmpq(low) if low is not None else None
    hi = to_fmpq(high) if high is not None else None
    bad = (lo is not None and (q < lo or (low_open and q == lo))) or (
        hi is not None and (q > hi or (high_open and q == hi))
    )
    if bad:
        lb = "(" if low_open else "["
        rb = ")" if high_open else "]"
        lo_s = "-inf" if lo is None else fmpq_str(lo)
        hi_s = "inf" if hi is None else fmpq_str(hi)
        rng = f"{lb}{lo_s}, {hi_s}{rb}"
        raise InvalidParameterError(f"{name} must be in {rng}, got {fmpq_str(q)}")
    return q


def check_open_unit(value: Any, name: str) -> fmpq:
    """A rational strictly between 0 and 1 (e.g. an error bound gamma)."""
    return check_rational(value, name, 0, 1, low_open=True, high_open=True)


def fmpq_str(q: Any) -> str:
    """Exact string ``"p/q"`` (``"p"`` when the denominator is 1)."""
    q = to_fmpq(q)
    if q.q == 1:
        return str(q.p)
    return f"{q.p}/{q.q}"


def parse_fmpq_str(s: Any, name: str = "value") -> fmpq:
    """Inverse of :func:`fmpq_str`; also accepts exact decimal strings."""
    if isinstance(s, bool) or not isinstance(s, (str, int)):
        raise ParameterTypeError(f"{name} must be an exact number string, got {s!r}")
    return to_fmpq(s if isinstance(s, str) else int(s), name)


def _dyadic(x: arb) -> fmpq:
    m, e = x.mid().man_exp()
    m, e = int(m), int(e)
    return fmpq(m * 2**e) if e >= 0 else fmpq(m, 2 ** (-e))


def arb_to_fmpq_bounds(x: arb) -> tuple[fmpq, fmpq]:
    """Exact rational lower and upper endpoints of the ball ``x``.

    Raises ``InvalidParameterError`` for non-finite balls.
    """
    if not x.is_finite():
        raise InvalidParameterError(f"ball {x} is not finite")
    return _dyadic(x.lower()), _dyadic(x.upper())


def fmpq_to_decimal(q: Any, digits: int = 20, rounding: str = "nearest") -> str:
    """Decimal string of ``q`` with ``digits`` significant digits.

    ``rounding="up"`` gives a value >= q, ``"down"`` a value <= q, ``"nearest"``
    the nearest (for display only).  Used to print enclosures outward.
    """
    q = to_fmpq(q)
    if q == 0:
        return "0"
    neg = q < 0
    a = -q if neg else q
    # exponent e with 10^e <= a < 10^(e+1)
    e = len(str(a.p)) - len(str(a.q))
    while fmpq(10) ** e > a if e >= 0 else fmpq(1, 10 ** (-e)) > a:
        e -= 1
    while (fmpq(10) ** (e + 1) if e + 1 >= 0 else fmpq(1, 10 ** (-(e + 1)))) <= a:
        e += 1
    shift = digits - 1 - e
    scaled = a * (fmpq(10) ** shift if shift >= 0 else fmpq(1, 10 ** (-shift)))
    fl = int(scaled.p // scaled.q)
    exact = fl * scaled.q == scaled.p
    mode = rounding
    if neg and rounding in ("up", "down"):
        mode = "down" if rounding == "up" else "up"
    if mode == "up":
        n = fl if exact else fl + 1
    elif mode == "down":
        n = fl
    elif mode == "nearest":
        n = fl + (1 if 2 * (scaled - fl) >= 1 else 0)
    else:
        raise InvalidParameterError(f"rounding must be 'up', 'down' or 'nearest', got {rounding!r}")
    s = str(n)
    exp10 = -shift + len(s) - 1
    mant = s[0] + ("." + s[1:].rstrip("0") if s[1:].rstrip("0") else "")
    out = f"{mant}e{exp10}" if exp10 != 0 else mant
    return ("-" if neg else "") + out


def log2_fmpq(q: Any) -> float:
    """log2 |q| as a float, for display only (``-inf`` for 0)."""
    q = to_fmpq(q)
    if q == 0:
        return float("-inf")
    a = abs(q)
    p, d = int(a.p), int(a.q)
    shift = p.bit_length() - d.bit_length()
    # keep 60 significant bits of the ratio before converting to float
    s = 60 - shift
    v = (p << s) // d if s >= 0 else p // (d << -s)
    return math.log2(v) - s
