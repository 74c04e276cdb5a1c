"""The top-level entry points, named like the commands:
``dpverify.supnorm``, ``dpverify.certify_approximation``, ``dpverify.chebyshev_coefficients``,
``dpverify.minimax``, ``dpverify.approx`` and ``dpverify.evalbound``; and
:func:`boolean_certificate` and :func:`supnorm_certificate`, the one call behind
``dpverify or``/``and`` and ``dpverify supnorm``.  Each takes numpy.polynomial objects as
well as dpverify polynomials (converted exactly by :func:`dpverify.exact.as_poly`), then
calls the function of the package that owns the concept; the guarantee is that function's.

Intervals may have constant-expression ends (``(0, "pi/2")``; :mod:`dpverify.expr.constant`):
a certificate then covers their outward rounding to exact rationals and says so
(docs/conventions.md, "Interval ends").  Unknown keyword arguments raise
:class:`~dpverify.errors.ParameterTypeError` naming them and the valid ones.

Start-up: this module imports python-flint and the light leaf modules only; each function
imports the certifier it calls when first called (``import dpverify.api`` stays cheap, and
``dpverify supnorm`` never loads the Remez search or numpy).  Which command loads what is
tabled in docs/architecture.md ("What loads when") and checked by
tests/test_cli_startup.py.

Size: about 650 lines, over the usual 600: most of it is the numpydoc of the public
functions, with examples that run in CI; the code is a thin layer over the certifiers.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from .approximation import Approximation
from .budget import limits
from .errors import InvalidParameterError, ParameterTypeError
from .numbers import check_int, check_keywords, fmpq_str, to_fmpq
from .progress import ProgressCallback, report

if TYPE_CHECKING:  # annotations only: the certifiers load on first call
    from .certify.certificate import Certificate
    from .certify.interval import SupNorm
    from .constructions.chebyshev_series import ChebyshevSeries
    from .expr.constant import Box

__all__ = ["supnorm", "certify_approximation", "chebyshev_coefficients", "minimax", "approx",
           "evalbound", "float_error_bound", "boolean_certificate", "supnorm_certificate",
           "MAX_NORM_DEGREE"]

#: Largest Chebyshev degree for which :func:`boolean_certificate` computes the exact
#: multivariate norms (~t^2 rational operations on numbers of ~t log2(k) bits: 3 s at
#: t = 347, minutes beyond 1000).
MAX_NORM_DEGREE = 1000


def _options(function: str, target: Callable[..., Any], options: dict[str, Any],
             given: tuple[str, ...] = (), own: tuple[str, ...] = ()) -> None:
    """Refuse keyword arguments that ``target`` does not take (except the ``given``
    parameters, which the caller passes itself): one error naming each unknown one and the
    valid ones (with ``own``, the API function's own keywords), instead of Python's bare
    TypeError from deep inside."""
    import inspect  # deferred: only the API functions with **options need it

    params = inspect.signature(target).parameters.values()
    valid = [p.name for p in params if p.kind in (p.KEYWORD_ONLY, p.POSITIONAL_OR_KEYWORD)
             and p.name not in given]
    check_keywords(function, options, valid + list(own))


def _box(interval: Any, name: str = "interval") -> Box:
    from .expr.constant import read_box  # deferred: loads the expression language

    return read_box(interval, name)


def supnorm(f: Any, poly: Any, box: Any, **options: Any) -> SupNorm:
    """Certified enclosure ``lower <= sup_{x in box} |f(x) - p(x)| <= upper``.

    Parameters
    ----------
    f : str or Expr
        The function, in the safe expression language (:mod:`dpverify.expr`), e.g.
        ``"exp(-x^2/2)"``; variables ``x`` (then ``y``, ``z``, ... for a box).
    poly
        A dpverify polynomial, a ``numpy.polynomial.Polynomial`` or ``Chebyshev`` (domain
        and window honoured exactly) or a list of monomial coefficients (read exactly:
        ``0.1`` is the binary64 number, ``"1/10"`` one tenth).
    box : (a, b) or list of (a, b)
        The interval, or one interval per variable.  Ends are exact numbers (a float is
        its binary64 value, ``"0.1"`` one tenth) or constant expressions such as
        ``"pi/2"`` or ``"sqrt(2)"``: the enclosure is then computed on the exact rational
        interval rounded outward from it (``domain``; ``requested`` keeps what was asked)
        and holds for the requested interval too (``witness`` lies inside it).
    **options
        ``rtol`` (relative width of the enclosure to reach, default ``1e-6``), ``atol``,
        ``claim`` (also decide ``sup <= claim``: the search stops as soon as it is proven
        or refuted, and ``claim_status`` says which: ``"proven"``, ``"refuted"`` or
        ``"undecided"``), ``max_pieces``, ``timeout`` (seconds), ``progress``: see
        :func:`dpverify.certify.interval.supnorm`.  An unknown name raises
        :class:`~dpverify.errors.ParameterTypeError` listing the valid ones.

    Returns
    -------
    SupNorm
        ``lower``, ``upper`` (exact rationals), the ``witness`` point where the error is at
        least ``lower``, ``converged``, ``claim`` and ``claim_status``; its repr shows the
        enclosure and the claim's outcome.  For a checkable certificate of the same
        statement use :func:`certify_approximation` (or ``dpverify supnorm --out``).

    Guarantee
    ---------
    That of :func:`dpverify.certify.interval.supnorm`: the enclosure is proven (arb ball
    arithmetic); ``lower`` is attained at ``witness``.

    Examples
    --------
    ``p = f`` exactly: the supremum is 0, and it is proven to be 0.

    >>> from numpy.polynomial import Polynomial
    >>> r = supnorm("x^2", Polynomial([0, 0, 1]), (0, 1))
    >>> r.lower, r.upper
    (0, 0)

    The Taylor polynomial ``1 + x + x^2/2`` of ``exp`` errs most at ``x = 1``, by
    ``e - 5/2 = 0.2182818...``; the enclosure contains it and is narrower than ``rtol``:

    >>> from flint import fmpq
    >>> r = supnorm("exp(x)", [1, 1, "1/2"], (0, 1))
    >>> r.witness
    (1,)
    >>> r.lower < fmpq(21829, 10**5) and r.upper > fmpq(21828, 10**5)
    True
    >>> r.upper - r.lower <= fmpq(1, 10**6) * r.upper
    True

    A claim is decided (the search stops as soon as it is), and the repr says how:

    >>> supnorm("exp(x)", [1, 1, "1/2"], (0, 1), claim="1/4")  # doctest: +NORMALIZE_WHITESPACE
    SupNorm(degree=2, sup in [2.18281e-1, 2.34141e-1], domain=[0, 1], converged=True,
            claim 1/4 proven)

    ``sin(x) - x`` on ``[0, pi/2]`` (a constant-expression end): the largest error is
    ``pi/2 - 1`` at ``pi/2``, and the enclosure holds on the real interval:

    >>> import math
    >>> r = supnorm("sin(x)", [0, 1], (0, "pi/2"), rtol="1e-9")
    >>> abs(float(r.lower) - (math.pi / 2 - 1)) < 1e-15
    True
    >>> r.requested
    [['0', '((1/2) * pi)']]
    """
    from .certify.interval import supnorm as _supnorm  # deferred: see the module docstring
    from .exact import as_poly  # deferred: as above

    _options("supnorm", _supnorm, options, ("f", "poly", "box", "requested"))
    return _supnorm(f, as_poly(poly), box, **options)


def chebyshev_coefficients(f: Any, n: Any, dim: Any = 1, *, timeout: Any = None,
                           **options: Any) -> ChebyshevSeries:
    """Rigorous balls for the Chebyshev coefficients ``c_0 .. c_n`` of ``f`` on
    ``[-1, 1]^dim``: see :func:`dpverify.constructions.chebyshev_series.chebyshev_coefficients`
    (options and guarantee).  ``timeout`` (seconds, or ``None``): past it
    :class:`~dpverify.errors.TimeLimitExceeded` is raised (checked between grid points and
    before every exact conversion, :mod:`dpverify.budget`).

    ``f`` may also be a polynomial in one variable -- a dpverify polynomial or a
    ``numpy.polynomial`` ``Polynomial``/``Chebyshev`` (read exactly, domain and window
    honoured): then the coefficients are those of the same function of ``x`` on
    ``[-1, 1]`` (whatever the polynomial's own domain), computed by exact conversion
    (``method "exact"``, zero beyond the degree); each ball is the ``fmpq`` rounded to
    the working precision, so it contains the exact coefficient.

    Returns
    -------
    ChebyshevSeries
        ``coeffs``: arb balls of ``c_m``, ``0 <= m_i <= n``, flat in row-major order
        (``c_0 .. c_n`` for ``dim = 1``; ``items()`` pairs them with their indices);
        ``method``, the aliasing bound and statistics.

    Examples
    --------
    >>> from numpy.polynomial import Polynomial
    >>> s = chebyshev_coefficients(Polynomial([0, 0, 1]), 3)   # x^2 = (T_0 + T_2)/2
    >>> [str(c) for c in s.coeffs]
    ['0.500000000000000', '0', '0.500000000000000', '0']

    ``exp(x) = I_0(1) + 2 sum_k I_k(1) T_k(x)`` (modified Bessel functions): every ball
    overlaps the value computed by arb's own Bessel function.

    >>> from flint import arb
    >>> s = chebyshev_coefficients("exp(x)", 4)
    >>> all(c.overlaps((1 if k == 0 else 2) * arb(1).bessel_i(k))
    ...     for k, c in enumerate(s.coeffs))
    True
    """
    # deferred: the series construction (module docstring)
    from .constructions.chebyshev_series import chebyshev_coefficients as _coefficients

    _options("chebyshev_coefficients", _coefficients, options, ("f", "n", "dim", "timeout"),
             ("timeout",))
    with limits(timeout=timeout):
        return _chebyshev_coefficients(f, n, dim, options)


def _chebyshev_coefficients(f: Any, n: Any, dim: Any, options: dict[str, Any]
                            ) -> ChebyshevSeries:
    # deferred: as chebyshev_coefficients (all of them)
    from flint import arb, fmpq

    # deferred: as chebyshev_coefficients
    from .constructions.chebyshev_series import ChebyshevSeries
    from .constructions.chebyshev_series import chebyshev_coefficients as _coefficients
    from .exact import ExactPoly, as_poly
    from .expr import Expr
    from .numbers import MAX_DEGREE

    if isinstance(f, str) or isinstance(f, Expr):
        return _coefficients(f, n, dim, **options)
    poly = as_poly(f)
    if not isinstance(poly, ExactPoly):
        raise ParameterTypeError("f must be an expression or a polynomial in one variable")
    if dim != 1 or options:
        raise InvalidParameterError(
            "a polynomial f takes no dim or options (its coefficients are exact)")
    nn = check_int(n, "n", minimum=0, maximum=MAX_DEGREE)
    cs = list(poly.to_chebyshev(domain=(-1, 1)).coeffs)
    cs = (cs + [fmpq(0)] * (nn + 1))[: nn + 1]
    balls = [arb(c) for c in cs]
    return ChebyshevSeries(dim=1, n=nn, coeffs=balls, grid=0, q=0, alias_bound=arb(0),
                           method="exact", stats={"degree": poly.degree})


def minimax(f: Any, degree: Any, interval: Any, **options: Any) -> Certificate:
    """Best uniform approximation of degree ``degree`` to ``f`` on ``interval`` with a
    certified bracket ``lower <= E_N(f) <= upper`` (a ``minimax`` certificate that
    ``dpverify verify`` re-checks).  The search is the Remez exchange of
    :func:`dpverify.constructions.remez.remez` (degree at most ``MAX_REMEZ_DEGREE``, 20000:
    its cost is time, O(N^2) per exchange step) unless ``search=`` is given.  ``timeout=``
    (seconds) bounds the whole call.  ``Certificate.converged`` (``info["bracket_met"]``)
    says whether ``upper <= lower (1 + rtol)``.  Options and guarantee:
    :func:`dpverify.certify.alternation.minimax`.

    Parameters
    ----------
    f : str or Expr
        A function of ``x`` (:mod:`dpverify.expr`); not a polynomial of degree
        ``<= degree`` (its error would be 0).
    degree : int
        ``N``.
    interval : (a, b)
        Exact numbers, ``a < b``.
    **options
        ``rtol`` (bracket goal, default ``1e-6``), ``timeout``, ``progress``, ``search``;
        ``relative=True`` (error ``(f - p)/f``), ``weight`` (error ``w (f - p)``),
        ``monomials`` (free powers: ``[1, 3, 5, 7]``, ``"odd"``, ``"even"``) and ``fix``
        (fixed coefficients, ``{0: 1}``): docs/minimax.md.

    Returns
    -------
    Certificate
        Kind ``minimax``: ``statement["error"]`` holds ``lower`` and ``upper``,
        ``statement["polynomial"]`` the polynomial (Chebyshev basis on ``interval``).

    Examples
    --------
    The best quadratic approximation of ``|x|`` on ``[-1, 1]`` is ``x^2 + 1/8``, with
    error ``E_2 = 1/8``: ``|x| - x^2 - 1/8`` equioscillates (``-1/8, 1/8, -1/8, 1/8,
    -1/8``) at ``-1, -1/2, 0, 1/2, 1``:

    >>> from fractions import Fraction
    >>> cert = minimax("abs(x)", 2, (-1, 1))
    >>> err = cert.statement["error"]
    >>> Fraction(err["lower"]) <= Fraction(1, 8) <= Fraction(err["upper"])
    True
    >>> cert.converged, cert.check().status
    (True, 'holds')
    """
    # deferred: the certifier and the Remez search (module docstring)
    from .certify.alternation import minimax as _minimax
    from .constructions.remez import remez

    _options("minimax", _minimax, options, ("f", "degree", "interval"))
    if "search" not in options:
        _check_remez_degree(degree, "degree")
        options["search"] = remez
    box = _box(interval)
    box.check_defined(_expr(f))
    return _rounded(_minimax(f, degree, box.stated[0], **options), box)


def approx(f: Any, interval: Any, gamma: Any, **options: Any) -> Certificate:
    """The least degree whose best approximation is certified within ``gamma`` (and, when
    provable, that one degree less is impossible); ``max_degree`` defaults to 1000 and is
    at most ``MAX_REMEZ_DEGREE`` with the default search; ``timeout=`` (seconds) bounds
    the whole call.  See :func:`dpverify.certify.least_degree.approx`.

    Parameters
    ----------
    f : str or Expr
        A function of ``x`` (:mod:`dpverify.expr`).
    interval : (a, b)
        Exact numbers, ``a < b``.
    gamma : exact number > 0
        The uniform error to reach.
    **options
        ``max_degree``, ``rtol`` (default ``1e-6``), ``timeout``, ``progress``, ``search``;
        ``relative``, ``weight``, ``monomials`` (``"odd"`` or ``"even"``), ``fix``: as
        :func:`minimax`.

    Returns
    -------
    Certificate
        Kind ``minimax`` with ``statement["max_error"] = gamma`` proven and, when the lower
        degree is proven impossible, ``statement["least_degree"]``; otherwise
        ``info["unproven_claims"]`` says why not.

    Raises
    ------
    CertificationFailed
        No degree ``<= max_degree`` is certified within ``gamma``.
    TimeLimitExceeded
        Past ``timeout``.

    Examples
    --------
    ``|x|`` on ``[-1, 1]``: ``E_0 = E_1 = 1/2`` (``|x|`` is even, so the best line is the
    constant 1/2) and ``E_2 = 1/8``, so for ``gamma = 1/4`` the least degree is 2, and the
    certificate proves that degree 1 cannot do it:

    >>> cert = approx("abs(x)", (-1, 1), "1/4")
    >>> cert.degree, cert.statement["max_error"]
    (2, '1/4')
    >>> "least_degree" in cert.statement
    True
    """
    # deferred: as minimax
    from .certify.least_degree import approx as _approx
    from .constructions.remez import remez

    _options("approx", _approx, options, ("f", "interval", "gamma"))
    if "search" not in options:
        if "max_degree" in options:
            _check_remez_degree(options["max_degree"], "max_degree")
        options["search"] = remez
    box = _box(interval)
    box.check_defined(_expr(f))
    return _rounded(_approx(f, box.stated[0], gamma, **options), box)


def _expr(f: Any) -> Any:
    """``f`` as an expression of ``x`` (a string is parsed; anything else is left to the
    certifier, which says what it accepts)."""
    from .expr import parse  # deferred: as minimax

    return parse(f, variables=("x",), name="f") if isinstance(f, str) else f


def _rounded(cert: Certificate, box: Box) -> Certificate:
    """A minimax certificate computed on the outward rounding of ``box``: record what was
    requested in ``info`` (not checked: the statement is about the stated rational
    interval, which contains the requested one; docs/conventions.md)."""
    note = box.info()
    if note is not None:
        cert.data.setdefault("info", {})["requested_interval"] = note
    return cert


def _check_remez_degree(degree: Any, name: str) -> None:
    """The Remez search's degree limit, with its reason, before any work."""
    # deferred: the search's limits live with the search
    from .constructions.remez import DEGREE_LIMIT_REASON, MAX_REMEZ_DEGREE

    n = check_int(degree, name, 0, None)
    if n > MAX_REMEZ_DEGREE:
        raise InvalidParameterError(
            f"{name} must be <= {MAX_REMEZ_DEGREE} ({DEGREE_LIMIT_REASON}), got {n}")


def evalbound(poly: Any, interval: Any = None, **options: Any) -> Any:
    """Rigorous bound on ``|fl(p(x)) - p(x)|`` for binary64 Horner (monomial) or Clenshaw
    (Chebyshev) evaluation over the binary64 ``x`` in ``interval`` (round to nearest, no
    FMA); ``poly`` may be a numpy polynomial.  ``.certificate()`` is the checkable
    ``evalbound`` certificate.  See :func:`dpverify.certify.evalbound.evalbound`.

    A program instead of a polynomial -- infix text such as ``"(x + y) * z"``, FPCore
    text, a :class:`~dpverify.expr.program.Program` or a read FPCore -- with ``interval``
    its ranges ``{name: (lo, hi)}``: the round-off bound of that program
    (:func:`dpverify.certify.roundoff.program_bound`, kind ``roundoff``).

    Examples
    --------
    ``fl(fl(x * 1) + 1)`` on ``[0, 1]``: the product is exact and ``x + 1`` rounds by at
    most half an ulp of ``[1, 2)``:

    >>> e = evalbound([1, 1], (0, 1))
    >>> str(e.bound)
    '1/9007199254740992'
    >>> from dpverify.verify import verify_document
    >>> verify_document(e.certificate().data).status
    'holds'

    An end such as ``"pi/2"`` stands for the binary64 numbers up to ``pi/2``: the interval
    becomes ``[0, 0x1.921fb54442d18p+0]``, the largest binary64 number below ``pi/2``
    (the same set of inputs, so nothing is rounded outward):

    >>> from flint import fmpq
    >>> evalbound([1, 1], (0, "pi/2")).interval[1] == fmpq(0x1921fb54442d18, 2**52)
    True

    A program, every operation rounded in the written order:

    >>> r = evalbound("(x + y) * x", {"x": (1, 2), "y": ("0.5", 1)})
    >>> verify_document(r.certificate().data).status
    'holds'
    """
    if _is_program(poly):
        # function-level: the program analysis loads the FPCore reader and the program
        # modules, which polynomial calls never need
        from .certify.roundoff import program_bound

        return program_bound(poly, interval, **options)
    from .certify.evalbound import evalbound as _evalbound  # deferred: module docstring

    _options("evalbound", _evalbound, options, ("poly", "interval"))
    return _evalbound(_eval_poly(poly), _binary64_interval(interval, poly, options),
                      **options)


def _is_program(poly: Any) -> bool:
    """A program (text, Program, FPCore) rather than a polynomial."""
    return isinstance(poly, str) or type(poly).__name__ in ("Program", "FPCore")


def _eval_poly(poly: Any) -> Any:
    """A coefficient list stays a list (``basis=`` / ``domain=`` say how to read it);
    numpy and dpverify polynomials are converted exactly."""
    from .exact import as_poly  # deferred: module docstring

    return list(poly) if isinstance(poly, (list, tuple)) else as_poly(poly)


def _binary64_interval(interval: Any, poly: Any, options: dict[str, Any]) -> Any:
    """``interval`` unchanged when its ends are exact; else the interval of the binary64
    numbers inside it (its ends rounded *inward* to binary64): the certificates of
    evalbound and float_error_bound speak of the binary64 ``x`` in the interval, the same
    set either way."""
    box = _box(interval)
    if box.exact:
        return interval
    if isinstance(poly, (list, tuple)) and options.get("basis") not in (None, "monomial") \
            and options.get("domain") is None:
        raise InvalidParameterError(
            "interval: with an end such as pi/2, give domain= for a coefficient list in "
            "the chebyshev or bernstein basis (its default domain is the interval)")
    (a, b), = box.ends
    return (a.binary64_inside("up", "interval[0]"), b.binary64_inside("down", "interval[1]"))


def float_error_bound(f: Any, poly: Any, interval: Any, **options: Any) -> Any:
    """Certified ``sup |f(x) - fl(p(x))|`` over the binary64 ``x`` in ``interval``: the
    certified ``sup |f - p|`` (a ``supnorm-box`` certificate, ``p`` with the binary64
    coefficients float code stores) plus the :func:`evalbound` of binary64 Horner /
    Clenshaw; ``poly`` may be a numpy polynomial.  ``.float_certificate()`` is the whole
    statement as one ``float-error`` certificate.  See
    :func:`dpverify.certify.evalbound.float_error_bound`.

    Examples
    --------
    >>> from numpy.polynomial import Polynomial
    >>> b = float_error_bound("1 + x + x^2/2", Polynomial([1, 1, 0.5]), (0, 1))
    >>> b.bound == b.evaluation.evaluation      # p = f exactly: only rounding remains
    True
    >>> from dpverify.verify import verify_document
    >>> verify_document(b.float_certificate().data).status
    'holds'
    """
    # deferred: module docstring
    from .certify.evalbound import float_error_bound as _float_error_bound

    _options("float_error_bound", _float_error_bound, options, ("f", "poly", "interval"))
    return _float_error_bound(f, _eval_poly(poly), _binary64_interval(interval, poly, options),
                              **options)


def boolean_certificate(function: str, k: Any, gamma: Any, method: str = "chebyshev",
                        d: Any = None, *, timeout: Any = None,
                        progress: ProgressCallback | None = None) -> Certificate:
    """Build the OR or AND polynomial of ``k`` bits in the count (thaler2012 Fact 4.2; see
    :func:`dpverify.constructions.chebyshev.or_polynomial`) and certify it on
    ``{0..k}``.

    Parameters
    ----------
    function : {"or", "and"}
    k, gamma, method
        As for :func:`~dpverify.constructions.chebyshev.or_polynomial`.
    d : int >= 1, optional
        Also compute the exact multivariate norms T of thaler2012 (full and multilinear,
        :func:`dpverify.constructions.multivariate_norm.multivariate_norms`) for ``d``
        attributes, into ``info["multivariate"]`` (exact, but not part of the statement:
        ``dpverify verify`` does not check them).  Needs the Chebyshev degree
        ``t <= MAX_NORM_DEGREE``.
    timeout : seconds, optional
        Past it :class:`~dpverify.errors.TimeLimitExceeded` is raised (checked at every
        progress step and before every large exact operation, :mod:`dpverify.budget`).
    progress : callable, optional
        ``progress(stage, done, total)`` (:mod:`dpverify.progress`): the construction,
        the certifier's passes over ``{0..k}`` and the norms (counts only).

    Guarantee
    ---------
    That of :func:`dpverify.certify.certify`: the statement (exact maximum error on
    ``{0..k}``, degree, coefficient norm; for ``"minimax"`` the least-degree proof) is
    proven; unproven claims are listed in ``info["unproven_claims"]``.

    Raises
    ------
    InvalidParameterError
        For a bad ``function``, ``k``, ``gamma``, ``method``, ``d`` or ``timeout``; for
        ``d`` with a Chebyshev degree above ``MAX_NORM_DEGREE`` (checked before any work).
    TimeLimitExceeded, MemoryLimitExceeded
        Past ``timeout``, or before a step that would pass it or the memory budget
        (:mod:`dpverify.budget`): undecided.
    """
    with limits(timeout=timeout):
        return _boolean_certificate(function, k, gamma, method, d, progress)


def _boolean_certificate(function: str, k: Any, gamma: Any, method: str, d: Any,
                         progress: ProgressCallback | None) -> Certificate:
    # deferred: module docstring
    from .certify.claims import certify
    from .constructions import chebyshev as _chebyshev  # module: builders looked up below
    from .constructions.multivariate_norm import multivariate_norms

    builders = {"or": "or_polynomial", "and": "and_polynomial"}
    if not isinstance(function, str) or function not in builders:
        raise InvalidParameterError(f"function must be 'or' or 'and', got {function!r}")
    dd = None if d is None else check_int(d, "d", minimum=1)
    if dd is not None:
        t = _chebyshev.or_degree(k, gamma)[0]  # exact and cheap; also validates k, gamma
        if t > MAX_NORM_DEGREE:
            raise InvalidParameterError(
                f"d: the exact multivariate norms of the degree-{t} polynomial would take "
                f"many minutes (~t^2 operations on {t}-coefficient rationals); they need "
                f"Chebyshev degree t <= {MAX_NORM_DEGREE}: raise gamma or lower k, or omit d")
    # looked up on the module (not bound at import) so that tests can substitute a builder
    build = getattr(_chebyshev, builders[function])
    report(progress, f"construction ({method})", 0, None)
    approx: Approximation = build(k, gamma, method, progress=progress)
    cert = certify(approx, progress=progress)
    if dd is not None:
        report(progress, f"multivariate norms (d = {dd})", 0, None)
        norms = dict(multivariate_norms(approx.poly, dd, row_weight=None))
        cert.data.setdefault("info", {})["multivariate"] = norms
    return cert


def certify_approximation(f: Any, poly: Any, interval: Any, *, claim: Any = None,
                          rtol: Any = "1e-6", **options: Any) -> Certificate:
    """One call from your polynomial to a certificate: ``sup |f(x) - p(x)|`` over
    ``interval`` enclosed in ``[lower, upper]`` (and ``sup <= claim`` proven or refuted),
    as a ``supnorm-box`` certificate the independent verifier re-checks.

    Parameters
    ----------
    f : str or Expr
        The function of ``x`` (:mod:`dpverify.expr`; never ``eval``-ed), e.g. ``"exp(x)"``.
    poly
        Your polynomial: a ``numpy.polynomial`` ``Polynomial`` or ``Chebyshev`` (domain and
        window honoured exactly), a list of monomial coefficients (lowest degree first; a
        float is its binary64 value, ``"1/6"`` one sixth) or a :mod:`dpverify.exact`
        polynomial.
    interval : (a, b)
        Exact numbers, or constant expressions such as ``"pi/2"``: the certificate then
        covers the exact rational interval rounded outward from it and states the
        requested one (``statement["domain"]["requested"]``); the enclosure holds on
        both (docs/conventions.md).
    claim : exact number, optional
        Prove (or refute) ``sup |f - p| <= claim``: proven, it is the statement's
        ``max_error``; refuted or undecided, it is listed in
        ``info["unproven_claims"]`` and ``complete`` is False.
    rtol : exact number > 0
        Relative width of the enclosure to reach (default ``1e-6``).
    **options
        ``max_pieces``, ``timeout`` (seconds), ``progress``
        (:func:`dpverify.certify.certify`).  An unknown name raises
        :class:`~dpverify.errors.ParameterTypeError` listing the valid ones.

    Returns
    -------
    Certificate
        ``complete`` (every claim proven), ``check()`` (runs the independent verifier on
        the certificate's JSON), ``save(path)`` (atomic JSON file for ``dpverify verify``).

    Guarantee
    ---------
    That of :func:`dpverify.certify.certify` on a box: the statement's enclosure
    ``[lower, upper]`` of the supremum is proven (ball arithmetic), ``lower`` attained at
    ``evidence["witness"]``; a claim is never dropped silently.

    Raises
    ------
    InvalidParameterError
        ``interval`` not ``(a, b)`` with ``a < b``, ``rtol <= 0``, ``claim < 0``, ``f`` not
        a function of ``x`` alone, or ``f`` undefined on the interval.
    ParameterTypeError
        An unknown keyword argument, or ``poly`` of a type no reader accepts.

    Examples
    --------
    The degree-3 Taylor polynomial of ``exp`` on ``[0, 1]`` errs by ``e - 8/3 = 0.0516...``
    at most (at ``x = 1``):

    >>> cert = certify_approximation("exp(x)", [1, 1, 0.5, "1/6"], (0, 1), claim="0.06")
    >>> cert.complete, cert.statement["max_error"]
    (True, '3/50')
    >>> cert.check().status
    'holds'

    A claim that is false is refuted, never dropped:

    >>> certify_approximation("exp(x)", [1, 1, 0.5, "1/6"], (0, 1), claim="0.05").complete
    False

    A misspelt option is named, with the valid ones:

    >>> try:
    ...     certify_approximation("exp(x)", [1], (0, 1), rtoll="1e-3")
    ... except TypeError as exc:      # a ParameterTypeError (a TypeError)
    ...     print(str(exc).replace("; ", ";\\n"))
    certify_approximation() got an unknown keyword argument 'rtoll' (did you mean 'rtol'?);
    valid: atol, claim, max_pieces, progress, rtol, timeout
    """
    # deferred: the certifier and the expression language (module docstring)
    from .certify.claims import certify
    from .exact import as_poly
    from .expr import Expr, parse

    _options("certify_approximation", certify, options,
             ("approx", "rtol", "stop_at_claim", "require"), ("claim", "rtol"))
    expr = f if isinstance(f, Expr) else parse(f, variables=("x",), name="f")
    if expr.variables != ("x",):
        raise InvalidParameterError(
            f"f must be a function of x alone, got variables {expr.variables}")
    box = _box(interval)
    if len(box.ends) != 1:
        raise InvalidParameterError("interval must be one pair (a, b)")
    box.check_defined(expr)
    rtol_q = to_fmpq(rtol, "rtol")
    if rtol_q <= 0:
        raise InvalidParameterError(f"rtol must be > 0, got {fmpq_str(rtol_q)}")
    claims: dict[str, str] = {}
    if claim is not None:
        c = to_fmpq(claim, "claim")
        if c < 0:
            raise InvalidParameterError(f"claim must be >= 0, got {fmpq_str(c)}")
        claims["max_error"] = fmpq_str(c)
    domain = box.domain()
    approx = Approximation(
        construction="supnorm",
        params={"f": expr.canonical, "interval": domain["intervals"][0],
                "rtol": fmpq_str(rtol_q)},
        poly=as_poly(poly),
        target={"kind": "expr", "expr": expr.canonical, "variables": ["x"]},
        domain=domain,
        claims=claims,
    )
    return certify(approx, rtol=rtol_q, **options)


def supnorm_certificate(f: Any, poly: Any, interval: Any, *, rtol: Any = "1e-6",
                        claim: Any = None, **options: Any) -> Certificate:
    """The certificate behind ``dpverify supnorm``: :func:`certify_approximation` (same
    parameters, guarantee and errors).

    Examples
    --------
    >>> supnorm_certificate("x^2", [0, 0, 1], (0, 1)).statement["error"]
    {'lower': '0', 'upper': '0'}
    """
    return certify_approximation(f, poly, interval, claim=claim, rtol=rtol, **options)
