"""The r-of-k construction at scale: the integer-arithmetic path against independent ones.

* Certificates byte for byte: ``tests/data/rofk_certificates.json`` holds the SHA-256 of
  certificates written by the previous implementation (Sherstov's steps composed as
  rational polynomials as printed, coefficients reduced one by one; the file says which
  commit), with the version field blanked.  The current code must write the same bytes.
* The polynomial against the printed steps composed in ``fmpq_poly``
  (:func:`~dpverify.constructions.sherstov.sherstov_steps`), over many parameters and
  readings.
* The pieces against their definitions: Chebyshev doubling against FLINT's ``T_n``
  composed with ``U/du``; batched lowest terms against ``fmpq``; the truncated-integer
  screen of the finite maximum against plain enumeration in ``fmpq``.
"""

from __future__ import annotations

import hashlib
import json
import os
import pathlib
import pickle
import random

import pytest
from flint import fmpq, fmpq_poly, fmpz, fmpz_poly

from dpverify.certify import certify
from dpverify.certify.finite import domain_points, finite_max_error, target_function
from dpverify.cli import main
from dpverify.constructions.sherstov import (
    exact_l_polynomial,
    rofk_polynomial,
    sherstov_parameters,
    sherstov_steps,
)
from dpverify.constructions.sherstov_integer import (
    doubling_products,
    homogeneous_chebyshev,
    reduced_poly,
)
from dpverify.exact import MonomialPoly, fmpq_abs_sum, forked
from dpverify.exact.lowest_terms import coefficient_strings, decimal_strings, lowest_terms
from dpverify.numbers import fmpq_str


@pytest.fixture(params=["1", "2"])
def workers(request, monkeypatch):
    """Worker processes from 0 bits of work on ("2"), or none ("1")."""
    monkeypatch.setattr(forked, "PARALLEL_BITS", 0)
    monkeypatch.setenv("DPVERIFY_WORKERS", request.param)
    return request.param


DATA = json.loads((pathlib.Path(__file__).parent / "data" / "rofk_certificates.json")
                  .read_text(encoding="utf-8"))
CASES = {c["name"]: c for c in DATA["cases"]}
#: quick enough for the default run (about 5 s together); the rest is marked slow
FAST = ("s_1_10_g1e-1", "s_2_20_g1e-3_full", "s_3_25_g1e-2_rd", "s_5_12_g1e-1",
        "m_1_10_g1e-1", "m_2_40_g1e-6", "m_3_60_g1e-3")


def _normalised_sha256(raw: bytes, case: dict) -> str:
    doc = json.loads(raw)
    doc["info"]["dpverify_version"] = ""
    if "stated_now" in case:  # a key the statement gained since the hash (the file's "about")
        params = doc["statement"]["construction"]["params"]
        assert params.pop("reading") == case["stated_now"]["reading"]
    return hashlib.sha256((json.dumps(doc, indent=2) + "\n").encode()).hexdigest()


def _check_case(name: str, tmp_path: pathlib.Path) -> None:
    case = CASES[name]
    out = tmp_path / "cert.json"
    code = main([*case["argv"], "--out", str(out)])
    assert code in (0, 1)  # 1: a reading that misses gamma is certified as refuted
    raw = out.read_bytes()
    assert _normalised_sha256(raw, case) == case["sha256"], name
    # the version string kept its length as well
    assert len(raw) == case.get("bytes_now", case["bytes"])


@pytest.mark.parametrize("name", FAST)
def test_certificate_bytes_unchanged(name, tmp_path):
    _check_case(name, tmp_path)


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(set(CASES) - set(FAST)))
def test_certificate_bytes_unchanged_large(name, tmp_path):
    _check_case(name, tmp_path)


def test_hash_file_lists_both_methods_and_a_refuted_reading():
    argvs = [" ".join(c["argv"]) for c in DATA["cases"]]
    assert any("minimax" in a for a in argvs) and any("minimax" not in a for a in argvs)
    assert any("--reading" in a for a in argvs) and any("full" in a for a in argvs)
    assert set(FAST) <= set(CASES)


# ------------------------------------------------------------------ against the printed steps


def _printed_rofk(r, k, gamma, reading=None):
    prm = sherstov_parameters(r, k, gamma, reading)
    total = fmpq_poly([0])
    for l_ in prm.ells:
        total += sherstov_steps(l_, k, gamma, reading)["q3"].as_fmpq_poly()
    return 1 - total


@pytest.mark.parametrize("r,k,gamma,reading", [
    (1, 3, "1/2", None), (2, 5, "1/3", None), (3, 9, "1/10", None), (4, 12, "1/7", None),
    (2, 14, "1e-3", None), (3, 10, "1/10", {"d": "Delta"}), (2, 17, "1/5", {"log_base": "2"}),
    (3, 11, "1/4", {"ell_range": "1..r-1"}), (2, 16, "1/2", {"delta": "log_2"}),
    (5, 13, "1/3", {"d": "log_k_over_gamma"}), (1, 3, "9/10", None),
])
def test_rofk_equals_printed_steps(r, k, gamma, reading):
    a = rofk_polynomial(r, k, gamma, reading=reading, intermediates="summary")
    assert a.poly.as_fmpq_poly() == _printed_rofk(r, k, gamma, reading)


@pytest.mark.parametrize("full", ["summary", "full"])
def test_rofk_with_steps_3_to_6_in_a_worker(monkeypatch, full):
    # the records in s built in a forked worker: the same approximation as in one process
    serial = rofk_polynomial(3, 12, "1/10", intermediates=full)
    one_serial = exact_l_polynomial(1, 9, "1/10", intermediates=full)
    monkeypatch.setattr(forked, "PARALLEL_BITS", 0)
    monkeypatch.setenv("DPVERIFY_WORKERS", "2")
    seen = []
    par = rofk_polynomial(3, 12, "1/10", intermediates=full,
                          progress=lambda st, d, t: seen.append(st))
    assert par.poly.as_fmpq_poly() == serial.poly.as_fmpq_poly()
    assert json.dumps(par.extra) == json.dumps(serial.extra)
    assert "construction: steps 3-6 in s" in seen
    one = exact_l_polynomial(1, 9, "1/10", intermediates=full)
    assert one.poly.as_fmpq_poly() == one_serial.poly.as_fmpq_poly()
    assert json.dumps(one.extra) == json.dumps(one_serial.extra)


def test_rofk_with_no_terms_is_one():
    # ell_range 1..r-1 with r = 1: the sum of step 8 is empty
    a = rofk_polynomial(1, 6, "1/10", reading={"ell_range": "1..r-1"})
    assert a.poly.as_fmpq_poly() == fmpq_poly([1]) and a.poly.degree == 0


@pytest.mark.parametrize("l_,k,gamma", [(0, 5, "1/10"), (3, 11, "1/20"), (1, 9, "1e-2")])
def test_exact_l_equals_printed_q3(l_, k, gamma):
    a = exact_l_polynomial(l_, k, gamma)
    assert a.poly.as_fmpq_poly() == sherstov_steps(l_, k, gamma)["q3"].as_fmpq_poly()
    # the full records list the printed steps' coefficients
    polys = a.extra["sherstov"]["steps"][0]["polys"]
    for name, p in sherstov_steps(l_, k, gamma).items():
        assert polys[name]["coefficients"] == [fmpq_str(c) for c in p.coeffs]


def test_homogeneous_chebyshev_is_du_n_t_n_of_u_over_du():
    rng = random.Random(5)
    for n in list(range(0, 34)) + [100, 255, 256, 257]:
        U = fmpz_poly([rng.randrange(-50, 50) for _ in range(rng.randrange(1, 5))])
        du = fmpz(rng.randrange(1, 40))
        calls: list[int] = []
        H = homogeneous_chebyshev(U, du, n, lambda c=calls: c.append(1))
        ref = fmpq_poly(fmpz_poly.chebyshev_t(n))(fmpq_poly(U, du)) * fmpq(du) ** n
        assert fmpq_poly(H) == ref, n
        assert len(calls) == doubling_products(n)


# ------------------------------------------------------------------ lowest terms


def _random_fraction(rng):
    smooth = fmpz(2) ** rng.randrange(0, 300) * fmpz(3) ** rng.randrange(0, 80) * \
        fmpz(4093) ** rng.randrange(0, 4)  # 4093: the largest prime below the split bound
    rough = fmpz(rng.choice([1, 4099, 10**9 + 7, rng.randrange(1, 10**40)]))
    den = smooth * rough
    share = [fmpz(1), fmpz(2) ** rng.randrange(0, 400), fmpz(3) ** rng.randrange(0, 90),
             rough, den, fmpz(0)]
    nums = [fmpz(rng.randrange(-10**50, 10**50)) * rng.choice(share)
            for _ in range(rng.randrange(0, 70))]
    return nums, den


def test_coefficient_strings_in_worker_processes(workers):
    rng = random.Random(12)
    for _ in range(5):
        nums, den = _random_fraction(rng)
        nums = nums * 5  # several tasks
        p = fmpq_poly(fmpz_poly(nums), den) if nums else fmpq_poly([0])
        assert coefficient_strings(p) == [fmpq_str(c) for c in (p.coeffs() or [fmpq(0)])]


def test_lowest_terms_agree_with_fmpq():
    rng = random.Random(11)
    for _ in range(300):
        nums, den = _random_fraction(rng)
        got = lowest_terms(nums, den)
        for (p, q), n in zip(got, nums, strict=True):
            ref = fmpq(n, den)
            assert (p, q) == (ref.p, ref.q)
        p = fmpq_poly(fmpz_poly(nums), den) if nums else fmpq_poly([0])
        assert coefficient_strings(p) == [fmpq_str(c) for c in (p.coeffs() or [fmpq(0)])]


def test_decimal_strings_in_worker_processes(workers):
    rng = random.Random(4)
    xs = [fmpz(rng.randrange(-10**rng.randrange(1, 400), 10**rng.randrange(1, 400)))
          for _ in range(300)]
    seen = []
    assert decimal_strings(xs, progress=lambda s, d, t: seen.append((d, t))) == \
        [str(int(x)) for x in xs]
    assert seen[0] == (0, 300) and seen[-1] == (300, 300)
    assert decimal_strings([]) == []


def _dies_in_a_worker(a, b):
    if os.getpid() != _PARENT:
        os._exit(3)  # as the kernel's out-of-memory killer would end it
    return list(range(a, b))


_PARENT = os.getpid()


def test_a_dead_worker_falls_back_to_this_process(monkeypatch):
    monkeypatch.setattr(forked, "PARALLEL_BITS", 0)
    monkeypatch.setenv("DPVERIFY_WORKERS", "2")
    seen = []
    out = forked.in_spans(_dies_in_a_worker, 300, 1, lambda *c: seen.append(c), "x")
    assert out == list(range(300)) and seen[-1] == ("x", 300, 300)


def _pid_or_die() -> int:
    if os.getpid() != _PARENT:
        os._exit(3)
    return os.getpid()


def test_background_work_survives_its_worker(monkeypatch):
    monkeypatch.setattr(forked, "PARALLEL_BITS", 0)
    for workers in ("1", "2"):
        monkeypatch.setenv("DPVERIFY_WORKERS", workers)
        in_worker = forked.worker_count(1) > 1  # Linux, no other threads, "2"
        result, started = forked.in_background(os.getpid, 1)
        assert started == in_worker and (result() != _PARENT) == in_worker
        assert forked.in_background(_pid_or_die, 1)[0]() == _PARENT


def test_decimal_strings_rejects_a_bad_worker_count(monkeypatch):
    monkeypatch.setattr(forked, "PARALLEL_BITS", 0)
    for bad in ("0", "two", "-1"):
        monkeypatch.setenv("DPVERIFY_WORKERS", bad)
        with pytest.raises(ValueError, match="DPVERIFY_WORKERS must be a positive integer"):
            decimal_strings([fmpz(10)])


def test_lowest_terms_rejects_bad_denominators():
    with pytest.raises(ValueError, match="den must be positive"):
        lowest_terms([1, 2], 0)
    with pytest.raises(ValueError, match="den must be positive"):
        lowest_terms([1, 2], -3)
    with pytest.raises(TypeError, match="fmpq_poly"):
        coefficient_strings([1, 2])


def test_reduced_poly_is_the_fmpq_poly():
    rng = random.Random(2)
    for _ in range(300):
        nums, den = _random_fraction(rng)
        den *= rng.choice([1, -1])
        ref = fmpq_poly(fmpz_poly(nums), den)
        p = reduced_poly(list(nums), den)
        assert p == ref and p.denom() == ref.denom() and p.numer() == ref.numer()


def test_monomial_from_fmpq_poly_reads_like_an_eager_one():
    rng = random.Random(3)
    for _ in range(50):
        nums, den = _random_fraction(rng)
        p = fmpq_poly(fmpz_poly(nums), den) if nums else fmpq_poly([0])
        lazy = MonomialPoly.from_fmpq_poly(p)
        eager = MonomialPoly(p.coeffs() or [0])
        assert lazy.degree == eager.degree and lazy.is_zero() == eager.is_zero()
        assert lazy.coefficient_norm() == fmpq_abs_sum(eager.coeffs)
        assert lazy.max_abs_coefficient() == eager.max_abs_coefficient()
        assert lazy.to_json() == eager.to_json()
        assert lazy == eager and hash(lazy) == hash(eager)
        assert pickle.loads(pickle.dumps(MonomialPoly.from_fmpq_poly(p))) == eager
        assert lazy.coeffs == eager.coeffs and lazy.to_json() == eager.to_json()
    with pytest.raises(AttributeError, match="no attribute 'nope'"):
        MonomialPoly.from_fmpq_poly(fmpq_poly([1])).nope  # noqa: B018


# ------------------------------------------------------------------ the finite maximum


def _enumerated(P, target, domain):
    pts = domain_points(domain)
    val = target_function(target, pts)
    errs = [abs(val(i, x) - P(x)) for i, x in enumerate(pts)]
    m = max(errs)
    return m, pts[errs.index(m)]


def test_truncated_screen_equals_enumeration(workers):
    rng = random.Random(7)
    for _ in range(12):
        deg = rng.choice([256, 300, 420])
        k = rng.choice([64, 90])
        lo = rng.choice([0, -7, 5])
        nums = [fmpz(rng.randrange(-10**rng.randrange(1, 200), 10**rng.randrange(1, 200)))
                for _ in range(deg + 1)]
        P = fmpq_poly(fmpz_poly(nums), fmpz(rng.randrange(1, 10**60)))
        target = rng.choice([
            {"kind": "threshold", "r": "5"},
            {"kind": "values", "values": [fmpq_str(fmpq(rng.randrange(-9, 9), rng.randrange(1, 5)))
                                          for _ in range(k + 1)]}])
        dom = {"kind": "integers", "lo": lo, "hi": lo + k}
        res = finite_max_error(P, target, dom)
        assert res.exact and (res.upper, res.witness) == _enumerated(P, target, dom)


def test_truncated_screen_with_every_point_tied():
    # p = 1/3 + M(x) Q(x) / 7 with M vanishing on 0..80: the error is 2/3 at every point
    # but 0, so nothing can be screened out; the first maximiser is x = 1
    M = fmpz_poly([1])
    for j in range(81):
        M *= fmpz_poly([-j, 1])
    rng = random.Random(1)
    P = fmpq_poly(M * fmpz_poly([rng.randrange(-10**40, 10**40) for _ in range(300)]), 7)
    P += fmpq(1, 3)
    res = finite_max_error(P, {"kind": "threshold", "r": "1"},
                           {"kind": "integers", "lo": 0, "hi": 80})
    assert (res.upper, res.witness, res.exact) == (fmpq(2, 3), 1, True)


# ------------------------------------------------------------------ progress


def test_progress_reports_every_stage():
    seen: dict[str, list[tuple[int, int | None]]] = {}

    def rec(stage, done, total):
        seen.setdefault(stage, []).append((done, total))

    a = rofk_polynomial(3, 16, "1/10", progress=rec)
    certify(a, progress=rec)
    stages = list(seen)
    assert [s for s in stages if s.startswith("construction: term")] == [
        "construction: term l=0 (1 of 3)", "construction: term l=1 (2 of 3)",
        "construction: term l=2 (3 of 3)"]
    for needle in ("construction: common denominator", "coefficients in lowest terms",
                   "max error: points"):
        assert any(s.startswith(needle) for s in stages), (needle, stages)
    for s, calls in seen.items():
        total = calls[-1][1]
        if total is not None:
            assert calls[-1][0] == total and all(d <= total for d, _ in calls), s
