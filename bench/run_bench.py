#!/usr/bin/env python3
"""Measure the one pipeline on synthetic trees against the read-and-parse floor; write bench/RESULTS.md.

For each size S x C x R (subjects x cases x runs) it builds a tree with
scripts/make_synthetic.py (seeded, reused when present), then measures, each in a
fresh process, best of --repeat runs:

- floor: bench/floor.py reads every input once and JSON-parses the JSON ones;
- compute_metrics.py (strict parsing, full validation, every output and statistic);
- each result-producing step on its own (compute_metrics, aggregate_scoring without the consolidated
  scorings, build_leaderboard);
- ``make metrics`` itself: scripts/metrics.py, the three steps in one process that reads the tree once;
- once, make metrics' phases timed inside one process (bench/phases.py).

Wall time, CPU time (user + system, fork-pool workers included) and peak resident memory (the
child's ru_maxrss) are reported, with the ratios the targets are stated in, and a table of make
metrics' phases. Then, once, the wall time of ``make test`` (skipped with --no-tests) and the size
of the library (lines under scripts/, by kind: code, docstrings, comments, blank). The large board's section
(`.venv/bin/python bench/large_board.py`) and the pairwise boards' (`bench/pairwise_boards.py`) are kept as they are.
Timings live here, never in tests.
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import platform
import shutil
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path
from typing import NamedTuple

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "scripts"))
from large_board import kept_section  # noqa: E402  (bench/, this script's folder)

PAIRWISE_START, PAIRWISE_END = "<!-- pairwise-boards:start -->", "<!-- pairwise-boards:end -->"  # pairwise_boards.py
ASSISTED_START, ASSISTED_END = ("<!-- judge-assisted-boards:start -->",   # judge_assisted_boards.py
                                "<!-- judge-assisted-boards:end -->")

from rgbench.cli import COMMANDS, RESULT_STEPS  # noqa: E402

# each step as make metrics runs it: the consolidated scorings are written only once asked for
STEP_SCRIPTS = [COMMANDS[step].script for step in RESULT_STEPS]   # the shims, as a user runs them
STEP_OPTIONS = {"aggregate_scoring.py": ["--no-consolidated"]}

PY = sys.executable
# Children run as users run them: with Python's bytecode cache.
CHILD_ENV = {key: value for key, value in os.environ.items() if key != "PYTHONDONTWRITEBYTECODE"}
DEFAULT_SIZES = ("10x30x3", "30x100x3", "100x300x3")


class Run(NamedTuple):
    """One child process: wall seconds, CPU seconds (user + system, its waited-for children included: the
    fork pools' workers), peak resident MiB (the largest of it and its children)."""

    wall: float
    cpu: float
    peak: float


def measure(command: list[str], cwd: Path | None = None) -> Run:
    """Wall time, CPU time and peak memory of one child process; raises if it fails."""
    start = time.perf_counter()
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=CHILD_ENV, cwd=cwd)
    _, status, usage = os.wait4(process.pid, 0)
    wall = time.perf_counter() - start
    stderr = process.stderr.read().decode() if process.stderr else ""
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"{' '.join(command)} failed:\n{stderr}")
    return Run(wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024)


def phases(tree: Path) -> dict[str, list[float]]:
    """make metrics' phases on ``tree`` (bench/phases.py, a fresh process): name -> [wall s, CPU s]."""
    done = subprocess.run([PY, str(REPO / "bench/phases.py"), str(tree)], capture_output=True, text=True, env=CHILD_ENV,
                          check=True)
    return json.loads(done.stdout.splitlines()[-1])


def best(command: list[str], repeat: int) -> Run:
    """Over ``repeat`` runs: the best wall time, the CPU time of that run, the largest peak."""
    runs = [measure(command) for _ in range(repeat)]
    fastest = min(runs, key=lambda run: run.wall)
    return Run(fastest.wall, fastest.cpu, max(run.peak for run in runs))


def file_count(tree: Path) -> int:
    return sum(1 for top in ("responses", "scoring") for _ in (tree / top).rglob("*.json"))


def line_kinds(source: str) -> Counter[str]:
    """Lines of one Python source by kind: blank, comment, docstring (module, class, function) or code."""
    lines = source.splitlines()
    kinds = ["blank" if not line.strip() else "comment" if line.lstrip().startswith("#") else "code" for line in lines]
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and isinstance(first.value.value, str):
                end = first.end_lineno or first.lineno
                kinds[first.lineno - 1:end] = ["docstring"] * (end - first.lineno + 1)
    return Counter(kinds)


def library_lines() -> Counter[str]:
    """Lines of Python under scripts/, by kind."""
    return sum((line_kinds(path.read_text(encoding="utf-8")) for path in sorted((REPO / "scripts").rglob("*.py"))),
               Counter())


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
                 for step in STEP_SCRIPTS]
        # a benchmark that has not asked for consolidated scorings (make agreement): make metrics writes none
        shutil.rmtree(tree / "scoring_consolidated", ignore_errors=True)
        whole = best([PY, str(REPO / "scripts/metrics.py"), "--root", str(tree)], args.repeat)
        rows.append((size, file_count(tree), floor, steps, whole, phases(tree)))
        print(f"{size}: floor {floor.wall:.2f}s, "
              + ", ".join(f"{s} {t.wall:.2f}s" for s, t in zip(STEP_SCRIPTS, steps)) + f", make metrics {whole.wall:.2f}s",
              flush=True)
    tests = None if args.no_tests else measure(["make", "test"], cwd=REPO).wall
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
        "| size (S x C x R) | response + scoring files | floor s | compute_metrics s (CPU) | / floor "
        "| aggregate_scoring s | build_leaderboard s | make metrics s (CPU) | / floor | peak MiB |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for size, files, floor, steps, whole, _ in rows:
        compute, aggregate, board = steps
        lines.append(f"| {size} | {files} | {floor.wall:.2f} | {compute.wall:.2f} ({compute.cpu:.1f}) | "
                     f"{compute.wall / floor.wall:.1f}x | {aggregate.wall:.2f} | {board.wall:.2f} | "
                     f"{whole.wall:.2f} ({whole.cpu:.1f}) | {whole.wall / floor.wall:.1f}x | "
                     f"{max(run.peak for run in (whole, *steps)):.0f} |")
    lines += ["", "floor: `bench/floor.py` (read every input once, `json.loads` the JSON files), in its own process.",
              "make metrics: `scripts/metrics.py` (what the Makefile runs): validation, the three steps in one "
              "process, the tree read once.",
              "CPU: user + system seconds of the fastest run, its fork pools' workers included (the extraction "
              "and the charts use both cores, so CPU can exceed wall); steadier than wall on a shared machine.",
              "peak MiB: the largest resident set of the steps and of make metrics.", ""]
    names = list(rows[0][5]) if rows else []
    lines += ["Where `make metrics` spends its time (`bench/phases.py`: one run, its phases timed in one process; "
              "wall s / CPU s):", "",
              "| size | " + " | ".join(names) + " |", "|---|" + "---:|" * len(names)]
    lines += [f"| {size} | " + " | ".join(f"{wall:.2f} / {cpu:.2f}" for wall, cpu in timed.values()) + " |"
              for size, *_, timed in rows]
    lines.append("")
    if tests is not None:
        lines.append(f"`make test`: {tests:.0f} s wall time (target: under 120 s on 2 cores).")
    kinds = library_lines()
    lines += [f"Library: {sum(kinds.values())} lines of Python under `scripts/` (target: at most 8,500): "
              f"{kinds['code']} of code, {kinds['docstring']} of docstrings, {kinds['comment']} of comments, "
              f"{kinds['blank']} blank.", ""]
    old = args.out.read_text(encoding="utf-8") if args.out.exists() else ""
    kept = (kept_section(old) + kept_section(old, PAIRWISE_START, PAIRWISE_END)   # large_board.py's, pairwise_boards.py's
            + kept_section(old, ASSISTED_START, ASSISTED_END))                     # judge_assisted_boards.py's
    args.out.write_text("\n".join(lines) + ("\n" + kept if kept else ""), encoding="utf-8")
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
