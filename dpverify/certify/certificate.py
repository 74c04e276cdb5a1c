"""The :class:`Certificate`: a certified statement about one polynomial, as data.

A certificate is a JSON document in the versioned format of ``docs/certificates.md``
(``schema_version`` 1): a ``statement`` that the independent checker
(:mod:`dpverify.verify`, ``dpverify verify``) proves from scratch, the ``evidence`` that
lets it do so, and ``info`` (everything else; never checked, printed as "not checked").
Exact numbers are strings (``"p/q"`` or exact decimals); decimal renderings are rounded
outward.

Data files that are not certificates (privacy records, releases, tables) carry
``"format": "dpverify-data"`` and a note saying so (:func:`data_document`).

What a :class:`Certificate` knows: ``complete`` says every claim the construction asked
for was proven by the certifier (nothing in ``info["unproven_claims"]``); only
:meth:`Certificate.check` runs the independent checker and says whether the statement
holds.
"""

from __future__ import annotations

import html
import json
import numbers
import re
import warnings
from collections.abc import Iterator
from dataclasses import dataclass, field
from decimal import Decimal
from fractions import Fraction
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # annotations only: the checker is imported by check() when called
    from ..verify import Report

from .._version import __version__
from ..atomic import write_text
from ..errors import InvalidParameterError, MalformedCertificate, ParameterTypeError

__all__ = [
    "Certificate",
    "CLAIM_KEYS",
    "SCHEMA_VERSION",
    "CERT_FORMAT",
    "DATA_FORMAT",
    "DATA_NOTE",
    "data_document",
    "issue",
    "exact_numbers",
    "MAX_NESTING",
    "UNIFORM_LISTS",
    "FOLD_AT",
    "prepare_issue",
]

SCHEMA_VERSION = 1
CERT_FORMAT = "dpverify-certificate"
DATA_FORMAT = "dpverify-data"
DATA_NOTE = "data, not a certificate: dpverify verify does not check it"

#: Claim keys the certifiers understand.
#: ``max_error``: sup |f - p| over the error domain is <= the value.
CLAIM_KEYS = ("max_error",)


def data_document(kind: str, body: dict[str, Any]) -> dict[str, Any]:
    """Wrap ``body`` as a data document (not a certificate): ``schema_version``,
    ``format: dpverify-data``, ``kind`` and the note come first."""
    out: dict[str, Any] = {
        "schema_version": SCHEMA_VERSION,
        "format": DATA_FORMAT,
        "kind": kind,
        "note": DATA_NOTE,
    }
    for k, v in body.items():
        if k in out:
            continue
        out[k] = v
    return out


def _block(value: object, where: str) -> dict[str, Any]:
    """``value`` if it is a JSON object (a block of the document), else raise."""
    if not isinstance(value, dict):
        raise MalformedCertificate(f"{where} must be a JSON object, got {type(value).__name__}")
    return value


@dataclass
class Certificate:
    """A certificate document with convenience views.

    ``data`` is the JSON object itself, in the versioned format of docs/certificates.md:
    a ``statement`` that the independent checker proves from scratch, the ``evidence``
    that lets it do so, and ``info`` (never checked).  Produced by
    :func:`dpverify.certify.certify` and the top-level functions; re-checked
    independently by :meth:`check` (or ``dpverify verify FILE`` after :meth:`save`).

    Attributes
    ----------
    statement, evidence, info : dict
        The three blocks of the document.
    complete : bool
        True when every claim the construction asked for (``max_error``, ``least_degree``)
        was proven by the certifier and is part of the statement; False when one was
        refuted or left undecided (it is then listed in ``info["unproven_claims"]``).  The
        statement itself is proven either way.  It says nothing about the independent
        checker: :meth:`check` runs it.
    verified : bool
        Deprecated alias of ``complete`` (it never meant that the checker ran); warns.

    Examples
    --------
    >>> from dpverify.constructions.chebyshev import or_polynomial
    >>> from dpverify.certify import certify
    >>> cert = certify(or_polynomial(5, "1/10"))
    >>> cert.complete
    True
    >>> report = cert.check()   # the independent checker, on the JSON document
    >>> report.status
    'holds'
    """

    data: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        # a certificate holds no JSON floats (the verifier refuses them: exact numbers are
        # strings); measured figures in info (seconds, widths) become their repr strings
        if isinstance(self.data.get("info"), dict):
            self.data["info"] = _no_floats(self.data["info"])
        self._issue()

    def _issue(self) -> None:
        """Normalise the numbers of ``statement`` and ``evidence`` to the canonical exact
        form (docs/certificates.md, *Numbers*) and run the checker's schema on the
        document: every certificate the certifier returns or writes passes it.  Raises
        :class:`~dpverify.errors.InvalidParameterError` naming the field the schema
        refuses (a float where an integer is needed, a NaN, ...)."""
        self.data = issue(self.data)

    @property
    def kind(self) -> str:
        return str(self.data.get("kind"))

    @property
    def statement(self) -> dict[str, Any]:
        return _block(self.data["statement"], "statement")

    @property
    def evidence(self) -> dict[str, Any]:
        return _block(self.data.get("evidence", {}), "evidence")

    @property
    def info(self) -> dict[str, Any]:
        return _block(self.data.get("info", {}), "info")

    @property
    def complete(self) -> bool:
        """No claim left unproven by the certifier (see the class docstring)."""
        return not self.info.get("unproven_claims")

    @property
    def verified(self) -> bool:
        """Deprecated: use :attr:`complete` (same value) or :meth:`check`."""
        warnings.warn("Certificate.verified is deprecated: it is Certificate.complete (no "
                      "claim left unproven by the certifier); Certificate.check() runs the "
                      "independent checker", DeprecationWarning, stacklevel=2)
        return self.complete

    def check(self, *, deadline_seconds: float | None = None,
              max_memory: int | None = None) -> Report:
        """Run the independent checker (:func:`dpverify.verify.verify_bytes`) on this
        certificate's JSON (exactly the bytes :meth:`save` writes, less the final newline)
        and return its :class:`~dpverify.verify.Report` (``report.ok``: the statement
        holds).  ``deadline_seconds`` and ``max_memory`` are the checker's budgets.
        Raises :class:`~dpverify.verify.Malformed` if the document is not a certificate."""
        # deferred: the checker is a separate program (it imports nothing of dpverify but
        # itself); loading it only when asked keeps `import dpverify.certify` light
        from ..verify import verify_bytes

        return verify_bytes(self.to_json().encode("utf-8"), deadline_seconds=deadline_seconds,
                            max_memory=max_memory)

    @property
    def error(self) -> dict[str, Any]:
        """``statement["error"]``: exact ``lower`` and ``upper`` (and ``upper_decimal``)."""
        return _block(self.statement["error"], "statement.error")

    @property
    def polynomial(self) -> dict[str, Any]:
        return _block(self.statement["polynomial"], "statement.polynomial")

    @property
    def degree(self) -> Any:
        return self.polynomial["degree"]

    @property
    def converged(self) -> bool:
        """False when the enclosure did not reach the requested tolerance -- a box
        enclosure stopped early (budget or time limit), or a ``minimax`` bracket wider than
        ``rtol`` (``info["bracket_met"]``): the statement still holds, only less tightly."""
        return bool(self.info.get("converged", True))

    def __getitem__(self, key: str) -> Any:
        return self.data[key]

    # -- notebooks and the REPL ---------------------------------------------
    def summary(self) -> dict[str, str]:
        """The headline fields as short strings: ``kind``, ``degree``, ``bound`` (the
        certified upper bound in decimal, rounded up), ``domain`` and ``complete``.
        Never raises (a malformed document shows ``?``)."""
        try:
            return _summary(self.data, self.complete)
        except Exception:  # a repr must never fail, whatever the document holds
            return {"kind": str(self.data.get("kind", "?"))[:40], "degree": "?",
                    "bound": "?", "domain": "?", "complete": "?"}

    def __repr__(self) -> str:
        s = self.summary()
        text = (f"Certificate(kind={s['kind']!r}, degree={s['degree']}, bound={s['bound']}, "
                f"domain={s['domain']}, complete={s['complete']})")
        # short by contract (< 200 characters): long domains were shortened above
        return text if len(text) < 200 else text[:195] + "...)"

    def _repr_html_(self) -> str:
        """A small HTML table for Jupyter (escaped)."""
        s = self.summary()
        rows = "".join(f"<tr><th style='text-align:left'>{html.escape(k)}</th>"
                       f"<td style='text-align:left'>{html.escape(v)}</td></tr>"
                       for k, v in s.items() if k != "kind")
        return (f"<table><caption style='text-align:left'><b>dpverify certificate</b> "
                f"<code>{html.escape(s['kind'])}</code></caption>{rows}</table>")

    def get(self, key: str, default: Any = None) -> Any:
        return self.data.get(key, default)

    # -- JSON ---------------------------------------------------------------
    def to_json(self, indent: int | None = 2) -> str:
        return json.dumps(self.data, indent=indent, sort_keys=False)

    def save(self, path: str) -> None:
        """Write the JSON to ``path`` atomically (:func:`dpverify.atomic.write_text`);
        an unwritable or empty path raises ``InvalidParameterError``.  The document is
        normalised and checked against the checker's schema again first (as on
        construction: it may have changed since, or been read by :meth:`from_json`)."""
        self._issue()
        write_text(path, self.to_json() + "\n", what="certificate")

    @classmethod
    def from_json(cls, text: str) -> Certificate:
        """Read a certificate document (structure only: use :mod:`dpverify.verify` to
        check it)."""
        try:
            obj = json.loads(text)
        except (json.JSONDecodeError, RecursionError) as exc:
            raise MalformedCertificate(f"certificate is not valid JSON: {exc}") from None
        if not isinstance(obj, dict):
            raise MalformedCertificate("certificate must be a JSON object")
        if obj.get("format") != CERT_FORMAT or obj.get("schema_version") != SCHEMA_VERSION:
            raise MalformedCertificate(
                f"not a dpverify certificate of schema version {SCHEMA_VERSION} "
                f"(format {obj.get('format')!r}, schema_version {obj.get('schema_version')!r})"
            )
        if not isinstance(obj.get("statement"), dict):
            raise MalformedCertificate("certificate lacks its statement")
        # read as it is, not issued: the checker says what it makes of the document
        cert = cls.__new__(cls)
        cert.data = obj
        return cert

    @classmethod
    def load(cls, path: str) -> Certificate:
        try:
            with open(path, encoding="utf-8") as fh:
                text = fh.read()
        except (OSError, UnicodeDecodeError) as exc:
            why = getattr(exc, "strerror", None) or str(exc)
            raise MalformedCertificate(f"cannot read certificate {path!r}: {why}") from None
        return cls.from_json(text)

    @staticmethod
    def version() -> str:
        return __version__


def _no_floats(obj: Any) -> Any:
    """``info`` as plain JSON: floats become their repr, other numbers (numpy, Fraction,
    fmpq, Decimal) and unknown objects their text, tuples lists.  Nothing in ``info`` is
    checked: this only keeps :meth:`Certificate.to_json` from failing on it."""
    if obj is None or isinstance(obj, (bool, str, int)):
        return obj
    if isinstance(obj, dict):
        return {k: _no_floats(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_no_floats(v) for v in obj]
    if isinstance(obj, numbers.Integral):
        return int(obj)
    if isinstance(obj, float) or (isinstance(obj, numbers.Real)
                                  and not isinstance(obj, numbers.Rational)):
        return repr(float(obj))
    return str(obj)


#: passes of the repair below (a nested error may show only once its parent is fixed)
_REPAIRS = 4


def exact_numbers(obj: Any, where: str) -> Any:
    """``obj`` (JSON-like: dicts, lists, tuples, scalars) with every number that JSON
    cannot hold exactly (a Python or numpy float, Fraction, fmpq, Decimal) as its
    canonical exact string ``"p/q"`` (``"p"`` for an integer), numpy and FLINT integers as
    ``int``, tuples as lists; strings and other values unchanged.  ``where`` names ``obj``
    in errors (a NaN or an infinity, or nesting deeper than :data:`MAX_NESTING`, raises
    :class:`~dpverify.errors.InvalidParameterError`).

    Examples
    --------
    >>> from fractions import Fraction
    >>> exact_numbers({"intervals": [(0.5, Fraction(2, 3))], "lo": 0}, "domain")
    {'intervals': [['1/2', '2/3']], 'lo': 0}
    """
    return _exact_at(obj, where, 0)


#: the nesting a certificate may have (that of the checker's reader)
MAX_NESTING = 64


def _exact_at(obj: Any, where: str, depth: int) -> Any:
    if obj is None or isinstance(obj, (bool, str, int)):
        return obj
    if depth >= MAX_NESTING:
        raise InvalidParameterError(f"{where}: nested deeper than {MAX_NESTING}")
    if isinstance(obj, dict):
        return {k: _exact_at(v, f"{where}.{k}", depth + 1) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_exact_at(v, f"{where}[{i}]", depth + 1) for i, v in enumerate(obj)]
    if isinstance(obj, numbers.Integral):
        return int(obj)
    # deferred: dpverify.numbers loads python-flint (see _dec_up)
    from ..numbers import fmpq_str, to_fmpq

    if isinstance(obj, Decimal):
        if not obj.is_finite():
            raise InvalidParameterError(f"{where} must be finite, got {obj}")
        obj = Fraction(obj)
    try:
        return fmpq_str(to_fmpq(obj, where))
    except ParameterTypeError:
        return obj  # not a number: the schema names it below


def _as_number(value: Any) -> str | None:
    """The canonical exact string of a JSON integer or of number text the format's
    grammar does not admit (hexadecimal floating point, blanks); None if it is neither."""
    # deferred: dpverify.numbers loads python-flint (see _dec_up)
    from ..numbers import fmpq_str, parse_exact

    if isinstance(value, bool) or not isinstance(value, (int, str)):
        return None
    try:
        return fmpq_str(value) if isinstance(value, int) else fmpq_str(parse_exact(value))
    except ValueError:
        return None


def _errors(errs: list[Any]) -> Iterator[Any]:
    """Every error of ``errs`` and of their ``context`` (the branches of a ``oneOf``)."""
    for err in errs:
        yield err
        yield from _errors(list(err.context or ()))


#: evidence lists whose items the schema constrains by their structure, bounded integers
#: and exact numbers only (kind -> (``$defs`` entry, key); tests/test_trust_reproducers.py
#: checks each against the schema): a long one is validated once per distinct skeleton
#: (every exact number replaced by "0"), which has the same verdict as each of its items
UNIFORM_LISTS = {"supnorm-box": ("box_evidence", "pieces"),
                 "minimax": ("minimax_evidence", "pieces"),
                 "lebesgue-constant": ("lebesgue_evidence", "pieces")}
#: lists at least this long are folded to their skeletons
FOLD_AT = 64


def _skeleton(item: Any, number: re.Pattern[str], longest: int) -> Any:
    """``item`` with every string the number schema admits replaced by ``"0"`` (which it
    admits too), as a hashable tuple tree."""
    if isinstance(item, str):
        return "0" if 1 <= len(item) <= longest and number.search(item) else item
    if isinstance(item, list):
        return tuple(_skeleton(x, number, longest) for x in item)
    return item


def _thaw(item: Any) -> Any:
    return [_thaw(x) for x in item] if isinstance(item, tuple) else item


def _folded(doc: dict[str, Any], number_schema: dict[str, Any],
            schema: dict[str, Any]) -> dict[str, Any] | None:
    """``doc`` with its long uniform evidence list (:data:`UNIFORM_LISTS`) replaced by its
    distinct skeletons, when the list's length is within the schema's bounds; None when
    there is nothing to fold (validate ``doc`` itself)."""
    kind = doc.get("kind")
    where = UNIFORM_LISTS.get(kind) if isinstance(kind, str) else None
    ev = doc.get("evidence")
    if where is None or not isinstance(ev, dict):
        return None
    items = ev.get(where[1])
    if not isinstance(items, list) or len(items) < FOLD_AT:
        return None
    bounds = schema["$defs"][where[0]]["properties"][where[1]]
    if not bounds.get("minItems", 0) <= len(items) <= bounds.get("maxItems", len(items)):
        return None
    number = re.compile(number_schema["pattern"])
    longest = number_schema["maxLength"]
    distinct = {_skeleton(x, number, longest): None for x in items}
    return {**doc, "evidence": {**ev, where[1]: [_thaw(x) for x in distinct]}}


def _put(doc: Any, path: list[Any], value: Any) -> None:
    for key in path[:-1]:
        doc = doc[key]
    doc[path[-1]] = value


def prepare_issue() -> None:
    """Load the checker's schemas now (about a third of a second on a cold start: the
    checker's package and jsonschema) rather than when the first certificate is issued: a
    certifier with a deadline calls this before its search, so that the wrap-up after a
    graceful stop at the deadline stays short.

    Examples
    --------
    >>> prepare_issue()
    """
    # deferred: the checker is a separate program, loaded only by a certifier about to
    # issue a certificate
    from ..verify.load import number_def, schema_document

    number_def()
    for kind in ("supnorm-box", "evalbound"):  # one of each schema file
        schema_document({"kind": kind})
    import jsonschema.exceptions  # noqa: F401  (deferred as above: issue() needs it)


def issue(data: dict[str, Any]) -> dict[str, Any]:
    """``data`` as a certificate the independent checker's schema accepts: the numbers of
    ``statement`` and ``evidence`` in the canonical exact form (floats, hexadecimal
    floats, Fraction, fmpq, Decimal, integers where an exact number is required: their
    exact value as ``"p/q"``; docs/certificates.md, *Numbers*), then validated against the
    schema of its kind (:func:`dpverify.verify.load.schema_errors`).

    Guarantee: the returned document (a new one; ``data`` is not changed below its top
    level) passes the checker's schema; otherwise
    :class:`~dpverify.errors.InvalidParameterError` names the first field it refuses.

    Examples
    --------
    >>> from fractions import Fraction
    >>> doc = {"schema_version": 1, "format": "dpverify-certificate",
    ...        "kind": "lebesgue-constant", "statement": {"k": 1, "h": 1,
    ...        "lower": 1, "upper": Fraction(3, 2)}, "evidence": {"witness": 0.5,
    ...        "pieces": [["0", "0x1p-1"]]}}
    >>> out = issue(doc)
    >>> out["statement"]["lower"], out["statement"]["upper"], out["evidence"]
    ('1', '3/2', {'witness': '1/2', 'pieces': [['0', '1/2']]})
    """
    # deferred: the checker's schema needs jsonschema (~40 ms at start-up), which a
    # command that writes no certificate never loads
    from jsonschema.exceptions import best_match

    # deferred: the checker is a separate program, loaded when a certificate is issued
    from ..verify.load import number_def, schema_document, schema_errors

    if not isinstance(data, dict):
        raise MalformedCertificate(f"a certificate is a JSON object, got {type(data).__name__}")
    out = dict(data)
    for block in ("statement", "evidence"):
        if block in out:
            out[block] = exact_numbers(out[block], block)
    number = number_def()
    folded = _folded(out, number, schema_document(out))
    if folded is not None and not schema_errors(folded):
        return out  # a long evidence list checked once per distinct skeleton
    for _ in range(_REPAIRS):
        errors = schema_errors(out)
        if not errors:
            return out
        repaired = False
        for err in _errors(errors):
            path = list(err.absolute_path)
            if err.schema != number or len(path) < 2 or path[0] not in ("statement",
                                                                          "evidence"):
                continue
            value = _as_number(err.instance)
            if value is not None and value != err.instance:
                _put(out, path, value)
                repaired = True
        if not repaired:
            break
    err = best_match(schema_errors(out))
    if err is None:  # the last pass repaired everything
        return out
    raise InvalidParameterError(
        f"certificate field {err.json_path[2:] or '(document)'}: {err.message[:160]} (the "
        "independent checker's schema refuses it; docs/certificates.md)")


def _dec_up(text: Any, digits: int = 6) -> str:
    """An exact number (``"p/q"`` or decimal text) as a short decimal rounded up."""
    # function-level: dpverify.numbers loads python-flint (~36 ms with -X importtime); the
    # CLI imports this module to write every command's output, most never need this
    from ..numbers import fmpq_to_decimal, parse_exact

    return fmpq_to_decimal(parse_exact(str(text)), digits, rounding="up")


def _short_domain(dom: Any) -> str:
    if not isinstance(dom, dict):
        return "?"
    kind = dom.get("kind")
    if kind == "integers":
        return f"{{{dom.get('lo')}..{dom.get('hi')}}}"
    if kind == "points":
        return f"{len(dom.get('points') or [])} points"
    if kind == "box":
        ivals = dom.get("intervals") or []
        parts = [f"[{a}, {b}]" for a, b in ivals[:3]]
        text = " x ".join(parts)
        return text if len(text) <= 60 else f"box of {len(ivals)} intervals"
    return str(kind)[:20]


def _summary(data: dict[str, Any], complete: bool) -> dict[str, str]:
    kind = str(data.get("kind"))
    st = data.get("statement") or {}
    poly = st.get("polynomial") or {}
    degree = poly.get("degree", st.get("degree", "?"))
    if kind == "lebesgue-constant":
        bound = _dec_up(st["upper"])  # of the Lebesgue constant
        domain = "[0, 1]"
        degree = st.get("k", "?")
    elif kind == "jackson-kernel":
        bound = "n/a"  # exact coefficients, no error bound
        domain = "[-pi, pi]"
    elif kind in ("evalbound", "float-error"):  # a bound on binary64 evaluation
        bound = _dec_up(st["bound"])
        degree = len(poly.get("coefficients") or []) - 1
        domain = _short_domain({"kind": "box", "intervals": [st.get("interval")]})
    else:
        err = st.get("error") or {}
        bound = f"{_dec_up(err['upper'])}" if "upper" in err else "?"
        domain = _short_domain(st.get("domain"))
    if isinstance(degree, list):
        degree = "x".join(str(d) for d in degree)
    return {"kind": kind[:40], "degree": str(degree)[:20], "bound": bound,
            "domain": domain, "complete": str(complete)}
