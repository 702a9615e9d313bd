#!/usr/bin/env python3
"""Measure the one pipeline on synthetic trees against the read-and-parse floor; write bench/RESULTS.md.

For each size S x C x R (subjects x cases x runs) it builds a tree with
scripts/make_synthetic.py (seeded, reused when present), then measures, each in a
fresh process, best of --repeat runs:

- floor: bench/floor.py reads every input once and JSON-parses the JSON ones;
- compute_metrics.py (strict parsing, full validation, every output and statistic);
- each result-producing step on its own (compute_metrics, aggregate_scoring without the consolidated
  scorings, build_leaderboard);
- ``make metrics`` itself: scripts/metrics.py, the three steps in one process that reads the tree once.

Wall time and peak resident memory (the child's ru_maxrss) are reported, with
the ratios the targets are stated in. Then, once, the wall time of ``make test``
(skipped with --no-tests) and the size of the library (lines under scripts/).
Timings live here, never in tests.
"""

from __future__ import annotations

import argparse
import os
import platform
import shutil
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "scripts"))
from rgbench.cli import RESULT_STEPS  # noqa: E402

# each step as make metrics runs it: the consolidated scorings are written only once asked for
STEP_OPTIONS = {"aggregate_scoring.py": ["--no-consolidated"]}

PY = sys.executable
# Children run as users run them: with Python's bytecode cache.
CHILD_ENV = {key: value for key, value in os.environ.items() if key != "PYTHONDONTWRITEBYTECODE"}
DEFAULT_SIZES = ("10x30x3", "30x100x3", "100x300x3")


def measure(command: list[str], cwd: Path | None = None) -> tuple[float, float]:
    """(wall seconds, peak RSS MiB) of one child process; raises if it fails."""
    start = time.perf_counter()
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=CHILD_ENV, cwd=cwd)
    _, status, usage = os.wait4(process.pid, 0)
    wall = time.perf_counter() - start
    stderr = process.stderr.read().decode() if process.stderr else ""
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"{' '.join(command)} failed:\n{stderr}")
    return wall, usage.ru_maxrss / 1024


def best(command: list[str], repeat: int) -> tuple[float, float]:
    """(best wall seconds, largest peak MiB) over ``repeat`` runs."""
    runs = [measure(command) for _ in range(repeat)]
    return min(r[0] for r in runs), max(r[1] for r in runs)


def file_count(tree: Path) -> int:
    return sum(1 for top in ("responses", "scoring") for _ in (tree / top).rglob("*.json"))


def library_lines() -> int:
    return sum(len(path.read_text(encoding="utf-8").splitlines()) for path in (REPO / "scripts").rglob("*.py"))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", nargs="+", default=list(DEFAULT_SIZES), help="SxCxR sizes (default: %(default)s)")
    parser.add_argument("--work", type=Path, default=Path("/tmp/rgbench-bench"), help="where the trees are built")
    parser.add_argument("--repeat", type=int, default=3, help="runs per measurement; the best is kept")
    parser.add_argument("--no-tests", action="store_true", help="do not time `make test`")
    parser.add_argument("--out", type=Path, default=REPO / "bench" / "RESULTS.md")
    args = parser.parse_args()
    rows = []
    for size in args.sizes:
        subjects, cases, runs = (int(x) for x in size.split("x"))
        tree = args.work / size
        if not (tree / "subjects").exists():
            subprocess.run([PY, str(REPO / "scripts/make_synthetic.py"), "--subjects", str(subjects), "--cases",
                            str(cases), "--runs", str(runs), "--out", str(tree)], check=True, stdout=subprocess.DEVNULL)
        floor = best([PY, str(REPO / "bench/floor.py"), str(tree)], args.repeat)
        steps = [best([PY, str(REPO / "scripts" / step), "--root", str(tree), *STEP_OPTIONS.get(step, [])], args.repeat)
                 for step in RESULT_STEPS]
        # a benchmark that has not asked for consolidated scorings (make agreement): make metrics writes none
        shutil.rmtree(tree / "scoring_consolidated", ignore_errors=True)
        whole = best([PY, str(REPO / "scripts/metrics.py"), "--root", str(tree)], args.repeat)
        rows.append((size, file_count(tree), floor, steps, whole))
        print(f"{size}: floor {floor[0]:.2f}s, " + ", ".join(f"{s} {t[0]:.2f}s" for s, (t) in zip(RESULT_STEPS, steps)),
              flush=True)
    tests = None if args.no_tests else measure(["make", "test"], cwd=REPO)[0]
    lines = [
        "# Benchmark: the one pipeline against the read-and-parse floor",
        "",
        f"Machine: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}; "
        f"best of {args.repeat} runs, each a fresh process; trees from scripts/make_synthetic.py (seed 0). "
        "Regenerate with `make bench`.",
        "",
        "Targets (at 100x300x3): compute_metrics within 3x the floor, the whole of `make metrics` within 5x, "
        "peak memory under 1 GiB.",
        "",
        "| size (S x C x R) | response + scoring files | floor s | compute_metrics s | / floor | aggregate_scoring s "
        "| build_leaderboard s | make metrics s | / floor | peak MiB |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for size, files, floor, steps, whole in rows:
        lines.append(f"| {size} | {files} | {floor[0]:.2f} | {steps[0][0]:.2f} | {steps[0][0] / floor[0]:.1f}x | "
                     f"{steps[1][0]:.2f} | {steps[2][0]:.2f} | {whole[0]:.2f} | {whole[0] / floor[0]:.1f}x | "
                     f"{max([whole[1]] + [step[1] for step in steps]):.0f} |")
    lines += ["", "floor: `bench/floor.py` (read every input once, `json.loads` the JSON files), in its own process.",
              "make metrics: `scripts/metrics.py` (what the Makefile runs): validation, the three steps in one "
              "process, the tree read once.",
              "peak MiB: the largest resident set of the steps and of make metrics.", ""]
    if tests is not None:
        lines.append(f"`make test`: {tests:.0f} s wall time (target: under 120 s on 2 cores).")
    lines += [f"Library: {library_lines()} lines of Python under `scripts/` (target: at most 8,500).", ""]
    args.out.write_text("\n".join(lines), encoding="utf-8")
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
