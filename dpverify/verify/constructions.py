"""The construction registry of ``supnorm-finite`` statements (docs/certificates.md).

A named construction with its parameters fixes the target, the domain ``0..k``,
``max_error`` and the polynomial; the checker re-derives all four with its own code and
compares (the name is a claim like any other: it never holds unchecked).

* ``or/chebyshev``, ``and/chebyshev``, ``dlist/h`` (method chebyshev): ``t`` is the least
  integer with ``T_t((k+1)/(k-1)) >= 1/gamma`` (``gamma/k`` for ``dlist/h``) and the
  polynomial must be ``1 - T_t(u(x))/T_t(u(0))``, ``u(x) = (k+1-2x)/(k-1)`` (OR), or
  ``T_t(w(x))/T_t((k+1)/(k-1))``, ``w(x) = (2x-k+1)/(k-1)`` (AND; ``h_k(z) = 1 - g_k(k-z)`` is
  the same form), ``x`` for ``k = 1`` -- proved by :func:`chebyshev.is_affine_chebyshev`
  (Chebyshev's differential equation), never by expanding ``T_t``.
* ``or/minimax``, ``and/minimax``, ``rofk/minimax``, ``dlist/h`` (method minimax): the
  least-degree polynomial meeting ``gamma`` (pinned ``p(0) = 0``, ``p(k) = 1``, none,
  ``p(k) = 1``): the statement's ``least_degree`` (with that pin) proves no smaller degree
  meets ``max_error``, and :func:`discrete_minimax.check_best` proves ``p`` is the unique
  best approximation of its degree (alternation at the exact maximum).
* ``rofk/sherstov``, ``exact_l/sherstov``: rebuilt under the stated reading
  (:mod:`sherstov`) and compared exactly.
"""

from __future__ import annotations

from collections.abc import Callable

from flint import fmpq, fmpq_poly

from .chebyshev import is_affine_chebyshev, least_degree, t_value
from .discrete_minimax import check_best
from .numbers import show
from .poly import monomial_form
from .report import Checks, Malformed
from .sherstov import check_sherstov, parameters
from .supnorm import Construction, LeastDegree, Sup

__all__ = ["check_construction"]

#: the threshold of each family from (k, r)
_THRESHOLD: dict[str, Callable[[int, int], int]] = {
    "or": lambda k, r: 1, "and": lambda k, r: k, "rofk": lambda k, r: r}


def _int(ps: dict[str, fmpq | int], key: str) -> int:
    v = ps[key]
    if not isinstance(v, int):
        raise Malformed(f"statement.construction.params.{key}: expected an integer")
    return v


def _chebyshev_form(con: Construction, k: int, gamma: fmpq, P: fmpq_poly) -> tuple[bool, str]:
    """The Chebyshev constructions (module docstring)."""
    if k == 1:
        return P == fmpq_poly([0, 1]), "k = 1: the polynomial must be x"
    x0 = fmpq(k + 1, k - 1)
    g = gamma / k if con.name == "dlist/h" else gamma
    t, found, why = least_degree(x0, g, int(P.degree()))
    if t is None:
        return bool(found), f"{why}; the polynomial has degree {P.degree()}"
    beta = 1 / t_value(t, x0)
    if con.name == "or/chebyshev":  # 1 - T_t(x0 - 2x/(k-1)) / T_t(x0)
        ok, how = is_affine_chebyshev(P, t, fmpq(-2, k - 1), x0, fmpq(1), -beta)
    else:  # T_t((2x - k + 1)/(k - 1)) / T_t(x0)
        ok, how = is_affine_chebyshev(P, t, fmpq(2, k - 1), fmpq(-1), fmpq(0), beta)
    return ok, f"t = {t} ({why}); {how}"


def _minimax(s: Sup, pin: tuple[fmpq, fmpq] | None) -> tuple[bool | None, str]:
    if s.worst is None or s.extremes is None:
        return None, "needs the exact maximum of |f - p| (undecided above)"
    return check_best(s.extremes, s.worst, s.size(), s.degree, pin)


def check_construction(s: Sup, ck: Checks) -> None:
    if s.construction is None:
        return
    con = s.construction
    name, ps = con.name, con.params
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
    same = [ck.add("construction target", t["kind"] == want and have == level,
                   f"needs {want} {level}, has {t['kind']} {have}"),
            ck.add("construction domain",
                   dom["kind"] == "integers" and dom["lo"] == 0 and dom["hi"] == k,
                   f"needs the integers 0..{k}")]
    me = gamma / k if want == "indicator" else gamma
    has = None if s.max_error is None else show(s.max_error)
    ck.add("construction max_error", s.max_error == me, f"needs max_error = {show(me)}, has {has}")
    if not all(same):  # already false; k is then not bounded by the domain's size cap
        ck.add("construction polynomial", None, "not re-derived: the target or the domain "
               "differs from the construction's")
        return
    if name.endswith("/chebyshev") or (name == "dlist/h" and con.method == "chebyshev"):
        ck.run("construction polynomial", lambda: _chebyshev_form(
            con, k, gamma, monomial_form(s.poly, ck.tick)))
    elif name.endswith("/minimax") or name == "dlist/h":
        pin = {"or": (fmpq(0), fmpq(0)), "and": (fmpq(k), fmpq(1)), "rofk": None,
               "dlist": (fmpq(k), fmpq(1))}[family]
        ld: LeastDegree | None = s.least_degree
        ck.add("construction least_degree", ld is not None and ld["pin"] == pin,
               f"needs least_degree with pin {pin}")
        ck.run("construction polynomial", lambda: _minimax(s, pin))
    else:  # the Sherstov constructions
        assert con.reading is not None  # read_sup completes the reading of these names
        prm = parameters(name, k, gamma, con.reading, r=r, l_=ell, tick=ck.tick)
        if isinstance(prm, str):
            ck.add("construction polynomial", False,
                   f"the construction is undefined for these parameters: {prm}")
            return
        ck.run("construction polynomial", lambda: check_sherstov(
            name, monomial_form(s.poly, ck.tick), prm, ck, ck.afford))
