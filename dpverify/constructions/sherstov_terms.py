"""The terms of Sherstov's construction with their step records (used by :mod:`.sherstov`).

For each ``l`` the two halves of :mod:`.sherstov_integer` are independent and of equal
cost: the records of steps 3, 4, 6 (in ``s``: degrees and largest coefficients, or every
coefficient with ``intermediates="full"``) and the polynomial ``q3`` (in ``t``).  The first
runs in a forked worker process while this one builds the second, when the work is long
(:func:`dpverify.exact.forked.in_background`); otherwise one after the other here.

Guarantee
---------
Exact, as :mod:`.sherstov_integer`; the records are the same wherever they are computed.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from flint import fmpq

from ..exact.forked import in_background
from ..numbers import fmpq_str
from ..progress import ProgressCallback, report
from .sherstov_integer import (
    Fraction,
    TermSetup,
    half_products,
    poly_record,
    s_steps,
    small_steps,
    t_step,
    term_setup,
)

if TYPE_CHECKING:  # annotations only: sherstov imports this module
    from .sherstov import SherstovParameters

__all__ = ["setup", "build_terms"]


def setup(l_: int, prm: SherstovParameters) -> TermSetup:
    """:class:`~dpverify.constructions.sherstov_integer.TermSetup` of term ``l``."""
    return term_setup(l_, prm.k, prm.Delta, prm.cheb1[l_], prm.cheb3[l_], prm.eta[l_])


def _ticker(progress: ProgressCallback | None, stage: str, total: int) -> Callable[[], None]:
    done = 0
    report(progress, stage, 0, total)

    def tick() -> None:
        nonlocal done
        done += 1
        report(progress, stage, done, total)

    return tick


#: what a forked worker reads to build the records of steps 3, 4, 6 (set only meanwhile)
_JOB: dict[str, Any] = {}


def _s_records() -> list[dict[str, dict[str, Any]]]:
    """The records of ``p3, p4, q2`` (in ``s``) of every term: half of the work, in a
    worker process when it is long (:func:`~dpverify.exact.forked.in_background`)."""
    setups: list[TermSetup] = _JOB["setups"]
    progress = _JOB.get("progress")
    out = []
    for i, ts in enumerate(setups):
        stage = f"construction: steps 3-6 in s, l={ts.l} ({i + 1} of {len(setups)})"
        steps = s_steps(ts, _ticker(progress, stage, half_products(ts.N)))
        out.append({name: poly_record(fr, _JOB["full"]) for name, fr in steps.items()})
    return out


def build_terms(prm: SherstovParameters, setups: list[TermSetup], full: bool,
                progress: ProgressCallback | None,
                use_q3: Callable[[TermSetup, Fraction], None]) -> list[dict[str, Any]]:
    """The step records of the terms, calling ``use_q3(ts, q3)`` for each term in order.

    The two halves are independent: ``q3`` (in ``t``: the polynomial) here, the records
    of steps 3, 4, 6 (in ``s``) meanwhile in a worker process when the work is long."""
    work = sum(prm.degree[ts.l] * ts.N * ts.du.bit_length() for ts in setups)
    _JOB.update(setups=setups, full=full)
    try:
        s_side, started = in_background(_s_records, work)
        if not started:  # computed here, after the polynomial: report it
            _JOB["progress"] = progress
        q3_records = []
        for i, ts in enumerate(setups):
            stage = f"construction: term l={ts.l} ({i + 1} of {len(setups)})"
            q3 = t_step(ts, _ticker(progress, stage, half_products(ts.N)))
            q3_records.append(poly_record(q3, full))
            use_q3(ts, q3)
            del q3
        report(progress, "construction: steps 3-6 in s", 0, 1)
        s_records = s_side()
        report(progress, "construction: steps 3-6 in s", 1, 1)
    finally:
        _JOB.clear()
    records = []
    for ts, big, q3_rec in zip(setups, s_records, q3_records, strict=True):
        small = {name: poly_record(fr, full) for name, fr in small_steps(ts).items()}
        polys = {"p1": small["p1"], "p2": small["p2"], "p3": big["p3"], "p4": big["p4"],
                 "q1": small["q1"], "q2": big["q2"], "q3": q3_rec}  # printed order
        records.append(_ell_record(ts, prm, polys))
    return records


def _ell_record(ts: TermSetup, prm: SherstovParameters, polys: dict[str, Any]) -> dict:
    l_, k, Delta = ts.l, prm.k, prm.Delta
    c = k - l_
    p2num, p2den = ts.p2
    far = [fmpq(p2num(s), p2den) for s in range(0, k + 1) if abs(s - c) >= Delta]
    p2max = max(far, default=fmpq(0))
    p2min = min(far, default=fmpq(0))
    eta = prm.eta[l_]
    deg3 = polys["p3"]["degree"]
    # printed: deg(p3) = 22 (d+1) sqrt(k (l+Delta)) / Delta  (as an upper bound: exact test
    # (deg * Delta)^2 <= 484 (d+1)^2 k (l+Delta))
    printed_ok = (deg3 * Delta) ** 2 <= 484 * (prm.d + 1) ** 2 * k * (l_ + Delta)
    return {
        "l": l_,
        "D": prm.cheb1[l_],
        "N": prm.cheb3[l_],
        "eta": fmpq_str(eta),
        "center": c,
        "p2_far_max": fmpq_str(p2max),
        "p2_far_min": fmpq_str(p2min),
        "chebyshev_argument_in_range": bool(p2max <= 2 + eta and p2min >= eta),
        "q1_at_center": fmpq_str(ts.Q1(c)),
        "printed_deg_p3_bound_holds": bool(printed_ok),
        "polys": polys,
    }


