"""The ``verification`` field of every data document the CLI writes.

A data document (``"format": "dpverify-data"``) is not a certificate: ``dpverify verify``
refuses it as a whole.  Each one says here, plainly, whether it states a bound, which of
its bounds are backed by certificates and how to check them: certificates embedded under
``parts`` are checked with ``dpverify verify FILE --part NAME``; others are re-created as
separate certificate files by the command named; what no certificate kind covers (privacy
accounting, accuracy with probability ``1 - beta``, sizes from formulas) is said to be so.
docs/certificates.md (*Data files*) has the same table.
"""

from __future__ import annotations

from typing import Any

__all__ = ["VERIFICATION", "verification"]

_ACCOUNTING = ("The privacy accounting (sensitivity, noise scale, achieved epsilon: exact, or "
               "a rigorous upper bound in ball arithmetic) is not a certificate kind: dpverify "
               "verify does not check it; `dpverify privacy MECHANISM ...` with the same "
               "parameters re-derives it from the formulas the record names.")
_ACCURACY = ("The accuracy bound alpha holds with probability >= 1 - beta over the noise "
             "(exact formulas, not a certificate kind: not checked by dpverify verify).")
_RECERTIFY = ("To check a polynomial's error as a separate file: `dpverify or|and|rofk|dlist "
              "--k K --gamma G [--r R] [--method M] --out g.json && dpverify verify g.json` "
              "(the construction and its parameters are in the document).")

#: command -> (states a bound, how to check it)
VERIFICATION: dict[str, tuple[bool, str]] = {
    "privacy": (True, _ACCOUNTING),
    "release": (True, "A private release (noisy published values). " + _ACCOUNTING + " "
                + _ACCURACY),
    "release-size": (True, "The least database size n comes from exact formulas "
                     "(thaler2012 Theorems 3.1/3.2): not a certificate kind, not checked by "
                     "dpverify verify. " + _RECERTIFY),
    "tuv-release": (True, _ACCOUNTING + " " + _ACCURACY),
    "tuv-answer": (True, "An answer computed from a release summary. " + _ACCURACY
                   + " The summary's polynomial: dpverify verify SUMMARY --part polynomial."),
    "answer": (True, "An answer computed from a release summary. " + _ACCURACY
               + " wang-summary: the certified sup |f - p| of the query's approximation is "
               "the embedded certificate `approximation` (absent with --no-certify); "
               "bernstein and jin-synthetic answers state no bound."),
    "table": (True, "The manifest of the tables written (sha256 of each file). Each entry's "
              "error_exact is exact; re-create one entry's certificate and check it: "
              "`dpverify or|and|rofk|dlist --k K --gamma G [--method M] --out c.json`, "
              "`dpverify jackson --t T --K K --out c.json` or `dpverify bernstein --k K --h H "
              "--out c.json`, then `dpverify verify c.json`."),
    "crosscheck": (False, "Deviations of the float64 path from the exact reference measured "
                   "exactly at grid points, and pass/fail against declared tolerances: "
                   "measurements, not bounds over a domain; nothing here is a certificate. "
                   "Re-run `dpverify crosscheck`."),
    "check": (True, "A check of an implementation at the inputs it lists (every binary32 input "
              "with --exhaustive): each error enclosed rigorously, the worst decided "
              "exactly; testing, not a bound over the unchecked inputs, and not a "
              "certificate kind: re-run `dpverify check` with the same arguments."),
    "plot": (False, "Describes a figure (sampled curves, an illustration); states no bound. "
             "Check the certificate it was drawn from with dpverify verify."),
    "verify": (False, "The report of dpverify verify on the certificate it names; run it "
               "again to re-check."),
}


def verification(command: str, doc: dict[str, Any]) -> dict[str, Any]:
    """The ``verification`` block of the data document ``doc`` written by ``command``."""
    states, how = VERIFICATION.get(command, (
        True, "Not a certificate: dpverify verify does not check it."))
    parts = doc.get("parts")
    names = sorted(parts) if isinstance(parts, dict) else []
    out: dict[str, Any] = {"states_bounds": states, "certificates": names}
    if names:
        out["check_certificates"] = "dpverify verify FILE --part NAME"
    out["how"] = how
    return out
