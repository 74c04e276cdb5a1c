"""Kind ``evalbound``: for every float ``x`` (binary64, or binary32 when the statement's
``format`` says so) in ``[A, B]``, the evaluation in that format of
``p`` by Horner's rule or Clenshaw's recurrence is within ``bound`` of ``p(x)``.

The checker re-derives the bound from the evidence (docs/certificates.md).  Each piece
lists, per rounded operation, a claim ``E`` (``|v| <= 2^E``, ``v`` the exact result of the
operation on the computed operands) and optionally ``L`` (``|v| >= 2^L``).  Each claim is
proven here: ``v`` differs from an exact polynomial in the input by at most the error
accumulated so far (built from the earlier claims only), and the polynomial is bounded on
the piece by its Taylor expansion at the centre (the quadratic part exactly, the rest by
absolute values), bisecting the piece up to six times where that is not enough.  The
rounding error of each operation is then ``0`` (exact by a zero operand, a power-of-two
factor or the FIX argument of :mod:`.fpmodel`) or ``2^(max(E, emin + 1) - p - 1)``; the errors
propagate linearly (Horner: ``sum X^i (d_mul_i + d_add_i)``; Clenshaw:
``sum_j R_j sup |T_j|``, the computed ``b_k`` within ``sum_j R_j sup |U_{j-k}|``) and the
largest piece bound must be ``<= bound``.  When that cannot be shown, the evaluation is
emulated exactly (:meth:`fpmodel.Fmt.nearest`) at the ends of the pieces: an error above
``bound`` there makes the statement fail.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from flint import fmpq, fmpq_poly

from .fpmodel import B64, FMTS, ZERO, Fmt, fix, pow2, pow2_abs
from .numbers import JsonObject, check_rounded_up, expect_keys, read_exact, read_list, show
from .poly import read_interval
from .report import Checks, Malformed

__all__ = ["ARITHMETIC", "ARITHMETIC_FMA", "SCHEMES", "MAX_COEFFS", "MAX_PIECES", "MAX_T",
           "Scheme", "read_scheme", "scheme_words", "check_evalbound", "verify_evalbound",
           "exact_form", "min_abs_at_least", "emulate", "piece_bounds"]

ARITHMETIC = "binary64, round to nearest even, no FMA"
ARITHMETIC_FMA = "binary64, round to nearest even, fused multiply-add"


def arithmetic(fmt: Fmt, fma: bool) -> str:
    """The ``arithmetic`` text a statement about ``fmt`` must carry."""
    return f"{fmt.name}, round to nearest even, " + ("fused multiply-add" if fma else "no FMA")


SCHEMES = {"horner": "monomial", "horner-fma": "monomial", "clenshaw": "chebyshev"}
MAX_COEFFS = 513
MAX_PIECES = 1_000_000
#: Clenshaw: the largest |t| (the argument mapped to [-1, 1]) the checker accepts
MAX_T = 2**16
MIN_E = -1100
_SPLITS = 6  # bisections of a piece allowed to prove one claim
_SAMPLES = 200  # points of the refutation search
_Claim = tuple[int, int | None]


@dataclass
class Scheme:
    """The float code a statement is about: scheme, coefficients (numbers of the format),
    domain (Clenshaw), the interval ``[A, B]`` and the format."""

    name: str
    coeffs: list[fmpq]
    domain: tuple[fmpq, fmpq] | None
    interval: tuple[fmpq, fmpq]
    fmt: Fmt = B64


def read_scheme(st: JsonObject) -> Scheme:
    name = st["scheme"]
    if not isinstance(name, str) or name not in SCHEMES:
        raise Malformed("statement.scheme: 'horner', 'horner-fma' or 'clenshaw'")
    fname = st.get("format", "binary64")
    if fname not in FMTS:
        raise Malformed("statement.format: 'binary64' or 'binary32'")
    fmt = FMTS[fname]
    want = arithmetic(fmt, name == "horner-fma")
    if st["arithmetic"] != want:
        raise Malformed(f"statement.arithmetic: {name} is about {want!r}")
    pj = expect_keys(st["polynomial"], "statement.polynomial",
                     ("basis", "domain", "coefficients"))
    if pj["basis"] != SCHEMES[name]:
        raise Malformed(f"statement.polynomial.basis: {name} evaluates the {SCHEMES[name]} "
                        "basis")
    coeffs = []
    for i, raw in enumerate(read_list(pj["coefficients"], "statement.polynomial.coefficients",
                                      1, MAX_COEFFS)):
        c = read_exact(raw, f"statement.polynomial.coefficients[{i}]")
        if not fmt.is_member(c):
            raise Malformed(f"statement.polynomial.coefficients[{i}] is not a {fmt.name} "
                            "number")
        coeffs.append(c)
    domain = None
    if name == "clenshaw":
        domain = read_interval(pj["domain"], "statement.polynomial.domain")
        if max(abs(domain[0]), abs(domain[1])) >= pow2(fmt.emax):
            raise Malformed(f"statement.polynomial.domain: beyond 2^{fmt.emax}")
    elif pj["domain"] is not None:
        raise Malformed("statement.polynomial.domain: null for the monomial basis")
    a, b = read_interval(st["interval"], "statement.interval")
    if max(abs(a), abs(b)) >= pow2(fmt.emax - 1):
        raise Malformed(f"statement.interval: beyond 2^{fmt.emax - 1}")
    return Scheme(name, coeffs, domain, (a, b), fmt)


def scheme_words(s: Scheme) -> list[str]:
    n = len(s.coeffs) - 1
    if s.name == "horner":
        how = ("Horner's rule: q_n = c_n, q_i = fl(fl(x * q_(i+1)) + c_i) for i = n-1..0; "
               "p(x) = sum c_i x^i")
    elif s.name == "horner-fma":
        how = ("Horner's rule with a fused multiply-add: q_n = c_n, q_i = fl(x * q_(i+1) + "
               "c_i) (one rounding) for i = n-1..0; p(x) = sum c_i x^i")
    else:
        assert s.domain is not None
        a, b = s.domain
        how = (f"Clenshaw's recurrence on [{show(a, 20)}, {show(b, 20)}]: t = fl(fl(2x - s) / "
               "w), s = fl(a + b), w = fl(b - a); b_k = fl(fl(fl(2t * b_(k+1)) - b_(k+2)) + "
               "c_k); y = fl(fl(fl(t * b_1) - b_2) + c_0); p(x) = sum c_j T_j(u), "
               "u = (2x - a - b)/(b - a)")
    arith = arithmetic(s.fmt, s.name == "horner-fma")
    return [f"Float code: {how}; n = {n}, {s.fmt.name} coefficients c_0..c_n; IEEE 754 "
            f"{arith}.",
            f"Inputs: every {s.fmt.name} x in [{show(s.interval[0], 20)}, "
            f"{show(s.interval[1], 20)}]."]


# ------------------------------------------------------------------ exact polynomials
@dataclass
class _Ops:
    """The exact polynomial (in the input: x for Horner, t for Clenshaw) of each rounded
    operation, in order, and ``P`` (the exact value of the last one)."""

    polys: list[fmpq_poly]
    kinds: list[str]  # "mul" / "sum" per operation
    final: fmpq_poly


def _ops(s: Scheme) -> _Ops:
    c, n = s.coeffs, len(s.coeffs) - 1
    polys: list[fmpq_poly] = []
    kinds: list[str] = []
    if s.name in ("horner", "horner-fma"):
        q = fmpq_poly([c[n]])
        for i in range(n - 1, -1, -1):
            q = q * fmpq_poly([0, 1]) + c[i]
            if s.name == "horner-fma":
                polys.append(q)
                kinds.append("fma")
            else:
                polys += [q - c[i], q]
                kinds += ["mul", "sum"]
        return _Ops(polys, kinds, q)
    b1, b2 = fmpq_poly([c[n]]), fmpq_poly([])
    for k in range(n - 1, -1, -1):
        m = b1 * fmpq_poly([0, 2 if k else 1])
        g = m - b2
        b1, b2 = g + c[k], b1
        polys += [m, g, b1]
        kinds += ["mul", "sum", "sum"]
    return _Ops(polys, kinds, b1)


def exact_form(s: Scheme) -> tuple[fmpq_poly, fmpq, fmpq]:
    """``(P, lo, hi)``: ``p`` on ``[A, B]`` is ``P`` on ``[lo, hi]`` (Horner: ``P = p``;
    Clenshaw: ``P(u) = sum c_j T_j(u)`` and ``[lo, hi] = u([A, B])``)."""
    a, b = s.interval
    if s.name != "clenshaw":
        return fmpq_poly(s.coeffs), a, b
    assert s.domain is not None
    da, db = s.domain
    ua, ub = sorted(((2 * a - da - db) / (db - da), (2 * b - da - db) / (db - da)))
    return _ops(s).final, ua, ub


def min_abs_at_least(P: fmpq_poly, lo: fmpq, hi: fmpq, bound: fmpq, splits: int = 12) -> bool:
    """``|P| >= bound`` on ``[lo, hi]`` (Taylor ranges, bisecting up to ``splits`` times)."""
    rlo, rhi = _range(P, lo, hi)
    if rlo >= bound or -rhi >= bound:
        return True
    if splits == 0 or lo == hi or rlo <= 0 <= rhi and _range(P, lo, lo)[0] == 0:
        return False
    mid = (lo + hi) / 2
    return min_abs_at_least(P, lo, mid, bound, splits - 1) and \
        min_abs_at_least(P, mid, hi, bound, splits - 1)


def _range(P: fmpq_poly, lo: fmpq, hi: fmpq) -> tuple[fmpq, fmpq]:
    """An enclosure of ``P`` on ``[lo, hi]``: at the centre ``m`` with radius ``r``,
    ``P(m + r s) = sum a_k s^k``; the range of ``a_0 + a_1 s + a_2 s^2`` on ``[-1, 1]``
    exactly (ends and vertex), widened by ``sum_{k >= 3} |a_k|``."""
    if P.degree() < 1:
        v = fmpq(P[0]) if P.degree() == 0 else fmpq(0)
        return v, v
    m, r = (lo + hi) / 2, (hi - lo) / 2
    a = [fmpq(x) for x in P(fmpq_poly([m, r])).coeffs()]
    a += [fmpq(0)] * (3 - len(a))
    vals = [a[0] - a[1] + a[2], a[0] + a[1] + a[2]]
    if a[2] != 0 and abs(a[1]) <= 2 * abs(a[2]):
        vals.append(a[0] - a[1] * a[1] / (4 * a[2]))
    rest = sum((abs(x) for x in a[3:]), fmpq(0))
    return min(vals) - rest, max(vals) + rest


def _proves(P: fmpq_poly, lo: fmpq, hi: fmpq, e_in: fmpq, claim: _Claim, cap: fmpq,
            splits: int = _SPLITS) -> bool:
    """``|P(z)| + e_in <= 2^E`` and (with ``L``) ``|P(z)| - e_in >= 2^L`` on ``[lo, hi]``;
    ``cap >= |P|`` on the whole range is known."""
    e, low = claim
    if low is None and cap + e_in <= pow2(e):
        return True
    rlo, rhi = _range(P, lo, hi)
    ok = min(max(abs(rlo), abs(rhi)), cap) + e_in <= pow2(e)
    if ok and low is not None:
        ok = rlo - e_in >= pow2(low) or -(rhi + e_in) >= pow2(low)
    if ok or splits == 0 or lo == hi:
        return ok
    mid = (lo + hi) / 2
    return _proves(P, lo, mid, e_in, claim, cap, splits - 1) and \
        _proves(P, mid, hi, e_in, claim, cap, splits - 1)


def _round(fmt: Fmt, kind: str, fa: int, fb: int, claim: _Claim, scaled: bool,
           nil: bool = False) -> tuple[fmpq, int]:
    """(error bound, FIX of the result) of one rounded product or sum; ``nil``: the exact
    result is proven to be 0 (a representable number)."""
    e, low = claim
    zero = fa == ZERO or fb == ZERO
    if kind == "mul":
        fv = ZERO if zero else fa + fb
    else:
        fv = fb if fa == ZERO else fa if fb == ZERO else min(fa, fb)
    if nil:
        return fmpq(0), ZERO
    exact = zero or (fv >= fmt.lowest and (scaled or e <= fv + fmt.p))
    return fmpq(0) if exact else fmt.half_ulp(e), fmt.after(fv, low)


# ------------------------------------------------------------------------ pieces
@dataclass
class _Piece:
    lo: fmpq
    hi: fmpq
    claims: list[_Claim]
    dmax: fmpq | None


class _Unproven(Exception):
    pass


def _horner_caps(c: list[fmpq], big_x: fmpq) -> list[fmpq]:
    """``|q_i(x)| <= sum_{j >= i} |c_j| X^(j - i)`` on the whole piece, i = 0..n."""
    caps = [abs(c[-1])]
    for ci in reversed(c[:-1]):
        caps.append(caps[-1] * big_x + abs(ci))
    return caps[::-1]


def _horner(s: Scheme, ops: _Ops, pc: _Piece, prove: bool = True) -> fmpq:
    """Horner's rule on the piece: a rounded product and a rounded sum per step, or with a
    fused multiply-add one rounding ``q_i = fl(x q_(i+1) + c_i)`` (exact when
    ``q_(i+1) = 0``; with ``c_i = 0`` it is a rounded product)."""
    fma = s.name == "horner-fma"
    c, n = s.coeffs, len(s.coeffs) - 1
    lo, hi = pc.lo, pc.hi
    big_x, fx = max(abs(lo), abs(hi)), s.fmt.fix_range(lo, hi)
    caps = _horner_caps(c, big_x)
    err, fq = fmpq(0), fix(c[n])
    for j in range(n):
        i = n - 1 - j
        e_in = big_x * err
        k = j if fma else 2 * j
        f_prod = ZERO if ZERO in (fx, fq) else fx + fq
        if not fma:
            nil = _need(ops.polys[k], lo, hi, e_in, pc.claims[k], k, big_x * caps[i + 1],
                        prove)
            dm, f_prod = _round(s.fmt, "mul", fx, fq, pc.claims[k], i == n - 1 and pow2_abs(c[n]),
                                nil)
            e_in += dm
            k += 1
        nil = _need(ops.polys[k], lo, hi, e_in, pc.claims[k], k, caps[i], prove)
        if fma and c[i] == 0:
            da, fq = _round(s.fmt, "mul", fx, fq, pc.claims[k], False, nil)
        else:
            da, fq = _round(s.fmt, "sum", f_prod, fix(c[i]), pc.claims[k], False, nil)
        err = e_in + da
    return err


def _need(P: fmpq_poly, lo: fmpq, hi: fmpq, e_in: fmpq, claim: _Claim, k: int,
          cap: fmpq, prove: bool = True) -> bool:
    """Prove the claim of operation ``k`` (``prove=False``: take it as given); True when
    its exact result is moreover 0 at every input of the piece (``P`` vanishes there and
    no error came in): no rounding."""
    if prove and not _proves(P, lo, hi, e_in, claim, cap):
        raise _Unproven(f"claim {k} ({_show_claim(claim)}) not proven on "
                        f"[{show(lo, 16)}, {show(hi, 16)}]")
    return e_in == 0 and (P.is_zero() or lo == hi and P(lo) == 0)


def _show_claim(claim: _Claim) -> str:
    e, low = claim
    return f"|v| <= 2^{e}" + ("" if low is None else f", |v| >= 2^{low}")


def _mapping(s: Scheme, pc: _Piece) -> tuple[fmpq, fmpq, fmpq, int, fmpq, fmpq]:
    """``t = fl(fl(2x - s)/w)`` on the piece: (t_lo, t_hi, D, FIX of t, u_lo, u_hi)."""
    assert s.domain is not None
    a, b = s.domain
    fmt = s.fmt
    ah, bh = fmt.nearest(a), fmt.nearest(b)
    if ah is None or bh is None:
        raise Malformed(f"statement.polynomial.domain: overflows {fmt.name}")
    sh, wh = fmt.nearest(ah + bh), fmt.nearest(bh - ah)
    if sh is None or wh is None or wh <= 0:
        raise Malformed("statement.polynomial.domain: fl(b - a) must be positive and finite")
    lo, hi = pc.lo, pc.hi
    if 2 * max(abs(lo), abs(hi)) > pow2(fmt.emax):
        raise _Unproven("2x may overflow")
    v1, v2 = 2 * lo - sh, 2 * hi - sh
    c0, c1 = pc.claims[0], pc.claims[1]
    if not (max(abs(v1), abs(v2)) <= pow2(c0[0]) and (
            c0[1] is None or min(abs(v1), abs(v2)) >= pow2(c0[1]) and (v1 > 0) == (v2 > 0))):
        raise _Unproven(f"claim 0 ({_show_claim(c0)}) of 2x - s")
    fx = fmt.fix_range(lo, hi)
    d_sub, f_d = _round(fmt, "sum", ZERO if fx == ZERO else fx + 1, fix(sh), c0, False)
    d_lo, d_hi = sorted((v1 / wh, v2 / wh))
    e_in = d_sub / abs(wh)
    if not (max(abs(d_lo), abs(d_hi)) + e_in <= pow2(c1[0]) and (
            c1[1] is None or d_lo - e_in >= pow2(c1[1]) or -(d_hi + e_in) >= pow2(c1[1]))):
        raise _Unproven(f"claim 1 ({_show_claim(c1)}) of (2x - s) / w")
    if pow2_abs(wh) and f_d != ZERO:
        fv = f_d - fix(wh)
        d_div = fmpq(0) if fv >= fmt.lowest else fmt.half_ulp(c1[0])
        f_t = fmt.after(fv, c1[1])
    else:
        d_div = fmpq(0) if f_d == ZERO else fmt.half_ulp(c1[0])
        f_t = ZERO if f_d == ZERO else fmt.after(fmt.lowest, c1[1])
    spread = e_in + d_div
    gap = max(abs((2 * x - sh) / wh - (2 * x - a - b) / (b - a)) for x in (lo, hi)) + spread
    u_lo, u_hi = sorted(((2 * lo - a - b) / (b - a), (2 * hi - a - b) / (b - a)))
    return d_lo - spread, d_hi + spread, gap, f_t, u_lo, u_hi


def _cheb_sups(big_t: fmpq, n: int, second: bool) -> list[fmpq]:
    """``sup_{|t| <= T} |T_j|`` (or ``|U_j|``), j = 0..n."""
    if big_t <= 1:
        return [fmpq(j + 1) if second else fmpq(1) for j in range(n + 1)]
    out = [fmpq(1), (2 if second else 1) * big_t]
    while len(out) <= n:
        out.append(2 * big_t * out[-1] - out[-2])
    return out[: n + 1]


def _clenshaw(s: Scheme, ops: _Ops, pc: _Piece, prove: bool = True) -> fmpq:
    c, n = s.coeffs, len(s.coeffs) - 1
    tl, tr, gap, ft, ul, uh = _mapping(s, pc)
    big_t = max(abs(tl), abs(tr))
    if big_t > MAX_T:  # sup |T_j|, |U_m| grow like (2|t|)^m: a cap on the work
        raise _Unproven(f"|t| reaches {show(big_t, 20)} > {MAX_T} (the checker's cap)")
    uu, tt = _cheb_sups(big_t, n, True), _cheb_sups(big_t, n, False)
    # b_k = sum_{j >= k} c_j U_(j-k)(t) and P = sum_j c_j T_j(t): bounds on the whole range
    bsum = [sum((abs(c[j]) * uu[j - k] for j in range(k, n + 1)), fmpq(0))
            for k in range(n + 1)] + [fmpq(0)]
    tsum = [sum((abs(c[j]) * tt[j] for j in range(k, n + 1)), fmpq(0)) for k in range(2)]
    err1 = err2 = fmpq(0)
    f1, f2 = fix(c[n]), ZERO
    rs: list[fmpq] = []  # R_j for j = n-1, n-2, ...
    for j in range(n):
        k = n - 1 - j
        two = 2 if k else 1
        idx = 2 + 3 * j
        e_in = two * big_t * err1
        nil = _need(ops.polys[3 * j], tl, tr, e_in, pc.claims[idx], idx,
                    two * big_t * bsum[k + 1], prove)
        dm, fm = _round(s.fmt, "mul", ft + two - 1 if ft != ZERO else ZERO, f1, pc.claims[idx],
                        k == n - 1 and pow2_abs(c[n]), nil)
        e_in += dm + err2
        nil = _need(ops.polys[3 * j + 1], tl, tr, e_in, pc.claims[idx + 1], idx + 1,
                    bsum[k] - abs(c[k]) if k else tsum[1], prove)
        dg, fg = _round(s.fmt, "sum", fm, f2, pc.claims[idx + 1], False, nil)
        e_in += dg
        nil = _need(ops.polys[3 * j + 2], tl, tr, e_in, pc.claims[idx + 2], idx + 2,
                    bsum[k] if k else tsum[0], prove)
        da, fa = _round(s.fmt, "sum", fg, fix(c[k]), pc.claims[idx + 2], False, nil)
        rs.append(dm + dg + da)
        usum = sum((r * uu[len(rs) - 1 - i] for i, r in enumerate(rs)), fmpq(0))
        err1, err2 = min(e_in + da, usum), err1
        f1, f2 = fa, f1
    total = sum((r * tt[n - 1 - i] for i, r in enumerate(rs)), fmpq(0))
    if gap > 0:
        if pc.dmax is None:
            raise _Unproven("the piece needs a bound on |P'| (t is not exact)")
        if prove and not _sup_le(ops.final.derivative(), min(tl, ul), max(tr, uh), pc.dmax):
            raise _Unproven(f"|P'| <= {show(pc.dmax, 20)} not proven")
        total += gap * pc.dmax
    return total


def _sup_le(P: fmpq_poly, lo: fmpq, hi: fmpq, bound: fmpq, splits: int = _SPLITS) -> bool:
    rlo, rhi = _range(P, lo, hi)
    if max(abs(rlo), abs(rhi)) <= bound:
        return True
    if splits == 0 or lo == hi:
        return False
    mid = (lo + hi) / 2
    return _sup_le(P, lo, mid, bound, splits - 1) and _sup_le(P, mid, hi, bound, splits - 1)


# ----------------------------------------------------------------- the refutation
def emulate(s: Scheme, x: fmpq) -> tuple[fmpq, fmpq] | None:
    """``(fl(p(x)), p(x))`` for a float ``x`` of the statement's format, both exact (the
    float operations rounded by :meth:`fpmodel.Fmt.nearest`); None when an operation
    overflows."""
    c, n = s.coeffs, len(s.coeffs) - 1
    rnd: Callable[[fmpq], fmpq | None] = s.fmt.nearest
    if s.name in ("horner", "horner-fma"):
        y: fmpq | None = c[n]
        exact = c[n]
        for i in range(n - 1, -1, -1):
            if s.name == "horner-fma":
                y = rnd(x * y + c[i]) if y is not None else None
            else:
                t = rnd(x * y) if y is not None else None
                y = rnd(t + c[i]) if t is not None else None
            exact = exact * x + c[i]
        return None if y is None else (y, exact)
    assert s.domain is not None
    a, b = s.domain
    u = (2 * x - a - b) / (b - a)
    exact_b1, exact_b2 = c[n], fmpq(0)
    for k in range(n - 1, 0, -1):
        exact_b1, exact_b2 = 2 * u * exact_b1 - exact_b2 + c[k], exact_b1
    exact = u * exact_b1 - exact_b2 + c[0] if n else c[0]
    if n == 0:
        return c[0], c[0]
    ah, bh = rnd(a), rnd(b)
    sh = rnd(ah + bh) if ah is not None and bh is not None else None
    wh = rnd(bh - ah) if ah is not None and bh is not None else None
    d = rnd(2 * x - sh) if sh is not None else None
    t = rnd(d / wh) if d is not None and wh else None
    if t is None:
        return None
    b1: fmpq | None = c[n]
    b2: fmpq | None = fmpq(0)
    for k in range(n - 1, -1, -1):
        m = rnd((2 if k else 1) * t * b1) if b1 is not None else None
        g = rnd(m - b2) if m is not None and b2 is not None else None
        b1, b2 = (rnd(g + c[k]) if g is not None else None), b1
    return None if b1 is None else (b1, exact)


def _refute(s: Scheme, pieces: list[_Piece], bound: fmpq, lo: fmpq, hi: fmpq,
            ck: Checks) -> tuple[fmpq, fmpq] | None:
    """A float point of ``[lo, hi]`` where the error exceeds ``bound``, if one of the
    sampled points (piece ends and centres) shows it."""
    pts = {lo, hi}
    step = max(1, len(pieces) // _SAMPLES)
    for pc in pieces[::step]:
        for v in (pc.lo, (pc.lo + pc.hi) / 2, pc.hi):
            if lo <= v <= hi:
                up = s.fmt.ceil(v)
                pts.add(up if up <= hi else s.fmt.floor(v))
    for x in sorted(pts):
        ck.tick()
        r = emulate(s, x)
        if r is not None and abs(r[0] - r[1]) > bound:
            return x, abs(r[0] - r[1])
    return None


# ------------------------------------------------------------------------ the kind
def _read_pieces(ev: object, s: Scheme) -> list[_Piece]:
    n = len(s.coeffs) - 1
    want = 0 if n == 0 else {"horner": 2 * n, "horner-fma": n}.get(s.name, 3 * n + 2)
    ev = expect_keys(ev, "evidence", ("pieces",))
    top = s.fmt.emax
    out = []
    for i, raw in enumerate(read_list(ev["pieces"], "evidence.pieces", 1, MAX_PIECES)):
        where = f"evidence.pieces[{i}]"
        pc = read_list(raw, where, 3, 4)
        lo, hi = read_exact(pc[0], where), read_exact(pc[1], where)
        if lo > hi:
            raise Malformed(f"{where}: lo > hi")
        claims: list[_Claim] = []
        for j, cl in enumerate(read_list(pc[2], f"{where} claims", want, want)):
            cl = cl if isinstance(cl, list) else [cl]
            if not 1 <= len(cl) <= 2 or any(type(v) is not int or not MIN_E <= v <= top
                                             for v in cl):
                raise Malformed(f"{where} claim {j}: E or [E, L], integers in "
                                f"[{MIN_E}, {top}]")
            claims.append((cl[0], cl[1] if len(cl) == 2 else None))
        dmax = read_exact(pc[3], f"{where} dmax") if len(pc) == 4 else None
        out.append(_Piece(lo, hi, claims, dmax))
    return out


def piece_bounds(st: object, evidence: object) -> tuple[Scheme, list[tuple[fmpq, fmpq,
                                                                          fmpq | None]]]:
    """The scheme of an ``evalbound`` statement and, per piece of its evidence, ``(lo, hi,
    bound)``: the bound the piece's claims imply, *taken as given* (not proven: that is
    :func:`verify_evalbound`'s work; None where even the cheap checks of the mapping
    fail).  For figures (``dpverify plot``).  Raises :class:`Malformed` like the
    checker."""
    st = expect_keys(st, "statement", ("scheme", "arithmetic", "polynomial", "interval",
                                       "bound"), ("bound_decimal", "format"))
    s = read_scheme(st)
    pieces = _read_pieces(evidence, s)
    ops = _ops(s)
    derive = _clenshaw if s.name == "clenshaw" else _horner
    out: list[tuple[fmpq, fmpq, fmpq | None]] = []
    for pc in pieces:
        try:
            b = fmpq(0) if len(s.coeffs) == 1 else derive(s, ops, pc, False)
        except _Unproven:
            b = None
        out.append((pc.lo, pc.hi, b))
    return s, out


def check_evalbound(s: Scheme, bound: fmpq, ev: object, ck: Checks) -> None:
    """The checks of ``|fl(p(x)) - p(x)| <= bound`` (also used by ``float-error``)."""
    pieces = _read_pieces(ev, s)
    A, B = s.interval
    lo, hi = s.fmt.ceil(A), s.fmt.floor(B)
    if lo > hi:
        ck.add(f"{s.fmt.name} inputs", True, f"no {s.fmt.name} number lies in [A, B]: "
               "nothing to check")
        return

    def cover() -> tuple[bool, str]:
        bad = [i for i in range(len(pieces) - 1) if pieces[i].hi != pieces[i + 1].lo]
        if bad:
            return False, f"pieces {bad[0]} and {bad[0] + 1} do not meet"
        ok = pieces[0].lo <= lo and pieces[-1].hi >= hi
        return ok, (f"{len(pieces)} pieces from {show(pieces[0].lo, 20)} to "
                    f"{show(pieces[-1].hi, 20)}; {s.fmt.name} inputs from {show(lo, 20)} to "
                    f"{show(hi, 20)}")

    if not ck.run(f"pieces cover the {s.fmt.name} numbers of [A, B]", cover):
        return
    ops = _ops(s)

    def bounds() -> tuple[bool | None, str]:
        worst = fmpq(0)
        piece_bound = _clenshaw if s.name == "clenshaw" else _horner
        try:
            for i, pc in enumerate(pieces):
                ck.tick()
                ck.report("evalbound pieces", i, len(pieces))
                try:
                    # a constant is returned as stored: no operation, no error
                    b = fmpq(0) if len(s.coeffs) == 1 else piece_bound(s, ops, pc)
                except _Unproven as exc:
                    return None, f"piece {i}: {exc}"
                if b > bound:
                    return None, f"piece {i}: the evidence gives {show(b)} > bound"
                worst = max(worst, b)
        finally:
            ck.report(None)
        return True, f"{len(pieces)} pieces; largest piece bound {show(worst)}"

    ok = ck.run("|fl(p(x)) - p(x)| <= bound on every piece (claims proven)", bounds)
    if ok is not True:
        found = _refute(s, pieces, bound, lo, hi, ck)
        if found is not None:
            ck.add("refutation", False, f"at x = {show(found[0])}: |fl(p(x)) - p(x)| = "
                   f"{show(found[1])} > bound")


def verify_evalbound(st: object, evidence: object, ck: Checks, out: list[str]) -> None:
    st = expect_keys(st, "statement", ("scheme", "arithmetic", "polynomial", "interval",
                                       "bound"), ("bound_decimal", "format"))
    s = read_scheme(st)
    bound = read_exact(st["bound"], "statement.bound")
    dec = st.get("bound_decimal")
    if dec is not None:
        read_exact(dec, "statement.bound_decimal")
    out.extend(scheme_words(s))
    out.append(f"Claim: |fl(p(x)) - p(x)| <= {show(bound)} for every such x.")
    if dec is not None:
        ck.run("bound_decimal", lambda: check_rounded_up(dec, bound, "bound_decimal"))
    check_evalbound(s, bound, evidence, ck)
