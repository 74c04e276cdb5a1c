"""Polynomial evaluation schemes as straight-line programs (the operation orders code
generators and the float-error certifier share).

Each scheme is the exact sequence of IEEE operations of the code that evaluates
``p(x) = sum c_i x^i`` (coefficients numbers of the format, lowest degree first); ``fl``
rounds to the format, ``+`` and ``*`` are commutative, so only the tree matters:

* ``"horner"``: ``q = c_n``; for ``i = n-1 .. 0``: ``q = fl(fl(x * q) + c_i)``;
* ``"horner-fma"``: ``q = fl(x * q + c_i)`` (one rounding);
* ``"estrin"`` / ``"estrin-fma"``: ``b = [c_0, ..., c_n]``, ``p = x``; while
  ``len(b) > 1``: ``b = [fl(b[2j] + fl(b[2j+1] * p))`` (``estrin-fma``:
  ``fl(b[2j+1] * p + b[2j])``) for ``j < len(b) // 2``] plus the last element of an odd
  ``b``; then, while more than one remains, ``p = fl(p * p)``; the result is ``b[0]``.
* ``parity="even"`` (only powers 0, 2, 4, ...): the scheme on ``d_j = c_(2j)`` in
  ``y = fl(x * x)``; ``parity="odd"`` (powers 1, 3, 5, ...): ``fl(x * S(d; y))`` with
  ``d_j = c_(2j+1)``.  A zero coefficient in a dense list is the literal 0 (adding it is
  exact).

Guarantee
---------
:func:`scheme_program` returns exactly these operations; the checker expands the same
statement on its own (:mod:`dpverify.verify.scheme_error`).
"""

from __future__ import annotations

from collections.abc import Sequence

from flint import fmpq

from ..errors import InvalidParameterError
from ..expr.program import Program, ProgramBuilder
from ..numbers import to_fmpq

__all__ = ["SCHEME_NAMES", "PARITIES", "scheme_program", "check_parity", "fused"]

#: the schemes of SCHEMES.md (``clenshaw`` evaluates the Chebyshev basis: evalbound only)
SCHEME_NAMES = ("horner", "horner-fma", "estrin", "estrin-fma")
PARITIES = (None, "even", "odd")


def fused(scheme: str) -> bool:
    """Whether the scheme uses fused multiply-adds."""
    return scheme.endswith("-fma")


def check_parity(coeffs: Sequence[fmpq], parity: str | None) -> list[fmpq]:
    """The coefficients ``d_j`` the scheme evaluates: all of them, or those of one parity
    (the others must be 0)."""
    if parity not in PARITIES:
        raise InvalidParameterError(f"parity must be None, 'even' or 'odd', got {parity!r}")
    cs = [fmpq(c) for c in coeffs]
    if parity is None:
        return cs
    keep = 0 if parity == "even" else 1
    bad = [i for i, c in enumerate(cs) if i % 2 != keep and c != 0]
    if bad:
        raise InvalidParameterError(f"parity={parity!r} but the coefficient of x^{bad[0]} is "
                                    "not 0")
    out = cs[keep::2]
    if not out:
        raise InvalidParameterError(f"parity={parity!r}: no coefficient of that parity")
    return out


def _evaluate(b: ProgramBuilder, d: list[int], x: int, scheme: str) -> int:
    """The scheme's operations on coefficient nodes ``d`` in the variable node ``x``."""
    fma = fused(scheme)
    if scheme.startswith("horner"):
        q = d[-1]
        for c in reversed(d[:-1]):
            q = b.apply("fma", (x, q, c)) if fma else b.apply("add", (b.apply("mul", (x, q)),
                                                                      c))
        return q
    nodes, p = list(d), x
    while len(nodes) > 1:
        nb = []
        for j in range(len(nodes) // 2):
            lo, hi = nodes[2 * j], nodes[2 * j + 1]
            nb.append(b.apply("fma", (hi, p, lo)) if fma else
                      b.apply("add", (lo, b.apply("mul", (hi, p)))))
        if len(nodes) % 2:
            nb.append(nodes[-1])
        nodes = nb
        if len(nodes) > 1:
            p = b.apply("mul", (p, p))
    return nodes[0]


def scheme_program(coeffs: Sequence[fmpq], scheme: str, parity: str | None = None) -> Program:
    """The program (variable ``x``) evaluating ``sum coeffs[i] x^i`` by ``scheme``
    (module docstring); the coefficients must be numbers of the format already.

    Examples
    --------
    >>> scheme_program([1, 2, 3, 4], "estrin").fpcore()
    '(FPCore (x) :name "estrin" (+ (+ 1 (* 2 x)) (* (+ 3 (* 4 x)) (* x x))))'
    >>> scheme_program([0, 1, 0, "-1/6"], "horner", parity="odd").fpcore()
    '(FPCore (x) :name "horner (odd)" (* x (+ (* (* x x) -1/6) 1)))'
    """
    if scheme not in SCHEME_NAMES:
        raise InvalidParameterError(f"scheme must be one of {', '.join(SCHEME_NAMES)}, got "
                                    f"{scheme!r}")
    if not coeffs:
        raise InvalidParameterError("the polynomial needs at least one coefficient")
    ds = check_parity([to_fmpq(c, f"coeffs[{i}]") for i, c in enumerate(coeffs)], parity)
    b = ProgramBuilder(["x"], "scheme")
    x = b.var("x")
    d = [b.const(c) for c in ds]
    arg = x if parity is None else b.apply("mul", (x, x))
    out = _evaluate(b, d, arg, scheme)
    if parity == "odd":
        out = b.apply("mul", (x, out))
    return b.finish(out, scheme if parity is None else f"{scheme} ({parity})")
