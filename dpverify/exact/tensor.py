"""Exact d-variate tensor-product polynomials in one basis per polynomial."""

from __future__ import annotations

import math
from collections.abc import Sequence
from numbers import Integral
from typing import Any

from flint import fmpq

from ..errors import BasisMismatchError, InvalidParameterError, ParameterTypeError
from ..numbers import MAX_DEGREE, fmpq_str
from ._core import (
    MAX_TENSOR_SIZE,
    affine_map,
    apply_along_axis,
    bern_to_spoly,
    cheb_to_poly,
    check_domain,
    clenshaw,
    compose_affine_poly,
    de_casteljau,
    exact_number,
    fmpq_abs_sum,
    horner,
    lift,
    map_point,
    padded,
    point_kind,
    read_point,
)
from .tensor_shift import IntegerTaylorShift

__all__ = ["TensorPoly"]

_TENSOR_BASES = ("monomial", "chebyshev", "bernstein")
_DEFAULTS = {"chebyshev": (fmpq(-1), fmpq(1)), "bernstein": (fmpq(0), fmpq(1))}
_KERNELS = {"monomial": horner, "chebyshev": clenshaw, "bernstein": de_casteljau}
_TARGET = {"chebyshev": (fmpq(-1), fmpq(1)), "bernstein": (fmpq(0), fmpq(1))}


class TensorPoly:
    """Exact d-variate tensor-product polynomial
    ``p(x_1, ..., x_d) = sum_i c[i_1]...[i_d] phi_{i_1}(x_1) ... phi_{i_d}(x_d)``.

    Coefficient convention: ``coeffs[i1][i2]...[id]`` multiplies
    ``phi_{i1}(x_1) phi_{i2}(x_2) ...`` (first index = first variable); e.g. in the
    monomial basis ``[[1, 2], [3, 4]]`` is ``1 + 2 x_2 + 3 x_1 + 4 x_1 x_2``.  One basis
    for every axis (``"monomial"``, ``"chebyshev"`` or ``"bernstein"``, with the 1-D
    conventions of :class:`MonomialPoly`, :class:`ChebyshevPoly`, :class:`BernsteinPoly`)
    and one domain per axis (``None`` for monomial).  Stored as a flat row-major tuple
    plus ``shape``; the shape is kept as given (no stripping: for Bernstein it fixes the
    per-axis orders).

    Parameters
    ----------
    coeffs : nested lists/tuples, or dict {index tuple: value}
        Rectangular nested sequences of exact numbers (depth d), or a sparse dict whose
        missing entries are zero (shape = 1 + largest index per axis).
    basis : str, default "monomial"
    domains : sequence of pairs (or None), one per axis
        ``None`` means the basis default (``(-1, 1)`` Chebyshev, ``(0, 1)`` Bernstein,
        none for monomial).

    Notes
    -----
    Evaluation contracts the last axis first with the 1-D algorithm (Horner, Clenshaw,
    de Casteljau) and proceeds to the first; each variable may be exact, ``arb`` or
    ``arb_series``.  Conversions act axis by axis, which is exact because the tensor
    basis is a product of 1-D bases.

    Guarantee
    ---------
    Exact (``fmpq``) when every point is exact; otherwise a ball (or ball series) that
    encloses ``p`` over the product of the input balls.  ``taylor_shift`` and
    ``to_monomial`` are exact.
    """

    __slots__ = ("_flat", "_shape", "_basis", "_domains")

    _flat: tuple[fmpq, ...]
    _shape: tuple[int, ...]
    _basis: str
    _domains: tuple[tuple[fmpq, fmpq] | None, ...]

    def __init__(self, coeffs: Any, basis: str = "monomial", domains: Any = None) -> None:
        if isinstance(coeffs, dict):
            flat, shape = _read_dict(coeffs)
        else:
            flat, shape = _read_nested(coeffs)
        self._set(flat, shape, basis, domains)

    @classmethod
    def from_flat(
        cls, flat: Any, shape: Any, basis: str = "monomial", domains: Any = None
    ) -> TensorPoly:
        """Build from a flat row-major list of exact numbers and a shape."""
        if isinstance(shape, (str, bytes)) or not isinstance(shape, Sequence) or not shape:
            raise ParameterTypeError(f"shape must be a non-empty sequence of ints, got {shape!r}")
        shp: list[int] = []
        for j, n in enumerate(shape):
            if isinstance(n, bool) or not isinstance(n, Integral) or n < 1:
                raise InvalidParameterError(f"shape[{j}] must be an integer >= 1, got {n!r}")
            shp.append(int(n))
        _check_shape(tuple(shp))
        if isinstance(flat, (str, bytes)) or not isinstance(flat, Sequence):
            raise ParameterTypeError(f"coeffs must be a flat sequence, got {type(flat).__name__}")
        if len(flat) != math.prod(shp):
            raise InvalidParameterError(
                f"coeffs has {len(flat)} entries but shape {tuple(shp)} needs {math.prod(shp)}"
            )
        vals = [exact_number(c, f"coeffs[{i}]") for i, c in enumerate(flat)]
        obj = cls.__new__(cls)
        obj._set(vals, tuple(shp), basis, domains)
        return obj

    @classmethod
    def _make(
        cls,
        flat: list[fmpq],
        shape: tuple[int, ...],
        basis: str,
        domains: tuple[tuple[fmpq, fmpq] | None, ...],
    ) -> TensorPoly:
        obj = cls.__new__(cls)
        object.__setattr__(obj, "_flat", tuple(flat))
        object.__setattr__(obj, "_shape", shape)
        object.__setattr__(obj, "_basis", basis)
        object.__setattr__(obj, "_domains", domains)
        return obj

    def _set(self, flat: list[fmpq], shape: tuple[int, ...], basis: Any, domains: Any) -> None:
        if basis not in _TENSOR_BASES:
            raise InvalidParameterError(
                f"basis must be one of {list(_TENSOR_BASES)}, got {basis!r}"
            )
        d = len(shape)
        if domains is None:
            doms: list[Any] = [None] * d
        elif isinstance(domains, (str, bytes)) or not isinstance(domains, Sequence):
            raise ParameterTypeError(f"domains must be a sequence of pairs, got {domains!r}")
        else:
            doms = list(domains)
            if len(doms) != d:
                raise InvalidParameterError(
                    f"domains must have one entry per axis ({d}), got {len(doms)}"
                )
        out: list[tuple[fmpq, fmpq] | None] = []
        for j, dom in enumerate(doms):
            if basis == "monomial":
                if dom is not None:
                    raise InvalidParameterError(
                        f"domains[{j}] must be None for the monomial basis, got {dom!r}"
                    )
                out.append(None)
            else:
                out.append(_DEFAULTS[basis] if dom is None else check_domain(dom, f"domains[{j}]"))
        object.__setattr__(self, "_flat", tuple(flat))
        object.__setattr__(self, "_shape", shape)
        object.__setattr__(self, "_basis", basis)
        object.__setattr__(self, "_domains", tuple(out))

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError("TensorPoly is immutable")

    # -------------------------------------------------------------- attributes

    @property
    def d(self) -> int:
        """Number of variables."""
        return len(self._shape)

    @property
    def shape(self) -> tuple[int, ...]:
        """``(n_1 + 1, ..., n_d + 1)``."""
        return self._shape

    @property
    def basis(self) -> str:
        """The basis of every axis."""
        return self._basis

    @property
    def domains(self) -> tuple[tuple[fmpq, fmpq] | None, ...]:
        """One exact domain per axis (``None`` for monomial)."""
        return self._domains

    @property
    def coeffs(self) -> tuple[fmpq, ...]:
        """Flat row-major exact coefficients."""
        return self._flat

    def coefficient(self, index: Sequence[int]) -> fmpq:
        """The coefficient ``c[i_1]...[i_d]``."""
        if len(index) != self.d:
            raise InvalidParameterError(f"index must have {self.d} entries, got {index!r}")
        pos = 0
        for i, n in zip(index, self._shape, strict=True):
            if not 0 <= i < n:
                raise InvalidParameterError(f"index {tuple(index)} out of shape {self._shape}")
            pos = pos * n + i
        return self._flat[pos]

    def _axis_monomial(self, axis: int) -> Any:
        """1-D map: a fibre of coefficients along ``axis`` -> monomial coefficients in
        ``x_axis`` (same length)."""
        basis = self._basis
        if basis == "monomial":
            return lambda f: f
        dom = self._domains[axis]
        alpha, beta = affine_map(dom, _TARGET[basis])
        to_poly = cheb_to_poly if basis == "chebyshev" else bern_to_spoly

        def conv(f: list[fmpq]) -> list[fmpq]:
            return padded(compose_affine_poly(to_poly(f), alpha, beta), len(f))

        return conv

    @property
    def degrees(self) -> tuple[int, ...]:
        """Exact degree in each variable (``-1`` for every axis of the zero polynomial)."""
        if all(c == 0 for c in self._flat):
            return (-1,) * self.d
        out = []
        for axis in range(self.d):
            flat, _ = apply_along_axis(self._flat, self._shape, axis, self._axis_monomial(axis))
            n = self._shape[axis]
            inner = math.prod(self._shape[axis + 1:])
            deg = 0
            for pos, c in enumerate(flat):
                if c != 0:
                    deg = max(deg, (pos // inner) % n)
            out.append(deg)
        return tuple(out)

    def coefficient_norm(self) -> fmpq:
        """Exact ``sum |c_i|`` in this basis."""
        return fmpq_abs_sum(self._flat)

    def max_abs_coefficient(self) -> fmpq:
        """Exact ``max |c_i|`` in this basis."""
        return max(abs(c) for c in self._flat)

    # -------------------------------------------------------------- evaluation

    def __call__(self, *xs: Any) -> Any:
        """Evaluate at ``(x_1, ..., x_d)``; each ``x_j`` exact, ``arb`` or ``arb_series``.

        Returns ``fmpq`` if all points are exact, else ``arb`` (or ``arb_series`` if any
        point is a series) enclosing ``p`` over the input balls.
        """
        if len(xs) != self.d:
            raise InvalidParameterError(
                f"expected {self.d} points (one per variable), got {len(xs)}"
            )
        pts = [read_point(x, f"x_{j + 1}") for j, x in enumerate(xs)]
        kernel = _KERNELS[self._basis]
        vals: list[Any] = list(self._flat)
        for axis in range(self.d - 1, -1, -1):
            x = pts[axis]
            if self._basis != "monomial":
                alpha, beta = affine_map(self._domains[axis], _TARGET[self._basis])
                x = map_point(x, alpha, beta)
            n = self._shape[axis]
            vals = [kernel(vals[i:i + n], x) for i in range(0, len(vals), n)]
        return lift(vals[0], point_kind(pts), pts)

    # -------------------------------------------------------------- conversions

    def to_monomial(self) -> TensorPoly:
        """Exact conversion to the monomial basis in the variables ``x_j`` (domain maps
        applied axis by axis); shape unchanged."""
        if self._basis == "monomial":
            return self
        flat: list[Any] = list(self._flat)
        shape = self._shape
        for axis in range(self.d):
            flat, shape = apply_along_axis(flat, shape, axis, self._axis_monomial(axis))
        return TensorPoly._make(flat, shape, "monomial", (None,) * self.d)

    def taylor_shift(self, point: Sequence[Any]) -> TensorPoly:
        """Exact monomial :class:`TensorPoly` of ``t -> p(point + t)``: coefficient
        ``[j_1]...[j_d]`` is ``d^{j} p(point) / (j_1! ... j_d!)``; shape unchanged.

        Computed in integer arithmetic (:class:`~dpverify.exact.tensor_shift.IntegerTaylorShift`:
        the denominators of ``point`` and of the coefficients are scaled out, then one
        integer Taylor shift per fibre and axis).

        Guarantee
        ---------
        Exact (``fmpq``).
        """
        if isinstance(point, (str, bytes)) or not isinstance(point, Sequence):
            raise ParameterTypeError(f"point must be a sequence of {self.d} numbers")
        if len(point) != self.d:
            raise InvalidParameterError(f"point must have {self.d} entries, got {len(point)}")
        ms = [exact_number(m, f"point[{j}]") for j, m in enumerate(point)]
        mono = self.to_monomial()
        if all(m == 0 for m in ms):
            return mono
        flat = IntegerTaylorShift(mono._flat, mono._shape).coefficients(ms)
        return TensorPoly._make(flat, mono._shape, "monomial", (None,) * self.d)

    # -------------------------------------------------------------- comparison, I/O

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, TensorPoly):
            return NotImplemented
        if other._basis != self._basis or other._domains != self._domains:
            return False
        if other._shape == self._shape and self._basis != "bernstein":
            return other._flat == self._flat
        return _canon(self.to_monomial()) == _canon(other.to_monomial())

    def __hash__(self) -> int:
        dom = tuple(None if e is None else (fmpq_str(e[0]), fmpq_str(e[1])) for e in self._domains)
        key = _canon(self.to_monomial())
        return hash((self._basis, dom, tuple((i, fmpq_str(c)) for i, c in key)))

    def check_compatible(self, other: TensorPoly) -> None:
        """Raise :class:`BasisMismatchError` unless ``other`` has the same basis and
        domains."""
        if other._basis != self._basis or other._domains != self._domains:
            raise BasisMismatchError(
                f"cannot combine a {self._basis} TensorPoly with a {other._basis} TensorPoly"
                " or different domains; convert explicitly"
            )

    def to_json(self) -> dict[str, Any]:
        """``{"basis", "domains", "shape", "coefficients"}`` with the coefficients as a
        flat row-major list of exact ``"p/q"`` strings."""
        return {
            "basis": self._basis,
            "domains": [
                None if e is None else [fmpq_str(e[0]), fmpq_str(e[1])] for e in self._domains
            ],
            "shape": list(self._shape),
            "coefficients": [fmpq_str(c) for c in self._flat],
        }

    def __str__(self) -> str:
        """The exact full form (``TensorPoly.from_flat([...], shape=..., basis=...,
        domains=...)``, every coefficient)."""
        return (
            f"TensorPoly.from_flat({[fmpq_str(c) for c in self._flat]!r}, "
            f"shape={self._shape!r}, basis={self._basis!r}, domains="
            f"{self.to_json()['domains']!r})"
        )

    def __repr__(self) -> str:
        """The exact form when at most 100 characters, else a summary under 200 (basis,
        shape, domains, the first coefficients rounded, ``...``); ``str`` is exact."""
        full = str(self)
        if len(full) <= 100:
            return full
        doms = ", ".join("None" if e is None else f"({_short(e[0])}, {_short(e[1])})"
                         for e in self._domains)
        head = f"TensorPoly(basis={self._basis!r}, shape={self._shape}, domains=[{doms}]"
        if len(head) > 150:
            head = f"TensorPoly(basis={self._basis!r}, d={self.d}"
        shown = [_short(c) for c in self._flat[:3]]
        more = len(self._flat) - len(shown)
        text = f"{head}, coeffs~[{', '.join(shown)}{f', ... ({more} more)' if more else ''}])"
        return text if len(text) < 200 else f"{head[:150]}, ...)"


# ------------------------------------------------------------------ helpers


def _short(q: fmpq) -> str:
    text = fmpq_str(q)
    if len(text) <= 8:
        return text
    try:
        return f"~{int(q.p) / int(q.q):.4g}"
    except OverflowError:
        return "~inf" if q > 0 else "~-inf"


def _canon(p: TensorPoly) -> tuple[tuple[tuple[int, ...], fmpq], ...]:
    """Non-zero entries keyed by multi-index (shape independent)."""
    out = []
    for pos, c in enumerate(p._flat):
        if c != 0:
            idx = []
            rem = pos
            for n in reversed(p._shape):
                idx.append(rem % n)
                rem //= n
            out.append((tuple(reversed(idx)), c))
    return tuple(sorted(out, key=lambda e: e[0]))


def _check_shape(shape: tuple[int, ...]) -> None:
    for j, n in enumerate(shape):
        if n - 1 > MAX_DEGREE:
            raise InvalidParameterError(
                f"coeffs has degree {n - 1} along axis {j}, above MAX_DEGREE={MAX_DEGREE}"
            )
    if math.prod(shape) > MAX_TENSOR_SIZE:
        raise InvalidParameterError(
            f"coeffs has {math.prod(shape)} entries, above MAX_TENSOR_SIZE={MAX_TENSOR_SIZE}"
        )


def _read_nested(coeffs: Any) -> tuple[list[fmpq], tuple[int, ...]]:
    if not isinstance(coeffs, (list, tuple)):
        if hasattr(coeffs, "tolist"):
            coeffs = coeffs.tolist()
        else:
            raise ParameterTypeError(
                f"coeffs must be nested lists or a dict, got {type(coeffs).__name__}"
            )
    if not isinstance(coeffs, (list, tuple)):
        raise ParameterTypeError("coeffs must be nested lists or a dict")

    def shape_of(obj: Any, name: str) -> tuple[int, ...]:
        if isinstance(obj, (list, tuple)):
            if not obj:
                raise InvalidParameterError(f"{name} is empty")
            sub = shape_of(obj[0], f"{name}[0]")
            for i, e in enumerate(obj[1:], 1):
                if shape_of(e, f"{name}[{i}]") != sub:
                    raise InvalidParameterError(f"{name} is not rectangular (ragged at index {i})")
            return (len(obj),) + sub
        return ()

    shape = shape_of(coeffs, "coeffs")
    _check_shape(shape)
    flat: list[fmpq] = []

    def walk(obj: Any, name: str) -> None:
        if isinstance(obj, (list, tuple)):
            for i, e in enumerate(obj):
                walk(e, f"{name}[{i}]")
        else:
            flat.append(exact_number(obj, name))

    walk(coeffs, "coeffs")
    return flat, shape


def _read_dict(coeffs: dict[Any, Any]) -> tuple[list[fmpq], tuple[int, ...]]:
    if not coeffs:
        raise InvalidParameterError("coeffs must have at least one entry, got an empty dict")
    keys = []
    for key in coeffs:
        idx = (key,) if isinstance(key, Integral) and not isinstance(key, bool) else key
        if not isinstance(idx, tuple) or not idx or any(
            isinstance(i, bool) or not isinstance(i, Integral) or i < 0 for i in idx
        ):
            raise InvalidParameterError(
                f"coeffs keys must be tuples of non-negative ints, got {key!r}"
            )
        keys.append(tuple(int(i) for i in idx))
    d = len(keys[0])
    if any(len(k) != d for k in keys):
        raise InvalidParameterError("coeffs keys must all have the same length")
    shape = tuple(max(k[j] for k in keys) + 1 for j in range(d))
    _check_shape(shape)
    flat = [fmpq(0)] * math.prod(shape)
    for key, idx in zip(coeffs, keys, strict=True):
        pos = 0
        for i, n in zip(idx, shape, strict=True):
            pos = pos * n + i
        flat[pos] = exact_number(coeffs[key], f"coeffs[{idx}]")
    return flat, shape
