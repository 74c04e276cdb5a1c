"""Speed of ``jackson-approx`` (issue 15): construction + certification of ``I^d_{t,K} f``.

For d = 1, 2, 3 and several t it times, in this process,

* ``construct``: :func:`dpverify.constructions.jackson.jackson_approx` (Chebyshev coefficients
  with rigorous balls, damping, rounding);
* ``certify``: :func:`dpverify.certify.certify` of its L-infinity error to ``rtol = 1e-3``
  (the branch and bound of :mod:`dpverify.certify.interval` with Taylor jets);
* ``plain B&B``: the baseline measured in the same run -- a plain python-flint branch and
  bound written below (mean-value form ``|e(m)| + sum_i |d_i e(X)| r_i`` with
  ``arb_series`` gradients, Clenshaw in arb, a heap on the upper bounds) run to the same
  ``rtol`` on the same polynomial;
* ``verify``: the independent checker re-proving the certificate (plain Python + Arb too).

The columns ``certify / plain`` and ``certify / verify`` are the figures to compare across
machines; absolute seconds depend on the machine and its load (say which when quoting).

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

CASES = [
    (1, 16, "exp(-(x-0.5)^2/2)"), (1, 64, "exp(-(x-0.5)^2/2)"),
    (2, 8, "exp(-(x-0.5)^2/2 - y^2)"), (2, 16, "exp(-(x-0.5)^2/2 - y^2)"),
    (2, 32, "exp(-(x-0.5)^2/2 - y^2)"),
    (3, 4, "exp(-x^2-y^2-z^2)"), (3, 8, "exp(-x^2-y^2-z^2)"),
]  # fmt: skip
QUICK = [(1, 16, "exp(-(x-0.5)^2/2)"), (2, 32, "exp(-(x-0.5)^2/2 - y^2)"),
         (3, 8, "exp(-x^2-y^2-z^2)")]
RTOL = fmpq(1, 1000)


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
                           time_limit: float = 120.0) -> tuple[float, float, int, bool]:
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


def run(cases: list[tuple[int, int, str]]) -> list[dict[str, Any]]:
    rows = []
    for d, t, fs in cases:
        vars_ = ("x", "y", "z")[:d]
        t0 = time.perf_counter()
        approx = jackson_approx(fs, t, 2, dim=d)
        t1 = time.perf_counter()
        cert = certify(approx, rtol=RTOL)
        t2 = time.perf_counter()
        ok = verify_bytes(json.dumps(cert.data).encode())
        t3 = time.perf_counter()
        poly = approx.poly
        if d == 1:
            coeffs, shape = [fmpq(c) for c in poly.coeffs], [len(poly.coeffs)]
        else:
            coeffs, shape = [fmpq(c) for c in poly.coeffs], list(poly.shape)
        t4 = time.perf_counter()
        lo, up, pieces, conv = plain_branch_and_bound(parse(fs, variables=vars_), coeffs,
                                                      shape, RTOL)
        t5 = time.perf_counter()
        rows.append({
            "d": d, "t": t, "f": fs, "construct_s": t1 - t0, "certify_s": t2 - t1,
            "verify_s": t3 - t2, "verified": ok.ok,
            "plain_s": t5 - t4, "plain_converged": conv, "plain_pieces": pieces,
            "upper": float(cert.data["statement"]["error"]["upper"]),
            "plain_upper": up,
        })
    return rows


def cli_seconds(d: int, t: int, fs: str, repeat: int = 3) -> float:
    """Median wall time of the whole ``dpverify jackson-approx`` process (start-up included)."""
    cmd = [sys.executable, "-m", "dpverify", "jackson-approx", "--f", fs, "--t", str(t),
           "--K", "2", "--dim", str(d), "--rtol", "1e-3", "--no-progress"]
    ts = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        subprocess.run(cmd, check=True, capture_output=True)
        ts.append(time.perf_counter() - t0)
    return statistics.median(ts)


def main(argv: list[str]) -> None:
    cases = QUICK if "--quick" in argv else CASES
    rows = run(cases)
    for r in rows:
        r["cli_s"] = cli_seconds(r["d"], r["t"], r["f"])
    head = (f"{'d':>2} {'t':>3} {'construct':>9} {'certify':>8} {'verify':>7} {'plain B&B':>9} "
            f"{'cert/plain':>10} {'cert/verify':>11} {'CLI':>6}  verified")
    print(head)
    for r in rows:
        plain = f"{r['plain_s']:.3f}" + ("" if r["plain_converged"] else "*")
        print(f"{r['d']:>2} {r['t']:>3} {r['construct_s']:9.3f} {r['certify_s']:8.3f} "
              f"{r['verify_s']:7.3f} {plain:>9} {r['certify_s'] / r['plain_s']:10.2f} "
              f"{r['certify_s'] / r['verify_s']:11.2f} {r['cli_s']:6.2f}  {r['verified']}")
    print("seconds on this machine in this run (* = baseline hit its time limit: a lower "
          "bound of its time); rtol 1e-3")
    if "--no-write" in argv or "--quick" in argv:
        return
    lines = [SECTION, "",
             f"{machine_line()} Regenerate with `python3 benchmarks/jackson_speed.py`.",
             "", "Seconds in one process (construct, certify to rtol 1e-3, independent verify); "
             "`plain B&B` is the baseline measured in the same run (a plain python-flint branch "
             "and bound over the same polynomial and tolerance, written in the script); `CLI` is "
             "the whole `dpverify jackson-approx --K 2 --rtol 1e-3` process, start-up included "
             "(median of 3). Targets (issue 15): d = 2, t <= 32 well under 1 s; d = 3 under 5 s.",
             "", "| d | t | f | construct | certify | verify | plain B&B | certify / plain | CLI "
             "| target met |", "|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        target = {1: None, 2: 1.0, 3: 5.0}[r["d"]]
        met = "-" if target is None else ("yes" if r["cli_s"] < target else "no")
        plain = f"{r['plain_s']:.3f}" + ("" if r["plain_converged"] else " (limit)")
        lines.append(f"| {r['d']} | {r['t']} | `{r['f']}` | {r['construct_s']:.3f} | "
                     f"{r['certify_s']:.3f} | {r['verify_s']:.3f} | {plain} | "
                     f"{r['certify_s'] / r['plain_s']:.2f} | {r['cli_s']:.2f} | {met} |")
    write_section(SECTION, "\n".join(lines) + "\n")


if __name__ == "__main__":
    main(sys.argv[1:])
