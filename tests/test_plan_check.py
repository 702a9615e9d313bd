"""bench/plan_check.py's pooled draws (a pilot and one further stratified draw over the runs left, weighted as
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
    # 1/6), then a further draw of 4 over the 6 runs left (1 pass, 5 fails; largest remainder, at least one per
    # stratum: 1 pass, 3 fails, π 1 and 3/5), n = 6. Precisions v = n/(N(N − n)): v_1 = 2/(8·6) = 1/24, v_2 =
    # 4/(6·2) = 1/3, so c_1 = 1/9, c_2 = 8/9; the further draw knows the pilot's runs (t = 1). Weights: a pilot pass
    # 2/9 + 8/9 = 10/9, a pilot fail 6/9 + 8/9 = 14/9, a further pass 8/9, a further fail (8/9)(5/3) = 40/27; they
    # sum to 10/9 + 14/9 + 8/9 + 3 · 40/27 = 8 = N.
    y = np.array([[0.2, 0.4, 0.6, 0.8], [0.1, 0.3, 0.5, 0.7]])
    strata = np.array([[1, 0, 0, 0], [1, 0, 0, 0]])
    sums, labelled = pc.drawn_sums((y, y, strata, (y,)), 6, np.random.Generator(np.random.PCG64(3)), start=2)
    weights = sorted(w for _, _, w in labelled)
    assert sum(weights) == pytest.approx(8)
    assert weights == pytest.approx(sorted([10 / 9, 14 / 9, 8 / 9] + [40 / 27] * 3))
    assert sum(sums.labelled) == len(labelled) and float(sum(sums.drawn)) == pytest.approx(8)   # the same weights
    # one draw of 6 (no pilot): quotas 4.5 fails and 1.5 passes, the tie to the first stratum (0, the fails): 5 of
    # 6 fails (w 6/5) and 1 of 2 passes (w 2), summing to 5 · 6/5 + 2 = 8
    _, once = pc.drawn_sums((y, y, strata, (y,)), 6, np.random.Generator(np.random.PCG64(3)))
    assert sorted(round(w, 9) for _, _, w in once) == [1.2] * 5 + [2.0]


def test_a_ratios_monte_carlo_se_is_0_without_spread_and_nan_without_a_crossing():
    # halves 0.2 at n = 10 and 0.1 at n = 20 on every benchmark: the mean curve reaches 0.15 where 1/n = 1/10 +
    # (1/20 − 1/10)(0.04 − 0.0225)/(0.04 − 0.01) = 0.1 − 0.05 · 7/12, n = 1/0.0708333 = 14.1176; predictions all 14:
    # every resample gives 14 / 14.1176 = 0.99167, so the SE is 0
    rng = np.random.Generator(np.random.PCG64(0))
    halves = {10: np.full(6, 0.2), 20: np.full(6, 0.1)}
    assert pc.sample_size_at({10: 0.2, 20: 0.1}, 0.15) == pytest.approx(1 / (0.1 - 0.05 * 7 / 12))
    assert pc.ratio_se(halves, [14.0] * 6, 0.15, 1, rng) == pytest.approx(0, abs=1e-12)   # float rounding of the means
    # spread among the predictions gives an SE above 0; a target below every half-width gives no crossing: NaN
    assert pc.ratio_se(halves, [10.0, 12.0, 14.0, 16.0, 18.0, 20.0], 0.15, 1, rng) > 0
    assert np.isnan(pc.ratio_se(halves, [14.0] * 6, 0.05, 1, rng))
