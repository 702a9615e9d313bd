#!/usr/bin/env python3
"""Validate a benchmark tree and write results/per_run.csv, metrics_per_subject.csv,
metrics_per_family.csv and manifest.json, byte-deterministically, with the statistics
(intervals, Brier decomposition, calibration_bins.csv, pairwise.csv, pass_at_k.csv,
metrics_per_difficulty.csv, alpha_sensitivity.csv; see results/README.md).

v1.0 reads one scoring per run from scoring/. `--scoring-dir scoring_consolidated`
reads the consolidated scorings that scripts/aggregate_scoring.py writes instead
(the several-reviewers path); `--results-dir` keeps such a computation apart from
the committed results/.

On any invalid input, prints every problem as `path: message` on stderr, exits 1
and leaves results/ untouched.
"""

from __future__ import annotations

import time

_STARTED = time.perf_counter()

import argparse  # noqa: E402  (imports are timed as the start-up stage)
import re  # noqa: E402
import sys  # noqa: E402
from pathlib import Path  # noqa: E402

from rgbench.folder_scan import discover_folders, start_scan  # noqa: E402  (standard library only)
from rgbench.timings import STAGES  # noqa: E402

_IMPORTED = time.perf_counter()

REPO_ROOT = Path(__file__).resolve().parent.parent
FOLDER_NAME = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.-]*$")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--root", type=Path, default=REPO_ROOT,
                        help="benchmark tree holding system/, golds/, responses/, scoring/, subjects/ (default: this repository)")
    parser.add_argument("--alpha", help="weight of P in Q_final, 0..1 (default: system/metrics/<version>/config.yaml)")
    parser.add_argument("--scoring-dir", default="scoring", metavar="NAME",
                        help="folder of the tree to read scorings from, e.g. scoring_consolidated (default: scoring)")
    parser.add_argument("--results-dir", default="results", metavar="NAME",
                        help="folder of the tree to write to (default: results)")
    parser.add_argument("--timings", action="store_true",
                        help="print the wall time of each stage on stderr (for make bench; never in results)")
    parser.add_argument("--no-cache", action="store_true",
                        help="neither read nor write the per-file cache in DIR/.cache/ (results are identical either way)")
    args = parser.parse_args(argv)
    STAGES.seconds.clear()
    root = args.root
    for option, value in (("--scoring-dir", args.scoring_dir), ("--results-dir", args.results_dir)):
        if not FOLDER_NAME.match(value):
            print(f"{option}: {value!r} is not a folder name inside the tree (letters, digits, '_', '-', '.'; no '/')",
                  file=sys.stderr)
            return 1
    # Fingerprinting the subject folders takes other processes ~0.2 s at 180,000 files: start it
    # before the heavy imports (numpy, the loaders), which it then overlaps.
    scan = None if args.no_cache else start_scan(root, discover_folders(root, ("responses", args.scoring_dir)))
    started = time.perf_counter()
    from rgbench.atomic import write_many_atomic
    from rgbench.cli import load_valid_results, not_a_tree
    from rgbench.progress import Progress
    from rgbench.tables import render_results
    STAGES.add("start-up (imports)", (_IMPORTED - _STARTED if argv is None else 0.0) + time.perf_counter() - started)
    if not_a_tree(root):
        if scan is not None:
            scan.close()
        return 1
    progress = Progress()
    loaded = load_valid_results(root, alpha_override=args.alpha, scoring_dir=args.scoring_dir,
                                use_cache=not args.no_cache, scan=scan,
                                progress=lambda done, total: progress.update("reading", done, total))
    if loaded is None:
        progress.close()
        return 1
    spec, results = loaded
    if args.scoring_dir != "scoring" and not (root / args.scoring_dir / spec.version_dir).is_dir():
        progress.close()
        print(f"{args.scoring_dir}/{spec.version_dir}: no such folder in the tree "
              "(--scoring-dir names a folder of scorings, e.g. one written by scripts/aggregate_scoring.py)", file=sys.stderr)
        return 1
    progress.update("writing", 2, 3, force=True)
    with STAGES.stage("render"):
        outputs = render_results(spec, results)
    with STAGES.stage("write results"):
        write_many_atomic({root / args.results_dir / name: data for name, data in outputs.items()})
    progress.close()
    for warning in results.statistics.warnings:
        print(f"warning: {warning}", file=sys.stderr)
    if args.timings:
        STAGES.report(sys.stderr)
    ranked = sum(1 for m in results.subjects if m.n)
    print(f"{results.n_runs} scored runs of {len(results.slices)} subjects ({ranked} with scores) -> {root.name or root}/{args.results_dir}/")
    return 0


if __name__ == "__main__":
    sys.exit(main())
