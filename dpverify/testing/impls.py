"""Implementations named by text, for ``dpverify check --impl``: a C math library function
through ctypes (``libm:tgamma``), or a Python function by module and attribute
(``numpy:exp``, ``math:erfc``, ``scipy.special:gamma``).

:func:`libm_function` wraps a C function of the system's math library (``libm.so.6``,
found with :func:`ctypes.util.find_library`) taking and returning ``double`` (binary64)
or ``float`` (binary32, the ``f``-suffixed names ``expf``, ``tgammaf``...) as a callable
on numpy arrays: one C call per input (about a microsecond: 10^6 inputs in a second;
an exhaustive binary32 run of a C function takes hours, a numpy ufunc minutes).

:func:`load_implementation` imports the named module and reads the attribute: the text is
never evaluated, only split at ``:`` and ``.`` into identifiers.

Guarantee
---------
The wrapper passes each input to the C function unchanged (binary64 and binary32 values
are exact in ctypes' ``c_double``/``c_float``) and returns its result unchanged.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import importlib
import re
from collections.abc import Callable
from functools import lru_cache
from typing import Any

import numpy as np

from ..errors import InvalidParameterError

__all__ = ["libm_function", "load_implementation"]

_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


@lru_cache(maxsize=1)
def _libm() -> ctypes.CDLL:
    name = ctypes.util.find_library("m") or "libm.so.6"
    try:
        return ctypes.CDLL(name)
    except OSError as exc:
        raise InvalidParameterError(f"cannot load the C math library ({name}): {exc}") \
            from None


def libm_function(name: str, dtype: Any = np.float64) -> Callable[[np.ndarray], np.ndarray]:
    """The C math library's function ``name`` as a numpy callable (module docstring):
    ``double name(double)`` for ``numpy.float64``, ``float name(float)`` for
    ``numpy.float32``.

    Examples
    --------
    >>> import numpy as np
    >>> tgamma = libm_function("tgamma")
    >>> float(tgamma(np.array([5.0]))[0])          # 4!
    24.0
    >>> float(libm_function("expf", np.float32)(np.array([0.0], np.float32))[0])
    1.0
    """
    if not isinstance(name, str) or not _IDENT.fullmatch(name):
        raise InvalidParameterError(f"libm function name must be an identifier, got "
                                    f"{name!r}")
    try:
        fn = getattr(_libm(), name)
    except AttributeError:
        raise InvalidParameterError(f"the C math library has no function {name!r}") from None
    single = np.dtype(dtype) == np.float32
    ctype = ctypes.c_float if single else ctypes.c_double
    fn.argtypes, fn.restype = [ctype], ctype
    out_dtype = np.float32 if single else np.float64
    loop = np.frompyfunc(fn, 1, 1)

    def call(xs: Any) -> np.ndarray:
        arr = np.asarray(xs, dtype=out_dtype)
        return np.asarray(loop(arr.tolist()) if arr.ndim else fn(float(arr)),
                          dtype=out_dtype)

    call.__name__ = call.__qualname__ = f"libm.{name}"
    return call


def load_implementation(spec: str, dtype: Any = np.float64) -> Callable[..., Any]:
    """The implementation named by ``spec``: ``libm:NAME`` (:func:`libm_function`) or
    ``MODULE:ATTRIBUTE`` (dotted names: ``numpy:exp``, ``scipy.special:gamma``).

    Examples
    --------
    >>> import math
    >>> load_implementation("math:erfc") is math.erfc
    True
    """
    if not isinstance(spec, str) or spec.count(":") != 1:
        raise InvalidParameterError(f"impl must be MODULE:NAME or libm:NAME, got {spec!r}")
    module, attr = spec.split(":")
    if module == "libm":
        return libm_function(attr, dtype)
    parts_m, parts_a = module.split("."), attr.split(".")
    if not all(_IDENT.fullmatch(p) for p in parts_m + parts_a):
        raise InvalidParameterError(f"impl must be MODULE:NAME with dotted identifiers, got "
                                    f"{spec!r}")
    try:
        obj: Any = importlib.import_module(module)
    except ImportError as exc:
        raise InvalidParameterError(f"impl: cannot import {module!r}: {exc}") from None
    for p in parts_a:
        try:
            obj = getattr(obj, p)
        except AttributeError:
            raise InvalidParameterError(f"impl: {module!r} has no attribute {attr!r}") \
                from None
    if not callable(obj):
        raise InvalidParameterError(f"impl: {spec!r} is not callable")
    return obj
