"""The cores this process may use: the pools of the pairwise tests (rgbench.stats.pairwise) and of the page's
charts (rgbench.leaderboard.page_charts) size themselves by it. Input files are read in one process
(rgbench.load.extract.extract_files)."""

from __future__ import annotations

import os


def usable_cores() -> int:
    """Cores this process may use (affinity-aware), at least 1."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - not Linux
        return max(1, os.cpu_count() or 1)
