"""bench/stats_check.py (the simulation study of docs/statistics_check.md) runs in its quick mode and reports every
block with its targets; its building blocks hold on hand-checked cases. The measurement itself is `make stats-check`."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "bench"))

import stats_check as sc  # noqa: E402


def test_rank_sets_cover_allows_any_order_inside_a_tied_block():
    truth = {"a": 0.9, "b": 0.5, "c": 0.5}          # a first; b and c tied: each may hold rank 2 or 3
    assert sc.rank_sets_cover({"a": (1, 1), "b": (2, 3), "c": (2, 3)}, truth)
    assert not sc.rank_sets_cover({"a": (1, 1), "b": (2, 2), "c": (3, 3)}, truth)   # orders the tied pair
    assert not sc.rank_sets_cover({"a": (2, 3), "b": (1, 3), "c": (1, 3)}, truth)   # a's true rank 1 is outside
    assert sc.false_claims({("b", "c"), ("a", "b")}, truth) == 1                     # b above c is false


def test_with_icc_keeps_the_total_variance():
    model = sc.Model(0.5, 1.71, 1.51)
    moved = model.with_icc(0.2)
    total = sum(x ** 2 for x in (model.sd_case, model.sd_interaction, model.sd_run))
    assert sum(x ** 2 for x in (moved.sd_case, moved.sd_interaction, moved.sd_run)) == pytest.approx(total)
    assert moved.icc == pytest.approx(0.2) and moved.sd_case / moved.sd_interaction == pytest.approx(0.5 / 1.71)


def test_verdicts():
    v = sc.Verdicts([])
    # 0.905 over 400 replications: SE √(0.905 · 0.095 / 400) = 0.0147; 0.93 − 0.905 = 0.025 ≤ 2 SE
    assert v.judge("x", 0.905, 400, "coverage") == "90.5% ± 1.5% (misses, within 2 SE)"
    assert v.judge("w", 0.89, 400, "coverage") == "89.0% ± 1.6% (**misses**)"   # 0.04 > 2 · 0.0156
    assert v.judge("y", 0.94, 400, "simultaneous") == "94.0% ± 1.2% (meets)"     # ≥ 95% less 1 SE (1.19%)
    assert v.judge("z", 0.76, 400, "power").endswith("(misses, within 2 SE)")    # under 77% by 1 point, SE 2.1%
    assert v.judge("u", 0.9, 400, "power").endswith("(meets)")                   # "at least 80%": more is fine
    assert [row[0] for row in v.rows] == ["x", "w", "z"]


@pytest.mark.sample   # the study's model is fitted to the sample's results/per_run.csv (0-12 scores)
def test_quick_study_writes_every_section(tmp_path):
    out = tmp_path / "check.md"
    assert sc.main(["--quick", "--no-trees", "--jobs", "1", "--output", str(out)]) == 0
    text = out.read_text(encoding="utf-8")
    for heading in ("## What each interval covers", "## Coverage of the 95% intervals",
                    "## Pairwise test, family-wise error and rank sets", "## Boards of 20 and 100 subjects",
                    "## The power sentence", "## Calibration", "## Seed invariance", "## Targets missed"):
        assert heading in text
    assert "Quick run" in text and "| 30 cases x 3 runs, ICC 0.58 | 8 |" in text and "| 20 spread |" in text
