"""bench/line_budget.py places every library file in one part of docs/architecture.md's line budget."""

from __future__ import annotations

import re
import sys
from fnmatch import fnmatch
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "bench"))

import line_budget  # noqa: E402


def relative(path: Path) -> str:
    return path.relative_to(line_budget.SCRIPTS).as_posix()


def test_every_library_file_belongs_to_a_part():
    unplaced = [relative(p) for p in line_budget.library_files() if line_budget.part_of(relative(p)) is None]
    assert not unplaced, f"place these in a part of bench/line_budget.py PARTS: {unplaced}"


def test_every_pattern_claims_a_file():
    files = [relative(p) for p in line_budget.library_files()]
    idle = [pattern for _, _, patterns in line_budget.PARTS for pattern in patterns
            if not any(fnmatch(f, pattern) for f in files)]
    assert not idle, f"patterns that match no file (remove or fix them): {idle}"


def test_the_first_matching_part_wins_and_the_total_is_the_sum():
    # stats/agreement.py matches both "reviewers" (listed first) and "statistics"
    assert line_budget.part_of("rgbench/stats/agreement.py") == "reviewers"
    assert line_budget.part_of("rgbench/stats/pairwise.py") == "statistics"
    assert line_budget.part_of("metrics.py") == "command line and edges"
    assert line_budget.part_of("elsewhere/x.txt") is None
    counts = line_budget.lines_by_part()
    every = sum(len(p.read_text(encoding="utf-8").splitlines()) for p in line_budget.library_files())
    assert sum(counts.values()) == every
    table = line_budget.table()
    assert table.splitlines()[-1] == f"| **total** | **{every:,}** | **{line_budget.LEAN_TOTAL:,}** |"


def test_the_architecture_page_names_only_modules_that_exist():
    text = (REPO / "docs" / "architecture.md").read_text(encoding="utf-8")

    named = set(re.findall(r"`(scripts/[\w/.-]+|bench/[\w.-]+|tests/[\w.-]+)`", text))
    assert named, "the page names no file"
    missing = sorted(n for n in named if not (REPO / n).exists())
    assert not missing, f"docs/architecture.md names files that do not exist: {missing}"
