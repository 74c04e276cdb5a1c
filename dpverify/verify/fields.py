"""Every statement field of every certificate kind, and the checks that consume it.

The promise of the format is that **every field of a statement is checked**
(docs/certificates.md).  It holds by construction: the JSON Schema of each kind refuses
any field it does not list (``additionalProperties: false`` on every object of a
statement), and :data:`FIELDS` names, for each field the schema accepts, the check of the
report that reads it.  ``tests/test_trust_fields.py`` walks the schema of every kind of
:data:`~dpverify.verify.check.KINDS` (:func:`schema_fields`) and fails, naming the kind and
the field, when a field is accepted but absent from this table, when an object of a
statement accepts unlisted fields, when an entry names a check the checker never makes,
or when an entry is stale; the generated forgeries of ``tests/test_trust_forgery.py`` edit
every listed field of every kind, and transplant every field of one kind into every other,
and require each edit to fail unless the edited statement is still true.

A field is written as the path of its keys below ``statement`` joined by ``.``
(``construction.params.gamma``); ``[]`` stands for the items of a list of objects.  A list
of numbers or of intervals is one field, and so is a map from names to plain values (the
``functions`` of a ``roundoff`` statement: ``additionalProperties`` a schema of values, no
listed properties).  A field the schema pins to one value given the others
(``arithmetic`` given ``scheme`` and ``format``, ``target.kind`` of a ``minimax``
statement) is consumed by :data:`SCHEMA`.  A kind with two forms (``float-error``: two
parts, or a bisection tree) has one table, the union of both.  A check name in the table
may hold ``...`` for text the report fills in (a weight's expression: :func:`check_matches`).

How to add a statement field
----------------------------
1. Add it to the kind's schema (``schema/certificate-v1.json`` or the kind's own file of
   :data:`~dpverify.verify.load.KIND_SCHEMAS`) with a closed object schema
   (``additionalProperties: false``) if it is an object.
2. Read it in the kind's checker and make a check that decides it (``ck.run(NAME, ...)``).
3. Add one line to the kind's table below: ``"weight": ("upper: sup |f - p| <= upper on
   every piece",),`` -- the path, then the names of the checks that consume it, exactly as
   the report prints them.  A field of a shared block (``polynomial``, ``target``,
   ``domain``, ``error``) goes in that block's table (:func:`_polynomial`, :data:`_TARGET`
   ...) when every kind that has the block accepts it, else in the kind's table with its
   full path (``"target.weight": (...)``).
4. Run ``python -m pytest tests/test_trust_fields.py``: it names any field still missing.

A new kind: add its checker to :data:`~dpverify.verify.check.KINDS`, its schema file to
``KIND_SCHEMAS`` if it has one, and its table to :data:`FIELDS`.

Walking the schema (:func:`~.schema_walk.schema_fields`, module :mod:`.schema_walk`)
follows every keyword the schemas use and refuses any other, so a schema change it cannot
follow fails the test instead of hiding a field.
"""

from __future__ import annotations

import re

from .schema_walk import Leaf, SchemaWalkError, schema_fields

__all__ = ["SCHEMA", "FIELDS", "SchemaWalkError", "Leaf", "schema_fields", "problems",
           "check_matches"]

#: the pseudo-check of a field that the schema pins to one value given the other fields
SCHEMA = "schema"

# the report's check names, once each (a typo here is caught by the test of the table)
_DEG, _L1, _LOG2 = "polynomial degree", "coefficient l1 norm", "coefficient l1_log2"
_ORDER, _MAXE, _DEC = "0 <= lower <= upper", "upper <= max_error", "upper_decimal"
_FSUP, _FWIT = "sup |f - p| <= upper", "witness: |f - p| >= lower"
_BSUP, _BCOVER = "sup |f - p| <= upper on every piece", "pieces cover the box"
_CON = ("construction parameters", "construction target", "construction domain",
        "construction max_error", "construction polynomial")
_MSUP, _MALT = "upper: sup |f - p| <= upper on every piece", \
    "lower: f - p alternates (de la Vallee Poussin)"
_EBOUND = "|fl(p(x)) - p(x)| <= bound on every piece (claims proven)"
_ECOVER = "pieces cover the binary64 numbers of [A, B]"
_PA, _PE = "part approximation is about this statement", "part evaluation is about this statement"
_SUM = "approximation_error + evaluation_error <= bound"
_FAM, _ANN = "p is in the family", "lower: annihilating weights (de la Vallee Poussin)"
_WALT = "lower: f - p alternates (weighted de la Vallee Poussin)"
_WSUP = "upper: sup |(f - p)/f| <= upper on every piece"
_WBSUP, _WBWIT = "sup |(f - p)/f| <= upper on every piece", "witness: |(f - p)/f| >= lower"
# a weight expression: the report names it ("..." stands for its text: check_matches)
_WESUP = "upper: sup |w (f - p) with w = ...| <= upper on every piece"
_WBESUP = "sup |w (f - p) with w = ...| <= upper on every piece"
_WBEWIT = "witness: |w (f - p) with w = ...| >= lower"
# every check of a minimax statement that evaluates f - p: lower and upper sides
_MLOW, _MUP = (_MALT, _WALT, _ANN), (_MSUP, _WSUP, _WESUP)
_BUP, _BLOW = (_BSUP, _WBSUP, _WBESUP), (_FWIT, _WBWIT, _WBEWIT)
# the tree form of float-error (verify/scheme_error.py) and kind roundoff (verify/roundoff.py)
_TSUM = "every piece: sup |f - p| + rounding bound <= bound"
_TROOT = "evidence.root covers the floats of [A, B]"
_RBOX, _RROOT = "every box's bound <= bound", "evidence.root covers the inputs"


def _polynomial(*value_checks: str, tensor: bool = False) -> dict[str, tuple[str, ...]]:
    """The ``polynomial`` block (docs/certificates.md, *Polynomials*): ``value_checks``
    are the kind's checks that evaluate ``p``."""
    out = {
        "basis": (_DEG, _L1, *value_checks),
        "domain": (_DEG, *value_checks),
        "coefficients": (_DEG, _L1, *value_checks),
        "degree": (_DEG,),
        "coefficient_norm.l1": (_L1, _LOG2),
        "coefficient_norm.l1_log2": (_LOG2,),
    }
    if tensor:  # a tensor-product polynomial: one domain per variable, shape, degrees
        out.update({"shape": (_DEG, _L1, *value_checks), "domains": (_DEG, *value_checks)})
    return out


_TARGET: dict[str, tuple[str, ...]] = {
    "kind": (_FSUP, _FWIT),
    "r": (_FSUP, _FWIT, "construction target"),
    "l": (_FSUP, _FWIT, "construction target"),
    "values": (_FSUP, _FWIT),
    "expr": (_FSUP, _FWIT),
    "variables": (_FSUP, _FWIT),
}
_DOMAIN: dict[str, tuple[str, ...]] = {
    "kind": (_FSUP, _FWIT, "construction domain"),
    "lo": (_FSUP, _FWIT, "construction domain"),
    "hi": (_FSUP, _FWIT, "construction domain"),
    "points": (_FSUP, _FWIT),
}
_PARAMS: dict[str, tuple[str, ...]] = {
    "k": _CON,
    "gamma": ("construction parameters", "construction max_error", "construction polynomial"),
    "r": _CON,
    "l": _CON,
    "method": ("construction polynomial", "construction least_degree"),
    "reading.delta": ("construction polynomial",),
    "reading.d": ("construction polynomial",),
    "reading.log_base": ("construction polynomial",),
    "reading.ell_range": ("construction polynomial",),
}


def _block(prefix: str, table: dict[str, tuple[str, ...]]) -> dict[str, tuple[str, ...]]:
    return {f"{prefix}.{key}": checks for key, checks in table.items()}


#: kind -> statement field -> the checks that consume it (see the module docstring)
FIELDS: dict[str, dict[str, tuple[str, ...]]] = {
    "supnorm-finite": {
        **_block("polynomial", _polynomial(_FSUP, _FWIT, "construction polynomial")),
        **_block("target", _TARGET),
        **_block("domain", _DOMAIN),
        "error.lower": (_ORDER, _FWIT),
        "error.upper": (_ORDER, _FSUP),
        "error.upper_decimal": (_DEC,),
        "max_error": (_MAXE, "least degree", "construction max_error"),
        "least_degree.pin.x": ("least degree", "construction least_degree"),
        "least_degree.pin.value": ("least degree", "construction least_degree"),
        "construction.name": _CON,
        **_block("construction.params", _PARAMS),
    },
    "supnorm-box": {
        **_block("polynomial", _polynomial(*_BUP, *_BLOW, tensor=True)),
        "target.kind": (SCHEMA,),
        "target.expr": (*_BUP, *_BLOW),
        "target.variables": (*_BUP, *_BLOW),
        "domain.kind": (SCHEMA,),
        "domain.intervals": (_BCOVER, *_BUP, *_BLOW, "requested intervals inside the stated ones"),
        "error.lower": (_ORDER, *_BLOW),
        "error.upper": (_ORDER, *_BUP),
        "error.upper_decimal": (_DEC,),
        "max_error": (_MAXE,),
        # the interval as asked (constant expressions) and the outward rounding that the
        # stated intervals are (verify/requested.py)
        "domain.requested": ("requested intervals inside the stated ones",
                             "witness inside the requested intervals"),
        "domain.rounding": ("requested intervals inside the stated ones",),
        # a weighted error w (f - p) (relative: w = 1/f), checked by verify/weighted_box.py
        "weight.kind": (_WBSUP, _WBWIT, _WBESUP, _WBEWIT),
        "weight.expr": (_WBESUP, _WBEWIT),
        "weight.variables": (_WBESUP, _WBEWIT),
    },
    "jackson-kernel": {
        "t": ("t' = floor(t/r) + 1", "coefficients 2 pi a_l", "multipliers w_n"),
        "r": ("t' = floor(t/r) + 1", "coefficients 2 pi a_l", "r = ceil((K+3)/2)"),
        "K": ("r = ceil((K+3)/2)", "multipliers w_n", "multipliers"),
        "t_prime": ("t' = floor(t/r) + 1", "degree = r (t' - 1)"),
        "degree": ("degree = r (t' - 1)", "coefficients 2 pi a_l"),
        "coefficients_2pi": ("coefficients 2 pi a_l",),
        "multipliers": ("multipliers w_n", "multipliers"),
    },
    "lebesgue-constant": {
        "k": ("Lambda <= upper", "witness: U >= lower", "basis"),
        "h": ("Lambda <= upper", "witness: U >= lower", "basis"),
        "lower": ("lower <= upper", "witness: U >= lower"),
        "upper": ("lower <= upper", "Lambda <= upper"),
        "basis": ("basis",),
    },
    "minimax": {
        **_block("polynomial", _polynomial(*_MUP, *_MLOW, _FAM)),
        "target.kind": (SCHEMA,),
        "target.expr": (*_MLOW, *_MUP),
        "target.variables": (*_MLOW, *_MUP),
        "domain.kind": (SCHEMA,),
        "domain.intervals": (*_MLOW, "pieces cover the interval", *_MUP),
        "degree": ("degree of p <= N", *_MLOW),
        "error.lower": (_ORDER, *_MLOW),
        "error.upper": (_ORDER, *_MUP),
        "error.upper_decimal": (_DEC,),
        "max_error": (_MAXE, "least_degree needs max_error", "least_degree.lower > max_error"),
        "least_degree.lower": ("least_degree.lower > max_error",
                               "least_degree: f - q alternates (de la Vallee Poussin)",
                               "least_degree: f - q alternates (weighted de la Vallee Poussin)",
                               "least_degree: annihilating weights for q (de la Vallee "
                               "Poussin)"),
        # the weighted error w (f - p) (relative: w = 1/f) and the family of polynomials
        "weight.kind": (_WALT, _ANN, _WSUP, _WESUP),
        "weight.expr": (_WALT, _ANN, _WESUP),
        "weight.variables": (_WALT, _ANN, _WESUP),
        "monomials": (_FAM, _ANN, "least_degree: q is in the family without its top power"),
        "fixed[].power": (_FAM, _ANN, "least_degree: q is in the family without its top power"),
        "fixed[].value": (_FAM, _ANN),
    },
    "evalbound": {
        "scheme": (_EBOUND,),
        "arithmetic": (SCHEMA,),  # given scheme and format
        "format": (_ECOVER, _EBOUND),
        "polynomial.basis": (SCHEMA,),
        "polynomial.domain": (_EBOUND,),
        "polynomial.coefficients": (_EBOUND,),
        "interval": (_ECOVER, _EBOUND),
        "bound": (_EBOUND,),
        "bound_decimal": ("bound_decimal",),
    },
    # two forms: two parts as evidence (binary64, horner/clenshaw) and a bisection tree
    # (schemes of docs/certificates.md, binary32, relative errors, ulps): one table
    "float-error": {
        "scheme": (_PE, _TSUM),
        "arithmetic": (SCHEMA,),  # given scheme (and format)
        "polynomial.basis": (SCHEMA,),
        "polynomial.domain": (_PA, _PE),
        "polynomial.coefficients": (_PA, _PE, _TSUM),
        "interval": (_PA, _PE, _TROOT, _TSUM),
        "target.kind": (SCHEMA,),
        "target.expr": (_PA, _TSUM),
        "target.variables": (_PA, _TSUM),
        "bound": (_SUM, "bound <= ulps x ulp(f_lower)", _TSUM),
        "bound_decimal": ("bound_decimal",),
        "approximation_error": (_SUM, _PA, "|f| >= f_lower (from min |p| - approximation_error)"),
        "evaluation_error": (_SUM, _PE),
        "ulps.ulps": ("bound <= ulps x ulp(f_lower)",),
        "ulps.f_lower": ("bound <= ulps x ulp(f_lower)",
                         "|f| >= f_lower (from min |p| - approximation_error)"),
        "parity": (_TSUM,),
        "format": (_TROOT, _TSUM),
        "error": (_TSUM,),
    },
    "roundoff": {
        "program": (_RBOX,),
        "format": (_RROOT, _RBOX),
        "rounding": (SCHEMA,),
        "inputs": (_RROOT, _RBOX),
        # a map from each function the program calls to its accuracy (every name called,
        # no other: verify/roundoff.py read_model)
        "functions": (_RBOX,),
        "box": (_RROOT, "inputs"),
        "error": (_RBOX,),
        "bound": (_RBOX,),
    },
}


def check_matches(name: str, made: str) -> bool:
    """Is ``made``, the name of a check in a report, the check a table entry ``name``
    names (``...`` in ``name`` stands for any text: a weight expression)?

    Examples
    --------
    >>> check_matches("witness: |w (f - p) with w = ...| >= lower",
    ...               "witness: |w (f - p) with w = (1 + x)| >= lower")
    True
    >>> check_matches("witness: |(f - p)/f| >= lower", "witness: |f - p| >= lower")
    False
    """
    parts = name.split("...")
    return re.fullmatch(".+".join(re.escape(p) for p in parts), made) is not None


def problems(kinds: list[str]) -> list[str]:
    """Every way the schemas of ``kinds`` and :data:`FIELDS` disagree, one line each (empty:
    every field a schema accepts is consumed by a check of the table)."""
    out = []
    for kind in kinds:
        table = FIELDS.get(kind)
        try:
            fields = schema_fields(kind)
        except SchemaWalkError as exc:
            out.append(f"kind {kind}: the schema cannot be walked: {exc}")
            continue
        if table is None:
            out.append(f"kind {kind}: no table in FIELDS (dpverify/verify/fields.py); its "
                       f"statement fields are {', '.join(sorted(fields))}")
            continue
        for path in sorted(fields):
            if path == "*" or path.endswith(".*"):
                where = path[:-2] or "statement"
                out.append(f"kind {kind}: statement object {where!r} accepts any field: give "
                           "it additionalProperties: false in the schema")
            elif path not in table:
                out.append(f"kind {kind}: statement field {path!r} is neither consumed by a "
                           f"check nor refused by the schema: add the line \"{path}\": "
                           f"(\"<name of the check that reads it>\",), to FIELDS[{kind!r}] in "
                           "dpverify/verify/fields.py, or refuse it in the schema")
            elif SCHEMA in table[path] and not all(leaf.const[0] for leaf in fields[path]
                                                   if leaf.types != {"null"}):
                out.append(f"kind {kind}: statement field {path!r} is marked as pinned by the "
                           "schema, but the schema admits more than one value")
        for path in sorted(set(table) - set(fields)):
            out.append(f"kind {kind}: FIELDS entry {path!r} is not a field the schema accepts "
                       "(stale: remove it, or add the field to the schema)")
    return out


if __name__ == "__main__":  # python -m dpverify.verify.fields: the table against the schemas
    from .check import KINDS

    for line in problems(list(KINDS)) or ["every statement field is consumed or refused"]:
        print(line)
