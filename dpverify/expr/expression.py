"""The public :class:`Expr` (an immutable parsed expression with its evaluators) and
:func:`parse`; see the :mod:`dpverify.expr` docstring for the language.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from flint import acb, arb, arb_series, fmpq, fmpz

from ..errors import DomainError, ExpressionError, ParameterTypeError
from .ball import ArbEval, series_prec
from .exact_eval import exact_value
from .parser import Parser, is_valid_variable
from .tree import (
    DEFAULT_VARIABLES,
    MAX_CANONICAL_LENGTH,
    MAX_LENGTH,
    Node,
    canonical_text,
    is_polynomial_node,
    variables_used,
)

if TYPE_CHECKING:  # annotations only: the float evaluators (mpmath, numpy: about 80 ms at
    # start-up) load on first use, so the rigorous paths never import them
    import mpmath
    import numpy as np

__all__ = ["Expr", "parse"]


# --------------------------------------------------------------------------- public API


class Expr:
    """A parsed, immutable user expression; build it with :func:`parse`.

    Attributes
    ----------
    text : str
        The original text.
    variables : tuple of str
        The argument names, in the order the evaluators take them.
    canonical : str
        Normalised, fully parenthesised text; ``parse(e.canonical, e.variables) == e``.
    is_polynomial : bool
        True when the expression is a polynomial in its variables (sums, products,
        division by constants, non-negative integer powers).
    used_variables : frozenset of str
        The variables that occur in the expression (``exp(x)`` with variables ``x, y``:
        ``{"x"}``); a function is constant along every other variable.

    Equality and hashing are on the tree and the variables (not on ``text``).
    """

    __slots__ = ("text", "variables", "used_variables", "canonical", "is_polynomial", "_root",
                 "_hash")
    text: str
    variables: tuple[str, ...]
    used_variables: frozenset[str]
    canonical: str
    is_polynomial: bool
    _root: Node
    _hash: int

    def __init__(self, text: str, variables: tuple[str, ...], root: Node):
        object.__setattr__(self, "text", text)
        object.__setattr__(self, "variables", variables)
        object.__setattr__(self, "used_variables", variables_used(root))
        object.__setattr__(self, "_root", root)
        object.__setattr__(self, "canonical", canonical_text(root))
        object.__setattr__(self, "is_polynomial", is_polynomial_node(root))
        object.__setattr__(self, "_hash", hash((root, variables)))

    def __setattr__(self, key: str, value: Any) -> None:
        raise AttributeError("Expr is immutable")

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Expr):
            return NotImplemented
        return self._root == other._root and self.variables == other.variables

    def __hash__(self) -> int:
        return self._hash

    def __reduce__(self) -> tuple:
        return (parse, (self.text, self.variables))

    def __repr__(self) -> str:
        return f"Expr({self.canonical!r}, variables={self.variables!r})"

    @property
    def tree(self) -> Node:
        """The root of the (immutable) expression tree, for static analyses such as
        :mod:`dpverify.expr.breakpoints`."""
        return self._root

    def _env(self, args: Sequence[Any], convert: Callable[[Any], Any], what: str) -> dict:
        if len(args) != len(self.variables):
            raise ParameterTypeError(
                f"{what} takes {len(self.variables)} argument(s) "
                f"({', '.join(self.variables) or 'none'}), got {len(args)}"
            )
        return {name: convert(a) for name, a in zip(self.variables, args, strict=True)}

    def eval_arb(
        self, *args: arb | arb_series, clip_to_domain: bool = False
    ) -> arb | arb_series:
        """Rigorous ball (or Taylor-series) evaluation.

        Parameters
        ----------
        *args : flint.arb or flint.arb_series
            One per variable.  ``int``, ``fmpz`` and ``fmpq`` are accepted and
            converted exactly; ``float`` is refused (it would lose rigour).
        clip_to_domain : bool
            Evaluate ``sqrt`` and non-integer powers on the part of the argument
            ball where they are defined (Arb's ``sqrtpos`` semantics).  The result
            then encloses f over the points of the input balls *at which f is
            defined*.  The interval certifier uses this because python-flint
            rounds every ball radius up, so a ball built for [0, r] reaches
            slightly below 0; it checks definedness at actual points separately.

        Returns
        -------
        flint.arb or flint.arb_series
            An ``arb`` when all arguments are ``arb``; otherwise an ``arb_series``
            truncated at the smallest ``prec`` of the series arguments.

        Guarantee
        ---------
        Rigorous, at the current ``flint.ctx.prec``.  The returned ball contains
        f(t) for every point t of the input balls (interval evaluation); for series
        input, each returned coefficient contains the true Taylor coefficient of
        f(u(s)) for every choice of input coefficients in their balls.  A non-finite
        result (NaN or infinite) means "no information": it is returned when an
        input ball straddles a singularity or the edge of a domain (``log``/``sqrt``
        /non-integer power of a ball reaching below 0, division by a ball containing
        0).  Exception: when the argument of ``sqrt``, ``log`` or a non-integer
        power is statically known to be >= 0 (``abs(..)``, ``sqrt(..)``, even
        powers, ...), its ball is clipped to [0, inf), which is rigorous.

        Raises
        ------
        DomainError
            If an input ball lies entirely outside the domain (``log`` of a ball
            <= 0, ``sqrt`` of a ball < 0, non-integer power of a negative ball, ...).
        NotAnalytic
            For series input whose constant-term ball contains a non-analytic point.
        ParameterTypeError
            On a wrong number or type of arguments.
        """

        def conv(a: Any) -> Any:
            if isinstance(a, (arb, arb_series)):
                return a
            if isinstance(a, (int, fmpz, fmpq)) and not isinstance(a, bool):
                return arb(a)
            raise ParameterTypeError(
                f"eval_arb takes flint.arb or flint.arb_series arguments, got "
                f"{type(a).__name__} ({a!r})"
            )

        env = self._env(args, conv, "eval_arb")
        out = ArbEval(env, clip_to_domain).ev(self._root)
        prec = series_prec(list(env.values()))
        if prec is not None and not isinstance(out, arb_series):
            out = arb_series([out], prec=prec)
        return out

    def eval_acb(self, *args: acb | arb) -> acb:
        """Enclosure of the analytic continuation of f on complex boxes.

        Parameters
        ----------
        *args : flint.acb (or flint.arb, int, fmpz, fmpq: converted exactly)
            One box per variable.

        Returns
        -------
        flint.acb
            A box containing ``F(z)`` for every point ``z`` of the input boxes, where
            ``F`` is the expression read with principal branches (``log``, ``sqrt``,
            powers, ``atan``, ``asin``, ``acos``, ``log1p``), ``abs(u)`` read as
            ``u`` where ``Re u > 0`` and ``-u`` where ``Re u < 0``, and ``min``/``max``
            read as the argument ``u_i`` with ``Re(u_i - u_j) < 0`` (min; ``> 0`` for
            max) for every other ``u_j`` on the whole box; or a non-finite
            ``acb`` (NaN) when this reading cannot be shown to be analytic on the whole
            box (a pole, a branch cut, ``abs`` of a box meeting ``Re u = 0``, ...).

        Guarantee
        ---------
        Rigorous at the current ``flint.ctx.prec``.  A finite result certifies that
        ``F`` is analytic on (a neighbourhood of) the box; ``F`` is defined pointwise,
        so finite results on overlapping boxes describe one analytic function, and at
        real points where f is defined ``F`` equals f (principal branches are real on
        the positive axis, ``abs`` picks the sign of its real argument).  For interval
        (non-analytic) enclosures on real points use :meth:`eval_arb`.
        """

        def conv(a: Any) -> acb:
            if isinstance(a, acb):
                return a
            if isinstance(a, arb):
                return acb(a)
            if isinstance(a, (int, fmpz, fmpq)) and not isinstance(a, bool):
                return acb(arb(a))
            raise ParameterTypeError(
                f"eval_acb takes flint.acb or flint.arb arguments, got "
                f"{type(a).__name__} ({a!r})"
            )

        # deferred: complex evaluation is for the analytic-box bounds only (start-up)
        from .complex_eval import AcbEval, NoAnalyticBox

        env = self._env(args, conv, "eval_acb")
        try:
            out = AcbEval(env).ev(self._root)
        except NoAnalyticBox:
            return acb(arb.nan(), arb.nan())
        if not out.is_finite():
            return acb(arb.nan(), arb.nan())
        return out

    def eval_exact(self, *args: fmpq | int) -> fmpq | None:
        """Exact rational evaluation.

        Guarantee
        ---------
        Exact.  Returns the ``fmpq`` value when it follows by exact rules
        (``+ - * /``, integer powers, ``abs``, rational constants, rational roots
        of rationals such as ``sqrt(1/4)`` or ``8^(1/3)``); otherwise ``None`` (the
        value may be irrational, or simply not decidable by these rules).

        Raises
        ------
        DomainError
            On division by zero, or a function applied outside its real domain
            (``sqrt(-1)``, ``log(0)``, ``(-8)^(1/3)``).
        """

        def conv(a: Any) -> fmpq:
            if isinstance(a, (int, fmpz, fmpq)) and not isinstance(a, bool):
                return fmpq(a)
            raise ParameterTypeError(
                f"eval_exact takes int or fmpq arguments, got {type(a).__name__} ({a!r})"
            )

        env = self._env(args, conv, "eval_exact")
        try:
            return exact_value(self._root, env)
        except DomainError as exc:  # name the expression and the point, as eval_mpmath does
            at = ", ".join(f"{k} = {v}" for k, v in env.items())
            raise type(exc)(f"{exc} in {self.canonical}" + (f" at {at}" if at else "")) \
                from None

    def explain_not_finite(self, *args: fmpq | int, name: str = "f") -> DomainError:
        """The error to raise when :meth:`eval_arb` has no finite ball at the exact point
        ``args`` (:func:`dpverify.expr.diagnose.explain_not_finite`): ``Undefined`` when the
        point is proven outside the domain (``1/(x - 1/2)`` at ``1/2``), else
        ``NoEnclosure`` -- with ``overflow`` set when the value is a finite real too large
        to enclose (``exp(1e308*x)`` at 1).  One line naming ``name``, the point and the
        sub-expression."""
        from .diagnose import explain_not_finite  # deferred: only a failure needs it

        exact = self._env(args, lambda a: fmpq(a), "explain_not_finite")
        env = {k: arb(v) for k, v in exact.items()}
        return explain_not_finite(self._root, env, exact, self.canonical, name)

    def eval_mpmath(self, *args: Any) -> mpmath.mpf:
        """Floating-point evaluation with mpmath at the current ``mpmath.mp.prec``.

        Arguments may be ``mpf``, ``int``, ``float`` or ``fmpq``.

        Guarantee
        ---------
        Heuristic, no guarantee (each operation is correctly rounded by mpmath,
        but errors accumulate unchecked).  For cross-checks and quadrature.

        Raises
        ------
        DomainError
            On division by zero or a non-real result (e.g. ``sqrt(-1)``).
        """

        import mpmath  # deferred: see the imports at the top

        from .float_eval import mp_rational, mp_value  # deferred: as mpmath

        def conv(a: Any) -> mpmath.mpf:
            if isinstance(a, fmpq):
                return mp_rational(a)
            return mpmath.mpf(a)

        env = self._env(args, conv, "eval_mpmath")
        try:
            out = mp_value(self._root, env)
        except ZeroDivisionError as exc:
            raise DomainError(f"division by zero in {self.canonical}") from exc
        except ValueError as exc:
            raise DomainError(f"{exc} in {self.canonical}") from exc
        if isinstance(out, mpmath.mpc):
            if out.imag != 0:
                raise DomainError(f"non-real value {out} of {self.canonical}")
            out = out.real
        return mpmath.mpf(out)

    def to_numpy(self) -> Callable[..., np.ndarray]:
        """A vectorised float64 callable ``f(*arrays) -> ndarray``.

        Arguments broadcast against each other like numpy ufunc arguments; a
        constant expression returns an array of the broadcast shape.  ``erf``/``erfc``
        use ``scipy.special`` when SciPy is installed, else a per-point Python loop over
        ``math.erf``/``math.erfc``; ``min``/``max`` are ``numpy.minimum``/``maximum``
        (NaN propagates); everything else is numpy ufuncs.

        Guarantee
        ---------
        Heuristic, no guarantee (IEEE double arithmetic).  Outside the domain the
        result is NaN or +-inf and floating-point warnings are suppressed.
        """
        import numpy as np  # deferred: see the imports at the top

        from .float_eval import np_compile  # deferred: as numpy

        index = {name: i for i, name in enumerate(self.variables)}
        g = np_compile(self._root, index)
        nvars = len(self.variables)

        def f(*arrays: Any) -> np.ndarray:
            if len(arrays) != nvars:
                raise ParameterTypeError(
                    f"the numpy function takes {nvars} argument(s), got {len(arrays)}"
                )
            xs = tuple(np.asarray(a, dtype=np.float64) for a in arrays)
            shape = np.broadcast_shapes(*(a.shape for a in xs)) if xs else ()
            with np.errstate(all="ignore"):
                out = g(xs)
            return np.array(np.broadcast_to(np.asarray(out, dtype=np.float64), shape))

        return f


def parse(text: str, variables: Sequence[str] | None = None, name: str = "expression", *,
          max_length: int = MAX_LENGTH) -> Expr:
    """Parse ``text`` into an :class:`Expr` (see the module docstring for the grammar).

    Parameters
    ----------
    text : str
        The expression, at most 10000 characters.
    variables : sequence of str, optional
        The allowed variable names, in argument order; then
        ``Expr.variables == tuple(variables)`` even if some are unused.  Default:
        ``x, y, z, x1..x9`` are allowed and ``Expr.variables`` is the tuple of those
        used, in that order.
    name : str
        Parameter name quoted in error messages (the CLI passes ``"--f"``).
    max_length : int
        Longest accepted ``text`` (default ``MAX_LENGTH``; a certificate's canonical text
        is re-read with ``MAX_CANONICAL_LENGTH``).

    Raises
    ------
    ExpressionError
        On any syntax error, unknown name or limit violation (among them a canonical
        text -- what a certificate stores, numbers written out in full -- longer than
        ``MAX_CANONICAL_LENGTH``); the message quotes the token and names the parameter.
    ParameterTypeError
        If ``text`` or a variable name is not a string.
    """
    if not isinstance(text, str):
        raise ParameterTypeError(f"{name} must be a string, got {type(text).__name__}")
    if variables is not None:
        if isinstance(variables, str):
            raise ParameterTypeError(
                f"variables must be a sequence of names, got the string {variables!r}"
            )
        variables = tuple(variables)
        for v in variables:
            if not isinstance(v, str):
                raise ParameterTypeError(f"variable names must be strings, got {v!r}")
            if not is_valid_variable(v):
                raise ExpressionError(f"invalid variable name {v!r} for {name}")
        if len(set(variables)) != len(variables):
            raise ExpressionError(f"duplicate variable names in {variables!r} for {name}")
    if len(text) > max_length:
        raise ExpressionError(
            f"expression in {name} is too long ({len(text)} characters, at most {max_length})"
        )
    if not text.strip():
        raise ExpressionError(f"empty expression in {name}")
    p = Parser(text, variables, name)
    root = p.parse()
    if variables is None:
        used = tuple(v for v in DEFAULT_VARIABLES if v in p.used)
    else:
        used = variables
    out = Expr(text, used, root)
    if len(out.canonical) > MAX_CANONICAL_LENGTH:
        digits = _longest_number(root)
        why = f" (a number in it has {digits} digits)" if digits > 1000 else ""
        raise ExpressionError(
            f"expression in {name} is too long written out exactly: its canonical text "
            f"(what a certificate stores, numbers in full) has {len(out.canonical)} "
            f"characters, at most {MAX_CANONICAL_LENGTH}{why}")
    return out


def _longest_number(root: Node) -> int:
    """Decimal digits of the longest number (numerator or denominator) in the tree."""
    best = 0
    stack: list[object] = [root]
    while stack:
        x = stack.pop()
        if isinstance(x, Node):
            if x.kind == "num":
                q = x.args[0]
                best = max(best, len(str(abs(q.p))), len(str(q.q)))
            else:
                stack.extend(x.args)
        elif isinstance(x, tuple):
            stack.extend(x)
    return best
