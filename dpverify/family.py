"""Families of polynomials: a set of free powers and fixed coefficients.

A family is ``P = { p_fix + sum_{k in free} c_k x^k : c_k real }`` with
``p_fix = sum_{k in fixed} v_k x^k`` (exact ``v_k``), e.g. the odd polynomials of degree 7
(``free = 1, 3, 5, 7``), the even ones (``0, 2, 4, ...``), or ``p(0) = 1`` with every other
power free (``fixed = {0: 1}``, ``free = 1..N``).  The dense family of degree ``N`` (every
power ``0..N`` free, nothing fixed) is the default of ``dpverify minimax``.

Best approximation from a family (:mod:`dpverify.constructions.remez_family`,
:mod:`dpverify.certify.annihilator`) uses two facts about ``V = span{x^k : k in free}``
(``m = |free|`` functions):

* **Descartes' rule of signs.**  A non-zero ``q`` in ``V`` has at most ``m - 1`` zeros in
  ``(0, inf)`` (counted with multiplicity): at most as many as the sign changes of its
  ``<= m`` non-zero coefficients.  So ``V`` is a Haar (Chebyshev) space on every interval
  inside ``(0, inf)``, and likewise inside ``(-inf, 0)`` (``q(-x)`` has the same powers).
  The dense family is a Haar space on the whole line.  Across 0 a gap in the powers breaks
  it: ``x^3 - x`` in ``span{x, x^3}`` has three zeros on ``[-1, 1]``.
* **Reduction of an arithmetic progression.**  When ``free = {j, j + s, ..., j + n s}``
  (:meth:`Family.progression`), ``q = x^j r(x^s)`` with ``r`` a dense polynomial of degree
  ``n`` in ``t = x^s``: the weighted problem ``min max |w (f - p_fix - q)|`` is the dense
  problem ``min max W |h - r|`` in ``t`` with ``h = (f - p_fix)/x^j`` and
  ``W = |w x^j|``, on the part of the interval where ``x -> x^s`` is one to one (the whole
  interval for odd ``s``; the longer side of 0 for even ``s``, which for an odd or even
  ``f`` matching the parity of the powers is the whole problem, as ``|w (f - p)|`` is then
  even).

Guarantee
---------
Pure data with validated, exact contents (powers are ints, fixed values ``fmpq``); nothing
here is a claim.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from flint import fmpq, fmpq_poly

from .errors import InvalidParameterError, ParameterTypeError
from .numbers import check_int, fmpq_str, to_fmpq

__all__ = ["Family", "MAX_FAMILY_DEGREE", "make_family", "parse_powers", "parse_fixed"]

#: Largest degree of a family that is not dense (its search solves a dense problem in
#: ``t = x^s`` and its certificate an exact ``m x (m + 1)`` linear system).
MAX_FAMILY_DEGREE = 2000


@dataclass(frozen=True)
class Family:
    """``p_fix + span{x^k : k in free}`` (module docstring).

    ``free``: sorted distinct powers; ``fixed``: ``(power, value)`` pairs sorted by power,
    disjoint from ``free``.

    Examples
    --------
    >>> fam = make_family(7, monomials="odd")
    >>> fam.free, fam.progression()
    ((1, 3, 5, 7), (1, 2, 3))
    >>> make_family(5, fix={0: 1}).free
    (1, 2, 3, 4, 5)
    """

    free: tuple[int, ...]
    fixed: tuple[tuple[int, fmpq], ...] = ()

    @property
    def degree(self) -> int:
        """The largest power of the family."""
        return max(list(self.free) + [k for k, _ in self.fixed] + [0])

    @property
    def dense(self) -> bool:
        """Every power ``0..degree`` free and nothing fixed."""
        return not self.fixed and self.free == tuple(range(self.degree + 1))

    @property
    def fixed_dict(self) -> dict[int, fmpq]:
        return dict(self.fixed)

    def progression(self) -> tuple[int, int, int] | None:
        """``(j, s, n)`` with ``free = {j, j + s, ..., j + n s}`` (``s = 1`` for one
        power), or None when the free powers are not an arithmetic progression."""
        fr = self.free
        if not fr:
            return None
        if len(fr) == 1:
            return fr[0], 1, 0
        s = fr[1] - fr[0]
        if any(b - a != s for a, b in zip(fr, fr[1:])):
            return None
        return fr[0], s, len(fr) - 1

    def fixed_poly(self) -> fmpq_poly:
        """``p_fix`` (exact)."""
        cs = [fmpq(0)] * (self.degree + 1)
        for k, v in self.fixed:
            cs[k] = v
        return fmpq_poly(cs)

    def lower(self) -> Family:
        """The family without its largest free power (the next lower degree)."""
        if not self.free:
            raise InvalidParameterError("a family without free powers has no lower family")
        return Family(self.free[:-1], self.fixed)

    def mismatch(self, coeffs: list[fmpq]) -> str | None:
        """Why monomial coefficients ``coeffs`` (lowest first) are not in the family, or
        None."""
        free = set(self.free)
        fixed = self.fixed_dict
        for k, c in enumerate(coeffs):
            if k in fixed:
                if c != fixed[k]:
                    return f"coefficient of x^{k} is {fmpq_str(c)}, fixed to {fmpq_str(fixed[k])}"
            elif k not in free and c != 0:
                return f"coefficient of x^{k} is {fmpq_str(c)}, not a power of the family"
        for k, v in fixed.items():
            if k >= len(coeffs) and v != 0:
                return f"coefficient of x^{k} is 0, fixed to {fmpq_str(v)}"
        return None

    def statement(self) -> dict[str, Any]:
        """The certificate's fields (``monomials``, ``fixed``); empty when dense."""
        if self.dense:
            return {}
        return {"monomials": list(self.free),
                "fixed": [{"power": k, "value": fmpq_str(v)} for k, v in self.fixed]}

    def describe(self) -> str:
        """``powers 1, 3, 5, 7; fixed x^0: 1`` (for messages and tables)."""
        if self.dense:
            return f"every power 0..{self.degree}"
        out = "powers " + ", ".join(str(k) for k in self.free) if self.free else "no free power"
        if self.fixed:
            out += "; fixed " + ", ".join(f"x^{k}: {fmpq_str(v)}" for k, v in self.fixed)
        return out


def parse_powers(monomials: Any, degree: int | None, name: str = "monomials") -> list[int]:
    """The powers of ``monomials``: a sequence of ints, a comma-separated string
    (``"1,3,5,7"``), or ``"odd"`` / ``"even"`` (every power of that parity ``<= degree``)."""
    if isinstance(monomials, str):
        text = monomials.strip().lower()
        if text in ("odd", "even"):
            if degree is None:
                raise InvalidParameterError(f"{name}={monomials!r} needs a degree")
            return list(range(1 if text == "odd" else 0, degree + 1, 2))
        parts = [p.strip() for p in text.split(",")]
        out = []
        for p in parts:
            if not p.isdigit():
                raise InvalidParameterError(
                    f"{name} must list powers as comma-separated integers >= 0, or be 'odd' "
                    f"or 'even'; got {monomials!r}")
            out.append(int(p))
        return out
    if isinstance(monomials, (list, tuple)):
        return [check_int(k, f"{name}[{i}]", 0) for i, k in enumerate(monomials)]
    raise ParameterTypeError(f"{name} must be a list of powers, a string like '1,3,5' or "
                             f"'odd'/'even', got {type(monomials).__name__}")


def parse_fixed(fix: Any, name: str = "fix") -> dict[int, fmpq]:
    """Fixed coefficients: a mapping ``{power: value}``, a sequence of pairs, or a string
    ``"0=1,1=1"`` (values read exactly)."""
    pairs: list[tuple[Any, Any]]
    if isinstance(fix, str):
        pairs = []
        for part in fix.split(","):
            if "=" not in part:
                raise InvalidParameterError(
                    f"{name} must be comma-separated POWER=VALUE pairs (e.g. 0=1), got {fix!r}")
            k, v = part.split("=", 1)
            if not k.strip().isdigit():
                raise InvalidParameterError(f"{name}: power {k.strip()!r} is not an integer >= 0")
            pairs.append((int(k.strip()), v.strip()))
    elif isinstance(fix, Mapping):
        pairs = list(fix.items())
    elif isinstance(fix, (list, tuple)):
        pairs = []
        for i, pr in enumerate(fix):
            if not isinstance(pr, (list, tuple)) or len(pr) != 2:
                raise InvalidParameterError(f"{name}[{i}] must be a pair (power, value)")
            pairs.append((pr[0], pr[1]))
    else:
        raise ParameterTypeError(f"{name} must be a mapping {{power: value}}, a list of pairs "
                                 f"or a string like '0=1', got {type(fix).__name__}")
    out: dict[int, fmpq] = {}
    for k, v in pairs:
        kk = check_int(k, f"{name} power", 0)
        if kk in out:
            raise InvalidParameterError(f"{name}: power {kk} is fixed twice")
        out[kk] = to_fmpq(v, f"{name}[{kk}]")
    return out


def make_family(degree: Any, monomials: Any = None, fix: Any = None) -> Family:
    """The family of degree ``degree`` with the free powers ``monomials`` (default: every
    power ``0..degree`` that is not fixed) and the fixed coefficients ``fix``.

    Parameters
    ----------
    degree : int
        The largest power; it must be the largest of the free and fixed powers.
    monomials : sequence of int, str, optional
        Free powers (``[1, 3, 5, 7]``, ``"1,3,5,7"``, ``"odd"``, ``"even"``).
    fix : mapping, sequence of pairs or str, optional
        Fixed coefficients (``{0: 1}``, ``[(0, 1)]``, ``"0=1"``).

    Returns
    -------
    Family

    Raises
    ------
    InvalidParameterError
        Repeated powers, a power both free and fixed, no free power, or a degree that is
        not the largest power (the message names the parameter).

    Examples
    --------
    >>> make_family(4, monomials="even", fix="0=1").describe()
    'powers 2, 4; fixed x^0: 1'
    """
    n = check_int(degree, "degree", 0, MAX_FAMILY_DEGREE if (monomials is not None
                                                               or fix is not None) else None)
    fixed = {} if fix is None else parse_fixed(fix)
    if monomials is None:
        free = [k for k in range(n + 1) if k not in fixed]
    else:
        free = parse_powers(monomials, n)
        if isinstance(monomials, str) and monomials.strip().lower() in ("odd", "even"):
            free = [k for k in free if k not in fixed]
    if len(set(free)) != len(free):
        raise InvalidParameterError(f"monomials: a power is listed twice ({free})")
    both = sorted(set(free) & set(fixed))
    if both:
        raise InvalidParameterError(f"power {both[0]} is both free (monomials) and fixed (fix)")
    if not free:
        raise InvalidParameterError("the family has no free power: nothing to approximate")
    top = max(free + list(fixed))
    if top != n:
        raise InvalidParameterError(
            f"degree must be the largest power of the family, {top}, got {n}")
    return Family(tuple(sorted(free)), tuple(sorted(fixed.items())))
