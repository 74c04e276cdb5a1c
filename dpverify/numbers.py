"""Exact reading and writing of numbers, and parameter validation.

Conventions
-----------
* Numbers given as text are read **exactly**: ``"1e-3"`` is 1/1000, ``"0.3"`` is
  3/10, ``"3/7"`` is 3/7.  No text number ever passes through a binary float.
* Hexadecimal floating-point text (``"0x1.999999999999ap-4"``, C99 / ``float.hex``
  form) is read exactly: it is the binary value it spells.
* A Python ``float`` (or a numpy float) given to the API means its **exact binary
  value**, the number a float64 implementation computes with: ``0.1`` is
  ``3602879701896397/36028797018963968``, not 1/10.  To mean 1/10, pass the string
  ``"0.1"``, ``Fraction(1, 10)`` or ``fmpq(1, 10)``.  NaN and infinities are rejected.
  One rule for the whole package (docs/conventions.md).
* There is no limit on the number of digits below :data:`MAX_LITERAL` characters
  (Python's 4300-digit ``int``/``str`` limit does not apply: conversions go through
  FLINT).
* Exact rationals are written as ``"p/q"`` (or ``"p"`` for integers).
* Decimal strings of ball enclosures are rounded *outward* (lower bounds down,
  upper bounds up), so a printed enclosure is still an enclosure.
"""

from __future__ import annotations

import math
import re
from fractions import Fraction
from numbers import Integral
from typing import TYPE_CHECKING, Any, TypeAlias

from flint import arb, ctx, fmpq, fmpz

from .errors import InvalidParameterError, ParameterTypeError, PrecisionExhausted

if TYPE_CHECKING:  # annotations only: numpy is not imported by this module
    from decimal import Decimal

    import numpy as np

#: What the public API accepts where it wants an exact number (read by :func:`to_fmpq`:
#: a float means its binary64 value, a string is read exactly, ``bool`` is refused).
ExactLike: TypeAlias = (
    "int | float | str | Fraction | Decimal | fmpz | fmpq | np.integer[Any] | np.floating[Any]")
#: What the public API accepts where it wants an integer (read by :func:`check_int`).
IntLike: TypeAlias = "int | fmpz | np.integer[Any]"

__all__ = [
    "ExactLike",
    "IntLike",
    "to_fmpq",
    "parse_exact",
    "check_int",
    "check_rational",
    "check_interval",
    "check_open_unit",
    "fmpq_str",
    "parse_fmpq_str",
    "arb_upper",
    "arb_to_fmpq_bounds",
    "fmpq_to_decimal",
    "log2_fmpq",
    "log2_decimal",
    "round_to_float64",
    "check_keywords",
    "MAX_DEGREE",
    "MAX_LITERAL",
    "BallTooLarge",
]

#: Largest polynomial degree / table size accepted by public functions.  Above
#: it exact arithmetic would exhaust memory or time on the 24 GiB reference box.
MAX_DEGREE = 200_000

# re.ASCII: \d is [0-9] only (not the full-width or Arabic-Indic digits, which FLINT's
# integer reader refuses with an encoding error); \Z: no trailing newline
_DECIMAL = re.compile(r"^([+-]?)(\d+)?(?:\.(\d*))?(?:[eE]([+-]?\d+))?\Z", re.ASCII)
_RATIO = re.compile(r"^([+-]?\d+)\s*/\s*([+-]?\d+)\Z", re.ASCII)
_HEX = re.compile(r"^([+-]?)0[xX]([0-9a-fA-F]*)(?:\.([0-9a-fA-F]*))?(?:[pP]([+-]?\d+))?\Z",
                  re.ASCII)
_MAX_EXPONENT = 100_000
#: Longest number text accepted (characters).  Digits are converted by FLINT, which has
#: no digit limit; the cap only bounds memory and time (a 10^6-digit product is instant).
MAX_LITERAL = 1_000_000


def parse_exact(text: str, name: str = "value") -> fmpq:
    """Read ``text`` as an exact rational.

    Accepts integers (``"12"``), decimals with optional exponent (``"1e-3"``,
    ``"-0.25"``, ``"2.5E+4"``), ratios of integers (``"3/7"``) and hexadecimal
    floating-point text (``"0x1.999999999999ap-4"``, the exact binary value).

    Raises
    ------
    InvalidParameterError
        If the text is not such a number, has a zero denominator, an exponent beyond
        +-100000, or more than :data:`MAX_LITERAL` characters.

    >>> parse_exact("1e-3"), parse_exact("0.3"), parse_exact("0x1p-3"), parse_exact("3/7")
    (1/1000, 3/10, 1/8, 3/7)
    """
    if not isinstance(text, str):
        raise ParameterTypeError(f"{name} must be a string, got {type(text).__name__}")
    s = text.strip()
    if len(s) > MAX_LITERAL:
        raise InvalidParameterError(
            f"{name} is too long ({len(s)} characters; the limit is {MAX_LITERAL})"
        )
    if not s:
        raise InvalidParameterError(f"{name} must be a number, got an empty string")
    m = _RATIO.match(s)
    if m:
        p, q = fmpz(m.group(1)), fmpz(m.group(2))
        if q == 0:
            raise InvalidParameterError(f"{name} has a zero denominator: {text!r}")
        return fmpq(p, q)
    m = _HEX.match(s)
    if m and (m.group(2) or m.group(3)):
        return _parse_hex(m, name, text)
    m = _DECIMAL.match(s)
    if not m or (m.group(2) is None and not m.group(3)):
        raise InvalidParameterError(
            f"{name} must be an exact number like 12, 0.3, 1e-3, 3/7 or 0x1.8p-3, got {text!r}"
        )
    sign, ip, fp, ex = m.groups()
    ip = ip or "0"
    fp = fp or ""
    e = _exponent(ex, name, text)
    num = fmpz(ip + fp) if (ip + fp) else fmpz(0)
    e -= len(fp)
    val = fmpq(num * fmpz(10) ** e) if e >= 0 else fmpq(num, fmpz(10) ** (-e))
    return -val if sign == "-" else val


def _exponent(ex: str | None, name: str, text: str) -> int:
    # the exponent has at most a few digits once it is in range, so int() is safe here
    if not ex:
        return 0
    if len(ex.lstrip("+-").lstrip("0")) > 7 or abs(int(ex)) > _MAX_EXPONENT:
        raise InvalidParameterError(f"{name} has an exponent beyond +-{_MAX_EXPONENT}: {text!r}")
    return int(ex)


def _parse_hex(m: re.Match[str], name: str, text: str) -> fmpq:
    sign, ip, fp, ex = m.groups()
    ip, fp = ip or "", fp or ""
    mant = fmpz(int(ip + fp, 16)) if len(ip + fp) <= 4000 else fmpz("0x" + ip + fp)
    e = _exponent(ex, name, text) - 4 * len(fp)
    val = fmpq(mant * fmpz(2) ** e) if e >= 0 else fmpq(mant, fmpz(2) ** (-e))
    return -val if sign == "-" else val


def round_to_float64(q: Any, name: str = "value") -> fmpq:
    """The binary64 number nearest to ``q`` (ties to even), as an exact rational.

    Used by ``--float64``: a decimal a user typed becomes the double a float
    implementation stores.  Raises ``InvalidParameterError`` if ``q`` overflows binary64.
    """
    q = to_fmpq(q, name)
    try:
        f = float(Fraction(int(q.p), int(q.q)))  # correctly rounded (int true division)
    except OverflowError:
        raise InvalidParameterError(f"{name} = {fmpq_to_decimal(q, 6)} overflows binary64") \
            from None
    return _float_exact(f)


def _float_exact(f: float) -> fmpq:
    p, q = f.as_integer_ratio()
    return fmpq(p, q)


def to_fmpq(value: Any, name: str = "value") -> fmpq:
    """Convert ``value`` to an exact :class:`flint.fmpq`.

    Accepts ``int``, ``fmpz``, ``fmpq``, ``fractions.Fraction``, numpy integers,
    exact-number strings (see :func:`parse_exact`), finite floats (their exact binary
    value, see the module docstring) and exact ``arb`` balls.  ``bool`` is rejected.

    A float means its binary64 value (0.1 is 3602879701896397 / 2^55):

    >>> to_fmpq(0.1) == fmpq(3602879701896397, 2**55)
    True
    >>> to_fmpq("0.1")
    1/10
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
        f = float(value)  # exact: every float32/float16 value is a binary64 value
        if math.isnan(f) or math.isinf(f):
            raise InvalidParameterError(f"{name} must be finite, got {f!r}")
        return _float_exact(f)
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


def check_interval(interval: Any, name: str = "interval") -> tuple[fmpq, fmpq]:
    """``(a, b)`` as exact rationals from a pair (list or tuple) with ``a < b``; the
    messages name the parameter (``interval[0]``, ...)."""
    if not isinstance(interval, (list, tuple)) or len(interval) != 2:
        raise InvalidParameterError(f"{name} must be a pair (a, b), got {interval!r}")
    a, b = to_fmpq(interval[0], f"{name}[0]"), to_fmpq(interval[1], f"{name}[1]")
    if not a < b:
        raise InvalidParameterError(
            f"{name} must have a < b, got [{fmpq_str(a)}, {fmpq_str(b)}]")
    return a, b


def check_keywords(function: str, given: Any, valid: Any) -> None:
    """Refuse keyword arguments ``given`` (names) that are not in ``valid``:
    :class:`~dpverify.errors.ParameterTypeError` naming each unknown one, the closest valid
    name and every valid one (``rtoll=`` is a typo of ``rtol``, not a bare TypeError)."""
    valid = list(valid)
    unknown = [k for k in given if k not in valid]
    if not unknown:
        return
    import difflib  # deferred: only an error message needs it

    parts = []
    for k in unknown:
        close = difflib.get_close_matches(str(k), valid, n=1, cutoff=0.5)
        parts.append(f"{k!r}" + (f" (did you mean {close[0]!r}?)" if close else ""))
    what = "an unknown keyword argument" if len(unknown) == 1 else "unknown keyword arguments"
    raise ParameterTypeError(
        f"{function}() got {what} {', '.join(parts)}; valid: {', '.join(sorted(valid))}")


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


def _man_exp(x: arb) -> tuple[int, int]:
    """``(m, e)`` with ``x = m 2^e`` for an exact arb (``(0, 0)`` for 0): one call to
    python-flint per number (this conversion is on the hot path of every certifier)."""
    if x.is_zero():
        return 0, 0
    m, e = x.man_exp()
    return int(m), int(e)


def _from_man_exp(m: int, e: int) -> fmpq:
    return fmpq(m << e) if e >= 0 else fmpq(m, 1 << -e)


def arb_to_fmpq_bounds(x: arb) -> tuple[fmpq, fmpq]:
    """Exact rational endpoints ``mid - rad`` and ``mid + rad`` of the ball ``x``.

    Computed exactly from the midpoint and radius (no rounding), so the result does not
    depend on the working precision in force: reading a 512-bit ball at the default
    53 bits would otherwise widen it to 53-bit accuracy.
    Raises ``InvalidParameterError`` for non-finite balls, :class:`BallTooLarge` (a
    subclass) beyond ``2^EXPONENT_CAP``.
    """
    if not x.is_finite():
        raise InvalidParameterError(f"ball {x} is not finite")
    mm, me = _man_exp(x.mid())
    rm, re_ = _man_exp(x.rad())
    mid_bits = me + mm.bit_length() if mm else -(1 << 62)
    rad_bits = re_ + rm.bit_length() if rm else -(1 << 62)
    if mid_bits > EXPONENT_CAP or rad_bits > EXPONENT_CAP:
        raise BallTooLarge(f"ball {x} is beyond 2^{EXPONENT_CAP}")
    if mid_bits < -EXPONENT_CAP and mm:
        # |mid| < 2^-CAP: replace mid by 0 and widen the radius by 2^-CAP (outward), so
        # arb's huge exponents (erf(10^6 x) has terms like 1e-244290646065) never become
        # rationals with 10^11-bit denominators
        m, rad_extra = fmpq(0), _tiny()
    else:
        m, rad_extra = _from_man_exp(mm, me), fmpq(0)
    r = _tiny() if rad_bits < -EXPONENT_CAP and rm else _from_man_exp(rm, re_)
    return m - r - rad_extra, m + r + rad_extra


def _tiny() -> fmpq:
    """``2^-EXPONENT_CAP``, the outward rounding of a magnitude below the range."""
    return fmpq(1, 1 << EXPONENT_CAP)


class BallTooLarge(InvalidParameterError):
    """A ball too large to convert exactly (a midpoint or radius beyond
    ``2^EXPONENT_CAP``): a computed value, not a caller's parameter, is out of range
    (``2^(10^30 x)`` at ``x = 1``)."""


#: Exact conversions of balls keep magnitudes within ``2^-CAP .. 2^CAP``; smaller values
#: are rounded outward to ``2^-CAP`` (see :func:`arb_to_fmpq_bounds`).
EXPONENT_CAP = 1 << 17


def arb_upper(x: arb) -> fmpq | None:
    """The exact upper end of the ball ``x``, or ``None`` when ``x`` is not finite or
    beyond the exponent range of :func:`arb_to_fmpq_bounds` (no usable bound)."""
    if not x.is_finite():
        return None
    try:
        return arb_to_fmpq_bounds(x)[1]
    except InvalidParameterError:
        return None


def fmpq_to_decimal(q: Any, digits: int = 20, rounding: str = "nearest") -> str:
    """Decimal string of ``q`` with ``digits`` significant digits.

    ``rounding="up"`` gives a value >= q, ``"down"`` a value <= q, ``"nearest"``
    the nearest (for display only).  Used to print enclosures outward.

    >>> fmpq_to_decimal(fmpq(1, 3), 5, "up"), fmpq_to_decimal(fmpq(2, 3), 5, "down")
    ('3.3334e-1', '6.6666e-1')
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


def log2_decimal(q: Any, decimals: int = 6) -> str:
    """``log2(q)`` for ``q > 0`` rounded to ``decimals`` places, as a decimal string that
    is within ``10^-decimals / 2`` of the true value (proven in arb at growing precision).

    Used for the ``l1_log2`` rendering of certificates, which the verifier checks.
    """
    q = to_fmpq(q, "q")
    if q <= 0:
        raise InvalidParameterError(f"log2 needs q > 0, got {fmpq_str(q)}")
    scale = fmpz(10) ** decimals
    half = arb(fmpq(1, 2 * int(scale)))
    for prec in (64, 256, 1024, 4096):
        with ctx.workprec(prec):
            v = arb(q).log() / arb(2).log()
            lo, hi = arb_to_fmpq_bounds(v * int(scale))
            mid = (lo + hi) / 2
            fl = fmpz(mid.p) // fmpz(mid.q)
            n = fl + (1 if 2 * (mid - fl) >= 1 else 0)
            cand = fmpq(n, scale)
            if abs(v - arb(cand)) <= half:
                sign = "-" if n < 0 else ""
                a = abs(n)
                ip, fp = divmod(int(a), int(scale))
                return f"{sign}{ip}.{fp:0{decimals}d}" if decimals else f"{sign}{ip}"
    raise PrecisionExhausted(f"cannot round log2({fmpq_to_decimal(q, 10)}) to {decimals} places")
