"""The state file of a long check: which tasks are done and their merged summary, written
after every task, so that an interrupted run (killed, timed out, the machine rebooted)
resumes where it stopped with ``state=path``.

The file is JSON (no pickle: reading a state file runs no code): a ``key`` identifying the
check (the reference, the domain, the format, the limits, the implementation's name, the
number of tasks and the seed -- a state file of another check is refused), the indices of
the tasks done, and the :class:`~dpverify.testing.run.Tally` of those tasks with its exact
numbers as ``"p/q"`` texts and its floats as hexadecimal strings.  It is replaced
atomically (:func:`dpverify.atomic.write_text`): a kill during the write leaves the
previous state.

Guarantee
---------
Resuming gives the report of an uninterrupted run: a task is recorded only once its
tally is merged, tallies merge independently of order (:meth:`Tally.merge` sorts by
input), and the file round-trips every number exactly.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
from typing import Any

import numpy as np
from flint import fmpq

from ..atomic import write_text
from ..errors import InvalidParameterError
from .decide import PointResult
from .properties import PropTally
from .run import Tally

__all__ = ["StateFile", "STATE_KIND", "tally_to_json", "tally_from_json"]

STATE_KIND = "dpverify-check-state"


def _f(v: float) -> str:
    return v.hex() if math.isfinite(v) else str(v)


def _unf(s: str) -> float:
    return float.fromhex(s) if s not in ("inf", "-inf", "nan") else float(s)


def _q(v: fmpq | None) -> str | None:
    return None if v is None else f"{v.p}/{v.q}"


def _unq(s: str | None) -> fmpq | None:
    if s is None:
        return None
    p, q = s.split("/")
    return fmpq(int(p), int(q))


def _point(r: PointResult) -> dict[str, Any]:
    return {"x": _f(r.x), "y": _f(r.y), "ref": [_q(r.ref_lo), _q(r.ref_hi)],
            "rounded": _f(r.rounded), "ulp": _q(r.ulp), "ulps": [_q(r.ulps_lo), _q(r.ulps_hi)],
            "abs": [_q(r.abs_lo), _q(r.abs_hi)], "status": r.status, "prec": r.precision}


def _unpoint(d: dict[str, Any]) -> PointResult:
    lo, hi = (_unq(v) for v in d["ref"])
    assert lo is not None and hi is not None
    ulp = _unq(d["ulp"])
    assert ulp is not None
    return PointResult(_unf(d["x"]), _unf(d["y"]), lo, hi, _unf(d["rounded"]), ulp,
                       _unq(d["ulps"][0]), _unq(d["ulps"][1]), _unq(d["abs"][0]),
                       _unq(d["abs"][1]), d["status"], int(d["prec"]))


def tally_to_json(t: Tally) -> dict[str, Any]:
    """The tally as JSON data (exact: module docstring)."""
    return {
        "points": t.points, "screened": t.screened, "exact": t.exact, "failures": t.failures,
        "undecided": t.undecided, "undefined": t.undefined, "hist": t.hist.tolist(),
        "profile": [_f(float(v)) for v in t.profile], "worst": [_point(r) for r in t.worst],
        "failing": [_point(r) for r in t.failing], "odd": [_point(r) for r in t.odd],
        "bound": _f(t.bound), "screen_top": [[_f(a), _f(b)] for a, b in t.screen_top],
        "pieces": t.pieces, "seconds": t.seconds, "by_ulps": t.by_ulps,
        "first": [[k, _point(r)] for k, r in t.first], "first_n": t.first_n,
        "not_cr": t.not_cr, "singular": t.singular,
        "singular_at": [[_f(a), _f(b)] for a, b in t.singular_at],
        "props": {k: {"checked": v.checked, "violations": v.violations,
                      "examples": [[_f(x), s] for x, s in v.examples]}
                  for k, v in t.props.items()},
    }


def tally_from_json(d: dict[str, Any]) -> Tally:
    """Inverse of :func:`tally_to_json`."""
    return Tally(
        points=d["points"], screened=d["screened"], exact=d["exact"], failures=d["failures"],
        undecided=d["undecided"], undefined=d["undefined"],
        hist=np.array(d["hist"], dtype=np.int64),
        profile=np.array([_unf(v) for v in d["profile"]]),
        worst=[_unpoint(r) for r in d["worst"]], failing=[_unpoint(r) for r in d["failing"]],
        odd=[_unpoint(r) for r in d["odd"]], bound=_unf(d["bound"]),
        screen_top=[(_unf(a), _unf(b)) for a, b in d["screen_top"]], pieces=d["pieces"],
        seconds=d["seconds"], by_ulps=d["by_ulps"],
        first=[(int(k), _unpoint(r)) for k, r in d["first"]], first_n=d["first_n"],
        not_cr=d["not_cr"], singular=d["singular"],
        singular_at=[(_unf(a), _unf(b)) for a, b in d["singular_at"]],
        props={k: PropTally(v["checked"], v["violations"],
                            [(_unf(x), s) for x, s in v["examples"]])
               for k, v in d["props"].items()},
    )


class StateFile:
    """The state of one check at ``path`` (module docstring); ``key`` identifies it."""

    def __init__(self, path: str, key: dict[str, Any]):
        if not isinstance(path, (str, os.PathLike)):
            raise InvalidParameterError(f"state must be a file path, got "
                                        f"{type(path).__name__}")
        self.path = os.fspath(path)
        self.key = hashlib.sha256(json.dumps(key, sort_keys=True).encode()).hexdigest()
        self.described = key

    def load(self) -> tuple[set[int], Tally | None]:
        """The tasks done and their tally (nothing when the file does not exist)."""
        if not os.path.exists(self.path):
            return set(), None
        try:
            with open(self.path, encoding="utf-8") as fh:
                data = json.load(fh)
        except (OSError, ValueError) as exc:
            raise InvalidParameterError(f"state: cannot read {self.path}: {exc}") from None
        if not isinstance(data, dict) or data.get("kind") != STATE_KIND:
            raise InvalidParameterError(f"state: {self.path} is not a check state file")
        if data.get("key") != self.key:
            raise InvalidParameterError(
                f"state: {self.path} belongs to another check ({data.get('check')}); "
                "remove it or choose another path")
        return set(data["done"]), tally_from_json(data["tally"])

    def save(self, done: set[int], tally: Tally) -> None:
        """Record the tasks done and their merged tally (atomically)."""
        write_text(self.path, json.dumps({
            "kind": STATE_KIND, "version": 1, "key": self.key, "check": self.described,
            "done": sorted(done), "tally": tally_to_json(tally)}) + "\n", what="state")
