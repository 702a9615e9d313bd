#!/usr/bin/env python3
"""One large board (default 150 subjects x 800 cases x 1 run): `make metrics` time, peak memory, where the time
goes and the size of results/ and of each file in it; written into bench/RESULTS.md between two marker lines.

    python bench/large_board.py [--size 150x800x1] [--work /tmp/rgbench-bench]

The tree comes from scripts/make_synthetic.py (seed 0; reused when present, its results/ removed first). make
metrics runs once, through bench/phases.py (scripts/metrics.py with its phases timed in the same process), in a
fresh process: wall time, CPU time (user + system, the fork pools' workers included) and the peak resident
set of that one run. A large board is measured once, not best of three: it takes minutes. bench/run_bench.py
keeps this section when it rewrites the rest of the file.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
PY = sys.executable
START, END = "<!-- large-board:start -->", "<!-- large-board:end -->"
CHILD_ENV = {key: value for key, value in os.environ.items() if key != "PYTHONDONTWRITEBYTECODE"}


def measured_phases(tree: Path) -> tuple[float, float, float, dict[str, list[float]]]:
    """One run of make metrics on ``tree`` (bench/phases.py): wall s, CPU s, peak MiB, phase -> [wall, CPU]."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        start = time.perf_counter()
        process = subprocess.Popen([PY, str(REPO / "bench/phases.py"), str(tree)], stdout=out, stderr=err,
                                   env=CHILD_ENV)
        _, status, usage = os.wait4(process.pid, 0)
        wall = time.perf_counter() - start
        out.seek(0)
        err.seek(0)
        if os.waitstatus_to_exitcode(status) != 0:
            raise SystemExit(f"make metrics failed on {tree}:\n{err.read().decode()}")
        timed = json.loads(out.read().decode().splitlines()[-1])
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024, timed


def file_sizes(results: Path) -> dict[str, int]:
    """Bytes of every file of results/, largest first (ties by name)."""
    sizes = {path.name: path.stat().st_size for path in results.iterdir() if path.is_file()}
    return dict(sorted(sizes.items(), key=lambda item: (-item[1], item[0])))


def mib(n: int) -> str:
    return f"{n / 2**20:.2f}"


def section(size: str, files: int, wall: float, cpu: float, peak: float, timed: dict[str, list[float]],
            sizes: dict[str, int]) -> str:
    per_run = sizes.get("per_run.csv", 0)
    lines = [START, f"## A large board: {size} (subjects x cases x runs)", "",
             f"{files} response and scoring files; one run of `make metrics` (`bench/large_board.py`, through "
             f"`bench/phases.py`), machine {platform.machine()}, {os.cpu_count()} cores, Python "
             f"{platform.python_version()}.", "",
             "| make metrics s | CPU s | peak MiB | results/ MiB | files |", "|---:|---:|---:|---:|---:|",
             f"| {wall:.1f} | {cpu:.1f} | {peak:.0f} | {mib(sum(sizes.values()))} | {len(sizes)} |", "",
             "Where the time goes (wall s / CPU s):", "",
             "| " + " | ".join(timed) + " |", "|" + "---:|" * len(timed),
             "| " + " | ".join(f"{wall:.1f} / {cpu:.1f}" for wall, cpu in timed.values()) + " |", "",
             "Each file of results/ (bytes; x per_run.csv):", "", "| file | bytes | MiB | x per_run.csv |",
             "|---|---:|---:|---:|"]
    lines += [f"| {name} | {n} | {mib(n)} | {n / per_run:.2f} |" if per_run else f"| {name} | {n} | {mib(n)} | |"
              for name, n in sizes.items()]
    return "\n".join(lines + ["", END]) + "\n"


def with_section(text: str, block: str) -> str:
    """``text`` with its marked block replaced by ``block``, or ``block`` appended after a blank line."""
    if START in text and END in text:
        head, _, rest = text.partition(START)
        _, _, tail = rest.partition(END)
        return head + block.rstrip("\n") + tail
    return text.rstrip("\n") + "\n\n" + block


def board_arguments(doc: str, sizes: list[str]) -> argparse.Namespace:
    """The command line of a large-board script: --sizes (default ``sizes``), --work, --out."""
    parser = argparse.ArgumentParser(description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", nargs="+", default=sizes)
    parser.add_argument("--work", type=Path, default=Path("/tmp/rgbench-bench"), help="where the trees are built")
    parser.add_argument("--out", type=Path, default=REPO / "bench" / "RESULTS.md")
    return parser.parse_args()


def write_section(out: Path, lines: list[str], start: str, end: str) -> None:
    """Write ``lines`` (the first ``start``) and ``end`` into ``out`` in place of the block between the two markers,
    or after the text when there is none."""
    block = "\n".join(lines + ["", end]) + "\n"
    old = out.read_text(encoding="utf-8") if out.exists() else ""
    if start in old and end in old:
        head, _, rest = old.partition(start)
        text = head + block.rstrip("\n") + rest.partition(end)[2]
    else:
        text = old.rstrip("\n") + "\n\n" + block
    out.write_text(text, encoding="utf-8")


def kept_section(text: str, start: str = START, end: str = END) -> str:
    """The block of ``text`` marked by ``start`` and ``end`` (with its markers and a final newline), or ``""``:
    run_bench.py keeps it."""
    if start not in text or end not in text:
        return ""
    return start + text.partition(start)[2].partition(end)[0] + end + "\n"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--size", default="150x800x1", help="SxCxR (default: %(default)s)")
    parser.add_argument("--work", type=Path, default=Path("/tmp/rgbench-bench"), help="where the tree is built")
    parser.add_argument("--out", type=Path, default=REPO / "bench" / "RESULTS.md")
    args = parser.parse_args()
    subjects, cases, runs = (int(x) for x in args.size.split("x"))
    tree = args.work / args.size
    if not (tree / "subjects").exists():
        subprocess.run([PY, str(REPO / "scripts/make_synthetic.py"), "--subjects", str(subjects), "--cases",
                        str(cases), "--runs", str(runs), "--out", str(tree)], check=True, stdout=subprocess.DEVNULL)
    shutil.rmtree(tree / "results", ignore_errors=True)
    shutil.rmtree(tree / "scoring_consolidated", ignore_errors=True)
    files = sum(1 for top in ("responses", "scoring") for _ in (tree / top).rglob("*.json"))
    wall, cpu, peak, timed = measured_phases(tree)
    sizes = file_sizes(tree / "results")
    block = section(args.size, files, wall, cpu, peak, timed, sizes)
    old = args.out.read_text(encoding="utf-8") if args.out.exists() else ""
    args.out.write_text(with_section(old, block), encoding="utf-8")
    print(f"{args.size}: make metrics {wall:.1f} s (CPU {cpu:.1f} s), peak {peak:.0f} MiB, "
          f"results/ {mib(sum(sizes.values()))} MiB; wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
