#!/usr/bin/env python3
"""Peak memory and time of the agreement statistics on realistic shapes; writes bench/AGREEMENT.md.

Each shape (runs x graders per run, the values' range, resamples) runs in a fresh process that builds the
units of one target (e.g. raw_score: a total of 19 criteria 0-12, range 0-228), then computes what
agreement.csv holds for it: the exact ordinal alpha (rgbench.stats.agreement.krippendorff_alpha) and the
BCa intervals of ordinal and nominal alpha, percent agreement, quadratic kappa (first two graders) and the
first grader's mean deviation (rgbench.stats.agreement_bootstrap), each over its seeded draw. Reported:
the child's peak resident memory (ru_maxrss, the interpreter and numpy included) and its wall time.
Timings live here, never in tests. Run: `.venv/bin/python bench/agreement_memory.py`.
"""

from __future__ import annotations

import argparse
import json
import platform
import resource
import subprocess
import sys
import time
from fractions import Fraction
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
OUT = REPO / "bench" / "AGREEMENT.md"
# (runs, graders per run, top of the range, step of the values, resamples)
SHAPES = (
    (1560, 2, 228, "1", 2000),
    (1560, 2, 228, "1", 4000),
    (1040, 3, 228, "1", 2000),
    (1560, 2, 100000, "1", 2000),
    (1560, 2, 2280, "1/10", 2000),
)
BEFORE = ("Before issue 23 (commit 7e725cd, a values x values coincidence matrix per replicate), the first shape "
          "peaked at 3,927 MiB in 30.6 s, and the exact ordinal alpha alone took 12 s (values x values x values "
          "Fraction sums); the 0-100000 range could not run.")


def child(runs: int, graders: int, top: int, step: str, resamples: int) -> dict:
    """Compute the shape's statistics in this process; its peak memory and wall time."""
    sys.path.insert(0, str(REPO / "scripts"))
    import numpy as np

    from rgbench.stats.agreement import cohen_weighted_kappa, krippendorff_alpha, pair_ratings, unit_deviations
    from rgbench.stats.agreement_bootstrap import (
        alpha_interval,
        deviation_interval,
        kappa_interval,
        percent_interval,
        unit_weights,
    )

    start = time.perf_counter()
    rng = np.random.default_rng(0)
    unit_step, spread = Fraction(step), max(1, top // 10)
    names = [f"r{i}" for i in range(graders)]
    units = []
    for base in rng.integers(0, top + 1, runs):
        units.append({r: unit_step * int(np.clip(base + rng.integers(-spread, spread + 1), 0, top)) for r in names})
    level = Fraction(95, 100)
    exact = krippendorff_alpha(units, "ordinal")
    assert exact is not None
    for metric in ("ordinal", "nominal"):
        alpha_interval(units, metric, unit_weights(runs, f"alpha_{metric}", "raw_score", units, resamples), level)
    percent_interval(units, unit_weights(runs, "percent", "raw_score", units, resamples), level)
    pairs = pair_ratings(units, "r0", "r1")
    assert cohen_weighted_kappa(pairs) is not None
    kappa_interval(pairs, unit_weights(len(pairs), "kappa", "raw_score", pairs, resamples), level)
    deviations = unit_deviations(units, "r0")
    deviation_interval(deviations, unit_weights(len(deviations), "deviation", "raw_score", deviations, resamples), level)
    distinct = len({v for u in units for v in u.values()})
    return {"wall": time.perf_counter() - start, "peak": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
            "distinct": distinct, "alpha": float(exact)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--child", help=argparse.SUPPRESS)
    parser.add_argument("--print", action="store_true", help="print the table instead of writing bench/AGREEMENT.md")
    args = parser.parse_args(argv)
    if args.child:
        runs, graders, top, step, resamples = json.loads(args.child)
        print(json.dumps(child(runs, graders, top, step, resamples)))
        return 0
    rows = []
    for shape in SHAPES:
        out = subprocess.run([sys.executable, __file__, "--child", json.dumps(shape)], check=True,
                             capture_output=True, text=True).stdout
        got = json.loads(out)
        runs, graders, top, step, resamples = shape
        scale = f"0-{top}" if step == "1" else f"0-{Fraction(top) * Fraction(step)} in steps of {step}"
        rows.append(f"| {runs} x {graders} | {runs * graders} | {scale} | {got['distinct']} | {resamples} "
                    f"| {got['wall']:.1f} | {got['peak']:.0f} |")
    text = "\n".join([
        "# Benchmark: memory of the agreement statistics", "",
        f"Machine: {platform.machine()}, Python {platform.python_version()}; each shape in a fresh process "
        "(bench/agreement_memory.py). Target: 3,120 grades on a 0-228 range within 500 MiB, memory linear in "
        "resamples x graded units whatever the range.", "",
        "| runs x graders | grades | values | distinct values | resamples | wall s | peak MiB |",
        "|---|---:|---|---:|---:|---:|---:|", *rows, "",
        "Per shape: the exact ordinal alpha, then the BCa intervals of ordinal and nominal alpha, percent "
        "agreement, quadratic kappa and a mean deviation. peak MiB: the child's largest resident set, "
        "the interpreter and numpy included.", "", BEFORE, ""])
    if args.print:
        print(text)
    else:
        OUT.write_text(text, encoding="utf-8")
        print(f"wrote {OUT.relative_to(REPO)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
