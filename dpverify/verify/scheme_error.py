"""Kind ``float-error`` with a bisection tree as evidence: ``|f(x) - fl(p)(x)| <= bound``
(absolute), ``<= bound |f(x)|`` (relative) or ``<= bound ulp(f(x))`` for every float ``x``
of the format in ``[A, B]``, ``fl(p)`` the named scheme (docs/certificates.md).

The checker expands the scheme into its operations itself (the orders of
docs/certificates.md: Horner, Horner with fused multiply-adds, Estrin, Estrin with fused
multiply-adds, optionally in ``y = x * x`` for one parity), then on each piece of the tree
adds its own bound of ``sup |f - p|`` (:func:`.taylor.bound_piece`, a Taylor form with
Lagrange remainder) to the rounding bound of :mod:`.roundoff` on that piece; relative
errors and ulps divide by ``|p| - sup |f - p|`` (or its ulp) on the piece.
"""

from __future__ import annotations

from flint import fmpq

from .expr import parse
from .fpmodel import FMTS
from .numbers import JsonObject, expect_keys, read_exact, read_list, show
from .poly import Poly, read_interval
from .program import Code, Instr
from .report import Checks, Malformed
from .roundoff import ERRORS, Model, check_boxes, leaves
from .taylor import bound_piece

__all__ = ["TOTAL_SCHEMES", "expand_scheme", "verify_total_error"]

TOTAL_SCHEMES = ("horner", "horner-fma", "estrin", "estrin-fma")
_PREC = 128
_MAX_COEFFS = 513


class _Prog:
    def __init__(self) -> None:
        self.instrs: list[Instr] = [Instr("var", name="x")]
        self.seen: dict[Instr, int] = {self.instrs[0]: 0}

    def put(self, ins: Instr) -> int:
        if ins not in self.seen:
            self.instrs.append(ins)
            self.seen[ins] = len(self.instrs) - 1
        return self.seen[ins]


def expand_scheme(coeffs: list[fmpq], scheme: str, parity: str | None) -> Code:
    """The operations of ``scheme`` on ``coeffs`` (docs/certificates.md)."""
    p = _Prog()
    fma = scheme.endswith("-fma")
    if parity is None:
        ds = coeffs
    else:
        ds = coeffs[(0 if parity == "even" else 1)::2]
    d = [p.put(Instr("const", value=c)) for c in ds]
    z = 0 if parity is None else p.put(Instr("mul", (0, 0)))

    def step(hi: int, t: int, lo: int) -> int:
        if fma:
            return p.put(Instr("fma", (hi, t, lo)))
        return p.put(Instr("add", (lo, p.put(Instr("mul", (hi, t))))))

    if scheme.startswith("horner"):
        q = d[-1]
        for c in reversed(d[:-1]):
            q = p.put(Instr("fma", (z, q, c))) if fma else \
                p.put(Instr("add", (p.put(Instr("mul", (z, q))), c)))
    else:
        b, t = d, z
        while len(b) > 1:
            nb = [step(b[2 * j + 1], t, b[2 * j]) for j in range(len(b) // 2)]
            if len(b) % 2:
                nb.append(b[-1])
            b = nb
            if len(b) > 1:
                t = p.put(Instr("mul", (t, t)))
        q = b[0]
    if parity == "odd":
        q = p.put(Instr("mul", (0, q)))
    return Code(["x"], p.instrs, q)


def verify_total_error(st: object, evidence: object, ck: Checks, out: list[str]) -> None:
    st = expect_keys(st, "statement", ("scheme", "parity", "format", "arithmetic",
                                       "polynomial", "interval", "target", "error",
                                       "bound"))
    scheme, parity = st["scheme"], st["parity"]
    if scheme not in TOTAL_SCHEMES:
        raise Malformed(f"statement.scheme: one of {', '.join(TOTAL_SCHEMES)}")
    if parity not in (None, "even", "odd"):
        raise Malformed("statement.parity: null, 'even' or 'odd'")
    if st["format"] not in FMTS:
        raise Malformed("statement.format: 'binary64' or 'binary32'")
    fmt = FMTS[st["format"]]
    want = f"{fmt.name}, round to nearest even, " + \
        ("fused multiply-add" if scheme.endswith("-fma") else "no FMA")
    if st["arithmetic"] != want:
        raise Malformed(f"statement.arithmetic: {scheme} in {fmt.name} is {want!r}")
    pj: JsonObject = expect_keys(st["polynomial"], "statement.polynomial",
                                 ("basis", "domain", "coefficients"))
    if pj["basis"] != "monomial" or pj["domain"] is not None:
        raise Malformed("statement.polynomial: the monomial basis, domain null")
    cs = [read_exact(c, f"statement.polynomial.coefficients[{i}]") for i, c in
          enumerate(read_list(pj["coefficients"], "statement.polynomial.coefficients", 1,
                              _MAX_COEFFS))]
    bad = [i for i, c in enumerate(cs) if not fmt.is_member(c)]
    if bad:
        raise Malformed(f"statement.polynomial.coefficients[{bad[0]}] is not a {fmt.name} "
                        "number")
    if len(cs) > 1 and cs[-1] == 0:
        raise Malformed("statement.polynomial: the leading coefficient is 0")
    if parity is not None:
        keep = 0 if parity == "even" else 1
        if any(c != 0 for i, c in enumerate(cs) if i % 2 != keep) or len(cs) <= keep:
            raise Malformed(f"statement.polynomial: not of {parity} parity")
    A, B = read_interval(st["interval"], "statement.interval")
    tj = expect_keys(st["target"], "statement.target", ("kind", "expr", "variables"))
    if tj["kind"] != "expr" or tj["variables"] != ["x"] or not isinstance(tj["expr"], str):
        raise Malformed("statement.target: an expr target in the variable x")
    fcode = parse(tj["expr"], ["x"], "statement.target.expr")
    if st["error"] not in ERRORS:
        raise Malformed("statement.error: 'absolute', 'relative' or 'ulps'")
    bound = read_exact(st["bound"], "statement.bound")
    ev = expect_keys(evidence, "evidence", ("root", "tree"))
    rj = read_list(ev["root"], "evidence.root", 1, 1)
    root = [read_interval(rj[0], "evidence.root[0]")]
    code = expand_scheme(cs, scheme, parity)
    hats = {k: it.value for k, it in enumerate(code.instrs)
            if it.op == "const" and it.value is not None}
    model = Model(code, fmt, False, {}, st["error"], hats)
    n = len(cs) - 1
    poly = Poly("monomial", (n + 1,), cs, [None], n, sum((abs(c) for c in cs), fmpq(0)),
                None)
    order = min(max(n + 1, 8), 40)

    unit = {"absolute": "", "relative": " |f(x)|", "ulps": " ulp(f(x))"}[st["error"]]
    out.append(f"Target: f(x) = {tj['expr'][:200]}.")
    out.append(f"Float code: {scheme}" + (f" in y = x * x ({parity} powers)" if parity else "")
               + f" on {n + 1} {fmt.name} coefficients; IEEE 754 {want}.")
    out.append(f"Inputs: every {fmt.name} x in [{show(A, 20)}, {show(B, 20)}].")
    out.append(f"Claim: |f(x) - fl(p(x))| <= {show(bound)}{unit} for every such x"
               + (" (ulp(y) = 2^(max(floor(log2 |y|), emin) - p + 1))" if unit else "") + ".")
    lo, hi = fmt.ceil(A), fmt.floor(B)
    if lo > hi:
        ck.add("inputs", True, f"no {fmt.name} number lies in [A, B]: nothing to check")
        return
    if not ck.run("evidence.root covers the floats of [A, B]",
                  lambda: (root[0][0] <= lo and hi <= root[0][1], "root box vs inputs")):
        return

    def approx(box: tuple[tuple[fmpq, fmpq], ...]) -> fmpq | None:
        pb = bound_piece(fcode, poly, [box[0]], order, _PREC)
        if pb.bound is None or not pb.bound.is_finite():
            return None
        m, e = pb.bound.mid().man_exp()
        r, f = pb.bound.rad().man_exp()
        return abs(fmpq(int(m)) * _p2(int(e))) + fmpq(int(r)) * _p2(int(f))

    boxes = leaves(ev["tree"], root)
    ck.run("every piece: sup |f - p| + rounding bound <= bound",
           lambda: check_boxes(model, boxes, bound, ck, approx))


def _p2(k: int) -> fmpq:
    return fmpq(2**k) if k >= 0 else fmpq(1, 2**(-k))
