#!/usr/bin/env python3
"""Whether the pairwise test resolves on large boards (issue 25): `make metrics` time and peak memory on a
100 x 300 x 3 board (4,950 pairs) and a 58 x 805 x 1 board, and, from each board's results/pairwise.csv, how
many pairs of the family (ranked subjects) the test can resolve at Holm's level, how many are significant,
which method gave each p-value, and how close the nearest saddlepoint decision is to the level.

    python bench/pairwise_boards.py [--sizes 100x300x3 58x805x1] [--work /tmp/rgbench-bench]

Each tree comes from scripts/make_synthetic.py (seed 0; reused when present, its results/ removed first); make
metrics runs once per board through bench/phases.py in a fresh process (bench/large_board.py's measured_phases).
Written into bench/RESULTS.md between two marker lines; bench/run_bench.py keeps the block.
"""

from __future__ import annotations

import csv
import shutil
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

# bench/, this script's folder
from large_board import PY, REPO, board_arguments, measured_phases, write_section

sys.path.insert(0, str(REPO / "scripts"))
from rgbench.stats.pairwise import CLOSE, EXACT, RANKED_FAMILY, SADDLEPOINT  # noqa: E402

START, END = "<!-- pairwise-boards:start -->", "<!-- pairwise-boards:end -->"
LEVEL = Fraction(5, 100)
# make metrics on the same trees before issue 25 (Monte Carlo sign-flip test, M = 2,000 patterns; Holm over every
# pair), measured once on this machine while other jobs ran (wall s, CPU s, peak MiB, significant pairs)
BEFORE = {"100x300x3": (69.9, 40.6, 596, 0), "58x805x1": (82.0, 73.5, 394, 0)}


def resolution(pairwise_csv: Path) -> dict[str, object]:
    """What the test resolved among the family's pairs (family ``ranked``) of one pairwise.csv."""
    with pairwise_csv.open(encoding="utf-8", newline="") as handle:
        rows = [r for r in csv.DictReader(handle) if r["family"] == RANKED_FAMILY and r["p_value"]]
    m = len(rows)
    unresolvable = sum(1 for r in rows if Fraction(r["p_min"]) * m > LEVEL)
    significant = sum(1 for r in rows if r["significantly_better"])
    methods = {kind: sum(1 for r in rows if r["test"] == kind) for kind in (EXACT, SADDLEPOINT)}
    # how far the nearest saddlepoint decision is from the level (a factor; CLOSE is the exact rule's)
    factors = [max(Fraction(r["p_holm"]) / LEVEL, LEVEL / Fraction(r["p_holm"])) for r in rows
               if r["test"] == SADDLEPOINT and Fraction(r["p_holm"]) > 0]
    return {"pairs": m, "unresolvable": unresolvable, "significant": significant, **methods,
            "nearest": float(min(factors)) if factors else None}


def main() -> int:
    args = board_arguments(__doc__ or "", ["100x300x3", "58x805x1"])
    lines = [START, "## Pairwise tests on large boards (issue 25)", "",
             "One run of `make metrics` per board (`bench/pairwise_boards.py`, through `bench/phases.py`); the "
             "family is the pairs of ranked subjects; unresolvable: p_min > 0.05 / pairs (no correction can make the "
             f"pair significant); nearest: the smallest factor between a saddlepoint pair's p_holm and 0.05 "
             f"(the exact rule covers factors under {CLOSE}; empty when every p is exact). Before: the same trees before "
             "issue 25. Wall time follows the machine's load (these were measured while other jobs ran, load average "
             "5-8 on 2 cores); CPU s is steadier.", "",
             "| board | make metrics s (CPU) | peak MiB | before: s (CPU), peak MiB | family pairs | unresolvable | "
             "significant (before) | exact / saddlepoint | nearest |",
             "|---|---:|---:|---|---:|---:|---:|---:|---:|"]
    for size in args.sizes:
        subjects, cases, runs = (int(x) for x in size.split("x"))
        tree = args.work / size
        if not (tree / "subjects").exists():
            subprocess.run([PY, str(REPO / "scripts/make_synthetic.py"), "--subjects", str(subjects), "--cases",
                            str(cases), "--runs", str(runs), "--out", str(tree)], check=True,
                           stdout=subprocess.DEVNULL)
        shutil.rmtree(tree / "results", ignore_errors=True)
        shutil.rmtree(tree / "scoring_consolidated", ignore_errors=True)
        wall, cpu, peak, _ = measured_phases(tree)
        r = resolution(tree / "results" / "pairwise.csv")
        before = BEFORE.get(size)
        was = f"{before[0]:.1f} ({before[1]:.1f}), {before[2]}" if before else ""
        nearest = "" if r["nearest"] is None else f"{r['nearest']:.1f}x"
        lines.append(f"| {size} | {wall:.1f} ({cpu:.1f}) | {peak:.0f} | {was} | {r['pairs']} | {r['unresolvable']} | "
                     f"{r['significant']} ({before[3] if before else ''}) | {r[EXACT]} / {r[SADDLEPOINT]} | "
                     f"{nearest} |")
        print(size, wall, cpu, peak, r)
    write_section(args.out, lines, START, END)
    return 0


if __name__ == "__main__":
    sys.exit(main())
