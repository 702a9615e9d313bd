"""bench/judge_assisted_check.py's finite-sample cost (docs/judge_assisted_check.md): which K_L, and so which
quantile, each Q_final interval is read at. The measurement itself is `bench/judge_assisted_check.py`."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "bench"))

import judge_assisted_check as jc  # noqa: E402


def test_quantiles_of_a_difference_take_the_fewer_labelled_cases():
    # A: 6 cases x 2 runs, one drawn run in each of cases 0-4 (K_L 5); B: in cases 0-3 (K_L 4); y = f = 1: no variance
    # on the cases without a label, so each is read at its K_L alone
    drawn_a = np.zeros((6, 2), dtype=bool)
    drawn_a[:5, 0] = True
    drawn_b = np.zeros((6, 2), dtype=bool)
    drawn_b[:4, 1] = True
    y = np.ones((6, 2))
    a, b = (jc.sums_of(y, y, drawn, np.full((6, 2), 0.5)) for drawn in (drawn_a, drawn_b))
    out = jc.quantiles(a, b, 9)
    assert {k: v[0] for k, v in out.items()} == {"K_L A @9": 5, "K_L B @9": 4, "K_L A-B @9": 4}
    # K = 5: t_{4, 0.975} = 2.776445, times √(5/4) = 1.1180340: 3.104160 (c' = 0.998092, under the cap)
    assert out["K_L A @9"][1] == pytest.approx(3.104160, abs=1e-5)
    # K = 4: t_{3, 0.975} · √(4/3) = 3.182446 · 1.1547005 = 3.674772 gives c' 0.999762, above the cap 1 − 1/2000:
    # Φ⁻¹(0.99975) = 3.480756, for B and for the difference
    assert out["K_L B @9"][1] == out["K_L A-B @9"][1] == pytest.approx(3.480756, abs=1e-5)


def test_post_stratified_human_only_recalibrates_each_stratum_to_its_runs_in_the_replicate():
    import interval_check as ic
    # per stratum, per case (n runs, m drawn weight, Y = Σ w y, F, G); F and G unused by the human-only estimate
    zero = [0.0, 0.0]
    parts = [np.array([[2, 1], [2, 0], [1, 0], zero, zero], dtype=float),    # stratum 0
             np.array([[1, 2], [0, 3], [0, 3], zero, zero], dtype=float)]    # stratum 1
    w = np.array([[1.0, 1.0], [2.0, 0.0]])
    out = ic.calibrated_human_only(parts, w)
    # row 1: stratum 0 has 3 runs, drawn weight 2, Y 1: 3 · 1/2 = 1.5; stratum 1: 3 runs, 3, 3: 3 · 3/3 = 3;
    # (1.5 + 3) / 6 runs = 0.75
    # row 2 (case 0 twice): stratum 0: 4 runs, 4, Y 2: 4 · 2/4 = 2; stratum 1: 2 runs but no drawn weight, so it
    # counts nothing and its runs leave the denominator: 2 / 4 = 0.5
    assert out.tolist() == [0.75, 0.5]
