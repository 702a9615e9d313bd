#!/usr/bin/env python3
"""Measure compute_metrics against the read-and-parse floor on synthetic trees; write bench/RESULTS.md.

For each size S x C x R (subjects x cases x runs) it builds a tree with
scripts/make_synthetic.py (seeded, reused when present), then measures, each in a
fresh process, best of --repeat runs:

- floor: bench/floor.py reads every input once and JSON-parses the JSON ones;
- cold: compute_metrics.py --no-cache (full validation, every statistic);
- warm: compute_metrics.py after one scoring changed, with the cache primed.

Wall time and peak resident memory (the child's ru_maxrss) are reported, with
the ratio to the floor; then, from one more cold and one more warm run with
``--timings``, where the time goes stage by stage; then the three steps of
``make metrics`` after one scoring changed. Timings live here, never in tests.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
PY = sys.executable
# Children run as users run them: with Python's bytecode cache (a shell with PYTHONDONTWRITEBYTECODE=1
# would otherwise recompile every module on every run and add ~0.1 s of start-up to each figure).
CHILD_ENV = {key: value for key, value in os.environ.items() if key != "PYTHONDONTWRITEBYTECODE"}
DEFAULT_SIZES = ("10x30x3", "30x100x3", "100x300x3")


def measure(command: list[str]) -> tuple[float, float]:
    """(wall seconds, peak RSS MiB) of one child process; raises if it fails."""
    start = time.perf_counter()
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=CHILD_ENV)
    _, status, usage = os.wait4(process.pid, 0)
    wall = time.perf_counter() - start
    stderr = process.stderr.read().decode() if process.stderr else ""
    process.returncode = os.waitstatus_to_exitcode(status)
    if process.returncode != 0:
        raise SystemExit(f"{' '.join(command)} failed:\n{stderr}")
    return wall, usage.ru_maxrss / 1024


def best(command: list[str], repeat: int, before=None) -> tuple[float, float]:
    runs = []
    for _ in range(repeat):
        if before:
            before()
        runs.append(measure(command))
    return min(r[0] for r in runs), max(r[1] for r in runs)


def touch_one_scoring(tree: Path) -> None:
    """Change one scoring's comment (a real content change that keeps it valid)."""
    path = sorted((tree / "scoring").rglob("*.json"))[0]
    document = json.loads(path.read_text())
    document["comments"] = "x" if document.get("comments") != "x" else "y"
    path.write_text(json.dumps(document, indent=2, sort_keys=True) + "\n")


def stage_times(command: list[str]) -> dict[str, float]:
    """Stage -> seconds from one run with --timings (its ``timing:`` lines on stderr)."""
    done = subprocess.run(command + ["--timings"], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=CHILD_ENV,
                          check=True)
    stages = {}
    for line in done.stderr.splitlines():
        if line.startswith("timing: "):
            name, _, seconds = line[len("timing: "):].rpartition(" s")[0].rpartition(" ")
            stages[name.strip()] = float(seconds)
    return stages


def same_as_cold(tree: Path, compute: list[str]) -> None:
    """The warm run's results must equal a cold run's, byte for byte (a check at scale, besides the tests)."""
    subprocess.run(compute + ["--no-cache", "--results-dir", "bench-cold"], stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL, check=True)
    warm, cold = tree / "results", tree / "bench-cold"
    names = sorted(path.name for path in cold.iterdir())  # results/ may also hold the leaderboard's files
    if any(not (warm / name).is_file() or (warm / name).read_bytes() != (cold / name).read_bytes() for name in names):
        raise SystemExit(f"{tree}: the warm results differ from a cold run's")


def make_metrics_warm(tree: Path, compute: list[str], repeat: int) -> list[float]:
    """Best wall seconds of each step of `make metrics` (compute, aggregate, leaderboard) after one scoring
    changed, every cache primed."""
    steps = [compute,
             [PY, str(REPO / "scripts/aggregate_scoring.py"), "--root", str(tree)],
             [PY, str(REPO / "scripts/build_leaderboard.py"), "--root", str(tree)]]
    for step in steps:  # prime every cache
        measure(step)
    best_times = [float("inf")] * len(steps)
    for _ in range(repeat):
        touch_one_scoring(tree)
        for index, step in enumerate(steps):
            best_times[index] = min(best_times[index], measure(step)[0])
    return best_times


def file_count(tree: Path) -> int:
    return sum(1 for top in ("responses", "scoring") for _ in (tree / top).rglob("*.json"))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", nargs="+", default=list(DEFAULT_SIZES), help="SxCxR sizes (default: %(default)s)")
    parser.add_argument("--work", type=Path, default=Path("/tmp/rgbench-bench"), help="where the trees are built")
    parser.add_argument("--repeat", type=int, default=3, help="runs per measurement; the best is kept")
    parser.add_argument("--out", type=Path, default=REPO / "bench" / "RESULTS.md")
    args = parser.parse_args()
    rows = []
    for size in args.sizes:
        subjects, cases, runs = (int(x) for x in size.split("x"))
        tree = args.work / size
        if not (tree / "subjects").exists():
            subprocess.run([PY, str(REPO / "scripts/make_synthetic.py"), "--subjects", str(subjects), "--cases",
                            str(cases), "--runs", str(runs), "--out", str(tree)], check=True, stdout=subprocess.DEVNULL)
        files = file_count(tree)
        floor = best([PY, str(REPO / "bench/floor.py"), str(tree)], args.repeat)
        compute = [PY, str(REPO / "scripts/compute_metrics.py"), "--root", str(tree)]
        cold = best(compute + ["--no-cache"], args.repeat)
        measure(compute)  # prime the cache
        time.sleep(2.1)  # let the cache trust the files (racy-mtime window)
        measure(compute)
        warm = best(compute, args.repeat, before=lambda: touch_one_scoring(tree))
        cold_stages = stage_times(compute + ["--no-cache"])
        touch_one_scoring(tree)
        warm_stages = stage_times(compute)
        same_as_cold(tree, compute)
        whole = make_metrics_warm(tree, compute, args.repeat)
        rows.append((size, files, floor, cold, warm, cold_stages, warm_stages, whole))
        print(f"{size}: {files} files, floor {floor[0]:.2f}s, cold {cold[0]:.2f}s, warm {warm[0]:.2f}s", flush=True)
    lines = [
        "# Benchmark: compute_metrics against the read-and-parse floor",
        "",
        f"Machine: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}; "
        f"best of {args.repeat} runs; trees from scripts/make_synthetic.py (seed 0). Regenerate with `make bench`.",
        "",
        "| size (S x C x R) | response + scoring files | floor s | cold s | cold / floor | warm s (1 scoring changed) "
        "| warm / floor | peak MiB cold | peak MiB warm |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for size, files, floor, cold, warm, *_ in rows:
        lines.append(f"| {size} | {files} | {floor[0]:.2f} | {cold[0]:.2f} | {cold[0] / floor[0]:.1f}x | "
                     f"{warm[0]:.2f} | {warm[0] / floor[0]:.1f}x | {cold[1]:.0f} | {warm[1]:.0f} |")
    lines += ["", "floor: `bench/floor.py` (read every input once, `json.loads` the JSON files), in its own process.",
              "cold: `compute_metrics.py --no-cache`: strict parsing, full validation, every output and statistic.",
              "warm: `compute_metrics.py` with a primed `.cache/` after one scoring changed.", "",
              "## Where the time goes (seconds, one run each with `--timings`; the interpreter's own start is not "
              "in these)", ""]
    names = list(dict.fromkeys(name for row in rows for stages in row[5:7] for name in stages))
    header = [f"{row[0]} {kind}" for row in rows for kind in ("cold", "warm")]
    lines += ["| stage | " + " | ".join(header) + " |", "|---|" + "---:|" * len(header)]
    for name in names:
        cells = [f"{stages[name]:.3f}" if name in stages else "" for row in rows for stages in row[5:7]]
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    lines += ["", "## The whole of `make metrics` after one scoring changed (seconds, best of "
              f"{args.repeat}; each step warm)", "",
              "| size | compute_metrics | aggregate_scoring | build_leaderboard | total |", "|---|---:|---:|---:|---:|"]
    for row in rows:
        steps = row[7]
        lines.append(f"| {row[0]} | " + " | ".join(f"{t:.2f}" for t in steps) + f" | {sum(steps):.2f} |")
    lines.append("")
    args.out.write_text("\n".join(lines), encoding="utf-8")
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
