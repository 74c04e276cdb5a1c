"""Shared output of the certifying commands: the statement in rows, the outcome line,
and the ``--timeout`` flag (no mathematics here)."""

from __future__ import annotations

import argparse
import os
from typing import Any

from ..errors import InvalidParameterError
from ..numbers import fmpq_to_decimal, parse_exact

__all__ = ["timeout_flag", "read_timeout", "statement_rows", "outcome", "short", "check_with",
           "DEFAULT_TIMEOUT"]

#: Default ``--timeout`` of the certifying commands, in seconds.
DEFAULT_TIMEOUT = 120

_SHORT = 60


def timeout_flag(parser: argparse.ArgumentParser, default: int = DEFAULT_TIMEOUT) -> None:
    """``--timeout SECONDS``: wall-clock limit of the certification; past it the command
    ends "undecided" with exit 1 (handled by :func:`dpverify.cli.main`)."""
    parser.add_argument(
        "--timeout", default=str(default), metavar="SECONDS",
        help=f"give up after this many seconds: the result is 'undecided', exit 1 "
        f"(default {default})")


def read_timeout(text: str) -> float:
    """The ``--timeout`` value in seconds (exact number, 0 < t <= 10^6)."""
    t = parse_exact(text, "--timeout")
    if not 0 < t <= 10**6:
        raise InvalidParameterError(f"--timeout must be in (0, 1000000] seconds, got {text!r}")
    if float(t) == 0.0:  # positive, but no clock measures it: it rounds to 0.0 seconds
        raise InvalidParameterError(f"--timeout {text!r} is too small: it rounds to 0 seconds")
    return float(t)


#: ``--out`` values that keep no file to check (standard output is handled as ``-``).
_NO_FILE = ("-", os.devnull, "/dev/stdout", "/dev/fd/1", "/proc/self/fd/1")


def check_with(args: argparse.Namespace) -> str:
    """How to re-check the certificate this command wrote: ``check with: dpverify verify
    FILE`` naming the ``--out`` file, or, when no file was written, how to keep one."""
    out = getattr(args, "json_out", None)
    if out is None or out in _NO_FILE:
        return ("not saved: add --out FILE to keep the certificate, then check with: "
                "dpverify verify FILE")
    import shlex  # deferred: only this line needs it (about 2 ms at start-up)

    return f"check with: dpverify verify {shlex.quote(out)}"


def short(q_text: str, digits: int = 12) -> str:
    """An exact number as given when short, else its decimal rounded up (said so)."""
    if len(q_text) <= _SHORT:
        return q_text
    return f"{fmpq_to_decimal(parse_exact(q_text), digits, 'up')} (rounded up)"


def statement_rows(cert: Any, what: str = "|f - p|") -> list[tuple[str, str]]:
    """The checked facts of a sup-norm certificate, one row each."""
    st = cert.statement
    poly = st["polynomial"]
    err = st["error"]
    rows = [("degree", str(poly["degree"]))]
    norm = poly["coefficient_norm"]
    rows.append((f"coefficient norm L1 ({poly['basis']})", short(norm["l1"])))
    rows.append(("coefficient norm log2", str(norm["l1_log2"])))
    if err["lower"] == err["upper"]:
        rows.append((f"max {what} (exact)", short(err["upper"])))
        rows.append((f"max {what} (decimal, up)", fmpq_to_decimal(parse_exact(err["upper"]),
                                                                  12, "up")))
    else:
        rows.append((f"sup {what} >=", err["lower"]))
        rows.append((f"sup {what} <=", err["upper"]))
    if "max_error" in st:
        rows.append(("claim max_error <=", f"{short(st['max_error'])}: proven"))
    for key, v in cert.info.get("unproven_claims", {}).items():
        rows.append((f"claim {key}", f"{v.get('value', '')} {v['status']}".strip()))
    if "least_degree" in st:
        pin = st["least_degree"]["pin"]
        pin_s = "" if pin is None else f" with p({pin['x']}) = {pin['value']}"
        rows.append(("least degree", f"proven: no polynomial of degree < {poly['degree']}"
                     f"{pin_s} meets max_error"))
    return rows


def outcome(cert: Any, *, need_convergence: bool = False) -> tuple[str, int]:
    """``("certified", 0)`` when every claim is proven (and, if asked, the enclosure
    reached its tolerance); otherwise ``("not certified: REASON", 1)`` or
    ``("undecided: REASON", 1)``."""
    unproven = cert.info.get("unproven_claims", {})
    refuted = [k for k, v in unproven.items() if v["status"] == "refuted"]
    if refuted:
        return "not certified: claim " + ", ".join(refuted) + " refuted", 1
    if unproven:
        return "undecided: claim " + ", ".join(unproven) + " neither proven nor refuted", 1
    if need_convergence and not cert.converged:
        status = cert.info.get("status", "budget")
        why = ("time limit reached" if status == "timeout"
               else f"work limit reached ({status})")
        width = cert.info.get("relative_width")
        shown = (f"relative width {width}" if width is not None
                 else "the lower bound is 0, so no relative width")
        return (f"undecided: {why}; the enclosure holds but is wider than --rtol "
                f"({shown})"), 1
    return "certified", 0
