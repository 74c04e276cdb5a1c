"""Binary floating-point formats of coefficients and of evaluation (binary64, binary32):
membership, rounding to nearest (ties to even, subnormals included), and the parsing of
per-coefficient format lists (``"D,D,S..."``, as Sollya's ``[|D, D, SG...|]``).

Guarantee
---------
Exact: :meth:`Format.contains` and :meth:`Format.round` work on rationals (``fmpq``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from flint import fmpq

from ..errors import InvalidParameterError, ParameterTypeError

__all__ = ["Format", "FORMATS", "parse_formats"]


@dataclass(frozen=True)
class Format:
    """A binary floating-point format: ``precision`` bits, normal exponents ``emin..emax``
    (a number is ``m 2^e`` with ``|m| < 2^precision``, ``e >= emin - precision + 1``)."""

    name: str
    precision: int
    emin: int
    emax: int
    short: str

    @property
    def min_quantum_exp(self) -> int:
        """The exponent of the least positive (subnormal) number."""
        return self.emin - self.precision + 1

    def quantum_exp(self, v: fmpq) -> int:
        """``e`` with ``2^e`` the spacing of the format's numbers at ``|v|`` (``v != 0``)."""
        av = abs(v)
        e = int(av.p).bit_length() - int(av.q).bit_length()
        if fmpq(2) ** e > av if e >= 0 else fmpq(1, 2 ** (-e)) > av:
            e -= 1
        return max(e - self.precision + 1, self.min_quantum_exp)

    def contains(self, v: fmpq) -> bool:
        """Is ``v`` a finite number of this format?

        Examples
        --------
        >>> FORMATS["binary32"].contains(fmpq(1, 3)), FORMATS["binary32"].contains(fmpq(3, 4))
        (False, True)
        """
        if v == 0:
            return True
        e = self.quantum_exp(v)
        s = v * fmpq(2) ** (-e) if e <= 0 else v / fmpq(2) ** e
        if s.q != 1 or abs(int(s.p)) > 2 ** self.precision:
            return False
        return abs(v) < fmpq(2) ** (self.emax + 1)

    def round(self, v: fmpq) -> fmpq:
        """``v`` rounded to the nearest number of the format (ties to even; no overflow
        check)."""
        if v == 0:
            return fmpq(0)
        e = self.quantum_exp(v)
        s = v * fmpq(2) ** (-e) if e <= 0 else v / fmpq(2) ** e
        n, d = int(s.p), int(s.q)
        m, r = divmod(n, d)
        if 2 * r > d or (2 * r == d and m % 2 == 1):
            m += 1
        return fmpq(m) * fmpq(2) ** e if e >= 0 else fmpq(m, 2 ** (-e))


FORMATS = {
    "binary64": Format("binary64", 53, -1022, 1023, "D"),
    "binary32": Format("binary32", 24, -126, 127, "S"),
}
_SHORT = {"D": "binary64", "S": "binary32", "SG": "binary32", "DOUBLE": "binary64",
          "SINGLE": "binary32", "BINARY64": "binary64", "BINARY32": "binary32"}


def parse_formats(fmt: Any, formats: Any, count: int) -> list[Format]:
    """One format per free coefficient: ``formats`` (``"D,D,S"``, a list of names,
    ``"D,S..."`` repeating the last) or else ``fmt`` for all (``"binary64"``,
    ``"binary32"``).

    Examples
    --------
    >>> [f.short for f in parse_formats("binary64", "S,D...", 4)]
    ['S', 'D', 'D', 'D']
    """
    def one(name: Any, where: str) -> Format:
        if isinstance(name, Format):
            return name
        if not isinstance(name, str):
            raise ParameterTypeError(f"{where} must be a format name, got {type(name).__name__}")
        key = _SHORT.get(name.strip().upper())
        if key is None:
            raise InvalidParameterError(f"{where} must be binary64 (D) or binary32 (S), got "
                                        f"{name!r}")
        return FORMATS[key]
    main = one(fmt, "format")
    if formats is None:
        return [main] * count
    if isinstance(formats, str):
        text = formats.strip()
        repeat = text.endswith("...")
        items: list[Any] = [t for t in text.rstrip(".").split(",") if t.strip()]
    elif isinstance(formats, (list, tuple)):
        items, repeat = list(formats), False
    else:
        raise ParameterTypeError(f"formats must be a string like 'D,D,S' or a list, got "
                                 f"{type(formats).__name__}")
    out = [one(x, f"formats[{i}]") for i, x in enumerate(items)]
    if repeat and out:
        out += [out[-1]] * (count - len(out))
    if len(out) != count:
        raise InvalidParameterError(f"formats must give one format per free coefficient "
                                    f"({count}), got {len(out)}")
    return out
