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
# the same tree before this session's changes, measured once on this machine (2026-12-05): make metrics refused its
# own draws file (1.16 MB, over the 1 MB input limit); with that limit raised, 89.1 s wall (86.5 s user), each
# pair's estimates and replicates computed anew
BEFORE = {"58x100x3": "refused (human_draws.json over 1 MB); 89.1 s with the limit raised",
          "58x805x1": "refused (human_draws.json, 3.1 MB, over 1 MB)"}


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
