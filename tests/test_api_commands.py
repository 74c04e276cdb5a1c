"""The one-call library functions behind ``dpverify or``/``and`` and ``dpverify supnorm``
:func:`dpverify.api.boolean_certificate` and
:func:`dpverify.api.supnorm_certificate`."""

from __future__ import annotations

import pytest
from flint import arb, ctx, fmpq

from dpverify.api import MAX_NORM_DEGREE, boolean_certificate, supnorm_certificate
from dpverify.certify import certify
from dpverify.constructions.chebyshev import and_polynomial, or_degree, or_polynomial
from dpverify.errors import InvalidParameterError
from dpverify.numbers import parse_exact


@pytest.mark.parametrize("function, build", [("or", or_polynomial), ("and", and_polynomial)])
def test_boolean_certificate_is_certify_of_the_construction(function, build) -> None:
    cert = boolean_certificate(function, 9, "1/100")
    direct = certify(build(9, "1/100"))
    assert cert.statement == direct.statement
    assert cert.complete
    # the error bound of thaler2012 Fact 4.2: 1/T_t((k+1)/(k-1)) <= gamma, exactly
    t, tv = or_degree(9, "1/100")
    assert parse_exact(cert.error["upper"]) == 1 / tv <= fmpq(1, 100)


def test_boolean_certificate_multivariate_norms_in_info() -> None:
    cert = boolean_certificate("or", 4, "1/10", d=10)
    mv = cert.info["multivariate"]
    assert mv["d"] == 10
    # multilinearisation (y^2 = y) can only merge terms: T_multilinear <= L1 bounds hold
    assert parse_exact(mv["T_multilinear"]) <= parse_exact(mv["L1_multilinear"])
    assert "multivariate" not in boolean_certificate("or", 4, "1/10").info


def test_boolean_certificate_errors_name_parameters_not_flags() -> None:
    with pytest.raises(InvalidParameterError, match="function") as e:
        boolean_certificate("xor", 4, "1/10")
    assert "--" not in str(e.value)
    with pytest.raises(InvalidParameterError, match="^d") as e:
        boolean_certificate("or", 10**5, "1e-12", d=3)  # t ~ 4500 > MAX_NORM_DEGREE
    assert str(MAX_NORM_DEGREE) in str(e.value) and "--" not in str(e.value)
    with pytest.raises(InvalidParameterError, match="d"):
        boolean_certificate("or", 4, "1/10", d=0)


def test_supnorm_certificate_encloses_known_value() -> None:
    # f - p = e^x - (1 + x + x^2/2 + x^3/6) is increasing and >= 0 on [0, 1] (all Taylor
    # remainder terms are positive), so the sup is e - 8/3, attained at x = 1
    cert = supnorm_certificate("exp(x)", ["1", "1", "1/2", "1/6"], ("0", "1"), rtol="1e-9")
    lo, up = parse_exact(cert.error["lower"]), parse_exact(cert.error["upper"])
    with ctx.workprec(300):  # a ball of e - 8/3 far narrower than the decimal rounding
        true = arb(1).exp() - arb(8) / 3
        assert arb(lo) <= true and true <= arb(up)  # arb: True only when certain
    assert up - lo <= fmpq(1, 10**8) * lo


def test_supnorm_certificate_claim_and_errors() -> None:
    ok = supnorm_certificate("exp(x)", ["1", "1", "1/2", "1/6"], ("0", "1"), claim="1/10")
    assert ok.complete
    bad = supnorm_certificate("exp(x)", ["1", "1", "1/2", "1/6"], ("0", "1"), claim="1/100")
    assert not bad.complete  # e - 8/3 = 0.0516 > 1/100: refuted, listed as unproven
    for kwargs, name in [({"interval": ("1", "0")}, "interval"),
                         ({"rtol": "0"}, "rtol"), ({"claim": "-1"}, "claim")]:
        args = {"f": "x", "poly": ["0"], "interval": ("0", "1"), **kwargs}
        with pytest.raises(InvalidParameterError, match=name) as e:
            supnorm_certificate(args.pop("f"), args.pop("poly"), args.pop("interval"),
                                **args)
        assert "--" not in str(e.value)


def test_supnorm_interval_ends_may_be_any_exact_number_input():
    # a float means its binary64 value (0.0 and 1.0 are exact), like everywhere in the API
    from fractions import Fraction

    import numpy as np
    from numpy.polynomial import Polynomial

    import dpverify

    ref = dpverify.supnorm("exp(x)", Polynomial([1, 1]), (0, 1))
    for iv in [(0.0, 1.0), (np.float64(0), 1), (Fraction(0), Fraction(1)), [(0.0, 1.0)]]:
        r = dpverify.supnorm("exp(x)", Polynomial([1, 1]), iv)
        assert (r.lower, r.upper) == (ref.lower, ref.upper)
