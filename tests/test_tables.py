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
    tab = json.loads((a / "or-chebyshev.json").read_text())
    for e in tab["entries"]:
        k = e["params"]["k"]
        cs = [Fraction(r["exact"]) for r in e["monomial"]]
        assert cs[0] == 0 and len(cs) - 1 == e["degree"]
        gam = Fraction(1, 10 ** int(e["params"]["gamma"][3:]))
        assert all(abs(sum(c * x**i for i, c in enumerate(cs)) - 1) <= gam
                   for x in range(1, k + 1))


def test_csv_has_every_number(written):
    a, _, _, _ = written
    tab = json.loads((a / "bernstein-iterated.json").read_text())
    rows = (a / "bernstein-iterated.csv").read_text().splitlines()
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
