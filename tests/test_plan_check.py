"""bench/plan_check.py's pooled draws (a pilot and one further stratified draw, weighted as
`HumanDraws.weight` weights them) on a hand-computed case. The measurement itself is `bench/plan_check.py`."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "bench"))

import plan_check as pc  # noqa: E402


def test_a_pilot_and_a_further_draw_pool_as_the_board_pools_draws():
    # 2 cases x 4 runs, strata by the judge's pass: 2 passes, 6 fails. A pilot of 2 (one per stratum: π 1/2 and
    # 1/6) and a further draw of 4 (largest remainder: 1 pass of 2, 3 fails of 6, π 1/2 and 1/2), n = 6. A run's
    # weight is Σ_b (n_b / n) / π_b over the draws listing it: a pass in the pilot only 2/6 · 2 = 2/3, in the
    # further draw only 4/6 · 2 = 4/3, in both 2; a fail 2/6 · 6 = 2, 4/6 · 2 = 4/3, both 10/3. Each draw's 1/π sum
    # to N = 8 over its runs, so the weights sum to 8 (2/6 · 8 + 4/6 · 8).
    y = np.array([[0.2, 0.4, 0.6, 0.8], [0.1, 0.3, 0.5, 0.7]])
    strata = np.array([[1, 0, 0, 0], [1, 0, 0, 0]])
    sums, labelled = pc.drawn_sums((y, y, strata), 6, np.random.Generator(np.random.PCG64(3)), start=2)
    weights = sorted(w for _, _, w in labelled)
    assert sum(weights) == pytest.approx(8)
    allowed = (2 / 3, 4 / 3, 2, 10 / 3)
    assert all(any(w == pytest.approx(a) for a in allowed) for w in weights)
    assert sum(sums.labelled) == len(labelled) and float(sum(sums.drawn)) == pytest.approx(8)   # the same weights
    # one draw of 6 (no pilot): quotas 4.5 fails and 1.5 passes, the tie to the first stratum (0, the fails): 5 of
    # 6 fails (w 6/5) and 1 of 2 passes (w 2), summing to 5 · 6/5 + 2 = 8
    _, once = pc.drawn_sums((y, y, strata), 6, np.random.Generator(np.random.PCG64(3)))
    assert sorted(round(w, 9) for _, _, w in once) == [1.2] * 5 + [2.0]
