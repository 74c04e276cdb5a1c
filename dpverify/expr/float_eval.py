"""Heuristic floating-point evaluation of :mod:`dpverify.expr` trees: mpmath at
the current ``mp.prec`` and compiled numpy float64 closures (no guarantee).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import mpmath
import numpy as np
from flint import fmpq

from ..errors import DomainError
from .tree import Node, canonical_text, is_int

__all__ = ["mp_rational", "mp_value", "np_compile"]

# --------------------------------------------------------------------------- mpmath / numpy

_MP_FUNCS = {
    "exp": mpmath.exp, "log": mpmath.log, "sqrt": mpmath.sqrt, "sin": mpmath.sin,
    "cos": mpmath.cos, "tan": mpmath.tan, "atan": mpmath.atan, "tanh": mpmath.tanh,
    "abs": mpmath.fabs, "erf": mpmath.erf, "asin": mpmath.asin, "acos": mpmath.acos,
    "sinh": mpmath.sinh, "cosh": mpmath.cosh, "log1p": mpmath.log1p, "expm1": mpmath.expm1,
    "erfc": mpmath.erfc,
}  # fmt: skip


def _mp_lgamma(x: Any) -> Any:
    """``log |gamma(x)|``: the real part of mpmath's principal ``loggamma``."""
    if x <= 0 and x == mpmath.floor(x):
        raise DomainError(f"lgamma has a pole at {x}")
    return mpmath.re(mpmath.loggamma(x))


def _mp_cbrt(x: Any) -> Any:
    return -mpmath.cbrt(-x) if x < 0 else mpmath.cbrt(x)


def _mp_pole(name: str, fn: Callable[[Any], Any], *poles: int) -> Callable[[Any], Any]:
    def f(x: Any) -> Any:
        if x in poles:
            raise DomainError(f"{name} has a pole at {x}")
        return fn(x)
    return f


def _mp_erfcinv(x: Any) -> Any:
    """``erfinv(1 - x)`` with the bits lost in ``1 - x`` added (mpmath has no erfcinv)."""
    if not 0 < x < 2:
        raise DomainError(f"erfcinv is undefined at {x} (outside (0, 2))")
    t = x if x <= 1 else 2 - x
    extra = max(0, -int(mpmath.floor(mpmath.log(t, 2)))) + 10 if t else 10
    with mpmath.extraprec(extra):
        return mpmath.erfinv(1 - mpmath.mpf(x))


def _mp_erfinv(x: Any) -> Any:
    if not -1 < x < 1:
        raise DomainError(f"erfinv is undefined at {x} (outside (-1, 1))")
    return mpmath.erfinv(x)


def _mp_lambertw(x: Any) -> Any:
    if x < -mpmath.exp(-1):
        raise DomainError(f"lambertw is undefined at {x} < -1/e")
    return mpmath.re(mpmath.lambertw(x))


_MP_FUNCS.update({
    "gamma": mpmath.gamma, "lgamma": _mp_lgamma, "rgamma": mpmath.rgamma,
    "digamma": mpmath.digamma, "cbrt": _mp_cbrt, "asinh": mpmath.asinh,
    "acosh": mpmath.acosh, "atanh": _mp_pole("atanh", mpmath.atanh, 1, -1),
    "zeta": _mp_pole("zeta", mpmath.zeta, 1), "erfinv": _mp_erfinv,
    "erfcinv": _mp_erfcinv, "airyai": mpmath.airyai, "airybi": mpmath.airybi,
    "lambertw": _mp_lambertw,
})
_MP_ORDER = {"besselj": mpmath.besselj, "bessely": mpmath.bessely,
             "besseli": mpmath.besseli, "besselk": mpmath.besselk}


def mp_rational(q: fmpq) -> mpmath.mpf:
    return mpmath.mpf(int(q.p)) / int(q.q)


def mp_value(node: Node, env: dict[str, mpmath.mpf]) -> Any:
    k = node.kind
    if k == "num":
        return mp_rational(node.args[0])
    if k == "const":
        return +mpmath.pi if node.args[0] == "pi" else +mpmath.e
    if k == "var":
        return env[node.args[0]]
    if k == "sum":
        acc = mpmath.mpf(0)
        for s, t in node.args:
            acc = acc + mp_value(t, env) if s > 0 else acc - mp_value(t, env)
        return acc
    if k == "prod":
        acc = mpmath.mpf(1)
        for p, f in node.args:
            v = mp_value(f, env)
            if p > 0:
                acc = acc * v
            else:
                if v == 0:
                    raise DomainError("division by zero")
                acc = acc / v
        return acc
    if k == "neg":
        return -mp_value(node.args[0], env)
    if k == "pow":
        b, a = mp_value(node.args[0], env), mp_value(node.args[1], env)
        if b == 0 and a < 0:
            raise DomainError("division by zero (0 to a negative power)")
        if node.args[1].kind == "num" and is_int(node.args[1].args[0]):
            return b ** int(node.args[1].args[0].p)
        return _mp_real(b**a, node)
    if k == "minmax":
        vals = [mp_value(a, env) for a in node.args[1]]
        return min(vals) if node.args[0] == "min" else max(vals)
    if k == "callp":
        fname, order, arg = node.args
        x = mp_value(arg, env)
        if fname in ("bessely", "besselk") and x <= 0:
            raise DomainError(f"{fname} is undefined at {x} (x <= 0)")
        return _mp_real(_MP_ORDER[fname](mp_rational(order), x), node)
    if k == "call2":
        a, b = (mp_value(v, env) for v in node.args[1])
        return mpmath.hypot(a, b)
    fname, arg = node.args
    return _mp_real(_MP_FUNCS[fname](mp_value(arg, env)), node)


def _mp_real(v: Any, node: Node) -> Any:
    if isinstance(v, mpmath.mpc):
        if v.imag == 0:
            return v.real
        raise DomainError(f"non-real value {v} of {canonical_text(node)}")
    return v


def _numpy_erf(name: str = "erf") -> Callable[[np.ndarray], np.ndarray]:
    """``erf`` or ``erfc`` vectorised: scipy's C ufunc when installed (imported here: scipy
    is optional), else a Python-level loop over :mod:`math`."""
    try:  # scipy is optional (the lp/experiments extras)
        import scipy.special

        return getattr(scipy.special, name)
    except ImportError:  # pragma: no cover - scipy is optional
        uf = np.frompyfunc(getattr(math, name), 1, 1)  # a Python-level loop over points
        return lambda a: np.asarray(uf(a), dtype=np.float64)


_NP_FUNCS: dict[str, Callable[[np.ndarray], np.ndarray]] = {
    "exp": np.exp, "log": np.log, "sqrt": np.sqrt, "sin": np.sin, "cos": np.cos,
    "tan": np.tan, "atan": np.arctan, "tanh": np.tanh, "abs": np.abs, "asin": np.arcsin,
    "acos": np.arccos, "sinh": np.sinh, "cosh": np.cosh, "log1p": np.log1p,
    "expm1": np.expm1,
}  # fmt: skip


#: special functions in numpy: (scipy.special name, or None for numpy's own, numpy name)
_SCIPY_SPECIAL = {
    "gamma": "gamma", "lgamma": "gammaln", "rgamma": "rgamma", "digamma": "psi",
    "zeta": "zeta", "erfinv": "erfinv", "erfcinv": "erfcinv", "airyai": "airy",
    "airybi": "airy", "lambertw": "lambertw", "besselj": "jv", "bessely": "yv",
    "besseli": "iv", "besselk": "kv",
}  # fmt: skip
_NP_FUNCS.update({"cbrt": np.cbrt, "asinh": np.arcsinh, "acosh": np.arccosh,
                  "atanh": np.arctanh})


def _numpy_special(name: str, order: float | None = None
                   ) -> Callable[[np.ndarray], np.ndarray]:
    """A special function vectorised: scipy's ufunc when scipy is installed (imported
    here: scipy is optional), else a Python-level loop over mpmath at 53 bits."""
    try:  # scipy is optional (the lp/experiments extras)
        import scipy.special as sc
    except ImportError:  # pragma: no cover - scipy is optional
        return _mp_loop(name, order)
    fn = getattr(sc, _SCIPY_SPECIAL[name])
    if name in ("airyai", "airybi"):
        pick = 0 if name == "airyai" else 2
        return lambda a: fn(a)[pick]
    if name == "lambertw":
        def w(a: np.ndarray) -> np.ndarray:
            out = fn(a)
            return np.where(a >= -math.exp(-1), out.real, np.nan)
        return w
    if order is not None:
        nu = order
        return lambda a: fn(nu, a)
    return fn


def _mp_loop(name: str, order: float | None) -> Callable[[np.ndarray], np.ndarray]:
    """Per point through mpmath (53 bits), NaN where it raises."""
    def one(x: float) -> float:
        try:
            with mpmath.workprec(53):
                if order is not None:
                    v = _MP_ORDER[name](order, x)
                else:
                    v = _MP_FUNCS[name](mpmath.mpf(x))
            return float(v.real) if isinstance(v, mpmath.mpc) and v.imag == 0 else float(v)
        except (DomainError, ValueError, ZeroDivisionError, TypeError):
            return math.nan
    uf = np.frompyfunc(one, 1, 1)  # a Python-level loop over points
    return lambda a: np.asarray(uf(a), dtype=np.float64)


def _q_float(q: fmpq) -> float:
    try:
        return int(q.p) / int(q.q)  # correctly rounded
    except OverflowError:
        return math.inf if q > 0 else -math.inf


def np_compile(node: Node, index: dict[str, int]) -> Callable[[tuple], Any]:
    k = node.kind
    if k == "num":
        c = _q_float(node.args[0])
        return lambda xs: c
    if k == "const":
        c = math.pi if node.args[0] == "pi" else math.e
        return lambda xs: c
    if k == "var":
        i = index[node.args[0]]
        return lambda xs: xs[i]
    if k == "sum":
        parts = [(s, np_compile(t, index)) for s, t in node.args]

        def f_sum(xs: tuple) -> Any:
            acc = 0.0
            for s, g in parts:
                acc = acc + g(xs) if s > 0 else acc - g(xs)
            return acc

        return f_sum
    if k == "prod":
        parts = [(p, np_compile(f, index)) for p, f in node.args]

        def f_prod(xs: tuple) -> Any:
            acc = 1.0
            for p, g in parts:
                acc = acc * g(xs) if p > 0 else acc / g(xs)
            return acc

        return f_prod
    if k == "neg":
        g = np_compile(node.args[0], index)
        return lambda xs: -g(xs)
    if k == "pow":
        gb = np_compile(node.args[0], index)
        ex = node.args[1]
        if ex.kind == "num" and is_int(ex.args[0]):
            n = float(int(ex.args[0].p))
            return lambda xs: np.power(np.asarray(gb(xs), dtype=np.float64), n)
        ge = np_compile(ex, index)
        return lambda xs: np.power(np.asarray(gb(xs), dtype=np.float64), ge(xs))
    if k == "minmax":
        gs = [np_compile(a, index) for a in node.args[1]]
        red = np.minimum if node.args[0] == "min" else np.maximum

        def f_minmax(xs: tuple) -> Any:
            acc = np.asarray(gs[0](xs), dtype=np.float64)
            for g in gs[1:]:
                acc = red(acc, g(xs))
            return acc

        return f_minmax
    if k == "callp":
        fname, order, arg = node.args
        fo = _numpy_special(fname, _q_float(order))
        g = np_compile(arg, index)
        return lambda xs: fo(np.asarray(g(xs), dtype=np.float64))
    if k == "call2":
        ga, gb = (np_compile(a, index) for a in node.args[1])
        return lambda xs: np.hypot(np.asarray(ga(xs), dtype=np.float64),
                                   np.asarray(gb(xs), dtype=np.float64))
    fname, arg = node.args
    if fname in ("erf", "erfc"):
        fn = _numpy_erf(fname)
    elif fname in _SCIPY_SPECIAL:
        fn = _numpy_special(fname)
    else:
        fn = _NP_FUNCS[fname]
    g = np_compile(arg, index)
    return lambda xs: fn(np.asarray(g(xs), dtype=np.float64))


