"""Certified rounding-error bounds of binary64 polynomial evaluation (Horner, Clenshaw).

:func:`evalbound` returns a rigorous bound on ``|fl(p(x)) - p(x)|`` over every binary64
``x`` in an interval ``[A, B]``, where ``fl(p(x))`` is the value computed in IEEE 754
binary64 (round to nearest even, no FMA, no extended precision) by exactly the
operations listed below; :func:`float_error_bound` adds the certified ``sup |f - p|`` of
the interval certifier to give ``|f(x) - fl(p(x))|``.

Model (Higham, *Accuracy and Stability of Numerical Algorithms*, 2nd ed., SIAM 2002,
§2.2 and §2.4, eqs. (2.4), (2.5), (2.8)).  With ``u = 2^-53`` and ``eta = 2^-1075``, for
binary64 ``a, b`` whose exact result does not overflow:
``fl(a * b) = a b (1 + e) + h`` with ``|e| <= u``, ``|h| <= eta`` (``h`` covers gradual
underflow, ``e h = 0``); ``fl(a / b)`` likewise; ``fl(a +- b) = (a +- b) / (1 + d)``,
``|d| <= u`` (sums are exact when the result is subnormal, so no ``eta``).  Multiplying by
2 is exact.  All bounds below are evaluated in exact rational arithmetic (``fmpq``), every
intermediate upper bound rounded *up* to a 64-bit dyadic, so the result is rigorous.

Coefficients.  A float implementation stores ``c^_i = round(c_i)`` (nearest binary64);
the bound includes ``sup |p^ - p|`` over the interval (zero when the coefficients are
binary64 already, e.g. hex floats or ``--float64`` input).

Horner (monomial basis), ``n = deg p``: ``q_n = c^_n``, ``q_i = fl(fl(x q_{i+1}) + c^_i)``
for ``i = n-1 .. 0`` (``numpy.polynomial.polynomial.polyval`` does these operations).
Higham §5.1 gives ``|p(x) - fl(p(x))| <= gamma_{2n} sum |c_i| |x|^i``,
``gamma_m = m u / (1 - m u)`` (reported as ``higham``, for comparison).  We use a sharper
per-step bound.  Write ``q^_i`` for computed values, ``q_i(x) = sum_{j>=i} c^_j x^(j-i)``
for exact ones, ``e_i = q^_i - q_i``.  By the model, with ``t = fl(x q^_{i+1}) =
x q^_{i+1} (1 + e) + h`` and ``q^_i (1 + d) = t + c^_i``::

    q^_i = x q^_{i+1} + c^_i + r_i,   r_i = x q^_{i+1} e + h - q^_i d,
    |r_i| <= u (|x| |q^_{i+1}| + |q^_i|) + eta,     e_i = x e_{i+1} + r_i,  e_n = 0.

Let ``X = max(|A|, |B|)``, ``M_i >= sup_[A,B] |q_i|`` (exact Taylor-form bounds on 32
pieces) and ``E_i >= sup |e_i|``, ``H_i = M_i + E_i >= sup |q^_i|``.  Then
``|e_i| <= X E_{i+1} + u (X H_{i+1} + M_i + |e_i|) + eta``, hence::

    E_n = 0,   E_i = (X E_{i+1} + u (X H_{i+1} + M_i) + eta) / (1 - u),

and ``|fl(p(x)) - p^(x)| <= E_0``.  Where the partial sums ``q_i`` are much smaller than
``sum |c_j| X^j`` (decaying coefficients, cancellation) this is far below Higham's bound.

Clenshaw (Chebyshev basis on ``(a, b)``), ``n = deg p``, as in
:func:`dpverify.fast.chebyshev.clenshaw`: ``t = fl(fl(2x - s^) / w^)`` with
``s^ = fl(a^ + b^)``, ``w^ = fl(b^ - a^)`` (``t = x`` exactly when ``(a, b) = (-1, 1)``),
``b^_n = c^_n``, ``b^_{n+1} = 0``, ``b^_k = fl(fl(fl(2t b^_{k+1}) - b^_{k+2}) + c^_k)`` for
``k = n-1 .. 1``, ``y^ = fl(fl(fl(t b^_1) - b^_2) + c^_0)``.  *Derivation* (from the model
only): with ``m = fl(2t b^_{k+1}) = 2t b^_{k+1}(1 + e1) + h``, ``g (1 + e2) = m - b^_{k+2}``,
``b^_k (1 + e3) = g + c^_k``::

    b^_k = 2t b^_{k+1} - b^_{k+2} + c^_k + r_k,   r_k = e1 2t b^_{k+1} + h - e2 g - e3 b^_k,
    |g| <= (1 + u)|b^_k| + |c^_k|,  so  |r_k| <= u ((2 + u)|b^_k| + |c^_k| + 2|t||b^_{k+1}|) + eta.

The errors ``e_k = b^_k - b_k`` obey Clenshaw's recurrence with right-hand side ``r_k``
(``e_k = 2t e_{k+1} - e_{k+2} + r_k``, ``e_n = e_{n+1} = 0``), whose solution is
``e_k = sum_{j=k}^{n-1} r_j U_{j-k}(t)`` (Chebyshev polynomials of the second kind), and the
final step gives ``y^ - P^(t) = t e_1 - e_2 + r_0 = r_0 + sum_{j>=1} r_j T_j(t)`` (since
``t U_{j-1} - U_{j-2} = T_j``), with ``|r_0|`` bounded as ``r_k`` but ``|t|`` for ``2|t|``.
(This is the classical analysis of Clenshaw's algorithm, cf. Oliver, *J. Inst. Maths
Applics* 20 (1977) and Higham 2002, Notes to ch. 5; the constants here are our own.)  With
``T = sup |t|``, ``TT_j >= sup |T_j(t)|``, ``V_m >= sup |U_m(t)|`` (``1`` and ``m + 1`` when
``T <= 1``, ``T_j(T)`` and ``U_m(T)`` otherwise), ``B_k >= sup |b_k(t)|`` (exact
polynomials in ``t``, Taylor-form bounds on pieces), ``R_k >= sup |r_k|`` and
``E_k >= sup |e_k|``: ``E_k = (a_k + S_k) / (1 - u (2 + u))``, ``R_k = a_k + u (2 + u) E_k``,
``a_k = u ((2 + u) B_k + |c^_k| + 2 T (B_{k+1} + E_{k+1})) + eta``,
``S_k = sum_{j>k} R_j V_{j-k}``; the final error is bounded the same way with
``sup |P^|``.  The mapping ``x -> t`` is analysed separately: ``|t - u(x)| <= D`` (exact,
from the model), and ``|P^(t) - P^(u(x))| <= D sup |P^'|`` over ``[u(A), u(B)] +- D``.

Guarantee
---------
For every **binary64** ``x`` in ``[A, B]`` (the endpoints need not be binary64: the bound
holds for all real ``x`` in ``[A, B]`` and so for the binary64 numbers among them; the
rounding of a real input to binary64 before evaluation is *not* covered),
``|fl(p(x)) - p(x)| <= bound``, where ``fl`` is IEEE 754 binary64 arithmetic with rounding
to nearest, no fused multiply-add and no extended precision, doing exactly the operations
above, and ``p`` is the polynomial with the *given* exact coefficients.  Gradual underflow
is covered (the ``eta`` terms); overflow is excluded by a check: every intermediate
quantity is proven ``< 2^1023`` in magnitude, else :class:`~dpverify.errors.DomainError`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from flint import fmpq, fmpq_poly, fmpz

from ..errors import DomainError, InvalidParameterError, ParameterTypeError
from ..exact import ChebyshevPoly, ExactPoly, MonomialPoly, fmpq_sum
from ..numbers import MAX_DEGREE, check_int, fmpq_str, fmpq_to_decimal, round_to_float64, to_fmpq
from ..progress import ProgressCallback, report

__all__ = ["EvalBound", "FloatErrorBound", "evalbound", "float_error_bound", "sup_abs_bound"]

U = fmpq(1, 2**53)  # unit roundoff of binary64, round to nearest
ETA = fmpq(1, 2**1075)  # half the smallest subnormal: the underflow term of a product
_OVERFLOW = fmpq(2) ** 1023
_BITS = 64  # mantissa of the dyadic upper bounds carried through the recurrences
_PIECES = 32


def _up(q: fmpq) -> fmpq:
    """A dyadic rational ``>= q`` with a ``_BITS``-bit numerator (``q`` itself when 0)."""
    if q <= 0:
        return q
    e = q.p.bit_length() - q.q.bit_length()
    shift = _BITS - e
    scaled = q * fmpz(2) ** shift if shift >= 0 else q / fmpz(2) ** (-shift)
    m = scaled.ceil()
    return fmpq(m) / fmpz(2) ** shift if shift >= 0 else fmpq(m * fmpz(2) ** (-shift))


def sup_abs_bound(P: fmpq_poly, lo: fmpq, hi: fmpq, pieces: int = _PIECES) -> fmpq:
    """An upper bound of ``sup_{lo <= x <= hi} |P(x)|`` (exact Taylor forms on pieces).

    On a piece with centre ``m`` and radius ``r``, ``|P(m + t)| <= sum_k |P_k(m)| r^k`` with
    the exact Taylor coefficients ``P_k(m)`` (``fmpq_poly`` composition).  Rigorous.
    """
    if P.degree() <= 0:
        return abs(fmpq(P[0])) if P.degree() == 0 else fmpq(0)
    best = fmpq(0)
    step = (hi - lo) / pieces
    r = step / 2
    for i in range(pieces):
        m = lo + step * i + r
        shifted = P(fmpq_poly([m, 1]))
        total, rk = fmpq(0), fmpq(1)
        for c in shifted.coeffs():
            total += abs(c) * rk
            rk *= r
        best = max(best, _up(total))
    return best


@dataclass
class EvalBound:
    """A certified bound on the binary64 evaluation error (see the module docstring).

    Attributes
    ----------
    bound : fmpq
        ``sup |fl(p(x)) - p(x)|`` over binary64 ``x`` in the interval is ``<= bound``;
        ``bound = rounding + coefficients + mapping``.
    rounding : fmpq
        The algorithm's rounding error for the binary64 coefficients (``E_0``).
    coefficients : fmpq
        ``sup |p^ - p|``: rounding the coefficients to binary64 (0 when already binary64).
    mapping : fmpq
        Clenshaw on a domain other than ``(-1, 1)``: the error of computing ``t``.
    higham : fmpq or None
        Horner only: ``gamma_{2n} sum |c^_i| X^i`` (Higham 2002 eq. (5.3)), for comparison.
    """

    algorithm: str
    basis: str
    interval: tuple[fmpq, fmpq]
    degree: int
    bound: fmpq
    rounding: fmpq
    coefficients: fmpq
    mapping: fmpq
    higham: fmpq | None
    float_coefficients: list[fmpq]
    max_intermediate: fmpq
    stats: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "algorithm": self.algorithm,
            "basis": self.basis,
            "interval": [fmpq_str(self.interval[0]), fmpq_str(self.interval[1])],
            "degree": self.degree,
            "bound": fmpq_str(self.bound),
            "bound_decimal": fmpq_to_decimal(self.bound, 6, "up"),
            "rounding": fmpq_to_decimal(self.rounding, 6, "up"),
            "coefficients": fmpq_to_decimal(self.coefficients, 6, "up"),
            "mapping": fmpq_to_decimal(self.mapping, 6, "up"),
            "higham": None if self.higham is None else fmpq_to_decimal(self.higham, 6, "up"),
            "max_intermediate": fmpq_to_decimal(self.max_intermediate, 6, "up"),
            "assumptions": ASSUMPTIONS,
        }
        return out


ASSUMPTIONS = ("x is a binary64 number in the interval; IEEE 754 binary64, round to nearest "
               "even, no FMA, no extended precision; the operations of dpverify.certify."
               "evalbound; gradual underflow covered; overflow excluded (checked)")


def _read_poly(poly: Any, basis: str | None, domain: Any) -> ExactPoly:
    if isinstance(poly, ExactPoly):
        if basis is not None and basis != poly.basis:
            raise InvalidParameterError(f"basis={basis!r} but poly is in the {poly.basis} basis")
        if domain is not None:
            raise InvalidParameterError("domain applies to coefficient lists only; the "
                                        "polynomial carries its own")
        if poly.basis not in ("monomial", "chebyshev"):
            raise InvalidParameterError(
                f"poly must be in the monomial (Horner) or chebyshev (Clenshaw) basis, got "
                f"{poly.basis}; convert it first")
        return poly
    if isinstance(poly, (str, bytes)) or not isinstance(poly, Sequence):
        raise ParameterTypeError(
            f"poly must be a MonomialPoly, a ChebyshevPoly or a list of coefficients, got "
            f"{type(poly).__name__}")
    basis = basis or "monomial"
    if basis == "monomial":
        if domain is not None:
            raise InvalidParameterError("domain only applies to the chebyshev basis")
        return MonomialPoly(poly)
    if basis == "chebyshev":
        return ChebyshevPoly(poly, domain=(-1, 1) if domain is None else domain)
    raise InvalidParameterError(f"basis must be 'monomial' or 'chebyshev', got {basis!r}")


def evalbound(
    poly: Any,
    interval: Any,
    *,
    basis: str | None = None,
    domain: Any = None,
    pieces: int = _PIECES,
    progress: ProgressCallback | None = None,
) -> EvalBound:
    """Certified bound on ``|fl(p(x)) - p(x)|`` over binary64 ``x`` in ``interval``.

    Parameters
    ----------
    poly : MonomialPoly, ChebyshevPoly or sequence of exact numbers
        The polynomial with its exact coefficients (lowest index first).  Monomial
        polynomials are analysed for Horner's rule, Chebyshev ones for Clenshaw's
        recurrence (module docstring).
    interval : pair of exact numbers
        ``(A, B)`` with ``A < B``.
    basis : {"monomial", "chebyshev"}, optional
        For a coefficient list (default ``"monomial"``).
    domain : pair of exact numbers, optional
        Chebyshev domain ``(a, b)`` of a coefficient list (default ``(-1, 1)``).
    pieces : int
        Sub-intervals of the Taylor-form bounds of the partial sums (1..4096).
    progress : callable, optional
        ``progress(stage, done, total)`` (:mod:`dpverify.progress`): the steps of the
        recurrence analysed so far (counts only).

    Returns
    -------
    EvalBound

    Raises
    ------
    DomainError
        When overflow cannot be excluded (some intermediate may reach ``2^1023``).

    Guarantee
    ---------
    See the module docstring: rigorous for binary64 ``x`` in ``[A, B]`` and the stated
    operations; exact rational arithmetic with upward rounding only.

    ``fl(fl(x * 1) + 1)`` on ``[0, 1]``: the model charges ``u |x|`` for the product and
    ``u |y| <= 2u`` for the sum, so the bound is about ``3u``:

    >>> r = evalbound([1, 1], (0, 1))
    >>> fmpq(2, 2**53) <= r.bound <= fmpq(3, 2**53) * (1 + fmpq(1, 2**50))
    True
    """
    p = _read_poly(poly, basis, domain)
    check_int(pieces, "pieces", 1, 4096)
    if not isinstance(interval, (list, tuple)) or len(interval) != 2:
        raise InvalidParameterError(f"interval must be a pair (A, B), got {interval!r}")
    A, B = to_fmpq(interval[0], "interval[0]"), to_fmpq(interval[1], "interval[1]")
    if not A < B:
        raise InvalidParameterError(f"interval must have A < B, got [{A}, {B}]")
    X = max(abs(A), abs(B))
    if X >= fmpq(2) ** 1022:
        raise DomainError("interval reaches |x| >= 2^1022: overflow cannot be excluded")
    if p.degree > MAX_DEGREE:
        raise InvalidParameterError(f"degree must be <= {MAX_DEGREE}")
    cs = list(p.coeffs)
    chat = [round_to_float64(c, f"poly[{i}]") for i, c in enumerate(cs)]
    if p.basis == "monomial":
        return _horner(cs, chat, A, B, X, pieces, progress)
    return _clenshaw(p, cs, chat, A, B, pieces, progress)


def _check_overflow(g: fmpq) -> None:
    if not g < _OVERFLOW:
        raise DomainError(
            f"an intermediate of the evaluation may reach {fmpq_to_decimal(g, 6, 'up')} >= "
            "2^1023: overflow cannot be excluded on this interval")


def _horner(cs: list[fmpq], chat: list[fmpq], A: fmpq, B: fmpq, X: fmpq,
            pieces: int, progress: ProgressCallback | None = None) -> EvalBound:
    n = len(chat) - 1
    # coefficient rounding: sup |p^ - p| on [A, B]
    diff = fmpq_poly([h - c for h, c in zip(chat, cs)])
    coef_err = sup_abs_bound(diff, A, B, pieces) if not diff.is_zero() else fmpq(0)
    E, H = fmpq(0), abs(chat[n])
    G = H
    tail = fmpq_poly([chat[n]])
    for i in range(n - 1, -1, -1):
        if progress is not None and not i & 15:
            progress("evaluation error: Horner steps", n - 1 - i, n)
        tail = tail * fmpq_poly([0, 1]) + chat[i]  # q_i(x) = x q_{i+1}(x) + c^_i
        M = sup_abs_bound(tail, A, B, pieces)
        E_new = _up((X * E + U * (X * H + M) + ETA) / (1 - U))
        G = max(G, _up(X * H * (1 + U) + ETA), M + E_new)
        E, H = E_new, _up(M + E_new)
    report(progress, "evaluation error: Horner steps", n, n)
    _check_overflow(G)
    if n == 0:
        E = fmpq(0)  # a constant is returned as stored
    S = fmpq_sum([abs(c) * X**i for i, c in enumerate(chat)])
    higham = _up(2 * n * U / (1 - 2 * n * U) * S) if n > 0 else fmpq(0)
    return EvalBound("horner", "monomial", (A, B), n, _up(E + coef_err), E, coef_err,
                     fmpq(0), higham, chat, G, {"pieces": pieces})


def _cheb_T_U(T: fmpq, n: int) -> tuple[list[fmpq], list[fmpq]]:
    """Upper bounds of ``sup_{|t| <= T} |T_j(t)|`` and ``|U_m(t)|`` for j, m = 0..n."""
    if T <= 1:
        return [fmpq(1)] * (n + 1), [fmpq(m + 1) for m in range(n + 1)]
    tj = [fmpq(1), T]
    uj = [fmpq(1), 2 * T]
    for _ in range(2, n + 1):
        tj.append(2 * T * tj[-1] - tj[-2])
        uj.append(2 * T * uj[-1] - uj[-2])
    # for |t| >= 1 the values at |t| are the sup (|T_j|, |U_m| increase beyond 1); inside
    # [-1, 1] they are at most 1 and m + 1 <= U_m(T); round up after the exact recurrence
    return [_up(v) for v in tj[: n + 1]], [_up(v) for v in uj[: n + 1]]


def _mapping(dom: tuple[fmpq, fmpq], A: fmpq, B: fmpq) -> tuple[fmpq, fmpq, fmpq, fmpq, fmpq]:
    """``(t_lo, t_hi, D, ua, ub)``: the computed ``t`` lies in ``[t_lo, t_hi]`` and within ``D``
    of ``u(x) = (2x - a - b)/(b - a)``; ``ua, ub = u(A), u(B)`` (exact)."""
    a, b = dom
    ua, ub = (2 * A - a - b) / (b - a), (2 * B - a - b) / (b - a)
    if a == -1 and b == 1:
        # (2.0*x - 0.0) / 2.0 is exact: 2x is exact, subtracting 0 is exact, and halving a
        # doubled binary64 number gives it back
        return ua, ub, fmpq(0), ua, ub
    fa, fb = float(round_to_float64(a, "domain[0]")), float(round_to_float64(b, "domain[1]"))
    s_hat, w_hat = fmpq(*(fa + fb).as_integer_ratio()), fmpq(*(fb - fa).as_integer_ratio())
    if w_hat <= 0:
        raise DomainError("the domain's endpoints round to the same binary64 number")
    D = fmpq(0)
    for x, ux in ((A, ua), (B, ub)):
        v = (2 * x - s_hat) / w_hat
        # t = fl(fl(2x - s^)/w^) = v (1 + e2)/(1 + d1) + h: |t - v| <= |v| 2u/(1 - u) + eta
        D = max(D, abs(v - ux) + abs(v) * 2 * U / (1 - U) + ETA)
    D = _up(D)
    return min(ua, ub) - D, max(ua, ub) + D, D, ua, ub


def _clenshaw(p: ExactPoly, cs: list[fmpq], chat: list[fmpq], A: fmpq, B: fmpq,
              pieces: int, progress: ProgressCallback | None = None) -> EvalBound:
    n = len(chat) - 1
    assert p.domain is not None
    t_lo, t_hi, D, _, _ = _mapping(p.domain, A, B)
    T = max(abs(t_lo), abs(t_hi))
    # P^(t) and P(t) in the monomial basis of t (the [-1, 1] coordinate), exactly
    Pt = fmpq_poly(list(ChebyshevPoly(chat).to_monomial().coeffs))
    Pexact = fmpq_poly(list(ChebyshevPoly(cs).to_monomial().coeffs))
    diff = Pt - Pexact
    coef_err = sup_abs_bound(diff, t_lo, t_hi, pieces) if not diff.is_zero() else fmpq(0)
    Bp = sup_abs_bound(Pt, t_lo, t_hi, pieces)
    mapping = fmpq(0)
    if D > 0:
        mapping = _up(D * sup_abs_bound(Pt.derivative(), t_lo, t_hi, pieces))
    if n == 0:
        return EvalBound("clenshaw", "chebyshev", (A, B), 0, _up(coef_err + mapping), fmpq(0),
                         coef_err, mapping, None, chat, abs(chat[0]), {"pieces": pieces})
    TT, V = _cheb_T_U(T, n)
    k2 = U * (2 + U)
    # exact b_k(t) polynomials: b_n = c_n, b_k = c_k + 2t b_{k+1} - b_{k+2}
    b1, b2 = fmpq_poly([chat[n]]), fmpq_poly([])
    twot = fmpq_poly([0, 2])
    Bhat = {n: abs(chat[n]), n + 1: fmpq(0)}  # B_k + E_k >= sup |b^_k|
    R: dict[int, fmpq] = {}
    G = abs(chat[n])
    for k in range(n - 1, 0, -1):
        if progress is not None and not k & 15:
            progress("evaluation error: Clenshaw steps", n - 1 - k, n)
        b1, b2 = twot * b1 - b2 + chat[k], b1
        Bk = sup_abs_bound(b1, t_lo, t_hi, pieces)
        a_k = U * ((2 + U) * Bk + abs(chat[k]) + 2 * T * Bhat[k + 1]) + ETA
        S = fmpq_sum([R[j] * V[j - k] for j in range(k + 1, n)])
        Ek = _up((a_k + S) / (1 - k2))
        R[k] = _up(a_k + k2 * Ek)
        Bhat[k] = _up(Bk + Ek)
        G = max(G, _up(2 * T * Bhat[k + 1] * (1 + U) + ETA + Bhat[k + 2]), Bhat[k])
    report(progress, "evaluation error: Clenshaw steps", n, n)
    # final step: y^ = fl(fl(fl(t b^_1) - b^_2) + c^_0)
    S = fmpq_sum([R[j] * TT[j] for j in range(1, n)])
    a0 = U * ((2 + U) * Bp + abs(chat[0]) + T * Bhat[1]) + ETA
    E0 = _up((S + a0) / (1 - k2))
    G = max(G, _up(T * Bhat[1] * (1 + U) + ETA + Bhat[2]), _up(Bp + E0), 2 * T)
    _check_overflow(G)
    return EvalBound("clenshaw", "chebyshev", (A, B), n, _up(E0 + coef_err + mapping), E0,
                     coef_err, mapping, None, chat, G, {"pieces": pieces, "t_max": str(T)})


@dataclass
class FloatErrorBound:
    """``|f(x) - fl(p(x))| <= sup |f - p| + evalbound`` for binary64 ``x`` in the interval.

    ``supnorm`` is the interval certifier's enclosure (its certificate, ``certificate``, is
    checked by ``dpverify verify``); ``evaluation`` the :class:`EvalBound`; ``bound`` their
    exact sum (``supnorm.upper + evaluation.bound``)."""

    bound: fmpq
    supnorm_upper: fmpq
    evaluation: EvalBound
    certificate: Any

    def to_json(self) -> dict[str, Any]:
        return {"bound": fmpq_str(self.bound),
                "bound_decimal": fmpq_to_decimal(self.bound, 6, "up"),
                "supnorm_upper": fmpq_str(self.supnorm_upper),
                "evaluation": self.evaluation.to_json()}


def float_error_bound(f: Any, poly: Any, interval: Any, *, basis: str | None = None,
                      domain: Any = None, rtol: Any = "1e-3", timeout: Any = None,
                      progress: ProgressCallback | None = None) -> FloatErrorBound:
    """Certified ``sup |f(x) - fl(p(x))|`` over binary64 ``x`` in ``interval``.

    ``sup |f - p|`` comes from :func:`dpverify.certify.certify` on the box (a checkable
    ``supnorm-box`` certificate), the evaluation error from :func:`evalbound`; by the
    triangle inequality ``|f - fl(p)| <= |f - p| + |p - fl(p)|``.  ``progress``: a
    :mod:`dpverify.progress` callback for both parts (counts only).

    Guarantee
    ---------
    Both terms are rigorous upper bounds (module docstring for the evaluation model), so
    ``bound`` is one for every binary64 ``x`` in ``[A, B]``.
    """
    # function-level: the interval certifier behind claims.certify and the expression
    # language cost ~55 ms to import (-X importtime) and only this function needs them;
    # ``dpverify evalbound`` without --f never loads them
    from ..approximation import Approximation
    from ..expr import parse
    from .claims import certify

    ev = evalbound(poly, interval, basis=basis, domain=domain, progress=progress)
    p = _read_poly(poly, basis, domain)
    fx = parse(f, variables=("x",), name="f") if isinstance(f, str) else f
    A, B = ev.interval
    cert = certify(Approximation(
        construction="supnorm", params={}, poly=p,
        target={"kind": "expr", "expr": fx.canonical, "variables": ["x"]},
        domain={"kind": "box", "intervals": [[fmpq_str(A), fmpq_str(B)]]}, claims={}),
        rtol=rtol, timeout=timeout, progress=progress)
    up = to_fmpq(cert.error["upper"])
    return FloatErrorBound(up + ev.bound, up, ev, cert)
