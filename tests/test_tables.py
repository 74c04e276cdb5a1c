"""Tests of dpverify.tables and ``dpverify table`` (quick grids)."""

from __future__ import annotations

import hashlib
import json
import math
import os
from fractions import Fraction

import pytest
from flint import fmpq

from dpverify import tables
from dpverify.cli import main
from dpverify.errors import InvalidParameterError


@pytest.fixture(scope="module")
def written(tmp_path_factory):
    a = tmp_path_factory.mktemp("a")
    b = tmp_path_factory.mktemp("b")
    names = ["all"]
    ma = tables.write_tables(names, str(a), grid="quick")
    mb = tables.write_tables(names, str(b), grid="quick")
    return a, b, ma, mb


def test_byte_identical_across_runs(written):
    a, b, ma, mb = written
    files = sorted(os.listdir(a))
    assert files == sorted(os.listdir(b)) and "manifest.json" in files
    for f in files:
        assert (a / f).read_bytes() == (b / f).read_bytes(), f
    assert ma == mb


def test_manifest_sha256_and_version(written):
    a, _, ma, _ = written
    man = json.loads((a / "manifest.json").read_text())
    assert man["dpverify_version"] and "timestamp" not in json.dumps(man)
    for info in man["tables"].values():
        assert info["parameters"]
        for f, h in info["files"].items():
            assert hashlib.sha256((a / f).read_bytes()).hexdigest() == h


def _records(obj):
    if isinstance(obj, dict) and "exact" in obj:
        yield obj
    elif isinstance(obj, list):
        for x in obj:
            yield from _records(x)
    elif isinstance(obj, dict):
        for v in obj.values():
            yield from _records(v)


def test_float64_columns_are_correctly_rounded(written):
    a, _, _, _ = written
    n = 0
    for f in os.listdir(a):
        if not f.endswith(".json") or f == "manifest.json":
            continue
        for rec in _records(json.loads((a / f).read_text())["entries"]):
            x = float.fromhex(rec["float64_hex"])
            assert float(rec["float64"]) == x  # repr round-trips to the same bits
            e = Fraction(rec["exact"])
            # nearest float: error at most half an ulp (independent of the writer's method)
            assert abs(Fraction(x) - e) <= Fraction(math.ulp(x)) / 2
            n += 1
    assert n > 100


def test_or_table_invariants(written):
    # g(0) = 0 exactly and |g(x) - 1| <= gamma on 1..k (thaler2012 Fact 4.2), from the file
    a, _, _, _ = written
    tab = json.loads((a / "or.json").read_text())
    assert {e["params"].get("method", "chebyshev") for e in tab["entries"]} == \
        {"chebyshev", "minimax"}
    for e in tab["entries"]:
        k = e["params"]["k"]
        cs = [Fraction(r["exact"]) for r in e["monomial"]]
        assert cs[0] == 0 and len(cs) - 1 == e["degree"]
        gam = Fraction(1, 10 ** int(e["params"]["gamma"][3:]))
        assert all(abs(sum(c * x**i for i, c in enumerate(cs)) - 1) <= gam
                   for x in range(1, k + 1))


def test_csv_has_every_number(written):
    a, _, _, _ = written
    tab = json.loads((a / "bernstein.json").read_text())
    rows = (a / "bernstein.csv").read_text().splitlines()
    assert rows[0] == "table,params,quantity,index,exact,float64_hex,float64"
    assert len(rows) - 1 == sum(1 for _ in _records(tab["entries"]))


def test_number_record():
    r = tables.number_record(fmpq(1, 3))
    assert r == {"exact": "1/3", "float64_hex": (1 / 3).hex(), "float64": repr(1 / 3)}


def test_cli_list_and_errors(tmp_path, capsys):
    assert main(["table", "--list", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert set(data["tables"]) == set(tables.table_names())
    assert main(["table", "nope", "--out", str(tmp_path)]) == 2
    assert "NAME must be one of" in capsys.readouterr().err
    assert main(["table", "or-minimax"]) == 2
    assert main(["table", "or-minimax", "--quick", "--out", str(tmp_path / "o")]) == 0
    assert (tmp_path / "o" / "or-minimax.csv").exists()
    with pytest.raises(InvalidParameterError):
        tables.build_table("or-minimax", grid="huge")


def _cs(entry, qty="monomial"):
    return [Fraction(r["exact"]) for r in entry[qty]]


def _least_or_degree(k: int, inv_gamma: int) -> int:
    """Least t with T_t((k+1)/(k-1)) >= 1/gamma by the three-term recurrence in Fractions
    (independent of dpverify.constructions.chebyshev.or_degree)."""
    a = Fraction(k + 1, k - 1)
    prev, cur, t = Fraction(1), a, 1
    while cur < inv_gamma:
        prev, cur, t = cur, 2 * a * cur - prev, t + 1
    return t


def test_any_parameters_from_the_cli(tmp_path, capsys):
    # "dpverify table --k 100 --gamma 1e-6 is rejected" -- not on any built-in grid
    out = tmp_path / "t"
    assert main(["table", "or", "--k", "100", "--gamma", "1e-6", "--out", str(out)]) == 0
    tab = json.loads((out / "or.json").read_text())
    assert tab["grid"] == "custom" and tab["construction"] == "or"
    (e,) = tab["entries"]
    assert e["params"] == {"k": 100, "gamma": "1e-6"}
    cs = _cs(e)
    assert e["degree"] == len(cs) - 1 == _least_or_degree(100, 10**6)
    # thaler2012 Fact 4.2 from the file: g(0) = 0, |g(x) - 1| <= 1e-6 on 1..100
    g = [sum(c * x**i for i, c in enumerate(cs)) for x in range(101)]
    assert g[0] == 0 and all(abs(v - 1) <= Fraction(1, 10**6) for v in g[1:])
    assert [Fraction(r["exact"]) for r in e["values"]] == g
    man = json.loads((out / "manifest.json").read_text())
    assert man["grid"] == "custom" and man["tables"]["or"]["parameters"] == [e["params"]]


def test_comma_lists_give_the_cartesian_grid(tmp_path):
    out = tmp_path / "g"
    assert main(["table", "or", "and", "--k", "5,10", "--gamma", "1e-1,1/7",
                 "--method", "minimax", "--out", str(out)]) == 0
    for name in ("or", "and"):
        tab = json.loads((out / f"{name}.json").read_text())
        assert [e["params"] for e in tab["entries"]] == [
            {"k": k, "gamma": g, "method": "minimax"} for k in (5, 10) for g in ("1e-1", "1/7")]
    # AND(x) = 1 iff x = k: its values are those of OR reflected, 1 - g(k - x)
    o = json.loads((out / "or.json").read_text())["entries"]
    a = json.loads((out / "and.json").read_text())["entries"]
    for eo, ea in zip(o, a, strict=True):
        vo, va = _cs(eo, "values"), _cs(ea, "values")
        assert va == [1 - v for v in reversed(vo)]


def test_old_names_are_aliases_with_the_same_numbers(tmp_path):
    out = tmp_path / "al"
    assert main(["table", "or", "or-chebyshev", "or-minimax", "jackson", "jackson-kernel",
                 "jackson-multipliers", "dlist", "dlist-h", "--quick", "--out", str(out)]) == 0

    def entries(name):
        return json.loads((out / f"{name}.json").read_text())["entries"]

    def key(name, params):
        return name + json.dumps(params, sort_keys=True)

    canon = {key(n, e["params"]): e for n in ("or", "jackson", "dlist") for e in entries(n)}
    n = 0
    for alias, name, fixed in (("or-chebyshev", "or", {}),
                               ("or-minimax", "or", {"method": "minimax"}),
                               ("jackson-kernel", "jackson", {}),
                               ("jackson-multipliers", "jackson", {}),
                               ("dlist-h", "dlist", {})):
        for e in entries(alias):
            c = canon[key(name, {**e["params"], **fixed})]
            assert {q: v for q, v in c.items() if q != "params"} == \
                {q: v for q, v in e.items() if q != "params"}, alias
            n += 1
    assert n == 6 + 2 + 2 + 2 + 2  # the quick grids of the aliases
    # an alias can also be given parameters; what it fixes cannot be changed
    assert main(["table", "jackson-kernel", "--t", "5", "--r", "2", "--out", str(out)]) == 0
    assert main(["table", "or-minimax", "--k", "5", "--gamma", "1e-1", "--method",
                 "chebyshev", "--out", str(out)]) == 2


def test_parameter_errors_name_the_flag(tmp_path, capsys):
    d = str(tmp_path / "e")
    cases = [
        (["table", "--k", "100", "--gamma", "1e-6", "--out", d], "NAME is required"),
        (["table", "or", "--k", "100", "--out", d], "--gamma is required"),
        (["table", "or", "--k", "1.5", "--gamma", "1e-6", "--out", d], "--k must be an integer"),
        (["table", "or", "--k", "10", "--gamma", "2", "--out", d], "--gamma"),
        (["table", "or", "--t", "3", "--out", d], "--t is not a parameter of table 'or'"),
        (["table", "jackson", "--t", "8", "--r", "1", "--K", "2", "--out", d], "exactly one"),
        (["table", "or", "--k", "5,", "--gamma", "1e-1", "--out", d], "comma-separated"),
        (["table", "all", "--k", "5", "--out", d], "cannot be combined with 'all'"),
        (["table", "or", "--quick", "--k", "5", "--gamma", "1e-1", "--out", d], "--quick"),
        (["table", "or", "--backend", "spark", "--out", d], "--backend"),
        (["table", "or", "--scheduler", "tcp://x:1", "--out", d], "--scheduler"),
    ]
    for argv, text in cases:
        assert main(argv) == 2, argv
        err = capsys.readouterr().err
        assert text in err and "Traceback" not in err, (argv, err)
        assert len(err.strip().splitlines()) == 1
    assert not os.path.exists(d)  # nothing is written before every entry is built


def test_library_grid_validation():
    assert tables.grid_entries("jackson", {"t": ["4", 8], "K": [1, 2, 1]}) == [
        {"t": 4, "K": 1}, {"t": 4, "K": 2}, {"t": 8, "K": 1}, {"t": 8, "K": 2}]
    with pytest.raises(InvalidParameterError, match="more than"):
        tables.grid_entries("bernstein", {"k": list(range(1, 200)), "h": list(range(1, 200))})
    with pytest.raises(InvalidParameterError, match="^k is not a parameter"):
        tables.grid_entries("jackson", {"k": 1})
    with pytest.raises(InvalidParameterError, match="backend"):
        tables.build_table("or", backend="spark")
    assert tables.table_names(aliases=False) == ["or", "and", "rofk", "dlist", "jackson",
                                                  "bernstein"]
