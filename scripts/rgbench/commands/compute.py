"""Validate a benchmark tree and write results/per_run.csv, metrics_per_subject.csv,
metrics_per_family.csv and manifest.json, byte-deterministically, with the statistics
(intervals, Brier decomposition, calibration_bins.csv, pairwise.csv, pass_at_k.csv,
metrics_per_difficulty.csv, difficulty_trend.csv, alpha_sensitivity.csv; see results/README.md).

v1.0 reads one scoring per run from scoring/ (and checks scoring_multi/, as `make metrics` does, from whose
tables these are the same bytes). With `board_grades: consolidated` in
system/metrics/<version>/config.yaml, every figure is computed instead from the consolidated
grade of each run: every grade of scoring/ and scoring_multi/ that counts, one per run by the
declared consolidation_policy (median or mean; an adjudication first), exact and in memory;
manifest.json records it under `grades`. `--scoring-dir scoring_consolidated` reads the
consolidated scorings that scripts/aggregate_scoring.py writes instead (their policy's
reviewer needs no registration; a mean written rounded is read as written); `--results-dir`
keeps such a computation apart from the committed results/.

On any invalid input, prints every problem as `path: message` on stderr, exits 1
and leaves results/ untouched.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Mapping
from contextlib import closing
from dataclasses import replace
from pathlib import Path

from ..atomic import write_many_atomic
from ..load.loader import SCORING_DIR
from ..load.multi_scoring import MultiScorings
from ..load.records import Tree
from ..load.spec import Spec
from ..numfmt import counted
from ..problems import refuse
from ..progress import Progress
from ..results.tables import MANIFEST_FILE, Published, Results, compute_results, publish
from ..results_csv import Table
from ..stats.consolidated_board import board_tree
from ..stats.judge_assisted_board import judge_assisted_tables
from .common import bad_folder_name, collector_paused, load_valid_grades, load_valid_tree, one_blas_thread


def run(args: argparse.Namespace) -> int:
    root = args.root
    if bad_folder_name({"--scoring-dir": args.scoring_dir, "--results-dir": args.results_dir}):
        return 1
    with collector_paused(), one_blas_thread(), closing(Progress()) as progress:
        def reading(done: int, total: int) -> None:
            progress.update("reading", done, total)

        if args.scoring_dir == SCORING_DIR:   # what `make metrics` computes its tables from
            grades = load_valid_grades(root, progress=reading, alpha_override=args.alpha)
            if grades is None:
                return 1
            spec, (tree, record) = grades[0], board_tree(*grades)
            progress.update("computing", 1, 2, force=True)
            return write_metrics(root, spec, tree, args.results_dir, record, assisted_of(*grades))
        loaded = load_valid_tree(root, alpha_override=args.alpha, scoring_dir=args.scoring_dir, progress=reading)
        if loaded is None:
            return 1
        spec, tree = loaded
        if not (root / args.scoring_dir / spec.version_dir).is_dir():
            return refuse(f"{args.scoring_dir}/{spec.version_dir}: no such folder in the tree (--scoring-dir names a "
                          "folder of scorings, e.g. one written by scripts/aggregate_scoring.py)")
        progress.update("computing", 1, 2, force=True)
        return write_metrics(root, spec, tree, args.results_dir)


def assisted_of(spec: Spec, tree: Tree, multi: MultiScorings) -> Callable[[Results], Mapping[str, Table]] | None:
    """In judge-assisted mode, what makes the estimator's tables from the results (:func:`rgbench.stats.
    judge_assisted_board.judge_assisted_tables`, the disqualified subjects kept out of the rank sets and pairs) for
    ``tree`` (every scoring, the judge's included) and its further grades ``multi``; None in human mode."""
    if not spec.judge_assisted:
        return None
    return lambda results: judge_assisted_tables(spec, tree, multi,
                                                 {m.subject_id for m in results.subjects if m.disqualified})


def computed(spec: Spec, tree: Tree, grades: dict[str, object] | None = None,
             assisted: Callable[[Results], Mapping[str, Table]] | None = None) -> tuple[Results, Published]:
    """Every table of ``tree`` (valid, as loaded for the metrics: without llm-judge scorings unless config.yaml
    counts them; or one consolidated grade per run, ``grades`` then saying so in manifest.json), exact and as
    written; with ``assisted`` (judge-assisted mode) the tables it makes from those results too."""
    results = replace(compute_results(tree, spec), grades=grades)
    if assisted is not None:
        results = replace(results, judge_assisted=assisted(results))
    return results, publish(spec, results)


def metrics_summary(root: Path, results: Results, results_dir: str = "results") -> str:
    """The warnings (on stderr) and the line `make metrics` prints after writing the tables."""
    for warning in results.statistics.warnings:
        print(f"warning: {warning}", file=sys.stderr)
    ranked = sum(1 for m in results.subjects if m.n)
    return (f"{counted(results.n_runs, 'scored run')} of {counted(len(results.subjects), 'subject')} "
            f"({ranked} with scores) -> {root.name or root}/{results_dir}/")


def write_metrics(root: Path, spec: Spec, tree: Tree, results_dir: str = "results",
                  grades: dict[str, object] | None = None,
                  assisted: Callable[[Results], Mapping[str, Table]] | None = None) -> int:
    """Compute every table of ``tree`` (:func:`computed`) and write them to ``root/results_dir`` as one set,
    manifest.json last; print the warnings and a summary line; 0. OutputError when the set could not be written
    (nothing half-written)."""
    results, published = computed(spec, tree, grades, assisted)
    # manifest.json last: it vouches for the whole set (build_leaderboard and check read it)
    write_many_atomic({root / results_dir / name: data for name, data in published.files.items()}, last=MANIFEST_FILE)
    print(metrics_summary(root, results, results_dir))
    return 0
