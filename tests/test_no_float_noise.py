"""No floating-point noise anywhere in the package (Mironov 2012).

Greps every Python file of ``dpverify/`` and ``proofs_checks/`` for the float samplers
that are unsafe for privacy noise.  The allow-list is empty on purpose: add an entry
(path, pattern) only with a comment explaining why that use is not privacy noise.
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PATTERNS = [
    r"random\.laplace",
    r"np\.random\.laplace",
    r"numpy\.random\.laplace",
    r"random\.random\(",
    r"np\.random\.normal",
    r"gauss\(",
]
ALLOW: set[tuple[str, str]] = set()


def _files():
    for top in ("dpverify", "proofs_checks"):
        base = ROOT / top
        if base.is_dir():
            yield from sorted(base.rglob("*.py"))


def test_patterns_are_caught():
    # the grep itself works: every pattern matches its own example
    examples = ["np.random.laplace(0, 1)", "numpy.random.laplace(1)", "random.random()",
                "np.random.normal(0, 1)", "rng.gauss(0, 1)", "gen.random.laplace()"]
    for ex in examples:
        assert any(re.search(p, ex) for p in PATTERNS), ex


def test_no_float_noise_in_package():
    hits = []
    files = list(_files())
    assert files, "no package files found"
    for f in files:
        rel = str(f.relative_to(ROOT))
        for ln, line in enumerate(f.read_text(encoding="utf-8").splitlines(), start=1):
            for p in PATTERNS:
                if re.search(p, line) and (rel, p) not in ALLOW:
                    hits.append(f"{rel}:{ln}: {line.strip()}")
    assert not hits, "float noise found:\n" + "\n".join(hits)
