"""Kind ``jackson-kernel`` (wang2013 Definition 4.1, eq. (2)), recomputed exactly.

``F_s(u) = sum_{|l|<s} (s-|l|) e^{ilu}``; ``F_{t'}^r = sum_l b_l e^{ilu}`` is computed as the
integer polynomial ``(z^(s-1) F_s)^r`` (fmpz_poly), so ``b_l`` is its coefficient at
``r(s-1) + l``.  Then ``2 pi a_0 = 1``, ``2 pi a_l = 2 b_l / b_0`` and, when ``K`` is given,
``w_n = -sum_{l=1}^{K+1} (-1)^l C(K+1,l) b_{ln} / b_0`` (``b_m = 0`` beyond the degree).
"""

from __future__ import annotations

from math import comb

from flint import fmpq, fmpz_poly

from .numbers import expect_keys, read_exact, read_int, read_list, show
from .report import Checks, Malformed

__all__ = ["verify_jackson"]


def verify_jackson(obj: object, ev: object, ck: Checks, out: list[str]) -> None:
    st = expect_keys(obj, "statement", ("t", "r", "K", "t_prime", "degree", "coefficients_2pi"),
                ("multipliers",))
    if ev is not None and ev != {}:
        raise Malformed("evidence: a jackson-kernel certificate carries no evidence")
    t = read_int(st["t"], "statement.t", 0, 100_000)
    r = read_int(st["r"], "statement.r", 1, 64)
    K = None if st["K"] is None else read_int(st["K"], "statement.K", 0, 120)
    tp = read_int(st["t_prime"], "statement.t_prime", 1, 100_001)
    deg = read_int(st["degree"], "statement.degree", 0, 20_000)
    coef = [read_exact(c, "statement.coefficients_2pi")
            for c in read_list(st["coefficients_2pi"], "statement.coefficients_2pi", 1, 20_001)]
    mult: list[fmpq] | None = None
    if st.get("multipliers") is not None:
        mult = [read_exact(c, "statement.multipliers")
                for c in read_list(st["multipliers"], "statement.multipliers", 1, 100_001)]
    out += [f"H_{{t,r}}(u) = F_{{t'}}(u)^r / (2 pi b_0) = a_0 + sum_l a_l cos(l u) with t = {t}, "
            f"r = {r}, t' = floor(t/r) + 1 = {tp}, degree r (t' - 1) = {deg}.",
            f"Claim: the {len(coef)} listed values are 2 pi a_l, l = 0..{deg}."]
    if K is not None:
        out.append(f"Claim: K = {K}, r = ceil((K+3)/2), and the {len(mult or [])} multipliers "
                   f"are w_n, n = 0..{t}, of the operator I_(t,K) (wang2013 eq. (2)).")
    ck.add("t' = floor(t/r) + 1", tp == t // r + 1, f"t = {t}, r = {r}, stated t' = {tp}")
    ck.add("degree = r (t' - 1)", deg == r * (tp - 1), f"stated degree {deg}")
    if tp != t // r + 1 or deg != r * (tp - 1):
        return
    s = tp
    base = fmpz_poly([s - abs(j - (s - 1)) for j in range(2 * s - 1)])
    ck.tick()
    power = base**r
    b = [power[deg + j] for j in range(deg + 1)]
    want = [fmpq(1)] + [fmpq(2 * x, b[0]) for x in b[1:]]
    diff = next((i for i, (x, y) in enumerate(zip(want, coef)) if x != y),
                min(len(want), len(coef)))
    ck.add("coefficients 2 pi a_l", want == coef, "recomputed exactly" if want == coef else
           f"{len(coef)} values stated, {len(want)} expected; first difference at l = {diff}")
    if K is None:
        ck.add("multipliers", mult is None, "no K: multipliers must be absent or null")
        return
    ck.add("r = ceil((K+3)/2)", r == (K + 4) // 2, f"K = {K}, r = {r}")
    if mult is None:
        ck.add("multipliers", False, "K is given but the multipliers are missing")
        return

    def multipliers() -> tuple[bool, str]:
        w = []
        for n in range(t + 1):
            ck.tick()
            acc = 0
            for l_ in range(1, K + 2):
                if l_ * n > deg:
                    break
                acc += (-1) ** l_ * comb(K + 1, l_) * b[l_ * n]
            w.append(fmpq(-acc, b[0]))
        bad = next((n for n, (x, y) in enumerate(zip(w, mult)) if x != y), None)
        if len(w) != len(mult) or bad is not None:
            return False, (f"{len(mult)} stated, {len(w)} expected" if bad is None else
                           f"w_{bad} = {show(w[bad])}, stated {show(mult[bad])}")
        return True, f"{len(w)} multipliers recomputed exactly"
    ck.run("multipliers w_n", multipliers)
