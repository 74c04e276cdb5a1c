"""The certifier's check of least-degree proofs (``"kind": "annihilating_weights"``).

The object (written by ``dpverify.constructions.minimax``; this module shares no code with
it) claims that *no* polynomial of degree ``<= D = degree_impossible`` -- with ``p(z) = v``
when pinned (``fix_zero``: ``z = 0, v = 0``) -- meets the ``max_error`` claim ``gamma`` on
the error domain.  ``certify`` checks it here before it puts ``least_degree`` into a
certificate's statement; ``dpverify.verify`` checks it again with its own code.  Proof
checked here, in exact fmpq:

* unpinned: ``sum_i w_i x_i^j = 0`` for ``j = 0..D``;
* pinned:   ``sum_i w_i (x_i - z) x_i^j = 0`` for ``j = 0..D-1``.

Every allowed ``p`` is ``v + (x - z) q`` (pinned, ``deg q <= D - 1``) or ``p`` itself
(unpinned, ``v = 0``), so ``sum_i w_i (f(x_i) - p(x_i)) = sum_i w_i (f(x_i) - v)`` and

    max_i |f(x_i) - p(x_i)| >= |sum_i w_i (f(x_i) - v)| / sum_i |w_i| = bound.

The checker requires ``bound > gamma``, every ``x_i`` in the error domain, ``f`` recomputed
from the target and domain, ``D == degree - 1`` and, when pinned, ``p(z) == v`` for the
certified (monomial) coefficients (so the certified degree is
the least among the polynomials the proof speaks about).  Vacuous cases: degree ``D < -1``
(no polynomial), or ``D = -1`` pinned to ``v != 0`` (the zero polynomial violates the pin);
then the object must list no points.

Guarantee
---------
Exact (fmpq); returns ``(False, reason)`` on any failure or malformed input, never raises.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from flint import fmpq

from ..exact import fmpq_abs_sum, fmpq_sum
from ..numbers import ExactLike, parse_fmpq_str

__all__ = ["check"]

_MAX_POINTS = 10_000_000


def _q(value: Any, name: str) -> fmpq:
    if isinstance(value, bool):
        raise ValueError(f"{name} must be an exact number, got {value!r}")
    return parse_fmpq_str(value, name)


def _int(value: Any, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"{name} must be an integer, got {value!r}")
    return value


def _target_at(target: dict[str, Any], domain: dict[str, Any]) -> Callable[[fmpq], fmpq]:
    """Return ``f(x)`` for points ``x`` of the domain (exact), or raise ValueError."""
    dk = domain.get("kind")
    if dk == "integers":
        lo, hi = _int(domain.get("lo"), "domain.lo"), _int(domain.get("hi"), "domain.hi")

        def index(x: fmpq) -> int:
            if x.q != 1 or not lo <= int(x.p) <= hi:
                raise ValueError(f"point {x} is not an integer in {lo}..{hi}")
            return int(x.p) - lo

    elif dk == "points":
        pts = domain.get("points")
        if not isinstance(pts, list) or len(pts) > _MAX_POINTS:
            raise ValueError("domain.points must be a list")
        where = {_q(p, "domain.points"): i for i, p in enumerate(pts)}

        def index(x: fmpq) -> int:
            if x not in where:
                raise ValueError(f"point {x} is not in the domain")
            return where[x]

    else:
        raise ValueError(f"optimality proofs need a finite domain, got {dk!r}")
    tk = target.get("kind")
    if tk == "threshold":
        r = _q(target.get("r"), "target.r")
        return lambda x: (fmpq(1) if x >= r else fmpq(0), index(x))[0]
    if tk == "indicator":
        l_ = _q(target.get("l"), "target.l")
        return lambda x: (fmpq(1) if x == l_ else fmpq(0), index(x))[0]
    if tk == "values":
        vals = target.get("values")
        if not isinstance(vals, list):
            raise ValueError("target.values must be a list")
        return lambda x: _q(vals[index(x)], "target.values")
    raise ValueError(f"target kind {tk!r} is not exactly computable here")


def _check(
    obj: Any, degree: Any, gamma: fmpq, coefficients: list[Any], target: dict[str, Any],
    domain: dict[str, Any],
) -> tuple[bool, str]:
    if not isinstance(obj, dict) or obj.get("kind") != "annihilating_weights":
        return False, "optimality object must have kind 'annihilating_weights'"
    D = _int(obj.get("degree_impossible"), "degree_impossible")
    deg = degree
    if isinstance(deg, bool) or not isinstance(deg, int):
        return False, f"certificate degree must be an integer, got {deg!r}"
    if D != deg - 1:
        return False, f"degree_impossible={D} but the certified degree is {deg} (need {deg - 1})"
    fix_zero = obj.get("fix_zero")
    if not isinstance(fix_zero, bool):
        return False, "fix_zero must be a bool"
    pin_obj = obj.get("pin")
    pin: tuple[fmpq, fmpq] | None
    if pin_obj is None:
        pin = (fmpq(0), fmpq(0)) if fix_zero else None
    else:
        pin = (_q(pin_obj["x"], "pin.x"), _q(pin_obj["value"], "pin.value"))
        if fix_zero and pin != (fmpq(0), fmpq(0)):
            return False, "fix_zero is true but pin is not p(0) = 0"
    if pin is not None:
        z, v = pin
        pz = fmpq(0)
        for c in reversed(coefficients):
            pz = pz * z + _q(c, "coefficients")
        if pz != v:
            return False, f"certified polynomial has p({z}) = {pz}, not the pinned {v}"
    pts_raw, w_raw = obj.get("points"), obj.get("weights")
    if not isinstance(pts_raw, list) or not isinstance(w_raw, list) or len(pts_raw) != len(w_raw):
        return False, "points and weights must be lists of equal length"
    nonempty = D >= 0 or (D == -1 and (pin is None or pin[1] == 0))
    if not nonempty:
        if pts_raw:
            return False, f"degree {D} admits no allowed polynomial; expected no points"
        return True, f"vacuous: no allowed polynomial of degree <= {D}"
    xs = [_q(p, "points") for p in pts_raw]
    ws = [_q(w, "weights") for w in w_raw]
    if len(set(xs)) != len(xs):
        return False, "points must be distinct"
    f = _target_at(target, domain)
    fx = [f(x) for x in xs]  # also checks membership in the domain
    # annihilation identities, exact
    if pin is None:
        factors = [fmpq(1)] * len(xs)
        jmax = D
    else:
        factors = [x - pin[0] for x in xs]
        jmax = D - 1
    terms = [w * c for w, c in zip(ws, factors, strict=True)]
    for j in range(jmax + 1):
        s = fmpq_sum(terms)
        if s != 0:
            return False, f"weights do not annihilate degree-{j} term (sum = {s})"
        terms = [t * x for t, x in zip(terms, xs, strict=True)]
    v = fmpq(0) if pin is None else pin[1]
    total = fmpq_abs_sum(ws)
    if total == 0:
        return False, "all weights are zero"
    bound = abs(fmpq_sum([w * (y - v) for w, y in zip(ws, fx, strict=True)])) / total
    stated = _q(obj.get("bound"), "bound")
    if bound != stated:
        return False, f"recomputed bound {bound} differs from the stated {stated}"
    if not bound > gamma:
        return False, f"bound {bound} does not exceed the claimed max_error {gamma}"
    what = "" if pin is None else f" with p({pin[0]}) = {pin[1]}"
    return True, (
        f"no polynomial of degree <= {D}{what} has max error <= {gamma}: "
        f"every one has error >= {bound} on {len(xs)} points"
    )


def check(
    obj: dict[str, Any], *, degree: int, gamma: ExactLike, coefficients: list[Any],
    target: dict[str, Any], domain: dict[str, Any],
) -> tuple[bool, str]:
    """Check an ``annihilating_weights`` object for a polynomial of exact ``degree`` with
    monomial ``coefficients`` (lowest first), the claim ``max_error <= gamma``, and the
    error ``target`` and ``domain`` (see the module docstring for what is verified).

    Returns ``(ok, message)``.

    Guarantee
    ---------
    Exact (fmpq); malformed input gives ``(False, reason)``, never an exception.
    """
    try:
        return _check(obj, degree, _q(gamma, "gamma"), coefficients, target, domain)
    except (KeyError, IndexError, TypeError, ValueError, ArithmeticError) as exc:
        return False, f"malformed optimality proof: {exc}"
