"""bench/judge_assisted_check.py's finite-sample cost (docs/judge_assisted_check.md): the quantile its intervals are
read at, and which K_L a difference takes. The measurement itself is `bench/judge_assisted_check.py`."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "bench"))

import judge_assisted_check as jc  # noqa: E402


def test_expanded_quantile_is_students_t_widened_by_the_bootstraps_shrinkage():
    # K = 100: t_{99, 0.975} = 1.984217, times √(100/99) = 1.0050378: 1.994213
    assert jc.expanded_quantile(100) == pytest.approx(1.994213, abs=1e-5)
    # K = 25: t_{24, 0.975} = 2.063899, times √(25/24) = 1.0206207: 2.106458 (about pool 10x's K_L at n 27); at
    # K = 40 (about K_L at its human-only n'), 2.022691 · 1.0127394 = 2.048459, 2.8% less
    assert jc.expanded_quantile(25) == pytest.approx(2.106458, abs=1e-5)
    # K = 1: no degrees of freedom, the cap 1 − 1/2000: Φ⁻¹(0.99975) = 3.480756
    assert jc.expanded_quantile(1) == pytest.approx(3.480756, abs=1e-5)


def test_quantiles_of_a_difference_take_the_fewer_labelled_cases():
    # A: 3 cases, drawn runs in cases 0 and 2 (K_L 2); B: one drawn run (K_L 1)
    drawn_a = np.array([[True, False], [False, False], [False, True]])
    drawn_b = np.array([[False, False], [True, False], [False, False]])
    y = np.ones((3, 2))
    a = jc.sums_of(y, y, drawn_a, np.full((3, 2), 0.5))
    b = jc.sums_of(y, y, drawn_b, np.full((3, 2), 0.5))
    out = jc.quantiles(a, b, 7)
    assert {k: v[0] for k, v in out.items()} == {"K_L A @7": 2, "K_L B @7": 1, "K_L A-B @7": 1}
    assert out["K_L A-B @7"][1] == out["K_L B @7"][1] == jc.expanded_quantile(1)
