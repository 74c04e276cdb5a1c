"""``dpverify verify CERT.json``: independent re-check (exit 0 holds, 1 fails, 2 malformed)."""

from __future__ import annotations

from ..certify.certificate import Certificate
from ..certify.verify import verify_certificate
from ._common import CommandResult, add_json_flag, format_table


def register(sub) -> None:
    p = sub.add_parser(
        "verify",
        help="re-check a certificate from scratch",
        description="Re-check a certificate JSON with the independent checker. Exit 0 if every "
        "claim in it holds, 1 if one does not, 2 if the file is malformed.",
    )
    p.add_argument("certificate", metavar="CERT.json")
    add_json_flag(p)
    p.set_defaults(handler=run)


def run(args) -> CommandResult:
    cert = Certificate.load(args.certificate)
    rep = verify_certificate(cert.data)
    data = {
        "certificate": args.certificate,
        "ok": rep.ok,
        "checks": [{"check": n, "ok": ok, "detail": d} for n, ok, d in rep.checks],
    }
    rows = [(("ok  " if ok else "FAIL") + " " + n, d) for n, ok, d in rep.checks]
    rows.append(("result", "HOLDS" if rep.ok else "DOES NOT HOLD"))
    return CommandResult(data=data, text=format_table(rows), exit_code=0 if rep.ok else 1)
