"""Hypothesis strategies for valid parameters of the reference tables.

``hypothesis`` is imported when a strategy is made (it is a test dependency, not a
dependency of dpverify); each strategy draws parameters that the construction accepts.
Each example below is a property test as you would write it (``database=None`` keeps
hypothesis from writing its example database; ``deadline=None`` from timing exact
arithmetic on a loaded machine).
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
    """Exact gamma strings in (0, 1): ``"1e-e"`` and ``"p/(10^e + 1)"`` with ``p`` in
    ``1..9`` and ``min_exponent <= e <= max_exponent`` (always valid for
    :func:`dpverify.numbers.check_open_unit`).

    Examples
    --------
    >>> from hypothesis import given, settings
    >>> from dpverify.numbers import parse_exact
    >>> @settings(max_examples=25, database=None, deadline=None)
    ... @given(gammas(1, 6))
    ... def test_gamma_is_in_the_open_unit_interval(gamma):
    ...     assert 0 < parse_exact(gamma) < 1
    >>> test_gamma_is_in_the_open_unit_interval()
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
    The OR polynomial's defining property: ``g(0) = 0`` and ``|1 - g(x)| <= gamma`` at
    ``x = 1..k``:

    >>> from hypothesis import given, settings
    >>> from dpverify.numbers import parse_exact
    >>> from dpverify.testing import reference
    >>> @settings(max_examples=10, database=None, deadline=None)
    ... @given(or_params(max_k=30, max_exponent=4))
    ... def test_or_polynomial_is_within_gamma(params):
    ...     values = reference("or", "values", **params)
    ...     gamma = parse_exact(params["gamma"])
    ...     assert values[0] == 0 and all(abs(1 - v) <= gamma for v in values[1:])
    >>> test_or_polynomial_is_within_gamma()
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
    The r-of-k polynomial is within ``gamma`` of the threshold ``[x >= r]`` on ``0..k``:

    >>> from hypothesis import given, settings
    >>> from dpverify.numbers import parse_exact
    >>> from dpverify.testing import reference
    >>> @settings(max_examples=5, database=None, deadline=None)
    ... @given(rofk_params(max_k=6, max_degree=300))
    ... def test_rofk_polynomial_is_within_gamma(params):
    ...     values = reference("rofk", **params)
    ...     gamma = parse_exact(params["gamma"])
    ...     assert all(abs(v - (x >= params["r"])) <= gamma for x, v in enumerate(values))
    >>> test_rofk_polynomial_is_within_gamma()
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
    The iterated operator reproduces constants, so at every lattice point ``mu/k`` the
    basis functions ``basis[nu][mu]`` sum to 1:

    >>> from hypothesis import given, settings
    >>> from dpverify.testing import reference
    >>> @settings(max_examples=10, database=None, deadline=None)
    ... @given(bernstein_params(max_k=8, max_h=3))
    ... def test_partition_of_unity(params):
    ...     basis = reference("bernstein", **params)
    ...     assert all(sum(column) == 1 for column in zip(*basis))
    >>> test_partition_of_unity()
    """
    st = _st()
    return st.fixed_dictionaries({"k": st.integers(1, max_k), "h": st.integers(1, max_h)})


def jackson_kernel_params(max_t: int = 64, max_r: int = 6):
    """``{"t", "r"}`` for the Jackson kernel table.

    Examples
    --------
    The kernel ``H_{t,r}(s) = a_0 + sum_l a_l cos(ls)`` has integral 1 over
    ``[-pi, pi]``, so the first stored entry ``2 pi a_0`` is 1:

    >>> from hypothesis import given, settings
    >>> from dpverify.testing import reference
    >>> @settings(max_examples=10, database=None, deadline=None)
    ... @given(jackson_kernel_params(max_t=16))
    ... def test_kernel_has_integral_one(params):
    ...     assert reference("jackson", **params)[0] == 1
    >>> test_kernel_has_integral_one()
    """
    st = _st()
    return st.fixed_dictionaries({"t": st.integers(1, max_t), "r": st.integers(1, max_r)})


def jackson_multiplier_params(max_t: int = 64, max_K: int = 8):
    """``{"t", "K"}`` for the Jackson multipliers table.

    Examples
    --------
    ``I_{t,K}`` reproduces constants: ``w_0 = 1`` (``-sum_{l>=1} (-1)^l C(K+1, l) = 1``):

    >>> from hypothesis import given, settings
    >>> from dpverify.testing import reference
    >>> @settings(max_examples=10, database=None, deadline=None)
    ... @given(jackson_multiplier_params(max_t=16))
    ... def test_constants_are_reproduced(params):
    ...     assert reference("jackson", **params)[0] == 1
    >>> test_constants_are_reproduced()
    """
    st = _st()
    return st.fixed_dictionaries({"t": st.integers(1, max_t), "K": st.integers(0, max_K)})

