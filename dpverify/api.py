"""The top-level entry points, named like the commands:
``dpverify.supnorm``, ``dpverify.chebyshev_coefficients``, ``dpverify.minimax``,
``dpverify.approx`` and ``dpverify.evalbound``; and :func:`boolean_certificate` and
:func:`supnorm_certificate`, the one call behind ``dpverify or``/``and`` and
``dpverify supnorm``.  Each takes numpy.polynomial objects as
well as dpverify polynomials (converted exactly by :func:`dpverify.exact.as_poly`), then
calls the function of the package that owns the concept; the guarantee is that function's.
"""

from __future__ import annotations

from typing import Any

from flint import arb, fmpq

from .approximation import Approximation
from .budget import limits
from .certify.alternation import approx as _approx
from .certify.alternation import minimax as _minimax
from .certify.certificate import Certificate
from .certify.claims import certify
from .certify.evalbound import evalbound as _evalbound
from .certify.evalbound import float_error_bound as _float_error_bound
from .certify.interval import SupNorm
from .certify.interval import supnorm as _interval_supnorm
from .constructions import chebyshev as _chebyshev  # module: its builders are looked up
from .constructions.chebyshev_series import ChebyshevSeries
from .constructions.chebyshev_series import chebyshev_coefficients as _cheb_coefficients
from .constructions.multivariate_norm import multivariate_norms
from .constructions.remez import DEGREE_LIMIT_REASON, MAX_REMEZ_DEGREE, remez
from .errors import InvalidParameterError, ParameterTypeError
from .exact import ExactPoly, as_poly
from .expr import Expr, parse
from .numbers import MAX_DEGREE, check_int, check_interval, fmpq_str, to_fmpq
from .progress import ProgressCallback, report

__all__ = ["supnorm", "chebyshev_coefficients", "minimax", "approx", "evalbound",
           "float_error_bound", "boolean_certificate", "supnorm_certificate",
           "MAX_NORM_DEGREE"]

#: Largest Chebyshev degree for which :func:`boolean_certificate` computes the exact
#: multivariate norms (~t^2 rational operations on numbers of ~t log2(k) bits: 3 s at
#: t = 347, minutes beyond 1000).
MAX_NORM_DEGREE = 1000


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
        The interval, or one interval per variable.
    **options
        ``rtol`` (relative width of the enclosure to reach, default ``1e-6``),
        ``timeout``, ``progress``, ...: see :func:`dpverify.certify.interval.supnorm`.

    Returns
    -------
    SupNorm
        ``lower``, ``upper`` (exact rationals), the ``witness`` point where the error is at
        least ``lower``, ``converged``.  For a checkable certificate of the same statement
        use ``dpverify supnorm --out`` (or :func:`dpverify.certify.certify`).

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
    """
    return _interval_supnorm(f, as_poly(poly), box, **options)


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
    with limits(timeout=timeout):
        return _chebyshev_coefficients(f, n, dim, options)


def _chebyshev_coefficients(f: Any, n: Any, dim: Any, options: dict[str, Any]
                            ) -> ChebyshevSeries:
    if isinstance(f, str) or isinstance(f, Expr):
        return _cheb_coefficients(f, n, dim, **options)
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
        ``rtol`` (bracket goal, default ``1e-6``), ``timeout``, ``progress``, ``search``.

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
    if "search" not in options:
        _check_remez_degree(degree, "degree")
        options["search"] = remez
    return _minimax(f, degree, interval, **options)


def approx(f: Any, interval: Any, gamma: Any, **options: Any) -> Certificate:
    """The least degree whose best approximation is certified within ``gamma`` (and, when
    provable, that one degree less is impossible); ``max_degree`` defaults to 1000 and is
    at most ``MAX_REMEZ_DEGREE`` with the default search; ``timeout=`` (seconds) bounds
    the whole call.  See :func:`dpverify.certify.alternation.approx`.

    Parameters
    ----------
    f : str or Expr
        A function of ``x`` (:mod:`dpverify.expr`).
    interval : (a, b)
        Exact numbers, ``a < b``.
    gamma : exact number > 0
        The uniform error to reach.
    **options
        ``max_degree``, ``rtol`` (default ``1e-6``), ``timeout``, ``progress``, ``search``.

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
    if "search" not in options:
        if "max_degree" in options:
            _check_remez_degree(options["max_degree"], "max_degree")
        options["search"] = remez
    return _approx(f, interval, gamma, **options)


def _check_remez_degree(degree: Any, name: str) -> None:
    """The Remez search's degree limit, with its reason, before any work."""
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
    return _evalbound(_eval_poly(poly), interval, **options)


def _is_program(poly: Any) -> bool:
    """A program (text, Program, FPCore) rather than a polynomial."""
    return isinstance(poly, str) or type(poly).__name__ in ("Program", "FPCore")


def _eval_poly(poly: Any) -> Any:
    """A coefficient list stays a list (``basis=`` / ``domain=`` say how to read it);
    numpy and dpverify polynomials are converted exactly."""
    return list(poly) if isinstance(poly, (list, tuple)) else as_poly(poly)


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
    return _float_error_bound(f, _eval_poly(poly), interval, **options)


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


def supnorm_certificate(f: Any, poly: Any, interval: Any, *, rtol: Any = "1e-6",
                        claim: Any = None, **options: Any) -> Certificate:
    """Certify ``sup |f(x) - p(x)|`` over ``interval = (a, b)`` as a ``supnorm-box``
    certificate (:func:`dpverify.certify.certify` on a box domain), optionally proving
    or refuting ``sup <= claim``.

    ``f`` is an expression in ``x`` (text or :class:`~dpverify.expr.Expr`); ``poly`` any
    polynomial :func:`dpverify.exact.as_poly` reads.  ``options`` (``max_pieces``,
    ``timeout``, ``progress``) go to :func:`dpverify.certify.certify`.

    Guarantee
    ---------
    That of :func:`dpverify.certify.certify` on a box: the statement's enclosure
    ``[lower, upper]`` of the supremum is proven (a refuted or undecided ``claim`` is
    listed in ``info["unproven_claims"]``).

    Raises
    ------
    InvalidParameterError
        If ``interval`` is not ``(a, b)`` with ``a < b``, ``rtol <= 0``, ``claim < 0``,
        or ``f`` is not univariate in ``x``.
    """
    expr = f if isinstance(f, Expr) else parse(f, variables=("x",), name="f")
    if expr.variables != ("x",):
        raise InvalidParameterError(
            f"f must be a function of x alone, got variables {expr.variables}")
    a, b = check_interval(interval)
    rtol_q = to_fmpq(rtol, "rtol")
    if rtol_q <= 0:
        raise InvalidParameterError(f"rtol must be > 0, got {fmpq_str(rtol_q)}")
    claims: dict[str, str] = {}
    if claim is not None:
        c = to_fmpq(claim, "claim")
        if c < 0:
            raise InvalidParameterError(f"claim must be >= 0, got {fmpq_str(c)}")
        claims["max_error"] = fmpq_str(c)
    iv = [fmpq_str(a), fmpq_str(b)]
    approx = Approximation(
        construction="supnorm",
        params={"f": expr.canonical, "interval": iv, "rtol": fmpq_str(rtol_q)},
        poly=as_poly(poly),
        target={"kind": "expr", "expr": expr.canonical, "variables": ["x"]},
        domain={"kind": "box", "intervals": [iv]},
        claims=claims,
    )
    return certify(approx, rtol=rtol_q, **options)
