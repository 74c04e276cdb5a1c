"""Kind ``roundoff``: for every input of a box, a straight-line float program's error
(absolute, relative, or in ulps of the exact value) is at most ``bound``.

The checker re-derives the bound of every box of the evidence's bisection tree with its own
program reader (:mod:`.program`) and its own analysis (docs/certificates.md, kind
``roundoff``): the first-order expansion of the error in the individual rounding errors,
each coefficient (the derivative of the output with respect to one operation's value)
enclosed over the box by a mean-value form on dual numbers, each rounding error bounded by
half an ulp of the largest binade the operation's exact result reaches (0 when the
operation is provably exact), the literals' known errors summed with their signs, and a
rigorous bound on the terms of order two.  A box whose bound exceeds the statement's is
bisected (up to four times) before the statement is declared undecided; an emulation of
the program at sample points looks for a counterexample.
"""

from __future__ import annotations

from flint import arb, ctx, fmpq, fmpz

from .fpmodel import FMTS, Fmt, flog2, pow2
from .numbers import JsonObject, expect_keys, read_exact, read_list, show
from .program import read_program
from .report import Checks, Malformed
from .roundoff_box import Model, Open, box_bound, q_hi, q_lo

__all__ = ["read_model", "leaves", "check_boxes", "verify_roundoff", "INPUTS", "ERRORS",
           "MAX_LEAVES", "emulate", "Model"]

INPUTS = ("floats", "rounded-reals")
ERRORS = ("absolute", "relative", "ulps")
MAX_LEAVES = 200_000
_SPLITS = 4
_SAMPLES = 64


# ------------------------------------------------------------------------ statement
def read_model(st: JsonObject) -> tuple[Model, list[tuple[fmpq, fmpq]], fmpq]:
    """The model, the box and the bound of a ``roundoff`` statement."""
    code = read_program(st["program"])
    fname = st["format"]
    if fname not in FMTS:
        raise Malformed("statement.format: 'binary64' or 'binary32'")
    fmt = FMTS[fname]
    if st["rounding"] != "nearest-even":
        raise Malformed("statement.rounding: 'nearest-even'")
    if st["inputs"] not in INPUTS:
        raise Malformed("statement.inputs: 'floats' or 'rounded-reals'")
    if st["error"] not in ERRORS:
        raise Malformed("statement.error: 'absolute', 'relative' or 'ulps'")
    fj = st["functions"]
    if not isinstance(fj, dict):
        raise Malformed("statement.functions: an object")
    funcs: dict[str, fmpq | None] = {}
    for name, model in fj.items():
        if name not in code.calls():
            raise Malformed(f"statement.functions: the program does not call {name[:30]!r}")
        if model == "correctly-rounded":
            funcs[name] = None
        else:
            q = read_exact(model, f"statement.functions.{name}")
            if q <= 0:
                raise Malformed(f"statement.functions.{name}: ulps must be > 0")
            funcs[name] = q
    missing = code.calls() - set(funcs)
    if missing:
        raise Malformed(f"statement.functions: no model for {sorted(missing)[0]}")
    raw = read_list(st["box"], "statement.box", len(code.variables), len(code.variables))
    box = []
    for i, pr in enumerate(raw):
        pr = read_list(pr, f"statement.box[{i}]", 2, 2)
        lo, hi = read_exact(pr[0], "statement.box"), read_exact(pr[1], "statement.box")
        if lo > hi:
            raise Malformed(f"statement.box[{i}]: lo > hi")
        if max(abs(lo), abs(hi)) > pow2(fmt.emax):
            raise Malformed(f"statement.box[{i}]: beyond the format's range")
        box.append((lo, hi))
    hats: dict[int, fmpq] = {}
    for k, it in enumerate(code.instrs):
        if it.op == "const":
            assert it.value is not None
            h = fmt.nearest(it.value)
            if h is None:
                raise Malformed(f"statement.program: the literal {show(it.value)} overflows")
            hats[k] = h
    bound = read_exact(st["bound"], "statement.bound")
    if bound < 0:
        raise Malformed("statement.bound: must be >= 0")
    return Model(code, fmt, st["inputs"] == "rounded-reals", funcs, st["error"], hats), \
        box, bound


def leaves(tree: object, root: list[tuple[fmpq, fmpq]]) -> list[list[tuple[fmpq, fmpq]]]:
    """The boxes of a bisection tree (pre-order tokens: ``.`` a leaf, ``i`` halves variable
    ``i``); Malformed when it does not parse."""
    if not isinstance(tree, str) or len(tree) > 20 * MAX_LEAVES:
        raise Malformed("evidence.tree: a string of tokens")
    toks = tree.split()
    out: list[list[tuple[fmpq, fmpq]]] = []
    stack = [list(root)]
    pos = 0
    while stack:
        if pos >= len(toks):
            raise Malformed("evidence.tree: ends early")
        b = stack.pop()
        t = toks[pos]
        pos += 1
        if t == ".":
            out.append(b)
            if len(out) > MAX_LEAVES:
                raise Malformed(f"evidence.tree: more than {MAX_LEAVES} boxes")
            continue
        if not t.isdigit() or int(t) >= len(root):
            raise Malformed(f"evidence.tree: bad token {t[:10]!r}")
        i = int(t)
        lo, hi = b[i]
        mid = (lo + hi) / 2
        left, right = list(b), list(b)
        left[i], right[i] = (lo, mid), (mid, hi)
        stack.extend([right, left])
    if pos != len(toks):
        raise Malformed("evidence.tree: tokens after the last box")
    return out


def check_boxes(m: Model, boxes: list[list[tuple[fmpq, fmpq]]], bound: fmpq, ck: Checks,
                approx: object = None) -> tuple[bool | None, str]:
    """Every box's bound ``<= bound`` (bisecting a box up to four times first)."""
    worst = fmpq(0)
    for n, b in enumerate(boxes):
        ck.tick()
        ck.report("roundoff boxes", n, len(boxes))
        todo = [(b, 0)]
        while todo:
            box, depth = todo.pop()
            try:
                got = box_bound(m, box, approx)
                if got.bound <= bound:
                    worst = max(worst, got.bound)
                    continue
                why = f"its bound {show(got.bound)} > bound"
            except Open as exc:
                why = str(exc)
            if depth >= _SPLITS:
                ck.report(None)
                return None, f"box {n} ({_where(box)}): {why}"
            i = max(range(len(box)), key=lambda j: box[j][1] - box[j][0])
            lo, hi = box[i]
            mid = (lo + hi) / 2
            if lo == hi:
                ck.report(None)
                return None, f"box {n} ({_where(box)}): {why}"
            left, right = list(box), list(box)
            left[i], right[i] = (lo, mid), (mid, hi)
            todo += [(left, depth + 1), (right, depth + 1)]
    ck.report(None)
    return True, f"{len(boxes)} boxes; largest bound {show(worst)}"


def _where(box: list[tuple[fmpq, fmpq]]) -> str:
    return ", ".join(f"[{show(a, 12)}, {show(b, 12)}]" for a, b in box)


# -------------------------------------------------------------------- refutation search
def emulate(m: Model, x: list[fmpq]) -> tuple[fmpq, arb] | None:
    """``(fl(P)(x), P(x))``: the float program run exactly (each operation rounded to
    nearest even in integers) at a point of the format, and an enclosure of the exact
    value; None when it cannot be emulated (a called function, an overflow, a domain
    error)."""
    code, fmt = m.code, m.fmt
    fl: list[fmpq] = []
    ex: list[arb] = []
    with ctx.workprec(256):
        for k, it in enumerate(code.instrs):
            if it.op == "call":
                return None
            if it.op == "var":
                i = code.variables.index(it.name)
                v = fmt.nearest(x[i]) if m.rounded else x[i]
                if v is None:
                    return None
                fl.append(v)
                ex.append(arb(x[i]))
                continue
            if it.op == "const":
                assert it.value is not None
                fl.append(m.hats[k])
                ex.append(arb(it.value))
                continue
            a = [fl[j] for j in it.args]
            e = [ex[j] for j in it.args]
            r: fmpq | None
            if it.op == "neg":
                r, er = -a[0], -e[0]
            elif it.op == "abs":
                r, er = abs(a[0]), abs(e[0])
            elif it.op in ("add", "sub"):
                s = 1 if it.op == "add" else -1
                r, er = fmt.nearest(a[0] + s * a[1]), e[0] + s * e[1]
            elif it.op == "mul":
                r, er = fmt.nearest(a[0] * a[1]), e[0] * e[1]
            elif it.op == "fma":
                r, er = fmt.nearest(a[0] * a[1] + a[2]), e[0] * e[1] + e[2]
            elif it.op == "div":
                if a[1] == 0:
                    return None
                r, er = fmt.nearest(a[0] / a[1]), e[0] / e[1]
            else:  # sqrt
                if a[0] < 0:
                    return None
                r, er = _sqrt_rounded(fmt, a[0]), e[0].sqrt()
            if r is None:
                return None
            fl.append(r)
            ex.append(er)
    return fl[code.out], ex[code.out]


def _sqrt_rounded(fmt: Fmt, v: fmpq) -> fmpq | None:
    """The correctly rounded square root of ``v >= 0`` (exact integer arithmetic)."""
    if v == 0:
        return fmpq(0)
    e = (flog2(v) // 2) - fmt.p - 2  # sqrt(v) / 2^e has at least p + 2 bits
    scaled = v / pow2(2 * e)
    n = int(fmpz(int(scaled.floor())).isqrt())  # floor(sqrt(v) / 2^e) (scaled >= 1)
    exact = fmpq(n * n) == scaled
    # sqrt(v) lies in [n, n + 1) 2^e; n 2^e + (0 if exact else 2^(e-1)) rounds the same way
    cand = fmpq(2 * n + (0 if exact else 1), 2) * pow2(e)
    return fmt.nearest(cand)


def _refute(m: Model, boxes: list[list[tuple[fmpq, fmpq]]], bound: fmpq,
            ck: Checks) -> tuple[list[fmpq], fmpq] | None:
    step = max(1, len(boxes) // _SAMPLES)
    for b in boxes[::step]:
        ck.tick()
        x = [(lo + hi) / 2 for lo, hi in b]
        if not m.rounded:
            x = [m.fmt.nearest(v) or v for v in x]
            if any(not lo <= v <= hi for v, (lo, hi) in zip(x, b)):
                continue
        r = emulate(m, x)
        if r is None:
            continue
        flv, exv = r
        diff = abs(arb(flv) - exv)
        if m.error == "absolute":
            if diff > arb(bound):
                return x, q_lo(diff)
        elif exv > 0 or exv < 0:
            scale = abs(exv) if m.error == "relative" else arb(m.fmt.ulp(q_hi(abs(exv))))
            if diff > arb(bound) * scale:
                return x, q_lo(diff)
    return None


def verify_roundoff(st: object, evidence: object, ck: Checks, out: list[str]) -> None:
    st = expect_keys(st, "statement", ("program", "format", "rounding", "inputs",
                                       "functions", "box", "error", "bound"))
    m, box, bound = read_model(st)
    ev = expect_keys(evidence, "evidence", ("root", "tree"))
    rj = read_list(ev["root"], "evidence.root", len(box), len(box))
    root = []
    for i, pr in enumerate(rj):
        pr = read_list(pr, f"evidence.root[{i}]", 2, 2)
        root.append((read_exact(pr[0], "evidence.root"), read_exact(pr[1], "evidence.root")))
    unit = {"absolute": "", "relative": " |P(x)|", "ulps": " ulp(P(x))"}[m.error]
    names = ", ".join(f"{v} in [{show(a, 15)}, {show(b, 15)}]"
                      for v, (a, b) in zip(m.code.variables, box))
    out.append(f"Program: {str(st['program'])[:300]}")
    out.append(f"Arithmetic: IEEE 754 {m.fmt.name}, round to nearest even, every operation "
               "rounded (fma once), literals rounded to the format; functions: "
               + (", ".join(f"{k} {'correctly rounded' if v is None else f'within {show(v)} ulp'}"
                            for k, v in sorted(m.funcs.items())) or "none") + ".")
    out.append(f"Inputs: every {'real' if m.rounded else m.fmt.name + ' number'} with "
               f"{names}" + (f", rounded to {m.fmt.name}" if m.rounded else "") + ".")
    out.append(f"Claim: |fl(P)(x) - P(x)| <= {show(bound)}{unit} (P the exact value).")

    if m.rounded:
        inputs = box
    else:
        inputs = [(m.fmt.ceil(lo), m.fmt.floor(hi)) for lo, hi in box]
        if any(lo > hi for lo, hi in inputs):
            ck.add("inputs", True, f"no {m.fmt.name} input lies in the box: nothing to check")
            return

    def covers() -> tuple[bool, str]:
        ok = all(r[0] <= i[0] and i[1] <= r[1] for r, i in zip(root, inputs))
        return ok, "the root box " + ("contains" if ok else "does not contain") + \
            " every input"

    if not ck.run("evidence.root covers the inputs", covers):
        return
    boxes = leaves(ev["tree"], root)
    ok = ck.run("every box's bound <= bound",
                lambda: check_boxes(m, boxes, bound, ck))
    if ok is not True:
        found = _refute(m, boxes, bound, ck)
        if found is not None:
            ck.add("refutation", False, f"at x = ({', '.join(show(v) for v in found[0])}) "
                   f"the error is {show(found[1])}, above the bound")
