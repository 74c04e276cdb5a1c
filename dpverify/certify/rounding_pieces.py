"""Rounding analysis of Horner and Clenshaw (binary64 or binary32) on one piece of the interval.

On a piece ``[lo, hi]`` of the input range, every intermediate value of the evaluation is
enclosed (the exact intermediate polynomial by an exact Taylor form at the centre, plus
the accumulated error of the computed operands), and each rounding is bounded by half an
ulp of the largest binade the enclosure reaches (:mod:`.fpformat`); an operation whose
result is provably a number of the format (a zero operand, a power-of-two factor, or the FIX
argument) costs nothing.  This is the analysis Gappa performs, with exact polynomial
ranges on each piece instead of interval arithmetic on the expression.

*Propagation is exactly linear.*  Every product in these schemes has an exact factor
(``x`` in Horner; the float ``t`` and ``2t`` in Clenshaw), so writing ``d_op``
for the rounding error of each operation,

* Horner (``q_n = c_n``, ``t_i = fl(x q_{i+1})``, ``q_i = fl(t_i + c_i)``):
  ``fl(p(x)) - p(x) = sum_i x^i (d_mul_i + d_add_i)`` exactly; with a fused multiply-add
  (``q_i = fl(x q_{i+1} + c_i)``, one rounding) ``sum_i x^i d_fma_i``;
* Clenshaw (``b_n = c_n``, ``b_{n+1} = 0``, for ``k = n-1..1``:
  ``m_k = fl(2t b_{k+1})``, ``g_k = fl(m_k - b_{k+2})``, ``b_k = fl(g_k + c_k)``; then
  ``m_0 = fl(t b_1)``, ``g_0 = fl(m_0 - b_2)``, ``y = fl(g_0 + c_0)``):
  with ``r_k = d_m_k + d_g_k + d_a_k``, the computed ``b_k`` differ from the exact ones by
  ``sum_{j>=k} r_j U_{j-k}(t)`` and ``y - P(t) = sum_j r_j T_j(t)`` exactly (Clenshaw's
  recurrence for the errors; ``t U_{j-1} - U_{j-2} = T_j``).

No second-order term arises.  The bound on a piece is therefore
``sum_i X^i (D_mul_i + D_add_i)`` (``X = max |x|``) or ``sum_j R_j sup |T_j|`` with the
per-operation bounds ``D``, which are constants on the piece.  For Clenshaw on a domain
``(a, b)`` the argument is computed as ``t = fl(fl(2x - s) / w)`` with ``s = fl(a^ + b^)``,
``w = fl(b^ - a^)`` (``a^, b^`` the binary64 roundings of ``a, b``; exactly ``t = x`` for
``(-1, 1)``) and the term ``D_t sup |P'|`` bounds ``|P(t) - P(u(x))|``, ``D_t`` the
distance between the computed ``t`` and ``u(x) = (2x - a - b) / (b - a)``.

The evidence a piece produces (its *claims*) is, for each operation in order, the integer
``E`` of ``|v| <= 2^E`` (``v`` the exact result of the operation on the computed operands)
or ``[E, L]`` when ``|v| >= 2^L`` is used for the FIX of the result; with it the
independent checker re-derives every bound (docs/certificates.md, kind ``evalbound``).
All arithmetic is exact (``fmpq``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from flint import fmpq, fmpz

from ..budget import checkpoint
from ..errors import DomainError
from ..exact import fmpq_sum
from .fpformat import BINARY64, ZERO_FIX, Format, ceil_log2, fix_of, floor_log2, power_of_two

__all__ = ["Piece", "Rounding", "horner_piece", "clenshaw_piece", "mapping_constants",
           "taylor_range", "horner_caps", "clenshaw_caps", "up", "MIN_E", "MAX_T"]

#: Clenshaw: the largest |t| analysed (the checker's cap; sup |T_j| grows like (2|t|)^j)
MAX_T = 2**16
#: the smallest exponent written as a claim (every smaller magnitude is claimed as this)
MIN_E = -1100
_BITS = 64  # mantissa of the dyadic upper bounds written into the certificate
_Claim = int | list[int]


def up(q: fmpq) -> fmpq:
    """A dyadic rational ``>= q`` with a 64-bit numerator (``q`` itself when ``q <= 0``)."""
    if q <= 0:
        return q
    e = int(q.p).bit_length() - int(q.q).bit_length()
    shift = _BITS - e
    scaled = q * fmpz(2) ** shift if shift >= 0 else q / fmpz(2) ** (-shift)
    m = scaled.ceil()
    return fmpq(m) / fmpz(2) ** shift if shift >= 0 else fmpq(m * fmpz(2) ** (-shift))


@dataclass
class Rounding:
    """One rounded operation: its error bound, the FIX of its result and its claim."""

    delta: fmpq
    fix: int
    claim: _Claim


def _round(fmt: Format, lo: fmpq, hi: fmpq, e_in: fmpq, f: int | None, *,
           zero: bool = False, scaled: bool = False) -> Rounding:
    """The exact result ``v`` of an operation lies in ``[lo - e_in, hi + e_in]``; ``f`` is
    its FIX (None: unknown, a quotient); ``zero``: an operand is the constant 0;
    ``scaled``: ``v`` is a number of the format times a power of two."""
    vlo, vhi = lo - e_in, hi + e_in
    big = max(abs(vlo), abs(vhi))
    e = max(ceil_log2(big), MIN_E) if big > 0 else MIN_E
    if e > fmt.emax:
        raise DomainError(f"an intermediate of the evaluation may reach 2^{e} > "
                          f"2^{fmt.emax}: overflow cannot be excluded on this interval")
    exact = big == 0 or zero or (f is not None and (
        (scaled and f >= fmt.min_fix) or fmt.exact_by_fix(f, e)))
    delta = fmpq(0) if exact else fmt.half_ulp(e)
    fv = ZERO_FIX if big == 0 else (fmt.min_fix if f is None else f)
    fix = fmt.fix_after_rounding(fv, None)
    claim: _Claim = e
    mn = vlo if vlo > 0 else -vhi if vhi < 0 else fmpq(0)
    if mn > 0:
        low = max(floor_log2(mn), MIN_E)
        better = fmt.fix_after_rounding(fv, low)
        if better > fix:
            fix, claim = better, [e, low]
    return Rounding(delta, fix, claim)


def taylor_range(a: list[fmpq]) -> tuple[fmpq, fmpq]:
    """An enclosure of ``sum_k a_k s^k`` over ``|s| <= 1`` (the expansion at the piece's
    centre in the scaled variable ``s = (z - m)/r``): the linear term exactly, the
    quadratic one by its sign, the others by ``|a_k|``."""
    lo = hi = a[0]
    if len(a) > 1:
        lo, hi = lo - abs(a[1]), hi + abs(a[1])
    if len(a) > 2:
        if a[2] > 0:
            hi += a[2]
        else:
            lo += a[2]
    rest = fmpq_sum([abs(c) for c in a[3:]]) if len(a) > 3 else fmpq(0)
    return lo - rest, hi + rest


def _clamp(lo: fmpq, hi: fmpq, cap: fmpq) -> tuple[fmpq, fmpq]:
    """``[lo, hi]`` intersected with ``[-cap, cap]`` (both enclose the same values)."""
    return max(lo, -cap), min(hi, cap)


def horner_caps(c: list[fmpq], big_x: fmpq) -> list[fmpq]:
    """``S_i = sum_{j >= i} |c_j| X^(j-i) >= sup_{|x| <= X} |q_i(x)|`` for i = 0..n: a
    bound valid on the whole piece, better than a Taylor form of high degree on a wide
    piece."""
    out = [abs(c[-1])]
    for ci in reversed(c[:-1]):
        out.append(big_x * out[-1] + abs(ci))
    return out[::-1]


def clenshaw_caps(c: list[fmpq], big_t: fmpq) -> tuple[list[fmpq], list[fmpq]]:
    """``(SU, ST)``: ``SU_k = sum_{j >= k} |c_j| sup |U_(j-k)| >= sup |b_k|`` (since
    ``b_k = sum_{j >= k} c_j U_(j-k)(t)``) and ``ST_k = sum_{j >= k} |c_j| sup |T_j|``
    (``P - sum_{j < k} c_j T_j``), over ``|t| <= T``."""
    n = len(c) - 1
    uu, tt = _u_bounds(big_t, n), _t_bounds(big_t, n)
    su = [fmpq(0)] * (n + 2)
    st = [fmpq(0)] * (n + 2)
    if big_t <= 1:  # U_m <= m + 1: sum_j |c_j| (j - k + 1) by running sums
        run = fmpq(0)
        for k in range(n, -1, -1):
            run += abs(c[k])
            su[k] = su[k + 1] + run
    else:
        for k in range(n + 1):
            su[k] = sum((abs(c[j]) * uu[j - k] for j in range(k, n + 1)), fmpq(0))
    for k in range(n, -1, -1):
        st[k] = st[k + 1] + abs(c[k]) * tt[k]
    return su, st


@dataclass
class Piece:
    """The analysis of one piece ``[lo, hi]`` of the interval (x coordinates).

    ``bound`` bounds ``|fl(p(x)) - p(x)|`` for every float ``x`` in the piece
    (``rounding + mapping``); ``claims`` is the evidence, one per operation; ``dmax``
    (Clenshaw with ``D_t > 0`` only) bounds ``|P'|`` where the mapping term needs it."""

    lo: fmpq
    hi: fmpq
    bound: fmpq
    rounding: fmpq
    mapping: fmpq
    claims: list[_Claim]
    dmax: fmpq | None = None
    top: int = MIN_E


def horner_piece(c: list[fmpq], lo: fmpq, hi: fmpq, fma: bool = False,
                 fmt: Format = BINARY64) -> Piece:
    """Horner's rule for ``x`` of the format ``fmt`` in ``[lo, hi]`` (module docstring);
    with ``fma``, each step is one fused multiply-add ``q_i = fl(x q_{i+1} + c_i)`` (one
    rounding)."""
    n = len(c) - 1
    m, r = (lo + hi) / 2, (hi - lo) / 2
    big_x = max(abs(lo), abs(hi))
    fx = fmt.fix_of_range(lo, hi)
    a = [c[n]]  # Taylor coefficients of the exact partial sum q_{i+1}(m + r s) in s
    err, fq = fmpq(0), fix_of(c[n])
    claims: list[_Claim] = []
    top = MIN_E
    caps = horner_caps(c, big_x)
    for i in range(n - 1, -1, -1):
        checkpoint("evaluation error")  # O(n) exact operations per step at degree n
        # q_i(m + r s) = (m + r s) q_{i+1}(m + r s) + c_i, coefficients in s
        a = [m * a[0] + c[i]] + [m * a[k] + r * a[k - 1] for k in range(1, len(a))] \
            + [r * a[-1]]
        qlo, qhi = taylor_range(a)
        e_in = big_x * err
        # x q is the constant 0 when either factor is (x = 0 is the only input, or q = 0)
        nil = ZERO_FIX in (fx, fq)
        f_prod = ZERO_FIX if nil else fx + fq
        steps: list[Rounding] = []
        if not fma:
            tlo, thi = _clamp(qlo - c[i], qhi - c[i], big_x * caps[i + 1])
            steps.append(_round(fmt, tlo, thi, e_in, f_prod, zero=nil,
                                scaled=i == n - 1 and power_of_two(c[n])))
            e_in += steps[-1].delta
            f_prod = steps[-1].fix
        qlo, qhi = _clamp(qlo, qhi, caps[i])
        # the sum (or the fused x q + c): exact when the other operand is the constant 0 --
        # for the fused operation only q = 0 makes it exact (x q is not rounded before)
        steps.append(_round(fmt, qlo, qhi, e_in, min(f_prod, fix_of(c[i])),
                            zero=nil if fma else c[i] == 0))
        err, fq = e_in + steps[-1].delta, steps[-1].fix
        claims += [st.claim for st in steps]
        top = max([top] + [_e(st.claim) for st in steps])
    return Piece(lo, hi, err, err, fmpq(0), claims, None, top)


def _e(claim: _Claim) -> int:
    return claim if isinstance(claim, int) else claim[0]


def mapping_constants(dom: tuple[fmpq, fmpq], s: fmpq, w: fmpq, lo: fmpq, hi: fmpq,
                      fmt: Format = BINARY64,
                      ) -> tuple[Rounding, Rounding, fmpq, fmpq, fmpq, fmpq, fmpq]:
    """``t = fl(fl(2x - s) / w)`` for ``x`` of the format in ``[lo, hi]``: the two roundings,
    the range ``[t_lo, t_hi]`` of the computed ``t``, its distance ``D`` to ``u(x)`` and
    the range ``[u_lo, u_hi]`` of ``u(x)``."""
    a, b = dom
    if 2 * max(abs(lo), abs(hi)) > fmpq(2) ** fmt.emax:
        raise DomainError("2x may overflow on this interval")
    fx = fmt.fix_of_range(lo, hi)
    f2x = ZERO_FIX if fx == ZERO_FIX else fx + 1
    sub = _round(fmt, 2 * lo - s, 2 * hi - s, fmpq(0), min(f2x, fix_of(s)), zero=s == 0)
    d_lo, d_hi = sorted(((2 * lo - s) / w, (2 * hi - s) / w))
    e_in = sub.delta / abs(w)
    pw = power_of_two(w)
    div = _round(fmt, d_lo, d_hi, e_in, sub.fix - fix_of(w) if pw else None, scaled=pw)
    spread = e_in + div.delta
    u_lo, u_hi = sorted(((2 * lo - a - b) / (b - a), (2 * hi - a - b) / (b - a)))
    gap = max(abs((2 * x - s) / w - (2 * x - a - b) / (b - a)) for x in (lo, hi))
    return sub, div, d_lo - spread, d_hi + spread, gap + spread, u_lo, u_hi


def clenshaw_piece(c: list[fmpq], dom: tuple[fmpq, fmpq], s: fmpq, w: fmpq, lo: fmpq,
                   hi: fmpq, dpoly_sup: Callable[[fmpq, fmpq], fmpq],
                   fmt: Format = BINARY64) -> Piece:
    """Clenshaw's recurrence for ``x`` of the format in ``[lo, hi]`` (module docstring);
    ``dpoly_sup(lo, hi)`` bounds ``|P'|`` on ``[lo, hi]`` (used when ``D_t > 0``)."""
    n = len(c) - 1
    sub, div, tl, tr, gap, ul, uh = mapping_constants(dom, s, w, lo, hi, fmt)
    big_t = max(abs(tl), abs(tr))
    if big_t > MAX_T:
        raise DomainError(f"the interval reaches |t| > {MAX_T} (t = u(x), the argument on "
                          "[-1, 1]): too far outside the Chebyshev domain")
    ft = div.fix
    m, r = (tl + tr) / 2, (tr - tl) / 2
    claims: list[_Claim] = [sub.claim, div.claim]
    top = max(_e(sub.claim), _e(div.claim))
    inside = big_t <= 1
    uu = _u_bounds(big_t, n)
    su, st = clenshaw_caps(c, big_t)
    b1, b2 = [c[n]], [fmpq(0)]
    err1, err2 = fmpq(0), fmpq(0)
    f1, f2 = fix_of(c[n]), ZERO_FIX
    rs: list[fmpq] = []  # R_{n-1}, R_{n-2}, ...
    cum = sweep = fmpq(0)  # sum R_j and sum R_j (j - k + 1), |t| <= 1
    for k in range(n - 1, -1, -1):
        checkpoint("evaluation error")  # as in horner_piece
        two = 2 if k else 1  # 2t in the loop, t in the last step
        mm = [two * m * b1[0]] + [two * (m * b1[j] + r * b1[j - 1])
                                  for j in range(1, len(b1))] + [two * r * b1[-1]]
        lo_m, hi_m = _clamp(*taylor_range(mm), two * big_t * su[k + 1])
        e_in = two * big_t * err1
        const = k == n - 1  # b_{k+1} is the coefficient c_n itself
        mul = _round(fmt, lo_m, hi_m, e_in,
                     ZERO_FIX if ZERO_FIX in (ft, f1) else ft + (two - 1) + f1,
                     zero=ZERO_FIX in (ft, f1), scaled=const and power_of_two(c[n]))
        gg = [x - (b2[j] if j < len(b2) else 0) for j, x in enumerate(mm)]
        # g_k = b_k - c_k: sum_{j > k} c_j U_(j-k) in the loop, sum_{j >= 1} c_j T_j at the end
        lo_g, hi_g = _clamp(*taylor_range(gg), su[k] - abs(c[k]) if k else st[1])
        e_in += mul.delta + err2
        g = _round(fmt, lo_g, hi_g, e_in, min(mul.fix, f2), zero=k == n - 1)
        e_in += g.delta
        lo_a, hi_a = _clamp(lo_g + c[k], hi_g + c[k], su[k] if k else st[0])
        add = _round(fmt, lo_a, hi_a, e_in, min(g.fix, fix_of(c[k])), zero=c[k] == 0)
        rk = mul.delta + g.delta + add.delta
        claims += [mul.claim, g.claim, add.claim]
        top = max(top, _e(mul.claim), _e(g.claim), _e(add.claim))
        rs.append(rk)
        if k == 0:
            break
        cum += rk
        sweep += cum
        usum = sweep if inside else sum(
            (rj * uu[len(rs) - 1 - i] for i, rj in enumerate(rs)), fmpq(0))
        err_k = min(e_in + add.delta, usum)
        gg[0] += c[k]
        b1, b2 = gg, b1
        err1, err2 = err_k, err1
        f1, f2 = add.fix, f1
    tt = _t_bounds(big_t, n)
    rounding = sum((rj * tt[n - 1 - i] for i, rj in enumerate(rs)), fmpq(0))
    mapping, dmax = fmpq(0), None
    if gap > 0:
        dmax = up(dpoly_sup(min(tl, ul), max(tr, uh)))
        mapping = gap * dmax
    return Piece(lo, hi, rounding + mapping, rounding, mapping, claims, dmax, top)


def _u_bounds(big_t: fmpq, n: int) -> list[fmpq]:
    """``sup_{|t| <= T} |U_m(t)|`` for m = 0..n: ``m + 1`` when ``T <= 1``, else ``U_m(T)``."""
    if big_t <= 1:
        return [fmpq(m + 1) for m in range(n + 1)]
    out = [fmpq(1), 2 * big_t]
    while len(out) <= n:
        out.append(2 * big_t * out[-1] - out[-2])
    return out[: n + 1]


def _t_bounds(big_t: fmpq, n: int) -> list[fmpq]:
    """``sup_{|t| <= T} |T_j(t)|`` for j = 0..n: 1 when ``T <= 1``, else ``T_j(T)``."""
    if big_t <= 1:
        return [fmpq(1)] * (n + 1)
    out = [fmpq(1), big_t]
    while len(out) <= n:
        out.append(2 * big_t * out[-1] - out[-2])
    return out[: n + 1]
