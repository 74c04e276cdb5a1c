"""Hypothesis strategies for valid parameters of the reference tables.

``hypothesis`` is imported when a strategy is made (it is a test dependency, not a
dependency of dpverify); each strategy draws parameters that the construction accepts.
"""

from __future__ import annotations

from typing import Any

from ..errors import DomainError

__all__ = [
    "gammas",
    "or_params",
    "rofk_params",
    "bernstein_params",
    "jackson_kernel_params",
    "jackson_multiplier_params",
]


def _st():
    try:  # hypothesis is optional (the test extra): imported only when strategies are asked for
        from hypothesis import strategies as st
    except ImportError as exc:  # pragma: no cover - hypothesis is a test dependency
        from ..errors import MissingExtraError

        raise MissingExtraError(
            'the strategies need hypothesis: pip install hypothesis'
        ) from exc
    return st


def gammas(min_exponent: int = 1, max_exponent: int = 12):
    """Exact gamma strings in (0, 1): ``"1e-e"`` and ``"p/q"`` with ``1/10^max <= p/q <=
    1/10^min``-ish (always valid for :func:`dpverify.numbers.check_open_unit`).

    Examples
    --------
    >>> from dpverify.testing import gammas
    >>> from fractions import Fraction
    >>> from hypothesis import given, settings
    >>> @settings(max_examples=20, database=None, deadline=None)
    ... @given(gammas(min_exponent=2, max_exponent=6))
    ... def test_gamma(g):
    ...     assert Fraction(1, 10**7) < Fraction(g) < Fraction(1, 10)
    >>> test_gamma()
    """
    st = _st()
    decimal = st.integers(min_exponent, max_exponent).map(lambda e: f"1e-{e}")
    frac = st.tuples(st.integers(1, 9), st.integers(min_exponent, max_exponent)).map(
        lambda pe: f"{pe[0]}/{10 ** pe[1] + 1}"
    )
    return st.one_of(decimal, frac)


def or_params(max_k: int = 200, max_exponent: int = 12):
    """``{"k": k, "gamma": g}`` valid for the OR/AND/h_k tables (degree stays small).

    Examples
    --------
    Every OR polynomial drawn is within ``gamma`` of ``OR = min(x, 1)`` at each count
    ``x = 0..k``:

    >>> from fractions import Fraction
    >>> from flint import fmpq
    >>> from hypothesis import given, settings
    >>> from dpverify.testing import or_params, reference
    >>> @settings(max_examples=5, database=None, deadline=None)
    ... @given(or_params(max_k=10, max_exponent=3))
    ... def test_or_values(p):
    ...     gamma = fmpq(*Fraction(p["gamma"]).as_integer_ratio())
    ...     values = reference("or", "values", **p)
    ...     assert len(values) == p["k"] + 1
    ...     assert all(abs(v - min(x, 1)) <= gamma for x, v in enumerate(values))
    >>> test_or_values()
    """
    st = _st()
    return st.fixed_dictionaries(
        {"k": st.integers(1, max_k), "gamma": gammas(1, max_exponent)}
    )


def rofk_params(max_k: int = 24, max_r: int = 2, max_degree: int = 1200):
    """``{"r", "k", "gamma"}`` for which the printed Sherstov construction is defined
    (``k - l - Delta > 0``) and its predicted degree is at most ``max_degree``.

    Examples
    --------
    Each polynomial drawn is within ``gamma`` of the threshold ``[x >= r]`` at every
    count ``x = 0..k`` (small ``k`` and degree keep the example fast):

    >>> from fractions import Fraction
    >>> from flint import fmpq
    >>> from hypothesis import given, settings
    >>> from dpverify.testing import rofk_params, reference
    >>> @settings(max_examples=5, database=None, deadline=None)
    ... @given(rofk_params(max_k=7, max_degree=400))
    ... def test_rofk_values(p):
    ...     gamma = fmpq(*Fraction(p["gamma"]).as_integer_ratio())
    ...     values = reference("rofk", **p)
    ...     assert all(abs(v - (x >= p["r"])) <= gamma for x, v in enumerate(values))
    >>> test_rofk_values()
    """
    st = _st()
    # lazy: only this strategy needs the Sherstov construction
    from ..constructions.sherstov import sherstov_parameters

    def ok(p: dict[str, Any]) -> bool:
        if p["r"] > p["k"]:
            return False
        try:
            prm = sherstov_parameters(p["r"], p["k"], p["gamma"])
        except DomainError:
            return False
        return max(prm.degree.values()) <= max_degree

    return st.fixed_dictionaries(
        {"r": st.integers(1, max_r), "k": st.integers(4, max_k),
         "gamma": st.sampled_from(["1e-1", "1e-2", "1/20"])}
    ).filter(ok)


def bernstein_params(max_k: int = 20, max_h: int = 6):
    """``{"k", "h"}`` for the iterated Bernstein basis.

    Examples
    --------
    The iterated operator reproduces constants (alda2017 Theorem 3), so the basis
    polynomials sum to 1: every column of ``basis[nu][mu]`` (Bernstein coefficients)
    sums to 1:

    >>> from hypothesis import given, settings
    >>> from dpverify.testing import bernstein_params, reference
    >>> @settings(max_examples=10, database=None, deadline=None)
    ... @given(bernstein_params(max_k=12, max_h=4))
    ... def test_partition_of_unity(p):
    ...     basis = reference("bernstein", **p)
    ...     assert all(sum(row[mu] for row in basis) == 1 for mu in range(p["k"] + 1))
    >>> test_partition_of_unity()
    """
    st = _st()
    return st.fixed_dictionaries({"k": st.integers(1, max_k), "h": st.integers(1, max_h)})


def jackson_kernel_params(max_t: int = 64, max_r: int = 6):
    """``{"t", "r"}`` for the Jackson kernel table.

    Examples
    --------
    ``two_pi_a[l] = 2 pi a_l`` of ``H(s) = a_0 + sum_l a_l cos(l s)``; the kernel has
    integral ``2 pi a_0 = 1`` over a period:

    >>> from hypothesis import given, settings
    >>> from dpverify.testing import jackson_kernel_params, reference
    >>> @settings(max_examples=10, database=None, deadline=None)
    ... @given(jackson_kernel_params(max_t=16, max_r=4))
    ... def test_kernel_is_normalised(p):
    ...     assert reference("jackson", **p)[0] == 1
    >>> test_kernel_is_normalised()
    """
    st = _st()
    return st.fixed_dictionaries({"t": st.integers(1, max_t), "r": st.integers(1, max_r)})


def jackson_multiplier_params(max_t: int = 64, max_K: int = 8):
    """``{"t", "K"}`` for the Jackson multipliers table.

    Examples
    --------
    The multipliers ``w_0..w_t`` of ``I_{t,K}``: ``w_0 = 1`` (constants are reproduced),
    and ``w_n = 0`` for ``n > r floor(t/r)``, ``r = ceil((K + 3)/2)`` (the kernel
    ``H_{t,r}`` is a trigonometric polynomial of that degree):

    >>> from hypothesis import given, settings
    >>> from dpverify.testing import jackson_multiplier_params, reference
    >>> @settings(max_examples=10, database=None, deadline=None)
    ... @given(jackson_multiplier_params(max_t=16, max_K=4))
    ... def test_multipliers(p):
    ...     t, r = p["t"], (p["K"] + 4) // 2
    ...     w = reference("jackson", **p)
    ...     assert len(w) == t + 1 and w[0] == 1
    ...     assert all(wn == 0 for wn in w[r * (t // r) + 1:])
    >>> test_multipliers()
    """
    st = _st()
    return st.fixed_dictionaries({"t": st.integers(1, max_t), "K": st.integers(0, max_K)})

