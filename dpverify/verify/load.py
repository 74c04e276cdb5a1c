"""Reading a certificate: size cap, nesting depth, strict JSON, then the JSON Schema.

Guarantees: the bytes are at most ``max_bytes`` (default :data:`MAX_BYTES`, 256 MiB; a
caller raises it with ``max_bytes=`` or ``--max-size`` up to :data:`MAX_BYTES_LIMIT`) of
UTF-8; brackets outside strings nest at most
64 deep (scanned before ``json.loads``); no JSON float, NaN or Infinity anywhere (exact
numbers are strings); an integer longer than 30 digits is kept as text (:class:`LongInt`,
which no statement field accepts); no duplicate key; not a ``dpverify-data`` file; valid
against ``schema/certificate-v1.json`` (draft 2020-12), or the schema of its kind in
:data:`KIND_SCHEMAS`.
Every failure raises Malformed with a one-line message.
"""

from __future__ import annotations

import json
import re
from functools import lru_cache
from importlib import resources
from typing import TYPE_CHECKING, Any

from .report import ArgumentTypeError, ArgumentValueError, Malformed, one_line

if TYPE_CHECKING:
    from jsonschema import Draft202012Validator

__all__ = ["DATA_FILE", "KIND_SCHEMAS", "MAX_BYTES", "MAX_BYTES_LIMIT", "MAX_DEPTH", "LongInt",
           "size_cap", "too_large", "check_depth", "parse_bytes", "unique_keys", "schema_errors",
           "number_def", "schema_document", "validate"]

#: the default size cap of a certificate: larger files are refused before they are parsed
#: (a hostile file cannot make the checker read gigabytes unless the caller allows it)
MAX_BYTES = 256 * 2**20
#: the largest cap a caller may set (1 TiB)
MAX_BYTES_LIMIT = 2**40
MAX_DEPTH = 64
# a JSON string, or an unterminated one up to the end of the data (json.loads rejects it
# later): the pattern matches at every '"' it starts from, so re.sub never rescans the rest
# of the data from each quote (an unmatched-quote pattern made '\\"' * n quadratic)
_STRING = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*(?:"|\\?\Z)', re.DOTALL)
_NOT_BRACKETS = bytes(c for c in range(256) if c not in b"[]{}")


def check_depth(data: bytes) -> None:
    depth = 0
    for c in _STRING.sub(b'""', data).translate(None, _NOT_BRACKETS):
        depth += 1 if c in (91, 123) else -1
        if depth > MAX_DEPTH:
            raise Malformed(f"JSON nested deeper than {MAX_DEPTH}")


def _float(text: str) -> Any:
    raise Malformed(f"JSON number {text[:30]!r} is not allowed: exact numbers are strings "
                    "and small parameters are integers")


def _constant(text: str) -> Any:
    raise Malformed(f"{text} is not allowed in a certificate")


class LongInt:
    """A JSON integer of more than 30 digits, kept as its text (never converted: ``int``
    of a long digit string is slow and limited).  No field of a statement or evidence
    accepts it (the schema's ``integer`` and ``string`` both refuse it); in ``info``,
    which is only printed, it is shown as written."""

    __slots__ = ("text",)

    def __init__(self, text: str) -> None:
        self.text = text

    def __repr__(self) -> str:
        return self.text


def _int(text: str) -> int | LongInt:
    return LongInt(text) if len(text.lstrip("-")) > 30 else int(text)


def unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """``object_pairs_hook`` of ``json.loads``: a JSON object, Malformed on a duplicate key."""
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise Malformed(f"duplicate key {one_line(key, 60)!r}")
        out[key] = value
    return out


def size_cap(value: object) -> int:
    """``max_bytes`` checked: None (:data:`MAX_BYTES`) or an int in
    ``[1, MAX_BYTES_LIMIT]``; ArgumentTypeError / ArgumentValueError otherwise."""
    if value is None:
        return MAX_BYTES
    if isinstance(value, bool) or not isinstance(value, int):
        raise ArgumentTypeError(f"max_bytes must be an int (bytes) or None, "
                                f"got {type(value).__name__}")
    if not 1 <= value <= MAX_BYTES_LIMIT:
        raise ArgumentValueError(f"max_bytes must be between 1 and 2^40 bytes, got {value}")
    return value


def _human(n: int) -> str:
    for unit, size in (("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if n >= size and n % size == 0:
            return f"{n // size} {unit}"
    return f"{n} bytes"


def too_large(cap: int) -> Malformed:
    """The error for a file over the size cap (says how to raise it)."""
    return Malformed(f"file larger than the size cap of {_human(cap)}; raise it with "
                     "--max-size SIZE (e.g. --max-size 8G) or max_bytes= if you trust the file")


def parse_bytes(data: bytes, max_bytes: int = MAX_BYTES) -> Any:
    """The JSON document in ``data`` under the rules of the module docstring.  (The
    caller should hold no other reference to ``data``: it is dropped once decoded, so a
    large file is not held twice while it is parsed.)"""
    if len(data) > max_bytes:
        raise too_large(max_bytes)
    check_depth(data)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise Malformed(f"not UTF-8 text (byte {exc.start})") from None
    del data
    try:
        return json.loads(text, parse_float=_float, parse_constant=_constant, parse_int=_int,
                          object_pairs_hook=unique_keys)
    except Malformed:
        # a data file (crosscheck, tables) may hold floats: say what the file is rather
        # than which number is not allowed in a certificate
        if _is_data(text):
            raise Malformed(DATA_FILE) from None
        raise
    except json.JSONDecodeError as exc:
        raise Malformed(f"not JSON: {exc.msg} at line {exc.lineno} column {exc.colno}") from None
    except RecursionError:
        raise Malformed(f"JSON nested deeper than {MAX_DEPTH}") from None


#: kinds with a schema file of their own (the other kinds: ``certificate-v1.json``)
KIND_SCHEMAS = {"evalbound": "evalbound-v1.json", "float-error": "evalbound-v1.json",
                "roundoff": "roundoff-v1.json"}


@lru_cache(maxsize=4)
def _validator(name: str = "certificate-v1.json") -> Draft202012Validator:
    # imported here: jsonschema costs ~40 ms at start-up and --help never needs it
    from jsonschema import Draft202012Validator

    text = resources.files("dpverify.verify").joinpath(f"schema/{name}").read_text(
        encoding="utf-8")
    return Draft202012Validator(json.loads(text))


DATA_FILE = "this file is data, not a certificate: dpverify verify does not check it"


def _is_data(text: str) -> bool:
    """Whether ``text`` is a JSON object marked ``"format": "dpverify-data"`` (read
    leniently; any failure means no)."""
    try:
        obj = json.loads(text)
    except (ValueError, RecursionError):
        return False
    return isinstance(obj, dict) and obj.get("format") == "dpverify-data"


def schema_errors(obj: Any) -> list[Any]:
    """Every error of ``obj`` against the schema of its kind (the schema :func:`validate`
    uses), as ``jsonschema`` ``ValidationError`` objects (nested ones in ``context``);
    empty when ``obj`` is valid.  For a certifier that repairs what it can before it
    writes a certificate (:class:`dpverify.certify.certificate.Certificate`)."""
    return list(_validator(_schema_name(obj)).iter_errors(obj))


def number_def() -> dict[str, Any]:
    """The schema of an exact number (``$defs.number``: a string of the number grammar),
    the same in every schema file of the format."""
    out: dict[str, Any] = _validator().schema["$defs"]["number"]
    return out


def schema_document(obj: Any) -> dict[str, Any]:
    """The schema (as a JSON object) that :func:`validate` applies to ``obj``."""
    out: dict[str, Any] = _validator(_schema_name(obj)).schema
    return out


def _schema_name(obj: Any) -> str:
    """The schema file of ``obj``'s kind (``certificate-v1.json`` unless listed in
    :data:`KIND_SCHEMAS`)."""
    kind = obj.get("kind") if isinstance(obj, dict) else None
    return KIND_SCHEMAS.get(kind, "certificate-v1.json") if isinstance(kind, str) else \
        "certificate-v1.json"


def validate(obj: Any) -> None:
    """Raise Malformed unless ``obj`` is a certificate valid against the schema."""
    if isinstance(obj, dict) and obj.get("format") == "dpverify-data":
        raise Malformed(DATA_FILE)
    from jsonschema.exceptions import best_match  # see _validator: start-up cost

    err = best_match(_validator(_schema_name(obj)).iter_errors(obj))
    if err is not None:
        msg = err.message if len(err.message) <= 160 else \
            f"fails {err.validator!r} = {json.dumps(err.validator_value)[:60]}"
        raise Malformed(f"schema: {one_line(err.json_path, 100)}: {one_line(msg, 160)}")
