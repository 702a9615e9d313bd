#!/usr/bin/env python3
"""Judge-assisted mode on large boards (issue 28): `make metrics` and `rgbench plan` time and peak memory, and the
size of subjects/human_draws.json, on boards of many subjects, where every subject's figures meet every other's in
the pairs (58 subjects: 1,653 pairs x 3 figures).

    python bench/judge_assisted_boards.py [--sizes 58x100x3] [--work /tmp/rgbench-bench]

Each tree comes from scripts/make_synthetic.py --judge-assisted (seed 0: the judge grades every run, one
stratified draw of a fifth of the runs graded by humans; reused when present, its results/ removed first); make
metrics runs once through bench/phases.py in a fresh process (bench/large_board.py's measured_phases), then
`rgbench plan` once. Written into bench/RESULTS.md between two marker lines; bench/run_bench.py keeps the block.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

# bench/, this script's folder
from large_board import CHILD_ENV, PY, REPO, board_arguments, measured_phases, write_section

START, END = "<!-- judge-assisted-boards:start -->", "<!-- judge-assisted-boards:end -->"
DRAWS = Path("subjects/human_draws.json")
# the same trees measured on this machine before (2026-12-05): the eleventh session's code (each subject's bootstrap
# values once for the pairs of subjects with every case; a pair whose subjects miss different cases anew) and, for
# 58x100x3, the code before it (which refused the draws file: 1.16 MB, over the 1 MB input limit)
BEFORE = {"58x100x3": "32.0 s, plan 12.8 s (eleventh session); 89.1 s before it, the draws limit raised",
          "58x805x1": "618.7 s, plan 69.3 s (eleventh session: each pair on its shared cases anew)"}


def timed_plan(tree: Path) -> tuple[float, float]:
    """One `rgbench plan` on ``tree`` in a fresh process: wall s, peak MiB."""
    start = time.perf_counter()
    process = subprocess.Popen([PY, "-P", "-m", "rgbench", "plan", "--root", str(tree)], stdout=subprocess.DEVNULL,
                               stderr=subprocess.PIPE, env={**CHILD_ENV, "PYTHONPATH": str(REPO / "scripts")})
    _, status, usage = os.wait4(process.pid, 0)
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"rgbench plan failed on {tree}")
    return time.perf_counter() - start, usage.ru_maxrss / 1024


def main() -> int:
    args = board_arguments(__doc__ or "", ["58x100x3", "58x805x1"])
    lines = [START, "## Judge-assisted mode on large boards (issue 28)", "",
             "One run of `make metrics` (`bench/judge_assisted_boards.py`, through `bench/phases.py`) and one of "
             "`rgbench plan` per board, trees from `make_synthetic.py --judge-assisted` (seed 0). Wall time follows "
             "the machine's load; CPU s is steadier.", "",
             "| board | human_draws.json MB | make metrics s (CPU) | peak MiB | rgbench plan s | peak MiB | before |",
             "|---|---:|---:|---:|---:|---:|---|"]
    for size in args.sizes:
        subjects, cases, runs = (int(x) for x in size.split("x"))
        tree = args.work / f"judge-assisted-{size}"
        if not (tree / "subjects").exists():
            subprocess.run([PY, str(REPO / "scripts/make_synthetic.py"), "--subjects", str(subjects), "--cases",
                            str(cases), "--runs", str(runs), "--out", str(tree), "--judge-assisted"], check=True,
                           stdout=subprocess.DEVNULL)
        shutil.rmtree(tree / "results", ignore_errors=True)
        wall, cpu, peak, _ = measured_phases(tree)
        plan_wall, plan_peak = timed_plan(tree)
        draws = (tree / DRAWS).stat().st_size / 1e6
        lines.append(f"| {size} | {draws:.2f} | {wall:.1f} ({cpu:.1f}) | {peak:.0f} | {plan_wall:.1f} | "
                     f"{plan_peak:.0f} | {BEFORE.get(size, '')} |")
        print(size, draws, wall, cpu, peak, plan_wall, plan_peak)
    write_section(args.out, lines, START, END)
    return 0


if __name__ == "__main__":
    sys.exit(main())
