"""The construction registry of ``supnorm-finite`` statements (docs/certificates.md).

Each name fixes the target, the domain ``0..k`` and ``max_error``; the Chebyshev ones also
fix the polynomial, which is rebuilt exactly: ``t`` is the least integer with
``T_t((k+1)/(k-1)) >= 1/gamma`` (exact fmpq recurrence), and the certified polynomial must
equal ``1 - T_t(u(x))/T_t(u(0))`` (OR) or ``T_t(w(x))/T_t(w(k))`` (AND) as an fmpq_poly.
"""

from __future__ import annotations

from collections.abc import Callable

from flint import fmpq, fmpq_poly, fmpz_poly

from .numbers import show
from .poly import evaluate, monomial_form
from .report import Checks, Malformed
from .supnorm import LeastDegree, Sup

__all__ = ["check_construction"]

#: the threshold of each family from (k, r)
_THRESHOLD: dict[str, Callable[[int, int], int]] = {
    "or": lambda k, r: 1, "and": lambda k, r: k, "rofk": lambda k, r: r}


def _int(ps: dict[str, fmpq | int], key: str) -> int:
    v = ps[key]
    if not isinstance(v, int):
        raise Malformed(f"statement.construction.params.{key}: expected an integer")
    return v


def _chebyshev(name: str, k: int, gamma: fmpq, P: fmpq_poly,
               tick: Callable[[], None]) -> tuple[bool, str]:
    if k == 1:
        return P == fmpq_poly([0, 1]), "k = 1: the polynomial must be x"
    x0 = fmpq(k + 1, k - 1)
    prev, cur, t = fmpq(1), x0, 1
    while cur * gamma < 1:
        tick()
        if t > P.degree():
            return False, f"T_t(x0) < 1/gamma up to t = {t} > degree {P.degree()}"
        prev, cur, t = cur, 2 * x0 * cur - prev, t + 1
    T = fmpq_poly(fmpz_poly.chebyshev_t(t))
    if name == "or/chebyshev":
        Q = 1 - T(fmpq_poly([x0, fmpq(-2, k - 1)])) / cur
    else:
        Q = T(fmpq_poly([-1, fmpq(2, k - 1)])) / cur
    return P == Q, f"t = {t}; the polynomial {'equals' if P == Q else 'differs from'} the " \
                   f"Chebyshev construction"


def check_construction(s: Sup, ck: Checks) -> None:
    if s.construction is None:
        return
    name, ps = s.construction
    family = name.split("/")[0]
    k, gamma = _int(ps, "k"), ps["gamma"]
    if not isinstance(gamma, fmpq):
        raise Malformed("statement.construction.params.gamma: expected an exact number")
    r = _int(ps, "r") if "r" in ps else 0
    ell = _int(ps, "l") if "l" in ps else 0
    good = (k >= 1 and 0 < gamma < 1 and (family != "rofk" or 1 <= r <= k)
            and (family != "exact_l" or 0 <= ell <= k))
    ck.add("construction parameters", good, ", ".join(f"{a} = {show(b)}" for a, b in ps.items()))
    if not good:
        return
    t, dom = s.target, s.domain
    if family in _THRESHOLD:
        want, level = "threshold", _THRESHOLD[family](k, r)
    else:
        want, level = "indicator", ell if family == "exact_l" else k
    have = t.get("r") if want == "threshold" else t.get("l")
    ck.add("construction target", t["kind"] == want and have == level,
           f"needs {want} {level}, has {t['kind']} {have}")
    ck.add("construction domain", dom["kind"] == "integers" and dom["lo"] == 0 and dom["hi"] == k,
           f"needs the integers 0..{k}")
    me = gamma / k if want == "indicator" else gamma
    has = None if s.max_error is None else show(s.max_error)
    ck.add("construction max_error", s.max_error == me, f"needs max_error = {show(me)}, has {has}")
    if name.endswith("/chebyshev"):
        ck.run("construction polynomial", lambda: _chebyshev(
            name, k, gamma, monomial_form(s.poly, ck.tick), ck.tick))
    elif name.endswith("/minimax"):
        pin = {"or": (fmpq(0), fmpq(0)), "and": (fmpq(k), fmpq(1)), "rofk": None}[family]
        ld: LeastDegree | None = s.least_degree
        ck.add("construction least_degree", ld is not None and ld["pin"] == pin,
               f"needs least_degree with pin {pin}")
    elif name == "dlist/h":
        ck.run("construction p(k) = 1", lambda: (evaluate(s.poly, [fmpq(k)]) == 1, f"k = {k}"))
