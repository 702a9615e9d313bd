"""bench/adaptive_size_check.py's sizing rule (docs/adaptive_size_check.md): plan's count for one-run cases. The
measurement itself is `bench/adaptive_size_check.py`."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "bench"))

import adaptive_size_check as ac  # noqa: E402


def test_the_further_draw_is_plans_count_for_one_run_cases():
    # N = 300. Pilot [0, 0, 1, 1]: s² = 4 · 0.25 / 3 = 1/3; target h² = 0.02: the smallest n with (1/n − 1/300) / 3
    # <= 0.02 is 1 / (0.02 · 3 + 1/300) = 1 / 0.0633333 = 15.79 -> 16. Pilot [1, 1, 1, 1]: s² = 0, the pilot alone.
    pilots = np.array([[0.0, 0.0, 1.0, 1.0], [1.0, 1.0, 1.0, 1.0]])
    assert ac.sizes(pilots, 4, 0.02, 0).tolist() == [16, 4]
    # at least the pilot again: 16 >= 4 + 4 stays; the second meets the target, so no further draw unless always,
    # then 4 + 4 = 8; never above N
    assert ac.sizes(pilots, 4, 0.02, 4).tolist() == [16, 4]
    assert ac.sizes(pilots, 4, 0.02, 4, always=True).tolist() == [16, 8]
    assert ac.sizes(pilots, 4, 0.02, 20).tolist() == [24, 4]
    assert ac.sizes(pilots, 4, 1e-9, 0).tolist() == [300, 4]
    assert ac.sizes(pilots, 4, 1e-9, 4, always=True).tolist() == [300, 8]
