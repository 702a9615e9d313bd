#!/usr/bin/env python3
"""Where `make metrics` spends its time: run scripts/metrics.py on a tree, timing each of its phases.

    python bench/phases.py TREE        prints one JSON object: phase -> [wall seconds, CPU seconds]

The phases are make metrics' own calls, wrapped with a timer (nothing is re-implemented here):
start-up (imports, before main), load (every input read, parsed, validated and cross-checked),
metric tables (`computed`: every metric and statistic, in memory), agreement (`agreement_tables`),
leaderboard (`computed_files`: the board's pages from the computed set) and writing (`write_many_atomic`: the
whole set, manifest.json last). CPU is user + system time of this process and of its reaped
children (the fork pools' workers), so it can exceed wall time. Start-up's wall time runs from the
first line of this file (the interpreter's own start is not in it), its CPU time from the process's start.
"""

from __future__ import annotations

import json
import resource
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

START = time.perf_counter()
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "scripts"))
from rgbench.commands import metrics  # noqa: E402


def cpu_seconds() -> float:
    """User + system seconds of this process and its waited-for children."""
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def main() -> int:
    tree = sys.argv[1]
    timed: dict[str, list[float]] = {}

    def timer(name: str, function: Callable[..., Any]) -> Callable[..., Any]:
        def timed_call(*args: Any, **kwargs: Any) -> Any:
            wall, cpu = time.perf_counter(), cpu_seconds()
            try:
                return function(*args, **kwargs)
            finally:
                timed[name] = [round(time.perf_counter() - wall, 3), round(cpu_seconds() - cpu, 3)]
        return timed_call

    steps = [("load_valid_grades", "load"), ("computed", "metric tables"), ("agreement_tables", "agreement"),
             ("computed_files", "leaderboard"), ("write_many_atomic", "writing")]
    # the functions `make metrics` (commands/metrics.compute_and_write) calls, timed where it calls them
    for attribute, name in steps:
        setattr(metrics, attribute, timer(name, getattr(metrics, attribute)))
    timed["start-up"] = [round(time.perf_counter() - START, 3), round(cpu_seconds(), 3)]
    status = metrics.write_results(Path(tree))
    if status:
        return status
    print(json.dumps({name: timed[name] for name in ("start-up", *(name for _, name in steps))}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
