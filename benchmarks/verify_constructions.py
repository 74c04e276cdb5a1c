"""The independent checker on the largest certificates: the cost of re-deriving a named
construction, and the budgets on hostile certificates.

For each certificate, ``verify_document`` runs twice in this process: on the certificate
as written (the construction claim re-derived) and on the same statement without its
``construction`` (the baseline: every other check); the ratio is the cost of the claim.
Then the hostile cases of the adversarial review, with the time they took before:

* ``or/chebyshev`` forged with gamma ``1e-17157`` at k = 3 and 30001 small coefficients,
  deadline 35 s (before: 47.9 s and 1.8 GB, the composition of T_t);
* a Bernstein-basis certificate with 20001 coefficients, deadline 5 s (before: 75.7 s)
  and deadline 25 s (the estimate lets the conversion start: the child is killed at
  ``1.05 T + 0.5`` s).

    python benchmarks/verify_constructions.py            # prints, updates docs/benchmarks.md
    python benchmarks/verify_constructions.py --no-write --quick
"""

from __future__ import annotations

import argparse
import copy
import json
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
# the hostile certificates are those of the budget tests (tests/_hostile.py)
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from _doc import machine_line, write_section  # noqa: E402

from tests._hostile import bernstein_identity, forged_chebyshev  # noqa: E402

SECTION = "## Verifier: construction claims and budgets"


def _certs(quick: bool) -> list[tuple[str, dict]]:
    from dpverify.certify import certify
    from dpverify.constructions.chebyshev import and_polynomial, or_polynomial
    from dpverify.constructions.decision_lists import h_polynomial
    from dpverify.constructions.sherstov import rofk_polynomial

    cases = [
        ("or/chebyshev k=10^4 gamma=1e-12", lambda: or_polynomial(10**4, "1e-12")),
        ("and/chebyshev k=10^4 gamma=1e-12", lambda: and_polynomial(10**4, "1e-12")),
        ("or/minimax k=400 gamma=1e-12", lambda: or_polynomial(400, "1e-12", method="minimax")),
        ("dlist/h k=1000 gamma=1e-6", lambda: h_polynomial(1000, "1e-6")),
        ("rofk/sherstov r=2 k=50 gamma=1/10", lambda: rofk_polynomial(
            2, 50, "1/10", intermediates="summary")),
    ]
    if not quick:
        cases.append(("rofk/sherstov r=3 k=100 gamma=1/10 (97 MB)", lambda: rofk_polynomial(
            3, 100, "1/10", intermediates="summary")))
    return [(label, json.loads(certify(make()).to_json())) for label, make in cases]


def _time(doc: dict, **kw: object) -> tuple[float, str]:
    from dpverify.verify import verify_document

    t0 = time.perf_counter()
    rep = verify_document(doc, **kw)
    return time.perf_counter() - t0, rep.status


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--no-write", action="store_true", help="print only")
    ap.add_argument("--quick", action="store_true", help="skip the 97 MB certificate and "
                    "the 25 s kill")
    args = ap.parse_args()
    rows = []
    for label, doc in _certs(args.quick):
        size = len(json.dumps(doc)) / 2**20
        base = copy.deepcopy(doc)
        del base["statement"]["construction"]
        t_base, s_base = _time(base)
        t_full, s_full = _time(doc)
        rows.append(f"| {label} | {size:.1f} | {t_full:.2f} ({s_full}) | {t_base:.2f} "
                    f"({s_base}) | {t_full / t_base:.2f} |")
        print(rows[-1], flush=True)
    hostile = []
    for label, doc, kw, before in (
            ("or/chebyshev forged, gamma 1e-17157, 30001 coefficients", forged_chebyshev(),
             {"deadline_seconds": 35}, "47.9 s, 1.8 GB"),
            ("Bernstein basis, 20001 coefficients", bernstein_identity(20000),
             {"deadline_seconds": 5}, "75.7 s"),
            *([] if args.quick else [("Bernstein basis, 20001 coefficients (conversion "
                                      "starts, child killed)", bernstein_identity(20000),
                                      {"deadline_seconds": 25}, "75.7 s")])):
        t, status = _time(doc, **kw)
        hostile.append(f"| {label} | {kw['deadline_seconds']} s | {t:.2f} s ({status}) | "
                       f"{before} |")
        print(hostile[-1], flush=True)
    text = "\n".join([
        SECTION, "",
        "`python benchmarks/verify_constructions.py`: `verify_document` in one process on "
        "certificates that name a construction, with the claim (re-derived: Chebyshev forms "
        "by their differential equation, minimax by the alternation theorem, Sherstov "
        "rebuilt) and without it (baseline, same run); then the hostile certificates of the "
        "adversarial review under a deadline (the check runs in a child process killed at "
        "`1.05 T + 0.5` s).", "",
        machine_line(), "",
        "| certificate | JSON MB | verify s (status) | without the claim s | ratio |",
        "|---|---|---|---|---|", *rows, "",
        "| hostile certificate | deadline | verify | before |", "|---|---|---|---|",
        *hostile, ""])
    if not args.no_write:
        write_section(SECTION, text)


if __name__ == "__main__":
    main()
