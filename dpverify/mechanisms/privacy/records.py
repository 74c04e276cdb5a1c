"""Typed, immutable privacy records and the shared rounding of reported privacy losses.

Every accounting function of :mod:`dpverify.mechanisms.privacy` returns a frozen dataclass
that holds *exact* numbers (``fmpq``, ``int``); text appears only at the edge, in
:meth:`PrivacyRecord.to_json` (exact ``"p/q"`` strings plus decimals rounded **up**).
A record is also a read-only :class:`~collections.abc.Mapping` over that JSON rendering, so
``record["epsilon"]`` reads the same string the CLI prints and ``dict(record)`` or
``out.update(record)`` copies JSON-ready values (nested records rendered too).

Records: :class:`LaplaceRecord`, :class:`AdvancedCompositionRecord`,
:class:`GaussianRecord`, :class:`DeltaScale`, :class:`LaplaceCalibration`,
:class:`BasicComposition` and :class:`PrivacyReport` (the TUV / decision-list releases).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from types import MappingProxyType
from typing import Any

from flint import arb, fmpq, fmpz

from ...numbers import (
    arb_to_fmpq_bounds,
    fmpq_str,
    fmpq_to_decimal,
    to_fmpq,
)

__all__ = [
    "PrivacyRecord",
    "LaplaceRecord",
    "AdvancedCompositionRecord",
    "GaussianRecord",
    "DeltaScale",
    "LaplaceCalibration",
    "BasicComposition",
    "PrivacyReport",
    "json_int",
    "upper_of",
    "decimal_up",
    "dyadic_up",
    "compose_basic",
    "frozen_json",
]


def json_int(v: int) -> int | str:
    """An exact integer for a JSON record: an ``int`` when ``|v| < 2^53`` (exact in every
    JSON reader), else its decimal string (Python refuses to print ints of more than 4300
    digits, and JSON readers would round them)."""
    return v if -(2**53) < v < 2**53 else str(fmpz(v))


def upper_of(x: arb) -> fmpq:
    """The exact upper endpoint of a ball."""
    return arb_to_fmpq_bounds(x)[1]


def decimal_up(q: fmpq) -> str:
    """``q`` rounded up to 10 significant digits."""
    return fmpq_to_decimal(q, 10, rounding="up")


def dyadic_up(q: fmpq, bits: int = 64) -> fmpq:
    """Smallest multiple of 2^-bits that is >= q (keeps denominators small)."""
    m = q * 2**bits
    return fmpq(-((-m.p) // m.q), 2**bits)


def _render(v: Any) -> Any:
    """JSON rendering of a value inside a record (records render themselves)."""
    if isinstance(v, PrivacyRecord):
        return v.to_json()
    if isinstance(v, fmpq):
        return fmpq_str(v)
    if isinstance(v, Mapping):
        return {k: _render(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [_render(x) for x in v]
    return v


def frozen_json(obj: Mapping[str, Any]) -> Mapping[str, Any]:
    """A read-only deep copy of a JSON-like mapping (lists become tuples), for the detail
    blocks that records carry verbatim."""
    def freeze(v: Any) -> Any:
        if isinstance(v, Mapping) and not isinstance(v, PrivacyRecord):
            return MappingProxyType({k: freeze(x) for k, x in v.items()})
        if isinstance(v, list):
            return tuple(freeze(x) for x in v)
        return v
    return freeze(obj)


class PrivacyRecord(Mapping):
    """Base of the typed records: exact fields, JSON only in :meth:`to_json`, and a
    read-only mapping view over that JSON (so records read like the JSON they print)."""

    def to_json(self) -> dict[str, Any]:  # pragma: no cover - every subclass defines it
        raise NotImplementedError

    @cached_property
    def _view(self) -> dict[str, Any]:
        return self.to_json()

    def __getitem__(self, key: str) -> Any:
        return self._view[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._view)

    def __len__(self) -> int:
        return len(self._view)


@dataclass(frozen=True, eq=True, repr=True)
class LaplaceRecord(PrivacyRecord):
    """(Discrete) Laplace noise of ``scale`` on a vector of L1 sensitivity ``sensitivity_l1``:
    exactly ``epsilon = S_1/b``-DP, ``delta = 0`` (Dwork et al. 2006; discrete: Canonne,
    Kamath, Steinke 2020)."""

    sensitivity_l1: fmpq
    scale: fmpq

    noise = "Laplace (continuous, or discrete on the sensitivity's lattice)"
    theorem = ("Laplace mechanism: epsilon = S_1/b (Dwork et al. 2006; discrete: "
               "Canonne-Kamath-Steinke 2020)")

    @property
    def epsilon(self) -> fmpq:
        return self.sensitivity_l1 / self.scale

    @property
    def delta(self) -> fmpq:
        return fmpq(0)

    def to_json(self) -> dict[str, Any]:
        return {
            "noise": self.noise,
            "sensitivity_l1": fmpq_str(self.sensitivity_l1),
            "scale": fmpq_str(self.scale),
            "epsilon": fmpq_str(self.epsilon),
            "epsilon_decimal": decimal_up(self.epsilon),
            "delta": "0",
            "theorem": self.theorem,
        }


@dataclass(frozen=True, eq=True, repr=True)
class AdvancedCompositionRecord(PrivacyRecord):
    """``n_coordinates`` Laplace coordinates of L-infinity sensitivity ``sensitivity_linf``
    and ``scale``, composed by advanced composition (Dwork-Rothblum-Vadhan 2010;
    Dwork-Roth Thm 3.20); ``epsilon`` is a rigorous upper bound (exact rational)."""

    sensitivity_linf: fmpq
    scale: fmpq
    n_coordinates: int
    delta: fmpq
    epsilon: fmpq

    noise = "Laplace, per-coordinate (L-infinity sensitivity)"
    theorem = "advanced composition (Dwork-Rothblum-Vadhan 2010; Dwork-Roth Thm 3.20)"

    @property
    def epsilon_per_coordinate(self) -> fmpq:
        return self.sensitivity_linf / self.scale

    def to_json(self) -> dict[str, Any]:
        return {
            "noise": self.noise,
            "sensitivity_linf": fmpq_str(self.sensitivity_linf),
            "scale": fmpq_str(self.scale),
            "n_coordinates": json_int(self.n_coordinates),
            "epsilon_per_coordinate": fmpq_str(self.epsilon_per_coordinate),
            "epsilon": fmpq_str(self.epsilon),
            "epsilon_decimal": decimal_up(self.epsilon),
            "delta": fmpq_str(self.delta),
            "theorem": self.theorem,
        }


@dataclass(frozen=True, eq=True, repr=True)
class GaussianRecord(PrivacyRecord):
    """(Discrete) Gaussian noise of variance ``sigma2``: ``rho``-zCDP exactly and, with
    ``delta``, ``(epsilon, delta)``-DP with ``epsilon`` a rigorous upper bound."""

    sensitivity_l2_squared: fmpq
    sigma2: fmpq
    delta: fmpq | None = None
    epsilon: fmpq | None = None

    noise = "Gaussian (continuous or discrete, CKS 2020)"
    theorem = ("rho = Delta_2^2/(2 sigma^2)-zCDP (Bun-Steinke 2016 Prop 1.6, CKS 2020 "
               "Thm 14); epsilon = rho + 2 sqrt(rho ln(1/delta)) (Bun-Steinke 2016 Prop 1.3)")

    @property
    def rho(self) -> fmpq:
        return self.sensitivity_l2_squared / (2 * self.sigma2)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "noise": self.noise,
            "sensitivity_l2_squared": fmpq_str(self.sensitivity_l2_squared),
            "sigma2": fmpq_str(self.sigma2),
            "rho_zcdp": fmpq_str(self.rho),
            "theorem": self.theorem,
        }
        if self.delta is not None and self.epsilon is not None:
            out.update({"delta": fmpq_str(self.delta), "epsilon": fmpq_str(self.epsilon),
                        "epsilon_decimal": decimal_up(self.epsilon)})
        return out


@dataclass(frozen=True, eq=True, repr=True)
class DeltaScale(PrivacyRecord):
    """The scales compared by :func:`~dpverify.mechanisms.privacy.delta_scale` and the one
    used (``used`` names it; ``scale`` and ``achieved_epsilon_upper`` are exact)."""

    theorem7_printed_scale: fmpq
    theorem7_achieved_epsilon_upper: fmpq | None
    theorem7_valid: bool
    pure_scale: fmpq
    advanced_composition_scale: fmpq | None
    used: str
    scale: fmpq
    achieved_epsilon_upper: fmpq

    composition = ("pure: Laplace mechanism on the L1 sensitivity; otherwise advanced "
                   "composition (Dwork-Rothblum-Vadhan 2010) of m coordinates")

    def comparison_json(self) -> dict[str, Any]:
        """The comparison fields (everything but the chosen scale and its epsilon)."""
        return {
            "theorem7_printed_scale": fmpq_str(self.theorem7_printed_scale),
            "theorem7_achieved_epsilon_upper": _render(self.theorem7_achieved_epsilon_upper),
            "theorem7_valid": self.theorem7_valid,
            "pure_scale": fmpq_str(self.pure_scale),
            "advanced_composition_scale": _render(self.advanced_composition_scale),
            "used": self.used,
            "composition": self.composition,
        }

    def to_json(self) -> dict[str, Any]:
        out = self.comparison_json()
        out.update({"scale": fmpq_str(self.scale),
                    "achieved_epsilon_upper": fmpq_str(self.achieved_epsilon_upper)})
        return out


@dataclass(frozen=True, eq=True, repr=True)
class LaplaceCalibration(PrivacyRecord):
    """What :func:`~dpverify.mechanisms.privacy.calibrate_laplace` chose: the target
    ``(epsilon, delta)``, the ``scale``, the certified ``achieved_epsilon`` and the
    ``certificate`` record that proves it (plus the :class:`DeltaScale` comparison when a
    ``delta`` was given)."""

    epsilon: fmpq
    delta: fmpq | None
    scale: fmpq
    achieved_epsilon: fmpq
    certificate: LaplaceRecord | AdvancedCompositionRecord
    comparison: DeltaScale | None = None

    def to_json(self) -> dict[str, Any]:
        if self.comparison is None:
            return {"epsilon": fmpq_str(self.epsilon), "scale": fmpq_str(self.scale),
                    "achieved_epsilon": fmpq_str(self.achieved_epsilon),
                    "composition": "none (L1 Laplace)",
                    "certificate": self.certificate.to_json()}
        out = self.comparison.comparison_json()
        out.update({"epsilon": fmpq_str(self.epsilon), "delta": _render(self.delta),
                    "scale": fmpq_str(self.scale),
                    "achieved_epsilon": fmpq_str(self.achieved_epsilon),
                    "certificate": self.certificate.to_json()})
        return out


@dataclass(frozen=True, eq=True, repr=True)
class BasicComposition(PrivacyRecord):
    """Basic composition (Dwork-Roth Thm 3.16): the epsilons and deltas add (exact)."""

    epsilon: fmpq
    delta: fmpq

    theorem = "basic composition (Dwork-Roth Thm 3.16): epsilons and deltas add"

    def to_json(self) -> dict[str, Any]:
        return {"theorem": self.theorem, "epsilon": fmpq_str(self.epsilon),
                "epsilon_decimal_up": fmpq_to_decimal(self.epsilon, 10, "up"),
                "delta": fmpq_str(self.delta)}


@dataclass(frozen=True, eq=True, repr=True)
class PrivacyReport(PrivacyRecord):
    """The privacy record of a polynomial release (TUV, decision lists): the target, the
    chosen Laplace scale (times ``n``), the record that certifies the achieved loss, and the
    derivation blocks (``sensitivity``, the paper's printed scales, ...) kept verbatim.

    ``head`` holds the blocks printed between ``neighbouring`` and ``epsilon_target``
    (e.g. ``representation``, ``universe``), ``tail`` those after ``achieved``."""

    mechanism: str
    neighbouring: str
    epsilon_target: fmpq
    delta_target: fmpq | None
    sensitivity: Mapping[str, Any]
    route: str
    scale_times_n: fmpq
    achieved: LaplaceRecord | AdvancedCompositionRecord | None
    head: Mapping[str, Any] = field(default_factory=dict)
    tail: Mapping[str, Any] = field(default_factory=dict)
    n: int | None = None

    @property
    def scale(self) -> fmpq | None:
        """The Laplace scale for ``n`` rows (``None`` when ``n`` was not given)."""
        return None if self.n is None else self.scale_times_n / self.n

    @property
    def achieved_epsilon(self) -> fmpq:
        """The certified privacy loss (0 when nothing depends on the data)."""
        return fmpq(0) if self.achieved is None else self.achieved.epsilon

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"mechanism": self.mechanism, "neighbouring": self.neighbouring}
        out.update(_render(self.head))
        out.update({
            "epsilon_target": fmpq_str(self.epsilon_target),
            "delta_target": _render(self.delta_target),
            "sensitivity": _render(self.sensitivity),
            "route": self.route,
            "scale_times_n": fmpq_str(self.scale_times_n),
            "achieved": _render(self.achieved),
        })
        out.update(_render(self.tail))
        if self.n is not None:
            out["n"] = self.n
            out["sensitivity"]["l1"] = fmpq_str(
                to_fmpq(out["sensitivity"]["l1_times_n"], "l1_times_n") / self.n)
            out["scale"] = fmpq_str(self.scale_times_n / self.n)
        return out


def compose_basic(parts: Sequence[Mapping[str, Any]]) -> BasicComposition:
    """Basic composition of (epsilon, delta) records: sums (exact).  Each part is a record
    (or its JSON) with ``achieved_epsilon`` and optionally ``delta``; a part whose
    calibration fell back to the pure-epsilon scale (``used == "pure"``) contributes no
    delta."""
    eps = sum((to_fmpq(p["achieved_epsilon"], "epsilon") for p in parts), fmpq(0))
    dl = sum((to_fmpq(p.get("delta") or "0", "delta") for p in parts
              if p.get("used") != "pure"), fmpq(0))
    return BasicComposition(epsilon=eps, delta=dl)
