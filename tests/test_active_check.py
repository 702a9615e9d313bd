"""bench/active_check.py's judge-total rule (measured in docs/active_check.md, not adopted for `--next`) holds on a
hand-computed case. The measurement itself is `bench/active_check.py`."""

from __future__ import annotations

import sys
from fractions import Fraction as F
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "bench"))

import active_check as ac  # noqa: E402

from rgbench.stats.judge_assisted_draw import JudgedRun  # noqa: E402


def run(i: int, total: int, judge: F, human: F | None) -> JudgedRun:
    return JudgedRun(("m", f"C-{i:02d}", "r1"), "Pass" if total > 7 else "Fail", F(total), judge, human)


def test_judge_total_spreads_are_the_shrunk_mean_square_per_bin_of_ten_grades():
    items = ([run(i, 2, F(0), F(0)) for i in range(10)] + [run(10 + i, 9, F(1), F(i % 2)) for i in range(10)]
             + [run(20, 5, F(1, 2), None)])
    # the 20 runs with a human value: f̄ = 1/2, ȳ = 5/20 = 1/4, Σ (f − f̄)² = 20 · 1/4 = 5,
    # Σ (f − f̄)(y − ȳ) = Σ (f − f̄) y = 5 · 1/2 = 5/2: λ = 1/2
    # d = y − f/2: 0 (total 2, ten runs), 1/2 and −1/2 (total 9, five each); mean 0; d² 0 and 1/4;
    # the subject's mean square 10 · 1/4 / 20 = 1/8; K = 10
    # bins: total 2 holds 10 grades and closes; totals 5 (none) and 9 (10) form the next
    # total 2: (0 + 10 · 1/8) / (10 + 10) = 1/16, √ = 1/4 exactly
    # totals 5, 9: (10 · 1/4 + 10 · 1/8) / 20 = 3/16, √ = 0.43301 -> 433/1000
    keys = frozenset(r.key for r in items if r.human is not None)
    assert ac.spreads_totals({"m": items}, keys) == {("m", "total 2"): F(1, 4), ("m", "total 5"): F(433, 1000),
                                                     ("m", "total 9"): F(433, 1000)}
    # 19 grades: total 2 closes at 10, totals 5 and 9 hold 9, short of 10, and join it: one bin, the subject's
    # mean square. λ: f̄ = 9/19, ȳ = 4/19 (ys 0 x10, then 0,1,0,1,0,1,0,1,0), Σ (f − f̄) y = 4 · 10/19 = 40/19,
    # Σ (f − f̄)² = 10 · 81/361 + 9 · 100/361 = 1710/361 = 90/19: λ = 40/90 = 4/9
    # d: 0 x10, 5/9 x4 (y 1), −4/9 x5 (y 0); mean (20/9 − 20/9) / 19 = 0; Σ d² = 4 · 25/81 + 5 · 16/81 = 180/81 = 20/9
    # mean d² = 20/171; shrunk: (20/9 + 10 · 20/171) / 29 = (380/171 + 200/171) / 29 = 580/4959 = 20/171;
    # √(20/171) = 0.34199 -> 342/1000 for every total
    fewer = keys - {items[19].key}
    assert set(ac.spreads_totals({"m": items}, fewer).values()) == {F(342, 1000)}
    # no human value in the basis: every spread 1 (a uniform draw)
    assert set(ac.spreads_totals({"m": items}, frozenset()).values()) == {F(1)}
