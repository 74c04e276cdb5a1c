"""Speed of ``jackson-approx``: construction + certification of ``I^d_{t,K} f``, and the
independent check of the certificate.

For d = 1, 2, 3 and several t it times, in this process,

* ``construct``: :func:`dpverify.constructions.jackson.jackson_approx` (Chebyshev coefficients
  with rigorous balls, damping, rounding);
* ``certify``: :func:`dpverify.certify.certify` of its L-infinity error to ``rtol = 1e-3``
  (the box branch and bound of :mod:`dpverify.certify.interval`: Taylor models from jets,
  their polynomial part bounded through Bernstein coefficients);
* ``verify``: the independent checker re-proving the certificate (:func:`verify_bytes`);
* ``plain B&B``: the baseline measured in the same run -- a plain python-flint branch and
  bound written below (mean-value form ``|e(m)| + sum_i |d_i e(X)| r_i`` with ``arb_series``
  gradients, Clenshaw in arb, a heap on the upper bounds) run to the same ``rtol`` on the
  same polynomial, with a time limit;

and, as separate processes (start-up included), ``CLI`` = ``dpverify jackson-approx ...
--json`` writing the certificate and ``CLI verify`` = ``dpverify verify`` on it.  The two
targets are d = 3, t = 16 and d = 2, t = 64 under 5 s end to end (``CLI``).  A second table
runs the same stages on other functions a user would try (erf, tanh, an off-centre
Gaussian, a product of one-variable functions, a rational function), so that the speed is
not that of one function.

Run: ``python benchmarks/jackson_speed.py [--quick] [--no-write]`` (writes its section of
docs/benchmarks.md unless ``--quick`` or ``--no-write``).
"""

from __future__ import annotations

import heapq
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from typing import Any

from flint import arb, arb_series, ctx, fmpq

from dpverify.certify import certify
from dpverify.constructions.jackson import jackson_approx
from dpverify.expr import Expr, parse
from dpverify.verify import verify_bytes

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _doc import machine_line, write_section  # noqa: E402

SECTION = "## jackson-approx speed"

G1, G2, G3 = "exp(-(x-0.5)^2/2)", "exp(-(x-0.5)^2/2 - y^2)", "exp(-(x^2+y^2+z^2))"
CASES = [
    (1, 16, G1), (1, 64, G1), (2, 16, G2), (2, 32, G2), (2, 64, G2), (2, 64, "exp(-(x^2+y^2))"),
    (3, 8, G3), (3, 16, G3),
]  # fmt: skip
QUICK = [(2, 64, "exp(-(x^2+y^2))"), (3, 16, G3)]
OTHERS = [
    (3, 16, "erf(x+y-z)"), (3, 16, "tanh(x+2*y+z)"),
    (3, 16, "exp(-((x-0.3)^2+(y+0.2)^2+(z-0.5)^2))"), (3, 16, "cos(x)*exp(y)*sin(2*z)"),
    (3, 16, "1/(1+x^2+y^2+z^2)"),
    (2, 64, "erf(x-y)"), (2, 64, "tanh(2*x+y)"), (2, 64, "exp(-((x-0.3)^2+(y+0.2)^2))"),
    (2, 64, "cos(3*x)*exp(y)"), (2, 64, "1/(1+x^2+y^2)"),
]  # fmt: skip
#: end-to-end targets (seconds, whole CLI process)
TARGETS = {(3, 16): 5.0, (2, 64): 5.0}
RTOL = fmpq(1, 1000)
PLAIN_LIMIT = 60.0


def _clenshaw(cs: list[Any], x: Any) -> Any:
    """sum_n cs[n] T_n(x) for arb or arb_series x (cs arb or arb_series)."""
    b1: Any = 0
    b2: Any = 0
    for c in reversed(cs[1:]):
        b1, b2 = c + 2 * x * b1 - b2, b1
    return cs[0] + x * b1 - b2


def _tensor_eval(coeffs: list[Any], shape: list[int], xs: list[Any]) -> Any:
    """Chebyshev tensor (row-major, first index = first variable) at xs, last axis first."""
    vals = coeffs
    for axis in range(len(shape) - 1, -1, -1):
        n = shape[axis]
        vals = [_clenshaw(vals[i:i + n], xs[axis]) for i in range(0, len(vals), n)]
    return vals[0]


def plain_branch_and_bound(f: Expr, coeffs: list[fmpq], shape: list[int], rtol: fmpq,
                           time_limit: float = PLAIN_LIMIT) -> tuple[float, float, int, bool]:
    """(lower, upper, pieces, converged) of sup |f - p| on [-1,1]^d by a textbook branch and
    bound in python-flint (no jets, no exact shifts): the baseline."""
    d = len(shape)
    cb = [arb(c) for c in coeffs]
    t0 = time.perf_counter()

    def e_point(m: list[fmpq]) -> arb:
        xs = [arb(c) for c in m]
        return f.eval_arb(*xs) - _tensor_eval(cb, shape, xs)

    def bound(box: list[tuple[fmpq, fmpq]]) -> tuple[float, float]:
        m = [(a + b) / 2 for a, b in box]
        X = [arb(a).union(arb(b)) for a, b in box]
        em = e_point(m)
        up = abs(em)
        for i in range(d):
            xs: list[Any] = list(X)
            xs[i] = arb_series([X[i], 1], prec=2)
            de = f.eval_arb(*xs) - _tensor_eval(cb, shape, xs)
            g = de.coeffs()[1] if len(de.coeffs()) > 1 else arb(0)
            up += abs(g) * arb((box[i][1] - box[i][0]) / 2)
        lo = em.abs_lower()
        return float(lo), float(up.upper()) if up.is_finite() else float("inf")

    start = [(fmpq(-1), fmpq(1))] * d
    lo, up = bound(start)
    L = lo
    heap = [(-up, 0, start)]
    n = 0
    with ctx.workprec(64):
        while True:
            U = -heap[0][0]
            if U <= L * (1 + float(rtol)):
                return L, U, len(heap), True
            if time.perf_counter() - t0 > time_limit:
                return L, U, len(heap), False
            _, _, box = heapq.heappop(heap)
            ax = max(range(d), key=lambda i: box[i][1] - box[i][0])
            a, b = box[ax]
            mid = (a + b) / 2
            for half in ((a, mid), (mid, b)):
                nb = list(box)
                nb[ax] = half
                lo, up = bound(nb)
                L = max(L, lo)
                n += 1
                heapq.heappush(heap, (-up, n, nb))


def stages(d: int, t: int, fs: str) -> dict[str, Any]:
    """Seconds of each stage in this process, and the certificate's figures."""
    t0 = time.perf_counter()
    approx = jackson_approx(fs, t, 2, dim=d)
    t1 = time.perf_counter()
    cert = certify(approx, rtol=RTOL)
    t2 = time.perf_counter()
    blob = json.dumps(cert.data).encode()
    t3 = time.perf_counter()
    ok = verify_bytes(blob)
    t4 = time.perf_counter()
    st = cert.data["info"]["stats"]
    return {"d": d, "t": t, "f": fs, "construct_s": t1 - t0, "certify_s": t2 - t1,
            "json_s": t3 - t2, "verify_s": t4 - t3, "verified": ok.ok,
            "pieces": st.get("evidence_pieces"), "bounds": st.get("evaluations"),
            "upper": float(cert.data["statement"]["error"]["upper"]),
            "width": cert.data["info"].get("relative_width"), "poly": approx.poly}


def plain(row: dict[str, Any]) -> None:
    poly = row.pop("poly")
    d = row["d"]
    coeffs = [fmpq(c) for c in poly.coeffs]
    shape = [len(coeffs)] if d == 1 else list(poly.shape)
    t0 = time.perf_counter()
    _, up, pieces, conv = plain_branch_and_bound(
        parse(row["f"], variables=("x", "y", "z")[:d]), coeffs, shape, RTOL)
    row.update(plain_s=time.perf_counter() - t0, plain_converged=conv, plain_upper=up)


def cli_seconds(d: int, t: int, fs: str, repeat: int) -> tuple[float, float]:
    """Median wall times of the ``dpverify jackson-approx ... --json`` process (start-up
    included) and of ``dpverify verify`` on the certificate it wrote."""
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "cert.json")
        make = [sys.executable, "-m", "dpverify", "jackson-approx", "--f", fs, "--t", str(t),
                "--K", "2", "--dim", str(d), "--rtol", "1e-3", "--no-progress", "--json"]
        check = [sys.executable, "-m", "dpverify", "verify", path]
        tm, tv = [], []
        for _ in range(repeat):
            t0 = time.perf_counter()
            with open(path, "wb") as fh:
                subprocess.run(make, check=True, stdout=fh, stderr=subprocess.DEVNULL)
            t1 = time.perf_counter()
            subprocess.run(check, check=True, capture_output=True)
            tm.append(t1 - t0)
            tv.append(time.perf_counter() - t1)
    return statistics.median(tm), statistics.median(tv)


def main(argv: list[str]) -> None:
    quick = "--quick" in argv
    rows = []
    for d, t, fs in QUICK if quick else CASES:
        r = stages(d, t, fs)
        plain(r)
        r["cli_s"], r["cli_verify_s"] = cli_seconds(d, t, fs, 1 if quick else 3)
        rows.append(r)
    others = []
    for d, t, fs in [] if quick else OTHERS:
        r = stages(d, t, fs)
        r.pop("poly")
        r["cli_s"], r["cli_verify_s"] = cli_seconds(d, t, fs, 1)
        others.append(r)
    head = (f"{'d':>2} {'t':>3} {'construct':>9} {'certify':>8} {'verify':>7} {'plain B&B':>9} "
            f"{'cert/plain':>10} {'CLI':>6} {'CLI verify':>10}  verified  f")
    print(head)
    for r in rows + others:
        plain_s = r.get("plain_s")
        ps = "-" if plain_s is None else f"{plain_s:.3f}" + ("" if r["plain_converged"] else "*")
        ratio = "-" if plain_s is None else f"{r['certify_s'] / plain_s:.3f}"
        print(f"{r['d']:>2} {r['t']:>3} {r['construct_s']:9.3f} {r['certify_s']:8.3f} "
              f"{r['verify_s']:7.3f} {ps:>9} {ratio:>10} {r['cli_s']:6.2f} "
              f"{r['cli_verify_s']:10.2f}  {r['verified']}  {r['f']}")
    print(f"seconds on this machine in this run (* = baseline stopped at its {PLAIN_LIMIT:.0f} s "
          "limit: a lower bound of its time); rtol 1e-3")
    if "--no-write" in argv or quick:
        return
    lines = [SECTION, "",
             f"{machine_line()} Regenerate with `python3 benchmarks/jackson_speed.py`.",
             "", "Seconds in one process: `construct` (Chebyshev coefficients with rigorous balls, "
             "damping), `certify` (sup |f - p| to rtol 1e-3), `verify` (the independent checker "
             "on the certificate); `plain B&B` is the baseline measured in the same run (a "
             "plain python-flint branch and bound over the same polynomial and tolerance, "
             f"written in the script, stopped after {PLAIN_LIMIT:.0f} s); `CLI` is the whole "
             "`dpverify jackson-approx --K 2 --rtol 1e-3 --json` process writing the "
             "certificate, start-up included, and `CLI verify` the `dpverify verify` process "
             "on it (medians of 3). Targets: d = 3, t = 16 and d = 2, t = 64 under 5 s end to "
             "end (`CLI`).",
             "", "| d | t | f | construct | certify | verify | plain B&B | certify / plain | "
             "CLI | CLI verify | piece bounds | target met |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        target = TARGETS.get((r["d"], r["t"]))
        met = "-" if target is None else ("yes" if r["cli_s"] < target else "no")
        ps = f"{r['plain_s']:.3f}" + ("" if r["plain_converged"] else " (limit)")
        lines.append(f"| {r['d']} | {r['t']} | `{r['f']}` | {r['construct_s']:.3f} | "
                     f"{r['certify_s']:.3f} | {r['verify_s']:.3f} | {ps} | "
                     f"{r['certify_s'] / r['plain_s']:.3f} | {r['cli_s']:.2f} | "
                     f"{r['cli_verify_s']:.2f} | {r['bounds']} | {met} |")
    lines += ["", "Other functions at the target sizes (same stages; `CLI` and `CLI verify` "
              "from one run each; `upper` is the certified bound of sup |f - p|):", "",
              "| d | t | f | construct | certify | verify | CLI | CLI verify | piece bounds | "
              "upper | verified |", "|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in others:
        lines.append(f"| {r['d']} | {r['t']} | `{r['f']}` | {r['construct_s']:.3f} | "
                     f"{r['certify_s']:.3f} | {r['verify_s']:.3f} | {r['cli_s']:.2f} | "
                     f"{r['cli_verify_s']:.2f} | {r['bounds']} | {r['upper']:.4g} | "
                     f"{r['verified']} |")
    write_section(SECTION, "\n".join(lines) + "\n")


if __name__ == "__main__":
    main(sys.argv[1:])
