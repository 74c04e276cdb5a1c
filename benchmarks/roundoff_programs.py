"""The 20 FPBench programs of FPTaylor's regression tests, as dpverify programs.

Transcribed from FPTaylor's ``tests/core/*.txt`` (github.com/soarlab/FPTaylor, commit
efbbc83970fe3c9f4cb33fafbbe1050dd18749cd), which are the FPBench benchmarks (fpbench.org;
Darulova & Kuncak POPL 2014, Solovyev et al. TOPLAS 2018) in FPTaylor's syntax; the same
infix order (left to right, definitions computed once).  ``FPTAYLOR`` holds the
``upper-bound`` expectations of ``tests/core/_tests.yml`` at that commit (binary64,
``rnd64``: every operation, literal and ``real`` input rounded to binary64).  ``GAPPA_HINTS``
are the bisection hints (``$ var in N``) of FPTaylor's ``benchmarks/toplas/Gappa/*-hints.g``
scripts at the same commit.

Semantics: all but ``carbonGas`` declare their inputs ``real`` (rounded to binary64 before
use: dpverify's ``round_inputs=True``); ``carbonGas`` declares them float64 (no input
rounding).  FPTaylor reads its ``carbonGas`` constants a, b, N, p, T as unrounded float64
variables with point ranges; here they are literals, which the float program rounds.
"""

from __future__ import annotations

__all__ = ["PROGRAMS", "FPTAYLOR", "GAPPA_HINTS", "COMMIT"]

COMMIT = "efbbc83970fe3c9f4cb33fafbbe1050dd18749cd"
_KEP = "4 6.36"

#: name -> (variables with ranges "x lo hi", program text, round_inputs)
PROGRAMS: dict[str, tuple[list[str], str, bool]] = {
    "carbonGas": (["V 0.1 0.5"],
                  "(3.5e7 + 0.401 * (1000 / V) * (1000 / V)) * (V - 1000 * 42.7e-6)"
                  " - 1.3806503e-23 * 1000 * 300.0", False),
    "doppler1": (["u -100 100", "v 20 20000", "T -30 50"],
                 "t1 = 331.4 + 0.6 * T; (-t1 * v) / ((t1 + u) * (t1 + u))", True),
    "doppler2": (["u -125 125", "v 15 25000", "T -40 60"],
                 "t1 = 331.4 + 0.6 * T; (-t1 * v) / ((t1 + u) * (t1 + u))", True),
    "doppler3": (["u -30 120", "v 320 20300", "T -50 30"],
                 "t1 = 331.4 + 0.6 * T; (-t1 * v) / ((t1 + u) * (t1 + u))", True),
    "himmilbeau": (["x1 -5 5", "x2 -5 5"],
                   "(x1*x1 + x2 - 11)* (x1*x1 + x2 - 11) + (x1 + x2*x2 - 7)*(x1 + x2*x2 - 7)",
                   True),
    "jet": (["x1 -5 5", "x2 -20 5"],
            "t = (3*x1*x1 + 2*x2 - x1); x1 + ((2*x1*(t/(x1*x1 + 1))*"
            "(t/(x1*x1 + 1) - 3) + x1*x1*(4*(t/(x1*x1 + 1))-6))*"
            "(x1*x1 + 1) + 3*x1*x1*(t/(x1*x1 + 1)) + x1*x1*x1 + x1 +"
            "3*((3*x1*x1 + 2*x2 -x1)/(x1*x1 + 1)))", True),
    "kepler0": ([f"x{i} {_KEP}" for i in range(1, 7)],
                "x2 * x5 + x3 * x6 - x2 * x3 - x5 * x6 + x1 * (-x1 + x2 + x3 - x4 + x5 + x6)",
                True),
    "kepler1": ([f"x{i} {_KEP}" for i in range(1, 5)],
                "x1 * x4 * (-x1 + x2 + x3 - x4) + x2 * (x1 - x2 + x3 + x4)"
                " + x3 * (x1 + x2 - x3 + x4) - x2 * x3 * x4 - x1 * x3 - x1 * x2 - x4", True),
    "kepler2": ([f"x{i} {_KEP}" for i in range(1, 7)],
                "x1 * x4 * (-x1 + x2 + x3 - x4 + x5 + x6)"
                " + x2 * x5 * (x1 - x2 + x3 + x4 - x5 + x6)"
                " + x3 * x6 * (x1 + x2 - x3 + x4 + x5 - x6)"
                " - x2 * x3 * x4 - x1 * x3 * x5 - x1 * x2 * x6 - x4 * x5 * x6", True),
    "predatorPrey": (["x 0.1 0.3"], "(4.0*x*x) / (1 + (x/1.11)*(x/1.11))", True),
    "rigidBody1": (["x1 -15 15", "x2 -15 15", "x3 -15 15"],
                   "-x1*x2 - 2*x2*x3 - x1 - x3", True),
    "rigidBody2": (["x1 -15 15", "x2 -15 15", "x3 -15 15"],
                   "2*x1*x2*x3 + 3*x3*x3 - x2*x1*x2*x3 + 3*x3*x3 - x2", True),
    "sine": (["x -1.57079632679 1.57079632679"],
             "x - (x*x*x)/6.0 + (x*x*x*x*x)/120.0 - (x*x*x*x*x*x*x)/5040.0", True),
    "sineOrder3": (["z -2 2"], "0.954929658551372 * z -  0.12900613773279798*(z*z*z)", True),
    "sqroot": (["y 0 1"],
               "1.0 + 0.5*y - 0.125*y*y + 0.0625*y*y*y - 0.0390625*y*y*y*y", True),
    "t_div_t1": (["t 0 999"], "t / (t + 1)", True),
    "turbine1": (["v -4.5 -0.3", "w 0.4 0.9", "r 3.8 7.8"],
                 "3 + 2 / (r * r) - 0.125 * (3 - 2 * v) * (w * w * r * r) / (1 - v) - 4.5",
                 True),
    "turbine2": (["v -4.5 -0.3", "w 0.4 0.9", "r 3.8 7.8"],
                 "6*v - 0.5 * v * (w*w*r*r) / (1-v) - 2.5", True),
    "turbine3": (["v -4.5 -0.3", "w 0.4 0.9", "r 3.8 7.8"],
                 "3 - 2/(r*r) - 0.125 * (1+2*v) * (w*w*r*r) / (1-v) - 0.5", True),
    "verhulst": (["x 0.1 0.3"], "(4.0*x) / (1 + (x/1.11))", True),
}

#: FPTaylor's published expectations (tests/core/_tests.yml, upper-bound)
FPTAYLOR = {
    "carbonGas": "4.962322e-9", "doppler1": "1.217604e-13", "doppler2": "2.226041e-13",
    "doppler3": "6.627360e-14", "himmilbeau": "1.000089e-12", "jet": "1.028348e-11",
    "kepler0": "7.469401e-14", "kepler1": "2.863120e-13", "kepler2": "1.578175e-12",
    "predatorPrey": "1.585754e-16", "rigidBody1": "2.948753e-13",
    "rigidBody2": "3.606627e-11", "sine": "4.430439e-16", "sineOrder3": "5.937466e-16",
    "sqroot": "5.016453e-16", "t_div_t1": "2.216154e-16", "turbine1": "1.669516e-14",
    "turbine2": "2.000935e-14", "turbine3": "9.574075e-15", "verhulst": "2.470696e-16",
}

_D3 = ["$ MT, Mv, Mu in 30;", "$ MT in 100;", "$ Mv in 100;", "$ Mu in 100;"]
_T3 = ["$ Mv, Mw, Mr in 10;", "$ Mv in 100;", "$ Mw in 100;", "$ Mr in 100;"]
#: Gappa bisection hints of FPTaylor's benchmarks/toplas/Gappa/<name>-hints.g
GAPPA_HINTS: dict[str, list[str]] = {
    "carbonGas": ["$ MV in 100;"], "doppler1": _D3, "doppler2": _D3, "doppler3": _D3,
    "himmilbeau": ["$ Mx1 in 100;", "$ Mx2 in 100;"],
    "jet": ["$ Mx1 in 500;", "$ Mx2 in 500;"],
    "kepler0": [f"$ Mx{i} in 100;" for i in range(1, 7)],
    "kepler1": [f"$ Mx{i} in 100;" for i in range(1, 5)],
    "kepler2": [f"$ Mx{i} in 100;" for i in range(1, 7)],
    "predatorPrey": ["$ Mx in 200;"],
    "rigidBody1": [f"$ Mx{i} in 100;" for i in range(1, 4)],
    "rigidBody2": [f"$ Mx{i} in 100;" for i in range(1, 4)],
    "sine": ["$ Mx in 1000;"], "sineOrder3": ["$ Mz in 200;"], "sqroot": ["$ My in 200;"],
    "t_div_t1": ["$ Mt in 100;"], "turbine1": _T3, "turbine2": _T3, "turbine3": _T3,
    "verhulst": ["$ Mx in 100;"],
}
