"""The verifier's many-point evaluation (dpverify/verify/multipoint.py) and the exact
maximum of ``supnorm-finite`` built on it (verify/finite.py).

Expected values are computed here independently, by exact fmpq evaluation of the
certificate's own coefficients (Horner in Python), never taken from the checker.
"""

from __future__ import annotations

import copy
import json
import random

import pytest
from flint import arb, fmpq, fmpq_poly, fmpz_poly

from dpverify.cli import main
from dpverify.verify import finite, verify_document
from dpverify.verify.multipoint import enclose_at


def _exact_ball(b: arb) -> tuple[fmpq, fmpq]:
    """(midpoint, radius) of a ball as exact rationals."""
    m, e = b.mid().man_exp()
    r, f = b.rad().man_exp()
    mid = fmpq(m) * fmpq(2) ** e if e >= 0 else fmpq(m, 2 ** (-e))
    rad = fmpq(r) * fmpq(2) ** f if f >= 0 else fmpq(r, 2 ** (-f))
    return mid, rad


def _horner(cs: list[fmpq], x: fmpq) -> fmpq:
    acc = fmpq(0)
    for c in reversed(cs):
        acc = acc * x + c
    return acc


def _assert_encloses(P: fmpq_poly, xs: list[fmpq], bits: int) -> None:
    cs = P.coeffs()
    balls = enclose_at(P, xs, bits)
    assert len(balls) == len(xs)
    for x, b in zip(xs, balls):
        mid, rad = _exact_ball(b)
        assert abs(_horner(cs, x) - mid) <= rad, (x, b)


@pytest.mark.parametrize("seed", range(4))
def test_enclosures_contain_the_exact_values(seed):
    rng = random.Random(seed)
    deg = rng.choice([9, 40, 150])
    P = fmpq_poly([fmpq(rng.randint(-10**30, 10**30), rng.randint(1, 10**20))
                   for _ in range(deg + 1)])
    xs = [fmpq(rng.randint(-300, 300), rng.randint(1, 7)) for _ in range(600)]
    xs += xs[:5]  # repeated points
    _assert_encloses(P, xs, 60)


def test_enclosures_of_an_ill_conditioned_polynomial():
    # T_300 on [0, 2000]: monomial coefficients about 2^(300 * 11), values in [-1, 1]
    T = fmpq_poly(fmpz_poly.chebyshev_t(300))
    P = T(fmpq_poly([-1, fmpq(1, 1000)]))
    xs = [fmpq(x) for x in range(2001)]
    balls = enclose_at(P, xs, 80)
    cs = P.coeffs()
    for x in xs[::37] + [xs[0], xs[-1], xs[1000]]:
        mid, rad = _exact_ball(balls[int(x.p)])
        assert abs(_horner(cs, x) - mid) <= rad
        assert rad < fmpq(1, 2**60)  # and tight enough to screen with


def _or_cert(tmp_path, capsys, k: int, gamma: str) -> dict:
    out = tmp_path / "or.json"
    assert main(["or", "--k", str(k), "--gamma", gamma, "--out", str(out)]) == 0
    capsys.readouterr()
    return json.loads(out.read_text())


def _exact_max(doc: dict) -> tuple[fmpq, int]:
    """max over 0..k of |f - p| and its first argument, by exact Horner on the certificate."""
    st = doc["statement"]
    assert st["polynomial"]["basis"] == "monomial" and st["target"]["kind"] == "threshold"
    cs = [fmpq(*map(int, c.split("/"))) if "/" in c else fmpq(int(c))
          for c in st["polynomial"]["coefficients"]]
    r, lo, hi = st["target"]["r"], st["domain"]["lo"], st["domain"]["hi"]
    best, arg = fmpq(-1), lo
    for x in range(lo, hi + 1):
        e = abs(fmpq(int(x >= r)) - _horner(cs, fmpq(x)))
        if e > best:
            best, arg = e, x
    return best, arg


def _max_check(doc: dict) -> tuple[bool | None, str]:
    rep = verify_document(doc)
    (ok, detail), = [(ok, d) for name, ok, d in rep.checks if name == "sup |f - p| <= upper"]
    return ok, detail


def test_finite_maximum_is_exact_and_decides_exactly(tmp_path, capsys):
    doc = _or_cert(tmp_path, capsys, 600, "1e-9")
    if not all(c.lstrip("-").replace("/", "").isdigit()
               for c in doc["statement"]["polynomial"]["coefficients"]):
        pytest.skip("coefficients are not written as integers or ratios")
    worst, arg = _exact_max(doc)
    ok, detail = _max_check(doc)
    assert ok is True
    assert f"at x = {arg} " in detail and "over 601 points" in detail
    # the bound set exactly at the maximum holds; one 10^-40 below it fails
    for upper, want in ((worst, True), (worst - fmpq(1, 10**40), False)):
        bad = copy.deepcopy(doc)
        bad["statement"]["error"]["upper"] = f"{upper.p}/{upper.q}"
        bad["statement"]["error"].pop("upper_decimal", None)
        bad["statement"]["error"]["lower"] = "0"
        assert _max_check(bad)[0] is want


def test_values_target_maximum_and_first_argument(tmp_path, capsys, monkeypatch):
    # f = p + delta with delta(x) = (x mod 7) / 10^60 known exactly: max |f - p| = 6/10^60,
    # first reached at x = 6 (ties at 13, 20, ...); an upper bound below it must fail
    doc = _or_cert(tmp_path, capsys, 600, "1e-9")
    st = doc["statement"]
    cs = [fmpq(*map(int, c.split("/"))) if "/" in c else fmpq(int(c))
          for c in st["polynomial"]["coefficients"]]
    tiny = fmpq(1, 10**60)
    vals = [_horner(cs, fmpq(x)) + (x % 7) * tiny for x in range(601)]
    st["target"] = {"kind": "values", "values": [f"{v.p}/{v.q}" for v in vals]}
    for key in ("construction", "max_error"):
        st.pop(key, None)
    st["error"] = {"lower": "0", "upper": f"6/{10**60}"}
    doc["evidence"] = {"witness": "6"}
    seen = []
    screen = finite._screen
    monkeypatch.setattr(finite, "_screen", lambda *a: seen.append(screen(*a)) or seen[-1])
    ok, detail = _max_check(doc)
    assert ok is True and "at x = 6 " in detail
    # the rigorous screen kept the tied maxima (x = 6, 13, ..., 594) and not all 601 points
    ties = [x for x in range(601) if x % 7 == 6]
    assert seen and seen[0] is not None and set(ties) <= set(seen[0]) and len(seen[0]) < 601
    st["error"]["upper"] = f"5/{10**60}"
    assert _max_check(doc)[0] is False
