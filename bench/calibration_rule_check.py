#!/usr/bin/env python3
"""Type-I error and power of the calibration rule (aggregate_metrics.md §19a: ECE_low > 0), and the ECE interval's coverage.

Not a test: a simulation with known truth, run by hand (`.venv/bin/python bench/calibration_rule_check.py RUNS`).
Benchmarks are drawn from bench/stats_check.py's model fitted to the sample suite (30 cases by default); each
subject's ECE interval is the production :func:`rgbench.stats.intervals.ece_interval` on a case draw of 1,000
resamples. Subjects: stats_check.py's board (strong-a, strong-b, middle, weak), two uniformly miscalibrated ones
(`over10`: confidence 10 points above calibrated; `under15`: 15 points below; both clipped to 0..100, so their
true ECE is below the shift), and four perfectly calibrated ones: `calibrated` (confidence 100 · E[correctness |
the case's latent mean]), `calibrated-shared` (100 · E[correctness | the case's shared difficulty]: calibrated,
but its runs of a case are correlated given their confidence), and both at a high mean score (`cal-hi`,
`cal-shared-hi`: confidences near 100, the skewed, rare-failure case). The true ECE is the population ECE of
the same fixed bins from one large simulation.

Measured (500 replications per design, seed [20261203, runs, cases]; standard error ≤ 1.1%), ECE_low > 0 for
(strong-a, strong-b, middle, weak, over10, under15 | calibrated, calibrated-shared, cal-hi, cal-shared-hi),
3 runs: 79.6, 16.2, 69.4, 95.2, 61.6, 100 | 1.6, 5.0, 3.4, 6.2%; coverage of the true ECE 99.2-100% on the
miscalibrated subjects, 93.8-98.6% on the calibrated ones. `1 --cases 100 --replications 8000 --subjects
calibrated,calibrated-shared`: 4.0% and 4.9% (± 0.2%), coverage 96.4% and 95.5%. The L1 rule before 2026-12-04
(the same seeds): 1 run: 35.2, 2.2, 25.8, 47.0, 15.2, 87.4 | 3.2, 6.2, 5.2, 3.8%; 3 runs: 79.4, 12.8, 75.4, 98.4,
67.0, 100 | 3.0, 5.4, 2.6, 6.2%; 5 runs: 92.8, 25.2, 95.6, 100, 88.4, 100 | 2.8, 3.8, 2.6, 4.6%.
"""

from __future__ import annotations

import argparse
import math
import sys
from fractions import Fraction
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent / "scripts"))

import stats_check  # noqa: E402

from rgbench.load.scale import default_scale  # noqa: E402
from rgbench.stats.bootstrap import case_counts  # noqa: E402
from rgbench.stats.case_summary import case_summaries  # noqa: E402
from rgbench.stats.intervals import ece_interval  # noqa: E402
from rgbench.stats.run_columns import RunColumns  # noqa: E402

Subject = stats_check.Subject
SUBJECTS = (Subject("strong-a", 11.4, bias=-5, noise=8), Subject("strong-b", 11.0, bias=8, noise=10),
            Subject("middle", 9.6, bias=-8, noise=10), Subject("weak", 7.3, bias=-15, noise=12),
            Subject("over10", 9.8, bias=10), Subject("under15", 9.8, bias=-15),
            Subject("calibrated", 9.8), Subject("calibrated-shared", 9.8, knows_case=False),
            Subject("cal-hi", 11.4), Subject("cal-shared-hi", 11.4, knows_case=False))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("runs", type=int, help="runs per case")
    parser.add_argument("--replications", type=int, default=500)
    parser.add_argument("--cases", type=int, default=30)
    parser.add_argument("--resamples", type=int, default=1000)
    parser.add_argument("--subjects", default=None, help="comma-separated names (default: all ten)")
    parser.add_argument("--icc", type=float, default=None, help="the model at this ICC (default: the fitted one)")
    args = parser.parse_args(argv)
    model, _ = stats_check.fit_model(stats_check.REPO / "results/per_run.csv")
    model = model if args.icc is None else model.with_icc(args.icc)
    subjects = [s for s in SUBJECTS if args.subjects is None or s.name in args.subjects.split(",")]
    truth = {s.name: stats_check.population_truth(model, s, np.random.default_rng([1, 0]))["ECE"] for s in subjects}
    rng = np.random.default_rng([20261203, args.runs, args.cases])
    above = dict.fromkeys(truth, 0)
    cover = dict.fromkeys(truth, 0)
    width = dict.fromkeys(truth, 0.0)
    for _ in range(args.replications):
        runs = stats_check.simulate(model, subjects, args.cases, args.runs, rng)
        summaries = case_summaries(RunColumns.of(runs), alpha=Fraction(1, 2), scale=default_scale(12), bins=10)
        for name, summary in summaries.items():
            interval = ece_interval(summary, case_counts(rng, summary.k, args.resamples), Fraction(95, 100))
            assert interval is not None
            low, high = interval
            above[name] += low > 0
            cover[name] += low - 1e-9 <= truth[name] <= high + 1e-9
            width[name] += high - low
    n = args.replications
    print(f"{args.cases} cases x {args.runs} runs, ICC {model.icc:.2f}, {n} replications")
    print("| subject | true ECE | ECE_low > 0 | coverage | mean width |\n|---|---:|---:|---:|---:|")
    for s in subjects:
        a, c = above[s.name] / n, cover[s.name] / n
        print(f"| {s.name} | {truth[s.name]:.3f} | {100 * a:.1f}% ± {100 * math.sqrt(a * (1 - a) / n):.1f}% | "
              f"{100 * c:.1f}% | {width[s.name] / n:.3f} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
