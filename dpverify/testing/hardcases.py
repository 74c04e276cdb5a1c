"""Inputs where float implementations fail most: published hard-to-round cases of the
elementary functions, and the floats around the reference's zeros and poles.

:data:`HARD_CASES` holds, per function, twelve binary64 inputs spread over the published
list of worst cases for correct rounding in round-to-nearest -- inputs whose value lies
within ``2^-(53 + 43)`` relative or closer to a rounding boundary, where an implementation
that is accurate "almost everywhere" rounds the wrong way.  Source: the CORE-MATH project
(Sibidanov, Zimmermann, Glondu et al., https://core-math.gitlabpages.inria.fr/), files
``src/binary64/<f>/<f>.wc`` (read from the public mirror ``github.com/nak5124/core-math``,
commit ``9368e065``, 2025-02-22), which collect the worst cases of Lefevre and Muller
(V. Lefevre, J.-M. Muller, *Worst cases for correct rounding of the elementary functions in
double precision*, ARITH 15, 2001; data at https://www.vinc17.net/research/testlibm/) and
cases found with BaCSeL.  Only a sample is kept here: every twelfth of the list, evenly
spaced.  An odd or even function's cases are used with both signs.

:func:`special_points` adds, for a one-variable expression reference, the floats around
its zeros in the domain (sign changes of its float evaluation on ``2^16`` points, refined
by bisection: a search, never a decision) and around its poles and singular points
(:func:`dpverify.expr.breakpoints.breakpoints`: ``gamma`` at the non-positive integers,
``bessely`` at 0...), where relative errors of implementations blow up (a zero of
``besselj(0, x)`` computed as the difference of two nearly equal terms errs by ``10^9``
ulps and more).

Guarantee
---------
Search only: the points are checked like any other input, rigorously; which points are
chosen guarantees nothing.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .formats import BinaryFormat, from_ordinal, to_ordinal

__all__ = ["HARD_CASES", "ODD", "EVEN", "hard_inputs", "special_points", "NEIGHBOURS"]

#: floats on each side of a zero or a pole
NEIGHBOURS = 8

#: sample of CORE-MATH's binary64 worst cases per function (module docstring)
HARD_CASES: dict[str, tuple[str, ...]] = {
    "acos": (
        "0x1.ffffffffffdcp-1", "0x1.b9e05479ceedfp-5", "0x1.3c31abfdc228cp-13",
        "0x1.b1efac2ae590ap-22", "0x1.011cb3b399d74p-43", "0x1.1cb3b399d73e7p-51",
        "0x1.1a62633146323p-54", "0x1.d51a626331464p-46", "0x1.0c95ba11a6263p-26",
        "0x1.26de7e1418863p-17", "0x1.9446c6b22c36bp-9", "0x8p-972"),
    "acosh": (
        "0x1p+0", "0x1.615ccf99fa04ap+95", "0x1.31d7a89a02cfp+190", "0x1.0c08e31569142p+282",
        "0x1.2d2cf152a770fp+374", "0x1.ecfa45ec47aebp+466", "0x1.b42bd10d313bfp+560",
        "0x1.2ce030f7ba442p+651", "0x1.5c8ec81c33071p+747", "0x1.8b1d398ecec9ep+840",
        "0x1.c2c9aa1cd499fp+932", "0x1.11126088fb7ep+0"),
    "asin": (
        "0x1.fffffffffffffp-7", "0x1.ac6fe500ab562p-24", "0x1.128e1028e72abp-19",
        "0x1.847b8d4acd00cp-17", "0x1.cd6d3d530b12bp-15", "0x1.3576a9dcd7ef1p-12",
        "0x1.9eb2bd768e3c7p-10", "0x1.1dfa4cbdfeab1p-7", "0x1.7a542562667e8p-5",
        "0x1.e4d8ca0d0fd3fp-3", "0x1.8f6047b2b5bc1p-23", "0x1.fc7a07b2549abp-5"),
    "asinh": (
        "0x1.d12ed0af1a239p-26", "0x1.ac02e3a3e3885p+73", "0x1.dfdf1165a95dbp+172",
        "0x1.be7b1b5f4da37p+265", "0x1.d1c7001cd0751p+359", "0x1.12c85ba459e7cp+455",
        "0x1.22a9bd379d39fp+551", "0x1.1106dd2391f08p+642", "0x1.1e3d8de5e8991p+741",
        "0x1.349d7e5cf87bbp+836", "0x1.29ca81814dbd6p+930", "-0x1.fffffffffffffp+1023"),
    "atan": (
        "0x1.000321dec01a8p-10", "0x1.22ca6708b11fbp+2", "0x1.44efd0cd46422p-22",
        "0x1.69efb877ee37bp-6", "0x1.8cae9e2268461p-14", "0x1.b12cf1d00fdc6p+0",
        "0x1.d12ed0af1a302p-27", "0x1.f52c17150fd14p-12", "0x1.19fa14e3c76p+37",
        "0x1.bc5dca85991dcp+28", "0x1.9af67020b679bp+13", "-0x1.d02967c31cdb3p+53"),
    "atanh": (
        "0x1.d12ed0af1a27fp-27", "0x1.f51a62037e953p-25", "0x1.65540e9381f84p-11",
        "0x1.d1a37a727a98cp-9", "0x1.2967236d87ca9p-6", "0x1.979ebad7499e2p-4",
        "0x1.ff97f02ff1259p-17", "0x1.56134f13e6baap-20", "0x1.c3429e7531edbp-18",
        "0x1.3382e32ccc9dap-12", "0x1.91a3f05320128p-14", "0x1.fe3bcdp-27"),
    "cbrt": (
        "0x1.00152f57068b7p-1", "0x1.ed62f06b738p+2", "0x1.41fb809b2498p+0",
        "0x1.2772015396c2p+2", "0x1.6ccfc1d0842dp+0", "0x1.6d0f576ddf198p+1",
        "0x1.408813f6487fcp+2", "0x1.01702ff6ccb9ap+0", "0x1.8394d92d9e8f2p+0",
        "0x1.15c572279789fp+1", "0x1.7f0d8ddcbb20bp+1", "0x1.fffffffffffffp-1"),
    "cos": (
        "0x1.0009effd4bedap-12", "0x1.6a09e667f3bcep-25", "0x1.2eff93dabff06p-21",
        "0x1.fe955f9580d91p-18", "0x1.fb27613474c9ap-14", "0x1.c0d58ee09f249p-10",
        "0x1.82eba8e1149d7p-6", "0x1.54c1fe823f207p-2", "0x1.57bc3ac398c8p+2",
        "0x1.4576efd3d3929p+5", "0x1.be3a9a0c3c6afp+8", "0x1.3f06778c3c6a1p+104"),
    "cosh": (
        "0x1.003c1d82e8bb4p+0", "0x1.5ed0f1e7ddd38p-21", "0x1.bfee91f2541b7p-18",
        "0x1.fa8ad8d1144a9p-12", "0x1.778e839438957p-5", "0x1.1e3779b97f48p-25",
        "0x1.32ef4759a88d3p-7", "0x1.24c1ae9d63c8ep+9", "0x1.35671c969b9cfp+1",
        "0x1.5d103378a4055p+6", "0x1.a7ad6c1b38e3p+5"),
    "erf": (
        "0x1.037b548d9d7a6p-61", "0x1.d46c2f618e065p-56", "0x1.ac49ee701dab9p-50",
        "0x1.83eafc66aed9fp-44", "0x1.773b324e68c1cp-38", "0x1.5dfcb70b597aep-32",
        "0x1.37b75f7c856a3p-26", "0x1.de83b7226d8ecp-21", "0x1.b951783f14c5ep-15",
        "0x1.a4793f800cdc1p-9", "0x1.861d821f74dfep-3", "-0x1.fffffffffffffp+1023"),
    "erfc": (
        "0x1.c5bf891b4ef6bp-55", "0x1.c5bf891b4ef6ap-45", "0x1.4b6f8831d5522p-34",
        "0x1.d0a1ff39d82a3p-24", "0x1.54bd66a2ae95ep-13", "0x1.d9f923d709315p-3",
        "-0x1.7ed99baf0aa04p-48", "-0x1.f672f9d8874e5p-37", "-0x1.6b7f45175b975p-27",
        "-0x1.fee46a164442dp-16", "-0x1.68beefb1d3261p-6", "0x1.00ec043c0bc5cp+62"),
    "exp": (
        "0x1.0122ef37212ebp-1", "0x1.1c84a028d1238p-1", "0x1.30bfc38b2df61p-1",
        "0x1.4eaff005010dp-1", "0x1.62e062da73194p-1", "0x1.7c6bdc87a9f9ep-1",
        "0x1.9e4e63c1b1276p-1", "0x1.b4fd6b7f58181p-1", "0x1.d8633a3249e21p-1",
        "0x1.fedc746ddf8fap-1", "0x1.2c54cb8371084p+0", "0x1.5a348282953bap+0"),
    "exp2": (
        "0x1p+10", "0x1.3655737ca5727p-27", "-0x1.565d22d146b5cp-24", "-0x1.31b61e7dd0c7p-2",
        "-0x1.74ccd9b2edff6p-15", "-0x1.d3545d8c88bdfp-32", "-0x1.d1fd914a5e6dap-45",
        "0x1.71547652b82cp-51", "0x1.f42fd74efc74dp-39", "0x1.ff16d65d5756ap-9",
        "0x1.23acc29908126p+4"),
    "expm1": (
        "0x1.00091a4a0dae5p+2", "0x1.07c50a9b420ap-27", "-0x1.a96e79c5e9236p-44",
        "0x1.0000000000002p-50", "0x1.b2eaf36969324p-11", "0x1.c886a8bfb05e2p-39",
        "0x1.a81351ac4f25dp-43", "0x1.9b392fbb9c76ep-7", "0x1.e6c0a4178f105p-43",
        "0x1.36406304452ffp-47", "-0x1.d96203a4eba8cp-22"),
    "log": (
        "0x1.a6ae5142326b5p+0", "0x1.8e8dc12c8a648p-373", "0x1.7f23de64cfb96p-566",
        "0x1.8ec7d28bb789p-763", "0x1.9ff510f9e4889p-954", "0x1.e81c8ecc5c8f6p+131",
        "0x1.6ae42638935edp+326", "0x1.a8439f31eb58dp+522", "0x1.6a71625e6cd75p+714",
        "0x1.50aad4518b86ep+906", "0x1.567a9d90bfaffp-87"),
    "sin": (
        "0x1.005023d32fee5p+1", "0x1.56601b74c07a1p+914", "0x1.d4ca01705edd2p-23",
        "0x1.d0cdd2b692f5dp-19", "0x1.c0e9436aa3e84p-15", "0x1.b830b3c446c4fp-11",
        "0x1.a84d478ac5bc8p-7", "0x1.9bb2172714337p-3", "0x1.f89f06b4c48b6p+2",
        "0x1.809206c112dc8p+5", "0x1.3af888f660a43p+9", "0x1.62d237048d83p+940"),
    "sinh": (
        "0x1.002ee87ae6797p-8", "0x1.4f747439b349cp-25", "0x1.c88b241569413p-22",
        "0x1.32ae854e55a18p-18", "0x1.a28775c3b425ep-15", "0x1.1ebf3ea230f15p-11",
        "0x1.9582fa8fab43cp-8", "0x1.fda6a25361dd4p-5", "0x1.53c97e230c254p-1",
        "0x1.bbf247423fb4p+2", "0x1.288636b7800e7p+9"),
    "tan": (
        "0x1.0004b89dcb553p-11", "0x1.d12ed0af1a27cp-26", "0x1.cb0b90c272e87p-23",
        "0x1.cd6513d1b893p-20", "0x1.dd6d2f6a82718p-17", "0x1.dffef9af6312ep-14",
        "0x1.03a9071bb3775p-10", "0x1.1b8ac839c38abp-7", "0x1.2349460bf9b58p-4",
        "0x1.3c6268f5620bp-1", "0x1.d4b8ff4741761p+2", "-0x1.fffffffffffffp+1023"),
    "tanh": (
        "0x1.000b47bdb383fp-9", "0x1.0a402fcc7928bp-25", "0x1.340279b650141p-20",
        "0x1.2b9113c70d051p-14", "0x1.00b7b9d16253cp-6", "0x1.c7dfd7e964faep-21",
        "0x1.bf8ac1483922fp-10", "0x1.2d42c680e18cep-6", "0x1.1bdb04a295a8cp+2",
        "0x1.4865c9609a824p-2", "0x1.f4deb66b23de1p+1", "0x1.e142a0c545cc2p-857"),
}

#: functions whose cases hold with the opposite sign too (odd and even functions)
ODD = ("sin", "tan", "tanh", "erf", "atan", "sinh", "cbrt", "asinh", "atanh", "asin")
EVEN = ("cos", "cosh")

#: canonical texts of the references the table applies to
_CANONICAL = {f"{name}(x)": name for name in HARD_CASES if name != "exp2"}
_CANONICAL["(2 ^ x)"] = "exp2"


def hard_inputs(canonical: str, lo: float, hi: float, fmt: BinaryFormat) -> np.ndarray:
    """The published hard cases of the reference ``canonical`` (a one-variable expression
    in ``x``) inside ``[lo, hi]``, as numbers of ``fmt`` (binary64 cases rounded to binary32
    are no longer hard: there every input is checked by the exhaustive mode)."""
    name = _CANONICAL.get(canonical)
    if name is None:
        return np.zeros(0)
    xs = np.array([float.fromhex(h) for h in HARD_CASES[name]])
    if name in ODD + EVEN:
        xs = np.concatenate([xs, -xs])
    xs = xs.astype(fmt.dtype).astype(np.float64)
    return xs[(xs >= lo) & (xs <= hi)]


def _sign_changes(f: Any, lo: float, hi: float, n: int) -> np.ndarray:
    """Zeros of ``f`` (vectorised, float) on ``[lo, hi]`` from sign changes on ``n``
    points (uniform, and log-uniform on each side of 0 for a wide interval), refined by
    60 bisections in floats."""
    grids = [np.linspace(lo, hi, n)]
    for first, last in ((max(lo, 0.0), hi), (max(-hi, 0.0), -lo)):
        if last > 0 and last > 4 * max(first, 1e-300):
            g = np.geomspace(max(first, last * 1e-30, 1e-300), last, n // 2)
            grids.append(g if (first, last) == (max(lo, 0.0), hi) else -g)
    xs = np.unique(np.concatenate(grids))
    with np.errstate(all="ignore"):
        v = np.asarray(f(xs), dtype=np.float64)
    s = np.sign(v)
    cut = np.flatnonzero((s[:-1] * s[1:] < 0) & np.isfinite(v[:-1]) & np.isfinite(v[1:]))
    a, b, fa = xs[cut], xs[cut + 1], v[cut]
    for _ in range(60):
        m = a / 2 + b / 2
        with np.errstate(all="ignore"):
            fm = np.asarray(f(m), dtype=np.float64)
        left = np.sign(fm) == np.sign(fa)
        a, fa = np.where(left, m, a), np.where(left, fm, fa)
        b = np.where(left, b, m)
    exact = xs[v == 0]
    return np.concatenate([a, exact])


def special_points(expr: Any, lo: float, hi: float, fmt: BinaryFormat,
                   limit: int = 4000) -> np.ndarray:
    """The floats of ``fmt`` around the zeros, poles and singular points of the
    expression ``expr`` in ``[lo, hi]`` (module docstring), at most ``limit`` of them,
    with the published hard cases (:func:`hard_inputs`)."""
    # deferred: the expression package loads on first use (references.py)
    from flint import fmpq

    # (as above)
    from ..errors import DomainError
    from ..expr.breakpoints import breakpoints

    centres = [hard_inputs(expr.canonical, lo, hi, fmt)]
    try:
        centres.append(_sign_changes(expr.to_numpy(), lo, hi, 1 << 16))
    except (DomainError, ValueError, TypeError, ArithmeticError):   # a search: skip
        pass
    try:
        bps = breakpoints(expr, fmpq(*lo.as_integer_ratio()), fmpq(*hi.as_integer_ratio()))
        centres.append(np.array([float(int(b.x.p) / int(b.x.q)) for b in bps]))
    except (DomainError, ValueError, ArithmeticError):
        pass
    c = np.concatenate(centres).astype(fmt.dtype).astype(np.float64)
    c = np.unique(c[np.isfinite(c)])[:limit // (2 * NEIGHBOURS + 1) + 1]
    if c.size == 0:
        return c
    o = to_ordinal(c, fmt)[:, None] + np.arange(-NEIGHBOURS, NEIGHBOURS + 1)
    lo_o, hi_o = to_ordinal(np.array([lo, hi]).astype(fmt.dtype), fmt)
    pts = from_ordinal(np.clip(o.ravel(), lo_o, hi_o), fmt)
    return np.unique(pts)
