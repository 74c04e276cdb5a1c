"""Independent re-check of a certificate from its JSON alone.

Deliberately small and self-contained: it shares no code with the
construction modules or with the certifiers (:mod:`.finite`, :mod:`.interval`);
it uses only the exact kernel (:mod:`dpverify.exact`), the expression parser
(:mod:`dpverify.expr`), exact number I/O (:mod:`dpverify.numbers`) and
python-flint.  It trusts nothing in the certificate but the polynomial, the
target and the domain: degree, coefficient norm, error enclosure, claim
statuses and attached proofs are all recomputed.

What is checked
---------------
* degree and coefficient norm, exactly;
* finite domains: |f - p| at every point, exactly (or by balls for irrational
  targets), against the stated maximum / enclosure;
* boxes: the listed pieces cover the box (1-D: they tile it; d >= 2: they lie
  in it, their interiors are disjoint and their volumes add up to the box's);
  on every piece an independent Taylor / mean-value bound is at most the stated
  ``upper``; at the witness ``|f - p| >= lower``;
* every claim status follows from the (checked) enclosure; ``verified`` is true
  only if every claim is proven;
* attached proofs (``optimality``) through their own small checkers.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from typing import Any

from flint import arb, arb_series, ctx, fmpq, fmpq_poly

from ..errors import DPVerifyError, MalformedCertificate
from ..numbers import arb_to_fmpq_bounds, parse_fmpq_str
from .jets import series_cap, series_coeffs

__all__ = ["VerifyReport", "verify_certificate"]


@dataclass
class VerifyReport:
    ok: bool = True
    checks: list[tuple[str, bool, str]] = field(default_factory=list)

    def add(self, name: str, ok: bool, detail: str = "") -> None:
        self.checks.append((name, bool(ok), detail))
        self.ok = self.ok and bool(ok)

    def failures(self) -> list[str]:
        return [f"{n}: {d}" for n, ok, d in self.checks if not ok]


def _q(s: Any, what: str) -> fmpq:
    try:
        return parse_fmpq_str(s, what)
    except DPVerifyError as exc:
        raise MalformedCertificate(f"{what}: {exc}") from None


def _hi(x: arb) -> fmpq:
    return arb_to_fmpq_bounds(x)[1]


def _abs_lo(x: arb) -> fmpq:
    lo, hi = arb_to_fmpq_bounds(x)
    return lo if lo > 0 else (-hi if hi < 0 else fmpq(0))


def _load_poly(c: dict[str, Any]):
    from ..exact import poly_from_json

    obj = {k: c[k] for k in ("basis", "coefficients", "domain", "domains", "shape") if k in c}
    try:
        return poly_from_json(obj)
    except DPVerifyError as exc:
        raise MalformedCertificate(f"polynomial fields: {exc}") from None


def _target_at(target: dict[str, Any], i: int, x: fmpq):
    k = target.get("kind")
    if k == "threshold":
        return fmpq(int(x >= _q(target["r"], "target.r")))
    if k == "indicator":
        return fmpq(int(x == _q(target["l"], "target.l")))
    if k == "values":
        return _q(target["values"][i], f"target.values[{i}]")
    raise MalformedCertificate(f"unsupported finite target kind {k!r}")


def _points(dom: dict[str, Any]) -> list[fmpq]:
    if dom.get("kind") == "integers":
        lo, hi = int(dom["lo"]), int(dom["hi"])
        if hi - lo > 10_000_000:
            raise MalformedCertificate("domain too large to re-check")
        return [fmpq(i) for i in range(lo, hi + 1)]
    return [_q(p, "domain.points") for p in dom["points"]]


def _check_finite(c: dict, P: fmpq_poly, rep: VerifyReport) -> tuple[fmpq, fmpq]:
    err = c["error"]
    pts = _points(err["domain"])
    tgt = err["target"]
    lo_c, up_c = _q(err["lower"], "error.lower"), _q(err["upper"], "error.upper")
    if tgt.get("kind") == "expr":
        from ..expr import parse

        f = parse(tgt["expr"], variables=tuple(tgt.get("variables") or ("x",)))
        worst_lo, ok_all = fmpq(0), True
        for x in pts:
            v = f.eval_exact(x)
            if v is not None:
                e = abs(v - P(x))
                elo = ehi = e
            else:
                with ctx.workprec(512):
                    b = abs(f.eval_arb(arb(x)) - arb(P(x)))
                elo, ehi = _abs_lo(b), _hi(b)
            worst_lo = max(worst_lo, elo)
            ok_all = ok_all and ehi <= up_c
        rep.add("finite: every point within upper", ok_all, f"upper {err['upper']}")
        rep.add("finite: lower attained", worst_lo >= lo_c, f"best point value {worst_lo}")
        return lo_c, up_c
    worst = fmpq(0)
    for i, x in enumerate(pts):
        worst = max(worst, abs(_target_at(tgt, i, x) - P(x)))
    if err.get("exact"):
        rep.add(
            "finite: exact maximum",
            worst == lo_c == up_c,
            f"recomputed {worst}, stated [{err['lower']}, {err['upper']}]",
        )
    else:
        rep.add("finite: enclosure", lo_c <= worst <= up_c, f"recomputed {worst}")
    return lo_c, up_c


# ---------------------------------------------------------------- boxes ----
def _tensor_shift(mono, m: tuple[fmpq, ...]) -> dict[tuple[int, ...], fmpq]:
    """Exact coefficients of p(m + h) (``dpverify.exact`` Taylor shift), non-zeros only."""
    shifted = mono.taylor_shift(m)
    idx = itertools.product(*map(range, shifted.shape))
    return {i: fmpq(v) for i, v in zip(idx, shifted.coeffs) if v != 0}


def _hull(a: fmpq, b: fmpq) -> arb:
    return arb(a).union(arb(b))


def _piece_bound(f, shifted: dict, box, order: int) -> fmpq | None:
    """Upper bound of |f - p| on one piece; ``shifted`` = p(m + h) exactly."""
    from ..expr import NotAnalytic

    d = len(box)
    m = [(a + b) / 2 for a, b in box]
    r = [arb((b - a) / 2) for a, b in box]
    X = [_hull(a, b) for a, b in box]

    def rpow(alpha, minus=None):
        out = arb(1)
        for i, e in enumerate(alpha):
            e -= 1 if i == minus else 0
            out *= r[i] ** e if e else 1
        return out

    zero = (0,) * d
    if order >= 1 and d == 1:
        try:
            with series_cap(order + 2):
                s0 = series_coeffs(f.eval_arb(arb_series([arb(m[0]), 1], prec=order)), order)
                s1 = series_coeffs(f.eval_arb(arb_series([X[0], 1], prec=order + 1)), order + 1)
        except (NotAnalytic, DPVerifyError):
            return None
        fN = s1[order]
        bound = arb(0)
        top = max([order] + [k[0] for k in shifted])
        for j in range(top + 1):
            pj = arb(shifted.get((j,), 0))
            if j < order:
                term = s0[j] - pj
            elif j == order:
                term = fN - pj
            else:
                term = pj
            bound += abs(term) * r[0] ** j
        return _hi(bound) if bound.is_finite() else None
    if order >= 1:
        from .jets import Jet, jet_eval, multi_indices

        try:
            at_m = jet_eval(f, [Jet.variable(d, order, i, arb(m[i])) for i in range(d)])
            on_x = jet_eval(f, [Jet.variable(d, order, i, X[i]) for i in range(d)])
        except (NotAnalytic, DPVerifyError):
            return None
        bound = arb(0)
        for k, alpha in enumerate(multi_indices(d, order)):
            fa = at_m.c[k] if sum(alpha) < order else on_x.c[k]
            bound += abs(fa - arb(shifted.get(alpha, 0))) * rpow(alpha)
        bound += sum((abs(arb(v)) * rpow(a) for a, v in shifted.items() if sum(a) > order), arb(0))
        return _hi(bound) if bound.is_finite() else None
    fX = f.eval_arb(*X, clip_to_domain=True)
    rad = arb(0)
    for alpha, v in shifted.items():
        if alpha != zero:
            rad += abs(arb(v)) * rpow(alpha)
    pX = arb(shifted.get(zero, 0)) + arb(0, _hi(rad))
    b = abs(fX - pX)
    return _hi(b) if b.is_finite() else None


def _covers(box, pieces) -> tuple[bool, str]:
    d = len(box)
    for pb in pieces:
        for (a, b), (A, B) in zip(pb, box):
            if not (A <= a < b <= B):
                return False, f"piece {pb} leaves the box"
    if d == 1:
        iv = sorted((pb[0] for pb in pieces), key=lambda t: t[0])
        pos = box[0][0]
        for a, b in iv:
            if a != pos:
                return False, f"gap or overlap at {pos}"
            pos = b
        return (pos == box[0][1]), "pieces tile the interval"
    vol = fmpq(0)
    for pb in pieces:
        v = fmpq(1)
        for a, b in pb:
            v *= b - a
        vol += v
    total = fmpq(1)
    for a, b in box:
        total *= b - a
    if vol != total:
        return False, f"piece volumes add to {vol}, box volume {total}"
    # interiors pairwise disjoint: sweep along axis 0
    order = sorted(pieces, key=lambda pb: pb[0][0])
    active: list = []
    for pb in order:
        active = [q for q in active if q[0][1] > pb[0][0]]
        for q in active:
            if all(max(q[i][0], pb[i][0]) < min(q[i][1], pb[i][1]) for i in range(d)):
                return False, f"pieces {q} and {pb} overlap"
        active.append(pb)
    return True, "pieces partition the box"


def _check_box(c: dict, poly, rep: VerifyReport) -> tuple[fmpq, fmpq]:
    from ..expr import parse

    err = c["error"]
    tgt = err["target"]
    if tgt.get("kind") != "expr":
        raise MalformedCertificate("box certificates need an 'expr' target")
    f = parse(tgt["expr"], variables=tuple(tgt.get("variables") or ("x",)))
    box = tuple((_q(a, "domain"), _q(b, "domain")) for a, b in err["domain"]["intervals"])
    lo_c, up_c = _q(err["lower"], "error.lower"), _q(err["upper"], "error.upper")
    raw = err.get("pieces")
    if not isinstance(raw, list) or not raw:
        raise MalformedCertificate("error.pieces missing: nothing to re-check")
    pieces = []
    for k, item in enumerate(raw):
        try:
            pb, order, prec = item
            pieces.append(
                (tuple((_q(a, "piece"), _q(b, "piece")) for a, b in pb), int(order), int(prec))
            )
        except (TypeError, ValueError):
            raise MalformedCertificate(f"error.pieces[{k}] is malformed") from None
    ok, why = _covers(box, [p[0] for p in pieces])
    rep.add("box: pieces cover the domain", ok, why)
    d = len(box)
    if d == 1:
        mono = poly.to_monomial() if poly.basis != "monomial" else poly
        P = mono.as_fmpq_poly()

        def shift(m):
            return {(j,): fmpq(v) for j, v in enumerate(P(fmpq_poly([m[0], 1])).coeffs())}

        def p_at(x):
            return fmpq(P(x[0]))
    else:
        mono = poly.to_monomial() if poly.basis != "monomial" else poly

        def shift(m):
            return _tensor_shift(mono, m)

        def p_at(x):
            return shift(x).get((0,) * d, fmpq(0))

    bad = None
    for pb, order, prec in pieces:
        m = tuple((a + b) / 2 for a, b in pb)
        with ctx.workprec(max(64, min(prec, 1 << 16)) + 16):
            bnd = _piece_bound(f, shift(m), pb, order)
        if bnd is None or bnd > up_c:
            bad = (pb, bnd)
            break
    rep.add(
        "box: every piece bound <= upper",
        bad is None,
        "" if bad is None else f"piece {bad[0]} bound {bad[1]} > {err['upper']}",
    )
    w = tuple(_q(x, "error.witness") for x in err.get("witness", []))
    if len(w) != d or any(not (a <= x <= b) for x, (a, b) in zip(w, box)):
        rep.add("box: witness", False, "witness missing or outside the box")
    else:
        for prec in (128, 512, 4096, 16384):
            with ctx.workprec(prec):
                val = abs(f.eval_arb(*[arb(x) for x in w]) - arb(p_at(w)))
            if _abs_lo(val) >= lo_c:
                break
        rep.add("box: |f - p| at witness >= lower", _abs_lo(val) >= lo_c, f"{val}")
    return lo_c, up_c


def verify_certificate(c: dict[str, Any]) -> VerifyReport:
    """Re-check certificate ``c`` (a JSON dict).  Raises
    :class:`MalformedCertificate` for structurally invalid input; returns a
    report whose ``ok`` tells whether every claim in it holds."""
    from ..exact import poly_from_json  # noqa: F401  (fail early if missing)
    from .certificate import REQUIRED_FIELDS

    if not isinstance(c, dict):
        raise MalformedCertificate("certificate must be a JSON object")
    missing = [k for k in REQUIRED_FIELDS if k not in c]
    if missing:
        raise MalformedCertificate(f"certificate lacks field(s): {', '.join(missing)}")
    rep = VerifyReport()
    poly = _load_poly(c)
    deg = list(poly.degrees) if hasattr(poly, "shape") else poly.degree
    rep.add("degree", deg == c["degree"], f"recomputed {deg}, stated {c['degree']}")
    nb = c.get("norm_basis", c["basis"])
    try:
        npoly = poly if nb == c["basis"] else poly.convert(nb)
    except DPVerifyError as exc:
        raise MalformedCertificate(f"norm_basis: {exc}") from None
    norm = npoly.coefficient_norm()
    rep.add(
        "coefficient norm",
        norm == _q(c["coefficient_norm"], "coefficient_norm"),
        f"recomputed {norm}",
    )
    err = c["error"]
    if not isinstance(err, dict) or "domain" not in err or "target" not in err:
        raise MalformedCertificate("error must hold domain and target")
    kind = err["domain"].get("kind")
    try:
        if kind in ("integers", "points"):
            mono = poly.to_monomial() if poly.basis != "monomial" else poly
            lo, up = _check_finite(c, mono.as_fmpq_poly(), rep)
        elif kind == "box":
            lo, up = _check_box(c, poly, rep)
        else:
            raise MalformedCertificate(f"unknown error.domain kind {kind!r}")
    except (KeyError, IndexError, TypeError) as exc:
        raise MalformedCertificate(f"error section is malformed ({exc!r})") from None
    rep.add("enclosure ordered", lo <= up, f"[{err['lower']}, {err['upper']}]")
    statuses = c.get("claims_status", {})
    all_proven = True
    for key, value in c["claims"].items():
        if key != "max_error":
            rep.add(f"claim {key}", False, "unknown claim kind")
            continue
        v = _q(value, f"claims.{key}")
        truth = "proven" if up <= v else ("refuted" if lo > v else "undecided")
        rep.add(
            f"claim {key} status",
            statuses.get(key) == truth,
            f"recomputed {truth}, stated {statuses.get(key)}",
        )
        all_proven = all_proven and truth == "proven"
    rep.add(
        "verified flag",
        bool(c["verified"]) == all_proven,
        f"stated {c['verified']}, claims proven: {all_proven}",
    )
    if "optimality" in c:
        from .optimality import check as check_optimality

        ok, why = check_optimality(c["optimality"], c)
        rep.add("optimality proof", ok, why)
    return rep
