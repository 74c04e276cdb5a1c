"""What a release's privacy record promises, derived in one place for every mechanism.

Every release (bernstein, wang-summary, jin-synthetic, tuv-release) carries a
``guarantee`` block built here, next to its accounting:

* ``neighbouring`` -- the neighbouring relation the epsilon refers to: ``replace`` (same
  ``n``, public; one row replaced) or ``add-remove`` (one row added or removed; ``n``
  private), with the row domain and the size bounds that are part of it;
* ``assumptions`` -- every statement the guarantee rests on that dpverify did not prove,
  verbatim (a user's ``phi``, sensitivity or moment sums); no flag removes one;
* ``proven`` -- what dpverify proved itself and how (``{"claim", "how"}``);
* ``outside_guarantee`` -- outputs the epsilon does not cover (a run stopped by its time
  limit, a ball-precision refusal, side channels);
* ``secure_randomness`` and ``statement`` -- one sentence: ``(epsilon, delta)-DP for ...
  neighbours``, qualified by the assumptions, or **NOT private** when the noise came from
  an insecure seed (reproducible noise protects nothing).

:func:`epsilon_text` renders the achieved epsilon for a CLI table with the same
qualification, so no output says "achieved epsilon" without it.

Guarantee
---------
Pure functions of their arguments (no data): the block states what the caller derived;
``statement`` is never unqualified when an assumption is listed or the randomness is
insecure.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ...errors import InvalidParameterError, ParameterTypeError

__all__ = [
    "NEIGHBOURS",
    "TIME_LIMIT",
    "SIDE_CHANNELS",
    "check_neighbours",
    "check_min_rows",
    "neighbouring_text",
    "guarantee_block",
    "epsilon_text",
]

#: The neighbouring relations a release can be accounted for.
NEIGHBOURS = ("replace", "add-remove")

#: Outside every guarantee: the time limit (a refusal that depends on running time).
TIME_LIMIT = ("a run stopped by its time limit (--timeout, timeout=) releases nothing; the "
              "running time depends on the data, so whether a run ends in time is not "
              "covered: set the limit well above the expected time")
#: Outside every guarantee: side channels.
SIDE_CHANNELS = ("side channels: running time, memory use, and the size and layout of the "
                 "input files are not covered (only the released values are)")


def check_neighbours(value: Any) -> str:
    """``"replace"`` or ``"add-remove"`` (``"add_remove"`` accepted), else an error naming
    ``neighbours``.

    Examples
    --------
    >>> check_neighbours("Add_Remove")
    'add-remove'
    """
    if not isinstance(value, str):
        raise ParameterTypeError(f"neighbours must be a string, got {type(value).__name__}")
    v = value.strip().lower().replace("_", "-")
    if v not in NEIGHBOURS:
        raise InvalidParameterError(f"neighbours must be replace or add-remove, got {value!r}")
    return v


def check_min_rows(value: Any, default: int = 1) -> int:
    """The public lower bound on ``n`` of the add/remove universe (an integer >= 1;
    ``default`` when ``None``).

    Examples
    --------
    >>> check_min_rows(None, 2), check_min_rows(10)
    (2, 10)
    """
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, int):
        raise ParameterTypeError(f"min_rows must be an integer, got {type(value).__name__}")
    if value < 1:
        raise InvalidParameterError(f"min_rows must be >= 1, got {value}")
    return value


def neighbouring_text(neighbours: str, domain: str, *, min_rows: int = 1,
                      max_rows: str | None = None) -> str:
    """The neighbouring relation in words, with the universe it ranges over.

    Examples
    --------
    >>> neighbouring_text("add-remove", "[0, 1]", min_rows=2)[:40]
    'add/remove-one: databases differing by o'
    """
    size = f"at least {min_rows} row{'s' if min_rows != 1 else ''}"
    if max_rows:
        size += f" and at most {max_rows}"
    if neighbours == "replace":
        return (f"replace-one: databases of the same size n (public) differing in one row; "
                f"rows in {domain}; {size}")
    return (f"add/remove-one: databases differing by one row added or removed (n is not "
            f"public); rows in {domain}; {size}")


def guarantee_block(
    *,
    neighbours: str,
    domain: str,
    epsilon: Any,
    delta: Any,
    secure: bool,
    assumptions: Sequence[str] = (),
    proven: Sequence[Mapping[str, str]] = (),
    outside: Sequence[str] = (),
    min_rows: int = 1,
    max_rows: str | None = None,
) -> dict[str, Any]:
    """The ``guarantee`` block of a privacy record (module docstring).

    ``epsilon``, ``delta``: the achieved values as the record prints them (exact strings);
    ``outside``: the mechanism's own uncovered outputs (the time limit and side channels
    are added to every block).

    Examples
    --------
    >>> g = guarantee_block(neighbours="replace", domain="[-1, 1]^d", epsilon="1",
    ...                     delta="0", secure=True)
    >>> g["statement"]
    '(1, 0)-DP for replace-one neighbours; no assumption'
    >>> guarantee_block(neighbours="replace", domain="[-1, 1]^d", epsilon="1", delta="0",
    ...                 secure=False)["statement"][:12]
    'NOT private:'
    """
    nb = check_neighbours(neighbours)
    words = "replace-one" if nb == "replace" else "add/remove-one"
    dp = f"({epsilon}, {delta})-DP for {words} neighbours"
    if assumptions:
        dp += (f", given {len(assumptions)} assumption{'s' if len(assumptions) != 1 else ''} "
               "that dpverify did not prove (listed)")
    else:
        dp += "; no assumption"
    if not secure:
        statement = (f"NOT private: the noise came from an insecure seed and is reproducible; "
                     f"with the OS random source the same mechanism would be {dp}")
    else:
        statement = dp
    return {
        "statement": statement,
        "neighbouring": neighbouring_text(nb, domain, min_rows=min_rows, max_rows=max_rows),
        "secure_randomness": bool(secure),
        "assumptions": list(assumptions),
        "proven": [dict(p) for p in proven],
        "outside_guarantee": [*outside, TIME_LIMIT, SIDE_CHANNELS],
        "refusals": ("a database outside the domain (a row outside the value domain, a "
                     "malformed row, fewer or more rows than the bounds above) is refused "
                     "before anything is released; the domain and the bounds are part of the "
                     "neighbouring relation, so both neighbours of a pair lie inside it and "
                     "such a refusal is not an output of the mechanism"),
    }


def epsilon_text(privacy: Mapping[str, Any], epsilon: Any = None, delta: Any = None) -> str:
    """The achieved epsilon for a CLI table, qualified as the guarantee block says:
    ``"1 (delta 0)"``, ``"1 (delta 0), given 1 assumption"`` or ``"NOT PRIVATE
    (insecure seed); with secure randomness: 1 (delta 0)"``.

    Examples
    --------
    >>> epsilon_text({"achieved_epsilon": "1", "secure_randomness": False})
    'NOT PRIVATE (insecure seed); with secure randomness: 1 (delta 0)'
    """
    eps = privacy.get("achieved_epsilon") if epsilon is None else epsilon
    dl = delta if delta is not None else privacy.get("delta") or "0"
    text = f"{eps} (delta {dl})"
    g = privacy.get("guarantee") or {}
    if g.get("secure_randomness") is False or privacy.get("secure_randomness") is False:
        return f"NOT PRIVATE (insecure seed); with secure randomness: {text}"
    k = len(g.get("assumptions") or [])
    if k:
        return f"{text}, given {k} assumption{'s' if k != 1 else ''} (see privacy.assumptions)"
    return text
