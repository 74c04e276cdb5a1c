"""Which fields of a data file each embedded certificate vouches for.

A data file (``"format": "dpverify-data"``: a release, a privacy record, an answer) is not
a certificate, but it may embed certificates under ``parts`` (``dpverify verify FILE
--part NAME``).  A part proves its own statement; the file around it repeats some of
that statement in fields a reader acts on (the polynomial a release was built from, its
``k``, its error).  :data:`BINDINGS` lists, per data-file kind and part, which top-level
fields are the part's statement, and :func:`bound_checks` compares each of them exactly
with the part: editing either the file's field or the part's statement breaks
``--part`` (the check is named ``file: FIELD``).  A data file whose kind has no entry
is reported as undecided: nothing says which of its fields the part vouches for.

A binding is ``(file field, statement field, comparison)``; fields are paths of keys
joined by ``.`` (the file's from its top level, the statement's below ``statement``);
the comparisons are those of :data:`COMPARISONS`.  A new data file with parts (or a new
field of one that repeats its part): add a line to its entry, and a case to
``tests/test_trust_bindings.py``, which edits every bound field of every kind.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from flint import fmpq, fmpq_poly

from .numbers import budget_for, digit_budget, read_exact, show
from .poly import read_interval, to_monomial_1d
from .report import Malformed, TooExpensive, one_line

__all__ = ["BINDINGS", "COMPARISONS", "MAX_CONVERTED", "binding_of", "bound_checks"]

_KEY = tuple[str, str | None]

#: (data-file ``kind``, its ``mechanism`` or None) -> part name -> (file field, statement
#: field, comparison)
BINDINGS: dict[tuple[str, str | None], dict[str, tuple[tuple[str, str, str], ...]]] = {
    # dpverify tuv-release (thaler2012 Theorem 3.1/3.2): the noisy coordinates are built
    # from g's coefficients; k, r, the error and gamma are the certificate's
    ("tuv-release", "tuv-release"): {"polynomial": (
        ("k", "domain.hi", "int"),
        ("k", "construction.params.k", "int"),
        ("r", "target.r", "int"),
        ("polynomial.construction", "construction.name", "name"),
        ("polynomial.coefficients", "polynomial", "polynomial"),
        ("polynomial.degree", "polynomial.degree", "int"),
        ("polynomial.error_exact", "error.upper", "number"),
        ("polynomial.gamma", "max_error", "number"),
        ("polynomial.certified", "max_error", "present"),
        ("accuracy.gamma_exact", "error.upper", "number"),
    )},
    # dpverify tuv-release --dlists (thaler2012 Theorem 1.3): h_k of Lemma 4.9
    ("tuv-release", "tuv-dlist-release"): {"polynomial": (
        ("k", "domain.hi", "int"),
        ("k", "construction.params.k", "int"),
        ("polynomial.construction", "construction.name", "name"),
        ("polynomial.h_coefficients", "polynomial", "polynomial"),
        ("polynomial.h_degree", "polynomial.degree", "int"),
        ("polynomial.gamma", "construction.params.gamma", "number"),
        ("polynomial.h_error_exact", "error.upper", "number"),
        ("polynomial.certified", "max_error", "present"),
    )},
    # dpverify privacy tuv: the record's polynomial summary and its accuracy plan
    ("privacy", "tuv"): {"polynomial": (
        ("polynomial.construction", "construction.name", "name"),
        ("polynomial.degree", "polynomial.degree", "int"),
        ("polynomial.error_exact", "error.upper", "number"),
        ("polynomial.certified", "max_error", "present"),
        ("accuracy_plan.k", "domain.hi", "int"),
        ("accuracy_plan.r", "target.r", "int"),
        ("accuracy_plan.gamma_exact", "error.upper", "number"),
    )},
    # dpverify privacy dlist: the record repeats nothing of h_k (its sensitivity is
    # derived from h_k by formulas, re-derived by the same command)
    ("privacy", "tuv-dlist"): {"polynomial": ()},
    # dpverify release bernstein --query-expr: the query program's certified float error
    # (the sensitivity uses it); the program, format, input model and box it is about
    ("release", "bernstein"): {"float_error": (
        ("function_params.program", "program", "text"),
        ("function_params.format", "format", "text"),
        ("function_params.inputs", "inputs", "text"),
        ("function_params.error", "error", "text"),
        ("function_params.box", "box", "box"),
        ("privacy.evaluation.float_error", "bound", "number"),
    )},
    # dpverify answer --query (wang2013 Algorithm 2): the query's approximation and its
    # certified error; alpha adds the noise term (a formula, not a certificate kind)
    ("answer", None): {"approximation": (
        ("query", "target.expr", "text"),
        ("approximation_error", "error.upper", "number"),
        ("coefficient_l1", "polynomial", "l1 without the constant"),
    )},
}


def _get(doc: Any, path: str) -> tuple[bool, Any]:
    """``(True, value)`` at the dotted ``path`` of ``doc``, ``(False, None)`` if absent."""
    for key in path.split("."):
        if not isinstance(doc, dict) or key not in doc:
            return False, None
        doc = doc[key]
    return True, doc


def _int(mine: Any, theirs: Any) -> bool:
    return type(mine) is int and type(theirs) is int and mine == theirs


def _number(mine: Any, theirs: Any) -> bool:
    return read_exact(mine, "file") == read_exact(theirs, "statement")


def _name(mine: Any, theirs: Any) -> bool:
    """The file names the part's construction, optionally followed by a blank and words
    (``dlist/h (Appendix A)``)."""
    return isinstance(mine, str) and isinstance(theirs, str) and (
        mine == theirs or mine.startswith(theirs + " "))


def _text(mine: Any, theirs: Any) -> bool:
    return isinstance(mine, str) and mine == theirs


def _present(mine: Any, theirs: Any) -> bool:
    """The file's ``certified`` flag says whether the part states ``max_error`` (the
    claim the construction asked for was proven)."""
    return type(mine) is bool and mine == (theirs is not None)


def _exact_list(v: Any, where: str) -> list[fmpq]:
    if not isinstance(v, list) or not v or len(v) > 200_001:
        raise Malformed(f"{where}: expected a list of exact numbers")
    return [read_exact(c, where) for c in v]


#: the largest polynomial in another basis that a binding converts to the monomial basis
#: (the conversion runs outside the part's deadline; the writers bind monomial parts)
MAX_CONVERTED = 2000


def _polynomial(mine: Any, theirs: Any) -> bool | None:
    """The file's monomial coefficients (lowest degree first) are the part's polynomial,
    whatever its basis (compared as exact polynomials; undecided for a polynomial in
    another basis of more than :data:`MAX_CONVERTED` coefficients)."""
    if not isinstance(theirs, dict) or "shape" in theirs:
        return False
    basis, dom = theirs.get("basis"), theirs.get("domain")
    if basis not in ("monomial", "chebyshev", "bernstein"):
        return False
    cs = _exact_list(theirs.get("coefficients"), "statement.polynomial.coefficients")
    if basis != "monomial" and len(cs) > MAX_CONVERTED:
        return None
    interval = None if dom is None else read_interval(dom, "statement.polynomial.domain")
    return fmpq_poly(_exact_list(mine, "file")) == to_monomial_1d(basis, cs, interval)


def _l1_tail(mine: Any, theirs: Any) -> bool:
    """``sum |c_i|`` over the part's coefficients but the first (the constant term, which
    a moment summary answers exactly), in the part's own basis."""
    if not isinstance(theirs, dict):
        return False
    cs = _exact_list(theirs.get("coefficients"), "statement.polynomial.coefficients")
    return read_exact(mine, "file") == sum((abs(c) for c in cs[1:]), fmpq(0))


def _box(mine: Any, theirs: Any) -> bool:
    """The same list of intervals ``[lo, hi]``, endpoints equal as exact numbers."""
    if not isinstance(mine, list) or not isinstance(theirs, list) or \
            len(mine) != len(theirs) or len(mine) > 64:
        return False
    for a, b in zip(mine, theirs):
        if not (isinstance(a, list) and isinstance(b, list) and len(a) == len(b) == 2):
            return False
        if any(read_exact(x, "file") != read_exact(y, "statement") for x, y in zip(a, b)):
            return False
    return True


#: comparison name -> (file value, statement value) -> equal? (None: undecided)
COMPARISONS: dict[str, Callable[[Any, Any], bool | None]] = {
    "int": _int, "number": _number, "name": _name, "text": _text, "present": _present,
    "polynomial": _polynomial, "l1 without the constant": _l1_tail, "box": _box}


def binding_of(doc: Any) -> tuple[_KEY, dict[str, tuple[tuple[str, str, str], ...]] | None]:
    """The key of a data document in :data:`BINDINGS` and its entry (None: not listed)."""
    kind = doc.get("kind") if isinstance(doc, dict) else None
    mech = doc.get("mechanism") if isinstance(doc, dict) else None
    key: _KEY = (kind if isinstance(kind, str) else "?", mech if isinstance(mech, str) else None)
    return key, BINDINGS.get(key)


def _show(value: Any) -> str:
    if isinstance(value, str):
        try:
            return show(read_exact(value, "value"))
        except Malformed:
            return one_line(repr(value), 60)
    if isinstance(value, dict):
        return "{...}"
    return one_line(repr(value), 60)


def bound_checks(doc: Any, name: str, size: int = 0
                 ) -> tuple[list[str], list[tuple[str, bool | None, str]]]:
    """The statement lines and checks binding the part ``name`` of the data document
    ``doc`` to the file's own fields (:data:`BINDINGS`).  Never raises on a hostile
    document: a value that cannot be read makes its check false.  The numbers read may
    expand to the digit budget of a certificate of ``size`` bytes (that of the file).

    Examples
    --------
    >>> doc = {"format": "dpverify-data", "kind": "answer", "query": "x", "parts": {
    ...     "approximation": {"statement": {"target": {"expr": "x"}, "error": {
    ...         "upper": "1/2"}, "polynomial": {"coefficients": ["0", "1"]}}}},
    ...     "approximation_error": "0.5", "coefficient_l1": "1"}
    >>> [(n, ok) for n, ok, _ in bound_checks(doc, "approximation")[1]]
    [('file: query', True), ('file: approximation_error', True), ('file: coefficient_l1', True)]
    >>> doc["approximation_error"] = "0.4"
    >>> bound_checks(doc, "approximation")[1][1][:2]
    ('file: approximation_error', False)
    """
    key, entry = binding_of(doc)
    if entry is None or name not in entry:
        where = f"{key[0]}" + ("" if key[1] is None else f", mechanism {key[1]}")
        return [f"Bound: no field of this data file ({one_line(where, 80)}) is listed as "
                f"vouched for by part {one_line(name, 40)}."], [(
                    "file bound to the part", None,
                    f"data files of kind {one_line(where, 80)} have no binding table "
                    "(dpverify/verify/bindings.py): the file's other fields are not "
                    "vouched for by the part")]
    part = doc["parts"][name]
    st = part.get("statement") if isinstance(part, dict) else None
    binds = entry[name]
    if not binds:
        return [f"Bound: no field of this data file repeats part {name}'s statement."], []
    fields = ", ".join(dict.fromkeys(b[0] for b in binds))
    lines = [f"Bound: the file's {fields} are those of this part's statement."]
    with digit_budget(budget_for(size)):
        checks = [_bind(doc, st, field_path, st_path, how) for field_path, st_path, how in binds]
    return lines, checks


def _bind(doc: Any, st: Any, field_path: str, st_path: str, how: str
          ) -> tuple[str, bool | None, str]:
    """One check of :func:`bound_checks`."""
    has, mine = _get(doc, field_path)
    there, theirs = _get(st, st_path)
    label = f"file: {field_path}"
    if not has:
        return label, False, "absent from the file"
    if not there and how != "present":
        return label, False, f"the part's statement has no {st_path}"
    try:
        ok = COMPARISONS[how](mine, theirs)
    except TooExpensive as exc:
        return label, None, one_line(str(exc), 160)
    except (Malformed, ValueError, TypeError, ZeroDivisionError) as exc:
        return label, False, one_line(f"not comparable: {exc}", 160)
    if ok is None:
        return label, None, f"too large to compare here (over {MAX_CONVERTED} coefficients)"
    if how == "present":
        why = (f"{_show(mine)}; the statement "
               f"{'states' if theirs is not None else 'does not state'} {st_path}")
    else:
        why = f"{_show(mine)} {'==' if ok else '!='} statement.{st_path}" + (
            "" if how in ("polynomial", "l1 without the constant", "box")
            else f" = {_show(theirs)}")
    return label, ok, one_line(why, 200)
