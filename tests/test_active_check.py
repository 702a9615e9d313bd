"""bench/active_check.py's comparison rule (the fifth session's `--next` spreads, per judge class, measured in
docs/active_check.md beside today's) holds on a hand-computed case. The measurement itself is
`bench/active_check.py`."""

from __future__ import annotations

import sys
from fractions import Fraction as F
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "bench"))

import active_check as ac  # noqa: E402

from rgbench.stats.judge_assisted_draw import JudgedRun  # noqa: E402


def run(i: int, grade: str, judge: F, human: F | None) -> JudgedRun:
    return JudgedRun(("m", f"C-{i:02d}", "r1"), grade, F(6), judge, human)


def test_class_spreads_are_the_shrunk_root_mean_square_of_the_centred_residual_per_class():
    items = [run(0, "Pass", F(1), F(1)), run(1, "Pass", F(1), F(0)), run(2, "Fail", F(0), F(0)),
             run(3, "Fail", F(0), F(0)), run(4, "Conditional", F(1, 2), None)]
    # the four runs with a human value: f̄ = 1/2, ȳ = 1/4, Σ (f − f̄)² = 4 · 1/4 = 1,
    # Σ (f − f̄)(y − ȳ) = 1/2 · 3/4 + 1/2 · (−1/4) + 2 · (−1/2)(−1/4) = 1/2: λ = 1/2
    # d = y − f/2 = 1/2, −1/2, 0, 0 (mean 0), d² = 1/4, 1/4, 0, 0: the subject's mean square 1/8; K = 10
    # Pass: (1/4 + 1/4 + 10 · 1/8) / (2 + 10) = 7/48, √ = 0.38188 -> 382/1000
    # Fail: (0 + 0 + 10 · 1/8) / 12 = 5/48, √ = 0.32275 -> 323/1000
    # Conditional, no human value: the subject's 1/8, √ = 0.35355 -> 354/1000
    keys = frozenset(r.key for r in items)
    assert ac.spreads_classes({"m": items}, keys, ["m"]) == {
        ("m", "Pass, total 6"): F(382, 1000), ("m", "Fail, total 6"): F(323, 1000),
        ("m", "Conditional, total 6"): F(354, 1000)}
    # a subject with fewer than 2 runs with a human value takes every subject's mean square: m's 1/8 -> 354/1000
    other = [JudgedRun(("n", "C-00", "r1"), "Pass", F(6), F(1), F(1))]
    assert ac.spreads_classes({"m": items, "n": other}, keys | {other[0].key}, ["n"]) == {
        ("n", "Pass, total 6"): F(354, 1000)}
    # no human value in the basis: every spread 1 (a uniform draw)
    assert set(ac.spreads_classes({"m": items}, frozenset(), ["m"]).values()) == {F(1)}
