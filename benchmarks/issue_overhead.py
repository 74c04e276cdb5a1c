"""The cost of issuing a certificate: numbers normalised and the checker's schema run on
every certificate the certifier returns (``dpverify.certify.certificate.issue``).

For each case the certificate is built once through its public function (the build
includes ``issue``), then ``issue`` alone runs on the finished document (the fastest of
three); the ratio is the share of the build it takes.  The baseline in the same run is
``json.dumps`` of the same document (what ``save`` pays in any case).

    python benchmarks/issue_overhead.py            # prints, updates docs/benchmarks.md
    python benchmarks/issue_overhead.py --no-write
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from _doc import machine_line, write_section  # noqa: E402

SECTION = "## Certificates issued against the checker's schema"


def _cases() -> list[tuple[str, object]]:
    from dpverify import evalbound, float_error_bound, minimax
    from dpverify.api import supnorm_certificate
    from dpverify.certify import certify
    from dpverify.certify.lebesgue import lebesgue_certificate, lebesgue_constant
    from dpverify.constructions.chebyshev import or_polynomial
    from dpverify.constructions.sherstov import rofk_polynomial

    return [
        ("or/chebyshev k=10^4 gamma=1e-12", lambda: certify(or_polynomial(10**4, "1e-12"))),
        ("rofk/sherstov r=2 k=50", lambda: certify(rofk_polynomial(
            2, 50, "1/10", intermediates="summary"))),
        ("supnorm exp, degree 12, rtol 1e-10", lambda: supnorm_certificate(
            "exp(x)", [f"1/{math.factorial(i)}" for i in range(13)], (-1, 1),
            rtol="1e-10")),
        ("minimax abs(x), degree 64", lambda: minimax("abs(x)", 64, (-1, 1))),
        ("evalbound degree 16, 256 pieces", lambda: evalbound(
            [f"1/{i + 1}" for i in range(17)], (-1, 1), pieces=256).certificate()),
        ("float-error exp, degree 8", lambda: float_error_bound(
            "exp(x)", [f"1/{math.factorial(i)}" for i in range(9)], (0, 1),
            rtol="1e-3").float_certificate()),
        ("lebesgue k=40 h=3", lambda: lebesgue_certificate(
            lebesgue_constant(40, 3), None)),
    ]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--no-write", action="store_true", help="print only")
    args = ap.parse_args()
    from dpverify.certify.certificate import issue

    issue({"schema_version": 1, "format": "dpverify-certificate", "kind": "jackson-kernel",
           "statement": {"t": 1, "r": 1, "K": None, "t_prime": 2, "degree": 0,
                         "coefficients_2pi": ["1"]}, "evidence": {}})  # load the schemas
    rows = ["| certificate | size (KB) | build s | issue s | issue / build | json.dumps s |",
            "|---|---|---|---|---|---|"]
    for label, build in _cases():
        t0 = time.perf_counter()
        cert = build()
        total = time.perf_counter() - t0
        doc = cert.data  # type: ignore[attr-defined]
        best = min(_time(lambda d=doc: issue(d)) for _ in range(3))
        dumps = min(_time(lambda d=doc: json.dumps(d, indent=2)) for _ in range(3))
        size = len(json.dumps(doc)) / 1024
        rows.append(f"| {label} | {size:.0f} | {total:.3f} | {best:.4f} | "
                    f"{best / total:.1%} | {dumps:.4f} |")
        print(rows[-1], flush=True)
    text = "\n".join([
        SECTION, "",
        "Script: `benchmarks/issue_overhead.py`. Every certificate the certifier returns has "
        "its numbers normalised to the canonical exact form and is validated against the "
        "independent checker's JSON Schema (`issue`, docs/certificates.md, *Numbers*). "
        "`build s` is the whole public call (which includes `issue`); `issue s` is "
        "`issue` alone on the finished document (fastest of 3); `json.dumps s` is the "
        "serialisation `save` pays in any case. Timings on a shared machine are "
        "provisional.", "", machine_line(), "", *rows, ""])
    print(text)
    if not args.no_write:
        write_section(SECTION, text)
    return 0


def _time(fn: object) -> float:
    t0 = time.perf_counter()
    fn()  # type: ignore[operator]
    return time.perf_counter() - t0


if __name__ == "__main__":
    raise SystemExit(main())
