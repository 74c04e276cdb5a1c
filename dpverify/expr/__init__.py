"""Safe expression language for user functions (no ``eval``, no ``sympify``).

An expression such as ``"exp(-(x-0.3)^2/0.5)"`` is read by a small hand-written
tokenizer and an iterative operator-precedence (shunting-yard) parser into an
immutable tree, which is then evaluated rigorously in ball arithmetic
(:meth:`Expr.eval_arb`), on complex boxes where it is analytic
(:meth:`Expr.eval_acb`), exactly (:meth:`Expr.eval_exact`), in mpmath
(:meth:`Expr.eval_mpmath`) or vectorised in numpy (:meth:`Expr.to_numpy`).
Nothing in the text is ever handed to Python's ``eval``, ``compile``, ``ast`` or
SymPy.

The Taylor jets used by the certifiers live next to the language, in
:mod:`dpverify.expr.jets`.  The package is split by concept: :mod:`.tree` (node type,
whitelists, canonical text, static facts), :mod:`.parser`, :mod:`.ball` (``arb`` and
``arb_series`` evaluation), :mod:`.complex_eval` (``acb``), :mod:`.exact_eval`,
:mod:`.float_eval` (mpmath, numpy) and :mod:`.expression` (:class:`Expr`, :func:`parse`);
this module re-exports the public API.

Grammar
-------
::

    expr    := expr ('+' | '-') expr | expr ('*' | '/') expr
             | ('-' | '+') expr | expr ('^' | '**') expr
             | NUMBER | CONST | VAR | FUNC '(' expr ')' | '(' expr ')'
             | ('min' | 'max') '(' expr (',' expr)+ ')'

Precedence, lowest first: ``+ -`` (left-assoc.), ``* /`` (left-assoc.), unary
``- +``, ``^``/``**`` (right-assoc.).  As in mathematics ``-x^2`` is ``-(x^2)``,
``2^3^2`` is ``2^9 = 512``, ``1/2/2`` is ``1/4`` and ``2^-1`` is ``1/2``.

* ``NUMBER``: integer or decimal literal with optional exponent (``12``, ``0.3``,
  ``.5``, ``1e-3``, ``2.5E+4``), read **exactly** from the text with
  :func:`dpverify.numbers.parse_exact` (``0.3`` is 3/10); exponents beyond
  +-100000 are refused.
* ``CONST``: ``pi``, ``e``.
* ``VAR``: the allowed variables (by default ``x``, ``y``, ``z``, ``x1`` .. ``x9``).
* ``FUNC`` (one argument): ``exp log sqrt sin cos tan atan tanh abs erf erfc``
  and ``asin acos sinh cosh log1p expm1``.
* ``min(a, b, ...)`` and ``max(a, b, ...)``: n-ary, two or more arguments separated by
  commas (the only place a comma is allowed).  Like ``abs`` they are not analytic where
  two arguments tie: Taylor (series) evaluation raises :class:`NotAnalytic` there and the
  certifiers fall back to interval enclosures (``arb`` min/max, rigorous).

Limits and rejected input (all raise :class:`~dpverify.errors.ExpressionError`
with a message that quotes the offending token and the parameter name):
empty text; text longer than 10000 characters; nesting (tree depth or
parenthesis depth) deeper than 200; unknown names (``nan``, ``inf``, ``os``,
``__import__``, Python keywords, ...); attribute access, subscripts, strings,
commas outside ``min``/``max``, comparisons, keyword arguments, lambdas; implicit multiplication
(``2x``, ``2(x+1)``); unbalanced parentheses; a constant integer exponent with
absolute value above 10000 (``exp(x)**10**10``); division by an exact constant
zero (``x/0``, ``x/(1-1)``); a folded rational constant larger than 2**20 bits.

Constant sub-expressions that are rational (``+ - * /`` and integer powers of
rationals) are folded exactly (``fmpq``) at parse time; sums and products are
flattened (``a-(b+c)`` is stored as ``a-b-c``) and their rational constants are
merged into one leading term or factor (``x+1+2`` is stored as ``3+x``, ``x+0`` as
``x``, ``1*x`` as ``x``; ``0*x`` is kept).  This is exact algebra on the real
numbers; the ball evaluation of the normalised tree is still rigorous.

Canonical form
--------------
:attr:`Expr.canonical` is a fully parenthesised text such that
``parse(e.canonical, e.variables) == e``; it is what certificates store.
"""


from __future__ import annotations

from .ball import arb_pow_point as arb_pow_point  # module-level before the split: kept
from .expression import Expr, parse
from .tree import (
    CONSTANTS,
    DEFAULT_VARIABLES,
    FUNCTIONS,
    MAX_CONSTANT_BITS,
    MAX_DEPTH,
    MAX_INT_EXPONENT,
    MAX_LENGTH,
    NARY_FUNCTIONS,
    NoEnclosure,
    NotAnalytic,
    Undefined,
)

__all__ = [
    "NotAnalytic",
    "Undefined",
    "NoEnclosure",
    "Expr",
    "parse",
    "FUNCTIONS",
    "NARY_FUNCTIONS",
    "CONSTANTS",
    "DEFAULT_VARIABLES",
    "MAX_LENGTH",
    "MAX_DEPTH",
    "MAX_INT_EXPONENT",
    "MAX_CONSTANT_BITS",
]
