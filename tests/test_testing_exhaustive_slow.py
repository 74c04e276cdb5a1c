"""Exhaustive binary32 checks across processes: a run killed with SIGKILL resumes from its
state file to the report of an uninterrupted run, and the Dask backend and forked local
workers give the same report as one process."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time

import numpy as np
import pytest

from dpverify.testing import check_implementation

pytestmark = pytest.mark.slow

FIELDS = ("points", "failures", "worst_input", "worst_ulps", "incorrectly_rounded",
          "ulps_bound", "screened", "exact", "histogram")

SCRIPT = textwrap.dedent("""
    import sys, numpy as np
    import dpverify.testing.points as points
    from dpverify.testing import check_implementation
    points.BLOCK = 1 << 18
    check_implementation(np.exp, "exp(x)", domain=(1, 8), dtype=np.float32,
                         exhaustive=True, ulps=1, raise_on_failure=False,
                         state=sys.argv[1], workers=1)
""")


def test_a_killed_run_resumes_to_the_same_report(tmp_path, monkeypatch):
    import dpverify.testing.points as points

    state = tmp_path / "state.json"
    proc = subprocess.Popen([sys.executable, "-c", SCRIPT, str(state)],
                            env=dict(os.environ, PYTHONPATH=os.getcwd()))
    try:
        deadline = time.time() + 600
        while time.time() < deadline:
            if state.exists():
                try:
                    done = json.loads(state.read_text())["done"]
                except ValueError:   # replaced atomically: never half-written, but be safe
                    done = []
                if len(done) >= 10:
                    break
            if proc.poll() is not None:
                pytest.fail("the run finished before it could be killed")
            time.sleep(0.05)
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    finally:
        if proc.poll() is None:
            proc.kill()
    done = json.loads(state.read_text())["done"]
    assert 10 <= len(done) < 97
    monkeypatch.setattr(points, "BLOCK", 1 << 18)
    args = dict(domain=(1, 8), dtype=np.float32, exhaustive=True, ulps=1,
                raise_on_failure=False, workers=1)
    resumed = check_implementation(np.exp, "exp(x)", state=str(state), **args)
    whole = check_implementation(np.exp, "exp(x)", **args)
    assert resumed.resumed == len(done) and resumed.tasks == whole.tasks == 97   # 3*2^23+1
    for field in FIELDS:
        assert getattr(resumed, field) == getattr(whole, field), field


def test_dask_and_forked_workers_give_the_same_report(monkeypatch):
    pytest.importorskip("distributed")
    from distributed import Client, LocalCluster

    import dpverify.testing.points as points

    monkeypatch.setattr(points, "BLOCK", 1 << 20)
    args = dict(domain=(-4, -0.5), dtype=np.float32, exhaustive=True, ulps=1,
                raise_on_failure=False)
    one = check_implementation(np.sin, "sin(x)", workers=1, **args)
    two = check_implementation(np.sin, "sin(x)", workers=2, **args)
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                      dashboard_address=None) as cluster, Client(cluster) as client:
        dask = check_implementation(np.sin, "sin(x)", backend="dask", scheduler=client,
                                    **args)
    for rep in (two, dask):
        for field in FIELDS:
            assert getattr(rep, field) == getattr(one, field), field
        assert [p.text() for p in rep.properties] == [p.text() for p in one.properties]
    assert dask.backend == "dask" and one.points == 3 * 2**23 + 1
