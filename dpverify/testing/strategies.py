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
    1/10^min``-ish (always valid for :func:`dpverify.numbers.check_open_unit`)."""
    st = _st()
    decimal = st.integers(min_exponent, max_exponent).map(lambda e: f"1e-{e}")
    frac = st.tuples(st.integers(1, 9), st.integers(min_exponent, max_exponent)).map(
        lambda pe: f"{pe[0]}/{10 ** pe[1] + 1}"
    )
    return st.one_of(decimal, frac)


def or_params(max_k: int = 200, max_exponent: int = 12):
    """``{"k": k, "gamma": g}`` valid for the OR/AND/h_k tables (degree stays small)."""
    st = _st()
    return st.fixed_dictionaries(
        {"k": st.integers(1, max_k), "gamma": gammas(1, max_exponent)}
    )


def rofk_params(max_k: int = 24, max_r: int = 2, max_degree: int = 1200):
    """``{"r", "k", "gamma"}`` for which the printed Sherstov construction is defined
    (``k - l - Delta > 0``) and its predicted degree is at most ``max_degree``."""
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
    """``{"k", "h"}`` for the iterated Bernstein basis."""
    st = _st()
    return st.fixed_dictionaries({"k": st.integers(1, max_k), "h": st.integers(1, max_h)})


def jackson_kernel_params(max_t: int = 64, max_r: int = 6):
    """``{"t", "r"}`` for the Jackson kernel table."""
    st = _st()
    return st.fixed_dictionaries({"t": st.integers(1, max_t), "r": st.integers(1, max_r)})


def jackson_multiplier_params(max_t: int = 64, max_K: int = 8):
    """``{"t", "K"}`` for the Jackson multipliers table."""
    st = _st()
    return st.fixed_dictionaries({"t": st.integers(1, max_t), "K": st.integers(0, max_K)})

